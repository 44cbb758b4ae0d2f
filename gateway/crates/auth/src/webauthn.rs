//! The WebAuthn relying party behind passkeys (`handlers::passkeys`) and the
//! `webauthn` MFA factor (`handlers::factors`): its id, origins and name from
//! the settings, the ceremonies' options as GoTrue sends them, and a
//! credential's columns in GoTrue's shape (supabase/auth
//! `internal/api/passkey_webauthn.go`, `internal/models/webauthn_credential.go`).
//!
//! The ceremonies themselves (challenge, origin, RP id hash, flags,
//! signature, counter) are checked by webauthn-rs; its state between a
//! ceremony's two requests is kept in the database (`webauthn_store`).

use serde_json::Value;
use webauthn_rs::prelude::{
    COSEKey, COSEKeyType, CreationChallengeResponse, Credential, Passkey, Url, Webauthn, WebauthnBuilder,
};

use crate::AuthConfig;
use gateway_core::error::ApiError;

/// The relying party of `config`, whose defaults derive from `site_url`:
/// its origin is the only one allowed and its host is the RP id.
pub fn relying_party(config: &AuthConfig, site_url: &str) -> Result<Webauthn, ApiError> {
    let origins: Vec<Url> = if config.webauthn_rp_origins.is_empty() {
        let site = Url::parse(site_url).map_err(|_| misconfigured("the site URL is not a URL"))?;
        vec![Url::parse(&site.origin().ascii_serialization()).map_err(ApiError::internal)?]
    } else {
        config
            .webauthn_rp_origins
            .iter()
            .map(|origin| Url::parse(origin.trim()))
            .collect::<Result<_, _>>()
            .map_err(|_| misconfigured("an entry of AUTH_WEBAUTHN_RP_ORIGINS is not a URL"))?
    };
    let first = origins.first().ok_or_else(|| misconfigured("no origin"))?;
    let rp_id = match &config.webauthn_rp_id {
        Some(id) => id.clone(),
        None => first.host_str().ok_or_else(|| misconfigured("the site URL has no host"))?.to_owned(),
    };
    let name = config.webauthn_rp_display_name.clone().unwrap_or_else(|| rp_id.clone());
    let mut builder = WebauthnBuilder::new(&rp_id, first)
        .map_err(|_| misconfigured("AUTH_WEBAUTHN_RP_ID is not the domain of the first origin"))?
        .rp_name(&name);
    for origin in &origins[1..] {
        builder = builder.append_allowed_origin(origin);
    }
    builder.build().map_err(|_| misconfigured("the relying party did not build"))
}

fn misconfigured(why: &str) -> ApiError {
    ApiError::internal(format!("WebAuthn settings: {why}"))
}

/// Registration options with a discoverable credential required, as
/// GoTrue's `ResidentKeyRequirementRequired`: a passkey must be found by the
/// authenticator itself, since sign-in names no user. webauthn-rs leaves the
/// choice to the authenticator; its verification is the same either way.
pub fn discoverable(options: &CreationChallengeResponse) -> Result<Value, ApiError> {
    let mut value = serde_json::to_value(options).map_err(ApiError::internal)?;
    if let Some(selection) =
        value.pointer_mut("/publicKey/authenticatorSelection").and_then(Value::as_object_mut)
    {
        selection.insert("residentKey".to_owned(), Value::from("required"));
        selection.insert("requireResidentKey".to_owned(), Value::from(true));
    }
    Ok(value)
}

/// A stored credential in GoTrue's columns (`auth.webauthn_credentials`).
pub struct Columns {
    pub credential_id: Vec<u8>,
    pub public_key: Vec<u8>,
    pub sign_count: i64,
    pub transports: Value,
    pub backup_eligible: bool,
    pub backed_up: bool,
    /// The credential as webauthn-rs verifies with it.
    pub credential: Value,
}

impl Columns {
    pub fn of(passkey: &Passkey) -> Result<Self, ApiError> {
        let credential: Credential = passkey.clone().into();
        let transports = serde_json::to_value(credential.transports.clone().unwrap_or_default())
            .map_err(ApiError::internal)?;
        Ok(Columns {
            credential_id: credential.cred_id.clone(),
            public_key: cose_key(&credential.cred),
            sign_count: i64::from(credential.counter),
            transports,
            backup_eligible: credential.backup_eligible,
            backed_up: credential.backup_state,
            credential: serde_json::to_value(passkey).map_err(ApiError::internal)?,
        })
    }
}

