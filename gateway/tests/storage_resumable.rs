//! Resumable uploads by raw TUS 1.0 requests at `/storage/v1/upload/resumable`,
//! on local disk and on S3 (moto): creation and its refusals, `PATCH` with
//! offsets, `HEAD`, termination, creation with bytes, deferred lengths, the
//! row-level security check before any byte, `x-upsert`, signed uploads, a
//! request cut midway and resumed on a second gateway of the same database,
//! two requests racing for one upload, expiry and the sweep.

mod common;
mod storage_support;

use std::time::Duration;

use base64::Engine;
use md5::{Digest, Md5};
use reqwest::{Method, Response};
use serde_json::{Value, json};

use common::{Options, TestApp, spawn_app_with};
use gateway::storage::sweep::{Event, Sweep};
use storage_support::*;

const TUS: &str = "/upload/resumable";

/// A case of a table: what it is, the request's headers, the status and text answered.
type Case<V> = (&'static str, Vec<(&'static str, V)>, u16, &'static str);

fn encode_metadata(pairs: &[(&str, &str)]) -> String {
    let b64 = |v: &str| base64::engine::general_purpose::STANDARD.encode(v);
    pairs.iter().map(|(k, v)| format!("{k} {}", b64(v))).collect::<Vec<_>>().join(",")
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

/// `POST` creating an upload of `length` bytes of `bucket/key`.
async fn create(
    app: &TestApp,
    token: &str,
    bucket: &str,
    key: &str,
    length: usize,
    upsert: bool,
) -> Response {
    request(app, Method::POST, TUS, Some(token))
        .header("tus-resumable", "1.0.0")
        .header("upload-length", length.to_string())
        .header("x-upsert", upsert.to_string())
        .header(
            "upload-metadata",
            encode_metadata(&[
                ("bucketName", bucket),
                ("objectName", key),
                ("contentType", "application/x-thing"),
                ("cacheControl", "3600"),
                ("metadata", r#"{"kind":"resumable"}"#),
            ]),
        )
        .send()
        .await
        .expect("create")
}

/// The upload's URL (`Location`, a path) after a successful creation.
async fn created(response: Response) -> String {
    let status = response.status().as_u16();
    let location = response.headers().get("location").map(|v| v.to_str().expect("location").to_owned());
    assert_eq!(status, 201, "{}", response.text().await.unwrap_or_default());
    let location = location.expect("a Location");
    assert!(location.starts_with("/storage/v1/upload/resumable/"), "{location}");
    location
}

async fn patch(app: &TestApp, token: &str, location: &str, offset: usize, body: Vec<u8>) -> Response {
    app.client
        .patch(format!("{}{location}", app.address))
        .bearer_auth(token)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", offset.to_string())
        .header("content-type", "application/offset+octet-stream")
        .body(body)
        .send()
        .await
        .expect("patch")
}

async fn head(app: &TestApp, token: &str, location: &str) -> Response {
    app.client
        .head(format!("{}{location}", app.address))
        .bearer_auth(token)
        .header("tus-resumable", "1.0.0")
        .send()
        .await
        .expect("head")
}

fn header(response: &Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|v| v.to_str().expect("header").to_owned())
}

async fn status_and_text(response: Response) -> (u16, String) {
    let status = response.status().as_u16();
    (status, response.text().await.expect("text"))
}

async fn object_row(app: &TestApp, bucket: &str, name: &str) -> Option<(Value, Option<Value>, String)> {
    let rows = app
        .admin()
        .await
        .query(
            "select metadata, user_metadata, version from storage.objects where bucket_id = $1 and name = $2",
            &[&bucket, &name],
        )
        .await
        .expect("select");
    rows.first().map(|row| (row.get(0), row.get(1), row.get(2)))
}

async fn downloaded(app: &TestApp, bucket: &str, key: &str) -> Vec<u8> {
    let response =
        request(app, Method::GET, &format!("/object/{bucket}/{}", encode(key)), Some(&app.service_key))
            .send()
            .await
            .expect("download");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("bytes").to_vec()
}

async fn uploads_left(app: &TestApp) -> i64 {
    let row = app
        .admin()
        .await
        .query_one("select count(*) from _gateway.resumable_uploads where not finished", &[])
        .await;
    row.expect("count").get(0)
}

/// A second gateway on the same database and the same store, as another
/// process behind a load balancer, or this one after a restart.
async fn second_gateway(app: &TestApp) -> TestApp {
    let mut api = common::cluster().cluster.pg_config("authenticator");
    api.dbname(&app.database);
    spawn_app_with(Options {
        config: app.state.config.as_ref().clone(),
        api: Some(api),
        routes: None,
        owner: None,
    })
    .await
}

/// A file of several S3 parts (5 MiB each), sent in requests that do not
/// end on part boundaries, comes out byte-identical with Storage's row: the
/// MD5 ETag, size, MIME type, cache control and user metadata.
async fn an_upload_in_several_requests_becomes_the_object_an_upload_makes(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let content = bytes(11 << 20);
    let location = created(create(&app, &key, "files", "big/file.bin", content.len(), false).await).await;

    let probe = head(&app, &key, &location).await;
    assert_eq!(probe.status(), 200);
    assert_eq!(header(&probe, "upload-offset").as_deref(), Some("0"));
    assert_eq!(header(&probe, "upload-length"), Some(content.len().to_string()));
    assert_eq!(header(&probe, "cache-control").as_deref(), Some("no-store"));
    assert_eq!(header(&probe, "tus-resumable").as_deref(), Some("1.0.0"));
    assert!(header(&probe, "upload-metadata").expect("metadata").contains("bucketName"));

    let cuts = [0, 3 << 20, 7 << 20, 9 << 20, content.len()];
    for pair in cuts.windows(2) {
        let response = patch(&app, &key, &location, pair[0], content[pair[0]..pair[1]].to_vec()).await;
        assert_eq!(response.status(), 204, "{}", response.text().await.unwrap_or_default());
        assert_eq!(header(&response, "upload-offset"), Some(pair[1].to_string()));
        if pair[1] < content.len() {
            assert!(header(&response, "upload-expires").expect("expiry").ends_with("GMT"));
            assert_eq!(object_row(&app, "files", "big/file.bin").await, None, "no row before the last byte");
        } else {
            assert_eq!(header(&response, "tus-complete").as_deref(), Some("1"));
        }
    }
    let (metadata, user_metadata, _) = object_row(&app, "files", "big/file.bin").await.expect("row");
    let etag = format!("\"{}\"", hex::encode(Md5::digest(&content)));
    assert_eq!(metadata["eTag"], json!(etag));
    assert_eq!(metadata["size"], json!(content.len()));
    assert_eq!(metadata["contentLength"], json!(content.len()));
    assert_eq!(metadata["mimetype"], json!("application/x-thing"));
    assert_eq!(metadata["cacheControl"], json!("max-age=3600"));
    assert_eq!(metadata["httpStatusCode"], json!(200));
    assert_eq!(user_metadata, Some(json!({ "kind": "resumable" })));
    assert!(downloaded(&app, "files", "big/file.bin").await == content, "the bytes differ");
    // Only the object's bytes are left: no part file, tail or multipart.
    assert_eq!(blobs(&app).await.len(), 1, "{:?}", blobs(&app).await);
    if app.backend == Backend::Local {
        assert_eq!(files_under(&storage_root(&app)).len(), 1);
    }

    // A finished upload answers HEAD with its whole length, and a repeated
    // last PATCH (its answer lost) with success.
    let done = head(&app, &key, &location).await;
    assert_eq!(header(&done, "upload-offset"), Some(content.len().to_string()));
    let again = patch(&app, &key, &location, content.len(), Vec::new()).await;
    assert_eq!(again.status(), 204);
    // Creating it again without x-upsert is refused before any byte.
    let (status, text) = status_and_text(create(&app, &key, "files", "big/file.bin", 10, false).await).await;
    assert_eq!((status, text.as_str()), (409, "The resource already exists"));
}

/// TUS's own answers to requests that break the protocol, and Storage's to
/// uploads it refuses, as plain text with their real status.
async fn refusals_come_with_tus_statuses_and_storages_messages(app: StorageApp) {
    create_bucket(&app, "files", false, Some(1000), Some(&["text/*", "application/x-thing"])).await;
    let key = app.service_key.clone();
    let good =
        encode_metadata(&[("bucketName", "files"), ("objectName", "a.txt"), ("contentType", "text/plain")]);
    let cases: Vec<Case<String>> = vec![
        (
            "no protocol version",
            vec![("upload-length", "5".into()), ("upload-metadata", good.clone())],
            412,
            "Tus-Resumable Required\n",
        ),
        (
            "no length",
            vec![("tus-resumable", "1.0.0".into()), ("upload-metadata", good.clone())],
            400,
            "Upload-Length or Upload-Defer-Length header required\n",
        ),
        (
            "both lengths",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                ("upload-defer-length", "1".into()),
                ("upload-metadata", good.clone()),
            ],
            400,
            "Upload-Length or Upload-Defer-Length header required\n",
        ),
        (
            "no metadata",
            vec![("tus-resumable", "1.0.0".into()), ("upload-length", "5".into())],
            400,
            "Metadata header is required",
        ),
        (
            "broken metadata",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                ("upload-metadata", "bucketName !!".into()),
            ],
            400,
            "Invalid upload-metadata\n",
        ),
        (
            "a key out of the bucket",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                (
                    "upload-metadata",
                    encode_metadata(&[("bucketName", "files"), ("objectName", "../../etc/x")]),
                ),
            ],
            400,
            "Invalid key: ../../etc/x",
        ),
        (
            "no such bucket",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                ("upload-metadata", encode_metadata(&[("bucketName", "nope"), ("objectName", "a.txt")])),
            ],
            404,
            "Bucket not found",
        ),
        (
            "over the bucket's limit",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "1001".into()),
                ("upload-metadata", good.clone()),
            ],
            413,
            "Maximum size exceeded\n",
        ),
        (
            "a MIME type the bucket refuses",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                (
                    "upload-metadata",
                    encode_metadata(&[
                        ("bucketName", "files"),
                        ("objectName", "a.png"),
                        ("contentType", "image/png"),
                    ]),
                ),
            ],
            415,
            "mime type image/png is not supported",
        ),
        (
            "parallel uploads",
            vec![
                ("tus-resumable", "1.0.0".into()),
                ("upload-length", "5".into()),
                ("upload-concat", "partial".into()),
                ("upload-metadata", good.clone()),
            ],
            501,
            "Concatenation extension is not (yet) supported. Disable parallel uploads in the tus client.\n",
        ),
    ];
    for (case, headers, status, text) in cases {
        let mut builder = request(&app, Method::POST, TUS, Some(&key));
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let response = builder.send().await.expect("send");
        assert_eq!(header(&response, "location"), None, "{case}");
        assert_eq!(header(&response, "tus-version").as_deref(), Some("1.0.0"), "{case}");
        let content_type = header(&response, "content-type");
        assert_eq!(content_type.as_deref(), Some("text/plain; charset=utf-8"), "{case}");
        assert_eq!(status_and_text(response).await, (status, text.to_owned()), "{case}");
    }
    if app.backend == Backend::Local {
        // A key part longer than a file name fits S3, not local disk.
        let long = "n".repeat(300);
        let (status, text) = status_and_text(create(&app, &key, "files", &long, 5, false).await).await;
        assert_eq!(
            (status, text.as_str()),
            (400, "Invalid key: a part of the key is longer than the store allows")
        );
    }
    assert!(blobs(&app).await.is_empty());
    assert!(files_under(&storage_root(&app)).is_empty());
    assert_eq!(uploads_left(&app).await, 0);

    let location = created(create(&app, &key, "files", "a.txt", 10, false).await).await;
    let patch_with = |headers: Vec<(&'static str, &'static str)>| {
        let mut builder =
            app.client.patch(format!("{}{location}", app.address)).bearer_auth(&key).body("hello");
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        builder.send()
    };
    let patches: Vec<Case<&str>> = vec![
        (
            "no offset",
            vec![("tus-resumable", "1.0.0"), ("content-type", "application/offset+octet-stream")],
            403,
            "Upload-Offset header required\n",
        ),
        (
            "no content type",
            vec![("tus-resumable", "1.0.0"), ("upload-offset", "0")],
            403,
            "Content-Type header required\n",
        ),
        (
            "another content type",
            vec![("tus-resumable", "1.0.0"), ("upload-offset", "0"), ("content-type", "text/plain")],
            400,
            "Invalid content-type\n",
        ),
        (
            "a negative offset",
            vec![
                ("tus-resumable", "1.0.0"),
                ("upload-offset", "-1"),
                ("content-type", "application/offset+octet-stream"),
            ],
            400,
            "Invalid upload-offset\n",
        ),
        (
            "the wrong offset",
            vec![
                ("tus-resumable", "1.0.0"),
                ("upload-offset", "3"),
                ("content-type", "application/offset+octet-stream"),
            ],
            409,
            "Upload-Offset conflict\n",
        ),
    ];
    for (case, headers, status, text) in patches {
        let response = patch_with(headers).await.expect("send");
        assert_eq!(status_and_text(response).await, (status, text.to_owned()), "{case}");
    }
    let (status, text) = status_and_text(patch(&app, &key, &location, 0, bytes(11)).await).await;
    assert_eq!((status, text.as_str()), (413, "upload's size exceeded\n"));
    let unknown = "/storage/v1/upload/resumable/".to_owned()
        + &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(format!("files/a.txt/{}", uuid::Uuid::new_v4()));
    assert_eq!(head(&app, &key, &unknown).await.status(), 404);
    let (status, text) = status_and_text(patch(&app, &key, &unknown, 0, bytes(1)).await).await;
    assert_eq!((status, text.as_str()), (404, "The file for this url was not found\n"));
    let (status, text) =
        status_and_text(patch(&app, &key, "/storage/v1/upload/resumable/bm9wZQ", 0, bytes(1)).await).await;
    assert_eq!((status, text.as_str()), (400, "Invalid upload id"));
    // Nothing above moved the upload.
    assert_eq!(header(&head(&app, &key, &location).await, "upload-offset").as_deref(), Some("0"));

    let options = app.client.request(Method::OPTIONS, url(&app, TUS)).send().await.expect("options");
    assert_eq!(options.status(), 204);
    assert_eq!(header(&options, "tus-version").as_deref(), Some("1.0.0"));
    assert_eq!(
        header(&options, "tus-extension").as_deref(),
        Some("creation,creation-with-upload,creation-defer-length,termination,expiration")
    );
    assert_eq!(header(&options, "tus-max-size"), Some(app.state.config.storage.file_size_limit.to_string()));
}

