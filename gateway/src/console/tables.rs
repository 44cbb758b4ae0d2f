//! The table editor (Studio's Table Editor): a table's rows read and written
//! through `/rest/v1`'s own planner, and changes to tables and columns shown
//! as the SQL they run before they run.
//!
//! - Rows: `/_/api/tables/{schema}/{name}/rows` hands the request to the REST
//!   router as the service role (the named call
//!   `gateway_core::caller::as_service_role_within`), so paging, sorting,
//!   filters and writes are PostgREST's, exactly as supabase-js gets them;
//!   the operator sees every row, as Studio's editor does as the owner.
//! - Changes: `POST /_/api/tables/preview` renders a list of changes as SQL
//!   text; `POST /_/api/tables/apply` renders them again, refuses if that is
//!   not the text the operator saw, and runs it in one transaction as the
//!   schema owner, then reloads the REST schema cache (`NOTIFY pgrst`, as
//!   Studio's migrations end: <https://docs.postgrest.org/en/stable/references/schema_cache.html>).
//!   Names are quoted by `quote_ident`; types come from a fixed list and
//!   defaults are a quoted literal or one of a few expressions, so no text
//!   of the request reaches the SQL unchecked.

use axum::{
    Json,
    extract::{Path, Request, State},
    http::{HeaderValue, StatusCode},
    response::Response,
};
use gateway_core::sql::quote_ident;
use serde::Deserialize;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::{ConsoleError, access::Operator, policy};
use crate::AppState;

/// One change to the schema.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "change", rename_all = "camelCase", deny_unknown_fields)]
pub enum Change {
    #[serde(rename_all = "camelCase")]
    CreateTable { schema: String, table: String, columns: Vec<Column> },
    #[serde(rename_all = "camelCase")]
    AddColumn { schema: String, table: String, column: Column },
    #[serde(rename_all = "camelCase")]
    DropColumn { schema: String, table: String, column: String },
    #[serde(rename_all = "camelCase")]
    RenameColumn { schema: String, table: String, column: String, to: String },
    /// Each of `type`, `default` and `nullable` that is given is changed.
    #[serde(rename_all = "camelCase")]
    AlterColumn {
        schema: String,
        table: String,
        column: String,
        #[serde(rename = "type")]
        type_: Option<String>,
        default: Option<ColumnDefault>,
        nullable: Option<bool>,
    },
    #[serde(rename_all = "camelCase")]
    EnableRls { schema: String, table: String },
    #[serde(rename_all = "camelCase")]
    CreatePolicy { schema: String, table: String, name: String, policy: policy::Template },
}

/// A column of a new table, or one added.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub default: Option<ColumnDefault>,
    #[serde(default = "yes")]
    pub nullable: bool,
    #[serde(default)]
    pub primary_key: bool,
}

fn yes() -> bool {
    true
}

/// A column's default: a value, written as a quoted literal that PostgreSQL
/// casts to the column's type, or one of the expressions Studio's column
/// editor suggests; `{"none": true}` drops it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ColumnDefault {
    Value { value: String },
    Expression { expression: String },
    None { none: bool },
}

/// The expressions a default may be; anything else is a value.
const EXPRESSIONS: [&str; 6] = ["now()", "gen_random_uuid()", "auth.uid()", "current_date", "true", "false"];

/// The types a column may have (with `[]` for an array); those marked take
/// a length or a precision in parentheses.
const TYPES: [(&str, bool); 20] = [
    ("text", false),
    ("varchar", true),
    ("char", true),
    ("int2", false),
    ("int4", false),
    ("int8", false),
    ("smallint", false),
    ("integer", false),
    ("bigint", false),
    ("numeric", true),
    ("float4", false),
    ("float8", false),
    ("boolean", false),
    ("uuid", false),
    ("date", false),
    ("timestamptz", false),
    ("timestamp", false),
    ("json", false),
    ("jsonb", false),
    ("bytea", false),
];

