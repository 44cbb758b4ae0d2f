//! Sweeping orphaned bytes: blobs under `<bucket>/<key>/<version>` that no row
//! of `storage.objects` points at.
//!
//! Uploads write their bytes before the row that names them commits, and
//! remove replaced bytes after, so a crash or a failed step leaves blobs behind:
//! staged local files (`<version>#<n>`), versions whose commit never came, old
//! versions whose removal failed. A sweep lists the store one page at a time
//! and, for each blob:
//!
//! - outside the layout (not `<bucket>/<key>/<uuid>`, optionally `#<n>`, or
//!   not a regular file): reported and left alone, as it is not the gateway's;
//! - younger than the grace period: kept, as its upload may not have committed
//!   yet;
//! - a version that a row names by (bucket, name, version): kept;
//! - the bytes of a resumable upload still under way (`storage::resumable`,
//!   any blob of its version, staged or not): kept;
//! - otherwise an orphan, and removed (only reported with `dry_run`).
//!
//! Before the listing, resumable uploads past their expiry are ended and
//! their bytes removed ([`super::resumable::expire`]).
//!
//! The rows are read as `service_role` with one query per page, right before
//! the page's removals, so a row committed after the listing still saves its
//! bytes. What no check can see is a commit that comes later than the grace
//! period after its bytes were written; the grace period is chosen so that this
//! does not happen. Gateways sharing a database sweep one at a time
//! ([`try_lock`]).

use std::collections::HashSet;
use std::path::{Path as FsPath, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::{StreamExt, stream::BoxStream};
use object_store::{ObjectStoreExt, path::Path};
use tokio_postgres::NoTls;
use uuid::Uuid;

use super::backend::Backend;
use super::keys;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;

/// (bucket, key, version) of blobs.
type Versions = HashSet<(String, String, String)>;

/// Blobs checked against the rows in one query.
pub const PAGE: usize = 1000;

/// The session-level advisory lock a sweep holds; any fixed number would do,
/// as long as nothing else in the database uses it.
pub const LOCK_KEY: i64 = 0x6761_7465_7377_6570;

/// Where a blob of the gateway's layout belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobPath {
    pub bucket: String,
    pub key: String,
    pub version: String,
    /// A local staged file (`<version>#<n>`), never read by any row.
    pub staged: bool,
}

/// Parses `<bucket>/<key>/<version>`, `<bucket>/<key>/<version>#<n>` or
/// `<bucket>/<key>/<version>@<variant>` (an image variant, which belongs to
/// its version exactly as the version's own bytes do), where
/// the bucket and key pass [`keys::parse_bucket`] and [`keys::parse_key`] and
/// the version is a UUID as the gateway writes it. Anything else is `None`:
/// not the gateway's, so never removed.
pub fn parse_blob_path(location: &str) -> Option<BlobPath> {
    let (bucket, rest) = location.split_once('/')?;
    let (key, last) = rest.rsplit_once('/')?;
    // The last segment is the version's alone: `@` there names a transformed
    // variant of it (`keys::variant_path`), kept and removed with it.
    let (last, variant) = match last.split_once('@') {
        Some((version, name))
            if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.') =>
        {
            (version, true)
        }
        Some(_) => return None,
        None => (last, false),
    };
    // Keys cannot hold `#`, so one in the last segment is a staging suffix.
    let (version, staged) = match last.split_once('#') {
        Some(_) if variant => return None,
        Some((version, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (version, true),
        Some(_) => return None,
        None => (last, false),
    };
    keys::parse_bucket(bucket).ok()?;
    keys::parse_key(key).ok()?;
    let uuid = Uuid::try_parse(version).ok()?;
    if uuid.hyphenated().to_string() != version {
        return None;
    }
    Some(BlobPath { bucket: bucket.to_owned(), key: key.to_owned(), version: version.to_owned(), staged })
}

/// One listed blob.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its path in the store, `/`-separated.
    pub location: String,
    /// When it last changed: on local disk the later of the file's mtime and
    /// ctime, since a hard link (how `LocalFileSystem` copies, so how moves
    /// and copies make their new version) keeps the source's mtime.
    pub last_modified: DateTime<Utc>,
    /// False for a directory entry that is neither a file nor a folder (a
    /// symlink, a socket): left alone.
    pub regular: bool,
}

/// What a sweep did with one blob worth reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Removed,
    /// `dry_run`: would have been removed.
    WouldRemove,
    /// Outside the layout.
    LeftAlone,
    /// Listing or removing failed.
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct Event {
    pub location: String,
    pub action: Action,
    /// How long ago the blob last changed (zero when unknown).
    pub age: Duration,
}

/// Counts of one sweep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub dry_run: bool,
    pub scanned: u64,
    pub referenced: u64,
    /// Younger than the grace period.
    pub fresh: u64,
    /// Removed, or with `dry_run` would have been.
    pub orphans: u64,
    pub left_alone: u64,
    pub failed: u64,
    /// Resumable uploads past their expiry ended (or, with `dry_run`, to end).
    pub expired_uploads: u64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run { "would be removed" } else { "removed" };
        write!(
            f,
            "{} blobs: {} referenced, {} within the grace period, {} orphans {verb}, \
             {} outside the layout left alone, {} failures",
            self.scanned, self.referenced, self.fresh, self.orphans, self.left_alone, self.failed
        )?;
        if self.expired_uploads > 0 {
            let verb = if self.dry_run { "to end" } else { "ended" };
            write!(f, "; {} expired resumable uploads {verb}", self.expired_uploads)?;
        }
        Ok(())
    }
}

