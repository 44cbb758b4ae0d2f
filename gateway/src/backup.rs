//! `gateway backup` and `gateway restore`: one archive holding the database
//! and the stored files its rows name, taken while the gateway serves.
//!
//! The archive is a tar file, uncompressed, written and read entry by entry:
//! a backup streams each object from the store into it without holding it in
//! memory or on disk twice, a restore reads it front to back, and any `tar`
//! can list or unpack it by hand. Its entries, in this order:
//!
//! ```text
//! manifest.json        format, gateway version, schema level, when, counts
//! jwt_secret           the JWT secret (so issued tokens and the signing keys
//!                      sealed with it in the database keep working)
//! staff_password       the seeded staff user's password, when there is one
//! roles.sql            pg_dumpall --roles-only --no-role-passwords
//! database.dump        pg_dump --format=custom of the gateway's database
//! objects/<bucket>/<key>/<version>   the bytes of each row of storage.objects
//! ```
//!
//! The dump is PostgreSQL's custom format: compressed, and `pg_restore` picks
//! what it restores from it. It holds every schema of the database (`auth`,
//! `storage`, `public`, `_gateway`...), without the rows of unfinished
//! resumable uploads, whose partial bytes are not copied: a client resumes
//! such an upload from the start.
//!
//! Consistency: the dump and the list of objects come from one snapshot,
//! exported by a `REPEATABLE READ` transaction that stays open until the last
//! byte is copied (`pg_dump --snapshot`), and the bytes of every row in that
//! snapshot are still in the store while they are copied: versions are never
//! rewritten in place, and the backup holds the lock that keeps requests and
//! the sweep from removing replaced or deleted versions
//! (`gateway_storage::hold`). So the archive never holds a row whose bytes are
//! missing, while writes go on.
//!
//! The archive holds the JWT secret and every user's data: it is written with
//! mode 0600, and is to be kept as a secret.

use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bytes::Bytes;
use futures::StreamExt;
use object_store::ObjectStoreExt;
use serde_json::{Value, json};
use tokio::runtime::Handle;
use tokio_postgres::NoTls;
use tokio_postgres::config::Host;

use crate::config::Secret;
use crate::embedded::{self, Cluster};
use crate::startup::BoxError;
use crate::storage::backend::Backend;
use crate::storage::{hold, keys, sweep};

/// The archive's layout; a restore refuses another.
pub const FORMAT: u64 = 1;
const MANIFEST: &str = "manifest.json";
const JWT_SECRET: &str = "jwt_secret";
const STAFF_PASSWORD: &str = "staff_password";
const ROLES: &str = "roles.sql";
const DUMP: &str = "database.dump";
const OBJECTS: &str = "objects/";

/// What a backup copies from.
pub struct Source<'a> {
    /// A connection that may read every schema (the superuser of the
    /// embedded cluster, or `--database-admin-url`).
    pub admin: &'a tokio_postgres::Config,
    /// Where `pg_dump` and `pg_dumpall` are (`embedded::find_bindir`).
    pub bindir: &'a Path,
    pub store: &'a Backend,
    pub secret: &'a Secret,
    pub staff_password: Option<String>,
}

/// What an archive holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub objects: u64,
    pub object_bytes: u64,
    pub database_bytes: u64,
}

/// Writes the archive to `out` (through `<out>.partial`, renamed when whole).
pub async fn backup(source: Source<'_>, out: &Path) -> Result<Summary, BoxError> {
    let (client, connection) = source.admin.connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let result = backup_on(&client, &source, out).await;
    // Ends the snapshot's transaction and, with the session, its locks.
    drop(client);
    let _ = connection.await;
    result
}

