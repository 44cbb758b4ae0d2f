//! `/storage/v1/render/image/{public,authenticated,sign}/...`: images
//! transformed with the download routes' permission checks, WebP for the
//! clients that accept it, ETag/304 and ranges, variants that never outlive
//! their source, and a REST API that stays responsive under a transform storm.

mod common;
mod storage_support;

use std::io::Cursor;
use std::time::{Duration, Instant};

use image::{GenericImageView, ImageFormat};
use reqwest::Method;
use serde_json::json;

use common::{Options, TestApp, spawn_app, spawn_app_with, test_config};
use storage_support::*;

/// A JPEG of `width` x `height` with some detail in it.
fn jpeg(width: u32, height: u32, tint: u8) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, tint.wrapping_add(((x ^ y) % 64) as u8)])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90).encode_image(&image).expect("jpeg");
    out
}

async fn get(app: &TestApp, path: &str, token: Option<&str>, accept: &str) -> reqwest::Response {
    request(app, Method::GET, path, token).header("accept", accept).send().await.expect("send")
}

/// Dimensions and format of an answer's bytes.
async fn picture(response: reqwest::Response) -> (u16, String, (u32, u32)) {
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or("").to_owned())
        .unwrap_or_default();
    let bytes = response.bytes().await.expect("body");
    if kind == "image/avif" {
        return (status, kind, avif_size(&bytes).expect("an AVIF file declares its size"));
    }
    let image = image::load_from_memory(&bytes).unwrap_or_else(|e| {
        panic!(
            "{status} {kind}: not an image ({e}): {:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        )
    });
    (status, kind, image.dimensions())
}

/// The size an AVIF file declares in its `ispe` box (ISO/IEC 23008-12:
/// version and flags, then width and height, 32 bits each); the `image`
/// crate here does not decode AVIF.
fn avif_size(avif: &[u8]) -> Option<(u32, u32)> {
    assert_eq!(avif.get(4..12), Some(&b"ftypavif"[..]), "an AVIF file");
    let at = avif.windows(4).position(|w| w == b"ispe")? + 8;
    let word = |i: usize| avif.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    Some((word(at)?, word(at + 4)?))
}

