//! Uploads: `POST` (create, or replace with `x-upsert: true`) and `PUT` (update)
//! on `/object/{bucket}/{key}` (supabase/storage `src/storage/uploader.ts`,
//! `src/http/routes/object/createObject.ts`, wire-protocol.md §4.1).
//!
//! The recipe, in order:
//!
//! 1. the bucket name and key are checked against the allowlist (`InvalidKey`);
//! 2. the bucket's limits are read: the size limit is the smaller of the global
//!    and the bucket's, and a declared `Content-Length` over it is refused
//!    before a byte of the body is read (`EntityTooLarge`);
//! 3. the MIME type (the `contentType` form field, the file part's type, or the
//!    `Content-Type` of a raw body) must match the bucket's allowlist, exactly
//!    or as `type/*` (`InvalidMimeType`);
//! 4. **permission first**: the row's insert (or upsert, or update) runs as the
//!    caller in a transaction that is rolled back, so row-level security and
//!    the 409 for an existing key answer before any byte is written;
//! 5. the body streams to a fresh version path, cut at limit + 1;
//! 6. one transaction switches the row to the new version; then the replaced
//!    version's bytes are removed. Any failure removes the new bytes instead,
//!    so the previous object stays readable and no row points at partial bytes.
//!
//! Bodies are either `multipart/form-data` (text fields `cacheControl`,
//! `contentType`, `metadata` before a single file part with any field name,
//! even empty) or raw bytes with `content-type`, `cache-control` and
//! `x-metadata` (base64 JSON) headers.

use axum::{
    Json,
    extract::{Request, State},
    http::{HeaderMap, header},
};
use base64::Engine;
use bytes::Bytes;
use futures::{StreamExt, stream::BoxStream};
use serde_json::{Value, json};
use uuid::Uuid;

use super::backend::{WriteError, Written};
use super::error::StorageError;
use super::hold;
use super::keys;
use super::objects::{self, Mode, NewObject};
use super::path::ObjectPath;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// `POST /object/{bucket}/{key}`.
pub async fn create(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    let mode = if upsert_header(request.headers()) { Mode::Upsert } else { Mode::Create };
    let target = Target { bucket: &bucket, key: &key, owner: caller.claims.sub().map(str::to_owned), mode };
    let id = upload(&state, Some(&caller), &target, request).await?;
    Ok(Json(json!({ "Id": id, "Key": format!("{bucket}/{key}") })))
}

/// `PUT /object/{bucket}/{key}`: replaces an existing object.
pub async fn update(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    let target = Target {
        bucket: &bucket,
        key: &key,
        owner: caller.claims.sub().map(str::to_owned),
        mode: Mode::Update,
    };
    let id = upload(&state, Some(&caller), &target, request).await?;
    Ok(Json(json!({ "Id": id, "Key": format!("{bucket}/{key}") })))
}

pub fn upsert_header(headers: &HeaderMap) -> bool {
    headers.get("x-upsert").and_then(|v| v.to_str().ok()).is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// What is being uploaded where.
pub struct Target<'a> {
    pub bucket: &'a str,
    pub key: &'a str,
    pub owner: Option<String>,
    pub mode: Mode,
}

/// The body as the upload sees it: the file's bytes and what describes them.
struct Incoming<'a> {
    bytes: BoxStream<'a, Result<Bytes, String>>,
    mime: String,
    cache_control: String,
    user_metadata: Option<Value>,
    /// The size announced up front, for a raw body with `Content-Length`.
    declared: Option<u64>,
}

/// Bodies up to this size (and the limit) are read whole before the row is
/// written; larger ones stream to the store in parts.
const BUFFERED: u64 = 1 << 20;

