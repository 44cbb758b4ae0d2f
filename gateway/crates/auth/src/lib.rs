//! `/auth/v1`: the GoTrue-compatible API, enough of it for `@supabase/auth-js`
//! 2.x unmodified (wire-protocol.md §3; reliability.md §2, G24-G29).
//!
//! Every route but the ones the hosted gateway leaves open (`/verify`,
//! `/callback`, `/authorize`, `/.well-known/jwks.json`) needs an API key; errors
//! take GoTrue's shape.
//!
//! | route | who | what |
//! |---|---|---|
//! | `POST /token?grant_type=password` | anyone with the key | e-mail or phone + password → session |
//! | `POST /token?grant_type=refresh_token` | anyone with the key | rotate → session |
//! | `POST /signup` | anyone with the key | new user (+ session when autoconfirm) |
//! | `GET`/`PUT /user` | signed in | read / change the user |
//! | `POST /logout?scope=` | signed in | end sessions, 204 |
//! | `GET /settings`, `GET /health` | anyone with the key | what is enabled |
//! | `/admin/users[/{id}]` | service_role | user CRUD |
//! | `GET /admin/users/{id}/factors`, `DELETE …/factors/{factor_id}` | service_role | a user's MFA factors |
//! | `POST /factors`, `/factors/{id}[/challenge\|/verify]` | signed in, not anonymous | TOTP and WebAuthn MFA (`handlers::factors`) |
//! | `/passkeys/registration/*`, `/passkeys/authentication/*`, `/passkeys[/{id}]` | as GoTrue | passkeys (`handlers::passkeys`) |
//! | `GET /authorize`, `GET`/`POST /callback` | the browser | OpenID Connect sign-in (`handlers::oauth`) |
//! | `POST /token?grant_type=pkce\|id_token` | anyone with the key | auth code or provider's ID token → session |
//! | `POST /token?grant_type=web3` | anyone with the key | signed Ethereum or Solana sign-in message → session (`handlers::web3`) |
//! | `/user/identities/authorize`, `/user/identities/{id}` | signed in | link / unlink, when manual linking is on |
//! | `POST /recover`, `/otp` (`/magiclink`), `/resend`, `GET /reauthenticate` | anyone with the key (reauthenticate: signed in) | mail a link and code (`handlers::mail`); with a phone, a code by SMS (`handlers::phone`, `sms`) |
//! | `GET`/`POST /verify` | anyone (GET: the mailed link) | use a mailed or texted token → session (`handlers::verify`) |
//! | `POST /invite`, `/admin/generate_link` | service_role | invite by mail; links without mail |
//! | `/oauth/*`, `/admin/oauth/clients`, `/user/oauth/grants`, `/.well-known/openid-configuration` | as GoTrue | the OAuth 2.1 server, when `AUTH_OAUTH_SERVER_ENABLED` (`oauth_server`) |
//! | `POST /sso`, `POST /sso/saml/acs`, `GET /sso/saml/metadata` | as GoTrue | SAML 2.0 single sign-on, when `AUTH_SAML_ENABLED` (`handlers::sso`, `saml`) |
//! | `/admin/sso/providers[/{id}]` | service_role | SAML identity providers (`handlers::sso_admin`) |

pub mod claims;
pub mod config;
pub mod error;
pub mod external;
pub mod extract;
pub mod flow_state;
pub mod handlers;
pub mod hooks;
pub mod mail;
pub mod mfa;
pub mod mfa_store;
pub mod oauth_server;
pub mod oidc;
pub mod password;
pub mod ratelimit;
pub mod redirect;
pub mod saml;
pub mod saml_store;
pub mod sms;
pub mod store;
pub mod tokens;
pub mod users;
pub mod web3;
pub mod webauthn;
pub mod webauthn_store;

use axum::{
    Router, middleware,
    routing::{delete, get, patch, post},
};

pub use config::AuthConfig;

use std::sync::Arc;

use axum::extract::FromRef;
use gateway_core::body::Limits;
use gateway_core::caller::{Credentials, check_apikey_if_present, require_apikey};
use gateway_core::db::Db;
use gateway_core::error::{ApiError, shaped};
use handlers::{admin, factors, info, logout, oauth, passkeys, signup, sso, sso_admin, token, user};
use handlers::{mail as mail_flows, verify};
use oauth_server::{authorize, clients, discovery, grants, token as oauth_token};

/// What the auth API's handlers see.
#[derive(Clone)]
pub struct AuthState {
    pub db: Db,
    pub credentials: Arc<Credentials>,
    pub config: Arc<AuthConfig>,
    /// The gateway's `SITE_URL`, which `AUTH_SITE_URL` overrides.
    pub gateway_site_url: Arc<str>,
    pub limits: Limits,
}

impl FromRef<AuthState> for Arc<Credentials> {
    fn from_ref(state: &AuthState) -> Self {
        state.credentials.clone()
    }
}

