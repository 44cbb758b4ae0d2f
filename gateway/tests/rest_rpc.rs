//! `/rest/v1/rpc/{fn}` and the schema cache's reloads.

mod common;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_shop};

async fn rpc(
    app: &TestApp,
    method: Method,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let mut request = app.rest(method, path, None).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    Answer::from(request.send().await.expect("request")).await
}

/// Runs `sql` (functions to call) as the superuser; the schema cache, read
/// at a test's first request, then has them.
async fn define(app: &TestApp, sql: &str) {
    app.admin().await.batch_execute(sql).await.expect("functions");
}

/// `add_notes(bodies)`: inserts a note per body, returning them.
const ADD_NOTES: &str = "create function public.add_notes(bodies text[]) returns setof public.notes language sql volatile as \
     $$ insert into public.notes select 100 + n, body from unnest(bodies) with ordinality as b(body, n) returning * $$;";

#[tokio::test]
async fn functions_are_called_with_json_or_query_arguments() {
    let app = spawn_shop().await;
    let cases: Vec<(Method, &str, Option<Value>, u16, Value)> = vec![
        (Method::POST, "/rpc/add", Some(json!({"a": 1, "b": 2})), 200, json!(3)),
        (Method::GET, "/rpc/add?a=40&b=2", None, 200, json!(42)),
        (Method::POST, "/rpc/whoami", None, 200, json!("anon")),
        (Method::POST, "/rpc/tagged", Some(json!({"tags": ["a", "b", "c"]})), 200, json!(3)),
        (Method::GET, "/rpc/tagged?tags=%7Ba,b%7D", None, 200, json!(2)),
        (
            Method::POST,
            "/rpc/products_in?select=id,name&order=id.desc&limit=2",
            Some(json!({"category": "Celulares"})),
            200,
            json!([{"id": 7, "name": "Nokia 3310"}, {"id": 5, "name": "Generic Phone"}]),
        ),
        (
            Method::GET,
            "/rpc/products_in?category=Celulares&select=id,brands(name)&id=eq.3",
            None,
            200,
            json!([{"id": 3, "brands": {"name": "Samsung"}}]),
        ),
    ];
    for (method, path, body, status, expected) in cases {
        let answer = rpc(&app, method.clone(), path, body, &[]).await;
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.text);
        assert_eq!(answer.json(), expected, "{method} {path}");
    }
}

#[tokio::test]
async fn a_void_function_answers_204_and_its_writes_are_kept() {
    let app = spawn_shop().await;
    let answer = rpc(&app, Method::POST, "/rpc/touch", Some(json!({"note_id": 2})), &[]).await;
    assert_eq!((answer.status, answer.text.as_str()), (204, ""));
    // PostgREST's 204 of a void function has no Content-Type.
    assert_eq!(answer.content_type, None);
    let body: String =
        app.admin().await.query_one("select body from notes where id = 2", &[]).await.expect("q").get(0);
    assert_eq!(body, "plain!");
}

/// A singular call of a set-returning function answers its one row as an
/// object; any other number is 406, and what the function wrote is rolled
/// back, as for a singular write.
#[tokio::test]
async fn a_singular_call_answers_one_object_or_406_and_then_keeps_no_writes() {
    let app = spawn_shop().await;
    define(&app, ADD_NOTES).await;
    let object = [("accept", "application/vnd.pgrst.object+json")];
    let refused = |rows: usize| {
        json!({"code": "PGRST116", "details": format!("The result contains {rows} rows"), "hint": null,
               "message": "Cannot coerce the result to a single JSON object"})
    };
    let cases = [
        (json!([]), 406, refused(0)),
        (json!(["a", "b"]), 406, refused(2)),
        (json!(["one"]), 200, json!({"id": 101, "body": "one"})),
    ];
    for (bodies, status, expected) in cases {
        let answer =
            rpc(&app, Method::POST, "/rpc/add_notes", Some(json!({"bodies": bodies})), &object).await;
        assert_eq!(answer.status, status, "{bodies}: {}", answer.text);
        assert_eq!(answer.json(), expected, "{bodies}");
    }
    let ids: Vec<i32> = app
        .admin()
        .await
        .query("select id from public.notes order by id", &[])
        .await
        .expect("notes")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(ids, [1, 2, 101], "only the call of one row was kept");
}

