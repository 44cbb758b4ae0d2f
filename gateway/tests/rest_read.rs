//! Reads through `/rest/v1` behave as PostgREST's: selects, embeds, filters,
//! logic trees, order, ranges, counts and media types.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_shop};

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = app.rest(Method::GET, path, None);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    Answer::from(request.send().await.expect("request")).await
}

fn ids(body: &Value) -> Vec<i64> {
    body.as_array().expect("array").iter().map(|row| row["id"].as_i64().expect("id")).collect()
}

#[tokio::test]
async fn filters_select_the_rows_postgrest_selects() {
    let app = spawn_shop().await;
    // (query, ids in id order); anon sees only active products (6 is inactive).
    let cases: Vec<(&str, Vec<i64>)> = vec![
        ("id=eq.1", vec![1]),
        ("id=neq.1", vec![2, 3, 4, 5, 7]),
        ("price=gt.799", vec![1, 3]),
        ("price=gte.799", vec![1, 2, 3]),
        ("price=lt.59.90", vec![5]),
        ("price=lte.59.90", vec![5, 7]),
        ("price=gte.100&price=lte.800", vec![2, 4]),
        ("name=like.iPhone*", vec![1, 2]),
        ("name=ilike.*GALAXY*", vec![3, 4]),
        ("name=ilike.%25phone%25", vec![1, 2, 5]),
        ("name=match.^Gal", vec![3, 4]),
        ("name=imatch.^gal", vec![3, 4]),
        ("id=in.(1,3,5)", vec![1, 3, 5]),
        ("id=in.()", vec![]),
        ("name=in.(\"iPhone 15\",\"Nokia 3310\")", vec![1, 7]),
        ("featured=is.null", vec![4, 7]),
        ("featured=not.is.null", vec![1, 2, 3, 5]),
        ("featured=is.true", vec![1, 3]),
        ("featured=is.false", vec![2, 5]),
        ("featured=isdistinct.true", vec![2, 4, 5, 7]),
        ("id=not.in.(1,2,3)", vec![4, 5, 7]),
        ("tags=cs.{ios}", vec![1, 2]),
        ("tags=cd.{phone,android,ios}", vec![1, 2, 3, 4, 5]),
        ("tags=ov.{watch,\"feature phone\"}", vec![7]),
        ("name=like(any).{iPhone*,Nokia*}", vec![1, 2, 7]),
        ("name=like(all).{*Phone*,Gen*}", vec![5]),
        ("id=eq(any).{1,4}", vec![1, 4]),
        ("specs->>ram=eq.8", vec![3]),
        ("specs->ram=eq.6", vec![1, 2]),
        ("specs->colors->>0=eq.black", vec![1]),
        ("name=fts.Galaxy", vec![3, 4]),
        ("name=plfts(english).galaxy s24", vec![3]),
        ("name=wfts.galaxy -s24", vec![4]),
        ("or=(id.eq.1,id.eq.7)", vec![1, 7]),
        ("or=(price.lt.100,and(featured.is.true,price.gt.900))", vec![1, 5, 7]),
        ("not.or=(id.lt.3,id.gt.4)", vec![3, 4]),
        ("and=(price.gt.100,or(name.ilike.*14*,name.ilike.*a15*))", vec![2, 4]),
        ("or=(name.eq.\"Galaxy S24\",id.eq.5)", vec![3, 5]),
        ("brand_id=is.null", vec![5]),
    ];
    for (query, expected) in cases {
        let answer = get(&app, &format!("/products?select=id&order=id&{query}"), &[]).await;
        assert_eq!(answer.status, 200, "{query}: {}", answer.text);
        assert_eq!(ids(&answer.json()), expected, "{query}");
    }
}

#[tokio::test]
async fn selects_shape_the_rows() {
    let app = spawn_shop().await;
    let cases: Vec<(&str, Value)> = vec![
        ("select=id,name&id=eq.1", json!([{"id": 1, "name": "iPhone 15"}])),
        ("select=label:name,price::text&id=eq.7", json!([{"label": "Nokia 3310", "price": "59.90"}])),
        (
            "select=id,specs->ram,specs->>colors&id=eq.1",
            json!([{"id": 1, "ram": 6, "colors": "[\"black\", \"blue\"]"}]),
        ),
        ("select=id,price&id=eq.7", json!([{"id": 7, "price": 59.90}])),
        (
            "select=id,brands(name)&id=in.(1,5)&order=id",
            json!([{"id": 1, "brands": {"name": "Apple"}}, {"id": 5, "brands": null}]),
        ),
        (
            "select=id,brand:brands(id,name)&id=eq.3",
            json!([{"id": 3, "brand": {"id": 2, "name": "Samsung"}}]),
        ),
        ("select=id,brand_id(name)&id=eq.3", json!([{"id": 3, "brand_id": {"name": "Samsung"}}])),
        ("select=id,...brands(brand_name:name)&id=eq.4", json!([{"id": 4, "brand_name": "Samsung"}])),
        ("select=id,brands()&id=eq.4", json!([{"id": 4}])),
    ];
    for (query, expected) in cases {
        let answer = get(&app, &format!("/products?{query}"), &[]).await;
        assert_eq!(answer.status, 200, "{query}: {}", answer.text);
        assert_eq!(answer.json(), expected, "{query}");
    }
    let star = get(&app, "/products?id=eq.5", &[]).await.json();
    assert_eq!(
        star,
        json!([{"id": 5, "name": "Generic Phone", "description": null, "price": 49.00, "quantity": 1,
                "category": "Celulares", "featured": false, "status": true, "tags": ["phone"], "specs": null,
                "brand_id": null, "created_at": "2024-01-01T00:00:00+00:00"}])
    );
}

