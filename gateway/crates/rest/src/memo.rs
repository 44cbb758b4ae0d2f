//! Reads, calls and inserts planned before: the statement a read renders depends only
//! on the schema cache and on what [`ReadKey`] holds, never on the caller
//! (policies and grants apply in PostgreSQL, to the role the session takes),
//! so a read asked again with the same query string and the same planning
//! headers skips parsing, planning and rendering, which were a third of the
//! gateway's instructions per request (`bench/profile.sh`, S2). A call's
//! depends on what [`WriteKey`] holds, its arguments' names among them; their
//! values are a parameter, so every call of a function with the same query
//! string and the same argument names runs one plan (`SCENARIO=rpc`: a
//! quarter of the instructions). A one-row insert's depends on the same and
//! its body's keys; its values are the statement's first parameters, so an
//! insert of another row with the same keys runs one plan (S4: a fifth).
//!
//! Entries belong to the schema cache they were planned against: a lookup or
//! an insert with another one (the listener reloaded it) empties the memo
//! first, so nothing planned against an older catalog is ever served. Only
//! plans that succeeded are kept; an error is found again each time, in the
//! handler's order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::ast::{CountMethod, Handling, Missing, Prefer, Representation, Resolution};
use crate::request::{Media, Payload};
use crate::schema::{Column, SchemaCache};
use crate::sql::{Statement, Write};
use gateway_core::db::Access;

/// How many plans are kept. A memo this full is emptied rather than evicting
/// one by one: a client that never repeats a query gains nothing from any
/// policy, and the common case (a few hundred shapes of query, each with a
/// few thousand values) refills it at once. At about 2 KB an entry, the
/// bound is 8 MB.
pub const CAPACITY: usize = 4096;

/// A read as planned and rendered, with what its answer needs of the plan.
#[derive(Debug)]
pub struct PlannedRead {
    pub statement: Statement,
    /// The first row's offset, after `Range`.
    pub offset: i64,
    /// The CSV header line (the output columns' names), for `text/csv`.
    pub csv_header: Option<String>,
}

/// A function call as planned and rendered, with what its answer needs of
/// the plan. Only the arguments differ between two calls of one key: a POST's
/// body is the statement's first parameter ([`crate::sql::call`]), replaced
/// on each call; a GET's arguments are its query string, part of the key.
#[derive(Debug)]
pub struct PlannedCall {
    pub write: Write,
    /// The statement's first parameter is the POST's body.
    pub takes_body: bool,
    pub access: Access,
    pub returns_set: bool,
    pub returns_void: bool,
    /// The function returns rows of a known table type (select, filters and
    /// order apply).
    pub rows: bool,
    /// Asked for as one object, of a function that returns a set.
    pub singular: bool,
    /// The first row's offset, after `Range`.
    pub offset: i64,
    /// The CSV header line, for `text/csv` of rows.
    pub csv_header: Option<String>,
}

/// A single-row insert as planned and rendered: its statement binds the
/// row's values first, one parameter a column, in `columns`' order
/// ([`crate::sql::insert`]), and only a row whose every value binds that way
/// ([`crate::plan::bound_values`]) runs it.
#[derive(Debug)]
pub struct PlannedInsert {
    pub write: Write,
    pub columns: Vec<Column>,
}

/// What a read's plan depends on besides the schema cache, as one string:
/// each part is written with its length first, or is one character of a
/// fixed place, so two different requests never write the same key whatever
/// bytes their values hold.
pub struct ReadKey(String);

impl ReadKey {
    pub fn new(
        schema: &str,
        table: &str,
        pairs: &[(String, String)],
        range: Option<&str>,
        count: Option<CountMethod>,
        media: Media,
        head: bool,
    ) -> Self {
        let size =
            schema.len() + table.len() + pairs.iter().map(|(k, v)| k.len() + v.len() + 8).sum::<usize>();
        let mut key = String::with_capacity(size + 48);
        part(&mut key, schema);
        part(&mut key, table);
        for (name, value) in pairs {
            part(&mut key, name);
            part(&mut key, value);
        }
        // The flags after a separator no length can be followed by.
        key.push('|');
        match range {
            Some(range) => {
                key.push('r');
                part(&mut key, range);
            }
            None => key.push('-'),
        }
        key.push(match count {
            None => '-',
            Some(CountMethod::Exact) => 'e',
            Some(CountMethod::Planned) => 'p',
            Some(CountMethod::Estimated) => 's',
        });
        key.push(match media {
            Media::Json => 'j',
            Media::JsonStripped => 'J',
            Media::Object => 'o',
            Media::ObjectStripped => 'O',
            Media::Csv => 'c',
            Media::OpenApi => 'a',
            Media::Plan(_) => 'p',
        });
        key.push(if head { 'h' } else { 'g' });
        Self(key)
    }
}

