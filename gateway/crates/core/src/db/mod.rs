//! The connection pool for API requests and the database's readiness.
//!
//! Pool behaviour follows PostgREST's (docs `references/connection_pool.rst`):
//! connections are made on demand up to the pool size, a request waits at most
//! the acquisition timeout for one (then 504 PGRST003), and a connection found
//! closed when it is handed out is replaced, so the pool recovers by itself after
//! the database restarts.

pub mod migrate;
pub mod session;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime, Timeouts,
};
use tokio_postgres::NoTls;

use crate::config::Span;
use crate::error::ApiError;
use crate::role::Role;

pub use session::{Access, OwnerSession, Session};

/// Settings of a role from `ALTER ROLE ... SET`, which `SET ROLE` does not apply
/// by itself, so every request applies them (PostgREST's "impersonated role
/// settings").
type RoleSettings = HashMap<Role, Vec<(String, String)>>;

/// Cloned with the app state for every request, so its fields are shared, not
/// copied.
#[derive(Clone)]
pub struct Db {
    pool: Pool,
    /// How to reach the database outside the pool (the schema listener).
    pg: Arc<tokio_postgres::Config>,
    role_settings: Arc<RwLock<Option<Arc<RoleSettings>>>>,
    /// Round trips sessions have waited for, for tests and diagnostics.
    round_trips: Arc<AtomicU64>,
    /// How to log in as the role that owns the schemas (`--database-admin-url`),
    /// for the operator console ([`Db::as_schema_owner`]) and Realtime's
    /// replication connection ([`Db::replication_login`]).
    owner: Option<Arc<tokio_postgres::Config>>,
}

/// The pool's settings (PostgREST's `db-pool`, `db-pool-acquisition-timeout`).
#[derive(Clone, Copy, Debug)]
pub struct PoolSettings {
    /// Most connections open at once.
    pub size: usize,
    /// How long a request waits for a connection (then 504 PGRST003).
    pub timeout: Span,
    /// `statement_timeout` of the pool's connections, for roles that set
    /// none of their own.
    pub statement_timeout: Span,
}

/// The pool at one moment: what PostgREST's `pgrst_db_pool_*` gauges report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolStatus {
    /// The pool size (`pgrst_db_pool_max`).
    pub max: usize,
    /// Connections open, idle or in use.
    pub open: usize,
    /// Open connections idle in the pool (`pgrst_db_pool_available`).
    pub available: usize,
    /// Requests waiting for a connection (`pgrst_db_pool_waiting`).
    pub waiting: usize,
}

/// How long a connection attempt may take before the database counts as down.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

impl Db {
    /// A pool over `pg` (which should log in as `authenticator`). Nothing
    /// connects until the first request.
    pub fn new(mut pg: tokio_postgres::Config, config: PoolSettings) -> Result<Self, String> {
        let mut options = match pg.get_options() {
            Some(options) => options.to_owned(),
            None => format!("-c statement_timeout={}", config.statement_timeout.0.as_millis()),
        };
        // A request of one statement runs in an implicit transaction, which
        // takes this isolation level (PostgREST begins every transaction read
        // committed; see `session`). Backslash-escaped as the server splits
        // options at spaces.
        if !options.contains("default_transaction_isolation") {
            options.push_str(r" -c default_transaction_isolation=read\ committed");
        }
        pg.options(options);
        if pg.get_application_name().is_none() {
            pg.application_name("gateway");
        }
        pg.connect_timeout(CONNECT_TIMEOUT);
        let manager = Manager::from_config(
            pg.clone(),
            NoTls,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(config.size.max(1))
            .runtime(Runtime::Tokio1)
            .timeouts(Timeouts {
                wait: Some(config.timeout.0),
                create: Some(CONNECT_TIMEOUT),
                recycle: Some(CONNECT_TIMEOUT),
            })
            .build()
            .map_err(|e| format!("could not build the connection pool: {e}"))?;
        Ok(Self {
            pool,
            pg: Arc::new(pg),
            role_settings: Arc::new(RwLock::new(None)),
            round_trips: Arc::default(),
            owner: None,
        })
    }

    /// The same pool, with the login of the role that owns the schemas, which
    /// only [`Db::as_schema_owner`] and [`Db::replication_login`] use.
    pub fn with_owner(mut self, mut owner: tokio_postgres::Config) -> Self {
        owner.connect_timeout(CONNECT_TIMEOUT);
        if owner.get_application_name().is_none() {
            owner.application_name("gateway console");
        }
        self.owner = Some(Arc::new(owner));
        self
    }

    /// Takes a connection from the pool; the only caller is [`Session`].
    async fn checkout(&self) -> Result<Object, ApiError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// How many round trips to the database sessions have waited for so far:
    /// one per batch of pipelined statements (a statement a connection has not
    /// prepared yet adds a round trip that is not counted).
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// The pool's size and use right now, for the metrics scrape.
    pub fn pool_status(&self) -> PoolStatus {
        let status = self.pool.status();
        PoolStatus {
            max: status.max_size,
            open: status.size,
            available: status.available,
            waiting: status.waiting,
        }
    }

    fn count_round_trip(&self) {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
    }

    /// The database answers a query right now. Used by `/ready`; waits at most
    /// about a second so that health checks stay fast while the database is down.
    pub async fn ping(&self) -> Result<(), ApiError> {
        let quick = Timeouts {
            wait: Some(Duration::from_secs(1)),
            create: Some(Duration::from_secs(1)),
            recycle: Some(Duration::from_secs(1)),
        };
        let conn = self.pool.timeout_get(&quick).await.map_err(pool_error)?;
        match tokio::time::timeout(Duration::from_secs(1), conn.simple_query("select 1")).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => {
                let _ = Object::take(conn);
                Err(ApiError::from_pg(e, Role::ServiceRole))
            }
            Err(_) => {
                let _ = Object::take(conn);
                Err(ApiError::Unavailable("ping timed out".to_owned()))
            }
        }
    }

