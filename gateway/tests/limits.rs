//! Limits on bodies and connections, over raw sockets: a body
//! announced too large is refused at once and one that stops coming gets 408,
//! in each service's shape; half-sent heads and idle connections are closed;
//! heads too large get 431; the connection cap makes newcomers wait.

mod common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use common::{Options, TestApp, spawn_app_with, test_config};
use gateway::config::Span;

/// A gateway whose limits `adjust` sets.
async fn spawn_limited(adjust: impl FnOnce(&mut gateway::server::ServerConfig)) -> TestApp {
    let mut config = test_config();
    adjust(&mut config.server);
    spawn_app_with(Options { config, ..Options::default() }).await
}

fn seconds(n: u64) -> Span {
    Span(Duration::from_secs(n))
}

/// A connection to the app with `bytes` already sent.
async fn send(app: &TestApp, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(app.address.trim_start_matches("http://")).await.expect("connect");
    stream.write_all(bytes).await.expect("send");
    stream
}

/// One answer read off `stream`: its status and its body as JSON (`Null`
/// when it is not JSON); `None` when nothing whole came within `within`.
async fn answer(stream: &mut TcpStream, within: Duration) -> Option<(u16, Value)> {
    let read = async {
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if received.len() >= end + 4 + length {
                    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
                    let body =
                        serde_json::from_slice(&received[end + 4..end + 4 + length]).unwrap_or(Value::Null);
                    return Some((status, body));
                }
            }
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    };
    tokio::time::timeout(within, read).await.ok().flatten()
}

/// How long until the server closes `stream` (reading whatever comes), if it
/// does within `within`.
async fn closed_after(stream: &mut TcpStream, within: Duration) -> Option<Duration> {
    let start = Instant::now();
    let wait = async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return start.elapsed(),
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(within, wait).await.ok()
}

fn post_head(path: &str, key: &str, length: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\napikey: {key}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
}

#[tokio::test]
async fn a_body_announced_as_10_gb_is_refused_at_once_in_each_services_shape() {
    let app = spawn_limited(|_| {}).await;
    let limit = 2 * 1024 * 1024;
    let cases = [
        (
            "/rest/v1/brands",
            413,
            json!({"code": "PGRST413", "details": format!("The body must be at most {limit} bytes"),
                   "hint": null, "message": "Request body too large"}),
        ),
        (
            "/rest/v1/rpc/x",
            413,
            json!({"code": "PGRST413", "details": format!("The body must be at most {limit} bytes"),
                   "hint": null, "message": "Request body too large"}),
        ),
        (
            "/auth/v1/token?grant_type=password",
            413,
            json!({"code": "request_too_large", "error_code": "request_too_large",
                   "msg": format!("Request body too large: the limit is {limit} bytes"),
                   "message": format!("Request body too large: the limit is {limit} bytes")}),
        ),
        (
            "/storage/v1/bucket",
            400,
            json!({"statusCode": "413", "code": "EntityTooLarge", "error": "Payload too large",
                   "message": "The request body exceeded the maximum allowed size"}),
        ),
    ];
    for (path, status, body) in cases {
        let request = post_head(path, &app.anon_key, "10000000000") + r#"{"a":"bcd"}"#;
        let started = Instant::now();
        let mut stream = send(&app, request.as_bytes()).await;
        let reply = answer(&mut stream, Duration::from_secs(5)).await;
        assert_eq!(reply, Some((status, body)), "{path}");
        assert!(started.elapsed() < Duration::from_secs(2), "{path} answered at once");
    }
}

#[tokio::test]
async fn a_chunked_body_is_refused_as_soon_as_it_passes_the_limit() {
    let app = spawn_limited(|server| server.body_limit = 1024).await;
    let cases = [("/rest/v1/brands", 413, "PGRST413"), ("/auth/v1/signup", 413, "request_too_large")];
    for (path, status, code) in cases {
        let head =
            post_head(path, &app.anon_key, "0").replace("Content-Length: 0", "Transfer-Encoding: chunked");
        let chunk = format!("200\r\n{}\r\n", "x".repeat(0x200));
        // Three chunks of 512 bytes, and the body never ends.
        let request = head + &chunk.repeat(3);
        let mut stream = send(&app, request.as_bytes()).await;
        let reply = answer(&mut stream, Duration::from_secs(5)).await.expect("an answer");
        assert_eq!((reply.0, reply.1["code"].as_str()), (status, Some(code)), "{path}: {}", reply.1);
    }
}

