//! Row-level security decides every object operation, with Supabase's usual
//! policies loaded unchanged (a matrix in the manner of supabase/storage
//! `src/test/rls_tests.yaml`): folder-per-user objects, an insert-only inbox,
//! a bucket anyone may read. A refused upload writes no byte (G32).

mod common;
mod storage_support;

use reqwest::Method;
use serde_json::{Value, json};

use common::{TestApp, spawn_app};
use storage_support::*;

const ALICE: &str = "11111111-1111-4111-8111-111111111111";
const BOB: &str = "22222222-2222-4222-8222-222222222222";

/// Supabase's documented storage policies, as a project would write them.
const POLICIES: &str = r#"
create policy "users read their own folder" on storage.objects for select to authenticated
  using (bucket_id = 'user-files' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users add to their own folder" on storage.objects for insert to authenticated
  with check (bucket_id = 'user-files' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users change their own folder" on storage.objects for update to authenticated
  using (bucket_id = 'user-files' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'user-files' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "users delete from their own folder" on storage.objects for delete to authenticated
  using (bucket_id = 'user-files' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "signed-in users drop files in the inbox" on storage.objects for insert to authenticated
  with check (bucket_id = 'inbox');
create policy "anyone reads the shared bucket" on storage.objects for select to anon, authenticated
  using (bucket_id = 'shared');
"#;

#[derive(Clone, Copy, Debug)]
enum Who {
    Anon,
    Alice,
    Bob,
    Service,
}

#[derive(Debug)]
enum Op {
    Upload { bucket: &'static str, key: &'static str, upsert: bool },
    Get { bucket: &'static str, key: &'static str },
    Delete { bucket: &'static str, key: &'static str },
    Sign { bucket: &'static str, key: &'static str },
    List { bucket: &'static str, prefix: &'static str, names: &'static [&'static str] },
    Copy { bucket: &'static str, from: &'static str, to: &'static str },
    Move { bucket: &'static str, from: &'static str, to: &'static str },
    CreateBucket { id: &'static str },
    ListBuckets { count: usize },
    Empty { bucket: &'static str },
}

fn token(app: &TestApp, who: Who) -> String {
    match who {
        Who::Anon => app.anon_key.clone(),
        Who::Alice => app.user_token(ALICE),
        Who::Bob => app.user_token(BOB),
        Who::Service => app.service_key.clone(),
    }
}

/// Runs `op` as `who`: `"200"`, or the `statusCode` of the in-body error.
async fn run(app: &TestApp, who: Who, op: &Op) -> String {
    let token = token(app, who);
    let token = Some(token.as_str());
    let send = |method: Method, path: String, body: Option<Value>| {
        let mut builder = request(app, method, &path, token);
        if let Some(body) = body {
            builder = builder.json(&body);
        }
        builder.send()
    };
    let response = match op {
        Op::Upload { bucket, key, upsert } => {
            let (status, body) =
                upload(app, token, bucket, key, b"data".to_vec(), "text/plain", *upsert).await;
            return outcome(status, &body);
        }
        Op::Get { bucket, key } => send(Method::GET, format!("/object/{bucket}/{key}"), None).await,
        Op::Delete { bucket, key } => send(Method::DELETE, format!("/object/{bucket}/{key}"), None).await,
        Op::Sign { bucket, key } => {
            send(Method::POST, format!("/object/sign/{bucket}/{key}"), Some(json!({"expiresIn": 60}))).await
        }
        Op::List { bucket, prefix, names } => {
            let response =
                send(Method::POST, format!("/object/list/{bucket}"), Some(json!({"prefix": prefix}))).await;
            let (status, body) = answer(response.expect("send")).await;
            let got: Vec<&str> = body
                .as_array()
                .map(|a| a.iter().filter_map(|e| e["name"].as_str()).collect())
                .unwrap_or_default();
            assert_eq!(got, *names, "list {bucket}/{prefix} as {who:?}");
            return outcome(status, &body);
        }
        Op::Copy { bucket, from, to } => {
            let body = json!({"bucketId": bucket, "sourceKey": from, "destinationKey": to});
            send(Method::POST, "/object/copy".to_owned(), Some(body)).await
        }
        Op::Move { bucket, from, to } => {
            let body = json!({"bucketId": bucket, "sourceKey": from, "destinationKey": to});
            send(Method::POST, "/object/move".to_owned(), Some(body)).await
        }
        Op::CreateBucket { id } => send(Method::POST, "/bucket".to_owned(), Some(json!({"name": id}))).await,
        Op::ListBuckets { count } => {
            let (status, body) =
                answer(send(Method::GET, "/bucket".to_owned(), None).await.expect("send")).await;
            // The shop's own bucket (sql/100_shop.sql) is there too; count this matrix's.
            let mine = body.as_array().map(|all| all.iter().filter(|b| b["id"] != "store-products").count());
            assert_eq!(mine, Some(*count), "buckets visible to {who:?}: {body}");
            return outcome(status, &body);
        }
        Op::Empty { bucket } => send(Method::POST, format!("/bucket/{bucket}/empty"), Some(json!({}))).await,
    };
    let (status, body) = answer(response.expect("send")).await;
    outcome(status, &body)
}

fn outcome(status: u16, body: &Value) -> String {
    if status == 200 { "200".to_owned() } else { body["statusCode"].as_str().unwrap_or("?").to_owned() }
}

async fn storage_policies_decide_every_operation(app: StorageApp) {
    for bucket in ["user-files", "inbox", "shared"] {
        create_bucket(&app, bucket, false, None, None).await;
    }
    sql(&app, POLICIES).await;
    for (bucket, key) in [
        ("user-files", "11111111-1111-4111-8111-111111111111/a.txt"),
        ("inbox", "existing.txt"),
        ("shared", "s.txt"),
    ] {
        assert_eq!(
            upload(&app, Some(&app.service_key), bucket, key, b"seed".to_vec(), "text/plain", false).await.0,
            200
        );
    }
    use Op::*;
    use Who::*;
    const A: &str = "11111111-1111-4111-8111-111111111111";
    const B: &str = "22222222-2222-4222-8222-222222222222";
    let a_new: &'static str = Box::leak(format!("{A}/new.txt").into_boxed_str());
    let a_file: &'static str = Box::leak(format!("{A}/a.txt").into_boxed_str());
    let a_copy: &'static str = Box::leak(format!("{A}/copy.txt").into_boxed_str());
    let a_moved: &'static str = Box::leak(format!("{A}/moved.txt").into_boxed_str());
    let b_new: &'static str = Box::leak(format!("{B}/new.txt").into_boxed_str());
    let cases: Vec<(&str, Who, Op, &str)> = vec![
        (
            "a user uploads into her own folder",
            Alice,
            Upload { bucket: "user-files", key: a_new, upsert: false },
            "200",
        ),
        (
            "a user cannot upload into another's folder",
            Alice,
            Upload { bucket: "user-files", key: b_new, upsert: false },
            "403",
        ),
        ("anon cannot upload at all", Anon, Upload { bucket: "user-files", key: a_new, upsert: true }, "403"),
        (
            "an existing key without x-upsert is a conflict",
            Alice,
            Upload { bucket: "user-files", key: a_file, upsert: false },
            "409",
        ),
        (
            "upsert with insert, select and update policies works",
            Alice,
            Upload { bucket: "user-files", key: a_file, upsert: true },
            "200",
        ),
        (
            "insert alone allows a new file",
            Bob,
            Upload { bucket: "inbox", key: "bob.txt", upsert: false },
            "200",
        ),
        (
            "insert alone does not allow an upsert over a file",
            Bob,
            Upload { bucket: "inbox", key: "existing.txt", upsert: true },
            "403",
        ),
        ("a user reads her own file", Alice, Get { bucket: "user-files", key: a_file }, "200"),
        ("another user's file does not exist for him", Bob, Get { bucket: "user-files", key: a_file }, "404"),
        ("an insert-only bucket cannot be read back", Bob, Get { bucket: "inbox", key: "bob.txt" }, "404"),
        ("anon reads the shared bucket", Anon, Get { bucket: "shared", key: "s.txt" }, "200"),
        ("anon cannot read a user's file", Anon, Get { bucket: "user-files", key: a_file }, "404"),
        (
            "lists show only what the caller may select",
            Bob,
            List { bucket: "user-files", prefix: A, names: &[] },
            "200",
        ),
        (
            "lists show a user her own files",
            Alice,
            List { bucket: "user-files", prefix: A, names: &["a.txt", "new.txt"] },
            "200",
        ),
        ("signing needs select", Bob, Sign { bucket: "user-files", key: a_file }, "404"),
        ("a user signs her own file", Alice, Sign { bucket: "user-files", key: a_file }, "200"),
        (
            "copying needs select on the source",
            Bob,
            Copy { bucket: "user-files", from: a_file, to: "x.txt" },
            "404",
        ),
        (
            "copying needs insert on the destination",
            Alice,
            Copy { bucket: "user-files", from: a_file, to: b_new },
            "403",
        ),
        (
            "a user copies within her folder",
            Alice,
            Copy { bucket: "user-files", from: a_file, to: a_copy },
            "200",
        ),
        (
            "moving another's file finds nothing",
            Bob,
            Move { bucket: "user-files", from: a_copy, to: "y.txt" },
            "404",
        ),
        (
            "moving out of one's folder breaks the update check",
            Alice,
            Move { bucket: "user-files", from: a_copy, to: b_new },
            "403",
        ),
        (
            "a user moves within her folder",
            Alice,
            Move { bucket: "user-files", from: a_copy, to: a_moved },
            "200",
        ),
        ("deleting another's file finds nothing", Bob, Delete { bucket: "user-files", key: a_moved }, "404"),
        ("a user deletes her own file", Alice, Delete { bucket: "user-files", key: a_moved }, "200"),
        ("buckets are invisible without a policy", Alice, ListBuckets { count: 0 }, "200"),
        ("users cannot create buckets without a policy", Alice, CreateBucket { id: "mine" }, "403"),
        ("users cannot empty a bucket they cannot see", Alice, Empty { bucket: "user-files" }, "404"),
        ("the service role sees every bucket", Service, ListBuckets { count: 3 }, "200"),
        ("the service role empties a bucket", Service, Empty { bucket: "inbox" }, "200"),
    ];
    for (name, who, op, expected) in &cases {
        let files_before = blobs(&app).await;
        let got = run(&app, *who, op).await;
        assert_eq!(got, *expected, "{name}: {who:?} {op:?}");
        if *expected != "200" {
            assert_eq!(blobs(&app).await, files_before, "{name}: a refused operation wrote bytes");
        }
    }
}

async fn an_rls_denied_upload_answers_in_storage_shape_and_writes_zero_bytes(app: StorageApp) {
    create_bucket(&app, "private", false, None, None).await;
    let big = vec![b'z'; 200_000];
    let (status, body) = upload(
        &app,
        Some(&app.user_token(ALICE)),
        "private",
        "x.bin",
        big,
        "application/octet-stream",
        false,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"statusCode":"403","code":"AccessDenied","error":"Unauthorized","message":"new row violates row-level security policy"})
    );
    assert!(blobs(&app).await.is_empty());
    let rows = app.admin().await.query("select count(*) from storage.objects", &[]).await.expect("count");
    assert_eq!(rows[0].get::<_, i64>(0), 0);
}

#[tokio::test]
async fn storage_helpers_split_names_like_supabase() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let row = admin
        .query_one(
            "select storage.foldername('a/b/c.png'), storage.filename('a/b/c.png'), storage.extension('a/b/c.tar.gz'), \
                    storage.foldername('top.png')",
            &[],
        )
        .await
        .expect("helpers");
    assert_eq!(row.get::<_, Vec<String>>(0), vec!["a", "b"]);
    assert_eq!(row.get::<_, String>(1), "c.png");
    assert_eq!(row.get::<_, String>(2), "gz");
    assert_eq!(row.get::<_, Vec<String>>(3), Vec::<String>::new());
}

/// Public downloads read their row as the login role itself, outside any
/// request transaction (`sql/021_storage_public_reads.sql`): it sees public
/// buckets and their objects, and no table or private object.
#[tokio::test]
async fn the_login_role_reads_public_objects_and_nothing_else() {
    let app = spawn_app().await;
    sql(
        &app,
        "insert into storage.buckets (id, name, public) values ('open', 'open', true), ('shut', 'shut', false);
         insert into storage.objects (bucket_id, name, version, metadata) values
           ('open', 'a.png', 'v1', '{\"size\": 1}'), ('shut', 'b.png', 'v1', '{\"size\": 1}');",
    )
    .await;
    let db = &app.state.db;
    let names =
        |rows: Vec<tokio_postgres::Row>| rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>();
    let seen = db
        .as_authenticator("select id from _gateway.public_buckets where id in ($1, $2)", &[&"open", &"shut"])
        .await;
    assert_eq!(names(seen.expect("public buckets")), ["open"]);
    let seen = db
        .as_authenticator(
            "select name from _gateway.public_objects where bucket_id in ($1, $2)",
            &[&"open", &"shut"],
        )
        .await;
    assert_eq!(names(seen.expect("public objects")), ["a.png"]);
    for table in ["storage.objects", "storage.buckets", "auth.users", "_gateway.migrations"] {
        let refused = db.as_authenticator(&format!("select 1 from {table}"), &[]).await;
        assert!(refused.is_err(), "the login role read {table}");
    }
}

on_both_backends!(
    storage_policies_decide_every_operation,
    an_rls_denied_upload_answers_in_storage_shape_and_writes_zero_bytes,
);
