//! The gateway's configuration: one struct, read once at start from command-line
//! flags with environment-variable fallbacks (`.env.example` lists every variable).
//!
//! Secrets are [`Secret`]s: their `Debug` and `Display` print `[redacted]`, so a
//! config dumped into a log line never leaks them.

pub use gateway_core::config::{Secret, Span, parse_size};
use std::{net::SocketAddr, path::PathBuf};

/// Everything the gateway can be told. Each field is a flag (`--listen`) and an
/// environment variable (`GATEWAY_LISTEN`); the flag wins.
#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Address the HTTP server listens on. 54321 is the port `supabase start` uses,
    /// so supabase-js examples work unchanged.
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_LISTEN", default_value = "127.0.0.1:54321")]
    pub listen: SocketAddr,

    /// PostgreSQL URL the API connects with (the `authenticator` role, like
    /// PostgREST's `db-uri`). When absent the gateway runs its own private cluster
    /// under `--data-dir`.
    #[arg(help_heading = "Database", long, env = "DATABASE_URL")]
    pub database_url: Option<Secret>,

    /// PostgreSQL URL used to apply `sql/` and `policies/` (a role that owns the
    /// schema). Defaults to `--database-url`.
    #[arg(help_heading = "Database", long, env = "DATABASE_ADMIN_URL")]
    pub database_admin_url: Option<Secret>,

    /// HS256 secret that signs and verifies every JWT (at least 32 characters, like
    /// PostgREST's `jwt-secret`). When absent one is generated on first start and
    /// kept in `<data-dir>/jwt_secret` (mode 0600).
    #[arg(help_heading = "Keys", long, env = "JWT_SECRET")]
    pub jwt_secret: Option<Secret>,

    /// Algorithm of the signing key the first start makes (docs/keys.md):
    /// ES256 (P-256, Supabase's default), RS256, or HS256 (the JWT secret
    /// signs, as before). Later keys come from `gateway signing-keys create`.
    #[arg(help_heading = "Keys", long, env = "JWT_SIGNING_ALGORITHM", value_enum, default_value = "ES256")]
    pub jwt_signing_algorithm: crate::keys::SigningAlgorithm,

    /// More keys that verify tokens and JWT API keys on every service: a JWK
    /// set (`{"keys": [...]}`, as GoTrue's `GOTRUE_JWT_KEYS`), each with a
    /// `kid`; ES256 (EC P-256), RS256 (RSA) or HS256 (oct). Private members
    /// are ignored; public halves are published in the JWKS.
    #[arg(help_heading = "Keys", long, env = "JWT_KEYS", hide_env_values = true)]
    pub jwt_keys: Option<Secret>,

    /// Whether the legacy JWT API keys (`anon`, `service_role`, and any JWT in
    /// `apikey`) are accepted. `false` leaves only the publishable and secret
    /// keys (Supabase's "deactivate legacy API keys").
    #[arg(help_heading = "Keys", long, env = "GATEWAY_LEGACY_API_KEYS", default_value_t = true, action = clap::ArgAction::Set)]
    pub legacy_api_keys: bool,

    /// How often the API keys and signing keys are read again from the
    /// database, so that a key revoked on one gateway is refused by all.
    #[arg(help_heading = "Keys", long, env = "GATEWAY_KEYS_REFRESH_INTERVAL", default_value = "1s")]
    pub keys_refresh_interval: Span,

    /// When set, tokens carrying an `aud` claim must match it (PostgREST's
    /// `jwt-aud`); tokens without `aud` are accepted, as PostgREST does.
    #[arg(help_heading = "Keys", long, env = "JWT_AUD")]
    pub jwt_aud: Option<String>,

    /// Directory for everything the gateway keeps: the embedded cluster
    /// (`postgres/`), the generated JWT secret and, by default, stored files.
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_DATA_DIR", default_value = ".data")]
    pub data_dir: PathBuf,

    /// Where uploaded files live on local disk. Defaults to `<data-dir>/storage`.
    #[arg(help_heading = "Storage", long, env = "STORAGE_ROOT")]
    pub storage_root: Option<PathBuf>,

    /// The public URL of the site (the shop), used for redirects and links in auth
    /// e-mails, like GoTrue's `SITE_URL`.
    #[arg(help_heading = "Gateway", long, env = "SITE_URL", default_value = "http://localhost:5173")]
    pub site_url: String,

    /// Directory holding `sql/` and `policies/`. Defaults to the nearest ancestor of
    /// the working directory (or of the executable) that has both.
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_SQL_ROOT")]
    pub sql_root: Option<PathBuf>,

    /// Threads that serve requests; by default one per core. On a host of two
    /// cores shared with PostgreSQL (the embedded default), 1 spends 5-35 %
    /// less CPU per request: no wake-ups between the threads
    /// (docs/operating.md, "One host, saturated CPU").
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_WORKERS", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub workers: Option<usize>,

    /// Size of the connection pool used for API requests (PostgREST's `db-pool`).
    #[arg(help_heading = "Database", long, env = "GATEWAY_POOL_SIZE", default_value_t = 10)]
    pub pool_size: usize,

    /// How long a request waits for a pooled connection before 504 PGRST003
    /// (PostgREST's `db-pool-acquisition-timeout`).
    #[arg(help_heading = "Database", long, env = "GATEWAY_POOL_TIMEOUT", default_value = "10s")]
    pub pool_timeout: Span,

    /// `statement_timeout` of the gateway's own connections, which applies to
    /// roles that set none of their own (Supabase: the authenticator's 8 s).
    /// Per-role values come from `ALTER ROLE ... SET statement_timeout` and are
    /// applied to every request of that role.
    #[arg(help_heading = "Database", long, env = "GATEWAY_STATEMENT_TIMEOUT", default_value = "8s")]
    pub statement_timeout: Span,

    /// Fill an empty database with the demo data of `<sql-root>/seed/` and one
    /// staff user (whose password is kept in `<data-dir>/staff_password`). For
    /// the embedded default; never use it on a production database.
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_SEED", default_value_t = false)]
    pub seed: bool,

    /// A failure that repeats (every request during a database outage) is
    /// logged in full the first time; after that, one line per this interval
    /// says how many more there were.
    #[arg(help_heading = "Gateway", long, env = "GATEWAY_LOG_REPEAT_INTERVAL", default_value = "10s")]
    pub log_repeat_interval: Span,

    /// How often `gateway serve` writes a backup archive, as `gateway backup`
    /// does, into `--backup-dir` (e.g. `24h`). Unset: never. Gateways sharing
    /// a database each write their own: set it on one.
    #[arg(help_heading = "Backups", long, env = "GATEWAY_BACKUP_EVERY")]
    pub backup_every: Option<Span>,

    /// Where scheduled backups go (`gateway-<UTC time>.backup`, mode 0600): a
    /// folder, or `s3://<bucket>[/<prefix>]` on the S3 server of the
    /// `STORAGE_S3_*` settings (staged whole under `<data-dir>` first).
    /// Defaults to `<data-dir>/backups`.
    #[arg(help_heading = "Backups", long, env = "GATEWAY_BACKUP_DIR")]
    pub backup_dir: Option<crate::backup::Destination>,

    /// How many scheduled backups are kept: after each new one, the oldest
    /// beyond this many are deleted (only files the schedule named).
    #[arg(
        help_heading = "Backups",
        long,
        env = "GATEWAY_BACKUP_KEEP",
        default_value_t = 7,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub backup_keep: u32,

    /// Archive the embedded cluster's write-ahead log into this folder, with
    /// base backups beside it (one at start when it has none, one more at
    /// each `--backup-every`, the newest `--backup-keep` kept), for
    /// `gateway restore --to <time>`. The postgres user must be able to
    /// enter it. Unset: no archiving.
    #[arg(help_heading = "Backups", long, env = "GATEWAY_WAL_ARCHIVE", value_name = "DIR")]
    pub wal_archive: Option<PathBuf>,

    /// Address of the admin listener: `/metrics` (Prometheus text), `/live`
    /// and `/ready`, as PostgREST's admin server. Off unless set; nothing is
    /// recorded while it is off. Keep it private (loopback or an internal
    /// network): it needs no key.
    #[arg(help_heading = "Operations", long, env = "GATEWAY_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// How log lines are written to stderr: `text` (one line each, for a
    /// terminal or journald) or `json` (one object per line, for a log
    /// collector). Every line of a request carries its `request_id`.
    #[arg(help_heading = "Operations", long, env = "GATEWAY_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: crate::logs::LogFormat,

    /// Log one line per request: method, path (without the query string,
    /// which can carry an API key), status, duration and request id.
    #[arg(help_heading = "Operations", long, env = "GATEWAY_ACCESS_LOG", default_value_t = false)]
    pub access_log: bool,

    #[command(flatten)]
    pub server: crate::server::ServerConfig,

    #[command(flatten)]
    pub rest: crate::rest::config::RestConfig,

    #[command(flatten)]
    pub storage: crate::storage::StorageConfig,

    #[command(flatten)]
    pub auth: crate::auth::AuthConfig,

    #[command(flatten)]
    pub frontend: crate::frontend::FrontendConfig,

    #[command(flatten)]
    pub compression: crate::compress::CompressionConfig,

    #[command(flatten)]
    pub realtime: crate::realtime::config::RealtimeConfig,

    #[command(flatten)]
    pub functions: crate::functions::FunctionsConfig,

    #[command(flatten)]
    pub console: crate::console::ConsoleConfig,
}

impl Config {
    /// The JWT secret file used when none is configured.
    pub fn jwt_secret_path(&self) -> PathBuf {
        self.data_dir.join("jwt_secret")
    }

    pub fn backup_dir(&self) -> crate::backup::Destination {
        self.backup_dir
            .clone()
            .unwrap_or_else(|| crate::backup::Destination::Folder(self.data_dir.join("backups")))
    }

    pub fn storage_root(&self) -> PathBuf {
        self.storage_root.clone().unwrap_or_else(|| self.data_dir.join("storage"))
    }
}
