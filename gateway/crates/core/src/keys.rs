//! Supabase's current keys, kept in the database (`sql/012_auth_keys.sql`) so
//! that every gateway on one database agrees (docs/keys.md):
//!
//! - opaque API keys, `sb_publishable_...` (acts as `anon`) and
//!   `sb_secret_...` (acts as `service_role`), several of each, named
//!   (<https://supabase.com/docs/guides/api/api-keys>). Only their SHA-256 is
//!   kept; a presented key is hashed and compared with every valid hash in
//!   constant time, without an early exit;
//! - JWT signing keys (ES256 by default, RS256, or the JWT secret as HS256),
//!   each with a place in Supabase's rotation: standby, current, previous,
//!   revoked (<https://supabase.com/docs/guides/auth/signing-keys>). Private
//!   halves are sealed with AES-256-GCM under a key derived from the JWT
//!   secret, bound to their `kid`;
//! - the operator's own JWK set (`--jwt-keys`, like GoTrue's
//!   `GOTRUE_JWT_KEYS`), whose keys verify tokens beside the kept ones.
//!
//! Every gateway reloads both tables every `--keys-refresh-interval` (1 s)
//! over a connection of its own (not the request pool), so that a key revoked
//! by `gateway keys revoke` on any machine is refused everywhere within about
//! a second, and rebuilds its key set only when a row changed.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit, Mac};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

use crate::caller::Credentials;
use crate::config::Secret;
use crate::db::Db;
use crate::jwt::{self, KeySet, SigningKey, VerifyingKey};
use crate::role::Role;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

const PUBLISHABLE_PREFIX: &str = "sb_publishable_";
const SECRET_PREFIX: &str = "sb_secret_";
/// Random bytes in a key: 256 bits, written as 43 base64url characters.
const KEY_BYTES: usize = 32;
const KEY_CHARS: usize = 43;
/// Characters of the random part kept in clear to tell keys apart (Supabase
/// advises logging no more than six).
const START_CHARS: usize = 6;

/// The two kinds of opaque API key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyKind {
    Publishable,
    Secret,
}

impl KeyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Publishable => "publishable",
            Self::Secret => "secret",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Publishable, Self::Secret].into_iter().find(|kind| kind.as_str() == text)
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::Publishable => PUBLISHABLE_PREFIX,
            Self::Secret => SECRET_PREFIX,
        }
    }

    /// The role a key of this kind acts as.
    pub fn role(self) -> Role {
        match self {
            Self::Publishable => Role::Anon,
            Self::Secret => Role::ServiceRole,
        }
    }

    /// The kind a key claims by its prefix (whether it is valid is another
    /// matter).
    pub fn claimed_by(key: &str) -> Option<Self> {
        [Self::Publishable, Self::Secret].into_iter().find(|kind| key.starts_with(kind.prefix()))
    }
}

/// A new key of `kind`.
pub fn generate(kind: KeyKind) -> Result<String, String> {
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness: {e}"))?;
    Ok(format!("{}{}", kind.prefix(), URL_SAFE_NO_PAD.encode(bytes)))
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The API keys in use, as last loaded.
#[derive(Default)]
pub struct ApiKeys {
    loaded: RwLock<Arc<Loaded>>,
}

#[derive(Default, PartialEq)]
struct Loaded {
    valid: Vec<([u8; 32], KeyKind)>,
    /// The oldest publishable key in use, which `/config.json` serves.
    publishable: Option<String>,
}

impl ApiKeys {
    /// The kind of `key` if it is a valid opaque key. A key of the wrong shape
    /// is refused at once (its shape is no secret); otherwise the time taken
    /// does not depend on the key's content: its digest is compared with every
    /// valid digest, each in constant time, and the answers are combined
    /// without branching.
    pub fn lookup(&self, key: &str) -> Option<KeyKind> {
        let kind = KeyKind::claimed_by(key)?;
        let random = &key[kind.prefix().len()..];
        if random.len() != KEY_CHARS {
            return None;
        }
        let presented = digest(key);
        let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner()).clone();
        let mut found = subtle::Choice::from(0);
        for (hash, valid_kind) in &loaded.valid {
            found |= hash.ct_eq(&presented) & subtle::Choice::from(u8::from(*valid_kind == kind));
        }
        bool::from(found).then_some(kind)
    }

    pub fn publishable(&self) -> Option<String> {
        self.loaded.read().unwrap_or_else(|e| e.into_inner()).publishable.clone()
    }

    fn replace(&self, loaded: Loaded) {
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(loaded);
    }
}

