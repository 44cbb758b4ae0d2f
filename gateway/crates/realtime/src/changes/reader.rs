//! The decoding reader: one per database at a time, whichever gateway holds
//! the advisory lock. It reads the slot's transactions, decodes them into the
//! `data` of Realtime's `postgres_changes` message, publishes them to
//! `_gateway.realtime_changes` for every gateway to tail, and only then lets
//! the slot move on (`sql/031_realtime_changes.sql`).
//!
//! It streams the slot over the replication protocol (`START_REPLICATION ...
//! LOGICAL` with `pgoutput`, as Realtime's own replication connection does;
//! [`super::replication`]): each transaction arrives once, a large one while
//! it runs where the server can stream it, and the slot moves with the
//! standby status updates sent after publishing. A server that refuses the
//! replication connection (no REPLICATION attribute for the schema owner's
//! login, no `replication` line in `pg_hba.conf`) is read by polling instead:
//! peeking at the slot through SQL every [`IDLE_POLL`], as
//! `--realtime-change-feed poll` asks.
//!
//! The lock is session-level on the reader's own connection: when a gateway
//! dies its connections close, PostgreSQL releases the lock and the slot, and
//! another gateway's reader, retrying every [`ELECTION_RETRY`], takes over from
//! the slot's position, so nothing committed meanwhile is lost (what was
//! published but not yet acknowledged is published again, and
//! `_gateway.realtime_publish` skips it).

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use futures::FutureExt;
use serde_json::{Map, Value, json};
use tokio::time::Instant;
use tokio_postgres::{Client, NoTls};

use super::pgoutput::{Datum, Decoder, Kind, Relation, RowChange, Transaction};
use super::replication::{self, Event, Replication};
use crate::config::ChangeFeed;
use gateway_core::db::Db;

/// The advisory lock whose holder is the reader (migrations use 7243190528).
const READER_LOCK: i64 = 7243190529;
/// How often a gateway that is not the reader asks for the lock.
pub const ELECTION_RETRY: Duration = Duration::from_millis(500);
/// How long the polling reader waits before peeking again at an idle slot:
/// the floor of the feed's latency at a low rate (docs/services/realtime.md).
const IDLE_POLL: Duration = Duration::from_millis(25);
/// Changes decoded per peek (whole transactions: a larger one comes whole).
const PEEK_CHANGES: i32 = 5000;
/// Transactions the streaming reader publishes in one statement at most:
/// what has arrived is published together, up to this many.
const STREAM_BATCH: usize = 500;
/// How often the streaming reader tells the server how far it has published:
/// what a successor reads again after a failover.
const STATUS_INTERVAL: Duration = Duration::from_secs(1);
/// The publication Realtime reads (`supabase_realtime`).
const PUBLICATION: &str = "supabase_realtime";

/// Runs for as long as the gateway serves: competes for the lock, and reads
/// while it holds it.
pub async fn run(db: Db, feed: ChangeFeed) {
    let mut feed = feed;
    loop {
        match lead(&db, &mut feed).await {
            Ok(()) => {}
            Err(e) => tracing::warn!(error = %e, "realtime change reader stopped; retrying"),
        }
        tokio::time::sleep(ELECTION_RETRY).await;
    }
}