async fn with_photo(app: &TestApp, bucket: &str, public: bool, content_type: &str) {
    create_bucket(app, bucket, public, None, None).await;
    let (status, body) =
        upload(app, Some(&app.service_key), bucket, "p/photo.jpg", jpeg(800, 600, 0), content_type, true)
            .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn sizes_and_formats_follow_the_query_and_the_accept_header() {
    let app = spawn_app().await;
    // Uploaded as storage-js uploads a Buffer: the type says nothing, the bytes do.
    with_photo(&app, "pics", true, "text/plain;charset=UTF-8").await;
    let path = "/render/image/public/pics/p/photo.jpg";
    let cases = [
        ("?width=200&height=200", "*/*", "image/jpeg", (200, 200)),
        ("?width=200&height=200&resize=contain", "*/*", "image/jpeg", (200, 150)),
        ("?width=200&height=200&resize=fill", "*/*", "image/jpeg", (200, 200)),
        ("?width=400", "*/*", "image/jpeg", (400, 300)),
        // A client taking AVIF gets the smaller of AVIF and WebP.
        ("?height=150", "image/avif,image/webp,*/*", "image/avif|image/webp", (200, 150)),
        ("?width=200&format=avif", "*/*", "image/avif", (200, 150)),
        ("?width=200&format=webp", "image/avif,*/*", "image/webp", (200, 150)),
        ("?width=200&format=origin", "image/webp,*/*", "image/jpeg", (200, 150)),
        ("?width=200&format=webp", "*/*", "image/webp", (200, 150)),
        ("?width=200&quality=20", "image/webp", "image/webp", (200, 150)),
        // Never enlarged; clamped to 2500.
        ("?width=5000", "*/*", "image/jpeg", (800, 600)),
        ("", "*/*", "image/jpeg", (800, 600)),
    ];
    for (query, accept, kind, size) in cases {
        let (status, got, dimensions) =
            picture(get(&app, &format!("{path}{query}"), None, accept).await).await;
        assert_eq!((status, dimensions), (200, size), "{query} {accept}");
        assert!(kind.split('|').any(|k| k == got), "{query} {accept}: {got}, expected {kind}");
    }
    let small = get(&app, &format!("{path}?width=200&quality=20"), None, "image/webp")
        .await
        .bytes()
        .await
        .expect("body");
    let fine = get(&app, &format!("{path}?width=200&quality=95"), None, "image/webp")
        .await
        .bytes()
        .await
        .expect("body");
    assert!(small.len() < fine.len(), "quality 20 ({}) is smaller than 95 ({})", small.len(), fine.len());
    let header = get(&app, &format!("{path}?width=200&height=100&quality=60"), None, "*/*").await;
    assert_eq!(header.headers()["x-transformations"], "height:100,width:200,resizing_type:fill,quality:60");
    assert_eq!(header.headers()["vary"], "Accept");
}

#[tokio::test]
async fn bad_parameters_and_sources_get_storage_s_errors() {
    let app = spawn_app().await;
    with_photo(&app, "pics", true, "image/jpeg").await;
    upload(&app, Some(&app.service_key), "pics", "notes.txt", b"not a picture".to_vec(), "text/plain", false)
        .await;
    // A PNG whose header claims 100000 x 100000 pixels: refused before decoding.
    let mut bomb = Vec::new();
    image::RgbImage::new(1, 1).write_to(&mut Cursor::new(&mut bomb), ImageFormat::Png).expect("png");
    bomb[16..24].copy_from_slice(&[0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0]);
    let crc = png_crc(&bomb[12..29]);
    bomb[29..33].copy_from_slice(&crc.to_be_bytes());
    upload(&app, Some(&app.service_key), "pics", "bomb.png", bomb, "image/png", false).await;
    let cases = [
        ("p/photo.jpg?width=-1", "400", "querystring/width must be >= 0"),
        ("p/photo.jpg?quality=10", "400", "querystring/quality must be >= 20"),
        ("p/photo.jpg?quality=101", "400", "querystring/quality must be <= 100"),
        ("p/photo.jpg?resize=squash", "400", "querystring/resize must be equal to one of the allowed values"),
        ("notes.txt?width=10", "400", "The source image is invalid or unsupported for rendering"),
        ("bomb.png?width=10", "400", "The source image resolution is too large to process"),
        ("missing.jpg?width=10", "404", "Object not found"),
    ];
    for (path, code, message) in cases {
        let response = get(&app, &format!("/render/image/public/pics/{path}"), None, "*/*").await;
        let (status, body) = answer(response).await;
        assert_eq!(
            (status, body["statusCode"].clone(), body["message"].clone()),
            (400, json!(code), json!(message)),
            "{path}"
        );
    }
}

fn png_crc(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[tokio::test]
async fn each_route_checks_permissions_as_its_download_route_does() {
    let app = spawn_app().await;
    with_photo(&app, "private", false, "image/jpeg").await;
    sql(
        &app,
        "create policy staff_reads on storage.objects for select to authenticated using (bucket_id = 'private')",
    )
    .await;
    let user = app.user_token("7a6b5c4d-0000-4000-8000-000000000002");
    let q = "p/photo.jpg?width=100";
    let cases = [
        (format!("/render/image/public/private/{q}"), None, "NoSuchBucket"),
        (format!("/render/image/authenticated/private/{q}"), None, "AccessDenied"),
        (format!("/render/image/authenticated/private/{q}"), Some(app.anon_key.clone()), "NoSuchKey"),
        (format!("/render/image/authenticated/private/{q}"), Some(user.clone()), ""),
        (format!("/render/image/sign/private/{q}&token=forged"), None, "InvalidJWT"),
    ];
    for (path, token, code) in cases {
        let response = get(&app, &path, token.as_deref(), "*/*").await;
        let (status, body) = answer(response).await;
        if code.is_empty() {
            assert_eq!(status, 200, "{path}");
        } else {
            assert_eq!((status, body["code"].clone()), (400, json!(code)), "{path}: {body}");
        }
    }
    // A signed URL carries its transform; the query cannot change it.
    let (status, signed) = answer(
        request(&app, Method::POST, "/object/sign/private/p/photo.jpg", Some(&user))
            .json(&json!({"expiresIn": 60, "transform": {"width": 120, "height": 90, "resize": "contain", "quality": 60}}))
            .send()
            .await
            .expect("sign"),
    )
    .await;
    assert_eq!(status, 200, "{signed}");
    let url = signed["signedURL"].as_str().expect("url").to_owned();
    assert!(url.starts_with("/render/image/sign/private/p/photo.jpg?token="), "{url}");
    let response = get(&app, &format!("{url}&width=700"), None, "*/*").await;
    assert_eq!(response.headers()["x-transformations"], "height:90,width:120,resizing_type:fit,quality:60");
    assert_eq!(picture(response).await, (200, "image/jpeg".to_owned(), (120, 90)));
    // Without a transform the signed URL stays a download.
    let (_, plain) = answer(
        request(&app, Method::POST, "/object/sign/private/p/photo.jpg", Some(&user))
            .json(&json!({"expiresIn": 60}))
            .send()
            .await
            .expect("sign"),
    )
    .await;
    assert!(plain["signedURL"].as_str().expect("url").starts_with("/object/sign/"), "{plain}");
    // A token signed for another object does not open this one.
    let other = url.replace("/p/photo.jpg", "/p/other.jpg");
    let (status, body) = answer(get(&app, &other, None, "*/*").await).await;
    assert_eq!((status, body["code"].clone()), (400, json!("InvalidJWT")));
}

#[tokio::test]
async fn etags_ranges_and_overwrites_are_served_as_for_downloads() {
    let app = spawn_app().await;
    with_photo(&app, "pics", true, "image/jpeg").await;
    let path = "/render/image/public/pics/p/photo.jpg?width=300";
    let first = get(&app, path, None, "image/webp").await;
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().expect("etag").to_owned();
    let whole = first.bytes().await.expect("body");
    // Another format at the same URL is another variant, with another tag.
    let jpeg_tag = get(&app, path, None, "*/*").await.headers()["etag"].to_str().expect("etag").to_owned();
    assert_ne!(etag, jpeg_tag);

    let not_modified = request(&app, Method::GET, path, None)
        .header("accept", "image/webp")
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("send");
    assert_eq!(
        (not_modified.status().as_u16(), not_modified.headers()["etag"].to_str().expect("etag")),
        (304, etag.as_str())
    );

    let part = request(&app, Method::GET, path, None)
        .header("accept", "image/webp")
        .header("range", "bytes=0-99")
        .send()
        .await
        .expect("send");
    assert_eq!(part.status().as_u16(), 206);
    assert_eq!(part.headers()["content-range"], format!("bytes 0-99/{}", whole.len()).as_str());
    assert_eq!(part.bytes().await.expect("body"), whole.slice(0..100));
    let beyond = request(&app, Method::GET, path, None)
        .header("accept", "image/webp")
        .header("range", "bytes=999999-")
        .send()
        .await
        .expect("send");
    assert_eq!(beyond.status().as_u16(), 416);

    // The object is replaced by a 1000 x 500 one: the same URL answers from
    // the new bytes at once, and the old tag no longer matches.
    let (status, _) =
        upload(&app, Some(&app.service_key), "pics", "p/photo.jpg", jpeg(1000, 500, 200), "image/jpeg", true)
            .await;
    assert_eq!(status, 200);
    let after = request(&app, Method::GET, path, None)
        .header("accept", "image/webp")
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("send");
    assert_eq!(after.status().as_u16(), 200);
    assert_eq!(picture(after).await, (200, "image/webp".to_owned(), (300, 150)));
    // Removed: nothing is served from memory.
    let (status, _) = answer(
        request(&app, Method::DELETE, "/object/pics/p/photo.jpg", Some(&app.service_key))
            .send()
            .await
            .expect("delete"),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = answer(get(&app, path, None, "image/webp").await).await;
    assert_eq!((status, body["code"].clone()), (400, json!("NoSuchKey")));
}

/// A variant made once is written to the store beside its version
/// (`<version>@<variant>`), where another gateway, or this one after a
/// restart, finds it without transforming again.
#[tokio::test]
async fn a_variant_is_kept_in_the_store_beside_its_version() {
    let mut config = test_config();
    config.storage.image_cache_size = 0;
    let app = spawn_app_with(Options { config, ..Default::default() }).await;
    with_photo(&app, "pics", true, "image/jpeg").await;
    let path = "/render/image/public/pics/p/photo.jpg?width=120";
    let first = get(&app, path, None, "image/webp").await.bytes().await.expect("body");
    let mut kept = Vec::new();
    for _ in 0..50 {
        kept = blobs(&app).await;
        if kept.iter().any(|b| b.contains('@')) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (variants, sources): (Vec<String>, Vec<String>) = kept.into_iter().partition(|b| b.contains('@'));
    assert_eq!(variants.len(), 1, "{variants:?}");
    assert!(
        variants[0].starts_with("pics/p/photo.jpg/") && variants[0].ends_with("@w120h0rcoverq80.webp"),
        "{variants:?}"
    );
    // With the source's bytes gone, the kept variant still answers...
    for source in &sources {
        app.state.store.remove(&object_store::path::Path::from(source.as_str())).await;
    }
    let again = get(&app, path, None, "image/webp").await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.bytes().await.expect("body"), first);
    // ...and another size, which needs the source, does not.
    let (status, body) =
        answer(get(&app, "/render/image/public/pics/p/photo.jpg?width=130", None, "image/webp").await).await;
    assert_eq!((status, body["code"].clone()), (400, json!("NoSuchKey")));
}

/// Transforms run on a pool as large as the cores, behind a semaphore; the
/// REST API's requests meanwhile run on the async threads, which no
/// transform holds. Twenty distinct transforms of a 2 MP JPEG at once; a
/// REST read every 20 ms during them must stay fast.
#[tokio::test]
async fn rest_stays_responsive_while_twenty_transforms_run() {
    let app = spawn_app().await;
    create_bucket(&app, "big", true, None, None).await;
    let (status, _) =
        upload(&app, Some(&app.service_key), "big", "photo.jpg", jpeg(1600, 1250, 40), "image/jpeg", false)
            .await;
    assert_eq!(status, 200);
    let rest = || {
        app.client
            .get(format!("{}/rest/v1/brands?select=id&limit=1", app.address))
            .header("apikey", &app.anon_key)
            .send()
    };
    // Warm the REST path and measure it alone.
    let mut alone = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        assert_eq!(rest().await.expect("rest").status(), 200);
        alone.push(started.elapsed());
    }

    let started = Instant::now();
    let storm: Vec<_> = (0..20)
        .map(|n| {
            let client = app.client.clone();
            let url = url(&app, &format!("/render/image/public/big/photo.jpg?width={}", 380 + n));
            tokio::spawn(async move {
                let response = client.get(url).header("accept", "image/webp").send().await.expect("send");
                assert_eq!(response.status(), 200);
                response.bytes().await.expect("body").len()
            })
        })
        .collect();
    let mut during = Vec::new();
    while storm.iter().any(|task| !task.is_finished()) {
        let asked = Instant::now();
        assert_eq!(rest().await.expect("rest").status(), 200);
        during.push(asked.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for task in storm {
        assert!(task.await.expect("transform") > 0);
    }
    let storm_took = started.elapsed();
    during.sort();
    let worst = *during.last().expect("requests during the storm");
    let worst_alone = *alone.iter().max().expect("requests alone");
    eprintln!(
        "storm {storm_took:?}; REST alone worst {worst_alone:?}; during: {} requests, median {:?}, worst {worst:?}",
        during.len(),
        during[during.len() / 2]
    );
    assert!(during.len() >= 5, "the storm lasted long enough to measure ({storm_took:?})");
    // Every REST answer came well within the storm: none waited for the transforms.
    assert!(worst < storm_took / 4, "worst REST answer {worst:?} during a storm of {storm_took:?}");
    assert!(worst < Duration::from_millis(500), "worst REST answer {worst:?}");
}

/// Waits until the store holds `count` variants, and returns every blob.
async fn variants_kept(app: &TestApp, count: usize) -> Vec<String> {
    let mut kept = Vec::new();
    for _ in 0..50 {
        kept = blobs(app).await;
        if kept.iter().filter(|b| b.contains('@')).count() == count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    kept
}

/// storage-js's `purgeCache` and `purgeBucketCache` (`DELETE /cdn/...`):
/// the service role only; the variants go from the store, the sources stay,
/// and the next transform makes the variant again.
#[tokio::test]
async fn purging_the_cache_removes_variants_for_the_service_role_only() {
    let app = spawn_app().await;
    with_photo(&app, "pics", true, "image/jpeg").await;
    let (status, body) = upload(
        &app,
        Some(&app.service_key),
        "pics",
        "p/photo.jpg/inner.jpg",
        jpeg(300, 200, 9),
        "image/jpeg",
        true,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for path in ["p/photo.jpg?width=120", "p/photo.jpg?width=140", "p/photo.jpg/inner.jpg?width=50"] {
        let made = get(&app, &format!("/render/image/public/pics/{path}"), None, "image/webp").await;
        assert_eq!(made.status(), 200, "{path}");
    }
    assert_eq!(variants_kept(&app, 3).await.iter().filter(|b| b.contains('@')).count(), 3);

    let purge = |path: &str, token: Option<&str>| request(&app, Method::DELETE, path, token).send();
    // As Storage's `enforceJwtRole`: another role is sent as 403; no token
    // at all fails the JWT check first, sent as 400 like its other refusals.
    let refusals = [
        ("anon key", Some(app.anon_key.as_str()), 403, "Access denied: Invalid role"),
        ("no token", None, 400, "Invalid Compact JWS"),
    ];
    for (who, token, status, message) in refusals {
        let (got, body) = answer(purge("/cdn/pics/p/photo.jpg", token).await.expect("send")).await;
        assert_eq!(
            (got, &body["code"], &body["message"]),
            (status, &json!("AccessDenied"), &json!(message)),
            "{who}"
        );
    }
    assert_eq!(blobs(&app).await.iter().filter(|b| b.contains('@')).count(), 3, "a refusal purges nothing");

    // One object: its own variants, not those of the key under it.
    let (status, body) = answer(
        purge("/cdn/pics/p/photo.jpg?transformations=true", Some(&app.service_key)).await.expect("send"),
    )
    .await;
    assert_eq!((status, body), (200, json!({"message": "success"})));
    let left: Vec<String> = blobs(&app).await.into_iter().filter(|b| b.contains('@')).collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with("pics/p/photo.jpg/inner.jpg/"), "{left:?}");
    // The source answers as before, and the variant is made again.
    let again =
        picture(get(&app, "/render/image/public/pics/p/photo.jpg?width=120", None, "image/webp").await).await;
    assert_eq!(again, (200, "image/webp".to_owned(), (120, 90)));
    let download =
        request(&app, Method::GET, "/object/public/pics/p/photo.jpg", None).send().await.expect("send");
    assert_eq!(download.bytes().await.expect("body").len(), jpeg(800, 600, 0).len());

    // The whole bucket.
    variants_kept(&app, 2).await;
    let (status, body) = answer(purge("/cdn/pics", Some(&app.service_key)).await.expect("send")).await;
    assert_eq!((status, body), (200, json!({"message": "success"})));
    assert_eq!(blobs(&app).await.iter().filter(|b| b.contains('@')).count(), 0);
    assert_eq!(blobs(&app).await.len(), 2, "both sources stay");
}
