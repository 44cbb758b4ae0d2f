//! Phone sign-in's codes (supabase/auth `internal/api/phone.go`
//! `sendPhoneConfirmation`, `sms_provider/`, `hooks/v0hooks`): one code per
//! request, sent by the configured provider ([`providers`]) or handed to the
//! send-SMS hook, and stored hashed as GoTrue stores it,
//! `hex(sha224(phone || code))`, in the `auth.users` column of its flow:
//! `confirmation_token` for a phone not yet confirmed, `recovery_token` for
//! a sign-in code, `phone_change_token` for a new number. Test OTPs
//! (`AUTH_SMS_TEST_OTP`) are stored the same way and never sent.
//!
//! Pacing is GoTrue's: a user gets one code per `AUTH_SMS_MAX_FREQUENCY` per
//! flow (checked before a test OTP too, so both behave alike), and all phones
//! together at most `AUTH_RATE_LIMIT_SMS_SENT` an hour unless autoconfirmed.

pub mod config;
pub mod providers;

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use uuid::Uuid;

use crate::AuthState;
use crate::error::AuthError;
use crate::hooks;
use crate::ratelimit::{self, Bucket};
use crate::store;
use config::{SendSmsHook, SmsConfig, SmsProvider};
use gateway_core::db::{Access, Session};
use gateway_core::error::ApiError;

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

/// The column a phone code is kept in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `confirmation_token`: a phone sign-up not yet confirmed.
    Confirmation,
    /// `recovery_token`: a sign-in code for a confirmed phone.
    Recovery,
    /// `phone_change_token`: the code sent to a new number.
    PhoneChange,
}

impl Slot {
    /// GoTrue's `otpType`, as its `sms_send_failed` message names it.
    fn otp_type(self) -> &'static str {
        match self {
            Slot::Confirmation | Slot::Recovery => "confirmation",
            Slot::PhoneChange => "phone_change",
        }
    }

    fn sent_at(self) -> &'static str {
        match self {
            Slot::Confirmation => "confirmation_sent_at",
            Slot::Recovery => "recovery_sent_at",
            Slot::PhoneChange => "phone_change_sent_at",
        }
    }
}

/// Whether phone sign-ups are confirmed at once: `AUTH_SMS_AUTOCONFIRM`,
/// else `AUTH_AUTOCONFIRM`.
pub fn autoconfirm(state: &AuthState) -> bool {
    state.config.sms.autoconfirm.unwrap_or(state.config.autoconfirm)
}

/// 422 `phone_provider_disabled` unless phones are enabled.
pub fn enabled(state: &AuthState) -> Result<(), AuthError> {
    if state.config.sms.phone_enabled {
        return Ok(());
    }
    Err(AuthError::unprocessable("phone_provider_disabled", "Unsupported phone provider"))
}

/// A channel GoTrue's `IsValidMessageChannel` accepts: `sms`, or `whatsapp`
/// with a Twilio provider.
pub fn channel(config: &SmsConfig, channel: Option<&str>) -> Result<&'static str, AuthError> {
    let twilio = matches!(config.provider, Some(SmsProvider::Twilio | SmsProvider::TwilioVerify));
    match channel.unwrap_or("sms") {
        "" | "sms" => Ok("sms"),
        "whatsapp" if twilio || config.hook_enabled => Ok("whatsapp"),
        _ => Err(AuthError::validation_failed(
            "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported with Twilio or Twilio Verify.",
        )),
    }
}

fn unable_to_get_provider() -> AuthError {
    AuthError::new(StatusCode::BAD_REQUEST, "sms_send_failed", "Unable to get SMS provider")
}

/// GoTrue's `over_sms_send_rate_limit` for the per-user pacing.
fn too_soon(seconds: i64) -> AuthError {
    AuthError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "over_sms_send_rate_limit",
        format!("For security purposes, you can only request this after {seconds} seconds."),
    )
}

fn test_otp<'a>(config: &'a SmsConfig, phone: &str) -> Option<&'a str> {
    config.test_otp.as_ref().and_then(|otps| otps.0.get(phone)).map(String::as_str)
}

/// Sends a code for `slot` to `phone` (digits) for `user_id` and records its
/// hash; the provider's message id (`test-otp` for a test OTP, empty from a
/// hook), which `/otp` and `/resend` answer with.
pub async fn send_code(
    state: &AuthState,
    user_id: Uuid,
    phone: &str,
    channel: &str,
    slot: Slot,
) -> Result<String, ApiError> {
    let config = &state.config.sms;
    let wait = format!(
        "select ceil($2 - extract(epoch from now() - {col})::float8)::bigint from auth.users \
         where id = $1 and {col} > now() - $2 * interval '1 second'",
        col = slot.sent_at()
    );
    let gap = config.max_frequency as f64;
    let mut session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(&wait, &[&user_id, &gap]).await?;
    session.commit().await?;
    if let Some(row) = rows.first() {
        let seconds: i64 = row.get(0);
        return Err(too_soon(seconds.max(1)).into());
    }
    let (code, message_id) = match test_otp(config, phone) {
        Some(code) => (code.to_owned(), "test-otp".to_owned()),
        None => {
            if !autoconfirm(state) {
                take_sms(state).await?;
            }
            let code = crate::mail::otp(phone, config.otp_length)?.code;
            let message_id = deliver(state, user_id, phone, channel, slot, &code).await?;
            (code, message_id)
        }
    };
    record(state, user_id, phone, slot, &crate::mail::token_hash(phone, &code)).await?;
    metrics::counter!("gateway_auth_sms_sent_total").increment(1);
    Ok(message_id)
}

