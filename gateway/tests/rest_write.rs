//! Writes through `/rest/v1`: insert, bulk insert, upsert, update, delete and
//! PUT, with PostgREST's statuses, headers and rollback rules, under RLS.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_shop};

const STAFF: &str = "9a1f0d1e-0000-4000-8000-00000000aaaa";

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Answer {
    let token = app.user_token(STAFF);
    let mut request = app.rest(method, path, Some(&token)).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    Answer::from(request.send().await.expect("request")).await
}

async fn product_count(app: &TestApp) -> i64 {
    app.admin().await.query_one("select count(*) from public.products", &[]).await.expect("count").get(0)
}

#[tokio::test]
async fn an_insert_returns_201_and_the_row_when_asked() {
    let app = spawn_shop().await;
    let body = json!({"name": "Pixel 8", "price": 699, "featured": true});
    let minimal = send(&app, Method::POST, "/products", &[], Some(body.clone())).await;
    assert_eq!(
        (minimal.status, minimal.content_range.as_deref(), minimal.text.as_str()),
        (201, Some("*/*"), "")
    );
    let full = send(
        &app,
        Method::POST,
        "/products?select=id,name,price,quantity,brands(name)",
        &[("prefer", "return=representation"), ("accept", "application/vnd.pgrst.object+json")],
        Some(json!({"name": "Pixel 9", "price": 799, "brand_id": 1})),
    )
    .await;
    assert_eq!(full.status, 201, "{}", full.text);
    assert_eq!(full.headers["preference-applied"], "return=representation");
    assert_eq!(
        full.json(),
        json!({"id": 102, "name": "Pixel 9", "price": 799.00, "quantity": 0, "brands": {"name": "Apple"}})
    );
    let located =
        send(&app, Method::POST, "/products", &[("prefer", "return=headers-only")], Some(body)).await;
    assert_eq!(located.status, 201);
    assert_eq!(located.headers["location"], "/products?id=eq.103");
}

#[tokio::test]
async fn a_bulk_insert_uses_the_columns_parameter_and_missing_defaults() {
    let app = spawn_shop().await;
    let rows = json!([{"name": "A", "price": 1}, {"name": "B"}]);
    let nulls = send(
        &app,
        Method::POST,
        "/products?columns=%22name%22,%22price%22&select=name,price",
        &[("prefer", "return=representation")],
        Some(rows.clone()),
    )
    .await;
    // Without missing=default a key left out is NULL, which price refuses.
    assert_eq!(nulls.status, 400, "{}", nulls.text);
    assert_eq!(nulls.json()["code"], "23502");
    let defaults = send(
        &app,
        Method::POST,
        "/products?columns=%22name%22,%22price%22&select=name,price",
        &[("prefer", "return=representation, missing=default")],
        Some(rows),
    )
    .await;
    assert_eq!(defaults.status, 201, "{}", defaults.text);
    assert_eq!(defaults.json(), json!([{"name": "A", "price": 1.00}, {"name": "B", "price": 0.00}]));
    let mismatched =
        send(&app, Method::POST, "/products", &[], Some(json!([{"name": "A"}, {"price": 1}]))).await;
    assert_eq!((mismatched.status, mismatched.json()["code"].clone()), (400, json!("PGRST102")));
    let unknown = send(&app, Method::POST, "/products", &[], Some(json!({"nope": 1}))).await;
    assert_eq!(
        unknown.json(),
        json!({"code": "PGRST204", "details": null, "hint": null, "message": "Could not find the 'nope' column of 'products' in the schema cache"})
    );
    let invalid = send(&app, Method::POST, "/products", &[], Some(json!("text"))).await;
    assert_eq!((invalid.status, invalid.json()["code"].clone()), (400, json!("PGRST102")));
}

