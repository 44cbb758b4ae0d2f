//! The sweeper removes orphaned bytes (blobs no row points at, older than the
//! grace period) and nothing else: not referenced versions, not fresh blobs
//! of an upload in flight, not blobs outside the layout, not the bytes of a
//! row committed after the listing. On local disk and on S3 (moto).

mod common;
mod storage_support;

use std::time::Duration;

use bytes::Bytes;
use object_store::{ObjectStoreExt, path::Path};
use reqwest::Method;

use common::TestApp;
use gateway::storage::sweep::{Action, Event, Report, Sweep, try_lock};
use storage_support::*;

/// Sweeps `bucket` (or everything) and returns the report and the events.
async fn sweep(app: &TestApp, bucket: Option<&str>, grace: Duration, dry_run: bool) -> (Report, Vec<Event>) {
    let sweep = Sweep { db: &app.state.db, store: &app.state.store, grace, dry_run };
    let mut events = Vec::new();
    let report = sweep.run(bucket, &mut |event: &Event| events.push(event.clone())).await.expect("sweep");
    (report, events)
}

fn located(events: &[Event], action: Action) -> Vec<String> {
    let mut found: Vec<String> =
        events.iter().filter(|e| e.action == action).map(|e| e.location.clone()).collect();
    found.sort();
    found
}

/// Writes bytes no row points at, as a crash before the commit leaves them.
async fn orphan(app: &TestApp, location: &str) {
    let path = Path::parse(location).expect("path");
    app.state.store.store.put(&path, Bytes::from_static(b"orphaned bytes").into()).await.expect("put");
}

fn version() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The blob a row points at.
async fn current(app: &TestApp, bucket: &str, name: &str) -> String {
    let row = app
        .admin()
        .await
        .query_one(
            "select version from storage.objects where bucket_id = $1 and name = $2",
            &[&bucket, &name],
        )
        .await
        .expect("row");
    format!("{bucket}/{name}/{}", row.get::<_, String>(0))
}

async fn download(app: &TestApp, path: &str) -> String {
    let response = request(app, Method::GET, &format!("/object/{path}"), Some(&app.service_key))
        .send()
        .await
        .expect("get");
    assert_eq!(response.status(), 200, "{path}");
    response.text().await.expect("text")
}

async fn old_orphans_go_while_fresh_and_referenced_blobs_stay(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    assert_eq!(
        upload(&app, Some(&key), "files", "kept.txt", b"kept".to_vec(), "text/plain", false).await.0,
        200
    );
    let kept = current(&app, "files", "kept.txt").await;
    let old = format!("files/lost.txt/{}", version());
    orphan(&app, &old).await;
    // S3 stamps whole seconds: the wait and the grace leave a second of slack.
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let fresh = format!("files/in-flight.txt/{}", version());
    orphan(&app, &fresh).await;

    let (report, events) = sweep(&app, None, Duration::from_secs(3), false).await;
    assert_eq!(located(&events, Action::Removed), vec![old.clone()]);
    assert_eq!((report.scanned, report.referenced, report.fresh, report.orphans), (3, 1, 1, 1), "{report}");
    assert_eq!((report.left_alone, report.failed), (0, 0));
    assert_eq!(blobs(&app).await, {
        let mut left = vec![kept, fresh];
        left.sort();
        left
    });
    assert_eq!(download(&app, "files/kept.txt").await, "kept");
}

async fn a_version_left_by_a_failed_removal_is_swept(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    assert_eq!(
        upload(&app, Some(&key), "files", "a.txt", b"first".to_vec(), "text/plain", false).await.0,
        200
    );
    let first = current(&app, "files", "a.txt").await;
    assert_eq!(
        upload(&app, Some(&key), "files", "a.txt", b"second".to_vec(), "text/plain", true).await.0,
        200
    );
    let second = current(&app, "files", "a.txt").await;
    // The upsert removed the first version; put it back as if that had failed.
    orphan(&app, &first).await;
    // Another bucket's orphan, outside the sweep's scope.
    let elsewhere = format!("other/x.txt/{}", version());
    orphan(&app, &elsewhere).await;

    let (report, events) = sweep(&app, Some("files"), Duration::ZERO, false).await;
    assert_eq!(located(&events, Action::Removed), vec![first]);
    assert_eq!((report.scanned, report.referenced, report.orphans), (2, 1, 1), "{report}");
    let mut left = vec![second, elsewhere];
    left.sort();
    assert_eq!(blobs(&app).await, left);
    assert_eq!(download(&app, "files/a.txt").await, "second");
}

