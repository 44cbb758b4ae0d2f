//! Who is calling: the `Caller` extractor and the API-key check.
//!
//! Hosted Supabase puts an API gateway (Kong) in front of the services: on
//! `/rest/v1` and `/auth/v1` it demands a known `apikey` (header or `?apikey=`),
//! then each service reads `Authorization: Bearer <jwt>` to pick the database
//! role (supabase/supabase `docker/volumes/api/kong.yml`). [`require_apikey`] is
//! that key check, layered on the routers that need it; [`Caller`] is the JWT
//! check every handler receives. Both run before any pool checkout, so a bad
//! token never costs a database connection.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use axum::{
    extract::{FromRef, FromRequestParts, Request, State},
    http::{HeaderMap, header, request::Parts},
    middleware::Next,
    response::Response,
};

use crate::error::ApiError;
use crate::jwt::{Claims, JwtError};
use crate::role::Role;
use crate::state::AppState;

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
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let claims = match bearer_token(&parts.headers)? {
            Some(token) => state.jwt.verify(token)?,
            // supabase-js always sends a bearer; without one the API key speaks
            // for the caller, as the hosted gateway's key mapping does.
            None => match api_key(parts) {
                Some(key) => state.jwt.verify(&key)?,
                None => Claims::anonymous(),
            },
        };
        Ok(Caller {
            claims,
            method: parts.method.as_str().to_owned(),
            path: parts.uri.path().to_owned(),
            headers: headers_json(&parts.headers),
        })
    }
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
fn headers_json(headers: &HeaderMap) -> String {
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

/// Kong's `key-auth`: the request must carry one of our API keys, that is a
/// token signed with our secret whose role is `anon` or `service_role`.
pub async fn require_apikey(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let Some(key) = api_key(&parts) else {
        return Err(ApiError::NoApiKey);
    };
    match state.jwt.verify(&key) {
        Ok(claims) if matches!(claims.role, Role::Anon | Role::ServiceRole) => {}
        _ => return Err(ApiError::InvalidApiKey),
    }
    Ok(next.run(Request::from_parts(parts, body)).await)
}
