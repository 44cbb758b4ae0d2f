//! `/auth/v1` as an OAuth 2.1 authorization server (`gateway::auth::oauth_server`):
//! a third-party client sends the browser to `/oauth/authorize` with an S256
//! challenge, the app's consent screen approves through
//! `/oauth/authorizations/{id}`, and the client trades the code and its
//! verifier at `/oauth/token`, once, in time, for tokens bound to it. Also the
//! refusals on the way, `/oauth/userinfo`, the user's grants, and the
//! administrator's client CRUD.

mod common;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use reqwest::{Method, Url};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};

const SITE: &str = "http://shop.example.com";
const REDIRECT: &str = "https://client.example/callback";
const VERIFIER: &str = "a-verifier-the-client-keeps-to-itself-0123456789-abcdef";

async fn oauth_app() -> TestApp {
    spawn_auth_app(|auth| {
        auth.site_url = Some(SITE.to_owned());
        auth.oauth_server_enabled = true;
        auth.oauth_server_authorization_path = Some("/oauth/consent".to_owned());
    })
    .await
}

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client")
}

fn param(url: &Url, name: &str) -> Option<String> {
    url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A client registered by the administrator: its id and, when confidential,
/// its secret.
async fn register(app: &TestApp, body: Value) -> (String, Option<String>) {
    let reply = app.send(app.as_service(Method::POST, "/admin/oauth/clients").json(&body)).await;
    assert_eq!(reply.status, 201, "{:?}", reply.body);
    let id = reply.body["client_id"].as_str().expect("client_id").to_owned();
    (id, reply.body["client_secret"].as_str().map(str::to_owned))
}

async fn public_client(app: &TestApp) -> String {
    let body = json!({"client_name": "Notes", "redirect_uris": [REDIRECT], "client_type": "public"});
    register(app, body).await.0
}

/// `GET /oauth/authorize` without following: status and `Location`.
async fn authorize(app: &TestApp, query: &str) -> (u16, Option<Url>, Value) {
    let response = browser()
        .get(format!("{}/auth/v1/oauth/authorize?{query}", app.address))
        .send()
        .await
        .expect("authorize");
    let status = response.status().as_u16();
    let location =
        response.headers().get("location").and_then(|v| v.to_str().ok()).map(|l| Url::parse(l).expect("url"));
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    (status, location, body)
}

fn authorize_query(client_id: &str, scope: &str) -> String {
    format!(
        "client_id={client_id}&redirect_uri={}&response_type=code&scope={}&state=xyz&code_challenge={}&code_challenge_method=S256",
        encode(REDIRECT),
        encode(scope),
        challenge(VERIFIER)
    )
}

/// A signed-in user's session.
async fn user(app: &TestApp, email: &str) -> Value {
    app.confirmed_user(email, "s3cret-pw").await;
    app.sign_in(email, "s3cret-pw").await
}

/// The consent screen's id for a new authorization of `client_id`.
async fn authorization_id(app: &TestApp, client_id: &str, scope: &str) -> String {
    let (status, location, body) = authorize(app, &authorize_query(client_id, scope)).await;
    assert_eq!(status, 302, "{body:?}");
    let location = location.expect("location");
    assert!(location.as_str().starts_with(&format!("{SITE}/oauth/consent?")), "{location}");
    param(&location, "authorization_id").expect("authorization_id")
}

async fn consent(app: &TestApp, session: &Value, id: &str, action: &str) -> Reply {
    let path = format!("/oauth/authorizations/{id}/consent");
    app.send(app.as_user(Method::POST, &path, access_token(session)).json(&json!({"action": action}))).await
}

/// Authorize, read the details, approve (unless a standing consent already
/// did): the code the client gets back.
async fn approved_code(app: &TestApp, session: &Value, client_id: &str) -> String {
    let id = authorization_id(app, client_id, "openid email profile").await;
    let path = format!("/oauth/authorizations/{id}");
    let details = app.send(app.as_user(Method::GET, &path, access_token(session))).await;
    assert_eq!(details.status, 200, "{:?}", details.body);
    let reply = if details.body.get("redirect_url").is_some() {
        details
    } else {
        consent(app, session, &id, "approve").await
    };
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let url = Url::parse(reply.body["redirect_url"].as_str().expect("redirect_url")).expect("url");
    assert!(url.as_str().starts_with(REDIRECT), "{url}");
    assert_eq!(param(&url, "state").as_deref(), Some("xyz"));
    param(&url, "code").expect("code")
}

/// `POST /oauth/token` as a form, with no API key: what a client sends.
async fn token(app: &TestApp, form: &[(&str, &str)]) -> Reply {
    let body: String = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
    let request = app
        .client
        .post(format!("{}/auth/v1/oauth/token", app.address))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    app.send(request).await
}

async fn exchange(app: &TestApp, client_id: &str, code: &str, verifier: &str) -> Reply {
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("client_id", client_id),
        ("code_verifier", verifier),
    ];
    token(app, &form).await
}

