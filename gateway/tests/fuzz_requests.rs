//! The whole request path under generated input (see `fuzz/mod.rs`): every
//! request, valid or not, to `/rest/v1`, `/auth/v1` and `/storage/v1` is
//! answered below 500, and nothing panics.
//!
//! `make test` runs the corpus and a short run; `FUZZ_CASES=1000000` (and
//! `FUZZ_SEED`, `FUZZ_CONCURRENCY`) makes the long run, described in docs/testing.md
//! ("Fuzzing the whole request path").

mod common;
mod fuzz;

use std::sync::atomic::Ordering;
use std::time::Instant;

use gateway::embedded::SUPERUSER;
use reqwest::Method;
use serde_json::{Value, json};

use common::{Options, TestApp, cluster, connect, spawn_app_with, test_config};
use fuzz::{FuzzRequest, PANICS, Tally, Tokens, count_panics, generate, run};

/// Cases of the short run in `make test`.
const SHORT_RUN: u64 = 3_000;
/// The short run's seed; the long run takes `FUZZ_SEED`.
const SHORT_SEED: u64 = 16;
/// Requests in flight at once: below the pool size, so no request waits for a
/// connection long enough to meet the pool's timeout on a loaded machine.
const CONCURRENCY: usize = 8;

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(text.replace(['_', ','], "").parse().unwrap_or_else(|_| panic!("{name}={text} is not a number")))
}

/// A gateway over the shop fixture with a signed-in user, two buckets holding
/// a few objects, and every optional feature on (plans, aggregates).
async fn fuzz_target() -> (TestApp, Tokens) {
    let mut config = test_config();
    config.pool_size = 2 * CONCURRENCY;
    config.rest.plan_enabled = true;
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");

    let user = app
        .send(app.as_service(Method::POST, "/admin/users").json(&json!({
            "email": "fuzz@example.com", "password": "password123", "email_confirm": true,
        })))
        .await;
    assert_eq!(user.status, 200, "{:?}", user.body);
    let session = app.sign_in("fuzz@example.com", "password123").await;

    for (bucket, public) in [("public-bucket", true), ("private-bucket", false)] {
        let created = app
            .client
            .post(format!("{}/storage/v1/bucket", app.address))
            .bearer_auth(&app.service_key)
            .json(&json!({ "id": bucket, "name": bucket, "public": public }))
            .send()
            .await
            .expect("bucket");
        assert_eq!(created.status(), 200, "{}", created.text().await.unwrap_or_default());
        for object in ["a.txt", "folder/b.png", "folder/sub/c.json"] {
            let uploaded = app
                .client
                .post(format!("{}/storage/v1/object/{bucket}/{object}", app.address))
                .bearer_auth(&app.service_key)
                .header("content-type", "text/plain")
                .body(format!("the bytes of {object}"))
                .send()
                .await
                .expect("upload");
            assert_eq!(uploaded.status(), 200, "{}", uploaded.text().await.unwrap_or_default());
        }
    }
    let text = |v: &Value| v.as_str().expect("text").to_owned();
    let tokens = Tokens {
        anon: app.anon_key.clone(),
        service: app.service_key.clone(),
        user: text(&session["access_token"]),
        refresh: text(&session["refresh_token"]),
        user_id: text(&session["user"]["id"]),
    };
    (app, tokens)
}

/// The failures, each with the request that caused it in corpus form.
fn report(tally: &Tally) -> String {
    let mut text = format!(
        "{} of {} requests failed (2xx {}, 3xx {}, 4xx {}, unsendable {}), {} panics:\n",
        tally.failed,
        tally.sent,
        tally.by_class[2],
        tally.by_class[3],
        tally.by_class[4],
        tally.unsendable,
        PANICS.load(Ordering::SeqCst),
    );
    for failure in &tally.failures {
        text.push_str(&format!("\n== {}\n{}\n", failure.what, failure.request.print()));
    }
    text
}

