//! The bytes: an `object_store` over local disk or S3, and the streaming writer
//! that enforces the size limit while it writes.
//!
//! Every write goes to a fresh version path (`keys::version_path`) through the
//! store's multipart API, in parts of [`Backend::part_size`] with at most two
//! parts in flight, so an upload never sits whole in memory. A write that fails
//! or goes over the limit is aborted: the store drops its staged parts and no
//! blob is left behind (`LocalFileSystem` stages into a temporary file and
//! renames it on completion; S3 discards an aborted multipart upload).

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use md5::{Digest, Md5};
use object_store::{
    ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart, local::LocalFileSystem,
    multipart::MultipartStore, path::Path,
};

use super::cache::BlobCache;
use super::config::StorageConfig;
use super::error::StorageError;
use gateway_core::error::ApiError;

/// Parts written at once: memory held by one upload is about this many parts.
const PARTS_IN_FLIGHT: usize = 2;

#[derive(Clone)]
pub struct Backend {
    pub store: Arc<dyn ObjectStore>,
    /// Size of one multipart part. S3 requires at least 5 MiB for all parts but
    /// the last; local disk is happy with less, and less memory.
    pub part_size: usize,
    /// The same store when it is local disk, for [`Backend::read`].
    local: Option<Arc<LocalFileSystem>>,
    /// The storage root when the store is local disk: the sweeper walks it
    /// itself, as `LocalFileSystem` hides staged files from its listings.
    root: Option<std::path::PathBuf>,
    /// Recently read small blobs; `None` when `--storage-cache-size` is 0.
    cache: Option<Arc<BlobCache>>,
    /// The same store's multipart API when it is S3, for resumable uploads,
    /// whose parts arrive over several requests (`storage::resumable`).
    multipart: Option<Arc<dyn MultipartStore>>,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Written {
    pub size: u64,
    /// `"<md5 hex>"`, the ETag S3 gives a single-part object.
    pub etag: String,
}

/// Why a write stopped.
#[derive(Debug)]
pub enum WriteError {
    /// More than `limit` bytes arrived.
    TooLarge,
    /// The request body failed (the client went away or sent garbage).
    Body(String),
    /// The store failed.
    Store(object_store::Error),
}

impl Written {
    /// The size and ETag of a body held in memory.
    pub fn of(chunks: &[Bytes]) -> Self {
        let mut hash = Md5::new();
        let mut size = 0;
        for chunk in chunks {
            hash.update(chunk);
            size += chunk.len() as u64;
        }
        Written { size, etag: format!("\"{}\"", hex::encode(hash.finalize())) }
    }
}

impl From<WriteError> for ApiError {
    fn from(error: WriteError) -> Self {
        match error {
            WriteError::TooLarge => StorageError::entity_too_large().into(),
            WriteError::Body(message) => StorageError::invalid_request(message).into(),
            WriteError::Store(e) => store_error(e),
        }
    }
}

/// A store's failure as an answer. On local disk each `/` of a key is a
/// folder, so a part longer than the file system takes (255 bytes on most)
/// cannot be stored: the key is what is wrong, as Storage answers for a key it
/// refuses, not the server. Anything else is the server's.
pub fn store_error(error: object_store::Error) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(e) = source {
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::InvalidFilename)
        {
            return StorageError::invalid_key_reason("a part of the key is longer than the store allows")
                .into();
        }
        source = e.source();
    }
    ApiError::internal(error)
}

impl Backend {
    /// The store the configuration names: S3 when a bucket is set, else local
    /// disk under `root` (created if missing).
    pub fn from_config(config: &StorageConfig, root: &std::path::Path) -> Result<Self, String> {
        let cache = BlobCache::new(config.cache_size).map(Arc::new);
        match &config.s3_bucket {
            Some(bucket) => {
                let store = s3_builder(config, bucket)
                    .build()
                    .map_err(|e| format!("invalid S3 storage configuration: {e}"))?;
                let store = Arc::new(store);
                Ok(Self {
                    store: store.clone(),
                    part_size: 5 << 20,
                    local: None,
                    root: None,
                    cache,
                    multipart: Some(store),
                })
            }
            None => {
                std::fs::create_dir_all(root)
                    .map_err(|e| format!("could not create the storage root {}: {e}", root.display()))?;
                let store = LocalFileSystem::new_with_prefix(root)
                    .map_err(|e| format!("invalid storage root {}: {e}", root.display()))?
                    .with_automatic_cleanup(true);
                let store = Arc::new(store);
                Ok(Self {
                    store: store.clone(),
                    part_size: 1 << 20,
                    local: Some(store),
                    root: Some(root.to_path_buf()),
                    cache,
                    multipart: None,
                })
            }
        }
    }

