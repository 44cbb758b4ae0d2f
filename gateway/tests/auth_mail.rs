//! The e-mail flows of `/auth/v1` against a real SMTP
//! server on loopback (`common::smtp`): every mail is read back and its link
//! or code completes the flow, as a user would.

mod common;

use reqwest::Method;
use reqwest::redirect::Policy;
use serde_json::{Value, json};

use common::TestApp;
use common::auth::{access_token, spawn_auth_app};
use common::smtp::Sink;
use gateway::auth::AuthConfig;
use gateway::auth::mail::config::SmtpTls;

const SITE: &str = "http://localhost:5173";

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

/// Follows a mailed link to this gateway without following its redirect:
/// the `Location` it answers with.
async fn open_link(app: &TestApp, link: &str) -> String {
    let query = link.split_once("/verify?").expect("a /verify link").1;
    let client = reqwest::Client::builder().redirect(Policy::none()).build().expect("client");
    let response =
        client.get(format!("{}/auth/v1/verify?{query}", app.address)).send().await.expect("verify");
    assert_eq!(response.status(), 303);
    response.headers()["location"].to_str().expect("location").to_owned()
}

fn fragment(location: &str) -> Value {
    let fragment = location.split_once('#').map_or("", |(_, f)| f);
    let pairs: serde_json::Map<String, Value> =
        form_urlencoded::parse(fragment.as_bytes()).map(|(k, v)| (k.into_owned(), json!(v))).collect();
    Value::Object(pairs)
}

fn amr_of(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("payload");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64");
    serde_json::from_slice::<Value>(&bytes).expect("claims")["amr"][0]["method"].clone()
}

#[tokio::test]
async fn a_signup_is_confirmed_by_its_mailed_link_once() {
    let (app, sink) = mail_app(|_| {}).await;
    let reply = app
        .send(app.auth(Method::POST, "/signup?redirect_to=http%3A%2F%2Fapp.example%2Fwelcome").json(&json!({
            "email": "nueva@example.com", "password": "pw123456"
        })))
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body["confirmation_sent_at"].is_string());
    assert_eq!(app.password_grant("nueva@example.com", "pw123456").await.code(), "email_not_confirmed");

    let mail = sink.nth_to("nueva@example.com", 0).await;
    assert_eq!(mail.subject(), "Confirma tu registro");
    let link = mail.link();
    assert!(
        link.contains("type=signup") && link.contains("redirect_to=http%3A%2F%2Fapp.example%2Fwelcome"),
        "{link}"
    );
    assert_eq!(mail.code().len(), 6, "{}", mail.body());

    let location = open_link(&app, &link).await;
    assert!(location.starts_with("http://app.example/welcome#"), "{location}");
    let session = fragment(&location);
    assert_eq!(session["type"], "signup");
    assert_eq!(session["token_type"], "bearer");
    assert_eq!(amr_of(session["access_token"].as_str().expect("token")), "email/signup");
    let user =
        app.send(app.as_user(Method::GET, "/user", session["access_token"].as_str().expect("token"))).await;
    assert!(user.body["email_confirmed_at"].is_string());
    assert_eq!(app.password_grant("nueva@example.com", "pw123456").await.status, 200);

    let again = fragment(&open_link(&app, &link).await);
    assert_eq!(again["error"], "access_denied");
    assert_eq!(again["error_code"], "otp_expired");
    assert_eq!(again["error_description"], "Email link is invalid or has expired");
}

#[tokio::test]
async fn a_mailed_code_signs_in_once_through_post_verify() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let reply = app
        .send(app.auth(Method::POST, "/otp").json(&json!({"email": "ana@example.com", "create_user": false})))
        .await;
    assert_eq!((reply.status, &reply.body), (200, &json!({})));
    let mail = sink.nth_to("ana@example.com", 0).await;
    assert_eq!(mail.subject(), "Tu enlace de acceso");
    let code = mail.code();
    assert_eq!(code.len(), 6, "{}", mail.body());

    let verify = json!({"type": "email", "email": "ana@example.com", "token": code});
    let reply = app.send(app.auth(Method::POST, "/verify").json(&verify)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(amr_of(access_token(&reply.body)), "otp");
    assert_eq!(reply.body["user"]["email"], "ana@example.com");

    let reply = app.send(app.auth(Method::POST, "/verify").json(&verify)).await;
    assert_eq!((reply.status, reply.code()), (403, "otp_expired"));
    assert_eq!(reply.body["msg"], "Token has expired or is invalid");
}

