//! `gateway backup` and `gateway restore`: the shop is backed up while writes
//! go on, restored into a new data directory, served from there, and its rows
//! and stored bytes read back.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use gateway::backup::{self, Source};
use gateway::config::Secret;
use gateway::embedded::{Cluster, SUPERUSER};
use md5::{Digest, Md5};
use serde_json::Value;

use common::auth::{access_token, refresh_token};
use common::s3::S3Server;
use common::{Options, SECRET, TestApp, cluster, connect, spawn_app, spawn_app_with, test_config};

const BUCKET: &str = "photos";
const EMAIL: &str = "ana@tienda.example";
const PASSWORD: &str = "una contraseña larga";

/// The body of the `n`th write of `name`: distinct for every version.
fn body(name: &str, n: u64) -> Vec<u8> {
    format!("{name} version {n}\n").repeat(50 + (n % 7) as usize * 100).into_bytes()
}

fn storage(app: &TestApp, method: reqwest::Method, key: &str) -> reqwest::RequestBuilder {
    app.client
        .request(method, format!("{}/storage/v1/object/{BUCKET}/{key}", app.address))
        .header("apikey", &app.service_key)
        .bearer_auth(&app.service_key)
}

async fn upload(app: &TestApp, key: &str, bytes: Vec<u8>, upsert: bool) {
    let response = storage(app, reqwest::Method::POST, key)
        .header("content-type", "text/plain")
        .header("x-upsert", if upsert { "true" } else { "false" })
        .body(bytes)
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), 200, "upload {key}: {}", response.text().await.unwrap_or_default());
}

async fn download(app: &TestApp, key: &str) -> Vec<u8> {
    let response = storage(app, reqwest::Method::GET, key).send().await.expect("download");
    assert_eq!(response.status(), 200, "download {key}");
    response.bytes().await.expect("bytes").to_vec()
}

/// The shop's catalogue, a bucket and a few objects that the load leaves alone.
async fn shop_with_files() -> TestApp {
    let app = spawn_app().await;
    app.admin()
        .await
        .batch_execute(&format!(
            "insert into public.product_categories values ('Teclados'), ('Ratones');
             insert into public.brands (name) values ('Acme'), ('Globex');
             insert into public.products (name, price, quantity, category, brand_id)
               select 'Producto ' || n, n * 10, n, case when n % 2 = 0 then 'Teclados' else 'Ratones' end, 1
               from generate_series(1, 40) n;
             insert into storage.buckets (id, name) values ('{BUCKET}', '{BUCKET}');"
        ))
        .await
        .expect("the shop");
    for n in 0..5 {
        upload(&app, &format!("fixed/{n}.txt"), body("fixed", n), false).await;
        upload(&app, &format!("changing/{n}.txt"), body("changing", 0), false).await;
    }
    app
}

/// Writes until stopped: a brand per round, a new object, an overwrite of a
/// `changing/` object and the deletion of an earlier new one. Returns the
/// rounds done.
async fn write_load(app: Arc<TestApp>, stop: Arc<AtomicBool>, rounds: Arc<AtomicU64>) {
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let brand = app
            .client
            .post(format!("{}/rest/v1/brands", app.address))
            .header("apikey", &app.service_key)
            .bearer_auth(&app.service_key)
            .json(&serde_json::json!({ "name": format!("load {n}") }))
            .send()
            .await
            .expect("insert");
        assert_eq!(brand.status(), 201);
        upload(&app, &format!("load/{n}.txt"), body("load", n), false).await;
        upload(&app, &format!("changing/{}.txt", n % 5), body("changing", n), true).await;
        if n > 2 {
            let deleted = storage(&app, reqwest::Method::DELETE, &format!("load/{}.txt", n - 2))
                .send()
                .await
                .expect("delete");
            assert_eq!(deleted.status(), 200);
        }
        rounds.store(n, Ordering::Relaxed);
    }
}

fn superuser_of(app: &TestApp) -> tokio_postgres::Config {
    let mut config = cluster().cluster.pg_config(SUPERUSER);
    config.dbname(&app.database);
    config
}

