//! The phone flows of `/auth/v1` (supabase/auth `internal/api/otp.go`
//! `SmsOtp`, `resend.go`, `verify.go` `smsVerify`, `user.go` phone change):
//! each sends one code by SMS ([`crate::sms`]) that `POST /verify` then takes
//! with the phone, `{phone, token, type: "sms" | "phone_change"}`.
//!
//! Unlike the e-mail flows these answer after the SMS is sent, as GoTrue's
//! do: the answer carries the provider's `message_id`, and a provider's
//! refusal is the caller's 422 `sms_send_failed`.

use axum::Json;
use serde_json::{Value, json};
use uuid::Uuid;

use super::valid_phone;
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::sms::{self, Slot, Verification};
use crate::store::{self, Login, NewUser, SignIn, method};
use crate::tokens;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// `signInWithOtp({ phone })`: a code to a known phone (its sign-up code
/// while unconfirmed); an unknown one becomes a user first when
/// `create_user`, else 422 `otp_disabled`.
pub async fn otp(
    state: &AuthState,
    phone: &str,
    channel: Option<&str>,
    create_user: bool,
    data: Option<Value>,
) -> Result<Json<Value>, ApiError> {
    sms::enabled(state)?;
    let phone = valid_phone(phone)?;
    let channel = sms::channel(&state.config.sms, channel)?;
    let user = match sms::by_phone(state, &phone).await? {
        Some(user) => user,
        None if create_user => {
            if !state.config.signup_enabled {
                return Err(AuthError::signup_disabled().into());
            }
            new_phone_user(state, &phone, data.unwrap_or_else(|| json!({})), None).await?
        }
        None => return Err(AuthError::unprocessable("otp_disabled", "Signups not allowed for otp").into()),
    };
    let slot = if user.phone_confirmed { Slot::Recovery } else { Slot::Confirmation };
    let message_id = sms::send_code(state, user.id, &phone, channel, slot).await?;
    Ok(Json(json!({ "message_id": message_id })))
}

/// Creates a phone user, confirmed when phone sign-ups are autoconfirmed.
pub(crate) async fn new_phone_user(
    state: &AuthState,
    phone: &str,
    data: Value,
    password_hash: Option<String>,
) -> Result<sms::PhoneUser, ApiError> {
    let confirmed = sms::autoconfirm(state);
    let mut user = NewUser {
        id: Uuid::new_v4(),
        login: Login::Phone(phone.to_owned()),
        password_hash,
        confirmed,
        confirmation_sent: false,
        user_metadata: data,
        app_metadata: json!({ "provider": "phone", "providers": ["phone"] }),
        banned_until: None,
    };
    let identity = store::identity_data(&user);
    if let (Value::Object(metadata), Value::Object(identity)) = (&mut user.user_metadata, identity) {
        metadata.extend(identity);
    }
    if store::create_user(&state.db, &user, None).await?.is_err() {
        return Err(AuthError::phone_exists().into());
    }
    Ok(sms::PhoneUser { id: user.id, phone_confirmed: confirmed, phone_change: None })
}

/// `resend({ type: "sms" | "phone_change", phone })`: the pending code again,
/// under the same pacing; a phone with nothing pending gets nothing, and the
/// same answer.
pub async fn resend(state: &AuthState, kind: Verification, phone: &str) -> Result<Json<Value>, ApiError> {
    sms::enabled(state)?;
    let phone = valid_phone(phone)?;
    let user = sms::by_phone(state, &phone).await?;
    let message_id = match (kind, user) {
        (Verification::Sms, Some(user)) if !user.phone_confirmed => {
            sms::send_code(state, user.id, &phone, "sms", Slot::Confirmation).await?
        }
        (Verification::PhoneChange, Some(sms::PhoneUser { id, phone_change: Some(new), .. })) => {
            sms::send_code(state, id, &new, "sms", Slot::PhoneChange).await?
        }
        _ => String::new(),
    };
    Ok(Json(json!({ "message_id": message_id })))
}

/// `verifyOtp({ phone, token, type })`: the session, or 403 `otp_expired`.
pub async fn verify(
    state: &AuthState,
    kind: Verification,
    phone: &str,
    code: &str,
    user_agent: Option<&str>,
    ip: Option<std::net::IpAddr>,
) -> Result<Value, ApiError> {
    let phone = valid_phone(phone)?;
    let code = code.trim();
    let invalid = || {
        AuthError::new(axum::http::StatusCode::FORBIDDEN, "otp_expired", "Token has expired or is invalid")
    };
    if code.is_empty() {
        return Err(invalid().into());
    }
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let Some(user_id) = sms::verify_code(state, &mut session, kind, &phone, code).await? else {
        session.rollback().await?;
        return Err(invalid().into());
    };
    let banned: bool = session
        .query("select coalesce(banned_until > now(), false) from auth.users where id = $1", &[&user_id])
        .await?
        .first()
        .is_some_and(|r| r.get(0));
    if banned {
        session.rollback().await?;
        return Err(AuthError::user_banned().into());
    }
    let refresh_token = tokens::generate()?;
    let started = store::start_session_in(
        &mut session,
        user_id,
        SignIn { provider: "phone", method: method::OTP },
        &tokens::digest(&refresh_token),
        user_agent,
        ip,
    )
    .await?;
    session.commit().await?;
    session_response(state, Grant::of(started, &refresh_token)).await
}

/// `updateUser({ phone })`: a number no one else has; taken at once when
/// phone sign-ups are autoconfirmed, otherwise recorded as `phone_change`
/// and confirmed by the code sent to it.
pub async fn change(state: &AuthState, user_id: Uuid, current: &Value, phone: &str) -> Result<(), ApiError> {
    sms::enabled(state)?;
    let phone = valid_phone(phone)?;
    if current.get("phone").and_then(Value::as_str) == Some(phone.as_str()) {
        return Ok(());
    }
    if sms::by_phone(state, &phone).await?.is_some_and(|other| other.id != user_id) {
        return Err(AuthError::phone_exists().into());
    }
    if sms::autoconfirm(state) {
        let changes = store::Changes { phone: Some(phone), confirm_phone: true, ..store::Changes::default() };
        return match store::update_user(&state.db, user_id, &changes).await? {
            Ok(_) => Ok(()),
            Err(_) => Err(AuthError::phone_exists().into()),
        };
    }
    sms::send_code(state, user_id, &phone, "sms", Slot::PhoneChange).await.map(drop)
}
