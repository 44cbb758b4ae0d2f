//! Settings of `/auth/v1`, flattened into the gateway's one [`Config`]
//! (`crate::config::Config`). Defaults are the Supabase CLI's
//! (`supabase/cli` `pkg/config/templates/config.toml`): one-hour access tokens,
//! rotation with a 10 s reuse window, passwords of at least 6 characters,
//! sign-ups open and confirmed at once, and GoTrue's per-address rate limits.

use std::net::IpAddr;

use clap::ArgAction;

#[derive(Clone, Debug, clap::Args)]
pub struct AuthConfig {
    /// Lifetime of access tokens in seconds (GoTrue's `JWT_EXP`). Keep it well
    /// above 90: supabase-js refreshes whenever less than 90 s are left.
    #[arg(long = "auth-jwt-expiry", env = "AUTH_JWT_EXPIRY", default_value_t = 3600)]
    pub jwt_expiry: u64,

    /// `iss` of the access tokens minted here (GoTrue's `JWT_ISSUER`).
    #[arg(
        long = "auth-jwt-issuer",
        env = "AUTH_JWT_ISSUER",
        default_value = "http://127.0.0.1:54321/auth/v1"
    )]
    pub jwt_issuer: String,

    /// Seconds during which a just-rotated refresh token may be presented again
    /// and still get the current pair (several tabs, a lost response). After
    /// that its reuse revokes the whole session.
    #[arg(
        long = "auth-refresh-token-reuse-interval",
        env = "AUTH_REFRESH_TOKEN_REUSE_INTERVAL",
        default_value_t = 10
    )]
    pub refresh_token_reuse_interval: u64,

    /// Shortest password accepted, in characters (GoTrue: at least 6).
    #[arg(long = "auth-password-min-length", env = "AUTH_PASSWORD_MIN_LENGTH", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(6..=72))]
    pub password_min_length: u32,

    /// Whether `POST /signup` creates users (`false` answers 422 `signup_disabled`).
    #[arg(long = "auth-signup-enabled", env = "AUTH_SIGNUP_ENABLED", default_value_t = true, action = ArgAction::Set)]
    pub signup_enabled: bool,

    /// Whether new e-mail users are confirmed at once and signed in by `/signup`
    /// (GoTrue's `MAILER_AUTOCONFIRM`). When false they get `confirmation_sent_at`
    /// and a confirmation mail (`crate::auth::mail`), and cannot sign in until
    /// they follow it or an administrator confirms them.
    #[arg(long = "auth-autoconfirm", env = "AUTH_AUTOCONFIRM", default_value_t = true, action = ArgAction::Set)]
    pub autoconfirm: bool,

    /// Password sign-ins plus sign-ups allowed per client address in 5 minutes
    /// (`0` turns the limit off).
    #[arg(
        long = "auth-rate-limit-sign-in-sign-ups",
        env = "AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS",
        default_value_t = 30
    )]
    pub rate_limit_sign_in_sign_ups: u32,

    /// Refresh-token grants allowed per client address in 5 minutes, sustained
    /// (`0` turns the limit off).
    #[arg(
        long = "auth-rate-limit-token-refresh",
        env = "AUTH_RATE_LIMIT_TOKEN_REFRESH",
        default_value_t = 150
    )]
    pub rate_limit_token_refresh: u32,

    /// Largest burst any limited endpoint accepts from one address (GoTrue's 30).
    #[arg(long = "auth-rate-limit-burst", env = "AUTH_RATE_LIMIT_BURST", default_value_t = 30)]
    pub rate_limit_burst: u32,

    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client
    /// (comma-separated). From anyone else the header is ignored, so it cannot
    /// be used to dodge the rate limits.
    #[arg(long = "auth-trusted-proxies", env = "AUTH_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<IpAddr>,

    #[command(flatten)]
    pub mail: super::mail::config::MailConfig,
}
