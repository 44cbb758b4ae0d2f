//! The command line: `gateway serve`, `gateway migrate [--check]`,
//! `gateway backup --out`, `gateway restore --from`, `gateway import`,
//! `gateway keys [create|list|revoke]`,
//! `gateway signing-keys list|create|rotate|revoke|import-legacy`,
//! `gateway users add|list`, `gateway storage sweep`,
//! `gateway storage s3-keys create|list|revoke`,
//! `gateway functions new|list|deploy|secrets set|list|unset`,
//! `gateway cluster list|remove|prune`, `gateway gen types typescript`.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use tokio::net::TcpListener;

use axum::extract::FromRef;
use gateway_auth::AuthState;

use crate::config::Config;
use crate::jwt::JwtKeys;
use crate::startup::{self, BoxError};

/// `gateway 0.1.0 (schema 102_shop_realtime)`: the release and the last
/// migration this binary was built with (`build.rs` says why it is fixed at
/// build time).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (schema ", env!("GATEWAY_SCHEMA_LEVEL"), ")");

#[derive(Parser)]
#[command(name = "gateway", version = VERSION, about = "A self-hosted, supabase-js compatible backend over PostgreSQL")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve /rest/v1, /auth/v1, /storage/v1 and the built frontend. Without
    /// --database-url, runs a private PostgreSQL cluster under --data-dir and
    /// stops it on exit.
    Serve(Config),
    /// Apply sql/ and policies/ to the database, then exit. With --check,
    /// only list what would run.
    Migrate(MigrateArgs),
    /// Without a subcommand, print the legacy anon and service_role API keys
    /// (JWTs of the JWT secret). With one, manage the publishable and secret
    /// API keys kept in the database.
    Keys(KeysArgs),
    /// Manage the keys that sign access tokens: create a standby key, rotate
    /// to it, revoke a previous one (docs/keys.md).
    SigningKeys(SigningKeysArgs),
    /// Create and list the users who sign in through /auth/v1.
    #[command(subcommand)]
    Users(UsersCommand),
    /// Create the operators who sign in to the console at /_/
    /// (docs/console.md). They are not users of /auth/v1.
    #[command(subcommand)]
    Operators(OperatorsCommand),
    /// Write one archive (a tar file, mode 0600) holding the database and the
    /// stored files its rows name, consistent with each other, while the
    /// gateway serves. It holds the JWT secret: keep it as a secret.
    Backup(BackupArgs),
    /// Bring an archive of `gateway backup` into an empty data directory: its
    /// own PostgreSQL cluster, the stored files under its storage root, and
    /// the JWT secret. Then `gateway serve --data-dir` serves it.
    Restore(RestoreArgs),
    /// Move a hosted Supabase project in: load the three files `supabase db
    /// dump` writes (roles, schema, data) as Supabase's restore guide does,
    /// after saying what the dump carries that this database lacks, and copy
    /// the stored objects. --jwt-secret is the project's JWT secret, kept as
    /// <data-dir>/jwt_secret so that the tokens it issued stay valid.
    /// docs/moving-in.md.
    Import(ImportArgs),
    /// Maintain the stored files.
    #[command(subcommand)]
    Storage(StorageCommand),
    /// Edge Functions: make one, list them, deploy new code, and set the
    /// secrets every function reads as variables (docs/services/functions.md).
    Functions(FunctionsArgs),
    /// The embedded PostgreSQL clusters a gateway running as root keeps in the
    /// postgres user's home (~postgres/gateway/<hash>) when that user cannot
    /// enter the data directory.
    #[command(subcommand)]
    Cluster(ClusterCommand),
    /// Generate code from the database's schemas, as the Supabase CLI's
    /// `supabase gen` does.
    #[command(subcommand)]
    Gen(GenCommand),
    /// Print the reference made from these definitions, for the book.
    #[command(subcommand, hide = true)]
    Docs(DocsCommand),
}

impl Command {
    /// The gateway's settings, for the commands that take them.
    fn config(&self) -> Option<&Config> {
        match self {
            Command::Serve(config)
            | Command::Migrate(MigrateArgs { config, .. })
            | Command::Backup(BackupArgs { config, .. })
            | Command::Restore(RestoreArgs { config, .. })
            | Command::Import(ImportArgs { config, .. }) => Some(config),
            Command::Keys(KeysArgs { config, .. }) | Command::SigningKeys(SigningKeysArgs { config, .. }) => {
                Some(config)
            }
            Command::Users(UsersCommand::Add { config, .. } | UsersCommand::List { config }) => Some(config),
            Command::Operators(OperatorsCommand::Add { config, .. }) => Some(config),
            Command::Storage(
                StorageCommand::Sweep { config, .. } | StorageCommand::S3Keys(S3KeysArgs { config, .. }),
            ) => Some(config),
            Command::Gen(GenCommand::Types(TypesArgs { config, .. })) => Some(config),
            Command::Functions(FunctionsArgs { config, .. }) => Some(config),
            Command::Cluster(_) | Command::Docs(_) => None,
        }
    }
}

#[derive(Subcommand)]
enum GenCommand {
    /// Print the types supabase-js apps are written against
    /// (`createClient<Database>`), as `supabase gen types` prints them, to
    /// stdout. Without --database-url, reads the private cluster under
    /// --data-dir, brought up to date with sql/ and policies/ first.
    Types(TypesArgs),
}

#[derive(clap::Args)]
struct TypesArgs {
    /// The language to print.
    #[arg(value_enum)]
    language: TypesLanguage,
    /// A schema to describe; repeat it for more. Default: the schemas the
    /// REST API exposes (--db-schemas).
    #[arg(long = "schema", value_name = "SCHEMA")]
    schemas: Vec<String>,
    #[command(flatten)]
    config: Config,
}

/// The languages of `supabase gen types` but Swift and Python
/// (docs/types.md says why).
#[derive(Clone, Copy, clap::ValueEnum)]
enum TypesLanguage {
    Typescript,
    Go,
}

#[derive(Subcommand)]
enum DocsCommand {
    /// The flags and variables of `gateway serve`, for docs/configuration.md.
    Configuration,
    /// `.env.example`: every variable at its default.
    Env,
}

