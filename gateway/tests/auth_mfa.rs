//! MFA with TOTP factors, on the wire as GoTrue (supabase/auth `mfa.go`):
//! enrolment, challenge, verification into an `aal2` session, unenrolment,
//! the limits and the attacks (wrong codes, replays, expired challenges,
//! another user's factor), and RLS requiring `aal2`.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::TestApp;
use common::auth::{Reply, access_token, refresh_token, spawn_auth_app};
use gateway::auth::mfa;

fn claims(app: &TestApp, token: &str) -> Value {
    serde_json::to_value(app.state.credentials.jwt.verify(token).expect("valid token").claims)
        .expect("claims")
}

/// The code an authenticator app shows now, or at `offset` steps from now.
fn code(secret: &str, offset: i64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_secs();
    mfa::code_at(secret, mfa::step_at(now as i64) + offset).expect("code")
}

struct Enrolled {
    id: String,
    secret: String,
}

async fn signed_in(app: &TestApp, email: &str) -> Value {
    app.confirmed_user(email, "s3cret-pw").await;
    app.sign_in(email, "s3cret-pw").await
}

async fn enroll(app: &TestApp, token: &str, name: &str) -> Reply {
    let body = json!({"factor_type": "totp", "friendly_name": name, "issuer": "Shop"});
    app.send(app.as_user(Method::POST, "/factors", token).json(&body)).await
}

async fn enrolled(app: &TestApp, token: &str, name: &str) -> Enrolled {
    let reply = enroll(app, token, name).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    Enrolled {
        id: reply.body["id"].as_str().expect("id").to_owned(),
        secret: reply.body["totp"]["secret"].as_str().expect("secret").to_owned(),
    }
}

async fn challenge(app: &TestApp, token: &str, factor: &str) -> Reply {
    app.send(app.as_user(Method::POST, &format!("/factors/{factor}/challenge"), token).json(&json!({}))).await
}

async fn challenge_id(app: &TestApp, token: &str, factor: &str) -> String {
    let reply = challenge(app, token, factor).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    reply.body["id"].as_str().expect("challenge id").to_owned()
}

async fn verify(app: &TestApp, token: &str, factor: &str, challenge: &str, code: &str) -> Reply {
    let body = json!({"challenge_id": challenge, "code": code});
    app.send(app.as_user(Method::POST, &format!("/factors/{factor}/verify"), token).json(&body)).await
}

/// Signs in, enrols and verifies a factor: the `aal2` session and the factor.
async fn with_verified_factor(app: &TestApp, email: &str) -> (Value, Value, Enrolled) {
    let aal1 = signed_in(app, email).await;
    let factor = enrolled(app, access_token(&aal1), "phone app").await;
    let challenge = challenge_id(app, access_token(&aal1), &factor.id).await;
    let aal2 = verify(app, access_token(&aal1), &factor.id, &challenge, &code(&factor.secret, 0)).await;
    assert_eq!(aal2.status, 200, "{:?}", aal2.body);
    (aal1, aal2.body, factor)
}

