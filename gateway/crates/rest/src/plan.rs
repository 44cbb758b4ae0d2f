//! From a parsed request to a plan: every name checked against the schema
//! cache, every embed resolved to one foreign key. Pure: no I/O, no SQL text.
//!
//! Resolution follows PostgREST's (`src/library/PostgREST/Plan.hs`): an embed
//! names a table related to the current one (or the foreign-key column, as in
//! `brand_id(*)`), a hint (`brands!products_brand_id_fkey`, `brands!brand_id`)
//! picks among several foreign keys; none is PGRST200, several PGRST201.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use axum::http::StatusCode;
use serde_json::json;

use super::ast::{
    self, EmbedPath, Field, JoinType, NodeParams, OrderDirection, ParamKind, QueryParams, SelectItem,
};
use super::error::RestError;
use super::fuzzy;
use super::request::Payload;
use super::schema::{Cardinality, Column, Function, QualifiedName, Relationship, SchemaCache, Table};
use super::sql;
use gateway_core::error::ApiError;

/// What to read from one table (the top level or an embed).
#[derive(Debug, Clone)]
pub struct Node<'a> {
    pub table: &'a Table,
    /// The name PostgREST's statement reads the table by, which PostgreSQL's
    /// errors about its columns use: the table's name at the top and for a
    /// many-to-many, `<table>_<depth>` for other embeds.
    pub alias: String,
    /// The columns PostgreSQL's errors about the node's filters and order may
    /// suggest, when not all: a function's rows, of which PostgREST's call
    /// keeps only those selected and filtered (`callPlanToQuery`).
    pub visible: Option<BTreeSet<String>>,
    pub items: Vec<Item>,
    pub embeds: Vec<EmbedNode<'a>>,
    pub conditions: Vec<Condition>,
    pub order: Vec<Order>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// What a selected, filtered or ordered name reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldRef {
    /// A column of the node's table.
    Column(String),
    /// A computed field: `function(row)`, where the row is of `table`'s type.
    Computed { function: QualifiedName, table: QualifiedName },
}

/// One output of a node.
#[derive(Debug, Clone)]
pub enum Item {
    /// A column or computed field (with a JSON path and a cast), named
    /// `output` in the result, or an aggregate of one (`price.sum()::int`).
    Column {
        field: FieldRef,
        path: Vec<ast::JsonStep>,
        cast: Option<String>,
        output: String,
        aggregate: Option<Aggregation>,
    },
    /// The embed at this index of [`Node::embeds`].
    Embed(usize),
    /// `count()`: the number of the node's rows (of each group), or
    /// `rel(count)`, PostgREST's form from before aggregates (`legacy`), which
    /// needs no `db-aggregates-enabled`.
    Count { output: String, cast: Option<String>, legacy: bool },
}

/// An aggregate function over an item, and the cast of its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregation {
    pub function: ast::Aggregate,
    pub cast: Option<String>,
}

impl Item {
    /// Whether the item is an aggregate, which the node's other outputs are
    /// grouped by (PostgREST's automatic `GROUP BY`). `rel(count)`, the form
    /// from before aggregates, groups nothing: beside a column it is
    /// PostgreSQL's 42803, as in PostgREST.
    pub fn is_aggregate(&self) -> bool {
        matches!(self, Item::Column { aggregate: Some(_), .. } | Item::Count { legacy: false, .. })
    }
}

impl Node<'_> {
    /// Whether the node's rows are grouped: it aggregates, or a to-one spread
    /// of it does (a spread's aggregates apply at its parent, PostgREST's
    /// hoisting).
    pub fn is_aggregated(&self) -> bool {
        self.items.iter().any(|item| match item {
            Item::Embed(i) => {
                let embed = &self.embeds[*i];
                embed.spread && embed.is_to_one() && embed.node.is_aggregated()
            }
            item => item.is_aggregate(),
        })
    }

    /// Whether any node of the tree uses an aggregate other than `rel(count)`,
    /// which `db-aggregates-enabled` gates.
    pub fn uses_aggregates(&self) -> bool {
        self.items.iter().any(|item| match item {
            Item::Column { aggregate, .. } => aggregate.is_some(),
            Item::Count { legacy, .. } => !legacy,
            Item::Embed(_) => false,
        }) || self.embeds.iter().any(|e| e.node.uses_aggregates())
    }

    /// The keys of the node's objects in order, spreads' keys in their place
    /// (the CSV header).
    pub fn output_names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        for item in &self.items {
            match item {
                Item::Column { output, .. } | Item::Count { output, .. } => names.push(output.as_str()),
                Item::Embed(i) if self.embeds[*i].spread => names.extend(self.embeds[*i].node.output_names()),
                Item::Embed(i) => names.push(self.embeds[*i].output.as_str()),
            }
        }
        names
    }
}

#[derive(Debug, Clone)]
pub struct EmbedNode<'a> {
    pub relationship: &'a Relationship,
    /// The key the embed takes in its parent's object.
    pub output: String,
    /// The name of PostgREST's join of the embed, `<parent>_<key>_<depth>`
    /// (`addRels`'s `aggAlias`), which PostgreSQL's errors name.
    pub join: String,
    /// `...rel(cols)`: the embed's outputs go into the parent object.
    pub spread: bool,
    /// `!inner`: parents without a matching row are left out.
    pub inner: bool,
    pub node: Node<'a>,
}

impl EmbedNode<'_> {
    pub fn is_to_one(&self) -> bool {
        self.relationship.is_to_one()
    }
}

/// A condition on a node's rows.
#[derive(Debug, Clone)]
pub enum Condition {
    Filter {
        field: FieldRef,
        path: Vec<ast::JsonStep>,
        negated: bool,
        operation: ast::Operation,
    },
    Logic {
        negated: bool,
        op: ast::LogicOp,
        children: Vec<Condition>,
    },
    /// A matching row of the embed at this index exists (`!inner`,
    /// `rel=not.is.null`) or does not (`rel=is.null`).
    Related {
        embed: usize,
        exists: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Order {
    /// A to-one embed (by index) whose column orders the rows: `order=brands(name)`.
    pub embed: Option<usize>,
    pub field: FieldRef,
    pub path: Vec<ast::JsonStep>,
    pub direction: Option<OrderDirection>,
    pub nulls: Option<ast::NullsOrder>,
}

/// PostgREST 13's PGRST205, with the table of the schema named most like
/// it when one is close (`tableNotFoundHint`: a score of 0.75, and only in
/// schemas of fewer than 500 tables and views).
pub fn table_not_found(cache: &SchemaCache, name: &QualifiedName) -> ApiError {
    const MAX_TABLES: usize = 500;
    let names: Vec<&str> =
        cache.tables.keys().filter(|t| t.schema == name.schema).map(|t| t.name.as_str()).collect();
    let closest = (names.len() < MAX_TABLES).then(|| fuzzy::best(&names, &name.name, 0.75)).flatten();
    ApiError::from(RestError {
        status: StatusCode::NOT_FOUND,
        code: "PGRST205",
        message: format!("Could not find the table '{name}' in the schema cache"),
        details: None,
        hint: closest.map(|table| format!("Perhaps you meant the table '{}.{table}'", name.schema)),
    })
}

/// PostgreSQL's own message, which PostgREST passes through, with its hint.
/// `alias` is the name PostgREST's statement reads the table by, which
/// PostgreSQL's message uses: see [`Node::alias`].
pub fn column_not_found(table: &Table, alias: &str, column: &str) -> ApiError {
    column_not_found_among(table, None, alias, column)
}

/// [`column_not_found`] when PostgreSQL sees only the `visible` columns.
fn column_not_found_among(
    table: &Table,
    visible: Option<&BTreeSet<String>>,
    alias: &str,
    column: &str,
) -> ApiError {
    let hint = similar_columns(table, visible, column);
    let hint = match hint.as_slice() {
        [one] => Some(format!("Perhaps you meant to reference the column \"{alias}.{one}\".")),
        [one, two] => Some(format!(
            "Perhaps you meant to reference the column \"{alias}.{one}\" or the column \"{alias}.{two}\"."
        )),
        _ => None,
    };
    ApiError::Database(gateway_core::error::DbError {
        code: "42703".to_owned(),
        message: format!("column {alias}.{column} does not exist"),
        details: None,
        hint,
        role: gateway_core::role::Role::Authenticated,
    })
}

/// The columns PostgreSQL suggests for a misspelt one (`errorMissingColumn`
/// and `updateFuzzyAttrMatchState` in `src/backend/parser/parse_relation.c`):
/// the closest by Levenshtein distance, at most 3 and at most half the typed
/// name's length; one, or two at the same distance, or none when more tie.
fn similar_columns<'a>(table: &'a Table, visible: Option<&BTreeSet<String>>, typed: &str) -> Vec<&'a str> {
    const MAX_DISTANCE: usize = 3;
    let typed_len = typed.chars().count();
    let mut best = MAX_DISTANCE + 1;
    let mut found: Vec<&str> = Vec::new();
    // PostgreSQL keeps scanning after a three-way tie, but only a closer
    // column can then be suggested.
    let mut crowded = false;
    for column in table.columns.iter().filter(|c| visible.is_none_or(|v| v.contains(&c.name))) {
        let distance = fuzzy::levenshtein(&column.name, typed);
        if distance > typed_len / 2 {
            continue;
        }
        if distance < best {
            best = distance;
            found = vec![&column.name];
            crowded = false;
        } else if distance == best && !crowded {
            if found.len() == 1 {
                found.push(&column.name);
            } else {
                found.clear();
                crowded = true;
            }
        }
    }
    found
}

