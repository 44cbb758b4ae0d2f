//! Running a rendered statement in the caller's session.

use bytes::BytesMut;
use tokio_postgres::types::{Format, FromSql, IsNull, ToSql, Type, to_sql_checked};

use super::sql::{OUT_OF_BOUNDS, Statement, Write};
use gateway_core::caller::Caller;
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// A value sent as text of unknown type, for PostgreSQL to parse as whatever
/// type its place in the statement needs, as PostgREST binds every value.
#[derive(Debug)]
struct Untyped<'a>(&'a str);

impl ToSql for Untyped<'_> {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, _: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

/// The one row every statement of `rest::sql` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exact count, when asked for.
    pub total: Option<i64>,
    /// Rows in the page (or written).
    pub page: i64,
    pub body: Option<String>,
    /// JSON with the written row's key (`location`) and how many rows an upsert
    /// inserted (`inserted`).
    pub extra: Option<String>,
}

/// Runs `statement` as the session's last statement and ends the transaction
/// (commit, or roll back), in one round trip when it is also the first.
pub async fn run_and_end(session: Session, statement: &Statement, commit: bool) -> Result<Outcome, ApiError> {
    run_checked_and_end(session, statement, &[], None, commit).await
}

/// [`run_and_end`] for a write, with its check right behind it: the write's
/// own error wins over the check's (which then only reports the aborted
/// transaction).
pub async fn run_write_and_end(session: Session, write: &Write, commit: bool) -> Result<Outcome, ApiError> {
    run_checked_and_end(session, &write.statement, &[], write.check.as_ref(), commit).await
}

/// [`run_write_and_end`] for a write planned before, its first parameters
/// replaced by this request's: a call's arguments ([`super::sql::call`]), an
/// insert's values ([`super::sql::insert`]).
pub async fn run_planned_and_end(
    session: Session,
    write: &Write,
    first: &[&str],
    commit: bool,
) -> Result<Outcome, ApiError> {
    run_checked_and_end(session, &write.statement, first, write.check.as_ref(), commit).await
}

async fn run_checked_and_end(
    session: Session,
    statement: &Statement,
    first: &[&str],
    check: Option<&Statement>,
    commit: bool,
) -> Result<Outcome, ApiError> {
    let mut params: Vec<Untyped<'_>> = statement.params.iter().map(|p| Untyped(p)).collect();
    for (param, value) in params.iter_mut().zip(first) {
        *param = Untyped(value);
    }
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    let check_params: Vec<Untyped<'_>> =
        check.map(|c| c.params.iter().map(|p| Untyped(p)).collect()).unwrap_or_default();
    let check_refs: Vec<&(dyn ToSql + Sync)> =
        check_params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    let check = check.map(|c| (c.text.as_str(), check_refs.as_slice()));
    let rows = session.query_checked_and_end(&statement.text, &refs, check, commit).await?;
    outcome(&rows)
}

/// Runs an `EXPLAIN` (from [`super::sql::explain`]) and ends the transaction;
/// its lines (text) or its one JSON document, each followed by a newline, as
/// PostgREST answers a plan.
pub async fn plan_and_end(session: Session, statement: &Statement, commit: bool) -> Result<String, ApiError> {
    let params: Vec<Untyped<'_>> = statement.params.iter().map(|p| Untyped(p)).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    let rows = session.query_and_end(&statement.text, &refs, commit).await?;
    let mut text = String::new();
    for row in &rows {
        let Verbatim(line) = row.try_get(0).map_err(ApiError::internal)?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

/// A `text` or `json` value as PostgreSQL sent it (`EXPLAIN`'s one column
/// is either, by format), so that a JSON plan keeps PostgreSQL's layout.
struct Verbatim(String);

impl<'a> FromSql<'a> for Verbatim {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Self(String::from_utf8(raw.to_vec())?))
    }

    fn accepts(ty: &Type) -> bool {
        matches!(*ty, Type::TEXT | Type::JSON)
    }
}

/// How many rows a write touched, when its check failed for a number outside
/// its [`super::sql::Bounds`].
pub fn out_of_bounds(error: &ApiError) -> Option<i64> {
    match error {
        ApiError::Database(db) if db.code == OUT_OF_BOUNDS => db.details.as_deref()?.parse().ok(),
        _ => None,
    }
}

fn outcome(rows: &[tokio_postgres::Row]) -> Result<Outcome, ApiError> {
    let row = rows.first().ok_or_else(|| ApiError::internal("a REST statement returned no row"))?;
    Ok(Outcome {
        total: row.try_get("total").map_err(ApiError::internal)?,
        page: row.try_get("page").map_err(ApiError::internal)?,
        body: row.try_get("body").map_err(ApiError::internal)?,
        extra: row.try_get("extra").map_err(ApiError::internal)?,
    })
}

/// Names of the tables and functions (as `rpc/<name>`) of `schema` that the
/// caller may use, for the OpenAPI document.
pub async fn visible(db: &Db, caller: &Caller, schema: &str) -> Result<Vec<String>, ApiError> {
    let session = db.session(caller, Access::ReadOnly).await?;
    let rows = session.query_and_end(super::openapi::VISIBLE, &[&schema], true).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// PostgreSQL's estimate of how many rows `statement` (an `explain`) reads:
/// PostgREST's `count=planned`.
pub async fn planned_count(session: &mut Session, statement: &Statement) -> Result<i64, ApiError> {
    let params: Vec<Untyped<'_>> = statement.params.iter().map(|p| Untyped(p)).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    let rows = session.query(&statement.text, &refs).await?;
    let plan: serde_json::Value = rows
        .first()
        .ok_or_else(|| ApiError::internal("explain returned no row"))?
        .try_get(0)
        .map_err(ApiError::internal)?;
    Ok(plan.pointer("/0/Plan/Plan Rows").and_then(serde_json::Value::as_f64).unwrap_or(0.0) as i64)
}
