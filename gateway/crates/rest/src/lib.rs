//! `/rest/v1`: the PostgREST-compatible API.
//!
//! Like the hosted service, every request must carry an API key, and errors take
//! PostgREST's `{"code","details","hint","message"}` shape. Each handler is a
//! recipe: parse (`parse`), plan against the schema cache (`plan`), render one
//! statement (`sql`), run it in the caller's session (`execute`), respond
//! (`response`).

pub mod ast;
pub mod cache;
pub mod config;
pub mod error;
pub mod execute;
pub mod fuzzy;
pub mod memo;
pub mod openapi;
pub mod parse;
pub mod plan;
pub mod range;
pub mod request;
pub mod response;
pub mod schema;
pub mod service;
pub mod sql;
pub mod timezones;
pub mod typegen;
pub mod views;

use axum::{
    body::Bytes,
    extract::FromRef,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde_json::{Map, Value, json};
use std::sync::Arc;

use self::ast::{CountMethod, Handling, QueryParams, Representation, Resolution, Transaction};
use self::error::RestError;
use self::request::{Media, Payload, RestRequest};
use self::response::Reply;
use self::sql::BodyKind;
use gateway_core::body::Limits;
use gateway_core::caller::{Caller, Credentials};
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;

/// What REST's handlers see.
#[derive(Clone)]
pub struct RestState {
    pub db: Db,
    pub credentials: Arc<Credentials>,
    pub config: Arc<RestConfig>,
    /// The schema cache (`cache`).
    pub schema: cache::SchemaHandle,
    /// The time zones `Prefer: timezone=` may name.
    pub timezones: timezones::Timezones,
    pub limits: Limits,
}

impl FromRef<RestState> for Arc<Credentials> {
    fn from_ref(state: &RestState) -> Self {
        state.credentials.clone()
    }
}

pub use config::RestConfig;
pub use error::PostgRest;
pub use service::{Rest, router};

fn parse_error(e: parse::ParseError) -> ApiError {
    ApiError::from(RestError {
        status: StatusCode::BAD_REQUEST,
        code: e.code,
        message: e.message,
        details: e.details.map(Value::String),
        hint: e.hint,
    })
}

fn bad_body(message: &str) -> ApiError {
    ApiError::from(RestError {
        status: StatusCode::BAD_REQUEST,
        code: "PGRST102",
        message: message.to_owned(),
        details: None,
        hint: None,
    })
}

/// What a body of the response is built as, for a media type.
fn body_kind(media: Media) -> BodyKind {
    match media {
        Media::Json | Media::OpenApi => BodyKind::Array,
        Media::JsonStripped => BodyKind::ArrayStripped,
        Media::Object => BodyKind::Object,
        Media::ObjectStripped => BodyKind::ObjectStripped,
        Media::Csv => BodyKind::Csv,
        Media::Plan(plan) => body_kind(plan.target.media()),
    }
}

/// Narrows the top level's limit and offset to the rows asked for, the
/// `Range` header included; 416 when none can be (see [`range`]).
fn narrow(request: &RestRequest, query: &mut QueryParams) -> Result<(), ApiError> {
    let window = range::window(query.root.limit, query.root.offset, request.range.as_deref())?;
    query.root.offset = Some(window.offset);
    query.root.limit = window.limit;
    Ok(())
}

/// Writes and function calls count exactly whatever count was asked for.
fn counting(request: &RestRequest) -> bool {
    request.prefer.count.is_some()
}

/// [`plan::read`], refusing aggregates when they are turned off
/// (`GATEWAY_DB_AGGREGATES_ENABLED`).
fn plan_read<'a>(
    state: &RestState,
    cache: &'a schema::SchemaCache,
    schema: &str,
    table: &str,
    query: &QueryParams,
) -> Result<plan::Node<'a>, ApiError> {
    let node = plan::read(cache, schema, table, query)?;
    check_aggregates(state, &node)?;
    Ok(node)
}

/// PGRST123 for aggregates while they are turned off.
fn check_aggregates(state: &RestState, node: &plan::Node<'_>) -> Result<(), ApiError> {
    if !state.config.aggregates_enabled && node.uses_aggregates() {
        return Err(plan::aggregates_disabled());
    }
    Ok(())
}

/// `GET`/`HEAD /{table}`. A read asked before against the same schema cache
/// is run as it was planned then ([`memo`]).
async fn read(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    if !memoizable(&request) {
        return Box::pin(read_with_plan(state, caller, request, table)).await;
    }
    let key = memo::ReadKey::new(
        &request.schema,
        &table,
        &request.pairs,
        request.range.as_deref(),
        request.prefer.count,
        request.media,
        request.is_head(),
    );
    let memoized = state.schema.loaded().and_then(|cache| state.schema.memo().read(&cache, &key));
    let planned = match memoized {
        Some(planned) => {
            request.acceptable()?;
            planned
        }
        None => plan_and_keep(&state, &request, &table, key).await?,
    };
    let session = state
        .db
        .session(&caller, Access::ReadOnly)
        .await?
        .in_timezone(request.prefer.timezone.as_deref())
        .in_schema(&request.schema);
    // A read commits in the same round trip as its statement.
    let outcome = execute::run_and_end(session, &planned.statement, commits(&request)).await?;
    read_reply(&request, planned.offset, planned.csv_header.as_deref(), outcome)
}