async fn backup_on(
    client: &tokio_postgres::Client,
    source: &Source<'_>,
    out: &Path,
) -> Result<Summary, BoxError> {
    // A sweep under way finishes first: it may be removing versions that
    // rows named a moment ago.
    let free = client.query_one("select pg_try_advisory_lock($1)", &[&sweep::LOCK_KEY]).await?;
    if !free.get::<_, bool>(0) {
        tracing::info!("waiting for the storage sweep under way to finish");
        client.execute("select pg_advisory_lock($1)", &[&sweep::LOCK_KEY]).await?;
    }
    client.execute("select pg_advisory_lock($1)", &[&hold::HOLD_KEY]).await?;
    // The snapshot is taken by the transaction's first statement, after the
    // locks: every removal that could touch a row it holds comes after it.
    client.batch_execute("begin isolation level repeatable read, read only").await?;
    let row = client
        .query_one(
            "select pg_export_snapshot(), current_setting('server_version'), now()::text, current_database()",
            &[],
        )
        .await?;
    let snapshot: String = row.get(0);
    let manifest_head = json!({
        "format": FORMAT,
        "gateway": env!("CARGO_PKG_VERSION"),
        "schema": env!("GATEWAY_SCHEMA_LEVEL"),
        "postgresql": row.get::<_, String>(1),
        "taken_at": row.get::<_, String>(2),
        "database": row.get::<_, String>(3),
    });
    let objects: Vec<(String, String, String)> = client
        .query(
            "select bucket_id, name, version from storage.objects where version is not null \
             order by bucket_id, name",
            &[],
        )
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();

    let partial = with_suffix(out, ".partial");
    let dump_file = with_suffix(out, ".dump.partial");
    let result = async {
        let roles =
            run_pg(source.bindir, "pg_dumpall", source.admin, &["--roles-only", "--no-role-passwords"])
                .await?;
        let dump = private_file(&dump_file)?;
        let mut pg_dump = pg_command(source.bindir, "pg_dump", source.admin);
        pg_dump
            .args(["--format=custom", "--no-password"])
            .arg(format!("--snapshot={snapshot}"))
            // Unfinished resumable uploads: their partial bytes are not copied.
            .arg("--exclude-table-data=_gateway.resumable_uploads")
            .stdout(dump);
        finish(pg_dump, "pg_dump").await?;
        let mut manifest = manifest_head;
        manifest["objects"] = json!(objects.len());
        let archive = private_file(&partial)?;
        let store = source.store.clone();
        let secret = source.secret.expose().to_owned();
        let staff = source.staff_password.clone();
        let dump_path = dump_file.clone();
        let handle = Handle::current();
        let summary = tokio::task::spawn_blocking(move || {
            write_archive(
                archive,
                &handle,
                &store,
                &manifest,
                &secret,
                staff.as_deref(),
                &roles,
                &dump_path,
                &objects,
            )
        })
        .await??;
        std::fs::rename(&partial, out)?;
        Ok::<Summary, BoxError>(summary)
    }
    .await;
    let _ = std::fs::remove_file(&dump_file);
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    client.batch_execute("commit").await?;
    result
}

#[allow(clippy::too_many_arguments)]
fn write_archive(
    file: std::fs::File,
    handle: &Handle,
    store: &Backend,
    manifest: &Value,
    secret: &str,
    staff_password: Option<&str>,
    roles: &[u8],
    dump: &Path,
    objects: &[(String, String, String)],
) -> Result<Summary, BoxError> {
    let mut tar = tar::Builder::new(std::io::BufWriter::with_capacity(1 << 20, file));
    append_bytes(&mut tar, MANIFEST, serde_json::to_vec_pretty(manifest)?.as_slice())?;
    append_bytes(&mut tar, JWT_SECRET, secret.as_bytes())?;
    if let Some(password) = staff_password {
        append_bytes(&mut tar, STAFF_PASSWORD, password.as_bytes())?;
    }
    append_bytes(&mut tar, ROLES, roles)?;
    let mut dump_file = std::fs::File::open(dump)?;
    let database_bytes = dump_file.metadata()?.len();
    let mut header = entry_header(database_bytes);
    tar.append_data(&mut header, DUMP, &mut dump_file)?;
    let mut summary = Summary { objects: 0, object_bytes: 0, database_bytes };
    let mut missing = Vec::new();
    for (bucket, name, version) in objects {
        let path = keys::version_path(bucket, name, version)
            .map_err(|_| format!("the object {bucket}/{name} has a name the store cannot hold"))?;
        let got = match handle.block_on(store.store.get(&path)) {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => {
                missing.push(format!("{bucket}/{name} (version {version})"));
                continue;
            }
            Err(e) => return Err(format!("could not read {path}: {e}").into()),
        };
        let size = got.meta.size;
        let mut header = entry_header(size);
        let mut reader = StreamReader { handle, stream: got.into_stream(), chunk: Bytes::new(), read: 0 };
        tar.append_data(&mut header, format!("{OBJECTS}{path}"), (&mut reader).take(size))?;
        if reader.read != size {
            return Err(
                format!("{path} changed size while it was copied ({} of {size} bytes)", reader.read).into()
            );
        }
        summary.objects += 1;
        summary.object_bytes += size;
    }
    if !missing.is_empty() {
        return Err(format!(
            "the bytes of {} objects are missing from the store, so no backup was written: {}",
            missing.len(),
            missing.join(", ")
        )
        .into());
    }
    let mut writer = tar.into_inner()?;
    writer.flush()?;
    writer.get_ref().sync_all()?;
    Ok(summary)
}