#[tokio::test]
async fn unknown_functions_and_arguments_are_pgrst202() {
    let app = spawn_shop().await;
    let cases = [
        (
            "/rpc/nope",
            None,
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.nope without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
                   "hint": null, "message": "Could not find the function public.nope without parameters in the schema cache"}),
        ),
        (
            "/rpc/add",
            Some(json!({"x": 1, "a": 2})),
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.add with parameters a, x or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
                   "hint": "Perhaps you meant to call the function public.add(a, b)",
                   "message": "Could not find the function public.add(a, x) in the schema cache"}),
        ),
    ];
    for (path, body, expected) in cases {
        let answer = rpc(&app, Method::POST, path, body, &[]).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.json(), expected, "{path}");
    }
}

#[tokio::test]
async fn head_and_count_work_on_set_returning_functions() {
    let app = spawn_shop().await;
    let answer = Answer::from(
        app.rest(Method::HEAD, "/rpc/products_in?category=Relojes", Some(&app.service_key))
            .header("prefer", "count=exact")
            .send()
            .await
            .expect("head"),
    )
    .await;
    assert_eq!(
        (answer.status, answer.content_range.as_deref(), answer.text.as_str()),
        (200, Some("0-0/1"), "")
    );
}

#[tokio::test]
async fn notify_reloads_the_schema_cache_within_a_second() {
    let app = spawn_shop().await;
    let listener = gateway::rest::cache::spawn_listener(app.state.schema.clone(), app.state.db.clone());
    let first =
        Answer::from(app.rest(Method::GET, "/notes?select=id&id=eq.1", None).send().await.expect("r")).await;
    assert_eq!(first.status, 200);
    app.admin()
        .await
        .batch_execute(
            "alter table public.notes add column color text default 'red'; notify pgrst, 'reload schema';",
        )
        .await
        .expect("ddl");
    let started = Instant::now();
    loop {
        let answer = Answer::from(
            app.rest(Method::GET, "/notes?select=id,color&id=eq.1", None).send().await.expect("r"),
        )
        .await;
        if answer.status == 200 {
            assert_eq!(answer.json(), json!([{"id": 1, "color": "red"}]));
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "the new column never appeared: {}", answer.text);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    listener.abort();
}

/// Found by the differential test against PostgREST 12.0.2: a scalar's CSV
/// has the header `pgrst_scalar` and its plain text.
#[tokio::test]
async fn a_scalar_result_in_csv_is_headed_pgrst_scalar() {
    let app = spawn_shop().await;
    for (path, expected) in [("/rpc/add?a=1&b=2", "pgrst_scalar\n3"), ("/rpc/whoami", "pgrst_scalar\nanon")] {
        let answer = Answer::from(
            app.rest(Method::GET, path, None).header("accept", "text/csv").send().await.expect("request"),
        )
        .await;
        assert_eq!((answer.status, answer.text.as_str()), (200, expected), "{path}");
    }
}

/// PostgREST 13: `max-affected` under `handling=strict` bounds the rows a
/// call returns; beyond it the call answers PGRST124 and keeps no writes.
#[tokio::test]
async fn max_affected_bounds_a_call_and_rolls_back_beyond_it() {
    let app = spawn_shop().await;
    define(&app, ADD_NOTES).await;
    let strict = [("prefer", "handling=strict, max-affected=1")];
    let over =
        rpc(&app, Method::POST, "/rpc/add_notes", Some(json!({"bodies": ["a", "b", "c"]})), &strict).await;
    assert_eq!(over.status, 400, "{}", over.text);
    assert_eq!(
        over.json(),
        json!({"code": "PGRST124", "details": "The query affects 3 rows", "hint": null,
               "message": "Query result exceeds max-affected preference constraint"})
    );
    let within = rpc(&app, Method::POST, "/rpc/add_notes", Some(json!({"bodies": ["one"]})), &strict).await;
    assert_eq!((within.status, within.json()), (200, json!([{"id": 101, "body": "one"}])));
    assert_eq!(
        within.headers.get("preference-applied").and_then(|v| v.to_str().ok()),
        Some("handling=strict, max-affected=1")
    );
    let count: i64 = app
        .admin()
        .await
        .query_one("select count(*) from public.notes where id > 100", &[])
        .await
        .expect("notes")
        .get(0);
    assert_eq!(count, 1, "only the call within the bound was kept");
}

/// PostgREST 13/14's `findProc`: which overload a call means, PGRST203 when
/// several fit, and functions an RPC cannot call (two unnamed arguments, or
/// one of another type than bytea, json, jsonb, text or xml).
#[tokio::test]
async fn overloads_resolve_as_postgrest_resolves_them() {
    let app = spawn_shop().await;
    define(
        &app,
            "create function public.pick(a int) returns text language sql immutable as $$ select 'int' $$;
             create function public.pick(a text) returns text language sql immutable as $$ select 'text' $$;
             create function public.pick(a int, b int) returns text language sql immutable as $$ select 'two' $$;
             create function public.maybe() returns text language sql immutable as $$ select 'none' $$;
             create function public.maybe(text default 'x') returns text language sql immutable as $$ select 'unnamed' $$;
             create function public.number_of(int) returns int language sql immutable as $$ select $1 $$;
             create function public.number_off(text) returns text language sql immutable as $$ select $1 $$;
             create function public.echo(payload jsonb) returns jsonb language sql immutable as $$ select payload $$;
             create function public.days_since(id int) returns int language sql immutable as $$ select id $$;",
    )
    .await;
    let ambiguous = |between: &str| {
        json!({"code": "PGRST203", "details": null,
               "hint": "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
               "message": format!("Could not choose the best candidate function between: {between}")})
    };
    // (method, path, body, status, answer)
    let cases = [
        (Method::POST, "/rpc/pick", json!({"a": 1, "b": 2}), 200, json!("two")),
        (
            Method::POST,
            "/rpc/pick",
            json!({"a": 1}),
            300,
            ambiguous("public.pick(a => integer), public.pick(a => text)"),
        ),
        (Method::POST, "/rpc/maybe", json!({}), 300, ambiguous("public.maybe(), public.maybe( => text)")),
        // A single json argument takes a body whose keys are not its name.
        (Method::POST, "/rpc/echo", json!({"x": [1]}), 200, json!({"x": [1]})),
        (Method::POST, "/rpc/echo", json!({"payload": {"y": 2}}), 200, json!({"y": 2})),
        (
            Method::POST,
            "/rpc/number_of",
            json!({"": 1}),
            404,
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.number_of with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
                   "hint": "Perhaps you meant to call the function public.number_off",
                   "message": "Could not find the function public.number_of() in the schema cache"}),
        ),
        (
            Method::GET,
            "/rpc/days_since?idx=1",
            Value::Null,
            404,
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.days_since with parameter idx, but no matches were found in the schema cache.",
                   "hint": "Perhaps you meant to call the function public.days_since(id)",
                   "message": "Could not find the function public.days_since(idx) in the schema cache"}),
        ),
    ];
    for (method, path, body, status, expected) in cases {
        let body = (!body.is_null()).then_some(body);
        let answer = rpc(&app, method.clone(), path, body.clone(), &[]).await;
        assert_eq!((answer.status, answer.json()), (status, expected), "{method} {path} {body:?}");
    }
}

