//! `POST /auth/v1/token?grant_type=password`: the session object and claims
//! GoTrue sends, the same answer for every kind of bad credentials, and
//! passwords that are never truncated.

mod common;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use common::auth::access_token;
use common::spawn_app;

#[tokio::test]
async fn signing_in_returns_gotrues_session_object_with_its_claims() {
    let app = spawn_app().await;
    let id = app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let before = gateway::jwt::now();
    let session = app.sign_in("ana@example.com", "s3cret-pw").await;

    assert_eq!(session["token_type"], "bearer");
    assert_eq!(session["expires_in"], 3600);
    let expires_at = session["expires_at"].as_u64().expect("expires_at");
    assert!((before + 3600..=before + 3602).contains(&expires_at), "{expires_at}");
    let user = &session["user"];
    assert_eq!(user["id"], id.as_str());
    assert_eq!(user["aud"], "authenticated");
    assert_eq!(user["role"], "authenticated");
    assert_eq!(user["email"], "ana@example.com");
    assert_eq!(user["phone"], "");
    assert_eq!(user["app_metadata"], json!({"provider":"email","providers":["email"]}));
    // Made confirmed by the admin API: GoTrue's `User.Confirm` marks it.
    assert_eq!(user["user_metadata"], json!({"email_verified": true}));
    assert_eq!(user["is_anonymous"], false);
    for key in ["email_confirmed_at", "confirmed_at", "last_sign_in_at", "created_at", "updated_at"] {
        let stamp = user[key].as_str().unwrap_or_else(|| panic!("{key} missing"));
        assert!(stamp.ends_with('Z') && stamp.contains('T'), "{key}: {stamp}");
    }
    let identity = &user["identities"][0];
    assert_eq!(identity["provider"], "email");
    assert_eq!(identity["user_id"], id.as_str());
    assert_eq!(identity["identity_data"]["email"], "ana@example.com");

    let claims =
        app.state.credentials.jwt.verify(access_token(&session)).expect("a token the gateway accepts").claims;
    assert_eq!(claims["sub"], id.as_str());
    assert_eq!(claims["aud"], "authenticated", "aud is a plain string");
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["email"], "ana@example.com");
    assert_eq!(claims["phone"], "");
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["amr"][0]["method"], "password");
    assert_eq!(claims["is_anonymous"], false);
    assert_eq!(claims["exp"].as_u64(), Some(expires_at));
    assert_eq!(claims["app_metadata"], user["app_metadata"]);
    assert_eq!(claims["user_metadata"], user["user_metadata"]);
    assert!(claims["iss"].as_str().is_some_and(|iss| iss.ends_with("/auth/v1")));
    assert!(claims["session_id"].as_str().is_some_and(|s| uuid::Uuid::parse_str(s).is_ok()));
}

#[tokio::test]
async fn unknown_email_and_wrong_password_get_the_same_answer() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let unknown = app.password_grant("nobody@example.com", "s3cret-pw").await;
    let wrong = app.password_grant("ana@example.com", "not-the-password").await;
    for reply in [&unknown, &wrong] {
        assert_eq!(reply.status, 400);
        assert_eq!(
            reply.body,
            json!({"code":"invalid_credentials","error_code":"invalid_credentials",
                   "msg":"Invalid login credentials","message":"Invalid login credentials"})
        );
        assert_eq!(reply.headers["x-sb-error-code"], "invalid_credentials");
        assert_eq!(reply.headers["x-supabase-api-version"], "2024-01-01");
    }
}