/// GoTrue's `SITE_URL`, where mailed links and sign-in flows end when
/// `redirect_to` is absent or not allowed (and whose host names TOTP
/// factors): `AUTH_SITE_URL`, else the gateway's `SITE_URL`.
pub fn site_url(state: &AuthState) -> &str {
    state.config.site_url.as_deref().unwrap_or(&state.gateway_site_url)
}

pub fn router(state: AuthState) -> Router {
    let keyed = Router::new()
        .route("/token", post(token::token))
        .route("/signup", post(signup::signup))
        .route("/user", get(user::get_user).put(user::update_user))
        .route("/logout", post(logout::logout))
        .route("/settings", get(info::settings))
        .route("/health", get(info::health))
        .route("/admin/users", get(admin::list).post(admin::create))
        .route("/admin/users/{id}", get(admin::get).put(admin::update).delete(admin::delete))
        .route("/admin/users/{id}/factors", get(admin::factors))
        .route("/admin/users/{id}/factors/{factor_id}", delete(admin::delete_factor))
        .route("/admin/users/{id}/passkeys", get(admin::passkeys))
        .route("/admin/users/{id}/passkeys/{passkey_id}", delete(admin::delete_passkey))
        .route("/factors", post(factors::enroll))
        .route("/factors/{id}", delete(factors::unenroll))
        .route("/factors/{id}/challenge", post(factors::challenge))
        .route("/factors/{id}/verify", post(factors::verify))
        .route("/passkeys", get(passkeys::list))
        .route("/passkeys/{id}", patch(passkeys::update).delete(passkeys::delete))
        .route("/passkeys/registration/options", post(passkeys::registration_options))
        .route("/passkeys/registration/verify", post(passkeys::registration_verify))
        .route("/passkeys/authentication/options", post(passkeys::authentication_options))
        .route("/passkeys/authentication/verify", post(passkeys::authentication_verify))
        .route("/user/identities/authorize", get(oauth::link_identity))
        .route("/user/identities/{id}", delete(oauth::unlink_identity))
        .route("/sso", post(sso::sso))
        .route("/admin/sso/providers", get(sso_admin::list).post(sso_admin::create))
        .route(
            "/admin/sso/providers/{idp_id}",
            get(sso_admin::get).put(sso_admin::update).delete(sso_admin::delete),
        )
        .route("/recover", post(mail_flows::recover))
        .route("/otp", post(mail_flows::otp))
        // GoTrue's older name for an e-mail `/otp`, still routed upstream.
        .route("/magiclink", post(mail_flows::otp))
        .route("/resend", post(mail_flows::resend))
        .route("/reauthenticate", get(mail_flows::reauthenticate))
        .route("/invite", post(mail_flows::invite))
        .route("/admin/generate_link", post(mail_flows::generate_link))
        .route("/admin/oauth/clients", get(clients::admin_list).post(clients::admin_create))
        .route(
            "/admin/oauth/clients/{id}",
            get(clients::admin_get).put(clients::admin_update).delete(clients::admin_delete),
        )
        .route("/admin/oauth/clients/{id}/regenerate_secret", post(clients::admin_regenerate_secret))
        .route("/oauth/authorizations/{id}", get(authorize::details))
        .route("/oauth/authorizations/{id}/consent", post(authorize::consent))
        .route("/user/oauth/grants", get(grants::list).delete(grants::revoke))
        .fallback(|| async { ApiError::NotFound });
    let keyed = if state.config.api_key_required {
        keyed.layer(middleware::from_fn_with_state(state.credentials.clone(), require_apikey))
    } else {
        keyed.layer(middleware::from_fn_with_state(state.credentials.clone(), check_apikey_if_present))
    };
    let open = Router::new()
        .route("/.well-known/jwks.json", get(info::jwks))
        .route("/verify", get(verify::verify_get).post(verify::verify_post))
        .route("/callback", get(oauth::callback).post(oauth::callback))
        .route("/authorize", get(oauth::authorize))
        // A third-party app holds no API key: as the hosted gateway opens them.
        .route("/oauth/authorize", get(authorize::authorize))
        .route("/oauth/token", post(oauth_token::token))
        .route("/oauth/userinfo", get(oauth_token::userinfo))
        .route("/oauth/clients/register", post(clients::dynamic_register))
        .route("/.well-known/openid-configuration", get(discovery::openid_configuration))
        .route("/.well-known/oauth-authorization-server", get(discovery::authorization_server))
        // Called by an identity provider, which holds no API key.
        .route("/sso/saml/metadata", get(sso::metadata))
        .route("/sso/saml/acs", post(sso::acs));
    // Bodies are read whole under the gateway's limits (`gateway_core::body`),
    // which replace axum's default one.
    open.merge(keyed)
        .layer(middleware::from_fn_with_state(state.limits, gateway_core::body::read_whole))
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(shaped::<error::GoTrue>())
        .with_state(state)
}
