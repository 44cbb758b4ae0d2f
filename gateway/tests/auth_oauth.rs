//! Sign-in through an OpenID Connect provider, against a real one on loopback
//! (`common::oidc`): `signInWithOAuth` with PKCE and without, the callback,
//! `exchangeCodeForSession`, `signInWithIdToken`, identity linking, and the
//! attacks on each (forged, reused and expired states, wrong verifiers,
//! reused codes, forged ID tokens, open redirects).

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::{Method, Url};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};
use common::oidc::{CLIENT_ID, Person, Provider, keys};

const SITE: &str = "http://shop.example.com";

async fn app_with(provider: &Provider, linking: bool) -> TestApp {
    spawn_auth_app(|auth| {
        auth.oidc_providers = vec![provider.config("corp")];
        auth.site_url = Some(SITE.to_owned());
        auth.manual_linking_enabled = linking;
    })
    .await
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client")
}

async fn location(response: reqwest::Response) -> (u16, Url) {
    let status = response.status().as_u16();
    let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let Some(text) = location else {
        panic!("no Location ({status}): {:?}", response.text().await);
    };
    (status, Url::parse(&text).expect("location URL"))
}

fn param(url: &Url, name: &str) -> Option<String> {
    url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

fn fragment_param(url: &Url, name: &str) -> Option<String> {
    form_urlencoded::parse(url.fragment().unwrap_or("").as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A PKCE verifier and its S256 challenge.
fn pkce() -> (String, String) {
    let verifier = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

/// `/authorize` then the provider: the callback URL the provider sends the
/// browser to (the gateway's `code` and `state`).
async fn to_provider(app: &TestApp, query: &str) -> Url {
    let (status, at_provider) = location(
        browser().get(format!("{}/auth/v1/authorize?{query}", app.address)).send().await.expect("authorize"),
    )
    .await;
    assert_eq!(status, 302);
    assert_eq!(param(&at_provider, "client_id").as_deref(), Some(CLIENT_ID));
    assert!(param(&at_provider, "nonce").is_some_and(|n| n.len() >= 43));
    let (status, callback) = location(browser().get(at_provider).send().await.expect("provider")).await;
    assert_eq!(status, 302);
    assert_eq!(callback.path(), "/auth/v1/callback", "{callback}");
    callback
}

/// Presents the provider's answer to the gateway's `/callback`, as the
/// browser would; returns where the gateway sends the browser.
async fn callback(app: &TestApp, query: &str) -> (u16, Url) {
    location(
        browser().get(format!("{}/auth/v1/callback?{query}", app.address)).send().await.expect("callback"),
    )
    .await
}

/// The whole browser part of `signInWithOAuth`: where the app lands.
async fn sign_in_flow(app: &TestApp, query: &str) -> Url {
    let back = to_provider(app, query).await;
    let (status, landed) = callback(app, back.query().unwrap_or("")).await;
    assert_eq!(status, 302, "{landed}");
    landed
}

async fn exchange(app: &TestApp, auth_code: &str, verifier: &str) -> Reply {
    let body = json!({"auth_code": auth_code, "code_verifier": verifier});
    app.send(app.auth(Method::POST, "/token?grant_type=pkce").json(&body)).await
}

fn claims_of(app: &TestApp, token: &str) -> Value {
    Value::Object(app.state.credentials.jwt.verify(token).expect("valid token").claims)
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn a_pkce_sign_in_creates_the_user_with_its_identity_and_the_code_buys_one_session() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let (verifier, challenge) = pkce();
    let query = format!(
        "provider=corp&redirect_to={}&code_challenge={challenge}&code_challenge_method=s256",
        encode("http://shop.example.com/welcome")
    );
    let landed = sign_in_flow(&app, &query).await;
    assert_eq!((landed.host_str(), landed.path()), (Some("shop.example.com"), "/welcome"));
    let code = param(&landed, "code").expect("auth code");

    let session = exchange(&app, &code, &verifier).await;
    assert_eq!(session.status, 200, "{:?}", session.body);
    assert_eq!(
        session.body["provider_token"].as_str().map(|t| t.starts_with("provider-access-")),
        Some(true)
    );
    let user = &session.body["user"];
    assert_eq!(user["email"], "oidc.user@example.com");
    assert_eq!(user["app_metadata"], json!({"provider": "corp", "providers": ["corp"]}));
    let identity = &user["identities"][0];
    assert_eq!(
        (identity["provider"].as_str(), identity["id"].as_str()),
        (Some("corp"), Some("provider-user-1"))
    );
    assert_eq!(identity["identity_data"]["email_verified"], true);
    assert_eq!(identity["identity_data"]["full_name"], "Olga Idc");
    let claims = claims_of(&app, access_token(&session.body));
    assert_eq!(claims["amr"][0]["method"], "oauth");
    let me = app.send(app.as_user(Method::GET, "/user", access_token(&session.body))).await;
    assert_eq!((me.status, &me.body["id"]), (200, &user["id"]));

    // The same code again, even with its verifier: gone.
    let again = exchange(&app, &code, &verifier).await;
    assert_eq!((again.status, again.code()), (404, "flow_state_not_found"));

    // Signing in again finds the same user through its identity.
    let (verifier, challenge) = pkce();
    let landed =
        sign_in_flow(&app, &format!("provider=corp&code_challenge={challenge}&code_challenge_method=S256"))
            .await;
    assert_eq!(landed.origin().ascii_serialization(), SITE, "no redirect_to: the site");
    let second = exchange(&app, &param(&landed, "code").expect("code"), &verifier).await;
    assert_eq!(second.body["user"]["id"], user["id"]);
    assert_eq!(second.body["user"]["identities"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn an_auth_code_needs_its_own_verifier_and_expires() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let (verifier, challenge) = pkce();
    let landed =
        sign_in_flow(&app, &format!("provider=corp&code_challenge={challenge}&code_challenge_method=s256"))
            .await;
    let code = param(&landed, "code").expect("code");
    // (auth_code, verifier, status, error code)
    let (other_verifier, _) = pkce();
    let cases = [
        ("", verifier.as_str(), 400, "validation_failed"),
        (code.as_str(), "", 400, "validation_failed"),
        (code.as_str(), other_verifier.as_str(), 400, "bad_code_verifier"),
        (challenge.as_str(), verifier.as_str(), 404, "flow_state_not_found"),
        ("made-up", verifier.as_str(), 404, "flow_state_not_found"),
    ];
    for (auth_code, code_verifier, status, error) in cases {
        let reply = exchange(&app, auth_code, code_verifier).await;
        assert_eq!((reply.status, reply.code()), (status, error), "{auth_code:?} {code_verifier:?}");
    }
    // A wrong verifier does not burn the code, but time does.
    app.admin()
        .await
        .batch_execute("update auth.flow_state set auth_code_issued_at = now() - interval '6 minutes'")
        .await
        .expect("age the flow");
    let late = exchange(&app, &code, &verifier).await;
    assert_eq!((late.status, late.code()), (422, "flow_state_expired"));
}

#[tokio::test]
async fn a_state_is_signed_works_once_and_expires() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let (_, challenge) = pkce();
    let query = format!("provider=corp&code_challenge={challenge}&code_challenge_method=s256");
    let back = to_provider(&app, &query).await;
    let state = param(&back, "state").expect("state");
    let code = param(&back, "code").expect("code");
    let (flow_id, mac) = state.split_once('.').expect("signed state");

    let forged_id = format!("{}.{mac}", uuid::Uuid::new_v4());
    let flipped_mac = format!("{flow_id}.{}", URL_SAFE_NO_PAD.encode([0u8; 32]));
    // (query, error_code) — each lands on the site URL, the flow untouched.
    let cases = [
        (format!("code={code}"), "bad_oauth_callback"),
        (format!("code={code}&state={flow_id}"), "bad_oauth_state"),
        (format!("code={code}&state={}", encode(&forged_id)), "bad_oauth_state"),
        (format!("code={code}&state={}", encode(&flipped_mac)), "bad_oauth_state"),
    ];
    for (query, error_code) in &cases {
        let (status, landed) = callback(&app, query).await;
        assert_eq!(status, 303, "{query}");
        assert_eq!(landed.origin().ascii_serialization(), SITE, "{query}");
        assert_eq!(param(&landed, "error_code").as_deref(), Some(*error_code), "{query}");
        assert_eq!(param(&landed, "error").as_deref(), Some("invalid_request"), "{query}");
    }
    assert_eq!(provider.token_requests(), 0, "nothing forged reached the provider");

    let (status, landed) = callback(&app, back.query().expect("query")).await;
    assert_eq!(status, 302);
    assert!(param(&landed, "code").is_some(), "{landed}");
    // Replaying the provider's answer: the state was used.
    let (status, replay) = callback(&app, back.query().expect("query")).await;
    assert_eq!((status, param(&replay, "error_code").as_deref()), (303, Some("flow_state_already_used")));
    assert_eq!(provider.token_requests(), 1);

    // A state older than five minutes.
    let stale = to_provider(&app, &query).await;
    app.admin()
        .await
        .batch_execute(
            "update auth.flow_state set created_at = now() - interval '6 minutes' where user_id is null",
        )
        .await
        .expect("age");
    let (_, landed) = callback(&app, stale.query().expect("query")).await;
    assert_eq!(param(&landed, "error_description").as_deref(), Some("OAuth state has expired"));
}

#[tokio::test]
async fn redirect_to_a_foreign_host_lands_on_the_site_url() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    for foreign in ["https://evil.example/steal", "http://shop.example.com.evil.example/", "//evil.example/x"]
    {
        let (_, challenge) = pkce();
        let query = format!(
            "provider=corp&redirect_to={}&code_challenge={challenge}&code_challenge_method=s256",
            encode(foreign)
        );
        let landed = sign_in_flow(&app, &query).await;
        assert_eq!(landed.origin().ascii_serialization(), SITE, "{foreign} → {landed}");
        assert!(param(&landed, "code").is_some());
    }
}

#[tokio::test]
async fn the_implicit_flow_puts_the_session_in_the_fragment() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let landed =
        sign_in_flow(&app, &format!("provider=corp&redirect_to={}", encode("http://shop.example.com/cb")))
            .await;
    assert_eq!(landed.path(), "/cb");
    let token = fragment_param(&landed, "access_token").expect("access token in the fragment");
    assert_eq!(claims_of(&app, &token)["email"], "oidc.user@example.com");
    for key in ["refresh_token", "expires_in", "expires_at", "provider_token"] {
        assert!(fragment_param(&landed, key).is_some(), "{key}: {landed}");
    }
    assert_eq!(fragment_param(&landed, "token_type").as_deref(), Some("bearer"));
    assert_eq!(landed.query(), None, "no token in the query, which servers log");
}

#[tokio::test]
async fn provider_errors_and_refusals_come_back_in_the_redirect() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    provider.deny(true);
    let landed =
        sign_in_flow(&app, &format!("provider=corp&redirect_to={}", encode("http://shop.example.com/cb")))
            .await;
    assert_eq!(landed.path(), "/cb");
    assert_eq!(param(&landed, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&landed, "error_description").as_deref(), Some("The user said no"));
    assert_eq!(fragment_param(&landed, "error").as_deref(), Some("access_denied"));
    provider.deny(false);

    // An address the provider has not verified, which a password user has.
    app.confirmed_user("taken@example.com", "s3cret-pw").await;
    provider.sign_in_as(Person {
        sub: "other".to_owned(),
        email: "taken@example.com".to_owned(),
        email_verified: false,
        name: "X".to_owned(),
    });
    let landed = sign_in_flow(&app, "provider=corp").await;
    assert_eq!(param(&landed, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&landed, "error_code").as_deref(), Some("provider_email_needs_verification"));

    // /authorize itself answers errors as JSON.
    let unknown = app.send(app.auth(Method::GET, "/authorize?provider=github")).await;
    assert_eq!(
        (unknown.status, unknown.code(), unknown.body["msg"].as_str()),
        (400, "validation_failed", Some("Unsupported provider: Provider github could not be found"))
    );
    let half = app.send(app.auth(Method::GET, "/authorize?provider=corp&code_challenge_method=s256")).await;
    assert_eq!((half.status, half.code()), (400, "validation_failed"));
}

#[tokio::test]
async fn a_verified_provider_address_joins_the_existing_account() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let id = app.confirmed_user("oidc.user@example.com", "s3cret-pw").await;
    let landed = sign_in_flow(&app, "provider=corp").await;
    let token = fragment_param(&landed, "access_token").expect("token");
    let claims = claims_of(&app, &token);
    assert_eq!(claims["sub"], id.as_str());
    assert_eq!(claims["app_metadata"]["providers"], json!(["corp", "email"]));
}

fn unsigned(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    format!("{header}.{}.", URL_SAFE_NO_PAD.encode(claims.to_string()))
}

#[tokio::test]
async fn sign_in_with_id_token_accepts_only_tokens_the_provider_signed_for_this_client() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let (key, stranger) = keys();
    let raw_nonce = "a-raw-nonce";
    let hashed = hex::encode(Sha256::digest(raw_nonce.as_bytes()));
    let good = provider.claims(None);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = good.clone();
        change(&mut claims);
        claims
    };
    let now = gateway::jwt::now();
    let tampered = {
        let token = key.sign(&good);
        let parts: Vec<&str> = token.split('.').collect();
        let evil = URL_SAFE_NO_PAD.encode(with(&|c| c["sub"] = json!("admin")).to_string());
        format!("{}.{evil}.{}", parts[0], parts[2])
    };
    let oauth = |description: &str| json!({"error": "invalid request", "error_description": description});
    // (what, body, status, expected body or error code)
    let cases: Vec<(&str, Value, u16, Value)> = vec![
        ("signed for us", json!({"provider": "corp", "id_token": key.sign(&good)}), 200, Value::Null),
        (
            "with its nonce",
            json!({"provider": "corp", "id_token": key.sign(&with(&|c| c["nonce"] = json!(hashed))), "nonce": raw_nonce}),
            200,
            Value::Null,
        ),
        (
            "another nonce",
            json!({"provider": "corp", "id_token": key.sign(&with(&|c| c["nonce"] = json!(hashed))), "nonce": "other"}),
            400,
            json!({"error": "invalid nonce", "error_description": "Nonces mismatch"}),
        ),
        (
            "a nonce the token lacks",
            json!({"provider": "corp", "id_token": key.sign(&good), "nonce": raw_nonce}),
            400,
            oauth("Passed nonce and nonce in id_token should either both exist or not."),
        ),
        (
            "another key",
            json!({"provider": "corp", "id_token": stranger.sign(&good)}),
            400,
            oauth("Bad ID token"),
        ),
        (
            "another issuer",
            json!({"provider": "corp", "id_token": key.sign(&with(&|c| c["iss"] = json!("https://evil.example")))}),
            400,
            oauth("Bad ID token"),
        ),
        (
            "another audience",
            json!({"provider": "corp", "id_token": key.sign(&with(&|c| c["aud"] = json!("someone-else")))}),
            400,
            oauth("Bad ID token"),
        ),
        (
            "expired",
            json!({"provider": "corp", "id_token": key.sign(&with(&|c| c["exp"] = json!(now - 600)))}),
            400,
            oauth("Bad ID token"),
        ),
        ("alg none", json!({"provider": "corp", "id_token": unsigned(&good)}), 400, oauth("Bad ID token")),
        ("a tampered payload", json!({"provider": "corp", "id_token": tampered}), 400, oauth("Bad ID token")),
        ("no token", json!({"provider": "corp"}), 400, oauth("id_token required")),
        (
            "no provider",
            json!({"id_token": key.sign(&good)}),
            400,
            oauth("provider or client_id and issuer required"),
        ),
        (
            "an unknown provider",
            json!({"provider": "nope", "id_token": key.sign(&good)}),
            400,
            json!("validation_failed"),
        ),
    ];
    for (what, body, status, expected) in cases {
        let reply = app.send(app.auth(Method::POST, "/token?grant_type=id_token").json(&body)).await;
        assert_eq!(reply.status, status, "{what}: {:?}", reply.body);
        match expected {
            Value::Null => {
                assert_eq!(reply.body["user"]["identities"][0]["provider"], "corp", "{what}");
                assert_eq!(claims_of(&app, access_token(&reply.body))["amr"][0]["method"], "oauth", "{what}");
            }
            Value::String(code) => assert_eq!(reply.code(), code, "{what}"),
            body => assert_eq!(reply.body, body, "{what}"),
        }
    }
}

