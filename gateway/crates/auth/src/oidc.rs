//! Generic OpenID Connect providers: their configuration, their discovery
//! document and keys (cached), the code exchange, and ID-token validation
//! (OpenID Connect Core 1.0 §3.1.3.7; GoTrue does the same through go-oidc in
//! `internal/api/provider/oidc.go`).
//!
//! - Discovery (`<issuer>/.well-known/openid-configuration`) is fetched on
//!   first use and kept for an hour; its `issuer` must be the configured one.
//! - The JWKS is kept with it and fetched again when a token names a `kid` it
//!   does not hold (a provider rotated its keys), at most every 10 seconds so
//!   that made-up `kid`s cannot make the gateway hammer the provider.
//! - An ID token must be signed by one of those keys with an asymmetric
//!   algorithm (`alg: none` and HMAC are refused), name the issuer, have the
//!   client id among its audiences, and not have expired.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use gateway_core::config::Secret;

/// One provider of `AUTH_OIDC_PROVIDERS`: `name|issuer|client id|secret`.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    pub name: String,
    pub issuer: String,
    pub client_id: String,
    pub secret: Secret,
}

/// Names GoTrue gives to its own sign-in methods, which a provider cannot take.
const RESERVED: [&str; 4] = ["email", "phone", "anonymous_users", "sso"];

impl FromStr for ProviderConfig {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = text.trim().split('|').map(str::trim).collect();
        let [name, issuer, client_id, secret] = parts[..] else {
            return Err("an OIDC provider is `name|issuer URL|client id|client secret`".to_owned());
        };
        let valid_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if !valid_name || RESERVED.contains(&name) {
            return Err(format!(
                "OIDC provider name {name:?}: lower-case letters, digits, `_` and `-`, and not one of {RESERVED:?}"
            ));
        }
        if !(issuer.starts_with("https://") || issuer.starts_with("http://")) {
            return Err(format!("OIDC provider {name}: the issuer must be an http(s) URL"));
        }
        if client_id.is_empty() {
            return Err(format!("OIDC provider {name}: a client id is required"));
        }
        Ok(Self {
            name: name.to_owned(),
            issuer: issuer.to_owned(),
            client_id: client_id.to_owned(),
            secret: Secret::new(secret),
        })
    }
}

/// What the gateway reads of a discovery document.
#[derive(Clone, Debug, Deserialize)]
pub struct Discovery {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub jwks_uri: String,
}

struct Cached {
    discovery: Discovery,
    fetched: Instant,
    keys: Vec<Value>,
    keys_fetched: Instant,
}

const DISCOVERY_TTL: Duration = Duration::from_secs(3600);
const JWKS_REFETCH_MIN: Duration = Duration::from_secs(10);

fn cache() -> &'static Mutex<HashMap<String, Cached>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Cached>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default()
    })
}

