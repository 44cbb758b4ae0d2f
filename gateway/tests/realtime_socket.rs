//! `/realtime/v1/websocket` frame by frame, in both serializers: heartbeats,
//! joins and their replies, broadcast (self, ack, binary and JSON clients
//! together), presence, private channels under RLS, tokens, leaving, limits,
//! and the REST broadcast.

mod common;
mod realtime_support;

use std::time::Duration;

use serde_json::{Value, json};

use common::{Options, TestApp, spawn_app, spawn_app_with, test_config};
use realtime_support::Client;

const BOTH: [&str; 2] = ["1.0.0", "2.0.0"];

fn ok_reply(reply: &realtime_support::In) -> Value {
    assert_eq!(reply.payload["status"], "ok", "{reply:?}");
    reply.payload["response"].clone()
}

#[tokio::test]
async fn a_heartbeat_on_phoenix_is_answered_ok_in_both_serializers() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let mut client = Client::connect(&app, vsn).await;
        let reply = client.heartbeat().await;
        assert_eq!((reply.topic.as_str(), reply.event.as_str()), ("phoenix", "phx_reply"), "{vsn}");
        assert_eq!(reply.payload, json!({"status": "ok", "response": {}}), "{vsn}");
    }
}

#[tokio::test]
async fn a_socket_without_a_valid_api_key_is_refused_before_the_upgrade() {
    let app = spawn_app().await;
    for (key, status) in [("", 401), ("not-a-key", 401), ("sb_publishable_unknown", 401)] {
        let url = format!("{}/realtime/v1/websocket?apikey={key}&vsn=1.0.0", app.address);
        let answer = app
            .client
            .get(url)
            .header("connection", "upgrade")
            .header("upgrade", "websocket")
            .header("sec-websocket-version", "13")
            .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
            .send()
            .await
            .expect("request");
        assert_eq!(answer.status().as_u16(), status, "{key:?}");
        let body: Value = answer.json().await.expect("json");
        assert!(body["message"].is_string(), "{body}");
    }
    // Publishable keys open sockets too.
    let mut client = Client::connect_with(&app, &app.publishable_key, "2.0.0").await;
    assert_eq!(client.heartbeat().await.payload["status"], "ok");
}

#[tokio::test]
async fn a_join_lists_the_bindings_in_the_clients_order_with_ids_then_reports_the_change_feed() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let mut client = Client::connect(&app, vsn).await;
        let bindings = json!([
            {"event": "INSERT", "schema": "public", "table": "products"},
            {"event": "*", "schema": "public", "table": "brands", "filter": "id=eq.3"},
        ]);
        let (join_ref, reply) = client
            .join(
                "realtime:room",
                json!({"config": {"broadcast": {"self": false}, "postgres_changes": bindings}}),
            )
            .await;
        let listed = ok_reply(&reply)["postgres_changes"].clone();
        assert_eq!(listed.as_array().map(Vec::len), Some(2), "{vsn}");
        for (sent, answered) in bindings.as_array().unwrap().iter().zip(listed.as_array().unwrap()) {
            for field in ["event", "schema", "table", "filter"] {
                assert_eq!(sent.get(field), answered.get(field), "{vsn} {field}");
            }
            assert!(answered["id"].is_u64(), "{vsn}: {answered}");
        }
        if vsn == "2.0.0" {
            assert_eq!(reply.join_ref, json!(join_ref));
        }
        // Whatever the feed answers, it answers as Realtime's `system` message.
        let system = client.until(|m| m.event == "system").await;
        assert_eq!(system.payload["extension"], "postgres_changes", "{vsn}");
        assert_eq!(system.payload["channel"], "room", "{vsn}");
        assert!(["ok", "error"].contains(&system.payload["status"].as_str().unwrap_or_default()));

        // The same bindings get the same ids.
        let (_, again) =
            client.join("realtime:other", json!({"config": {"postgres_changes": bindings}})).await;
        assert_eq!(ok_reply(&again)["postgres_changes"], listed, "{vsn}");
    }
}

