//! Realtime across gateways on one database (broadcasts and presence go
//! through NOTIFY, large ones through `realtime.bus_spill`), and a gateway
//! that shuts down closing its sockets with a close frame.

mod common;
mod realtime_support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message as Ws;

use common::{Options, TestApp, spawn_app, spawn_app_with};
use realtime_support::{Client, beside};

/// Both gateways' buses are listening: each has had a socket, and a
/// heartbeat answered after the bus had time to LISTEN.
async fn connected(app: &TestApp, vsn: &str) -> Client {
    let mut client = Client::connect(app, vsn).await;
    client.heartbeat().await;
    client
}

#[tokio::test]
async fn a_broadcast_reaches_subscribers_on_every_gateway_exactly_once() {
    let first = spawn_app().await;
    let second = beside(&first).await;
    let mut a = connected(&first, "2.0.0").await;
    let mut a_peer = connected(&first, "1.0.0").await;
    let mut b = connected(&second, "1.0.0").await;
    let (a_ref, _) = a.join("realtime:room", json!({"config": {"broadcast": {"self": true}}})).await;
    a_peer.join("realtime:room", json!({})).await;
    let (b_ref, _) = b.join("realtime:room", json!({})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let body = serde_json::to_vec(&json!({"n": 1})).unwrap();
    a.push_binary(&a_ref, "realtime:room", "e", &body, true).await;
    for client in [&mut a, &mut a_peer, &mut b] {
        let got = client.until(|m| m.event == "broadcast").await;
        assert_eq!(got.payload, json!({"type": "broadcast", "event": "e", "payload": {"n": 1}}));
        client.quiet().await;
    }
    // And back, with a payload over NOTIFY's 8,000 bytes.
    let big = "z".repeat(20_000);
    b.push(
        Some(&b_ref),
        "realtime:room",
        "broadcast",
        json!({"type": "broadcast", "event": "big", "payload": {"big": big}}),
    )
    .await;
    for client in [&mut a, &mut a_peer] {
        let got = client.until(|m| m.event == "broadcast").await;
        assert_eq!(got.payload["payload"]["big"].as_str().map(str::len), Some(20_000));
        client.quiet().await;
    }
    b.quiet().await;
}

#[tokio::test]
async fn presence_is_shared_between_gateways_and_leaves_when_its_socket_goes() {
    let first = spawn_app().await;
    let second = beside(&first).await;
    let mut a = connected(&first, "2.0.0").await;
    // The second gateway's bus is listening before the track.
    let mut b = connected(&second, "1.0.0").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (a_ref, _) =
        a.join("realtime:lobby", json!({"config": {"presence": {"key": "ana", "enabled": true}}})).await;
    a.until(|m| m.event == "presence_state").await;
    a.push(
        Some(&a_ref),
        "realtime:lobby",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"at": 1}}),
    )
    .await;
    a.until(|m| m.event == "presence_diff").await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    b.join("realtime:lobby", json!({"config": {"presence": {"key": "bo", "enabled": true}}})).await;
    let state = b.until(|m| m.event == "presence_state").await;
    assert_eq!(state.payload["ana"]["metas"][0]["at"], 1, "{state:?}");
    drop(a);
    let diff = b.until(|m| m.event == "presence_diff").await;
    assert_eq!(diff.payload["leaves"]["ana"]["metas"][0]["at"], 1);
}

#[tokio::test]
async fn a_gateway_that_shuts_down_closes_its_sockets_with_going_away() {
    let app = spawn_app().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let limits = app.state.config.server.clone();
    let server = tokio::spawn({
        let app = gateway::app(app.state.clone());
        async move {
            gateway::server::serve(listener, app, &limits, 100, async {
                let _ = stopped.await;
            })
            .await
        }
    });
    let url = format!("ws://{address}/realtime/v1/websocket?apikey={}&vsn=2.0.0", app.anon_key);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("websocket");
    stop.send(()).expect("stop");
    let close = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(frame)) = socket.next().await {
            if let Ws::Close(frame) = frame {
                return frame;
            }
        }
        None
    })
    .await
    .expect("closed in time")
    .expect("a close frame");
    assert_eq!(u16::from(close.code), 1001);
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("drained")
        .expect("task")
        .expect("served");
}

#[tokio::test]
async fn a_websocket_outlives_the_idle_timeout_of_http_connections() {
    let mut config = common::test_config();
    config.server.idle_timeout = gateway::config::Span(Duration::from_millis(300));
    config.server.header_timeout = gateway::config::Span(Duration::from_millis(300));
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "2.0.0").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(client.heartbeat().await.payload["status"], "ok");
}

#[tokio::test]
async fn a_gateway_that_starts_later_learns_the_presences_tracked_before() {
    let first = spawn_app().await;
    let mut a = connected(&first, "2.0.0").await;
    let (a_ref, _) =
        a.join("realtime:lobby", json!({"config": {"presence": {"key": "ana", "enabled": true}}})).await;
    a.push(
        Some(&a_ref),
        "realtime:lobby",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"at": 2}}),
    )
    .await;
    a.until(|m| m.event == "presence_diff").await;
    let second = beside(&first).await;
    let mut b = connected(&second, "2.0.0").await;
    b.join("realtime:lobby", json!({"config": {"presence": {"key": "bo", "enabled": true}}})).await;
    // In the state if the answer to its question came first, else in a diff.
    let seen = b
        .until(|m| {
            (m.event == "presence_state" || m.event == "presence_diff")
                && m.payload.pointer("/ana").or(m.payload.pointer("/joins/ana")).is_some()
        })
        .await;
    let metas = seen.payload.pointer("/ana/metas").or(seen.payload.pointer("/joins/ana/metas")).cloned();
    assert_eq!(metas.and_then(|m| m[0]["at"].as_u64()), Some(2));
}