/// Termination removes an unfinished upload and its bytes; a finished one
/// cannot be terminated.
async fn a_terminated_upload_leaves_nothing(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let location = created(create(&app, &key, "files", "gone.bin", 6 << 20, false).await).await;
    assert_eq!(patch(&app, &key, &location, 0, bytes(5_500_000)).await.status(), 204);
    let delete = |location: String| {
        app.client
            .delete(format!("{}{location}", app.address))
            .bearer_auth(&key)
            .header("tus-resumable", "1.0.0")
            .send()
    };
    assert_eq!(delete(location.clone()).await.expect("delete").status(), 204);
    assert_eq!(head(&app, &key, &location).await.status(), 404);
    assert!(blobs(&app).await.is_empty(), "{:?}", blobs(&app).await);
    assert!(files_under(&storage_root(&app)).is_empty());
    assert_eq!(uploads_left(&app).await, 0);

    let location = created(create(&app, &key, "files", "kept.bin", 3, false).await).await;
    assert_eq!(patch(&app, &key, &location, 0, b"abc".to_vec()).await.status(), 204);
    let (status, text) = status_and_text(delete(location).await.expect("delete")).await;
    assert_eq!((status, text.as_str()), (400, "Cannot terminate an already completed upload"));
    assert_eq!(downloaded(&app, "files", "kept.bin").await, b"abc");
}

