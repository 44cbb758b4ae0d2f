//! Buckets: `GET/POST /bucket`, `GET/PUT/DELETE /bucket/{id}`,
//! `POST /bucket/{id}/empty` (supabase/storage `src/http/routes/bucket/*`), as
//! the caller: `storage.buckets` has row-level security with no policy by
//! default, so only `service_role` manages buckets unless policies say more.

use axum::{
    Json,
    body::Bytes,
    extract::{Path, State},
};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::error::StorageError;
use super::hold;
use super::keys;
use super::objects;
use super::signed::json_body;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::config::parse_size;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

const BUCKET_JSON: &str = concat!(
    "jsonb_build_object('id', id, 'name', name, 'owner', coalesce(owner_id, owner::text, ''), \
     'public', public, 'file_size_limit', file_size_limit, 'allowed_mime_types', allowed_mime_types, \
     'created_at', ",
    iso!("created_at"),
    ", 'updated_at', ",
    iso!("updated_at"),
    ")"
);

/// `file_size_limit` as supabase-js sends it: a number of bytes, a string
/// with a unit (`"1MB"`), or null.
fn size_limit(value: Option<&Value>) -> Result<Option<i64>, ApiError> {
    let invalid =
        || StorageError::invalid_request("file_size_limit must be a size such as 1048576 or \"1MB\"");
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(|n| Some(n as i64)).ok_or_else(|| invalid().into()),
        Some(Value::String(s)) => parse_size(s).map(|n| Some(n as i64)).map_err(|_| invalid().into()),
        Some(_) => Err(invalid().into()),
    }
}

/// `allowed_mime_types`: null, or a list of `type/subtype` or `type/*`.
fn mime_types(value: Option<&Value>) -> Result<Option<Vec<String>>, ApiError> {
    let invalid = || StorageError::invalid_request("allowed_mime_types must be a list such as [\"image/*\"]");
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => {
            let mut types = Vec::with_capacity(items.len());
            for item in items {
                let text = item.as_str().ok_or_else(invalid)?;
                if !text.split_once('/').is_some_and(|(a, b)| !a.is_empty() && !b.is_empty()) {
                    return Err(StorageError::invalid_mime_type(text).into());
                }
                types.push(text.to_owned());
            }
            Ok(Some(types))
        }
        Some(_) => Err(invalid().into()),
    }
}

fn as_object(body: &Bytes) -> Result<Map<String, Value>, ApiError> {
    json_body(body)
}

/// A unique violation on a bucket is Storage's 409 `BucketAlreadyExists`.
fn bucket_conflict(error: ApiError) -> ApiError {
    match &error {
        ApiError::Database(db) if db.code == "23505" => StorageError::bucket_already_exists().into(),
        _ => error,
    }
}

/// `POST /bucket` `{"id"?, "name", "public"?, "file_size_limit"?, "allowed_mime_types"?}` -> `{"name"}`.
pub async fn create(
    State(state): State<StorageState>,
    caller: Caller,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body = as_object(&body)?;
    let name = body.get("name").and_then(Value::as_str).unwrap_or("");
    let id = body.get("id").and_then(Value::as_str).unwrap_or(name);
    let name = if name.is_empty() { id } else { name };
    keys::parse_bucket(id)?;
    keys::parse_bucket(name)?;
    let public = body.get("public").and_then(Value::as_bool).unwrap_or(false);
    let limit = size_limit(body.get("file_size_limit"))?;
    let types = mime_types(body.get("allowed_mime_types"))?;
    let owner_id = caller.claims.sub().map(str::to_owned);
    let owner = owner_id.as_deref().and_then(|o| Uuid::parse_str(o).ok());
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    session
        .query(
            "insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types) \
             values ($1, $2, $3, $4, $5, $6, $7)",
            &[&id, &name, &owner, &owner_id, &public, &limit, &types],
        )
        .await
        .map_err(bucket_conflict)?;
    session.commit().await?;
    Ok(Json(json!({ "name": id })))
}

/// `GET /bucket`: the buckets the caller may see.
pub async fn list(State(state): State<StorageState>, caller: Caller) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let rows =
        session.query(&format!("select {BUCKET_JSON} from storage.buckets order by name"), &[]).await?;
    session.commit().await?;
    Ok(Json(Value::Array(rows.iter().map(|row| row.get(0)).collect())))
}

/// `GET /bucket/{id}`.
pub async fn get(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let rows =
        session.query(&format!("select {BUCKET_JSON} from storage.buckets where id = $1"), &[&id]).await?;
    session.commit().await?;
    let row = rows.first().ok_or_else(StorageError::no_such_bucket)?;
    Ok(Json(row.get(0)))
}

/// `PUT /bucket/{id}` `{"public"?, "file_size_limit"?, "allowed_mime_types"?}`:
/// keys that are absent keep their value, `null` clears a limit.
pub async fn update(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let body = as_object(&body)?;
    let public = body.get("public").and_then(Value::as_bool);
    let set_limit = body.contains_key("file_size_limit");
    let limit = size_limit(body.get("file_size_limit"))?;
    let set_types = body.contains_key("allowed_mime_types");
    let types = mime_types(body.get("allowed_mime_types"))?;
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let rows = session
        .query(
            "update storage.buckets set public = coalesce($2, public), \
               file_size_limit = case when $3 then $4 else file_size_limit end, \
               allowed_mime_types = case when $5 then $6 else allowed_mime_types end, \
               updated_at = now() \
             where id = $1 returning id",
            &[&id, &public, &set_limit, &limit, &set_types, &types],
        )
        .await?;
    session.commit().await?;
    if rows.is_empty() {
        return Err(StorageError::no_such_bucket().into());
    }
    Ok(Json(json!({ "message": "Successfully updated" })))
}

/// `DELETE /bucket/{id}`: only an empty bucket.
pub async fn delete(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let rows = session
        .query("delete from storage.buckets where id = $1 returning id", &[&id])
        .await
        .map_err(|error| match &error {
            ApiError::Database(db) if db.code == "23503" => StorageError::bucket_not_empty().into(),
            _ => error,
        })?;
    session.commit().await?;
    if rows.is_empty() {
        return Err(StorageError::no_such_bucket().into());
    }
    Ok(Json(json!({ "message": "Successfully deleted" })))
}

/// `POST /bucket/{id}/empty`: deletes every object the caller may delete.
/// Storage queues the deletion and says so
/// (`src/http/routes/bucket/emptyBucket.ts`); here it is done before the
/// answer, which therefore only promises less than what happened.
pub async fn empty(
    State(state): State<StorageState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    let visible = session.query("select 1 from storage.buckets where id = $1", &[&id]).await?;
    if visible.is_empty() {
        session.rollback().await?;
        return Err(StorageError::no_such_bucket().into());
    }
    let deleted = objects::delete_all(&mut session, &id).await?;
    session.commit().await?;
    let paths =
        deleted.iter().filter_map(|(name, version)| keys::version_path(&id, name, version).ok()).collect();
    hold::remove_replaced(&state.db, &state.store, paths).await;
    Ok(Json(json!({ "message": "Empty bucket has been queued. Completion may take up to an hour." })))
}
