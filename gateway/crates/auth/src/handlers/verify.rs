//! `GET` and `POST /verify` (supabase/auth `internal/api/verify.go`).
//!
//! - `GET /verify?token=<token_hash>&type=…&redirect_to=…`, the mailed link:
//!   303 to `redirect_to` (if allowed, else the site URL) with the session in
//!   the fragment (`#access_token=…&expires_at=…&expires_in=…&refresh_token=…
//!   &token_type=bearer&type=…&sb=`), or the error there
//!   (`#error=access_denied&error_code=otp_expired&error_description=…&sb=`).
//! - the same link with a PKCE flow's token (`pkce_…`, see `crate::flow_state`):
//!   no session yet; 303 to `redirect_to?code=<auth code>`, traded at
//!   `/token?grant_type=pkce`. Errors then travel in the query as well as the
//!   fragment, as GoTrue's `prepErrorRedirectURL` puts them.
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

use reqwest::Url;

use super::mail::{self as mail_flows, redirect_of};
use super::{query_param, valid_email};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, UserAgent};
use crate::flow_state;
use crate::mail::store::{self as mail_store, EmailChange, Found, Slot};
use crate::mail::token_hash;
use crate::ratelimit::{self, Bucket};
use crate::sms::Verification;
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
    /// A PKCE flow's auth code.
    Code(String),
}

fn link_invalid() -> AuthError {
    AuthError::new(StatusCode::FORBIDDEN, "otp_expired", "Email link is invalid or has expired")
}

fn code_invalid() -> AuthError {
    AuthError::new(StatusCode::FORBIDDEN, "otp_expired", "Token has expired or is invalid")
}

/// A PKCE link whose flow is gone (GoTrue's "No associated flow state found").
fn no_flow() -> AuthError {
    AuthError::new(StatusCode::NOT_FOUND, "flow_state_not_found", "No associated flow state found")
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
    let pkce = token.starts_with(flow_state::TOKEN_PREFIX);
    let outcome = match ratelimit::take(&state, Bucket::Verify, ip).await {
        Err(error) => Err(error),
        Ok(()) => {
            let how = How { email: None, invalid: link_invalid, pkce };
            verify(&state, &kind, &token, how, user_agent.as_deref(), ip).await
        }
    };
    let (query, fragment) = match outcome {
        Ok(Verified::Session(session)) => {
            let mut pairs = form_urlencoded::Serializer::new(String::new());
            for key in ["access_token", "token_type", "expires_in", "expires_at", "refresh_token"] {
                let value = match &session[key] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                pairs.append_pair(key, &value);
            }
            (None, pairs.append_pair("type", &kind).append_pair("sb", "").finish())
        }
        Ok(Verified::Code(code)) => (Some(vec![("code".to_owned(), code)]), String::new()),
        Ok(Verified::FirstOfTwo) => {
            let fragment = form_urlencoded::Serializer::new(String::new())
                .append_pair("message", SINGLE_CONFIRMATION)
                .append_pair("sb", "")
                .finish();
            (pkce.then(|| vec![("message".to_owned(), SINGLE_CONFIRMATION.to_owned())]), fragment)
        }
        Err(failure) => {
            let Some(error) = failure.as_service::<AuthError>() else {
                return Err(failure);
            };
            let mut pairs = Vec::new();
            // GoTrue's `oauthErrorMap`.
            let oauth = match error.status {
                StatusCode::BAD_REQUEST => Some("invalid_request"),
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Some("access_denied"),
                StatusCode::TOO_MANY_REQUESTS => Some("access_denied"),
                StatusCode::INTERNAL_SERVER_ERROR => Some("server_error"),
                _ => None,
            };
            if let Some(oauth) = oauth {
                pairs.push(("error".to_owned(), oauth.to_owned()));
            }
            pairs.push(("error_code".to_owned(), error.code.to_owned()));
            pairs.push(("error_description".to_owned(), error.message.clone()));
            let fragment = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&pairs)
                .append_pair("sb", "")
                .finish();
            (pkce.then_some(pairs), fragment)
        }
    };
    let base = redirect_to.split('#').next().unwrap_or(&redirect_to);
    let mut location = match query {
        Some(pairs) => with_query(base, &pairs),
        None => base.to_owned(),
    };
    if !fragment.is_empty() {
        location = format!("{location}#{fragment}");
    }
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response())
}