#[tokio::test]
async fn a_join_without_bindings_answers_an_empty_list_and_no_system_message() {
    let app = spawn_app().await;
    let mut client = Client::connect(&app, "2.0.0").await;
    let (_, reply) = client.join("realtime:room", json!({"config": {}})).await;
    assert_eq!(ok_reply(&reply), json!({"postgres_changes": []}));
    client.quiet().await;
}

#[tokio::test]
async fn messages_for_topics_not_joined_are_answered_unmatched_topic() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let mut client = Client::connect(&app, vsn).await;
        let reference =
            client.push(None, "realtime:nowhere", "broadcast", json!({"type": "broadcast"})).await;
        let reply = client.until(|m| m.reference == json!(reference)).await;
        assert_eq!(reply.payload, json!({"status": "error", "response": {"reason": "unmatched topic"}}));
        let (_, reply) = client.join("not-realtime", json!({})).await;
        assert_eq!(reply.payload["response"]["reason"], "unmatched topic");
    }
}

/// Two sockets on one channel, in the serializers given.
async fn pair(app: &TestApp, a: &str, b: &str, config: Value) -> ((Client, String), (Client, String)) {
    let mut first = Client::connect(app, a).await;
    let mut second = Client::connect(app, b).await;
    let (first_ref, reply) = first.join("realtime:room", json!({"config": config})).await;
    ok_reply(&reply);
    let (second_ref, reply) = second.join("realtime:room", json!({"config": config})).await;
    ok_reply(&reply);
    ((first, first_ref), (second, second_ref))
}

#[tokio::test]
async fn a_broadcast_reaches_the_other_members_in_their_own_serializer_and_not_the_sender() {
    let app = spawn_app().await;
    for (a, b) in [("1.0.0", "1.0.0"), ("1.0.0", "2.0.0"), ("2.0.0", "1.0.0"), ("2.0.0", "2.0.0")] {
        let ((mut sender, join_ref), (mut receiver, _)) = pair(&app, a, b, json!({"broadcast": {}})).await;
        let message = json!({"type": "broadcast", "event": "cursor", "payload": {"x": 1, "ñ": "é"}});
        if sender.v2 {
            // realtime-js 2.0.0 sends a broadcast as binary kind 3.
            let body = serde_json::to_vec(&message["payload"]).unwrap();
            sender.push_binary(&join_ref, "realtime:room", "cursor", &body, true).await;
        } else {
            sender.push(Some(&join_ref), "realtime:room", "broadcast", message.clone()).await;
        }
        let got = receiver.until(|m| m.event == "broadcast").await;
        assert_eq!(got.topic, "realtime:room", "{a}->{b}");
        assert_eq!(got.payload, message, "{a}->{b}");
        // A broadcast that came in binary goes out in binary to 2.0.0 clients.
        assert_eq!(got.binary, a == "2.0.0" && b == "2.0.0", "{a}->{b}");
        sender.quiet().await;
    }
}

#[tokio::test]
async fn a_binary_value_reaches_two_point_oh_clients_only() {
    let app = spawn_app().await;
    let mut sender = Client::connect(&app, "2.0.0").await;
    let mut modern = Client::connect(&app, "2.0.0").await;
    let mut legacy = Client::connect(&app, "1.0.0").await;
    let (join_ref, _) = sender.join("realtime:room", json!({"config": {}})).await;
    modern.join("realtime:room", json!({"config": {}})).await;
    legacy.join("realtime:room", json!({"config": {}})).await;
    sender.push_binary(&join_ref, "realtime:room", "blob", &[0, 159, 255], false).await;
    let got = modern.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload["payload"], json!({"binary": [0, 159, 255]}));
    legacy.quiet().await;
}

