//! The S3 operations, each a recipe over the storage code the REST API runs
//! (<https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html>).
//! Every statement runs as the signer ([`super::auth`]): `service_role` for
//! an access key, the token's user (under row-level security) for a session
//! token.

use axum::{
    Json,
    body::{Body, Bytes},
    extract::{Path, Request, State},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use futures::StreamExt;
use serde_json::{Map, Value, json};

use super::auth::Verified;
use super::error::S3Error;
use super::sigv4;
use super::xml::{self, escape};
use crate::StorageState;
use crate::download::{self, parse_range};
use crate::objects::{self, Mode};
use crate::upload::{self, Target};
use crate::{buckets, hold, keys, manage};
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// A verified request, ready for its operation.
pub struct Call {
    pub state: StorageState,
    pub verified: Verified,
    pub query: Vec<(String, String)>,
    pub request: Request,
}

impl Call {
    pub fn has(&self, name: &str) -> bool {
        self.query.iter().any(|(n, _)| n == name)
    }

    fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The whole body (small XML documents), checked as its signature says.
    pub(super) async fn body_text(self) -> Result<(StorageState, Verified, String), ApiError> {
        let Call { state, verified, request, .. } = self;
        let mut stream = verified.body(request.into_body());
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| match e.as_str() {
                super::auth::CONTENT_SHA256_MISMATCH => S3Error::content_sha256_mismatch(),
                super::auth::CHUNK_SIGNATURE_MISMATCH => S3Error::signature_does_not_match(),
                _ => S3Error::malformed_xml(),
            })?;
            bytes.extend_from_slice(&chunk);
            if bytes.len() > 2 << 20 {
                return Err(S3Error::malformed_xml().into());
            }
        }
        let text = String::from_utf8(bytes).map_err(|_| S3Error::malformed_xml())?;
        Ok((state, verified, text))
    }
}

pub(super) const XMLNS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

pub(super) fn xml_response(status: StatusCode, body: String) -> Response {
    let body = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}");
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

fn empty(status: StatusCode) -> Response {
    status.into_response()
}

/// `ListBuckets`: the buckets the signer may see.
pub async fn list_buckets(call: Call) -> Result<Response, ApiError> {
    let mut session = call.state.db.session(&call.verified.caller, Access::ReadOnly).await?;
    // Times as S3 lists them, `2009-10-12T17:50:30.000Z`.
    let sql = concat!("select id, ", iso!("created_at"), " from storage.buckets order by id");
    let rows = session.query(sql, &[]).await?;
    session.commit().await?;
    let mut body = format!(
        "<ListAllMyBucketsResult xmlns=\"{XMLNS}\"><Owner><ID>supabase</ID><DisplayName>supabase</DisplayName></Owner><Buckets>"
    );
    for row in &rows {
        let (name, created): (String, String) = (row.get(0), row.get(1));
        body.push_str(&format!(
            "<Bucket><Name>{}</Name><CreationDate>{created}</CreationDate></Bucket>",
            escape(&name)
        ));
    }
    body.push_str("</Buckets></ListAllMyBucketsResult>");
    Ok(xml_response(StatusCode::OK, body))
}

/// Whether the bucket exists, asked past row-level security as the upload
/// asks for a bucket's limits: `storage.buckets` has no policy by default,
/// so a signed-in user sees no bucket, yet may hold objects in one.
pub(super) async fn bucket_exists(state: &StorageState, bucket: &str) -> Result<bool, ApiError> {
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query_and_end("select 1 from storage.buckets where id = $1", &[&bucket], true).await?;
    Ok(!rows.is_empty())
}

/// `HeadBucket`.
pub async fn head_bucket(call: Call, bucket: &str) -> Result<Response, ApiError> {
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    Ok(empty(StatusCode::OK))
}

/// `GetBucketLocation`: the configured region.
pub async fn bucket_location(call: Call, bucket: &str) -> Result<Response, ApiError> {
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    let region = escape(&call.state.config.s3_protocol_region);
    Ok(xml_response(
        StatusCode::OK,
        format!("<LocationConstraint xmlns=\"{XMLNS}\">{region}</LocationConstraint>"),
    ))
}

