//! Point-in-time recovery for the embedded cluster: `gateway serve
//! --wal-archive DIR` archives the server's write-ahead log and keeps base
//! backups in DIR; `gateway restore --to <time> --wal-archive DIR --data-dir
//! NEW` makes a new data directory holding the database as it was at that
//! moment. This is PostgreSQL's own continuous archiving
//! (<https://www.postgresql.org/docs/current/continuous-archiving.html>),
//! which Supabase sells as PITR on its paid plans.
//!
//! The archive's layout:
//!
//! ```text
//! DIR/wal/<segment>.gz        each WAL segment, gzip'd by archive_command
//! DIR/base/<UTC time>/        a base backup (pg_basebackup, plain format),
//!                             named by the time it was complete
//! DIR/jwt_secret              the data directory's JWT secret, so that a
//!                             recovered database's tokens and sealed
//!                             signing keys keep working
//! ```
//!
//! Segments are compressed: `archive_timeout` switches to a new segment every
//! minute when anything was written, and a switched segment is mostly zeros,
//! so a quiet database costs kilobytes a minute, not 16 MB.
//!
//! The archive holds the database only. Stored files are not rewritten in
//! place (each upload is a new version), so a recovery copies the versions its
//! rows name from the store they still are in (`--objects-from`); a version
//! deleted or replaced after the target time is gone from the store and is
//! reported.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use object_store::ObjectStoreExt;
use tokio_postgres::NoTls;

use crate::embedded::{self, Cluster};
use crate::startup::BoxError;
use crate::storage::backend::Backend;
use crate::storage::keys;

/// A base backup's folder name: UTC to the second, sorting in time order.
const STAMP: &str = "%Y%m%dT%H%M%SZ";
/// How often a segment is switched (so archived) when anything was written:
/// at most this much of the latest writes is not in the archive yet.
pub const ARCHIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// A recovery replays WAL before the server accepts connections.
const RECOVERY_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// The folder `--wal-archive` names.
#[derive(Debug, Clone)]
pub struct WalArchive {
    dir: PathBuf,
}

/// One base backup of the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseBackup {
    /// When it was complete: a recovery may stop at any moment from then on.
    pub complete_at: DateTime<Utc>,
    pub path: PathBuf,
}

