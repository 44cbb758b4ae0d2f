//! The `{bucket}/{key}` of an object route, decoded and checked. A path that
//! does not even decode (invalid UTF-8 after percent-decoding) is an
//! `InvalidKey` like any other refused key, in Storage's shape.

use axum::{
    extract::{FromRequestParts, Path},
    http::request::Parts,
};

use super::error::StorageError;
use super::keys;
use gateway_core::error::ApiError;

/// A bucket name and object key that passed [`keys::parse_bucket`] and
/// [`keys::parse_key`].
#[derive(Debug, Clone)]
pub struct ObjectPath {
    pub bucket: String,
    pub key: String,
}

impl<S: Send + Sync> FromRequestParts<S> for ObjectPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path((bucket, key)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|_| StorageError::invalid_key(parts.uri.path()))?;
        keys::parse_bucket(&bucket)?;
        keys::parse_key(&key)?;
        Ok(Self { bucket, key })
    }
}