#[tokio::test]
async fn self_broadcast_returns_to_the_sender_and_ack_answers_the_push() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let mut client = Client::connect(&app, vsn).await;
        let (join_ref, _) =
            client.join("realtime:room", json!({"config": {"broadcast": {"self": true, "ack": true}}})).await;
        let message = json!({"type": "broadcast", "event": "e", "payload": {"n": 1}});
        let reference = client.push(Some(&join_ref), "realtime:room", "broadcast", message.clone()).await;
        let mut seen = vec![];
        for _ in 0..2 {
            seen.push(client.next().await);
        }
        let ack = seen.iter().find(|m| m.event == "phx_reply").expect("ack");
        assert_eq!(ack.reference, json!(reference), "{vsn}");
        assert_eq!(ack.payload, json!({"status": "ok", "response": {}}), "{vsn}");
        let echo = seen.iter().find(|m| m.event == "broadcast").expect("self");
        assert_eq!(echo.payload, message, "{vsn}");
    }
    // Without ack there is no reply.
    let mut client = Client::connect(&app, "2.0.0").await;
    let (join_ref, _) = client.join("realtime:quiet", json!({"config": {"broadcast": {}}})).await;
    client
        .push(
            Some(&join_ref),
            "realtime:quiet",
            "broadcast",
            json!({"type": "broadcast", "event": "e", "payload": {}}),
        )
        .await;
    client.quiet().await;
}

#[tokio::test]
async fn presence_sends_the_state_after_the_join_then_diffs_and_a_leave_when_the_socket_goes() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let topic = format!("realtime:lobby-{vsn}");
        let mut first = Client::connect(&app, vsn).await;
        let (first_ref, _) =
            first.join(&topic, json!({"config": {"presence": {"key": "ana", "enabled": true}}})).await;
        let state = first.until(|m| m.event == "presence_state").await;
        assert_eq!(state.payload, json!({}), "{vsn}");
        let reference = first
            .push(
                Some(&first_ref),
                &topic,
                "presence",
                json!({"type": "presence", "event": "track", "payload": {"online_at": 1}}),
            )
            .await;
        let mut seen = [first.next().await, first.next().await];
        seen.sort_by_key(|m| m.event.clone());
        assert_eq!(seen[0].event, "phx_reply", "{vsn}");
        assert_eq!(seen[0].reference, json!(reference));
        let diff = &seen[1].payload;
        assert_eq!(seen[1].event, "presence_diff");
        assert_eq!(diff["leaves"], json!({}));
        let meta = &diff["joins"]["ana"]["metas"][0];
        assert_eq!(meta["online_at"], 1);
        assert!(meta["phx_ref"].is_string(), "{diff}");

        let mut second = Client::connect(&app, vsn).await;
        second.join(&topic, json!({"config": {"presence": {"key": "bo", "enabled": true}}})).await;
        let state = second.until(|m| m.event == "presence_state").await;
        assert_eq!(state.payload["ana"]["metas"][0]["online_at"], 1, "{vsn}");
        drop(first);
        let diff = second.until(|m| m.event == "presence_diff").await;
        assert_eq!(diff.payload["joins"], json!({}));
        assert_eq!(diff.payload["leaves"]["ana"]["metas"][0]["online_at"], 1, "{vsn}");
    }
}

#[tokio::test]
async fn untrack_sends_a_leave_and_a_second_track_replaces_the_first() {
    let app = spawn_app().await;
    let mut client = Client::connect(&app, "2.0.0").await;
    let (join_ref, _) =
        client.join("realtime:lobby", json!({"config": {"presence": {"key": "k", "enabled": true}}})).await;
    client.until(|m| m.event == "presence_state").await;
    let track = |n: u32| json!({"type": "presence", "event": "track", "payload": {"n": n}});
    client.push(Some(&join_ref), "realtime:lobby", "presence", track(1)).await;
    client.until(|m| m.event == "presence_diff").await;
    client.push(Some(&join_ref), "realtime:lobby", "presence", track(2)).await;
    let diff = client.until(|m| m.event == "presence_diff").await;
    assert_eq!(diff.payload["joins"]["k"]["metas"][0]["n"], 2);
    assert_eq!(diff.payload["leaves"]["k"]["metas"][0]["n"], 1);
    client
        .push(Some(&join_ref), "realtime:lobby", "presence", json!({"type": "presence", "event": "untrack"}))
        .await;
    let diff = client.until(|m| m.event == "presence_diff").await;
    assert_eq!(diff.payload["joins"], json!({}));
    assert_eq!(diff.payload["leaves"]["k"]["metas"][0]["n"], 2);
}