fn rest(status: StatusCode, code: &'static str, message: String) -> RestError {
    RestError { status, code, message, details: None, hint: None }
}

/// Plans a read of `table` in `schema`.
pub fn read<'a>(
    cache: &'a SchemaCache,
    schema: &str,
    table: &str,
    query: &QueryParams,
) -> Result<Node<'a>, ApiError> {
    read_of(cache, find_table(cache, schema, table)?, query)
}

/// Plans a read of `table`, which may be the row type of a function's
/// result rather than a table of the cache (see [`Function::result_table`]).
pub fn read_of<'a>(
    cache: &'a SchemaCache,
    table: &'a Table,
    query: &QueryParams,
) -> Result<Node<'a>, ApiError> {
    plan_top(cache, table, query, None)
}

/// Plans the reading of a function's rows, of type `row_type`. PostgREST
/// selects them in its call (`select pgrst_call.<column> from f(...)
/// pgrst_call`), then filters and orders them as `<row_type>` (`record`
/// for `returns table`), so PostgreSQL's errors name an unknown column one
/// way or the other, and suggest only columns the call kept.
pub fn read_call<'a>(
    cache: &'a SchemaCache,
    table: &'a Table,
    query: &QueryParams,
    row_type: &str,
) -> Result<Node<'a>, ApiError> {
    plan_top(cache, table, query, Some(row_type))
}

fn plan_top<'a>(
    cache: &'a SchemaCache,
    table: &'a Table,
    query: &QueryParams,
    row_type: Option<&str>,
) -> Result<Node<'a>, ApiError> {
    let mut walk =
        Walk { query, routing: route(query), used: BTreeSet::new(), row_type: row_type.map(str::to_owned) };
    if let Some(name) = &walk.routing.missing {
        return Err(not_embedded(name));
    }
    let alias = if row_type.is_some() { "pgrst_call".to_owned() } else { table.name.name.clone() };
    let node = plan_node(cache, table, alias, &query.select, &mut walk, &mut Vec::new())?;
    check_all_paths_used(query, &walk.used)?;
    check_embeds_named_once(&node)?;
    Ok(node)
}

/// The columns of a function's rows that PostgREST's call keeps
/// (`inferColsEmbedNeeds` and `getFilterFieldNames` in `Plan.hs`): those
/// selected, the embeds' foreign key columns and every filtered name; all
/// of them (`None`) for `*` or a computed relationship.
fn call_columns(node: &Node<'_>, query: &QueryParams) -> Option<BTreeSet<String>> {
    if query.select.is_empty()
        || query.select.iter().any(|item| matches!(item, SelectItem::Star))
        || node.embeds.iter().any(|e| e.relationship.function.is_some())
    {
        return None;
    }
    fn filtered(tree: &ast::LogicTree, names: &mut BTreeSet<String>) {
        match tree {
            ast::LogicTree::Filter(filter) => {
                names.insert(filter.field.name.clone());
            }
            ast::LogicTree::Group { children, .. } => children.iter().for_each(|c| filtered(c, names)),
        }
    }
    let mut names: BTreeSet<String> = query
        .select
        .iter()
        .filter_map(|item| match item {
            SelectItem::Column(c) => Some(c.field.name.clone()),
            _ => None,
        })
        .collect();
    names.extend(node.embeds.iter().flat_map(|e| e.relationship.columns.iter().cloned()));
    for params in std::iter::once(&query.root).chain(query.embedded.values()) {
        names.extend(params.filters.iter().map(|f| f.field.name.clone()));
        params.logic.iter().for_each(|tree| filtered(tree, &mut names));
    }
    Some(names)
}

/// A function of the request's schema returning another schema's rows
/// (`api.f() returns setof public.t`) embeds nothing: PostgREST looks for
/// its rows' relationships in the request's schema, where they are not,
/// and answers the first embed's PGRST200 (as PostgREST 12.0.2 answered the
/// differential run).
pub fn check_embeds_in_schema(table: &Table, schema: &str, query: &QueryParams) -> Result<(), ApiError> {
    if table.name.schema == schema {
        return Ok(());
    }
    let Some(embed) = query.select.iter().find_map(|item| match item {
        ast::SelectItem::Embed(embed) => Some(embed),
        _ => None,
    }) else {
        return Ok(());
    };
    let (name, from) = (&embed.relation, &table.name.name);
    let details = match &embed.hint {
        Some(hint) => format!(
            "Searched for a foreign key relationship between '{from}' and '{name}' using the hint '{hint}' in the schema '{schema}', but no matches were found."
        ),
        None => format!(
            "Searched for a foreign key relationship between '{from}' and '{name}' in the schema '{schema}', but no matches were found."
        ),
    };
    Err(ApiError::from(RestError {
        details: Some(json!(details)),
        ..rest(
            StatusCode::BAD_REQUEST,
            "PGRST200",
            format!("Could not find a relationship between '{from}' and '{name}' in the schema cache"),
        )
    }))
}

/// Two embeds of one object under one name (`rel!a(..),rel!b(..)`, without
/// aliases) would give it the same key twice. PostgREST's statement then
/// names both joins alike (`<parent>_<name>_<depth>`), which PostgreSQL
/// refuses when the statement runs, after everything else was checked:
/// 400 42712, as here.
fn check_embeds_named_once(node: &Node<'_>) -> Result<(), ApiError> {
    for (i, embed) in node.embeds.iter().enumerate() {
        if node.embeds[..i].iter().any(|e| e.output == embed.output) {
            return Err(ApiError::Database(gateway_core::error::DbError {
                code: "42712".to_owned(),
                message: format!("table name \"{}\" specified more than once", embed.join),
                details: None,
                hint: None,
                role: gateway_core::role::Role::Authenticated,
            }));
        }
    }
    node.embeds.iter().try_for_each(|e| check_embeds_named_once(&e.node))
}

pub fn find_table<'a>(cache: &'a SchemaCache, schema: &str, table: &str) -> Result<&'a Table, ApiError> {
    cache.table(schema, table).ok_or_else(|| table_not_found(cache, &QualifiedName::new(schema, table)))
}

/// Parameters for an embed that `select` does not embed are an error
/// (PostgREST's PGRST108).
fn check_all_paths_used(query: &QueryParams, used: &BTreeSet<EmbedPath>) -> Result<(), ApiError> {
    if let Some(path) = query.embedded.keys().find(|path| !used.contains(*path)) {
        return Err(not_embedded(&path.join(".")));
    }
    Ok(())
}

/// PGRST108 for `name`, a parameter's step that reached no embed.
fn not_embedded(name: &str) -> ApiError {
    ApiError::from(RestError {
        hint: Some(format!("Verify that '{name}' is included in the 'select' query parameter.")),
        ..rest(
            StatusCode::BAD_REQUEST,
            "PGRST108",
            format!("'{name}' is not an embedded resource in this request"),
        )
    })
}