/// Whether a read's statement is all its plan is needed for: not for a
/// planned or estimated count (a statement of its own first, whose answer
/// decides the main one) nor for `EXPLAIN`.
fn memoizable(request: &RestRequest) -> bool {
    !matches!(request.prefer.count, Some(CountMethod::Planned | CountMethod::Estimated))
        && !matches!(request.media, Media::Plan(_))
}

/// Parses, plans and renders a read, and keeps it in the memo.
async fn plan_and_keep(
    state: &RestState,
    request: &RestRequest,
    table: &str,
    key: memo::ReadKey,
) -> Result<Arc<memo::PlannedRead>, ApiError> {
    let mut query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    narrow(request, &mut query)?;
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(state, &cache, &request.schema, table, &query))?;
    request.acceptable()?;
    let body = if request.is_head() { BodyKind::None } else { body_kind(request.media) };
    let exact = request.prefer.count == Some(CountMethod::Exact);
    let planned = Arc::new(memo::PlannedRead {
        statement: sql::read(&node, Some(state.config.max_rows), exact, body),
        offset: query.root.offset.unwrap_or(0).max(0),
        csv_header: csv_header(request, &node),
    });
    state.schema.memo().keep_read(&cache, key, planned.clone());
    Ok(planned)
}

/// A read that needs its plan after planning: with a planned or estimated
/// count, or for `EXPLAIN`.
async fn read_with_plan(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
) -> Result<Response, ApiError> {
    let mut query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    narrow(&request, &mut query)?;
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(&state, &cache, &request.schema, &table, &query))?;
    request.acceptable()?;
    let body = if request.is_head() { BodyKind::None } else { body_kind(request.media) };
    let max_rows = state.config.max_rows;
    let mut session = state
        .db
        .session(&caller, Access::ReadOnly)
        .await?
        .in_timezone(request.prefer.timezone.as_deref())
        .in_schema(&request.schema);
    // count=planned is the planner's estimate; count=estimated is exact up to
    // max-rows and the estimate beyond (PostgREST docs, "Counting").
    let planned = match request.prefer.count {
        Some(CountMethod::Planned | CountMethod::Estimated) => {
            Some(execute::planned_count(&mut session, &sql::planned_count(&node)).await?)
        }
        _ => None,
    };
    let exact = match request.prefer.count {
        Some(CountMethod::Exact) => true,
        Some(CountMethod::Estimated) => planned.is_some_and(|p| p <= max_rows),
        _ => false,
    };
    let statement = sql::read(&node, Some(max_rows), exact, body);
    if let Media::Plan(plan) = request.media {
        return Box::pin(plan_reply(session, &statement, plan, &request)).await;
    }
    let mut outcome = execute::run_and_end(session, &statement, commits(&request)).await?;
    if outcome.total.is_none() {
        outcome.total = planned;
    }
    let offset = query.root.offset.unwrap_or(0).max(0);
    read_reply(&request, offset, csv_header(&request, &node).as_deref(), outcome)
}

/// A read's answer, from its statement's outcome.
fn read_reply(
    request: &RestRequest,
    offset: i64,
    csv_header: Option<&str>,
    outcome: execute::Outcome,
) -> Result<Response, ApiError> {
    // PostgREST checks singularity before the range.
    response::check_singular(request.media, outcome.page)?;
    let status = match response::read_status(offset, outcome.page, outcome.total) {
        Ok(status) => status,
        Err(e) => return Ok(response::with_total_range(e, outcome.total, request.media)),
    };
    let mut prefer = request.prefer.clone();
    prefer.representation = None;
    prefer.resolution = None;
    prefer.missing = None;
    Ok(Reply {
        status,
        body: render_body(request, csv_header, outcome.body),
        media: Some(request.media),
        content_range: Some(response::content_range(offset, outcome.page, outcome.total)),
        preference_applied: prefer.preference_applied(),
        location: None,
        profile: request.schema.clone(),
    }
    .into_response())
}

/// `GET /`: the OpenAPI (Swagger 2.0) description of what the caller may use.
pub async fn describe(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    host: Option<String>,
) -> Result<Response, ApiError> {
    request.acceptable()?;
    let cache = state.schema.get(&state.db).await?;
    let visible = execute::visible(&state.db, &caller, &request.schema).await?;
    let document = openapi::document(&cache, &request.schema, &visible, host.as_deref());
    Ok(Reply {
        status: StatusCode::OK,
        body: Some(document.to_string()),
        media: Some(Media::OpenApi),
        content_range: None,
        preference_applied: None,
        location: None,
        profile: request.schema.clone(),
    }
    .into_response())
}