/// Bytes in the creation request (`creation-with-upload`), an empty upload,
/// and a length declared later (`creation-defer-length`).
async fn creation_can_carry_bytes_and_defer_the_length(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let metadata = |name: &str| encode_metadata(&[("bucketName", "files"), ("objectName", name)]);
    let response = request(&app, Method::POST, TUS, Some(&key))
        .header("tus-resumable", "1.0.0")
        .header("upload-length", "11")
        .header("upload-metadata", metadata("whole.txt"))
        .header("content-type", "application/offset+octet-stream")
        .body("hello world")
        .send()
        .await
        .expect("send");
    assert_eq!(header(&response, "upload-offset").as_deref(), Some("11"));
    assert_eq!(header(&response, "tus-complete").as_deref(), Some("1"));
    created(response).await;
    assert_eq!(downloaded(&app, "files", "whole.txt").await, b"hello world");
    let (metadata_column, _, _) = object_row(&app, "files", "whole.txt").await.expect("row");
    assert_eq!(metadata_column["mimetype"], json!("application/octet-stream"));
    assert_eq!(metadata_column["cacheControl"], json!("no-cache"));

    let empty = request(&app, Method::POST, TUS, Some(&key))
        .header("tus-resumable", "1.0.0")
        .header("upload-length", "0")
        .header("upload-metadata", metadata("empty.txt"))
        .send()
        .await
        .expect("send");
    created(empty).await;
    assert_eq!(downloaded(&app, "files", "empty.txt").await, b"");

    let deferred = request(&app, Method::POST, TUS, Some(&key))
        .header("tus-resumable", "1.0.0")
        .header("upload-defer-length", "1")
        .header("upload-metadata", metadata("later.txt"))
        .send()
        .await
        .expect("send");
    let location = created(deferred).await;
    assert_eq!(header(&head(&app, &key, &location).await, "upload-defer-length").as_deref(), Some("1"));
    assert_eq!(patch(&app, &key, &location, 0, b"first ".to_vec()).await.status(), 204);
    let last = app
        .client
        .patch(format!("{}{location}", app.address))
        .bearer_auth(&key)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "6")
        .header("upload-length", "11")
        .header("content-type", "application/offset+octet-stream")
        .body("later")
        .send()
        .await
        .expect("send");
    assert_eq!(last.status(), 204);
    assert_eq!(downloaded(&app, "files", "later.txt").await, b"first later");
}

