//! What the gateway records of each request, around every service:
//!
//! - its id, `x-request-id`: the client's when it is a sane token, else a new
//!   UUID; echoed on every answer (errors too) and a field of the request's
//!   trace span, so every log line of the request carries it;
//! - with metrics on (`--metrics-listen`), its count by service, route
//!   template, method and status, and its latency;
//! - with `--access-log`, one line: method, path without the query string (a
//!   query can carry an API key), status, duration, request id.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::{
    extract::{MatchedPath, Request},
    http::{HeaderName, HeaderValue, Method},
    middleware::Next,
    response::Response,
};
use gateway_core::server::RouteTemplate;

/// The header that carries a request's id, as proxies and PostgREST's and
/// Supabase's gateways name it.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest id taken from a client; a longer one is replaced.
pub const MAX_ID_LENGTH: usize = 200;

/// A client's id is kept when it is 1 to [`MAX_ID_LENGTH`] characters of
/// letters, digits and `.`, `_`, `:`, `-`: what ids from UUIDs, ULIDs,
/// tracing ids and proxies (nginx's `$request_id`, Envoy's) are made of, and
/// nothing that could forge a log line or a JSON field.
pub fn acceptable(id: &[u8]) -> bool {
    (1..=MAX_ID_LENGTH).contains(&id.len())
        && id.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// A fresh id: a UUID v4.
fn new_id() -> HeaderValue {
    let mut buffer = uuid::Uuid::encode_buffer();
    let text = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buffer);
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("-"))
}

/// Sets the request's id on the request (for the trace span and the layers
/// within) and on its answer. A layer of its own rather than
/// `axum::middleware::from_fn`, which boxes a future and clones the services
/// within for every request: this one wraps the inner future in place.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestIdLayer;

impl<S> tower::Layer<S> for RequestIdLayer {
    type Service = RequestId<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestId { inner }
    }
}

/// The service of [`RequestIdLayer`].
#[derive(Clone, Debug)]
pub struct RequestId<S> {
    inner: S,
}

impl<S> tower::Service<Request> for RequestId<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = WithRequestId<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let id = match request.headers().get(&REQUEST_ID) {
            Some(given) if acceptable(given.as_bytes()) => given.clone(),
            _ => {
                let id = new_id();
                request.headers_mut().insert(REQUEST_ID, id.clone());
                id
            }
        };
        WithRequestId { inner: self.inner.call(request), id: Some(id) }
    }
}

pin_project_lite::pin_project! {
    /// The inner answer, with the request's id set on it.
    pub struct WithRequestId<F> {
        #[pin]
        inner: F,
        id: Option<HeaderValue>,
    }
}

impl<F, E> Future for WithRequestId<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = std::task::ready!(this.inner.poll(cx))?;
        if let Some(id) = this.id.take() {
            response.headers_mut().insert(REQUEST_ID, id);
        }
        Poll::Ready(Ok(response))
    }
}

/// The id [`RequestIdLayer`] set, for the trace span.
pub fn id_of<B>(request: &axum::http::Request<B>) -> &str {
    request.headers().get(&REQUEST_ID).and_then(|id| id.to_str().ok()).unwrap_or("-")
}

/// What is recorded of each request besides its id.
#[derive(Clone, Default)]
pub struct Recording {
    /// Count and time requests (the recorder of `crate::telemetry` is installed).
    pub metrics: bool,
    /// Log one line per request.
    pub access_log: bool,
    /// Keep the request for the console's Observe page (the console is on),
    /// unless it was the console's own (`console_path`).
    pub recent: Option<std::sync::Arc<crate::console::observe::Recent>>,
}

impl Recording {
    /// Whether anything is recorded, so that [`RecordLayer`] is layered at all.
    pub fn any(&self) -> bool {
        self.metrics || self.access_log || self.recent.is_some()
    }
}

/// The route template an answer came from: inside the router, where axum
/// knows it (`MatchedPath`), it is copied onto the answer for [`Record`].
pub async fn keep_route(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if let Some(route) = route {
        response.extensions_mut().insert(route);
    }
    response
}

/// Counts and times each request, keeps it for the console, and writes its
/// access-log line; the app layers it only when one of them is on. A layer
/// of its own, like [`RequestIdLayer`], rather than `from_fn`, which boxed a
/// future and cloned every service within for each request.
#[derive(Clone)]
pub struct RecordLayer(pub Recording);

impl<S> tower::Layer<S> for RecordLayer {
    type Service = Record<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Record { inner, recording: self.0.clone() }
    }
}

/// The service of [`RecordLayer`].
#[derive(Clone)]
pub struct Record<S> {
    inner: S,
    recording: Recording,
}

impl<S> tower::Service<Request> for Record<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Recorded<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let recording = &self.recording;
        let path = request.uri().path();
        let kept = recording.recent.clone().filter(|recent| recent.keeps(path));
        let logged =
            (recording.access_log || kept.is_some()).then(|| (path.to_owned(), id_of(&request).to_owned()));
        let seen = Seen {
            started: Instant::now(),
            method: request.method().clone(),
            service: service_of(path),
            metrics: recording.metrics,
            access_log: recording.access_log,
            kept,
            logged,
        };
        Recorded { inner: self.inner.call(request), seen: Some(seen) }
    }
}

