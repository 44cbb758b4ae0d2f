//! Helpers shared by the `storage_*` suites: requests to `/storage/v1` and a
//! look at what the storage root holds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::TryStreamExt;
use reqwest::{RequestBuilder, Response};
use serde_json::{Value, json};

use crate::common::{Options, TestApp, spawn_app_with, test_config};

/// Where a test's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `LocalFileSystem` under a storage root of the test's own.
    Local,
    /// A moto S3 server of the test's own, addressed path-style.
    S3,
}

/// A gateway on `backend`; it derefs to the [`TestApp`].
pub struct StorageApp {
    pub app: TestApp,
    pub backend: Backend,
    _moto: Option<Moto>,
}

impl std::ops::Deref for StorageApp {
    type Target = TestApp;
    fn deref(&self) -> &TestApp {
        &self.app
    }
}

pub async fn spawn_storage_app(backend: Backend) -> StorageApp {
    let mut options = Options { config: test_config(), ..Default::default() };
    let moto = match backend {
        Backend::Local => None,
        Backend::S3 => {
            let moto = start_moto().await;
            let created = reqwest::Client::new()
                .put(format!("{}/gateway-files", moto.endpoint))
                .send()
                .await
                .expect("bucket");
            assert!(created.status().is_success(), "{}", created.status());
            let s3 = &mut options.config.storage;
            s3.s3_bucket = Some("gateway-files".to_owned());
            s3.s3_endpoint = Some(moto.endpoint.clone());
            s3.s3_access_key_id = Some("test".to_owned());
            s3.s3_secret_access_key = Some(gateway::config::Secret::new("test"));
            s3.s3_force_path_style = true;
            Some(moto)
        }
    };
    StorageApp { app: spawn_app_with(options).await, backend, _moto: moto }
}

/// A moto server (PyPI `moto[server]`, installed by `scripts/setup.sh`) on a
/// free port, stopped when dropped.
pub struct Moto {
    child: Child,
    pub endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn start_moto() -> Moto {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let child = Command::new("python3")
        .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m moto.server (scripts/setup.sh installs moto[server])");
    let moto = Moto { child, endpoint: format!("http://127.0.0.1:{port}") };
    let client = reqwest::Client::new();
    for _ in 0..300 {
        if client.get(&moto.endpoint).send().await.is_ok() {
            return moto;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("moto did not start on {}", moto.endpoint);
}

/// Every blob the gateway's store holds, whatever the backend.
pub async fn blobs(app: &TestApp) -> Vec<String> {
    let listed: Vec<_> = app.state.store.store.list(None).try_collect().await.expect("list the store");
    let mut names: Vec<String> = listed.into_iter().map(|meta| meta.location.to_string()).collect();
    names.sort();
    names
}

/// Runs each named `async fn(StorageApp)` once on local disk and once on S3.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod local {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::spawn_storage_app(super::Backend::Local).await).await;
            })*
        }
        mod s3 {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::spawn_storage_app(super::Backend::S3).await).await;
            })*
        }
    };
}

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

/// Runs SQL as the superuser in this test's database.
pub async fn sql(app: &TestApp, statements: &str) {
    app.admin().await.batch_execute(statements).await.expect("sql");
}