/// `GetBucketVersioning`: never enabled (rclone asks).
pub async fn bucket_versioning(call: Call, bucket: &str) -> Result<Response, ApiError> {
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    Ok(xml_response(StatusCode::OK, format!("<VersioningConfiguration xmlns=\"{XMLNS}\"/>")))
}

/// `CreateBucket`: a private bucket, as `POST /bucket {"name"}` makes.
pub async fn create_bucket(call: Call, bucket: &str) -> Result<Response, ApiError> {
    let body = Bytes::from(json!({ "name": bucket }).to_string());
    let Json(_) = buckets::create(State(call.state.clone()), call.verified.caller.clone(), body).await?;
    let mut response = empty(StatusCode::OK);
    if let Ok(location) = HeaderValue::from_str(&format!("/{bucket}")) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// `DeleteBucket`: only an empty one.
pub async fn delete_bucket(call: Call, bucket: &str) -> Result<Response, ApiError> {
    let Json(_) =
        buckets::delete(State(call.state.clone()), call.verified.caller.clone(), Path(bucket.to_owned()))
            .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `ListObjectsV2` (and a `ListObjects` without `list-type=2`, answered the
/// same way). Keys sort by their bytes (`collate "C"`), as S3's do; keys
/// under one common prefix count once, and the listing goes on past them.
pub async fn list_objects(call: Call, bucket: &str) -> Result<Response, ApiError> {
    let prefix = call.param("prefix").unwrap_or("").to_owned();
    let delimiter = call.param("delimiter").unwrap_or("").to_owned();
    let max_keys: usize = match call.param("max-keys") {
        None => 1000,
        Some(text) => text.parse().map_err(|_| {
            S3Error::invalid_argument("Provided max-keys not an integer or within integer range")
        })?,
    };
    let max_keys = max_keys.min(1000);
    let start_after = call.param("start-after").or(call.param("marker")).unwrap_or("").to_owned();
    let token = call.param("continuation-token").map(str::to_owned);
    let mut after = start_after.clone();
    if let Some(token) = &token {
        let decoded = URL_SAFE_NO_PAD.decode(token).ok().and_then(|b| String::from_utf8(b).ok());
        after = decoded
            .ok_or_else(|| S3Error::invalid_argument("The continuation token provided is incorrect"))?;
    }
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    let mut session = call.state.db.session(&call.verified.caller, Access::ReadOnly).await?;
    let pattern = format!("{}%", objects::like_literal(&prefix));
    let sql = concat!(
        "select name, metadata ->> 'eTag', coalesce((metadata ->> 'size')::bigint, 0), ",
        iso!("updated_at"),
        " from storage.objects where bucket_id = $1 and name collate \"C\" like $2 and name collate \"C\" > $3 \
         order by name collate \"C\" limit $4"
    );
    let mut contents = String::new();
    let mut prefixes = String::new();
    let mut count = 0;
    let mut last = None;
    let mut truncated = false;
    let batch = (max_keys as i64 + 1).max(2);
    'pages: loop {
        if max_keys == 0 {
            break;
        }
        let rows = session.query(sql, &[&bucket, &pattern, &after, &batch]).await?;
        if rows.is_empty() {
            break;
        }
        let full = rows.len() as i64 == batch;
        for row in &rows {
            let name: String = row.get(0);
            let rest = &name[prefix.len()..];
            let common = (!delimiter.is_empty())
                .then(|| rest.find(&delimiter).map(|at| format!("{prefix}{}", &rest[..at + delimiter.len()])))
                .flatten();
            if count == max_keys {
                truncated = true;
                break 'pages;
            }
            count += 1;
            match common {
                Some(common) => {
                    prefixes.push_str(&format!(
                        "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
                        escape(&common)
                    ));
                    // Past every key under this prefix: keys hold no byte above 0x7e.
                    after = format!("{common}\u{7f}");
                    last = Some(after.clone());
                    continue 'pages;
                }
                None => {
                    let etag: Option<String> = row.get(1);
                    let size: i64 = row.get(2);
                    let modified: String = row.get(3);
                    contents.push_str(&format!(
                        "<Contents><Key>{}</Key><LastModified>{modified}</LastModified><ETag>{}</ETag>\
                         <Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                        escape(&name),
                        escape(etag.as_deref().unwrap_or(""))
                    ));
                    after = name.clone();
                    last = Some(name);
                }
            }
        }
        if !full {
            break;
        }
    }
    session.commit().await?;
    let mut body = format!(
        "<ListBucketResult xmlns=\"{XMLNS}\"><Name>{}</Name><Prefix>{}</Prefix><MaxKeys>{max_keys}</MaxKeys>\
         <KeyCount>{count}</KeyCount><IsTruncated>{truncated}</IsTruncated>",
        escape(bucket),
        escape(&prefix)
    );
    if !delimiter.is_empty() {
        body.push_str(&format!("<Delimiter>{}</Delimiter>", escape(&delimiter)));
    }
    if let Some(token) = &token {
        body.push_str(&format!("<ContinuationToken>{}</ContinuationToken>", escape(token)));
    }
    if !start_after.is_empty() {
        body.push_str(&format!("<StartAfter>{}</StartAfter>", escape(&start_after)));
    }
    if truncated && let Some(last) = &last {
        let next = URL_SAFE_NO_PAD.encode(last.as_bytes());
        body.push_str(&format!(
            "<NextContinuationToken>{next}</NextContinuationToken><NextMarker>{}</NextMarker>",
            escape(last)
        ));
    }
    body.push_str(&contents);
    body.push_str(&prefixes);
    body.push_str("</ListBucketResult>");
    Ok(xml_response(StatusCode::OK, body))
}

fn http_date(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc2822(text).ok().map(|t| t.with_timezone(&chrono::Utc))
}

/// `GetObject` and `HeadObject`, with `Range` and the conditional headers
/// (RFC 9110 §13.2.2's order: `If-Match`, `If-Unmodified-Since`,
/// `If-None-Match`, `If-Modified-Since`).
pub async fn get_object(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let session = call.state.db.session(&call.verified.caller, Access::ReadOnly).await?;
    let Some(object) = objects::blob(session, bucket, key).await? else {
        if !bucket_exists(&call.state, bucket).await? {
            return Err(S3Error::no_such_bucket().into());
        }
        return Err(S3Error::no_such_key().into());
    };
    let headers = call.request.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let etag = object.etag.as_deref().unwrap_or("");
    let modified = object
        .last_modified
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc));
    let matches = |list: &str| {
        list.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
    };
    if let Some(wanted) = text(header::IF_MATCH)
        && !matches(wanted)
    {
        return Err(S3Error::precondition_failed().into());
    }
    if text(header::IF_MATCH).is_none()
        && let (Some(since), Some(modified)) =
            (text(header::IF_UNMODIFIED_SINCE).and_then(http_date), modified)
        && modified.timestamp() > since.timestamp()
    {
        return Err(S3Error::precondition_failed().into());
    }
    if text(header::IF_NONE_MATCH).is_none()
        && let (Some(since), Some(modified)) = (text(header::IF_MODIFIED_SINCE).and_then(http_date), modified)
        && modified.timestamp() <= since.timestamp()
    {
        let mut response = empty(StatusCode::NOT_MODIFIED);
        if let Ok(value) = HeaderValue::from_str(etag) {
            response.headers_mut().insert(header::ETAG, value);
        }
        return Ok(response);
    }
    if let Some(range) = text(header::RANGE)
        && parse_range(range, object.size).is_none()
    {
        return Err(S3Error::invalid_range().into());
    }
    let method = call.request.method().clone();
    download::serve(&call.state, bucket, &object, &method, headers, None).await
}

