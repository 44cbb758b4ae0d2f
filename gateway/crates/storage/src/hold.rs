//! Keeping the bytes of replaced and deleted versions while a backup copies
//! them.
//!
//! A backup (`gateway backup`) lists the rows of `storage.objects` in a
//! snapshot of the database and then copies the bytes each row names. Bytes
//! are never rewritten in place: every upload writes a new version under a
//! path of its own (`keys::version_path`), so the bytes of a row in the
//! snapshot can only go away by being removed: after a delete, an overwrite or
//! a move commits, its request removes the version the row named, and the
//! sweep removes versions no row names. Both wait for a backup:
//!
//! - the backup holds [`HOLD_KEY`], an advisory lock, exclusively from before
//!   it takes its snapshot until its last byte is copied;
//! - a request, after its commit, removes the old bytes only if it can take
//!   the same lock shared ([`remove_replaced`]); while a backup holds it, the
//!   bytes stay, orphans the next sweep removes;
//! - the backup holds the sweep's own lock (`sweep::LOCK_KEY`) too, so no
//!   sweep runs meanwhile.
//!
//! Why that is enough: a row the snapshot holds was deleted or replaced by a
//! commit that came after the snapshot, so after the backup took the lock; the
//! request asks for the lock after its commit, so while the backup still holds
//! it (its bytes stay) or after the backup released it (its bytes were
//! copied).

use object_store::path::Path;

use super::backend::Backend;
use gateway_core::db::Db;

/// The advisory lock a backup holds exclusively; any fixed number would do,
/// as long as nothing else in the database uses it.
pub const HOLD_KEY: i64 = 0x6761_7465_686f_6c64;

/// Removes the bytes of versions whose rows a committed transaction deleted or
/// replaced, unless a backup is copying bytes now: then they are left to the
/// sweep (see the module's documentation). Failures are logged: at worst the
/// bytes stay as orphans.
pub async fn remove_replaced(db: &Db, store: &Backend, paths: Vec<Path>) {
    if paths.is_empty() {
        return;
    }
    // Taken and released within the statement's own implicit transaction: it
    // only asks whether a backup holds the lock exclusively.
    let free = db.as_authenticator("select pg_try_advisory_xact_lock_shared($1)", &[&HOLD_KEY]).await;
    match free.as_deref().map(|rows| rows.first().map(|row| row.get::<_, bool>(0))) {
        Ok(Some(true)) => {
            for path in &paths {
                store.remove(path).await;
            }
        }
        Ok(_) => tracing::info!(
            blobs = paths.len(),
            "a backup is copying the stored files: the bytes of the replaced or deleted versions are \
             left to the sweep"
        ),
        Err(e) => tracing::warn!(
            error = %e,
            blobs = paths.len(),
            "could not ask whether a backup runs: the bytes of the replaced or deleted versions are left \
             to the sweep"
        ),
    }
}