fn entry_header(size: u64) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(0o600);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_mtime(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    );
    header
}

fn append_bytes<W: Write>(tar: &mut tar::Builder<W>, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut header = entry_header(bytes.len() as u64);
    tar.append_data(&mut header, name, bytes)
}

/// A blocking `Read` over an object's byte stream, for the tar writer, which
/// runs on a blocking thread.
struct StreamReader<'a> {
    handle: &'a Handle,
    stream: futures::stream::BoxStream<'static, object_store::Result<Bytes>>,
    chunk: Bytes,
    read: u64,
}

impl Read for StreamReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            match self.handle.block_on(self.stream.next()) {
                None => return Ok(0),
                Some(Ok(chunk)) => self.chunk = chunk,
                Some(Err(e)) => return Err(std::io::Error::other(e)),
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk.split_to(n));
        self.read += n as u64;
        Ok(n)
    }
}

/// Where scheduled backups go (`--backup-dir`): a folder, or a bucket of
/// the S3 store with an optional prefix, written `s3://<bucket>[/<prefix>]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    Folder(PathBuf),
    S3 { bucket: String, prefix: String },
}

impl std::str::FromStr for Destination {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let Some(rest) = text.strip_prefix("s3://") else {
            return match text {
                "" => Err("the backup folder is empty".to_owned()),
                _ => Ok(Destination::Folder(PathBuf::from(text))),
            };
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_matches('/');
        if bucket.is_empty() {
            return Err(format!("{text:?} names no bucket: write s3://<bucket>[/<prefix>]"));
        }
        if prefix.split('/').any(|part| matches!(part, "." | "..")) {
            return Err(format!("{text:?}: the prefix cannot hold . or .. segments"));
        }
        Ok(Destination::S3 { bucket: bucket.to_owned(), prefix: prefix.to_owned() })
    }
}

impl std::fmt::Display for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Destination::Folder(path) => write!(f, "{}", path.display()),
            Destination::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            Destination::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}

/// A [`Destination`] ready to be written to.
#[derive(Clone)]
pub enum Target {
    Folder(PathBuf),
    /// Archives are written whole to `staging` (on local disk, as a backup
    /// cut short must not leave a half object behind), then streamed to the
    /// bucket in multipart parts, which S3 shows only once complete.
    Bucket {
        store: Backend,
        label: String,
        prefix: String,
        staging: PathBuf,
    },
}

impl Target {
    /// The target of `destination`; a bucket is reached with the S3 store's
    /// settings (`STORAGE_S3_ENDPOINT`, region, keys, path style), so that
    /// backups can go to the store that holds the files or to another bucket
    /// on the same server. Staging is under `data_dir`.
    pub fn new(
        destination: &Destination,
        storage: &crate::storage::StorageConfig,
        data_dir: &Path,
    ) -> Result<Self, BoxError> {
        match destination {
            Destination::Folder(path) => Ok(Target::Folder(path.clone())),
            Destination::S3 { bucket, prefix } => {
                let mut config = storage.clone();
                config.s3_bucket = Some(bucket.clone());
                config.cache_size = 0;
                let store = Backend::from_config(&config, data_dir)?;
                Ok(Target::Bucket {
                    store,
                    label: destination.to_string(),
                    prefix: prefix.clone(),
                    staging: data_dir.join("backup-staging"),
                })
            }
        }
    }

