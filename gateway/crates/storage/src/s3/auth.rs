//! Who signed an S3 request, and whether the signature holds
//! (<https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html>).
//!
//! A request is signed in its `Authorization` header or in its query (a
//! presigned URL, `X-Amz-*`). The signing secret is either:
//!
//! - an access key's (`gateway storage s3-keys create`): the request acts as
//!   `service_role`, as a secret API key does, so row-level security does not
//!   apply; or
//! - with a session token (`X-Amz-Security-Token`, a user's JWT), the anon
//!   key, whatever the access key id: the request acts as the token's user,
//!   under row-level security, as Supabase documents
//!   (<https://supabase.com/docs/guides/storage/s3/authentication>, "Session token").
//!
//! Checks run in S3's order: a malformed signature or a wrong region, then
//! the time (15 minutes of skew for a header, the expiry for a URL), then the
//! key, then the signature.

use axum::http::{HeaderMap, Method};
use bytes::{Buf, Bytes, BytesMut};
use chrono::{NaiveDateTime, Utc};
use futures::{StreamExt, stream::BoxStream};
use gateway_core::caller::{Caller, headers_json};
use gateway_core::db::Access;
use gateway_core::error::ApiError;
use gateway_core::jwt::{Claims, api_key};
use gateway_core::role::Role;

use super::credentials;
use super::error::S3Error;
use super::sigv4::{self, Canonical};
use crate::StorageState;

/// Requests signed in a header may be this far from the server's clock.
const MAX_SKEW_SECONDS: i64 = 15 * 60;
/// A presigned URL lives at most a week, as on S3.
const MAX_EXPIRES_SECONDS: i64 = 7 * 24 * 3600;
/// A chunk of an `aws-chunked` body is held whole to check its signature.
const MAX_CHUNK: usize = 64 << 20;

