//! Which bucket names and object keys are accepted, and where their bytes live.
//!
//! Grammar (the hosted service's allowlist, supabase/storage
//! `src/storage/limits.ts`, S3's "safe characters"):
//!
//! ```text
//! key    = 1*1024 ( ALPHA / DIGIT / "_" / "/" / "!" / "-" / "." / "*" / "'" / "(" / ")"
//!               / " " / "&" / "$" / "@" / "=" / ";" / ":" / "+" / "," / "?" )
//! bucket = the same without "/", 1 to 100 characters
//! ```
//!
//! On top of that, as the file backend's `secure-path.ts` does, a key may not
//! start or end with `/`, hold an empty segment (`a//b`), or a `.` or `..`
//! segment: so no key can name anything outside its bucket's folder. `..`
//! inside a name (`a..b.png`) is fine. Examples:
//!
//! - accepted: `products/a b/img (1).png`, `it's here!.txt`, `v1..2.tar`
//! - refused with `InvalidKey`: `../x`, `a/./b`, `/etc/passwd`, `a//b`,
//!   `café.png` (non-ASCII), `a\b`, `a%2e`, `nul\0`.
//!
//! Bytes of an object version live at `<bucket>/<key>/<version>` in the store;
//! the version is a UUID, so an upload never overwrites the bytes a row points
//! at.

use object_store::path::Path;

use super::error::StorageError;

/// Keys are at most this long, as S3's are.
const MAX_KEY_BYTES: usize = 1024;
/// Bucket names are at most this long (Storage's limit).
const MAX_BUCKET_CHARS: usize = 100;

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '_' | '!'
                | '-'
                | '.'
                | '*'
                | '\''
                | '('
                | ')'
                | ' '
                | '&'
                | '$'
                | '@'
                | '='
                | ';'
                | ':'
                | '+'
                | ','
                | '?'
        )
}

/// An object key that passed [`parse_key`].
pub fn parse_key(key: &str) -> Result<&str, StorageError> {
    let ok = !key.is_empty()
        && key.len() <= MAX_KEY_BYTES
        && key.chars().all(|c| c == '/' || allowed(c))
        && key.split('/').all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    if ok { Ok(key) } else { Err(StorageError::invalid_key(key)) }
}

pub fn parse_bucket(name: &str) -> Result<&str, StorageError> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_BUCKET_CHARS
        && name.chars().all(allowed)
        && name != "."
        && name != "..";
    if ok { Ok(name) } else { Err(StorageError::invalid_bucket_name(name)) }
}

/// Where the bytes of one version of `bucket/key` live. Both parts must have
/// been validated; `Path::parse` then never re-encodes them, so the store path
/// is exactly the key.
pub fn version_path(bucket: &str, key: &str, version: &str) -> Result<Path, StorageError> {
    Path::parse(format!("{bucket}/{key}/{version}")).map_err(|_| StorageError::invalid_key(key))
}

/// Where a transformed variant of a version is kept in the store:
/// `<bucket>/<key>/<version>@<variant>`, beside its source, so the sweeper
/// removes it with its version (`storage::sweep`).
pub fn variant_path(bucket: &str, key: &str, version: &str, variant: &str) -> Result<Path, StorageError> {
    Path::parse(format!("{bucket}/{key}/{version}@{variant}")).map_err(|_| StorageError::invalid_key(key))
}

/// The folder holding every object of a bucket.
pub fn bucket_path(bucket: &str) -> Result<Path, StorageError> {
    Path::parse(bucket).map_err(|_| StorageError::invalid_bucket_name(bucket))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_hosted_allowlist() {
        let cases = [
            ("img.png", true),
            ("products/a b/img (1).png", true),
            ("it's here!.txt", true),
            ("v1..2.tar", true),
            ("a&b$c@d=e;f:g+h,i?j*k", true),
            ("..", false),
            ("../x", false),
            ("a/../b", false),
            ("a/./b", false),
            ("a/..", false),
            ("/etc/passwd", false),
            ("a/", false),
            ("a//b", false),
            ("", false),
            ("café.png", false),
            ("a\\b", false),
            ("a%2e%2e", false),
            ("nul\0byte", false),
            ("line\nbreak", false),
            ("tab\there", false),
            ("#hash", false),
            ("~home", false),
        ];
        for (key, ok) in cases {
            assert_eq!(parse_key(key).is_ok(), ok, "{key:?}");
        }
        assert!(parse_key(&"a".repeat(1024)).is_ok());
        assert!(parse_key(&"a".repeat(1025)).is_err());
    }

    #[test]
    fn bucket_names_have_no_slashes() {
        let cases = [("avatars", true), ("product images", true), ("a/b", false), ("", false), ("..", false)];
        for (name, ok) in cases {
            assert_eq!(parse_bucket(name).is_ok(), ok, "{name:?}");
        }
        assert!(parse_bucket(&"b".repeat(101)).is_err());
    }

    #[test]
    fn version_paths_keep_the_key_verbatim() {
        let path = version_path("b", "a b/it's (1).png", "v1").expect("path");
        assert_eq!(path.as_ref(), "b/a b/it's (1).png/v1");
    }
}
