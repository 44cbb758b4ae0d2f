//! `POST /oauth/token` and `GET /oauth/userinfo` (supabase/auth
//! `internal/api/oauthserver/handlers.go`, `auth.go`; the client
//! authentication of `requireOAuthClientAuth` in `internal/api/middleware.go`).
//!
//! The client authenticates as it registered: HTTP Basic
//! (`client_secret_basic`), `client_id` and `client_secret` in the body
//! (`client_secret_post`), or `client_id` alone for a public client
//! (`none`). Bodies are form-encoded (RFC 6749 §4.1.3) or JSON. Errors of the
//! grant itself are OAuth's `{error, error_description}`.

use axum::{
    Json,
    body::Bytes,
    extract::State,
    http::{HeaderMap, header},
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::clients::{Client, secret_matches};
use super::{enabled, scopes, store, verifier_matches};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{ClientIp, SignedIn, UserAgent};
use crate::handlers::user::current_user;
use crate::ratelimit::{self, Bucket};
use crate::store::Refreshed;
use crate::tokens;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

#[derive(Deserialize, Default, Debug, PartialEq)]
#[serde(default)]
pub struct TokenParams {
    grant_type: String,
    code: String,
    refresh_token: String,
    redirect_uri: String,
    client_id: String,
    client_secret: String,
    code_verifier: String,
    resource: String,
}

/// The body, JSON when the content type says so and a form otherwise.
fn params_of(headers: &HeaderMap, body: &[u8]) -> Result<TokenParams, AuthError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"));
    if json {
        return serde_json::from_slice(body)
            .map_err(|_| AuthError::oauth("invalid_request", "Invalid JSON body"));
    }
    let mut params = TokenParams::default();
    for (key, value) in form_urlencoded::parse(body) {
        let slot = match &*key {
            "grant_type" => &mut params.grant_type,
            "code" => &mut params.code,
            "refresh_token" => &mut params.refresh_token,
            "redirect_uri" => &mut params.redirect_uri,
            "client_id" => &mut params.client_id,
            "client_secret" => &mut params.client_secret,
            "code_verifier" => &mut params.code_verifier,
            "resource" => &mut params.resource,
            _ => continue,
        };
        if slot.is_empty() {
            *slot = value.into_owned();
        }
    }
    Ok(params)
}

/// The client's id, secret and the method they came by.
fn credentials(
    headers: &HeaderMap,
    params: &TokenParams,
) -> Result<(String, String, &'static str), AuthError> {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "));
    if let Some(encoded) = basic {
        let invalid = |what: &str| {
            AuthError::invalid_client_credentials(&format!("Invalid client credentials: {what}"))
        };
        let decoded = STANDARD.decode(encoded.trim()).map_err(|_| invalid("invalid basic auth encoding"))?;
        let decoded = String::from_utf8(decoded).map_err(|_| invalid("invalid basic auth encoding"))?;
        let (id, secret) = decoded.split_once(':').ok_or_else(|| invalid("invalid basic auth format"))?;
        return Ok((id.to_owned(), secret.to_owned(), "client_secret_basic"));
    }
    let method = if params.client_secret.is_empty() { "none" } else { "client_secret_post" };
    Ok((params.client_id.clone(), params.client_secret.clone(), method))
}

/// The client the request authenticates as, checked as GoTrue's
/// `requireOAuthClientAuth` checks it; `None` when it names none.
async fn authenticated_client(
    state: &AuthState,
    headers: &HeaderMap,
    params: &TokenParams,
) -> Result<Option<Client>, ApiError> {
    let (id, secret, method) = credentials(headers, params)?;
    if id.is_empty() {
        return Ok(None);
    }
    let id = Uuid::parse_str(&id)
        .map_err(|_| AuthError::invalid_client_credentials("Invalid client_id format"))?;
    let client = store::find_client(&state.db, id)
        .await?
        .ok_or_else(|| AuthError::invalid_client_credentials("Invalid client credentials"))?;
    if method != client.token_endpoint_auth_method {
        return Err(AuthError::invalid_client_credentials(&format!(
            "invalid authentication method: client is registered for '{}' but '{method}' was used",
            client.token_endpoint_auth_method
        ))
        .into());
    }
    let problem = match (client.is_public(), secret.is_empty()) {
        (true, false) => Some("public clients must not provide client_secret"),
        (true, true) => None,
        (false, true) => Some("confidential clients must provide client_secret"),
        (false, false) if !secret_matches(&client, &secret) => Some("invalid client credentials"),
        (false, false) => None,
    };
    match problem {
        Some(problem) => Err(AuthError::invalid_client_credentials(problem).into()),
        None => Ok(Some(client)),
    }
}

