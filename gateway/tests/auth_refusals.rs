//! `/auth/v1` answers as GoTrue does where the upstream auth-js suite found it
//! did not: e-mail addresses checked by GoTrue's pattern, admin-created
//! users' metadata kept as given, pagination checked, and the features this
//! gateway has not built refused as GoTrue refuses them when turned off.

mod common;

use reqwest::Method;
use serde_json::json;

use common::auth::{access_token, spawn_auth_app};
use common::spawn_app;

#[tokio::test]
async fn addresses_gotrue_refuses_are_refused_everywhere_an_address_is_taken() {
    let app = spawn_app().await;
    let session = {
        app.confirmed_user("ana@example.com", "s3cret-pw").await;
        app.sign_in("ana@example.com", "s3cret-pw").await
    };
    let token = access_token(&session).to_owned();
    let bad = "xx:;x@x.x";
    let replies = [
        (
            "signup",
            app.send(app.auth(Method::POST, "/signup").json(&json!({"email": bad, "password": "s3cret-pw"})))
                .await,
        ),
        (
            "update user",
            app.send(app.auth_bearing(Method::PUT, "/user", &token).json(&json!({"email": bad}))).await,
        ),
        ("admin create", app.admin_create_user(json!({"email": bad, "password": "s3cret-pw"})).await),
    ];
    for (what, reply) in replies {
        assert_eq!(
            (reply.status, reply.code(), reply.body["msg"].as_str()),
            (400, "validation_failed", Some("Unable to validate email address: invalid format")),
            "{what}: {:?}",
            reply.body
        );
    }
    // GoTrue's pattern takes a host without a dot.
    let local = app.admin_create_user(json!({"email": "ops@localhost", "email_confirm": true})).await;
    assert_eq!(local.status, 200, "{:?}", local.body);
}

#[tokio::test]
async fn an_admin_created_user_keeps_exactly_the_metadata_given() {
    let app = spawn_app().await;
    let created = app
        .admin_create_user(
            json!({"email": "meta@example.com", "email_confirm": true, "user_metadata": {"name": "M"}}),
        )
        .await;
    assert_eq!(created.status, 200, "{:?}", created.body);
    // A confirmed e-mail adds `email_verified`, as GoTrue's `User.Confirm` does.
    assert_eq!(created.body["user_metadata"], json!({"name": "M", "email_verified": true}));
    let bare = app.admin_create_user(json!({"email": "bare@example.com"})).await;
    assert_eq!(bare.body["user_metadata"], json!({}));
    // The identity still holds the address and the verified flags.
    let identity = &created.body["identities"][0]["identity_data"];
    assert_eq!(identity["email"], "meta@example.com");
    let id = created.body["id"].as_str().expect("id").to_owned();
    let updated = app
        .send(
            app.as_service(Method::PUT, &format!("/admin/users/{id}"))
                .json(&json!({"user_metadata": {"age": 3}})),
        )
        .await;
    assert_eq!(updated.body["user_metadata"], json!({"name": "M", "email_verified": true, "age": 3}));
}

#[tokio::test]
async fn the_user_list_checks_its_page_and_page_size_as_gotrue_does() {
    let app = spawn_app().await;
    // (query, status, message)
    let cases = [
        (
            "page=-1&per_page=10",
            400,
            Some("Bad Pagination Parameters: strconv.ParseUint: parsing \"-1\": invalid syntax"),
        ),
        (
            "page=abc",
            400,
            Some("Bad Pagination Parameters: strconv.ParseUint: parsing \"abc\": invalid syntax"),
        ),
        (
            "per_page=99999999999999999999",
            400,
            Some(
                "Bad Pagination Parameters: strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
            ),
        ),
        ("per_page=0", 400, Some("Bad Pagination Parameters: per_page must be at least 1")),
        ("page=0&per_page=5", 200, None),
        ("page=2", 200, None),
    ];
    for (query, status, message) in cases {
        let reply = app.send(app.as_service(Method::GET, &format!("/admin/users?{query}"))).await;
        assert_eq!(reply.status, status, "{query}: {:?}", reply.body);
        if let Some(message) = message {
            assert_eq!(
                (reply.code(), reply.body["msg"].as_str()),
                ("validation_failed", Some(message)),
                "{query}"
            );
        }
    }
}

