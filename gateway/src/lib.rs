//! A self-hosted gateway that speaks the APIs of `@supabase/supabase-js`
//! (`/rest/v1`, `/auth/v1`, `/storage/v1`, `/realtime/v1`, `/functions/v1`) over PostgreSQL,
//! with row-level security deciding who sees what, and serves the shop's
//! frontend at `/`.
//!
//! This crate composes the others: the kernel (`gateway-core`) and one crate
//! per service, each owning its router, configuration section, state and
//! error shape. Here live the command line, start-up, the embedded
//! PostgreSQL, the frontend and the wiring of the routers.

pub mod backup;
pub mod cli;
pub mod compress;
pub mod config;
pub mod console;
pub mod embedded;
pub mod first_screen;
pub mod frontend;
pub mod health;
pub mod help;
pub mod import;
pub mod pitr;
pub mod requests;
pub mod startup;
pub mod state;
pub mod telemetry;

pub use gateway_auth as auth;
pub use gateway_core::{body, caller, db, error, jwt, keys, logs, role, server, sql};
pub use gateway_functions as functions;
pub use gateway_realtime as realtime;
pub use gateway_rest as rest;
pub use gateway_storage as storage;

use std::time::Duration;

use axum::{
    Router,
    extract::FromRef,
    http::{HeaderName, Method},
    response::{IntoResponse, Response},
    routing::{any, get},
};
use futures::future::Either;
use tower::{Layer, ServiceExt, util::Oneshot};
use tower_http::cors::{AllowHeaders, Any, Cors, CorsLayer};
use tower_http::trace::{DefaultOnFailure, TraceLayer};

pub use state::AppState;

/// The whole HTTP surface as a router, for tests that add routes of their
/// own (`Router::merge`): [`stack`] as its fallback.
pub fn app(state: AppState) -> Router {
    Router::new().fallback_service(stack(state))
}

/// The whole HTTP surface; `main` serves it (`server::serve`) and tests
/// drive it. Each service's router gets its own state, cut from the
/// composition's. A plain stack of services, not a router: a router boxes
/// what it wraps, and every box is cloned and every router routes again on
/// every request (`bench/profile.sh`).
pub fn stack(
    state: AppState,
) -> impl tower::Service<
    axum::extract::Request,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Send + 'static,
> + Clone
+ Send
+ Sync
+ 'static {
    let routes = Router::new()
        .route("/health", get(health::live))
        .route("/ready", get(health::ready))
        // Services Supabase has and this gateway does not: their own 404s,
        // never the frontend's page.
        .route("/graphql/v1", any(no_graphql))
        .route("/graphql/v1/{*path}", any(no_graphql))
        // `/config.json`, and a fallback that answers what no API route does.
        .merge(frontend::router(&state.config.frontend))
        .with_state(state.clone())
        .nest("/auth/v1", auth::router(FromRef::from_ref(&state)))
        .nest("/storage/v1", storage::router(FromRef::from_ref(&state)))
        .nest("/realtime/v1", realtime::router(FromRef::from_ref(&state)))
        .nest_service("/functions/v1", functions::router(FromRef::from_ref(&state)))
        // What no service owns answers in PostgREST's shape, as the hosted
        // service's API gateway does.
        .layer(error::shaped::<rest::PostgRest>())
        // The console answers in its own shape, and only to its own origin.
        .merge(console::router(&state.config).with_state(state.clone()));
    let recording = requests::Recording {
        metrics: telemetry::installed(),
        access_log: state.config.access_log,
        recent: state.config.console.enabled.then(|| state.recent.clone()),
    };
    // Each layer costs every request a boxed future and a clone of the
    // services within, so what records nothing is not layered at all.
    let routes = if recording.metrics {
        routes.route_layer(axum::middleware::from_fn(requests::keep_route))
    } else {
        routes
    };
    let dispatch = Dispatch(std::sync::Arc::new(Destinations {
        // REST, the busiest, routes itself (`rest::service`), before the
        // router of everything else.
        rest: cors().layer(
            rest::router(FromRef::from_ref(&state)).under("/rest/v1").labelling_routes(recording.metrics),
        ),
        with_cors: cors().layer(routes.clone()),
        routes,
        console: state.config.console.clone(),
    }));
    let around = tower::ServiceBuilder::new()
        .map_response(IntoResponse::into_response)
        .layer(
            // Paths only: a query string may carry an API key. A failed request
            // is logged once, with its cause, by `error`: the layer's own line
            // per 5xx is for debugging. The request's id is on every line.
            TraceLayer::new_for_http()
                .make_span_with(|request: &axum::http::Request<_>| {
                    tracing::info_span!(
                        "request",
                        method = %request.method(),
                        path = %request.uri().path(),
                        request_id = %requests::id_of(request),
                    )
                })
                .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG)),
        )
        .service(dispatch);
    tower::ServiceBuilder::new()
        // The id outermost, so that every answer carries it, the compressed and
        // the refused alike.
        .layer(requests::RequestIdLayer)
        .option_layer(recording.any().then_some(requests::RecordLayer(recording)))
        .service(compress::around(around, &state.config.compression))
}