pub async fn token(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let params = params_of(&headers, &body)?;
    let client = authenticated_client(&state, &headers, &params).await?;
    if params.grant_type.is_empty() {
        return Err(AuthError::oauth("invalid_request", "grant_type is required").into());
    }
    let Some(client) = client else {
        return Err(AuthError::oauth("invalid_client", "Client authentication required").into());
    };
    if !client.grant_types.contains(&params.grant_type) {
        let message = format!("Client is not allowed to use grant type: {}", params.grant_type);
        return Err(AuthError::oauth("unsupported_grant_type", message).into());
    }
    let session = match params.grant_type.as_str() {
        "authorization_code" => code_grant(&state, ip, user_agent.as_deref(), &client, &params).await?,
        "refresh_token" => refresh_grant(&state, ip, &client, &params).await?,
        other => {
            let message = format!("Unsupported grant type: {other}");
            return Err(AuthError::oauth("unsupported_grant_type", message).into());
        }
    };
    // OAuth's token response (RFC 6749 §5.1): the session without its user.
    let keep = ["access_token", "token_type", "expires_in", "refresh_token"];
    let answer: Map<String, Value> =
        keep.iter().filter_map(|k| session.get(*k).map(|v| ((*k).to_owned(), v.clone()))).collect();
    Ok(Json(Value::Object(answer)))
}

async fn code_grant(
    state: &AuthState,
    ip: Option<std::net::IpAddr>,
    user_agent: Option<&str>,
    client: &Client,
    params: &TokenParams,
) -> Result<Value, ApiError> {
    if params.code.is_empty() {
        return Err(
            AuthError::oauth("invalid_request", "code is required for authorization_code grant").into()
        );
    }
    let invalid = |description: &str| -> ApiError { AuthError::oauth("invalid_grant", description).into() };
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let Some(issued) = store::lock_code(&mut session, &params.code).await? else {
        session.rollback().await?;
        return Err(invalid("Invalid authorization code"));
    };
    let refusal = if issued.expired {
        Some("Authorization code has expired".to_owned())
    } else if issued.client_id != client.id {
        Some("Authorization code was not issued for this client".to_owned())
    } else if !params.resource.is_empty() && Some(&params.resource) != issued.resource.as_ref() {
        Some("Authorization code resource does not match the resource parameter".to_owned())
    } else if !params.redirect_uri.is_empty() && params.redirect_uri != issued.redirect_uri {
        Some("Invalid redirect_uri".to_owned())
    } else if params.code_verifier.is_empty() {
        Some("PKCE verification failed: code_verifier is required when PKCE challenge is present".to_owned())
    } else if issued.code_challenge.as_deref().is_none_or(|c| !verifier_matches(c, &params.code_verifier)) {
        Some(
            "PKCE verification failed: code challenge does not match previously saved code verifier"
                .to_owned(),
        )
    } else {
        None
    };
    if let Some(refusal) = refusal {
        session.rollback().await?;
        return Err(invalid(&refusal));
    }
    let Some(user_id) = issued.user_id else {
        session.rollback().await?;
        return Err(invalid("Authorization code has no associated user"));
    };
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let started =
        store::start_client_session(&mut session, &issued, user_id, &digest, user_agent, ip).await?;
    let Some(started) = started else {
        session.rollback().await?;
        return Err(AuthError::oauth("access_denied", "User is banned").into());
    };
    session.commit().await?;
    let grant = Grant { client_id: Some(client.id), ..Grant::of(started, &refresh_token) };
    session_response(state, grant).await
}

async fn refresh_grant(
    state: &AuthState,
    ip: Option<std::net::IpAddr>,
    client: &Client,
    params: &TokenParams,
) -> Result<Value, ApiError> {
    if params.refresh_token.is_empty() {
        return Err(
            AuthError::oauth("invalid_request", "refresh_token is required for refresh_token grant").into()
        );
    }
    ratelimit::take(state, Bucket::TokenRefresh, ip).await?;
    if !tokens::well_formed(&params.refresh_token) {
        return Err(AuthError::refresh_token_not_found().into());
    }
    let interval = state.config.refresh_token_reuse_interval;
    let refreshed =
        crate::store::refresh(&state.db, &params.refresh_token, interval, Some(client.id)).await?;
    let (started, refresh_token) = match refreshed {
        Refreshed::Issued { started, refresh_token } => (started, refresh_token),
        Refreshed::NotFound => return Err(AuthError::refresh_token_not_found().into()),
        Refreshed::Banned => return Err(AuthError::user_banned().into()),
        Refreshed::WrongClient(reason) => return Err(AuthError::oauth("invalid_client", reason).into()),
        Refreshed::Reused => {
            tracing::warn!("a revoked refresh token was reused; its session was revoked");
            return Err(AuthError::refresh_token_already_used().into());
        }
    };
    let grant = Grant { client_id: Some(client.id), ..Grant::refreshed(started, &refresh_token) };
    session_response(state, grant).await
}

