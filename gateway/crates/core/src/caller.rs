//! Who is calling: the `Caller` extractor and the API-key check, the one place
//! that decides a request's role from its `apikey` and `Authorization`.
//!
//! Hosted Supabase puts an API gateway (Kong) in front of the services: on
//! `/rest/v1` and `/auth/v1` it demands a known `apikey` (header or `?apikey=`),
//! then each service reads `Authorization: Bearer <jwt>` to pick the database
//! role (supabase/supabase `docker/volumes/api/kong.yml`). [`require_apikey`] is
//! that key check, layered on the routers that need it; [`Caller`] is the JWT
//! check every handler receives. Both run before any pool checkout, so a bad
//! token never costs a database connection.
//!
//! An API key is either a JWT (the legacy `anon` and `service_role` keys, or
//! one signed by a key of `--jwt-keys`) or an opaque key, `sb_publishable_...`
//! or `sb_secret_...` (`crate::keys`). supabase-js sends its key as `apikey`
//! and, until a user signs in, as the bearer too; an opaque key is accepted as
//! the bearer only when it equals `apikey`, as Supabase documents
//! (<https://supabase.com/docs/guides/api/api-keys>, "Known limitations").

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use axum::{
    extract::{FromRef, FromRequestParts, Request, State},
    http::{HeaderMap, header, request::Parts},
    middleware::Next,
    response::Response,
};

use std::sync::Arc;

use crate::config::Secret;
use crate::error::ApiError;
use crate::jwt::{Claims, JwtError, JwtKeys};
use crate::keys::{ApiKeys, KeyKind};
use crate::role::Role;

/// What decides who a caller is: the keys that verify tokens and the API keys
/// in use. Every service's state hands it to the [`Caller`] extractor (axum's
/// `FromRef`), which is all of that state the extractor sees.
pub struct Credentials {
    /// The keys that sign and verify JWTs (`crate::jwt`).
    pub jwt: JwtKeys,
    /// The publishable and secret API keys (`crate::keys`).
    pub api_keys: ApiKeys,
    /// Whether the legacy JWT API keys (`anon`, `service_role`) are accepted.
    pub legacy_api_keys: bool,
    /// The operator's own JWK set (`--jwt-keys`), verifying beside the keys
    /// kept in the database.
    pub operator_jwks: Option<Secret>,
}

/// The verified caller of one request, with what the database session exposes to
/// SQL (`request.method`, `request.path`, `request.headers`).
#[derive(Debug, Clone)]
pub struct Caller {
    pub claims: Claims,
    pub method: String,
    pub path: String,
    /// Request headers as the text of one JSON object with lower-cased names,
    /// as PostgREST sets `request.headers`.
    pub headers: String,
}

impl Caller {
    pub fn role(&self) -> Role {
        self.claims.role
    }
}

impl<S> FromRequestParts<S> for Caller
where
    Arc<Credentials>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = Arc::<Credentials>::from_ref(state);
        let key = match parts.extensions.get::<ApiKey>() {
            Some(key) => key.clone(),
            None => check_api_key(&state, parts)?,
        };
        let claims = match (bearer_token(&parts.headers)?, &key) {
            (Some(token), ApiKey::Opaque { key, kind }) if token == key.expose() => {
                Claims::of_role(kind.role())
            }
            (Some(token), _) => state.jwt.verify(token)?,
            // supabase-js always sends a bearer; without one the API key speaks
            // for the caller, as the hosted gateway's key mapping does.
            (None, ApiKey::Opaque { kind, .. }) => Claims::of_role(kind.role()),
            (None, ApiKey::Jwt(claims)) => claims.clone()?,
            (None, ApiKey::Missing) => Claims::anonymous(),
        };
        Ok(Caller {
            claims,
            method: parts.method.as_str().to_owned(),
            path: parts.uri.path().to_owned(),
            headers: headers_json(&parts.headers),
        })
    }
}