#[tokio::test]
async fn one_to_many_embeds_are_arrays_with_their_own_filters_order_and_limit() {
    let app = spawn_shop().await;
    let cases: Vec<(&str, Value)> = vec![
        (
            "/brands?select=name,products(id)&order=id&products.order=id.desc",
            json!([{"name": "Apple", "products": [{"id": 2}, {"id": 1}]},
                   {"name": "Samsung", "products": [{"id": 4}, {"id": 3}]},
                   {"name": "Nokia", "products": [{"id": 7}]}]),
        ),
        (
            "/brands?select=name,products(id)&order=id&products.price=gt.500&products.limit=1&products.order=id",
            json!([{"name": "Apple", "products": [{"id": 1}]},
                   {"name": "Samsung", "products": [{"id": 3}]},
                   {"name": "Nokia", "products": []}]),
        ),
        (
            "/brands?select=name,products!inner(id)&products.quantity=eq.0",
            json!([{"name": "Apple", "products": [{"id": 2}]}]),
        ),
        ("/brands?select=name,products(id)&products=is.null&order=id", json!([])),
        (
            "/brands?select=name,products(id)&products.or=(id.eq.3,id.eq.7)&products=not.is.null&order=id",
            json!([{"name": "Samsung", "products": [{"id": 3}]}, {"name": "Nokia", "products": [{"id": 7}]}]),
        ),
        (
            "/products?select=id,brands!inner(name)&brands.name=eq.Apple&order=id",
            json!([{"id": 1, "brands": {"name": "Apple"}}, {"id": 2, "brands": {"name": "Apple"}}]),
        ),
        (
            "/products?select=id,brands(name,products(id))&id=eq.7",
            json!([{"id": 7, "brands": {"name": "Nokia", "products": [{"id": 7}]}}]),
        ),
    ];
    for (path, expected) in cases {
        let answer = get(&app, path, &[]).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        assert_eq!(answer.json(), expected, "{path}");
    }
}

#[tokio::test]
async fn order_takes_several_keys_directions_nulls_and_related_columns() {
    let app = spawn_shop().await;
    let cases: Vec<(&str, Vec<i64>)> = vec![
        ("order=price.desc", vec![1, 3, 2, 4, 7, 5]),
        ("order=featured.desc.nullslast,price.desc", vec![1, 3, 2, 5, 4, 7]),
        ("order=featured.asc.nullsfirst,id.asc", vec![4, 7, 2, 5, 1, 3]),
        ("select=id,brands(name)&order=brands(name).desc.nullslast,id", vec![3, 4, 7, 1, 2, 5]),
    ];
    for (query, expected) in cases {
        let query =
            if query.starts_with("select=") { query.to_owned() } else { format!("select=id&{query}") };
        let answer = get(&app, &format!("/products?{query}"), &[]).await;
        assert_eq!(answer.status, 200, "{query}: {}", answer.text);
        assert_eq!(ids(&answer.json()), expected, "{query}");
    }
}

#[tokio::test]
async fn ranges_and_counts_set_content_range_and_status() {
    let app = spawn_shop().await;
    let exact = [("prefer", "count=exact")];
    // (query, headers, status, Content-Range)
    type Headers<'a> = &'a [(&'a str, &'a str)];
    let cases: Vec<(&str, Headers<'_>, u16, &str)> = vec![
        ("select=id", &[], 200, "0-5/*"),
        ("select=id&limit=2", &[], 200, "0-1/*"),
        ("select=id&limit=2", &exact, 206, "0-1/6"),
        ("select=id&offset=2&limit=2", &exact, 206, "2-3/6"),
        ("select=id", &exact, 200, "0-5/6"),
        ("select=id&id=eq.1", &exact, 200, "0-0/1"),
        ("select=id&id=eq.999", &exact, 200, "*/0"),
        ("select=id&limit=0", &[], 200, "*/*"),
        // PostgREST: 206 whenever the window is smaller than the total.
        ("select=id&offset=6", &exact, 206, "*/6"),
        ("select=id&offset=10&limit=2", &exact, 416, "*/6"),
        // PostgREST 14's RangeSpec: a negative offset is a no-op (12.0.2
        // answered `offset=-1&limit=2` with one row), and the 416 of an
        // offset past the end carries the total.
        ("select=id&offset=-4", &[], 200, "0-5/*"),
        ("select=id&offset=-1&limit=2", &exact, 206, "0-1/6"),
        ("select=id&limit=0&offset=2", &exact, 206, "*/6"),
        ("select=id,brands!inner(id)&brands.name=eq.Samsung", &exact, 200, "0-1/2"),
    ];
    for (query, headers, status, range) in cases {
        let answer = get(&app, &format!("/products?{query}"), headers).await;
        assert_eq!(answer.status, status, "{query}: {}", answer.text);
        assert_eq!(answer.content_range.as_deref(), Some(range), "{query}");
    }
    let past = get(&app, "/products?select=id&offset=10&limit=2", &exact).await;
    assert_eq!(
        past.json(),
        json!({"code": "PGRST103", "details": "An offset of 10 was requested, but there are only 6 rows.", "hint": null, "message": "Requested range not satisfiable"})
    );
    let negative = get(&app, "/products?select=id&limit=-1", &[]).await;
    assert_eq!(negative.status, 416);
    assert_eq!(negative.json()["details"], "Limit should be greater than or equal to zero.");
    let head = Answer::from(
        app.rest(Method::HEAD, "/products?select=*", None)
            .header("prefer", "count=exact")
            .send()
            .await
            .expect("head"),
    )
    .await;
    assert_eq!((head.status, head.content_range.as_deref(), head.text.as_str()), (200, Some("0-5/6"), ""));
    assert_eq!(head.headers["preference-applied"], "count=exact");
}

