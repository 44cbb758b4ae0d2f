//! `POST /storage/v1/object/list-v2/{bucket}` (storage-js `listV2()`): every
//! object under a prefix, or folders and objects one level down with
//! `with_delimiter`, a page at a time behind Storage's cursor, as the caller.

mod common;
mod storage_support;

use reqwest::Method;
use serde_json::{Value, json};

use common::spawn_app;
use storage_support::*;

async fn list_v2(app: &common::TestApp, token: Option<&str>, bucket: &str, body: Value) -> (u16, Value) {
    let response = request(app, Method::POST, &format!("/object/list-v2/{bucket}"), token)
        .json(&body)
        .send()
        .await
        .expect("send");
    answer(response).await
}

fn names(entries: &Value) -> Vec<String> {
    entries.as_array().expect("array").iter().map(|e| e["name"].as_str().expect("name").to_owned()).collect()
}

/// A bucket whose objects were created in the order given, a second apart,
/// so that the time sorts differ from the name sort.
async fn bucket_of(app: &common::TestApp, bucket: &str, keys: &[&str]) {
    create_bucket(app, bucket, false, None, None).await;
    for (n, key) in keys.iter().enumerate() {
        let (status, body) =
            upload(app, Some(&app.service_key), bucket, key, vec![n as u8], "text/plain", false).await;
        assert_eq!(status, 200, "{key}: {body}");
        sql(
            app,
            &format!(
                "update storage.objects set created_at = '2024-01-01T00:00:00Z'::timestamptz + interval '{n} seconds' \
                 where bucket_id = '{bucket}' and name = '{key}'"
            ),
        )
        .await;
    }
}

/// Follows `nextCursor` to the end; returns the names of each page.
async fn pages(app: &common::TestApp, bucket: &str, body: Value) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut ask = body.clone();
        if let Some(cursor) = &cursor {
            ask["cursor"] = json!(cursor);
        }
        let (status, page) = list_v2(app, Some(&app.service_key), bucket, ask).await;
        assert_eq!(status, 200, "{page}");
        let mut got = names(&page["folders"]);
        got.extend(names(&page["objects"]));
        pages.push(got);
        if page["hasNext"] != json!(true) {
            assert!(page.get("nextCursor").is_none(), "{page}");
            return pages;
        }
        assert_eq!(
            page["nextCursorKey"].as_str(),
            pages.last().and_then(|p| p.last()).map(|s| {
                // A folder's key in the cursor has no trailing slash.
                s.trim_end_matches('/')
            })
        );
        cursor = Some(page["nextCursor"].as_str().expect("cursor").to_owned());
        assert!(pages.len() < 20, "no end to the pages");
    }
}

#[tokio::test]
async fn list_v2_pages_through_every_object_in_each_sort_order() {
    let app = spawn_app().await;
    // Created in this order; by name they sort otherwise.
    bucket_of(&app, "docs", &["t/zz", "t/bb", "t/xx", "t/ww", "t/cc", "t/aa", "other/q"]).await;
    let cases = [
        (
            json!({"prefix": "t/", "limit": 2}),
            vec![vec!["t/aa", "t/bb"], vec!["t/cc", "t/ww"], vec!["t/xx", "t/zz"]],
        ),
        (
            json!({"prefix": "t/", "limit": 2, "sortBy": {"column": "name", "order": "desc"}}),
            vec![vec!["t/zz", "t/xx"], vec!["t/ww", "t/cc"], vec!["t/bb", "t/aa"]],
        ),
        (
            json!({"prefix": "t/", "limit": 4, "sortBy": {"column": "created_at", "order": "asc"}}),
            vec![vec!["t/zz", "t/bb", "t/xx", "t/ww"], vec!["t/cc", "t/aa"]],
        ),
        (
            json!({"prefix": "t/", "limit": 2, "with_delimiter": true, "sortBy": {"column": "created_at", "order": "desc"}}),
            vec![vec!["t/aa", "t/cc"], vec!["t/ww", "t/xx"], vec!["t/bb", "t/zz"]],
        ),
        (json!({"limit": 5}), vec![vec!["other/q", "t/aa", "t/bb", "t/cc", "t/ww"], vec!["t/xx", "t/zz"]]),
        (json!({"prefix": "t/", "limit": 6}), vec![vec!["t/aa", "t/bb", "t/cc", "t/ww", "t/xx", "t/zz"]]),
        (json!({"prefix": "nothing/"}), vec![vec![]]),
    ];
    for (body, expected) in cases {
        assert_eq!(pages(&app, "docs", body.clone()).await, expected, "{body}");
    }
}