/// A stored credential back as webauthn-rs reads it.
pub fn passkey(credential: Value) -> Result<Passkey, ApiError> {
    serde_json::from_value(credential).map_err(ApiError::internal)
}

/// The public key as a COSE_Key (RFC 9052 §7), the bytes GoTrue keeps in
/// `public_key`: CBOR map of key type, algorithm and the key's parameters.
fn cose_key(key: &COSEKey) -> Vec<u8> {
    let algorithm = i64::from(key.type_ as i32);
    let mut out = Vec::new();
    match &key.key {
        COSEKeyType::EC_EC2(ec) => {
            cbor_head(&mut out, 5, 5);
            cbor_pairs(&mut out, &[(1, 2), (3, algorithm), (-1, ec.curve.clone() as i64)]);
            cbor_int(&mut out, -2);
            cbor_bytes(&mut out, &ec.x);
            cbor_int(&mut out, -3);
            cbor_bytes(&mut out, &ec.y);
        }
        COSEKeyType::EC_OKP(okp) => {
            cbor_head(&mut out, 5, 4);
            cbor_pairs(&mut out, &[(1, 1), (3, algorithm), (-1, okp.curve.clone() as i64)]);
            cbor_int(&mut out, -2);
            cbor_bytes(&mut out, &okp.x);
        }
        COSEKeyType::RSA(rsa) => {
            cbor_head(&mut out, 5, 4);
            cbor_pairs(&mut out, &[(1, 3), (3, algorithm)]);
            cbor_int(&mut out, -1);
            cbor_bytes(&mut out, &rsa.n);
            cbor_int(&mut out, -2);
            cbor_bytes(&mut out, &rsa.e);
        }
    }
    out
}

fn cbor_head(out: &mut Vec<u8>, major: u8, value: u64) {
    let major = major << 5;
    match value {
        0..=23 => out.push(major | value as u8),
        24..=0xff => out.extend([major | 24, value as u8]),
        0x100..=0xffff => {
            out.push(major | 25);
            out.extend((value as u16).to_be_bytes());
        }
        _ => {
            out.push(major | 26);
            out.extend((value as u32).to_be_bytes());
        }
    }
}

fn cbor_int(out: &mut Vec<u8>, value: i64) {
    if value >= 0 {
        cbor_head(out, 0, value as u64);
    } else {
        cbor_head(out, 1, (-1 - value) as u64);
    }
}

fn cbor_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    cbor_head(out, 2, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn cbor_pairs(out: &mut Vec<u8>, pairs: &[(i64, i64)]) {
    for (key, value) in pairs {
        cbor_int(out, *key);
        cbor_int(out, *value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Settings {
        #[command(flatten)]
        auth: AuthConfig,
    }

    fn config(args: &[&str]) -> AuthConfig {
        Settings::try_parse_from(std::iter::once("gateway").chain(args.iter().copied()))
            .expect("settings")
            .auth
    }

    #[test]
    fn the_relying_party_derives_from_the_site_url_unless_configured() {
        let cases: [(&[&str], &str, Option<&str>); 4] = [
            (&[], "https://shop.example/app", Some("https://shop.example")),
            (&[], "http://localhost:5173", Some("http://localhost:5173")),
            (
                &[
                    "--auth-webauthn-rp-id",
                    "example.com",
                    "--auth-webauthn-rp-origins",
                    "https://a.example.com",
                ],
                "https://shop.example",
                Some("https://a.example.com"),
            ),
            (&["--auth-webauthn-rp-id", "other.example"], "https://shop.example", None),
        ];
        for (args, site, first_origin) in cases {
            let party = relying_party(&config(args), site);
            match first_origin {
                Some(origin) => {
                    let party = party.unwrap_or_else(|_| panic!("{args:?} {site}"));
                    assert_eq!(party.get_allowed_origins()[0].as_str().trim_end_matches('/'), origin);
                }
                None => assert!(party.is_err(), "{args:?} {site}"),
            }
        }
    }

    #[test]
    fn cose_keys_are_cbor_maps_of_small_integers() {
        let mut out = Vec::new();
        cbor_pairs(&mut out, &[(1, 2), (3, -7), (-1, 1)]);
        assert_eq!(out, [0x01, 0x02, 0x03, 0x26, 0x20, 0x01]);
        let mut out = Vec::new();
        cbor_bytes(&mut out, &[0xaa; 32]);
        assert_eq!(out[..2], [0x58, 32]);
    }
}
