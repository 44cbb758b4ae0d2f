//! `sql/` is applied once per file and guarded by checksums; `policies/` is
//! applied every time; the platform roles look exactly as Supabase's.

mod common;

use std::path::Path;

use gateway::db::migrate::{self, MigrateError};
use gateway::embedded::SUPERUSER;

use common::{cluster, connect, spawn_app};

async fn empty_database(name: &str) -> tokio_postgres::Config {
    let admin = cluster().cluster.pg_config(SUPERUSER);
    let client = connect(&admin).await;
    client.batch_execute(&format!("create database {name} template template0")).await.expect("create");
    let mut config = admin;
    config.dbname(name);
    config
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

async fn run(config: &tokio_postgres::Config, root: &Path) -> Result<migrate::Report, MigrateError> {
    let (migrations, policies) = migrate::load(root)?;
    let mut client = connect(config).await;
    migrate::run(&mut client, &migrations, &policies).await
}

#[tokio::test]
async fn every_sql_file_is_recorded_once_with_its_checksum() {
    let app = spawn_app().await;
    let client = app.admin().await;
    let recorded: Vec<String> = client
        .query("select name from _gateway.migrations order by name", &[])
        .await
        .expect("query")
        .iter()
        .map(|row| row.get(0))
        .collect();
    let (files, _) = migrate::load(&common::repo_root()).expect("load");
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    assert_eq!(recorded, names);
    assert!(names.first().is_some_and(|n| n == "sql/000_roles.sql"));
}

#[tokio::test]
async fn files_apply_in_order_once_and_policies_every_time() {
    let root = tempfile::tempdir().expect("tempdir");
    write(root.path(), "sql/001_first.sql", "create table public.things (id int primary key);");
    write(root.path(), "sql/002_second.sql", "insert into public.things values (1);");
    write(
        root.path(),
        "policies/things.sql",
        "alter table public.things enable row level security;
         drop policy if exists \"Anyone can read things\" on public.things;
         create policy \"Anyone can read things\" on public.things for select using (true);",
    );
    let db = empty_database("migrate_order").await;
    let first = run(&db, root.path()).await.expect("first run");
    assert_eq!(first.applied, ["sql/001_first.sql", "sql/002_second.sql"]);
    assert_eq!(first.policies, ["policies/things.sql"]);
    let second = run(&db, root.path()).await.expect("second run");
    assert!(second.applied.is_empty());
    assert_eq!(second.policies, ["policies/things.sql"]);
    let client = connect(&db).await;
    let count: i64 = client.query_one("select count(*) from public.things", &[]).await.expect("q").get(0);
    assert_eq!(count, 1, "the insert ran once");
}

#[tokio::test]
async fn an_edited_applied_file_is_an_error_that_names_it() {
    let root = tempfile::tempdir().expect("tempdir");
    write(root.path(), "sql/001_table.sql", "create table public.t (id int);");
    std::fs::create_dir_all(root.path().join("policies")).expect("mkdir");
    let db = empty_database("migrate_edited").await;
    run(&db, root.path()).await.expect("first run");
    write(root.path(), "sql/001_table.sql", "create table public.t (id bigint);");
    let error = run(&db, root.path()).await.expect_err("edited file");
    assert!(matches!(error, MigrateError::Edited { ref name, .. } if name == "sql/001_table.sql"));
    assert!(error.to_string().contains("sql/001_table.sql was edited after it was applied"));
}

#[tokio::test]
async fn a_failing_file_is_rolled_back_and_not_recorded() {
    let root = tempfile::tempdir().expect("tempdir");
    write(root.path(), "sql/001_broken.sql", "create table public.half (id int); select nope from nowhere;");
    std::fs::create_dir_all(root.path().join("policies")).expect("mkdir");
    let db = empty_database("migrate_broken").await;
    let error = run(&db, root.path()).await.expect_err("broken file");
    assert!(
        error.to_string().starts_with("sql/001_broken.sql failed: relation \"nowhere\" does not exist"),
        "{error}"
    );
    let client = connect(&db).await;
    let half: Option<String> =
        client.query_one("select to_regclass('public.half')::text", &[]).await.expect("q").get(0);
    assert_eq!(half, None);
    let recorded: i64 =
        client.query_one("select count(*) from _gateway.migrations", &[]).await.expect("q").get(0);
    assert_eq!(recorded, 0);
}

#[tokio::test]
async fn the_platform_roles_are_exactly_supabases() {
    let app = spawn_app().await;
    let client = app.admin().await;
    let rows = client
        .query(
            "select rolname::text, rolcanlogin, rolinherit, rolbypassrls from pg_roles \
             where rolname in ('anon', 'authenticated', 'service_role', 'authenticator') order by rolname",
            &[],
        )
        .await
        .expect("roles");
    let roles: Vec<(String, bool, bool, bool)> =
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
    let expected = [
        ("anon", false, false, false),
        ("authenticated", false, false, false),
        ("authenticator", true, false, false),
        ("service_role", false, false, true),
    ];
    assert_eq!(roles, expected.map(|(n, l, i, b)| (n.to_owned(), l, i, b)));
    let members: Vec<String> = client
        .query(
            "select r.rolname::text from pg_auth_members m join pg_roles r on r.oid = m.roleid \
             where m.member = 'authenticator'::regrole order by 1",
            &[],
        )
        .await
        .expect("members")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(members, ["anon", "authenticated", "service_role"]);
    for schema in ["auth", "storage", "extensions"] {
        let exists: bool = client
            .query_one("select exists (select from pg_namespace where nspname = $1)", &[&schema])
            .await
            .expect("q")
            .get(0);
        assert!(exists, "schema {schema}");
    }
}

#[tokio::test]
async fn upgrading_ends_the_sessions_whose_refresh_tokens_anyone_could_compute() {
    let config = empty_database("upgrade_refresh_keys").await;
    let (all, policies) = migrate::load(&common::repo_root()).expect("load");
    let (mut before, _) = migrate::load(&common::repo_root()).expect("load");
    before.retain(|file| file.name.as_str() < "sql/011_auth_refresh_token_keys.sql");
    let mut client = connect(&config).await;
    migrate::run(&mut client, &before, &[]).await.expect("the schema before session keys");
    client
        .batch_execute(
            "insert into auth.users (id, email) values ('00000000-0000-0000-0000-00000000000a', 'ana@example.com');
             insert into auth.sessions (id, user_id) values
               ('00000000-0000-0000-0000-0000000000b1', '00000000-0000-0000-0000-00000000000a');
             insert into auth.refresh_tokens (token, user_id, revoked, session_id) values
               (repeat('0', 64), '00000000-0000-0000-0000-00000000000a', false,
                '00000000-0000-0000-0000-0000000000b1');",
        )
        .await
        .expect("a session of the old kind");
    migrate::run(&mut client, &all, &policies).await.expect("upgrade");
    let count = |table: &'static str| {
        let client = &client;
        async move {
            client
                .query_one(&format!("select count(*) from {table}"), &[])
                .await
                .expect("count")
                .get::<_, i64>(0)
        }
    };
    assert_eq!(count("auth.sessions").await, 0, "the old session ended");
    assert_eq!(count("auth.refresh_tokens").await, 0, "with its tokens");
    assert_eq!(count("auth.users").await, 1, "its user stays, to sign in again");
}

