//! SAML 2.0 single sign-on against a real identity provider on loopback
//! (below): it reads the gateway's signed authentication request, checks
//! its signature with the certificate of the gateway's metadata, and answers
//! with a response it signs with its own key (libxmlsec1, through samael),
//! in an auto-posting form the test posts to the ACS as a browser would.
//! Covered: sign-in (implicit and PKCE), attribute mapping, every way an
//! assertion is refused (unsigned, tampered, another key, another audience
//! or destination, SHA-1, expired or not yet valid beyond the clock skew, replayed,
//! answering another request), the feature switched off, the metadata, and
//! the admin API of providers.

mod common;

use std::io::Read;
use std::sync::{Arc, Mutex, OnceLock};

use axum::{
    Router,
    extract::{RawQuery, State},
    response::Html,
    routing::get,
};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chrono::{Duration, Utc};
use openssl::pkey::{PKey, Private};
use reqwest::{Method, Url};
use samael::attribute::{Attribute, AttributeValue};
use samael::crypto::{CertificateDer, Crypto, CryptoProvider, UrlVerifier};
use samael::idp::response_builder::build_response_template;
use samael::idp::{CertificateParams, IdentityProvider, KeyType, Rsa};
use samael::schema::{AttributeStatement, AuthnRequest, Response};
use samael::signature::DigestAlgorithm;
use samael::traits::ToXml;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};
use gateway::config::Secret;

const SITE: &str = "http://shop.example.com";
const APP: &str = "http://app.example.com/welcome";
const PERSISTENT: &str = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent";

/// A key and its self-signed certificate.
struct Signer {
    key_der: Vec<u8>,
    certificate: CertificateDer,
}

impl Signer {
    fn generate(name: &str) -> Self {
        let idp = IdentityProvider::generate_new(KeyType::Rsa(Rsa::Rsa2048)).expect("key");
        let params = CertificateParams { common_name: name, issuer_name: name, days_until_expiration: 30 };
        let certificate = idp.create_certificate(&params).expect("certificate");
        Signer { key_der: idp.export_private_key_der().expect("der"), certificate }
    }

    fn certificate_base64(&self) -> String {
        STANDARD.encode(self.certificate.der_data())
    }
}

/// The identity provider's key, a stranger's, and the gateway's (as
/// `AUTH_SAML_PRIVATE_KEY`), made once per test process.
fn keys() -> &'static (Signer, Signer, String) {
    static KEYS: OnceLock<(Signer, Signer, String)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let sp: PKey<Private> =
            PKey::from_rsa(openssl::rsa::Rsa::generate(2048).expect("rsa")).expect("pkey");
        let sp_der = sp.rsa().expect("rsa").private_key_to_der().expect("der");
        (
            Signer::generate("idp.example.com"),
            Signer::generate("stranger.example.com"),
            STANDARD.encode(sp_der),
        )
    })
}

/// What the identity provider puts in its next answer.
#[derive(Clone)]
struct Answer {
    name_id: String,
    attributes: Vec<(String, String)>,
    /// Signed with the stranger's key (and certificate) instead.
    stranger: bool,
    signed: bool,
    /// Digested with SHA-1, as samael's template has it (SHA-256 otherwise).
    sha1_digest: bool,
    audience: Option<String>,
    destination: Option<String>,
    /// Answers this request ID rather than the one received.
    in_response_to: Option<String>,
    not_before: Option<Duration>,
    not_on_or_after: Option<Duration>,
}

impl Default for Answer {
    fn default() -> Self {
        Answer {
            name_id: "employee-1".to_owned(),
            attributes: vec![
                ("mail".to_owned(), "Ann.Smith@example.com".to_owned()),
                ("displayName".to_owned(), "Ann Smith".to_owned()),
            ],
            stranger: false,
            signed: true,
            sha1_digest: false,
            audience: None,
            destination: None,
            in_response_to: None,
            not_before: None,
            not_on_or_after: None,
        }
    }
}

#[derive(Default)]
struct Inner {
    answer: Answer,
    /// The gateway's certificate, from its metadata: requests must verify.
    sp_certificate: Option<CertificateDer>,
}

#[derive(Clone)]
struct Idp {
    base: String,
    inner: Arc<Mutex<Inner>>,
}