async fn take_backup(app: &TestApp, out: &Path) -> backup::Summary {
    let bindir = gateway::embedded::find_bindir().expect("PostgreSQL's programs");
    let source = Source {
        admin: &superuser_of(app),
        bindir: &bindir,
        store: &app.state.store,
        secret: &Secret::new(SECRET),
        staff_password: None,
    };
    backup::backup(source, out).await.expect("backup")
}

/// The embedded cluster of a restored data directory, stopped when dropped.
struct Restored {
    cluster: Cluster,
    data_dir: PathBuf,
}

impl Drop for Restored {
    fn drop(&mut self) {
        let _ = self.cluster.stop();
    }
}

async fn restore_into(archive: &Path, name: &str) -> (Restored, backup::Restored) {
    // Inside the test cluster's folder, which the postgres user may enter
    // when the tests run as root, and which is removed with it.
    let data_dir = cluster().dir.join(name);
    let restored = backup::restore(archive, &data_dir, &test_config().storage, &data_dir.join("storage"))
        .await
        .expect("restore");
    let cluster = Cluster::new(&data_dir).expect("cluster");
    cluster.start().expect("start the restored cluster");
    (Restored { cluster, data_dir }, restored)
}

async fn serve_restored(restored: &Restored) -> TestApp {
    let mut config = test_config();
    config.storage_root = Some(restored.data_dir.join("storage"));
    config.data_dir = restored.data_dir.clone();
    let api = restored.cluster.pg_config("authenticator");
    spawn_app_with(Options { config, api: Some(api), routes: None, owner: None }).await
}

async fn rows(client: &tokio_postgres::Client, sql: &str) -> Vec<String> {
    client.query(sql, &[]).await.expect(sql).iter().map(|row| row.get::<_, String>(0)).collect()
}

const BRANDS: &str = "select row_to_json(b)::text from public.brands b order by id";
const PRODUCTS: &str = "select row_to_json(p)::text from public.products p order by id";
const OBJECTS: &str = "select name || ' ' || version || ' ' || (metadata ->> 'eTag') || ' ' || \
                       (metadata ->> 'size') from storage.objects order by name";

