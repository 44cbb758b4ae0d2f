//! Realtime's `postgres_changes` feed driven directly through a gateway's
//! state (`gateway::realtime::changes`): what arrives, for whom, from how
//! many gateways, and what happens when the reader goes away.

mod common;

use std::time::Duration;

use common::{TestApp, spawn_app_with};
use gateway::jwt::Claims;
use gateway::realtime::changes::{Binding, QUEUE, Subscription};
use gateway::realtime::config::ChangeFeed;
use gateway::role::Role;
use serde_json::{Map, Value, json};

const STAFF_A: &str = "00000000-0000-0000-0000-0000000000a1";
const STAFF_B: &str = "00000000-0000-0000-0000-0000000000b1";

/// A gateway whose database publishes `public.notes` (no RLS, replica
/// identity full), the shop's products (RLS, replica identity full here;
/// `sql/102_shop_realtime.sql` publishes them) and
/// companies (RLS: each staff member reads their own), with two companies
/// and one staff member in each.
async fn feed() -> TestApp {
    feed_with(common::Options::default()).await
}

async fn feed_with(options: common::Options) -> TestApp {
    let app = spawn_app_with(options).await;
    app.admin()
        .await
        .batch_execute(&format!(
            "create table public.notes (id bigint primary key, body text, tags text[], meta jsonb, \
               done boolean, score numeric, at timestamptz default '2026-11-25 12:00:00+00');
             alter table public.notes replica identity full;
             grant select, insert, update, delete on public.notes to anon, authenticated;
             create table public.hidden (id bigint primary key);
             alter table public.products replica identity full;
             alter publication supabase_realtime add table public.notes, public.companies;
             insert into auth.users (id, email) values ('{STAFF_A}', 'a@example.com'), ('{STAFF_B}', 'b@example.com');
             insert into public.companies (id, name) values (1, 'A'), (2, 'B');
             insert into public.profiles (user_id, company_id) values ('{STAFF_A}', 1), ('{STAFF_B}', 2);"
        ))
        .await
        .expect("fixture");
    app
}

fn claims(role: Role, sub: Option<&str>) -> Claims {
    let mut claims = Map::new();
    claims.insert("role".into(), json!(role.as_str()));
    if let Some(sub) = sub {
        claims.insert("sub".into(), json!(sub));
    }
    Claims::new(role, claims)
}

fn anon() -> Claims {
    claims(Role::Anon, None)
}

fn staff(sub: &str) -> Claims {
    claims(Role::Authenticated, Some(sub))
}

fn binding(id: u32, event: &str, table: Option<&str>, filter: Option<&str>) -> Binding {
    Binding {
        id,
        event: event.into(),
        schema: "public".into(),
        table: table.map(Into::into),
        filter: filter.map(Into::into),
        select: None,
    }
}

async fn subscribe(app: &TestApp, bindings: Vec<Binding>, who: Claims) -> Subscription {
    app.state.realtime.changes.subscribe(bindings, who).await.expect("subscribed")
}

async fn run(app: &TestApp, sql: &str) {
    app.admin().await.batch_execute(sql).await.expect(sql);
}

/// The next change, within 10 s.
async fn next(subscription: &mut Subscription) -> Value {
    let text = tokio::time::timeout(Duration::from_secs(10), subscription.recv())
        .await
        .expect("a change within 10 s")
        .expect("the subscription is still served");
    serde_json::from_str(&text).expect("the payload is JSON")
}

/// Asserts that no change arrives within a second (after the ones awaited).
async fn nothing_more(subscription: &mut Subscription) {
    if let Ok(Some(change)) = tokio::time::timeout(Duration::from_secs(1), subscription.recv()).await {
        panic!("an unexpected change arrived: {change}");
    }
}