/// The object's row is tried as the caller before any byte is stored, at
/// creation and at every PATCH, as a normal upload's; `x-upsert` needs the
/// update policy too.
async fn row_level_security_decides_before_any_byte(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    sql(
        &app,
        "create policy inbox on storage.objects for insert to authenticated \
           with check (bucket_id = 'files' and name like 'inbox/%'); \
         create policy reread on storage.objects for select to authenticated using (bucket_id = 'files');",
    )
    .await;
    let user = app.user_token("5c0b7f60-2b8e-4f5b-9a9e-3b0d1c2e4f61");
    let (status, text) = status_and_text(create(&app, &user, "files", "private/x.bin", 5, false).await).await;
    assert_eq!((status, text.as_str()), (403, "new row violates row-level security policy"));
    let (status, _) =
        status_and_text(create(&app, &app.anon_key, "files", "inbox/x.bin", 5, false).await).await;
    assert_eq!(status, 403);
    assert_eq!(uploads_left(&app).await, 0);
    assert!(blobs(&app).await.is_empty());
    assert!(files_under(&storage_root(&app)).is_empty());

    let location = created(create(&app, &user, "files", "inbox/x.bin", 5, false).await).await;
    // Another user may not write it, even with its URL.
    let other = app.user_token("0e1d2c3b-4a59-4687-9a6b-5c4d3e2f1a0b");
    sql(&app, "drop policy inbox on storage.objects").await;
    let (status, _) = status_and_text(patch(&app, &other, &location, 0, b"hello".to_vec()).await).await;
    assert_eq!(status, 403);
    sql(&app, "create policy inbox on storage.objects for insert to authenticated with check (owner_id = auth.uid()::text)").await;
    let (status, _) = status_and_text(patch(&app, &other, &location, 0, b"hello".to_vec()).await).await;
    assert_eq!(status, 204, "the policy lets the other user add their own object");
    let (_, _, _) = object_row(&app, "files", "inbox/x.bin").await.expect("row");
    let owner: Option<String> = app
        .admin()
        .await
        .query_one("select owner_id from storage.objects where name = 'inbox/x.bin'", &[])
        .await
        .expect("owner")
        .get(0);
    assert_eq!(
        owner.as_deref(),
        Some("0e1d2c3b-4a59-4687-9a6b-5c4d3e2f1a0b"),
        "the finishing caller owns it"
    );

    // x-upsert over an existing object needs an update policy as well.
    let (status, text) = status_and_text(create(&app, &other, "files", "inbox/x.bin", 5, true).await).await;
    assert_eq!((status, text.as_str()), (403, "new row violates row-level security policy"));
    sql(&app, "create policy change on storage.objects for update to authenticated using (owner_id = auth.uid()::text)").await;
    let location = created(create(&app, &other, "files", "inbox/x.bin", 5, true).await).await;
    assert_eq!(patch(&app, &other, &location, 0, b"again".to_vec()).await.status(), 204);
    assert_eq!(downloaded(&app, "files", "inbox/x.bin").await, b"again");
    assert_eq!(blobs(&app).await.len(), 1, "the replaced version's bytes are gone");
}