/// Bytes as PostgreSQL's `bytea` hex input (`\x0aff`), bound as text.
fn bytea_literal(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 + 2 * bytes.len());
    text.push_str("\\x");
    for byte in bytes {
        let _ = std::fmt::Write::write_fmt(&mut text, format_args!("{byte:02x}"));
    }
    text
}

/// The CSV header line (the output columns' names) when the answer is CSV.
fn csv_header(request: &RestRequest, node: &plan::Node<'_>) -> Option<String> {
    (request.media == Media::Csv).then(|| node.output_names().join(","))
}

/// The body text, with the CSV header line that PostgREST puts first.
fn render_body(request: &RestRequest, csv_header: Option<&str>, body: Option<String>) -> Option<String> {
    if request.is_head() {
        return None;
    }
    let body = body?;
    if request.media != Media::Csv {
        return Some(body);
    }
    if body.is_empty() {
        // No rows, no header line: PostgREST takes it from the first row.
        return Some("\n".to_owned());
    }
    Some(format!("{}\n{body}", csv_header.unwrap_or_default()))
}

/// Commit, unless `Prefer: tx=rollback` asks to roll back.
fn commits(request: &RestRequest) -> bool {
    request.prefer.transaction != Some(Transaction::Rollback)
}

/// Runs a write (or a call) as the caller, in the time zone it asked for, and
/// ends its transaction as it asked in the same round trip (performance.md
/// §4.6). `check` judges the rows it touched; the write's check statement
/// makes the same check (`sql::Bounds`) before the transaction ends, so a
/// write that `check` refuses fails inside the transaction and is rolled
/// back, never committed, and the answer is `check`'s error for that count.
async fn write(
    state: &RestState,
    caller: &Caller,
    access: Access,
    write: &sql::Write,
    request: &RestRequest,
    check: impl Fn(i64) -> Result<(), ApiError>,
) -> Result<execute::Outcome, ApiError> {
    write_with(state, caller, access, write, &[], request, check).await
}

/// [`write`], with this request's values in place of the first parameters
/// of a statement planned before ([`execute::run_planned_and_end`]).
async fn write_with(
    state: &RestState,
    caller: &Caller,
    access: Access,
    write: &sql::Write,
    first: &[&str],
    request: &RestRequest,
    check: impl Fn(i64) -> Result<(), ApiError>,
) -> Result<execute::Outcome, ApiError> {
    let session = state
        .db
        .session(caller, access)
        .await?
        .in_timezone(request.prefer.timezone.as_deref())
        .in_schema(&request.schema);
    let commit = commits(request);
    let run = execute::run_planned_and_end(session, write, first, commit).await;
    let outcome = run.map_err(|e| match execute::out_of_bounds(&e) {
        Some(touched) => check(touched).err().unwrap_or(e),
        None => e,
    })?;
    // A statement that wrote nothing has no check statement: its check comes after.
    check(outcome.page)?;
    Ok(outcome)
}

/// What planning a write needs of its body ([`parse::json_rows`]).
fn json_rows(body: &Bytes) -> Result<parse::JsonRows, ApiError> {
    parse::json_rows(body).map_err(|e| bad_body(e.message()))
}

/// The `max-affected` of `Prefer: handling=strict`.
fn max_affected(request: &RestRequest) -> Option<i64> {
    match (request.prefer.handling, request.prefer.max_affected) {
        (Some(Handling::Strict), max) => max,
        _ => None,
    }
}

/// A write's checks on the rows it touched, in PostgREST's order: singular,
/// then `max-affected`.
fn check_touched(request: &RestRequest, affected: i64) -> Result<(), ApiError> {
    response::check_singular(request.media, affected)?;
    check_max_affected(request, affected)
}

/// PGRST124 when a write or a call touched more rows than `max-affected`
/// allows under `handling=strict` (a call: the rows it returns, PostgREST
/// 13's rule).
fn check_max_affected(request: &RestRequest, affected: i64) -> Result<(), ApiError> {
    match max_affected(request) {
        Some(max) if affected > max => Err(ApiError::from(RestError {
            status: StatusCode::BAD_REQUEST,
            code: "PGRST124",
            message: "Query result exceeds max-affected preference constraint".to_owned(),
            details: Some(json!(format!("The query affects {affected} rows"))),
            hint: None,
        })),
        _ => Ok(()),
    }
}

/// [`check_touched`] as bounds for the write's check statement.
fn touched_bounds(request: &RestRequest) -> Option<sql::Bounds> {
    bounds(request.media.is_singular(), max_affected(request))
}

/// Between 1 and 1 row for a singular answer, at most `max` with `max-affected`.
fn bounds(singular: bool, max: Option<i64>) -> Option<sql::Bounds> {
    (singular || max.is_some()).then(|| sql::Bounds {
        at_least: if singular { 1 } else { 0 },
        at_most: max.unwrap_or(i64::MAX).min(if singular { 1 } else { i64::MAX }),
    })
}