/// One connection's attempt: `Ok` when another gateway holds the lock. A
/// refused replication connection turns `feed` to polling for good.
async fn lead(db: &Db, feed: &mut ChangeFeed) -> Result<(), String> {
    let (client, connection) = db.pg_config().connect(NoTls).await.map_err(|e| e.to_string())?;
    let connection = tokio::spawn(connection);
    let result = async {
        let won: bool = client
            .query_one("select pg_catalog.pg_try_advisory_lock($1)", &[&READER_LOCK])
            .await
            .map_err(|e| e.to_string())?
            .get(0);
        if !won {
            return Ok(());
        }
        // A backlog may take longer than a request's statement timeout.
        client.batch_execute("set statement_timeout = 0").await.map_err(|e| e.to_string())?;
        if client
            .query_one("select _gateway.realtime_ensure_slot()", &[])
            .await
            .map_err(|e| e.to_string())?
            .get::<_, bool>(0)
        {
            tracing::info!("created the logical replication slot for Realtime's changes");
        }
        let mut catalog = Catalog::default();
        if *feed == ChangeFeed::Stream {
            let refused = match db.replication_login() {
                None => "the gateway has no login of the schema owner (--database-admin-url)".to_owned(),
                Some(login) => match stream(&client, login, &mut catalog).await {
                    Err(Stop::Refused(reason)) => reason,
                    Err(Stop::Failed(e)) => return Err(e),
                },
            };
            tracing::warn!(
                reason = %refused,
                "Realtime's change reader cannot stream the replication slot; it polls the slot instead"
            );
            *feed = ChangeFeed::Poll;
        }
        tracing::info!("this gateway reads the database's changes for Realtime, polling the slot");
        let mut advanced = String::new();
        loop {
            if read_once(&client, &mut catalog, &mut advanced).await? == 0 {
                tokio::time::sleep(IDLE_POLL).await;
            }
        }
    }
    .await;
    drop(client);
    connection.abort();
    result
}

/// Why streaming stopped: the server refuses replication connections
/// (polling may still work), or something that a new attempt may not meet.
enum Stop {
    Refused(String),
    Failed(String),
}

impl From<replication::Error> for Stop {
    fn from(e: replication::Error) -> Self {
        match &e {
            // 42501: no REPLICATION attribute; 28000: no `replication` line
            // in pg_hba.conf; 28P01 and the rest of class 28: the login.
            replication::Error::Server { code, .. } if code == "42501" || code.starts_with("28") => {
                Stop::Refused(e.to_string())
            }
            replication::Error::Login(_) => Stop::Refused(e.to_string()),
            _ => Stop::Failed(e.to_string()),
        }
    }
}

/// Opens the replication connection as the schema owner and starts
/// streaming `slot`.
async fn open(login: &tokio_postgres::Config, slot: &str) -> Result<Replication, replication::Error> {
    let mut replication = Replication::connect(login, "gateway realtime").await?;
    replication.start(slot, PUBLICATION).await?;
    Ok(replication)
}

/// Streams the slot until something fails: each transaction is decoded as it
/// arrives; what arrived together is published in one statement, and only
/// then confirmed, so the slot never moves past an unpublished change.
async fn stream(
    client: &Client,
    login: &tokio_postgres::Config,
    catalog: &mut Catalog,
) -> Result<Infallible, Stop> {
    let failed = |e: tokio_postgres::Error| Stop::Failed(e.to_string());
    let slot: String = client.query_one("select _gateway.realtime_slot()", &[]).await.map_err(failed)?.get(0);
    let mut replication = match open(login, &slot).await {
        Ok(replication) => replication,
        Err(e) if invalidated(&e) => {
            tracing::error!(
                error = %e,
                "the replication slot of Realtime's changes was invalidated (no gateway read it for too long); \
                 changes committed meanwhile are lost, and a new slot starts now"
            );
            client
                .batch_execute("select _gateway.realtime_drop_slot(); select _gateway.realtime_ensure_slot()")
                .await
                .map_err(failed)?;
            return Err(Stop::Failed("the replication slot was made anew".into()));
        }
        Err(e) => return Err(e.into()),
    };
    tracing::info!(
        large_transactions_streamed = replication.streams_in_progress(),
        "this gateway reads the database's changes for Realtime, streaming the slot"
    );
    let mut decoder = Decoder::default();
    let mut batch: Vec<Transaction> = Vec::new();
    // Where the slot may move once the batch is published; where it was
    // last confirmed, and when.
    let mut reached: Option<u64> = None;
    let mut applied = 0u64;
    let mut confirmed = 0u64;
    let mut last_status = Instant::now();
    loop {
        // A position not yet confirmed is sent when due, even if nothing
        // else arrives.
        let first = if applied > confirmed {
            match tokio::time::timeout_at(last_status + STATUS_INTERVAL, replication.recv()).await {
                Ok(event) => Some(event?),
                Err(_) => None,
            }
        } else {
            Some(replication.recv().await?)
        };
        let mut reply = first.is_none();
        if let Some(mut event) = first {
            loop {
                match event {
                    Event::Data(data) => {
                        if let Some(transaction) = decoder.message(&data).map_err(Stop::Failed)? {
                            reached = reached.max(Some(transaction.end_lsn));
                            if !transaction.changes.is_empty() {
                                batch.push(transaction);
                            }
                        }
                    }
                    Event::KeepAlive { wal_end, reply: asked } => {
                        reply |= asked;
                        // Between transactions, everything before the
                        // server's position has arrived: the slot may move
                        // there, past WAL of tables outside the publication.
                        if !decoder.in_transaction() {
                            reached = reached.max(Some(wal_end));
                        }
                    }
                }
                if batch.len() >= STREAM_BATCH {
                    break;
                }
                match replication.recv().now_or_never() {
                    Some(next) => event = next?,
                    None => break,
                }
            }
        }
        if !batch.is_empty() {
            publish(client, catalog, &decoder, &batch).await.map_err(Stop::Failed)?;
            batch.clear();
        }
        if let Some(lsn) = reached.take() {
            applied = applied.max(lsn);
        }
        if reply || (applied > confirmed && last_status.elapsed() >= STATUS_INTERVAL) {
            replication.confirm(applied).await?;
            confirmed = applied;
            last_status = Instant::now();
        }
    }
}