/// `x-amz-meta-*` headers as the object's user metadata (`x-metadata`).
pub(super) fn user_metadata(headers: &HeaderMap) -> Option<String> {
    let mut metadata = Map::new();
    for (name, value) in headers {
        if let (Some(field), Ok(value)) = (name.as_str().strip_prefix("x-amz-meta-"), value.to_str()) {
            metadata.insert(field.to_owned(), Value::String(value.to_owned()));
        }
    }
    (!metadata.is_empty()).then(|| STANDARD.encode(Value::Object(metadata).to_string()))
}

async fn etag_of(
    call_state: &StorageState,
    verified: &Verified,
    bucket: &str,
    key: &str,
) -> Result<objects::Blob, ApiError> {
    let session = call_state.db.session(&verified.caller, Access::ReadOnly).await?;
    Ok(objects::blob(session, bucket, key).await?.ok_or_else(S3Error::no_such_key)?)
}

/// `PutObject`: the REST API's upload (its limits, MIME types and
/// permission check before any byte is stored), replacing any object there.
pub async fn put_object(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let Call { state, verified, request, .. } = call;
    let (mut parts, body) = request.into_parts();
    let streamed =
        matches!(verified.payload, super::auth::Payload::SignedChunks | super::auth::Payload::UnsignedChunks);
    if streamed {
        let decoded = parts.headers.get("x-amz-decoded-content-length").cloned();
        match decoded {
            Some(length) => parts.headers.insert(header::CONTENT_LENGTH, length),
            None => parts.headers.remove(header::CONTENT_LENGTH),
        };
    }
    if let Some(metadata) = user_metadata(&parts.headers).and_then(|m| HeaderValue::from_str(&m).ok()) {
        parts.headers.insert(HeaderName::from_static("x-metadata"), metadata);
    }
    // The REST API reads a `multipart/form-data` body as a form; over S3
    // every body is the object's bytes.
    let form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("multipart/form-data"));
    if form {
        return Err(S3Error::invalid_argument("multipart/form-data objects are not accepted over S3").into());
    }
    let body = Body::from_stream(verified.body(body));
    let request = Request::from_parts(parts, body);
    let owner = verified.caller.claims.sub().map(str::to_owned);
    let target = Target { bucket, key, owner, mode: Mode::Upsert };
    upload::upload(&state, Some(&verified.caller), &target, request).await?;
    let stored = etag_of(&state, &verified, bucket, key).await?;
    let mut response = empty(StatusCode::OK);
    if let Some(etag) = stored.etag.as_deref().and_then(|e| HeaderValue::from_str(e).ok()) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    Ok(response)
}