/// What a write's statement reports.
fn write_report(request: &RestRequest) -> sql::Report {
    sql::Report { count: counting(request), body: returned(request), bounds: touched_bounds(request) }
}

fn returned(request: &RestRequest) -> BodyKind {
    match request.prefer.representation {
        Some(Representation::Full) => body_kind(request.media),
        _ => BodyKind::None,
    }
}

/// `Accept: application/vnd.pgrst.plan`: PostgreSQL's `EXPLAIN` of the
/// statement in the caller's session. With `options=analyze` the statement
/// runs, and a write is kept unless `Prefer: tx=rollback`, as in PostgREST.
async fn plan_reply(
    session: gateway_core::db::Session,
    statement: &sql::Statement,
    plan: request::Plan,
    request: &RestRequest,
) -> Result<Response, ApiError> {
    let text = execute::plan_and_end(session, &sql::explain(statement, plan), commits(request)).await?;
    Ok(Reply {
        status: StatusCode::OK,
        body: (!request.is_head()).then_some(text),
        media: Some(request.media),
        content_range: None,
        preference_applied: None,
        location: None,
        profile: request.schema.clone(),
    }
    .into_response())
}

/// A write's or a call's plan, when one was asked for instead of its answer.
async fn write_plan(
    state: &RestState,
    caller: &Caller,
    access: Access,
    write: &sql::Write,
    request: &RestRequest,
) -> Result<Option<Response>, ApiError> {
    let Media::Plan(plan) = request.media else { return Ok(None) };
    let session = state
        .db
        .session(caller, access)
        .await?
        .in_timezone(request.prefer.timezone.as_deref())
        .in_schema(&request.schema);
    plan_reply(session, &write.statement, plan, request).await.map(Some)
}

/// Unknown preferences under `handling=strict` are an error (PGRST122), on
/// every request, before anything else about it is looked at.
fn check_preferences(request: &RestRequest) -> Result<(), ApiError> {
    if request.prefer.handling == Some(Handling::Strict) && !request.prefer.invalid.is_empty() {
        return Err(ApiError::from(RestError {
            status: StatusCode::BAD_REQUEST,
            code: "PGRST122",
            message: "Invalid preferences given with handling=strict".to_owned(),
            details: Some(json!(format!("Invalid preferences: {}", request.prefer.invalid.join(", ")))),
            hint: None,
        }));
    }
    Ok(())
}

/// A JSON body's text, as PostgREST passes it to PostgreSQL: numbers keep
/// every digit and `json` values their keys' order, which a round trip
/// through [`Value`] would not keep. An empty body is `{}`.
fn body_text(body: &Bytes) -> Result<&str, ApiError> {
    if body.is_empty() {
        return Ok("{}");
    }
    std::str::from_utf8(body).map_err(|_| bad_body("Empty or invalid json"))
}

/// `Location` for a created row: `/products?id=eq.6`.
fn location(table: &str, extra: Option<&str>) -> Option<String> {
    let extra: Value = serde_json::from_str(extra?).ok()?;
    let key = extra.get("location")?.as_str()?;
    let key: Map<String, Value> = serde_json::from_str(key).ok()?;
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in key {
        let text = match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        query.append_pair(&name, &format!("eq.{text}"));
    }
    Some(format!("/{table}?{}", query.finish()))
}

fn inserted(extra: Option<&str>) -> i64 {
    extra
        .and_then(|e| serde_json::from_str::<Value>(e).ok())
        .and_then(|e| e.get("inserted")?.as_str()?.parse().ok())
        .unwrap_or(0)
}

/// Rows the statement wrote, whether or not the representation shows them.
fn written(extra: Option<&str>) -> i64 {
    extra
        .and_then(|e| serde_json::from_str::<Value>(e).ok())
        .and_then(|e| e.get("written")?.as_i64())
        .unwrap_or(0)
}

/// A write's answer, with the body its statement returned.
fn mutation_reply(request: &RestRequest, status: StatusCode, body: Option<String>, range: String) -> Reply {
    let has_body = request.prefer.representation == Some(Representation::Full);
    let mut prefer = request.prefer.clone();
    if prefer.representation == Some(Representation::Minimal) {
        prefer.representation = None;
    }
    Reply {
        status: if has_body || status != StatusCode::OK { status } else { StatusCode::NO_CONTENT },
        body: if has_body { body } else { None },
        media: has_body.then_some(request.media),
        content_range: Some(range),
        preference_applied: prefer.preference_applied(),
        location: None,
        profile: request.schema.clone(),
    }
}

