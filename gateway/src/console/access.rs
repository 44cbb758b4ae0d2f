//! Who may use the console: operators, their sign-in, their session cookie,
//! and the checks every `/_/api/` request passes.
//!
//! - The session is a random token in an HttpOnly, SameSite=Strict cookie;
//!   the database keeps its SHA-256 only, with an expiry.
//! - CSRF: a change (any method but GET, HEAD, OPTIONS) from another origin
//!   is refused by its `Sec-Fetch-Site` or `Origin`, and one with a session
//!   must also carry the session's token in `X-Console-CSRF`, which only a
//!   page of the console's origin can read (OWASP's "Fetch Metadata" and
//!   "synchronizer token" defences,
//!   <https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html>).
//! - API keys and bearer tokens are refused outright, valid or not: the
//!   console is never reachable with the credentials of the APIs.
//! - Sign-ins are rate-limited per address, in the database so that it holds
//!   across gateways, and logged with the e-mail and address, never the
//!   password.

use std::net::SocketAddr;
use std::time::Duration;

use axum::{
    Json,
    extract::{ConnectInfo, FromRequestParts, Request, State},
    http::{HeaderMap, Method, header, request::Parts},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::ConsoleError;
use crate::AppState;

/// The session cookie's name.
pub const COOKIE: &str = "gateway_console";
/// The header a change carries the session's CSRF token in.
pub const CSRF_HEADER: &str = "x-console-csrf";
/// How long the bookkeeping statements may take.
const BOOKKEEPING_TIMEOUT: Duration = Duration::from_secs(5);

/// Refuses API credentials and changes from another origin, before any
/// handler runs.
pub async fn guard(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let has_api_key = headers.contains_key("apikey")
        || request.uri().query().is_some_and(|q| q.split('&').any(|pair| pair.starts_with("apikey=")));
    if has_api_key || headers.contains_key(header::AUTHORIZATION) {
        return ConsoleError::Unauthorized {
            code: "api_credentials_refused",
            message: "The console takes no API key or JWT; sign in as an operator",
        }
        .into_response();
    }
    if changes(request.method()) && !same_origin(headers) {
        tracing::warn!(
            method = %request.method(),
            path = %request.uri().path(),
            origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()).unwrap_or(""),
            "console refused a change from another origin"
        );
        return ConsoleError::Forbidden {
            code: "cross_origin",
            message: "The console refuses changes sent from another origin",
        }
        .into_response();
    }
    next.run(request).await
}

fn changes(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether a request came from the console's own origin, as far as its
/// headers tell. A browser sends `Sec-Fetch-Site` and, on a change, `Origin`;
/// a client that is no browser sends neither and has no cookie of a
/// browser's to abuse.
fn same_origin(headers: &HeaderMap) -> bool {
    // Every value counts: a request with two of a header is judged by the
    // worst.
    let values = |name| headers.get_all(name).iter().map(|v| v.to_str().unwrap_or("\u{0}"));
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let site_ok = values("sec-fetch-site").all(|site| site == "same-origin" || site == "none");
    let origin_ok = values(header::ORIGIN.as_str()).all(|origin| {
        let origin_host = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("\u{0}");
        !host.is_empty() && origin_host.eq_ignore_ascii_case(host)
    });
    site_ok && origin_ok
}

/// A signed-in operator, from the session cookie; a change must carry the
/// session's CSRF token too.
pub struct Operator {
    pub id: uuid::Uuid,
    pub email: String,
    pub csrf_token: String,
}

impl FromRequestParts<AppState> for Operator {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(token) = cookie(&parts.headers, COOKIE) else {
            return Err(ConsoleError::Unauthorized { code: "no_session", message: "Sign in first" });
        };
        let owner = state.db.as_schema_owner(BOOKKEEPING_TIMEOUT).await?;
        let rows = owner
            .client()
            .query(
                "select o.id, o.email, s.csrf_token from _console.sessions s \
                 join _console.operators o on o.id = s.operator_id \
                 where s.token_hash = $1 and s.expires_at > now()",
                &[&digest(&token)],
            )
            .await
            .map_err(ConsoleError::internal)?;
        let Some(row) = rows.first() else {
            return Err(ConsoleError::Unauthorized {
                code: "no_session",
                message: "The session ended; sign in again",
            });
        };
        let operator = Operator { id: row.get(0), email: row.get(1), csrf_token: row.get(2) };
        if changes(&parts.method) {
            let sent = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
            if !constant_time_eq(sent.as_bytes(), operator.csrf_token.as_bytes()) {
                return Err(ConsoleError::Forbidden {
                    code: "csrf_token",
                    message: "A change needs the session's token in X-Console-CSRF",
                });
            }
        }
        Ok(operator)
    }
}

