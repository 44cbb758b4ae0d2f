//! Settings of the e-mail flows, flattened into
//! [`crate::AuthConfig`]. Names follow GoTrue's (`SMTP_*`, `MAILER_*`,
//! `RATE_LIMIT_*`, `URI_ALLOW_LIST`), prefixed `AUTH_`; defaults are GoTrue's
//! (supabase/auth `internal/conf/configuration.go`). The site URL is the
//! gateway's `SITE_URL`, shared with the rest of the gateway.

use std::path::PathBuf;

use clap::ArgAction;

use gateway_core::config::Secret;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SmtpTls {
    /// Plain SMTP (a relay on the same host, a test sink).
    None,
    /// Plain connection upgraded with STARTTLS, which must succeed (port 587).
    Starttls,
    /// TLS from the first byte ("SMTPS", port 465).
    Tls,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MailLanguage {
    Es,
    En,
}

#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Auth mail")]
pub struct MailConfig {
    /// SMTP server (GoTrue's `SMTP_HOST`). Unset: no mail leaves the gateway;
    /// each one is logged without its links or codes, as GoTrue's no-op mailer
    /// does, and confirmations are still required.
    #[arg(long = "auth-smtp-host", env = "AUTH_SMTP_HOST")]
    pub smtp_host: Option<String>,

    /// SMTP port (GoTrue's `SMTP_PORT`).
    #[arg(long = "auth-smtp-port", env = "AUTH_SMTP_PORT", default_value_t = 587)]
    pub smtp_port: u16,

    /// SMTP user name; with `AUTH_SMTP_PASS` the gateway authenticates.
    #[arg(long = "auth-smtp-user", env = "AUTH_SMTP_USER")]
    pub smtp_user: Option<String>,

    /// SMTP password (GoTrue's `SMTP_PASS`).
    #[arg(long = "auth-smtp-pass", env = "AUTH_SMTP_PASS")]
    pub smtp_pass: Option<Secret>,

    /// How the SMTP connection is secured: `none`, `starttls` or `tls`.
    #[arg(long = "auth-smtp-tls", env = "AUTH_SMTP_TLS", value_enum, default_value = "starttls")]
    pub smtp_tls: SmtpTls,

    /// The sender address (GoTrue's `SMTP_ADMIN_EMAIL`).
    #[arg(
        long = "auth-smtp-admin-email",
        env = "AUTH_SMTP_ADMIN_EMAIL",
        default_value = "no-reply@localhost"
    )]
    pub smtp_admin_email: String,

    /// The sender's display name (GoTrue's `SMTP_SENDER_NAME`).
    #[arg(long = "auth-smtp-sender-name", env = "AUTH_SMTP_SENDER_NAME", default_value = "")]
    pub smtp_sender_name: String,

    /// Seconds before another mail may go to the same address (GoTrue's
    /// `SMTP_MAX_FREQUENCY`); sooner is 429 `over_email_send_rate_limit`.
    #[arg(long = "auth-smtp-max-frequency", env = "AUTH_SMTP_MAX_FREQUENCY", default_value_t = 60)]
    pub smtp_max_frequency: u64,

    /// Language of the built-in templates: `es` (the shop's) or `en`.
    #[arg(long = "auth-mailer-language", env = "AUTH_MAILER_LANGUAGE", value_enum, default_value = "es")]
    pub mailer_language: MailLanguage,

    /// Directory of templates replacing the built-in ones, each optional:
    /// `confirmation.html`, `recovery.html`, `magic_link.html`, `invite.html`,
    /// `email_change.html`, `reauthentication.html` (GoTrue's
    /// `MAILER_TEMPLATES_*`, as files).
    #[arg(long = "auth-mailer-templates-dir", env = "AUTH_MAILER_TEMPLATES_DIR")]
    pub mailer_templates_dir: Option<PathBuf>,

    /// Seconds a mailed link or code stays valid (GoTrue's `MAILER_OTP_EXP`).
    #[arg(long = "auth-mailer-otp-exp", env = "AUTH_MAILER_OTP_EXP", default_value_t = 3600)]
    pub mailer_otp_exp: u64,

    /// Digits of mailed codes (GoTrue's `MAILER_OTP_LENGTH`).
    #[arg(long = "auth-mailer-otp-length", env = "AUTH_MAILER_OTP_LENGTH", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(6..=10))]
    pub mailer_otp_length: u32,

    /// A change of e-mail must be confirmed from both addresses (GoTrue's
    /// `MAILER_SECURE_EMAIL_CHANGE_ENABLED`); false: the new one only.
    #[arg(long = "auth-mailer-secure-email-change-enabled", env = "AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED",
          default_value_t = true, action = ArgAction::Set)]
    pub secure_email_change_enabled: bool,

    /// `PUT /user` with a password needs the `nonce` of `/reauthenticate`
    /// (GoTrue's `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`).
    #[arg(long = "auth-secure-password-change", env = "AUTH_SECURE_PASSWORD_CHANGE",
          default_value_t = false, action = ArgAction::Set)]
    pub secure_password_change: bool,

    /// Mails the gateway sends per hour, all addresses together (GoTrue's
    /// `RATE_LIMIT_EMAIL_SENT`; `0` turns the limit off).
    #[arg(long = "auth-rate-limit-email-sent", env = "AUTH_RATE_LIMIT_EMAIL_SENT", default_value_t = 30)]
    pub rate_limit_email_sent: u32,

    /// `/otp` and `/recover` requests per client address in 5 minutes (GoTrue's
    /// `RATE_LIMIT_OTP`; `0` turns the limit off).
    #[arg(long = "auth-rate-limit-otp", env = "AUTH_RATE_LIMIT_OTP", default_value_t = 30)]
    pub rate_limit_otp: u32,

    /// `/verify` attempts per client address in 5 minutes (GoTrue's
    /// `RATE_LIMIT_VERIFY`): what bounds guessing of codes.
    #[arg(long = "auth-rate-limit-verify", env = "AUTH_RATE_LIMIT_VERIFY", default_value_t = 30)]
    pub rate_limit_verify: u32,
}