/// A function returning `table (...)` or OUT arguments has its rows shaped
/// by `select`, filters, order and aggregates as a table's are, GET or POST.
#[tokio::test]
async fn a_returns_table_function_is_shaped_by_select_and_filters() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.people(min_id int) returns table (id int, name text, status text)
               language sql stable as
               $$ select * from (values (1, 'ana', 'ONLINE'), (2, 'bo', 'OFFLINE'), (3, 'cy', 'ONLINE')) v
                  where v.column1 >= min_id $$;
             create function public.pair(x int, out doubled int, out tripled int)
               language sql immutable as $$ select x * 2, x * 3 $$;",
    )
    .await;
    let body = Some(json!({"min_id": 1}));
    // (path, answer), each POSTed with the body above.
    let cases = [
        ("/rpc/people?select=name&order=id", json!([{"name": "ana"}, {"name": "bo"}, {"name": "cy"}])),
        ("/rpc/people?select=who:name&id=eq.2", json!([{"who": "bo"}])),
        ("/rpc/people?select=id::text&status=neq.ONLINE", json!([{"id": "2"}])),
        ("/rpc/people?status=eq.nobody", json!([])),
        (
            "/rpc/people?select=status,id.count()&order=status",
            json!([{"status": "OFFLINE", "count": 1}, {"status": "ONLINE", "count": 2}]),
        ),
        ("/rpc/people?select=name&order=id.desc&limit=1", json!([{"name": "cy"}])),
    ];
    for (path, expected) in cases {
        let answer = rpc(&app, Method::POST, path, body.clone(), &[]).await;
        assert_eq!((answer.status, answer.json()), (200, expected), "{path}: {}", answer.text);
    }
    let get = rpc(&app, Method::GET, "/rpc/people?min_id=2&select=name&name=like.c*", None, &[]).await;
    assert_eq!((get.status, get.json()), (200, json!([{"name": "cy"}])));
    let out = rpc(&app, Method::POST, "/rpc/pair?select=tripled", Some(json!({"x": 2})), &[]).await;
    assert_eq!((out.status, out.json()), (200, json!({"tripled": 6})));
    let unknown = rpc(&app, Method::POST, "/rpc/people?select=nope", body, &[]).await;
    assert_eq!((unknown.status, unknown.json()["code"].clone()), (400, json!("42703")));
}

