//! `/storage/v1`: the Storage-compatible API (supabase/storage `src/http/routes`).
//!
//! No particular API key is demanded here (the hosted gateway does not check
//! one): Storage reads the `Authorization` JWT (or the `apikey`, which Kong
//! puts there), refuses a request with neither ([`credentials`]), and public
//! object URLs need nothing at all. Errors take Storage's shape.
//!
//! Metadata lives in `storage.buckets` and `storage.objects` (`sql/020_storage.sql`),
//! read and written as the caller so that row-level security decides; bytes live
//! in an object store ([`backend`]) under `<bucket>/<key>/<version>`; [`sweep`]
//! removes the bytes that no row points at.

/// SQL for a `timestamptz` column as Storage sends every timestamp: ISO 8601
/// in UTC with milliseconds and `Z` (`2021-02-17T04:43:32.770Z`), what
/// node-postgres' `Date` becomes in JSON (`Date.prototype.toISOString`), where
/// PostgreSQL's own JSON text would be `2021-02-17T04:43:32.77+00:00`.
macro_rules! iso {
    ($column:literal) => {
        concat!("to_char(", $column, " at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")
    };
}

pub mod backend;
pub mod buckets;
pub mod cache;
pub mod config;
pub mod download;
pub mod drain;
pub mod error;
pub mod hold;
pub mod images;
pub mod keys;
pub mod list_v2;
pub mod manage;
pub mod objects;
pub mod path;
pub mod purge;
pub mod render;
pub mod resumable;
pub mod s3;
pub mod signed;
pub mod sweep;
pub mod upload;

use std::sync::Arc;

use axum::{
    Router,
    extract::{DefaultBodyLimit, FromRef, Request},
    http::{HeaderMap, Method},
    middleware::{self, Next},
    response::Response,
    routing::{any, get, post},
};

pub use backend::Backend;
pub use config::StorageConfig;

use gateway_core::body::Limits;
use gateway_core::caller::Credentials;
use gateway_core::db::Db;
use gateway_core::error::{ApiError, shaped};

/// What Storage's handlers see.
#[derive(Clone)]
pub struct StorageState {
    pub db: Db,
    pub credentials: Arc<Credentials>,
    pub config: Arc<StorageConfig>,
    /// Where stored objects' bytes live (local disk or S3).
    pub store: Backend,
    /// Image transformations' pool and variants (`images`).
    pub images: Arc<images::Images>,
    pub limits: Limits,
}

impl FromRef<StorageState> for Arc<Credentials> {
    fn from_ref(state: &StorageState) -> Self {
        state.credentials.clone()
    }
}
use error::StorageError;

/// The words of Storage's own routes under `/object/` (supabase/storage
/// `src/http/routes/object/index.ts`). Fastify matches these static segments
/// before `/object/:bucketName/*`, so in Storage `POST /object/list-v2/b` is
/// always a listing; here they are refused as bucket names on the upload and
/// download route, so a call to a route this gateway lacks never stores its
/// body as an object.
const RESERVED: &[&str] =
    &["authenticated", "public", "info", "sign", "upload", "list", "list-v2", "move", "copy", "render"];

fn reserved_route(request: Request, next: Next) -> impl Future<Output = Response> {
    let path = request.uri().path();
    let first = path.rsplit_once("/object/").map_or("", |(_, rest)| rest.split('/').next().unwrap_or(""));
    let refused = RESERVED.contains(&first);
    async move {
        if refused {
            return axum::response::IntoResponse::into_response(ApiError::NotFound);
        }
        next.run(request).await
    }
}

/// Storage verifies the `Authorization` JWT on every route but the public
/// ones (`allowInvalidJwt` in supabase/storage `src/http/plugins/jwt.ts`),
/// and an empty one fails with jose's `Invalid Compact JWS`; Kong copies the
/// `apikey` there, so either header (or `?apikey=`) will do. A present but
/// wrong token is refused later, by [`gateway_core::caller::Caller`].
fn has_credentials(headers: &HeaderMap, query: Option<&str>) -> bool {
    headers.contains_key(axum::http::header::AUTHORIZATION)
        || headers.contains_key("apikey")
        || query.is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(name, _)| name == "apikey"))
}

/// Routes that need no credentials: public objects and signed URLs, whose
/// token is in the query.
fn is_public(method: &Method, path: &str) -> bool {
    let path = path.strip_prefix("/storage/v1").unwrap_or(path);
    path.starts_with("/object/public/")
        || path.starts_with("/object/info/public/")
        || path.starts_with("/render/image/public/")
        || path.starts_with("/render/image/sign/")
        || ((*method == Method::GET || *method == Method::HEAD) && path.starts_with("/object/sign/"))
        || (*method == Method::PUT && path.starts_with("/object/upload/sign/"))
}