/// `url` with `pairs` set in its query, replacing parameters of the same
/// name (GoTrue's `prepPKCERedirectURL`).
fn with_query(url: &str, pairs: &[(String, String)]) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
        let joiner = if url.contains('?') { '&' } else { '?' };
        return format!("{url}{joiner}{query}");
    };
    let kept: Vec<(String, String)> = parsed
        .query_pairs()
        .filter(|(k, _)| !pairs.iter().any(|(name, _)| name == k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    parsed.query_pairs_mut().clear().extend_pairs(kept).extend_pairs(pairs);
    parsed.into()
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
    // A phone's code (`crate::handlers::phone`).
    if let Some(phone) = body.phone.as_deref().filter(|p| !p.is_empty()) {
        let kind = match body.kind.as_str() {
            "sms" => Verification::Sms,
            "phone_change" => Verification::PhoneChange,
            _ => return Err(unsupported().into()),
        };
        let code = body.token.as_deref().unwrap_or("");
        let session = super::phone::verify(&state, kind, phone, code, user_agent.as_deref(), ip).await?;
        return Ok(Json(session).into_response());
    }
    let outcome = match (body.token_hash.as_deref().filter(|t| !t.is_empty()), body.token.as_deref()) {
        (Some(hash), _) => {
            if body.email.as_deref().is_some_and(|e| !e.is_empty()) {
                return Err(
                    AuthError::validation_failed("Only the token_hash and type should be provided").into()
                );
            }
            let how = How { email: None, invalid: link_invalid, pkce: false };
            verify(&state, &body.kind, hash, how, user_agent.as_deref(), ip).await?
        }
        (None, Some(code)) if !code.is_empty() => {
            let email = valid_email(body.email.as_deref().unwrap_or(""))?;
            let hash = token_hash(&email, code.trim());
            let how = How { email: Some(&email), invalid: code_invalid, pkce: false };
            verify(&state, &body.kind, &hash, how, user_agent.as_deref(), ip).await?
        }
        _ => {
            return Err(AuthError::validation_failed("Verify requires either a token or a token hash").into());
        }
    };
    Ok(match outcome {
        Verified::Session(session) => Json(session).into_response(),
        Verified::FirstOfTwo => Json(json!({ "msg": SINGLE_CONFIRMATION, "code": "200" })).into_response(),
        Verified::Code(_) => return Err(ApiError::internal("auth code outside a PKCE link")),
    })
}

/// How a token was presented.
struct How<'a> {
    /// The address of a mailed code (`{email, token}`); its hash may have
    /// been stored with a PKCE flow's prefix, and the code is good either way.
    email: Option<&'a str>,
    invalid: fn() -> AuthError,
    /// A PKCE link: the flow gets its auth code instead of a session.
    pkce: bool,
}

/// Finds the token for `kind`, uses it and starts a session (or, for a PKCE
/// link, issues the flow's auth code), all in one transaction (the token row
/// is locked, so two uses cannot both succeed).
async fn verify(
    state: &AuthState,
    kind: &str,
    hash: &str,
    how: How<'_>,
    user_agent: Option<&str>,
    ip: Option<std::net::IpAddr>,
) -> Result<Verified, ApiError> {
    let How { email, invalid, pkce } = how;
    let prefixed = format!("{}{hash}", flow_state::TOKEN_PREFIX);
    let hashes: &[&str] = match email {
        Some(_) => &[hash, &prefixed],
        None => &[hash],
    };
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
    let mut hash = hash;
    'search: for &(slot, amr) in tries {
        for &candidate in hashes {
            found = mail_store::find_token(&mut session, slot, candidate, email, exp).await?;
            (chosen, hash) = ((slot, amr), candidate);
            if found != Found::NotFound {
                break 'search;
            }
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
    if pkce {
        let method = mail_flows::Verification::from_name(kind).map_or(amr, mail_flows::Verification::method);
        let Some(code) = flow_state::issue_code(&mut session, user_id, method).await? else {
            session.rollback().await?;
            return Err(no_flow().into());
        };
        session.commit().await?;
        return Ok(Verified::Code(code));
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