fn plan_node<'a>(
    cache: &'a SchemaCache,
    table: &'a Table,
    alias: String,
    select: &[SelectItem],
    walk: &mut Walk<'_>,
    path: &mut EmbedPath,
) -> Result<Node<'a>, ApiError> {
    let mut node = Node {
        table,
        alias,
        visible: None,
        items: Vec::new(),
        embeds: Vec::new(),
        conditions: Vec::new(),
        order: Vec::new(),
        limit: None,
        offset: None,
    };
    // `select=` sent empty means every column, as a missing one does.
    let star = [SelectItem::Star];
    let select = if select.is_empty() { &star[..] } else { select };
    for item in select {
        match item {
            SelectItem::Star => {
                for column in &table.columns {
                    node.items.push(Item::Column {
                        field: FieldRef::Column(column.name.clone()),
                        path: Vec::new(),
                        cast: None,
                        output: column.name.clone(),
                        aggregate: None,
                    });
                }
            }
            // `rel(count)`: the embed's row count, PostgREST's form from before
            // aggregates (it needs no `db-aggregates-enabled`).
            SelectItem::Column(c)
                if !path.is_empty()
                    && c.field.name == "count"
                    && c.field.json_path.is_empty()
                    && c.aggregate.is_none()
                    && table.column("count").is_none() =>
            {
                node.items.push(Item::Count {
                    output: c.alias.clone().unwrap_or_else(|| "count".to_owned()),
                    cast: c.cast.clone(),
                    legacy: true,
                });
            }
            SelectItem::Column(c) => {
                let field = find_field(cache, table, &node.alias, &c.field.name)?;
                // An aggregate is named after its function (`sum`), PostgREST's
                // default key, unless aliased.
                let output = match (&c.alias, c.aggregate) {
                    (Some(alias), _) => alias.clone(),
                    (None, Some(function)) => function.name().to_owned(),
                    (None, None) => output_name(&c.field),
                };
                node.items.push(Item::Column {
                    field,
                    path: c.field.json_path.clone(),
                    cast: c.cast.clone(),
                    output,
                    aggregate: c
                        .aggregate
                        .map(|function| Aggregation { function, cast: c.aggregate_cast.clone() }),
                });
            }
            SelectItem::Count { alias, cast } => node.items.push(Item::Count {
                output: alias.clone().unwrap_or_else(|| "count".to_owned()),
                cast: cast.clone(),
                legacy: false,
            }),
            SelectItem::Embed(embed) => {
                let relationship = resolve(cache, table, embed)?;
                let output = embed.alias.clone().unwrap_or_else(|| embed.relation.clone());
                let target = cache
                    .tables
                    .get(&relationship.target)
                    .ok_or_else(|| table_not_found(cache, &relationship.target))?;
                path.push(output.clone());
                // PostgREST reads an embedded table as `<table>_<depth>`, but a
                // many-to-many's by its name (`addRels`).
                let alias = if relationship.junction.is_some() {
                    target.name.name.clone()
                } else {
                    format!("{}_{}", target.name.name, path.len())
                };
                let child = plan_node(cache, target, alias, &embed.children, walk, path)?;
                path.pop();
                let index = node.embeds.len();
                node.embeds.push(EmbedNode {
                    relationship,
                    join: format!("{}_{}_{}", table.name.name, output, path.len() + 1),
                    output,
                    spread: embed.spread,
                    inner: embed.join == Some(JoinType::Inner),
                    node: child,
                });
                if embed.join == Some(JoinType::Inner) {
                    node.conditions.push(Condition::Related { embed: index, exists: true });
                }
                // `rel()` selects nothing but still filters.
                if !embed.children.is_empty() {
                    node.items.push(Item::Embed(index));
                }
            }
        }
    }
    put_embeds_last(&mut node, walk.routing.embed_order.get(path.as_slice()));
    if path.is_empty()
        && let Some(row_type) = &walk.row_type
    {
        node.alias = row_type.clone();
        node.visible = call_columns(&node, walk.query);
    }
    let merged;
    let params = if path.is_empty() {
        &walk.query.root
    } else {
        walk.used.insert(path.clone());
        merged = embedded_params(walk, path);
        &merged
    };
    for filter in &params.filters {
        let condition = plan_filter(cache, &node, filter)?;
        node.conditions.push(condition);
    }
    for tree in &params.logic {
        let condition = plan_logic(cache, &node, tree)?;
        node.conditions.push(condition);
    }
    for term in &params.order {
        let order = plan_order(cache, &node, term)?;
        node.order.push(order);
    }
    node.limit = params.limit;
    node.offset = params.offset;
    Ok(node)
}

/// What planning carries down the tree: the query, where its embedded
/// parameters go, and which of them found their embed.
struct Walk<'q> {
    query: &'q QueryParams,
    routing: Routing,
    used: BTreeSet<EmbedPath>,
    /// Reading a function's rows: their type's name (see [`read_call`]).
    row_type: Option<String>,
}

/// Where PostgREST 12-14 apply embedded parameters, and in what order each
/// object's embeds come out.
///
/// PostgREST (`updateNode` in `Plan.hs`) applies them one by one: filters,
/// then orders, ranges and logic trees, each kind from the last parameter
/// to the first; each finds its embed, level by level, as the first child
/// whose relation or alias has the name, and moves it to the front of its
/// siblings. So with `seats:desks(id),desks(id)`, `desks.order=` may order
/// `seats`, and an embed with parameters comes out before the others (its
/// object's plain columns come first in any case). PostgREST 16 matches
/// aliases alone when `url-use-legacy-target-names` is off.
#[derive(Debug, Default)]
struct Routing {
    /// Each embedded parameter as applied: its kind, its key as sent, and the
    /// keys (outputs) of the embed it reached.
    applied: Vec<(ParamKind, EmbedPath, EmbedPath)>,
    /// The keys of an object's embeds, in output order, by the object's path.
    embed_order: HashMap<EmbedPath, Vec<String>>,
    /// The first name of a parameter's key that reached no embed, in the
    /// order they are applied: PostgREST stops there with PGRST108 naming
    /// it, before it resolves any relationship (`updateNode`). A key whose
    /// path `select` does have can miss too, when a parameter applied before
    /// it moved a namesake to the front (`seats:desks(id,x(id)),desks(id)`
    /// with `seats.id=eq.1&desks.x.id=eq.2`: `desks` is `seats` by then).
    missing: Option<String>,
}

/// An embed of `select` as routing sees it.
struct Routed<'q> {
    relation: &'q str,
    alias: Option<&'q str>,
    output: String,
    children: Vec<usize>,
}

fn route(query: &QueryParams) -> Routing {
    fn add<'q>(nodes: &mut Vec<Routed<'q>>, items: &'q [SelectItem]) -> Vec<usize> {
        let mut children = Vec::new();
        for item in items {
            if let SelectItem::Embed(e) = item {
                let grandchildren = add(nodes, &e.children);
                nodes.push(Routed {
                    relation: &e.relation,
                    alias: e.alias.as_deref(),
                    output: e.alias.clone().unwrap_or_else(|| e.relation.clone()),
                    children: grandchildren,
                });
                children.push(nodes.len() - 1);
            }
        }
        children
    }
    let mut nodes: Vec<Routed<'_>> = Vec::new();
    let top = add(&mut nodes, &query.select);
    nodes.push(Routed { relation: "", alias: None, output: String::new(), children: top });
    let root = nodes.len() - 1;

    let mut routing = Routing::default();
    for kind in [ParamKind::Filter, ParamKind::Order, ParamKind::Range, ParamKind::Logic] {
        for (_, key) in query.embedded_order.iter().rev().filter(|(k, _)| *k == kind) {
            let mut at = root;
            let mut outputs = Vec::with_capacity(key.len());
            let mut found = true;
            for name in key {
                let siblings = &nodes[at].children;
                let Some(position) = siblings
                    .iter()
                    .position(|&c| nodes[c].relation == name || nodes[c].alias == Some(name.as_str()))
                else {
                    found = false;
                    routing.missing.get_or_insert_with(|| name.clone());
                    break;
                };
                let child = siblings[position];
                let siblings = &mut nodes[at].children;
                siblings.remove(position);
                siblings.insert(0, child);
                outputs.push(nodes[child].output.clone());
                at = child;
            }
            if found {
                routing.applied.push((kind, key.clone(), outputs));
            }
        }
    }
    fn orders(
        nodes: &[Routed<'_>],
        at: usize,
        path: &mut EmbedPath,
        out: &mut HashMap<EmbedPath, Vec<String>>,
    ) {
        out.insert(path.clone(), nodes[at].children.iter().map(|&c| nodes[c].output.clone()).collect());
        for &child in &nodes[at].children {
            path.push(nodes[child].output.clone());
            orders(nodes, child, path, out);
            path.pop();
        }
    }
    orders(&nodes, root, &mut Vec::new(), &mut routing.embed_order);
    routing
}

