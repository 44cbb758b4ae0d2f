//! Passkeys and the `webauthn` MFA factor, on the wire as GoTrue
//! (supabase/auth `passkey_*.go`, `mfa.go`): a passkey registered, then
//! signing in with no password; a WebAuthn factor enrolled, challenged and
//! verified into an `aal2` session; and the attacks on a sign-in, one case
//! each. The browser and its authenticator are played by [`Authenticator`],
//! a software one with a P-256 key and "none" attestation.

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use p256::ecdsa::{Signature, SigningKey, signature::Signer};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};

/// The site URL the tests' gateways have: its origin is the only allowed
/// one and its host the relying party.
const ORIGIN: &str = "http://localhost:5173";
const RP_ID: &str = "localhost";

/// A software authenticator holding one credential.
struct Authenticator {
    key: SigningKey,
    credential_id: Vec<u8>,
    /// The user handle the relying party gave at registration.
    user_handle: Vec<u8>,
    counter: u32,
    /// Where the client says the ceremony runs, and the RP id the
    /// authenticator signs for: the real ones unless an attack changes them.
    origin: String,
    rp_id: String,
}

impl Authenticator {
    fn new(seed: u8) -> Self {
        Authenticator {
            key: SigningKey::from_slice(&[seed; 32]).expect("key"),
            credential_id: vec![seed; 16],
            user_handle: Vec::new(),
            counter: 0,
            origin: ORIGIN.to_owned(),
            rp_id: RP_ID.to_owned(),
        }
    }

    fn client_data(&self, kind: &str, options: &Value) -> Vec<u8> {
        let challenge = options["challenge"].as_str().expect("challenge");
        serde_json::to_vec(
            &json!({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": false}),
        )
        .expect("client data")
    }

    /// RP id hash, flags (user present and verified, plus `extra`), counter.
    fn authenticator_data(&self, extra_flags: u8) -> Vec<u8> {
        let mut data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        data.push(0x01 | 0x04 | extra_flags);
        data.extend(self.counter.to_be_bytes());
        data
    }

    /// `navigator.credentials.create()` for `options` (the `publicKey`
    /// member), serialised as supabase-js sends it.
    fn create(&mut self, options: &Value) -> Value {
        self.user_handle = B64.decode(options["user"]["id"].as_str().expect("user id")).expect("user id");
        let point = self.key.verifying_key().to_encoded_point(false);
        let mut cose = vec![0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20];
        cose.extend(point.x().expect("x"));
        cose.extend([0x22, 0x58, 0x20]);
        cose.extend(point.y().expect("y"));
        let mut auth_data = self.authenticator_data(0x40);
        auth_data.extend([0u8; 16]);
        auth_data.extend((self.credential_id.len() as u16).to_be_bytes());
        auth_data.extend(&self.credential_id);
        auth_data.extend(cose);
        // {"fmt": "none", "attStmt": {}, "authData": <bytes>}
        let mut attestation = vec![0xa3, 0x63];
        attestation.extend(b"fmt");
        attestation.extend([0x64]);
        attestation.extend(b"none");
        attestation.extend([0x67]);
        attestation.extend(b"attStmt");
        attestation.extend([0xa0, 0x68]);
        attestation.extend(b"authData");
        attestation.extend([0x58, auth_data.len() as u8]);
        attestation.extend(auth_data);
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id,
            "rawId": id,
            "type": "public-key",
            "response": {
                "attestationObject": B64.encode(attestation),
                "clientDataJSON": B64.encode(self.client_data("webauthn.create", options)),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        })
    }

    /// `navigator.credentials.get()` for `options`, counting one use.
    fn get(&mut self, options: &Value) -> Value {
        self.counter += 1;
        let auth_data = self.authenticator_data(0);
        let client_data = self.client_data("webauthn.get", options);
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(&client_data));
        let signature: Signature = self.key.sign(&signed);
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id,
            "rawId": id,
            "type": "public-key",
            "response": {
                "authenticatorData": B64.encode(auth_data),
                "clientDataJSON": B64.encode(client_data),
                "signature": B64.encode(signature.to_der().as_bytes()),
                "userHandle": B64.encode(&self.user_handle),
            },
            "clientExtensionResults": {},
        })
    }
}

