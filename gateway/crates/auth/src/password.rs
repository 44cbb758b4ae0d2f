//! Password hashing: bcrypt at cost 10 like GoTrue (`internal/crypto/password.go`),
//! on a bounded pool of blocking threads.
//!
//! - At most one hash per core runs at once (a semaphore around
//!   `spawn_blocking`): a burst of sign-ins queues here instead of taking every
//!   blocking thread and every core, so REST requests keep being served.
//! - Passwords over 72 bytes are refused, never truncated (bcrypt ignores
//!   what follows byte 72; GoTrue answers `validation_failed`). Up to 72 bytes
//!   the hash is Go's: its terminating NUL falls off a 72-byte password there
//!   too, which the crate's `non_truncating_*` functions refuse instead.
//! - Unknown users are checked against [`DUMMY_HASH`], so that "no such user"
//!   costs the same time as "wrong password" (reliability.md G28).
//! - Any `$2a$`/`$2b$`/`$2y$` hash of any cost verifies, so hashes from a
//!   Supabase dump keep working.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Semaphore;

use super::error::AuthError;
use gateway_core::error::ApiError;

/// GoTrue's cost (Go's `bcrypt.DefaultCost`); the Rust crate's default is 12.
pub const COST: u32 = 10;

/// bcrypt's input limit, in bytes.
pub const MAX_BYTES: usize = 72;

/// A cost-10 hash of a random string nobody knows: verified against when the user
/// does not exist, so that the answer takes as long as for a real user.
const DUMMY_HASH: &str = "$2a$10$I6x3hzK9jnwslbsaBt87uelNHslXL941M0iAs6Gh.rAXjBGMark8K";

static PERMITS: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)));

/// The length rules of a new password: 422 `weak_password` when shorter than
/// `min_length` characters, 400 `validation_failed` when longer than 72 bytes.
pub fn check_new(password: &str, min_length: u32) -> Result<(), AuthError> {
    if password.len() > MAX_BYTES {
        return Err(AuthError::password_too_long());
    }
    if password.chars().count() < min_length as usize {
        return Err(AuthError::weak_password(min_length));
    }
    Ok(())
}

/// A new cost-10 hash.
pub async fn hash(password: &str) -> Result<String, ApiError> {
    if password.len() > MAX_BYTES {
        return Err(AuthError::password_too_long().into());
    }
    let password = password.to_owned();
    run_bounded(move || bcrypt::hash(password, COST)).await?.map_err(ApiError::internal)
}

/// Whether `password` matches `hash`; `None` (no such user, or a user without a
/// password) costs a verification against the dummy hash and is never a match.
pub async fn verify(password: &str, hash: Option<&str>) -> Result<bool, ApiError> {
    if password.len() > MAX_BYTES {
        return Err(AuthError::password_too_long().into());
    }
    let known = hash.filter(|h| !h.is_empty());
    let target = known.unwrap_or(DUMMY_HASH).to_owned();
    let password = password.to_owned();
    // An unreadable stored hash is a failed login, not a server error.
    let matched = run_bounded(move || bcrypt::verify(password, &target).unwrap_or(false)).await?;
    Ok(matched && known.is_some())
}

/// How many hashes run right now, and the most that ever ran at once.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

async fn run_bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    let _permit = PERMITS.acquire().await.map_err(ApiError::internal)?;
    tokio::task::spawn_blocking(move || {
        let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
        PEAK.fetch_max(now, Ordering::SeqCst);
        let result = work();
        RUNNING.fetch_sub(1, Ordering::SeqCst);
        result
    })
    .await
    .map_err(ApiError::internal)
}

/// The most hashes that ever ran at the same time in this process.
pub fn peak_concurrency() -> usize {
    PEAK.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn new_hashes_are_bcrypt_cost_10_and_verify() {
        let hashed = hash("correct horse").await.expect("hash");
        assert!(hashed.starts_with("$2b$10$"), "{hashed}");
        assert!(verify("correct horse", Some(&hashed)).await.expect("verify"));
        assert!(!verify("wrong horse", Some(&hashed)).await.expect("verify"));
    }

    #[tokio::test]
    async fn hashes_written_by_other_bcrypt_implementations_verify() {
        // (password, `$2a$10$` hash, who wrote it)
        let cases = [
            // Go's golang.org/x/crypto/bcrypt, which GoTrue uses.
            ("hash", "$2a$10$IWswZQf54RI4d08qs80OrOZovvu8HuqwBmy4swqAfy67kzLgqhAHW", "Go"),
            // PHP's password_hash (Laravel's well-known factory hash).
            ("password", "$2a$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi", "PHP"),
            // Spring Security's BCryptPasswordEncoder.
            ("111", "$2a$10$gmZ5EOpUeqCHo8vFFWssJexAa1NVrSOynYoLBRG.p2e850mT6D22y", "Java"),
            // This crate, written in the `$2a$` form a Supabase dump carries.
            ("password123", "$2a$10$zOZ0HJ5kVnk8Ffo8iBZrm.7L7yERTphdzVSJZgtLxC06HzPCXmnpC", "Rust"),
        ];
        for (password, hash, writer) in cases {
            assert!(verify(password, Some(hash)).await.expect("verify"), "{writer}");
            assert!(!verify("not-it", Some(hash)).await.expect("verify"), "{writer}");
        }
    }

    #[tokio::test]
    async fn no_user_never_matches_even_the_dummy_password() {
        for password in ["", "password", "dummy"] {
            assert!(!verify(password, None).await.expect("verify"), "{password:?}");
        }
        assert!(!verify("x", Some("not a bcrypt hash")).await.expect("verify"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_one_hash_per_core_runs_at_once() {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let storm = (0..cores * 4).map(|_| hash("a password"));
        for result in futures::future::join_all(storm).await {
            result.expect("hash");
        }
        assert!(peak_concurrency() >= 1);
        assert!(peak_concurrency() <= cores, "{} hashes at once on {cores} cores", peak_concurrency());
    }

    #[test]
    fn new_passwords_are_refused_when_too_short_or_over_72_bytes() {
        let cases: [(&str, String, Option<&str>); 5] = [
            ("5 characters", "abcde".to_owned(), Some("weak_password")),
            ("6 characters", "abcdef".to_owned(), None),
            ("72 bytes", "a".repeat(72), None),
            ("73 bytes", "a".repeat(73), Some("validation_failed")),
            // 37 characters but 74 bytes: bytes count, as GoTrue's len().
            ("multibyte over 72 bytes", "é".repeat(37), Some("validation_failed")),
        ];
        for (name, password, expected) in cases {
            assert_eq!(check_new(&password, 6).err().map(|e| e.code), expected, "{name}");
        }
    }

    #[tokio::test]
    async fn sign_in_refuses_over_72_bytes_instead_of_truncating() {
        let long = "a".repeat(80);
        let truncated_hash = bcrypt::hash(&long[..72], 4).expect("hash");
        let error = verify(&long, Some(&truncated_hash)).await.expect_err("refused");
        assert!(error.as_service::<AuthError>().is_some_and(|e| e.code == "validation_failed"), "{error:?}");
    }
}