async fn require_credentials(request: Request, next: Next) -> Result<Response, ApiError> {
    if !is_public(request.method(), request.uri().path())
        && !has_credentials(request.headers(), request.uri().query())
    {
        return Err(StorageError::access_denied("Invalid Compact JWS").into());
    }
    Ok(next.run(request).await)
}

async fn feature_not_enabled() -> ApiError {
    error::FeatureNotEnabled.into()
}

pub fn router(state: StorageState) -> Router {
    // Uploads stream their body to the store and count it themselves; a
    // pause in it longer than the body timeout ends it (`gateway_core::body::pace`).
    let unlimited = DefaultBodyLimit::disable();
    let drain_refused = middleware::from_fn_with_state(state.clone(), drain::unread_body_on_refusal);
    let paced = middleware::from_fn_with_state(state.limits, gateway_core::body::pace);
    let uploads = Router::new()
        .route(
            "/object/{bucket}/{*path}",
            post(upload::create)
                .put(upload::update)
                .get(download::authenticated)
                .delete(manage::remove_one)
                .layer(unlimited)
                .layer(paced.clone())
                .layer(drain_refused.clone())
                .layer(middleware::from_fn(reserved_route)),
        )
        .route(
            "/object/upload/sign/{bucket}/{*path}",
            post(signed::sign_upload).put(signed::upload).layer(unlimited).layer(paced).layer(drain_refused),
        );
    // The other routes' bodies are JSON, read whole under the gateway's
    // limits (`gateway_core::body::read_whole`), which replace axum's default one.
    Router::new()
        // storage-js's `storage.vectors` (S3 Vectors) and `storage.analytics`
        // (Iceberg) need pgvector and an Iceberg catalog, neither of which is
        // here: they get what a hosted project without them answers.
        .route("/vector/{*rest}", any(feature_not_enabled))
        .route("/iceberg/{*rest}", any(feature_not_enabled))
        .route("/cdn/{bucket}", axum::routing::delete(purge::bucket))
        .route("/cdn/{bucket}/{*path}", axum::routing::delete(purge::object))
        .route("/bucket", get(buckets::list).post(buckets::create))
        .route("/bucket/{id}", get(buckets::get).put(buckets::update).delete(buckets::delete))
        .route("/bucket/{id}/empty", post(buckets::empty))
        .route("/object/{bucket}", axum::routing::delete(manage::remove))
        .route("/object/authenticated/{bucket}/{*path}", get(download::authenticated))
        .route("/object/public/{bucket}/{*path}", get(download::public))
        .route("/object/info/{bucket}/{*path}", get(download::info))
        .route("/object/info/authenticated/{bucket}/{*path}", get(download::info))
        .route("/object/info/public/{bucket}/{*path}", get(download::info_public))
        .route("/object/sign/{bucket}", post(signed::sign_many))
        .route("/object/sign/{bucket}/{*path}", post(signed::sign).get(signed::download))
        .route("/object/list/{bucket}", post(manage::list))
        .route("/object/list-v2/{bucket}", post(list_v2::list))
        .route("/object/move", post(manage::move_object))
        .route("/object/copy", post(manage::copy))
        .route("/render/image/public/{bucket}/{*path}", get(render::public))
        .route("/render/image/authenticated/{bucket}/{*path}", get(render::authenticated))
        .route("/render/image/sign/{bucket}/{*path}", get(render::signed))
        .layer(middleware::from_fn_with_state(state.limits, gateway_core::body::read_whole))
        .layer(unlimited)
        .merge(uploads)
        .route_layer(middleware::from_fn(require_credentials))
        // Resumable uploads check their callers themselves (`resumable.rs`).
        .merge(resumable::router(&state))
        .fallback(|| async { ApiError::NotFound })
        .layer(shaped::<error::Storage>())
        .with_state(state.clone())
        // The S3 protocol signs its own requests and answers in XML.
        .merge(s3::router(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_objects_and_signed_urls_go_without_credentials() {
        let cases = [
            (Method::GET, "/object/public/b/k.png", true),
            (Method::GET, "/object/info/public/b/k.png", true),
            (Method::GET, "/object/sign/b/k.png", true),
            (Method::HEAD, "/object/sign/b/k.png", true),
            (Method::POST, "/object/sign/b/k.png", false),
            (Method::PUT, "/object/upload/sign/b/k.png", true),
            (Method::POST, "/object/upload/sign/b/k.png", false),
            (Method::GET, "/render/image/public/b/k.png", true),
            (Method::GET, "/render/image/sign/b/k.png", true),
            (Method::GET, "/render/image/authenticated/b/k.png", false),
            (Method::GET, "/bucket", false),
            (Method::GET, "/object/b/k.png", false),
        ];
        for (method, path, public) in cases {
            assert_eq!(is_public(&method, path), public, "{method} {path}");
        }
    }
}
