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
//! - A database that recorded a migration this gateway's `sql/` does not have
//!   was migrated by a newer gateway: it is refused before anything runs
//!   ([`MigrateError::Newer`]), as an older schema's code would run against a
//!   newer schema (and, on `sql/` of the older binary, re-create what the
//!   newer one dropped).
//! - Each policy file's checksum is recorded in `_gateway.policies` when
//!   applied, so that [`plan`] (`gateway migrate --check`) can tell the policy
//!   files that would change something from those that would be re-applied as
//!   they are.

use std::collections::{BTreeMap, BTreeSet};
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
    pub fn checksum(&self) -> String {
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
    #[error(
        "the database was migrated by a newer gateway: it has applied {}, which this gateway's sql/ \
         does not have; run the newer gateway (or restore a backup taken before the upgrade)",
        unknown.join(", ")
    )]
    Newer { unknown: Vec<String> },
    #[error("{name} failed: {message}")]
    Failed { name: String, message: String },
    #[error("database error: {0}")]
    Database(#[from] tokio_postgres::Error),
}

/// What a run would do (`gateway migrate --check`), read without changing
/// anything.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Migrations not applied yet, in the order they would run.
    pub pending: Vec<String>,
    /// Policy files never applied, or changed since they were last applied.
    pub policies_changed: Vec<String>,
    /// Policy files applied before as they are now: re-applied on every run,
    /// they change nothing.
    pub policies_unchanged: Vec<String>,
}

impl Plan {
    /// A run would change something.
    pub fn has_work(&self) -> bool {
        !self.pending.is_empty() || !self.policies_changed.is_empty()
    }
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
             );
             create table if not exists _gateway.policies (
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
    let recorded = recorded(&*client, MIGRATIONS).await?;
    let pending = pending(migrations, &recorded)?;
    for file in pending {
        let current = file.checksum();
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
        tx.execute(
            "insert into _gateway.policies (name, checksum) values ($1, $2) \
             on conflict (name) do update set checksum = excluded.checksum, applied_at = now()",
            &[&file.name, &file.checksum()],
        )
        .await?;
        tx.commit().await?;
        report.policies.push(file.name.clone());
    }
    client.batch_execute("notify pgrst, 'reload schema'").await?;
    Ok(report)
}

/// What [`run`] would do now, read in one read-only transaction: nothing is
/// created, locked or applied. The same refusals as [`run`]: an edited
/// migration, or a database a newer gateway migrated.
pub async fn plan(
    client: &mut Client,
    migrations: &[SqlFile],
    policies: &[SqlFile],
) -> Result<Plan, MigrateError> {
    let tx = client.build_transaction().read_only(true).start().await?;
    let applied = recorded(&tx, MIGRATIONS).await?;
    let pending = pending(migrations, &applied)?.into_iter().map(|f| f.name.clone()).collect();
    let applied_policies = recorded(&tx, POLICIES).await?;
    tx.commit().await?;
    let (unchanged, changed): (Vec<&SqlFile>, Vec<&SqlFile>) =
        policies.iter().partition(|file| applied_policies.get(&file.name) == Some(&file.checksum()));
    Ok(Plan {
        pending,
        policies_changed: changed.into_iter().map(|f| f.name.clone()).collect(),
        policies_unchanged: unchanged.into_iter().map(|f| f.name.clone()).collect(),
    })
}

/// A table of applied files: its name and the query that reads it.
struct Record {
    table: &'static str,
    select: &'static str,
}

const MIGRATIONS: Record =
    Record { table: "_gateway.migrations", select: "select name, checksum from _gateway.migrations" };
const POLICIES: Record =
    Record { table: "_gateway.policies", select: "select name, checksum from _gateway.policies" };

/// The names and checksums a record holds; none when its table does not
/// exist yet (a new database, or one migrated before the table was kept).
async fn recorded(
    client: &impl tokio_postgres::GenericClient,
    record: Record,
) -> Result<BTreeMap<String, String>, MigrateError> {
    let exists =
        client.query_one("select to_regclass($1) is not null", &[&record.table]).await?.get::<_, bool>(0);
    if !exists {
        return Ok(BTreeMap::new());
    }
    let rows = client.query(record.select, &[]).await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// The migrations not recorded yet. Refuses a recorded one whose file
/// changed, and a recorded name no file has (a newer gateway's migration).
fn pending<'a>(
    migrations: &'a [SqlFile],
    recorded: &BTreeMap<String, String>,
) -> Result<Vec<&'a SqlFile>, MigrateError> {
    let known: BTreeSet<&str> = migrations.iter().map(|file| file.name.as_str()).collect();
    let unknown: Vec<String> =
        recorded.keys().filter(|name| !known.contains(name.as_str())).cloned().collect();
    if !unknown.is_empty() {
        return Err(MigrateError::Newer { unknown });
    }
    let mut pending = Vec::new();
    for file in migrations {
        let current = file.checksum();
        match recorded.get(&file.name) {
            Some(recorded) if *recorded == current => {}
            Some(recorded) => {
                return Err(MigrateError::Edited {
                    name: file.name.clone(),
                    recorded: recorded.clone(),
                    current,
                });
            }
            None => pending.push(file),
        }
    }
    Ok(pending)
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