/// A sweep of one store against one database.
pub struct Sweep<'a> {
    pub db: &'a Db,
    pub store: &'a Backend,
    /// Orphans younger than this are kept.
    pub grace: Duration,
    pub dry_run: bool,
}

impl Sweep<'_> {
    /// Sweeps `bucket`'s folder, or the whole store, calling `on` for each
    /// blob removed (or to be removed), left alone or failed.
    pub async fn run(
        &self,
        bucket: Option<&str>,
        on: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<Report, ApiError> {
        let mut report = Report { dry_run: self.dry_run, ..Report::default() };
        report.expired_uploads = super::resumable::expire(self.db, self.store, bucket, self.dry_run).await?;
        let mut pages = self.listing(bucket)?.chunks(PAGE);
        while let Some(page) = pages.next().await {
            let mut listed = Vec::with_capacity(page.len());
            for item in page {
                match item {
                    Ok(item) => listed.push(item),
                    Err(message) => {
                        report.failed += 1;
                        on(&Event {
                            location: String::new(),
                            action: Action::Failed(message),
                            age: Duration::ZERO,
                        });
                    }
                }
            }
            self.page(listed, &mut report, on).await?;
        }
        Ok(report)
    }

    /// The blobs under `bucket`'s folder, or the whole store, as a stream.
    pub fn listing(
        &self,
        bucket: Option<&str>,
    ) -> Result<BoxStream<'static, Result<Listed, String>>, ApiError> {
        let prefix = bucket.map(keys::bucket_path).transpose()?;
        if let Some(root) = self.store.local_root() {
            let start = match &prefix {
                Some(prefix) => root.join(prefix.as_ref()),
                None => root.to_path_buf(),
            };
            return Ok(walk_local(root.to_path_buf(), start));
        }
        let listing = self.store.store.list(prefix.as_ref()).map(|meta| {
            meta.map(|meta| Listed {
                location: meta.location.to_string(),
                last_modified: meta.last_modified,
                regular: true,
            })
            .map_err(|e| format!("listing failed: {e}"))
        });
        Ok(listing.boxed())
    }

    /// Decides and acts on one page of the listing: the rows are read here,
    /// after the page was listed and right before its removals.
    pub async fn page(
        &self,
        page: Vec<Listed>,
        report: &mut Report,
        on: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<(), ApiError> {
        let now = Utc::now();
        let age = |item: &Listed| (now - item.last_modified).to_std().unwrap_or(Duration::ZERO);
        let mut candidates = Vec::new();
        for item in page {
            report.scanned += 1;
            let blob = parse_blob_path(&item.location).filter(|_| item.regular);
            let Some(blob) = blob else {
                report.left_alone += 1;
                on(&Event { age: age(&item), location: item.location, action: Action::LeftAlone });
                continue;
            };
            // A blob stamped in the future (clock skew with S3) is fresh too.
            if item.last_modified > now || age(&item) < self.grace {
                report.fresh += 1;
                continue;
            }
            candidates.push((item, blob));
        }
        let (referenced, uploading) = self.referenced(&candidates).await?;
        for (item, blob) in candidates {
            let key = (blob.bucket, blob.key, blob.version);
            if (!blob.staged && referenced.contains(&key)) || uploading.contains(&key) {
                report.referenced += 1;
                continue;
            }
            let age = age(&item);
            let action = if self.dry_run {
                Action::WouldRemove
            } else {
                match self.remove(&item.location, blob.staged).await {
                    Ok(()) => Action::Removed,
                    Err(message) => Action::Failed(message),
                }
            };
            match action {
                Action::Failed(_) => report.failed += 1,
                _ => report.orphans += 1,
            }
            on(&Event { location: item.location, action, age });
        }
        Ok(())
    }

    /// Which of the candidates' versions a row of `storage.objects` points
    /// at, and which are resumable uploads under way, in one query.
    async fn referenced(&self, candidates: &[(Listed, BlobPath)]) -> Result<(Versions, Versions), ApiError> {
        if candidates.is_empty() {
            return Ok((HashSet::new(), HashSet::new()));
        }
        let buckets: Vec<&str> = candidates.iter().map(|(_, b)| b.bucket.as_str()).collect();
        let names: Vec<&str> = candidates.iter().map(|(_, b)| b.key.as_str()).collect();
        let ids: Vec<&str> = candidates.iter().map(|(_, b)| b.version.as_str()).collect();
        let session = self.db.as_service_role(Access::ReadOnly).await?;
        let rows = session
            .query_and_end(
                "with c(bucket_id, name, version) as (select * from unnest($1::text[], $2::text[], $3::text[])) \
                 select false, o.bucket_id, o.name, o.version from storage.objects o \
                 join c on o.bucket_id = c.bucket_id and o.name = c.name and o.version = c.version \
                 union all \
                 select true, u.bucket_id, u.name, u.id::text from _gateway.resumable_uploads u \
                 join c on u.bucket_id = c.bucket_id and u.name = c.name and u.id::text = c.version \
                 where not u.finished",
                &[&buckets, &names, &ids],
                true,
            )
            .await?;
        let (mut referenced, mut uploading) = (HashSet::new(), HashSet::new());
        for row in &rows {
            let key = (row.get(1), row.get(2), row.get(3));
            if row.get(0) {
                uploading.insert(key)
            } else {
                referenced.insert(key)
            };
        }
        Ok((referenced, uploading))
    }

    async fn remove(&self, location: &str, staged: bool) -> Result<(), String> {
        // `LocalFileSystem` refuses `#<n>` names, so staged files go by hand.
        if let (true, Some(root)) = (staged, self.store.local_root()) {
            let root = root.to_path_buf();
            let file = root.join(location);
            return tokio::task::spawn_blocking(move || remove_local(&root, &file))
                .await
                .map_err(|e| e.to_string())?;
        }
        let path = Path::parse(location).map_err(|e| e.to_string())?;
        match self.store.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Removes a file, then its folders up to `root` as long as they are empty,
/// as `LocalFileSystem` does after a delete.
fn remove_local(root: &FsPath, file: &FsPath) -> Result<(), String> {
    match std::fs::remove_file(file) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.to_string()),
    }
    let mut parent = file.parent();
    while let Some(dir) = parent {
        if dir == root || std::fs::remove_dir(dir).is_err() {
            break;
        }
        parent = dir.parent();
    }
    Ok(())
}

