//! Operating Edge Functions: `gateway functions new|list|deploy` and
//! `gateway functions secrets set|list|unset`, a served function reloaded
//! when its files change, and its `console` lines in the gateway's log with
//! its name and the request's id.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_postgres::config::Host;

use common::binary::Gateway;
use common::{Options, SECRET, TestApp, cluster, repo_root, spawn_app_with, test_config};

fn deno() -> PathBuf {
    repo_root().join("tools/deno/node_modules/@deno/linux-x64-glibc/deno")
}

fn fixtures() -> PathBuf {
    repo_root().join("gateway/tests/fixtures/functions/supabase")
}

/// A copy of the fixture project (`supabase/config.toml` and
/// `supabase/functions`), which a test may change.
fn copied_project() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp");
    let status =
        Command::new("cp").arg("-r").arg(fixtures()).arg(root.path().join("supabase")).status().expect("cp");
    assert!(status.success());
    root
}

async fn spawn_on(functions: &Path) -> TestApp {
    let mut config = test_config();
    config.functions.dir = Some(functions.to_owned());
    config.functions.deno = Some(deno());
    config.functions.boot_timeout = "120s".parse().expect("span");
    spawn_app_with(Options { config, ..Options::default() }).await
}

/// `gateway <args>` on the test app's database, as an operator runs it.
fn gateway(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let pg = cluster().cluster.pg_config("authenticator");
    let host = match &pg.get_hosts()[0] {
        Host::Unix(path) => path.display().to_string(),
        Host::Tcp(name) => name.clone(),
    };
    let url = format!("host={host} port={} user=authenticator dbname={}", pg.get_ports()[0], app.database);
    let (command, rest) = args.split_first().expect("a command");
    let output = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg(command)
        .args(["--database-url", &url, "--data-dir"])
        .arg(std::env::temp_dir())
        .args(rest)
        .env("JWT_SECRET", SECRET)
        .output()
        .expect("run gateway");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (output.status.success(), text(output.stdout), text(output.stderr))
}

async fn call(app: &TestApp, path: &str) -> (StatusCode, String) {
    let response = app
        .client
        .get(format!("{}/functions/v1/{path}", app.address))
        .bearer_auth(&app.anon_key)
        .header("apikey", &app.anon_key)
        .send()
        .await
        .expect("invoke");
    (response.status(), response.text().await.expect("text"))
}