#[tokio::test]
async fn settings_list_the_configured_providers() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let settings = app.send(app.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.body["external"]["corp"], true);
    assert_eq!(settings.body["external"]["github"], false);
}

#[tokio::test]
async fn linking_is_refused_while_off_and_links_and_unlinks_when_on() {
    let provider = Provider::start().await;
    let off = app_with(&provider, false).await;
    off.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = off.sign_in("ana@example.com", "s3cret-pw").await;
    for request in [
        off.as_user(Method::GET, "/user/identities/authorize?provider=corp", access_token(&session)),
        off.as_user(
            Method::DELETE,
            &format!("/user/identities/{}", uuid::Uuid::new_v4()),
            access_token(&session),
        ),
    ] {
        let reply = off.send(request).await;
        assert_eq!((reply.status, reply.code()), (404, "manual_linking_disabled"));
    }

    let app = app_with(&provider, true).await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = app.sign_in("ana@example.com", "s3cret-pw").await;
    let token = access_token(&session).to_owned();
    let (verifier, challenge) = pkce();
    let path = format!(
        "/user/identities/authorize?provider=corp&skip_http_redirect=true&code_challenge={challenge}&code_challenge_method=s256"
    );
    let reply = app.send(app.as_user(Method::GET, &path, &token)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let url = reply.body["url"].as_str().expect("url").to_owned();
    let (_, back) = location(browser().get(url).send().await.expect("provider")).await;
    let (_, landed) = callback(&app, back.query().expect("query")).await;
    let linked = exchange(&app, &param(&landed, "code").expect("code"), &verifier).await;
    assert_eq!(linked.status, 200, "{:?}", linked.body);
    assert_eq!(linked.body["user"]["email"], "ana@example.com");
    let identities = linked.body["user"]["identities"].as_array().expect("identities").clone();
    assert_eq!(identities.len(), 2);
    assert_eq!(linked.body["user"]["app_metadata"]["providers"], json!(["corp", "email"]));

    let corp = identities.iter().find(|i| i["provider"] == "corp").expect("corp identity");
    let email = identities.iter().find(|i| i["provider"] == "email").expect("email identity");
    let unlink = |id: &Value| {
        app.as_user(Method::DELETE, &format!("/user/identities/{}", id.as_str().unwrap_or("")), &token)
    };
    let done = app.send(unlink(&corp["identity_id"])).await;
    assert_eq!((done.status, &done.body), (200, &json!({})));
    let gone = app.send(unlink(&corp["identity_id"])).await;
    assert_eq!((gone.status, gone.code()), (422, "single_identity_not_deletable"));
    let last = app.send(unlink(&email["identity_id"])).await;
    assert_eq!((last.status, last.code()), (422, "single_identity_not_deletable"));
    let bad = app.send(app.as_user(Method::DELETE, "/user/identities/not-a-uuid", &token)).await;
    assert_eq!((bad.status, bad.code()), (404, "validation_failed"));
}

#[tokio::test]
async fn with_sign_ups_off_a_provider_signs_in_known_users_only() {
    let provider = Provider::start().await;
    let app = spawn_auth_app(|auth| {
        auth.oidc_providers = vec![provider.config("corp")];
        auth.site_url = Some(SITE.to_owned());
        auth.signup_enabled = false;
    })
    .await;
    let landed = sign_in_flow(&app, "provider=corp").await;
    assert_eq!(param(&landed, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&landed, "error_code").as_deref(), Some("signup_disabled"));
    let token = keys().0.sign(&provider.claims(None));
    let refused = app
        .send(
            app.auth(Method::POST, "/token?grant_type=id_token")
                .json(&json!({"provider": "corp", "id_token": token})),
        )
        .await;
    assert_eq!((refused.status, refused.code()), (422, "signup_disabled"));

    // An account with the provider's verified address exists: it signs in.
    app.confirmed_user("oidc.user@example.com", "s3cret-pw").await;
    let landed = sign_in_flow(&app, "provider=corp").await;
    assert!(fragment_param(&landed, "access_token").is_some(), "{landed}");
}

#[tokio::test]
async fn an_id_token_links_its_identity_to_the_bearer_when_linking_is_on() {
    let provider = Provider::start().await;
    let token = keys().0.sign(&provider.claims(None));
    let link = json!({"provider": "corp", "id_token": token, "link_identity": true});
    let off = app_with(&provider, false).await;
    off.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = off.sign_in("ana@example.com", "s3cret-pw").await;
    let refused = off
        .send(off.as_user(Method::POST, "/token?grant_type=id_token", access_token(&session)).json(&link))
        .await;
    assert_eq!((refused.status, refused.code()), (404, "manual_linking_disabled"));

    let app = app_with(&provider, true).await;
    let id = app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = app.sign_in("ana@example.com", "s3cret-pw").await;
    // The anon key is no user.
    let anon = app.send(app.auth(Method::POST, "/token?grant_type=id_token").json(&link)).await;
    assert_eq!((anon.status, anon.code()), (403, "bad_jwt"));
    let linked = app
        .send(app.as_user(Method::POST, "/token?grant_type=id_token", access_token(&session)).json(&link))
        .await;
    assert_eq!(linked.status, 200, "{:?}", linked.body);
    assert_eq!(linked.body["user"]["id"], id.as_str());
    assert_eq!(linked.body["user"]["identities"].as_array().map(Vec::len), Some(2));
    let again = app
        .send(app.as_user(Method::POST, "/token?grant_type=id_token", access_token(&session)).json(&link))
        .await;
    assert_eq!((again.status, again.body["msg"].as_str()), (422, Some("Identity is already linked")));
}

#[tokio::test]
async fn a_provider_may_post_its_answer_to_the_callback() {
    let provider = Provider::start().await;
    let app = app_with(&provider, false).await;
    let (verifier, challenge) = pkce();
    let back =
        to_provider(&app, &format!("provider=corp&code_challenge={challenge}&code_challenge_method=s256"))
            .await;
    // `response_mode=form_post`: the same pairs, as a form body.
    let response = browser()
        .post(format!("{}/auth/v1/callback", app.address))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(back.query().expect("query").to_owned())
        .send()
        .await
        .expect("callback");
    let (status, landed) = location(response).await;
    assert_eq!(status, 302);
    let session = exchange(&app, &param(&landed, "code").expect("code"), &verifier).await;
    assert_eq!(session.status, 200, "{:?}", session.body);
}
