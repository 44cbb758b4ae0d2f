//! The shop's built frontend (`npm run build` in `frontend/`), served at `/`
//! beside the APIs, and `/config.json`, the settings the frontend reads when it
//! starts, so that one build runs on any host.
//!
//! - Files come from the frontend directory with the type their extension names.
//!   Vite's bundles under `/static/` carry a hash of their content in their name,
//!   so browsers keep them for a year without asking again; everything else
//!   (`index.html`, the product images under `/assets/`, `/config.json`) is
//!   revalidated on every use (`no-cache`), so a new build shows at the next load.
//! - A GET for a client-side route (`/store`, `/admin/products`) that is no file
//!   answers `index.html`, so reloading any page of the app works. A path naming
//!   a file (a dot in its last segment) or lying under the APIs, the probes,
//!   `/static/` or `/assets/` is never a route: when missing it is a 404, never an
//!   HTML page that a `<script>` or `<img>` would choke on.
//! - `index.html` carries the configuration inline (`window.__SHOP_CONFIG__`,
//!   the same object as `/config.json`), so the app starts without waiting for
//!   a second round trip (on mobile data the page used to wait for the
//!   main script, then `/config.json`, then everything else, one after the
//!   other).
//! - Files compressed at build time (`name.br`, `name.gz`) are served in the
//!   encoding the request accepts ([`crate::compress`]).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::{
    Json, Router,
    body::Body,
    extract::{Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower_http::services::ServeDir;

use crate::error::ApiError;
use crate::role::Role;
use crate::state::AppState;

/// Settings of the shop's frontend, flattened into [`crate::config::Config`].
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Frontend")]
pub struct FrontendConfig {
    /// Directory of the built frontend (holding `index.html`), served at `/`.
    /// Defaults to the nearest `frontend/dist` that has an `index.html`, above the
    /// working directory or the executable; with none, no frontend is served and
    /// `/` answers 404 (the APIs work all the same).
    #[arg(long = "frontend-dir", env = "GATEWAY_FRONTEND_DIR")]
    pub dir: Option<PathBuf>,

    /// The URL browsers reach the APIs at, given to the frontend as `supabaseUrl`
    /// in `/config.json`. Unset: empty, and the frontend uses its own origin (the
    /// gateway serves both).
    #[arg(long = "public-url", env = "GATEWAY_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// The shop's WhatsApp number for `wa.me` links: country code and number,
    /// digits only. The default is a placeholder.
    #[arg(
        long = "shop-whatsapp-number",
        env = "SHOP_WHATSAPP_NUMBER",
        default_value = "573001234567",
        value_parser = digits_only
    )]
    pub whatsapp_number: String,

    /// The shop's contact e-mail, shown by the frontend. The default is a placeholder.
    #[arg(long = "shop-contact-email", env = "SHOP_CONTACT_EMAIL", default_value = "ventas@tienda.example")]
    pub contact_email: String,

    /// The shop's contact telephone, shown by the frontend as written. The
    /// default is a placeholder.
    #[arg(long = "shop-contact-phone", env = "SHOP_CONTACT_PHONE", default_value = "+57 300 123 4567")]
    pub contact_phone: String,

    /// The shop's Facebook page (an http or https URL), linked from the footer.
    /// Unset: no Facebook link.
    #[arg(long = "shop-facebook-url", env = "SHOP_FACEBOOK_URL", value_parser = web_address)]
    pub facebook_url: Option<String>,

    /// The shop's Instagram profile, linked from the footer. Unset: no link.
    #[arg(long = "shop-instagram-url", env = "SHOP_INSTAGRAM_URL", value_parser = web_address)]
    pub instagram_url: Option<String>,

    /// The shop's TikTok profile, linked from the footer. Unset: no link.
    #[arg(long = "shop-tiktok-url", env = "SHOP_TIKTOK_URL", value_parser = web_address)]
    pub tiktok_url: Option<String>,
}

/// A link the footer may open: http or https only (no `javascript:` URL can
/// come in through the configuration).
fn web_address(text: &str) -> Result<String, String> {
    let lower = text.to_ascii_lowercase();
    if (lower.starts_with("https://") || lower.starts_with("http://")) && !text.contains(char::is_whitespace)
    {
        Ok(text.to_owned())
    } else {
        Err(format!("{text:?} is not a web address: write it as https://..."))
    }
}

fn digits_only(text: &str) -> Result<String, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        Ok(text.to_owned())
    } else {
        Err(format!("{text:?} is not a WhatsApp number: write the country code and number as digits only"))
    }
}

