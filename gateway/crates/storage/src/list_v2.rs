//! `POST /object/list-v2/{bucket}`: storage-js `listV2()`, a cursor-paginated
//! listing (supabase/storage `src/http/routes/object/listObjectsV2.ts`,
//! `src/storage/object.ts` `listObjectsV2`, and the SQL of
//! `migrations/tenant/0050-search-v2-optimised.sql`).
//!
//! Without `with_delimiter` it lists every object under `prefix`; with it,
//! names holding a `/` after the prefix fold into one folder entry each
//! (`{"key": "photos", "name": "photos/", "id": null, ...}`), as S3 does with
//! common prefixes. Pages are sorted by name (bytewise) or by `created_at` /
//! `updated_at` (to the millisecond, then name), and the next page starts
//! after the last entry of this one, named in `nextCursor`: Storage's
//! continuation token, base64 of `l:<last name>`, `o:<order>`,
//! `c:<column>`, `a:<last entry's time>` lines. Runs as the caller, so
//! row-level security decides what is listed.

use axum::{
    Json,
    body::Bytes,
    extract::{Path, State},
};
use base64::Engine;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::StorageError;
use super::keys;
use super::objects::like_literal;
use super::signed::json_body;
use crate::StorageState;
use gateway_core::caller::Caller;
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// Storage's cap on a page (`Math.min(maxKeys || 1000, 1000)`).
const MAX_KEYS: i64 = 1000;

#[derive(Deserialize)]
struct SortBy {
    column: String,
    order: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListV2Request {
    prefix: Option<String>,
    limit: Option<i64>,
    cursor: Option<String>,
    #[serde(rename = "with_delimiter")]
    with_delimiter: Option<bool>,
    sort_by: Option<SortBy>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Name,
    CreatedAt,
    UpdatedAt,
}

impl Column {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "name" => Some(Self::Name),
            "created_at" => Some(Self::CreatedAt),
            "updated_at" => Some(Self::UpdatedAt),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::CreatedAt => "created_at",
            Self::UpdatedAt => "updated_at",
        }
    }
}

/// Storage's continuation token, decoded.
#[derive(Debug, Default, PartialEq, Eq)]
struct Cursor {
    start_after: String,
    order: Option<String>,
    column: Option<String>,
    after: Option<String>,
}

impl Cursor {
    /// Lines `k:v` with `k` one of `l`, `o`, `c`, `a`; anything else is
    /// Storage's `InvalidParameter` (`decodeContinuationToken`).
    fn decode(token: &str) -> Result<Self, StorageError> {
        let invalid = || StorageError::invalid_parameter("continuation token");
        let bytes = base64::engine::general_purpose::STANDARD.decode(token).map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let mut cursor = Cursor::default();
        for line in text.split('\n') {
            let mut chars = line.chars();
            let (Some(key), Some(':')) = (chars.next(), chars.next()) else {
                return Err(invalid());
            };
            let value = chars.as_str().to_owned();
            match key {
                'l' => cursor.start_after = value,
                'o' => cursor.order = Some(value),
                'c' => cursor.column = Some(value),
                'a' => cursor.after = Some(value),
                _ => return Err(invalid()),
            }
        }
        Ok(cursor)
    }

    /// The token of the page after `self.start_after`; empty parts are left
    /// out, as `encodeContinuationToken` does.
    fn encode(&self) -> String {
        let mut text = String::new();
        for (key, value) in [
            ('l', Some(self.start_after.as_str())),
            ('o', self.order.as_deref()),
            ('c', self.column.as_deref()),
            ('a', self.after.as_deref()),
        ] {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                text.push(key);
                text.push(':');
                text.push_str(value);
                text.push('\n');
            }
        }
        text.pop();
        base64::engine::general_purpose::STANDARD.encode(text)
    }
}

/// What one page asks the database for.
struct Plan {
    prefix: String,
    delimiter: bool,
    column: Column,
    descending: bool,
    start_after: String,
    after: String,
    limit: i64,
    /// With the delimiter, how many `/`-separated parts the prefix has: an
    /// entry's `key` is its part at that level (`split_part`).
    levels: i32,
}