/// `POST /{table}`: insert, or upsert with `Prefer: resolution=...`. A
/// one-row insert asked before against the same schema cache, with the same
/// query string, preferences and keys, whose values all bind as parameters,
/// runs as it was planned then with its own values ([`memo`]).
async fn create(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
    body: Bytes,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    let rows = json_rows(&body);
    let key = match &rows {
        Ok(rows) if rows.rows == 1 && memoizable(&request) => Some(write_key(&request, &table, &rows.keys)),
        _ => None,
    };
    let memoized = key
        .as_ref()
        .and_then(|key| state.schema.loaded().and_then(|cache| state.schema.memo().insert(&cache, key)));
    if let Some(planned) = memoized {
        request.acceptable()?;
        let columns: Vec<&schema::Column> = planned.columns.iter().collect();
        if let Some(values) = plan::bound_values(&columns, body_text(&body)?) {
            let values: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
            let outcome =
                write_with(&state, &caller, Access::ReadWrite, &planned.write, &values, &request, |n| {
                    check_touched(&request, n)
                })
                .await?;
            return Ok(created(&request, &table, outcome));
        }
    }
    let query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    let rows = rows?;
    if query.columns.is_none() && !rows.uniform {
        return Err(bad_body(parse::BodyError::KeysMustMatch.message()));
    }
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(&state, &cache, &request.schema, &table, &select_only(&query)))?;
    let columns = plan::write_columns(node.table, query.columns.as_deref(), &rows.keys)?;
    let on_conflict = match request.prefer.resolution {
        Some(resolution) => Some((
            plan::conflict_columns(node.table, query.on_conflict.as_deref())?,
            match resolution {
                Resolution::MergeDuplicates => sql::Conflict::Merge,
                Resolution::IgnoreDuplicates => sql::Conflict::Ignore,
            },
        )),
        None => None,
    };
    let insert = sql::Insert {
        columns,
        missing_default: request.prefer.missing == Some(ast::Missing::Default),
        on_conflict,
        location: request.prefer.representation == Some(Representation::HeadersOnly),
    };
    request.acceptable()?;
    let rows = plan::insert_rows(&insert.columns, insert.missing_default, body_text(&body)?, rows.rows == 1);
    // Kept when every value is a parameter, so that another row's values
    // can take their places.
    let bound =
        matches!(&rows, sql::Rows::One(values) if !values.is_empty() && values.iter().all(Option::is_some));
    let statement = sql::insert(&node, &insert, rows, write_report(&request));
    if let Some(plan) = write_plan(&state, &caller, Access::ReadWrite, &statement, &request).await? {
        return Ok(plan);
    }
    if let (Some(key), true) = (key, bound) {
        // The row's own values are not kept: each insert binds its own.
        let mut write = statement.clone();
        write.statement.params.iter_mut().take(insert.columns.len()).for_each(String::clear);
        let planned =
            memo::PlannedInsert { write, columns: insert.columns.iter().map(|c| (*c).clone()).collect() };
        state.schema.memo().keep_insert(&cache, key, Arc::new(planned));
    }
    let outcome =
        write(&state, &caller, Access::ReadWrite, &statement, &request, |n| check_touched(&request, n))
            .await?;
    Ok(created(&request, &table, outcome))
}

/// The memo's key of a call of `name` or an insert into `name` whose body
/// has these keys ([`memo::WriteKey`]).
fn write_key(request: &RestRequest, name: &str, names: &[String]) -> memo::WriteKey {
    let read = memo::ReadKey::new(
        &request.schema,
        name,
        &request.pairs,
        request.range.as_deref(),
        request.prefer.count,
        request.media,
        request.is_head(),
    );
    memo::WriteKey::new(read, names, request.payload, request.method.as_str(), &request.prefer)
}

/// An insert's answer, from its statement's outcome.
fn created(request: &RestRequest, table: &str, outcome: execute::Outcome) -> Response {
    // PostgREST answers 200 when an upsert only updated rows.
    let status = if request.prefer.resolution.is_some()
        && inserted(outcome.extra.as_deref()) == 0
        && written(outcome.extra.as_deref()) > 0
    {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let total = outcome.total.map_or_else(|| "*".to_owned(), |t| t.to_string());
    let mut reply = mutation_reply(request, status, outcome.body, format!("*/{total}"));
    // An update-only upsert is 200 even without a body (PostgREST's
    // `createResponse`); only PATCH, DELETE and PUT turn that into 204.
    reply.status = status;
    if request.prefer.representation == Some(Representation::HeadersOnly) {
        reply.location = location(table, outcome.extra.as_deref());
    }
    reply.into_response()
}

/// The query with its filters dropped: an insert reads back what it wrote, not
/// what the filters match.
fn select_only(query: &QueryParams) -> QueryParams {
    QueryParams { select: query.select.clone(), embedded: query.embedded.clone(), ..QueryParams::default() }
}

/// Supabase loads pg-safeupdate, which refuses an UPDATE or DELETE without a
/// WHERE clause; PostgREST answers it with 400 (supabase/supabase#5050).
fn require_filters(node: &plan::Node<'_>, verb: &str) -> Result<(), ApiError> {
    if node.conditions.is_empty() {
        return Err(ApiError::Database(gateway_core::error::DbError {
            code: "21000".to_owned(),
            message: format!("{verb} requires a WHERE clause"),
            details: None,
            hint: None,
            role: gateway_core::role::Role::Authenticated,
        }));
    }
    Ok(())
}

/// `PATCH /{table}`.
async fn update(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
    body: Bytes,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    let query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    let row = json_rows(&body)?;
    if !row.object {
        return Err(bad_body(parse::BodyError::Invalid.message()));
    }
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(&state, &cache, &request.schema, &table, &query))?;
    let columns = plan::write_columns(node.table, None, &row.keys)?;
    request.acceptable()?;
    require_filters(&node, "UPDATE")?;
    let statement = if columns.is_empty() {
        // Nothing to set: read back nothing, as PostgREST does.
        sql::Write::unchecked(sql::read(&node, Some(0), false, returned(&request)))
    } else {
        sql::update(&node, &columns, body_text(&body)?.to_owned(), write_report(&request))
    };
    if let Some(plan) = write_plan(&state, &caller, Access::ReadWrite, &statement, &request).await? {
        return Ok(plan);
    }
    let outcome =
        write(&state, &caller, Access::ReadWrite, &statement, &request, |n| check_touched(&request, n))
            .await?;
    let range = response::content_range(0, outcome.page, outcome.total);
    Ok(mutation_reply(&request, StatusCode::OK, outcome.body, range).into_response())
}

