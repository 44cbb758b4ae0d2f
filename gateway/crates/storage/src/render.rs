//! `GET /render/image/{public,authenticated,sign}/{bucket}/{key}`: an image
//! object transformed ([`super::images`]), with the same permission checks
//! as the matching download route (supabase/storage
//! `src/http/routes/render/renderPublicImage.ts`,
//! `renderAuthenticatedImage.ts`, `renderSignedImage.ts`). A signed URL
//! carries its transform in the token (`createSignedUrl(path, expiresIn,
//! {transform})`), and the query's own parameters are then ignored, as
//! Storage ignores them.
//!
//! The answer has the variant's `Content-Type`, the source's `Cache-Control`
//! and `Last-Modified`, an `ETag` of the source's tag and the variant's name
//! (so a changed source or another variant never matches), `Vary: Accept`
//! (WebP goes only to clients that accept it), and Storage's
//! `X-Transformations`. `If-None-Match` gives 304 before any pixel is
//! touched; a `Range` is served from the variant.

use axum::{
    body::Body,
    extract::{Query, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use bytes::Bytes;
use serde_json::Value;

use super::download::{attachment, parse_range, unsatisfiable};
use super::error::StorageError;
use super::images::{Output, RenderError, Transform};
use super::keys;
use super::objects::{self, Blob};
use super::path::ObjectPath;
use super::signed;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

#[derive(Debug, Default, serde::Deserialize)]
pub struct RenderQuery {
    width: Option<String>,
    height: Option<String>,
    resize: Option<String>,
    quality: Option<String>,
    format: Option<String>,
    download: Option<String>,
    token: Option<String>,
}

impl RenderQuery {
    fn transform(&self) -> Result<Transform, ApiError> {
        Transform::from_query(
            self.width.as_deref(),
            self.height.as_deref(),
            self.resize.as_deref(),
            self.quality.as_deref(),
            self.format.as_deref(),
        )
    }
}

/// `/render/image/public/{bucket}/{key}`: no auth; the bucket must be public.
pub async fn public(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<RenderQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let transform = query.transform()?;
    let object = objects::public_blob(&state.db, &bucket, &key).await?;
    respond(&state, &bucket, &object, &transform, &method, &headers, query.download.as_deref()).await
}

/// `/render/image/authenticated/{bucket}/{key}`: as the caller.
pub async fn authenticated(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<RenderQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let transform = query.transform()?;
    let session = state.db.session(&caller, Access::ReadOnly).await?;
    let object = objects::blob(session, &bucket, &key).await?.ok_or_else(StorageError::no_such_key)?;
    respond(&state, &bucket, &object, &transform, &method, &headers, query.download.as_deref()).await
}

/// `/render/image/sign/{bucket}/{key}?token=`: the token's transform.
pub async fn signed(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<RenderQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let claims = signed::verify(&state, query.token.as_deref(), "download", &format!("{bucket}/{key}"))?;
    let transform = Transform::from_claim(
        claims.get("transformations").and_then(Value::as_str).unwrap_or(""),
        claims.get("format").and_then(Value::as_str),
    );
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let object = objects::blob(session, &bucket, &key).await?.ok_or_else(StorageError::no_such_key)?;
    respond(&state, &bucket, &object, &transform, &method, &headers, query.download.as_deref()).await
}

async fn respond(
    state: &StorageState,
    bucket: &str,
    object: &Blob,
    transform: &Transform,
    method: &Method,
    headers: &HeaderMap,
    download: Option<&str>,
) -> Result<Response, ApiError> {
    let path = keys::version_path(bucket, &object.name, &object.version)?;
    let size = object.size;
    let read = || async {
        state.store.read(&path, 0..size, size).await.map_err(|e| match e {
            object_store::Error::NotFound { .. } => ApiError::from(StorageError::no_such_key()),
            other => ApiError::internal(other),
        })
    };
    // The stored type names the format, or else the bytes do.
    let (origin, source) = match object.mimetype.as_deref().and_then(Output::of_mime) {
        Some(origin) => (origin, None),
        None => {
            let source = read().await?;
            (Output::sniff(&source).ok_or(RenderError::Unsupported)?, Some(source))
        }
    };
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    let output = transform.output(accept, origin);
    let variant = transform.key(output);
    let etag = format!("\"{}-{variant}\"", object.etag.as_deref().unwrap_or("").trim_matches('"'));

    let mut common = HeaderMap::new();
    let mut set = |name: header::HeaderName, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            common.insert(name, value);
        }
    };
    // Known before the bytes unless the smaller of two formats is kept.
    if output != Output::AvifOrWebp {
        set(header::CONTENT_TYPE, output.mime());
    }
    set(header::CACHE_CONTROL, object.cache_control.as_deref().unwrap_or("no-cache"));
    set(header::ETAG, &etag);
    set(header::VARY, "Accept");
    set(header::ACCEPT_RANGES, "bytes");
    set(header::HeaderName::from_static("x-transformations"), &transform.header());
    if let Some(modified) = object
        .last_modified
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc).format("%a, %d %b %Y %H:%M:%S GMT").to_string())
    {
        set(header::LAST_MODIFIED, &modified);
    }
    if let Some(name) = download {
        let name = if name.is_empty() { object.name.rsplit('/').next().unwrap_or("") } else { name };
        set(header::CONTENT_DISPOSITION, &attachment(name));
    }
    if let Some(wanted) = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok())
        && wanted.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
    {
        return Ok((StatusCode::NOT_MODIFIED, common).into_response());
    }

    // Memory, then the store, then a worker; a variant made here is written
    // to the store after the answer, for this gateway's next start and for
    // the other gateways on the same store.
    let cache_key = format!("{path}#{variant}");
    let stored_at = keys::variant_path(bucket, &object.name, &object.version, &variant)?;
    let bytes = match state.images.cached(&cache_key) {
        Some(hit) => {
            metrics::counter!("gateway_storage_transforms_total", "outcome" => "cached").increment(1);
            hit
        }
        None => match stored_variant(state, &stored_at).await {
            Some(stored) => {
                metrics::counter!("gateway_storage_transforms_total", "outcome" => "cached").increment(1);
                state.images.remember(&cache_key, &stored);
                stored
            }
            None => {
                let started = std::time::Instant::now();
                let made = state
                    .images
                    .render(cache_key, transform, output, || async {
                        match source {
                            Some(source) => Ok(source),
                            None => read().await,
                        }
                    })
                    .await;
                let outcome = if made.is_ok() { "made" } else { "failed" };
                metrics::counter!("gateway_storage_transforms_total", "outcome" => outcome).increment(1);
                if made.is_ok() {
                    metrics::histogram!("gateway_storage_transform_duration_seconds")
                        .record(started.elapsed().as_secs_f64());
                }
                let made = made?;
                let (store, made_copy) = (state.store.clone(), made.clone());
                tokio::spawn(async move {
                    if let Err(error) = store.put(&stored_at, vec![made_copy]).await {
                        tracing::warn!(%stored_at, ?error, "could not keep an image variant in the store");
                    }
                });
                made
            }
        },
    };

    if let Ok(kind) = HeaderValue::from_str(output.mime_of(&bytes)) {
        common.insert(header::CONTENT_TYPE, kind);
    }
    let len = bytes.len() as u64;
    let (status, body) = match headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
        None => (StatusCode::OK, bytes),
        Some(value) => match parse_range(value, len) {
            Some((start, end)) => {
                set_range(&mut common, start, end, len);
                (StatusCode::PARTIAL_CONTENT, bytes.slice(start as usize..end as usize))
            }
            None => return Ok(unsatisfiable(len)),
        },
    };
    common.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len() as u64));
    let body = if *method == Method::HEAD {
        Body::empty()
    } else {
        metrics::counter!("gateway_storage_sent_bytes_total").increment(body.len() as u64);
        Body::from(Bytes::clone(&body))
    };
    Ok((status, common, body).into_response())
}

fn set_range(headers: &mut HeaderMap, start: u64, end: u64, len: u64) {
    if let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{}/{len}", end.saturating_sub(1))) {
        headers.insert(header::CONTENT_RANGE, value);
    }
}

/// A variant kept in the store, if there is one; a failed read is a miss
/// (the variant is made again).
async fn stored_variant(state: &StorageState, path: &object_store::path::Path) -> Option<Bytes> {
    let found = object_store::ObjectStoreExt::get(&state.store.store, path).await.ok()?;
    found.bytes().await.ok()
}
