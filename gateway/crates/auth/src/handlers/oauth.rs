//! Sign-in through OpenID Connect providers (supabase/auth
//! `internal/api/external.go`, `external_oauth.go`, `token.go` `PKCE`,
//! `token_oidc.go`, `identity.go`):
//!
//! - `GET /authorize?provider=&redirect_to=&scopes=&code_challenge=&code_challenge_method=`
//!   (`signInWithOAuth`) records a flow (`auth.flow_state`) and sends the
//!   browser to the provider with a signed `state` naming that flow and a
//!   fresh `nonce`;
//! - `GET|POST /callback` takes the provider's code once per state, trades it
//!   for an ID token, validates it (`auth::oidc`), finds or creates the user
//!   and sends the browser back to `redirect_to`: with `?code=` for PKCE
//!   (traded at `/token?grant_type=pkce`, `exchangeCodeForSession`), or with
//!   the session in the fragment (implicit flow); failures travel as
//!   `error`, `error_description` and `error_code`;
//! - `POST /token?grant_type=id_token` (`signInWithIdToken`) validates an ID
//!   token the app obtained itself (with `link_identity`, `linkIdentityIdToken`);
//! - `GET /user/identities/authorize` (`linkIdentity`) and
//!   `DELETE /user/identities/{id}` (`unlinkIdentity`), behind
//!   `AUTH_SECURITY_MANUAL_LINKING_ENABLED`.

use std::net::IpAddr;

use axum::{
    Json,
    body::Bytes,
    extract::{Path, RawQuery, State},
    http::{HeaderMap, Method, StatusCode, header},
    response::{IntoResponse, Response},
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use reqwest::Url;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::query_param;
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::external::{self, Account, Claimed, External, NewFlow, Unlinked};
use crate::extract::{ClientIp, SignedIn, UserAgent};
use crate::flow_state::{self, Pkce};
use crate::oidc::{self, ProviderConfig};
use crate::ratelimit::{self, Bucket};
use crate::store::method;
use crate::tokens;
use gateway_core::error::ApiError;

fn provider<'a>(state: &'a AuthState, name: &str) -> Option<&'a ProviderConfig> {
    let name = name.trim().to_lowercase();
    state.config.oidc_providers.iter().find(|p| p.name == name)
}

/// `<AUTH_EXTERNAL_URL>/callback`, registered with every provider.
fn callback_url(state: &AuthState) -> String {
    let base = state.config.external_url.as_deref().unwrap_or(&state.config.jwt_issuer);
    format!("{}/callback", base.trim_end_matches('/'))
}

fn referrer(state: &AuthState, query: Option<&str>, headers: &HeaderMap) -> String {
    let allowed = |candidate: &str| {
        crate::redirect::allowed(candidate, crate::site_url(state), &state.config.uri_allow_list)
    };
    let requested = query_param(query, "redirect_to").filter(|r| allowed(r));
    let referer = || {
        headers.get(header::REFERER).and_then(|v| v.to_str().ok()).filter(|r| allowed(r)).map(str::to_owned)
    };
    requested.or_else(referer).unwrap_or_else(|| crate::site_url(state).to_owned())
}

/// The `state` sent to the provider: the flow's id and an HMAC of it under
/// a key derived from the JWT secret, so a forged or altered state is
/// refused before the database is asked; the flow row makes it single use.
fn sign_state(state: &AuthState, flow: Uuid) -> Result<String, ApiError> {
    Ok(format!("{flow}.{}", URL_SAFE_NO_PAD.encode(state_mac(state, flow)?)))
}

fn state_mac(state: &AuthState, flow: Uuid) -> Result<Vec<u8>, ApiError> {
    let mut mac = Hmac::<Sha256>::new_from_slice(state.credentials.jwt.secret().expose().as_bytes())
        .map_err(ApiError::internal)?;
    mac.update(b"gateway oauth state");
    mac.update(flow.as_bytes());
    Ok(mac.finalize().into_bytes().to_vec())
}

