//! SAML 2.0 single sign-on as GoTrue does it (supabase/auth
//! `internal/api/saml.go`, `samlacs.go`, `samlassertion.go`, `sso.go`,
//! `ssoadmin.go`, `internal/conf/saml.go`): the gateway is the service
//! provider; identity providers are registered through
//! `/admin/sso/providers` from their metadata.
//!
//! The XML work is samael's (over libxmlsec1): parsing metadata and
//! responses, verifying signatures against the provider's certificates
//! (keeping only what the signatures cover, against signature wrapping),
//! and signing the HTTP-Redirect authentication request. This module holds
//! the rest: the service provider's key and certificate, its URLs and
//! metadata, and GoTrue's reading of an assertion (user ID, e-mail,
//! `attribute_mapping`).

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Duration, Utc};
use openssl::asn1::{Asn1Integer, Asn1Time};
use openssl::bn::BigNum;
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::x509::{X509, X509Name};
use samael::crypto::AllowedSignatureAlgorithm;
use samael::metadata::EntityDescriptor;
use samael::schema::Assertion;
use samael::service_provider::{ServiceProvider, ServiceProviderBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::AuthState;
use crate::error::AuthError;
use gateway_core::error::ApiError;

pub const PERSISTENT: &str = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent";
pub const EMAIL_ADDRESS: &str = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
pub const TRANSIENT: &str = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient";
pub const UNSPECIFIED: &str = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";
const HTTP_REDIRECT: &str = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const HTTP_POST: &str = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
/// The preferred persistent identifier of a user (OASIS SAML V2.0 Subject
/// Identifier Attributes Profile), before the NameID.
const SUBJECT_ID: &str = "urn:oasis:names:tc:SAML:attribute:subject-id";

/// The service provider: its key, certificate and URLs.
pub struct Sp {
    pub key: PKey<Private>,
    pub certificate: X509,
    pub entity_id: String,
    pub acs_url: String,
}

/// `<AUTH_SAML_EXTERNAL_URL>/sso/saml/`, as crewjam/saml's service provider
/// is rooted at GoTrue's `…/sso/`.
fn base_url(state: &AuthState) -> String {
    let config = &state.config;
    let base =
        config.saml_external_url.as_deref().or(config.external_url.as_deref()).unwrap_or(&config.jwt_issuer);
    format!("{}/sso/saml/", base.trim_end_matches('/'))
}

/// The service provider as configured. Its certificate is made from the key
/// the way GoTrue makes it (`conf/saml.go`): self-signed, serial 0, valid
/// from the Unix epoch for 200 years, so that it is the same on every
/// gateway and every start (RSA PKCS#1 v1.5 signatures are deterministic).
pub fn sp(state: &AuthState) -> Result<Sp, ApiError> {
    let secret =
        state.config.saml_private_key.as_ref().ok_or_else(|| {
            ApiError::internal("AUTH_SAML_ENABLED is on but AUTH_SAML_PRIVATE_KEY is unset")
        })?;
    let key = private_key(secret.expose()).map_err(ApiError::internal)?;
    let base = base_url(state);
    let host =
        reqwest::Url::parse(&base).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
    let certificate = certificate(&key, &host).map_err(ApiError::internal)?;
    Ok(Sp { key, certificate, entity_id: format!("{base}metadata"), acs_url: format!("{base}acs") })
}

fn private_key(text: &str) -> Result<PKey<Private>, String> {
    let text = text.trim();
    if text.starts_with("-----BEGIN") {
        return PKey::private_key_from_pem(text.as_bytes()).map_err(|e| e.to_string());
    }
    let der =
        STANDARD.decode(text).map_err(|_| "AUTH_SAML_PRIVATE_KEY is neither PEM nor base64".to_owned())?;
    let key = match Rsa::private_key_from_der(&der) {
        Ok(rsa) => PKey::from_rsa(rsa).map_err(|e| e.to_string())?,
        Err(_) => PKey::private_key_from_der(&der).map_err(|e| e.to_string())?,
    };
    if key.rsa().is_err() {
        return Err("AUTH_SAML_PRIVATE_KEY is not an RSA key".to_owned());
    }
    Ok(key)
}

fn certificate(key: &PKey<Private>, host: &str) -> Result<X509, openssl::error::ErrorStack> {
    let mut name = X509Name::builder()?;
    name.append_entry_by_nid(Nid::COMMONNAME, &format!("_samlsp_.{host}"))?;
    let name = name.build();
    let mut builder = X509::builder()?;
    builder.set_version(2)?;
    let zero = BigNum::from_u32(0)?;
    let serial = Asn1Integer::from_bn(&zero)?;
    builder.set_serial_number(&serial)?;
    builder.set_subject_name(&name)?;
    builder.set_issuer_name(&name)?;
    builder.set_pubkey(key)?;
    let not_before = Asn1Time::from_unix(0)?;
    builder.set_not_before(&not_before)?;
    // 200 years of 365.2425 days, as Go's AddDate(200, 0, 0) from the epoch.
    let not_after = Asn1Time::from_unix(6_311_433_600)?;
    builder.set_not_after(&not_after)?;
    builder.sign(key, MessageDigest::sha256())?;
    Ok(builder.build())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The service provider's metadata, as GoTrue's `SAMLMetadata` serves it:
/// one signing key, e-mail and persistent NameID formats, the HTTP-POST
/// assertion consumer service; valid for 2 days (crewjam's default), or 5
/// years when downloaded (`?download=true`), "comparable to what GSuite does".
pub fn metadata_xml(sp: &Sp, valid_for: Duration) -> Result<String, ApiError> {
    let der = sp.certificate.to_der().map_err(ApiError::internal)?;
    let valid_until = (Utc::now() + valid_for).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    Ok(format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" validUntil="{valid_until}" entityID="{entity}"><SPSSODescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" validUntil="{valid_until}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAssertionsSigned="true"><KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Certificate xmlns="http://www.w3.org/2000/09/xmldsig#">{cert}</X509Certificate></X509Data></KeyInfo></KeyDescriptor><NameIDFormat>{EMAIL_ADDRESS}</NameIDFormat><NameIDFormat>{PERSISTENT}</NameIDFormat><AssertionConsumerService Binding="{HTTP_POST}" Location="{acs}" index="1"></AssertionConsumerService></SPSSODescriptor></EntityDescriptor>"#,
        entity = escape(&sp.entity_id),
        acs = escape(&sp.acs_url),
        cert = STANDARD.encode(der),
    ))
}

/// An identity provider's metadata, checked as GoTrue's `parseSAMLMetadata`
/// checks it, and further: without a signing certificate nothing it sends
/// could be verified, so it is refused here.
pub fn parse_metadata(raw: &str) -> Result<EntityDescriptor, AuthError> {
    let invalid = |what: &str| AuthError::validation_failed(format!("SAML Metadata {what}"));
    let metadata: EntityDescriptor = raw.parse().map_err(|_| invalid("could not be parsed"))?;
    let entity_id = metadata.entity_id.clone().unwrap_or_default();
    if entity_id.is_empty() {
        return Err(invalid("does not contain an EntityID"));
    }
    match metadata.idp_sso_descriptors.as_deref().unwrap_or_default().len() {
        0 => return Err(invalid("does not contain any IDPSSODescriptor")),
        1 => {}
        _ => return Err(invalid("contains multiple IDPSSODescriptors")),
    }
    let sp = ServiceProvider { idp_metadata: metadata.clone(), ..ServiceProvider::default() };
    match sp.idp_signing_certs() {
        Ok(Some(certs)) if !certs.is_empty() => Ok(metadata),
        Ok(_) => Err(invalid("does not contain a signing certificate")),
        Err(_) => Err(invalid("contains a certificate that could not be parsed")),
    }
}

/// samael's service provider for one identity provider.
pub fn service_provider(
    state: &AuthState,
    sp: &Sp,
    idp: EntityDescriptor,
    idp_initiated: bool,
) -> Result<ServiceProvider, ApiError> {
    let certificate = sp.certificate.to_der().map_err(ApiError::internal)?;
    ServiceProviderBuilder::default()
        .entity_id(Some(sp.entity_id.clone()))
        .key(Some(sp.key.clone()))
        .certificate(Some(certificate.into()))
        .metadata_url(Some(sp.entity_id.clone()))
        .acs_url(Some(sp.acs_url.clone()))
        .slo_url(None::<String>)
        .idp_metadata(idp)
        .authn_name_id_format(Some(PERSISTENT.to_owned()))
        .allow_idp_initiated(idp_initiated)
        .max_clock_skew(Duration::seconds(state.config.saml_allowed_clock_skew as i64))
        // SHA-1 signatures are refused; crewjam/saml still takes them.
        .allowed_signature_algorithms(Some(vec![
            AllowedSignatureAlgorithm::RsaSha256,
            AllowedSignatureAlgorithm::RsaSha384,
            AllowedSignatureAlgorithm::RsaSha512,
            AllowedSignatureAlgorithm::EcdsaSha256,
            AllowedSignatureAlgorithm::EcdsaSha384,
            AllowedSignatureAlgorithm::EcdsaSha512,
        ]))
        .build()
        .map_err(ApiError::internal)
}

/// The signed HTTP-Redirect URL of a new authentication request to the
/// identity provider's single sign-on service, and the request's ID.
pub fn authn_request_url(
    provider: &ServiceProvider,
    sp: &Sp,
    name_id_format: Option<&str>,
    relay_state: &str,
) -> Result<(String, String), ApiError> {
    let location = provider
        .sso_binding_location(HTTP_REDIRECT)
        .ok_or_else(|| ApiError::internal("the identity provider has no HTTP-Redirect SSO service"))?;
    let mut request =
        provider.make_authentication_request(&location).map_err(|e| ApiError::internal(e.to_string()))?;
    // samael's IDs carry 32 random bits; the request ID is what binds the
    // answer to this request, so it gets a UUID's 122 (an NCName: a letter first).
    request.id = format!("id-{}", uuid::Uuid::new_v4().simple());
    if let (Some(format), Some(policy)) = (name_id_format, request.name_id_policy.as_mut()) {
        policy.format = Some(format.to_owned());
    }
    let url = request
        .signed_redirect(relay_state, &sp.key)
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(|| ApiError::internal("authentication request without destination"))?;
    Ok((url.into(), request.id))
}

/// One key of GoTrue's `attribute_mapping` (`models.SAMLAttribute`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MappedAttribute {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub array: bool,
}

