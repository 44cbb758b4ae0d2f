//! What Storage answers where the upstream storage-js suite (its expectations
//! are real Storage answers) found the gateway differing: requests without
//! credentials, timestamps, object info, and emptying a bucket.

mod common;
mod storage_support;

use reqwest::Method;
use serde_json::{Value, json};

use common::spawn_app;
use storage_support::*;

#[tokio::test]
async fn a_request_with_neither_apikey_nor_authorization_is_refused_as_storage_does() {
    let app = spawn_app().await;
    create_bucket(&app, "open", true, None, None).await;
    let (status, _) =
        upload(&app, Some(&app.service_key), "open", "a.txt", b"hi".to_vec(), "text/plain", false).await;
    assert_eq!(status, 200);
    let refused = json!({"statusCode": "403", "code": "AccessDenied", "error": "Unauthorized", "message": "Invalid Compact JWS"});
    let anon = app.anon_key.clone();
    // (method, path, apikey header, status, body or Null for "not refused")
    let cases = [
        (Method::GET, "/bucket".to_owned(), None, 400, refused.clone()),
        (Method::GET, "/bucket/open".to_owned(), None, 400, refused.clone()),
        (Method::POST, "/object/list/open".to_owned(), None, 400, refused.clone()),
        (Method::POST, "/object/list-v2/open".to_owned(), None, 400, refused.clone()),
        (Method::GET, "/object/open/a.txt".to_owned(), None, 400, refused.clone()),
        (Method::GET, "/object/info/open/a.txt".to_owned(), None, 400, refused.clone()),
        (Method::POST, "/object/open/b.txt".to_owned(), None, 400, refused.clone()),
        (Method::GET, "/bucket".to_owned(), Some(anon.clone()), 200, Value::Null),
        (Method::GET, format!("/bucket?apikey={anon}"), None, 200, Value::Null),
        (Method::GET, "/object/public/open/a.txt".to_owned(), None, 200, Value::Null),
        (Method::GET, "/object/info/public/open/a.txt".to_owned(), None, 200, Value::Null),
    ];
    for (method, path, apikey, status, expected) in cases {
        let mut builder = request(&app, method.clone(), &path, None).json(&json!({}));
        if let Some(key) = apikey {
            builder = builder.header("apikey", key);
        }
        let (got_status, body) = answer(builder.send().await.expect("send")).await;
        assert_eq!(got_status, status, "{method} {path}: {body}");
        if !expected.is_null() {
            assert_eq!(body, expected, "{method} {path}");
        }
    }
    // Unknown routes are still Storage's 404, credentials or not.
    let (status, body) =
        answer(request(&app, Method::GET, "/nothing", None).send().await.expect("get")).await;
    assert_eq!((status, body["statusCode"].clone()), (400, json!("404")));
}

/// `2021-02-17T04:43:32.770Z`: UTC, milliseconds, `Z`, as JavaScript's
/// `toISOString()` writes a node-postgres `Date`.
fn is_iso_ms_z(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Every string under a key ending in `_at` or named `last_modified`.
fn timestamps(value: &Value, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if let Value::String(text) = value
                    && (key.ends_with("_at") || key == "last_modified")
                {
                    found.push((key.clone(), text.clone()));
                }
                timestamps(value, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| timestamps(item, found)),
        _ => {}
    }
}

