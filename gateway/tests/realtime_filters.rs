//! `postgres_changes` filters and options as Realtime serves them: every
//! operator, negated or not, compared as the column's type; filters joined
//! by commas; refusals at join with Realtime's messages; `select` lists;
//! TRUNCATE; tables without a primary key; and the `replication_ready`
//! system event, frame by frame in both serializers.

mod common;
mod realtime_support;

use std::time::Duration;

use common::{TestApp, spawn_app};
use gateway::jwt::Claims;
use gateway::realtime::changes::{Binding, Subscription};
use gateway::role::Role;
use realtime_support::Client;
use serde_json::{Map, Value, json};

/// A gateway whose database publishes `public.items` (no RLS, replica
/// identity full) and `public.loose` (no primary key).
async fn feed() -> TestApp {
    let app = spawn_app().await;
    run(
        &app,
        "create table public.items (id bigint primary key, name text, price numeric, done boolean, note text, \
           at timestamptz);
         alter table public.items replica identity full;
         create table public.loose (name text);
         grant select, insert, update, delete on public.items, public.loose to anon, authenticated;
         alter publication supabase_realtime add table public.items, public.loose;",
    )
    .await;
    app
}

fn anon() -> Claims {
    let mut claims = Map::new();
    claims.insert("role".into(), json!("anon"));
    Claims::new(Role::Anon, claims)
}

fn binding(id: u32, event: &str, table: &str, filter: Option<&str>) -> Binding {
    Binding {
        id,
        event: event.into(),
        schema: "public".into(),
        table: Some(table.into()),
        filter: filter.map(Into::into),
        select: None,
    }
}

async fn subscribe(app: &TestApp, bindings: Vec<Binding>) -> Subscription {
    app.state.realtime.changes.subscribe(bindings, anon()).await.expect("subscribed")
}

async fn run(app: &TestApp, sql: &str) {
    app.admin().await.batch_execute(sql).await.expect(sql);
}

async fn next(subscription: &mut Subscription) -> Value {
    let text = tokio::time::timeout(Duration::from_secs(10), subscription.recv())
        .await
        .expect("a change within 10 s")
        .expect("the subscription is still served");
    serde_json::from_str(&text).expect("the payload is JSON")
}

/// The ids of the rows whose changes binding 1 got, up to the marker row 99
/// that binding 2 (`id=eq.99`) gets.
async fn matched_until_the_marker(subscription: &mut Subscription) -> Vec<i64> {
    let mut seen = Vec::new();
    loop {
        let change = next(subscription).await;
        let data = &change["data"];
        let row = if data["type"] == "DELETE" { &data["old_record"] } else { &data["record"] };
        let id = row["id"].as_i64().expect("id");
        if id == 99 {
            return seen;
        }
        assert_eq!(change["ids"], json!([1]), "{change}");
        seen.push(id);
    }
}

#[tokio::test]
async fn every_operator_negated_or_not_compares_as_the_columns_type() {
    let app = feed().await;
    // (filter, the ids of the inserted rows it matches)
    let cases: &[(&str, &[i64])] = &[
        ("id=eq.2", &[2]),
        ("id=not.eq.2", &[1, 3]),
        ("id=neq.2", &[1, 3]),
        ("id=not.neq.2", &[2]),
        // As numbers: as text, "2" would sort after "10".
        ("price=lt.10", &[2]),
        ("price=not.lt.10", &[1, 3]),
        ("price=lte.10.5", &[1, 2]),
        ("price=not.lte.10.5", &[3]),
        ("price=gt.10.5", &[3]),
        ("price=not.gt.10.5", &[1, 2]),
        ("price=gte.10.50", &[1, 3]),
        ("price=not.gte.10.50", &[2]),
        ("id=in.(1,3)", &[1, 3]),
        ("id=not.in.(1,3)", &[2]),
        ("name=like.%an%", &[2]),
        ("name=not.like.%an%", &[1, 3]),
        ("name=ilike.b%", &[2]),
        ("name=not.ilike.b%", &[1, 3]),
        ("name=match.^[a-c]", &[1, 3]),
        ("name=not.match.^[a-c]", &[2]),
        ("name=imatch.^[a-c]", &[1, 2, 3]),
        ("name=not.imatch.^[a-b]", &[3]),
        ("note=is.null", &[1]),
        ("note=not.is.null", &[2, 3]),
        ("done=is.true", &[1]),
        ("done=is.false", &[2]),
        ("done=is.unknown", &[3]),
        ("done=not.is.true", &[2, 3]),
        // A null is distinct from a value, and equal to nothing.
        ("note=isdistinct.ripe", &[1, 3]),
        ("note=not.isdistinct.ripe", &[2]),
        ("note=neq.ripe", &[3]),
        ("note=eq.\"x,y\"", &[3]),
        ("note=in.(ripe,\"x,y\")", &[2, 3]),
        // Moments, whichever way they are written.
        ("at=eq.2026-11-25 12:00:00+00", &[1, 2]),
        ("at=gt.2026-11-25T12:00:00Z", &[3]),
        // Commas join filters with AND.
        ("id=gt.1,id=lt.3", &[2]),
        ("name=ilike.%a%,done=is.true", &[1]),
        ("price=gte.2,note=not.is.null,name=not.eq.cherry", &[2]),
    ];
    let mut subscriptions = Vec::new();
    for (filter, _) in cases {
        let bindings = vec![
            binding(1, "INSERT", "items", Some(filter)),
            binding(2, "INSERT", "items", Some("id=eq.99")),
        ];
        subscriptions.push(subscribe(&app, bindings).await);
    }
    run(
        &app,
        "insert into public.items (id, name, price, done, note, at) values
           (1, 'apple', 10.5, true, null, '2026-11-25 12:00:00+00'),
           (2, 'Banana', 2, false, 'ripe', '2026-11-25 14:00:00+02'),
           (3, 'cherry', 100, null, 'x,y', '2026-11-26 00:00:00+00');
         insert into public.items (id) values (99);",
    )
    .await;
    for ((filter, expected), subscription) in cases.iter().zip(&mut subscriptions) {
        assert_eq!(matched_until_the_marker(subscription).await, *expected, "{filter}");
    }
}

