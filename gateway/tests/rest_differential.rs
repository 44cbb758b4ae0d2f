//! The gateway answers as a real PostgREST 12.0.2 does: thousands of generated
//! requests (reads of every kind, and writes both servers roll back) are sent
//! to both, on one fixture database (the shop, `tests/fixtures/shop.sql`, then
//! the catalog, `tests/fixtures/catalog.sql`, each in a test of its own that
//! shares the runner below), and their status, `Content-Range`,
//! `Content-Type` and decoded body must be identical, except where
//! `differential/allowlist.rs` names a PostgREST 12 -> 13+ change that the
//! gateway follows on purpose (reliability.md §5.14).
//!
//! PostgREST comes from npm (`scripts/postgrest.sh`, cached under `target/`).
//! A failure prints each difference with both answers (`DIFFERENTIAL_SHOW=N`
//! for more than 40); the seeds below replay the same requests, and
//! `DIFFERENTIAL_SEED=<n>` generates others. `DIFFERENTIAL_DUMP=<file>` writes
//! every request with both statuses.

mod common;
mod differential;

use futures::StreamExt;
use serde_json::json;

use common::{
    Options, SECRET, TestApp, fresh_database, spawn_app_with, spawn_catalog, spawn_library, spawn_shop,
    test_config,
};
use differential::allowlist::ALLOWLIST;
use differential::compare::{Answer, Request, Who, same};
use differential::generate::{self, Rng};
use differential::generate_calls;
use differential::generate_catalog;
use differential::generate_nested;

const SEED: u64 = 0x5EED_2026;
const READS: usize = 2400;
const WRITES: usize = 400;
const CATALOG_SEED: u64 = 0xCA7A_1065;
const CATALOG_READS: usize = 7400;
const NESTED_SEED: u64 = 0x0E57_ED12;
const NESTED_READS: usize = 2000;
const CALLS_SEED: u64 = 0xCA11_2026;
const CALLS: usize = 5200;

struct Tokens {
    anon: String,
    user: String,
    service: String,
    expired: String,
    forged: String,
}

impl Tokens {
    fn new(app: &TestApp) -> Self {
        // Signed with the JWT secret (HS256, no `kid`), the one key both
        // PostgREST (`jwt-secret`) and the gateway (its previous key) verify;
        // the gateway's current ES256 key is unknown to PostgREST.
        let sign = |claims: serde_json::Value| app.state.credentials.jwt.sign_legacy(&claims).expect("sign");
        let now = gateway::jwt::now();
        let user = sign(json!({
            "sub": "6f1c7c1e-3c5a-4d4e-9f57-1f1c2b3a4d5e", "role": "authenticated", "aud": "authenticated",
            "email": "6f1c7c1e-3c5a-4d4e-9f57-1f1c2b3a4d5e@example.com", "iat": now, "exp": now + 3600,
        }));
        let expired = sign(json!({
            "sub": "6f1c7c1e-3c5a-4d4e-9f57-1f1c2b3a4d5e", "role": "authenticated", "aud": "authenticated",
            "iat": now - 7200, "exp": now - 3600,
        }));
        // Another signature: change one character in its middle.
        let mut forged = user.clone().into_bytes();
        let i = forged.len() - 10;
        forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
        let forged = String::from_utf8(forged).expect("ascii");
        Self { anon: app.anon_key.clone(), user, service: app.service_key.clone(), expired, forged }
    }

    fn get(&self, who: Who) -> &str {
        match who {
            Who::Anon => &self.anon,
            Who::User => &self.user,
            Who::Service => &self.service,
            Who::Expired => &self.expired,
            Who::Forged => &self.forged,
        }
    }
}

async fn send(client: &reqwest::Client, base: &str, apikey: &str, token: &str, request: &Request) -> Answer {
    let build = || {
        let mut builder = client
            .request(request.method.clone(), format!("{base}{}", request.path))
            .header("apikey", apikey)
            .bearer_auth(token);
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        builder
    };
    // A dropped connection is retried once (an idle keep-alive connection may
    // have been closed), then recorded as status 0.
    match build().send().await {
        Ok(response) => Answer::from(response).await,
        Err(_) => match build().send().await {
            Ok(response) => Answer::from(response).await,
            Err(e) => Answer::failed(&e),
        },
    }
}