impl WalArchive {
    /// `dir` is written into the server's `archive_command`, in single quotes,
    /// so a quote in it is refused rather than escaped.
    pub fn new(dir: &Path) -> Result<Self, BoxError> {
        let dir = std::path::absolute(dir)?;
        if dir.to_string_lossy().contains(['\'', '\n', '%']) {
            return Err(format!(
                "--wal-archive {}: the folder's path may not hold a quote, a newline or a %",
                dir.display()
            )
            .into());
        }
        Ok(Self { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn wal_dir(&self) -> PathBuf {
        self.dir.join("wal")
    }

    fn base_dir(&self) -> PathBuf {
        self.dir.join("base")
    }

    /// The settings the server runs with to archive into this folder.
    ///
    /// The command keeps what is archived whole and never overwrites it: it
    /// writes `<segment>.gz.part`, syncs it and renames it, and a segment
    /// archived before (the server may ask again after a crash) succeeds only
    /// when its bytes are the same, as PostgreSQL's documentation asks
    /// (section 26.3.1).
    pub fn server_settings(&self) -> Vec<String> {
        let wal = self.wal_dir();
        let wal = wal.display();
        vec![
            "archive_mode=on".to_owned(),
            format!(
                "archive_command=if [ -f '{wal}/%f.gz' ]; then gzip -dc '{wal}/%f.gz' | cmp -s - '%p'; \
                 else gzip -c '%p' > '{wal}/%f.gz.part' && sync '{wal}/%f.gz.part' && \
                 mv '{wal}/%f.gz.part' '{wal}/%f.gz'; fi"
            ),
            format!("archive_timeout={}", ARCHIVE_TIMEOUT.as_secs()),
        ]
    }

    /// Makes the folders, owned by the server's user (which runs the archive
    /// command).
    pub fn prepare(&self, cluster: &Cluster) -> Result<(), BoxError> {
        for dir in [self.dir.clone(), self.wal_dir(), self.base_dir()] {
            cluster.create_owned_dir(&dir, 0o700)?;
        }
        if let Some(owner) = cluster.owner()
            && !embedded::reachable(&self.dir, owner)
        {
            return Err(format!(
                "--wal-archive {}: the postgres user, which runs the archive command, cannot enter it; \
                 choose a folder it may reach",
                self.dir.display()
            )
            .into());
        }
        Ok(())
    }

    /// Keeps a copy of the JWT secret in the archive, for the data directory
    /// a recovery makes.
    pub fn keep_secret(&self, jwt_secret: &crate::config::Secret) -> Result<(), BoxError> {
        write_private(&self.dir.join("jwt_secret"), jwt_secret.expose())
    }

    /// The base backups, oldest first.
    pub fn base_backups(&self) -> Result<Vec<BaseBackup>, BoxError> {
        let mut backups = Vec::new();
        let entries = match std::fs::read_dir(self.base_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(backups),
            Err(e) => return Err(format!("could not read {}: {e}", self.base_dir().display()).into()),
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Ok(time) = chrono::NaiveDateTime::parse_from_str(&name, STAMP) {
                backups.push(BaseBackup { complete_at: time.and_utc(), path: entry.path() });
            }
        }
        backups.sort_by_key(|b| b.complete_at);
        Ok(backups)
    }

    /// Takes a base backup of the running `cluster` (`pg_basebackup`, with a
    /// fast checkpoint and the WAL it needs) into `base/<time>.partial`,
    /// renamed when whole.
    pub fn take_base_backup(&self, cluster: &Cluster) -> Result<BaseBackup, BoxError> {
        let partial = self.base_dir().join(format!("{}.partial", Utc::now().format(STAMP)));
        if partial.exists() {
            std::fs::remove_dir_all(&partial)?;
        }
        let output = cluster
            .command_as_owner(cluster.bindir().join("pg_basebackup"))
            .arg("--pgdata")
            .arg(&partial)
            .arg("--host")
            .arg(cluster.socket_dir())
            .args(["--port", &cluster.port().to_string(), "--username", embedded::SUPERUSER])
            .args(["--checkpoint=fast", "--wal-method=fetch", "--no-password"])
            .output()?;
        if !output.status.success() {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(
                format!("pg_basebackup failed: {}", String::from_utf8_lossy(&output.stderr).trim()).into()
            );
        }
        let complete_at = Utc::now();
        let path = self.base_dir().join(complete_at.format(STAMP).to_string());
        std::fs::rename(&partial, &path)?;
        Ok(BaseBackup { complete_at: round_down(complete_at), path })
    }

    /// Keeps the newest `keep` base backups and the WAL the oldest of them
    /// needs (`pg_archivecleanup`); returns how many backups were deleted.
    pub fn prune(&self, cluster: &Cluster, keep: usize) -> Result<usize, BoxError> {
        let backups = self.base_backups()?;
        let remove = backups.len().saturating_sub(keep.max(1));
        for old in &backups[..remove] {
            std::fs::remove_dir_all(&old.path)?;
        }
        if let Some(oldest) = backups.get(remove) {
            let segment = start_segment(&oldest.path)?;
            let output = cluster
                .command_as_owner(cluster.bindir().join("pg_archivecleanup"))
                .args(["-x", ".gz"])
                .arg(self.wal_dir())
                .arg(&segment)
                .output()?;
            if !output.status.success() {
                return Err(format!(
                    "pg_archivecleanup failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                )
                .into());
            }
        }
        Ok(remove)
    }

    /// The newest base backup a recovery to `target` can start from.
    pub fn base_for(&self, target: DateTime<Utc>) -> Result<BaseBackup, BoxError> {
        let backups = self.base_backups()?;
        match backups.iter().rev().find(|b| b.complete_at <= target) {
            Some(backup) => Ok(backup.clone()),
            None => Err(match backups.first() {
                Some(first) => format!(
                    "{target} is before the oldest base backup in {} (complete at {}): the archive cannot \
                     go back that far",
                    self.dir.display(),
                    first.complete_at
                ),
                None => format!(
                    "{} holds no base backup: `gateway serve --wal-archive` takes one when it starts",
                    self.dir.display()
                ),
            }
            .into()),
        }
    }
}

/// A folder name has whole seconds: the backup was complete by the end of its
/// second, so the name's time is rounded down, then a recovery target of that
/// second is refused only if it truly is earlier.
fn round_down(time: DateTime<Utc>) -> DateTime<Utc> {
    chrono::NaiveDateTime::parse_from_str(&time.format(STAMP).to_string(), STAMP)
        .map(|t| t.and_utc())
        .unwrap_or(time)
}

/// The first WAL segment a base backup needs, from its `backup_label`
/// (`START WAL LOCATION: 0/2000028 (file 000000010000000000000002)`).
fn start_segment(base: &Path) -> Result<String, BoxError> {
    let label = std::fs::read_to_string(base.join("backup_label"))
        .map_err(|e| format!("could not read {}/backup_label: {e}", base.display()))?;
    label
        .lines()
        .find_map(|line| line.strip_prefix("START WAL LOCATION:"))
        .and_then(|rest| rest.split("(file ").nth(1))
        .map(|file| file.trim_end_matches(')').trim().to_owned())
        .ok_or_else(|| format!("{}/backup_label names no start segment", base.display()).into())
}

/// Base backups while `gateway serve --wal-archive` runs: one at start when
/// the archive has none, then one every `every` (`--backup-every`), keeping
/// the newest `keep` (`--backup-keep`) and the WAL they need. A failure is
/// logged; the next is tried at its time.
pub fn spawn_base_backups(
    archive: WalArchive,
    cluster: Cluster,
    every: Option<Duration>,
    keep: usize,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let first = {
            let (archive, cluster) = (archive.clone(), cluster.clone());
            tokio::task::spawn_blocking(move || -> Result<Option<BaseBackup>, BoxError> {
                match archive.base_backups()?.is_empty() {
                    true => archive.take_base_backup(&cluster).map(Some),
                    false => Ok(None),
                }
            })
            .await
        };
        log_base_backup(first, &archive);
        let Some(every) = every else { return };
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let (archive_, cluster) = (archive.clone(), cluster.clone());
            let taken = tokio::task::spawn_blocking(move || -> Result<Option<BaseBackup>, BoxError> {
                let backup = archive_.take_base_backup(&cluster)?;
                let removed = archive_.prune(&cluster, keep)?;
                tracing::info!(removed, "older base backups and the WAL only they needed deleted");
                Ok(Some(backup))
            })
            .await;
            log_base_backup(taken, &archive);
        }
    })
}

fn log_base_backup(
    result: Result<Result<Option<BaseBackup>, BoxError>, tokio::task::JoinError>,
    archive: &WalArchive,
) {
    match result {
        Ok(Ok(Some(backup))) => tracing::info!(path = %backup.path.display(), "base backup written"),
        Ok(Ok(None)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, archive = %archive.dir().display(), "base backup failed"),
        Err(e) => tracing::error!(error = %e, archive = %archive.dir().display(), "base backup failed"),
    }
}

/// What a recovery brought back.
#[derive(Debug)]
pub struct Recovered {
    pub base: BaseBackup,
    /// Object versions copied into the new store.
    pub objects: u64,
    /// Object rows whose bytes were found in neither store (deleted or
    /// replaced after the target time), as `bucket/name`.
    pub missing: Vec<String>,
}

/// Makes `data_dir` (empty or missing) hold the database as it was at
/// `target`: the newest base backup before it, then the archived WAL replayed
/// up to it (`recovery_target_time`, the last transaction committed at or
/// before it included), promoted. The object versions its rows name are
/// copied from `objects_from` into the store `storage` configures (local disk
/// under `storage_root`, or S3) when it lacks them; the JWT secret comes from
/// the archive.
pub async fn restore_to(
    archive: &WalArchive,
    target: DateTime<Utc>,
    data_dir: &Path,
    (storage, storage_root): (&crate::storage::StorageConfig, &Path),
    objects_from: Option<&Backend>,
) -> Result<Recovered, BoxError> {
    crate::backup::refuse_unless_empty(data_dir)?;
    let base = archive.base_for(target)?;
    let store = &Backend::from_config(storage, storage_root)?;
    let cluster = {
        let (archive, base, data_dir) = (archive.clone(), base.clone(), data_dir.to_path_buf());
        tokio::task::spawn_blocking(move || recover(&archive, &base, target, &data_dir)).await??
    };
    let promoted = wait_for_promotion(&cluster)
        .await
        .map_err(|e| recovery_failed(archive, &cluster, target, e.to_string()));
    let copied = match promoted {
        Ok(()) => copy_objects(&cluster, store, objects_from).await,
        Err(e) => Err(e),
    };
    let stopped = {
        let cluster = cluster.clone();
        tokio::task::spawn_blocking(move || cluster.stop()).await?
    };
    let (objects, missing) = copied?;
    stopped?;
    let secret = archive.dir().join("jwt_secret");
    if secret.exists() {
        std::fs::copy(&secret, data_dir.join("jwt_secret"))?;
        std::fs::set_permissions(data_dir.join("jwt_secret"), std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(Recovered { base, objects, missing })
}

/// Copies the base backup into the new cluster and starts it in recovery
/// with the target given on the command line (so nothing of it stays in the
/// configuration once the server is promoted).
fn recover(
    archive: &WalArchive,
    base: &BaseBackup,
    target: DateTime<Utc>,
    data_dir: &Path,
) -> Result<Cluster, BoxError> {
    std::fs::create_dir_all(data_dir)?;
    std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o711))?;
    let wal = archive.wal_dir();
    let settings = vec![
        format!("restore_command=gzip -dc '{}/%f.gz' > '%p'", wal.display()),
        format!("recovery_target_time={}", target.format("%Y-%m-%d %H:%M:%S%.6f+00")),
        "recovery_target_action=promote".to_owned(),
        "archive_mode=off".to_owned(),
    ];
    let cluster = Cluster::new(data_dir)?.with_settings(settings).with_start_timeout(RECOVERY_TIMEOUT);
    let copied =
        cluster.command_as_owner("cp").arg("-a").arg(base.path.join(".")).arg(cluster.pgdata()).output()?;
    if !copied.status.success() {
        return Err(format!(
            "could not copy the base backup {}: {}",
            base.path.display(),
            String::from_utf8_lossy(&copied.stderr).trim()
        )
        .into());
    }
    std::fs::write(cluster.pgdata().join("recovery.signal"), "")?;
    if let Some(owner) = cluster.owner() {
        std::os::unix::fs::chown(cluster.pgdata().join("recovery.signal"), Some(owner.uid), Some(owner.gid))?;
    }
    cluster.start().map_err(|e| recovery_failed(archive, &cluster, target, e.to_string()))?;
    Ok(cluster)
}

/// Why a recovery failed, from the server's log: most often the target is
/// later than the archive reaches.
fn recovery_failed(
    archive: &WalArchive,
    cluster: &Cluster,
    target: DateTime<Utc>,
    error: String,
) -> BoxError {
    let log = std::fs::read_to_string(cluster.pgdata().join("server.log")).unwrap_or_default();
    if log.contains("before configured recovery target was reached") {
        return format!(
            "the archive in {} ends before {target}: its last segment was replayed and the target not \
             reached (the writes of the last {} s may not be archived yet)",
            archive.dir().display(),
            ARCHIVE_TIMEOUT.as_secs()
        )
        .into();
    }
    let tail: Vec<&str> = log.lines().rev().take(10).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!("the recovery failed: {error}\nserver.log:\n{}", tail.join("\n")).into()
}

/// The server accepts connections once its replay is consistent; it is the
/// recovered database once the target is reached and it is promoted. A
/// server still starting up refuses connections for a while: those are
/// tried again as long as it runs.
async fn wait_for_promotion(cluster: &Cluster) -> Result<(), BoxError> {
    let deadline = tokio::time::Instant::now() + RECOVERY_TIMEOUT;
    loop {
        if tokio::time::Instant::now() > deadline {
            return Err("the recovery did not end in time".into());
        }
        let connected = cluster.pg_config(embedded::SUPERUSER).connect(NoTls).await;
        let (client, connection) = match connected {
            Ok(connected) => connected,
            Err(_) if cluster.is_running() => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(e) => return Err(format!("the recovering server stopped: {e}").into()),
        };
        let connection = tokio::spawn(connection);
        let recovering = client.query_one("select pg_is_in_recovery()", &[]).await;
        drop(client);
        let _ = connection.await;
        match recovering {
            Ok(row) if !row.get::<_, bool>(0) => return Ok(()),
            Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(_) if cluster.is_running() => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(e) => return Err(format!("the recovering server stopped: {e}").into()),
        }
    }
}

/// Copies into `store` the object versions the recovered rows name that it
/// lacks, from `from`. Returns how many were copied and which were found in
/// neither.
async fn copy_objects(
    cluster: &Cluster,
    store: &Backend,
    from: Option<&Backend>,
) -> Result<(u64, Vec<String>), BoxError> {
    let (client, connection) = cluster.pg_config(embedded::SUPERUSER).connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let rows = client
        .query(
            "select bucket_id, name, version from storage.objects where version is not null \
             order by bucket_id, name",
            &[],
        )
        .await;
    drop(client);
    let _ = connection.await;
    let rows = match rows {
        Ok(rows) => rows,
        // A database without Storage's tables has no objects to copy.
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) => {
            return Ok((0, vec![]));
        }
        Err(e) => return Err(e.into()),
    };
    let (mut copied, mut missing) = (0, Vec::new());
    for row in rows {
        let (bucket, name, version): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let path =
            keys::version_path(&bucket, &name, &version).map_err(|e| format!("{bucket}/{name}: {e:?}"))?;
        if store.store.head(&path).await.is_ok() {
            continue;
        }
        let Some(from) = from else {
            missing.push(format!("{bucket}/{name}"));
            continue;
        };
        match from.store.get(&path).await {
            Ok(got) => {
                let size = got.meta.size;
                let body = got.into_stream();
                let written = store.write(&path, body, size).await.map_err(|e| format!("{path}: {e:?}"))?;
                if written.size != size {
                    return Err(format!("{path} was cut short while copied").into());
                }
                copied += 1;
            }
            Err(object_store::Error::NotFound { .. }) => missing.push(format!("{bucket}/{name}")),
            Err(e) => return Err(format!("could not read {path}: {e}").into()),
        }
    }
    Ok((copied, missing))
}

