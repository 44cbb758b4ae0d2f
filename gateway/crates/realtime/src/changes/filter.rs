//! A binding as the feed matches it: its event, its table (or every table of
//! the schema), its filters and its `select` list, parsed as Realtime parses
//! a `postgres_changes` binding (supabase/realtime
//! `lib/extensions/postgres_cdc_rls/subscriptions.ex`,
//! `parse_subscription_params`), with its error messages.
//!
//! A filter is `column=[not.]op.value`, several joined by commas meaning
//! AND (<https://supabase.com/docs/guides/realtime/postgres-changes#available-filters>).
//! Parsing only reads the text; whether the column exists, the value fits
//! its type and the operator applies to it is PostgreSQL's to say at join
//! (`_gateway.realtime_check_binding`), and whether a row matches is
//! PostgreSQL's too (`_gateway.realtime_filters_hold`,
//! `sql/033_realtime_filters.sql`), so values compare as their column's type.

use serde_json::Value;

use super::Binding;

/// Realtime's operators.
const OPERATORS: [&str; 13] =
    ["eq", "neq", "lt", "lte", "gt", "gte", "in", "like", "ilike", "is", "match", "imatch", "isdistinct"];

/// One condition of a binding's filter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Filter {
    pub column: String,
    /// One of [`OPERATORS`].
    pub op: String,
    /// The value as PostgreSQL reads it: `in`'s list as an array literal
    /// (`{a,b}`), a quoted scalar unquoted.
    pub value: String,
    /// The `not.` prefix.
    pub negate: bool,
}

/// A binding ready to be matched.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub id: u32,
    /// `None`: every event.
    pub event: Option<String>,
    pub schema: String,
    /// `None`: every table of the schema.
    pub table: Option<String>,
    /// All must hold.
    pub filters: Vec<Filter>,
    /// Only these columns (and the primary key) are sent.
    pub select: Option<Vec<String>>,
}

impl Matcher {
    /// The binding as Realtime reads it, or Realtime's reason for refusing it.
    pub fn parse(binding: &Binding) -> Result<Self, String> {
        // Realtime reads an event it does not know (TRUNCATE among them) as
        // every event: it never sends TRUNCATE.
        let event = match binding.event.to_ascii_uppercase().as_str() {
            e @ ("INSERT" | "UPDATE" | "DELETE") => Some(e.to_owned()),
            _ => None,
        };
        let select = parse_select(binding.select.as_ref())?;
        let table = binding.table.clone().filter(|t| t != "*" && !t.is_empty());
        let filters = match binding.filter.as_deref() {
            Some(text) => {
                parse_filters(text).map_err(|reason| format!("Error parsing `filter` params: {reason}"))?
            }
            None => Vec::new(),
        };
        if select.is_some() && (binding.schema == "*" || table.is_none()) {
            return Err("Column selection is not supported for wildcard subscriptions. \
                        Provide an explicit schema and table name."
                .to_owned());
        }
        Ok(Self { id: binding.id, event, schema: binding.schema.clone(), table, filters, select })
    }

    /// Whether a change's event, schema and table are this binding's;
    /// its filters are PostgreSQL's to judge.
    pub fn matches(&self, data: &Value) -> bool {
        let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or_default();
        if self.event.as_deref().is_some_and(|e| e != text("type")) || self.schema != text("schema") {
            return false;
        }
        self.table.as_deref().is_none_or(|t| t == text("table"))
    }
}

/// `select`: a list of column names; anything but strings in it is ignored,
/// and an empty list means every column, as Realtime reads it.
fn parse_select(select: Option<&Value>) -> Result<Option<Vec<String>>, String> {
    match select {
        Some(Value::Array(items)) => {
            let names: Vec<String> = items.iter().filter_map(Value::as_str).map(str::to_owned).collect();
            Ok((!names.is_empty()).then_some(names))
        }
        Some(Value::String(_)) => {
            Err("Error parsing `select` params: expected a list of column name strings, \
                                       e.g. select: [\"col1\", \"col2\"]"
                .to_owned())
        }
        _ => Ok(None),
    }
}

/// The filters of `text`, or why not (Realtime's words, after
/// "Error parsing `filter` params: ").
pub fn parse_filters(text: &str) -> Result<Vec<Filter>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    split_top_level(text).iter().map(|segment| parse_segment(segment)).collect()
}

/// Splits on commas outside parentheses and double quotes; a quote opens
/// only after `.`, `(` or `,`, and a backslash inside quotes escapes.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quoted, mut previous) = (0usize, false, '\0');
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if quoted {
            current.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        current.push(next);
                    }
                }
                '"' => quoted = false,
                _ => {}
            }
            previous = c;
            continue;
        }
        match c {
            '"' if matches!(previous, '.' | '(' | ',') => quoted = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                previous = '\0';
                continue;
            }
            _ => {}
        }
        current.push(c);
        previous = c;
    }
    parts.push(current);
    parts
}

fn parse_segment(segment: &str) -> Result<Filter, String> {
    let segment = segment.trim();
    if segment.is_empty() {
        return Err("filter must not contain empty segments (check for extra commas)".to_owned());
    }
    let Some((column, rest)) = segment.split_once('=') else { return Err(inspect_list(&[segment])) };
    let (negate, op_value) = match rest.strip_prefix("not.") {
        Some(op_value) => (true, op_value),
        None => (false, rest),
    };
    let Some((op, value)) = op_value.split_once('.') else { return Err(inspect_list(&[op_value])) };
    if !OPERATORS.contains(&op) {
        return Err(inspect_list(&[op, value]));
    }
    let value = if op == "in" {
        let list = value
            .strip_prefix('(')
            .and_then(|v| v.strip_suffix(')'))
            .ok_or("`in` filter value must be wrapped by parentheses")?;
        format!("{{{list}}}")
    } else {
        unquote(value)
    };
    Ok(Filter { column: column.to_owned(), op: op.to_owned(), value, negate })
}

