//! Compression of the gateway's answers (without it the shop moved 543 KB of
//! uncompressed JavaScript to a phone on mobile data).
//!
//! Two ways, one per kind of answer:
//!
//! - **Files of the frontend** are compressed once, at build time
//!   (`frontend/scripts/compress.mjs` writes `name.br` and `name.gz` beside
//!   each compressible file), and [`crate::frontend`] serves the variant the
//!   request's `Accept-Encoding` asks for, with `Vary: Accept-Encoding`, as
//!   nginx's `gzip_static` and `brotli_static` do.
//! - **Answers made per request** (the JSON of `/rest/v1`, `/auth/v1` and
//!   Storage, and `index.html` with its configuration) are compressed on the
//!   fly by tower-http's `CompressionLayer`, when their type is text and they
//!   are at least `--compression-min-size` long: below about a kilobyte, the
//!   bytes saved do not pay for the work, and the REST benchmarks' small
//!   answers stay on the path they had.
//!
//! Never compressed on the fly: images and other media (already compressed),
//! and every answer that offers byte ranges (`Accept-Ranges`), that is stored
//! files: Storage's objects and the frontend's files. A range and an `ETag`
//! name bytes of the stored file, so encoding them per request would break
//! both (tower-http leaves `Content-Range` answers alone for the same reason).

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, header};
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use tower::{Service, ServiceBuilder};
use tower_http::compression::{CompressionBody, CompressionLayer, CompressionLevel, predicate::Predicate};

use crate::config::parse_size;

/// Compression settings, flattened into [`crate::config::Config`].
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Compression")]
pub struct CompressionConfig {
    /// Compress answers on the fly (gzip or brotli, as the request's
    /// `Accept-Encoding` allows). Precompressed frontend files are served
    /// whatever this says.
    #[arg(
        long = "compression",
        env = "GATEWAY_COMPRESSION",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub enabled: bool,

    /// Smallest answer compressed on the fly, in bytes or with a unit. Answers
    /// whose length is not known in advance are compressed.
    #[arg(
        long = "compression-min-size",
        env = "GATEWAY_COMPRESSION_MIN_SIZE",
        default_value = "1KiB",
        value_parser = parse_size
    )]
    pub min_size: u64,
}

/// `app` with its answers compressed as the module's comment says.
///
/// A request without `Accept-Encoding` (wrk as the REST benchmarks run it,
/// curl without `--compressed`) goes straight to `app`, as before compression
/// existed: the compression layers and their wrapped body are only on the
/// path of requests that can use them (browsers and Node's fetch always send
/// the header). A plain service, not a router: a router around the app
/// would route every request once more.
pub fn around<S>(
    app: S,
    config: &CompressionConfig,
) -> Compress<
    S,
    impl Service<Request, Response = Response, Error = Infallible, Future: Send + 'static> + Clone + use<S>,
>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    let compressing = config.enabled.then(|| {
        ServiceBuilder::new()
            .map_response(restore_item_range as fn(Response) -> Response)
            .map_response(IntoResponse::into_response as fn(Response<CompressionBody<Body>>) -> Response)
            .layer(layer(config))
            .map_response(hide_item_range as fn(Response) -> Response)
            .service(app.clone())
    });
    Compress { plain: app, compressing }
}

/// What [`around`] makes: `plain` alone when compression is off.
#[derive(Clone)]
pub struct Compress<P, C> {
    plain: P,
    compressing: Option<C>,
}

impl<P, C> Service<Request> for Compress<P, C>
where
    P: Service<Request, Response = Response, Error = Infallible>,
    C: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<P::Future, C::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        if self.plain.poll_ready(cx)?.is_pending() {
            return Poll::Pending;
        }
        match &mut self.compressing {
            Some(compressing) => compressing.poll_ready(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // An Edge Function's answer is its own, streamed as it comes.
        match &mut self.compressing {
            Some(compressing)
                if request.headers().contains_key(header::ACCEPT_ENCODING)
                    && !crate::is_functions_path(request.uri().path()) =>
            {
                Either::Right(compressing.call(request))
            }
            _ => Either::Left(self.plain.call(request)),
        }
    }
}

/// Where an item range waits while the compression layer looks at the answer.
const ITEM_RANGE: HeaderName = HeaderName::from_static("x-gateway-item-range");

/// PostgREST puts `Content-Range: 0-24/*` (a range of rows, not of bytes) on
/// every read, 200s included
/// (https://docs.postgrest.org/en/v12/references/api/pagination_count.html),
/// and tower-http never compresses an answer with a `Content-Range`, which is
/// right for byte ranges only. Rows ranges are set aside for the layer and put
/// back after it; byte ranges (`bytes 0-9/100`, Storage's) stay in view.
fn hide_item_range(mut response: Response) -> Response {
    let headers = response.headers_mut();
    if headers.get(header::CONTENT_RANGE).is_some_and(|range| !range.as_bytes().starts_with(b"bytes"))
        && let Some(range) = headers.remove(header::CONTENT_RANGE)
    {
        headers.insert(ITEM_RANGE, range);
    }
    response
}

