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
