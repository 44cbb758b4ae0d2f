//! The SMS providers GoTrue speaks to, each through its own HTTP API
//! (supabase/auth `internal/api/sms_provider/twilio.go`, `twilio_verify.go`,
//! `messagebird.go`, `textlocal.go`, `vonage.go`): the same paths, headers and
//! form fields, against the provider's public URL or `AUTH_SMS_API_URL`.
//! A refusal comes back as the provider's own words, which GoTrue puts in
//! its `sms_send_failed` message.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::config::{SmsConfig, SmsProvider};

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client with a timeout")
    })
}

/// The client of the send-SMS hook: GoTrue gives an HTTP hook 5 seconds.
pub(crate) fn hook_client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client with a timeout")
    })
}

fn api_url(config: &SmsConfig, provider: SmsProvider) -> String {
    config.api_url.as_deref().unwrap_or(provider.default_api_url()).trim_end_matches('/').to_owned()
}

fn needed<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, String> {
    value.as_deref().filter(|v| !v.is_empty()).ok_or_else(|| format!("missing {name}"))
}

fn secret<'a>(value: &'a Option<gateway_core::config::Secret>, name: &str) -> Result<&'a str, String> {
    value.as_ref().map(|s| s.expose()).filter(|v| !v.is_empty()).ok_or_else(|| format!("missing {name}"))
}

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

