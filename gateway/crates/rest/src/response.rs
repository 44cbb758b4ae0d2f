//! Status codes and headers exactly as PostgREST sets them
//! (`src/library/PostgREST/Response.hs`, `RangeQuery.hs`).

use std::borrow::Cow;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::RestError;
use super::request::Media;
use gateway_core::error::ApiError;

/// `Content-Range`: `0-19/137`, `*/0` for no rows, `*` for an unknown total.
pub fn content_range(offset: i64, page: i64, total: Option<i64>) -> String {
    let total = total.map_or_else(|| "*".to_owned(), |t| t.to_string());
    // A total of zero is `*/0` even over a page of one group (`count()`), as
    // PostgREST's `contentRangeH`.
    if page <= 0 || total == "0" {
        format!("*/{total}")
    } else {
        format!("{offset}-{}/{total}", offset + page - 1)
    }
}

/// 416 PGRST103, PostgREST's answer to a range it cannot serve.
pub fn range_error(details: String) -> ApiError {
    ApiError::from(RestError {
        status: StatusCode::RANGE_NOT_SATISFIABLE,
        code: "PGRST103",
        message: "Requested range not satisfiable".to_owned(),
        details: Some(json!(details)),
        hint: None,
    })
}

/// A 416 for an offset past the total carries `Content-Range: */<total>`,
/// as PostgREST's does.
pub fn with_total_range(error: ApiError, total: Option<i64>, media: Media) -> Response {
    let mut response = labelled(error, media);
    if let Some(value) = total.and_then(|t| HeaderValue::from_str(&format!("*/{t}")).ok()) {
        response.headers_mut().insert(HeaderName::from_static("content-range"), value);
    }
    response
}

/// A 416's JSON error, labelled with the media type the request asked for
/// (`text/csv`, `...;nulls=stripped`), as PostgREST 12-14 label it: their
/// `actionResponse` swaps the body for the error and keeps the headers of
/// the answer (`contentTypeHeaders pMedia`). Rendered here, in PostgREST's
/// shape, since the router's error layer labels what it renders JSON.
pub fn labelled(error: ApiError, media: Media) -> Response {
    let mut response = gateway_core::error::render::<super::error::PostgRest>(&error);
    if let Some(value) = content_type(media) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// The `Content-Type` of `media`; a constant needs no copy.
fn content_type(media: Media) -> Option<HeaderValue> {
    match media.content_type() {
        Cow::Borrowed(text) => Some(HeaderValue::from_static(text)),
        Cow::Owned(text) => HeaderValue::try_from(text).ok(),
    }
}

/// 200, or 206 when a known total is larger than the page, or 416 when the
/// offset is past it.
pub fn read_status(offset: i64, page: i64, total: Option<i64>) -> Result<StatusCode, ApiError> {
    match total {
        Some(total) if offset > total => {
            Err(range_error(format!("An offset of {offset} was requested, but there are only {total} rows.")))
        }
        Some(total) if page < total => Ok(StatusCode::PARTIAL_CONTENT),
        _ => Ok(StatusCode::OK),
    }
}

/// 406 PGRST116 unless exactly one row (PostgREST 13+ wording).
pub fn check_singular(media: Media, page: i64) -> Result<(), ApiError> {
    if media.is_singular() && page != 1 {
        return Err(ApiError::from(RestError {
            status: StatusCode::NOT_ACCEPTABLE,
            code: "PGRST116",
            message: "Cannot coerce the result to a single JSON object".to_owned(),
            details: Some(json!(format!("The result contains {page} rows"))),
            hint: None,
        }));
    }
    Ok(())
}

/// PostgREST's own headers, made once (`HeaderName::from_static` outside a
/// constant parses its name on every call).
const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");
const CONTENT_PROFILE: HeaderName = HeaderName::from_static("content-profile");

/// A response under construction.
pub struct Reply {
    pub status: StatusCode,
    pub body: Option<String>,
    /// The body's media type; `None` when there is no body to describe (a
    /// mutation without `return=representation`), as PostgREST sends none then.
    pub media: Option<Media>,
    pub content_range: Option<String>,
    pub preference_applied: Option<String>,
    pub location: Option<String>,
    pub profile: String,
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let mut response = Response::new(self.body.map_or_else(Body::empty, Body::from));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        // Room for every header below at once: the map grows otherwise.
        headers.reserve(5);
        if let Some(value) = self.media.and_then(content_type) {
            headers.insert(header::CONTENT_TYPE, value);
        }
        let optional = [
            (header::CONTENT_RANGE, self.content_range),
            (PREFERENCE_APPLIED, self.preference_applied),
            (header::LOCATION, self.location),
            (CONTENT_PROFILE, Some(self.profile)),
        ];
        for (name, value) in optional {
            if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
                headers.insert(name, value);
            }
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_read_like_postgrest() {
        let cases = [
            (0, 20, Some(137), "0-19/137"),
            (0, 0, Some(0), "*/0"),
            (0, 2, None, "0-1/*"),
            (5, 0, None, "*/*"),
            (10, 5, Some(15), "10-14/15"),
        ];
        for (offset, page, total, expected) in cases {
            assert_eq!(content_range(offset, page, total), expected);
        }
    }

    #[test]
    fn statuses_follow_the_window_and_the_total() {
        assert_eq!(read_status(0, 5, Some(5)).ok(), Some(StatusCode::OK));
        assert_eq!(read_status(0, 2, Some(5)).ok(), Some(StatusCode::PARTIAL_CONTENT));
        assert_eq!(read_status(0, 2, None).ok(), Some(StatusCode::OK));
        assert_eq!(read_status(0, 0, Some(0)).ok(), Some(StatusCode::OK));
        assert!(read_status(10, 0, Some(5)).is_err());
        // An empty window at the end is smaller than the total: 206, as PostgREST.
        assert_eq!(read_status(5, 0, Some(5)).ok(), Some(StatusCode::PARTIAL_CONTENT));
    }
}