/// The algorithm of a signing key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SigningAlgorithm {
    #[value(name = "ES256")]
    Es256,
    #[value(name = "RS256")]
    Rs256,
    #[value(name = "HS256")]
    Hs256,
}

impl SigningAlgorithm {
    fn as_str(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Rs256 => "RS256",
            Self::Hs256 => "HS256",
        }
    }
}

/// A connection of its own, acting as `service_role` (the role the auth
/// tables grant to).
pub async fn connect(pg: &tokio_postgres::Config) -> Result<Client, BoxError> {
    let (client, connection) = pg.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "the keys connection ended");
        }
    });
    client.batch_execute("set role service_role").await?;
    Ok(client)
}

/// The opaque keys made by [`init`] on a first start, to print once.
#[derive(Default)]
pub struct Created {
    pub secret: Option<String>,
}

/// Makes the first keys when the database has none (a first start: the JWT
/// secret imported as a previously used HS256 key, a new current key of
/// `algorithm`, one publishable and one secret API key named `default`),
/// then loads them all into `state`. Gateways starting together on one
/// database take turns.
pub async fn init(db: &Db, state: &Credentials, algorithm: SigningAlgorithm) -> Result<Created, BoxError> {
    let mut client = connect(db.pg_config()).await?;
    let tx = client.transaction().await?;
    tx.execute("select pg_advisory_xact_lock(hashtext('gateway keys'))", &[]).await?;
    let signing: i64 = tx.query_one("select count(*) from auth.gateway_signing_keys", &[]).await?.get(0);
    if signing == 0 {
        let legacy_status = if algorithm == SigningAlgorithm::Hs256 { "current" } else { "previous" };
        tx.execute(
            "insert into auth.gateway_signing_keys (algorithm, status) values ('HS256', $1)",
            &[&legacy_status],
        )
        .await?;
        if algorithm != SigningAlgorithm::Hs256 {
            let (kid, sealed, public) = new_signing_key(state.jwt.secret(), algorithm)?;
            tx.execute(
                "insert into auth.gateway_signing_keys (id, algorithm, status, private_key, public_jwk)
                 values ($1, $2, 'current', $3, $4)",
                &[&kid, &algorithm.as_str(), &sealed, &public],
            )
            .await?;
        }
        tracing::info!(algorithm = algorithm.as_str(), "made the first JWT signing key");
    }
    let api: i64 = tx.query_one("select count(*) from auth.gateway_api_keys", &[]).await?.get(0);
    let mut created = Created::default();
    if api == 0 {
        insert_api_key(&tx, "default", KeyKind::Publishable).await?;
        created.secret = Some(insert_api_key(&tx, "default", KeyKind::Secret).await?);
        tracing::info!("made the first publishable and secret API keys");
    }
    tx.commit().await?;
    let mut seen = None;
    load(&client, state, &mut seen).await?;
    Ok(created)
}

/// Makes a key of `kind` named `name` in `client`'s transaction and returns
/// it, the only time its whole text is known.
pub async fn insert_api_key(
    client: &impl tokio_postgres::GenericClient,
    name: &str,
    kind: KeyKind,
) -> Result<String, BoxError> {
    let key = generate(kind)?;
    let start = &key[..kind.prefix().len() + START_CHARS];
    let publishable = (kind == KeyKind::Publishable).then_some(key.as_str());
    client
        .execute(
            "insert into auth.gateway_api_keys (name, kind, key_hash, key_start, publishable_key)
             values ($1, $2, $3, $4, $5)",
            &[&name, &kind.as_str(), &hex::encode(digest(&key)), &start, &publishable],
        )
        .await
        .map_err(|e| match e.as_db_error() {
            Some(db) if db.code() == &tokio_postgres::error::SqlState::UNIQUE_VIOLATION => {
                format!("a {} key named {name:?} is already in use", kind.as_str()).into()
            }
            _ => BoxError::from(e),
        })?;
    Ok(key)
}