#[tokio::test]
async fn the_range_header_narrows_a_get_together_with_limit_and_offset() {
    let app = spawn_shop().await;
    // (query, Range, Prefer, status, Content-Range, ids); products are ids 1-5 and 7.
    type Case<'a> = (&'a str, &'a str, &'a str, u16, &'a str, &'a [i64]);
    let cases: &[Case<'_>] = &[
        ("", "0-1", "", 200, "0-1/*", &[1, 2]),
        ("", "0-1", "count=exact", 206, "0-1/6", &[1, 2]),
        ("", "2-", "count=exact", 206, "2-5/6", &[3, 4, 5, 7]),
        ("", "0-9", "count=exact", 200, "0-5/6", &[1, 2, 3, 4, 5, 7]),
        ("", "6-", "count=exact", 206, "*/6", &[]),
        // Intersected with the query's window, not overriding it.
        ("&limit=2", "0-5", "", 200, "0-1/*", &[1, 2]),
        ("&limit=3", "1-5", "", 200, "1-2/*", &[2, 3]),
        ("&offset=2", "0-5", "", 200, "2-5/*", &[3, 4, 5, 7]),
        ("&offset=2&limit=2", "1-5", "", 200, "2-3/*", &[3, 4]),
        ("&limit=0", "5-2", "", 200, "*/*", &[]),
        // Not one range of items: ignored, as PostgREST ignores it.
        ("", "items=0-1", "", 200, "0-5/*", &[1, 2, 3, 4, 5, 7]),
        ("", "0-1,3-4", "", 200, "0-5/*", &[1, 2, 3, 4, 5, 7]),
    ];
    for (query, range, prefer, status, content_range, expected) in cases {
        let mut headers = vec![("range", *range), ("range-unit", "items")];
        if !prefer.is_empty() {
            headers.push(("prefer", prefer));
        }
        let answer = get(&app, &format!("/products?select=id&order=id{query}"), &headers).await;
        let label = format!("{query} Range: {range}");
        assert_eq!(answer.status, *status, "{label}: {}", answer.text);
        assert_eq!(answer.content_range.as_deref(), Some(*content_range), "{label}");
        assert_eq!(ids(&answer.json()), *expected, "{label}");
    }

    let unsatisfiable = |details: &str| json!({"code": "PGRST103", "details": details, "hint": null, "message": "Requested range not satisfiable"});
    // (query, Range, Prefer, details, Content-Range)
    let refused: &[(&str, &str, &str, &str, Option<&str>)] = &[
        (
            "",
            "5-2",
            "",
            "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
            None,
        ),
        ("&offset=7", "0-5", "", "Limit should be greater than or equal to zero.", None),
        ("", "7-", "count=exact", "An offset of 7 was requested, but there are only 6 rows.", Some("*/6")),
    ];
    for (query, range, prefer, details, content_range) in refused {
        let mut headers = vec![("prefer", *prefer)];
        if !range.is_empty() {
            headers.push(("range", range));
        }
        let answer = get(&app, &format!("/products?select=id&order=id{query}"), &headers).await;
        assert_eq!(answer.status, 416, "{query} Range: {range}: {}", answer.text);
        assert_eq!(answer.json(), unsatisfiable(details), "{query} Range: {range}");
        assert_eq!(answer.content_range.as_deref(), *content_range, "{query} Range: {range}");
    }

    // Functions read through GET take it too.
    let call = get(&app, "/rpc/products_in?category=Celulares&select=id&order=id", &[("range", "1-2")]).await;
    assert_eq!((call.status, call.content_range.as_deref()), (200, Some("1-2/*")));
    assert_eq!(ids(&call.json()), vec![2, 3]);
}

