//! The two halves of the Realtime fan-out benchmark (bench/realtime.sh).
//!
//! `wsfanout server --listen ADDR` is the physical limit: a bare tokio
//! WebSocket server (tokio-tungstenite, the library under the gateway's own
//! sockets) that speaks just enough of Phoenix's 1.0.0 serializer for a
//! broadcast: `phx_join`, `heartbeat` and `broadcast`. Each broadcast is
//! encoded once and its bytes shared by every subscriber's writer task, which
//! writes what is queued and flushes once. No tokens, limits, presence,
//! database or other gateways: what remains is the cost of fan-out itself on
//! this machine.
//!
//! `wsfanout client --url URL --subscribers N ...` opens N sockets, one
//! channel each (as N browsers would), waits until every join is answered,
//! then makes the load and measures every delivery's latency:
//!
//! - `--listen broadcast` (the default): subscribers of `realtime:<topic>`;
//!   the latency is arrival minus the `t` (Unix microseconds) in the
//!   broadcast's payload;
//! - `--listen changes --table T`: `postgres_changes` INSERT bindings on
//!   `public.T`; the latency is arrival minus the change's
//!   `commit_timestamp` (millisecond precision).
//!
//! The load is either `--send RATE` (a sender socket broadcasting `RATE`
//! messages a second, or `max`: as fast as the subscribers take them, with
//! [`WINDOW`] messages not yet delivered to everyone) for `--duration`
//! seconds, or a command after `--` (pgbench calling `realtime.send`, or
//! inserting rows), whose "actually processed" count is the number of
//! messages sent. It then waits until every delivery arrived or none came
//! for 5 s, and prints one JSON line.
//!
//! Tokens: `--token JWT` joins every channel with it; `--tokens FILE` (one
//! token a line) gives subscriber i the line i modulo their number.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, mpsc};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Broadcasts in flight in `--send max`: sent but not yet delivered to
/// every subscriber.
const WINDOW: u64 = 16;
/// Messages one socket's writer sends before it flushes (both sides).
const WRITE_BATCH: usize = 64;
/// Latency histogram: 100 µs buckets up to a minute.
const BUCKET_US: u64 = 100;
const BUCKETS: usize = 600_001;
/// How long the client waits for the last deliveries.
const QUIET: Duration = Duration::from_secs(5);

type Fail = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Fail> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("server") => server(&Args::parse(&args[1..])?).await,
        Some("client") => client(&Args::parse(&args[1..])?).await,
        _ => {
            Err("usage: wsfanout server --listen ADDR | wsfanout client --url URL --subscribers N ...".into())
        }
    }
}

/// `--name value` pairs, and what follows `--`.
struct Args {
    pairs: Vec<(String, String)>,
    command: Vec<String>,
}

impl Args {
    fn parse(args: &[String]) -> Result<Self, Fail> {
        let mut pairs = Vec::new();
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            if arg == "--" {
                return Ok(Self { pairs, command: rest.cloned().collect() });
            }
            let name = arg.strip_prefix("--").ok_or_else(|| format!("unexpected argument {arg}"))?;
            let value = rest.next().ok_or_else(|| format!("--{name} needs a value"))?;
            pairs.push((name.to_owned(), value.clone()));
        }
        Ok(Self { pairs, command: Vec::new() })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn need(&self, name: &str) -> Result<&str, Fail> {
        self.get(name).ok_or_else(|| format!("--{name} is required").into())
    }
}

fn micros_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

// ---------------------------------------------------------------- server

/// A topic's subscribers: each socket's id and its writer's queue.
type Topics = Arc<Mutex<std::collections::HashMap<String, Vec<(u64, mpsc::UnboundedSender<Utf8Bytes>)>>>>;

#[derive(Deserialize)]
struct Incoming<'a> {
    topic: &'a str,
    event: &'a str,
    #[serde(default)]
    payload: Value,
    #[serde(rename = "ref", default)]
    reference: Option<Value>,
    #[serde(default)]
    join_ref: Option<Value>,
}

async fn server(args: &Args) -> Result<(), Fail> {
    let listener = TcpListener::bind(args.need("listen")?).await?;
    let topics: Topics = Arc::default();
    let mut next = 0u64;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        next += 1;
        tokio::spawn(serve(stream, next, topics.clone()));
    }
}