/// Reads both tables and, when anything changed since `seen`, installs the
/// new API keys and key set.
pub async fn load(client: &Client, state: &Credentials, seen: &mut Option<String>) -> Result<(), BoxError> {
    let api_rows = client
        .query(
            "select kind, key_hash, publishable_key from auth.gateway_api_keys
             where revoked_at is null order by created_at, id",
            &[],
        )
        .await?;
    let signing_rows = client
        .query(
            "select id, algorithm, status, private_key, public_jwk from auth.gateway_signing_keys
             where status <> 'revoked' order by created_at, id",
            &[],
        )
        .await?;
    let mut fingerprint = String::new();
    for row in &api_rows {
        fingerprint.push_str(row.get::<_, &str>(1));
    }
    for row in &signing_rows {
        let id: Uuid = row.get(0);
        fingerprint.push_str(&format!(";{id}:{}", row.get::<_, &str>(2)));
    }
    if seen.as_deref() == Some(fingerprint.as_str()) {
        return Ok(());
    }
    let mut loaded = Loaded::default();
    for row in &api_rows {
        let kind = KeyKind::parse(row.get(0)).ok_or("an API key of an unknown kind")?;
        let hash: [u8; 32] = hex::decode(row.get::<_, &str>(1))
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or("an API key hash that is not SHA-256")?;
        loaded.valid.push((hash, kind));
        if loaded.publishable.is_none() {
            loaded.publishable = row.get(2);
        }
    }
    let set = key_set(state, &signing_rows)?;
    state.api_keys.replace(loaded);
    state.jwt.replace(set);
    *seen = Some(fingerprint);
    Ok(())
}

fn key_set(state: &Credentials, rows: &[tokio_postgres::Row]) -> Result<KeySet, BoxError> {
    let secret = state.jwt.secret();
    let mut signing = None;
    let mut by_kid = HashMap::new();
    let mut legacy = None;
    let mut published = Vec::new();
    for row in rows {
        let id: Uuid = row.get(0);
        let kid = id.to_string();
        let algorithm: &str = row.get(1);
        let status: &str = row.get(2);
        let verifying = match algorithm {
            "HS256" => {
                legacy = Some(VerifyingKey::hs256(secret));
                if status == "current" {
                    signing = Some(SigningKey::hs256(secret, Some(kid.clone())));
                }
                VerifyingKey::hs256(secret)
            }
            _ => {
                let public: Value = row.get(4);
                if status == "current" {
                    let sealed: &str = row.get(3);
                    let der = open(secret, &kid, sealed)?;
                    signing = Some(SigningKey::from_der(kid.clone(), parse_algorithm(algorithm)?, &der)?);
                }
                published.push(public.clone());
                VerifyingKey::from_jwk(&public)?
            }
        };
        by_kid.insert(kid, verifying);
    }
    for jwk in operator_keys(state.operator_jwks.as_ref())? {
        let kid = jwk.get("kid").and_then(Value::as_str).ok_or("every key of --jwt-keys needs a kid")?;
        let verifying = VerifyingKey::from_jwk(&jwk)?;
        if let Ok(algorithm) = parse_algorithm(jwk.get("alg").and_then(Value::as_str).unwrap_or_default())
            .or_else(|_| jwk_kind_algorithm(&jwk))
            && algorithm != Algorithm::HS256
        {
            published.push(jwt::public_jwk(&jwk, algorithm)?);
        }
        by_kid.insert(kid.to_owned(), verifying);
    }
    // Without a current key (every kept key revoked by hand) tokens are still
    // signed, with the JWT secret, so that sign-ins keep working.
    let signing = signing.unwrap_or_else(|| SigningKey::hs256(secret, None));
    Ok(KeySet::new(signing, by_kid, legacy, published))
}

fn parse_algorithm(text: &str) -> Result<Algorithm, String> {
    match text {
        "ES256" => Ok(Algorithm::ES256),
        "RS256" => Ok(Algorithm::RS256),
        "HS256" => Ok(Algorithm::HS256),
        other => Err(format!("unsupported signing algorithm {other:?}")),
    }
}

fn jwk_kind_algorithm(jwk: &Value) -> Result<Algorithm, String> {
    match jwk.get("kty").and_then(Value::as_str) {
        Some("EC") => Ok(Algorithm::ES256),
        Some("RSA") => Ok(Algorithm::RS256),
        _ => Ok(Algorithm::HS256),
    }
}

