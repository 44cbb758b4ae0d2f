//! Phone sign-in against stand-ins of the SMS providers on loopback: each
//! answers as the provider's API does only when the request is what that API
//! expects (path, credentials, form fields), and records the message, whose
//! code then completes the flow as a user would.

mod common;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use reqwest::Method;
use serde_json::{Value, json};

use common::TestApp;
use common::auth::{access_token, spawn_auth_app};
use gateway::auth::AuthConfig;
use gateway::auth::sms::config::SmsProvider;

/// The code Twilio Verify's stand-in sends and approves.
const VERIFY_CODE: &str = "424242";

/// One message a stand-in accepted.
#[derive(Clone, Debug)]
struct Sent {
    to: String,
    text: String,
    channel: String,
}

#[derive(Clone, Default)]
struct Inbox {
    sent: Arc<Mutex<Vec<Sent>>>,
    refuse: Arc<Mutex<bool>>,
}

impl Inbox {
    fn all(&self) -> Vec<Sent> {
        self.sent.lock().expect("inbox").clone()
    }

    fn last_code(&self) -> String {
        let sent = self.all();
        let text = &sent.last().expect("a message").text;
        text.chars().filter(char::is_ascii_digit).collect()
    }

    fn refuse(&self) {
        *self.refuse.lock().expect("inbox") = true;
    }

    fn refusing(&self) -> bool {
        *self.refuse.lock().expect("inbox")
    }

    fn keep(&self, to: &str, text: &str, channel: &str) {
        let sent = Sent { to: to.to_owned(), text: text.to_owned(), channel: channel.to_owned() };
        self.sent.lock().expect("inbox").push(sent);
    }
}

fn fields(body: &Bytes) -> std::collections::HashMap<String, String> {
    form_urlencoded::parse(body).into_owned().collect()
}

fn basic(headers: &HeaderMap) -> String {
    let value = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
    let encoded = value.strip_prefix("Basic ").unwrap_or("");
    String::from_utf8(base64::engine::general_purpose::STANDARD.decode(encoded).unwrap_or_default())
        .unwrap_or_default()
}

fn form_typed(headers: &HeaderMap) -> bool {
    headers.get("content-type").is_some_and(|v| v == "application/x-www-form-urlencoded")
}

type Answer = (StatusCode, axum::Json<Value>);

fn answer(status: StatusCode, body: Value) -> Answer {
    (status, axum::Json(body))
}

async fn twilio(
    State(inbox): State<Inbox>,
    Path(sid): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let f = fields(&body);
    let authorised = sid == "AC123" && basic(&headers) == "AC123:twilio-token";
    if !authorised || !form_typed(&headers) {
        return answer(StatusCode::UNAUTHORIZED, json!({"code": 20003, "message": "Authenticate"}));
    }
    let to = f.get("To").cloned().unwrap_or_default();
    let from_ok = f.get("From").is_some_and(|from| from.ends_with("MG999"));
    if inbox.refusing() || !from_ok || !to.trim_start_matches("whatsapp:").starts_with('+') {
        return answer(
            StatusCode::BAD_REQUEST,
            json!({"code": 21211, "message": "The 'To' number is not valid."}),
        );
    }
    inbox.keep(&to, &f["Body"], &f["Channel"]);
    answer(StatusCode::CREATED, json!({"sid": "SM1", "status": "queued"}))
}