async fn passkey_app() -> TestApp {
    spawn_auth_app(|auth| {
        auth.passkey_enabled = true;
        auth.mfa_webauthn_enabled = true;
    })
    .await
}

async fn signed_in(app: &TestApp, email: &str) -> Value {
    app.confirmed_user(email, "s3cret-pw").await;
    app.sign_in(email, "s3cret-pw").await
}

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> Reply {
    let request = match token {
        Some(token) => app.as_user(Method::POST, path, token),
        None => app.auth(Method::POST, path),
    };
    app.send(request.json(&body)).await
}

/// Registers a passkey for the signed-in user through `authenticator`.
async fn register(app: &TestApp, token: &str, authenticator: &mut Authenticator) -> Reply {
    let options = post(app, "/passkeys/registration/options", Some(token), json!({})).await;
    assert_eq!(options.status, 200, "{:?}", options.body);
    let credential = authenticator.create(&options.body["options"]);
    let body = json!({"challenge_id": options.body["challenge_id"], "credential": credential});
    post(app, "/passkeys/registration/verify", Some(token), body).await
}

/// Sign-in options: the challenge id and the `publicKey` options.
async fn sign_in_options(app: &TestApp) -> (Value, Value) {
    let options = post(app, "/passkeys/authentication/options", None, json!({})).await;
    assert_eq!(options.status, 200, "{:?}", options.body);
    (options.body["challenge_id"].clone(), options.body["options"].clone())
}

async fn sign_in_verify(app: &TestApp, challenge_id: &Value, credential: Value) -> Reply {
    let body = json!({"challenge_id": challenge_id, "credential": credential});
    post(app, "/passkeys/authentication/verify", None, body).await
}

fn claims(app: &TestApp, token: &str) -> Value {
    serde_json::to_value(app.state.credentials.jwt.verify(token).expect("valid token").claims)
        .expect("claims")
}

fn amr_methods(claims: &Value) -> Vec<&str> {
    claims["amr"].as_array().expect("amr").iter().filter_map(|a| a["method"].as_str()).collect()
}

#[tokio::test]
async fn a_passkey_is_registered_then_signs_in_without_a_password() {
    let app = passkey_app().await;
    let session = signed_in(&app, "ana@example.com").await;
    let token = access_token(&session).to_owned();

    let options = post(&app, "/passkeys/registration/options", Some(&token), json!({})).await;
    assert_eq!(options.status, 200, "{:?}", options.body);
    let public_key = &options.body["options"];
    assert_eq!(public_key["rp"]["id"], RP_ID);
    assert_eq!(public_key["user"]["name"], "ana@example.com");
    assert_eq!(public_key["authenticatorSelection"]["residentKey"], "required");
    assert!(options.body["expires_at"].as_i64().is_some(), "{:?}", options.body);

    let mut authenticator = Authenticator::new(1);
    let credential = authenticator.create(public_key);
    let body = json!({"challenge_id": options.body["challenge_id"], "credential": credential});
    let registered = post(&app, "/passkeys/registration/verify", Some(&token), body).await;
    assert_eq!(registered.status, 200, "{:?}", registered.body);
    assert_eq!(registered.body["friendly_name"], "Passkey");
    let passkey_id = registered.body["id"].as_str().expect("id").to_owned();

    // Stored in GoTrue's columns.
    let row = app
        .admin()
        .await
        .query_one(
            "select credential_id, sign_count, length(public_key) from auth.webauthn_credentials \
             where id = $1::text::uuid",
            &[&passkey_id],
        )
        .await
        .expect("credential row");
    assert_eq!(row.get::<_, Vec<u8>>(0), authenticator.credential_id);
    assert_eq!((row.get::<_, i64>(1), row.get::<_, i32>(2)), (0, 77));

    let listed = app.send(app.as_user(Method::GET, "/passkeys", &token)).await;
    assert_eq!(listed.body.as_array().map(Vec::len), Some(1), "{:?}", listed.body);

    let (challenge_id, options) = sign_in_options(&app).await;
    assert_eq!(options["rpId"], RP_ID);
    let signed_in = sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await;
    assert_eq!(signed_in.status, 200, "{:?}", signed_in.body);
    assert_eq!(signed_in.body["user"]["email"], "ana@example.com");
    let claims = claims(&app, access_token(&signed_in.body));
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(amr_methods(&claims), ["passkey"]);
    let used: i64 = app
        .admin()
        .await
        .query_one(
            "select sign_count from auth.webauthn_credentials where id = $1::text::uuid",
            &[&passkey_id],
        )
        .await
        .expect("credential row")
        .get(0);
    assert_eq!(used, 1);
}