/// `x-amz-copy-source`: `[/]bucket/key[?versionId=...]`, percent-encoded.
pub(super) fn copy_source(source: &str) -> Result<(String, String), S3Error> {
    let source = source.split('?').next().unwrap_or("");
    let source = sigv4::percent_decode(source.trim_start_matches('/'));
    match source.split_once('/') {
        Some((bucket, key)) if !bucket.is_empty() && !key.is_empty() => {
            Ok((bucket.to_owned(), key.to_owned()))
        }
        _ => Err(S3Error::invalid_argument(
            "Copy Source must mention the source bucket and key: sourcebucket/sourcekey",
        )),
    }
}

/// `CopyObject`: the REST API's copy (select on the source, upsert on the
/// destination), metadata copied.
pub async fn copy_object(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    let source = call.request.headers().get("x-amz-copy-source").and_then(|v| v.to_str().ok()).unwrap_or("");
    let (from_bucket, from_key) = copy_source(source)?;
    let body = json!({
        "bucketId": from_bucket, "sourceKey": from_key, "destinationBucket": bucket, "destinationKey": key,
    });
    let mut headers = HeaderMap::new();
    headers.insert("x-upsert", HeaderValue::from_static("true"));
    let Json(_) = manage::copy(
        State(call.state.clone()),
        call.verified.caller.clone(),
        headers,
        Bytes::from(body.to_string()),
    )
    .await?;
    let stored = etag_of(&call.state, &call.verified, bucket, key).await?;
    let modified = stored.last_modified.as_deref().unwrap_or("");
    let etag = escape(stored.etag.as_deref().unwrap_or(""));
    Ok(xml_response(
        StatusCode::OK,
        format!(
            "<CopyObjectResult xmlns=\"{XMLNS}\"><LastModified>{modified}</LastModified><ETag>{etag}</ETag></CopyObjectResult>"
        ),
    ))
}

