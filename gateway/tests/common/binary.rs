//! The real `gateway` binary, as deployed, over a private cluster: for tests
//! of what only the process shows (its log on stderr, its admin listener).

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

use tokio_postgres::config::Host;

use super::{SECRET, TestCluster, repo_root, start_private_cluster};

/// A running `gateway serve`, its banner read.
pub struct Gateway {
    child: Child,
    log: Option<JoinHandle<Vec<u8>>>,
    /// `http://127.0.0.1:port`.
    pub address: String,
    /// `http://127.0.0.1:port` of the admin listener, when asked for.
    pub admin: Option<String>,
    pub anon_key: String,
    pub service_key: String,
    /// Kept alive as long as the gateway.
    pub private: TestCluster,
}

impl Gateway {
    /// `gateway serve` with `args` and `env` on a cluster of its own; the
    /// log level is `rust_log`.
    pub fn start(name: &str, args: &[&str], env: &[(&str, &str)], rust_log: &str) -> Gateway {
        let private = start_private_cluster(name);
        let superuser = private.cluster.pg_config("postgres");
        let Host::Unix(socket_dir) = &superuser.get_hosts()[0] else {
            panic!("the test cluster listens on a Unix socket");
        };
        let url = |user: &str| format!("host={} port=5432 dbname=postgres user={user}", socket_dir.display());
        let mut command = Command::new(env!("CARGO_BIN_EXE_gateway"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(private.dir.join("gateway-data"))
            .arg("--sql-root")
            .arg(repo_root())
            .args(args)
            .env("DATABASE_URL", url("authenticator"))
            .env("DATABASE_ADMIN_URL", url("postgres"))
            .env("JWT_SECRET", SECRET)
            .env("RUST_LOG", rust_log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("spawn gateway");
        let mut stderr = child.stderr.take().expect("stderr");
        let log = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            stderr.read_to_end(&mut bytes).expect("read the log");
            bytes
        });
        let (mut address, mut admin, mut anon_key, mut service_key) =
            (String::new(), None, String::new(), String::new());
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        while service_key.is_empty() {
            let line = lines.next().expect("the banner").expect("a line");
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("API URL:") {
                address = rest.trim().to_owned();
            } else if let Some(rest) = line.strip_prefix("metrics:") {
                admin = Some(rest.trim().trim_end_matches("/metrics").to_owned());
            } else if let Some(rest) = line.strip_prefix("anon key:") {
                anon_key = rest.trim().to_owned();
            } else if let Some(rest) = line.strip_prefix("service_role key:") {
                service_key = rest.trim().to_owned();
            }
        }
        // The rest of the banner is not read; the pipe must not fill.
        std::thread::spawn(move || for _ in lines {});
        let gateway = Gateway { child, log: Some(log), address, admin, anon_key, service_key, private };
        gateway.wait_until_serving();
        gateway
    }

    /// The banner comes before the accept loop (and its signal handlers):
    /// waits for `/health` to answer.
    fn wait_until_serving(&self) {
        use std::io::Write;
        let host = self.address.trim_start_matches("http://");
        for _ in 0..200 {
            if let Ok(mut stream) = std::net::TcpStream::connect(host) {
                let request = format!("GET /health HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
                let mut answer = String::new();
                if stream.write_all(request.as_bytes()).is_ok()
                    && stream.read_to_string(&mut answer).is_ok()
                    && answer.starts_with("HTTP/1.1 200")
                {
                    return;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the gateway at {host} never answered /health");
    }

    /// Stops it as a service manager would (SIGINT) and returns its log.
    pub fn stop(mut self) -> String {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGINT,
        )
        .expect("signal");
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "gateway exited with {status}");
        let log = self.log.take().expect("log").join().expect("log reader");
        String::from_utf8(log).expect("utf-8")
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // A test that failed before `stop` leaves no gateway running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
