//! What the generated types are made of, read from the catalog as
//! postgres-meta reads it for the Supabase CLI (its `src/lib/sql/*.sql` and
//! `src/lib/generators.ts`): relations, columns, foreign keys (and those that
//! views inherit), functions with every argument, and every type.
//!
//! It is not the schema cache's model: the cache holds what PostgREST plans
//! with (`format_type` names, cardinalities, junctions), the types hold what
//! postgres-meta prints (type names as `pg_type` spells them, identities,
//! OIDs, every argument mode). What views inherit is traced once, by
//! [`crate::views::trace`], for both.

use serde::Deserialize;

use crate::schema::{QualifiedName, catalog as cache_catalog};
use crate::views::{self, RawView, Source};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    Table,
    ForeignTable,
    View,
    MaterializedView,
}

/// A table, foreign table, view or materialized view.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Relation {
    pub id: i64,
    pub schema: String,
    pub name: String,
    pub kind: RelationKind,
    /// A view that takes inserts and updates (information_schema's rule).
    pub is_updatable: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Column {
    pub table_id: i64,
    pub name: String,
    /// The type's `typname`, a domain's base type's for a domain:
    /// `int4`, `_text`, `mood`.
    pub format: String,
    pub is_identity: bool,
    /// `generated always as identity`.
    pub identity_always: bool,
    /// A default or a generation expression.
    pub has_default: bool,
    pub is_nullable: bool,
    pub is_updatable: bool,
}