#[tokio::test]
async fn upserts_merge_or_ignore_duplicates() {
    let app = spawn_shop().await;
    let update_only = send(
        &app,
        Method::POST,
        "/products?on_conflict=id&select=id,price",
        &[("prefer", "resolution=merge-duplicates, return=representation")],
        Some(json!({"id": 1, "name": "iPhone 15", "price": 2})),
    )
    .await;
    assert_eq!(update_only.status, 200, "{}", update_only.text);
    assert_eq!(update_only.json(), json!([{"id": 1, "price": 2.00}]));
    assert_eq!(
        update_only.headers["preference-applied"],
        "resolution=merge-duplicates, return=representation"
    );
    let with_insert = send(
        &app,
        Method::POST,
        "/products?select=id",
        &[("prefer", "resolution=merge-duplicates, return=representation")],
        Some(json!([{"id": 1, "name": "iPhone 15"}, {"id": 50, "name": "New"}])),
    )
    .await;
    assert_eq!(with_insert.status, 201);
    let ignored = send(
        &app,
        Method::POST,
        "/products?select=id",
        &[("prefer", "resolution=ignore-duplicates, return=representation")],
        Some(json!([{"id": 1, "name": "Changed"}, {"id": 51, "name": "Newer"}])),
    )
    .await;
    assert_eq!(ignored.json(), json!([{"id": 51}]));
    let name: String =
        app.admin().await.query_one("select name from products where id = 1", &[]).await.expect("q").get(0);
    assert_eq!(name, "iPhone 15");
}

#[tokio::test]
async fn updates_and_deletes_need_filters_and_report_what_they_touched() {
    let app = spawn_shop().await;
    let patched = send(
        &app,
        Method::PATCH,
        "/products?name=eq.Galaxy+S24&select=id,price",
        &[("prefer", "return=representation")],
        Some(json!({"price": 649})),
    )
    .await;
    assert_eq!((patched.status, patched.content_range.as_deref()), (200, Some("0-0/*")));
    assert_eq!(patched.json(), json!([{"id": 3, "price": 649.00}]));
    let silent = send(&app, Method::PATCH, "/products?id=eq.3", &[], Some(json!({"price": 650}))).await;
    assert_eq!(
        (silent.status, silent.content_range.as_deref(), silent.text.as_str()),
        (204, Some("0-0/*"), "")
    );
    let counted = send(
        &app,
        Method::PATCH,
        "/products?id=lt.3",
        &[("prefer", "count=exact")],
        Some(json!({"quantity": 9})),
    )
    .await;
    assert_eq!((counted.status, counted.content_range.as_deref()), (204, Some("0-1/2")), "{}", counted.text);
    for (method, verb) in [(Method::PATCH, "UPDATE"), (Method::DELETE, "DELETE")] {
        let unfiltered = send(&app, method, "/products", &[], Some(json!({"price": 1}))).await;
        assert_eq!(unfiltered.status, 400);
        assert_eq!(
            unfiltered.json(),
            json!({"code": "21000", "details": null, "hint": null, "message": format!("{verb} requires a WHERE clause")})
        );
    }
    let deleted =
        send(&app, Method::DELETE, "/products?id=eq.5", &[("prefer", "return=representation")], None).await;
    assert_eq!(
        deleted.json(),
        json!([{"id": 5, "name": "Generic Phone", "description": null, "price": 49.00, "quantity": 1,
        "category": "Celulares", "featured": false, "status": true, "tags": ["phone"], "specs": null, "brand_id": null,
        "created_at": "2024-01-01T00:00:00+00:00"}])
    );
    let gone = send(&app, Method::DELETE, "/products?id=eq.5", &[], None).await;
    assert_eq!((gone.status, gone.content_range.as_deref()), (204, Some("*/*")));
}

#[tokio::test]
async fn a_singular_write_touching_other_than_one_row_is_rolled_back() {
    let app = spawn_shop().await;
    let object = ("accept", "application/vnd.pgrst.object+json");
    let before = product_count(&app).await;
    let many = send(&app, Method::PATCH, "/products?id=lt.4", &[object], Some(json!({"quantity": 0}))).await;
    assert_eq!(many.status, 406);
    assert_eq!(many.json()["details"], "The result contains 3 rows");
    let quantity: i32 = app
        .admin()
        .await
        .query_one("select quantity from products where id = 1", &[])
        .await
        .expect("q")
        .get(0);
    assert_eq!(quantity, 5, "the update was rolled back");
    let bulk =
        send(&app, Method::POST, "/products", &[object], Some(json!([{"name": "A"}, {"name": "B"}]))).await;
    assert_eq!(bulk.status, 406);
    assert_eq!(product_count(&app).await, before, "the insert was rolled back");
}

