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
    /// Shared with the memory of verified tokens (`JwtKeys::verify_shared`).
    pub claims: Arc<Claims>,
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
        Caller::of(&Arc::<Credentials>::from_ref(state), parts, parts.uri.path())
    }
}

impl Caller {
    /// The caller of a request whose path, as its service sees it, is
    /// `path` (`request.path`: `/products` for `/rest/v1/products`). What
    /// the extractor runs, for a service that routes without axum's router.
    pub fn of(state: &Credentials, parts: &Parts, path: &str) -> Result<Self, ApiError> {
        let key = match parts.extensions.get::<ApiKey>() {
            Some(key) => key.clone(),
            None => check_api_key(state, parts)?,
        };
        Self::keyed(state, parts, path, key)
    }

    /// [`Caller::of`] with the API key [`admitted`] already read.
    pub fn keyed(state: &Credentials, parts: &Parts, path: &str, key: ApiKey) -> Result<Self, ApiError> {
        let claims = match (bearer_token(&parts.headers)?, &key) {
            (Some(token), ApiKey::Opaque { key, kind }) if token == key.expose() => {
                Arc::new(Claims::of_role(kind.role()))
            }
            (Some(token), _) => state.jwt.verify_shared(token)?,
            // supabase-js always sends a bearer; without one the API key speaks
            // for the caller, as the hosted gateway's key mapping does.
            (None, ApiKey::Opaque { kind, .. }) => Arc::new(Claims::of_role(kind.role())),
            (None, ApiKey::Jwt(claims)) => claims.clone()?,
            (None, ApiKey::Missing) => Arc::new(Claims::anonymous()),
        };
        Ok(Caller {
            claims,
            method: parts.method.as_str().to_owned(),
            path: path.to_owned(),
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
    Jwt(Result<Arc<Claims>, JwtError>),
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
        return Ok(ApiKey::Opaque { key: Secret::new(key.into_owned()), kind });
    }
    if !state.legacy_api_keys {
        return Err(ApiError::InvalidApiKey);
    }
    Ok(ApiKey::Jwt(state.jwt.verify_shared(&key)))
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

/// The `apikey` header (borrowed), or the `apikey` query parameter.
fn api_key(parts: &Parts) -> Option<Cow<'_, str>> {
    if let Some(value) = parts.headers.get("apikey") {
        return value.to_str().ok().map(Cow::Borrowed);
    }
    let query = parts.uri.query()?;
    form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == "apikey").map(|(_, value)| value)
}

/// The headers as a JSON object, names in order, written from the header map
/// without copying names and values into JSON values first.
pub fn headers_json(headers: &HeaderMap) -> String {
    let mut pairs: Vec<(&str, Cow<'_, str>, bool)> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        if let Some((value, escaped)) = visible_text(value) {
            pairs.push((name.as_str(), Cow::Borrowed(value), escaped));
        }
    }
    // Stable: repeated headers keep their order, and are joined the way HTTP
    // folds them.
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs.dedup_by(|later, kept| {
        if later.0 != kept.0 {
            return false;
        }
        let text = kept.1.to_mut();
        text.push_str(", ");
        text.push_str(&later.1);
        kept.2 |= later.2;
        true
    });
    let mut json =
        String::with_capacity(pairs.iter().map(|(n, v, _)| n.len() + v.len() + 6).sum::<usize>() + 2);
    json.push('{');
    for (i, (name, value, escaped)) in pairs.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        // A header name is an HTTP token, which has nothing JSON escapes
        // (RFC 9110, "Tokens").
        json.push('"');
        json.push_str(name);
        json.push_str("\":");
        if *escaped {
            json.push_str(&serde_json::Value::from(value.as_ref()).to_string());
        } else {
            json.push('"');
            json.push_str(value);
            json.push('"');
        }
    }
    json.push('}');
    json
}

/// A header's value as text when it is visible ASCII (or tabs), which is
/// what `HeaderValue::to_str` accepts, and whether JSON must escape any of
/// it (a quote, a backslash, a tab). Both are read in one pass over every
/// byte, without stopping at the first hit, so the compiler turns it into
/// wide compares: two tokens of a few hundred bytes were a sixth of the
/// caller's instructions byte by byte (`bench/profile.sh`).
fn visible_text(value: &axum::http::HeaderValue) -> Option<(&str, bool)> {
    let bytes = value.as_bytes();
    // Flags OR-ed over every byte, with no early exit, so that the
    // compiler compares many bytes at a time.
    let (mut hidden, mut escaped) = (0u8, 0u8);
    for &b in bytes {
        hidden |= u8::from((b < 0x20 && b != b'\t') || b >= 0x7f);
        escaped |= u8::from(b == b'"' || b == b'\\' || b == b'\t');
    }
    if hidden == 0 { std::str::from_utf8(bytes).ok().map(|text| (text, escaped != 0)) } else { None }
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
    admit(&state, &mut parts)?;
    Ok(next.run(Request::from_parts(parts, body)).await)
}

