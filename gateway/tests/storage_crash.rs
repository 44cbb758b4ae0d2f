//! A gateway killed (SIGKILL) at random points of uploads leaves no row
//! pointing at missing or partial bytes (reliability.md G32): the row switches
//! to a new version only after its bytes are complete, in one transaction.
//! The orphans the kills leave, `gateway storage sweep` removes.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use md5::{Digest, Md5};
use serde_json::Value;

use common::{SECRET, cluster, connect, fresh_database};

struct Gateway {
    child: Child,
    address: String,
    service_key: String,
}

fn start(database_url: &str, root: &Path, data: &Path) -> Gateway {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(data)
        .arg("--storage-root")
        .arg(root)
        .env("DATABASE_URL", database_url)
        .env("JWT_SECRET", SECRET)
        .env_remove("DATABASE_ADMIN_URL")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn gateway");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let (mut address, mut service_key) = (String::new(), String::new());
    while service_key.is_empty() {
        let line = lines.next().expect("gateway exited early").expect("line");
        if let Some(rest) = line.trim().strip_prefix("API URL:") {
            address = rest.trim().to_owned();
        } else if let Some(rest) = line.trim().strip_prefix("service_role key:") {
            service_key = rest.trim().to_owned();
        }
    }
    Gateway { child, address, service_key }
}

/// A pseudo-random number from the clock, enough to spread the kills.
fn jitter(max: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    u64::from(nanos) % max
}

/// An upload of `size` bytes of `fill`, sent in slow chunks.
async fn slow_upload(
    client: reqwest::Client,
    gateway_address: String,
    key: String,
    token: String,
    fill: u8,
    size: usize,
) {
    let chunk = 64 * 1024;
    let chunks = size.div_ceil(chunk);
    let body = futures::stream::unfold(0usize, move |i| async move {
        if i == chunks {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
        let len = chunk.min(size - i * chunk);
        Some((Ok::<_, std::io::Error>(vec![fill; len]), i + 1))
    });
    let _ = client
        .post(format!("{gateway_address}/storage/v1/object/crash/{key}"))
        .bearer_auth(token)
        .header("content-type", "application/octet-stream")
        .header("x-upsert", "true")
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await;
}

#[tokio::test]
async fn killing_the_gateway_mid_upload_never_leaves_a_row_on_missing_or_partial_bytes() {
    let database = fresh_database().await;
    let mut admin_config = cluster().cluster.pg_config(gateway::embedded::SUPERUSER);
    admin_config.dbname(&database);
    let admin = connect(&admin_config).await;
    admin
        .batch_execute("insert into storage.buckets (id, name) values ('crash', 'crash')")
        .await
        .expect("bucket");
    let api = cluster().cluster.pg_config("authenticator");
    let host = match &api.get_hosts()[0] {
        tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        tokio_postgres::config::Host::Tcp(name) => name.clone(),
    };
    let database_url =
        format!("host={host} port={} user=authenticator dbname={database}", api.get_ports()[0]);
    let work = tempfile::tempdir().expect("tempdir");
    let root = work.path().join("storage");
    let client = reqwest::Client::new();
    let kills = 50;
    for round in 0..kills {
        let mut gateway = start(&database_url, &root, &work.path().join("data"));
        let mut uploads = Vec::new();
        for (i, size) in [300_000usize, 1_500_000, 3_000_000].into_iter().enumerate() {
            // The same keys every round: kills land on replacements too.
            let key = format!("file-{i}.bin");
            let fill = (round * 3 + i) as u8;
            uploads.push(tokio::spawn(slow_upload(
                client.clone(),
                gateway.address.clone(),
                key,
                gateway.service_key.clone(),
                fill,
                size,
            )));
        }
        tokio::time::sleep(Duration::from_millis(jitter(150))).await;
        gateway.child.kill().expect("SIGKILL");
        gateway.child.wait().expect("wait");
        for upload in uploads {
            let _ = upload.await;
        }
    }

    let checked = rows_point_at_complete_bytes(&admin, &root).await;
    // What a kill leaves behind are orphans (staged or uncommitted bytes no
    // row points at), at most one per upload in flight.
    let orphans = walk(&root) - checked;
    assert!(orphans <= kills * 3, "{orphans} orphans from {} uploads in flight", kills * 3);
    // Some uploads finish before their kill; the check would be empty otherwise.
    assert!(checked > 0, "no upload ever completed; the kills came too early to test anything");

    // With no upload in flight any more, a sweep with no grace period removes
    // every orphan and nothing a row points at.
    let swept = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["storage", "sweep", "--storage-sweep-grace", "0"])
        .arg("--data-dir")
        .arg(work.path().join("data"))
        .arg("--storage-root")
        .arg(&root)
        .env("DATABASE_URL", &database_url)
        .env("JWT_SECRET", SECRET)
        .env_remove("DATABASE_ADMIN_URL")
        .output()
        .expect("gateway storage sweep");
    let printed = String::from_utf8_lossy(&swept.stdout);
    assert!(swept.status.success(), "{printed}{}", String::from_utf8_lossy(&swept.stderr));
    assert!(printed.contains(&format!("{orphans} orphans removed")), "{printed}");
    assert_eq!(rows_point_at_complete_bytes(&admin, &root).await, checked);
    assert_eq!(walk(&root), checked, "{printed}");
}

/// Checks that every row points at complete bytes: present, of the recorded
/// size, with the recorded MD5. Returns how many rows there are.
async fn rows_point_at_complete_bytes(admin: &tokio_postgres::Client, root: &Path) -> usize {
    let rows = admin
        .query("select bucket_id, name, version, metadata from storage.objects order by name", &[])
        .await
        .expect("rows");
    let mut checked = 0;
    for row in &rows {
        let (bucket, name, version): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let metadata: Value = row.get(3);
        let path = root.join(&bucket).join(&name).join(&version);
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("{name} points at {}: {e}", path.display()));
        assert_eq!(Some(bytes.len() as u64), metadata["size"].as_u64(), "{name}: partial bytes");
        let etag = format!("\"{}\"", hex::encode(Md5::digest(&bytes)));
        assert_eq!(Some(etag.as_str()), metadata["eTag"].as_str(), "{name}: other bytes");
        assert!(bytes.iter().all(|b| *b == bytes[0]), "{name}: mixed bytes");
        checked += 1;
    }
    checked
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| if e.path().is_dir() { walk(&e.path()) } else { 1 }).sum())
        .unwrap_or(0)
}