/// The parameters [`route`] sent to the embed at `path`, applied in its
/// order: filters and logic trees add up, an order or a range replaces the
/// one before (PostgREST's `addOrderToNode`, `addRangeToNode`).
fn embedded_params(walk: &mut Walk<'_>, path: &[String]) -> NodeParams {
    let mut params = NodeParams::default();
    let mut added: Vec<(ParamKind, &EmbedPath)> = Vec::new();
    for (kind, key, _) in walk.routing.applied.iter().filter(|(_, _, target)| target.as_slice() == path) {
        walk.used.insert(key.clone());
        let Some(sent) = walk.query.embedded.get(key) else { continue };
        match kind {
            // A key's filters (or trees, or range) all at once, the first time
            // it reaches here.
            ParamKind::Filter | ParamKind::Logic if added.contains(&(*kind, key)) => {}
            ParamKind::Filter => params.filters.extend(sent.filters.iter().cloned()),
            ParamKind::Logic => params.logic.extend(sent.logic.iter().cloned()),
            ParamKind::Order => params.order = sent.order.clone(),
            // A range is one unit, limit and offset: PostgREST keeps
            // ranges in a hash map by path, whose order this follows only
            // as far as the query string's.
            ParamKind::Range if added.contains(&(*kind, key)) => {}
            ParamKind::Range => {
                params.limit = sent.limit;
                params.offset = sent.offset;
            }
        }
        added.push((*kind, key));
    }
    params
}

/// PostgREST's output order: the object's own columns, counts and
/// aggregates first, in `select`'s order, then its embeds (spreads too) in
/// `order`, the order [`route`] left them in.
fn put_embeds_last(node: &mut Node<'_>, order: Option<&Vec<String>>) {
    let (mut items, embeds): (Vec<Item>, Vec<Item>) =
        std::mem::take(&mut node.items).into_iter().partition(|item| !matches!(item, Item::Embed(_)));
    let mut embeds: Vec<Option<Item>> = embeds.into_iter().map(Some).collect();
    for output in order.into_iter().flatten() {
        let slot = embeds
            .iter_mut()
            .find(|slot| matches!(slot, Some(Item::Embed(i)) if node.embeds[*i].output == *output));
        if let Some(item) = slot.and_then(Option::take) {
            items.push(item);
        }
    }
    items.extend(embeds.into_iter().flatten());
    node.items = items;
}

/// PostgREST's answer to an aggregate when `db-aggregates-enabled` is off.
pub fn aggregates_disabled() -> ApiError {
    ApiError::from(rest(
        StatusCode::BAD_REQUEST,
        "PGRST123",
        "Use of aggregate functions is not allowed".to_owned(),
    ))
}

/// The key a selected field gets: the last JSON key, else the column's name
/// (PostgREST `fldNm`).
fn output_name(field: &Field) -> String {
    match field.json_path.last() {
        Some(ast::JsonStep { key: ast::JsonKey::Key(key), .. }) => key.clone(),
        Some(ast::JsonStep { key: ast::JsonKey::Index(_), .. }) => {
            // PostgREST names an index step after the previous key or the column.
            field
                .json_path
                .iter()
                .rev()
                .find_map(|step| match &step.key {
                    ast::JsonKey::Key(key) => Some(key.clone()),
                    ast::JsonKey::Index(_) => None,
                })
                .unwrap_or_else(|| field.name.clone())
        }
        None => field.name.clone(),
    }
}

fn find_column<'a>(table: &'a Table, name: &str) -> Result<&'a Column, ApiError> {
    table.column(name).ok_or_else(|| column_not_found(table, &table.name.name, name))
}

/// A column, else a computed field of that name; a column wins, as in
/// PostgreSQL's `row.name`, which PostgREST writes for both.
fn find_field(cache: &SchemaCache, table: &Table, alias: &str, name: &str) -> Result<FieldRef, ApiError> {
    find_field_among(cache, table, None, alias, name)
}

fn find_field_among(
    cache: &SchemaCache,
    table: &Table,
    visible: Option<&BTreeSet<String>>,
    alias: &str,
    name: &str,
) -> Result<FieldRef, ApiError> {
    if let Some(column) = table.column(name) {
        return Ok(FieldRef::Column(column.name.clone()));
    }
    match cache.computed_field(&table.name, name) {
        Some(function) => {
            Ok(FieldRef::Computed { function: function.name.clone(), table: table.name.clone() })
        }
        None => Err(column_not_found_among(table, visible, alias, name)),
    }
}

/// [`find_field`] for a filter or an order, which compare values: a computed
/// relationship (a function of the row returning rows, or a set) is not one.
/// PostgreSQL would refuse it only as it runs, with 0A000 ("set-returning
/// functions are not allowed in WHERE", "input of anonymous composite types
/// is not implemented"), a 501; it is the client's mistake, as an unknown
/// column is.
fn find_comparable(
    cache: &SchemaCache,
    table: &Table,
    visible: Option<&BTreeSet<String>>,
    alias: &str,
    name: &str,
) -> Result<FieldRef, ApiError> {
    if table.column(name).is_none()
        && cache.computed_field(&table.name, name).is_some_and(|f| f.returns_set || f.returns_rows)
    {
        return Err(column_not_found_among(table, visible, alias, name));
    }
    find_field_among(cache, table, visible, alias, name)
}

fn plan_filter(cache: &SchemaCache, node: &Node<'_>, filter: &ast::Filter) -> Result<Condition, ApiError> {
    // `rel=is.null` on an embedded resource tests for the absence of a match.
    if let Some(is_null) = filter.null_test()
        && let Some(index) = node.embeds.iter().position(|e| e.output == filter.field.name)
    {
        let exists = !is_null;
        return Ok(Condition::Related { embed: index, exists });
    }
    Ok(Condition::Filter {
        field: find_comparable(cache, node.table, node.visible.as_ref(), &node.alias, &filter.field.name)?,
        path: filter.field.json_path.clone(),
        negated: filter.negated,
        operation: filter.operation.clone(),
    })
}

fn plan_logic(cache: &SchemaCache, node: &Node<'_>, tree: &ast::LogicTree) -> Result<Condition, ApiError> {
    match tree {
        ast::LogicTree::Filter(filter) => plan_filter(cache, node, filter),
        ast::LogicTree::Group { negated, op, children } => Ok(Condition::Logic {
            negated: *negated,
            op: *op,
            children: children.iter().map(|c| plan_logic(cache, node, c)).collect::<Result<_, _>>()?,
        }),
    }
}

fn plan_order(cache: &SchemaCache, node: &Node<'_>, term: &ast::OrderTerm) -> Result<Order, ApiError> {
    let (embed, field) = match &term.relation {
        None => {
            (None, find_comparable(cache, node.table, node.visible.as_ref(), &node.alias, &term.field.name)?)
        }
        Some(relation) => {
            let index = node.embeds.iter().position(|e| &e.output == relation).ok_or_else(|| {
                ApiError::from(RestError {
                    hint: Some(format!(
                        "Verify that '{relation}' is included in the 'select' query parameter."
                    )),
                    ..rest(
                        StatusCode::BAD_REQUEST,
                        "PGRST108",
                        format!("'{relation}' is not an embedded resource in this request"),
                    )
                })
            })?;
            let embed = &node.embeds[index];
            if !embed.is_to_one() {
                return Err(ApiError::from(RestError {
                    details: Some(json!(format!(
                        "'{}' and '{}' do not form a many-to-one or one-to-one relationship",
                        node.table.name.name, embed.relationship.target.name
                    ))),
                    ..rest(
                        StatusCode::BAD_REQUEST,
                        "PGRST118",
                        format!("A related order on '{relation}' is not possible"),
                    )
                }));
            }
            // PostgREST orders by the column of the embed's join.
            (Some(index), find_comparable(cache, embed.node.table, None, &embed.join, &term.field.name)?)
        }
    };
    Ok(Order {
        embed,
        field,
        path: term.field.json_path.clone(),
        direction: term.direction,
        nulls: term.nulls,
    })
}