/// A signed upload URL's token in `x-signature` stands in for a caller at
/// `/upload/resumable/sign`, and names the owner.
async fn signed_upload_urls_work_without_a_caller(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    sql(&app, "create policy anyone on storage.objects for insert to authenticated with check (true)").await;
    let user = app.user_token("5c0b7f60-2b8e-4f5b-9a9e-3b0d1c2e4f61");
    let (status, signed) = answer(
        request(&app, Method::POST, "/object/upload/sign/files/signed.txt", Some(&user))
            .send()
            .await
            .expect("sign"),
    )
    .await;
    assert_eq!(status, 200, "{signed}");
    let token = signed["token"].as_str().expect("token").to_owned();
    let sign_create = |signature: Option<&str>, name: &str| {
        let mut builder = app
            .client
            .post(url(&app, "/upload/resumable/sign"))
            .header("tus-resumable", "1.0.0")
            .header("upload-length", "6")
            .header("upload-metadata", encode_metadata(&[("bucketName", "files"), ("objectName", name)]));
        if let Some(signature) = signature {
            builder = builder.header("x-signature", signature);
        }
        builder.send()
    };
    let (status, text) = status_and_text(sign_create(None, "signed.txt").await.expect("send")).await;
    assert_eq!((status, text.as_str()), (400, "Missing x-signature header"));
    let (status, _) = status_and_text(sign_create(Some(&token), "other.txt").await.expect("send")).await;
    assert_eq!(status, 400, "the token is for one object only");
    let response = sign_create(Some(&token), "signed.txt").await.expect("send");
    let location = created(response).await;
    assert!(location.starts_with("/storage/v1/upload/resumable/sign/"), "{location}");
    let response = app
        .client
        .patch(format!("{}{location}", app.address))
        .header("tus-resumable", "1.0.0")
        .header("x-signature", &token)
        .header("upload-offset", "0")
        .header("content-type", "application/offset+octet-stream")
        .body("signed")
        .send()
        .await
        .expect("patch");
    assert_eq!(response.status(), 204);
    assert_eq!(downloaded(&app, "files", "signed.txt").await, b"signed");
    let owner: Option<String> = app
        .admin()
        .await
        .query_one("select owner_id from storage.objects where name = 'signed.txt'", &[])
        .await
        .expect("owner")
        .get(0);
    assert_eq!(owner.as_deref(), Some("5c0b7f60-2b8e-4f5b-9a9e-3b0d1c2e4f61"));
}

