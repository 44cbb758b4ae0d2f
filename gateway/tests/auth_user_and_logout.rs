//! `GET`/`PUT /auth/v1/user` and `POST /auth/v1/logout`: who may call them,
//! what they change, and that signing out ends sessions for `/user` and
//! refreshes while REST keeps accepting the access token until it expires
//! (reliability.md G26).

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::auth::{access_token, refresh_token, spawn_auth_app};
use common::{TestApp, spawn_app};

async fn signed_in(app: &TestApp) -> Value {
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    app.sign_in("ana@example.com", "s3cret-pw").await
}

#[tokio::test]
async fn get_user_returns_the_bare_user_object() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let reply = app.send(app.as_user(Method::GET, "/user", access_token(&session))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["id"], session["user"]["id"]);
    assert_eq!(reply.body["email"], "ana@example.com");
    assert!(reply.body.get("user").is_none());
}

#[tokio::test]
async fn user_routes_refuse_callers_without_a_users_token() {
    let app = spawn_app().await;
    let forged = {
        let token = app.anon_key.clone();
        format!("{}AAAA", &token[..token.rfind('.').expect("dot") + 1])
    };
    let expired = app.sign(json!({"sub": uuid::Uuid::new_v4(), "role": "authenticated", "exp": 1_000_000}));
    let no_bearer = app
        .client
        .get(format!("{}/auth/v1/user", app.address))
        .header("apikey", &app.anon_key)
        .header("x-supabase-api-version", "2024-01-01");
    let cases: Vec<(&str, reqwest::RequestBuilder, u16, &str)> = vec![
        ("no Authorization header", no_bearer, 401, "no_authorization"),
        ("the anon key as bearer", app.auth(Method::GET, "/user"), 403, "bad_jwt"),
        ("a forged token", app.as_user(Method::GET, "/user", &forged), 403, "bad_jwt"),
        ("an expired token", app.as_user(Method::GET, "/user", &expired), 403, "bad_jwt"),
        (
            "a token for a user that does not exist",
            app.as_user(Method::GET, "/user", &app.user_token(&uuid::Uuid::new_v4().to_string())),
            403,
            "user_not_found",
        ),
    ];
    for (name, request, status, code) in cases {
        let reply = app.send(request).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {:?}", reply.body);
        assert_eq!(reply.headers["x-sb-error-code"], code, "{name}");
    }
}

#[tokio::test]
async fn put_user_merges_data_into_user_metadata() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let token = access_token(&session);
    let update = |body: Value| app.as_user(Method::PUT, "/user", token).json(&body);
    let reply = app.send(update(json!({"data": {"name": "Ana", "plan": "free"}}))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["user_metadata"]["name"], "Ana");
    let reply = app.send(update(json!({"data": {"plan": null, "city": "Vigo"}}))).await;
    let metadata = &reply.body["user_metadata"];
    assert_eq!((metadata["name"].as_str(), metadata["city"].as_str()), (Some("Ana"), Some("Vigo")));
    assert!(metadata.get("plan").is_none(), "a null removes the key: {metadata}");
    assert_eq!(metadata["email_verified"], true, "identity data is kept");
    // The next token carries the new metadata.
    let refreshed = app.refresh(refresh_token(&session)).await.body;
    let claims = app.state.credentials.jwt.verify(access_token(&refreshed)).expect("token").claims;
    assert_eq!(claims["user_metadata"]["city"], "Vigo");
}

#[tokio::test]
async fn put_user_changes_the_password_under_the_same_rules() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let token = access_token(&session);
    let cases = [
        ("too short", "12345", 422, "weak_password"),
        ("over 72 bytes", &"x".repeat(73)[..], 400, "validation_failed"),
        ("fine", "a-new-password", 200, ""),
    ];
    for (name, password, status, code) in cases {
        let reply =
            app.send(app.as_user(Method::PUT, "/user", token).json(&json!({"password": password}))).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {:?}", reply.body);
    }
    assert_eq!(app.password_grant("ana@example.com", "s3cret-pw").await.code(), "invalid_credentials");
    assert_eq!(app.password_grant("ana@example.com", "a-new-password").await.status, 200);
}

