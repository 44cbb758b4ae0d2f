//! The operator console's keys, observe and storage pages (`/_/api/keys`,
//! `/_/api/signing-keys`, `/_/api/logs`, `/_/api/metrics`,
//! `/_/api/storage/...`, docs/console.md): what they answer, and that they
//! keep the console's access rules.

mod common;

use std::time::Duration;

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_app, spawn_shop};

const EMAIL: &str = "ops@example.com";
const PASSWORD: &str = "operator-password-1";
const KID: &str = "0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11";

/// Every route of these pages, for the access rules.
const ROUTES: &[(Method, &str)] = &[
    (Method::GET, "/keys"),
    (Method::POST, "/keys"),
    (Method::POST, "/keys/revoke"),
    (Method::POST, "/signing-keys"),
    (Method::POST, "/signing-keys/rotate"),
    (Method::DELETE, "/signing-keys/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11"),
    (Method::GET, "/logs"),
    (Method::GET, "/metrics"),
    (Method::GET, "/storage/bucket"),
    (Method::POST, "/storage/bucket"),
    (Method::POST, "/storage/object/pics/a.png"),
    (Method::DELETE, "/storage/object/pics"),
];

/// A signed-in operator: the cookie to send and the CSRF token.
struct Signed {
    cookie: String,
    csrf: String,
}

fn console(app: &TestApp, method: Method, path: &str) -> RequestBuilder {
    app.client.request(method, format!("{}/_/api{path}", app.address))
}

async fn send(request: RequestBuilder) -> Answer {
    Answer::from(request.send().await.expect("send")).await
}

async fn sign_in(app: &TestApp) -> Signed {
    gateway::console::access::add_operator(&app.state.db, EMAIL, PASSWORD).await.expect("operator");
    let answer =
        send(console(app, Method::POST, "/sign-in").json(&json!({"email": EMAIL, "password": PASSWORD})))
            .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let set_cookie = answer.headers["set-cookie"].to_str().expect("cookie").to_owned();
    let cookie = set_cookie.split(';').next().expect("pair").to_owned();
    Signed { cookie, csrf: answer.json()["csrfToken"].as_str().expect("token").to_owned() }
}

/// A request as the console's own page sends it.
fn as_operator(app: &TestApp, signed: &Signed, method: Method, path: &str) -> RequestBuilder {
    sent_from(app, signed, method, path, &signed.csrf, &app.address)
}

/// A request with the session's cookie, `csrf` as its token and `origin` as
/// its origin.
fn sent_from(
    app: &TestApp,
    signed: &Signed,
    method: Method,
    path: &str,
    csrf: &str,
    origin: &str,
) -> RequestBuilder {
    console(app, method, path)
        .header("cookie", &signed.cookie)
        .header("x-console-csrf", csrf)
        .header("origin", origin)
        .header("sec-fetch-site", "same-origin")
}

/// Whether `check` holds within `within`, asked every 100 ms.
async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if check().await {
            return true;
        }
        if tokio::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The status of `GET /rest/v1/products` with `key` as the API key.
async fn rest_status(app: &TestApp, key: &str) -> u16 {
    send(app.client.get(format!("{}/rest/v1/products?select=id&limit=1", app.address)).header("apikey", key))
        .await
        .status
}

#[tokio::test]
async fn every_route_refuses_api_keys_jwts_no_session_and_other_origins() {
    let app = spawn_app().await;
    let signed = sign_in(&app).await;
    let user = app.user_token(KID);
    let credentials: [(&str, &str, String); 5] = [
        ("anon key as apikey", "apikey", app.anon_key.clone()),
        ("user's JWT", "authorization", format!("Bearer {user}")),
        ("service_role key", "authorization", format!("Bearer {}", app.service_key)),
        ("publishable key", "apikey", app.publishable_key.clone()),
        ("secret key", "apikey", app.secret_key.clone()),
    ];
    let body = json!({"name": "x", "kind": "secret"});
    for (method, path) in ROUTES {
        for (name, header, value) in &credentials {
            for with_session in [false, true] {
                let mut request = console(&app, method.clone(), path).header(*header, value);
                if with_session {
                    request = request.header("cookie", &signed.cookie).header("x-console-csrf", &signed.csrf);
                }
                let answer = send(request.json(&body)).await;
                assert_eq!(answer.status, 401, "{name} on {method} {path} ({with_session}): {}", answer.text);
                assert_eq!(answer.json()["code"], "api_credentials_refused");
            }
        }
        let answer = send(console(&app, method.clone(), path).json(&body)).await;
        assert_eq!(answer.status, 401, "no session on {method} {path}: {}", answer.text);
        assert_eq!(answer.json()["code"], "no_session");
        if *method != Method::GET {
            let cross = sent_from(&app, &signed, method.clone(), path, &signed.csrf, "https://evil.example");
            assert_eq!(send(cross.json(&body)).await.status, 403, "another origin on {method} {path}");
            let no_token = sent_from(&app, &signed, method.clone(), path, "", &app.address);
            assert_eq!(send(no_token.json(&body)).await.status, 403, "no CSRF token on {method} {path}");
        }
    }
    let keys =
        app.admin().await.query_one("select count(*) from auth.gateway_api_keys", &[]).await.expect("count");
    assert_eq!(keys.get::<_, i64>(0), 2, "no refused request made a key");
}

