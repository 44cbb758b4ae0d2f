//! A SIGTERM always ends `gateway serve`: a client holding a
//! half-sent request no longer keeps it alive. At the drain deadline the
//! connections left are dropped, the embedded PostgreSQL is stopped and the
//! process exits 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// Processes whose command line names `pgdata` (the postmaster does, with -D).
fn postgres_processes(pgdata: &Path) -> usize {
    let needle = pgdata.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cmdline.contains("postgres") && cmdline.contains(&needle)).then_some(())
        })
        .count()
}

#[test]
fn sigterm_with_a_half_sent_request_held_open_exits_0_at_the_drain_deadline_and_stops_postgres() {
    let workdir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(workdir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let log = workdir.path().join("gateway.log");
    let drain = Duration::from_secs(2);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(workdir.path().join(".data"))
        .arg("--sql-root")
        .arg(repo_root())
        // Neither the header nor the idle timeout ends the held connection first.
        .args(["--drain-timeout", "2s", "--header-timeout", "60s", "--idle-timeout", "60s"])
        .current_dir(workdir.path())
        .env_remove("DATABASE_URL")
        .env_remove("JWT_SECRET")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("spawn gateway");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let address = loop {
        let Some(Ok(line)) = lines.next() else {
            panic!("gateway exited early:\n{}", std::fs::read_to_string(&log).unwrap_or_default());
        };
        if let Some(rest) = line.trim().strip_prefix("API URL:") {
            break rest.trim().trim_start_matches("http://").to_owned();
        }
    };
    let pgdata = std::fs::canonicalize(workdir.path().join(".data/postgres")).expect("pgdata");
    assert!(postgres_processes(&pgdata) > 0, "postgres runs while serving");

    // A request whose head stops half-way, one whose body does (Storage checks
    // only that credentials are present before it reads the body), and an
    // idle keep-alive connection.
    let mut half_head = TcpStream::connect(&address).expect("connect");
    half_head.write_all(b"POST /rest/v1/brands HTTP/1.1\r\nHost: x\r\nContent-Le").expect("send");
    let mut half_body = TcpStream::connect(&address).expect("connect");
    half_body
        .write_all(b"POST /storage/v1/bucket HTTP/1.1\r\nHost: x\r\napikey: x\r\nContent-Length: 100\r\n\r\n{\"name\":")
        .expect("send");
    let mut idle = TcpStream::connect(&address).expect("connect");
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
    let mut answer = [0u8; 12];
    idle.read_exact(&mut answer).expect("an answer");
    assert_eq!(&answer, b"HTTP/1.1 200");
    std::thread::sleep(Duration::from_millis(200));

    let signalled = Instant::now();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .expect("signal");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!(
                "still running 30 s after SIGTERM:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = signalled.elapsed();
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "exited with {status}:\n{log_text}");
    assert!(
        took >= drain - Duration::from_millis(200),
        "the held request was given the drain time: {took:?}"
    );
    assert!(took < drain + Duration::from_secs(10), "exited {took:?} after SIGTERM:\n{log_text}");
    assert!(log_text.contains("drain deadline passed"), "{log_text}");
    assert!(log_text.contains("open-files limit"), "the limit in force is logged:\n{log_text}");
    assert!(log_text.contains("PostgreSQL stopped"), "{log_text}");
    assert_eq!(postgres_processes(&pgdata), 0, "PostgreSQL was stopped");
    assert!(!pgdata.join("postmaster.pid").exists());
    drop((half_head, half_body, idle));
    if nix::unistd::geteuid().is_root()
        && let Ok(link) = std::fs::read_link(workdir.path().join(".data/postgres"))
    {
        let _ = std::fs::remove_dir_all(link);
    }
}
