//! What a PostgREST-style request asks for, as plain owned data.
//!
//! [`crate::parse`] builds these values from the query string and the `Prefer` header;
//! the planner checks them against the schema cache. Nothing here knows about HTTP, SQL or the
//! database: names are the strings the client sent, values are the text it sent.
//!
//! The types mirror PostgREST's `ApiRequest.Types` and `ApiRequest.Preferences`
//! (<https://github.com/PostgREST/postgrest/tree/main/src/library/PostgREST/ApiRequest>).

use std::collections::BTreeMap;

/// Names leading from the top-level resource to an embedded one, each the embed's name or
/// alias as written in `select`: `brands.products.order=` → `["brands", "products"]`.
pub type EmbedPath = Vec<String>;

/// Everything the query string of a `/rest/v1/<table>` (or `/rpc/<fn>`) request says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryParams {
    /// `select=`. `[SelectItem::Star]` when the parameter is absent; empty when it was sent
    /// empty (`select=`), which PostgREST 12 answers with every column.
    pub select: Vec<SelectItem>,
    /// Filters, logic trees, order and range of the top-level resource.
    pub root: NodeParams,
    /// The same for embedded resources (`brands.name=eq.x`, `brands.order=…`, `brands.limit=…`).
    pub embedded: BTreeMap<EmbedPath, NodeParams>,
    /// Each embedded parameter's kind and path, in the order of the query
    /// string: PostgREST routes them one by one, and each moves the embed it
    /// reaches to the front (see `plan::route`).
    pub embedded_order: Vec<(ParamKind, EmbedPath)>,
    /// `columns=` of an insert or upsert: the payload keys to use, duplicates dropped.
    pub columns: Option<Vec<String>>,
    /// `on_conflict=` of an upsert.
    pub on_conflict: Option<Vec<String>>,
    /// Arguments of a `GET`/`HEAD` RPC call: parameters whose value is not an operator
    /// expression (`?q=x&ids={1,2}`), as `(name, value)`. Only [`crate::parse::parse_rpc_read_query`] fills it.
    pub rpc_args: Vec<(String, String)>,
}

impl QueryParams {
    /// The parameters of the resource at `path` (`[]` is the top level), if any were sent.
    pub fn node(&self, path: &[String]) -> Option<&NodeParams> {
        if path.is_empty() { Some(&self.root) } else { self.embedded.get(path) }
    }
}

/// The kinds of an embed's parameters, in the order PostgREST applies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ParamKind {
    Filter,
    Order,
    Range,
    Logic,
}

/// Conditions and shaping that apply to one resource: the top level or one embed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeParams {
    /// One per filter parameter, in query order; they are ANDed.
    pub filters: Vec<Filter>,
    /// One per `or=`/`and=`/`not.or=`/`not.and=` parameter; ANDed with the filters.
    pub logic: Vec<LogicTree>,
    /// `order=`; when several are sent, the first one counts (as in PostgREST).
    pub order: Vec<OrderTerm>,
    /// `limit=`, as sent; negative values are left for the response layer (PGRST103, 416).
    pub limit: Option<i64>,
    /// `offset=`, as sent.
    pub offset: Option<i64>,
}

/// One element of `select`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectItem {
    /// `*`: every column.
    Star,
    /// A column, JSON path, computed field or aggregate of one: `alias:col->a::text`, `price.sum()`.
    Column(ColumnSelect),
    /// `count()` with no column: the row count, as aggregate.
    Count {
        /// `alias:count()`.
        alias: Option<String>,
        /// `count()::text`.
        cast: Option<String>,
    },
    /// An embedded resource `alias:rel!hint!inner(...)`, or a spread `...rel(...)`.
    Embed(Embed),
}

/// A column in `select`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnSelect {
    pub field: Field,
    /// `alias:col`.
    pub alias: Option<String>,
    /// `col::type`; letters, digits, `_`, spaces and trailing `[]` pairs only.
    pub cast: Option<String>,
    /// `col.sum()`.
    pub aggregate: Option<Aggregate>,
    /// `col.sum()::type`.
    pub aggregate_cast: Option<String>,
}

/// The aggregate functions PostgREST accepts in `select` (`pAggregation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    Sum,
    Avg,
    Count,
    Max,
    Min,
}

impl Aggregate {
    /// The SQL function's name, which is also the output's default key.
    pub fn name(self) -> &'static str {
        match self {
            Aggregate::Sum => "sum",
            Aggregate::Avg => "avg",
            Aggregate::Count => "count",
            Aggregate::Max => "max",
            Aggregate::Min => "min",
        }
    }
}

/// An embedded resource in `select`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Embed {
    /// The table, view or function named before the parenthesis.
    pub relation: String,
    /// `alias:rel(...)`; always `None` for a spread.
    pub alias: Option<String>,
    /// `rel!fk_name(...)` or `rel!column(...)`: which relationship to use.
    pub hint: Option<String>,
    /// `rel!inner(...)` / `rel!left(...)`.
    pub join: Option<JoinType>,
    /// `...rel(...)`: the embed's columns are lifted into the parent object.
    pub spread: bool,
    /// What to select from the embed; empty for `rel()`.
    pub children: Vec<SelectItem>,
}