/// GoTrue's `SAMLAttributeMapping`: `{"keys": {"email": {"name": "mail"}}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttributeMapping {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<BTreeMap<String, MappedAttribute>>,
}

/// The values of the attributes named `name` (by Name or FriendlyName, any case).
fn attribute<'a>(assertion: &'a Assertion, name: &str) -> Vec<&'a str> {
    let statements = assertion.attribute_statements.iter().flatten();
    let attributes = statements.flat_map(|s| s.attributes.iter());
    let named = |a: &&samael::attribute::Attribute| {
        let eq = |n: &Option<String>| n.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name));
        eq(&a.name) || eq(&a.friendly_name)
    };
    attributes.filter(named).flat_map(|a| a.values.iter().filter_map(|v| v.value.as_deref())).collect()
}

/// GoTrue's `SAMLAssertion.UserID`: the subject-id attribute, else a NameID
/// that is not transient (e-mail NameIDs lower-cased).
pub fn user_id(assertion: &Assertion) -> Option<String> {
    if let Some(id) = attribute(assertion, SUBJECT_ID).first() {
        return Some((*id).to_owned());
    }
    let name_id = assertion.subject.as_ref()?.name_id.as_ref()?;
    let value = name_id.value.as_str();
    match name_id.format.as_deref() {
        _ if value.is_empty() => None,
        Some(EMAIL_ADDRESS) => Some(value.trim().to_lowercase()),
        Some(TRANSIENT) => None,
        _ => Some(value.to_owned()),
    }
}

