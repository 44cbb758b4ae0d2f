//! One internal error type; each service renders it in its own shape.
//!
//! Handlers return `Result<_, ApiError>`. The kernel knows the failures every
//! service shares (a missing or bad key or token, a database error, an
//! outage, a body over its limits, a bug) and nothing of any service's wire
//! shape: each service implements [`ErrorShape`] to render them, and wraps
//! its router in [`shaped`]. A service's own catalogue (PostgREST's `PGRST`
//! codes, GoTrue's error codes, Storage's) is a [`ServiceFault`], carried in
//! [`ApiError::Service`], which renders itself in its service's shape
//! wherever it surfaces. 5xx bodies never carry internals: the cause goes to
//! the log, once, where the error turns into a response.
//!
//! The one shape shared by every service is the hosted API gateway's key
//! check: `{"message":"No API key found in request"}` (supabase/supabase
//! `docker/volumes/api/kong.yml`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use axum::{
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};
use tower::util::MapResponseLayer;

use crate::jwt::JwtError;
use crate::role::Role;

/// A PostgreSQL error raised while serving a request.
#[derive(Debug, Clone)]
pub struct DbError {
    /// SQLSTATE, e.g. `42501`.
    pub code: String,
    pub message: String,
    pub details: Option<String>,
    pub hint: Option<String>,
    /// Who ran the statement: PostgREST answers 42501 with 401 to anonymous
    /// callers and 403 to callers with a token.
    pub role: Role,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("No API key found in request")]
    NoApiKey,
    #[error("Invalid API key")]
    InvalidApiKey,
    /// A secret key from a browser (Supabase refuses it by `User-Agent`).
    #[error("Forbidden use of secret API key in browser")]
    SecretKeyInBrowser,
    #[error("{0}")]
    Jwt(#[from] JwtError),
    #[error("database error {}: {}", .0.code, .0.message)]
    Database(DbError),
    /// The database cannot be reached or the connection broke (PGRST000/001).
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// No pooled connection freed up in time (PGRST003).
    #[error("timed out acquiring a connection from the pool")]
    PoolTimeout,
    #[error("not found")]
    NotFound,
    /// The request body is larger than the limit, in bytes (`crate::body`).
    #[error("request body larger than {0} bytes")]
    BodyTooLarge(u64),
    /// The request body did not arrive within the body timeout.
    #[error("request body not received within {0:?}")]
    BodyTimeout(std::time::Duration),
    /// A bug or an unexpected failure; the text goes to the log only.
    #[error("internal error: {0}")]
    Internal(String),
    /// An error from one service's own catalogue.
    #[error("{0}")]
    Service(ServiceError),
}

/// An error of one service's own catalogue, which that service renders.
pub trait ServiceFault: fmt::Display + fmt::Debug + Any + Send + Sync {
    /// The status it answers with; a server error is logged.
    fn status(&self) -> StatusCode;
    /// The answer, in its service's shape.
    fn render(&self) -> Response;
}

/// A [`ServiceFault`], shared (responses carry it in their extensions).
#[derive(Clone, Debug)]
pub struct ServiceError(Arc<dyn ServiceFault>);

impl ServiceError {
    pub fn fault(&self) -> &dyn ServiceFault {
        &*self.0
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl ApiError {
    pub fn internal(cause: impl fmt::Display) -> Self {
        Self::Internal(cause.to_string())
    }

    /// Wraps a service's own error.
    pub fn service(fault: impl ServiceFault) -> Self {
        Self::Service(ServiceError(Arc::new(fault)))
    }

    /// The service error of type `T` this is, if it is one.
    pub fn as_service<T: ServiceFault>(&self) -> Option<&T> {
        match self {
            Self::Service(error) => (error.fault() as &dyn Any).downcast_ref::<T>(),
            _ => None,
        }
    }

    pub fn from_pg(err: tokio_postgres::Error, role: Role) -> Self {
        if let Some(db) = err.as_db_error() {
            let code = db.code().code();
            // Connection-class errors and an administrator shutting the backend down
            // are transient: 503 like PostgREST, not a client error.
            if code.starts_with("08") || code == "57P01" || code == "57P02" || code == "57P03" {
                return Self::Unavailable(db.message().to_owned());
            }
            return Self::Database(DbError {
                code: code.to_owned(),
                message: db.message().to_owned(),
                details: db.detail().map(str::to_owned),
                hint: db.hint().map(str::to_owned),
                role,
            });
        }
        // Lost connections and I/O failures are outages; anything else (a
        // statement the gateway built wrong) is a bug, never a 503 that
        // supabase-js would retry.
        let io = std::error::Error::source(&err).is_some_and(|s| s.is::<std::io::Error>());
        if err.is_closed() || io {
            return Self::Unavailable(err.to_string());
        }
        Self::Internal(err.to_string())
    }

    /// The status this error stands for before any service shapes it, by
    /// PostgreSQL's error classes as PostgREST maps them: what decides
    /// whether it is logged as a server error.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::NoApiKey | Self::InvalidApiKey | Self::SecretKeyInBrowser | Self::Jwt(_) => {
                StatusCode::UNAUTHORIZED
            }
            Self::Database(db) => sqlstate_status(&db.code, db.role),
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::PoolTimeout => StatusCode::GATEWAY_TIMEOUT,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Service(error) => error.fault().status(),
        }
    }
}

