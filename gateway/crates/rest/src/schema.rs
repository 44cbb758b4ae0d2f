//! The schema cache: what the exposed schemas contain, read from the catalog at
//! start and again on `NOTIFY pgrst, 'reload schema'`
//! (<https://docs.postgrest.org/en/stable/references/schema_cache.html>).
//!
//! Every identifier the REST API writes into SQL comes from here: a name the
//! client sent is looked up, and the cache's copy is what gets quoted.

use std::collections::HashMap;

use serde::Deserialize;

pub use super::views::ViewColumn;

/// A qualified name: schema and table (or function).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: String,
    pub name: String,
}

impl QualifiedName {
    pub fn new(schema: impl Into<String>, name: impl Into<String>) -> Self {
        Self { schema: schema.into(), name: name.into() }
    }
}

impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.schema, self.name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Column {
    pub name: String,
    /// As `format_type` prints it: `numeric(10,2)`, `text[]`, `timestamp with time zone`.
    #[serde(rename = "type")]
    pub data_type: String,
    pub nullable: bool,
    /// The default expression, as `pg_get_expr` prints it.
    pub default: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub name: QualifiedName,
    /// In the table's own order.
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    /// Column sets with a unique index, the primary key included.
    pub unique_keys: Vec<Vec<String>>,
    pub is_view: bool,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// How many rows of `target` one row of `source` relates to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cardinality {
    /// The source holds the foreign key: an object or null.
    ManyToOne,
    /// The target holds the foreign key: an array.
    OneToMany,
    /// Either side, when the foreign key columns are unique: an object or null.
    OneToOne,
    /// Through a junction table: an array.
    ManyToMany,
}

/// The table between the two sides of a many-to-many relationship
/// (PostgREST's `Junction`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Junction {
    pub table: QualifiedName,
    /// The junction's foreign key to the source, then the one to the target.
    pub constraint1: String,
    pub constraint2: String,
    /// `(source column, junction column)` pairs of the first foreign key.
    pub source_columns: Vec<(String, String)>,
    /// `(target column, junction column)` pairs of the second.
    pub target_columns: Vec<(String, String)>,
}

/// A foreign key seen from one side: `source.columns` match `target.target_columns`.
/// A many-to-many relationship has no columns of its own but a [`Junction`];
/// a computed relationship has none either but a [`Relationship::function`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relationship {
    pub source: QualifiedName,
    pub columns: Vec<String>,
    pub target: QualifiedName,
    pub target_columns: Vec<String>,
    pub constraint: String,
    pub cardinality: Cardinality,
    pub junction: Option<Junction>,
    /// A computed relationship: `function(source) returns target` (or `setof
    /// target`), PostgREST's `ComputedRelationship`
    /// (<https://docs.postgrest.org/en/v12/references/api/resource_embedding.html#computed-relationships>).
    /// Its cardinality is many-to-one when it returns one row, else one-to-many.
    pub function: Option<QualifiedName>,
}

impl Relationship {
    /// To-one relationships embed an object, the others an array.
    pub fn is_to_one(&self) -> bool {
        matches!(self.cardinality, Cardinality::ManyToOne | Cardinality::OneToOne)
    }

    /// PostgREST's `relIsSelf`: both ends are the same table.
    pub fn is_self(&self) -> bool {
        self.source == self.target
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    pub name: String,
    pub data_type: String,
    pub has_default: bool,
    /// `variadic name type[]`: called as `VARIADIC name := array`.
    pub variadic: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: QualifiedName,
    pub arguments: Vec<Argument>,
    pub return_type: String,
    pub returns_set: bool,
    /// Rows with columns (a table type, `returns table (...)` or OUT parameters),
    /// rendered as objects rather than scalars.
    pub returns_rows: bool,
    pub returns_void: bool,
    pub volatility: Volatility,
    /// The table whose row type is the only argument: `f(t films)`, what
    /// computed fields and relationships are made of.
    pub row_argument: Option<QualifiedName>,
    /// The table whose row type it returns (`returns films`, `setof films`).
    pub returns_table: Option<QualifiedName>,
    /// At most one row: not `setof`, or declared `rows 1`.
    pub single_row: bool,
    /// The columns of `returns table (...)`, of OUT/INOUT arguments or of a
    /// composite type that is not a table's, which a call's `select`,
    /// filters and order read.
    pub out_columns: Vec<Column>,
    /// The name of the returned type (`record` for `returns table (...)`
    /// and OUT arguments), by which PostgREST's statement reads the rows it
    /// filters and orders, so PostgreSQL's errors name them.
    pub row_type: String,
}

/// Everything the REST API may touch.
#[derive(Clone, Debug, Default)]
pub struct SchemaCache {
    pub schemas: Vec<String>,
    pub tables: HashMap<QualifiedName, Table>,
    pub relationships: Vec<Relationship>,
    pub functions: HashMap<QualifiedName, Vec<Function>>,
}

impl Function {
    /// The rows of `returns table (...)` or OUT arguments as a table that a
    /// call's `select`, filters and order read, as PostgREST reads them. It
    /// has no schema, so nothing relates to it: such rows embed nothing.
    pub fn result_table(&self) -> Option<Table> {
        (self.returns_rows && !self.out_columns.is_empty()).then(|| Table {
            name: QualifiedName::new("", self.name.name.clone()),
            columns: self.out_columns.clone(),
            primary_key: Vec::new(),
            unique_keys: Vec::new(),
            is_view: false,
        })
    }

