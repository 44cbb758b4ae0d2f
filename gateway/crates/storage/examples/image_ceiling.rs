//! The parts of an image transformation alone, on one core each, for
//! `bench/storage.sh`: a 2 MP JPEG (1600 x 1250) decoded, resized to 400 px
//! wide, and encoded as lossy WebP at quality 80, the gateway's own code
//! (`gateway_storage::images`) for each step and for the whole; beside them
//! the alternatives weighed in docs/benchmarks.md: `image`'s own resize (Lanczos3)
//! and `image`'s WebP encoder, which is lossless only (its size is printed
//! against libwebp's).
//!
//! Usage: `image_ceiling [seconds per step]` (default 3); prints one
//! `<step>\t<per second per core>\t<note>` line per step.
//! `image_ceiling --jpeg <file>` writes the test JPEG instead (the bench
//! uploads it).

use std::io::Cursor;
use std::time::{Duration, Instant};

use gateway_storage::images::{self, Output, Transform, Wish};

fn rate(seconds: u64, mut step: impl FnMut()) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut done = 0u64;
    while Instant::now() < deadline || done == 0 {
        step();
        done += 1;
    }
    done as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let source = image::RgbImage::from_fn(1600, 1250, |x, y| {
        image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x * y) % 199) as u8])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 85).encode_image(&source).expect("jpeg");
    if std::env::args().nth(1).as_deref() == Some("--jpeg") {
        let path = std::env::args().nth(2).expect("image_ceiling --jpeg <file>");
        std::fs::write(path, &jpeg).expect("write the JPEG");
        return;
    }
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let transform =
        Transform { width: Some(400), height: None, resize: None, quality: None, format: Wish::Webp };
    let max_pixels = 40_000_000;
    let decoded = images::decode(&jpeg, max_pixels).expect("decode");
    let resized = images::resize(decoded.clone(), &transform).expect("resize");
    let webp = images::encode(&resized, Output::Webp, 80).expect("encode");
    let mut lossless = Vec::new();
    resized.write_to(&mut Cursor::new(&mut lossless), image::ImageFormat::WebP).expect("lossless");

    let lines = [
        (
            "transform",
            rate(seconds, || {
                images::transform_image(&jpeg, &transform, Output::Webp, max_pixels).expect("transform");
            }),
            format!("{} KB JPEG -> {} KB WebP", jpeg.len() / 1024, webp.len() / 1024),
        ),
        (
            "decode",
            rate(seconds, || {
                images::decode(&jpeg, max_pixels).expect("decode");
            }),
            "image (zune-jpeg)".to_owned(),
        ),
        (
            "resize",
            rate(seconds, || {
                images::resize(decoded.clone(), &transform).expect("resize");
            }),
            "fast_image_resize, Lanczos3 (with the copy it resizes from)".to_owned(),
        ),
        (
            "encode",
            rate(seconds, || {
                images::encode(&resized, Output::Webp, 80).expect("encode");
            }),
            "libwebp lossy q80".to_owned(),
        ),
        (
            "resize-image",
            rate(seconds, || {
                std::hint::black_box(decoded.resize(400, 313, image::imageops::FilterType::Lanczos3));
            }),
            "image's own resize, Lanczos3, for comparison".to_owned(),
        ),
        (
            "encode-lossless",
            rate(seconds, || {
                let mut out = Vec::new();
                resized.write_to(&mut Cursor::new(&mut out), image::ImageFormat::WebP).expect("lossless");
            }),
            format!("image's WebP encoder (lossless only): {} KB", lossless.len() / 1024),
        ),
    ];
    for (step, per_second, note) in lines {
        println!("{step}\t{per_second:.1}\t{note}");
    }
}
