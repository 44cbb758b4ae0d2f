//! Request bodies: a size limit and a timeout for every service (without
//! them a body announced as 10 GB, of which 11 bytes came, was waited for
//! forever by `/rest/v1` and `/auth/v1`).
//!
//! - [`read_whole`] is the layer of every route that reads a JSON (or other
//!   small) body: it refuses a `Content-Length` above `--body-limit` before
//!   reading a byte, reads the body whole within `--body-timeout`, counting
//!   the bytes (a chunked body has no length to check up front), and hands
//!   the handler the bytes read. Handlers keep extracting `Bytes` as before.
//!   [`read`] does the same for REST, which reads its own body.
//! - [`pace`] is the layer of Storage's uploads, which stream to the store
//!   and check their own size limit: a pause longer than `--body-timeout`
//!   between two reads ends the body, and the answer becomes 408.
//!
//! Both answer with [`ApiError::BodyTooLarge`] and [`ApiError::BodyTimeout`],
//! which each router renders in its service's shape; hyper then closes the
//! connection, the body being unread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use crate::error::ApiError;
use crate::server::ServerConfig;

/// What the layers read of the configuration: their state, copied into each
/// request's call (a clone of the whole application state there cost about 1,400
/// instructions a request, measured with callgrind).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub body_limit: u64,
    pub body_timeout: Duration,
}

impl Limits {
    pub fn of(config: &ServerConfig) -> Self {
        Self { body_limit: config.body_limit, body_timeout: config.body_timeout.0 }
    }
}

/// Middleware: the body read whole, within the limits, before the handler.
pub async fn read_whole(
    State(limits): State<Limits>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    Ok(next.run(whole(limits, request).await?).await)
}

/// The request with its body read whole, within the limits.
async fn whole(limits: Limits, request: Request) -> Result<Request, ApiError> {
    let (parts, body) = request.into_parts();
    let announced = body.size_hint();
    if announced.exact() == Some(0) {
        return Ok(Request::from_parts(parts, body));
    }
    // hyper's size hint is the `Content-Length` (HTTP/1.1 and HTTP/2 alike).
    if announced.lower() > limits.body_limit {
        return Err(ApiError::BodyTooLarge(limits.body_limit));
    }
    let body = match read_announced(limits, body).await? {
        Ok(bytes) => Body::from(bytes),
        // A broken body (the client left, a bad chunk) goes on to the
        // handler, whose extractor reports it as it did before.
        Err(error) => Body::from_stream(futures::stream::once(async move { Err::<Bytes, _>(error) })),
    };
    Ok(Request::from_parts(parts, body))
}

/// A body read whole within the limits, for a service that reads its own
/// (REST): its bytes; or, inside, the error of a broken body (the client
/// left, a bad chunk), which the service reports in its own words; or the
/// refusal of a body too large or too slow.
pub async fn read(limits: Limits, body: Body) -> Result<Result<Bytes, axum::Error>, ApiError> {
    let announced = body.size_hint();
    if announced.exact() == Some(0) {
        return Ok(Ok(Bytes::new()));
    }
    if announced.lower() > limits.body_limit {
        return Err(ApiError::BodyTooLarge(limits.body_limit));
    }
    read_announced(limits, body).await
}

/// [`read`] once the announced length is known to be within the limit.
async fn read_announced(limits: Limits, body: Body) -> Result<Result<Bytes, axum::Error>, ApiError> {
    match collect(body, limits.body_limit, limits.body_timeout).await {
        Ok(bytes) => Ok(Ok(bytes)),
        Err(Collect::Broken(error)) => Ok(Err(error)),
        Err(Collect::TooLarge) => Err(ApiError::BodyTooLarge(limits.body_limit)),
        Err(Collect::TimedOut) => Err(ApiError::BodyTimeout(limits.body_timeout)),
    }
}

enum Collect {
    TooLarge,
    TimedOut,
    Broken(axum::Error),
}

/// The body's bytes, if they are at most `limit` and all came within `timeout`.
async fn collect(body: Body, limit: u64, timeout: Duration) -> Result<Bytes, Collect> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut stream = body.into_data_stream();
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut size = 0u64;
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Err(_) => return Err(Collect::TimedOut),
            Ok(None) => break,
            Ok(Some(Err(error))) => return Err(Collect::Broken(error)),
            Ok(Some(Ok(chunk))) => {
                size += chunk.len() as u64;
                if size > limit {
                    return Err(Collect::TooLarge);
                }
                chunks.push(chunk);
            }
        }
    }
    // Most bodies come in one chunk: no copy then.
    Ok(match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.pop().unwrap_or_default(),
        _ => chunks.concat().into(),
    })
}

/// Middleware of the upload routes (see the module doc).
pub async fn pace(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    let timeout = limits.body_timeout;
    let timed_out = Arc::new(AtomicBool::new(false));
    let flag = timed_out.clone();
    let (parts, body) = request.into_parts();
    let stream = body.into_data_stream();
    let paced = futures::stream::unfold(Some(stream), move |stream| {
        let flag = flag.clone();
        async move {
            let mut stream = stream?;
            match tokio::time::timeout(timeout, stream.next()).await {
                Ok(Some(item)) => Some((item, Some(stream))),
                Ok(None) => None,
                Err(_) => {
                    flag.store(true, Ordering::Relaxed);
                    let error =
                        std::io::Error::new(std::io::ErrorKind::TimedOut, "the request body timed out");
                    Some((Err(axum::Error::new(error)), None))
                }
            }
        }
    });
    let response = next.run(Request::from_parts(parts, Body::from_stream(paced))).await;
    let failed = response.status().is_client_error() || response.status().is_server_error();
    if failed && timed_out.load(Ordering::Relaxed) {
        return ApiError::BodyTimeout(timeout).into_response();
    }
    response
}
