//! `GET /settings`, `GET /health`, and the routes the hosted gateway leaves
//! open (`/.well-known/jwks.json`, `/verify`, `/callback`, `/authorize`).

use axum::{Json, extract::State};
use serde_json::{Value, json};

use crate::auth::error::AuthError;
use crate::error::ApiError;
use crate::state::AppState;

/// What sign-in methods exist (supabase/auth `internal/api/settings.go`).
pub async fn settings(State(state): State<AppState>) -> Json<Value> {
    let config = &state.config.auth;
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
    .chain([("email".to_owned(), Value::Bool(true)), ("phone".to_owned(), Value::Bool(true))])
    .collect();
    Json(json!({
        "external": external,
        "disable_signup": !config.signup_enabled,
        "mailer_autoconfirm": config.autoconfirm,
        "phone_autoconfirm": config.autoconfirm,
        "sms_provider": "",
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

/// Access tokens are HS256 with a shared secret: there is no public key to
/// publish, so the set is empty (auth-js then verifies through `/user`).
pub async fn jwks() -> Json<Value> {
    Json(json!({ "keys": [] }))
}

/// E-mail links and OAuth are not part of this server.
pub async fn not_implemented() -> ApiError {
    AuthError::not_implemented("This endpoint").into()
}
