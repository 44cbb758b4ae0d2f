//! A binding as the feed matches it: its event, its table (or every table of
//! the schema) and Realtime's one-column filter, `column=op.value` with `eq`,
//! `neq`, `lt`, `lte`, `gt`, `gte` or `in.(a,b,...)`
//! (<https://supabase.com/docs/guides/realtime/postgres-changes#available-filters>).

use std::cmp::Ordering;

use serde_json::Value;

use super::Binding;

/// The most values `in` may list, as Realtime allows.
const MAX_IN_VALUES: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub column: String,
    pub op: Op,
    pub values: Vec<String>,
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
    pub filter: Option<Filter>,
}

impl Matcher {
    pub fn parse(binding: &Binding) -> Result<Self, ()> {
        let event = match binding.event.to_ascii_uppercase().as_str() {
            "*" => None,
            e @ ("INSERT" | "UPDATE" | "DELETE") => Some(e.to_owned()),
            _ => return Err(()),
        };
        let table = binding.table.clone().filter(|t| t != "*" && !t.is_empty());
        let filter = match binding.filter.as_deref().filter(|f| !f.is_empty()) {
            Some(text) => Some(parse_filter(text).ok_or(())?),
            None => None,
        };
        if filter.is_some() && table.is_none() {
            return Err(());
        }
        Ok(Self { id: binding.id, event, schema: binding.schema.clone(), table, filter })
    }

    /// Whether a change's `data` matches, RLS aside.
    pub fn matches(&self, data: &Value) -> bool {
        let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or_default();
        if self.event.as_deref().is_some_and(|e| e != text("type")) || self.schema != text("schema") {
            return false;
        }
        if self.table.as_deref().is_some_and(|t| t != text("table")) {
            return false;
        }
        let Some(filter) = &self.filter else { return true };
        // A deleted row is judged by what its old record still holds.
        let row = if text("type") == "DELETE" { data.get("old_record") } else { data.get("record") };
        match row.and_then(|r| r.get(&filter.column)) {
            Some(value) => filter.accepts(value),
            None => false,
        }
    }
}

fn parse_filter(text: &str) -> Option<Filter> {
    let (column, rest) = text.split_once('=')?;
    let (op, value) = rest.split_once('.')?;
    let op = match op {
        "eq" => Op::Eq,
        "neq" => Op::Neq,
        "lt" => Op::Lt,
        "lte" => Op::Lte,
        "gt" => Op::Gt,
        "gte" => Op::Gte,
        "in" => Op::In,
        _ => return None,
    };
    if column.is_empty() {
        return None;
    }
    let values = if op == Op::In {
        let list = value.strip_prefix('(')?.strip_suffix(')')?;
        let values: Vec<String> = list
            .split(',')
            .map(|v| v.trim().trim_matches('"').to_owned())
            .filter(|v| !v.is_empty())
            .collect();
        if values.is_empty() || values.len() > MAX_IN_VALUES {
            return None;
        }
        values
    } else {
        vec![value.to_owned()]
    };
    Some(Filter { column: column.to_owned(), op, values })
}

impl Filter {
    /// SQL's answer: a null column matches nothing.
    fn accepts(&self, value: &Value) -> bool {
        let compare = |wanted: &str| compare(value, wanted);
        match self.op {
            Op::In => self.values.iter().any(|v| compare(v) == Some(Ordering::Equal)),
            op => {
                let Some(order) = compare(&self.values[0]) else { return false };
                match op {
                    Op::Eq => order == Ordering::Equal,
                    Op::Neq => order != Ordering::Equal,
                    Op::Lt => order == Ordering::Less,
                    Op::Lte => order != Ordering::Greater,
                    Op::Gt => order == Ordering::Greater,
                    _ => order != Ordering::Less,
                }
            }
        }
    }
}

/// How a column's value compares with a filter's text: numbers as numbers,
/// booleans as booleans, timestamps as moments (the value is `to_jsonb`'s
/// ISO 8601, the filter may be PostgreSQL's own `2026-11-25 12:00:00+00`),
/// everything else as text.
fn compare(value: &Value, wanted: &str) -> Option<Ordering> {
    if let Value::String(s) = value
        && let Some(order) = compare_moments(s, wanted.trim())
    {
        return Some(order);
    }
    match value {
        Value::Null => None,
        Value::Number(n) => n.as_f64()?.partial_cmp(&wanted.trim().parse::<f64>().ok()?),
        Value::Bool(b) => {
            let wanted = match wanted {
                "true" | "t" => true,
                "false" | "f" => false,
                _ => return None,
            };
            Some(b.cmp(&wanted))
        }
        Value::String(s) => Some(s.as_str().cmp(wanted)),
        other => Some(other.to_string().as_str().cmp(wanted)),
    }
}

