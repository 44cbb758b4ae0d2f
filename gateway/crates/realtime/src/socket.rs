//! One WebSocket: Phoenix channels on `realtime:<name>` topics, as Supabase
//! Realtime serves them (supabase/realtime
//! `lib/realtime_web/channels/realtime_channel.ex`; replies, `system`
//! messages and errors are worded as there).
//!
//! Reading and writing are separate tasks joined by the socket's bounded
//! outbox ([`Outbox`]): a client that reads too slowly fills it and is
//! disconnected. The socket closes after [`RealtimeConfig::idle_timeout`]
//! without a frame from the client, and with a close frame (1001) when the
//! gateway shuts down.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message as WsMessage, Utf8Bytes, WebSocket, close_code};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::Instrument;

use super::auth;
use super::bus::Event;
use super::changes::Binding;
use super::config::RealtimeConfig;
use super::hub::{MemberId, Outbox, Outgoing, Overflow, TopicKey};
use super::limits::{Rate, Window};
use super::wire::{self, Message, Payload, Vsn};
use crate::RealtimeState;
use gateway_core::jwt::Claims;

/// Realtime's channel topics: `realtime:<name>` (`channel "realtime:*"` in
/// its `UserSocket`).
const PREFIX: &str = "realtime:";

pub struct Socket {
    state: RealtimeState,
    id: u64,
    outbox: Outbox,
    /// The claims of the URL's `apikey`: a channel's caller until it sends a token.
    key_claims: Claims,
    channels: HashMap<String, Channel>,
    /// Counted among the project's connected users (it joined a channel),
    /// as Realtime's `UsersCounter` counts a socket.
    counted: bool,
}

struct Channel {
    key: TopicKey,
    member: MemberId,
    /// The name without `realtime:`: `realtime.topic()` during checks.
    name: String,
    claims: Claims,
    token: Option<String>,
    /// `exp` of the channel's token; at that time the channel closes.
    expires: Option<u64>,
    self_broadcast: bool,
    ack: bool,
    presence_key: String,
    presence_enabled: bool,
    /// Write checks done with the current token (private channels).
    writes: HashMap<&'static str, bool>,
    /// The `postgres_changes` forwarder's line for new claims.
    feed: Option<mpsc::UnboundedSender<Claims>>,
    /// The channel's own presence limit (Realtime's `presence_client_rate_limit`).
    presence_window: Window,
}

/// What a handler tells the loop.
enum Next {
    Continue,
    /// Close the socket (Realtime disconnects a client over the join rate).
    Disconnect,
}

