//! No password, refresh token or JWT ever appears in the logs, at any level,
//! including the database driver's statement logging (reliability.md G29).
//! Alone in its binary: it installs the process-wide log subscriber.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::json;

use common::auth::{access_token, refresh_token};
use common::spawn_app;

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