#[tokio::test]
async fn the_range_header_is_read_on_get_alone() {
    let app = spawn_shop().await;
    let send = |method: Method, path: &str, body: Option<&str>| {
        let request = app.rest(method, path, None).header("range", "1-2").header("prefer", "count=exact");
        match body {
            Some(body) => request.header("content-type", "application/json").body(body.to_owned()),
            None => request,
        }
    };
    // PostgREST 12.0.2 ignores it on HEAD, and RFC 9110 defines ranges for GET only.
    let head =
        Answer::from(send(Method::HEAD, "/products?select=id", None).send().await.expect("head")).await;
    assert_eq!((head.status, head.content_range.as_deref()), (200, Some("0-5/6")));
    let call = Answer::from(
        send(Method::POST, "/rpc/products_in?select=id&order=id", Some(r#"{"category":"Celulares"}"#))
            .send()
            .await
            .expect("call"),
    )
    .await;
    assert_eq!((call.status, call.content_range.as_deref()), (200, Some("0-5/6")));
    assert_eq!(ids(&call.json()), vec![1, 2, 3, 4, 5, 7]);
    // Nor does it limit a write, even an impossible one.
    let delete = Answer::from(
        app.rest(Method::DELETE, "/products?id=lt.4&select=id", Some(&app.service_key))
            .header("range", "5-2")
            .header("prefer", "return=representation, tx=rollback")
            .send()
            .await
            .expect("delete"),
    )
    .await;
    assert_eq!(delete.status, 200, "{}", delete.text);
    assert_eq!(ids(&delete.json()), vec![1, 2, 3]);
}

#[tokio::test]
async fn prefer_timezone_renders_timestamps_in_that_zone_for_that_request_alone() {
    // One connection: a zone that outlived its transaction would show in the next request.
    let mut config = common::test_config();
    config.pool_size = 1;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    let utc = "2024-01-01T00:00:00+00:00";
    // (Prefer, Preference-Applied, created_at of product 1), as PostgREST 12.0.2 answers.
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("timezone=America/Los_Angeles", Some("timezone=America/Los_Angeles"), "2023-12-31T16:00:00-08:00"),
        ("", None, utc),
        (
            "timezone=Asia/Kolkata, handling=strict",
            Some("handling=strict, timezone=Asia/Kolkata"),
            "2024-01-01T05:30:00+05:30",
        ),
        ("timezone=EST5EDT", Some("timezone=EST5EDT"), "2023-12-31T19:00:00-05:00"),
        // Names are matched exactly against pg_timezone_names; an unknown one is ignored.
        ("timezone=america/los_angeles", None, utc),
        ("timezone=+05", None, utc),
        ("timezone=Nowhere/Land", None, utc),
        ("timezone=UTC, timezone=Asia/Tokyo", Some("timezone=UTC"), utc),
    ];
    for (prefer, applied, created_at) in cases {
        let answer = get(&app, "/products?select=id,created_at&id=eq.1", &[("prefer", prefer)]).await;
        assert_eq!(answer.status, 200, "{prefer}: {}", answer.text);
        assert_eq!(answer.json(), json!([{"id": 1, "created_at": created_at}]), "{prefer}");
        assert_eq!(
            answer.headers.get("preference-applied").and_then(|v| v.to_str().ok()),
            *applied,
            "{prefer}"
        );
    }
    // Filters read a timestamp without an offset in the zone too.
    let tokyo = get(
        &app,
        "/products?select=id&created_at=eq.2024-01-01T09:00:00",
        &[("prefer", "timezone=Asia/Tokyo")],
    )
    .await;
    assert_eq!(ids(&tokyo.json()), vec![1, 2, 3, 4, 5, 7]);

    // Under handling=strict an unknown zone is refused, listed with the other invalid tokens.
    let strict = get(
        &app,
        "/products?select=id",
        &[("prefer", "timezone=Nope, bogus, timezone=Asia/Tokyo, handling=strict")],
    )
    .await;
    assert_eq!(strict.status, 400);
    assert_eq!(
        strict.json(),
        json!({"code": "PGRST122", "details": "Invalid preferences: timezone=Nope, bogus, timezone=Asia/Tokyo", "hint": null, "message": "Invalid preferences given with handling=strict"})
    );
    // Functions run in the zone as well.
    let call = get(
        &app,
        "/rpc/products_in?category=Celulares&select=created_at&id=eq.1",
        &[("prefer", "timezone=Asia/Tokyo")],
    )
    .await;
    assert_eq!(call.json(), json!([{"created_at": "2024-01-01T09:00:00+09:00"}]));
}

#[tokio::test]
async fn handling_strict_refuses_unknown_preferences_on_reads_too() {
    let app = spawn_shop().await;
    for path in ["/products?select=id", "/rpc/whoami", "/nope"] {
        let answer = get(&app, path, &[("prefer", "handling=strict, bogus")]).await;
        assert_eq!(answer.status, 400, "{path}");
        assert_eq!(answer.json()["details"], "Invalid preferences: bogus", "{path}");
    }
    let lenient = get(&app, "/products?select=id&id=eq.1", &[("prefer", "handling=lenient, bogus")]).await;
    assert_eq!((lenient.status, lenient.json()), (200, json!([{"id": 1}])));
}

#[tokio::test]
async fn the_max_rows_cap_limits_every_read() {
    let mut config = common::test_config();
    config.rest.max_rows = 2;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    let answer = get(&app, "/products?select=id&order=id", &[("prefer", "count=exact")]).await;
    assert_eq!(answer.status, 206);
    assert_eq!(answer.content_range.as_deref(), Some("0-1/6"));
    assert_eq!(ids(&answer.json()), vec![1, 2]);
}

#[tokio::test]
async fn media_types_give_objects_csv_and_stripped_nulls() {
    let app = spawn_shop().await;
    let object = [("accept", "application/vnd.pgrst.object+json")];
    let single = get(&app, "/products?select=id,name&id=eq.1", &object).await;
    assert_eq!(single.status, 200);
    assert_eq!(single.content_type.as_deref(), Some("application/vnd.pgrst.object+json; charset=utf-8"));
    assert_eq!(single.json(), json!({"id": 1, "name": "iPhone 15"}));
    for (query, rows) in [("id=eq.999", 0), ("id=lt.4", 3)] {
        let answer = get(&app, &format!("/products?select=id&{query}"), &object).await;
        assert_eq!(answer.status, 406);
        assert_eq!(
            answer.json(),
            json!({"code": "PGRST116", "details": format!("The result contains {rows} rows"), "hint": null,
                   "message": "Cannot coerce the result to a single JSON object"})
        );
    }
    let csv = get(&app, "/products?select=id,name,price&id=lt.3&order=id", &[("accept", "text/csv")]).await;
    assert_eq!(csv.content_type.as_deref(), Some("text/csv; charset=utf-8"));
    assert_eq!(csv.text, "id,name,price\n1,\"iPhone 15\",999.00\n2,\"iPhone 14\",799.00");
    let stripped = get(
        &app,
        "/products?select=id,featured&id=in.(3,4)&order=id",
        &[("accept", "application/vnd.pgrst.array+json;nulls=stripped")],
    )
    .await;
    assert_eq!(stripped.json(), json!([{"id": 3, "featured": true}, {"id": 4}]));
    let xml = get(&app, "/products", &[("accept", "text/xml")]).await;
    assert_eq!(xml.status, 406);
    assert_eq!(xml.json()["code"], "PGRST107");
}

#[tokio::test]
async fn errors_use_postgrests_codes_and_messages() {
    let app = spawn_shop().await;
    let cases: Vec<(&str, u16, Value)> = vec![
        (
            "/nope",
            404,
            json!({"code": "PGRST205", "details": null, "hint": null, "message": "Could not find the table 'public.nope' in the schema cache"}),
        ),
        (
            "/products?select=nope",
            400,
            // PostgreSQL's hint, as PostgREST 12.0.2 passes it on (wire-protocol.md §2.6).
            json!({"code": "42703", "details": null,
                   "hint": "Perhaps you meant to reference the column \"products.name\".",
                   "message": "column products.nope does not exist"}),
        ),
        (
            "/products?price=gtx.5",
            400,
            json!({"code": "PGRST100", "details": "unexpected \"x\" expecting operator (eq, gt, ...)", "hint": null,
                   "message": "\"failed to parse filter (gtx.5)\" (line 1, column 3)"}),
        ),
        (
            "/products?select=id,stores(*)",
            400,
            json!({"code": "PGRST200",
                   "details": "Searched for a foreign key relationship between 'products' and 'stores' in the schema 'public', but no matches were found.",
                   "hint": null, "message": "Could not find a relationship between 'products' and 'stores' in the schema cache"}),
        ),
        (
            "/products?price=eq.cheap",
            400,
            json!({"code": "22P02", "details": null, "hint": null, "message": "invalid input syntax for type numeric: \"cheap\""}),
        ),
        (
            "/products?select=id&nope.id=eq.1",
            400,
            json!({"code": "PGRST108", "details": null, "hint": "Verify that 'nope' is included in the 'select' query parameter.",
                   "message": "'nope' is not an embedded resource in this request"}),
        ),
    ];
    for (path, status, body) in cases {
        let answer = get(&app, path, &[]).await;
        assert_eq!(answer.status, status, "{path}: {}", answer.text);
        assert_eq!(answer.json(), body, "{path}");
    }
    let ambiguous = get(&app, "/brands?select=id,transfers(id)", &[]).await;
    assert_eq!(ambiguous.status, 300);
    let body = ambiguous.json();
    assert_eq!(body["code"], "PGRST201");
    assert_eq!(
        body["message"],
        "Could not embed because more than one relationship was found for 'brands' and 'transfers'"
    );
    assert_eq!(body["details"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        body["hint"],
        "Try changing 'transfers' to one of the following: 'transfers!transfers_from_brand_fkey', 'transfers!transfers_to_brand_fkey'. Find the desired relationship in the 'details' key."
    );
    let hinted = get(&app, "/brands?select=id,transfers!transfers_to_brand_fkey(id)&id=eq.2", &[]).await;
    assert_eq!(hinted.json(), json!([{"id": 2, "transfers": [{"id": 1}]}]));
}

#[tokio::test]
async fn schemas_are_chosen_with_profiles() {
    let app = spawn_shop().await;
    let answer = get(&app, "/products?select=id&id=eq.1", &[("accept-profile", "public")]).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.headers["content-profile"], "public");
    let other = get(&app, "/products", &[("accept-profile", "auth")]).await;
    assert_eq!(other.status, 406);
    assert_eq!(
        other.json(),
        json!({"code": "PGRST106", "details": null, "hint": "Only the following schemas are exposed: public", "message": "Invalid schema: auth"})
    );
}

#[tokio::test]
async fn row_level_security_decides_what_each_role_reads() {
    let app = spawn_shop().await;
    let user = app.user_token("9a1f0d1e-0000-4000-8000-000000000001");
    let anon = Answer::from(
        app.rest(Method::GET, "/products?select=id&status=eq.false", None).send().await.expect("r"),
    )
    .await;
    assert_eq!(anon.json(), json!([]));
    let staff = Answer::from(
        app.rest(Method::GET, "/products?select=id&status=eq.false", Some(&user)).send().await.expect("r"),
    )
    .await;
    assert_eq!(staff.json(), json!([{"id": 6}]));
}

#[tokio::test]
async fn weird_identifiers_and_values_are_handled_safely() {
    let app = spawn_shop().await;
    app.admin()
        .await
        .batch_execute(
            r#"create table public."Escap3e;" ("so6$3" int primary key, "col with spaces" text, "a,b" text);
               insert into public."Escap3e;" values (1, 'x', 'y'), (2, 'it''s', 'z');
               grant select on public."Escap3e;" to anon;"#,
        )
        .await
        .expect("table");
    let answer = get(&app, "/Escap3e;?select=so6$3,\"col with spaces\",\"a,b\"&order=so6$3", &[]).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json(),
        json!([{"so6$3": 1, "col with spaces": "x", "a,b": "y"}, {"so6$3": 2, "col with spaces": "it's", "a,b": "z"}])
    );
    let quoted = get(&app, "/notes?select=id&body=in.(\"a, \\\"quoted\\\" note\",x)", &[]).await;
    assert_eq!(quoted.json(), json!([{"id": 1}]));
    let injection = get(&app, "/products?select=id&name=eq.x'; drop table public.products; --", &[]).await;
    assert_eq!(injection.json(), json!([]));
    assert_eq!(get(&app, "/products?select=id&id=eq.1", &[]).await.json(), json!([{"id": 1}]));
}

