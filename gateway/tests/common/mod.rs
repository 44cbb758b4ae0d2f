//! The integration-test harness: one PostgreSQL cluster per test binary, a
//! template database migrated once, and for every test a fresh database cloned
//! from it with a gateway on an ephemeral port (zero2prod's `spawn_app`).
#![allow(dead_code)]

pub mod auth;
pub mod binary;
pub mod oidc;
pub mod s3;
pub mod smtp;
pub mod wire;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use axum::Router;
use gateway::AppState;
use gateway::config::{Config, Secret};
use gateway::embedded::{Cluster, SUPERUSER};
use gateway::role::Role;
use serde_json::Value;
use tokio_postgres::NoTls;

pub const SECRET: &str = "integration-tests-secret-at-least-32-characters";
const TEMPLATE: &str = "gateway_template";

/// The repository root, holding `sql/` and `policies/`.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// A cluster that lives as long as the test process, then is stopped and deleted
/// by a watchdog (statics are never dropped in Rust).
pub struct TestCluster {
    pub cluster: Cluster,
    pub dir: PathBuf,
}

pub fn cluster() -> &'static TestCluster {
    static CLUSTER: OnceLock<TestCluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let cluster = start_private_cluster("shared");
        // Migrate the template on a runtime of its own: tests each run on theirs.
        let admin = cluster.cluster.pg_config(SUPERUSER);
        std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async {
                let client = connect(&admin).await;
                client.batch_execute(&format!("create database {TEMPLATE}")).await.expect("create template");
                let mut template = admin.clone();
                template.dbname(TEMPLATE);
                gateway::startup::migrate(&template, &repo_root()).await.expect("migrate template");
            });
        })
        .join()
        .expect("template setup");
        cluster
    })
}

/// Initialises and starts a cluster in a new temporary directory, with a
/// watchdog that removes it when this process exits.
pub fn start_private_cluster(name: &str) -> TestCluster {
    let dir = std::env::temp_dir().join(format!("gateway-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("test dir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let cluster = Cluster::new(&dir).expect("cluster");
    cluster.init().expect("initdb");
    cluster.start().expect("start");
    spawn_watchdog(&cluster, &dir);
    TestCluster { cluster, dir }
}

// The watchdog must outlive this process, so it is never waited for.
#[allow(clippy::zombie_processes)]
fn spawn_watchdog(cluster: &Cluster, dir: &Path) {
    use std::os::unix::process::CommandExt;
    // SIGQUIT is PostgreSQL's immediate shutdown; root may signal the postgres
    // user's server, and pg_ctl would refuse to run as root.
    let script = r#"
        while [ -d "/proc/$1" ]; do sleep 0.5; done
        pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
        if [ -n "$pid" ]; then
            kill -QUIT "$pid" 2>/dev/null
            while [ -d "/proc/$pid" ]; do sleep 0.2; done
        fi
        rm -rf "$2" "$3"
    "#;
    std::process::Command::new("sh")
        .args(["-c", script, "watchdog"])
        .arg(std::process::id().to_string())
        .arg(cluster.pgdata())
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("watchdog");
}

pub async fn connect(config: &tokio_postgres::Config) -> tokio_postgres::Client {
    let (client, connection) = config.connect(NoTls).await.expect("connect");
    tokio::spawn(connection);
    client
}

/// A fresh database cloned from the migrated template.
pub async fn fresh_database() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let cluster = cluster();
    let name = format!("test_{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let client = connect(&cluster.cluster.pg_config(SUPERUSER)).await;
    client
        .batch_execute(&format!("create database {name} template {TEMPLATE}"))
        .await
        .expect("create test database");
    name
}

/// Every setting at its default (as `gateway serve` with no flags would have
/// it), then pointed at the test cluster.
pub fn test_config() -> Config {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        config: Config,
    }
    use clap::Parser;
    let mut config = Defaults::try_parse_from(["gateway"]).expect("defaults").config;
    config.listen = "127.0.0.1:0".parse().expect("address");
    config.database_url = None;
    config.database_admin_url = None;
    config.jwt_secret = Some(Secret::new(SECRET));
    config.jwt_aud = None;
    config.data_dir = std::env::temp_dir();
    config.sql_root = Some(repo_root());
    config.pool_size = 4;
    config
}

/// A gateway serving on an ephemeral port.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub state: AppState,
    pub database: String,
    pub anon_key: String,
    pub service_key: String,
    /// The first publishable and secret keys (`gateway::keys::init`); empty
    /// when the test's database cannot be reached.
    pub publishable_key: String,
    pub secret_key: String,
}