/// The type as written in SQL, or why it is not one the editor writes.
fn checked_type(text: &str) -> Result<String, ConsoleError> {
    let refused = || ConsoleError::BadRequest(format!("{text:?} is not a column type the editor writes"));
    let lower = text.trim().to_ascii_lowercase();
    let (base, array) = match lower.strip_suffix("[]") {
        Some(base) => (base.trim_end(), "[]"),
        None => (lower.as_str(), ""),
    };
    let (name, size) = match base.split_once('(') {
        Some((name, rest)) => (name.trim_end(), Some(rest.strip_suffix(')').ok_or_else(refused)?)),
        None => (base, None),
    };
    let takes_size = TYPES.iter().find(|(known, _)| *known == name).ok_or_else(refused)?.1;
    let size = match size {
        None => String::new(),
        Some(_) if !takes_size => return Err(refused()),
        Some(size) => {
            let parts: Vec<&str> = size.split(',').map(str::trim).collect();
            let numbers =
                parts.iter().all(|p| !p.is_empty() && p.len() < 5 && p.bytes().all(|b| b.is_ascii_digit()));
            if parts.len() > 2 || !numbers {
                return Err(refused());
            }
            format!("({})", parts.join(","))
        }
    };
    Ok(format!("{name}{size}{array}"))
}

/// `'text'` with its quotes doubled (with `standard_conforming_strings` on,
/// as it is by default, a backslash is itself).
fn quote_literal(text: &str) -> Result<String, ConsoleError> {
    if text.contains('\0') {
        return Err(ConsoleError::BadRequest("A default cannot hold a NUL character".to_owned()));
    }
    Ok(format!("'{}'", text.replace('\'', "''")))
}

/// The default as written after `default`, or `None` to drop it.
fn checked_default(default: &ColumnDefault) -> Result<Option<String>, ConsoleError> {
    match default {
        ColumnDefault::Value { value } => quote_literal(value).map(Some),
        ColumnDefault::Expression { expression } => {
            let expression = expression.trim().to_ascii_lowercase();
            match EXPRESSIONS.iter().find(|known| **known == expression) {
                Some(known) => Ok(Some((*known).to_owned())),
                None => Err(ConsoleError::BadRequest(format!(
                    "{expression:?} is not a default the editor writes; give it as a value or use the SQL editor"
                ))),
            }
        }
        ColumnDefault::None { .. } => Ok(None),
    }
}

fn name(text: &str, what: &str) -> Result<String, ConsoleError> {
    let text = text.trim();
    if text.is_empty() || text.len() > 63 {
        return Err(ConsoleError::BadRequest(format!("A {what} name has 1 to 63 characters")));
    }
    Ok(quote_ident(text))
}

fn table_name(schema: &str, table: &str) -> Result<String, ConsoleError> {
    Ok(format!("{}.{}", name(schema, "schema")?, name(table, "table")?))
}

fn column_definition(column: &Column) -> Result<String, ConsoleError> {
    let mut sql = format!("{} {}", name(&column.name, "column")?, checked_type(&column.type_)?);
    if let Some(default) = column.default.as_ref().map(checked_default).transpose()?.flatten() {
        sql.push_str(&format!(" default {default}"));
    }
    if column.primary_key {
        sql.push_str(" primary key");
    } else if !column.nullable {
        sql.push_str(" not null");
    }
    Ok(sql)
}

