//! TOTP as GoTrue's MFA uses it (supabase/auth `internal/api/mfa.go`, which
//! calls `pquerna/otp`): RFC 6238 with HMAC-SHA-1, 30-second steps, six
//! digits, one step of skew either way; a 20-byte secret written in unpadded
//! base32; an `otpauth://` URI and its QR code as SVG.
//!
//! Secrets are sealed at rest with AES-256-GCM ([`Sealer`]) under a key
//! derived from `AUTH_MFA_ENCRYPTION_KEY`, or from the JWT secret without it
//! (as `gateway_core::keys` seals private signing keys), with the factor id as
//! associated data, so a sealed secret copied onto another factor does not
//! open.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use gateway_core::config::Secret;
use gateway_core::error::ApiError;

/// Seconds per TOTP step (RFC 6238 `X`).
pub const STEP_SECS: i64 = 30;
const SECRET_BYTES: usize = 20;
const SEALED_PREFIX: &str = "gw1:";
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A fresh TOTP secret, base32 (RFC 4648) without padding, as authenticator
/// apps read it.
pub fn new_secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(base32_encode(&bytes))
}

fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(BASE32[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(BASE32[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        let value = BASE32.iter().position(|&b| b == c.to_ascii_uppercase())? as u32;
        buffer = (buffer << 5) | value;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

/// The six-digit code of `secret` at time step `step` (RFC 4226 §5.3).
pub fn code_at(secret: &str, step: i64) -> Option<String> {
    let key = base32_decode(secret)?;
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, &key);
    let tag = ring::hmac::sign(&key, &step.to_be_bytes());
    let digest = tag.as_ref();
    let offset = usize::from(digest[digest.len() - 1] & 0x0f);
    let word =
        u32::from_be_bytes([digest[offset], digest[offset + 1], digest[offset + 2], digest[offset + 3]]);
    Some(format!("{:06}", (word & 0x7fff_ffff) % 1_000_000))
}

/// The step at Unix time `now`.
pub fn step_at(now: i64) -> i64 {
    now.div_euclid(STEP_SECS)
}

/// The step whose code `code` is, among the current one and one either side
/// (GoTrue's `Skew: 1`), compared in constant time; `None` when none matches.
pub fn matching_step(secret: &str, code: &str, now: i64) -> Option<i64> {
    use subtle::ConstantTimeEq;
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let current = step_at(now);
    let mut found = None;
    for step in [current - 1, current, current + 1] {
        let expected = code_at(secret, step)?;
        if bool::from(expected.as_bytes().ct_eq(code.as_bytes())) {
            found = Some(step);
        }
    }
    found
}

/// The `otpauth://` URI authenticator apps import (Google Authenticator's
/// key-URI format, as `pquerna/otp` writes it).
pub fn uri(issuer: &str, account: &str, secret: &str) -> String {
    let escape =
        |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20");
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("algorithm", "SHA1")
        .append_pair("digits", "6")
        .append_pair("issuer", issuer)
        .append_pair("period", "30")
        .append_pair("secret", secret)
        .finish();
    format!("otpauth://totp/{}:{}?{query}", escape(issuer), escape(account))
}

/// The QR code of `text` as an SVG document: GoTrue sends the bare SVG and
/// supabase-js prefixes `data:image/svg+xml;utf-8,` itself. High error
/// correction, as GoTrue; one path of unit squares, so the document is small.
pub fn qr_svg(text: &str) -> Result<String, ApiError> {
    use qrcodegen::{QrCode, QrCodeEcc};
    let qr =
        QrCode::encode_text(text, QrCodeEcc::High).map_err(|_| ApiError::internal("QR code too long"))?;
    const BORDER: i32 = 4;
    let size = qr.size();
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if qr.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + BORDER, y + BORDER));
            }
        }
    }
    let dimension = size + 2 * BORDER;
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {dimension} {dimension}\" width=\"200\" \
         height=\"200\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\
         <path d=\"{path}\" fill=\"#000000\"/></svg>"
    ))
}

/// Seals and opens TOTP secrets.
pub struct Sealer(ring::aead::LessSafeKey);

