//! Metrics and the admin listener (`--metrics-listen`): `/metrics` in
//! Prometheus' text format, beside `/live` and `/ready`, as PostgREST's admin
//! server serves them (docs.postgrest.org, "Admin Server" and "Metrics").
//!
//! The kernel and the services record where things happen, with the
//! `metrics` crate's macros; they cost next to nothing while no recorder is
//! installed, and this module installs one only when the admin listener is
//! asked for. What is cheaper to read than to count (the pool, the round
//! trips the pool already counts) is read when `/metrics` is scraped.
//! [`SERIES`] lists every series, for the book (docs/operating.md).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::{
    Router,
    extract::State,
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;

use crate::startup::BoxError;
use crate::state::AppState;

/// Buckets of the latency histograms, in seconds: from a cached read (a
/// millisecond) to the longest statement timeout and slow uploads.
const LATENCY_BUCKETS: [f64; 14] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// How often histograms' samples are folded and idle series tidied when
/// nobody scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// What a series is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// One series: name, kind, labels, unit and what it measures.
pub struct Series {
    pub name: &'static str,
    pub kind: Kind,
    pub labels: &'static str,
    pub unit: Option<Unit>,
    pub help: &'static str,
}

const fn series(
    name: &'static str,
    kind: Kind,
    labels: &'static str,
    unit: Option<Unit>,
    help: &'static str,
) -> Series {
    Series { name, kind, labels, unit, help }
}

/// Every series the gateway exports. PostgREST's names are kept where
/// PostgREST has the same measure, so that its dashboards read them.
pub const SERIES: &[Series] = &[
    series(
        "gateway_http_requests_total",
        Kind::Counter,
        "service, route, method, status",
        None,
        "Requests answered, by service (rest, auth, storage, realtime, gateway), route template, method and status.",
    ),
    series(
        "gateway_http_request_duration_seconds",
        Kind::Histogram,
        "service, route",
        Some(Unit::Seconds),
        "Time from a request's arrival to its answer's head.",
    ),
    series("pgrst_db_pool_max", Kind::Gauge, "", None, "Size of the API connection pool."),
    series("pgrst_db_pool_available", Kind::Gauge, "", None, "Open connections idle in the pool."),
    series("gateway_db_pool_open", Kind::Gauge, "", None, "Connections the pool has open, idle or in use."),
    series("gateway_db_pool_in_use", Kind::Gauge, "", None, "Connections lent to requests right now."),
    series("pgrst_db_pool_waiting", Kind::Gauge, "", None, "Requests waiting for a pooled connection."),
    series(
        "pgrst_db_pool_timeouts_total",
        Kind::Counter,
        "",
        None,
        "Requests that waited the whole pool timeout for a connection (504 PGRST003).",
    ),
    series(
        "gateway_db_round_trips_total",
        Kind::Counter,
        "",
        None,
        "Round trips requests waited for on PostgreSQL (a batch of pipelined statements is one).",
    ),
    series(
        "pgrst_schema_cache_loads_total",
        Kind::Counter,
        "status (SUCCESS, FAIL)",
        None,
        "Loads of the REST schema cache.",
    ),
    series(
        "pgrst_schema_cache_query_time_seconds",
        Kind::Gauge,
        "",
        Some(Unit::Seconds),
        "How long the last successful schema cache load took.",
    ),
    series(
        "gateway_storage_received_bytes_total",
        Kind::Counter,
        "",
        Some(Unit::Bytes),
        "Object bytes stored by uploads (whole and resumable).",
    ),
    series(
        "gateway_storage_sent_bytes_total",
        Kind::Counter,
        "",
        Some(Unit::Bytes),
        "Object bytes sent by downloads (ranges count what is sent).",
    ),
    series(
        "gateway_storage_transforms_total",
        Kind::Counter,
        "outcome (made, cached, failed)",
        None,
        "Image transformations asked for: made now, served from the variants cache, or failed.",
    ),
    series(
        "gateway_storage_transform_duration_seconds",
        Kind::Histogram,
        "",
        Some(Unit::Seconds),
        "Time to make one image variant.",
    ),
    series(
        "gateway_auth_sign_ins_total",
        Kind::Counter,
        "grant (password, refresh_token, ...)",
        None,
        "Sessions issued, by grant.",
    ),
    series(
        "gateway_auth_sign_in_failures_total",
        Kind::Counter,
        "grant",
        None,
        "Sign-ins refused: wrong credentials, unconfirmed, banned, invalid or revoked refresh tokens.",
    ),
    series(
        "gateway_auth_rate_limited_total",
        Kind::Counter,
        "limit (sign_in_sign_ups, token_refresh, email_sent, ...)",
        None,
        "Attempts refused with 429 over_request_rate_limit or over_email_send_rate_limit.",
    ),
    series("gateway_auth_mails_sent_total", Kind::Counter, "", None, "E-mails handed to the mail server."),
    series(
        "gateway_functions_connections_opened_total",
        Kind::Counter,
        "function",
        None,
        "Connections opened to functions' processes; answered ones are kept for the next requests.",
    ),
    series("gateway_realtime_sockets", Kind::Gauge, "", None, "Realtime WebSockets open."),
    series("gateway_realtime_channels", Kind::Gauge, "", None, "Channels joined on open sockets."),
    series(
        "gateway_realtime_messages_received_total",
        Kind::Counter,
        "",
        None,
        "Messages read from Realtime sockets.",
    ),
    series(
        "gateway_realtime_messages_sent_total",
        Kind::Counter,
        "",
        None,
        "Messages written to Realtime sockets.",
    ),
    series(
        "gateway_realtime_changes_lag_seconds",
        Kind::Gauge,
        "",
        Some(Unit::Seconds),
        "Age of the last database change the change feed delivered, when it was delivered.",
    ),
];

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Whether a recorder is installed, so that the request layer times and
/// counts requests (`crate::requests::record`) only then.
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Installs the process's recorder (once; a second call is refused) and
/// describes every series.
pub fn install() -> Result<PrometheusHandle, BoxError> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &LATENCY_BUCKETS)?
        .install_recorder()?;
    INSTALLED.store(true, Ordering::Relaxed);
    for series in SERIES {
        let (name, help) = (series.name, series.help);
        match (series.kind, series.unit) {
            (Kind::Counter, Some(unit)) => metrics::describe_counter!(name, unit, help),
            (Kind::Counter, None) => metrics::describe_counter!(name, help),
            (Kind::Gauge, Some(unit)) => metrics::describe_gauge!(name, unit, help),
            (Kind::Gauge, None) => metrics::describe_gauge!(name, help),
            (Kind::Histogram, Some(unit)) => metrics::describe_histogram!(name, unit, help),
            (Kind::Histogram, None) => metrics::describe_histogram!(name, help),
        }
    }
    Ok(handle)
}

