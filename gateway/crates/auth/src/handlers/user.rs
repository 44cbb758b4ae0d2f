//! `GET /user` and `PUT /user` (supabase/auth `internal/api/user.go`;
//! wire-protocol.md §3.5): the bare user object.

use axum::{
    Json,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode},
};
use serde::Deserialize;
use serde_json::Value;

use super::mail::{self, Verification};
use super::{metadata, valid_email};
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::{Body, SignedIn};
use crate::flow_state;
use crate::mail::store as mail_store;
use crate::mfa_store;
use crate::password;
use crate::store::{self, Changes};
use gateway_core::error::ApiError;

/// The signed-in user, once its session is known to still exist: after a
/// logout the old access token gets 403 `session_not_found` here, although
/// REST keeps accepting it until it expires (as upstream documents).
pub async fn get_user(State(state): State<AuthState>, signed_in: SignedIn) -> Result<Json<Value>, ApiError> {
    Ok(Json(current_user(&state, &signed_in).await?))
}

pub(crate) async fn current_user(state: &AuthState, signed_in: &SignedIn) -> Result<Value, ApiError> {
    match store::signed_in_user(&state.db, signed_in.user_id, signed_in.session_id).await? {
        None => Err(AuthError::user_not_found().into()),
        Some((_, false)) => Err(AuthError::session_not_found().into()),
        Some((user, true)) => Ok(user),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct UserUpdate {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    nonce: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `data` is merged into `user_metadata` (a null value removes a key); a new
/// password obeys the length rules; a new e-mail is taken at once when
/// autoconfirm is on, otherwise kept as `new_email` until confirmed.
pub async fn update_user(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(update): Body<UserUpdate>,
) -> Result<Json<Value>, ApiError> {
    let current = current_user(&state, &signed_in).await?;
    let user_metadata = metadata(update.data, "data")?;
    let pkce = flow_state::params(update.code_challenge.as_deref(), update.code_challenge_method.as_deref())?;
    let email = match update.email.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        Some(email) => {
            Some(valid_email(email)?).filter(|e| current.get("email").and_then(Value::as_str) != Some(e))
        }
        None => None,
    };
    let new_password = update.password.as_deref().is_some_and(|p| !p.is_empty());
    // GoTrue's `UserUpdate`: with a verified factor, e-mail and password
    // change only in an aal2 session; an anonymous user gets a password only
    // together with an e-mail.
    if email.is_some() || new_password {
        let (aal, verified_factors) =
            mfa_store::assurance(&state.db, signed_in.user_id, signed_in.session_id).await?;
        if verified_factors > 0 && aal != "aal2" {
            let message = "AAL2 session is required to update email or password when MFA is enabled.";
            return Err(AuthError::insufficient_aal(StatusCode::UNAUTHORIZED, message).into());
        }
    }
    let anonymous = current.get("is_anonymous").and_then(Value::as_bool) == Some(true);
    let names_address = |field: &Option<String>| field.as_deref().is_some_and(|v| !v.trim().is_empty());
    if anonymous && new_password && !names_address(&update.email) && !names_address(&update.phone) {
        let message = "Updating password of an anonymous user without an email or phone is not allowed";
        return Err(AuthError::new(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed", message).into());
    }
    let password_hash = match update.password.as_deref() {
        Some(new) => {
            if state.config.mail.secure_password_change {
                check_nonce(&state, &signed_in, &current, update.nonce.as_deref()).await?;
            }
            password::check_new(new, state.config.password_min_length)?;
            Some(password::hash(new).await?)
        }
        None => None,
    };
    // Without autoconfirm, a new address is confirmed by mail
    // (`crate::handlers::mail`): recorded as pending, then mailed.
    let (email, pending_email) = match email {
        Some(email) if !state.config.autoconfirm => (None, Some(email)),
        other => (other, None),
    };
    let changes = Changes {
        email,
        email_confirmed_now: state.config.autoconfirm,
        password_hash,
        user_metadata,
        ..Changes::default()
    };
    let converted = anonymous && changes.email.is_some() && changes.email_confirmed_now;
    if let Some(new_email) = pending_email {
        mail::paced(&state, &new_email).await?;
        if !mail_store::set_new_email(&state.db, signed_in.user_id, &new_email).await? {
            return Err(AuthError::email_exists().into());
        }
        let mut user =
            mail_store::by_id(&state.db, signed_in.user_id).await?.ok_or_else(AuthError::user_not_found)?;
        user.new_email = Some(new_email);
        let redirect_to = mail::redirect_of(&state, query.as_deref(), &headers);
        mail::send_verification(&state, &user, Verification::EmailChange, &redirect_to, pkce.as_ref())
            .await?;
    }
    if let Some(phone) = update.phone.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        super::phone::change(&state, signed_in.user_id, &current, phone).await?;
    }
    match store::update_user(&state.db, signed_in.user_id, &changes).await? {
        // An anonymous user with a confirmed e-mail is permanent now
        // (GoTrue's `emailChangeVerify` on autoconfirm); without autoconfirm
        // that happens when the change is confirmed.
        Ok(Some(_)) if converted => store::make_permanent(&state.db, signed_in.user_id)
            .await?
            .map(Json)
            .ok_or_else(|| AuthError::user_not_found().into()),
        Ok(Some(user)) => Ok(Json(user)),
        Ok(None) => Err(AuthError::user_not_found().into()),
        Err(_) => Err(AuthError::email_exists().into()),
    }
}

/// `AUTH_SECURE_PASSWORD_CHANGE`: a new password needs the nonce mailed by
/// `GET /reauthenticate` (GoTrue: 400 `reauthentication_needed` without one,
/// 422 `reauthentication_not_valid` for a wrong or expired one).
async fn check_nonce(
    state: &AuthState,
    signed_in: &SignedIn,
    current: &Value,
    nonce: Option<&str>,
) -> Result<(), ApiError> {
    let Some(nonce) = nonce.map(str::trim).filter(|n| !n.is_empty()) else {
        return Err(AuthError::new(
            StatusCode::BAD_REQUEST,
            "reauthentication_needed",
            "Password update requires reauthentication",
        )
        .into());
    };
    let email = current.get("email").and_then(Value::as_str).unwrap_or("");
    let hash = crate::mail::token_hash(email, nonce);
    if !mail_store::consume_nonce(&state.db, signed_in.user_id, &hash, state.config.mail.mailer_otp_exp)
        .await?
    {
        return Err(AuthError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "reauthentication_not_valid",
            "Requested nonce is invalid or expired",
        )
        .into());
    }
    Ok(())
}