impl Idp {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let idp = Idp { base, inner: Arc::default() };
        let app = Router::new().route("/sso", get(single_sign_on)).with_state(idp.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        idp
    }

    fn entity_id(&self) -> String {
        format!("{}/metadata", self.base)
    }

    fn metadata(&self) -> String {
        format!(
            r#"<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="{entity}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>{cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>{PERSISTENT}</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="{base}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>"#,
            entity = self.entity_id(),
            cert = keys().0.certificate_base64(),
            base = self.base,
        )
    }

    fn answer(&self, answer: Answer) {
        self.inner.lock().expect("lock").answer = answer;
    }
}

/// `GET /sso?SAMLRequest=&RelayState=&SigAlg=&Signature=` (HTTP-Redirect
/// binding): the request checked, the user "signed in" at once, and the
/// signed response in a form that posts itself to the ACS.
async fn single_sign_on(State(idp): State<Idp>, RawQuery(query): RawQuery) -> Html<String> {
    let query = query.unwrap_or_default();
    let url = Url::parse(&format!("{}/sso?{query}", idp.base)).expect("url");
    let param = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let (answer, sp_certificate) = {
        let inner = idp.inner.lock().expect("lock");
        (inner.answer.clone(), inner.sp_certificate.clone())
    };
    if let Some(certificate) = sp_certificate {
        let verifier = UrlVerifier::from_x509(&certificate).expect("verifier");
        assert!(verifier.verify_signed_request_url(&url).expect("verify"), "the request's signature");
    }
    let deflated = STANDARD.decode(param("SAMLRequest").expect("SAMLRequest")).expect("base64");
    let mut xml = String::new();
    flate2::read::DeflateDecoder::new(deflated.as_slice()).read_to_string(&mut xml).expect("inflate");
    let request: AuthnRequest = xml.parse().expect("AuthnRequest");
    let acs = request.assertion_consumer_service_url.clone().expect("ACS URL");
    let audience = request.issuer.as_ref().and_then(|i| i.value.clone()).expect("issuer");
    let response = respond(&idp, &answer, &request.id, &audience, &acs);
    let relay_state = param("RelayState").unwrap_or_default();
    Html(format!(
        r#"<form method="post" action="{acs}"><input type="hidden" name="SAMLResponse" value="{response}" /><input type="hidden" name="RelayState" value="{relay_state}" /></form>"#
    ))
}

/// A signed `<samlp:Response>` (base64) answering `request_id`.
fn respond(idp: &Idp, answer: &Answer, request_id: &str, audience: &str, acs: &str) -> String {
    let (own, stranger, _) = keys();
    let signer = if answer.stranger { stranger } else { own };
    let in_response_to = answer.in_response_to.as_deref().unwrap_or(request_id);
    let audience = answer.audience.as_deref().unwrap_or(audience);
    let mut response: Response = build_response_template(
        &signer.certificate,
        &answer.name_id,
        audience,
        &idp.entity_id(),
        acs,
        in_response_to,
        &[],
    );
    response.destination = Some(answer.destination.clone().unwrap_or_else(|| acs.to_owned()));
    if !answer.sha1_digest {
        let signature = response.signature.as_mut().expect("signature template");
        signature.signed_info.reference[0].digest_method.algorithm = DigestAlgorithm::Sha256;
    }
    let assertion = response.assertion.as_mut().expect("assertion");
    let subject = assertion.subject.as_mut().expect("subject");
    subject.name_id.as_mut().expect("name id").format = Some(PERSISTENT.to_owned());
    let data = subject.subject_confirmations.as_mut().expect("confirmations")[0]
        .subject_confirmation_data
        .as_mut()
        .expect("confirmation data");
    data.not_on_or_after = Some(Utc::now() + Duration::minutes(5));
    let conditions = assertion.conditions.as_mut().expect("conditions");
    conditions.not_before = answer.not_before.map(|d| Utc::now() + d);
    conditions.not_on_or_after = Some(Utc::now() + answer.not_on_or_after.unwrap_or(Duration::minutes(5)));
    assertion.attribute_statements = Some(vec![AttributeStatement {
        attributes: answer
            .attributes
            .iter()
            .map(|(name, value)| Attribute {
                friendly_name: None,
                name: Some(name.clone()),
                name_format: None,
                values: vec![AttributeValue { attribute_type: None, value: Some(value.clone()) }],
            })
            .collect(),
    }]);
    let xml = response.to_string().expect("xml");
    let xml =
        if answer.signed { Crypto::sign_xml(xml.as_str(), &signer.key_der).expect("sign") } else { xml };
    STANDARD.encode(xml)
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client")
}

