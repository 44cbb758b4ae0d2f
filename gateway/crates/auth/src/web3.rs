//! Sign-in with a wallet: the messages of Sign-In with Ethereum (EIP-4361,
//! <https://eips.ethereum.org/EIPS/eip-4361>) and Sign-In with Solana, parsed
//! line by line as GoTrue parses them (supabase/auth `internal/utilities/siwe`
//! and `siws`), and their signatures checked: Ethereum's `personal_sign`
//! (EIP-191) by recovering the secp256k1 key, Solana's ed25519 directly or in
//! the off-chain envelope a Ledger signs.
//!
//! Nothing here touches the database or the clock; `handlers::web3` judges
//! what a parsed message claims (URI, domain, times) against the settings.

use axum::http::Uri;
use chrono::{DateTime, Utc};
use sha3::{Digest, Keccak256};

/// The two chains `signInWithWeb3` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    Ethereum,
    Solana,
}

impl Chain {
    /// As the request's `chain` and the identity's subject spell it.
    pub fn name(self) -> &'static str {
        match self {
            Chain::Ethereum => "ethereum",
            Chain::Solana => "solana",
        }
    }

    /// As GoTrue's messages capitalise it ("Signed Ethereum message …").
    pub fn title(self) -> &'static str {
        match self {
            Chain::Ethereum => "Ethereum",
            Chain::Solana => "Solana",
        }
    }

    /// The prefix of the parser's errors, which GoTrue passes on verbatim.
    fn prefix(self) -> &'static str {
        match self {
            Chain::Ethereum => "siwe",
            Chain::Solana => "siws",
        }
    }
}

/// A sign-in message as the wallet showed it to its owner.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub domain: String,
    pub address: String,
    pub statement: Option<String>,
    /// The `URI:` value as written.
    pub uri: String,
    pub version: String,
    /// `Chain ID:`; absent is `None` (only Solana may omit it).
    pub chain_id: Option<String>,
    pub nonce: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub expiration_time: Option<DateTime<Utc>>,
    pub not_before: Option<DateTime<Utc>>,
    pub request_id: Option<String>,
    pub resources: Vec<String>,
}

impl Message {
    /// The URI's scheme, host (with port) and host name, for the checks of
    /// `handlers::web3`; a relative reference has none of them.
    pub fn uri_parts(&self) -> (Option<String>, Option<String>, Option<String>) {
        let Ok(uri) = self.uri.parse::<Uri>() else { return (None, None, None) };
        let scheme = uri.scheme_str().map(str::to_owned);
        let host = uri.authority().map(|a| {
            // Go's `URL.Host` leaves out the user information.
            let a = a.as_str();
            a.rsplit_once('@').map_or(a, |(_, host)| host).to_owned()
        });
        let hostname = uri.host().map(|h| h.trim_start_matches('[').trim_end_matches(']').to_owned());
        (scheme, host, hostname)
    }
}

