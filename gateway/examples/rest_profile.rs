//! The gateway's own CPU per REST request, without a socket or a load
//! generator: the axum app is driven in-process (`tower::ServiceExt::oneshot`)
//! against a private PostgreSQL cluster holding `bench/data.sql`, with the
//! requests of `bench/wrk/scenario.lua`, all on one thread. PostgreSQL runs in
//! processes of its own, so callgrind on this binary counts the gateway's work
//! only, and the count repeats whatever else the machine is doing:
//!
//! ```sh
//! cargo build --release --example rest_profile
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='rest_profile::measure*' \
//!   target/release/examples/rest_profile s2 2000
//! ```
//!
//! The collected total divided by the request count is the instructions per
//! request; `callgrind_annotate` shows where they go. Without valgrind it
//! prints the wall time per request (one at a time, so mostly latency).
//!
//! Usage: `rest_profile <s1|s2|s3|s4> [requests, default 2000]`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use gateway::config::{Config, Secret};
use gateway::embedded::{Cluster, SUPERUSER};
use tower::ServiceExt;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const SECRET: &str = "profile-secret-with-at-least-32-characters";
const WARMUP: usize = 200;

fn main() -> Result<(), BoxError> {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().unwrap_or_else(|| "s2".to_owned());
    let requests: usize = args.next().map_or(Ok(2000), |n| n.parse())?;
    if !matches!(scenario.as_str(), "s1" | "s2" | "s3" | "s4") {
        return Err(format!("unknown scenario {scenario:?}: use s1, s2, s3 or s4").into());
    }
    let dir = std::env::temp_dir().join(format!("gateway-profile-{}", std::process::id()));
    let cluster = Cluster::new(&dir)?;
    cluster.init()?;
    cluster.start()?;
    // One thread: every task, the database connections' included, runs inside
    // `measure`, which is what callgrind collects.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = runtime.block_on(prepare(&cluster)).and_then(|(app, tokens)| {
        let mut shapes = Shapes { scenario: &scenario, tokens: &tokens, n: 0 };
        send(&runtime, &app, &mut shapes, WARMUP)?;
        let started = Instant::now();
        measure(&runtime, &app, &mut shapes, requests)?;
        let elapsed = started.elapsed();
        println!(
            "{scenario}: {requests} requests, {:.1} us each (wall, one at a time)",
            elapsed.as_secs_f64() * 1e6 / requests as f64
        );
        Ok(())
    });
    drop(runtime);
    let _ = cluster.stop_with("immediate");
    let _ = std::fs::remove_dir_all(cluster.pgdata());
    let _ = std::fs::remove_dir_all(&dir);
    result
}

struct Tokens {
    anon: String,
    user: String,
}

/// Migrations, the benchmark's data set, and the app over it.
async fn prepare(cluster: &Cluster) -> Result<(Router, Tokens), BoxError> {
    let root = repo_root();
    let admin = cluster.pg_config(SUPERUSER);
    gateway::startup::migrate(&admin, &root).await?;
    let (client, connection) = admin.connect(tokio_postgres::NoTls).await?;
    let connection = tokio::spawn(connection);
    // A multi-statement batch is one implicit transaction, which VACUUM refuses.
    let data = std::fs::read_to_string(root.join("bench/data.sql"))?;
    client.batch_execute(&data.replace("vacuum analyze;", "")).await?;
    client.batch_execute("vacuum analyze").await?;
    drop(client);
    let _ = connection.await;

    let config = config(&root)?;
    let state =
        gateway::startup::state(config, cluster.pg_config("authenticator"), None, &Secret::new(SECRET))?;
    let (anon, _) = gateway::startup::api_keys(&state.credentials.jwt)?;
    let exp = gateway::jwt::now() + 86_400;
    let user = state.credentials.jwt.sign(&serde_json::json!({
        "sub": "7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11", "role": "authenticated",
        "aud": "authenticated", "exp": exp,
    }))?;
    Ok((gateway::app(state), Tokens { anon, user }))
}

/// The defaults of `gateway serve`, with the bench's pool of 8.
fn config(root: &Path) -> Result<Config, BoxError> {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        config: Config,
    }
    use clap::Parser;
    let mut config = Defaults::try_parse_from(["gateway"])?.config;
    config.jwt_secret = Some(Secret::new(SECRET));
    config.sql_root = Some(root.to_path_buf());
    config.data_dir = std::env::temp_dir();
    config.pool_size = 8;
    Ok(config)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// The scenario's requests, as `bench/wrk/scenario.lua` sends them, with ids
/// from a fixed sequence so that every run sends the same ones.
struct Shapes<'a> {
    scenario: &'a str,
    tokens: &'a Tokens,
    n: u64,
}

impl Shapes<'_> {
    fn next(&mut self) -> Request<Body> {
        self.n += 1;
        // A multiplicative walk: spread over the range, same order every run.
        let pick = |range: u64| (self.n.wrapping_mul(2_654_435_761) >> 7) % range;
        let request = Request::builder()
            .header("apikey", &self.tokens.anon)
            .header("user-agent", "rest_profile")
            .header("accept-encoding", "gzip");
        let request = match self.scenario {
            "s1" => request
                .uri(format!(
                    "/rest/v1/products?select=*,brands(*)&order=id&limit=20&offset={}",
                    20 * pick(10)
                ))
                .header("authorization", format!("Bearer {}", self.tokens.anon))
                .header("prefer", "count=exact"),
            "s2" => request
                .uri(format!("/rest/v1/products?select=*,brands(*)&id=eq.{}", 1 + pick(2000)))
                .header("authorization", format!("Bearer {}", self.tokens.anon))
                .header("accept", "application/vnd.pgrst.object+json"),
            "s3" => request
                .uri(format!(
                    "/rest/v1/products?select=id,name,price,image_path,brands!inner(name,slug)\
                     &brands.slug=eq.brand-{}&order=id&limit=20",
                    1 + pick(50)
                ))
                .header("authorization", format!("Bearer {}", self.tokens.anon)),
            _ => {
                let body = format!(
                    r#"{{"name":"Bench","slug":"profile-{}-{}","price":9.99,"brand_id":{}}}"#,
                    std::process::id(),
                    self.n,
                    1 + pick(50)
                );
                return request
                    .method("POST")
                    .uri("/rest/v1/products")
                    .header("authorization", format!("Bearer {}", self.tokens.user))
                    .header("content-type", "application/json")
                    .header("prefer", "return=representation")
                    .body(Body::from(body))
                    .expect("request");
            }
        };
        request.body(Body::empty()).expect("request")
    }
}

/// [`send`], the part that callgrind collects.
#[inline(never)]
fn measure(
    runtime: &tokio::runtime::Runtime,
    app: &Router,
    shapes: &mut Shapes<'_>,
    count: usize,
) -> Result<(), BoxError> {
    send(runtime, app, shapes, count)
}

/// Sends `count` requests one after the other.
fn send(
    runtime: &tokio::runtime::Runtime,
    app: &Router,
    shapes: &mut Shapes<'_>,
    count: usize,
) -> Result<(), BoxError> {
    runtime.block_on(async {
        for _ in 0..count {
            let response = app.clone().oneshot(shapes.next()).await?;
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await?;
            if !status.is_success() {
                return Err(format!("{status}: {}", String::from_utf8_lossy(&body)).into());
            }
        }
        Ok(())
    })
}
