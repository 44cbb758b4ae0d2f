//! Helpers shared by the `storage_*` suites: requests to `/storage/v1` and a
//! look at what the storage root holds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use reqwest::{RequestBuilder, Response};
use serde_json::{Value, json};

use crate::common::TestApp;

pub fn url(app: &TestApp, path: &str) -> String {
    format!("{}/storage/v1{path}", app.address)
}

/// A request to `/storage/v1{path}`, with `token` as the bearer when given.
pub fn request(app: &TestApp, method: reqwest::Method, path: &str, token: Option<&str>) -> RequestBuilder {
    let builder = app.client.request(method, url(app, path));
    match token {
        Some(token) => builder.bearer_auth(token),
        None => builder,
    }
}

/// Status and JSON body (`Null` when the body is not JSON).
pub async fn answer(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Creates a bucket with the service key.
pub async fn create_bucket(
    app: &TestApp,
    id: &str,
    public: bool,
    limit: Option<u64>,
    mimes: Option<&[&str]>,
) {
    let body = json!({ "id": id, "name": id, "public": public, "file_size_limit": limit, "allowed_mime_types": mimes });
    let (status, body) = answer(
        request(app, reqwest::Method::POST, "/bucket", Some(&app.service_key))
            .json(&body)
            .send()
            .await
            .expect("send"),
    )
    .await;
    assert_eq!(status, 200, "create bucket {id}: {body}");
}

/// A raw-body upload (`POST`, or `PUT` when `method` says so).
pub async fn upload(
    app: &TestApp,
    token: Option<&str>,
    bucket: &str,
    key: &str,
    bytes: Vec<u8>,
    content_type: &str,
    upsert: bool,
) -> (u16, Value) {
    let response = request(app, reqwest::Method::POST, &format!("/object/{bucket}/{}", encode(key)), token)
        .header("content-type", content_type)
        .header("cache-control", "max-age=3600")
        .header("x-upsert", if upsert { "true" } else { "false" })
        .body(bytes)
        .send()
        .await
        .expect("send");
    answer(response).await
}

/// Percent-encodes what a URL path cannot carry as is (as `fetch` would).
pub fn encode(key: &str) -> String {
    let mut out = String::new();
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return files };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

pub fn storage_root(app: &TestApp) -> PathBuf {
    app.state.config.storage_root()
}

/// Bytes stored under the storage root, summed over every file.
pub fn stored_bytes(app: &TestApp) -> u64 {
    files_under(&storage_root(app)).iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum()
}

/// Runs SQL as the superuser in this test's database.
pub async fn sql(app: &TestApp, statements: &str) {
    app.admin().await.batch_execute(statements).await.expect("sql");
}
