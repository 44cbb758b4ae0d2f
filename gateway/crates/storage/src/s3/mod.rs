//! `/storage/v1/s3`: Supabase Storage's S3 protocol (supabase/storage
//! `src/http/routes/s3/`), path-style, for real S3 clients (aws, boto3,
//! rclone, the AWS SDKs).
//!
//! Every request is signed with SigV4 ([`auth`]); the operations
//! ([`ops`]) are recipes over the same storage code the REST API uses, so an
//! object written one way is the same `storage.objects` row, with the same
//! ETag and limits, read the other way. Errors are S3's XML documents
//! ([`error`]), whatever raised them.
//!
//! Which operation a request is follows S3's REST API: the method, whether a
//! key is named, and a few query words (`?delete`, `?uploads`, `?location`).

pub mod auth;
pub mod credentials;
pub mod error;
mod multipart;
mod ops;
pub mod sigv4;
pub mod xml;

use axum::{
    Router,
    extract::{DefaultBodyLimit, OriginalUri, Path, Request, State},
    http::Method,
    middleware,
    response::Response,
    routing::any,
};
use gateway_core::error::{ApiError, shaped};

use crate::StorageState;
use error::{S3Error, S3Xml};
use ops::Call;

/// The routes under `/s3`, to merge into Storage's router (merged rather
/// than nested, so that `/s3/` answers `ListBuckets` as `/s3` does).
pub fn router(state: StorageState) -> Router {
    let paced = middleware::from_fn_with_state(state.limits, gateway_core::body::pace);
    Router::new()
        .route("/s3", any(service))
        .route("/s3/", any(service))
        .route("/s3/{bucket}", any(bucket))
        .route("/s3/{bucket}/", any(bucket))
        .route("/s3/{bucket}/{*key}", any(object))
        .layer(DefaultBodyLimit::disable())
        .layer(paced)
        // A refused upload still reads its body, so the client reads the refusal.
        .layer(middleware::from_fn_with_state(state.clone(), crate::drain::unread_body_on_refusal))
        .layer(shaped::<S3Xml>())
        .with_state(state)
}

/// Sub-resources (`?acl`, `?tagging`...) of buckets and objects this gateway
/// does not serve: answered `NotImplemented` rather than taken for the plain
/// operation (a `PUT /{bucket}/{key}?tagging` must not replace the object).
const UNSERVED: &[&str] = &[
    "accelerate",
    "acl",
    "analytics",
    "attributes",
    "cors",
    "encryption",
    "intelligent-tiering",
    "inventory",
    "legal-hold",
    "lifecycle",
    "logging",
    "metrics",
    "notification",
    "object-lock",
    "ownershipControls",
    "policy",
    "policyStatus",
    "publicAccessBlock",
    "replication",
    "requestPayment",
    "restore",
    "retention",
    "select",
    "tagging",
    "torrent",
    "versionId",
    "versions",
    "website",
];

async fn call(state: StorageState, request: Request) -> Result<Call, ApiError> {
    let uri =
        request.extensions().get::<OriginalUri>().map_or_else(|| request.uri().clone(), |o| o.0.clone());
    let verified =
        auth::verify(&state, request.method(), uri.path(), uri.query().unwrap_or(""), request.headers())
            .await?;
    let query = sigv4::query_pairs(uri.query().unwrap_or(""));
    if let Some((name, _)) = query.iter().find(|(name, _)| UNSERVED.contains(&name.as_str())) {
        return Err(S3Error::not_implemented(&format!("?{name}")).into());
    }
    Ok(Call { state, verified, query, request })
}

async fn service(State(state): State<StorageState>, request: Request) -> Result<Response, ApiError> {
    let call = call(state, request).await?;
    match *call.request.method() {
        Method::GET => ops::list_buckets(call).await,
        _ => Err(S3Error::not_implemented("This request").into()),
    }
}

async fn bucket(
    State(state): State<StorageState>,
    Path(bucket): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let call = call(state, request).await?;
    let method = call.request.method().clone();
    match method {
        Method::HEAD => ops::head_bucket(call, &bucket).await,
        Method::GET if call.has("uploads") => multipart::list_uploads(call, &bucket).await,
        Method::GET if call.has("location") => ops::bucket_location(call, &bucket).await,
        Method::GET if call.has("versioning") => ops::bucket_versioning(call, &bucket).await,
        Method::GET => ops::list_objects(call, &bucket).await,
        Method::PUT => ops::create_bucket(call, &bucket).await,
        Method::DELETE => ops::delete_bucket(call, &bucket).await,
        Method::POST if call.has("delete") => ops::delete_objects(call, &bucket).await,
        _ => Err(S3Error::not_implemented("This request").into()),
    }
}

async fn object(
    State(state): State<StorageState>,
    Path((bucket, key)): Path<(String, String)>,
    request: Request,
) -> Result<Response, ApiError> {
    let call = call(state, request).await?;
    let method = call.request.method().clone();
    let upload = call.has("uploadId");
    match method {
        Method::POST if call.has("uploads") => multipart::create(call, &bucket, &key).await,
        Method::POST if upload => multipart::complete(call, &bucket, &key).await,
        Method::PUT if upload => multipart::upload_part(call, &bucket, &key).await,
        Method::GET if upload => multipart::list_parts(call, &bucket, &key).await,
        Method::DELETE if upload => multipart::abort(call, &bucket, &key).await,
        Method::GET | Method::HEAD => ops::get_object(call, &bucket, &key).await,
        Method::PUT if call.request.headers().contains_key("x-amz-copy-source") => {
            ops::copy_object(call, &bucket, &key).await
        }
        Method::PUT => ops::put_object(call, &bucket, &key).await,
        Method::DELETE => ops::delete_object(call, &bucket, &key).await,
        _ => Err(S3Error::not_implemented("This request").into()),
    }
}