#[tokio::test]
async fn a_totp_factor_is_enrolled_challenged_and_verified_into_an_aal2_session() {
    let app = spawn_auth_app(|_| {}).await;
    let session = signed_in(&app, "ana@example.com").await;
    let token = access_token(&session).to_owned();

    let reply = enroll(&app, &token, "phone app").await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let body = &reply.body;
    assert_eq!((body["type"].as_str(), body["friendly_name"].as_str()), (Some("totp"), Some("phone app")));
    let secret = body["totp"]["secret"].as_str().expect("secret").to_owned();
    assert_eq!(secret.len(), 32);
    assert!(body["totp"]["qr_code"].as_str().expect("qr").starts_with("<svg"), "{body}");
    assert_eq!(
        body["totp"]["uri"],
        format!(
            "otpauth://totp/Shop:ana%40example.com?algorithm=SHA1&digits=6&issuer=Shop&period=30&secret={secret}"
        )
    );
    let factor = body["id"].as_str().expect("id").to_owned();
    // The secret is sealed at rest.
    let stored: String = app
        .admin()
        .await
        .query_one("select secret from auth.mfa_factors where id = $1::text::uuid", &[&factor])
        .await
        .expect("factor row")
        .get(0);
    assert!(stored.starts_with("gw1:") && !stored.contains(&secret), "{stored}");
    // The user lists it, unverified.
    let user = app.send(app.as_user(Method::GET, "/user", &token)).await.body;
    let listed = &user["factors"][0];
    let mut keys: Vec<&str> = listed.as_object().expect("factor").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "created_at",
            "factor_type",
            "friendly_name",
            "id",
            "last_challenged_at",
            "phone",
            "status",
            "updated_at"
        ]
    );
    assert_eq!(
        (&listed["status"], &listed["factor_type"], &listed["phone"]),
        (&json!("unverified"), &json!("totp"), &json!(""))
    );
    assert_eq!(listed["last_challenged_at"], Value::Null);

    let challenged = challenge(&app, &token, &factor).await;
    assert_eq!(challenged.status, 200, "{:?}", challenged.body);
    assert_eq!(challenged.body["type"], "totp");
    let expires_at = challenged.body["expires_at"].as_i64().expect("expires_at");
    let now = claims(&app, &token)["iat"].as_i64().expect("iat");
    assert!((now + 290..now + 400).contains(&expires_at), "{expires_at} vs {now}");
    let challenge = challenged.body["id"].as_str().expect("id");

    let verified = verify(&app, &token, &factor, challenge, &code(&secret, 0)).await;
    assert_eq!(verified.status, 200, "{:?}", verified.body);
    let aal2 = claims(&app, access_token(&verified.body));
    assert_eq!(aal2["aal"], "aal2");
    assert_eq!(aal2["session_id"], claims(&app, &token)["session_id"]);
    let methods: Vec<&str> =
        aal2["amr"].as_array().expect("amr").iter().filter_map(|a| a["method"].as_str()).collect();
    assert_eq!(methods, ["totp", "password"]);
    assert_eq!(verified.body["user"]["factors"][0]["status"], "verified");
    assert_ne!(refresh_token(&verified.body), refresh_token(&session));

    // Refreshing keeps aal2; the aal1 refresh token no longer refreshes.
    let refreshed = app.refresh(refresh_token(&verified.body)).await;
    assert_eq!(refreshed.status, 200, "{:?}", refreshed.body);
    assert_eq!(claims(&app, access_token(&refreshed.body))["aal"], "aal2");
    let old = app.refresh(refresh_token(&session)).await;
    assert_eq!(old.status, 400, "{:?}", old.body);
}

#[tokio::test]
async fn wrong_replayed_expired_and_reused_codes_are_refused() {
    let app = spawn_auth_app(|auth| auth.mfa_rate_limit_challenge_and_verify = 0).await;
    let (_, aal2, factor) = with_verified_factor(&app, "ana@example.com").await;
    let token = access_token(&aal2).to_owned();
    let used = code(&factor.secret, 0);
    let admin = app.admin().await;

    // A code already accepted is refused on a fresh challenge.
    let fresh = challenge_id(&app, &token, &factor.id).await;
    let replay = verify(&app, &token, &factor.id, &fresh, &used).await;
    assert_eq!((replay.status, replay.code()), (422, "mfa_verification_failed"), "{:?}", replay.body);

    // A verified challenge cannot be verified again (GoTrue's answer for it).
    let verified: String = admin
        .query_one("select id::text from auth.mfa_challenges where verified_at is not null", &[])
        .await
        .expect("verified challenge")
        .get(0);
    let again = verify(&app, &token, &factor.id, &verified, &code(&factor.secret, 1)).await;
    assert_eq!((again.status, again.code()), (422, "mfa_ip_address_mismatch"), "{:?}", again.body);

    // Five wrong codes use a challenge up.
    let guessed = challenge_id(&app, &token, &factor.id).await;
    for _ in 0..5 {
        let wrong = verify(&app, &token, &factor.id, &guessed, "000000").await;
        assert_eq!(
            (wrong.status, wrong.code(), wrong.body["msg"].as_str()),
            (422, "mfa_verification_failed", Some("Invalid TOTP code entered"))
        );
    }
    let gone = verify(&app, &token, &factor.id, &guessed, &code(&factor.secret, 1)).await;
    assert_eq!((gone.status, gone.code()), (422, "mfa_factor_not_found"), "{:?}", gone.body);

    // An expired challenge is refused and deleted.
    let expired = challenge_id(&app, &token, &factor.id).await;
    admin
        .execute(
            "update auth.mfa_challenges set created_at = now() - interval '301 seconds' where id = $1::text::uuid",
            &[&expired],
        )
        .await
        .expect("age the challenge");
    let late = verify(&app, &token, &factor.id, &expired, &code(&factor.secret, 1)).await;
    assert_eq!((late.status, late.code()), (422, "mfa_challenge_expired"), "{:?}", late.body);
    let late_again = verify(&app, &token, &factor.id, &expired, &code(&factor.secret, 1)).await;
    assert_eq!(late_again.code(), "mfa_factor_not_found");

    // Malformed input.
    let cases = [
        (json!({"challenge_id": "nope", "code": "123456"}), 400, "validation_failed"),
        (json!({"challenge_id": fresh, "code": ""}), 400, "validation_failed"),
    ];
    for (body, status, code) in cases {
        let reply = app
            .send(app.as_user(Method::POST, &format!("/factors/{}/verify", factor.id), &token).json(&body))
            .await;
        assert_eq!((reply.status, reply.code()), (status, code), "{body}");
    }
}