/// What a call's or an insert's plan depends on besides the schema cache: a
/// read's key (the function or the table for the table), then the names of
/// the body's keys (a POST's arguments, an insert's columns), what the body
/// is, the method, and the preferences that shape the statement.
pub struct WriteKey(String);

impl WriteKey {
    pub fn new(read: ReadKey, names: &[String], payload: Payload, method: &str, prefer: &Prefer) -> Self {
        let ReadKey(mut key) = read;
        key.push('(');
        for name in names {
            part(&mut key, name);
        }
        key.push(')');
        key.push(match payload {
            Payload::Json => 'J',
            Payload::Text => 'T',
            Payload::Xml => 'X',
            Payload::Binary => 'B',
        });
        part(&mut key, method);
        // Each preference a token or `-`; `count` is in the read's key, and
        // `timezone` and `tx` apply to the session, not the statement.
        for token in [
            prefer.resolution.map(Resolution::token),
            prefer.representation.map(Representation::token),
            prefer.missing.map(Missing::token),
            prefer.handling.map(Handling::token),
        ] {
            match token {
                Some(token) => part(&mut key, token),
                None => key.push('-'),
            }
        }
        match prefer.max_affected {
            Some(max) => {
                key.push(if max < 0 { 'n' } else { 'm' });
                decimal(&mut key, max.unsigned_abs());
            }
            None => key.push('-'),
        }
        Self(key)
    }
}

/// A part of a key of any length: its length, `:`, itself.
fn part(key: &mut String, text: &str) {
    decimal(key, text.len() as u64);
    key.push(':');
    key.push_str(text);
}

/// `n` in decimal digits, without `fmt`'s machinery: a key is built on
/// every request, from a part per query pair.
fn decimal(key: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    key.extend(digits[at..].iter().map(|&digit| char::from(digit)));
}

/// The memo of planned reads and calls, shared by every request.
#[derive(Clone, Default)]
pub struct Memo {
    inner: Arc<Mutex<Entries>>,
}

type Plans<V> = HashMap<String, Arc<V>, foldhash::fast::RandomState>;

/// Keeps `plan` under `key`, emptying a full map first (see [`CAPACITY`]).
fn keep<V>(plans: &mut Plans<V>, key: String, plan: Arc<V>) {
    if plans.len() >= CAPACITY {
        plans.clear();
    }
    plans.insert(key, plan);
}

#[derive(Default)]
struct Entries {
    /// The schema cache the entries were planned against.
    schema: Option<Arc<SchemaCache>>,
    reads: Plans<PlannedRead>,
    calls: Plans<PlannedCall>,
    inserts: Plans<PlannedInsert>,
}

impl Entries {
    /// Empties the memo if `schema` is not the cache its entries belong to.
    fn against(&mut self, schema: &Arc<SchemaCache>) -> &mut Self {
        if !self.schema.as_ref().is_some_and(|s| Arc::ptr_eq(s, schema)) {
            self.reads.clear();
            self.calls.clear();
            self.inserts.clear();
            self.schema = Some(schema.clone());
        }
        self
    }
}

impl Memo {
    /// The read planned for `key` against this schema cache, if any.
    pub fn read(&self, schema: &Arc<SchemaCache>, key: &ReadKey) -> Option<Arc<PlannedRead>> {
        self.inner.lock().ok()?.against(schema).reads.get(&key.0).cloned()
    }

    /// Keeps a read planned against `schema`.
    pub fn keep_read(&self, schema: &Arc<SchemaCache>, key: ReadKey, read: Arc<PlannedRead>) {
        if let Ok(mut entries) = self.inner.lock() {
            keep(&mut entries.against(schema).reads, key.0, read);
        }
    }

    /// The call planned for `key` against this schema cache, if any.
    pub fn call(&self, schema: &Arc<SchemaCache>, key: &WriteKey) -> Option<Arc<PlannedCall>> {
        self.inner.lock().ok()?.against(schema).calls.get(&key.0).cloned()
    }