fn claims(app: &TestApp, token: &str) -> Value {
    app.state.credentials.jwt.verify(token).expect("valid token").claims.into()
}

#[tokio::test]
async fn a_public_client_trades_an_approved_code_and_its_verifier_for_tokens_bound_to_it() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let session = user(&app, "ada@example.com").await;
    let id = authorization_id(&app, &client_id, "openid email").await;

    let details = app
        .send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&session)))
        .await;
    assert_eq!(details.status, 200, "{:?}", details.body);
    assert_eq!(details.body["authorization_id"], id.as_str());
    assert_eq!(details.body["redirect_uri"], REDIRECT);
    assert_eq!(details.body["client"], json!({"id": client_id, "name": "Notes"}));
    assert_eq!(details.body["user"]["email"], "ada@example.com");
    assert_eq!(details.body["scope"], "openid email");

    let reply = consent(&app, &session, &id, "approve").await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let url = Url::parse(reply.body["redirect_url"].as_str().expect("redirect_url")).expect("url");
    let code = param(&url, "code").expect("code");
    let tokens = exchange(&app, &client_id, &code, VERIFIER).await;
    assert_eq!(tokens.status, 200, "{:?}", tokens.body);
    let mut keys: Vec<&str> = tokens.body.as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["access_token", "expires_in", "refresh_token", "token_type"]);
    let issued = claims(&app, access_token(&tokens.body));
    assert_eq!(issued["client_id"], client_id.as_str());
    assert_eq!(issued["email"], "ada@example.com");
    assert_eq!(issued["role"], "authenticated");
    assert_eq!(issued["amr"][0]["method"], "oauth_provider/authorization_code");
    assert_ne!(issued["session_id"], claims(&app, access_token(&session))["session_id"]);
}

#[tokio::test]
async fn a_code_is_refused_for_a_wrong_verifier_a_second_use_an_expiry_or_another_redirect() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let session = user(&app, "ada@example.com").await;
    let db = app.admin().await;
    let db = &db;
    let expire = |code: String| async move {
        let digest = hex::encode(Sha256::digest(code.as_bytes()));
        let sql = "update auth.oauth_authorizations set expires_at = created_at + interval '1 ms' \
                   where authorization_code = $1";
        db.execute(sql, &[&digest]).await.expect("expire");
    };

    // (case, how the code is spoiled first, verifier, redirect_uri, description)
    type Case = (&'static str, bool, bool, &'static str, &'static str, &'static str);
    let cases: [Case; 5] = [
        (
            "wrong verifier",
            false,
            false,
            "another-verifier-of-the-right-length-0123456789-abcdef",
            REDIRECT,
            "PKCE verification failed: code challenge does not match previously saved code verifier",
        ),
        (
            "no verifier",
            false,
            false,
            "",
            REDIRECT,
            "PKCE verification failed: code_verifier is required when PKCE challenge is present",
        ),
        ("reused code", true, false, VERIFIER, REDIRECT, "Invalid authorization code"),
        ("expired code", false, true, VERIFIER, REDIRECT, "Authorization code has expired"),
        (
            "wrong redirect_uri",
            false,
            false,
            VERIFIER,
            "https://client.example/other",
            "Invalid redirect_uri",
        ),
    ];
    for (case, used, expired, verifier, redirect_uri, description) in cases {
        let code = approved_code(&app, &session, &client_id).await;
        if used {
            assert_eq!(exchange(&app, &client_id, &code, VERIFIER).await.status, 200, "{case}");
        }
        if expired {
            expire(code.clone()).await;
        }
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id.as_str()),
            ("code_verifier", verifier),
        ];
        let reply = token(&app, &form).await;
        assert_eq!(reply.status, 400, "{case}: {:?}", reply.body);
        assert_eq!(reply.body, json!({"error": "invalid_grant", "error_description": description}), "{case}");
    }
}