#[tokio::test]
async fn an_unknown_email_costs_as_much_time_as_a_wrong_password() {
    let app = common::auth::spawn_auth_app(|auth| auth.rate_limit_sign_in_sign_ups = 0).await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    // Interleaved, so that both kinds see the same load from other tests.
    let (mut unknown, mut wrong) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        for (email, samples) in [("nobody@example.com", &mut unknown), ("ana@example.com", &mut wrong)] {
            let start = Instant::now();
            let reply = app.password_grant(email, "wrong-password").await;
            samples.push(start.elapsed());
            assert_eq!(reply.status, 400);
        }
    }
    let median = |samples: &mut Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2]
    };
    let (unknown, wrong) = (median(&mut unknown), median(&mut wrong));
    // Without the dummy hash an unknown user answers in about a millisecond,
    // a known one after a whole bcrypt verification (a ratio near 0.02).
    let ratio = unknown.as_secs_f64() / wrong.as_secs_f64();
    assert!((0.33..3.0).contains(&ratio), "unknown {unknown:?} vs wrong password {wrong:?}");
}

#[tokio::test]
async fn sign_in_refusals_follow_gotrue() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let unconfirmed = app.admin_create_user(json!({"email":"new@example.com","password":"s3cret-pw"})).await;
    assert_eq!(unconfirmed.status, 200);
    let banned = app
        .admin_create_user(json!({"email":"bad@example.com","password":"s3cret-pw","email_confirm":true,
                                   "ban_duration":"24h"}))
        .await;
    assert_eq!(banned.status, 200);
    let long = "a".repeat(73);
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "an unconfirmed e-mail",
            json!({"email":"new@example.com","password":"s3cret-pw"}),
            400,
            "email_not_confirmed",
        ),
        (
            "an unconfirmed e-mail, wrong password",
            json!({"email":"new@example.com","password":"nope-nope"}),
            400,
            "invalid_credentials",
        ),
        ("a banned user", json!({"email":"bad@example.com","password":"s3cret-pw"}), 400, "user_banned"),
        (
            "a banned user, wrong password",
            json!({"email":"bad@example.com","password":"nope-nope"}),
            400,
            "invalid_credentials",
        ),
        ("no e-mail nor phone", json!({"password":"s3cret-pw"}), 400, "validation_failed"),
        (
            "a password over 72 bytes",
            json!({"email":"ana@example.com","password": long}),
            400,
            "validation_failed",
        ),
        ("no password", json!({"email":"ana@example.com"}), 400, "invalid_credentials"),
        (
            "an e-mail in other case signs in",
            json!({"email":"ANA@example.com","password":"s3cret-pw"}),
            200,
            "",
        ),
    ];
    for (name, body, status, code) in cases {
        let reply = app.send(app.auth(Method::POST, "/token?grant_type=password").json(&body)).await;
        assert_eq!(reply.status, status, "{name}: {:?}", reply.body);
        assert_eq!(reply.code(), code, "{name}");
    }
}

#[tokio::test]
async fn a_password_over_72_bytes_is_refused_not_truncated() {
    let app = spawn_app().await;
    let long = format!("{}tail", "p".repeat(72));
    let reply = app
        .admin_create_user(json!({"email":"ana@example.com","password": long, "email_confirm": true}))
        .await;
    assert_eq!((reply.status, reply.code()), (400, "validation_failed"));
    assert_eq!(reply.body["message"], "Password cannot be longer than 72 characters");
    // A 72-byte password works, and its first 72 bytes plus anything do not.
    app.confirmed_user("ana@example.com", &"p".repeat(72)).await;
    let reply = app.password_grant("ana@example.com", &long).await;
    assert_eq!((reply.status, reply.code()), (400, "validation_failed"));
    assert_eq!(app.password_grant("ana@example.com", &"p".repeat(72)).await.status, 200);
}

