//! Image transformations: what supabase/storage asks imgproxy for
//! (`src/storage/renderer/image.ts`), done in the gateway.
//!
//! A [`Transform`] is parsed from the query (`width`, `height`, `resize`,
//! `quality`, `format`) or from a signed URL's `transformations` claim.
//! [`Images::render`] decodes the source (JPEG, PNG, GIF's first frame, WebP
//! with `image`), after reading its size from the header and refusing more
//! than `STORAGE_IMAGE_MAX_PIXELS` (a decompression bomb is refused before
//! any pixel is decoded); resizes with `fast_image_resize` (SIMD
//! convolution, Lanczos3); and encodes WebP with libwebp (lossy; the `webp`
//! crate, which builds libwebp from source), or the source's own format for
//! `format=origin`. The work runs on `STORAGE_IMAGE_WORKERS` threads of its
//! own at the lowest CPU priority, one job each at a time (a semaphore), so
//! transforms queue instead of taking the cores from the rest of the gateway. Results are kept in memory
//! ([`super::cache::BlobCache`]) under the source's version path and the
//! transform: a version's bytes never change, so a variant is never stale,
//! and an overwrite makes a new version, hence new keys.

use std::io::Cursor;
use std::sync::Arc;

use bytes::Bytes;
use fast_image_resize::{self as fr, images::Image as FrImage};
use image::{DynamicImage, ImageFormat, ImageReader};
use tokio::sync::Semaphore;

use super::cache::BlobCache;
use super::error::StorageError;
use gateway_core::error::ApiError;

/// Storage's clamp for `width` and `height` (`IMAGE_TRANSFORMATION_LIMIT_MAX_SIZE`
/// on the hosted service).
pub const MAX_SIZE: u32 = 2500;
/// imgproxy's quality when none is asked for.
pub const DEFAULT_QUALITY: u8 = 80;

/// `resize`: how the image meets a box of `width` x `height`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    /// Fills the box, keeping the aspect ratio, cropped at the centre
    /// (imgproxy's `fill`, Storage's default).
    Cover,
    /// Fits inside the box, keeping the aspect ratio (imgproxy's `fit`).
    Contain,
    /// Stretched to the box (imgproxy's `force`).
    Fill,
}

impl Resize {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "cover" => Some(Self::Cover),
            "contain" => Some(Self::Contain),
            "fill" => Some(Self::Fill),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Cover => "cover",
            Self::Contain => "contain",
            Self::Fill => "fill",
        }
    }

    /// imgproxy's word, which Storage sends in `X-Transformations`.
    fn imgproxy(self) -> &'static str {
        match self {
            Self::Cover => "fill",
            Self::Contain => "fit",
            Self::Fill => "force",
        }
    }
}

/// `format`: `origin` keeps the source's format, `webp` and `avif` ask for
/// one; absent, the client's `Accept` decides: the smaller of AVIF and WebP
/// for one that takes AVIF, WebP for one that takes WebP, else the source's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wish {
    Auto,
    Origin,
    Webp,
    Avif,
}

/// One transformation, as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transform {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub resize: Option<Resize>,
    pub quality: Option<u8>,
    pub format: Wish,
}

/// What is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Webp,
    Avif,
    /// Both AVIF and WebP, and the smaller one is kept: AVIF usually wins on
    /// photographs, WebP on small or flat images.
    AvifOrWebp,
    Jpeg,
    Png,
    Gif,
}

impl Output {
    /// The format a stored MIME type names, if it is one this decodes.
    pub fn of_mime(mime: &str) -> Option<Self> {
        match mime.split(';').next().unwrap_or("").trim() {
            "image/jpeg" | "image/jpg" => Some(Self::Jpeg),
            "image/png" => Some(Self::Png),
            "image/gif" => Some(Self::Gif),
            "image/webp" => Some(Self::Webp),
            _ => None,
        }
    }