#[tokio::test]
async fn prefer_tx_rollback_and_max_affected_leave_nothing_behind() {
    let app = spawn_shop().await;
    let before = product_count(&app).await;
    let rolled = send(
        &app,
        Method::POST,
        "/products?select=name",
        &[("prefer", "tx=rollback, return=representation")],
        Some(json!({"name": "Ghost"})),
    )
    .await;
    assert_eq!(rolled.status, 201);
    assert_eq!(rolled.json(), json!([{"name": "Ghost"}]));
    assert_eq!(product_count(&app).await, before);
    let capped = send(
        &app,
        Method::DELETE,
        "/products?id=lt.4",
        &[("prefer", "handling=strict, max-affected=2")],
        None,
    )
    .await;
    assert_eq!(capped.status, 400);
    assert_eq!(capped.json()["code"], "PGRST124");
    assert_eq!(product_count(&app).await, before);
    let strict =
        send(&app, Method::DELETE, "/products?id=eq.1", &[("prefer", "handling=strict, bogus=1")], None)
            .await;
    assert_eq!(strict.json()["code"], "PGRST122");
}

/// Every product as one text, to show that a refused write left nothing.
async fn products_text(app: &TestApp) -> String {
    app.admin()
        .await
        .query_one("select string_agg(p::text, ';' order by id) from public.products as p", &[])
        .await
        .expect("products")
        .get(0)
}

/// PostgreSQL checks a foreign key at the end of the write statement, after
/// the rows it returns were read (here through `!inner`, which finds no
/// brand for them); PostgREST counts those rows only after the statement, so
/// the violation is its answer, not the count (found by
/// `DIFFERENTIAL_SEED=2`).
#[tokio::test]
async fn a_foreign_key_violation_answers_before_the_count_of_a_singular_or_capped_write() {
    let app = spawn_shop().await;
    let object = ("accept", "application/vnd.pgrst.object+json");
    let representation = ("prefer", "return=representation");
    let capped = ("prefer", "handling=strict, max-affected=2");
    let violation = json!({
        "code": "23503",
        // PostgreSQL leaves the key out: the caller is under row-level security.
        "details": "Key is not present in table \"brands\".",
        "hint": null,
        "message": "insert or update on table \"products\" violates foreign key constraint \"products_brand_id_fkey\"",
    });
    let before = products_text(&app).await;
    let cases = [
        (
            Method::POST,
            "/products?select=*,brands!inner(*)",
            vec![object, representation],
            json!({"name": "Orphan", "brand_id": 999}),
        ),
        (
            Method::POST,
            "/products",
            vec![object],
            json!([{"name": "A", "brand_id": 999}, {"name": "B", "brand_id": 1}]),
        ),
        (
            Method::PATCH,
            "/products?id=eq.1&select=id,brands!inner(name)",
            vec![object, representation],
            json!({"brand_id": 999}),
        ),
        (Method::PATCH, "/products?id=lt.4", vec![capped], json!({"brand_id": 999})),
    ];
    for (method, path, headers, body) in cases {
        let what = format!("{method} {path} {headers:?}");
        let answer = send(&app, method, path, &headers, Some(body)).await;
        assert_eq!(answer.status, 409, "{what}: {}", answer.text);
        assert_eq!(answer.json(), violation, "{what}");
        assert_eq!(products_text(&app).await, before, "{what}: nothing was written");
    }
}

#[tokio::test]
async fn put_replaces_the_row_its_primary_key_names() {
    let app = spawn_shop().await;
    let put = send(
        &app,
        Method::PUT,
        "/notes?id=eq.9&select=id,body",
        &[("prefer", "return=representation")],
        Some(json!({"id": 9, "body": "new"})),
    )
    .await;
    assert_eq!(put.status, 200, "{}", put.text);
    assert_eq!(put.json(), json!([{"id": 9, "body": "new"}]));
    let again = send(&app, Method::PUT, "/notes?id=eq.9", &[], Some(json!({"id": 9, "body": "newer"}))).await;
    assert_eq!(again.status, 204);
    let mismatch = send(&app, Method::PUT, "/notes?id=eq.9", &[], Some(json!({"id": 8, "body": "x"}))).await;
    assert_eq!(mismatch.json()["code"], "PGRST115");
    let not_key = send(&app, Method::PUT, "/notes?body=eq.x", &[], Some(json!({"id": 8, "body": "x"}))).await;
    assert_eq!(not_key.json()["code"], "PGRST105");
}