/// Hashed bundles: the same name always holds the same bytes.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// Everything else may change with the next build: use it, but ask first.
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// Paths that are never client-side routes: the APIs and probes (their own
/// routes answer them) and the two folders of files.
const NOT_ROUTES: [&str; 10] = [
    "/rest/v1",
    "/auth/v1",
    "/storage/v1",
    "/realtime/v1",
    "/functions/v1",
    "/graphql/v1",
    "/health",
    "/ready",
    "/static",
    "/assets",
];

/// `/config.json` and the frontend's files. The frontend directory is looked
/// for once, here.
pub fn router(config: &FrontendConfig) -> Router<AppState> {
    let dir = find_dir(config).map(Arc::new);
    Router::new().route("/config.json", get(runtime_config)).fallback(
        move |State(state): State<AppState>, request: Request| {
            let dir = dir.clone();
            async move { files(&state, dir.as_deref().map(PathBuf::as_path), request).await }
        },
    )
}

/// The configured directory, or the nearest `frontend/dist` above the working
/// directory or the executable; `None`, said in the log, when it has no
/// `index.html`.
pub fn find_dir(config: &FrontendConfig) -> Option<PathBuf> {
    let found = dir_of(config);
    match (&found, &config.dir) {
        (Some(dir), _) => tracing::info!(dir = %dir.display(), "serving the frontend"),
        (None, Some(dir)) => tracing::warn!(
            dir = %dir.display(),
            "--frontend-dir has no index.html (build it with `npm run build` in frontend/); serving no frontend"
        ),
        (None, None) => tracing::info!(
            "no frontend/dist/index.html found (build it with `npm run build` in frontend/, or pass \
             --frontend-dir); serving no frontend"
        ),
    }
    found
}

/// [`find_dir`] without a word in the log.
fn dir_of(config: &FrontendConfig) -> Option<PathBuf> {
    match &config.dir {
        Some(dir) => Some(dir.clone()).filter(|dir| dir.join("index.html").is_file()),
        None => {
            let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
            nearest_dist(starts.iter().flatten().map(PathBuf::as_path))
        }
    }
}

/// The operator console's page (`console.html` of the frontend's build, a
/// bundle of its own, `frontend/console/`), for every path of the console
/// that is not its API, with the console's path inline
/// (`window.__CONSOLE__`) so that one build serves under any
/// `--console-path`. Never cached: a new build shows at the next load.
pub fn console_page(config: &FrontendConfig, console_path: &str) -> axum::routing::MethodRouter<AppState> {
    let dir = dir_of(config).map(Arc::new);
    let inline = format!(
        "<script>window.__CONSOLE__={}</script>",
        json!({"path": console_path}).to_string().replace('<', "\\u003c")
    );
    get(move || {
        let (dir, inline) = (dir.clone(), inline.clone());
        async move {
            let Some(dir) = dir else { return console_missing() };
            let html = match tokio::fs::read_to_string(dir.join("console.html")).await {
                Ok(html) => html,
                Err(e) if is_missing(&e) => return console_missing(),
                Err(e) => return failed("console.html", &e),
            };
            let page = match html.find("</head>") {
                Some(at) => format!("{}{inline}{}", &html[..at], &html[at..]),
                None => html,
            };
            let mut response = page.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            headers.insert(header::CACHE_CONTROL, NO_CACHE);
            // The console is never framed (clickjacking).
            headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
            response
        }
    })
}

fn console_missing() -> Response {
    let text =
        "The console's page is not built: run `npm run build` in frontend/. Its API answers under /api/.";
    (StatusCode::NOT_FOUND, text).into_response()
}

/// The first `frontend/dist` with an `index.html` in an ancestor of a start.
fn nearest_dist<'a>(starts: impl IntoIterator<Item = &'a Path>) -> Option<PathBuf> {
    starts.into_iter().find_map(|start| {
        start
            .ancestors()
            .map(|dir| dir.join("frontend").join("dist"))
            .find(|dist| dist.join("index.html").is_file())
    })
}

/// `/config.json`: where the APIs are, the key the browser uses, and the
/// shop's contact details. The key is the oldest publishable key in use
/// (`gateway keys list`); `anonKey`, the legacy anon JWT (the one `gateway
/// keys` prints), is there too while the legacy keys are accepted, for a
/// frontend built before the publishable keys.
async fn runtime_config(State(state): State<AppState>) -> Result<Response, ApiError> {
    let mut response = Json(shop_config(&state)?).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, NO_CACHE);
    Ok(response)
}

/// The object of `/config.json` and of `index.html`'s inline script.
fn shop_config(state: &AppState) -> Result<Value, ApiError> {
    let frontend = &state.config.frontend;
    let anon_key = match state.config.legacy_api_keys {
        true => Some(crate::jwt::api_key(&state.credentials.jwt, Role::Anon).map_err(ApiError::internal)?),
        false => None,
    };
    // supabase-js appends `/rest/v1` and friends to it.
    let url = frontend.public_url.as_deref().unwrap_or("").trim_end_matches('/');
    Ok(json!({
        "supabaseUrl": url,
        "publishableKey": state.credentials.api_keys.publishable(),
        "anonKey": anon_key,
        "whatsappNumber": frontend.whatsapp_number,
        "contactEmail": frontend.contact_email,
        "contactPhone": frontend.contact_phone,
        "socialLinks": social_links(frontend),
    }))
}

