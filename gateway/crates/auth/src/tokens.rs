//! Refresh tokens.
//!
//! - A session's first token is 32 random bytes (256 bits; GoTrue's legacy
//!   tokens have about 60), written as unpadded base64url.
//! - Every session has a key of its own, 32 random bytes kept server-side in
//!   `auth.sessions.refresh_token_hmac_key` (the column GoTrue's refresh-token
//!   algorithm v2 keeps its per-session HMAC key in, supabase/auth
//!   `internal/crypto/refresh_tokens.go`). It never leaves the database.
//! - Rotation derives the next token from the one presented:
//!   `child = HMAC-SHA-256(session key, "gateway refresh child" || token)`.
//!   Without the key nobody can compute a child, so a token seen once (in a
//!   log, a backup, on a lost device) says nothing about the tokens after it;
//!   yet every concurrent or repeated refresh of one token within the reuse
//!   window gets the very same child, although the database never holds a
//!   token, only its digest.
//! - The database keeps `hex(SHA-256(token))`; digests are compared with
//!   `subtle` in constant time.
//!
//! GoTrue's v2 tokens carry the session id and a counter signed with the key;
//! here the token stays an opaque random-looking string found by its digest,
//! so `auth.refresh_tokens` and its parent chain keep working as before.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use gateway_core::error::ApiError;

const TOKEN_BYTES: usize = 32;
const KEY_BYTES: usize = 32;
const CHILD_DOMAIN: &[u8] = b"gateway refresh child";

/// A fresh token for a new session.
pub fn generate() -> Result<String, ApiError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// A fresh key for a new session, as stored (hex).
pub fn session_key() -> Result<String, ApiError> {
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(hex::encode(bytes))
}

/// Whether `token` has the shape of one of ours (anything else is not found
/// without a database lookup).
pub fn well_formed(token: &str) -> bool {
    token.len() == 43 && URL_SAFE_NO_PAD.decode(token).is_ok_and(|b| b.len() == TOKEN_BYTES)
}

/// The token that replaces `token` when it is rotated, under the session's
/// stored key; `None` when the stored key is not one of ours.
pub fn child_of(session_key: &str, token: &str) -> Option<String> {
    let key = hex::decode(session_key).ok().filter(|k| k.len() == KEY_BYTES)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(CHILD_DOMAIN);
    mac.update(token.as_bytes());
    Some(URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
}

/// What the database stores for `token`.
pub fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Constant-time equality of two digests.
pub fn same_digest(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_256_random_bits_and_differ() {
        let a = generate().expect("token");
        let b = generate().expect("token");
        assert_ne!(a, b);
        assert!(well_formed(&a), "{a}");
        assert_eq!(URL_SAFE_NO_PAD.decode(&a).expect("base64").len() * 8, 256);
    }

    #[test]
    fn children_are_deterministic_under_one_key_well_formed_and_new() {
        let key = session_key().expect("key");
        let token = generate().expect("token");
        let child = child_of(&key, &token).expect("child");
        assert_eq!(Some(&child), child_of(&key, &token).as_ref());
        assert_ne!(child, token);
        assert!(well_formed(&child));
        assert_ne!(child_of(&key, &child).expect("grandchild"), child);
    }

    #[test]
    fn another_key_gives_another_child_and_no_key_gives_none() {
        let token = generate().expect("token");
        let (a, b) = (session_key().expect("key"), session_key().expect("key"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(child_of(&a, &token), child_of(&b, &token));
        for bad in ["", "zz", &a[..62], "not hex at all"] {
            assert_eq!(child_of(bad, &token), None, "{bad:?}");
        }
    }

    #[test]
    fn the_database_never_sees_the_token() {
        let key = session_key().expect("key");
        let token = generate().expect("token");
        let stored = digest(&token);
        assert!(!stored.contains(&token));
        assert_eq!(stored.len(), 64);
        assert!(same_digest(&stored, &digest(&token)));
        assert!(!same_digest(&stored, &digest(&child_of(&key, &token).expect("child"))));
        assert!(!same_digest(&stored, ""));
    }

    #[test]
    fn malformed_tokens_are_recognised() {
        for bad in ["", "abc", "n5nbc3qx7lja", &"a".repeat(44), &"!".repeat(43)] {
            assert!(!well_formed(bad), "{bad}");
        }
    }
}