/// The command `gateway serve` as clap defines it.
pub fn serve_command() -> clap::Command {
    let mut root = Cli::command();
    root.build();
    root.find_subcommand("serve").cloned().unwrap_or(root)
}

fn docs(command: &DocsCommand) {
    let serve = serve_command();
    match command {
        DocsCommand::Configuration => print!("{}", crate::help::configuration_page(&serve)),
        DocsCommand::Env => print!("{}", crate::help::env_example(&serve)),
    }
}

#[derive(clap::Args)]
struct MigrateArgs {
    /// List the migrations that would run and the policy files that would
    /// change, change nothing, and exit with 1 when anything would run, 0
    /// when nothing would (2 on an error).
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    config: Config,
}

#[derive(clap::Args)]
struct BackupArgs {
    /// The archive to write (through `<FILE>.partial`, renamed when whole).
    #[arg(long, value_name = "FILE")]
    out: std::path::PathBuf,
    #[command(flatten)]
    config: Config,
}

#[derive(clap::Args)]
struct RestoreArgs {
    /// The archive `gateway backup` wrote.
    #[arg(long, value_name = "FILE", required_unless_present = "to", conflicts_with = "to")]
    from: Option<std::path::PathBuf>,
    /// Recover the database as it was at this moment from `--wal-archive`
    /// (RFC 3339, e.g. 2026-11-28T12:00:00Z, or `2026-11-28 12:00:00` in
    /// UTC): the newest base backup before it, and the archived WAL replayed
    /// up to it.
    #[arg(long, value_name = "TIME", requires = "wal_archive", value_parser = crate::pitr::parse_target)]
    to: Option<chrono::DateTime<chrono::Utc>>,
    /// With `--to`: the storage root (a folder) the recovered rows' object
    /// versions are copied from when the new store lacks them. Not needed
    /// when both use the same S3 bucket.
    #[arg(long, value_name = "DIR", requires = "to")]
    objects_from: Option<std::path::PathBuf>,
    #[command(flatten)]
    config: Config,
}

#[derive(clap::Args)]
struct ImportArgs {
    /// `supabase db dump --role-only` (the project's own roles).
    #[arg(long, value_name = "FILE")]
    roles: std::path::PathBuf,
    /// `supabase db dump` (the schema of the project's own schemas).
    #[arg(long, value_name = "FILE")]
    schema: std::path::PathBuf,
    /// `supabase db dump --data-only` (every row, auth's and storage's too;
    /// `--use-copy` or not).
    #[arg(long, value_name = "FILE")]
    data: std::path::PathBuf,
    /// Where the project's stored objects are: a folder in Storage's
    /// file-backend layout (`<bucket>/<name>/<version>`, or the backend's
    /// root above `<GLOBAL_S3_BUCKET>/<TENANT_ID>`), or `s3://bucket/prefix`
    /// (credentials and endpoint from `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`). Copied into
    /// this gateway's store (`--storage-root` or `STORAGE_S3_*`).
    #[arg(long, value_name = "DIR|s3://BUCKET/PREFIX")]
    objects: Option<String>,
    /// Say what would be skipped, adapted or refused, and load nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    config: Config,
}

#[derive(clap::Args)]
struct KeysArgs {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: Option<KeysCommand>,
}

/// The settings (`--database-url`, `--data-dir`...) are `gateway keys`'s, so
/// they come before the subcommand: `gateway keys --data-dir d list`.
#[derive(Subcommand)]
enum KeysCommand {
    /// Make a named publishable or secret key. The key is printed now and
    /// never again: only its hash is kept.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_enum)]
        kind: crate::keys::KeyKind,
    },
    /// List the keys: name, kind, first characters, made, revoked.
    List,
    /// Revoke the key in use of this kind and name: every gateway on the
    /// database refuses it within --keys-refresh-interval.
    Revoke {
        #[arg(long)]
        name: String,
        #[arg(long, value_enum)]
        kind: crate::keys::KeyKind,
    },
}

#[derive(clap::Args)]
struct SigningKeysArgs {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: SigningKeysCommand,
}

/// As for `gateway keys`, the settings come before the subcommand.
#[derive(Subcommand)]
enum SigningKeysCommand {
    /// List the signing keys: kid, algorithm, status, made.
    List,
    /// Make a standby key, published in the JWKS but signing nothing yet.
    Create {
        #[arg(long, value_enum, default_value = "ES256")]
        algorithm: crate::keys::SigningAlgorithm,
    },
    /// The standby key becomes current; the current one becomes previous
    /// (its tokens keep verifying until it is revoked).
    Rotate,
    /// Revoke a previous or standby key: its tokens are refused everywhere.
    Revoke {
        /// The key's kid (`gateway signing-keys list`).
        kid: uuid::Uuid,
    },
    /// Make the JWT secret a previously used key (again), so that tokens it
    /// signed (a moved-in project's, or before a revocation) verify.
    ImportLegacy,
}

#[derive(clap::Args)]
struct FunctionsArgs {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: FunctionsCommand,
}

/// As for `gateway keys`, the settings come before the subcommand:
/// `gateway functions --functions-dir d new hello`.
#[derive(Subcommand)]
enum FunctionsCommand {
    /// Make `<functions folder>/<NAME>/index.ts` (a handler given to
    /// `Deno.serve`) and its `deno.json`; the folder is made when missing.
    New {
        /// The function's name: a letter, then letters, digits, - and _.
        name: String,
    },
    /// List the functions served: name, verify_jwt, entry point, import map
    /// or deno.json, and whether remote modules are vendored.
    List,
    /// Fetch each function's dependencies (npm: into the gateway's Deno
    /// cache, jsr: and https: vendored into its vendor/ folder), check its
    /// types, and, when every one passed, put the new code in place of the
    /// served one. A running gateway starts the new code on the next request.
    Deploy {
        /// The functions to deploy (default: every one of the source folder).
        names: Vec<String>,
        /// The functions folder the new code comes from (default: the served
        /// one, checked and cached in place).
        #[arg(long, value_name = "FOLDER")]
        from: Option<std::path::PathBuf>,
    },
    /// The secrets every function reads as variables, kept encrypted in
    /// the database.
    #[command(subcommand)]
    Secrets(SecretsCommand),
}

