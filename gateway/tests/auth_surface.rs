//! The edges of `/auth/v1`: which routes need the API key, the error shape and
//! headers auth-js reads, `/settings` and `/health`, and logs that never carry
//! a password or a token (reliability.md G29).

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::json;

use common::auth::{access_token, refresh_token};
use common::spawn_app;

#[tokio::test]
async fn the_routes_kong_leaves_open_need_no_api_key() {
    let app = spawn_app().await;
    let bare = |path: &str| app.client.get(format!("{}/auth/v1{path}", app.address));
    let jwks = app.send(bare("/.well-known/jwks.json")).await;
    assert_eq!((jwks.status, &jwks.body), (200, &json!({"keys": []})));
    for path in ["/verify", "/callback", "/authorize"] {
        let reply = app.send(bare(path)).await;
        assert_eq!((reply.status, reply.code()), (501, "not_implemented"), "{path}");
    }
    for path in ["/settings", "/health", "/user", "/admin/users", "/nowhere"] {
        let reply = app.send(bare(path)).await;
        assert_eq!(reply.status, 401, "{path}");
        assert_eq!(reply.body["message"], "No API key found in request", "{path}");
    }
}

#[tokio::test]
async fn settings_and_health_answer_like_gotrue() {
    let app = spawn_app().await;
    let settings = app.send(app.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.status, 200);
    assert_eq!(settings.body["external"]["email"], true);
    assert_eq!(settings.body["external"]["google"], false);
    assert_eq!(settings.body["disable_signup"], false);
    assert_eq!(settings.body["mailer_autoconfirm"], true);
    let health = app.send(app.auth(Method::GET, "/health")).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["name"], "GoTrue");
    let missing = app.send(app.auth(Method::GET, "/nowhere")).await;
    assert_eq!((missing.status, missing.code()), (404, "not_found"));
}

#[tokio::test]
async fn browsers_can_read_the_error_headers_auth_js_needs() {
    let app = spawn_app().await;
    let reply = app
        .send(
            app.auth(Method::POST, "/token?grant_type=password")
                .header("origin", "http://localhost:5173")
                .json(&json!({"email":"nobody@example.com","password":"whatever"})),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.headers["x-supabase-api-version"], "2024-01-01");
    let exposed = reply.headers["access-control-expose-headers"].to_str().expect("header").to_lowercase();
    for header in ["x-supabase-api-version", "x-sb-error-code"] {
        assert!(exposed.contains(header), "{header} not exposed: {exposed}");
    }
}

/// Everything the process logs, at every level.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_password_or_token_ever_reaches_the_logs() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .try_init()
        .expect("the only subscriber of this test binary");
    let app = spawn_app().await;
    let password = "correct-horse-battery";
    let signup = app
        .send(
            app.auth(Method::POST, "/signup").json(&json!({"email":"ana@example.com","password": password})),
        )
        .await;
    assert_eq!(signup.status, 200);
    let session = app.sign_in("ana@example.com", password).await;
    app.password_grant("ana@example.com", "wrong-password-value").await;
    let refreshed = app.refresh(refresh_token(&session)).await.body;
    let reused = app.refresh(refresh_token(&session)).await;
    assert_eq!(reused.status, 200);
    let update = app
        .as_user(Method::PUT, "/user", access_token(&refreshed))
        .json(&json!({"password": "new-secret-pw"}));
    assert_eq!(app.send(update).await.status, 200);
    app.send(app.as_user(Method::POST, "/logout", access_token(&refreshed))).await;

    let logs = String::from_utf8(captured.0.lock().expect("logs").clone()).expect("utf-8");
    assert!(logs.len() > 1000, "the test should capture real logging: {logs}");
    let secrets = [
        password,
        "wrong-password-value",
        "new-secret-pw",
        access_token(&signup.body),
        access_token(&session),
        refresh_token(&session),
        access_token(&refreshed),
        refresh_token(&refreshed),
        &app.service_key,
    ];
    for secret in secrets {
        assert!(!logs.contains(secret), "a secret was logged: {}…", &secret[..8]);
    }
    // JWTs of any kind start with the encoded `{"` of their header.
    assert!(!logs.contains("eyJ"), "a JWT was logged");
}
