//! OAuth clients: the administrator's CRUD at `/admin/oauth/clients` and
//! dynamic registration at `/oauth/clients/register` (supabase/auth
//! `internal/api/oauthserver/handlers.go`, `service.go`, `client_auth.go`).
//!
//! A confidential client gets a secret of 32 random bytes, shown once (on
//! creation and regeneration); the table keeps its SHA-256, as GoTrue does.

use axum::{
    Json,
    extract::{Path, State},
    http::StatusCode,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::{enabled, store};
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::{Admin, Body};
use gateway_core::error::ApiError;

pub const AUTH_METHODS: [&str; 3] = ["none", "client_secret_basic", "client_secret_post"];

/// A client as stored.
#[derive(Debug, Clone)]
pub struct Client {
    pub id: Uuid,
    pub secret_hash: Option<String>,
    pub registration_type: String,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub name: Option<String>,
    pub uri: Option<String>,
    pub logo_uri: Option<String>,
    pub client_type: String,
    pub token_endpoint_auth_method: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Client {
    pub fn is_public(&self) -> bool {
        self.client_type == "public"
    }

    /// GoTrue's `OAuthServerClientResponse`: empty fields left out, the secret
    /// only when just made.
    pub fn to_json(&self, secret: Option<&str>) -> Value {
        let mut body = json!({
            "client_id": self.id.to_string(),
            "client_type": self.client_type,
            "redirect_uris": self.redirect_uris,
            "token_endpoint_auth_method": self.token_endpoint_auth_method,
            "grant_types": self.grant_types,
            "response_types": ["code"],
            "registration_type": self.registration_type,
            "created_at": self.created_at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            "updated_at": self.updated_at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        });
        let optional = [
            ("client_secret", secret),
            ("client_name", self.name.as_deref()),
            ("client_uri", self.uri.as_deref()),
            ("logo_uri", self.logo_uri.as_deref()),
        ];
        if let Some(map) = body.as_object_mut() {
            for (key, value) in optional {
                if let Some(value) = value.filter(|v| !v.is_empty()) {
                    map.insert(key.to_owned(), json!(value));
                }
            }
        }
        body
    }

    /// The client's own summary in consent details and grants (GoTrue's
    /// `ClientDetailsResponse`).
    pub fn details(&self) -> Value {
        let mut body = json!({ "id": self.id.to_string() });
        let optional = [("name", &self.name), ("uri", &self.uri), ("logo_uri", &self.logo_uri)];
        if let Some(map) = body.as_object_mut() {
            for (key, value) in optional {
                if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                    map.insert(key.to_owned(), json!(value));
                }
            }
        }
        body
    }
}

/// A new secret and what the table keeps of it.
pub fn new_secret() -> Result<(String, String), ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    let secret = URL_SAFE_NO_PAD.encode(bytes);
    let hash = secret_hash(&secret);
    Ok((secret, hash))
}

