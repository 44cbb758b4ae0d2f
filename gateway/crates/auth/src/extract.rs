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
    extract::{ConnectInfo, FromRequest, FromRequestParts, Request},
    http::{header, request::Parts},
};
use serde::de::DeserializeOwned;
use uuid::Uuid;

use super::error::AuthError;
use crate::AuthState;
use gateway_core::caller::Caller;
use gateway_core::error::ApiError;
use gateway_core::role::Role;

/// A signed-in user, from the bearer token.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user_id: Uuid,
    /// The `session_id` claim; tokens minted elsewhere may lack it.
    pub session_id: Option<Uuid>,
}

impl FromRequestParts<AuthState> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AuthState) -> Result<Self, Self::Rejection> {
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

impl FromRequestParts<AuthState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AuthState) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        match caller.role() {
            Role::ServiceRole => Ok(Admin),
            Role::Anon | Role::Authenticated => Err(AuthError::not_admin().into()),
        }
    }
}

/// The client's address: the peer's, or, when the peer is a configured trusted
/// proxy, the right-most `X-Forwarded-For` address that is not a trusted proxy.
///
/// A proxy appends the address it was reached from, so only the entries a
/// trusted proxy appended are true; everything to their left was written by
/// the client and could be anything (GoTrue's `utilities.GetIPAddress` takes
/// the left-most entry, which lets a client behind a proxy pick a fresh
/// rate-limit bucket per request). Several `X-Forwarded-For` headers count as
/// one list in their order (RFC 9110 §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub Option<IpAddr>);

impl ClientIp {
    /// The client behind `peer`, given the `X-Forwarded-For` values in order.
    pub fn resolve<'a>(
        peer: Option<IpAddr>,
        forwarded_for: impl DoubleEndedIterator<Item = &'a str>,
        trusted: &[IpAddr],
    ) -> Self {
        let is_trusted = |ip: IpAddr| trusted.iter().any(|t| t.to_canonical() == ip.to_canonical());
        let Some(mut client) = peer else {
            return ClientIp(None);
        };
        let mut hops = forwarded_for.rev().flat_map(|value| value.rsplit(','));
        while is_trusted(client) {
            // A hop a trusted proxy wrote that is no address: that proxy is
            // the closest client we know.
            match hops.next().map(|hop| hop.trim().parse::<IpAddr>()) {
                Some(Ok(ip)) => client = ip,
                Some(Err(_)) | None => break,
            }
        }
        ClientIp(Some(client))
    }
}

impl FromRequestParts<AuthState> for ClientIp {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AuthState) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        let values: Vec<&str> =
            parts.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).collect();
        Ok(ClientIp::resolve(peer, values.into_iter(), &state.config.trusted_proxies))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn the_client_is_the_right_most_address_no_trusted_proxy_wrote() {
        let proxies = [ip("127.0.0.1"), ip("10.0.0.2")];
        let cases: [(&str, &str, &[&str], Option<&str>); 11] = [
            (
                "no proxy: the peer, whatever the header says",
                "192.0.2.9",
                &["203.0.113.1"],
                Some("192.0.2.9"),
            ),
            ("one proxy", "127.0.0.1", &["198.51.100.7"], Some("198.51.100.7")),
            ("a forged first entry", "127.0.0.1", &["203.0.113.1, 198.51.100.7"], Some("198.51.100.7")),
            ("two proxies", "127.0.0.1", &["203.0.113.1, 198.51.100.7, 10.0.0.2"], Some("198.51.100.7")),
            (
                "two headers are one list",
                "127.0.0.1",
                &["203.0.113.1", "198.51.100.7, 10.0.0.2"],
                Some("198.51.100.7"),
            ),
            (
                "garbage left of the client is never read",
                "127.0.0.1",
                &["not an ip, 198.51.100.7"],
                Some("198.51.100.7"),
            ),
            ("garbage from a proxy: that proxy", "127.0.0.1", &["198.51.100.7, junk"], Some("127.0.0.1")),
            ("no header: the proxy", "127.0.0.1", &[], Some("127.0.0.1")),
            ("only proxies: the left-most", "127.0.0.1", &["10.0.0.2, 127.0.0.1"], Some("10.0.0.2")),
            (
                "an IPv4-mapped peer is the same proxy",
                "::ffff:127.0.0.1",
                &["198.51.100.7"],
                Some("198.51.100.7"),
            ),
            ("IPv6 clients", "127.0.0.1", &[" 2001:db8::1 "], Some("2001:db8::1")),
        ];
        for (name, peer, header, expected) in cases {
            let resolved = ClientIp::resolve(Some(ip(peer)), header.iter().copied(), &proxies);
            assert_eq!(resolved, ClientIp(expected.map(ip)), "{name}");
        }
        assert_eq!(ClientIp::resolve(None, ["198.51.100.7"].into_iter(), &proxies), ClientIp(None));
    }
}
