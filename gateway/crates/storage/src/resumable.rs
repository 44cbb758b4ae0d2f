//! Resumable uploads: TUS 1.0 at `/upload/resumable` (supabase/storage
//! `src/http/routes/tus/index.ts` and `lifecycle.ts`, which run tus-node-server;
//! the protocol is <https://tus.io/protocols/resumable-upload>).
//!
//! `POST /upload/resumable` creates an upload from `Upload-Length` (or
//! `Upload-Defer-Length: 1`) and `Upload-Metadata` (`bucketName`,
//! `objectName`, `contentType`, `cacheControl`, `metadata`), and answers 201
//! with its `Location`: `/upload/resumable/<id>`, the id being
//! `base64url("<bucket>/<key>/<version>")` as Storage makes it. `PATCH` adds
//! bytes at `Upload-Offset` (409 when it is not where the upload stands),
//! `HEAD` tells the offset, `DELETE` ends an unfinished upload, `OPTIONS`
//! names the protocol and its extensions. `/upload/resumable/sign` does the
//! same with the token of a signed upload URL in `x-signature` instead of a
//! caller. Errors are Storage's, sent as their message in plain text with
//! their real status, as tus-node-server writes them.
//!
//! The recipe of every request that writes: the caller's permission is tried
//! first, as a normal upload's (the insert, or upsert, of the object's row as
//! the caller, rolled back: `objects::write_row_and_end`), before any byte is
//! read; then the upload's lease is taken (a lock row, below); the bytes go to
//! the store; the progress is saved; when the last byte is in, the bytes are
//! put in place and one transaction writes the object's row, exactly as an
//! upload would (its ETag is the MD5 of the bytes), and marks the upload
//! finished. The bucket's size limit and MIME types are checked at creation.
//!
//! **State** lives in `_gateway.resumable_uploads`
//! (`sql/022_storage_resumable_uploads.sql`), so any gateway on the database
//! continues an upload, also after a restart. The MD5 of the bytes so far is
//! kept there as its running state, so finishing never reads the bytes back.
//!
//! **Bytes** live where the object will: on local disk in one file,
//! `<bucket>/<key>/<version>#0`, appended to and renamed to
//! `<bucket>/<key>/<version>` at the end; on S3 in a multipart upload of parts
//! of `--storage-resumable-part-size`, and the bytes short of a whole part in
//! a blob `<bucket>/<key>/<version>#<offset>` until the next request. A
//! request that stops midway (the client went away, the body stopped coming)
//! keeps what it received: progress is saved every couple of seconds and when
//! the request ends.
//!
//! **Concurrency.** A request holds the upload's lease (`lock_token`,
//! `lock_expires`) while it works and renews it as it goes; another request
//! for the same upload asks it to stop (`release_requested`) and waits up to
//! five seconds, as tus-node-server's `PgLocker` does, so that a client
//! resuming after a dropped connection is not locked out by its own stale
//! request, and two requests never write one upload at once. A gateway that
//! dies frees its leases when they expire, 15 s after their last renewal.
//!
//! **Expiry.** An upload may take `--storage-resumable-expiry` from its
//! creation; then it answers 410, and the storage sweep (`storage::sweep`)
//! removes it and its bytes. While an upload lives, the sweep keeps its bytes.

use std::sync::Arc;
use std::time::Duration;

use axum::{
    Router,
    extract::{DefaultBodyLimit, OriginalUri, Path, Request, State},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    middleware,
    response::{IntoResponse, Response},
    routing::{MethodRouter, post},
};
use base64::Engine;
use bytes::{Bytes, BytesMut};
use chrono::{DateTime, Utc};
use futures::{Stream, StreamExt};
use md5::digest::common::hazmat::{SerializableState, SerializedState};
use md5::{Digest, Md5};
use object_store::{
    ObjectStore, ObjectStoreExt, multipart::MultipartStore, multipart::PartId, path::Path as StorePath,
};
use serde_json::Value;
use tokio::io::{AsyncSeekExt, AsyncWriteExt};
use tokio_postgres::Row;
use uuid::Uuid;

use super::backend::{Backend, store_error};
use super::error::StorageError;
use super::hold;
use super::keys;
use super::objects::{self, Mode, NewObject};
use super::upload::{check_mime, object_metadata, upsert_header};
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::{Access, Db};
use gateway_core::error::{ApiError, shaped};

const TUS_VERSION: &str = "1.0.0";
const EXTENSIONS: &str = "creation,creation-with-upload,creation-defer-length,termination,expiration";
/// The content type of a `PATCH` body (and of a creation that carries bytes).
const OFFSET_STREAM: &str = "application/offset+octet-stream";
/// A lease not renewed for this long is free again: how long the uploads of
/// a gateway that died stay locked (Storage's S3 locker uses 15 s too).
const LEASE_SECONDS: f64 = 15.0;
/// How often a request writing an upload saves its progress, renews its
/// lease and looks whether another request asked for the upload.
const CHECKPOINT: Duration = Duration::from_secs(2);
/// How long a request waits for another's lease (tus-node-server's
/// `PgLocker` waits five seconds too) before Storage's `LockTimeout`.
const LOCK_WAIT: Duration = Duration::from_secs(5);
const LOCK_POLL: Duration = Duration::from_millis(100);

/// The routes, nested under `/storage/v1` with the other storage routes.
pub fn router(state: &StorageState) -> Router<StorageState> {
    // Bodies stream to the store, paced like uploads', and a refused one is
    // still read so that the client sees the answer (`storage::drain`).
    let paced = middleware::from_fn_with_state(state.limits, gateway_core::body::pace);
    let drain = middleware::from_fn_with_state(state.clone(), super::drain::unread_body_on_refusal);
    let with_body = |route: MethodRouter<StorageState>| {
        route.layer(DefaultBodyLimit::disable()).layer(paced.clone()).layer(drain.clone())
    };
    Router::new()
        .route("/upload/resumable", with_body(post(create)).options(options))
        .route("/upload/resumable/sign", with_body(post(create_signed)).options(options))
        .route(
            "/upload/resumable/{id}",
            with_body(axum::routing::patch(append)).head(head).delete(terminate).options(options),
        )
        .route(
            "/upload/resumable/sign/{id}",
            with_body(axum::routing::patch(append_signed))
                .head(head_signed)
                .delete(terminate_signed)
                .options(options),
        )
        .layer(shaped::<crate::error::StorageText>())
}

// ---------------------------------------------------------------------------
// Errors: tus-node-server's texts (`@tus/utils` `ERRORS`) and Storage's.

fn tus_error(status: &'static str, message: &str) -> ApiError {
    StorageError { status_code: status, code: "TusError", error: "Tus Error", message: message.to_owned() }
        .into()
}

fn file_not_found() -> ApiError {
    tus_error("404", "The file for this url was not found\n")
}

fn gone() -> ApiError {
    tus_error("410", "The file for this url no longer exists\n")
}

fn invalid_header(name: &str) -> ApiError {
    tus_error("400", &format!("Invalid {name}\n"))
}

