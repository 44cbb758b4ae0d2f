//! Realtime's tenant limits as a project sees them (gateway/crates/realtime
//! `limits.rs`): joins, messages and presence events per second and
//! connected users hold for every gateway on one database together; payload
//! sizes of broadcasts, presence and `postgres_changes`; and
//! `realtime.send_binary` (`sql/053_realtime_limits.sql`).

mod common;
mod realtime_support;

use std::time::Duration;

use serde_json::{Value, json};

use common::{Options, TestApp, spawn_app_with, test_config};
use gateway::config::Config;
use realtime_support::{Client, beside_with, url};

/// Longer than the gateways' sync interval plus the bus's delivery.
const SYNCED: Duration = Duration::from_millis(450);

/// Two gateways on one database, both configured by `tune`, with a socket
/// on each whose bus is listening.
async fn two_gateways(tune: impl Fn(&mut Config)) -> (TestApp, TestApp, Client, Client) {
    let mut config = test_config();
    tune(&mut config);
    let first = spawn_app_with(Options { config: config.clone(), ..Default::default() }).await;
    let second = beside_with(&first, config).await;
    let mut a = Client::connect(&first, "2.0.0").await;
    let mut b = Client::connect(&second, "1.0.0").await;
    a.heartbeat().await;
    b.heartbeat().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    (first, second, a, b)
}

/// A WebSocket refused before its upgrade: its status and body.
async fn refused(app: &TestApp) -> (u16, Value) {
    match tokio_tungstenite::connect_async(url(app, &app.anon_key, "1.0.0")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response.body().clone().unwrap_or_default();
            (response.status().as_u16(), serde_json::from_slice(&body).unwrap_or(Value::Null))
        }
        Ok(_) => panic!("the socket was accepted"),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn reason(reply: &realtime_support::In) -> Value {
    reply.payload["response"]["reason"].clone()
}

#[tokio::test]
async fn joins_per_second_are_counted_over_both_gateways() {
    let (_first, second, mut a, mut b) = two_gateways(|c| c.realtime.max_joins_per_second = 4).await;
    for n in 0..2 {
        assert_eq!(a.join(&format!("realtime:a{n}"), json!({})).await.1.payload["status"], "ok");
    }
    tokio::time::sleep(SYNCED).await;
    let expected = [json!(null), json!(null), json!("ClientJoinRateLimitReached: Too many joins per second")];
    for (n, expected) in expected.iter().enumerate() {
        let (_, reply) = b.join(&format!("realtime:b{n}"), json!({})).await;
        assert_eq!(&reason(&reply), expected, "join {n} on the second gateway");
    }
    assert!(b.next_within(Duration::from_secs(2)).await.is_none(), "the socket is closed");
    assert_eq!(refused(&second).await, (429, json!({"error": "Too many joins per second"})));
}

#[tokio::test]
async fn messages_per_second_are_counted_over_both_gateways() {
    let (_first, _second, mut a, mut b) = two_gateways(|c| c.realtime.max_events_per_second = 4).await;
    let (a_ref, _) = a.join("realtime:room", json!({})).await;
    let (b_ref, _) = b.join("realtime:room", json!({})).await;
    for n in 0..3 {
        let message = json!({"type": "broadcast", "event": "e", "payload": {"n": n}});
        a.push(Some(&a_ref), "realtime:room", "broadcast", message).await;
    }
    for n in 0..3 {
        assert_eq!(b.until(|m| m.event == "broadcast").await.payload["payload"]["n"], n);
    }
    tokio::time::sleep(SYNCED).await;
    for n in 3..5 {
        let message = json!({"type": "broadcast", "event": "e", "payload": {"n": n}});
        b.push(Some(&b_ref), "realtime:room", "broadcast", message).await;
    }
    assert_eq!(a.until(|m| m.event == "broadcast").await.payload["payload"]["n"], 3);
    let system = b.until(|m| m.event == "system").await;
    assert_eq!(system.payload["message"], "Too many messages per second");
    assert_eq!(system.payload["status"], "error");
    assert_eq!(b.next().await.event, "phx_close");
    a.quiet().await;
}

#[tokio::test]
async fn presence_events_per_second_are_counted_over_both_gateways() {
    let (_first, _second, mut a, mut b) =
        two_gateways(|c| c.realtime.max_presence_events_per_second = 2).await;
    let presence = json!({"config": {"presence": {"enabled": true}}});
    let (a_ref, _) = a.join("realtime:lobby", presence.clone()).await;
    let (b_ref, _) = b.join("realtime:lobby", presence).await;
    let track = |n: i32| json!({"type": "presence", "event": "track", "payload": {"n": n}});
    let reference = a.push(Some(&a_ref), "realtime:lobby", "presence", track(1)).await;
    a.until(|m| m.reference == json!(reference)).await;
    tokio::time::sleep(SYNCED).await;
    let reference = b.push(Some(&b_ref), "realtime:lobby", "presence", track(2)).await;
    assert_eq!(b.until(|m| m.reference == json!(reference)).await.payload["status"], "ok");
    b.push(Some(&b_ref), "realtime:lobby", "presence", track(3)).await;
    let system = b.until(|m| m.event == "system").await;
    assert_eq!(system.payload["message"], "Too many presence messages per second");
    assert_eq!(b.next().await.event, "phx_close");
}

#[tokio::test]
async fn a_channel_over_its_own_presence_window_is_closed_and_its_neighbour_is_not() {
    let mut config = test_config();
    config.realtime.max_client_presence_events_per_window = 3;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "1.0.0").await;
    let presence = json!({"config": {"presence": {"enabled": true}}});
    let (busy, _) = client.join("realtime:busy", presence.clone()).await;
    let (calm, _) = client.join("realtime:calm", presence).await;
    let track = |n: i32| json!({"type": "presence", "event": "track", "payload": {"n": n}});
    let untrack = json!({"type": "presence", "event": "untrack"});
    // Three events of either kind fill the window; the fourth closes the channel.
    for event in [track(1), untrack.clone(), track(2)] {
        let reference = client.push(Some(&busy), "realtime:busy", "presence", event).await;
        let reply = client.until(|m| m.reference == json!(reference)).await;
        assert_eq!(reply.payload["status"], "ok", "{reply:?}");
    }
    client.push(Some(&busy), "realtime:busy", "presence", track(3)).await;
    let system = client.until(|m| m.event == "system" && m.topic == "realtime:busy").await;
    assert_eq!(system.payload["message"], "Client presence rate limit exceeded");
    assert_eq!(system.payload["status"], "error");
    client.until(|m| m.event == "phx_close" && m.topic == "realtime:busy").await;
    let reference = client.push(Some(&calm), "realtime:calm", "presence", track(1)).await;
    let reply = client.until(|m| m.reference == json!(reference)).await;
    assert_eq!(reply.payload["status"], "ok", "the other channel has a window of its own");
}

