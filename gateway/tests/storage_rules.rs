//! The rules that protect the disk and the limits (reliability.md
//! §3.3-3.6, goals G30-G31): hostile keys never reach outside the storage
//! root, odd but valid names round-trip (on local disk and on S3), MIME and size limits refuse before
//! writing and write nothing, a declared `Content-Length` over the limit is
//! refused before the body is read, and a chunked body is cut at limit + 1.

mod common;
mod storage_support;

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use common::{Options, TestApp, spawn_app_with, test_config};
use storage_support::*;

/// Sends `head` (request line and headers, no final blank line) and `body`
/// over a raw connection, so paths reach the server exactly as written (an
/// HTTP client library would resolve `..` and `%2e%2e` itself).
async fn raw(app: &TestApp, head: &str, body: &[u8]) -> (u16, Value) {
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect");
    let request = format!("{head}\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write head");
    stream.write_all(body).await.expect("write body");
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("the server answered in time")
        .expect("read");
    let text = String::from_utf8_lossy(&response);
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// Hundreds of keys that try to leave the bucket's folder, each as it would
/// appear in a URL path.
fn hostile_keys() -> Vec<String> {
    let climbs = ["..", "%2e%2e", "%2E%2E", ".%2e", "%2e.", "%252e%252e"];
    let slashes = ["/", "%2f", "%2F", "%5c", "%255c"];
    let mut keys = Vec::new();
    for climb in climbs {
        for slash in slashes {
            for depth in [1, 2, 5, 20] {
                let escape = format!("{climb}{slash}").repeat(depth);
                keys.push(format!("{escape}etc/passwd"));
                keys.push(format!("a/{escape}pwned.txt"));
                keys.push(format!("a/{escape}"));
            }
        }
    }
    for key in [
        "%2fetc%2fpasswd",
        "/etc/passwd",
        "a/./b",
        "./a",
        "a/.",
        "a/..",
        "..",
        ".",
        "a//b",
        "a/",
        "%00",
        "a%00.png",
        "nul%00/../x",
        "tab%09",
        "line%0abreak",
        "cr%0d",
        "esc%1b",
        "del%7f",
        "caf%c3%a9.png",
        "%e2%80%ae.txt",
        "%ff%fe",
        "back%5cslash",
        "C:%5cwindows",
        "%5c%5cserver%5cshare",
        "percent%25",
        "hash%23",
        "tilde~",
        "quote%22",
        "lt%3cgt%3e",
        "brace%7b%7d",
        "caret%5e",
        "pipe%7c",
        "bracket%5b%5d",
        "backtick%60",
    ] {
        keys.push(key.to_owned());
    }
    keys.push("a".repeat(1025));
    keys.push(format!("{}/x", "../".repeat(200)));
    keys
}

#[tokio::test]
async fn hundreds_of_hostile_keys_are_invalid_keys_on_every_route_and_nothing_is_written_anywhere() {
    let mut options = Options { config: test_config(), ..Default::default() };
    let jail = tempfile::tempdir().expect("tempdir");
    let root = jail.path().join("deep/inside/root");
    options.config.storage_root = Some(root.clone());
    let app = spawn_app_with(options).await;
    create_bucket(&app, "b", true, None, None).await;
    let auth = format!("Authorization: Bearer {}", app.service_key);
    let keys = hostile_keys();
    assert!(keys.len() >= 300, "{}", keys.len());
    let mut checked = 0;
    for key in &keys {
        let routes = [
            format!(
                "POST /storage/v1/object/b/{key} HTTP/1.1\r\n{auth}\r\nContent-Type: text/plain\r\nContent-Length: 5"
            ),
            format!(
                "PUT /storage/v1/object/b/{key} HTTP/1.1\r\n{auth}\r\nContent-Type: text/plain\r\nContent-Length: 5"
            ),
            format!("POST /storage/v1/object/upload/sign/b/{key} HTTP/1.1\r\n{auth}\r\nContent-Length: 5"),
            format!("GET /storage/v1/object/b/{key} HTTP/1.1\r\n{auth}\r\nContent-Length: 5"),
            format!("GET /storage/v1/object/public/b/{key} HTTP/1.1\r\nContent-Length: 5"),
            format!("DELETE /storage/v1/object/b/{key} HTTP/1.1\r\n{auth}\r\nContent-Length: 5"),
        ];
        for head in routes {
            let (status, body) = raw(&app, &head, b"owned").await;
            assert_eq!((status, body["code"].as_str()), (400, Some("InvalidKey")), "{head}: {body}");
            checked += 1;
        }
    }
    // Keys in JSON bodies (copy and move destinations) are checked the same way.
    for key in keys.iter().filter(|k| !k.contains('%')) {
        for route in ["/object/copy", "/object/move"] {
            let (status, body) = answer(
                request(&app, Method::POST, route, Some(&app.service_key))
                    .json(&json!({"bucketId": "b", "sourceKey": "x.txt", "destinationKey": key}))
                    .send()
                    .await
                    .expect("send"),
            )
            .await;
            assert_eq!((status, body["code"].as_str()), (400, Some("InvalidKey")), "{route} {key}: {body}");
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
    let everything = files_under(jail.path());
    assert!(everything.is_empty(), "files were written: {everything:?}");
}

async fn odd_but_valid_names_round_trip(app: StorageApp) {
    create_bucket(&app, "b", false, None, None).await;
    let names = [
        "spaces in name.txt",
        "paren (1).png",
        "it's.txt",
        "v1..2.tar",
        "..hidden",
        "trailing..",
        "a&b$c@d=e;f:g+h,i!j*k.bin",
        "deep/er/and/deeper/file.txt",
        "question?.txt",
    ];
    for name in names {
        let (status, body) =
            upload(&app, Some(&app.service_key), "b", name, name.as_bytes().to_vec(), "text/plain", false)
                .await;
        assert_eq!(status, 200, "{name}: {body}");
        assert_eq!(body["Key"], format!("b/{name}"));
        let got = request(&app, Method::GET, &format!("/object/b/{}", encode(name)), Some(&app.service_key))
            .send()
            .await
            .expect("get");
        assert_eq!(got.status(), 200, "{name}");
        assert_eq!(got.text().await.expect("text"), name);
    }
    let stored = blobs(&app).await;
    assert_eq!(stored.len(), names.len());
    assert!(stored.iter().all(|blob| blob.starts_with("b/")), "{stored:?}");
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A raw body with `Content-Length`.
    Declared,
    /// A raw body sent chunked, with no length up front.
    Chunked,
    /// A multipart form, as supabase-js sends a `File`.
    Multipart,
}

async fn send(
    app: &TestApp,
    kind: Kind,
    bucket: &str,
    key: &str,
    mime: Option<&str>,
    size: usize,
) -> (u16, Value) {
    let bytes = vec![b'x'; size];
    let mut builder = request(app, Method::POST, &format!("/object/{bucket}/{key}"), Some(&app.service_key));
    match kind {
        Kind::Declared | Kind::Chunked => {
            if let Some(mime) = mime {
                builder = builder.header("content-type", mime);
            }
            builder = match kind {
                Kind::Declared => builder.body(bytes),
                _ => {
                    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
                        bytes.chunks(7).map(|c| Ok(c.to_vec())).collect();
                    builder.body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
                }
            };
        }
        Kind::Multipart => {
            let boundary = "XyZ";
            let part_type = mime.map(|m| format!("Content-Type: {m}\r\n")).unwrap_or_default();
            let mut body = format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n60\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"\"; filename=\"f\"\r\n{part_type}\r\n"
            )
            .into_bytes();
            body.extend_from_slice(&bytes);
            body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
            builder = builder
                .header("content-type", format!("multipart/form-data; boundary={boundary}"))
                .body(body);
        }
    }
    answer(builder.send().await.expect("send")).await
}

async fn the_mime_and_size_matrix_refuses_before_writing_and_writes_nothing(app: StorageApp) {
    let limit = 100usize;
    let buckets: [(&str, Option<&[&str]>); 3] =
        [("any", None), ("png", Some(&["image/png"])), ("images", Some(&["image/*"]))];
    for (bucket, mimes) in buckets {
        create_bucket(&app, bucket, false, Some(limit as u64), mimes).await;
    }
    let types = [Some("image/png"), Some("image/jpeg"), Some("text/plain"), Some("foo"), None];
    let mut stored = 0;
    let mut n = 0;
    for (bucket, allowed) in buckets {
        for mime in types {
            for size in [limit - 1, limit, limit + 1] {
                for kind in [Kind::Declared, Kind::Chunked, Kind::Multipart] {
                    n += 1;
                    let effective = mime.unwrap_or("application/octet-stream");
                    let mime_ok = effective.contains('/')
                        && allowed.is_none_or(|list| {
                            list.iter().any(|a| {
                                *a == effective
                                    || a.strip_suffix("/*")
                                        .is_some_and(|t| effective.starts_with(&format!("{t}/")))
                            })
                        });
                    let expected = if kind == Kind::Declared && size > limit {
                        "413"
                    } else if !mime_ok {
                        "415"
                    } else if size > limit {
                        "413"
                    } else {
                        "200"
                    };
                    let before = blobs(&app).await;
                    let (status, body) = send(&app, kind, bucket, &format!("f{n}"), mime, size).await;
                    let case = format!("{bucket} {mime:?} {size} {kind:?}: {body}");
                    if expected == "200" {
                        assert_eq!(status, 200, "{case}");
                        stored += 1;
                    } else {
                        assert_eq!((status, body["statusCode"].as_str()), (400, Some(expected)), "{case}");
                        assert_eq!(blobs(&app).await, before, "nothing written: {case}");
                    }
                }
            }
        }
    }
    assert_eq!(blobs(&app).await.len(), stored, "no orphan blobs");
    let mut admin_rows =
        app.admin().await.query("select count(*) from storage.objects", &[]).await.expect("count");
    assert_eq!(admin_rows.remove(0).get::<_, i64>(0), stored as i64);
}

#[tokio::test]
async fn the_global_limit_caps_every_bucket() {
    let mut options = Options { config: test_config(), ..Default::default() };
    options.config.storage.file_size_limit = 50;
    let app = spawn_app_with(options).await;
    create_bucket(&app, "unlimited", false, None, None).await;
    create_bucket(&app, "generous", false, Some(1_000_000), None).await;
    create_bucket(&app, "strict", false, Some(10), None).await;
    let cases = [
        ("unlimited", 50, 200),
        ("unlimited", 51, 400),
        ("generous", 51, 400),
        ("strict", 11, 400),
        ("strict", 10, 200),
    ];
    for (bucket, size, status) in cases {
        let (got, body) =
            send(&app, Kind::Chunked, bucket, &format!("s{size}"), Some("text/plain"), size).await;
        assert_eq!(got, status, "{bucket} {size}: {body}");
    }
}

async fn a_declared_length_over_the_limit_is_refused_before_the_body_is_read(app: StorageApp) {
    create_bucket(&app, "small", false, Some(1000), None).await;
    // Ten megabytes announced, none sent: an answer proves nothing was awaited.
    let head = format!(
        "POST /storage/v1/object/small/big.bin HTTP/1.1\r\nAuthorization: Bearer {}\r\nContent-Type: text/plain\r\nContent-Length: 10000000",
        app.service_key
    );
    let (status, body) = raw(&app, &head, b"").await;
    assert_eq!((status, body["statusCode"].as_str()), (400, Some("413")), "{body}");
    assert_eq!(body["message"], "The object exceeded the maximum allowed size");
    assert!(blobs(&app).await.is_empty());
}

/// A refusal answered before the body closes the connection and says so: a
/// client that sent `Expect: 100-continue` (boto3 does, for every PutObject)
/// never sends that body, so a kept-alive connection would read the client's
/// next request as the rest of this one.
async fn a_refusal_before_the_body_closes_the_connection(app: StorageApp) {
    create_bucket(&app, "small", false, Some(1000), None).await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
    let head = format!(
        "POST /storage/v1/object/small/big.bin HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: text/plain\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n",
        app.service_key
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("the server closed the connection after its answer")
        .expect("read");
    let text = String::from_utf8_lossy(&response).to_ascii_lowercase();
    assert!(text.starts_with("http/1.1 400"), "{text}");
    assert!(text.contains("\r\nconnection: close\r\n"), "{text}");
}

/// A refused upload is answered once its body has arrived: answering first and
/// closing the connection resets a client still sending, which then sees
/// `fetch failed` instead of the refusal (supabase-js did, intermittently).
async fn a_refused_upload_is_answered_after_its_body_so_the_client_reads_the_refusal(app: StorageApp) {
    create_bucket(&app, "images", false, None, Some(&["image/png"])).await;
    let cases = [
        ("missing/a.txt", "text/plain", "404", "Bucket not found"),
        ("images/a.txt", "text/plain", "415", "mime type text/plain is not supported"),
    ];
    for (path, mime, code, message) in cases {
        let address = app.address.trim_start_matches("http://").to_owned();
        let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
        let chunk = vec![b'z'; 64 * 1024];
        let head = format!(
            "POST /storage/v1/object/{path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: {mime}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            app.service_key,
            16 * chunk.len()
        );
        stream.write_all(head.as_bytes()).await.expect("head");
        // Slowly, so that the refusal is decided long before the body ends.
        for _ in 0..16 {
            tokio::time::sleep(Duration::from_millis(20)).await;
            stream.write_all(&chunk).await.expect("the server still reads the body");
        }
        let mut response = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
            .await
            .expect("the server answered in time")
            .expect("the answer arrives whole");
        let text = String::from_utf8_lossy(&response);
        let body: Value =
            serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap_or("")).unwrap_or_default();
        assert!(text.starts_with("HTTP/1.1 400"), "{path}: {text}");
        assert_eq!(
            (body["statusCode"].as_str(), body["message"].as_str()),
            (Some(code), Some(message)),
            "{path}"
        );
    }
    assert!(blobs(&app).await.is_empty());
}

async fn a_failed_replacement_keeps_the_previous_version_readable(app: StorageApp) {
    create_bucket(&app, "b", false, Some(10), None).await;
    assert_eq!(send(&app, Kind::Chunked, "b", "keep.txt", Some("text/plain"), 5).await.0, 200);
    let over = request(&app, Method::POST, "/object/b/keep.txt", Some(&app.service_key))
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(
            (0..5).map(|_| Ok::<_, std::io::Error>(vec![b'y'; 5])),
        )))
        .send()
        .await
        .expect("send");
    assert_eq!(answer(over).await.1["statusCode"], "413");
    let got =
        request(&app, Method::GET, "/object/b/keep.txt", Some(&app.service_key)).send().await.expect("get");
    assert_eq!(got.text().await.expect("text"), "xxxxx");
    assert_eq!(blobs(&app).await.len(), 1);
}