#[tokio::test]
async fn an_update_is_filtered_by_its_new_row_and_a_delete_by_its_old_one() {
    let app = feed().await;
    run(&app, "insert into public.items (id, name) values (1, 'old'), (2, 'other')").await;
    let mut updates = subscribe(
        &app,
        vec![binding(1, "UPDATE", "items", Some("name=eq.new")), binding(2, "*", "items", Some("id=eq.99"))],
    )
    .await;
    let mut deletes = subscribe(
        &app,
        vec![binding(1, "DELETE", "items", Some("name=eq.new")), binding(2, "*", "items", Some("id=eq.99"))],
    )
    .await;
    run(
        &app,
        "update public.items set name = 'new' where id = 1;
         update public.items set name = 'newer' where id = 1;
         update public.items set name = 'new' where id = 2;
         delete from public.items where id = 2;
         insert into public.items (id) values (99);",
    )
    .await;
    assert_eq!(matched_until_the_marker(&mut updates).await, [1, 2]);
    assert_eq!(matched_until_the_marker(&mut deletes).await, [2]);
}

#[tokio::test]
async fn invalid_filters_are_refused_at_join_with_realtimes_messages() {
    let app = feed().await;
    let exception = "Unable to subscribe to changes with given parameters. An exception happened so please \
                     check your connect parameters: ";
    let too_many = format!("id=in.({})", (1..=101).map(|n| n.to_string()).collect::<Vec<_>>().join(","));
    // (filter, select, the message's end)
    let cases: Vec<(&str, Option<Value>, String)> = vec![
        (
            "nope=eq.3",
            None,
            format!(
                "{exception}[event: *, schema: public, table: items, filters: [{{\"nope\", \"eq\", \"3\", false}}], \
                 select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter nope"
            ),
        ),
        (
            "id=not.eq.abc",
            None,
            "Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type bigint: \"abc\""
                .to_owned(),
        ),
        ("at=gt.yesterdayish", None, "invalid input syntax for type timestamp with time zone: \"yesterdayish\"".to_owned()),
        (&too_many, None, "(raise_exception) too many values for `in` filter. Maximum 100".to_owned()),
        ("id=in.(1,x)", None, "(invalid_text_representation) invalid input syntax for type bigint: \"x\"".to_owned()),
        (
            "id=like.3",
            None,
            "(raise_exception) operator like is not supported on column id of type bigint: operator does not exist: \
             bigint ~~ bigint"
                .to_owned(),
        ),
        ("name=match.(", None, "(raise_exception) invalid regular expression for match filter: invalid regular expression: parentheses () not balanced".to_owned()),
        (
            "note=is.maybe",
            None,
            "(raise_exception) invalid value for is filter: must be null, true, false, or unknown".to_owned(),
        ),
        ("note=is.true", None, "(raise_exception) is true filter requires a boolean column, got text".to_owned()),
        ("id=foo.3", None, "Error parsing `filter` params: [\"foo\", \"3\"]".to_owned()),
        ("id=in.1", None, "Error parsing `filter` params: `in` filter value must be wrapped by parentheses".to_owned()),
        ("", Some(json!(["name", "nope"])), "(raise_exception) invalid column for select nope".to_owned()),
        (
            "",
            Some(json!("name")),
            "Error parsing `select` params: expected a list of column name strings, e.g. select: [\"col1\", \"col2\"]"
                .to_owned(),
        ),
    ];
    for (filter, select, message) in cases {
        let mut case = binding(1, "*", "items", Some(filter).filter(|f| !f.is_empty()));
        case.select = select;
        let Err(reason) = app.state.realtime.changes.subscribe(vec![case.clone()], anon()).await else {
            panic!("{case:?} was accepted");
        };
        assert!(reason.ends_with(&message), "{case:?}:\n{reason}\nshould end with\n{message}");
    }
    assert_eq!(app.state.realtime.changes.subscriptions(), 0);
    let hundred = format!("id=in.({})", (1..=100).map(|n| n.to_string()).collect::<Vec<_>>().join(","));
    subscribe(&app, vec![binding(1, "*", "items", Some(&hundred))]).await;
}

