//! The HTTP server: accepts connections and serves the app on each, with the
//! limits that keep a slow or hostile client from holding the gateway.
//!
//! `axum::serve` has no timeouts, no connection cap and a drain without end
//! (2,000 silent connections were never closed, and a client
//! holding a half-sent request kept a SIGTERMed gateway alive), so the gateway
//! runs its own accept loop over hyper-util's connection builder, as
//! `axum::serve` does inside:
//!
//! - **Header and idle timeouts** are kept per connection by watching its
//!   bytes ([`Clock`]), not by hyper's `header_read_timeout`: hyper (1.x) starts
//!   that timer as soon as it waits for a request, so it also closes idle
//!   keep-alive connections after the same time, and the two could not be set
//!   apart (Go's `ReadHeaderTimeout` and `IdleTimeout`, nginx's
//!   `client_header_timeout` and `keepalive_timeout`, are separate). A request
//!   head's timer starts with its first byte (or, for a pipelined request,
//!   with the last byte of the answer before it); the idle timer with the
//!   last byte moved after the last answer. A connection whose timer runs out is dropped,
//!   which closes it.
//! - **Header size**: hyper answers 431 once a request head outgrows its read
//!   buffer (`max_buf_size`), and HTTP/2 refuses header lists above
//!   `max_header_list_size`; both are `--max-header-size`. hyper also caps the
//!   number of headers at 100 (431 above).
//! - **Connections**: a permit per connection is taken before `accept`, so
//!   beyond `--max-connections` new connections wait in the kernel's backlog
//!   and established ones are not touched.
//! - **Drain**: on shutdown the listener closes, every connection is asked to
//!   finish the request it serves and close, and at `--drain-timeout` the ones
//!   left are dropped.
//! - **Upgrades** (Realtime's WebSocket, `gateway-realtime`): a connection
//!   upgraded leaves hyper and these timers (a WebSocket idles between
//!   heartbeats; Realtime keeps its own idle rule). It keeps its permit, and
//!   gets a [`ConnectionSlot`] through which it learns of the shutdown, to
//!   send its close frames; the drain waits for it too.
//!
//! Request bodies have their own limits ([`crate::body`]).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tower::Service;

use crate::config::Span;
use crate::config::parse_size;

/// The route template of an answer from a service that routes without
/// axum's router (REST), where axum's `MatchedPath` would be: the metrics'
/// `route` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteTemplate(pub &'static str);

/// Connection and body limits: the "Limits" section of the configuration.
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Limits")]
pub struct ServerConfig {
    /// Largest request body of `/rest/v1` and `/auth/v1`, and of Storage's JSON
    /// routes (uploads have `--storage-file-size-limit`), in bytes or with a
    /// unit. Above it: 413 at once when `Content-Length` says so, else as soon
    /// as the bytes read pass it. 2 MiB was axum's limit before it was a setting.
    #[arg(long, env = "GATEWAY_BODY_LIMIT", default_value = "2MiB", value_parser = parse_size)]
    pub body_limit: u64,

    /// How long a request body may take: a JSON body must arrive whole within
    /// it, an upload may pause no longer than it between two reads. Then 408.
    #[arg(long, env = "GATEWAY_BODY_TIMEOUT", default_value = "30s")]
    pub body_timeout: Span,

    /// How long a request's head (request line and headers) may take from its
    /// first byte; a connection that has not sent it whole by then is closed.
    #[arg(long, env = "GATEWAY_HEADER_TIMEOUT", default_value = "30s")]
    pub header_timeout: Span,

    /// How long a keep-alive connection may stay idle between requests
    /// before it is closed. Above the 60 s idle timeout of common load
    /// balancers, so that they close first (nginx's `keepalive_timeout` is 75 s).
    #[arg(long, env = "GATEWAY_IDLE_TIMEOUT", default_value = "75s")]
    pub idle_timeout: Span,