#[tokio::test]
async fn features_not_built_are_refused_as_gotrue_refuses_them_when_off() {
    // Anonymous sign-ins are off by default; TOTP is turned off here.
    let app = spawn_auth_app(|auth| auth.mfa_totp_enabled = false).await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = app.sign_in("ana@example.com", "s3cret-pw").await;
    let token = access_token(&session).to_owned();
    let factor = "7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11";
    // The API key alone, as supabase-js sends it with no session.
    let keyed = |method: Method, path: &str| {
        app.client.request(method, format!("{}/auth/v1{path}", app.address)).header("apikey", &app.anon_key)
    };
    // (what, request, status, code, message)
    let cases = [
        (
            "anonymous sign-in",
            app.auth(Method::POST, "/signup").json(&json!({})),
            422,
            "anonymous_provider_disabled",
            "Anonymous sign-ins are disabled",
        ),
        (
            "web3 grant",
            app.auth(Method::POST, "/token?grant_type=web3").json(&json!({})),
            422,
            "web3_provider_disabled",
            "Web3 provider is disabled",
        ),
        (
            "unknown grant",
            app.auth(Method::POST, "/token?grant_type=magic").json(&json!({})),
            400,
            "invalid_credentials",
            "unsupported_grant_type",
        ),
        (
            "an ID token of a provider not configured",
            app.auth(Method::POST, "/token?grant_type=id_token")
                .json(&json!({"provider": "google", "id_token": "x.y.z"})),
            400,
            "provider_disabled",
            "Provider (issuer \"https://accounts.google.com\") is not enabled",
        ),
        (
            "an ID token of a custom provider not configured",
            app.auth(Method::POST, "/token?grant_type=id_token")
                .json(&json!({"provider": "corp", "id_token": "x.y.z"})),
            400,
            "validation_failed",
            "Custom OIDC provider \"corp\" not allowed",
        ),
        (
            "sso",
            app.auth(Method::POST, "/sso").json(&json!({"domain": "x.com"})),
            404,
            "saml_provider_disabled",
            "SAML 2.0 is disabled",
        ),
        (
            "linking",
            app.auth_bearing(Method::GET, "/user/identities/authorize?provider=github", &token),
            404,
            "manual_linking_disabled",
            "Manual linking is disabled",
        ),
        (
            "unlinking",
            app.auth_bearing(Method::DELETE, &format!("/user/identities/{factor}"), &token),
            404,
            "manual_linking_disabled",
            "Manual linking is disabled",
        ),
        (
            "enrol totp",
            app.auth_bearing(Method::POST, "/factors", &token).json(&json!({"factor_type": "totp"})),
            422,
            "mfa_totp_enroll_not_enabled",
            "MFA enroll is disabled for TOTP",
        ),
        (
            "enrol phone",
            app.auth_bearing(Method::POST, "/factors", &token)
                .json(&json!({"factor_type": "phone", "phone": "+15551234567"})),
            422,
            "mfa_phone_enroll_not_enabled",
            "MFA enroll is disabled for Phone",
        ),
        (
            "enrol other",
            app.auth_bearing(Method::POST, "/factors", &token).json(&json!({"factor_type": "sms"})),
            400,
            "validation_failed",
            "factor_type needs to be totp, phone, or webauthn",
        ),
        (
            "challenge",
            app.auth_bearing(Method::POST, &format!("/factors/{factor}/challenge"), &token).json(&json!({})),
            404,
            "mfa_factor_not_found",
            "Factor not found",
        ),
        (
            "verify",
            app.auth_bearing(Method::POST, "/factors/nope/verify", &token).json(&json!({})),
            404,
            "validation_failed",
            "factor_id must be an UUID",
        ),
        (
            "unenrol",
            app.auth_bearing(Method::DELETE, &format!("/factors/{factor}"), &token),
            404,
            "mfa_factor_not_found",
            "Factor not found",
        ),
        (
            "enrol signed out",
            keyed(Method::POST, "/factors").json(&json!({"factor_type": "totp"})),
            401,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        ),
        (
            "linking signed out",
            keyed(Method::GET, "/user/identities/authorize"),
            401,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        ),
    ];
    for (what, request, status, code, message) in cases {
        let reply = app.send(request).await;
        assert_eq!(
            (reply.status, reply.code(), reply.body["msg"].as_str()),
            (status, code, Some(message)),
            "{what}: {:?}",
            reply.body
        );
    }
    let acs = app.send(app.client.post(format!("{}/auth/v1/sso/saml/acs", app.address))).await;
    assert_eq!((acs.status, acs.code()), (404, "saml_provider_disabled"));
}