fn verify_state(state: &AuthState, text: &str) -> Result<Option<Uuid>, ApiError> {
    let Some((id, mac)) = text.split_once('.') else { return Ok(None) };
    let (Ok(id), Ok(mac)) = (Uuid::parse_str(id), URL_SAFE_NO_PAD.decode(mac)) else { return Ok(None) };
    let expected = state_mac(state, id)?;
    Ok(bool::from(expected.ct_eq(&mac)).then_some(id))
}

fn found(location: &str, status: StatusCode) -> Response {
    (status, [(header::LOCATION, location.to_owned())]).into_response()
}

fn pkce_params(query: Option<&str>) -> Result<Option<Pkce>, AuthError> {
    let challenge = query_param(query, "code_challenge");
    let method = query_param(query, "code_challenge_method");
    flow_state::params(challenge.as_deref(), method.as_deref())
}

/// Records the flow and builds the provider's authorization URL.
async fn start_flow(
    state: &AuthState,
    query: Option<&str>,
    headers: &HeaderMap,
    linking_target: Option<Uuid>,
) -> Result<String, ApiError> {
    let name = query_param(query, "provider").unwrap_or_default();
    let provider =
        provider(state, &name).ok_or_else(|| AuthError::unsupported_provider(&name.to_lowercase()))?;
    let pkce = pkce_params(query)?;
    let referrer = referrer(state, query, headers);
    let discovery = oidc::discovery(provider).await.map_err(|e| {
        tracing::warn!(provider = %provider.name, error = %e, "OIDC discovery failed");
        ApiError::internal(e)
    })?;
    let id = Uuid::new_v4();
    let nonce = oidc::random_token()?;
    // GoTrue's auth codes are UUIDs (122 random bits), good for one exchange.
    let auth_code = pkce.as_ref().map(|_| Uuid::new_v4().to_string());
    external::create_flow(
        &state.db,
        &NewFlow {
            id,
            provider: &provider.name,
            pkce: pkce.as_ref().map(|p| (p.challenge.as_str(), p.method.as_str())),
            auth_code: auth_code.as_deref(),
            referrer: &referrer,
            nonce: &nonce,
            linking_target,
        },
    )
    .await?;
    let mut scopes = vec!["openid".to_owned(), "email".to_owned(), "profile".to_owned()];
    for scope in query_param(query, "scopes").unwrap_or_default().split([' ', ',']).filter(|s| !s.is_empty())
    {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    let mut url = Url::parse(&discovery.authorization_endpoint).map_err(ApiError::internal)?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &provider.client_id)
        .append_pair("redirect_uri", &callback_url(state))
        .append_pair("scope", &scopes.join(" "))
        .append_pair("state", &sign_state(state, id)?)
        .append_pair("nonce", &nonce);
    Ok(url.into())
}

/// `GET /authorize`: 302 to the provider.
pub async fn authorize(
    State(state): State<AuthState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let url = start_flow(&state, query.as_deref(), &headers, None).await?;
    Ok(found(&url, StatusCode::FOUND))
}

/// `GET /user/identities/authorize` (`linkIdentity`): the same flow, ending
/// in the signed-in user gaining the identity. auth-js asks for the URL as
/// JSON (`skip_http_redirect=true`).
pub async fn link_identity(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !state.config.manual_linking_enabled {
        return Err(AuthError::manual_linking_disabled().into());
    }
    super::user::current_user(&state, &signed_in).await?;
    let url = start_flow(&state, query.as_deref(), &headers, Some(signed_in.user_id)).await?;
    if query_param(query.as_deref(), "skip_http_redirect").as_deref() == Some("true") {
        return Ok(Json(json!({ "url": url })).into_response());
    }
    Ok(found(&url, StatusCode::FOUND))
}

/// `DELETE /user/identities/{id}` (`unlinkIdentity`).
pub async fn unlink_identity(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if !state.config.manual_linking_enabled {
        return Err(AuthError::manual_linking_disabled().into());
    }
    let id = Uuid::parse_str(&id).map_err(|_| {
        AuthError::new(StatusCode::NOT_FOUND, "validation_failed", "identity_id must be an UUID")
    })?;
    super::user::current_user(&state, &signed_in).await?;
    match external::unlink(&state.db, signed_in.user_id, id).await? {
        Unlinked::Done => Ok(Json(json!({}))),
        Unlinked::NotFound => Err(AuthError::identity_not_found().into()),
        Unlinked::LastIdentity => Err(AuthError::single_identity_not_deletable().into()),
    }
}

