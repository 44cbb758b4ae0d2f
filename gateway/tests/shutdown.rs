//! A SIGTERM always ends `gateway serve`: a client holding a
//! half-sent request no longer keeps it alive. At the drain deadline the
//! connections left are dropped, the embedded PostgreSQL is stopped and the
//! process exits 0. With `--drain-delay`, connections already open are
//! served a while longer, each answer closing its connection.

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
        .args(["--workers", "1"])
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
    assert!(
        log_text.lines().any(|l| l.contains("worker threads") && l.contains("workers=1")),
        "the runtime has the one worker asked for:\n{log_text}"
    );
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

mod common;

/// One answer read from a raw HTTP/1.1 connection: its head (lower-cased)
/// and body, read to its `Content-Length`.
fn read_answer(stream: &mut TcpStream) -> (String, Vec<u8>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).expect("read the head");
        assert_eq!(n, 1, "the connection closed before an answer: {}", String::from_utf8_lossy(&head));
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).expect("utf-8").to_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse::<usize>().expect("length"));
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("read the body");
    (head, body)
}

#[test]
fn during_the_drain_delay_open_connections_are_served_and_each_answer_closes_its_connection() {
    let gateway = common::binary::Gateway::start("drain-delay", &["--drain-delay", "3s"], &[], "info");
    let host = gateway.address.trim_start_matches("http://").to_owned();
    let request = format!("GET /health HTTP/1.1\r\nhost: {host}\r\n\r\n");
    // A connection kept open, as a load balancer keeps one, and a second one
    // left idle.
    let mut kept = TcpStream::connect(&host).expect("connect");
    let mut idle = TcpStream::connect(&host).expect("connect");
    for stream in [&mut kept, &mut idle] {
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let (head, _) = read_answer(stream);
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(!head.contains("connection: close"), "{head}");
    }
    let started = Instant::now();
    let stopping = std::thread::spawn(move || gateway.stop());
    std::thread::sleep(Duration::from_millis(500));

    // New connections are refused at once; the kept one is still served,
    // and its answer closes it.
    assert!(TcpStream::connect(&host).is_err(), "the listener is closed");
    kept.write_all(request.as_bytes()).expect("send during the delay");
    let (head, _) = read_answer(&mut kept);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("connection: close"), "{head}");
    assert_eq!(kept.read(&mut [0u8; 1]).expect("read"), 0, "the server closed it after the answer");

    // The idle one is closed once the delay has passed, and the gateway exits.
    assert_eq!(idle.read(&mut [0u8; 1]).expect("read"), 0, "closed at the end of the delay");
    assert!(started.elapsed() >= Duration::from_secs(3), "closed after {:?}", started.elapsed());
    let log = stopping.join().expect("the gateway stopped");
    assert!(log.contains("draining connections"), "{log}");
}