#[derive(Subcommand)]
enum SecretsCommand {
    /// Set secrets: `NAME=VALUE` pairs, or the lines of --env-file. Running
    /// functions start again with them on their next request.
    Set {
        #[arg(value_name = "NAME=VALUE")]
        assignments: Vec<String>,
        /// A file of `NAME=VALUE` lines (as `supabase secrets set --env-file`).
        #[arg(long, value_name = "FILE")]
        env_file: Option<std::path::PathBuf>,
    },
    /// List the secrets: name, SHA-256 of the value, when it was set.
    List,
    /// Remove secrets by name.
    Unset {
        #[arg(required = true)]
        names: Vec<String>,
    },
}

#[derive(Subcommand)]
enum ClusterCommand {
    /// List them: folder, data directory, and whether it is in use, running or
    /// orphaned (its data directory is gone).
    List,
    /// Delete the cluster of --data-dir (which may already be deleted), with
    /// its data. Refused while PostgreSQL runs on it.
    Remove {
        /// The data directory whose cluster goes (as `serve --data-dir`).
        #[arg(long, env = "GATEWAY_DATA_DIR", default_value = ".data")]
        data_dir: std::path::PathBuf,
    },
    /// Delete every orphaned cluster that is not running.
    Prune,
}

#[derive(Subcommand)]
enum StorageCommand {
    /// Remove orphaned bytes: blobs that no row of storage.objects points at
    /// and older than --storage-sweep-grace. Prints each one and a summary;
    /// exits with 1 if anything failed.
    Sweep {
        #[command(flatten)]
        config: Config,
        /// Print what would be removed, remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// Only this bucket's folder (default: the whole store).
        #[arg(long)]
        bucket: Option<String>,
    },
    /// Access keys of the S3 protocol at /storage/v1/s3 (docs/services/s3.md):
    /// a request signed with one acts as service_role.
    S3Keys(S3KeysArgs),
}

#[derive(clap::Args)]
struct S3KeysArgs {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: S3KeysCommand,
}

/// As for `gateway keys`, the settings come before the subcommand.
#[derive(Subcommand)]
enum S3KeysCommand {
    /// Make an access key pair and print it; the secret is shown now and
    /// never again (it is kept sealed under the JWT secret).
    Create {
        /// What the key is for, shown by `list`.
        #[arg(long, default_value = "")]
        description: String,
    },
    /// List the access key ids: id, made, description. Never the secrets.
    List,
    /// Delete an access key: requests signed with it are refused at once.
    Revoke {
        /// The access key id.
        access_key_id: String,
    },
}

#[derive(Subcommand)]
enum OperatorsCommand {
    /// Create an operator, or give the one with this e-mail a new password
    /// (which ends their sessions).
    Add {
        #[command(flatten)]
        config: Config,
        #[arg(long)]
        email: String,
        /// The password, at least 8 characters (or set
        /// GATEWAY_OPERATOR_PASSWORD, which `ps` cannot show).
        #[arg(long, env = "GATEWAY_OPERATOR_PASSWORD", hide_env_values = true)]
        password: crate::config::Secret,
    },
}

#[derive(Subcommand)]
enum UsersCommand {
    /// Create a confirmed e-mail user who can sign in at once.
    Add {
        #[command(flatten)]
        config: Config,
        #[arg(long)]
        email: String,
        /// The password (or set GATEWAY_USER_PASSWORD, which `ps` cannot show).
        #[arg(long, env = "GATEWAY_USER_PASSWORD", hide_env_values = true)]
        password: crate::config::Secret,
        /// Stored as `user_metadata.name`.
        #[arg(long)]
        name: Option<String>,
    },
    /// List users: id, e-mail, created, last sign-in.
    List {
        #[command(flatten)]
        config: Config,
    },
}

/// Reads the command line, before any runtime starts (its settings choose
/// the runtime's size); `Err` is how to exit when it was a question (help)
/// or wrong.
pub fn parse() -> Result<Cli, ExitCode> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(help) = crate::help::intercept(&Cli::command(), &args) {
        return Err(match help {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::from(2)
            }
        });
    }
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    if let (Command::Serve(config), Some(("serve", serve))) = (&mut cli.command, matches.subcommand()) {
        config.console.settings = crate::console::settings::Settings::read(&serve_command(), serve);
    }
    Ok(cli)
}

impl Cli {
    /// The runtime's worker threads, when the settings name a number.
    pub fn workers(&self) -> Option<usize> {
        self.command.config().and_then(|config| config.workers)
    }
}

/// Runs a command read by [`parse`].
pub async fn run(cli: Cli) -> ExitCode {
    // Logs start once the command line is read, in the format it asks for;
    // nothing logs before (clap prints its own errors).
    crate::logs::init(cli.command.config().map(|c| c.log_format).unwrap_or_default());
    let result = match cli.command {
        Command::Serve(config) => serve(config).await,
        Command::Migrate(MigrateArgs { config, check: true }) => {
            let result = migrate_check(config).await;
            crate::logs::flush();
            return match result {
                Ok(false) => ExitCode::SUCCESS,
                Ok(true) => ExitCode::from(1),
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(2)
                }
            };
        }
        Command::Migrate(MigrateArgs { config, check: false }) => migrate(config).await,
        Command::Keys(KeysArgs { config, command: None }) => keys(&config),
        Command::Keys(KeysArgs { config, command: Some(command) }) => api_keys(&config, command).await,
        Command::SigningKeys(SigningKeysArgs { config, command }) => signing_keys(&config, command).await,
        Command::Users(command) => users(command).await,
        Command::Operators(OperatorsCommand::Add { config, email, password }) => {
            add_operator(config, &email, &password).await
        }
        Command::Backup(BackupArgs { config, out }) => backup(config, &out).await,
        Command::Restore(RestoreArgs { config, from: Some(from), .. }) => restore(config, &from).await,
        Command::Restore(RestoreArgs { config, to: Some(to), objects_from, .. }) => {
            restore_to(config, to, objects_from.as_deref()).await
        }
        Command::Restore(_) => Err("restore needs --from FILE or --to TIME".into()),
        Command::Import(args) => import(args).await,
        Command::Storage(StorageCommand::Sweep { config, dry_run, bucket }) => {
            sweep(config, dry_run, bucket).await
        }
        Command::Storage(StorageCommand::S3Keys(S3KeysArgs { config, command })) => {
            s3_keys(&config, command).await
        }
        Command::Cluster(command) => cluster(command),
        Command::Gen(GenCommand::Types(args)) => gen_types(args).await,
        Command::Functions(FunctionsArgs { config, command }) => functions(&config, command).await,
        Command::Docs(command) => {
            docs(&command);
            Ok(())
        }
    };
    crate::logs::flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> Result<(), BoxError> {
    crate::logs::set_repeat_interval(config.log_repeat_interval.0);
    let (secret, created) = startup::jwt_secret(&config)?;
    if created {
        tracing::info!(path = %config.jwt_secret_path().display(), "generated a new JWT secret");
    }
    let sql_root = startup::sql_root(&config)?;
    let database = startup::open_database(&config).await?;
    let result = serve_on(config, &database, &secret, &sql_root).await;
    startup::close_database(database).await;
    result
}