#[tokio::test]
async fn a_body_that_stops_coming_is_answered_408_after_the_body_timeout() {
    let app = spawn_limited(|server| server.body_timeout = seconds(1)).await;
    let created = app
        .client
        .post(format!("{}/storage/v1/bucket", app.address))
        .bearer_auth(&app.service_key)
        .json(&json!({"name": "slow"}))
        .send()
        .await
        .expect("create bucket");
    assert_eq!(created.status(), 200);
    let cases = [
        ("/rest/v1/brands", 408, json!("PGRST408")),
        ("/auth/v1/token?grant_type=password", 408, json!("request_timeout")),
        // Storage answers 400 with the status in the body.
        ("/storage/v1/bucket", 400, json!("InvalidRequest")),
        ("/storage/v1/object/slow/file.txt", 400, json!("InvalidRequest")),
    ];
    for (path, status, code) in cases {
        let request = post_head(path, &app.service_key, "100") + r#"{"a":"bcd"}"#;
        let started = Instant::now();
        let mut stream = send(&app, request.as_bytes()).await;
        let (got, body) = answer(&mut stream, Duration::from_secs(10)).await.expect("an answer");
        assert_eq!((got, &body["code"]), (status, &code), "{path}: {body}");
        if status == 400 {
            assert_eq!(body["statusCode"], "408", "{path}: {body}");
        }
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
            "{path}: {waited:?}"
        );
    }
}

#[tokio::test]
async fn a_half_sent_head_is_closed_after_the_header_timeout_and_an_idle_connection_after_the_idle_one() {
    let app = spawn_limited(|server| {
        server.header_timeout = seconds(1);
        server.idle_timeout = seconds(3);
    })
    .await;
    let request: &[u8] = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    let half: &[u8] = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Half: ";
    // (seconds the client first stays silent, what it then sends, seconds
    // until it is closed after that)
    let cases: [(u64, &[u8], u64); 4] = [(0, half, 1), (2, half, 1), (0, b"", 3), (0, request, 3)];
    for (silent, sent, timeout) in cases {
        let label = format!("{silent} s, then {:?}", String::from_utf8_lossy(sent));
        let mut stream = send(&app, b"").await;
        tokio::time::sleep(Duration::from_secs(silent)).await;
        stream.write_all(sent).await.expect("send");
        if sent.ends_with(b"\r\n\r\n") {
            let reply = answer(&mut stream, Duration::from_secs(5)).await;
            assert_eq!(reply.map(|r| r.0), Some(200), "{label}");
        }
        let closed = closed_after(&mut stream, Duration::from_secs(10)).await;
        let closed = closed.unwrap_or_else(|| panic!("{label} was never closed"));
        let expected = Duration::from_secs(timeout);
        assert!(
            closed >= expected - Duration::from_millis(300) && closed < expected + Duration::from_secs(2),
            "{label}: closed after {closed:?}, expected {expected:?}"
        );
    }
}

#[tokio::test]
async fn a_connection_that_keeps_sending_requests_is_never_idle() {
    let app = spawn_limited(|server| server.idle_timeout = seconds(1)).await;
    let mut stream = send(&app, b"").await;
    for _ in 0..6 {
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("send");
        assert_eq!(answer(&mut stream, Duration::from_secs(5)).await.map(|r| r.0), Some(200));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
async fn a_head_larger_than_the_limit_is_answered_431() {
    let app = spawn_limited(|_| {}).await;
    // (bytes of one header's value, status): the default limit is 64 KiB.
    let cases = [(30_000, 200), (100_000, 431), (300_000, 431)];
    for (size, status) in cases {
        let request = format!("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(size));
        let mut stream = send(&app, request.as_bytes()).await;
        let reply = answer(&mut stream, Duration::from_secs(5)).await;
        assert_eq!(reply.map(|r| r.0), Some(status), "{size} bytes");
    }
}

#[tokio::test]
async fn beyond_the_connection_cap_new_connections_wait_and_established_ones_are_served() {
    let app = spawn_limited(|server| server.max_connections = 2).await;
    let request = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut first = send(&app, request).await;
    let mut second = send(&app, request).await;
    for stream in [&mut first, &mut second] {
        assert_eq!(answer(stream, Duration::from_secs(5)).await.map(|r| r.0), Some(200));
    }
    let mut third = send(&app, request).await;
    assert_eq!(answer(&mut third, Duration::from_secs(1)).await, None, "the third waits");
    second.write_all(request).await.expect("send");
    assert_eq!(answer(&mut second, Duration::from_secs(5)).await.map(|r| r.0), Some(200), "established");
    drop(first);
    assert_eq!(
        answer(&mut third, Duration::from_secs(5)).await.map(|r| r.0),
        Some(200),
        "served once one left"
    );
}