/// [`require_apikey`] for a service set to let a request with no key at all
/// through (the Supabase CLI's Kong in front of Auth): a key that is present
/// is checked as there, and a request without one goes on as anonymous.
pub async fn check_apikey_if_present(
    State(state): State<Arc<Credentials>>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let (mut parts, body) = request.into_parts();
    if api_key(&parts).is_some() {
        admit(&state, &mut parts)?;
    }
    Ok(next.run(Request::from_parts(parts, body)).await)
}

/// The check of [`require_apikey`]: the key kept on the request for the
/// [`Caller`] extractor, or the refusal.
fn admit(state: &Credentials, parts: &mut Parts) -> Result<(), ApiError> {
    let key = admitted(state, parts)?;
    parts.extensions.insert(key);
    Ok(())
}

/// The check of [`require_apikey`], for a service that hands the key to
/// [`Caller::keyed`] itself: the request's API key, or the refusal.
pub fn admitted(state: &Credentials, parts: &Parts) -> Result<ApiKey, ApiError> {
    // Put there by `as_service_role_within` alone: no header sets an extension.
    if parts.extensions.get::<Within>().is_some() {
        return parts.extensions.get::<ApiKey>().cloned().ok_or(ApiError::NoApiKey);
    }
    let key = check_api_key(state, parts)?;
    match &key {
        ApiKey::Missing => Err(ApiError::NoApiKey),
        ApiKey::Opaque { .. } => Ok(key),
        ApiKey::Jwt(Ok(claims)) if matches!(claims.role, Role::Anon | Role::ServiceRole) => Ok(key),
        ApiKey::Jwt(_) => Err(ApiError::InvalidApiKey),
    }
}

/// Marks a request made inside the gateway, never from the network, for a
/// service's router to run as `service_role`: the operator console's table
/// editor sends its reads and writes of rows through `/rest/v1`'s planner so,
/// as Studio's table editor works as the project's owner. Any credential the
/// request carries is dropped.
pub fn as_service_role_within(request: &mut Request) {
    let headers = request.headers_mut();
    headers.remove(axum::http::header::AUTHORIZATION);
    headers.remove("apikey");
    let extensions = request.extensions_mut();
    extensions.insert(Within);
    extensions.insert(ApiKey::Jwt(Ok(Arc::new(Claims::of_role(Role::ServiceRole)))));
}

/// The mark of [`as_service_role_within`].
#[derive(Clone, Copy, Debug)]
struct Within;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderName, HeaderValue};

    /// What `request.headers` must be: the object of names (in order) and
    /// values (repeated ones joined by ", "), as serde_json writes it.
    fn expected(pairs: &[(&str, &str)]) -> String {
        let mut map = std::collections::BTreeMap::<&str, String>::new();
        for (name, value) in pairs {
            map.entry(name)
                .and_modify(|v| *v = format!("{v}, {value}"))
                .or_insert_with(|| (*value).to_owned());
        }
        serde_json::to_string(&map).unwrap()
    }

    #[test]
    fn headers_are_one_json_object_in_name_order_with_repeats_joined() {
        let cases: [&[(&str, &str)]; 7] = [
            &[],
            &[("x-c", "plain"), ("x-c", "then \"quoted\"")],
            &[("host", "127.0.0.1"), ("accept", "application/json")],
            &[("x-b", "2"), ("x-a", "1"), ("x-b", "3"), ("x-a", "0")],
            &[("x-quote", "say \"hi\" \\ there")],
            &[("x-tab", "a\tb")],
            &[("authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"), ("apikey", "sb_publishable_x")],
        ];
        for pairs in cases {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.append(HeaderName::from_static(name), HeaderValue::from_str(value).unwrap());
            }
            assert_eq!(headers_json(&headers), expected(pairs), "{pairs:?}");
        }
    }

    #[test]
    fn values_that_are_not_text_are_left_out() {
        let mut headers = HeaderMap::new();
        headers.insert("x-bytes", HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap());
        headers.insert("x-text", HeaderValue::from_static("ok"));
        assert_eq!(headers_json(&headers), r#"{"x-text":"ok"}"#);
    }
}