/// `GET|POST /callback`: the provider sends the browser here (POST with
/// `response_mode=form_post`).
pub async fn callback(
    State(state): State<AuthState>,
    method: Method,
    RawQuery(query): RawQuery,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    body: Bytes,
) -> Response {
    let form = match method {
        Method::POST => String::from_utf8_lossy(&body).into_owned(),
        _ => query.unwrap_or_default(),
    };
    let param = |name: &str| query_param(Some(&form), name).filter(|v| !v.is_empty());
    // Until the flow is known there is nowhere else to go: the site, as
    // GoTrue's `loadFlowState` does (303).
    let to_site = |error: AuthError| error_redirect(crate::site_url(&state), &error, StatusCode::SEE_OTHER);
    let Some(text) = param("state") else {
        return to_site(AuthError::bad_oauth_callback("OAuth state parameter missing"));
    };
    let id = match verify_state(&state, &text) {
        Ok(Some(id)) => id,
        Ok(None) => return to_site(AuthError::bad_oauth_state("OAuth state parameter is invalid")),
        Err(e) => return e.into_response(),
    };
    let flow = match external::claim_state(&state.db, id).await {
        Ok(Claimed::Found(flow)) => flow,
        Ok(Claimed::NotFound) => {
            return to_site(AuthError::bad_oauth_state("OAuth state not found or expired"));
        }
        Ok(Claimed::Expired) => return to_site(AuthError::bad_oauth_state("OAuth state has expired")),
        Ok(Claimed::Used) => return to_site(AuthError::flow_state_already_used()),
        Err(e) => return e.into_response(),
    };
    let back = flow.referrer.clone().unwrap_or_else(|| crate::site_url(&state).to_owned());
    match finish(&state, &flow, param("code"), param("error"), param("error_description"), ip, user_agent)
        .await
    {
        Ok(location) => found(&location, StatusCode::FOUND),
        Err(Failure::Auth(error)) => error_redirect(&back, &error, StatusCode::FOUND),
        Err(Failure::Api(error)) => {
            tracing::error!(error = %error, "OAuth callback failed");
            let error =
                AuthError::new(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", "Unexpected failure");
            error_redirect(&back, &error, StatusCode::FOUND)
        }
    }
}

/// A failure of a flow that ends in a redirect: GoTrue's errors go back to
/// the site in the query, anything else is answered as an error.
pub(crate) enum Failure {
    Auth(AuthError),
    Api(ApiError),
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        match error.as_service::<AuthError>() {
            Some(e) => Failure::Auth(e.clone()),
            None => Failure::Api(error),
        }
    }
}

impl From<AuthError> for Failure {
    fn from(error: AuthError) -> Self {
        Failure::Auth(error)
    }
}

