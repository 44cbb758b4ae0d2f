//! Broadcasts and presence between gateways on one database: PostgreSQL's
//! `LISTEN`/`NOTIFY` on one dedicated connection per gateway (channel
//! `gateway_realtime`). Each notification names the gateway that sent it,
//! which ignores its own (it delivered to its own members already, see
//! [`super::hub`]), so every subscriber gets a message exactly once.
//!
//! A notification's payload is limited to 8,000 bytes
//! (<https://www.postgresql.org/docs/current/sql-notify.html>): a larger one
//! is written to `realtime.bus_spill` (`sql/030_realtime.sql`) and the
//! notification carries its id, to be read by every gateway; rows older than
//! a minute are deleted as new ones are written.
//!
//! Presence: gateways tell each other their presence changes; a gateway that
//! (re)connects asks the others for their presences; each gateway says it is
//! alive every [`ALIVE_EVERY`], and one silent for [`SILENT_AFTER`] (it
//! died) has its presences leave.
//!
//! Limits: each gateway tells the others its counts of joins, messages,
//! presence events and connected users every [`limits::SYNC_EVERY`] (while
//! they are not zero), so that Realtime's tenant limits hold for the whole
//! project ([`super::limits`]).
//!
//! Broadcasts from the database (`realtime.send`,
//! `sql/034_realtime_broadcast_from_database.sql`) arrive here too, sent at
//! commit by a trigger on `realtime.messages` under the origin `database`.
//! The bus also keeps that table's daily partitions (three days back, three
//! ahead) when it connects and every [`MAINTAIN_EVERY`] after, as Realtime's
//! janitor does; one gateway at a time does the work.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use super::hub::{Hub, PresenceChange, TopicKey};
use super::limits::{self, Counts, Limits};
use super::wire::{Message, Payload, UserBroadcast};
use gateway_core::db::Db;

const CHANNEL: &str = "gateway_realtime";
/// The origin of broadcasts from the database (`realtime.messages_to_bus`).
const DATABASE: &str = "database";
/// Below `NOTIFY`'s 8,000-byte limit, with room for the envelope.
const MAX_INLINE: usize = 7_000;
pub const ALIVE_EVERY: Duration = Duration::from_secs(5);
pub const SILENT_AFTER: Duration = Duration::from_secs(20);
/// Notifications waiting to go out; beyond it they are dropped (and logged):
/// a database that cannot keep up must not grow the gateway's memory.
const QUEUE: usize = 10_000;
/// How often the partitions of `realtime.messages` are kept.
pub const MAINTAIN_EVERY: Duration = Duration::from_secs(3600);

/// What goes between gateways.
#[derive(Debug, Clone)]
pub enum Event {
    Broadcast {
        topic: TopicKey,
        message: Message,
    },
    Presence(PresenceChange),
    /// "Tell me your presences."
    Sync,
    Alive,
    /// This gateway's counts for the project's limits.
    Counts(Counts),
}

pub struct Bus {
    sender: mpsc::Sender<Event>,
}

impl Bus {
    /// Starts the bus's connection task for `hub`.
    pub fn start(db: Db, hub: Arc<Hub>, limits: Arc<Limits>) -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(run(db, hub, limits, receiver));
        Self { sender }
    }

    pub fn publish(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.sender.try_send(event) {
            tracing::warn!("realtime bus queue full: a message for other gateways was dropped");
        }
    }
}

async fn run(db: Db, hub: Arc<Hub>, limits: Arc<Limits>, mut outgoing: mpsc::Receiver<Event>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        match connected(&db, &hub, &limits, &mut outgoing).await {
            Ok(()) => return,
            Err(e) => tracing::warn!(error = %e, retry_in = ?backoff, "realtime bus lost the database"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(16));
    }
}