#[tokio::test]
async fn inserts_updates_and_deletes_arrive_as_realtime_sends_them() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(7, "*", Some("notes"), None)], anon()).await;

    run(
        &app,
        "insert into public.notes (id, body, tags, meta, done, score) \
         values (1, 'hola', '{a,b}', '{\"k\": [1]}', true, 10.5);
         update public.notes set body = 'chau' where id = 1;
         delete from public.notes where id = 1;",
    )
    .await;

    let insert = next(&mut changes).await;
    assert_eq!(insert["ids"], json!([7]));
    let data = &insert["data"];
    assert_eq!((data["schema"].as_str(), data["table"].as_str()), (Some("public"), Some("notes")));
    assert_eq!(data["type"], "INSERT");
    assert_eq!(data["errors"], Value::Null);
    assert_eq!(
        data["columns"],
        json!([
            {"name": "id", "type": "int8"}, {"name": "body", "type": "text"},
            {"name": "tags", "type": "_text"}, {"name": "meta", "type": "jsonb"},
            {"name": "done", "type": "bool"}, {"name": "score", "type": "numeric"},
            {"name": "at", "type": "timestamptz"},
        ])
    );
    assert_eq!(
        data["record"],
        json!({"id": 1, "body": "hola", "tags": ["a", "b"], "meta": {"k": [1]}, "done": true, "score": 10.5,
               "at": "2026-11-25T12:00:00+00:00"})
    );
    assert!(data.get("old_record").is_none(), "an insert has no old record: {data}");
    let stamp = data["commit_timestamp"].as_str().expect("commit_timestamp");
    assert!(
        stamp.len() == 24
            && stamp.ends_with('Z')
            && stamp.as_bytes()[10] == b'T'
            && stamp.as_bytes()[19] == b'.',
        "{stamp}"
    );

    let update = next(&mut changes).await;
    assert_eq!(update["data"]["type"], "UPDATE");
    assert_eq!(update["data"]["record"]["body"], "chau");
    assert_eq!(update["data"]["old_record"]["body"], "hola", "replica identity full keeps the old row");

    let delete = next(&mut changes).await;
    assert_eq!(delete["data"]["type"], "DELETE");
    assert!(delete["data"].get("record").is_none());
    assert_eq!(delete["data"]["old_record"]["body"], "chau");
    nothing_more(&mut changes).await;
}

#[tokio::test]
async fn filters_and_events_pick_the_changes_their_bindings_name() {
    let app = feed().await;
    // (binding, the ids of the notes whose inserts it gets)
    let cases: Vec<(Binding, Vec<i64>)> = vec![
        (binding(1, "INSERT", Some("notes"), Some("id=eq.2")), vec![2]),
        (binding(1, "INSERT", Some("notes"), Some("id=neq.2")), vec![1, 3]),
        (binding(1, "INSERT", Some("notes"), Some("id=lt.2")), vec![1]),
        (binding(1, "INSERT", Some("notes"), Some("id=lte.2")), vec![1, 2]),
        (binding(1, "INSERT", Some("notes"), Some("id=gt.2")), vec![3]),
        (binding(1, "INSERT", Some("notes"), Some("id=gte.2")), vec![2, 3]),
        (binding(1, "INSERT", Some("notes"), Some("id=in.(1,3)")), vec![1, 3]),
        (binding(1, "INSERT", Some("notes"), Some("body=eq.two")), vec![2]),
        (binding(1, "*", None, None), vec![1, 2, 3]),
        (binding(1, "UPDATE", Some("notes"), None), vec![]),
    ];
    let mut subscriptions = Vec::new();
    for (binding, _) in &cases {
        subscriptions.push(subscribe(&app, vec![binding.clone()], anon()).await);
    }
    run(&app, "insert into public.notes (id, body) values (1, 'one'), (2, 'two'), (3, 'three')").await;
    // A marker every subscription of the table gets last.
    run(&app, "insert into public.notes (id, body) values (99, 'end')").await;

    for ((binding, expected), subscription) in cases.iter().zip(&mut subscriptions) {
        let mut seen = Vec::new();
        if binding.event == "UPDATE" {
            nothing_more(subscription).await;
            continue;
        }
        loop {
            let change = next(subscription).await;
            let id = change["data"]["record"]["id"].as_i64().expect("id");
            if id == 99 {
                break;
            }
            seen.push(id);
            if seen.len() == expected.len() && binding.filter.is_some() {
                break;
            }
        }
        assert_eq!(&seen, expected, "{binding:?}");
    }
}

#[tokio::test]
async fn a_change_two_bindings_match_arrives_once_naming_both() {
    let app = feed().await;
    let mut changes = subscribe(
        &app,
        vec![
            binding(10, "INSERT", Some("notes"), None),
            binding(11, "*", Some("notes"), Some("id=eq.5")),
            binding(12, "DELETE", Some("notes"), None),
        ],
        anon(),
    )
    .await;
    run(&app, "insert into public.notes (id) values (5)").await;
    assert_eq!(next(&mut changes).await["ids"], json!([10, 11]));
    nothing_more(&mut changes).await;
}

