//! MFA with TOTP and WebAuthn factors (supabase/auth `internal/api/mfa.go`;
//! supabase-js `auth.mfa.*`):
//!
//! | route | supabase-js | answer |
//! |---|---|---|
//! | `POST /factors` | `mfa.enroll({factorType: 'totp'})` | `{id, type, friendly_name, totp: {qr_code, secret, uri}}` |
//! | `POST /factors` | `mfa.enroll({factorType: 'webauthn'})` | `{id, type, friendly_name}` |
//! | `POST /factors/{id}/challenge` | `mfa.challenge` | `{id, type, expires_at}`, and for WebAuthn `webauthn: {type, credential_options}` |
//! | `POST /factors/{id}/verify` | `mfa.verify` | an `aal2` session, new refresh token |
//! | `DELETE /factors/{id}` | `mfa.unenroll` | `{id}` |
//!
//! `listFactors` and `getAuthenticatorAssuranceLevel` are computed by
//! supabase-js from the user's `factors` and the token's `aal` and `amr`.
//! Anonymous users are refused, as GoTrue's `requireNotAnonymous`. Phone
//! factors stay refused as GoTrue refuses them when off (`disabled.rs`), and
//! so do TOTP with `AUTH_MFA_TOTP_ENABLED=false` and WebAuthn with
//! `AUTH_MFA_WEBAUTHN_ENABLED=false`.
//!
//! A WebAuthn factor's first challenge registers a credential (`create`),
//! later ones assert it (`request`); the challenge keeps the ceremony's
//! state and is used once, whatever the outcome.

use axum::{
    Json,
    extract::{Path, State},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::user::current_user;
use super::{disabled, webauthn_factor};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, SignedIn};
use crate::mfa::{self, Sealer};
use crate::mfa_store::{self as factors, NewFactor, Verification};
use crate::ratelimit::{self, Bucket};
use gateway_core::error::ApiError;

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct EnrollBody {
    factor_type: String,
    friendly_name: String,
    issuer: String,
}

/// The user behind the token, refused when anonymous.
async fn permanent_user(state: &AuthState, signed_in: &SignedIn) -> Result<Value, ApiError> {
    let user = current_user(state, signed_in).await?;
    if user.get("is_anonymous").and_then(Value::as_bool) == Some(true) {
        return Err(AuthError::anonymous_not_allowed().into());
    }
    Ok(user)
}

fn sealer(state: &AuthState) -> Result<Sealer, ApiError> {
    Sealer::new(state.config.mfa_encryption_key.as_ref().unwrap_or_else(|| state.credentials.jwt.secret()))
}

fn factor_id(id: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(id).map_err(|_| AuthError::factor_id_not_uuid())
}

/// The issuer GoTrue names when the app gives none: the site URL's host.
fn default_issuer(site_url: &str) -> String {
    let rest = site_url.split_once("://").map_or(site_url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or_default().to_owned()
}

pub async fn enroll(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Body(body): Body<EnrollBody>,
) -> Result<Json<Value>, ApiError> {
    let config = &state.config;
    let user = permanent_user(&state, &signed_in).await?;
    if body.factor_type == "webauthn" && config.mfa_webauthn_enabled {
        return webauthn_factor::enroll(&state, &signed_in, body.friendly_name.trim()).await;
    }
    if body.factor_type != "totp" || !config.mfa_totp_enabled {
        return Err(disabled::enroll_refusal(&body.factor_type).into());
    }
    let issuer = Some(body.issuer.trim().to_owned())
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| default_issuer(crate::site_url(&state)));
    let (aal, _) = factors::assurance(&state.db, signed_in.user_id, signed_in.session_id).await?;
    let id = Uuid::new_v4();
    let secret = mfa::new_secret()?;
    let sealed = sealer(&state)?.seal(&id.to_string(), &secret)?;
    let friendly_name = body.friendly_name.trim();
    let factor = NewFactor {
        user_id: signed_in.user_id,
        id,
        factor_type: "totp",
        friendly_name,
        sealed_secret: Some(&sealed),
        session_aal: &aal,
    };
    factors::enroll(&state.db, config, &factor).await?;
    let account = user.get("email").and_then(Value::as_str).unwrap_or_default();
    let uri = mfa::uri(&issuer, account, &secret);
    Ok(Json(json!({
        "id": id,
        "type": "totp",
        "friendly_name": friendly_name,
        "totp": { "qr_code": mfa::qr_svg(&uri)?, "secret": secret, "uri": uri },
    })))
}

