//! Signing and verifying JWTs, with PostgREST's rules rather than the jsonwebtoken
//! crate's defaults (<https://docs.postgrest.org/en/stable/references/auth.html>,
//! `src/library/PostgREST/Auth/Jwt.hs`):
//!
//! - the key decides the algorithm, never the token: a token names its key by
//!   `kid` and must carry that key's algorithm, so `alg: none`, an HS256 token
//!   "signed" with a public key's bytes and RS/ES confusion all fail; a token
//!   without `kid` can only be an HS256 token of the JWT secret, as GoTrue
//!   reads them (supabase/auth `internal/api/auth.go`, `parseJWTClaims`:
//!   by `kid` from the key set, else the HS256 secret);
//! - `exp`, `nbf` and `iat` are optional, and checked with 30 s of clock skew
//!   (jsonwebtoken defaults to 60 s, requires `exp` and ignores `nbf`);
//! - `aud` is checked only when configured (jsonwebtoken rejects any token that
//!   carries `aud` unless told otherwise, and Supabase tokens always do);
//! - the `role` claim must be one of our three roles; no role means `anon`.
//!
//! The key set ([`KeySet`]) is replaced whole when the keys in the database
//! change (`crate::keys`): tokens are signed with the current key and verified
//! with every key that is not revoked.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use serde_json::{Map, Value, json};

use crate::config::Secret;
use crate::role::Role;

/// Clock skew allowed on `exp`, `nbf` and `iat`, as PostgREST allows.
pub const CLOCK_SKEW_SECS: u64 = 30;

/// Why a token was refused. The messages are PostgREST's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    #[error("Empty JWT is sent in Authorization header")]
    Empty,
    #[error("Expected 3 parts in JWT; got {0}")]
    Parts(usize),
    #[error("JWT cryptographic operation failed")]
    Signature,
    #[error("Wrong or unsupported encoding algorithm")]
    Algorithm,
    #[error("JWT expired")]
    Expired,
    #[error("JWT not yet valid")]
    NotYetValid,
    #[error("JWT issued at future")]
    IssuedInFuture,
    #[error("JWT not in audience")]
    Audience,
    #[error("Parsing claims failed")]
    Claims,
    #[error("JWT role is not allowed")]
    Role,
}

impl JwtError {
    /// PostgREST 13+: PGRST301 for decoding and signature failures, PGRST303 for
    /// claim failures (CHANGELOG #3600).
    pub fn postgrest_code(&self) -> &'static str {
        match self {
            Self::Empty | Self::Parts(_) | Self::Signature | Self::Algorithm => "PGRST301",
            Self::Expired
            | Self::NotYetValid
            | Self::IssuedInFuture
            | Self::Audience
            | Self::Claims
            | Self::Role => "PGRST303",
        }
    }
}

/// Verified claims of a token, with the role it grants.
#[derive(Debug, Clone)]
pub struct Claims {
    pub role: Role,
    pub claims: Map<String, Value>,
    /// [`Claims::setting`], written once: the verified claims are shared by
    /// every request with the same token (`JwtKeys::verify_shared`).
    setting: OnceLock<String>,
}

impl PartialEq for Claims {
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role && self.claims == other.claims
    }
}

impl Claims {
    pub fn new(role: Role, claims: Map<String, Value>) -> Self {
        Self { role, claims, setting: OnceLock::new() }
    }

    /// The claims with no token at all: the anonymous role.
    pub fn anonymous() -> Self {
        Self::new(Role::Anon, Map::new())
    }

    /// The claims an opaque API key stands for: only its role, as the JWT the
    /// hosted gateway mints for it carries.
    pub fn of_role(role: Role) -> Self {
        let mut claims = Map::new();
        claims.insert("role".to_owned(), Value::String(role.as_str().to_owned()));
        Self::new(role, claims)
    }

    /// `request.jwt.claims` as PostgREST sets it: the claims as JSON, with
    /// the effective role inserted where the token names none (a token that
    /// names its role has it there already).
    pub fn setting(&self) -> &str {
        self.setting.get_or_init(|| {
            let role = self.role.as_str();
            if self.claims.get("role").and_then(Value::as_str) == Some(role) {
                Value::Object(self.claims.clone()).to_string()
            } else {
                let mut claims = self.claims.clone();
                claims.insert("role".to_owned(), Value::String(role.to_owned()));
                Value::Object(claims).to_string()
            }
        })
    }