/// GoTrue's `SAMLAssertion.Email`: the usual e-mail attributes, else an
/// e-mail NameID.
pub fn email(assertion: &Assertion) -> Option<String> {
    const NAMES: [&str; 5] = [
        "urn:oid:0.9.2342.19200300.100.1.3",
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
        "http://schemas.xmlsoap.org/claims/EmailAddress",
        "mail",
        "email",
    ];
    for name in NAMES {
        if let Some(value) = attribute(assertion, name).into_iter().find(|v| !v.is_empty()) {
            return Some(value.to_owned());
        }
    }
    let name_id = assertion.subject.as_ref()?.name_id.as_ref()?;
    (name_id.format.as_deref() == Some(EMAIL_ADDRESS)).then(|| name_id.value.clone())
}

/// GoTrue's `SAMLAssertion.Process`: each mapped key takes the first
/// non-empty value of the first of its names present (all values with
/// `array`), else its default.
pub fn process(assertion: &Assertion, mapping: &AttributeMapping) -> Map<String, Value> {
    let mut claims = Map::new();
    for (key, mapped) in mapping.keys.iter().flatten() {
        let names = (!mapped.name.is_empty()).then_some(&mapped.name).into_iter().chain(&mapped.names);
        let mut found = None;
        for name in names {
            let values: Vec<&str> =
                attribute(assertion, name).into_iter().filter(|v| !v.is_empty()).collect();
            if values.is_empty() {
                continue;
            }
            found = Some(if mapped.array { json!(values) } else { json!(values[0]) });
            break;
        }
        if let Some(value) = found.or_else(|| mapped.default.clone()) {
            claims.insert(key.clone(), value);
        }
    }
    claims
}

