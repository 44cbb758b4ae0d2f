//! The time zones `Prefer: timezone=` may name: PostgreSQL's
//! `pg_timezone_names`, which PostgREST 12 reads with its schema cache and
//! checks the preference against
//! (<https://docs.postgrest.org/en/v12/references/api/preferences.html#timezone>).
//! Read once, by the first request that names a zone: the list changes only
//! with PostgreSQL's time zone database, never with the schema.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::OnceCell;

use gateway_core::db::Db;
use gateway_core::error::ApiError;
use gateway_core::role::Role;

const NAMES: &str = "select name from pg_catalog.pg_timezone_names";

#[derive(Clone, Default)]
pub struct Timezones(Arc<OnceCell<HashSet<String>>>);

impl Timezones {
    /// The names, read on first use; a failed read is tried again next time.
    pub async fn get(&self, db: &Db) -> Result<&HashSet<String>, ApiError> {
        self.0
            .get_or_try_init(|| async {
                let conn = db.catalog().await?;
                let rows =
                    conn.query(NAMES, &[]).await.map_err(|e| ApiError::from_pg(e, Role::ServiceRole))?;
                Ok(rows.iter().map(|row| row.get(0)).collect())
            })
            .await
    }
}