/// Serves one upgraded WebSocket until either side closes it.
pub async fn run(
    state: RealtimeState,
    socket: WebSocket,
    vsn: Vsn,
    key_claims: Claims,
    mut stopping: Option<watch::Receiver<bool>>,
) {
    let config = state.config.clone();
    let realtime = state.realtime.clone();
    realtime.start_bus(&state.db);
    let (outbox, receiver, overflow) = Outbox::new(config.max_queued_messages);
    let (sink, mut stream) = socket.split();
    let (close, closing) = oneshot::channel();
    // The writer logs in the socket's span: the upgrade request's, with its id.
    let mut writer = tokio::spawn(write(sink, receiver, closing, vsn).in_current_span());
    let mut me = Socket {
        state,
        id: realtime.next_socket_id(),
        outbox,
        key_claims,
        channels: HashMap::new(),
        counted: false,
    };
    metrics::gauge!("gateway_realtime_sockets").increment(1.0);
    tracing::debug!(socket = me.id, "realtime socket opened");
    let mut last_read = Instant::now();
    let close_with = loop {
        let idle_at = last_read + config.idle_timeout.0;
        let expiry = me.next_expiry();
        tokio::select! {
            frame = stream.next() => {
                last_read = Instant::now();
                if let Some(Ok(WsMessage::Text(_) | WsMessage::Binary(_))) = &frame {
                    metrics::counter!("gateway_realtime_messages_received_total").increment(1);
                }
                let next = match frame {
                    Some(Ok(WsMessage::Text(text))) => match wire::decode_text(vsn, text.as_str()) {
                        Some(message) => me.handle(message).await,
                        None => Next::Continue,
                    },
                    Some(Ok(WsMessage::Binary(bytes))) => match wire::decode_binary(&bytes) {
                        Some(message) if vsn == Vsn::V2 => me.handle(message).await,
                        _ => Next::Continue,
                    },
                    Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_))) => Next::Continue,
                    Some(Ok(WsMessage::Close(_))) | None => break None,
                    Some(Err(e)) => {
                        tracing::debug!(error = %e, "realtime socket read failed");
                        // A message over the frame limit (tungstenite refuses it
                        // while reading) or a broken connection, for which the
                        // close frame is lost.
                        break Some((close_code::SIZE, "message too big"));
                    }
                };
                if let Next::Disconnect = next {
                    break Some((close_code::POLICY, "too many joins per second"));
                }
            }
            () = overflow_of(&overflow) => {
                tracing::info!(socket = me.id, "closing a realtime socket that reads too slowly");
                writer.abort();
                break None;
            }
            () = tokio::time::sleep_until(idle_at.into()) => break Some((close_code::AWAY, "idle timeout")),
            () = sleep_until_epoch(expiry) => me.expire_tokens(),
            () = stopped(&mut stopping) => break Some((close_code::AWAY, "server shutting down")),
        }
    };
    me.leave_all();
    realtime.socket_closed();
    metrics::gauge!("gateway_realtime_sockets").decrement(1.0);
    let why = close_with.as_ref().map_or("closed by the client", |(_, reason)| reason);
    tracing::debug!(socket = me.id, why, "realtime socket closed");
    if let Some((code, reason)) = close_with {
        let _ = close.send(CloseFrame { code, reason: Utf8Bytes::from_static(reason) });
    } else {
        drop(close);
    }
    drop(me);
    // The writer sends what is queued, then the close frame; a client that
    // does not read them within a few seconds is dropped.
    if tokio::time::timeout(Duration::from_secs(5), &mut writer).await.is_err() {
        writer.abort();
    }
}

async fn overflow_of(overflow: &Overflow) {
    loop {
        let notified = overflow.notify.notified();
        if overflow.happened.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        notified.await;
    }
}

