//! PKCE for the mailed flows of `/auth/v1` (`gateway::auth::flow_state`):
//! each request carries a challenge, its mail's link lands on the app with
//! `?code=`, and only the holder of the verifier trades that code for a
//! session, once, in time. Mails go through the SMTP sink on loopback and
//! are sent in the background, so every step waits for its mail first.

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Method;
use reqwest::redirect::Policy;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};
use common::smtp::{Received, Sink};
use gateway::auth::AuthConfig;
use gateway::auth::mail::config::SmtpTls;

const VERIFIER: &str = "a-verifier-the-app-keeps-to-itself-0123456789-abcdef";
const LANDING: &str = "http://app.example/callback";

async fn mail_app(change: impl FnOnce(&mut AuthConfig)) -> (TestApp, Sink) {
    let sink = Sink::start().await;
    let port = sink.port;
    let app = spawn_auth_app(|auth| {
        auth.autoconfirm = false;
        auth.mail.smtp_host = Some("127.0.0.1".to_owned());
        auth.mail.smtp_port = port;
        auth.mail.smtp_tls = SmtpTls::None;
        auth.mail.smtp_max_frequency = 0;
        auth.uri_allow_list = vec!["http://app.example/**".to_owned()];
        change(auth);
    })
    .await;
    (app, sink)
}

/// The challenge the app sends for `VERIFIER` with `method`, as auth-js makes it.
fn challenge(method: &str) -> String {
    match method {
        "s256" => URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER.as_bytes())),
        _ => VERIFIER.to_owned(),
    }
}

fn pkce(method: &str) -> Value {
    json!({"code_challenge": challenge(method), "code_challenge_method": method})
}

fn with(mut body: Value, extra: Value) -> Value {
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    body
}

/// Follows a mailed link without following its redirect: the `Location`.
async fn open_link(app: &TestApp, link: &str) -> String {
    let query = link.split_once("/verify?").expect("a /verify link").1;
    let client = reqwest::Client::builder().redirect(Policy::none()).build().expect("client");
    let response =
        client.get(format!("{}/auth/v1/verify?{query}", app.address)).send().await.expect("verify");
    assert_eq!(response.status(), 303);
    response.headers()["location"].to_str().expect("location").to_owned()
}

fn query_of(location: &str) -> Value {
    let before_fragment = location.split('#').next().unwrap_or("");
    let query = before_fragment.split_once('?').map_or("", |(_, q)| q);
    let pairs: serde_json::Map<String, Value> =
        form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), json!(v))).collect();
    Value::Object(pairs)
}

/// The auth code a PKCE link lands with.
async fn code_from(app: &TestApp, mail: &Received) -> String {
    let location = open_link(app, &mail.link()).await;
    assert!(location.starts_with(&format!("{LANDING}?")), "{location}");
    assert!(!location.contains("access_token"), "{location}");
    query_of(&location)["code"].as_str().unwrap_or_else(|| panic!("no code in {location}")).to_owned()
}

async fn exchange(app: &TestApp, code: &str, verifier: &str) -> Reply {
    let body = json!({"auth_code": code, "code_verifier": verifier});
    app.send(app.auth(Method::POST, "/token?grant_type=pkce").json(&body)).await
}

fn amr_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("payload");
    let bytes = URL_SAFE_NO_PAD.decode(payload).expect("base64");
    serde_json::from_slice::<Value>(&bytes).expect("claims")["amr"][0]["method"].clone()
}

fn redirect(path: &str) -> String {
    format!("{path}?redirect_to={}", form_urlencoded::byte_serialize(LANDING.as_bytes()).collect::<String>())
}

/// The flows that mail a link, each started the way auth-js starts it.
#[derive(Debug, Clone, Copy)]
enum Flow {
    /// `signUp`: a new user's confirmation.
    SignUp,
    /// `signInWithOtp` for a new address: the sign-up confirmation.
    OtpNewUser,
    /// `signInWithOtp` for a confirmed user: a magic link.
    OtpMagicLink,
    /// The older `/magiclink` route.
    MagicLinkRoute,
    /// `resetPasswordForEmail`.
    Recover,
    /// `updateUser({email})` with one confirmation (to the new address).
    EmailChange,
    /// `updateUser({email})` with secure e-mail change: both addresses confirm.
    SecureEmailChange,
}

