//! Signed URLs (supabase/storage `src/http/routes/object/getSignedURL.ts`,
//! `getSignedURLs.ts`, `getSignedObject.ts`, `getSignedUploadURL.ts`,
//! `uploadSignedObject.ts`).
//!
//! A signed URL's token is a JWT signed with the gateway's key that names the
//! object (`url: "<bucket>/<key>"`), what it allows (`op: "download"` or
//! `"upload"`) and when it expires. Signing checks the caller's permission
//! (select for a download, the insert dry run for an upload); using the token
//! then needs no other credential. A token for one object, or for one
//! operation, is refused for any other.

use axum::{
    Json,
    body::Bytes,
    extract::{Path, Query, Request, State},
    http::{HeaderMap, Method},
    response::Response,
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::download;
use super::error::StorageError;
use super::images::Transform;
use super::keys;
use super::objects::{self, Mode, NewObject};
use super::path::ObjectPath;
use super::upload::{self, Target, upsert_header};
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;
use gateway_core::jwt::{JwtError, now};

/// Signed upload URLs are valid this long, as Storage's are.
const UPLOAD_URL_SECONDS: u64 = 2 * 60 * 60;

pub fn json_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| StorageError::invalid_request(format!("invalid request body: {e}")).into())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignRequest {
    expires_in: i64,
    transform: Option<TransformRequest>,
}

/// `createSignedUrl(path, expiresIn, {transform})`'s options, as JSON.
#[derive(Deserialize)]
struct TransformRequest {
    width: Option<Value>,
    height: Option<Value>,
    resize: Option<String>,
    quality: Option<Value>,
    format: Option<String>,
}

