//! Plans to SQL: the only place the REST API writes SQL text.
//!
//! - Values are always bound parameters (`$n`), sent as text of unknown type so
//!   that PostgreSQL parses them for the column they meet, as PostgREST does.
//! - Identifiers come from the schema cache and go through [`quote_ident`]. The
//!   only unquoted names are casts, which the parser limits to
//!   `[A-Za-z0-9_ ]` and `[]`, and integers (limits, offsets, JSON indexes),
//!   which are parsed numbers.
//! - Shape (performance.md §4.6): the page is cut (filters, order, `LIMIT` and
//!   `OFFSET` as literals) before embeds are built for its rows only; an exact
//!   count is a separate subquery; JSON is built by PostgreSQL, so numbers and
//!   timestamps render exactly as PostgREST's.
//!
//! Every statement returns one row: `total` (the exact count, or null),
//! `page` (rows in the page), `body` (JSON text, or the rows as CSV lines) and
//! `extra` (the `Location` key of a created row, as JSON).
//!
//! A write whose answer depends on how many rows it touched ([`Bounds`])
//! records that count, and a check statement ([`Write::check`]) pipelined
//! behind it judges it before the transaction ends, so that it can commit in
//! the same round trip.

use std::fmt::Write as _;

use super::ast::{
    self, ArrayRangeOp, CompareOp, FtsOp, IsValue, JsonArrow, JsonKey, LogicOp, NullsOrder, OrderDirection,
    Quantifier,
};
use super::plan::{Condition, EmbedNode, FieldRef, Item, Node, Order, Resolved};
use super::request::Plan;
use super::schema::{Column, QualifiedName, Table};

/// SQL text and its parameters, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub text: String,
    pub params: Vec<String>,
}

pub use gateway_core::sql::{push_ident, quote_ident};

fn qualified(name: &QualifiedName) -> String {
    let mut sql = String::with_capacity(name.schema.len() + name.name.len() + 5);
    push_ident(&mut sql, &name.schema);
    sql.push('.');
    push_ident(&mut sql, &name.name);
    sql
}

/// Bounds on the rows a write (or call) may touch. Its statement records how
/// many it touched in the transaction-local setting [`ROWS_TOUCHED`], and
/// [`Write::check`] (`_gateway.check_rows_touched`,
/// `sql/004_rest_rows_check.sql`) runs behind it, before the transaction
/// ends: outside the bounds it fails with [`OUT_OF_BOUNDS`] and the count as
/// the error's detail, which aborts the transaction, so the COMMIT sent
/// behind it rolls the write back. The check is a statement of its own, not a
/// call inside the write's: PostgreSQL checks foreign keys (and runs the other
/// AFTER triggers) at the end of the write statement, and their errors must
/// come first, as in PostgREST, which counts after the statement. The bounds
/// are integers from the request, written as literals like limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub at_least: i64,
    pub at_most: i64,
}

/// The SQLSTATE of a check whose [`Bounds`] failed.
pub const OUT_OF_BOUNDS: &str = "GW001";

/// The setting in which a write with [`Bounds`] records the rows it touched
/// for its check.
pub const ROWS_TOUCHED: &str = "gateway.rows_touched";

/// What a write's (or call's) one row reports besides the rows themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The exact count in `total`.
    pub count: bool,
    /// How `body` is built.
    pub body: BodyKind,
    pub bounds: Option<Bounds>,
}

/// A write (or call), and the statement that checks the rows it touched when
/// it has [`Bounds`], to run right behind it in the same transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub statement: Statement,
    pub check: Option<Statement>,
}

impl Write {
    /// A statement that writes nothing, so has nothing to check.
    pub fn unchecked(statement: Statement) -> Self {
        Self { statement, check: None }
    }

    fn new(statement: Statement, bounds: Option<Bounds>) -> Self {
        let check = bounds.map(|Bounds { at_least, at_most }| Statement {
            text: format!("select _gateway.check_rows_touched({at_least}, {at_most})"),
            params: Vec::new(),
        });
        Self { statement, check }
    }
}

/// `page`, recorded in [`ROWS_TOUCHED`] when there are bounds to check.
fn page_count(count: &str, bounds: Option<Bounds>) -> String {
    match bounds {
        None => count.to_owned(),
        Some(_) => format!("pg_catalog.set_config('{ROWS_TOUCHED}', ({count})::text, true)::int8"),
    }
}

/// What the response body is built as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A JSON array of the rows.
    Array,
    /// A JSON array with null-valued keys left out (`nulls=stripped`).
    ArrayStripped,
    /// The first row as a JSON object (the caller checks there is exactly one).
    Object,
    /// [`BodyKind::Object`] without its null members.
    ObjectStripped,
    /// CSV lines of the rows, without the header.
    Csv,
    /// No body (HEAD, `return=minimal`).
    None,
}

struct Writer {
    params: Vec<String>,
    aliases: usize,
    /// Rendering the exact count: PostgREST's count ignores an `!inner`
    /// embed's own limit and offset.
    counting: bool,
}

impl Writer {
    fn new() -> Self {
        Self { params: Vec::new(), aliases: 0, counting: false }
    }

    fn param(&mut self, value: impl Into<String>) -> String {
        self.params.push(value.into());
        let mut placeholder = String::with_capacity(4);
        let _ = write!(placeholder, "${}", self.params.len());
        placeholder
    }

    /// An alias of the statement's own (a junction, a function call), which
    /// no node alias (a table's name) is likely to be.
    fn alias(&mut self) -> String {
        let mut alias = String::with_capacity(5);
        let _ = write!(alias, "_t{}", self.aliases);
        self.aliases += 1;
        alias
    }

    fn finish(self, text: String) -> Statement {
        Statement { text, params: self.params }
    }
}

/// A read of `node` (a table or view), at most `max_rows` rows at the top.
pub fn read(node: &Node<'_>, max_rows: Option<i64>, count: bool, body: BodyKind) -> Statement {
    let mut w = Writer::new();
    let alias = quote_ident(&node.alias);
    let relation = qualified(&node.table.name);
    let before_limit = joined_before_limit(node);
    let where_clause = conditions_sql(&mut w, node, &alias, &[], |c| !replaced_by_join(c, &before_limit));
    let total = if count {
        w.counting = true;
        let where_clause = where_sql(&mut w, node, &alias, &[]);
        w.counting = false;
        format!("(select pg_catalog.count(*) from {relation} as {alias}{where_clause})")
    } else {
        "null::int8".to_owned()
    };
    let page = page_sql(&mut w, node, &alias, &relation, &where_clause, &before_limit, max_rows);
    let text = format!(
        "select {total} as total, pg_catalog.count(*) as page, {} as body, null::text as extra from ({page}) as _r",
        body_sql(body)
    );
    w.finish(text)
}

/// `EXPLAIN` of a statement, as `Accept: application/vnd.pgrst.plan` asks
/// (PostgREST's `explainF`): its format, then its options in PostgREST's
/// order. The statement keeps its parameters.
pub fn explain(statement: &Statement, plan: Plan) -> Statement {
    let mut options = vec![if plan.json { "format json" } else { "format text" }];
    options.extend(plan.options.names());
    Statement {
        text: format!("explain ({}) {}", options.join(", "), statement.text),
        params: statement.params.clone(),
    }
}

/// `explain` of the rows a read would count, for `count=planned`.
pub fn planned_count(node: &Node<'_>) -> Statement {
    let mut w = Writer::new();
    let alias = quote_ident(&node.alias);
    let where_clause = where_sql(&mut w, node, &alias, &[]);
    let text = format!(
        "explain (format json) select 1 from {} as {alias}{where_clause}",
        qualified(&node.table.name)
    );
    w.finish(text)
}

/// The rows of one page, projected: `select <items> from (<filtered, ordered,
/// limited rows>) as alias`. Aggregated rows are grouped first, so the page
/// is cut from the groups: `select <items> from table ... group by ... limit`.
/// The embeds of `before_limit` are joined to the rows before the page is cut
/// ([`joined_before_limit`]); `where_clause` leaves out their `!inner` tests.
fn page_sql(
    w: &mut Writer,
    node: &Node<'_>,
    alias: &str,
    relation: &str,
    where_clause: &str,
    before_limit: &[usize],
    max_rows: Option<i64>,
) -> String {
    let limit = match (node.limit, max_rows) {
        (Some(limit), Some(max)) => Some(limit.min(max)),
        (limit, max) => limit.or(max),
    };
    if node.is_aggregated() {
        let projection = projection(w, node, alias, false);
        let order = order_sql(w, node, alias);
        let mut rows = format!(
            "select {} from {relation} as {alias}{}{where_clause}{}{order}",
            projection.list(),
            projection.joins,
            projection.group_by()
        );
        push_range(&mut rows, limit, node.offset);
        return rows;
    }
    let order = order_sql(w, node, alias);
    let mut rows = format!("select {alias}.*");
    let mut joins = String::new();
    for &index in before_limit {
        let (join, value) = joined_lateral(w, &node.embeds[index], alias, false);
        let _ = write!(rows, ", {value} as {}", quote_ident(&joined_column(index)));
        let _ = write!(joins, " inner join lateral {join} on true");
    }
    let _ = write!(rows, " from {relation} as {alias}{joins}{where_clause}{order}");
    push_range(&mut rows, limit, node.offset);
    // Joined to-one embeds may come back in another order (a hash join keyed
    // on the page's rows), so an ordered page is ordered again after them;
    // an unordered page keeps a subquery per row and its rows' order.
    let to_one = if node.order.is_empty() { ToOne::Subquery(before_limit) } else { ToOne::Joined };
    let projection = projection_with(w, node, alias, false, to_one);
    let mut page = format!("select {} from ({rows}) as {alias}{}", projection.list(), projection.joins);
    if projection.joined {
        page.push_str(&order_sql(w, node, alias));
    }
    page
}

fn push_range(sql: &mut String, limit: Option<i64>, offset: Option<i64>) {
    if let Some(limit) = limit {
        let _ = write!(sql, " limit {}", limit.max(0));
    }
    if let Some(offset) = offset.filter(|o| *o > 0) {
        let _ = write!(sql, " offset {offset}");
    }
}