    /// The format of the bytes themselves: clients often upload images as
    /// `application/octet-stream` or `text/plain` (storage-js sends a
    /// Buffer so), and imgproxy looks at the bytes too.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        match image::guess_format(bytes).ok()? {
            ImageFormat::Jpeg => Some(Self::Jpeg),
            ImageFormat::Png => Some(Self::Png),
            ImageFormat::Gif => Some(Self::Gif),
            ImageFormat::WebP => Some(Self::Webp),
            _ => None,
        }
    }

    /// The MIME type of `bytes` encoded as this output.
    pub fn mime_of(self, bytes: &[u8]) -> &'static str {
        match self {
            Self::AvifOrWebp if is_avif(bytes) => "image/avif",
            Self::AvifOrWebp => "image/webp",
            other => other.mime(),
        }
    }

    /// The MIME type, when the output names one format.
    pub fn mime(self) -> &'static str {
        match self {
            Self::Webp | Self::AvifOrWebp => "image/webp",
            Self::Avif => "image/avif",
            Self::Jpeg => "image/jpeg",
            Self::Png => "image/png",
            Self::Gif => "image/gif",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Webp => "webp",
            Self::Avif => "avif",
            Self::AvifOrWebp => "avif-webp",
            Self::Jpeg => "jpeg",
            Self::Png => "png",
            Self::Gif => "gif",
        }
    }
}

fn invalid(parameter: &str, rule: &str) -> ApiError {
    StorageError::invalid_request(format!("querystring/{parameter} {rule}")).into()
}

/// A size as Storage takes it: an integer of at least 0, where 0 means
/// none, clamped to [`MAX_SIZE`].
fn size(name: &str, value: Option<&str>) -> Result<Option<u32>, ApiError> {
    let Some(text) = value.filter(|v| !v.is_empty()) else { return Ok(None) };
    let number: i64 = text.trim().parse().map_err(|_| invalid(name, "must be integer"))?;
    if number < 0 {
        return Err(invalid(name, "must be >= 0"));
    }
    Ok((number > 0).then(|| number.min(i64::from(MAX_SIZE)) as u32))
}

impl Transform {
    /// From the query's parameters, validated as Storage's schema
    /// (`src/http/schemas/transformations.ts`) does.
    pub fn from_query(
        width: Option<&str>,
        height: Option<&str>,
        resize: Option<&str>,
        quality: Option<&str>,
        format: Option<&str>,
    ) -> Result<Self, ApiError> {
        let resize = match resize.filter(|v| !v.is_empty()) {
            None => None,
            Some(text) => Some(
                Resize::parse(text)
                    .ok_or_else(|| invalid("resize", "must be equal to one of the allowed values"))?,
            ),
        };
        let quality = match quality.filter(|v| !v.is_empty()) {
            None => None,
            Some(text) => {
                let q: i64 = text.trim().parse().map_err(|_| invalid("quality", "must be integer"))?;
                if q < 20 {
                    return Err(invalid("quality", "must be >= 20"));
                }
                if q > 100 {
                    return Err(invalid("quality", "must be <= 100"));
                }
                Some(q as u8)
            }
        };
        let format = match format.filter(|v| !v.is_empty()) {
            None => Wish::Auto,
            Some("origin") => Wish::Origin,
            Some("webp") => Wish::Webp,
            Some("avif") => Wish::Avif,
            Some(_) => return Err(invalid("format", "must be equal to one of the allowed values")),
        };
        Ok(Self { width: size("width", width)?, height: size("height", height)?, resize, quality, format })
    }

    /// Whether anything at all is asked (`transform: {}` is no transform).
    pub fn is_empty(&self) -> bool {
        self.width.is_none() && self.height.is_none() && self.quality.is_none() && self.format == Wish::Auto
    }

