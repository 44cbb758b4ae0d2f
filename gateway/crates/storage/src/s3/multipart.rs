//! S3's multipart upload API
//! (<https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html>):
//! `CreateMultipartUpload`, `UploadPart`, `UploadPartCopy`,
//! `CompleteMultipartUpload`, `AbortMultipartUpload`, `ListParts`,
//! `ListMultipartUploads`.
//!
//! An upload is a row of `storage.s3_multipart_uploads` (`sql/023_storage_s3.sql`)
//! and each part a blob of its own. Creating one checks, as the signer, that
//! the object may be written (the REST upload's dry run) and that its MIME
//! type is allowed; completing it streams the parts, in order, through the
//! REST upload ([`crate::upload::upload`]), which checks the permission, the
//! bucket's size limit and MIME types again and writes the object's row and
//! bytes as any upload does; the parts' blobs then go. The object's ETag is
//! the MD5 of its bytes, as every object's here, not S3's `<md5 of md5s>-N`.
//!
//! The rows are the gateway's bookkeeping, read and written as service_role;
//! only the upload's owner (the signer who created it) or service_role may
//! touch it.

use axum::{
    body::Body,
    extract::Request,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use base64::Engine;
use futures::{StreamExt, TryStreamExt};
use object_store::GetOptions;
use serde_json::Value;
use uuid::Uuid;

use super::error::S3Error;
use super::ops::{Call, XMLNS, bucket_exists, user_metadata, xml_response};
use super::xml::{self, escape};
use crate::StorageState;
use crate::backend::WriteError;
use crate::objects::{self, Mode, NewObject};
use crate::upload::{self, Target};
use crate::{hold, keys};
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;
use gateway_core::role::Role;

/// Every part but the last is at least this large, as on S3.
const MIN_PART: i64 = 5 << 20;

struct Upload {
    id: Uuid,
    content_type: String,
    user_metadata: Option<Value>,
}

fn owner(caller: &Caller) -> Option<String> {
    caller.claims.sub().map(str::to_owned)
}

/// The upload `id` of `bucket/key`, if it exists and the signer may touch it.
async fn find(
    state: &StorageState,
    caller: &Caller,
    bucket: &str,
    key: &str,
    id: &str,
) -> Result<Upload, ApiError> {
    let no_such = || S3Error::no_such_upload();
    let id = Uuid::parse_str(id).map_err(|_| no_such())?;
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end(
            "select owner_id, content_type, user_metadata from storage.s3_multipart_uploads \
             where id = $1 and bucket_id = $2 and key = $3",
            &[&id, &bucket, &key],
            true,
        )
        .await?;
    let row = rows.first().ok_or_else(no_such)?;
    let owner_id: Option<String> = row.get(0);
    if caller.role() != Role::ServiceRole && owner_id != owner(caller) {
        return Err(no_such().into());
    }
    Ok(Upload { id, content_type: row.get(1), user_metadata: row.get(2) })
}

/// `CreateMultipartUpload` (`POST /{bucket}/{key}?uploads`).
pub async fn create(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    keys::parse_bucket(bucket)?;
    keys::parse_key(key)?;
    let state = &call.state;
    let caller = &call.verified.caller;
    let lookup = state.db.as_service_role(Access::ReadOnly).await?;
    let limits = objects::bucket_limits(lookup, bucket).await?.ok_or_else(S3Error::no_such_bucket)?;
    let headers = call.request.headers();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    upload::check_mime(&content_type, limits.allowed_mime_types.as_deref())?;
    let metadata = user_metadata(headers)
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    // The REST upload's dry run: may the signer write this object at all?
    let owner_id = owner(caller);
    let version = Uuid::new_v4().to_string();
    let row = NewObject {
        id: Uuid::new_v4(),
        bucket,
        name: key,
        owner: owner_id.as_deref(),
        version: &version,
        metadata: Value::Null,
        user_metadata: None,
    };
    let dry_run = state.db.session(caller, Access::ReadWrite).await?;
    objects::write_row_and_end(dry_run, &row, Mode::Upsert, false).await?;
    let id = Uuid::new_v4();
    let session = state.db.as_service_role(Access::ReadWrite).await?;
    session
        .query_and_end(
            "insert into storage.s3_multipart_uploads (id, bucket_id, key, owner_id, content_type, user_metadata) \
             values ($1, $2, $3, $4, $5, $6)",
            &[&id, &bucket, &key, &owner_id, &content_type, &metadata],
            true,
        )
        .await?;
    Ok(xml_response(
        StatusCode::OK,
        format!(
            "<InitiateMultipartUploadResult xmlns=\"{XMLNS}\"><Bucket>{}</Bucket><Key>{}</Key>\
             <UploadId>{id}</UploadId></InitiateMultipartUploadResult>",
            escape(bucket),
            escape(key)
        ),
    ))
}

fn part_number(call: &Call) -> Result<i32, S3Error> {
    call.query
        .iter()
        .find(|(n, _)| n == "partNumber")
        .and_then(|(_, v)| v.parse::<i32>().ok())
        .filter(|n| (1..=10_000).contains(n))
        .ok_or_else(|| {
            S3Error::invalid_argument("Part number must be an integer between 1 and 10000, inclusive")
        })
}

fn upload_id(call: &Call) -> String {
    call.query.iter().find(|(n, _)| n == "uploadId").map(|(_, v)| v.clone()).unwrap_or_default()
}

/// Records `part`, removing the bytes of a part it replaces.
async fn record_part(
    state: &StorageState,
    bucket: &str,
    key: &str,
    upload: Uuid,
    part: &Part,
) -> Result<(), ApiError> {
    let Part { number, etag, size, blob } = part;
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let old = session
        .query(
            "select blob from storage.s3_multipart_parts where upload_id = $1 and part_number = $2 for update",
            &[&upload, number],
        )
        .await?;
    session
        .query(
            "insert into storage.s3_multipart_parts (upload_id, part_number, etag, size, blob) values ($1, $2, $3, $4, $5) \
             on conflict (upload_id, part_number) do update set etag = excluded.etag, size = excluded.size, \
             blob = excluded.blob, created_at = now()",
            &[&upload, number, etag, size, blob],
        )
        .await?;
    session.commit().await?;
    let replaced: Vec<_> =
        old.iter().filter_map(|row| keys::version_path(bucket, key, &row.get::<_, String>(0)).ok()).collect();
    hold::remove_replaced(&state.db, &state.store, replaced).await;
    Ok(())
}

/// `UploadPart` (`PUT /{bucket}/{key}?partNumber=N&uploadId=U`), and
/// `UploadPartCopy` when `x-amz-copy-source` names an object.
pub async fn upload_part(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let number = part_number(&call)?;
    let upload = find(&call.state, &call.verified.caller, bucket, key, &upload_id(&call)).await?;
    let blob = format!("{}.part{number}.{}", upload.id, Uuid::new_v4());
    let path = keys::version_path(bucket, key, &blob)?;
    let Call { state, verified, request, .. } = call;
    let copy_source =
        request.headers().get("x-amz-copy-source").and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Some(source) = copy_source {
        if request.headers().contains_key("x-amz-copy-source-range") {
            return Err(S3Error::not_implemented("x-amz-copy-source-range").into());
        }
        let (from_bucket, from_key) = super::ops::copy_source(&source)?;
        let session = state.db.session(&verified.caller, Access::ReadOnly).await?;
        let object =
            objects::blob(session, &from_bucket, &from_key).await?.ok_or_else(S3Error::no_such_key)?;
        let from = keys::version_path(&from_bucket, &object.name, &object.version)?;
        state.store.copy(&from, &path).await?;
        let etag = object.etag.clone().unwrap_or_default();
        if let Err(e) = {
            let part = Part { number, etag: etag.clone(), size: object.size as i64, blob };
            record_part(&state, bucket, key, upload.id, &part).await
        } {
            state.store.remove(&path).await;
            return Err(e);
        }
        let modified = object.last_modified.as_deref().unwrap_or("");
        return Ok(xml_response(
            StatusCode::OK,
            format!(
                "<CopyPartResult xmlns=\"{XMLNS}\"><LastModified>{modified}</LastModified><ETag>{}</ETag></CopyPartResult>",
                escape(&etag)
            ),
        ));
    }
    let lookup = state.db.as_service_role(Access::ReadOnly).await?;
    let limits = objects::bucket_limits(lookup, bucket).await?.ok_or_else(S3Error::no_such_bucket)?;
    let limit = limits
        .file_size_limit
        .map_or(state.config.file_size_limit, |own| own.min(state.config.file_size_limit));
    let body = verified.body(request.into_body());
    let written = state.store.write(&path, body, limit).await.map_err(|e| match e {
        WriteError::Body(message) => ApiError::from(crate::error::StorageError::invalid_request(message)),
        other => other.into(),
    })?;
    if let Err(e) = {
        let part = Part { number, etag: written.etag.clone(), size: written.size as i64, blob };
        record_part(&state, bucket, key, upload.id, &part).await
    } {
        state.store.remove(&path).await;
        return Err(e);
    }
    let mut response = StatusCode::OK.into_response();
    if let Ok(etag) = HeaderValue::from_str(&written.etag) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    Ok(response)
}

struct Part {
    number: i32,
    etag: String,
    size: i64,
    blob: String,
}

async fn parts(state: &StorageState, upload: Uuid) -> Result<Vec<Part>, ApiError> {
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end(
            "select part_number, etag, size, blob from storage.s3_multipart_parts where upload_id = $1 order by part_number",
            &[&upload],
            true,
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Part { number: row.get(0), etag: row.get(1), size: row.get(2), blob: row.get(3) })
        .collect())
}