#[tokio::test]
async fn planned_and_estimated_counts_come_from_the_planner() {
    let app = spawn_shop().await;
    app.admin().await.batch_execute("analyze public.products").await.expect("analyze");
    for method in ["planned", "estimated"] {
        let prefer = format!("count={method}");
        let answer = get(&app, "/products?select=id&limit=2", &[("prefer", prefer.as_str())]).await;
        assert_eq!(answer.status, 206, "{method}: {}", answer.text);
        let range = answer.content_range.expect("range");
        let total: i64 = range.split('/').nth(1).and_then(|t| t.parse().ok()).expect("a number");
        assert!(total > 0, "{method}: {range}");
        assert_eq!(answer.headers["preference-applied"], prefer.as_str());
    }
}

#[tokio::test]
async fn the_root_describes_what_the_caller_may_use() {
    let app = spawn_shop().await;
    app.admin().await.batch_execute("revoke select on public.notes from anon").await.expect("revoke");
    for path in ["/", ""] {
        let answer = get(&app, path, &[("accept", "application/openapi+json")]).await;
        assert_eq!(answer.status, 200, "{path:?}: {}", answer.text);
        assert_eq!(answer.content_type.as_deref(), Some("application/openapi+json; charset=utf-8"));
        let doc = answer.json();
        assert_eq!(doc["swagger"], "2.0");
        assert_eq!(doc["definitions"]["products"]["properties"]["price"]["type"], "number");
        assert_eq!(doc["definitions"]["products"]["properties"]["tags"]["type"], "array");
        assert!(doc["paths"]["/brands"]["get"].is_object());
        assert!(doc["paths"]["/rpc/add"]["post"].is_object());
        assert!(doc["paths"]["/notes"].is_null(), "anon may not read notes any more");
    }
}