/// One connection's life; `Ok` when the gateway drops the bus.
async fn connected(
    db: &Db,
    hub: &Hub,
    limits: &Limits,
    outgoing: &mut mpsc::Receiver<Event>,
) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = db.pg_config().connect(NoTls).await?;
    let (notify, mut notifications) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    let _ = notify.send(n.payload().to_owned());
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    let result = async {
        client.batch_execute(&format!("listen {CHANNEL}")).await?;
        send(&client, hub, &Event::Sync).await?;
        send(&client, hub, &Event::Alive).await?;
        let mut seen: HashMap<String, Instant> = HashMap::new();
        let mut alive = tokio::time::interval(ALIVE_EVERY);
        let mut sync = tokio::time::interval(limits::SYNC_EVERY);
        let mut maintained: Option<Instant> = None;
        loop {
            tokio::select! {
                event = outgoing.recv() => match event {
                    Some(event) => send(&client, hub, &event).await?,
                    None => return Ok(()),
                },
                text = notifications.recv() => match text {
                    Some(text) => receive(&client, hub, limits, &mut seen, &text).await?,
                    None => return client.batch_execute("select 1").await,
                },
                _ = sync.tick() => {
                    if let Some(counts) = limits.report() {
                        send(&client, hub, &Event::Counts(counts)).await?;
                    }
                }
                _ = alive.tick() => {
                    send(&client, hub, &Event::Alive).await?;
                    if maintained.is_none_or(|at| at.elapsed() >= MAINTAIN_EVERY) {
                        maintained = Some(Instant::now());
                        // A failure here must not stop the bus: the next hour retries.
                        if let Err(e) = client.batch_execute("select realtime.gateway_maintain_messages()").await {
                            tracing::warn!(error = %e, "realtime.messages partitions not kept");
                        }
                    }
                    let now = Instant::now();
                    seen.retain(|origin, at| {
                        let silent = now.duration_since(*at) > SILENT_AFTER;
                        if silent {
                            hub.forget_origin(origin);
                            limits.forget(origin);
                        }
                        !silent
                    });
                }
            }
        }
    }
    .await;
    driver.abort();
    result
}

async fn send(
    client: &tokio_postgres::Client,
    hub: &Hub,
    event: &Event,
) -> Result<(), tokio_postgres::Error> {
    let mut body = encode(event);
    body["o"] = Value::String(hub.origin.clone());
    let mut text = body.to_string();
    if text.len() > MAX_INLINE {
        let row = client.query_one("select realtime.bus_spill($1)", &[&text]).await?;
        let id: i64 = row.get(0);
        text = json!({"o": hub.origin, "spill": id}).to_string();
    }
    client.execute("select pg_notify($1, $2)", &[&CHANNEL, &text]).await?;
    Ok(())
}

async fn receive(
    client: &tokio_postgres::Client,
    hub: &Hub,
    limits: &Limits,
    seen: &mut HashMap<String, Instant>,
    text: &str,
) -> Result<(), tokio_postgres::Error> {
    let Ok(mut body) = serde_json::from_str::<Value>(text) else { return Ok(()) };
    let Some(origin) = body.get("o").and_then(Value::as_str).map(str::to_owned) else { return Ok(()) };
    if origin == hub.origin {
        return Ok(());
    }
    seen.insert(origin.clone(), Instant::now());
    if let Some(id) = body.get("spill").and_then(Value::as_i64) {
        let row = client.query_opt("select realtime.bus_read($1)", &[&id]).await?;
        let Some(text) = row.and_then(|r| r.get::<_, Option<String>>(0)) else { return Ok(()) };
        let Ok(spilled) = serde_json::from_str::<Value>(&text) else { return Ok(()) };
        body = spilled;
    }
    match decode(&body) {
        // Realtime drops a broadcast from the database over the payload limit
        // (its `ReplicationConnection` logs `UnableToBroadcastChanges`).
        Some(Event::Broadcast { message, .. })
            if origin == DATABASE && super::socket::payload_size(&message.payload) > limits.max_payload() =>
        {
            tracing::warn!("UnableToBroadcastChanges: :payload_size_exceeded");
        }
        Some(Event::Broadcast { topic, message }) => hub.broadcast(&topic, &message, None),
        Some(Event::Counts(counts)) => limits.apply_remote(&origin, counts),
        Some(Event::Presence(change)) => hub.apply_remote(&origin, &change),
        Some(Event::Sync) => {
            for change in hub.local_presences() {
                send(client, hub, &Event::Presence(change)).await?;
            }
        }
        Some(Event::Alive) | None => {}
    }
    Ok(())
}

fn topic_json(topic: &TopicKey) -> Value {
    json!({"t": topic.topic, "p": topic.private})
}

