//! The floor under the gateway's REST requests: what serving one costs on the
//! parts the gateway is built on, with none of its own work. Each request is
//! read whole by hyper, a pooled connection is taken from deadpool-postgres,
//! and the transaction's settings and the scenario's statement (the text the
//! gateway renders for it, `bench/pgbench/gateway/`) go to PostgreSQL in one
//! pipeline with one `Sync` (`query_pipeline`, vendor/README.md), as the
//! gateway sends them; the statement's `body` column is the answer. No
//! routing, no API key or JWT, no parsing, planning or rendering, no layers.
//! `bench/floor.sh` measures its CPU per request beside the gateway's and
//! PostgREST's.
//!
//!   floor --listen 127.0.0.1:3001 --database-url postgres://authenticator@... \
//!         --scenario s2 --pool-size 8 --workers 1

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio_postgres::types::ToSql;

/// The same allocator as the gateway's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The gateway's settings statement (`gateway_core::db::session`).
const SET_CONFIG: &str = "select pg_catalog.count(pg_catalog.set_config(k, v, true)) from unnest($1::text[], $2::text[]) as s(k, v)";

/// A scenario of `bench/run.sh` the floor serves: its statement, with `$1`
/// where the gateway's has the request's value, and who runs it.
struct Scenario {
    sql: &'static str,
    role: &'static str,
    read_only: &'static str,
    method: &'static str,
    /// `$1` for the `n`th request.
    param: fn(u64) -> Param,
}

enum Param {
    Int(i64),
    Text(String),
}

