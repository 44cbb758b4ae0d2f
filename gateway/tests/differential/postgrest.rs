//! A real PostgREST 12.0.2 beside the gateway, on the same database.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A PostgREST process, killed when dropped.
pub struct Postgrest {
    child: Child,
    pub url: String,
    dir: PathBuf,
}

impl Drop for Postgrest {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The binary, fetched once into `target/postgrest-12.0.2/` by `scripts/postgrest.sh`.
fn binary() -> PathBuf {
    let script = crate::common::repo_root().join("scripts/postgrest.sh");
    let output = Command::new(&script).stderr(Stdio::inherit()).output().expect("run scripts/postgrest.sh");
    assert!(output.status.success(), "scripts/postgrest.sh could not provide PostgREST 12.0.2");
    PathBuf::from(String::from_utf8(output.stdout).expect("path").trim())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port()
}

/// Starts PostgREST on `database` of the test cluster, as the gateway's
/// `authenticator`, with the gateway's JWT secret and settings, exposing
/// `schemas` (PostgREST's `db-schemas`, e.g. `public, api`), and waits until
/// it answers.
pub async fn start(database: &str, secret: &str, schemas: &str) -> Postgrest {
    let api = crate::common::cluster().cluster.pg_config("authenticator");
    let socket_dir = api
        .get_hosts()
        .iter()
        .find_map(|host| match host {
            tokio_postgres::config::Host::Unix(path) => Some(path.clone()),
            tokio_postgres::config::Host::Tcp(_) => None,
        })
        .expect("the test cluster listens on a Unix socket");
    let port = free_port();
    // One folder per server: two tests of one process may each start one.
    let dir = std::env::temp_dir().join(format!("gateway-differential-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("config dir");
    let config = dir.join("postgrest.conf");
    // db-tx-end lets `Prefer: tx=rollback` through, so writes leave nothing
    // behind; aggregates are on, as on hosted Supabase and by default here.
    std::fs::write(
        &config,
        format!(
            "db-uri = \"postgres://authenticator@/{database}?host={}\"\n\
             db-schemas = \"{schemas}\"\n\
             db-anon-role = \"anon\"\n\
             db-max-rows = 1000\n\
             db-aggregates-enabled = true\n\
             db-pool = 4\n\
             db-tx-end = \"commit-allow-override\"\n\
             jwt-secret = \"{secret}\"\n\
             server-host = \"127.0.0.1\"\n\
             server-port = {port}\n\
             log-level = \"crit\"\n",
            socket_dir.display()
        ),
    )
    .expect("write config");
    let child = Command::new(binary())
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start postgrest");
    let url = format!("http://127.0.0.1:{port}");
    let postgrest = Postgrest { child, url, dir };
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // The root (the OpenAPI description) answers once the schema cache
        // is loaded.
        if let Ok(response) = client.get(format!("{}/", postgrest.url)).send().await
            && response.status().is_success()
        {
            return postgrest;
        }
        assert!(Instant::now() < deadline, "PostgREST did not start on {}", postgrest.url);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
