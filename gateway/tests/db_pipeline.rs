//! `Client::query_pipeline`, the method patched into tokio-postgres
//! (`vendor/README.md`): statements sent with one `Sync` run as one implicit
//! transaction, which every single-statement request relies on.

mod common;

use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

async fn client() -> tokio_postgres::Client {
    let database = common::fresh_database().await;
    let mut config = common::cluster().cluster.pg_config(gateway::embedded::SUPERUSER);
    config.dbname(&database);
    let client = common::connect(&config).await;
    client
        .batch_execute(
            "create table t (id int primary key, parent int references t deferrable initially deferred)",
        )
        .await
        .expect("table");
    client
}

async fn ids(client: &tokio_postgres::Client) -> Vec<i32> {
    let rows = client.query("select id from t order by id", &[]).await.expect("select");
    rows.iter().map(|row| row.get(0)).collect()
}

#[tokio::test]
async fn statements_of_one_pipeline_share_one_transaction_that_commits_at_the_sync() {
    let client = client().await;
    let set = client.prepare("select set_config('my.value', $1, true)").await.expect("prepare");
    let insert = client.prepare("insert into t values ($1) returning id").await.expect("prepare");
    let read = client.prepare("select current_setting('my.value', true)").await.expect("prepare");
    let value = "seen";
    let (one, two) = (1i32, 2i32);
    let statements: [(&Statement, &[&(dyn ToSql + Sync)]); 4] =
        [(&set, &[&value]), (&insert, &[&one]), (&insert, &[&two]), (&read, &[])];
    let results = client.query_pipeline(&statements).await.expect("pipeline");
    assert_eq!(results.len(), 4);
    assert_eq!(results[1][0].get::<_, i32>(0), 1);
    assert_eq!(results[2][0].get::<_, i32>(0), 2);
    // The local setting lived until the last statement, and no longer.
    assert_eq!(results[3][0].get::<_, Option<String>>(0).as_deref(), Some("seen"));
    let after = client.query_one("select current_setting('my.value', true)", &[]).await.expect("select");
    assert_eq!(after.get::<_, Option<String>>(0).as_deref().unwrap_or(""), "");
    assert_eq!(ids(&client).await, [1, 2]);
}

#[tokio::test]
async fn an_error_rolls_back_the_statements_before_it_and_skips_those_after() {
    let client = client().await;
    let insert = client.prepare("insert into t values ($1)").await.expect("prepare");
    let cases: [(&str, [i32; 3], &str); 2] = [
        ("a duplicate key in the middle", [1, 1, 2], "23505"),
        // A deferred foreign key fails when the implicit transaction commits,
        // after every statement succeeded.
        ("a deferred constraint at the commit", [1, 2, 3], "23503"),
    ];
    let parent = client.prepare("insert into t values ($1, 99)").await.expect("prepare");
    for (name, [a, b, c], code) in cases {
        let last = if code == "23503" { &parent } else { &insert };
        let statements: [(&Statement, &[&(dyn ToSql + Sync)]); 3] =
            [(&insert, &[&a]), (&insert, &[&b]), (last, &[&c])];
        let error = client.query_pipeline(&statements).await.expect_err(name);
        assert_eq!(error.code().map(|c| c.code()), Some(code), "{name}: {error}");
        assert_eq!(ids(&client).await, Vec::<i32>::new(), "{name}");
    }
    // The connection is ready for more.
    let one = 1i32;
    let statements: [(&Statement, &[&(dyn ToSql + Sync)]); 1] = [(&insert, &[&one])];
    client.query_pipeline(&statements).await.expect("pipeline after errors");
    assert_eq!(ids(&client).await, [1]);
}