    /// The storage root, when bytes live on local disk.
    pub fn local_root(&self) -> Option<&std::path::Path> {
        self.root.as_deref()
    }

    /// Where a blob lives on local disk; `None` on S3.
    pub fn local_file(&self, path: &Path) -> Option<Result<std::path::PathBuf, ApiError>> {
        self.local.as_ref().map(|local| local.path_to_filesystem(path).map_err(store_error))
    }

    /// The multipart API of an S3 store; `None` on local disk.
    pub fn multipart(&self) -> Option<&Arc<dyn MultipartStore>> {
        self.multipart.as_ref()
    }

    /// Streams `body` to `path`, refusing more than `limit` bytes: the stream is
    /// cut at `limit + 1` and the staged upload aborted.
    pub async fn write<S, E>(&self, path: &Path, body: S, limit: u64) -> Result<Written, WriteError>
    where
        S: Stream<Item = Result<Bytes, E>>,
        E: std::fmt::Display,
    {
        let upload = self.store.put_multipart(path).await.map_err(WriteError::Store)?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, self.part_size);
        let mut hash = Md5::new();
        let mut size: u64 = 0;
        let mut body = std::pin::pin!(body);
        let failure = loop {
            let chunk = match body.next().await {
                None => break None,
                Some(Ok(chunk)) => chunk,
                Some(Err(e)) => break Some(WriteError::Body(e.to_string())),
            };
            size += chunk.len() as u64;
            if size > limit {
                break Some(WriteError::TooLarge);
            }
            if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                break Some(WriteError::Store(e));
            }
            hash.update(&chunk);
            writer.put(chunk);
        };
        if let Some(error) = failure {
            if let Err(e) = writer.abort().await {
                tracing::warn!(error = %e, %path, "could not abort a refused upload");
            }
            return Err(error);
        }
        writer.finish().await.map_err(WriteError::Store)?;
        Ok(Written { size, etag: format!("\"{}\"", hex::encode(hash.finalize())) })
    }

    /// Writes a body held in memory in one request (S3's `PutObject`; on local
    /// disk one hop to a blocking thread that writes a staged file and renames
    /// it). Its chunks are handed over as they are, not copied together.
    pub async fn put(&self, path: &Path, chunks: Vec<Bytes>) -> Result<(), ApiError> {
        self.store.put(path, PutPayload::from_iter(chunks)).await.map(|_| ()).map_err(store_error)
    }

    /// Reads `range` of a blob of `size` bytes into memory. A blob the cache
    /// keeps ([`BlobCache`]) is read whole once and sliced from memory after
    /// that; a slice of a cached blob shares its bytes.
    pub async fn read(
        &self,
        path: &Path,
        range: Range<u64>,
        size: u64,
    ) -> Result<Bytes, object_store::Error> {
        let Some(cache) = self.cache.as_deref().filter(|c| c.keeps(size)) else {
            return self.read_stored(path, range).await;
        };
        let key = path.as_ref();
        let blob = match cache.get(key) {
            Some(blob) => blob,
            None => {
                let blob = self.read_stored(path, 0..size).await?;
                cache.insert(key, blob.clone());
                blob
            }
        };
        let (start, end) = (range.start as usize, range.end as usize);
        if end > blob.len() || start > end {
            return Err(object_store::Error::Generic {
                store: "cache",
                source: format!("{path}: range {start}..{end} of a {} byte blob", blob.len()).into(),
            });
        }
        Ok(blob.slice(start..end))
    }

    /// Reads `range` of a stored blob into memory. On local disk that is one hop to
    /// the blocking pool, which opens the file and reads straight into the
    /// buffer: `get_range` takes a second hop to open the file and zero-fills
    /// the buffer before reading into it, which callgrind showed to be half
    /// the gateway's instructions when serving a 200 KB object. Elsewhere it
    /// is a ranged GET. A blob shorter than `range` is an error, never a short
    /// body.
    async fn read_stored(&self, path: &Path, range: Range<u64>) -> Result<Bytes, object_store::Error> {
        let Some(local) = &self.local else {
            return self.store.get_range(path, range).await;
        };
        let file = local.path_to_filesystem(path)?;
        let location = path.to_string();
        let read = tokio::task::spawn_blocking(move || -> std::io::Result<Vec<u8>> {
            let mut opened = std::fs::File::open(&file)?;
            opened.seek(SeekFrom::Start(range.start))?;
            let wanted = range.end - range.start;
            let mut buffer = Vec::with_capacity(wanted as usize);
            opened.take(wanted).read_to_end(&mut buffer)?;
            if (buffer.len() as u64) < wanted {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the blob is shorter than its row",
                ));
            }
            Ok(buffer)
        })
        .await
        .map_err(|e| object_store::Error::Generic { store: "LocalFileSystem", source: Box::new(e) })?;
        match read {
            Ok(buffer) => Ok(Bytes::from(buffer)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(object_store::Error::NotFound { path: location, source: Box::new(e) })
            }
            Err(e) => Err(object_store::Error::Generic { store: "LocalFileSystem", source: Box::new(e) }),
        }
    }

    /// Removes a blob; a blob already gone is fine. Failures are logged, never
    /// raised: the row no longer points at it, so at worst it is an orphan.
    pub async fn remove(&self, path: &Path) {
        if let Some(cache) = &self.cache {
            cache.remove(path.as_ref());
        }
        match self.store.delete(path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => tracing::warn!(error = %e, %path, "could not remove a blob"),
        }
    }

    /// Lets go of a blob held in memory, leaving it in the store.
    pub fn forget(&self, path: &Path) {
        if let Some(cache) = &self.cache {
            cache.remove(path.as_ref());
        }
    }

    pub async fn copy(&self, from: &Path, to: &Path) -> Result<(), ApiError> {
        self.store.copy(from, to).await.map_err(|e| match e {
            object_store::Error::NotFound { .. } => StorageError::no_such_key().into(),
            other => store_error(other),
        })
    }
}