/// POSTs a form; the status and the JSON answer (`Null` when not JSON).
async fn post(request: reqwest::RequestBuilder, body: String) -> Result<(u16, Value), String> {
    let response = request
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.map_err(|e| e.without_url().to_string())?;
    Ok((status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
}

fn text(value: &Value, key: &str) -> String {
    match &value[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Sends `message` (or, for Twilio Verify, asks Twilio to send its own code)
/// to `phone` (digits); the provider's message id.
pub async fn send(
    config: &SmsConfig,
    provider: SmsProvider,
    phone: &str,
    message: &str,
    channel: &str,
) -> Result<String, String> {
    let base = api_url(config, provider);
    match provider {
        SmsProvider::Twilio => {
            let sid = needed(&config.twilio_account_sid, "twilio account sid")?;
            let token = secret(&config.twilio_auth_token, "twilio auth token")?;
            let from = needed(&config.twilio_message_service_sid, "twilio message service sid")?;
            // WhatsApp messages name both ends `whatsapp:+…`.
            let (to, from) = if channel == "whatsapp" {
                (format!("whatsapp:+{phone}"), format!("whatsapp:{from}"))
            } else {
                (format!("+{phone}"), from.to_owned())
            };
            let url = format!("{base}/2010-04-01/Accounts/{sid}/Messages.json");
            let body = form(&[("To", &to), ("Channel", channel), ("From", &from), ("Body", message)]);
            let (status, answer) = post(client().post(url).basic_auth(sid, Some(token)), body).await?;
            if !(200..300).contains(&status) {
                return Err(format!(
                    "twilio error: {} (code {})",
                    text(&answer, "message"),
                    text(&answer, "code")
                ));
            }
            // Twilio accepts and then reports a failure in the message's status.
            let state = text(&answer, "status");
            if matches!(state.as_str(), "failed" | "undelivered") {
                return Err(format!(
                    "twilio error: {} {}",
                    text(&answer, "error_message"),
                    text(&answer, "error_code")
                ));
            }
            Ok(text(&answer, "sid"))
        }
        SmsProvider::TwilioVerify => {
            let sid = needed(&config.twilio_verify_account_sid, "twilio verify account sid")?;
            let token = secret(&config.twilio_verify_auth_token, "twilio verify auth token")?;
            let service = needed(&config.twilio_verify_message_service_sid, "twilio verify service sid")?;
            let url = format!("{base}/v2/Services/{service}/Verifications");
            let body = form(&[("To", &format!("+{phone}")), ("Channel", channel)]);
            let (status, answer) = post(client().post(url).basic_auth(sid, Some(token)), body).await?;
            if !(200..300).contains(&status) {
                return Err(format!(
                    "twilio verify error: {} (code {})",
                    text(&answer, "message"),
                    text(&answer, "code")
                ));
            }
            Ok(text(&answer, "sid"))
        }
        SmsProvider::Messagebird => {
            let key = secret(&config.messagebird_access_key, "messagebird access key")?;
            let originator = needed(&config.messagebird_originator, "messagebird originator")?;
            let body = form(&[
                ("originator", originator),
                ("body", message),
                ("recipients", phone),
                ("type", "sms"),
                ("datacoding", "unicode"),
            ]);
            let request =
                client().post(format!("{base}/messages")).header("Authorization", format!("AccessKey {key}"));
            let (status, answer) = post(request, body).await?;
            if !(200..300).contains(&status) {
                let first = &answer["errors"][0];
                return Err(format!(
                    "messagebird error: {} (code: {})",
                    text(first, "description"),
                    text(first, "code")
                ));
            }
            if answer["recipients"]["totalDeliveryFailedCount"].as_i64().unwrap_or(0) > 0 {
                return Err("messagebird error: the message was not delivered".to_owned());
            }
            Ok(text(&answer, "id"))
        }
        SmsProvider::Textlocal => {
            let key = secret(&config.textlocal_api_key, "textlocal api key")?;
            let sender = needed(&config.textlocal_sender, "textlocal sender")?;
            let body = form(&[("sender", sender), ("apikey", key), ("message", message), ("numbers", phone)]);
            let (_, answer) = post(client().post(format!("{base}/send")), body).await?;
            if text(&answer, "status") != "success" {
                let first = &answer["errors"][0];
                return Err(format!(
                    "textlocal error: {} (code: {})",
                    text(first, "message"),
                    text(first, "code")
                ));
            }
            Ok(answer["messages"][0]["id"].as_i64().map(|id| id.to_string()).unwrap_or_default())
        }
        SmsProvider::Vonage => {
            let key = needed(&config.vonage_api_key, "vonage api key")?;
            let api_secret = secret(&config.vonage_api_secret, "vonage api secret")?;
            let from = needed(&config.vonage_from, "vonage from")?;
            let mut pairs = vec![
                ("from", from),
                ("to", phone),
                ("text", message),
                ("api_key", key),
                ("api_secret", api_secret),
            ];
            // Vonage needs to be told when the text is not GSM-7 ASCII.
            if !message.is_ascii() {
                pairs.push(("type", "unicode"));
            }
            let (status, answer) = post(client().post(format!("{base}/sms/json")), form(&pairs)).await?;
            let first = &answer["messages"][0];
            if !(200..300).contains(&status) || text(first, "status") != "0" {
                return Err(format!(
                    "vonage error: {} (status: {})",
                    text(first, "error-text"),
                    text(first, "status")
                ));
            }
            Ok(text(first, "message-id"))
        }
    }
}

/// Twilio Verify checks a code it sent itself: whether `code` is right.
pub async fn verify_with_twilio(config: &SmsConfig, phone: &str, code: &str) -> Result<bool, String> {
    let base = api_url(config, SmsProvider::TwilioVerify);
    let sid = needed(&config.twilio_verify_account_sid, "twilio verify account sid")?;
    let token = secret(&config.twilio_verify_auth_token, "twilio verify auth token")?;
    let service = needed(&config.twilio_verify_message_service_sid, "twilio verify service sid")?;
    let url = format!("{base}/v2/Services/{service}/VerificationCheck");
    let body = form(&[("To", &format!("+{phone}")), ("Code", code)]);
    let (status, answer) = post(client().post(url).basic_auth(sid, Some(token)), body).await?;
    if !(200..300).contains(&status) {
        // Twilio answers 404 once a verification is used up or expired.
        return Ok(false);
    }
    Ok(text(&answer, "status") == "approved")
}