#[tokio::test]
async fn check_lists_what_would_run_and_then_nothing() {
    let root = tempfile::tempdir().expect("tempdir");
    write(root.path(), "sql/001_first.sql", "create table public.things (id int primary key);");
    write(root.path(), "policies/things.sql", "alter table public.things enable row level security;");
    let db = empty_database("migrate_check").await;
    let plan = |root: &Path| {
        let root = root.to_path_buf();
        let db = db.clone();
        async move {
            let (migrations, policies) = migrate::load(&root).expect("load");
            migrate::plan(&mut connect(&db).await, &migrations, &policies).await
        }
    };
    let before = plan(root.path()).await.expect("plan on an empty database");
    assert_eq!(before.pending, ["sql/001_first.sql"]);
    assert_eq!(before.policies_changed, ["policies/things.sql"]);
    assert!(before.has_work());
    let client = connect(&db).await;
    let schema: Option<String> =
        client.query_one("select to_regnamespace('_gateway')::text", &[]).await.expect("q").get(0);
    assert_eq!(schema, None, "checking changed nothing");

    run(&db, root.path()).await.expect("run");
    let after = plan(root.path()).await.expect("plan after the run");
    assert!(!after.has_work(), "{after:?}");
    assert_eq!(after.policies_unchanged, ["policies/things.sql"]);

    write(root.path(), "sql/002_second.sql", "insert into public.things values (1);");
    write(root.path(), "policies/things.sql", "alter table public.things force row level security;");
    let next = plan(root.path()).await.expect("plan with a new file");
    assert_eq!(next.pending, ["sql/002_second.sql"]);
    assert_eq!(next.policies_changed, ["policies/things.sql"]);
}