/// The claims GoTrue's `provider.Claims` has fields for; the other mapped
/// keys go into its `custom_claims`.
const STANDARD_CLAIMS: [&str; 21] = [
    "iss",
    "sub",
    "aud",
    "iat",
    "exp",
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
    "updated_at",
    "phone",
    "phone_verified",
];

/// The identity's data (and a new user's metadata), shaped as GoTrue's
/// `provider.Claims` serialises: issuer, subject, verified e-mail, the
/// standard claims mapped, the rest under `custom_claims`.
pub fn identity_data(mut claims: Map<String, Value>, issuer: &str, subject: &str, email: &str) -> Value {
    let mut data = Map::new();
    for key in STANDARD_CLAIMS {
        if let Some(value) = claims.remove(key) {
            data.insert(key.to_owned(), value);
        }
    }
    claims.remove("email");
    claims.remove("email_verified");
    data.insert("iss".to_owned(), json!(issuer));
    data.insert("sub".to_owned(), json!(subject));
    data.insert("email".to_owned(), json!(email));
    data.insert("email_verified".to_owned(), json!(true));
    if !claims.is_empty() {
        data.insert("custom_claims".to_owned(), Value::Object(claims));
    }
    Value::Object(data)
}

/// When the assertion stops being usable, kept with its ID against replays:
/// the latest NotOnOrAfter it states, plus the clock skew; an assertion that
/// states none is remembered for a day.
pub fn replay_horizon(assertion: &Assertion, skew: Duration) -> DateTime<Utc> {
    let conditions = assertion.conditions.as_ref().and_then(|c| c.not_on_or_after);
    let confirmations = assertion
        .subject
        .iter()
        .flat_map(|s| s.subject_confirmations.iter().flatten())
        .filter_map(|c| c.subject_confirmation_data.as_ref().and_then(|d| d.not_on_or_after));
    let latest = conditions.into_iter().chain(confirmations).max();
    latest.map_or_else(|| Utc::now() + Duration::days(1), |t| t + skew)
}