/// One SMS from the hourly `AUTH_RATE_LIMIT_SMS_SENT` budget, or GoTrue's
/// 429 "SMS rate limit exceeded".
async fn take_sms(state: &AuthState) -> Result<(), ApiError> {
    match ratelimit::take(state, Bucket::SmsSent, None).await {
        Err(e) if e.as_service::<AuthError>().is_some_and(|e| e.code == "over_request_rate_limit") => {
            Err(AuthError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "over_sms_send_rate_limit",
                "SMS rate limit exceeded",
            )
            .into())
        }
        other => other,
    }
}

/// Hands `code` to the hook or the provider.
async fn deliver(
    state: &AuthState,
    user_id: Uuid,
    phone: &str,
    channel: &str,
    slot: Slot,
    code: &str,
) -> Result<String, ApiError> {
    let config = &state.config.sms;
    if config.hook_enabled {
        let hook = config.hook_uri.as_ref().ok_or_else(unable_to_get_provider)?;
        let user = store::find_user(&state.db, user_id).await?.ok_or_else(AuthError::user_not_found)?;
        // GoTrue's `SendSMSInput`: the user as `/user` shows it, and the code.
        let event = json!({ "user": user, "sms": { "otp": code } });
        send_by_hook(state, hook, &event).await?;
        return Ok(String::new());
    }
    let provider = config.provider.ok_or_else(unable_to_get_provider)?;
    let message = config.template.replace("{{ .Code }}", code).replace("{{.Code}}", code);
    providers::send(config, provider, phone, &message, channel).await.map_err(|error| {
        tracing::warn!(provider = provider.name(), %error, "SMS not sent");
        AuthError::unprocessable(
            "sms_send_failed",
            format!("Error sending {} OTP to provider: {error}", slot.otp_type()),
        )
        .into()
    })
}

async fn send_by_hook(state: &AuthState, hook: &SendSmsHook, event: &Value) -> Result<(), ApiError> {
    match hook {
        SendSmsHook::Function(function) => {
            let answer = hooks::call_function(&state.db, function, event, "send-SMS").await?;
            match hooks::refusal(&answer) {
                Some(refused) => Err(refused),
                None => Ok(()),
            }
        }
        SendSmsHook::Http(url) => {
            let body = serde_json::to_vec(event).map_err(ApiError::internal)?;
            let id = format!("msg_{}", Uuid::new_v4().simple());
            let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
            let secrets = state.config.sms.hook_secrets.as_ref().map(|s| s.expose()).unwrap_or("");
            let keys = webhook_keys(secrets).map_err(ApiError::internal)?;
            let failed = |cause: String| {
                tracing::error!(hook = %url, %cause, "the send-SMS hook failed");
                ApiError::internal("the send-SMS hook failed")
            };
            let response = providers::hook_client()
                .post(url)
                .header("content-type", "application/json")
                .header("webhook-id", &id)
                .header("webhook-timestamp", timestamp.to_string())
                .header("webhook-signature", webhook_signature(&keys, &id, timestamp, &body))
                .body(body)
                .send()
                .await
                .map_err(|e| failed(e.without_url().to_string()))?;
            let status = response.status();
            let bytes = response.bytes().await.map_err(|e| failed(e.without_url().to_string()))?;
            let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            if let Some(refused) = hooks::refusal(&answer) {
                return Err(refused);
            }
            if !status.is_success() {
                return Err(failed(format!("status {status}")));
            }
            Ok(())
        }
    }
}

/// Records a code's hash and when it was sent (and, for a change, the new
/// number), replacing any pending one of the slot.
async fn record(
    state: &AuthState,
    user_id: Uuid,
    phone: &str,
    slot: Slot,
    hash: &str,
) -> Result<(), ApiError> {
    const CONFIRMATION: &str = "update auth.users set confirmation_token = $2, confirmation_sent_at = now(), \
        updated_at = now() where id = $1";
    const RECOVERY: &str = "update auth.users set recovery_token = $2, recovery_sent_at = now(), \
        updated_at = now() where id = $1";
    const PHONE_CHANGE: &str = "update auth.users set phone_change = $3, phone_change_token = $2, \
        phone_change_sent_at = now(), updated_at = now() where id = $1";
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    match slot {
        Slot::Confirmation => session.query(CONFIRMATION, &[&user_id, &hash]).await?,
        Slot::Recovery => session.query(RECOVERY, &[&user_id, &hash]).await?,
        Slot::PhoneChange => session.query(PHONE_CHANGE, &[&user_id, &hash, &phone]).await?,
    };
    session.commit().await
}