#[tokio::test]
async fn leaving_is_answered_and_then_nothing_more_arrives_for_the_topic() {
    let app = spawn_app().await;
    for vsn in BOTH {
        let ((mut leaver, leave_ref), (mut other, other_ref)) = pair(&app, vsn, vsn, json!({})).await;
        let reference = leaver.push(Some(&leave_ref), "realtime:room", "phx_leave", json!({})).await;
        let reply = leaver.next().await;
        assert_eq!((reply.event.as_str(), reply.reference.clone()), ("phx_reply", json!(reference)));
        assert_eq!(reply.payload["status"], "ok");
        other
            .push(
                Some(&other_ref),
                "realtime:room",
                "broadcast",
                json!({"type": "broadcast", "event": "e", "payload": {}}),
            )
            .await;
        leaver.quiet().await;
    }
}

/// A policy for the `room` topic: authenticated users may read, and only
/// `writer` may send.
async fn private_rooms(app: &TestApp) {
    app.admin()
        .await
        .batch_execute(
            "create policy read_room on realtime.messages for select to authenticated \
               using (realtime.topic() = 'room' and extension in ('broadcast', 'presence'));
             create policy write_room on realtime.messages for insert to authenticated \
               with check (realtime.topic() = 'room' and (auth.jwt() ->> 'sub') = 'writer');",
        )
        .await
        .expect("policies");
}

#[tokio::test]
async fn a_private_channel_is_joined_only_by_callers_a_select_policy_lets_read() {
    let app = spawn_app().await;
    private_rooms(&app).await;
    let reader = app.user_token("reader");
    let cases = [
        ("anon", None, "room", false),
        ("authenticated", Some(reader.clone()), "room", true),
        ("authenticated, another topic", Some(reader.clone()), "hall", false),
        ("service_role", Some(app.service_key.clone()), "hall", true),
    ];
    for (who, token, name, allowed) in cases {
        for vsn in BOTH {
            let mut client = Client::connect(&app, vsn).await;
            let mut payload = json!({"config": {"private": true}});
            if let Some(token) = &token {
                payload["access_token"] = json!(token);
            }
            let (_, reply) = client.join(&format!("realtime:{name}"), payload).await;
            if allowed {
                assert_eq!(reply.payload["status"], "ok", "{who} {vsn}: {reply:?}");
            } else {
                assert_eq!(
                    reply.payload,
                    json!({"status": "error", "response": {"reason": format!(
                        "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
                    )}}),
                    "{who} {vsn}"
                );
            }
        }
    }
}

#[tokio::test]
async fn on_a_private_channel_only_callers_an_insert_policy_lets_write_can_broadcast() {
    let app = spawn_app().await;
    private_rooms(&app).await;
    let mut listener = Client::connect(&app, "2.0.0").await;
    listener
        .join(
            "realtime:room",
            json!({"config": {"private": true}, "access_token": app.user_token("listener")}),
        )
        .await;
    // A public channel of the same name is another topic.
    let mut public = Client::connect(&app, "2.0.0").await;
    public.join("realtime:room", json!({"config": {}})).await;
    for (sub, delivered) in [("reader", false), ("writer", true)] {
        let mut sender = Client::connect(&app, "1.0.0").await;
        let (join_ref, reply) = sender
            .join("realtime:room", json!({"config": {"private": true, "broadcast": {"ack": true}}, "access_token": app.user_token(sub)}))
            .await;
        assert_eq!(reply.payload["status"], "ok");
        sender
            .push(
                Some(&join_ref),
                "realtime:room",
                "broadcast",
                json!({"type": "broadcast", "event": "e", "payload": {"from": sub}}),
            )
            .await;
        if delivered {
            let got = listener.until(|m| m.event == "broadcast").await;
            assert_eq!(got.payload["payload"]["from"], "writer");
        } else {
            // Realtime drops it without a reply.
            sender.quiet().await;
            listener.quiet().await;
        }
    }
    public.quiet().await;
}