/// A body of text, XML or bytes goes whole to a function whose one unnamed
/// argument has that type, by `Content-Type`, as in PostgREST.
#[tokio::test]
async fn raw_bodies_go_to_a_function_of_one_unnamed_argument_of_their_type() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.shout(text) returns text language sql immutable as $$ select upper($1) $$;
         create function public.root_name(xml) returns text language sql immutable as
           $$ select (xpath('name(/*)', $1))[1]::text $$;
         create function public.byte_count(bytea) returns int language sql immutable as $$ select length($1) $$;",
    )
    .await;
    let send = |path: &'static str, content_type: &'static str, body: Vec<u8>| {
        let request = app.rest(Method::POST, path, None).header("content-type", content_type).body(body);
        async move { Answer::from(request.send().await.expect("request")).await }
    };
    let text = send("/rpc/shout", "text/plain", b"hola".to_vec()).await;
    assert_eq!((text.status, text.json()), (200, json!("HOLA")));
    let xml = send("/rpc/root_name", "text/xml", b"<shop><item/></shop>".to_vec()).await;
    assert_eq!((xml.status, xml.json()), (200, json!("shop")));
    let bytes = send("/rpc/byte_count", "application/octet-stream", vec![0, 255, 10, 13, 92]).await;
    assert_eq!((bytes.status, bytes.json()), (200, json!(5)));
    let none = send("/rpc/byte_count", "text/plain", b"x".to_vec()).await;
    assert_eq!(
        (none.status, none.json()),
        (
            404,
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.byte_count with a single unnamed text parameter, but no matches were found in the schema cache.",
                   "hint": null, "message": "Could not find the function public.byte_count in the schema cache"})
        )
    );
}