async fn get_json(url: &str) -> Result<Value, String> {
    let response = client().get(url).send().await.map_err(|e| format!("GET {url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("GET {url}: status {}", response.status()));
    }
    let bytes = response.bytes().await.map_err(|e| format!("GET {url}: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("GET {url}: not JSON: {e}"))
}

/// The provider's discovery document, from the cache or fetched.
pub async fn discovery(provider: &ProviderConfig) -> Result<Discovery, String> {
    if let Some(cached) = lock().get(&provider.issuer).filter(|c| c.fetched.elapsed() < DISCOVERY_TTL) {
        return Ok(cached.discovery.clone());
    }
    let url = format!("{}/.well-known/openid-configuration", provider.issuer.trim_end_matches('/'));
    let discovery: Discovery =
        serde_json::from_value(get_json(&url).await?).map_err(|e| format!("discovery of {url}: {e}"))?;
    if discovery.issuer != provider.issuer {
        return Err(format!(
            "discovery names issuer {:?}, configured {:?}",
            discovery.issuer, provider.issuer
        ));
    }
    let keys = jwks(&discovery.jwks_uri).await?;
    let now = Instant::now();
    lock().insert(
        provider.issuer.clone(),
        Cached { discovery: discovery.clone(), fetched: now, keys, keys_fetched: now },
    );
    Ok(discovery)
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<String, Cached>> {
    cache().lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn jwks(uri: &str) -> Result<Vec<Value>, String> {
    let set = get_json(uri).await?;
    Ok(set.get("keys").and_then(Value::as_array).cloned().unwrap_or_default())
}

/// The JWK a token's `kid` names (or the only key, when the token names none).
fn pick(keys: &[Value], kid: Option<&str>) -> Option<Value> {
    match kid {
        Some(kid) => keys.iter().find(|k| k.get("kid").and_then(Value::as_str) == Some(kid)).cloned(),
        None if keys.len() == 1 => keys.first().cloned(),
        None => None,
    }
}

async fn key_for(provider: &ProviderConfig, kid: Option<&str>) -> Result<Value, String> {
    let discovery = discovery(provider).await?;
    let (found, may_refetch) = {
        let cache = lock();
        let cached = cache.get(&provider.issuer);
        (
            cached.and_then(|c| pick(&c.keys, kid)),
            cached.is_none_or(|c| c.keys_fetched.elapsed() >= JWKS_REFETCH_MIN),
        )
    };
    if let Some(key) = found {
        return Ok(key);
    }
    if !may_refetch {
        return Err(format!("no key {kid:?} in the provider's JWKS"));
    }
    let keys = jwks(&discovery.jwks_uri).await?;
    let key = pick(&keys, kid);
    if let Some(cached) = lock().get_mut(&provider.issuer) {
        cached.keys = keys;
        cached.keys_fetched = Instant::now();
    }
    key.ok_or_else(|| format!("no key {kid:?} in the provider's JWKS"))
}

/// The asymmetric algorithms an ID token may be signed with.
const ALGORITHMS: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// The claims of an ID token this provider signed for this client, or why
/// not. The nonce is checked by the caller, which knows what to expect.
pub async fn validate_id_token(provider: &ProviderConfig, token: &str) -> Result<Value, String> {
    let header = jsonwebtoken::decode_header(token).map_err(|e| format!("header: {e}"))?;
    if !ALGORITHMS.contains(&header.alg) {
        return Err(format!("algorithm {:?} is not accepted", header.alg));
    }
    let jwk = key_for(provider, header.kid.as_deref()).await?;
    if let Some(alg) = jwk.get("alg").and_then(Value::as_str)
        && alg != format!("{:?}", header.alg)
    {
        return Err(format!("the key is for {alg}, the token says {:?}", header.alg));
    }
    let parsed: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk).map_err(|e| format!("JWK: {e}"))?;
    let key = DecodingKey::from_jwk(&parsed).map_err(|e| format!("JWK: {e}"))?;
    let discovery = discovery(provider).await?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[&discovery.issuer]);
    validation.set_audience(&[&provider.client_id]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let data = jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|e| e.to_string())?;
    Ok(data.claims)
}

/// What a provider's token endpoint answered.
pub struct Exchanged {
    pub id_token: String,
    pub access_token: String,
    pub refresh_token: Option<String>,
}

/// Trades an authorization code for tokens, authenticating with the client
/// secret (`client_secret_basic`, RFC 6749 §2.3.1: both halves form-encoded).
pub async fn exchange_code(
    provider: &ProviderConfig,
    code: &str,
    redirect_uri: &str,
) -> Result<Exchanged, String> {
    let discovery = discovery(provider).await?;
    let body = form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "authorization_code")
        .append_pair("code", code)
        .append_pair("redirect_uri", redirect_uri)
        .finish();
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let basic =
        STANDARD.encode(format!("{}:{}", encode(&provider.client_id), encode(provider.secret.expose())));
    let response = client()
        .post(&discovery.token_endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .header("authorization", format!("Basic {basic}"))
        .body(body)
        .send()
        .await
        .map_err(|e| format!("token endpoint: {e}"))?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|e| format!("token endpoint: {e}"))?;
    let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("token endpoint answered {status}: {}", answer["error"].as_str().unwrap_or("")));
    }
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(Exchanged {
        id_token: text("id_token").ok_or("the token endpoint returned no id_token")?,
        access_token: text("access_token").unwrap_or_default(),
        refresh_token: text("refresh_token").filter(|t| !t.is_empty()),
    })
}