fn invalid_length() -> ApiError {
    tus_error("400", "Upload-Length or Upload-Defer-Length header required\n")
}

fn max_size_exceeded() -> ApiError {
    tus_error("413", "Maximum size exceeded\n")
}

fn size_exceeded() -> ApiError {
    tus_error("413", "upload's size exceeded\n")
}

fn invalid_upload_id() -> ApiError {
    StorageError {
        status_code: "400",
        code: "InvalidUploadId",
        error: "Invalid Input",
        message: "Invalid upload id".to_owned(),
    }
    .into()
}

fn invalid_signature(message: &str) -> ApiError {
    StorageError {
        status_code: "400",
        code: "InvalidSignature",
        error: "Invalid Signature",
        message: message.to_owned(),
    }
    .into()
}

fn lock_timeout() -> ApiError {
    StorageError {
        status_code: "503",
        code: "LockTimeout",
        error: "acquiring_lock_timeout",
        message: "acquiring lock timeout".to_owned(),
    }
    .into()
}

// ---------------------------------------------------------------------------
// Protocol pieces.

/// Every request but OPTIONS names the protocol version (412 otherwise, with
/// the versions the server speaks).
fn check_version(headers: &HeaderMap) -> Result<(), ApiError> {
    match headers.get("tus-resumable").map(HeaderValue::as_bytes) {
        None => Err(tus_error("412", "Tus-Resumable Required\n")),
        Some(v) if v == TUS_VERSION.as_bytes() => Ok(()),
        Some(_) => Err(invalid_header("tus-resumable")),
    }
}

/// A TUS number header: a non-negative integer written plainly.
fn number(headers: &HeaderMap, name: &str) -> Result<Option<u64>, ApiError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| invalid_header(name))?;
    if text.is_empty()
        || !text.bytes().all(|b| b.is_ascii_digit())
        || (text.len() > 1 && text.starts_with('0'))
    {
        return Err(invalid_header(name));
    }
    text.parse().map(Some).map_err(|_| invalid_header(name))
}

/// `Upload-Metadata`: comma-separated `key` or `key base64value` pairs, keys
/// unique, ASCII, without spaces or commas (tus-node-server's `Metadata.parse`).
pub fn parse_metadata(header: &str) -> Option<Vec<(String, Option<String>)>> {
    if header.trim().is_empty() {
        return None;
    }
    let mut pairs: Vec<(String, Option<String>)> = Vec::new();
    for pair in header.split(',') {
        let tokens: Vec<&str> = pair.split(' ').collect();
        let key = tokens[0];
        let key_ok = !key.is_empty() && key.bytes().all(|b| b.is_ascii() && b != b' ' && b != b',');
        if !key_ok || pairs.iter().any(|(k, _)| k == key) {
            return None;
        }
        let value = match tokens.as_slice() {
            // `key ` (an empty value) is a key alone, as in tus-node-server.
            [_] | [_, ""] => None,
            [_, value] => {
                let well_formed = value.len() % 4 == 0
                    && value
                        .trim_end_matches('=')
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
                    && value.len() - value.trim_end_matches('=').len() <= 2;
                if !well_formed {
                    return None;
                }
                let bytes = base64::engine::general_purpose::STANDARD.decode(value).ok()?;
                Some(String::from_utf8_lossy(&bytes).into_owned())
            }
            _ => return None,
        };
        pairs.push((key.to_owned(), value));
    }
    Some(pairs)
}

fn meta<'a>(pairs: &'a [(String, Option<String>)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
}

/// The id in an upload's URL: `base64url("<bucket>/<key>/<version>")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadId {
    pub bucket: String,
    pub key: String,
    pub version: Uuid,
}

impl UploadId {
    pub fn encode(&self) -> String {
        let text = format!("{}/{}/{}", self.bucket, self.key, self.version);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
    }

    pub fn decode(id: &str) -> Result<Self, ApiError> {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(id.trim_end_matches('='))
            .map_err(|_| invalid_upload_id())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid_upload_id())?;
        let (bucket, rest) = text.split_once('/').ok_or_else(invalid_upload_id)?;
        let (key, version) = rest.rsplit_once('/').ok_or_else(invalid_upload_id)?;
        keys::parse_bucket(bucket)?;
        keys::parse_key(key)?;
        let version = Uuid::try_parse(version).map_err(|_| invalid_upload_id())?;
        Ok(Self { bucket: bucket.to_owned(), key: key.to_owned(), version })
    }
}

/// Who writes: a caller, whom row-level security judges, or the holder of a
/// signed upload URL's token, judged when the URL was signed.
enum Who {
    Caller(Caller),
    Signed { owner: Option<String>, upsert: bool },
}

impl Who {
    fn owner(&self) -> Option<String> {
        match self {
            Who::Caller(caller) => caller.claims.sub().map(str::to_owned),
            Who::Signed { owner, .. } => owner.clone(),
        }
    }