#[tokio::test]
async fn another_users_factor_is_not_found_anywhere() {
    let app = spawn_auth_app(|_| {}).await;
    let (_, _, factor) = with_verified_factor(&app, "ana@example.com").await;
    let eve = signed_in(&app, "eve@example.com").await;
    let token = access_token(&eve);
    let fake_challenge = "7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11";
    let replies = [
        challenge(&app, token, &factor.id).await,
        verify(&app, token, &factor.id, fake_challenge, &code(&factor.secret, 0)).await,
        app.send(app.as_user(Method::DELETE, &format!("/factors/{}", factor.id), token)).await,
    ];
    for reply in replies {
        assert_eq!((reply.status, reply.code()), (404, "mfa_factor_not_found"), "{:?}", reply.body);
    }
}

#[tokio::test]
async fn a_verified_factor_guards_itself_and_the_account_behind_aal2() {
    let app = spawn_auth_app(|_| {}).await;
    let (_, aal2, factor) = with_verified_factor(&app, "ana@example.com").await;
    // A new sign-in is aal1 again (the earlier aal1 session was ended).
    let aal1 = app.sign_in("ana@example.com", "s3cret-pw").await;
    let low = access_token(&aal1);
    assert_eq!(claims(&app, low)["aal"], "aal1");

    let second = enroll(&app, low, "backup").await;
    assert_eq!((second.status, second.code()), (403, "insufficient_aal"), "{:?}", second.body);
    let unenrol = app.send(app.as_user(Method::DELETE, &format!("/factors/{}", factor.id), low)).await;
    assert_eq!((unenrol.status, unenrol.code()), (422, "insufficient_aal"), "{:?}", unenrol.body);
    let password =
        app.send(app.as_user(Method::PUT, "/user", low).json(&json!({"password": "another-pw"}))).await;
    assert_eq!((password.status, password.code()), (401, "insufficient_aal"), "{:?}", password.body);
    let metadata = app.send(app.as_user(Method::PUT, "/user", low).json(&json!({"data": {"a": 1}}))).await;
    assert_eq!(metadata.status, 200, "{:?}", metadata.body);

    // From aal2 the factor goes, and the session is aal1 again on refresh.
    let high = access_token(&aal2);
    let same_name = enroll(&app, high, "phone app").await;
    assert_eq!((same_name.status, same_name.code()), (422, "mfa_factor_name_conflict"));
    let gone = app.send(app.as_user(Method::DELETE, &format!("/factors/{}", factor.id), high)).await;
    assert_eq!((gone.status, gone.body.clone()), (200, json!({"id": factor.id})));
    let refreshed = app.refresh(refresh_token(&aal2)).await;
    assert_eq!(claims(&app, access_token(&refreshed.body))["aal"], "aal1");
    let user = app.send(app.as_user(Method::GET, "/user", access_token(&refreshed.body))).await.body;
    assert!(user.get("factors").is_none(), "{user}");
}

