//! Answers made per request are compressed on the fly when the client accepts
//! it and they are text of at least `--compression-min-size`
//! (gateway/src/compress.rs); stored files never are.

mod common;

use std::io::Read;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Options, TestApp, spawn_app_with, test_config};

/// The threshold of these tests: between `[{"id":1}]` and the whole catalogue.
const MIN_SIZE: u64 = 64;

async fn shop(enabled: bool) -> TestApp {
    let mut config = test_config();
    config.compression.enabled = enabled;
    config.compression.min_size = MIN_SIZE;
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    app
}

/// Status, `Content-Encoding`, `Vary` and the body as sent, decoded.
struct Sent {
    status: u16,
    encoding: String,
    vary: String,
    content_range: String,
    wire_bytes: usize,
    body: Vec<u8>,
}

async fn send(request: reqwest::RequestBuilder, accept: Option<&str>) -> Sent {
    let request = match accept {
        Some(accept) => request.header("accept-encoding", accept),
        None => request,
    };
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let header = |name: &str| {
        response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
    };
    let (encoding, content_range) = (header("content-encoding"), header("content-range"));
    // Every Vary line (CORS adds its own).
    let vary = response
        .headers()
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ");
    let wire = response.bytes().await.expect("body").to_vec();
    let mut body = Vec::new();
    match encoding.as_str() {
        "" => body.clone_from(&wire),
        "gzip" => {
            flate2::read::GzDecoder::new(wire.as_slice()).read_to_end(&mut body).expect("gzip");
        }
        "br" => {
            brotli::Decompressor::new(wire.as_slice(), 4096).read_to_end(&mut body).expect("brotli");
        }
        other => panic!("unexpected content-encoding {other}"),
    }
    Sent { status, encoding, vary, content_range, wire_bytes: wire.len(), body }
}

fn json_of(sent: &Sent) -> Value {
    serde_json::from_slice(&sent.body).expect("JSON")
}

#[tokio::test]
async fn rest_answers_above_the_threshold_come_in_the_encoding_the_client_prefers() {
    let app = shop(true).await;
    let plain = send(app.rest(Method::GET, "/products?select=*&order=id", None), None).await;
    assert_eq!((plain.status, plain.encoding.as_str()), (200, ""));
    let rows_range = plain.content_range.clone();
    assert_eq!(rows_range, "0-5/*");
    assert!(plain.body.len() as u64 >= MIN_SIZE, "the catalogue is {} bytes", plain.body.len());
    // (Accept-Encoding, the encoding sent)
    let cases = [
        (None, ""),
        (Some("gzip"), "gzip"),
        (Some("br"), "br"),
        (Some("gzip, deflate, br"), "br"),
        (Some("gzip;q=1, br;q=0.5"), "gzip"),
        (Some("deflate"), ""),
        (Some("identity"), ""),
    ];
    for (accept, expected) in cases {
        let sent = send(app.rest(Method::GET, "/products?select=*&order=id", None), accept).await;
        assert_eq!((sent.status, sent.encoding.as_str()), (200, expected), "{accept:?}");
        assert_eq!(json_of(&sent), json_of(&plain), "{accept:?}: the same rows");
        assert_eq!(sent.content_range, rows_range, "{accept:?}: PostgREST's range of rows is kept");
        if !expected.is_empty() {
            assert!(sent.vary.to_ascii_lowercase().contains("accept-encoding"), "{accept:?}: {}", sent.vary);
            assert!(sent.wire_bytes < plain.body.len(), "{accept:?}: {} bytes sent", sent.wire_bytes);
        }
    }
}

#[tokio::test]
async fn answers_below_the_threshold_are_sent_as_they_are() {
    let app = shop(true).await;
    let small = send(app.rest(Method::GET, "/products?select=id&id=eq.1", None), Some("gzip, br")).await;
    assert_eq!((small.status, small.encoding.as_str()), (200, ""));
    assert_eq!(json_of(&small), json!([{"id": 1}]));
}

#[tokio::test]
async fn auth_and_storage_json_is_compressed_too() {
    let app = shop(true).await;
    let settings = send(app.get("/auth/v1/settings").header("apikey", &app.anon_key), Some("gzip")).await;
    assert_eq!((settings.status, settings.encoding.as_str()), (200, "gzip"));
    assert!(json_of(&settings)["external"].is_object());
    for name in ["photos-of-the-catalogue", "documents-of-the-shop"] {
        let created = app
            .client
            .post(format!("{}/storage/v1/bucket", app.address))
            .bearer_auth(&app.service_key)
            .json(&json!({"name": name, "public": true}))
            .send()
            .await
            .expect("bucket");
        assert_eq!(created.status(), 200);
    }
    let buckets = send(
        app.client.get(format!("{}/storage/v1/bucket", app.address)).bearer_auth(&app.service_key),
        Some("br"),
    )
    .await;
    assert_eq!((buckets.status, buckets.encoding.as_str()), (200, "br"));
    let names: Vec<Value> =
        json_of(&buckets).as_array().expect("buckets").iter().map(|b| b["name"].clone()).collect();
    assert!(names.contains(&json!("photos-of-the-catalogue")), "{names:?}");
}

#[tokio::test]
async fn stored_objects_are_sent_as_stored_whatever_their_type() {
    let app = shop(true).await;
    let created = app
        .client
        .post(format!("{}/storage/v1/bucket", app.address))
        .bearer_auth(&app.service_key)
        .json(&json!({"name": "files", "public": true}))
        .send()
        .await
        .expect("bucket");
    assert_eq!(created.status(), 200);
    let document = serde_json::to_vec(&json!({"rows": vec!["a row of text"; 200]})).expect("json");
    let uploaded = app
        .client
        .post(format!("{}/storage/v1/object/files/rows.json", app.address))
        .bearer_auth(&app.service_key)
        .header("content-type", "application/json")
        .body(document.clone())
        .send()
        .await
        .expect("upload");
    assert_eq!(uploaded.status(), 200);
    let download = send(app.get("/storage/v1/object/public/files/rows.json"), Some("gzip, br")).await;
    assert_eq!((download.status, download.encoding.as_str()), (200, ""));
    assert_eq!(download.body, document, "byte ranges and the ETag name these bytes");
}

#[tokio::test]
async fn with_compression_off_every_answer_is_sent_as_it_is() {
    let app = shop(false).await;
    let sent = send(app.rest(Method::GET, "/products?select=*&order=id", None), Some("gzip, br")).await;
    assert_eq!((sent.status, sent.encoding.as_str()), (200, ""));
    assert_eq!(json_of(&sent).as_array().map(Vec::len), Some(6));
}
