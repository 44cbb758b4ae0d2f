//! `POST /logout?scope=global|local|others` (supabase/auth
//! `internal/api/logout.go`; wire-protocol.md §3.6): 204 and an empty body.
//! Ending a session deletes its refresh tokens with it (`on delete cascade`).

use axum::{
    extract::{RawQuery, State},
    http::StatusCode,
};

use super::query_param;
use super::user::current_user;
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::SignedIn;
use crate::store::{self, Scope};
use gateway_core::error::ApiError;

pub async fn logout(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    RawQuery(query): RawQuery,
) -> Result<StatusCode, ApiError> {
    let scope = match query_param(query.as_deref(), "scope").as_deref() {
        None | Some("global") => Scope::Global,
        Some("local") => Scope::Local,
        Some("others") => Scope::Others,
        Some(other) => {
            return Err(AuthError::validation_failed(format!("Unsupported logout scope {other:?}")).into());
        }
    };
    current_user(&state, &signed_in).await?;
    store::end_sessions(&state.db, signed_in.user_id, signed_in.session_id, scope).await?;
    Ok(StatusCode::NO_CONTENT)
}
