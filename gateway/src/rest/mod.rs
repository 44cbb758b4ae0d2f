//! `/rest/v1`: the PostgREST-compatible API.
//!
//! Like the hosted service, every request must carry an API key, and errors take
//! PostgREST's `{"code","details","hint","message"}` shape.

pub mod error;

use axum::{Router, middleware};

use crate::caller::{Caller, require_apikey};
use crate::error::ApiError;
use crate::state::AppState;

pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        // PostgREST checks the token before it routes, so a bad token is a 401
        // whatever the path.
        .fallback(|_: Caller| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(state, require_apikey))
}
