//! `gateway import`: a hosted project, as `supabase db dump` writes it, moves
//! in. The dump (`tests/fixtures/import/`) is a tiny project in Supabase's
//! layout: its `auth` and `storage` rows have the columns of GoTrue's and
//! Storage's published migrations (some this database lacks), with tables
//! this gateway does not have (`auth.oauth_clients`, `storage.buckets_vectors`,
//! ...), extensions this PostgreSQL lacks, `SET transaction_timeout` and
//! pg_dump 17.6's `\restrict`; its objects are in Storage's file-backend
//! layout (`<FILE_STORAGE_BACKEND_PATH>/stub/stub/<bucket>/<name>/<version>`).

mod common;
mod storage_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use gateway::config::Secret;
use gateway::jwt::JwtKeys;
use reqwest::Method;
use serde_json::{Value, json};

use common::auth::access_token;
use common::{Options, TestApp, cluster, connect, fresh_database, repo_root, spawn_app_with, test_config};

/// The hosted project's JWT secret, which signed its tokens and API keys.
const HOSTED_SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";
const ANA: &str = "a11ce000-0000-4000-8000-000000000001";
const BEA: &str = "b0b00000-0000-4000-8000-000000000002";
/// Ana's password; the dump holds its `$2a$10$` GoTrue hash.
const PASSWORD: &str = "correct horse battery staple";

fn fixtures() -> PathBuf {
    repo_root().join("gateway/tests/fixtures/import")
}

/// A fresh database of the test cluster, its superuser URL, and a data
/// directory for the import.
async fn target() -> (String, String, PathBuf) {
    let database = fresh_database().await;
    let url = cluster().cluster.superuser_url().replacen("/postgres?", &format!("/{database}?"), 1);
    let data_dir = cluster().dir.join(format!("import-{database}"));
    (database, url, data_dir)
}