#[tokio::test]
async fn connected_users_are_counted_over_both_gateways_and_leave_with_their_socket() {
    let (first, second, mut a, mut b) = two_gateways(|c| c.realtime.max_concurrent_users = 2).await;
    let mut late = Client::connect(&first, "1.0.0").await;
    a.join("realtime:a", json!({})).await;
    // A second channel of a counted socket is no new user.
    a.join("realtime:a2", json!({})).await;
    b.join("realtime:b", json!({})).await;
    tokio::time::sleep(SYNCED).await;
    let (_, reply) = late.join("realtime:late", json!({})).await;
    assert_eq!(reason(&reply), "ConnectionRateLimitReached: Too many connected users");
    assert_eq!(refused(&second).await, (429, json!({"error": "Too many connected users"})));
    drop(b);
    tokio::time::sleep(SYNCED * 2).await;
    let (_, reply) = late.join("realtime:late", json!({})).await;
    assert_eq!(reply.payload["status"], "ok", "{reply:?}");
}

/// A gateway whose broadcast and presence payloads may be 1,000 bytes.
async fn small_payloads() -> TestApp {
    let mut config = test_config();
    config.realtime.max_payload_size = 1000;
    spawn_app_with(Options { config, ..Default::default() }).await
}

#[tokio::test]
async fn a_broadcast_over_the_payload_limit_is_dropped_and_refused_to_a_channel_with_acks() {
    let app = small_payloads().await;
    let mut sender = Client::connect(&app, "2.0.0").await;
    let mut member = Client::connect(&app, "1.0.0").await;
    let (join_ref, _) = sender.join("realtime:room", json!({"config": {"broadcast": {"ack": true}}})).await;
    member.join("realtime:room", json!({})).await;
    let cases = [
        ("a small one", 100, "ok", json!({})),
        ("one too large", 2000, "error", json!("payload_size_exceeded")),
    ];
    for (case, size, status, response) in cases {
        let message = json!({"type": "broadcast", "event": "e", "payload": {"text": "x".repeat(size)}});
        let reference = sender.push(Some(&join_ref), "realtime:room", "broadcast", message).await;
        let reply = sender.until(|m| m.reference == json!(reference)).await;
        assert_eq!(
            (&reply.payload["status"], &reply.payload["response"]),
            (&json!(status), &response),
            "{case}"
        );
    }
    let got = member.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload["payload"]["text"].as_str().map(str::len), Some(100));
    member.quiet().await;

    let refusals = [
        (
            "/realtime/v1/api/broadcast",
            json!({"messages": [{"topic": "room", "event": "e", "payload": {"text": "x".repeat(2000)}}]}),
        ),
        ("/realtime/v1/api/broadcast/room/events/e", json!({"text": "x".repeat(2000)})),
    ];
    for (path, body) in refusals {
        let response = app
            .client
            .post(format!("{}{path}", app.address))
            .header("apikey", &app.anon_key)
            .json(&body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 422, "{path}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body, json!({"message": "Payload size exceeds tenant limit"}), "{path}");
    }

    // From the database: dropped; the next one arrives.
    let admin = app.admin().await;
    admin
        .batch_execute(&format!(
            "select realtime.send('{{\"text\": \"{}\"}}', 'db', 'room', false); \
             select realtime.send('{{\"n\": 1}}', 'db', 'room', false);",
            "x".repeat(2000)
        ))
        .await
        .expect("send");
    let got = member.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload["payload"], json!({"n": 1}));
    member.quiet().await;
}