/// GoTrue's `SAMLAssertion.NotAfter`: the first SessionNotOnOrAfter.
pub fn session_not_after(assertion: &Assertion) -> Option<DateTime<Utc>> {
    assertion.authn_statements.iter().flatten().find_map(|s| s.session_not_on_or_after)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NameID's format and value.
    type NameId<'a> = Option<(&'a str, &'a str)>;
    /// Attributes' names and values.
    type Attributes<'a> = &'a [(&'a str, &'a [&'a str])];

    fn assertion(name_id: NameId<'_>, attributes: Attributes<'_>) -> Assertion {
        let attributes = attributes
            .iter()
            .map(|(name, values)| {
                let values = values
                    .iter()
                    .map(|v| format!("<saml:AttributeValue>{v}</saml:AttributeValue>"))
                    .collect::<String>();
                format!(r#"<saml:Attribute Name="{name}">{values}</saml:Attribute>"#)
            })
            .collect::<String>();
        let subject = name_id
            .map(|(format, value)| {
                format!(
                    r#"<saml:Subject><saml:NameID Format="{format}">{value}</saml:NameID></saml:Subject>"#
                )
            })
            .unwrap_or_default();
        let xml = format!(
            r#"<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="a1" Version="2.0" IssueInstant="2024-01-01T00:00:00Z"><saml:Issuer>idp</saml:Issuer>{subject}<saml:AttributeStatement>{attributes}</saml:AttributeStatement></saml:Assertion>"#
        );
        xml.parse().expect("assertion")
    }

    #[test]
    fn the_user_id_is_the_subject_id_attribute_else_a_lasting_name_id() {
        let cases: [(NameId<'_>, Attributes<'_>, Option<&str>); 5] = [
            (Some((PERSISTENT, "p-1")), &[(SUBJECT_ID, &["s-1"])], Some("s-1")),
            (Some((PERSISTENT, "p-1")), &[], Some("p-1")),
            (Some((EMAIL_ADDRESS, " Ann@Example.com ")), &[], Some("ann@example.com")),
            (Some((TRANSIENT, "t-1")), &[], None),
            (None, &[], None),
        ];
        for (name_id, attributes, expected) in cases {
            assert_eq!(user_id(&assertion(name_id, attributes)).as_deref(), expected, "{name_id:?}");
        }
    }

    #[test]
    fn the_email_is_a_known_attribute_else_an_email_name_id() {
        let cases: [(NameId<'_>, Attributes<'_>, Option<&str>); 4] = [
            (Some((PERSISTENT, "p")), &[("Mail", &["a@example.com"])], Some("a@example.com")),
            (
                Some((PERSISTENT, "p")),
                &[("urn:oid:0.9.2342.19200300.100.1.3", &["b@example.com"])],
                Some("b@example.com"),
            ),
            (Some((EMAIL_ADDRESS, "c@example.com")), &[], Some("c@example.com")),
            (Some((PERSISTENT, "p")), &[("name", &["Ann"])], None),
        ];
        for (name_id, attributes, expected) in cases {
            assert_eq!(email(&assertion(name_id, attributes)).as_deref(), expected, "{attributes:?}");
        }
    }

    #[test]
    fn attribute_mapping_takes_the_first_name_present_arrays_and_defaults() {
        let mapping: AttributeMapping = serde_json::from_value(json!({"keys": {
            "name": {"names": ["displayName", "cn"]},
            "groups": {"name": "memberOf", "array": true},
            "tier": {"name": "absent", "default": "basic"},
            "missing": {"name": "absent"},
        }}))
        .expect("mapping");
        let assertion =
            assertion(Some((PERSISTENT, "p")), &[("cn", &["Ann Smith"]), ("memberOf", &["admins", "staff"])]);
        let expected = json!({"name": "Ann Smith", "groups": ["admins", "staff"], "tier": "basic"});
        assert_eq!(Value::Object(process(&assertion, &mapping)), expected);
    }

    #[test]
    fn identity_data_keeps_standard_claims_and_nests_the_others() {
        let claims = json!({"name": "Ann", "groups": ["a"], "email": "x@example.com"});
        let Value::Object(claims) = claims else { unreachable!() };
        let data = identity_data(claims, "https://idp.example.com", "p-1", "ann@example.com");
        let expected = json!({
            "iss": "https://idp.example.com", "sub": "p-1", "email": "ann@example.com",
            "email_verified": true, "name": "Ann", "custom_claims": {"groups": ["a"]},
        });
        assert_eq!(data, expected);
    }
}
