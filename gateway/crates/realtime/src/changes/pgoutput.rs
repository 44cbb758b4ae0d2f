//! Decoding PostgreSQL's built-in `pgoutput` plugin, as
//! `pg_logical_slot_peek_binary_changes` returns it (protocol version 1, one
//! message per row) or the replication connection streams it (version 2:
//! a transaction larger than `logical_decoding_work_mem` arrives in blocks
//! while it runs, each change naming its subtransaction, and is kept here
//! until its Stream Commit, or dropped by its Stream Abort).
//! The message formats are PostgreSQL's
//! <https://www.postgresql.org/docs/15/protocol-logicalrep-message-formats.html>.
//! Values come as text (the type's output function), which is what the
//! `postgres_changes` payload needs anyway.

use std::collections::HashMap;

/// A table as a Relation message describes it.
#[derive(Debug, Clone)]
pub struct Relation {
    pub schema: String,
    pub table: String,
    /// Replica identity full: old tuples carry every column, not only the key.
    pub full_identity: bool,
    pub columns: Vec<Column>,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
}

/// One column's value in a tuple.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    Null,
    /// A TOASTed value the change did not touch: pgoutput does not send it.
    Unchanged,
    Text(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Insert,
    Update,
    Delete,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Insert => "INSERT",
            Kind::Update => "UPDATE",
            Kind::Delete => "DELETE",
        }
    }
}

/// One row change of a committed transaction.
#[derive(Debug, Clone)]
pub struct RowChange {
    pub relation: u32,
    pub kind: Kind,
    /// The new row (INSERT, UPDATE).
    pub new: Option<Vec<Datum>>,
    /// The old row: its key columns only unless the table's replica identity
    /// is full (UPDATE of a key, DELETE).
    pub old: Option<Vec<Datum>>,
}

/// A committed transaction's changes.
#[derive(Debug, Clone)]
pub struct Transaction {
    /// Microseconds since 2000-01-01 UTC, PostgreSQL's epoch.
    pub commit_time: i64,
    /// Where the transaction's commit record ends: the slot may move here.
    pub end_lsn: u64,
    pub changes: Vec<RowChange>,
}

/// Decodes messages in order, keeping the relations they announce.
#[derive(Default)]
pub struct Decoder {
    pub relations: HashMap<u32, Relation>,
    current: Option<Transaction>,
    /// The streamed transaction whose block is being read (Stream Start to
    /// Stream Stop).
    block: Option<u32>,
    /// Streamed transactions not yet committed or aborted, by top-level xid:
    /// each change with the (sub)transaction that made it.
    streamed: HashMap<u32, Vec<(u32, RowChange)>>,
}

impl Decoder {
    /// Feeds one message; a Commit message gives back its transaction.
    pub fn message(&mut self, data: &[u8]) -> Result<Option<Transaction>, String> {
        let mut r = Reader { data, at: 0 };
        let tag = r.u8()?;
        // Inside a streamed block, changes and the messages that describe
        // them name their (sub)transaction first.
        let xid = match (self.block, tag) {
            (Some(_), b'R' | b'Y' | b'I' | b'U' | b'D' | b'T' | b'M') => Some(r.u32()?),
            _ => None,
        };
        match tag {
            b'S' => {
                let top = r.u32()?;
                self.block = Some(top);
                self.streamed.entry(top).or_default();
            }
            b'E' => self.block = None,
            b'c' => {
                let top = r.u32()?;
                let _flags = r.u8()?;
                let _commit_lsn = r.u64()?;
                let end_lsn = r.u64()?;
                let commit_time = r.i64()?;
                let changes = self.streamed.remove(&top).unwrap_or_default();
                let changes = changes.into_iter().map(|(_, change)| change).collect();
                return Ok(Some(Transaction { commit_time, end_lsn, changes }));
            }
            b'A' => {
                let top = r.u32()?;
                let sub = r.u32()?;
                if top == sub {
                    self.streamed.remove(&top);
                } else if let Some(changes) = self.streamed.get_mut(&top) {
                    changes.retain(|(xid, _)| *xid != sub);
                }
            }
            b'B' => {
                let _final_lsn = r.u64()?;
                self.begin(r.i64()?);
            }
            b'C' => {
                let _flags = r.u8()?;
                let _commit_lsn = r.u64()?;
                let end_lsn = r.u64()?;
                let commit_time = r.i64()?;
                return self.commit(end_lsn, commit_time).map(Some);
            }
            b'R' => {
                let id = r.u32()?;
                let schema = r.cstring()?;
                let table = r.cstring()?;
                let identity = r.u8()?;
                let n = r.u16()?;
                let mut columns = Vec::with_capacity(n.into());
                for _ in 0..n {
                    // The flags mark the replica identity's columns, every
                    // column under identity full: the primary key comes
                    // from the catalog instead.
                    let _flags = r.u8()?;
                    let name = r.cstring()?;
                    let type_oid = r.u32()?;
                    let _typmod = r.i32()?;
                    columns.push(Column { name, type_oid });
                }
                let full_identity = identity == b'f';
                self.relations.insert(id, Relation { schema, table, full_identity, columns });
            }
            b'I' => {
                let relation = r.u32()?;
                r.expect(b'N')?;
                let new = r.tuple()?;
                self.push(xid, RowChange { relation, kind: Kind::Insert, new: Some(new), old: None })?;
            }
            b'U' => {
                let relation = r.u32()?;
                let mut old = None;
                let mut tag = r.u8()?;
                if tag == b'K' || tag == b'O' {
                    old = Some(r.tuple()?);
                    tag = r.u8()?;
                }
                if tag != b'N' {
                    return Err(format!("unexpected tuple tag {tag} in Update"));
                }
                let new = r.tuple()?;
                self.push(xid, RowChange { relation, kind: Kind::Update, new: Some(new), old })?;
            }
            b'D' => {
                let relation = r.u32()?;
                let _tag = r.u8()?;
                let old = r.tuple()?;
                self.push(xid, RowChange { relation, kind: Kind::Delete, new: None, old: Some(old) })?;
            }
            // Origin, Type, Truncate and logical messages: Realtime sends no
            // `postgres_changes` for them.
            _ => {}
        }
        Ok(None)
    }