/// The server can no longer decode the slot (it held more WAL than
/// `max_slot_wal_keep_size`).
fn invalidated(e: &replication::Error) -> bool {
    let text = e.to_string();
    text.contains("invalidated") || text.contains("can no longer get changes")
}

/// Peeks, publishes and advances once; the number of transactions read.
///
/// The peek stops at the WAL's current end, and when it read everything up
/// to there the slot moves there, even past WAL with no published change:
/// otherwise writes to other tables would pile up behind the slot, kept
/// and decoded again on every peek. `advanced` is where it last moved to.
async fn read_once(client: &Client, catalog: &mut Catalog, advanced: &mut String) -> Result<usize, String> {
    let until: String = client
        .query_one("select pg_catalog.pg_current_wal_lsn()::text", &[])
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    // Nothing was written since the last read: no decoding to start.
    if *advanced == until {
        return Ok(0);
    }
    let rows = match client
        .query(
            "select lsn::text, data from _gateway.realtime_peek($1::text::pg_lsn, $2)",
            &[&until, &PEEK_CHANGES],
        )
        .await
    {
        Ok(rows) => rows,
        Err(e) if e.as_db_error().is_some_and(|e| e.message().contains("invalidated")) => {
            tracing::error!(
                error = %e,
                "the replication slot of Realtime's changes was invalidated (no gateway read it for too long); \
                 changes committed meanwhile are lost, and a new slot starts now"
            );
            client
                .batch_execute("select _gateway.realtime_drop_slot(); select _gateway.realtime_ensure_slot()")
                .await
                .map_err(|e| e.to_string())?;
            return Ok(0);
        }
        Err(e) => return Err(e.to_string()),
    };
    let complete = rows.len() < usize::try_from(PEEK_CHANGES).unwrap_or(usize::MAX);
    if rows.is_empty() {
        if *advanced != until {
            client
                .execute("select _gateway.realtime_advance($1)", &[&until])
                .await
                .map_err(|e| e.to_string())?;
            *advanced = until;
        }
        return Ok(0);
    }
    let mut decoder = Decoder::default();
    let mut transactions = Vec::new();
    for row in &rows {
        if let Some(transaction) = decoder.message(row.get::<_, &[u8]>(1))? {
            transactions.push(transaction);
        }
    }
    let Some(last) = transactions.last().map(|t| t.end_lsn) else { return Ok(0) };
    let to = if complete { until } else { lsn_text(last) };
    publish(client, catalog, &decoder, &transactions).await?;
    client.execute("select _gateway.realtime_advance($1)", &[&to]).await.map_err(|e| e.to_string())?;
    *advanced = to;
    Ok(transactions.len())
}