    /// The `transformations` claim of a signed URL, in Storage's words
    /// (`applyTransformation(options, true)`): `height:200,width:200,resize:cover,quality:60`.
    pub fn to_claim(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if (self.width.is_some() || self.height.is_some())
            && let Some(resize) = self.resize
        {
            parts.push(format!("resize:{}", resize.name()));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        match self.format {
            Wish::Webp => parts.push("format:webp".to_owned()),
            Wish::Avif => parts.push("format:avif".to_owned()),
            Wish::Origin | Wish::Auto => {}
        }
        parts.join(",")
    }

    /// Back from a claim (`setTransformationsFromString`): unknown or
    /// malformed parts are skipped, sizes clamped. The claim's `format`
    /// (origin) comes separately.
    pub fn from_claim(claim: &str, format: Option<&str>) -> Self {
        let mut transform =
            Self { width: None, height: None, resize: None, quality: None, format: Wish::Auto };
        for part in claim.split(',') {
            let Some((name, value)) = part.split_once(':') else { continue };
            match name {
                "height" => transform.height = size("height", Some(value)).ok().flatten(),
                "width" => transform.width = size("width", Some(value)).ok().flatten(),
                "resize" => transform.resize = Resize::parse(value),
                "quality" => transform.quality = value.parse::<u8>().ok().map(|q| q.clamp(20, 100)),
                "format" if value == "webp" => transform.format = Wish::Webp,
                "format" if value == "avif" => transform.format = Wish::Avif,
                _ => {}
            }
        }
        if format == Some("origin") {
            transform.format = Wish::Origin;
        }
        transform
    }

    /// `X-Transformations`, in imgproxy's words as Storage sends them:
    /// `height:200,width:200,resizing_type:fill,quality:60`.
    pub fn header(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if self.width.is_some() || self.height.is_some() {
            parts.push(format!("resizing_type:{}", self.resize.unwrap_or(Resize::Cover).imgproxy()));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        match self.format {
            Wish::Webp => parts.push("format:webp".to_owned()),
            Wish::Avif => parts.push("format:avif".to_owned()),
            Wish::Origin | Wish::Auto => {}
        }
        parts.join(",")
    }

    /// The format to encode, from the wish, the client's `Accept` and the
    /// source's own format.
    pub fn output(&self, accept: &str, origin: Output) -> Output {
        // imgproxy's WebP detection looks for `image/webp` in `Accept`;
        // `*/*` alone keeps the source's format.
        let accepts = |kind: &str| accept.split(',').any(|part| part.trim().starts_with(kind));
        match self.format {
            Wish::Origin => origin,
            Wish::Webp => Output::Webp,
            Wish::Avif => Output::Avif,
            Wish::Auto if accepts("image/avif") => Output::AvifOrWebp,
            Wish::Auto if accepts("image/webp") => Output::Webp,
            Wish::Auto => origin,
        }
    }

    /// The variant's name within its source version, for caches and ETags.
    pub fn key(&self, output: Output) -> String {
        format!(
            "w{}h{}r{}q{}.{}",
            self.width.unwrap_or(0),
            self.height.unwrap_or(0),
            self.resize.unwrap_or(Resize::Cover).name(),
            self.quality.unwrap_or(DEFAULT_QUALITY),
            output.name()
        )
    }
}

/// Why a source could not be rendered; each is Storage's 400 with its
/// message (`getImgProxySourceImageValidationError`).
#[derive(Debug, PartialEq, Eq)]
pub enum RenderError {
    Unsupported,
    TooManyPixels,
}

impl From<RenderError> for ApiError {
    fn from(error: RenderError) -> Self {
        let message = match error {
            RenderError::Unsupported => "The source image is invalid or unsupported for rendering",
            RenderError::TooManyPixels => "The source image resolution is too large to process",
        };
        StorageError::invalid_request(message).into()
    }
}

/// One transform, handed to a worker.
type Job = Box<dyn FnOnce() + Send>;

/// The transform pool and the variants' cache, shared by every request.
pub struct Images {
    /// At most one job per worker is read, queued or running; the rest
    /// wait here, holding nothing but their request.
    permits: Semaphore,
    jobs: std::sync::mpsc::Sender<Job>,
    cache: Option<BlobCache>,
    max_pixels: u64,
}

impl Images {
    /// Starts `workers` threads at the lowest CPU priority (nice 19 on
    /// Linux): a transform takes whatever CPU is idle, and the async
    /// threads that answer every other request (and PostgreSQL, on the same
    /// host) go first whenever they have work. They end when the last
    /// handle to `Images` is dropped.
    pub fn new(workers: usize, cache_size: u64, max_pixels: u64) -> Arc<Self> {
        let workers = workers.max(1);
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = Arc::new(std::sync::Mutex::new(queue));
        for n in 0..workers {
            let queue = Arc::clone(&queue);
            let spawned = std::thread::Builder::new().name(format!("image-{n}")).spawn(move || {
                if let Err(error) =
                    thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min)
                {
                    tracing::warn!(%error, "image worker keeps the normal CPU priority");
                }
                loop {
                    let job = match queue.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    let Ok(job) = job else { return };
                    // A decoder's panic fails its request, not the worker.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            });
            if let Err(error) = spawned {
                tracing::error!(%error, "could not start an image worker");
            }
        }
        Arc::new(Self {
            permits: Semaphore::new(workers),
            jobs,
            cache: BlobCache::new(cache_size),
            max_pixels,
        })
    }

    /// The variant `key`, if memory holds it.
    pub fn cached(&self, key: &str) -> Option<Bytes> {
        self.cache.as_ref().and_then(|c| c.get(key))
    }

    /// Keeps a variant found elsewhere (the store) in memory.
    pub fn remember(&self, key: &str, bytes: &Bytes) {
        if let Some(cache) = &self.cache
            && cache.keeps(bytes.len() as u64)
        {
            cache.insert(key, bytes.clone());
        }
    }

    /// Forgets the variants held in memory whose source's version path
    /// `doomed` picks (`storage::purge`); a variant's key is
    /// `<version path>#<variant>`.
    pub fn forget_where(&self, doomed: impl Fn(&str) -> bool) {
        if let Some(cache) = &self.cache {
            cache.remove_where(|key| doomed(key.split_once('#').map_or(key, |(source, _)| source)));
        }
    }

    /// The variant `key` of a source, from memory or made by `source()` and
    /// [`transform_image`] on a worker.
    pub async fn render<F, Fut>(
        &self,
        key: String,
        transform: &Transform,
        output: Output,
        source: F,
    ) -> Result<Bytes, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Bytes, ApiError>>,
    {
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            return Ok(hit);
        }
        let permit = self.permits.acquire().await.map_err(ApiError::internal)?;
        let source = source().await?;
        let (transform, max_pixels) = (transform.clone(), self.max_pixels);
        let (done, made) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move || {
                let _ = done.send(transform_image(&source, &transform, output, max_pixels));
            }))
            .map_err(|_| ApiError::internal("the image workers are gone"))?;
        let made = made.await.map_err(|_| ApiError::internal("an image transform panicked"))?;
        drop(permit);
        let made = Bytes::from(made?);
        if let Some(cache) = &self.cache
            && cache.keeps(made.len() as u64)
        {
            cache.insert(&key, made.clone());
        }
        Ok(made)
    }
}

/// Decodes, resizes and encodes one image (CPU only; run it off the async
/// threads).
pub fn transform_image(
    source: &[u8],
    transform: &Transform,
    output: Output,
    max_pixels: u64,
) -> Result<Vec<u8>, ApiError> {
    let image = decode(source, max_pixels)?;
    let image = resize(image, transform)?;
    encode(&image, output, transform.quality.unwrap_or(DEFAULT_QUALITY))
}

/// The image, its pixel count read from the header and checked first; GIF
/// gives its first frame.
pub fn decode(source: &[u8], max_pixels: u64) -> Result<DynamicImage, RenderError> {
    let reader =
        ImageReader::new(Cursor::new(source)).with_guessed_format().map_err(|_| RenderError::Unsupported)?;
    if !matches!(
        reader.format(),
        Some(ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::Gif | ImageFormat::WebP)
    ) {
        return Err(RenderError::Unsupported);
    }
    let (width, height) = reader.into_dimensions().map_err(|_| RenderError::Unsupported)?;
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(RenderError::TooManyPixels);
    }
    let mut reader =
        ImageReader::new(Cursor::new(source)).with_guessed_format().map_err(|_| RenderError::Unsupported)?;
    // The decoders' own allocation limit, as a second fence behind the
    // header check: 4 bytes a pixel plus room for their buffers.
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    limits.max_alloc = Some(max_pixels.saturating_mul(8).max(64 << 20));
    reader.limits(limits);
    reader.decode().map_err(|_| RenderError::Unsupported)
}

