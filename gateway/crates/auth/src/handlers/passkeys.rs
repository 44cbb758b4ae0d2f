//! Passkeys (supabase/auth `internal/api/passkey_*.go`; supabase-js
//! `auth.registerPasskey`, `auth.signInWithPasskey`, `auth.passkey.*`):
//!
//! | route | who | answer |
//! |---|---|---|
//! | `POST /passkeys/registration/options` | signed in, not anonymous | `{challenge_id, options, expires_at}` |
//! | `POST /passkeys/registration/verify` | the same user | `{id, friendly_name, created_at}` |
//! | `POST /passkeys/authentication/options` | anyone with the key | `{challenge_id, options, expires_at}` |
//! | `POST /passkeys/authentication/verify` | anyone with the key | an `aal1` session, amr `passkey` |
//! | `GET /passkeys`, `PATCH`/`DELETE /passkeys/{id}` | signed in | the user's passkeys |
//!
//! Every route answers 404 `passkey_disabled` while `AUTH_PASSKEY_ENABLED`
//! is off. Sign-in is discoverable: the options name no user and the
//! authenticator picks the passkey, whose id finds its owner.

use axum::{
    Json,
    extract::{Path, State},
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;
use webauthn_rs::prelude::{
    DiscoverableAuthentication, PasskeyRegistration, PublicKeyCredential, RegisterPublicKeyCredential,
};

use super::user::current_user;
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, SignedIn, UserAgent};
use crate::mfa_store;
use crate::ratelimit::{self, Bucket};
use crate::tokens;
use crate::webauthn::{self, Columns};
use crate::webauthn_store::{self as store, Ceremony};
use gateway_core::error::ApiError;

fn enabled(state: &AuthState) -> Result<(), AuthError> {
    if state.config.passkey_enabled { Ok(()) } else { Err(AuthError::passkey_disabled()) }
}

/// The signed-in, permanent user allowed to manage passkeys: one with a
/// verified MFA factor must be at `aal2` (GoTrue's
/// `requirePasskeyManagementAAL`).
async fn manager(state: &AuthState, signed_in: &SignedIn) -> Result<Value, ApiError> {
    let user = current_user(state, signed_in).await?;
    if user.get("is_anonymous").and_then(Value::as_bool) == Some(true) {
        return Err(AuthError::anonymous_not_allowed().into());
    }
    let (aal, verified) = mfa_store::assurance(&state.db, signed_in.user_id, signed_in.session_id).await?;
    if verified > 0 && aal != "aal2" {
        let message = "AAL2 session is required to manage passkeys when MFA is enabled";
        return Err(AuthError::insufficient_aal(StatusCode::FORBIDDEN, message).into());
    }
    Ok(user)
}

/// The names an authenticator shows for the user: e-mail or phone, and
/// `user_metadata.name` when set (GoTrue's `WebAuthnName`,
/// `WebAuthnDisplayName`).
pub fn user_names(user: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    let name = text(&user["email"])
        .or_else(|| text(&user["phone"]))
        .or_else(|| text(&user["id"]))
        .unwrap_or_default();
    let display = text(&user["user_metadata"]["name"]).unwrap_or_else(|| name.clone());
    (name, display)
}

fn to_state<T: serde::Serialize>(state: &T) -> Result<Value, ApiError> {
    serde_json::to_value(state).map_err(ApiError::internal)
}

fn from_state<T: serde::de::DeserializeOwned>(state: Value) -> Result<T, ApiError> {
    serde_json::from_value(state).map_err(ApiError::internal)
}