/// Runs the recipe of the module doc. `checked_as` is the caller whose
/// permission is tried first; signed upload URLs pass `None`, their permission
/// having been checked when the URL was signed.
pub async fn upload(
    state: &StorageState,
    checked_as: Option<&Caller>,
    target: &Target<'_>,
    request: Request,
) -> Result<Uuid, ApiError> {
    keys::parse_bucket(target.bucket)?;
    keys::parse_key(target.key)?;
    let lookup = state.db.as_service_role(Access::ReadOnly).await?;
    let bucket = objects::bucket_limits(lookup, target.bucket).await?;
    let bucket = bucket.ok_or_else(StorageError::no_such_bucket)?;
    let global = state.config.file_size_limit;
    let limit = bucket.file_size_limit.map_or(global, |own| own.min(global));
    if let Some(drain) = request.extensions().get::<super::drain::DrainLimit>() {
        drain.set(limit);
    }

    let mut incoming = if let Some(boundary) = multipart_boundary(request.headers())? {
        let form = multer::Multipart::new(request.into_body().into_data_stream(), boundary);
        read_form(form).await?
    } else {
        raw(request)?
    };
    if incoming.declared.is_some_and(|n| n > limit) {
        return Err(StorageError::entity_too_large().into());
    }
    check_mime(&incoming.mime, bucket.allowed_mime_types.as_deref())?;

    let small = BUFFERED.min(limit);
    let (head, whole) = if incoming.declared.is_none_or(|n| n <= small) {
        read_up_to(&mut incoming.bytes, small).await?
    } else {
        (Vec::new(), false)
    };
    let version = Uuid::new_v4().to_string();
    let path = keys::version_path(target.bucket, target.key, &version)?;
    let mut row = NewObject {
        id: Uuid::new_v4(),
        bucket: target.bucket,
        name: target.key,
        owner: target.owner.as_deref(),
        version: &version,
        metadata: Value::Null,
        user_metadata: incoming.user_metadata.clone(),
    };
    let session = || async {
        match checked_as {
            Some(caller) => state.db.session(caller, Access::ReadWrite).await,
            None => state.db.as_service_role(Access::ReadWrite).await,
        }
    };
    let (id, previous) = if whole {
        // The whole body is here: its row and its bytes go in one transaction
        // as the caller. The insert is the permission check, before any byte
        // is written; the row becomes visible at the commit, after the bytes
        // are complete, so a crash in between leaves no row and the old object
        // as it was (the way `copy` works too).
        let written = Written::of(&head);
        row.metadata = metadata(&incoming, written.size, &written.etag);
        let mut session = session().await?;
        let (id, previous) = match objects::write_row(&mut session, &row, target.mode).await {
            Ok(done) => done,
            Err(e) => {
                // A PUT on a missing key fails with its transaction still
                // open: end it, so the connection goes back to the pool.
                let _ = session.rollback().await;
                return Err(e);
            }
        };
        if let Err(e) = state.store.put(&path, head).await {
            // The write's error is the one to report; a session whose
            // rollback fails gives its connection up by itself.
            let _ = session.rollback().await;
            return Err(e);
        }
        if let Err(e) = session.commit().await {
            state.store.remove(&path).await;
            return Err(e);
        }
        metrics::counter!("gateway_storage_received_bytes_total").increment(written.size);
        (id, previous)
    } else {
        // Too large to hold: the insert is tried as the caller and rolled back,
        // the body streams to the store, then a second transaction switches
        // the row to the new version.
        row.metadata = metadata(&incoming, incoming.declared.unwrap_or(0), "");
        if let Some(caller) = checked_as {
            let dry_run = state.db.session(caller, Access::ReadWrite).await?;
            objects::write_row_and_end(dry_run, &row, target.mode, false).await?;
        }
        let rest = std::mem::replace(&mut incoming.bytes, futures::stream::empty().boxed());
        let body = futures::stream::iter(head.into_iter().map(Ok)).chain(rest);
        let written = state.store.write(&path, body, limit).await?;
        row.metadata = metadata(&incoming, written.size, &written.etag);
        let switched = async {
            let session = state.db.as_service_role(Access::ReadWrite).await?;
            objects::write_row_and_end(session, &row, target.mode, true).await
        }
        .await;
        match switched {
            Ok(done) => {
                metrics::counter!("gateway_storage_received_bytes_total").increment(written.size);
                done
            }
            Err(e) => {
                state.store.remove(&path).await;
                return Err(e);
            }
        }
    };
    if let Some(previous) = previous.filter(|p| !p.is_empty() && *p != version)
        && let Ok(old) = keys::version_path(target.bucket, target.key, &previous)
    {
        hold::remove_replaced(&state.db, &state.store, vec![old]).await;
    }
    Ok(id)
}

/// Reads `body` until it ends (`true`) or more than `most` bytes arrived
/// (`false`); returns the chunks read, not copied.
async fn read_up_to(
    body: &mut BoxStream<'_, Result<Bytes, String>>,
    most: u64,
) -> Result<(Vec<Bytes>, bool), ApiError> {
    let mut chunks = Vec::new();
    let mut size = 0;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(WriteError::Body)?;
        size += chunk.len() as u64;
        chunks.push(chunk);
        if size > most {
            return Ok((chunks, false));
        }
    }
    Ok((chunks, true))
}

/// The boundary of a `multipart/form-data` body; `None` for a raw body.
fn multipart_boundary(headers: &HeaderMap) -> Result<Option<String>, StorageError> {
    let Some(content_type) = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return Ok(None);
    };
    if !content_type.trim_start().to_ascii_lowercase().starts_with("multipart/form-data") {
        return Ok(None);
    }
    multer::parse_boundary(content_type)
        .map(Some)
        .map_err(|_| StorageError::invalid_request("multipart body without a boundary"))
}

fn raw(request: Request) -> Result<Incoming<'static>, ApiError> {
    let headers = request.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let user_metadata = match headers.get("x-metadata").and_then(|v| v.to_str().ok()) {
        None => None,
        Some(encoded) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
                .ok_or_else(|| StorageError::invalid_request("x-metadata is not base64-encoded JSON"))?,
        ),
    };
    let declared = text(header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    let incoming = Incoming {
        mime: text(header::CONTENT_TYPE).unwrap_or_else(|| "application/octet-stream".to_owned()),
        cache_control: text(header::CACHE_CONTROL).unwrap_or_else(|| "no-cache".to_owned()),
        user_metadata,
        declared,
        bytes: request.into_body().into_data_stream().map(|r| r.map_err(|e| e.to_string())).boxed(),
    };
    Ok(incoming)
}

