//! What GoTrue answers for the features an operator turns off, for those
//! this gateway has not built yet: SAML single sign-on and MFA enrolment (supabase/auth `internal/api/api.go`,
//! `middleware.go`, `mfa.go`). supabase-js then reports a feature that is
//! off, in GoTrue's words and codes, rather than a route that is missing.
//! Anonymous sign-ins (`signup.rs`) and the Web3 grant (`token.rs`) are
//! refused where those requests arrive, manual identity linking in
//! `oauth.rs` while `AUTH_SECURITY_MANUAL_LINKING_ENABLED` is off.

use axum::extract::Path;
use serde::Deserialize;
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::extract::{Body, SignedIn};
use crate::error::ApiError;

/// `/sso` and `/sso/saml/*`: GoTrue with SAML off (`requireSAMLEnabled`).
pub async fn sso() -> ApiError {
    AuthError::saml_provider_disabled().into()
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Enroll {
    factor_type: String,
}

/// `POST /factors`: a signed-in user, then GoTrue with every kind of
/// factor's enrolment off (`EnrollFactor`).
pub async fn enroll(_: SignedIn, Body(body): Body<Enroll>) -> ApiError {
    match body.factor_type.as_str() {
        "totp" => AuthError::mfa_enroll_disabled("mfa_totp_enroll_not_enabled", "TOTP"),
        "phone" => AuthError::mfa_enroll_disabled("mfa_phone_enroll_not_enabled", "Phone"),
        "webauthn" => AuthError::mfa_enroll_disabled("mfa_webauthn_enroll_not_enabled", "WebAuthn"),
        _ => AuthError::validation_failed("factor_type needs to be totp, phone, or webauthn"),
    }
    .into()
}

/// `/factors/{id}` and its `challenge` and `verify`: no factor can have been
/// enrolled, so GoTrue's `loadFactor` finds none.
pub async fn factor(_: SignedIn, Path(id): Path<String>) -> ApiError {
    match Uuid::parse_str(&id) {
        Ok(_) => AuthError::mfa_factor_not_found(),
        Err(_) => AuthError::factor_id_not_uuid(),
    }
    .into()
}