impl Sealer {
    /// The key: HMAC-SHA-256 of a fixed label under the configured key
    /// material, so the material itself never touches the data.
    pub fn new(material: &Secret) -> Result<Self, ApiError> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(material.expose().as_bytes()).map_err(ApiError::internal)?;
        mac.update(b"gateway mfa secrets v1");
        let bytes = mac.finalize().into_bytes();
        let key = ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &bytes)
            .map_err(|_| ApiError::internal("could not make the MFA sealing key"))?;
        Ok(Sealer(ring::aead::LessSafeKey::new(key)))
    }

    pub fn seal(&self, factor_id: &str, secret: &str) -> Result<String, ApiError> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(ApiError::internal)?;
        let mut sealed = secret.as_bytes().to_vec();
        self.0
            .seal_in_place_append_tag(
                ring::aead::Nonce::assume_unique_for_key(nonce),
                ring::aead::Aad::from(factor_id.as_bytes()),
                &mut sealed,
            )
            .map_err(|_| ApiError::internal("could not seal a TOTP secret"))?;
        Ok(format!("{SEALED_PREFIX}{}", STANDARD.encode([nonce.as_slice(), &sealed].concat())))
    }

    /// `None` when the text was not sealed by this key for this factor.
    pub fn open(&self, factor_id: &str, sealed: &str) -> Option<String> {
        let bytes = STANDARD.decode(sealed.strip_prefix(SEALED_PREFIX)?).ok()?;
        if bytes.len() < 12 {
            return None;
        }
        let (nonce, rest) = bytes.split_at(12);
        let nonce = ring::aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut rest = rest.to_vec();
        let plain =
            self.0.open_in_place(nonce, ring::aead::Aad::from(factor_id.as_bytes()), &mut rest).ok()?;
        String::from_utf8(plain.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1 rows (key "12345678901234567890"), last six digits.
    #[test]
    fn codes_match_the_rfc_6238_test_vectors() {
        let secret = base32_encode(b"12345678901234567890");
        let cases = [
            (59, "287082"),
            (1_111_111_109, "081804"),
            (1_111_111_111, "050471"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ];
        for (time, code) in cases {
            assert_eq!(code_at(&secret, step_at(time)).as_deref(), Some(code), "{time}");
        }
    }

    #[test]
    fn a_code_is_accepted_one_step_either_side_and_no_further() {
        let secret = new_secret().expect("secret");
        let now = 1_700_000_000;
        let current = step_at(now);
        let cases =
            [(-2, None), (-1, Some(current - 1)), (0, Some(current)), (1, Some(current + 1)), (2, None)];
        for (offset, expected) in cases {
            let code = code_at(&secret, current + offset).expect("code");
            let found = matching_step(&secret, &code, now);
            // A code of another step may collide with an accepted one by chance (1 in 10^6).
            if expected.is_some() || found.is_none() {
                assert_eq!(found, expected, "offset {offset}");
            }
        }
        assert_eq!(matching_step(&secret, "12345", now), None);
        assert_eq!(matching_step(&secret, "12345a", now), None);
    }

    #[test]
    fn secrets_are_32_base32_characters_and_round_trip() {
        let secret = new_secret().expect("secret");
        assert_eq!(secret.len(), 32);
        assert_eq!(base32_decode(&secret).expect("decodes").len(), SECRET_BYTES);
        assert_eq!(base32_encode(&base32_decode(&secret).expect("decodes")), secret);
    }

    #[test]
    fn sealed_secrets_open_only_with_the_same_key_and_factor() {
        let sealer = Sealer::new(&Secret::new("one key")).expect("sealer");
        let sealed = sealer.seal("factor-a", "JBSWY3DPEHPK3PXP").expect("sealed");
        assert!(!sealed.contains("JBSWY3DPEHPK3PXP"));
        assert_eq!(sealer.open("factor-a", &sealed).as_deref(), Some("JBSWY3DPEHPK3PXP"));
        assert_eq!(sealer.open("factor-b", &sealed), None);
        assert_eq!(Sealer::new(&Secret::new("another key")).expect("sealer").open("factor-a", &sealed), None);
        assert_eq!(sealer.open("factor-a", "JBSWY3DPEHPK3PXP"), None);
    }

    #[test]
    fn uris_and_qr_codes_name_the_issuer_and_account() {
        let uri = uri("My Shop", "a@b.co", "JBSWY3DPEHPK3PXP");
        assert_eq!(
            uri,
            "otpauth://totp/My%20Shop:a%40b.co?algorithm=SHA1&digits=6&issuer=My+Shop&period=30&secret=JBSWY3DPEHPK3PXP"
        );
        let svg = qr_svg(&uri).expect("svg");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
        assert!(svg.ends_with("</svg>"));
    }
}
