//! What auth handlers receive instead of reading headers themselves.
//!
//! - [`SignedIn`]: a user's access token, checked the way GoTrue's
//!   `requireAuthentication` does (`internal/api/auth.go`): no bearer is 401
//!   `no_authorization`, a bad token or one without `sub` is 403 `bad_jwt`.
//!   Whether its user and session still exist is checked by the handler, in
//!   its own transaction.
//! - [`Admin`]: the service_role key (GoTrue's `requireAdmin`).
//! - [`ClientIp`]: the address rate limits are kept for.
//! - [`UserAgent`]: recorded with each new session, as GoTrue does.
//! - [`Body`]: a JSON body, where an empty body counts as `{}`.

use std::net::{IpAddr, SocketAddr};

use axum::{
    body::Bytes,
    extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Request},
    http::{header, request::Parts},
};
use serde::de::DeserializeOwned;
use uuid::Uuid;

use super::error::AuthError;
use crate::caller::Caller;
use crate::error::ApiError;
use crate::role::Role;
use crate::state::AppState;

/// A signed-in user, from the bearer token.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user_id: Uuid,
    /// The `session_id` claim; tokens minted elsewhere may lack it.
    pub session_id: Option<Uuid>,
}

impl<S> FromRequestParts<S> for SignedIn
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let bearer = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, token)| scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty());
        if bearer.is_none() {
            return Err(AuthError::no_authorization().into());
        }
        let caller = Caller::from_request_parts(parts, state).await?;
        let sub = caller.claims.sub().and_then(|s| Uuid::parse_str(s).ok());
        let Some(user_id) = sub.filter(|_| caller.role() == Role::Authenticated) else {
            return Err(AuthError::bad_jwt("invalid claim: missing sub claim").into());
        };
        let session_id = match caller.claims.claims.get("session_id").and_then(|v| v.as_str()) {
            None | Some("") => None,
            Some(id) => {
                Some(Uuid::parse_str(id).map_err(|_| AuthError::bad_jwt("invalid claim: session_id claim"))?)
            }
        };
        Ok(SignedIn { user_id, session_id })
    }
}

/// A caller holding the service_role key.
#[derive(Debug, Clone, Copy)]
pub struct Admin;

impl<S> FromRequestParts<S> for Admin
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        match caller.role() {
            Role::ServiceRole => Ok(Admin),
            Role::Anon | Role::Authenticated => Err(AuthError::not_admin().into()),
        }
    }
}

/// The client's address: the peer's, or the first `X-Forwarded-For` entry when
/// the peer is a configured trusted proxy (GoTrue uses the first value too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub Option<IpAddr>);

impl<S> FromRequestParts<S> for ClientIp
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        let trusted = peer.is_some_and(|ip| state.config.auth.trusted_proxies.contains(&ip));
        if trusted {
            let forwarded = parts
                .headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(',').next())
                .and_then(|first| first.trim().parse::<IpAddr>().ok());
            if forwarded.is_some() {
                return Ok(ClientIp(forwarded));
            }
        }
        Ok(ClientIp(peer))
    }
}

/// The `User-Agent` header, if it is text.
#[derive(Debug, Clone, Default)]
pub struct UserAgent(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for UserAgent {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let value = parts.headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).map(str::to_owned);
        Ok(UserAgent(value))
    }
}

/// A JSON request body; empty means `{}` (supabase-js posts `/logout` with a
/// JSON content type and no body). Anything unparsable is 400 `bad_json`.
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state).await.map_err(|_| AuthError::bad_json())?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
        serde_json::from_slice(bytes).map(Body).map_err(|_| AuthError::bad_json().into())
    }
}