    /// Keeps a call planned against `schema`.
    pub fn keep_call(&self, schema: &Arc<SchemaCache>, key: WriteKey, call: Arc<PlannedCall>) {
        if let Ok(mut entries) = self.inner.lock() {
            keep(&mut entries.against(schema).calls, key.0, call);
        }
    }

    /// The insert planned for `key` against this schema cache, if any.
    pub fn insert(&self, schema: &Arc<SchemaCache>, key: &WriteKey) -> Option<Arc<PlannedInsert>> {
        self.inner.lock().ok()?.against(schema).inserts.get(&key.0).cloned()
    }

    /// Keeps an insert planned against `schema`.
    pub fn keep_insert(&self, schema: &Arc<SchemaCache>, key: WriteKey, insert: Arc<PlannedInsert>) {
        if let Ok(mut entries) = self.inner.lock() {
            keep(&mut entries.against(schema).inserts, key.0, insert);
        }
    }

    /// How many reads, calls and inserts are kept.
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |e| e.reads.len() + e.calls.len() + e.inserts.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn key(table: &str, list: &[(&str, &str)]) -> ReadKey {
        ReadKey::new("public", table, &pairs(list), None, None, Media::Json, false)
    }

    fn planned(text: &str) -> Arc<PlannedRead> {
        Arc::new(PlannedRead {
            statement: Statement { text: text.to_owned(), params: Vec::new() },
            offset: 0,
            csv_header: None,
        })
    }

    fn schema() -> Arc<SchemaCache> {
        Arc::new(SchemaCache::default())
    }

    #[test]
    fn keys_differ_whenever_what_planning_reads_differs() {
        let base = || ReadKey::new("public", "t", &pairs(&[("id", "eq.1")]), None, None, Media::Json, false);
        let cases: [(&str, ReadKey); 8] = [
            (
                "another schema",
                ReadKey::new("api", "t", &pairs(&[("id", "eq.1")]), None, None, Media::Json, false),
            ),
            ("another table", key("u", &[("id", "eq.1")])),
            ("another value", key("t", &[("id", "eq.2")])),
            (
                "a range",
                ReadKey::new("public", "t", &pairs(&[("id", "eq.1")]), Some("0-9"), None, Media::Json, false),
            ),
            (
                "a count",
                ReadKey::new(
                    "public",
                    "t",
                    &pairs(&[("id", "eq.1")]),
                    None,
                    Some(CountMethod::Exact),
                    Media::Json,
                    false,
                ),
            ),
            (
                "another media type",
                ReadKey::new("public", "t", &pairs(&[("id", "eq.1")]), None, None, Media::Csv, false),
            ),
            ("HEAD", ReadKey::new("public", "t", &pairs(&[("id", "eq.1")]), None, None, Media::Json, true)),
            ("the pair split elsewhere", key("t", &[("ide", "q.1")])),
        ];
        for (case, other) in cases {
            assert_ne!(base().0, other.0, "{case}");
        }
        assert_eq!(base().0, base().0);
    }