/// Reads the text fields up to the file part, and returns the file part as a
/// stream. Fields after the file are not read, as Storage ignores them.
async fn read_form(mut form: multer::Multipart<'static>) -> Result<Incoming<'static>, ApiError> {
    let bad = |e: multer::Error| StorageError::invalid_request(format!("invalid multipart body: {e}"));
    let mut cache_control = None;
    let mut content_type = None;
    let mut user_metadata = None;
    loop {
        let Some(field) = form.next_field().await.map_err(bad)? else {
            return Err(StorageError::invalid_request("No file was found in the multipart body").into());
        };
        let name = field.name().unwrap_or("").to_owned();
        let is_text = field.file_name().is_none()
            && matches!(name.as_str(), "cacheControl" | "contentType" | "metadata" | "contentEncoding");
        if !is_text {
            let mime = content_type
                .or_else(|| {
                    // The part's own header, verbatim: a malformed type must be
                    // refused, not silently replaced.
                    field.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned)
                })
                .unwrap_or_else(|| "application/octet-stream".to_owned());
            // The field stream keeps the form (and so the request body) alive.
            let bytes = futures::stream::unfold((form, field), |(form, mut field)| async move {
                match field.chunk().await {
                    Ok(Some(chunk)) => Some((Ok(chunk), (form, field))),
                    Ok(None) => None,
                    Err(e) => Some((Err(e.to_string()), (form, field))),
                }
            })
            .boxed();
            return Ok(Incoming {
                bytes,
                mime,
                cache_control: cache_control.unwrap_or_else(|| "no-cache".to_owned()),
                user_metadata,
                declared: None,
            });
        }
        let value = field.text().await.map_err(bad)?;
        match name.as_str() {
            // supabase-js sends seconds ("3600"); Storage stores `max-age=3600`.
            "cacheControl"
                if value.trim().chars().all(|c| c.is_ascii_digit()) && !value.trim().is_empty() =>
            {
                cache_control = Some(format!("max-age={}", value.trim()));
            }
            "cacheControl" => cache_control = Some(value),
            "contentType" => content_type = Some(value),
            "metadata" => {
                user_metadata = Some(
                    serde_json::from_str(&value)
                        .map_err(|_| StorageError::invalid_request("metadata is not valid JSON"))?,
                );
            }
            _ => {}
        }
    }
}

/// The MIME type's essence (`text/plain` of `text/plain;charset=UTF-8`) must
/// be `type/subtype`, and in the bucket's allowlist when it has one.
pub(crate) fn check_mime(mime: &str, allowed: Option<&[String]>) -> Result<(), StorageError> {
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let well_formed = essence
        .split_once('/')
        .is_some_and(|(kind, sub)| !kind.is_empty() && !sub.is_empty() && !sub.contains('/'));
    if !well_formed {
        return Err(StorageError::invalid_mime_type(mime));
    }
    let Some(allowed) = allowed.filter(|list| !list.is_empty()) else {
        return Ok(());
    };
    let kind = essence.split('/').next().unwrap_or("");
    let ok = allowed.iter().any(|entry| {
        let entry = entry.trim().to_ascii_lowercase();
        entry == essence || entry.strip_suffix("/*").is_some_and(|k| k == kind)
    });
    if ok { Ok(()) } else { Err(StorageError::invalid_mime_type(mime)) }
}

/// Storage's `metadata` column.
fn metadata(incoming: &Incoming<'_>, size: u64, etag: &str) -> Value {
    object_metadata(&incoming.mime, &incoming.cache_control, size, etag)
}

/// Storage's `metadata` column of an object of `size` bytes.
pub(crate) fn object_metadata(mime: &str, cache_control: &str, size: u64, etag: &str) -> Value {
    json!({
        "eTag": etag,
        "size": size,
        "mimetype": mime,
        "cacheControl": cache_control,
        "lastModified": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "contentLength": size,
        "httpStatusCode": 200,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_match_exactly_or_by_type() {
        let png = vec!["image/png".to_owned()];
        let images = vec!["image/*".to_owned()];
        let cases: [(&str, Option<&[String]>, bool); 10] = [
            ("image/png", None, true),
            ("text/plain;charset=UTF-8", None, true),
            ("foo", None, false),
            ("image/", None, false),
            ("image/png", Some(&png), true),
            ("IMAGE/PNG", Some(&png), true),
            ("image/jpeg", Some(&png), false),
            ("image/jpeg", Some(&images), true),
            ("text/plain", Some(&images), false),
            ("foo", Some(&images), false),
        ];
        for (mime, allowed, ok) in cases {
            assert_eq!(check_mime(mime, allowed).is_ok(), ok, "{mime} in {allowed:?}");
        }
    }
}
