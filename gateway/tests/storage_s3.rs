//! The storage API over a real S3-compatible server (moto in server mode,
//! from PyPI; `scripts/setup.sh` installs it), addressed path-style as a
//! self-hosted S3 is: uploads stream in multipart parts, versions switch and
//! the replaced bytes go, refused uploads leave nothing in the bucket.

mod common;
mod storage_support;

use reqwest::Method;
use serde_json::json;

use common::{Options, spawn_app_with, test_config};
use storage_support::*;

#[tokio::test]
async fn the_storage_rules_hold_on_an_s3_compatible_server() {
    let moto = start_moto().await;
    let created =
        reqwest::Client::new().put(format!("{}/gateway-files", moto.endpoint)).send().await.expect("create");
    assert!(created.status().is_success(), "{}", created.status());
    let mut options = Options { config: test_config(), ..Default::default() };
    let s3 = &mut options.config.storage;
    s3.s3_bucket = Some("gateway-files".to_owned());
    s3.s3_endpoint = Some(moto.endpoint.clone());
    s3.s3_access_key_id = Some("test".to_owned());
    s3.s3_secret_access_key = Some(gateway::config::Secret::new("test"));
    s3.s3_force_path_style = true;
    let app = spawn_app_with(options).await;
    let key = app.service_key.clone();
    create_bucket(&app, "files", true, None, None).await;
    create_bucket(&app, "small", false, Some(100), Some(&["text/*"])).await;

    // A raw upload comes back byte-identical, whole and by range.
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let (status, body) =
        upload(&app, Some(&key), "files", "a b/(1).bin", bytes.clone(), "application/x-thing", false).await;
    assert_eq!(status, 200, "{body}");
    let got = app.client.get(url(&app, "/object/public/files/a%20b/(1).bin")).send().await.expect("get");
    assert_eq!(got.headers()["content-type"], "application/x-thing");
    assert_eq!(got.headers()["cache-control"], "max-age=3600");
    assert_eq!(got.bytes().await.expect("bytes").to_vec(), bytes);
    let part = app
        .client
        .get(url(&app, "/object/public/files/a%20b/(1).bin"))
        .header("range", "bytes=10-19")
        .send()
        .await;
    let part = part.expect("range");
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().await.expect("bytes").to_vec(), bytes[10..20].to_vec());
    assert_eq!(blobs(&app).await.len(), 1);

    // More than one 5 MiB part, sent chunked; and an empty object.
    let big: Vec<u8> = (0..(6 << 20)).map(|i: usize| (i % 253) as u8).collect();
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = big.chunks(100_000).map(|c| Ok(c.to_vec())).collect();
    let response = request(&app, Method::POST, "/object/files/big.bin", Some(&key))
        .header("content-type", "application/octet-stream")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .send()
        .await
        .expect("send");
    assert_eq!(answer(response).await.0, 200);
    let got = request(&app, Method::GET, "/object/files/big.bin", Some(&key)).send().await.expect("get");
    assert_eq!(got.bytes().await.expect("bytes").to_vec(), big);
    assert_eq!(upload(&app, Some(&key), "files", "empty.txt", Vec::new(), "text/plain", false).await.0, 200);
    let got = request(&app, Method::GET, "/object/files/empty.txt", Some(&key)).send().await.expect("get");
    assert_eq!((got.status().as_u16(), got.bytes().await.expect("bytes").len()), (200, 0));
    assert_eq!(blobs(&app).await.len(), 3);

    // Duplicates, upserts and refusals.
    let (status, body) =
        upload(&app, Some(&key), "files", "empty.txt", b"x".to_vec(), "text/plain", false).await;
    assert_eq!((status, body["statusCode"].clone()), (400, json!("409")));
    assert_eq!(
        upload(&app, Some(&key), "files", "empty.txt", b"now full".to_vec(), "text/plain", true).await.0,
        200
    );
    let got = request(&app, Method::GET, "/object/files/empty.txt", Some(&key)).send().await.expect("get");
    assert_eq!(got.text().await.expect("text"), "now full");
    assert_eq!(blobs(&app).await.len(), 3, "the replaced version is gone");
    let before = blobs(&app).await;
    for (key_name, bytes, mime, code) in [
        ("too-big.txt", vec![b'x'; 101], "text/plain", "413"),
        ("wrong.png", vec![b'x'; 10], "image/png", "415"),
        ("back%5Cslash.txt", vec![b'x'; 10], "text/plain", "400"),
    ] {
        let chunks = vec![Ok::<_, std::io::Error>(bytes)];
        let response = request(&app, Method::POST, &format!("/object/small/{key_name}"), Some(&key))
            .header("content-type", mime)
            .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
            .send()
            .await
            .expect("send");
        let (status, body) = answer(response).await;
        assert_eq!((status, body["statusCode"].as_str()), (400, Some(code)), "{key_name}: {body}");
    }
    assert_eq!(blobs(&app).await, before, "refused uploads leave nothing in the bucket");

    // Copy, move and remove keep the bucket in step with the rows.
    let post = |path: &str, body: serde_json::Value| {
        request(&app, Method::POST, path, Some(&key)).json(&body).send()
    };
    let copied = post(
        "/object/copy",
        json!({"bucketId": "files", "sourceKey": "empty.txt", "destinationKey": "c.txt"}),
    );
    assert_eq!(answer(copied.await.expect("copy")).await.0, 200);
    let moved =
        post("/object/move", json!({"bucketId": "files", "sourceKey": "c.txt", "destinationKey": "m.txt"}));
    assert_eq!(answer(moved.await.expect("move")).await.0, 200);
    let got = request(&app, Method::GET, "/object/files/m.txt", Some(&key)).send().await.expect("get");
    assert_eq!(got.text().await.expect("text"), "now full");
    assert_eq!(blobs(&app).await.len(), 4);
    let removed = request(&app, Method::DELETE, "/object/files", Some(&key))
        .json(&json!({"prefixes": ["m.txt", "big.bin", "empty.txt", "a b/(1).bin"]}))
        .send()
        .await
        .expect("remove");
    assert_eq!(answer(removed).await.1.as_array().map(Vec::len), Some(4));
    assert!(blobs(&app).await.is_empty());
    drop(moto);
}