#[tokio::test]
async fn prepared_statements_per_connection_stay_bounded() {
    let mut config = common::test_config();
    config.pool_size = 1;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.items (id int primary key);
             create function public.prepared() returns int8 language sql stable as
               $$ select count(*) from pg_catalog.pg_prepared_statements $$;",
        )
        .await
        .expect("fixture");
    for limit in 1..=400 {
        let answer = get(&app, &format!("/items?limit={limit}"), &[]).await;
        assert_eq!(answer.status, 200);
    }
    let answer = Answer::from(app.rest(Method::POST, "/rpc/prepared", None).send().await.expect("rpc")).await;
    let prepared = answer.json().as_i64().expect("a count");
    assert!((1..=270).contains(&prepared), "{prepared} statements prepared on one connection");
}

/// Regressions found by the differential test against PostgREST 12.0.2
/// (`rest_differential.rs`).
#[tokio::test]
async fn reads_answer_as_postgrest_does_in_the_corners_the_differential_test_found() {
    let app = spawn_shop().await;
    let count = [("prefer", "count=exact")];
    // A 416 says the total in Content-Range.
    let past = get(&app, "/products?select=id&offset=10", &count).await;
    assert_eq!((past.status, past.content_range.as_deref()), (416, Some("*/6")));
    // The singular check comes before the range check.
    let single = get(
        &app,
        "/products?select=id&offset=10",
        &[count[0], ("accept", "application/vnd.pgrst.object+json")],
    )
    .await;
    assert_eq!(single.status, 406);
    // CSV: no header line without rows; a spread's columns head its cells;
    // embeds are rendered as jsonb.
    let csv = [("accept", "text/csv")];
    assert_eq!(get(&app, "/products?select=id&id=eq.999", &csv).await.text, "\n");
    assert_eq!(
        get(&app, "/products?select=id,...brands(brand:name)&id=eq.1", &csv).await.text,
        "id,brand\n1,Apple"
    );
    assert_eq!(
        get(&app, "/products?select=id,brands(id,name)&id=eq.1", &csv).await.text,
        "id,brands\n1,\"{\"\"id\"\": 1, \"\"name\"\": \"\"Apple\"\"}\""
    );
    // An `!inner` embed's limit and offset bound what matches; the count ignores them.
    let inner = get(
        &app,
        "/brands?select=name,products!inner(id)&products.order=id&products.limit=1&products.offset=1&order=id",
        &count,
    )
    .await;
    assert_eq!(inner.content_range.as_deref(), Some("0-1/3"));
    assert_eq!(
        inner.json(),
        json!([{"name": "Apple", "products": [{"id": 2}]}, {"name": "Samsung", "products": [{"id": 4}]}])
    );
    // Ordering by a related column sees the embed's filters: a filtered-out
    // brand orders as null (first, descending).
    let ordered = get(
        &app,
        "/products?select=id,brands(name)&brands.name=eq.Apple&order=brands(name).desc,id&id=in.(1,3,5)",
        &[],
    )
    .await;
    assert_eq!(ids(&ordered.json()), vec![3, 5, 1]);
    // `rel(count)` counts the embed's rows.
    let counted = get(&app, "/brands?select=id,products(count)&order=id&products.price=gt.500", &[]).await;
    assert_eq!(
        counted.json(),
        json!([{"id": 1, "products": [{"count": 2}]}, {"id": 2, "products": [{"count": 1}]},
               {"id": 3, "products": [{"count": 0}]}])
    );
    // An unexposed schema is reported before an unacceptable media type.
    let both =
        get(&app, "/products?select=id", &[("accept-profile", "private"), ("accept", "application/xml")])
            .await;
    assert_eq!((both.status, both.json()["code"].clone()), (406, json!("PGRST106")));
    // An unknown column gets PostgreSQL's "Perhaps you meant" hint.
    let unknown = get(&app, "/products?select=id,nope", &[]).await;
    assert_eq!(
        unknown.json(),
        json!({"code": "42703", "details": null, "hint": "Perhaps you meant to reference the column \"products.name\".",
               "message": "column products.nope does not exist"})
    );
}

#[tokio::test]
async fn many_to_many_embeds_go_through_the_junction_table() {
    let app = spawn_shop().await;
    let cases: Vec<(&str, Value)> = vec![
        (
            "/films?select=title,actors(last_name)&actors.order=id&order=id&limit=3",
            json!([{"title": "Alien", "actors": [{"last_name": "Weaver"}]},
                   {"title": "Heat", "actors": [{"last_name": "Pacino"}, {"last_name": "De Niro"}]},
                   {"title": "Ronin", "actors": [{"last_name": "De Niro"}, {"last_name": "Reno"}]}]),
        ),
        // The junction's name as the hint; the other direction.
        (
            "/actors?select=id,films!films_actors(title)&id=eq.3&films.order=year.desc",
            json!([{"id": 3, "films": [{"title": "Ronin"}, {"title": "Heat"}]}]),
        ),
        // !inner with a filter on the far table.
        (
            "/films?select=title,actors!inner(last_name)&actors.last_name=eq.Reno",
            json!([{"title": "Ronin", "actors": [{"last_name": "Reno"}]}]),
        ),
        ("/films?select=title,actors()&actors=is.null", json!([{"title": "Unseen"}])),
        // Composite keys on both sides.
        (
            "/shelves?select=label,editions(lang)&id=eq.1&editions.order=lang",
            json!([{"label": "Top", "editions": [{"lang": "en"}, {"lang": "es"}]}]),
        ),
    ];
    for (path, expected) in cases {
        let answer = get(&app, path, &[]).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        assert_eq!(answer.json(), expected, "{path}");
    }
}