fn encode(event: &Event) -> Value {
    match event {
        Event::Broadcast { topic, message } => {
            let mut body = topic_json(topic);
            body["k"] = "b".into();
            body["e"] = message.event.clone().into();
            match &message.payload {
                Payload::Json(value) => body["j"] = value.clone(),
                Payload::Text(text) => body["j"] = serde_json::from_str(text).unwrap_or(Value::Null),
                Payload::Binary(user) => {
                    body["u"] = json!({
                        "e": user.event, "j": user.json, "m": user.meta, "b": STANDARD.encode(&user.payload),
                    });
                }
            }
            body
        }
        Event::Presence(change) => {
            let mut body = topic_json(&change.topic);
            body["k"] = "p".into();
            body["j"] = json!(change.joins);
            body["l"] = json!(change.leaves);
            body
        }
        Event::Counts(c) => json!({"k": "c", "c": [c.joins, c.events, c.presence, c.users]}),
        Event::Sync => json!({"k": "s"}),
        Event::Alive => json!({"k": "a"}),
    }
}

fn decode(body: &Value) -> Option<Event> {
    let topic =
        || Some(TopicKey { topic: body.get("t")?.as_str()?.to_owned(), private: body.get("p")?.as_bool()? });
    match body.get("k")?.as_str()? {
        "b" => {
            let topic = topic()?;
            let payload = match body.get("u") {
                Some(user) => Payload::Binary(UserBroadcast {
                    event: user.get("e")?.as_str()?.to_owned(),
                    json: user.get("j")?.as_bool()?,
                    meta: user.get("m")?.as_str()?.to_owned(),
                    payload: STANDARD.decode(user.get("b")?.as_str()?).ok()?.into(),
                }),
                None => Payload::Json(body.get("j")?.clone()),
            };
            let message = Message {
                join_ref: None,
                reference: None,
                topic: topic.topic.clone(),
                event: body.get("e")?.as_str()?.to_owned(),
                payload,
            };
            Some(Event::Broadcast { topic, message })
        }
        "p" => {
            let pairs = |name: &str| -> Option<Vec<(String, Value)>> {
                serde_json::from_value(body.get(name)?.clone()).ok()
            };
            Some(Event::Presence(PresenceChange { topic: topic()?, joins: pairs("j")?, leaves: pairs("l")? }))
        }
        "c" => {
            let [joins, events, presence, users] =
                <[Value; 4]>::try_from(body.get("c")?.as_array()?.clone()).ok()?;
            Some(Event::Counts(Counts {
                joins: joins.as_u64()?,
                events: events.as_u64()?,
                presence: presence.as_u64()?,
                users: users.as_u64()?,
            }))
        }
        "s" => Some(Event::Sync),
        "a" => Some(Event::Alive),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_reads_back_as_it_was_written() {
        let topic = TopicKey { topic: "realtime:room".to_owned(), private: true };
        let binary = Message {
            join_ref: None,
            reference: None,
            topic: topic.topic.clone(),
            event: "broadcast".to_owned(),
            payload: Payload::Binary(UserBroadcast {
                event: "e".to_owned(),
                json: false,
                meta: String::new(),
                payload: vec![0, 255].into(),
            }),
        };
        let json_message = Message::push(None, &topic.topic, "broadcast", json!({"type": "broadcast"}));
        for message in [binary, json_message] {
            let event = Event::Broadcast { topic: topic.clone(), message: message.clone() };
            let Some(Event::Broadcast { topic: t, message: m }) = decode(&encode(&event)) else { panic!() };
            assert_eq!((t, m), (topic.clone(), message));
        }
        let change = PresenceChange {
            topic: topic.clone(),
            joins: vec![("k".to_owned(), json!({"phx_ref": "1"}))],
            leaves: vec![],
        };
        let Some(Event::Presence(back)) = decode(&encode(&Event::Presence(change.clone()))) else { panic!() };
        assert_eq!((back.topic, back.joins, back.leaves), (change.topic, change.joins, change.leaves));
        let counts = Counts { joins: 1, events: 2, presence: 3, users: 4 };
        let Some(Event::Counts(back)) = decode(&encode(&Event::Counts(counts))) else { panic!() };
        assert_eq!(back, counts);
    }
}