async fn twilio_verify(
    State(inbox): State<Inbox>,
    Path((service, action)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let f = fields(&body);
    if service != "VA777" || basic(&headers) != "AC456:verify-token" || !form_typed(&headers) {
        return answer(StatusCode::UNAUTHORIZED, json!({"code": 20003, "message": "Authenticate"}));
    }
    match action.as_str() {
        "Verifications" => {
            inbox.keep(&f["To"], &format!("Your verification code is {VERIFY_CODE}"), &f["Channel"]);
            answer(StatusCode::CREATED, json!({"sid": "VE1", "status": "pending"}))
        }
        "VerificationCheck" => {
            let approved = f.get("Code").map(String::as_str) == Some(VERIFY_CODE);
            answer(StatusCode::OK, json!({"status": if approved { "approved" } else { "pending" }}))
        }
        _ => answer(StatusCode::NOT_FOUND, json!({})),
    }
}

async fn messagebird(State(inbox): State<Inbox>, headers: HeaderMap, body: Bytes) -> Answer {
    let f = fields(&body);
    let key = headers.get("authorization").and_then(|v| v.to_str().ok());
    if key != Some("AccessKey mb-key") || f.get("originator").map(String::as_str) != Some("Shop") {
        return answer(
            StatusCode::UNAUTHORIZED,
            json!({"errors": [{"code": 2, "description": "Request not allowed"}]}),
        );
    }
    if inbox.refusing() || f.get("type").map(String::as_str) != Some("sms") {
        return answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"errors": [{"code": 9, "description": "no (correct) recipients found"}]}),
        );
    }
    inbox.keep(&f["recipients"], &f["body"], "sms");
    answer(StatusCode::CREATED, json!({"id": "mb1", "recipients": {"totalDeliveryFailedCount": 0}}))
}

async fn textlocal(State(inbox): State<Inbox>, body: Bytes) -> Answer {
    let f = fields(&body);
    if inbox.refusing() || f.get("apikey").map(String::as_str) != Some("tl-key") || !f.contains_key("sender")
    {
        return answer(
            StatusCode::OK,
            json!({"status": "failure", "errors": [{"code": 3, "message": "Invalid login details"}]}),
        );
    }
    inbox.keep(&f["numbers"], &f["message"], "sms");
    answer(StatusCode::OK, json!({"status": "success", "messages": [{"id": 1, "recipient": 1}]}))
}

async fn vonage(State(inbox): State<Inbox>, body: Bytes) -> Answer {
    let f = fields(&body);
    let authorised = f.get("api_key").map(String::as_str) == Some("vn-key")
        && f.get("api_secret").map(String::as_str) == Some("vn-secret");
    if inbox.refusing() || !authorised || !f.contains_key("from") {
        return answer(
            StatusCode::OK,
            json!({"messages": [{"status": "4", "error-text": "Bad Credentials"}]}),
        );
    }
    inbox.keep(&f["to"], &f["text"], "sms");
    answer(StatusCode::OK, json!({"message-count": "1", "messages": [{"status": "0", "message-id": "v1"}]}))
}

/// The send-SMS hook as an HTTP endpoint: keeps what arrives with a valid
/// standard-webhooks signature, refuses anything else.
async fn http_hook(State(inbox): State<Inbox>, headers: HeaderMap, body: Bytes) -> Answer {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&HOOK_KEY).expect("key");
    mac.update(format!("{}.{}.", header("webhook-id"), header("webhook-timestamp")).as_bytes());
    mac.update(&body);
    let expected =
        format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes()));
    if !header("webhook-signature").split(' ').any(|s| s == expected) {
        return answer(
            StatusCode::UNAUTHORIZED,
            json!({"error": {"http_code": 401, "message": "bad signature"}}),
        );
    }
    let event: Value = serde_json::from_slice(&body).expect("json event");
    inbox.keep(
        event["user"]["phone"].as_str().unwrap_or(""),
        event["sms"]["otp"].as_str().unwrap_or(""),
        "hook",
    );
    answer(StatusCode::OK, json!({}))
}

const HOOK_KEY: [u8; 6] = *b"secret";

/// Every provider's stand-in on one loopback port (their paths differ).
async fn stand_in() -> (String, Inbox) {
    let inbox = Inbox::default();
    let app = Router::new()
        .route("/2010-04-01/Accounts/{sid}/Messages.json", post(twilio))
        .route("/v2/Services/{service}/{action}", post(twilio_verify))
        .route("/messages", post(messagebird))
        .route("/send", post(textlocal))
        .route("/sms/json", post(vonage))
        .route("/hook", post(http_hook))
        .with_state(inbox.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, inbox)
}