/// `!inner` or `!left` on an embed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinType {
    Inner,
    Left,
}

/// A column name with an optional JSON path: `data->items->0->>name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub json_path: Vec<JsonStep>,
}

impl Field {
    /// A plain column, no JSON path.
    pub fn column(name: impl Into<String>) -> Self {
        Field { name: name.into(), json_path: Vec::new() }
    }
}

/// One `->`/`->>` step of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonStep {
    pub arrow: JsonArrow,
    pub key: JsonKey,
}

/// `->` keeps JSON, `->>` yields text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonArrow {
    /// `->`
    Json,
    /// `->>`
    Text,
}

/// The operand of a JSON arrow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonKey {
    /// An object key: `->name`, `->"a.b"`.
    Key(String),
    /// An array index: `->0`, `->-1` (PostgREST `JIdx`).
    Index(i64),
}

/// One filter: `col=op.value`, `rel.col=op.value`, or `col.op.value` inside a logic tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub field: Field,
    /// `not.` before the operator.
    pub negated: bool,
    pub operation: Operation,
}

impl Filter {
    /// For `rel=is.null` / `rel=not.is.null` / `rel=is.not_null`: `Some(true)` when the test is
    /// "is null". When the field names an embed of the same node (by alias or name), the planner
    /// reads it as "the embed has no matching row" (PostgREST `addNullEmbedFilters`).
    pub fn null_test(&self) -> Option<bool> {
        if !self.field.json_path.is_empty() {
            return None;
        }
        match self.operation {
            Operation::Is(IsValue::Null) => Some(!self.negated),
            Operation::Is(IsValue::NotNull) => Some(self.negated),
            _ => None,
        }
    }
}

/// An operator with its operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `eq.v`, `gt.v`, `like.a*` … The value is raw text; in `like`/`ilike` every `*` has
    /// already become `%`.
    Compare { op: CompareOp, value: String },
    /// `eq(any).{a,b}`, `like(all).(a*,b*)`: the operator against each listed value.
    Quantified { op: CompareOp, quantifier: Quantifier, values: Vec<String> },
    /// `cs.{a,b}`, `sl.(1,10)` …: the value is a Postgres array or range literal, kept as sent.
    ArrayRange { op: ArrayRangeOp, value: String },
    /// `in.(a,"b,c")`; `in.()` is the empty list.
    In(Vec<String>),
    /// `is.null`, `is.true` …
    Is(IsValue),
    /// `isdistinct.v`.
    IsDistinct(String),
    /// `fts(english).query` and its plain, phrase and websearch variants.
    FullText { op: FtsOp, language: Option<String>, query: String },
}

/// Operators that compare with one value and take `(any)`/`(all)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    ILike,
    Match,
    IMatch,
}

impl CompareOp {
    /// The operator as written in the query string.
    pub fn token(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Neq => "neq",
            CompareOp::Gt => "gt",
            CompareOp::Gte => "gte",
            CompareOp::Lt => "lt",
            CompareOp::Lte => "lte",
            CompareOp::Like => "like",
            CompareOp::ILike => "ilike",
            CompareOp::Match => "match",
            CompareOp::IMatch => "imatch",
        }
    }
}

/// Array and range operators (PostgREST's `SimpleOperator` minus `neq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayRangeOp {
    /// `cs`: contains.
    Contains,
    /// `cd`: is contained in.
    ContainedIn,
    /// `ov`: overlaps.
    Overlaps,
    /// `sl`: strictly left of.
    StrictlyLeft,
    /// `sr`: strictly right of.
    StrictlyRight,
    /// `nxr`: does not extend to the right of.
    NotExtendsRight,
    /// `nxl`: does not extend to the left of.
    NotExtendsLeft,
    /// `adj`: is adjacent to.
    Adjacent,
}

impl ArrayRangeOp {
    /// The operator as written in the query string.
    pub fn token(self) -> &'static str {
        match self {
            ArrayRangeOp::Contains => "cs",
            ArrayRangeOp::ContainedIn => "cd",
            ArrayRangeOp::Overlaps => "ov",
            ArrayRangeOp::StrictlyLeft => "sl",
            ArrayRangeOp::StrictlyRight => "sr",
            ArrayRangeOp::NotExtendsRight => "nxr",
            ArrayRangeOp::NotExtendsLeft => "nxl",
            ArrayRangeOp::Adjacent => "adj",
        }
    }
}

/// `(any)` or `(all)` after a comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    Any,
    All,
}

/// The operand of `is`, a fixed keyword because `IS` cannot take a bound parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
    Unknown,
}

/// The four full-text search operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FtsOp {
    /// `fts`: `to_tsquery`.
    Fts,
    /// `plfts`: `plainto_tsquery`.
    Plain,
    /// `phfts`: `phraseto_tsquery`.
    Phrase,
    /// `wfts`: `websearch_to_tsquery`.
    Websearch,
}