/// Roles belong to the whole cluster, which the tests share: two imports at
/// once would both see the dump's role missing and both make it. One runs at
/// a time, as on a real server.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `gateway import` over `url` with the fixture's files, `schema` in place of
/// the fixture's, and `extra` arguments.
fn import(url: &str, data_dir: &Path, schema: Option<&Path>, extra: &[&str]) -> Output {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let files = fixtures();
    let schema = schema.map_or_else(|| files.join("schema.sql"), Path::to_path_buf);
    std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("import")
        .args(["--database-url", url])
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--storage-root")
        .arg(data_dir.join("storage"))
        .arg("--sql-root")
        .arg(repo_root())
        .arg("--roles")
        .arg(files.join("roles.sql"))
        .arg("--schema")
        .arg(schema)
        .arg("--data")
        .arg(files.join("data.sql"))
        .args(extra)
        .env_remove("RUST_LOG")
        .env_remove("JWT_SECRET")
        .output()
        .expect("gateway runs")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

async fn superuser(database: &str) -> tokio_postgres::Client {
    let mut config = cluster().cluster.pg_config("postgres");
    config.dbname(database);
    connect(&config).await
}

/// `gateway serve` over the imported database, as `--data-dir` keeps it.
async fn serve(database: &str, data_dir: &Path) -> TestApp {
    let mut config = test_config();
    let secret = std::fs::read_to_string(data_dir.join("jwt_secret")).expect("the kept JWT secret");
    config.jwt_secret = Some(Secret::new(secret));
    config.data_dir = data_dir.to_path_buf();
    config.storage_root = Some(data_dir.join("storage"));
    let mut api = cluster().cluster.pg_config("authenticator");
    api.dbname(database);
    spawn_app_with(Options { config, api: Some(api), routes: None, owner: None }).await
}

/// A token as the hosted project's GoTrue signed it: HS256 with its JWT
/// secret, no `kid`.
fn hosted_token(claims: Value) -> String {
    JwtKeys::hs256(&Secret::new(HOSTED_SECRET), None).expect("keys").sign_legacy(&claims).expect("sign")
}

fn rest(app: &TestApp, method: Method, path: &str, apikey: &str, bearer: &str) -> reqwest::RequestBuilder {
    app.client
        .request(method, format!("{}/rest/v1{path}", app.address))
        .header("apikey", apikey)
        .bearer_auth(bearer)
}

async fn note_bodies(app: &TestApp, apikey: &str, bearer: &str) -> Vec<String> {
    let response =
        rest(app, Method::GET, "/notes?select=body&order=id", apikey, bearer).send().await.expect("notes");
    assert_eq!(response.status(), 200);
    let rows: Vec<Value> = response.json().await.expect("json");
    rows.iter().map(|row| row["body"].as_str().expect("body").to_owned()).collect()
}

#[tokio::test]
async fn a_hosted_project_moves_in_and_its_passwords_policies_tokens_and_files_work() {
    let (database, url, data_dir) = target().await;
    let output = import(
        &url,
        &data_dir,
        None,
        &["--objects", fixtures().join("objects").to_str().expect("path"), "--jwt-secret", HOSTED_SECRET],
    );
    let said = text(&output);
    assert!(output.status.success(), "{said}");

    // What the hosted dump carries that this database lacks, each named.
    let version: i32 = superuser(&database)
        .await
        .query_one("select current_setting('server_version_num')::int", &[])
        .await
        .expect("version")
        .get(0);
    let mut expected = vec![
        "extension pg_graphql: not available on this PostgreSQL",
        "extension supabase_vault: not available on this PostgreSQL",
        "role supabase_admin: this database has no such role: 2 statements naming it left out",
        "role supabase_admin: this database has no such role: 1 statement naming it left out (owners stay the importing role, grants to it are dropped), the first: GRANT \"reporting\" TO \"postgres\"",
        "auth.oauth_clients: 1 row left out: OAuth clients and their grants are not carried over: register the clients again",
        "auth.one_time_tokens: 1 row left out: pending confirmation, recovery and magic links",
        "auth.refresh_tokens: 1 row left out: refresh tokens are kept here as keyed hashes",
        "auth.audit_log_entries: 1 row left out",
        "auth.sso_providers: 0 rows left out: SAML identity providers are not carried over: register them again (`supabase sso add`); their users then sign in to new accounts",
        "storage.buckets_vectors: 0 rows left out: analytics and vector buckets are not built here",
        "storage.prefixes: 1 row left out",
        "storage.buckets: columns this database lacks, left out: avif_autodetection, type",
        "storage.objects: columns this database lacks, left out: level",
        "auth.users: 2 rows",
        "auth.identities: 2 rows",
        "auth.sessions: 1 row",
        "storage.objects: 2 rows",
        "storage.objects without a version: 1 row",
        "copied 2 objects",
    ];
    if version < 170000 {
        expected.push("setting transaction_timeout: this PostgreSQL (");
    }
    for line in expected {
        assert!(said.contains(line), "the report says {line:?}:\n{said}");
    }
    let secret_file = data_dir.join("jwt_secret");
    assert_eq!(std::fs::read_to_string(&secret_file).expect("secret"), HOSTED_SECRET);
    assert_eq!(std::fs::metadata(&secret_file).expect("secret").permissions().mode() & 0o777, 0o600);

    let app = serve(&database, &data_dir).await;

    // Ana signs in with her old password; the policies that call
    // auth.uid(), auth.jwt() and auth.role() decide what she reads and writes.
    let session = app.sign_in("ana@example.com", PASSWORD).await;
    let token = access_token(&session).to_owned();
    let mine = ["Ana's first note", "Ana's second note", "Bea shares this with Ana"];
    assert_eq!(note_bodies(&app, &app.anon_key, &token).await, mine);
    assert_eq!(note_bodies(&app, &app.anon_key, &app.anon_key).await, Vec::<String>::new());
    let wrong = app.password_grant("ana@example.com", "not her password").await;
    assert_eq!(wrong.status, 400, "{:?}", wrong.body);

    // The hosted project's tokens and API keys, signed with its secret.
    let now = gateway::jwt::now();
    let hosted_anon = hosted_token(json!({
        "iss": "supabase", "ref": "abcdefghijklmnopqrst", "role": "anon", "iat": now - 86_400, "exp": now + 86_400 * 365,
    }));
    let hosted_session = hosted_token(json!({
        "iss": "https://abcdefghijklmnopqrst.supabase.co/auth/v1", "sub": ANA, "aud": "authenticated",
        "role": "authenticated", "email": "ana@example.com", "session_id": "5e550000-0000-4000-8000-000000000001",
        "aal": "aal1", "amr": [{"method": "password", "timestamp": now - 600}], "is_anonymous": false,
        "iat": now - 600, "exp": now + 3000,
    }));
    assert_eq!(note_bodies(&app, &hosted_anon, &hosted_session).await, mine);
    let user = app
        .send(
            app.client
                .get(format!("{}/auth/v1/user", app.address))
                .header("apikey", &hosted_anon)
                .bearer_auth(&hosted_session),
        )
        .await;
    assert_eq!((user.status, user.body["id"].as_str()), (200, Some(ANA)), "{:?}", user.body);

    // Writes: a signed-in user's row passes auth.role(); anon's does not.
    let insert = |bearer: &str| {
        rest(&app, Method::POST, "/notes", &app.anon_key, bearer)
            .json(&json!({"user_id": ANA, "body": "written after the move"}))
            .send()
    };
    assert_eq!(insert(&token).await.expect("insert").status(), 201);
    assert_eq!(insert(&app.anon_key).await.expect("insert").status(), 401);
    let counted = rest(&app, Method::POST, "/rpc/my_note_count", &app.anon_key, &token)
        .json(&json!({}))
        .send()
        .await
        .expect("rpc");
    assert_eq!(counted.json::<Value>().await.expect("json"), json!(4));
    let bea_sees: i64 = superuser(&database)
        .await
        .query_one("select count(*) from public.notes where user_id = $1::text::uuid", &[&BEA])
        .await
        .expect("count")
        .get(0);
    assert_eq!(bea_sees, 2);

    // The objects, at the paths they had: a private one by key, a public one
    // stored before Storage kept versions without any.
    let stored = fixtures().join("objects/stub/stub");
    let avatar = app
        .client
        .get(format!("{}/storage/v1/object/avatars/{ANA}/avatar.png", app.address))
        .header("apikey", &app.service_key)
        .bearer_auth(&app.service_key)
        .send()
        .await
        .expect("download");
    assert_eq!(avatar.status(), 200);
    assert_eq!(avatar.headers()["content-type"], "image/png");
    let expected =
        std::fs::read(stored.join(format!("avatars/{ANA}/avatar.png/5f0e6d2c-3b8a-4f7e-9c1d-2a4b6c8d0e1f")))
            .expect("fixture");
    assert_eq!(avatar.bytes().await.expect("bytes").to_vec(), expected);
    let logo = app
        .client
        .get(format!("{}/storage/v1/object/public/public-assets/logo.txt", app.address))
        .send()
        .await
        .expect("download");
    assert_eq!(logo.status(), 200);
    assert_eq!(
        logo.bytes().await.expect("bytes").to_vec(),
        std::fs::read(stored.join("public-assets/logo.txt")).expect("fixture")
    );
}

#[tokio::test]
async fn dumps_this_database_cannot_take_are_refused_and_nothing_changes() {
    let (database, url, data_dir) = target().await;

    // A dry run reports and loads nothing.
    let dry = import(&url, &data_dir, None, &["--dry-run"]);
    let said = text(&dry);
    assert!(dry.status.success(), "{said}");
    assert!(
        said.contains("extension pg_graphql: not available") && said.contains("dry run: nothing was loaded"),
        "{said}"
    );

    // The shop's own public.products is in this database (sql/100_shop.sql):
    // a project with a table of that name cannot be loaded over it.
    let folder = tempfile::tempdir().expect("tempdir");
    let schema = folder.path().join("schema.sql");
    let mut text_of = std::fs::read_to_string(fixtures().join("schema.sql")).expect("schema");
    text_of.push_str("\nCREATE TABLE IF NOT EXISTS \"public\".\"products\" (\"id\" bigint NOT NULL, \"title\" \"text\");\n");
    std::fs::write(&schema, text_of).expect("write");
    let refused = import(&url, &data_dir, Some(&schema), &["--jwt-secret", HOSTED_SECRET]);
    let said = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(
        said.contains("REFUSED  table public.products: this database has one already"),
        "the report names the table:\n{said}"
    );
    assert!(said.contains("refused: the import cannot go on"), "{said}");

    // A table that needs an extension this PostgreSQL lacks: the load fails,
    // is rolled back, and the error names the extension.
    let client = superuser(&database).await;
    let available: bool = client
        .query_one("select exists (select from pg_available_extensions where name = 'vector')", &[])
        .await
        .expect("extensions")
        .get(0);
    if !available {
        let mut text_of = std::fs::read_to_string(fixtures().join("schema.sql")).expect("schema");
        text_of.push_str(
            "\nCREATE EXTENSION IF NOT EXISTS \"vector\" WITH SCHEMA \"extensions\";\n\
             CREATE TABLE IF NOT EXISTS \"public\".\"documents\" (\"id\" bigint NOT NULL, \"embedding\" \"extensions\".\"vector\"(3));\n",
        );
        std::fs::write(&schema, text_of).expect("write");
        let failed = import(&url, &data_dir, Some(&schema), &[]);
        let said = text(&failed);
        assert_eq!(failed.status.code(), Some(1), "{said}");
        assert!(said.contains("skipped  extension vector: not available on this PostgreSQL"), "{said}");
        assert!(said.contains("the load failed and was rolled back, nothing changed"), "{said}");
        assert!(
            said.contains("extensions.vector")
                && said.contains("(pg_graphql, supabase_vault, vector) may be what it needs"),
            "{said}"
        );
    }

    let notes: Option<String> =
        client.query_one("select to_regclass('public.notes')::text", &[]).await.expect("regclass").get(0);
    assert_eq!(notes, None);
    let users: i64 = client.query_one("select count(*) from auth.users", &[]).await.expect("users").get(0);
    assert_eq!(users, 0);
    assert!(!data_dir.join("jwt_secret").exists());
}

#[tokio::test]
async fn objects_are_copied_from_an_s3_bucket_too() {
    let moto = storage_support::start_moto().await;
    let http = reqwest::Client::new();
    let created = http.put(format!("{}/hosted-project", moto.endpoint)).send().await.expect("create");
    assert!(created.status().is_success(), "{}", created.status());
    // The bytes as the project's storage backend keeps them in its bucket:
    // `<tenant>/<bucket>/<name>/<version>`, and without a version for
    // objects stored before versions.
    let stored = fixtures().join("objects/stub/stub");
    let avatar_key = format!("avatars/{ANA}/avatar.png/5f0e6d2c-3b8a-4f7e-9c1d-2a4b6c8d0e1f");
    for key in [avatar_key.as_str(), "public-assets/logo.txt"] {
        let bytes = std::fs::read(stored.join(key)).expect("fixture");
        let put =
            http.put(format!("{}/hosted-project/tenant-ref/{key}", moto.endpoint)).body(bytes).send().await;
        assert!(put.expect("put").status().is_success(), "{key}");
    }

    let (database, url, data_dir) = target().await;
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("import")
        .args(["--database-url", &url])
        .arg("--data-dir")
        .arg(&data_dir)
        .arg("--sql-root")
        .arg(repo_root())
        .arg("--roles")
        .arg(fixtures().join("roles.sql"))
        .arg("--schema")
        .arg(fixtures().join("schema.sql"))
        .arg("--data")
        .arg(fixtures().join("data.sql"))
        .args(["--objects", "s3://hosted-project/tenant-ref"])
        .env("AWS_ENDPOINT", &moto.endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env_remove("RUST_LOG")
        .env("JWT_SECRET", HOSTED_SECRET)
        .output()
        .expect("gateway runs");
    drop(turn);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("copied 2 objects"), "{said}");

    // In this gateway's store (local disk under <data-dir>/storage), each
    // at its row's version.
    let client = superuser(&database).await;
    for row in client.query("select bucket_id, name, version from storage.objects", &[]).await.expect("rows")
    {
        let (bucket, name, version): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let source = if bucket == "avatars" { avatar_key.clone() } else { format!("{bucket}/{name}") };
        assert_eq!(
            std::fs::read(data_dir.join("storage").join(&bucket).join(&name).join(&version)).expect("copied"),
            std::fs::read(stored.join(source)).expect("fixture"),
            "{bucket}/{name}"
        );
    }
}

/// `gateway serve` as deployed, reading its banner: the API URL and the
/// service_role key.
struct Served {
    child: std::process::Child,
    address: String,
    service_key: String,
}

impl Served {
    fn start(data_dir: &Path) -> Served {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .arg("--sql-root")
            .arg(repo_root())
            .env_remove("DATABASE_URL")
            .env_remove("DATABASE_ADMIN_URL")
            .env_remove("JWT_SECRET")
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn gateway");
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (mut address, mut service_key) = (String::new(), String::new());
        while service_key.is_empty() {
            let line = lines.next().expect("the banner").expect("a line");
            if let Some(rest) = line.trim().strip_prefix("API URL:") {
                address = rest.trim().to_owned();
            } else if let Some(rest) = line.trim().strip_prefix("service_role key:") {
                service_key = rest.trim().to_owned();
            }
        }
        std::thread::spawn(move || for _ in lines {});
        Served { child, address, service_key }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // Ctrl-C: the gateway drains and stops its PostgreSQL.
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn into_a_new_data_directory_with_its_own_cluster_then_served_from_it() {
    // Inside the test cluster's folder, which the postgres user may enter
    // when the tests run as root.
    let data_dir = cluster().dir.join("moved-in");
    let files = fixtures();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("import")
        .arg("--data-dir")
        .arg(&data_dir)
        .arg("--sql-root")
        .arg(repo_root())
        .arg("--roles")
        .arg(files.join("roles.sql"))
        .arg("--schema")
        .arg(files.join("schema.sql"))
        .arg("--data")
        .arg(files.join("data.sql"))
        .arg("--objects")
        .arg(files.join("objects"))
        .args(["--jwt-secret", HOSTED_SECRET])
        .env_remove("DATABASE_URL")
        .env_remove("DATABASE_ADMIN_URL")
        .env_remove("JWT_SECRET")
        .env_remove("RUST_LOG")
        .output()
        .expect("gateway runs");
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("auth.users: 2 rows") && said.contains("copied 2 objects"), "{said}");

    let served = Served::start(&data_dir);
    let http = reqwest::Client::new();
    let now = gateway::jwt::now();
    let hosted_anon = hosted_token(json!({"iss": "supabase", "role": "anon", "iat": now, "exp": now + 3600}));
    let signed_in = http
        .post(format!("{}/auth/v1/token?grant_type=password", served.address))
        .header("apikey", &hosted_anon)
        .json(&json!({"email": "ana@example.com", "password": PASSWORD}))
        .send()
        .await
        .expect("sign in");
    assert_eq!(signed_in.status(), 200);
    let session: Value = signed_in.json().await.expect("json");
    let notes = http
        .get(format!("{}/rest/v1/notes?select=id&order=id", served.address))
        .header("apikey", &hosted_anon)
        .bearer_auth(access_token(&session))
        .send()
        .await
        .expect("notes");
    assert_eq!(notes.json::<Value>().await.expect("json"), json!([{"id": 1}, {"id": 2}, {"id": 3}]));
    let logo = http
        .get(format!("{}/storage/v1/object/public-assets/logo.txt", served.address))
        .header("apikey", &served.service_key)
        .bearer_auth(&served.service_key)
        .send()
        .await
        .expect("download");
    assert_eq!(logo.status(), 200);
    assert_eq!(
        logo.bytes().await.expect("bytes").to_vec(),
        std::fs::read(files.join("objects/stub/stub/public-assets/logo.txt")).expect("fixture")
    );
}