/// `GET /oauth/userinfo`: `sub`, and what the session's scopes allow
/// (GoTrue's `OAuthUserInfo`).
pub async fn userinfo(State(state): State<AuthState>, signed_in: SignedIn) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    current_user(&state, &signed_in).await?;
    let found = store::user_and_scopes(&state.db, signed_in.user_id, signed_in.session_id).await?;
    let (user, granted) = found.ok_or_else(AuthError::user_not_found)?;
    Ok(Json(claims_for(&user, granted.as_deref().map(scopes).unwrap_or_default().as_slice())))
}

/// The claims of `user` that `granted` scopes reveal.
pub fn claims_for(user: &Value, granted: &[&str]) -> Value {
    let text = |key: &str| user.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let meta = |key: &str| user["user_metadata"].get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let mut info = json!({ "sub": text("id").unwrap_or_default() });
    let has = |scope: &str| granted.contains(&scope);
    if has("email") {
        if let Some(email) = text("email") {
            info["email"] = json!(email);
        }
        if text("email_confirmed_at").is_some() {
            info["email_verified"] = json!(true);
        }
    }
    if has("profile") {
        if let Some(name) = meta("name").or_else(|| text("email")) {
            info["name"] = json!(name);
        }
        if let Some(picture) = meta("picture").or_else(|| meta("avatar_url")) {
            info["picture"] = json!(picture);
        }
        if let Some(username) = meta("preferred_username").or_else(|| meta("username")) {
            info["preferred_username"] = json!(username);
        }
        let updated = text("updated_at").and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        if let Some(updated) = updated {
            info["updated_at"] = json!(updated.timestamp());
        }
        if user["user_metadata"].is_object() {
            info["user_metadata"] = user["user_metadata"].clone();
        }
    }
    if has("phone") {
        if let Some(phone) = text("phone") {
            info["phone"] = json!(phone);
        }
        if text("phone_confirmed_at").is_some() {
            info["phone_verified"] = json!(true);
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_requests_come_as_forms_or_as_json() {
        let mut form = HeaderMap::new();
        form.insert(header::CONTENT_TYPE, "application/x-www-form-urlencoded".parse().expect("header"));
        let mut json_type = HeaderMap::new();
        json_type.insert(header::CONTENT_TYPE, "application/json; charset=utf-8".parse().expect("header"));
        let expected = TokenParams {
            grant_type: "authorization_code".to_owned(),
            code: "c d".to_owned(),
            client_id: "id".to_owned(),
            ..TokenParams::default()
        };
        let cases = [
            (&form, &b"grant_type=authorization_code&code=c+d&client_id=id&other=1"[..]),
            (&HeaderMap::new(), &b"grant_type=authorization_code&code=c%20d&client_id=id"[..]),
            (&json_type, &br#"{"grant_type":"authorization_code","code":"c d","client_id":"id"}"#[..]),
        ];
        for (headers, body) in cases {
            assert_eq!(params_of(headers, body).expect("params"), expected);
        }
        assert!(params_of(&json_type, b"grant_type=x").is_err());
    }

    #[test]
    fn clients_authenticate_by_basic_by_post_or_by_id_alone() {
        let mut basic = HeaderMap::new();
        basic.insert(
            header::AUTHORIZATION,
            format!("Basic {}", STANDARD.encode("id:s3cret")).parse().expect("h"),
        );
        let with = |id: &str, secret: &str| TokenParams {
            client_id: id.to_owned(),
            client_secret: secret.to_owned(),
            ..TokenParams::default()
        };
        let cases = [
            (&basic, with("", ""), ("id", "s3cret", "client_secret_basic")),
            (&HeaderMap::new(), with("id", "s3cret"), ("id", "s3cret", "client_secret_post")),
            (&HeaderMap::new(), with("id", ""), ("id", "", "none")),
            (&HeaderMap::new(), with("", ""), ("", "", "none")),
        ];
        for (headers, params, (id, secret, method)) in cases {
            let got = credentials(headers, &params).expect("credentials");
            assert_eq!((got.0.as_str(), got.1.as_str(), got.2), (id, secret, method));
        }
    }

    #[test]
    fn userinfo_reveals_what_the_scopes_allow() {
        let user = json!({"id": "u1", "email": "a@b.co", "email_confirmed_at": "2024-01-01T00:00:00Z",
            "phone": "15551234567", "phone_confirmed_at": null, "updated_at": "2024-01-02T00:00:00Z",
            "user_metadata": {"name": "Ada", "avatar_url": "https://img.example/a.png"}});
        let cases: [(&[&str], Value); 4] = [
            (&[], json!({"sub": "u1"})),
            (&["openid"], json!({"sub": "u1"})),
            (&["email"], json!({"sub": "u1", "email": "a@b.co", "email_verified": true})),
            (
                &["profile", "phone"],
                json!({"sub": "u1", "name": "Ada", "picture": "https://img.example/a.png", "updated_at": 1_704_153_600,
                    "user_metadata": {"name": "Ada", "avatar_url": "https://img.example/a.png"}, "phone": "15551234567"}),
            ),
        ];
        for (granted, expected) in cases {
            assert_eq!(claims_for(&user, granted), expected, "{granted:?}");
        }
    }
}