async fn serve(stream: TcpStream, id: u64, topics: Topics) {
    let Ok(socket) = tokio_tungstenite::accept_async(stream).await else { return };
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut queued) = mpsc::unbounded_channel::<Utf8Bytes>();
    let writer = tokio::spawn(async move {
        while let Some(first) = queued.recv().await {
            let mut next = Some(first);
            let mut written = 0;
            while let Some(text) = next {
                if sink.feed(Message::Text(text)).await.is_err() {
                    return;
                }
                written += 1;
                next = if written < WRITE_BATCH { queued.try_recv().ok() } else { None };
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    let mut joined: Vec<String> = Vec::new();
    while let Some(Ok(frame)) = stream.next().await {
        let Message::Text(text) = frame else { continue };
        let Ok(message) = serde_json::from_str::<Incoming<'_>>(text.as_str()) else { continue };
        let reply = |status: &str| {
            json!({"topic": message.topic, "event": "phx_reply", "ref": message.reference,
                   "join_ref": message.join_ref, "payload": {"status": status, "response": {}}})
            .to_string()
        };
        match message.event {
            "phx_join" => {
                topics.lock().await.entry(message.topic.to_owned()).or_default().push((id, outbox.clone()));
                joined.push(message.topic.to_owned());
                let _ = outbox.send(reply("ok").into());
            }
            "heartbeat" => {
                let _ = outbox.send(reply("ok").into());
            }
            "broadcast" => {
                // Encoded once, as the gateway's hub does: the same bytes for all.
                let out = Utf8Bytes::from(
                    json!({"topic": message.topic, "event": "broadcast", "ref": null, "payload": message.payload})
                        .to_string(),
                );
                let topics = topics.lock().await;
                for (member, queue) in topics.get(message.topic).into_iter().flatten() {
                    if *member != id {
                        let _ = queue.send(out.clone());
                    }
                }
            }
            _ => {}
        }
    }
    let mut topics = topics.lock().await;
    for topic in joined {
        if let Some(members) = topics.get_mut(&topic) {
            members.retain(|(member, _)| *member != id);
        }
    }
    writer.abort();
}

// ---------------------------------------------------------------- client

#[derive(Clone, Copy, PartialEq)]
enum Listen {
    Broadcast,
    Changes,
}

/// What the subscribers share.
struct Tally {
    histogram: Vec<AtomicU64>,
    deliveries: AtomicU64,
    joined: AtomicU64,
    refused: AtomicBool,
    /// Microseconds since `start` of the last delivery.
    last: AtomicU64,
    start: Instant,
}

impl Tally {
    fn record(&self, latency_us: u64) {
        let bucket = ((latency_us / BUCKET_US) as usize).min(BUCKETS - 1);
        self.histogram[bucket].fetch_add(1, Ordering::Relaxed);
        self.deliveries.fetch_add(1, Ordering::Relaxed);
        self.last.store(self.start.elapsed().as_micros() as u64, Ordering::Relaxed);
    }

    fn percentile_ms(&self, p: f64) -> Option<f64> {
        let total = self.deliveries.load(Ordering::Relaxed);
        if total == 0 {
            return None;
        }
        let wanted = ((total as f64) * p).ceil() as u64;
        let mut seen = 0;
        for (bucket, count) in self.histogram.iter().enumerate() {
            seen += count.load(Ordering::Relaxed);
            if seen >= wanted {
                return Some(((bucket as u64 + 1) * BUCKET_US) as f64 / 1000.0);
            }
        }
        None
    }
}

#[derive(Deserialize)]
struct Delivery<'a> {
    event: &'a str,
    #[serde(borrow)]
    payload: Option<DeliveryPayload<'a>>,
}

#[derive(Deserialize)]
struct DeliveryPayload<'a> {
    /// A broadcast's own payload.
    #[serde(default)]
    payload: Option<Stamp>,
    /// A change's data.
    #[serde(default, borrow)]
    data: Option<ChangeData<'a>>,
    /// A reply's status, a system message's status.
    #[serde(default)]
    status: Option<&'a str>,
    #[serde(default)]
    extension: Option<&'a str>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct Stamp {
    t: u64,
}

#[derive(Deserialize)]
struct ChangeData<'a> {
    commit_timestamp: &'a str,
}

fn join_message(listen: Listen, topic: &str, table: &str, token: Option<&str>, reference: usize) -> String {
    let mut config = json!({
        "broadcast": {"self": false, "ack": false},
        "presence": {"key": "", "enabled": false},
        "postgres_changes": [],
        "private": false,
    });
    if listen == Listen::Changes {
        config["postgres_changes"] = json!([{"event": "INSERT", "schema": "public", "table": table}]);
    }
    let mut payload = json!({"config": config});
    if let Some(token) = token {
        payload["access_token"] = json!(token);
    }
    json!({"topic": format!("realtime:{topic}"), "event": "phx_join", "ref": reference.to_string(),
           "join_ref": reference.to_string(), "payload": payload})
    .to_string()
}

