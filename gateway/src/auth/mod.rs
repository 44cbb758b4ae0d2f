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
//! | `POST /recover`, `/otp`, `/resend`, `GET /reauthenticate` | anyone with the key (reauthenticate: signed in) | mail a link and code (`handlers::mail`) |
//! | `GET`/`POST /verify` | anyone (GET: the mailed link) | use a mailed token → session (`handlers::verify`) |
//! | `POST /invite`, `/admin/generate_link` | service_role | invite by mail; links without mail |
//! | `/factors`, `/user/identities`, `/sso` | as GoTrue | refused as GoTrue refuses them when off (`handlers::disabled`) |

pub mod claims;
pub mod config;
pub mod error;
pub mod extract;
pub mod handlers;
pub mod mail;
pub mod password;
pub mod ratelimit;
pub mod store;
pub mod tokens;
pub mod users;

use axum::{
    Router, middleware,
    routing::{delete, get, post},
};

pub use config::AuthConfig;

use crate::caller::require_apikey;
use crate::error::{ApiError, Shape, render_as};
use crate::state::AppState;
use handlers::{admin, disabled, info, logout, signup, token, user};
use handlers::{mail as mail_flows, verify};

pub fn router(state: AppState) -> Router<AppState> {
    let keyed = Router::new()
        .route("/token", post(token::token))
        .route("/signup", post(signup::signup))
        .route("/user", get(user::get_user).put(user::update_user))
        .route("/logout", post(logout::logout))
        .route("/settings", get(info::settings))
        .route("/health", get(info::health))
        .route("/admin/users", get(admin::list).post(admin::create))
        .route("/admin/users/{id}", get(admin::get).put(admin::update).delete(admin::delete))
        .route("/factors", post(disabled::enroll))
        .route("/factors/{id}", delete(disabled::factor))
        .route("/factors/{id}/challenge", post(disabled::factor))
        .route("/factors/{id}/verify", post(disabled::factor))
        .route("/user/identities/authorize", get(disabled::identities))
        .route("/user/identities/{id}", delete(disabled::identities))
        .route("/sso", post(disabled::sso))
        .route("/recover", post(mail_flows::recover))
        .route("/otp", post(mail_flows::otp))
        .route("/resend", post(mail_flows::resend))
        .route("/reauthenticate", get(mail_flows::reauthenticate))
        .route("/invite", post(mail_flows::invite))
        .route("/admin/generate_link", post(mail_flows::generate_link))
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(state.clone(), require_apikey));
    let open = Router::new()
        .route("/.well-known/jwks.json", get(info::jwks))
        .route("/verify", get(verify::verify_get).post(verify::verify_post))
        .route("/callback", get(info::not_implemented).post(info::not_implemented))
        .route("/authorize", get(info::not_implemented))
        // Called by an identity provider, which holds no API key.
        .route("/sso/saml/metadata", get(disabled::sso))
        .route("/sso/saml/acs", post(disabled::sso));
    // Bodies are read whole under the gateway's limits (`crate::body`),
    // which replace axum's default one.
    open.merge(keyed)
        .layer(middleware::from_fn_with_state(
            crate::body::Limits::of(&state.config.server),
            crate::body::read_whole,
        ))
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(middleware::from_fn(|request, next| render_as(Shape::GoTrue, request, next)))
}