/// Ends the upload's row and removes its parts' bytes.
async fn end(state: &StorageState, bucket: &str, key: &str, upload: Uuid) -> Result<bool, ApiError> {
    let session = state.db.as_service_role(Access::ReadWrite).await?;
    let rows = session
        .query_and_end(
            "with parts as (delete from storage.s3_multipart_parts where upload_id = $1 returning blob), \
             gone as (delete from storage.s3_multipart_uploads where id = $1 returning id) \
             select (select count(*) from gone), blob from parts \
             union all select (select count(*) from gone), null where not exists (select 1 from parts)",
            &[&upload],
            true,
        )
        .await?;
    let existed = rows.first().is_some_and(|row| row.get::<_, i64>(0) > 0);
    let blobs: Vec<_> = rows
        .iter()
        .filter_map(|row| row.get::<_, Option<String>>(1))
        .filter_map(|blob| keys::version_path(bucket, key, &blob).ok())
        .collect();
    hold::remove_replaced(&state.db, &state.store, blobs).await;
    Ok(existed)
}

/// `AbortMultipartUpload` (`DELETE /{bucket}/{key}?uploadId=U`).
pub async fn abort(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let upload = find(&call.state, &call.verified.caller, bucket, key, &upload_id(&call)).await?;
    end(&call.state, bucket, key, upload.id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `ListParts` (`GET /{bucket}/{key}?uploadId=U`).
pub async fn list_parts(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let upload = find(&call.state, &call.verified.caller, bucket, key, &upload_id(&call)).await?;
    let mut body = format!(
        "<ListPartsResult xmlns=\"{XMLNS}\"><Bucket>{}</Bucket><Key>{}</Key><UploadId>{}</UploadId>\
         <MaxParts>10000</MaxParts><IsTruncated>false</IsTruncated>",
        escape(bucket),
        escape(key),
        upload.id
    );
    for part in parts(&call.state, upload.id).await? {
        body.push_str(&format!(
            "<Part><PartNumber>{}</PartNumber><ETag>{}</ETag><Size>{}</Size></Part>",
            part.number,
            escape(&part.etag),
            part.size
        ));
    }
    body.push_str("</ListPartsResult>");
    Ok(xml_response(StatusCode::OK, body))
}

/// `ListMultipartUploads` (`GET /{bucket}?uploads`): the signer's own, or all
/// for service_role.
pub async fn list_uploads(call: Call, bucket: &str) -> Result<Response, ApiError> {
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    let prefix = call.query.iter().find(|(n, _)| n == "prefix").map(|(_, v)| v.clone()).unwrap_or_default();
    let caller = &call.verified.caller;
    let every = caller.role() == Role::ServiceRole;
    let owner_id = owner(caller);
    let session = call.state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end(
            concat!(
                "select id, key, ",
                iso!("created_at"),
                " from storage.s3_multipart_uploads where bucket_id = $1 and starts_with(key, $2) \
                 and ($3 or owner_id is not distinct from $4) order by key collate \"C\", created_at limit 1000"
            ),
            &[&bucket, &prefix, &every, &owner_id],
            true,
        )
        .await?;
    let mut body = format!(
        "<ListMultipartUploadsResult xmlns=\"{XMLNS}\"><Bucket>{}</Bucket><Prefix>{}</Prefix>\
         <MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>",
        escape(bucket),
        escape(&prefix)
    );
    for row in &rows {
        let (id, key, created): (Uuid, String, String) = (row.get(0), row.get(1), row.get(2));
        body.push_str(&format!(
            "<Upload><Key>{}</Key><UploadId>{id}</UploadId><Initiated>{created}</Initiated>\
             <StorageClass>STANDARD</StorageClass></Upload>",
            escape(&key)
        ));
    }
    body.push_str("</ListMultipartUploadsResult>");
    Ok(xml_response(StatusCode::OK, body))
}

/// `CompleteMultipartUpload` (`POST /{bucket}/{key}?uploadId=U`).
pub async fn complete(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let upload = find(&call.state, &call.verified.caller, bucket, key, &upload_id(&call)).await?;
    let (state, verified, body) = call.body_text().await?;
    let numbers = xml::elements(&body, "Part", "PartNumber").ok_or_else(S3Error::malformed_xml)?;
    let etags = xml::elements(&body, "Part", "ETag").ok_or_else(S3Error::malformed_xml)?;
    let mut chosen = Vec::with_capacity(numbers.len());
    for (number, etag) in numbers.into_iter().zip(etags) {
        let number: i32 = number.and_then(|n| n.trim().parse().ok()).ok_or_else(S3Error::malformed_xml)?;
        chosen.push((number, etag.unwrap_or_default()));
    }
    if chosen.is_empty() {
        return Err(S3Error::malformed_xml().into());
    }
    if chosen.windows(2).any(|pair| pair[0].0 >= pair[1].0) {
        return Err(S3Error::invalid_part_order().into());
    }
    let stored = parts(&state, upload.id).await?;
    let mut used = Vec::with_capacity(chosen.len());
    for (number, etag) in &chosen {
        let part = stored.iter().find(|p| p.number == *number).ok_or_else(S3Error::invalid_part)?;
        let unquoted = |tag: &str| tag.trim().trim_matches('"').to_owned();
        if unquoted(etag) != unquoted(&part.etag) {
            return Err(S3Error::invalid_part().into());
        }
        used.push(part);
    }
    if used[..used.len() - 1].iter().any(|part| part.size < MIN_PART) {
        return Err(S3Error::entity_too_small().into());
    }
    let total: i64 = used.iter().map(|p| p.size).sum();
    let mut paths = Vec::with_capacity(used.len());
    for part in &used {
        paths.push(keys::version_path(bucket, key, &part.blob)?);
    }
    let store = state.store.clone();
    let body =
        futures::stream::iter(paths)
            .then(move |path| {
                let store = store.clone();
                async move {
                    store.store.get_opts(&path, GetOptions::default()).await.map(|got| got.into_stream())
                }
            })
            .try_flatten()
            .map_err(|e| e.to_string());
    let mut request = Request::new(Body::from_stream(body));
    let headers = request.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&upload.content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(total));
    if let Some(value) = upload
        .user_metadata
        .as_ref()
        .map(|m| base64::engine::general_purpose::STANDARD.encode(m.to_string()))
        .and_then(|m| HeaderValue::from_str(&m).ok())
    {
        headers.insert("x-metadata", value);
    }
    let target = Target { bucket, key, owner: owner(&verified.caller), mode: Mode::Upsert };
    upload::upload(&state, Some(&verified.caller), &target, request).await?;
    end(&state, bucket, key, upload.id).await?;
    let session = state.db.session(&verified.caller, Access::ReadOnly).await?;
    let object = objects::blob(session, bucket, key).await?.ok_or_else(S3Error::no_such_key)?;
    Ok(xml_response(
        StatusCode::OK,
        format!(
            "<CompleteMultipartUploadResult xmlns=\"{XMLNS}\"><Bucket>{}</Bucket><Key>{}</Key><ETag>{}</ETag>\
             </CompleteMultipartUploadResult>",
            escape(bucket),
            escape(key),
            escape(object.etag.as_deref().unwrap_or(""))
        ),
    ))
}