#[tokio::test]
async fn anon_never_sees_an_inactive_product_and_staff_sees_every_product() {
    let app = feed().await;
    let products = || vec![binding(1, "*", Some("products"), None)];
    let mut visitor = subscribe(&app, products(), anon()).await;
    let mut member = subscribe(&app, products(), staff(STAFF_A)).await;

    run(
        &app,
        "insert into public.products (id, name, category, status) values (1, 'hidden', 'cables', false);
         insert into public.products (id, name, category) values (2, 'shown', 'cables');
         update public.products set name = 'still hidden' where id = 1;",
    )
    .await;

    let seen = next(&mut visitor).await;
    assert_eq!(
        (seen["data"]["type"].as_str(), seen["data"]["record"]["id"].as_i64()),
        (Some("INSERT"), Some(2))
    );
    nothing_more(&mut visitor).await;
    let kinds: Vec<(String, i64)> =
        [next(&mut member).await, next(&mut member).await, next(&mut member).await]
            .iter()
            .map(|c| {
                (
                    c["data"]["type"].as_str().unwrap_or_default().to_owned(),
                    c["data"]["record"]["id"].as_i64().unwrap_or(0),
                )
            })
            .collect();
    assert_eq!(kinds, [("INSERT".into(), 1), ("INSERT".into(), 2), ("UPDATE".into(), 1)]);
}

#[tokio::test]
async fn a_deleted_row_under_rls_carries_only_its_primary_key() {
    let app = feed().await;
    run(&app, "insert into public.products (id, name, category) values (3, 'gone', 'cables')").await;
    let mut changes = subscribe(&app, vec![binding(1, "*", Some("products"), None)], anon()).await;
    run(&app, "update public.products set name = 'going' where id = 3").await;
    // An update's old row goes whole under replica identity full, RLS or not.
    let update = next(&mut changes).await;
    assert_eq!(update["data"]["old_record"]["id"], 3);
    assert_eq!(update["data"]["old_record"]["name"], "gone");
    assert_eq!(update["data"]["old_record"]["category"], "cables");

    // Checked when the feed reads it, the row is gone: still everyone
    // subscribed to the table is told, with nothing but its key.
    run(&app, "delete from public.products where id = 3").await;
    let delete = next(&mut changes).await;
    assert_eq!(delete["data"]["type"], "DELETE");
    assert_eq!(delete["data"]["old_record"], json!({"id": 3}));
}

#[tokio::test]
async fn staff_see_changes_of_their_own_company_and_not_of_another() {
    let app = feed().await;
    let companies = || vec![binding(1, "UPDATE", Some("companies"), None)];
    let mut a = subscribe(&app, companies(), staff(STAFF_A)).await;
    let mut b = subscribe(&app, companies(), staff(STAFF_B)).await;
    let mut visitor = subscribe(&app, companies(), anon()).await;

    run(&app, "update public.companies set phone = '555' where id = 1").await;
    run(&app, "update public.companies set phone = '777' where id = 2").await;

    assert_eq!(next(&mut a).await["data"]["record"]["id"], 1);
    assert_eq!(next(&mut b).await["data"]["record"]["id"], 2);
    nothing_more(&mut a).await;
    nothing_more(&mut b).await;
    nothing_more(&mut visitor).await;
}

#[tokio::test]
async fn after_new_claims_changes_are_checked_as_the_new_caller() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(1, "INSERT", Some("products"), None)], anon()).await;
    run(&app, "insert into public.products (id, name, category, status) values (1, 'a', 'cables', false)")
        .await;
    nothing_more(&mut changes).await;

    changes.set_claims(staff(STAFF_A));
    run(&app, "insert into public.products (id, name, category, status) values (2, 'b', 'cables', false)")
        .await;
    assert_eq!(next(&mut changes).await["data"]["record"]["id"], 2);

    changes.set_claims(anon());
    run(&app, "insert into public.products (id, name, category, status) values (3, 'c', 'cables', false)")
        .await;
    run(&app, "insert into public.products (id, name, category) values (4, 'd', 'cables')").await;
    assert_eq!(next(&mut changes).await["data"]["record"]["id"], 4);
}