/// The admin listener's routes: `/metrics`, `/live`, `/ready`.
pub fn admin(state: AppState, handle: PrometheusHandle) -> Router {
    Router::new()
        .route("/live", get(crate::health::live))
        .route("/ready", get(crate::health::ready))
        .route("/metrics", get(move |State(state): State<AppState>| scrape(state, handle.clone())))
        .with_state(state)
}

async fn scrape(state: AppState, handle: PrometheusHandle) -> Response {
    sample(&state);
    let text = handle.render();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

/// The series read rather than counted: the pool now, and the round trips
/// the pool counts anyway.
fn sample(state: &AppState) {
    let pool = state.db.pool_status();
    metrics::gauge!("pgrst_db_pool_max").set(pool.max as f64);
    metrics::gauge!("pgrst_db_pool_available").set(pool.available as f64);
    metrics::gauge!("pgrst_db_pool_waiting").set(pool.waiting as f64);
    metrics::gauge!("gateway_db_pool_open").set(pool.open as f64);
    metrics::gauge!("gateway_db_pool_in_use").set(pool.open.saturating_sub(pool.available) as f64);
    metrics::counter!("gateway_db_round_trips_total").absolute(state.db.round_trips());
}

/// Serves the admin listener until `shutdown` resolves, and keeps the
/// recorder tidy meanwhile.
pub async fn serve_admin(
    listener: TcpListener,
    state: AppState,
    handle: PrometheusHandle,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let upkeep = {
        let handle = handle.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(UPKEEP_EVERY).await;
                handle.run_upkeep();
            }
        })
    };
    let result = axum::serve(listener, admin(state, handle)).with_graceful_shutdown(shutdown).await;
    upkeep.abort();
    result
}

/// Binds the admin listener; its address, for the banner.
pub async fn bind(address: SocketAddr) -> Result<(TcpListener, SocketAddr), BoxError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|e| format!("could not listen on --metrics-listen {address}: {e}"))?;
    let bound = listener.local_addr()?;
    Ok((listener, bound))
}
