//! `/admin/sso/providers` for the service_role key (supabase/auth
//! `internal/api/ssoadmin.go`), as `supabase sso add|list|show|update|remove`
//! and `supabase.auth.admin` call it: SAML identity providers registered
//! from their metadata (`metadata_xml`, or `metadata_url` fetched once),
//! with the e-mail domains whose users `signInWithSSO({ domain })` sends to
//! them. As upstream, these routes answer whether or not SAML is enabled.

use std::time::Duration;

use axum::{
    Json,
    extract::{Path, RawQuery, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::query_param;
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::{Admin, Body};
use crate::saml::{self, AttributeMapping, EMAIL_ADDRESS, PERSISTENT, TRANSIENT, UNSPECIFIED};
use crate::saml_store::{self, Find, Provider, Write};
use gateway_core::error::ApiError;

/// What `POST` and `PUT` take (GoTrue's `CreateSSOProviderParams`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ProviderParams {
    #[serde(rename = "type")]
    kind: String,
    metadata_url: String,
    metadata_xml: String,
    domains: Option<Vec<String>>,
    attribute_mapping: AttributeMapping,
    name_id_format: String,
    resource_id: Option<String>,
    disabled: Option<bool>,
}

impl ProviderParams {
    fn validate(&self, for_update: bool) -> Result<(), AuthError> {
        let invalid = |m: &str| AuthError::validation_failed(m);
        if !for_update && self.kind != "saml" {
            return Err(invalid("Only 'saml' supported for SSO provider type"));
        }
        if !self.metadata_url.is_empty() && !self.metadata_xml.is_empty() {
            return Err(invalid("Only one of metadata_xml or metadata_url needs to be set"));
        }
        if !for_update && self.metadata_url.is_empty() && self.metadata_xml.is_empty() {
            return Err(invalid("Either metadata_xml or metadata_url must be set"));
        }
        if !self.metadata_url.is_empty() {
            let url = reqwest::Url::parse(&self.metadata_url)
                .map_err(|_| invalid("metadata_url is not a valid URL"))?;
            if url.scheme() != "https" {
                return Err(invalid("metadata_url is not a HTTPS URL"));
            }
        }
        match self.name_id_format.as_str() {
            "" | PERSISTENT | EMAIL_ADDRESS | TRANSIENT | UNSPECIFIED => Ok(()),
            _ => Err(AuthError::validation_failed(format!(
                "name_id_format must be unspecified or one of {}",
                [PERSISTENT, EMAIL_ADDRESS, TRANSIENT, UNSPECIFIED].join(", ")
            ))),
        }
    }

    /// The metadata given or fetched, with its entity ID; `None` when neither
    /// is set (an update that keeps it).
    async fn metadata(&self) -> Result<Option<(String, String)>, ApiError> {
        let raw = if !self.metadata_xml.is_empty() {
            self.metadata_xml.clone()
        } else if !self.metadata_url.is_empty() {
            fetch_metadata(&self.metadata_url).await?
        } else {
            return Ok(None);
        };
        let parsed = saml::parse_metadata(&raw)?;
        Ok(Some((raw, parsed.entity_id.unwrap_or_default())))
    }
}

/// GoTrue's `fetchSAMLMetadata`.
async fn fetch_metadata(url: &str) -> Result<String, ApiError> {
    let client =
        reqwest::Client::builder().timeout(Duration::from_secs(10)).build().map_err(ApiError::internal)?;
    let response = client
        .get(url)
        .header(header::ACCEPT, "application/xml;charset=UTF-8")
        .header(header::ACCEPT_CHARSET, "UTF-8")
        .send()
        .await
        .map_err(|e| ApiError::internal(format!("fetching SAML metadata: {e}")))?;
    if response.status() != StatusCode::OK {
        return Err(AuthError::saml_metadata_fetch_failed(response.status().as_u16(), url).into());
    }
    response.text().await.map_err(|e| ApiError::internal(format!("reading SAML metadata: {e}")))
}

/// The provider of `{idp_id}`: a UUID, or `resource_<resource id>`.
async fn load(state: &AuthState, idp_id: &str) -> Result<Provider, ApiError> {
    let found = match idp_id.strip_prefix("resource_") {
        Some(resource_id) => saml_store::find(&state.db, Find::ResourceId(resource_id)).await?,
        None => match Uuid::parse_str(idp_id) {
            Ok(id) => saml_store::find(&state.db, Find::Id(id)).await?,
            Err(_) => None,
        },
    };
    found.ok_or_else(|| AuthError::sso_provider_not_found("SSO Identity Provider not found").into())
}

/// `GET /admin/sso/providers?resource_id=|resource_id_prefix=`: `{"items": […]}`.
pub async fn list(
    State(state): State<AuthState>,
    _: Admin,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let resource_id = query_param(query.as_deref(), "resource_id").filter(|v| !v.is_empty());
    let prefix = query_param(query.as_deref(), "resource_id_prefix").filter(|v| !v.is_empty());
    let providers = saml_store::list(&state.db, resource_id.as_deref(), prefix.as_deref()).await?;
    let items: Vec<Value> = providers.iter().map(|p| p.to_json(false)).collect();
    Ok(Json(json!({ "items": items })))
}

/// A domain another provider has already.
async fn domain_owner(
    state: &AuthState,
    domain: &str,
    except: Option<Uuid>,
) -> Result<Option<Uuid>, ApiError> {
    let owner = saml_store::find(&state.db, Find::Domain(domain)).await?;
    Ok(owner.map(|p| p.id).filter(|id| Some(*id) != except))
}

/// `POST /admin/sso/providers`: 201 with the provider.
pub async fn create(
    State(state): State<AuthState>,
    _: Admin,
    Body(params): Body<ProviderParams>,
) -> Result<Response, ApiError> {
    params.validate(false)?;
    let (raw, entity_id) = params.metadata().await?.ok_or_else(|| ApiError::internal("no metadata"))?;
    if saml_store::find(&state.db, Find::EntityId(&entity_id)).await?.is_some() {
        return Err(AuthError::saml_idp_already_exists(&entity_id).into());
    }
    let domains = params.domains.clone().unwrap_or_default();
    for domain in &domains {
        if let Some(owner) = domain_owner(&state, domain, None).await? {
            return Err(AuthError::sso_domain_already_exists(format!(
                "SSO Domain '{domain}' is already assigned to an SSO identity provider ({owner})"
            ))
            .into());
        }
    }
    let write = Write {
        resource_id: params.resource_id.as_deref().filter(|r| !r.is_empty()),
        disabled: params.disabled,
        entity_id: &entity_id,
        metadata_xml: &raw,
        metadata_url: Some(params.metadata_url.as_str()).filter(|u| !u.is_empty()),
        attribute_mapping: &params.attribute_mapping,
        name_id_format: Some(params.name_id_format.as_str()).filter(|f| !f.is_empty()),
        domains: &domains,
    };
    let id = saml_store::create(&state.db, &write).await?;
    let provider = load(&state, &id.to_string()).await?;
    Ok((StatusCode::CREATED, Json(provider.to_json(true))).into_response())
}

/// `GET /admin/sso/providers/{idp_id}`.
pub async fn get(
    State(state): State<AuthState>,
    _: Admin,
    Path(idp_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(load(&state, &idp_id).await?.to_json(true)))
}

/// `PUT /admin/sso/providers/{idp_id}`: what is given changes, as
/// GoTrue's `adminSSOProvidersUpdate` reads it: `domains` replaces the
/// list when present; `attribute_mapping` when it has `keys`; an absent
/// `name_id_format` clears it; `resource_id: ""` clears it.
pub async fn update(
    State(state): State<AuthState>,
    _: Admin,
    Path(idp_id): Path<String>,
    Body(params): Body<ProviderParams>,
) -> Result<Json<Value>, ApiError> {
    params.validate(true)?;
    let provider = load(&state, &idp_id).await?;
    let mut metadata_xml = provider.metadata_xml.clone();
    let mut metadata_url = provider.metadata_url.clone();
    if let Some((raw, entity_id)) = params.metadata().await? {
        if entity_id != provider.entity_id {
            return Err(AuthError::saml_entity_id_mismatch(&provider.entity_id, &entity_id).into());
        }
        if !params.metadata_url.is_empty() {
            metadata_url = Some(params.metadata_url.clone());
        }
        metadata_xml = raw;
    }
    let domains = params.domains.clone();
    for domain in domains.iter().flatten() {
        if let Some(owner) = domain_owner(&state, domain, Some(provider.id)).await? {
            return Err(AuthError::sso_domain_already_exists(format!(
                "SSO domain '{domain}' already assigned to another provider ({owner})"
            ))
            .into());
        }
    }
    let attribute_mapping = match params.attribute_mapping.keys {
        Some(_) => params.attribute_mapping.clone(),
        None => provider.attribute_mapping.clone(),
    };
    let resource_id = match params.resource_id.as_deref() {
        Some("") => None,
        Some(resource_id) => Some(resource_id.to_owned()),
        None => provider.resource_id.clone(),
    };
    let write = Write {
        resource_id: resource_id.as_deref(),
        disabled: params.disabled.or(provider.disabled),
        entity_id: &provider.entity_id,
        metadata_xml: &metadata_xml,
        metadata_url: metadata_url.as_deref(),
        attribute_mapping: &attribute_mapping,
        name_id_format: Some(params.name_id_format.as_str()).filter(|f| !f.is_empty()),
        domains: domains.as_deref().unwrap_or_default(),
    };
    saml_store::update(&state.db, provider.id, &write, domains.is_some()).await.map_err(|e| {
        tracing::warn!(error = %e, "updating an SSO provider failed");
        AuthError::unprocessable(
            "conflict",
            "Updating SSO provider failed, likely due to a conflict. Try again?",
        )
    })?;
    Ok(Json(load(&state, &provider.id.to_string()).await?.to_json(true)))
}

/// `DELETE /admin/sso/providers/{idp_id}`: 200 with the provider deleted.
pub async fn delete(
    State(state): State<AuthState>,
    _: Admin,
    Path(idp_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let provider = load(&state, &idp_id).await?;
    saml_store::delete(&state.db, provider.id).await?;
    Ok(Json(provider.to_json(true)))
}