#[tokio::test]
async fn an_expired_token_is_refused_at_the_join_and_closes_a_joined_channel_when_sent() {
    let app = spawn_app().await;
    let now = gateway::jwt::now();
    let expired = app.sign(json!({"sub": "u", "role": "authenticated", "exp": now - 100}));
    for vsn in BOTH {
        let mut client = Client::connect(&app, vsn).await;
        let (_, reply) = client.join("realtime:room", json!({"config": {}, "access_token": expired})).await;
        let why = reply.payload["response"]["reason"].as_str().unwrap_or_default().to_owned();
        assert_eq!(reply.payload["status"], "error");
        assert!(why.starts_with("InvalidJWTToken: Token has expired 10"), "{why}");

        let (join_ref, reply) =
            client.join("realtime:room", json!({"config": {}, "access_token": app.user_token("u")})).await;
        ok_reply(&reply);
        client.push(Some(&join_ref), "realtime:room", "access_token", json!({"access_token": expired})).await;
        let system = client.next().await;
        assert_eq!(system.event, "system", "{vsn}");
        assert_eq!(system.payload["extension"], "system");
        assert_eq!(system.payload["status"], "error");
        assert_eq!(system.payload["channel"], "room");
        assert!(
            system.payload["message"].as_str().unwrap().starts_with("Token has expired 10"),
            "{system:?}"
        );
        let close = client.next().await;
        assert_eq!(close.event, "phx_close");
        if vsn == "2.0.0" {
            assert_eq!(close.join_ref, json!(join_ref));
        }
        // The channel is gone.
        let reference = client.push(Some(&join_ref), "realtime:room", "broadcast", json!({})).await;
        assert_eq!(
            client.until(|m| m.reference == json!(reference)).await.payload["response"]["reason"],
            "unmatched topic"
        );
    }
}

#[tokio::test]
async fn a_token_that_expires_while_joined_closes_the_channel_at_its_exp() {
    let app = spawn_app().await;
    let soon = app.sign(json!({"sub": "u", "role": "authenticated", "exp": gateway::jwt::now() + 2}));
    let mut client = Client::connect(&app, "2.0.0").await;
    let (_, reply) = client.join("realtime:room", json!({"config": {}, "access_token": soon})).await;
    ok_reply(&reply);
    let system = client.next_within(Duration::from_secs(5)).await.expect("system");
    assert_eq!(system.payload["message"].as_str().map(|m| m.starts_with("Token has expired")), Some(true));
    assert_eq!(client.next().await.event, "phx_close");
}

#[tokio::test]
async fn a_new_token_on_a_private_channel_is_checked_again() {
    let app = spawn_app().await;
    private_rooms(&app).await;
    let mut client = Client::connect(&app, "2.0.0").await;
    let (join_ref, reply) = client
        .join("realtime:room", json!({"config": {"private": true}, "access_token": app.user_token("a")}))
        .await;
    ok_reply(&reply);
    // Still allowed: nothing is said.
    client
        .push(Some(&join_ref), "realtime:room", "access_token", json!({"access_token": app.user_token("b")}))
        .await;
    client.quiet().await;
    // The anon key can no longer read it.
    let anon = app.sign(json!({"role": "anon", "exp": gateway::jwt::now() + 60}));
    client.push(Some(&join_ref), "realtime:room", "access_token", json!({"access_token": anon})).await;
    let system = client.next().await;
    assert_eq!(
        system.payload["message"],
        "You no longer have permission to read from this Channel topic: room"
    );
    assert_eq!(client.next().await.event, "phx_close");
}

