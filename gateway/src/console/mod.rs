//! The operator console at `/_/` (docs/console.md): a page for the people
//! who run the gateway, as Supabase Studio is for a hosted project, served
//! by this binary as PocketBase serves its admin UI.
//!
//! - Operators are accounts of their own (`gateway operators add`), never
//!   shop users; they sign in at `/_/api/sign-in` and get an HttpOnly,
//!   SameSite=Strict session cookie ([`access`]).
//! - `/_/api/` takes no API key and no user's JWT, refuses a change sent
//!   from another origin, and wants the session's CSRF token on every change
//!   ([`access::guard`], [`access::Operator`]).
//! - Everything it does in the database runs as the role that owns the
//!   schemas, through the one named call `Db::as_schema_owner`.

pub mod access;
pub mod apidocs;
pub mod catalog;
pub mod editor;
pub mod error;
pub mod keys;
pub mod observe;
pub mod policy;
pub mod settings;
pub mod storage;
pub mod tables;
pub mod users;

use axum::{
    Router,
    response::{IntoResponse, Redirect, Response},
    routing::{any, delete, get, post},
};
use gateway_core::config::Span;

use crate::AppState;
pub use error::ConsoleError;

/// The console's section of the configuration.
#[derive(Clone, Debug, clap::Args)]
pub struct ConsoleConfig {
    /// Serve the operator console (docs/console.md). `false` turns it off:
    /// its API then answers 404.
    #[arg(
        help_heading = "Console",
        id = "console",
        long = "console",
        env = "GATEWAY_CONSOLE",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub enabled: bool,

    /// Where the console is served; its API is under `<path>/api/`.
    #[arg(help_heading = "Console", long, env = "GATEWAY_CONSOLE_PATH", default_value = "/_", value_parser = console_path)]
    pub console_path: String,

    /// How long an operator's sign-in lasts.
    #[arg(help_heading = "Console", long, env = "GATEWAY_CONSOLE_SESSION_TTL", default_value = "12h")]
    pub console_session_ttl: Span,

    /// Sign-in attempts allowed from one address per 5 minutes; more answer
    /// 429.
    #[arg(help_heading = "Console", long, env = "GATEWAY_CONSOLE_SIGN_IN_LIMIT", default_value_t = 10)]
    pub console_sign_in_limit: u32,

    /// Most rows the SQL editor returns of a statement; the rest are
    /// dropped and the answer says it was cut.
    #[arg(help_heading = "Console", long, env = "GATEWAY_CONSOLE_ROW_LIMIT", default_value_t = 1000)]
    pub console_row_limit: usize,

    /// `statement_timeout` of what the SQL editor runs.
    #[arg(help_heading = "Console", long, env = "GATEWAY_CONSOLE_STATEMENT_TIMEOUT", default_value = "15s")]
    pub console_statement_timeout: Span,

    /// The settings `gateway serve` was started with and where each came
    /// from, for the console's settings page (settings.rs); not a flag.
    #[arg(skip)]
    pub settings: settings::Settings,
}

/// A path of one or more segments, starting with `/` and not ending with
/// one, that no service owns.
fn console_path(text: &str) -> Result<String, String> {
    let path = text.trim_end_matches('/');
    let valid = path.starts_with('/')
        && path.len() > 1
        && !path.contains("//")
        && path.chars().all(|c| c.is_ascii_alphanumeric() || "/_-.".contains(c));
    let taken =
        ["/rest", "/auth", "/storage", "/realtime", "/functions", "/graphql", "/assets", "/health", "/ready"]
            .iter()
            .any(|service| path == *service || path.starts_with(&format!("{service}/")));
    if !valid || taken {
        return Err(format!("{text:?} is not a path of its own (e.g. /_ or /console)"));
    }
    Ok(path.to_owned())
}