#[tokio::test]
async fn authorize_refuses_unknown_clients_and_foreign_redirects_here_and_other_faults_at_the_client() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let good = challenge(VERIFIER);
    let redirect = encode(REDIRECT);
    // (case, query, status, code answered here or `error` at the redirect, description)
    let cases: [(&str, String, u16, &str, &str); 7] = [
        (
            "unknown client",
            authorize_query(&unknown, "email"),
            400,
            "oauth_client_not_found",
            "invalid client_id",
        ),
        (
            "malformed client",
            authorize_query("nope", "email"),
            400,
            "oauth_client_not_found",
            "invalid client_id format",
        ),
        (
            "foreign redirect",
            format!(
                "client_id={client_id}&redirect_uri={}&code_challenge={good}&code_challenge_method=S256",
                encode("https://evil.example/cb")
            ),
            400,
            "validation_failed",
            "invalid redirect_uri",
        ),
        (
            "no redirect",
            format!("client_id={client_id}"),
            400,
            "validation_failed",
            "redirect_uri is required",
        ),
        (
            "no PKCE",
            format!("client_id={client_id}&redirect_uri={redirect}&state=xyz"),
            302,
            "invalid_request",
            "PKCE flow requires both code_challenge and code_challenge_method",
        ),
        (
            "plain PKCE",
            format!(
                "client_id={client_id}&redirect_uri={redirect}&code_challenge={VERIFIER}&code_challenge_method=plain"
            ),
            302,
            "invalid_request",
            "code_challenge_method must be 'S256'",
        ),
        (
            "unknown scope",
            format!(
                "client_id={client_id}&redirect_uri={redirect}&scope=admin&code_challenge={good}&code_challenge_method=S256"
            ),
            302,
            "invalid_request",
            "unsupported scope: admin",
        ),
    ];
    for (case, query, status, code, description) in cases {
        let (got, location, body) = authorize(&app, &query).await;
        assert_eq!(got, status, "{case}: {body:?}");
        if status == 302 {
            let location = location.expect("location");
            assert!(location.as_str().starts_with(REDIRECT), "{case}: {location}");
            assert_eq!(param(&location, "error").as_deref(), Some(code), "{case}");
            assert_eq!(param(&location, "error_description").as_deref(), Some(description), "{case}");
        } else {
            assert_eq!(
                (body["code"].as_str(), body["message"].as_str()),
                (Some(code), Some(description)),
                "{case}"
            );
        }
    }
}

#[tokio::test]
async fn a_denied_consent_sends_the_client_access_denied_and_leaves_no_code() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let session = user(&app, "ada@example.com").await;
    let id = authorization_id(&app, &client_id, "email").await;
    let details = app
        .send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&session)))
        .await;
    assert_eq!(details.status, 200, "{:?}", details.body);
    let reply = consent(&app, &session, &id, "deny").await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let url = Url::parse(reply.body["redirect_url"].as_str().expect("redirect_url")).expect("url");
    assert_eq!(param(&url, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&url, "error_description").as_deref(), Some("User denied the request"));
    assert_eq!(param(&url, "state").as_deref(), Some("xyz"));
    assert_eq!(param(&url, "code"), None);
    let again = consent(&app, &session, &id, "approve").await;
    assert_eq!((again.status, again.code()), (400, "validation_failed"));
    // Another user cannot see an authorization bound to Ada.
    let other = user(&app, "bob@example.com").await;
    let id = authorization_id(&app, &client_id, "email").await;
    app.send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&session))).await;
    let theirs = app
        .send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&other)))
        .await;
    assert_eq!((theirs.status, theirs.code()), (404, "oauth_authorization_not_found"));
}

