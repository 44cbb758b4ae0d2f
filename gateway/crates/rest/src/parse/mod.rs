//! From the query string of a `/rest/v1` request, and its `Prefer` header, to [`crate::ast`].
//!
//! This is PostgREST's grammar (`src/library/PostgREST/ApiRequest/QueryParams.hs` and
//! `ApiRequest/Preferences.hs` in <https://github.com/PostgREST/postgrest>), transcribed
//! parser by parser onto a small copy of the Parsec rules it runs on (`parsec.rs`), so that a
//! bad request gets the same PGRST100 body, position and wording included, as from PostgREST.
//! The text below is checked against PostgREST 12.0.2 in the tests of each submodule.
//!
//! # Entry points
//!
//! * [`parse_query`]: the form-decoded query pairs, in order, repeated keys kept.
//! * [`parse_rpc_read_query`]: the same for `GET /rpc/<fn>`, where plain values are arguments.
//! * [`parse_prefer`]: the `Prefer` header values; never fails.
//!
//! # Which parameter is what
//!
//! A key is classified by its last `.`-separated segment, then by its whole text:
//!
//! | key                                   | meaning                               | if repeated   |
//! |---------------------------------------|---------------------------------------|---------------|
//! | `[path.]order`                        | order of the resource at `path`       | first counts  |
//! | `[path.]limit`, `[path.]offset`       | range of the resource at `path`       | last counts   |
//! | `[path.][not.]or`, `[path.][not.]and` | a logic tree, ANDed with the filters  | all kept      |
//! | `select`                              | the select tree                       | first counts  |
//! | `columns`, `on_conflict`              | insert columns, upsert conflict target | first counts |
//! | `apikey`                              | ignored (the gateway reads the key)   |               |
//! | anything else, `[path.]field`         | a filter                              | all kept      |
//!
//! `path` names embeds by name or alias (`brands.products.order=name`). They are parsed in
//! PostgREST's order (order, logic, columns, select, filters, on_conflict, then limit and
//! offset), so a request with several mistakes reports the same one.
//!
//! # Grammar
//!
//! Each value is parsed whole. `ws` is spaces and tabs, skipped where the grammar says `_`.
//!
//! ```text
//! name        = quoted | ident { "-" ident }          a "-" starting "->" ends the name
//! quoted      = '"' { any but \ and " | "\" any } '"'
//! ident       = { letter | digit | "_" | " " | "$" }+  trimmed
//! field       = _ name json-path _
//! json-path   = { ("->>" | "->") (index | key) }
//! index       = ["-"] digit+                           then "->", "::", ".", "," or the end
//! key         = quoted | { any but ( - : . , > ) }+ joined by "-", trimmed
//!
//! filter key  = name { "." name } json-path            all names but the last are the path
//! filter      = ["not."] operation
//! operation   = "in." list | "is." is-value | "isdistinct." value
//!             | fts-op ["(" ident ")"] "." value
//!             | array-op "." value
//!             | cmp-op "." value | cmp-op ("(any)" | "(all)") "." q-list
//! cmp-op      = eq | neq | gt | gte | lt | lte | like | ilike | match | imatch
//! array-op    = cs | cd | ov | sl | sr | nxr | nxl | adj     value kept raw
//! fts-op      = fts | plfts | phfts | wfts
//! is-value    = null | not_null | true | false | unknown     any letter case
//! list        = _ "(" _ element { "," element } _ ")" _      "()" is the empty list
//! element     = quoted (followed by "," or ")") | { any but , ) }
//! q-list      = "{" element { "," element } "}" | "(" element { "," element } ")"
//! value       = the rest of the parameter;
//!               inside a logic tree: quoted | "{" { any but { } } "}" | { any but , ) }
//!
//! logic       = field "." filter
//!             | ["not."] ("and" | "or") _ "(" _ logic { _ "," _ logic } _ ")" _
//!               (the key's `or`/`not.and` is glued before the value: `or=(a.eq.1)` is `or(a.eq.1)`)
//!
//! select      = [ item { _ "," _ item } ]
//! item        = _ "..." name embed-params _ "(" select ")"
//!             | _ [name ":"] name embed-params _ "(" select ")"       name is not "count"
//!             | _ "*" _
//!             | _ [name ":"] "count()" [cast] _
//!             | _ [name ":"] field [cast] ["." aggregate "()"] [cast] _
//! embed-params= ["!" param] ["!" param]    param = "left" | "inner" | name (a hint)
//! cast        = "::" { ascii-letter | digit | "_" | " " }+ { "[]" }
//! aggregate   = sum | avg | count | max | min
//!
//! order       = term { "," term }
//! term        = _ (name "(" field ")" | field) [".asc" | ".desc"] [".nullsfirst" | ".nullslast"] _
//! columns     = name { _ "," _ name }                          also on_conflict
//! limit       = ["-"] digit+                                   also offset; else no range
//! ```
//!
//! Nesting of embeds and of logic groups stops at [`MAX_DEPTH`] levels.
//!
//! # Examples
//!
//! Accepted (see the tests for the trees they give):
//!
//! ```text
//! select=*,brands(id,name)                 select=id,label:name,price::text
//! select=id,brand:brands!inner(name)       select=title,...directors(director:name)
//! select=data->items->0->>name             select=id,actors()
//! name=ilike.*phone*                       price=gte.100&price=lte.500
//! id=in.(1,2,"a,b","say \"hi\"")           featured=is.TRUE
//! tags=cs.{a,b}                            body=wfts(english).cat dog
//! name=like(any).{iP*,Gal*}                id=not.eq(all).(1,2)
//! or=(price.lt.10,and(featured.is.true,name.eq."a,b"))
//! brands.name=eq.Apple&brands.order=name.desc&brands.limit=3&brands.or=(id.eq.1)
//! order=featured.desc.nullslast,price.desc,brands(name)
//! brands=not.is.null                       columns="name","price"&on_conflict=id
//! ```
//!
//! Rejected, with the body's `message` and `details`:
//!
//! ```text
//! price=gtx.5
//!   "failed to parse filter (gtx.5)" (line 1, column 3)
//!   unexpected "x" expecting operator (eq, gt, ...)
//! name=noop.0
//!   "failed to parse filter (noop.0)" (line 1, column 1)
//!   unexpected "o" expecting "not" or operator (eq, gt, ...)
//! id=in.1,2
//!   "failed to parse filter (in.1,2)" (line 1, column 4)
//!   unexpected "1" expecting "("
//! select=id,clients(name[])
//!   "failed to parse select parameter (id,clients(name[]))" (line 1, column 16)
//!   unexpected '[' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input
//! select=id,
//!   "failed to parse select parameter (id,)" (line 1, column 4)
//!   unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"
//! order=id.ac
//!   "failed to parse order (id.ac)" (line 1, column 4)
//!   unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"
//! or=(id.eq.1,not.xor(id.eq.2))
//!   "failed to parse logic tree ((id.eq.1,not.xor(id.eq.2)))" (line 1, column 16)
//!   unexpected "x" expecting logic operator (and, or)
//! a..b=eq.1
//!   "failed to parse tree path (a..b)" (line 1, column 3)
//!   unexpected "." expecting field name (* or [a..z0..9_$])
//! ```
//!
//! Ignored, as by PostgREST: `limit=ten`, `limit=1.5` (no range), `select=->x` (every
//! column), `or=(id.eq.1))` (the `or` without the last `)`).
//!
//! # Where we differ from PostgREST on purpose
//!
//! * Text left after a complete parse is an error, except in `select` and logic trees, where
//!   PostgREST 12-14 ignore it too (`select=id)`, `select=->x`, `or=(a.eq.1))`; see
//!   [`run_prefix`]). PostgREST also stops early and ignores the rest of `is.truex` and of
//!   a key `a)`.
//! * A `select` whose rest goes on with a letter, digit, `_` or `$` where our stricter names
//!   or casts stopped is PGRST100 (`price::tex$t`), rather than cut into another name.
//! * Casts allow ASCII letters, digits, `_`, spaces and trailing `[]` only (PostgREST: any
//!   letter, `$`, no `[]`), since the planner writes them into SQL unquoted.
//! * `neq` takes `(any)`/`(all)`; a quantified operand must be a `{…}` or `(…)` list, parsed
//!   here; `*` in `like`/`ilike` operands is already `%` in the tree.
//! * `apikey` is not a filter.
//! * Nesting deeper than [`MAX_DEPTH`] is PGRST100 with details
//!   "nesting deeper than 64 levels is not supported".
//!
//! What the tree means is for the planner: whether names exist, whether `rel=is.null` names an
//! embed (see [`crate::ast::Filter::null_test`]), whether a negative limit is a 416.

