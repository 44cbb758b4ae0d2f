//! `/functions/v1`: Supabase Edge Functions, as functions-js
//! (`supabase.functions.invoke`) calls them, each run by Deno in a process
//! of its own (`worker`), from a folder laid out as the Supabase CLI lays it
//! out (`layout`).
//!
//! The request reaches the function as Supabase hands it over: the path
//! after `/functions/v1` (so `new URL(req.url).pathname` is `/<name>/...`,
//! as Supabase documents for routing inside a function), the query, the
//! method, the headers and the body, streamed both ways. The gateway adds
//! nothing to the function's answer (no CORS headers: the function answers
//! `OPTIONS` itself, as on Supabase). What the gateway answers itself is
//! Edge Runtime's (the CLI's `functions serve` main service and
//! <https://supabase.com/docs/guides/functions/status-codes>), so that
//! functions-js raises a `FunctionsHttpError` carrying the same bodies:
//!
//! | When | Status | Body |
//! |---|---|---|
//! | no such function | 404 | `{"code":"NOT_FOUND","message":"Requested function was not found"}` |
//! | `verify_jwt` and no bearer | 401 | `{"code":401,"message":"Missing authorization header"}` |
//! | `verify_jwt` and a bad token | 401 | `{"code":401,"message":"Invalid JWT"}` |
//! | another method | 405 | `{"code":"METHOD_NOT_ALLOWED",...}` |
//! | the function fails to start | 503 | `{"code":"BOOT_ERROR","message":"Worker failed to boot (please check logs)"}` |
//! | its process dies (memory) | 546 | `{"code":"WORKER_LIMIT","message":"Worker failed to respond due to a resource limit (please check logs)"}` |
//! | no answer within the wall clock | 504 | `{"code":"WORKER_TIMEOUT",...}` |
//! | it throws | 500 | `{"code":"WORKER_ERROR","message":"Function exited due to an error (please check logs)"}` |

pub mod config;
pub mod deploy;
pub mod layout;
pub mod secrets;
pub mod worker;

use std::sync::Arc;

use axum::{
    Router,
    body::Body,
    extract::{Request, State},
    http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use gateway_core::caller::Credentials;
use gateway_core::db::Db;
use gateway_core::role::Role;
use hyper_util::rt::TokioIo;

pub use config::FunctionsConfig;
pub use worker::Workers;

use worker::BootError;

/// What `/functions/v1` needs: the running functions, the keys that verify
/// callers and name the functions' own keys, and the database the functions
/// are told about.
#[derive(Clone)]
pub struct FunctionsState {
    pub workers: Arc<Workers>,
    pub credentials: Arc<Credentials>,
    pub db: Db,
    /// `SUPABASE_URL` as configured or made from `--listen`; `None` when the
    /// gateway listens on a port chosen at start, in which case the first
    /// request's `Host` names it.
    pub supabase_url: Option<String>,
}

/// The routes under `/functions/v1`, each function's name the first segment.
pub fn router(state: FunctionsState) -> Router {
    Router::new().fallback(invoke).with_state(state)
}

async fn invoke(State(state): State<FunctionsState>, request: Request) -> Response {
    if !matches!(
        *request.method(),
        Method::GET | Method::POST | Method::PUT | Method::PATCH | Method::DELETE | Method::OPTIONS
    ) {
        return answer(
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "Edge Functions only support GET, POST, PUT, PATCH, DELETE and OPTIONS",
        );
    }
    let name = request.uri().path().trim_start_matches('/').split('/').next().unwrap_or_default().to_owned();
    let worker = if let Some(worker) = state.workers.running(&name) {
        if let Err(message) = authorize(&state, worker.verify_jwt(), &request) {
            return unauthorized(message);
        }
        worker
    } else {
        let Some(function) = state.workers.layout.function(&name) else {
            return answer(StatusCode::NOT_FOUND, "NOT_FOUND", "Requested function was not found");
        };
        if let Err(message) = authorize(&state, function.verify_jwt, &request) {
            return unauthorized(message);
        }
        let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_owned);
        let env = async || environment(&state, host.as_deref()).await;
        match state.workers.worker(&function, env).await {
            Ok(worker) => worker,
            Err(BootError::NoDeno(cause) | BootError::Failed(cause)) => {
                tracing::error!(function = %name, cause = %cause, "the function failed to boot");
                return answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "BOOT_ERROR",
                    "Worker failed to boot (please check logs)",
                );
            }
        }
    };
    forward(&state, worker, request).await
}