/// Parses `raw` as the chain's sign-in message; the error is GoTrue's message
/// (`siwe: …` or `siws: …`), which it answers as 400 `validation_failed`.
pub fn parse(chain: Chain, raw: &str) -> Result<Message, String> {
    let prefix = chain.prefix();
    let fail = |what: &str| format!("{prefix}: {what}");
    let lines: Vec<&str> = raw.split('\n').collect();
    if lines.len() < 6 {
        return Err(fail("message needs at least 6 lines"));
    }
    let suffix = format!(" wants you to sign in with your {} account:", chain.title());
    let Some(domain) = lines[0].strip_suffix(suffix.as_str()) else {
        return Err(fail(&format!("message first line does not end in {suffix:?}")));
    };
    let domain = domain.trim();
    if !valid_domain(domain) {
        return Err(fail("domain in first line of message is not valid"));
    }
    let address = lines[1].trim();
    let address_ok = match chain {
        Chain::Ethereum => address.len() == 42 && address.starts_with("0x") && is_hex(&address[2..]),
        Chain::Solana => {
            (32..=44).contains(&address.len()) && address.chars().all(|c| c.is_ascii_alphanumeric())
        }
    };
    if !address_ok {
        return Err(fail(match chain {
            Chain::Ethereum => "wallet address is not a valid Ethereum address",
            Chain::Solana => "wallet address is not in base58 format",
        }));
    }
    if !lines[2].is_empty() {
        return Err(fail("third line must be empty"));
    }
    let (statement, start) = match (lines[3], lines[4]) {
        (statement, "") if !statement.is_empty() => (Some(statement.to_owned()), 5),
        _ => (None, 3),
    };
    let mut message = Message {
        domain: domain.to_owned(),
        address: address.to_owned(),
        statement,
        uri: String::new(),
        version: String::new(),
        chain_id: None,
        nonce: None,
        issued_at: DateTime::<Utc>::MIN_UTC,
        expiration_time: None,
        not_before: None,
        request_id: None,
        resources: Vec::new(),
    };
    let mut issued_at = None;
    let mut in_resources = false;
    for (index, line) in lines.iter().enumerate().skip(start) {
        let line = line.trim();
        if in_resources {
            if let Some(resource) = line.strip_prefix("- ") {
                let resource = resource.trim();
                if !request_uri(resource) {
                    return Err(fail(&format!(
                        "Resource at position {} has invalid URI",
                        message.resources.len()
                    )));
                }
                message.resources.push(resource.to_owned());
                continue;
            }
            in_resources = false;
        }
        if line == "Resources:" {
            in_resources = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(fail(&format!("encountered unparsable line at index {index}")));
        };
        let value = value.trim();
        match key {
            "URI" if !request_uri(value) => return Err(fail("URI is not valid")),
            "URI" => message.uri = value.to_owned(),
            "Version" => message.version = value.to_owned(),
            "Chain ID" => {
                let valid = match chain {
                    // EIP-155 chain ids are positive integers; GoTrue requires one.
                    Chain::Ethereum => value.parse::<i64>().is_ok_and(|id| id > 0),
                    Chain::Solana => {
                        value.is_empty()
                            || matches!(
                                value,
                                "solana:mainnet" | "solana:devnet" | "solana:testnet" | "solana:localnet"
                            )
                    }
                };
                if !valid {
                    return Err(fail("Chain ID is not valid"));
                }
                message.chain_id = Some(value.to_owned());
            }
            "Nonce" => message.nonce = Some(value.to_owned()),
            "Issued At" => {
                issued_at =
                    Some(timestamp(value).ok_or_else(|| fail("Issued At is not a valid ISO8601 timestamp"))?);
            }
            "Expiration Time" => {
                message.expiration_time = Some(
                    timestamp(value)
                        .ok_or_else(|| fail("Expiration Time is not a valid ISO8601 timestamp"))?,
                );
            }
            "Not Before" => {
                message.not_before = Some(
                    timestamp(value).ok_or_else(|| fail("Not Before is not a valid ISO8601 timestamp"))?,
                );
            }
            "Request ID" => message.request_id = Some(value.to_owned()),
            _ => {}
        }
    }
    if message.version != "1" {
        return Err(fail(&format!("Version value is not supported, expected 1 got {:?}", message.version)));
    }
    message.issued_at = issued_at.ok_or_else(|| fail("Issued At is not specified"))?;
    if message.uri.is_empty() {
        return Err(fail("URI is not specified"));
    }
    if message.expiration_time.is_some_and(|expires| message.issued_at > expires) {
        return Err(fail("Issued At is after Expiration Time"));
    }
    if let (Some(not_before), Some(expires)) = (message.not_before, message.expiration_time)
        && not_before > expires
    {
        return Err(fail("Not Before is after Expiration Time"));
    }
    Ok(message)
}