async fn serve_on(
    config: Config,
    database: &startup::Database,
    secret: &crate::config::Secret,
    sql_root: &std::path::Path,
) -> Result<(), BoxError> {
    if let Some(admin) = &database.admin {
        let report = startup::migrate(admin, sql_root).await?;
        tracing::info!(
            applied = report.applied.len(),
            policies = report.policies.len(),
            "database is up to date"
        );
    }
    let listener = TcpListener::bind(config.listen).await?;
    let address = listener.local_addr()?;
    // Metrics are recorded only when they can be read.
    let admin = match config.metrics_listen {
        Some(wanted) => {
            let (listener, bound) = crate::telemetry::bind(wanted).await?;
            let handle = crate::telemetry::install()?;
            Some((startup::Admin { listener, handle }, bound))
        }
        None => None,
    };
    let seed = config.seed;
    let state = startup::state(config, database.api.clone(), database.admin.clone(), secret)?;
    let secret_for_backups = secret.clone();
    let staff = match (&database.admin, seed) {
        (Some(admin), true) => Some(startup::seed(admin, sql_root, &state).await?),
        (None, true) => return Err("--seed needs a database the gateway may migrate".into()),
        (_, false) => None,
    };
    let created = startup::init_keys(&state).await.map_err(|e| {
        format!(
            "could not set up the API and signing keys: {e} (a database migrated by an older gateway \
             needs sql/012_auth_keys.sql: run `gateway migrate` or set --database-admin-url)"
        )
    })?;
    let (anon, service) = startup::api_keys(&state.credentials.jwt)?;
    let (anon, service) = match state.config.legacy_api_keys {
        true => (anon, service),
        false => ("(legacy keys turned off)".to_owned(), "(legacy keys turned off)".to_owned()),
    };
    let publishable = state.credentials.api_keys.publishable().unwrap_or_else(|| {
        "(none in use: `gateway keys create --kind publishable --name <name>`)".to_owned()
    });
    let secret = created.secret.unwrap_or_else(|| {
        "(printed once, when made: `gateway keys create --kind secret --name <name>`)".to_owned()
    });
    println!("gateway is serving on http://{address}");
    println!("  API URL:          http://{address}");
    if let Some((_, bound)) = &admin {
        println!("  metrics:          http://{bound}/metrics");
    }
    if let Some((cluster, _)) = &database.cluster {
        println!("  database:         {}", cluster.superuser_url());
        if cluster.kept_outside() {
            println!(
                "  cluster folder:   {} (`gateway cluster remove` deletes it)",
                cluster.pgdata().display()
            );
        }
    }
    println!("  publishable key:  {publishable}");
    println!("  secret key:       {secret}");
    println!("  anon key:         {anon}");
    println!("  service_role key: {service}");
    if let Some(staff) = staff {
        println!("  staff e-mail:     {}", staff.email);
        println!("  staff password:   {}", staff.password.expose());
    }
    let scheduled = match (state.config.backup_every, &database.admin) {
        (None, _) => None,
        (Some(every), admin) => {
            let admin = admin.clone().unwrap_or_else(|| database.api.clone());
            let bindir = crate::embedded::find_bindir()
                .ok_or("--backup-every needs PostgreSQL's programs (pg_dump, pg_dumpall)")?;
            let config = &state.config;
            Some(crate::backup::spawn_scheduled(crate::backup::Schedule {
                admin,
                bindir,
                store: state.store.clone(),
                secret: secret_for_backups.clone(),
                staff_password_file: config.data_dir.join("staff_password"),
                target: crate::backup::Target::new(&config.backup_dir(), &config.storage, &config.data_dir)?,
                every: every.0,
                keep: config.backup_keep as usize,
            }))
        }
    };
    let base_backups = match (&state.config.wal_archive, &database.cluster) {
        (Some(dir), Some((cluster, _))) => {
            let archive = crate::pitr::WalArchive::new(dir)?;
            archive.keep_secret(&secret_for_backups)?;
            println!("  WAL archive:      {}", archive.dir().display());
            Some(crate::pitr::spawn_base_backups(
                archive,
                cluster.clone(),
                state.config.backup_every.map(|every| every.0),
                state.config.backup_keep as usize,
            ))
        }
        _ => None,
    };
    let admin = admin.map(|(admin, _)| admin);
    let served = startup::serve(listener, state, admin, startup::shutdown_signal()).await;
    for task in [scheduled, base_backups].into_iter().flatten() {
        task.abort();
    }
    served?;
    Ok(())
}

async fn gen_types(args: TypesArgs) -> Result<(), BoxError> {
    let TypesArgs { language, schemas, config } = args;
    let schemas = if schemas.is_empty() { config.rest.db_schemas.clone() } else { schemas };
    let database = startup::open_database(&config).await?;
    let result = async {
        // The private cluster is the gateway's own: `serve` would migrate it
        // before answering, so the types describe what it would serve.
        if let (Some(_), Some(admin)) = (&database.cluster, &database.admin) {
            startup::migrate(admin, &startup::sql_root(&config)?).await?;
        }
        let reader = database.admin.as_ref().unwrap_or(&database.api);
        let (client, connection) = reader.connect(tokio_postgres::NoTls).await?;
        let connection = tokio::spawn(connection);
        let catalog = crate::rest::typegen::Catalog::load(&client, &schemas).await;
        drop(client);
        let _ = connection.await;
        let catalog = catalog?;
        Ok::<_, BoxError>(match language {
            TypesLanguage::Typescript => crate::rest::typegen::typescript::render(&catalog),
            TypesLanguage::Go => crate::rest::typegen::go::render(&catalog),
        })
    }
    .await;
    startup::close_database(database).await;
    print!("{}", result?);
    Ok(())
}

