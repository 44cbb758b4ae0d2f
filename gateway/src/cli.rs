//! The command line: `gateway serve`, `gateway migrate`, `gateway keys`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

use crate::config::Config;
use crate::jwt::JwtKeys;
use crate::startup::{self, BoxError};

#[derive(Parser)]
#[command(name = "gateway", version, about = "A self-hosted, supabase-js compatible backend over PostgreSQL")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve /rest/v1, /auth/v1 and /storage/v1. Without --database-url, runs a
    /// private PostgreSQL cluster under --data-dir and stops it on exit.
    Serve(Config),
    /// Apply sql/ and policies/ to the database, then exit.
    Migrate(Config),
    /// Print the anon and service_role API keys.
    Keys(Config),
}

pub async fn run() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match Cli::parse().command {
        Command::Serve(config) => serve(config).await,
        Command::Migrate(config) => migrate(config).await,
        Command::Keys(config) => keys(&config),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> Result<(), BoxError> {
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
    let state = startup::state(config, database.api.clone(), secret)?;
    let (anon, service) = startup::api_keys(&state.jwt)?;
    println!("gateway is serving on http://{address}");
    println!("  API URL:          http://{address}");
    println!("  anon key:         {anon}");
    println!("  service_role key: {service}");
    startup::serve(listener, state, startup::shutdown_signal()).await?;
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

fn keys(config: &Config) -> Result<(), BoxError> {
    let (secret, _) = startup::jwt_secret(config)?;
    let keys = JwtKeys::hs256(&secret, config.jwt_aud.as_deref())?;
    let (anon, service) = startup::api_keys(&keys)?;
    println!("anon key:         {anon}");
    println!("service_role key: {service}");
    Ok(())
}