#[tokio::test]
async fn a_select_list_sends_only_its_columns_and_the_key() {
    let app = feed().await;
    let mut narrow = binding(1, "*", "items", None);
    narrow.select = Some(json!(["name"]));
    let mut changes = subscribe(&app, vec![narrow, binding(2, "*", "items", None)]).await;
    run(&app, "insert into public.items (id, name, price) values (1, 'apple', 3); update public.items set price = 4")
        .await;

    for kind in ["INSERT", "UPDATE"] {
        let (first, second) = (next(&mut changes).await, next(&mut changes).await);
        let (narrow, whole) = if first["ids"] == json!([1]) { (first, second) } else { (second, first) };
        assert_eq!((narrow["ids"].clone(), whole["ids"].clone()), (json!([1]), json!([2])), "{kind}");
        assert_eq!(narrow["data"]["type"], kind);
        assert_eq!(narrow["data"]["record"], json!({"id": 1, "name": "apple"}), "{kind}");
        assert_eq!(
            narrow["data"]["columns"],
            json!([{"name": "id", "type": "int8"}, {"name": "name", "type": "text"}]),
            "{kind}"
        );
        assert_eq!(whole["data"]["record"]["price"], if kind == "INSERT" { 3 } else { 4 });
        if kind == "UPDATE" {
            assert_eq!(narrow["data"]["old_record"], json!({"id": 1, "name": "apple"}));
        }
    }
}

#[tokio::test]
async fn truncate_is_never_sent_and_a_truncate_binding_gets_every_other_event() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(1, "TRUNCATE", "items", None)]).await;
    run(&app, "insert into public.items (id) values (1); truncate public.items; insert into public.items (id) values (2)")
        .await;
    for id in [1, 2] {
        let change = next(&mut changes).await;
        assert_eq!(
            (change["data"]["type"].as_str(), change["data"]["record"]["id"].as_i64()),
            (Some("INSERT"), Some(id))
        );
    }
}

#[tokio::test]
async fn a_table_without_a_primary_key_sends_realtimes_error_400_whatever_the_filter() {
    let app = feed().await;
    let mut changes = subscribe(&app, vec![binding(1, "*", "loose", Some("name=eq.nothing"))]).await;
    run(&app, "insert into public.loose (name) values ('x')").await;
    let change = next(&mut changes).await;
    assert_eq!(
        change,
        json!({"ids": [1], "data": {
            "schema": "public", "table": "loose", "type": "INSERT", "commit_timestamp": null,
            "columns": [], "record": {}, "errors": ["Error 400: Bad Request, no primary key"],
        }})
    );
}

#[tokio::test]
async fn replication_ready_and_filter_refusals_arrive_as_system_events_in_both_serializers() {
    let app = feed().await;
    for vsn in ["1.0.0", "2.0.0"] {
        let mut client = Client::connect(&app, vsn).await;
        let (_, reply) = client
            .join("realtime:ready", json!({"config": {"broadcast": {"replication_ready": true}}}))
            .await;
        assert_eq!(reply.payload["status"], "ok", "{vsn}");
        let system = client.until(|m| m.event == "system").await;
        assert_eq!(
            system.payload,
            json!({"extension": "system", "status": "ok", "message": "Replication connection established",
                   "channel": "ready"}),
            "{vsn}"
        );

        let bindings = json!([{"event": "*", "schema": "public", "table": "items", "filter": "id=eq.abc"}]);
        let (_, reply) =
            client.join("realtime:refused", json!({"config": {"postgres_changes": bindings}})).await;
        assert_eq!(reply.payload["status"], "ok", "{vsn}");
        let system = client.until(|m| m.event == "system").await;
        assert_eq!(
            (system.payload["extension"].as_str(), system.payload["status"].as_str()),
            (Some("postgres_changes"), Some("error")),
            "{vsn}"
        );
        let message = system.payload["message"].as_str().unwrap_or_default();
        assert!(message.ends_with("invalid input syntax for type bigint: \"abc\""), "{vsn}: {message}");
    }
}