#[tokio::test]
async fn with_delimiter_folds_names_below_the_prefix_into_folders() {
    let app = spawn_app().await;
    bucket_of(&app, "tree", &["top.txt", "a/one.txt", "a/deep/two.txt", "b/three.txt", "a/four.txt"]).await;
    // (body, folders as (key, name), object names, object keys)
    let cases = [
        (json!({"with_delimiter": true}), vec![("a", "a/"), ("b", "b/")], vec!["top.txt"], vec!["top.txt"]),
        (
            json!({"with_delimiter": true, "prefix": "a/"}),
            vec![("deep", "a/deep/")],
            vec!["a/four.txt", "a/one.txt"],
            vec!["four.txt", "one.txt"],
        ),
        (
            json!({"with_delimiter": true, "prefix": "a/deep/"}),
            vec![],
            vec!["a/deep/two.txt"],
            vec!["two.txt"],
        ),
    ];
    for (body, folders, objects, keys) in cases {
        let (status, page) = list_v2(&app, Some(&app.service_key), "tree", body.clone()).await;
        assert_eq!(status, 200, "{page}");
        let got: Vec<(String, String)> = page["folders"]
            .as_array()
            .expect("folders")
            .iter()
            .map(|f| {
                (f["key"].as_str().unwrap_or("").to_owned(), f["name"].as_str().unwrap_or("").to_owned())
            })
            .collect();
        let want: Vec<(String, String)> =
            folders.iter().map(|(k, n)| (k.to_string(), n.to_string())).collect();
        assert_eq!(got, want, "{body}");
        assert!(page["folders"].as_array().expect("folders").iter().all(|f| f["id"].is_null()));
        assert_eq!(names(&page["objects"]), objects, "{body}");
        let got_keys: Vec<&str> = page["objects"]
            .as_array()
            .expect("objects")
            .iter()
            .map(|o| o["key"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(got_keys, keys, "{body}");
        assert_eq!(page["hasNext"], false);
    }
    // Without the delimiter every object is listed, with no `key`.
    let (_, page) = list_v2(&app, Some(&app.service_key), "tree", json!({"prefix": "a/"})).await;
    assert_eq!(names(&page["objects"]), ["a/deep/two.txt", "a/four.txt", "a/one.txt"]);
    assert_eq!(page["folders"], json!([]));
    assert!(page["objects"][0].get("key").is_none(), "{page}");
    for field in ["id", "metadata", "created_at", "updated_at", "last_accessed_at"] {
        assert!(!page["objects"][0][field].is_null(), "{field}: {page}");
    }
}

#[tokio::test]
async fn list_v2_shows_only_what_row_level_security_lets_the_caller_select() {
    let app = spawn_app().await;
    bucket_of(&app, "private", &["mine/a.txt", "theirs/b.txt"]).await;
    sql(
        &app,
        "create policy mine on storage.objects for select to authenticated \
         using (bucket_id = 'private' and (storage.foldername(name))[1] = 'mine')",
    )
    .await;
    let user = app.user_token("5d3a1f3e-0000-4000-8000-000000000001");
    let cases = [
        (Some(app.anon_key.clone()), vec![]),
        (Some(user), vec!["mine/a.txt"]),
        (Some(app.service_key.clone()), vec!["mine/a.txt", "theirs/b.txt"]),
    ];
    for (token, expected) in cases {
        let (status, page) = list_v2(&app, token.as_deref(), "private", json!({})).await;
        assert_eq!(
            (status, names(&page["objects"])),
            (200, expected.iter().map(|s| s.to_string()).collect())
        );
    }
}

#[tokio::test]
async fn a_cursor_or_sort_that_storage_would_refuse_is_a_client_error() {
    let app = spawn_app().await;
    bucket_of(&app, "b", &["x"]).await;
    let cases = [
        (json!({"cursor": "not a token"}), "InvalidParameter"),
        (json!({"cursor": "eDp5"}), "InvalidParameter"),
        (json!({"sortBy": {"column": "size"}}), "InvalidRequest"),
        (json!({"limit": 0}), "InvalidRequest"),
    ];
    for (body, code) in cases {
        let (status, error) = list_v2(&app, Some(&app.service_key), "b", body.clone()).await;
        assert_eq!(
            (status, error["statusCode"].clone(), error["code"].clone()),
            (400, json!("400"), json!(code)),
            "{body}"
        );
    }
}

/// The hazard the upstream suite found: a Storage route this gateway did not
/// know fell through to the upload route, so with a bucket named like the
/// route the call's JSON body was stored as an object.
#[tokio::test]
async fn a_storage_route_word_never_reaches_the_upload_route() {
    let app = spawn_app().await;
    for bucket in ["list-v2", "move", "render"] {
        create_bucket(&app, bucket, false, None, None).await;
    }
    let (status, page) = list_v2(&app, Some(&app.service_key), "list-v2", json!({"prefix": ""})).await;
    assert_eq!((status, page["objects"].clone()), (200, json!([])));
    for (method, path) in [
        (Method::POST, "/object/list-v2/probe-b/extra"),
        (Method::POST, "/object/move/probe"),
        (Method::PUT, "/object/render/probe"),
        (Method::POST, "/object/public/probe"),
        (Method::DELETE, "/object/list-v2/probe/k"),
    ] {
        let response = request(&app, method.clone(), path, Some(&app.service_key))
            .header("content-type", "application/json")
            .body(r#"{"prefix":""}"#)
            .send()
            .await
            .expect("send");
        let (status, body) = answer(response).await;
        assert_eq!((status, body["statusCode"].clone()), (400, json!("404")), "{method} {path}: {body}");
    }
    let stored =
        app.admin().await.query_one("select count(*) from storage.objects", &[]).await.expect("count");
    assert_eq!(stored.get::<_, i64>(0), 0);
}