async fn migrate(config: Config) -> Result<(), BoxError> {
    let sql_root = startup::sql_root(&config)?;
    let database = startup::open_database(&config).await?;
    let admin = database
        .admin
        .clone()
        .or_else(|| config.database_url.is_some().then(|| database.api.clone()))
        .ok_or("no database to migrate")?;
    let result = startup::migrate(&admin, &sql_root).await;
    startup::close_database(database).await;
    let report = result?;
    for name in &report.applied {
        println!("applied {name}");
    }
    println!("{} migrations applied, {} policy files refreshed", report.applied.len(), report.policies.len());
    Ok(())
}

/// Prints what `gateway migrate` would do; true when it would do anything.
async fn migrate_check(config: Config) -> Result<bool, BoxError> {
    let sql_root = startup::sql_root(&config)?;
    let database = startup::open_database(&config).await?;
    let admin = database
        .admin
        .clone()
        .or_else(|| config.database_url.is_some().then(|| database.api.clone()))
        .ok_or("no database to check");
    let result = match admin {
        Ok(admin) => startup::migrate_plan(&admin, &sql_root).await,
        Err(e) => Err(e.into()),
    };
    startup::close_database(database).await;
    let plan = result?;
    for name in &plan.pending {
        println!("would apply    {name}");
    }
    for name in &plan.policies_changed {
        println!("would change   {name}");
    }
    for name in &plan.policies_unchanged {
        println!("unchanged      {name} (re-applied as it is)");
    }
    if plan.has_work() {
        println!(
            "{} migrations would be applied, {} policy files would change",
            plan.pending.len(),
            plan.policies_changed.len()
        );
    } else {
        println!("the database is up to date");
    }
    Ok(plan.has_work())
}

async fn backup(config: Config, out: &std::path::Path) -> Result<(), BoxError> {
    let (secret, _) = startup::jwt_secret(&config)?;
    let bindir = crate::embedded::find_bindir().ok_or(
        "PostgreSQL's programs (pg_dump, pg_dumpall) were not found on PATH, through pg_config, or under \
         /usr/lib/postgresql/*/bin",
    )?;
    let store = crate::storage::Backend::from_config(&config.storage, &config.storage_root())?;
    let staff_password = std::fs::read_to_string(config.data_dir.join("staff_password")).ok();
    let database = startup::open_database(&config).await?;
    let result = async {
        let admin = database
            .admin
            .clone()
            .or_else(|| config.database_url.is_some().then(|| database.api.clone()))
            .ok_or("no database to back up")?;
        let source = crate::backup::Source {
            admin: &admin,
            bindir: &bindir,
            store: &store,
            secret: &secret,
            staff_password,
        };
        crate::backup::backup(source, out).await
    }
    .await;
    startup::close_database(database).await;
    let summary = result?;
    println!(
        "wrote {}: the database ({} bytes compressed) and {} objects ({} bytes)",
        out.display(),
        summary.database_bytes,
        summary.objects,
        summary.object_bytes
    );
    Ok(())
}

async fn restore(config: Config, from: &std::path::Path) -> Result<(), BoxError> {
    if config.database_url.is_some() {
        return Err(
            "a restore makes a new embedded cluster under --data-dir; leave --database-url out".into()
        );
    }
    let restored =
        crate::backup::restore(from, &config.data_dir, &config.storage, &config.storage_root()).await?;
    println!(
        "restored the backup taken at {} into {}: the database and {} objects ({} bytes)",
        restored.manifest["taken_at"].as_str().unwrap_or("?"),
        config.data_dir.display(),
        restored.summary.objects,
        restored.summary.object_bytes
    );
    if config.jwt_secret.is_some() {
        println!(
            "note: --jwt-secret (or JWT_SECRET) is set and overrides the backup's secret, kept in {}",
            config.jwt_secret_path().display()
        );
    }
    Ok(())
}

async fn restore_to(
    config: Config,
    to: chrono::DateTime<chrono::Utc>,
    objects_from: Option<&std::path::Path>,
) -> Result<(), BoxError> {
    if config.database_url.is_some() {
        return Err(
            "a restore makes a new embedded cluster under --data-dir; leave --database-url out".into()
        );
    }
    let dir = config.wal_archive.as_deref().ok_or("--to needs --wal-archive")?;
    let archive = crate::pitr::WalArchive::new(dir)?;
    let source = match objects_from {
        Some(root) => {
            let mut local = config.storage.clone();
            local.s3_bucket = None;
            Some(crate::storage::Backend::from_config(&local, root)?)
        }
        None => None,
    };
    let recovered = crate::pitr::restore_to(
        &archive,
        to,
        &config.data_dir,
        (&config.storage, &config.storage_root()),
        source.as_ref(),
    )
    .await?;
    println!(
        "recovered the database as of {to} into {} from the base backup of {} and the archived WAL; \
         {} objects copied",
        config.data_dir.display(),
        recovered.base.complete_at,
        recovered.objects
    );
    if !recovered.missing.is_empty() {
        println!(
            "{} object rows have no bytes in either store (deleted or replaced after {to}){}:",
            recovered.missing.len(),
            if objects_from.is_none() { "; --objects-from names the store to copy them from" } else { "" }
        );
        for name in recovered.missing.iter().take(20) {
            println!("  {name}");
        }
    }
    if config.jwt_secret.is_some() {
        println!(
            "note: --jwt-secret (or JWT_SECRET) is set and overrides the archive's secret, kept in {}",
            config.jwt_secret_path().display()
        );
    }
    Ok(())
}