/// `DELETE /{table}`.
async fn delete(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    let query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(&state, &cache, &request.schema, &table, &query))?;
    request.acceptable()?;
    require_filters(&node, "DELETE")?;
    let statement = sql::delete(&node, write_report(&request));
    if let Some(plan) = write_plan(&state, &caller, Access::ReadWrite, &statement, &request).await? {
        return Ok(plan);
    }
    let outcome =
        write(&state, &caller, Access::ReadWrite, &statement, &request, |n| check_touched(&request, n))
            .await?;
    // PostgREST's range of a delete is always empty: `*/*` (or `*/<count>`).
    let range = response::content_range(0, 0, outcome.total);
    Ok(mutation_reply(&request, StatusCode::OK, outcome.body, range).into_response())
}

/// `PUT /{table}?pk=eq.v`: insert or replace the one row the primary key
/// names; the filters must be exactly the key (PGRST105) and agree with the
/// body (PGRST115).
async fn put(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    table: String,
    body: Bytes,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    let query = parse::parse_query(&request.pairs).map_err(parse_error)?;
    // One row, whose values are compared with the filters: read as a whole.
    let object = if body.is_empty() { Ok(Value::Object(Map::new())) } else { serde_json::from_slice(&body) };
    let Ok(Value::Object(object)) = object else {
        return Err(bad_body(parse::BodyError::Invalid.message()));
    };
    let keys: Vec<String> = object.keys().cloned().collect();
    let cache = state.schema.get(&state.db).await?;
    let node = request.planned(plan_read(&state, &cache, &request.schema, &table, &select_only(&query)))?;
    let pk = &node.table.primary_key;
    let key_filters: Vec<(&str, &str)> = query
        .root
        .filters
        .iter()
        .filter_map(|f| match &f.operation {
            ast::Operation::Compare { op: ast::CompareOp::Eq, value }
                if !f.negated && f.field.json_path.is_empty() =>
            {
                Some((f.field.name.as_str(), value.as_str()))
            }
            _ => None,
        })
        .collect();
    let exact = !pk.is_empty()
        && key_filters.len() == query.root.filters.len()
        && query.root.logic.is_empty()
        && key_filters.len() == pk.len()
        && pk.iter().all(|k| key_filters.iter().any(|(name, _)| name == k));
    if !exact {
        return Err(ApiError::from(RestError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            code: "PGRST105",
            message: "Filters must include all and only primary key columns with 'eq' operators".to_owned(),
            details: None,
            hint: None,
        }));
    }
    let matches = key_filters.iter().all(|(name, value)| {
        object.get(*name).is_some_and(|v| match v {
            Value::String(s) => s == value,
            other => {
                other.as_str().is_none() && serde_json::from_str::<Value>(value).is_ok_and(|v| &v == other)
            }
        })
    });
    if !matches {
        return Err(ApiError::from(RestError {
            status: StatusCode::BAD_REQUEST,
            code: "PGRST115",
            message: "Payload values do not match URL in primary key column(s)".to_owned(),
            details: None,
            hint: None,
        }));
    }
    let insert = sql::Insert {
        columns: plan::write_columns(node.table, None, &keys)?,
        missing_default: false,
        on_conflict: Some((plan::conflict_columns(node.table, None)?, sql::Conflict::Merge)),
        location: false,
    };
    request.acceptable()?;
    let rows = plan::insert_rows(&insert.columns, insert.missing_default, body_text(&body)?, true);
    let statement = sql::insert(&node, &insert, rows, write_report(&request));
    if let Some(plan) = write_plan(&state, &caller, Access::ReadWrite, &statement, &request).await? {
        return Ok(plan);
    }
    let outcome =
        write(&state, &caller, Access::ReadWrite, &statement, &request, |n| check_touched(&request, n))
            .await?;
    let range = response::content_range(0, outcome.page, outcome.total);
    let mut reply = mutation_reply(&request, StatusCode::OK, outcome.body, range);
    // PostgREST's single upsert: 201 when the row was inserted, 200 when
    // replaced (204 without a body), and no Content-Range (`actionResponse`
    // of `MutationSingleUpsert`).
    if reply.status == StatusCode::OK && inserted(outcome.extra.as_deref()) > 0 {
        reply.status = StatusCode::CREATED;
    }
    reply.content_range = None;
    Ok(reply.into_response())
}