pub struct Options {
    pub config: Config,
    /// Where API requests connect; defaults to a fresh database as authenticator.
    pub api: Option<tokio_postgres::Config>,
    /// Extra routes, for tests that exercise the request machinery directly.
    pub routes: Option<Router<AppState>>,
    /// The schema owner's login, with `api`: a fresh database has its
    /// superuser's.
    pub owner: Option<tokio_postgres::Config>,
}

impl Default for Options {
    fn default() -> Self {
        Self { config: test_config(), api: None, routes: None, owner: None }
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(Options::default()).await
}

pub async fn spawn_app_with(mut options: Options) -> TestApp {
    // Errors (and more with RUST_LOG) show up in a failing test's output. A
    // test binary that installed its own subscriber keeps it.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    // Each gateway keeps its stored files in a folder of its own, removed with
    // the test cluster's folder.
    if options.config.storage_root.is_none() {
        static NEXT_ROOT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT_ROOT.fetch_add(1, Ordering::Relaxed);
        options.config.storage_root = Some(cluster().dir.join(format!("storage-{n}")));
    }
    let reachable = options.api.is_none();
    let (database, api) = match options.api {
        Some(api) => (String::new(), api),
        None => {
            let database = fresh_database().await;
            let mut api = cluster().cluster.pg_config("authenticator");
            api.dbname(&database);
            (database, api)
        }
    };
    let secret = options.config.jwt_secret.clone().expect("test secret");
    // The schema owner, as `gateway serve` logs in with `--database-admin-url`
    // (the operator console's connection, Realtime's replication connection).
    let owner = options.owner.or_else(|| {
        reachable.then(|| {
            let mut owner = cluster().cluster.pg_config(SUPERUSER);
            owner.dbname(&database);
            owner
        })
    });
    let state = gateway::startup::state(options.config, api, owner, &secret).expect("state");
    // The keys a first start makes (an ES256 signing key, the JWT secret as a
    // previous key, one publishable and one secret key), as `gateway serve`
    // makes them. A gateway over an unreachable database keeps the JWT secret
    // alone; another one over an existing database loads what is there.
    let created = match gateway::startup::init_keys(&state).await {
        Ok(created) => created,
        Err(e) if !reachable => {
            tracing::debug!(error = %e, "no keys from the database");
            Default::default()
        }
        Err(e) => panic!("keys: {e}"),
    };
    let mut app = gateway::app(state.clone());
    if let Some(routes) = options.routes {
        // Answering as the REST API does, as everything that no service owns.
        let shaped = gateway::error::shaped::<gateway::rest::PostgRest>();
        app = app.merge(routes.with_state(state.clone()).layer(shaped));
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = format!("http://{}", listener.local_addr().expect("address"));
    // The server `gateway serve` runs, with its limits and timeouts.
    let limits = state.config.server.clone();
    let cap = limits.max_connections;
    tokio::spawn(
        async move { gateway::server::serve(listener, app, &limits, cap, std::future::pending()).await },
    );
    let (anon_key, service_key) = gateway::startup::api_keys(&state.credentials.jwt).expect("keys");
    let publishable_key = state.credentials.api_keys.publishable().unwrap_or_default();
    let secret_key = created.secret.unwrap_or_default();
    TestApp {
        address,
        client: reqwest::Client::new(),
        state,
        database,
        anon_key,
        service_key,
        publishable_key,
        secret_key,
    }
}

impl TestApp {
    /// A token for a signed-in user, as the auth service would mint it.
    pub fn user_token(&self, sub: &str) -> String {
        let now = gateway::jwt::now();
        self.sign(serde_json::json!({
            "sub": sub, "role": "authenticated", "aud": "authenticated",
            "email": format!("{sub}@example.com"), "iat": now, "exp": now + 3600,
        }))
    }

    pub fn sign(&self, claims: Value) -> String {
        self.state.credentials.jwt.sign(&claims).expect("sign")
    }

    pub fn token_for(&self, role: Role, sub: &str) -> String {
        match role {
            Role::Anon => self.anon_key.clone(),
            Role::Authenticated => self.user_token(sub),
            Role::ServiceRole => self.service_key.clone(),
        }
    }

    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(format!("{}{path}", self.address))
    }

    /// A superuser connection to this test's database.
    pub async fn admin(&self) -> tokio_postgres::Client {
        let mut config = cluster().cluster.pg_config(SUPERUSER);
        config.dbname(&self.database);
        connect(&config).await
    }
}

/// A gateway over a fresh database holding the REST fixture (`tests/fixtures/shop.sql`).
pub async fn spawn_shop() -> TestApp {
    let app = spawn_app().await;
    app.admin().await.batch_execute(include_str!("../fixtures/shop.sql")).await.expect("fixture");
    app
}

/// A gateway over a fresh database holding the films fixture (`tests/fixtures/films.sql`).
pub async fn spawn_films() -> TestApp {
    let app = spawn_app().await;
    app.admin().await.batch_execute(include_str!("../fixtures/films.sql")).await.expect("fixture");
    app
}

/// A gateway over a fresh database holding the second REST fixture
/// (`tests/fixtures/catalog.sql`), for the differential test.
pub async fn spawn_catalog() -> TestApp {
    let app = spawn_app().await;
    app.admin().await.batch_execute(include_str!("../fixtures/catalog.sql")).await.expect("catalog fixture");
    app
}

/// A gateway over a fresh database holding the library fixture
/// (`tests/fixtures/library.sql`): thousands of rows under nested embeds, for
/// the differential test.
pub async fn spawn_library() -> TestApp {
    let app = spawn_app().await;
    app.admin().await.batch_execute(include_str!("../fixtures/library.sql")).await.expect("library fixture");
    app
}

/// [`spawn_shop`] with a pool of one connection that goes through a
/// [`wire::WireCounter`].
pub async fn spawn_counted_shop() -> (TestApp, wire::WireCounter) {
    let database = fresh_database().await;
    let direct = cluster().cluster.pg_config("authenticator");
    let socket = match direct.get_hosts() {
        [tokio_postgres::config::Host::Unix(dir)] => dir.join(format!(".s.PGSQL.{}", direct.get_ports()[0])),
        other => panic!("the test cluster listens on {other:?}, not on one Unix socket"),
    };
    let wire = wire::WireCounter::start(socket).await;
    let mut api = tokio_postgres::Config::new();
    api.host("127.0.0.1")
        .port(wire.port)
        .user("authenticator")
        .dbname(&database)
        .ssl_mode(tokio_postgres::config::SslMode::Disable);
    let mut config = test_config();
    config.pool_size = 1;
    let mut app = spawn_app_with(Options { config, api: Some(api), routes: None, owner: None }).await;
    app.database = database;
    app.admin().await.batch_execute(include_str!("../fixtures/shop.sql")).await.expect("fixture");
    (app, wire)
}

impl TestApp {
    /// A `/rest/v1` request as supabase-js sends it: the anon key as `apikey`
    /// and `token` (the anon key when `None`) as the bearer.
    pub fn rest(&self, method: reqwest::Method, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}/rest/v1{path}", self.address))
            .header("apikey", &self.anon_key)
            .bearer_auth(token.unwrap_or(&self.anon_key))
    }
}

/// Status, the headers a test looks at, and the body as JSON (or text).
pub struct Answer {
    pub status: u16,
    pub content_range: Option<String>,
    pub content_type: Option<String>,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    pub async fn from(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let content_range = get("content-range");
        let content_type = get("content-type");
        let text = response.text().await.expect("body");
        Self { status, content_range, content_type, headers, text }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| panic!("not JSON: {:?}", self.text))
    }
}
