//! One internal error type and three renderers.
//!
//! Handlers return `Result<_, ApiError>`. `ApiError` turns into a response in
//! PostgREST's shape and carries itself in the response's extensions; the auth and
//! storage routers re-render it in GoTrue's and Storage's shapes with
//! [`render_as`]. 5xx bodies never carry internals: the cause goes to the log.
//!
//! Shapes copied:
//! - PostgREST `{"code","details","hint","message"}`, statuses from `mapSQLtoHTTP`
//!   (<https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/Error.hs>).
//! - GoTrue `{"code","message"}` for `X-Supabase-Api-Version: 2024-01-01`, plus the
//!   legacy `error_code`/`msg` keys (supabase/auth `internal/api/errors.go`).
//! - Storage `{"statusCode":"<string>","code","error","message"}` sent as HTTP 400
//!   with the real status in `statusCode` (supabase/storage `src/http/error-handler.ts`).
//! - The hosted API gateway's key check: `{"message":"No API key found in request"}`
//!   (supabase/supabase `docker/volumes/api/kong.yml`).

use std::sync::Arc;

use axum::{
    extract::Request,
    http::{HeaderName, HeaderValue, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use crate::auth::error::AuthError;
use crate::jwt::JwtError;
use crate::rest::error::RestError;
use crate::role::Role;
use crate::storage::error::StorageError;

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
    /// An error from PostgREST's own catalogue (`rest::error`).
    #[error("{}: {}", .0.code, .0.message)]
    Rest(RestError),
    /// An error from GoTrue's catalogue (`auth::error`).
    #[error("{}: {}", .0.code, .0.message)]
    Auth(AuthError),
    /// An error from Storage's catalogue (`storage::error`).
    #[error("{}: {}", .0.code, .0.message)]
    Storage(StorageError),
    /// A client error of Realtime's HTTP API, with its status and message.
    #[error("{1}")]
    Realtime(StatusCode, String),
}

impl ApiError {
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::Internal(cause.to_string())
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

    /// HTTP status as PostgREST reports it.
    fn rest_status(&self) -> StatusCode {
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
            Self::Internal(_) | Self::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Rest(e) => e.status,
            Self::Auth(e) => e.status,
            Self::Realtime(status, _) => *status,
        }
    }

    /// Logs a server error's cause, once per cause in a while (`logs`).
    fn log(&self, status: StatusCode) {
        if status.is_server_error() {
            log_failure(self);
        }
    }
}

fn log_failure(error: &ApiError) {
    const FAILED: &str = "request failed";
    if crate::logs::first_in_a_while(tracing::Level::ERROR, FAILED, &error.to_string()) {
        tracing::error!(error = %error, "{FAILED}");
    }
}

/// PostgREST's `mapSQLtoHTTP`: the SQLSTATE decides the status.
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
fn client_data_error(db: &DbError) -> Option<StatusCode> {
    matches!(db.code.get(..2), Some("22" | "23")).then(|| sqlstate_status(&db.code, db.role))
}

/// The three wire shapes, one per service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    PostgRest,
    GoTrue,
    Storage,
    /// Storage's TUS routes (`/storage/v1/upload/resumable`): the same error
    /// as [`Shape::Storage`], sent as its message in plain text with the real
    /// status, as tus-node-server writes the errors Storage hands it
    /// (supabase/storage `src/http/routes/tus/lifecycle.ts`, `getTusError`).
    StorageText,
    /// Realtime's HTTP API: `{"message": ...}`, Phoenix's `ErrorView` as
    /// Realtime renders it (supabase/realtime `lib/realtime_web/views/error_view.ex`).
    Realtime,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // Logged here, where every error passes exactly once; `render_as` may
        // render it again in another shape. Storage's own errors carry their
        // real status: a missing object is no server error.
        let status = match &self {
            ApiError::Storage(e) => e.status_code.parse().ok().and_then(|n| StatusCode::from_u16(n).ok()),
            _ => None,
        };
        self.log(status.unwrap_or_else(|| self.rest_status()));
        let error = Arc::new(self);
        let mut response = render(&error, Shape::PostgRest);
        response.extensions_mut().insert(error);
        response
    }
}