/// The value of a hidden form field.
fn field(html: &str, name: &str) -> String {
    let marker = format!(r#"name="{name}" value=""#);
    let start = html.find(&marker).expect("field") + marker.len();
    html[start..].split('"').next().expect("value").to_owned()
}

struct Form {
    action: Url,
    response: String,
    relay_state: String,
}

fn param(url: &Url, name: &str) -> Option<String> {
    url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

fn fragment_param(url: &Url, name: &str) -> Option<String> {
    form_urlencoded::parse(url.fragment().unwrap_or("").as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A PKCE verifier and its S256 challenge.
fn pkce() -> (String, String) {
    let verifier = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

struct World {
    app: TestApp,
    idp: Idp,
    provider_id: String,
}

async fn saml_app(enabled: bool) -> TestApp {
    spawn_auth_app(|auth| {
        auth.saml_enabled = enabled;
        auth.saml_private_key = Some(Secret::new(keys().2.clone()));
        auth.site_url = Some(SITE.to_owned());
        auth.uri_allow_list = vec!["http://app.example.com/**".to_owned()];
    })
    .await
}

/// A gateway with SAML on and the identity provider registered for
/// `example.com`, e-mail and name mapped.
async fn world() -> World {
    let app = saml_app(true).await;
    let idp = Idp::start().await;
    let created = app
        .send(app.as_service(Method::POST, "/admin/sso/providers").json(&json!({
            "type": "saml",
            "metadata_xml": idp.metadata(),
            "domains": ["example.com"],
            "attribute_mapping": {"keys": {"name": {"names": ["cn", "displayName"]}, "email": {"name": "mail"}}},
        })))
        .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let metadata =
        app.client.get(format!("{}/auth/v1/sso/saml/metadata", app.address)).send().await.expect("metadata");
    let metadata = metadata.text().await.expect("metadata text");
    let certificate = metadata.split("X509Certificate").nth(1).expect("certificate");
    let certificate = certificate.split('>').nth(1).expect("cert start").split('<').next().expect("cert");
    idp.inner.lock().expect("lock").sp_certificate =
        Some(CertificateDer::from(STANDARD.decode(certificate).expect("cert base64")));
    World { provider_id: created.body["id"].as_str().expect("id").to_owned(), app, idp }
}

impl World {
    /// `signInWithSSO` then the identity provider: the form it answers with.
    async fn to_idp(&self, body: Value) -> Form {
        let started = self.app.send(self.app.auth(Method::POST, "/sso").json(&body)).await;
        assert_eq!(started.status, 200, "{:?}", started.body);
        let url = started.body["url"].as_str().expect("url");
        assert!(url.starts_with(&format!("{}/sso?SAMLRequest=", self.idp.base)), "{url}");
        let html = browser().get(url).send().await.expect("idp").text().await.expect("html");
        let action = html.split(r#"action=""#).nth(1).expect("action").split('"').next().expect("action");
        Form {
            action: Url::parse(action).expect("action URL"),
            response: field(&html, "SAMLResponse"),
            relay_state: field(&html, "RelayState"),
        }
    }

    /// Posts the form to the gateway's ACS: where the browser is sent.
    async fn post(&self, form: &Form) -> (u16, Url) {
        assert_eq!(form.action.path(), "/auth/v1/sso/saml/acs");
        let response = browser()
            .post(format!("{}/auth/v1/sso/saml/acs", self.app.address))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                form_urlencoded::Serializer::new(String::new())
                    .append_pair("SAMLResponse", &form.response)
                    .append_pair("RelayState", &form.relay_state)
                    .finish(),
            )
            .send()
            .await
            .expect("acs");
        let status = response.status().as_u16();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let location = location.unwrap_or_else(|| panic!("no Location ({status})"));
        (status, Url::parse(&location).expect("location"))
    }

    async fn sign_in(&self, answer: Answer) -> (u16, Url) {
        self.idp.answer(answer);
        let form = self.to_idp(json!({"domain": "example.com", "skip_http_redirect": true})).await;
        self.post(&form).await
    }

    async fn users(&self) -> i64 {
        let admin = self.app.admin().await;
        admin.query_one("select count(*) from auth.users", &[]).await.expect("count").get(0)
    }
}

#[tokio::test]
async fn a_user_signs_in_through_the_identity_provider_and_comes_back_with_a_session() {
    let world = world().await;
    let (status, back) = world.sign_in(Answer::default()).await;
    assert_eq!(status, 302, "{back}");
    assert_eq!(back.as_str().split('#').next(), Some(format!("{SITE}/").as_str()), "{back}");
    let token = fragment_param(&back, "access_token").expect("access_token in the fragment");
    assert!(fragment_param(&back, "refresh_token").is_some());

    let app = &world.app;
    let user = app.send(app.as_user(Method::GET, "/user", &token)).await;
    assert_eq!(user.status, 200, "{:?}", user.body);
    let provider = format!("sso:{}", world.provider_id);
    assert_eq!(user.body["email"], "ann.smith@example.com");
    assert_eq!(user.body["app_metadata"]["provider"], provider.as_str());
    assert_eq!(user.body["user_metadata"]["name"], "Ann Smith");
    assert_eq!(user.body["user_metadata"]["iss"], world.idp.entity_id().as_str());
    assert_eq!(user.body["identities"][0]["provider"], provider.as_str());
    assert_eq!(user.body["identities"][0]["identity_data"]["sub"], "employee-1");
    assert!(user.body["email_confirmed_at"].is_string());
    let claims: Value = {
        let payload = token.split('.').nth(1).expect("payload");
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("claims")
    };
    assert_eq!(claims["amr"][0]["method"], "sso/saml");

    // SSO users are their own accounts, even where an address is taken.
    let admin = app.admin().await;
    let sso: bool = admin
        .query_one("select is_sso_user from auth.users where email = 'ann.smith@example.com'", &[])
        .await
        .expect("user")
        .get(0);
    assert!(sso);

    // Signing in again finds the same user.
    let (_, again) = world.sign_in(Answer::default()).await;
    assert!(fragment_param(&again, "access_token").is_some(), "{again}");
    assert_eq!(world.users().await, 1);
}

#[tokio::test]
async fn a_pkce_sign_in_ends_in_a_code_that_the_app_trades_once_for_a_session() {
    let world = world().await;
    let (verifier, challenge) = pkce();
    let form = world
        .to_idp(json!({
            "provider_id": world.provider_id, "skip_http_redirect": true, "redirect_to": APP,
            "code_challenge": challenge, "code_challenge_method": "s256",
        }))
        .await;
    let (status, back) = world.post(&form).await;
    assert_eq!(status, 302);
    assert!(back.as_str().starts_with(APP), "{back}");
    assert!(back.fragment().is_none(), "no tokens in the URL: {back}");
    let code = param(&back, "code").expect("code");

    let app = &world.app;
    let exchange = |verifier: String| {
        let body = json!({"auth_code": code, "code_verifier": verifier});
        app.send(app.auth(Method::POST, "/token?grant_type=pkce").json(&body))
    };
    let wrong: Reply = exchange("x".repeat(43)).await;
    assert_eq!((wrong.status, wrong.code()), (400, "bad_code_verifier"), "{:?}", wrong.body);
    let session = exchange(verifier.clone()).await;
    assert_eq!(session.status, 200, "{:?}", session.body);
    assert_eq!(session.body["user"]["email"], "ann.smith@example.com");
    let user = app.send(app.as_user(Method::GET, "/user", access_token(&session.body))).await;
    assert_eq!(user.status, 200);
    let again = exchange(verifier).await;
    assert_eq!((again.status, again.code()), (404, "flow_state_not_found"), "{:?}", again.body);
}

#[tokio::test]
async fn sso_without_skip_http_redirect_sends_the_browser_to_the_identity_provider() {
    let world = world().await;
    let response = browser()
        .post(format!("{}/auth/v1/sso", world.app.address))
        .header("apikey", &world.app.anon_key)
        .json(&json!({"domain": "EXAMPLE.com"}))
        .send()
        .await
        .expect("sso");
    assert_eq!(response.status().as_u16(), 303);
    let location = response.headers()["location"].to_str().expect("location").to_owned();
    let url = Url::parse(&location).expect("url");
    assert!(param(&url, "SAMLRequest").is_some() && param(&url, "Signature").is_some(), "{url}");
    assert!(uuid::Uuid::parse_str(&param(&url, "RelayState").expect("relay state")).is_ok());

    let app = &world.app;
    let cases = [
        (json!({}), 400, "validation_failed"),
        (json!({"domain": "example.com", "provider_id": world.provider_id}), 400, "validation_failed"),
        (json!({"domain": "elsewhere.com"}), 404, "sso_provider_not_found"),
        (json!({"provider_id": uuid::Uuid::new_v4()}), 404, "sso_provider_not_found"),
        (
            json!({"domain": "example.com", "code_challenge": "short", "code_challenge_method": "s256"}),
            400,
            "validation_failed",
        ),
    ];
    for (body, status, code) in cases {
        let reply = app.send(app.auth(Method::POST, "/sso").json(&body)).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{body}: {:?}", reply.body);
    }
}

#[tokio::test]
async fn assertions_are_refused_unless_signed_by_the_provider_for_us_now() {
    let world = world().await;
    let skew_later = Duration::seconds(60);
    let cases: Vec<(&str, Answer)> = vec![
        ("unsigned", Answer { signed: false, ..Answer::default() }),
        ("signed by another key", Answer { stranger: true, ..Answer::default() }),
        ("digested with SHA-1", Answer { sha1_digest: true, ..Answer::default() }),
        (
            "for another audience",
            Answer { audience: Some("https://other.example.com/sp".into()), ..Answer::default() },
        ),
        (
            "to another destination",
            Answer { destination: Some("https://other.example.com/acs".into()), ..Answer::default() },
        ),
        (
            "expired beyond the skew",
            Answer { not_on_or_after: Some(Duration::seconds(-200)), ..Answer::default() },
        ),
        (
            "not yet valid beyond the skew",
            Answer { not_before: Some(Duration::seconds(200)), ..Answer::default() },
        ),
        (
            "answering another request",
            Answer { in_response_to: Some("id-someone-else".into()), ..Answer::default() },
        ),
    ];
    for (case, answer) in cases {
        let (status, back) = world.sign_in(answer).await;
        assert_eq!(status, 303, "{case}");
        assert!(back.as_str().starts_with(SITE), "{case}: {back}");
        assert_eq!(param(&back, "error_code").as_deref(), Some("validation_failed"), "{case}: {back}");
        assert!(fragment_param(&back, "access_token").is_none(), "{case}");
    }
    assert_eq!(world.users().await, 0);

    // Within the skew a clock a little ahead is tolerated.
    let (_, back) = world.sign_in(Answer { not_before: Some(skew_later), ..Answer::default() }).await;
    assert!(fragment_param(&back, "access_token").is_some(), "{back}");
}

#[tokio::test]
async fn a_tampered_assertion_is_refused() {
    let world = world().await;
    world.idp.answer(Answer::default());
    let mut form = world.to_idp(json!({"domain": "example.com", "skip_http_redirect": true})).await;
    let xml = String::from_utf8(STANDARD.decode(&form.response).expect("b64")).expect("utf8");
    let forged = xml.replace("Ann.Smith@example.com", "boss@example.com");
    assert_ne!(xml, forged);
    form.response = STANDARD.encode(forged);
    let (status, back) = world.post(&form).await;
    assert_eq!((status, param(&back, "error_code").as_deref()), (303, Some("validation_failed")), "{back}");
    assert_eq!(world.users().await, 0);
}

#[tokio::test]
async fn a_response_works_once_and_relay_states_must_be_ours() {
    let world = world().await;
    world.idp.answer(Answer::default());
    let mut form = world.to_idp(json!({"domain": "example.com", "skip_http_redirect": true})).await;
    let (_, first) = world.post(&form).await;
    assert!(fragment_param(&first, "access_token").is_some(), "{first}");

    // The same post again: its relay state was used up.
    let (status, again) = world.post(&form).await;
    assert_eq!((status, param(&again, "error_code").as_deref()), (303, Some("saml_relay_state_not_found")));

    // Posted as an unsolicited answer (no relay state): the assertion's ID
    // was seen.
    form.relay_state = String::new();
    let (_, replayed) = world.post(&form).await;
    assert_eq!(param(&replayed, "error_code").as_deref(), Some("validation_failed"), "{replayed}");

    // A relay state nobody issued, and one that is not a UUID or URL.
    let cases = [
        (uuid::Uuid::new_v4().to_string(), "saml_relay_state_not_found"),
        ("not a relay state".to_owned(), "validation_failed"),
    ];
    for (relay_state, code) in cases {
        form.relay_state = relay_state;
        let (_, back) = world.post(&form).await;
        assert_eq!(param(&back, "error_code").as_deref(), Some(code), "{back}");
    }
    assert_eq!(world.users().await, 1);
}

#[tokio::test]
async fn with_saml_off_every_sso_route_answers_saml_provider_disabled() {
    let app = saml_app(false).await;
    // Refused before the body is read, as GoTrue's middleware refuses it:
    // a body that would not parse gets the same answer.
    for body in [json!({"domain": "example.com"}), json!({"provider_id": "not a uuid"})] {
        let sso = app.send(app.auth(Method::POST, "/sso").json(&body)).await;
        assert_eq!((sso.status, sso.code()), (404, "saml_provider_disabled"), "{body}");
    }
    for path in ["/sso/saml/metadata"] {
        let reply = app.send(app.client.get(format!("{}/auth/v1{path}", app.address))).await;
        assert_eq!((reply.status, reply.code()), (404, "saml_provider_disabled"), "{path}");
    }
    let acs = app.send(app.client.post(format!("{}/auth/v1/sso/saml/acs", app.address))).await;
    assert_eq!((acs.status, acs.code()), (404, "saml_provider_disabled"));
}

#[tokio::test]
async fn the_metadata_names_our_entity_id_acs_and_certificate() {
    let app = saml_app(true).await;
    let response =
        app.client.get(format!("{}/auth/v1/sso/saml/metadata", app.address)).send().await.expect("get");
    assert_eq!(response.headers()["content-type"], "application/xml");
    assert!(response.headers().get("content-disposition").is_none());
    let xml = response.text().await.expect("xml");
    let issuer = "http://127.0.0.1:54321/auth/v1";
    assert!(xml.contains(&format!(r#"entityID="{issuer}/sso/saml/metadata""#)), "{xml}");
    assert!(xml.contains(&format!(r#"Location="{issuer}/sso/saml/acs""#)), "{xml}");
    assert!(xml.contains("<X509Certificate"), "{xml}");
    let parsed: samael::metadata::EntityDescriptor = xml.parse().expect("valid metadata");
    assert_eq!(parsed.entity_id.as_deref(), Some(format!("{issuer}/sso/saml/metadata").as_str()));

    let download = app
        .client
        .get(format!("{}/auth/v1/sso/saml/metadata?download=true", app.address))
        .send()
        .await
        .expect("get");
    assert_eq!(download.headers()["content-disposition"], "attachment; filename=\"metadata.xml\"");
    // The same certificate every time: identity providers keep it.
    assert_eq!(
        xml.split("X509Certificate").nth(1),
        download.text().await.expect("xml").split("X509Certificate").nth(1)
    );
}

#[tokio::test]
async fn admins_create_list_show_update_and_delete_providers() {
    let app = saml_app(true).await;
    let idp = Idp::start().await;
    let admin = |method: Method, path: &str| app.as_service(method, path);

    let created = app
        .send(admin(Method::POST, "/admin/sso/providers").json(&json!({
            "type": "saml", "metadata_xml": idp.metadata(), "domains": ["corp.example"],
            "resource_id": "corp", "name_id_format": PERSISTENT,
        })))
        .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let id = created.body["id"].as_str().expect("id").to_owned();
    assert_eq!(created.body["saml"]["entity_id"], idp.entity_id().as_str());
    assert_eq!(created.body["saml"]["name_id_format"], PERSISTENT);
    assert_eq!(created.body["domains"], json!([{"domain": "corp.example"}]));
    assert_eq!(created.body["resource_id"], "corp");
    assert!(created.body["saml"]["metadata_xml"].is_string());

    let refusals = [
        (json!({"type": "oidc", "metadata_xml": idp.metadata()}), 400, "validation_failed"),
        (json!({"type": "saml"}), 400, "validation_failed"),
        (json!({"type": "saml", "metadata_url": "http://idp.example.com/m"}), 400, "validation_failed"),
        (json!({"type": "saml", "metadata_xml": "<nope/>"}), 400, "validation_failed"),
        (
            json!({"type": "saml", "metadata_xml": idp.metadata(), "name_id_format": "x"}),
            400,
            "validation_failed",
        ),
        (json!({"type": "saml", "metadata_xml": idp.metadata()}), 422, "saml_idp_already_exists"),
    ];
    for (body, status, code) in refusals {
        let reply = app.send(admin(Method::POST, "/admin/sso/providers").json(&body)).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{body}: {:?}", reply.body);
    }
    let other = Idp::start().await;
    let taken = app
        .send(admin(Method::POST, "/admin/sso/providers").json(&json!({
            "type": "saml", "metadata_xml": other.metadata(), "domains": ["corp.example"],
        })))
        .await;
    assert_eq!((taken.status, taken.code()), (400, "sso_domain_already_exists"));
    let anon = app.send(app.auth(Method::GET, "/admin/sso/providers")).await;
    assert_eq!(anon.status, 403);

    let listed = app.send(admin(Method::GET, "/admin/sso/providers")).await;
    assert_eq!(listed.body["items"].as_array().map(Vec::len), Some(1), "{:?}", listed.body);
    assert!(listed.body["items"][0]["saml"].get("metadata_xml").is_none());
    let by_prefix = app.send(admin(Method::GET, "/admin/sso/providers?resource_id_prefix=co")).await;
    assert_eq!(by_prefix.body["items"].as_array().map(Vec::len), Some(1));
    for path in [format!("/admin/sso/providers/{id}"), "/admin/sso/providers/resource_corp".to_owned()] {
        let shown = app.send(admin(Method::GET, &path)).await;
        assert_eq!((shown.status, shown.body["id"].as_str()), (200, Some(id.as_str())), "{path}");
    }

    let updated = app
        .send(admin(Method::PUT, &format!("/admin/sso/providers/{id}")).json(&json!({
            "domains": ["corp.example", "corp.test"],
            "attribute_mapping": {"keys": {"name": {"name": "cn"}}},
            "disabled": true,
        })))
        .await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    assert_eq!(updated.body["domains"], json!([{"domain": "corp.example"}, {"domain": "corp.test"}]));
    assert_eq!(updated.body["saml"]["attribute_mapping"], json!({"keys": {"name": {"name": "cn"}}}));
    assert_eq!(updated.body["disabled"], true);
    // As GoTrue: an update without `name_id_format` clears it.
    assert!(updated.body["saml"].get("name_id_format").is_none());
    let disabled = app.send(app.auth(Method::POST, "/sso").json(&json!({"domain": "corp.test"}))).await;
    assert_eq!((disabled.status, disabled.code()), (404, "sso_provider_disabled"));

    let mismatch = app
        .send(
            admin(Method::PUT, &format!("/admin/sso/providers/{id}"))
                .json(&json!({"metadata_xml": other.metadata()})),
        )
        .await;
    assert_eq!((mismatch.status, mismatch.code()), (400, "saml_entity_id_mismatch"));

    let deleted = app.send(admin(Method::DELETE, &format!("/admin/sso/providers/{id}"))).await;
    assert_eq!((deleted.status, deleted.body["id"].as_str()), (200, Some(id.as_str())));
    for path in [format!("/admin/sso/providers/{id}"), "/admin/sso/providers/not-a-uuid".to_owned()] {
        let gone = app.send(admin(Method::GET, &path)).await;
        assert_eq!((gone.status, gone.code()), (404, "sso_provider_not_found"), "{path}");
    }
}