fn scenario(name: &str) -> Option<Scenario> {
    Some(match name {
        "s1" => Scenario {
            sql: concat!(
                r#"select (select pg_catalog.count(*) from "public"."products" as "products") as total, pg_catalog.count(*) as page, coalesce(pg_catalog.json_agg(_r), '[]')::text as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."slug" as "slug", "products"."description" as "description", "products"."price" as "price", "products"."image_path" as "image_path", "products"."brand_id" as "brand_id", "products"."is_active" as "is_active", "products"."created_at" as "created_at", case when "products_brands_1"."_m" then (select pg_catalog.to_jsonb(_e) from (select "products_brands_1"."id" as "id", "products_brands_1"."name" as "name", "products_brands_1"."slug" as "slug", "products_brands_1"."is_active" as "is_active") as _e) end as "brands" "#,
                r#"from (select "products".* from "public"."products" as "products" order by "products"."id" limit 20 offset $1) as "products" left join lateral (select true as "_m", "brands_1"."id" as "id", "brands_1"."name" as "name", "brands_1"."slug" as "slug", "brands_1"."is_active" as "is_active" from "public"."brands" as "brands_1" where "brands_1"."id" = "products"."brand_id") as "products_brands_1" on true order by "products"."id") as _r"#
            ),
            role: "anon",
            read_only: "on",
            method: "GET",
            param: |n| Param::Int(20 * (n % 10) as i64),
        },
        "s2" => Scenario {
            sql: concat!(
                r#"select null::int8 as total, pg_catalog.count(*) as page, (pg_catalog.json_agg(_r) -> 0)::text as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."slug" as "slug", "products"."description" as "description", "products"."price" as "price", "products"."image_path" as "image_path", "products"."brand_id" as "brand_id", "products"."is_active" as "is_active", "products"."created_at" as "created_at", "#,
                r#"(select pg_catalog.to_jsonb(_e) from (select "brands_1"."id" as "id", "brands_1"."name" as "name", "brands_1"."slug" as "slug", "brands_1"."is_active" as "is_active" from "public"."brands" as "brands_1" where "brands_1"."id" = "products"."brand_id" limit 1) as _e) as "brands" from (select "products".* from "public"."products" as "products" where "products"."id" = $1 limit 1000) as "products") as _r"#
            ),
            role: "anon",
            read_only: "on",
            method: "GET",
            param: |n| Param::Int((n * 7919 % 2000 + 1) as i64),
        },
        "s4" => Scenario {
            sql: concat!(
                r#"with pgrst_mut as (insert into "public"."products" as t0 ("brand_id", "name", "price", "slug") values ((pg_catalog.hashtext($1) & 31) + 1, 'Bench', 9.99, $1) returning t0.*, (t0.xmax = 0) as pgrst_inserted), pgrst_ret as (select t0."id", t0."name", t0."slug", t0."description", t0."price", t0."image_path", t0."brand_id", t0."is_active", t0."created_at" from pgrst_mut as t0) "#,
                r#"select null::int8 as total, (select pg_catalog.count(*) from pgrst_ret) as page, (select coalesce(pg_catalog.json_agg(_r), '[]')::text from (select t0."id" as "id", t0."name" as "name", t0."slug" as "slug", t0."description" as "description", t0."price" as "price", t0."image_path" as "image_path", t0."brand_id" as "brand_id", t0."is_active" as "is_active", t0."created_at" as "created_at" from pgrst_ret as t0) as _r) as body, null::text as extra"#
            ),
            role: "authenticated",
            read_only: "off",
            method: "POST",
            param: |n| Param::Text(format!("floor-{}-{n}", std::process::id())),
        },
        "rpc" => Scenario {
            // The gateway binds the body untyped; `$1::text::json` lets
            // tokio-postgres bind it as text.
            sql: concat!(
                r#"select null::int8 as total, pg_catalog.count(*) as page, coalesce(pg_catalog.json_agg(_r), '[]')::text as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."slug" as "slug", "products"."description" as "description", "products"."price" as "price", "products"."image_path" as "image_path", "products"."brand_id" as "brand_id", "products"."is_active" as "is_active", "products"."created_at" as "created_at" "#,
                r#"from (select "products".* from pg_catalog.json_to_record($1::text::json) as _a("low" numeric, "high" numeric) cross join lateral "public"."products_between"("high" := _a."high", "low" := _a."low") as "products" order by "products"."id" limit 20) as "products") as _r"#
            ),
            role: "anon",
            read_only: "on",
            method: "POST",
            param: |n| {
                let low = n * 7919 % 981;
                Param::Text(format!(r#"{{"low":{low},"high":{}}}"#, low + 20))
            },
        },
        _ => return None,
    })
}

struct Floor {
    pool: Pool,
    scenario: Scenario,
    served: AtomicU64,
}

async fn answer(floor: Arc<Floor>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let failed = |status: StatusCode| {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = status;
        Ok(response)
    };
    // Read whole, as the gateway reads a body.
    if request.into_body().collect().await.is_err() {
        return failed(StatusCode::BAD_REQUEST);
    }
    let n = floor.served.fetch_add(1, Ordering::Relaxed);
    let Ok(client) = floor.pool.get().await else { return failed(StatusCode::SERVICE_UNAVAILABLE) };
    let (Ok(settings), Ok(statement)) =
        (client.prepare_cached(SET_CONFIG).await, client.prepare_cached(floor.scenario.sql).await)
    else {
        return failed(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let scenario = &floor.scenario;
    let claims = format!(r#"{{"role":"{}"}}"#, scenario.role);
    let keys = [
        "search_path",
        "statement_timeout",
        "role",
        "request.jwt.claims",
        "request.method",
        "request.path",
        "request.headers",
        "transaction_read_only",
    ];
    let values = [
        r#""public", "extensions""#,
        "3s",
        scenario.role,
        claims.as_str(),
        scenario.method,
        "/products",
        "{}",
        scenario.read_only,
    ];
    let param = (scenario.param)(n);
    let param: &(dyn ToSql + Sync) = match &param {
        Param::Int(value) => value,
        Param::Text(value) => value,
    };
    let rows =
        client.query_pipeline(&[(&settings, &[&&keys[..], &&values[..]]), (&statement, &[param])]).await;
    let Some(body) = rows.ok().and_then(|mut rows| rows.pop()).and_then(|rows| rows.into_iter().next())
    else {
        return failed(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let body: Option<String> = body.get("body");
    let mut response = Response::new(Full::new(Bytes::from(body.unwrap_or_default())));
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
    Ok(response)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut listen, mut url, mut name, mut pool_size, mut workers) =
        (String::from("127.0.0.1:3001"), String::new(), String::from("s2"), 8, 1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--listen" => listen = value,
            "--database-url" => url = value,
            "--scenario" => name = value,
            "--pool-size" => pool_size = value.parse().expect("--pool-size is a number"),
            "--workers" => workers = value.parse().expect("--workers is a number"),
            _ => panic!("unknown flag {flag}"),
        }
    }
    let scenario = scenario(&name).unwrap_or_else(|| panic!("no scenario {name}: s1, s2, s4 or rpc"));
    let config: tokio_postgres::Config = url.parse().expect("--database-url");
    let manager = Manager::from_config(
        config,
        tokio_postgres::NoTls,
        ManagerConfig { recycling_method: RecyclingMethod::Fast },
    );
    let pool = Pool::builder(manager).max_size(pool_size).build().expect("pool");
    let floor = Arc::new(Floor { pool, scenario, served: AtomicU64::new(0) });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&listen).await.expect("listen");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let _ = stream.set_nodelay(true);
            let floor = floor.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| answer(floor.clone(), request));
                let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
}