#[tokio::test]
async fn the_shop_backed_up_under_write_load_restores_with_every_row_and_its_bytes() {
    let app = Arc::new(shop_with_files().await);
    app.confirmed_user(EMAIL, PASSWORD).await;
    let session = app.sign_in(EMAIL, PASSWORD).await;
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicU64::new(0));
    let load = tokio::spawn(write_load(app.clone(), stop.clone(), rounds.clone()));
    while rounds.load(Ordering::Relaxed) < 10 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let source = app.admin().await;
    let brands_before = rows(&source, BRANDS).await;
    let folder = tempfile::tempdir().expect("tempdir");
    let archive = folder.path().join("shop.backup");
    let before = rounds.load(Ordering::Relaxed);
    let summary = take_backup(&app, &archive).await;
    let during = rounds.load(Ordering::Relaxed) - before;
    // Writes went on after the backup ended, then stop.
    let after = rounds.load(Ordering::Relaxed);
    while rounds.load(Ordering::Relaxed) < after + 3 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    stop.store(true, Ordering::Relaxed);
    load.await.expect("the load");
    assert!(during > 0, "writes went on while the backup ran");
    assert_eq!(std::fs::metadata(&archive).expect("archive").permissions().mode() & 0o777, 0o600);
    assert!(!folder.path().join("shop.backup.partial").exists());

    let (restored, report) = restore_into(&archive, "restored-shop").await;
    assert_eq!(report.summary, summary);
    assert_eq!(report.manifest["objects"], summary.objects);
    let secret = restored.data_dir.join("jwt_secret");
    assert_eq!(std::fs::read_to_string(&secret).expect("jwt_secret"), SECRET);
    assert_eq!(std::fs::metadata(&secret).expect("secret").permissions().mode() & 0o777, 0o600);

    let copy = serve_restored(&restored).await;
    let mut restored_config = restored.cluster.pg_config(SUPERUSER);
    restored_config.dbname("postgres");
    let target = connect(&restored_config).await;

    // Rows: the catalogue as it was; the brands a prefix of the source's,
    // holding every brand written before the backup began.
    assert_eq!(rows(&target, PRODUCTS).await, rows(&source, PRODUCTS).await);
    let brands = rows(&target, BRANDS).await;
    let brands_now = rows(&source, BRANDS).await;
    assert!(brands.len() >= brands_before.len() && brands.len() < brands_now.len(), "{}", brands.len());
    assert_eq!(brands, brands_now[..brands.len()]);
    let users = "select id::text from auth.users order by id";
    assert_eq!(rows(&target, users).await, rows(&source, users).await);

    // Objects: every row's bytes are there, and are that version's.
    let objects = rows(&target, OBJECTS).await;
    assert_eq!(objects.len() as u64, summary.objects);
    for object in &objects {
        let [name, _, etag, size] = object.split(' ').collect::<Vec<_>>()[..] else { panic!("{object}") };
        let bytes = download(&copy, name).await;
        assert_eq!(bytes.len().to_string(), size, "{name}");
        assert_eq!(format!("\"{}\"", hex::encode(Md5::digest(&bytes))), etag, "{name}");
    }
    for n in 0..5 {
        let name = format!("fixed/{n}.txt");
        assert_eq!(download(&copy, &name).await, body("fixed", n), "{name}");
    }

    // Served from the restored directory: the REST API reads the rows, and
    // the tokens issued before the backup (signed with a key sealed by the
    // JWT secret the archive kept) still work, as do the password and the
    // refresh token.
    let listed = copy
        .client
        .get(format!("{}/rest/v1/brands?select=name", copy.address))
        .header("apikey", &copy.service_key)
        .bearer_auth(&copy.service_key)
        .send()
        .await
        .expect("brands");
    assert_eq!(listed.status(), 200);
    let listed: Value = listed.json().await.expect("json");
    assert_eq!(listed.as_array().map(Vec::len), Some(brands.len()));
    let user = copy.send(copy.as_user(reqwest::Method::GET, "/user", access_token(&session))).await;
    assert_eq!((user.status, user.body["email"].as_str()), (200, Some(EMAIL)), "{:?}", user.body);
    assert_eq!(copy.refresh(refresh_token(&session)).await.status, 200);
    copy.sign_in(EMAIL, PASSWORD).await;
}

#[tokio::test]
async fn the_bytes_of_a_deleted_object_stay_while_a_backup_holds_the_store() {
    let app = shop_with_files().await;
    let root = app.state.store.local_root().expect("local disk").to_path_buf();
    let blobs =
        |folder: &str| std::fs::read_dir(root.join(BUCKET).join(folder)).map_or(0, |entries| entries.count());
    let holder = connect(&superuser_of(&app)).await;
    holder.execute("select pg_advisory_lock($1)", &[&gateway::storage::hold::HOLD_KEY]).await.expect("hold");
    let deleted = storage(&app, reqwest::Method::DELETE, "fixed/0.txt").send().await.expect("delete");
    assert_eq!(deleted.status(), 200);
    upload(&app, "changing/0.txt", body("changing", 1), true).await;
    assert_eq!(blobs("fixed/0.txt"), 1, "the deleted version's bytes stay");
    assert_eq!(blobs("changing/0.txt"), 2, "the replaced version's bytes stay beside the new");

    holder
        .execute("select pg_advisory_unlock($1)", &[&gateway::storage::hold::HOLD_KEY])
        .await
        .expect("release");
    let deleted = storage(&app, reqwest::Method::DELETE, "fixed/1.txt").send().await.expect("delete");
    assert_eq!(deleted.status(), 200);
    assert_eq!(blobs("fixed/1.txt"), 0, "with no backup, a deletion removes the bytes");
}

