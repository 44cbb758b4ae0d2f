//! Anonymous sign-ins (`signInAnonymously`): behind a setting, with a rate
//! limit of their own, told apart by RLS through `is_anonymous`, and made
//! permanent by adding an e-mail (supabase/auth `anonymous.go`, `user.go`).

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::TestApp;
use common::auth::{access_token, refresh_token, spawn_auth_app};

fn claims(app: &TestApp, token: &str) -> Value {
    serde_json::to_value(app.state.credentials.jwt.verify(token).expect("valid token").claims)
        .expect("claims")
}

async fn anonymous_sign_in(app: &TestApp, body: Value) -> common::auth::Reply {
    app.send(app.auth(Method::POST, "/signup").json(&body)).await
}

#[tokio::test]
async fn an_anonymous_sign_in_makes_a_user_without_address_whose_token_says_so() {
    let app = spawn_auth_app(|auth| auth.anonymous_users_enabled = true).await;
    let settings = app.send(app.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.body["external"]["anonymous_users"], true);

    let reply = anonymous_sign_in(&app, json!({"data": {"nickname": "guest"}})).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let user = &reply.body["user"];
    assert_eq!(user["is_anonymous"], true);
    assert_eq!(user["email"], "");
    assert_eq!(user["phone"], "");
    assert_eq!(user["identities"], json!([]));
    assert_eq!(user["app_metadata"], json!({"provider": "anonymous", "providers": ["anonymous"]}));
    assert_eq!(user["user_metadata"], json!({"nickname": "guest"}));
    let token = claims(&app, access_token(&reply.body));
    assert_eq!(token["is_anonymous"], true);
    assert_eq!(token["role"], "authenticated");
    assert_eq!(token["aal"], "aal1");
    assert_eq!(token["amr"][0]["method"], "anonymous");

    let refreshed = app.refresh(refresh_token(&reply.body)).await;
    assert_eq!(refreshed.status, 200, "{:?}", refreshed.body);
    assert_eq!(claims(&app, access_token(&refreshed.body))["is_anonymous"], true);
}

#[tokio::test]
async fn anonymous_sign_ins_are_refused_when_off_or_when_sign_ups_are_closed() {
    let off = spawn_auth_app(|_| {}).await;
    let settings = off.send(off.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.body["external"]["anonymous_users"], false);
    let closed = spawn_auth_app(|auth| {
        auth.anonymous_users_enabled = true;
        auth.signup_enabled = false;
    })
    .await;
    // (gateway, status, code)
    let cases = [(&off, 422, "anonymous_provider_disabled"), (&closed, 422, "signup_disabled")];
    for (app, status, code) in cases {
        let reply = anonymous_sign_in(app, json!({})).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{:?}", reply.body);
    }
}

#[tokio::test]
async fn anonymous_sign_ins_count_under_their_own_rate_limit() {
    let app = spawn_auth_app(|auth| {
        auth.anonymous_users_enabled = true;
        auth.rate_limit_anonymous_users = 2;
    })
    .await;
    for _ in 0..2 {
        assert_eq!(anonymous_sign_in(&app, json!({})).await.status, 200);
    }
    let third = anonymous_sign_in(&app, json!({})).await;
    assert_eq!((third.status, third.code()), (429, "over_request_rate_limit"));
    // Password sign-ins keep their own bucket.
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    assert_eq!(app.password_grant("ana@example.com", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn an_anonymous_user_becomes_permanent_by_adding_an_email() {
    let app = spawn_auth_app(|auth| auth.anonymous_users_enabled = true).await;
    let session = anonymous_sign_in(&app, json!({})).await.body;
    let token = access_token(&session).to_owned();

    let password_only =
        app.send(app.as_user(Method::PUT, "/user", &token).json(&json!({"password": "s3cret-pw"}))).await;
    assert_eq!(
        (password_only.status, password_only.code(), password_only.body["msg"].as_str()),
        (
            422,
            "validation_failed",
            Some("Updating password of an anonymous user without an email or phone is not allowed")
        )
    );

    let updated = app
        .send(
            app.as_user(Method::PUT, "/user", &token)
                .json(&json!({"email": "Guest@Example.com", "password": "s3cret-pw"})),
        )
        .await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    assert_eq!(updated.body["is_anonymous"], false);
    assert_eq!(updated.body["email"], "guest@example.com");
    assert_eq!(updated.body["app_metadata"], json!({"provider": "email", "providers": ["email"]}));
    assert_eq!(updated.body["identities"][0]["provider"], "email");
    // The next token says so, and the e-mail and password sign in.
    let refreshed = app.refresh(refresh_token(&session)).await;
    assert_eq!(claims(&app, access_token(&refreshed.body))["is_anonymous"], false);
    assert_eq!(app.password_grant("guest@example.com", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn row_level_security_tells_anonymous_users_apart() {
    let app = spawn_auth_app(|auth| auth.anonymous_users_enabled = true).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.reviews (id serial primary key, body text, author uuid default auth.uid());
             alter table public.reviews enable row level security;
             create policy readable on public.reviews for select to authenticated using (true);
             create policy permanent_users_write on public.reviews for insert to authenticated
               with check (not coalesce((auth.jwt()->>'is_anonymous')::boolean, false));
             grant select, insert on public.reviews to authenticated;
             grant usage on sequence public.reviews_id_seq to authenticated;",
        )
        .await
        .expect("ddl");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    let guest = anonymous_sign_in(&app, json!({})).await.body;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let ana = app.sign_in("ana@example.com", "s3cret-pw").await;
    // (who, status)
    let cases = [(access_token(&guest), 403), (access_token(&ana), 201)];
    for (token, status) in cases {
        let answer = app
            .client
            .post(format!("{}/rest/v1/reviews", app.address))
            .header("apikey", &app.anon_key)
            .bearer_auth(token)
            .json(&json!({"body": "nice"}))
            .send()
            .await
            .expect("insert");
        assert_eq!(answer.status().as_u16(), status, "{}", answer.text().await.unwrap_or_default());
    }
}
