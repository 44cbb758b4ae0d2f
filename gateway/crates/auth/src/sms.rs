//! The parts of phone sign-in that do not touch the network or the database:
//! GoTrue's test OTPs and the standard-webhooks signature of the send-SMS hook.
//! The handlers and providers that use them are not built yet (docs/services/auth.md).

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// `AUTH_SMS_TEST_OTP` as GoTrue reads `GOTRUE_SMS_TEST_OTP`: `phone:otp,phone:otp`,
/// a map decoded by envconfig (https://github.com/kelseyhightower/envconfig, `Decode` of
/// `map[string]string`). Phones are stored without their `+`, as GoTrue's
/// `formatPhoneNumber` leaves them, so a lookup by the normalised phone finds them.
pub fn parse_test_otps(text: &str) -> Result<HashMap<String, String>, String> {
    let mut otps = HashMap::new();
    for pair in text.split(',').map(str::trim).filter(|pair| !pair.is_empty()) {
        let Some((phone, otp)) = pair.split_once(':') else {
            return Err(format!("invalid map item: {pair:?}"));
        };
        let phone = phone.trim().trim_start_matches('+').replace(' ', "");
        otps.insert(phone, otp.trim().to_owned());
    }
    Ok(otps)
}

/// One secret of `AUTH_HOOK_SEND_SMS_SECRETS`, `v1,whsec_<base64 key>`; GoTrue accepts
/// several separated by `|` and signs with each (internal/hooks/v0hooks, standard-webhooks
/// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md).
pub fn webhook_keys(secrets: &str) -> Result<Vec<Vec<u8>>, String> {
    secrets
        .split('|')
        .map(|secret| {
            let key = secret
                .trim()
                .strip_prefix("v1,whsec_")
                .ok_or_else(|| "a hook secret starts with v1,whsec_".to_owned())?;
            STANDARD.decode(key).map_err(|_| "a hook secret's key is not base64".to_owned())
        })
        .collect()
}

/// The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
/// for each key, space separated, as the standard-webhooks spec signs a message.
pub fn webhook_signature(keys: &[Vec<u8>], id: &str, timestamp: i64, body: &[u8]) -> String {
    keys.iter()
        .map(|key| {
            let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
            mac.update(format!("{id}.{timestamp}.").as_bytes());
            mac.update(body);
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_otps_are_read_as_gotrue_reads_them() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            ("", &[]),
            ("15551234567:123456", &[("15551234567", "123456")]),
            (
                "+1 5551234567:123456, 447700900000:000000",
                &[("15551234567", "123456"), ("447700900000", "000000")],
            ),
        ];
        for (text, want) in cases {
            let got = parse_test_otps(text).unwrap();
            let want: HashMap<String, String> =
                want.iter().map(|(p, o)| (p.to_string(), o.to_string())).collect();
            assert_eq!(got, want, "{text}");
        }
        assert!(parse_test_otps("15551234567").is_err());
    }

    #[test]
    fn the_hook_signature_matches_the_standard_webhooks_example() {
        // The worked example of the standard-webhooks spec and its reference libraries.
        let keys = webhook_keys("v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            webhook_signature(&keys, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn hook_secrets_need_their_prefix_and_base64() {
        assert!(webhook_keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_err());
        assert!(webhook_keys("v1,whsec_not base64!").is_err());
        assert_eq!(webhook_keys("v1,whsec_AAAA|v1,whsec_AQID").unwrap().len(), 2);
    }
}