/// Left, top, width and height of the part of the source that is kept.
type Crop = (f64, f64, f64, f64);

/// The size of the result: the box, or the source scaled to one side
/// (aspect kept), never larger than the source (imgproxy does not enlarge
/// unless asked).
fn target(transform: &Transform, width: u32, height: u32) -> Option<(u32, u32, Option<Crop>)> {
    let (w, h) = (f64::from(width), f64::from(height));
    let round = |v: f64| (v.round() as u32).max(1);
    match (transform.width, transform.height) {
        (None, None) => None,
        (Some(tw), None) => {
            let scale = (f64::from(tw) / w).min(1.0);
            Some((round(w * scale), round(h * scale), None))
        }
        (None, Some(th)) => {
            let scale = (f64::from(th) / h).min(1.0);
            Some((round(w * scale), round(h * scale), None))
        }
        (Some(tw), Some(th)) => {
            let (tw, th) = (f64::from(tw), f64::from(th));
            match transform.resize.unwrap_or(Resize::Cover) {
                Resize::Fill => Some((round(tw.min(w)), round(th.min(h)), None)),
                Resize::Contain => {
                    let scale = (tw / w).min(th / h).min(1.0);
                    Some((round(w * scale), round(h * scale), None))
                }
                Resize::Cover => {
                    let scale = (tw / w).max(th / h);
                    if scale <= 1.0 {
                        // The box, cut from the centre of the scaled source.
                        let crop = ((w - tw / scale) / 2.0, (h - th / scale) / 2.0, tw / scale, th / scale);
                        Some((round(tw), round(th), Some(crop)))
                    } else {
                        // Not enlarged: the largest box of the same shape the
                        // source holds, cut from its centre.
                        let fit = (w / tw).min(h / th);
                        let (out_w, out_h) = (tw * fit, th * fit);
                        Some((
                            round(out_w),
                            round(out_h),
                            Some(((w - out_w) / 2.0, (h - out_h) / 2.0, out_w, out_h)),
                        ))
                    }
                }
            }
        }
    }
}

