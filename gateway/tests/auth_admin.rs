//! `/auth/v1/admin/users`: only the service_role key may list, create, read,
//! change and delete users.

mod common;

use reqwest::Method;
use serde_json::json;

use common::auth::access_token;
use common::spawn_app;

#[tokio::test]
async fn only_the_service_role_key_reaches_the_admin_api() {
    let app = spawn_app().await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let session = app.sign_in("ana@example.com", "s3cret-pw").await;
    let user_token = access_token(&session).to_owned();
    let bearers = [("the anon key", app.anon_key.clone(), 403), ("a user's token", user_token, 403)];
    for (name, bearer, status) in bearers {
        for (method, path) in [
            (Method::GET, "/admin/users".to_owned()),
            (Method::POST, "/admin/users".to_owned()),
            (Method::GET, format!("/admin/users/{}", session["user"]["id"].as_str().expect("id"))),
            (Method::DELETE, format!("/admin/users/{}", session["user"]["id"].as_str().expect("id"))),
        ] {
            let reply = app.send(app.auth_bearing(method.clone(), &path, &bearer).json(&json!({}))).await;
            assert_eq!((reply.status, reply.code()), (status, "not_admin"), "{name}: {method} {path}");
        }
    }
}

#[tokio::test]
async fn admins_create_read_list_update_and_delete_users() {
    let app = spawn_app().await;
    let created = app
        .admin_create_user(json!({"email":"staff@example.com","password":"s3cret-pw","email_confirm":true,
                                  "user_metadata":{"name":"Staff"},"app_metadata":{"role":"admin"}}))
        .await;
    assert_eq!(created.status, 200, "{:?}", created.body);
    let user = created.body;
    let id = user["id"].as_str().expect("id").to_owned();
    assert_eq!(user["app_metadata"], json!({"provider":"email","providers":["email"],"role":"admin"}));
    assert_eq!(user["user_metadata"]["name"], "Staff");
    assert!(user["email_confirmed_at"].is_string());

    let again = app.admin_create_user(json!({"email":"STAFF@example.com","password":"s3cret-pw"})).await;
    assert_eq!((again.status, again.code()), (422, "email_exists"));

    let read = app.send(app.as_service(Method::GET, &format!("/admin/users/{id}"))).await;
    assert_eq!((read.status, &read.body["email"]), (200, &json!("staff@example.com")));

    app.confirmed_user("other@example.com", "s3cret-pw").await;
    let list = app.send(app.as_service(Method::GET, "/admin/users?page=1&per_page=1")).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["users"].as_array().map(Vec::len), Some(1));
    assert_eq!(list.body["aud"], "authenticated");
    assert_eq!(list.headers["x-total-count"], "2");
    assert!(list.headers["link"].to_str().expect("link").contains("rel=\"next\""));

    // GoTrue's `filter`: the e-mail holds it, or the `full_name` metadata.
    app.admin_create_user(json!({"email":"third@example.com","user_metadata":{"full_name":"Olga Stafford"}}))
        .await;
    let filters = [("staff", 2), ("other%40", 1), ("OLGA", 1), ("nobody", 0), ("", 3)];
    for (filter, total) in filters {
        let list = app.send(app.as_service(Method::GET, &format!("/admin/users?filter={filter}"))).await;
        assert_eq!(list.status, 200, "{filter}: {:?}", list.body);
        assert_eq!(list.headers["x-total-count"], total.to_string().as_str(), "{filter}");
        assert_eq!(list.body["users"].as_array().map(Vec::len), Some(total), "{filter}");
    }

    let update = app
        .as_service(Method::PUT, &format!("/admin/users/{id}"))
        .json(&json!({"password":"another-pw","user_metadata":{"name":"Boss"},"app_metadata":{"role":null}}));
    let updated = app.send(update).await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    assert_eq!(updated.body["user_metadata"]["name"], "Boss");
    assert!(updated.body["app_metadata"].get("role").is_none());
    assert_eq!(app.password_grant("staff@example.com", "another-pw").await.status, 200);

    let deleted = app.send(app.as_service(Method::DELETE, &format!("/admin/users/{id}"))).await;
    assert_eq!((deleted.status, &deleted.body), (200, &json!({})));
    let gone = app.send(app.as_service(Method::GET, &format!("/admin/users/{id}"))).await;
    assert_eq!((gone.status, gone.code()), (404, "user_not_found"));
    assert_eq!(app.password_grant("staff@example.com", "another-pw").await.code(), "invalid_credentials");
}

#[tokio::test]
async fn admins_ban_and_unban_users() {
    let app = spawn_app().await;
    let id = app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let ban = |duration: &str| {
        app.as_service(Method::PUT, &format!("/admin/users/{id}")).json(&json!({"ban_duration": duration}))
    };
    let banned = app.send(ban("24h")).await;
    assert_eq!(banned.status, 200);
    assert!(banned.body["banned_until"].is_string());
    assert_eq!(app.password_grant("ana@example.com", "s3cret-pw").await.code(), "user_banned");
    let unbanned = app.send(ban("none")).await;
    assert!(unbanned.body.get("banned_until").is_none(), "{:?}", unbanned.body);
    assert_eq!(app.password_grant("ana@example.com", "s3cret-pw").await.status, 200);
    let reply = app.send(ban("forever")).await;
    assert_eq!((reply.status, reply.code()), (400, "validation_failed"));
}

#[tokio::test]
async fn admins_confirm_users_that_signed_up_without_autoconfirm() {
    let app = spawn_app().await;
    let created = app.admin_create_user(json!({"email":"new@example.com","password":"s3cret-pw"})).await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    assert_eq!(app.password_grant("new@example.com", "s3cret-pw").await.code(), "email_not_confirmed");
    let request =
        app.as_service(Method::PUT, &format!("/admin/users/{id}")).json(&json!({"email_confirm": true}));
    assert_eq!(app.send(request).await.status, 200);
    assert_eq!(app.password_grant("new@example.com", "s3cret-pw").await.status, 200);
}

#[tokio::test]
async fn unknown_or_malformed_ids_are_not_found() {
    let app = spawn_app().await;
    for id in [uuid::Uuid::new_v4().to_string(), "not-a-uuid".to_owned()] {
        for method in [Method::GET, Method::PUT, Method::DELETE] {
            let reply = app
                .send(app.as_service(method.clone(), &format!("/admin/users/{id}")).json(&json!({})))
                .await;
            assert_eq!((reply.status, reply.code()), (404, "user_not_found"), "{method} {id}");
        }
    }
}

/// Found by the fuzzer (`tests/fuzz_requests.rs`): PostgreSQL's jsonb refuses
/// `\u0000` (22P05), which GoTrue's renderer answered as a 500. Metadata the
/// database cannot hold is the client's error.
#[tokio::test]
async fn metadata_holding_a_nul_escape_is_a_validation_error() {
    let app = spawn_app().await;
    let cases = [
        json!({"email": "nul@example.com", "password": "s3cret-pw", "app_metadata": {"role": "\u{0}"}}),
        json!({"email": "nul@example.com", "password": "s3cret-pw", "user_metadata": {"name": "a\u{0}b"}}),
    ];
    for body in cases {
        let reply = app.admin_create_user(body.clone()).await;
        assert_eq!((reply.status, reply.code()), (400, "validation_failed"), "{body}: {:?}", reply.body);
    }
}