/// Starts `flow` for `email` and returns the mail whose link ends it.
async fn start(app: &TestApp, sink: &Sink, flow: Flow, email: &str, method: &str) -> (Received, String) {
    let password = "s3cret-pw";
    let started = match flow {
        Flow::SignUp => {
            let body = with(json!({"email": email, "password": password}), pkce(method));
            app.send(app.auth(Method::POST, &redirect("/signup")).json(&body)).await
        }
        Flow::OtpNewUser => {
            let body = with(json!({"email": email, "create_user": true}), pkce(method));
            app.send(app.auth(Method::POST, &redirect("/otp")).json(&body)).await
        }
        Flow::OtpMagicLink | Flow::MagicLinkRoute | Flow::Recover => {
            app.confirmed_user(email, password).await;
            let path = match flow {
                Flow::OtpMagicLink => "/otp",
                Flow::MagicLinkRoute => "/magiclink",
                _ => "/recover",
            };
            let body = with(json!({"email": email}), pkce(method));
            app.send(app.auth(Method::POST, &redirect(path)).json(&body)).await
        }
        Flow::EmailChange | Flow::SecureEmailChange => {
            app.confirmed_user(email, password).await;
            let session = app.sign_in(email, password).await;
            let new_email = format!("new.{email}");
            let body = with(json!({"email": new_email}), pkce(method));
            let reply = app
                .send(app.as_user(Method::PUT, &redirect("/user"), access_token(&session)).json(&body))
                .await;
            assert_eq!(reply.status, 200, "{flow:?}: {:?}", reply.body);
            if let Flow::SecureEmailChange = flow {
                let current = sink.nth_to(email, 0).await;
                let first = open_link(app, &current.link()).await;
                let message = &query_of(&first)["message"];
                assert!(
                    message.as_str().is_some_and(|m| m.starts_with("Confirmation link accepted")),
                    "{first}"
                );
            }
            return (sink.nth_to(&new_email, 0).await, new_email);
        }
    };
    assert_eq!(started.status, 200, "{flow:?}: {:?}", started.body);
    (sink.nth_to(email, 0).await, email.to_owned())
}