/// A phone user as the SMS flows need it.
#[derive(Debug, Clone)]
pub struct PhoneUser {
    pub id: Uuid,
    pub phone_confirmed: bool,
    /// A pending new number.
    pub phone_change: Option<String>,
}

pub async fn by_phone(state: &AuthState, phone: &str) -> Result<Option<PhoneUser>, ApiError> {
    const FIND: &str = "select id, phone_confirmed_at is not null, nullif(phone_change, '') from auth.users \
        where phone = $1 and deleted_at is null and not is_sso_user limit 1";
    let mut session = state.db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(FIND, &[&phone]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| PhoneUser {
        id: row.get(0),
        phone_confirmed: row.get(1),
        phone_change: row.get(2),
    }))
}

/// Which code `/verify` is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// `type: sms`: a sign-up or sign-in code.
    Sms,
    /// `type: phone_change`: the code sent to a new number.
    PhoneChange,
}

/// Finds, inside `session`, the user `code` is valid for and uses it: the
/// phone is confirmed (or changed), the phone identity says so. `None` when
/// the code is wrong, used or expired. With Twilio Verify the code is
/// Twilio's to check (a test OTP excepted), and only the pending request is
/// looked for here.
pub async fn verify_code(
    state: &AuthState,
    session: &mut Session,
    kind: Verification,
    phone: &str,
    code: &str,
) -> Result<Option<Uuid>, ApiError> {
    const SMS: &str = "select id, \
          coalesce(confirmation_token <> '' and (confirmation_token = $2 or $4) \
            and confirmation_sent_at > now() - $3 * interval '1 second', false), \
          coalesce(recovery_token <> '' and (recovery_token = $2 or $4) \
            and recovery_sent_at > now() - $3 * interval '1 second', false) \
        from auth.users where phone = $1 and deleted_at is null for update";
    const CHANGE: &str = "select id, coalesce(phone_change_token <> '' and (phone_change_token = $2 or $4) \
            and phone_change_sent_at > now() - $3 * interval '1 second', false), false \
        from auth.users where phone_change = $1 and deleted_at is null for update";
    const CONFIRM: &str = "update auth.users set \
          confirmation_token = case when $2 then '' else confirmation_token end, \
          recovery_token = case when $2 then recovery_token else '' end, \
          phone_confirmed_at = coalesce(phone_confirmed_at, now()), updated_at = now() \
        where id = $1 returning phone";
    const CHANGE_PHONE: &str = "update auth.users set phone = phone_change, phone_change = '', \
          phone_change_token = '', phone_confirmed_at = now(), updated_at = now() \
        where id = $1 returning phone";
    // The phone identity, made for a user who had none (GoTrue's `UpdatePhone`),
    // and the provider listed in `app_metadata`.
    const IDENTITY: &str = "with updated as ( \
          update auth.identities set identity_data = identity_data \
            || jsonb_build_object('phone', $2::text, 'phone_verified', true), updated_at = now() \
          where user_id = $1 and provider = 'phone' returning 1), \
        inserted as ( \
          insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
          select $1::text, $1, jsonb_build_object('sub', $1::text, 'phone', $2::text, \
            'email_verified', false, 'phone_verified', true), 'phone', now(), now() \
          where not exists (select from updated) returning 1) \
        update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}', \
            coalesce(raw_app_meta_data->'providers', '[]') || '[\"phone\"]') \
        where id = $1 and exists (select from inserted) \
          and not coalesce(raw_app_meta_data->'providers', '[]') ? 'phone'";
    let config = &state.config.sms;
    let twilio_checks =
        config.provider == Some(SmsProvider::TwilioVerify) && test_otp(config, phone) != Some(code);
    let approved = if twilio_checks {
        providers::verify_with_twilio(config, phone, code).await.map_err(|error| {
            tracing::warn!(%error, "Twilio Verify could not check a code");
            AuthError::unprocessable("sms_send_failed", format!("Error verifying OTP with provider: {error}"))
        })?
    } else {
        false
    };
    if twilio_checks && !approved {
        return Ok(None);
    }
    let hash = crate::mail::token_hash(phone, code);
    let exp = config.otp_exp as f64;
    let sql = match kind {
        Verification::Sms => SMS,
        Verification::PhoneChange => CHANGE,
    };
    let rows = session.query(sql, &[&phone, &hash, &exp, &approved]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let (user_id, confirmation, recovery): (Uuid, bool, bool) = (row.get(0), row.get(1), row.get(2));
    if !confirmation && !recovery {
        return Ok(None);
    }
    let rows = match kind {
        Verification::Sms => session.query(CONFIRM, &[&user_id, &confirmation]).await?,
        Verification::PhoneChange => session.query(CHANGE_PHONE, &[&user_id]).await?,
    };
    let phone: Option<String> = rows.first().and_then(|r| r.get(0));
    session.query(IDENTITY, &[&user_id, &phone.unwrap_or_default()]).await?;
    Ok(Some(user_id))
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
