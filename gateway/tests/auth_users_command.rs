//! `gateway users add` creates a confirmed user who signs in at once through
//! `/auth/v1`; `gateway users list` shows it.

mod common;

use std::process::Command;

use tokio_postgres::config::Host;

use common::{SECRET, cluster, spawn_app};

fn gateway(args: &[&str], database_url: &str) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(args)
        .args(["--database-url", database_url, "--data-dir"])
        .arg(std::env::temp_dir())
        .env("JWT_SECRET", SECRET)
        .env_remove("GATEWAY_USER_PASSWORD")
        .output()
        .expect("run gateway");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (output.status.success(), text(output.stdout), text(output.stderr))
}

#[tokio::test]
async fn users_added_on_the_command_line_sign_in() {
    let app = spawn_app().await;
    let pg = cluster().cluster.pg_config("authenticator");
    let host = match &pg.get_hosts()[0] {
        Host::Unix(path) => path.display().to_string(),
        Host::Tcp(name) => name.clone(),
    };
    let url = format!("host={host} port={} user=authenticator dbname={}", pg.get_ports()[0], app.database);

    let args = ["users", "add", "--email", "Staff@Example.com", "--password", "s3cret-pw", "--name", "Staff"];
    let (ok, stdout, stderr) = gateway(&args, &url);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("created ") && stdout.contains("staff@example.com"), "{stdout}");

    let session = app.sign_in("staff@example.com", "s3cret-pw").await;
    assert_eq!(session["user"]["user_metadata"]["name"], "Staff");

    let (ok, stdout, stderr) = gateway(&["users", "list"], &url);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("staff@example.com"), "{stdout}");

    let (ok, _, stderr) = gateway(&args, &url);
    assert!(!ok, "the same address twice");
    assert!(stderr.contains("email_exists"), "{stderr}");
    let (ok, _, stderr) = gateway(&["users", "add", "--email", "b@example.com", "--password", "123"], &url);
    assert!(!ok);
    assert!(stderr.contains("weak_password"), "{stderr}");
}
