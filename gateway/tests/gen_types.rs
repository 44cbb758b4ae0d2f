//! `gateway gen types typescript`: the checked-in generated files are what
//! their schemas produce today. A change to `sql/` that changes the shop's
//! types fails here until `frontend/src/lib/database.types.ts` is made again
//! (`target/debug/gateway gen types typescript --database-url ... > frontend/src/lib/database.types.ts`,
//! or this test with `UPDATE_GOLDEN=1`), so the shop always compiles against
//! the schema it runs on.

mod common;

use std::path::Path;
use std::process::Command;

use gateway::embedded::SUPERUSER;
use gateway::rest::typegen::{Catalog, go, typescript};
use tokio_postgres::config::Host;

use common::{cluster, connect, fresh_database, repo_root};

/// A database of `name`, empty (`template0`) or migrated (the harness's template).
async fn database(migrated: bool) -> tokio_postgres::Config {
    let mut config = cluster().cluster.pg_config(SUPERUSER);
    let name = if migrated {
        fresh_database().await
    } else {
        let name = format!("types_{}", std::process::id());
        connect(&config)
            .await
            .batch_execute(&format!("create database {name} template template0"))
            .await
            .expect("create");
        name
    };
    config.dbname(&name);
    config
}

async fn catalog_of(config: &tokio_postgres::Config, schemas: &[&str]) -> Catalog {
    let client = connect(config).await;
    let schemas: Vec<String> = schemas.iter().map(|s| (*s).to_owned()).collect();
    Catalog::load(&client, &schemas).await.expect("catalog")
}

async fn types_of(config: &tokio_postgres::Config, schemas: &[&str]) -> String {
    typescript::render(&catalog_of(config, schemas).await)
}

/// Compares with the checked-in file, or writes it with `UPDATE_GOLDEN=1`.
fn assert_golden(path: &str, actual: &str) {
    let file = repo_root().join(path);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&file, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_default();
    if expected != actual {
        let first = expected.lines().zip(actual.lines()).position(|(e, a)| e != a);
        panic!(
            "{path} is not what the schema produces (first difference at line {}); make it again with \
             `UPDATE_GOLDEN=1 cargo test --test gen_types`\n--- produced ---\n{actual}",
            first.map_or(expected.lines().count().min(actual.lines().count()), |l| l) + 1
        );
    }
}

#[tokio::test]
async fn the_shops_checked_in_types_are_what_the_migrations_produce() {
    let config = database(true).await;
    assert_golden("frontend/src/lib/database.types.ts", &types_of(&config, &["public"]).await);
}

#[tokio::test]
async fn a_schema_with_every_case_prints_as_its_golden_files() {
    let config = database(false).await;
    connect(&config).await.batch_execute(include_str!("fixtures/types.sql")).await.expect("fixture");
    let catalog = catalog_of(&config, &["public", "personal"]).await;
    assert_golden("gateway/tests/fixtures/types.database.ts", &typescript::render(&catalog));
    assert_golden("gateway/tests/fixtures/types.database.go", &go::render(&catalog));
}

#[tokio::test]
async fn the_command_prints_the_types_of_the_schemas_asked_for() {
    let config = database(true).await;
    let Host::Unix(socket) = &config.get_hosts()[0] else {
        panic!("the test cluster listens on a Unix socket")
    };
    let url = format!(
        "postgresql:///{}?host={}&port=5432&user={SUPERUSER}",
        config.get_dbname().expect("dbname"),
        socket.display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["gen", "types", "typescript", "--schema", "public", "--database-url", &url])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("gateway runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), types_of(&config, &["public"]).await);
}
