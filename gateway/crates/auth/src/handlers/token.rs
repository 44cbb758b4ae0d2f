//! `POST /token?grant_type=password|refresh_token` (`pkce` and `id_token`
//! are in `oauth.rs`, `web3` in `web3.rs`) (supabase/auth
//! `internal/api/token.go`, `token_refresh.go`; wire-protocol.md §3.2, §3.4).

use axum::{
    Json,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode, header},
};
use serde::Deserialize;
use serde_json::Value;

use super::{login_of, query_param};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, UserAgent};
use crate::ratelimit::{self, Bucket};
use crate::store::{self, Login, Refreshed, SignIn, method};
use crate::{password, tokens};
use gateway_core::error::ApiError;

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct TokenBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
    auth_code: Option<String>,
    code_verifier: Option<String>,
    provider: Option<String>,
    id_token: Option<String>,
    nonce: Option<String>,
    access_token: Option<String>,
    link_identity: bool,
    chain: Option<String>,
    message: Option<String>,
    signature: Option<String>,
}

pub async fn token(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    RawQuery(query): RawQuery,
    UserAgent(user_agent): UserAgent,
    headers: HeaderMap,
    Body(body): Body<Value>,
) -> Result<Json<Value>, ApiError> {
    let grant = match query_param(query.as_deref(), "grant_type").as_deref() {
        Some("password") => "password",
        Some("refresh_token") => "refresh_token",
        Some("pkce") => "pkce",
        Some("id_token") => "id_token",
        Some("web3") => "web3",
        _ => "other",
    };
    let admitted = match grant {
        "web3" => super::web3::admit(&state, ip).await,
        _ => Ok(()),
    };
    let parsed = admitted.and_then(|()| {
        serde_json::from_value::<TokenBody>(body).map_err(|_| ApiError::from(AuthError::bad_json()))
    });
    let answer = match parsed {
        Ok(body) => issue(state, ip, user_agent, headers, body, grant).await,
        Err(refused) => Err(refused),
    };
    count_sign_in(grant, &answer);
    answer
}

/// Counts a session issued, or a sign-in refused; refusals for the rate
/// limit are counted where the limit is (`ratelimit`).
fn count_sign_in(grant: &'static str, answer: &Result<Json<Value>, ApiError>) {
    match answer {
        Ok(_) => metrics::counter!("gateway_auth_sign_ins_total", "grant" => grant).increment(1),
        Err(e) if e.status().is_client_error() && e.status() != StatusCode::TOO_MANY_REQUESTS => {
            metrics::counter!("gateway_auth_sign_in_failures_total", "grant" => grant).increment(1);
        }
        Err(_) => {}
    }
}

async fn issue(
    state: AuthState,
    ip: Option<std::net::IpAddr>,
    user_agent: Option<String>,
    headers: HeaderMap,
    body: TokenBody,
    grant: &'static str,
) -> Result<Json<Value>, ApiError> {
    match (grant != "other").then_some(grant) {
        Some("password") => password_grant(&state, ip, user_agent.as_deref(), body).await,
        Some("refresh_token") => refresh_grant(&state, ip, body).await,
        Some("pkce") => {
            let ua = user_agent.as_deref();
            super::oauth::pkce_grant(&state, ip, ua, body.auth_code, body.code_verifier).await
        }
        Some("id_token") => {
            let params = super::oauth::IdTokenParams {
                provider: body.provider,
                id_token: body.id_token,
                nonce: body.nonce,
                access_token: body.access_token,
                link_identity: body.link_identity,
                bearer: headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.split_once(' '))
                    .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                    .map(|(_, token)| token.trim().to_owned()),
            };
            super::oauth::id_token_grant(&state, ip, user_agent.as_deref(), params).await
        }
        Some("web3") => {
            let params = super::web3::Web3Params {
                chain: body.chain,
                message: body.message,
                signature: body.signature,
            };
            Ok(Json(super::web3::web3_grant(&state, ip, user_agent.as_deref(), params).await?))
        }
        _ => Err(AuthError::unsupported_grant_type().into()),
    }
}

/// Sign-in with e-mail or phone and password. An unknown user, a user without
/// a password and a wrong password get the same answer after the same bcrypt
/// work; whether the e-mail is confirmed or the user banned is told only to
/// someone who knows the password.
async fn password_grant(
    state: &AuthState,
    ip: Option<std::net::IpAddr>,
    user_agent: Option<&str>,
    body: TokenBody,
) -> Result<Json<Value>, ApiError> {
    ratelimit::take(state, Bucket::SignInSignUp, ip).await?;
    let login = login_of(body.email.as_deref(), body.phone.as_deref())
        .map_err(|_| AuthError::invalid_credentials())?
        .ok_or_else(|| AuthError::validation_failed("missing email or phone"))?;
    let secret = body.password.unwrap_or_default();
    if secret.len() > password::MAX_BYTES {
        return Err(AuthError::password_too_long().into());
    }
    let credentials = store::credentials(&state.db, &login).await?;
    let matched = password::verify(&secret, credentials.as_ref().and_then(|c| c.hash.as_deref())).await?;
    let Some(user) = credentials.filter(|_| matched) else {
        return Err(AuthError::invalid_credentials().into());
    };
    if user.banned {
        return Err(AuthError::user_banned().into());
    }
    match login {
        Login::Email(_) if !user.email_confirmed => return Err(AuthError::email_not_confirmed().into()),
        Login::Phone(_) if !user.phone_confirmed => return Err(AuthError::phone_not_confirmed().into()),
        Login::Email(_) | Login::Phone(_) => {}
    }
    let refresh_token = tokens::generate()?;
    let started = store::start_session(
        &state.db,
        user.id,
        SignIn { provider: login.provider(), method: method::PASSWORD },
        &tokens::digest(&refresh_token),
        user_agent,
        ip,
    )
    .await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(state, grant).await?))
}

/// Rotation: the answer carries the presented token's child, derived with the
/// session's key (see `tokens`).
async fn refresh_grant(
    state: &AuthState,
    ip: Option<std::net::IpAddr>,
    body: TokenBody,
) -> Result<Json<Value>, ApiError> {
    ratelimit::take(state, Bucket::TokenRefresh, ip).await?;
    let presented = body.refresh_token.unwrap_or_default();
    if presented.is_empty() {
        return Err(AuthError::validation_failed("refresh_token required").into());
    }
    if !tokens::well_formed(&presented) {
        return Err(AuthError::refresh_token_not_found().into());
    }
    let interval = state.config.refresh_token_reuse_interval;
    let (started, refresh_token) = match store::refresh(&state.db, &presented, interval, None).await? {
        Refreshed::Issued { started, refresh_token } => (started, refresh_token),
        Refreshed::NotFound => return Err(AuthError::refresh_token_not_found().into()),
        Refreshed::Banned => return Err(AuthError::user_banned().into()),
        Refreshed::WrongClient(reason) => return Err(AuthError::oauth("invalid_client", reason).into()),
        Refreshed::Reused => {
            tracing::warn!("a revoked refresh token was reused; its session was revoked");
            return Err(AuthError::refresh_token_already_used().into());
        }
    };
    let grant = Grant::refreshed(started, &refresh_token);
    Ok(Json(session_response(state, grant).await?))
}