async fn subscriber(url: String, join: String, listen: Listen, tally: Arc<Tally>) -> Result<(), Fail> {
    let (socket, _) = tokio_tungstenite::connect_async(&url).await?;
    let (mut sink, mut stream) = socket.split();
    sink.send(Message::Text(join.into())).await?;
    let heartbeat = tokio::spawn(async move {
        let beat = json!({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "hb"}).to_string();
        loop {
            tokio::time::sleep(Duration::from_secs(20)).await;
            if sink.send(Message::Text(beat.clone().into())).await.is_err() {
                return;
            }
        }
    });
    while let Some(frame) = stream.next().await {
        let Message::Text(text) = frame? else { continue };
        let Ok(delivery) = serde_json::from_str::<Delivery<'_>>(text.as_str()) else { continue };
        let Some(payload) = delivery.payload else { continue };
        match (delivery.event, listen) {
            ("broadcast", Listen::Broadcast) => {
                if let Some(stamp) = payload.payload {
                    tally.record(micros_now().saturating_sub(stamp.t));
                }
            }
            ("postgres_changes", Listen::Changes) => {
                if let Some(data) = payload.data
                    && let Ok(at) = chrono::DateTime::parse_from_rfc3339(data.commit_timestamp)
                {
                    let at = at.timestamp_micros().max(0) as u64;
                    tally.record(micros_now().saturating_sub(at));
                }
            }
            ("phx_reply", Listen::Broadcast) => match payload.status {
                Some("ok") => {
                    tally.joined.fetch_add(1, Ordering::Relaxed);
                }
                _ => refuse(&tally, &text),
            },
            ("system", Listen::Changes) if payload.extension == Some("postgres_changes") => {
                match payload.status {
                    Some("ok") => {
                        tally.joined.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => refuse(&tally, payload.message.as_deref().unwrap_or_default()),
                }
            }
            ("phx_reply", Listen::Changes) if payload.status != Some("ok") => refuse(&tally, &text),
            ("phx_close" | "phx_error", _) => refuse(&tally, &text),
            _ => {}
        }
    }
    heartbeat.abort();
    Ok(())
}

fn refuse(tally: &Tally, why: &str) {
    if !tally.refused.swap(true, Ordering::Relaxed) {
        eprintln!("refused: {why}");
    }
}

async fn client(args: &Args) -> Result<(), Fail> {
    let url = args.need("url")?.to_owned();
    let subscribers: u64 = args.need("subscribers")?.parse()?;
    let topic = args.get("topic").unwrap_or("fanout").to_owned();
    let table = args.get("table").unwrap_or("bench_changes").to_owned();
    let listen = match args.get("listen").unwrap_or("broadcast") {
        "broadcast" => Listen::Broadcast,
        "changes" => Listen::Changes,
        other => return Err(format!("--listen broadcast|changes, not {other}").into()),
    };
    let mut tokens: Vec<String> = match args.get("tokens") {
        Some(file) => std::fs::read_to_string(file)?.lines().map(str::to_owned).collect(),
        None => Vec::new(),
    };
    if let Some(token) = args.get("token") {
        tokens = vec![token.to_owned()];
    }
    let tally = Arc::new(Tally {
        histogram: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        deliveries: AtomicU64::new(0),
        joined: AtomicU64::new(0),
        refused: AtomicBool::new(false),
        last: AtomicU64::new(0),
        start: Instant::now(),
    });
    for i in 0..subscribers as usize {
        let token = (!tokens.is_empty()).then(|| tokens[i % tokens.len()].as_str());
        let join = join_message(listen, &topic, &table, token, i + 1);
        let tally = tally.clone();
        let url = url.clone();
        tokio::spawn(async move {
            if let Err(e) = subscriber(url, join, listen, tally.clone()).await {
                refuse(&tally, &format!("socket: {e}"));
            }
        });
        // Opening a thousand sockets at once would only measure the accept queue.
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let waiting = Instant::now();
    while tally.joined.load(Ordering::Relaxed) < subscribers {
        if tally.refused.load(Ordering::Relaxed) || waiting.elapsed() > Duration::from_secs(60) {
            return Err(format!("{} of {subscribers} joined", tally.joined.load(Ordering::Relaxed)).into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let start = Instant::now();
    let start_us = tally.start.elapsed().as_micros() as u64;
    let (sent, writer_tps) = if args.command.is_empty() {
        let rate = args.need("send")?;
        let duration = Duration::from_secs_f64(args.get("duration").unwrap_or("5").parse()?);
        (send(&url, &topic, rate, duration, subscribers, &tally).await?, None)
    } else {
        run(&args.command).await?
    };
    let expected = sent * subscribers;
    loop {
        let delivered = tally.deliveries.load(Ordering::Relaxed);
        let last = tally.last.load(Ordering::Relaxed).max(start_us);
        let quiet = tally.start.elapsed().as_micros() as u64 - last;
        if delivered >= expected || quiet > QUIET.as_micros() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let delivered = tally.deliveries.load(Ordering::Relaxed);
    let seconds = (tally.last.load(Ordering::Relaxed).saturating_sub(start_us)) as f64 / 1e6;
    let seconds = if seconds > 0.0 { seconds } else { start.elapsed().as_secs_f64() };
    println!(
        "{}",
        json!({
            "subscribers": subscribers,
            "sent": sent,
            "delivered": delivered,
            "expected": expected,
            "messages_per_s": (delivered as f64 / subscribers as f64 / seconds).round(),
            "deliveries_per_s": (delivered as f64 / seconds).round(),
            "p50_ms": tally.percentile_ms(0.5),
            "p99_ms": tally.percentile_ms(0.99),
            "writer_tps": writer_tps,
            "refused": tally.refused.load(Ordering::Relaxed),
        })
    );
    // Returning drops the runtime and with it every socket's task.
    Ok(())
}

/// Broadcasts from a socket of its own for `duration`: `rate` a second, or
/// `max` with a window. The number sent.
async fn send(
    url: &str,
    topic: &str,
    rate: &str,
    duration: Duration,
    subscribers: u64,
    tally: &Tally,
) -> Result<u64, Fail> {
    let (socket, _) = tokio_tungstenite::connect_async(url).await?;
    let (mut sink, mut stream) = socket.split();
    let topic = format!("realtime:{topic}");
    let join = json!({"topic": topic, "event": "phx_join", "ref": "s", "join_ref": "s",
                      "payload": {"config": {"broadcast": {"self": false}, "private": false}}});
    sink.send(Message::Text(join.to_string().into())).await?;
    // Replies and heartbeats the sender is sent are read and dropped.
    tokio::spawn(async move { while let Some(Ok(_)) = stream.next().await {} });
    let message = |n: u64| {
        json!({"topic": topic, "event": "broadcast", "ref": null, "join_ref": "s",
               "payload": {"type": "broadcast", "event": "e", "payload": {"t": micros_now(), "n": n}}})
        .to_string()
    };
    let start = Instant::now();
    let mut sent = 0u64;
    if rate == "max" {
        while start.elapsed() < duration {
            let delivered = tally.deliveries.load(Ordering::Relaxed);
            if sent.saturating_sub(WINDOW) * subscribers <= delivered {
                sink.send(Message::Text(message(sent).into())).await?;
                sent += 1;
            } else {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    } else {
        let rate: f64 = rate.parse()?;
        let mut tick = tokio::time::interval(Duration::from_millis(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        while start.elapsed() < duration {
            tick.tick().await;
            let due = (start.elapsed().as_secs_f64() * rate) as u64;
            while sent < due {
                sink.feed(Message::Text(message(sent).into())).await?;
                sent += 1;
            }
            sink.flush().await?;
        }
    }
    Ok(sent)
}

/// Runs the load command; what pgbench says it processed, and its rate.
async fn run(command: &[String]) -> Result<(u64, Option<f64>), Fail> {
    let output = tokio::process::Command::new(&command[0])
        .args(&command[1..])
        .stderr(std::process::Stdio::inherit())
        .output()
        .await?;
    if !output.status.success() {
        return Err(format!("{} exited with {}", command[0], output.status).into());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let after = |prefix: &str| {
        text.lines()
            .find_map(|line| line.trim().strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next().map(str::to_owned))
    };
    let processed = after("number of transactions actually processed:")
        .and_then(|n| n.split('/').next().and_then(|n| n.parse().ok()))
        .ok_or("the command printed no \"actually processed\" count")?;
    let tps = after("tps =").and_then(|n| n.parse().ok());
    Ok((processed, tps))
}
