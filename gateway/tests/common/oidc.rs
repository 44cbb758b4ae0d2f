//! A small OpenID Connect provider on loopback, for the sign-in tests: it
//! really signs its ID tokens (RS256, a key generated per test process) and
//! really checks what a provider checks (client id and secret, redirect URI,
//! single-use codes), so the gateway is tested against the protocol, never
//! against a stub that would accept anything.
//!
//! - `GET /.well-known/openid-configuration` and `GET /jwks`;
//! - `GET /authorize`: consents at once and sends the browser back to the
//!   redirect URI with a code and the state (or with `error=access_denied`
//!   while [`Provider::deny`] is set);
//! - `POST /token`: `client_secret_basic`, `authorization_code`, the same
//!   `redirect_uri`; answers with an ID token carrying the nonce.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::{
    Json, Router,
    extract::{Query, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

pub const CLIENT_ID: &str = "gateway-test-client";
pub const CLIENT_SECRET: &str = "gateway-test-client-secret";

/// An RSA key and its public JWK.
pub struct Key {
    pub kid: String,
    encoding: EncodingKey,
    pub jwk: Value,
}

impl Key {
    pub fn generate(kid: &str) -> Self {
        use rsa::pkcs1::EncodeRsaPrivateKey;
        use rsa::traits::PublicKeyParts;
        let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048).expect("rsa key");
        let der = key.to_pkcs1_der().expect("der");
        let jwk = json!({"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
            "n": URL_SAFE_NO_PAD.encode(key.n().to_bytes_be()), "e": URL_SAFE_NO_PAD.encode(key.e().to_bytes_be())});
        Self { kid: kid.to_owned(), encoding: EncodingKey::from_rsa_der(der.as_bytes()), jwk }
    }

    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("sign")
    }
}

/// The provider's key, and a stranger's with the same `kid`, made once per
/// test process (RSA generation is slow in debug builds).
pub fn keys() -> &'static (Key, Key) {
    static KEYS: OnceLock<(Key, Key)> = OnceLock::new();
    KEYS.get_or_init(|| (Key::generate("provider-key-1"), Key::generate("provider-key-1")))
}

/// Who signs in at the provider.
#[derive(Clone, Debug)]
pub struct Person {
    pub sub: String,
    pub email: String,
    pub email_verified: bool,
    pub name: String,
}

#[derive(Default)]
struct Inner {
    person: Option<Person>,
    codes: HashMap<String, (String, Option<String>)>,
    deny: bool,
    token_requests: u32,
}

#[derive(Clone)]
pub struct Provider {
    pub issuer: String,
    inner: Arc<Mutex<Inner>>,
}

impl Provider {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let issuer = format!("http://{}", listener.local_addr().expect("address"));
        let provider = Provider { issuer, inner: Arc::default() };
        provider.sign_in_as(Person {
            sub: "provider-user-1".to_owned(),
            email: "oidc.user@example.com".to_owned(),
            email_verified: true,
            name: "Olga Idc".to_owned(),
        });
        let app = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(jwks))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(provider.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        provider
    }

    /// `AUTH_OIDC_PROVIDERS` for this provider under `name`.
    pub fn config(&self, name: &str) -> gateway::auth::oidc::ProviderConfig {
        format!("{name}|{}|{CLIENT_ID}|{CLIENT_SECRET}", self.issuer).parse().expect("provider config")
    }

    pub fn sign_in_as(&self, person: Person) {
        self.inner.lock().expect("lock").person = Some(person);
    }

    /// The user refuses consent.
    pub fn deny(&self, deny: bool) {
        self.inner.lock().expect("lock").deny = deny;
    }

    pub fn token_requests(&self) -> u32 {
        self.inner.lock().expect("lock").token_requests
    }

    /// Standard ID-token claims for the current person, valid for an hour.
    pub fn claims(&self, nonce: Option<&str>) -> Value {
        let person = self.inner.lock().expect("lock").person.clone().expect("person");
        let now = gateway::jwt::now();
        let mut claims = json!({"iss": self.issuer, "sub": person.sub, "aud": CLIENT_ID, "iat": now,
            "exp": now + 3600, "email": person.email, "email_verified": person.email_verified,
            "name": person.name});
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        claims
    }
}

async fn discovery(State(provider): State<Provider>) -> Json<Value> {
    let issuer = &provider.issuer;
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    }))
}

async fn jwks() -> Json<Value> {
    Json(json!({"keys": [keys().0.jwk]}))
}

fn redirect(location: String) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

async fn authorize(
    State(provider): State<Provider>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (Some(redirect_uri), Some(state)) = (query.get("redirect_uri"), query.get("state")) else {
        return (StatusCode::BAD_REQUEST, "redirect_uri and state are required").into_response();
    };
    let scopes = query.get("scope").map(String::as_str).unwrap_or("");
    if query.get("client_id").map(String::as_str) != Some(CLIENT_ID)
        || query.get("response_type").map(String::as_str) != Some("code")
        || !scopes.split(' ').any(|s| s == "openid")
    {
        return (StatusCode::BAD_REQUEST, "bad authorization request").into_response();
    }
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let mut inner = provider.inner.lock().expect("lock");
    if inner.deny {
        return redirect(format!(
            "{redirect_uri}?error=access_denied&error_description={}&state={}",
            encode("The user said no"),
            encode(state)
        ));
    }
    let code = URL_SAFE_NO_PAD.encode(uuid::Uuid::new_v4().as_bytes());
    inner.codes.insert(code.clone(), (redirect_uri.clone(), query.get("nonce").cloned()));
    redirect(format!("{redirect_uri}?code={code}&state={}", encode(state)))
}

fn oauth_error(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({"error": error}))).into_response()
}

async fn token(State(provider): State<Provider>, headers: HeaderMap, body: String) -> Response {
    provider.inner.lock().expect("lock").token_requests += 1;
    let form: HashMap<String, String> = form_urlencoded::parse(body.as_bytes()).into_owned().collect();
    let credentials = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let expected = format!("{CLIENT_ID}:{CLIENT_SECRET}");
    if credentials.as_deref() != Some(expected.as_str()) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let code = form.get("code").cloned().unwrap_or_default();
    let Some((redirect_uri, nonce)) = provider.inner.lock().expect("lock").codes.remove(&code) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
    };
    if form.get("redirect_uri") != Some(&redirect_uri) {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
    }
    let id_token = keys().0.sign(&provider.claims(nonce.as_deref()));
    Json(
        json!({"access_token": format!("provider-access-{code}"), "token_type": "Bearer", "expires_in": 3600,
        "refresh_token": format!("provider-refresh-{code}"), "id_token": id_token}),
    )
    .into_response()
}