fn secret_hash(secret: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `presented` is the client's secret, in constant time.
pub fn secret_matches(client: &Client, presented: &str) -> bool {
    let Some(stored) = client.secret_hash.as_deref() else {
        return false;
    };
    let computed = secret_hash(presented);
    computed.len() == stored.len() && bool::from(computed.as_bytes().ct_eq(stored.as_bytes()))
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct RegisterParams {
    pub redirect_uris: Vec<String>,
    pub client_type: String,
    pub token_endpoint_auth_method: String,
    pub grant_types: Vec<String>,
    pub client_name: String,
    pub client_uri: String,
    pub logo_uri: String,
}

/// What a registration stores, checked.
#[derive(Debug, PartialEq)]
pub struct NewClient {
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub client_type: &'static str,
    pub token_endpoint_auth_method: String,
    pub name: Option<String>,
    pub uri: Option<String>,
    pub logo_uri: Option<String>,
}

/// Checks a registration as GoTrue's `OAuthServerClientRegisterParams.validate`
/// does and fills in its defaults: both grant types; a confidential client
/// authenticating with `client_secret_basic` unless told otherwise, the type
/// following from the method when only the method is given.
pub fn checked(params: RegisterParams) -> Result<NewClient, AuthError> {
    check_redirect_uris(&params.redirect_uris, true)?;
    if !params.grant_types.is_empty() {
        check_grant_types(&params.grant_types)?;
    }
    check_text(&params.client_name, &params.client_uri, &params.logo_uri)?;
    let client_type = match params.client_type.as_str() {
        "" => None,
        "public" => Some("public"),
        "confidential" => Some("confidential"),
        _ => return Err(AuthError::validation_failed("client_type must be 'public' or 'confidential'")),
    };
    let method = params.token_endpoint_auth_method;
    if !method.is_empty() && !AUTH_METHODS.contains(&method.as_str()) {
        return Err(AuthError::validation_failed(format!(
            "token_endpoint_auth_method must be one of: [{}]",
            AUTH_METHODS.join(" ")
        )));
    }
    let implied = if method == "none" { "public" } else { "confidential" };
    if let Some(client_type) = client_type.filter(|t| !method.is_empty() && *t != implied) {
        return Err(AuthError::validation_failed(format!(
            "client_type '{client_type}' is inconsistent with token_endpoint_auth_method '{method}' \
             (expected client_type '{implied}')"
        )));
    }
    let client_type = client_type.unwrap_or(if method.is_empty() { "confidential" } else { implied });
    let method = match (method.is_empty(), client_type) {
        (true, "public") => "none".to_owned(),
        (true, _) => "client_secret_basic".to_owned(),
        (false, _) => method,
    };
    let grant_types = if params.grant_types.is_empty() {
        vec!["authorization_code".to_owned(), "refresh_token".to_owned()]
    } else {
        params.grant_types
    };
    let some = |s: String| Some(s).filter(|s| !s.is_empty());
    Ok(NewClient {
        redirect_uris: params.redirect_uris,
        grant_types,
        client_type,
        token_endpoint_auth_method: method,
        name: some(params.client_name),
        uri: some(params.client_uri),
        logo_uri: some(params.logo_uri),
    })
}

fn check_redirect_uris(uris: &[String], required: bool) -> Result<(), AuthError> {
    if uris.is_empty() {
        let what = if required { "redirect_uris is required" } else { "redirect_uris cannot be empty" };
        return Err(AuthError::validation_failed(what));
    }
    if uris.len() > 10 {
        return Err(AuthError::validation_failed("redirect_uris cannot exceed 10 items"));
    }
    for uri in uris {
        if let Err(reason) = redirect_uri_problem(uri) {
            return Err(AuthError::validation_failed(format!("invalid redirect_uri '{uri}': {reason}")));
        }
    }
    Ok(())
}

/// GoTrue's `validateRedirectURI`: an absolute URL with a host, no fragment,
/// no scheme a browser would run, and plain HTTP only to this machine. Commas
/// are refused too: the column keeps the list comma-separated.
fn redirect_uri_problem(uri: &str) -> Result<(), &'static str> {
    if uri.is_empty() {
        return Err("redirect URI cannot be empty");
    }
    if uri.contains(',') {
        return Err("invalid URL format");
    }
    let url = reqwest::Url::parse(uri).map_err(|_| "must have scheme and host")?;
    if ["javascript", "data", "file", "vbscript", "about", "blob"].contains(&url.scheme()) {
        return Err("scheme is not allowed for security reasons");
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err("must have scheme and host");
    };
    if url.scheme() == "http" && !["localhost", "127.0.0.1", "[::1]"].contains(&host) {
        return Err("HTTP scheme only allowed for localhost");
    }
    if url.fragment().is_some() {
        return Err("fragment not allowed in redirect URI");
    }
    Ok(())
}

fn check_grant_types(grant_types: &[String]) -> Result<(), AuthError> {
    if grant_types.is_empty() {
        return Err(AuthError::validation_failed("grant_types cannot be empty"));
    }
    if grant_types.iter().any(|g| g != "authorization_code" && g != "refresh_token") {
        return Err(AuthError::validation_failed(
            "grant_types must only contain 'authorization_code' and/or 'refresh_token'",
        ));
    }
    Ok(())
}

fn check_text(name: &str, uri: &str, logo_uri: &str) -> Result<(), AuthError> {
    if name.chars().count() > 1024 {
        return Err(AuthError::validation_failed("client_name cannot exceed 1024 characters"));
    }
    for (key, value) in [("client_uri", uri), ("logo_uri", logo_uri)] {
        if value.chars().count() > 2048 {
            return Err(AuthError::validation_failed(format!("{key} cannot exceed 2048 characters")));
        }
        if !value.is_empty() && reqwest::Url::parse(value).is_err() {
            return Err(AuthError::validation_failed(format!("{key} must be a valid URL")));
        }
    }
    Ok(())
}

/// `PUT /admin/oauth/clients/{id}`: only the fields given change.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct UpdateParams {
    pub redirect_uris: Option<Vec<String>>,
    pub grant_types: Option<Vec<String>>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub logo_uri: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
}

