//! Web3 sign-ins (`signInWithWeb3`, `POST /token?grant_type=web3`): a wallet
//! signs a Sign-In with Ethereum or Solana message, and the gateway checks the
//! signature and what the message claims before it signs the wallet's owner
//! in (supabase/auth `internal/api/web3.go`). The wallets here are software
//! keys made by each test.

mod common;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use sha3::{Digest, Keccak256};

use common::TestApp;
use common::auth::{Reply, access_token, spawn_auth_app};

const SITE: &str = "https://shop.example.com";
const DOMAIN: &str = "shop.example.com";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Chain {
    Ethereum,
    Solana,
}

/// A software wallet of either chain.
enum Wallet {
    Ethereum(k256::ecdsa::SigningKey),
    Solana(ed25519_dalek::SigningKey),
}

fn random_bytes() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("randomness");
    bytes
}

impl Wallet {
    fn new(chain: Chain) -> Self {
        match chain {
            Chain::Ethereum => {
                Wallet::Ethereum(k256::ecdsa::SigningKey::from_slice(&random_bytes()).expect("key"))
            }
            Chain::Solana => Wallet::Solana(ed25519_dalek::SigningKey::from_bytes(&random_bytes())),
        }
    }

    /// `0x` and the last 20 bytes of the Keccak-256 of the public point, or
    /// the public key in base58.
    fn address(&self) -> String {
        match self {
            Wallet::Ethereum(key) => {
                let point = key.verifying_key().to_encoded_point(false);
                format!("0x{}", hex::encode(&Keccak256::digest(&point.as_bytes()[1..])[12..]))
            }
            Wallet::Solana(key) => bs58::encode(key.verifying_key().as_bytes()).into_string(),
        }
    }

    /// What the wallet answers to `personal_sign` (hex `r ‖ s ‖ v`) or to
    /// `signMessage` (the 64 bytes in base64).
    fn sign(&self, message: &str) -> String {
        match self {
            Wallet::Ethereum(key) => {
                let mut hasher = Keccak256::new();
                hasher.update(format!("\x19Ethereum Signed Message:\n{}", message.len()));
                hasher.update(message);
                let (signature, recovery) = key.sign_prehash_recoverable(&hasher.finalize()).expect("signs");
                let mut bytes = signature.to_bytes().to_vec();
                bytes.push(27 + recovery.to_byte());
                format!("0x{}", hex::encode(bytes))
            }
            Wallet::Solana(key) => {
                use base64::Engine;
                use ed25519_dalek::Signer;
                base64::engine::general_purpose::STANDARD.encode(key.sign(message.as_bytes()).to_bytes())
            }
        }
    }
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The fields of a sign-in message, as a dApp fills them.
#[derive(Clone)]
struct Fields {
    domain: String,
    address: String,
    uri: String,
    chain_id: Option<String>,
    issued_at: DateTime<Utc>,
    expiration_time: Option<DateTime<Utc>>,
    not_before: Option<DateTime<Utc>>,
}

impl Fields {
    fn new(chain: Chain, address: String) -> Self {
        Fields {
            domain: DOMAIN.to_owned(),
            address,
            uri: format!("{SITE}/login"),
            chain_id: Some(match chain {
                Chain::Ethereum => "1".to_owned(),
                Chain::Solana => "solana:mainnet".to_owned(),
            }),
            issued_at: Utc::now(),
            expiration_time: Some(Utc::now() + Duration::minutes(5)),
            not_before: None,
        }
    }

    /// The message as EIP-4361 and Sign-In with Solana lay it out.
    fn render(&self, chain: Chain) -> String {
        let account = match chain {
            Chain::Ethereum => "Ethereum",
            Chain::Solana => "Solana",
        };
        let mut lines = vec![
            format!("{} wants you to sign in with your {account} account:", self.domain),
            self.address.clone(),
            String::new(),
            "Sign in to the shop".to_owned(),
            String::new(),
            format!("URI: {}", self.uri),
            "Version: 1".to_owned(),
        ];
        lines.extend(self.chain_id.iter().map(|id| format!("Chain ID: {id}")));
        lines.push("Nonce: k3zq8x1a9b".to_owned());
        lines.push(format!("Issued At: {}", time(self.issued_at)));
        lines.extend(self.expiration_time.map(|t| format!("Expiration Time: {}", time(t))));
        lines.extend(self.not_before.map(|t| format!("Not Before: {}", time(t))));
        lines.join("\n")
    }
}

fn chain_name(chain: Chain) -> &'static str {
    match chain {
        Chain::Ethereum => "ethereum",
        Chain::Solana => "solana",
    }
}