#[tokio::test]
async fn a_new_api_key_is_shown_once_works_at_once_and_stops_working_when_revoked() {
    let app = spawn_shop().await;
    let refresher = gateway::keys::spawn_refresher(
        app.state.db.clone(),
        app.state.credentials.clone(),
        Duration::from_millis(200),
    );
    let signed = sign_in(&app).await;
    let made = send(
        as_operator(&app, &signed, Method::POST, "/keys").json(&json!({"name": "backend", "kind": "secret"})),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let key = made.json()["key"].as_str().expect("key").to_owned();
    assert!(key.starts_with("sb_secret_"), "{key}");
    let listed = send(as_operator(&app, &signed, Method::GET, "/keys")).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert!(!listed.text.contains(&key), "the list never shows a whole key");
    let backend = listed.json()["apiKeys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["name"] == "backend")
        .cloned()
        .expect("listed");
    assert!(key.starts_with(backend["start"].as_str().expect("start")), "{backend}");
    assert_eq!(backend["revokedAt"], Value::Null);
    assert!(eventually(Duration::from_secs(3), || async { rest_status(&app, &key).await == 200 }).await);

    let cases: [(&str, Value, u16); 4] = [
        ("an unknown kind", json!({"name": "backend", "kind": "admin"}), 400),
        ("no name", json!({"name": " ", "kind": "secret"}), 400),
        ("a name no key has", json!({"name": "nobody", "kind": "secret"}), 400),
        ("the key made", json!({"name": "backend", "kind": "secret"}), 204),
    ];
    for (name, body, status) in cases {
        let answer = send(as_operator(&app, &signed, Method::POST, "/keys/revoke").json(&body)).await;
        assert_eq!(answer.status, status, "{name}: {}", answer.text);
    }
    assert!(eventually(Duration::from_secs(3), || async { rest_status(&app, &key).await == 401 }).await);
    refresher.abort();
}

#[tokio::test]
async fn signing_keys_are_made_as_a_standby_rotated_to_and_the_old_one_revoked() {
    let app = spawn_app().await;
    let signed = sign_in(&app).await;
    let statuses = |answer: &Answer| -> Vec<(String, String)> {
        answer.json()["signingKeys"]
            .as_array()
            .expect("keys")
            .iter()
            .map(|k| {
                (k["kid"].as_str().expect("kid").to_owned(), k["status"].as_str().expect("status").to_owned())
            })
            .collect()
    };
    let before = statuses(&send(as_operator(&app, &signed, Method::GET, "/keys")).await);
    let current = before.iter().find(|(_, s)| s == "current").expect("a current key").0.clone();

    let rotate_without_standby = send(as_operator(&app, &signed, Method::POST, "/signing-keys/rotate")).await;
    assert_eq!(rotate_without_standby.status, 400, "{}", rotate_without_standby.text);
    let standby = send(as_operator(&app, &signed, Method::POST, "/signing-keys").json(&json!({}))).await;
    assert_eq!(standby.status, 201, "{}", standby.text);
    let standby = standby.json()["kid"].as_str().expect("kid").to_owned();
    let second = send(as_operator(&app, &signed, Method::POST, "/signing-keys").json(&json!({}))).await;
    assert_eq!(second.status, 400, "one standby at a time: {}", second.text);

    let rotated = send(as_operator(&app, &signed, Method::POST, "/signing-keys/rotate")).await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    assert_eq!(rotated.json(), json!({"current": standby, "previous": current}));
    let after = statuses(&send(as_operator(&app, &signed, Method::GET, "/keys")).await);
    assert!(after.contains(&(standby.clone(), "current".to_owned())), "{after:?}");
    assert!(after.contains(&(current.clone(), "previous".to_owned())), "{after:?}");

    let cases: [(&str, &str, u16); 4] = [
        ("the current key", &standby, 400),
        ("a key that does not exist", KID, 400),
        ("not a kid", "not-a-kid", 404),
        ("the previous key", &current, 204),
    ];
    for (name, kid, status) in cases {
        let answer = send(as_operator(&app, &signed, Method::DELETE, &format!("/signing-keys/{kid}"))).await;
        assert_eq!(answer.status, status, "{name}: {}", answer.text);
    }
    let last = statuses(&send(as_operator(&app, &signed, Method::GET, "/keys")).await);
    assert!(last.contains(&(current, "revoked".to_owned())), "{last:?}");
}

#[tokio::test]
async fn a_request_is_found_by_its_id_service_and_status_and_the_consoles_own_are_not_kept() {
    let app = spawn_shop().await;
    let signed = sign_in(&app).await;
    let id = "console-ops-find-me-1";
    let cases = [(app.anon_key.as_str(), id.to_owned(), 200), ("not-a-key", format!("{id}-refused"), 401)];
    for (key, request_id, status) in &cases {
        let answer = send(
            app.client
                .get(format!("{}/rest/v1/products?select=id&limit=1", app.address))
                .header("apikey", *key)
                .header("x-request-id", request_id),
        )
        .await;
        assert_eq!(answer.status, *status, "{}", answer.text);
    }
    let found = |query: &str| {
        let request = as_operator(&app, &signed, Method::GET, &format!("/logs?{query}"));
        async move {
            let answer = send(request).await;
            assert_eq!(answer.status, 200, "{}", answer.text);
            answer.json()["entries"]
                .as_array()
                .expect("entries")
                .iter()
                .map(|e| {
                    (e["requestId"].as_str().expect("id").to_owned(), e["status"].as_u64().expect("status"))
                })
                .collect::<Vec<_>>()
        }
    };
    let refused = format!("{id}-refused");
    let both = vec![(refused.clone(), 401), (id.to_owned(), 200)];
    let table: [(&str, Vec<(String, u64)>); 6] = [
        ("requestId=console-ops-find-me", both.clone()),
        ("requestId=CONSOLE-OPS-FIND-ME-1-refused", vec![(refused.clone(), 401)]),
        ("requestId=console-ops-find-me&service=rest", both),
        ("requestId=console-ops-find-me&service=auth", vec![]),
        ("requestId=console-ops-find-me&status=4xx", vec![(refused.clone(), 401)]),
        ("requestId=console-ops-find-me&status=200", vec![(id.to_owned(), 200)]),
    ];
    for (query, expected) in table {
        assert_eq!(found(query).await, expected, "{query}");
    }
    let entries = send(as_operator(&app, &signed, Method::GET, "/logs?limit=500")).await.json();
    let paths: Vec<&str> = entries["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["path"].as_str().expect("path"))
        .collect();
    assert!(
        paths.iter().all(|p| !p.starts_with("/_/")),
        "the console's own requests are not kept: {paths:?}"
    );
    assert!(paths.iter().all(|p| !p.contains('?')), "no query string is kept");

    let metrics = send(as_operator(&app, &signed, Method::GET, "/metrics")).await;
    assert_eq!(metrics.status, 200, "{}", metrics.text);
    let metrics = metrics.json();
    assert_eq!(metrics["buckets"].as_array().expect("buckets").len(), 30);
    assert!(metrics["total"]["requests"].as_u64().expect("requests") >= 2);
    assert!(metrics["pool"]["max"].as_u64().expect("pool") > 0);
    assert_eq!(metrics["realtime"]["sockets"], 0);
    assert_eq!(metrics["realtime"]["topics"], json!([]));
}

/// A small PNG.
fn png() -> Vec<u8> {
    let mut bytes = Vec::new();
    image::RgbImage::from_pixel(64, 48, image::Rgb([200, 40, 40]))
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .expect("png");
    bytes
}

#[tokio::test]
async fn an_operator_manages_buckets_and_objects_as_the_service_role() {
    let app = spawn_app().await;
    let signed = sign_in(&app).await;
    let storage = |method: Method, path: &str| as_operator(&app, &signed, method, &format!("/storage{path}"));
    let made = send(storage(Method::POST, "/bucket").json(&json!({"name": "pics", "public": false}))).await;
    assert_eq!(made.status, 200, "{}", made.text);
    let changed = send(
        storage(Method::PUT, "/bucket/pics")
            .json(&json!({"public": false, "file_size_limit": 1_000_000, "allowed_mime_types": ["image/*"]})),
    )
    .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    let buckets = send(storage(Method::GET, "/bucket")).await.json();
    assert_eq!(buckets[0]["file_size_limit"], 1_000_000);
    assert_eq!(buckets[0]["allowed_mime_types"], json!(["image/*"]));

    let uploads: [(&str, Vec<u8>, &str, u16); 2] =
        [("a/red.png", png(), "image/png", 200), ("a/notes.txt", b"text".to_vec(), "text/plain", 400)];
    for (key, body, kind, status) in uploads {
        let answer = send(
            storage(Method::POST, &format!("/object/pics/{key}")).header("content-type", kind).body(body),
        )
        .await;
        assert_eq!(answer.status, status, "{key}: {}", answer.text);
    }
    let listed = send(storage(Method::POST, "/object/list/pics").json(&json!({"prefix": ""}))).await.json();
    assert_eq!(listed[0]["name"], "a", "a folder: {listed}");
    assert_eq!(listed[0]["id"], Value::Null);

    let preview = send(storage(Method::GET, "/render/image/authenticated/pics/a/red.png?width=32")).await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(
        preview.content_type.as_deref().is_some_and(|t| t.starts_with("image/")),
        "{:?}",
        preview.content_type
    );
    let moved = send(
        storage(Method::POST, "/object/move")
            .json(&json!({"bucketId": "pics", "sourceKey": "a/red.png", "destinationKey": "b/red.png"})),
    )
    .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    let sign =
        send(storage(Method::POST, "/object/sign/pics/b/red.png").json(&json!({"expiresIn": 60}))).await;
    assert_eq!(sign.status, 200, "{}", sign.text);
    let url = sign.json()["signedURL"].as_str().expect("url").to_owned();
    let fetched = send(app.client.get(format!("{}/storage/v1{url}", app.address))).await;
    assert_eq!(fetched.status, 200, "a signed URL works without credentials: {}", fetched.text);
    let download = send(storage(Method::GET, "/object/authenticated/pics/b/red.png")).await;
    assert_eq!(download.status, 200);
    assert_eq!(download.text.len(), fetched.text.len());

    let cases: [(Method, &str, u16); 3] = [
        (Method::GET, "/s3/pics", 404),
        (Method::POST, "/upload/resumable/sign", 404),
        (Method::DELETE, "/bucket/pics", 400),
    ];
    for (method, path, status) in cases {
        assert_eq!(send(storage(method.clone(), path)).await.status, status, "{method} {path}");
    }
    let removed =
        send(storage(Method::DELETE, "/object/pics").json(&json!({"prefixes": ["b/red.png"]}))).await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    let deleted = send(storage(Method::DELETE, "/bucket/pics")).await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
}

#[tokio::test]
async fn an_operator_uploads_a_file_in_chunks_and_resumes_where_the_server_stands() {
    let app = spawn_app().await;
    let signed = sign_in(&app).await;
    let storage = |method: Method, path: &str| as_operator(&app, &signed, method, &format!("/storage{path}"));
    let made = send(storage(Method::POST, "/bucket").json(&json!({"name": "files", "public": false}))).await;
    assert_eq!(made.status, 200, "{}", made.text);
    // Larger than one chunk of Supabase's clients (6 MB), as the page sends it.
    let bytes: Vec<u8> = (0..7 * 1024 * 1024 + 5).map(|i| (i % 251) as u8).collect();
    let metadata = |value: &str| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, value);
    let created = send(
        storage(Method::POST, "/upload/resumable")
            .header("tus-resumable", "1.0.0")
            .header("upload-length", bytes.len().to_string())
            .header(
                "upload-metadata",
                format!(
                    "bucketName {},objectName {},contentType {}",
                    metadata("files"),
                    metadata("big/data.bin"),
                    metadata("application/octet-stream")
                ),
            ),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id =
        created.headers["location"].to_str().expect("location").rsplit('/').next().expect("id").to_owned();
    let at = format!("/upload/resumable/{id}");
    let patch = |offset: usize, chunk: &[u8]| {
        storage(Method::PATCH, &at)
            .header("tus-resumable", "1.0.0")
            .header("upload-offset", offset.to_string())
            .header("content-type", "application/offset+octet-stream")
            .body(chunk.to_vec())
    };
    let chunk = 6 * 1024 * 1024;
    let first = send(patch(0, &bytes[..chunk])).await;
    assert_eq!(first.status, 204, "{}", first.text);
    assert_eq!(first.headers["upload-offset"], chunk.to_string().as_str());
    // A chunk sent again from a stale offset is refused; HEAD tells where to go on.
    assert_eq!(send(patch(0, &bytes[..10])).await.status, 409);
    let standing = send(storage(Method::HEAD, &at).header("tus-resumable", "1.0.0")).await;
    assert_eq!(standing.headers["upload-offset"], chunk.to_string().as_str());
    let last = send(patch(chunk, &bytes[chunk..])).await;
    assert_eq!(last.status, 204, "{}", last.text);

    let download = app
        .client
        .get(format!("{}/_/api/storage/object/authenticated/files/big/data.bin", app.address))
        .header("cookie", &signed.cookie)
        .send()
        .await
        .expect("download");
    assert_eq!(download.status(), 200);
    assert!(download.bytes().await.expect("bytes").as_ref() == bytes.as_slice(), "the object is the file");
    // The signed-URL uploads stay out of the console's reach.
    assert_eq!(send(storage(Method::POST, "/upload/resumable/sign")).await.status, 404);
}