struct Targets<'a> {
    client: &'a reqwest::Client,
    gateway: &'a str,
    postgrest: &'a str,
    tokens: &'a Tokens,
}

impl Targets<'_> {
    /// The request sent to PostgREST, then to the gateway.
    async fn both(&self, request: &Request) -> (Answer, Answer) {
        let (anon, token) = (&self.tokens.anon, self.tokens.get(request.who));
        let reference = send(self.client, self.postgrest, anon, token, request).await;
        let ours = send(self.client, self.gateway, anon, token, request).await;
        (reference, ours)
    }
}

enum Verdict {
    Identical,
    Allowed(&'static str),
    Differs,
}

/// The seed of a test's generated requests: `DIFFERENTIAL_SEED` explores
/// other requests; CI uses the fixed one.
fn seed(fixed: u64) -> u64 {
    std::env::var("DIFFERENTIAL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(fixed)
}

/// Where the PostgREST beside the gateway runs.
struct Reference<'a> {
    /// Its database: the gateway's, or a twin of it for committed writes.
    database: &'a str,
    /// PostgREST's `db-schemas`, the same as the gateway's `GATEWAY_DB_SCHEMAS`.
    schemas: &'a str,
}

/// Sends `requests` to the gateway of `app` and to a PostgREST 12.0.2 on
/// `reference`'s database, the first `reads` four at a time and the rest
/// (writes) one at a time, so that rolled-back transactions never wait on (or
/// deadlock with) each other's row locks, and committed ones reach both
/// databases in the same order; prints a summary and the differences, and
/// fails on any difference that the allow-list does not name.
async fn run(
    app: &TestApp,
    reference: Reference<'_>,
    fixture: &str,
    seed: u64,
    requests: &[Request],
    reads: usize,
) {
    let postgrest = differential::postgrest::start(reference.database, SECRET, reference.schemas).await;
    let tokens = Tokens::new(app);
    let gateway_base = format!("{}/rest/v1", app.address);
    let client = reqwest::Client::new();
    let targets =
        Targets { client: &client, gateway: &gateway_base, postgrest: &postgrest.url, tokens: &tokens };
    let mut answers: Vec<(Answer, Answer)> =
        futures::stream::iter(&requests[..reads]).map(|r| targets.both(r)).buffered(4).collect().await;
    for request in &requests[reads..] {
        answers.push(targets.both(request).await);
    }

    let mut identical = 0;
    let mut allowed: Vec<(&'static str, usize)> = ALLOWLIST.iter().map(|d| (d.name, 0)).collect();
    let mut statuses: std::collections::BTreeMap<u16, usize> = std::collections::BTreeMap::new();
    let mut differing = Vec::new();
    let mut verdicts = Vec::new();
    for (request, (reference, ours)) in requests.iter().zip(&answers) {
        *statuses.entry(reference.status).or_default() += 1;
        let verdict = if same(request, reference, ours) {
            Verdict::Identical
        } else {
            ALLOWLIST
                .iter()
                .find(|delta| (delta.applies)(request, reference, ours))
                .map_or(Verdict::Differs, |delta| Verdict::Allowed(delta.name))
        };
        verdicts.push(match verdict {
            Verdict::Identical => '=',
            Verdict::Allowed(_) => 'a',
            Verdict::Differs => 'D',
        });
        match verdict {
            Verdict::Identical => identical += 1,
            Verdict::Allowed(name) => {
                if let Some(entry) = allowed.iter_mut().find(|(n, _)| *n == name) {
                    entry.1 += 1;
                }
            }
            Verdict::Differs => differing.push((request, reference, ours)),
        }
    }

    // `DIFFERENTIAL_DUMP=<file>`: every request, a line each: `=` (identical),
    // `a` (allow-listed) or `D` (differs), both statuses and codes, the
    // request (method, path, headers, body).
    if let Ok(file) = std::env::var("DIFFERENTIAL_DUMP") {
        let lines: String = requests
            .iter()
            .zip(&answers)
            .zip(&verdicts)
            .map(|((request, (reference, ours)), verdict)| {
                format!(
                    "{verdict} {} {} {} {} {} {} {:?} {}\n",
                    reference.status,
                    reference.code().unwrap_or("-"),
                    ours.status,
                    ours.code().unwrap_or("-"),
                    request.method,
                    request.path,
                    request.headers,
                    request.body.as_deref().unwrap_or("")
                )
            })
            .collect();
        std::fs::write(&file, lines).expect("write DIFFERENTIAL_DUMP");
    }

    let allowed_total: usize = allowed.iter().map(|(_, n)| n).sum();
    println!(
        "differential vs PostgREST 12.0.2 on the {fixture} (seed {seed:#x}): {} requests compared, \
         {identical} identical, {allowed_total} allow-listed, {} differing",
        requests.len(),
        differing.len()
    );
    let statuses: Vec<String> = statuses.iter().map(|(status, n)| format!("{status}: {n}")).collect();
    println!("  PostgREST answered {}", statuses.join(", "));
    for (name, count) in allowed.iter().filter(|(_, count)| *count > 0) {
        println!("  allow-listed {count:>4}  {name}");
    }
    let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (_, reference, ours) in &differing {
        let kind = format!(
            "{} {} -> {} {}",
            reference.status,
            reference.code().unwrap_or("-"),
            ours.status,
            ours.code().unwrap_or("-")
        );
        *kinds.entry(kind).or_default() += 1;
    }
    for (kind, count) in &kinds {
        println!("  differing    {count:>4}  {kind}");
    }
    let shown: usize = std::env::var("DIFFERENTIAL_SHOW").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    for (request, reference, ours) in differing.iter().take(shown) {
        println!(
            "\nDIFFERS: {} {} {:?} as {:?} body {:?}\n  postgrest: {} {:?} {:?} {:?} {:?}\n  gateway:   {} {:?} {:?} {:?} {:?}",
            request.method,
            request.path,
            request.headers,
            request.who,
            request.body,
            reference.status,
            reference.content_range,
            reference.content_type,
            reference.location,
            reference.body,
            ours.status,
            ours.content_range,
            ours.content_type,
            ours.location,
            ours.body
        );
    }
    assert!(
        differing.is_empty(),
        "{} requests on the {fixture} answered differently from PostgREST 12.0.2",
        differing.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_answers_as_postgrest_12_does() {
    let app = spawn_shop().await;
    let seed = seed(SEED);
    let mut rng = Rng::new(seed);
    let mut requests: Vec<Request> = (0..READS).map(|_| generate::read(&mut rng)).collect();
    requests.extend(generate::junctions_and_computed());
    requests.extend(generate::headers());
    let reads = requests.len();
    requests.extend((0..WRITES).map(|n| generate::write(&mut rng, n)));
    requests.extend(generate::junction_writes());
    assert!(requests.len() >= 2000);
    run(&app, Reference { database: &app.database, schemas: "public" }, "shop", seed, &requests, reads).await;
}

/// The same comparison on a second fixture unlike the shop
/// (`tests/fixtures/catalog.sql`): reads only, through self-references, two
/// foreign keys to one table, one-to-one, composite keys, junctions, views
/// (renamed keys, joins, views of views, a column shown twice, a view over an
/// unexposed schema), a materialized view, a partitioned table, computed
/// fields and relationships, and accented and quoted names
/// (`differential/generate_catalog.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_answers_as_postgrest_12_does_on_the_catalog() {
    let app = spawn_catalog().await;
    let seed = seed(CATALOG_SEED);
    let mut rng = Rng::new(seed);
    let mut requests: Vec<Request> = (0..CATALOG_READS).map(|_| generate_catalog::read(&mut rng)).collect();
    requests.extend(generate_catalog::shapes());
    requests.extend(generate_catalog::failures());
    assert!(requests.len() >= 7600);
    let reads = requests.len();
    run(&app, Reference { database: &app.database, schemas: "public" }, "catalog", seed, &requests, reads)
        .await;
}

/// Nested embeds on a fixture of thousands of rows
/// (`tests/fixtures/library.sql`, `differential/generate_nested.rs`): to-one
/// embeds holding to-many ones, `!inner`, views, filters, orders and limits
/// on embedded levels, over top levels of up to 1,000 rows. Both servers run
/// under anon's 3 s `statement_timeout` (`sql/000_roles.sql`), so a statement
/// whose cost explodes with the rows it nests answers 500 57014 and differs
/// from PostgREST's 200. Where PostgREST itself runs out of time and the
/// gateway does not, the allow-list accepts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_embeds_answer_as_postgrest_12_does_within_the_timeout() {
    let app = spawn_library().await;
    let seed = seed(NESTED_SEED);
    let mut rng = Rng::new(seed);
    let mut requests: Vec<Request> = (0..NESTED_READS).map(|_| generate_nested::read(&mut rng)).collect();
    requests.extend(generate_nested::shapes());
    assert!(requests.len() >= 2000);
    let reads = requests.len();
    run(&app, Reference { database: &app.database, schemas: "public" }, "library", seed, &requests, reads)
        .await;
}

/// The tables of the calls fixture, each read whole in a total order.
const CALLS_TABLES: &[(&str, &str)] =
    &[("authors", "id"), ("books", "id"), ("stock", "shop, sku"), ("prices", "id"), ("events", "id")];

/// The rows of `tables` in `database`, as one JSON text per table.
async fn contents(database: &str, tables: &[(&str, &str)]) -> Vec<String> {
    let mut config = common::cluster().cluster.pg_config(gateway::embedded::SUPERUSER);
    config.dbname(database);
    let client = common::connect(&config).await;
    let mut texts = Vec::new();
    for (table, order) in tables {
        let sql = format!("select coalesce(json_agg(t order by {order})::text, '[]') from public.{table} t");
        texts.push(client.query_one(&sql, &[]).await.expect("table contents").get(0));
    }
    texts
}

/// Function calls and writes (`differential/generate_calls.rs`) on a
/// fixture of overloaded, defaulted, polymorphic, variadic, set-returning,
/// composite, void and volatile functions (some in a second exposed schema,
/// `api`) and of tables with identity, sequence, serial and expression
/// defaults and composite keys (`tests/fixtures/calls.sql`). The writes are
/// committed, so PostgREST gets a database of its own, loaded from the same
/// fixture, and both get every request in the same order, one at a time; at
/// the end both databases must hold the same rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_calls_functions_and_writes_as_postgrest_12_does() {
    const FIXTURE: &str = include_str!("fixtures/calls.sql");
    let mut config = test_config();
    config.rest.db_schemas = vec!["public".to_owned(), "api".to_owned()];
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    app.admin().await.batch_execute(FIXTURE).await.expect("calls fixture");
    let twin = fresh_database().await;
    let mut config = common::cluster().cluster.pg_config(gateway::embedded::SUPERUSER);
    config.dbname(&twin);
    common::connect(&config).await.batch_execute(FIXTURE).await.expect("calls fixture, twin");

    let seed = seed(CALLS_SEED);
    let mut rng = Rng::new(seed);
    let mut requests: Vec<Request> = generate_calls::fixed();
    for n in 0..CALLS {
        requests.push(if rng.chance(40) {
            generate_calls::write(&mut rng, n)
        } else {
            generate_calls::call(&mut rng)
        });
    }
    assert!(requests.len() >= 5000);
    run(&app, Reference { database: &twin, schemas: "public, api" }, "calls", seed, &requests, 0).await;
    let (ours, theirs) = (contents(&app.database, CALLS_TABLES).await, contents(&twin, CALLS_TABLES).await);
    for ((table, _), (ours, theirs)) in CALLS_TABLES.iter().zip(ours.iter().zip(&theirs)) {
        assert_eq!(ours, theirs, "the table {table} differs after the writes (gateway, then PostgREST)");
    }
}
