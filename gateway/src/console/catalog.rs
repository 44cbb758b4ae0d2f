//! `GET /_/api/tables`: the tables and views of the exposed schemas, read
//! from the catalog with what Studio's table editor shows of each (columns,
//! types, defaults, constraints, foreign keys, indexes, row-level security
//! and its policies; postgres-meta's `tables`, `columns` and `policies`).

use std::time::Duration;

use axum::{Json, extract::State};
use serde_json::Value;

use super::{ConsoleError, access::Operator};
use crate::AppState;

const TABLES: &str = r#"
select coalesce(jsonb_agg(t order by t->>'schema', t->>'name'), '[]'::jsonb)
from (
  select jsonb_build_object(
    'schema', n.nspname,
    'name', c.relname,
    'kind', case c.relkind when 'v' then 'view' when 'm' then 'materialized view'
                           when 'f' then 'foreign table' else 'table' end,
    'comment', obj_description(c.oid, 'pg_class'),
    'rlsEnabled', c.relrowsecurity,
    'rlsForced', c.relforcerowsecurity,
    'columns', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'name', a.attname,
               'type', format_type(a.atttypid, a.atttypmod),
               'nullable', not a.attnotnull,
               'default', pg_get_expr(d.adbin, d.adrelid),
               'identity', nullif(a.attidentity::text, ''),
               'generated', nullif(a.attgenerated::text, ''),
               'comment', col_description(c.oid, a.attnum)
             ) order by a.attnum), '[]'::jsonb)
      from pg_attribute a
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped),
    'constraints', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'name', k.conname,
               'type', case k.contype when 'p' then 'primary key' when 'u' then 'unique'
                                      when 'c' then 'check' when 'f' then 'foreign key'
                                      when 'x' then 'exclusion' else k.contype::text end,
               'definition', pg_get_constraintdef(k.oid)
             ) order by k.conname), '[]'::jsonb)
      from pg_constraint k where k.conrelid = c.oid),
    'foreignKeys', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'name', k.conname,
               'columns', (select jsonb_agg(a.attname order by u.i)
                           from unnest(k.conkey) with ordinality u(n, i)
                           join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n),
               'referencedSchema', rn.nspname,
               'referencedTable', rc.relname,
               'referencedColumns', (select jsonb_agg(a.attname order by u.i)
                                     from unnest(k.confkey) with ordinality u(n, i)
                                     join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n),
               'definition', pg_get_constraintdef(k.oid)
             ) order by k.conname), '[]'::jsonb)
      from pg_constraint k
      join pg_class rc on rc.oid = k.confrelid
      join pg_namespace rn on rn.oid = rc.relnamespace
      where k.conrelid = c.oid and k.contype = 'f'),
    'indexes', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'name', i.relname,
               'unique', x.indisunique,
               'primary', x.indisprimary,
               'definition', pg_get_indexdef(x.indexrelid)
             ) order by i.relname), '[]'::jsonb)
      from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = c.oid),
    'policies', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'name', p.polname,
               'command', case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT'
                                        when 'w' then 'UPDATE' when 'd' then 'DELETE' else 'ALL' end,
               'permissive', p.polpermissive,
               'roles', (select coalesce(jsonb_agg(case when r = 0 then 'public'
                                                        else pg_get_userbyid(r)::text end), '[]'::jsonb)
                         from unnest(p.polroles) r),
               'using', pg_get_expr(p.polqual, p.polrelid),
               'check', pg_get_expr(p.polwithcheck, p.polrelid)
             ) order by p.polname), '[]'::jsonb)
      from pg_policy p where p.polrelid = c.oid)
  ) as t
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = any($1) and c.relkind in ('r', 'p', 'v', 'm', 'f')
) as tables
"#;

/// The tables and views of `--db-schemas`, each with what describes it.
pub async fn tables(State(state): State<AppState>, _operator: Operator) -> Result<Json<Value>, ConsoleError> {
    let owner = state.db.as_schema_owner(Duration::from_secs(15)).await?;
    let row = owner
        .client()
        .query_one(TABLES, &[&state.config.rest.db_schemas])
        .await
        .map_err(ConsoleError::internal)?;
    Ok(Json(row.get(0)))
}