async fn web3_grant(app: &TestApp, chain: &str, message: &str, signature: &str) -> Reply {
    let body = json!({"chain": chain, "message": message, "signature": signature});
    app.send(app.auth(Method::POST, "/token?grant_type=web3").json(&body)).await
}

/// Signs the wallet's message and presents it.
async fn sign_in(app: &TestApp, chain: Chain, wallet: &Wallet, fields: &Fields) -> Reply {
    let message = fields.render(chain);
    web3_grant(app, chain_name(chain), &message, &wallet.sign(&message)).await
}

async fn web3_app(change: impl FnOnce(&mut gateway_auth::AuthConfig)) -> TestApp {
    spawn_auth_app(|auth| {
        auth.site_url = Some(SITE.to_owned());
        auth.web3_ethereum_enabled = true;
        auth.web3_solana_enabled = true;
        change(auth);
    })
    .await
}

/// (status, GoTrue's code or OAuth `error`, message or `error_description`)
fn outcome(reply: &Reply) -> (u16, String, String) {
    let text = |key: &str| reply.body[key].as_str().unwrap_or("").to_owned();
    match reply.body.get("error") {
        Some(_) => (reply.status, text("error"), text("error_description")),
        None => (reply.status, text("code"), text("msg")),
    }
}

#[tokio::test]
async fn a_wallet_signs_in_on_either_chain_and_comes_back_as_the_same_user() {
    let app = web3_app(|_| {}).await;
    for chain in [Chain::Ethereum, Chain::Solana] {
        let wallet = Wallet::new(chain);
        let address = wallet.address();
        let fields = Fields::new(chain, address.clone());
        let first = sign_in(&app, chain, &wallet, &fields).await;
        assert_eq!(first.status, 200, "{chain:?}: {:?}", first.body);
        let user = &first.body["user"];
        let subject = format!("web3:{}:{address}", chain_name(chain));
        let data = json!({
            "sub": subject,
            "custom_claims": {
                "address": address,
                "chain": chain_name(chain),
                "network": fields.chain_id,
                "domain": DOMAIN,
                "statement": "Sign in to the shop",
            },
            "email_verified": false,
            "phone_verified": false,
        });
        assert_eq!(user["email"], "", "{chain:?}");
        assert_eq!(user["app_metadata"], json!({"provider": "web3", "providers": ["web3"]}));
        assert_eq!(user["user_metadata"], data, "{chain:?}");
        assert_eq!(user["identities"][0]["provider"], "web3");
        assert_eq!(user["identities"][0]["id"], json!(subject));
        assert_eq!(user["identities"][0]["identity_data"], data);
        let claims: Value = serde_json::to_value(
            app.state.credentials.jwt.verify(access_token(&first.body)).expect("valid").claims,
        )
        .expect("claims");
        assert_eq!(claims["amr"][0]["method"], "web3", "{chain:?}");
        assert_eq!(claims["sub"], user["id"]);

        let again = sign_in(&app, chain, &wallet, &Fields::new(chain, address.clone())).await;
        assert_eq!(again.status, 200, "{chain:?}: {:?}", again.body);
        assert_eq!(again.body["user"]["id"], user["id"], "{chain:?}: a repeat sign-in is the same user");
        assert_eq!(again.body["user"]["identities"].as_array().map(Vec::len), Some(1));
    }
}

#[tokio::test]
async fn local_development_signs_in_from_localhost_over_http() {
    let app = spawn_auth_app(|auth| auth.web3_solana_enabled = true).await;
    let wallet = Wallet::new(Chain::Solana);
    let mut fields = Fields::new(Chain::Solana, wallet.address());
    fields.domain = "localhost:5173".to_owned();
    fields.uri = "http://localhost:5173/".to_owned();
    fields.chain_id = None;
    let reply = sign_in(&app, Chain::Solana, &wallet, &fields).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["user"]["user_metadata"]["custom_claims"]["network"], "");
}