    /// Whether an RPC may call it: PostgREST's schema cache keeps functions
    /// whose arguments are all named, or with one unnamed argument of type
    /// bytea, json, jsonb, text or xml (its functions query's `callable`).
    pub fn rpc_callable(&self) -> bool {
        let mut unnamed = self.arguments.iter().filter(|a| a.name.is_empty());
        match (unnamed.next(), unnamed.next()) {
            (None, _) => true,
            (Some(a), None) => matches!(a.data_type.as_str(), "bytea" | "json" | "jsonb" | "text" | "xml"),
            (Some(_), Some(_)) => false,
        }
    }
}

impl SchemaCache {
    pub fn table(&self, schema: &str, name: &str) -> Option<&Table> {
        self.tables.get(&QualifiedName::new(schema, name))
    }

    /// Relationships leaving `source`.
    pub fn relationships_from<'a>(
        &'a self,
        source: &'a QualifiedName,
    ) -> impl Iterator<Item = &'a Relationship> {
        self.relationships.iter().filter(move |r| &r.source == source)
    }

    /// The computed field `name` of `table`: a function of that name in the
    /// table's schema whose one argument is the table's row, which
    /// PostgreSQL calls for `row.name` when there is no such column
    /// (<https://docs.postgrest.org/en/v12/references/api/computed_fields.html>).
    pub fn computed_field(&self, table: &QualifiedName, name: &str) -> Option<&Function> {
        self.functions
            .get(&QualifiedName::new(table.schema.clone(), name))?
            .iter()
            .find(|f| f.row_argument.as_ref() == Some(table))
    }
}

/// The catalog queries. They read only `pg_catalog`, so any role can run them.
pub mod catalog {
    /// Tables and views with their columns, as JSON.
    pub const TABLES: &str = "
        select n.nspname::text, c.relname::text, c.relkind in ('v', 'm') as is_view,
               coalesce(json_agg(json_build_object(
                   'name', a.attname,
                   'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                   'nullable', not a.attnotnull,
                   -- An identity column (generated by default) has no
                   -- pg_attrdef row: its default is its sequence's next
                   -- value, as PostgREST reads it for missing=default.
                   'default', case when a.attidentity = 'd' then
                       'nextval(' || pg_catalog.quote_literal(pg_catalog.pg_get_serial_sequence(
                           pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname), a.attname))
                       || '::regclass)'
                     else pg_catalog.pg_get_expr(d.adbin, d.adrelid) end
               ) order by a.attnum) filter (where a.attnum is not null), '[]')::text as columns
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        left join pg_catalog.pg_attribute a
               on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
        where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'f', 'p')
        group by n.nspname, c.relname, c.relkind";

    /// Primary keys and unique indexes, each as an ordered column list, of
    /// every schema's tables (a view may show a table of any schema).
    pub const KEYS: &str = "
        select n.nspname::text, c.relname::text, i.indisprimary,
               array(select a.attname::text
                     from unnest(i.indkey) with ordinality k(attnum, ord)
                     join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
                     order by k.ord) as columns
        from pg_catalog.pg_index i
        join pg_catalog.pg_class c on c.oid = i.indrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema') and i.indisunique
          and i.indpred is null and i.indexprs is null";

    /// Foreign keys with both column lists in key order, of every schema
    /// (a view may show a table of any schema). The copies PostgreSQL makes
    /// of a partitioned table's foreign keys on its partitions (and on the
    /// partitions of a partitioned table they reference) are left out, so a
    /// partition has no relationships, as in PostgREST.
    pub const FOREIGN_KEYS: &str = "
        select con.conname::text,
               sn.nspname::text, s.relname::text,
               array(select a.attname::text
                     from unnest(con.conkey) with ordinality k(attnum, ord)
                     join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
                     order by k.ord),
               tn.nspname::text, t.relname::text,
               array(select a.attname::text
                     from unnest(con.confkey) with ordinality k(attnum, ord)
                     join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum
                     order by k.ord)
        from pg_catalog.pg_constraint con
        join pg_catalog.pg_class s on s.oid = con.conrelid
        join pg_catalog.pg_namespace sn on sn.oid = s.relnamespace
        join pg_catalog.pg_class t on t.oid = con.confrelid
        join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
        where con.contype = 'f' and con.conparentid = 0
          and sn.nspname not in ('pg_catalog', 'information_schema')";

    /// Views and materialized views of every schema with their query trees,
    /// their columns by number, and the relation columns they read, for
    /// [`super::super::views::trace`].
    pub const VIEWS: &str = "
        select n.nspname::text, c.relname::text, r.ev_action::text,
               coalesce((select json_agg(json_build_array(a.attnum, a.attname) order by a.attnum)
                         from pg_catalog.pg_attribute a
                         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]')::text,
               coalesce((select json_agg(json_build_array(d.refobjid::int8, d.refobjsubid, sn.nspname, s.relname, sa.attname))
                         from pg_catalog.pg_depend d
                         join pg_catalog.pg_class s on s.oid = d.refobjid
                         join pg_catalog.pg_namespace sn on sn.oid = s.relnamespace
                         join pg_catalog.pg_attribute sa on sa.attrelid = s.oid and sa.attnum = d.refobjsubid
                         where d.classid = 'pg_catalog.pg_rewrite'::regclass and d.objid = r.oid
                           and d.refclassid = 'pg_catalog.pg_class'::regclass and d.refobjsubid > 0), '[]')::text
        from pg_catalog.pg_rewrite r
        join pg_catalog.pg_class c on c.oid = r.ev_class
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where r.rulename = '_RETURN' and c.relkind in ('v', 'm')
          and n.nspname not in ('pg_catalog', 'information_schema')";

    /// Functions with their input arguments.
    pub const FUNCTIONS: &str = "
        select n.nspname::text, p.proname::text,
               coalesce(p.proargnames, '{}')::text[] as names,
               coalesce(p.proargmodes::text[], '{}') as modes,
               array(select pg_catalog.format_type(t, null) from unnest(p.proargtypes) t) as input_types,
               p.pronargdefaults::int4,
               pg_catalog.format_type(p.prorettype, null) as return_type,
               p.proretset,
               (rt.typtype = 'c' or (p.prorettype = 'record'::regtype
                  and coalesce('o' = any(p.proargmodes::text[]) or 't' = any(p.proargmodes::text[]), false))) as returns_rows,
               p.prorettype = 'void'::regtype as returns_void,
               p.provolatile::text,
               an.nspname::text as arg_schema, ac.relname::text as arg_table,
               rn.nspname::text as ret_schema, rc.relname::text as ret_table,
               not p.proretset or p.prorows = 1 as single_row,
               coalesce((select json_agg(json_build_object('name', x.n, 'type', pg_catalog.format_type(x.t, null),
                                                           'nullable', true, 'default', null) order by x.o)
                         from unnest(p.proargnames, p.proallargtypes, p.proargmodes::text[])
                              with ordinality as x(n, t, m, o)
                         where x.m in ('o', 'b', 't')),
                        (select json_agg(json_build_object('name', a.attname, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                                                           'nullable', true, 'default', null) order by a.attnum)
                         from pg_catalog.pg_class tc
                         join pg_catalog.pg_attribute a on a.attrelid = tc.oid and a.attnum > 0 and not a.attisdropped
                         where tc.oid = rt.typrelid and tc.relkind = 'c'), '[]')::text as out_columns,
               rt.typname::text as row_type
        from pg_catalog.pg_proc p
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        join pg_catalog.pg_type rt on rt.oid = p.prorettype
        left join pg_catalog.pg_class ac
               on p.pronargs = 1 and ac.reltype = p.proargtypes[0] and ac.relkind in ('v', 'r', 'm', 'f', 'p')
        left join pg_catalog.pg_namespace an on an.oid = ac.relnamespace
        left join pg_catalog.pg_class rc
               on rc.reltype = p.prorettype and rc.relkind in ('v', 'r', 'm', 'f', 'p')
        left join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
        where n.nspname = any($1) and p.prokind = 'f'
        order by p.oid";
}