#[tokio::test]
async fn row_level_security_refuses_anonymous_writes() {
    let app = spawn_shop().await;
    let insert = Answer::from(
        app.rest(Method::POST, "/products", None)
            .header("content-type", "application/json")
            .body(json!({"name": "Nope"}).to_string())
            .send()
            .await
            .expect("request"),
    )
    .await;
    assert_eq!(insert.status, 401);
    assert_eq!(insert.headers["www-authenticate"], "Bearer");
    assert_eq!(
        insert.json(),
        json!({"code": "42501", "details": null, "hint": null, "message": "new row violates row-level security policy for table \"products\""})
    );
    let update = Answer::from(
        app.rest(Method::PATCH, "/products?id=eq.1", None)
            .header("content-type", "application/json")
            .body(json!({"price": 1}).to_string())
            .send()
            .await
            .expect("request"),
    )
    .await;
    assert_eq!(update.status, 204, "RLS filters the rows an update sees");
    let price: rust_decimal_free::Price = app
        .admin()
        .await
        .query_one("select price::text from products where id = 1", &[])
        .await
        .expect("q")
        .get(0);
    assert_eq!(price.0, "999.00");
}

mod rust_decimal_free {
    /// `numeric` read as its text.
    pub struct Price(pub String);
    impl<'a> tokio_postgres::types::FromSql<'a> for Price {
        fn from_sql(
            ty: &tokio_postgres::types::Type,
            raw: &'a [u8],
        ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
            String::from_sql(ty, raw).map(Price)
        }
        fn accepts(ty: &tokio_postgres::types::Type) -> bool {
            <String as tokio_postgres::types::FromSql>::accepts(ty)
        }
    }
}

#[tokio::test]
async fn a_write_from_a_get_is_refused_as_postgrest_refuses_it() {
    let app = spawn_shop().await;
    app.admin()
        .await
        .batch_execute(
            "create function public.sneaky() returns setof public.notes language sql volatile as \
             $$ insert into public.notes values (77, 'x') returning * $$;",
        )
        .await
        .expect("function");
    app.admin().await.batch_execute("notify pgrst, 'reload schema'").await.expect("notify");
    let answer =
        Answer::from(app.rest(Method::GET, "/rpc/sneaky", Some(&app.service_key)).send().await.expect("r"))
            .await;
    assert_eq!(answer.status, 405, "{}", answer.text);
    assert_eq!(answer.json()["code"], "25006");
}

/// Regressions found by the differential test against PostgREST 12.0.2
/// (`rest_differential.rs`).
#[tokio::test]
async fn writes_answer_as_postgrest_does_in_the_corners_the_differential_test_found() {
    let app = spawn_shop().await;
    let rollback = [("prefer", "tx=rollback")];
    // An update-only upsert without a body is 200, not 204, and has no Content-Type.
    let upsert = send(
        &app,
        Method::POST,
        "/products?on_conflict=id",
        &[("prefer", "tx=rollback, resolution=merge-duplicates")],
        Some(json!({"id": 1, "name": "Upserted", "price": 1})),
    )
    .await;
    assert_eq!((upsert.status, upsert.content_type.as_deref(), upsert.text.as_str()), (200, None, ""));
    // A delete's range is always empty.
    let minimal = send(&app, Method::DELETE, "/products?id=in.(5,7)", &rollback, None).await;
    assert_eq!((minimal.status, minimal.content_range.as_deref()), (204, Some("*/*")));
    let full = send(
        &app,
        Method::DELETE,
        "/products?id=in.(5,7)&select=id",
        &[("prefer", "tx=rollback, return=representation, count=exact")],
        None,
    )
    .await;
    assert_eq!((full.status, full.content_range.as_deref()), (200, Some("*/2")));
    // `!inner` in a mutation's select filters the representation, not the write.
    let patch = send(
        &app,
        Method::PATCH,
        "/products?id=in.(4,5)&select=id,b:brands!inner(name)",
        &[("prefer", "tx=rollback, return=representation")],
        Some(json!({"quantity": 2})),
    )
    .await;
    assert_eq!(patch.status, 200, "{}", patch.text);
    assert_eq!(patch.json(), json!([{"id": 4, "b": {"name": "Samsung"}}]));
    let insert = send(
        &app,
        Method::POST,
        "/products?select=id,b:brands!inner(name)",
        &[("prefer", "tx=rollback, return=representation, count=exact")],
        Some(json!({"id": 300, "name": "No brand"})),
    )
    .await;
    assert_eq!((insert.status, insert.content_range.as_deref()), (201, Some("*/0")));
    assert_eq!(insert.json(), json!([]));
    // An update-only upsert is 200 even when `!inner` hides the row.
    let hidden = send(
        &app,
        Method::POST,
        "/products?on_conflict=id&select=id,b:brands!inner(name)",
        &[("prefer", "tx=rollback, return=representation, resolution=merge-duplicates")],
        Some(json!({"id": 5, "name": "Upserted", "price": 1})),
    )
    .await;
    assert_eq!((hidden.status, hidden.json()), (200, json!([])));
}