async fn phone_app(provider: SmsProvider, change: impl FnOnce(&mut AuthConfig)) -> (TestApp, Inbox) {
    let (url, inbox) = stand_in().await;
    let app = spawn_auth_app(|auth| {
        auth.autoconfirm = false;
        let sms = &mut auth.sms;
        sms.provider = Some(provider);
        sms.api_url = Some(url.clone());
        sms.max_frequency = 0;
        sms.twilio_account_sid = Some("AC123".to_owned());
        sms.twilio_auth_token = Some("twilio-token".parse().expect("secret"));
        sms.twilio_message_service_sid = Some("MG999".to_owned());
        sms.twilio_verify_account_sid = Some("AC456".to_owned());
        sms.twilio_verify_auth_token = Some("verify-token".parse().expect("secret"));
        sms.twilio_verify_message_service_sid = Some("VA777".to_owned());
        sms.messagebird_access_key = Some("mb-key".parse().expect("secret"));
        sms.messagebird_originator = Some("Shop".to_owned());
        sms.textlocal_api_key = Some("tl-key".parse().expect("secret"));
        sms.textlocal_sender = Some("Shop".to_owned());
        sms.vonage_api_key = Some("vn-key".to_owned());
        sms.vonage_api_secret = Some("vn-secret".parse().expect("secret"));
        sms.vonage_from = Some("Shop".to_owned());
        sms.hook_uri = Some(format!("{url}/hook").parse().expect("hook uri"));
        sms.hook_secrets = Some(
            format!("v1,whsec_{}", base64::engine::general_purpose::STANDARD.encode(HOOK_KEY))
                .parse()
                .expect("secret"),
        );
        change(auth);
    })
    .await;
    (app, inbox)
}

impl TestApp {
    async fn otp(&self, body: Value) -> common::auth::Reply {
        self.send(self.auth(Method::POST, "/otp").json(&body)).await
    }

    async fn verify_phone(&self, phone: &str, token: &str, kind: &str) -> common::auth::Reply {
        let body = json!({"phone": phone, "token": token, "type": kind});
        self.send(self.auth(Method::POST, "/verify").json(&body)).await
    }
}

fn amr_method(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("payload");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64");
    serde_json::from_slice::<Value>(&bytes).expect("claims")["amr"][0]["method"].clone()
}

/// (provider, phone as the stand-in receives it, message id)
#[tokio::test]
async fn each_provider_sends_the_code_that_signs_the_phone_in() {
    let cases = [
        (SmsProvider::Twilio, "+15551230001", "SM1"),
        (SmsProvider::TwilioVerify, "+15551230001", "VE1"),
        (SmsProvider::Messagebird, "15551230001", "mb1"),
        (SmsProvider::Textlocal, "15551230001", "1"),
        (SmsProvider::Vonage, "15551230001", "v1"),
    ];
    for (provider, to, message_id) in cases {
        let (app, inbox) = phone_app(provider, |_| {}).await;
        let reply = app.otp(json!({"phone": "+1 555 123 0001", "channel": "sms"})).await;
        assert_eq!(reply.status, 200, "{provider:?} {:?}", reply.body);
        assert_eq!(reply.body["message_id"], message_id, "{provider:?}");
        let sent = inbox.all();
        assert_eq!(sent.len(), 1, "{provider:?}");
        assert_eq!(sent[0].to, to, "{provider:?}");
        let code = inbox.last_code();
        if provider != SmsProvider::TwilioVerify {
            assert_eq!(sent[0].text, format!("Your code is {code}"), "{provider:?}");
            assert_eq!(code.len(), 6);
        }

        let session = app.verify_phone("+15551230001", &code, "sms").await;
        assert_eq!(session.status, 200, "{provider:?} {:?}", session.body);
        assert_eq!(session.body["user"]["phone"], "15551230001");
        assert!(session.body["user"]["phone_confirmed_at"].is_string(), "{provider:?}");
        assert_eq!(amr_method(access_token(&session.body)), "otp");
        // A confirmed phone signs in with a fresh code the same way.
        assert_eq!(app.otp(json!({"phone": "+15551230001"})).await.status, 200);
        let again = app.verify_phone("15551230001", &inbox.last_code(), "sms").await;
        assert_eq!(again.status, 200, "{provider:?} {:?}", again.body);
        assert_eq!(again.body["user"]["id"], session.body["user"]["id"]);
    }
}