/// Nothing is left in the middle of a transaction once the run is over.
async fn no_session_is_left_in_a_transaction(app: &TestApp) {
    let mut admin = cluster().cluster.pg_config(SUPERUSER);
    admin.dbname(&app.database);
    let client = connect(&admin).await;
    let row = client
        .query_one(
            "select count(*) from pg_stat_activity
             where datname = current_database() and state like 'idle in transaction%'",
            &[],
        )
        .await
        .expect("activity");
    assert_eq!(row.get::<_, i64>(0), 0, "sessions idle in a transaction");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_of_the_corpus_is_answered_below_500_without_a_panic() {
    count_panics();
    let (app, tokens) = fuzz_target().await;
    let router = gateway::app(app.state.clone());
    let corpus = fuzz::corpus();
    assert!(corpus.len() >= 20, "the corpus has only {} requests", corpus.len());
    let names: Vec<String> = corpus.iter().map(|(name, _)| name.clone()).collect();
    // One at a time, so a failure names its file.
    for (name, request) in corpus {
        let tally = run(&router, &tokens, std::iter::once(request.clone()), 1, 1, |_| {}).await;
        assert_eq!(tally.unsendable, 0, "{name} is not a request a server would pass on");
        assert_eq!(tally.failed, 0, "{name}: {}", report(&tally));
    }
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "panics while replaying {names:?}");
    no_session_is_left_in_a_transaction(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_requests_to_all_three_services_are_answered_below_500_without_a_panic() {
    count_panics();
    let cases = env_number("FUZZ_CASES").unwrap_or(SHORT_RUN);
    let seed = env_number("FUZZ_SEED").unwrap_or(SHORT_SEED);
    let concurrency = env_number("FUZZ_CONCURRENCY").map_or(CONCURRENCY, |n| n as usize);
    let (app, tokens) = fuzz_target().await;
    let router = gateway::app(app.state.clone());
    let started = Instant::now();
    let every = (cases / 20).max(1) as usize;
    let requests = (0..cases).map(|case| generate::request(seed, case));
    let tally = run(&router, &tokens, requests, concurrency, 50, |tally| {
        if tally.sent % every == 0 {
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "fuzz: {} of {cases} in {seconds:.0} s ({:.0}/s), {} failed, 2xx {}, 4xx {}",
                tally.sent,
                tally.sent as f64 / seconds,
                tally.failed,
                tally.by_class[2],
                tally.by_class[4],
            );
        }
    })
    .await;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "fuzz: seed {seed}: {} requests in {seconds:.1} s ({:.0}/s): 2xx {}, 3xx {}, 4xx {}, unsendable {}, failed {}, panics {}",
        tally.sent,
        tally.sent as f64 / seconds,
        tally.by_class[2],
        tally.by_class[3],
        tally.by_class[4],
        tally.unsendable,
        tally.failed,
        PANICS.load(Ordering::SeqCst),
    );
    eprintln!("fuzz: answers: {}", tally.top_answers(40));
    assert_eq!(tally.sent as u64, cases);
    assert!(tally.failed == 0 && PANICS.load(Ordering::SeqCst) == 0, "{}", report(&tally));
    // The generator reaches past the parser: some requests succeed, many are refused.
    assert!(tally.by_class[2] * 20 > tally.sent, "too few successes: {}", report(&tally));
    assert!(tally.by_class[4] * 10 > tally.sent, "too few refusals: {}", report(&tally));
    no_session_is_left_in_a_transaction(&app).await;
}

#[test]
fn a_request_reads_back_from_its_printed_form() {
    for case in 0..200 {
        let request = generate::request(7, case);
        // The text form keeps what a corpus file can hold: header values
        // without line breaks or edge spaces, bodies of text.
        let plain = request.headers.iter().all(|(_, value)| {
            !value.iter().any(|b| b.is_ascii_control()) && value.trim_ascii() == value.as_slice()
        });
        if !plain || std::str::from_utf8(&request.body).is_err() || request.body.len() > 2_000 {
            continue;
        }
        let printed = request.print();
        let back = FuzzRequest::parse(printed.as_bytes()).expect("parses");
        assert_eq!(back.print(), printed, "case {case}");
    }
}