fn body_sql(body: BodyKind) -> &'static str {
    match body {
        BodyKind::Array => "coalesce(pg_catalog.json_agg(_r), '[]')::text",
        BodyKind::ArrayStripped => {
            "coalesce(pg_catalog.json_strip_nulls(pg_catalog.json_agg(_r)), '[]')::text"
        }
        BodyKind::Object => "(pg_catalog.json_agg(_r) -> 0)::text",
        BodyKind::ObjectStripped => "pg_catalog.json_strip_nulls(pg_catalog.json_agg(_r) -> 0)::text",
        BodyKind::Csv => {
            "coalesce(pg_catalog.string_agg(substring(_r::text, 2, length(_r::text) - 2), chr(10)), '')"
        }
        BodyKind::None => "null::text",
    }
}

/// ` where a and b` (or nothing), for the node's own conditions plus `extra`.
fn where_sql(w: &mut Writer, node: &Node<'_>, alias: &str, extra: &[String]) -> String {
    conditions_sql(w, node, alias, extra, |_| true)
}

/// ` where ...` for the node's conditions that `keep` selects, plus `extra`.
fn conditions_sql(
    w: &mut Writer,
    node: &Node<'_>,
    alias: &str,
    extra: &[String],
    keep: impl Fn(&Condition) -> bool,
) -> String {
    let mut sql = String::new();
    let next = |sql: &mut String| sql.push_str(if sql.is_empty() { " where " } else { " and " });
    for part in extra {
        next(&mut sql);
        sql.push_str(part);
    }
    for condition in node.conditions.iter().filter(|c| keep(c)) {
        next(&mut sql);
        sql.push_str(&condition_sql(w, node, alias, condition));
    }
    sql
}

fn order_sql(w: &mut Writer, node: &Node<'_>, alias: &str) -> String {
    if node.order.is_empty() {
        return String::new();
    }
    let terms: Vec<String> = node.order.iter().map(|order| order_term(w, node, alias, order)).collect();
    format!(" order by {}", terms.join(", "))
}

fn order_term(w: &mut Writer, node: &Node<'_>, alias: &str, order: &Order) -> String {
    let mut sql = match order.embed {
        None => field_sql(w, alias, &order.field, &order.path),
        Some(index) => {
            let embed = &node.embeds[index];
            let child = quote_ident(&embed.node.alias);
            let (from, join) = embed_from(w, embed, alias, &child);
            let field = field_sql(w, &child, &order.field, &order.path);
            // The embed's own filters apply: a filtered-out row orders as null.
            let where_clause = where_sql(w, &embed.node, &child, &join);
            format!("(select {field} from {from}{where_clause})")
        }
    };
    sql.push_str(match order.direction {
        Some(OrderDirection::Desc) => " desc",
        Some(OrderDirection::Asc) => " asc",
        None => "",
    });
    sql.push_str(match order.nulls {
        Some(NullsOrder::First) => " nulls first",
        Some(NullsOrder::Last) => " nulls last",
        None => "",
    });
    sql
}

/// Where an embed's rows come from, as `child`, for one row of `parent`: the
/// `from` list and the conditions that tie it to the parent.
/// - A foreign key: its table, with `child.target_col = parent.col` per column.
/// - A many-to-many: its table and the junction, each side of the junction
///   equal to its table, as PostgREST's implicit join of the junction.
/// - A computed relationship: `function(parent)`, and no condition, as
///   PostgREST's `fromF`.
fn embed_from(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str, child: &str) -> (String, Vec<String>) {
    let r = embed.relationship;
    if let Some(function) = &r.function {
        let from = format!("{}({}) as {child}", qualified(function), row_sql(parent, &r.source));
        return (from, Vec::new());
    }
    let mut from = String::new();
    let mut join = Vec::new();
    match &r.junction {
        Some(junction) => {
            // The junction first: a spread's lateral join, which follows the
            // `from` list, may read only its last item, the child.
            let through = w.alias();
            let _ = write!(from, "{} as {through}, ", qualified(&junction.table));
            for (own, theirs) in &junction.source_columns {
                join.push(equal(&through, theirs, parent, own));
            }
            for (target, theirs) in &junction.target_columns {
                join.push(equal(&through, theirs, child, target));
            }
        }
        None => {
            for (own, theirs) in r.columns.iter().zip(&r.target_columns) {
                join.push(equal(child, theirs, parent, own));
            }
        }
    }
    let _ = write!(from, "{} as {child}", qualified(&embed.node.table.name));
    (from, join)
}

/// `a."x" = b."y"`.
fn equal(left: &str, left_column: &str, right: &str, right_column: &str) -> String {
    let mut sql =
        String::with_capacity(left.len() + right.len() + left_column.len() + right_column.len() + 9);
    sql.push_str(left);
    sql.push('.');
    push_ident(&mut sql, left_column);
    sql.push_str(" = ");
    sql.push_str(right);
    sql.push('.');
    push_ident(&mut sql, right_column);
    sql
}

/// The row `alias` as a value of `table`'s type, for a function of the row.
/// The cast makes a subquery's row (of type `record`) the table's type.
/// `alias.*`, not `alias`: a bare name is first a column of any enclosing
/// query, and aliases are tables' names, which an output may have too.
fn row_sql(alias: &str, table: &QualifiedName) -> String {
    format!("({alias}.*)::{}", qualified(table))
}

/// One output of a node's select list.
struct Output<'n> {
    expr: String,
    name: &'n str,
    /// An aggregate applied here: the other outputs are grouped by.
    aggregate: bool,
    /// An aggregate left for the parent to apply to this raw value: inside a
    /// to-one spread, whose aggregates PostgREST applies at the parent
    /// (function, cast of the result).
    hoisted: Option<(&'static str, Option<&'n str>)>,
}

/// A node's select list, and the lateral joins its spreads add to its `from`.
struct Projection<'n> {
    outputs: Vec<Output<'n>>,
    joins: String,
    /// Some embed was read by a left join ([`joinable`]).
    joined: bool,
}

impl Projection<'_> {
    /// `expr as "name", ...`.
    fn list(&self) -> String {
        if self.outputs.is_empty() {
            // A row with no columns still counts (`select=rel()`).
            return "1 as \"\"".to_owned();
        }
        let length: usize = self.outputs.iter().map(|o| o.expr.len() + o.name.len() + 8).sum();
        let mut sql = String::with_capacity(length);
        for output in &self.outputs {
            if !sql.is_empty() {
                sql.push_str(", ");
            }
            sql.push_str(&output.expr);
            sql.push_str(" as ");
            push_ident(&mut sql, output.name);
        }
        sql
    }

    /// ` group by` the positions of the outputs that are not aggregates, when
    /// some are (PostgREST's automatic `GROUP BY`); nothing otherwise.
    fn group_by(&self) -> String {
        if !self.outputs.iter().any(|o| o.aggregate && o.hoisted.is_none()) {
            return String::new();
        }
        let positions: Vec<String> = self
            .outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.aggregate)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if positions.is_empty() { String::new() } else { format!(" group by {}", positions.join(", ")) }
    }
}

/// `sum(expr)`, cast when asked: `(sum(expr))::int`. Unqualified, as
/// PostgREST writes it, so that PostgreSQL's errors name it as PostgREST's do
/// (`function sum(text) does not exist`); `pg_catalog` comes first in the
/// request's search path unless a schema of its own names it.
fn aggregate_sql(function: &str, expr: &str, cast: Option<&str>) -> String {
    let applied = format!("{function}({expr})");
    match cast {
        Some(cast) => format!("({applied})::{cast}"),
        None => applied,
    }
}

/// The projection of a node read as `alias`. With `hoist`, the node is a
/// to-one spread whose aggregates its parent applies: they are left raw.
fn projection<'n>(w: &mut Writer, node: &'n Node<'_>, alias: &str, hoist: bool) -> Projection<'n> {
    projection_with(w, node, alias, hoist, ToOne::Subquery(&[]))
}

/// How [`projection_with`] reads the plain to-one embeds that [`joinable`]
/// allows. The to-one embeds it refuses are lateral subqueries in any case
/// ([`lateral_embed_sql`]).
#[derive(Clone, Copy)]
enum ToOne<'a> {
    /// By a left join after the page is cut ([`joined_embed_sql`]): an
    /// ordered page, which is ordered again after it.
    Joined,
    /// By a subquery per row, which on an unordered page costs PostgreSQL no
    /// more than a join; but those listed were joined before the page was cut
    /// ([`joined_before_limit`]) and are read from the page's rows.
    Subquery(&'a [usize]),
}