    /// A pooled connection as the authenticator itself, with no caller and no
    /// role switch: for reading the catalog (the schema cache), never for data.
    pub async fn catalog(&self) -> Result<Object, ApiError> {
        self.checkout().await
    }

    /// Connection settings for a dedicated connection (`LISTEN`).
    pub fn pg_config(&self) -> &tokio_postgres::Config {
        &self.pg
    }

    /// The login of the role that owns the schemas, for Realtime's
    /// replication connection alone: streaming a slot needs the REPLICATION
    /// attribute, which the API's login role has not. It reads the
    /// publication's changes, which the change feed then checks per
    /// subscriber under row-level security.
    pub fn replication_login(&self) -> Option<&tokio_postgres::Config> {
        self.owner.as_deref()
    }

    /// After the schema changed: forget the role settings and every prepared
    /// statement, so that nothing planned against the old schema is reused.
    pub fn schema_changed(&self) {
        if let Ok(mut cached) = self.role_settings.write() {
            *cached = None;
        }
        self.pool.manager().statement_caches.clear();
    }

    async fn role_settings(&self, conn: &Object) -> Result<Arc<RoleSettings>, ApiError> {
        if let Some(cached) = self.role_settings.read().ok().and_then(|c| c.clone()) {
            return Ok(cached);
        }
        // Boxed: the load is rare, and its future would otherwise weigh on
        // every request's (see `Session::run`).
        Box::pin(self.load_role_settings(conn)).await
    }

    async fn load_role_settings(&self, conn: &Object) -> Result<Arc<RoleSettings>, ApiError> {
        // Database-specific settings come after global ones so that they win, as
        // PostgreSQL itself applies them at login.
        let rows = conn
            .query(
                "select r.rolname::text, s.setconfig \
                 from pg_catalog.pg_db_role_setting s \
                 join pg_catalog.pg_roles r on r.oid = s.setrole \
                 where r.rolname = any($1) \
                   and s.setdatabase in (0, (select oid from pg_catalog.pg_database \
                                              where datname = current_database())) \
                 order by s.setdatabase",
                &[&Role::ALL.map(Role::as_str).to_vec()],
            )
            .await
            .map_err(|e| ApiError::from_pg(e, Role::ServiceRole))?;
        let mut settings = RoleSettings::new();
        for row in rows {
            let name: String = row.get(0);
            let config: Vec<String> = row.get(1);
            let Some(role) = Role::parse(&name) else { continue };
            let entry = settings.entry(role).or_default();
            for item in config {
                if let Some((key, value)) = item.split_once('=') {
                    entry.retain(|(k, _)| k != key);
                    entry.push((key.to_owned(), value.to_owned()));
                }
            }
        }
        let settings = Arc::new(settings);
        if let Ok(mut cached) = self.role_settings.write() {
            *cached = Some(settings.clone());
        }
        Ok(settings)
    }
}

fn pool_error(error: PoolError) -> ApiError {
    match error {
        PoolError::Timeout(deadpool_postgres::TimeoutType::Wait) => {
            // PostgREST's name, so that its dashboards read it.
            metrics::counter!("pgrst_db_pool_timeouts_total").increment(1);
            ApiError::PoolTimeout
        }
        PoolError::Timeout(_) => ApiError::Unavailable("timed out connecting".to_owned()),
        PoolError::Backend(e) => ApiError::from_pg(e, Role::ServiceRole),
        other => ApiError::internal(other),
    }
}
