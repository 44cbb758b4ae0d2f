//! Putting the parts together: the JWT secret, the database (embedded or given),
//! migrations, the application state and the server with graceful shutdown.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_postgres::NoTls;

use crate::config::{Config, Secret};
use crate::db::{Db, PoolSettings, migrate};
use crate::embedded::{self, Cluster};
use crate::jwt::{self, JwtKeys};
use crate::role::Role;
use crate::state::AppState;
use axum::extract::FromRef;
use gateway_auth::AuthState;
use gateway_core::caller::Credentials;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The configured secret, or the one kept under the data directory (made on
/// first start). True when it was made now.
pub fn jwt_secret(config: &Config) -> Result<(Secret, bool), BoxError> {
    if let Some(secret) = &config.jwt_secret {
        return Ok((secret.clone(), false));
    }
    let (secret, created) = embedded::load_or_create_secret(&config.jwt_secret_path())?;
    Ok((Secret::new(secret), created))
}

/// The anon and service_role API keys for a secret.
pub fn api_keys(keys: &JwtKeys) -> Result<(String, String), BoxError> {
    Ok((jwt::api_key(keys, Role::Anon)?, jwt::api_key(keys, Role::ServiceRole)?))
}

/// Where the database is.
pub struct Database {
    /// Connection for API requests (the `authenticator` role).
    pub api: tokio_postgres::Config,
    /// Connection that may apply migrations, if there is one.
    pub admin: Option<tokio_postgres::Config>,
    /// The private cluster, when the gateway runs one, and whether it started it.
    pub cluster: Option<(Cluster, bool)>,
}

/// Uses `--database-url`, or initialises and starts the private cluster.
pub async fn open_database(config: &Config) -> Result<Database, BoxError> {
    if let Some(url) = &config.database_url {
        let api: tokio_postgres::Config =
            url.expose().parse().map_err(|e| format!("invalid --database-url: {e}"))?;
        let admin = match &config.database_admin_url {
            Some(admin) => {
                Some(admin.expose().parse().map_err(|e| format!("invalid --database-admin-url: {e}"))?)
            }
            None => None,
        };
        if config.wal_archive.is_some() {
            return Err("--wal-archive archives the embedded cluster's WAL; with --database-url, set up \
                        archiving on that server (PostgreSQL's archive_command or its provider's backups)"
                .into());
        }
        return Ok(Database { api, admin, cluster: None });
    }
    let data_dir = config.data_dir.clone();
    let archive = config.wal_archive.as_deref().map(crate::pitr::WalArchive::new).transpose()?;
    let archiving = archive.is_some();
    let (cluster, started) = tokio::task::spawn_blocking(move || -> Result<_, BoxError> {
        let mut cluster = Cluster::new(&data_dir)?;
        if let Some(archive) = &archive {
            archive.prepare(&cluster)?;
            cluster = cluster.with_settings(archive.server_settings());
        }
        if cluster.init()? {
            tracing::info!(pgdata = %cluster.pgdata().display(), "initialised a new PostgreSQL cluster");
        }
        if cluster.kept_outside() {
            tracing::info!(
                pgdata = %cluster.pgdata().display(),
                "the PostgreSQL cluster is kept outside the data directory, which the postgres user \
                 cannot enter; deleting the data directory leaves it: `gateway cluster remove --data-dir {}` \
                 deletes it",
                data_dir.display()
            );
        }
        warn_of_orphaned_clusters();
        let started = cluster.start()?;
        Ok((cluster, started))
    })
    .await??;
    let started = started || restart_for_settings(&cluster, archiving).await?;
    Ok(Database {
        api: cluster.pg_config("authenticator"),
        admin: Some(cluster.pg_config(embedded::SUPERUSER)),
        cluster: Some((cluster, started)),
    })
}

/// A server that was already running without the settings this start asks
/// for is restarted with them: one started by an older gateway, with
/// `wal_level=replica` (Realtime's change feed needs
/// `embedded::LOGICAL_DECODING`), or without WAL archiving when
/// `--wal-archive` is now set. True when this call restarted it.
async fn restart_for_settings(cluster: &Cluster, archiving: bool) -> Result<bool, BoxError> {
    let (client, connection) = cluster.pg_config(embedded::SUPERUSER).connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let row =
        client.query_one("select current_setting('wal_level'), current_setting('archive_mode')", &[]).await?;
    let (level, archive_mode): (String, String) = (row.get(0), row.get(1));
    drop(client);
    let _ = connection.await;
    if level == "logical" && (!archiving || archive_mode == "on") {
        return Ok(false);
    }
    tracing::warn!(
        wal_level = %level,
        archive_mode = %archive_mode,
        "restarting the running PostgreSQL server with the settings Realtime's change feed and WAL \
         archiving need"
    );
    let cluster = cluster.clone();
    tokio::task::spawn_blocking(move || -> Result<(), embedded::EmbeddedError> {
        cluster.stop()?;
        cluster.start().map(|_| ())
    })
    .await??;
    Ok(true)
}

/// Names every kept cluster whose data directory is gone: deleting it is left
/// to `gateway cluster prune`, since a data directory on a disk that is not
/// mounted yet looks gone too.
fn warn_of_orphaned_clusters() {
    match embedded::kept_clusters() {
        Ok(clusters) => {
            for cluster in clusters.iter().filter(|c| c.orphaned()) {
                let data_dir = cluster.data_dir.as_deref().unwrap_or(Path::new("?"));
                tracing::warn!(
                    cluster = %cluster.path.display(),
                    data_dir = %data_dir.display(),
                    "a PostgreSQL cluster whose data directory is gone is left behind; \
                     `gateway cluster prune` deletes such clusters"
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "could not list the kept PostgreSQL clusters"),
    }
}

/// Stops the private cluster if this process started it.
pub async fn close_database(database: Database) {
    if let Some((cluster, true)) = database.cluster {
        match tokio::task::spawn_blocking(move || cluster.stop()).await {
            Ok(Ok(())) => tracing::info!("PostgreSQL stopped"),
            Ok(Err(e)) => tracing::error!(error = %e, "could not stop PostgreSQL"),
            Err(e) => tracing::error!(error = %e, "could not stop PostgreSQL"),
        }
    }
}

/// The directory with `sql/` and `policies/`: the configured one, or the nearest
/// ancestor of the working directory or of the executable that has both.
pub fn sql_root(config: &Config) -> Result<PathBuf, BoxError> {
    if let Some(root) = &config.sql_root {
        return Ok(root.clone());
    }
    let has_both = |dir: &Path| dir.join("sql").is_dir() && dir.join("policies").is_dir();
    let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
    starts
        .into_iter()
        .flatten()
        .find_map(|start| start.ancestors().find(|dir| has_both(dir)).map(Path::to_path_buf))
        .ok_or_else(|| "could not find the sql/ and policies/ directories; pass --sql-root".into())
}

/// Applies `sql/` and `policies/` from `root` over `admin`.
pub async fn migrate(admin: &tokio_postgres::Config, root: &Path) -> Result<migrate::Report, BoxError> {
    let (migrations, policies) = migrate::load(root)?;
    let (mut client, connection) = admin.connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let report = migrate::run(&mut client, &migrations, &policies).await;
    // Gateways already serving this database (a `gateway migrate` during a
    // rolling upgrade, another gateway starting) reload their schema cache,
    // as PostgREST's do on this notification
    // (https://docs.postgrest.org/en/stable/references/schema_cache.html).
    let notified: Result<(), BoxError> = match &report {
        Ok(report) if !report.applied.is_empty() => {
            client.batch_execute("notify pgrst, 'reload schema'").await.map_err(Into::into)
        }
        _ => Ok(()),
    };
    drop(client);
    let _ = connection.await;
    let report = report?;
    notified?;
    Ok(report)
}

/// What [`migrate`] would do with `sql/` and `policies/` from `root`, read
/// over `admin` without changing anything.
pub async fn migrate_plan(admin: &tokio_postgres::Config, root: &Path) -> Result<migrate::Plan, BoxError> {
    let (migrations, policies) = migrate::load(root)?;
    let (mut client, connection) = admin.connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let plan = migrate::plan(&mut client, &migrations, &policies).await;
    drop(client);
    let _ = connection.await;
    Ok(plan?)
}

/// The staff account `--seed` makes.
pub struct Staff {
    pub email: String,
    pub password: Secret,
}

/// The e-mail of the seeded staff user.
pub const STAFF_EMAIL: &str = "staff@tienda.example";

/// Applies `<root>/seed/*.sql` (each file fills only what is empty) and makes
/// sure the staff user exists with a profile in the seeded company. Its
/// password is made once and kept in `<data-dir>/staff_password` (mode 0600);
/// when that file is made anew (deleted, or a new data directory over an old
/// database), an existing staff user gets the new password, so that the
/// password printed is always the one that signs in.
pub async fn seed(admin: &tokio_postgres::Config, root: &Path, state: &AppState) -> Result<Staff, BoxError> {
    let (mut client, connection) = admin.connect(NoTls).await?;
    let connection = tokio::spawn(connection);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(root.join("seed")) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "sql"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(file)?;
        let tx = client.transaction().await?;
        tx.batch_execute(&text).await.map_err(|e| format!("{} failed: {e}", file.display()))?;
        tx.commit().await?;
    }
    let path = state.config.data_dir.join("staff_password");
    let (password, created) = embedded::load_or_create_password(&path)?;
    let password = Secret::new(password);
    let exists =
        client.query_opt("select 1 from auth.users where email = $1", &[&STAFF_EMAIL]).await?.is_some();
    if !exists {
        crate::auth::users::add(
            &AuthState::from_ref(state),
            STAFF_EMAIL,
            password.expose(),
            Some("Administrador"),
        )
        .await
        .map_err(|e| format!("could not create the staff user: {e}"))?;
    } else if created {
        crate::auth::users::set_password(&AuthState::from_ref(state), STAFF_EMAIL, password.expose())
            .await
            .map_err(|e| format!("could not set the staff user's password: {e}"))?;
    }
    client
        .execute(
            "insert into public.profiles (user_id, full_name, company_id)
             select u.id, 'Administrador', (select min(id) from public.companies)
             from auth.users u where u.email = $1
             on conflict (user_id) do nothing",
            &[&STAFF_EMAIL],
        )
        .await?;
    drop(client);
    let _ = connection.await;
    Ok(Staff { email: STAFF_EMAIL.to_owned(), password })
}

/// The application state over a database reached through `api`.
pub fn state(
    config: Config,
    api: tokio_postgres::Config,
    owner: Option<tokio_postgres::Config>,
    secret: &Secret,
) -> Result<AppState, BoxError> {
    let jwt = JwtKeys::hs256(secret, config.jwt_aud.as_deref())?;
    let pool = PoolSettings {
        size: config.pool_size,
        timeout: config.pool_timeout,
        statement_timeout: config.statement_timeout,
    };
    let db = Db::new(api, pool)?;
    let db = match owner {
        Some(owner) => db.with_owner(owner),
        None => db,
    };
    let credentials = Arc::new(Credentials {
        jwt,
        api_keys: Default::default(),
        legacy_api_keys: config.legacy_api_keys,
        operator_jwks: config.jwt_keys.clone(),
    });
    let schema = crate::rest::cache::SchemaHandle::new(config.rest.db_schemas.clone());
    let store = crate::storage::Backend::from_config(&config.storage, &config.storage_root())?;
    let workers = config
        .storage
        .image_workers
        .unwrap_or_else(|| std::thread::available_parallelism().map(usize::from).unwrap_or(1));
    let images = crate::storage::images::Images::new(
        workers,
        config.storage.image_cache_size,
        config.storage.image_max_pixels,
    );
    let realtime = Arc::new(crate::realtime::Realtime::default());
    realtime.changes.attach(db.clone(), config.realtime.change_feed);
    realtime.configure(&config.realtime);
    let functions =
        Arc::new(crate::functions::Workers::new(config.functions.clone(), &config.data_dir, db.clone())?);
    let recent = Arc::new(crate::console::observe::Recent::new(&config.console.console_path));
    Ok(AppState {
        config: Arc::new(config),
        db,
        credentials,
        schema,
        timezones: Default::default(),
        store,
        images,
        realtime,
        functions,
        recent,
    })
}

/// Serves until `shutdown` resolves, then finishes the requests in flight
/// within the drain deadline (`crate::server`). The schema listener keeps the
/// REST API's schema cache current meanwhile, and, with
/// `--storage-sweep-interval`, the sweeper removes orphaned bytes. The soft
/// open-files limit is raised first, and the connection cap fitted to it.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    admin: Option<Admin>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The admin listener lives as long as the API's, drain included, so that
    // the last requests are counted and `/ready` answers meanwhile.
    let (stop_admin, admin_stopped) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!(workers, "worker threads (--workers)");
    let admin_task = admin.map(|admin| {
        tokio::spawn(crate::telemetry::serve_admin(admin.listener, state.clone(), admin.handle, async {
            let _ = admin_stopped.await;
        }))
    });
    let listener_task = crate::rest::cache::spawn_listener(state.schema.clone(), state.db.clone());
    state.realtime.changes.check_at_start();
    let realtime = state.realtime.clone();
    let keys_task = crate::keys::spawn_refresher(
        state.db.clone(),
        state.credentials.clone(),
        state.config.keys_refresh_interval.0,
    );
    let storage = &state.config.storage;
    let sweeper = storage.sweep_interval.map(|every| {
        crate::storage::sweep::spawn_periodic(
            state.db.clone(),
            state.store.clone(),
            storage.sweep_grace.0,
            every.0,
        )
    });
    let limits = state.config.server.clone();
    let open_files = crate::server::raise_open_files_limit();
    let cap = crate::server::connection_cap(&limits, open_files);
    let result = crate::server::serve(listener, crate::stack(state), &limits, cap, shutdown).await;
    drop(stop_admin);
    if let Some(task) = admin_task {
        // A scraper's keep-alive connection must not hold the exit.
        if tokio::time::timeout(std::time::Duration::from_secs(1), task).await.is_err() {
            tracing::debug!("the admin listener was stopped with connections open");
        }
    }
    listener_task.abort();
    keys_task.abort();
    realtime.changes.stop();
    if let Some(sweeper) = sweeper {
        sweeper.abort();
    }
    result
}

/// The admin listener (`--metrics-listen`) and the recorder its `/metrics`
/// renders.
pub struct Admin {
    pub listener: TcpListener,
    pub handle: metrics_exporter_prometheus::PrometheusHandle,
}

/// Makes the first keys on a first start and loads them all
/// (`gateway_core::keys::init`).
pub async fn init_keys(state: &AppState) -> Result<crate::keys::Created, BoxError> {
    crate::keys::init(&state.db, &state.credentials, state.config.jwt_signing_algorithm).await
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when
/// this is called, before the server starts, not when the future is first
/// polled: a signal in between (a service manager stopping a gateway that
/// has just answered its first health check) would otherwise take the
/// default action and kill the process without draining.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {},
                    _ = terminate.recv() => {},
                }
            }
            (Ok(mut only), Err(e)) | (Err(e), Ok(mut only)) => {
                tracing::error!(error = %e, "cannot listen for one of SIGINT and SIGTERM");
                only.recv().await;
            }
            (Err(e), Err(_)) => {
                tracing::error!(error = %e, "cannot listen for SIGINT or SIGTERM");
                std::future::pending::<()>().await;
            }
        }
        tracing::info!("shutting down: finishing requests in flight");
    }
}
