//! Buckets over `/storage/v1/bucket`: create, read, list, update, empty and
//! delete, with Storage's error bodies.

mod common;
mod storage_support;

use reqwest::Method;
use serde_json::{Value, json};

use common::spawn_app;
use storage_support::*;

async fn buckets_are_created_read_updated_emptied_and_deleted(app: StorageApp) {
    let key = app.service_key.clone();
    let call = |method: Method, path: &str, body: Option<Value>| {
        let mut builder = request(&app, method, path, Some(&key));
        if let Some(body) = body {
            builder = builder.json(&body);
        }
        builder.send()
    };
    // What storage-js sends for createBucket('avatars', {public: true, fileSizeLimit: '1MB', ...}).
    let create = json!({"id": "avatars", "name": "avatars", "public": true, "file_size_limit": "1MB", "allowed_mime_types": ["image/*"]});
    let cases = [
        (create.clone(), 200, json!({"name": "avatars"})),
        (
            create,
            400,
            json!({"statusCode":"409","code":"BucketAlreadyExists","error":"Duplicate","message":"The resource already exists"}),
        ),
        (
            json!({"name": "bad/name"}),
            400,
            json!({"statusCode":"400","code":"InvalidBucketName","error":"Invalid Input","message":"Bucket name invalid: bad/name"}),
        ),
        (json!({"name": "x", "file_size_limit": "lots"}), 400, Value::Null),
        (json!({"name": "y", "allowed_mime_types": ["nonsense"]}), 400, Value::Null),
    ];
    for (body, status, expected) in cases {
        let (got_status, got) =
            answer(call(Method::POST, "/bucket", Some(body.clone())).await.expect("create")).await;
        assert_eq!(got_status, status, "{body}: {got}");
        if !expected.is_null() {
            assert_eq!(got, expected, "{body}");
        }
    }

    let (status, bucket) = answer(call(Method::GET, "/bucket/avatars", None).await.expect("get")).await;
    assert_eq!(status, 200);
    assert_eq!(bucket["id"], "avatars");
    assert_eq!(bucket["public"], true);
    assert_eq!(bucket["file_size_limit"], 1_000_000);
    assert_eq!(bucket["allowed_mime_types"], json!(["image/*"]));
    assert!(bucket["created_at"].is_string());

    // The list holds what this test made, beside the shop's own bucket.
    let (_, all) = answer(call(Method::GET, "/bucket", None).await.expect("list")).await;
    let mut ids: Vec<&str> = all.as_array().expect("array").iter().filter_map(|b| b["id"].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["avatars", "store-products"]);

    // Restrictions set by an update are enforced on the next upload.
    let (status, body) = answer(
        call(
            Method::PUT,
            "/bucket/avatars",
            Some(json!({"public": false, "allowed_mime_types": ["text/plain"]})),
        )
        .await
        .expect("update"),
    )
    .await;
    assert_eq!((status, body), (200, json!({"message": "Successfully updated"})));
    let (_, bucket) = answer(call(Method::GET, "/bucket/avatars", None).await.expect("get")).await;
    assert_eq!(
        (bucket["public"].clone(), bucket["file_size_limit"].clone()),
        (json!(false), json!(1_000_000))
    );
    assert_eq!(
        upload(&app, Some(&key), "avatars", "a.png", vec![1], "image/png", false).await.1["statusCode"],
        "415"
    );
    assert_eq!(upload(&app, Some(&key), "avatars", "a.txt", vec![1], "text/plain", false).await.0, 200);

    let (status, body) = answer(call(Method::DELETE, "/bucket/avatars", None).await.expect("delete")).await;
    assert_eq!(
        (status, body["statusCode"].clone()),
        (400, json!("409")),
        "a bucket with objects stays: {body}"
    );
    let (status, body) =
        answer(call(Method::POST, "/bucket/avatars/empty", Some(json!({}))).await.expect("empty")).await;
    assert_eq!(
        (status, body),
        (200, json!({"message": "Empty bucket has been queued. Completion may take up to an hour."}))
    );
    assert!(blobs(&app).await.is_empty(), "emptying removes the bytes");
    let (status, body) = answer(call(Method::DELETE, "/bucket/avatars", None).await.expect("delete")).await;
    assert_eq!((status, body), (200, json!({"message": "Successfully deleted"})));

    let no_bucket = json!({"statusCode":"404","code":"NoSuchBucket","error":"Bucket not found","message":"Bucket not found"});
    for (method, path) in [
        (Method::GET, "/bucket/avatars"),
        (Method::DELETE, "/bucket/avatars"),
        (Method::POST, "/bucket/avatars/empty"),
    ] {
        let (status, body) = answer(call(method.clone(), path, Some(json!({}))).await.expect("call")).await;
        assert_eq!((status, body), (400, no_bucket.clone()), "{method} {path}");
    }
    let (status, body) =
        answer(call(Method::PUT, "/bucket/avatars", Some(json!({"public": true}))).await.expect("put")).await;
    assert_eq!((status, body), (400, no_bucket));
}

#[tokio::test]
async fn uploads_to_a_missing_bucket_and_bad_tokens_answer_in_storage_shape() {
    let app = spawn_app().await;
    let (status, body) =
        upload(&app, Some(&app.service_key), "nowhere", "a.txt", vec![1], "text/plain", false).await;
    assert_eq!((status, body["code"].clone()), (400, json!("NoSuchBucket")));
    let forged = format!("{}x", app.service_key);
    let (status, body) = upload(&app, Some(&forged), "nowhere", "a.txt", vec![1], "text/plain", false).await;
    assert_eq!(
        (status, body["statusCode"].clone(), body["code"].clone()),
        (400, json!("403"), json!("AccessDenied"))
    );
    let (status, body) =
        answer(request(&app, Method::GET, "/nothing/here", None).send().await.expect("get")).await;
    assert_eq!((status, body["statusCode"].clone()), (400, json!("404")));
}

/// Found by the fuzzer (`tests/fuzz_requests.rs`): PostgreSQL refuses a NUL
/// byte in a text parameter as data (22021), which Storage's renderer turned
/// into a 500.
#[tokio::test]
async fn a_bucket_id_with_a_nul_byte_is_a_client_error() {
    let app = spawn_app().await;
    for (method, path) in [
        (Method::GET, "/bucket/a%00b"),
        (Method::PUT, "/bucket/a%00b"),
        (Method::DELETE, "/bucket/a%00b"),
        (Method::POST, "/bucket/%00/empty"),
    ] {
        let response = request(&app, method.clone(), path, Some(&app.service_key))
            .json(&json!({}))
            .send()
            .await
            .expect("send");
        let (status, body) = answer(response).await;
        assert_eq!(
            (status, body["statusCode"].clone(), body["code"].clone()),
            (400, json!("400"), json!("InvalidRequest")),
            "{method} {path}: {body}"
        );
    }
}

on_both_backends!(buckets_are_created_read_updated_emptied_and_deleted,);