/// One row of [`catalog::FUNCTIONS`].
pub struct FunctionRow {
    pub schema: String,
    pub name: String,
    pub names: Vec<String>,
    pub modes: Vec<String>,
    pub input_types: Vec<String>,
    pub defaults: i32,
    pub return_type: String,
    pub returns_set: bool,
    pub returns_rows: bool,
    pub returns_void: bool,
    pub volatility: String,
    pub row_argument: Option<QualifiedName>,
    pub returns_table: Option<QualifiedName>,
    pub single_row: bool,
    pub out_columns: Vec<Column>,
    pub row_type: String,
}

impl FunctionRow {
    /// Input arguments are those of mode `i`, `b` or `v` (all of them when there
    /// are no modes); the last `defaults` of them have defaults.
    pub fn into_function(self) -> Function {
        let input_names: Vec<String> = if self.modes.is_empty() {
            self.names.clone()
        } else {
            self.names
                .iter()
                .zip(&self.modes)
                .filter(|(_, mode)| matches!(mode.as_str(), "i" | "b" | "v"))
                .map(|(name, _)| name.clone())
                .collect()
        };
        // Only the last input argument can be variadic.
        let variadic = self.modes.iter().any(|mode| mode == "v");
        let count = self.input_types.len();
        let first_default = count.saturating_sub(self.defaults.max(0) as usize);
        let arguments = self
            .input_types
            .into_iter()
            .enumerate()
            .map(|(i, data_type)| Argument {
                name: input_names.get(i).cloned().unwrap_or_default(),
                data_type,
                has_default: i >= first_default,
                variadic: variadic && i + 1 == count,
            })
            .collect();
        Function {
            name: QualifiedName::new(self.schema, self.name),
            arguments,
            return_type: self.return_type,
            returns_set: self.returns_set,
            returns_rows: self.returns_rows,
            returns_void: self.returns_void,
            volatility: match self.volatility.as_str() {
                "i" => Volatility::Immutable,
                "s" => Volatility::Stable,
                _ => Volatility::Volatile,
            },
            row_argument: self.row_argument,
            returns_table: self.returns_table,
            single_row: self.single_row,
            out_columns: self.out_columns,
            row_type: self.row_type,
        }
    }
}

/// A foreign key as the catalog lists it.
pub struct ForeignKey {
    pub constraint: String,
    pub source: QualifiedName,
    pub columns: Vec<String>,
    pub target: QualifiedName,
    pub target_columns: Vec<String>,
}