/// The networks configured, by name: the footer shows what is here.
fn social_links(frontend: &FrontendConfig) -> serde_json::Map<String, Value> {
    [
        ("facebook", &frontend.facebook_url),
        ("instagram", &frontend.instagram_url),
        ("tiktok", &frontend.tiktok_url),
    ]
    .into_iter()
    .filter_map(|(network, url)| Some((network.to_owned(), Value::from(url.clone()?))))
    .collect()
}

/// A file of the frontend, `index.html` for a client-side route, or 404.
async fn files(state: &AppState, dir: Option<&Path>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let mut response = match dir {
        Some(dir) if matches!(*request.method(), Method::GET | Method::HEAD) => {
            find_file(state, dir, &path, request).await
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    };
    let status = response.status();
    let lasting = path.starts_with("/static/") && (status.is_success() || status == StatusCode::NOT_MODIFIED);
    response.headers_mut().insert(header::CACHE_CONTROL, if lasting { IMMUTABLE } else { NO_CACHE });
    response
}

async fn find_file(state: &AppState, dir: &Path, path: &str, request: Request) -> Response {
    if path == "/index.html" {
        return index_page(state, dir, path, "", request.method(), request.headers()).await;
    }
    let query = request.uri().query().unwrap_or_default().to_owned();
    // The file service takes the request; the index page needs its method and
    // its conditional headers.
    let (method, headers) = (request.method().clone(), request.headers().clone());
    // A directory is no page: `/` and the routes get `index.html` below, and a
    // folder of images is a 404 rather than a redirect to a listing that does
    // not exist. `name.br` and `name.gz`, written by the build, are sent to
    // clients that accept them, with `Vary: Accept-Encoding`.
    let mut files =
        ServeDir::new(dir).append_index_html_on_directories(false).precompressed_br().precompressed_gzip();
    match files.try_call(request).await {
        Ok(response) if response.status() != StatusCode::NOT_FOUND => return response.map(Body::new),
        Ok(_) => {}
        Err(e) if is_missing(&e) => {}
        Err(e) => return failed(path, &e),
    }
    if !is_client_route(path) {
        return StatusCode::NOT_FOUND.into_response();
    }
    index_page(state, dir, path, &query, &method, &headers).await
}

/// `index.html` with the configuration inline, and for the public routes the
/// first page of the catalogue ([`crate::first_screen`]), read afresh on every
/// request (a new build shows at the next load), with an `ETag` of its bytes
/// so that a revalidation that finds no change is a 304. The data is part of
/// those bytes: a page is revalidated on every use (`no-cache`) and kept per
/// address, so no filter's answer is ever served for another. It is compressed on the fly
/// like the APIs' answers: its bytes depend on the configuration.
async fn index_page(
    state: &AppState,
    dir: &Path,
    path: &str,
    query: &str,
    method: &Method,
    headers: &HeaderMap,
) -> Response {
    let html = match tokio::fs::read_to_string(dir.join("index.html")).await {
        Ok(html) => html,
        Err(e) if is_missing(&e) => return StatusCode::NOT_FOUND.into_response(),
        Err(e) => return failed(path, &e),
    };
    let config = match shop_config(state) {
        Ok(config) => config,
        Err(error) => return error.into_response(),
    };
    // A HEAD or a revalidation gets the same bytes, hence the same ETag.
    let data = crate::first_screen::data(state, path, query).await;
    let mut page = match &data {
        Some(data) => prerendered(state, dir, path, query, headers, data).await,
        None => None,
    }
    .unwrap_or(html);
    page = with_inline_config(&page, &config);
    if let Some(data) = &data {
        page = crate::first_screen::with_inline_data(&page, data);
    }
    let etag = format!("\"{}\"", hex::encode(&Sha256::digest(page.as_bytes())[..16]));
    let unchanged = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|wanted| {
        wanted.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
    });
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else if method == Method::HEAD {
        let mut response = StatusCode::OK.into_response();
        response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(page.len()));
        response
    } else {
        page.into_response()
    };
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    response
}