fn restore_item_range(mut response: Response) -> Response {
    let headers = response.headers_mut();
    if let Some(range) = headers.remove(ITEM_RANGE) {
        headers.insert(header::CONTENT_RANGE, range);
    }
    response
}

/// The layer the whole app runs under.
fn layer(config: &CompressionConfig) -> CompressionLayer<Compressible> {
    CompressionLayer::new()
        .gzip(true)
        .br(true)
        .no_deflate()
        .no_zstd()
        // tower-http's default brotli quality is 11, meant for files compressed
        // once; at 4 brotli is as fast as gzip's default and still smaller
        // (https://blog.cloudflare.com/results-experimenting-brotli/).
        .quality(CompressionLevel::Precise(4))
        .compress_when(Compressible { min_size: Some(config.min_size) })
}

/// Which answers are compressed on the fly; see the module's comment.
#[derive(Clone, Copy, Debug)]
pub struct Compressible {
    /// `None`: compression is off.
    min_size: Option<u64>,
}

impl Predicate for Compressible {
    fn should_compress<B>(&self, response: &Response<B>) -> bool
    where
        B: axum::body::HttpBody,
    {
        let Some(min_size) = self.min_size else { return false };
        let headers = response.headers();
        if headers.contains_key(header::ACCEPT_RANGES) {
            return false;
        }
        let size = response.body().size_hint().exact().or_else(|| {
            headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok())
        });
        if size.is_some_and(|size| size < min_size) {
            return false;
        }
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(is_text)
    }
}

/// A media type worth compressing: text, JSON (PostgREST's
/// `application/vnd.pgrst.object+json` and `openapi+json` included), JavaScript,
/// XML and SVG. Everything else (images, audio, video, archives, fonts,
/// `application/octet-stream`) is left as it is.
pub fn is_text(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let Some((kind, subtype)) = essence.split_once('/') else { return false };
    kind == "text"
        || subtype == "json"
        || subtype.ends_with("+json")
        || subtype == "xml"
        || subtype.ends_with("+xml")
        || subtype == "javascript"
        || (kind == "application" && subtype.starts_with("vnd.pgrst."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_json_javascript_and_svg_are_worth_compressing() {
        for kind in [
            "application/json",
            "application/json; charset=utf-8",
            "application/vnd.pgrst.object+json; nulls=stripped",
            "application/vnd.pgrst.plan+text",
            "application/openapi+json",
            "text/html; charset=utf-8",
            "text/css",
            "text/csv",
            "text/javascript",
            "application/javascript",
            "image/svg+xml",
            "APPLICATION/JSON",
        ] {
            assert!(is_text(kind), "{kind}");
        }
    }

    #[test]
    fn media_archives_and_unknown_bytes_are_left_as_they_are() {
        for kind in [
            "image/png",
            "image/jpeg",
            "image/webp",
            "video/mp4",
            "audio/mpeg",
            "application/zip",
            "application/gzip",
            "application/pdf",
            "application/octet-stream",
            "font/woff2",
            "",
            "garbage",
        ] {
            assert!(!is_text(kind), "{kind}");
        }
    }

    fn answer(content_type: &str, body: &str, ranges: bool) -> Response<axum::body::Body> {
        let mut builder = Response::builder().header(header::CONTENT_TYPE, content_type);
        if ranges {
            builder = builder.header(header::ACCEPT_RANGES, "bytes");
        }
        builder.body(axum::body::Body::from(body.to_owned())).expect("response")
    }

    #[test]
    fn only_text_answers_of_at_least_the_minimum_size_without_ranges_are_compressed() {
        let on = Compressible { min_size: Some(1024) };
        let big = "x".repeat(1024);
        let small = "x".repeat(1023);
        let cases = [
            ("application/json", big.as_str(), false, true),
            ("application/json", small.as_str(), false, false),
            ("image/png", big.as_str(), false, false),
            ("application/json", big.as_str(), true, false),
            ("text/html", big.as_str(), false, true),
        ];
        for (kind, body, ranges, expected) in cases {
            assert_eq!(
                on.should_compress(&answer(kind, body, ranges)),
                expected,
                "{kind} {} {ranges}",
                body.len()
            );
        }
        let off = Compressible { min_size: None };
        assert!(!off.should_compress(&answer("application/json", &big, false)));
    }
}
