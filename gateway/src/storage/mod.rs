//! `/storage/v1`: the Storage-compatible API.
//!
//! No API key is demanded here (the hosted gateway does not check one): Storage
//! reads only the `Authorization` JWT, and public object URLs need nothing at all.
//! Errors take Storage's shape.

pub mod error;

use axum::{Router, middleware};

use crate::error::{ApiError, Shape, render_as};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn(|request, next| render_as(Shape::Storage, request, next)))
}
