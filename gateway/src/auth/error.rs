//! Errors of the auth API, in GoTrue's shape: `{"code","message"}` for clients
//! that send `X-Supabase-Api-Version: 2024-01-01` (supabase-js always does), plus
//! the legacy `error_code` and `msg` keys, with the error code also in the
//! `x-sb-error-code` header (supabase/auth `internal/api/errors.go`).

use axum::http::StatusCode;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct AuthError {
    pub status: StatusCode,
    /// GoTrue's `error_code`, e.g. `invalid_credentials`.
    pub code: &'static str,
    pub message: String,
    /// Keys added to the body, e.g. `weak_password: {"reasons": [...]}`.
    pub extra: Map<String, Value>,
}