/// A value in double quotes, as PostgREST writes one holding a reserved
/// character, without them; backslashes escape. Left as it is if the quotes
/// do not close at its end.
fn unquote(value: &str) -> String {
    let Some(rest) = value.strip_prefix('"') else { return value.to_owned() };
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => out.push(next),
                None => return value.to_owned(),
            },
            '"' => return if chars.as_str().is_empty() { out } else { value.to_owned() },
            c => out.push(c),
        }
    }
    value.to_owned()
}

/// A list of strings as Elixir's `inspect` prints it, which Realtime's
/// messages quote: `["foo", "hey"]`.
pub fn inspect_list(items: &[&str]) -> String {
    let items: Vec<String> = items.iter().map(|item| inspect_string(item)).collect();
    format!("[{}]", items.join(", "))
}

/// A string as Elixir's `inspect` prints it.
pub fn inspect_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn binding(event: &str, table: Option<&str>, filter: Option<&str>) -> Binding {
        Binding {
            id: 1,
            event: event.into(),
            schema: "public".into(),
            table: table.map(Into::into),
            filter: filter.map(Into::into),
            select: None,
        }
    }

    fn filter(column: &str, op: &str, value: &str, negate: bool) -> Filter {
        Filter { column: column.into(), op: op.into(), value: value.into(), negate }
    }

    #[test]
    fn filters_parse_as_realtime_reads_them() {
        let cases: [(&str, Vec<Filter>); 13] = [
            ("id=eq.3", vec![filter("id", "eq", "3", false)]),
            ("name=not.like.hey%", vec![filter("name", "like", "hey%", true)]),
            ("id=gt.0,id=lt.100", vec![filter("id", "gt", "0", false), filter("id", "lt", "100", false)]),
            ("id=in.(1,2,3)", vec![filter("id", "in", "{1,2,3}", false)]),
            (
                "id=not.in.(1,2),done=is.true",
                vec![filter("id", "in", "{1,2}", true), filter("done", "is", "true", false)],
            ),
            ("note=is.null", vec![filter("note", "is", "null", false)]),
            ("note=not.is.null", vec![filter("note", "is", "null", true)]),
            ("area=eq.\"Oslo, Norway\"", vec![filter("area", "eq", "Oslo, Norway", false)]),
            ("area=eq.\"say \\\"hi\\\"\"", vec![filter("area", "eq", "say \"hi\"", false)]),
            ("at=gte.2026-11-25 12:00:00+00", vec![filter("at", "gte", "2026-11-25 12:00:00+00", false)]),
            ("name=imatch.^a.*z$", vec![filter("name", "imatch", "^a.*z$", false)]),
            ("  ", vec![]),
            ("id=isdistinct.3", vec![filter("id", "isdistinct", "3", false)]),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_filters(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn malformed_filters_are_refused_with_realtimes_words() {
        let cases = [
            ("id=foo.3", r#"Error parsing `filter` params: ["foo", "3"]"#),
            ("undefined", r#"Error parsing `filter` params: ["undefined"]"#),
            ("id=eq", r#"Error parsing `filter` params: ["eq"]"#),
            ("id=in.1,2", "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"),
            (
                "id=eq.1,,id=eq.2",
                "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)",
            ),
        ];
        for (text, message) in cases {
            let refused = Matcher::parse(&binding("*", Some("items"), Some(text))).expect_err(text);
            assert_eq!(refused, message, "{text}");
        }
    }

    #[test]
    fn unknown_events_mean_every_event_as_in_realtime() {
        for (event, expected) in [("*", None), ("insert", Some("INSERT")), ("TRUNCATE", None), ("x", None)] {
            let matcher = Matcher::parse(&binding(event, Some("items"), None)).expect(event);
            assert_eq!(matcher.event.as_deref(), expected, "{event}");
        }
    }

    #[test]
    fn select_lists_need_a_named_table_and_a_list() {
        let mut with_select = binding("*", Some("items"), None);
        with_select.select = Some(json!(["name", 3]));
        assert_eq!(Matcher::parse(&with_select).expect("list").select, Some(vec!["name".to_owned()]));
        with_select.select = Some(json!([]));
        assert_eq!(Matcher::parse(&with_select).expect("empty").select, None);
        with_select.select = Some(json!("name"));
        assert!(
            Matcher::parse(&with_select).expect_err("a string").starts_with("Error parsing `select` params")
        );
        let mut wildcard = binding("*", None, None);
        wildcard.select = Some(json!(["name"]));
        assert!(
            Matcher::parse(&wildcard).expect_err("wildcard").starts_with("Column selection is not supported")
        );
    }

    #[test]
    fn events_tables_and_schemas_must_all_agree() {
        let row = json!({"schema": "public", "table": "items", "type": "INSERT", "record": {"id": 1}});
        let cases = [
            (binding("*", None, None), true),
            (binding("INSERT", Some("items"), None), true),
            (binding("insert", Some("*"), None), true),
            (binding("UPDATE", Some("items"), None), false),
            (binding("*", Some("other"), None), false),
        ];
        for (binding, expected) in cases {
            assert_eq!(Matcher::parse(&binding).expect("valid").matches(&row), expected, "{binding:?}");
        }
        let mut elsewhere = binding("*", None, None);
        elsewhere.schema = "private".into();
        assert!(!Matcher::parse(&elsewhere).expect("valid").matches(&row));
    }

    #[test]
    fn elixir_inspect_escapes_quotes_and_backslashes() {
        assert_eq!(inspect_list(&["a\"b", "c\\d"]), r#"["a\"b", "c\\d"]"#);
    }
}