/// `GET`/`HEAD`/`POST /rpc/{function}`. A call asked before against the same
/// schema cache, with the same query string, planning headers and argument
/// names, runs as it was planned then, with this call's body ([`memo`]).
async fn call(
    state: RestState,
    caller: Caller,
    request: RestRequest,
    function: String,
    body: Bytes,
) -> Result<Response, ApiError> {
    check_preferences(&request)?;
    let raw = !read_only(&request) && request.payload != Payload::Json;
    // A GET's argument names are in its query string, so in the key already.
    let names = if read_only(&request) || raw { Ok(Vec::new()) } else { parse::object_keys(&body) };
    let key = match &names {
        Ok(names) if memoizable(&request) => Some(write_key(&request, &function, names)),
        _ => None,
    };
    let memoized = key
        .as_ref()
        .and_then(|key| state.schema.loaded().and_then(|cache| state.schema.memo().call(&cache, key)));
    let planned = match memoized {
        Some(planned) => {
            request.acceptable()?;
            planned
        }
        None => Box::pin(plan_call(&state, &request, &function, names, key)).await?,
    };
    let argument = match planned.takes_body {
        true => Some(call_argument(&request, &body)?),
        false => None,
    };
    let argument: Vec<&str> = argument.as_deref().into_iter().collect();
    if let Media::Plan(_) = request.media {
        let mut write = planned.write.clone();
        if let (Some(argument), Some(first)) = (argument.first(), write.statement.params.first_mut()) {
            (*argument).clone_into(first);
        }
        if let Some(plan) = write_plan(&state, &caller, planned.access, &write, &request).await? {
            return Ok(plan);
        }
    }
    let outcome = write_with(&state, &caller, planned.access, &planned.write, &argument, &request, |n| {
        if planned.singular {
            response::check_singular(request.media, n)?;
        }
        check_max_affected(&request, n)
    })
    .await?;
    call_reply(&request, &planned, outcome)
}

fn read_only(request: &RestRequest) -> bool {
    matches!(request.method, axum::http::Method::GET | axum::http::Method::HEAD)
}

/// A POST's arguments as they go to PostgreSQL: a JSON body as it came (see
/// [`body_text`]); a text, xml or bytea body as the one argument's value.
fn call_argument(request: &RestRequest, body: &Bytes) -> Result<String, ApiError> {
    match request.payload {
        Payload::Json => Ok(body_text(body)?.to_owned()),
        Payload::Binary => Ok(bytea_literal(body)),
        Payload::Text | Payload::Xml => {
            String::from_utf8(body.to_vec()).map_err(|_| bad_body("The body is not UTF-8 text"))
        }
    }
}