/// A request's API key, checked once (by [`require_apikey`] where it runs,
/// which leaves it in the request's extensions for [`Caller`]).
#[derive(Clone, Debug)]
pub enum ApiKey {
    Missing,
    /// A valid publishable or secret key (which never prints).
    Opaque {
        key: Secret,
        kind: KeyKind,
    },
    /// A JWT, and what verifying it gave.
    Jwt(Result<Claims, JwtError>),
}

/// Reads the API key: an opaque key must be one in use (and a secret key not
/// from a browser); a JWT is verified, and refused outright when the legacy
/// keys are turned off. Nothing here touches the database.
pub fn check_api_key(state: &Credentials, parts: &Parts) -> Result<ApiKey, ApiError> {
    let Some(key) = api_key(parts) else {
        return Ok(ApiKey::Missing);
    };
    if KeyKind::claimed_by(&key).is_some() {
        let kind = state.api_keys.lookup(&key).ok_or(ApiError::InvalidApiKey)?;
        if kind == KeyKind::Secret && from_browser(&parts.headers) {
            return Err(ApiError::SecretKeyInBrowser);
        }
        return Ok(ApiKey::Opaque { key: Secret::new(key), kind });
    }
    if !state.legacy_api_keys {
        return Err(ApiError::InvalidApiKey);
    }
    Ok(ApiKey::Jwt(state.jwt.verify(&key)))
}

/// Supabase refuses a secret key "in the browser (matches on the `User-Agent`
/// header)" with 401 (<https://supabase.com/docs/guides/api/api-keys>). Its
/// exact pattern is not published; this one is: every browser's `User-Agent`
/// starts with `Mozilla/` (Chrome, Safari, Firefox, Edge and the mobile ones
/// alike), while server-side clients name themselves (`node`, `Deno/...`,
/// `curl/...`, `Bun/...`).
pub fn from_browser(headers: &HeaderMap) -> bool {
    headers
        .get(header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|agent| agent.trim_start().starts_with("Mozilla/"))
}

/// The token of an `Authorization: Bearer <token>` header (the scheme is
/// case-insensitive), `None` when there is no such header.
fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| JwtError::Signature)?;
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => Ok(Some(token.trim())),
        _ if value.eq_ignore_ascii_case("bearer") => Err(JwtError::Empty.into()),
        _ => Err(JwtError::Signature.into()),
    }
}

/// The `apikey` header, or the `apikey` query parameter.
fn api_key(parts: &Parts) -> Option<String> {
    if let Some(value) = parts.headers.get("apikey") {
        return value.to_str().ok().map(str::to_owned);
    }
    let query = parts.uri.query()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "apikey")
        .map(|(_, value)| value.into_owned())
}

/// The headers as a JSON object, names in order, written from the header map
/// without copying names and values into JSON values first.
pub fn headers_json(headers: &HeaderMap) -> String {
    let mut map: BTreeMap<&str, Cow<'_, str>> = BTreeMap::new();
    for (name, value) in headers {
        if let Ok(value) = value.to_str() {
            // Repeated headers are joined the way HTTP folds them.
            match map.entry(name.as_str()) {
                Entry::Occupied(mut existing) => {
                    let existing = existing.get_mut().to_mut();
                    existing.push_str(", ");
                    existing.push_str(value);
                }
                Entry::Vacant(entry) => {
                    entry.insert(Cow::Borrowed(value));
                }
            }
        }
    }
    serde_json::to_string(&map).unwrap_or_else(|_| "{}".to_owned())
}

/// Kong's `key-auth`: the request must carry one of our API keys: a
/// publishable or secret key in use, or a token our keys verify whose role is
/// `anon` or `service_role`.
pub async fn require_apikey(
    State(state): State<Arc<Credentials>>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let (mut parts, body) = request.into_parts();
    let key = check_api_key(&state, &parts)?;
    match &key {
        ApiKey::Missing => return Err(ApiError::NoApiKey),
        ApiKey::Opaque { .. } => {}
        ApiKey::Jwt(Ok(claims)) if matches!(claims.role, Role::Anon | Role::ServiceRole) => {}
        ApiKey::Jwt(_) => return Err(ApiError::InvalidApiKey),
    }
    parts.extensions.insert(key);
    Ok(next.run(Request::from_parts(parts, body)).await)
}