/// [`projection`], with the node's plain to-one embeds read as `to_one` says.
fn projection_with<'n>(
    w: &mut Writer,
    node: &'n Node<'_>,
    alias: &str,
    hoist: bool,
    to_one: ToOne<'_>,
) -> Projection<'n> {
    let mut outputs = Vec::with_capacity(node.items.len());
    let mut joins = String::new();
    let mut joined = false;
    for item in &node.items {
        match item {
            Item::Column { field, path, cast, output, aggregate } => {
                let mut expr = field_sql(w, alias, field, path);
                if let Some(cast) = cast {
                    expr = format!("({expr})::{cast}");
                }
                let name = output.as_str();
                outputs.push(match aggregate {
                    None => Output { expr, name, aggregate: false, hoisted: None },
                    Some(a) if hoist => Output {
                        expr,
                        name,
                        aggregate: true,
                        hoisted: Some((a.function.name(), a.cast.as_deref())),
                    },
                    Some(a) => Output {
                        expr: aggregate_sql(a.function.name(), &expr, a.cast.as_deref()),
                        name,
                        aggregate: true,
                        hoisted: None,
                    },
                });
            }
            Item::Count { output, cast, legacy } => outputs.push(if hoist {
                // Counted at the parent: one non-null value per matching row.
                Output {
                    expr: "1".to_owned(),
                    name: output,
                    aggregate: true,
                    hoisted: Some(("count", cast.as_deref())),
                }
            } else {
                Output {
                    expr: aggregate_sql("count", "*", cast.as_deref()),
                    name: output,
                    aggregate: !legacy,
                    hoisted: None,
                }
            }),
            Item::Embed(index) => {
                let embed = &node.embeds[*index];
                if embed.spread {
                    let (join, spread) = spread_sql(w, embed, alias);
                    joins.push_str(&join);
                    for output in spread {
                        outputs.push(match output.hoisted {
                            Some((function, cast)) if !hoist => Output {
                                expr: aggregate_sql(function, &output.expr, cast),
                                aggregate: true,
                                hoisted: None,
                                ..output
                            },
                            _ => output,
                        });
                    }
                } else if matches!(to_one, ToOne::Subquery(joined) if joined.contains(index)) {
                    outputs.push(Output {
                        expr: format!("{alias}.{}", quote_ident(&joined_column(*index))),
                        name: embed.output.as_str(),
                        aggregate: false,
                        hoisted: None,
                    });
                } else if matches!(to_one, ToOne::Joined) && joinable(embed) {
                    let (join, expr) = joined_embed_sql(w, embed, alias);
                    joins.push_str(&join);
                    joined = true;
                    outputs.push(Output {
                        expr,
                        name: embed.output.as_str(),
                        aggregate: false,
                        hoisted: None,
                    });
                } else if embed.is_to_one() && !joinable(embed) {
                    let (join, expr) = lateral_embed_sql(w, embed, alias);
                    joins.push_str(&join);
                    outputs.push(Output {
                        expr,
                        name: embed.output.as_str(),
                        aggregate: false,
                        hoisted: None,
                    });
                } else {
                    outputs.push(Output {
                        expr: embed_sql(w, embed, alias),
                        name: embed.output.as_str(),
                        aggregate: false,
                        hoisted: None,
                    });
                }
            }
        }
    }
    Projection { outputs, joins, joined }
}

/// The marker a joined embed's row carries, null when no row joined.
const JOINED: &str = "_m";

/// Whether a to-one embed can be read by a left join of its table: it finds
/// at most one row per parent row (a foreign key to a table's unique key, or
/// from a table's unique columns; not a view, whose rows a key does not
/// bound, nor a function), and its node is plain columns under distinct
/// names (no embeds, aggregates or counts of its own). PostgreSQL then joins
/// the page's rows to the table once (a hash or a merge join) instead of
/// running a subquery for each: on the store's `brands!inner` page that is a
/// third of PostgreSQL's time per request (docs/benchmarks.md).
fn joinable(embed: &EmbedNode<'_>) -> bool {
    let r = embed.relationship;
    let node = &embed.node;
    let mut names = std::collections::HashSet::with_capacity(node.items.len());
    embed.is_to_one()
        && !embed.spread
        && r.function.is_none()
        && r.junction.is_none()
        && !node.table.is_view
        && node.embeds.is_empty()
        && !node.items.is_empty()
        && node.items.iter().all(|item| match item {
            Item::Column { aggregate: None, output, .. } => output != JOINED && names.insert(output.as_str()),
            _ => false,
        })
}

/// A [`joinable`] embed: ` left join lateral (select true as "_m", <items>
/// from <table> where <tie and filters>) as <join> on true`, which
/// PostgreSQL pulls up into a plain left join, and the embed's value: its
/// row as a JSON object when one joined, else null. The object is built only
/// for the rows of the page, above the join.
fn joined_embed_sql(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str) -> (String, String) {
    let (join, object) = joined_lateral(w, embed, parent, true);
    let lateral = quote_ident(&embed.join);
    let marker = quote_ident(JOINED);
    (format!(" left join lateral {join} on true"), format!("case when {lateral}.{marker} then {object} end"))
}

/// A [`joinable`] embed's `(select [true as "_m",] <items> from <table> where
/// <tie and filters>) as <join>`, to be joined laterally, and its row as a
/// JSON object read from the join.
fn joined_lateral(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str, marked: bool) -> (String, String) {
    let child = quote_ident(&embed.node.alias);
    let (from, join) = embed_from(w, embed, parent, &child);
    let where_clause = where_sql(w, &embed.node, &child, &join);
    let inner = projection(w, &embed.node, &child, false);
    let lateral = quote_ident(&embed.join);
    let marker = if marked { format!("true as {}, ", quote_ident(JOINED)) } else { String::new() };
    let join = format!("(select {marker}{} from {from}{where_clause}) as {lateral}", inner.list());
    let fields: Vec<String> = inner
        .outputs
        .iter()
        .map(|o| {
            let name = quote_ident(o.name);
            format!("{lateral}.{name} as {name}")
        })
        .collect();
    (join, format!("(select pg_catalog.to_jsonb(_e) from (select {}) as _e)", fields.join(", ")))
}

/// The `!inner` embeds of an unordered page that are joined to its rows
/// before it is cut, by index: plain to-one embeds ([`joinable`]) with no
/// limit of their own. Tested by `exists` and read by a subquery per row,
/// PostgreSQL reads the embed twice for each row of the page; joined, it
/// reads it once, and may start from the embed's filtered rows, as the
/// hand-written lateral join does (docs/benchmarks.md, the embedded filter).
/// An ordered page keeps the test: it is cut in its order's index first.
/// An embed whose column name ([`joined_column`]) the table has is left out,
/// and so is a page whose select list passes its row to a function (a
/// computed field or relationship): the row, cast to the table's type, must
/// have the table's columns only.
fn joined_before_limit(node: &Node<'_>) -> Vec<usize> {
    let passes_row =
        node.items.iter().any(|item| matches!(item, Item::Column { field: FieldRef::Computed { .. }, .. }))
            || node.embeds.iter().any(|embed| embed.relationship.function.is_some());
    if !node.order.is_empty() || node.is_aggregated() || passes_row {
        return Vec::new();
    }
    (0..node.embeds.len())
        .filter(|&index| {
            let embed = &node.embeds[index];
            embed.inner
                && joinable(embed)
                && embed.node.limit.is_none()
                && embed.node.offset.is_none()
                && node.table.column(&joined_column(index)).is_none()
                && node
                    .conditions
                    .iter()
                    .any(|c| matches!(c, Condition::Related { embed, exists: true } if *embed == index))
        })
        .collect()
}

/// The page's column that holds an embed joined before the limit.
fn joined_column(index: usize) -> String {
    format!("_j{index}")
}

/// Whether `condition` is the `!inner` test of an embed in `joined` (the
/// join before the limit tests it).
fn replaced_by_join(condition: &Condition, joined: &[usize]) -> bool {
    matches!(condition, Condition::Related { embed, exists: true } if joined.contains(embed))
}

/// The column of a [`lateral_embed_sql`] join that holds the embed's value.
const LATERAL: &str = "_v";

/// A to-one embed that [`joinable`] refuses (it holds embeds of its own, or
/// is a view, a function, aggregates): ` left join lateral (select <its
/// object> as "_v") as <join> on true`, and the embed's value, `<join>."_v"`.
/// As a scalar subquery it would run once per parent row; as a lateral
/// subquery keyed by the parent's columns, PostgreSQL may put a `Memoize`
/// node over it and run it once per distinct key: a to-one embed holding a
/// to-many one, over a thousand books of forty publishers, then reads the
/// publishers' books forty times, not a thousand, as PostgREST's `LEFT JOIN
/// LATERAL` does (its `getJoin`). A subquery that reads the parent's row can
/// only be joined by a nested loop over the parent's rows, which keeps their
/// order, so the page needs no second sort.
/// The subquery's `from` keeps PostgreSQL from pulling it up into the
/// parent's select list, where it would be a subquery per row again; no row
/// joined is null, as the scalar subquery's no row.
fn lateral_embed_sql(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str) -> (String, String) {
    let rows = to_one_rows(w, embed, parent);
    let lateral = quote_ident(&embed.join);
    let value = quote_ident(LATERAL);
    (
        format!(
            " left join lateral (select pg_catalog.to_jsonb(_e) as {value} from ({rows}) as _e) as {lateral} on true"
        ),
        format!("{lateral}.{value}"),
    )
}

/// A to-one embed's row: its select list for at most one row of its table.
fn to_one_rows(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str) -> String {
    let child = quote_ident(&embed.node.alias);
    let (from, join) = embed_from(w, embed, parent, &child);
    let where_clause = where_sql(w, &embed.node, &child, &join);
    let projection = projection(w, &embed.node, &child, false);
    let (items, joins, group) = (projection.list(), &projection.joins, projection.group_by());
    format!("select {items} from {from}{joins}{where_clause}{group} limit 1")
}

/// An embed as one JSON value, a subquery per parent row: an object or null
/// for to-one (a plain one; the others are [`lateral_embed_sql`]'s), an
/// array for to-many (`[]` when no row matches, in the embed's order). As
/// `jsonb`, like PostgREST's: its key order and `"k": v` spacing show in the
/// text (and in CSV cells).
fn embed_sql(w: &mut Writer, embed: &EmbedNode<'_>, parent: &str) -> String {
    if embed.is_to_one() {
        return format!("(select pg_catalog.to_jsonb(_e) from ({}) as _e)", to_one_rows(w, embed, parent));
    }
    let child = quote_ident(&embed.node.alias);
    let (from, join) = embed_from(w, embed, parent, &child);
    let where_clause = where_sql(w, &embed.node, &child, &join);
    let projection = projection(w, &embed.node, &child, false);
    let (items, joins, group) = (projection.list(), &projection.joins, projection.group_by());
    let order = order_sql(w, &embed.node, &child);
    let mut rows = format!("select {items} from {from}{joins}{where_clause}{group}{order}");
    push_range(&mut rows, embed.node.limit, embed.node.offset);
    format!("(select coalesce(pg_catalog.json_agg(_e), '[]')::jsonb from ({rows}) as _e)")
}