#[tokio::test]
async fn a_database_a_newer_gateway_migrated_is_refused_with_the_migrations_it_does_not_know() {
    let newer = tempfile::tempdir().expect("tempdir");
    write(newer.path(), "sql/001_first.sql", "create table public.things (id int primary key);");
    write(newer.path(), "sql/002_second.sql", "alter table public.things add column name text;");
    std::fs::create_dir_all(newer.path().join("policies")).expect("mkdir");
    let db = empty_database("migrate_newer").await;
    run(&db, newer.path()).await.expect("the newer gateway migrates");

    let older = tempfile::tempdir().expect("tempdir");
    write(older.path(), "sql/001_first.sql", "create table public.things (id int primary key);");
    std::fs::create_dir_all(older.path().join("policies")).expect("mkdir");
    let error = run(&db, older.path()).await.expect_err("the older gateway is refused");
    assert!(
        matches!(error, MigrateError::Newer { ref unknown } if unknown == &["sql/002_second.sql"]),
        "{error:?}"
    );
    assert!(
        error.to_string().starts_with(
            "the database was migrated by a newer gateway: it has applied sql/002_second.sql, \
             which this gateway's sql/ does not have"
        ),
        "{error}"
    );
    let (migrations, policies) = migrate::load(older.path()).expect("load");
    let checked = migrate::plan(&mut connect(&db).await, &migrations, &policies).await;
    assert!(matches!(checked, Err(MigrateError::Newer { .. })), "{checked:?}");
}

/// `gateway <args>` over the test cluster's database `db`: exit code, stdout, stderr.
fn gateway(args: &[&str], db: &str, sql_root: &Path) -> (i32, String, String) {
    let url = cluster().cluster.superuser_url().replacen("/postgres?", &format!("/{db}?"), 1);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(args)
        .arg("--database-url")
        .arg(url)
        .arg("--sql-root")
        .arg(sql_root)
        .env_remove("RUST_LOG")
        .output()
        .expect("gateway runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

#[tokio::test]
async fn migrate_check_exits_1_while_something_would_run_0_after_and_2_on_a_newer_database() {
    let root = tempfile::tempdir().expect("tempdir");
    write(root.path(), "sql/001_first.sql", "create table public.things (id int primary key);");
    write(root.path(), "policies/things.sql", "alter table public.things enable row level security;");
    empty_database("migrate_check_cli").await;
    let cases: [(&[&str], i32, &str); 3] = [
        (
            &["migrate", "--check"],
            1,
            "would apply    sql/001_first.sql\nwould change   policies/things.sql\n",
        ),
        (&["migrate"], 0, "applied sql/001_first.sql\n"),
        (&["migrate", "--check"], 0, "unchanged      policies/things.sql (re-applied as it is)\n"),
    ];
    for (args, code, starts) in cases {
        let (status, stdout, stderr) = gateway(args, "migrate_check_cli", root.path());
        assert_eq!(status, code, "gateway {args:?}: {stdout}{stderr}");
        assert!(stdout.starts_with(starts), "gateway {args:?}: {stdout}");
    }
    std::fs::remove_file(root.path().join("sql/001_first.sql")).expect("an older sql/");
    for args in [&["migrate", "--check"][..], &["migrate"]] {
        let (status, _, stderr) = gateway(args, "migrate_check_cli", root.path());
        assert_eq!(status, if args.len() == 2 { 2 } else { 1 }, "gateway {args:?}: {stderr}");
        assert!(
            stderr.contains("the database was migrated by a newer gateway: it has applied sql/001_first.sql"),
            "gateway {args:?}: {stderr}"
        );
    }
}

#[test]
fn the_version_names_the_last_migration_it_was_built_with() {
    let (files, _) = migrate::load(&common::repo_root()).expect("load");
    let last = files.last().expect("a migration").name.trim_start_matches("sql/").trim_end_matches(".sql");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .arg("--version")
        .output()
        .expect("gateway --version");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("gateway {} (schema {last})\n", env!("CARGO_PKG_VERSION"))
    );
}