    /// The signed route's token, checked for `<bucket>/<key>` (Storage's
    /// `verifyObjectSignature` with the upload scope).
    fn signed(state: &StorageState, headers: &HeaderMap, bucket: &str, key: &str) -> Result<Self, ApiError> {
        let token = headers
            .get("x-signature")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| invalid_signature("Missing x-signature header"))?;
        let claims = super::signed::verify(state, Some(token), "upload", &format!("{bucket}/{key}"))?;
        Ok(Who::Signed {
            owner: claims.get("owner").and_then(Value::as_str).map(str::to_owned),
            upsert: claims.get("upsert").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

// ---------------------------------------------------------------------------
// The upload's row.

#[derive(Debug, Clone)]
struct Upload {
    id: Uuid,
    bucket: String,
    name: String,
    length: Option<u64>,
    offset: u64,
    metadata_header: Option<String>,
    mime: String,
    cache_control: String,
    user_metadata: Option<Value>,
    upsert: bool,
    md5_state: Option<Vec<u8>>,
    multipart_id: Option<String>,
    part_size: u64,
    parts: Vec<String>,
    assembled: bool,
    finished: bool,
    expires_at: DateTime<Utc>,
    expired: bool,
}

const COLUMNS: &str = "id, bucket_id, name, upload_length, upload_offset, upload_metadata, mimetype, \
     cache_control, user_metadata, upsert, md5_state, multipart_id, part_size, parts, assembled, finished, \
     expires_at, expires_at < now()";

fn upload_of(row: &Row) -> Upload {
    Upload {
        id: row.get(0),
        bucket: row.get(1),
        name: row.get(2),
        length: row.get::<_, Option<i64>>(3).map(|n| n as u64),
        offset: row.get::<_, i64>(4) as u64,
        metadata_header: row.get(5),
        mime: row.get(6),
        cache_control: row.get(7),
        user_metadata: row.get(8),
        upsert: row.get(9),
        md5_state: row.get(10),
        multipart_id: row.get(11),
        part_size: row.get::<_, i64>(12) as u64,
        parts: row.get(13),
        assembled: row.get(14),
        finished: row.get(15),
        expires_at: row.get(16),
        expired: row.get(17),
    }
}

impl Upload {
    fn path(&self) -> Result<StorePath, ApiError> {
        Ok(keys::version_path(&self.bucket, &self.name, &self.id.to_string())?)
    }

    /// On S3: the blob holding the bytes short of a whole part, when the
    /// upload stands at `offset`.
    fn tail(&self, offset: u64) -> Result<StorePath, ApiError> {
        StorePath::parse(format!("{}/{}/{}#{offset}", self.bucket, self.name, self.id))
            .map_err(|_| StorageError::invalid_key(&self.name).into())
    }

    /// Bytes stored in whole parts (S3).
    fn in_parts(&self, parts: usize) -> u64 {
        parts as u64 * self.part_size
    }

    fn complete(&self) -> bool {
        self.length == Some(self.offset)
    }

    fn md5(&self) -> Result<Md5, ApiError> {
        let Some(saved) = &self.md5_state else {
            return Ok(Md5::new());
        };
        let state = SerializedState::<Md5>::try_from(saved.as_slice())
            .map_err(|_| ApiError::internal("a resumable upload's MD5 state has the wrong size"))?;
        Md5::deserialize(&state).map_err(|_| ApiError::internal("a resumable upload's MD5 state is invalid"))
    }
}

async fn load(db: &Db, id: Uuid) -> Result<Option<Upload>, ApiError> {
    let session = db.as_service_role(Access::ReadOnly).await?;
    let sql = format!("select {COLUMNS} from _gateway.resumable_uploads where id = $1");
    let rows = session.query_and_end(&sql, &[&id], true).await?;
    Ok(rows.first().map(upload_of))
}

/// The upload named by `id`, if it exists and lives in that bucket under that key.
async fn find(db: &Db, id: &UploadId) -> Result<Upload, ApiError> {
    let upload = load(db, id.version).await?.ok_or_else(file_not_found)?;
    if upload.bucket != id.bucket || upload.name != id.key {
        return Err(file_not_found());
    }
    Ok(upload)
}

/// The right to write one upload, held by one request (see the module doc).
/// Dropped while held, it is given back by a task of its own.
struct Lease {
    db: Db,
    id: Uuid,
    token: Uuid,
    held: bool,
}

impl Lease {
    /// Takes the upload's lease, asking its holder to give it up and waiting
    /// for that up to [`LOCK_WAIT`].
    async fn take(db: &Db, id: &UploadId) -> Result<(Lease, Upload), ApiError> {
        let token = Uuid::new_v4();
        let deadline = tokio::time::Instant::now() + LOCK_WAIT;
        let take = format!(
            "update _gateway.resumable_uploads set lock_token = $2, \
               lock_expires = now() + make_interval(secs => $3), release_requested = false \
             where id = $1 and (lock_token is null or lock_expires < now()) returning {COLUMNS}"
        );
        loop {
            let session = db.as_service_role(Access::ReadWrite).await?;
            let rows = session.query_and_end(&take, &[&id.version, &token, &LEASE_SECONDS], true).await?;
            if let Some(row) = rows.first() {
                let lease = Lease { db: db.clone(), id: id.version, token, held: true };
                let upload = upload_of(row);
                if upload.bucket != id.bucket || upload.name != id.key {
                    lease.release().await;
                    return Err(file_not_found());
                }
                return Ok((lease, upload));
            }
            let session = db.as_service_role(Access::ReadWrite).await?;
            let asked = session
                .query_and_end(
                    "update _gateway.resumable_uploads set release_requested = true where id = $1 returning id",
                    &[&id.version],
                    true,
                )
                .await?;
            if asked.is_empty() {
                return Err(file_not_found());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(lock_timeout());
            }
            tokio::time::sleep(LOCK_POLL).await;
        }
    }

    /// Saves the progress (the bytes stored up to `offset`) and renews the
    /// lease; true when another request asked for the upload.
    async fn save(&self, offset: u64, progress: &Progress) -> Result<bool, ApiError> {
        let session = self.db.as_service_role(Access::ReadWrite).await?;
        let state = progress.md5.serialize().to_vec();
        let rows = session
            .query_and_end(
                "update _gateway.resumable_uploads set upload_offset = $3, md5_state = $4, parts = $5, \
                   upload_length = $6, lock_expires = now() + make_interval(secs => $7) \
                 where id = $1 and lock_token = $2 returning release_requested",
                &[
                    &self.id,
                    &self.token,
                    &(offset as i64),
                    &state,
                    &progress.parts,
                    &progress.length.map(|n| n as i64),
                    &LEASE_SECONDS,
                ],
                true,
            )
            .await?;
        lost_unless(rows.first())
    }

    /// Renews the lease; true when another request asked for the upload.
    async fn renew(&self) -> Result<bool, ApiError> {
        let session = self.db.as_service_role(Access::ReadWrite).await?;
        let rows = session
            .query_and_end(
                "update _gateway.resumable_uploads set lock_expires = now() + make_interval(secs => $3) \
                 where id = $1 and lock_token = $2 returning release_requested",
                &[&self.id, &self.token, &LEASE_SECONDS],
                true,
            )
            .await?;
        lost_unless(rows.first())
    }

    async fn mark_assembled(&self) -> Result<(), ApiError> {
        let session = self.db.as_service_role(Access::ReadWrite).await?;
        let rows = session
            .query_and_end(
                "update _gateway.resumable_uploads set assembled = true \
                 where id = $1 and lock_token = $2 returning release_requested",
                &[&self.id, &self.token],
                true,
            )
            .await?;
        lost_unless(rows.first()).map(|_| ())
    }

    /// Removes the upload's row (its bytes are gone or belong to its object).
    async fn delete(mut self) -> Result<(), ApiError> {
        let session = self.db.as_service_role(Access::ReadWrite).await?;
        session
            .query_and_end(
                "delete from _gateway.resumable_uploads where id = $1 and lock_token = $2",
                &[&self.id, &self.token],
                true,
            )
            .await?;
        self.held = false;
        Ok(())
    }

    async fn release(mut self) {
        self.held = false;
        give_back(&self.db, self.id, self.token).await;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.held {
            let (db, id, token) = (self.db.clone(), self.id, self.token);
            tokio::spawn(async move { give_back(&db, id, token).await });
        }
    }
}

async fn give_back(db: &Db, id: Uuid, token: Uuid) {
    let released = async {
        let session = db.as_service_role(Access::ReadWrite).await?;
        session
            .query_and_end(
                "update _gateway.resumable_uploads set lock_token = null, lock_expires = null \
                 where id = $1 and lock_token = $2",
                &[&id, &token],
                true,
            )
            .await
    };
    if let Err(e) = released.await {
        // It expires by itself.
        tracing::warn!(error = %e, upload = %id, "could not release a resumable upload's lease");
    }
}

fn lost_unless(row: Option<&Row>) -> Result<bool, ApiError> {
    match row {
        Some(row) => Ok(row.get(0)),
        // The lease ran out and another request took the upload, or it was
        // terminated: nothing this request wrote may count.
        None => Err(ApiError::internal("a resumable upload's lease was lost")),
    }
}

// ---------------------------------------------------------------------------
// Bytes.

/// What a request has of the upload while it writes.
struct Progress {
    /// Bytes received so far, counting those not stored yet.
    offset: u64,
    length: Option<u64>,
    /// MD5 of the bytes stored: on local disk all of them; on S3 those in
    /// whole parts, and all of them once the upload is complete.
    md5: Md5,
    parts: Vec<String>,
}

/// Where a request's bytes go.
enum Sink {
    Local(tokio::fs::File),
    S3 {
        multipart: Arc<dyn MultipartStore>,
        store: Arc<dyn ObjectStore>,
        path: StorePath,
        multipart_id: String,
        part_size: usize,
        /// Bytes short of a whole part.
        buffer: BytesMut,
        /// The blob of the bytes short of a whole part the request started
        /// from, removed once superseded.
        old_tail: Option<StorePath>,
    },
}

/// The local file an upload appends to: its version's file, suffixed `#0`.
fn local_part(store: &Backend, upload: &Upload) -> Option<Result<std::path::PathBuf, ApiError>> {
    let path = match upload.path() {
        Ok(path) => path,
        Err(e) => return Some(Err(e)),
    };
    store.local_file(&path).map(|file| file.map(|file| file.with_file_name(format!("{}#0", upload.id))))
}

/// Makes room for a new upload's bytes: an empty local file, or an S3
/// multipart upload (its id is returned).
async fn begin(store: &Backend, upload: &Upload) -> Result<Option<String>, ApiError> {
    if let Some(part) = local_part(store, upload) {
        let part = part?;
        if let Some(folder) = part.parent() {
            tokio::fs::create_dir_all(folder).await.map_err(io_error)?;
        }
        tokio::fs::File::create(&part).await.map_err(io_error)?;
        return Ok(None);
    }
    let multipart = store.multipart().ok_or_else(|| ApiError::internal("the store has no multipart API"))?;
    let id = multipart.create_multipart(&upload.path()?).await.map_err(store_error)?;
    Ok(Some(id))
}

/// A local file's failure as an answer: a part of the key longer than the
/// file system takes is the key's fault, as for uploads (`backend::store_error`).
fn io_error(error: std::io::Error) -> ApiError {
    if error.kind() == std::io::ErrorKind::InvalidFilename {
        return StorageError::invalid_key_reason("a part of the key is longer than the store allows").into();
    }
    ApiError::internal(error)
}

impl Sink {
    /// Opens the upload's bytes where the row says they stand: a local file
    /// cut back to the saved offset (a request that died may have written
    /// past it), or on S3 the bytes short of a whole part read back.
    async fn open(store: &Backend, upload: &Upload) -> Result<Self, ApiError> {
        if let Some(part) = local_part(store, upload) {
            let part = part?;
            let mut file = match tokio::fs::OpenOptions::new().write(true).open(&part).await {
                Ok(file) => file,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(gone()),
                Err(e) => return Err(ApiError::internal(e)),
            };
            let on_disk = file.metadata().await.map_err(ApiError::internal)?.len();
            if on_disk < upload.offset {
                return Err(gone());
            }
            file.set_len(upload.offset).await.map_err(ApiError::internal)?;
            file.seek(std::io::SeekFrom::Start(upload.offset)).await.map_err(ApiError::internal)?;
            return Ok(Sink::Local(file));
        }
        let multipart =
            store.multipart().ok_or_else(|| ApiError::internal("the store has no multipart API"))?;
        let multipart_id =
            upload.multipart_id.clone().ok_or_else(|| ApiError::internal("an S3 upload without its id"))?;
        let in_tail = upload.offset - upload.in_parts(upload.parts.len());
        let mut buffer = BytesMut::new();
        let mut old_tail = None;
        if in_tail > 0 {
            let tail = upload.tail(upload.offset)?;
            let bytes = match store.store.get(&tail).await {
                Ok(got) => got.bytes().await.map_err(store_error)?,
                Err(object_store::Error::NotFound { .. }) => return Err(gone()),
                Err(e) => return Err(store_error(e)),
            };
            if bytes.len() as u64 != in_tail {
                return Err(ApiError::internal("a resumable upload's tail has the wrong size"));
            }
            buffer.extend_from_slice(&bytes);
            old_tail = Some(tail);
        }
        Ok(Sink::S3 {
            multipart: multipart.clone(),
            store: store.store.clone(),
            path: upload.path()?,
            multipart_id,
            part_size: upload.part_size as usize,
            buffer,
            old_tail,
        })
    }

    async fn write(&mut self, chunk: Bytes, progress: &mut Progress, lease: &Lease) -> Result<(), ApiError> {
        progress.offset += chunk.len() as u64;
        match self {
            Sink::Local(file) => {
                file.write_all(&chunk).await.map_err(ApiError::internal)?;
                progress.md5.update(&chunk);
            }
            Sink::S3 { buffer, .. } => {
                buffer.extend_from_slice(&chunk);
                while self.whole_part_buffered() {
                    self.flush_part(progress, lease).await?;
                }
            }
        }
        Ok(())
    }

    fn whole_part_buffered(&self) -> bool {
        matches!(self, Sink::S3 { buffer, part_size, .. } if buffer.len() >= *part_size)
    }

    /// S3: stores the first whole part of the buffer, and saves the progress
    /// as the bytes in whole parts.
    async fn flush_part(&mut self, progress: &mut Progress, lease: &Lease) -> Result<(), ApiError> {
        let Sink::S3 { multipart, store, path, multipart_id, part_size, buffer, old_tail } = self else {
            return Ok(());
        };
        let size = (*part_size).min(buffer.len());
        let part = buffer.split_to(size).freeze();
        progress.md5.update(&part);
        let id = multipart
            .put_part(path, multipart_id, progress.parts.len(), part.into())
            .await
            .map_err(store_error)?;
        progress.parts.push(id.content_id);
        // What the parts hold: everything received but the buffer.
        lease.save(progress.offset - buffer.len() as u64, progress).await?;
        if let Some(tail) = old_tail.take() {
            remove(store.as_ref(), &tail).await;
        }
        Ok(())
    }

    /// Every [`CHECKPOINT`]: saves what local disk holds (S3 saves at each
    /// part) and renews the lease; true when another request asked for it.
    async fn checkpoint(&mut self, progress: &Progress, lease: &Lease) -> Result<bool, ApiError> {
        match self {
            Sink::Local(file) => {
                file.flush().await.map_err(ApiError::internal)?;
                lease.save(progress.offset, progress).await
            }
            Sink::S3 { .. } => lease.renew().await,
        }
    }

    /// Stores what the request received and saves the progress.
    async fn close(
        mut self,
        upload: &Upload,
        progress: &mut Progress,
        lease: &Lease,
    ) -> Result<(), ApiError> {
        let complete = progress.length == Some(progress.offset);
        if let Sink::Local(file) = &mut self {
            file.flush().await.map_err(ApiError::internal)?;
            lease.save(progress.offset, progress).await?;
            return Ok(());
        }
        if complete && !progress.parts.is_empty() && !self.buffered().is_empty() {
            // The last part may be short.
            self.flush_part(progress, lease).await?;
        }
        let Sink::S3 { store, buffer, old_tail, .. } = self else { unreachable!() };
        let mut new_tail = None;
        if !buffer.is_empty() {
            if complete {
                // A whole upload smaller than a part: it stays in its tail
                // blob, copied into place when assembled.
                progress.md5.update(&buffer);
            }
            let tail = upload.tail(progress.offset)?;
            store.put(&tail, buffer.freeze().into()).await.map_err(store_error)?;
            new_tail = Some(tail);
        }
        lease.save(progress.offset, progress).await?;
        if let Some(old) = old_tail.filter(|old| Some(old) != new_tail.as_ref()) {
            remove(store.as_ref(), &old).await;
        }
        Ok(())
    }

    fn buffered(&self) -> &[u8] {
        match self {
            Sink::S3 { buffer, .. } => buffer,
            Sink::Local(_) => &[],
        }
    }
}

async fn remove(store: &dyn ObjectStore, path: &StorePath) {
    match store.delete(path).await {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
        Err(e) => tracing::warn!(error = %e, %path, "could not remove a resumable upload's blob"),
    }
}

/// Why a request stopped reading its body.
enum Stop {
    End,
    TooLarge,
    /// Another request asked for the upload.
    Released,
    Body(String),
}

/// Streams `body` into the upload from where it stands, at most `room`
/// bytes; saves what arrived whatever happens to the body.
async fn receive<S>(
    store: &Backend,
    upload: &Upload,
    progress: &mut Progress,
    lease: &Lease,
    body: S,
    room: u64,
) -> Result<(), ApiError>
where
    S: Stream<Item = Result<Bytes, axum::Error>>,
{
    let mut sink = Sink::open(store, upload).await?;
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + CHECKPOINT, CHECKPOINT);
    let mut body = std::pin::pin!(body);
    let mut received = 0u64;
    let stop = loop {
        tokio::select! {
            chunk = body.next() => match chunk {
                None => break Stop::End,
                Some(Err(e)) => break Stop::Body(e.to_string()),
                Some(Ok(mut chunk)) => {
                    let over = chunk.len() as u64 > room - received;
                    if over {
                        chunk.truncate((room - received) as usize);
                    }
                    received += chunk.len() as u64;
                    sink.write(chunk, progress, lease).await?;
                    if over {
                        break Stop::TooLarge;
                    }
                }
            },
            _ = ticks.tick() => {
                if sink.checkpoint(progress, lease).await? {
                    break Stop::Released;
                }
            }
        }
    };
    sink.close(upload, progress, lease).await?;
    match stop {
        Stop::End => Ok(()),
        Stop::TooLarge => Err(size_exceeded()),
        Stop::Released => Err(tus_error("400", "Request aborted due to lock acquired")),
        Stop::Body(message) => Err(StorageError::invalid_request(message).into()),
    }
}

/// Puts a complete upload's bytes at its version's path.
async fn assemble(
    store: &Backend,
    upload: &Upload,
    progress: &Progress,
    lease: &Lease,
) -> Result<(), ApiError> {
    let path = upload.path()?;
    if let Some(part) = local_part(store, upload) {
        let part = part?;
        let file = store.local_file(&path).ok_or_else(|| ApiError::internal("no local file"))??;
        match tokio::fs::rename(&part, &file).await {
            Ok(()) => {}
            // Renamed by a request that died before it could say so.
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && tokio::fs::metadata(&file).await.is_ok() => {}
            Err(e) => return Err(ApiError::internal(e)),
        }
        return lease.mark_assembled().await;
    }
    let multipart = store.multipart().ok_or_else(|| ApiError::internal("the store has no multipart API"))?;
    let multipart_id = upload.multipart_id.clone().unwrap_or_default();
    if progress.parts.is_empty() {
        if progress.offset > 0 {
            let tail = upload.tail(progress.offset)?;
            if let Err(e) = store.copy(&tail, &path).await {
                // Copied by a request that died before it could say so.
                match store.store.head(&path).await {
                    Ok(meta) if meta.size == progress.offset => {}
                    _ => return Err(e),
                }
            }
            remove(store.store.as_ref(), &tail).await;
        } else {
            store.put(&path, Vec::new()).await?;
        }
        if let Err(e) = multipart.abort_multipart(&path, &multipart_id).await {
            tracing::warn!(error = %e, %path, "could not abort an unused multipart upload");
        }
    } else {
        let parts = progress.parts.iter().map(|id| PartId { content_id: id.clone() }).collect();
        if let Err(e) = multipart.complete_multipart(&path, &multipart_id, parts).await {
            // Completed by a request that died before it could say so.
            match store.store.head(&path).await {
                Ok(meta) if meta.size == progress.offset => {}
                _ => return Err(store_error(e)),
            }
        }
    }
    lease.mark_assembled().await
}

/// Removes an unfinished upload's bytes.
async fn discard(store: &Backend, upload: &Upload) {
    let Ok(path) = upload.path() else { return };
    if let Some(Ok(part)) = local_part(store, upload) {
        if let Err(e) = tokio::fs::remove_file(&part).await
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(error = %e, file = %part.display(), "could not remove a resumable upload's file");
        }
    } else if let (Some(multipart), Some(id)) = (store.multipart(), &upload.multipart_id) {
        if !upload.assembled
            && let Err(e) = multipart.abort_multipart(&path, id).await
        {
            tracing::warn!(error = %e, %path, "could not abort a resumable upload's multipart upload");
        }
        if upload.offset > upload.in_parts(upload.parts.len())
            && let Ok(tail) = upload.tail(upload.offset)
        {
            remove(store.store.as_ref(), &tail).await;
        }
    }
    if upload.assembled && !upload.finished {
        store.remove(&path).await;
    }
}

// ---------------------------------------------------------------------------
// Permission and the object's row.

/// Storage's `Uploader.canUpload`: the object's row is written as the caller
/// and rolled back. Signed URLs were judged when signed.
async fn may_upload(state: &StorageState, who: &Who, upload: &Upload) -> Result<(), ApiError> {
    let Who::Caller(caller) = who else {
        return Ok(());
    };
    let owner = who.owner();
    let version = upload.id.to_string();
    let row = NewObject {
        id: Uuid::new_v4(),
        bucket: &upload.bucket,
        name: &upload.name,
        owner: owner.as_deref(),
        version: &version,
        metadata: object_metadata(&upload.mime, &upload.cache_control, upload.length.unwrap_or(0), ""),
        user_metadata: upload.user_metadata.clone(),
    };
    let dry_run = state.db.session(caller, Access::ReadWrite).await?;
    objects::write_row_and_end(dry_run, &row, mode(upload), false).await.map(|_| ())
}

fn mode(upload: &Upload) -> Mode {
    if upload.upsert { Mode::Upsert } else { Mode::Create }
}

/// Puts a complete upload in place and writes its object's row, in one
/// transaction with the upload's end; then removes the version it replaced.
async fn finish(
    state: &StorageState,
    who: &Who,
    upload: &mut Upload,
    progress: &Progress,
    lease: &Lease,
) -> Result<(), ApiError> {
    if !upload.assembled {
        assemble(&state.store, upload, progress, lease).await?;
        upload.assembled = true;
    }
    let etag = format!("\"{}\"", hex::encode(progress.md5.clone().finalize()));
    let owner = who.owner();
    let version = upload.id.to_string();
    let row = NewObject {
        id: Uuid::new_v4(),
        bucket: &upload.bucket,
        name: &upload.name,
        owner: owner.as_deref(),
        version: &version,
        metadata: object_metadata(&upload.mime, &upload.cache_control, progress.offset, &etag),
        user_metadata: upload.user_metadata.clone(),
    };
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let (_, previous) = objects::write_row(&mut session, &row, mode(upload)).await?;
    let ended = session
        .query(
            "update _gateway.resumable_uploads set finished = true, lock_token = null, lock_expires = null, \
               md5_state = null, parts = '{}' \
             where id = $1 and lock_token = $2 returning id",
            &[&upload.id, &lease.token],
        )
        .await?;
    if ended.is_empty() {
        // Another request holds the upload now: the object is not ours to write.
        let _ = session.rollback().await;
        return lost_unless(None).map(|_| ());
    }
    session.commit().await?;
    upload.finished = true;
    if let Some(previous) = previous.filter(|p| !p.is_empty() && *p != version)
        && let Ok(old) = keys::version_path(&upload.bucket, &upload.name, &previous)
    {
        hold::remove_replaced(&state.db, &state.store, vec![old]).await;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Handlers.

async fn create(
    State(state): State<StorageState>,
    caller: Caller,
    request: Request,
) -> Result<Response, ApiError> {
    create_upload(&state, Some(caller), request).await
}

async fn create_signed(State(state): State<StorageState>, request: Request) -> Result<Response, ApiError> {
    create_upload(&state, None, request).await
}

async fn append(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    append_upload(&state, Some(caller), &id, request).await
}

async fn append_signed(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    append_upload(&state, None, &id, request).await
}

async fn head(
    State(state): State<StorageState>,
    _caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    head_upload(&state, false, &id, &headers).await
}

async fn head_signed(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    head_upload(&state, true, &id, &headers).await
}

async fn terminate(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    terminate_upload(&state, Some(caller), &id, &headers).await
}

async fn terminate_signed(
    State(state): State<StorageState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    terminate_upload(&state, None, &id, &headers).await
}

/// `OPTIONS`: the protocol, its extensions and the largest upload.
async fn options(State(state): State<StorageState>) -> Response {
    answer(
        StatusCode::NO_CONTENT,
        vec![
            ("tus-version", TUS_VERSION.to_owned()),
            ("tus-extension", EXTENSIONS.to_owned()),
            ("tus-max-size", state.config.file_size_limit.to_string()),
            ("access-control-allow-methods", "POST, HEAD, PATCH, OPTIONS, DELETE".to_owned()),
            (
                "access-control-allow-headers",
                "Authorization, Content-Type, Location, Tus-Extension, Tus-Max-Size, Tus-Resumable, \
                 Tus-Version, Upload-Concat, Upload-Defer-Length, Upload-Length, Upload-Metadata, \
                 Upload-Offset, X-HTTP-Method-Override, X-Requested-With, X-Forwarded-Host, \
                 X-Forwarded-Proto, Forwarded, X-Upsert, Upload-Expires, ApiKey, x-signature"
                    .to_owned(),
            ),
            ("access-control-max-age", "86400".to_owned()),
        ],
    )
}

fn answer(status: StatusCode, headers: Vec<(&'static str, String)>) -> Response {
    let mut response = status.into_response();
    let map = response.headers_mut();
    map.insert(HeaderName::from_static("tus-resumable"), HeaderValue::from_static(TUS_VERSION));
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::from_str(&value) {
            map.insert(HeaderName::from_static(name), value);
        }
    }
    response
}

/// RFC 7231's date, as `Upload-Expires` is written.
fn http_date(at: DateTime<Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn body_of(request: Request) -> impl Stream<Item = Result<Bytes, axum::Error>> {
    request.into_body().into_data_stream()
}

/// `POST`: creates an upload, with its first bytes when the body carries them.
async fn create_upload(
    state: &StorageState,
    caller: Option<Caller>,
    request: Request,
) -> Result<Response, ApiError> {
    let headers = request.headers();
    check_version(headers)?;
    if headers.contains_key("upload-concat") {
        return Err(tus_error(
            "501",
            "Concatenation extension is not (yet) supported. Disable parallel uploads in the tus client.\n",
        ));
    }
    let length = number(headers, "upload-length")?;
    let deferred = match headers.get("upload-defer-length") {
        None => false,
        Some(v) if v == "1" => true,
        Some(_) => return Err(invalid_header("upload-defer-length")),
    };
    if length.is_some() == deferred {
        return Err(invalid_length());
    }
    let metadata_header = headers.get("upload-metadata").map(|v| v.to_str().unwrap_or("\u{0}").to_owned());
    let Some(metadata_header) = metadata_header else {
        return Err(StorageError::invalid_request("Metadata header is required").into());
    };
    let pairs = parse_metadata(&metadata_header).ok_or_else(|| invalid_header("upload-metadata"))?;
    let bucket = keys::parse_bucket(meta(&pairs, "bucketName").unwrap_or(""))?.to_owned();
    let key = keys::parse_key(meta(&pairs, "objectName").unwrap_or(""))?.to_owned();
    let who = match caller {
        Some(caller) => Who::Caller(caller),
        None => Who::signed(state, headers, &bucket, &key)?,
    };
    let upsert = match &who {
        Who::Caller(_) => upsert_header(headers),
        Who::Signed { upsert, .. } => *upsert,
    };

    let lookup = state.db.as_service_role(Access::ReadOnly).await?;
    let limits = objects::bucket_limits(lookup, &bucket).await?.ok_or_else(StorageError::no_such_bucket)?;
    let global = state.config.file_size_limit;
    let limit = limits.file_size_limit.map_or(global, |own| own.min(global));
    if let Some(drain) = request.extensions().get::<super::drain::DrainLimit>() {
        drain.set(limit);
    }
    if length.is_some_and(|n| n > limit) {
        return Err(max_size_exceeded());
    }
    let mime = meta(&pairs, "contentType").unwrap_or("application/octet-stream").to_owned();
    check_mime(&mime, limits.allowed_mime_types.as_deref())?;
    // Storage keeps seconds as `max-age=<n>` and anything else as `no-cache`.
    let cache_control = match meta(&pairs, "cacheControl") {
        Some(seconds) if !seconds.is_empty() && seconds.bytes().all(|b| b.is_ascii_digit()) => {
            format!("max-age={seconds}")
        }
        _ => "no-cache".to_owned(),
    };
    // Storage ignores `metadata` that is not JSON.
    let user_metadata = meta(&pairs, "metadata").and_then(|text| serde_json::from_str(text).ok());
    let expires_at = Utc::now()
        + chrono::Duration::from_std(state.config.resumable_expiry.0)
            .map_err(|_| ApiError::internal("the resumable upload expiry is out of range"))?;
    let mut upload = Upload {
        id: Uuid::new_v4(),
        bucket,
        name: key,
        length,
        offset: 0,
        metadata_header: Some(metadata_header),
        mime,
        cache_control,
        user_metadata,
        upsert,
        md5_state: None,
        multipart_id: None,
        part_size: state.config.resumable_part_size,
        parts: Vec::new(),
        assembled: false,
        finished: false,
        expires_at,
        expired: false,
    };
    may_upload(state, &who, &upload).await?;

    upload.multipart_id = begin(&state.store, &upload).await?;
    let token = Uuid::new_v4();
    let session = state.db.as_service_role(Access::ReadWrite).await?;
    let inserted = session
        .query_and_end(
            "insert into _gateway.resumable_uploads (id, bucket_id, name, upload_length, upload_metadata, \
               mimetype, cache_control, user_metadata, upsert, multipart_id, part_size, expires_at, \
               lock_token, lock_expires) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now() + make_interval(secs => $14))",
            &[
                &upload.id,
                &upload.bucket,
                &upload.name,
                &upload.length.map(|n| n as i64),
                &upload.metadata_header,
                &upload.mime,
                &upload.cache_control,
                &upload.user_metadata,
                &upload.upsert,
                &upload.multipart_id,
                &(upload.part_size as i64),
                &upload.expires_at,
                &token,
                &LEASE_SECONDS,
            ],
            true,
        )
        .await;
    if let Err(e) = inserted {
        discard(&state.store, &upload).await;
        return Err(e);
    }
    let lease = Lease { db: state.db.clone(), id: upload.id, token, held: true };

    let id = UploadId { bucket: upload.bucket.clone(), key: upload.name.clone(), version: upload.id };
    let base = request
        .extensions()
        .get::<OriginalUri>()
        .map_or_else(|| request.uri().path().to_owned(), |uri| uri.path().to_owned());
    let location = format!("{}/{}", base.trim_end_matches('/'), id.encode());
    let carries_bytes = request.headers().get(header::CONTENT_TYPE).is_some_and(|v| v == OFFSET_STREAM);
    let declared = number(request.headers(), "content-length").ok().flatten();
    let room = upload.length.unwrap_or(limit);
    if carries_bytes && declared.is_some_and(|n| n > room) {
        lease.release().await;
        return Err(size_exceeded());
    }
    let body = carries_bytes.then(|| body_of(request));
    let upload = locked(state, who, lease, upload, body, room).await?;

    let mut headers = vec![("location", location)];
    if carries_bytes {
        headers.push(("upload-offset", upload.offset.to_string()));
    }
    if upload.finished {
        headers.push(("tus-complete", "1".to_owned()));
    } else {
        headers.push(("upload-expires", http_date(upload.expires_at)));
    }
    Ok(answer(StatusCode::CREATED, headers))
}

/// `PATCH`: appends the body at `Upload-Offset`.
async fn append_upload(
    state: &StorageState,
    caller: Option<Caller>,
    id: &str,
    request: Request,
) -> Result<Response, ApiError> {
    let headers = request.headers();
    check_version(headers)?;
    let id = UploadId::decode(id)?;
    let offset = number(headers, "upload-offset")?
        .ok_or_else(|| tus_error("403", "Upload-Offset header required\n"))?;
    match headers.get(header::CONTENT_TYPE) {
        None => return Err(tus_error("403", "Content-Type header required\n")),
        Some(v) if v != OFFSET_STREAM => return Err(invalid_header("content-type")),
        Some(_) => {}
    }
    let new_length = number(headers, "upload-length")?;
    let declared = number(headers, "content-length")?;
    let who = match caller {
        Some(caller) => Who::Caller(caller),
        None => Who::signed(state, headers, &id.bucket, &id.key)?,
    };
    let stored = find(&state.db, &id).await?;
    if stored.expired {
        return Err(gone());
    }
    // A finished upload's object exists: only the offset is left to check.
    if !stored.finished {
        may_upload(state, &who, &stored).await?;
    }

    let (lease, upload) = Lease::take(&state.db, &id).await?;
    let checked = check_append(state, upload, offset, new_length, declared).await;
    let (upload, room) = match checked {
        Ok(checked) => checked,
        Err(e) => {
            lease.release().await;
            return Err(e);
        }
    };
    let upload = if upload.finished {
        // The last request's answer was lost: the upload is done.
        lease.release().await;
        upload
    } else {
        locked(state, who, lease, upload, Some(body_of(request)), room).await?
    };

    let mut headers = vec![("upload-offset", upload.offset.to_string())];
    if upload.finished {
        headers.push(("tus-complete", "1".to_owned()));
    } else {
        headers.push(("upload-expires", http_date(upload.expires_at)));
    }
    Ok(answer(StatusCode::NO_CONTENT, headers))
}

/// What a PATCH may do with the upload it holds: the upload (its length
/// declared, when the request declares it) and how many bytes it may add.
async fn check_append(
    state: &StorageState,
    mut upload: Upload,
    offset: u64,
    new_length: Option<u64>,
    declared: Option<u64>,
) -> Result<(Upload, u64), ApiError> {
    if upload.expired {
        return Err(gone());
    }
    if upload.offset != offset {
        return Err(tus_error("409", "Upload-Offset conflict\n"));
    }
    if upload.finished {
        return Ok((upload, 0));
    }
    let limit = if upload.length.is_none() {
        let lookup = state.db.as_service_role(Access::ReadOnly).await?;
        let limits =
            objects::bucket_limits(lookup, &upload.bucket).await?.ok_or_else(StorageError::no_such_bucket)?;
        let global = state.config.file_size_limit;
        limits.file_size_limit.map_or(global, |own| own.min(global))
    } else {
        state.config.file_size_limit
    };
    if let Some(length) = new_length {
        // Declaring the length of an upload created with Upload-Defer-Length.
        if upload.length.is_some() || length < upload.offset {
            return Err(invalid_length());
        }
        if length > limit {
            return Err(max_size_exceeded());
        }
        upload.length = Some(length);
    }
    let room = upload.length.unwrap_or(limit) - upload.offset;
    if declared.is_some_and(|n| n > room) {
        return Err(size_exceeded());
    }
    Ok((upload, room))
}

/// The work done under the lease: the body's bytes stored, and the object
/// made when they complete it; the lease is given back at the end. It runs
/// as a task of its own, so that a client that goes away does not cut it
/// short: what arrived is saved either way.
async fn locked<S>(
    state: &StorageState,
    who: Who,
    lease: Lease,
    mut upload: Upload,
    body: Option<S>,
    room: u64,
) -> Result<Upload, ApiError>
where
    S: Stream<Item = Result<Bytes, axum::Error>> + Send + 'static,
{
    let state = state.clone();
    let task = tokio::spawn(async move {
        let work = async {
            let mut progress = Progress {
                offset: upload.offset,
                length: upload.length,
                md5: upload.md5()?,
                parts: upload.parts.clone(),
            };
            // A complete upload (its finish failed, or its gateway died before
            // it) has nothing left to receive: only the finish is retried.
            if let Some(body) = body
                && !upload.complete()
            {
                let before = progress.offset;
                let received = receive(&state.store, &upload, &mut progress, &lease, body, room).await;
                metrics::counter!("gateway_storage_received_bytes_total")
                    .increment(progress.offset.saturating_sub(before));
                received?;
            }
            upload.offset = progress.offset;
            upload.length = progress.length;
            if upload.complete() {
                finish(&state, &who, &mut upload, &progress, &lease).await?;
            }
            Ok(())
        };
        let done: Result<(), ApiError> = work.await;
        lease.release().await;
        done.map(|()| upload)
    });
    task.await.map_err(ApiError::internal)?
}

/// `HEAD`: where the upload stands. It takes the lease like a write, so a
/// stale request still holding it stops and saves what it received first.
async fn head_upload(
    state: &StorageState,
    signed: bool,
    id: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    check_version(headers)?;
    let id = UploadId::decode(id)?;
    if signed {
        Who::signed(state, headers, &id.bucket, &id.key)?;
    }
    let (lease, upload) = Lease::take(&state.db, &id).await?;
    lease.release().await;
    if upload.expired {
        return Err(gone());
    }
    let mut headers =
        vec![("cache-control", "no-store".to_owned()), ("upload-offset", upload.offset.to_string())];
    match upload.length {
        Some(length) => headers.push(("upload-length", length.to_string())),
        None => headers.push(("upload-defer-length", "1".to_owned())),
    }
    if let Some(metadata) = &upload.metadata_header {
        headers.push(("upload-metadata", metadata.clone()));
    }
    if !upload.finished {
        headers.push(("upload-expires", http_date(upload.expires_at)));
    }
    Ok(answer(StatusCode::OK, headers))
}

/// `DELETE`: ends an unfinished upload and removes its bytes.
async fn terminate_upload(
    state: &StorageState,
    caller: Option<Caller>,
    id: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    check_version(headers)?;
    let id = UploadId::decode(id)?;
    let who = match caller {
        Some(caller) => Who::Caller(caller),
        None => Who::signed(state, headers, &id.bucket, &id.key)?,
    };
    let stored = find(&state.db, &id).await?;
    if stored.finished {
        return Err(tus_error("400", "Cannot terminate an already completed upload"));
    }
    may_upload(state, &who, &stored).await?;
    let (lease, upload) = Lease::take(&state.db, &id).await?;
    if upload.finished || upload.complete() {
        lease.release().await;
        return Err(tus_error("400", "Cannot terminate an already completed upload"));
    }
    lease.delete().await?;
    discard(&state.store, &upload).await;
    Ok(answer(StatusCode::NO_CONTENT, Vec::new()))
}

// ---------------------------------------------------------------------------
// Expiry, for the storage sweep.

/// Ends the uploads past their expiry (of one bucket, or all), removing the
/// bytes of unfinished ones; with `dry_run` only counts them. Uploads a
/// request holds are left for the next sweep.
pub async fn expire(db: &Db, store: &Backend, bucket: Option<&str>, dry_run: bool) -> Result<u64, ApiError> {
    const BATCH: i64 = 1000;
    let filter = "expires_at < now() and ($1::text is null or bucket_id = $1) \
                  and (lock_token is null or lock_expires < now())";
    if dry_run {
        let session = db.as_service_role(Access::ReadOnly).await?;
        let sql = format!("select count(*) from _gateway.resumable_uploads where {filter}");
        let rows = session.query_and_end(&sql, &[&bucket], true).await?;
        return Ok(rows.first().map_or(0, |row| row.get::<_, i64>(0) as u64));
    }
    let sql = format!(
        "delete from _gateway.resumable_uploads where id in \
           (select id from _gateway.resumable_uploads where {filter} limit $2) \
         returning {COLUMNS}"
    );
    let mut ended = 0;
    loop {
        let session = db.as_service_role(Access::ReadWrite).await?;
        let rows = session.query_and_end(&sql, &[&bucket, &BATCH], true).await?;
        for row in &rows {
            let upload = upload_of(row);
            if !upload.finished {
                discard(store, &upload).await;
            }
        }
        ended += rows.len() as u64;
        if (rows.len() as i64) < BATCH {
            return Ok(ended);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Pairs = Option<Vec<(&'static str, Option<&'static str>)>>;

    #[test]
    fn upload_metadata_parses_as_tus_node_server_does() {
        let cases: [(&str, Pairs); 9] = [
            ("bucketName YXZhdGFycw==", Some(vec![("bucketName", Some("avatars"))])),
            (
                "bucketName YQ==,objectName Yi5wbmc=,flag",
                Some(vec![("bucketName", Some("a")), ("objectName", Some("b.png")), ("flag", None)]),
            ),
            ("empty ", Some(vec![("empty", None)])),
            ("", None),
            ("a YQ==,a YQ==", None),
            ("a YQ", None),
            ("a Y*==", None),
            ("a b c", None),
            ("caf\u{e9} YQ==", None),
        ];
        for (header, expected) in cases {
            let expected = expected
                .map(|pairs| pairs.into_iter().map(|(k, v)| (k.to_owned(), v.map(str::to_owned))).collect());
            assert_eq!(parse_metadata(header), expected, "{header:?}");
        }
    }

    #[test]
    fn upload_ids_are_storages_base64url_of_bucket_key_and_version() {
        let id = UploadId {
            bucket: "avatars".to_owned(),
            key: "folder/a b (1).png".to_owned(),
            version: Uuid::parse_str("0b7e3d0a-6c1f-4c4e-9a57-2f9d1f0c8e11").expect("uuid"),
        };
        let encoded = id.encode();
        assert!(!encoded.contains(['+', '/', '=']), "{encoded}");
        assert_eq!(UploadId::decode(&encoded).expect("decode"), id);
        let refused = ["", "%%%", "YQ", &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("b/../x/v")];
        for text in refused {
            assert!(UploadId::decode(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn numbers_are_plain_non_negative_integers() {
        let cases = [
            ("0", Some(0)),
            ("42", Some(42)),
            ("-1", None),
            ("+1", None),
            ("01", None),
            ("1.0", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let mut headers = HeaderMap::new();
            headers.insert("upload-offset", HeaderValue::from_str(text).expect("value"));
            assert_eq!(number(&headers, "upload-offset").ok().flatten(), expected, "{text:?}");
        }
    }
}