    pub fn sub(&self) -> Option<&str> {
        self.claims.get("sub").and_then(Value::as_str)
    }
}

/// The key new tokens are signed with.
pub struct SigningKey {
    /// `None` only for the JWT secret before the key set is loaded (and in
    /// unit tests): such tokens carry no `kid`, like the legacy keys.
    kid: Option<String>,
    algorithm: Algorithm,
    key: EncodingKey,
}

impl SigningKey {
    pub fn hs256(secret: &Secret, kid: Option<String>) -> Self {
        Self { kid, algorithm: Algorithm::HS256, key: EncodingKey::from_secret(secret.expose().as_bytes()) }
    }

    /// An ES256 key from its PKCS#8 DER, or an RS256 key from its PKCS#1 DER.
    pub fn from_der(kid: String, algorithm: Algorithm, der: &[u8]) -> Result<Self, String> {
        let key = match algorithm {
            Algorithm::ES256 => EncodingKey::from_ec_der(der),
            Algorithm::RS256 => EncodingKey::from_rsa_der(der),
            other => return Err(format!("{other:?} keys are not made from DER")),
        };
        Ok(Self { kid: Some(kid), algorithm, key })
    }
}

/// A key tokens are verified with.
pub struct VerifyingKey {
    algorithm: Algorithm,
    key: DecodingKey,
}

impl VerifyingKey {
    pub fn hs256(secret: &Secret) -> Self {
        Self { algorithm: Algorithm::HS256, key: DecodingKey::from_secret(secret.expose().as_bytes()) }
    }

    /// The public half of an ES256 or RS256 JWK (private members are ignored),
    /// or an HS256 `oct` key. The algorithm is the JWK's `alg`, or what its
    /// key type implies (RSA: RS256, EC P-256: ES256, oct: HS256).
    pub fn from_jwk(jwk: &Value) -> Result<Self, String> {
        use base64::Engine;
        let algorithm = jwk_algorithm(jwk)?;
        let key = match algorithm {
            Algorithm::HS256 => {
                let k = jwk.get("k").and_then(Value::as_str).ok_or("an oct JWK needs k")?;
                let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(k.trim_end_matches('='))
                    .map_err(|e| format!("invalid oct JWK: {e}"))?;
                DecodingKey::from_secret(&bytes)
            }
            _ => {
                let parsed: jsonwebtoken::jwk::Jwk = serde_json::from_value(public_jwk(jwk, algorithm)?)
                    .map_err(|e| format!("invalid JWK: {e}"))?;
                DecodingKey::from_jwk(&parsed).map_err(|e| format!("invalid JWK: {e}"))?
            }
        };
        Ok(Self { algorithm, key })
    }
}

/// The algorithm a JWK is for.
fn jwk_algorithm(jwk: &Value) -> Result<Algorithm, String> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    match (text("alg"), text("kty"), text("crv")) {
        (Some("ES256") | None, Some("EC"), Some("P-256")) => Ok(Algorithm::ES256),
        (Some("RS256") | None, Some("RSA"), _) => Ok(Algorithm::RS256),
        (Some("HS256") | None, Some("oct"), _) => Ok(Algorithm::HS256),
        (alg, kty, _) => Err(format!(
            "unsupported JWK (alg {alg:?}, kty {kty:?}): use ES256 (EC P-256), RS256 (RSA) or HS256 (oct)"
        )),
    }
}

/// The public members of an asymmetric JWK, as a key set publishes it: never
/// `d` or the RSA primes. A symmetric key has no public half: an error.
pub fn public_jwk(jwk: &Value, algorithm: Algorithm) -> Result<Value, String> {
    let member = |name: &str| {
        jwk.get(name).and_then(Value::as_str).map(str::to_owned).ok_or(format!("the JWK lacks {name}"))
    };
    let kid = jwk.get("kid").and_then(Value::as_str);
    let mut public = match algorithm {
        Algorithm::ES256 => json!({"kty": "EC", "crv": "P-256", "x": member("x")?, "y": member("y")?}),
        Algorithm::RS256 => json!({"kty": "RSA", "n": member("n")?, "e": member("e")?}),
        other => return Err(format!("{other:?} keys have no public half")),
    };
    if let (Some(kid), Some(object)) = (kid, public.as_object_mut()) {
        object.insert("kid".to_owned(), json!(kid));
    }
    if let Some(object) = public.as_object_mut() {
        object.insert("alg".to_owned(), json!(format!("{algorithm:?}")));
        // What WebCrypto's importKey needs to verify with it (auth-js getClaims).
        object.insert("use".to_owned(), json!("sig"));
        object.insert("key_ops".to_owned(), json!(["verify"]));
        object.insert("ext".to_owned(), json!(true));
    }
    Ok(public)
}

