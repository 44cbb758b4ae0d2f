//! Errors of the storage API, in Storage's shape
//! `{"statusCode":"<string>","code","error","message"}`. The hosted service sends
//! client errors as HTTP 400 and keeps the real status in `statusCode`
//! (supabase/storage `src/internal/errors/storage-error.ts`,
//! `src/http/error-handler.ts`).
//!
//! The constructors below are the catalogue: codes and texts follow
//! supabase/storage `src/internal/errors/codes.ts`.

use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq)]
pub struct StorageError {
    /// The real status, as a string: `"404"`, `"409"`...
    pub status_code: &'static str,
    /// Storage's error code, e.g. `NoSuchBucket`.
    pub code: &'static str,
    /// The short title, e.g. `Bucket not found`.
    pub error: &'static str,
    pub message: String,
}

impl StorageError {
    fn new(
        status_code: &'static str,
        code: &'static str,
        error: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Self { status_code, code, error, message: message.into() }
    }

    pub fn no_such_bucket() -> Self {
        Self::new("404", "NoSuchBucket", "Bucket not found", "Bucket not found")
    }

    pub fn no_such_key() -> Self {
        Self::new("404", "NoSuchKey", "not_found", "Object not found")
    }

    pub fn duplicate() -> Self {
        Self::new("409", "ResourceAlreadyExists", "Duplicate", "The resource already exists")
    }

    pub fn bucket_already_exists() -> Self {
        Self::new("409", "BucketAlreadyExists", "Duplicate", "The resource already exists")
    }

    pub fn bucket_not_empty() -> Self {
        Self::new("409", "InvalidRequest", "Bucket not empty", "The bucket you tried to delete is not empty")
    }

    pub fn entity_too_large() -> Self {
        Self::new(
            "413",
            "EntityTooLarge",
            "Payload too large",
            "The object exceeded the maximum allowed size",
        )
    }

    pub fn invalid_mime_type(mime: &str) -> Self {
        Self::new("415", "InvalidMimeType", "invalid_mime_type", format!("mime type {mime} is not supported"))
    }

    pub fn invalid_key(key: &str) -> Self {
        Self::new("400", "InvalidKey", "Invalid Input", format!("Invalid key: {}", printable(key)))
    }

    /// A key refused for what it is rather than for its characters.
    pub fn invalid_key_reason(reason: &str) -> Self {
        Self::new("400", "InvalidKey", "Invalid Input", format!("Invalid key: {reason}"))
    }

    pub fn invalid_bucket_name(name: &str) -> Self {
        Self::new(
            "400",
            "InvalidBucketName",
            "Invalid Input",
            format!("Bucket name invalid: {}", printable(name)),
        )
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new("400", "InvalidRequest", "Invalid Request", message)
    }

    /// `ERRORS.InvalidParameter(parameter)`.
    pub fn invalid_parameter(parameter: &str) -> Self {
        Self::new("400", "InvalidParameter", "InvalidParameter", format!("Invalid Parameter {parameter}"))
    }

    pub fn invalid_jwt(message: impl Into<String>) -> Self {
        Self::new("400", "InvalidJWT", "Invalid JWT", message)
    }

    pub fn invalid_range() -> Self {
        Self::new("416", "InvalidRange", "Invalid Range", "The requested range is not satisfiable")
    }

    pub fn access_denied(message: impl Into<String>) -> Self {
        Self::new("403", "AccessDenied", "Unauthorized", message)
    }
}

impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        ApiError::Storage(error)
    }
}

/// A key as it may be echoed in a message: control characters escaped, so an
/// error body never carries raw NULs or newlines.
fn printable(key: &str) -> String {
    key.chars().flat_map(char::escape_debug).take(1024).collect()
}