/// The JWKs of `--jwt-keys`: a JWK set (`{"keys": [...]}`) or an array of JWKs.
pub fn operator_keys(text: Option<&Secret>) -> Result<Vec<Value>, BoxError> {
    let Some(text) = text else { return Ok(Vec::new()) };
    let value: Value =
        serde_json::from_str(text.expose()).map_err(|e| format!("--jwt-keys is not JSON: {e}"))?;
    let keys = match value {
        Value::Array(keys) => keys,
        Value::Object(mut set) => match set.remove("keys") {
            Some(Value::Array(keys)) => keys,
            _ => return Err("--jwt-keys must be a JWK set ({\"keys\": [...]}) or an array of JWKs".into()),
        },
        _ => return Err("--jwt-keys must be a JWK set ({\"keys\": [...]}) or an array of JWKs".into()),
    };
    Ok(keys)
}

/// A new asymmetric key: its `kid`, its sealed private half and its public JWK.
fn new_signing_key(secret: &Secret, algorithm: SigningAlgorithm) -> Result<(Uuid, String, Value), BoxError> {
    let kid = Uuid::new_v4();
    let (der, mut public) = match algorithm {
        SigningAlgorithm::Es256 => {
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            use p256::pkcs8::EncodePrivateKey;
            let key = p256::SecretKey::random(&mut rand_core::OsRng);
            let der = key.to_pkcs8_der().map_err(|e| format!("could not encode a P-256 key: {e}"))?;
            let point = key.public_key().to_encoded_point(false);
            let (x, y) = (point.x().ok_or("no x")?, point.y().ok_or("no y")?);
            let jwk = json!({"kty": "EC", "crv": "P-256", "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)});
            (der.as_bytes().to_vec(), jwk)
        }
        SigningAlgorithm::Rs256 => {
            use rsa::pkcs1::EncodeRsaPrivateKey;
            use rsa::traits::PublicKeyParts;
            let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048)?;
            let der = key.to_pkcs1_der().map_err(|e| format!("could not encode an RSA key: {e}"))?;
            let jwk = json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode(key.n().to_bytes_be()),
                "e": URL_SAFE_NO_PAD.encode(key.e().to_bytes_be())});
            (der.as_bytes().to_vec(), jwk)
        }
        SigningAlgorithm::Hs256 => return Err("HS256 is the JWT secret, not a new key".into()),
    };
    public["kid"] = json!(kid.to_string());
    let algorithm = parse_algorithm(algorithm.as_str())?;
    let public = jwt::public_jwk(&public, algorithm)?;
    let sealed = seal(secret, Sealed::SigningKey, &kid.to_string(), &der)?;
    Ok((kid, sealed, public))
}

/// What a sealed value is for: each purpose has a sealing key of its own,
/// so a value sealed for one cannot be opened as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sealed {
    /// The private half of a signing key, bound to its `kid`.
    SigningKey,
    /// An Edge Functions secret (`gateway functions secrets set`), bound to
    /// its name.
    FunctionSecret,
    /// The secret of an S3 access key (`gateway storage s3-keys create`),
    /// bound to its access key id.
    S3SecretKey,
}

impl Sealed {
    fn label(self) -> &'static [u8] {
        match self {
            Sealed::SigningKey => b"gateway signing keys v1",
            Sealed::FunctionSecret => b"gateway function secrets v1",
            Sealed::S3SecretKey => b"gateway s3 secret keys v1",
        }
    }
}

/// The AES-256-GCM key values are sealed with: HMAC-SHA-256 of the
/// purpose's fixed label under the JWT secret, so that every gateway sharing
/// the secret (they must, for the legacy keys) can open them and a database
/// dump alone cannot.
fn sealing_key(secret: &Secret, purpose: Sealed) -> Result<ring::aead::LessSafeKey, BoxError> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()).map_err(|e| format!("hmac: {e}"))?;
    mac.update(purpose.label());
    let bytes = mac.finalize().into_bytes();
    let key = ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &bytes)
        .map_err(|_| "could not make the sealing key")?;
    Ok(ring::aead::LessSafeKey::new(key))
}

