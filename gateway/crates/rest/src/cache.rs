//! Keeping the schema cache current: loaded on first use, reloaded on
//! `NOTIFY pgrst, 'reload schema'` (or a bare `NOTIFY pgrst`) and whenever the
//! listener reconnects after losing the database, as PostgREST does
//! (`docs/references/listener.rst`).

use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures::StreamExt;
use tokio_postgres::{AsyncMessage, NoTls};

use super::schema::{ForeignKey, FunctionRow, Lineage, QualifiedName, SchemaCache, Table, catalog};
use super::views::{self, RawView, Source};
use crate::error::RestError;
use crate::memo::Memo;
use gateway_core::db::Db;
use gateway_core::error::ApiError;

/// The current schema cache, shared by every request. Cloned with the app
/// state for every request, so its fields are shared, not copied.
#[derive(Clone)]
pub struct SchemaHandle {
    schemas: Arc<[String]>,
    current: Arc<RwLock<Option<Arc<SchemaCache>>>>,
    /// The reads planned against the current cache (`memo`).
    memo: Memo,
}

impl SchemaHandle {
    pub fn new(schemas: Vec<String>) -> Self {
        Self { schemas: schemas.into(), current: Arc::new(RwLock::new(None)), memo: Memo::default() }
    }

    pub fn memo(&self) -> &Memo {
        &self.memo
    }

    pub fn schemas(&self) -> &[String] {
        &self.schemas
    }

    /// The cache, if a load has succeeded.
    pub fn loaded(&self) -> Option<Arc<SchemaCache>> {
        self.current.read().ok().and_then(|c| c.clone())
    }

    /// The cache, loading it first if no load has succeeded yet.
    pub async fn get(&self, db: &Db) -> Result<Arc<SchemaCache>, ApiError> {
        if let Some(cache) = self.loaded() {
            return Ok(cache);
        }
        // Boxed: loading the catalog is rare, and its future would otherwise
        // weigh on every request's (see `gateway_core::db::Session::run`).
        Box::pin(self.reload(db)).await
    }

    /// Reads the catalog again. On failure the old cache stays in use, as
    /// PostgREST keeps serving "best effort".
    pub async fn reload(&self, db: &Db) -> Result<Arc<SchemaCache>, ApiError> {
        let started = std::time::Instant::now();
        let loaded = load(db, &self.schemas).await;
        // PostgREST's series (its `Metrics` module), so that its dashboards
        // read them: loads by outcome, and the last load's query time.
        let outcome = if loaded.is_ok() { "SUCCESS" } else { "FAIL" };
        metrics::counter!("pgrst_schema_cache_loads_total", "status" => outcome).increment(1);
        if loaded.is_ok() {
            metrics::gauge!("pgrst_schema_cache_query_time_seconds").set(started.elapsed().as_secs_f64());
        }
        let cache = Arc::new(loaded.map_err(|e| match e {
            ApiError::Unavailable(_) | ApiError::PoolTimeout => unavailable(),
            other => other,
        })?);
        db.schema_changed();
        if let Ok(mut current) = self.current.write() {
            *current = Some(cache.clone());
        }
        tracing::info!(
            tables = cache.tables.len(),
            relationships = cache.relationships.len(),
            functions = cache.functions.len(),
            "schema cache loaded"
        );
        Ok(cache)
    }
}

fn unavailable() -> ApiError {
    ApiError::from(RestError {
        status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
        code: "PGRST002",
        message: "Could not query the database for the schema cache. Retrying.".to_owned(),
        details: None,
        hint: None,
    })
}

