//! Errors PostgREST raises itself (as opposed to SQLSTATEs from PostgreSQL), in
//! its `{"code","details","hint","message"}` shape
//! (<https://docs.postgrest.org/en/stable/references/errors.html>).

use axum::http::StatusCode;
use serde_json::Value;

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