/// What the catalog says beyond the exposed tables: the keys of tables in
/// every schema (a view may show a table of a schema that is not exposed) and
/// the view columns that show a table's column unchanged.
#[derive(Clone, Debug, Default)]
pub struct Lineage {
    pub keys: HashMap<QualifiedName, TableKeys>,
    pub view_columns: Vec<ViewColumn>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableKeys {
    pub primary_key: Vec<String>,
    /// Column sets with a unique index, the primary key included.
    pub unique_keys: Vec<Vec<String>>,
}

impl SchemaCache {
    /// Builds the cache from catalog rows, with no views traced.
    pub fn build(
        schemas: Vec<String>,
        tables: Vec<Table>,
        foreign_keys: Vec<ForeignKey>,
        functions: Vec<Function>,
    ) -> Self {
        Self::build_with(schemas, tables, foreign_keys, functions, &Lineage::default())
    }

    /// Builds the cache from catalog rows. Each foreign key gives a relationship
    /// in both directions; one whose columns are unique is one-to-one. A view
    /// that shows all the columns of either side of a foreign key takes that
    /// side's place in a relationship of its own (both sides: view to view),
    /// and a view that shows all of a table's primary key has it as its own,
    /// as PostgREST's `addViewM2OAndO2ORels` and `addViewPrimaryKeys` do. Then
    /// come the many-to-many relationships through junction tables (views
    /// with keys included) and the computed relationships, as PostgREST's
    /// `querySchemaCache` adds them. Only relationships between exposed tables
    /// and views are kept (PostgREST's `removeInternal`).
    pub fn build_with(
        schemas: Vec<String>,
        tables: Vec<Table>,
        foreign_keys: Vec<ForeignKey>,
        functions: Vec<Function>,
        lineage: &Lineage,
    ) -> Self {
        let mut tables: HashMap<QualifiedName, Table> =
            tables.into_iter().map(|t| (t.name.clone(), t)).collect();
        let shown = ShownColumns::new(&lineage.view_columns);
        let keys_of = |tables: &HashMap<QualifiedName, Table>, name: &QualifiedName| -> Option<TableKeys> {
            match tables.get(name) {
                Some(t) if !t.is_view => {
                    Some(TableKeys { primary_key: t.primary_key.clone(), unique_keys: t.unique_keys.clone() })
                }
                Some(_) => None,
                None => lineage.keys.get(name).cloned(),
            }
        };
        let view_keys: Vec<(QualifiedName, Vec<String>)> = tables
            .values()
            .filter(|t| t.is_view && t.primary_key.is_empty())
            .filter_map(|view| {
                let key = shown.tables_of(&view.name).into_iter().find_map(|base| {
                    let primary = keys_of(&tables, base)?.primary_key;
                    if primary.is_empty() {
                        return None;
                    }
                    primary.iter().map(|c| shown.first(&view.name, base, c)).collect::<Option<Vec<_>>>()
                })?;
                Some((view.name.clone(), key))
            })
            .collect();
        for (view, key) in view_keys {
            if let Some(table) = tables.get_mut(&view) {
                table.unique_keys.push(key.clone());
                table.primary_key = key;
            }
        }
        let mut relationships = Vec::new();
        for fk in &foreign_keys {
            let unique = keys_of(&tables, &fk.source).is_some_and(|k| is_unique(&k.unique_keys, &fk.columns));
            let mut sources = vec![(fk.source.clone(), fk.columns.clone())];
            sources.extend(shown.views_showing(&fk.source, &fk.columns));
            let mut targets = vec![(fk.target.clone(), fk.target_columns.clone())];
            targets.extend(shown.views_showing(&fk.target, &fk.target_columns));
            for (source, columns) in &sources {
                for (target, target_columns) in &targets {
                    let relationship = |source: &QualifiedName,
                                        columns: &[String],
                                        target: &QualifiedName,
                                        target_columns: &[String],
                                        cardinality| Relationship {
                        source: source.clone(),
                        columns: columns.to_vec(),
                        target: target.clone(),
                        target_columns: target_columns.to_vec(),
                        constraint: fk.constraint.clone(),
                        cardinality,
                        junction: None,
                        function: None,
                    };
                    relationships.push(relationship(
                        source,
                        columns,
                        target,
                        target_columns,
                        if unique { Cardinality::OneToOne } else { Cardinality::ManyToOne },
                    ));
                    relationships.push(relationship(
                        target,
                        target_columns,
                        source,
                        columns,
                        if unique { Cardinality::OneToOne } else { Cardinality::OneToMany },
                    ));
                }
            }
        }
        relationships.extend(many_to_many(&tables, &relationships));
        relationships.retain(|r| tables.contains_key(&r.source) && tables.contains_key(&r.target));
        let mut by_name: HashMap<QualifiedName, Vec<Function>> = HashMap::new();
        for function in functions {
            by_name.entry(function.name.clone()).or_default().push(function);
        }
        add_computed(&tables, &by_name, &mut relationships);
        Self { schemas, tables, relationships, functions: by_name }
    }
}

fn is_unique(unique_keys: &[Vec<String>], columns: &[String]) -> bool {
    unique_keys.iter().any(|key| key.len() == columns.len() && key.iter().all(|k| columns.contains(k)))
}

/// The traced view columns, looked up by table and by view.
struct ShownColumns<'a> {
    /// table → its view columns, in the catalog's order.
    by_table: HashMap<&'a QualifiedName, Vec<&'a ViewColumn>>,
    by_view: HashMap<&'a QualifiedName, Vec<&'a ViewColumn>>,
}

