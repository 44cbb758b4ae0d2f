//! Downloads: `GET`/`HEAD` `/object/{bucket}/{key}` and
//! `/object/authenticated/...` as the caller (row-level security), and
//! `/object/public/...` with no auth for public buckets only; `/object/info/...`
//! answers the row as JSON (supabase/storage `src/http/routes/object/getObject.ts`,
//! `getPublicObject.ts`, `src/storage/renderer/renderer.ts`).
//!
//! Responses carry `Content-Type`, the stored `Cache-Control`, `ETag`,
//! `Last-Modified`, `Content-Length` and `Accept-Ranges: bytes`. A single
//! `Range: bytes=a-b` (or `a-`, or `-n`) gives 206 with `Content-Range`; an
//! unsatisfiable one gives 416. `If-None-Match` with the current ETag gives 304.
//! `?download` (or `?download=name`) adds `Content-Disposition: attachment`.

use axum::{
    Json,
    body::Body,
    extract::{Query, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use object_store::{GetOptions, GetRange};
use serde_json::{Value, json};

use super::error::StorageError;
use super::keys;
use super::objects::{self, Blob};
use super::path::ObjectPath;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

#[derive(Debug, Default, serde::Deserialize)]
pub struct DownloadQuery {
    pub download: Option<String>,
}

/// `GET /object/{bucket}/{key}` and `/object/authenticated/{bucket}/{key}`.
pub async fn authenticated(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<DownloadQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let session = state.db.session(&caller, Access::ReadOnly).await?;
    let object = objects::blob(session, &bucket, &key).await?.ok_or_else(StorageError::no_such_key)?;
    serve(&state, &bucket, &object, &method, &headers, query.download.as_deref()).await
}

/// `GET /object/public/{bucket}/{key}`: no auth; the bucket must be public.
pub async fn public(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
    Query(query): Query<DownloadQuery>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let object = objects::public_blob(&state.db, &bucket, &key).await?;
    serve(&state, &bucket, &object, &method, &headers, query.download.as_deref()).await
}

/// `GET /object/info/{bucket}/{key}`: the object's row, as the caller sees
/// it, in one round trip.
pub async fn info(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
) -> Result<Json<Value>, ApiError> {
    let session = state.db.session(&caller, Access::ReadOnly).await?;
    let info = objects::info(session, &bucket, &key).await?;
    Ok(Json(info.ok_or_else(StorageError::no_such_key)?))
}

/// `GET /object/info/public/{bucket}/{key}`, in one round trip.
pub async fn info_public(
    State(state): State<StorageState>,
    ObjectPath { bucket, key }: ObjectPath,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(objects::public_info(&state.db, &bucket, &key).await?))
}

/// The bytes of `object`, honouring `Range` and `If-None-Match`.
pub async fn serve(
    state: &StorageState,
    bucket: &str,
    object: &Blob,
    method: &Method,
    headers: &HeaderMap,
    download: Option<&str>,
) -> Result<Response, ApiError> {
    let size = object.size;
    let etag = object.etag.as_deref().unwrap_or("");
    let mut common = HeaderMap::new();
    let mut set = |name: header::HeaderName, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            common.insert(name, value);
        }
    };
    set(header::CONTENT_TYPE, object.mimetype.as_deref().unwrap_or("application/octet-stream"));
    set(header::CACHE_CONTROL, object.cache_control.as_deref().unwrap_or("no-cache"));
    if !etag.is_empty() {
        set(header::ETAG, etag);
    }
    if let Some(modified) = object
        .last_modified
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc).format("%a, %d %b %Y %H:%M:%S GMT").to_string())
    {
        set(header::LAST_MODIFIED, &modified);
    }
    set(header::ACCEPT_RANGES, "bytes");
    if let Some(name) = download {
        let name = if name.is_empty() { object.name.rsplit('/').next().unwrap_or("") } else { name };
        set(header::CONTENT_DISPOSITION, &attachment(name));
    }

    if !etag.is_empty()
        && let Some(wanted) = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok())
        && wanted.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
    {
        return Ok((StatusCode::NOT_MODIFIED, common).into_response());
    }

    let range = match headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
        None => None,
        Some(value) => match parse_range(value, size) {
            Some(range) => Some(range),
            None => return Ok(unsatisfiable(size)),
        },
    };
    let (status, start, end) = match range {
        Some((start, end)) => (StatusCode::PARTIAL_CONTENT, start, end),
        None => (StatusCode::OK, 0, size),
    };
    common.insert(header::CONTENT_LENGTH, HeaderValue::from(end - start));
    if range.is_some()
        && let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{}/{size}", end.saturating_sub(1)))
    {
        common.insert(header::CONTENT_RANGE, value);
    }
    if *method == Method::HEAD || start == end {
        return Ok((status, common, Body::empty()).into_response());
    }
    let path = keys::version_path(bucket, &object.name, &object.version)?;
    let missing = |e: object_store::Error| match e {
        object_store::Error::NotFound { .. } => {
            tracing::error!(%path, "a row points at bytes that are missing");
            ApiError::from(StorageError::no_such_key())
        }
        other => ApiError::internal(other),
    };
    // A small object is read whole, in one go (`Backend::read`); a stream
    // would take a hop to the blocking pool per 8 KiB.
    metrics::counter!("gateway_storage_sent_bytes_total").increment(end - start);
    if end - start <= SMALL_OBJECT {
        let bytes = state.store.read(&path, start..end, size).await.map_err(missing)?;
        return Ok((status, common, Body::from(bytes)).into_response());
    }
    let options = GetOptions { range: Some(GetRange::Bounded(start..end)), ..Default::default() };
    let result = state.store.store.get_opts(&path, options).await.map_err(missing)?;
    Ok((status, common, Body::from_stream(result.into_stream())).into_response())
}