/// Logs a failed request's cause, the first time in a while (`crate::logs`).
/// A service's renderer calls it for an error it answers with a 5xx that the
/// kernel did not count as one.
pub fn log_failure(error: &ApiError) {
    const FAILED: &str = "request failed";
    if crate::logs::first_in_a_while(tracing::Level::ERROR, FAILED, &error.to_string()) {
        tracing::error!(error = %error, "{FAILED}");
    }
}

/// PostgREST's `mapSQLtoHTTP`: the SQLSTATE decides the status
/// (<https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/Error.hs>).
pub fn sqlstate_status(code: &str, role: Role) -> StatusCode {
    let class = code.get(..2).unwrap_or("");
    match code {
        "42501" if role == Role::Anon => StatusCode::UNAUTHORIZED,
        "42501" => StatusCode::FORBIDDEN,
        "23503" | "23505" => StatusCode::CONFLICT,
        "25006" => StatusCode::METHOD_NOT_ALLOWED,
        "42883" | "42P01" => StatusCode::NOT_FOUND,
        "40001" => StatusCode::CONFLICT,
        "P0001" => StatusCode::BAD_REQUEST,
        "57014" => StatusCode::INTERNAL_SERVER_ERROR,
        // `RAISE sqlstate 'PT404'` chooses the status itself (PostgREST docs,
        // "Raise errors with HTTP Status Codes").
        _ if code.len() == 5 && code.starts_with("PT") => code[2..]
            .parse::<u16>()
            .ok()
            .and_then(|n| StatusCode::from_u16(n).ok())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        _ => match class {
            "08" => StatusCode::SERVICE_UNAVAILABLE,
            "09" | "0L" | "0P" | "28" => StatusCode::FORBIDDEN,
            "0A" => StatusCode::NOT_IMPLEMENTED,
            "21" | "22" | "23" | "2F" | "3F" | "42" | "44" | "P0" => StatusCode::BAD_REQUEST,
            "25" | "38" | "39" | "2D" | "40" | "3B" | "XX" | "57" | "58" | "F0" | "HV" => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            "53" | "54" => StatusCode::SERVICE_UNAVAILABLE,
            "55" => StatusCode::INTERNAL_SERVER_ERROR,
            "P1" => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        },
    }
}

/// The status of a PostgreSQL error that the client's data caused, for the
/// services whose statements the gateway writes whole (auth, storage): a data
/// exception (class 22: a NUL byte, `\u0000` in JSON, a number out of range)
/// or an integrity violation (class 23: a bucket deleted while an upload into
/// it ran). Any other error there is the gateway's own, a 500.
pub fn client_data_error(db: &DbError) -> Option<StatusCode> {
    matches!(db.code.get(..2), Some("22" | "23")).then(|| sqlstate_status(&db.code, db.role))
}

/// A service's wire shape for the kernel's errors.
pub trait ErrorShape: 'static {
    /// The answer to one of the kernel's errors (never a key refusal, which
    /// every service answers alike, nor a [`ServiceFault`]).
    fn render(error: &ApiError) -> Response;

    /// The answer to a service's own error: by default in its own shape.
    fn render_fault(fault: &dyn ServiceFault) -> Response {
        fault.render()
    }
}

/// `error` in shape `S`.
pub fn render<S: ErrorShape>(error: &ApiError) -> Response {
    if let Some(refusal) = key_refusal(error) {
        return refusal;
    }
    match error {
        ApiError::Service(service) => S::render_fault(service.fault()),
        _ => S::render(error),
    }
}

/// The layer of a service's router: errors raised inside it (including by
/// extractors and middleware) answer in shape `S`. A map over the response,
/// with no allocation: a response that carries no error passes untouched.
pub fn shaped<S: ErrorShape>() -> MapResponseLayer<fn(Response) -> Response> {
    MapResponseLayer::new(reshape::<S> as fn(Response) -> Response)
}