#[tokio::test]
async fn users_from_a_supabase_dump_sign_in_with_their_bcrypt_hashes() {
    let app = spawn_app().await;
    // A row as `pg_dump` of a hosted project writes it: a `$2a$10$` hash made
    // by Go's bcrypt (GoTrue's; the password is "hash"), empty token columns,
    // an e-mail identity.
    let admin = app.admin().await;
    admin
        .batch_execute(
            "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
               confirmation_token, recovery_token, email_change_token_new, email_change, raw_app_meta_data, \
               raw_user_meta_data, created_at, updated_at, is_super_admin, is_sso_user, is_anonymous) \
             values ('00000000-0000-0000-0000-000000000000', '6f1c1a52-3a0e-4f59-9a57-3f2b0c8c2f10', \
               'authenticated', 'authenticated', 'old@example.com', \
               '$2a$10$IWswZQf54RI4d08qs80OrOZovvu8HuqwBmy4swqAfy67kzLgqhAHW', '2024-01-01 00:00:00+00', \
               '', '', '', '', '{\"provider\":\"email\",\"providers\":[\"email\"]}', '{\"name\":\"Old\"}', \
               '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00', false, false, false); \
             insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
             values ('6f1c1a52-3a0e-4f59-9a57-3f2b0c8c2f10', '6f1c1a52-3a0e-4f59-9a57-3f2b0c8c2f10', \
               '{\"sub\":\"6f1c1a52-3a0e-4f59-9a57-3f2b0c8c2f10\",\"email\":\"old@example.com\"}', 'email', \
               '2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00');",
        )
        .await
        .expect("dump rows");
    let session = app.sign_in("old@example.com", "hash").await;
    assert_eq!(session["user"]["id"], "6f1c1a52-3a0e-4f59-9a57-3f2b0c8c2f10");
    assert_eq!(session["user"]["user_metadata"]["name"], "Old");
    assert_eq!(session["user"]["created_at"], "2024-01-01T00:00:00.000000Z");
    assert_eq!(app.password_grant("old@example.com", "hash2").await.code(), "invalid_credentials");
}

#[tokio::test]
async fn new_password_hashes_are_bcrypt_cost_10() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let row = app
        .admin()
        .await
        .query_one("select encrypted_password from auth.users where email = 'ana@example.com'", &[])
        .await
        .expect("user");
    let hash: String = row.get(0);
    assert!(hash.starts_with("$2b$10$") && hash.len() == 60, "{hash}");
}

#[tokio::test]
async fn phone_users_sign_in_with_their_number() {
    let app = spawn_app().await;
    let reply = app
        .admin_create_user(json!({"phone":"+1 555 123 4567","password":"s3cret-pw","phone_confirm":true}))
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["phone"], "15551234567");
    let request = app
        .auth(Method::POST, "/token?grant_type=password")
        .json(&json!({"phone":"+15551234567","password":"s3cret-pw"}));
    let reply = app.send(request).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let claims = app.state.credentials.jwt.verify(access_token(&reply.body)).expect("token").claims;
    assert_eq!(claims["phone"], "15551234567");
    assert_eq!(claims["email"], "");
}

#[tokio::test]
async fn an_unknown_grant_type_is_refused() {
    let app = spawn_app().await;
    for path in ["/token", "/token?grant_type=magic"] {
        let reply = app.send(app.auth(Method::POST, path).json(&json!({}))).await;
        // GoTrue's code for it is `invalid_credentials` (`token.go`).
        assert_eq!(
            (reply.status, reply.code(), reply.body["msg"].as_str()),
            (400, "invalid_credentials", Some("unsupported_grant_type")),
            "{path}"
        );
    }
}

#[tokio::test]
async fn sessions_record_the_client_address_and_user_agent() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let request = app
        .auth(Method::POST, "/token?grant_type=password")
        .header("user-agent", "supabase-js-test/1.0")
        .json(&json!({"email":"ana@example.com","password":"s3cret-pw"}));
    assert_eq!(app.send(request).await.status, 200);
    let row = app
        .admin()
        .await
        .query_one("select user_agent, host(ip), aal::text from auth.sessions", &[])
        .await
        .expect("one session");
    assert_eq!(row.get::<_, Option<String>>(0).as_deref(), Some("supabase-js-test/1.0"));
    assert_eq!(row.get::<_, Option<String>>(1).as_deref(), Some("127.0.0.1"));
    assert_eq!(row.get::<_, Option<String>>(2).as_deref(), Some("aal1"));
}
