//! Broadcast from the database (`sql/034_realtime_broadcast_from_database.sql`):
//! `realtime.send` and `realtime.broadcast_changes` reach the topic's
//! subscribers on every gateway, private messages only private channels.

mod common;
mod realtime_support;

use std::time::Duration;

use serde_json::json;

use common::{TestApp, spawn_app};
use realtime_support::{Client, beside};

/// Authenticated users may read the `room` topic; a trigger on `notes`
/// broadcasts each change to it.
async fn room_with_trigger(app: &TestApp) {
    app.admin()
        .await
        .batch_execute(
            "create policy read_room on realtime.messages for select to authenticated \
               using (realtime.topic() = 'room' and extension in ('broadcast', 'presence'));
             create table public.notes (id int primary key, body text);
             create function public.notes_changed() returns trigger language plpgsql as $$
             begin
               perform realtime.broadcast_changes('room', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
               return null;
             end $$;
             create trigger notes_changed after insert or update or delete on public.notes
               for each row execute function public.notes_changed();",
        )
        .await
        .expect("room");
}

async fn private_member(app: &TestApp, vsn: &str) -> Client {
    let mut client = Client::connect(app, vsn).await;
    client.heartbeat().await;
    client
        .join("realtime:room", json!({"config": {"private": true}, "access_token": app.user_token("reader")}))
        .await;
    client
}

#[tokio::test]
async fn a_trigger_using_broadcast_changes_reaches_private_members_on_every_gateway() {
    let first = spawn_app().await;
    room_with_trigger(&first).await;
    let second = beside(&first).await;
    let mut members = vec![
        private_member(&first, "1.0.0").await,
        private_member(&first, "2.0.0").await,
        private_member(&second, "1.0.0").await,
        private_member(&second, "2.0.0").await,
    ];
    let mut public = Client::connect(&first, "1.0.0").await;
    public.join("realtime:room", json!({})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let admin = first.admin().await;
    admin.batch_execute("insert into public.notes values (1, 'hello')").await.unwrap();
    admin.batch_execute("update public.notes set body = 'again' where id = 1").await.unwrap();
    let cases = [
        ("INSERT", json!({"id": 1, "body": "hello"}), json!(null)),
        ("UPDATE", json!({"id": 1, "body": "again"}), json!({"id": 1, "body": "hello"})),
    ];
    for member in &mut members {
        for (operation, record, old_record) in &cases {
            let got = member.until(|m| m.event == "broadcast").await;
            assert_eq!(got.payload["type"], "broadcast");
            assert_eq!(got.payload["event"], *operation);
            assert_eq!(
                got.payload["payload"],
                json!({"operation": operation, "table": "notes", "schema": "public",
                       "record": record, "old_record": old_record}),
            );
            assert!(got.payload["meta"]["id"].is_string(), "{}", got.payload);
        }
        member.quiet().await;
    }
    // A private message is not for the public channel of the same name.
    public.quiet().await;
}

#[tokio::test]
async fn realtime_send_reaches_a_public_channel_with_a_payload_over_notify_s_limit() {
    let app = spawn_app().await;
    let mut client = Client::connect(&app, "2.0.0").await;
    client.heartbeat().await;
    client.join("realtime:lobby", json!({})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let big = "z".repeat(20_000);
    app.admin()
        .await
        .execute("select realtime.send(jsonb_build_object('big', $1::text), 'e', 'lobby', false)", &[&big])
        .await
        .unwrap();
    let got = client.until(|m| m.event == "broadcast").await;
    assert_eq!(got.payload["event"], "e");
    assert_eq!(got.payload["payload"]["big"].as_str().map(str::len), Some(20_000));
    client.quiet().await;
}

#[tokio::test]
async fn a_rolled_back_send_reaches_nobody() {
    let app = spawn_app().await;
    let mut client = Client::connect(&app, "1.0.0").await;
    client.heartbeat().await;
    client.join("realtime:lobby", json!({})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.admin()
        .await
        .batch_execute("begin; select realtime.send('{\"n\": 1}', 'e', 'lobby', false); rollback;")
        .await
        .unwrap();
    client.quiet().await;
}

/// `realtime.messages` is partitioned by day as Realtime's: the bus keeps
/// three days back and three ahead, moves the rows the default partition
/// took into their day when it makes it, and drops what is older.
#[tokio::test]
async fn messages_are_kept_in_daily_partitions_for_three_days() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let day = |offset: i32| format!("to_char(current_date + {offset}, 'YYYY_MM_DD')");
    let partitions = || async {
        let rows = admin
            .query(
                "select c.relname::text from pg_inherits i join pg_class c on c.oid = i.inhrelid \
                 where i.inhparent = 'realtime.messages'::regclass order by 1",
                &[],
            )
            .await
            .expect("partitions");
        rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>()
    };
    let days: Vec<String> = (-3..=3).map(|offset| format!("'messages_' || {}", day(offset))).collect();
    let names = format!("select array['messages_default', {}]", days.join(", "));
    let mut expected: Vec<String> = admin.query_one(&names, &[]).await.expect("names").get(0);
    expected.sort();
    // The migration made them; kept again here, in case the day changed
    // since the test's database was made.
    admin.batch_execute("select realtime.gateway_maintain_messages()").await.expect("maintain");
    assert_eq!(partitions().await, expected, "made by the migration");

    // A day without its partition: its row falls into the default one.
    // A stale day: its partition, and the default partition's old rows.
    admin
        .batch_execute(&format!(
            "do $$ begin
               execute format('drop table realtime.%I', 'messages_' || {ahead});
               execute format('create table realtime.%I partition of realtime.messages for values from (%L) to (%L)',
                              'messages_' || {stale}, current_date - 5, current_date - 4);
             end $$;
             insert into realtime.messages (topic, extension, inserted_at)
               values ('ahead', 'broadcast', current_date + 3), ('stale', 'broadcast', current_date - 5),
                      ('older', 'broadcast', current_date - 9);",
            ahead = day(3),
            stale = day(-5),
        ))
        .await
        .expect("set up");
    let topics_in_default = || async {
        let rows =
            admin.query("select topic from realtime.messages_default order by 1", &[]).await.expect("rows");
        rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>()
    };
    assert_eq!(topics_in_default().await, ["ahead", "older"]);

    admin.batch_execute("select realtime.gateway_maintain_messages()").await.expect("maintain");
    assert_eq!(partitions().await, expected, "the day ahead made, the stale day dropped");
    assert!(topics_in_default().await.is_empty(), "the day's row moved, the older one deleted");
    let kept: Vec<String> = admin
        .query("select topic from realtime.messages order by 1", &[])
        .await
        .expect("rows")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(kept, ["ahead"]);
}

/// `config.broadcast.replay`, as Realtime's: the last `limit` private
/// broadcasts since `since` come first, oldest first, marked `replayed`;
/// then live ones. Public channels and bad parameters are refused.
#[tokio::test]
async fn a_private_join_replays_the_last_messages_since_a_time_before_live_ones() {
    let app = spawn_app().await;
    room_with_trigger(&app).await;
    let admin = app.admin().await;
    let since: i64 = admin
        .query_one("select (extract(epoch from now()) * 1000)::int8 - 1000", &[])
        .await
        .expect("now")
        .get(0);
    for n in 1..=3 {
        admin
            .execute("select realtime.send(jsonb_build_object('n', $1::int), 'note', 'room', true)", &[&n])
            .await
            .expect("send");
    }
    admin.batch_execute("select realtime.send('{\"n\": 0}', 'note', 'room', false)").await.expect("public");

    // The last message sent so far; each client's live one is the next
    // client's last.
    let mut last = 3;
    for vsn in ["1.0.0", "2.0.0"] {
        let mut client = Client::connect(&app, vsn).await;
        client.heartbeat().await;
        let config = json!({"private": true, "broadcast": {"replay": {"since": since, "limit": 2}}});
        let (_, reply) = client
            .join("realtime:room", json!({"config": config, "access_token": app.user_token("reader")}))
            .await;
        assert_eq!(reply.payload["status"], "ok", "{vsn}: {}", reply.payload);
        for n in [last - 1, last] {
            let got = client.until(|m| m.event == "broadcast").await;
            assert_eq!(got.payload["payload"], json!({"n": n}), "{vsn}");
            assert_eq!(got.payload["event"], "note");
            assert_eq!(got.payload["meta"]["replayed"], true);
            assert!(got.payload["meta"]["id"].is_string());
        }
        last += 1;
        admin
            .execute("select realtime.send(jsonb_build_object('n', $1::int), 'note', 'room', true)", &[&last])
            .await
            .expect("live");
        let live = client.until(|m| m.event == "broadcast").await;
        assert_eq!(live.payload["payload"], json!({"n": last}), "{vsn}");
        assert!(live.payload["meta"].get("replayed").is_none(), "{}", live.payload);
        client.quiet().await;
    }

    let refusals = [
        (
            json!({"broadcast": {"replay": {"since": 0}}}),
            "UnableToReplayMessages: Replay is not allowed for public channels",
        ),
        (
            json!({"private": true, "broadcast": {"replay": {"since": "yesterday"}}}),
            "UnableToReplayMessages: Replay params are not valid",
        ),
    ];
    for (config, reason) in refusals {
        let mut client = Client::connect(&app, "1.0.0").await;
        let (_, reply) = client
            .join("realtime:room", json!({"config": config, "access_token": app.user_token("reader")}))
            .await;
        assert_eq!(reply.payload["status"], "error", "{config}");
        assert_eq!(reply.payload["response"]["reason"], reason, "{config}");
    }
}

#[tokio::test]
async fn a_caller_no_select_policy_lets_read_is_refused_the_private_topic_and_sent_nothing() {
    let app = spawn_app().await;
    room_with_trigger(&app).await;
    for vsn in ["1.0.0", "2.0.0"] {
        let mut anonymous = Client::connect(&app, vsn).await;
        anonymous.heartbeat().await;
        let (_, reply) = anonymous.join("realtime:room", json!({"config": {"private": true}})).await;
        assert_eq!(reply.payload["status"], "error", "{vsn}: {}", reply.payload);
        assert_eq!(
            reply.payload["response"]["reason"],
            "Unauthorized: You do not have permissions to read from this Channel topic: room",
        );
        app.admin().await.execute("select realtime.send('{}', 'e', 'room')", &[]).await.unwrap();
        anonymous.quiet().await;
    }
}