#[tokio::test]
async fn passkeys_are_refused_while_off_and_registration_needs_a_session() {
    let app = spawn_auth_app(|_| {}).await;
    let off = post(&app, "/passkeys/authentication/options", None, json!({})).await;
    assert_eq!((off.status, off.code()), (404, "passkey_disabled"), "{:?}", off.body);

    let app = passkey_app().await;
    // The anon key is no user's token, as GoTrue's `requireAuthentication` says.
    let keyed = post(&app, "/passkeys/registration/options", None, json!({})).await;
    assert_eq!((keyed.status, keyed.code()), (403, "bad_jwt"), "{:?}", keyed.body);
}

/// What an attacker changes in a sign-in after a passkey was registered.
#[derive(Debug, Clone, Copy)]
enum Attack {
    ReplayedAssertion,
    CounterRegression,
    WrongOrigin,
    WrongRpId,
    ExpiredChallenge,
    AnotherUsersCredential,
}

#[tokio::test]
async fn each_attack_on_a_passkey_sign_in_is_refused() {
    let cases = [
        (Attack::ReplayedAssertion, 400, "webauthn_challenge_not_found"),
        (Attack::CounterRegression, 400, "webauthn_verification_failed"),
        (Attack::WrongOrigin, 400, "webauthn_verification_failed"),
        (Attack::WrongRpId, 400, "webauthn_verification_failed"),
        (Attack::ExpiredChallenge, 400, "webauthn_challenge_expired"),
        (Attack::AnotherUsersCredential, 400, "webauthn_verification_failed"),
    ];
    for (attack, status, code) in cases {
        let app = passkey_app().await;
        let session = signed_in(&app, "ana@example.com").await;
        let mut authenticator = Authenticator::new(7);
        let registered = register(&app, access_token(&session), &mut authenticator).await;
        assert_eq!(registered.status, 200, "{attack:?}: {:?}", registered.body);

        let (challenge_id, options) = sign_in_options(&app).await;
        let refused = match attack {
            Attack::ReplayedAssertion => {
                let assertion = authenticator.get(&options);
                let first = sign_in_verify(&app, &challenge_id, assertion.clone()).await;
                assert_eq!(first.status, 200, "{attack:?}: {:?}", first.body);
                sign_in_verify(&app, &challenge_id, assertion).await
            }
            Attack::CounterRegression => {
                authenticator.counter = 9;
                let first = sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await;
                assert_eq!(first.status, 200, "{attack:?}: {:?}", first.body);
                // A clone of the key that has signed less often.
                authenticator.counter = 3;
                let (challenge_id, options) = sign_in_options(&app).await;
                sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await
            }
            Attack::WrongOrigin => {
                authenticator.origin = "https://evil.example".to_owned();
                sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await
            }
            Attack::WrongRpId => {
                authenticator.rp_id = "evil.example".to_owned();
                sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await
            }
            Attack::ExpiredChallenge => {
                app.admin()
                    .await
                    .execute(
                        "update auth.webauthn_challenges set expires_at = now() - interval '1 second'",
                        &[],
                    )
                    .await
                    .expect("expire");
                sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await
            }
            Attack::AnotherUsersCredential => {
                // Bob's own passkey, presented under Ana's user handle.
                let bob = signed_in(&app, "bob@example.com").await;
                let mut bobs = Authenticator::new(8);
                let registered = register(&app, access_token(&bob), &mut bobs).await;
                assert_eq!(registered.status, 200, "{attack:?}: {:?}", registered.body);
                bobs.user_handle = authenticator.user_handle.clone();
                sign_in_verify(&app, &challenge_id, bobs.get(&options)).await
            }
        };
        assert_eq!((refused.status, refused.code()), (status, code), "{attack:?}: {:?}", refused.body);
    }
}

