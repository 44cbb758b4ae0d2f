//! `/rest/v1`: the PostgREST-compatible API.
//!
//! Like the hosted service, every request must carry an API key, and errors take
//! PostgREST's `{"code","details","hint","message"}` shape.

use axum::{Router, middleware};

use crate::caller::require_apikey;
use crate::error::ApiError;
use crate::state::AppState;

pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(state, require_apikey))
}