async fn finish(
    state: &AuthState,
    flow: &external::Flow,
    code: Option<String>,
    error: Option<String>,
    description: Option<String>,
    ip: Option<IpAddr>,
    user_agent: Option<String>,
) -> Result<String, Failure> {
    if let Some(error) = error {
        return Err(AuthError::oauth(&error, description.unwrap_or_default()).into());
    }
    let code = code.ok_or_else(|| {
        AuthError::bad_oauth_callback("OAuth callback with missing authorization code missing")
    })?;
    let provider = provider(state, &flow.provider).ok_or_else(|| {
        AuthError::new(StatusCode::BAD_REQUEST, "oauth_provider_not_supported", "Unsupported provider")
    })?;
    let exchanged = oidc::exchange_code(provider, &code, &callback_url(state)).await.map_err(|e| {
        tracing::warn!(provider = %provider.name, error = %e, "code exchange failed");
        AuthError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            format!("Unable to exchange external code: {}", &code[..code.len().min(4)]),
        )
    })?;
    let claims = oidc::validate_id_token(provider, &exchanged.id_token).await.map_err(|e| {
        tracing::warn!(provider = %provider.name, error = %e, "the provider's ID token was refused");
        AuthError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Error getting user profile from external provider",
        )
    })?;
    let nonce = claims.get("nonce").and_then(Value::as_str);
    let expected = flow.nonce.as_deref();
    let matches = match (nonce, expected) {
        (Some(nonce), Some(expected)) => bool::from(nonce.as_bytes().ct_eq(expected.as_bytes())),
        _ => false,
    };
    if !matches {
        tracing::warn!(provider = %provider.name, "the ID token's nonce is not the flow's");
        return Err(AuthError::oauth("invalid_request", "Nonces mismatch").into());
    }
    let user_id = account(state, provider, &claims, flow.linking_target).await?;
    if flow.pkce {
        let auth_code = external::complete_flow(
            &state.db,
            flow.id,
            user_id,
            &exchanged.access_token,
            exchanged.refresh_token.as_deref(),
        )
        .await?
        .ok_or_else(AuthError::flow_state_already_used)?;
        let mut url = Url::parse(flow.referrer.as_deref().unwrap_or(crate::site_url(state)))
            .map_err(ApiError::internal)?;
        url.query_pairs_mut().append_pair("code", &auth_code);
        return Ok(url.into());
    }
    external::delete_flow(&state.db, flow.id).await?;
    let session = start(state, user_id, &provider.name, ip, user_agent.as_deref()).await?;
    let mut fragment = form_urlencoded::Serializer::new(String::new());
    for key in ["access_token", "expires_at", "expires_in", "refresh_token", "token_type"] {
        let value = match &session[key] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        fragment.append_pair(key, &value);
    }
    fragment.append_pair("provider_token", &exchanged.access_token);
    if let Some(refresh) = &exchanged.refresh_token {
        fragment.append_pair("provider_refresh_token", refresh);
    }
    let mut url =
        Url::parse(flow.referrer.as_deref().unwrap_or(crate::site_url(state))).map_err(ApiError::internal)?;
    url.set_fragment(Some(&fragment.finish()));
    Ok(url.into())
}