#[tokio::test]
async fn channels_per_socket_and_joins_per_second_are_limited() {
    let mut config = test_config();
    config.realtime.max_channels_per_client = 2;
    config.realtime.max_joins_per_second = 4;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "2.0.0").await;
    for n in 0..2 {
        ok_reply(&client.join(&format!("realtime:c{n}"), json!({})).await.1);
    }
    let (_, reply) = client.join("realtime:c2", json!({})).await;
    assert_eq!(reply.payload["response"]["reason"], "ChannelRateLimitReached: Too many channels");
    ok_reply(&client.join("realtime:c0", json!({})).await.1);
    let (_, reply) = client.join("realtime:c1", json!({})).await;
    assert_eq!(reply.payload["response"]["reason"], "ClientJoinRateLimitReached: Too many joins per second");
    // Then the socket is closed.
    assert!(client.next_within(Duration::from_secs(2)).await.is_none());
}

#[tokio::test]
async fn a_socket_over_its_events_per_second_has_the_channel_closed_as_realtime_does() {
    let mut config = test_config();
    config.realtime.max_events_per_second = 5;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "2.0.0").await;
    let (join_ref, _) = client.join("realtime:room", json!({"config": {"broadcast": {"self": true}}})).await;
    for n in 0..6 {
        let message = json!({"type": "broadcast", "event": "e", "payload": {"n": n}});
        client.push(Some(&join_ref), "realtime:room", "broadcast", message).await;
    }
    for n in 0..5 {
        assert_eq!(client.next().await.payload["payload"]["n"], n);
    }
    let system = client.next().await;
    assert_eq!(system.payload["message"], "Too many messages per second");
    assert_eq!(client.next().await.event, "phx_close");
}

#[tokio::test]
async fn a_frame_over_the_limit_closes_the_socket() {
    let mut config = test_config();
    config.realtime.max_frame_size = 1024;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "1.0.0").await;
    let (join_ref, _) = client.join("realtime:room", json!({})).await;
    client.push(Some(&join_ref), "realtime:room", "broadcast", json!({"payload": "x".repeat(2000)})).await;
    assert!(client.next_within(Duration::from_secs(2)).await.is_none());
}

#[tokio::test]
async fn a_client_that_does_not_read_is_disconnected_instead_of_buffered() {
    let mut config = test_config();
    config.realtime.max_queued_messages = 8;
    config.realtime.max_events_per_second = 10_000;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut slow = Client::connect(&app, "1.0.0").await;
    slow.join("realtime:room", json!({})).await;
    let mut sender = Client::connect(&app, "1.0.0").await;
    let (join_ref, _) = sender.join("realtime:room", json!({})).await;
    let big = "y".repeat(60_000);
    for _ in 0..400 {
        sender
            .push(
                Some(&join_ref),
                "realtime:room",
                "broadcast",
                json!({"type": "broadcast", "event": "e", "payload": big}),
            )
            .await;
    }
    // The slow socket is closed: reading it now ends before 400 messages.
    let mut read = 0;
    while slow.next_within(Duration::from_secs(2)).await.is_some() {
        read += 1;
    }
    assert!(read < 400, "read {read}");
    assert_eq!(sender.heartbeat().await.payload["status"], "ok", "the sender is unaffected");
}

