//! `POST /auth/v1/token?grant_type=refresh_token`: rotation on every use, the
//! parent replayed within the reuse window gets the current pair, concurrent
//! refreshes agree, and a token reused after the window kills its session
//! (reliability.md G25, G29).

mod common;

use std::time::Duration;

use serde_json::Value;

use common::auth::{access_token, refresh_token, spawn_auth_app};
use common::{TestApp, spawn_app};

async fn signed_in(app: &TestApp) -> Value {
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    app.sign_in("ana@example.com", "s3cret-pw").await
}

#[tokio::test]
async fn each_refresh_rotates_the_token_and_keeps_the_session() {
    let app = spawn_app().await;
    let first = signed_in(&app).await;
    let reply = app.refresh(refresh_token(&first)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let second = reply.body;
    assert_ne!(refresh_token(&second), refresh_token(&first));
    assert_eq!(second["token_type"], "bearer");
    assert_eq!(second["expires_in"], 3600);
    assert_eq!(second["user"]["email"], "ana@example.com");
    let claims = |session: &Value| app.state.jwt.verify(access_token(session)).expect("valid token").claims;
    assert_eq!(claims(&second)["session_id"], claims(&first)["session_id"]);
    assert_eq!(claims(&second)["sub"], claims(&first)["sub"]);
    let third = app.refresh(refresh_token(&second)).await;
    assert_eq!(third.status, 200);
    assert_ne!(refresh_token(&third.body), refresh_token(&second));
}

#[tokio::test]
async fn the_parent_replayed_within_the_window_gets_the_current_token() {
    let app = spawn_app().await;
    let first = signed_in(&app).await;
    let second = app.refresh(refresh_token(&first)).await.body;
    let again = app.refresh(refresh_token(&first)).await;
    assert_eq!(again.status, 200, "{:?}", again.body);
    assert_eq!(refresh_token(&again.body), refresh_token(&second));
    // And the current token still rotates normally.
    assert_eq!(app.refresh(refresh_token(&second)).await.status, 200);
}

#[tokio::test]
async fn ten_concurrent_refreshes_of_one_token_all_get_the_same_new_token() {
    let app = spawn_app().await;
    let first = signed_in(&app).await;
    let token = refresh_token(&first).to_owned();
    let replies = futures::future::join_all((0..10).map(|_| app.refresh(&token))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200; 10], "{:?}", replies.iter().map(|r| &r.body).collect::<Vec<_>>());
    let new_token = refresh_token(&replies[0].body);
    assert!(replies.iter().all(|r| refresh_token(&r.body) == new_token));
    let rows: i64 = app
        .admin()
        .await
        .query_one("select count(*) from auth.refresh_tokens", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(rows, 2, "the sign-in's token and exactly one child");
}

#[tokio::test]
async fn an_old_token_reused_after_the_window_kills_every_token_of_its_session() {
    let app = spawn_auth_app(|auth| auth.refresh_token_reuse_interval = 1).await;
    let first = signed_in(&app).await;
    let other_session = app.sign_in("ana@example.com", "s3cret-pw").await;
    let second = app.refresh(refresh_token(&first)).await.body;
    let third = app.refresh(refresh_token(&second)).await.body;
    tokio::time::sleep(Duration::from_millis(1_300)).await;

    let cases = [
        ("the grandparent after the window", refresh_token(&first), 400, "refresh_token_already_used"),
        ("then the parent", refresh_token(&second), 400, "refresh_token_not_found"),
        ("then the current token", refresh_token(&third), 400, "refresh_token_not_found"),
    ];
    for (name, token, status, code) in cases {
        let reply = app.refresh(token).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}");
    }
    let reply = app.send(app.as_user(reqwest::Method::GET, "/user", access_token(&third))).await;
    assert_eq!((reply.status, reply.code()), (403, "session_not_found"));
    // The user's other session is untouched.
    assert_eq!(app.refresh(refresh_token(&other_session)).await.status, 200);
}

#[tokio::test]
async fn the_parent_replayed_after_the_window_is_reuse() {
    let app = spawn_auth_app(|auth| auth.refresh_token_reuse_interval = 1).await;
    let first = signed_in(&app).await;
    let second = app.refresh(refresh_token(&first)).await.body;
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let reply = app.refresh(refresh_token(&first)).await;
    assert_eq!((reply.status, reply.code()), (400, "refresh_token_already_used"));
    assert_eq!(reply.body["message"], "Invalid Refresh Token: Already Used");
    assert_eq!(app.refresh(refresh_token(&second)).await.code(), "refresh_token_not_found");
}

#[tokio::test]
async fn unknown_and_malformed_tokens_are_not_found() {
    let app = spawn_app().await;
    let cases = [
        ("a legacy GoTrue token", "n5nbc3qx7lja"),
        ("a well-formed stranger", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
        ("garbage", "' or 1=1 --"),
    ];
    for (name, token) in cases {
        let reply = app.refresh(token).await;
        assert_eq!((reply.status, reply.code()), (400, "refresh_token_not_found"), "{name}");
        assert_eq!(reply.body["message"], "Invalid Refresh Token: Refresh Token Not Found");
    }
    assert_eq!(app.refresh("").await.code(), "validation_failed");
}

#[tokio::test]
async fn refresh_tokens_are_long_random_and_stored_only_as_digests() {
    let app = spawn_app().await;
    let first = signed_in(&app).await;
    let second = app.refresh(refresh_token(&first)).await.body;
    let stored: Vec<String> = app
        .admin()
        .await
        .query("select token from auth.refresh_tokens order by id", &[])
        .await
        .expect("tokens")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(stored.len(), 2);
    for token in [refresh_token(&first), refresh_token(&second)] {
        // 43 base64url characters: 256 bits.
        assert_eq!(token.len(), 43, "{token}");
        assert!(stored.iter().all(|s| !s.contains(token)), "a token is stored in clear");
    }
    assert!(stored.iter().all(|s| s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit())));
}

#[tokio::test]
async fn a_banned_user_cannot_refresh() {
    let app = spawn_app().await;
    let session = signed_in(&app).await;
    let id = session["user"]["id"].as_str().expect("id");
    let request = app
        .as_service(reqwest::Method::PUT, &format!("/admin/users/{id}"))
        .json(&serde_json::json!({"ban_duration": "1h"}));
    assert_eq!(app.send(request).await.status, 200);
    let reply = app.refresh(refresh_token(&session)).await;
    assert_eq!((reply.status, reply.code()), (400, "user_banned"));
}