impl TransformRequest {
    /// Checked as a render URL's query is (`images::Transform::from_query`).
    fn transform(&self) -> Result<Transform, ApiError> {
        let text = |v: &Option<Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Transform::from_query(
            text(&self.width).as_deref(),
            text(&self.height).as_deref(),
            self.resize.as_deref(),
            text(&self.quality).as_deref(),
            self.format.as_deref(),
        )
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignManyRequest {
    expires_in: i64,
    paths: Vec<String>,
}

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
    download: Option<String>,
}

fn token(state: &StorageState, op: &str, url: &str, seconds: u64, extra: Value) -> Result<String, ApiError> {
    let issued = now();
    let mut claims = json!({ "url": url, "op": op, "iat": issued, "exp": issued + seconds });
    if let (Value::Object(claims), Value::Object(extra)) = (&mut claims, extra) {
        claims.extend(extra);
    }
    state.credentials.jwt.sign(&claims).map_err(ApiError::internal)
}

fn expires(seconds: i64) -> Result<u64, ApiError> {
    if seconds < 1 {
        return Err(StorageError::invalid_request("expiresIn must be a positive number of seconds").into());
    }
    Ok(seconds as u64)
}

/// The claims of a token, if it is ours, unexpired and for `op` on `url`.
pub(crate) fn verify(
    state: &StorageState,
    token: Option<&str>,
    op: &str,
    url: &str,
) -> Result<Value, ApiError> {
    let token = token.ok_or_else(|| StorageError::invalid_request("Missing token"))?;
    let claims = state.credentials.jwt.verify(token).map_err(|e| match e {
        JwtError::Expired => StorageError::invalid_jwt("jwt expired"),
        other => StorageError::invalid_jwt(other.to_string()),
    })?;
    let claims = Value::Object(claims.claims);
    if claims.get("url").and_then(Value::as_str) != Some(url)
        || claims.get("op").and_then(Value::as_str) != Some(op)
    {
        return Err(StorageError::invalid_jwt("invalid signature").into());
    }
    Ok(claims)
}

/// `POST /object/sign/{bucket}/{key}` `{"expiresIn": 60}` -> `{"signedURL"}`.
pub async fn sign(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: SignRequest = json_body(&body)?;
    let seconds = expires(request.expires_in)?;
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let object = objects::find(&mut session, &bucket, &key).await?;
    session.commit().await?;
    object.ok_or_else(StorageError::no_such_key)?;
    let url = format!("{bucket}/{key}");
    // A transform is baked into the token, and the URL is then the render
    // route's, as Storage's `signObjectUrl` does (`transformations` in
    // Storage's words, `format` apart).
    let (route, extra) = match request.transform.as_ref().map(TransformRequest::transform).transpose()? {
        Some(transform) if !transform.to_claim().is_empty() => (
            "render/image",
            json!({ "transformations": transform.to_claim(), "format": request.transform.and_then(|t| t.format).unwrap_or_default() }),
        ),
        _ => ("object", json!({})),
    };
    let token = token(&state, "download", &url, seconds, extra)?;
    // Not percent-encoded: storage-js runs encodeURI over the whole URL.
    Ok(Json(json!({ "signedURL": format!("/{route}/sign/{url}?token={token}") })))
}

/// `POST /object/sign/{bucket}` `{"expiresIn", "paths": [...]}`: one entry per
/// path, with an error for those the caller may not read.
pub async fn sign_many(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: SignManyRequest = json_body(&body)?;
    let seconds = expires(request.expires_in)?;
    keys::parse_bucket(&bucket)?;
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let mut found = Vec::with_capacity(request.paths.len());
    for path in &request.paths {
        let exists = match keys::parse_key(path) {
            Ok(key) => objects::find(&mut session, &bucket, key).await?.is_some(),
            Err(_) => false,
        };
        found.push(exists);
    }
    session.commit().await?;
    let mut entries = Vec::with_capacity(found.len());
    for (path, exists) in request.paths.iter().zip(found) {
        entries.push(if exists {
            let url = format!("{bucket}/{path}");
            let token = token(&state, "download", &url, seconds, json!({}))?;
            json!({ "error": null, "path": path, "signedURL": format!("/object/sign/{url}?token={token}") })
        } else {
            json!({ "error": "Either the object does not exist or you do not have access to it", "path": path, "signedURL": null })
        });
    }
    Ok(Json(Value::Array(entries)))
}

/// `GET /object/sign/{bucket}/{key}?token=`: the object, with no other auth.
pub async fn download(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<TokenQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    verify(&state, query.token.as_deref(), "download", &format!("{bucket}/{key}"))?;
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let object = objects::blob(session, &bucket, &key).await?.ok_or_else(StorageError::no_such_key)?;
    download::serve(&state, &bucket, &object, &method, &headers, query.download.as_deref()).await
}

/// `POST /object/upload/sign/{bucket}/{key}` -> `{"url": "/object/upload/sign/...?token="}`,
/// after the caller's insert (or upsert, with `x-upsert: true`) passes the dry run.
pub async fn sign_upload(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let upsert = upsert_header(&headers);
    let mode = if upsert { Mode::Upsert } else { Mode::Create };
    let owner = caller.claims.sub().map(str::to_owned);
    let lookup = state.db.as_service_role(Access::ReadOnly).await?;
    let bucket_exists = objects::bucket_limits(lookup, &bucket).await?.is_some();
    if !bucket_exists {
        return Err(StorageError::no_such_bucket().into());
    }
    let version = Uuid::new_v4().to_string();
    let row = NewObject {
        id: Uuid::new_v4(),
        bucket: &bucket,
        name: &key,
        owner: owner.as_deref(),
        version: &version,
        metadata: json!({}),
        user_metadata: None,
    };
    let dry_run = state.db.session(&caller, Access::ReadWrite).await?;
    objects::write_row_and_end(dry_run, &row, mode, false).await?;
    let url = format!("{bucket}/{key}");
    let token =
        token(&state, "upload", &url, UPLOAD_URL_SECONDS, json!({ "owner": owner, "upsert": upsert }))?;
    Ok(Json(json!({ "url": format!("/object/upload/sign/{url}?token={token}"), "token": token })))
}

/// `PUT /object/upload/sign/{bucket}/{key}?token=`: an upload on a signed URL.
pub async fn upload(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<TokenQuery>,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    let claims = verify(&state, query.token.as_deref(), "upload", &format!("{bucket}/{key}"))?;
    let upsert = claims.get("upsert").and_then(Value::as_bool).unwrap_or(false);
    let owner = claims.get("owner").and_then(Value::as_str).map(str::to_owned);
    let target =
        Target { bucket: &bucket, key: &key, owner, mode: if upsert { Mode::Upsert } else { Mode::Create } };
    let id = upload::upload(&state, None, &target, request).await?;
    Ok(Json(json!({ "Id": id, "Key": format!("{bucket}/{key}") })))
}
