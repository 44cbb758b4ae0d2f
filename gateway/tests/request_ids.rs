//! `x-request-id` on every answer of every service, errors included: the
//! client's id when it is a sane token of at most 200 characters, a new UUID
//! otherwise.

mod common;

use common::spawn_app;

/// What a client may send, and whether it comes back as sent.
const IDS: [(&str, bool); 5] = [
    ("client-id-42", true),
    ("0b7c2f9e-4a1d-4e8b-9c3f-2d1e0f9a8b7c", true),
    ("trace:span.1_2", true),
    ("has space", false),
    ("<script>", false),
];

fn is_uuid(id: &str) -> bool {
    uuid::Uuid::parse_str(id).is_ok_and(|u| u.get_version_num() == 4)
}

#[tokio::test]
async fn every_service_echoes_a_sane_request_id_and_replaces_any_other() {
    let app = spawn_app().await;
    let anon = app.anon_key.clone();
    // (what, path, with the key?, status expected): answers and refusals.
    let requests: [(&str, &str, bool, u16); 9] = [
        ("REST read", "/rest/v1/", true, 200),
        ("REST refusal without a key", "/rest/v1/anything", false, 401),
        ("REST unknown table", "/rest/v1/no_such_table", true, 404),
        ("Auth settings", "/auth/v1/settings", true, 200),
        ("Auth refusal", "/auth/v1/user", true, 401),
        ("Storage refusal, in Storage's shape", "/storage/v1/bucket", false, 400),
        ("Realtime without an upgrade", "/realtime/v1/websocket?vsn=1.0.0", true, 400),
        ("the gateway's health", "/health", false, 200),
        ("a service not served", "/functions/v1/hello", false, 404),
    ];
    for (what, path, keyed, status) in requests {
        for (id, kept) in IDS {
            let mut request = app.get(path).header("x-request-id", id);
            if keyed {
                request = request.header("apikey", &anon);
            }
            let response = request.send().await.expect("request");
            assert_eq!(response.status().as_u16(), status, "{what}");
            let echoed =
                response.headers().get("x-request-id").map(|v| v.to_str().expect("ascii").to_owned());
            let echoed = echoed.unwrap_or_else(|| panic!("{what}: no x-request-id"));
            if kept {
                assert_eq!(echoed, id, "{what}");
            } else {
                assert!(is_uuid(&echoed), "{what}: {id:?} should be replaced, got {echoed:?}");
            }
        }
        let response = app.get(path).send().await.expect("request");
        let made = response.headers()["x-request-id"].to_str().expect("ascii").to_owned();
        assert!(is_uuid(&made), "{what}: an id is made when none is sent: {made}");
    }
}

#[tokio::test]
async fn an_id_of_200_characters_is_kept_and_a_longer_one_replaced() {
    let app = spawn_app().await;
    for (length, kept) in [(200, true), (201, false)] {
        let id = "a".repeat(length);
        let response = app.get("/health").header("x-request-id", &id).send().await.expect("request");
        let echoed = response.headers()["x-request-id"].to_str().expect("ascii");
        assert_eq!(echoed == id, kept, "{length} characters");
        assert!(kept || is_uuid(echoed), "{echoed}");
    }
}

#[tokio::test]
async fn a_compressed_answer_and_a_cors_preflight_carry_the_id_too() {
    let app = spawn_app().await;
    let compressed = app
        .get("/rest/v1/")
        .header("apikey", &app.anon_key)
        .header("accept-encoding", "gzip")
        .header("x-request-id", "zipped-1")
        .send()
        .await
        .expect("request");
    assert_eq!(compressed.headers()["x-request-id"], "zipped-1");
    let preflight = app
        .client
        .request(reqwest::Method::OPTIONS, format!("{}/rest/v1/products", app.address))
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "GET")
        .header("x-request-id", "preflight-1")
        .send()
        .await
        .expect("preflight");
    assert_eq!(preflight.headers()["x-request-id"], "preflight-1");
}