#[tokio::test]
async fn the_rest_broadcast_reaches_joined_channels_and_answers_202() {
    let app = spawn_app().await;
    private_rooms(&app).await;
    let mut public = Client::connect(&app, "1.0.0").await;
    public.join("realtime:room", json!({})).await;
    let mut private = Client::connect(&app, "2.0.0").await;
    private
        .join("realtime:room", json!({"config": {"private": true}, "access_token": app.user_token("r")}))
        .await;
    let post = |token: String, body: Value| {
        app.client
            .post(format!("{}/realtime/v1/api/broadcast", app.address))
            .header("apikey", &app.anon_key)
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let message = |private: bool, n: u32| json!({"messages": [{"topic": "room", "event": "e", "payload": {"n": n}, "private": private}]});
    assert_eq!(post(app.anon_key.clone(), message(false, 1)).await.unwrap().status().as_u16(), 202);
    let got = public.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload, json!({"type": "broadcast", "event": "e", "payload": {"n": 1}}));
    // Private: sent only for a caller the INSERT policy lets write.
    assert_eq!(post(app.user_token("reader"), message(true, 2)).await.unwrap().status().as_u16(), 202);
    private.quiet().await;
    assert_eq!(post(app.user_token("writer"), message(true, 3)).await.unwrap().status().as_u16(), 202);
    assert_eq!(private.until(|m| m.event == "broadcast").await.payload["payload"]["n"], 3);
    public.quiet().await;
    let bad = post(app.anon_key.clone(), json!({"nope": 1})).await.unwrap();
    assert_eq!(bad.status().as_u16(), 422);
    assert!(bad.json::<Value>().await.unwrap()["message"].is_string());
}

#[tokio::test]
async fn no_api_prefix_falls_back_to_the_frontend() {
    let app = spawn_app().await;
    // Storage answers its client errors with 400 and the status in the body.
    let cases = [
        ("/rest/v1/a/b/c", 404, "code"),
        ("/auth/v1/nothing/here", 404, "error_code"),
        ("/storage/v1/nothing/here", 400, "statusCode"),
        ("/realtime/v1/nothing", 404, "message"),
        ("/realtime/v1", 404, "message"),
        ("/functions/v1/hello", 404, "message"),
        ("/functions/v1", 404, "message"),
        ("/graphql/v1", 404, "code"),
    ];
    for (path, status, field) in cases {
        let answer = app.get(path).header("apikey", &app.anon_key).send().await.expect("request");
        assert_eq!(answer.status().as_u16(), status, "{path}");
        let text = answer.text().await.expect("body");
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: not JSON: {text}"));
        assert!(body.get(field).is_some(), "{path}: {body}");
    }
}

#[tokio::test]
async fn a_socket_silent_for_the_idle_timeout_is_closed_going_away() {
    let mut config = test_config();
    config.realtime.idle_timeout = gateway::config::Span(Duration::from_millis(500));
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    let mut client = Client::connect(&app, "2.0.0").await;
    let start = std::time::Instant::now();
    let frame = tokio::time::timeout(Duration::from_secs(3), futures::StreamExt::next(&mut client.stream))
        .await
        .expect("closed in time");
    let Some(Ok(tokio_tungstenite::tungstenite::Message::Close(Some(close)))) = frame else {
        panic!("expected a close frame, got {frame:?}")
    };
    assert_eq!(u16::from(close.code), 1001);
    assert!(start.elapsed() >= Duration::from_millis(400));
}

