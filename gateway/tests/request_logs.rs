//! The log of `gateway serve --log-format json --access-log` at debug level:
//! one JSON object per line, the request id on the lines of its request (a
//! Realtime socket's too), one access line per request without its query
//! string, and no key, password or token anywhere. Runs the real binary.

mod common;

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{Message as Ws, client::IntoClientRequest};

use common::binary::Gateway;

/// The request id of a line: its own field (the access line), or its span's.
fn request_id(line: &Value) -> Option<&str> {
    line["fields"]["request_id"].as_str().or_else(|| line["span"]["request_id"].as_str())
}

#[test]
fn a_json_log_carries_request_ids_and_access_lines_and_no_secret() {
    let gateway = Gateway::start("request-logs", &["--log-format", "json", "--access-log"], &[], "debug");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = reqwest::Client::new();
    let (api, anon, service) =
        (gateway.address.clone(), gateway.anon_key.clone(), gateway.service_key.clone());
    let password = "a-password-never-logged";

    let secrets = runtime.block_on(async {
        let auth = |path: &str, body: Value| {
            client.post(format!("{api}/auth/v1{path}")).header("apikey", &anon).json(&body).send()
        };
        let session = |response: reqwest::Response| async move {
            assert_eq!(response.status(), 200);
            let body: Value = response.json().await.expect("session");
            let token = |name: &str| body[name].as_str().expect("a token").to_owned();
            (token("access_token"), token("refresh_token"))
        };
        let user = json!({"email": "ana@example.com", "password": password});
        let (signed_up, first_refresh) = session(auth("/signup", user.clone()).await.expect("signup")).await;
        let (signed_in, refresh) =
            session(auth("/token?grant_type=password", user).await.expect("sign in")).await;
        let (refreshed, last_refresh) = session(
            auth("/token?grant_type=refresh_token", json!({"refresh_token": refresh}))
                .await
                .expect("refresh"),
        )
        .await;
        let me = client
            .get(format!("{api}/auth/v1/user"))
            .header("apikey", &anon)
            .bearer_auth(&refreshed)
            .send()
            .await
            .expect("user");
        assert_eq!(me.status(), 200);
        // The service key in the query string, where a log could catch it.
        let read = client
            .get(format!("{api}/rest/v1/products?select=id&apikey={service}"))
            .header("x-request-id", "rest-read-1")
            .send()
            .await
            .expect("rest");
        assert_eq!(read.status(), 200);
        let buckets = client
            .get(format!("{api}/storage/v1/bucket"))
            .header("apikey", &service)
            .bearer_auth(&service)
            .header("x-request-id", "storage-list-1")
            .send()
            .await
            .expect("storage");
        assert_eq!(buckets.status(), 200);
        let url =
            format!("{}/realtime/v1/websocket?apikey={anon}&vsn=1.0.0", api.replace("http://", "ws://"));
        let mut request = url.into_client_request().expect("request");
        request.headers_mut().insert("x-request-id", "socket-1".parse().expect("header"));
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("websocket");
        let join = json!({"topic": "realtime:room", "event": "phx_join", "ref": "1",
            "payload": {"access_token": refreshed}});
        socket.send(Ws::Text(join.to_string().into())).await.expect("join");
        let reply = tokio::time::timeout(Duration::from_secs(5), socket.next()).await.expect("a reply");
        assert!(matches!(reply, Some(Ok(Ws::Text(_)))), "{reply:?}");
        socket.close(None).await.expect("close");
        drop(socket);
        tokio::time::sleep(Duration::from_millis(300)).await;
        [
            password.to_owned(),
            signed_up,
            first_refresh,
            signed_in,
            refresh,
            refreshed,
            last_refresh,
            service.clone(),
            anon.clone(),
        ]
    });
    let log = gateway.stop();

    let lines: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    assert!(lines.len() > 20, "debug logging should say something:\n{log}");
    let access: Vec<&Value> = lines.iter().filter(|l| l["target"] == "gateway::access").collect();
    let read = access
        .iter()
        .find(|l| l["fields"]["request_id"] == "rest-read-1")
        .unwrap_or_else(|| panic!("an access line for the read:\n{log}"));
    assert_eq!(read["fields"]["method"], "GET");
    assert_eq!(read["fields"]["path"], "/rest/v1/products", "no query string");
    assert_eq!(read["fields"]["status"], 200);
    assert!(read["fields"]["duration_ms"].as_f64().is_some(), "{read}");
    assert!(access.len() >= 7, "one access line per request: {access:?}");
    for id in ["rest-read-1", "storage-list-1"] {
        let inside =
            lines.iter().filter(|l| l["target"] != "gateway::access" && request_id(l) == Some(id)).count();
        assert!(inside >= 1, "the request's own lines carry {id}:\n{log}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l["fields"]["message"] == "realtime socket closed" && request_id(l) == Some("socket-1")),
        "the socket's lines carry the upgrade request's id:\n{log}"
    );
    for (n, secret) in secrets.iter().enumerate() {
        let leaks: Vec<String> = lines
            .iter()
            .filter(|l| l.to_string().contains(secret.as_str()))
            .map(|l| format!("{} {} {}", l["level"], l["target"], l["fields"]["message"]))
            .collect();
        assert!(leaks.is_empty(), "secret {n} ({}…) was logged by {leaks:#?}", &secret[..8]);
    }
    assert!(!log.contains("eyJ"), "a JWT was logged");
}

#[test]
fn the_text_log_puts_the_request_id_in_front_of_each_line_of_the_request() {
    let gateway = Gateway::start("request-logs-text", &["--access-log"], &[], "info,tower_http=debug");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let response = reqwest::Client::new()
            .get(format!("{}/health", gateway.address))
            .header("x-request-id", "text-1")
            .send()
            .await
            .expect("health");
        assert_eq!(response.status(), 200);
    });
    let log = gateway.stop();
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("text-1")).collect();
    assert!(
        lines.iter().any(|l| l.contains("request_id=text-1") && l.contains("finished processing request")),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("gateway::access") && l.contains("path=/health") && l.contains("status=200")),
        "{log}"
    );
}