/// GoTrue's domain pattern: `localhost` or dot-separated labels ending in a
/// label of two or more letters, with an optional port of 1-5 digits.
fn valid_domain(domain: &str) -> bool {
    let (host, port) = domain.split_once(':').map_or((domain, None), |(h, p)| (h, Some(p)));
    if port.is_some_and(|p| !(1..=5).contains(&p.len()) || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if host == "localhost" {
        return true;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let Some((top, rest)) = labels.split_last() else { return false };
    let label = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    !rest.is_empty()
        && rest.iter().all(label)
        && top.len() >= 2
        && top.bytes().all(|b| b.is_ascii_alphabetic())
}

/// What Go's `url.ParseRequestURI` accepts, near enough: an absolute URI or
/// an absolute path, without spaces or control characters.
fn request_uri(value: &str) -> bool {
    let absolute = value.split_once(':').is_some_and(|(scheme, _)| {
        scheme.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    });
    (absolute || value.starts_with('/')) && !value.bytes().any(|b| b.is_ascii_control() || b == b' ')
}

/// RFC 3339, with or without fractions of a second (Go's `time.RFC3339`).
fn timestamp(value: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value).ok().map(|t| t.with_timezone(&Utc))
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// EIP-191's `personal_sign` digest: Keccak-256 of the prefix, the length in
/// decimal, and the message (go-ethereum `accounts.TextHash`).
pub fn ethereum_message_hash(raw: &str) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    hasher.update(format!("\x19Ethereum Signed Message:\n{}", raw.len()).as_bytes());
    hasher.update(raw.as_bytes());
    hasher.finalize().into()
}

/// The address of a secp256k1 public key: the last 20 bytes of the
/// Keccak-256 of its uncompressed point, without the `0x04` tag.
pub fn ethereum_address(key: &k256::ecdsa::VerifyingKey) -> String {
    let point = key.to_encoded_point(false);
    let digest = Keccak256::digest(&point.as_bytes()[1..]);
    format!("0x{}", hex::encode(&digest[12..]))
}

/// Whether `signature` (65 bytes, `r ‖ s ‖ v` in hex, `0x` optional, `v` 0/1
/// or 27/28) is the address's `personal_sign` of `raw`: the key is recovered
/// and its address compared case-insensitively, as EIP-55 checksums are
/// only a matter of case (siwe `VerifySignature`).
pub fn verify_ethereum(raw: &str, address: &str, signature: &str) -> bool {
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    let Ok(bytes) = hex::decode(signature.strip_prefix("0x").unwrap_or(signature)) else { return false };
    let [rs @ .., v] = bytes.as_slice() else { return false };
    if rs.len() != 64 {
        return false;
    }
    let v = if *v >= 27 { v - 27 } else { *v };
    let (Ok(mut sig), Some(mut recovery)) = (Signature::from_slice(rs), RecoveryId::from_byte(v)) else {
        return false;
    };
    // go-ethereum recovers from a high `s` as well; k256 takes only the low
    // form, the same signature with the other parity.
    if let Some(low) = sig.normalize_s() {
        sig = low;
        recovery = RecoveryId::new(!recovery.is_y_odd(), recovery.is_x_reduced());
    }
    let hash = ethereum_message_hash(raw);
    VerifyingKey::recover_from_prehash(&hash, &sig, recovery)
        .is_ok_and(|key| ethereum_address(&key).eq_ignore_ascii_case(address))
}

/// Whether `signature` (64 bytes) is the ed25519 signature of `raw` by the
/// key the base58 address spells: over the message itself, as wallets
/// following phantom's sign-in-with-solana sign, or over the off-chain
/// message envelope a Ledger signs (siws `VerifySignature`;
/// <https://docs.anza.xyz/proposals/off-chain-message-signing>).
pub fn verify_solana(raw: &str, domain: &str, address: &str, signature: &[u8]) -> bool {
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};
    let Ok(key) = bs58::decode(address).into_vec() else { return false };
    let Ok(key) = <[u8; 32]>::try_from(key.as_slice()) else { return false };
    let (Ok(key), Ok(signature)) = (VerifyingKey::from_bytes(&key), Signature::from_slice(signature)) else {
        return false;
    };
    if key.verify(raw.as_bytes(), &signature).is_ok() {
        return true;
    }
    let Ok(length) = u16::try_from(raw.len()) else { return false };
    let mut envelope = Vec::with_capacity(85 + raw.len());
    envelope.extend_from_slice(b"\xffsolana offchain");
    envelope.push(0); // version
    let mut application = [0u8; 32];
    let domain = &domain.as_bytes()[..domain.len().min(32)];
    application[..domain.len()].copy_from_slice(domain);
    envelope.extend_from_slice(&application);
    envelope.push(0); // format: restricted ASCII
    envelope.push(1); // one signer
    envelope.extend_from_slice(key.as_bytes());
    envelope.extend_from_slice(&length.to_le_bytes());
    envelope.extend_from_slice(raw.as_bytes());
    key.verify(&envelope, &signature).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIWE: &str = "example.com wants you to sign in with your Ethereum account:\n\
        0xa1E993d09257291470e86778399D79A0864F327E\n\nSign in to the shop\n\n\
        URI: https://example.com/login\nVersion: 1\nChain ID: 1\nNonce: abcdefgh1\n\
        Issued At: 2025-03-29T00:00:00.000Z\nExpiration Time: 2025-03-29T00:10:00Z\n\
        Not Before: 2025-03-29T00:00:00Z\nRequest ID: r-1\nResources:\n- https://example.com/a\n- ipfs://b";

    #[test]
    fn a_full_ethereum_message_is_read_field_by_field() {
        let m = parse(Chain::Ethereum, SIWE).expect("parses");
        assert_eq!(m.domain, "example.com");
        assert_eq!(m.address, "0xa1E993d09257291470e86778399D79A0864F327E");
        assert_eq!(m.statement.as_deref(), Some("Sign in to the shop"));
        assert_eq!(m.uri, "https://example.com/login");
        assert_eq!(m.chain_id.as_deref(), Some("1"));
        assert_eq!(m.nonce.as_deref(), Some("abcdefgh1"));
        assert_eq!(m.issued_at.to_rfc3339(), "2025-03-29T00:00:00+00:00");
        assert_eq!(m.request_id.as_deref(), Some("r-1"));
        assert_eq!(m.resources, ["https://example.com/a", "ipfs://b"]);
        assert_eq!(
            m.uri_parts(),
            (Some("https".into()), Some("example.com".into()), Some("example.com".into()))
        );
    }

    #[test]
    fn a_message_without_statement_starts_its_fields_on_the_fourth_line() {
        let raw = "localhost:5173 wants you to sign in with your Solana account:\n\
            2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8\n\nURI: http://localhost:5173/\nVersion: 1\n\
            Issued At: 2025-05-16T14:52:03.613Z";
        let m = parse(Chain::Solana, raw).expect("parses");
        assert_eq!(m.statement, None);
        assert_eq!(m.chain_id, None);
        assert_eq!(m.uri_parts().2.as_deref(), Some("localhost"));
        assert_eq!(m.uri_parts().1.as_deref(), Some("localhost:5173"));
    }

    /// (chain, what is changed in a valid message, GoTrue's error)
    #[test]
    fn malformed_messages_are_refused_with_gotrues_words() {
        let eth = |from: &str, to: &str| SIWE.replacen(from, to, 1);
        let cases: Vec<(Chain, String, &str)> = vec![
            (Chain::Ethereum, "a\nb".into(), "siwe: message needs at least 6 lines"),
            (
                Chain::Ethereum,
                eth("Ethereum account", "Bitcoin account"),
                "siwe: message first line does not end in \" wants you to sign in with your Ethereum account:\"",
            ),
            (
                Chain::Ethereum,
                eth("example.com wants", "exa_mple.com wants"),
                "siwe: domain in first line of message is not valid",
            ),
            (
                Chain::Ethereum,
                eth("example.com wants", "example.c0m wants"),
                "siwe: domain in first line of message is not valid",
            ),
            (
                Chain::Ethereum,
                eth("0xa1E9", "0xZ1E9"),
                "siwe: wallet address is not a valid Ethereum address",
            ),
            (Chain::Ethereum, eth("327E\n\n", "327E\nx\n"), "siwe: third line must be empty"),
            (Chain::Ethereum, eth("Chain ID: 1", "Chain ID: 0"), "siwe: Chain ID is not valid"),
            (Chain::Ethereum, eth("Chain ID: 1", "Chain ID: mainnet"), "siwe: Chain ID is not valid"),
            (
                Chain::Ethereum,
                eth("Version: 1", "Version: 2"),
                "siwe: Version value is not supported, expected 1 got \"2\"",
            ),
            (
                Chain::Ethereum,
                eth("URI: https://example.com/login", "URI: example.com"),
                "siwe: URI is not valid",
            ),
            (
                Chain::Ethereum,
                eth("URI: https://example.com/login", "Nonce: x"),
                "siwe: URI is not specified",
            ),
            (
                Chain::Ethereum,
                eth("Issued At: 2025-03-29T00:00:00.000Z", "Nonce: x"),
                "siwe: Issued At is not specified",
            ),
            (
                Chain::Ethereum,
                eth("2025-03-29T00:00:00.000Z", "yesterday"),
                "siwe: Issued At is not a valid ISO8601 timestamp",
            ),
            (
                Chain::Ethereum,
                eth("Expiration Time: 2025-03-29T00:10:00Z", "Expiration Time: 2025-03-28T00:10:00Z"),
                "siwe: Issued At is after Expiration Time",
            ),
            (
                Chain::Ethereum,
                eth("Not Before: 2025-03-29T00:00:00Z", "Not Before: 2025-03-29T00:20:00Z"),
                "siwe: Not Before is after Expiration Time",
            ),
            (
                Chain::Ethereum,
                eth("- ipfs://b", "- not a uri"),
                "siwe: Resource at position 1 has invalid URI",
            ),
            (
                Chain::Ethereum,
                eth("Request ID: r-1", "just words"),
                "siwe: encountered unparsable line at index 12",
            ),
            (
                Chain::Solana,
                SIWE.replace("Ethereum", "Solana")
                    .replace("0xa1E993d09257291470e86778399D79A0864F327E", "0x-1"),
                "siws: wallet address is not in base58 format",
            ),
            (
                Chain::Solana,
                SIWE.replace("Ethereum", "Solana")
                    .replace(
                        "0xa1E993d09257291470e86778399D79A0864F327E",
                        "2EZEiBdw47VHT6SpZSW9VnuSvBe7DxuYHBTxj19gxvv8",
                    )
                    .replace("Chain ID: 1", "Chain ID: solana:moonnet"),
                "siws: Chain ID is not valid",
            ),
        ];
        for (chain, raw, expected) in cases {
            assert_eq!(parse(chain, &raw), Err(expected.to_owned()), "{raw}");
        }
    }

    #[test]
    fn domains_follow_gotrues_pattern() {
        for ok in ["localhost", "localhost:5173", "example.com", "a.b-c.example.co:443"] {
            assert!(valid_domain(ok), "{ok}");
        }
        for bad in
            ["example", "-a.com", "a..com", "example.c0m", "example.com:", "example.com:123456", "127.0.0.1"]
        {
            assert!(!valid_domain(bad), "{bad}");
        }
    }

    /// The test vector of EIP-191's personal_sign as go-ethereum hashes it.
    #[test]
    fn the_personal_sign_digest_is_eip_191s() {
        assert_eq!(
            hex::encode(ethereum_message_hash("Hello World")),
            "a1de988600a42c4b4ab089b619297c17d53cffae5d5120d82d8a92d0bb3b78f2"
        );
    }

    #[test]
    fn ethereum_signatures_recover_the_signing_address() {
        use k256::ecdsa::SigningKey;
        let key = SigningKey::from_slice(&[7u8; 32]).expect("key");
        let address = ethereum_address(key.verifying_key());
        let raw = "a message";
        let (sig, recovery) = key.sign_prehash_recoverable(&ethereum_message_hash(raw)).expect("signs");
        let mut bytes = sig.to_bytes().to_vec();
        bytes.push(recovery.to_byte() + 27);
        let signature = format!("0x{}", hex::encode(&bytes));
        assert!(verify_ethereum(raw, &address, &signature));
        assert!(verify_ethereum(raw, &address.to_uppercase().replace("0X", "0x"), &signature));
        assert!(!verify_ethereum("another message", &address, &signature));
        bytes[64] = (recovery.to_byte() ^ 1) + 27;
        assert!(!verify_ethereum(raw, &address, &hex::encode(&bytes)));
        assert!(!verify_ethereum(raw, &address, "0x1234"));
    }

    #[test]
    fn solana_signatures_are_checked_plain_and_in_the_ledger_envelope() {
        use ed25519_dalek::{Signer, SigningKey};
        let key = SigningKey::from_bytes(&[9u8; 32]);
        let address = bs58::encode(key.verifying_key().as_bytes()).into_string();
        let raw = "a message";
        let plain = key.sign(raw.as_bytes()).to_bytes();
        assert!(verify_solana(raw, "example.com", &address, &plain));
        let mut envelope = b"\xffsolana offchain\x00".to_vec();
        let mut application = [0u8; 32];
        application[..11].copy_from_slice(b"example.com");
        envelope.extend_from_slice(&application);
        envelope.extend_from_slice(&[0, 1]);
        envelope.extend_from_slice(key.verifying_key().as_bytes());
        envelope.extend_from_slice(&(raw.len() as u16).to_le_bytes());
        envelope.extend_from_slice(raw.as_bytes());
        let ledger = key.sign(&envelope).to_bytes();
        assert!(verify_solana(raw, "example.com", &address, &ledger));
        assert!(!verify_solana(raw, "example.org", &address, &ledger));
        assert!(!verify_solana("other", "example.com", &address, &plain));
    }
}