/// The one relationship an embed means, chosen as PostgREST's `findRel`
/// (`src/PostgREST/Plan.hs`) chooses it:
/// - a computed relationship matches by its function's name, hint or not;
/// - in a self relationship, without a hint the table's name means the
///   one-to-many side and a foreign-key column the many-to-one side; with a
///   hint, only the one-to-many side whose referenced column is the hint
///   (so a self many-to-many is never chosen, a PostgREST 12 limitation);
/// - otherwise, without a hint the target table's name, or (not for views) a
///   constraint or a single foreign-key column of the current table; with a
///   hint, the target's name plus a hint naming the constraint, a single
///   column of either side, or a many-to-many's junction table.
fn resolve<'a>(
    cache: &'a SchemaCache,
    table: &'a Table,
    embed: &ast::Embed,
) -> Result<&'a Relationship, ApiError> {
    let name = &embed.relation;
    let hint = embed.hint.as_deref();
    let mut candidates: Vec<&Relationship> =
        cache.relationships_from(&table.name).filter(|r| matches(cache, r, name, hint)).collect();
    // PostgREST lists candidates in the order of its `Relationship` type.
    candidates.sort_by_cached_key(|r| sort_key(r));
    match candidates.as_slice() {
        [one] => Ok(one),
        [] => {
            let details = match &embed.hint {
                Some(hint) => format!(
                    "Searched for a foreign key relationship between '{}' and '{name}' using the hint '{hint}' in the schema '{}', but no matches were found.",
                    table.name.name, table.name.schema
                ),
                None => format!(
                    "Searched for a foreign key relationship between '{}' and '{name}' in the schema '{}', but no matches were found.",
                    table.name.name, table.name.schema
                ),
            };
            Err(ApiError::from(RestError {
                details: Some(json!(details)),
                hint: no_relationship_hint(cache, table, name),
                ..rest(
                    StatusCode::BAD_REQUEST,
                    "PGRST200",
                    format!(
                        "Could not find a relationship between '{}' and '{name}' in the schema cache",
                        table.name.name
                    ),
                )
            }))
        }
        many => {
            let details: Vec<_> = many.iter().map(|r| describe(table, r)).collect();
            // A many-to-many is disambiguated by its junction's name.
            let options: Vec<String> = many
                .iter()
                .map(|r| {
                    let by = r.junction.as_ref().map_or(&r.constraint, |j| &j.table.name);
                    format!("'{}!{by}'", r.target.name)
                })
                .collect();
            Err(ApiError::from(RestError {
                status: StatusCode::MULTIPLE_CHOICES,
                code: "PGRST201",
                message: format!(
                    "Could not embed because more than one relationship was found for '{}' and '{name}'",
                    table.name.name
                ),
                details: Some(json!(details)),
                hint: Some(format!(
                    "Try changing '{name}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                    options.join(", ")
                )),
            }))
        }
    }
}

/// PostgREST's `noRelBetweenHint`: when the table has relationships, the
/// related table named most like the embed (unless one has its very name);
/// else the table with relationships in the schema named most like this one.
fn no_relationship_hint(cache: &SchemaCache, table: &Table, name: &str) -> Option<String> {
    let mut children: Vec<&str> =
        cache.relationships_from(&table.name).map(|r| r.target.name.as_str()).collect();
    if !children.is_empty() {
        children.dedup();
        let (score, child) = *fuzzy::matches(&children, name, fuzzy::DEFAULT_MIN_SCORE).first()?;
        return (score < 1.0).then(|| format!("Perhaps you meant '{child}' instead of '{name}'."));
    }
    let mut parents: Vec<&str> = Vec::new();
    for r in cache.relationships.iter().filter(|r| r.source.schema == table.name.schema) {
        if !parents.contains(&r.source.name.as_str()) {
            parents.push(&r.source.name);
        }
    }
    let parent = fuzzy::best(&parents, &table.name.name, fuzzy::DEFAULT_MIN_SCORE)?;
    Some(format!("Perhaps you meant '{parent}' instead of '{}'.", table.name.name))
}

/// Whether `r` is what `name!hint` means (see [`resolve`]).
fn matches(cache: &SchemaCache, r: &Relationship, name: &str, hint: Option<&str>) -> bool {
    if let Some(function) = &r.function {
        return function.name == name;
    }
    let foreign_key = r.junction.is_none();
    let single = |columns: &[String], wanted: &str| foreign_key && columns.len() == 1 && columns[0] == wanted;
    let constraint = |wanted: &str| foreign_key && r.constraint == wanted;
    let junction = |wanted: &str| r.junction.as_ref().is_some_and(|j| j.table.name == wanted);
    let named = r.target.name == name;
    if r.is_self() {
        return match hint {
            None => {
                (named && r.cardinality == Cardinality::OneToMany)
                    || (single(&r.columns, name) && r.cardinality == Cardinality::ManyToOne)
            }
            Some(hint) => named && r.cardinality == Cardinality::OneToMany && single(&r.target_columns, hint),
        };
    }
    match hint {
        None => {
            let to_view = cache.tables.get(&r.target).is_some_and(|t| t.is_view);
            named || (!to_view && (constraint(name) || single(&r.columns, name)))
        }
        Some(hint) => {
            named
                && (constraint(hint)
                    || single(&r.columns, hint)
                    || single(&r.target_columns, hint)
                    || junction(hint))
        }
    }
}

/// The derived order of PostgREST's `Relationship`: target, self or not,
/// then cardinality (one-to-many, many-to-one, one-to-one, many-to-many) and
/// the constraint and columns (for a many-to-many, its junction's).
fn sort_key(r: &Relationship) -> (QualifiedName, bool, u8, Vec<String>) {
    let rank = match r.cardinality {
        Cardinality::OneToMany => 0,
        Cardinality::ManyToOne => 1,
        Cardinality::OneToOne => 2,
        Cardinality::ManyToMany => 3,
    };
    let rest = match &r.junction {
        Some(j) => {
            let mut key = vec![
                j.table.schema.clone(),
                j.table.name.clone(),
                j.constraint1.clone(),
                j.constraint2.clone(),
            ];
            for (a, b) in j.source_columns.iter().chain(&j.target_columns) {
                key.push(a.clone());
                key.push(b.clone());
            }
            key
        }
        None => {
            let mut key = vec![r.constraint.clone()];
            for (a, b) in r.columns.iter().zip(&r.target_columns) {
                key.push(a.clone());
                key.push(b.clone());
            }
            key
        }
    };
    (r.target.clone(), r.is_self(), rank, rest)
}

/// One entry of PGRST201's `details`, worded as PostgREST's `compressedRel`.
fn describe(table: &Table, r: &Relationship) -> serde_json::Value {
    let embedding = format!("{} with {}", table.name.name, r.target.name);
    match &r.junction {
        Some(j) => {
            let ours = |pairs: &[(String, String)]| {
                pairs.iter().map(|(_, c)| c.as_str()).collect::<Vec<_>>().join(", ")
            };
            json!({
                "cardinality": "many-to-many",
                "embedding": embedding,
                "relationship": format!(
                    "{} using {}({}) and {}({})",
                    j.table.name,
                    j.constraint1,
                    ours(&j.source_columns),
                    j.constraint2,
                    ours(&j.target_columns)
                ),
            })
        }
        None => json!({
            "cardinality": match r.cardinality {
                Cardinality::ManyToOne => "many-to-one",
                Cardinality::OneToMany => "one-to-many",
                Cardinality::OneToOne => "one-to-one",
                Cardinality::ManyToMany => "many-to-many",
            },
            "embedding": embedding,
            "relationship": format!(
                "{} using {}({}) and {}({})",
                r.constraint,
                r.source.name,
                r.columns.join(", "),
                r.target.name,
                r.target_columns.join(", ")
            ),
        }),
    }
}