    fn label(&self) -> String {
        match self {
            Target::Folder(path) => path.display().to_string(),
            Target::Bucket { label, .. } => label.clone(),
        }
    }
}

/// Scheduled backups (`--backup-every`): an archive every `every` into
/// `target`, keeping the newest `keep`.
pub struct Schedule {
    pub admin: tokio_postgres::Config,
    pub bindir: PathBuf,
    pub store: Backend,
    pub secret: Secret,
    pub staff_password_file: PathBuf,
    pub target: Target,
    pub every: std::time::Duration,
    pub keep: usize,
}

/// The names the schedule gives its archives; only these are ever deleted.
const SCHEDULED_PREFIX: &str = "gateway-";
const SCHEDULED_SUFFIX: &str = ".backup";

fn is_scheduled_name(name: &str) -> bool {
    name.starts_with(SCHEDULED_PREFIX) && name.ends_with(SCHEDULED_SUFFIX)
}

/// Runs `schedule` until aborted: the first backup comes `every` after start.
/// Each one is logged; a failed one is logged and the next one tried at its
/// time.
pub fn spawn_scheduled(schedule: Schedule) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let first = tokio::time::Instant::now() + schedule.every;
        let mut ticks = tokio::time::interval_at(first, schedule.every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match scheduled_once(&schedule).await {
                Ok((archive, summary, removed)) => tracing::info!(
                    archive,
                    objects = summary.objects,
                    object_bytes = summary.object_bytes,
                    database_bytes = summary.database_bytes,
                    removed,
                    "scheduled backup written"
                ),
                Err(e) => {
                    tracing::error!(error = %e, target = schedule.target.label(), "scheduled backup failed");
                }
            }
        }
    })
}

/// One scheduled backup and the pruning after it: where the archive was
/// written (a path, or an `s3://` URL) and how many old ones were deleted.
pub async fn scheduled_once(schedule: &Schedule) -> Result<(String, Summary, usize), BoxError> {
    let folder = match &schedule.target {
        Target::Folder(folder) => folder,
        Target::Bucket { staging, .. } => staging,
    };
    std::fs::create_dir_all(folder)?;
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))?;
    // UTC to the second sorts by name in the order taken.
    let name = format!("{SCHEDULED_PREFIX}{}{SCHEDULED_SUFFIX}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ"));
    let path = folder.join(&name);
    let source = Source {
        admin: &schedule.admin,
        bindir: &schedule.bindir,
        store: &schedule.store,
        secret: &schedule.secret,
        staff_password: std::fs::read_to_string(&schedule.staff_password_file).ok(),
    };
    // What a backup cut short by a stop left (`.partial`, or a staged
    // archive not yet sent) goes first.
    for entry in std::fs::read_dir(folder)?.filter_map(Result::ok) {
        let entry_name = entry.file_name();
        let entry_name = entry_name.to_string_lossy();
        let staged = matches!(schedule.target, Target::Bucket { .. }) && is_scheduled_name(&entry_name);
        if staged || (entry_name.starts_with(SCHEDULED_PREFIX) && entry_name.ends_with(".partial")) {
            std::fs::remove_file(entry.path())?;
        }
    }
    let summary = backup(source, &path).await?;
    match &schedule.target {
        Target::Folder(folder) => {
            let removed = prune_folder(folder, schedule.keep)?;
            Ok((path.display().to_string(), summary, removed))
        }
        Target::Bucket { store, label, prefix, .. } => {
            let sent = upload_archive(store, prefix, &name, &path).await;
            let _ = std::fs::remove_file(&path);
            sent?;
            let removed = prune_bucket(store, prefix, schedule.keep).await?;
            Ok((format!("{}/{name}", label.trim_end_matches('/')), summary, removed))
        }
    }
}