/// The console's routes under its path, or, when it is off, a 404 for its
/// API, which would otherwise fall through to the shop's page.
pub fn router(config: &crate::config::Config) -> Router<AppState> {
    let (frontend, config) = (&config.frontend, &config.console);
    let base = &config.console_path;
    let api = format!("{base}/api");
    if !config.enabled {
        return Router::new().route(&api, any(not_found)).route(&format!("{api}/{{*rest}}"), any(not_found));
    }
    let routes = Router::new()
        .route(&format!("{api}/sign-in"), post(access::sign_in))
        .route(&format!("{api}/sign-out"), post(access::sign_out))
        .route(&format!("{api}/session"), get(access::session))
        .route(&format!("{api}/tables"), get(catalog::tables))
        .route(&format!("{api}/sql"), post(editor::run))
        .route(&format!("{api}/snippets"), get(editor::snippets).post(editor::save_snippet))
        .route(&format!("{api}/snippets/{{id}}"), delete(editor::delete_snippet))
        // The table editor (tables.rs).
        .route(&format!("{api}/tables/preview"), post(tables::preview))
        .route(&format!("{api}/tables/apply"), post(tables::apply))
        .route(&format!("{api}/tables/{{schema}}/{{name}}/rows"), any(tables::rows))
        .route(&format!("{api}/users"), get(users::list).post(users::create))
        .route(&format!("{api}/users/invite"), post(users::invite))
        .route(&format!("{api}/users/{{id}}"), get(users::get).delete(users::delete))
        .route(&format!("{api}/users/{{id}}/ban"), post(users::ban))
        .route(&format!("{api}/users/{{id}}/recovery"), post(users::recovery))
        .route(&format!("{api}/users/{{id}}/sessions/{{session}}"), delete(users::revoke_session))
        // Keys and signing keys (keys.rs).
        .route(&format!("{api}/keys"), get(keys::list).post(keys::create))
        .route(&format!("{api}/keys/revoke"), post(keys::revoke))
        .route(&format!("{api}/signing-keys"), post(keys::create_standby))
        .route(&format!("{api}/signing-keys/rotate"), post(keys::rotate))
        .route(&format!("{api}/signing-keys/{{kid}}"), delete(keys::revoke_signing_key))
        // Observe (observe.rs).
        .route(&format!("{api}/logs"), get(observe::logs))
        .route(&format!("{api}/metrics"), get(observe::metrics))
        // Storage, as the storage service answers it (storage.rs).
        .route(&format!("{api}/storage/{{*rest}}"), any(storage::proxy))
        // API docs and live settings (apidocs.rs, settings.rs).
        .route(&format!("{api}/api-docs"), get(apidocs::list))
        .route(&format!("{api}/settings"), get(settings::list))
        .route(&api, any(not_found))
        .route(&format!("{api}/{{*rest}}"), any(not_found))
        .layer(axum::middleware::from_fn(access::guard));
    let page = format!("{base}/");
    routes
        .route(base, get(move || async move { Redirect::permanent(&page) }))
        .route(&format!("{base}/"), crate::frontend::console_page(frontend, base))
        .route(&format!("{base}/{{*rest}}"), crate::frontend::console_page(frontend, base))
}

async fn not_found() -> Response {
    ConsoleError::NotFound.into_response()
}

/// Whether `path` is the console's, so that the CORS layer leaves it alone:
/// the console is same-origin only.
pub fn is_console_path(config: &ConsoleConfig, path: &str) -> bool {
    is_console_path_of(&config.console_path, path)
}

/// Whether `path` is `console_path` or under it.
pub fn is_console_path_of(console_path: &str, path: &str) -> bool {
    path.strip_prefix(console_path).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        error::render(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_paths_are_paths_of_their_own() {
        let cases = [
            ("/_", Some("/_")),
            ("/_/", Some("/_")),
            ("/console", Some("/console")),
            ("/ops/console", Some("/ops/console")),
            ("_", None),
            ("/", None),
            ("/rest/v1/x", None),
            ("/auth", None),
            ("/a b", None),
            ("//x", None),
        ];
        for (text, expected) in cases {
            assert_eq!(console_path(text).ok().as_deref(), expected, "{text}");
        }
    }
}
