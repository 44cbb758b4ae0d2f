//! `POST /auth/v1/token?grant_type=refresh_token`: rotation on every use, the
//! parent replayed within the reuse window gets the current pair, concurrent
//! refreshes agree, and a token reused after the window kills its session
//! (reliability.md G25, G29). Children are derived with a key only the server
//! holds, so an old token does not lead to the current one.

mod common;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::{Digest, Sha256};

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
    let claims = |session: &Value| {
        app.state.credentials.jwt.verify(access_token(session)).expect("valid token").claims
    };
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

/// How children used to be derived: an unkeyed hash of the parent, which
/// anyone holding the parent could compute.
fn unkeyed_child(token: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"gateway refresh child");
    hasher.update(token.as_bytes());
    URL_SAFE_NO_PAD.encode(hasher.finalize())
}

#[tokio::test]
async fn a_token_rotated_twice_does_not_lead_to_the_current_one_and_its_replay_ends_the_session() {
    let app = spawn_auth_app(|auth| auth.refresh_token_reuse_interval = 1).await;
    let first = signed_in(&app).await;
    let second = app.refresh(refresh_token(&first)).await.body;
    let third = app.refresh(refresh_token(&second)).await.body;
    let stolen = refresh_token(&first);

    // What someone holding only the stolen token computes, the old way.
    let mut guesses = vec![unkeyed_child(stolen)];
    for _ in 0..2 {
        let next = unkeyed_child(guesses.last().expect("a guess"));
        guesses.push(next);
    }
    assert!(!guesses.iter().any(|g| g == refresh_token(&second) || g == refresh_token(&third)));
    for (n, guess) in guesses.iter().enumerate() {
        let reply = app.refresh(guess).await;
        assert_eq!((reply.status, reply.code()), (400, "refresh_token_not_found"), "guess {n}");
    }
    let reply = app.send(app.as_user(reqwest::Method::GET, "/user", access_token(&third))).await;
    assert_eq!(reply.status, 200, "the guesses did not disturb the session");

    // The stolen token itself, replayed after the window, is reuse, as in
    // GoTrue: the session ends for the thief and the owner alike.
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let reply = app.refresh(stolen).await;
    assert_eq!((reply.status, reply.code()), (400, "refresh_token_already_used"));
    assert_eq!(app.refresh(refresh_token(&third)).await.code(), "refresh_token_not_found");
    let reply = app.send(app.as_user(reqwest::Method::GET, "/user", access_token(&third))).await;
    assert_eq!((reply.status, reply.code()), (403, "session_not_found"));
}

#[tokio::test]
async fn every_session_has_a_key_of_its_own_and_children_depend_on_it() {
    let app = spawn_app().await;
    let a = signed_in(&app).await;
    let b = app.sign_in("ana@example.com", "s3cret-pw").await;
    let admin = app.admin().await;
    let keys: Vec<String> = admin
        .query("select refresh_token_hmac_key from auth.sessions order by created_at", &[])
        .await
        .expect("keys")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(keys.len(), 2);
    assert_ne!(keys[0], keys[1]);
    assert!(keys.iter().all(|k| k.len() == 64 && k.chars().all(|c| c.is_ascii_hexdigit())));
    let (a2, b2) = (app.refresh(refresh_token(&a)).await.body, app.refresh(refresh_token(&b)).await.body);
    assert_ne!(refresh_token(&a2), unkeyed_child(refresh_token(&a)));
    assert_ne!(refresh_token(&b2), unkeyed_child(refresh_token(&b)));

    // A session without a key (one started before keys existed) has no token
    // that refreshes: its tokens may have been computed by anyone.
    admin.execute("update auth.sessions set refresh_token_hmac_key = null", &[]).await.expect("forget keys");
    let reply = app.refresh(refresh_token(&a2)).await;
    assert_eq!((reply.status, reply.code()), (400, "refresh_token_not_found"));
}