#[tokio::test]
async fn a_restore_refuses_a_data_directory_that_is_not_empty() {
    let app = shop_with_files().await;
    let folder = tempfile::tempdir().expect("tempdir");
    let archive = folder.path().join("shop.backup");
    take_backup(&app, &archive).await;
    let data_dir = folder.path().join("used");
    std::fs::create_dir_all(&data_dir).expect("mkdir");
    std::fs::write(data_dir.join("jwt_secret"), "another").expect("a file");
    let error = backup::restore(&archive, &data_dir, &test_config().storage, &data_dir.join("storage"))
        .await
        .expect_err("refused");
    assert!(error.to_string().contains("is not empty"), "{error}");
    assert_eq!(std::fs::read_to_string(data_dir.join("jwt_secret")).expect("kept"), "another");
}

#[tokio::test]
async fn scheduled_backups_keep_the_newest_and_leave_other_files_alone() {
    let app = shop_with_files().await;
    let folder = tempfile::tempdir().expect("tempdir");
    let backups = folder.path().join("backups");
    std::fs::create_dir_all(&backups).expect("mkdir");
    std::fs::write(backups.join("notes.txt"), "the operator's").expect("a file of the operator's");
    let schedule = backup::Schedule {
        admin: superuser_of(&app),
        bindir: gateway::embedded::find_bindir().expect("PostgreSQL's programs"),
        store: app.state.store.clone(),
        secret: Secret::new(SECRET),
        staff_password_file: folder.path().join("staff_password"),
        target: backup::Target::Folder(backups.clone()),
        every: std::time::Duration::from_secs(1),
        keep: 2,
    };
    let mut written = Vec::new();
    for round in 0..3 {
        let (path, summary, removed) = backup::scheduled_once(&schedule).await.expect("scheduled backup");
        assert_eq!(summary.objects, 10);
        assert_eq!(removed, usize::from(round == 2), "round {round}");
        written.push(Path::new(&path).file_name().expect("name").to_string_lossy().into_owned());
        // Archives are named to the second.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }
    let mut left: Vec<String> = std::fs::read_dir(&backups)
        .expect("list")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [written[1].clone(), written[2].clone(), "notes.txt".to_owned()]);
    assert_eq!(std::fs::metadata(&backups).expect("folder").permissions().mode() & 0o777, 0o700);
}

#[tokio::test]
async fn scheduled_backups_go_to_an_s3_bucket_keep_the_newest_there_and_restore() {
    let app = shop_with_files().await;
    let s3 = S3Server::start(&["backups"]);
    // The operator's objects: one beside the archives, one under another
    // prefix with an archive's name. Neither is the schedule's.
    let bucket = s3.root.path().join("backups");
    std::fs::create_dir_all(bucket.join("nightly")).expect("prefix");
    std::fs::create_dir_all(bucket.join("other")).expect("prefix");
    std::fs::write(bucket.join("nightly/notes.txt"), "the operator's").expect("notes");
    std::fs::write(bucket.join("other/gateway-20000101T000000Z.backup"), "kept").expect("other");
    let staging = tempfile::tempdir().expect("tempdir");
    let destination: backup::Destination = "s3://backups/nightly/".parse().expect("destination");
    assert_eq!(destination.to_string(), "s3://backups/nightly");
    let mut storage = test_config().storage;
    s3.configure(&mut storage, "files");
    let target = backup::Target::new(&destination, &storage, staging.path()).expect("target");
    let schedule = backup::Schedule {
        admin: superuser_of(&app),
        bindir: gateway::embedded::find_bindir().expect("PostgreSQL's programs"),
        store: app.state.store.clone(),
        secret: Secret::new(SECRET),
        staff_password_file: staging.path().join("staff_password"),
        target,
        every: std::time::Duration::from_secs(1),
        keep: 2,
    };
    let mut written = Vec::new();
    for round in 0..3 {
        let (location, summary, removed) = backup::scheduled_once(&schedule).await.expect("scheduled backup");
        assert!(location.starts_with("s3://backups/nightly/gateway-"), "{location}");
        assert_eq!(summary.objects, 10);
        assert_eq!(removed, usize::from(round == 2), "round {round}");
        written.push(location.rsplit('/').next().expect("name").to_owned());
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }
    // s3s-fs keeps each object as a file under the bucket's folder.
    let names = |folder: PathBuf| {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .expect("list")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.'))
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(bucket.join("nightly")),
        [written[1].clone(), written[2].clone(), "notes.txt".to_owned()]
    );
    assert_eq!(names(bucket.join("other")), ["gateway-20000101T000000Z.backup"]);
    assert!(
        names(staging.path().join("backup-staging")).is_empty(),
        "nothing is left staged once the archive is sent"
    );

    // The newest archive, read back from the bucket, restores.
    let archive = bucket.join("nightly").join(&written[2]);
    let (restored, report) = restore_into(&archive, "from-s3").await;
    assert_eq!(report.summary.objects, 10);
    let client = connect(&restored.cluster.pg_config(SUPERUSER)).await;
    assert_eq!(rows(&client, "select count(*)::text from public.products").await, ["40"]);
}