#[tokio::test]
async fn a_track_over_the_payload_limit_closes_its_channel() {
    let app = small_payloads().await;
    let mut client = Client::connect(&app, "1.0.0").await;
    let (join_ref, _) =
        client.join("realtime:lobby", json!({"config": {"presence": {"enabled": true}}})).await;
    let track = json!({"type": "presence", "event": "track", "payload": {"text": "x".repeat(2000)}});
    client.push(Some(&join_ref), "realtime:lobby", "presence", track).await;
    let system = client.until(|m| m.event == "system").await;
    assert_eq!(system.payload["message"], "Track message size exceeded");
    assert_eq!(client.next().await.event, "phx_close");
}

#[tokio::test]
async fn a_change_over_the_record_limit_keeps_only_its_short_values_and_says_413() {
    let mut config = test_config();
    config.realtime.max_record_size = 800;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.notes (id bigint primary key, title text, body text);
             grant select on public.notes to anon;
             alter publication supabase_realtime add table public.notes;",
        )
        .await
        .expect("fixture");
    let mut client = Client::connect(&app, "1.0.0").await;
    let binding = json!({"event": "INSERT", "schema": "public", "table": "notes"});
    client.join("realtime:notes", json!({"config": {"postgres_changes": [binding]}})).await;
    client.until(|m| m.event == "system").await;
    let cases = [
        (
            "within the limit",
            1,
            "short",
            "y".repeat(100),
            json!({"id": 1, "title": "short", "body": "y".repeat(100)}),
            json!(null),
        ),
        (
            "over it",
            2,
            "short",
            "y".repeat(1000),
            json!({"id": 2, "title": "short"}),
            json!(["Error 413: Payload Too Large"]),
        ),
    ];
    for (case, id, title, body, record, errors) in cases {
        app.admin()
            .await
            .execute("insert into public.notes values ($1, $2, $3)", &[&i64::from(id), &title, &body])
            .await
            .expect("insert");
        let change = client.until(|m| m.event == "postgres_changes").await;
        let data = &change.payload["data"];
        assert_eq!((&data["record"], &data["errors"]), (&record, &errors), "{case}");
    }
}

#[tokio::test]
async fn send_binary_reaches_two_point_oh_members_on_every_gateway_as_bytes() {
    let (first, second, mut a, mut b) = two_gateways(|_| {}).await;
    let mut a_v1 = Client::connect(&first, "1.0.0").await;
    let mut b_v2 = Client::connect(&second, "2.0.0").await;
    for client in [&mut a, &mut a_v1, &mut b, &mut b_v2] {
        client.join("realtime:lobby", json!({})).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    first
        .admin()
        .await
        .batch_execute("select realtime.send_binary('\\x00ff01'::bytea, 'bytes', 'lobby', false)")
        .await
        .expect("send_binary");
    for client in [&mut a, &mut b_v2] {
        let got = client.until(|m| m.event == "broadcast").await;
        assert!(got.binary, "a binary frame");
        assert_eq!(
            got.payload,
            json!({"type": "broadcast", "event": "bytes", "payload": {"binary": [0, 255, 1]}})
        );
    }
    // A 1.0.0 socket cannot carry bytes: nothing.
    for client in [&mut a_v1, &mut b] {
        client.quiet().await;
    }
}

#[tokio::test]
async fn a_send_binary_row_holds_no_json_payload_and_is_replayed_as_bytes() {
    let app = spawn_app_with(Options::default()).await;
    let admin = app.admin().await;
    admin
        .batch_execute(
            "create policy read_room on realtime.messages for select to anon \
               using (realtime.topic() = 'room' and extension in ('broadcast', 'presence'));
             select realtime.send_binary('\\x0102'::bytea, 'bytes', 'room', true);",
        )
        .await
        .expect("fixture");
    let row = admin
        .query_one(
            "select payload is null, binary_payload from realtime.messages where topic = 'room' and event = 'bytes'",
            &[],
        )
        .await
        .expect("row");
    assert_eq!((row.get::<_, bool>(0), row.get::<_, Vec<u8>>(1)), (true, vec![1, 2]));
    let both = admin
        .batch_execute(
            "insert into realtime.messages (topic, extension, payload, binary_payload) values ('room', 'broadcast', '{}', '\\x01')",
        )
        .await;
    assert!(both.is_err(), "a message is JSON or bytes, not both");

    let replay = json!({"config": {"private": true, "broadcast": {"replay": {"since": 0}}}});
    let cases = [("2.0.0", true), ("1.0.0", false)];
    for (vsn, replayed) in cases {
        let mut client = Client::connect(&app, vsn).await;
        client.join("realtime:room", replay.clone()).await;
        let got = client.next_within(Duration::from_millis(500)).await;
        match got {
            Some(got) if replayed => {
                assert!(got.binary, "{vsn}");
                assert_eq!(got.payload["payload"], json!({"binary": [1, 2]}), "{vsn}");
            }
            None if !replayed => {}
            other => panic!("{vsn}: {other:?}"),
        }
    }
}
