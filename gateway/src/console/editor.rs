//! The SQL editor: `POST /_/api/sql` runs what the operator wrote, as the
//! schema owner, with `--console-statement-timeout` and at most
//! `--console-row-limit` rows kept; and the snippets saved beside it.
//!
//! The text goes to the server as one simple query, as Studio sends it
//! through postgres-meta's `/query`: several statements may run, each in an
//! implicit transaction of its own unless the text opens one, and the answer
//! is the last statement's result. Values come back as PostgreSQL prints
//! them (text), so that every type shows as `psql` shows it.

use std::time::Duration;

use axum::{
    Json,
    extract::{Path, State},
    http::StatusCode,
};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_postgres::SimpleQueryMessage;

use super::{ConsoleError, access::Operator};
use crate::AppState;

/// The result of one statement.
#[derive(Default)]
struct Result {
    columns: Vec<String>,
    rows: Vec<Value>,
    /// Rows the statement returned or touched, kept or not.
    row_count: u64,
    truncated: bool,
}

/// `POST /_/api/sql` with `{sql}`: `{columns, rows, rowCount, truncated,
/// statements}`; a failure is the database's error with its code and
/// position.
pub async fn run(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<Value>,
) -> std::result::Result<Json<Value>, ConsoleError> {
    let Some(sql) = body.get("sql").and_then(Value::as_str).filter(|sql| !sql.trim().is_empty()) else {
        return Err(ConsoleError::BadRequest("Send JSON: {\"sql\"}".to_owned()));
    };
    let config = &state.config.console;
    let limit = config.console_row_limit;
    tracing::info!(email = operator.email, bytes = sql.len(), "operator ran SQL");
    let owner = state.db.as_schema_owner(config.console_statement_timeout.0).await?;
    let stream = owner.client().simple_query_raw(sql).await.map_err(ConsoleError::from_pg)?;
    futures::pin_mut!(stream);
    let (mut current, mut last, mut statements) = (Result::default(), None, 0);
    while let Some(message) = stream.next().await {
        match message.map_err(ConsoleError::from_pg)? {
            SimpleQueryMessage::RowDescription(columns) => {
                current.columns = columns.iter().map(|c| c.name().to_owned()).collect();
            }
            SimpleQueryMessage::Row(row) => {
                if current.rows.len() < limit {
                    current
                        .rows
                        .push((0..row.len()).map(|i| row.get(i).map_or(Value::Null, Value::from)).collect());
                } else {
                    current.truncated = true;
                }
            }
            SimpleQueryMessage::CommandComplete(count) => {
                current.row_count = count;
                statements += 1;
                last = Some(std::mem::take(&mut current));
            }
            _ => {}
        }
    }
    let last = last.unwrap_or_default();
    Ok(Json(json!({
        "columns": last.columns,
        "rows": last.rows,
        "rowCount": last.row_count,
        "truncated": last.truncated,
        "statements": statements,
    })))
}

const SNIPPET_TIMEOUT: Duration = Duration::from_secs(5);

/// `GET /_/api/snippets`: the saved snippets, newest first.
pub async fn snippets(
    State(state): State<AppState>,
    _operator: Operator,
) -> std::result::Result<Json<Value>, ConsoleError> {
    let owner = state.db.as_schema_owner(SNIPPET_TIMEOUT).await?;
    let row = owner
        .client()
        .query_one(
            "select coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'name', s.name, 'sql', s.sql, \
                 'createdBy', o.email, 'createdAt', s.created_at) order by s.created_at desc), '[]'::jsonb) \
             from _console.snippets s left join _console.operators o on o.id = s.created_by",
            &[],
        )
        .await
        .map_err(ConsoleError::internal)?;
    Ok(Json(row.get(0)))
}

/// `POST /_/api/snippets` with `{name, sql}`: the saved snippet.
pub async fn save_snippet(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<Value>,
) -> std::result::Result<(StatusCode, Json<Value>), ConsoleError> {
    let text = |key| body.get(key).and_then(Value::as_str).map(str::trim).filter(|v| !v.is_empty());
    let (Some(name), Some(sql)) = (text("name"), body.get("sql").and_then(Value::as_str)) else {
        return Err(ConsoleError::BadRequest("Send JSON: {\"name\", \"sql\"}".to_owned()));
    };
    let owner = state.db.as_schema_owner(SNIPPET_TIMEOUT).await?;
    let row = owner
        .client()
        .query_one(
            "insert into _console.snippets (name, sql, created_by) values ($1, $2, $3) \
             returning jsonb_build_object('id', id, 'name', name, 'sql', sql, 'createdBy', $4::text, \
                 'createdAt', created_at)",
            &[&name, &sql, &operator.id, &operator.email],
        )
        .await
        .map_err(ConsoleError::internal)?;
    Ok((StatusCode::CREATED, Json(row.get(0))))
}

/// `DELETE /_/api/snippets/{id}`.
pub async fn delete_snippet(
    State(state): State<AppState>,
    _operator: Operator,
    Path(id): Path<String>,
) -> std::result::Result<StatusCode, ConsoleError> {
    let id: uuid::Uuid = id.parse().map_err(|_| ConsoleError::NotFound)?;
    let owner = state.db.as_schema_owner(SNIPPET_TIMEOUT).await?;
    let deleted = owner
        .client()
        .execute("delete from _console.snippets where id = $1", &[&id])
        .await
        .map_err(ConsoleError::internal)?;
    if deleted == 0 {
        return Err(ConsoleError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}