/// The function's answer to `request`, streamed.
async fn forward(state: &FunctionsState, worker: Arc<worker::Worker>, request: Request) -> Response {
    let in_flight = worker.begin();
    let limit = state.workers.config().wall_clock_limit.0;
    let deadline = tokio::time::Instant::now() + limit;
    let (mut parts, body) = request.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    if !parts.headers.contains_key(header::HOST)
        && let Some(authority) = parts.uri.authority()
        && let Ok(host) = HeaderValue::from_str(authority.as_str())
    {
        parts.headers.insert(header::HOST, host);
    }
    let path = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    parts.uri = match path.parse() {
        Ok(uri) => uri,
        Err(_) => {
            return answer(StatusCode::BAD_REQUEST, "BAD_REQUEST", "The request's path cannot be forwarded");
        }
    };
    parts.version = axum::http::Version::HTTP_11;
    let outgoing = Request::from_parts(parts, body);

    // A connection to the function's socket kept open by an earlier request
    // (kept alive, as a client of `Deno.serve` keeps it), or a new one.
    let exchange = async {
        let kept = match worker.idle_connection() {
            Some(mut sender) => sender.ready().await.is_ok().then_some(sender),
            None => None,
        };
        let mut sender = match kept {
            Some(sender) => sender,
            None => {
                let stream = tokio::net::UnixStream::connect(&worker.socket).await?;
                metrics::counter!("gateway_functions_connections_opened_total", "function" => worker.name.clone())
                    .increment(1);
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(error = %e, "a function's connection ended");
                    }
                });
                sender
            }
        };
        let response = sender.send_request(outgoing).await.map_err(BoxError::from)?;
        Ok::<_, BoxError>((response, sender))
    };
    let (response, sender) = match tokio::time::timeout_at(deadline, exchange).await {
        Ok(Ok(answered)) => answered,
        Ok(Err(e)) => {
            // A process that died under a request: a V8 heap over the memory
            // limit, or a kill. Edge Runtime answers a worker stopped by a
            // limit this way.
            tracing::error!(function = %worker.name, error = %e, "the function's process stopped during a request");
            state.workers.retire(&worker);
            return answer(
                StatusCode::from_u16(546).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                "WORKER_LIMIT",
                "Worker failed to respond due to a resource limit (please check logs)",
            );
        }
        Err(_) => {
            tracing::error!(function = %worker.name, limit = ?limit, "the function did not answer within the wall clock limit; stopping it");
            state.workers.retire(&worker);
            return answer(
                StatusCode::GATEWAY_TIMEOUT,
                "WORKER_TIMEOUT",
                "Function did not respond before the wall clock limit",
            );
        }
    };
    let (mut parts, body) = response.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    // The worker counts as busy until the last byte of its answer is out, and
    // the wall clock runs on while the answer streams: past it the answer is
    // cut off, and the function sees its request aborted.
    let answer = Answer {
        body,
        deadline: Box::pin(tokio::time::sleep_until(deadline)),
        limit,
        held: Some((in_flight, sender)),
    };
    Response::from_parts(parts, Body::new(answer.released_when_empty()))
}

/// A function's answer on its way to the caller. The connection it came on
/// goes back to the worker's pool as soon as the body is whole: when its last
/// frame arrives, not when the body is polled once more, since hyper stops
/// polling a body once it has written its `content-length`. Waiting for that
/// last poll kept no connection, and cost a new one, and a new accept in
/// Deno, for every request.
struct Answer {
    body: hyper::body::Incoming,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
    limit: std::time::Duration,
    held: Option<(worker::InFlight, Connection)>,
}

impl Answer {
    /// Releases at once an answer without a body (204, 304, HEAD).
    fn released_when_empty(mut self) -> Self {
        if hyper::body::Body::is_end_stream(&self.body) {
            self.release();
        }
        self
    }

    fn release(&mut self) {
        if let Some((in_flight, sender)) = self.held.take() {
            in_flight.worker().keep_connection(sender);
        }
    }
}

