//! `/auth/v1` as an OAuth 2.1 authorization server: third-party apps sign
//! their users in with the project's accounts (supabase/auth
//! `internal/api/oauthserver/`; its routes in `internal/api/api.go`).
//!
//! | route | who | what |
//! |---|---|---|
//! | `/admin/oauth/clients[/{id}]`, `POST …/{id}/regenerate_secret` | service_role | client CRUD (`clients`) |
//! | `POST /oauth/clients/register` | anyone, when dynamic registration is on | RFC 7591 registration (`clients`) |
//! | `GET /oauth/authorize` | the browser | a pending authorization, then the app's consent screen (`authorize`) |
//! | `GET /oauth/authorizations/{id}`, `POST …/consent` | the signed-in user, through the consent screen | details; approve or deny (`authorize`) |
//! | `POST /oauth/token` | the client | `authorization_code` with its verifier, `refresh_token` (`token`) |
//! | `GET /oauth/userinfo` | the client, with the user's token | OpenID Connect claims by scope (`token`) |
//! | `GET`/`DELETE /user/oauth/grants` | signed in | the user's consents; revoking one ends its sessions (`grants`) |
//! | `GET /.well-known/openid-configuration`, `/.well-known/oauth-authorization-server` | anyone | discovery (`discovery`) |
//!
//! Every route answers 404 `feature_disabled` while `AUTH_OAUTH_SERVER_ENABLED`
//! is off, as GoTrue's `requireOAuthServerEnabled` does, except
//! `/.well-known/openid-configuration`, which GoTrue serves regardless.
//!
//! What differs from GoTrue: PKCE is required and only `S256` is accepted
//! (OAuth 2.1 §7.5.2 recommends it; GoTrue also takes `plain`); no ID token is
//! issued for the `openid` scope (the access token and `/oauth/userinfo`
//! carry the claims); authorization codes are stored as digests.

pub mod authorize;
pub mod clients;
pub mod discovery;
pub mod grants;
pub mod store;
pub mod token;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::AuthState;
use crate::error::AuthError;
use gateway_core::error::ApiError;

/// The scopes GoTrue knows (`models.SupportedOAuthScopes`).
pub const SUPPORTED_SCOPES: [&str; 5] = ["openid", "profile", "email", "phone", "offline_access"];

/// The scope asked when `/oauth/authorize` names none (GoTrue's
/// `OAUTH_SERVER_DEFAULT_SCOPE`).
pub const DEFAULT_SCOPE: &str = "email";

/// The scopes of a space-separated `scope`, blanks dropped.
pub fn scopes(scope: &str) -> Vec<&str> {
    scope.split(' ').map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// Refuses every route of the server while it is off.
pub(crate) fn enabled(state: &AuthState) -> Result<(), ApiError> {
    if state.config.oauth_server_enabled { Ok(()) } else { Err(AuthError::oauth_server_disabled().into()) }
}

/// Whether `verifier` is the one whose S256 challenge the client sent
/// (RFC 7636 §4.6), compared in constant time.
pub fn verifier_matches(challenge: &str, verifier: &str) -> bool {
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    computed.len() == challenge.len() && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

/// Random alphanumerics, for authorization ids (GoTrue's
/// `crypto.SecureAlphanumeric(32)`).
pub(crate) fn alphanumeric(len: usize) -> Result<String, ApiError> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(len);
    let mut bytes = [0u8; 64];
    while out.len() < len {
        getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
        // 248 is the largest multiple of 62 below 256: no letter is favoured.
        out.extend(bytes.iter().filter(|b| **b < 248).map(|b| ALPHABET[(*b % 62) as usize] as char));
    }
    out.truncate(len);
    Ok(out)
}

/// `redirect_uri` with `pairs` added to its query, as GoTrue's
/// `buildSuccessRedirectURL` and `buildErrorRedirectURL` make it.
pub fn with_query(redirect_uri: &str, pairs: &[(&str, &str)]) -> String {
    match reqwest::Url::parse(redirect_uri) {
        Ok(mut url) => {
            {
                let mut query = url.query_pairs_mut();
                for (key, value) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
                    query.append_pair(key, value);
                }
            }
            url.to_string()
        }
        Err(_) => redirect_uri.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_s256_challenge_of_the_verifier_matches() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        let cases = [
            (challenge, verifier, true),
            (challenge, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl", false),
            (verifier, verifier, false),
            (challenge, "", false),
            ("", verifier, false),
        ];
        for (challenge, verifier, expected) in cases {
            assert_eq!(verifier_matches(challenge, verifier), expected, "{challenge} {verifier}");
        }
    }

    #[test]
    fn scopes_split_on_spaces_and_drop_blanks() {
        assert_eq!(scopes(" openid  email "), ["openid", "email"]);
        assert!(scopes("  ").is_empty());
    }

    #[test]
    fn redirects_keep_their_query_and_gain_the_answer() {
        let cases = [
            (
                "https://app.example/cb",
                &[("code", "c"), ("state", "s")][..],
                "https://app.example/cb?code=c&state=s",
            ),
            (
                "https://app.example/cb?x=1",
                &[("code", "c"), ("state", "")][..],
                "https://app.example/cb?x=1&code=c",
            ),
            (
                "http://localhost:3000/cb",
                &[("error", "access_denied"), ("error_description", "User denied the request")][..],
                "http://localhost:3000/cb?error=access_denied&error_description=User+denied+the+request",
            ),
        ];
        for (uri, pairs, expected) in cases {
            assert_eq!(with_query(uri, pairs), expected);
        }
    }

    #[test]
    fn authorization_ids_are_alphanumeric_and_differ() {
        let (a, b) = (alphanumeric(32).expect("id"), alphanumeric(32).expect("id"));
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()), "{a}");
        assert_ne!(a, b);
    }
}