/// `...rel(a, b)`: a lateral join of the embed's row, whose outputs become
/// the parent's (`alias."a"`, ...), as PostgREST joins a spread. A to-one
/// spread's aggregates are left for the parent to apply; a to-many spread
/// (PostgREST 13) gives each output as an array of the rows' values, in the
/// embed's order, `[]` when none.
fn spread_sql<'n>(w: &mut Writer, embed: &'n EmbedNode<'_>, parent: &str) -> (String, Vec<Output<'n>>) {
    let child = quote_ident(&embed.node.alias);
    let (from, join) = embed_from(w, embed, parent, &child);
    let where_clause = where_sql(w, &embed.node, &child, &join);
    let to_one = embed.is_to_one();
    let inner = projection(w, &embed.node, &child, to_one);
    let lateral = quote_ident(&embed.join);
    let (list, joins) = (inner.list(), &inner.joins);
    let join = if to_one {
        format!(
            " left join lateral (select {list} from {from}{joins}{where_clause} limit 1) as {lateral} on true"
        )
    } else {
        let group = inner.group_by();
        let order = order_sql(w, &embed.node, &child);
        let mut rows = format!("select {list} from {from}{joins}{where_clause}{group}{order}");
        push_range(&mut rows, embed.node.limit, embed.node.offset);
        let arrays: Vec<String> = inner
            .outputs
            .iter()
            .map(|o| {
                let name = quote_ident(o.name);
                format!("coalesce(pg_catalog.json_agg(_s.{name}), '[]')::jsonb as {name}")
            })
            .collect();
        let arrays = if arrays.is_empty() { "1 as \"\"".to_owned() } else { arrays.join(", ") };
        format!(" left join lateral (select {arrays} from ({rows}) as _s) as {lateral} on true")
    };
    let outputs = inner
        .outputs
        .into_iter()
        .map(|o| Output {
            expr: format!("{lateral}.{}", quote_ident(o.name)),
            name: o.name,
            aggregate: false,
            hoisted: if to_one { o.hoisted } else { None },
        })
        .collect();
    (join, outputs)
}

/// `alias."col"` (or `"schema"."function"(alias)` for a computed field) with
/// its JSON path; keys are parameters, indexes integers.
fn field_sql(w: &mut Writer, alias: &str, field: &FieldRef, path: &[ast::JsonStep]) -> String {
    let mut sql = match field {
        FieldRef::Column(column) => {
            let mut sql = String::with_capacity(alias.len() + column.len() + 3);
            sql.push_str(alias);
            sql.push('.');
            push_ident(&mut sql, column);
            sql
        }
        FieldRef::Computed { function, table } => {
            format!("{}({})", qualified(function), row_sql(alias, table))
        }
    };
    for step in path {
        let arrow = match step.arrow {
            JsonArrow::Json => "->",
            JsonArrow::Text => "->>",
        };
        match &step.key {
            JsonKey::Key(key) => {
                let p = w.param(key.clone());
                let _ = write!(sql, "{arrow}{p}::text");
            }
            JsonKey::Index(index) => {
                let _ = write!(sql, "{arrow}({index})::int");
            }
        }
    }
    sql
}

fn condition_sql(w: &mut Writer, node: &Node<'_>, alias: &str, condition: &Condition) -> String {
    match condition {
        Condition::Filter { field, path, negated, operation } => {
            let field = field_sql(w, alias, field, path);
            let test = operation_sql(w, &field, operation);
            if *negated { format!("not ({test})") } else { test }
        }
        Condition::Logic { negated, op, children } => {
            let joiner = match op {
                LogicOp::And => " and ",
                LogicOp::Or => " or ",
            };
            let parts: Vec<String> = children.iter().map(|c| condition_sql(w, node, alias, c)).collect();
            let group =
                format!("({})", if parts.is_empty() { "true".to_owned() } else { parts.join(joiner) });
            if *negated { format!("not {group}") } else { group }
        }
        Condition::Related { embed, exists } => {
            let embed = &node.embeds[*embed];
            // An embed of aggregates only always has its one row (of the
            // aggregates), as in PostgREST's lateral join of the aggregate.
            let counts = |item: &Item| item.is_aggregate() || matches!(item, Item::Count { .. });
            if !embed.node.items.is_empty() && embed.node.items.iter().all(counts) {
                return if *exists { "true" } else { "false" }.to_owned();
            }
            let child = quote_ident(&embed.node.alias);
            let (from, join) = embed_from(w, embed, alias, &child);
            let where_clause = where_sql(w, &embed.node, &child, &join);
            // The embed's own limit and offset bound what can match, as in
            // PostgREST's join of the limited embed.
            let mut rows = format!("select 1 from {from}{where_clause}");
            if !w.counting && (embed.node.limit.is_some() || embed.node.offset.is_some()) {
                rows.push_str(&order_sql(w, &embed.node, &child));
                push_range(&mut rows, embed.node.limit, embed.node.offset);
            }
            let test = format!("exists ({rows})");
            if *exists { test } else { format!("not {test}") }
        }
    }
}

fn compare_op(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "=",
        CompareOp::Neq => "<>",
        CompareOp::Gt => ">",
        CompareOp::Gte => ">=",
        CompareOp::Lt => "<",
        CompareOp::Lte => "<=",
        CompareOp::Like => "like",
        CompareOp::ILike => "ilike",
        CompareOp::Match => "~",
        CompareOp::IMatch => "~*",
    }
}

/// A PostgreSQL array literal of `values`, each element quoted and escaped.
pub fn array_literal(values: &[String]) -> String {
    let elements: Vec<String> =
        values.iter().map(|v| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))).collect();
    format!("{{{}}}", elements.join(","))
}

fn operation_sql(w: &mut Writer, field: &str, operation: &ast::Operation) -> String {
    match operation {
        ast::Operation::Compare { op, value } => {
            let p = w.param(value.clone());
            format!("{field} {} {p}", compare_op(*op))
        }
        ast::Operation::Quantified { op, quantifier, values } => {
            let p = w.param(array_literal(values));
            let q = match quantifier {
                Quantifier::Any => "any",
                Quantifier::All => "all",
            };
            format!("{field} {} {q}({p})", compare_op(*op))
        }
        ast::Operation::ArrayRange { op, value } => {
            let p = w.param(value.clone());
            let sql_op = match op {
                ArrayRangeOp::Contains => "@>",
                ArrayRangeOp::ContainedIn => "<@",
                ArrayRangeOp::Overlaps => "&&",
                ArrayRangeOp::StrictlyLeft => "<<",
                ArrayRangeOp::StrictlyRight => ">>",
                ArrayRangeOp::NotExtendsRight => "&<",
                ArrayRangeOp::NotExtendsLeft => "&>",
                ArrayRangeOp::Adjacent => "-|-",
            };
            format!("{field} {sql_op} {p}")
        }
        ast::Operation::In(values) => {
            let p = w.param(array_literal(values));
            format!("{field} = any({p})")
        }
        ast::Operation::Is(value) => {
            let keyword = match value {
                IsValue::Null => "null",
                IsValue::NotNull => "not null",
                IsValue::True => "true",
                IsValue::False => "false",
                IsValue::Unknown => "unknown",
            };
            format!("{field} is {keyword}")
        }
        ast::Operation::IsDistinct(value) => {
            let p = w.param(value.clone());
            format!("{field} is distinct from {p}")
        }
        ast::Operation::FullText { op, language, query } => {
            let function = match op {
                FtsOp::Fts => "to_tsquery",
                FtsOp::Plain => "plainto_tsquery",
                FtsOp::Phrase => "phraseto_tsquery",
                FtsOp::Websearch => "websearch_to_tsquery",
            };
            let args = match language {
                Some(language) => {
                    let l = w.param(language.clone());
                    let q = w.param(query.clone());
                    format!("{l}::regconfig, {q}")
                }
                None => w.param(query.clone()),
            };
            format!("{field} @@ pg_catalog.{function}({args})")
        }
    }
}

/// How a write treats the body's rows.
#[derive(Debug, Clone)]
pub struct Insert<'a> {
    pub columns: Vec<&'a Column>,
    /// Columns a row of the body leaves out get their default, not null.
    pub missing_default: bool,
    pub on_conflict: Option<(Vec<&'a Column>, Conflict)>,
    /// The answer needs the written row's key for a `Location` header
    /// (`Prefer: return=headers-only`).
    pub location: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    Merge,
    Ignore,
}

/// The rows an insert writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rows {
    /// The body's rows as one JSON array, in the body's own text, so that
    /// PostgreSQL parses it once and every number keeps its digits.
    Json(String),
    /// One row's values in [`Insert::columns`]' order, each the text its
    /// column's input function reads (`None`: null), bound one by one (see
    /// [`super::plan::insert_rows`] for when).
    One(Vec<Option<String>>),
}

