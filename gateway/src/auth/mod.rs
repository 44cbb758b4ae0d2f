//! `/auth/v1`: the GoTrue-compatible API.
//!
//! Every route but the ones the hosted gateway leaves open (`/verify`,
//! `/callback`, `/authorize`, `/.well-known/jwks.json`) needs an API key; errors
//! take GoTrue's shape.

pub mod error;

use axum::{Router, middleware};

use crate::caller::require_apikey;
use crate::error::{ApiError, Shape, render_as};
use crate::state::AppState;

pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(state, require_apikey))
        .layer(middleware::from_fn(|request, next| render_as(Shape::GoTrue, request, next)))
}