/// A foreign key seen from the side that holds it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ForeignKey {
    pub foreign_key_name: String,
    pub schema: String,
    pub relation: String,
    pub columns: Vec<String>,
    pub referenced_schema: String,
    pub referenced_relation: String,
    pub referenced_columns: Vec<String>,
    /// Its columns, in its order, are the holder's primary key or a unique
    /// constraint.
    pub is_one_to_one: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgMode {
    In,
    Out,
    Inout,
    Variadic,
    Table,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Argument {
    pub mode: ArgMode,
    /// Empty when unnamed.
    pub name: String,
    pub type_id: i64,
    pub has_default: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Function {
    pub schema: String,
    pub name: String,
    /// Every argument, in declaration order.
    pub args: Vec<Argument>,
    /// `pg_get_function_arguments`: `a integer, b text DEFAULT ''::text`.
    pub argument_types: String,
    pub return_type_id: i64,
    /// `pg_get_function_result`: `SETOF users`, `TABLE(id integer)`.
    pub return_type: String,
    /// The relation whose row type it returns.
    pub return_type_relation_id: Option<i64>,
    pub is_set_returning_function: bool,
    /// The `rows` estimate of a set-returning function.
    pub prorows: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Attribute {
    pub name: String,
    pub type_id: i64,
}

/// Any type of the database, system schemas included.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PgType {
    pub id: i64,
    pub name: String,
    pub schema: String,
    /// `format_type`: schema-qualified when not on the search path.
    pub format: String,
    pub enums: Vec<String>,
    /// A composite type's attributes.
    pub attributes: Vec<Attribute>,
    /// The relation of a row type.
    pub type_relation_id: Option<i64>,
}

/// Everything [`crate::typegen::typescript`] prints.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// The schemas asked for that exist.
    pub schemas: Vec<String>,
    pub relations: Vec<Relation>,
    pub columns: Vec<Column>,
    pub foreign_keys: Vec<ForeignKey>,
    pub functions: Vec<Function>,
    pub types: Vec<PgType>,
}

/// The catalog queries: each answers one JSON array.
mod sql {
    pub const SCHEMAS: &str = "
        select coalesce(json_agg(n.nspname order by n.nspname), '[]')::text
        from pg_catalog.pg_namespace n where n.nspname = any($1)";

    pub const RELATIONS: &str = "
        select coalesce(json_agg(json_build_object(
                 'id', c.oid::int8, 'schema', n.nspname, 'name', c.relname,
                 'kind', case c.relkind when 'r' then 'table' when 'p' then 'table'
                         when 'f' then 'foreign_table' when 'v' then 'view' else 'materialized_view' end,
                 -- information_schema.views' is_insertable_into and is_updatable, as postgres-meta reads them
                 'is_updatable', c.relkind = 'v' and (pg_catalog.pg_relation_is_updatable(c.oid, false) & 20) = 20)
               order by c.oid), '[]')::text
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = any($1) and c.relkind in ('r', 'p', 'f', 'v', 'm')";

    pub const COLUMNS: &str = "
        select coalesce(json_agg(json_build_object(
                 'table_id', c.oid::int8, 'name', a.attname,
                 'format', coalesce(bt.typname, t.typname),
                 'is_identity', a.attidentity in ('a', 'd'),
                 'identity_always', a.attidentity = 'a',
                 'has_default', a.atthasdef,
                 'is_nullable', not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)),
                 'is_updatable', c.relkind in ('r', 'p')
                     or (c.relkind in ('v', 'f') and pg_catalog.pg_column_is_updatable(c.oid, a.attnum, false)))
               order by c.oid, a.attnum), '[]')::text
        from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on c.oid = a.attrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        join pg_catalog.pg_type t on t.oid = a.atttypid
        left join pg_catalog.pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
        where n.nspname = any($1) and a.attnum > 0 and not a.attisdropped
          and c.relkind in ('r', 'p', 'f', 'v', 'm')";

    /// A foreign key is one-to-one when its columns, in its order, are a
    /// primary key or unique constraint's, in theirs (by column number).
    pub const FOREIGN_KEYS: &str = "
        select coalesce(json_agg(json_build_object(
                 'foreign_key_name', k.conname, 'schema', sn.nspname, 'relation', s.relname,
                 'columns', k.columns, 'referenced_schema', tn.nspname, 'referenced_relation', t.relname,
                 'referenced_columns', k.referenced,
                 'is_one_to_one', exists (
                     select from pg_catalog.pg_constraint u
                     where u.conrelid = k.conrelid and u.connamespace = k.connamespace and u.contype in ('p', 'u')
                       and array(select a.attname::text from pg_catalog.pg_attribute a
                                 where a.attrelid = u.conrelid and a.attnum = any(u.conkey) order by a.attnum)
                           = k.columns))
               order by k.oid), '[]')::text
        from (select con.*,
                     array(select a.attname::text from unnest(con.conkey) with ordinality x(attnum, ord)
                           join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = x.attnum
                           order by x.ord) as columns,
                     array(select a.attname::text from unnest(con.confkey) with ordinality x(attnum, ord)
                           join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = x.attnum
                           order by x.ord) as referenced
              from pg_catalog.pg_constraint con
              where con.contype = 'f' and con.conparentid = 0) k
        join pg_catalog.pg_namespace kn on kn.oid = k.connamespace
        join pg_catalog.pg_class s on s.oid = k.conrelid
        join pg_catalog.pg_namespace sn on sn.oid = s.relnamespace
        join pg_catalog.pg_class t on t.oid = k.confrelid
        join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
        where kn.nspname = any($1)";

    /// Every argument with its mode; `has_default` lines up with the input
    /// arguments' defaults position by position over all the arguments, as
    /// postgres-meta's query pairs them.
    pub const FUNCTIONS: &str = "
        select coalesce(json_agg(json_build_object(
                 'schema', n.nspname, 'name', p.proname,
                 'args', (select coalesce(json_agg(json_build_object(
                                 'mode', case x.mode when 'i' then 'in' when 'o' then 'out' when 'b' then 'inout'
                                         when 'v' then 'variadic' else 'table' end,
                                 'name', coalesce(x.name, ''), 'type_id', x.type_id::int8,
                                 'has_default', x.ord > p.pronargs - p.pronargdefaults and x.ord <= p.pronargs)
                               order by x.ord), '[]')
                          from unnest(coalesce(p.proargmodes::text[],
                                               array_fill('i'::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
                                      coalesce(p.proargnames,
                                               array_fill(''::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
                                      coalesce(p.proallargtypes, p.proargtypes::oid[]))
                               with ordinality x(mode, name, type_id, ord)),
                 'argument_types', pg_catalog.pg_get_function_arguments(p.oid),
                 'return_type_id', p.prorettype::int8,
                 'return_type', pg_catalog.pg_get_function_result(p.oid),
                 'return_type_relation_id', nullif(rt.typrelid::int8, 0),
                 'is_set_returning_function', p.proretset,
                 'prorows', case when p.proretset then nullif(p.prorows, 0) end)
               order by p.oid), '[]')::text
        from pg_catalog.pg_proc p
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        left join pg_catalog.pg_type rt on rt.oid = p.prorettype
        where n.nspname = any($1) and p.prokind = 'f'
          and pg_catalog.pg_get_function_result(p.oid) not in ('trigger', 'event_trigger')";

    /// Every type of every schema but row types of sequences, indexes and
    /// the like.
    pub const TYPES: &str = "
        select coalesce(json_agg(json_build_object(
                 'id', t.oid::int8, 'name', t.typname, 'schema', n.nspname,
                 'format', pg_catalog.format_type(t.oid, null),
                 'enums', coalesce((select json_agg(e.enumlabel order by e.enumsortorder)
                                    from pg_catalog.pg_enum e where e.enumtypid = t.oid), '[]'),
                 'attributes', coalesce((select json_agg(json_build_object('name', a.attname, 'type_id', a.atttypid::int8)
                                                         order by a.attnum)
                                         from pg_catalog.pg_class c
                                         join pg_catalog.pg_attribute a on a.attrelid = c.oid
                                         where c.oid = t.typrelid and c.relkind = 'c' and not a.attisdropped), '[]'),
                 'type_relation_id', nullif(t.typrelid::int8, 0))
               order by t.oid), '[]')::text
        from pg_catalog.pg_type t
        join pg_catalog.pg_namespace n on n.oid = t.typnamespace
        where t.typrelid = 0
           or (select c.relkind in ('c', 'r', 'v', 'm', 'p') from pg_catalog.pg_class c where c.oid = t.typrelid)";
}

/// Why reading the catalog failed.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("reading the catalog: {0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("reading the catalog's answer: {0}")]
    Json(#[from] serde_json::Error),
}

impl Catalog {
    /// Reads `schemas` (and every type) from the database. Names are printed
    /// against the default search path, as postgres-meta's connection
    /// prints them: a type outside it comes schema-qualified.
    pub async fn load(client: &tokio_postgres::Client, schemas: &[String]) -> Result<Self, CatalogError> {
        client.batch_execute("set search_path to \"$user\", public").await?;
        let schemas = schemas.to_vec();
        let one = async |query: &str, with_schemas: bool| -> Result<String, CatalogError> {
            let row = match with_schemas {
                true => client.query_one(query, &[&schemas]).await?,
                false => client.query_one(query, &[]).await?,
            };
            Ok(row.get(0))
        };
        let found: Vec<String> = serde_json::from_str(&one(sql::SCHEMAS, true).await?)?;
        let relations: Vec<Relation> = serde_json::from_str(&one(sql::RELATIONS, true).await?)?;
        let columns = serde_json::from_str(&one(sql::COLUMNS, true).await?)?;
        let mut foreign_keys: Vec<ForeignKey> = serde_json::from_str(&one(sql::FOREIGN_KEYS, true).await?)?;
        let functions = serde_json::from_str(&one(sql::FUNCTIONS, true).await?)?;
        let types = serde_json::from_str(&one(sql::TYPES, false).await?)?;
        let traced = views::trace(&load_views(client).await?);
        let inherited = inherited_keys(&foreign_keys, &traced, &schemas);
        foreign_keys.extend(inherited);
        Ok(Catalog { schemas: found, relations, columns, foreign_keys, functions, types })
    }
}

/// The views with their query trees, as the schema cache reads them.
async fn load_views(client: &tokio_postgres::Client) -> Result<Vec<RawView>, CatalogError> {
    let rows = client.query(cache_catalog::VIEWS, &[]).await?;
    rows.iter()
        .map(|row| {
            let sources: Vec<(i64, i32, String, String, String)> = serde_json::from_str(row.get(4))?;
            Ok(RawView {
                name: QualifiedName::new(row.get::<_, String>(0), row.get::<_, String>(1)),
                definition: row.get(2),
                columns: serde_json::from_str(row.get(3))?,
                sources: sources
                    .into_iter()
                    .map(|(oid, attnum, schema, relation, column)| Source {
                        oid,
                        attnum,
                        relation: QualifiedName::new(schema, relation),
                        column,
                    })
                    .collect(),
            })
        })
        .collect()
}

/// The foreign keys that views of `schemas` take part in: a view that shows
/// every column of a foreign key holds it too, a view that shows every
/// column it references is referenced too, and both at once relate two views
/// (postgres-meta's `PostgresMetaRelationships`, after PostgREST's
/// `addViewM2OAndO2ORels`). A column a view shows twice gives one
/// relationship per choice.
pub fn inherited_keys(
    foreign_keys: &[ForeignKey],
    traced: &[views::ViewColumn],
    schemas: &[String],
) -> Vec<ForeignKey> {
    // Each view over `table` showing all of `columns`: the view and, per
    // column, the view's columns that show it.
    let showing = |schema: &str, table: &str, columns: &[String]| -> Vec<(QualifiedName, Vec<Vec<String>>)> {
        let mut out: Vec<(QualifiedName, Vec<Vec<String>>)> = Vec::new();
        for column in traced
            .iter()
            .filter(|c| c.table.schema == schema && c.table.name == table && schemas.contains(&c.view.schema))
        {
            let Some(at) = columns.iter().position(|wanted| *wanted == column.table_column) else { continue };
            let entry = match out.iter_mut().find(|(view, _)| *view == column.view) {
                Some(entry) => entry,
                None => {
                    out.push((column.view.clone(), vec![Vec::new(); columns.len()]));
                    out.last_mut().expect("just pushed")
                }
            };
            entry.1[at].push(column.column.clone());
        }
        out.retain(|(_, per_column)| per_column.iter().all(|shown| !shown.is_empty()));
        out
    };
    let mut out = Vec::new();
    for key in foreign_keys {
        let holders = showing(&key.schema, &key.relation, &key.columns);
        let referenced = showing(&key.referenced_schema, &key.referenced_relation, &key.referenced_columns);
        for (view, per_column) in &holders {
            for columns in choices(per_column) {
                out.push(ForeignKey {
                    schema: view.schema.clone(),
                    relation: view.name.clone(),
                    columns,
                    ..key.clone()
                });
            }
        }
        for (view, per_column) in &referenced {
            for referenced_columns in choices(per_column) {
                out.push(ForeignKey {
                    referenced_schema: view.schema.clone(),
                    referenced_relation: view.name.clone(),
                    referenced_columns,
                    ..key.clone()
                });
            }
        }
        for (holder, holder_columns) in &holders {
            for columns in choices(holder_columns) {
                for (view, per_column) in &referenced {
                    for referenced_columns in choices(per_column) {
                        out.push(ForeignKey {
                            schema: holder.schema.clone(),
                            relation: holder.name.clone(),
                            columns: columns.clone(),
                            referenced_schema: view.schema.clone(),
                            referenced_relation: view.name.clone(),
                            referenced_columns,
                            ..key.clone()
                        });
                    }
                }
            }
        }
    }
    out
}

/// Every way to pick one name from each list.
fn choices(per_column: &[Vec<String>]) -> Vec<Vec<String>> {
    per_column.iter().fold(vec![Vec::new()], |acc, options| {
        acc.iter()
            .flat_map(|prefix| {
                options.iter().map(move |option| {
                    let mut next = prefix.clone();
                    next.push(option.clone());
                    next
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(view: &str, column: &str, table: &str, table_column: &str) -> views::ViewColumn {
        views::ViewColumn {
            view: QualifiedName::new("public", view),
            column: column.to_owned(),
            table: QualifiedName::new("public", table),
            table_column: table_column.to_owned(),
        }
    }

    #[test]
    fn a_view_showing_a_key_and_one_showing_what_it_references_inherit_it() {
        let key = ForeignKey {
            foreign_key_name: "messages_user_fkey".to_owned(),
            schema: "public".to_owned(),
            relation: "messages".to_owned(),
            columns: vec!["username".to_owned()],
            referenced_schema: "public".to_owned(),
            referenced_relation: "users".to_owned(),
            referenced_columns: vec!["username".to_owned()],
            is_one_to_one: false,
        };
        let traced = [
            shown("recent_messages", "author", "messages", "username"),
            shown("active_users", "username", "users", "username"),
            shown("active_users", "name_again", "users", "username"),
        ];
        let inherited = inherited_keys(&[key], &traced, &["public".to_owned()]);
        let pairs: Vec<(String, Vec<String>, String, Vec<String>)> = inherited
            .into_iter()
            .map(|k| (k.relation, k.columns, k.referenced_relation, k.referenced_columns))
            .collect();
        let s = |v: &str| v.to_owned();
        assert_eq!(
            pairs,
            vec![
                (s("recent_messages"), vec![s("author")], s("users"), vec![s("username")]),
                (s("messages"), vec![s("username")], s("active_users"), vec![s("username")]),
                (s("messages"), vec![s("username")], s("active_users"), vec![s("name_again")]),
                (s("recent_messages"), vec![s("author")], s("active_users"), vec![s("username")]),
                (s("recent_messages"), vec![s("author")], s("active_users"), vec![s("name_again")]),
            ]
        );
    }
}
