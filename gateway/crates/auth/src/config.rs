//! Settings of `/auth/v1`: the "Auth" section of the gateway's
//! configuration (the binary flattens it into its one struct). Defaults are the Supabase CLI's
//! (`supabase/cli` `pkg/config/templates/config.toml`): one-hour access tokens,
//! rotation with a 10 s reuse window, passwords of at least 6 characters,
//! sign-ups open and confirmed at once, and GoTrue's per-address rate limits.

use std::net::IpAddr;

use clap::ArgAction;

#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Auth")]
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
    /// and a confirmation mail (`crate::mail`), and cannot sign in until
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

    /// Whether `POST /signup` without e-mail or phone (`signInAnonymously`)
    /// creates an anonymous user (GoTrue's `EXTERNAL_ANONYMOUS_USERS_ENABLED`);
    /// off answers 422 `anonymous_provider_disabled`.
    #[arg(long = "auth-anonymous-users-enabled", env = "AUTH_ANONYMOUS_USERS_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub anonymous_users_enabled: bool,

    /// Anonymous sign-ins allowed per client address in an hour (GoTrue's
    /// `RATE_LIMIT_ANONYMOUS_USERS`; `0` turns the limit off).
    #[arg(
        long = "auth-rate-limit-anonymous-users",
        env = "AUTH_RATE_LIMIT_ANONYMOUS_USERS",
        default_value_t = 30
    )]
    pub rate_limit_anonymous_users: u32,

    /// Whether TOTP factors can be enrolled and verified (GoTrue's
    /// `MFA_TOTP_ENROLL_ENABLED` and `MFA_TOTP_VERIFY_ENABLED`).
    #[arg(long = "auth-mfa-totp-enabled", env = "AUTH_MFA_TOTP_ENABLED", default_value_t = true,
          action = ArgAction::Set)]
    pub mfa_totp_enabled: bool,

    /// Most factors, verified or not, one user may have (GoTrue's `MFA_MAX_ENROLLED_FACTORS`).
    #[arg(
        long = "auth-mfa-max-enrolled-factors",
        env = "AUTH_MFA_MAX_ENROLLED_FACTORS",
        default_value_t = 10
    )]
    pub mfa_max_enrolled_factors: u32,

    /// Most verified factors one user may have (GoTrue's `MFA_MAX_VERIFIED_FACTORS`).
    #[arg(
        long = "auth-mfa-max-verified-factors",
        env = "AUTH_MFA_MAX_VERIFIED_FACTORS",
        default_value_t = 10
    )]
    pub mfa_max_verified_factors: u32,

    /// Seconds a challenge can be verified after it was made (GoTrue's
    /// `MFA_CHALLENGE_EXPIRY_DURATION`).
    #[arg(long = "auth-mfa-challenge-expiry", env = "AUTH_MFA_CHALLENGE_EXPIRY", default_value_t = 300)]
    pub mfa_challenge_expiry: u64,

    /// Challenges plus verifications allowed per client address in a minute
    /// (GoTrue's `MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`; `0` turns it off). With
    /// six digits this caps guessing at 15 codes a minute from one address;
    /// every challenge also takes at most [`MFA_ATTEMPTS_PER_CHALLENGE`] codes.
    #[arg(
        long = "auth-mfa-rate-limit-challenge-and-verify",
        env = "AUTH_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY",
        default_value_t = 15
    )]
    pub mfa_rate_limit_challenge_and_verify: u32,

    /// Key the TOTP secrets are sealed with in `auth.mfa_factors` (AES-256-GCM
    /// under a key derived from it). When absent the JWT secret is used, as for
    /// the signing keys' private halves; changing it makes enrolled factors
    /// unusable.
    #[arg(long = "auth-mfa-encryption-key", env = "AUTH_MFA_ENCRYPTION_KEY", hide_env_values = true)]
    pub mfa_encryption_key: Option<gateway_core::config::Secret>,

    /// The custom access-token hook, as GoTrue's `HOOK_CUSTOM_ACCESS_TOKEN_URI`:
    /// `pg-functions://postgres/<schema>/<function>`, a function taking and
    /// returning `jsonb`, called before every access token is issued.
    #[arg(long = "auth-hook-custom-access-token-uri", env = "AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI")]
    pub hook_custom_access_token_uri: Option<super::hooks::HookUri>,
    /// Where sign-in flows send the browser back when `redirect_to` is absent
    /// or not allowed (GoTrue's `SITE_URL`). Unset: the gateway's `SITE_URL`.
    #[arg(id = "auth_site_url", long = "auth-site-url", env = "AUTH_SITE_URL")]
    pub site_url: Option<String>,

    /// Further URLs `redirect_to` may name, for mailed links and sign-in
    /// flows alike, comma-separated globs (GoTrue's `URI_ALLOW_LIST`): an
    /// entry without wildcards allows that address only; `*` matches within
    /// one host label or path segment, `**` anything (`crate::redirect`).
    #[arg(long = "auth-uri-allow-list", env = "AUTH_URI_ALLOW_LIST", value_delimiter = ',')]
    pub uri_allow_list: Vec<String>,

    /// The public URL of `/auth/v1` (GoTrue's `API_EXTERNAL_URL`): providers
    /// send the browser back to `<this>/callback`, which must be registered
    /// with them. Unset: `AUTH_JWT_ISSUER`.
    #[arg(long = "auth-external-url", env = "AUTH_EXTERNAL_URL")]
    pub external_url: Option<String>,

    /// OpenID Connect providers users may sign in with, separated by `;`, each
    /// `name|issuer URL|client id|client secret` (docs/services/auth.md, "OAuth and
    /// OpenID Connect providers"). The name is what `signInWithOAuth` and
    /// `signInWithIdToken` pass as `provider`.
    #[arg(long = "auth-oidc-providers", env = "AUTH_OIDC_PROVIDERS", value_delimiter = ';')]
    pub oidc_providers: Vec<super::oidc::ProviderConfig>,

    /// Whether signed-in users may link further identities themselves
    /// (`linkIdentity`, GoTrue's `SECURITY_MANUAL_LINKING_ENABLED`).
    #[arg(
        long = "auth-security-manual-linking-enabled",
        env = "AUTH_SECURITY_MANUAL_LINKING_ENABLED",
        default_value_t = false,
        action = ArgAction::Set
    )]
    pub manual_linking_enabled: bool,
    /// Whether `/auth/v1` demands an API key, as hosted Supabase's gateway
    /// does. `false` lets a request that carries no `apikey` through as the
    /// Supabase CLI's local Kong does (its `auth-v1` route has no `key-auth`,
    /// supabase/cli `internal/start/templates/kong.yml`): GoTrue then reads
    /// only the bearer, and a caller without one is anonymous. A key that is
    /// present is still checked.
    #[arg(long = "auth-api-key-required", env = "AUTH_API_KEY_REQUIRED", default_value_t = true,
          action = ArgAction::Set)]
    pub api_key_required: bool,

    /// Whether `/passkeys/*` serve: users register passkeys and sign in
    /// with them (GoTrue's `PASSKEY_ENABLED`); off answers 404
    /// `passkey_disabled`.
    #[arg(long = "auth-passkey-enabled", env = "AUTH_PASSKEY_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub passkey_enabled: bool,

    /// Most passkeys one user may register (GoTrue's `PASSKEY_MAX_PASSKEYS_PER_USER`).
    #[arg(
        long = "auth-passkey-max-passkeys-per-user",
        env = "AUTH_PASSKEY_MAX_PASSKEYS_PER_USER",
        default_value_t = 10
    )]
    pub passkey_max_passkeys_per_user: u32,

    /// Whether WebAuthn MFA factors can be enrolled and verified (GoTrue's
    /// `MFA_WEB_AUTHN_ENROLL_ENABLED` and `MFA_WEB_AUTHN_VERIFY_ENABLED`).
    #[arg(long = "auth-mfa-webauthn-enabled", env = "AUTH_MFA_WEBAUTHN_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub mfa_webauthn_enabled: bool,

    /// The WebAuthn relying party's id, a registrable domain the origins are
    /// on (GoTrue's `WEBAUTHN_RP_ID`). Passkeys are bound to it: changing it
    /// makes every registered one unusable. Unset: the site URL's host.
    #[arg(long = "auth-webauthn-rp-id", env = "AUTH_WEBAUTHN_RP_ID")]
    pub webauthn_rp_id: Option<String>,

    /// Origins WebAuthn ceremonies may come from, comma-separated
    /// (GoTrue's `WEBAUTHN_RP_ORIGINS`), each on the relying party's domain.
    /// Unset: the site URL's origin.
    #[arg(long = "auth-webauthn-rp-origins", env = "AUTH_WEBAUTHN_RP_ORIGINS", value_delimiter = ',')]
    pub webauthn_rp_origins: Vec<String>,

    /// The relying party's name browsers show (GoTrue's
    /// `WEBAUTHN_RP_DISPLAY_NAME`). Unset: the relying party's id.
    #[arg(long = "auth-webauthn-rp-display-name", env = "AUTH_WEBAUTHN_RP_DISPLAY_NAME")]
    pub webauthn_rp_display_name: Option<String>,

    /// Seconds a passkey registration or sign-in may take between its
    /// options and its verification (GoTrue's
    /// `WEBAUTHN_CHALLENGE_EXPIRY_DURATION`). WebAuthn MFA challenges use
    /// `AUTH_MFA_CHALLENGE_EXPIRY`, as TOTP's.
    #[arg(
        long = "auth-webauthn-challenge-expiry",
        env = "AUTH_WEBAUTHN_CHALLENGE_EXPIRY",
        default_value_t = 300
    )]
    pub webauthn_challenge_expiry: u64,
    /// Whether `signInWithWeb3({ chain: 'ethereum' })` signs in: a Sign-In with
    /// Ethereum (EIP-4361) message and its personal_sign signature
    /// (GoTrue's `EXTERNAL_WEB3_ETHEREUM_ENABLED`; `crate::web3`).
    #[arg(long = "auth-web3-ethereum-enabled", env = "AUTH_WEB3_ETHEREUM_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub web3_ethereum_enabled: bool,

    /// Seconds a signed Ethereum message stays usable after its `Issued At`,
    /// and how far ahead that may be (GoTrue's
    /// `EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION`, 10 minutes).
    #[arg(
        long = "auth-web3-ethereum-maximum-validity",
        env = "AUTH_WEB3_ETHEREUM_MAXIMUM_VALIDITY",
        default_value_t = 600
    )]
    pub web3_ethereum_maximum_validity: u64,

    /// Whether `signInWithWeb3({ chain: 'solana' })` signs in: a Sign-In with
    /// Solana message and its ed25519 signature (GoTrue's
    /// `EXTERNAL_WEB3_SOLANA_ENABLED`; `crate::web3`).
    #[arg(long = "auth-web3-solana-enabled", env = "AUTH_WEB3_SOLANA_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub web3_solana_enabled: bool,

    /// Seconds a signed Solana message stays usable after its `Issued At`, and
    /// how far ahead that may be (GoTrue's
    /// `EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION`, 10 minutes).
    #[arg(
        long = "auth-web3-solana-maximum-validity",
        env = "AUTH_WEB3_SOLANA_MAXIMUM_VALIDITY",
        default_value_t = 600
    )]
    pub web3_solana_maximum_validity: u64,

    /// Web3 sign-ins allowed per client address in 5 minutes (GoTrue's
    /// `RATE_LIMIT_WEB3`; `0` turns the limit off).
    #[arg(long = "auth-rate-limit-web3", env = "AUTH_RATE_LIMIT_WEB3", default_value_t = 30)]
    pub rate_limit_web3: u32,

    /// Whether `/auth/v1` acts as an OAuth 2.1 authorization server for
    /// third-party apps (GoTrue's `OAUTH_SERVER_ENABLED`): `/oauth/authorize`,
    /// `/oauth/token`, the consent and client routes (`crate::oauth_server`).
    /// Off, they answer 404 `feature_disabled`.
    #[arg(long = "auth-oauth-server-enabled", env = "AUTH_OAUTH_SERVER_ENABLED", default_value_t = false,
          action = ArgAction::Set)]
    pub oauth_server_enabled: bool,

    /// Path on the site (`AUTH_SITE_URL`) of the app's consent screen, where
    /// `/oauth/authorize` sends the browser with `?authorization_id=`
    /// (GoTrue's `OAUTH_SERVER_AUTHORIZATION_PATH`). Unset, the client is sent
    /// back with `error=server_error`.
    #[arg(long = "auth-oauth-server-authorization-path", env = "AUTH_OAUTH_SERVER_AUTHORIZATION_PATH")]
    pub oauth_server_authorization_path: Option<String>,

    /// Whether anyone may register a client at `/oauth/clients/register`
    /// (RFC 7591; GoTrue's `OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION`).
    #[arg(
        long = "auth-oauth-server-allow-dynamic-registration",
        env = "AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION",
        default_value_t = false,
        action = ArgAction::Set
    )]
    pub oauth_server_allow_dynamic_registration: bool,

    /// Seconds an authorization request, and the code its approval gives,
    /// stay usable (GoTrue's `OAUTH_SERVER_AUTHORIZATION_TTL`, 10 minutes).
    #[arg(
        long = "auth-oauth-server-authorization-ttl",
        env = "AUTH_OAUTH_SERVER_AUTHORIZATION_TTL",
        default_value_t = 600
    )]
    pub oauth_server_authorization_ttl: u64,

    /// Whether SAML 2.0 single sign-on is on (GoTrue's `SAML_ENABLED`):
    /// `POST /sso`, `/sso/saml/acs` and `/sso/saml/metadata` (`crate::saml`).
    /// Off, they answer 404 `saml_provider_disabled`; `/admin/sso/providers`
    /// answers either way, as upstream. On, `AUTH_SAML_PRIVATE_KEY` is required.
    #[arg(long = "auth-saml-enabled", env = "AUTH_SAML_ENABLED", default_value_t = false, action = ArgAction::Set)]
    pub saml_enabled: bool,

    /// The service provider's RSA private key (GoTrue's `SAML_PRIVATE_KEY`):
    /// base64 of its DER (PKCS#1, as `openssl genrsa -traditional 2048 |
    /// openssl rsa -outform DER | base64 -w0` prints it, or PKCS#8), or PEM.
    /// It signs the authentication requests; the metadata publishes a
    /// self-signed certificate of it.
    #[arg(long = "auth-saml-private-key", env = "AUTH_SAML_PRIVATE_KEY", hide_env_values = true)]
    pub saml_private_key: Option<gateway_core::config::Secret>,

    /// The public URL of `/auth/v1` as identity providers know it (GoTrue's
    /// `SAML_EXTERNAL_URL`): the entity ID is `<this>/sso/saml/metadata`, the
    /// assertion consumer service `<this>/sso/saml/acs`. Unset:
    /// `AUTH_EXTERNAL_URL`, else `AUTH_JWT_ISSUER`.
    #[arg(long = "auth-saml-external-url", env = "AUTH_SAML_EXTERNAL_URL")]
    pub saml_external_url: Option<String>,

    /// Seconds from `POST /sso` within which the identity provider must post
    /// its answer (GoTrue's `SAML_RELAY_STATE_VALIDITY_PERIOD`, 2 minutes).
    #[arg(
        long = "auth-saml-relay-state-validity-period",
        env = "AUTH_SAML_RELAY_STATE_VALIDITY_PERIOD",
        default_value_t = 120
    )]
    pub saml_relay_state_validity_period: u64,

    /// Seconds of clock difference with identity providers tolerated on an
    /// assertion's `NotBefore` and `NotOnOrAfter` (crewjam/saml's
    /// `MaxClockSkew`, which GoTrue uses: 180).
    #[arg(
        long = "auth-saml-allowed-clock-skew",
        env = "AUTH_SAML_ALLOWED_CLOCK_SKEW",
        default_value_t = 180
    )]
    pub saml_allowed_clock_skew: u64,
    #[command(flatten)]
    pub mail: super::mail::config::MailConfig,
    #[command(flatten)]
    pub sms: super::sms::config::SmsConfig,
}

/// Codes one TOTP challenge accepts before it is used up (GoTrue has no such
/// cap; it bounds guessing per challenge on top of the per-address limit).
pub const MFA_ATTEMPTS_PER_CHALLENGE: i32 = 5;