/// What [`shaped`] does to each answer, for a service that is no router.
pub fn reshape<S: ErrorShape>(mut response: Response) -> Response {
    // Taken out, so that a router around this one leaves the answer as is.
    let Some(error) = response.extensions_mut().remove::<Arc<ApiError>>() else {
        return response;
    };
    let mut shaped = render::<S>(&error);
    // Headers a handler set on the answer after the error was made stay
    // (PostgREST's 416 carries `Content-Range: */<total>`); the bare answer
    // set only its content type.
    let headers = response.headers();
    for name in headers.keys() {
        if name == header::CONTENT_TYPE
            || name == header::CONTENT_LENGTH
            || shaped.headers().contains_key(name)
        {
            continue;
        }
        for value in headers.get_all(name) {
            shaped.headers_mut().append(name.clone(), value.clone());
        }
    }
    shaped
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // Logged here, where every error passes exactly once; the service's
        // layer renders it in its shape ([`shaped`]). Until then the answer
        // is a bare one, with the error in its extensions.
        let status = self.status();
        if status.is_server_error() {
            log_failure(&self);
        }
        let error = Arc::new(self);
        let mut response = key_refusal(&error).unwrap_or_else(|| {
            let message =
                if status.is_server_error() { "Internal Server Error".to_owned() } else { error.to_string() };
            json_response(status, json!({ "message": message }))
        });
        response.extensions_mut().insert(error);
        response
    }
}

/// The key check happens in front of every service and answers the same way.
fn key_refusal(error: &ApiError) -> Option<Response> {
    let hint = match error {
        ApiError::NoApiKey => "No `apikey` request header or url param was found.",
        ApiError::SecretKeyInBrowser => {
            "Secret API keys can only be used in a protected environment and should never be used in a \
             browser. Use a publishable key instead."
        }
        ApiError::InvalidApiKey => "Double check your Supabase `anon` or `service_role` API key.",
        _ => return None,
    };
    Some(json_response(StatusCode::UNAUTHORIZED, json!({ "message": error.to_string(), "hint": hint })))
}

/// A JSON answer, as every service's renderer writes one.
pub fn json_response(status: StatusCode, body: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json; charset=utf-8")], body.to_string()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlstates_map_to_postgrest_statuses() {
        let cases = [
            ("42501", Role::Anon, 401),
            ("42501", Role::Authenticated, 403),
            ("23505", Role::Authenticated, 409),
            ("23503", Role::Authenticated, 409),
            ("25006", Role::Anon, 405),
            ("42P01", Role::Anon, 404),
            ("42883", Role::Anon, 404),
            ("P0001", Role::Anon, 400),
            ("22P02", Role::Anon, 400),
            ("57014", Role::Anon, 500),
            ("53300", Role::Anon, 503),
            ("0A000", Role::Anon, 501),
            ("XX000", Role::Anon, 500),
            ("PT418", Role::Anon, 418),
        ];
        for (code, role, status) in cases {
            assert_eq!(sqlstate_status(code, role).as_u16(), status, "{code} as {role:?}");
        }
    }

    #[test]
    fn a_shaped_answer_keeps_the_headers_set_after_the_error() {
        struct Teapot;
        impl ErrorShape for Teapot {
            fn render(_: &ApiError) -> Response {
                (StatusCode::IM_A_TEAPOT, [(header::CONTENT_TYPE, "text/plain")], "shaped").into_response()
            }
        }
        let mut response = ApiError::NotFound.into_response();
        response.headers_mut().insert(header::CONTENT_RANGE, header::HeaderValue::from_static("*/3"));
        let shaped = reshape::<Teapot>(response);
        assert_eq!(shaped.status(), StatusCode::IM_A_TEAPOT);
        assert_eq!(shaped.headers()[header::CONTENT_RANGE], "*/3");
        assert_eq!(shaped.headers()[header::CONTENT_TYPE], "text/plain");
        assert!(shaped.extensions().get::<Arc<ApiError>>().is_none(), "an outer layer leaves it alone");
    }

    #[test]
    fn a_bare_server_error_carries_no_internals() {
        let response =
            ApiError::Internal("connection string postgres://secret@host".to_owned()).into_response();
        assert_eq!(response.status(), 500);
        let bytes =
            futures::executor::block_on(axum::body::to_bytes(response.into_body(), 1 << 16)).expect("body");
        assert!(!String::from_utf8_lossy(&bytes).contains("secret"));
    }
}
