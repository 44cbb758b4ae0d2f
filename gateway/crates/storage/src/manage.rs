//! Listing, removing, moving and copying objects, each as the caller under
//! row-level security (supabase/storage `src/http/routes/object/listObjects.ts`,
//! `deleteObjects.ts`, `deleteObject.ts`, `moveObject.ts`, `copyObject.ts`).
//!
//! Rows change in the caller's transaction; bytes are copied to a fresh
//! version before that transaction commits and the old bytes are removed only
//! after it did, so a failure at any point leaves every row pointing at
//! complete bytes.

use axum::{
    Json,
    body::Bytes,
    extract::{Path, State},
    http::HeaderMap,
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::error::StorageError;
use super::hold;
use super::keys;
use super::objects::{self, ListQuery, Mode, NewObject};
use super::path::ObjectPath;
use super::signed::json_body;
use super::upload::upsert_header;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SortBy {
    column: Option<String>,
    order: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListRequest {
    prefix: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
    sort_by: Option<SortBy>,
    search: Option<String>,
}

/// `POST /object/list/{bucket}`: one folder level, like `storage.search()`.
/// `%` and `_` in the prefix and the search are matched literally.
pub async fn list(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: ListRequest = json_body(&body)?;
    keys::parse_bucket(&bucket)?;
    let mut prefix = request.prefix.unwrap_or_default();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    let sort = request.sort_by.unwrap_or(SortBy { column: None, order: None });
    let sort_column = match sort.column.as_deref().unwrap_or("name") {
        "name" => "name",
        "updated_at" => "updated_at",
        "created_at" => "created_at",
        "last_accessed_at" => "last_accessed_at",
        other => return Err(StorageError::invalid_request(format!("cannot sort by {other}")).into()),
    };
    let descending = match sort.order.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("asc") => false,
        Some("desc") => true,
        Some(other) => {
            return Err(StorageError::invalid_request(format!("invalid sort order {other}")).into());
        }
    };
    let query = ListQuery {
        bucket: &bucket,
        prefix: &prefix,
        search: request.search.as_deref().unwrap_or(""),
        limit: request.limit.unwrap_or(100).clamp(0, 1000),
        offset: request.offset.unwrap_or(0).max(0),
        sort_column,
        descending,
    };
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let entries = objects::list(&mut session, &query).await?;
    session.commit().await?;
    Ok(Json(Value::Array(entries)))
}

#[derive(Deserialize)]
struct RemoveRequest {
    prefixes: Vec<String>,
}

/// `DELETE /object/{bucket}` `{"prefixes": [...]}`: the objects the caller may
/// delete are deleted and returned; others are left alone.
pub async fn remove(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: RemoveRequest = json_body(&body)?;
    keys::parse_bucket(&bucket)?;
    if request.prefixes.is_empty() || request.prefixes.len() > 1000 {
        return Err(StorageError::invalid_request("prefixes must hold 1 to 1000 keys").into());
    }
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let deleted = objects::delete(&mut session, &bucket, &request.prefixes).await?;
    session.commit().await?;
    let mut rows = Vec::with_capacity(deleted.len());
    let mut paths = Vec::with_capacity(deleted.len());
    for (row, name, version) in deleted {
        if let Ok(path) = keys::version_path(&bucket, &name, &version) {
            paths.push(path);
        }
        rows.push(row);
    }
    hold::remove_replaced(&state.db, &state.store, paths).await;
    Ok(Json(Value::Array(rows)))
}

/// `DELETE /object/{bucket}/{key}`.
pub async fn remove_one(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let deleted = objects::delete(&mut session, &bucket, std::slice::from_ref(&key)).await?;
    session.commit().await?;
    let Some((_, name, version)) = deleted.into_iter().next() else {
        return Err(StorageError::no_such_key().into());
    };
    if let Ok(path) = keys::version_path(&bucket, &name, &version) {
        hold::remove_replaced(&state.db, &state.store, vec![path]).await;
    }
    Ok(Json(json!({ "message": "Successfully deleted" })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MoveRequest {
    bucket_id: String,
    source_key: String,
    destination_key: String,
    destination_bucket: Option<String>,
    copy_metadata: Option<bool>,
}

impl MoveRequest {
    fn checked(&self) -> Result<(&str, &str, &str, &str), ApiError> {
        let to_bucket = self.destination_bucket.as_deref().unwrap_or(&self.bucket_id);
        Ok((
            keys::parse_bucket(&self.bucket_id)?,
            keys::parse_key(&self.source_key)?,
            keys::parse_bucket(to_bucket)?,
            keys::parse_key(&self.destination_key)?,
        ))
    }
}

/// A missing destination bucket shows up as the foreign key failing.
fn missing_bucket(error: ApiError) -> ApiError {
    match &error {
        ApiError::Database(db) if db.code == "23503" => StorageError::no_such_bucket().into(),
        _ => error,
    }
}

/// `POST /object/move` `{"bucketId", "sourceKey", "destinationKey", "destinationBucket"?}`:
/// needs the update policy to pass on the renamed row.
pub async fn move_object(
    State(state): State<StorageState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: MoveRequest = json_body(&body)?;
    let (from_bucket, from_key, to_bucket, to_key) = request.checked()?;
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let old = objects::lock_version(&mut session, from_bucket, from_key)
        .await?
        .ok_or_else(StorageError::no_such_key)?;
    let version = Uuid::new_v4().to_string();
    let renamed = objects::rename(&mut session, (from_bucket, from_key), (to_bucket, to_key), &version)
        .await
        .map_err(missing_bucket)?;
    if renamed.is_none() {
        return Err(StorageError::no_such_key().into());
    }
    let old_path = keys::version_path(from_bucket, from_key, &old)?;
    let new_path = keys::version_path(to_bucket, to_key, &version)?;
    state.store.copy(&old_path, &new_path).await?;
    if let Err(e) = session.commit().await {
        state.store.remove(&new_path).await;
        return Err(e);
    }
    hold::remove_replaced(&state.db, &state.store, vec![old_path]).await;
    Ok(Json(json!({ "message": "Successfully moved" })))
}

/// `POST /object/copy`: needs select on the source and insert (or, with
/// `x-upsert: true`, upsert) on the destination. Replies `{"Id", "Key"}`.
pub async fn copy(
    State(state): State<StorageState>,
    caller: Caller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let request: MoveRequest = json_body(&body)?;
    let (from_bucket, from_key, to_bucket, to_key) = request.checked()?;
    let mode = if upsert_header(&headers) { Mode::Upsert } else { Mode::Create };
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let source =
        objects::find(&mut session, from_bucket, from_key).await?.ok_or_else(StorageError::no_such_key)?;
    let version = Uuid::new_v4().to_string();
    let owner = caller.claims.sub().map(str::to_owned);
    let user_metadata =
        if request.copy_metadata.unwrap_or(true) { source.info.get("metadata").cloned() } else { None };
    let row = NewObject {
        id: Uuid::new_v4(),
        bucket: to_bucket,
        name: to_key,
        owner: owner.as_deref(),
        version: &version,
        metadata: source.metadata.clone(),
        user_metadata: user_metadata.filter(|m| !m.is_null()),
    };
    let (id, previous) = objects::write_row(&mut session, &row, mode).await.map_err(missing_bucket)?;
    let from = keys::version_path(from_bucket, from_key, &source.version)?;
    let to = keys::version_path(to_bucket, to_key, &version)?;
    state.store.copy(&from, &to).await?;
    if let Err(e) = session.commit().await {
        state.store.remove(&to).await;
        return Err(e);
    }
    if let Some(previous) = previous.filter(|p| !p.is_empty())
        && let Ok(old) = keys::version_path(to_bucket, to_key, &previous)
    {
        hold::remove_replaced(&state.db, &state.store, vec![old]).await;
    }
    Ok(Json(json!({ "Id": id, "Key": format!("{to_bucket}/{to_key}") })))
}