#[tokio::test]
async fn bindings_the_feed_cannot_serve_are_refused_with_realtimes_reason() {
    let app = feed().await;
    let cases = [
        binding(1, "*", Some("no_such_table"), None),
        binding(1, "*", Some("hidden"), None),
        binding(1, "*", None, Some("id=eq.3")),
    ];
    for case in cases {
        let Err(reason) = app.state.realtime.changes.subscribe(vec![case.clone()], anon()).await else {
            panic!("{case:?} was accepted");
        };
        assert!(
            reason.starts_with(
                "Unable to subscribe to changes with given parameters. Please check Realtime is enabled"
            ),
            "{case:?}: {reason}"
        );
    }
    assert_eq!(app.state.realtime.changes.subscriptions(), 0);
}

/// A second gateway over the first one's database; without the schema
/// owner's login its reader can only poll.
async fn second_gateway(first: &TestApp) -> TestApp {
    second_gateway_with(first, false).await
}

async fn second_gateway_with(first: &TestApp, owner: bool) -> TestApp {
    second_gateway_as(first, owner.then(|| login(first, gateway::embedded::SUPERUSER))).await
}

/// A login to the first gateway's database on the test cluster.
fn login(first: &TestApp, role: &str) -> tokio_postgres::Config {
    let mut config = common::cluster().cluster.pg_config(role);
    config.dbname(&first.database);
    config
}

async fn second_gateway_as(first: &TestApp, owner: Option<tokio_postgres::Config>) -> TestApp {
    let options = common::Options { api: Some(login(first, "authenticator")), owner, ..Default::default() };
    let mut other = spawn_app_with(options).await;
    other.database = first.database.clone();
    other
}

/// Replication connections the change reader holds open on the database.
async fn streaming_readers(app: &TestApp) -> i64 {
    app.admin()
        .await
        .query_one(
            "select count(*) from pg_stat_replication r join pg_replication_slots s on s.active_pid = r.pid \
             where s.database = current_database() and r.application_name = 'gateway realtime'",
            &[],
        )
        .await
        .expect("pg_stat_replication")
        .get(0)
}

#[tokio::test]
async fn both_ways_of_reading_the_slot_deliver_every_change_in_commit_order() {
    let cases = [(ChangeFeed::Stream, 1), (ChangeFeed::Poll, 0)];
    for (feed, replication_connections) in cases {
        let mut config = common::test_config();
        config.realtime.change_feed = feed;
        let app = feed_with(common::Options { config, ..Default::default() }).await;
        let mut changes = subscribe(&app, vec![binding(1, "*", Some("notes"), None)], anon()).await;

        run(&app, "insert into public.notes (id) values (1)").await;
        run(&app, "insert into public.notes (id) select generate_series(2, 40)").await;
        run(&app, "begin; update public.notes set body = 'x' where id = 1; delete from public.notes where id = 2; commit").await;

        let mut seen = Vec::new();
        for _ in 0..42 {
            let change = next(&mut changes).await;
            let data = &change["data"];
            let id = data["record"]["id"].as_i64().or(data["old_record"]["id"].as_i64()).expect("id");
            seen.push((data["type"].as_str().expect("type").to_owned(), id));
        }
        let mut expected: Vec<(String, i64)> = (1..=40).map(|id| ("INSERT".to_owned(), id)).collect();
        expected.extend([("UPDATE".to_owned(), 1), ("DELETE".to_owned(), 2)]);
        assert_eq!(seen, expected, "{feed:?}");
        nothing_more(&mut changes).await;
        assert_eq!(streaming_readers(&app).await, replication_connections, "{feed:?}");
    }
}