/// The SQL text of one change: one or more statements, each ending with `;`.
pub fn render(change: &Change) -> Result<String, ConsoleError> {
    Ok(match change {
        Change::CreateTable { schema, table, columns } => {
            if columns.is_empty() {
                return Err(ConsoleError::BadRequest("A new table needs a column".to_owned()));
            }
            let columns = columns.iter().map(column_definition).collect::<Result<Vec<_>, _>>()?;
            format!("create table {} (\n  {}\n);", table_name(schema, table)?, columns.join(",\n  "))
        }
        Change::AddColumn { schema, table, column } => {
            format!("alter table {} add column {};", table_name(schema, table)?, column_definition(column)?)
        }
        Change::DropColumn { schema, table, column } => {
            format!("alter table {} drop column {};", table_name(schema, table)?, name(column, "column")?)
        }
        Change::RenameColumn { schema, table, column, to } => format!(
            "alter table {} rename column {} to {};",
            table_name(schema, table)?,
            name(column, "column")?,
            name(to, "column")?
        ),
        Change::AlterColumn { schema, table, column, type_, default, nullable } => {
            let (table, column) = (table_name(schema, table)?, name(column, "column")?);
            let mut statements = Vec::new();
            let default = default.as_ref().map(checked_default).transpose()?;
            let drop_default = format!("alter table {table} alter column {column} drop default;");
            if let Some(type_) = type_ {
                let type_ = checked_type(type_)?;
                // The old default may not cast to the new type (PostgreSQL
                // refuses with 42804), so a new one is set after the type,
                // the old one dropped before it, as postgres-meta orders it.
                if default.is_some() {
                    statements.push(drop_default.clone());
                }
                statements.push(format!(
                    "alter table {table} alter column {column} type {type_} using {column}::{type_};"
                ));
            }
            match default {
                Some(Some(default)) => {
                    statements
                        .push(format!("alter table {table} alter column {column} set default {default};"));
                }
                Some(None) if type_.is_none() => statements.push(drop_default),
                _ => {}
            }
            if let Some(nullable) = nullable {
                let verb = if *nullable { "drop" } else { "set" };
                statements.push(format!("alter table {table} alter column {column} {verb} not null;"));
            }
            if statements.is_empty() {
                return Err(ConsoleError::BadRequest("Nothing to change in this column".to_owned()));
            }
            statements.join("\n")
        }
        Change::EnableRls { schema, table } => {
            name(schema, "schema")?;
            name(table, "table")?;
            policy::enable_rls(schema.trim(), table.trim())
        }
        Change::CreatePolicy { schema, table, name: policy_name, policy } => {
            name(schema, "schema")?;
            name(table, "table")?;
            name(policy_name, "policy")?;
            if let policy::Template::Owner { column } = policy {
                name(column, "column")?;
            }
            policy::create_policy(schema.trim(), table.trim(), policy_name.trim(), policy)
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changes {
    changes: Vec<Change>,
    /// For `apply`: the text the preview showed.
    #[serde(default)]
    sql: Option<String>,
}

fn render_all(changes: &[Change]) -> Result<String, ConsoleError> {
    if changes.is_empty() {
        return Err(ConsoleError::BadRequest("Send JSON: {\"changes\": [...]}".to_owned()));
    }
    Ok(changes.iter().map(render).collect::<Result<Vec<_>, _>>()?.join("\n"))
}

/// `POST /_/api/tables/preview` with `{changes}`: `{sql}`, the text `apply`
/// runs for them.
pub async fn preview(_: Operator, Json(body): Json<Changes>) -> Result<Json<Value>, ConsoleError> {
    Ok(Json(json!({ "sql": render_all(&body.changes)? })))
}

/// `POST /_/api/tables/apply` with `{changes, sql}`: runs `sql` in one
/// transaction as the schema owner if it is what `changes` render to, then
/// reloads the REST schema cache; `{sql}`.
pub async fn apply(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<Changes>,
) -> Result<Json<Value>, ConsoleError> {
    let sql = render_all(&body.changes)?;
    if body.sql.as_deref() != Some(sql.as_str()) {
        return Err(ConsoleError::BadRequest(
            "This is not the SQL these changes run; preview them again".to_owned(),
        ));
    }
    let config = &state.config.console;
    let owner = state.db.as_schema_owner(config.console_statement_timeout.0).await?;
    // One simple query, one transaction: a failing statement skips the rest,
    // and the connection, dropped with it open, rolls it back. Other
    // gateways on this database reload on the notification; this one
    // reloads below, so that the next request already sees the change.
    let text = format!("begin;\n{sql}\nnotify pgrst, 'reload schema';\ncommit;");
    owner.client().batch_execute(&text).await.map_err(ConsoleError::from_pg)?;
    drop(owner);
    tracing::info!(email = operator.email, statements = body.changes.len(), "operator changed the schema");
    state.db.schema_changed();
    state.schema.reload(&state.db).await?;
    Ok(Json(json!({ "sql": sql })))
}

/// `/_/api/tables/{schema}/{name}/rows?<PostgREST query>`: the request as
/// `/rest/v1/{name}` answers it for the service role, with `schema` as its
/// profile. GET reads (`select`, filters, `order`, `limit`, `offset`,
/// `Prefer: count=exact`); POST inserts, PATCH updates and DELETE deletes
/// the rows its filters match (the page filters by primary key).
pub async fn rows(
    State(state): State<AppState>,
    operator: Operator,
    Path((schema, table)): Path<(String, String)>,
    request: Request,
) -> Result<Response, ConsoleError> {
    let (parts, body) = request.into_parts();
    let mut uri = format!("/{}", path_segment(&table));
    if let Some(query) = parts.uri.query() {
        uri.push('?');
        uri.push_str(query);
    }
    let mut inner = axum::http::Request::builder().method(parts.method.clone()).uri(uri);
    for header in ["content-type", "prefer", "range", "accept"] {
        if let Some(value) = parts.headers.get(header) {
            inner = inner.header(header, value);
        }
    }
    let profile = HeaderValue::from_str(&schema).map_err(|_| ConsoleError::NotFound)?;
    let mut inner = inner
        .header("accept-profile", profile.clone())
        .header("content-profile", profile)
        .body(body)
        .map_err(ConsoleError::internal)?;
    gateway_core::caller::as_service_role_within(&mut inner);
    if parts.method != axum::http::Method::GET {
        tracing::info!(email = operator.email, method = %parts.method, schema, table, "operator changed rows");
    }
    let router = gateway_rest::router(axum::extract::FromRef::from_ref(&state));
    let answer = router.oneshot(inner).await.map_err(ConsoleError::internal)?;
    if answer.status() == StatusCode::INTERNAL_SERVER_ERROR {
        return Err(ConsoleError::internal("the REST router failed a console request"));
    }
    Ok(answer)
}

/// `text` as one segment of a path: every byte but the unreserved ones
/// percent-encoded (RFC 3986).
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_one_of_the_editors_with_a_size_where_they_take_one() {
        let cases = [
            ("text", Some("text")),
            ("TEXT[]", Some("text[]")),
            ("numeric(10, 2)", Some("numeric(10,2)")),
            ("varchar(40)", Some("varchar(40)")),
            ("timestamptz", Some("timestamptz")),
            ("int8", Some("int8")),
            ("text(3)", None),
            ("numeric(1,2,3)", None),
            ("numeric(a)", None),
            ("text; drop table x", None),
            ("money", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(checked_type(text).ok().as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn defaults_are_quoted_values_or_known_expressions() {
        let value = |v: &str| ColumnDefault::Value { value: v.into() };
        let expression = |e: &str| ColumnDefault::Expression { expression: e.into() };
        let cases = [
            (value("it's"), Some(Some("'it''s'"))),
            (value("0"), Some(Some("'0'"))),
            (expression("NOW()"), Some(Some("now()"))),
            (expression("auth.uid()"), Some(Some("auth.uid()"))),
            (expression("pg_sleep(10)"), None),
            (ColumnDefault::None { none: true }, Some(None)),
        ];
        for (default, expected) in cases {
            let got = checked_default(&default).ok();
            assert_eq!(got.as_ref().map(|d| d.as_deref()), expected, "{default:?}");
        }
    }

    #[test]
    fn each_change_renders_as_sql_with_its_names_quoted() {
        let changes: Vec<Change> = serde_json::from_value(json!([
            {"change": "createTable", "schema": "public", "table": "notes", "columns": [
                {"name": "id", "type": "int8", "primaryKey": true},
                {"name": "body", "type": "text", "nullable": false, "default": {"value": "x"}},
                {"name": "owner", "type": "uuid", "default": {"expression": "auth.uid()"}}
            ]},
            {"change": "addColumn", "schema": "public", "table": "notes", "column": {"name": "Done", "type": "boolean"}},
            {"change": "dropColumn", "schema": "public", "table": "notes", "column": "Done"},
            {"change": "renameColumn", "schema": "public", "table": "notes", "column": "body", "to": "text"},
            {"change": "alterColumn", "schema": "public", "table": "notes", "column": "text",
             "type": "varchar(10)", "default": {"none": true}, "nullable": true},
            {"change": "enableRls", "schema": "public", "table": "notes"},
            {"change": "createPolicy", "schema": "public", "table": "notes", "name": "read",
             "policy": {"template": "publicRead"}}
        ]))
        .expect("changes");
        let expected = [
            "create table \"public\".\"notes\" (\n  \"id\" int8 primary key,\n  \"body\" text default 'x' not null,\n  \"owner\" uuid default auth.uid()\n);",
            r#"alter table "public"."notes" add column "Done" boolean;"#,
            r#"alter table "public"."notes" drop column "Done";"#,
            r#"alter table "public"."notes" rename column "body" to "text";"#,
            "alter table \"public\".\"notes\" alter column \"text\" drop default;\n\
             alter table \"public\".\"notes\" alter column \"text\" type varchar(10) using \"text\"::varchar(10);\n\
             alter table \"public\".\"notes\" alter column \"text\" drop not null;",
            r#"alter table "public"."notes" enable row level security;"#,
            r#"create policy "read" on "public"."notes" for select to anon, authenticated using (true);"#,
        ];
        for (change, expected) in changes.iter().zip(expected) {
            assert_eq!(render(change).expect("render"), expected, "{change:?}");
        }
    }

    #[test]
    fn names_with_quotes_stay_names_and_empty_ones_are_refused() {
        let change =
            Change::DropColumn { schema: "public".into(), table: "t\"; drop".into(), column: "c".into() };
        assert_eq!(render(&change).expect("render"), r#"alter table "public"."t""; drop" drop column "c";"#);
        let empty = Change::EnableRls { schema: "public".into(), table: " ".into() };
        assert!(render(&empty).is_err());
    }
}