/// Polymorphic functions, called as PostgREST 12.0.2 calls them (checked
/// by the differential test): it reads each argument by its declared type,
/// and PostgreSQL cannot read a value as `anyelement` or `anyarray`, so the
/// call fails with 42P16, by GET and by POST alike.
#[tokio::test]
async fn a_polymorphic_function_fails_as_postgrest_calls_it() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.echo_any(v anyelement) returns anyelement language sql immutable as $$ select v $$;
         create function public.first_of(items anyarray) returns anyelement language sql immutable as $$ select items[1] $$;",
    )
    .await;
    let cases = [
        (Method::GET, "/rpc/echo_any?v=1", None, "anyelement"),
        (Method::POST, "/rpc/echo_any", Some(json!({"v": "hola"})), "anyelement"),
        (Method::GET, "/rpc/first_of?items=%7B3,4%7D", None, "anyarray"),
        (Method::POST, "/rpc/first_of", Some(json!({"items": [3, 4]})), "anyarray"),
    ];
    for (method, path, body, kind) in cases {
        let answer = rpc(&app, method.clone(), path, body, &[]).await;
        assert_eq!(
            (answer.status, answer.json()),
            (
                400,
                json!({"code": "42P16", "details": null, "hint": null,
                       "message": format!("column \"{}\" has pseudo-type {kind}", if kind == "anyarray" { "items" } else { "v" })})
            ),
            "{method} {path}"
        );
    }
}

/// A variadic argument takes repeated query parameters (one item each, as
/// PostgREST #1470 added them) or a JSON array.
#[tokio::test]
async fn variadic_arguments_are_repeated_parameters_or_a_json_array() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.vsum(variadic nums int[]) returns int language sql immutable as
           $$ select coalesce(sum(x), 0)::int from unnest(nums) x $$;
         create function public.vjoin(sep text, variadic parts text[]) returns text language sql immutable as
           $$ select array_to_string(parts, sep) $$;",
    )
    .await;
    let cases: Vec<(Method, &str, Option<Value>, u16, Value)> = vec![
        (Method::GET, "/rpc/vsum?nums=1&nums=2&nums=3", None, 200, json!(6)),
        (Method::GET, "/rpc/vsum?nums=7", None, 200, json!(7)),
        // One parameter is one item, even one that looks like an array.
        (
            Method::GET,
            "/rpc/vsum?nums=%7B1,2%7D",
            None,
            400,
            json!({"code": "22P02", "details": null, "hint": null,
                   "message": "invalid input syntax for type integer: \"{1,2}\""}),
        ),
        (Method::GET, "/rpc/vjoin?sep=-&parts=a&parts=b&parts=c", None, 200, json!("a-b-c")),
        (Method::GET, "/rpc/vjoin?sep=-&parts=%7Ba,b%7D", None, 200, json!("{a,b}")),
        (Method::POST, "/rpc/vsum", Some(json!({"nums": [1, 2, 3]})), 200, json!(6)),
        (Method::POST, "/rpc/vjoin", Some(json!({"sep": "+", "parts": ["x", "y"]})), 200, json!("x+y")),
        (
            Method::POST,
            "/rpc/vsum",
            Some(json!({"nums": 5})),
            400,
            json!({"code": "22P02", "details": null, "hint": "See the value of key \"nums\".",
                   "message": "expected JSON array"}),
        ),
    ];
    for (method, path, body, status, expected) in cases {
        let answer = rpc(&app, method.clone(), path, body, &[]).await;
        assert_eq!((answer.status, answer.json()), (status, expected), "{method} {path}");
    }
}

/// PostgREST runs a GET in a read-only transaction, so a volatile function
/// that writes fails there with PostgreSQL's 25006, which it answers 405;
/// nothing is written.
#[tokio::test]
async fn a_volatile_function_that_writes_is_refused_by_get_as_postgrest_refuses_it() {
    let app = spawn_shop().await;
    define(&app, ADD_NOTES).await;
    let cases = [
        ("/rpc/add_notes?bodies=%7Ba%7D", "INSERT"),
        ("/rpc/touch?note_id=2", "UPDATE"),
        ("/rpc/add_notes?bodies=%7Ba%7D&select=id", "INSERT"),
    ];
    for (path, verb) in cases {
        for method in [Method::GET, Method::HEAD] {
            let answer = rpc(&app, method.clone(), path, None, &[]).await;
            assert_eq!(answer.status, 405, "{method} {path}: {}", answer.text);
            if method == Method::GET {
                assert_eq!(
                    answer.json(),
                    json!({"code": "25006", "details": null, "hint": null,
                           "message": format!("cannot execute {verb} in a read-only transaction")}),
                    "{path}"
                );
            }
        }
    }
    let notes: i64 = app
        .admin()
        .await
        .query_one("select count(*) from public.notes where id > 100 or body = 'plain!'", &[])
        .await
        .expect("notes")
        .get(0);
    assert_eq!(notes, 0, "nothing was written");
}

