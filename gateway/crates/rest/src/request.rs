//! What the REST API reads from an HTTP request besides the query itself: the
//! query pairs in order, `Prefer`, the media type asked for, and the schema.

use std::borrow::Cow;

use axum::extract::FromRequestParts;
use axum::http::{HeaderMap, Method, StatusCode, request::Parts};

use super::ast::Prefer;
use super::error::RestError;
use super::parse;
use crate::RestState;
use gateway_core::error::ApiError;

/// The response media types PostgREST offers
/// (`src/library/PostgREST/MediaType.hs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    Json,
    /// `application/vnd.pgrst.array+json;nulls=stripped`.
    JsonStripped,
    /// `application/vnd.pgrst.object+json`: exactly one row, as an object.
    Object,
    /// `application/vnd.pgrst.object+json;nulls=stripped`.
    ObjectStripped,
    Csv,
    OpenApi,
    /// `application/vnd.pgrst.plan`: PostgreSQL's plan of the statement that
    /// would answer in another media type, when `GATEWAY_DB_PLAN_ENABLED`.
    Plan(Plan),
}

/// What `application/vnd.pgrst.plan[+text|+json]; for="..."; options=...` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `+json`: `EXPLAIN (FORMAT JSON)`; else text.
    pub json: bool,
    /// The media type whose statement is explained (`for`, JSON by default).
    pub target: PlanTarget,
    pub options: PlanOptions,
}

/// The media types a plan can be asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanTarget {
    Json,
    JsonStripped,
    Object,
    ObjectStripped,
    Csv,
}

impl PlanTarget {
    pub fn media(self) -> Media {
        match self {
            PlanTarget::Json => Media::Json,
            PlanTarget::JsonStripped => Media::JsonStripped,
            PlanTarget::Object => Media::Object,
            PlanTarget::ObjectStripped => Media::ObjectStripped,
            PlanTarget::Csv => Media::Csv,
        }
    }
}

/// `EXPLAIN`'s options a plan may ask for, in PostgREST's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub analyze: bool,
    pub verbose: bool,
    pub settings: bool,
    pub buffers: bool,
    pub wal: bool,
}

impl PlanOptions {
    /// The options' names in PostgREST's order.
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.analyze, "analyze"),
            (self.verbose, "verbose"),
            (self.settings, "settings"),
            (self.buffers, "buffers"),
            (self.wal, "wal"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

impl Media {
    /// The media type without its charset, as PostgREST's `toMime` writes it.
    fn mime(self) -> Cow<'static, str> {
        let fixed = match self {
            Media::Json => "application/json",
            Media::JsonStripped => "application/vnd.pgrst.array+json;nulls=stripped",
            Media::Object => "application/vnd.pgrst.object+json",
            Media::ObjectStripped => "application/vnd.pgrst.object+json;nulls=stripped",
            Media::Csv => "text/csv",
            Media::OpenApi => "application/openapi+json",
            Media::Plan(plan) => {
                let mut mime = format!(
                    "application/vnd.pgrst.plan+{}; for=\"{}\"",
                    if plan.json { "json" } else { "text" },
                    plan.target.media().mime()
                );
                let options = plan.options.names();
                if !options.is_empty() {
                    mime.push_str("; options=");
                    mime.push_str(&options.join("|"));
                }
                return Cow::Owned(mime);
            }
        };
        Cow::Borrowed(fixed)
    }

    /// `Content-Type` of an answer in this media type. Written on every
    /// answer, so the usual ones are constants rather than formatted.
    pub fn content_type(self) -> Cow<'static, str> {
        match self {
            Media::Json => Cow::Borrowed("application/json; charset=utf-8"),
            Media::Csv => Cow::Borrowed("text/csv; charset=utf-8"),
            Media::Object => Cow::Borrowed("application/vnd.pgrst.object+json; charset=utf-8"),
            _ => Cow::Owned(format!("{}; charset=utf-8", self.mime())),
        }
    }

    /// `application/vnd.pgrst.object+json`, nulls stripped or not: one row.
    pub fn is_singular(self) -> bool {
        matches!(self, Media::Object | Media::ObjectStripped)
    }
}

/// The first media type of `Accept` that can be produced; none at all means
/// JSON. PGRST107 when nothing listed can be. A plan can be produced only
/// when plans are enabled, and only of a media type that can be.
pub fn negotiate(accept: Option<&str>, plans: bool) -> Result<Media, ApiError> {
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(Media::Json);
    };
    for entry in accept.split(',') {
        if let Some(media) = media_type(entry, plans) {
            return Ok(media);
        }
    }
    Err(ApiError::from(RestError {
        status: StatusCode::NOT_ACCEPTABLE,
        code: "PGRST107",
        message: format!("None of these media types are available: {accept}"),
        details: None,
        hint: None,
    }))
}

