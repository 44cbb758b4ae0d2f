//! Refused uploads still read their body, so that the client reads the refusal.
//!
//! An upload can be refused before its body is read: a missing bucket, a
//! row-level security denial, a MIME type or size the bucket does not take.
//! hyper then closes the connection with the body unread, and a client still
//! sending it sees a reset instead of the answer: supabase-js reports
//! `fetch failed` where Storage's JSON error was due (Storage, on Node, reads
//! the whole request before it answers). So the upload routes hand their
//! handler a body they can give back: when the answer is an error, what the
//! handler left unread is read and dropped, up to the upload's size limit
//! (the bucket's, once the handler knows it, see [`DrainLimit`]) and for at
//! most [`DRAIN_TIMEOUT`], before the answer goes out. A body announced larger
//! than that limit is not waited for: it is refused unread, as before; nor is
//! one that already timed out. A refusal whose body was not read whole says
//! `Connection: close`.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, BodyDataStream, Bytes};
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::http::header::{CONNECTION, CONTENT_LENGTH};
use axum::middleware::Next;
use axum::response::Response;
use futures::{Stream, StreamExt, future::poll_fn};

use crate::StorageState;

/// How long a refused upload's remaining body may take to arrive.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The most a refused upload's body is read for, in the request's extensions:
/// the configured limit until the handler has found the bucket's own.
#[derive(Clone, Debug)]
pub struct DrainLimit(Arc<AtomicU64>);

impl DrainLimit {
    pub fn set(&self, bytes: u64) {
        self.0.store(bytes, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A request body shared between the handler and this middleware.
#[derive(Clone)]
struct Shared(Arc<Mutex<BodyDataStream>>);

impl Shared {
    fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, axum::Error>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).poll_next_unpin(cx)
    }
}

impl Stream for Shared {
    type Item = Result<Bytes, axum::Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Shared::poll_next(&self, cx)
    }
}

/// Middleware of the upload routes (see the module doc).
pub async fn unread_body_on_refusal(
    State(state): State<StorageState>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let declared =
        parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let limit = DrainLimit(Arc::new(AtomicU64::new(state.config.file_size_limit)));
    parts.extensions.insert(limit.clone());
    let shared = Shared(Arc::new(Mutex::new(body.into_data_stream())));
    let mut response = next.run(Request::from_parts(parts, Body::from_stream(shared.clone()))).await;
    let refused = response.status().is_client_error() || response.status().is_server_error();
    if !refused {
        return response;
    }
    // A body that stopped coming (408, `gateway_core::body::pace`) is not waited for again.
    let stalled = response.status() == axum::http::StatusCode::REQUEST_TIMEOUT;
    let drained = !stalled
        && declared.is_none_or(|n| n <= limit.get())
        && tokio::time::timeout(DRAIN_TIMEOUT, drain(&shared, limit.get())).await.unwrap_or(false);
    if !drained {
        // The connection cannot be used again: the rest of this body may
        // still come, or, after `Expect: 100-continue`, never will (boto3
        // sends that on every PutObject), and the client's next request would
        // be read as this body. hyper closes the connection but only says so
        // when told: said, no client sends another request on it (RFC 9112
        // section 9.6).
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Reads and drops the rest of the body, up to `limit` bytes: whether it
/// ended within the limit.
async fn drain(body: &Shared, limit: u64) -> bool {
    let mut read = 0u64;
    loop {
        match poll_fn(|cx| body.poll_next(cx)).await {
            None => return true,
            Some(Err(_)) => return false,
            Some(Ok(chunk)) => {
                read += chunk.len() as u64;
                if read > limit {
                    return false;
                }
            }
        }
    }
}
