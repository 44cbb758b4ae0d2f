//! Recently read small blobs, kept in memory so that popular objects (the
//! shop's product images) are sent without touching the disk or S3.
//!
//! It cannot serve stale bytes: it is keyed by version path
//! (`<bucket>/<key>/<version>`, [`super::keys::version_path`]), and a version
//! path names bytes written once and never rewritten, since every upload,
//! upsert, copy or move writes to a fresh version. Whether a request may have
//! the object, and which version is current, is still asked of the database on
//! every request; only the bytes come from here. So several gateways, each
//! with its own cache, stay coherent without talking to each other.
//!
//! Bounded by the bytes it holds (`--storage-cache-size`); the least useful
//! entries go first (quick_cache's S3-FIFO). Objects larger than a sixteenth of
//! the cache, or than [`MAX_OBJECT`], are never kept.

use bytes::Bytes;
use quick_cache::{Weighter, sync::Cache};

/// The largest object ever kept, whatever the cache's size: larger objects are
/// streamed, not read whole (`download::serve`).
pub const MAX_OBJECT: u64 = super::download::SMALL_OBJECT;

pub struct BlobCache {
    blobs: Cache<String, Bytes, ByLength>,
    max_object: u64,
}

/// An entry weighs its bytes plus its key.
#[derive(Clone)]
struct ByLength;

impl Weighter<String, Bytes> for ByLength {
    fn weight(&self, key: &String, blob: &Bytes) -> u64 {
        (key.len() + blob.len()) as u64
    }
}

impl BlobCache {
    /// A cache holding at most `capacity` bytes; `None` when `capacity` is 0.
    pub fn new(capacity: u64) -> Option<Self> {
        if capacity == 0 {
            return None;
        }
        let max_object = MAX_OBJECT.min(capacity / 16);
        // quick_cache sizes its tables from an estimate of the entry count.
        let estimated_items = (capacity / (64 * 1024)).clamp(16, 1 << 16) as usize;
        Some(Self { blobs: Cache::with_weighter(estimated_items, capacity, ByLength), max_object })
    }

    /// Whether an object of `size` bytes is ever kept.
    pub fn keeps(&self, size: u64) -> bool {
        size <= self.max_object
    }

    pub fn get(&self, version_path: &str) -> Option<Bytes> {
        self.blobs.get(version_path)
    }

    pub fn insert(&self, version_path: &str, blob: Bytes) {
        if self.keeps(blob.len() as u64) {
            self.blobs.insert(version_path.to_owned(), blob);
        }
    }

    /// Forgets a version whose bytes were removed, to free the memory early
    /// (a removed version is never asked for again: no row points at it).
    pub fn remove(&self, version_path: &str) {
        self.blobs.remove(version_path);
    }

    /// Forgets every entry whose key `doomed` picks.
    pub fn remove_where(&self, doomed: impl Fn(&str) -> bool) {
        self.blobs.retain(|key, _| !doomed(key));
    }

    /// The bytes held now.
    pub fn weight(&self) -> u64 {
        self.blobs.weight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_size_turns_the_cache_off() {
        assert!(BlobCache::new(0).is_none());
    }

    #[test]
    fn objects_over_a_sixteenth_of_the_cache_or_one_mib_are_never_kept() {
        // (capacity, object size, kept)
        let cases = [
            (16_000, 1_000, true),
            (16_000, 1_001, false),
            (64 << 20, 1 << 20, true),
            (64 << 20, (1 << 20) + 1, false),
        ];
        for (capacity, size, kept) in cases {
            let cache = BlobCache::new(capacity).expect("cache");
            assert_eq!(cache.keeps(size), kept, "{size} bytes in {capacity}");
            cache.insert("b/k/v1", Bytes::from(vec![0u8; size as usize]));
            assert_eq!(cache.get("b/k/v1").is_some(), kept, "{size} bytes in {capacity}");
        }
    }

    #[test]
    fn the_cache_never_holds_more_than_its_size() {
        let cache = BlobCache::new(100_000).expect("cache");
        for i in 0..100 {
            cache.insert(&format!("b/k/v{i}"), Bytes::from(vec![1u8; 5_000]));
            assert!(cache.weight() <= 100_000, "{} bytes after {i} inserts", cache.weight());
        }
        assert!(cache.get("b/k/v99").is_some(), "the newest entry is kept");
    }

    #[test]
    fn a_removed_version_is_forgotten() {
        let cache = BlobCache::new(1 << 20).expect("cache");
        cache.insert("b/k/v1", Bytes::from_static(b"bytes"));
        cache.remove("b/k/v1");
        assert!(cache.get("b/k/v1").is_none());
        assert_eq!(cache.weight(), 0);
    }
}