#[tokio::test]
async fn the_streamed_slot_moves_past_published_changes_and_unpublished_writes() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(1, "INSERT", Some("notes"), None)], anon()).await;
    run(&app, "insert into public.notes (id) values (1)").await;
    assert_eq!(next(&mut changes).await["data"]["record"]["id"], 1);
    assert_eq!(streaming_readers(&app).await, 1);

    // Writes to a table outside the publication, then the WAL's end.
    run(&app, "insert into public.hidden (id) select generate_series(1, 1000)").await;
    let admin = app.admin().await;
    let written: String =
        admin.query_one("select pg_current_wal_lsn()::text", &[]).await.expect("lsn").get(0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let behind: bool = admin
            .query_one(
                "select confirmed_flush_lsn < $1::text::pg_lsn from pg_replication_slots \
                 where database = current_database()",
                &[&written],
            )
            .await
            .expect("slot")
            .get(0);
        if !behind {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the slot stayed behind {written}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    nothing_more(&mut changes).await;
}

#[tokio::test]
async fn two_gateways_on_one_database_each_deliver_every_change_once() {
    let first = feed().await;
    let second = second_gateway(&first).await;
    let notes = || vec![binding(1, "INSERT", Some("notes"), None)];
    let mut on_first = subscribe(&first, notes(), anon()).await;
    let mut on_second = subscribe(&second, notes(), anon()).await;

    run(&first, "insert into public.notes (id) select generate_series(1, 20)").await;

    for subscription in [&mut on_first, &mut on_second] {
        let mut ids = Vec::new();
        for _ in 0..20 {
            ids.push(next(subscription).await["data"]["record"]["id"].as_i64().expect("id"));
        }
        assert_eq!(ids, (1..=20).collect::<Vec<_>>());
        nothing_more(subscription).await;
    }
}

#[tokio::test]
async fn the_reader_moves_to_another_gateway_without_losing_a_change_or_leaving_a_slot() {
    // The successor streams the slot as the first did, or can only poll it.
    for successor_streams in [true, false] {
        the_reader_moves_to(successor_streams).await;
    }
}

async fn the_reader_moves_to(successor_streams: bool) {
    let first = feed().await;
    let notes = || vec![binding(1, "INSERT", Some("notes"), None)];
    let mut on_first = subscribe(&first, notes(), anon()).await;
    run(&first, "insert into public.notes (id) values (1)").await;
    // The first gateway reads: its subscriber got the change.
    assert_eq!(next(&mut on_first).await["data"]["record"]["id"], 1);
    let second = second_gateway_with(&first, successor_streams).await;
    let mut on_second = subscribe(&second, notes(), anon()).await;

    // The reader's gateway stops; changes committed right then still arrive.
    first.state.realtime.changes.stop();
    assert!(next_or_none(&mut on_first).await.is_none(), "the stopped gateway's subscription ends");
    run(&first, "insert into public.notes (id) select generate_series(2, 11)").await;

    let mut ids = Vec::new();
    for _ in 2..=11 {
        ids.push(next(&mut on_second).await["data"]["record"]["id"].as_i64().expect("id"));
    }
    assert_eq!(ids, (2..=11).collect::<Vec<_>>());
    nothing_more(&mut on_second).await;
    assert_eq!(streaming_readers(&second).await, i64::from(successor_streams));
    let slots: i64 = first
        .admin()
        .await
        .query_one("select count(*) from pg_replication_slots where database = current_database()", &[])
        .await
        .expect("slots")
        .get(0);
    assert_eq!(slots, 1, "one slot for the database, whichever gateway reads it");
}

/// The process that streams the database's slot, once one does.
async fn slot_reader(app: &TestApp) -> i32 {
    let admin = app.admin().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let pid: Option<i32> = admin
            .query_one("select active_pid from pg_replication_slots where database = current_database()", &[])
            .await
            .expect("slot")
            .get(0);
        if let Some(pid) = pid {
            return pid;
        }
        assert!(tokio::time::Instant::now() < deadline, "nobody streams the slot");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_transaction_larger_than_decoding_memory_streams_while_it_runs_and_arrives_whole_at_commit() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(1, "INSERT", Some("notes"), None)], anon()).await;
    // The server streams what outgrows this; a sender reads it as it starts,
    // so the reader's connection is ended and made again.
    run(&app, &format!("alter database \"{}\" set logical_decoding_work_mem = '64kB'", app.database)).await;
    let before = slot_reader(&app).await;
    run(&app, &format!("select pg_terminate_backend({before})")).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while slot_reader(&app).await == before {
        assert!(tokio::time::Instant::now() < deadline, "the reader did not connect again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let rows = |from: i32, to: i32| {
        format!(
            "insert into public.notes (id, body) select g, repeat('x', 200) from generate_series({from}, {to}) g;"
        )
    };
    // Streamed, then rolled back whole: nothing of it arrives.
    run(&app, &format!("begin; {} rollback;", rows(1, 400))).await;
    // Streamed with a subtransaction that rolls back: the rest arrives.
    run(
        &app,
        &format!(
            "begin; {} savepoint s; {} rollback to savepoint s; {} commit;",
            rows(1, 400),
            rows(1001, 1400),
            rows(401, 600)
        ),
    )
    .await;

    let mut ids = Vec::new();
    for _ in 1..=600 {
        ids.push(next(&mut changes).await["data"]["record"]["id"].as_i64().expect("id"));
    }
    assert_eq!(ids, (1..=600).collect::<Vec<_>>());
    nothing_more(&mut changes).await;
    let admin = app.admin().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let streamed: i64 = admin
            .query_one(
                "select coalesce(sum(stream_txns), 0)::bigint from pg_stat_replication_slots \
                 where slot_name in (select slot_name from pg_replication_slots where database = current_database())",
                &[],
            )
            .await
            .expect("slot statistics")
            .get(0);
        if streamed >= 2 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the server streamed {streamed} transactions, not 2");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_schema_owner_that_logs_in_with_a_password_streams_the_slot() {
    // Each login method the server may ask of the replication connection,
    // for a role of its own: the other tests' logins are trusted.
    let cases = [
        ("gateway_scram_owner", "scram-sha-256"),
        ("gateway_md5_owner", "md5"),
        ("gateway_password_owner", "password"),
    ];
    let cluster = &common::cluster().cluster;
    let hba = cluster.pgdata().join("pg_hba.conf");
    let lines = std::fs::read_to_string(&hba).expect("pg_hba.conf");
    let mut ours = String::new();
    for (role, method) in cases {
        ours.push_str(&format!("local all {role} {method}\nlocal replication {role} {method}\n"));
    }
    if !lines.starts_with(&ours) {
        std::fs::write(&hba, format!("{ours}{lines}")).expect("pg_hba.conf written");
    }
    for (role, method) in cases {
        let first = feed().await;
        let encryption = if method == "md5" { "md5" } else { "scram-sha-256" };
        run(
            &first,
            &format!(
                "set password_encryption = '{encryption}';
                 do $$ begin
                   if not exists (select from pg_roles where rolname = '{role}') then
                     create role {role} login superuser replication;
                   end if;
                 end $$;
                 alter role {role} password 'the {method} password';
                 select pg_reload_conf();"
            ),
        )
        .await;
        let notes = || vec![binding(1, "INSERT", Some("notes"), None)];
        first.state.realtime.changes.stop();
        let mut owner = login(&first, role);
        owner.password(format!("the {method} password"));
        let second = second_gateway_as(&first, Some(owner)).await;
        let mut changes = subscribe(&second, notes(), anon()).await;
        run(&first, "insert into public.notes (id) values (1)").await;

        assert_eq!(next(&mut changes).await["data"]["record"]["id"], 1, "{method}");
        let streaming: i64 = first
            .admin()
            .await
            .query_one("select count(*) from pg_stat_replication where usename = $1", &[&role])
            .await
            .expect("pg_stat_replication")
            .get(0);
        assert_eq!(streaming, 1, "{method}: the reader streams as {role}");
    }
}