/// How a case spoils an otherwise good sign-in.
enum Spoil {
    Fields(fn(&mut Fields)),
    /// Replaces the signed message's text after signing.
    Message(fn(String) -> String),
    /// Replaces the signature given the message and the right one.
    Signature(fn(Chain, &str, String) -> String),
    Chain(&'static str),
}

fn another_keys_signature(chain: Chain, message: &str, _: String) -> String {
    Wallet::new(chain).sign(message)
}

/// The first character of `r` (Ethereum, after `0x`) or of the base64 changed.
fn garbled(chain: Chain, _: &str, signature: String) -> String {
    let at = if chain == Chain::Ethereum { 2 } else { 0 };
    let other = if signature[at..].starts_with('1') { "2" } else { "1" };
    format!("{}{other}{}", &signature[..at], &signature[at + 1..])
}

fn minutes(n: i64) -> DateTime<Utc> {
    Utc::now() + Duration::minutes(n)
}

#[tokio::test]
async fn signed_messages_are_refused_for_what_they_say_as_gotrue_refuses_them() {
    let app = web3_app(|_| {}).await;
    let e = "Ethereum";
    // (case, spoil, status, code or OAuth error, message ("{}" is the chain))
    let cases: Vec<(&str, Spoil, u16, &str, &str)> = vec![
        (
            "wrong domain",
            Spoil::Fields(|f| f.domain = "evil.example.com".to_owned()),
            400,
            "invalid_grant",
            "Signed {} message is using a Domain that does not match the one in URI which is not allowed on this server",
        ),
        (
            "wrong URI",
            Spoil::Fields(|f| {
                f.domain = "evil.example.com".to_owned();
                f.uri = "https://evil.example.com/login".to_owned();
            }),
            400,
            "invalid_grant",
            "Signed {} message is using URI which is not allowed on this server, message was signed for another app",
        ),
        (
            "URI not HTTPS",
            Spoil::Fields(|f| f.uri = "http://shop.example.com/login".to_owned()),
            400,
            "invalid_grant",
            "Signed {} message is using URI which does not use HTTPS",
        ),
        (
            "expired",
            Spoil::Fields(|f| {
                f.issued_at = minutes(-3);
                f.expiration_time = Some(minutes(-1));
            }),
            400,
            "invalid_grant",
            "Signed {} message is expired",
        ),
        (
            "not valid yet",
            Spoil::Fields(|f| f.not_before = Some(minutes(2))),
            400,
            "invalid_grant",
            "Signed {} message becomes valid in the future",
        ),
        (
            "issued in the future",
            Spoil::Fields(|f| {
                f.issued_at = minutes(15);
                f.expiration_time = None;
            }),
            400,
            "invalid_grant",
            "{} message was issued too far in the future",
        ),
        (
            "issued too long ago",
            Spoil::Fields(|f| {
                f.issued_at = minutes(-15);
                f.expiration_time = None;
            }),
            400,
            "invalid_grant",
            "{} message was issued too long ago",
        ),
        (
            "bad signature",
            Spoil::Signature(garbled),
            400,
            "invalid_grant",
            "Signature does not match address in message",
        ),
        (
            "signature by another key",
            Spoil::Signature(another_keys_signature),
            400,
            "invalid_grant",
            "Signature does not match address in message",
        ),
        (
            "message changed after signing",
            Spoil::Message(|m| m.replace("Sign in to the shop", "Sign in to the shoq")),
            400,
            "invalid_grant",
            "Signature does not match address in message",
        ),
        (
            "wrong chain id",
            Spoil::Fields(|f| f.chain_id = Some("0".to_owned())),
            400,
            "validation_failed",
            "siwe: Chain ID is not valid",
        ),
        (
            "malformed message",
            Spoil::Message(|m| m.replace("Version: 1", "Version: 2")),
            400,
            "validation_failed",
            "Version value is not supported, expected 1 got \"2\"",
        ),
        (
            "message too short",
            Spoil::Message(|_| "example.com wants you to sign in".to_owned()),
            400,
            "validation_failed",
            "message is too short",
        ),
        (
            "signature of the wrong length",
            Spoil::Signature(|_, _, s| s[..40].to_owned()),
            400,
            "validation_failed",
            "signature must be",
        ),
        ("unknown chain", Spoil::Chain("bitcoin"), 400, "web3_unsupported_chain", "Unsupported chain"),
    ];
    for chain in [Chain::Ethereum, Chain::Solana] {
        let title = if chain == Chain::Ethereum { e } else { "Solana" };
        for (case, spoil, status, code, expected) in &cases {
            let wallet = Wallet::new(chain);
            let mut fields = Fields::new(chain, wallet.address());
            let mut chain_param = chain_name(chain);
            let mut message = fields.render(chain);
            let mut signature = wallet.sign(&message);
            match spoil {
                Spoil::Fields(change) => {
                    change(&mut fields);
                    if *case == "wrong chain id" && chain == Chain::Solana {
                        fields.chain_id = Some("solana:moonnet".to_owned());
                    }
                    message = fields.render(chain);
                    signature = wallet.sign(&message);
                }
                Spoil::Message(change) => message = change(message),
                Spoil::Signature(change) => signature = change(chain, &message, signature),
                Spoil::Chain(name) => chain_param = name,
            }
            let reply = web3_grant(&app, chain_param, &message, &signature).await;
            let (got_status, got_code, got_message) = outcome(&reply);
            let expected = expected.replace("{}", title);
            let expected = if chain == Chain::Solana { expected.replace("siwe:", "siws:") } else { expected };
            assert_eq!(
                (got_status, got_code.as_str()),
                (*status, *code),
                "{chain:?} {case}: {:?}",
                reply.body
            );
            assert!(got_message.contains(&expected), "{chain:?} {case}: {got_message:?} lacks {expected:?}");
        }
    }
    let users = app.admin().await.query_one("select count(*) from auth.users", &[]).await.expect("count");
    assert_eq!(users.get::<_, i64>(0), 0, "no refusal made a user");
}

#[tokio::test]
async fn web3_sign_ins_are_refused_as_gotrue_refuses_them_when_off() {
    let off = spawn_auth_app(|auth| auth.site_url = Some(SITE.to_owned())).await;
    let ethereum_only = spawn_auth_app(|auth| {
        auth.site_url = Some(SITE.to_owned());
        auth.web3_ethereum_enabled = true;
    })
    .await;
    let solana_only = spawn_auth_app(|auth| {
        auth.site_url = Some(SITE.to_owned());
        auth.web3_solana_enabled = true;
    })
    .await;
    // (gateway, chain, status, code, message)
    let cases = [
        (&off, Chain::Ethereum, 422, "web3_provider_disabled", "Web3 provider is disabled"),
        (&off, Chain::Solana, 422, "web3_provider_disabled", "Web3 provider is disabled"),
        (&ethereum_only, Chain::Solana, 422, "web3_provider_disabled", "Solana Web3 provider is disabled"),
        (&solana_only, Chain::Ethereum, 422, "web3_provider_disabled", "Ethereum Web3 provider is disabled"),
    ];
    for (app, chain, status, code, message) in cases {
        let wallet = Wallet::new(chain);
        let reply = sign_in(app, chain, &wallet, &Fields::new(chain, wallet.address())).await;
        assert_eq!(outcome(&reply), (status, code.to_owned(), message.to_owned()), "{chain:?}");
    }
    let wallet = Wallet::new(Chain::Ethereum);
    let fields = Fields::new(Chain::Ethereum, wallet.address());
    assert_eq!(sign_in(&ethereum_only, Chain::Ethereum, &wallet, &fields).await.status, 200);

    // GoTrue refuses before it reads the body: a signature sent as bytes
    // (auth-js passes a `Uint8Array` through) is refused as off, not as bad
    // JSON, while both chains are off; with one on, the body is read.
    let bytes = json!({"chain": "ethereum", "message": "test message", "signature": {"0": 1, "1": 2}});
    let cases = [
        (&off, 422, "web3_provider_disabled", "Web3 provider is disabled"),
        (&ethereum_only, 400, "bad_json", "Could not parse request body as JSON"),
    ];
    for (app, status, code, message) in cases {
        let reply = app.send(app.auth(Method::POST, "/token?grant_type=web3").json(&bytes)).await;
        assert_eq!(outcome(&reply), (status, code.to_owned(), message.to_owned()), "{:?}", reply.body);
    }
}

#[tokio::test]
async fn sign_ups_closed_refuse_wallets_never_seen() {
    let app = web3_app(|auth| auth.signup_enabled = false).await;
    let stranger = Wallet::new(Chain::Ethereum);
    let reply =
        sign_in(&app, Chain::Ethereum, &stranger, &Fields::new(Chain::Ethereum, stranger.address())).await;
    assert_eq!((reply.status, reply.code()), (422, "signup_disabled"));
}

#[tokio::test]
async fn web3_sign_ins_count_under_their_own_rate_limit() {
    let app = web3_app(|auth| auth.rate_limit_web3 = 2).await;
    let wallet = Wallet::new(Chain::Solana);
    for _ in 0..2 {
        let reply =
            sign_in(&app, Chain::Solana, &wallet, &Fields::new(Chain::Solana, wallet.address())).await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
    }
    let third = sign_in(&app, Chain::Solana, &wallet, &Fields::new(Chain::Solana, wallet.address())).await;
    assert_eq!((third.status, third.code()), (429, "over_request_rate_limit"));
    // Even a refused or switched-off attempt takes from it, as in GoTrue.
    let garbage = web3_grant(&app, "ethereum", "x", "y").await;
    assert_eq!(garbage.status, 429);
}