#[tokio::test]
async fn the_single_message_broadcast_sends_json_and_binary_and_refuses_a_private_one_without_insert() {
    let app = spawn_app().await;
    private_rooms(&app).await;
    let mut modern = Client::connect(&app, "2.0.0").await;
    modern.join("realtime:room", json!({})).await;
    let mut legacy = Client::connect(&app, "1.0.0").await;
    legacy.join("realtime:room", json!({})).await;
    let post = |path: &str, token: String, content_type: &str, body: Vec<u8>| {
        app.client
            .post(format!("{}/realtime/v1/api/broadcast/{path}", app.address))
            .header("apikey", &app.anon_key)
            .header("content-type", content_type)
            .bearer_auth(token)
            .body(body)
            .send()
    };
    let answer = post("room/events/note", app.anon_key.clone(), "application/json", br#"{"n":1}"#.to_vec())
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 202);
    for client in [&mut modern, &mut legacy] {
        let got = client.until(|m| m.event == "broadcast").await;
        assert_eq!(got.payload, json!({"type": "broadcast", "event": "note", "payload": {"n": 1}}));
    }
    let answer = post("room/events/blob", app.anon_key.clone(), "application/octet-stream", vec![1, 2, 255])
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 202);
    let got = modern.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload["payload"], json!({"binary": [1, 2, 255]}));
    legacy.quiet().await;
    let refused =
        post("room/events/note?private=true", app.user_token("reader"), "application/json", b"{}".to_vec())
            .await
            .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    assert_eq!(refused.json::<Value>().await.unwrap(), json!({"message": "Unauthorized"}));
    let allowed =
        post("room/events/note?private=true", app.user_token("writer"), "application/json", b"{}".to_vec())
            .await
            .unwrap();
    assert_eq!(allowed.status().as_u16(), 202);
}

#[tokio::test]
async fn a_private_channel_member_without_presence_read_is_told_no_presences() {
    let app = spawn_app().await;
    app.admin()
        .await
        .batch_execute(
            "create policy read_quiet on realtime.messages for select to authenticated \
               using (realtime.topic() = 'quiet' and extension = 'broadcast');",
        )
        .await
        .expect("policy");
    let presence = json!({"key": "k", "enabled": true});
    let mut reader = Client::connect(&app, "2.0.0").await;
    let (_, reply) = reader
        .join(
            "realtime:quiet",
            json!({"config": {"private": true, "presence": presence}, "access_token": app.user_token("u")}),
        )
        .await;
    ok_reply(&reply);
    let mut admin = Client::connect(&app, "2.0.0").await;
    let (admin_ref, _) = admin
        .join(
            "realtime:quiet",
            json!({"config": {"private": true, "presence": presence}, "access_token": app.service_key}),
        )
        .await;
    assert_eq!(admin.until(|m| m.event == "presence_state").await.payload, json!({}));
    admin
        .push(
            Some(&admin_ref),
            "realtime:quiet",
            "presence",
            json!({"type": "presence", "event": "track", "payload": {}}),
        )
        .await;
    admin.until(|m| m.event == "presence_diff").await;
    reader.quiet().await;
}

#[tokio::test]
async fn a_change_arrives_as_postgres_changes_naming_the_binding_ids_of_the_join_reply() {
    let app = spawn_app().await;
    app.admin()
        .await
        .batch_execute(
            "create table public.notes (id bigint primary key, body text);
             grant select on public.notes to anon;
             alter publication supabase_realtime add table public.notes;",
        )
        .await
        .expect("fixture");
    for (n, vsn) in BOTH.into_iter().enumerate() {
        let mut client = Client::connect(&app, vsn).await;
        let bindings = json!([{"event": "INSERT", "schema": "public", "table": "notes"}]);
        let (_, reply) =
            client.join("realtime:notes", json!({"config": {"postgres_changes": bindings}})).await;
        let id = ok_reply(&reply)["postgres_changes"][0]["id"].clone();
        let system = client.until(|m| m.event == "system").await;
        assert_eq!(system.payload["status"], "ok", "{vsn}: {system:?}");
        assert_eq!(system.payload["message"], "Subscribed to PostgreSQL");
        app.admin()
            .await
            .execute("insert into public.notes values ($1, 'hola')", &[&(n as i64)])
            .await
            .expect("insert");
        let change = client.until(|m| m.event == "postgres_changes").await;
        assert_eq!(change.topic, "realtime:notes");
        assert_eq!(change.payload["ids"], json!([id]), "{vsn}");
        assert_eq!(change.payload["data"]["type"], "INSERT");
        assert_eq!(change.payload["data"]["record"]["body"], "hola");
    }
}
