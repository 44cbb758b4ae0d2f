//! S3's error documents: the catalogue of codes this endpoint answers with
//! and their one renderer (<https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html>).
//!
//! ```xml
//! <?xml version="1.0" encoding="UTF-8"?>
//! <Error><Code>NoSuchKey</Code><Message>...</Message><Resource>...</Resource></Error>
//! ```
//!
//! Errors raised by the storage code the S3 routes share (a bucket's size
//! limit, its MIME types, row-level security) arrive as [`StorageError`]s or
//! shared [`ApiError`]s, and [`S3Xml`] words them as S3 does. A server error
//! says nothing of its cause.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gateway_core::error::{ApiError, ErrorShape, ServiceFault};

use super::xml::escape;
use crate::error::StorageError;

#[derive(Debug, Clone, PartialEq)]
pub struct S3Error {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl S3Error {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    pub fn access_denied(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "AccessDenied", message)
    }

    pub fn expired() -> Self {
        Self::access_denied("Request has expired")
    }

    pub fn signature_does_not_match() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. \
             Check your key and signing method.",
        )
    }

    pub fn invalid_access_key_id() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "InvalidAccessKeyId",
            "The AWS Access Key Id you provided does not exist in our records.",
        )
    }

    pub fn invalid_token(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "InvalidToken", message)
    }

    pub fn request_time_too_skewed() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "RequestTimeTooSkewed",
            "The difference between the request time and the server's time is too large.",
        )
    }

    pub fn header_malformed(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "AuthorizationHeaderMalformed", message)
    }

    pub fn query_malformed(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "AuthorizationQueryParametersError", message)
    }

    pub fn content_sha256_mismatch() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "XAmzContentSHA256Mismatch",
            "The provided 'x-amz-content-sha256' header does not match what was computed.",
        )
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "InvalidArgument", message)
    }

    pub fn malformed_xml() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema.",
        )
    }

    pub fn precondition_failed() -> Self {
        Self::new(
            StatusCode::PRECONDITION_FAILED,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
        )
    }

    pub fn invalid_range() -> Self {
        Self::new(StatusCode::RANGE_NOT_SATISFIABLE, "InvalidRange", "The requested range is not satisfiable")
    }

    pub fn no_such_bucket() -> Self {
        Self::new(StatusCode::NOT_FOUND, "NoSuchBucket", "The specified bucket does not exist")
    }

    pub fn no_such_key() -> Self {
        Self::new(StatusCode::NOT_FOUND, "NoSuchKey", "The specified key does not exist.")
    }

    pub fn no_such_upload() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
        )
    }

    pub fn invalid_part() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidPart",
            "One or more of the specified parts could not be found. The part might not have been uploaded, \
             or the specified entity tag might not have matched the part's entity tag.",
        )
    }

    pub fn invalid_part_order() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidPartOrder",
            "The list of parts was not in ascending order. Parts must be ordered by part number.",
        )
    }

    pub fn entity_too_small() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed object size.",
        )
    }

    pub fn not_implemented(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_IMPLEMENTED,
            "NotImplemented",
            format!("{what} is not implemented by this gateway"),
        )
    }

    /// A shared storage error, in S3's words.
    fn of_storage(error: &StorageError) -> Self {
        let status = error.status_code.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok());
        let status = status.unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // A body stream's own failures (`super::auth`), reported as the
        // upload's invalid request.
        match error.message.as_str() {
            super::auth::CONTENT_SHA256_MISMATCH => return Self::content_sha256_mismatch(),
            super::auth::CHUNK_SIGNATURE_MISMATCH => return Self::signature_does_not_match(),
            _ => {}
        }
        let code = match (error.code, error.error) {
            ("NoSuchBucket", _) => return Self::no_such_bucket(),
            ("NoSuchKey", _) => return Self::no_such_key(),
            ("InvalidRange", _) => return Self::invalid_range(),
            (_, "Bucket not empty") => "BucketNotEmpty",
            ("BucketAlreadyExists", _) => "BucketAlreadyExists",
            ("EntityTooLarge", _) => "EntityTooLarge",
            ("AccessDenied", _) => "AccessDenied",
            ("InvalidKey", _) => "InvalidArgument",
            ("InvalidBucketName", _) => "InvalidBucketName",
            ("InvalidMimeType", _) => "InvalidArgument",
            _ if status.is_server_error() => "InternalError",
            _ => "InvalidRequest",
        };
        if status.is_server_error() {
            return Self::new(status, code, "We encountered an internal error. Please try again.");
        }
        // S3 answers a size over the limit with 400, not 413.
        let status = if code == "EntityTooLarge" { StatusCode::BAD_REQUEST } else { status };
        Self::new(status, code, error.message.clone())
    }

    pub fn render(&self) -> Response {
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message></Error>",
            self.code,
            escape(&self.message)
        );
        let mut response = (self.status, body).into_response();
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
        response
    }
}

impl std::fmt::Display for S3Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl ServiceFault for S3Error {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn render(&self) -> Response {
        S3Error::render(self)
    }
}

impl From<S3Error> for ApiError {
    fn from(error: S3Error) -> Self {
        ApiError::service(error)
    }
}

/// The shape of every answer under `/storage/v1/s3` that is an error.
pub struct S3Xml;

impl ErrorShape for S3Xml {
    fn render(error: &ApiError) -> Response {
        let s3 = match error {
            ApiError::Jwt(jwt) => S3Error::invalid_token(jwt.to_string()),
            ApiError::Database(db) if db.code == "42501" => {
                S3Error::access_denied("new row violates row-level security policy")
            }
            ApiError::Database(db) if db.code.starts_with("22") || db.code.starts_with("23") => {
                S3Error::invalid_argument(db.message.clone())
            }
            ApiError::NotFound => S3Error::not_implemented("This request"),
            ApiError::BodyTooLarge(_) => S3Error::new(
                StatusCode::BAD_REQUEST,
                "EntityTooLarge",
                "Your proposed upload exceeds the maximum allowed object size.",
            ),
            ApiError::BodyTimeout(_) => S3Error::new(
                StatusCode::BAD_REQUEST,
                "RequestTimeout",
                "Your socket connection to the server was not read from or written to within the timeout period.",
            ),
            ApiError::Unavailable(_) | ApiError::PoolTimeout => S3Error::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "ServiceUnavailable",
                "Please reduce your request rate.",
            ),
            _ => S3Error::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                "We encountered an internal error. Please try again.",
            ),
        };
        s3.render()
    }

    fn render_fault(fault: &dyn ServiceFault) -> Response {
        let any = fault as &dyn std::any::Any;
        if let Some(storage) = any.downcast_ref::<StorageError>() {
            return S3Error::of_storage(storage).render();
        }
        fault.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_errors_take_s3_codes() {
        let cases = [
            (StorageError::no_such_bucket(), 404, "NoSuchBucket"),
            (StorageError::no_such_key(), 404, "NoSuchKey"),
            (StorageError::bucket_not_empty(), 409, "BucketNotEmpty"),
            (StorageError::bucket_already_exists(), 409, "BucketAlreadyExists"),
            (StorageError::entity_too_large(), 400, "EntityTooLarge"),
            (StorageError::invalid_mime_type("x/y"), 415, "InvalidArgument"),
            (StorageError::access_denied("no"), 403, "AccessDenied"),
        ];
        for (storage, status, code) in cases {
            let s3 = S3Error::of_storage(&storage);
            assert_eq!((s3.status.as_u16(), s3.code), (status, code), "{storage}");
        }
    }
}