async fn a_ten_megabyte_chunked_upload_streams_through_and_back(app: StorageApp) {
    create_bucket(&app, "big", false, None, None).await;
    let chunk: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    let chunks = 160; // 10 MiB
    let body = futures::stream::iter((0..chunks).map(move |i| {
        let mut c = chunk.clone();
        c[0] = i as u8;
        Ok::<_, std::io::Error>(c)
    }));
    let response = request(&app, Method::POST, "/object/big/ten.bin", Some(&app.service_key))
        .header("content-type", "application/octet-stream")
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .expect("send");
    let (status, body) = answer(response).await;
    assert_eq!(status, 200, "{body}");
    let got =
        request(&app, Method::GET, "/object/big/ten.bin", Some(&app.service_key)).send().await.expect("get");
    assert_eq!(got.headers()["content-length"], (chunks * 64 * 1024).to_string());
    let bytes = got.bytes().await.expect("bytes");
    assert_eq!(bytes.len(), chunks * 64 * 1024);
    assert_eq!(bytes[64 * 1024 * 7], 7);
}

async fn a_client_that_goes_away_mid_upload_leaves_no_row_and_no_bytes(app: StorageApp) {
    create_bucket(&app, "b", false, None, None).await;
    assert_eq!(send(&app, Kind::Declared, "b", "old.txt", Some("text/plain"), 3).await.0, 200);
    for (key, upsert) in [("new.txt", "false"), ("old.txt", "true")] {
        let address = app.address.trim_start_matches("http://").to_owned();
        let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
        let head = format!(
            "POST /storage/v1/object/b/{key} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: text/plain\r\nx-upsert: {upsert}\r\nContent-Length: 3000000\r\n\r\n",
            app.service_key
        );
        stream.write_all(head.as_bytes()).await.expect("head");
        stream.write_all(&vec![b'n'; 1_500_000]).await.expect("half the body");
        drop(stream);
    }
    // The old object is intact and nothing else remains, once the server noticed.
    let mut files = Vec::new();
    for _ in 0..50 {
        files = blobs(&app).await;
        if files.len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(files.len(), 1, "{files:?}");
    let got =
        request(&app, Method::GET, "/object/b/old.txt", Some(&app.service_key)).send().await.expect("get");
    assert_eq!(got.text().await.expect("text"), "xxx");
    let rows = app.admin().await.query("select count(*) from storage.objects", &[]).await.expect("count");
    assert_eq!(rows[0].get::<_, i64>(0), 1);
}

on_both_backends!(
    odd_but_valid_names_round_trip,
    the_mime_and_size_matrix_refuses_before_writing_and_writes_nothing,
    a_declared_length_over_the_limit_is_refused_before_the_body_is_read,
    a_refusal_before_the_body_closes_the_connection,
    a_refused_upload_is_answered_after_its_body_so_the_client_reads_the_refusal,
    a_failed_replacement_keeps_the_previous_version_readable,
    a_ten_megabyte_chunked_upload_streams_through_and_back,
    a_client_that_goes_away_mid_upload_leaves_no_row_and_no_bytes,
);
