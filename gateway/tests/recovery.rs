//! The gateway outlives its database: `/ready` follows the database down and
//! up, and API requests work again without restarting the gateway.

mod common;

use axum::{Json, Router, extract::State, routing::get};
use gateway::AppState;
use gateway::caller::Caller;
use gateway::db::Access;
use gateway::embedded::SUPERUSER;
use gateway::error::ApiError;
use serde_json::{Value, json};

use common::{Options, spawn_app_with, start_private_cluster};

async fn whoami(State(state): State<AppState>, caller: Caller) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let rows = session.query("select current_user::text", &[]).await?;
    session.commit().await?;
    Ok(Json(json!({ "current_user": rows[0].get::<_, String>(0) })))
}

#[tokio::test]
async fn ready_follows_a_database_restart_and_requests_recover_by_themselves() {
    let private = tokio::task::spawn_blocking(|| start_private_cluster("recovery")).await.expect("cluster");
    let cluster = private.cluster.clone();
    gateway::startup::migrate(&cluster.pg_config(SUPERUSER), &common::repo_root()).await.expect("migrate");
    let app = spawn_app_with(Options {
        api: Some(cluster.pg_config("authenticator")),
        routes: Some(Router::new().route("/_test/whoami", get(whoami))),
        ..Options::default()
    })
    .await;
    let whoami = || app.get("/_test/whoami").bearer_auth(&app.anon_key).send();

    // Fill the pool with idle connections that the restart will break.
    for _ in 0..4 {
        assert_eq!(whoami().await.expect("request").status().as_u16(), 200);
    }
    assert_eq!(app.get("/ready").send().await.expect("ready").status().as_u16(), 200);

    let stopping = cluster.clone();
    tokio::task::spawn_blocking(move || stopping.stop_with("immediate")).await.expect("join").expect("stop");
    assert_eq!(app.get("/ready").send().await.expect("ready").status().as_u16(), 503);
    let down = whoami().await.expect("request");
    assert_eq!(down.status().as_u16(), 503);
    assert!(down.headers().contains_key("retry-after"));
    let body: Value = down.json().await.expect("json");
    assert_eq!(body["code"], "PGRST001");
    assert_eq!(app.get("/health").send().await.expect("health").status().as_u16(), 200);

    let starting = cluster.clone();
    tokio::task::spawn_blocking(move || starting.start()).await.expect("join").expect("start");
    // The very first probe after the server accepts connections succeeds: broken
    // pooled connections are replaced, not handed out.
    assert_eq!(app.get("/ready").send().await.expect("ready").status().as_u16(), 200);
    for _ in 0..8 {
        let response = whoami().await.expect("request");
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(response.json::<Value>().await.expect("json")["current_user"], "anon");
    }
}

#[tokio::test]
async fn a_stale_postmaster_pid_does_not_stop_the_next_start() {
    let private = tokio::task::spawn_blocking(|| start_private_cluster("stale")).await.expect("cluster");
    let cluster = private.cluster.clone();
    let pid_file = cluster.pgdata().join("postmaster.pid");
    let crashed = cluster.clone();
    tokio::task::spawn_blocking(move || crashed.stop_with("immediate")).await.expect("join").expect("stop");
    // What a crash leaves behind: a pid file naming a process that is gone.
    std::fs::write(&pid_file, format!("999999\n{}\n", cluster.pgdata().display())).expect("pid file");
    if let Some(owner) = cluster.owner() {
        std::os::unix::fs::chown(&pid_file, Some(owner.uid), Some(owner.gid)).expect("chown");
    }
    assert!(!cluster.is_running());
    let starting = cluster.clone();
    let started = tokio::task::spawn_blocking(move || starting.start()).await.expect("join").expect("start");
    assert!(started);
    let client = common::connect(&cluster.pg_config(SUPERUSER)).await;
    let row = client.query_one("select 1", &[]).await.expect("query");
    assert_eq!(row.get::<_, i32>(0), 1);
}