/// Resized as asked, in 8-bit RGB or RGBA (the two layouts libwebp takes).
pub fn resize(image: DynamicImage, transform: &Transform) -> Result<DynamicImage, ApiError> {
    let image = if image.color().has_alpha() {
        DynamicImage::ImageRgba8(image.into_rgba8())
    } else {
        DynamicImage::ImageRgb8(image.into_rgb8())
    };
    let Some((out_w, out_h, crop)) = target(transform, image.width(), image.height()) else {
        return Ok(image);
    };
    if (out_w, out_h) == (image.width(), image.height()) && crop.is_none() {
        return Ok(image);
    }
    let alpha = image.color().has_alpha();
    let pixel = if alpha { fr::PixelType::U8x4 } else { fr::PixelType::U8x3 };
    let (src_w, src_h) = (image.width(), image.height());
    let src = FrImage::from_vec_u8(src_w, src_h, image.into_bytes(), pixel).map_err(ApiError::internal)?;
    let mut dst = FrImage::new(out_w, out_h, pixel);
    let mut options =
        fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3));
    if let Some((left, top, width, height)) = crop {
        options = options.crop(left, top, width, height);
    }
    fr::Resizer::new().resize(&src, &mut dst, &options).map_err(ApiError::internal)?;
    let bytes = dst.into_vec();
    let resized = if alpha {
        image::RgbaImage::from_raw(out_w, out_h, bytes).map(DynamicImage::ImageRgba8)
    } else {
        image::RgbImage::from_raw(out_w, out_h, bytes).map(DynamicImage::ImageRgb8)
    };
    resized.ok_or_else(|| ApiError::internal("resized buffer of the wrong size"))
}

/// Encoded as `output`; WebP is lossy at `quality` (libwebp's 0-100 scale).
pub fn encode(image: &DynamicImage, output: Output, quality: u8) -> Result<Vec<u8>, ApiError> {
    match output {
        Output::Avif => encode_avif(image, quality),
        Output::AvifOrWebp => {
            let (avif, webp) = (encode_avif(image, quality)?, encode(image, Output::Webp, quality)?);
            Ok(if avif.len() < webp.len() { avif } else { webp })
        }
        Output::Webp => {
            let encoder = match image {
                DynamicImage::ImageRgba8(rgba) => {
                    webp::Encoder::from_rgba(rgba.as_raw(), image.width(), image.height())
                }
                DynamicImage::ImageRgb8(rgb) => {
                    webp::Encoder::from_rgb(rgb.as_raw(), image.width(), image.height())
                }
                _ => return Err(ApiError::internal("WebP takes 8-bit RGB or RGBA")),
            };
            Ok(encoder.encode(f32::from(quality)).to_vec())
        }
        Output::Jpeg => {
            let mut out = Vec::new();
            let rgb = image.to_rgb8();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
                .encode_image(&rgb)
                .map_err(ApiError::internal)?;
            Ok(out)
        }
        Output::Png | Output::Gif => {
            let format = if output == Output::Png { ImageFormat::Png } else { ImageFormat::Gif };
            let mut out = Cursor::new(Vec::new());
            image.write_to(&mut out, format).map_err(ApiError::internal)?;
            Ok(out.into_inner())
        }
    }
}