    /// Largest request head (request line and headers together), in bytes or
    /// with a unit; 431 above it. At least 8 KiB.
    #[arg(long, env = "GATEWAY_MAX_HEADER_SIZE", default_value = "64KiB", value_parser = parse_header_size)]
    pub max_header_size: u64,

    /// Most connections served at once; more wait in the listen backlog
    /// until one closes. Lowered at start to the open-files limit less 256,
    /// if that is lower.
    #[arg(long, env = "GATEWAY_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// After SIGTERM or Ctrl-C: how long requests in flight get to finish
    /// before the connections left are dropped (and PostgreSQL is stopped).
    #[arg(long, env = "GATEWAY_DRAIN_TIMEOUT", default_value = "20s")]
    pub drain_timeout: Span,

    /// After SIGTERM or Ctrl-C: how long connections already open are still
    /// served, each answer closing its connection (`Connection: close`),
    /// before idle ones are closed. Behind a load balancer that keeps
    /// connections open (nginx's `keepalive`), a request sent just as an idle
    /// connection closes fails, and a POST is not resent; with a delay the
    /// balancer retires its connections with their answers and finds the
    /// listener closed for new ones. `0s`: idle connections close at once.
    #[arg(long, env = "GATEWAY_DRAIN_DELAY", default_value = "0s")]
    pub drain_delay: Span,
}

/// hyper refuses read buffers under 8 KiB (`max_buf_size` asserts it).
fn parse_header_size(text: &str) -> Result<u64, String> {
    let size = parse_size(text)?;
    if !(8192..=u64::from(u32::MAX)).contains(&size) {
        return Err(format!("{text:?} is out of range: the header limit must be at least 8KiB"));
    }
    Ok(size)
}

/// Files the process keeps open besides its connections: the pool's
/// connections to PostgreSQL, stored files being read or written, logs.
const RESERVED_FILES: u64 = 256;

/// Raises the soft open-files limit to the hard one (systemd's soft default
/// is 1,024, which a client holding that many connections exhausts) and
/// returns the limit now in force.
pub fn raise_open_files_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft >= hard {
        tracing::info!(limit = soft, "open-files limit");
        return Some(soft);
    }
    match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Ok(()) => {
            tracing::info!(from = soft, to = hard, "raised the open-files limit to its hard limit");
            Some(hard)
        }
        Err(e) => {
            tracing::warn!(limit = soft, hard, error = %e, "could not raise the open-files limit");
            Some(soft)
        }
    }
}

/// `--max-connections`, lowered so that the connections fit in `open_files`.
pub fn connection_cap(config: &ServerConfig, open_files: Option<u64>) -> usize {
    let wanted = config.max_connections.max(1);
    let Some(files) = open_files else { return wanted };
    let fits = usize::try_from(files.saturating_sub(RESERVED_FILES)).unwrap_or(usize::MAX).max(1);
    if fits < wanted {
        tracing::warn!(
            max_connections = fits,
            configured = wanted,
            open_files = files,
            "lowered the connection cap to fit the open-files limit"
        );
        return fits;
    }
    wanted
}