#[tokio::test]
async fn a_webauthn_factor_is_enrolled_challenged_and_verified_into_an_aal2_session() {
    let app = passkey_app().await;
    let session = signed_in(&app, "ana@example.com").await;
    let token = access_token(&session).to_owned();

    let enrolled =
        post(&app, "/factors", Some(&token), json!({"factor_type": "webauthn", "friendly_name": "key"}))
            .await;
    assert_eq!(enrolled.status, 200, "{:?}", enrolled.body);
    assert_eq!(
        (enrolled.body["type"].as_str(), enrolled.body["friendly_name"].as_str()),
        (Some("webauthn"), Some("key"))
    );
    let factor = enrolled.body["id"].as_str().expect("id").to_owned();

    // The first challenge registers the authenticator.
    let challenge = post(&app, &format!("/factors/{factor}/challenge"), Some(&token), json!({})).await;
    assert_eq!(challenge.status, 200, "{:?}", challenge.body);
    assert_eq!(challenge.body["type"], "webauthn");
    assert_eq!(challenge.body["webauthn"]["type"], "create");
    let mut authenticator = Authenticator::new(3);
    let credential = authenticator.create(&challenge.body["webauthn"]["credential_options"]["publicKey"]);
    let body = json!({
        "challenge_id": challenge.body["id"],
        "webauthn": {"type": "create", "credential_response": credential},
    });
    let verified = post(&app, &format!("/factors/{factor}/verify"), Some(&token), body).await;
    assert_eq!(verified.status, 200, "{:?}", verified.body);
    let aal2 = claims(&app, access_token(&verified.body));
    assert_eq!(aal2["aal"], "aal2");
    assert!(amr_methods(&aal2).contains(&"mfa/webauthn"), "{aal2}");
    assert_eq!(verified.body["user"]["factors"][0]["status"], "verified");

    // Later challenges assert it, from a new aal1 session.
    let later = app.sign_in("ana@example.com", "s3cret-pw").await;
    let token = access_token(&later).to_owned();
    let challenge = post(&app, &format!("/factors/{factor}/challenge"), Some(&token), json!({})).await;
    assert_eq!(challenge.body["webauthn"]["type"], "request", "{:?}", challenge.body);
    let assertion = authenticator.get(&challenge.body["webauthn"]["credential_options"]["publicKey"]);
    let body = json!({
        "challenge_id": challenge.body["id"],
        "webauthn": {"type": "request", "credential_response": assertion},
    });
    let verified = post(&app, &format!("/factors/{factor}/verify"), Some(&token), body.clone()).await;
    assert_eq!(verified.status, 200, "{:?}", verified.body);
    assert_eq!(claims(&app, access_token(&verified.body))["aal"], "aal2");

    // The challenge was used: the same assertion again is refused.
    let replayed =
        post(&app, &format!("/factors/{factor}/verify"), Some(access_token(&verified.body)), body).await;
    assert_eq!((replayed.status, replayed.code()), (422, "mfa_factor_not_found"), "{:?}", replayed.body);
}

#[tokio::test]
async fn a_webauthn_factor_refuses_an_assertion_of_another_authenticator() {
    let app = passkey_app().await;
    let session = signed_in(&app, "ana@example.com").await;
    let token = access_token(&session).to_owned();
    let enrolled = post(&app, "/factors", Some(&token), json!({"factor_type": "webauthn"})).await;
    let factor = enrolled.body["id"].as_str().expect("id").to_owned();
    let challenge = post(&app, &format!("/factors/{factor}/challenge"), Some(&token), json!({})).await;
    let mut ana = Authenticator::new(4);
    let credential = ana.create(&challenge.body["webauthn"]["credential_options"]["publicKey"]);
    let body = json!({"challenge_id": challenge.body["id"], "webauthn": {"type": "create", "credential_response": credential}});
    let verified = post(&app, &format!("/factors/{factor}/verify"), Some(&token), body).await;
    assert_eq!(verified.status, 200, "{:?}", verified.body);

    let later = app.sign_in("ana@example.com", "s3cret-pw").await;
    let token = access_token(&later).to_owned();
    let challenge = post(&app, &format!("/factors/{factor}/challenge"), Some(&token), json!({})).await;
    let options = &challenge.body["webauthn"]["credential_options"]["publicKey"];
    let mut mallory = Authenticator::new(5);
    mallory.user_handle = ana.user_handle.clone();
    let body = json!({"challenge_id": challenge.body["id"], "webauthn": {"type": "request", "credential_response": mallory.get(options)}});
    let refused = post(&app, &format!("/factors/{factor}/verify"), Some(&token), body).await;
    assert_eq!((refused.status, refused.code()), (422, "mfa_verification_failed"), "{:?}", refused.body);
}