#[tokio::test]
async fn twilio_sends_whatsapp_when_asked() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |_| {}).await;
    assert_eq!(app.otp(json!({"phone": "+15551230002", "channel": "whatsapp"})).await.status, 200);
    let sent = inbox.all();
    assert_eq!((sent[0].to.as_str(), sent[0].channel.as_str()), ("whatsapp:+15551230002", "whatsapp"));
}

#[tokio::test]
async fn wrong_expired_and_used_codes_are_refused() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |_| {}).await;
    app.otp(json!({"phone": "+15551230003"})).await;
    let code = inbox.last_code();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let refused = app.verify_phone("+15551230003", wrong, "sms").await;
    assert_eq!((refused.status, refused.code()), (403, "otp_expired"));
    assert_eq!(refused.body["msg"], "Token has expired or is invalid");
    assert_eq!(app.verify_phone("+15551230003", &code, "sms").await.status, 200);
    let reused = app.verify_phone("+15551230003", &code, "sms").await;
    assert_eq!((reused.status, reused.code()), (403, "otp_expired"));

    app.otp(json!({"phone": "+15551230003"})).await;
    let code = inbox.last_code();
    app.admin()
        .await
        .batch_execute("update auth.users set recovery_sent_at = now() - interval '61 seconds'")
        .await
        .expect("age the code");
    let expired = app.verify_phone("+15551230003", &code, "sms").await;
    assert_eq!((expired.status, expired.code()), (403, "otp_expired"));
}

#[tokio::test]
async fn a_phone_sign_up_waits_for_its_code() {
    let (app, inbox) = phone_app(SmsProvider::Vonage, |_| {}).await;
    let signup = json!({"phone": "+15551230004", "password": "pw123456"});
    let reply = app.send(app.auth(Method::POST, "/signup").json(&signup)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body["confirmation_sent_at"].is_string(), "{:?}", reply.body);
    assert!(reply.body["phone_confirmed_at"].is_null());
    let grant = json!({"phone": "+15551230004", "password": "pw123456"});
    let early = app.send(app.auth(Method::POST, "/token?grant_type=password").json(&grant)).await;
    assert_eq!(early.code(), "phone_not_confirmed");

    let confirmed = app.verify_phone("+15551230004", &inbox.last_code(), "sms").await;
    assert_eq!(confirmed.status, 200, "{:?}", confirmed.body);
    let tokens =
        app.admin().await.query("select token_type::text, relates_to from auth.one_time_tokens", &[]).await;
    assert!(tokens.expect("one_time_tokens").is_empty());
    let signed_in = app.send(app.auth(Method::POST, "/token?grant_type=password").json(&grant)).await;
    assert_eq!(signed_in.status, 200, "{:?}", signed_in.body);
    assert_eq!(signed_in.body["user"]["identities"][0]["identity_data"]["phone_verified"], true);
}

#[tokio::test]
async fn a_phone_change_is_confirmed_by_the_code_sent_to_the_new_number() {
    let (app, inbox) = phone_app(SmsProvider::Messagebird, |_| {}).await;
    app.confirmed_user("ana@example.com", "pw123456").await;
    let session = app.sign_in("ana@example.com", "pw123456").await;
    let change =
        app.as_user(Method::PUT, "/user", access_token(&session)).json(&json!({"phone": "+15551230005"}));
    let reply = app.send(change).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["phone"], "");
    assert_eq!(reply.body["new_phone"], "15551230005", "{:?}", reply.body);
    assert_eq!(inbox.all()[0].to, "15551230005");
    let pending = app
        .admin()
        .await
        .query_one("select relates_to from auth.one_time_tokens where token_type = 'phone_change_token'", &[])
        .await;
    assert_eq!(pending.expect("a phone change token").get::<_, String>(0), "15551230005");

    let verified = app.verify_phone("+15551230005", &inbox.last_code(), "phone_change").await;
    assert_eq!(verified.status, 200, "{:?}", verified.body);
    assert_eq!(verified.body["user"]["phone"], "15551230005");
    assert_eq!(verified.body["user"]["email"], "ana@example.com");
    let providers = &verified.body["user"]["app_metadata"]["providers"];
    assert_eq!(providers, &json!(["email", "phone"]));

    // The number is taken now.
    app.confirmed_user("bea@example.com", "pw123456").await;
    let other = app.sign_in("bea@example.com", "pw123456").await;
    let taken =
        app.as_user(Method::PUT, "/user", access_token(&other)).json(&json!({"phone": "15551230005"}));
    assert_eq!(app.send(taken).await.code(), "phone_exists");
}

