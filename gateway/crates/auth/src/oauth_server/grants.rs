//! `GET /user/oauth/grants` and `DELETE /user/oauth/grants?client_id=`: the
//! signed-in user's consents to OAuth clients (supabase/auth
//! `internal/api/oauthserver/handlers.go`, `UserListOAuthGrants`,
//! `UserRevokeOAuthGrant`). Revoking one also ends every session issued to
//! that client for the user, so its refresh tokens stop working.

use axum::{
    Json,
    extract::{RawQuery, State},
    http::StatusCode,
};
use chrono::SecondsFormat;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{enabled, scopes, store};
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::SignedIn;
use crate::handlers::query_param;
use crate::handlers::user::current_user;
use gateway_core::error::ApiError;

pub async fn list(State(state): State<AuthState>, signed_in: SignedIn) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    current_user(&state, &signed_in).await?;
    let grants = store::grants(&state.db, signed_in.user_id).await?;
    let grants: Vec<Value> = grants
        .iter()
        .map(|(client, granted, at)| {
            json!({
                "client": client.details(),
                "scopes": scopes(granted),
                "granted_at": at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            })
        })
        .collect();
    Ok(Json(Value::Array(grants)))
}

pub async fn revoke(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    RawQuery(query): RawQuery,
) -> Result<StatusCode, ApiError> {
    enabled(&state)?;
    let client_id = query_param(query.as_deref(), "client_id")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| AuthError::validation_failed("client_id query parameter is required"))?;
    let client_id =
        Uuid::parse_str(&client_id).map_err(|_| AuthError::validation_failed("invalid client_id format"))?;
    current_user(&state, &signed_in).await?;
    if !store::revoke_grant(&state.db, signed_in.user_id, client_id).await? {
        return Err(AuthError::oauth_consent_not_found().into());
    }
    Ok(StatusCode::NO_CONTENT)
}
