//! `/realtime/v1`: Supabase Realtime for unmodified `@supabase/realtime-js`:
//! Phoenix channels over a WebSocket carrying database changes
//! under row-level security, broadcast and presence.
//!
//! - [`socket`]: the WebSocket at `/realtime/v1/websocket`, its channels,
//!   broadcast, presence and private channels ([`auth`]).
//! - [`wire`]: Phoenix's serializers 1.0.0 and 2.0.0.
//! - [`hub`]: the channels joined on this gateway; [`bus`]: the other
//!   gateways on the same database; [`limits`]: Realtime's tenant limits,
//!   held for the whole project across them.
//! - [`changes`]: `postgres_changes`, read from PostgreSQL's logical decoding,
//!   checked against RLS as each subscriber, delivered to the channels that
//!   bound them.
//! - `POST /realtime/v1/api/broadcast`: Realtime's REST broadcast, which
//!   realtime-js uses for `send()` on a channel not joined yet, and
//!   `POST /realtime/v1/api/broadcast/<topic>/events/<event>`, its single
//!   message (realtime-js's `httpSend()`), JSON or binary.

pub mod auth;
pub mod bus;
pub mod changes;
pub mod config;
pub mod error;
pub mod hub;
pub mod limits;
pub mod socket;
pub mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use axum::{
    Json, Router,
    extract::{Path, Query, State, WebSocketUpgrade},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::{Value, json};

use axum::extract::FromRef;
use gateway_core::caller::{Caller, Credentials};
use gateway_core::db::Db;
use gateway_core::error::{ApiError, shaped};
use gateway_core::server::ConnectionSlot;
use tracing::Instrument;

use config::RealtimeConfig;
use error::RealtimeError;

/// What Realtime's handlers and sockets see.
#[derive(Clone)]
pub struct RealtimeState {
    pub db: Db,
    pub credentials: Arc<Credentials>,
    pub config: Arc<RealtimeConfig>,
    pub realtime: Arc<Realtime>,
}

impl FromRef<RealtimeState> for Arc<Credentials> {
    fn from_ref(state: &RealtimeState) -> Self {
        state.credentials.clone()
    }
}

/// What every Realtime connection of this gateway shares.
#[derive(Default)]
pub struct Realtime {
    pub changes: changes::Changes,
    pub hub: Arc<hub::Hub>,
    pub limits: Arc<limits::Limits>,
    bus: OnceLock<bus::Bus>,
    sockets: AtomicU64,
    /// Sockets open now, for the operator console.
    open_sockets: AtomicU64,
}

impl Realtime {
    /// Takes the limits of `config` that are applied away from a socket
    /// (broadcasts from the database, `postgres_changes`);
    /// `crate::startup::state` calls it.
    pub fn configure(&self, config: &RealtimeConfig) {
        self.limits.set_max_payload(config.max_payload_size);
        self.changes.set_max_record_size(config.max_record_size);
    }

    /// Starts listening to the other gateways, once, when first needed.
    pub fn start_bus(&self, db: &Db) -> &bus::Bus {
        self.bus.get_or_init(|| bus::Bus::start(db.clone(), self.hub.clone(), self.limits.clone()))
    }

    /// Tells the other gateways.
    pub fn publish(&self, db: &Db, event: bus::Event) {
        self.start_bus(db).publish(event);
    }

    fn next_socket_id(&self) -> u64 {
        self.open_sockets.fetch_add(1, Ordering::Relaxed);
        self.sockets.fetch_add(1, Ordering::Relaxed)
    }

    fn socket_closed(&self) {
        self.open_sockets.fetch_sub(1, Ordering::Relaxed);
    }

    /// How many sockets are open on this gateway.
    pub fn open_sockets(&self) -> u64 {
        self.open_sockets.load(Ordering::Relaxed)
    }
}

/// `/realtime/v1`'s routes; the API key is checked as on every service
/// (`gateway_core::caller::require_apikey`: Kong's key check in front of Realtime).
pub fn router(state: RealtimeState) -> Router {
    Router::new()
        .route("/websocket", get(websocket))
        .route("/api/broadcast", post(broadcast))
        .route("/api/broadcast/{topic}/events/{event}", post(broadcast_one))
        .fallback(|| async { ApiError::NotFound })
        .layer(axum::middleware::from_fn_with_state(
            state.credentials.clone(),
            gateway_core::caller::require_apikey,
        ))
        .layer(shaped::<error::Phoenix>())
        .with_state(state)
}

async fn websocket(
    State(state): State<RealtimeState>,
    caller: Caller,
    Query(query): Query<HashMap<String, String>>,
    slot: Option<axum::Extension<ConnectionSlot>>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let Some(vsn) = wire::Vsn::parse(query.get("vsn").map(String::as_str)) else {
        return Err(RealtimeError::new(StatusCode::BAD_REQUEST, "Unsupported serializer version").into());
    };
    // Realtime's `TenantRateLimiters.check_tenant` at connect, for the whole project.
    let limits = &state.realtime.limits;
    if limits.users() >= state.config.max_concurrent_users {
        return Err(RealtimeError::socket(StatusCode::TOO_MANY_REQUESTS, "Too many connected users").into());
    }
    if limits.at(limits::Rate::Joins, state.config.max_joins_per_second) {
        return Err(RealtimeError::socket(StatusCode::TOO_MANY_REQUESTS, "Too many joins per second").into());
    }
    let max = usize::try_from(state.config.max_frame_size).unwrap_or(usize::MAX);
    let claims = Arc::unwrap_or_clone(caller.claims);
    // The socket outlives the upgrade request; its log lines stay in that
    // request's span, which carries the request id.
    let span = tracing::Span::current();
    Ok(upgrade.max_message_size(max).max_frame_size(max).on_upgrade(move |socket| {
        async move {
            let stopping = slot.as_ref().map(|slot| slot.stopping.clone());
            socket::run(state, socket, vsn, claims, stopping).await;
            // The slot (the connection's permit) goes with the socket.
            drop(slot);
        }
        .instrument(span)
    }))
}

/// `POST /api/broadcast` `{"messages": [{topic, event, payload, private}]}`:
/// 202 once sent. A private message goes out only if the caller may INSERT
/// on `realtime.messages` for its topic; others are skipped, as Realtime's
/// `BatchBroadcast` does.
async fn broadcast(
    State(state): State<RealtimeState>,
    caller: Caller,
    body: Json<Value>,
) -> Result<Response, ApiError> {
    let invalid = |why: &str| ApiError::from(RealtimeError::new(StatusCode::UNPROCESSABLE_ENTITY, why));
    let messages =
        body.get("messages").and_then(Value::as_array).ok_or_else(|| invalid("messages is required"))?;
    let mut checked: HashMap<String, bool> = HashMap::new();
    for message in messages {
        let text = |name: &str| message.get(name).and_then(Value::as_str);
        let (Some(topic), Some(event)) = (text("topic"), text("event")) else {
            return Err(invalid("topic and event are required"));
        };
        let payload = message.get("payload").cloned().ok_or_else(|| invalid("payload is required"))?;
        if payload.to_string().len() as u64 > state.realtime.limits.max_payload() {
            return Err(invalid("Payload size exceeds tenant limit"));
        }
        let private = message.get("private").and_then(Value::as_bool).unwrap_or(false);
        if private {
            let allowed = match checked.get(topic) {
                Some(allowed) => *allowed,
                None => {
                    let allowed = auth::can_write(&state.db, &caller.claims, topic, "broadcast").await?;
                    checked.insert(topic.to_owned(), allowed);
                    allowed
                }
            };
            if !allowed {
                continue;
            }
        }
        let full = format!("realtime:{topic}");
        let key = hub::TopicKey { topic: full.clone(), private };
        let outgoing = wire::Message::push(
            None,
            &full,
            "broadcast",
            json!({"type": "broadcast", "event": event, "payload": payload}),
        );
        state.realtime.hub.broadcast(&key, &outgoing, None);
        state.realtime.publish(&state.db, bus::Event::Broadcast { topic: key, message: outgoing });
    }
    Ok(StatusCode::ACCEPTED.into_response())
}

/// `POST /api/broadcast/<topic>/events/<event>[?private=true]`: one message,
/// its body the payload: JSON, or bytes sent as `application/octet-stream`
/// (delivered as a binary broadcast, which only 2.0.0 clients receive). 202
/// once sent; a private one the caller may not send is 403 "Unauthorized",
/// as Realtime's `SingleBroadcast` answers.
async fn broadcast_one(
    State(state): State<RealtimeState>,
    caller: Caller,
    Path((topic, event)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: bytes::Bytes,
) -> Result<Response, ApiError> {
    let private = query.get("private").is_some_and(|p| p == "true");
    let binary = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/octet-stream"));
    let invalid = |why: &str| ApiError::from(RealtimeError::new(StatusCode::UNPROCESSABLE_ENTITY, why));
    if body.is_empty() {
        return Err(invalid("payload can't be blank"));
    }
    if body.len() as u64 > state.realtime.limits.max_payload() {
        return Err(invalid("Payload size exceeds tenant limit"));
    }
    let full = format!("realtime:{topic}");
    let payload = if binary {
        wire::Payload::Binary(wire::UserBroadcast { event, json: false, payload: body, meta: String::new() })
    } else {
        let value: Value = serde_json::from_slice(&body).map_err(|_| invalid("payload is not valid JSON"))?;
        wire::Payload::Json(json!({"type": "broadcast", "event": event, "payload": value}))
    };
    if private && !auth::can_write(&state.db, &caller.claims, &topic, "broadcast").await? {
        return Err(RealtimeError::new(StatusCode::FORBIDDEN, "Unauthorized").into());
    }
    let key = hub::TopicKey { topic: full.clone(), private };
    let outgoing = wire::Message {
        join_ref: None,
        reference: None,
        topic: full,
        event: "broadcast".to_owned(),
        payload,
    };
    state.realtime.hub.broadcast(&key, &outgoing, None);
    state.realtime.publish(&state.db, bus::Event::Broadcast { topic: key, message: outgoing });
    Ok(StatusCode::ACCEPTED.into_response())
}
