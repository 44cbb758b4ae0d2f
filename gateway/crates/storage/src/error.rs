//! Errors of the storage API, in Storage's shape
//! `{"statusCode":"<string>","code","error","message"}`. The hosted service sends
//! client errors as HTTP 400 and keeps the real status in `statusCode`
//! (supabase/storage `src/internal/errors/storage-error.ts`,
//! `src/http/error-handler.ts`).
//!
//! The constructors below are the catalogue: codes and texts follow
//! supabase/storage `src/internal/errors/codes.ts`. [`Storage`] and
//! [`StorageText`] render the errors every service shares in Storage's shapes.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gateway_core::error::{ApiError, ErrorShape, ServiceFault, client_data_error, json_response};
use serde_json::json;

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

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl ServiceFault for StorageError {
    /// The real status: a missing object is no server error.
    fn status(&self) -> StatusCode {
        parse_status(self.status_code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn render(&self) -> Response {
        storage_response(self.status_code, self.code, self.error, &self.message)
    }
}

/// An error Storage sends with its real status instead of 400, as its
/// `withStatusCode` does (`enforceJwtRole`: 403 for a role a route refuses).
#[derive(Debug, Clone, PartialEq)]
pub struct SentAs(pub StorageError, pub StatusCode);

impl StorageError {
    /// Storage's `enforceJwtRole`: a route for other roles only, sent as 403.
    pub fn invalid_role() -> SentAs {
        SentAs(Self::access_denied("Access denied: Invalid role"), StatusCode::FORBIDDEN)
    }
}

impl std::fmt::Display for SentAs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ServiceFault for SentAs {
    fn status(&self) -> StatusCode {
        self.1
    }

    fn render(&self) -> Response {
        let SentAs(error, http) = self;
        json_response(*http, body(error.status_code, error.code, error.error, &error.message))
    }
}

impl From<SentAs> for ApiError {
    fn from(error: SentAs) -> Self {
        ApiError::service(error)
    }
}

/// A feature the project does not have, as Storage answers it before any
/// other check (supabase/storage `src/http/plugins/tenant-feature.ts`:
/// HTTP 403 and a body of its own, with no `code`).
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureNotEnabled;

impl std::fmt::Display for FeatureNotEnabled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("feature not enabled for this tenant")
    }
}

impl ServiceFault for FeatureNotEnabled {
    fn status(&self) -> StatusCode {
        StatusCode::FORBIDDEN
    }

    fn render(&self) -> Response {
        let body = json!({"error": "FeatureNotEnabled", "statusCode": "403", "message": self.to_string()});
        json_response(StatusCode::FORBIDDEN, body)
    }
}

impl From<FeatureNotEnabled> for ApiError {
    fn from(error: FeatureNotEnabled) -> Self {
        ApiError::service(error)
    }
}

impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        ApiError::service(error)
    }
}

fn parse_status(status: &str) -> Option<StatusCode> {
    status.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok())
}

/// Storage's shape for the errors every service shares.
pub struct Storage;

impl ErrorShape for Storage {
    fn render(error: &ApiError) -> Response {
        let error = fields(error);
        storage_response(error.status_code, error.code, error.error, &error.message)
    }
}

/// Storage's TUS routes (`/storage/v1/upload/resumable`): the same error as
/// [`Storage`], sent as its message in plain text with the real status, as
/// tus-node-server writes the errors Storage hands it (supabase/storage
/// `src/http/routes/tus/lifecycle.ts`, `getTusError`).
pub struct StorageText;

impl ErrorShape for StorageText {
    fn render(error: &ApiError) -> Response {
        text_response(&fields(error))
    }

    fn render_fault(fault: &dyn ServiceFault) -> Response {
        match (fault as &dyn std::any::Any).downcast_ref::<StorageError>() {
            Some(error) => text_response(error),
            None => fault.render(),
        }
    }
}

fn storage_response(status: &str, code: &str, title: &str, message: &str) -> Response {
    // Storage answers 400 for client errors and keeps the real status in the body;
    // server errors pass through as themselves.
    let http = match parse_status(status) {
        Some(real) if real.is_server_error() => real,
        _ => StatusCode::BAD_REQUEST,
    };
    json_response(http, body(status, code, title, message))
}

fn body(status: &str, code: &str, title: &str, message: &str) -> serde_json::Value {
    json!({ "statusCode": status, "code": code, "error": title, "message": message })
}

fn text_response(error: &StorageError) -> Response {
    let mut response = (
        parse_status(error.status_code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        error.message.clone(),
    )
        .into_response();
    // Every TUS answer names the protocol version (TUS 1.0, "Tus-Resumable"),
    // and a refused one the versions served, which a 412 must.
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("tus-resumable"), HeaderValue::from_static("1.0.0"));
    headers.insert(HeaderName::from_static("tus-version"), HeaderValue::from_static("1.0.0"));
    response
}

/// A shared error as Storage words it.
fn fields(error: &ApiError) -> StorageError {
    match error {
        ApiError::Jwt(jwt) => StorageError::new("403", "AccessDenied", "Unauthorized", jwt.to_string()),
        ApiError::Database(db) if db.code == "42501" => StorageError::new(
            "403",
            "AccessDenied",
            "Unauthorized",
            "new row violates row-level security policy",
        ),
        ApiError::Database(db) if let Some(status) = client_data_error(db) => {
            // Classes 22 and 23 map to 400 or 409 alone.
            let status = if status == StatusCode::CONFLICT { "409" } else { "400" };
            StorageError::new(status, "InvalidRequest", "Invalid Request", db.message.clone())
        }
        ApiError::NotFound => StorageError::new("404", "NotFound", "Not Found", "Route not found"),
        // Storage's own `EntityTooLarge` (`ERRORS.EntityTooLarge`, entity
        // "request body"); it has no code for a timeout.
        ApiError::BodyTooLarge(_) => StorageError::new(
            "413",
            "EntityTooLarge",
            "Payload too large",
            "The request body exceeded the maximum allowed size",
        ),
        ApiError::BodyTimeout(_) => StorageError::new(
            "408",
            "InvalidRequest",
            "Request Timeout",
            "The request body did not arrive in time",
        ),
        ApiError::Unavailable(_) | ApiError::PoolTimeout => StorageError::new(
            "503",
            "DatabaseTimeout",
            "Service Unavailable",
            "The database is not available",
        ),
        _ => StorageError::new("500", "InternalError", "Internal Server Error", "Internal Server Error"),
    }
}

/// A key as it may be echoed in a message: control characters escaped, so an
/// error body never carries raw NULs or newlines.
fn printable(key: &str) -> String {
    key.chars().flat_map(char::escape_debug).take(1024).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn server_errors_are_logged_and_storages_client_errors_are_not() {
        #[derive(Clone, Default)]
        struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Captured {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().expect("buffer").extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber =
            tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        tracing::subscriber::with_default(subscriber, || {
            let _ = ApiError::from(StorageError::no_such_key()).into_response();
            let _ = ApiError::internal("a bug only this test makes").into_response();
        });
        let logs = String::from_utf8(captured.0.lock().expect("logs").clone()).expect("utf-8");
        assert!(logs.contains("a bug only this test makes"), "{logs}");
        assert_eq!(logs.lines().count(), 1, "{logs}");
    }
}