#[tokio::test]
async fn a_backup_destination_is_a_folder_or_an_s3_bucket_with_a_prefix() {
    let cases = [
        ("/srv/backups", Ok(backup::Destination::Folder("/srv/backups".into()))),
        ("s3://b", Ok(backup::Destination::S3 { bucket: "b".into(), prefix: String::new() })),
        ("s3://b/a/c/", Ok(backup::Destination::S3 { bucket: "b".into(), prefix: "a/c".into() })),
        ("s3://", Err("names no bucket")),
        ("s3:///x", Err("names no bucket")),
        ("s3://b/../x", Err("cannot hold . or ..")),
        ("", Err("is empty")),
    ];
    for (text, expected) in cases {
        let parsed = text.parse::<backup::Destination>();
        match expected {
            Ok(destination) => assert_eq!(parsed.as_ref(), Ok(&destination), "{text}"),
            Err(message) => {
                assert!(parsed.as_ref().is_err_and(|e| e.contains(message)), "{text}: {parsed:?}");
            }
        }
    }
}

#[tokio::test]
async fn the_commands_write_an_archive_and_refuse_to_restore_over_a_used_directory() {
    let app = shop_with_files().await;
    let folder = tempfile::tempdir().expect("tempdir");
    let archive = folder.path().join("shop.backup");
    let url = cluster().cluster.superuser_url().replacen("/postgres?", &format!("/{}?", app.database), 1);
    let root = app.state.store.local_root().expect("local disk").to_path_buf();
    let gateway = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
            .args(args)
            .env_remove("RUST_LOG")
            .env("JWT_SECRET", SECRET)
            .output()
            .expect("gateway runs")
    };
    let written = gateway(&[
        "backup".as_ref(),
        "--database-url".as_ref(),
        url.as_ref(),
        "--storage-root".as_ref(),
        root.as_os_str(),
        "--out".as_ref(),
        archive.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&written.stdout);
    assert!(written.status.success(), "{stdout}{}", String::from_utf8_lossy(&written.stderr));
    assert!(stdout.contains("and 10 objects"), "{stdout}");
    let mut names = Vec::new();
    for entry in
        tar::Archive::new(std::fs::File::open(&archive).expect("archive")).entries().expect("entries")
    {
        names.push(entry.expect("entry").path().expect("path").to_string_lossy().into_owned());
    }
    assert_eq!(names[..4], ["manifest.json", "jwt_secret", "roles.sql", "database.dump"]);
    assert!(names[4..].iter().all(|name| name.starts_with("objects/photos/")), "{names:?}");
    assert_eq!(names.len(), 4 + 10);

    let used = folder.path().join("used");
    std::fs::create_dir_all(used.join("postgres")).expect("a used data directory");
    let refused = gateway(&[
        "restore".as_ref(),
        "--from".as_ref(),
        archive.as_os_str(),
        "--data-dir".as_ref(),
        used.as_os_str(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("is not empty: a restore makes a new data directory"), "{stderr}");
}