/// What [`Record`] knows of a request before its answer.
struct Seen {
    started: Instant,
    method: Method,
    service: &'static str,
    metrics: bool,
    access_log: bool,
    kept: Option<std::sync::Arc<crate::console::observe::Recent>>,
    /// The path and the request's id, when logged or kept.
    logged: Option<(String, String)>,
}

pin_project_lite::pin_project! {
    /// The inner answer, recorded when it comes.
    pub struct Recorded<F> {
        #[pin]
        inner: F,
        seen: Option<Seen>,
    }
}

impl<F, E> Future for Recorded<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = std::task::ready!(this.inner.poll(cx))?;
        if let Some(seen) = this.seen.take() {
            seen.record(&response);
        }
        Poll::Ready(Ok(response))
    }
}

impl Seen {
    fn record(self, response: &Response) {
        let elapsed = self.started.elapsed();
        let status = response.status();
        if self.metrics {
            // A path no route matched (the shop's pages, unknown paths) has
            // no template; its text must not become a label, or every probe
            // of a scanner would be a series.
            let extensions = response.extensions();
            let route = match (extensions.get::<RouteTemplate>(), extensions.get::<MatchedPath>()) {
                (Some(RouteTemplate(route)), _) => route,
                (None, Some(matched)) => matched.as_str(),
                (None, None) => "(unmatched)",
            };
            count(self.service, route, method_label(&self.method), status.as_u16(), elapsed.as_secs_f64());
        }
        if let (Some(recent), Some((path, id))) = (&self.kept, &self.logged) {
            recent.push(crate::console::observe::Entry {
                at: crate::console::observe::now_ms(),
                method: self.method.clone(),
                path: path.clone(),
                service: self.service,
                status: status.as_u16(),
                duration_ms: elapsed.as_secs_f64() * 1000.0,
                request_id: id.clone(),
            });
        }
        if let Some((path, id)) = self.logged.filter(|_| self.access_log) {
            tracing::info!(
                target: "gateway::access",
                method = %self.method,
                path = %path,
                status = status.as_u16(),
                duration_ms = elapsed.as_secs_f64() * 1000.0,
                request_id = %id,
                "request"
            );
        }
    }
}

/// One route's series, by service, method and status.
type RouteSeries = Vec<((&'static str, &'static str, u16), metrics::Counter, metrics::Histogram)>;

thread_local! {
    /// The handles of the series each worker thread has recorded, so that a
    /// request costs two atomic updates, not a registry lookup that hashes
    /// every label (bench/metrics.sh measures the difference). Bounded by
    /// the routes, methods and statuses that exist.
    static SERIES: RefCell<HashMap<Box<str>, RouteSeries>> = RefCell::new(HashMap::new());
}

/// Counts one request and records its latency.
fn count(service: &'static str, route: &str, method: &'static str, status: u16, seconds: f64) {
    SERIES.with_borrow_mut(|series| {
        let known = match series.get_mut(route) {
            Some(known) => known,
            None => series.entry(route.into()).or_default(),
        };
        let kind = (service, method, status);
        if let Some((_, counter, histogram)) = known.iter().find(|(k, _, _)| *k == kind) {
            counter.increment(1);
            histogram.record(seconds);
            return;
        }
        let counter = metrics::counter!(
            "gateway_http_requests_total",
            "service" => service,
            "route" => route.to_owned(),
            "method" => method,
            "status" => status.to_string(),
        );
        let histogram = metrics::histogram!(
            "gateway_http_request_duration_seconds",
            "service" => service,
            "route" => route.to_owned(),
        );
        counter.increment(1);
        histogram.record(seconds);
        known.push((kind, counter, histogram));
    });
}

/// The service a path belongs to: the label that lets a dashboard split the
/// APIs; `gateway` for the rest (health, the shop, the 404s of services not
/// served).
pub fn service_of(path: &str) -> &'static str {
    let prefix =
        |name: &str| path.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if prefix("/rest/v1") {
        "rest"
    } else if prefix("/auth/v1") {
        "auth"
    } else if prefix("/storage/v1") {
        "storage"
    } else if prefix("/realtime/v1") {
        "realtime"
    } else {
        "gateway"
    }
}

/// The method as a label: the standard ones by name, any other as `other`
/// (a client may send any token as a method).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_id_is_kept_only_when_short_and_of_token_characters() {
        let cases: [(&str, bool); 8] = [
            ("abc-123", true),
            ("0b7c2f9e-4a1d-4e8b-9c3f-2d1e0f9a8b7c", true),
            ("trace:span.1_2", true),
            ("", false),
            ("has space", false),
            ("quote\"", false),
            ("new\nline", false),
            ("ünïcode", false),
        ];
        for (id, kept) in cases {
            assert_eq!(acceptable(id.as_bytes()), kept, "{id:?}");
        }
        assert!(acceptable("a".repeat(MAX_ID_LENGTH).as_bytes()));
        assert!(!acceptable("a".repeat(MAX_ID_LENGTH + 1).as_bytes()));
    }

    #[test]
    fn paths_name_their_service() {
        let cases = [
            ("/rest/v1/products", "rest"),
            ("/rest/v1", "rest"),
            ("/rest/v10", "gateway"),
            ("/auth/v1/token", "auth"),
            ("/storage/v1/object/x", "storage"),
            ("/realtime/v1/websocket", "realtime"),
            ("/health", "gateway"),
            ("/", "gateway"),
        ];
        for (path, service) in cases {
            assert_eq!(service_of(path), service, "{path}");
        }
    }
}