#[tokio::test]
async fn a_confidential_client_refreshes_its_tokens_and_no_one_else_can() {
    let app = oauth_app().await;
    let body = json!({"client_name": "Backend", "redirect_uris": [REDIRECT]});
    let (client_id, secret) = register(&app, body).await;
    let secret = secret.expect("a confidential client gets a secret");
    let session = user(&app, "ada@example.com").await;
    let code = approved_code(&app, &session, &client_id).await;
    let basic = format!("Basic {}", STANDARD.encode(format!("{client_id}:{secret}")));
    let form =
        |pairs: &[(&str, &str)]| form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
    let post = |authorization: String, body: String| {
        app.client
            .post(format!("{}/auth/v1/oauth/token", app.address))
            .header("authorization", authorization)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
    };
    let exchange =
        [("grant_type", "authorization_code"), ("code", code.as_str()), ("code_verifier", VERIFIER)];
    let tokens = app.send(post(basic.clone(), form(&exchange))).await;
    assert_eq!(tokens.status, 200, "{:?}", tokens.body);
    let refresh = tokens.body["refresh_token"].as_str().expect("refresh_token").to_owned();

    let refreshed = app
        .send(post(
            basic.clone(),
            form(&[("grant_type", "refresh_token"), ("refresh_token", refresh.as_str())]),
        ))
        .await;
    assert_eq!(refreshed.status, 200, "{:?}", refreshed.body);
    assert_ne!(refreshed.body["refresh_token"].as_str(), Some(refresh.as_str()));
    assert_eq!(claims(&app, access_token(&refreshed.body))["client_id"], client_id.as_str());

    // The next token, refreshed without the client or at `/token`, or with a wrong secret.
    let next = refreshed.body["refresh_token"].as_str().expect("refresh_token").to_owned();
    let wrong = format!("Basic {}", STANDARD.encode(format!("{client_id}:not-the-secret")));
    let refresh_form = form(&[("grant_type", "refresh_token"), ("refresh_token", next.as_str())]);
    let cases: [(&str, Reply, u16, Value); 3] = [
        (
            "wrong secret",
            app.send(post(wrong, refresh_form.clone())).await,
            400,
            json!("invalid_credentials"),
        ),
        (
            "no client",
            token(&app, &[("grant_type", "refresh_token"), ("refresh_token", next.as_str())]).await,
            400,
            json!({"error": "invalid_client", "error_description": "Client authentication required"}),
        ),
        (
            "the first-party /token",
            app.refresh(&next).await,
            400,
            json!({"error": "invalid_client", "error_description": "Client authentication required for OAuth session"}),
        ),
    ];
    for (case, reply, status, expected) in cases {
        assert_eq!(reply.status, status, "{case}: {:?}", reply.body);
        if expected.is_string() {
            assert_eq!(reply.body["code"], expected, "{case}");
        } else {
            assert_eq!(reply.body, expected, "{case}");
        }
    }
    assert_eq!(app.send(post(basic, refresh_form)).await.status, 200);
}

#[tokio::test]
async fn userinfo_answers_by_the_scopes_granted() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let session = user(&app, "ada@example.com").await;
    let code = approved_code(&app, &session, &client_id).await;
    let tokens = exchange(&app, &client_id, &code, VERIFIER).await;
    let userinfo = |bearer: String| {
        app.client.get(format!("{}/auth/v1/oauth/userinfo", app.address)).header("authorization", bearer)
    };
    let info = app.send(userinfo(format!("Bearer {}", access_token(&tokens.body)))).await;
    assert_eq!(info.status, 200, "{:?}", info.body);
    let sub = claims(&app, access_token(&session))["sub"].clone();
    assert_eq!(info.body["sub"], sub);
    assert_eq!(info.body["email"], "ada@example.com");
    assert_eq!(info.body["email_verified"], true);
    assert_eq!(info.body["name"], "ada@example.com");
    // A first-party session carries no scopes: only `sub`.
    let own = app.send(userinfo(format!("Bearer {}", access_token(&session)))).await;
    assert_eq!(own.body, json!({"sub": sub}));
    let none = app.send(app.client.get(format!("{}/auth/v1/oauth/userinfo", app.address))).await;
    assert_eq!((none.status, none.code()), (401, "no_authorization"));
}

