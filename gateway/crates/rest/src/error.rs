//! Errors PostgREST raises itself (as opposed to SQLSTATEs from PostgreSQL), in
//! its `{"code","details","hint","message"}` shape
//! (<https://docs.postgrest.org/en/stable/references/errors.html>), and
//! PostgREST's shape for the errors every service shares ([`PostgRest`]).

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use gateway_core::error::{ApiError, ErrorShape, ServiceFault, json_response};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq)]
pub struct RestError {
    pub status: StatusCode,
    /// `PGRSTnnn`.
    pub code: &'static str,
    pub message: String,
    /// A string, or structured (PGRST201 lists the candidate relationships).
    pub details: Option<Value>,
    pub hint: Option<String>,
}

impl std::fmt::Display for RestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl ServiceFault for RestError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn render(&self) -> Response {
        let body =
            json!({ "code": self.code, "details": self.details, "hint": self.hint, "message": self.message });
        json_response(self.status, body)
    }
}

impl From<RestError> for ApiError {
    fn from(error: RestError) -> Self {
        ApiError::service(error)
    }
}

/// PostgREST's shape for the errors every service shares
/// (<https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/Error.hs>):
/// a PostgreSQL error keeps its SQLSTATE and its status from
/// [`gateway_core::error::sqlstate_status`]; PostgREST's own failures take their `PGRST` codes.
pub struct PostgRest;

impl ErrorShape for PostgRest {
    fn render(error: &ApiError) -> Response {
        let status = error.status();
        let text = |s: &Option<String>| s.clone().map(Value::String);
        let (code, message, details, hint): (String, String, Option<Value>, Option<String>) = match error {
            ApiError::Jwt(jwt) => (jwt.postgrest_code().to_owned(), jwt.to_string(), None, None),
            ApiError::Database(db) => {
                let message = if status.is_server_error() && db.code != "57014" {
                    "Database error".to_owned()
                } else {
                    db.message.clone()
                };
                (db.code.clone(), message, text(&db.details), db.hint.clone())
            }
            ApiError::Unavailable(_) => (
                "PGRST001".to_owned(),
                "Database client error. Retrying the connection.".to_owned(),
                None,
                None,
            ),
            ApiError::PoolTimeout => (
                "PGRST003".to_owned(),
                "Timed out acquiring connection from connection pool.".to_owned(),
                None,
                None,
            ),
            ApiError::NotFound => {
                ("PGRST125".to_owned(), "Invalid path specified in request URL".to_owned(), None, None)
            }
            // PostgREST has no body limit of its own (a proxy in front refuses
            // large bodies), so no code for these: named after their status, in
            // a group PostgREST does not use.
            ApiError::BodyTooLarge(limit) => (
                "PGRST413".to_owned(),
                "Request body too large".to_owned(),
                Some(Value::String(format!("The body must be at most {limit} bytes"))),
                None,
            ),
            ApiError::BodyTimeout(timeout) => (
                "PGRST408".to_owned(),
                "Request body timed out".to_owned(),
                Some(Value::String(format!("The body did not arrive within {} s", timeout.as_secs_f64()))),
                None,
            ),
            ApiError::Internal(_)
            | ApiError::NoApiKey
            | ApiError::InvalidApiKey
            | ApiError::SecretKeyInBrowser
            | ApiError::Service(_) => ("PGRSTX00".to_owned(), "Internal server error".to_owned(), None, None),
        };
        let mut response = json_response(
            status,
            json!({ "code": code, "details": details, "hint": hint, "message": message }),
        );
        let headers = response.headers_mut();
        match error {
            ApiError::Jwt(jwt) => {
                let value = format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\"",
                    jwt.to_string().replace('"', "'")
                );
                if let Ok(value) = HeaderValue::from_str(&value) {
                    headers.insert(header::WWW_AUTHENTICATE, value);
                }
            }
            ApiError::Database(_) if status == StatusCode::UNAUTHORIZED => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            ApiError::Unavailable(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        if let ApiError::Database(db) = error
            && status.is_server_error()
            && let Ok(value) = HeaderValue::from_str(&format!("PostgREST; error={}", db.code))
        {
            headers.insert(HeaderName::from_static("proxy-status"), value);
        }
        response
    }
}