/// Every entry under `start` (inside `root`), walked on a blocking thread and
/// handed over through a bounded channel, so a large store is never held in
/// memory. Symlinks are not followed.
fn walk_local(root: PathBuf, start: PathBuf) -> BoxStream<'static, Result<Listed, String>> {
    let (sender, receiver) = tokio::sync::mpsc::channel(PAGE);
    tokio::task::spawn_blocking(move || {
        let mut folders = vec![start.clone()];
        while let Some(folder) = folders.pop() {
            let entries = match std::fs::read_dir(&folder) {
                Ok(entries) => entries,
                // A bucket with nothing stored has no folder.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && folder == start => continue,
                Err(e) => {
                    let _ = sender.blocking_send(Err(format!("{}: {e}", folder.display())));
                    continue;
                }
            };
            for entry in entries {
                let listed = entry.and_then(|entry| {
                    let path = entry.path();
                    let metadata = std::fs::symlink_metadata(&path)?;
                    Ok((path, metadata))
                });
                let item = match listed {
                    Ok((path, metadata)) if metadata.is_dir() => {
                        folders.push(path);
                        continue;
                    }
                    Ok((path, metadata)) => Ok(Listed {
                        location: relative(&root, &path),
                        last_modified: changed(&metadata),
                        regular: metadata.is_file(),
                    }),
                    Err(e) => Err(format!("{}: {e}", folder.display())),
                };
                if sender.blocking_send(item).is_err() {
                    // The sweep stopped listening.
                    return;
                }
            }
        }
    });
    receiver_stream(receiver)
}

fn receiver_stream<T: Send + 'static>(receiver: tokio::sync::mpsc::Receiver<T>) -> BoxStream<'static, T> {
    futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    })
    .boxed()
}

/// `path` relative to `root`, `/`-separated (lossily for names that are not
/// UTF-8, which then fail to parse and are left alone).
fn relative(root: &FsPath, path: &FsPath) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The later of a file's mtime and ctime.
fn changed(metadata: &std::fs::Metadata) -> DateTime<Utc> {
    use std::os::unix::fs::MetadataExt;
    let mtime = DateTime::from_timestamp(metadata.mtime(), metadata.mtime_nsec() as u32);
    let ctime = DateTime::from_timestamp(metadata.ctime(), metadata.ctime_nsec() as u32);
    mtime.max(ctime).unwrap_or_else(Utc::now)
}