#[tokio::test]
async fn every_mailed_flow_ends_in_a_code_that_the_verifier_trades_for_a_session() {
    let cases = [
        (Flow::SignUp, "s256", "email/signup"),
        (Flow::SignUp, "plain", "email/signup"),
        (Flow::OtpNewUser, "s256", "email/signup"),
        (Flow::OtpMagicLink, "s256", "magiclink"),
        (Flow::OtpMagicLink, "plain", "magiclink"),
        (Flow::MagicLinkRoute, "s256", "magiclink"),
        (Flow::Recover, "s256", "recovery"),
        (Flow::Recover, "plain", "recovery"),
        (Flow::EmailChange, "s256", "email_change"),
        (Flow::SecureEmailChange, "plain", "email_change"),
    ];
    for (i, (flow, method, amr)) in cases.into_iter().enumerate() {
        let secure = matches!(flow, Flow::SecureEmailChange);
        let (app, sink) = mail_app(|auth| auth.mail.secure_email_change_enabled = secure).await;
        let email = format!("user{i}@example.com");
        let (mail, signed_in_as) = start(&app, &sink, flow, &email, method).await;
        assert!(mail.link().contains("token=pkce_"), "{flow:?}: {}", mail.link());

        let row = app
            .admin()
            .await
            .query_one(
                "select provider_type, authentication_method, code_challenge_method::text, code_challenge, \
                   user_id is not null from auth.flow_state",
                &[],
            )
            .await
            .expect("one flow");
        let shape: (String, String, String, String, bool) =
            (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
        let expected = ("email".to_owned(), amr.to_owned(), method.to_owned(), challenge(method), true);
        assert_eq!(shape, expected, "{flow:?}");

        let code = code_from(&app, &mail).await;
        let session = exchange(&app, &code, VERIFIER).await;
        assert_eq!(session.status, 200, "{flow:?} {method}: {:?}", session.body);
        assert_eq!(session.body["user"]["email"], signed_in_as.as_str(), "{flow:?}");
        assert!(session.body["user"]["email_confirmed_at"].is_string(), "{flow:?}");
        assert!(session.body.get("provider_token").is_none(), "{flow:?}: {:?}", session.body);
        assert_eq!(amr_of(access_token(&session.body)), amr, "{flow:?}");
        let user = app.send(app.as_user(Method::GET, "/user", access_token(&session.body))).await;
        assert_eq!(user.status, 200, "{flow:?}");
    }
}

#[tokio::test]
async fn a_code_is_good_once_and_its_link_too() {
    let (app, sink) = mail_app(|_| {}).await;
    let (mail, _) = start(&app, &sink, Flow::SignUp, "once@example.com", "s256").await;
    let code = code_from(&app, &mail).await;
    assert_eq!(exchange(&app, &code, VERIFIER).await.status, 200);
    let again = exchange(&app, &code, VERIFIER).await;
    assert_eq!((again.status, again.code()), (404, "flow_state_not_found"));

    let reopened = query_of(&open_link(&app, &mail.link()).await);
    assert_eq!(reopened["error_code"], "otp_expired", "{reopened}");
    assert!(reopened.get("code").is_none());
}

#[tokio::test]
async fn a_wrong_verifier_is_refused_and_leaves_the_code_to_its_owner() {
    let (app, sink) = mail_app(|_| {}).await;
    for (method, email) in [("s256", "wrong.s256@example.com"), ("plain", "wrong.plain@example.com")] {
        let (mail, _) = start(&app, &sink, Flow::Recover, email, method).await;
        let code = code_from(&app, &mail).await;
        for wrong in [challenge("s256").as_str(), "not-the-verifier-not-the-verifier-not-the-v"] {
            if wrong == challenge(method) {
                continue;
            }
            let refused = exchange(&app, &code, wrong).await;
            assert_eq!((refused.status, refused.code()), (400, "bad_code_verifier"), "{method} {wrong}");
        }
        assert_eq!(exchange(&app, &code, VERIFIER).await.status, 200, "{method}");
    }
}

#[tokio::test]
async fn a_code_expires_five_minutes_after_the_link_gave_it() {
    let (app, sink) = mail_app(|_| {}).await;
    let (mail, _) = start(&app, &sink, Flow::OtpMagicLink, "late@example.com", "s256").await;
    let code = code_from(&app, &mail).await;
    app.admin()
        .await
        .execute("update auth.flow_state set auth_code_issued_at = now() - interval '301 seconds'", &[])
        .await
        .expect("age the code");
    let late = exchange(&app, &code, VERIFIER).await;
    assert_eq!((late.status, late.code()), (422, "flow_state_expired"));
}

#[tokio::test]
async fn a_pkce_link_cannot_be_opened_as_an_implicit_one() {
    let (app, sink) = mail_app(|_| {}).await;
    let (mail, _) = start(&app, &sink, Flow::SignUp, "strip@example.com", "s256").await;
    let stripped = mail.link().replace("token=pkce_", "token=");
    let location = open_link(&app, &stripped).await;
    assert!(!location.contains("access_token"), "{location}");
    assert!(location.contains("error_code=otp_expired"), "{location}");
    assert!(code_from(&app, &mail).await.len() >= 32);
}

#[tokio::test]
async fn the_mailed_code_still_signs_in_without_the_verifier() {
    let (app, sink) = mail_app(|_| {}).await;
    let (mail, _) = start(&app, &sink, Flow::OtpMagicLink, "code@example.com", "s256").await;
    let body = json!({"type": "email", "email": "code@example.com", "token": mail.code()});
    let reply = app.send(app.auth(Method::POST, "/verify").json(&body)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body["access_token"].is_string());
}

#[tokio::test]
async fn an_incomplete_or_malformed_challenge_is_refused_before_anything_is_sent() {
    let (app, sink) = mail_app(|_| {}).await;
    let cases = [
        (
            json!({"code_challenge": challenge("s256")}),
            "PKCE flow requires code_challenge_method and code_challenge",
        ),
        (
            json!({"code_challenge_method": "s256"}),
            "PKCE flow requires code_challenge_method and code_challenge",
        ),
        (
            json!({"code_challenge": "short", "code_challenge_method": "s256"}),
            "code challenge has to be between 43 and 128 characters",
        ),
        (
            json!({"code_challenge": challenge("s256"), "code_challenge_method": "md5"}),
            "Invalid code_challenge_method",
        ),
    ];
    for (path, base) in [
        ("/signup", json!({"email": "bad@example.com", "password": "s3cret-pw"})),
        ("/otp", json!({"email": "bad@example.com"})),
        ("/recover", json!({"email": "bad@example.com"})),
    ] {
        for (challenge, message) in &cases {
            let reply =
                app.send(app.auth(Method::POST, path).json(&with(base.clone(), challenge.clone()))).await;
            assert_eq!((reply.status, reply.code()), (400, "validation_failed"), "{path} {challenge}");
            assert_eq!(reply.body["msg"], *message, "{path} {challenge}");
        }
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.count_to("bad@example.com"), 0);
}

#[tokio::test]
async fn a_link_whose_flow_is_gone_lands_with_the_error_in_the_query() {
    let (app, sink) = mail_app(|_| {}).await;
    let (mail, _) = start(&app, &sink, Flow::Recover, "gone@example.com", "s256").await;
    app.admin().await.execute("delete from auth.flow_state", &[]).await.expect("drop the flow");
    let location = open_link(&app, &mail.link()).await;
    let query = query_of(&location);
    assert_eq!(query["error_code"], "flow_state_not_found", "{location}");
    assert!(location.contains("#error"), "{location}");
}

/// `auth.one_time_tokens` as GoTrue keeps it: one row per pending token,
/// hashed as in its `auth.users` column, gone once the token is used.
async fn one_time_tokens(app: &TestApp) -> Vec<(String, String, String)> {
    let rows = app
        .admin()
        .await
        .query(
            "select t.token_type::text, t.relates_to, \
               case when t.token_hash = coalesce(nullif(u.confirmation_token, ''), nullif(u.recovery_token, ''), \
                 nullif(u.email_change_token_current, ''), nullif(u.email_change_token_new, '')) \
                 or t.token_hash = u.email_change_token_new then 'same as users' else t.token_hash end \
             from auth.one_time_tokens t join auth.users u on u.id = t.user_id order by 1",
            &[],
        )
        .await
        .expect("one_time_tokens");
    rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect()
}

#[tokio::test]
async fn one_time_tokens_follow_the_mailed_tokens_of_each_flow() {
    let row = |kind: &str, to: &str| (kind.to_owned(), to.to_owned(), "same as users".to_owned());
    let (app, sink) = mail_app(|auth| auth.mail.secure_email_change_enabled = true).await;

    let (mail, _) = start(&app, &sink, Flow::SignUp, "ott@example.com", "s256").await;
    assert_eq!(one_time_tokens(&app).await, [row("confirmation_token", "ott@example.com")]);
    let code = code_from(&app, &mail).await;
    assert_eq!(one_time_tokens(&app).await, []);
    let session = exchange(&app, &code, VERIFIER).await;

    let body = json!({"email": "ott@example.com"});
    app.send(app.auth(Method::POST, "/recover").json(&body)).await;
    let recovery = sink.nth_to("ott@example.com", 1).await;
    assert_eq!(one_time_tokens(&app).await, [row("recovery_token", "ott@example.com")]);
    let verify = json!({"type": "recovery", "email": "ott@example.com", "token": recovery.code()});
    assert_eq!(app.send(app.auth(Method::POST, "/verify").json(&verify)).await.status, 200);
    assert_eq!(one_time_tokens(&app).await, []);

    let change = json!({"email": "ott.new@example.com"});
    let reply = app.send(app.as_user(Method::PUT, "/user", access_token(&session.body)).json(&change)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    sink.nth_to("ott.new@example.com", 0).await;
    assert_eq!(
        one_time_tokens(&app).await,
        [
            row("email_change_token_current", "ott@example.com"),
            row("email_change_token_new", "ott.new@example.com")
        ]
    );
    app.admin().await.execute("delete from auth.users", &[]).await.expect("delete users");
    assert_eq!(one_time_tokens(&app).await, []);
}