/// The S3 client the configuration describes (split out so tests can read the
/// wiring without a server).
pub fn s3_builder(config: &StorageConfig, bucket: &str) -> object_store::aws::AmazonS3Builder {
    let mut builder = object_store::aws::AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_region(&config.s3_region)
        .with_virtual_hosted_style_request(!config.s3_force_path_style);
    if let Some(endpoint) = &config.s3_endpoint {
        builder = builder.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
    }
    if let Some(key) = &config.s3_access_key_id {
        builder = builder.with_access_key_id(key);
    }
    if let Some(secret) = &config.s3_secret_access_key {
        builder = builder.with_secret_access_key(secret.expose());
    }
    builder
}

#[cfg(test)]
mod tests {
    use object_store::aws::AmazonS3ConfigKey;

    use super::*;
    use gateway_core::config::Secret;

    fn config() -> StorageConfig {
        StorageConfig {
            file_size_limit: 1000,
            s3_bucket: Some("files".to_owned()),
            s3_endpoint: Some("http://127.0.0.1:9000".to_owned()),
            s3_region: "eu-west-1".to_owned(),
            s3_access_key_id: Some("minio".to_owned()),
            s3_secret_access_key: Some(Secret::new("minio-secret")),
            s3_force_path_style: true,
            s3_protocol_region: "local".to_owned(),
            sweep_grace: gateway_core::config::Span(std::time::Duration::from_secs(3600)),
            sweep_interval: None,
            cache_size: 0,
            resumable_expiry: gateway_core::config::Span(std::time::Duration::from_secs(3600)),
            resumable_part_size: 5 << 20,
            image_workers: None,
            image_cache_size: 0,
            image_max_pixels: 1000,
        }
    }