impl<'a> ShownColumns<'a> {
    fn new(columns: &'a [ViewColumn]) -> Self {
        let mut by_table: HashMap<&QualifiedName, Vec<&ViewColumn>> = HashMap::new();
        let mut by_view: HashMap<&QualifiedName, Vec<&ViewColumn>> = HashMap::new();
        for column in columns {
            by_table.entry(&column.table).or_default().push(column);
            by_view.entry(&column.view).or_default().push(column);
        }
        Self { by_table, by_view }
    }

    /// The tables a view shows columns of, in the order of its columns.
    fn tables_of(&self, view: &QualifiedName) -> Vec<&'a QualifiedName> {
        let mut out: Vec<&QualifiedName> = Vec::new();
        for column in self.by_view.get(view).into_iter().flatten() {
            if !out.contains(&&column.table) {
                out.push(&column.table);
            }
        }
        out
    }

    /// The view's first column showing `table.column`.
    fn first(&self, view: &QualifiedName, table: &QualifiedName, column: &str) -> Option<String> {
        self.by_view
            .get(view)?
            .iter()
            .find(|c| &c.table == table && c.table_column == column)
            .map(|c| c.column.clone())
    }

    /// Each view showing all of `columns` of `table`, with the view's columns
    /// in the same order; a view showing one of them twice gives each
    /// combination, as PostgREST's `expandKeyDepCols` does.
    fn views_showing(&self, table: &QualifiedName, columns: &[String]) -> Vec<(QualifiedName, Vec<String>)> {
        let Some(shown) = self.by_table.get(table) else { return Vec::new() };
        let mut views: Vec<&QualifiedName> = Vec::new();
        for column in shown {
            if !views.contains(&&column.view) {
                views.push(&column.view);
            }
        }
        let mut out = Vec::new();
        for view in views {
            let mut combinations: Vec<Vec<String>> = vec![Vec::new()];
            for wanted in columns {
                let options: Vec<&str> = shown
                    .iter()
                    .filter(|c| &c.view == view && &c.table_column == wanted)
                    .map(|c| c.column.as_str())
                    .collect();
                combinations = combinations
                    .into_iter()
                    .flat_map(|prefix| {
                        options.iter().map(move |option| {
                            let mut next = prefix.clone();
                            next.push((*option).to_owned());
                            next
                        })
                    })
                    .collect();
            }
            out.extend(combinations.into_iter().map(|c| (view.clone(), c)));
        }
        out
    }
}

/// PostgREST's `addM2MRels`: a table is a junction between A and B when it
/// has a many-to-one foreign key to A and another (a different constraint) to
/// B, and the columns of both are all part of its primary key. Every ordered
/// pair of such keys gives one relationship, so a junction between A and B
/// gives A to B and B to A, and one with two keys to A gives two from A to A.
/// The junction must be in an exposed schema (`removeInternal`'s
/// `hasInternalJunction`); only exposed tables are in `tables`.
fn many_to_many(tables: &HashMap<QualifiedName, Table>, relationships: &[Relationship]) -> Vec<Relationship> {
    let many_to_one = || relationships.iter().filter(|r| r.cardinality == Cardinality::ManyToOne);
    let mut out = Vec::new();
    for first in many_to_one() {
        let Some(junction) = tables.get(&first.source) else { continue };
        for second in many_to_one() {
            if second.source != first.source || second.constraint == first.constraint {
                continue;
            }
            let in_key = |columns: &[String]| columns.iter().all(|c| junction.primary_key.contains(c));
            if !in_key(&first.columns) || !in_key(&second.columns) {
                continue;
            }
            let pairs = |theirs: &[String], ours: &[String]| -> Vec<(String, String)> {
                theirs.iter().cloned().zip(ours.iter().cloned()).collect()
            };
            out.push(Relationship {
                source: first.target.clone(),
                columns: Vec::new(),
                target: second.target.clone(),
                target_columns: Vec::new(),
                constraint: junction.name.name.clone(),
                cardinality: Cardinality::ManyToMany,
                junction: Some(Junction {
                    table: junction.name.clone(),
                    constraint1: first.constraint.clone(),
                    constraint2: second.constraint.clone(),
                    source_columns: pairs(&first.target_columns, &first.columns),
                    target_columns: pairs(&second.target_columns, &second.columns),
                }),
                function: None,
            });
        }
    }
    out
}

/// PostgREST's `allComputedRels` and `getOverrideRelationshipsMap`: a function
/// of one argument, a table's row, returning rows of a table relates the two.
/// It must be in the source table's schema (PostgREST looks relationships up
/// by the request's schema), and it replaces the detected relationships of
/// that table to a table of the same qualified name.
fn add_computed(
    tables: &HashMap<QualifiedName, Table>,
    functions: &HashMap<QualifiedName, Vec<Function>>,
    relationships: &mut Vec<Relationship>,
) {
    for function in functions.values().flatten() {
        let (Some(source), Some(target)) = (&function.row_argument, &function.returns_table) else {
            continue;
        };
        if source.schema != function.name.schema
            || !tables.contains_key(source)
            || !tables.contains_key(target)
        {
            continue;
        }
        relationships.retain(|r| !(r.source == *source && r.function.is_none() && r.target == function.name));
        relationships.push(Relationship {
            source: source.clone(),
            columns: Vec::new(),
            target: target.clone(),
            target_columns: Vec::new(),
            constraint: function.name.name.clone(),
            cardinality: if function.single_row { Cardinality::ManyToOne } else { Cardinality::OneToMany },
            junction: None,
            function: Some(function.name.clone()),
        });
    }
}

/// A small catalog for the unit tests of the cache, the planner and the SQL.
#[cfg(test)]
pub mod fixture {
    use super::*;