    #[test]
    fn call_keys_differ_whenever_what_planning_a_call_reads_differs() {
        let names = |list: &[&str]| list.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let call = |names: &[String], payload: Payload, method: &str, max: Option<i64>| {
            let prefer = Prefer { max_affected: max, ..Prefer::default() };
            WriteKey::new(key("between", &[("limit", "20")]), names, payload, method, &prefer).0
        };
        let base = || call(&names(&["high", "low"]), Payload::Json, "POST", None);
        let cases = [
            ("an argument less", call(&names(&["high"]), Payload::Json, "POST", None)),
            ("other arguments", call(&names(&["high", "lower"]), Payload::Json, "POST", None)),
            ("arguments split elsewhere", call(&names(&["highlow"]), Payload::Json, "POST", None)),
            ("a text body", call(&names(&["high", "low"]), Payload::Text, "POST", None)),
            ("a GET", call(&names(&["high", "low"]), Payload::Json, "GET", None)),
            ("a bound on the rows", call(&names(&["high", "low"]), Payload::Json, "POST", Some(1))),
            (
                "another query string",
                WriteKey::new(
                    key("between", &[("limit", "21")]),
                    &names(&["high", "low"]),
                    Payload::Json,
                    "POST",
                    &Prefer::default(),
                )
                .0,
            ),
        ];
        let preferring = |prefer: Prefer| {
            WriteKey::new(
                key("between", &[("limit", "20")]),
                &names(&["high", "low"]),
                Payload::Json,
                "POST",
                &prefer,
            )
            .0
        };
        let preferences = [
            (
                "merge-duplicates",
                Prefer { resolution: Some(Resolution::MergeDuplicates), ..Prefer::default() },
            ),
            (
                "ignore-duplicates",
                Prefer { resolution: Some(Resolution::IgnoreDuplicates), ..Prefer::default() },
            ),
            (
                "return=representation",
                Prefer { representation: Some(Representation::Full), ..Prefer::default() },
            ),
            (
                "return=headers-only",
                Prefer { representation: Some(Representation::HeadersOnly), ..Prefer::default() },
            ),
            ("missing=default", Prefer { missing: Some(Missing::Default), ..Prefer::default() }),
            ("handling=strict", Prefer { handling: Some(Handling::Strict), ..Prefer::default() }),
        ];
        let cases = cases.into_iter().chain(preferences.map(|(case, prefer)| (case, preferring(prefer))));
        for (case, other) in cases {
            assert_ne!(base(), other, "{case}");
        }
        assert_eq!(base(), base());
    }

    #[test]
    fn a_kept_call_is_found_against_the_same_schema_cache_only() {
        let memo = Memo::default();
        let (first, reloaded) = (schema(), schema());
        let call = || WriteKey::new(key("f", &[]), &[], Payload::Json, "POST", &Prefer::default());
        let planned = Arc::new(PlannedCall {
            write: Write {
                statement: Statement { text: "select f()".to_owned(), params: Vec::new() },
                check: None,
            },
            takes_body: false,
            access: Access::ReadOnly,
            returns_set: false,
            returns_void: true,
            rows: false,
            singular: false,
            offset: 0,
            csv_header: None,
        });
        memo.keep_call(&first, call(), planned);
        assert!(memo.call(&first, &call()).is_some());
        assert!(memo.read(&first, &key("f", &[])).is_none(), "a call is not a read of the same name");
        assert!(memo.call(&reloaded, &call()).is_none(), "a reloaded schema cache empties the memo");
        assert!(memo.is_empty());
    }

    #[test]
    fn a_part_is_its_length_in_decimal_then_itself() {
        for (text, part) in [("", "0:"), ("a", "1:a"), ("0123456789", "10:0123456789"), ("ñ", "2:ñ")] {
            let mut key = String::new();
            super::part(&mut key, text);
            assert_eq!(key, part);
        }
        let mut key = String::new();
        super::decimal(&mut key, u64::MAX);
        assert_eq!(key, u64::MAX.to_string());
    }

    #[test]
    fn separators_inside_values_cannot_forge_another_key() {
        assert_ne!(key("t", &[("a", "1:b"), ("c", "2")]).0, key("t", &[("a", "1"), ("b", "c:2")]).0);
        assert_ne!(key("t|x", &[]).0, key("t", &[("|x", "")]).0);
        let ranged = |range: &str| ReadKey::new("p", "t", &[], Some(range), None, Media::Json, false).0;
        assert_ne!(ranged("0-9-jg"), ranged("0-9"));
    }

    #[test]
    fn a_kept_read_is_found_against_the_same_schema_cache_only() {
        let memo = Memo::default();
        let (first, reloaded) = (schema(), schema());
        memo.keep_read(&first, key("t", &[]), planned("select 1"));
        assert_eq!(
            memo.read(&first, &key("t", &[])).map(|r| r.statement.text.clone()).as_deref(),
            Some("select 1")
        );
        assert!(memo.read(&first, &key("u", &[])).is_none());
        assert!(memo.read(&reloaded, &key("t", &[])).is_none(), "a reloaded schema cache empties the memo");
        assert!(memo.is_empty());
    }

    #[test]
    fn a_full_memo_starts_again() {
        let memo = Memo::default();
        let schema = schema();
        for n in 0..CAPACITY {
            memo.keep_read(&schema, key("t", &[("id", &n.to_string())]), planned("select 1"));
        }
        assert_eq!(memo.len(), CAPACITY);
        memo.keep_read(&schema, key("t", &[("id", "last")]), planned("select 1"));
        assert_eq!(memo.len(), 1);
    }
}