#[tokio::test]
async fn codes_are_paced_per_user_and_counted_per_hour() {
    let (app, inbox) = phone_app(SmsProvider::Textlocal, |auth| {
        auth.sms.max_frequency = 60;
        auth.sms.rate_limit_sms_sent = 2;
    })
    .await;
    assert_eq!(app.otp(json!({"phone": "+15551230006"})).await.status, 200);
    let soon = app.otp(json!({"phone": "+15551230006"})).await;
    assert_eq!((soon.status, soon.code()), (429, "over_sms_send_rate_limit"));
    assert!(
        soon.body["msg"].as_str().is_some_and(|m| m.starts_with("For security purposes")),
        "{:?}",
        soon.body
    );
    let resend = app
        .send(app.auth(Method::POST, "/resend").json(&json!({"type": "sms", "phone": "+15551230006"})))
        .await;
    assert_eq!((resend.status, resend.code()), (429, "over_sms_send_rate_limit"));

    assert_eq!(app.otp(json!({"phone": "+15551230007"})).await.status, 200);
    let over = app.otp(json!({"phone": "+15551230008"})).await;
    assert_eq!((over.status, over.code()), (429, "over_sms_send_rate_limit"));
    assert_eq!(over.body["msg"], "SMS rate limit exceeded");
    assert_eq!(inbox.all().len(), 2);
}

#[tokio::test]
async fn resend_sends_the_pending_code_again() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |_| {}).await;
    let signup = json!({"phone": "+15551230009", "password": "pw123456"});
    assert_eq!(app.send(app.auth(Method::POST, "/signup").json(&signup)).await.status, 200);
    let resend = json!({"type": "sms", "phone": "+15551230009"});
    let reply = app.send(app.auth(Method::POST, "/resend").json(&resend)).await;
    assert_eq!((reply.status, &reply.body["message_id"]), (200, &json!("SM1")));
    assert_eq!(inbox.all().len(), 2);
    // Only the newest code works.
    assert_eq!(app.verify_phone("+15551230009", &inbox.last_code(), "sms").await.status, 200);
    // Nothing pending: the same answer, nothing sent.
    let nothing = app.send(app.auth(Method::POST, "/resend").json(&resend)).await;
    assert_eq!(nothing.status, 200);
    assert_eq!(inbox.all().len(), 2);
}

#[tokio::test]
async fn a_test_otp_is_accepted_and_never_sent() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |auth| {
        auth.sms.test_otp = Some("+15551230010:123456".parse().expect("test otps"));
    })
    .await;
    let reply = app.otp(json!({"phone": "+15551230010"})).await;
    assert_eq!((reply.status, &reply.body["message_id"]), (200, &json!("test-otp")));
    assert!(inbox.all().is_empty());
    let session = app.verify_phone("+15551230010", "123456", "sms").await;
    assert_eq!(session.status, 200, "{:?}", session.body);
}