#[tokio::test]
async fn revoking_a_grant_ends_the_clients_refresh_tokens_and_the_next_authorization_asks_again() {
    let app = oauth_app().await;
    let client_id = public_client(&app).await;
    let session = user(&app, "ada@example.com").await;
    let code = approved_code(&app, &session, &client_id).await;
    let tokens = exchange(&app, &client_id, &code, VERIFIER).await;
    let refresh = tokens.body["refresh_token"].as_str().expect("refresh_token").to_owned();

    // A standing consent approves the next request at once.
    let id = authorization_id(&app, &client_id, "email").await;
    let auto = app
        .send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&session)))
        .await;
    assert!(auto.body["redirect_url"].as_str().is_some_and(|u| u.contains("code=")), "{:?}", auto.body);

    let grants = app.send(app.as_user(Method::GET, "/user/oauth/grants", access_token(&session))).await;
    assert_eq!(grants.status, 200, "{:?}", grants.body);
    assert_eq!(grants.body[0]["client"]["id"], client_id.as_str());
    assert_eq!(grants.body[0]["scopes"], json!(["openid", "email", "profile"]));

    let path = format!("/user/oauth/grants?client_id={client_id}");
    let revoked = app.send(app.as_user(Method::DELETE, &path, access_token(&session))).await;
    assert_eq!(revoked.status, 204, "{:?}", revoked.body);
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh.as_str()),
        ("client_id", client_id.as_str()),
    ];
    let after = token(&app, &form).await;
    assert_eq!((after.status, after.code()), (400, "refresh_token_not_found"), "{:?}", after.body);
    let again = app.send(app.as_user(Method::DELETE, &path, access_token(&session))).await;
    assert_eq!((again.status, again.code()), (404, "oauth_consent_not_found"));
    let listed = app.send(app.as_user(Method::GET, "/user/oauth/grants", access_token(&session))).await;
    assert_eq!(listed.body, json!([]));
    let id = authorization_id(&app, &client_id, "email").await;
    let asks = app
        .send(app.as_user(Method::GET, &format!("/oauth/authorizations/{id}"), access_token(&session)))
        .await;
    assert_eq!(asks.body["authorization_id"], id.as_str(), "{:?}", asks.body);
    // The user's own session is untouched.
    assert_eq!(app.send(app.as_user(Method::GET, "/user", access_token(&session))).await.status, 200);
}