/// The advisory lock of a running sweep, held by a connection of its own and
/// released when dropped (or when the process dies and the connection closes).
pub struct SweepLock {
    _client: tokio_postgres::Client,
}

/// Takes the sweep lock, or `None` when another sweep holds it.
pub async fn try_lock(db: &Db) -> Result<Option<SweepLock>, ApiError> {
    let (client, connection) = db.pg_config().connect(NoTls).await.map_err(ApiError::internal)?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let row = client
        .query_one("select pg_try_advisory_lock($1)", &[&LOCK_KEY])
        .await
        .map_err(ApiError::internal)?;
    Ok(row.get::<_, bool>(0).then_some(SweepLock { _client: client }))
}

/// Sweeps the whole store every `every` while `gateway serve` runs, logging
/// each removal and a summary. The first sweep comes a minute after start,
/// not at once, so that a restart does not pay for a sweep while it warms
/// up, yet a gateway restarted more often than `every` still sweeps.
pub fn spawn_periodic(
    db: Db,
    store: Backend,
    grace: Duration,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let first = tokio::time::Instant::now() + every.min(Duration::from_secs(60));
        let mut ticks = tokio::time::interval_at(first, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let lock = match try_lock(&db).await {
                Ok(Some(lock)) => lock,
                Ok(None) => {
                    tracing::info!("storage sweep skipped: another gateway is sweeping");
                    continue;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "storage sweep skipped: could not take its lock");
                    continue;
                }
            };
            let sweep = Sweep { db: &db, store: &store, grace, dry_run: false };
            let mut log = |event: &Event| log_event(event);
            match sweep.run(None, &mut log).await {
                Ok(report) => tracing::info!(%report, "storage sweep finished"),
                Err(e) => tracing::warn!(error = %e, "storage sweep failed"),
            }
            drop(lock);
        }
    })
}

fn log_event(event: &Event) {
    let age = event.age.as_secs();
    match &event.action {
        Action::Removed => tracing::info!(blob = %event.location, age_s = age, "swept an orphaned blob"),
        Action::WouldRemove => {}
        Action::LeftAlone => tracing::warn!(blob = %event.location, "left alone: not the storage layout"),
        Action::Failed(message) => {
            tracing::warn!(blob = %event.location, error = %message, "storage sweep could not remove a blob");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: &str = "0b7e3d0a-6c1f-4c4e-9a57-2f9d1f0c8e11";

    #[test]
    fn versions_and_staged_files_parse() {
        let blob = parse_blob_path(&format!("avatars/a b/it's (1).png/{V}")).expect("version");
        assert_eq!(
            blob,
            BlobPath {
                bucket: "avatars".into(),
                key: "a b/it's (1).png".into(),
                version: V.into(),
                staged: false
            }
        );
        let variant = parse_blob_path(&format!("b/k/{V}@w400h0rcoverq80.webp")).expect("variant");
        assert_eq!((variant.key.as_str(), variant.version.as_str(), variant.staged), ("k", V, false));
        let staged = parse_blob_path(&format!("b/k/{V}#12")).expect("staged");
        assert_eq!((staged.key.as_str(), staged.version.as_str(), staged.staged), ("k", V, true));
        // The version is always the last segment, even after a key ending in a UUID.
        let nested = parse_blob_path(&format!("b/{V}/{V}")).expect("nested");
        assert_eq!((nested.key.as_str(), nested.version.as_str()), (V, V));
    }

    #[test]
    fn anything_else_is_outside_the_layout() {
        let upper = V.to_uppercase();
        let cases = [
            V.to_owned(),
            format!("b/{V}"),
            "b/k/not-a-uuid".to_owned(),
            format!("b/k/{upper}"),
            format!("b/k/{}", V.replace('-', "")),
            format!("b/k/{V}#"),
            format!("b/k/{V}#1a"),
            format!("b/k/{V}#1#2"),
            format!("b/k/{V}@"),
            format!("b/k/{V}@a/b"),
            format!("b/k/{V}@x y"),
            format!("b/k/{V}#1@x"),
            format!("b/a/../k/{V}"),
            format!("b/a//k/{V}"),
            format!("b/caf\u{e9}/{V}"),
            format!("b/k/{V}/"),
            format!("/b/k/{V}"),
            String::new(),
        ];
        for case in cases {
            assert_eq!(parse_blob_path(&case), None, "{case:?}");
        }
    }

    #[test]
    fn local_paths_are_slash_separated_and_relative() {
        let root = FsPath::new("/srv/storage");
        assert_eq!(relative(root, &root.join("b").join("k").join(V)), format!("b/k/{V}"));
    }
}