/// The objects of `names` the signer may delete, deleted; their bytes go.
async fn delete_names(
    state: &StorageState,
    verified: &Verified,
    bucket: &str,
    names: &[String],
) -> Result<Vec<String>, ApiError> {
    let mut session = state.db.session(&verified.caller, Access::ReadWrite).await?;
    let deleted = objects::delete(&mut session, bucket, names).await?;
    session.commit().await?;
    let mut gone = Vec::with_capacity(deleted.len());
    let mut paths = Vec::with_capacity(deleted.len());
    for (_, name, version) in deleted {
        if let Ok(path) = keys::version_path(bucket, &name, &version) {
            paths.push(path);
        }
        gone.push(name);
    }
    hold::remove_replaced(&state.db, &state.store, paths).await;
    Ok(gone)
}

/// `DeleteObject`: 204 whether or not the key was there, as S3 answers.
pub async fn delete_object(call: Call, bucket: &str, key: &str) -> Result<Response, ApiError> {
    if !bucket_exists(&call.state, bucket).await? {
        return Err(S3Error::no_such_bucket().into());
    }
    delete_names(&call.state, &call.verified, bucket, &[key.to_owned()]).await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `DeleteObjects`: up to 1000 keys. A key that is gone (or never was) is
/// `Deleted`; one that is still there, row-level security having kept it,
/// is an `AccessDenied` error.
pub async fn delete_objects(call: Call, bucket: &str) -> Result<Response, ApiError> {
    let (state, verified, body) = call.body_text().await?;
    let keys: Vec<String> = xml::elements(&body, "Object", "Key")
        .and_then(|keys| keys.into_iter().collect::<Option<Vec<String>>>())
        .ok_or_else(S3Error::malformed_xml)?;
    if keys.is_empty() || keys.len() > 1000 {
        return Err(S3Error::malformed_xml().into());
    }
    let quiet = xml::is_true(&body, "Quiet");
    let gone = delete_names(&state, &verified, bucket, &keys).await?;
    let kept: Vec<String> = keys.iter().filter(|k| !gone.contains(k)).cloned().collect();
    // Which of the keys not deleted exist is the gateway's own question,
    // asked past row-level security, to tell a refusal from a missing key.
    let session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end(
            "select name from storage.objects where bucket_id = $1 and name = any($2)",
            &[&bucket, &kept],
            true,
        )
        .await?;
    let refused: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
    let mut out = format!("<DeleteResult xmlns=\"{XMLNS}\">");
    for key in &keys {
        if refused.contains(key) {
            out.push_str(&format!(
                "<Error><Key>{}</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>",
                escape(key)
            ));
        } else if !quiet {
            out.push_str(&format!("<Deleted><Key>{}</Key></Deleted>", escape(key)));
        }
    }
    out.push_str("</DeleteResult>");
    Ok(xml_response(StatusCode::OK, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amz_meta_headers_become_user_metadata() {
        let mut headers = HeaderMap::new();
        headers.insert("x-amz-meta-colour", HeaderValue::from_static("blue"));
        headers.insert("content-type", HeaderValue::from_static("text/plain"));
        let encoded = user_metadata(&headers).expect("metadata");
        let decoded: Value =
            serde_json::from_slice(&STANDARD.decode(encoded).expect("base64")).expect("json");
        assert_eq!(decoded, json!({ "colour": "blue" }));
        assert_eq!(user_metadata(&HeaderMap::new()), None);
    }
}