/// Deletes the oldest of the schedule's archives in `folder` beyond `keep`.
fn prune_folder(folder: &Path, keep: usize) -> Result<usize, BoxError> {
    let mut archives: Vec<PathBuf> = std::fs::read_dir(folder)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(is_scheduled_name) && path.is_file()
        })
        .collect();
    archives.sort();
    let old = archives.len().saturating_sub(keep);
    for archive in &archives[..old] {
        std::fs::remove_file(archive)?;
    }
    Ok(old)
}

fn object_path(prefix: &str, name: &str) -> Result<object_store::path::Path, BoxError> {
    let location = match prefix {
        "" => name.to_owned(),
        prefix => format!("{prefix}/{name}"),
    };
    object_store::path::Path::parse(&location)
        .map_err(|e| format!("the backup destination cannot hold {location:?}: {e}").into())
}

/// Streams the staged archive at `file` to `<prefix>/<name>` in the bucket.
async fn upload_archive(store: &Backend, prefix: &str, name: &str, file: &Path) -> Result<(), BoxError> {
    let location = object_path(prefix, name)?;
    let size = std::fs::metadata(file)?.len();
    let reader = tokio::fs::File::open(file).await?;
    let body = futures::stream::try_unfold(reader, |mut reader| async move {
        use tokio::io::AsyncReadExt;
        let mut buffer = vec![0; 1 << 20];
        let n = reader.read(&mut buffer).await?;
        buffer.truncate(n);
        Ok::<_, std::io::Error>((n > 0).then(|| (Bytes::from(buffer), reader)))
    });
    let written = store
        .write(&location, body, size)
        .await
        .map_err(|e| format!("could not send the archive to {location}: {e:?}"))?;
    if written.size != size {
        return Err(format!("{location}: sent {} of {size} bytes", written.size).into());
    }
    Ok(())
}

/// Deletes the oldest of the schedule's archives directly under `prefix`
/// beyond `keep`; other objects of the bucket are left alone.
async fn prune_bucket(store: &Backend, prefix: &str, keep: usize) -> Result<usize, BoxError> {
    let under = match prefix {
        "" => None,
        prefix => Some(object_store::path::Path::parse(prefix)?),
    };
    let listed = store.store.list_with_delimiter(under.as_ref()).await?;
    let mut archives: Vec<object_store::path::Path> = listed
        .objects
        .into_iter()
        .map(|meta| meta.location)
        .filter(|location| location.filename().is_some_and(is_scheduled_name))
        .collect();
    archives.sort();
    let old = archives.len().saturating_sub(keep);
    for archive in &archives[..old] {
        store.store.delete(archive).await?;
    }
    Ok(old)
}

/// What a restore wrote.
#[derive(Debug)]
pub struct Restored {
    pub manifest: Value,
    pub summary: Summary,
}

/// Brings an archive into `data_dir`, which must be empty or missing: its
/// embedded cluster is made and the dump restored into it, the objects are
/// written to the store `storage` configures (local disk under
/// `storage_root`, by default `<data-dir>/storage`, or S3), and the JWT secret
/// (and staff password) kept as `gateway serve` keeps them. The cluster is
/// stopped at the end.
pub async fn restore(
    from: &Path,
    data_dir: &Path,
    storage: &crate::storage::StorageConfig,
    storage_root: &Path,
) -> Result<Restored, BoxError> {
    refuse_unless_empty(data_dir)?;
    let store = Backend::from_config(storage, storage_root)?;
    let archive = std::fs::File::open(from).map_err(|e| format!("could not open {}: {e}", from.display()))?;
    let data_dir = data_dir.to_path_buf();
    let handle = Handle::current();
    tokio::task::spawn_blocking(move || read_archive(archive, &handle, &data_dir, &store)).await?
}

/// Refuses a data directory that holds anything.
pub(crate) fn refuse_unless_empty(data_dir: &Path) -> Result<(), BoxError> {
    match std::fs::read_dir(data_dir).map(|mut entries| entries.next().is_some()) {
        Ok(true) => Err(format!(
            "{} is not empty: a restore makes a new data directory, give it an empty or new one",
            data_dir.display()
        )
        .into()),
        Ok(false) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("could not read {}: {e}", data_dir.display()).into()),
    }
}

