//! The log during a database outage: a bounded number of lines however many
//! requests fail, every failure still counted in a summary line, and no
//! terminal colour codes when stderr is a pipe (two ERROR lines per refused
//! request once filled 81 MB in 70 s). Runs the real binary, as deployed.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio_postgres::config::Host;

/// How many failures a log line stands for: a full `request failed` line is
/// one, a summary says how many more.
fn failures_in(line: &str) -> u64 {
    if !line.contains("request failed") {
        return 0;
    }
    match line.split_once(" more like this") {
        Some((head, _)) => head.rsplit('(').next().and_then(|n| n.trim().parse().ok()).expect("a count"),
        None => 1,
    }
}

#[test]
fn an_outage_logs_a_bounded_number_of_plain_lines_that_still_count_every_failure() {
    let private = common::start_private_cluster("outage");
    let superuser = private.cluster.pg_config("postgres");
    let Host::Unix(socket_dir) = &superuser.get_hosts()[0] else {
        panic!("the test cluster listens on a Unix socket");
    };
    let url = |user: &str| format!("host={} port=5432 dbname=postgres user={user}", socket_dir.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["serve", "--listen", "127.0.0.1:0", "--log-repeat-interval", "1s", "--data-dir"])
        .arg(private.dir.join("gateway-data"))
        .arg("--sql-root")
        .arg(common::repo_root())
        .env("DATABASE_URL", url("authenticator"))
        .env("DATABASE_ADMIN_URL", url("postgres"))
        .env("JWT_SECRET", common::SECRET)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gateway");
    let mut stderr = child.stderr.take().expect("stderr");
    let log = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).expect("read the log");
        bytes
    });
    let (mut address, mut anon) = (String::new(), String::new());
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    while anon.is_empty() {
        let line = lines.next().expect("the banner").expect("a line");
        if let Some(rest) = line.trim().strip_prefix("API URL:") {
            address = rest.trim().to_owned();
        } else if let Some(rest) = line.trim().strip_prefix("anon key:") {
            anon = rest.trim().to_owned();
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = reqwest::Client::new();
    let send = |n: usize| {
        let request = match n % 3 {
            0 => client.get(format!("{address}/rest/v1/products?select=id")),
            1 => client
                .post(format!("{address}/auth/v1/token?grant_type=password"))
                .json(&serde_json::json!({"email": "ana@example.com", "password": "s3cret-pw"})),
            _ => client.get(format!("{address}/storage/v1/bucket")).bearer_auth(&anon),
        };
        let request = request.header("apikey", &anon);
        async move { request.send().await.map(|r| r.status().as_u16()).unwrap_or(0) }
    };
    let before = runtime.block_on(send(0));
    assert_eq!(before, 200, "the gateway serves while the database is up");

    private.cluster.stop().expect("stop PostgreSQL");
    let started = Instant::now();
    let mut statuses = Vec::new();
    runtime.block_on(async {
        let mut n = 0;
        while started.elapsed() < Duration::from_secs(3) {
            let batch = futures::future::join_all((n..n + 8).map(send)).await;
            statuses.extend(batch);
            n += 8;
        }
    });
    let failed = statuses.iter().filter(|&&s| s >= 500).count() as u64;
    assert!(failed >= 100, "{} requests, {failed} failed: {statuses:?}", statuses.len());

    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT)
        .expect("signal");
    let status = child.wait().expect("wait");
    assert!(status.success(), "gateway exited with {status}");
    let log = log.join().expect("log reader");

    assert!(!log.contains(&0x1b), "a colour code went to a pipe");
    let text = String::from_utf8(log).expect("utf-8");
    // One line per migration applied at start grows with `sql/`; the bound is
    // about the outage.
    let lines: Vec<&str> = text.lines().filter(|line| !line.contains("db::migrate: applied")).collect();
    // A few causes (the pooled connections the shutdown killed, then no
    // server at all), each logged once plus at most a summary per second.
    assert!(lines.len() <= 40, "{failed} failures took {} lines:\n{text}", lines.len());
    let counted: u64 = lines.iter().map(|line| failures_in(line)).sum();
    assert_eq!(counted, failed, "every failure is in the log, in full or counted:\n{text}");
    assert!(text.contains("more like this in the last"), "{text}");
}