    #[test]
    fn s3_settings_reach_the_client() {
        let builder = s3_builder(&config(), "files");
        let value = |key| builder.get_config_value(&key);
        assert_eq!(value(AmazonS3ConfigKey::Bucket).as_deref(), Some("files"));
        assert_eq!(value(AmazonS3ConfigKey::Endpoint).as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(value(AmazonS3ConfigKey::Region).as_deref(), Some("eu-west-1"));
        assert_eq!(value(AmazonS3ConfigKey::AccessKeyId).as_deref(), Some("minio"));
        assert_eq!(value(AmazonS3ConfigKey::SecretAccessKey).as_deref(), Some("minio-secret"));
        assert_eq!(value(AmazonS3ConfigKey::VirtualHostedStyleRequest).as_deref(), Some("false"));
        assert!(Backend::from_config(&config(), std::path::Path::new("/nonexistent")).is_ok());
    }

    #[test]
    fn virtual_hosted_style_is_the_default_for_aws() {
        let mut config = config();
        config.s3_force_path_style = false;
        config.s3_endpoint = None;
        let builder = s3_builder(&config, "files");
        assert_eq!(
            builder.get_config_value(&AmazonS3ConfigKey::VirtualHostedStyleRequest).as_deref(),
            Some("true")
        );
    }

    #[tokio::test]
    async fn a_write_over_the_limit_leaves_nothing() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut config = config();
        config.s3_bucket = None;
        let backend = Backend::from_config(&config, root.path()).expect("backend");
        let path = Path::parse("b/k/v1").expect("path");
        let chunks = (0..10).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![7u8; 100])));
        let result = backend.write(&path, futures::stream::iter(chunks), 999).await;
        assert!(matches!(result, Err(WriteError::TooLarge)));
        let files: Vec<_> = walk(root.path());
        assert!(files.is_empty(), "{files:?}");
        let chunks = (0..10).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![7u8; 100])));
        let written = backend.write(&path, futures::stream::iter(chunks), 1000).await.expect("write");
        assert_eq!(written.size, 1000);
        assert_eq!(walk(root.path()).len(), 1);
    }

    #[tokio::test]
    async fn local_reads_give_the_range_and_refuse_missing_or_short_blobs() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut config = config();
        config.s3_bucket = None;
        let backend = Backend::from_config(&config, root.path()).expect("backend");
        let path = Path::parse("b/it's (1).png/v1").expect("path");
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        backend
            .put(&path, vec![Bytes::from(bytes[..100].to_vec()), Bytes::from(bytes[100..].to_vec())])
            .await
            .expect("put");
        assert_eq!(backend.read(&path, 0..5000, 5000).await.expect("read"), bytes);
        assert_eq!(backend.read(&path, 10..20, 5000).await.expect("read"), bytes[10..20]);
        assert!(backend.read(&path, 0..5001, 5001).await.is_err(), "a short blob is an error");
        let missing = backend.read(&Path::parse("b/none/v1").expect("path"), 0..1, 1).await;
        assert!(matches!(missing, Err(object_store::Error::NotFound { .. })), "{missing:?}");
    }

    #[tokio::test]
    async fn cached_reads_come_from_memory_until_the_version_is_removed() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut config = config();
        config.s3_bucket = None;
        config.cache_size = 1 << 20;
        let backend = Backend::from_config(&config, root.path()).expect("backend");
        let path = Path::parse("b/photo.png/v1").expect("path");
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        backend.put(&path, vec![Bytes::from(bytes.clone())]).await.expect("put");
        assert_eq!(backend.read(&path, 10..20, 5000).await.expect("read"), bytes[10..20]);
        // The file is gone behind the gateway's back: the bytes still come from memory.
        std::fs::remove_file(root.path().join("b/photo.png/v1")).expect("remove");
        assert_eq!(backend.read(&path, 0..5000, 5000).await.expect("cached"), bytes);
        assert_eq!(backend.read(&path, 4990..5000, 5000).await.expect("cached"), bytes[4990..]);
        assert!(backend.read(&path, 0..5001, 5001).await.is_err(), "a range past the blob is an error");
        // Removing the version through the backend forgets it.
        backend.remove(&path).await;
        let missing = backend.read(&path, 0..5000, 5000).await;
        assert!(matches!(missing, Err(object_store::Error::NotFound { .. })), "{missing:?}");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }
}