    fn column(name: &str, data_type: &str) -> Column {
        Column { name: name.to_owned(), data_type: data_type.to_owned(), nullable: true, default: None }
    }

    fn table(name: &str, columns: &[&str], primary_key: &[&str]) -> Table {
        let primary_key: Vec<String> = primary_key.iter().map(|c| (*c).to_owned()).collect();
        Table {
            name: QualifiedName::new("public", name),
            columns: columns.iter().map(|c| column(c, "integer")).collect(),
            unique_keys: vec![primary_key.clone()],
            primary_key,
            is_view: false,
        }
    }

    fn fk(
        constraint: &str,
        source: &str,
        columns: &[&str],
        target: &str,
        target_columns: &[&str],
    ) -> ForeignKey {
        ForeignKey {
            constraint: constraint.to_owned(),
            source: QualifiedName::new("public", source),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            target: QualifiedName::new("public", target),
            target_columns: target_columns.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    /// `name(t table)` returning `returns` (a table's rows) or a scalar.
    pub fn row_function(name: &str, table: &str, returns: Option<&str>, single_row: bool) -> Function {
        Function {
            name: QualifiedName::new("public", name),
            arguments: vec![Argument {
                name: String::new(),
                data_type: table.to_owned(),
                has_default: false,
                variadic: false,
            }],
            return_type: returns.unwrap_or("text").to_owned(),
            returns_set: !single_row,
            returns_rows: returns.is_some(),
            returns_void: false,
            volatility: Volatility::Stable,
            row_argument: Some(QualifiedName::new("public", table)),
            returns_table: returns.map(|r| QualifiedName::new("public", r)),
            single_row,
            out_columns: Vec::new(),
            row_type: returns.unwrap_or("text").to_owned(),
        }
    }

    /// films and actors through the junction films_actors; awards also
    /// points at both but its keys are not in its primary key; teams and
    /// members have two junctions; people have a self junction, friendships;
    /// shelves and editions have composite keys.
    pub fn catalog(functions: Vec<Function>) -> SchemaCache {
        SchemaCache::build(
            vec!["public".to_owned()],
            vec![
                table("films", &["id", "title", "year"], &["id"]),
                table("actors", &["id", "first_name", "last_name"], &["id"]),
                table("films_actors", &["film_id", "actor_id", "role"], &["film_id", "actor_id"]),
                table("awards", &["id", "film_id", "actor_id"], &["id"]),
                table("teams", &["id", "name"], &["id"]),
                table("members", &["id", "name"], &["id"]),
                table("team_members", &["team_id", "member_id"], &["team_id", "member_id"]),
                table("team_leads", &["team_id", "member_id"], &["team_id", "member_id"]),
                table("people", &["id", "name"], &["id"]),
                table("friendships", &["person_id", "friend_id"], &["person_id", "friend_id"]),
                table("shelves", &["id", "label"], &["id"]),
                table("editions", &["isbn", "lang", "title"], &["isbn", "lang"]),
                table("shelf_editions", &["shelf_id", "isbn", "lang"], &["shelf_id", "isbn", "lang"]),
            ],
            vec![
                fk("films_actors_film_id_fkey", "films_actors", &["film_id"], "films", &["id"]),
                fk("films_actors_actor_id_fkey", "films_actors", &["actor_id"], "actors", &["id"]),
                fk("awards_film_id_fkey", "awards", &["film_id"], "films", &["id"]),
                fk("awards_actor_id_fkey", "awards", &["actor_id"], "actors", &["id"]),
                fk("team_members_team_id_fkey", "team_members", &["team_id"], "teams", &["id"]),
                fk("team_members_member_id_fkey", "team_members", &["member_id"], "members", &["id"]),
                fk("team_leads_team_id_fkey", "team_leads", &["team_id"], "teams", &["id"]),
                fk("team_leads_member_id_fkey", "team_leads", &["member_id"], "members", &["id"]),
                fk("friendships_person_id_fkey", "friendships", &["person_id"], "people", &["id"]),
                fk("friendships_friend_id_fkey", "friendships", &["friend_id"], "people", &["id"]),
                fk("shelf_editions_shelf_id_fkey", "shelf_editions", &["shelf_id"], "shelves", &["id"]),
                fk(
                    "shelf_editions_isbn_lang_fkey",
                    "shelf_editions",
                    &["isbn", "lang"],
                    "editions",
                    &["isbn", "lang"],
                ),
            ],
            functions,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{catalog, row_function};
    use super::*;

    fn many_to_many<'a>(cache: &'a SchemaCache, from: &str) -> Vec<&'a Relationship> {
        let from = QualifiedName::new("public", from);
        cache
            .relationships
            .iter()
            .filter(|r| r.source == from && r.cardinality == Cardinality::ManyToMany)
            .collect()
    }

    #[test]
    fn a_junction_needs_both_foreign_keys_inside_its_primary_key() {
        let cache = catalog(Vec::new());
        let films = many_to_many(&cache, "films");
        // films_actors qualifies; awards (keys outside its primary key) does not.
        assert_eq!(films.len(), 1, "{films:#?}");
        let junction = films[0].junction.as_ref().expect("junction");
        assert_eq!(films[0].target, QualifiedName::new("public", "actors"));
        assert_eq!(junction.table.name, "films_actors");
        assert_eq!(junction.constraint1, "films_actors_film_id_fkey");
        assert_eq!(junction.constraint2, "films_actors_actor_id_fkey");
        assert_eq!(junction.source_columns, vec![("id".to_owned(), "film_id".to_owned())]);
        assert_eq!(junction.target_columns, vec![("id".to_owned(), "actor_id".to_owned())]);
        assert!(!films[0].is_to_one());
        // And the other way round.
        let actors = many_to_many(&cache, "actors");
        assert_eq!(actors.len(), 1);
        assert_eq!(
            actors[0].junction.as_ref().map(|j| j.constraint1.as_str()),
            Some("films_actors_actor_id_fkey")
        );
    }

    #[test]
    fn composite_keys_and_self_junctions_make_relationships_too() {
        let cache = catalog(Vec::new());
        let shelves = many_to_many(&cache, "shelves");
        assert_eq!(shelves.len(), 1);
        let junction = shelves[0].junction.as_ref().expect("junction");
        assert_eq!(
            junction.target_columns,
            vec![("isbn".to_owned(), "isbn".to_owned()), ("lang".to_owned(), "lang".to_owned())]
        );
        // Each ordered pair of keys: people to people twice.
        let people = many_to_many(&cache, "people");
        assert_eq!(people.len(), 2);
        assert!(people.iter().all(|r| r.is_self()));
        assert_eq!(many_to_many(&cache, "teams").len(), 2);
    }

    #[test]
    fn a_unique_foreign_key_is_one_to_one_and_makes_no_junction() {
        let mut tables = vec![
            fixture_table("a", &["id"]),
            fixture_table("b", &["id"]),
            fixture_table("ab", &["a_id", "b_id"]),
        ];
        // a_id alone is unique: ab to a is one-to-one, not many-to-one.
        tables[2].unique_keys.push(vec!["a_id".to_owned()]);
        let fk = |constraint: &str, column: &str, target: &str| ForeignKey {
            constraint: constraint.to_owned(),
            source: QualifiedName::new("public", "ab"),
            columns: vec![column.to_owned()],
            target: QualifiedName::new("public", target),
            target_columns: vec!["id".to_owned()],
        };
        let cache = SchemaCache::build(
            vec!["public".to_owned()],
            tables,
            vec![fk("ab_a", "a_id", "a"), fk("ab_b", "b_id", "b")],
            Vec::new(),
        );
        assert!(cache.relationships.iter().all(|r| r.cardinality != Cardinality::ManyToMany));
    }

    fn fixture_table(name: &str, primary_key: &[&str]) -> Table {
        let primary_key: Vec<String> = primary_key.iter().map(|c| (*c).to_owned()).collect();
        Table {
            name: QualifiedName::new("public", name),
            columns: primary_key
                .iter()
                .map(|c| Column {
                    name: c.clone(),
                    data_type: "integer".to_owned(),
                    nullable: false,
                    default: None,
                })
                .collect(),
            unique_keys: vec![primary_key.clone()],
            primary_key,
            is_view: false,
        }
    }

    fn view_column(view: &str, column: &str, table: QualifiedName, table_column: &str) -> ViewColumn {
        ViewColumn {
            view: QualifiedName::new("public", view),
            column: column.to_owned(),
            table,
            table_column: table_column.to_owned(),
        }
    }

    fn public(name: &str) -> QualifiedName {
        QualifiedName::new("public", name)
    }

    /// The fixture's catalog plus views: `film_list` shows films.id as `key`;
    /// `casting` shows films_actors.film_id and actor_id, actor_id twice;
    /// `secret_notes` shows a table of a schema that is not exposed.
    fn with_views() -> SchemaCache {
        let base = catalog(Vec::new());
        let view = |name: &str, columns: &[&str]| Table {
            name: public(name),
            columns: columns
                .iter()
                .map(|c| Column {
                    name: (*c).to_owned(),
                    data_type: "integer".to_owned(),
                    nullable: true,
                    default: None,
                })
                .collect(),
            primary_key: Vec::new(),
            unique_keys: Vec::new(),
            is_view: true,
        };
        let mut tables: Vec<Table> = base.tables.values().cloned().collect();
        tables.push(view("film_list", &["key", "title"]));
        tables.push(view("casting", &["film_id", "actor_id", "star_id"]));
        tables.push(view("secret_notes", &["id", "film", "body"]));
        let private = QualifiedName::new("private", "notes");
        let lineage = Lineage {
            keys: [(
                private.clone(),
                TableKeys { primary_key: vec!["id".to_owned()], unique_keys: vec![vec!["id".to_owned()]] },
            )]
            .into(),
            view_columns: vec![
                view_column("film_list", "key", public("films"), "id"),
                view_column("film_list", "title", public("films"), "title"),
                view_column("casting", "film_id", public("films_actors"), "film_id"),
                view_column("casting", "actor_id", public("films_actors"), "actor_id"),
                view_column("casting", "star_id", public("films_actors"), "actor_id"),
                view_column("secret_notes", "id", private.clone(), "id"),
                view_column("secret_notes", "film", private.clone(), "film_id"),
            ],
        };
        let mut foreign_keys: Vec<ForeignKey> = [
            ("films_actors_film_id_fkey", "films_actors", "film_id", "films"),
            ("films_actors_actor_id_fkey", "films_actors", "actor_id", "actors"),
        ]
        .iter()
        .map(|(constraint, source, column, target)| ForeignKey {
            constraint: (*constraint).to_owned(),
            source: public(source),
            columns: vec![(*column).to_owned()],
            target: public(target),
            target_columns: vec!["id".to_owned()],
        })
        .collect();
        foreign_keys.push(ForeignKey {
            constraint: "notes_film_id_fkey".to_owned(),
            source: private,
            columns: vec!["film_id".to_owned()],
            target: public("films"),
            target_columns: vec!["id".to_owned()],
        });
        SchemaCache::build_with(vec!["public".to_owned()], tables, foreign_keys, Vec::new(), &lineage)
    }

    fn related(cache: &SchemaCache, from: &str, to: &str) -> Vec<(Cardinality, Vec<String>, Vec<String>)> {
        let from = public(from);
        let mut found: Vec<_> = cache
            .relationships_from(&from)
            .filter(|r| r.target == public(to))
            .map(|r| (r.cardinality, r.columns.clone(), r.target_columns.clone()))
            .collect();
        found.sort_by_key(|a| (a.1.clone(), a.2.clone()));
        found
    }

    fn names(columns: &[&str]) -> Vec<String> {
        columns.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn a_view_showing_a_foreign_key_relates_as_its_table_both_ways() {
        let cache = with_views();
        assert_eq!(
            related(&cache, "casting", "films"),
            vec![(Cardinality::ManyToOne, names(&["film_id"]), names(&["id"]))]
        );
        assert_eq!(
            related(&cache, "films", "casting"),
            vec![(Cardinality::OneToMany, names(&["id"]), names(&["film_id"]))]
        );
    }

    #[test]
    fn a_view_showing_the_referenced_key_relates_and_so_do_two_views() {
        let cache = with_views();
        assert_eq!(
            related(&cache, "films_actors", "film_list"),
            vec![(Cardinality::ManyToOne, names(&["film_id"]), names(&["key"]))]
        );
        assert_eq!(
            related(&cache, "casting", "film_list"),
            vec![(Cardinality::ManyToOne, names(&["film_id"]), names(&["key"]))]
        );
        assert_eq!(
            related(&cache, "film_list", "casting"),
            vec![(Cardinality::OneToMany, names(&["key"]), names(&["film_id"]))]
        );
    }

    #[test]
    fn a_key_column_shown_twice_gives_a_relationship_for_each() {
        let cache = with_views();
        assert_eq!(
            related(&cache, "casting", "actors"),
            vec![
                (Cardinality::ManyToOne, names(&["actor_id"]), names(&["id"])),
                (Cardinality::ManyToOne, names(&["star_id"]), names(&["id"])),
            ]
        );
    }

    #[test]
    fn a_view_of_a_table_in_a_schema_not_exposed_relates_but_that_table_does_not() {
        let cache = with_views();
        assert_eq!(
            related(&cache, "secret_notes", "films"),
            vec![(Cardinality::ManyToOne, names(&["film"]), names(&["id"]))]
        );
        assert!(
            cache.relationships.iter().all(|r| r.source.schema == "public" && r.target.schema == "public")
        );
    }

    #[test]
    fn a_view_showing_a_primary_key_has_it_as_its_own() {
        let cache = with_views();
        let key = |view: &str| cache.table("public", view).map(|t| t.primary_key.clone());
        assert_eq!(key("film_list"), Some(names(&["key"])));
        assert_eq!(key("secret_notes"), Some(names(&["id"])));
        // films_actors' key is (film_id, actor_id): actor_id's first column.
        assert_eq!(key("casting"), Some(names(&["film_id", "actor_id"])));
        assert_eq!(key("films"), Some(names(&["id"])));
    }

    #[test]
    fn a_view_with_both_keys_of_a_junction_in_its_key_is_a_junction_too() {
        let cache = with_views();
        let films = public("films");
        let through: Vec<&str> = cache
            .relationships_from(&films)
            .filter_map(|r| Some(r.junction.as_ref()?.table.name.as_str()))
            .collect();
        assert!(through.contains(&"casting"), "{through:?}");
        assert!(through.contains(&"films_actors"), "{through:?}");
    }

    #[test]
    fn functions_of_a_row_are_computed_fields_and_relationships() {
        let cache = catalog(vec![
            row_function("full_name", "actors", None, true),
            row_function("filmography", "actors", Some("films"), false),
            row_function("latest_film", "actors", Some("films"), true),
        ]);
        let actors = QualifiedName::new("public", "actors");
        assert!(cache.computed_field(&actors, "full_name").is_some());
        assert!(cache.computed_field(&QualifiedName::new("public", "films"), "full_name").is_none());
        let computed: Vec<(&str, Cardinality)> = cache
            .relationships_from(&actors)
            .filter_map(|r| Some((r.function.as_ref()?.name.as_str(), r.cardinality)))
            .collect();
        assert_eq!(computed.len(), 2, "{computed:?}");
        assert!(computed.contains(&("filmography", Cardinality::OneToMany)));
        assert!(computed.contains(&("latest_film", Cardinality::ManyToOne)));
    }

    #[test]
    fn a_computed_relationship_replaces_the_detected_ones_to_a_table_of_its_name() {
        // `films(actors) returns setof films`: /actors?select=films(*) now calls it.
        let cache = catalog(vec![row_function("films", "actors", Some("films"), false)]);
        let actors = QualifiedName::new("public", "actors");
        let to_films: Vec<&Relationship> = cache
            .relationships_from(&actors)
            .filter(|r| r.target == QualifiedName::new("public", "films"))
            .collect();
        assert_eq!(to_films.len(), 1);
        assert!(to_films[0].function.is_some());
    }
}