/// The plan, and the order and column a next page's cursor carries: those
/// the cursor or the body named, as Storage keeps them.
type Carried = (Option<String>, Option<Column>);

fn plan(request: ListV2Request) -> Result<(Plan, Carried), ApiError> {
    if request.limit.is_some_and(|limit| limit < 1) {
        return Err(StorageError::invalid_request("body/limit must be >= 1").into());
    }
    let body_column = match &request.sort_by {
        Some(sort) => Some(Column::parse(&sort.column).ok_or_else(|| {
            StorageError::invalid_request("body/sortBy/column must be equal to one of the allowed values")
        })?),
        None => None,
    };
    let cursor = request.cursor.as_deref().filter(|c| !c.is_empty()).map(Cursor::decode).transpose()?;
    // A cursor carries the sort of the listing it continues (and `asc` when
    // it names none), over whatever the body says.
    let order = match &cursor {
        Some(cursor) => Some(cursor.order.clone().unwrap_or_else(|| "asc".to_owned())),
        None => request.sort_by.as_ref().and_then(|sort| sort.order.clone()),
    };
    let column = cursor.as_ref().and_then(|c| c.column.as_deref()).and_then(Column::parse).or(body_column);
    let delimiter = request.with_delimiter.unwrap_or(false);
    // Without the delimiter Storage sorts by a time column or else by name
    // (`pg.ts` `listObjectsV2`); an order other than asc or desc is asc.
    let descending = order.as_deref().is_some_and(|o| o.eq_ignore_ascii_case("desc"));
    let prefix = request.prefix.unwrap_or_default();
    let levels = prefix.split('/').count() as i32;
    let plan = Plan {
        levels,
        prefix,
        delimiter,
        column: column.unwrap_or(Column::Name),
        descending,
        start_after: cursor.as_ref().map(|c| c.start_after.clone()).unwrap_or_default(),
        after: cursor.as_ref().and_then(|c| c.after.clone()).unwrap_or_default(),
        limit: request.limit.unwrap_or(MAX_KEYS).min(MAX_KEYS),
    };
    Ok((plan, (order, column)))
}

/// The page's SQL: sort column and order are chosen from fixed words, every
/// value is a parameter ($1 bucket, $2 prefix, $3 its LIKE pattern, $4 the
/// delimiter's use, $5 the last name seen, $6 its time, $7 the row limit,
/// $8 the key level).
fn page_sql(plan: &Plan) -> String {
    let order = if plan.descending { "desc" } else { "asc" };
    let compare = if plan.descending { "<" } else { ">" };
    let (folder_time, position, sort_time) = match plan.column {
        // Folders have no time when sorted by name; by a time, the earliest
        // creation beneath them (`search_by_timestamp`).
        Column::Name => (
            "null::timestamptz",
            format!("(cursor.start_after = '' or name collate \"C\" {compare} cursor.start_after)"),
            "null::text".to_owned(),
        ),
        time => {
            let column = time.as_str();
            (
                "min(created_at)",
                format!(
                    "(cursor.start_after = '' or row(date_trunc('milliseconds', {column}), name collate \"C\") \
                     {compare} row(coalesce(cursor.after, 'epoch'::timestamptz), cursor.start_after))"
                ),
                format!("to_char({column} at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"),
            )
        }
    };
    let sort = match plan.column {
        Column::Name => format!("name collate \"C\" {order}"),
        time => format!(
            "coalesce(date_trunc('milliseconds', {}), 'epoch'::timestamptz) {order}, name collate \"C\" {order}",
            time.as_str()
        ),
    };
    format!(
        "with cursor as (select $5::text as start_after, nullif($6::text, '')::timestamptz as after), \
         listed as ( \
           select o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata, \
                  case when $4 and strpos(substr(o.name, char_length($2) + 1), '/') > 0 \
                       then left(o.name, char_length($2) + strpos(substr(o.name, char_length($2) + 1), '/')) \
                  end as common_prefix \
           from storage.objects o \
           where o.bucket_id = $1 and o.name like $3 escape '\\' \
         ), entries as ( \
           select rtrim(common_prefix, '/') as name, null::uuid as id, {folder_time} as updated_at, \
                  {folder_time} as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata \
           from listed where common_prefix is not null group by common_prefix \
           union all \
           select name, id, updated_at, created_at, last_accessed_at, metadata \
           from listed where common_prefix is null \
         ) \
         select name, id is null as folder, \
                jsonb_build_object('key', case when $4 then split_part(name, '/', $8) end, 'name', name, 'id', id, \
                  'updated_at', {updated}, 'created_at', {created}, 'last_accessed_at', {accessed}, \
                  'metadata', metadata), \
                {sort_time} \
         from entries, cursor where {position} \
         order by {sort} limit $7",
        updated = iso!("updated_at"),
        created = iso!("created_at"),
        accessed = iso!("last_accessed_at"),
    )
}

