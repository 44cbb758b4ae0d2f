//! The S3 protocol at `/storage/v1/s3` with a real client: boto3 (PyPI,
//! installed by `scripts/setup.sh`) runs `tests/s3/client.py` against a
//! gateway whose access key `gateway storage s3-keys create` made. Objects
//! written over S3 are the REST API's objects and the other way round; a
//! user's JWT as the session token keeps row-level security.

mod common;
mod storage_support;

use std::process::Command;

use serde_json::Value;
use tokio_postgres::config::Host;

use common::{SECRET, TestApp, cluster, spawn_app};
use storage_support::*;

const ALICE: &str = "11111111-1111-4111-8111-111111111111";
const BOB: &str = "22222222-2222-4222-8222-222222222222";

/// Supabase's documented folder-per-user policies on the `private` bucket.
const POLICIES: &str = r#"
create policy "users read their own folder" on storage.objects for select to authenticated
  using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users add to their own folder" on storage.objects for insert to authenticated
  with check (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users change their own folder" on storage.objects for update to authenticated
  using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users delete from their own folder" on storage.objects for delete to authenticated
  using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);
"#;

/// `gateway storage s3-keys <args>` on the test app's database.
fn s3_keys(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let pg = cluster().cluster.pg_config("authenticator");
    let host = match &pg.get_hosts()[0] {
        Host::Unix(path) => path.display().to_string(),
        Host::Tcp(name) => name.clone(),
    };
    let url = format!("host={host} port={} user=authenticator dbname={}", pg.get_ports()[0], app.database);
    let output = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["storage", "s3-keys", "--database-url", &url, "--data-dir"])
        .arg(std::env::temp_dir())
        .args(args)
        .env("JWT_SECRET", SECRET)
        .output()
        .expect("run gateway");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8");
    (output.status.success(), text(output.stdout), text(output.stderr))
}

fn line_value<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines().find_map(|line| line.strip_prefix(label)).unwrap_or_else(|| panic!("no {label:?} in {text}"))
}

#[tokio::test]
async fn s3_keys_are_made_listed_and_revoked_and_the_secret_is_printed_once() {
    let app = spawn_app().await;
    let (ok, created, err) = s3_keys(&app, &["create", "--description", "backups"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = created.lines().collect();
    assert_eq!(lines.len(), 2, "{created}");
    let id = line_value(&created, "access key id: ");
    let secret = line_value(&created, "secret access key: ");
    assert_eq!((id.len(), secret.len()), (32, 64));

    let (ok, listed, err) = s3_keys(&app, &["list"]);
    assert!(ok, "{err}");
    assert!(listed.contains(id) && listed.contains("backups"), "{listed}");
    assert!(!listed.contains(secret), "list never shows a secret: {listed}");
    let stored: String = app
        .admin()
        .await
        .query_one("select sealed_secret from storage.s3_access_keys where access_key_id = $1", &[&id])
        .await
        .expect("row")
        .get(0);
    assert!(!stored.contains(secret), "the secret is sealed at rest");

    let (ok, revoked, err) = s3_keys(&app, &["revoke", id]);
    assert!(ok && revoked.contains(id), "{revoked}{err}");
    let (ok, _, err) = s3_keys(&app, &["revoke", id]);
    assert!(!ok && err.contains("no access key"), "{err}");
    let (_, listed, _) = s3_keys(&app, &["list"]);
    assert!(!listed.contains(id), "{listed}");
}

#[tokio::test]
async fn boto3_runs_every_operation_and_the_objects_are_the_rest_apis() {
    let app = spawn_app().await;
    let (ok, created, err) = s3_keys(&app, &["create"]);
    assert!(ok, "{err}");
    let id = line_value(&created, "access key id: ").to_owned();
    let secret = line_value(&created, "secret access key: ").to_owned();
    app.admin().await.batch_execute(POLICIES).await.expect("policies");
    create_bucket(&app, "files", false, None, None).await;
    create_bucket(&app, "small", false, Some(100), Some(&["text/*"])).await;
    create_bucket(&app, "private", false, None, None).await;
    let key = app.service_key.clone();
    let (status, body) = upload(
        &app,
        Some(&key),
        "files",
        "from-rest.txt",
        b"written over REST".to_vec(),
        "text/plain",
        false,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = upload(
        &app,
        Some(&key),
        "private",
        &format!("{BOB}/theirs.txt"),
        b"bob's".to_vec(),
        "text/plain",
        false,
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // boto3 blocks; the gateway answers on this test's runtime meanwhile.
    let mut python = Command::new("python3");
    python
        .arg(common::repo_root().join("tests/s3/client.py"))
        .env("S3_ENDPOINT", format!("{}/storage/v1/s3", app.address))
        .env("S3_REGION", "local")
        .env("S3_ACCESS_KEY_ID", &id)
        .env("S3_SECRET_ACCESS_KEY", &secret)
        .env("ANON_KEY", &app.anon_key)
        .env("USER_ID", ALICE)
        .env("USER_TOKEN", app.user_token(ALICE))
        .env("OTHER_ID", BOB)
        .env("OTHER_TOKEN", app.user_token(BOB))
        .env("AWS_CONFIG_FILE", "/dev/null")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null");
    let output = tokio::task::spawn_blocking(move || python.output())
        .await
        .expect("join")
        .expect("python3 tests/s3/client.py (scripts/setup.sh installs boto3)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("report");

    // What boto3 wrote downloads over REST, with the same bytes and ETag.
    let written = &report["s3_written"];
    let path = format!("/object/s3-made/{}", encode(written["key"].as_str().expect("key")));
    let got = request(&app, reqwest::Method::GET, &path, Some(&key)).send().await.expect("get");
    assert_eq!(got.status(), 200);
    assert_eq!(got.headers()["etag"], written["etag"].as_str().expect("etag"));
    let bytes = got.bytes().await.expect("bytes");
    let digest = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(&bytes))
    };
    assert_eq!(digest, written["sha256"].as_str().expect("sha256"));

    // The session token's upload is Alice's object, owned by her.
    let owner: Option<String> = app
        .admin()
        .await
        .query_one(
            "select owner_id from storage.objects where bucket_id = 'private' and name = $1",
            &[&report["user_written"]["key"].as_str().expect("key")],
        )
        .await
        .expect("row")
        .get(0);
    assert_eq!(owner.as_deref(), Some(ALICE));
}

#[tokio::test]
async fn aws_cli_and_rclone_sync_a_folder_up_and_down() {
    let app = spawn_app().await;
    let (ok, created, err) = s3_keys(&app, &["create"]);
    assert!(ok, "{err}");
    let mut sync = Command::new("bash");
    sync.arg(common::repo_root().join("tests/s3/sync.sh"))
        .env("S3_ENDPOINT", format!("{}/storage/v1/s3", app.address))
        .env("S3_REGION", "local")
        .env("S3_ACCESS_KEY_ID", line_value(&created, "access key id: "))
        .env("S3_SECRET_ACCESS_KEY", line_value(&created, "secret access key: "));
    let output = tokio::task::spawn_blocking(move || sync.output())
        .await
        .expect("join")
        .expect("bash tests/s3/sync.sh (scripts/setup.sh installs awscli and rclone)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("synced"), "{stdout}");
}