impl hyper::body::Body for Answer {
    type Data = bytes::Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, BoxError>>> {
        use std::task::Poll;
        let this = &mut *self;
        match std::pin::Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if this.body.is_end_stream() {
                    this.release();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.held = None;
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(None) => {
                this.release();
                Poll::Ready(None)
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) if this.held.is_some() => {
                    let name =
                        this.held.as_ref().map(|(held, _)| held.worker().name.clone()).unwrap_or_default();
                    tracing::warn!(function = %name, limit = ?this.limit, "the function's answer ran past the wall clock limit; cut off");
                    this.held = None;
                    Poll::Ready(Some(Err(BoxError::from("the wall clock limit was reached"))))
                }
                _ => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.held.is_none() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A kept-alive connection to a function's socket.
pub type Connection = hyper::client::conn::http1::SendRequest<Body>;

/// Headers of one hop only (RFC 9110, section 7.6.1), which a proxy drops.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        header::CONNECTION,
        HeaderName::from_static("keep-alive"),
        header::PROXY_AUTHENTICATE,
        header::PROXY_AUTHORIZATION,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
    ] {
        headers.remove(name);
    }
}

/// The JWT check Supabase runs before a function with `verify_jwt`: any
/// token the gateway's keys verify (the legacy HS256 secret and the
/// asymmetric signing keys alike). Publishable and secret keys are not JWTs
/// and fail it, as Supabase documents.
/// With `verify_jwt`, every request but a CORS preflight needs a valid JWT:
/// the CLI's main service lets preflights through unchecked, so that a
/// browser's `OPTIONS` reaches the function's own CORS answer.
fn authorize(state: &FunctionsState, verify_jwt: bool, request: &Request) -> Result<(), &'static str> {
    if !verify_jwt || request.method() == Method::OPTIONS {
        return Ok(());
    }
    verify(&state.credentials, request.headers())
}

fn verify(credentials: &Credentials, headers: &HeaderMap) -> Result<(), &'static str> {
    let value = headers.get(header::AUTHORIZATION).ok_or("Missing authorization header")?;
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .ok_or("Invalid JWT")?;
    credentials.jwt.verify(token).map(|_| ()).map_err(|_| "Invalid JWT")
}

fn unauthorized(message: &str) -> Response {
    let body = serde_json::json!({"code": 401, "message": message});
    (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
}

fn answer(status: StatusCode, code: &str, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({"code": code, "message": message}))).into_response()
}

/// The variables Supabase gives every function
/// (<https://supabase.com/docs/guides/functions/secrets>) and the operator's
/// secrets, made when a function's process starts so that it has the keys
/// and secrets in use then.
async fn environment(state: &FunctionsState, host: Option<&str>) -> Result<worker::Env, String> {
    let mut env = supabase_environment(state, host);
    let secrets = secrets::environment(&state.db, &state.credentials)
        .await
        .map_err(|e| format!("the functions' secrets could not be read: {e}"))?;
    env.extend(secrets);
    Ok(env)
}

fn supabase_environment(state: &FunctionsState, host: Option<&str>) -> worker::Env {
    let url = state
        .supabase_url
        .clone()
        .or_else(|| host.map(|h| format!("http://{h}")))
        .unwrap_or_else(|| "http://127.0.0.1:54321".to_owned());
    let jwt = &state.credentials.jwt;
    let key = |role| gateway_core::jwt::api_key(jwt, role).unwrap_or_default();
    let mut env = vec![
        ("SUPABASE_URL", url),
        ("SUPABASE_ANON_KEY", key(Role::Anon)),
        ("SUPABASE_SERVICE_ROLE_KEY", key(Role::ServiceRole)),
        ("SUPABASE_DB_URL", database_url(state.db.pg_config())),
        ("SUPABASE_JWKS", jwt.jwks().to_string()),
    ];
    if let Some(publishable) = state.credentials.api_keys.publishable() {
        env.push(("SUPABASE_PUBLISHABLE_KEYS", serde_json::json!({"default": publishable}).to_string()));
    }
    env.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
}

/// A libpq URL for the gateway's own database connection (the
/// `authenticator` role, or whatever `DATABASE_URL` names).
fn database_url(pg: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let enc = |s: &str| {
        let mut out = String::new();
        for byte in s.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                out.push(byte as char);
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        out
    };
    let user = pg.get_user().map(enc).unwrap_or_default();
    let password =
        pg.get_password().map(|p| format!(":{}", enc(&String::from_utf8_lossy(p)))).unwrap_or_default();
    let dbname = pg.get_dbname().map(enc).unwrap_or_default();
    let port = pg.get_ports().first().copied().unwrap_or(5432);
    match pg.get_hosts().first() {
        Some(Host::Tcp(host)) => format!("postgresql://{user}{password}@{}:{port}/{dbname}", enc(host)),
        Some(Host::Unix(dir)) => format!(
            "postgresql://{user}{password}@/{dbname}?host={}&port={port}",
            enc(&dir.to_string_lossy())
        ),
        None => format!("postgresql://{user}{password}@localhost:{port}/{dbname}"),
    }
}