/// What the body's hash in the signature says.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Unsigned,
    Sha256(String),
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: `aws-chunked`, each chunk signed.
    SignedChunks,
    /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`: `aws-chunked`, no chunk
    /// signatures, a checksum trailer (not checked).
    UnsignedChunks,
}

/// What a signature proved.
pub struct Verified {
    /// Who acts: `service_role` for an access key, the token's user otherwise.
    pub caller: Caller,
    pub payload: Payload,
    chunks: ChunkSigner,
}

/// What signs the chunks of a streamed body.
#[derive(Clone)]
struct ChunkSigner {
    key: [u8; 32],
    amz_date: String,
    scope: String,
    seed: String,
}

struct Signature {
    access_key: String,
    date: String,
    region: String,
    service: String,
    signed_headers: Vec<String>,
    signature: String,
    amz_date: String,
    expires: Option<i64>,
    session_token: Option<String>,
    presigned: bool,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn malformed(presigned: bool, message: &str) -> S3Error {
    if presigned { S3Error::query_malformed(message) } else { S3Error::header_malformed(message) }
}

/// `Credential=<id>/<date>/<region>/<service>/aws4_request`.
fn credential(text: &str, presigned: bool) -> Result<(String, String, String, String), S3Error> {
    let parts: Vec<&str> = text.rsplitn(5, '/').collect();
    match parts.as_slice() {
        ["aws4_request", service, region, date, id] if !id.is_empty() => {
            Ok(((*id).to_owned(), (*date).to_owned(), (*region).to_owned(), (*service).to_owned()))
        }
        _ => Err(malformed(presigned, "The authorization header is malformed; the Credential is mal-formed")),
    }
}

fn parse_header(value: &str, headers: &HeaderMap) -> Result<Signature, S3Error> {
    let rest = value
        .strip_prefix(sigv4::ALGORITHM)
        .ok_or_else(|| S3Error::invalid_argument("Unsupported Authorization Type"))?;
    let mut fields = std::collections::HashMap::new();
    for part in rest.split(',') {
        if let Some((name, value)) = part.trim().split_once('=') {
            fields.insert(name.trim(), value.trim());
        }
    }
    let (Some(credential_text), Some(signed), Some(signature)) =
        (fields.get("Credential"), fields.get("SignedHeaders"), fields.get("Signature"))
    else {
        return Err(S3Error::header_malformed("The authorization header is malformed"));
    };
    let (access_key, date, region, service) = credential(credential_text, false)?;
    let amz_date = header(headers, "x-amz-date").ok_or_else(|| {
        S3Error::access_denied("AWS authentication requires a valid Date or x-amz-date header")
    })?;
    Ok(Signature {
        access_key,
        date,
        region,
        service,
        signed_headers: signed.split(';').map(str::to_owned).collect(),
        signature: (*signature).to_owned(),
        amz_date: amz_date.to_owned(),
        expires: None,
        session_token: header(headers, "x-amz-security-token").map(str::to_owned),
        presigned: false,
    })
}

fn parse_query(query: &[(String, String)]) -> Result<Signature, S3Error> {
    let get = |name: &str| query.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    if get("X-Amz-Algorithm") != Some(sigv4::ALGORITHM) {
        return Err(S3Error::query_malformed("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\""));
    }
    let missing = || {
        S3Error::query_malformed(
            "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, \
             X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
        )
    };
    let (Some(credential_text), Some(amz_date), Some(signed), Some(signature), Some(expires)) = (
        get("X-Amz-Credential"),
        get("X-Amz-Date"),
        get("X-Amz-SignedHeaders"),
        get("X-Amz-Signature"),
        get("X-Amz-Expires"),
    ) else {
        return Err(missing());
    };
    let expires: i64 = expires.parse().map_err(|_| missing())?;
    if !(0..=MAX_EXPIRES_SECONDS).contains(&expires) {
        return Err(S3Error::query_malformed("X-Amz-Expires must be less than a week (in seconds)"));
    }
    let (access_key, date, region, service) = credential(credential_text, true)?;
    Ok(Signature {
        access_key,
        date,
        region,
        service,
        signed_headers: signed.split(';').map(str::to_owned).collect(),
        signature: signature.to_owned(),
        amz_date: amz_date.to_owned(),
        expires: Some(expires),
        session_token: get("X-Amz-Security-Token").map(str::to_owned),
        presigned: true,
    })
}

/// Checks the request's signature: see the module doc. `path` is the path
/// the client sent, still percent-encoded; `query` the raw query.
pub async fn verify(
    state: &StorageState,
    method: &Method,
    path: &str,
    query: &str,
    headers: &HeaderMap,
) -> Result<Verified, ApiError> {
    let pairs = sigv4::query_pairs(query);
    let signed = match header(headers, "authorization") {
        Some(value) => parse_header(value, headers)?,
        None if pairs.iter().any(|(n, _)| n == "X-Amz-Algorithm") => parse_query(&pairs)?,
        None => return Err(S3Error::access_denied("Access Denied").into()),
    };
    let region = &state.config.s3_protocol_region;
    if signed.region != *region {
        let message = format!(
            "The authorization header is malformed; the region '{}' is wrong; expecting '{region}'",
            signed.region
        );
        return Err(malformed(signed.presigned, &message).into());
    }
    if signed.service != "s3" {
        return Err(malformed(
            signed.presigned,
            "The authorization header is malformed; the service must be 's3'",
        )
        .into());
    }
    let time = NaiveDateTime::parse_from_str(&signed.amz_date, "%Y%m%dT%H%M%SZ")
        .map_err(|_| {
            S3Error::access_denied("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
        })?
        .and_utc();
    if !signed.amz_date.starts_with(&signed.date) {
        return Err(malformed(
            signed.presigned,
            "The authorization header is malformed; the date of the Credential does not match X-Amz-Date",
        )
        .into());
    }
    let age = Utc::now().signed_duration_since(time).num_seconds();
    match signed.expires {
        Some(expires) if age > expires => return Err(S3Error::expired().into()),
        Some(_) if age < -MAX_SKEW_SECONDS => return Err(S3Error::request_time_too_skewed().into()),
        None if age.abs() > MAX_SKEW_SECONDS => return Err(S3Error::request_time_too_skewed().into()),
        _ => {}
    }

    let jwt = &state.credentials.jwt;
    let (secret, claims) = match &signed.session_token {
        Some(token) => {
            let claims = jwt.verify(token)?;
            (api_key(jwt, Role::Anon).map_err(ApiError::internal)?, claims)
        }
        None => {
            let session = state.db.as_service_role(Access::ReadOnly).await?;
            let secret = credentials::secret_of(session, jwt.secret(), &signed.access_key).await?;
            (secret.ok_or_else(S3Error::invalid_access_key_id)?, Claims::of_role(Role::ServiceRole))
        }
    };

    let payload_hash = match (signed.presigned, header(headers, "x-amz-content-sha256")) {
        (_, Some(hash)) => hash.to_owned(),
        (true, None) => "UNSIGNED-PAYLOAD".to_owned(),
        (false, None) => {
            return Err(S3Error::invalid_argument(
                "Missing required header for this request: x-amz-content-sha256",
            )
            .into());
        }
    };
    let payload = match payload_hash.as_str() {
        "UNSIGNED-PAYLOAD" => Payload::Unsigned,
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" => Payload::SignedChunks,
        "STREAMING-UNSIGNED-PAYLOAD-TRAILER" => Payload::UnsignedChunks,
        hash if hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Payload::Sha256(hash.to_ascii_lowercase())
        }
        _ => return Err(S3Error::invalid_argument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.").into()),
    };
    if !signed.signed_headers.iter().any(|h| h == "host") {
        return Err(malformed(
            signed.presigned,
            "The authorization header is malformed; SignedHeaders must include host",
        )
        .into());
    }
    let mut signed_headers = Vec::with_capacity(signed.signed_headers.len());
    for name in &signed.signed_headers {
        let values: Vec<String> = headers
            .get_all(name.as_str())
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
            .collect();
        signed_headers.push((name.clone(), values));
    }
    let query: Vec<(String, String)> = pairs.into_iter().filter(|(n, _)| n != "X-Amz-Signature").collect();
    let decoded_path = sigv4::percent_decode(path);
    let canonical = Canonical {
        method: method.as_str(),
        path: &decoded_path,
        query: &query,
        headers: &signed_headers,
        payload_hash: &payload_hash,
    };
    let scope = format!("{}/{}/s3/aws4_request", signed.date, signed.region);
    let to_sign = sigv4::string_to_sign(&signed.amz_date, &scope, &canonical.request());
    let key = sigv4::signing_key(&secret, &signed.date, &signed.region, "s3");
    let expected = sigv4::signature(&key, &to_sign);
    if !sigv4::same(&expected, &signed.signature.to_ascii_lowercase()) {
        tracing::debug!(canonical = %canonical.request(), "an S3 signature did not match");
        return Err(S3Error::signature_does_not_match().into());
    }
    let caller = Caller {
        claims: std::sync::Arc::new(claims),
        method: method.as_str().to_owned(),
        path: path.to_owned(),
        headers: headers_json(headers),
    };
    let chunks = ChunkSigner { key, amz_date: signed.amz_date, scope, seed: expected };
    Ok(Verified { caller, payload, chunks })
}

impl Verified {
    /// The body as the object's bytes: an `aws-chunked` body decoded (and
    /// each chunk's signature checked), a hashed one checked at its end.
    pub fn body(&self, body: axum::body::Body) -> BoxStream<'static, Result<Bytes, String>> {
        let input = body.into_data_stream().map(|r| r.map_err(|e| e.to_string())).boxed();
        match &self.payload {
            Payload::Unsigned => input,
            Payload::Sha256(expected) => hashed(input, expected.clone()),
            Payload::SignedChunks => chunked(input, Some(self.chunks.clone())),
            Payload::UnsignedChunks => chunked(input, None),
        }
    }
}

/// The bytes of `input`, failing at the end if their SHA-256 is not `expected`.
fn hashed(
    input: BoxStream<'static, Result<Bytes, String>>,
    expected: String,
) -> BoxStream<'static, Result<Bytes, String>> {
    use sha2::{Digest, Sha256};
    futures::stream::unfold(
        (input, Some(Sha256::new()), expected),
        |(mut input, hash, expected)| async move {
            let mut hash = hash?;
            match input.next().await {
                Some(Ok(chunk)) => {
                    hash.update(&chunk);
                    Some((Ok(chunk), (input, Some(hash), expected)))
                }
                Some(Err(e)) => Some((Err(e), (input, None, expected))),
                None if hex::encode(hash.finalize()) == expected => None,
                None => Some((Err(CONTENT_SHA256_MISMATCH.to_owned()), (input, None, expected))),
            }
        },
    )
    .boxed()
}

/// The text a body stream fails with when its hash is not the signed one.
pub const CONTENT_SHA256_MISMATCH: &str = "XAmzContentSHA256Mismatch";
/// The text a body stream fails with when a chunk's signature is wrong.
pub const CHUNK_SIGNATURE_MISMATCH: &str = "SignatureDoesNotMatch";

struct Chunks {
    input: BoxStream<'static, Result<Bytes, String>>,
    buffer: BytesMut,
    signer: Option<ChunkSigner>,
    ended: bool,
}

impl Chunks {
    /// More of the input into the buffer; `false` at its end.
    async fn fill(&mut self) -> Result<bool, String> {
        match self.input.next().await {
            Some(chunk) => {
                self.buffer.extend_from_slice(&chunk?);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The next chunk's data; `None` after the final, empty one.
    async fn next_chunk(&mut self) -> Result<Option<Bytes>, String> {
        let truncated = || "the aws-chunked body ended early".to_owned();
        let line_end = loop {
            if let Some(at) = self.buffer.windows(2).position(|w| w == b"\r\n") {
                break at;
            }
            if self.buffer.len() > 4096 || !self.fill().await? {
                return Err(truncated());
            }
        };
        let line =
            std::str::from_utf8(&self.buffer[..line_end]).map_err(|_| "bad chunk header".to_owned())?;
        let (size, signature) = match line.split_once(';') {
            Some((size, extension)) => {
                (size, extension.trim().strip_prefix("chunk-signature=").map(str::to_owned))
            }
            None => (line, None),
        };
        let size = usize::from_str_radix(size.trim(), 16).map_err(|_| "bad chunk size".to_owned())?;
        if size > MAX_CHUNK {
            return Err("an aws-chunked chunk is too large".to_owned());
        }
        let needed = line_end + 2 + size + if size > 0 { 2 } else { 0 };
        while self.buffer.len() < needed {
            if !self.fill().await? {
                return Err(truncated());
            }
        }
        self.buffer.advance(line_end + 2);
        let data = self.buffer.split_to(size).freeze();
        if size > 0 {
            self.buffer.advance(2);
        }
        if let Some(signer) = &mut self.signer {
            let to_sign = sigv4::chunk_string_to_sign(&signer.amz_date, &signer.scope, &signer.seed, &data);
            let expected = sigv4::signature(&signer.key, &to_sign);
            if !signature.is_some_and(|given| sigv4::same(&expected, &given)) {
                return Err(CHUNK_SIGNATURE_MISMATCH.to_owned());
            }
            signer.seed = expected;
        }
        // After the final chunk come trailers (a checksum), not checked.
        Ok((size > 0).then_some(data))
    }
}

fn chunked(
    input: BoxStream<'static, Result<Bytes, String>>,
    signer: Option<ChunkSigner>,
) -> BoxStream<'static, Result<Bytes, String>> {
    let chunks = Chunks { input, buffer: BytesMut::new(), signer, ended: false };
    futures::stream::unfold(chunks, |mut chunks| async move {
        if chunks.ended {
            return None;
        }
        match chunks.next_chunk().await {
            Ok(Some(data)) => Some((Ok(data), chunks)),
            Ok(None) => None,
            Err(e) => {
                chunks.ended = true;
                Some((Err(e), chunks))
            }
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn signed_chunks_decode_and_a_tampered_one_fails() {
        let key =
            sigv4::signing_key("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524", "us-east-1", "s3");
        let signer = ChunkSigner {
            key,
            amz_date: "20130524T000000Z".to_owned(),
            scope: "20130524/us-east-1/s3/aws4_request".to_owned(),
            seed: "seed".to_owned(),
        };
        let mut previous = signer.seed.clone();
        let mut body = Vec::new();
        for data in [&b"hello "[..], b"world", b""] {
            let sig = sigv4::signature(
                &key,
                &sigv4::chunk_string_to_sign(&signer.amz_date, &signer.scope, &previous, data),
            );
            body.extend_from_slice(format!("{:x};chunk-signature={sig}\r\n", data.len()).as_bytes());
            body.extend_from_slice(data);
            body.extend_from_slice(b"\r\n");
            previous = sig;
        }
        let split = |bytes: Vec<u8>| -> BoxStream<'static, Result<Bytes, String>> {
            futures::stream::iter(bytes.chunks(3).map(|c| Ok(Bytes::copy_from_slice(c))).collect::<Vec<_>>())
                .boxed()
        };
        let decoded: Vec<Result<Bytes, String>> =
            chunked(split(body.clone()), Some(signer.clone())).collect().await;
        let decoded: Vec<u8> = decoded.into_iter().flat_map(|c| c.expect("chunk").to_vec()).collect();
        assert_eq!(decoded, b"hello world");

        let tampered = String::from_utf8(body).expect("text").replace("world", "wurld").into_bytes();
        let results: Vec<Result<Bytes, String>> = chunked(split(tampered), Some(signer)).collect().await;
        assert_eq!(results.last(), Some(&Err(CHUNK_SIGNATURE_MISMATCH.to_owned())));
    }

    #[tokio::test]
    async fn unsigned_chunks_with_a_trailer_decode() {
        let body = b"5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n".to_vec();
        let input = futures::stream::iter([Ok(Bytes::from(body))]).boxed();
        let decoded: Vec<Result<Bytes, String>> = chunked(input, None).collect().await;
        assert_eq!(decoded, [Ok(Bytes::from_static(b"hello"))]);
    }
}