/// Middleware for a service's router: errors raised inside it (including by
/// extractors) are rendered in that service's shape.
pub async fn render_as(shape: Shape, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if shape == Shape::PostgRest {
        return response;
    }
    match response.extensions().get::<Arc<ApiError>>() {
        Some(error) => render(error, shape),
        None => response,
    }
}

fn render(error: &ApiError, shape: Shape) -> Response {
    // The key check happens in front of every service and answers the same way.
    if let ApiError::NoApiKey | ApiError::InvalidApiKey | ApiError::SecretKeyInBrowser = error {
        let hint = match error {
            ApiError::NoApiKey => "No `apikey` request header or url param was found.",
            ApiError::SecretKeyInBrowser => {
                "Secret API keys can only be used in a protected environment and should never be used in a \
                 browser. Use a publishable key instead."
            }
            _ => "Double check your Supabase `anon` or `service_role` API key.",
        };
        return json_response(
            StatusCode::UNAUTHORIZED,
            json!({ "message": error.to_string(), "hint": hint }),
        );
    }
    let status = error.rest_status();
    // A service's own errors keep their service's shape wherever they surface.
    let shape = match error {
        ApiError::Rest(_) => Shape::PostgRest,
        ApiError::Auth(_) => Shape::GoTrue,
        ApiError::Storage(_) if shape != Shape::StorageText => Shape::Storage,
        ApiError::Realtime(..) => Shape::Realtime,
        _ => shape,
    };
    match shape {
        Shape::PostgRest => render_postgrest(error, status),
        Shape::GoTrue => render_gotrue(error),
        Shape::Storage => render_storage(error),
        Shape::StorageText => render_storage_text(error),
        Shape::Realtime => render_realtime(error),
    }
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json; charset=utf-8")], body.to_string()).into_response()
}

fn render_postgrest(error: &ApiError, status: StatusCode) -> Response {
    let text = |s: &Option<String>| s.clone().map(Value::String);
    let (code, message, details, hint): (String, String, Option<Value>, Option<String>) = match error {
        ApiError::Jwt(jwt) => (jwt.postgrest_code().to_owned(), jwt.to_string(), None, None),
        ApiError::Rest(e) => (e.code.to_owned(), e.message.clone(), e.details.clone(), e.hint.clone()),
        ApiError::Database(db) => {
            let message = if status.is_server_error() && db.code != "57014" {
                "Database error".to_owned()
            } else {
                db.message.clone()
            };
            (db.code.clone(), message, text(&db.details), db.hint.clone())
        }
        ApiError::Unavailable(_) => {
            ("PGRST001".to_owned(), "Database client error. Retrying the connection.".to_owned(), None, None)
        }
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
        | ApiError::Auth(_)
        | ApiError::Storage(_)
        | ApiError::Realtime(..) => ("PGRSTX00".to_owned(), "Internal server error".to_owned(), None, None),
    };
    let mut response =
        json_response(status, json!({ "code": code, "details": details, "hint": hint, "message": message }));
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

fn render_gotrue(error: &ApiError) -> Response {
    let mut extra = serde_json::Map::new();
    let (status, code, message) = match error {
        ApiError::Auth(e) => {
            extra = e.extra.clone();
            (e.status, e.code, e.message.clone())
        }
        ApiError::Jwt(jwt) => (
            StatusCode::FORBIDDEN,
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {jwt}"),
        ),
        ApiError::NotFound => (StatusCode::NOT_FOUND, "not_found", "Not Found".to_owned()),
        // GoTrue has no body limit, so no code for it; `request_timeout` is
        // its own (`apierrors/errorcode.go`), used by its request timeout.
        ApiError::BodyTooLarge(limit) => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "request_too_large",
            format!("Request body too large: the limit is {limit} bytes"),
        ),
        ApiError::BodyTimeout(_) => {
            (StatusCode::REQUEST_TIMEOUT, "request_timeout", "Request body did not arrive in time".to_owned())
        }
        ApiError::Database(db) if let Some(status) = client_data_error(db) => {
            let code = if status == StatusCode::CONFLICT { "conflict" } else { "validation_failed" };
            (status, code, db.message.clone())
        }
        ApiError::Unavailable(_) | ApiError::PoolTimeout => (
            StatusCode::SERVICE_UNAVAILABLE,
            "unexpected_failure",
            "Service temporarily unavailable".to_owned(),
        ),
        _ => {
            // Whatever PostgREST would make of it, here it is a server error:
            // the cause goes to the log.
            if !error.rest_status().is_server_error() {
                log_failure(error);
            }
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Unexpected failure, please check server logs for more information".to_owned(),
            )
        }
    };
    // An OAuth 2.0 error carries only `error` and `error_description`.
    if code.is_empty() {
        return json_response(status, Value::Object(extra));
    }
    let mut body = json!({ "code": code, "error_code": code, "msg": message, "message": message });
    if let Value::Object(map) = &mut body {
        map.extend(extra);
    }
    let mut response = json_response(status, body);
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("x-supabase-api-version"), HeaderValue::from_static("2024-01-01"));
    headers.insert(HeaderName::from_static("x-sb-error-code"), HeaderValue::from_static(code));
    response
}

