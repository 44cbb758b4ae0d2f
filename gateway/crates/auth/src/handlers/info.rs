//! `GET /settings`, `GET /health`, and the routes the hosted gateway leaves
//! open (`/.well-known/jwks.json`, `/verify`, `/callback`, `/authorize`).

use axum::{
    Json,
    extract::State,
    http::{HeaderValue, header},
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use crate::AuthState;
use crate::error::AuthError;
use gateway_core::error::ApiError;

/// What sign-in methods exist (supabase/auth `internal/api/settings.go`).
pub async fn settings(State(state): State<AuthState>) -> Json<Value> {
    let config = &state.config;
    let external: serde_json::Map<String, Value> = [
        "anonymous_users",
        "apple",
        "azure",
        "bitbucket",
        "discord",
        "facebook",
        "figma",
        "fly",
        "github",
        "gitlab",
        "google",
        "keycloak",
        "kakao",
        "linkedin_oidc",
        "notion",
        "spotify",
        "slack_oidc",
        "workos",
        "twitch",
        "twitter",
        "zoom",
    ]
    .into_iter()
    .map(|provider| (provider.to_owned(), Value::Bool(false)))
    .chain([
        ("email".to_owned(), Value::Bool(true)),
        ("phone".to_owned(), Value::Bool(config.sms.phone_enabled)),
    ])
    .chain([("anonymous_users".to_owned(), Value::Bool(config.anonymous_users_enabled))])
    // Configured OpenID Connect providers, by the name apps pass as `provider`.
    .chain(config.oidc_providers.iter().map(|p| (p.name.clone(), Value::Bool(true))))
    .collect();
    Json(json!({
        "external": external,
        "disable_signup": !config.signup_enabled,
        "mailer_autoconfirm": config.autoconfirm,
        "phone_autoconfirm": config.sms.autoconfirm.unwrap_or(config.autoconfirm),
        "sms_provider": config.sms.provider.map_or("", |p| p.name()),
        "saml_enabled": false,
    }))
}

pub async fn health() -> Json<Value> {
    Json(json!({
        "version": concat!("gateway-", env!("CARGO_PKG_VERSION")),
        "name": "GoTrue",
        "description": "GoTrue is a user registration and authentication API",
    }))
}

/// The public halves of the signing keys in use (current, standby, and
/// previously used ones not revoked) and of the operator's `--jwt-keys`, which
/// auth-js's `getClaims` verifies tokens with. HS256 keys have no public half
/// and are never listed. Cached for 10 minutes, auth-js's own `JWKS_TTL`: a
/// key is published as standby before it signs anything, so caches catch up
/// before it matters.
pub async fn jwks(State(state): State<AuthState>) -> Response {
    let mut response = Json(state.credentials.jwt.jwks()).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=600"));
    response
}

/// E-mail links and OAuth are not part of this server.
pub async fn not_implemented() -> ApiError {
    AuthError::not_implemented("This endpoint").into()
}