/// A write's columns: those of `columns=`, else the keys of the body's first
/// object; each must exist (PGRST204).
pub fn write_columns<'a>(
    table: &'a Table,
    columns: Option<&[String]>,
    keys: &[String],
) -> Result<Vec<&'a Column>, ApiError> {
    let names = columns.unwrap_or(keys);
    let mut seen = BTreeSet::new();
    names
        .iter()
        .filter(|name| seen.insert(name.as_str()))
        .map(|name| {
            table.column(name).ok_or_else(|| {
                ApiError::from(rest(
                    StatusCode::BAD_REQUEST,
                    "PGRST204",
                    format!(
                        "Could not find the '{name}' column of '{}' in the schema cache",
                        table.name.name
                    ),
                ))
            })
        })
        .collect()
}

/// The rows of an insert's body (its text, already checked to be JSON):
/// one object (alone or in an array of one) whose values are all scalars is
/// bound value by value, which spares PostgreSQL parsing the JSON (S4 in
/// `bench/`: about 20 us of its 170 per insert); anything else goes as JSON
/// through `json_populate_record`, as PostgREST sends it. A value is bound
/// only where its text reads the same through the column's input function
/// as through `json_populate_record`: strings unescaped, numbers and booleans
/// as written, null as null; an object or array only into `json`/`jsonb`
/// (elsewhere `json_populate_record` converts it), a string never into them
/// (it becomes a JSON string there), and `missing=default` always as JSON
/// (its defaults are computed for every column, as PostgREST's are).
/// `single` says the body holds one row; any other is JSON without looking.
pub fn insert_rows(columns: &[&Column], missing_default: bool, body: &str, single: bool) -> sql::Rows {
    let json = || {
        let trimmed = body.trim_start();
        if trimmed.starts_with('[') { body.to_owned() } else { format!("[{body}]") }
    };
    if missing_default || columns.is_empty() || !single {
        return sql::Rows::Json(json());
    }
    match one_row(columns, body) {
        Some(values) => sql::Rows::One(values.into_iter().map(|value| value.map(Cow::into_owned)).collect()),
        None => sql::Rows::Json(json()),
    }
}

/// A one-row body's values when every column's binds as a parameter (see
/// [`insert_rows`]), in `columns`' order: what an insert planned before runs
/// with ([`crate::memo::PlannedInsert`]). `None` for anything else, a null
/// among them.
pub fn bound_values<'a>(columns: &[&Column], body: &'a str) -> Option<Vec<Cow<'a, str>>> {
    one_row(columns, body)?.into_iter().collect()
}

fn one_row<'a>(columns: &[&Column], body: &'a str) -> Option<Vec<Option<Cow<'a, str>>>> {
    // The flat reader's answer when it has one (`parse::body`), else serde_json's.
    let row = match crate::parse::flat_members(body) {
        Some(members) => Fields(members),
        None if body.trim_start().starts_with('[') => {
            let mut rows: Vec<Fields<'_>> = serde_json::from_str(body).ok()?;
            if rows.len() != 1 {
                return None;
            }
            rows.pop()?
        }
        None => serde_json::from_str(body).ok()?,
    };
    columns
        .iter()
        .map(|column| {
            let Some(text) = row.get(&column.name) else { return Some(None) };
            let is_json = matches!(column.data_type.as_str(), "json" | "jsonb");
            match text.as_bytes().first()? {
                b'n' => Some(None),
                // Without a backslash, a JSON string is its text between its quotes.
                b'"' if !is_json && !text.contains('\\') => {
                    Some(Some(Cow::Borrowed(text.get(1..text.len() - 1)?)))
                }
                b'"' if !is_json => {
                    let text: String = serde_json::from_str(text).ok()?;
                    // PostgreSQL refuses a NUL in text with another error
                    // than `json_populate_record`'s.
                    (!text.contains('\0')).then_some(Some(Cow::Owned(text)))
                }
                b'"' => None,
                b'{' | b'[' if !is_json => None,
                _ => Some(Some(Cow::Borrowed(text))),
            }
        })
        .collect()
}

/// An object's members as written, borrowed from the body: a row has a few
/// keys, found by comparing them rather than through a map built per
/// request. A key written with an escape fails to borrow, and the row goes
/// as JSON then.
struct Fields<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Fields<'a> {
    /// The value of `name` as written; the last one when a key repeats, as
    /// `json_populate_record` reads it.
    fn get(&self, name: &str) -> Option<&'a str> {
        self.0.iter().rev().find(|(key, _)| *key == name).map(|&(_, value)| value)
    }
}

impl<'de> serde::Deserialize<'de> for Fields<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some((key, value)) = map.next_entry::<&str, &serde_json::value::RawValue>()? {
                    members.push((key, value.get()));
                }
                Ok(Fields(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// `on_conflict=` columns, the primary key by default.
pub fn conflict_columns<'a>(
    table: &'a Table,
    on_conflict: Option<&[String]>,
) -> Result<Vec<&'a Column>, ApiError> {
    let names: Vec<String> = on_conflict.map(<[String]>::to_vec).unwrap_or_else(|| table.primary_key.clone());
    if names.is_empty() {
        return Err(ApiError::from(rest(
            StatusCode::BAD_REQUEST,
            "PGRST103",
            "An upsert needs a primary key or on_conflict columns".to_owned(),
        )));
    }
    names.iter().map(|n| find_column(table, n)).collect()
}

/// The function an RPC means, chosen as PostgREST 13/14's `findProc` chooses
/// it (`src/PostgREST/Plan.hs`), among the overloads of that name that an
/// RPC may call (PostgREST's schema cache keeps only functions whose
/// arguments are all named, or with one unnamed argument of type bytea,
/// json, jsonb, text or xml):
/// - a function matches the arguments sent (`names`) when it has no
///   arguments and none were sent, or when they are all its required
///   arguments plus any of those with defaults;
/// - failing that, a POSTed body goes whole to a function of a single
///   argument of its type (`whole_body`): json or jsonb for JSON, text for
///   `text/plain`, xml for `text/xml`, bytea for `application/octet-stream`
///   (`body` is `None` for a GET);
/// - none is 404 PGRST202 (with "Perhaps you meant ..." from the fuzzy
///   search), several 300 PGRST203.
pub fn find_function<'a>(
    cache: &'a SchemaCache,
    schema: &str,
    name: &str,
    names: &[String],
    body: Option<Payload>,
) -> Result<Resolved<'a>, ApiError> {
    let qualified = QualifiedName::new(schema, name);
    let overloads: Vec<&Function> =
        cache.functions.get(&qualified).into_iter().flatten().filter(|f| f.rpc_callable()).collect();
    let sent: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let raw = body.is_some_and(|b| b != Payload::Json);
    let matching: Vec<&Function> = overloads.iter().copied().filter(|f| takes(f, &sent, raw)).collect();
    let whole: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| !takes(f, &sent, raw))
        .filter(|f| matches!((f.arguments.as_slice(), body), ([a], Some(body)) if body.takes(&a.data_type)))
        .collect();
    match (matching.as_slice(), whole.as_slice()) {
        ([one], _) => Ok(Resolved { function: one, whole_body: false }),
        ([], [one]) => Ok(Resolved { function: one, whole_body: true }),
        ([], []) => Err(no_function(cache, &qualified, &sent, body, &overloads)),
        ([], many) | (many, _) => Err(ambiguous_function(many)),
    }
}

/// A function [`find_function`] chose, and whether it takes the body whole.
#[derive(Debug, Clone, Copy)]
pub struct Resolved<'a> {
    pub function: &'a Function,
    pub whole_body: bool,
}