#[tokio::test]
async fn the_send_sms_hook_function_gets_the_user_and_the_code() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |auth| {
        auth.sms.hook_enabled = true;
        auth.sms.hook_uri = Some("pg-functions://postgres/public/send_sms".parse().expect("uri"));
    })
    .await;
    app.admin()
        .await
        .batch_execute(
            "create table public.outbox (phone text, otp text);
             create function public.send_sms(event jsonb) returns jsonb language plpgsql as $$
             begin
               if event->'user'->>'phone' = '15550000000' then
                 return jsonb_build_object('error', jsonb_build_object('http_code', 400, 'message', 'no such number'));
               end if;
               insert into public.outbox values (event->'user'->>'phone', event->'sms'->>'otp');
               return '{}';
             end $$;
             grant execute on function public.send_sms(jsonb) to service_role;
             grant insert on public.outbox to service_role;",
        )
        .await
        .expect("hook");
    assert_eq!(app.otp(json!({"phone": "+15551230011"})).await.status, 200);
    assert!(inbox.all().is_empty());
    let row = app.admin().await.query_one("select phone, otp from public.outbox", &[]).await.expect("outbox");
    assert_eq!(row.get::<_, String>(0), "15551230011");
    let session = app.verify_phone("+15551230011", &row.get::<_, String>(1), "sms").await;
    assert_eq!(session.status, 200, "{:?}", session.body);

    let refused = app.otp(json!({"phone": "+15550000000"})).await;
    assert_eq!((refused.status, refused.body["msg"].as_str()), (400, Some("no such number")));
}

#[tokio::test]
async fn the_send_sms_hook_over_http_is_signed() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |auth| auth.sms.hook_enabled = true).await;
    assert_eq!(app.otp(json!({"phone": "+15551230012"})).await.status, 200);
    let sent = inbox.all();
    assert_eq!((sent.len(), sent[0].channel.as_str(), sent[0].to.as_str()), (1, "hook", "15551230012"));
    let session = app.verify_phone("+15551230012", &sent[0].text, "sms").await;
    assert_eq!(session.status, 200, "{:?}", session.body);

    let (app, _) = phone_app(SmsProvider::Twilio, |auth| {
        auth.sms.hook_enabled = true;
        auth.sms.hook_secrets = Some("v1,whsec_d3Jvbmc=".parse().expect("secret"));
    })
    .await;
    let refused = app.otp(json!({"phone": "+15551230013"})).await;
    assert_eq!((refused.status, refused.body["msg"].as_str()), (401, Some("bad signature")));
}

#[tokio::test]
async fn a_provider_refusal_is_sms_send_failed_and_undoes_the_sign_up() {
    let (app, inbox) = phone_app(SmsProvider::Twilio, |_| {}).await;
    inbox.refuse();
    let signup = json!({"phone": "+15551230014", "password": "pw123456"});
    let reply = app.send(app.auth(Method::POST, "/signup").json(&signup)).await;
    assert_eq!((reply.status, reply.code()), (422, "sms_send_failed"), "{:?}", reply.body);
    assert!(
        reply.body["msg"].as_str().is_some_and(|m| m.contains("The 'To' number is not valid.")),
        "{:?}",
        reply.body
    );
    let users = app.admin().await.query("select 1 from auth.users", &[]).await.expect("users");
    assert!(users.is_empty());
}

/// (change to the settings, request body, status, code)
type Refusal = (fn(&mut AuthConfig), Value, u16, &'static str);

#[tokio::test]
async fn bad_numbers_and_disabled_phones_are_refused_as_gotrue_refuses_them() {
    let cases: [Refusal; 5] = [
        (|_| {}, json!({"phone": "12ab5678"}), 400, "validation_failed"),
        (|a| a.sms.phone_enabled = false, json!({"phone": "+15551230015"}), 422, "phone_provider_disabled"),
        (|_| {}, json!({"phone": "+15551230015", "create_user": false}), 422, "otp_disabled"),
        (
            |a| a.sms.provider = Some(SmsProvider::Vonage),
            json!({"phone": "+15551230015", "channel": "whatsapp"}),
            400,
            "validation_failed",
        ),
        (|a| a.sms.provider = None, json!({"phone": "+15551230015"}), 400, "sms_send_failed"),
    ];
    for (change, body, status, code) in cases {
        let (app, _) = phone_app(SmsProvider::Twilio, change).await;
        let reply = app.otp(body.clone()).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{body} {:?}", reply.body);
    }
}
