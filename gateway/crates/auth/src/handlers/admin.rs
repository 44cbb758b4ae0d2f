//! `/admin/users` for the service_role key (supabase/auth
//! `internal/api/admin.go`), as `supabase.auth.admin.*` calls it: create
//! confirmed users, set passwords and metadata, ban, list, delete.

use std::time::Duration;

use axum::{
    Json,
    extract::{Path, RawQuery, State},
    http::{HeaderName, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{login_of, metadata, query_param, valid_email, valid_phone};
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::{Admin, Body};
use crate::store::{self, Changes, Conflict, Login, NewUser};
use crate::{mfa_store, password, webauthn_store};
use gateway_core::error::ApiError;

/// `GET /admin/users?page=1&per_page=50&filter=`: `{"users":[…],"aud":"authenticated"}`
/// with `X-Total-Count` and a `Link` header, which auth-js reads for paging;
/// `filter` keeps the users whose e-mail or name holds it (GoTrue's
/// `adminUsers`).
pub async fn list(
    State(state): State<AuthState>,
    _: Admin,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let page = count_param(query.as_deref(), "page")?.unwrap_or(1).max(1);
    let per_page = match count_param(query.as_deref(), "per_page")? {
        // GoTrue divides by it (a 500 there); refused here.
        Some(0) => return Err(AuthError::bad_pagination("per_page must be at least 1").into()),
        Some(n) => n.min(1000),
        None => 50,
    };
    let filter = query_param(query.as_deref(), "filter");
    let (users, total) = store::list_users(&state.db, filter.as_deref(), page, per_page).await?;
    let last = ((total + per_page - 1) / per_page).max(1);
    let mut links = Vec::new();
    if page < last {
        links.push(format!("</admin/users?page={}&per_page={per_page}>; rel=\"next\"", page + 1));
    }
    links.push(format!("</admin/users?page={last}&per_page={per_page}>; rel=\"last\""));
    let mut response = Json(json!({ "users": users, "aud": "authenticated" })).into_response();
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("x-total-count"), HeaderValue::from(total));
    if let Ok(link) = HeaderValue::from_str(&links.join(", ")) {
        headers.insert(HeaderName::from_static("link"), link);
    }
    Ok(response)
}

/// A count of the query string as GoTrue's `paginate` reads it, with Go's
/// `strconv.ParseUint` (digits only; no sign) and its error's words.
fn count_param(query: Option<&str>, name: &str) -> Result<Option<i64>, AuthError> {
    let Some(text) = query_param(query, name).filter(|v| !v.is_empty()) else { return Ok(None) };
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AuthError::bad_pagination(&format!(
            "strconv.ParseUint: parsing {text:?}: invalid syntax"
        )));
    }
    match text.parse::<u64>() {
        Ok(n) => Ok(Some(i64::try_from(n).unwrap_or(i64::MAX))),
        Err(_) => Err(AuthError::bad_pagination(&format!(
            "strconv.ParseUint: parsing {text:?}: value out of range"
        ))),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct CreateUser {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    pub email_confirm: bool,
    pub phone_confirm: bool,
    pub user_metadata: Option<Value>,
    pub app_metadata: Option<Value>,
    pub ban_duration: Option<String>,
}

pub async fn create(
    State(state): State<AuthState>,
    _: Admin,
    Body(body): Body<CreateUser>,
) -> Result<Json<Value>, ApiError> {
    create_user(&state, body).await.map(Json)
}

/// What `POST /admin/users` does, for the operator console too.
pub async fn create_user(state: &AuthState, body: CreateUser) -> Result<Value, ApiError> {
    let login = login_of(body.email.as_deref(), body.phone.as_deref())?
        .ok_or_else(|| AuthError::validation_failed("Unable to validate email address: invalid format"))?;
    let password_hash = match body.password.as_deref().filter(|p| !p.is_empty()) {
        Some(secret) => {
            password::check_new(secret, state.config.password_min_length)?;
            Some(password::hash(secret).await?)
        }
        None => None,
    };
    let confirmed = match login {
        Login::Email(_) => body.email_confirm,
        Login::Phone(_) => body.phone_confirm,
    };
    let provider = login.provider();
    let mut app_metadata = json!({ "provider": provider, "providers": [provider] });
    merge(&mut app_metadata, metadata(body.app_metadata, "app_metadata")?);
    let banned_until = match body.ban_duration.as_deref() {
        Some(duration) => ban_until(duration)?,
        None => None,
    };
    // The user's metadata is what was given (GoTrue's admin create puts the
    // e-mail, `sub` and the verified flags in the identity only), plus
    // `email_verified` when the e-mail is confirmed, which GoTrue's
    // `User.Confirm` adds (a phone's confirmation adds nothing).
    let mut user_metadata = metadata(body.user_metadata, "user_metadata")?.unwrap_or_else(|| json!({}));
    if confirmed && matches!(login, Login::Email(_)) {
        merge(&mut user_metadata, Some(json!({ "email_verified": true })));
    }
    let user = NewUser {
        id: Uuid::new_v4(),
        login,
        password_hash,
        confirmed,
        confirmation_sent: false,
        user_metadata,
        app_metadata,
        banned_until,
    };
    match store::create_user(&state.db, &user, None).await? {
        Ok((created, _)) => Ok(created),
        Err(Conflict::Email) => Err(AuthError::email_exists().into()),
        Err(Conflict::Phone) => Err(AuthError::phone_exists().into()),
    }
}

pub async fn get(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = user_id(&id)?;
    store::find_user(&state.db, id).await?.map(Json).ok_or_else(|| AuthError::admin_user_not_found().into())
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct UpdateUser {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    email_confirm: Option<bool>,
    phone_confirm: Option<bool>,
    user_metadata: Option<Value>,
    app_metadata: Option<Value>,
    /// A Go duration (`24h`, `90m`) from now, or `none` to lift a ban.
    ban_duration: Option<String>,
}

pub async fn update(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
    Body(body): Body<UpdateUser>,
) -> Result<Json<Value>, ApiError> {
    let id = user_id(&id)?;
    let nonempty =
        |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
    let password_hash = match nonempty(&body.password) {
        Some(secret) => {
            password::check_new(&secret, state.config.password_min_length)?;
            Some(password::hash(&secret).await?)
        }
        None => None,
    };
    let changes = Changes {
        email: nonempty(&body.email).map(|e| valid_email(&e)).transpose()?,
        email_confirmed_now: true,
        phone: nonempty(&body.phone).map(|p| valid_phone(&p)).transpose()?,
        password_hash,
        confirm_email: body.email_confirm == Some(true),
        confirm_phone: body.phone_confirm == Some(true),
        user_metadata: metadata(body.user_metadata, "user_metadata")?,
        app_metadata: metadata(body.app_metadata, "app_metadata")?,
        banned_until: body.ban_duration.as_deref().map(ban_until).transpose()?,
    };
    match store::update_user(&state.db, id, &changes).await? {
        Ok(Some(user)) => Ok(Json(user)),
        Ok(None) => Err(AuthError::admin_user_not_found().into()),
        Err(Conflict::Email) => Err(AuthError::email_exists().into()),
        Err(Conflict::Phone) => Err(AuthError::phone_exists().into()),
    }
}

/// Deletes the user for good, with its identities, sessions and tokens.
pub async fn delete(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = user_id(&id)?;
    if !store::delete_user(&state.db, id).await? {
        return Err(AuthError::admin_user_not_found().into());
    }
    Ok(Json(json!({})))
}

/// `GET /admin/users/{id}/factors` (`auth.admin.mfa.listFactors`): the
/// user's factors, as GoTrue's `adminUserGetFactors`.
pub async fn factors(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = user_id(&id)?;
    mfa_store::list(&state.db, id).await?.map(Json).ok_or_else(|| AuthError::admin_user_not_found().into())
}

/// `DELETE /admin/users/{id}/factors/{factor_id}` (`auth.admin.mfa.deleteFactor`):
/// the factor goes, verified or not, and the sessions it raised drop to
/// `aal1`; the answer is the factor (GoTrue's `adminUserDeleteFactor`).
pub async fn delete_factor(
    State(state): State<AuthState>,
    _: Admin,
    Path((id, factor_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let id = user_id(&id)?;
    let factor_id = Uuid::parse_str(&factor_id).map_err(|_| AuthError::mfa_factor_not_found())?;
    if store::find_user(&state.db, id).await?.is_none() {
        return Err(AuthError::admin_user_not_found().into());
    }
    mfa_store::delete_as_admin(&state.db, id, factor_id)
        .await?
        .map(Json)
        .ok_or_else(|| AuthError::mfa_factor_not_found().into())
}

/// `GET /admin/users/{id}/passkeys` (`auth.admin.passkey.listPasskeys`):
/// the user's passkeys, as GoTrue's `AdminPasskeyList`. Not behind
/// `AUTH_PASSKEY_ENABLED`: GoTrue routes it under `/admin` only, so an
/// operator can still clear passkeys after turning sign-ins off.
pub async fn passkeys(
    State(state): State<AuthState>,
    _: Admin,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = existing_user(&state, &id).await?;
    Ok(Json(webauthn_store::list(&state.db, id).await?))
}

/// `DELETE /admin/users/{id}/passkeys/{passkey_id}`
/// (`auth.admin.passkey.deletePasskey`): 204, or 404 "Passkey not found"
/// for another user's or an unknown passkey (GoTrue's `AdminPasskeyDelete`).
pub async fn delete_passkey(
    State(state): State<AuthState>,
    _: Admin,
    Path((id, passkey_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let id = existing_user(&state, &id).await?;
    let passkey_id = Uuid::parse_str(&passkey_id).map_err(|_| AuthError::passkey_not_found())?;
    if !webauthn_store::delete(&state.db, id, passkey_id).await? {
        return Err(AuthError::passkey_not_found().into());
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The id of a user that exists: GoTrue's `loadUser` answers 404
/// `user_not_found` before any sub-route runs.
async fn existing_user(state: &AuthState, id: &str) -> Result<Uuid, ApiError> {
    let id = user_id(id)?;
    if store::find_user(&state.db, id).await?.is_none() {
        return Err(AuthError::admin_user_not_found().into());
    }
    Ok(id)
}

fn user_id(id: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(id).map_err(|_| AuthError::admin_user_not_found())
}

fn merge(target: &mut Value, extra: Option<Value>) {
    if let (Value::Object(target), Some(Value::Object(extra))) = (target, extra) {
        target.extend(extra);
    }
}

/// `none` lifts a ban; a Go duration bans until now plus that long.
pub fn ban_until(duration: &str) -> Result<Option<DateTime<Utc>>, AuthError> {
    if duration == "none" {
        return Ok(None);
    }
    let invalid = || AuthError::validation_failed(format!("invalid format for ban duration: {duration:?}"));
    let length = go_duration(duration).ok_or_else(invalid)?;
    let length = chrono::Duration::from_std(length).map_err(|_| invalid())?;
    Utc::now().checked_add_signed(length).map(Some).ok_or_else(invalid)
}

/// Go's `time.ParseDuration` for whole numbers: `1h30m`, `90s`, `500ms`.
fn go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let (number, tail) = rest.split_at(digits);
        let n: u64 = number.parse().ok()?;
        let unit_len = tail.find(|c: char| c.is_ascii_digit()).unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let part = match unit {
            "h" => Duration::from_secs(n.checked_mul(3600)?),
            "m" => Duration::from_secs(n.checked_mul(60)?),
            "s" => Duration::from_secs(n),
            "ms" => Duration::from_millis(n),
            _ => return None,
        };
        total = total.checked_add(part)?;
        rest = tail;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ban_durations_read_like_go() {
        let cases = [
            ("24h", Some(86_400)),
            ("1h30m", Some(5_400)),
            ("90s", Some(90)),
            ("876000h", Some(3_153_600_000)),
            ("", None),
            ("h", None),
            ("1d", None),
            ("-1h", None),
        ];
        for (text, secs) in cases {
            assert_eq!(go_duration(text).map(|d| d.as_secs()), secs, "{text:?}");
        }
    }
}
