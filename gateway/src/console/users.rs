//! The console's users (Studio's Authentication page): list and search,
//! create, invite, ban, delete, send a recovery link, and a user's
//! identities, sessions and factors, each session revocable.
//!
//! Studio does this through GoTrue's admin API with the service key; the
//! console calls the same functions the gateway's `/auth/v1/admin/...`
//! routes run (`gateway_auth`), so a user made or banned here is made or
//! banned exactly as there, and the database sees the auth service's own
//! role, not the schema owner.

use axum::{
    Json,
    extract::{Path, Query, State},
    http::StatusCode,
};
use gateway_auth::{
    AuthState,
    handlers::{
        admin::{CreateUser, ban_until},
        mail::{invite_user, send_recovery},
    },
    store::{self, Changes, Scope},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{ConsoleError, access::Operator};

/// Users a page holds unless asked otherwise, and at most.
const PAGE: i64 = 50;
const MOST: i64 = 200;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ListQuery {
    search: Option<String>,
    page: Option<i64>,
    per_page: Option<i64>,
}

/// `GET /_/api/users?search=&page=&perPage=`: `{users, total, page, perPage}`,
/// newest first; `search` matches the e-mail or the name as GoTrue's admin
/// list `filter` does.
pub async fn list(
    State(auth): State<AuthState>,
    _: Operator,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, ConsoleError> {
    let page = query.page.unwrap_or(1).max(1);
    let per_page = query.per_page.unwrap_or(PAGE).clamp(1, MOST);
    let search = query.search.as_deref().map(str::trim).map(str::to_lowercase);
    let (users, total) = store::list_users(&auth.db, search.as_deref(), page, per_page).await?;
    Ok(Json(json!({ "users": users, "total": total, "page": page, "perPage": per_page })))
}

/// `GET /_/api/users/{id}`: `{user, sessions}`; the user carries its
/// identities and factors as GoTrue's user object does.
pub async fn get(
    State(auth): State<AuthState>,
    _: Operator,
    Path(id): Path<String>,
) -> Result<Json<Value>, ConsoleError> {
    let id = user_id(&id)?;
    let user = store::find_user(&auth.db, id).await?.ok_or(ConsoleError::NotFound)?;
    let sessions = store::user_sessions(&auth.db, id).await?;
    Ok(Json(json!({ "user": user, "sessions": sessions })))
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct NewUser {
    email: String,
    password: Option<String>,
    /// Confirmed at once, as `email_confirm` of the admin API.
    confirm: bool,
}

/// `POST /_/api/users` with `{email, password?, confirm?}`: the user made
/// as `POST /auth/v1/admin/users` makes it.
pub async fn create(
    State(auth): State<AuthState>,
    operator: Operator,
    Json(body): Json<NewUser>,
) -> Result<(StatusCode, Json<Value>), ConsoleError> {
    let request = CreateUser {
        email: Some(body.email),
        password: body.password,
        email_confirm: body.confirm,
        ..CreateUser::default()
    };
    let user = gateway_auth::handlers::admin::create_user(&auth, request).await?;
    tracing::info!(email = operator.email, user = %user["id"], "operator created a user");
    Ok((StatusCode::CREATED, Json(user)))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Invite {
    email: String,
}

/// `POST /_/api/users/invite` with `{email}`: the invitation mail, as
/// `POST /auth/v1/invite` sends it (to the site URL).
pub async fn invite(
    State(auth): State<AuthState>,
    operator: Operator,
    Json(body): Json<Invite>,
) -> Result<(StatusCode, Json<Value>), ConsoleError> {
    let site = gateway_auth::site_url(&auth).to_owned();
    let user = invite_user(&auth, &body.email, json!({}), &site).await?;
    tracing::info!(email = operator.email, user = %user["id"], "operator invited a user");
    Ok((StatusCode::CREATED, Json(user)))
}

/// `POST /_/api/users/{id}/recovery`: a recovery mail to the user's address,
/// sent before the answer, so that a failure to send shows.
pub async fn recovery(
    State(auth): State<AuthState>,
    operator: Operator,
    Path(id): Path<String>,
) -> Result<StatusCode, ConsoleError> {
    let id = user_id(&id)?;
    let user = store::find_user(&auth.db, id).await?.ok_or(ConsoleError::NotFound)?;
    let Some(email) = user["email"].as_str().filter(|e| !e.is_empty()) else {
        return Err(ConsoleError::BadRequest("This user has no e-mail address".to_owned()));
    };
    if !send_recovery(&auth, email).await? {
        return Err(ConsoleError::NotFound);
    }
    tracing::info!(email = operator.email, user = %id, "operator sent a recovery link");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
pub struct Ban {
    /// A Go duration (`24h`, `876000h`), or `none` to lift the ban, as the
    /// admin API's `ban_duration`.
    duration: String,
}

/// `POST /_/api/users/{id}/ban` with `{duration}`: the user as banned (or
/// no longer). A banned user's refresh fails with `user_banned`, as on
/// GoTrue; tokens already issued last until they expire.
pub async fn ban(
    State(auth): State<AuthState>,
    operator: Operator,
    Path(id): Path<String>,
    Json(body): Json<Ban>,
) -> Result<Json<Value>, ConsoleError> {
    let id = user_id(&id)?;
    let until = ban_until(body.duration.trim()).map_err(gateway_core::error::ApiError::from)?;
    let changes = Changes { banned_until: Some(until), ..Changes::default() };
    let user = match store::update_user(&auth.db, id, &changes).await? {
        Ok(Some(user)) => user,
        Ok(None) => return Err(ConsoleError::NotFound),
        Err(_) => return Err(ConsoleError::internal("a ban changed an e-mail or phone")),
    };
    tracing::info!(email = operator.email, user = %id, duration = body.duration, "operator banned a user");
    Ok(Json(user))
}

/// `DELETE /_/api/users/{id}`: the user with its identities, sessions and
/// tokens.
pub async fn delete(
    State(auth): State<AuthState>,
    operator: Operator,
    Path(id): Path<String>,
) -> Result<StatusCode, ConsoleError> {
    let id = user_id(&id)?;
    if !store::delete_user(&auth.db, id).await? {
        return Err(ConsoleError::NotFound);
    }
    tracing::info!(email = operator.email, user = %id, "operator deleted a user");
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /_/api/users/{id}/sessions/{session}`: one session ended, as the
/// user's own `signOut({scope: 'local'})` ends it: its refresh tokens stop
/// working at once.
pub async fn revoke_session(
    State(auth): State<AuthState>,
    operator: Operator,
    Path((id, session)): Path<(String, String)>,
) -> Result<StatusCode, ConsoleError> {
    let id = user_id(&id)?;
    let session = user_id(&session)?;
    store::end_sessions(&auth.db, id, Some(session), Scope::Local).await?;
    tracing::info!(email = operator.email, user = %id, session = %session, "operator ended a session");
    Ok(StatusCode::NO_CONTENT)
}

fn user_id(text: &str) -> Result<Uuid, ConsoleError> {
    Uuid::parse_str(text).map_err(|_| ConsoleError::NotFound)
}