async fn import(args: ImportArgs) -> Result<(), BoxError> {
    use crate::import;
    let ImportArgs { roles, schema, data, objects, dry_run, config } = args;
    let dump = import::Dump::read(&roles, &schema, &data)?;
    let objects = objects.as_deref().map(import::ObjectSource::parse).transpose()?;
    // What can be found wrong before anything is loaded is.
    if let Some(import::ObjectSource::Folder(folder)) = &objects
        && !folder.is_dir()
    {
        return Err(format!("--objects {}: no such folder", folder.display()).into());
    }
    if let Some(secret) = &config.jwt_secret {
        JwtKeys::hs256(secret, None).map_err(|e| format!("--jwt-secret: {e}"))?;
    }
    let sql_root = startup::sql_root(&config)?;
    let database = startup::open_database(&config).await?;
    let result = async {
        let admin = database
            .admin
            .clone()
            .or_else(|| config.database_url.is_some().then(|| database.api.clone()))
            .ok_or("no database to import into")?;
        // The gateway's own schema first: the dump is read against it.
        startup::migrate(&admin, &sql_root).await?;
        let (client, connection) = admin.connect(tokio_postgres::NoTls).await?;
        let connection = tokio::spawn(connection);
        let outcome = import_into(&config, &database, &admin, &client, dump, objects, dry_run).await;
        drop(client);
        let _ = connection.await;
        outcome
    }
    .await;
    startup::close_database(database).await;
    result
}