async fn load(db: &Db, schemas: &[String]) -> Result<SchemaCache, ApiError> {
    let conn = db.catalog().await?;
    let pg = |e| ApiError::from_pg(e, gateway_core::role::Role::ServiceRole);
    let schemas_param = schemas.to_vec();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&schemas_param];
    let (tables, keys, foreign_keys, views, functions) = futures::try_join!(
        conn.query(catalog::TABLES, &params),
        conn.query(catalog::KEYS, &[]),
        conn.query(catalog::FOREIGN_KEYS, &[]),
        conn.query(catalog::VIEWS, &[]),
        conn.query(catalog::FUNCTIONS, &params),
    )
    .map_err(pg)?;
    let mut tables: Vec<Table> = tables
        .iter()
        .map(|row| {
            let columns: String = row.get(3);
            Ok(Table {
                name: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
                columns: serde_json::from_str(&columns).map_err(ApiError::internal)?,
                primary_key: Vec::new(),
                unique_keys: Vec::new(),
                is_view: row.get(2),
            })
        })
        .collect::<Result<_, ApiError>>()?;
    let mut lineage = Lineage::default();
    for row in &keys {
        let name = QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1));
        let columns: Vec<String> = row.get(3);
        let primary = row.get::<_, bool>(2);
        let keys = lineage.keys.entry(name.clone()).or_default();
        if primary {
            keys.primary_key = columns.clone();
        }
        keys.unique_keys.push(columns.clone());
        let Some(table) = tables.iter_mut().find(|t| t.name == name) else { continue };
        if primary {
            table.primary_key = columns.clone();
        }
        table.unique_keys.push(columns);
    }
    let views = views
        .iter()
        .map(|row| {
            let columns: String = row.get(3);
            let sources: String = row.get(4);
            let sources: Vec<(i64, i32, String, String, String)> =
                serde_json::from_str(&sources).map_err(ApiError::internal)?;
            Ok(RawView {
                name: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
                definition: row.get(2),
                columns: serde_json::from_str(&columns).map_err(ApiError::internal)?,
                sources: sources
                    .into_iter()
                    .map(|(oid, attnum, schema, relation, column)| Source {
                        oid,
                        attnum,
                        relation: QualifiedName::new(schema, relation),
                        column,
                    })
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    lineage.view_columns = views::trace(&views);
    let foreign_keys = foreign_keys
        .iter()
        .map(|row| ForeignKey {
            constraint: row.get(0),
            source: QualifiedName::new(row.get::<_, String>(1), row.get::<_, String>(2)),
            columns: row.get(3),
            target: QualifiedName::new(row.get::<_, String>(4), row.get::<_, String>(5)),
            target_columns: row.get(6),
        })
        .collect();
    let functions = functions
        .iter()
        .map(|row| {
            Ok(FunctionRow {
                schema: row.get(0),
                name: row.get(1),
                names: row.get(2),
                modes: row.get(3),
                input_types: row.get(4),
                defaults: row.get(5),
                return_type: row.get(6),
                returns_set: row.get(7),
                returns_rows: row.get(8),
                returns_void: row.get(9),
                volatility: row.get(10),
                row_argument: qualified_name(row.get(11), row.get(12)),
                returns_table: qualified_name(row.get(13), row.get(14)),
                single_row: row.get(15),
                out_columns: serde_json::from_str(&row.get::<_, String>(16)).map_err(ApiError::internal)?,
                row_type: row.get(17),
            }
            .into_function())
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(SchemaCache::build_with(schemas.to_vec(), tables, foreign_keys, functions, &lineage))
}

fn qualified_name(schema: Option<String>, name: Option<String>) -> Option<QualifiedName> {
    Some(QualifiedName::new(schema?, name?))
}

/// Listens on the `pgrst` channel for as long as the process runs, reloading
/// the cache on each notification and after every reconnection. Bursts are
/// debounced over 100 ms, like PostgREST's listener.
pub fn spawn_listener(handle: SchemaHandle, db: Db) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut backoff = Duration::from_secs(1);
        loop {
            match listen(&handle, &db).await {
                Ok(()) => backoff = Duration::from_secs(1),
                Err(e) => {
                    tracing::warn!(error = %e, retry_in = ?backoff, "schema listener lost the database");
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(32));
        }
    })
}

async fn listen(handle: &SchemaHandle, db: &Db) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = db.pg_config().connect(NoTls).await?;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    let _ = sender.send(n.payload().to_owned());
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "schema listener connection failed");
                    break;
                }
            }
        }
    });
    client.batch_execute("listen pgrst").await?;
    // A (re)connection may follow an outage during which the schema changed.
    let _ = handle.reload(db).await;
    while let Some(payload) = receiver.recv().await {
        if !matches!(payload.as_str(), "" | "reload schema") {
            continue;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        while receiver.try_recv().is_ok() {}
        if let Err(e) = handle.reload(db).await {
            tracing::warn!(error = %e, "schema reload failed; keeping the previous cache");
        }
    }
    driver.abort();
    Ok(())
}
