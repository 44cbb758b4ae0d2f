//! Settings of phone sign-in, flattened into [`crate::AuthConfig`]. Names are
//! GoTrue's (`SMS_*`, `EXTERNAL_PHONE_ENABLED`, `RATE_LIMIT_SMS_SENT`,
//! `HOOK_SEND_SMS_*`; supabase/auth `internal/conf/configuration.go`), prefixed
//! `AUTH_` as the rest of this section; defaults are GoTrue's unless said.

use std::collections::HashMap;
use std::str::FromStr;

use clap::ArgAction;

use crate::hooks::HookUri;
use gateway_core::config::Secret;

/// GoTrue's `SMS_PROVIDER` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SmsProvider {
    /// Twilio's Messages API.
    Twilio,
    /// Twilio Verify: Twilio makes and checks the code.
    #[value(name = "twilio_verify")]
    TwilioVerify,
    Messagebird,
    Textlocal,
    Vonage,
}

impl SmsProvider {
    pub fn name(self) -> &'static str {
        match self {
            SmsProvider::Twilio => "twilio",
            SmsProvider::TwilioVerify => "twilio_verify",
            SmsProvider::Messagebird => "messagebird",
            SmsProvider::Textlocal => "textlocal",
            SmsProvider::Vonage => "vonage",
        }
    }

    /// The provider's public API, which `AUTH_SMS_API_URL` replaces.
    pub fn default_api_url(self) -> &'static str {
        match self {
            SmsProvider::Twilio => "https://api.twilio.com",
            SmsProvider::TwilioVerify => "https://verify.twilio.com",
            SmsProvider::Messagebird => "https://rest.messagebird.com",
            SmsProvider::Textlocal => "https://api.txtlocal.com",
            SmsProvider::Vonage => "https://rest.nexmo.com",
        }
    }
}

/// `AUTH_SMS_TEST_OTP`: phone (digits) → the code accepted for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestOtps(pub HashMap<String, String>);

impl FromStr for TestOtps {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        super::parse_test_otps(text).map(TestOtps)
    }
}

/// Where the send-SMS hook is: a PostgreSQL function or an HTTP endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendSmsHook {
    Function(HookUri),
    Http(String),
}

impl FromStr for SendSmsHook {
    type Err = String;
    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        if uri.starts_with("pg-functions://") {
            return uri.parse().map(SendSmsHook::Function);
        }
        let url = reqwest::Url::parse(uri).map_err(|e| format!("{uri:?}: {e}"))?;
        // GoTrue's `ValidateExtensibilityPoint`: HTTPS, or HTTP to this machine.
        let loopback = matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]" | "::1"));
        match url.scheme() {
            "https" => Ok(SendSmsHook::Http(uri.to_owned())),
            "http" if loopback => Ok(SendSmsHook::Http(uri.to_owned())),
            _ => Err(format!("{uri:?} is neither pg-functions:// nor https:// (http only to localhost)")),
        }
    }
}