/// Where [`Dispatch`] sends a request: REST; the router of everything else,
/// with CORS or, for the routes that answer it themselves, without.
struct Destinations {
    rest: Cors<rest::Rest>,
    with_cors: Cors<Router>,
    routes: Router,
    console: console::ConsoleConfig,
}

/// The choice of a request's [`Destinations`]; shared, so that each request
/// clones only the one it goes to.
#[derive(Clone)]
struct Dispatch(std::sync::Arc<Destinations>);

impl tower::Service<axum::extract::Request> for Dispatch {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Either<
        Oneshot<Cors<rest::Rest>, axum::extract::Request>,
        Either<Oneshot<Router, axum::extract::Request>, Oneshot<Cors<Router>, axum::extract::Request>>,
    >;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::extract::Request) -> Self::Future {
        let to = &*self.0;
        let path = request.uri().path();
        if to.rest.get_ref().serves(path) {
            Either::Left(to.rest.clone().oneshot(request))
        } else if tus_discovery(&request)
            || functions_route(&request)
            || console::is_console_path(&to.console, path)
        {
            Either::Right(Either::Left(to.routes.clone().oneshot(request)))
        } else {
            Either::Right(Either::Right(to.with_cors.clone().oneshot(request)))
        }
    }
}

/// GraphQL is not served: Supabase routes `/graphql/v1` to PostgREST's
/// `/rpc/graphql` (pg_graphql), so without it the answer is PostgREST's 404
/// for a function that does not exist (PGRST202).
async fn no_graphql() -> Response {
    let body = serde_json::json!({
        "code": "PGRST202",
        "details": "Searched for the function graphql_public.graphql, but no matches were found in the schema cache.",
        "hint": null,
        "message": "Could not find the function graphql_public.graphql in the schema cache",
    });
    (axum::http::StatusCode::NOT_FOUND, axum::Json(body)).into_response()
}

/// An `OPTIONS` to Storage's TUS endpoint that is no CORS preflight (it names
/// no `Access-Control-Request-Method`, Fetch standard, "CORS-preflight
/// request"): TUS's discovery, which the CORS layer would otherwise answer
/// itself, without the protocol's headers (`storage::resumable`).
fn tus_discovery(request: &axum::extract::Request) -> bool {
    request.method() == Method::OPTIONS
        && !request.headers().contains_key(axum::http::header::ACCESS_CONTROL_REQUEST_METHOD)
        && request.uri().path().starts_with("/storage/v1/upload/resumable")
}

/// A request to an Edge Function, whose answer is the function's own: it
/// answers CORS itself, as on Supabase, so the layer adds nothing
/// (`functions`).
fn functions_route(request: &axum::extract::Request) -> bool {
    is_functions_path(request.uri().path())
}

/// `/functions/v1` and what is under it.
pub fn is_functions_path(path: &str) -> bool {
    path.strip_prefix("/functions/v1").is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// CORS as the hosted service answers it: any origin, the request's own headers
/// echoed back (PostgREST does the same), and the response headers supabase-js
/// must read exposed (`Content-Range` carries counts; `X-Supabase-Api-Version`
/// tells auth-js which error shape it got).
fn cors() -> CorsLayer {
    let exposed = [
        "content-encoding",
        "content-location",
        "content-range",
        "content-type",
        "content-profile",
        "date",
        "location",
        "server",
        "transfer-encoding",
        "range-unit",
        "preference-applied",
        "x-supabase-api-version",
        "x-sb-error-code",
        "x-total-count",
        // So that a browser app can quote it in a bug report.
        "x-request-id",
        "etag",
        "last-modified",
        // What tus-js-client reads in a browser (`/storage/v1/upload/resumable`).
        "upload-offset",
        "upload-length",
        "upload-metadata",
        "upload-defer-length",
        "upload-expires",
        "tus-resumable",
        "tus-version",
        "tus-extension",
        "tus-max-size",
        "tus-complete",
    ];
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PATCH,
            Method::PUT,
            Method::DELETE,
            Method::OPTIONS,
            Method::HEAD,
        ])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(exposed.map(HeaderName::from_static))
        .max_age(Duration::from_secs(86_400))
}