#[tokio::test]
async fn the_administrator_creates_reads_updates_regenerates_and_deletes_clients() {
    let app = oauth_app().await;
    let body = json!({"client_name": "Backend", "redirect_uris": [REDIRECT], "client_uri": "https://client.example"});
    let created = app.send(app.as_service(Method::POST, "/admin/oauth/clients").json(&body)).await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let id = created.body["client_id"].as_str().expect("client_id").to_owned();
    let expected = [
        ("client_type", json!("confidential")),
        ("token_endpoint_auth_method", json!("client_secret_basic")),
        ("registration_type", json!("manual")),
        ("grant_types", json!(["authorization_code", "refresh_token"])),
        ("response_types", json!(["code"])),
        ("redirect_uris", json!([REDIRECT])),
        ("client_uri", json!("https://client.example")),
    ];
    for (key, value) in &expected {
        assert_eq!(&created.body[*key], value, "{key}");
    }
    let secret = created.body["client_secret"].as_str().expect("secret").to_owned();
    let path = format!("/admin/oauth/clients/{id}");

    let read = app.send(app.as_service(Method::GET, &path)).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body.get("client_secret"), None);
    let listed = app.send(app.as_service(Method::GET, "/admin/oauth/clients")).await;
    assert_eq!(listed.body["clients"][0]["client_id"], id.as_str());

    let update = json!({"client_name": "Renamed", "redirect_uris": [REDIRECT, "http://localhost:3000/cb"]});
    let updated = app.send(app.as_service(Method::PUT, &path).json(&update)).await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    assert_eq!(updated.body["client_name"], "Renamed");
    assert_eq!(updated.body["redirect_uris"], json!([REDIRECT, "http://localhost:3000/cb"]));

    let regenerated = app.send(app.as_service(Method::POST, &format!("{path}/regenerate_secret"))).await;
    assert_eq!(regenerated.status, 200, "{:?}", regenerated.body);
    assert_ne!(regenerated.body["client_secret"].as_str(), Some(secret.as_str()));

    // (case, request, status, code)
    let refusals: [(&str, reqwest::RequestBuilder, u16, &str); 6] = [
        (
            "as a user",
            app.as_user(
                Method::GET,
                "/admin/oauth/clients",
                &app.user_token(&uuid::Uuid::new_v4().to_string()),
            ),
            403,
            "not_admin",
        ),
        (
            "no redirect",
            app.as_service(Method::POST, "/admin/oauth/clients").json(&json!({"client_name": "x"})),
            400,
            "validation_failed",
        ),
        (
            "http elsewhere",
            app.as_service(Method::POST, "/admin/oauth/clients")
                .json(&json!({"redirect_uris": ["http://client.example/cb"]})),
            400,
            "validation_failed",
        ),
        ("empty update", app.as_service(Method::PUT, &path).json(&json!({})), 400, "validation_failed"),
        (
            "unknown",
            app.as_service(Method::GET, &format!("/admin/oauth/clients/{}", uuid::Uuid::new_v4())),
            404,
            "oauth_client_not_found",
        ),
        (
            "dynamic registration off",
            app.auth(Method::POST, "/oauth/clients/register").json(&json!({"redirect_uris": [REDIRECT]})),
            403,
            "oauth_dynamic_client_registration_disabled",
        ),
    ];
    for (case, request, status, code) in refusals {
        let reply = app.send(request).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{case}: {:?}", reply.body);
    }

    let deleted = app.send(app.as_service(Method::DELETE, &path)).await;
    assert_eq!(deleted.status, 204);
    let gone = app.send(app.as_service(Method::GET, &path)).await;
    assert_eq!((gone.status, gone.code()), (404, "oauth_client_not_found"));
    let (status, _, body) = authorize(&app, &authorize_query(&id, "email")).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("oauth_client_not_found")));
}

#[tokio::test]
async fn dynamic_registration_and_discovery_follow_the_settings() {
    let app = spawn_auth_app(|auth| {
        auth.oauth_server_enabled = true;
        auth.oauth_server_allow_dynamic_registration = true;
    })
    .await;
    let registered = app
        .send(
            app.auth(Method::POST, "/oauth/clients/register")
                .json(&json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"})),
        )
        .await;
    assert_eq!(registered.status, 201, "{:?}", registered.body);
    assert_eq!(registered.body["registration_type"], "dynamic");
    assert_eq!(registered.body["client_type"], "public");
    assert_eq!(registered.body.get("client_secret"), None);

    let discovery = app
        .send(app.client.get(format!("{}/auth/v1/.well-known/oauth-authorization-server", app.address)))
        .await;
    assert_eq!(discovery.status, 200);
    let issuer = discovery.body["issuer"].as_str().expect("issuer").trim_end_matches('/').to_owned();
    assert_eq!(discovery.body["token_endpoint"], format!("{issuer}/oauth/token"));
    assert_eq!(discovery.body["registration_endpoint"], format!("{issuer}/oauth/clients/register"));
    assert_eq!(discovery.body["code_challenge_methods_supported"], json!(["S256"]));

    // Off, every route is GoTrue's 404 but the OpenID configuration.
    let off = spawn_auth_app(|_| {}).await;
    for path in ["/.well-known/oauth-authorization-server", "/oauth/authorize?client_id=x&redirect_uri=y"] {
        let reply = off.send(off.client.get(format!("{}/auth/v1{path}", off.address))).await;
        assert_eq!((reply.status, reply.code()), (404, "feature_disabled"), "{path}");
    }
    let admin = off.send(off.as_service(Method::GET, "/admin/oauth/clients")).await;
    assert_eq!((admin.status, admin.code()), (404, "feature_disabled"));
    let openid =
        off.send(off.client.get(format!("{}/auth/v1/.well-known/openid-configuration", off.address))).await;
    assert_eq!(openid.status, 200);
    assert_eq!(openid.body.get("registration_endpoint"), None);
}
