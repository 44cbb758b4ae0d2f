//! What every handler can reach.

use std::sync::Arc;

use crate::config::Config;
use crate::db::Db;
use crate::jwt::JwtKeys;
use crate::storage::Backend;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Db,
    pub jwt: Arc<JwtKeys>,
    /// Where stored objects' bytes live (local disk or S3).
    pub store: Backend,
}