/// `auth.admin.passkey.listPasskeys` and `deletePasskey`: the service role
/// lists a user's passkeys and deletes one, which then signs in no more
/// (GoTrue's `AdminPasskeyList`, `AdminPasskeyDelete`).
#[tokio::test]
async fn the_service_role_lists_a_users_passkeys_and_deletes_one() {
    let app = passkey_app().await;
    let session = signed_in(&app, "ana@example.com").await;
    let user_id = session["user"]["id"].as_str().expect("user id").to_owned();
    let mut authenticator = Authenticator::new(6);
    let registered = register(&app, access_token(&session), &mut authenticator).await;
    assert_eq!(registered.status, 200, "{:?}", registered.body);
    let passkey_id = registered.body["id"].as_str().expect("id").to_owned();

    let listed = app.send(app.as_service(Method::GET, &format!("/admin/users/{user_id}/passkeys"))).await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    assert_eq!(listed.body, json!([registered.body]));

    let deleted = app
        .send(app.as_service(Method::DELETE, &format!("/admin/users/{user_id}/passkeys/{passkey_id}")))
        .await;
    assert_eq!(deleted.status, 204, "{:?}", deleted.body);
    let listed = app.send(app.as_service(Method::GET, &format!("/admin/users/{user_id}/passkeys"))).await;
    assert_eq!(listed.body, json!([]));
    let (challenge_id, options) = sign_in_options(&app).await;
    let refused = sign_in_verify(&app, &challenge_id, authenticator.get(&options)).await;
    assert_eq!((refused.status, refused.code()), (400, "webauthn_verification_failed"), "{:?}", refused.body);
}

#[tokio::test]
async fn admin_passkey_routes_refuse_what_gotrue_refuses() {
    let app = passkey_app().await;
    let ana = signed_in(&app, "ana@example.com").await;
    let ana_id = ana["user"]["id"].as_str().expect("user id").to_owned();
    let ana_token = access_token(&ana).to_owned();
    let mut authenticator = Authenticator::new(7);
    let passkey =
        register(&app, &ana_token, &mut authenticator).await.body["id"].as_str().expect("id").to_owned();
    let bea = signed_in(&app, "bea@example.com").await;
    let bea_id = bea["user"]["id"].as_str().expect("user id").to_owned();
    let unknown = "00000000-0000-4000-8000-000000000000";

    let service = |method: Method, path: String| app.as_service(method, &path);
    let as_ana = |method: Method, path: String| app.as_user(method, &path, &ana_token);
    let cases = [
        (
            "another user's passkey",
            service(Method::DELETE, format!("/admin/users/{bea_id}/passkeys/{passkey}")),
            404,
            "validation_failed",
        ),
        (
            "an unknown passkey",
            service(Method::DELETE, format!("/admin/users/{ana_id}/passkeys/{unknown}")),
            404,
            "validation_failed",
        ),
        (
            "a passkey id that is no uuid",
            service(Method::DELETE, format!("/admin/users/{ana_id}/passkeys/nope")),
            404,
            "validation_failed",
        ),
        (
            "an unknown user's list",
            service(Method::GET, format!("/admin/users/{unknown}/passkeys")),
            404,
            "user_not_found",
        ),
        (
            "an unknown user's passkey",
            service(Method::DELETE, format!("/admin/users/{unknown}/passkeys/{passkey}")),
            404,
            "user_not_found",
        ),
        (
            "the owner, who is no admin",
            as_ana(Method::GET, format!("/admin/users/{ana_id}/passkeys")),
            403,
            "not_admin",
        ),
        (
            "the owner deleting through /admin",
            as_ana(Method::DELETE, format!("/admin/users/{ana_id}/passkeys/{passkey}")),
            403,
            "not_admin",
        ),
    ];
    for (name, request, status, code) in cases {
        let reply = app.send(request).await;
        assert_eq!((reply.status, reply.code()), (status, code), "{name}: {:?}", reply.body);
    }
    let still = app.send(app.as_user(Method::GET, "/passkeys", &ana_token)).await;
    assert_eq!(still.body.as_array().map(Vec::len), Some(1), "nothing refused deleted it");
}
