//! Refresh tokens.
//!
//! - A session's first token is 32 random bytes (256 bits; GoTrue's legacy
//!   tokens have about 60), written as unpadded base64url.
//! - Rotation derives the next token from the one presented:
//!   `child = SHA-256("gateway refresh child" || token)`. Only a holder of the
//!   current token can compute its child, and every concurrent or repeated
//!   refresh of one token within the reuse window gets the very same child,
//!   although the database never holds a token, only its digest.
//! - The database keeps `hex(SHA-256(token))`; digests are compared with
//!   `subtle` in constant time.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

const TOKEN_BYTES: usize = 32;
const CHILD_DOMAIN: &[u8] = b"gateway refresh child";

/// A fresh token for a new session.
pub fn generate() -> Result<String, ApiError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether `token` has the shape of one of ours (anything else is not found
/// without a database lookup).
pub fn well_formed(token: &str) -> bool {
    token.len() == 43 && URL_SAFE_NO_PAD.decode(token).is_ok_and(|b| b.len() == TOKEN_BYTES)
}

/// The token that replaces `token` when it is rotated.
pub fn child_of(token: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(CHILD_DOMAIN);
    hasher.update(token.as_bytes());
    URL_SAFE_NO_PAD.encode(hasher.finalize())
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
    fn children_are_deterministic_well_formed_and_new() {
        let token = generate().expect("token");
        let child = child_of(&token);
        assert_eq!(child, child_of(&token));
        assert_ne!(child, token);
        assert!(well_formed(&child));
        assert_ne!(child_of(&child), child);
    }

    #[test]
    fn the_database_never_sees_the_token() {
        let token = generate().expect("token");
        let stored = digest(&token);
        assert!(!stored.contains(&token));
        assert_eq!(stored.len(), 64);
        assert!(same_digest(&stored, &digest(&token)));
        assert!(!same_digest(&stored, &digest(&child_of(&token))));
        assert!(!same_digest(&stored, ""));
    }

    #[test]
    fn malformed_tokens_are_recognised() {
        for bad in ["", "abc", "n5nbc3qx7lja", &"a".repeat(44), &"!".repeat(43)] {
            assert!(!well_formed(bad), "{bad}");
        }
    }
}