async fn staged_leftovers_are_swept(app: StorageApp) {
    let staged = format!("files/big.bin/{}#1", version());
    match app.backend {
        // What `LocalFileSystem` leaves when killed mid-write; its own
        // listing and delete refuse such names.
        Backend::Local => {
            let file = storage_root(&app).join(&staged);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(&file, b"half an upload").expect("write");
        }
        // S3 stages nothing under the object's key; a `#<n>` object is a
        // leftover carried over from a local store.
        Backend::S3 => orphan(&app, &staged).await,
    }
    let (report, events) = sweep(&app, None, Duration::ZERO, false).await;
    assert_eq!(located(&events, Action::Removed), vec![staged]);
    assert_eq!((report.scanned, report.orphans), (1, 1), "{report}");
    if app.backend == Backend::Local {
        let files = files_under(&storage_root(&app));
        assert!(files.is_empty(), "{files:?}");
        assert!(!storage_root(&app).join("files").exists(), "the emptied folders go too");
    } else {
        assert!(blobs(&app).await.is_empty());
    }
}

async fn a_dry_run_removes_nothing(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    assert_eq!(
        upload(&app, Some(&key), "files", "kept.txt", b"kept".to_vec(), "text/plain", false).await.0,
        200
    );
    let lost = format!("files/lost.txt/{}", version());
    orphan(&app, &lost).await;
    let before = blobs(&app).await;

    let (report, events) = sweep(&app, None, Duration::ZERO, true).await;
    assert_eq!(located(&events, Action::WouldRemove), vec![lost]);
    assert!(located(&events, Action::Removed).is_empty());
    assert_eq!((report.dry_run, report.referenced, report.orphans), (true, 1, 1), "{report}");
    assert_eq!(blobs(&app).await, before);
}

async fn a_row_committed_after_the_listing_keeps_its_bytes(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    // Bytes written, row not committed yet: with no grace at all, an orphan.
    let late = version();
    let location = format!("files/late.txt/{late}");
    orphan(&app, &location).await;
    let sweep = Sweep { db: &app.state.db, store: &app.state.store, grace: Duration::ZERO, dry_run: false };
    let listed: Vec<_> = futures::StreamExt::collect::<Vec<_>>(sweep.listing(None).expect("listing")).await;
    let listed: Vec<_> = listed.into_iter().map(|item| item.expect("listed")).collect();
    assert_eq!(listed.len(), 1);

    // The upload commits between the listing and the removal.
    app.admin()
        .await
        .execute(
            "insert into storage.objects (bucket_id, name, version, metadata) \
             values ('files', 'late.txt', $1, '{\"size\": 14, \"mimetype\": \"text/plain\"}')",
            &[&late],
        )
        .await
        .expect("commit the row");
    let mut report = Report::default();
    let mut events = Vec::new();
    sweep.page(listed, &mut report, &mut |event: &Event| events.push(event.clone())).await.expect("page");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!((report.referenced, report.orphans), (1, 0), "{report}");
    assert_eq!(blobs(&app).await, vec![location]);
    assert_eq!(download(&app, "files/late.txt").await, "orphaned bytes");
}

async fn blobs_outside_the_layout_are_left_alone(app: StorageApp) {
    let foreign = ["files/k.txt/not-a-version".to_owned(), "files/readme.txt".to_owned()];
    for location in &foreign {
        orphan(&app, location).await;
    }
    let mut left_alone = foreign.to_vec();
    if app.backend == Backend::Local {
        // Named like a version, but a symlink: not something the gateway wrote.
        let link = format!("files/link.txt/{}", version());
        let file = storage_root(&app).join(&link);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(storage_root(&app).join("files/readme.txt"), &file).expect("symlink");
        assert!(file.exists());
        left_alone.insert(1, link);
    }
    let (report, events) = sweep(&app, None, Duration::ZERO, false).await;
    assert_eq!(located(&events, Action::LeftAlone), left_alone);
    assert_eq!((report.left_alone, report.orphans), (left_alone.len() as u64, 0), "{report}");
    assert_eq!(blobs(&app).await.len(), left_alone.len());
}

async fn a_fresh_copy_of_an_old_object_counts_as_fresh(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    assert_eq!(upload(&app, Some(&key), "files", "a.txt", b"old".to_vec(), "text/plain", false).await.0, 200);
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let copied = request(&app, Method::POST, "/object/copy", Some(&key))
        .json(&serde_json::json!({"bucketId": "files", "sourceKey": "a.txt", "destinationKey": "b.txt"}))
        .send()
        .await
        .expect("copy");
    assert_eq!(copied.status(), 200);
    let copy = current(&app, "files", "b.txt").await;
    if app.backend == Backend::Local {
        // `LocalFileSystem` copies with a hard link, which keeps the source's
        // mtime: by mtime alone the copy's bytes, written before its row
        // committed, would have looked 3 s old.
        let modified =
            std::fs::metadata(storage_root(&app).join(&copy)).expect("stat").modified().expect("mtime");
        assert!(modified.elapsed().expect("elapsed") >= Duration::from_secs(3));
    }
    let sweep = Sweep { db: &app.state.db, store: &app.state.store, grace: Duration::ZERO, dry_run: true };
    let listed: Vec<_> = futures::StreamExt::collect::<Vec<_>>(sweep.listing(None).expect("listing")).await;
    let listed = listed.into_iter().map(|item| item.expect("listed")).find(|item| item.location == copy);
    let age = chrono::Utc::now() - listed.expect("the copy is listed").last_modified;
    assert!(age < chrono::Duration::seconds(2), "{age}");
}