/// One request of [`a_write_takes_one_round_trip_even_when_its_checks_roll_it_back`].
struct Case {
    method: Method,
    path: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    body: Option<Value>,
    status: u16,
    /// Products each request leaves behind.
    adds: i64,
    /// Statements sent once the connection has prepared them.
    statements: u64,
    /// Times the server answered (and flushed) them.
    answers: u64,
}

/// Writes end their transaction in the round trip of their statement,
/// including those a check refuses: the statement that checks the rows a
/// write touched goes out right behind it, so its failure rolls the write
/// back in that same round trip. A request that commits sends the settings,
/// its statement and the check as one pipeline with one `Sync`, which the
/// server runs as one implicit transaction and answers once; `tx=rollback`
/// sends BEGIN, the settings, the statement and ROLLBACK, answered each.
#[tokio::test]
async fn a_write_takes_one_round_trip_even_when_its_checks_roll_it_back() {
    let (app, wire) = common::spawn_counted_shop().await;
    let object = ("accept", "application/vnd.pgrst.object+json");
    let representation = ("prefer", "return=representation");
    let case = |method, path, headers, body, status, adds, statements, answers| Case {
        method,
        path,
        headers,
        body,
        status,
        adds,
        statements,
        answers,
    };
    let cases = [
        case(Method::POST, "/products", vec![representation], Some(json!({"name": "One"})), 201, 1, 2, 1),
        case(
            Method::POST,
            "/products",
            vec![("prefer", "tx=rollback")],
            Some(json!({"name": "Ghost"})),
            201,
            0,
            4,
            4,
        ),
        case(
            Method::POST,
            "/products",
            vec![object, representation],
            Some(json!({"name": "Single"})),
            201,
            1,
            3,
            1,
        ),
        case(
            Method::POST,
            "/products",
            vec![object],
            Some(json!([{"name": "A"}, {"name": "B"}])),
            406,
            0,
            3,
            1,
        ),
        case(
            Method::DELETE,
            "/products?id=lt.4",
            vec![("prefer", "handling=strict, max-affected=2")],
            None,
            400,
            0,
            3,
            1,
        ),
        case(Method::PATCH, "/products?id=eq.3", vec![], Some(json!({"quantity": 4})), 204, 0, 2, 1),
        case(Method::GET, "/products?id=eq.3", vec![object], None, 200, 0, 2, 1),
    ];
    for Case { method, path, headers, body, status, adds, statements, answers } in cases {
        let what = format!("{method} {path} {headers:?}");
        // The first request of a shape also prepares its statement.
        let first = send(&app, method.clone(), path, &headers, body.clone()).await;
        assert_eq!(first.status, status, "{what}: {}", first.text);
        let products = product_count(&app).await;
        let mut least = u64::MAX;
        for _ in 0..5 {
            let before = wire.counts().await;
            let answer = send(&app, method.clone(), path, &headers, body.clone()).await;
            let after = wire.counts().await;
            assert_eq!(answer.status, status, "{what}: {}", answer.text);
            assert_eq!(after.statements - before.statements, statements, "{what}: statements");
            assert_eq!(after.answers - before.answers, answers, "{what}: answers");
            least = least.min(after.round_trips - before.round_trips);
        }
        assert_eq!(least, 1, "{what}: round trips");
        assert_eq!(product_count(&app).await - products, 5 * adds, "{what}: rows left behind");
    }
}

#[tokio::test]
async fn a_write_returns_timestamps_in_the_zone_it_prefers() {
    let app = spawn_shop().await;
    let prefer = [("prefer", "return=representation, timezone=Asia/Tokyo")];
    let body = json!({"id": 60, "name": "Tokyo", "price": 1, "created_at": "2024-06-01 12:00:00"});
    let created = send(&app, Method::POST, "/products?select=id,created_at", &prefer, Some(body)).await;
    assert_eq!(created.status, 201, "{}", created.text);
    // The value without an offset was read in Tokyo time, and is shown in it.
    assert_eq!(created.json(), json!([{"id": 60, "created_at": "2024-06-01T12:00:00+09:00"}]));
    assert_eq!(created.headers["preference-applied"], "return=representation, timezone=Asia/Tokyo");
    let stored: String = app
        .admin()
        .await
        .query_one("select (created_at at time zone 'UTC')::text from public.products where id = 60", &[])
        .await
        .expect("row")
        .get(0);
    assert_eq!(stored, "2024-06-01 03:00:00");
}