#[tokio::test]
async fn enrolments_and_attempts_are_limited() {
    let app = spawn_auth_app(|auth| {
        auth.mfa_max_enrolled_factors = 2;
        auth.mfa_rate_limit_challenge_and_verify = 3;
    })
    .await;
    let session = signed_in(&app, "ana@example.com").await;
    let token = access_token(&session);
    let factor = enrolled(&app, token, "").await;
    // As GoTrue, two unnamed factors have the same name.
    let unnamed = enroll(&app, token, "").await;
    assert_eq!((unnamed.status, unnamed.code()), (422, "mfa_factor_name_conflict"));
    enrolled(&app, token, "two").await;
    let third = enroll(&app, token, "three").await;
    assert_eq!((third.status, third.code()), (422, "too_many_enrolled_mfa_factors"));
    for _ in 0..3 {
        assert_eq!(challenge(&app, token, &factor.id).await.status, 200);
    }
    let over = challenge(&app, token, &factor.id).await;
    assert_eq!((over.status, over.code()), (429, "over_request_rate_limit"));
}

#[tokio::test]
async fn anonymous_users_cannot_use_mfa() {
    let app = spawn_auth_app(|auth| auth.anonymous_users_enabled = true).await;
    let guest = app.send(app.auth(Method::POST, "/signup").json(&json!({}))).await.body;
    let reply = enroll(&app, access_token(&guest), "x").await;
    assert_eq!(
        (reply.status, reply.code(), reply.body["msg"].as_str()),
        (403, "no_authorization", Some("Anonymous user not allowed to perform these actions"))
    );
}

#[tokio::test]
async fn row_level_security_can_require_aal2() {
    let app = spawn_auth_app(|_| {}).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.payouts (id int primary key, amount int);
             insert into public.payouts values (1, 100);
             alter table public.payouts enable row level security;
             create policy second_factor on public.payouts for select to authenticated
               using ((auth.jwt()->>'aal') = 'aal2');
             grant select on public.payouts to authenticated;",
        )
        .await
        .expect("ddl");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    let (aal1, aal2, _) = with_verified_factor(&app, "ana@example.com").await;
    // (session, rows seen)
    let cases = [(&aal1, json!([])), (&aal2, json!([{"id": 1, "amount": 100}]))];
    for (session, rows) in cases {
        let answer = app
            .client
            .get(format!("{}/rest/v1/payouts?select=id,amount", app.address))
            .header("apikey", &app.anon_key)
            .bearer_auth(access_token(session))
            .send()
            .await
            .expect("read");
        assert_eq!(answer.json::<Value>().await.expect("json"), rows);
    }
}

#[tokio::test]
async fn the_admin_api_lists_and_deletes_a_users_factors_and_the_session_drops_to_aal1() {
    let app = spawn_auth_app(|_| {}).await;
    let (_, aal2, factor) = with_verified_factor(&app, "ana@example.com").await;
    let user_id = claims(&app, access_token(&aal2))["sub"].as_str().expect("sub").to_owned();
    let listed = app.send(app.as_service(Method::GET, &format!("/admin/users/{user_id}/factors"))).await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    assert_eq!(listed.body.as_array().map(Vec::len), Some(1));
    assert_eq!(listed.body[0]["id"], factor.id.as_str());
    assert_eq!(listed.body[0]["status"], "verified");

    let path = format!("/admin/users/{user_id}/factors/{}", factor.id);
    let as_user = app.send(app.as_user(Method::DELETE, &path, access_token(&aal2))).await;
    assert_eq!(as_user.status, 403, "only service_role: {:?}", as_user.body);
    let deleted = app.send(app.as_service(Method::DELETE, &path)).await;
    assert_eq!(deleted.status, 200, "{:?}", deleted.body);
    assert_eq!(deleted.body["id"], factor.id.as_str());
    let again = app.send(app.as_service(Method::DELETE, &path)).await;
    assert_eq!((again.status, again.code()), (404, "mfa_factor_not_found"));
    let listed = app.send(app.as_service(Method::GET, &format!("/admin/users/{user_id}/factors"))).await;
    assert_eq!(listed.body, json!([]));

    let refreshed = app.refresh(refresh_token(&aal2)).await;
    assert_eq!(refreshed.status, 200, "{:?}", refreshed.body);
    let claims = claims(&app, access_token(&refreshed.body));
    assert_eq!(claims["aal"], "aal1", "the session the factor raised is aal1 again");
    let unknown = "7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11";
    let missing = app.send(app.as_service(Method::GET, &format!("/admin/users/{unknown}/factors"))).await;
    assert_eq!((missing.status, missing.code()), (404, "user_not_found"));
}