/// The pre-rendered page of the landing or the store with its first cards
/// filled in ([`crate::first_screen::fill_prerendered`]), if the build made
/// one and the data can fill it. The pictures' URLs are the app's: against
/// `--public-url`, else the origin the browser asked.
async fn prerendered(
    state: &AppState,
    dir: &Path,
    path: &str,
    query: &str,
    headers: &HeaderMap,
    data: &Value,
) -> Option<String> {
    let file = crate::first_screen::prerendered_page(path, query)?;
    let page = tokio::fs::read_to_string(dir.join(file)).await.ok()?;
    let frontend = &state.config.frontend;
    let origin = match frontend.public_url.as_deref() {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => {
            let host = headers.get(header::HOST)?.to_str().ok()?;
            let scheme = headers
                .get("x-forwarded-proto")
                .and_then(|value| value.to_str().ok())
                .filter(|scheme| matches!(*scheme, "http" | "https"))
                .unwrap_or("http");
            format!("{scheme}://{host}")
        }
    };
    crate::first_screen::fill_prerendered(&page, data, &frontend.whatsapp_number, &origin)
}

/// The page with `<script>window.__SHOP_CONFIG__={...}</script>` before
/// `</head>`; a page without a head is left as it is (the app then fetches
/// `/config.json`). `<` is escaped in the JSON so that no value can close the
/// script element (https://html.spec.whatwg.org/multipage/scripting.html#restrictions-for-contents-of-script-elements).
fn with_inline_config(html: &str, config: &Value) -> String {
    let Some(at) = html.find("</head>") else { return html.to_owned() };
    let json = config.to_string().replace('<', "\\u003c");
    format!("{}<script>window.__SHOP_CONFIG__={json}</script>{}", &html[..at], &html[at..])
}

fn failed(path: &str, error: &io::Error) -> Response {
    tracing::error!(path, %error, "could not read a file of the frontend");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}

/// The errors the file service means as "no such file".
fn is_missing(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied | io::ErrorKind::NotADirectory
    )
}

/// A path the frontend's router handles rather than a file.
fn is_client_route(path: &str) -> bool {
    let under =
        |prefix: &str| path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    let last = path.rsplit('/').next().unwrap_or_default();
    !NOT_ROUTES.iter().any(|prefix| under(prefix)) && !last.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_paths_are_client_routes() {
        for path in
            ["/", "/store", "/store/", "/admin/products", "/admin/products/42", "/restaurants", "/statics"]
        {
            assert!(is_client_route(path), "{path}");
        }
    }

    #[test]
    fn files_apis_and_asset_folders_are_not_client_routes() {
        for path in [
            "/static/a.js",
            "/static/chunk",
            "/assets/none.svg",
            "/assets/brand/model",
            "/favicon.ico",
            "/store/logo.png",
            "/rest/v1",
            "/rest/v1/products",
            "/auth/v1/user",
            "/storage/v1/object/x",
            "/realtime/v1/websocket",
            "/functions/v1/hello",
            "/graphql/v1",
            "/health",
            "/ready/now",
        ] {
            assert!(!is_client_route(path), "{path}");
        }
    }

    #[test]
    fn the_nearest_dist_with_an_index_is_found_above_the_start() {
        let root = tempfile::tempdir().expect("tempdir");
        let dist = root.path().join("frontend/dist");
        let deep = root.path().join("gateway/src/deeper");
        std::fs::create_dir_all(&dist).expect("dist");
        std::fs::create_dir_all(&deep).expect("deep");
        assert_eq!(nearest_dist([deep.as_path()]), None, "a dist without index.html is no frontend");
        std::fs::write(dist.join("index.html"), "<!doctype html>").expect("index");
        assert_eq!(nearest_dist([deep.as_path()]), Some(dist));
    }

    #[test]
    fn the_configuration_goes_inline_before_the_end_of_the_head_and_cannot_close_its_script() {
        let config = json!({"anonKey": "k", "contactEmail": "</script><script>alert(1)</script>"});
        let page = with_inline_config("<html><head><title>T</title></head><body></body></html>", &config);
        assert_eq!(
            page,
            "<html><head><title>T</title><script>window.__SHOP_CONFIG__={\"anonKey\":\"k\",\"contactEmail\":\
             \"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>\"}</script></head><body></body></html>"
        );
        assert_eq!(
            with_inline_config("<div id=root></div>", &config),
            "<div id=root></div>",
            "no head, no script"
        );
    }

    #[test]
    fn social_links_are_web_addresses_only() {
        for good in
            ["https://www.facebook.com/tienda", "http://instagram.com/tienda", "HTTPS://tiktok.com/@tienda"]
        {
            assert!(web_address(good).is_ok(), "{good}");
        }
        for bad in ["", "javascript:alert(1)", "www.facebook.com/tienda", "https://a b", "ftp://x"] {
            assert!(web_address(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn whatsapp_numbers_are_digits_only() {
        assert!(digits_only("573001234567").is_ok());
        for bad in ["", "+573001234567", "300 123 4567"] {
            assert!(digits_only(bad).is_err(), "{bad}");
        }
    }
}