#[tokio::test]
async fn two_junctions_between_the_same_tables_need_a_hint() {
    let app = spawn_shop().await;
    let answer = get(&app, "/teams?select=name,members(name)", &[]).await;
    assert_eq!(answer.status, 300, "{}", answer.text);
    let body = answer.json();
    assert_eq!(body["code"], "PGRST201");
    assert_eq!(body["details"][0]["cardinality"], "many-to-many");
    assert_eq!(
        body["details"][1]["relationship"],
        "team_members using team_members_team_id_fkey(team_id) and team_members_member_id_fkey(member_id)"
    );
    assert_eq!(
        body["hint"],
        "Try changing 'members' to one of the following: 'members!team_leads', 'members!team_members'. \
         Find the desired relationship in the 'details' key."
    );
    let answer = get(&app, "/teams?select=name,members!team_leads(name)&id=eq.1", &[]).await;
    assert_eq!(answer.json(), json!([{"name": "Red", "members": [{"name": "Ana"}]}]));
}

#[tokio::test]
async fn computed_fields_are_selected_filtered_and_ordered_like_columns() {
    let app = spawn_shop().await;
    let answer =
        get(&app, "/actors?select=id,name:full_name&full_name=like.*e*&order=full_name.desc", &[]).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json(),
        json!([{"id": 1, "name": "Sigourney Weaver"}, {"id": 3, "name": "Robert De Niro"},
               {"id": 4, "name": "Jean Reno"}])
    );
    // `select=*` leaves them out, as PostgREST does.
    let answer = get(&app, "/actors?id=eq.2", &[]).await;
    assert_eq!(answer.json(), json!([{"id": 2, "first_name": "Al", "last_name": "Pacino"}]));
    // In an embed, and in a write's representation.
    let answer = get(&app, "/films?select=actors(full_name)&id=eq.1", &[]).await;
    assert_eq!(answer.json(), json!([{"actors": [{"full_name": "Sigourney Weaver"}]}]));
    let created = app
        .rest(Method::POST, "/actors?select=full_name", Some(&app.service_key))
        .header("content-type", "application/json")
        .header("prefer", "return=representation")
        .body(json!({"id": 9, "first_name": "A", "last_name": "B"}).to_string())
        .send()
        .await
        .expect("request");
    let created = Answer::from(created).await;
    assert_eq!((created.status, created.json()), (201, json!([{"full_name": "A B"}])), "{}", created.text);
}

#[tokio::test]
async fn computed_relationships_embed_what_their_function_returns() {
    let app = spawn_shop().await;
    let answer = get(
        &app,
        "/actors?select=last_name,filmography(title),latest_film(title)&id=in.(3,5)&order=id&filmography.order=year",
        &[],
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json(),
        json!([{"last_name": "De Niro", "filmography": [{"title": "Heat"}, {"title": "Ronin"}],
                "latest_film": {"title": "Ronin"}},
               {"last_name": "Cast", "filmography": [], "latest_film": null}])
    );
    let answer = get(&app, "/actors?select=id,latest_film!inner(title)&latest_film.title=eq.Heat", &[]).await;
    assert_eq!(answer.json(), json!([{"id": 2, "latest_film": {"title": "Heat"}}]));
}

/// Found by the fuzzer (`tests/fuzz_requests.rs`): a computed relationship
/// used as a filter or an order reached PostgreSQL, which refused it with
/// 0A000 (a set-returning function in WHERE, a row compared with text), a 501.
/// It is no column, and answers as an unknown one does.
#[tokio::test]
async fn a_computed_relationship_is_no_column_to_filter_or_order_by() {
    let app = spawn_shop().await;
    for path in [
        "/actors?filmography=like.infinity",
        "/actors?or=(filmography.eq.1,id.eq.1)",
        "/films?lead_actor=in.(9,1)",
        "/films?lead_actor=eq.1",
        "/actors?order=filmography.desc",
        "/films?select=title,actors(id)&actors.order=filmography",
    ] {
        let answer = get(&app, path, &[]).await;
        assert_eq!(
            (answer.status, answer.json()["code"].clone()),
            (400, json!("42703")),
            "{path}: {}",
            answer.text
        );
    }
    // Embedded, it still reads its rows.
    let answer = get(&app, "/films?select=id,lead_actor(id)&id=eq.1", &[]).await;
    assert_eq!(answer.json(), json!([{"id": 1, "lead_actor": {"id": 1}}]), "{}", answer.text);
}

#[tokio::test]
async fn a_junction_created_later_is_embeddable_after_a_schema_reload() {
    let app = spawn_shop().await;
    let listener = gateway::rest::cache::spawn_listener(app.state.schema.clone(), app.state.db.clone());
    let before = get(&app, "/people?select=name,members(name)", &[]).await;
    assert_eq!(before.json()["code"], "PGRST200", "{}", before.text);
    app.admin()
        .await
        .batch_execute(
            "create table public.mentors (
               person_id int references public.people (id),
               member_id int references public.members (id),
               primary key (person_id, member_id));
             insert into public.mentors values (1, 3);
             notify pgrst, 'reload schema';",
        )
        .await
        .expect("ddl");
    let started = std::time::Instant::now();
    loop {
        let answer = get(&app, "/people?select=name,members(name)&id=eq.1", &[]).await;
        if answer.status == 200 {
            assert_eq!(answer.json(), json!([{"name": "Ann", "members": [{"name": "Cy"}]}]));
            break;
        }
        assert!(started.elapsed().as_secs() < 5, "the junction never appeared: {}", answer.text);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    listener.abort();
}

/// A case's name, its headers, and the status, `Content-Range` and body
/// it answers.
type HeaderCase<'a> = (&'a str, &'a [(&'a str, &'a str)], u16, Option<&'a str>, &'a str);

