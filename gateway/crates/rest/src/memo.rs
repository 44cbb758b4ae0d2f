//! Reads planned before: the statement a read renders depends only on the
//! schema cache and on what [`ReadKey`] holds, never on the caller (policies
//! and grants apply in PostgreSQL, to the role the session takes), so a read
//! asked again with the same query string and the same planning headers
//! skips parsing, planning and rendering, which were a third of the
//! gateway's instructions per request (`bench/profile.sh`, S2).
//!
//! Entries belong to the schema cache they were planned against: a lookup or
//! an insert with another one (the listener reloaded it) empties the memo
//! first, so nothing planned against an older catalog is ever served. Only
//! plans that succeeded are kept; an error is found again each time, in the
//! handler's order.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use crate::ast::CountMethod;
use crate::request::Media;
use crate::schema::SchemaCache;
use crate::sql::Statement;

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

/// What a read's plan depends on besides the schema cache, as one string:
/// each part is written with its length first, so two different requests
/// never write the same key whatever bytes their values hold.
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
        let mut key = String::with_capacity(size + 32);
        let mut part = |text: &str| {
            let _ = write!(key, "{}:{text}", text.len());
        };
        part(schema);
        part(table);
        for (name, value) in pairs {
            part(name);
            part(value);
        }
        // The flags last, after a separator no length can be followed by.
        key.push('|');
        match range {
            Some(range) => {
                key.push('r');
                key.push_str(range);
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

/// The memo of planned reads, shared by every request.
#[derive(Clone, Default)]
pub struct Memo {
    inner: Arc<Mutex<Entries>>,
}

#[derive(Default)]
struct Entries {
    /// The schema cache the entries were planned against.
    schema: Option<Arc<SchemaCache>>,
    reads: HashMap<String, Arc<PlannedRead>, foldhash::fast::RandomState>,
}

impl Entries {
    /// Empties the memo if `schema` is not the cache its entries belong to.
    fn against(&mut self, schema: &Arc<SchemaCache>) -> &mut Self {
        if !self.schema.as_ref().is_some_and(|s| Arc::ptr_eq(s, schema)) {
            self.reads.clear();
            self.schema = Some(schema.clone());
        }
        self
    }
}

impl Memo {
    /// The read planned for `key` against this schema cache, if any.
    pub fn read(&self, schema: &Arc<SchemaCache>, key: &ReadKey) -> Option<Arc<PlannedRead>> {
        let mut entries = self.inner.lock().ok()?;
        entries.against(schema).reads.get(&key.0).cloned()
    }

    /// Keeps a read planned against `schema`.
    pub fn keep_read(&self, schema: &Arc<SchemaCache>, key: ReadKey, read: Arc<PlannedRead>) {
        let Ok(mut entries) = self.inner.lock() else { return };
        let entries = entries.against(schema);
        if entries.reads.len() >= CAPACITY {
            entries.reads.clear();
        }
        entries.reads.insert(key.0, read);
    }

    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |e| e.reads.len())
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
    fn separators_inside_values_cannot_forge_another_key() {
        assert_ne!(key("t", &[("a", "1:b"), ("c", "2")]).0, key("t", &[("a", "1"), ("b", "c:2")]).0);
        assert_ne!(key("t|x", &[]).0, key("t", &[("|x", "")]).0);
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