/// What the server serves: a service that is always ready, as axum's
/// routers and the gateway's stack of services are (`poll_ready` is not
/// called, as `axum::serve` does not call it), cloned for each request.
pub trait App:
    Service<
        axum::extract::Request,
        Response = axum::response::Response,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> App for T where
    T: Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains (see the
/// module doc). `max_connections` is the cap in force ([`connection_cap`]).
pub async fn serve(
    listener: TcpListener,
    app: impl App,
    config: &ServerConfig,
    max_connections: usize,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    let header = usize::try_from(config.max_header_size).unwrap_or(usize::MAX);
    builder.http1().max_buf_size(header).header_read_timeout(None);
    builder.http2().max_header_list_size(u32::try_from(config.max_header_size).unwrap_or(u32::MAX));
    let builder = Arc::new(builder);
    let timeouts = Timeouts {
        header: config.header_timeout.0,
        idle: config.idle_timeout.0,
        drain_delay: config.drain_delay.0,
    };
    let permits = Arc::new(Semaphore::new(max_connections));
    let (stop, stopped) = watch::channel(false);
    let (alive, mut all_gone) = mpsc::channel::<()>(1);
    let mut connections = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors, most likely: wait for some to close
                // rather than spin (what `axum::serve` does too).
                tracing::error!(error = %e, "could not accept a connection");
                tokio::select! {
                    () = &mut shutdown => break,
                    () = tokio::time::sleep(Duration::from_millis(200)) => continue,
                }
            }
        };
        // Each response and WebSocket frame is written whole, so Nagle's
        // algorithm would only hold a small write back until the peer's
        // delayed ACK (up to 40 ms on Linux) when an earlier one is unacked:
        // a pipelined answer or a Realtime message after another
        // (docs/benchmarks.md, "Realtime: broadcast fan-out").
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        while connections.try_join_next().is_some() {}
        let slot =
            ConnectionSlot { _permit: Arc::new(permit), stopping: stopped.clone(), _alive: alive.clone() };
        let connection =
            Connection { app: app.clone(), builder: builder.clone(), timeouts, stopped: stopped.clone() };
        connections.spawn(async move {
            connection.serve(stream, peer, slot).await;
        });
    }
    drop(listener);
    drop(alive);
    let _ = stop.send(true);
    let open = connections.len();
    if open > 0 {
        tracing::info!(connections = open, deadline = ?config.drain_timeout.0, "draining connections");
    }
    let drained = tokio::time::timeout(config.drain_timeout.0, async {
        while connections.join_next().await.is_some() {}
        // Upgraded connections (WebSockets) close themselves once told.
        let _ = all_gone.recv().await;
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = connections.len(),
            "drain deadline passed: dropping the connections left"
        );
        connections.shutdown().await;
    }
    Ok(())
}

/// Errors of one connection, not of the listener (hyper's and axum's list).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}

#[derive(Clone, Copy, Debug)]
struct Timeouts {
    header: Duration,
    idle: Duration,
    drain_delay: Duration,
}

/// What an upgraded connection keeps of its place in the server: its
/// connection permit, the shutdown signal, and a handle the drain waits on.
#[derive(Clone)]
pub struct ConnectionSlot {
    _permit: Arc<OwnedSemaphorePermit>,
    /// Turns `true` when the gateway begins to shut down.
    pub stopping: watch::Receiver<bool>,
    _alive: mpsc::Sender<()>,
}

struct Connection<A> {
    app: A,
    builder: Arc<Builder<TokioExecutor>>,
    timeouts: Timeouts,
    stopped: watch::Receiver<bool>,
}