pub async fn registration_options(
    State(state): State<AuthState>,
    signed_in: SignedIn,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let user = manager(&state, &signed_in).await?;
    let existing = store::credential_ids(&state.db, signed_in.user_id).await?;
    if existing.len() >= state.config.passkey_max_passkeys_per_user as usize {
        return Err(AuthError::too_many_passkeys().into());
    }
    let party = webauthn::relying_party(&state.config, crate::site_url(&state))?;
    let (name, display) = user_names(&user);
    let exclude = Some(existing);
    let (options, ceremony) = party
        .start_passkey_registration(signed_in.user_id, &name, &display, exclude)
        .map_err(ApiError::internal)?;
    let (id, expires_at) = store::begin(
        &state.db,
        &state.config,
        Ceremony::Registration,
        Some(signed_in.user_id),
        &to_state(&ceremony)?,
    )
    .await?;
    let options = webauthn::discoverable(&options)?;
    Ok(Json(json!({ "challenge_id": id, "options": options["publicKey"], "expires_at": expires_at })))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct VerifyBody {
    challenge_id: String,
    credential: Option<Value>,
}

/// The challenge id and credential of a verification, checked as GoTrue
/// checks them.
fn verification(body: VerifyBody) -> Result<(Uuid, Value), AuthError> {
    if body.challenge_id.is_empty() {
        return Err(AuthError::validation_failed("challenge_id is required"));
    }
    let Some(credential) = body.credential.filter(|c| !c.is_null()) else {
        return Err(AuthError::validation_failed("credential is required"));
    };
    let id = Uuid::parse_str(&body.challenge_id)
        .map_err(|_| AuthError::validation_failed("challenge_id must be a valid UUID"))?;
    Ok((id, credential))
}

pub async fn registration_verify(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Body(body): Body<VerifyBody>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    manager(&state, &signed_in).await?;
    let (challenge_id, credential) = verification(body)?;
    let ceremony =
        store::consume(&state.db, challenge_id, Ceremony::Registration, Some(signed_in.user_id)).await?;
    let ceremony: PasskeyRegistration = from_state(ceremony)?;
    let credential: RegisterPublicKeyCredential =
        serde_json::from_value(credential).map_err(|_| AuthError::webauthn_invalid_response())?;
    let party = webauthn::relying_party(&state.config, crate::site_url(&state))?;
    let passkey = party.finish_passkey_registration(&credential, &ceremony).map_err(|error| {
        tracing::info!(%error, "passkey registration refused");
        AuthError::webauthn_verification_failed()
    })?;
    let columns = Columns::of(&passkey)?;
    let passkey = store::register(&state.db, &state.config, signed_in.user_id, &columns).await?;
    Ok(Json(passkey))
}

pub async fn authentication_options(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    ratelimit::take(&state, Bucket::SignInSignUp, ip).await?;
    let party = webauthn::relying_party(&state.config, crate::site_url(&state))?;
    let (options, ceremony) = party.start_discoverable_authentication().map_err(ApiError::internal)?;
    let (id, expires_at) =
        store::begin(&state.db, &state.config, Ceremony::Authentication, None, &to_state(&ceremony)?).await?;
    let options = to_state(&options)?;
    Ok(Json(json!({ "challenge_id": id, "options": options["publicKey"], "expires_at": expires_at })))
}

pub async fn authentication_verify(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    Body(body): Body<VerifyBody>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    let (challenge_id, credential) = verification(body)?;
    let ceremony = store::consume(&state.db, challenge_id, Ceremony::Authentication, None).await?;
    let ceremony: DiscoverableAuthentication = from_state(ceremony)?;
    let credential: PublicKeyCredential =
        serde_json::from_value(credential).map_err(|_| AuthError::webauthn_invalid_response())?;
    let party = webauthn::relying_party(&state.config, crate::site_url(&state))?;
    let refused = |why: &str| {
        tracing::info!(why, "passkey sign-in refused");
        AuthError::webauthn_verification_failed()
    };
    // The user handle the authenticator returns must be the passkey's owner:
    // a passkey cannot sign in as anyone else.
    let (handle, credential_id) =
        party.identify_discoverable_authentication(&credential).map_err(|_| refused("no user handle"))?;
    let Some((owner, stored)) = store::find_by_credential_id(&state.db, credential_id).await? else {
        return Err(refused("unknown credential").into());
    };
    if owner != handle {
        return Err(refused("user handle of another user").into());
    }
    let mut passkey = webauthn::passkey(stored)?;
    let result = party
        .finish_discoverable_authentication_v2(&credential, ceremony, &passkey)
        .map_err(|error| refused(&error.to_string()))?;
    passkey.update_credential(&result);
    let columns = Columns::of(&passkey)?;
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let started = store::sign_in(&state.db, owner, &columns, &digest, user_agent.as_deref(), ip).await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(&state, grant).await?))
}

pub async fn list(State(state): State<AuthState>, signed_in: SignedIn) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    current_user(&state, &signed_in).await?;
    Ok(Json(store::list(&state.db, signed_in.user_id).await?))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct UpdateBody {
    friendly_name: String,
}

fn passkey_id(id: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(id).map_err(|_| AuthError::passkey_not_found())
}

pub async fn update(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Path(id): Path<String>,
    Body(body): Body<UpdateBody>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    current_user(&state, &signed_in).await?;
    let id = passkey_id(&id)?;
    let name = body.friendly_name.trim();
    if name.is_empty() {
        return Err(AuthError::validation_failed("friendly_name is required").into());
    }
    if name.chars().count() > 120 {
        return Err(AuthError::validation_failed("friendly_name must be 120 characters or less").into());
    }
    let passkey = store::rename(&state.db, signed_in.user_id, id, name).await?;
    Ok(Json(passkey.ok_or_else(AuthError::passkey_not_found)?))
}

pub async fn delete(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    enabled(&state)?;
    manager(&state, &signed_in).await?;
    let id = passkey_id(&id)?;
    if !store::delete(&state.db, signed_in.user_id, id).await? {
        return Err(AuthError::passkey_not_found().into());
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authenticators_show_the_address_and_the_name_when_set() {
        let cases = [
            (json!({"id": "u", "email": "a@b.co", "user_metadata": {}}), ("a@b.co", "a@b.co")),
            (json!({"id": "u", "email": "", "phone": "155501"}), ("155501", "155501")),
            (json!({"id": "u", "email": "a@b.co", "user_metadata": {"name": "Ana"}}), ("a@b.co", "Ana")),
            (json!({"id": "u", "email": ""}), ("u", "u")),
        ];
        for (user, (name, display)) in cases {
            assert_eq!(user_names(&user), (name.to_owned(), display.to_owned()), "{user}");
        }
    }
}