/// `insert ... select from the JSON body` (or `values` of one row), then the
/// read of what was written.
pub fn insert(node: &Node<'_>, insert: &Insert<'_>, rows: Rows, report: Report) -> Write {
    let mut w = Writer::new();
    let _ = w.alias(); // t0 is the written table
    let table = node.table;
    let relation = qualified(&table.name);
    let mut names = String::new();
    for c in &insert.columns {
        if !names.is_empty() {
            names.push_str(", ");
        }
        push_ident(&mut names, &c.name);
    }
    let mut text = match rows {
        // A single-row `values` takes each parameter's type from its column,
        // so that PostgreSQL reads the text with the column's own input
        // function and type modifier, as `json_populate_record` does, without
        // parsing JSON at all.
        Rows::One(values) if !insert.columns.is_empty() => {
            let mut list = String::new();
            for value in values {
                if !list.is_empty() {
                    list.push_str(", ");
                }
                match value {
                    Some(value) => list.push_str(&w.param(value)),
                    None => list.push_str("null"),
                }
            }
            format!("with pgrst_mut as (insert into {relation} as t0 ({names}) values ({list})")
        }
        Rows::One(_) => {
            format!("with pgrst_mut as (insert into {relation} as t0 default values")
        }
        Rows::Json(body) => json_insert(&mut w, &relation, insert, &names, body),
    };
    if let Some((target, conflict)) = &insert.on_conflict {
        let mut columns = String::new();
        for c in target {
            if !columns.is_empty() {
                columns.push_str(", ");
            }
            push_ident(&mut columns, &c.name);
        }
        let _ = write!(text, " on conflict ({columns})");
        match conflict {
            Conflict::Merge if !insert.columns.is_empty() => {
                text.push_str(" do update set ");
                for (i, c) in insert.columns.iter().enumerate() {
                    if i > 0 {
                        text.push_str(", ");
                    }
                    push_ident(&mut text, &c.name);
                    text.push_str(" = excluded.");
                    push_ident(&mut text, &c.name);
                }
            }
            Conflict::Merge | Conflict::Ignore => text.push_str(" do nothing"),
        }
    }
    let _ = write!(text, " returning t0.*, (t0.xmax = 0) as pgrst_inserted)");
    // Only what the answer uses is computed: the key for `Location`, and for
    // an upsert the rows inserted and written (200 when it only updated).
    let location = if insert.location { location_sql(table) } else { "null::text".to_owned() };
    let extra = if insert.location || insert.on_conflict.is_some() {
        let (inserted, written) = if insert.on_conflict.is_some() {
            (
                "(select pg_catalog.count(*) from pgrst_mut where pgrst_inserted)::text",
                "(select pg_catalog.count(*) from pgrst_mut)",
            )
        } else {
            ("null::text", "null::int8")
        };
        format!(
            "pg_catalog.json_build_object('location', {location}, 'inserted', {inserted}, \
             'written', {written})::text"
        )
    } else {
        "null::text".to_owned()
    };
    finish_mutation(w, text, node, report, &extra, true)
}

/// The head of an insert of the JSON array `body`'s rows.
fn json_insert(w: &mut Writer, relation: &str, insert: &Insert<'_>, names: &str, body: String) -> String {
    let body = w.param(body);
    let mut values = String::new();
    // With `missing=default`, each row's defaults are computed whether the
    // row needs them or not, as PostgREST's row of defaults is, so that a
    // sequence advances alike (`_d`, correlated to the row so that it is
    // computed for each).
    let mut defaults = String::new();
    for c in &insert.columns {
        if !values.is_empty() {
            values.push_str(", ");
        }
        match (&c.default, insert.missing_default) {
            (Some(default), true) => {
                let key = w.param(c.name.clone());
                let column = quote_ident(&c.name);
                let _ = write!(
                    values,
                    "case when _j.value::jsonb ? {key}::text then _r.{column} else _d.{column} end"
                );
                let _ = write!(defaults, ", {default} as {column}");
            }
            _ => {
                values.push_str("_r.");
                push_ident(&mut values, &c.name);
            }
        }
    }
    // Every row's defaults are computed before the first row is written, as
    // PostgREST's `jsonb_agg` of `jsonb_build_object(defaults) || elem` does:
    // the sort by `_d._n` reads them all first, so a row that fails (a
    // duplicate key, a null) leaves the sequences where PostgREST leaves them.
    let (elements, defaults) = if defaults.is_empty() {
        ("as _j", String::new())
    } else {
        (
            "with ordinality as _j(value, _n)",
            format!(" cross join lateral (select _j._n as _n{defaults}) as _d order by _d._n"),
        )
    };
    if insert.columns.is_empty() {
        // `{}`: a row of defaults.
        format!(
            "with pgrst_mut as (insert into {relation} as t0 select from \
             pg_catalog.json_array_elements({body}::json) as _j"
        )
    } else {
        format!(
            "with pgrst_mut as (insert into {relation} as t0 ({names}) select {values} \
             from pg_catalog.json_array_elements({body}::json) {elements} \
             cross join lateral pg_catalog.json_populate_record(null::{relation}, _j.value) as _r{defaults}"
        )
    }
}

/// `update ... set <body's columns>`, then the read of what changed.
pub fn update(node: &Node<'_>, columns: &[&Column], body: String, report: Report) -> Write {
    let mut w = Writer::new();
    let _ = w.alias(); // t0 is the written table
    let relation = qualified(&node.table.name);
    let body = w.param(body);
    let sets: Vec<String> = columns.iter().map(|c| format!("{0} = _r.{0}", quote_ident(&c.name))).collect();
    let where_clause = mutation_where(&mut w, node);
    let text = format!(
        "with pgrst_mut as (update {relation} as t0 set {} from pg_catalog.json_populate_record(null::{relation}, {body}::json) as _r{where_clause} returning t0.*)",
        sets.join(", ")
    );
    finish_mutation(w, text, node, report, "null::text", false)
}

/// `delete ...`, then the read of what was deleted.
pub fn delete(node: &Node<'_>, report: Report) -> Write {
    let mut w = Writer::new();
    let _ = w.alias(); // t0 is the written table
    let relation = qualified(&node.table.name);
    let where_clause = mutation_where(&mut w, node);
    let text = format!("with pgrst_mut as (delete from {relation} as t0{where_clause} returning t0.*)");
    finish_mutation(w, text, node, report, "null::text", false)
}

/// The rows a mutation writes: those its filters match. Conditions on embeds
/// (`!inner`) only select which written rows are returned and counted, as in
/// PostgREST.
fn mutation_where(w: &mut Writer, node: &Node<'_>) -> String {
    conditions_sql(w, node, "t0", &[], |c| !matches!(c, Condition::Related { .. }))
}

/// The primary key of the first written row as a JSON object, for `Location`.
fn location_sql(table: &Table) -> String {
    if table.primary_key.is_empty() {
        return "null::text".to_owned();
    }
    let pairs: Vec<String> = table
        .primary_key
        .iter()
        .map(|k| format!("'{}', _m.{}", k.replace('\'', "''"), quote_ident(k)))
        .collect();
    // Only for exactly one row, as PostgREST's `locF` (`CASE WHEN
    // pg_catalog.count(_postgrest_t) = 1`).
    format!(
        "(select pg_catalog.json_build_object({})::text from pgrst_mut as _m \
         where (select pg_catalog.count(*) from pgrst_mut) = 1)",
        pairs.join(", ")
    )
}

/// `extra` is the SQL of the `extra` column: a JSON object of what the answer
/// needs beyond the rows (see [`insert`]), or null.
fn finish_mutation(
    mut w: Writer,
    mut text: String,
    node: &Node<'_>,
    report: Report,
    extra: &str,
    counts_inserts: bool,
) -> Write {
    // Embeds (and their `!inner`) only exist in the representation; without
    // one, every written row is counted.
    let returned_where = if matches!(report.body, BodyKind::None) {
        String::new()
    } else {
        conditions_sql(&mut w, node, "t0", &[], |c| matches!(c, Condition::Related { .. }))
    };
    // An insert returns `pgrst_inserted` too; its rows are read without it,
    // so that a function of the row (a computed field or relationship) gets
    // exactly the table's columns.
    let columns = if counts_inserts {
        let mut list = String::new();
        for column in &node.table.columns {
            if !list.is_empty() {
                list.push_str(", ");
            }
            list.push_str("t0.");
            push_ident(&mut list, &column.name);
        }
        list
    } else {
        "t0.*".to_owned()
    };
    let _ = write!(text, ", pgrst_ret as (select {columns} from pgrst_mut as t0{returned_where})");
    let total = if report.count { "(select pg_catalog.count(*) from pgrst_ret)" } else { "null::int8" };
    let page = page_count("(select pg_catalog.count(*) from pgrst_ret)", report.bounds);
    // The projection is rendered only when there is a body to project: its
    // parameters (JSON path keys) would otherwise be bound to nothing.
    let body = match report.body {
        BodyKind::None => "null::text".to_owned(),
        kind => {
            let projection = projection(&mut w, node, "t0", false);
            format!(
                "(select {} from (select {} from pgrst_ret as t0{}{}) as _r)",
                body_sql(kind),
                projection.list(),
                projection.joins,
                projection.group_by()
            )
        }
    };
    let _ = write!(text, " select {total} as total, {page} as page, {body} as body, {extra} as extra");
    Write::new(w.finish(text), report.bounds)
}

/// How an RPC's result is read.
pub enum CallResult<'a> {
    /// Rows of a known table type: select, filters and order apply.
    Rows(&'a Node<'a>),
    /// Anything else: the values themselves; a set of them is cut by
    /// `limit` and `offset`, as PostgREST cuts it.
    Values { limit: Option<i64>, offset: Option<i64> },
}

/// The body whole as the one argument: a function chosen for it, or one
/// whose one argument has no name.
fn whole_body_argument(resolved: &Resolved<'_>) -> bool {
    resolved.whole_body || matches!(resolved.function.arguments.as_slice(), [a] if a.name.is_empty())
}

/// Whether [`call`] binds its body, which it does only when the call reads
/// it, and then as the statement's first parameter: a call planned once can
/// run again with another body in its place ([`super::memo::PlannedCall`]).
pub fn call_binds_body(resolved: &Resolved<'_>, args: &[String]) -> bool {
    whole_body_argument(resolved) || !args.is_empty()
}

