//! What every handler can reach.

use std::sync::Arc;

use crate::config::Config;
use crate::db::Db;
use crate::jwt::JwtKeys;
use crate::rest::cache::SchemaHandle;
use crate::storage::Backend;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Db,
    pub jwt: Arc<JwtKeys>,
    /// The publishable and secret API keys (`crate::keys`).
    pub api_keys: Arc<crate::keys::ApiKeys>,
    /// The REST API's schema cache.
    pub schema: SchemaHandle,
    /// The time zones `Prefer: timezone=` may name.
    pub timezones: crate::rest::timezones::Timezones,
    /// Where stored objects' bytes live (local disk or S3).
    pub store: Backend,
    /// Image transformations' pool and variants (`storage::images`).
    pub images: Arc<crate::storage::images::Images>,
    /// Realtime's channels and change feed (`crate::realtime`).
    pub realtime: Arc<crate::realtime::Realtime>,
}