#[tokio::test]
async fn otp_for_a_new_address_creates_the_user_and_mails_the_confirmation() {
    let (app, sink) = mail_app(|_| {}).await;
    let reply = app.send(app.auth(Method::POST, "/otp").json(&json!({"email": "new@example.com"}))).await;
    assert_eq!((reply.status, &reply.body), (200, &json!({})));
    let mail = sink.nth_to("new@example.com", 0).await;
    let reply = app
        .send(
            app.auth(Method::POST, "/verify")
                .json(&json!({"type": "email", "email": "new@example.com", "token": mail.code()})),
        )
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body["user"]["email_confirmed_at"].is_string());
}

#[tokio::test]
async fn recovery_and_otp_answer_alike_whether_or_not_the_address_has_an_account() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("known@example.com", "s3cret-pw").await;
    // (path, body for the known address, body for an unknown one)
    let cases = [
        ("/recover", json!({"email": "known@example.com"}), json!({"email": "nobody@example.com"})),
        ("/otp", json!({"email": "known@example.com"}), json!({"email": "nobody@example.com"})),
    ];
    for (n, (path, known, unknown)) in cases.into_iter().enumerate() {
        let a = app.send(app.auth(Method::POST, path).json(&known)).await;
        let b = app.send(app.auth(Method::POST, path).json(&unknown)).await;
        assert_eq!((a.status, &a.body), (b.status, &b.body), "{path}");
        assert_eq!((a.status, &a.body), (200, &json!({})), "{path}");
        sink.nth_to("known@example.com", n).await;
    }
    // `/otp` made the unknown address an unconfirmed user and mailed it the
    // confirmation; `/recover` mailed nobody. Mails leave in the background:
    // the confirmation is awaited before counting.
    sink.nth_to("nobody@example.com", 0).await;
    assert_eq!(sink.count_to("nobody@example.com"), 1);
}

#[tokio::test]
async fn otp_without_creating_users_refuses_an_unknown_address_as_gotrue_does() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("known@example.com", "s3cret-pw").await;
    let known = app
        .send(
            app.auth(Method::POST, "/otp").json(&json!({"email": "known@example.com", "create_user": false})),
        )
        .await;
    assert_eq!((known.status, &known.body), (200, &json!({})));
    let unknown = app
        .send(
            app.auth(Method::POST, "/otp")
                .json(&json!({"email": "nobody@example.com", "create_user": false})),
        )
        .await;
    assert_eq!((unknown.status, unknown.code()), (422, "otp_disabled"));
    assert_eq!(unknown.body["msg"], "Signups not allowed for otp");
    sink.nth_to("known@example.com", 0).await;
    assert_eq!(sink.count_to("nobody@example.com"), 0);
    let listed = app.send(app.as_service(Method::GET, "/admin/users")).await;
    assert_eq!(listed.body["users"].as_array().expect("users").len(), 1, "no user was created");
}

#[tokio::test]
async fn a_recovery_link_signs_in_with_the_recovery_method_and_a_password_can_then_change() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("olvido@example.com", "old-password").await;
    app.send(app.auth(Method::POST, "/recover").json(&json!({"email": "olvido@example.com"}))).await;
    let location = open_link(&app, &sink.nth_to("olvido@example.com", 0).await.link()).await;
    let session = fragment(&location);
    assert!(location.starts_with(SITE), "{location}");
    assert_eq!(session["type"], "recovery");
    let token = session["access_token"].as_str().expect("token");
    assert_eq!(amr_of(token), "recovery");
    let reply =
        app.send(app.as_user(Method::PUT, "/user", token).json(&json!({"password": "new-password"}))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(app.password_grant("olvido@example.com", "new-password").await.status, 200);
}