type ProfileCase = (Method, &'static str, Option<Value>, (&'static str, &'static str), u16, Value);

/// A function of another exposed schema is called with `Accept-Profile`
/// (GET) or `Content-Profile` (POST); without one it is looked for in the
/// first schema, and an unexposed schema is PGRST106. A function of `api`
/// returning `public` rows is shaped by their columns but embeds nothing.
#[tokio::test]
async fn functions_of_another_exposed_schema_are_called_through_the_profile_headers() {
    let mut config = common::test_config();
    config.rest.db_schemas = vec!["public".to_owned(), "api".to_owned()];
    let app = common::spawn_app_with(common::Options { config, ..common::Options::default() }).await;
    define(
        &app,
        "create schema api;
         grant usage on schema api to anon, authenticated, service_role;
         create function public.add(a int, b int) returns int language sql immutable as $$ select a + b $$;
         create function api.add(a int, b int) returns int language sql immutable as $$ select a * b $$;
         create function api.version() returns text language sql immutable as $$ select 'api-1' $$;
         create table public.people (id int primary key);
         create table public.pets (id int primary key, owner int references public.people (id));
         insert into public.people values (1), (2);
         create function api.people_all() returns setof public.people language sql stable as
           $$ select * from public.people $$;
         grant execute on all functions in schema api to anon, authenticated, service_role;",
    )
    .await;
    // (method, path, body, profile header, status, answer)
    let cases: Vec<ProfileCase> = vec![
        (Method::GET, "/rpc/add?a=2&b=3", None, ("accept-profile", "api"), 200, json!(6)),
        (Method::GET, "/rpc/add?a=2&b=3", None, ("accept-profile", "public"), 200, json!(5)),
        (Method::POST, "/rpc/add", Some(json!({"a": 2, "b": 3})), ("content-profile", "api"), 200, json!(6)),
        (Method::POST, "/rpc/version", Some(json!({})), ("content-profile", "api"), 200, json!("api-1")),
        (Method::GET, "/rpc/version", None, ("accept-profile", "api"), 200, json!("api-1")),
        (
            Method::GET,
            "/rpc/version",
            None,
            ("accept-profile", "public"),
            404,
            json!({"code": "PGRST202",
                   "details": "Searched for the function public.version without parameters, but no matches were found in the schema cache.",
                   "hint": null,
                   "message": "Could not find the function public.version without parameters in the schema cache"}),
        ),
        (
            Method::GET,
            "/rpc/people_all?select=id&order=id",
            None,
            ("accept-profile", "api"),
            200,
            json!([{"id": 1}, {"id": 2}]),
        ),
        // Its rows' relationships are looked for in `api`, where there are none.
        (
            Method::GET,
            "/rpc/people_all?select=id,pets(id)",
            None,
            ("accept-profile", "api"),
            400,
            json!({"code": "PGRST200",
                   "details": "Searched for a foreign key relationship between 'people' and 'pets' in the schema 'api', but no matches were found.",
                   "hint": null,
                   "message": "Could not find a relationship between 'people' and 'pets' in the schema cache"}),
        ),
        (
            Method::POST,
            "/rpc/add",
            Some(json!({"a": 2, "b": 3})),
            ("content-profile", "nope"),
            406,
            json!({"code": "PGRST106", "details": null,
                   "hint": "Only the following schemas are exposed: public, api",
                   "message": "Invalid schema: nope"}),
        ),
    ];
    for (method, path, body, (header, schema), status, expected) in cases {
        let answer = rpc(&app, method.clone(), path, body, &[(header, schema)]).await;
        assert_eq!((answer.status, answer.json()), (status, expected), "{method} {path} {header}: {schema}");
    }
}

/// With `Prefer: count=exact` the function still runs once: the count and
/// the rows read one call, as PostgREST's `pgrst_source`.
#[tokio::test]
async fn a_counted_call_runs_its_function_once() {
    let app = spawn_shop().await;
    define(&app, ADD_NOTES).await;
    let answer = rpc(
        &app,
        Method::POST,
        "/rpc/add_notes?select=id&order=id",
        Some(json!({"bodies": ["a", "b"]})),
        &[("prefer", "count=exact")],
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.content_range.as_deref(), Some("0-1/2"));
    assert_eq!(answer.json(), json!([{"id": 101}, {"id": 102}]));
    let notes: i64 = app
        .admin()
        .await
        .query_one("select count(*) from public.notes where id > 100", &[])
        .await
        .expect("notes")
        .get(0);
    assert_eq!(notes, 2, "the function ran once");
}

/// A POST's arguments reach the function as the body wrote them, as
/// PostgREST passes its body: a number keeps every digit and its scale, a
/// `json` argument its text and keys' order.
#[tokio::test]
async fn a_function_gets_its_arguments_as_the_body_wrote_them() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.echo(n numeric, doc json) returns text language sql immutable as \
         $$ select n::text || ' ' || doc::text $$;",
    )
    .await;
    let answer = Answer::from(
        app.rest(Method::POST, "/rpc/echo", None)
            .header("content-type", "application/json")
            .body(r#"{"n": 12345678901234567890.120, "doc": {"b": 1e2, "a": 1.50}}"#)
            .send()
            .await
            .expect("request"),
    )
    .await;
    assert_eq!(
        (answer.status, answer.text.as_str()),
        (200, r#""12345678901234567890.120 {\"b\": 1e2, \"a\": 1.50}""#)
    );
}

/// A function returning a composite type that is no table's has its rows
/// shaped as a table's are: PostgREST reads them by the type's columns.
#[tokio::test]
async fn a_composite_type_result_is_shaped_by_select_filters_and_order() {
    let app = spawn_shop().await;
    define(
        &app,
        "create type public.point2 as (x int, y text);
         create function public.one_point() returns public.point2 language sql stable as $$ select 1, 'a' $$;
         create function public.points() returns setof public.point2 language sql stable as
           $$ values (1, 'a'), (2, 'b'), (3, 'c') $$;",
    )
    .await;
    let cases = [
        ("/rpc/one_point?select=x", json!({"x": 1})),
        ("/rpc/one_point?select=y&x=eq.2", Value::Null),
        ("/rpc/points?select=y&order=x.desc&limit=2", json!([{"y": "c"}, {"y": "b"}])),
        ("/rpc/points?select=total:x.sum()", json!([{"total": 6}])),
        ("/rpc/points?y=in.(a,c)&select=x", json!([{"x": 1}, {"x": 3}])),
    ];
    for (path, expected) in cases {
        let answer = rpc(&app, Method::GET, path, None, &[]).await;
        assert_eq!((answer.status, answer.json()), (200, expected), "{path}: {}", answer.text);
    }
}

/// PostgREST selects a function's columns in its call (`pgrst_call`), then
/// filters and orders its rows by their type's name (`record` for `returns
/// table`), keeping only the columns selected or filtered: PostgreSQL's
/// 42703 names an unknown column, and suggests one, accordingly.
#[tokio::test]
async fn an_unknown_column_of_a_function_is_named_as_postgrest_names_it() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.ranked() returns table (id int, name text) language sql stable as
           $$ values (1, 'a') $$;
         create function public.all_notes() returns setof public.notes language sql stable as
           $$ select * from public.notes $$;",
    )
    .await;
    let suggest = |column: &str| json!(format!("Perhaps you meant to reference the column \"{column}\"."));
    // (path, message, hint)
    let cases = [
        ("/rpc/ranked?select=nme", "column pgrst_call.nme does not exist", suggest("pgrst_call.name")),
        ("/rpc/ranked?nme=eq.a", "column record.nme does not exist", suggest("record.name")),
        ("/rpc/ranked?order=nme", "column record.nme does not exist", suggest("record.name")),
        ("/rpc/all_notes?select=bdy", "column pgrst_call.bdy does not exist", suggest("pgrst_call.body")),
        ("/rpc/all_notes?bdy=eq.x", "column notes.bdy does not exist", suggest("notes.body")),
        // Selected alone, `id` is all the call keeps: nothing to suggest.
        ("/rpc/all_notes?select=id&order=bdy", "column notes.bdy does not exist", Value::Null),
        (
            "/rpc/all_notes?select=id&body=neq.x&order=bdy",
            "column notes.bdy does not exist",
            suggest("notes.body"),
        ),
    ];
    for (path, message, hint) in cases {
        let answer = rpc(&app, Method::GET, path, None, &[]).await;
        assert_eq!(
            (answer.status, answer.json()),
            (400, json!({"code": "42703", "message": message, "details": null, "hint": hint})),
            "{path}"
        );
    }
    // PostgreSQL's own errors name the rows alike.
    let grouped = rpc(&app, Method::GET, "/rpc/ranked?select=id,name.count()&order=name", None, &[]).await;
    assert_eq!(
        grouped.json()["message"],
        "column \"record.name\" must appear in the GROUP BY clause or be used in an aggregate function"
    );
}