/// `plain` sealed for `purpose` under the JWT secret and bound to `name` (a
/// sealed value moved to another name does not open):
/// base64(nonce || AES-256-GCM ciphertext and tag).
pub fn seal(secret: &Secret, purpose: Sealed, name: &str, plain: &[u8]) -> Result<String, BoxError> {
    let mut nonce = [0u8; 12];
    getrandom::fill(&mut nonce).map_err(|e| format!("no randomness: {e}"))?;
    let mut sealed = plain.to_vec();
    sealing_key(secret, purpose)?
        .seal_in_place_append_tag(
            ring::aead::Nonce::assume_unique_for_key(nonce),
            ring::aead::Aad::from(name.as_bytes()),
            &mut sealed,
        )
        .map_err(|_| "could not seal a value")?;
    Ok(STANDARD.encode([nonce.as_slice(), &sealed].concat()))
}

/// What [`seal`] sealed, or `None` when it was sealed under another JWT
/// secret, for another purpose or name, or was altered.
pub fn unseal(secret: &Secret, purpose: Sealed, name: &str, sealed: &str) -> Option<Vec<u8>> {
    let bytes = STANDARD.decode(sealed).ok()?;
    if bytes.len() < 12 {
        return None;
    }
    let (nonce, rest) = bytes.split_at(12);
    let nonce = ring::aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut rest = rest.to_vec();
    let key = sealing_key(secret, purpose).ok()?;
    let plain = key.open_in_place(nonce, ring::aead::Aad::from(name.as_bytes()), &mut rest).ok()?;
    Some(plain.to_vec())
}

fn open(secret: &Secret, kid: &str, sealed: &str) -> Result<Vec<u8>, BoxError> {
    unseal(secret, Sealed::SigningKey, kid, sealed).ok_or_else(|| {
        format!(
            "cannot open the private key of signing key {kid}: it was sealed under another JWT secret \
             (every gateway on one database needs the same --jwt-secret)"
        )
        .into()
    })
}

/// Reloads the keys every `every` until aborted, over a connection of its
/// own that is made again after a failure. A failed reload keeps the keys
/// last loaded.
pub fn spawn_refresher(db: Db, state: Arc<Credentials>, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut client: Option<Client> = None;
        let mut seen = None;
        let mut interval = tokio::time::interval(every.max(Duration::from_millis(100)));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            if client.as_ref().is_none_or(Client::is_closed) {
                match connect(db.pg_config()).await {
                    Ok(c) => client = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "could not reload the keys");
                        continue;
                    }
                }
            }
            if let Some(c) = &client
                && let Err(e) = load(c, &state, &mut seen).await
            {
                tracing::warn!(error = %e, "could not reload the keys");
                client = None;
            }
        }
    })
}

/// One row of `gateway keys list`.
pub struct ApiKeyRow {
    pub name: String,
    pub kind: String,
    pub start: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

/// Makes a named key of `kind`; the key is shown only now.
pub async fn create_api_key(client: &Client, name: &str, kind: KeyKind) -> Result<String, BoxError> {
    insert_api_key(client, name, kind).await
}

pub async fn list_api_keys(client: &Client) -> Result<Vec<ApiKeyRow>, BoxError> {
    let rows = client
        .query(
            "select name, kind, key_start, created_at::text, revoked_at::text
             from auth.gateway_api_keys order by created_at, id",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| ApiKeyRow {
            name: row.get(0),
            kind: row.get(1),
            start: row.get(2),
            created_at: row.get(3),
            revoked_at: row.get(4),
        })
        .collect())
}

/// Revokes the key of `kind` in use named `name`.
pub async fn revoke_api_key(client: &Client, kind: KeyKind, name: &str) -> Result<(), BoxError> {
    let revoked = client
        .execute(
            "update auth.gateway_api_keys set revoked_at = now()
             where kind = $1 and name = $2 and revoked_at is null",
            &[&kind.as_str(), &name],
        )
        .await?;
    if revoked == 0 {
        return Err(format!("no {} key in use is named {name:?}", kind.as_str()).into());
    }
    Ok(())
}

/// One row of `gateway signing-keys list`.
pub struct SigningKeyRow {
    pub kid: Uuid,
    pub algorithm: String,
    pub status: String,
    pub created_at: String,
}

pub async fn list_signing_keys(client: &Client) -> Result<Vec<SigningKeyRow>, BoxError> {
    let rows = client
        .query(
            "select id, algorithm, status, created_at::text from auth.gateway_signing_keys
             order by created_at, id",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| SigningKeyRow {
            kid: row.get(0),
            algorithm: row.get(1),
            status: row.get(2),
            created_at: row.get(3),
        })
        .collect())
}

