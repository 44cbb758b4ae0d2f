//! `GET` and `POST /verify` (supabase/auth `internal/api/verify.go`).
//!
//! - `GET /verify?token=<token_hash>&type=…&redirect_to=…`, the mailed link:
//!   303 to `redirect_to` (if allowed, else the site URL) with the session in
//!   the fragment (`#access_token=…&expires_at=…&expires_in=…&refresh_token=…
//!   &token_type=bearer&type=…&sb=`), or the error there
//!   (`#error=access_denied&error_code=otp_expired&error_description=…&sb=`).
//! - `POST /verify` with `{type, token_hash}` or `{type, email, token}`: 200
//!   with the session, or 403 `otp_expired`.
//!
//! Each try takes from the per-address `AUTH_RATE_LIMIT_VERIFY` bucket, which
//! is what bounds guessing a 6-digit code. A used token is gone: the second
//! use fails like an unknown one.

use axum::{
    Json,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::mail::redirect_of;
use super::{query_param, valid_email};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, UserAgent};
use crate::mail::store::{self as mail_store, EmailChange, Found, Slot};
use crate::mail::token_hash;
use crate::ratelimit::{self, Bucket};
use crate::store::{self, SignIn, method};
use crate::tokens;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

const SINGLE_CONFIRMATION: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// What a verification ended in.
enum Verified {
    Session(Value),
    /// The first of the two confirmations of a secure e-mail change.
    FirstOfTwo,
}

fn link_invalid() -> AuthError {
    AuthError::new(StatusCode::FORBIDDEN, "otp_expired", "Email link is invalid or has expired")
}

fn code_invalid() -> AuthError {
    AuthError::new(StatusCode::FORBIDDEN, "otp_expired", "Token has expired or is invalid")
}

fn unsupported() -> AuthError {
    AuthError::validation_failed("Unsupported verification type")
}