#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Auth phone")]
pub struct SmsConfig {
    /// Whether phones sign up and sign in at all (GoTrue's
    /// `EXTERNAL_PHONE_ENABLED`, there off by default; on here, where phone and
    /// password sign-ups predate SMS). Off: 422 `phone_provider_disabled`.
    #[arg(id = "auth_external_phone_enabled", long = "auth-external-phone-enabled", env = "AUTH_EXTERNAL_PHONE_ENABLED", default_value_t = true,
          action = ArgAction::Set)]
    pub phone_enabled: bool,

    /// Whether new phone users are confirmed at once (GoTrue's
    /// `SMS_AUTOCONFIRM`). Unset: `AUTH_AUTOCONFIRM`.
    #[arg(id = "auth_sms_autoconfirm", long = "auth-sms-autoconfirm", env = "AUTH_SMS_AUTOCONFIRM", action = ArgAction::Set)]
    pub autoconfirm: Option<bool>,

    /// Who sends the codes (GoTrue's `SMS_PROVIDER`): `twilio`,
    /// `twilio_verify`, `messagebird`, `textlocal` or `vonage`. Unset, and no
    /// send-SMS hook: phone codes answer 400 `sms_send_failed`.
    #[arg(id = "auth_sms_provider", long = "auth-sms-provider", env = "AUTH_SMS_PROVIDER", value_enum)]
    pub provider: Option<SmsProvider>,

    /// Base URL of the provider's API in place of its public one (a regional
    /// endpoint, a proxy, a test double).
    #[arg(id = "auth_sms_api_url", long = "auth-sms-api-url", env = "AUTH_SMS_API_URL")]
    pub api_url: Option<String>,

    /// The text sent, where `{{ .Code }}` is the code (GoTrue's `SMS_TEMPLATE`).
    #[arg(
        id = "auth_sms_template",
        long = "auth-sms-template",
        env = "AUTH_SMS_TEMPLATE",
        default_value = "Your code is {{ .Code }}"
    )]
    pub template: String,

    /// Seconds a code stays valid (GoTrue's `SMS_OTP_EXP`).
    #[arg(
        id = "auth_sms_otp_exp",
        long = "auth-sms-otp-exp",
        env = "AUTH_SMS_OTP_EXP",
        default_value_t = 60
    )]
    pub otp_exp: u64,

    /// Digits of a code (GoTrue's `SMS_OTP_LENGTH`).
    #[arg(id = "auth_sms_otp_length", long = "auth-sms-otp-length", env = "AUTH_SMS_OTP_LENGTH", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(6..=10))]
    pub otp_length: u32,

    /// Seconds before another code may go to the same user (GoTrue's
    /// `SMS_MAX_FREQUENCY`); sooner is 429 `over_sms_send_rate_limit`.
    #[arg(
        id = "auth_sms_max_frequency",
        long = "auth-sms-max-frequency",
        env = "AUTH_SMS_MAX_FREQUENCY",
        default_value_t = 60
    )]
    pub max_frequency: u64,

    /// Phones whose code is fixed and never sent, `phone:code,phone:code`
    /// (GoTrue's `SMS_TEST_OTP`): for tests and app-store reviewers.
    #[arg(id = "auth_sms_test_otp", long = "auth-sms-test-otp", env = "AUTH_SMS_TEST_OTP")]
    pub test_otp: Option<TestOtps>,

    /// Codes sent per hour, all phones together (GoTrue's
    /// `RATE_LIMIT_SMS_SENT`; `0` turns the limit off). Not applied while
    /// phone sign-ups are autoconfirmed, as in GoTrue.
    #[arg(
        id = "auth_rate_limit_sms_sent",
        long = "auth-rate-limit-sms-sent",
        env = "AUTH_RATE_LIMIT_SMS_SENT",
        default_value_t = 30
    )]
    pub rate_limit_sms_sent: u32,

    /// Twilio account SID (GoTrue's `SMS_TWILIO_ACCOUNT_SID`).
    #[arg(
        id = "auth_sms_twilio_account_sid",
        long = "auth-sms-twilio-account-sid",
        env = "AUTH_SMS_TWILIO_ACCOUNT_SID"
    )]
    pub twilio_account_sid: Option<String>,
    /// Twilio auth token (GoTrue's `SMS_TWILIO_AUTH_TOKEN`).
    #[arg(
        id = "auth_sms_twilio_auth_token",
        long = "auth-sms-twilio-auth-token",
        env = "AUTH_SMS_TWILIO_AUTH_TOKEN",
        hide_env_values = true
    )]
    pub twilio_auth_token: Option<Secret>,
    /// The sender: a Messaging Service SID or a number (GoTrue's
    /// `SMS_TWILIO_MESSAGE_SERVICE_SID`).
    #[arg(
        id = "auth_sms_twilio_message_service_sid",
        long = "auth-sms-twilio-message-service-sid",
        env = "AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID"
    )]
    pub twilio_message_service_sid: Option<String>,

    /// Twilio Verify account SID (GoTrue's `SMS_TWILIO_VERIFY_ACCOUNT_SID`).
    #[arg(
        id = "auth_sms_twilio_verify_account_sid",
        long = "auth-sms-twilio-verify-account-sid",
        env = "AUTH_SMS_TWILIO_VERIFY_ACCOUNT_SID"
    )]
    pub twilio_verify_account_sid: Option<String>,
    /// Twilio Verify auth token (GoTrue's `SMS_TWILIO_VERIFY_AUTH_TOKEN`).
    #[arg(
        id = "auth_sms_twilio_verify_auth_token",
        long = "auth-sms-twilio-verify-auth-token",
        env = "AUTH_SMS_TWILIO_VERIFY_AUTH_TOKEN",
        hide_env_values = true
    )]
    pub twilio_verify_auth_token: Option<Secret>,
    /// The Verify service SID (GoTrue's `SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID`).
    #[arg(
        id = "auth_sms_twilio_verify_message_service_sid",
        long = "auth-sms-twilio-verify-message-service-sid",
        env = "AUTH_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID"
    )]
    pub twilio_verify_message_service_sid: Option<String>,

    /// MessageBird access key (GoTrue's `SMS_MESSAGEBIRD_ACCESS_KEY`).
    #[arg(
        id = "auth_sms_messagebird_access_key",
        long = "auth-sms-messagebird-access-key",
        env = "AUTH_SMS_MESSAGEBIRD_ACCESS_KEY",
        hide_env_values = true
    )]
    pub messagebird_access_key: Option<Secret>,
    /// MessageBird sender (GoTrue's `SMS_MESSAGEBIRD_ORIGINATOR`).
    #[arg(
        id = "auth_sms_messagebird_originator",
        long = "auth-sms-messagebird-originator",
        env = "AUTH_SMS_MESSAGEBIRD_ORIGINATOR"
    )]
    pub messagebird_originator: Option<String>,

    /// Textlocal API key (GoTrue's `SMS_TEXTLOCAL_API_KEY`).
    #[arg(
        id = "auth_sms_textlocal_api_key",
        long = "auth-sms-textlocal-api-key",
        env = "AUTH_SMS_TEXTLOCAL_API_KEY",
        hide_env_values = true
    )]
    pub textlocal_api_key: Option<Secret>,
    /// Textlocal sender (GoTrue's `SMS_TEXTLOCAL_SENDER`).
    #[arg(
        id = "auth_sms_textlocal_sender",
        long = "auth-sms-textlocal-sender",
        env = "AUTH_SMS_TEXTLOCAL_SENDER"
    )]
    pub textlocal_sender: Option<String>,

    /// Vonage API key (GoTrue's `SMS_VONAGE_API_KEY`).
    #[arg(id = "auth_sms_vonage_api_key", long = "auth-sms-vonage-api-key", env = "AUTH_SMS_VONAGE_API_KEY")]
    pub vonage_api_key: Option<String>,
    /// Vonage API secret (GoTrue's `SMS_VONAGE_API_SECRET`).
    #[arg(
        id = "auth_sms_vonage_api_secret",
        long = "auth-sms-vonage-api-secret",
        env = "AUTH_SMS_VONAGE_API_SECRET",
        hide_env_values = true
    )]
    pub vonage_api_secret: Option<Secret>,
    /// Vonage sender (GoTrue's `SMS_VONAGE_FROM`).
    #[arg(id = "auth_sms_vonage_from", long = "auth-sms-vonage-from", env = "AUTH_SMS_VONAGE_FROM")]
    pub vonage_from: Option<String>,

    /// Whether the send-SMS hook sends the codes instead of the provider
    /// (GoTrue's `HOOK_SEND_SMS_ENABLED`).
    #[arg(id = "auth_hook_send_sms_enabled", long = "auth-hook-send-sms-enabled", env = "AUTH_HOOK_SEND_SMS_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub hook_enabled: bool,
    /// The hook (GoTrue's `HOOK_SEND_SMS_URI`): `pg-functions://postgres/<schema>/<function>`,
    /// or an `https://` endpoint (`http://` only to localhost).
    #[arg(id = "auth_hook_send_sms_uri", long = "auth-hook-send-sms-uri", env = "AUTH_HOOK_SEND_SMS_URI")]
    pub hook_uri: Option<SendSmsHook>,
    /// Standard-webhooks secrets an HTTP hook's requests are signed with,
    /// `v1,whsec_<base64>` separated by `|` (GoTrue's `HOOK_SEND_SMS_SECRETS`).
    #[arg(
        id = "auth_hook_send_sms_secrets",
        long = "auth-hook-send-sms-secrets",
        env = "AUTH_HOOK_SEND_SMS_SECRETS",
        hide_env_values = true
    )]
    pub hook_secrets: Option<Secret>,
}
