//! The `webauthn` MFA factor's enrolment, challenge and verification
//! (supabase/auth `internal/api/mfa.go`: `enrollWebAuthnFactor`,
//! `challengeWebAuthnFactor`, `verifyWebAuthnFactor`), called by `factors`
//! once it has found the factor and taken the rate limit.
//!
//! The challenge of an unverified factor carries registration options
//! (`webauthn.type` `create`), that of a verified one authentication
//! options for its credential (`request`), both as `credential_options`
//! with a `publicKey` member, as the browser's `navigator.credentials`
//! takes them. Verification answers an `aal2` session as TOTP's does.

use std::net::{IpAddr, Ipv4Addr};

use axum::Json;
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;
use webauthn_rs::prelude::{
    PasskeyAuthentication, PasskeyRegistration, PublicKeyCredential, RegisterPublicKeyCredential,
};

use super::passkeys::user_names;
use super::user::current_user;
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::SignedIn;
use crate::mfa_store::{self, NewFactor};
use crate::webauthn::{self, Columns};
use crate::webauthn_store::{self as store, FactorVerified};
use gateway_core::error::ApiError;

/// `webauthn` of a verification's body (GoTrue's `WebAuthnParams`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Params {
    #[serde(rename = "type")]
    kind: String,
    credential_response: Option<Value>,
}

pub async fn enroll(
    state: &AuthState,
    signed_in: &SignedIn,
    friendly_name: &str,
) -> Result<Json<Value>, ApiError> {
    let (aal, _) = mfa_store::assurance(&state.db, signed_in.user_id, signed_in.session_id).await?;
    let id = Uuid::new_v4();
    let factor = NewFactor {
        user_id: signed_in.user_id,
        id,
        factor_type: "webauthn",
        friendly_name,
        sealed_secret: None,
        session_aal: &aal,
    };
    mfa_store::enroll(&state.db, &state.config, &factor).await?;
    Ok(Json(json!({ "id": id, "type": "webauthn", "friendly_name": friendly_name })))
}

/// Challenges store an address; an unknown one is stored as 0.0.0.0.
fn address(ip: Option<IpAddr>) -> IpAddr {
    ip.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

fn to_state<T: serde::Serialize>(state: &T) -> Result<Value, ApiError> {
    serde_json::to_value(state).map_err(ApiError::internal)
}

pub async fn challenge(
    state: &AuthState,
    signed_in: &SignedIn,
    factor_id: Uuid,
    ip: Option<IpAddr>,
) -> Result<Json<Value>, ApiError> {
    let Some((verified, credential)) = store::factor(&state.db, signed_in.user_id, factor_id).await? else {
        return Err(AuthError::mfa_factor_not_found().into());
    };
    let party = webauthn::relying_party(&state.config, crate::site_url(state))?;
    let (kind, options, ceremony) = match credential.filter(|_| verified) {
        None => {
            let user = current_user(state, signed_in).await?;
            let (name, display) = user_names(&user);
            let existing = store::factor_credential_ids(&state.db, signed_in.user_id).await?;
            let exclude = Some(existing);
            let (options, ceremony) = party
                .start_passkey_registration(signed_in.user_id, &name, &display, exclude)
                .map_err(ApiError::internal)?;
            ("create", to_state(&options)?, to_state(&ceremony)?)
        }
        Some(credential) => {
            let passkey = webauthn::passkey(credential)?;
            let (options, ceremony) =
                party.start_passkey_authentication(&[passkey]).map_err(ApiError::internal)?;
            ("request", to_state(&options)?, to_state(&ceremony)?)
        }
    };
    let made = store::challenge_factor(
        &state.db,
        &state.config,
        signed_in.user_id,
        factor_id,
        address(ip),
        kind,
        ceremony,
    )
    .await?;
    let Some((id, expires_at)) = made else {
        return Err(AuthError::mfa_factor_not_found().into());
    };
    Ok(Json(json!({
        "id": id,
        "type": "webauthn",
        "expires_at": expires_at,
        "webauthn": { "type": kind, "credential_options": options },
    })))
}

pub async fn verify(
    state: &AuthState,
    signed_in: &SignedIn,
    ip: Option<IpAddr>,
    factor_id: Uuid,
    challenge_id: Uuid,
    params: Option<Params>,
) -> Result<Json<Value>, ApiError> {
    let Some(params) = params else {
        return Err(AuthError::validation_failed("WebAuthn config required").into());
    };
    if params.kind != "create" && params.kind != "request" {
        return Err(AuthError::validation_failed("WebAuthn type must be create or request").into());
    }
    let Some(response) = params.credential_response.filter(|r| !r.is_null()) else {
        return Err(AuthError::validation_failed("credential_response required").into());
    };
    // A token without a session cannot be raised to aal2.
    let session_id =
        signed_in.session_id.ok_or_else(|| AuthError::bad_jwt("invalid claim: session_id claim"))?;
    let Some((verified, credential)) = store::factor(&state.db, signed_in.user_id, factor_id).await? else {
        return Err(AuthError::mfa_factor_not_found().into());
    };
    let (kind, ceremony) =
        store::consume_factor_challenge(&state.db, &state.config, factor_id, challenge_id, address(ip))
            .await?;
    if kind != params.kind {
        return Err(AuthError::mfa_webauthn_verification_failed().into());
    }
    let party = webauthn::relying_party(&state.config, crate::site_url(state))?;
    let invalid = |_| AuthError::validation_failed("Invalid credential_response");
    let refused = |error: webauthn_rs::prelude::WebauthnError| {
        tracing::info!(%error, "WebAuthn factor refused");
        AuthError::mfa_webauthn_verification_failed()
    };
    let passkey = match (kind.as_str(), credential.filter(|_| verified)) {
        ("create", None) => {
            let response: RegisterPublicKeyCredential = serde_json::from_value(response).map_err(invalid)?;
            let ceremony: PasskeyRegistration =
                serde_json::from_value(ceremony).map_err(ApiError::internal)?;
            party.finish_passkey_registration(&response, &ceremony).map_err(refused)?
        }
        ("request", Some(credential)) => {
            let response: PublicKeyCredential = serde_json::from_value(response).map_err(invalid)?;
            let ceremony: PasskeyAuthentication =
                serde_json::from_value(ceremony).map_err(ApiError::internal)?;
            let mut passkey = webauthn::passkey(credential)?;
            let result = party.finish_passkey_authentication(&response, &ceremony).map_err(refused)?;
            passkey.update_credential(&result);
            passkey
        }
        // The factor was verified or removed since the challenge was made.
        _ => return Err(AuthError::mfa_webauthn_verification_failed().into()),
    };
    let columns = Columns::of(&passkey)?;
    let accepted = FactorVerified {
        user_id: signed_in.user_id,
        session_id,
        factor_id,
        credential: &columns.credential,
        last_challenge: &json!({ "type": kind, "challenge_id": challenge_id }),
    };
    let (started, refresh_token) = store::accept_factor(&state.db, &accepted).await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(state, grant).await?))
}