/// `POST /_/api/sign-in` with `{email, password}`: sets the session cookie
/// and answers the operator's e-mail and CSRF token.
pub async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ConsoleError> {
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/json"));
    if !json_body {
        return Err(ConsoleError::BadRequest("Send JSON: {\"email\", \"password\"}".to_owned()));
    }
    let body: Value = serde_json::from_slice(&body)
        .map_err(|_| ConsoleError::BadRequest("Send JSON: {\"email\", \"password\"}".to_owned()))?;
    let (Some(email), Some(password)) =
        (body.get("email").and_then(Value::as_str), body.get("password").and_then(Value::as_str))
    else {
        return Err(ConsoleError::BadRequest("Send JSON: {\"email\", \"password\"}".to_owned()));
    };
    let config = &state.config.console;
    let address = peer.ip().to_string();
    let owner = state.db.as_schema_owner(BOOKKEEPING_TIMEOUT).await?;
    let client = owner.client();
    let pg = ConsoleError::internal;
    client
        .execute("delete from _console.sign_in_attempts where at < now() - interval '5 minutes'", &[])
        .await
        .map_err(pg)?;
    let attempts: i64 = client
        .query_one(
            "with attempt as (insert into _console.sign_in_attempts (address) values ($1)) \
             select count(*) + 1 from _console.sign_in_attempts where address = $1",
            &[&address],
        )
        .await
        .map_err(pg)?
        .get(0);
    if attempts > i64::from(config.console_sign_in_limit) {
        tracing::warn!(email, address, "operator sign-in refused: too many attempts");
        return Err(ConsoleError::TooManyRequests);
    }
    let found = client
        .query_opt(
            "select id, password_hash from _console.operators where lower(email) = lower($1)",
            &[&email],
        )
        .await
        .map_err(pg)?;
    let hash = found.as_ref().map(|row| row.get::<_, String>(1));
    let matches = gateway_auth::password::verify(password, hash.as_deref()).await?;
    let Some(row) = found.filter(|_| matches) else {
        tracing::warn!(email, address, "operator sign-in refused: wrong e-mail or password");
        return Err(ConsoleError::Unauthorized {
            code: "invalid_credentials",
            message: "Wrong e-mail or password",
        });
    };
    let id: uuid::Uuid = row.get(0);
    let (token, csrf_token) = (random_token()?, random_token()?);
    let ttl = config.console_session_ttl.0;
    let seconds = ttl.as_secs_f64();
    client
        .execute(
            "with gone as (delete from _console.sessions where expires_at < now()), \
                  seen as (update _console.operators set last_sign_in_at = now() where id = $2) \
             insert into _console.sessions (token_hash, operator_id, csrf_token, expires_at) \
             values ($1, $2, $3, now() + make_interval(secs => $4))",
            &[&digest(&token), &id, &csrf_token, &seconds],
        )
        .await
        .map_err(pg)?;
    tracing::info!(email, address, "operator signed in");
    let secure =
        headers.get("x-forwarded-proto").is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"https"));
    let cookie = format!(
        "{COOKIE}={token}; Path={}; HttpOnly; SameSite=Strict; Max-Age={}{}",
        config.console_path,
        ttl.as_secs(),
        if secure { "; Secure" } else { "" }
    );
    let mut response = Json(json!({"email": email, "csrfToken": csrf_token})).into_response();
    response.headers_mut().insert(header::SET_COOKIE, cookie.parse().map_err(ConsoleError::internal)?);
    Ok(response)
}