/// Every key in use at one moment.
pub struct KeySet {
    signing: SigningKey,
    /// Keys by `kid`.
    by_kid: HashMap<String, VerifyingKey>,
    /// The JWT secret, for tokens without `kid`, while its key is not revoked.
    legacy: Option<VerifyingKey>,
    /// What `/auth/v1/.well-known/jwks.json` publishes.
    jwks: Value,
}

impl KeySet {
    /// `published` are the public JWKs of the asymmetric keys in `by_kid`.
    pub fn new(
        signing: SigningKey,
        by_kid: HashMap<String, VerifyingKey>,
        legacy: Option<VerifyingKey>,
        published: Vec<Value>,
    ) -> Self {
        Self { signing, by_kid, legacy, jwks: json!({ "keys": published }) }
    }

    /// Only the JWT secret: signs without `kid`, verifies tokens without `kid`.
    pub fn legacy(secret: &Secret) -> Self {
        Self::new(
            SigningKey::hs256(secret, None),
            HashMap::new(),
            Some(VerifyingKey::hs256(secret)),
            Vec::new(),
        )
    }
}

/// The keys that sign and verify tokens.
pub struct JwtKeys {
    secret: Secret,
    validation: Validation,
    set: RwLock<Arc<KeySet>>,
    /// Tokens that passed [`JwtKeys::verify`], by their text.
    verified: Mutex<HashMap<String, Verified, foldhash::fast::RandomState>>,
}

/// A token that passed every check, and the seconds (since the epoch) between
/// which the time claims would pass again. Clients send the same tokens over
/// and over (supabase-js: the API key, and the session's token until it is
/// refreshed), and a REST request verifies two (the key check and the
/// caller), each a signature check and two JSON decodes; a token seen before
/// costs a lookup instead. Anything not remembered, or outside its window, goes
/// through the full check, which gives every answer that is not a pass. The
/// memory is emptied whenever the key set changes, so a revoked key's tokens
/// are checked again.
struct Verified {
    claims: Arc<Claims>,
    from: u64,
    until: u64,
}

/// How many verified tokens are remembered; past this many the memory starts
/// over rather than grow.
const MAX_VERIFIED: usize = 2048;

/// Longer tokens (large user metadata in the claims) are always checked in
/// full, so that the memory stays within a few megabytes. Supabase access
/// tokens are about a kilobyte.
const MAX_REMEMBERED_LENGTH: usize = 2048;

