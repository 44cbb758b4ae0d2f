//! The console API's one error type and its one renderer: JSON
//! `{"code", "message"}`, plus the database's own fields for the operator's
//! SQL. A server error says only that it happened; its cause goes to the log.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use gateway_core::error::ApiError;
use serde_json::json;

#[derive(Debug)]
pub enum ConsoleError {
    /// No session, or an API key or a JWT instead of one.
    Unauthorized {
        code: &'static str,
        message: &'static str,
    },
    /// A change from another origin or without the session's CSRF token.
    Forbidden {
        code: &'static str,
        message: &'static str,
    },
    NotFound,
    BadRequest(String),
    /// Too many sign-in attempts from one address.
    TooManyRequests,
    /// The operator's SQL failed: the database's error, which is theirs to read.
    Sql {
        code: String,
        message: String,
        detail: Option<String>,
        hint: Option<String>,
        position: Option<u32>,
    },
    /// A service the console called refused the request (the auth
    /// service's own error: an address in use, a weak password, a bad ban
    /// duration): its status, code and message, which are the operator's to
    /// read.
    Refused {
        status: StatusCode,
        code: String,
        message: String,
    },
    /// The database cannot be reached.
    Unavailable,
    /// Anything else; the text goes to the log only.
    Internal(String),
}

impl ConsoleError {
    pub fn status(&self) -> StatusCode {
        match self {
            ConsoleError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ConsoleError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ConsoleError::NotFound => StatusCode::NOT_FOUND,
            ConsoleError::BadRequest(_) | ConsoleError::Sql { .. } => StatusCode::BAD_REQUEST,
            ConsoleError::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ConsoleError::Refused { status, .. } => *status,
            ConsoleError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ConsoleError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn internal(error: impl std::fmt::Display) -> Self {
        ConsoleError::Internal(error.to_string())
    }

    /// An error of a statement run on the owner's connection: the
    /// database's answer, or, when the connection failed, unavailable.
    pub fn from_pg(error: tokio_postgres::Error) -> Self {
        match error.as_db_error() {
            Some(db) => ConsoleError::Sql {
                code: db.code().code().to_owned(),
                message: db.message().to_owned(),
                detail: db.detail().map(str::to_owned),
                hint: db.hint().map(str::to_owned),
                position: match db.position() {
                    Some(tokio_postgres::error::ErrorPosition::Original(at)) => Some(*at),
                    _ => None,
                },
            },
            None => {
                tracing::warn!(error = %error, "the console's connection failed");
                ConsoleError::Unavailable
            }
        }
    }
}

impl From<ApiError> for ConsoleError {
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::Unavailable(_) | ApiError::PoolTimeout => ConsoleError::Unavailable,
            other => match other.as_service::<gateway_auth::error::AuthError>() {
                Some(refused) if refused.status.is_client_error() => ConsoleError::Refused {
                    status: refused.status,
                    code: refused.code.to_owned(),
                    message: refused.message.clone(),
                },
                _ => ConsoleError::Internal(other.to_string()),
            },
        }
    }
}

/// The answer to `error`.
pub fn render(error: &ConsoleError) -> Response {
    let status = error.status();
    let body = match error {
        ConsoleError::Unauthorized { code, message } | ConsoleError::Forbidden { code, message } => {
            json!({"code": code, "message": message})
        }
        ConsoleError::NotFound => json!({"code": "not_found", "message": "Not found"}),
        ConsoleError::BadRequest(message) => json!({"code": "bad_request", "message": message}),
        ConsoleError::TooManyRequests => {
            json!({"code": "over_request_rate_limit", "message": "Too many sign-in attempts; try again later"})
        }
        ConsoleError::Sql { code, message, detail, hint, position } => json!({
            "code": code, "message": message, "detail": detail, "hint": hint, "position": position,
        }),
        ConsoleError::Refused { code, message, .. } => json!({"code": code, "message": message}),
        ConsoleError::Unavailable => {
            json!({"code": "unavailable", "message": "The database is unavailable"})
        }
        ConsoleError::Internal(cause) => {
            tracing::error!(error = %cause, "console request failed");
            json!({"code": "internal", "message": "Something went wrong; the gateway's log says what"})
        }
    };
    (status, Json(body)).into_response()
}