/// One media type of `Accept`, with its parameters: names are matched in
/// any case, a quoted value is unquoted.
fn media_type(entry: &str, plans: bool) -> Option<Media> {
    let mut parts = entry.split(';').map(str::trim);
    let essence = parts.next().unwrap_or("").to_ascii_lowercase();
    let params: Vec<(String, String)> = parts
        .filter_map(|p| {
            let (name, value) = p.split_once('=')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().trim_matches('"').to_owned()))
        })
        .collect();
    let param = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let stripped = param("nulls") == Some("stripped");
    match essence.as_str() {
        "application/json" | "application/*" | "*/*" => Some(Media::Json),
        "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" if stripped => {
            Some(Media::JsonStripped)
        }
        "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => Some(Media::Json),
        "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" if stripped => {
            Some(Media::ObjectStripped)
        }
        "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => Some(Media::Object),
        "text/csv" => Some(Media::Csv),
        "application/openapi+json" => Some(Media::OpenApi),
        "application/vnd.pgrst.plan"
        | "application/vnd.pgrst.plan+text"
        | "application/vnd.pgrst.plan+json"
            if plans =>
        {
            let target = match param("for").map(|f| media_type(f, false)) {
                None => PlanTarget::Json,
                Some(Some(Media::Json)) => PlanTarget::Json,
                Some(Some(Media::JsonStripped)) => PlanTarget::JsonStripped,
                Some(Some(Media::Object)) => PlanTarget::Object,
                Some(Some(Media::ObjectStripped)) => PlanTarget::ObjectStripped,
                Some(Some(Media::Csv)) => PlanTarget::Csv,
                Some(_) => return None,
            };
            let options: Vec<&str> = param("options").map(|o| o.split('|').collect()).unwrap_or_default();
            let on = |name: &str| options.contains(&name);
            Some(Media::Plan(Plan {
                json: essence.ends_with("+json"),
                target,
                options: PlanOptions {
                    analyze: on("analyze"),
                    verbose: on("verbose"),
                    settings: on("settings"),
                    buffers: on("buffers"),
                    wal: on("wal"),
                },
            }))
        }
        _ => None,
    }
}

/// The request, as far as the REST API cares, before any parsing of the query.
#[derive(Debug, Clone)]
pub struct RestRequest {
    pub method: Method,
    /// Form-decoded query pairs in arrival order, repeats kept: a map would
    /// lose `price=gte.1&price=lte.9`.
    pub pairs: Vec<(String, String)>,
    pub prefer: Prefer,
    /// What `Accept` asks for; JSON when it asks for nothing that can be
    /// produced, which [`RestRequest::acceptable`] then refuses.
    pub media: Media,
    /// `Accept`, when nothing it lists can be produced.
    unacceptable: Option<String>,
    /// The schema asked for with `Accept-Profile` (reads) or `Content-Profile`
    /// (writes), else the first exposed one.
    pub schema: String,
    /// The first `Range` header of a GET; PostgREST reads it for no other
    /// method (see [`super::range`]).
    pub range: Option<String>,
    /// What the body is, by `Content-Type`.
    pub payload: Payload,
}

/// A request body's kind, by `Content-Type`: PostgREST calls a function of
/// one unnamed text, xml or bytea argument with a body of those types, and
/// reads every other body as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    Json,
    /// `text/plain`.
    Text,
    /// `text/xml`.
    Xml,
    /// `application/octet-stream`.
    Binary,
}

impl Payload {
    pub fn of(content_type: Option<&str>) -> Self {
        let essence =
            content_type.and_then(|c| c.split(';').next()).unwrap_or("").trim().to_ascii_lowercase();
        match essence.as_str() {
            "text/plain" => Payload::Text,
            "text/xml" => Payload::Xml,
            "application/octet-stream" => Payload::Binary,
            _ => Payload::Json,
        }
    }

    /// The type of the one argument a body of this kind goes to whole.
    pub fn takes(self, data_type: &str) -> bool {
        match self {
            Payload::Json => matches!(data_type, "json" | "jsonb"),
            Payload::Text => data_type == "text",
            Payload::Xml => data_type == "xml",
            Payload::Binary => data_type == "bytea",
        }
    }

    /// The argument's type's name in PostgREST's errors.
    pub fn name(self) -> &'static str {
        match self {
            Payload::Json => "json/jsonb",
            Payload::Text => "text",
            Payload::Xml => "xml",
            Payload::Binary => "bytea",
        }
    }
}