/// Decodes `transactions` into `postgres_changes` data and publishes them to
/// `_gateway.realtime_changes`, where every gateway's tail finds them.
async fn publish(
    client: &Client,
    catalog: &mut Catalog,
    decoder: &Decoder,
    transactions: &[Transaction],
) -> Result<(), String> {
    catalog.learn(client, decoder).await?;
    let mut lsns = Vec::new();
    let mut changes = Vec::new();
    let mut casts = Vec::new();
    for transaction in transactions {
        for change in &transaction.changes {
            if let Some(value) = catalog.describe(decoder, transaction, change, changes.len(), &mut casts) {
                lsns.push(lsn_text(transaction.end_lsn));
                changes.push(value);
            }
        }
    }
    cast(client, &catalog.types, &mut changes, casts).await;
    client
        .execute("select _gateway.realtime_publish($1, $2)", &[&lsns, &changes])
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A value [`typed`] cannot give as `to_jsonb` would: PostgreSQL casts it.
struct Cast {
    /// Index of the change in the batch.
    change: usize,
    /// `record` or `old_record`.
    record: &'static str,
    column: String,
    text: String,
    type_oid: u32,
}

/// Puts each value of `casts` in its place as `to_jsonb` of its type gives it
/// (`_gateway.realtime_cast`, Realtime's `realtime.cast`), all in one
/// statement. Should that fail (a type dropped since), the values keep
/// PostgreSQL's text, typed as well as [`typed`] can.
async fn cast(client: &Client, types: &HashMap<u32, String>, changes: &mut [Value], casts: Vec<Cast>) {
    if casts.is_empty() {
        return;
    }
    let texts: Vec<&str> = casts.iter().map(|c| c.text.as_str()).collect();
    let oids: Vec<u32> = casts.iter().map(|c| c.type_oid).collect();
    let values: Vec<Value> = match client
        .query(
            "select _gateway.realtime_cast(u.value, u.type_oid) \
             from unnest($1::text[], $2::oid[]) with ordinality as u(value, type_oid, n) order by u.n",
            &[&texts, &oids],
        )
        .await
    {
        Ok(rows) => rows.iter().map(|row| row.get::<_, Option<Value>>(0).unwrap_or(Value::Null)).collect(),
        Err(e) => {
            tracing::warn!(error = %e, "could not cast changed values as their types; sending their text");
            casts
                .iter()
                .map(|c| typed(types.get(&c.type_oid).map_or("text", String::as_str), &c.text))
                .collect()
        }
    };
    for (cast, value) in casts.into_iter().zip(values) {
        if let Some(slot) = changes
            .get_mut(cast.change)
            .and_then(|change| change["data"].get_mut(cast.record))
            .and_then(Value::as_object_mut)
        {
            slot.insert(cast.column, value);
        }
    }
}

/// Types whose text [`typed`] turns into exactly what `to_jsonb` gives.
fn typed_here(type_name: &str) -> bool {
    matches!(
        type_name,
        "int2"
            | "int4"
            | "int8"
            | "oid"
            | "bool"
            | "text"
            | "varchar"
            | "bpchar"
            | "name"
            | "uuid"
            | "citext"
    )
}

fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

/// What the messages do not say: type names and whether a table has
/// row-level security.
#[derive(Default)]
struct Catalog {
    types: HashMap<u32, String>,
    rls: HashMap<u32, bool>,
    /// Primary keys: pgoutput flags every column as a key under replica
    /// identity full, so the flags cannot tell.
    pk: HashMap<u32, Vec<String>>,
}

impl Catalog {
    async fn learn(&mut self, client: &Client, decoder: &Decoder) -> Result<(), String> {
        let types: HashSet<u32> = decoder
            .relations
            .values()
            .flat_map(|r| r.columns.iter().map(|c| c.type_oid))
            .filter(|oid| !self.types.contains_key(oid))
            .collect();
        if !types.is_empty() {
            let types: Vec<u32> = types.into_iter().collect();
            let rows = client
                .query("select oid, typname::text from pg_catalog.pg_type where oid = any($1)", &[&types])
                .await
                .map_err(|e| e.to_string())?;
            for row in rows {
                self.types.insert(row.get(0), row.get(1));
            }
        }
        // Asked on every batch: a table's RLS may be switched at any time.
        let relations: Vec<u32> = decoder.relations.keys().copied().collect();
        let rows = client
            .query("select oid, relrowsecurity from pg_catalog.pg_class where oid = any($1)", &[&relations])
            .await
            .map_err(|e| e.to_string())?;
        for row in rows {
            self.rls.insert(row.get(0), row.get(1));
        }
        let rows = client
            .query(
                "select i.indrelid, array_agg(a.attname::text order by k.n) \
                 from pg_catalog.pg_index i \
                 cross join lateral unnest(i.indkey) with ordinality as k(attnum, n) \
                 join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum \
                 where i.indisprimary and i.indrelid = any($1) group by i.indrelid",
                &[&relations],
            )
            .await
            .map_err(|e| e.to_string())?;
        for row in rows {
            self.pk.insert(row.get(0), row.get(1));
        }
        Ok(())
    }

    /// The stored change: `data` is the payload's `data` as Realtime sends it
    /// (supabase/realtime `lib/extensions/postgres_cdc_rls`, walrus), `rls`
    /// and `pk` what the fan-out needs to check it per subscriber.
    /// Values of types [`typed_here`] does not know are left as null and
    /// noted in `casts`, with `index`, the change's place in its batch.
    fn describe(
        &self,
        decoder: &Decoder,
        transaction: &Transaction,
        change: &RowChange,
        index: usize,
        casts: &mut Vec<Cast>,
    ) -> Option<Value> {
        let relation = decoder.relations.get(&change.relation)?;
        let rls = self.rls.get(&change.relation).copied().unwrap_or(true);
        let type_name = |oid: u32| self.types.get(&oid).cloned().unwrap_or_else(|| "text".to_owned());
        let columns: Vec<Value> =
            relation.columns.iter().map(|c| json!({"name": c.name, "type": type_name(c.type_oid)})).collect();
        let pk: Vec<&str> = self.pk.get(&change.relation).into_iter().flatten().map(String::as_str).collect();
        let types: Map<String, Value> =
            relation.columns.iter().map(|c| (c.name.clone(), json!(c.type_oid))).collect();
        if pk.is_empty() && change.kind != Kind::Delete {
            return Some(keyless(relation, change.kind, rls));
        }
        let mut record_of = |values: &[Datum], keys_only: bool, name: &'static str| {
            let mut record = Map::new();
            for (column, datum) in relation.columns.iter().zip(values) {
                if keys_only && !pk.contains(&column.name.as_str()) {
                    continue;
                }
                match datum {
                    Datum::Null => {
                        record.insert(column.name.clone(), Value::Null);
                    }
                    Datum::Text(text) => {
                        let type_name = type_name(column.type_oid);
                        let value = match typed_here(&type_name) {
                            true => typed(&type_name, text),
                            false => {
                                casts.push(Cast {
                                    change: index,
                                    record: name,
                                    column: column.name.clone(),
                                    text: text.clone(),
                                    type_oid: column.type_oid,
                                });
                                Value::Null
                            }
                        };
                        record.insert(column.name.clone(), value);
                    }
                    Datum::Unchanged => {}
                }
            }
            Value::Object(record)
        };
        let mut data = Map::new();
        data.insert("schema".into(), json!(relation.schema));
        data.insert("table".into(), json!(relation.table));
        data.insert("commit_timestamp".into(), json!(commit_timestamp(transaction.commit_time)));
        data.insert("type".into(), json!(change.kind.as_str()));
        data.insert("columns".into(), Value::Array(columns));
        if let Some(new) = &change.new {
            data.insert("record".into(), record_of(new, false, "record"));
        }
        if change.kind != Kind::Insert {
            // Where RLS guards the table a deleted row is cut to its primary
            // key, since no check can tell whether the caller could see the
            // rest of a row that is gone (Supabase, "Postgres Changes",
            // Delete events / Old records); an updated row's old values go
            // whole under replica identity full, RLS or not, as Realtime's
            // `apply_rls` sends them. Without an old tuple (the key did not
            // change) the key comes from the new row, as wal2json's
            // `identity` gives it to Realtime.
            let cut = (rls && change.kind == Kind::Delete) || !relation.full_identity;
            let old = match (&change.old, &change.new) {
                // Nothing of a row without a key is left to send (Realtime's
                // aggregate of no columns).
                (Some(_), _) if cut && pk.is_empty() => Value::Null,
                (Some(old), _) => record_of(old, cut, "old_record"),
                (None, Some(new)) => record_of(new, true, "old_record"),
                (None, None) => json!({}),
            };
            data.insert("old_record".into(), old);
        }
        data.insert("errors".into(), Value::Null);
        Some(json!({"data": data, "rls": rls, "pk": pk, "types": types}))
    }
}