impl FtsOp {
    /// The operator as written in the query string.
    pub fn token(self) -> &'static str {
        match self {
            FtsOp::Fts => "fts",
            FtsOp::Plain => "plfts",
            FtsOp::Phrase => "phfts",
            FtsOp::Websearch => "wfts",
        }
    }
}

/// `or=(…)` / `and=(…)`: filters combined with nested groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogicTree {
    /// `not.and(…)` / `or(…)`: a group of at least one child.
    Group { negated: bool, op: LogicOp, children: Vec<LogicTree> },
    /// `field.op.value` inside a group.
    Filter(Filter),
}

/// How a logic group combines its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
}

/// One term of `order=`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderTerm {
    /// `rel(col)`: order by a column of a to-one embed.
    pub relation: Option<String>,
    pub field: Field,
    pub direction: Option<OrderDirection>,
    pub nulls: Option<NullsOrder>,
}

/// `.asc` / `.desc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderDirection {
    Asc,
    Desc,
}

/// `.nullsfirst` / `.nullslast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NullsOrder {
    First,
    Last,
}

/// The `Prefer` header(s), RFC 7240, as PostgREST reads them (`Preferences.fromHeaders`).
///
/// Each field holds the first recognised value of its kind; tokens nobody recognises are
/// kept in `invalid` (PostgREST answers them with PGRST122 under `handling=strict`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefer {
    /// `resolution=merge-duplicates|ignore-duplicates`.
    pub resolution: Option<Resolution>,
    /// `return=minimal|headers-only|representation`.
    pub representation: Option<Representation>,
    /// `count=exact|planned|estimated`.
    pub count: Option<CountMethod>,
    /// `tx=commit|rollback`; honoured only when the server allows the override.
    pub transaction: Option<Transaction>,
    /// `missing=default|null`.
    pub missing: Option<Missing>,
    /// `handling=strict|lenient`.
    pub handling: Option<Handling>,
    /// `timezone=<name>`, a zone of `pg_timezone_names`.
    pub timezone: Option<String>,
    /// `max-affected=<n>`; ignored unless it is an integer.
    pub max_affected: Option<i64>,
    /// Tokens that are none of the above, trimmed, in header order.
    pub invalid: Vec<String>,
}

impl Prefer {
    /// The `Preference-Applied` header value: the recognised preferences, in
    /// the order PostgREST lists them (`prefAppliedHeader`), joined by `, `;
    /// `None` when nothing was recognised. The response layer clears the
    /// fields it did not honour (say `tx` when overrides are off) before
    /// calling this.
    pub fn preference_applied(&self) -> Option<String> {
        let mut header = String::new();
        let mut add = |parts: &[&str]| {
            if !header.is_empty() {
                header.push_str(", ");
            }
            parts.iter().for_each(|part| header.push_str(part));
        };
        let tokens = [
            self.resolution.map(Resolution::token),
            self.missing.map(Missing::token),
            self.representation.map(Representation::token),
            self.count.map(CountMethod::token),
            self.transaction.map(Transaction::token),
            self.handling.map(Handling::token),
        ];
        for token in tokens.into_iter().flatten() {
            add(&[token]);
        }
        if let Some(timezone) = &self.timezone {
            add(&["timezone=", timezone]);
        }
        if let (Some(Handling::Strict), Some(max)) = (self.handling, self.max_affected) {
            add(&["max-affected=", &max.to_string()]);
        }
        (!header.is_empty()).then_some(header)
    }
}

/// `resolution=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    MergeDuplicates,
    IgnoreDuplicates,
}

impl Resolution {
    pub fn token(self) -> &'static str {
        match self {
            Resolution::MergeDuplicates => "resolution=merge-duplicates",
            Resolution::IgnoreDuplicates => "resolution=ignore-duplicates",
        }
    }
}

/// `return=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Minimal,
    HeadersOnly,
    Full,
}

impl Representation {
    pub fn token(self) -> &'static str {
        match self {
            Representation::Minimal => "return=minimal",
            Representation::HeadersOnly => "return=headers-only",
            Representation::Full => "return=representation",
        }
    }
}

/// `count=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountMethod {
    Exact,
    Planned,
    Estimated,
}

impl CountMethod {
    pub fn token(self) -> &'static str {
        match self {
            CountMethod::Exact => "count=exact",
            CountMethod::Planned => "count=planned",
            CountMethod::Estimated => "count=estimated",
        }
    }
}

/// `tx=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transaction {
    Commit,
    Rollback,
}

impl Transaction {
    pub fn token(self) -> &'static str {
        match self {
            Transaction::Commit => "tx=commit",
            Transaction::Rollback => "tx=rollback",
        }
    }
}

/// `missing=`: what a column listed in `columns=` but absent from a payload object gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    Default,
    Null,
}

impl Missing {
    pub fn token(self) -> &'static str {
        match self {
            Missing::Default => "missing=default",
            Missing::Null => "missing=null",
        }
    }
}

/// `handling=`: whether unknown preferences are an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handling {
    Strict,
    Lenient,
}

impl Handling {
    pub fn token(self) -> &'static str {
        match self {
            Handling::Strict => "handling=strict",
            Handling::Lenient => "handling=lenient",
        }
    }
}
