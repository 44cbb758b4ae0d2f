//! What the REST API reads from an HTTP request besides the query itself: the
//! query pairs in order, `Prefer`, the media type asked for, and the schema.

use axum::extract::{FromRef, FromRequestParts};
use axum::http::{HeaderMap, Method, StatusCode, request::Parts};

use super::ast::Prefer;
use super::error::RestError;
use super::parse;
use crate::error::ApiError;
use crate::state::AppState;

/// The response media types PostgREST offers
/// (`src/library/PostgREST/MediaType.hs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    Json,
    /// `application/vnd.pgrst.array+json;nulls=stripped`.
    JsonStripped,
    /// `application/vnd.pgrst.object+json`: exactly one row, as an object.
    Object,
    Csv,
    OpenApi,
}

impl Media {
    pub fn content_type(self) -> &'static str {
        match self {
            Media::Json => "application/json; charset=utf-8",
            Media::JsonStripped => "application/vnd.pgrst.array+json; nulls=stripped; charset=utf-8",
            Media::Object => "application/vnd.pgrst.object+json; charset=utf-8",
            Media::Csv => "text/csv; charset=utf-8",
            Media::OpenApi => "application/openapi+json; charset=utf-8",
        }
    }
}

/// The first media type of `Accept` that can be produced; none at all means
/// JSON. PGRST107 when nothing listed can be.
pub fn negotiate(accept: Option<&str>) -> Result<Media, ApiError> {
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(Media::Json);
    };
    for entry in accept.split(',') {
        let mut parts = entry.split(';').map(str::trim);
        let essence = parts.next().unwrap_or("").to_ascii_lowercase();
        let stripped = parts.any(|p| p.replace(' ', "").eq_ignore_ascii_case("nulls=stripped"));
        let media = match essence.as_str() {
            "application/json" | "application/*" | "*/*" => Some(Media::Json),
            "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" if stripped => {
                Some(Media::JsonStripped)
            }
            "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => Some(Media::Json),
            "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => Some(Media::Object),
            "text/csv" => Some(Media::Csv),
            "application/openapi+json" => Some(Media::OpenApi),
            _ => None,
        };
        if let Some(media) = media {
            return Ok(media);
        }
    }
    Err(ApiError::Rest(RestError {
        status: StatusCode::NOT_ACCEPTABLE,
        code: "PGRST107",
        message: format!("None of these media types are available: {accept}"),
        details: None,
        hint: None,
    }))
}

/// The request, as far as the REST API cares, before any parsing of the query.
#[derive(Debug, Clone)]
pub struct RestRequest {
    pub method: Method,
    /// Form-decoded query pairs in arrival order, repeats kept: a map would
    /// lose `price=gte.1&price=lte.9`.
    pub pairs: Vec<(String, String)>,
    pub prefer: Prefer,
    pub media: Media,
    /// The schema asked for with `Accept-Profile` (reads) or `Content-Profile`
    /// (writes), else the first exposed one.
    pub schema: String,
    /// The first `Range` header of a GET; PostgREST reads it for no other
    /// method (see [`super::range`]).
    pub range: Option<String>,
}

impl RestRequest {
    pub fn is_head(&self) -> bool {
        self.method == Method::HEAD
    }
}

impl<S> FromRequestParts<S> for RestRequest
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let pairs = form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let values: Vec<&str> =
            parts.headers.get_all("prefer").iter().filter_map(|v| v.to_str().ok()).collect();
        // The zone names are read only once a request names a zone.
        let zones = if values.iter().any(|v| v.contains("timezone=")) {
            Some(state.timezones.get(&state.db).await?)
        } else {
            None
        };
        let prefer = parse::parse_prefer(values, |zone| zones.is_some_and(|names| names.contains(zone)));
        let profile = if matches!(parts.method, Method::GET | Method::HEAD) {
            "accept-profile"
        } else {
            "content-profile"
        };
        // The schema is checked before the media type, as PostgREST does.
        let schema = choose_schema(state.schema.schemas(), header(&parts.headers, profile))?;
        let media = negotiate(header(&parts.headers, "accept"))?;
        let range = (parts.method == Method::GET)
            .then(|| header(&parts.headers, "range").map(str::to_owned))
            .flatten();
        Ok(Self { method: parts.method.clone(), pairs, prefer, media, schema, range })
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// PGRST106 for a schema that is not exposed (PostgREST 13+ wording).
pub fn choose_schema(exposed: &[String], asked: Option<&str>) -> Result<String, ApiError> {
    match asked {
        None => exposed.first().cloned().ok_or_else(|| ApiError::internal("no schema is exposed")),
        Some(schema) if exposed.iter().any(|s| s == schema) => Ok(schema.to_owned()),
        Some(schema) => Err(ApiError::Rest(RestError {
            status: StatusCode::NOT_ACCEPTABLE,
            code: "PGRST106",
            message: format!("Invalid schema: {schema}"),
            details: None,
            hint: Some(format!("Only the following schemas are exposed: {}", exposed.join(", "))),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers_pick_the_first_media_type_we_can_produce() {
        let cases = [
            (None, Some(Media::Json)),
            (Some("*/*"), Some(Media::Json)),
            (Some("application/vnd.pgrst.object+json"), Some(Media::Object)),
            (Some("application/vnd.pgrst.array+json;nulls=stripped"), Some(Media::JsonStripped)),
            (Some("text/csv"), Some(Media::Csv)),
            (Some("text/xml, application/json"), Some(Media::Json)),
            (Some("text/xml"), None),
        ];
        for (accept, expected) in cases {
            assert_eq!(negotiate(accept).ok(), expected, "{accept:?}");
        }
    }

    #[test]
    fn only_exposed_schemas_may_be_chosen() {
        let exposed = vec!["public".to_owned(), "api".to_owned()];
        assert_eq!(choose_schema(&exposed, None).ok().as_deref(), Some("public"));
        assert_eq!(choose_schema(&exposed, Some("api")).ok().as_deref(), Some("api"));
        assert!(choose_schema(&exposed, Some("auth")).is_err());
    }
}