/// Parses, plans and renders a call, and keeps it in the memo under `key`.
/// A POST's body is not in the statement kept: its first parameter is the
/// empty string, and each call binds its own body there.
async fn plan_call(
    state: &RestState,
    request: &RestRequest,
    function: &str,
    names: Result<Vec<String>, parse::BodyError>,
    key: Option<memo::WriteKey>,
) -> Result<Arc<memo::PlannedCall>, ApiError> {
    let read_only_call = read_only(request);
    let raw = !read_only_call && request.payload != Payload::Json;
    let (mut query, names, mut args) = if read_only_call {
        let query = parse::parse_rpc_read_query(&request.pairs).map_err(parse_error)?;
        let args: Map<String, Value> =
            query.rpc_args.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let names = args.keys().cloned().collect();
        (query, names, args)
    } else if raw {
        (parse::parse_query(&request.pairs).map_err(parse_error)?, Vec::new(), Map::new())
    } else {
        let query = parse::parse_query(&request.pairs).map_err(parse_error)?;
        (query, names.map_err(|e| bad_body(e.message()))?, Map::new())
    };
    narrow(request, &mut query)?;
    let cache = state.schema.get(&state.db).await?;
    let resolved = plan::find_function(
        &cache,
        &request.schema,
        function,
        &names,
        (!read_only_call).then_some(request.payload),
    )?;
    let function = resolved.function;
    // A variadic argument's repeated query parameters are its items, and a
    // single one is one item (PostgREST #1470).
    if read_only_call
        && let Some(variadic) = function.arguments.iter().find(|a| a.variadic)
        && args.contains_key(&variadic.name)
    {
        let items =
            query.rpc_args.iter().filter(|(k, _)| *k == variadic.name).map(|(_, v)| Value::String(v.clone()));
        args.insert(variadic.name.clone(), Value::Array(items.collect()));
    }
    // The table whose rows it returns may be in another schema than the
    // function (`api.f() returns setof public.t`): PostgREST finds it by the
    // return type's own schema.
    let table = function
        .returns_rows
        .then(|| function.returns_table.as_ref().and_then(|t| cache.table(&t.schema, &t.name)))
        .flatten();
    let result_table = function.result_table();
    let node = match table.or(result_table.as_ref()) {
        Some(table) => Some(request.planned(
            plan::read_call(&cache, table, &query, &function.row_type).and_then(|node| {
                plan::check_embeds_in_schema(table, &request.schema, &query)?;
                check_aggregates(state, &node)?;
                Ok(node)
            }),
        )?),
        None => None,
    };
    request.acceptable()?;
    let result = match &node {
        Some(node) => sql::CallResult::Rows(node),
        None => sql::CallResult::Values { limit: query.root.limit, offset: query.root.offset },
    };
    let returned =
        if request.is_head() || function.returns_void { BodyKind::None } else { body_kind(request.media) };
    // Only a set can have other than one row.
    let singular = function.returns_set && request.media.is_singular();
    let report = sql::Report {
        count: counting(request),
        body: returned,
        bounds: bounds(singular, max_affected(request)),
    };
    // A GET's arguments are its query string's, fixed by the key.
    let argument = if read_only_call { Value::Object(args).to_string() } else { String::new() };
    let planned = Arc::new(memo::PlannedCall {
        write: sql::call(&resolved, &names, argument, result, Some(state.config.max_rows), report),
        takes_body: !read_only_call && sql::call_binds_body(&resolved, &names),
        access: if read_only_call || function.volatility != schema::Volatility::Volatile {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        },
        returns_set: function.returns_set,
        returns_void: function.returns_void,
        rows: node.is_some(),
        singular,
        offset: query.root.offset.unwrap_or(0).max(0),
        csv_header: node.as_ref().and_then(|node| csv_header(request, node)),
    });
    if let Some(key) = key {
        state.schema.memo().keep_call(&cache, key, planned.clone());
    }
    Ok(planned)
}

/// A call's answer, from its statement's outcome.
fn call_reply(
    request: &RestRequest,
    planned: &memo::PlannedCall,
    outcome: execute::Outcome,
) -> Result<Response, ApiError> {
    let offset = planned.offset;
    // PostgREST counts a composite (not `setof`) result as one row even when
    // the filters leave it out, unless an exact count says none; a HEAD
    // counts the rows there are (PostgREST 12.0.2, by the differential run).
    let page = if planned.rows && !planned.returns_set && !request.is_head() {
        i64::from(outcome.total != Some(0))
    } else {
        outcome.page
    };
    // A HEAD of a composite that the filters leave out knows its total: none;
    // asked for as an object, that is PGRST116 (no writes: a HEAD is read
    // only).
    if planned.rows && !planned.returns_set && request.is_head() {
        response::check_singular(request.media, page)?;
    }
    let total = if planned.rows && !planned.returns_set && request.is_head() && page == 0 {
        Some(0)
    } else {
        outcome.total
    };
    let content_range = response::content_range(offset, page, total);
    let (status, body) = if planned.returns_void {
        (StatusCode::NO_CONTENT, None)
    } else {
        (
            match response::read_status(offset, page, total) {
                Ok(status) => status,
                // A call's 416 carries its Content-Range (PostgREST's
                // `actionResponse` of a `CallReadPlan`).
                Err(error) => {
                    let mut response = response::labelled(error, request.media);
                    if let Ok(value) = axum::http::HeaderValue::from_str(&content_range) {
                        response.headers_mut().insert(axum::http::header::CONTENT_RANGE, value);
                    }
                    return Ok(response);
                }
            },
            if planned.rows {
                let body = render_body(request, planned.csv_header.as_deref(), outcome.body);
                // A composite (not `setof`) that the filters leave out
                // keeps its CSV header line in PostgREST's answer.
                match &planned.csv_header {
                    Some(header) if !planned.returns_set && body.as_deref() == Some("\n") => {
                        Some(format!("{header}\n"))
                    }
                    _ => body,
                }
            } else {
                outcome.body.filter(|_| !request.is_head())
            },
        )
    };
    let mut prefer = request.prefer.clone();
    prefer.representation = None;
    Ok(Reply {
        status,
        body,
        // A void function's 204 has no Content-Type (PostgREST's
        // `actionResponse` for `funcReturnsVoid`).
        media: (!planned.returns_void).then_some(request.media),
        content_range: Some(content_range),
        preference_applied: prefer.preference_applied(),
        location: None,
        profile: request.schema.clone(),
    }
    .into_response())
}