/// An insert or update of a table without a primary key, as Realtime's
/// `apply_rls` answers it: no row, no columns, no commit time, and the error
/// `Error 400: Bad Request, no primary key`, for every binding of the table.
fn keyless(relation: &Relation, kind: Kind, rls: bool) -> Value {
    let mut data = Map::new();
    data.insert("schema".into(), json!(relation.schema));
    data.insert("table".into(), json!(relation.table));
    data.insert("commit_timestamp".into(), Value::Null);
    data.insert("type".into(), json!(kind.as_str()));
    data.insert("columns".into(), json!([]));
    data.insert("record".into(), json!({}));
    if kind == Kind::Update {
        data.insert("old_record".into(), json!({}));
    }
    data.insert("errors".into(), json!(["Error 400: Bad Request, no primary key"]));
    json!({"data": data, "rls": rls, "pk": [], "types": {}})
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` from microseconds since 2000-01-01 UTC.
fn commit_timestamp(micros: i64) -> String {
    const UNIX_TO_POSTGRES: i64 = 946_684_800_000_000;
    DateTime::<Utc>::from_timestamp_micros(micros + UNIX_TO_POSTGRES)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A value as Realtime's JSON gives it: numbers and booleans typed, JSON
/// parsed, everything else (dates, arrays, numeric's exact digits aside) as
/// PostgreSQL prints it, which realtime-js converts by the column's type
/// (`transformers.ts`).
pub fn typed(type_name: &str, text: &str) -> Value {
    match type_name {
        "int2" | "int4" | "int8" | "oid" => {
            text.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(text.to_owned()))
        }
        "float4" | "float8" | "numeric" => match text.parse::<f64>() {
            Ok(n) if n.is_finite() => text
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)),
            _ => Value::String(text.to_owned()),
        },
        "bool" => Value::Bool(text == "t"),
        "json" | "jsonb" => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())),
        _ => Value::String(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_as_realtime_sends_them() {
        let cases = [
            ("int8", "42", json!(42)),
            ("int4", "-7", json!(-7)),
            ("numeric", "10.50", json!(10.5)),
            ("numeric", "3", json!(3)),
            ("float8", "NaN", json!("NaN")),
            ("bool", "t", json!(true)),
            ("bool", "f", json!(false)),
            ("jsonb", r#"{"a": [1]}"#, json!({"a": [1]})),
            ("_text", "{a,b}", json!("{a,b}")),
            ("timestamptz", "2026-11-25 22:00:00+00", json!("2026-11-25 22:00:00+00")),
        ];
        for (type_name, text, expected) in cases {
            assert_eq!(typed(type_name, text), expected, "{type_name} {text}");
        }
    }

    #[test]
    fn commit_timestamps_are_utc_with_milliseconds() {
        assert_eq!(commit_timestamp(0), "2000-01-01T00:00:00.000Z");
        assert_eq!(commit_timestamp(1_234_567), "2000-01-01T00:00:01.234Z");
    }

    #[test]
    fn positions_print_as_postgresql_writes_them() {
        assert_eq!(lsn_text(0x1_0000_00A0), "1/A0");
    }
}