/// AVIF through `ravif` (rav1e, pure Rust): speed 8 of 10, one thread,
/// since the transform workers are the parallelism; the quality means what
/// it means for WebP, 1 to 100.
fn encode_avif(image: &DynamicImage, quality: u8) -> Result<Vec<u8>, ApiError> {
    let encoder = ravif::Encoder::new()
        .with_quality(f32::from(quality.clamp(1, 100)))
        .with_speed(8)
        .with_num_threads(Some(1));
    let (width, height) = (image.width() as usize, image.height() as usize);
    let encoded = match image {
        DynamicImage::ImageRgba8(rgba) => {
            let pixels: Vec<ravif::RGBA8> =
                rgba.as_raw().chunks_exact(4).map(|p| ravif::RGBA8::new(p[0], p[1], p[2], p[3])).collect();
            encoder.encode_rgba(ravif::Img::new(&pixels[..], width, height))
        }
        DynamicImage::ImageRgb8(rgb) => {
            let pixels: Vec<ravif::RGB8> =
                rgb.as_raw().chunks_exact(3).map(|p| ravif::RGB8::new(p[0], p[1], p[2])).collect();
            encoder.encode_rgb(ravif::Img::new(&pixels[..], width, height))
        }
        _ => return Err(ApiError::internal("AVIF takes 8-bit RGB or RGBA")),
    };
    Ok(encoded.map_err(ApiError::internal)?.avif_file)
}