#[tokio::test]
async fn every_timestamp_is_iso_8601_in_utc_with_milliseconds() {
    let app = spawn_app().await;
    create_bucket(&app, "times", false, None, None).await;
    for key in ["a/one.txt", "two.txt", "gone.txt"] {
        upload(&app, Some(&app.service_key), "times", key, b"x".to_vec(), "text/plain", false).await;
    }
    // A stored time with fewer digits than milliseconds, as the seed of the
    // upstream suite has, and one with microseconds.
    sql(
        &app,
        "update storage.buckets set created_at = '2021-02-17T04:43:32.77Z', updated_at = '2021-02-17T04:43:32.123456+02:00'; \
         update storage.objects set created_at = '2021-02-17T04:43:32Z'",
    )
    .await;
    let key = app.service_key.clone();
    let cases = [
        (Method::GET, "/bucket", Value::Null),
        (Method::GET, "/bucket/times", Value::Null),
        (Method::GET, "/object/info/times/two.txt", Value::Null),
        (Method::POST, "/object/list/times", json!({"prefix": ""})),
        (Method::POST, "/object/list-v2/times", json!({})),
        (
            Method::POST,
            "/object/list-v2/times",
            json!({"with_delimiter": true, "sortBy": {"column": "created_at"}}),
        ),
        (Method::DELETE, "/object/times", json!({"prefixes": ["gone.txt"]})),
    ];
    for (method, path, body) in cases {
        let mut builder = request(&app, method.clone(), path, Some(&key));
        if !body.is_null() {
            builder = builder.json(&body);
        }
        let (status, answer) = answer(builder.send().await.expect("send")).await;
        assert_eq!(status, 200, "{method} {path}: {answer}");
        let mut found = Vec::new();
        timestamps(&answer, &mut found);
        assert!(!found.is_empty(), "{method} {path}: no timestamps in {answer}");
        for (name, text) in found {
            assert!(is_iso_ms_z(&text), "{method} {path}: {name} = {text}");
        }
    }
    let (_, bucket) =
        answer(request(&app, Method::GET, "/bucket/times", Some(&key)).send().await.expect("get")).await;
    assert_eq!(
        (bucket["created_at"].clone(), bucket["updated_at"].clone()),
        (json!("2021-02-17T04:43:32.770Z"), json!("2021-02-17T02:43:32.123Z"))
    );
}

#[tokio::test]
async fn object_info_has_the_fields_storage_gives_and_empty_user_metadata() {
    let app = spawn_app().await;
    create_bucket(&app, "docs", false, None, None).await;
    let (status, _) =
        upload(&app, Some(&app.service_key), "docs", "plain.txt", b"hello".to_vec(), "text/plain", false)
            .await;
    assert_eq!(status, 200);
    let (status, info) = answer(
        request(&app, Method::GET, "/object/info/docs/plain.txt", Some(&app.service_key))
            .send()
            .await
            .expect("info"),
    )
    .await;
    assert_eq!(status, 200, "{info}");
    let mut fields: Vec<&str> = info.as_object().expect("object").keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "bucket_id",
            "cache_control",
            "content_type",
            "created_at",
            "etag",
            "id",
            "last_modified",
            "metadata",
            "name",
            "size",
            "version"
        ]
    );
    assert_eq!(info["metadata"], json!({}));
    assert_eq!((info["size"].clone(), info["content_type"].clone()), (json!(5), json!("text/plain")));
}

#[tokio::test]
async fn emptying_a_bucket_answers_storage_s_message_and_removes_its_objects() {
    let app = spawn_app().await;
    create_bucket(&app, "full", false, None, None).await;
    upload(&app, Some(&app.service_key), "full", "a.txt", b"a".to_vec(), "text/plain", false).await;
    let (status, body) = answer(
        request(&app, Method::POST, "/bucket/full/empty", Some(&app.service_key))
            .send()
            .await
            .expect("empty"),
    )
    .await;
    assert_eq!(
        (status, body),
        (200, json!({"message": "Empty bucket has been queued. Completion may take up to an hour."}))
    );
    let left = app.admin().await.query_one("select count(*) from storage.objects", &[]).await.expect("count");
    assert_eq!(left.get::<_, i64>(0), 0);
}

/// storage-js's `storage.vectors` and `storage.analytics` calls, which need
/// pgvector and an Iceberg catalog this gateway does not have, get what a
/// hosted project without the feature answers, whoever asks.
#[tokio::test]
async fn vector_and_analytics_buckets_are_refused_as_a_project_without_them() {
    let app = spawn_app().await;
    let off = json!({"error": "FeatureNotEnabled", "statusCode": "403", "message": "feature not enabled for this tenant"});
    let (service, anon) = (Some(app.service_key.as_str()), Some(app.anon_key.as_str()));
    let cases = [
        (Method::POST, "/vector/CreateVectorBucket", service),
        (Method::POST, "/vector/ListVectorBuckets", anon),
        (Method::POST, "/vector/QueryVectors", service),
        (Method::POST, "/iceberg/bucket", service),
        (Method::GET, "/iceberg/bucket", anon),
        (Method::DELETE, "/iceberg/bucket/analytics", service),
    ];
    for (method, path, token) in cases {
        let response =
            request(&app, method.clone(), path, token).json(&json!({})).send().await.expect("send");
        let (status, body) = answer(response).await;
        assert_eq!((status, body), (403, off.clone()), "{method} {path}");
    }
}
