//! Scale-out on real parts: two `gateway serve` processes behind Debian's
//! nginx, started by the recipe operators run (`scripts/scale-out.sh`, with
//! `deploy/nginx/gateway.conf`), on one PostgreSQL and one real S3 server
//! (s3s-fs). The checks are supabase-js's and tus-js-client's, in
//! `tests/client/scale-out/scale-out.test.mjs`: a session and rate limits
//! shared, files written through one gateway and read through the other, a
//! resumable upload moved between them, Realtime across them, a migration
//! seen by both, a gateway stopped mid-load and another killed.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio_postgres::config::Host;

use common::s3::S3Server;
use common::{SECRET, repo_root, start_private_cluster};

/// `n` consecutive ports free on the loopback now.
fn free_ports(n: u16) -> u16 {
    loop {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = probe.local_addr().expect("addr").port();
        drop(probe);
        if base > u16::MAX - n {
            continue;
        }
        let held: Vec<_> = (base..base + n)
            .filter_map(|port| std::net::TcpListener::bind(("127.0.0.1", port)).ok())
            .collect();
        if held.len() == usize::from(n) {
            return base;
        }
    }
}

/// The script, its process group killed when dropped (a test that failed
/// leaves nothing running).
struct Recipe(std::process::Child);

impl Recipe {
    /// Stops it as Ctrl-C would: nginx, then the gateways' drain.
    fn stop(&mut self) {
        let group = nix::unistd::Pid::from_raw(-(self.0.id() as i32));
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Recipe {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(-(self.0.id() as i32));
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.0.wait();
    }
}

#[test]
fn two_gateways_behind_nginx_on_one_database_and_one_s3_server_behave_as_one() {
    let private = start_private_cluster("scale-out");
    let superuser = private.cluster.pg_config("postgres");
    let Host::Unix(socket_dir) = &superuser.get_hosts()[0] else {
        panic!("the test cluster listens on a Unix socket");
    };
    let url = |user: &str| format!("host={} port=5432 dbname=postgres user={user}", socket_dir.display());
    let s3 = S3Server::start(&["files"]);
    // A copy of sql/ and policies/: the test adds a migration to it.
    let work = tempfile::tempdir().expect("tempdir");
    // Run as root, the script runs nginx as nobody, which must reach its
    // folder.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let sql_root = work.path().join("schema");
    std::fs::create_dir_all(&sql_root).expect("schema folder");
    let copied = Command::new("cp")
        .arg("-r")
        .args([repo_root().join("sql"), repo_root().join("policies")])
        .arg(&sql_root)
        .status()
        .expect("cp");
    assert!(copied.success());
    let dir = work.path().join("scale-out");
    let gateways = free_ports(2);
    let balancer = free_ports(1);

    // What every gateway is given, by the script and by the test when it
    // starts a replacement.
    let mut shared: Vec<(&str, String)> = vec![
        ("DATABASE_URL", url("authenticator")),
        ("DATABASE_ADMIN_URL", url("postgres")),
        ("JWT_SECRET", SECRET.to_owned()),
        ("GATEWAY_BIN", env!("CARGO_BIN_EXE_gateway").to_owned()),
        ("GATEWAY_SQL_ROOT", sql_root.display().to_string()),
        ("AUTH_TRUSTED_PROXIES", "127.0.0.1".to_owned()),
        ("AUTH_RATE_LIMIT_BURST", "10".to_owned()),
        ("RUST_LOG", "info".to_owned()),
    ];
    shared.extend(s3.env("files"));
    let mut command = Command::new("bash");
    command
        .arg(repo_root().join("scripts/scale-out.sh"))
        .arg("--dir")
        .arg(&dir)
        .args(["--listen", &format!("127.0.0.1:{balancer}"), "--first-port", &gateways.to_string()])
        .envs(shared.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut recipe = Recipe(command.spawn().expect("scripts/scale-out.sh"));
    let mut stderr = recipe.0.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let (mut anon_key, mut service_key, mut banner) = (String::new(), String::new(), String::new());
    for line in BufReader::new(recipe.0.stdout.take().expect("stdout")).lines() {
        let line = line.expect("a line");
        banner.push_str(&line);
        banner.push('\n');
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("anon key:") {
            anon_key = rest.trim().to_owned();
        } else if let Some(rest) = trimmed.strip_prefix("service_role key:") {
            service_key = rest.trim().to_owned();
        } else if trimmed == "ready" {
            break;
        }
    }
    if service_key.is_empty() {
        recipe.stop();
        panic!("scripts/scale-out.sh did not start:\n{banner}\n{}", errors.join().expect("stderr"));
    }
    assert!(banner.starts_with(&format!("scale-out is serving on http://127.0.0.1:{balancer}")), "{banner}");

    let node = Command::new("node")
        .args(["--experimental-websocket", "--test", "--test-concurrency=1", "scale-out/scale-out.test.mjs"])
        .current_dir(repo_root().join("tests/client"))
        .env("SCALE_OUT_URL", format!("http://127.0.0.1:{balancer}"))
        .env("GATEWAY_1_URL", format!("http://127.0.0.1:{gateways}"))
        .env("GATEWAY_2_URL", format!("http://127.0.0.1:{}", gateways + 1))
        .env("ANON_KEY", &anon_key)
        .env("SERVICE_ROLE_KEY", &service_key)
        .env("SCALE_OUT_DIR", &dir)
        .envs(shared.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null())
        .output()
        .expect("node (scripts/setup.sh installs it and tests/client's packages)");
    recipe.stop();
    let logs = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(
        node.status.success(),
        "the supabase-js checks failed:\n{}\n{}\n--- gateway 1\n{}\n--- gateway 2\n{}\n--- nginx\n{}",
        String::from_utf8_lossy(&node.stdout),
        String::from_utf8_lossy(&node.stderr),
        logs("gateway-1.log"),
        logs("gateway-2.log"),
        logs("nginx/error.log"),
    );
    // nginx passed requests to the killed gateway's partner: its log says so.
    assert!(logs("nginx/error.log").contains("upstream"), "{}", logs("nginx/error.log"));
}