impl RestRequest {
    /// PGRST107 when `Accept` lists nothing that can be produced. PostgREST
    /// negotiates the media type as the last step of planning
    /// (`negotiateContent` in `Plan.hs`, 12 to 14): after the query's parse
    /// and planning faults, before anything PostgreSQL reports. Every
    /// handler calls it once its plan is made, before any statement runs.
    pub fn acceptable(&self) -> Result<(), ApiError> {
        match &self.unacceptable {
            Some(accept) => negotiate(Some(accept), false).map(|_| ()),
            None => Ok(()),
        }
    }

    /// A planning result, with PostgREST's precedence: a fault PostgreSQL
    /// would report (some, like an unknown column, are found by the planner
    /// before any statement runs) comes after an unacceptable `Accept`,
    /// which PostgREST refuses before it runs its statement.
    pub fn planned<T>(&self, planned: Result<T, ApiError>) -> Result<T, ApiError> {
        match planned {
            Err(ApiError::Database(e)) => {
                self.acceptable()?;
                Err(ApiError::Database(e))
            }
            planned => planned,
        }
    }

    pub fn is_head(&self) -> bool {
        self.method == Method::HEAD
    }
}

impl FromRequestParts<RestState> for RestRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &RestState) -> Result<Self, Self::Rejection> {
        Self::of(parts, state).await
    }
}

impl RestRequest {
    /// What the extractor reads, for REST's own service.
    pub async fn of(parts: &Parts, state: &RestState) -> Result<Self, ApiError> {
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
        // The media type is refused only once the query is planned (see
        // [`RestRequest::acceptable`]).
        let accept = header(&parts.headers, "accept");
        let (media, unacceptable) = match negotiate(accept, state.config.plan_enabled) {
            Ok(media) => (media, None),
            Err(_) => (Media::Json, Some(accept.unwrap_or_default().to_owned())),
        };
        let range = (parts.method == Method::GET)
            .then(|| header(&parts.headers, "range").map(str::to_owned))
            .flatten();
        let payload = Payload::of(header(&parts.headers, "content-type"));
        Ok(Self { method: parts.method.clone(), pairs, prefer, media, unacceptable, schema, range, payload })
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
        Some(schema) => Err(ApiError::from(RestError {
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
        let plan = |json, target, options| Some(Media::Plan(Plan { json, target, options }));
        let cases = [
            (None, Some(Media::Json)),
            (Some("*/*"), Some(Media::Json)),
            (Some("application/vnd.pgrst.object+json"), Some(Media::Object)),
            (Some("application/vnd.pgrst.array+json;nulls=stripped"), Some(Media::JsonStripped)),
            (Some("application/vnd.pgrst.object+json; nulls=stripped"), Some(Media::ObjectStripped)),
            (Some("text/csv"), Some(Media::Csv)),
            (Some("text/xml, application/json"), Some(Media::Json)),
            (Some("text/xml"), None),
            (Some("application/geo+json"), None),
            (Some("application/vnd.pgrst.plan"), plan(false, PlanTarget::Json, PlanOptions::default())),
            (
                Some("application/vnd.pgrst.plan+json; for=\"text/csv\"; options=analyze|buffers"),
                plan(
                    true,
                    PlanTarget::Csv,
                    PlanOptions { analyze: true, buffers: true, ..PlanOptions::default() },
                ),
            ),
            (Some("application/vnd.pgrst.plan; for=\"text/xml\""), None),
        ];
        for (accept, expected) in cases {
            assert_eq!(negotiate(accept, true).ok(), expected, "{accept:?}");
        }
        // Plans turned off are not available.
        assert!(negotiate(Some("application/vnd.pgrst.plan"), false).is_err());
    }

    #[test]
    fn content_types_are_postgrest_s() {
        let plan = Media::Plan(Plan {
            json: false,
            target: PlanTarget::Csv,
            options: PlanOptions { analyze: true, wal: true, ..PlanOptions::default() },
        });
        assert_eq!(
            plan.content_type(),
            "application/vnd.pgrst.plan+text; for=\"text/csv\"; options=analyze|wal; charset=utf-8"
        );
        assert_eq!(
            Media::JsonStripped.content_type(),
            "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
        );
        // The constants are the media type and its charset.
        for media in [Media::Json, Media::Csv, Media::Object, Media::ObjectStripped, Media::OpenApi] {
            assert_eq!(media.content_type(), format!("{}; charset=utf-8", media.mime()));
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
