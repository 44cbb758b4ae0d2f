//! The admin listener of `gateway serve --metrics-listen`: `/live`, `/ready`
//! and `/metrics` in Prometheus' text format, whose series move as each
//! service is used. Runs the real binary: the recorder is the process's.

mod common;

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Ws;

use common::binary::Gateway;

/// The sum of the samples of `name` whose labels include every one of
/// `labels` (`key="value"`), in a Prometheus text exposition.
fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|label| rest.contains(label)))
                .then(|| value.parse::<f64>().ok())?
        })
        .sum()
}

/// Whether the exposition declares `name` of `kind`.
fn declares(text: &str, name: &str, kind: &str) -> bool {
    text.lines().any(|line| line == format!("# TYPE {name} {kind}"))
}

#[test]
fn the_admin_listener_serves_liveness_readiness_and_metrics_that_move_with_every_service() {
    let functions = common::repo_root().join("gateway/tests/fixtures/functions/supabase/functions");
    let deno = common::repo_root().join("tools/deno/node_modules/@deno/linux-x64-glibc/deno");
    let (functions, deno) = (functions.to_str().expect("path"), deno.to_str().expect("path"));
    let gateway = Gateway::start(
        "metrics",
        &["--metrics-listen", "127.0.0.1:0", "--functions-dir", functions, "--functions-deno", deno],
        &[],
        "warn",
    );
    let admin = gateway.admin.clone().expect("the banner names the metrics address");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = reqwest::Client::new();
    let scrape = || async {
        let response = client.get(format!("{admin}/metrics")).send().await.expect("scrape");
        assert_eq!(response.status(), 200);
        let kind = response.headers()["content-type"].to_str().expect("type").to_owned();
        assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
        response.text().await.expect("text")
    };

    runtime.block_on(async {
        for (path, status) in [("/live", "ok"), ("/ready", "ready")] {
            let response = client.get(format!("{admin}{path}")).send().await.expect("probe");
            assert_eq!(response.status(), 200, "{path}");
            assert_eq!(response.json::<Value>().await.expect("json")["status"], status, "{path}");
        }
        let api = &gateway.address;
        let (anon, service) = (&gateway.anon_key, &gateway.service_key);
        // The schema cache loads lazily: one read loads it before `before`.
        let warm = client.get(format!("{api}/rest/v1/products?select=id")).header("apikey", anon);
        assert_eq!(warm.send().await.expect("warm").status(), 200);
        let before = scrape().await;

        // REST: a read, and a table that does not exist.
        for (table, status) in [("products", 200), ("no_such_table", 404)] {
            let response = client
                .get(format!("{api}/rest/v1/{table}?select=id"))
                .header("apikey", anon)
                .send()
                .await
                .expect("rest");
            assert_eq!(response.status(), status);
        }
        // Auth: a sign-up, a sign-in, a refused sign-in.
        let auth = |path: &str, body: Value| {
            client.post(format!("{api}/auth/v1{path}")).header("apikey", anon).json(&body).send()
        };
        let user = json!({"email": "ana@example.com", "password": "a-long-password"});
        assert_eq!(auth("/signup", user.clone()).await.expect("signup").status(), 200);
        assert_eq!(auth("/token?grant_type=password", user).await.expect("sign in").status(), 200);
        let wrong = json!({"email": "ana@example.com", "password": "not-the-password"});
        assert_eq!(auth("/token?grant_type=password", wrong).await.expect("refused").status(), 400);
        // Storage: a bucket, an upload of 1000 bytes, its download.
        let storage = |method: reqwest::Method, path: &str| {
            client
                .request(method, format!("{api}/storage/v1{path}"))
                .header("apikey", service)
                .bearer_auth(service)
        };
        let bucket =
            storage(reqwest::Method::POST, "/bucket").json(&json!({"name": "files", "public": false}));
        assert_eq!(bucket.send().await.expect("bucket").status(), 200);
        let upload = storage(reqwest::Method::POST, "/object/files/a.bin")
            .header("content-type", "application/octet-stream")
            .body(vec![7u8; 1000]);
        assert_eq!(upload.send().await.expect("upload").status(), 200);
        let download = storage(reqwest::Method::GET, "/object/files/a.bin").send().await.expect("download");
        assert_eq!(download.bytes().await.expect("bytes").len(), 1000);
        // Realtime: a socket joins a channel and broadcasts to itself.
        let url =
            format!("{}/realtime/v1/websocket?apikey={anon}&vsn=1.0.0", api.replace("http://", "ws://"));
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("websocket");
        let join = json!({"topic": "realtime:room", "event": "phx_join", "ref": "1", "join_ref": "1",
            "payload": {"config": {"broadcast": {"self": true}}}});
        socket.send(Ws::Text(join.to_string().into())).await.expect("join");
        let said = json!({"topic": "realtime:room", "event": "broadcast", "ref": "2", "join_ref": "1",
            "payload": {"type": "broadcast", "event": "hello", "payload": {}}});
        socket.send(Ws::Text(said.to_string().into())).await.expect("broadcast");
        let mut heard = 0;
        while heard < 2 {
            match tokio::time::timeout(Duration::from_secs(5), socket.next()).await {
                Ok(Some(Ok(Ws::Text(_)))) => heard += 1,
                other => panic!("the socket should answer: {other:?}"),
            }
        }
        // Functions: calls one after another share one connection to the
        // function's process.
        for _ in 0..10 {
            let call = client.post(format!("{api}/functions/v1/hello")).bearer_auth(anon).json(&json!({}));
            let response = call.send().await.expect("invoke");
            assert_eq!(response.status(), 200);
            response.bytes().await.expect("answer");
        }
        let open = scrape().await;
        let connections = r#"function="hello""#;
        assert_eq!(
            sample(&open, "gateway_functions_connections_opened_total", &[connections]),
            1.0,
            "{open}"
        );
        assert_eq!(sample(&open, "gateway_realtime_sockets", &[]), 1.0, "{open}");
        assert_eq!(sample(&open, "gateway_realtime_channels", &[]), 1.0, "{open}");
        socket.close(None).await.expect("close");
        drop(socket);
        tokio::time::sleep(Duration::from_millis(300)).await;

        let after = scrape().await;
        let moved =
            |name: &str, labels: &[&str]| sample(&after, name, labels) - sample(&before, name, labels);
        let cases: [(&str, &[&str], f64); 13] = [
            (
                "gateway_http_requests_total",
                &[r#"service="rest""#, r#"route="/rest/v1/{table}""#, r#"status="200""#],
                1.0,
            ),
            ("gateway_http_requests_total", &[r#"service="rest""#, r#"status="404""#], 1.0),
            (
                "gateway_http_requests_total",
                &[r#"service="auth""#, r#"route="/auth/v1/token""#, r#"method="POST""#],
                2.0,
            ),
            ("gateway_http_requests_total", &[r#"service="storage""#], 3.0),
            ("gateway_http_requests_total", &[r#"service="realtime""#, r#"status="101""#], 1.0),
            ("gateway_http_request_duration_seconds_count", &[r#"service="rest""#], 2.0),
            ("gateway_db_round_trips_total", &[], 1.0),
            ("gateway_auth_sign_ins_total", &[r#"grant="password""#], 1.0),
            ("gateway_auth_sign_in_failures_total", &[r#"grant="password""#], 1.0),
            ("gateway_storage_received_bytes_total", &[], 1000.0),
            ("gateway_storage_sent_bytes_total", &[], 1000.0),
            ("gateway_realtime_messages_received_total", &[], 2.0),
            ("gateway_realtime_messages_sent_total", &[], 2.0),
        ];
        for (name, labels, at_least) in cases {
            let by = moved(name, labels);
            assert!(by >= at_least, "{name}{labels:?} moved by {by}, expected {at_least}:\n{after}");
        }
        // The socket closed, its channel with it.
        assert_eq!(sample(&after, "gateway_realtime_sockets", &[]), 0.0, "{after}");
        assert_eq!(sample(&after, "gateway_realtime_channels", &[]), 0.0, "{after}");
        // The pool as PostgREST reports it, and the schema cache's load.
        assert_eq!(sample(&after, "pgrst_db_pool_max", &[]), 10.0, "{after}");
        assert!(sample(&after, "pgrst_db_pool_available", &[]) >= 1.0, "{after}");
        assert_eq!(sample(&after, "pgrst_db_pool_waiting", &[]), 0.0, "{after}");
        assert!(sample(&after, "pgrst_schema_cache_loads_total", &[r#"status="SUCCESS""#]) >= 1.0, "{after}");
        assert!(declares(&after, "gateway_http_request_duration_seconds", "histogram"), "{after}");
        assert!(after.contains("# HELP gateway_http_requests_total"), "{after}");
        // A path no route matched is one series, whatever the path.
        assert!(!after.contains("no_such_table"), "{after}");
    });
    gateway.stop();
}

#[test]
fn without_metrics_listen_there_is_no_admin_listener() {
    let gateway = Gateway::start("no-metrics", &[], &[], "warn");
    assert_eq!(gateway.admin, None);
    gateway.stop();
}