fn check_update(client: &Client, params: &UpdateParams) -> Result<(), AuthError> {
    let nothing = params.redirect_uris.is_none()
        && params.grant_types.is_none()
        && params.client_name.is_none()
        && params.client_uri.is_none()
        && params.logo_uri.is_none()
        && params.token_endpoint_auth_method.is_none();
    if nothing {
        return Err(AuthError::validation_failed("No fields provided for update"));
    }
    if let Some(uris) = &params.redirect_uris {
        check_redirect_uris(uris, false)?;
    }
    if let Some(grant_types) = &params.grant_types {
        check_grant_types(grant_types)?;
    }
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    check_text(&text(&params.client_name), &text(&params.client_uri), &text(&params.logo_uri))?;
    if let Some(method) = &params.token_endpoint_auth_method {
        let valid: &[&str] =
            if client.is_public() { &["none"] } else { &["client_secret_basic", "client_secret_post"] };
        if !valid.contains(&method.as_str()) {
            return Err(AuthError::validation_failed(format!(
                "token_endpoint_auth_method '{method}' is not valid for client_type '{}'; valid methods: [{}]",
                client.client_type,
                valid.join(" ")
            )));
        }
    }
    Ok(())
}

async fn register(
    state: &AuthState,
    params: RegisterParams,
    registration_type: &str,
) -> Result<Value, ApiError> {
    let new = checked(params)?;
    let secret = if new.client_type == "confidential" { Some(new_secret()?) } else { None };
    let hash = secret.as_ref().map(|(_, hash)| hash.as_str());
    let client = store::create_client(&state.db, &new, hash, registration_type).await?;
    Ok(client.to_json(secret.as_ref().map(|(secret, _)| secret.as_str())))
}

async fn existing(state: &AuthState, id: &str) -> Result<Client, ApiError> {
    let id = Uuid::parse_str(id).map_err(|_| AuthError::validation_failed("invalid client_id format"))?;
    store::find_client(&state.db, id).await?.ok_or_else(|| AuthError::oauth_client_not_found().into())
}

pub async fn admin_create(
    State(state): State<AuthState>,
    _: Admin,
    Body(params): Body<RegisterParams>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    enabled(&state)?;
    Ok((StatusCode::CREATED, Json(register(&state, params, "manual").await?)))
}

pub async fn dynamic_register(
    State(state): State<AuthState>,
    Body(params): Body<RegisterParams>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    enabled(&state)?;
    if !state.config.oauth_server_allow_dynamic_registration {
        return Err(AuthError::oauth_dynamic_client_registration_disabled().into());
    }
    Ok((StatusCode::CREATED, Json(register(&state, params, "dynamic").await?)))
}

pub async fn admin_list(State(state): State<AuthState>, _: Admin) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let clients = store::list_clients(&state.db).await?;
    Ok(Json(json!({ "clients": clients.iter().map(|c| c.to_json(None)).collect::<Vec<_>>() })))
}

pub async fn admin_get(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    Ok(Json(existing(&state, &id).await?.to_json(None)))
}

pub async fn admin_update(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
    Body(params): Body<UpdateParams>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let client = existing(&state, &id).await?;
    check_update(&client, &params)?;
    let updated = store::update_client(&state.db, client.id, &params).await?;
    let updated = updated.ok_or_else(AuthError::oauth_client_not_found)?;
    Ok(Json(updated.to_json(None)))
}

