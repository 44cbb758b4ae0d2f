//! The edges of `/auth/v1`: which routes need the API key, the error shape and
//! headers auth-js reads, `/settings` and `/health`.

mod common;

use reqwest::Method;
use serde_json::json;

use common::spawn_app;

#[tokio::test]
async fn the_routes_kong_leaves_open_need_no_api_key() {
    let app = spawn_app().await;
    let bare = |path: &str| app.client.get(format!("{}/auth/v1{path}", app.address));
    let jwks = app.send(bare("/.well-known/jwks.json")).await;
    assert_eq!((jwks.status, jwks.body["keys"][0]["alg"].as_str()), (200, Some("ES256")));
    let verify = app.send(bare("/verify")).await;
    assert_eq!((verify.status, verify.code()), (400, "validation_failed"), "the mailed link's route is open");
    // No provider is configured; a callback without state goes back to the site.
    let authorize = app.send(bare("/authorize?provider=github")).await;
    assert_eq!((authorize.status, authorize.code()), (400, "validation_failed"));
    let no_redirects =
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let callback =
        no_redirects.get(format!("{}/auth/v1/callback", app.address)).send().await.expect("callback");
    assert_eq!(callback.status().as_u16(), 303);
    for path in ["/settings", "/health", "/user", "/admin/users", "/nowhere"] {
        let reply = app.send(bare(path)).await;
        assert_eq!(reply.status, 401, "{path}");
        assert_eq!(reply.body["message"], "No API key found in request", "{path}");
    }
}

/// With `AUTH_API_KEY_REQUIRED=false`, as behind the Supabase CLI's Kong,
/// a request without any key reaches Auth, which reads only the bearer; a key
/// that is present is still checked.
#[tokio::test]
async fn without_a_required_key_auth_reads_only_the_bearer_as_behind_the_clis_kong() {
    let app = common::auth::spawn_auth_app(|auth| auth.api_key_required = false).await;
    let url = |path: &str| format!("{}/auth/v1{path}", app.address);
    let signed_up = app
        .send(
            app.client
                .post(url("/signup"))
                .json(&json!({"email": "ana@example.com", "password": "s3cret-pw"})),
        )
        .await;
    assert_eq!(signed_up.status, 200, "{:?}", signed_up.body);
    let token = common::auth::access_token(&signed_up.body).to_owned();

    let cases = [
        ("a user's bearer and no key", app.client.get(url("/user")).bearer_auth(&token), 200, ""),
        ("neither key nor bearer", app.client.get(url("/user")), 401, "no_authorization"),
        (
            "a user's bearer on the admin API",
            app.client.get(url("/admin/users")).bearer_auth(&token),
            403,
            "not_admin",
        ),
        ("settings without a key", app.client.get(url("/settings")), 200, ""),
        ("a wrong key", app.client.get(url("/settings")).header("apikey", "not-a-key"), 401, ""),
    ];
    for (name, request, status, code) in cases {
        let reply = app.send(request).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {:?}", reply.body);
    }
}

#[tokio::test]
async fn settings_and_health_answer_like_gotrue() {
    let app = spawn_app().await;
    let settings = app.send(app.auth(Method::GET, "/settings")).await;
    assert_eq!(settings.status, 200);
    assert_eq!(settings.body["external"]["email"], true);
    assert_eq!(settings.body["external"]["google"], false);
    assert_eq!(settings.body["disable_signup"], false);
    assert_eq!(settings.body["mailer_autoconfirm"], true);
    let health = app.send(app.auth(Method::GET, "/health")).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["name"], "GoTrue");
    let missing = app.send(app.auth(Method::GET, "/nowhere")).await;
    assert_eq!((missing.status, missing.code()), (404, "not_found"));
}

#[tokio::test]
async fn browsers_can_read_the_error_headers_auth_js_needs() {
    let app = spawn_app().await;
    let reply = app
        .send(
            app.auth(Method::POST, "/token?grant_type=password")
                .header("origin", "http://localhost:5173")
                .json(&json!({"email":"nobody@example.com","password":"whatever"})),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.headers["x-supabase-api-version"], "2024-01-01");
    let exposed = reply.headers["access-control-expose-headers"].to_str().expect("header").to_lowercase();
    for header in ["x-supabase-api-version", "x-sb-error-code"] {
        assert!(exposed.contains(header), "{header} not exposed: {exposed}");
    }
}

#[tokio::test]
async fn browsers_preflights_to_auth_are_answered_without_a_key() {
    let app = spawn_app().await;
    let response = app
        .client
        .request(Method::OPTIONS, format!("{}/auth/v1/token?grant_type=password", app.address))
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "apikey,authorization,content-type,x-client-info,x-supabase-api-version",
        )
        .send()
        .await
        .expect("preflight");
    assert_eq!(response.status().as_u16(), 200);
    let allowed = response.headers()["access-control-allow-headers"].to_str().expect("header").to_lowercase();
    assert!(allowed.contains("x-supabase-api-version"), "{allowed}");
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}