async fn import_into(
    config: &Config,
    database: &startup::Database,
    admin: &tokio_postgres::Config,
    client: &tokio_postgres::Client,
    dump: crate::import::Dump,
    objects: Option<crate::import::ObjectSource>,
    dry_run: bool,
) -> Result<(), BoxError> {
    use crate::import;
    // The signing keys a served database holds are sealed with the JWT
    // secret it was first served with (docs/keys.md): another secret would
    // lock them away.
    if let Some(secret) = &config.jwt_secret {
        let kept = std::fs::read_to_string(config.jwt_secret_path()).ok();
        let sealed: i64 =
            client.query_one("select count(*) from auth.gateway_signing_keys", &[]).await?.get(0);
        if sealed > 0 && kept.as_deref() != Some(secret.expose()) {
            return Err(
                "refused: --jwt-secret cannot be changed on a database a gateway has served already (its \
                 signing keys are sealed with its JWT secret); import into a new --data-dir or database"
                    .into(),
            );
        }
    }
    let facts = import::facts(client).await?;
    let plan = import::plan(&dump, &facts);
    println!("what the dump carries that this database lacks:");
    if plan.findings.is_empty() {
        println!("  nothing");
    }
    for finding in &plan.findings {
        println!("  {finding}");
    }
    if plan.refused() {
        return Err("refused: the import cannot go on (REFUSED above); nothing was changed".into());
    }
    if dry_run {
        println!("dry run: nothing was loaded");
        return Ok(());
    }
    let bindir = match &database.cluster {
        Some((cluster, _)) => cluster.bindir().to_path_buf(),
        None => crate::embedded::find_bindir().ok_or(
            "PostgreSQL's psql was not found on PATH, through pg_config, or under /usr/lib/postgresql/*/bin",
        )?,
    };
    let work = config.data_dir.join(format!("import-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    std::fs::set_permissions(&work, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    let loaded = import::load(&bindir, admin, &plan, &work).await;
    let _ = std::fs::remove_dir_all(&work);
    let loaded = loaded.map_err(|e| -> BoxError {
        // The usual cause: an object of the project needs an extension
        // that was left out.
        let missing: Vec<&str> = plan
            .findings
            .iter()
            .filter(|f| f.verdict == import::Verdict::Skipped)
            .filter_map(|f| f.object.strip_prefix("extension "))
            .collect();
        match missing.is_empty() {
            true => e,
            false => format!(
                "{e}\nthe extensions left out above ({}) may be what it needs: install them on this PostgreSQL",
                missing.join(", ")
            )
            .into(),
        }
    })?;
    println!("loaded the roles, the schema and the data in one transaction");
    for (table, staged, moved) in &loaded.tables {
        // A count of 0 staged is an adaptation of rows already loaded.
        if staged == moved || *staged == 0 {
            println!("  {table}: {}", import::counted(*moved, "row"));
        } else {
            println!(
                "  {table}: {moved} of {staged} rows ({} were here already and are kept as they were)",
                staged - moved
            );
        }
    }
    match objects {
        Some(source) => {
            let store = crate::storage::Backend::from_config(&config.storage, &config.storage_root())?;
            let copied = import::copy_objects(client, &source, &store).await?;
            println!(
                "copied {} ({} bytes); {} in the store already",
                import::counted(copied.copied, "object"),
                copied.bytes,
                copied.present
            );
            if !copied.missing.is_empty() {
                println!(
                    "  the source has no bytes for {} objects: {}",
                    copied.missing.len(),
                    copied.missing.join(", ")
                );
            }
        }
        None => {
            let rows: i64 = client.query_one("select count(*) from storage.objects", &[]).await?.get(0);
            if rows > 0 {
                println!(
                    "no --objects: the {rows} object rows have no bytes here until they are copied (run again with --objects)"
                );
            }
        }
    }
    if let Some(secret) = &config.jwt_secret {
        let path = config.jwt_secret_path();
        std::fs::create_dir_all(&config.data_dir)?;
        let mut file = crate::backup::private_file(&path)?;
        std::io::Write::write_all(&mut file, secret.expose().as_bytes())?;
        println!(
            "kept the project's JWT secret in {}: `gateway serve --data-dir {}` verifies the tokens and API keys it issued",
            path.display(),
            config.data_dir.display()
        );
    }
    Ok(())
}

fn keys(config: &Config) -> Result<(), BoxError> {
    let (secret, _) = startup::jwt_secret(config)?;
    let keys = JwtKeys::hs256(&secret, config.jwt_aud.as_deref())?;
    let (anon, service) = startup::api_keys(&keys)?;
    println!("anon key:         {anon}");
    println!("service_role key: {service}");
    Ok(())
}

/// A connection for the key commands, to a database migrated up to date.
async fn keys_database(config: &Config) -> Result<(startup::Database, tokio_postgres::Client), BoxError> {
    let sql_root = startup::sql_root(config).ok();
    let database = startup::open_database(config).await?;
    let client = async {
        if let (Some(admin), Some(root)) = (&database.admin, &sql_root) {
            startup::migrate(admin, root).await?;
        }
        crate::keys::connect(&database.api).await
    }
    .await;
    match client {
        Ok(client) => Ok((database, client)),
        Err(e) => {
            startup::close_database(database).await;
            Err(e)
        }
    }
}

async fn api_keys(config: &Config, command: KeysCommand) -> Result<(), BoxError> {
    use crate::keys;
    let (database, client) = keys_database(config).await?;
    let result = async {
        match &command {
            KeysCommand::Create { name, kind, .. } => {
                let key = keys::create_api_key(&client, name, *kind).await?;
                println!("{} key {name:?}: {key}", kind.as_str());
            }
            KeysCommand::List => {
                for key in keys::list_api_keys(&client).await? {
                    let state = key.revoked_at.map_or("in use".to_owned(), |at| format!("revoked {at}"));
                    println!("{}\t{}\t{}...\t{}\t{state}", key.name, key.kind, key.start, key.created_at);
                }
            }
            KeysCommand::Revoke { name, kind } => {
                keys::revoke_api_key(&client, *kind, name).await?;
                println!("revoked {} key {name:?}", kind.as_str());
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    drop(client);
    startup::close_database(database).await;
    result
}

async fn signing_keys(config: &Config, command: SigningKeysCommand) -> Result<(), BoxError> {
    use crate::keys;
    let (secret, _) = startup::jwt_secret(config)?;
    let (database, mut client) = keys_database(config).await?;
    let result = async {
        match &command {
            SigningKeysCommand::List => {
                for key in keys::list_signing_keys(&client).await? {
                    println!("{}\t{}\t{}\t{}", key.kid, key.algorithm, key.status, key.created_at);
                }
            }
            SigningKeysCommand::Create { algorithm } => {
                let kid = keys::create_standby(&mut client, &secret, *algorithm).await?;
                println!("standby {kid}");
            }
            SigningKeysCommand::Rotate => {
                let (previous, current) = keys::rotate(&mut client).await?;
                println!("current {current}");
                if let Some(previous) = previous {
                    println!("previous {previous}");
                }
            }
            SigningKeysCommand::Revoke { kid } => {
                keys::revoke_signing_key(&client, *kid).await?;
                println!("revoked {kid}");
            }
            SigningKeysCommand::ImportLegacy => {
                let kid = keys::import_legacy(&client).await?;
                println!("the JWT secret is key {kid}");
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    drop(client);
    startup::close_database(database).await;
    result
}

async fn functions(config: &Config, command: FunctionsCommand) -> Result<(), BoxError> {
    use crate::functions::{deploy, layout};
    let served = || {
        layout::find_dir(config.functions.dir.as_deref()).ok_or(
            "no functions folder: there is no supabase/functions here and --functions-dir (GATEWAY_FUNCTIONS_DIR) \
             is not set",
        )
    };
    match command {
        FunctionsCommand::New { name } => {
            let dir = match &config.functions.dir {
                Some(dir) => dir.clone(),
                None => std::env::current_dir()?.join("supabase").join("functions"),
            };
            let index = deploy::new_function(&dir, &name)?;
            println!("created {}", index.display());
            Ok(())
        }
        FunctionsCommand::List => {
            let layout = layout::Layout::load(Some(served()?))?;
            for line in deploy::list(&layout) {
                println!("{line}");
            }
            Ok(())
        }
        FunctionsCommand::Deploy { names, from } => {
            let target = served()?;
            let deno = layout::find_deno(config.functions.deno.as_deref())
                .ok_or("no deno found (run scripts/setup.sh or set GATEWAY_FUNCTIONS_DENO)")?;
            let deno_dir = std::path::absolute(config.data_dir.join("deno"))?;
            let source = from.unwrap_or_else(|| target.clone());
            let plan = deploy::Deploy {
                deno: &deno,
                deno_dir: &deno_dir,
                target: &target,
                source: &source,
                names: &names,
            };
            deploy::deploy(plan, &mut |line| println!("{line}")).await
        }
        FunctionsCommand::Secrets(command) => function_secrets(config, command).await,
    }
}

async fn function_secrets(config: &Config, command: SecretsCommand) -> Result<(), BoxError> {
    use crate::functions::secrets;
    // Parsed before anything connects, so a typo changes nothing.
    let assignments = match &command {
        SecretsCommand::Set { assignments, env_file } => {
            let mut all = Vec::new();
            if let Some(file) = env_file {
                let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
                all.extend(secrets::parse_env_file(&text).map_err(|e| format!("{}: {e}", file.display()))?);
            }
            for text in assignments {
                all.push(secrets::parse_assignment(text)?);
            }
            if all.is_empty() {
                return Err("nothing to set: give NAME=VALUE pairs or --env-file".into());
            }
            all
        }
        SecretsCommand::Unset { names } => {
            for name in names {
                secrets::check_name(name)?;
            }
            Vec::new()
        }
        SecretsCommand::List => Vec::new(),
    };
    let (secret, _) = startup::jwt_secret(config)?;
    let (database, mut client) = keys_database(config).await?;
    let result = async {
        match &command {
            SecretsCommand::Set { .. } => {
                let tx = client.transaction().await?;
                for (name, value) in &assignments {
                    secrets::set(&tx, &secret, name, value).await?;
                }
                tx.commit().await?;
                for (name, _) in &assignments {
                    println!("set {name}");
                }
            }
            SecretsCommand::List => {
                for listed in secrets::list(&client, &secret).await? {
                    println!("{}\t{}\t{}", listed.name, listed.digest, listed.updated_at);
                }
            }
            SecretsCommand::Unset { names } => {
                for name in names {
                    if secrets::unset(&client, name).await? {
                        println!("unset {name}");
                    } else {
                        println!("no secret {name}");
                    }
                }
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    drop(client);
    startup::close_database(database).await;
    result
}

async fn s3_keys(config: &Config, command: S3KeysCommand) -> Result<(), BoxError> {
    use gateway_storage::s3::credentials;
    let (secret, _) = startup::jwt_secret(config)?;
    let (database, client) = keys_database(config).await?;
    let result = async {
        match &command {
            S3KeysCommand::Create { description } => {
                let created = credentials::create(&client, &secret, description).await?;
                println!("access key id: {}", created.access_key_id);
                println!("secret access key: {}", created.secret_access_key);
            }
            S3KeysCommand::List => {
                for key in credentials::list(&client).await? {
                    println!("{}\t{}\t{}", key.access_key_id, key.created_at, key.description);
                }
            }
            S3KeysCommand::Revoke { access_key_id } => {
                if credentials::revoke(&client, access_key_id).await? {
                    println!("revoked {access_key_id}");
                } else {
                    return Err(format!("no access key {access_key_id}").into());
                }
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    drop(client);
    startup::close_database(database).await;
    result
}

async fn add_operator(config: Config, email: &str, password: &crate::config::Secret) -> Result<(), BoxError> {
    let (secret, _) = startup::jwt_secret(&config)?;
    let sql_root = startup::sql_root(&config).ok();
    let database = startup::open_database(&config).await?;
    let result = async {
        // The console's tables must exist; migrating is a no-op when they do.
        if let (Some(admin), Some(root)) = (&database.admin, &sql_root) {
            startup::migrate(admin, root).await?;
        }
        let state = startup::state(config, database.api.clone(), database.admin.clone(), &secret)?;
        crate::console::access::add_operator(&state.db, email, password.expose()).await.map_err(
            |e| match e {
                crate::console::ConsoleError::BadRequest(message) => message,
                other => format!("could not add the operator: {other:?}"),
            },
        )?;
        println!("operator {email} can sign in at {}/", state.config.console.console_path);
        Ok::<(), BoxError>(())
    }
    .await;
    startup::close_database(database).await;
    result
}

async fn users(command: UsersCommand) -> Result<(), BoxError> {
    let config = match &command {
        UsersCommand::Add { config, .. } | UsersCommand::List { config } => config.clone(),
    };
    let (secret, _) = startup::jwt_secret(&config)?;
    let sql_root = startup::sql_root(&config).ok();
    let database = startup::open_database(&config).await?;
    let result = async {
        // The auth tables must exist; migrating is a no-op when they do.
        if let (Some(admin), Some(root)) = (&database.admin, &sql_root) {
            startup::migrate(admin, root).await?;
        }
        let state = startup::state(config, database.api.clone(), database.admin.clone(), &secret)?;
        match command {
            UsersCommand::Add { email, password, name, .. } => {
                let user = crate::auth::users::add(
                    &AuthState::from_ref(&state),
                    &email,
                    password.expose(),
                    name.as_deref(),
                )
                .await?;
                println!("created {} {}", text(&user, "id"), text(&user, "email"));
            }
            UsersCommand::List { .. } => {
                for user in crate::auth::users::list(&AuthState::from_ref(&state)).await? {
                    println!(
                        "{}\t{}\t{}\t{}",
                        text(&user, "id"),
                        text(&user, "email"),
                        text(&user, "created_at"),
                        text(&user, "last_sign_in_at"),
                    );
                }
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    startup::close_database(database).await;
    result
}

async fn sweep(config: Config, dry_run: bool, bucket: Option<String>) -> Result<(), BoxError> {
    use crate::storage::sweep::{self, Action, Sweep};
    if let Some(bucket) = &bucket {
        crate::storage::keys::parse_bucket(bucket).map_err(|_| format!("invalid bucket name {bucket:?}"))?;
    }
    let (secret, _) = startup::jwt_secret(&config)?;
    let database = startup::open_database(&config).await?;
    let result = async {
        let grace = config.storage.sweep_grace.0;
        let state = startup::state(config, database.api.clone(), database.admin.clone(), &secret)?;
        let _lock = sweep::try_lock(&state.db).await?.ok_or("another sweep is running; try again later")?;
        let sweep = Sweep { db: &state.db, store: &state.store, grace, dry_run };
        let mut print = |event: &sweep::Event| {
            let age = humanize(event.age);
            match &event.action {
                Action::Removed => println!("removed       {} ({age} old)", event.location),
                Action::WouldRemove => println!("would remove  {} ({age} old)", event.location),
                Action::LeftAlone => println!("left alone    {} (not the storage layout)", event.location),
                Action::Failed(message) => println!("failed        {} {message}", event.location),
            }
        };
        let report = sweep.run(bucket.as_deref(), &mut print).await?;
        println!("{report}");
        if report.failed > 0 {
            return Err(format!("{} blobs could not be listed or removed", report.failed).into());
        }
        Ok::<(), BoxError>(())
    }
    .await;
    startup::close_database(database).await;
    result
}

fn cluster(command: ClusterCommand) -> Result<(), BoxError> {
    use crate::embedded::{self, KeptCluster};
    let state = |c: &KeptCluster| match (c.running, c.orphaned(), &c.data_dir) {
        (true, _, _) => "running",
        (false, true, _) => "orphaned",
        (false, false, Some(_)) => "in use",
        (false, false, None) => "data directory unknown",
    };
    match command {
        ClusterCommand::List => {
            let clusters = embedded::kept_clusters()?;
            if clusters.is_empty() {
                println!("no clusters are kept outside their data directories");
            }
            for c in &clusters {
                let data_dir = c.data_dir.as_ref().map_or("-".into(), |d| d.display().to_string());
                println!("{}\t{data_dir}\t{}", c.path.display(), state(c));
            }
        }
        ClusterCommand::Remove { data_dir } => {
            let cluster = embedded::kept_cluster_of(&data_dir)?.ok_or_else(|| {
                format!(
                    "no cluster of {} is kept outside it (a cluster inside the data directory goes with it)",
                    data_dir.display()
                )
            })?;
            embedded::remove_kept(&cluster)?;
            println!("removed {}", cluster.path.display());
        }
        ClusterCommand::Prune => {
            let mut removed = 0;
            for c in embedded::kept_clusters()?.iter().filter(|c| c.orphaned()) {
                if c.running {
                    println!("left alone    {} (running)", c.path.display());
                    continue;
                }
                embedded::remove_kept(c)?;
                println!("removed       {}", c.path.display());
                removed += 1;
            }
            println!("{removed} orphaned clusters removed");
        }
    }
    Ok(())
}

/// `3h 12min`, `4min 5s` or `7s`.
fn humanize(age: std::time::Duration) -> String {
    let s = age.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}min {s}s"),
        (h, m, _) => format!("{h}h {m}min"),
    }
}

fn text<'a>(value: &'a serde_json::Value, key: &str) -> &'a str {
    value.get(key).and_then(serde_json::Value::as_str).unwrap_or("-")
}