/// A PATCH whose client goes away midway keeps the bytes that arrived; the
/// upload continues on another gateway of the same database (as after a
/// restart) and ends byte-identical.
async fn an_interrupted_upload_resumes_on_another_gateway(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let content = bytes(13 << 20);
    let location = created(create(&app, &key, "files", "resumed.bin", content.len(), false).await).await;
    // 7 MiB arrive, then the body fails: reqwest drops the connection.
    let sent: Vec<Result<Vec<u8>, std::io::Error>> = content[..7 << 20]
        .chunks(1 << 20)
        .map(|c| Ok(c.to_vec()))
        .chain(std::iter::once(Err(std::io::Error::other("the client went away"))))
        .collect();
    let cut = app
        .client
        .patch(format!("{}{location}", app.address))
        .bearer_auth(&key)
        .header("tus-resumable", "1.0.0")
        .header("upload-offset", "0")
        .header("content-type", "application/offset+octet-stream")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(sent)))
        .send()
        .await;
    assert!(cut.is_err(), "the request was cut");

    let other = second_gateway(&app).await;
    let mut offset = None;
    for _ in 0..50 {
        let probe = head(&other, &key, &location).await;
        if probe.status() == 200 {
            offset = header(&probe, "upload-offset").map(|o| o.parse::<usize>().expect("offset"));
            if offset.is_some_and(|o| o > 0) {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let offset = offset.expect("an offset");
    // Everything received is kept on local disk; on S3 what fills whole parts
    // (and the rest in its tail blob).
    assert!(offset > 0 && offset <= 7 << 20, "{offset}");
    let response = patch(&other, &key, &location, offset, content[offset..].to_vec()).await;
    assert_eq!(response.status(), 204, "{}", response.text().await.unwrap_or_default());
    assert!(downloaded(&app, "files", "resumed.bin").await == content, "the bytes differ");
    let (metadata, _, _) = object_row(&app, "files", "resumed.bin").await.expect("row");
    assert_eq!(metadata["eTag"], json!(format!("\"{}\"", hex::encode(Md5::digest(&content)))));
    assert_eq!(blobs(&app).await.len(), 1, "{:?}", blobs(&app).await);
}

/// Two requests for one upload never write it at once: the second asks the
/// first to stop, which saves what it has; the second then finds the offset
/// moved (409) and the client continues from the offset HEAD gives.
async fn racing_requests_do_not_corrupt_an_upload(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let content = bytes(6 << 20);
    let location = created(create(&app, &key, "files", "raced.bin", content.len(), false).await).await;
    // The first request sends 1 MiB, then stalls.
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(4);
    sender.send(Ok(content[..1 << 20].to_vec())).await.expect("send");
    let slow = {
        let request = app
            .client
            .patch(format!("{}{location}", app.address))
            .bearer_auth(&key)
            .header("tus-resumable", "1.0.0")
            .header("upload-offset", "0")
            .header("content-type", "application/offset+octet-stream")
            .body(reqwest::Body::wrap_stream(futures::stream::unfold(receiver, |mut r| async move {
                r.recv().await.map(|item| (item, r))
            })));
        tokio::spawn(request.send())
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = patch(&app, &key, &location, 0, content.clone()).await;
    let (status, text) = status_and_text(second).await;
    // The stopped request's answer waits for the rest of its body (`storage::drain`).
    drop(sender);
    let stopped = slow.await.expect("join");
    let probe = head(&app, &key, &location).await;
    let offset: usize = header(&probe, "upload-offset").expect("offset").parse().expect("number");
    if status == 204 {
        // The first had stored nothing yet (S3 keeps less than a part in memory).
        assert_eq!(offset, content.len());
    } else {
        assert_eq!((status, text.as_str()), (409, "Upload-Offset conflict\n"));
        let first = stopped.expect("the first request was answered");
        assert_eq!(first.status(), 400, "the first request was stopped");
        let response = patch(&app, &key, &location, offset, content[offset..].to_vec()).await;
        assert_eq!(response.status(), 204);
    }
    assert!(downloaded(&app, "files", "raced.bin").await == content, "the bytes differ");
}

/// A lease held by a gateway that died (nobody answers its release request)
/// keeps others out for at most five seconds each (503, Storage's
/// `LockTimeout`) and is free once it expires.
async fn a_dead_gateways_lease_expires(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let location = created(create(&app, &key, "files", "held.bin", 4, false).await).await;
    let hold = "update _gateway.resumable_uploads set lock_token = gen_random_uuid(), \
                lock_expires = now() + interval '1 hour' where name = 'held.bin'";
    app.admin().await.execute(hold, &[]).await.expect("hold");
    let started = std::time::Instant::now();
    let (status, text) = status_and_text(patch(&app, &key, &location, 0, b"data".to_vec()).await).await;
    assert_eq!((status, text.as_str()), (503, "acquiring lock timeout"));
    assert!(started.elapsed() >= Duration::from_secs(5), "{:?}", started.elapsed());
    let expire = "update _gateway.resumable_uploads set lock_expires = now() - interval '1 second' \
                  where name = 'held.bin'";
    app.admin().await.execute(expire, &[]).await.expect("expire the lease");
    assert_eq!(patch(&app, &key, &location, 0, b"data".to_vec()).await.status(), 204);
    assert_eq!(downloaded(&app, "files", "held.bin").await, b"data");
}

/// An upload past its expiry answers 410; the sweep ends it and removes its
/// bytes, while the bytes of a live upload stay, however old.
async fn expired_uploads_are_swept_and_live_ones_kept(app: StorageApp) {
    create_bucket(&app, "files", false, None, None).await;
    let key = app.service_key.clone();
    let live = created(create(&app, &key, "files", "live.bin", 6 << 20, false).await).await;
    assert_eq!(patch(&app, &key, &live, 0, bytes(5_600_000)).await.status(), 204);
    let old = created(create(&app, &key, "files", "old.bin", 6 << 20, false).await).await;
    assert_eq!(patch(&app, &key, &old, 0, bytes(5_600_000)).await.status(), 204);
    app.admin()
        .await
        .execute("update _gateway.resumable_uploads set expires_at = now() - interval '1 second' where name = 'old.bin'", &[])
        .await
        .expect("expire");
    let (status, text) = status_and_text(patch(&app, &key, &old, 5_600_000, bytes(10)).await).await;
    assert_eq!((status, text.as_str()), (410, "The file for this url no longer exists\n"));
    assert_eq!(head(&app, &key, &old).await.status(), 410);

    let stored_before = blobs(&app).await.len() + files_under(&storage_root(&app)).len();
    let sweep = Sweep { db: &app.state.db, store: &app.state.store, grace: Duration::ZERO, dry_run: true };
    let report = sweep.run(None, &mut |_: &Event| {}).await.expect("dry run");
    assert_eq!(report.expired_uploads, 1);
    assert_eq!(blobs(&app).await.len() + files_under(&storage_root(&app)).len(), stored_before);
    let sweep = Sweep { dry_run: false, ..sweep };
    let report = sweep.run(None, &mut |_: &Event| {}).await.expect("sweep");
    assert_eq!(report.expired_uploads, 1);
    assert!(report.to_string().ends_with("; 1 expired resumable uploads ended"), "{report}");
    assert_eq!(report.orphans, 0, "{report}");
    assert_eq!(head(&app, &key, &old).await.status(), 404);
    assert_eq!(uploads_left(&app).await, 1);
    assert!(blobs(&app).await.iter().all(|b| !b.contains("old.bin")), "{:?}", blobs(&app).await);
    assert!(files_under(&storage_root(&app)).iter().all(|f| !f.to_string_lossy().contains("old.bin")));

    // The live upload's bytes survived a sweep with no grace period at all.
    let content = bytes(6 << 20);
    let response = patch(&app, &key, &live, 5_600_000, content[5_600_000..].to_vec()).await;
    assert_eq!(response.status(), 204);
    assert!(downloaded(&app, "files", "live.bin").await == content);
}

/// Generated TUS requests, valid and not (methods, ids, offsets, lengths,
/// metadata, bodies and tokens picked from tables), are all answered below
/// 500, and every upload they finish reads back whole.
async fn generated_requests_are_never_answered_with_a_server_error(app: StorageApp) {
    create_bucket(&app, "files", false, Some(5000), Some(&["text/*", "application/*"])).await;
    let key = app.service_key.clone();
    let user = app.user_token("5c0b7f60-2b8e-4f5b-9a9e-3b0d1c2e4f61");
    let good = created(create(&app, &key, "files", "fuzz/a.bin", 4000, true).await).await;
    let mut locations = vec![good.clone(), good, "/storage/v1/upload/resumable".to_owned()];
    let b64 = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    locations.push(format!("/storage/v1/upload/resumable/{}", b64("files/fuzz/a.bin/not-a-uuid")));
    locations
        .push(format!("/storage/v1/upload/resumable/{}", b64(&format!("nope/x/{}", uuid::Uuid::new_v4()))));
    locations.push("/storage/v1/upload/resumable/%00".to_owned());
    locations.push("/storage/v1/upload/resumable/sign/abc".to_owned());
    let mut seed: u64 = 0x5eed_0019;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let metadata = [
        encode_metadata(&[
            ("bucketName", "files"),
            ("objectName", "fuzz/b.txt"),
            ("contentType", "text/plain"),
        ]),
        encode_metadata(&[
            ("bucketName", "files"),
            ("objectName", "fuzz/c.png"),
            ("contentType", "image/png"),
        ]),
        encode_metadata(&[("bucketName", "files"), ("objectName", "fuzz/d"), ("metadata", "{nope")]),
        encode_metadata(&[("bucketName", "files"), ("objectName", "")]),
        "bucketName,objectName".to_owned(),
        "bucketName ZmlsZXM=,bucketName ZmlsZXM=".to_owned(),
        "bucketName !!".to_owned(),
    ];
    let mut served = 0;
    for round in 0..400 {
        let method = ["POST", "PATCH", "HEAD", "DELETE", "OPTIONS", "PATCH", "GET"][next(7)];
        let location = if method == "POST" && next(3) > 0 {
            ["/storage/v1/upload/resumable", "/storage/v1/upload/resumable/sign"][next(2)].to_owned()
        } else {
            locations[next(locations.len())].clone()
        };
        let mut builder =
            app.client.request(method.parse().expect("method"), format!("{}{location}", app.address));
        match next(4) {
            0 => {}
            1 => builder = builder.bearer_auth(&user),
            2 => builder = builder.header("x-signature", "a.b.c"),
            _ => builder = builder.bearer_auth(&key),
        }
        if next(6) > 0 {
            builder = builder.header("tus-resumable", ["1.0.0", "1.0.0", "0.2.2", ""][next(4)]);
        }
        for (name, values) in [
            ("upload-offset", &["0", "0", "1", "100", "-1", "x", "99999999999999999999", "4000"][..]),
            ("upload-length", &["10", "0", "5001", "4000", "-3", "1e3"][..]),
            ("upload-defer-length", &["1", "0", "yes"][..]),
            (
                "content-type",
                &["application/offset+octet-stream", "application/offset+octet-stream", "text/plain"][..],
            ),
            ("x-upsert", &["true", "false", "x"][..]),
        ] {
            if next(3) == 0 {
                builder = builder.header(name, values[next(values.len())]);
            }
        }
        if next(2) == 0 {
            builder = builder.header("upload-metadata", metadata[next(metadata.len())].as_str());
        }
        if method != "HEAD" && method != "GET" && next(2) == 0 {
            builder = builder.body(bytes([0, 1, 10, 999, 4000, 6000][next(6)]));
        }
        let response = builder.send().await.expect("send");
        let status = response.status().as_u16();
        if let Some(new) = header(&response, "location") {
            locations.push(new);
        }
        assert!(status < 500, "round {round}: {method} {location}: {status}");
        served += 1;
    }
    assert_eq!(served, 400);
    // Whatever finished is whole: the size its row says is what downloads.
    let rows = app
        .admin()
        .await
        .query("select name, (metadata->>'size')::bigint from storage.objects where bucket_id = 'files'", &[])
        .await
        .expect("rows");
    for row in rows {
        let (name, size): (String, i64) = (row.get(0), row.get(1));
        assert_eq!(downloaded(&app, "files", &name).await.len() as i64, size, "{name}");
    }
}

on_both_backends!(
    an_upload_in_several_requests_becomes_the_object_an_upload_makes,
    refusals_come_with_tus_statuses_and_storages_messages,
    a_terminated_upload_leaves_nothing,
    creation_can_carry_bytes_and_defer_the_length,
    row_level_security_decides_before_any_byte,
    signed_upload_urls_work_without_a_caller,
    an_interrupted_upload_resumes_on_another_gateway,
    racing_requests_do_not_corrupt_an_upload,
    a_dead_gateways_lease_expires,
    expired_uploads_are_swept_and_live_ones_kept,
    generated_requests_are_never_answered_with_a_server_error,
);
