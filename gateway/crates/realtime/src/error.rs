//! Errors of Realtime's HTTP API: `{"message": ...}`, Phoenix's `ErrorView`
//! as Realtime renders it (supabase/realtime
//! `lib/realtime_web/views/error_view.ex`).

use axum::http::StatusCode;
use axum::response::Response;
use gateway_core::error::{ApiError, ErrorShape, ServiceFault, json_response, log_failure};
use serde_json::json;

/// A client error of Realtime's HTTP API, with its status and message.
#[derive(Debug, Clone, PartialEq)]
pub struct RealtimeError {
    pub status: StatusCode,
    pub message: String,
    /// The body's one key: `message` for the HTTP API, `error` for a
    /// WebSocket refused before its upgrade (Realtime's
    /// `UserSocket.handle_error`).
    pub key: &'static str,
}

impl RealtimeError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), key: "message" }
    }

    /// A WebSocket refused before its upgrade: `{"error": message}`.
    pub fn socket(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), key: "error" }
    }
}

impl std::fmt::Display for RealtimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl ServiceFault for RealtimeError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn render(&self) -> Response {
        let mut body = serde_json::Map::new();
        body.insert(self.key.to_owned(), self.message.clone().into());
        json_response(self.status, body.into())
    }
}

impl From<RealtimeError> for ApiError {
    fn from(error: RealtimeError) -> Self {
        ApiError::service(error)
    }
}

/// Realtime's shape for the errors every service shares.
pub struct Phoenix;

impl ErrorShape for Phoenix {
    fn render(error: &ApiError) -> Response {
        let (status, message) = match error {
            ApiError::NotFound => (StatusCode::NOT_FOUND, "Not Found"),
            // Realtime's `FallbackController` answers any other refusal so.
            ApiError::Jwt(_) => (StatusCode::UNAUTHORIZED, "Unauthorized"),
            ApiError::Database(db) if db.code == "42501" => (StatusCode::FORBIDDEN, "Unauthorized"),
            ApiError::BodyTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large"),
            ApiError::BodyTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "Request Timeout"),
            ApiError::Unavailable(_) | ApiError::PoolTimeout => {
                (StatusCode::SERVICE_UNAVAILABLE, "Realtime was unable to connect to the project database")
            }
            _ => {
                if !error.status().is_server_error() {
                    log_failure(error);
                }
                (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error")
            }
        };
        json_response(status, json!({ "message": message }))
    }
}
