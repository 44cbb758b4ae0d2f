//! SAML 2.0 single sign-on (supabase/auth `internal/api/sso.go`,
//! `samlacs.go`, `saml.go`), behind `AUTH_SAML_ENABLED`:
//!
//! - `POST /sso` (`signInWithSSO({ domain })` / `({ providerId })`) records
//!   a relay state (and, with `code_challenge`, a PKCE flow) and answers the
//!   identity provider's URL carrying a signed authentication request
//!   (HTTP-Redirect binding): `{url}` with `skip_http_redirect`, else 303;
//! - `POST /sso/saml/acs`, where the identity provider posts its signed
//!   response (HTTP-POST binding): checked (`crate::saml`), the user found
//!   or created with identity `sso:<provider id>`, and the browser sent to
//!   `redirect_to` with `?code=` (PKCE) or the session in the fragment;
//!   failures go to the site with `error_code` and `error_description`, as
//!   GoTrue sends them;
//! - `GET /sso/saml/metadata[?download=true]`, the service provider's metadata.

use std::net::IpAddr;

use axum::{
    Json,
    body::Bytes,
    extract::{RawQuery, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::Duration;
use reqwest::Url;
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::oauth::{Failure, error_redirect};
use super::query_param;
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, UserAgent};
use crate::flow_state;
use crate::saml;
use crate::saml_store::{self, Find, Finish, NewRelayState, Provider, SsoUser};
use crate::tokens;
use gateway_core::error::ApiError;

/// GoTrue's `requireSAMLEnabled`.
pub(crate) fn require_enabled(state: &AuthState) -> Result<(), AuthError> {
    match state.config.saml_enabled {
        true => Ok(()),
        false => Err(AuthError::saml_provider_disabled()),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SsoParams {
    provider_id: Option<Uuid>,
    domain: Option<String>,
    redirect_to: Option<String>,
    skip_http_redirect: Option<bool>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `POST /sso`.
pub async fn sso(
    State(state): State<AuthState>,
    Body(params): Body<serde_json::Value>,
) -> Result<Response, ApiError> {
    // GoTrue refuses before it reads the body (`requireSAMLEnabled` is
    // middleware), so a body that is not valid gets "SAML 2.0 is disabled"
    // while SAML is off.
    require_enabled(&state)?;
    let params: SsoParams = serde_json::from_value(params).map_err(|_| AuthError::bad_json())?;
    let domain = params.domain.as_deref().filter(|d| !d.is_empty());
    let provider = match (params.provider_id.filter(|id| !id.is_nil()), domain) {
        (Some(_), Some(_)) => {
            return Err(AuthError::validation_failed("Only one of provider_id or domain supported").into());
        }
        (None, None) => {
            return Err(AuthError::validation_failed("A provider_id or domain needs to be provided").into());
        }
        (Some(id), None) => saml_store::find(&state.db, Find::Id(id))
            .await?
            .ok_or_else(|| AuthError::sso_provider_not_found("No such SSO provider"))?,
        (None, Some(domain)) => saml_store::find(&state.db, Find::Domain(domain))
            .await?
            .ok_or_else(|| AuthError::sso_provider_not_found("No SSO provider assigned for this domain"))?,
    };
    if !provider.enabled() {
        return Err(AuthError::sso_provider_disabled("SSO Provider is currently disabled").into());
    }
    let pkce = flow_state::params(params.code_challenge.as_deref(), params.code_challenge_method.as_deref())?;
    let sp = saml::sp(&state)?;
    let idp = saml::parse_metadata(&provider.metadata_xml).map_err(|e| ApiError::internal(e.message))?;
    let service_provider = saml::service_provider(&state, &sp, idp, false)?;
    // The relay state's ID is the RelayState sent along, known before the
    // request is made; the row is written once the request's ID is known.
    let relay_state = Uuid::new_v4();
    let (url, request_id) = saml::authn_request_url(
        &service_provider,
        &sp,
        provider.name_id_format.as_deref(),
        &relay_state.to_string(),
    )?;
    let relay = NewRelayState {
        id: relay_state,
        provider_id: provider.id,
        request_id: &request_id,
        redirect_to: params.redirect_to.as_deref().unwrap_or_default(),
        pkce: pkce.as_ref().map(|p| (p.challenge.as_str(), p.method.as_str())),
    };
    saml_store::create_relay_state(&state.db, &relay).await?;
    if params.skip_http_redirect == Some(true) {
        return Ok(Json(json!({ "url": url })).into_response());
    }
    Ok((StatusCode::SEE_OTHER, [(header::LOCATION, url)]).into_response())
}

/// `GET /sso/saml/metadata`.
pub async fn metadata(
    State(state): State<AuthState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    require_enabled(&state)?;
    let download = query_param(query.as_deref(), "download").as_deref() == Some("true");
    let valid_for = if download { Duration::days(5 * 365) } else { Duration::days(2) };
    let xml = saml::metadata_xml(&saml::sp(&state)?, valid_for)?;
    let mut response = xml.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=600"));
    if download {
        headers.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename=\"metadata.xml\""),
        );
    }
    Ok(response)
}

/// `POST /sso/saml/acs`: every failure is a 303 to the site with the error
/// in the query (GoTrue's `SamlAcs`), so the browser lands somewhere the
/// app can explain it.
pub async fn acs(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    body: Bytes,
) -> Response {
    if let Err(error) = require_enabled(&state) {
        return ApiError::from(error).into_response();
    }
    let form = String::from_utf8_lossy(&body).into_owned();
    let site = crate::site_url(&state).to_owned();
    match consume(&state, &form, ip, user_agent.as_deref()).await {
        Ok(location) => (StatusCode::FOUND, [(header::LOCATION, location)]).into_response(),
        Err(Failure::Auth(error)) => error_redirect(&site, &error, StatusCode::SEE_OTHER),
        Err(Failure::Api(error)) => {
            tracing::error!(error = %error, "SAML assertion consumer failed");
            let error =
                AuthError::new(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", "Unexpected failure");
            error_redirect(&site, &error, StatusCode::SEE_OTHER)
        }
    }
}

/// Who started the sign-in: we (a relay state of `POST /sso`), or the
/// identity provider (RelayState empty or the URL it wants the user sent to).
struct Origin {
    provider: Provider,
    request_id: Option<String>,
    redirect_to: Option<String>,
    flow: Option<Uuid>,
}

async fn origin(state: &AuthState, form: &str, response_xml: &str) -> Result<Origin, Failure> {
    let relay_state = query_param(Some(form), "RelayState").unwrap_or_default();
    if let Ok(id) = Uuid::parse_str(&relay_state) {
        let validity = state.config.saml_relay_state_validity_period;
        let taken = saml_store::take_relay_state(&state.db, id, validity).await?;
        let relay = taken.ok_or_else(AuthError::saml_relay_state_not_found)?;
        if relay.expired {
            return Err(AuthError::saml_relay_state_expired().into());
        }
        let provider = saml_store::find(&state.db, Find::Id(relay.provider_id))
            .await?
            .ok_or_else(|| ApiError::internal("Unable to find SSO Provider from SAML RelayState"))?;
        return Ok(Origin {
            provider,
            request_id: Some(relay.request_id),
            redirect_to: relay.redirect_to,
            flow: relay.flow_state_id,
        });
    }
    if !relay_state.is_empty() && Url::parse(&relay_state).is_err() {
        return Err(AuthError::validation_failed("SAML RelayState is not a valid UUID or URL").into());
    }
    // An unsolicited response: its issuer names the provider, whose
    // signature is then checked like any other.
    let peek: samael::schema::Response = response_xml
        .parse()
        .map_err(|_| AuthError::validation_failed("SAMLResponse is not a valid XML SAML assertion"))?;
    let issuer = peek.issuer.and_then(|i| i.value).unwrap_or_default();
    let provider = saml_store::find(&state.db, Find::EntityId(&issuer))
        .await?
        .ok_or_else(AuthError::saml_idp_not_found)?;
    Ok(Origin { provider, request_id: None, redirect_to: Some(relay_state), flow: None })
}

async fn consume(
    state: &AuthState,
    form: &str,
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
) -> Result<String, Failure> {
    if query_param(Some(form), "SAMLart").is_some() {
        return Err(AuthError::validation_failed("SAML Artifact responses are not supported").into());
    }
    let encoded = query_param(Some(form), "SAMLResponse").unwrap_or_default();
    if encoded.is_empty() {
        return Err(AuthError::validation_failed("SAMLResponse is missing").into());
    }
    let xml = STANDARD
        .decode(encoded.replace(['\r', '\n'], ""))
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| AuthError::validation_failed("SAMLResponse is not a valid Base64 string"))?;
    let origin = origin(state, form, &xml).await?;
    let provider = &origin.provider;
    if !provider.enabled() {
        return Err(AuthError::sso_provider_disabled(
            "SSO Provider assigned for this domain is currently disabled",
        )
        .into());
    }
    let sp = saml::sp(state)?;
    let idp = saml::parse_metadata(&provider.metadata_xml).map_err(|e| ApiError::internal(e.message))?;
    let service_provider = saml::service_provider(state, &sp, idp, origin.request_id.is_none())?;
    let request_id = origin.request_id.clone();
    // libxmlsec1 works synchronously.
    let parsed = tokio::task::spawn_blocking(move || {
        let ids: Vec<&str> = request_id.iter().map(String::as_str).collect();
        service_provider.parse_xml_response(&xml, Some(&ids)).map_err(|e| e.to_string())
    })
    .await
    .map_err(ApiError::internal)?;
    let assertion = parsed.map_err(|reason| {
        tracing::info!(provider = %provider.id, %reason, "SAML assertion refused");
        AuthError::saml_assertion_invalid()
    })?;
    let skew = Duration::seconds(state.config.saml_allowed_clock_skew as i64);
    let horizon = saml::replay_horizon(&assertion, skew);
    if !saml_store::first_use(&state.db, provider.id, &assertion.id, horizon).await? {
        tracing::info!(provider = %provider.id, "SAML assertion replayed");
        return Err(AuthError::saml_assertion_invalid().into());
    }
    let subject = saml::user_id(&assertion).ok_or_else(AuthError::saml_assertion_no_user_id)?;
    let mut claims = saml::process(&assertion, &provider.attribute_mapping);
    let email = match claims.remove("email") {
        Some(Value::String(email)) if !email.is_empty() => email,
        _ => saml::email(&assertion).ok_or_else(AuthError::saml_assertion_no_email)?,
    };
    let data = saml::identity_data(claims, &provider.entity_id, &subject, &email);
    let identity_provider = provider.identity_provider();
    let user =
        SsoUser { provider: &identity_provider, subject: &subject, email: &email, identity_data: &data };
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let config = &state.config;
    let finish =
        saml_store::sign_in(&state.db, &user, config.signup_enabled, origin.flow, &digest, user_agent, ip)
            .await?;
    let site = crate::site_url(state);
    let back = crate::redirect::checked(origin.redirect_to.as_deref(), site, &config.uri_allow_list);
    let mut url = Url::parse(&back).map_err(ApiError::internal)?;
    match finish {
        Finish::Code(code) => {
            url.query_pairs_mut().append_pair("code", &code);
        }
        Finish::Session(started) => {
            let session = session_response(state, Grant::of(*started, &refresh_token)).await?;
            let mut fragment = form_urlencoded::Serializer::new(String::new());
            for key in ["access_token", "expires_at", "expires_in", "refresh_token", "token_type"] {
                let value = match &session[key] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                fragment.append_pair(key, &value);
            }
            url.set_fragment(Some(&fragment.finish()));
        }
        Finish::Banned => return Err(AuthError::user_banned().into()),
        Finish::SignupDisabled => return Err(AuthError::signup_disabled().into()),
        Finish::FlowUsed => return Err(AuthError::flow_state_already_used().into()),
    }
    Ok(url.into())
}