/// Calls `path` until `wanted` holds of its JSON answer, for what changes
/// within the watcher's period.
async fn until(app: &TestApp, path: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..60 {
        let (_, text) = call(app, path).await;
        last = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if wanted(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{path} never answered as wanted; last: {last}");
}

#[tokio::test]
async fn secrets_set_on_the_command_line_reach_every_function_and_are_kept_sealed() {
    let app = spawn_on(&fixtures().join("functions")).await;
    let first = until(&app, "secrets", |v| v["adminStatus"] == 200).await;
    assert_eq!(first, json!({"stripeKey": null, "secretKeys": ["default"], "adminStatus": 200}));

    let (ok, stdout, stderr) =
        gateway(&app, &["functions", "secrets", "set", "STRIPE_KEY=sk_test_visible", "OTHER=two=parts"]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout, "set STRIPE_KEY\nset OTHER\n");
    assert!(!stdout.contains("sk_test_visible") && !stderr.contains("sk_test_visible"));

    // The running function starts again with the new secret.
    until(&app, "secrets", |v| v["stripeKey"] == "sk_test_visible").await;

    let (ok, stdout, _) = gateway(&app, &["functions", "secrets", "list"]);
    assert!(ok);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("OTHER\t") && lines[1].starts_with("STRIPE_KEY\t"), "{stdout}");
    let digest = lines[1].split('\t').nth(1).expect("digest");
    assert_eq!(digest.len(), 64, "a SHA-256 in hex");
    assert!(!stdout.contains("sk_test_visible"));

    let stored: Vec<String> = app
        .admin()
        .await
        .query("select sealed_value from supabase_functions.gateway_secrets", &[])
        .await
        .expect("rows")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(stored.len(), 3, "two secrets and the functions' secret key");
    assert!(stored.iter().all(|v| !v.contains("sk_test") && !v.contains("sb_secret_")), "sealed at rest");

    let (ok, stdout, _) = gateway(&app, &["functions", "secrets", "unset", "STRIPE_KEY", "ABSENT"]);
    assert!(ok);
    assert_eq!(stdout, "unset STRIPE_KEY\nno secret ABSENT\n");
    until(&app, "secrets", |v| v["stripeKey"].is_null()).await;
}

#[tokio::test]
async fn secret_names_are_variables_and_not_supabases() {
    let app = spawn_on(&fixtures().join("functions")).await;
    for (assignment, refusal) in
        [("SUPABASE_URL=x", "reserved"), ("NO-DASH=x", "not a variable name"), ("NOVALUE", "NAME=VALUE")]
    {
        let (ok, _, stderr) = gateway(&app, &["functions", "secrets", "set", assignment]);
        assert!(!ok, "{assignment}");
        assert!(stderr.contains(refusal), "{assignment}: {stderr}");
    }
}

#[tokio::test]
async fn a_served_function_whose_files_change_runs_the_new_code_on_the_next_request() {
    let project = copied_project();
    let functions = project.path().join("supabase/functions");
    let app = spawn_on(&functions).await;
    let (status, text) = call(&app, "spin").await;
    assert_eq!((status, text.as_str()), (StatusCode::OK, "done"));
    std::fs::write(functions.join("spin/index.ts"), "Deno.serve(() => new Response(\"changed\"));\n")
        .expect("edit");
    until(&app, "spin", |v| v == "changed").await;

    // A new function is served without a restart, and a change to _shared
    // reaches the functions importing it.
    std::fs::create_dir_all(functions.join("later")).expect("dir");
    std::fs::write(
        functions.join("later/index.ts"),
        "import { json } from \"../_shared/reply.ts\";\nDeno.serve(() => json({ later: true }));\n",
    )
    .expect("new");
    assert_eq!(until(&app, "later", |v| v.is_object()).await, json!({"later": true}));
    std::fs::write(
        functions.join("_shared/reply.ts"),
        "export function json(_value: unknown): Response {\n  return Response.json({ shared: \"edited\" });\n}\n",
    )
    .expect("edit shared");
    until(&app, "later", |v| v["shared"] == "edited").await;
}

#[tokio::test]
async fn console_lines_reach_the_log_with_the_functions_name_and_the_request_id() {
    let functions = fixtures().join("functions");
    let gateway = Gateway::start(
        "functions-logs",
        &[
            "--functions-dir",
            functions.to_str().expect("path"),
            "--functions-deno",
            deno().to_str().expect("path"),
        ],
        &[],
        "info",
    );
    let client = reqwest::Client::new();
    let response = client
        .get(format!("{}/functions/v1/logs?marker=m-7", gateway.address))
        .bearer_auth(&gateway.anon_key)
        .header("x-request-id", "req-functions-7")
        .send()
        .await
        .expect("invoke");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-request-id"], "req-functions-7");
    let log = gateway.stop();
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("function=logs")).collect();
    let expected = [
        ("INFO", "logged m-7"),
        ("INFO", "marker: \"m-7\""),
        ("WARN", "warned m-7"),
        ("ERROR", "failed m-7"),
    ];
    for (level, text) in expected {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(level) && l.contains(text) && l.contains("request_id=req-functions-7")),
            "{level} {text} in:\n{}",
            lines.join("\n")
        );
    }
}

/// `gateway functions <args>` on a functions folder, with no database.
fn functions_command(dir: &Path, data: &Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("functions")
        .arg("--functions-dir")
        .arg(dir)
        .arg("--functions-deno")
        .arg(deno())
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("JWT_SECRET", SECRET)
        .output()
        .expect("run gateway");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (output.status.success(), text(output.stdout), text(output.stderr))
}

