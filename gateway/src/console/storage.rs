//! The console's storage (Studio's Storage page): buckets with their
//! settings, objects as folders, uploads, downloads, moves, deletions, signed
//! URLs and image previews.
//!
//! Studio calls the storage API with the service key; the console hands the
//! operator's request to the storage service's own router ([`as_service_role`])
//! under `<console>/api/storage/`, so that every answer, refusal and limit is
//! exactly `/storage/v1`'s. The operator's cookie and CSRF token stay here;
//! the storage service sees a service-role token minted for that one request.

use axum::{
    extract::{FromRef, Request, State},
    http::{HeaderName, HeaderValue, Uri, header},
    response::{IntoResponse, Response},
};
use gateway_storage::StorageState;
use serde_json::json;
use tower::ServiceExt;

use super::{ConsoleError, access::Operator};
use crate::AppState;

/// The storage routes the console reaches: buckets, objects, image renders
/// and resumable uploads (TUS, as Studio uploads); not the S3 protocol,
/// which signs its own requests, nor the uploads to signed URLs.
const REACHABLE: [&str; 4] = ["/bucket", "/object", "/render/image", "/upload/resumable"];

/// The headers of the operator's request that the storage service reads;
/// every other one (the cookie, the CSRF token) stays with the console.
const FORWARDED: [HeaderName; 12] = [
    header::CONTENT_TYPE,
    header::CONTENT_LENGTH,
    header::CACHE_CONTROL,
    header::RANGE,
    header::IF_NONE_MATCH,
    header::IF_MODIFIED_SINCE,
    HeaderName::from_static("x-upsert"),
    // TUS (https://tus.io/protocols/resumable-upload#headers).
    HeaderName::from_static("tus-resumable"),
    HeaderName::from_static("upload-length"),
    HeaderName::from_static("upload-defer-length"),
    HeaderName::from_static("upload-offset"),
    HeaderName::from_static("upload-metadata"),
];

/// How long the minted token lasts: the one request.
const TOKEN_SECONDS: u64 = 300;

/// `<console>/api/storage/{*rest}`: `/storage/v1/{rest}` as the service
/// role, for a signed-in operator.
pub async fn proxy(State(state): State<AppState>, operator: Operator, request: Request) -> Response {
    match forward(&state, &operator, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn forward(state: &AppState, operator: &Operator, request: Request) -> Result<Response, ConsoleError> {
    let prefix = format!("{}/api/storage", state.config.console.console_path);
    let rest = request.uri().path().strip_prefix(&prefix).unwrap_or_default().to_owned();
    let signed_upload = rest == "/upload/resumable/sign" || rest.starts_with("/upload/resumable/sign/");
    if signed_upload
        || !REACHABLE.iter().any(|route| rest == *route || rest.starts_with(&format!("{route}/")))
    {
        return Err(ConsoleError::NotFound);
    }
    if request.method() != axum::http::Method::GET {
        tracing::info!(email = operator.email, method = %request.method(), path = rest, "operator changed storage");
    }
    let uri = match request.uri().query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest,
    };
    let (parts, body) = request.into_parts();
    let mut forwarded = Request::new(body);
    *forwarded.method_mut() = parts.method;
    *forwarded.uri_mut() = uri.parse::<Uri>().map_err(|_| ConsoleError::NotFound)?;
    for name in FORWARDED {
        for value in parts.headers.get_all(&name) {
            forwarded.headers_mut().append(name.clone(), value.clone());
        }
    }
    let token = service_role_token(state)?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}")).map_err(ConsoleError::internal)?;
    forwarded.headers_mut().insert(header::AUTHORIZATION, bearer);
    Ok(as_service_role(state, forwarded).await)
}

/// A service-role token of the current signing key, for one request.
fn service_role_token(state: &AppState) -> Result<String, ConsoleError> {
    let now = gateway_core::jwt::now();
    let claims = json!({ "role": "service_role", "iat": now, "exp": now + TOKEN_SECONDS });
    state.credentials.jwt.sign(&claims).map_err(ConsoleError::internal)
}

/// The one call through which the console acts on storage as the service
/// role (past row-level security, as Studio's service key does): `request`,
/// already carrying a service-role token, answered by the storage service's
/// own router.
pub async fn as_service_role(state: &AppState, request: Request) -> Response {
    let router = gateway_storage::router(StorageState::from_ref(state));
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