pub async fn verify_get(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = query.as_deref();
    let redirect_to = redirect_of(&state, query, &headers);
    let token = query_param(query, "token").unwrap_or_default();
    let kind = query_param(query, "type").unwrap_or_default();
    if token.is_empty() {
        return Err(AuthError::validation_failed("Verify requires a token or a token hash").into());
    }
    let outcome = match ratelimit::take(&state, Bucket::Verify, ip).await {
        Err(error) => Err(error),
        Ok(()) => verify(&state, &kind, &token, None, link_invalid, user_agent.as_deref(), ip).await,
    };
    let fragment = match outcome {
        Ok(Verified::Session(session)) => {
            let mut pairs = form_urlencoded::Serializer::new(String::new());
            for key in ["access_token", "token_type", "expires_in", "expires_at", "refresh_token"] {
                let value = match &session[key] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                pairs.append_pair(key, &value);
            }
            pairs.append_pair("type", &kind).append_pair("sb", "").finish()
        }
        Ok(Verified::FirstOfTwo) => form_urlencoded::Serializer::new(String::new())
            .append_pair("message", SINGLE_CONFIRMATION)
            .append_pair("sb", "")
            .finish(),
        Err(failure) => {
            let Some(error) = failure.as_service::<AuthError>() else {
                return Err(failure);
            };
            let mut pairs = form_urlencoded::Serializer::new(String::new());
            // GoTrue's `oauthErrorMap`.
            let oauth = match error.status {
                StatusCode::BAD_REQUEST => Some("invalid_request"),
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Some("access_denied"),
                StatusCode::TOO_MANY_REQUESTS => Some("access_denied"),
                StatusCode::INTERNAL_SERVER_ERROR => Some("server_error"),
                _ => None,
            };
            if let Some(oauth) = oauth {
                pairs.append_pair("error", oauth);
            }
            pairs.append_pair("error_code", error.code).append_pair("error_description", &error.message);
            pairs.append_pair("sb", "").finish()
        }
    };
    let location = format!("{}#{fragment}", redirect_to.split('#').next().unwrap_or(&redirect_to));
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response())
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct VerifyBody {
    #[serde(rename = "type")]
    kind: String,
    token: Option<String>,
    token_hash: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

pub async fn verify_post(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    Body(body): Body<VerifyBody>,
) -> Result<Response, ApiError> {
    ratelimit::take(&state, Bucket::Verify, ip).await?;
    // No SMS is sent, so no phone code can be valid; a malformed number is
    // still refused first, as GoTrue's `verifyPost` validates it.
    if let Some(phone) = body.phone.as_deref().filter(|p| !p.is_empty()) {
        super::valid_phone(phone)?;
        return Err(code_invalid().into());
    }
    let outcome = match (body.token_hash.as_deref().filter(|t| !t.is_empty()), body.token.as_deref()) {
        (Some(hash), _) => {
            if body.email.as_deref().is_some_and(|e| !e.is_empty()) {
                return Err(
                    AuthError::validation_failed("Only the token_hash and type should be provided").into()
                );
            }
            verify(&state, &body.kind, hash, None, link_invalid, user_agent.as_deref(), ip).await?
        }
        (None, Some(code)) if !code.is_empty() => {
            let email = valid_email(body.email.as_deref().unwrap_or(""))?;
            let hash = token_hash(&email, code.trim());
            verify(&state, &body.kind, &hash, Some(&email), code_invalid, user_agent.as_deref(), ip).await?
        }
        _ => {
            return Err(AuthError::validation_failed("Verify requires either a token or a token hash").into());
        }
    };
    Ok(match outcome {
        Verified::Session(session) => Json(session).into_response(),
        Verified::FirstOfTwo => Json(json!({ "msg": SINGLE_CONFIRMATION, "code": "200" })).into_response(),
    })
}

/// Finds the token for `kind`, uses it and starts a session, all in one
/// transaction (the token row is locked, so two uses cannot both succeed).
async fn verify(
    state: &AuthState,
    kind: &str,
    hash: &str,
    email: Option<&str>,
    invalid: fn() -> AuthError,
    user_agent: Option<&str>,
    ip: Option<std::net::IpAddr>,
) -> Result<Verified, ApiError> {
    // (slot to search, amr method); `email` is a mailed code of either kind.
    let tries: &[(Slot, &str)] = match kind {
        "signup" => &[(Slot::Confirmation, method::EMAIL_SIGNUP)],
        "invite" => &[(Slot::Confirmation, method::INVITE)],
        "magiclink" => &[(Slot::Recovery, method::MAGIC_LINK)],
        "recovery" => &[(Slot::Recovery, method::RECOVERY)],
        "email_change" => &[(Slot::EmailChange, method::EMAIL_CHANGE)],
        "email" => &[(Slot::Confirmation, method::OTP), (Slot::Recovery, method::OTP)],
        _ => return Err(unsupported().into()),
    };
    let exp = state.config.mail.mailer_otp_exp;
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let mut found = Found::NotFound;
    let mut chosen = tries[0];
    for &(slot, amr) in tries {
        found = mail_store::find_token(&mut session, slot, hash, email, exp).await?;
        chosen = (slot, amr);
        if found != Found::NotFound {
            break;
        }
    }
    let user_id: Uuid = match found {
        Found::Valid(id) => id,
        Found::Expired | Found::NotFound => {
            session.rollback().await?;
            return Err(invalid().into());
        }
    };
    let (slot, amr) = chosen;
    match slot {
        Slot::EmailChange => {
            if mail_store::consume_email_change(&mut session, user_id, hash).await? == EmailChange::FirstOfTwo
            {
                session.commit().await?;
                return Ok(Verified::FirstOfTwo);
            }
        }
        slot => mail_store::consume_and_confirm(&mut session, user_id, slot).await?,
    }
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
    let digest = tokens::digest(&refresh_token);
    let started = store::start_session_in(
        &mut session,
        user_id,
        SignIn { provider: "email", method: amr },
        &digest,
        user_agent,
        ip,
    )
    .await?;
    session.commit().await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Verified::Session(session_response(state, grant).await?))
}
