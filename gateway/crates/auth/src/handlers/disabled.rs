//! What GoTrue answers for MFA factors of kinds that are off (supabase/auth
//! `internal/api/api.go`, `middleware.go`, `mfa.go`). supabase-js then reports a feature that is
//! off, in GoTrue's words and codes, rather than a route that is missing.
//! Anonymous sign-ins (`signup.rs`) and the Web3 grant (`token.rs`) are
//! refused where those requests arrive, manual identity linking in
//! `oauth.rs` while `AUTH_SECURITY_MANUAL_LINKING_ENABLED` is off, SAML single
//! sign-on in `sso.rs` while `AUTH_SAML_ENABLED` is off.

use crate::error::AuthError;

/// GoTrue's answer to enrolling a factor of a kind that is off (TOTP is
/// built, in `factors.rs`, and refused here only with `AUTH_MFA_TOTP_ENABLED`
/// off).
pub fn enroll_refusal(factor_type: &str) -> AuthError {
    match factor_type {
        "totp" => AuthError::mfa_enroll_disabled("mfa_totp_enroll_not_enabled", "TOTP"),
        "phone" => AuthError::mfa_enroll_disabled("mfa_phone_enroll_not_enabled", "Phone"),
        "webauthn" => AuthError::mfa_enroll_disabled("mfa_webauthn_enroll_not_enabled", "WebAuthn"),
        _ => AuthError::validation_failed("factor_type needs to be totp, phone, or webauthn"),
    }
}

/// GoTrue's answer to challenging or verifying a factor whose kind is off
/// (`ChallengeFactor`, `VerifyFactor`).
pub fn verify_refusal(code: &'static str, kind: &str) -> AuthError {
    AuthError::new(
        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
        code,
        format!("MFA verification is disabled for {kind}"),
    )
}