fn render_realtime(error: &ApiError) -> Response {
    let (status, message) = match error {
        ApiError::Realtime(status, message) => (*status, message.clone()),
        ApiError::NotFound => (StatusCode::NOT_FOUND, "Not Found".to_owned()),
        // Realtime's `FallbackController` answers any other refusal so.
        ApiError::Jwt(_) => (StatusCode::UNAUTHORIZED, "Unauthorized".to_owned()),
        ApiError::Database(db) if db.code == "42501" => (StatusCode::FORBIDDEN, "Unauthorized".to_owned()),
        ApiError::BodyTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large".to_owned()),
        ApiError::BodyTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "Request Timeout".to_owned()),
        ApiError::Unavailable(_) | ApiError::PoolTimeout => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Realtime was unable to connect to the project database".to_owned(),
        ),
        _ => {
            if !error.rest_status().is_server_error() {
                log_failure(error);
            }
            (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error".to_owned())
        }
    };
    json_response(status, json!({ "message": message }))
}

/// A 404 in a service's shape, for a path none of its routes serves.
pub fn not_found(shape: Shape) -> Response {
    render(&ApiError::NotFound, shape)
}

fn render_storage(error: &ApiError) -> Response {
    let (status, code, title, message) = storage_fields(error);
    // Storage answers 400 for client errors and keeps the real status in the body;
    // server errors pass through as themselves.
    let http = match status.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok()) {
        Some(real) if real.is_server_error() => real,
        _ => StatusCode::BAD_REQUEST,
    };
    json_response(http, json!({ "statusCode": status, "code": code, "error": title, "message": message }))
}

fn render_storage_text(error: &ApiError) -> Response {
    let (status, _, _, message) = storage_fields(error);
    let status = status.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok());
    let mut response = (
        status.unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message,
    )
        .into_response();
    // Every TUS answer names the protocol version (TUS 1.0, "Tus-Resumable"),
    // and a refused one the versions served, which a 412 must.
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("tus-resumable"), HeaderValue::from_static("1.0.0"));
    headers.insert(HeaderName::from_static("tus-version"), HeaderValue::from_static("1.0.0"));
    response
}