impl<A: App> Connection<A> {
    async fn serve(mut self, stream: TcpStream, peer: SocketAddr, slot: ConnectionSlot) {
        let clock = Arc::new(Clock::new());
        let io = TokioIo::new(Watched { inner: stream, clock: clock.clone() });
        let service = Tracked { app: self.app.clone(), clock: clock.clone(), peer, slot };
        // An upgraded connection's future ends here as hyper hands its socket
        // over (`hyper::upgrade`), so these timers stop applying to it.
        let mut conn = pin!(self.builder.serve_connection_with_upgrades(io, service));
        let mut stopping = *self.stopped.borrow();
        if stopping {
            conn.as_mut().graceful_shutdown();
        }
        // With a drain delay, when the connection is asked to finish.
        let mut finish_at: Option<Instant> = None;
        // The task wakes at the connection's deadline and at least every
        // `period`, so a deadline that comes nearer (a head begins while the
        // connection idles, an answer ends) is never missed, without waking
        // the task on every request.
        let period = self.timeouts.header.min(self.timeouts.idle);
        loop {
            let now = Instant::now();
            let wake = clock.deadline(self.timeouts).map_or(now + period, |d| d.min(now + period));
            tokio::select! {
                _ = conn.as_mut() => break,
                () = tokio::time::sleep_until(wake) => {
                    if clock.deadline(self.timeouts).is_some_and(|d| d <= Instant::now()) {
                        tracing::debug!(%peer, "closing a connection: header or idle timeout");
                        break;
                    }
                }
                changed = self.stopped.changed(), if !stopping => {
                    stopping = true;
                    if changed.is_ok() && self.timeouts.drain_delay.is_zero() {
                        conn.as_mut().graceful_shutdown();
                    } else if changed.is_ok() {
                        finish_at = Some(Instant::now() + self.timeouts.drain_delay);
                    }
                }
                () = tokio::time::sleep_until(finish_at.unwrap_or(now)), if finish_at.is_some() => {
                    finish_at = None;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// What a connection's timers need to know, updated by its reads and writes
/// ([`Watched`]) and by its requests ([`Tracked`]). Times are milliseconds
/// since the connection opened.
struct Clock {
    opened: Instant,
    /// Requests being answered (several at once over HTTP/2).
    in_flight: AtomicUsize,
    /// When a byte last moved, or the last answer was made.
    last_activity: AtomicU64,
    /// When the first byte of a request head not yet complete arrived.
    head_since: AtomicU64,
    /// When a byte was last written: a pipelined request's head waits while
    /// the answer before it is still being written.
    last_write: AtomicU64,
    read_once: AtomicBool,
    /// HTTP/2 (prior knowledge): frames flow between requests, so only the
    /// idle timer applies.
    http2: AtomicBool,
}

const NO_HEAD: u64 = u64::MAX;

impl Clock {
    fn new() -> Self {
        Self {
            opened: Instant::now(),
            in_flight: AtomicUsize::new(0),
            last_activity: AtomicU64::new(0),
            head_since: AtomicU64::new(NO_HEAD),
            last_write: AtomicU64::new(0),
            read_once: AtomicBool::new(false),
            http2: AtomicBool::new(false),
        }
    }

    fn now(&self) -> u64 {
        self.opened.elapsed().as_millis() as u64
    }

    fn read(&self, bytes: &[u8]) {
        let now = self.now();
        self.last_activity.store(now, Ordering::Relaxed);
        if !self.read_once.swap(true, Ordering::Relaxed) && bytes.starts_with(b"PRI * HTTP/2.0") {
            self.http2.store(true, Ordering::Relaxed);
        }
        if self.in_flight.load(Ordering::Acquire) == 0
            && !self.http2.load(Ordering::Relaxed)
            && self.head_since.load(Ordering::Relaxed) == NO_HEAD
        {
            self.head_since.store(now, Ordering::Relaxed);
        }
    }

    fn wrote(&self) {
        let now = self.now();
        self.last_activity.store(now, Ordering::Relaxed);
        self.last_write.store(now, Ordering::Relaxed);
    }

    /// A request's head is in and it is being answered.
    fn enter(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_since.store(NO_HEAD, Ordering::Relaxed);
    }

    /// Its answer is made (its body may still be on its way out).
    fn leave(&self) {
        self.last_activity.store(self.now(), Ordering::Relaxed);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// When the connection is to be closed, if nothing happens before; none
    /// while a request is answered (its body and statement have their own
    /// timeouts).
    fn deadline(&self, timeouts: Timeouts) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let head = self.head_since.load(Ordering::Relaxed);
        let at = if head == NO_HEAD {
            Duration::from_millis(self.last_activity.load(Ordering::Relaxed)) + timeouts.idle
        } else {
            Duration::from_millis(head.max(self.last_write.load(Ordering::Relaxed))) + timeouts.header
        };
        Some(self.opened + at)
    }
}

/// A connection's socket, reporting the bytes it moves to its [`Clock`].
struct Watched {
    inner: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll
            && buf.filled().len() > before
        {
            self.clock.read(&buf.filled()[before..]);
        }
        poll
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = poll
            && n > 0
        {
            self.clock.wrote();
        }
        poll
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = poll
            && n > 0
        {
            self.clock.wrote();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The app as one connection's hyper service: counts the requests being
/// answered and gives handlers the peer's address (what
/// `into_make_service_with_connect_info` did; auth rate limits key on it).
#[derive(Clone)]
struct Tracked<A> {
    app: A,
    clock: Arc<Clock>,
    peer: SocketAddr,
    slot: ConnectionSlot,
}

/// Counts one request as answered until dropped.
struct InFlight(Arc<Clock>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.leave();
    }
}

impl<A: App> hyper::service::Service<hyper::Request<Incoming>> for Tracked<A> {
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        self.clock.enter();
        let guard = InFlight(self.clock.clone());
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(ConnectInfo(self.peer));
        request.extensions_mut().insert(self.slot.clone());
        // The app is always ready ([`App`]).
        // Once the gateway is stopping (during `--drain-delay`), every
        // HTTP/1 answer closes its connection, so a client that keeps
        // connections open retires this one. HTTP/2 has no such header.
        let http1 = request.version() < hyper::Version::HTTP_2;
        let stopping = self.slot.stopping.clone();
        let answer = self.app.clone().call(request);
        Box::pin(async move {
            let mut response = answer.await;
            drop(guard);
            if http1
                && *stopping.borrow()
                && let Ok(response) = &mut response
            {
                response
                    .headers_mut()
                    .insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
            }
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_limits_below_8_kib_are_refused() {
        let cases =
            [("64KiB", Some(65_536)), ("8KiB", Some(8192)), ("8000", None), ("5GB", None), ("big", None)];
        for (text, expected) in cases {
            assert_eq!(parse_header_size(text).ok(), expected, "{text}");
        }
    }

    #[test]
    fn the_connection_cap_fits_in_the_open_files_limit() {
        let config = |max_connections| ServerConfig {
            body_limit: 1,
            body_timeout: Span(Duration::from_secs(1)),
            header_timeout: Span(Duration::from_secs(1)),
            idle_timeout: Span(Duration::from_secs(1)),
            max_header_size: 8192,
            max_connections,
            drain_timeout: Span(Duration::from_secs(1)),
            drain_delay: Span(Duration::ZERO),
        };
        // (configured, open-files limit, cap in force)
        let cases = [
            (10_000, Some(1_048_576), 10_000),
            (10_000, Some(1024), 768),
            (10_000, Some(100), 1),
            (10_000, None, 10_000),
            (0, Some(1024), 1),
        ];
        for (configured, files, cap) in cases {
            assert_eq!(connection_cap(&config(configured), files), cap, "{configured} with {files:?}");
        }
    }

    /// Seconds from the connection's opening to its deadline (the test runs
    /// in well under a second, so they are whole).
    fn due(clock: &Clock, timeouts: Timeouts) -> Option<u64> {
        clock.deadline(timeouts).map(|d| (d - clock.opened).as_secs())
    }

    #[test]
    fn a_connection_is_due_to_close_by_its_head_or_idle_timer_and_never_while_answering() {
        let timeouts = Timeouts {
            header: Duration::from_secs(10),
            idle: Duration::from_secs(60),
            drain_delay: Duration::ZERO,
        };
        let clock = Clock::new();
        assert_eq!(due(&clock, timeouts), Some(60), "silent: the idle timer");
        clock.read(b"GET / HTTP/1.1\r\n");
        assert_eq!(due(&clock, timeouts), Some(10), "a head begun: the header timer");
        clock.enter();
        assert_eq!(due(&clock, timeouts), None, "answering");
        clock.leave();
        assert_eq!(due(&clock, timeouts), Some(60), "answered: idle again");
    }

    #[test]
    fn http2_connections_have_only_the_idle_timer() {
        let timeouts = Timeouts {
            header: Duration::from_secs(10),
            idle: Duration::from_secs(60),
            drain_delay: Duration::ZERO,
        };
        let clock = Clock::new();
        clock.read(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        assert_eq!(due(&clock, timeouts), Some(60));
    }
}