mod body;
mod field;
mod filter;
mod logic;
mod order;
mod parsec;
mod prefer;
mod select;

use std::fmt;

use self::filter::ValueContext;
use self::parsec::{Parser, Reply, Seq};
use crate::ast::{EmbedPath, Filter, NodeParams, ParamKind, QueryParams, SelectItem};

pub use self::body::{BodyError, JsonRows, flat_members, json_rows, object_keys};
pub use self::parsec::MAX_DEPTH;
pub use self::prefer::parse_prefer;

/// A request PostgREST would answer with `400` and this body; `code` is always `PGRST100`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub code: &'static str,
    /// `"failed to parse filter (gtx.5)" (line 1, column 3)`: what was being parsed, the
    /// offending parameter value, and Parsec's position in it.
    pub message: String,
    /// `unexpected "x" expecting operator (eq, gt, ...)`.
    pub details: Option<String>,
    pub hint: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(details) = &self.details {
            write!(f, ": {details}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

/// Parses the query string of a table request: `pairs` are the form-decoded parameters in
/// the order they arrived, repeated keys included.
///
/// # Errors
///
/// The first parameter that does not follow the grammar above, as PostgREST reports it.
pub fn parse_query(pairs: &[(String, String)]) -> Result<QueryParams, ParseError> {
    parse(pairs, false)
}

/// Parses the query string of a `GET`/`HEAD` call to `/rpc/<fn>`: a parameter whose value is
/// not an operator expression is a function argument (`?q=x` → `rpc_args` `("q", "x")`), as in
/// PostgREST's `pRequestFilter` with `isRpcRead`.
///
/// # Errors
///
/// As [`parse_query`]; a value that starts like an operator expression must finish as one.
pub fn parse_rpc_read_query(pairs: &[(String, String)]) -> Result<QueryParams, ParseError> {
    parse(pairs, true)
}

/// What a query-string key is, from its last `.`-separated segment (PostgREST `endingIn`).
enum Key {
    Select,
    Columns,
    OnConflict,
    Order,
    Limit,
    Offset,
    Logic,
    Ignored,
    Filter,
}

enum Range {
    Limit,
    Offset,
}

fn classify(key: &str) -> Key {
    match key.rsplit('.').next().unwrap_or(key) {
        "order" => return Key::Order,
        "limit" => return Key::Limit,
        "offset" => return Key::Offset,
        "and" | "or" => return Key::Logic,
        _ => {}
    }
    match key {
        "select" => Key::Select,
        "columns" => Key::Columns,
        "on_conflict" => Key::OnConflict,
        // Supabase's Kong accepts the API key as `?apikey=` as well as a header (wire-protocol
        // notes §1.2); the gateway reads it before us, and it never names a column.
        "apikey" => Key::Ignored,
        _ => Key::Filter,
    }
}

fn parse(pairs: &[(String, String)], rpc_read: bool) -> Result<QueryParams, ParseError> {
    let mut select = None;
    let mut columns = None;
    let mut on_conflict = None;
    let mut orders = Vec::new();
    let mut logic = Vec::new();
    let mut filters = Vec::new();
    let mut ranges = Vec::new();
    for (key, value) in pairs {
        let (key, value) = (key.as_str(), value.as_str());
        match classify(key) {
            // PostgREST looks these up with `lookup`: the first occurrence counts.
            Key::Select => {
                select.get_or_insert(value);
            }
            Key::Columns => {
                columns.get_or_insert(value);
            }
            Key::OnConflict => {
                on_conflict.get_or_insert(value);
            }
            Key::Order => orders.push((key, value)),
            Key::Logic => logic.push((key, value)),
            Key::Limit => ranges.push((key, value, Range::Limit)),
            Key::Offset => ranges.push((key, value, Range::Offset)),
            Key::Filter => filters.push((key, value)),
            Key::Ignored => {}
        }
    }

    // The same order as PostgREST's `QueryParams.parse`, so that a request with several
    // mistakes reports the same one.
    let mut query = QueryParams::default();
    for (key, value) in orders {
        let path = embed_path_of(key)?;
        let terms = run("order", value, value, Parser::order_terms)?;
        note(&mut query, ParamKind::Order, &path);
        let node = node_mut(&mut query, path);
        if node.order.is_empty() {
            node.order = terms;
        }
    }
    for (key, value) in logic {
        let (path, op) = run("logic path", key, key, Parser::logic_path)?;
        let tree = run_prefix("logic tree", value, &format!("{op}{value}"), Parser::logic_tree, false)?;
        note(&mut query, ParamKind::Logic, &path);
        node_mut(&mut query, path).logic.push(tree);
    }
    if let Some(value) = columns {
        let mut names = run("columns parameter", value, value, Parser::columns)?;
        let mut seen = std::collections::HashSet::new();
        names.retain(|name| seen.insert(name.clone()));
        query.columns = Some(names);
    }
    query.select = match select {
        Some(value) => run_prefix("select parameter", value, value, Parser::select_items, true)?,
        None => vec![SelectItem::Star],
    };
    for (key, value) in filters {
        let (path, field) = run("tree path", key, key, Parser::tree_path)?;
        let expression = if rpc_read {
            run("filter", value, value, |p| {
                p.alt(|p| map_some(p.op_expr(ValueContext::Parameter)), rest_as_none)
            })?
        } else {
            Some(run("filter", value, value, |p| p.op_expr(ValueContext::Parameter))?)
        };
        match expression {
            Some((negated, operation)) => {
                note(&mut query, ParamKind::Filter, &path);
                node_mut(&mut query, path).filters.push(Filter { field, negated, operation });
            }
            None => query.rpc_args.push((field.name, value.to_owned())),
        }
    }
    if let Some(value) = on_conflict {
        query.on_conflict = Some(run("on_conflict parameter", value, value, Parser::columns)?);
    }
    for (key, value, range) in ranges {
        let path = embed_path_of(key)?;
        // An empty one is how a bare `?limit` arrives: PostgREST drops it.
        if value.is_empty() {
            continue;
        }
        note(&mut query, ParamKind::Range, &path);
        let slot = match range {
            Range::Limit => &mut node_mut(&mut query, path).limit,
            Range::Offset => &mut node_mut(&mut query, path).offset,
        };
        // PostgREST keeps ranges in a map keyed by parameter name: the last one counts. One
        // it cannot read (`readMaybe`) is no range at all, in 12 as in 13/14.
        *slot = read_integer(value);
    }
    Ok(query)
}

fn map_some<T>(reply: Reply<T>) -> Reply<Option<T>> {
    parsec::map(reply, Some)
}

/// `pure (NoOpExpr v)`: the whole value is an RPC argument.
fn rest_as_none<T>(parser: &mut Parser) -> Reply<Option<T>> {
    let reply = parser.many(Parser::any_char);
    parsec::map(reply, |_| None)
}

/// The embed path of a `rel.order`/`rel.limit`/`rel.offset` key: its names but the last.
fn embed_path_of(key: &str) -> Result<EmbedPath, ParseError> {
    let (path, _field) = run("tree path", key, key, Parser::tree_path)?;
    Ok(path)
}

/// Records an embedded parameter's kind and path in query order.
fn note(query: &mut QueryParams, kind: ParamKind, path: &EmbedPath) {
    if !path.is_empty() {
        query.embedded_order.push((kind, path.clone()));
    }
}

fn node_mut(query: &mut QueryParams, path: EmbedPath) -> &mut NodeParams {
    if path.is_empty() { &mut query.root } else { query.embedded.entry(path).or_default() }
}

/// A limit or offset as Haskell's `readMaybe` reads an `Integer`: `-`? digits, with blanks
/// around; anything else, or a number past `i64`, is none.
fn read_integer(value: &str) -> Option<i64> {
    let text = value.trim();
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Runs `parser` over the whole of `input` and turns a failure into PostgREST's error body:
/// `"failed to parse <what> (<shown>)" (line L, column C)` (Haskell `show` of the Parsec
/// position, whose source name is that text) and the rendered Parsec messages.
fn run<T>(
    what: &str,
    shown: &str,
    input: &str,
    parser: impl Fn(&mut Parser) -> Reply<T>,
) -> Result<T, ParseError> {
    run_to(what, shown, input, parser, None)
}

/// [`run`] over the start of `input`, ignoring what is left after a complete parse, as
/// PostgREST 12-14 parse `select` and logic trees (`P.parse pFieldForest`, `P.parse
/// pLogicTree`, with no `eof`): `select=id)` selects `id`, `select=->x` nothing (every
/// column), `or=(id.eq.1))` is `or=(id.eq.1)`. With `whole_names`, not where the rest goes
/// on with a letter, a digit, `_` or `$`: in `select`, our stricter names and casts stop
/// where PostgREST's go on (`price::tex$t`), and a cut name would mean another column or
/// type.
fn run_prefix<T>(
    what: &str,
    shown: &str,
    input: &str,
    parser: impl Fn(&mut Parser) -> Reply<T>,
    whole_names: bool,
) -> Result<T, ParseError> {
    run_to(what, shown, input, parser, Some(whole_names))
}

fn run_to<T>(
    what: &str,
    shown: &str,
    input: &str,
    parser: impl Fn(&mut Parser) -> Reply<T>,
    prefix: Option<bool>,
) -> Result<T, ParseError> {
    let whole = |p: &mut Parser| {
        let mut seq = Seq::new(p);
        match seq.step(parser(p)) {
            Ok(value) if prefix.is_some_and(|whole_names| !(whole_names && p.continues_a_name())) => {
                seq.done(value)
            }
            Ok(value) => match seq.step(p.eof()) {
                Ok(()) => seq.done(value),
                Err(failure) => Err(failure),
            },
            Err(failure) => Err(failure),
        }
    };
    // Messages only matter when the parse fails: valid input is parsed without them.
    if let Ok(success) = whole(&mut Parser::without_messages(input)) {
        return Ok(success.value);
    }
    let mut state = Parser::new(input);
    let reply = whole(&mut state);
    match reply {
        Ok(success) => Ok(success.value),
        Err(failure) => {
            let (line, column) = state.line_column(failure.error.pos);
            Err(ParseError {
                code: "PGRST100",
                message: format!("\"failed to parse {what} ({shown})\" (line {line}, column {column})"),
                details: Some(failure.error.render_messages()),
                hint: None,
            })
        }
    }
}

#[cfg(test)]
pub(super) mod test_support {
    //! Short constructors for the expected trees in the tests.

    use super::{ParseError, parse_query};
    use crate::ast::{
        ColumnSelect, CompareOp, Embed, Field, JsonArrow, JsonKey, JsonStep, Operation, QueryParams,
        SelectItem,
    };

    pub(crate) fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    pub(crate) fn query(list: &[(&str, &str)]) -> Result<QueryParams, ParseError> {
        parse_query(&pairs(list))
    }

    /// The message and details of the error for one parameter.
    pub(crate) fn error(key: &str, value: &str) -> (String, String) {
        match query(&[(key, value)]) {
            Ok(parsed) => panic!("{key}={value} parsed as {parsed:?}"),
            Err(e) => {
                assert_eq!(e.code, "PGRST100");
                assert_eq!(e.hint, None);
                (e.message, e.details.unwrap_or_default())
            }
        }
    }

    /// Checks a table of `(key, value, message, details)`.
    pub(crate) fn assert_errors(cases: &[(&str, &str, &str, &str)]) {
        for (key, value, message, details) in cases {
            let (got_message, got_details) = error(key, value);
            assert_eq!((got_message.as_str(), got_details.as_str()), (*message, *details), "{key}={value}");
        }
    }

    pub(crate) fn field(name: &str) -> Field {
        Field::column(name)
    }

    /// `json("data", "->a->>0")`: a field with a JSON path written as in the query string,
    /// with unquoted keys and indices only.
    pub(crate) fn json(name: &str, path: &str) -> Field {
        let mut steps = Vec::new();
        let mut rest = path;
        while !rest.is_empty() {
            let (arrow, after) = match rest.strip_prefix("->>") {
                Some(after) => (JsonArrow::Text, after),
                None => (JsonArrow::Json, rest.strip_prefix("->").expect("a path of -> and ->> steps")),
            };
            let end = after.find("->").unwrap_or(after.len());
            let (operand, tail) = after.split_at(end);
            let key = match operand.parse() {
                Ok(index) => JsonKey::Index(index),
                Err(_) => JsonKey::Key(operand.to_owned()),
            };
            steps.push(JsonStep { arrow, key });
            rest = tail;
        }
        Field { name: name.to_owned(), json_path: steps }
    }

    pub(crate) fn column(field: Field) -> ColumnSelect {
        ColumnSelect { field, alias: None, cast: None, aggregate: None, aggregate_cast: None }
    }

    pub(crate) fn col(name: &str) -> SelectItem {
        SelectItem::Column(column(Field::column(name)))
    }

    pub(crate) fn embed(relation: &str, children: Vec<SelectItem>) -> Embed {
        Embed { relation: relation.to_owned(), alias: None, hint: None, join: None, spread: false, children }
    }

    pub(crate) fn compare(op: CompareOp, value: &str) -> Operation {
        Operation::Compare { op, value: value.to_owned() }
    }

    pub(crate) fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::test_support::{assert_errors, col, compare, embed, error, field, pairs, query, strings};
    use super::{MAX_DEPTH, parse_query, parse_rpc_read_query};
    use crate::ast::{
        CompareOp, Embed, Filter, IsValue, JoinType, LogicOp, LogicTree, NodeParams, NullsOrder, Operation,
        OrderDirection, OrderTerm, QueryParams, SelectItem,
    };

    fn parsed(list: &[(&str, &str)]) -> QueryParams {
        match query(list) {
            Ok(parsed) => parsed,
            Err(e) => panic!("{list:?}: {e}"),
        }
    }

    fn filter(name: &str, operation: Operation) -> Filter {
        Filter { field: field(name), negated: false, operation }
    }

    #[test]
    fn no_parameters_select_everything() {
        assert_eq!(parsed(&[]), QueryParams { select: vec![SelectItem::Star], ..QueryParams::default() });
    }

    #[test]
    fn the_product_list_request_of_supabase_js_parses_into_its_parts() {
        // wire-protocol.md §2.3 (a), as the gateway receives it after form-decoding.
        let parsed = parsed(&[
            ("select", "*,brands(id,name,description)"),
            ("name", "ilike.%phone%"),
            ("order", "featured.desc.nullslast,price.desc"),
            ("offset", "0"),
            ("limit", "2"),
        ]);
        let expected = QueryParams {
            select: vec![
                SelectItem::Star,
                SelectItem::Embed(embed("brands", vec![col("id"), col("name"), col("description")])),
            ],
            root: NodeParams {
                filters: vec![filter("name", compare(CompareOp::ILike, "%phone%"))],
                order: vec![
                    OrderTerm {
                        relation: None,
                        field: field("featured"),
                        direction: Some(OrderDirection::Desc),
                        nulls: Some(NullsOrder::Last),
                    },
                    OrderTerm {
                        relation: None,
                        field: field("price"),
                        direction: Some(OrderDirection::Desc),
                        nulls: None,
                    },
                ],
                limit: Some(2),
                offset: Some(0),
                ..NodeParams::default()
            },
            ..QueryParams::default()
        };
        assert_eq!(parsed, expected);
    }

    #[test]
    fn an_inner_embed_with_an_embedded_filter_keeps_the_filter_on_the_embed() {
        // wire-protocol.md §2.3 (c).
        let parsed = parsed(&[("select", "id,name,products!inner(id)"), ("products.in_stock", "eq.true")]);
        assert_eq!(
            parsed.select,
            vec![
                col("id"),
                col("name"),
                SelectItem::Embed(Embed {
                    join: Some(JoinType::Inner),
                    ..embed("products", vec![col("id")])
                }),
            ]
        );
        assert!(parsed.root.filters.is_empty());
        assert_eq!(
            parsed.embedded.get(&strings(&["products"])).map(|n| n.filters.clone()),
            Some(vec![filter("in_stock", compare(CompareOp::Eq, "true"))])
        );
    }

    #[test]
    fn repeated_filters_on_one_column_are_all_kept_in_order() {
        let parsed =
            parsed(&[("price", "gte.100"), ("price", "lte.500"), ("tags", "cs.{a}"), ("tags", "ov.{b}")]);
        let ops: Vec<String> =
            parsed.root.filters.iter().map(|f| format!("{}:{:?}", f.field.name, f.operation)).collect();
        assert_eq!(
            ops,
            [
                "price:Compare { op: Gte, value: \"100\" }",
                "price:Compare { op: Lte, value: \"500\" }",
                "tags:ArrayRange { op: Contains, value: \"{a}\" }",
                "tags:ArrayRange { op: Overlaps, value: \"{b}\" }",
            ]
        );
    }

    #[test]
    fn every_per_embed_parameter_lands_on_its_embed() {
        let parsed = parsed(&[
            ("select", "id,brands(id,products(id))"),
            ("brands.name", "eq.Apple"),
            ("brands.order", "name.desc"),
            ("brands.limit", "3"),
            ("brands.offset", "1"),
            ("brands.or", "(id.eq.1,id.eq.2)"),
            ("brands.and", "(id.gt.0)"),
            ("brands.products.limit", "5"),
            ("brands", "not.is.null"),
        ]);
        let brands = parsed.node(&strings(&["brands"])).cloned().unwrap_or_default();
        assert_eq!(brands.filters, vec![filter("name", compare(CompareOp::Eq, "Apple"))]);
        assert_eq!(
            brands.order,
            vec![OrderTerm {
                relation: None,
                field: field("name"),
                direction: Some(OrderDirection::Desc),
                nulls: None
            }]
        );
        assert_eq!((brands.limit, brands.offset), (Some(3), Some(1)));
        assert_eq!(brands.logic.len(), 2);
        assert!(matches!(brands.logic.first(), Some(LogicTree::Group { op: LogicOp::Or, .. })));
        assert_eq!(parsed.node(&strings(&["brands", "products"])).and_then(|n| n.limit), Some(5));
        assert_eq!(
            parsed.root.filters,
            vec![Filter { field: field("brands"), negated: true, operation: Operation::Is(IsValue::Null) }]
        );
        assert_eq!(parsed.root.filters.first().and_then(Filter::null_test), Some(false));
        assert_eq!(parsed.node(&strings(&["nothing"])), None);
    }

    #[test]
    fn limit_and_offset_keep_any_integer_and_the_last_one_counts() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<i64>, Option<i64>);
        let cases: &[Case<'_>] = &[
            (&[("limit", "10")], Some(10), None),
            (&[("offset", "20")], None, Some(20)),
            (&[("limit", "-1")], Some(-1), None),
            (&[("offset", "-5")], None, Some(-5)),
            (&[("limit", "0")], Some(0), None),
            (&[("limit", "1"), ("limit", "2")], Some(2), None),
            (&[("limit", "")], None, None),
            (&[("limit", "9223372036854775807")], Some(i64::MAX), None),
            (&[("limit", "007")], Some(7), None),
        ];
        for (list, limit, offset) in cases {
            let parsed = parsed(list);
            assert_eq!((parsed.root.limit, parsed.root.offset), (*limit, *offset), "{list:?}");
        }
    }

    #[test]
    fn a_limit_or_offset_that_is_not_an_integer_is_no_range_as_in_postgrest() {
        // PostgREST reads them with `readMaybe`: what it cannot read is no range at all,
        // and the last parameter of a name counts.
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<i64>, Option<i64>);
        let cases: &[Case<'_>] = &[
            (&[("limit", "ten")], None, None),
            (&[("limit", "1.5")], None, None),
            (&[("offset", "abc")], None, None),
            (&[("limit", "+1")], None, None),
            (&[("limit", " 3 ")], Some(3), None),
            (&[("limit", "9223372036854775808")], None, None),
            (&[("limit", "2"), ("limit", "x")], None, None),
            (&[("limit", "x"), ("limit", "2"), ("offset", "1e3")], Some(2), None),
        ];
        for (list, limit, offset) in cases {
            let parsed = parsed(list);
            assert_eq!((parsed.root.limit, parsed.root.offset), (*limit, *offset), "{list:?}");
        }
        // An embed's unreadable limit still names its embed.
        let parsed = parsed(&[("brands.limit", "x")]);
        assert_eq!(parsed.embedded_order.len(), 1);
        assert_eq!(parsed.node(&strings(&["brands"])).and_then(|n| n.limit), None);
    }

    #[test]
    fn columns_and_on_conflict_take_plain_or_quoted_names() {
        let parsed =
            parsed(&[("columns", "\"name\",\"price\",\"stock\",\"name\""), ("on_conflict", "id, sku")]);
        assert_eq!(parsed.columns, Some(strings(&["name", "price", "stock"])));
        assert_eq!(parsed.on_conflict, Some(strings(&["id", "sku"])));
        let parsed = self::parsed(&[("columns", "\"a,b\",c")]);
        assert_eq!(parsed.columns, Some(strings(&["a,b", "c"])));
        assert_errors(&[
            (
                "columns",
                "",
                "\"failed to parse columns parameter ()\" (line 1, column 1)",
                "unexpected end of input expecting field name (* or [a..z0..9_$])",
            ),
            (
                "on_conflict",
                "a,,b",
                "\"failed to parse on_conflict parameter (a,,b)\" (line 1, column 3)",
                "unexpected \",\" expecting field name (* or [a..z0..9_$])",
            ),
            (
                "columns",
                "\"a",
                "\"failed to parse columns parameter (\"a)\" (line 1, column 3)",
                "unexpected end of input expecting \"\\\\\" or \"\\\"\"",
            ),
        ]);
    }

    #[test]
    fn the_first_select_columns_and_on_conflict_count() {
        let parsed =
            parsed(&[("select", "id"), ("select", "name"), ("on_conflict", "a"), ("on_conflict", "b")]);
        assert_eq!(parsed.select, vec![col("id")]);
        assert_eq!(parsed.on_conflict, Some(strings(&["a"])));
    }

    #[test]
    fn apikey_is_never_a_filter() {
        assert_eq!(parsed(&[("apikey", "sb_publishable_xyz")]), parsed(&[]));
    }

    #[test]
    fn tree_path_errors_match_postgrest_12() {
        let k = |key: &'static str, column: usize, details: &'static str| {
            (key, "eq.1", format!("\"failed to parse tree path ({key})\" (line 1, column {column})"), details)
        };
        let cases = [
            k("a.b..c", 5, "unexpected \".\" expecting field name (* or [a..z0..9_$])"),
            k(".a", 1, "unexpected \".\" expecting field name (* or [a..z0..9_$])"),
            k("a.", 3, "unexpected end of input expecting field name (* or [a..z0..9_$])"),
            k(
                "a->",
                4,
                "unexpected end of input expecting \"-\", digit or any non reserved character different from: .,>()",
            ),
            k(
                "data->>-78xy",
                11,
                "unexpected 'x' expecting digit, \"->\", \"::\", \".\", \",\" or end of input",
            ),
            k("data->>--34", 9, "unexpected \"-\" expecting digit"),
            k("", 1, "unexpected end of input expecting field name (* or [a..z0..9_$])"),
            k(")", 1, "unexpected \")\" expecting field name (* or [a..z0..9_$])"),
        ];
        for (key, value, message, details) in &cases {
            assert_errors(&[(key, value, message, details)]);
        }
    }

    #[test]
    fn the_first_error_reported_follows_postgrests_order_of_parsing() {
        // order, logic, columns, select, filters, on_conflict, then limit and offset.
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("select", "id,"), ("order", "x.y")], "failed to parse order (x.y)"),
            (&[("select", "id,"), ("or", "x")], "failed to parse logic tree (x)"),
            (&[("select", "id,"), ("columns", "")], "failed to parse columns parameter ()"),
            (&[("id", "x"), ("select", "id,")], "failed to parse select parameter (id,)"),
            (&[("on_conflict", ""), ("id", "x")], "failed to parse filter (x)"),
            (&[("limit", "x"), ("on_conflict", "")], "failed to parse on_conflict parameter ()"),
            (&[("a..b", "x")], "failed to parse tree path (a..b)"),
        ];
        for (list, message) in cases {
            let got = query(list).map(|_| ()).map_err(|e| e.message);
            assert!(matches!(&got, Err(m) if m.contains(message)), "{list:?}: {got:?}");
        }
    }

    #[test]
    fn parse_errors_display_message_and_details() {
        let e = query(&[("id", "gtx.5")]).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "\"failed to parse filter (gtx.5)\" (line 1, column 3): unexpected \"x\" expecting operator (eq, gt, ...)"
            )
        );
    }

    #[test]
    fn rpc_reads_keep_plain_values_as_arguments_and_operators_as_filters() {
        let parsed = parse_rpc_read_query(&pairs(&[
            ("q", "x"),
            ("ids", "{1,2}"),
            ("empty", ""),
            ("brand_id", "eq.1"),
            ("select", "id,name"),
            ("limit", "2"),
        ]));
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            parsed.rpc_args,
            vec![
                ("q".to_owned(), "x".to_owned()),
                ("ids".to_owned(), "{1,2}".to_owned()),
                ("empty".to_owned(), String::new())
            ]
        );
        assert_eq!(parsed.root.filters, vec![filter("brand_id", compare(CompareOp::Eq, "1"))]);
        assert_eq!(parsed.root.limit, Some(2));
        // A value that starts like an operator expression must finish as one.
        let err = parse_rpc_read_query(&pairs(&[("q", "not.xyz")])).err().map(|e| e.message);
        assert_eq!(err.as_deref(), Some("\"failed to parse filter (not.xyz)\" (line 1, column 5)"));
        // Tables do not take arguments.
        assert_eq!(error("q", "x").1, "unexpected \"x\" expecting \"not\" or operator (eq, gt, ...)");
    }

    /// `depth` levels of `open`, then `middle`, then `depth` times `close`.
    fn nested(open: &str, middle: &str, close: &str, depth: usize) -> String {
        let mut text = open.repeat(depth);
        text.push_str(middle);
        text.push_str(&close.repeat(depth));
        text
    }

    #[test]
    fn nesting_up_to_the_limit_is_accepted_and_one_more_level_is_not() {
        let select_ok = nested("a(", "id", ")", MAX_DEPTH);
        assert!(query(&[("select", &select_ok)]).is_ok());
        let select_deep = nested("a(", "id", ")", MAX_DEPTH + 1);
        let (message, details) = error("select", &select_deep);
        assert_eq!(details, "nesting deeper than 64 levels is not supported");
        assert_eq!(
            message,
            format!("\"failed to parse select parameter ({select_deep})\" (line 1, column 131)")
        );

        // `or=(…)` is glued to its key, so the value holds one group fewer than the tree.
        let logic_ok = nested("or(", "a.eq.1", ")", MAX_DEPTH - 1);
        assert!(query(&[("or", &format!("({logic_ok})"))]).is_ok());
        let logic_deep = nested("or(", "a.eq.1", ")", MAX_DEPTH);
        let (_, details) = error("or", &format!("({logic_deep})"));
        assert_eq!(details, "nesting deeper than 64 levels is not supported");
    }

    #[test]
    fn nesting_at_the_limit_fits_in_a_one_mebibyte_stack() {
        // Measured: about 9 KiB of stack per level in debug builds and 5 KiB in release, so the
        // 2 MiB stack of a tokio worker thread has room to spare at the limit.
        let worker = std::thread::Builder::new().stack_size(1024 * 1024).spawn(|| {
            let select = nested("a(", "id", ")", MAX_DEPTH);
            let logic = format!("({})", nested("or(", "a.eq.1", ")", MAX_DEPTH - 1));
            (query(&[("select", &select)]).is_ok(), query(&[("or", &logic)]).is_ok())
        });
        match worker.map(std::thread::JoinHandle::join) {
            Ok(Ok(accepted)) => assert_eq!(accepted, (true, true)),
            Ok(Err(_)) => panic!("the parser panicked"),
            Err(e) => panic!("no thread: {e}"),
        }
    }

    #[test]
    fn ten_thousand_levels_of_nesting_fail_fast_without_overflowing_the_stack() {
        let start = Instant::now();
        let cases = [
            ("or", nested("(or", "a.eq.1", ")", 10_000)),
            ("or", nested("(and", "", "", 10_000)),
            ("and", nested("(not.or", "a.eq.1", ")", 10_000)),
            ("select", nested("a(", "id", ")", 10_000)),
            ("select", nested("...a(", "", "", 10_000)),
            ("order", nested("a(", "", "", 10_000)),
            ("id", nested("in.(", "", ")", 10_000)),
        ];
        for (key, value) in &cases {
            let (_, details) = error(key, value);
            assert!(!details.is_empty(), "{key}");
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    }

    #[test]
    fn fifty_thousand_values_in_an_in_list_parse_in_linear_time() {
        let values: Vec<String> =
            (0..50_000).map(|i| if i % 2 == 0 { i.to_string() } else { format!("\"v,{i}\"") }).collect();
        let start = Instant::now();
        let parsed = parsed(&[("id", &format!("in.({})", values.join(",")))]);
        let elapsed = start.elapsed();
        match parsed.root.filters.first().map(|f| &f.operation) {
            Some(Operation::In(list)) => {
                assert_eq!(list.len(), 50_000);
                assert_eq!(list.get(1).map(String::as_str), Some("v,1"));
            }
            other => panic!("{other:?}"),
        }
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");

        let big_or = format!("({})", (0..20_000).map(|i| format!("id.eq.{i}")).collect::<Vec<_>>().join(","));
        let parsed = self::parsed(&[("or", &big_or)]);
        assert!(
            matches!(parsed.root.logic.first(), Some(LogicTree::Group { children, .. }) if children.len() == 20_000)
        );
    }

    #[test]
    fn long_values_without_structure_do_not_slow_parsing_down() {
        let start = Instant::now();
        let long = "x".repeat(200_000);
        let quotes = "\"a,".repeat(30_000);
        let braces = "{a,".repeat(30_000);
        let cases = [
            ("select", long.clone()),
            ("select", quotes.clone()),
            ("id", format!("eq.{long}")),
            ("id", format!("in.({quotes})")),
            ("or", format!("({})", "a.cs.{,".repeat(30_000))),
            ("or", format!("({braces})")),
            ("order", format!("{long}.desc")),
            (&long, "eq.1".to_owned()),
            ("data->", format!("eq.{long}")),
        ];
        for (key, value) in &cases {
            let _ = query(&[(key, value)]);
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    }

    #[test]
    fn nul_bytes_and_empty_keys_or_values_are_ordinary_input() {
        let parsed = parsed(&[("\"na\0me\"", "eq.a\0b"), ("select", "\"a\0b\"")]);
        assert_eq!(parsed.root.filters, vec![filter("na\0me", compare(CompareOp::Eq, "a\0b"))]);
        assert_eq!(parsed.select, vec![col("a\0b")]);
        assert_errors(&[(
            "na\0me",
            "eq.1",
            "\"failed to parse tree path (na\0me)\" (line 1, column 3)",
            "unexpected '\\NUL' expecting letter, digit, \"-\", delimiter (.), \"->>\", \"->\" or end of input",
        )]);
        assert_errors(&[
            (
                "",
                "",
                "\"failed to parse tree path ()\" (line 1, column 1)",
                "unexpected end of input expecting field name (* or [a..z0..9_$])",
            ),
            (
                "id",
                "",
                "\"failed to parse filter ()\" (line 1, column 1)",
                "unexpected end of input expecting \"not\" or operator (eq, gt, ...)",
            ),
            (
                "id",
                "\0",
                "\"failed to parse filter (\0)\" (line 1, column 1)",
                "unexpected \"\\NUL\" expecting \"not\" or operator (eq, gt, ...)",
            ),
        ]);
        assert_eq!(parsed_select(""), Vec::new());
    }

    fn parsed_select(value: &str) -> Vec<SelectItem> {
        parsed(&[("select", value)]).select
    }

    #[test]
    fn newlines_and_tabs_move_the_reported_position_like_parsec() {
        assert_errors(&[
            (
                "select",
                "\"x\ny\"!",
                "\"failed to parse select parameter (\"x\ny\"!)\" (line 2, column 3)",
                "unexpected '!' expecting \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "id",
                "\teq",
                "\"failed to parse filter (\teq)\" (line 1, column 1)",
                "unexpected \"\\t\" expecting \"not\" or operator (eq, gt, ...)",
            ),
            (
                "select",
                "\tid!",
                "\"failed to parse select parameter (\tid!)\" (line 1, column 11)",
                "unexpected '!' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
        ]);
    }

    /// xorshift64*: enough randomness for a fuzz loop, reproducible from its seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items.get(self.below(items.len())).copied().unwrap_or("")
        }
    }

    /// Bits of the grammar that random inputs are made of.
    const PIECES: &[&str] = &[
        "id",
        "name",
        "*",
        "(",
        ")",
        ",",
        ".",
        ":",
        "::",
        "!",
        "!inner",
        "!left",
        "...",
        "->",
        "->>",
        "-",
        "\"",
        "\\",
        "{",
        "}",
        "[",
        "]",
        "eq",
        "neq",
        "gt",
        "gte",
        "lt",
        "lte",
        "like",
        "ilike",
        "match",
        "imatch",
        "in",
        "is",
        "isdistinct",
        "fts",
        "plfts",
        "phfts",
        "wfts",
        "cs",
        "cd",
        "ov",
        "sl",
        "sr",
        "nxl",
        "nxr",
        "adj",
        "not",
        "(any)",
        "(all)",
        "null",
        "not_null",
        "TRUE",
        "unknown",
        "and",
        "or",
        "asc",
        "desc",
        "nullsfirst",
        "nullslast",
        "count()",
        ".sum()",
        "text",
        "[]",
        " ",
        "\t",
        "\n",
        "\0",
        "é",
        "😀",
        "\u{7f}",
        "0",
        "-1",
        "99999999999999999999999",
        "$",
        "%",
        "*",
        "&",
        "=",
    ];

    #[test]
    fn random_query_strings_never_panic() {
        const KEYS: &[&str] = &[
            "select",
            "order",
            "limit",
            "offset",
            "or",
            "and",
            "not.or",
            "not.and",
            "columns",
            "on_conflict",
            "apikey",
            "id",
            "brands.order",
            "brands.limit",
            "brands.or",
            "brands.name",
            "data->a",
            "a.b.c",
            "",
            ".",
            "a..b",
            "not.a.or",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let count = rng.below(4);
            let list: Vec<(String, String)> = (0..count)
                .map(|_| {
                    let key = if rng.below(4) == 0 {
                        (0..rng.below(4)).map(|_| rng.pick(PIECES)).collect()
                    } else {
                        rng.pick(KEYS).to_owned()
                    };
                    let value: String = (0..rng.below(12)).map(|_| rng.pick(PIECES)).collect();
                    (key, value)
                })
                .collect();
            if let Err(e) = parse_query(&list) {
                assert_eq!(e.code, "PGRST100");
                assert!(e.message.starts_with("\"failed to parse "), "{list:?}: {}", e.message);
                assert!(e.details.as_deref().is_some_and(|d| !d.is_empty()), "{list:?}");
            }
            let _ = parse_rpc_read_query(&list);
        }
    }

    #[test]
    fn random_bytes_decoded_as_text_never_panic() {
        let mut rng = Rng(42);
        for _ in 0..5_000 {
            let bytes: Vec<u8> =
                (0..rng.below(40)).map(|_| u8::try_from(rng.next() % 256).unwrap_or(0)).collect();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            for key in ["select", "order", "or", "id", "limit", "columns"] {
                let _ = parse_query(&[(key.to_owned(), text.clone())]);
            }
            let _ = parse_query(&[(text.clone(), text.clone())]);
        }
    }

    /// The parser that keeps no error messages accepts, builds and refuses exactly as the one
    /// that does (`run` trusts it for every valid parameter).
    #[test]
    fn parsing_without_messages_accepts_and_builds_the_same() {
        use super::filter::ValueContext;
        use super::parsec::{Parser, Reply};

        fn same<T: PartialEq + std::fmt::Debug>(
            input: &str,
            parser: impl Fn(&mut Parser) -> Reply<T>,
        ) -> bool {
            let outcome = |mut p: Parser| match parser(&mut p) {
                Ok(s) => Ok((s.value, s.consumed, p.pos)),
                Err(f) => Err(f.consumed),
            };
            let (with, without) = (outcome(Parser::new(input)), outcome(Parser::without_messages(input)));
            assert_eq!(with, without, "{input:?}");
            with.is_ok()
        }
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let input: String = (0..1 + rng.below(10)).map(|_| rng.pick(PIECES)).collect();
            let results = [
                same(&input, Parser::select_items),
                same(&input, |p| p.op_expr(ValueContext::Parameter)),
                same(&input, |p| p.op_expr(ValueContext::LogicTree)),
                same(&input, Parser::logic_tree),
                same(&input, Parser::order_terms),
                same(&input, Parser::tree_path),
                same(&input, Parser::columns),
            ];
            accepted += results.iter().filter(|ok| **ok).count();
        }
        assert!(accepted > 20_000, "only {accepted} parses succeeded: the inputs test too little");
    }
}