fn read_archive(
    archive: std::fs::File,
    handle: &Handle,
    data_dir: &Path,
    store: &Backend,
) -> Result<Restored, BoxError> {
    std::fs::create_dir_all(data_dir)?;
    std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o711))?;
    let mut tar = tar::Archive::new(std::io::BufReader::with_capacity(1 << 20, archive));
    let mut manifest = None;
    let mut roles = None;
    let mut cluster: Option<Cluster> = None;
    let mut restored = false;
    let mut summary = Summary { objects: 0, object_bytes: 0, database_bytes: 0 };
    let result = (|| -> Result<(), BoxError> {
        for entry in tar.entries()? {
            let mut entry = entry?;
            let name = entry.path()?.to_string_lossy().into_owned();
            if manifest.is_none() && name != MANIFEST {
                return Err("not a gateway backup: it does not begin with manifest.json".into());
            }
            match name.as_str() {
                MANIFEST => {
                    let value: Value = serde_json::from_reader(&mut entry)?;
                    if value["format"].as_u64() != Some(FORMAT) {
                        return Err(format!(
                            "this archive has format {}, this gateway reads format {FORMAT}",
                            value["format"]
                        )
                        .into());
                    }
                    manifest = Some(value);
                }
                JWT_SECRET | STAFF_PASSWORD => {
                    let mut file = private_file(&data_dir.join(&name))?;
                    std::io::copy(&mut entry, &mut file)?;
                }
                ROLES => {
                    let mut text = Vec::new();
                    entry.read_to_end(&mut text)?;
                    roles = Some(text);
                }
                DUMP => {
                    let roles = roles.take().ok_or("the archive has no roles.sql before its dump")?;
                    let dump_path = data_dir.join("restore.dump");
                    let mut file = private_file(&dump_path)?;
                    summary.database_bytes = std::io::copy(&mut entry, &mut file)?;
                    drop(file);
                    let made = Cluster::new(data_dir)?;
                    made.init()?;
                    made.start()?;
                    cluster = Some(made.clone());
                    let done = handle.block_on(restore_database(&made, &roles, &dump_path));
                    let _ = std::fs::remove_file(&dump_path);
                    done?;
                    restored = true;
                }
                _ => {
                    let location = name
                        .strip_prefix(OBJECTS)
                        .filter(|l| sweep::parse_blob_path(l).is_some_and(|b| !b.staged))
                        .ok_or_else(|| format!("unexpected entry {name:?} in the archive"))?;
                    let path = object_store::path::Path::parse(location)
                        .map_err(|e| format!("unexpected entry {name:?} in the archive: {e}"))?;
                    let size = entry.header().size()?;
                    let body = futures::stream::iter(std::iter::from_fn(|| {
                        let mut buffer = vec![0; 1 << 20];
                        match entry.read(&mut buffer) {
                            Ok(0) => None,
                            Ok(n) => {
                                buffer.truncate(n);
                                Some(Ok(Bytes::from(buffer)))
                            }
                            Err(e) => Some(Err(e)),
                        }
                    }));
                    let written = handle
                        .block_on(store.write(&path, body, size))
                        .map_err(|e| format!("could not write {path}: {e:?}"))?;
                    if written.size != size {
                        return Err(format!("{path} is cut short in the archive").into());
                    }
                    summary.objects += 1;
                    summary.object_bytes += size;
                }
            }
        }
        Ok(())
    })();
    if let Some(cluster) = cluster {
        cluster.stop()?;
    }
    result?;
    let manifest = manifest.ok_or("the archive is empty")?;
    if !restored {
        return Err("the archive holds no database dump".into());
    }
    let expected = manifest["objects"].as_u64().unwrap_or(0);
    if expected != summary.objects {
        return Err(format!("the archive is cut short: {} of {expected} objects", summary.objects).into());
    }
    Ok(Restored { manifest, summary })
}

