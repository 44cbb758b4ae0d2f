//! `POST /auth/v1/signup` (wire-protocol.md §3.7): a session when autoconfirm
//! is on, the bare user with `confirmation_sent_at` when it is off, and 422
//! `signup_disabled` when sign-ups are closed.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::auth::{access_token, spawn_auth_app};
use common::{TestApp, spawn_app};

async fn sign_up(app: &TestApp, body: Value) -> common::auth::Reply {
    app.send(app.auth(Method::POST, "/signup").json(&body)).await
}

#[tokio::test]
async fn with_autoconfirm_signing_up_signs_in() {
    let app = spawn_app().await;
    let body = json!({"email":"New@Example.com","password":"pw123456","data":{"name":"Nuevo"},
                      "gotrue_meta_security":{},"code_challenge":null,"code_challenge_method":null});
    let reply = sign_up(&app, body).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let session = reply.body;
    assert_eq!(session["token_type"], "bearer");
    assert_eq!(session["user"]["email"], "new@example.com");
    assert_eq!(session["user"]["user_metadata"]["name"], "Nuevo");
    assert_eq!(session["user"]["user_metadata"]["email_verified"], true);
    assert!(session["user"]["email_confirmed_at"].is_string());
    assert_eq!(session["user"]["identities"][0]["provider"], "email");
    let reply = app.send(app.as_user(Method::GET, "/user", access_token(&session))).await;
    assert_eq!(reply.status, 200);
    assert_eq!(app.password_grant("new@example.com", "pw123456").await.status, 200);
}

#[tokio::test]
async fn signup_refusals_follow_gotrue() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "an e-mail already registered",
            json!({"email":"ana@example.com","password":"pw123456"}),
            422,
            "user_already_exists",
        ),
        (
            "in another case too",
            json!({"email":"ANA@example.com","password":"pw123456"}),
            422,
            "user_already_exists",
        ),
        ("a short password", json!({"email":"b@example.com","password":"12345"}), 422, "weak_password"),
        (
            "a password over 72 bytes",
            json!({"email":"b@example.com","password":"x".repeat(73)}),
            400,
            "validation_failed",
        ),
        ("no password", json!({"email":"b@example.com"}), 400, "validation_failed"),
        (
            "a malformed e-mail",
            json!({"email":"not-an-email","password":"pw123456"}),
            400,
            "validation_failed",
        ),
        // GoTrue takes it for an anonymous sign-in, which is off.
        ("no e-mail nor phone", json!({"password":"pw123456"}), 422, "anonymous_provider_disabled"),
        (
            "data that is not an object",
            json!({"email":"b@example.com","password":"pw123456","data":[1]}),
            400,
            "validation_failed",
        ),
    ];
    for (name, body, status, code) in cases {
        let reply = sign_up(&app, body).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {:?}", reply.body);
    }
    let reply = app.send(app.auth(Method::POST, "/signup").body("{not json")).await;
    assert_eq!((reply.status, reply.code()), (400, "bad_json"));
}

#[tokio::test]
async fn a_weak_password_lists_its_reasons() {
    let app = spawn_auth_app(|auth| auth.password_min_length = 10).await;
    let reply = sign_up(&app, json!({"email":"b@example.com","password":"123456789"})).await;
    assert_eq!(reply.status, 422);
    assert_eq!(reply.body["code"], "weak_password");
    assert_eq!(reply.body["message"], "Password should be at least 10 characters.");
    assert_eq!(reply.body["weak_password"], json!({"reasons": ["length"]}));
}

#[tokio::test]
async fn without_autoconfirm_the_user_waits_for_confirmation() {
    let app = spawn_auth_app(|auth| auth.autoconfirm = false).await;
    let reply = sign_up(&app, json!({"email":"new@example.com","password":"pw123456"})).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body.get("access_token").is_none(), "no session: {:?}", reply.body);
    assert_eq!(reply.body["email"], "new@example.com");
    assert!(reply.body["confirmation_sent_at"].is_string());
    assert!(reply.body.get("email_confirmed_at").is_none());
    assert_eq!(app.password_grant("new@example.com", "pw123456").await.code(), "email_not_confirmed");
    // Signing up again does not tell whether the address has an account.
    let again = sign_up(&app, json!({"email":"new@example.com","password":"pw123456"})).await;
    assert_eq!(again.status, 200);
    assert_ne!(again.body["id"], reply.body["id"]);
    assert_eq!(again.body["email"], "new@example.com");
}

#[tokio::test]
async fn signups_can_be_disabled() {
    let app = spawn_auth_app(|auth| auth.signup_enabled = false).await;
    let reply = sign_up(&app, json!({"email":"new@example.com","password":"pw123456"})).await;
    assert_eq!((reply.status, reply.code()), (422, "signup_disabled"));
    let settings = app.send(app.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.body["disable_signup"], true);
}
