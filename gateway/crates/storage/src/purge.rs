//! `DELETE /cdn/{bucket}` and `DELETE /cdn/{bucket}/{*path}`: storage-js's
//! `purgeBucketCache` and `purgeCache`, for the service role only, answered
//! `{"message": "success"}` as Storage answers them (supabase/storage
//! `src/http/routes/cdn/purgeCache.ts`, behind `enforceJwtRoles`).
//!
//! Storage hands a purge to a CDN in front of it. This gateway has no CDN; its
//! caches are its own: image variants kept in the store beside their source
//! (`keys::variant_path`) and in memory, and originals held in memory
//! (`cache::BlobCache`). Every one of them is keyed by a version, which is
//! never rewritten, so none can be stale: a purge frees their space and makes
//! the next transform run again, and never changes what a download returns.
//! With `?transformations=true` only the variants go. Memory is purged on the
//! gateway that answers; other gateways' memory lets go on its own.

use axum::{
    Json,
    extract::{Path, RawQuery, State},
};
use futures::TryStreamExt;
use object_store::path::Path as StorePath;
use serde_json::{Value, json};

use super::error::StorageError;
use super::keys;
use super::path::ObjectPath;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::error::ApiError;
use gateway_core::role::Role;

/// `purgeCache(path, { transformations })`: the object's variants, and
/// without `transformations` its versions held in memory.
pub async fn object(
    State(state): State<StorageState>,
    caller: Caller,
    ObjectPath { bucket, key }: ObjectPath,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    service_role_only(&caller)?;
    let folder = StorePath::parse(format!("{bucket}/{key}")).map_err(|_| StorageError::invalid_key(&key))?;
    // One level: the versions and variants of this key, not of the keys
    // under it (`a` and `a/b` share the folder `bucket/a/`).
    let listed =
        state.store.store.list_with_delimiter(Some(&folder)).await.map_err(super::backend::store_error)?;
    let blobs: Vec<StorePath> = listed.objects.into_iter().map(|meta| meta.location).collect();
    purge(&state, &blobs, transformations(query.as_deref())).await;
    let own = format!("{folder}/");
    state
        .images
        .forget_where(|source| source.strip_prefix(&own).is_some_and(|version| !version.contains('/')));
    Ok(success())
}

/// `purgeBucketCache(bucket, { transformations })`: the same for every
/// object of the bucket.
pub async fn bucket(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    service_role_only(&caller)?;
    let folder = keys::bucket_path(keys::parse_bucket(&bucket)?)?;
    let blobs: Vec<StorePath> = state
        .store
        .store
        .list(Some(&folder))
        .map_ok(|meta| meta.location)
        .try_collect()
        .await
        .map_err(super::backend::store_error)?;
    purge(&state, &blobs, transformations(query.as_deref())).await;
    let under = format!("{folder}/");
    state.images.forget_where(|source| source.starts_with(&under));
    Ok(success())
}

/// Removes the variants among `blobs` from the store, and, unless only
/// transformations are purged, forgets the versions held in memory.
async fn purge(state: &StorageState, blobs: &[StorePath], transformations_only: bool) {
    for blob in blobs {
        if is_variant(blob) {
            state.store.remove(blob).await;
        } else if !transformations_only {
            state.store.forget(blob);
        }
    }
}

/// A variant's last segment is `<version>@<variant>`; a version's has no `@`.
fn is_variant(blob: &StorePath) -> bool {
    blob.filename().is_some_and(|name| name.contains('@'))
}

/// `?transformations=true`, as storage-js sends it; anything else is false.
fn transformations(query: Option<&str>) -> bool {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .any(|(name, value)| name == "transformations" && value == "true")
}

/// Storage's `enforceJwtRole`: only a verified `service_role` passes.
fn service_role_only(caller: &Caller) -> Result<(), ApiError> {
    if caller.role() == Role::ServiceRole { Ok(()) } else { Err(StorageError::invalid_role().into()) }
}

fn success() -> Json<Value> {
    Json(json!({"message": "success"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_segment_says_whether_a_blob_is_a_variant() {
        let cases = [
            ("b/photo.png/0f1e@w100h0rcoverq80.webp", true),
            ("b/photo.png/0f1e", false),
            ("b/me@home/0f1e", false),
            ("b/me@home/0f1e@w0h0rcoverq80.webp", true),
        ];
        for (path, variant) in cases {
            assert_eq!(is_variant(&StorePath::parse(path).expect("path")), variant, "{path}");
        }
    }

    #[test]
    fn transformations_is_true_only_when_it_says_true() {
        let cases = [
            (None, false),
            (Some("transformations=true"), true),
            (Some("transformations=false"), false),
            (Some("x=1&transformations=true"), true),
            (Some("transformations=1"), false),
        ];
        for (query, expected) in cases {
            assert_eq!(transformations(query), expected, "{query:?}");
        }
    }
}