fn write_private(path: &Path, text: &str) -> Result<(), BoxError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let partial = path.with_extension("partial");
    let mut file =
        std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&partial)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&partial, path)?;
    Ok(())
}

/// A recovery target as `restore --to` takes it: RFC 3339
/// (`2026-11-28T12:00:00Z`, an offset, fractions) or `YYYY-MM-DD HH:MM:SS`
/// in UTC.
pub fn parse_target(text: &str) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").map(|t| t.and_utc()))
        .map_err(|_| {
            format!(
                "invalid --to {text:?}: expected e.g. 2026-11-28T12:00:00Z or '2026-11-28 12:00:00' (UTC)"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_read_as_rfc_3339_or_as_utc_wall_time() {
        let cases = [
            ("2026-11-28T12:00:00Z", "2026-11-28T12:00:00+00:00"),
            ("2026-11-28T13:00:00+01:00", "2026-11-28T12:00:00+00:00"),
            ("2026-11-28 12:00:00", "2026-11-28T12:00:00+00:00"),
            ("2026-11-28 12:00:00.25", "2026-11-28T12:00:00.250+00:00"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_target(text).map(|t| t.to_rfc3339()).as_deref(), Ok(expected), "{text}");
        }
        for bad in ["yesterday", "2026-11-28", ""] {
            assert!(parse_target(bad).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn the_start_segment_is_read_from_the_backup_label() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("backup_label"),
            "START WAL LOCATION: 0/2000028 (file 000000010000000000000002)\nCHECKPOINT LOCATION: 0/2000060\n",
        )
        .expect("write");
        assert_eq!(start_segment(dir.path()).expect("segment"), "000000010000000000000002");
    }

    #[test]
    fn a_folder_whose_path_could_break_out_of_the_archive_command_is_refused() {
        for bad in ["/srv/it's", "/srv/100%", "/srv/a\nb"] {
            assert!(WalArchive::new(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert!(WalArchive::new(Path::new("/srv/wal archive")).is_ok());
    }

    #[test]
    fn the_archive_command_never_overwrites_a_segment() {
        let archive = WalArchive::new(Path::new("/srv/wal")).expect("archive");
        let settings = archive.server_settings();
        let command = settings.iter().find(|s| s.starts_with("archive_command=")).expect("command");
        assert!(command.contains("if [ -f '/srv/wal/wal/%f.gz' ]; then gzip -dc"), "{command}");
        assert!(command.contains("mv '/srv/wal/wal/%f.gz.part' '/srv/wal/wal/%f.gz'"), "{command}");
    }
}