/// `GET /_/api/session`: who is signed in, and the token a change needs.
pub async fn session(operator: Operator) -> Json<Value> {
    Json(json!({"email": operator.email, "csrfToken": operator.csrf_token}))
}

/// `POST /_/api/sign-out`: ends the session and clears the cookie.
pub async fn sign_out(
    State(state): State<AppState>,
    operator: Operator,
    headers: HeaderMap,
) -> Result<Response, ConsoleError> {
    if let Some(token) = cookie(&headers, COOKIE) {
        let owner = state.db.as_schema_owner(BOOKKEEPING_TIMEOUT).await?;
        owner
            .client()
            .execute("delete from _console.sessions where token_hash = $1", &[&digest(&token)])
            .await
            .map_err(ConsoleError::internal)?;
    }
    tracing::info!(email = operator.email, "operator signed out");
    let cookie = format!(
        "{COOKIE}=; Path={}; HttpOnly; SameSite=Strict; Max-Age=0",
        state.config.console.console_path
    );
    let mut response = axum::http::StatusCode::NO_CONTENT.into_response();
    response.headers_mut().insert(header::SET_COOKIE, cookie.parse().map_err(ConsoleError::internal)?);
    Ok(response)
}

/// Makes an operator, or sets the password of the one with that e-mail
/// (`gateway operators add`). The password is hashed as users' are.
pub async fn add_operator(
    db: &gateway_core::db::Db,
    email: &str,
    password: &str,
) -> Result<uuid::Uuid, ConsoleError> {
    let email = email.trim();
    if !email.contains('@') {
        return Err(ConsoleError::BadRequest(format!("{email:?} is no e-mail address")));
    }
    if password.chars().count() < 8 {
        return Err(ConsoleError::BadRequest(
            "an operator's password needs at least 8 characters".to_owned(),
        ));
    }
    let hash = gateway_auth::password::hash(password).await?;
    let owner = db.as_schema_owner(BOOKKEEPING_TIMEOUT).await?;
    let client = owner.client();
    let updated = client
        .query_opt(
            "update _console.operators set password_hash = $2 where lower(email) = lower($1) returning id",
            &[&email, &hash],
        )
        .await
        .map_err(ConsoleError::internal)?;
    if let Some(row) = updated {
        // A new password ends the sessions made with the old one.
        let id: uuid::Uuid = row.get(0);
        client
            .execute("delete from _console.sessions where operator_id = $1", &[&id])
            .await
            .map_err(ConsoleError::internal)?;
        return Ok(id);
    }
    let row = client
        .query_one(
            "insert into _console.operators (email, password_hash) values ($1, $2) returning id",
            &[&email, &hash],
        )
        .await
        .map_err(ConsoleError::internal)?;
    Ok(row.get(0))
}

/// The value of cookie `name`.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name && !value.is_empty()).then(|| value.to_owned())
        })
}

fn random_token() -> Result<String, ConsoleError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(ConsoleError::internal)?;
    Ok(hex::encode(bytes))
}

fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_same_origin_only_when_its_headers_say_so() {
        let cases: [(&[(&str, &str)], bool); 8] = [
            (&[], true),
            (&[("host", "a.test"), ("origin", "https://a.test")], true),
            (&[("host", "a.test"), ("origin", "https://b.test")], false),
            (&[("host", "a.test"), ("origin", "null")], false),
            (&[("sec-fetch-site", "same-origin")], true),
            (&[("sec-fetch-site", "same-site")], false),
            (&[("sec-fetch-site", "cross-site")], false),
            (&[("host", "a.test"), ("origin", "https://a.test"), ("origin", "https://b.test")], false),
        ];
        for (pairs, expected) in cases {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.append(*name, value.parse().expect("value"));
            }
            assert_eq!(same_origin(&headers), expected, "{pairs:?}");
        }
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, "a=1; gateway_console=abc; b=2".parse().expect("cookie"));
        assert_eq!(cookie(&headers, COOKIE).as_deref(), Some("abc"));
        headers.insert(header::COOKIE, "gateway_console=".parse().expect("cookie"));
        assert_eq!(cookie(&headers, COOKIE), None);
    }
}
