//! The gateway outlives its database: `/ready` follows the database down and
//! up, API requests work again without restarting the gateway, and crashes
//! under a load of writers lose no acknowledged insert.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// The postmaster's pid and those of its children (backends, background
/// workers), read from `/proc` before a crash.
fn server_processes(cluster: &gateway::embedded::Cluster) -> Vec<i32> {
    let text = std::fs::read_to_string(cluster.pgdata().join("postmaster.pid")).expect("postmaster.pid");
    let postmaster: i32 = text.lines().next().and_then(|l| l.trim().parse().ok()).expect("pid");
    let mut pids = vec![postmaster];
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid ...`
        let ppid =
            stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok());
        if ppid == Some(postmaster) {
            pids.push(pid);
        }
    }
    pids
}

/// Gone from `/proc`: a zombie is not enough, since PostgreSQL's next start
/// refuses the socket's lock file while the old postmaster's pid exists (an
/// init that reaps lazily, as in some containers, may take a few seconds).
fn is_gone(pid: i32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// A crash, two ways: SIGKILL of every server process at once (what the
/// kernel's OOM killer or a lost container does), or PostgreSQL's own
/// immediate shutdown (SIGQUIT: no checkpoint, crash recovery at the next
/// start). Returns once nothing of the server runs any more.
fn crash(cluster: &gateway::embedded::Cluster, sigkill: bool) {
    if sigkill {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        let pids = server_processes(cluster);
        for pid in &pids {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while !pids.iter().all(|pid| is_gone(*pid)) {
            assert!(Instant::now() < deadline, "server processes outlived SIGKILL");
            std::thread::sleep(Duration::from_millis(10));
        }
    } else {
        cluster.stop_with("immediate").expect("immediate stop");
    }
}

/// The crash-under-load property (reliability.md G15, bounded for `make
/// test`): 8 writers insert through `/rest/v1` while PostgreSQL crashes 3
/// times; every insert answered 2xx is in the table afterwards, every other
/// answer is a 503 (PGRST001) the client may retry, and after each restart
/// inserts succeed again without anyone touching the gateway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_insert_is_lost_when_postgresql_crashes_under_eight_writers() {
    const WRITERS: i64 = 8;
    const CRASHES: usize = 3;
    let private = tokio::task::spawn_blocking(|| start_private_cluster("crashes")).await.expect("cluster");
    let cluster = private.cluster.clone();
    gateway::startup::migrate(&cluster.pg_config(SUPERUSER), &common::repo_root()).await.expect("migrate");
    common::connect(&cluster.pg_config(SUPERUSER))
        .await
        .batch_execute("create table public.acks (id bigint primary key, writer int not null)")
        .await
        .expect("table");
    let app =
        spawn_app_with(Options { api: Some(cluster.pg_config("authenticator")), ..Options::default() }).await;

    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicUsize::new(0));
    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let (client, url, key) =
            (app.client.clone(), format!("{}/rest/v1/acks", app.address), app.service_key.clone());
        let (stop, acked) = (stop.clone(), acked.clone());
        writers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            let mut refused: BTreeMap<String, usize> = BTreeMap::new();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                // Each id is tried once: an insert that was refused (or whose
                // answer was lost) may or may not have committed, and is
                // never claimed.
                let id = writer * 10_000_000 + n;
                n += 1;
                let answer = client
                    .post(&url)
                    .header("apikey", &key)
                    .bearer_auth(&key)
                    .json(&json!({ "id": id, "writer": writer }))
                    .send()
                    .await;
                match answer {
                    Ok(response) if response.status().is_success() => {
                        mine.push(id);
                        acked.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let code =
                            response.json::<Value>().await.map(|b| b["code"].clone()).unwrap_or_default();
                        *refused.entry(format!("{status} {code}")).or_default() += 1;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    Err(e) => panic!("the gateway did not answer: {e}"),
                }
            }
            (mine, refused)
        }));
    }

    let started = Instant::now();
    for round in 0..=CRASHES {
        // The writers get through (again) before the next crash: the gateway
        // recovered by itself.
        let before = acked.load(Ordering::Relaxed);
        let deadline = Instant::now() + Duration::from_secs(15);
        while acked.load(Ordering::Relaxed) < before + 100 {
            assert!(Instant::now() < deadline, "no inserts succeeded within 15 s after restart {round}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if round == CRASHES {
            break;
        }
        let crashing = cluster.clone();
        tokio::task::spawn_blocking(move || {
            crash(&crashing, round % 2 == 0);
            // A moment of outage, so that writers meet the database down.
            std::thread::sleep(Duration::from_millis(200));
            crashing.start().expect("restart after the crash")
        })
        .await
        .expect("join");
    }
    stop.store(true, Ordering::Relaxed);

    let mut claimed = Vec::new();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    for writer in writers {
        let (mine, theirs) = writer.await.expect("writer");
        claimed.extend(mine);
        for (answer, count) in theirs {
            *refused.entry(answer).or_default() += count;
        }
    }
    let client = common::connect(&cluster.pg_config(SUPERUSER)).await;
    let present: std::collections::HashSet<i64> = client
        .query("select id from public.acks", &[])
        .await
        .expect("rows")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let lost: Vec<i64> = claimed.iter().copied().filter(|id| !present.contains(id)).collect();
    eprintln!(
        "{CRASHES} crashes under {WRITERS} writers in {:.1} s: {} inserts acknowledged, {} rows present, \
         refused: {refused:?}",
        started.elapsed().as_secs_f64(),
        claimed.len(),
        present.len()
    );
    assert_eq!(lost, Vec::<i64>::new(), "acknowledged inserts lost");
    // A crash refuses what is in flight as an outage, never as a client or
    // server error (PGRST001; with `Retry-After`, which supabase-js retries on).
    assert!(refused.keys().all(|answer| answer == "503 \"PGRST001\""), "{refused:?}");
    assert!(!refused.is_empty(), "no request met the database down; the crashes tested nothing");
    assert_eq!(app.get("/ready").send().await.expect("ready").status().as_u16(), 200);
}