async fn sweeps_racing_uploads_never_take_a_rows_bytes(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let uploads = async {
        for round in 0..15u8 {
            for name in ["a.txt", "b.txt", "c.txt"] {
                let body = vec![b'a' + round; 100 + usize::from(round)];
                assert_eq!(upload(&app, Some(&key), "files", name, body, "text/plain", true).await.0, 200);
            }
        }
    };
    let sweeps = async {
        for _ in 0..15 {
            sweep(&app, None, Duration::from_secs(2), false).await;
        }
    };
    tokio::join!(uploads, sweeps);
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(download(&app, &format!("files/{name}")).await, "o".repeat(114), "{name}");
    }
}

on_both_backends!(
    a_fresh_copy_of_an_old_object_counts_as_fresh,
    sweeps_racing_uploads_never_take_a_rows_bytes,
    old_orphans_go_while_fresh_and_referenced_blobs_stay,
    a_version_left_by_a_failed_removal_is_swept,
    staged_leftovers_are_swept,
    a_dry_run_removes_nothing,
    a_row_committed_after_the_listing_keeps_its_bytes,
    blobs_outside_the_layout_are_left_alone,
);

#[tokio::test]
async fn one_sweep_at_a_time() {
    let app = spawn_storage_app(Backend::Local).await;
    let first = try_lock(&app.state.db).await.expect("lock").expect("free");
    assert!(try_lock(&app.state.db).await.expect("lock").is_none(), "a second sweep waits its turn");
    drop(first);
    // The lock goes with its connection, which closes in the background.
    for _ in 0..50 {
        if try_lock(&app.state.db).await.expect("lock").is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the lock was never released");
}

#[tokio::test]
async fn serve_sweeps_at_its_interval() {
    let app = spawn_storage_app(Backend::Local).await;
    orphan(&app, &format!("files/lost.txt/{}", version())).await;
    let every = Duration::from_millis(200);
    let sweeper = gateway::storage::sweep::spawn_periodic(
        app.state.db.clone(),
        app.state.store.clone(),
        Duration::ZERO,
        every,
    );
    let mut swept = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if blobs(&app).await.is_empty() {
            swept = true;
            break;
        }
    }
    sweeper.abort();
    assert!(swept, "the periodic sweep never removed the orphan");
}

#[tokio::test]
async fn the_sweep_command_prints_what_it_removes() {
    let app = spawn_storage_app(Backend::Local).await;
    let lost = format!("files/lost.txt/{}", version());
    orphan(&app, &lost).await;
    orphan(&app, "files/readme.txt").await;
    let api = common::cluster().cluster.pg_config("authenticator");
    let host = match &api.get_hosts()[0] {
        tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        tokio_postgres::config::Host::Tcp(name) => name.clone(),
    };
    let database_url =
        format!("host={host} port={} user=authenticator dbname={}", api.get_ports()[0], app.database);
    let data = tempfile::tempdir().expect("tempdir");
    let run = |dry_run: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"));
        command
            .args(["storage", "sweep", "--storage-sweep-grace", "0"])
            .arg("--storage-root")
            .arg(storage_root(&app))
            .arg("--data-dir")
            .arg(data.path())
            .env("DATABASE_URL", &database_url)
            .env("JWT_SECRET", common::SECRET)
            .env_remove("DATABASE_ADMIN_URL")
            .env_remove("STORAGE_S3_BUCKET");
        if dry_run {
            command.arg("--dry-run");
        }
        let output = command.output().expect("run gateway storage sweep");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("utf-8")
    };
    let printed = run(true);
    assert!(printed.contains(&format!("would remove  {lost}")), "{printed}");
    assert!(printed.contains("left alone    files/readme.txt"), "{printed}");
    assert!(
        printed.contains("2 blobs: 0 referenced, 0 within the grace period, 1 orphans would be removed"),
        "{printed}"
    );
    assert_eq!(blobs(&app).await.len(), 2);
    let printed = run(false);
    assert!(printed.contains(&format!("removed       {lost}")), "{printed}");
    assert_eq!(blobs(&app).await, vec!["files/readme.txt".to_owned()]);
}