/// PostgREST's `matchesParams`; a raw (text, xml, bytea) body is an
/// argument that a function without any cannot take.
fn takes(function: &Function, sent: &BTreeSet<&str>, raw: bool) -> bool {
    if function.arguments.is_empty() {
        return sent.is_empty() && !raw;
    }
    let required: BTreeSet<&str> =
        function.arguments.iter().filter(|a| !a.has_default).map(|a| a.name.as_str()).collect();
    let optional: BTreeSet<&str> =
        function.arguments.iter().filter(|a| a.has_default).map(|a| a.name.as_str()).collect();
    sent.difference(&optional).copied().collect::<BTreeSet<_>>() == required
}

/// PGRST202 in PostgREST 13/14's words.
fn no_function(
    cache: &SchemaCache,
    qualified: &QualifiedName,
    sent: &BTreeSet<&str>,
    body: Option<Payload>,
    overloads: &[&Function],
) -> ApiError {
    if let Some(raw @ (Payload::Text | Payload::Xml | Payload::Binary)) = body {
        return ApiError::from(RestError {
            details: Some(json!(format!(
                "Searched for the function {qualified} with a single unnamed {} parameter, but no matches were found in the schema cache.",
                raw.name()
            ))),
            ..rest(
                StatusCode::NOT_FOUND,
                "PGRST202",
                format!("Could not find the function {qualified} in the schema cache"),
            )
        });
    }
    let list = sent.iter().copied().collect::<Vec<_>>().join(", ");
    let (message, searched) = if sent.is_empty() {
        (
            format!("Could not find the function {qualified} without parameters in the schema cache"),
            " without parameters".to_owned(),
        )
    } else {
        let plural = if sent.len() > 1 { "s" } else { "" };
        (
            format!("Could not find the function {qualified}({list}) in the schema cache"),
            format!(" with parameter{plural} {list}"),
        )
    };
    let details = if body.is_some() {
        format!(
            "Searched for the function {qualified}{searched} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
        )
    } else {
        format!(
            "Searched for the function {qualified}{searched}, but no matches were found in the schema cache."
        )
    };
    // PostgREST's `noRpcHint`: another function of the schema named like
    // it (score 0.75), else the overload whose arguments read most like
    // those sent.
    let hint = if overloads.is_empty() {
        let mut callable: Vec<&str> = cache
            .functions
            .iter()
            .filter(|(name, functions)| {
                name.schema == qualified.schema && functions.iter().any(|f| f.rpc_callable())
            })
            .map(|(name, _)| name.name.as_str())
            .collect();
        callable.sort_unstable();
        fuzzy::best(&callable, &qualified.name, 0.75)
            .map(|name| format!("Perhaps you meant to call the function {}.{name}", qualified.schema))
    } else {
        let lists: Vec<String> = overloads
            .iter()
            .map(|f| {
                let mut names: Vec<&str> = f.arguments.iter().map(|a| a.name.as_str()).collect();
                names.sort_unstable();
                format!("({})", names.join(", "))
            })
            .collect();
        let lists: Vec<&str> = lists.iter().map(String::as_str).collect();
        fuzzy::best(&lists, &format!("({list})"), fuzzy::DEFAULT_MIN_SCORE)
            .map(|args| format!("Perhaps you meant to call the function {qualified}{args}"))
    };
    ApiError::from(RestError {
        details: Some(json!(details)),
        hint,
        ..rest(StatusCode::NOT_FOUND, "PGRST202", message)
    })
}