async fn stopped(stopping: &mut Option<watch::Receiver<bool>>) {
    match stopping {
        Some(receiver) => {
            if receiver.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

/// Sleeps until the Unix time `at` (seconds), forever for `None`.
async fn sleep_until_epoch(at: Option<u64>) {
    match at {
        Some(at) => {
            let now = gateway_core::jwt::now();
            tokio::time::sleep(Duration::from_secs(at.saturating_sub(now))).await;
        }
        None => std::future::pending().await,
    }
}

/// Most messages written to the socket's buffer before it is flushed: what
/// is queued goes out in one write, but a long queue is not held back.
const WRITE_BATCH: usize = 64;

/// Writes queued messages in order, each batch of what is already queued
/// flushed once; on `closing`, what is queued and then the close frame.
/// Stops when the client stops reading (the reader notices the overflow and
/// aborts it).
async fn write(
    mut sink: futures::stream::SplitSink<WebSocket, WsMessage>,
    mut receiver: mpsc::Receiver<Outgoing>,
    mut closing: oneshot::Receiver<CloseFrame>,
    vsn: Vsn,
) {
    loop {
        tokio::select! {
            biased;
            outgoing = receiver.recv() => {
                let Some(first) = outgoing else { break };
                let mut written = 0;
                let mut next = Some(first);
                while let Some(outgoing) = next {
                    if let Some(frame) = outgoing.into_frame(vsn) {
                        if sink.feed(frame).await.is_err() {
                            return;
                        }
                        written += 1;
                    }
                    next = if written < WRITE_BATCH { receiver.try_recv().ok() } else { None };
                }
                if sink.flush().await.is_err() {
                    return;
                }
                metrics::counter!("gateway_realtime_messages_sent_total").increment(written as u64);
            },
            frame = &mut closing => {
                while let Ok(outgoing) = receiver.try_recv() {
                    if let Some(frame) = outgoing.into_frame(vsn) {
                        let _ = sink.feed(frame).await;
                    }
                }
                if let Ok(frame) = frame {
                    let _ = sink.send(WsMessage::Close(Some(frame))).await;
                }
                let _ = sink.close().await;
                return;
            }
        }
    }
    if let Ok(frame) = closing.await {
        let _ = sink.send(WsMessage::Close(Some(frame))).await;
    }
    let _ = sink.close().await;
}

fn reason(text: impl Into<String>) -> Value {
    json!({ "reason": text.into() })
}

impl Socket {
    fn config(&self) -> &RealtimeConfig {
        &self.state.config
    }

    fn send(&self, message: Message) {
        self.outbox.send(message);
    }

    async fn handle(&mut self, message: Message) -> Next {
        if message.topic == "phoenix" {
            if message.event == "heartbeat" {
                self.send(Message::reply(&message, "ok", json!({})));
            }
            return Next::Continue;
        }
        if message.event == "phx_join" {
            return self.join(message).await;
        }
        if !self.channels.contains_key(&message.topic) {
            // Phoenix's answer to a message for a topic the socket has not joined.
            self.send(Message::reply(&message, "error", reason("unmatched topic")));
            return Next::Continue;
        }
        // The channel's own presence window comes first, as in Realtime's
        // `PresenceHandler.handle`.
        if message.event == "presence" {
            let (max, window) =
                (self.config().max_client_presence_events_per_window, self.config().client_presence_window.0);
            let admitted = self
                .channels
                .get_mut(&message.topic)
                .is_some_and(|channel| channel.presence_window.admit(max, window, Instant::now()));
            if !admitted {
                self.shut_down(&message.topic, "Client presence rate limit exceeded");
                return Next::Continue;
            }
        }
        // Realtime's rate counters, for the whole project ([`crate::limits`]).
        let limits = &self.state.realtime.limits;
        let over = match message.event.as_str() {
            "broadcast" => (!limits.admit(Rate::Events, self.config().max_events_per_second))
                .then_some("Too many messages per second"),
            "presence" => (!limits.admit(Rate::Presence, self.config().max_presence_events_per_second))
                .then_some("Too many presence messages per second"),
            _ => None,
        };
        if let Some(why) = over {
            self.shut_down(&message.topic, why);
            return Next::Continue;
        }
        match message.event.as_str() {
            "phx_leave" => {
                self.leave(&message.topic);
                self.send(Message::reply(&message, "ok", json!({})));
            }
            "broadcast" => self.broadcast(message).await,
            "presence" => self.presence(message).await,
            "access_token" => self.access_token(message).await,
            other => tracing::debug!(event = other, "unexpected realtime message"),
        }
        Next::Continue
    }

    /// `config.broadcast.replay: {since, limit}` of a join, as Realtime's
    /// `maybe_replay_messages`: only on a private channel whose broadcasts
    /// the caller may read; `since` (Unix milliseconds) 0 and `limit` 10
    /// unless given, at most 25; a value that is not an integer refuses the
    /// join. Anything but an object asks for nothing on a private channel.
    async fn replay(
        &self,
        name: &str,
        private: bool,
        broadcast_read: bool,
        params: &Value,
    ) -> Result<Vec<auth::Replayed>, String> {
        if !private {
            return Err("UnableToReplayMessages: Replay is not allowed for public channels".to_owned());
        }
        if !broadcast_read {
            return Err(format!(
                "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
            ));
        }
        let Some(params) = params.as_object() else { return Ok(Vec::new()) };
        let integer = |key: &str, default: i64| match params.get(key) {
            None | Some(Value::Null) => Some(default),
            Some(value) => value.as_i64(),
        };
        let (Some(since), Some(limit)) = (integer("since", 0), integer("limit", 10)) else {
            return Err("UnableToReplayMessages: Replay params are not valid".to_owned());
        };
        auth::replay(&self.state.db, name, since, limit).await.map_err(|e| {
            tracing::warn!(error = %e, "realtime replay failed");
            "UnableToReplayMessages: Realtime was unable to replay messages".to_owned()
        })
    }

    async fn join(&mut self, message: Message) -> Next {
        let topic = message.topic.clone();
        let Some(name) = topic.strip_prefix(PREFIX).map(str::to_owned) else {
            self.send(Message::reply(&message, "error", reason("unmatched topic")));
            return Next::Continue;
        };
        // A second join of a joined topic replaces the first (Phoenix closes
        // the old channel).
        if let Some(old) = self.channels.get(&topic) {
            let join_ref = old.member.join_ref.clone();
            self.leave(&topic);
            self.send(close_message(&topic, &join_ref));
        }
        // Realtime's order: connected users, joins per second (both for the
        // whole project), then channels per socket.
        let limits = self.state.realtime.limits.clone();
        if !self.counted && limits.users() >= self.config().max_concurrent_users {
            let why = "ConnectionRateLimitReached: Too many connected users";
            self.send(Message::reply(&message, "error", reason(why)));
            return Next::Continue;
        }
        if !limits.admit(Rate::Joins, self.config().max_joins_per_second) {
            let why = "ClientJoinRateLimitReached: Too many joins per second";
            self.send(Message::reply(&message, "error", reason(why)));
            return Next::Disconnect;
        }
        if self.channels.len() >= self.config().max_channels_per_client {
            let why = "ChannelRateLimitReached: Too many channels";
            self.send(Message::reply(&message, "error", reason(why)));
            return Next::Continue;
        }
        let payload = message.json().unwrap_or(Value::Null);
        let config = payload.get("config").cloned().unwrap_or(Value::Null);
        let flag = |pointer: &str| config.pointer(pointer).and_then(Value::as_bool).unwrap_or(false);
        let private = flag("/private");
        let token = payload
            .get("access_token")
            .or_else(|| payload.get("user_token"))
            .and_then(Value::as_str)
            .filter(|t| !t.starts_with("sb_"))
            .map(str::to_owned);
        let (claims, expires) = match &token {
            Some(token) => match auth::verify(&self.state.credentials.jwt, token) {
                Ok((claims, exp)) => (claims, Some(exp)),
                Err(e) => {
                    self.send(Message::reply(&message, "error", reason(e.reason())));
                    return Next::Continue;
                }
            },
            None => {
                let exp = self.key_claims.claims.get("exp").and_then(Value::as_u64);
                (self.key_claims.clone(), exp)
            }
        };
        let (mut presence_read, mut broadcast_read) = (true, true);
        if private {
            match auth::can_read(&self.state.db, &claims, &name).await {
                Ok(access) if access.broadcast || access.presence => {
                    (presence_read, broadcast_read) = (access.presence, access.broadcast);
                }
                Ok(_) => {
                    let why = format!(
                        "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
                    );
                    self.send(Message::reply(&message, "error", reason(why)));
                    return Next::Continue;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "realtime authorization check failed");
                    let why = "Realtime was unable to connect to the project database";
                    self.send(Message::reply(&message, "error", reason(why)));
                    return Next::Continue;
                }
            }
        }
        let replayed = match config.pointer("/broadcast/replay") {
            None => Vec::new(),
            Some(params) => match self.replay(&name, private, broadcast_read, params).await {
                Ok(replayed) => replayed,
                Err(why) => {
                    self.send(Message::reply(&message, "error", reason(why)));
                    return Next::Continue;
                }
            },
        };
        let bindings: Vec<Value> = config
            .get("postgres_changes")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter(|b| b.is_object()).cloned().collect())
            .unwrap_or_default();
        let mut answered = Vec::with_capacity(bindings.len());
        let mut contract = Vec::with_capacity(bindings.len());
        for binding in &bindings {
            let id = binding_id(binding);
            let mut with_id = binding.clone();
            with_id["id"] = json!(id);
            answered.push(with_id);
            let text = |name: &str| binding.get(name).and_then(Value::as_str).map(str::to_owned);
            contract.push(Binding {
                id,
                event: text("event").unwrap_or_else(|| "*".to_owned()),
                schema: text("schema").unwrap_or_else(|| "public".to_owned()),
                table: text("table").filter(|t| t != "*"),
                filter: text("filter"),
                select: binding.get("select").cloned(),
            });
        }
        let join_ref = message.join_ref.clone().unwrap_or_default();
        let member = MemberId { socket: self.id, join_ref: join_ref.clone() };
        let key = TopicKey { topic: topic.clone(), private };
        let presence_key = config
            .pointer("/presence/key")
            .and_then(Value::as_str)
            .filter(|k| !k.is_empty())
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
        let presence_enabled = flag("/presence/enabled");
        self.send(Message::reply(&message, "ok", json!({ "postgres_changes": answered })));
        if !self.counted {
            self.counted = true;
            limits.user_joined();
        }
        // Replayed before the channel is in the hub, so before any live
        // message; a live one that was replayed is not sent again.
        let mut replayed_ids = std::collections::HashSet::with_capacity(replayed.len());
        for replayed in replayed {
            let meta = json!({"replayed": true, "id": replayed.id.clone()});
            // Bytes go as a binary broadcast, which a 1.0.0 client is not
            // sent (Realtime's `replay` skips them for it).
            let payload = match replayed.binary {
                Some(bytes) => Payload::Binary(wire::UserBroadcast {
                    event: replayed.event,
                    json: false,
                    payload: bytes.into(),
                    meta: meta.to_string(),
                }),
                None => Payload::Json(json!({
                    "type": "broadcast",
                    "event": replayed.event,
                    "payload": replayed.payload,
                    "meta": meta,
                })),
            };
            self.send(Message {
                join_ref: None,
                reference: None,
                topic: topic.clone(),
                event: "broadcast".to_owned(),
                payload,
            });
            replayed_ids.insert(replayed.id);
        }
        self.state.realtime.hub.join(
            &key,
            member.clone(),
            self.outbox.clone(),
            presence_enabled,
            presence_read,
            replayed_ids,
        );
        let mut channel = Channel {
            key,
            member,
            name: name.clone(),
            claims: claims.clone(),
            token,
            expires,
            self_broadcast: flag("/broadcast/self"),
            ack: flag("/broadcast/ack"),
            presence_key,
            presence_enabled,
            writes: HashMap::new(),
            feed: None,
            presence_window: Window::default(),
        };
        if !contract.is_empty() {
            match self.state.realtime.changes.subscribe(contract, claims).await {
                Ok(subscription) => {
                    self.send(system(
                        &topic,
                        &join_ref,
                        "postgres_changes",
                        "ok",
                        "Subscribed to PostgreSQL",
                        &name,
                    ));
                    channel.feed = Some(forward(subscription, self.outbox.clone(), topic.clone()));
                }
                Err(why) => {
                    self.send(system(&topic, &join_ref, "postgres_changes", "error", &why, &name));
                }
            }
        }
        if self.channels.insert(topic.clone(), channel).is_none() {
            metrics::gauge!("gateway_realtime_channels").increment(1.0);
        }
        // `config.broadcast.replication_ready`: the client waits for word that
        // changes can flow (Realtime's `notify_replication_ready`), here once
        // the database can feed them and the replication slot exists.
        if flexible(config.pointer("/broadcast/replication_ready")) {
            match self.state.realtime.changes.ready().await {
                Ok(()) => self.send(system(
                    &topic,
                    &join_ref,
                    "system",
                    "ok",
                    "Replication connection established",
                    &name,
                )),
                Err(why) => {
                    tracing::warn!(reason = %why, "realtime replication is not ready");
                    self.shut_down(&topic, "Replication connection was not established in time");
                }
            }
        }
        Next::Continue
    }

    async fn broadcast(&mut self, message: Message) {
        let Some(channel) = self.channels.get(&message.topic) else { return };
        let (key, member, ack, self_broadcast) =
            (channel.key.clone(), channel.member.clone(), channel.ack, channel.self_broadcast);
        if key.private && !self.may_write(&message.topic, "broadcast").await {
            return;
        }
        // Realtime's `validate_payload_size`: dropped, and told only to a
        // channel that asked for acks.
        if payload_size(&message.payload) > self.state.realtime.limits.max_payload() {
            if ack {
                self.send(Message::reply(&message, "error", json!("payload_size_exceeded")));
            }
            return;
        }
        let outgoing = Message {
            join_ref: None,
            reference: None,
            topic: message.topic.clone(),
            event: "broadcast".to_owned(),
            payload: message.payload.clone(),
        };
        let except = (!self_broadcast).then_some(&member);
        let realtime = &self.state.realtime;
        realtime.hub.broadcast(&key, &outgoing, except);
        realtime.publish(&self.state.db, Event::Broadcast { topic: key, message: outgoing });
        if ack {
            self.send(Message::reply(&message, "ok", json!({})));
        }
    }

    async fn presence(&mut self, message: Message) {
        let payload = message.json().unwrap_or(Value::Null);
        let event = payload.get("event").and_then(Value::as_str).unwrap_or_default().to_owned();
        let Some(channel) = self.channels.get(&message.topic) else { return };
        if channel.key.private && !self.may_write(&message.topic, "presence").await {
            self.send(Message::reply(&message, "error", json!({})));
            return;
        }
        if payload_size(&message.payload) > self.state.realtime.limits.max_payload() {
            return self.shut_down(&message.topic, "Track message size exceeded");
        }
        let Some(channel) = self.channels.get_mut(&message.topic) else { return };
        let hub = self.state.realtime.hub.clone();
        let change = match event.as_str() {
            "track" => {
                let meta = payload.get("payload").cloned().unwrap_or_else(|| json!({}));
                if !meta.is_object() {
                    let why = "Presence track payload must be a map";
                    self.outbox.send(Message::reply(&message, "error", reason(why)));
                    return;
                }
                // Tracking turns presence on for a channel that joined without it.
                if !channel.presence_enabled {
                    channel.presence_enabled = true;
                    hub.enable_presence(&channel.key, &channel.member);
                }
                Some(hub.track(&channel.key, &channel.member, &channel.presence_key, meta))
            }
            "untrack" => hub.untrack(&channel.key, &channel.member),
            _ => None,
        };
        if let Some(change) = change {
            self.state.realtime.publish(&self.state.db, Event::Presence(change));
        }
        self.send(Message::reply(&message, "ok", json!({})));
    }

    /// Whether the channel's caller may send `extension` messages: Realtime's
    /// write check, once per token.
    async fn may_write(&mut self, topic: &str, extension: &'static str) -> bool {
        let Some(channel) = self.channels.get(topic) else { return false };
        if let Some(known) = channel.writes.get(extension) {
            return *known;
        }
        let allowed = match auth::can_write(&self.state.db, &channel.claims, &channel.name, extension).await {
            Ok(allowed) => allowed,
            Err(e) => {
                tracing::warn!(error = %e, "realtime write authorization failed");
                return false;
            }
        };
        if let Some(channel) = self.channels.get_mut(topic) {
            channel.writes.insert(extension, allowed);
        }
        allowed
    }

    async fn access_token(&mut self, message: Message) {
        let payload = message.json().unwrap_or(Value::Null);
        let Some(token) = payload.get("access_token").and_then(Value::as_str) else { return };
        let Some(channel) = self.channels.get(&message.topic) else { return };
        // Realtime ignores an opaque key and the token the channel has.
        if token.starts_with("sb_") || channel.token.as_deref() == Some(token) {
            return;
        }
        let (claims, exp) = match auth::verify(&self.state.credentials.jwt, token) {
            Ok(verified) => verified,
            Err(e) => return self.shut_down(&message.topic, &e.message),
        };
        if channel.key.private {
            let name = channel.name.clone();
            match auth::can_read(&self.state.db, &claims, &name).await {
                Ok(access) if access.broadcast || access.presence => {
                    self.state.realtime.hub.set_presence_read(&channel.key, &channel.member, access.presence);
                }
                Ok(_) => {
                    let why =
                        format!("You no longer have permission to read from this Channel topic: {name}");
                    return self.shut_down(&message.topic, &why);
                }
                Err(_) => {
                    return self
                        .shut_down(&message.topic, "Realtime was unable to connect to the project database");
                }
            }
        }
        let Some(channel) = self.channels.get_mut(&message.topic) else { return };
        channel.token = Some(token.to_owned());
        channel.expires = Some(exp);
        channel.writes.clear();
        if let Some(feed) = &channel.feed {
            let _ = feed.send(claims.clone());
        }
        channel.claims = claims;
    }

    /// Realtime's `shutdown_response`: a `system` error, then the channel
    /// stops and Phoenix tells the client `phx_close`.
    fn shut_down(&mut self, topic: &str, why: &str) {
        let Some(channel) = self.channels.get(topic) else { return };
        let (join_ref, name) = (channel.member.join_ref.clone(), channel.name.clone());
        self.send(system(topic, &join_ref, "system", "error", why, &name));
        self.leave(topic);
        self.send(close_message(topic, &join_ref));
    }

    fn next_expiry(&self) -> Option<u64> {
        self.channels.values().filter_map(|c| c.expires).min()
    }

    /// Closes the channels whose token has expired, as Realtime's periodic
    /// `confirm_token` does.
    fn expire_tokens(&mut self) {
        let now = gateway_core::jwt::now();
        let expired: Vec<(String, u64)> = self
            .channels
            .iter()
            .filter_map(|(topic, c)| c.expires.filter(|exp| *exp <= now).map(|exp| (topic.clone(), exp)))
            .collect();
        for (topic, exp) in expired {
            let why = format!("Token has expired {} seconds ago", now.saturating_sub(exp));
            self.shut_down(&topic, &why);
        }
    }

    fn leave(&mut self, topic: &str) {
        let Some(channel) = self.channels.remove(topic) else { return };
        metrics::gauge!("gateway_realtime_channels").decrement(1.0);
        let realtime = &self.state.realtime;
        if let Some(change) = realtime.hub.leave(&channel.key, &channel.member) {
            realtime.publish(&self.state.db, Event::Presence(change));
        }
    }

    fn leave_all(&mut self) {
        let topics: Vec<String> = self.channels.keys().cloned().collect();
        for topic in topics {
            self.leave(&topic);
        }
    }
}

/// Phoenix's `phx_close` for a channel that stopped: `ref` is the join's ref.
fn close_message(topic: &str, join_ref: &str) -> Message {
    Message {
        join_ref: Some(join_ref.to_owned()),
        reference: Some(join_ref.to_owned()),
        topic: topic.to_owned(),
        event: "phx_close".to_owned(),
        payload: Payload::Json(json!({})),
    }
}

/// A broadcast's or presence message's size as the payload limit counts it:
/// its JSON text, or the bytes of a binary one.
pub fn payload_size(payload: &Payload) -> u64 {
    let bytes = match payload {
        Payload::Json(value) => value.to_string().len(),
        Payload::Binary(user) => user.payload.len(),
        Payload::Text(text) => text.len(),
    };
    bytes as u64
}

/// A boolean as Realtime's `FlexibleBoolean` reads one: `true` or `"true"`.
fn flexible(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Realtime's `push_system_message`.
fn system(topic: &str, join_ref: &str, extension: &str, status: &str, text: &str, name: &str) -> Message {
    Message::push(
        Some(join_ref),
        topic,
        "system",
        json!({"extension": extension, "status": status, "message": text, "channel": name}),
    )
}

/// Realtime's binding id is a hash of the binding's parameters
/// (`:erlang.phash2(params)`): the same binding gets the same id.
fn binding_id(binding: &Value) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in binding.to_string().bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash & 0x07ff_ffff
}

/// Forwards a subscription's changes to the socket until either side goes;
/// new claims come in on the returned line.
fn forward(
    mut subscription: super::changes::Subscription,
    outbox: Outbox,
    topic: String,
) -> mpsc::UnboundedSender<Claims> {
    let (claims, mut new_claims) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                claims = new_claims.recv() => match claims {
                    Some(claims) => subscription.set_claims(claims),
                    None => break,
                },
                change = subscription.recv() => match change {
                    Some(payload) => outbox.send(Message {
                        join_ref: None,
                        reference: None,
                        topic: topic.clone(),
                        event: "postgres_changes".to_owned(),
                        payload: Payload::Text(payload),
                    }),
                    None => break,
                },
            }
        }
    });
    claims
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.leave_all();
        if self.counted {
            self.state.realtime.limits.user_left();
        }
    }
}