/// Makes a standby key (there is at most one). HS256 stands for the JWT
/// secret: its row becomes the standby, whatever its place was.
pub async fn create_standby(
    client: &mut Client,
    secret: &Secret,
    algorithm: SigningAlgorithm,
) -> Result<Uuid, BoxError> {
    let tx = client.transaction().await?;
    tx.execute("select pg_advisory_xact_lock(hashtext('gateway keys'))", &[]).await?;
    if tx.query_opt("select 1 from auth.gateway_signing_keys where status = 'standby'", &[]).await?.is_some()
    {
        return Err("there is a standby key already: rotate to it, or revoke it first".into());
    }
    let kid = match algorithm {
        SigningAlgorithm::Hs256 => {
            let row = tx
                .query_opt("select id, status from auth.gateway_signing_keys where algorithm = 'HS256'", &[])
                .await?;
            match row {
                Some(row) if row.get::<_, &str>(1) == "current" => {
                    return Err("the JWT secret is the current key already".into());
                }
                Some(row) => {
                    let kid: Uuid = row.get(0);
                    tx.execute(
                        "update auth.gateway_signing_keys set status = 'standby', status_changed_at = now()
                         where id = $1",
                        &[&kid],
                    )
                    .await?;
                    kid
                }
                None => {
                    tx.query_one(
                        "insert into auth.gateway_signing_keys (algorithm, status) values ('HS256', 'standby')
                         returning id",
                        &[],
                    )
                    .await?
                    .get(0)
                }
            }
        }
        _ => {
            let (kid, sealed, public) = new_signing_key(secret, algorithm)?;
            tx.execute(
                "insert into auth.gateway_signing_keys (id, algorithm, status, private_key, public_jwk)
                 values ($1, $2, 'standby', $3, $4)",
                &[&kid, &algorithm.as_str(), &sealed, &public],
            )
            .await?;
            kid
        }
    };
    tx.commit().await?;
    Ok(kid)
}

/// The standby key becomes current and the current one previous: new tokens
/// are signed with the new key, tokens of the old one verify until it is
/// revoked. Returns (previous, current).
pub async fn rotate(client: &mut Client) -> Result<(Option<Uuid>, Uuid), BoxError> {
    let tx = client.transaction().await?;
    tx.execute("select pg_advisory_xact_lock(hashtext('gateway keys'))", &[]).await?;
    let standby: Uuid = tx
        .query_opt("select id from auth.gateway_signing_keys where status = 'standby'", &[])
        .await?
        .ok_or("there is no standby key: `gateway signing-keys create` makes one")?
        .get(0);
    let previous: Option<Uuid> = tx
        .query_opt(
            "update auth.gateway_signing_keys set status = 'previous', status_changed_at = now()
             where status = 'current' returning id",
            &[],
        )
        .await?
        .map(|row| row.get(0));
    tx.execute(
        "update auth.gateway_signing_keys set status = 'current', status_changed_at = now() where id = $1",
        &[&standby],
    )
    .await?;
    tx.commit().await?;
    Ok((previous, standby))
}

/// Revokes a previously used or standby key: its tokens fail everywhere
/// within a refresh. The current key cannot be revoked (rotate first).
pub async fn revoke_signing_key(client: &Client, kid: Uuid) -> Result<(), BoxError> {
    let row = client.query_opt("select status from auth.gateway_signing_keys where id = $1", &[&kid]).await?;
    match row.as_ref().map(|row| row.get::<_, &str>(0)) {
        None => Err(format!("no signing key {kid}").into()),
        Some("current") => Err("the current key cannot be revoked: rotate to another first".into()),
        Some("revoked") => Err(format!("{kid} is revoked already").into()),
        Some(_) => {
            client
                .execute(
                    "update auth.gateway_signing_keys set status = 'revoked', status_changed_at = now()
                     where id = $1",
                    &[&kid],
                )
                .await?;
            Ok(())
        }
    }
}