#[tokio::test]
async fn new_list_and_deploy_check_the_code_before_it_is_served() {
    let project = copied_project();
    let served = project.path().join("supabase/functions");
    let data = tempfile::tempdir().expect("data");

    let (ok, stdout, stderr) = functions_command(&served, data.path(), &["new", "greet"]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("created ") && stdout.trim_end().ends_with("greet/index.ts"), "{stdout}");
    let (ok, _, stderr) = functions_command(&served, data.path(), &["new", "greet"]);
    assert!(!ok && stderr.contains("already exists"), "{stderr}");

    let (ok, stdout, _) = functions_command(&served, data.path(), &["list"]);
    assert!(ok);
    let names: Vec<&str> = stdout.lines().map(|l| l.split('\t').next().unwrap_or_default()).collect();
    assert!(names.contains(&"greet") && names.contains(&"hello") && !names.contains(&"_shared"), "{stdout}");
    assert!(stdout.contains("open\tverify_jwt=false"), "{stdout}");

    // The template checks and runs in place.
    let (ok, stdout, stderr) = functions_command(&served, data.path(), &["deploy", "greet"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("greet: ready"), "{stdout}");

    // New code from another folder: a type error, and an import of a host
    // this machine does not reach, are refused and change nothing.
    let incoming = tempfile::tempdir().expect("incoming");
    let source = incoming.path().join("functions");
    std::fs::create_dir_all(source.join("greet")).expect("dir");
    let cases = [
        ("const n: number = \"text\";\nDeno.serve(() => new Response(String(n)));\n", "types do not check"),
        (
            "import { serve } from \"https://deno.land.invalid/std@0.168.0/http/server.ts\";\nserve(() => new Response(\"x\"));\n",
            "jsr: or https: import",
        ),
    ];
    for (code, refusal) in cases {
        std::fs::write(source.join("greet/index.ts"), code).expect("code");
        let (ok, _, stderr) = functions_command(
            &served,
            data.path(),
            &["deploy", "greet", "--from", source.to_str().expect("path")],
        );
        assert!(!ok, "{code}");
        assert!(stderr.contains("nothing was deployed") && stderr.contains(refusal), "{stderr}");
        let kept = std::fs::read_to_string(served.join("greet/index.ts")).expect("served");
        assert!(kept.contains("Hello ${name}!"), "the served code is unchanged");
    }

    // Good code is put in place.
    std::fs::write(source.join("greet/index.ts"), "Deno.serve(() => new Response(\"deployed\"));\n")
        .expect("code");
    let (ok, stdout, stderr) = functions_command(
        &served,
        data.path(),
        &["deploy", "greet", "--from", source.to_str().expect("path")],
    );
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("greet: in place"), "{stdout}");
    assert!(std::fs::read_to_string(served.join("greet/index.ts")).expect("served").contains("deployed"));
    let app = spawn_on(&served).await;
    assert_eq!(call(&app, "greet").await, (StatusCode::OK, "deployed".to_owned()));
}

/// A one-file module host on 127.0.0.1, answering every request with
/// `module` as JavaScript, on a thread of its own (the commands the test runs
/// block its runtime), until `stop` is set and one more request arrives.
fn module_host(module: &'static str) -> (String, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { continue };
            if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request);
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/javascript\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{module}",
                module.len()
            );
            let _ = socket.write_all(answer.as_bytes());
        }
    });
    (format!("http://{address}"), stop)
}

#[tokio::test]
async fn deploy_vendors_remote_modules_so_the_function_runs_without_their_host() {
    let project = copied_project();
    let served = project.path().join("supabase/functions");
    let data = tempfile::tempdir().expect("data");
    let (host, stop) = module_host("export const greeting = \"from afar\";\n");
    std::fs::create_dir_all(served.join("remote")).expect("dir");
    std::fs::write(
        served.join("remote/index.ts"),
        format!("import {{ greeting }} from \"{host}/mod.js\";\nDeno.serve(() => new Response(greeting));\n"),
    )
    .expect("code");
    let (ok, stdout, stderr) = functions_command(&served, data.path(), &["deploy", "remote"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(served.join("remote/vendor").is_dir(), "vendored beside the function");
    let (_, listed, _) = functions_command(&served, data.path(), &["list"]);
    assert!(listed.lines().any(|l| l.starts_with("remote\t") && l.ends_with("\tvendored")), "{listed}");

    // The host is gone; the gateway's own Deno cache never saw the module.
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let app = spawn_on(&served).await;
    assert_eq!(call(&app, "remote").await, (StatusCode::OK, "from afar".to_owned()));
}