#[tokio::test]
async fn redirects_go_only_to_the_site_or_the_allow_list() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("r@example.com", "s3cret-pw").await;
    // (redirect_to asked for, where the link lands)
    let cases = [
        ("https://evil.example/steal", SITE),
        ("http://app.example.evil.example/", SITE),
        ("http://app.example/ok", "http://app.example/ok"),
        ("http://localhost:5173/cuenta", "http://localhost:5173/cuenta"),
    ];
    for (n, (wanted, lands)) in cases.into_iter().enumerate() {
        let path = format!(
            "/recover?redirect_to={}",
            form_urlencoded::byte_serialize(wanted.as_bytes()).collect::<String>()
        );
        app.send(app.auth(Method::POST, &path).json(&json!({"email": "r@example.com"}))).await;
        let location = open_link(&app, &sink.nth_to("r@example.com", n).await.link()).await;
        assert!(location.starts_with(&format!("{lands}#")), "{wanted}: {location}");
    }
}

#[tokio::test]
async fn expired_links_and_codes_fail_with_otp_expired() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("tarde@example.com", "s3cret-pw").await;
    app.send(app.auth(Method::POST, "/recover").json(&json!({"email": "tarde@example.com"}))).await;
    let mail = sink.nth_to("tarde@example.com", 0).await;
    let admin = app.admin().await;
    admin
        .execute("update auth.users set recovery_sent_at = now() - interval '2 hours' where email = 'tarde@example.com'", &[])
        .await
        .expect("age the token");
    let reply = app
        .send(
            app.auth(Method::POST, "/verify")
                .json(&json!({"type": "recovery", "email": "tarde@example.com", "token": mail.code()})),
        )
        .await;
    assert_eq!((reply.status, reply.code()), (403, "otp_expired"));
    let error = fragment(&open_link(&app, &mail.link()).await);
    assert_eq!(error["error_code"], "otp_expired");
}

#[tokio::test]
async fn guessing_codes_is_limited_per_address() {
    let (app, _sink) = mail_app(|auth| auth.mail.rate_limit_verify = 3).await;
    let guess = json!({"type": "email", "email": "x@example.com", "token": "000000"});
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(app.send(app.auth(Method::POST, "/verify").json(&guess)).await.status);
    }
    assert_eq!(statuses, [403, 403, 403, 429]);
}

#[tokio::test]
async fn mails_to_one_address_are_paced_with_gotrues_message() {
    let (app, sink) = mail_app(|auth| auth.mail.smtp_max_frequency = 60).await;
    app.confirmed_user("p@example.com", "s3cret-pw").await;
    for email in ["p@example.com", "unknown@example.com"] {
        let first = app.send(app.auth(Method::POST, "/recover").json(&json!({"email": email}))).await;
        assert_eq!(first.status, 200);
        let second = app.send(app.auth(Method::POST, "/recover").json(&json!({"email": email}))).await;
        assert_eq!((second.status, second.code()), (429, "over_email_send_rate_limit"), "{email}");
        let message = second.body["msg"].as_str().expect("message");
        assert!(message.starts_with("For security purposes, you can only request this after "), "{message}");
    }
    sink.nth_to("p@example.com", 0).await;
}