#[tokio::test]
async fn put_user_changes_the_email_at_once_with_autoconfirm() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    app.confirmed_user("taken@example.com", "s3cret-pw").await;
    let token = access_token(&session);
    let taken =
        app.send(app.as_user(Method::PUT, "/user", token).json(&json!({"email": "taken@example.com"}))).await;
    assert_eq!((taken.status, taken.code()), (422, "email_exists"));
    let reply =
        app.send(app.as_user(Method::PUT, "/user", token).json(&json!({"email": "Ana@New.example"}))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["email"], "ana@new.example");
    assert_eq!(app.password_grant("ana@new.example", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn without_autoconfirm_a_new_email_waits_as_new_email() {
    let app = spawn_auth_app(|auth| auth.autoconfirm = false).await;
    let session = signed_in(&app).await;
    let request =
        app.as_user(Method::PUT, "/user", access_token(&session)).json(&json!({"email": "b@example.com"}));
    let reply = app.send(request).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["email"], "ana@example.com");
    assert_eq!(reply.body["new_email"], "b@example.com");
    assert!(reply.body["email_change_sent_at"].is_string());
}

#[tokio::test]
async fn logout_ends_the_session_for_auth_but_not_for_rest_until_exp() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let token = access_token(&session);
    // supabase-js: JSON content type, no body.
    let request =
        app.as_user(Method::POST, "/logout?scope=global", token).header("content-type", "application/json");
    let reply = app.send(request).await;
    assert_eq!((reply.status, &reply.body), (204, &Value::Null));

    let reply = app.send(app.as_user(Method::GET, "/user", token)).await;
    assert_eq!((reply.status, reply.code()), (403, "session_not_found"));
    assert_eq!(reply.body["message"], "Session from session_id claim in JWT does not exist");
    assert_eq!(app.refresh(refresh_token(&session)).await.code(), "refresh_token_not_found");
    let rest = app
        .client
        .get(format!("{}/rest/v1/anything", app.address))
        .header("apikey", &app.anon_key)
        .header("authorization", format!("Bearer {token}"))
        .send()
        .await
        .expect("rest");
    assert_ne!(rest.status().as_u16(), 401, "REST is stateless: the token is valid until it expires");
}

#[tokio::test]
async fn logout_scopes_end_the_sessions_they_name() {
    // (scope, which of sessions a, b, c survive; a makes the call)
    let cases =
        [("global", [false, false, false]), ("local", [false, true, true]), ("others", [true, false, false])];
    for (scope, survivors) in cases {
        let app = spawn_app().await;
        app.confirmed_user("ana@example.com", "s3cret-pw").await;
        let mut sessions = Vec::new();
        for _ in 0..3 {
            sessions.push(app.sign_in("ana@example.com", "s3cret-pw").await);
        }
        let reply = app
            .send(app.as_user(Method::POST, &format!("/logout?scope={scope}"), access_token(&sessions[0])))
            .await;
        assert_eq!(reply.status, 204, "{scope}");
        for (session, survives) in sessions.iter().zip(survivors) {
            let reply = app.send(app.as_user(Method::GET, "/user", access_token(session))).await;
            assert_eq!(reply.status == 200, survives, "{scope}: {:?}", reply.body);
        }
    }
}

#[tokio::test]
async fn logout_refuses_an_unknown_scope_and_a_missing_token() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let reply = app.send(app.as_user(Method::POST, "/logout?scope=everyone", access_token(&session))).await;
    assert_eq!((reply.status, reply.code()), (400, "validation_failed"));
    let reply = app.send(app.auth(Method::POST, "/logout")).await;
    assert_eq!((reply.status, reply.code()), (403, "bad_jwt"));
}