/// Storage's status (a string), code, title and message for an error.
fn storage_fields(error: &ApiError) -> (&'static str, &'static str, &'static str, String) {
    match error {
        ApiError::Storage(e) => (e.status_code, e.code, e.error, e.message.clone()),
        ApiError::Jwt(jwt) => ("403", "AccessDenied", "Unauthorized", jwt.to_string()),
        ApiError::Database(db) if db.code == "42501" => {
            ("403", "AccessDenied", "Unauthorized", "new row violates row-level security policy".to_owned())
        }
        ApiError::Database(db) if let Some(status) = client_data_error(db) => {
            // Classes 22 and 23 map to 400 or 409 alone.
            let status = if status == StatusCode::CONFLICT { "409" } else { "400" };
            (status, "InvalidRequest", "Invalid Request", db.message.clone())
        }
        ApiError::NotFound => ("404", "NotFound", "Not Found", "Route not found".to_owned()),
        // Storage's own `EntityTooLarge` (`ERRORS.EntityTooLarge`, entity
        // "request body"); it has no code for a timeout.
        ApiError::BodyTooLarge(_) => (
            "413",
            "EntityTooLarge",
            "Payload too large",
            "The request body exceeded the maximum allowed size".to_owned(),
        ),
        ApiError::BodyTimeout(_) => {
            ("408", "InvalidRequest", "Request Timeout", "The request body did not arrive in time".to_owned())
        }
        ApiError::Unavailable(_) | ApiError::PoolTimeout => {
            ("503", "DatabaseTimeout", "Service Unavailable", "The database is not available".to_owned())
        }
        _ => ("500", "InternalError", "Internal Server Error", "Internal Server Error".to_owned()),
    }
}

#[cfg(test)]
mod tests {
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
            let _ = ApiError::Storage(StorageError::no_such_key()).into_response();
            let _ = ApiError::internal("a bug only this test makes").into_response();
        });
        let logs = String::from_utf8(captured.0.lock().expect("logs").clone()).expect("utf-8");
        assert!(logs.contains("a bug only this test makes"), "{logs}");
        assert_eq!(logs.lines().count(), 1, "{logs}");
    }

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
    fn each_service_renders_a_bad_token_in_its_own_shape() {
        let error = ApiError::Jwt(JwtError::Expired);
        let cases = [
            (
                Shape::PostgRest,
                401,
                json!({"code":"PGRST303","details":null,"hint":null,"message":"JWT expired"}),
            ),
            (
                Shape::GoTrue,
                403,
                json!({"code":"bad_jwt","error_code":"bad_jwt",
                       "msg":"invalid JWT: unable to parse or verify signature, JWT expired",
                       "message":"invalid JWT: unable to parse or verify signature, JWT expired"}),
            ),
            (
                Shape::Storage,
                400,
                json!({"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"JWT expired"}),
            ),
        ];
        for (shape, status, body) in cases {
            assert_eq!(rendered(&error, shape), (status, body), "{shape:?}");
        }
    }

    #[test]
    fn body_limits_answer_in_each_services_shape() {
        // (error, shape, HTTP status, code)
        let cases = [
            (ApiError::BodyTooLarge(10), Shape::PostgRest, 413, "PGRST413"),
            (ApiError::BodyTooLarge(10), Shape::GoTrue, 413, "request_too_large"),
            (ApiError::BodyTooLarge(10), Shape::Storage, 400, "EntityTooLarge"),
            (ApiError::BodyTimeout(std::time::Duration::from_secs(3)), Shape::PostgRest, 408, "PGRST408"),
            (ApiError::BodyTimeout(std::time::Duration::from_secs(3)), Shape::GoTrue, 408, "request_timeout"),
            (ApiError::BodyTimeout(std::time::Duration::from_secs(3)), Shape::Storage, 400, "InvalidRequest"),
        ];
        for (error, shape, status, code) in cases {
            let (got, body) = rendered(&error, shape);
            assert_eq!((got, body["code"].as_str()), (status, Some(code)), "{error} as {shape:?}: {body}");
        }
    }

    #[test]
    fn server_errors_never_carry_internals() {
        let error = ApiError::Internal("connection string postgres://secret@host".to_owned());
        for shape in [Shape::PostgRest, Shape::GoTrue, Shape::Storage] {
            let (status, body) = rendered(&error, shape);
            assert_eq!(status, 500, "{shape:?}");
            assert!(!body.to_string().contains("secret"), "{shape:?}: {body}");
        }
    }

    fn rendered(error: &ApiError, shape: Shape) -> (u16, Value) {
        let response = render(error, shape);
        let status = response.status().as_u16();
        let bytes =
            futures::executor::block_on(axum::body::to_bytes(response.into_body(), 1 << 16)).expect("body");
        (status, serde_json::from_slice(&bytes).expect("json"))
    }
}