/// A random value for `state`, `nonce` and auth codes: 32 bytes, base64url.
pub fn random_token() -> Result<String, gateway_core::error::ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(gateway_core::error::ApiError::internal)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The identity data GoTrue keeps for an OIDC identity (`provider.Claims`):
/// the standard claims present, plus `provider_id`, `full_name` and
/// `avatar_url` as GoTrue adds them; anything else under `custom_claims`.
pub fn identity_data(claims: &Value) -> Value {
    const STANDARD_CLAIMS: [&str; 19] = [
        "iss",
        "sub",
        "name",
        "family_name",
        "given_name",
        "middle_name",
        "nickname",
        "preferred_username",
        "profile",
        "picture",
        "website",
        "gender",
        "birthdate",
        "zoneinfo",
        "locale",
        "email",
        "email_verified",
        "phone_number",
        "phone_number_verified",
    ];
    const PROTOCOL: [&str; 10] =
        ["aud", "exp", "iat", "nbf", "nonce", "at_hash", "c_hash", "auth_time", "azp", "jti"];
    let mut data = serde_json::Map::new();
    let mut custom = serde_json::Map::new();
    if let Some(object) = claims.as_object() {
        for (key, value) in object {
            if STANDARD_CLAIMS.contains(&key.as_str()) {
                data.insert(key.clone(), value.clone());
            } else if !PROTOCOL.contains(&key.as_str()) {
                custom.insert(key.clone(), value.clone());
            }
        }
    }
    let copy = |data: &mut serde_json::Map<String, Value>, from: &str, to: &str| {
        if let Some(value) = claims.get(from).filter(|v| !v.is_null()) {
            data.insert(to.to_owned(), value.clone());
        }
    };
    copy(&mut data, "sub", "provider_id");
    copy(&mut data, "name", "full_name");
    copy(&mut data, "picture", "avatar_url");
    copy(&mut data, "phone_number", "phone");
    copy(&mut data, "phone_number_verified", "phone_verified");
    if let Some(email) = claims.get("email").and_then(Value::as_str) {
        data.insert("email".to_owned(), Value::String(email.to_lowercase()));
    }
    let verified = claims.get("email_verified").is_some_and(|v| v == &Value::Bool(true) || v == "true");
    data.insert("email_verified".to_owned(), Value::Bool(verified));
    if !custom.is_empty() {
        data.insert("custom_claims".to_owned(), Value::Object(custom));
    }
    Value::Object(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_are_read_from_their_four_parts() {
        let ok: ProviderConfig = "corp|https://id.example.com|gw|s3cret".parse().expect("provider");
        assert_eq!(
            (ok.name.as_str(), ok.issuer.as_str(), ok.client_id.as_str()),
            ("corp", "https://id.example.com", "gw")
        );
        assert!(!format!("{ok:?}").contains("s3cret"), "the secret never prints");
        let bad = [
            "corp|https://id.example.com|gw",
            "Corp|https://id.example.com|gw|s",
            "email|https://id.example.com|gw|s",
            "corp|id.example.com|gw|s",
            "corp|https://id.example.com||s",
        ];
        for text in bad {
            assert!(text.parse::<ProviderConfig>().is_err(), "{text}");
        }
    }

    #[test]
    fn identity_data_keeps_standard_claims_and_adds_gotrues_names() {
        let claims = serde_json::json!({"iss": "https://i", "sub": "42", "aud": "gw", "exp": 1, "nonce": "n",
            "email": "A@B.co", "email_verified": true, "name": "Ann", "picture": "https://p", "team": "red"});
        let data = identity_data(&claims);
        assert_eq!(
            data,
            serde_json::json!({"iss": "https://i", "sub": "42", "provider_id": "42", "email": "a@b.co",
                "email_verified": true, "name": "Ann", "full_name": "Ann", "picture": "https://p",
                "avatar_url": "https://p", "custom_claims": {"team": "red"}})
        );
    }
}