impl JwtKeys {
    /// Keys over the JWT secret alone (at least 32 characters: PostgREST
    /// refuses shorter ones), until [`JwtKeys::replace`] installs the key set
    /// kept in the database.
    pub fn hs256(secret: &Secret, audience: Option<&str>) -> Result<Self, String> {
        if secret.expose().len() < 32 {
            return Err("the JWT secret must be at least 32 characters long".to_owned());
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = CLOCK_SKEW_SECS;
        validation.required_spec_claims = HashSet::new();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        match audience {
            Some(aud) => validation.set_audience(&[aud]),
            None => validation.validate_aud = false,
        }
        Ok(Self {
            secret: secret.clone(),
            validation,
            set: RwLock::new(Arc::new(KeySet::legacy(secret))),
            verified: Mutex::new(HashMap::default()),
        })
    }

    /// The JWT secret (HS256 keys, and the key that seals private keys).
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// Installs a new key set; tokens verified under the old one are checked
    /// again.
    pub fn replace(&self, set: KeySet) {
        *self.set.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(set);
        self.verified.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn current(&self) -> Arc<KeySet> {
        self.set.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The public key set, as `/auth/v1/.well-known/jwks.json` serves it.
    pub fn jwks(&self) -> Value {
        self.current().jwks.clone()
    }

    /// Signs with the current key, naming it in `kid`.
    pub fn sign(&self, claims: &Value) -> Result<String, String> {
        let set = self.current();
        let mut header = Header::new(set.signing.algorithm);
        header.kid = set.signing.kid.clone();
        jsonwebtoken::encode(&header, claims, &set.signing.key)
            .map_err(|e| format!("could not sign a JWT: {e}"))
    }

    /// Signs with the JWT secret and no `kid`, as the legacy API keys are.
    pub fn sign_legacy(&self, claims: &Value) -> Result<String, String> {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            claims,
            &EncodingKey::from_secret(self.secret.expose().as_bytes()),
        )
        .map_err(|e| format!("could not sign a JWT: {e}"))
    }

    /// Checks structure, signature, time claims, audience and role.
    pub fn verify(&self, token: &str) -> Result<Claims, JwtError> {
        self.verify_shared(token).map(Arc::unwrap_or_clone)
    }

    /// [`JwtKeys::verify`], the claims shared with the memory of verified
    /// tokens: a request's key and bearer are verified on every request, and
    /// copying their claims (a map of strings) cost more than finding them.
    pub fn verify_shared(&self, token: &str) -> Result<Arc<Claims>, JwtError> {
        let token = token.trim();
        let now = now();
        let mut verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = verified.get(token)
            && (known.from..=known.until).contains(&now)
        {
            return Ok(known.claims.clone());
        }
        drop(verified);
        let claims = Arc::new(self.check(token)?);
        if let Some((from, until)) = window(&claims.claims).filter(|_| token.len() <= MAX_REMEMBERED_LENGTH) {
            verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
            if verified.len() >= MAX_VERIFIED {
                verified.clear();
            }
            verified.insert(token.to_owned(), Verified { claims: claims.clone(), from, until });
        }
        Ok(claims)
    }

    /// The full check of [`JwtKeys::verify`].
    fn check(&self, token: &str) -> Result<Claims, JwtError> {
        if token.is_empty() {
            return Err(JwtError::Empty);
        }
        let parts = token.split('.').count();
        if parts != 3 {
            return Err(JwtError::Parts(parts));
        }
        // The key decides the algorithm: pick the key first, then refuse any
        // other algorithm before decoding, so that `none` and confusion between
        // HS, RS and ES fail the same way whatever the library does.
        let (alg, kid) = header_fields(token).ok_or(JwtError::Signature)?;
        let set = self.current();
        let key = match &kid {
            Some(kid) => set.by_kid.get(kid).ok_or(JwtError::Signature)?,
            None if alg == "HS256" => set.legacy.as_ref().ok_or(JwtError::Signature)?,
            None => return Err(JwtError::Algorithm),
        };
        if alg != format!("{:?}", key.algorithm) {
            return Err(JwtError::Algorithm);
        }
        let mut validation = self.validation.clone();
        validation.algorithms = vec![key.algorithm];
        let data =
            jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation).map_err(|e| match e
                .kind()
            {
                ErrorKind::ExpiredSignature => JwtError::Expired,
                ErrorKind::ImmatureSignature => JwtError::NotYetValid,
                ErrorKind::InvalidAudience => JwtError::Audience,
                ErrorKind::InvalidAlgorithm
                | ErrorKind::InvalidAlgorithmName
                | ErrorKind::MissingAlgorithm => JwtError::Algorithm,
                ErrorKind::Json(_)
                | ErrorKind::InvalidClaimFormat(_)
                | ErrorKind::MissingRequiredClaim(_) => JwtError::Claims,
                _ => JwtError::Signature,
            })?;
        let claims = data.claims;
        if let Some(iat) = claims.get("iat") {
            let iat = iat.as_f64().ok_or(JwtError::Claims)?;
            if iat > now() as f64 + CLOCK_SKEW_SECS as f64 {
                return Err(JwtError::IssuedInFuture);
            }
        }
        for time_claim in ["exp", "nbf"] {
            if claims.get(time_claim).is_some_and(|v| !v.is_number()) {
                return Err(JwtError::Claims);
            }
        }
        let role = match claims.get("role") {
            None => Role::Anon,
            Some(Value::String(name)) => Role::parse(name).ok_or(JwtError::Role)?,
            Some(_) => return Err(JwtError::Role),
        };
        Ok(Claims::new(role, claims))
    }
}

/// When the time claims of a token that passed now pass: from the latest `nbf`
/// or `iat` less the skew, up to `exp` plus the skew. `None` (not remembered)
/// for claims whose check is not that simple (not whole seconds).
fn window(claims: &Map<String, Value>) -> Option<(u64, u64)> {
    let seconds = |name: &str| match claims.get(name) {
        None => Some(None),
        Some(value) => value.as_u64().map(Some),
    };
    let starts = [seconds("nbf")?, seconds("iat")?];
    let from = starts.into_iter().flatten().max().map_or(0, |t| t.saturating_sub(CLOCK_SKEW_SECS));
    let until = seconds("exp")?.map_or(u64::MAX, |t| t.saturating_add(CLOCK_SKEW_SECS));
    Some((from, until))
}

/// The `alg` and `kid` of a token's header, if the header decodes at all
/// (`kid` must be a string when present).
fn header_fields(token: &str) -> Option<(String, Option<String>)> {
    use base64::Engine;
    let header = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header.trim_end_matches('=')).ok()?;
    let header: Value = serde_json::from_slice(&bytes).ok()?;
    let alg = header.get("alg")?.as_str()?.to_owned();
    let kid = match header.get("kid") {
        None | Some(Value::Null) => None,
        Some(Value::String(kid)) => Some(kid.clone()),
        Some(_) => return None,
    };
    Some((alg, kid))
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// The legacy long-lived API keys, minted like `supabase start` prints them:
/// HS256 JWTs of the JWT secret, without `kid`, whose only privilege is their
/// `role`. `iat` and `exp` are fixed so that `gateway keys` prints the same
/// keys every time for the same secret.
pub fn api_key(keys: &JwtKeys, role: Role) -> Result<String, String> {
    const ISSUED_AT: u64 = 1_700_000_000;
    const TEN_YEARS: u64 = 315_360_000;
    keys.sign_legacy(&serde_json::json!({
        "iss": "supabase",
        "ref": "gateway",
        "role": role.as_str(),
        "iat": ISSUED_AT,
        "exp": ISSUED_AT + TEN_YEARS,
    }))
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use serde_json::json;

    use super::*;

    const SECRET: &str = "a-test-secret-that-is-long-enough-0123456789";

    #[test]
    fn the_claims_setting_carries_the_effective_role() {
        let claims = |value: Value| value.as_object().cloned().expect("an object");
        for (role, given, setting) in [
            (
                Role::Authenticated,
                json!({"sub": "u", "role": "authenticated"}),
                r#"{"role":"authenticated","sub":"u"}"#,
            ),
            (Role::Anon, json!({"iss": "x"}), r#"{"iss":"x","role":"anon"}"#),
            (Role::Anon, json!({}), r#"{"role":"anon"}"#),
        ] {
            let claims = Claims::new(role, claims(given));
            assert_eq!(claims.setting(), setting);
            // Written once, read again.
            assert_eq!(claims.setting(), setting);
        }
    }

    fn keys() -> JwtKeys {
        JwtKeys::hs256(&Secret::new(SECRET), None).expect("valid secret")
    }

    fn b64(value: &Value) -> String {
        URL_SAFE_NO_PAD.encode(value.to_string())
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(JwtKeys::hs256(&Secret::new("short"), None).is_err());
    }

    #[test]
    fn tokens_are_checked_like_postgrest() {
        let keys = keys();
        let now = now() as i64;
        let other = JwtKeys::hs256(&Secret::new("another-secret-that-is-long-enough-xyz"), None)
            .expect("valid secret");
        let sign = |claims: Value| keys.sign(&claims).expect("sign");
        let unsigned =
            format!("{}.{}.", b64(&json!({"alg":"none","typ":"JWT"})), b64(&json!({"role":"service_role"})));
        let rs256 = format!(
            "{}.{}.{}",
            b64(&json!({"alg":"RS256","typ":"JWT"})),
            b64(&json!({"role":"service_role"})),
            URL_SAFE_NO_PAD.encode(b"not-a-real-signature")
        );
        let cases: Vec<(&str, String, Result<Role, JwtError>)> = vec![
            ("a token without claims is anonymous", sign(json!({})), Ok(Role::Anon)),
            (
                "the role claim decides",
                sign(json!({"role":"authenticated","exp": now + 60})),
                Ok(Role::Authenticated),
            ),
            (
                "expired 29 s ago is within the skew",
                sign(json!({"role":"anon","exp": now - 29})),
                Ok(Role::Anon),
            ),
            (
                "expired 31 s ago is refused",
                sign(json!({"role":"anon","exp": now - 31})),
                Err(JwtError::Expired),
            ),
            (
                "nbf 31 s ahead is refused",
                sign(json!({"role":"anon","nbf": now + 31})),
                Err(JwtError::NotYetValid),
            ),
            (
                "iat 31 s ahead is refused",
                sign(json!({"role":"anon","iat": now + 31})),
                Err(JwtError::IssuedInFuture),
            ),
            (
                "a non-numeric exp is refused",
                sign(json!({"role":"anon","exp": "tomorrow"})),
                Err(JwtError::Claims),
            ),
            ("an unknown role is refused", sign(json!({"role":"postgres"})), Err(JwtError::Role)),
            ("a non-string role is refused", sign(json!({"role":["anon"]})), Err(JwtError::Role)),
            (
                "any aud passes when none is configured",
                sign(json!({"role":"anon","aud":"authenticated"})),
                Ok(Role::Anon),
            ),
            (
                "a forged signature is refused",
                other.sign(&json!({"role":"service_role"})).expect("sign"),
                Err(JwtError::Signature),
            ),
            ("alg none is refused", unsigned, Err(JwtError::Algorithm)),
            ("RS256 against an HS key is refused", rs256, Err(JwtError::Algorithm)),
            ("two parts are refused", "abc.def".to_owned(), Err(JwtError::Parts(2))),
            ("an empty token is refused", String::new(), Err(JwtError::Empty)),
            ("garbage is refused", "a.b.c".to_owned(), Err(JwtError::Signature)),
        ];
        for (name, token, expected) in cases {
            assert_eq!(keys.verify(&token).map(|c| c.role), expected, "{name}");
        }
    }

    #[test]
    fn audience_is_checked_only_when_configured() {
        let keys = JwtKeys::hs256(&Secret::new(SECRET), Some("authenticated")).expect("valid");
        let ok = keys.sign(&json!({"role":"anon","aud":"authenticated"})).expect("sign");
        let wrong = keys.sign(&json!({"role":"anon","aud":"somebody-else"})).expect("sign");
        let missing = keys.sign(&json!({"role":"anon"})).expect("sign");
        assert!(keys.verify(&ok).is_ok());
        assert_eq!(keys.verify(&wrong), Err(JwtError::Audience));
        assert!(keys.verify(&missing).is_ok());
    }

    #[test]
    fn api_keys_are_stable_and_carry_their_role() {
        let keys = keys();
        let anon = api_key(&keys, Role::Anon).expect("anon key");
        assert_eq!(anon, api_key(&keys, Role::Anon).expect("anon key"));
        assert_eq!(keys.verify(&anon).map(|c| c.role), Ok(Role::Anon));
        let service = api_key(&keys, Role::ServiceRole).expect("service key");
        assert_eq!(keys.verify(&service).map(|c| c.role), Ok(Role::ServiceRole));
    }

    #[test]
    fn a_verified_token_is_remembered_for_the_window_its_time_claims_allow() {
        let window = |claims: Value| window(claims.as_object().expect("object"));
        assert_eq!(window(json!({"role": "anon"})), Some((0, u64::MAX)));
        assert_eq!(window(json!({"exp": 1000})), Some((0, 1030)));
        assert_eq!(window(json!({"nbf": 1000, "iat": 900, "exp": 2000})), Some((970, 2030)));
        assert_eq!(window(json!({"iat": 10})), Some((0, u64::MAX)));
        assert_eq!(window(json!({"exp": 1000.5})), None, "not whole seconds: always checked in full");
        let keys = keys();
        let token =
            keys.sign(&json!({"role": "authenticated", "sub": "x", "exp": now() + 60})).expect("sign");
        let first = keys.verify(&token).expect("valid");
        assert_eq!(keys.verify(&format!(" {token} ")), Ok(first));
        let expired = keys.sign(&json!({"role": "anon", "exp": now() - 31})).expect("sign");
        for _ in 0..2 {
            assert_eq!(keys.verify(&expired), Err(JwtError::Expired));
        }
    }

    #[test]
    fn jwt_error_codes_follow_postgrest_13() {
        assert_eq!(JwtError::Signature.postgrest_code(), "PGRST301");
        assert_eq!(JwtError::Expired.postgrest_code(), "PGRST303");
    }
}