/// A call asked again runs the statement planned the first time with its own
/// body in place of the first one's; other argument names, another body
/// type or another query string are planned anew.
#[tokio::test]
async fn a_call_asked_again_runs_its_plan_with_its_own_arguments() {
    let app = spawn_shop().await;
    define(
        &app,
        "create function public.shout(text) returns text language sql immutable as $$ select upper($1) $$;",
    )
    .await;
    let json_cases: Vec<(&str, &str, u16, Value)> = vec![
        ("the first call", r#"{"a": 1, "b": 2}"#, 200, json!(3)),
        ("other values", r#"{"a": 40, "b": 2}"#, 200, json!(42)),
        ("the keys in another order", r#"{"b": 5, "a": 1}"#, 200, json!(6)),
        ("white space around the body", " {\"a\": 7, \"b\": 7} \n", 200, json!(14)),
        ("an argument missing", r#"{"a": 1}"#, 404, json!("PGRST202")),
        ("an argument more", r#"{"a": 1, "b": 2, "c": 3}"#, 404, json!("PGRST202")),
        ("not JSON", r#"{"a": 1,"#, 400, json!("PGRST102")),
        ("the first call again", r#"{"a": 1, "b": 2}"#, 200, json!(3)),
    ];
    for (what, body, status, expected) in json_cases {
        let answer = Answer::from(
            app.rest(Method::POST, "/rpc/add", None)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .expect("request"),
        )
        .await;
        let got = if status == 200 { answer.json() } else { answer.json()["code"].clone() };
        assert_eq!((answer.status, got), (status, expected), "{what}");
    }
    for (body, expected) in [("hola", "HOLA"), ("adiós", "ADIÓS")] {
        let answer = Answer::from(
            app.rest(Method::POST, "/rpc/shout", None)
                .header("content-type", "text/plain")
                .body(body)
                .send()
                .await
                .expect("request"),
        )
        .await;
        assert_eq!((answer.status, answer.json()), (200, json!(expected)), "text body {body}");
    }
    for (path, expected) in [("/rpc/add?a=1&b=2", json!(3)), ("/rpc/add?a=2&b=2", json!(4))] {
        let answer = rpc(&app, Method::GET, path, None, &[]).await;
        assert_eq!((answer.status, answer.json()), (200, expected), "{path}");
    }
    let asked = |category: &'static str| {
        rpc(
            &app,
            Method::POST,
            "/rpc/products_in?select=id&order=id&limit=1",
            Some(json!({"category": category})),
            &[],
        )
    };
    // The one watch is inactive, so hidden from anon.
    for (category, expected) in
        [("Celulares", json!([{"id": 1}])), ("Relojes", json!([])), ("Celulares", json!([{"id": 1}]))]
    {
        let answer = asked(category).await;
        assert_eq!((answer.status, answer.json()), (200, expected), "{category}");
    }
}