/// An ISO-BMFF file whose brand is `avif`.
fn is_avif(bytes: &[u8]) -> bool {
    bytes.get(4..12) == Some(b"ftypavif")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(width: Option<u32>, height: Option<u32>, resize: Option<Resize>) -> Transform {
        Transform { width, height, resize, quality: None, format: Wish::Auto }
    }

    #[test]
    fn sizes_follow_imgproxy_cover_contain_and_force_without_enlarging() {
        let cases = [
            // 2000x1000 source
            (t(Some(400), None, None), (400, 200)),
            (t(None, Some(100), None), (200, 100)),
            (t(Some(400), Some(400), None), (400, 400)),
            (t(Some(400), Some(400), Some(Resize::Contain)), (400, 200)),
            (t(Some(400), Some(400), Some(Resize::Fill)), (400, 400)),
            (t(Some(2500), None, None), (2000, 1000)),
            (t(Some(2500), Some(2500), Some(Resize::Cover)), (1000, 1000)),
        ];
        for (transform, expected) in cases {
            let (w, h, _) = target(&transform, 2000, 1000).expect("a size");
            assert_eq!((w, h), expected, "{transform:?}");
        }
        assert!(target(&t(None, None, None), 2000, 1000).is_none());
    }

    #[test]
    fn query_values_are_checked_as_storage_s_schema_checks_them() {
        let ok = |w: &str, q: &str| Transform::from_query(Some(w), None, None, Some(q), None);
        assert_eq!(ok("5000", "60").expect("clamped").width, Some(MAX_SIZE));
        assert_eq!(ok("0", "60").expect("zero is none").width, None);
        for (w, q) in [("-1", "60"), ("x", "60"), ("10", "19"), ("10", "101")] {
            assert!(ok(w, q).is_err(), "{w} {q}");
        }
        assert!(Transform::from_query(None, None, Some("squash"), None, None).is_err());
        assert!(Transform::from_query(None, None, None, None, Some("gif")).is_err());
    }

    #[test]
    fn a_signed_transform_survives_its_claim_and_names_itself_as_storage_does() {
        let transform = Transform {
            width: Some(200),
            height: Some(200),
            resize: None,
            quality: Some(60),
            format: Wish::Auto,
        };
        assert_eq!(transform.to_claim(), "height:200,width:200,quality:60");
        assert_eq!(Transform::from_claim(&transform.to_claim(), None), transform);
        assert_eq!(transform.header(), "height:200,width:200,resizing_type:fill,quality:60");
    }

    #[test]
    fn webp_is_sent_only_to_clients_that_accept_it_unless_origin_is_asked() {
        let auto = t(Some(10), None, None);
        let origin = Transform { format: Wish::Origin, ..auto.clone() };
        let cases = [
            (&auto, "image/avif,image/webp,*/*", Output::Jpeg, Output::AvifOrWebp),
            (&auto, "image/webp,*/*", Output::Jpeg, Output::Webp),
            (&Transform { format: Wish::Avif, ..auto.clone() }, "*/*", Output::Jpeg, Output::Avif),
            (&Transform { format: Wish::Webp, ..auto.clone() }, "image/avif", Output::Jpeg, Output::Webp),
            (&auto, "*/*", Output::Jpeg, Output::Jpeg),
            (&auto, "*/*", Output::Png, Output::Png),
            (&origin, "image/webp", Output::Png, Output::Png),
        ];
        for (transform, accept, origin, expected) in cases {
            assert_eq!(transform.output(accept, origin), expected, "{accept} {origin:?}");
        }
        assert_eq!(Output::of_mime("image/jpeg; charset=binary"), Some(Output::Jpeg));
        assert_eq!(Output::of_mime("text/plain;charset=UTF-8"), None);
        assert_eq!(Output::sniff(b"\x89PNG\r\n\x1a\n...."), Some(Output::Png));
        assert_eq!(Output::sniff(b"hello"), None);
    }

    #[test]
    fn a_decompression_bomb_is_refused_from_its_header() {
        // A PNG header claiming 100000 x 100000 pixels (its checksum made
        // right), and no pixel data.
        let mut png = Vec::new();
        image::RgbImage::new(1, 1).write_to(&mut Cursor::new(&mut png), ImageFormat::Png).expect("png");
        png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(decode(&png, 50_000_000).expect_err("refused"), RenderError::TooManyPixels);
        assert_eq!(decode(b"not an image", 50_000_000).expect_err("refused"), RenderError::Unsupported);
    }

    /// PNG's chunk checksum (ISO 3309 CRC-32).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for byte in bytes {
            crc ^= u32::from(*byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn a_jpeg_becomes_a_smaller_webp_of_the_asked_size() {
        let source =
            image::RgbImage::from_fn(800, 600, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 90]));
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
            .encode_image(&source)
            .expect("jpeg");
        let transform = t(Some(200), Some(200), None);
        let webp = transform_image(&jpeg, &transform, Output::Webp, 50_000_000).expect("webp");
        let decoded = image::load_from_memory_with_format(&webp, ImageFormat::WebP).expect("decodes");
        assert_eq!((decoded.width(), decoded.height()), (200, 200));
    }

    /// The size an AVIF file declares in its `ispe` box (ISO/IEC 23008-12:
    /// version and flags, then width and height, 32 bits each).
    pub fn avif_size(avif: &[u8]) -> Option<(u32, u32)> {
        let at = avif.windows(4).position(|w| w == b"ispe")? + 8;
        let word = |i: usize| avif.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        Some((word(at)?, word(at + 4)?))
    }

    #[test]
    fn avif_is_made_at_the_asked_size_and_the_smaller_of_avif_and_webp_is_kept() {
        let photo = image::RgbImage::from_fn(800, 600, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 251) as u8])
        });
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90).encode_image(&photo).expect("jpeg");
        let transform = t(Some(200), None, None);
        let avif = transform_image(&jpeg, &transform, Output::Avif, 50_000_000).expect("avif");
        assert!(is_avif(&avif));
        assert_eq!(avif_size(&avif), Some((200, 150)));
        assert_eq!(Output::Avif.mime_of(&avif), "image/avif");
        let webp = transform_image(&jpeg, &transform, Output::Webp, 50_000_000).expect("webp");
        let either = transform_image(&jpeg, &transform, Output::AvifOrWebp, 50_000_000).expect("either");
        assert_eq!(either.len(), avif.len().min(webp.len()));
        let kind = if avif.len() < webp.len() { "image/avif" } else { "image/webp" };
        assert_eq!(Output::AvifOrWebp.mime_of(&either), kind);
    }
}
