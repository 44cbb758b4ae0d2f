//! The composition's state: what the services share, from which each
//! service's own state is cut (axum's `FromRef`), so that its handlers see
//! only their service's part.

use std::sync::Arc;

use axum::extract::FromRef;
use gateway_auth::AuthState;
use gateway_core::body::Limits;
use gateway_core::caller::Credentials;
use gateway_core::db::Db;
use gateway_functions::{FunctionsState, Workers};
use gateway_realtime::{Realtime, RealtimeState};
use gateway_rest::RestState;
use gateway_rest::cache::SchemaHandle;
use gateway_rest::timezones::Timezones;
use gateway_storage::{Backend, StorageState, images::Images};

use crate::config::Config;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Db,
    /// The keys that verify callers (`gateway_core::caller`).
    pub credentials: Arc<Credentials>,
    /// The REST API's schema cache.
    pub schema: SchemaHandle,
    /// The time zones `Prefer: timezone=` may name.
    pub timezones: Timezones,
    /// Where stored objects' bytes live (local disk or S3).
    pub store: Backend,
    /// Image transformations' pool and variants.
    pub images: Arc<Images>,
    /// Realtime's channels and change feed.
    pub realtime: Arc<Realtime>,
    /// The Edge Functions' processes.
    pub functions: Arc<Workers>,
    /// The requests answered lately, for the console's Observe page.
    pub recent: Arc<crate::console::observe::Recent>,
}

impl AppState {
    fn limits(&self) -> Limits {
        Limits::of(&self.config.server)
    }
}

impl FromRef<AppState> for RestState {
    fn from_ref(app: &AppState) -> Self {
        RestState {
            db: app.db.clone(),
            credentials: app.credentials.clone(),
            config: Arc::new(app.config.rest.clone()),
            schema: app.schema.clone(),
            timezones: app.timezones.clone(),
            limits: app.limits(),
        }
    }
}

impl FromRef<AppState> for AuthState {
    fn from_ref(app: &AppState) -> Self {
        AuthState {
            db: app.db.clone(),
            credentials: app.credentials.clone(),
            config: Arc::new(app.config.auth.clone()),
            gateway_site_url: app.config.site_url.as_str().into(),
            limits: app.limits(),
        }
    }
}

impl FromRef<AppState> for StorageState {
    fn from_ref(app: &AppState) -> Self {
        StorageState {
            db: app.db.clone(),
            credentials: app.credentials.clone(),
            config: Arc::new(app.config.storage.clone()),
            store: app.store.clone(),
            images: app.images.clone(),
            limits: app.limits(),
        }
    }
}

impl FromRef<AppState> for RealtimeState {
    fn from_ref(app: &AppState) -> Self {
        RealtimeState {
            db: app.db.clone(),
            credentials: app.credentials.clone(),
            config: Arc::new(app.config.realtime.clone()),
            realtime: app.realtime.clone(),
        }
    }
}

impl FromRef<AppState> for FunctionsState {
    fn from_ref(app: &AppState) -> Self {
        let configured = app.config.functions.supabase_url.clone();
        let listen = app.config.listen;
        // The gateway's own address, which every function reaches it at; a
        // port chosen at start (0) is only known to the request.
        let from_listen = (listen.port() != 0).then(|| {
            let ip =
                if listen.ip().is_unspecified() { "127.0.0.1".to_owned() } else { listen.ip().to_string() };
            let ip = if ip.contains(':') { format!("[{ip}]") } else { ip };
            format!("http://{ip}:{}", listen.port())
        });
        FunctionsState {
            workers: app.functions.clone(),
            credentials: app.credentials.clone(),
            db: app.db.clone(),
            supabase_url: configured.or(from_listen),
        }
    }
}

impl FromRef<AppState> for Arc<Credentials> {
    fn from_ref(app: &AppState) -> Self {
        app.credentials.clone()
    }
}