async fn next_or_none(subscription: &mut Subscription) -> Option<Value> {
    let text = tokio::time::timeout(Duration::from_secs(5), subscription.recv())
        .await
        .expect("an answer within 5 s");
    text.map(|text| serde_json::from_str(&text).expect("the payload is JSON"))
}

#[tokio::test]
async fn a_subscriber_that_falls_too_far_behind_is_dropped() {
    let app = feed().await;
    let mut slow = subscribe(&app, vec![binding(1, "INSERT", Some("notes"), None)], anon()).await;
    let mut quick = subscribe(&app, vec![binding(1, "INSERT", Some("notes"), Some("id=eq.1"))], anon()).await;

    run(&app, &format!("insert into public.notes (id) select generate_series(1, {})", QUEUE + 10)).await;

    assert_eq!(next(&mut quick).await["data"]["record"]["id"], 1);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.state.realtime.changes.subscriptions() > 1 {
        assert!(tokio::time::Instant::now() < deadline, "the slow subscriber was not dropped");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(slow.recv().await.is_none(), "a dropped subscription ends");
}

/// A server an older gateway left running, started without logical
/// decoding, as every gateway before the change feed started it.
fn start_without_logical_decoding(cluster: &gateway::embedded::Cluster) {
    use std::os::unix::process::CommandExt;
    let config = cluster.pg_config(gateway::embedded::SUPERUSER);
    let socket_dir = match config.get_hosts() {
        [tokio_postgres::config::Host::Unix(dir)] => dir.clone(),
        other => panic!("the cluster listens on {other:?}"),
    };
    let mut command = std::process::Command::new(cluster.bindir().join("postgres"));
    command
        .arg("-D")
        .arg(cluster.pgdata())
        .arg("-k")
        .arg(&socket_dir)
        .args(["-c", "listen_addresses=", "-c", "wal_level=replica", "-p", "5432"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    if let Some(owner) = cluster.owner() {
        command.uid(owner.uid).gid(owner.gid);
    }
    let mut server = command.spawn().expect("postgres");
    std::thread::spawn(move || server.wait());
}

async fn wal_level(config: &tokio_postgres::Config) -> String {
    common::connect(config).await.query_one("show wal_level", &[]).await.expect("wal_level").get(0)
}

#[tokio::test]
async fn a_server_left_running_without_logical_decoding_is_restarted_with_it() {
    let private = common::start_private_cluster("replica");
    private.cluster.stop().expect("stop");
    start_without_logical_decoding(&private.cluster);
    let superuser = private.cluster.pg_config(gateway::embedded::SUPERUSER);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while superuser.connect(tokio_postgres::NoTls).await.is_err() {
        assert!(tokio::time::Instant::now() < deadline, "the replica server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(wal_level(&superuser).await, "replica");

    let mut config = common::test_config();
    config.data_dir = private.dir.clone();
    let database = gateway::startup::open_database(&config).await.expect("open the database");

    assert_eq!(wal_level(&superuser).await, "logical");
    assert!(matches!(database.cluster, Some((_, true))), "the gateway owns the restarted server");
    gateway::startup::close_database(database).await;
}

#[tokio::test]
async fn writes_to_unpublished_tables_do_not_hold_the_slot_back() {
    let app = feed().await;
    let _changes = subscribe(&app, vec![binding(1, "*", Some("notes"), None)], anon()).await;
    let admin = app.admin().await;
    admin.batch_execute("insert into public.hidden select generate_series(1, 1000)").await.expect("writes");
    let written: String =
        admin.query_one("select pg_current_wal_lsn()::text", &[]).await.expect("lsn").get(0);

    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let caught_up: bool = admin
            .query_one(
                "select confirmed_flush_lsn >= $1::text::pg_lsn from pg_replication_slots \
                 where database = current_database()",
                &[&written],
            )
            .await
            .expect("slot")
            .get(0);
        if caught_up {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the slot stayed behind {written}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn without_logical_decoding_a_subscription_is_refused_with_the_reason_and_the_rest_serves() {
    let private = common::start_private_cluster("no-logical");
    private.cluster.stop().expect("stop");
    start_without_logical_decoding(&private.cluster);
    let superuser = private.cluster.pg_config(gateway::embedded::SUPERUSER);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while superuser.connect(tokio_postgres::NoTls).await.is_err() {
        assert!(tokio::time::Instant::now() < deadline, "the replica server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    gateway::startup::migrate(&superuser, &common::repo_root()).await.expect("migrate");
    let api = private.cluster.pg_config("authenticator");
    let app = spawn_app_with(common::Options { api: Some(api), ..Default::default() }).await;

    let refused =
        app.state.realtime.changes.subscribe(vec![binding(1, "*", Some("products"), None)], anon()).await;

    let Err(reason) = refused else { panic!("subscribed without logical decoding") };
    assert_eq!(
        reason,
        "Unable to subscribe to changes: the database runs with wal_level=replica, and postgres_changes \
         need wal_level=logical"
    );
    let read =
        app.rest(reqwest::Method::GET, "/product_categories?select=category&limit=1", None).send().await;
    assert_eq!(read.expect("a REST read").status(), 200);
}

/// Each column type, as the change feed delivers it, equals `to_jsonb` of
/// the row in PostgreSQL (Realtime's `realtime.cast`): (column, type, value).
const TYPED_COLUMNS: &[(&str, &str, &str)] = &[
    ("tags", "text[]", r#"'{red,"with space","q\"uote,comma"}'"#),
    ("empty", "text[]", "'{}'"),
    ("matrix", "int[]", "'{{1,2},{3,4}}'"),
    ("flags", "boolean[]", "'{t,f,NULL}'"),
    ("prices", "numeric[]", "'{1.5,2.25,-3}'"),
    ("amount", "numeric", "12345.678901"),
    ("ratio", "float8", "0.1"),
    ("not_a_number", "float8", "'NaN'"),
    ("doc", "json", r#"'{"b": 1, "a": [true, null]}'"#),
    ("docb", "jsonb", r#"'{"nested": {"x": [1, "two"]}}'"#),
    ("docs", "jsonb[]", r#"array['{"a":1}'::jsonb, 'null'::jsonb]"#),
    ("at", "timestamptz", "'2026-11-25 12:34:56.789+02'"),
    ("local", "timestamp", "'2026-11-25 12:34:56'"),
    ("day", "date", "'2026-11-25'"),
    ("clock", "time", "'12:34:56'"),
    ("span", "interval", "'1 day 02:03:04'"),
    ("period", "int4range", "'[1,5)'"),
    ("moments", "tstzrange", "'[2026-01-01 00:00+00,2026-02-01 00:00+00)'"),
    ("mood", "realtime_types_mood", "'happy'"),
    ("moods", "realtime_types_mood[]", "'{happy,sad}'"),
    ("positive", "realtime_types_positive", "42"),
    ("pair", "realtime_types_pair", r#"'(7,"a b")'"#),
    ("blob", "bytea", r"'\x0102ff'"),
    ("long_text", "text", "repeat('x', 20000)"),
    ("uid", "uuid", "'00000000-0000-0000-0000-000000000042'"),
    ("money_col", "money", "12.5"),
    ("inet_col", "inet", "'192.168.0.1/24'"),
    ("nothing", "text", "null"),
];

#[tokio::test]
async fn every_column_type_arrives_as_to_jsonb_of_the_row_gives_it() {
    let app = feed().await;
    let columns: Vec<String> = TYPED_COLUMNS.iter().map(|(name, ty, _)| format!("{name} {ty}")).collect();
    run(
        &app,
        &format!(
            "create type public.realtime_types_mood as enum ('happy', 'sad');
             create domain public.realtime_types_positive as integer check (value > 0);
             create type public.realtime_types_pair as (x integer, y text);
             create table public.typed (id bigint primary key, {});
             alter table public.typed replica identity full;
             grant select on public.typed to anon;
             alter publication supabase_realtime add table public.typed;",
            columns.join(", ")
        ),
    )
    .await;
    let mut changes = subscribe(&app, vec![binding(1, "*", Some("typed"), None)], anon()).await;
    let names: Vec<&str> = TYPED_COLUMNS.iter().map(|(name, _, _)| *name).collect();
    let values: Vec<&str> = TYPED_COLUMNS.iter().map(|(_, _, value)| *value).collect();
    run(
        &app,
        &format!("insert into public.typed (id, {}) values (1, {})", names.join(", "), values.join(", ")),
    )
    .await;
    run(&app, "update public.typed set matrix = '{{5}}' where id = 1").await;
    let expected: Value = app
        .admin()
        .await
        .query_one("select to_jsonb(t) from public.typed t where id = 1", &[])
        .await
        .expect("to_jsonb")
        .get(0);

    let insert = next(&mut changes).await;
    let update = next(&mut changes).await;
    let old = &update["data"]["old_record"];
    let new = &update["data"]["record"];
    for (name, _, _) in TYPED_COLUMNS {
        let matrix = *name == "matrix";
        assert_eq!(insert["data"]["record"][name], old[name], "{name}: the update's old row is the insert's");
        if !matrix {
            assert_eq!(new[name], expected[name], "{name}");
        }
    }
    assert_eq!(new["matrix"], json!([[5]]));
    assert_eq!(old["matrix"], json!([[1, 2], [3, 4]]));
    assert_eq!(
        new["tags"],
        json!(["red", "with space", "q\"uote,comma"]),
        "arrays follow PostgreSQL's quoting"
    );
    assert_eq!(new["long_text"].as_str().map(str::len), Some(20000));
}
