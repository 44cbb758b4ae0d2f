//! PKCE (RFC 7636) on `auth.flow_state`, for every flow that ends in an auth
//! code: OpenID Connect sign-in (`handlers::oauth`, whose provider-specific
//! statements are in `external`) and the mailed links of sign-up, magic
//! link, recovery and e-mail change (`handlers::mail`, `handlers::verify`).
//!
//! As GoTrue (supabase/auth `internal/api/pkce.go`, `models/flow_state.go`):
//! a request carrying `code_challenge` and `code_challenge_method` records a
//! flow row for the user, and the mailed token is stored and linked as
//! `pkce_<token hash>`, so that the link cannot be turned into an implicit
//! one by dropping the prefix. `GET /verify` with such a token gives the
//! flow an auth code and sends the browser to `redirect_to?code=…`; the app
//! trades it with its verifier at `/token?grant_type=pkce`
//! (`external::exchange`), once, within `FLOW_EXPIRY_SECS` of the code.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::error::AuthError;
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// What marks a mailed token as one of a PKCE flow (GoTrue's `PKCEPrefix`).
pub const TOKEN_PREFIX: &str = "pkce_";

/// The challenge an app sent, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    pub challenge: String,
    /// `s256` or `plain`.
    pub method: String,
}

/// Checks `code_challenge` and its method as GoTrue's `validatePKCEParams`:
/// both or neither.
pub fn params(challenge: Option<&str>, method: Option<&str>) -> Result<Option<Pkce>, AuthError> {
    let challenge = challenge.unwrap_or_default();
    let method = method.unwrap_or_default().to_lowercase();
    match (challenge.is_empty(), method.is_empty()) {
        (true, true) => Ok(None),
        (true, false) | (false, true) => {
            Err(AuthError::validation_failed("PKCE flow requires code_challenge_method and code_challenge"))
        }
        (false, false) => {
            if !(43..=128).contains(&challenge.len()) {
                return Err(AuthError::validation_failed(
                    "code challenge has to be between 43 and 128 characters",
                ));
            }
            if !challenge.chars().all(|c| c.is_ascii_alphanumeric() || "._~-".contains(c)) {
                return Err(AuthError::validation_failed(
                    "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes",
                ));
            }
            if method != "s256" && method != "plain" {
                return Err(AuthError::validation_failed("Invalid code_challenge_method"));
            }
            Ok(Some(Pkce { challenge: challenge.to_owned(), method }))
        }
    }
}

/// Whether `verifier` answers the challenge recorded with `method`.
pub fn verifier_matches(method: &str, challenge: &str, verifier: &str) -> bool {
    let computed = match method {
        "s256" => URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())),
        "plain" => verifier.to_owned(),
        _ => return false,
    };
    bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

/// Records an e-mail flow for `user_id`, before its mail goes out (GoTrue's
/// `generateFlowState`). The auth code comes only when the link is followed.
pub async fn start_email_flow(
    db: &Db,
    user_id: Uuid,
    authentication_method: &str,
    pkce: &Pkce,
) -> Result<(), ApiError> {
    const INSERT: &str = "insert into auth.flow_state (id, user_id, code_challenge_method, code_challenge, \
          provider_type, created_at, updated_at, authentication_method) \
        values ($1, $2, $3::text::auth.code_challenge_method, $4, 'email', now(), now(), $5)";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session
        .query(INSERT, &[&Uuid::new_v4(), &user_id, &pkce.method, &pkce.challenge, &authentication_method])
        .await?;
    session.commit().await
}

/// Gives the user's latest pending flow of `authentication_method` its auth
/// code (GoTrue's `issueAuthCode`), inside the transaction that used the
/// mailed token; `None` when there is no such flow.
pub async fn issue_code(
    session: &mut Session,
    user_id: Uuid,
    authentication_method: &str,
) -> Result<Option<String>, ApiError> {
    const ISSUE: &str = "update auth.flow_state set auth_code = $3, auth_code_issued_at = now(), \
          updated_at = now() \
        where id = (select id from auth.flow_state where user_id = $1 and authentication_method = $2 \
          and auth_code is null order by created_at desc limit 1 for update) \
        returning auth_code";
    // GoTrue's auth codes are UUIDs (122 random bits), good for one exchange.
    let code = Uuid::new_v4().to_string();
    let rows = session.query(ISSUE, &[&user_id, &authentication_method, &code]).await?;
    Ok(rows.first().map(|r| r.get(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_parameters_are_checked_as_gotrue_checks_them() {
        let challenge = "a".repeat(43);
        let expected = Pkce { challenge: challenge.clone(), method: "s256".to_owned() };
        assert_eq!(params(Some(&challenge), Some("S256")).expect("ok"), Some(expected));
        assert_eq!(params(None, None).expect("none"), None);
        let cases: [(Option<&str>, Option<&str>); 4] = [
            (Some(&challenge), None),
            (None, Some("s256")),
            (Some("short"), Some("s256")),
            (Some(&challenge), Some("md5")),
        ];
        for (challenge, method) in cases {
            assert!(params(challenge, method).is_err(), "{challenge:?} {method:?}");
        }
    }

    #[test]
    fn verifiers_answer_their_challenge_by_method() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        // RFC 7636 appendix B.
        let s256 = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        let cases = [
            ("s256", s256, verifier, true),
            ("s256", s256, "another-verifier-another-verifier-another-v", false),
            ("plain", verifier, verifier, true),
            ("plain", s256, verifier, false),
            ("md5", verifier, verifier, false),
        ];
        for (method, challenge, given, matches) in cases {
            assert_eq!(verifier_matches(method, challenge, given), matches, "{method} {given}");
        }
    }
}