/// `POST /object/list-v2/{bucket}` `{prefix, limit, cursor, with_delimiter,
/// sortBy}`: `{hasNext, nextCursor, nextCursorKey, folders, objects}`.
pub async fn list(
    State(state): State<StorageState>,
    caller: Caller,
    Path(bucket): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    // Storage accepts a missing body as `{}`.
    let body = if body.is_empty() { Bytes::from_static(b"{}") } else { body };
    let request: ListV2Request = json_body(&body)?;
    keys::parse_bucket(&bucket)?;
    let (plan, (order, column)) = plan(request)?;
    let sql = page_sql(&plan);
    let pattern = format!("{}%", like_literal(&plan.prefix));
    // One row more than the page tells whether another page follows.
    let fetch = plan.limit + 1;
    let mut session = state.db.session(&caller, Access::ReadOnly).await?;
    let rows = session
        .query(
            &sql,
            &[
                &bucket,
                &plan.prefix,
                &pattern,
                &plan.delimiter,
                &plan.start_after,
                &plan.after,
                &fetch,
                &plan.levels,
            ],
        )
        .await?;
    session.commit().await?;

    let has_next = rows.len() as i64 > plan.limit;
    let page = &rows[..rows.len().min(plan.limit as usize)];
    let mut folders = Vec::new();
    let mut objects = Vec::new();
    for row in page {
        let folder: bool = row.get(1);
        let mut entry: Value = row.get(2);
        if let Value::Object(map) = &mut entry {
            if !plan.delimiter {
                map.remove("key");
            }
            if folder
                && let Some(Value::String(name)) = map.get_mut("name")
                && !name.ends_with('/')
            {
                name.push('/');
            }
        }
        if folder { folders.push(entry) } else { objects.push(entry) }
    }
    let mut answer = Map::new();
    answer.insert("hasNext".to_owned(), Value::Bool(has_next));
    if has_next && let Some(last) = page.last() {
        let name: String = last.get(0);
        let column = column.map(|c| c.as_str().to_owned());
        let cursor = Cursor { start_after: name.clone(), order, column, after: last.get(3) };
        answer.insert("nextCursor".to_owned(), Value::String(cursor.encode()));
        answer.insert("nextCursorKey".to_owned(), Value::String(name));
    }
    answer.insert("folders".to_owned(), Value::Array(folders));
    answer.insert("objects".to_owned(), Value::Array(objects));
    Ok(Json(Value::Object(answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_its_round_trip_and_leaves_empty_parts_out() {
        let cases = [
            Cursor { start_after: "a/b.png".into(), ..Cursor::default() },
            Cursor {
                start_after: "x".into(),
                order: Some("desc".into()),
                column: Some("created_at".into()),
                after: Some("2021-02-17T04:43:32.770Z".into()),
            },
        ];
        for cursor in cases {
            assert_eq!(Cursor::decode(&cursor.encode()).expect("decodes"), cursor);
        }
        // What Storage itself would send for name "a", order "asc".
        assert_eq!(
            Cursor { start_after: "a".into(), order: Some("asc".into()), ..Cursor::default() }.encode(),
            "bDphCm86YXNj"
        );
    }

    #[test]
    fn a_cursor_that_is_not_storage_s_is_an_invalid_parameter() {
        for token in ["not base64!", "eDp5", "bGE="] {
            assert_eq!(Cursor::decode(token).expect_err(token).code, "InvalidParameter", "{token}");
        }
    }
}