/// Makes the JWT secret a previously used key again (or for the first time):
/// tokens of a moved-in project signed with that secret verify.
pub async fn import_legacy(client: &Client) -> Result<Uuid, BoxError> {
    let row = client
        .query_one(
            "insert into auth.gateway_signing_keys (algorithm, status) values ('HS256', 'previous')
             on conflict ((true)) where algorithm = 'HS256'
             do update set status = case when auth.gateway_signing_keys.status = 'revoked'
                                         then 'previous' else auth.gateway_signing_keys.status end,
                           status_changed_at = now()
             returning id",
            &[],
        )
        .await?;
    Ok(row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_supabases_prefixes_and_256_random_bits() {
        let publishable = generate(KeyKind::Publishable).expect("key");
        let secret = generate(KeyKind::Secret).expect("key");
        assert!(publishable.starts_with("sb_publishable_"), "{publishable}");
        assert!(secret.starts_with("sb_secret_"), "{secret}");
        assert_eq!(publishable.len(), "sb_publishable_".len() + KEY_CHARS);
        assert_ne!(generate(KeyKind::Secret).expect("key"), secret);
    }

    #[test]
    fn a_key_is_found_only_by_its_whole_text_and_kind() {
        let keys = ApiKeys::default();
        let publishable = generate(KeyKind::Publishable).expect("key");
        let secret = generate(KeyKind::Secret).expect("key");
        keys.replace(Loaded {
            valid: vec![(digest(&publishable), KeyKind::Publishable), (digest(&secret), KeyKind::Secret)],
            publishable: Some(publishable.clone()),
        });
        let other = generate(KeyKind::Secret).expect("key");
        let swapped = format!("sb_publishable_{}", &secret[SECRET_PREFIX.len()..]);
        let cases: [(&str, &str, Option<KeyKind>); 7] = [
            ("the publishable key", &publishable, Some(KeyKind::Publishable)),
            ("the secret key", &secret, Some(KeyKind::Secret)),
            ("another secret key", &other, None),
            ("a secret's random part as publishable", &swapped, None),
            ("one character short", &secret[..secret.len() - 1], None),
            ("no prefix", &secret[SECRET_PREFIX.len()..], None),
            ("a JWT", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", None),
        ];
        for (name, key, expected) in cases {
            assert_eq!(keys.lookup(key), expected, "{name}");
        }
        assert_eq!(keys.publishable(), Some(publishable));
    }

    #[test]
    fn private_keys_open_only_under_the_secret_and_kid_they_were_sealed_with() {
        let secret = Secret::new("a-test-secret-that-is-long-enough-0123456789");
        let sealed = seal(&secret, Sealed::SigningKey, "kid-1", b"private der").expect("seal");
        assert!(!sealed.contains("private"));
        assert_eq!(open(&secret, "kid-1", &sealed).expect("open"), b"private der");
        assert!(open(&secret, "kid-2", &sealed).is_err(), "another kid");
        let other = Secret::new("another-secret-that-is-long-enough-xyz");
        assert!(open(&other, "kid-1", &sealed).is_err(), "another secret");
        assert!(unseal(&secret, Sealed::FunctionSecret, "kid-1", &sealed).is_none(), "another purpose");
    }

    #[test]
    fn new_signing_keys_publish_only_their_public_half() {
        let secret = Secret::new("a-test-secret-that-is-long-enough-0123456789");
        for algorithm in [SigningAlgorithm::Es256, SigningAlgorithm::Rs256] {
            let (kid, sealed, public) = new_signing_key(&secret, algorithm).expect("key");
            assert_eq!(public["kid"], kid.to_string());
            assert_eq!(public["alg"], algorithm.as_str());
            assert!(public.get("d").is_none() && public.get("p").is_none(), "{public}");
            let der = open(&secret, &kid.to_string(), &sealed).expect("open");
            let signing = SigningKey::from_der(
                kid.to_string(),
                parse_algorithm(algorithm.as_str()).expect("alg"),
                &der,
            )
            .expect("signing key");
            let mut by_kid = HashMap::new();
            by_kid.insert(kid.to_string(), VerifyingKey::from_jwk(&public).expect("verifying key"));
            let keys = jwt::JwtKeys::hs256(&secret, None).expect("keys");
            keys.replace(KeySet::new(signing, by_kid, None, vec![public]));
            let token = keys.sign(&json!({"role": "authenticated"})).expect("sign");
            assert_eq!(keys.verify(&token).map(|c| c.role), Ok(Role::Authenticated), "{algorithm:?}");
        }
    }
}
