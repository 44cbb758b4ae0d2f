//! Helpers for the `/auth/v1` suites: requests as supabase-js sends them, and
//! users made through the admin API.

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use super::{Options, TestApp, spawn_app_with, test_config};
use gateway::auth::AuthConfig;

/// A gateway whose auth settings are changed by `change`.
pub async fn spawn_auth_app(change: impl FnOnce(&mut AuthConfig)) -> TestApp {
    let mut config = test_config();
    change(&mut config.auth);
    spawn_app_with(Options { config, ..Options::default() }).await
}

/// What came back: status and JSON body (`Null` when empty).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Reply {
    /// GoTrue's error code, from the body.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

impl TestApp {
    /// A request to `/auth/v1{path}` with the anon key, as auth-js sends it.
    pub fn auth(&self, method: Method, path: &str) -> RequestBuilder {
        self.auth_bearing(method, path, &self.anon_key)
    }

    /// A request to `/auth/v1{path}` with the anon key and `bearer` as the
    /// `Authorization` token.
    pub fn auth_bearing(&self, method: Method, path: &str, bearer: &str) -> RequestBuilder {
        self.client
            .request(method, format!("{}/auth/v1{path}", self.address))
            .header("apikey", &self.anon_key)
            .header("authorization", format!("Bearer {bearer}"))
            .header("x-supabase-api-version", "2024-01-01")
    }

    pub async fn send(&self, request: RequestBuilder) -> Reply {
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        let body =
            if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("json body") };
        Reply { status, headers, body }
    }

    /// `POST /admin/users` with the service key.
    pub async fn admin_create_user(&self, body: Value) -> Reply {
        let request = self.as_service(Method::POST, "/admin/users").json(&body);
        self.send(request).await
    }

    /// A confirmed e-mail user; returns its id.
    pub async fn confirmed_user(&self, email: &str, password: &str) -> String {
        let reply = self
            .admin_create_user(json!({"email": email, "password": password, "email_confirm": true}))
            .await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        reply.body["id"].as_str().expect("id").to_owned()
    }

    pub async fn password_grant(&self, email: &str, password: &str) -> Reply {
        let request = self
            .auth(Method::POST, "/token?grant_type=password")
            .json(&json!({"email": email, "password": password, "gotrue_meta_security": {}}));
        self.send(request).await
    }

    /// Signs in and returns the session object.
    pub async fn sign_in(&self, email: &str, password: &str) -> Value {
        let reply = self.password_grant(email, password).await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        reply.body
    }

    pub async fn refresh(&self, refresh_token: &str) -> Reply {
        let request = self
            .auth(Method::POST, "/token?grant_type=refresh_token")
            .json(&json!({"refresh_token": refresh_token}));
        self.send(request).await
    }

    /// A request to `/auth/v1{path}` carrying a user's access token.
    pub fn as_user(&self, method: Method, path: &str, access_token: &str) -> RequestBuilder {
        self.auth_bearing(method, path, access_token)
    }

    pub fn as_service(&self, method: Method, path: &str) -> RequestBuilder {
        self.auth_bearing(method, path, &self.service_key)
    }
}

/// The access token of a session object.
pub fn access_token(session: &Value) -> &str {
    session["access_token"].as_str().expect("access_token")
}

pub fn refresh_token(session: &Value) -> &str {
    session["refresh_token"].as_str().expect("refresh_token")
}
