//! Liveness and readiness, like PostgREST's admin server
//! (`docs/references/admin_server.rst`): `/health` answers while the process
//! serves; `/ready` answers 200 only while the database does, 503 otherwise.

use axum::{Json, extract::State, http::StatusCode};
use serde_json::{Value, json};

use crate::state::AppState;

pub async fn live() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

pub async fn ready(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match state.db.ping().await {
        Ok(()) => (StatusCode::OK, Json(json!({ "status": "ready" }))),
        Err(error) => {
            if crate::logs::first_in_a_while(tracing::Level::WARN, "not ready", &error.to_string()) {
                tracing::warn!(%error, "not ready");
            }
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "database unavailable" })))
        }
    }
}