/// PGRST203: several overloads fit.
fn ambiguous_function(candidates: &[&Function]) -> ApiError {
    // PostgREST lists them in its schema cache's order, which no query
    // fixes; fewer arguments first, then the descriptions' order, agrees
    // with every answer of PostgREST's recorded in supabase-js's tests.
    let mut described: Vec<(usize, String)> = candidates
        .iter()
        .map(|f| {
            let arguments: Vec<String> =
                f.arguments.iter().map(|a| format!("{} => {}", a.name, a.data_type)).collect();
            (arguments.len(), format!("{}({})", f.name, arguments.join(", ")))
        })
        .collect();
    described.sort();
    let described: Vec<String> = described.into_iter().map(|(_, d)| d).collect();
    ApiError::from(RestError {
        status: StatusCode::MULTIPLE_CHOICES,
        code: "PGRST203",
        message: format!("Could not choose the best candidate function between: {}", described.join(", ")),
        details: None,
        hint: Some(
            "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
                .to_owned(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::super::schema::fixture::{catalog, row_function};
    use super::*;

    fn cache() -> SchemaCache {
        catalog(vec![
            row_function("full_name", "actors", None, true),
            row_function("filmography", "actors", Some("films"), false),
            row_function("latest_film", "actors", Some("films"), true),
        ])
    }

    /// One object of scalars is bound value by value, in the columns'
    /// order, with the text each column's input function would get from
    /// `json_populate_record`; every other body goes as JSON, as it came.
    #[test]
    fn an_insert_binds_one_row_of_scalars_and_sends_everything_else_as_json() {
        let column = |name: &str, data_type: &str| Column {
            name: name.to_owned(),
            data_type: data_type.to_owned(),
            nullable: true,
            default: None,
        };
        let (id, name, price, specs, tags) = (
            column("id", "bigint"),
            column("name", "text"),
            column("price", "numeric"),
            column("specs", "jsonb"),
            column("tags", "text[]"),
        );
        let one =
            |values: &[Option<&str>]| sql::Rows::One(values.iter().map(|v| v.map(str::to_owned)).collect());
        let json = |text: &str| sql::Rows::Json(text.to_owned());
        let cases: Vec<(&str, Vec<&Column>, bool, &str, sql::Rows)> = vec![
            (
                "strings unescaped, numbers with every digit",
                vec![&name, &price],
                false,
                r#"{"price": 1.50, "name": "a \"b\"\u00e9"}"#,
                one(&[Some("a \"b\"é"), Some("1.50")]),
            ),
            ("an array of one row", vec![&id], false, r#"[{"id": 7}]"#, one(&[Some("7")])),
            (
                "null and a missing key are null",
                vec![&id, &name],
                false,
                r#"{"id": null}"#,
                one(&[None, None]),
            ),
            ("booleans as written", vec![&name], false, r#"{"name": true}"#, one(&[Some("true")])),
            (
                "an object into jsonb as written",
                vec![&specs],
                false,
                r#"{"specs": {"b": 1e2, "a": [1]}}"#,
                one(&[Some(r#"{"b": 1e2, "a": [1]}"#)]),
            ),
            ("a string into jsonb", vec![&specs], false, r#"{"specs": "x"}"#, json(r#"[{"specs": "x"}]"#)),
            (
                "an array into an array column",
                vec![&tags],
                false,
                r#"{"tags": ["a"]}"#,
                json(r#"[{"tags": ["a"]}]"#),
            ),
            ("a string into an array column", vec![&tags], false, r#"{"tags": "{a}"}"#, one(&[Some("{a}")])),
            (
                "a NUL in a string",
                vec![&name],
                false,
                r#"{"name": "a\u0000"}"#,
                json(r#"[{"name": "a\u0000"}]"#),
            ),
            ("two rows", vec![&id], false, r#"[{"id": 1}, {"id": 2}]"#, json(r#"[{"id": 1}, {"id": 2}]"#)),
            ("missing=default", vec![&id], true, r#"{"id": 1}"#, json(r#"[{"id": 1}]"#)),
            ("a key written twice: the last", vec![&id], false, r#"{"id": 1, "id": 2}"#, one(&[Some("2")])),
            (
                "a key written with an escape",
                vec![&id],
                false,
                r#"{"\u0069d": 1}"#,
                json(r#"[{"\u0069d": 1}]"#),
            ),
            ("no columns", vec![], false, "{}", json("[{}]")),
        ];
        for (what, columns, missing_default, body, expected) in cases {
            let single = crate::parse::json_rows(body.as_bytes()).unwrap().rows == 1;
            assert_eq!(insert_rows(&columns, missing_default, body, single), expected, "{what}");
        }
    }

    fn plan<'a>(cache: &'a SchemaCache, table: &str, query: &str) -> Result<Node<'a>, ApiError> {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        let query = parse::parse_query(&pairs).expect("parses");
        read(cache, "public", table, &query)
    }

    fn rest_error(result: Result<Node<'_>, ApiError>) -> RestError {
        match result.as_ref().err().and_then(ApiError::as_service::<RestError>) {
            Some(rest) => rest.clone(),
            None => panic!("expected a PostgREST error, got {:?}", result.err()),
        }
    }

    /// The node's outputs in order, embeds by key.
    fn outputs(node: &Node<'_>) -> Vec<String> {
        node.output_names().into_iter().map(str::to_owned).collect()
    }

    fn ordered_by(node: &Node<'_>, embed: &str) -> Option<OrderDirection> {
        let e = node.embeds.iter().find(|e| e.output == embed)?;
        e.node.order.first().map(|o| o.direction.unwrap_or(OrderDirection::Asc))
    }

    #[test]
    fn embedded_parameters_go_where_postgrest_12_to_14_send_them() {
        let cache = cache();
        // (query, direction of `actors`, direction of `cast`, output order)
        let cases = [
            // Each by its own name.
            (
                "select=title,actors(id),cast:actors(id)&cast.order=id.desc",
                None,
                Some(OrderDirection::Desc),
                "title cast actors",
            ),
            // A relation's name reaches the first embed of that relation, in the
            // order the parameters before it (applied last to first) left them.
            (
                "select=title,cast:actors(id),actors(id)&actors.order=id.desc",
                None,
                Some(OrderDirection::Desc),
                "title cast actors",
            ),
            (
                "select=title,actors(id),cast:actors(id)&actors.order=id.desc&cast.order=id",
                None,
                Some(OrderDirection::Desc),
                "title cast actors",
            ),
            // Plain columns come first, then embeds, those with parameters first.
            ("select=actors(id),title,cast:actors(id),id&cast.limit=1", None, None, "title id cast actors"),
        ];
        for (query, actors, cast, order) in cases {
            let node = plan(&cache, "films", query).expect(query);
            assert_eq!(ordered_by(&node, "actors"), actors, "{query}");
            assert_eq!(ordered_by(&node, "cast"), cast, "{query}");
            assert_eq!(outputs(&node).join(" "), order, "{query}");
        }
        // A name that reaches nothing is PGRST108, naming the step that
        // missed: even a path that `select` has, once a parameter applied
        // before it (`cast.id`, the last) moved a namesake to the front.
        let cases = [
            (
                "select=title,cast:actors(id)&crew.order=id",
                "'crew' is not an embedded resource in this request",
            ),
            (
                "select=title,actors(id)&actors.crew.order=id",
                "'crew' is not an embedded resource in this request",
            ),
            (
                "select=title,actors(id,films(id)),cast:actors(id)&actors.films.id=eq.2&cast.id=eq.1",
                "'films' is not an embedded resource in this request",
            ),
        ];
        for (query, message) in cases {
            let error = rest_error(plan(&cache, "films", query));
            assert_eq!((error.code, error.message.as_str()), ("PGRST108", message), "{query}");
        }
        let query = "select=title,actors(id,films(id)),cast:actors(id)&cast.id=eq.1&actors.films.id=eq.2";
        assert!(plan(&cache, "films", query).is_ok(), "{query}");
    }

    #[test]
    fn a_many_to_many_embed_goes_through_its_junction() {
        let cache = cache();
        for query in ["select=title,actors(id)", "select=title,actors!films_actors(id)"] {
            let node = plan(&cache, "films", query).expect(query);
            let embed = &node.embeds[0];
            assert_eq!(embed.relationship.cardinality, Cardinality::ManyToMany, "{query}");
            assert!(!embed.is_to_one());
            assert_eq!(embed.node.table.name.name, "actors");
        }
    }

    #[test]
    fn a_foreign_key_name_does_not_pick_a_many_to_many() {
        // PostgREST 12 matches a many-to-many hint only against the junction.
        let e = rest_error(plan(&cache(), "films", "select=actors!films_actors_actor_id_fkey(id)"));
        assert_eq!((e.status, e.code), (StatusCode::BAD_REQUEST, "PGRST200"));
        let e = rest_error(plan(&cache(), "films", "select=actors!awards(id)"));
        assert_eq!(e.code, "PGRST200");
    }

    #[test]
    fn two_junctions_are_ambiguous_with_postgrests_details_and_hint() {
        let e = rest_error(plan(&cache(), "teams", "select=members(name)"));
        assert_eq!((e.status, e.code), (StatusCode::MULTIPLE_CHOICES, "PGRST201"));
        assert_eq!(
            e.details,
            Some(json!([
                {
                    "cardinality": "many-to-many",
                    "embedding": "teams with members",
                    "relationship": "team_leads using team_leads_team_id_fkey(team_id) and team_leads_member_id_fkey(member_id)"
                },
                {
                    "cardinality": "many-to-many",
                    "embedding": "teams with members",
                    "relationship": "team_members using team_members_team_id_fkey(team_id) and team_members_member_id_fkey(member_id)"
                }
            ]))
        );
        assert_eq!(
            e.hint.as_deref(),
            Some(
                "Try changing 'members' to one of the following: 'members!team_leads', 'members!team_members'. Find the desired relationship in the 'details' key."
            )
        );
        let cache = cache();
        let node = plan(&cache, "teams", "select=members!team_leads(name)").expect("hinted");
        assert_eq!(
            node.embeds[0].relationship.junction.as_ref().map(|j| j.table.name.as_str()),
            Some("team_leads")
        );
    }

    #[test]
    fn a_self_many_to_many_is_not_embedded_as_in_postgrest_12() {
        for query in ["select=people(name)", "select=people!friendships(name)"] {
            assert_eq!(rest_error(plan(&cache(), "people", query)).code, "PGRST200", "{query}");
        }
    }

    #[test]
    fn many_to_many_embeds_take_filters_order_limits_inner_and_spread_but_not_related_order() {
        let cache = cache();
        let node = plan(
            &cache,
            "films",
            "select=title,actors!inner(id)&actors.id=gt.1&actors.order=id.desc&actors.limit=2",
        )
        .expect("plans");
        let embed = &node.embeds[0];
        assert_eq!(embed.node.conditions.len(), 1);
        assert_eq!(embed.node.order.len(), 1);
        assert_eq!(embed.node.limit, Some(2));
        assert!(matches!(node.conditions[..], [Condition::Related { embed: 0, exists: true }]));
        // PostgREST 13 spreads to-many embeds (as arrays per column).
        let spread = plan(&cache, "films", "select=...actors(id)").expect("plans");
        assert!(spread.embeds[0].spread && !spread.embeds[0].is_to_one());
        let e = rest_error(plan(&cache, "films", "select=actors(id)&order=actors(id)"));
        assert_eq!(e.code, "PGRST118");
        assert_eq!(
            e.details,
            Some(json!("'films' and 'actors' do not form a many-to-one or one-to-one relationship"))
        );
    }

    #[test]
    fn a_name_that_is_no_column_may_be_a_computed_field() {
        let cache = cache();
        let node = plan(&cache, "actors", "select=id,name:full_name&full_name=eq.x&order=full_name.desc")
            .expect("plans");
        let computed = FieldRef::Computed {
            function: QualifiedName::new("public", "full_name"),
            table: QualifiedName::new("public", "actors"),
        };
        assert!(
            matches!(&node.items[1], Item::Column { field, output, .. } if *field == computed && output == "name")
        );
        assert!(matches!(&node.conditions[0], Condition::Filter { field, .. } if *field == computed));
        assert_eq!(node.order[0].field, computed);
        // Not a field of films, nor a column anywhere.
        for (table, query) in
            [("films", "select=full_name"), ("actors", "select=nope"), ("actors", "nope=eq.1")]
        {
            match plan(&cache, table, query) {
                Err(ApiError::Database(e)) => assert_eq!(e.code, "42703", "{query}"),
                other => panic!("{query}: {other:?}"),
            }
        }
    }

    #[test]
    fn computed_relationships_embed_by_function_name_whatever_the_hint() {
        let cache = cache();
        let node =
            plan(&cache, "actors", "select=filmography(title),latest_film!whatever(title)").expect("plans");
        assert!(!node.embeds[0].is_to_one());
        assert!(node.embeds[1].is_to_one());
        assert_eq!(
            node.embeds[1].relationship.function.as_ref().map(|f| f.name.as_str()),
            Some("latest_film")
        );
        assert_eq!(node.embeds[1].node.table.name.name, "films");
    }
}