/// Both texts as timestamps with a zone, or both without one: their order.
fn compare_moments(value: &str, wanted: &str) -> Option<Ordering> {
    use chrono::{DateTime, NaiveDateTime};
    let zoned = |text: &str| {
        DateTime::parse_from_rfc3339(text)
            .ok()
            .or_else(|| DateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f%#z").ok())
    };
    let naive = |text: &str| {
        ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
            .iter()
            .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    };
    match (zoned(value), zoned(wanted)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => Some(naive(value)?.cmp(&naive(wanted)?)),
    }
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
        }
    }

    fn insert(record: Value) -> Value {
        json!({"schema": "public", "table": "items", "type": "INSERT", "record": record})
    }

    #[test]
    fn filters_compare_numbers_as_numbers_and_text_as_text() {
        let row = insert(json!({"id": 10, "name": "b", "done": true, "note": null}));
        let cases = [
            ("id=eq.10", true),
            ("id=eq.9", false),
            ("id=neq.9", true),
            ("id=lt.9", false),
            ("id=lte.10", true),
            ("id=gt.9", true),
            ("id=gte.11", false),
            ("id=in.(1,10,20)", true),
            ("id=in.(1,2)", false),
            ("name=eq.b", true),
            ("name=gt.a", true),
            ("name=in.(\"a\",\"b\")", true),
            ("done=eq.true", true),
            ("note=eq.null", false),
            ("note=neq.x", false),
            ("missing=eq.1", false),
        ];
        for (filter, expected) in cases {
            let matcher = Matcher::parse(&binding("*", Some("items"), Some(filter))).expect(filter);
            assert_eq!(matcher.matches(&row), expected, "{filter}");
        }
    }

    #[test]
    fn events_tables_and_schemas_must_all_agree() {
        let row = insert(json!({"id": 1}));
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
    fn timestamps_compare_as_moments_whichever_way_they_are_written() {
        let cases = [
            ("2026-11-25T12:00:00+00:00", "2026-11-25 12:00:00+00", Some(Ordering::Equal)),
            ("2026-11-25T14:00:00+02:00", "2026-11-25T12:00:00Z", Some(Ordering::Equal)),
            ("2026-11-25T12:00:00.5+00:00", "2026-11-25 12:00:00+00", Some(Ordering::Greater)),
            ("2026-11-25T12:00:00", "2026-11-25 13:00:00", Some(Ordering::Less)),
            ("2026-11-25T12:00:00+00:00", "2026-11-25 12:00:00", None),
            ("hola", "2026-11-25 12:00:00+00", None),
        ];
        for (value, wanted, expected) in cases {
            assert_eq!(compare_moments(value, wanted), expected, "{value} vs {wanted}");
        }
        let at = Matcher::parse(&binding("*", Some("items"), Some("at=gte.2026-11-25 12:00:00+00")))
            .expect("parse");
        assert!(at.matches(&insert(json!({"at": "2026-11-25T12:00:00+00:00"}))));
        assert!(!at.matches(&insert(json!({"at": "2026-11-25T11:59:59+00:00"}))));
    }

    #[test]
    fn a_deleted_row_is_filtered_by_its_old_record() {
        let row = json!({"schema": "public", "table": "items", "type": "DELETE", "old_record": {"id": 3}});
        assert!(
            Matcher::parse(&binding("DELETE", Some("items"), Some("id=eq.3"))).expect("valid").matches(&row)
        );
        assert!(
            !Matcher::parse(&binding("DELETE", Some("items"), Some("id=eq.4"))).expect("valid").matches(&row)
        );
    }

    #[test]
    fn malformed_bindings_are_refused() {
        for (event, filter) in [
            ("TRUNCATE", None),
            ("*", Some("id")),
            ("*", Some("id=like.3")),
            ("*", Some("=eq.3")),
            ("*", Some("id=in.1,2")),
            ("*", Some("id=in.()")),
        ] {
            assert!(Matcher::parse(&binding(event, Some("items"), filter)).is_err(), "{event} {filter:?}");
        }
    }
}