/// Deletes the client as GoTrue does, by marking it deleted: it can no
/// longer authorize or authenticate, and its sessions stop refreshing.
pub async fn admin_delete(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    enabled(&state)?;
    let client = existing(&state, &id).await?;
    store::delete_client(&state.db, client.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn admin_regenerate_secret(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let client = existing(&state, &id).await?;
    if client.is_public() {
        return Err(AuthError::validation_failed("Cannot regenerate secret for public client").into());
    }
    let (secret, hash) = new_secret()?;
    let updated = store::set_client_secret(&state.db, client.id, &hash).await?;
    let updated = updated.ok_or_else(AuthError::oauth_client_not_found)?;
    Ok(Json(updated.to_json(Some(&secret))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(uris: &[&str], client_type: &str, method: &str) -> RegisterParams {
        RegisterParams {
            redirect_uris: uris.iter().map(|u| (*u).to_owned()).collect(),
            client_type: client_type.to_owned(),
            token_endpoint_auth_method: method.to_owned(),
            ..RegisterParams::default()
        }
    }

    #[test]
    fn the_type_and_method_of_a_registration_follow_from_each_other() {
        let uri = ["https://app.example/cb"];
        let cases = [
            ("", "", Ok(("confidential", "client_secret_basic"))),
            ("public", "", Ok(("public", "none"))),
            ("", "none", Ok(("public", "none"))),
            ("", "client_secret_post", Ok(("confidential", "client_secret_post"))),
            ("confidential", "client_secret_post", Ok(("confidential", "client_secret_post"))),
            ("public", "client_secret_basic", Err("validation_failed")),
            ("confidential", "none", Err("validation_failed")),
            ("secret", "", Err("validation_failed")),
            ("", "private_key_jwt", Err("validation_failed")),
        ];
        for (client_type, method, expected) in cases {
            let got = checked(params(&uri, client_type, method))
                .map(|c| (c.client_type, c.token_endpoint_auth_method))
                .map_err(|e| e.code);
            let expected = expected.map(|(t, m)| (t, m.to_owned()));
            assert_eq!(got, expected, "{client_type:?} {method:?}");
        }
    }

    #[test]
    fn redirect_uris_are_checked_as_gotrue_checks_them() {
        let cases = [
            ("https://app.example/callback", Ok(())),
            ("http://localhost:3000/cb", Ok(())),
            ("http://127.0.0.1/cb", Ok(())),
            ("com.example.app://callback", Ok(())),
            ("http://app.example/cb", Err("HTTP scheme only allowed for localhost")),
            ("https://app.example/cb#x", Err("fragment not allowed in redirect URI")),
            ("javascript://alert(1)", Err("scheme is not allowed for security reasons")),
            ("/relative", Err("must have scheme and host")),
            ("", Err("redirect URI cannot be empty")),
            ("https://a.example/x,https://b.example/y", Err("invalid URL format")),
        ];
        for (uri, expected) in cases {
            assert_eq!(redirect_uri_problem(uri), expected, "{uri}");
        }
    }

    #[test]
    fn registrations_need_redirect_uris_and_known_grant_types() {
        let cases: [(RegisterParams, &str); 4] = [
            (params(&[], "", ""), "redirect_uris is required"),
            (params(&["https://a.example/cb"; 11], "", ""), "redirect_uris cannot exceed 10 items"),
            (
                RegisterParams {
                    grant_types: vec!["password".to_owned()],
                    ..params(&["https://a.example/cb"], "", "")
                },
                "grant_types must only contain 'authorization_code' and/or 'refresh_token'",
            ),
            (
                RegisterParams {
                    client_uri: "not a url".to_owned(),
                    ..params(&["https://a.example/cb"], "", "")
                },
                "client_uri must be a valid URL",
            ),
        ];
        for (params, message) in cases {
            assert_eq!(checked(params).map_err(|e| e.message).err().as_deref(), Some(message));
        }
        let defaults = checked(params(&["https://a.example/cb"], "", "")).expect("valid");
        assert_eq!(defaults.grant_types, ["authorization_code", "refresh_token"]);
    }

    #[test]
    fn secrets_are_kept_as_digests_and_checked() {
        let (secret, hash) = new_secret().expect("secret");
        assert_eq!(secret.len(), 43);
        assert!(!hash.contains(&secret));
        let client = Client {
            id: Uuid::nil(),
            secret_hash: Some(hash),
            registration_type: "manual".to_owned(),
            redirect_uris: vec![],
            grant_types: vec![],
            name: None,
            uri: None,
            logo_uri: None,
            client_type: "confidential".to_owned(),
            token_endpoint_auth_method: "client_secret_basic".to_owned(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        };
        assert!(secret_matches(&client, &secret));
        assert!(!secret_matches(&client, "another"));
        assert!(!secret_matches(&Client { secret_hash: None, ..client }, &secret));
    }
}