    fn begin(&mut self, commit_time: i64) {
        self.current = Some(Transaction { commit_time, end_lsn: 0, changes: Vec::new() });
    }

    /// The transaction begun last, now whole.
    fn commit(&mut self, end_lsn: u64, commit_time: i64) -> Result<Transaction, String> {
        let mut transaction = self.current.take().ok_or("Commit without Begin")?;
        transaction.end_lsn = end_lsn;
        transaction.commit_time = commit_time;
        Ok(transaction)
    }

    /// Whether a transaction has begun, or been streamed in part, and has
    /// neither committed nor aborted: the server's position may then be
    /// inside it.
    pub fn in_transaction(&self) -> bool {
        self.current.is_some() || !self.streamed.is_empty()
    }

    fn push(&mut self, xid: Option<u32>, change: RowChange) -> Result<(), String> {
        match (self.block, xid) {
            (Some(top), Some(xid)) => self.streamed.entry(top).or_default().push((xid, change)),
            _ => self.current.as_mut().ok_or("a change outside a transaction")?.changes.push(change),
        }
        Ok(())
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.data.len()).ok_or("message too short")?;
        let bytes = &self.data[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, String> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    fn expect(&mut self, tag: u8) -> Result<(), String> {
        match self.u8()? {
            t if t == tag => Ok(()),
            t => Err(format!("expected tuple tag {tag}, found {t}")),
        }
    }

    fn cstring(&mut self) -> Result<String, String> {
        let rest = &self.data[self.at..];
        let len = rest.iter().position(|&b| b == 0).ok_or("unterminated string")?;
        let text = String::from_utf8_lossy(&rest[..len]).into_owned();
        self.at += len + 1;
        Ok(text)
    }

    fn tuple(&mut self) -> Result<Vec<Datum>, String> {
        let n = self.u16()?;
        let mut values = Vec::with_capacity(n.into());
        for _ in 0..n {
            values.push(match self.u8()? {
                b'n' => Datum::Null,
                b'u' => Datum::Unchanged,
                b't' => {
                    let len = usize::try_from(self.i32()?).map_err(|_| "negative length")?;
                    Datum::Text(String::from_utf8_lossy(self.take(len)?).into_owned())
                }
                other => return Err(format!("unexpected column kind {other}")),
            });
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relation_message() -> Vec<u8> {
        let mut m = vec![b'R'];
        m.extend(16384u32.to_be_bytes());
        m.extend(b"public\0items\0");
        m.push(b'd');
        m.extend(2u16.to_be_bytes());
        m.push(1);
        m.extend(b"id\0");
        m.extend(20u32.to_be_bytes());
        m.extend((-1i32).to_be_bytes());
        m.push(0);
        m.extend(b"name\0");
        m.extend(25u32.to_be_bytes());
        m.extend((-1i32).to_be_bytes());
        m
    }

    #[test]
    fn a_transaction_of_one_insert_decodes_to_its_row_and_commit_position() {
        let mut decoder = Decoder::default();
        let mut begin = vec![b'B'];
        begin.extend(100u64.to_be_bytes());
        begin.extend(5i64.to_be_bytes());
        begin.extend(7u32.to_be_bytes());
        let mut insert = vec![b'I'];
        insert.extend(16384u32.to_be_bytes());
        insert.push(b'N');
        insert.extend(2u16.to_be_bytes());
        insert.push(b't');
        insert.extend(1i32.to_be_bytes());
        insert.push(b'1');
        insert.push(b'n');
        let mut commit = vec![b'C', 0];
        commit.extend(100u64.to_be_bytes());
        commit.extend(120u64.to_be_bytes());
        commit.extend(5i64.to_be_bytes());

        assert!(decoder.message(&begin).expect("begin").is_none());
        assert!(decoder.message(&relation_message()).expect("relation").is_none());
        assert!(decoder.message(&insert).expect("insert").is_none());
        let transaction = decoder.message(&commit).expect("commit").expect("a transaction");

        assert_eq!(transaction.end_lsn, 120);
        assert_eq!(transaction.changes.len(), 1);
        assert_eq!(transaction.changes[0].new, Some(vec![Datum::Text("1".into()), Datum::Null]));
        let relation = &decoder.relations[&16384];
        assert_eq!((relation.schema.as_str(), relation.table.as_str()), ("public", "items"));
        assert_eq!(relation.columns[0].name, "id");
    }

    fn streamed_insert(xid: u32, id: u8) -> Vec<u8> {
        let mut insert = vec![b'I'];
        insert.extend(xid.to_be_bytes());
        insert.extend(16384u32.to_be_bytes());
        insert.push(b'N');
        insert.extend(2u16.to_be_bytes());
        insert.push(b't');
        insert.extend(1i32.to_be_bytes());
        insert.push(id);
        insert.push(b'n');
        insert
    }

    fn stream_start(xid: u32) -> Vec<u8> {
        let mut start = vec![b'S'];
        start.extend(xid.to_be_bytes());
        start.push(1);
        start
    }

    fn stream_abort(xid: u32, sub: u32) -> Vec<u8> {
        let mut abort = vec![b'A'];
        abort.extend(xid.to_be_bytes());
        abort.extend(sub.to_be_bytes());
        abort
    }

    #[test]
    fn a_streamed_transaction_arrives_at_its_commit_without_its_aborted_subtransactions() {
        let mut decoder = Decoder::default();
        let mut relation = vec![b'R'];
        relation.extend(900u32.to_be_bytes());
        relation.extend(&relation_message()[1..]);
        let mut commit = vec![b'c'];
        commit.extend(900u32.to_be_bytes());
        commit.push(0);
        commit.extend(100u64.to_be_bytes());
        commit.extend(120u64.to_be_bytes());
        commit.extend(5i64.to_be_bytes());
        let blocks = [
            stream_start(900),
            relation,
            streamed_insert(900, b'1'),
            streamed_insert(901, b'2'),
            vec![b'E'],
            // Another transaction streams, then aborts whole.
            stream_start(950),
            streamed_insert(950, b'9'),
            vec![b'E'],
            stream_abort(950, 950),
            stream_start(900),
            streamed_insert(902, b'3'),
            vec![b'E'],
            // The subtransaction 901 rolls back.
            stream_abort(900, 901),
        ];
        for message in &blocks {
            assert!(decoder.message(message).expect("decodes").is_none());
            assert!(decoder.in_transaction());
        }
        let transaction = decoder.message(&commit).expect("commit").expect("a transaction");

        let ids: Vec<&Datum> = transaction.changes.iter().map(|c| &c.new.as_ref().expect("new")[0]).collect();
        assert_eq!(ids, [&Datum::Text("1".into()), &Datum::Text("3".into())]);
        assert_eq!(transaction.end_lsn, 120);
        assert!(!decoder.in_transaction());
    }

    #[test]
    fn a_truncated_message_is_an_error_not_a_panic() {
        let mut decoder = Decoder::default();
        assert!(decoder.message(&relation_message()[..10]).is_err());
        assert!(decoder.message(&[]).is_err());
    }
}