#[tokio::test]
async fn an_email_change_needs_both_addresses_to_confirm() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("viejo@example.com", "s3cret-pw").await;
    let session = app.sign_in("viejo@example.com", "s3cret-pw").await;
    let reply = app
        .send(
            app.as_user(Method::PUT, "/user", access_token(&session))
                .json(&json!({"email": "nuevo@example.com"})),
        )
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["email"], "viejo@example.com");
    assert_eq!(reply.body["new_email"], "nuevo@example.com");
    let old = sink.nth_to("viejo@example.com", 0).await;
    let new = sink.nth_to("nuevo@example.com", 0).await;
    assert_ne!(old.link(), new.link());

    let first = fragment(&open_link(&app, &old.link()).await);
    assert_eq!(
        first["message"],
        "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    );
    let reply = app
        .send(
            app.auth(Method::POST, "/verify")
                .json(&json!({"type": "email_change", "email": "nuevo@example.com", "token": new.code()})),
        )
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["user"]["email"], "nuevo@example.com");
    assert_eq!(amr_of(access_token(&reply.body)), "email_change");
    assert_eq!(app.password_grant("nuevo@example.com", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn a_password_change_can_require_the_mailed_nonce() {
    let (app, sink) = mail_app(|auth| auth.mail.secure_password_change = true).await;
    app.confirmed_user("n@example.com", "s3cret-pw").await;
    let session = app.sign_in("n@example.com", "s3cret-pw").await;
    let token = access_token(&session);
    let change = |nonce: Option<&str>| json!({"password": "other-pw", "nonce": nonce});
    let reply = app.send(app.as_user(Method::PUT, "/user", token).json(&change(None))).await;
    assert_eq!((reply.status, reply.code()), (400, "reauthentication_needed"));
    let reply = app.send(app.as_user(Method::GET, "/reauthenticate", token)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let nonce = sink.nth_to("n@example.com", 0).await.code();
    let reply = app.send(app.as_user(Method::PUT, "/user", token).json(&change(Some("999999")))).await;
    assert_eq!((reply.status, reply.code()), (422, "reauthentication_not_valid"));
    let reply = app.send(app.as_user(Method::PUT, "/user", token).json(&change(Some(&nonce)))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let reply = app.send(app.as_user(Method::PUT, "/user", token).json(&change(Some(&nonce)))).await;
    assert_eq!(reply.code(), "reauthentication_not_valid", "a nonce is used once");
}

#[tokio::test]
async fn generated_links_carry_gotrues_properties_and_sign_in() {
    let (app, sink) = mail_app(|_| {}).await;
    app.confirmed_user("g@example.com", "s3cret-pw").await;
    let body = json!({"type": "magiclink", "email": "g@example.com", "redirect_to": "https://evil.example"});
    let reply = app.send(app.as_service(Method::POST, "/admin/generate_link").json(&body)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    for key in ["action_link", "email_otp", "hashed_token", "verification_type", "redirect_to"] {
        assert!(reply.body[key].is_string(), "{key}: {:?}", reply.body);
    }
    assert_eq!(reply.body["verification_type"], "magiclink");
    assert_eq!(reply.body["redirect_to"], SITE);
    assert_eq!(reply.body["email"], "g@example.com");
    let verify = json!({"type": "magiclink", "token_hash": reply.body["hashed_token"]});
    let session = app.send(app.auth(Method::POST, "/verify").json(&verify)).await;
    assert_eq!(session.status, 200, "{:?}", session.body);
    assert_eq!(amr_of(access_token(&session.body)), "magiclink");
    assert_eq!(sink.count_to("g@example.com"), 0, "generate_link sends nothing");
    let anon = app.send(app.auth(Method::POST, "/admin/generate_link").json(&body)).await;
    assert_eq!(anon.status, 403);
    let signup = json!({"type": "signup", "email": "new@example.com", "password": "s3cret-pw", "data": {"plan": "alpha"}});
    let reply = app.send(app.as_service(Method::POST, "/admin/generate_link").json(&signup)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["user_metadata"], json!({"plan": "alpha"}), "the data as given, nothing merged in");
}

#[tokio::test]
async fn an_invited_user_accepts_through_the_mailed_link() {
    let (app, sink) = mail_app(|_| {}).await;
    let reply = app
        .send(
            app.as_service(Method::POST, "/invite")
                .json(&json!({"email": "inv@example.com", "data": {"rol": "editor"}})),
        )
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert!(reply.body["invited_at"].is_string());
    assert_eq!(reply.body["user_metadata"], json!({"rol": "editor"}), "the data as given, nothing merged in");
    let mail = sink.nth_to("inv@example.com", 0).await;
    assert_eq!(mail.subject(), "Te han invitado");
    let session = fragment(&open_link(&app, &mail.link()).await);
    assert_eq!(session["type"], "invite");
    assert_eq!(amr_of(session["access_token"].as_str().expect("token")), "invite");
}

#[tokio::test]
async fn resend_mails_the_pending_confirmation_again() {
    let (app, sink) = mail_app(|_| {}).await;
    app.send(
        app.auth(Method::POST, "/signup").json(&json!({"email": "re@example.com", "password": "pw123456"})),
    )
    .await;
    let first = sink.nth_to("re@example.com", 0).await;
    let reply = app
        .send(app.auth(Method::POST, "/resend").json(&json!({"type": "signup", "email": "re@example.com"})))
        .await;
    assert_eq!((reply.status, &reply.body), (200, &json!({})));
    let second = sink.nth_to("re@example.com", 1).await;
    assert_ne!(first.link(), second.link());
    assert_eq!(
        fragment(&open_link(&app, &first.link()).await)["error_code"],
        "otp_expired",
        "the old link is replaced"
    );
    assert_eq!(fragment(&open_link(&app, &second.link()).await)["type"], "signup");
}

#[tokio::test]
async fn english_templates_and_files_replace_the_spanish_defaults() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("recovery.html"),
        "Subject: Cambia tu clave\n<a href=\"{{ .ConfirmationURL }}\">x</a> {{ .Token }}",
    )
    .expect("template");
    let path = dir.path().to_owned();
    let (app, sink) = mail_app(|auth| {
        auth.mail.mailer_language = gateway::auth::mail::config::MailLanguage::En;
        auth.mail.mailer_templates_dir = Some(path);
    })
    .await;
    app.confirmed_user("t@example.com", "s3cret-pw").await;
    app.send(app.auth(Method::POST, "/recover").json(&json!({"email": "t@example.com"}))).await;
    // Wait for the first mail before asking for the second: the sink records mails in the order
    // their deliveries finish, which two quick requests need not keep.
    let recovery = sink.nth_to("t@example.com", 0).await;
    app.send(app.auth(Method::POST, "/otp").json(&json!({"email": "t@example.com"}))).await;
    assert_eq!(recovery.subject(), "Cambia tu clave");
    assert!(recovery.link().contains("type=recovery"));
    assert_eq!(sink.nth_to("t@example.com", 1).await.subject(), "Your Magic Link");
}

#[tokio::test]
async fn a_signup_whose_mail_cannot_be_sent_is_undone_and_says_nothing_inside() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port").local_addr().expect("addr").port();
    let (app, _sink) = mail_app(|auth| auth.mail.smtp_port = closed).await;
    let body = json!({"email": "sin-correo@example.com", "password": "pw123456"});
    let reply = app.send(app.auth(Method::POST, "/signup").json(&body)).await;
    assert_eq!(reply.status, 500);
    let text = reply.body.to_string().to_lowercase();
    assert!(!text.contains("refused") && !text.contains("smtp") && !text.contains("127.0.0.1"), "{text}");
    let listed = app.send(app.as_service(Method::GET, "/admin/users")).await;
    assert_eq!(listed.body["users"], json!([]), "the user is not kept");
}

#[tokio::test]
async fn without_secure_change_only_the_new_address_confirms() {
    let (app, sink) = mail_app(|auth| auth.mail.secure_email_change_enabled = false).await;
    app.confirmed_user("uno@example.com", "s3cret-pw").await;
    let session = app.sign_in("uno@example.com", "s3cret-pw").await;
    let change = json!({"email": "dos@example.com"});
    let reply = app.send(app.as_user(Method::PUT, "/user", access_token(&session)).json(&change)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let landed = fragment(&open_link(&app, &sink.nth_to("dos@example.com", 0).await.link()).await);
    assert_eq!(landed["type"], "email_change");
    assert_eq!(sink.count_to("uno@example.com"), 0, "the old address gets no link");
    assert_eq!(app.password_grant("dos@example.com", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn a_phone_code_is_never_valid_without_sms_and_a_malformed_number_is_refused_first() {
    let (app, _sink) = mail_app(|_| {}).await;
    let cases = [
        ("12", 400, "validation_failed", "Invalid phone number format (E.164 required)"),
        ("+15555550100", 403, "otp_expired", "Token has expired or is invalid"),
    ];
    for (phone, status, code, message) in cases {
        let body = json!({"type": "sms", "phone": phone, "token": "123456"});
        let reply = app.send(app.auth(Method::POST, "/verify").json(&body)).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{phone}: {:?}", reply.body);
        assert_eq!(reply.body["msg"], message, "{phone}");
    }
}
