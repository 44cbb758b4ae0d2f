//! Applies `sql/` and `policies/` to a database.
//!
//! - Every `*.sql` file under `sql/` is applied once, in the order of its path,
//!   inside its own transaction, and recorded with a SHA-256 checksum in
//!   `_gateway.migrations`. A recorded file whose content changed is an error:
//!   applied migrations are history, so a change is a new file.
//! - Every file under `policies/` is applied on every run, after `sql/`, each in
//!   its own transaction; they are written to drop and re-create their policies.
//! - A session advisory lock serialises gateways that start at the same time on
//!   one database.
//! - At the end `NOTIFY pgrst, 'reload schema'` tells running gateways (and any
//!   PostgREST) to reload their schema cache.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tokio_postgres::Client;

/// One file to apply.
#[derive(Debug, Clone)]
pub struct SqlFile {
    /// Path relative to the SQL root, e.g. `sql/000_roles.sql`: the migration's name.
    pub name: String,
    pub text: String,
}

impl SqlFile {
    fn checksum(&self) -> String {
        hex::encode(Sha256::digest(self.text.as_bytes()))
    }
}

/// What a run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub applied: Vec<String>,
    pub policies: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("could not read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "{name} was edited after it was applied (recorded checksum {recorded}, file now {current}); \
         applied migrations must not change: revert the edit and put the change in a new file"
    )]
    Edited { name: String, recorded: String, current: String },
    #[error("{name} failed: {message}")]
    Failed { name: String, message: String },
    #[error("database error: {0}")]
    Database(#[from] tokio_postgres::Error),
}

/// The files of `<root>/sql` (recursively, by path) and `<root>/policies`.
pub fn load(root: &Path) -> Result<(Vec<SqlFile>, Vec<SqlFile>), MigrateError> {
    Ok((read_dir_sorted(root, "sql")?, read_dir_sorted(root, "policies")?))
}

fn read_dir_sorted(root: &Path, dir: &str) -> Result<Vec<SqlFile>, MigrateError> {
    let mut paths = Vec::new();
    collect(&root.join(dir), &mut paths)?;
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .map_err(|source| MigrateError::Read { path: path.clone(), source })?;
            let name = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            Ok(SqlFile { name, text })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), MigrateError> {
    if !dir.exists() {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|source| MigrateError::Read { path: dir.into(), source })?;
    for entry in entries {
        let path = entry.map_err(|source| MigrateError::Read { path: dir.into(), source })?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path);
        }
    }
    Ok(())
}

/// Applies the migrations not yet recorded, then every policy file.
pub async fn run(
    client: &mut Client,
    migrations: &[SqlFile],
    policies: &[SqlFile],
) -> Result<Report, MigrateError> {
    client
        .batch_execute(
            "select pg_advisory_lock(7243190528);
             create schema if not exists _gateway;
             revoke all on schema _gateway from public;
             create table if not exists _gateway.migrations (
                 name text primary key,
                 checksum text not null,
                 applied_at timestamptz not null default now()
             );",
        )
        .await?;
    let result = apply(client, migrations, policies).await;
    // The lock is per session; release it whatever happened.
    client.batch_execute("select pg_advisory_unlock(7243190528)").await?;
    result
}

async fn apply(
    client: &mut Client,
    migrations: &[SqlFile],
    policies: &[SqlFile],
) -> Result<Report, MigrateError> {
    let mut report = Report::default();
    for file in migrations {
        let current = file.checksum();
        let recorded = client
            .query_opt("select checksum from _gateway.migrations where name = $1", &[&file.name])
            .await?
            .map(|row| row.get::<_, String>(0));
        match recorded {
            Some(recorded) if recorded == current => continue,
            Some(recorded) => {
                return Err(MigrateError::Edited { name: file.name.clone(), recorded, current });
            }
            None => {}
        }
        let tx = client.transaction().await?;
        tx.batch_execute(&file.text).await.map_err(|e| failed(&file.name, &e))?;
        tx.execute(
            "insert into _gateway.migrations (name, checksum) values ($1, $2)",
            &[&file.name, &current],
        )
        .await?;
        tx.commit().await?;
        tracing::info!(migration = %file.name, "applied");
        report.applied.push(file.name.clone());
    }
    for file in policies {
        let tx = client.transaction().await?;
        tx.batch_execute(&file.text).await.map_err(|e| failed(&file.name, &e))?;
        tx.commit().await?;
        report.policies.push(file.name.clone());
    }
    client.batch_execute("notify pgrst, 'reload schema'").await?;
    Ok(report)
}

fn failed(name: &str, error: &tokio_postgres::Error) -> MigrateError {
    let message = match error.as_db_error() {
        Some(db) => match db.position() {
            Some(position) => format!("{} ({position:?})", db.message()),
            None => db.message().to_owned(),
        },
        None => error.to_string(),
    };
    MigrateError::Failed { name: name.to_owned(), message }
}