/// `select ... from fn(args)`; the arguments come from one JSON object
/// (`json_to_record` converts each to its declared type, arrays included).
pub fn call(
    resolved: &Resolved<'_>,
    args: &[String],
    body: String,
    result: CallResult<'_>,
    max_rows: Option<i64>,
    report: Report,
) -> Write {
    let Report { count, body: returned, bounds } = report;
    let page = page_count("pg_catalog.count(*)", bounds);
    let mut w = Writer::new();
    // Rows are read by their type's name, as PostgREST reads them, so that
    // PostgreSQL's errors (42803, 42883) name them alike.
    let alias = match &result {
        CallResult::Rows(node) => quote_ident(&node.alias),
        CallResult::Values { .. } => w.alias(),
    };
    let function = resolved.function;
    let single_json = whole_body_argument(resolved);
    // Before any other parameter (see [`call_binds_body`]).
    let body = if call_binds_body(resolved, args) { w.param(body) } else { String::new() };
    let call = if single_json {
        format!("{}({body}::{})", qualified(&function.name), function.arguments[0].data_type)
    } else {
        // A variadic argument goes last: PostgreSQL takes `variadic` only there.
        let is_variadic = |a: &String| function.arguments.iter().any(|x| x.variadic && &x.name == a);
        let named: Vec<String> = args
            .iter()
            .filter(|a| !is_variadic(a))
            .map(|a| format!("{0} := _a.{0}", quote_ident(a)))
            .chain(
                args.iter()
                    .filter(|a| is_variadic(a))
                    .map(|a| format!("variadic {0} := _a.{0}", quote_ident(a))),
            )
            .collect();
        format!("{}({})", qualified(&function.name), named.join(", "))
    };
    let record: Vec<String> = function
        .arguments
        .iter()
        .filter(|a| args.contains(&a.name))
        .map(|a| format!("{} {}", quote_ident(&a.name), a.data_type))
        .collect();
    let from = if single_json || record.is_empty() {
        format!("{call} as {alias}")
    } else {
        format!(
            "pg_catalog.json_to_record({body}::json) as _a({}) cross join lateral {call} as {alias}",
            record.join(", ")
        )
    };
    let text = match result {
        CallResult::Rows(node) => {
            let where_clause = where_sql(&mut w, node, &alias, &[]);
            let order = order_sql(&mut w, node, &alias);
            let limit = match (node.limit, max_rows) {
                (Some(limit), Some(max)) => Some(limit.min(max)),
                (limit, max) => limit.or(max),
            };
            // Counted, the call is made once, in a CTE that both the count
            // and the page read: a volatile function must not run twice
            // (PostgREST reads its `pgrst_source` CTE both ways).
            let projection = projection(&mut w, node, &alias, false);
            // Aggregated, the order and the range apply to the groups, as in
            // a read (PostgREST orders its grouped query: an order by an
            // ungrouped column is PostgreSQL's 42803 there too).
            let aggregated = projection.outputs.iter().any(|o| o.aggregate && o.hoisted.is_none());
            let (inner_order, mut outer) =
                if aggregated { (String::new(), order.clone()) } else { (order.clone(), String::new()) };
            let (with, total, mut rows) = if count {
                (
                    format!("with pgrst_call as (select {alias}.* from {from}{where_clause}) "),
                    "(select pg_catalog.count(*) from pgrst_call)".to_owned(),
                    format!("select {alias}.* from pgrst_call as {alias}{inner_order}"),
                )
            } else {
                (
                    String::new(),
                    "null::int8".to_owned(),
                    format!("select {alias}.* from {from}{where_clause}{inner_order}"),
                )
            };
            push_range(if aggregated { &mut outer } else { &mut rows }, limit, node.offset);
            // A composite that the filters leave out is `null`, as PostgREST
            // answers it; its CSV is the header alone.
            let body = match (function.returns_set, returned) {
                (true, _) | (false, BodyKind::Csv) => body_sql(returned),
                (false, _) => "coalesce((pg_catalog.json_agg(_r) -> 0)::text, 'null')",
            };
            let body = if returned == BodyKind::None { "null::text" } else { body };
            format!(
                "{with}select {total} as total, {page} as page, {body} as body, null::text as extra \
                 from (select {} from ({rows}) as {alias}{}{}{outer}) as _r",
                projection.list(),
                projection.joins,
                projection.group_by()
            )
        }
        CallResult::Values { limit, offset } => {
            let ranged = function.returns_set && (limit.is_some() || offset.is_some_and(|o| o > 0));
            // Counted and cut, the call is made once, in a CTE, as above.
            let (with, total, mut values) = match (count, ranged) {
                (true, true) => (
                    format!("with pgrst_call as (select {alias} as v from {from}) "),
                    "(select pg_catalog.count(*) from pgrst_call)",
                    "select v from pgrst_call".to_owned(),
                ),
                (true, false) => {
                    (String::new(), "pg_catalog.count(*)", format!("select {alias} as v from {from}"))
                }
                (false, _) => (String::new(), "null::int8", format!("select {alias} as v from {from}")),
            };
            if ranged {
                push_range(&mut values, limit, offset);
            }
            let body = match (returned, function.returns_set) {
                (BodyKind::None, _) => "null::text",
                // PostgREST names a scalar's CSV column `pgrst_scalar`, and
                // quotes its values as a row's fields are (`""`, `"{a,b}"`).
                (BodyKind::Csv, _) => {
                    "'pgrst_scalar' || chr(10) || coalesce(pg_catalog.string_agg(\
                     substring(row(_r.v)::text, 2, length(row(_r.v)::text) - 2), chr(10)), '')"
                }
                // One value of a set asked for as an object is PostgREST's
                // `{"pgrst_scalar": v}`.
                (BodyKind::Object | BodyKind::ObjectStripped, true) => {
                    "(pg_catalog.json_agg(pg_catalog.json_build_object('pgrst_scalar', _r.v)) -> 0)::text"
                }
                (_, true) => "coalesce(pg_catalog.json_agg(_r.v), '[]')::text",
                (_, false) => "(pg_catalog.json_agg(_r.v) -> 0)::text",
            };
            format!(
                "{with}select {total} as total, {page} as page, {body} as body, null::text as extra \
                 from ({values}) as _r"
            )
        }
    };
    Write::new(w.finish(text), bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_with_inner_quotes_doubled_and_nul_cut() {
        let cases = [
            ("products", "\"products\""),
            ("Escap3e;", "\"Escap3e;\""),
            ("a\"b", "\"a\"\"b\""),
            ("x\0; drop table y", "\"x\""),
            ("col with spaces", "\"col with spaces\""),
        ];
        for (input, expected) in cases {
            assert_eq!(quote_ident(input), expected, "{input:?}");
        }
    }

    fn products() -> super::super::schema::SchemaCache {
        use super::super::schema::{ForeignKey, SchemaCache};
        let column = |name: &str, data_type: &str| Column {
            name: name.to_owned(),
            data_type: data_type.to_owned(),
            nullable: true,
            default: None,
        };
        let table = |name: &str, columns: Vec<Column>| Table {
            name: QualifiedName::new("public", name),
            columns,
            primary_key: vec!["id".to_owned()],
            unique_keys: vec![vec!["id".to_owned()]],
            is_view: false,
        };
        SchemaCache::build(
            vec!["public".to_owned()],
            vec![
                table(
                    "products",
                    vec![
                        column("id", "bigint"),
                        column("name", "text"),
                        column("brand_id", "bigint"),
                        column("specs", "jsonb"),
                    ],
                ),
                table(
                    "brands",
                    vec![column("id", "bigint"), column("name", "text"), column("meta", "jsonb")],
                ),
            ],
            vec![ForeignKey {
                constraint: "products_brand_id_fkey".to_owned(),
                source: QualifiedName::new("public", "products"),
                columns: vec!["brand_id".to_owned()],
                target: QualifiedName::new("public", "brands"),
                target_columns: vec!["id".to_owned()],
            }],
            Vec::new(),
        )
    }

    #[test]
    fn a_to_one_embed_that_is_not_a_plain_join_is_a_lateral_subquery_on_every_level() {
        use super::super::{parse, plan};
        let cache = products();
        let lateral = "left join lateral (select pg_catalog.to_jsonb(_e) as \"_v\" from (select ";
        // (query, table, the laterals' aliases, whether the page is ordered again)
        let cases = [
            ("select=id,brands(name,products(id))&order=id", "products", vec!["products_brands_1"], false),
            ("select=id,brands(name,products(id))", "products", vec!["products_brands_1"], false),
            ("select=id,b:brands(name.max())", "products", vec!["products_b_1"], false),
            // A plain one on an unordered page: a subquery per row.
            ("select=id,brands(name)&brands.name=eq.x", "products", vec![], false),
            // Beside a plain join, the page is ordered again for that join.
            (
                "select=id,brands(name),x:brands(products(id))&order=id",
                "products",
                vec!["products_x_1"],
                true,
            ),
            // Inside a to-many embed's subquery, and inside another lateral.
            ("select=id,products(id,brands(name,products(id)))", "brands", vec!["products_brands_2"], false),
            (
                "select=id,brands(id,products(id,brands(products(id))))",
                "products",
                vec!["products_brands_1", "products_brands_3"],
                false,
            ),
        ];
        for (query, table, aliases, again) in cases {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let parsed = parse::parse_query(&pairs).expect("parses");
            let node = plan::read(&cache, "public", table, &parsed).expect("plans");
            let text = read(&node, None, false, BodyKind::Array).text;
            assert_eq!(text.matches(lateral).count(), aliases.len(), "{query}: {text}");
            for alias in aliases {
                assert!(text.contains(&format!("as \"{alias}\" on true")), "{query}: {alias}: {text}");
                assert!(text.contains(&format!("\"{alias}\".\"_v\" as ")), "{query}: {alias}: {text}");
            }
            assert_eq!(text.contains(" on true order by "), again, "{query}: {text}");
            // Every to-one embed is an object, whichever way it is read.
            assert!(!text.contains("json_agg(_e), '[]')::jsonb from (select \"brands_"), "{query}: {text}");
        }
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(b"select=id,brands(name)").into_owned().collect();
        let node = plan::read(&cache, "public", "products", &parse::parse_query(&pairs).expect("parses"))
            .expect("plans");
        let text = read(&node, None, false, BodyKind::Array).text;
        assert!(
            text.contains(
                "(select pg_catalog.to_jsonb(_e) from (select \"brands_1\".\"name\" as \"name\" from"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_ordered_page_joins_its_plain_to_one_embeds_and_orders_again_after_them() {
        use super::super::{parse, plan};
        let cache = products();
        let joined = "left join lateral (select true as \"_m\", ";
        let cases = [
            ("select=id,brands(name)&order=id", true),
            ("select=id,brands!inner(name)&brands.name=eq.x&order=name.desc", true),
            // No order to restore after a join: a subquery per row.
            ("select=id,brands(name)", false),
            // Same key twice, or an aggregate: a subquery per row.
            ("select=id,brands(name,name:id)&order=id", false),
            ("select=id,brands(name.max())&order=id", false),
            // To-many: always an aggregate subquery.
            ("select=id,products(id)&order=id", false),
        ];
        for (query, expected) in cases {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let parsed = parse::parse_query(&pairs).expect("parses");
            let table = if query.contains("products(") { "brands" } else { "products" };
            let node = plan::read(&cache, "public", table, &parsed).expect("plans");
            let text = read(&node, None, false, BodyKind::Array).text;
            assert_eq!(text.contains(joined), expected, "{query}: {text}");
            if expected {
                let (_, after) = text.split_once(joined).expect("joined");
                assert!(
                    after.contains(" on true order by "),
                    "{query}: ordered again after the join: {text}"
                );
                assert!(text.contains("case when \"products_brands_1\".\"_m\" then"), "{query}: {text}");
            }
        }
    }

    #[test]
    fn an_unordered_page_joins_its_plain_inner_embeds_before_its_limit() {
        use super::super::{parse, plan};
        let cache = products();
        let before = "from \"public\".\"products\" as \"products\" inner join lateral (select ";
        let cases = [
            ("select=id,brands!inner(name)&brands.name=eq.x&limit=20", true),
            ("select=id,brands!inner(name)", true),
            ("select=id,b:brands!inner(id,name)&b.name=like.x*&id=gt.1", true),
            // Not `!inner`: rows without a brand stay.
            ("select=id,brands(name)&brands.name=eq.x", false),
            // Ordered: cut in the order's index, then joined.
            ("select=id,brands!inner(name)&brands.name=eq.x&order=id", false),
            // Not a plain join.
            ("select=id,brands!inner(name,name:id)&brands.name=eq.x", false),
            ("select=id,brands!inner(name,products(id))", false),
            // To-many.
            ("select=id,products!inner(id)", false),
        ];
        for (query, expected) in cases {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let parsed = parse::parse_query(&pairs).expect("parses");
            let table = if query.contains("products!inner") { "brands" } else { "products" };
            let node = plan::read(&cache, "public", table, &parsed).expect("plans");
            let text = read(&node, None, false, BodyKind::Array).text;
            assert_eq!(text.contains(before), expected, "{query}: {text}");
            if expected {
                // The join tests what `exists` tested, and the page's column
                // carries the embed's object.
                assert!(!text.contains("exists ("), "{query}: {text}");
                assert!(text.contains("\"products\".\"_j0\" as "), "{query}: {text}");
                // The exact count still tests the embed with `exists`.
                let counted = read(&node, None, true, BodyKind::Array).text;
                let (total, _) = counted.split_once(" as total").expect("a total");
                assert!(total.contains("exists ("), "{query}: {counted}");
            }
        }
        // A row passed to a function (a computed field) must have the
        // table's columns only: no join before the limit.
        use super::super::schema::fixture::{catalog, row_function};
        let cache = catalog(vec![row_function("summary", "awards", None, true)]);
        for (query, expected) in [
            ("select=id,actors!inner(first_name)", true),
            ("select=id,summary,actors!inner(first_name)", false),
        ] {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let parsed = parse::parse_query(&pairs).expect("parses");
            let node = plan::read(&cache, "public", "awards", &parsed).expect("plans");
            let text = read(&node, None, false, BodyKind::Array).text;
            assert_eq!(text.contains(" inner join lateral "), expected, "{query}: {text}");
        }
    }

    /// A small deterministic generator (xorshift), so the property test needs
    /// no extra crate and fails the same way every time.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn text(&mut self) -> String {
            const CHARS: &[char] =
                &['a', 'Z', '\'', '"', ';', '-', ' ', '$', '\\', '(', ')', 'ñ', '%', '*', '{', '}'];
            let len = 1 + (self.next() % 12) as usize;
            let body: String = (0..len).map(|_| CHARS[(self.next() % CHARS.len() as u64) as usize]).collect();
            format!("QQ{body}")
        }
    }

    /// G4: whatever the values, none appears in the SQL text, and the text
    /// numbers exactly as many placeholders as there are parameters.
    #[test]
    fn no_value_ever_reaches_the_sql_text() {
        use super::super::{parse, plan};
        let cache = products();
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let mut rendered = 0;
        for _ in 0..2_000 {
            let values: Vec<String> = (0..4).map(|_| random.text()).collect();
            let pairs = vec![
                ("select".to_owned(), "id,name,specs->>color,brands(name)".to_owned()),
                ("name".to_owned(), format!("eq.{}", values[0])),
                ("specs->>color".to_owned(), format!("like.{}", values[1])),
                (
                    "or".to_owned(),
                    format!("(name.ilike.{},id.eq.1)", values[2].replace([',', '(', ')', '"', '\\'], "")),
                ),
                ("brands.name".to_owned(), format!("in.(\"{}\")", values[3].replace(['"', '\\'], ""))),
            ];
            let Ok(query) = parse::parse_query(&pairs) else { continue };
            let node = plan::read(&cache, "public", "products", &query).expect("plan");
            let statement = read(&node, Some(1000), true, BodyKind::Array);
            for value in &statement.params {
                if value.starts_with("QQ") || value.contains("QQ") {
                    assert!(!statement.text.contains(value.as_str()), "{value:?} in {}", statement.text);
                }
            }
            assert!(!statement.text.contains("QQ"), "a value leaked: {}", statement.text);
            let highest =
                (1..=statement.params.len() + 1).rev().find(|n| statement.text.contains(&format!("${n}")));
            assert_eq!(highest, Some(statement.params.len()), "{}", statement.text);
            rendered += 1;
        }
        assert!(rendered > 1_500, "only {rendered} of 2000 requests parsed");
    }

    #[test]
    fn array_literals_quote_every_element() {
        let cases: [(&[&str], &str); 4] = [
            (&["1", "2"], r#"{"1","2"}"#),
            (&["a,b", "c"], r#"{"a,b","c"}"#),
            (&["say \"hi\"", r"back\slash"], r#"{"say \"hi\"","back\\slash"}"#),
            (&[], "{}"),
        ];
        for (values, expected) in cases {
            let values: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
            assert_eq!(array_literal(&values), expected);
        }
    }

    fn films_read(table: &str, query: &str) -> Statement {
        use super::super::schema::fixture::{catalog, row_function};
        use super::super::{parse, plan};
        let cache = catalog(vec![
            row_function("full_name", "actors", None, true),
            row_function("filmography", "actors", Some("films"), false),
            row_function("latest_film", "actors", Some("films"), true),
        ]);
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        let query = parse::parse_query(&pairs).expect("parses");
        let node = plan::read(&cache, "public", table, &query).expect("plans");
        read(&node, None, false, BodyKind::Array)
    }

    /// An insert, an update and a delete of `products` that return their rows
    /// through `!inner`, each named by its verb.
    fn products_writes(bounds: Option<Bounds>) -> Vec<(&'static str, Write)> {
        use super::super::{parse, plan};
        let cache = products();
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(b"id=eq.7&select=id,brands!inner(name)").into_owned().collect();
        let query = parse::parse_query(&pairs).expect("parses");
        let node = plan::read(&cache, "public", "products", &query).expect("plans");
        let report = Report { count: false, body: BodyKind::Array, bounds };
        let name = &cache.table("public", "products").expect("products").columns[1];
        let names =
            Insert { columns: vec![name], missing_default: false, on_conflict: None, location: false };
        vec![
            ("insert", insert(&node, &names, Rows::Json(r#"[{"name":"x"}]"#.to_owned()), report)),
            ("update", update(&node, &[name], r#"{"name":"x"}"#.to_owned(), report)),
            ("delete", delete(&node, report)),
        ]
    }

    /// One row's values are bound in a single-row `values`, a null as the
    /// literal, so that each parameter takes its column's type.
    #[test]
    fn an_insert_of_one_row_binds_its_values_in_a_single_row_values() {
        use super::super::{parse, plan};
        let cache = products();
        let pairs: Vec<(String, String)> = form_urlencoded::parse(b"select=id").into_owned().collect();
        let query = parse::parse_query(&pairs).expect("parses");
        let node = plan::read(&cache, "public", "products", &query).expect("plans");
        let report = Report { count: false, body: BodyKind::Array, bounds: None };
        let products = cache.table("public", "products").expect("products");
        let spec = Insert {
            columns: vec![&products.columns[1], &products.columns[2]],
            missing_default: false,
            on_conflict: None,
            location: false,
        };
        let rows = Rows::One(vec![Some("x".to_owned()), None]);
        let statement = insert(&node, &spec, rows, report).statement;
        assert!(
            statement.text.starts_with(
                "with pgrst_mut as (insert into \"public\".\"products\" as t0 (\"name\", \"brand_id\") \
                 values ($1, null) returning t0.*"
            ),
            "{}",
            statement.text
        );
        assert_eq!(statement.params, vec!["x".to_owned()]);
    }

    /// An insert parses its body once, as an array, and computes only the
    /// extras its answer reads: the key for `Location` with
    /// `return=headers-only`, the rows inserted and written for an upsert's
    /// status. Updates and deletes need none.
    #[test]
    fn a_write_computes_only_the_extras_its_answer_reads() {
        use super::super::{parse, plan};
        let cache = products();
        let pairs: Vec<(String, String)> = form_urlencoded::parse(b"select=id").into_owned().collect();
        let query = parse::parse_query(&pairs).expect("parses");
        let node = plan::read(&cache, "public", "products", &query).expect("plans");
        let report = Report { count: false, body: BodyKind::None, bounds: None };
        let products = cache.table("public", "products").expect("products");
        let name = &products.columns[1];
        let id = &products.columns[0];
        let location = "'location', (select pg_catalog.json_build_object('id', _m.\"id\")::text from pgrst_mut as _m \
                        where (select pg_catalog.count(*) from pgrst_mut) = 1)";
        let counts = "'inserted', (select pg_catalog.count(*) from pgrst_mut where pgrst_inserted)::text, \
                      'written', (select pg_catalog.count(*) from pgrst_mut))::text as extra";
        let cases = [
            (false, None, None, None),
            (true, None, Some(location), None),
            (false, Some(Conflict::Merge), None, Some(counts)),
            (true, Some(Conflict::Ignore), Some(location), Some(counts)),
        ];
        for (wants_location, conflict, has_location, has_counts) in cases {
            let on_conflict = conflict.map(|c| (vec![id], c));
            let spec =
                Insert { columns: vec![name], missing_default: false, on_conflict, location: wants_location };
            let text = insert(&node, &spec, Rows::Json("[]".to_owned()), report).statement.text;
            let what = format!("location {wants_location}, conflict {conflict:?}");
            assert!(text.contains("from pg_catalog.json_array_elements($1::json) as _j"), "{what}: {text}");
            assert!(!text.contains("json_typeof"), "{what}: {text}");
            assert_eq!(text.contains(location), has_location.is_some(), "{what}: {text}");
            assert_eq!(text.contains(counts), has_counts.is_some(), "{what}: {text}");
            if has_location.is_none() && has_counts.is_none() {
                assert!(text.ends_with("null::text as extra"), "{what}: {text}");
            }
        }
        for (verb, text) in [
            ("update", update(&node, &[name], "{}".to_owned(), report).statement.text),
            ("delete", delete(&node, report).statement.text),
        ] {
            assert!(text.ends_with("null::text as extra"), "{verb}: {text}");
        }
    }

    /// A write with bounds records the rows it returns in a transaction-local
    /// setting, and comes with the check of that count: a statement of its
    /// own, the bounds as literals. The write itself checks nothing, so that
    /// its end-of-statement errors (foreign keys) come first.
    #[test]
    fn a_write_with_bounds_records_its_count_for_the_check_behind_it() {
        let page = "(select pg_catalog.count(*) from pgrst_ret) as page";
        let recorded = "pg_catalog.set_config('gateway.rows_touched', \
                        ((select pg_catalog.count(*) from pgrst_ret))::text, true)::int8 as page";
        let cases = [
            (None, None, page),
            (
                Some(Bounds { at_least: 1, at_most: 1 }),
                Some("select _gateway.check_rows_touched(1, 1)"),
                recorded,
            ),
            (
                Some(Bounds { at_least: 0, at_most: 2 }),
                Some("select _gateway.check_rows_touched(0, 2)"),
                recorded,
            ),
        ];
        for (bounds, check, counted) in cases {
            let plain = products_writes(None);
            for ((verb, write), (_, plain)) in products_writes(bounds).into_iter().zip(plain) {
                let what = format!("{verb} {bounds:?}");
                let check = check.map(|text| Statement { text: text.to_owned(), params: Vec::new() });
                assert_eq!(write.check, check, "{what}");
                assert!(write.statement.text.contains(counted), "{what}: {}", write.statement.text);
                assert!(!write.statement.text.contains("_gateway."), "{what}: {}", write.statement.text);
                assert_eq!(write.statement.text, plain.statement.text.replace(page, counted), "{what}");
                assert_eq!(write.statement.params, plain.statement.params, "{what}");
            }
        }
    }

    /// A singular call of a set-returning function, whatever it returns.
    #[test]
    fn a_call_with_bounds_records_its_count_for_the_check_behind_it() {
        use super::super::schema::fixture::{catalog, row_function};
        use super::super::{parse, plan};
        let cache = catalog(Vec::new());
        let function = row_function("filmography", "actors", Some("films"), false);
        let query = parse::parse_query(&[("select".to_owned(), "title".to_owned())]).expect("parses");
        let node = plan::read(&cache, "public", "films", &query).expect("plans");
        let body = r#"{"id":1}"#;
        let recorded =
            "pg_catalog.set_config('gateway.rows_touched', (pg_catalog.count(*))::text, true)::int8 as page";
        let check =
            Statement { text: "select _gateway.check_rows_touched(1, 1)".to_owned(), params: Vec::new() };
        for (what, result) in
            [("rows", CallResult::Rows(&node)), ("values", CallResult::Values { limit: None, offset: None })]
        {
            let report = Report {
                count: false,
                body: BodyKind::Object,
                bounds: Some(Bounds { at_least: 1, at_most: 1 }),
            };
            let write = call(
                &Resolved { function: &function, whole_body: false },
                &[],
                body.to_owned(),
                result,
                Some(10),
                report,
            );
            assert_eq!(write.check.as_ref(), Some(&check), "{what}");
            assert!(write.statement.text.contains(recorded), "{what}: {}", write.statement.text);
            assert!(!write.statement.text.contains("_gateway."), "{what}: {}", write.statement.text);
            assert_eq!(write.statement.params, vec![body.to_owned()], "{what}");
            assert!(call_binds_body(&Resolved { function: &function, whole_body: false }, &[]), "{what}");
        }
    }

    /// Every parameter a statement sends is used, numbered in order, and no
    /// placeholder is left without one: spreads once rendered expressions
    /// they then dropped, whose parameters stayed.
    #[test]
    fn every_parameter_is_used_and_numbered_once_whatever_the_select() {
        use super::super::{parse, plan};
        let cache = products();
        for query in [
            "select=name,...brands(name)&specs->>ram=eq.8&name=match.^G",
            "select=specs->>ram,...brands(id,name)&brands.name=imatch.^s&specs->colors->>0=eq.black",
            "select=name,...brands(a:name,b:name)&brands.name=in.(x,y)",
            "select=name,...brands(meta->>country,meta->size->>0,name)&specs->>ram=eq.8&brands.meta->>x=match.y",
            "select=specs->>ram.count(),...brands(name)&name=like.*a*",
        ] {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let parsed = parse::parse_query(&pairs).expect("parses");
            let node = plan::read(&cache, "public", "products", &parsed).expect("plans");
            let statement = read(&node, Some(10), true, BodyKind::Array);
            for n in 1..=statement.params.len() {
                assert!(
                    statement.text.contains(&format!("${n}")),
                    "{query}: ${n} unused in {}",
                    statement.text
                );
            }
            let over = format!("${}", statement.params.len() + 1);
            assert!(!statement.text.contains(&over), "{query}: {over} has no value in {}", statement.text);
        }
    }

    #[test]
    fn aggregates_group_by_the_other_outputs_and_a_to_one_spread_aggregates_at_its_parent() {
        let statement = films_read("films", "select=year,n:id.count()::text,count()");
        assert!(
            statement.text.contains(
                "select \"films\".\"year\" as \"year\", (count(\"films\".\"id\"))::text as \"n\", count(*) as \"count\" \
                 from \"public\".\"films\" as \"films\" group by 1"
            ),
            "{}",
            statement.text
        );
        // Only aggregates: one group, no GROUP BY.
        let statement = films_read("films", "select=year.max()");
        assert!(
            statement.text.contains(
                "select max(\"films\".\"year\") as \"max\" from \"public\".\"films\" as \"films\")"
            )
        );
        // The spread's row is read raw; its parent counts it and groups by title.
        let statement = films_read("films_actors", "select=role,...films(n:id.count())");
        assert!(
            statement.text.contains("count(\"films_actors_films_1\".\"n\") as \"n\"")
                && statement.text.contains("group by 1"),
            "{}",
            statement.text
        );
        assert!(
            statement.text.contains("left join lateral (select \"films_1\".\"id\" as \"n\" from"),
            "{}",
            statement.text
        );
    }

    #[test]
    fn a_to_many_spread_gives_an_array_per_output() {
        let statement = films_read("films", "select=title,...actors(last_name)&actors.order=last_name");
        assert!(
            statement.text.contains(
                "left join lateral (select coalesce(pg_catalog.json_agg(_s.\"last_name\"), '[]')::jsonb as \"last_name\" from ("
            ),
            "{}",
            statement.text
        );
        assert!(statement.text.contains("order by \"actors\".\"last_name\""), "{}", statement.text);
    }

    #[test]
    fn a_many_to_many_embed_joins_its_table_to_the_junction() {
        let statement = films_read("films", "select=title,actors(last_name)&actors.last_name=eq.Reno");
        assert!(
            statement.text.contains(
                "from \"public\".\"films_actors\" as _t0, \"public\".\"actors\" as \"actors\" \
                 where _t0.\"film_id\" = \"films\".\"id\" and _t0.\"actor_id\" = \"actors\".\"id\" \
                 and \"actors\".\"last_name\" = $1"
            ),
            "{}",
            statement.text
        );
        assert_eq!(statement.params, vec!["Reno".to_owned()]);
    }

    #[test]
    fn composite_keys_join_column_by_column() {
        let statement = films_read("shelves", "select=label,editions(title)");
        assert!(
            statement.text.contains(
                "where _t0.\"shelf_id\" = \"shelves\".\"id\" and _t0.\"isbn\" = \"editions\".\"isbn\" \
                 and _t0.\"lang\" = \"editions\".\"lang\""
            ),
            "{}",
            statement.text
        );
    }

    #[test]
    fn a_computed_field_is_its_function_of_the_row_cast_to_the_table() {
        let statement = films_read("actors", "select=id,full_name&full_name=like.A*&order=full_name");
        let call = "\"public\".\"full_name\"((\"actors\".*)::\"public\".\"actors\")";
        assert!(statement.text.contains(&format!("{call} as \"full_name\"")), "{}", statement.text);
        assert!(statement.text.contains(&format!("where {call} like $1")), "{}", statement.text);
        assert!(statement.text.contains(&format!("order by {call}")), "{}", statement.text);
    }

    #[test]
    fn a_computed_relationship_reads_its_function_of_the_parent_row() {
        let statement = films_read("actors", "select=filmography!inner(title),latest_film(title)");
        let from = "from \"public\".\"filmography\"((\"actors\".*)::\"public\".\"actors\") as \"films_1\"";
        assert!(statement.text.contains(from), "{}", statement.text);
        assert!(
            statement.text.contains(
                "from \"public\".\"latest_film\"((\"actors\".*)::\"public\".\"actors\") as \"films_1\""
            ),
            "{}",
            statement.text
        );
        // No join condition: the function picks the rows.
        assert!(!statement.text.contains(" where \"actors\".\"id\""), "{}", statement.text);
    }
}