#[tokio::test]
async fn a_read_asked_again_answers_as_it_did_whatever_header_changes_its_plan() {
    let app = spawn_shop().await;
    let path = "/brands?select=id&id=lte.3&order=id";
    let object = "application/vnd.pgrst.object+json";
    // Each case twice, in turn: the second round is answered from the memo
    // of planned reads, and must answer as the first.
    let cases: [HeaderCase<'_>; 6] = [
        ("no header", &[], 200, None, r#"[{"id":1},{"id":2},{"id":3}]"#),
        ("CSV", &[("accept", "text/csv")], 200, None, "id\n1\n2\n3"),
        ("a range", &[("range", "1-1")], 200, None, r#"[{"id":2}]"#),
        ("a count", &[("prefer", "count=exact")], 200, Some("0-2/3"), r#"[{"id":1},{"id":2},{"id":3}]"#),
        ("an object", &[("accept", object)], 406, None, ""),
        ("an object and a range", &[("accept", object), ("range", "2-2")], 200, None, r#"{"id":3}"#),
    ];
    for round in ["planned", "memoized"] {
        for (case, headers, status, content_range, body) in &cases {
            let answer = get(&app, path, headers).await;
            assert_eq!(answer.status, *status, "{round}, {case}: {}", answer.text);
            if let Some(range) = content_range {
                assert_eq!(answer.content_range.as_deref(), Some(*range), "{round}, {case}");
            }
            if *status == 200 && body.starts_with(['[', '{']) {
                let expected: Value = serde_json::from_str(body).expect("JSON");
                assert_eq!(answer.json(), expected, "{round}, {case}");
            } else if *status == 200 {
                assert_eq!(answer.text.trim_end(), *body, "{round}, {case}");
            }
        }
    }
    assert!(!app.state.schema.memo().is_empty(), "the reads were kept");
}

#[tokio::test]
async fn a_read_asked_again_after_a_schema_reload_is_planned_again() {
    let app = spawn_shop().await;
    let listener = gateway::rest::cache::spawn_listener(app.state.schema.clone(), app.state.db.clone());
    // `*` is expanded from the schema cache, so a plan kept from before the
    // reload would lack the new column.
    let before = get(&app, "/brands?id=eq.1", &[]).await;
    assert_eq!(before.json()[0].get("motto"), None, "{}", before.text);
    app.admin()
        .await
        .batch_execute(
            "alter table public.brands add column motto text default 'Think different';
             notify pgrst, 'reload schema';",
        )
        .await
        .expect("ddl");
    let started = std::time::Instant::now();
    loop {
        let answer = get(&app, "/brands?id=eq.1", &[]).await;
        if answer.json()[0].get("motto").is_some() {
            assert_eq!(answer.json()[0]["motto"], "Think different", "{}", answer.text);
            break;
        }
        assert!(started.elapsed().as_secs() < 5, "the new column never appeared: {}", answer.text);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    listener.abort();
}

/// The steps before a handler, in PostgREST's and the hosted gateway's order:
/// the API key whatever the path, then the route's methods (405 with
/// `Allow`), then the bearer, then the path (PGRST125); names are
/// percent-decoded, bytes that are no UTF-8 replaced, as PostgREST reads them.
#[tokio::test]
async fn requests_are_refused_by_key_then_method_then_bearer_then_path() {
    let app = spawn_shop().await;
    let url = |path: &str| format!("{}/rest/v1{path}", app.address);
    // (method, path, apikey, bearer, status, code or Allow, what it shows)
    type Case<'a> = (Method, &'a str, bool, Option<&'a str>, u16, &'a str, &'a str);
    let cases: &[Case<'_>] = &[
        (Method::POST, "/", false, None, 401, "", "no key, whatever the method"),
        (Method::GET, "/a/b", false, None, 401, "", "no key, whatever the path"),
        (Method::POST, "/", true, None, 405, "GET,HEAD", "the root is read only"),
        (Method::POST, "", true, None, 405, "GET,HEAD", "so is the root without its slash"),
        (Method::DELETE, "/rpc/f", true, Some("bad"), 405, "GET,HEAD,POST", "the method before the bearer"),
        (Method::TRACE, "/products", true, None, 405, "GET,HEAD,POST,PATCH,PUT,DELETE", "a table's methods"),
        (Method::GET, "/a/b", true, Some("bad"), 401, "PGRST301", "the bearer before the path"),
        (Method::GET, "/a/b", true, None, 404, "PGRST125", "two segments"),
        (Method::GET, "/products/", true, None, 404, "PGRST125", "a trailing slash"),
        (Method::GET, "/rpc/", true, None, 404, "PGRST125", "a call of nothing"),
        (Method::GET, "/rpc", true, None, 404, "PGRST205", "`rpc` alone is a table's name"),
        (Method::GET, "/nope%ff", true, None, 404, "PGRST205", "no UTF-8"),
        (Method::GET, "/pro%64ucts?select=id&id=eq.1", true, None, 200, "", "a percent-encoded name"),
        (Method::GET, "/", true, None, 200, "", "the description"),
    ];
    for (method, path, key, bearer, status, expected, shows) in cases {
        let mut request = app.client.request(method.clone(), url(path));
        if *key {
            request = request.header("apikey", &app.anon_key);
        }
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        let answer = Answer::from(request.send().await.expect("request")).await;
        assert_eq!(answer.status, *status, "{shows}: {}", answer.text);
        match *status {
            405 => {
                assert_eq!(answer.headers["allow"], *expected, "{shows}");
                assert_eq!(answer.text, "", "{shows}");
            }
            401 if !*key => assert!(answer.text.contains("No API key found"), "{shows}: {}", answer.text),
            401 | 404 => assert_eq!(answer.json()["code"], *expected, "{shows}"),
            _ => {}
        }
    }
    let decoded = get(&app, "/nope%ff", &[]).await;
    assert_eq!(
        decoded.json()["message"],
        "Could not find the table 'public.nope\u{fffd}' in the schema cache",
        "invalid UTF-8 is replaced, as WAI's pathInfo does"
    );
}