/// The kinds of factor this gateway challenges and verifies.
enum Kind {
    Totp,
    WebAuthn,
}

/// A factor of the signed-in user that may be challenged or verified, and
/// its kind.
async fn usable_factor(state: &AuthState, signed_in: &SignedIn, id: &str) -> Result<(Uuid, Kind), ApiError> {
    let id = factor_id(id)?;
    permanent_user(state, signed_in).await?;
    let Some((factor_type, _)) = factors::find(&state.db, signed_in.user_id, id).await? else {
        return Err(AuthError::mfa_factor_not_found().into());
    };
    match factor_type.as_str() {
        "totp" if state.config.mfa_totp_enabled => Ok((id, Kind::Totp)),
        "totp" => Err(disabled::verify_refusal("mfa_totp_verify_not_enabled", "TOTP").into()),
        "webauthn" if state.config.mfa_webauthn_enabled => Ok((id, Kind::WebAuthn)),
        "phone" => Err(disabled::verify_refusal("mfa_phone_verify_not_enabled", "Phone").into()),
        _ => Err(disabled::verify_refusal("mfa_webauthn_verify_not_enabled", "WebAuthn").into()),
    }
}

pub async fn challenge(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (id, kind) = usable_factor(&state, &signed_in, &id).await?;
    ratelimit::take(&state, Bucket::MfaChallengeVerify, ip).await?;
    if let Kind::WebAuthn = kind {
        return webauthn_factor::challenge(&state, &signed_in, id, ip).await;
    }
    let config = &state.config;
    let Some((challenge_id, expires_at)) =
        factors::challenge(&state.db, config, signed_in.user_id, id, ip).await?
    else {
        return Err(AuthError::mfa_factor_not_found().into());
    };
    Ok(Json(json!({ "id": challenge_id, "type": "totp", "expires_at": expires_at })))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct VerifyBody {
    challenge_id: String,
    code: String,
    webauthn: Option<webauthn_factor::Params>,
}

pub async fn verify(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    Body(body): Body<VerifyBody>,
) -> Result<Json<Value>, ApiError> {
    let (id, kind) = usable_factor(&state, &signed_in, &id).await?;
    ratelimit::take(&state, Bucket::MfaChallengeVerify, ip).await?;
    let challenge_id = Uuid::parse_str(body.challenge_id.trim())
        .map_err(|_| AuthError::validation_failed("challenge_id must be an UUID"))?;
    if let Kind::WebAuthn = kind {
        return webauthn_factor::verify(&state, &signed_in, ip, id, challenge_id, body.webauthn).await;
    }
    if body.code.trim().is_empty() {
        return Err(AuthError::validation_failed("Code needs to be non-empty").into());
    }
    // A token without a session cannot be raised to aal2 (GoTrue reads the
    // session from the claim the same way).
    let session_id =
        signed_in.session_id.ok_or_else(|| AuthError::bad_jwt("invalid claim: session_id claim"))?;
    let verification = Verification {
        user_id: signed_in.user_id,
        session_id,
        factor_id: id,
        challenge_id,
        code: &body.code,
        ip,
    };
    let (started, refresh_token) =
        factors::verify(&state.db, &state.config, &sealer(&state)?, &verification).await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(&state, grant).await?))
}

pub async fn unenroll(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = factor_id(&id)?;
    permanent_user(&state, &signed_in).await?;
    let (aal, _) = factors::assurance(&state.db, signed_in.user_id, signed_in.session_id).await?;
    if !factors::unenroll(&state.db, signed_in.user_id, id, &aal).await? {
        return Err(AuthError::mfa_factor_not_found().into());
    }
    Ok(Json(json!({ "id": id })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_issuer_is_the_site_urls_host() {
        let cases = [
            ("http://localhost:5173", "localhost:5173"),
            ("https://shop.example/app?x=1", "shop.example"),
            ("shop.example", "shop.example"),
        ];
        for (site, issuer) in cases {
            assert_eq!(default_issuer(site), issuer, "{site}");
        }
    }
}