/// The roles first (the dump's objects are owned by and granted to them),
/// with `psql`, which reads `pg_dumpall`'s meta-commands; the bootstrap
/// superuser exists already, which it says and goes on. Then the dump.
async fn restore_database(cluster: &Cluster, roles: &[u8], dump: &Path) -> Result<(), BoxError> {
    let admin = cluster.pg_config(embedded::SUPERUSER);
    let roles_file = dump.with_file_name("restore.roles.sql");
    std::fs::write(&roles_file, roles)?;
    let mut psql = pg_command(cluster.bindir(), "psql", &admin);
    psql.args(["-X", "-q", "--no-password", "-v", "ON_ERROR_STOP=0", "-f"]).arg(&roles_file);
    let output = run(psql, "psql").await;
    let _ = std::fs::remove_file(&roles_file);
    let (_, errors) = output?;
    for line in String::from_utf8_lossy(&errors)
        .lines()
        .filter(|l| l.contains("ERROR") && !l.contains("already exists"))
    {
        tracing::warn!(line, "restoring the roles");
    }
    let mut pg_restore = pg_command(cluster.bindir(), "pg_restore", &admin);
    pg_restore
        .args(["--exit-on-error", "--no-password", "--dbname"])
        .arg(admin.get_dbname().unwrap_or(embedded::DATABASE))
        .arg(dump);
    finish(pg_restore, "pg_restore").await?;
    Ok(())
}

/// `program` of the PostgreSQL client tools, reaching the database of
/// `config` through libpq's environment (so no password shows in `ps`).
pub(crate) fn pg_command(bindir: &Path, program: &str, config: &tokio_postgres::Config) -> Command {
    let mut command = Command::new(bindir.join(program));
    command.stdin(Stdio::null()).env("PGAPPNAME", "gateway backup");
    for var in
        ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE", "PGSERVICE", "PGOPTIONS"]
    {
        command.env_remove(var);
    }
    if let Some(host) = config.get_hosts().first() {
        match host {
            Host::Tcp(name) => command.env("PGHOST", name),
            Host::Unix(path) => command.env("PGHOST", path),
        };
    }
    if let Some(port) = config.get_ports().first() {
        command.env("PGPORT", port.to_string());
    }
    if let Some(user) = config.get_user() {
        command.env("PGUSER", user);
    }
    if let Some(password) = config.get_password() {
        command.env("PGPASSWORD", String::from_utf8_lossy(password).into_owned());
    }
    if let Some(dbname) = config.get_dbname() {
        command.env("PGDATABASE", dbname);
    }
    let sslmode = match config.get_ssl_mode() {
        tokio_postgres::config::SslMode::Disable => "disable",
        tokio_postgres::config::SslMode::Require => "require",
        _ => "prefer",
    };
    command.env("PGSSLMODE", sslmode);
    command
}

/// Runs `program` with the connection of `config` and returns its output.
async fn run_pg(
    bindir: &Path,
    program: &str,
    config: &tokio_postgres::Config,
    args: &[&str],
) -> Result<Vec<u8>, BoxError> {
    let mut command = pg_command(bindir, program, config);
    command.args(args).arg("--no-password");
    if program == "pg_dumpall"
        && let Some(dbname) = config.get_dbname()
    {
        command.arg("--database").arg(dbname);
    }
    Ok(run(command, program).await?.0)
}

/// Runs a command to its end on a blocking thread: its standard output and
/// error, or an error with the latter.
async fn run(mut command: Command, program: &str) -> Result<(Vec<u8>, Vec<u8>), BoxError> {
    let program = program.to_owned();
    tokio::task::spawn_blocking(move || {
        let output = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("could not run {program}: {e}"))?;
        if !output.status.success() {
            return Err(
                format!("{program} failed: {}", String::from_utf8_lossy(&output.stderr).trim()).into()
            );
        }
        Ok((output.stdout, output.stderr))
    })
    .await?
}

/// Runs a command whose standard output is already set (to a file).
async fn finish(mut command: Command, program: &str) -> Result<(), BoxError> {
    let program = program.to_owned();
    tokio::task::spawn_blocking(move || {
        let output =
            command.stderr(Stdio::piped()).output().map_err(|e| format!("could not run {program}: {e}"))?;
        if !output.status.success() {
            return Err(
                format!("{program} failed: {}", String::from_utf8_lossy(&output.stderr).trim()).into()
            );
        }
        Ok(())
    })
    .await?
}

/// A new file (an old one at the path is replaced) readable by its owner only.
pub(crate) fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}
