//! A real S3-compatible server for tests: `s3s-fs` (crates.io), which keeps
//! each bucket as a folder and checks SigV4 signatures with the keys it was
//! given. `scripts/setup.sh` installs it with `cargo install`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use gateway::config::Secret;

pub const ACCESS_KEY: &str = "gateway-tests";
pub const SECRET_KEY: &str = "gateway-tests-secret-key";

/// A running `s3s-fs`, stopped and its folder removed on drop.
pub struct S3Server {
    child: Child,
    /// `http://127.0.0.1:port`.
    pub endpoint: String,
    /// The folder holding one folder per bucket.
    pub root: tempfile::TempDir,
}

/// `s3s-fs` on `PATH`, else where `scripts/setup.sh` installs it (cargo's
/// bin folder).
pub fn binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("s3s-fs"))
        .find(|candidate| candidate.is_file());
    on_path.unwrap_or_else(|| {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"));
        cargo_home.join("bin/s3s-fs")
    })
}

impl S3Server {
    /// Starts a server holding the empty `buckets` (a bucket of `s3s-fs` is a
    /// folder under its root, so they are made before it starts).
    pub fn start(buckets: &[&str]) -> S3Server {
        let root = tempfile::tempdir().expect("tempdir");
        for bucket in buckets {
            std::fs::create_dir_all(root.path().join(bucket)).expect("bucket folder");
        }
        let port =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        let child = Command::new(binary())
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(root.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} ({e}): scripts/setup.sh installs it", binary().display()));
        let server = S3Server { child, endpoint: format!("http://127.0.0.1:{port}"), root };
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("s3s-fs did not start on {}", server.endpoint);
    }

    /// Points `storage` at `bucket` of this server, path-style.
    pub fn configure(&self, storage: &mut gateway::storage::StorageConfig, bucket: &str) {
        storage.s3_bucket = Some(bucket.to_owned());
        storage.s3_endpoint = Some(self.endpoint.clone());
        storage.s3_access_key_id = Some(ACCESS_KEY.to_owned());
        storage.s3_secret_access_key = Some(Secret::new(SECRET_KEY));
        storage.s3_force_path_style = true;
    }

    /// The same settings as environment variables of `gateway serve`.
    pub fn env(&self, bucket: &str) -> Vec<(&'static str, String)> {
        vec![
            ("STORAGE_S3_BUCKET", bucket.to_owned()),
            ("STORAGE_S3_ENDPOINT", self.endpoint.clone()),
            ("STORAGE_S3_ACCESS_KEY_ID", ACCESS_KEY.to_owned()),
            ("STORAGE_S3_SECRET_ACCESS_KEY", SECRET_KEY.to_owned()),
            ("STORAGE_S3_FORCE_PATH_STYLE", "true".to_owned()),
        ]
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
