//! `GET /.well-known/openid-configuration` and
//! `/.well-known/oauth-authorization-server`: one document for both (OpenID
//! Connect Discovery 1.0 extends RFC 8414), as GoTrue's `WellKnownOpenID`
//! (supabase/auth `internal/api/jwks.go`) serves it. Endpoints hang off the
//! issuer (`AUTH_JWT_ISSUER`), which is `/auth/v1`'s public URL.

use axum::{
    Json,
    extract::State,
    http::header,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

use super::{SUPPORTED_SCOPES, enabled};
use crate::AuthState;
use gateway_core::error::ApiError;

/// The discovery document. Only `S256` is listed among the PKCE methods,
/// the one `/oauth/authorize` accepts here.
pub fn document(state: &AuthState) -> Value {
    let config = &state.config;
    let base = config.jwt_issuer.trim_end_matches('/');
    let mut document = json!({
        "issuer": config.jwt_issuer,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "jwks_uri": format!("{base}/.well-known/jwks.json"),
        "userinfo_endpoint": format!("{base}/oauth/userinfo"),
        "scopes_supported": SUPPORTED_SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256", "HS256", "ES256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "claims_supported": ["sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified",
            "phone_number", "phone_number_verified", "name", "picture", "preferred_username", "updated_at"],
        "code_challenge_methods_supported": ["S256"],
    });
    if config.oauth_server_enabled && config.oauth_server_allow_dynamic_registration {
        document["registration_endpoint"] = json!(format!("{base}/oauth/clients/register"));
    }
    document
}

fn cached(document: Value) -> Response {
    ([(header::CACHE_CONTROL, "public, max-age=600")], Json(document)).into_response()
}

/// Served whether or not the server is on, as GoTrue serves it.
pub async fn openid_configuration(State(state): State<AuthState>) -> Response {
    cached(document(&state))
}

pub async fn authorization_server(State(state): State<AuthState>) -> Result<Response, ApiError> {
    enabled(&state)?;
    Ok(cached(document(&state)))
}