/// The user an ID token stands for (found, linked or created).
async fn account(
    state: &AuthState,
    provider: &ProviderConfig,
    claims: &Value,
    target: Option<Uuid>,
) -> Result<Uuid, AuthError> {
    let subject = claims.get("sub").and_then(Value::as_str).filter(|s| !s.is_empty());
    let subject =
        subject.ok_or_else(|| AuthError::oauth("invalid request", "Missing sub claim in id_token"))?;
    let data = oidc::identity_data(claims);
    let email = data.get("email").and_then(Value::as_str).filter(|e| !e.is_empty());
    let external = External {
        provider: &provider.name,
        subject,
        email,
        email_verified: data["email_verified"] == Value::Bool(true),
        identity_data: &data,
    };
    let config = &state.config;
    let account =
        external::find_or_create(&state.db, &external, target, config.autoconfirm, config.signup_enabled)
            .await
            .map_err(|e| match e.as_service::<AuthError>() {
                Some(e) => e.clone(),
                None => {
                    let other = e;
                    tracing::error!(error = %other, "external sign-in failed");
                    AuthError::new(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", "Database error")
                }
            })?;
    match account {
        Account::Found(id) => Ok(id),
        Account::Banned => Err(AuthError::new(StatusCode::FORBIDDEN, "user_banned", "User is banned")),
        Account::AlreadyLinked => Err(AuthError::identity_already_exists("Identity is already linked")),
        Account::IdentityTaken => {
            Err(AuthError::identity_already_exists("Identity is already linked to another user"))
        }
        Account::EmailTaken => Err(AuthError::provider_email_needs_verification(&provider.name)),
        Account::SignupDisabled => Err(AuthError::signup_disabled()),
    }
}

async fn start(
    state: &AuthState,
    user_id: Uuid,
    provider: &str,
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
) -> Result<Value, ApiError> {
    let refresh_token = tokens::generate()?;
    let sign_in = crate::store::SignIn { provider, method: method::OAUTH };
    let started = crate::store::start_session(
        &state.db,
        user_id,
        sign_in,
        &tokens::digest(&refresh_token),
        user_agent,
        ip,
    )
    .await?;
    session_response(state, Grant::of(started, &refresh_token)).await
}

/// GoTrue's `redirectErrors`: the error in the query and, for apps reading
/// the fragment, again there (with `sb`).
pub(crate) fn error_redirect(to: &str, error: &AuthError, status: StatusCode) -> Response {
    let kind = match (error.extra.get("error").and_then(Value::as_str), error.code) {
        (Some(kind), _) => kind.to_owned(),
        (None, "signup_disabled" | "user_banned" | "provider_email_needs_verification") => {
            "access_denied".to_owned()
        }
        (None, _) => match error.status.as_u16() {
            400 => "invalid_request",
            401 => "unauthorized_client",
            403 => "access_denied",
            503 => "temporarily_unavailable",
            _ => "server_error",
        }
        .to_owned(),
    };
    let Ok(mut url) = Url::parse(to) else {
        return (StatusCode::BAD_REQUEST, "invalid redirect").into_response();
    };
    let mut pairs: Vec<(&str, &str)> = vec![("error", &kind), ("error_description", &error.message)];
    if !error.code.is_empty() {
        pairs.push(("error_code", error.code));
    }
    url.query_pairs_mut().extend_pairs(pairs.iter().copied());
    let mut fragment = form_urlencoded::Serializer::new(String::new());
    fragment.extend_pairs(pairs.iter().copied());
    fragment.append_pair("sb", "");
    url.set_fragment(Some(&fragment.finish()));
    found(url.as_str(), status)
}

/// `POST /token?grant_type=pkce` (`exchangeCodeForSession`).
pub async fn pkce_grant(
    state: &AuthState,
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
    auth_code: Option<String>,
    code_verifier: Option<String>,
) -> Result<Json<Value>, ApiError> {
    let (auth_code, verifier) = (auth_code.unwrap_or_default(), code_verifier.unwrap_or_default());
    if auth_code.is_empty() || verifier.is_empty() {
        return Err(AuthError::validation_failed(
            "invalid request: both auth code and code verifier should be non-empty",
        )
        .into());
    }
    let refresh_token = tokens::generate()?;
    let check = |found: Option<&external::Exchange>| -> Result<(), AuthError> {
        let flow = found.ok_or_else(AuthError::flow_state_not_found)?;
        if flow.expired {
            return Err(AuthError::flow_state_expired());
        }
        match flow_state::verifier_matches(&flow.challenge_method, &flow.challenge, &verifier) {
            true => Ok(()),
            false => Err(AuthError::bad_code_verifier()),
        }
    };
    let digest = tokens::digest(&refresh_token);
    let (flow, started) = external::exchange(&state.db, &auth_code, check, &digest, user_agent, ip).await??;
    let mut session = session_response(state, Grant::of(started, &refresh_token)).await?;
    if let Some(object) = session.as_object_mut() {
        // E-mail flows have no provider token, and GoTrue then leaves it out.
        if let Some(access) = flow.provider_access_token {
            object.insert("provider_token".to_owned(), json!(access));
        }
        if let Some(refresh) = flow.provider_refresh_token.filter(|t| !t.is_empty()) {
            object.insert("provider_refresh_token".to_owned(), json!(refresh));
        }
    }
    Ok(Json(session))
}

/// What `signInWithIdToken` posts.
pub struct IdTokenParams {
    pub provider: Option<String>,
    pub id_token: Option<String>,
    pub nonce: Option<String>,
    pub access_token: Option<String>,
    /// `linkIdentityIdToken`: add the identity to the bearer's user.
    pub link_identity: bool,
    pub bearer: Option<String>,
}

/// The signed-in user an access token names, checked as `SignedIn` checks
/// it, for `link_identity` (GoTrue's `requireAuthentication` inside the grant).
async fn bearer_user(state: &AuthState, bearer: Option<&str>) -> Result<Uuid, ApiError> {
    let Some(token) = bearer.filter(|t| !t.trim().is_empty()) else {
        return Err(AuthError::oauth(
            "invalid request",
            "Linking requires a valid user access token in Authorization",
        )
        .into());
    };
    let claims = state.credentials.jwt.verify(token)?;
    let text = |key: &str| claims.claims.get(key).and_then(Value::as_str);
    let user_id =
        text("sub").and_then(|s| Uuid::parse_str(s).ok()).filter(|_| text("role") == Some("authenticated"));
    let user_id = user_id.ok_or_else(|| AuthError::bad_jwt("invalid claim: missing sub claim"))?;
    let session_id = text("session_id").and_then(|s| Uuid::parse_str(s).ok());
    super::user::current_user(state, &SignedIn { user_id, session_id }).await?;
    Ok(user_id)
}

/// What GoTrue answers for an ID token of a provider it does not have: its
/// built-in providers of fixed issuer are "not enabled"; any other name is a
/// custom provider that is "not allowed" (`token_oidc.go`, `getProvider`).
fn not_configured(name: &str) -> AuthError {
    let issuer = match name {
        "google" => "https://accounts.google.com",
        "facebook" => "https://www.facebook.com",
        "kakao" => "https://kauth.kakao.com",
        "keycloak" => "",
        _ => return AuthError::oidc_provider_not_allowed(name),
    };
    AuthError::new(
        StatusCode::BAD_REQUEST,
        "provider_disabled",
        format!("Provider (issuer \"{issuer}\") is not enabled"),
    )
}

/// `POST /token?grant_type=id_token`, worded as `token_oidc.go` words it.
pub async fn id_token_grant(
    state: &AuthState,
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
    params: IdTokenParams,
) -> Result<Json<Value>, ApiError> {
    ratelimit::take(state, Bucket::SignInSignUp, ip).await?;
    let token = params.id_token.filter(|t| !t.is_empty());
    let token = token.ok_or_else(|| AuthError::oauth("invalid request", "id_token required"))?;
    let name = params.provider.unwrap_or_default();
    if name.is_empty() {
        return Err(AuthError::oauth("invalid request", "provider or client_id and issuer required").into());
    }
    // Linking is refused while manual linking is off, as on
    // `/user/identities/*` (GoTrue checks only the session here).
    let target = match params.link_identity {
        true if !state.config.manual_linking_enabled => {
            return Err(AuthError::manual_linking_disabled().into());
        }
        true => Some(bearer_user(state, params.bearer.as_deref()).await?),
        false => None,
    };
    let provider = provider(state, &name).ok_or_else(|| not_configured(&name))?;
    let claims = oidc::validate_id_token(provider, &token).await.map_err(|e| {
        tracing::info!(provider = %provider.name, error = %e, "ID token refused");
        AuthError::oauth("invalid request", "Bad ID token")
    })?;
    if let Some(access_token) = params.access_token.as_deref().filter(|t| !t.is_empty())
        && let Some(at_hash) = claims.get("at_hash").and_then(Value::as_str)
    {
        // OpenID Connect Core §3.2.2.9: the left half of the SHA-256 digest.
        let digest = Sha256::digest(access_token.as_bytes());
        if URL_SAFE_NO_PAD.encode(&digest[..16]) != at_hash {
            return Err(AuthError::oauth("invalid request", "Bad ID token").into());
        }
    }
    let in_token = claims.get("nonce").and_then(Value::as_str).filter(|n| !n.is_empty());
    let given = params.nonce.as_deref().filter(|n| !n.is_empty());
    match (in_token, given) {
        (None, None) => {}
        (Some(in_token), Some(given)) => {
            // The app passes the raw nonce; the token carries its SHA-256 in hex.
            let hash = hex::encode(Sha256::digest(given.as_bytes()));
            if !bool::from(hash.as_bytes().ct_eq(in_token.as_bytes())) {
                return Err(AuthError::oauth("invalid nonce", "Nonces mismatch").into());
            }
        }
        _ => {
            return Err(AuthError::oauth(
                "invalid request",
                "Passed nonce and nonce in id_token should either both exist or not.",
            )
            .into());
        }
    }
    let user_id = account(state, provider, &claims, target).await?;
    Ok(Json(start(state, user_id, &provider.name, ip, user_agent).await?))
}