/// Objects up to this size are read whole before they are sent (and may be
/// kept in memory, `storage::cache`); larger ones are streamed.
pub const SMALL_OBJECT: u64 = 1024 * 1024;

/// `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` over an object of `size`
/// bytes, as the half-open range `start..end`; `None` when unsatisfiable or
/// not understood (several ranges are not served).
pub(super) fn parse_range(value: &str, size: u64) -> Option<(u64, u64)> {
    let spec = value.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (first, last) = spec.split_once('-')?;
    let (first, last) = (first.trim(), last.trim());
    let (start, end) = if first.is_empty() {
        let suffix: u64 = last.parse().ok()?;
        if suffix == 0 {
            return None;
        }
        (size.saturating_sub(suffix), size)
    } else {
        let start: u64 = first.parse().ok()?;
        let end = if last.is_empty() { size } else { last.parse::<u64>().ok()?.saturating_add(1).min(size) };
        (start, end)
    };
    (start < end && start < size).then_some((start, end))
}

pub(super) fn unsatisfiable(size: u64) -> Response {
    let error = StorageError::invalid_range();
    let body = json!({ "statusCode": error.status_code, "code": error.code, "error": error.error, "message": error.message });
    let mut response = (StatusCode::RANGE_NOT_SATISFIABLE, Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("bytes */{size}")) {
        response.headers_mut().insert(header::CONTENT_RANGE, value);
    }
    response
}

/// `attachment; filename="..."; filename*=UTF-8''...` with every byte outside
/// a safe set percent-encoded, so a name can never break the header.
pub(super) fn attachment(name: &str) -> String {
    let mut encoded = String::new();
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("attachment; filename=\"{encoded}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_rfc_9110() {
        let cases = [
            ("bytes=0-9", 100, Some((0, 10))),
            ("bytes=90-", 100, Some((90, 100))),
            ("bytes=-10", 100, Some((90, 100))),
            ("bytes=-200", 100, Some((0, 100))),
            ("bytes=95-200", 100, Some((95, 100))),
            ("bytes=100-", 100, None),
            ("bytes=5-4", 100, None),
            ("bytes=0-1,5-6", 100, None),
            ("items=0-1", 100, None),
            ("bytes=-0", 100, None),
            ("bytes=0-", 0, None),
        ];
        for (value, size, expected) in cases {
            assert_eq!(parse_range(value, size), expected, "{value} of {size}");
        }
    }

    #[test]
    fn download_names_cannot_break_the_header() {
        assert_eq!(attachment("a b.png"), "attachment; filename=\"a%20b.png\"; filename*=UTF-8''a%20b.png");
        assert!(HeaderValue::from_str(&attachment("x\"\r\nSet-Cookie: y")).is_ok());
        assert!(!attachment("x\"\r\n").contains("\r\n"));
    }
}
