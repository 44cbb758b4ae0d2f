//! `postgres_changes`: the contract between a channel and the change feed.
//!
//! A channel that joins with `config.postgres_changes` bindings calls
//! [`Changes::subscribe`] with them (ids assigned by the channel, in the
//! client's order) and the caller's claims; every change a binding matches and
//! RLS lets that caller see arrives from [`Subscription::recv`] as the payload
//! of one `postgres_changes` message (`{"ids": [...], "data": {...}}`).
//!
//! How the changes get here (docs/services/realtime.md):
//!
//! 1. [`reader`]: one gateway per database, elected through an advisory lock,
//!    decodes the `supabase_realtime` publication's changes from a logical
//!    replication slot (built-in `pgoutput`, read through SQL) and publishes
//!    them to `_gateway.realtime_changes`, then wakes every gateway with a
//!    `NOTIFY` (`sql/031_realtime_changes.sql`).
//! 2. [`tail`]: every gateway that has subscribers reads that table on by id,
//!    so each change reaches each gateway once, and
//! 3. matches each change against its subscriptions' bindings (event and
//!    table here; filters by PostgreSQL, as the columns' types, in one
//!    statement per batch: `sql/033_realtime_filters.sql`), asks
//!    PostgreSQL whether their callers may see the rows (one statement per
//!    table and distinct caller in a batch, a few at once, as that caller, through
//!    `gateway_core::db`'s session, the way Realtime's `realtime.apply_rls` checks
//!    a row by its primary key), and queues the payload to each.
//!
//! The feed starts with the first subscription of the gateway, so a gateway
//! whose apps never subscribe makes no slot and reads nothing.

mod filter;
mod pgoutput;
mod reader;
mod replication;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

use self::filter::{Matcher, inspect_list, inspect_string};
use crate::config::ChangeFeed;
use gateway_core::caller::Caller;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;
use gateway_core::jwt::Claims;
use gateway_core::sql::quote_ident;

/// Changes queued per subscription before it counts as too slow and is
/// dropped: a bound on memory per channel.
pub const QUEUE: usize = 1024;
/// Changes read from the feed's table at once.
const TAIL_BATCH: i64 = 1000;
/// RLS checks of distinct callers run at once by a gateway's feed: each
/// holds a pooled connection while it runs.
const CHECKS_AT_ONCE: usize = 4;
/// How long the tail waits for a notification before looking anyway.
const TAIL_IDLE: Duration = Duration::from_secs(1);

/// One `postgres_changes` binding of a join, as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The id the join reply gives it; change messages name it in `ids`.
    pub id: u32,
    /// `INSERT`, `UPDATE`, `DELETE` or `*`.
    pub event: String,
    pub schema: String,
    /// `None` (or `*`): every table of the schema in the publication.
    pub table: Option<String>,
    /// `column=[not.]op.value`, several joined by commas, e.g. `id=eq.3`.
    pub filter: Option<String>,
    /// `select`, as sent: a list of the columns to send (and the key).
    pub select: Option<Value>,
}

/// The change feed of this gateway.
#[derive(Default)]
pub struct Changes {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    db: OnceLock<Db>,
    feed: OnceLock<ChangeFeed>,
    /// Whether the database can feed changes, asked once.
    available: tokio::sync::OnceCell<Result<(), String>>,
    /// The replication slot exists.
    slot: tokio::sync::OnceCell<()>,
    subscribers: Mutex<HashMap<u64, Subscriber>>,
    next: AtomicU64,
    /// The lag of the last batch delivered, in seconds: none before the first.
    lag: Mutex<Option<f64>>,
    /// The reader and the tail, once started.
    tasks: Mutex<Option<Vec<tokio::task::JoinHandle<()>>>>,
    /// Realtime's `max_record_bytes`; none until configured.
    max_record: OnceLock<u64>,
}

/// A subscription as the tail sees it.
#[derive(Clone)]
struct Subscriber {
    matchers: Arc<Vec<Matcher>>,
    /// Changes up to this id were published before the subscription.
    after: i64,
    caller: Arc<Mutex<Judged>>,
    /// Each payload goes with the `set_claims` version it was checked as;
    /// written out once for every subscription it goes to.
    sender: mpsc::Sender<(u64, Arc<str>)>,
    dropped: Arc<AtomicBool>,
}

/// Who a subscription's changes are checked as; `version` counts
/// `set_claims` calls.
struct Judged {
    claims: Claims,
    version: u64,
}

impl Changes {
    /// Seconds between the last delivered change's commit and its delivery
    /// (`gateway_realtime_changes_lag_seconds`); none before the first.
    pub fn lag(&self) -> Option<f64> {
        *self.inner.lag.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A change larger than `bytes` (its `data` as JSON) is sent cut
    /// ([`cut_oversized`]).
    pub fn set_max_record_size(&self, bytes: u64) {
        let _ = self.inner.max_record.set(bytes);
    }

    /// Gives the feed its database and the way to read its slot;
    /// `crate::startup::state` calls it.
    pub fn attach(&self, db: Db, feed: ChangeFeed) {
        let _ = self.inner.db.set(db);
        let _ = self.inner.feed.set(feed);
    }

    /// Starts delivering the changes `bindings` match to a caller with
    /// `claims`; the error is the reason the client is told.
    pub async fn subscribe(&self, bindings: Vec<Binding>, claims: Claims) -> Result<Subscription, String> {
        let inner = &self.inner;
        let db = inner.db.get().ok_or("postgres_changes are not available: no database")?;
        self.ready().await?;
        let mut matchers = Vec::with_capacity(bindings.len());
        for binding in &bindings {
            let matcher = Matcher::parse(binding)?;
            check_binding(db, &matcher, &claims).await?;
            matchers.push(matcher);
        }
        let after = head(db).await?;
        self.start(db, after);
        let (sender, receiver) = mpsc::channel(QUEUE);
        let caller = Arc::new(Mutex::new(Judged { claims, version: 0 }));
        let dropped = Arc::new(AtomicBool::new(false));
        let key = inner.next.fetch_add(1, Ordering::Relaxed);
        let subscriber = Subscriber {
            matchers: Arc::new(matchers),
            after,
            caller: caller.clone(),
            sender,
            dropped: dropped.clone(),
        };
        lock(&inner.subscribers).insert(key, subscriber);
        Ok(Subscription { receiver, caller, dropped, key, inner: inner.clone() })
    }

    /// Whether changes can flow: the database feeds them and the replication
    /// slot exists. The slot must exist before a join is answered: what
    /// commits after that is then decoded, whenever a reader gets to it.
    pub async fn ready(&self) -> Result<(), String> {
        let inner = &self.inner;
        let db = inner.db.get().ok_or("postgres_changes are not available: no database")?;
        inner.available(db).await?;
        inner
            .slot
            .get_or_try_init(|| async {
                db.as_authenticator("select _gateway.realtime_ensure_slot()", &[])
                    .await
                    .map(drop)
                    .map_err(|e| format!("Realtime could not prepare the database's change feed: {e}"))
            })
            .await?;
        Ok(())
    }

    /// Logs once, at start, why the feed cannot work on this database, so
    /// that an operator need not wait for a client to be refused.
    pub fn check_at_start(&self) {
        let inner = self.inner.clone();
        tokio::spawn(async move {
            let Some(db) = inner.db.get() else { return };
            if let Err(reason) = inner.available(db).await {
                tracing::warn!(reason = %reason, "Realtime's postgres_changes are off on this database");
            }
        });
    }

    /// Stops the reader and the tail (the gateway is stopping); their
    /// connections close, so another gateway's reader takes over.
    pub fn stop(&self) {
        if let Some(tasks) = lock(&self.inner.tasks).take() {
            for task in tasks {
                task.abort();
            }
        }
        lock(&self.inner.subscribers).clear();
    }

    /// How many subscriptions the feed serves now, for tests and diagnostics.
    pub fn subscriptions(&self) -> usize {
        lock(&self.inner.subscribers).len()
    }

    fn start(&self, db: &Db, after: i64) {
        let mut tasks = lock(&self.inner.tasks);
        if tasks.is_some() {
            return;
        }
        *tasks = Some(vec![
            tokio::spawn(reader::run(
                db.clone(),
                self.inner.feed.get().copied().unwrap_or(ChangeFeed::Stream),
            )),
            tokio::spawn(tail(self.inner.clone(), db.clone(), after)),
        ]);
    }
}

impl Inner {
    async fn available(&self, db: &Db) -> Result<(), String> {
        self.available
            .get_or_init(|| async {
                let rows = db
                    .as_authenticator(
                        "select current_setting('wal_level'), \
                         pg_catalog.to_regclass('_gateway.realtime_changes') is not null",
                        &[],
                    )
                    .await
                    .map_err(|e| format!("Realtime could not reach the database: {e}"))?;
                let row = rows.first().ok_or("Realtime could not reach the database")?;
                let (level, migrated): (String, bool) = (row.get(0), row.get(1));
                if level != "logical" {
                    return Err(format!(
                        "Unable to subscribe to changes: the database runs with wal_level={level}, \
                         and postgres_changes need wal_level=logical"
                    ));
                }
                if !migrated {
                    return Err("Unable to subscribe to changes: the database lacks the gateway's \
                                realtime migration (sql/031_realtime_changes.sql)"
                        .to_owned());
                }
                Ok(())
            })
            .await
            .clone()
    }
}

/// The binding as Realtime's messages show it (`params_to_log`):
/// `event: *, schema: public, table: notes, filters: [{"id", "eq", "3", false}], select: nil`.
fn params_to_log(matcher: &Matcher) -> String {
    let filters: Vec<String> = matcher
        .filters
        .iter()
        .map(|f| {
            let (column, op, value) =
                (inspect_string(&f.column), inspect_string(&f.op), inspect_string(&f.value));
            format!("{{{column}, {op}, {value}, {}}}", f.negate)
        })
        .collect();
    let select = match &matcher.select {
        Some(columns) => inspect_list(&columns.iter().map(String::as_str).collect::<Vec<_>>()),
        None => "nil".to_owned(),
    };
    format!(
        "event: {}, schema: {}, table: {}, filters: [{}], select: {select}",
        matcher.event.as_deref().unwrap_or("*"),
        matcher.schema,
        matcher.table.as_deref().unwrap_or("*"),
        filters.join(", "),
    )
}

/// Realtime's words for a binding no published table answers, as
/// supabase-js users know them (supabase/realtime `postgres_cdc_rls`,
/// `Subscriptions.create`).
fn unable(matcher: &Matcher) -> String {
    format!(
        "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the \
         given connect parameters: [{}]",
        params_to_log(matcher)
    )
}

/// A named table must be in the publication, and PostgreSQL must accept
/// the binding's filters and `select` for the caller's role
/// (`_gateway.realtime_check_binding`, Realtime's
/// `subscription_check_filters`); the error is Realtime's message.
async fn check_binding(db: &Db, matcher: &Matcher, claims: &Claims) -> Result<(), String> {
    let Some(table) = &matcher.table else {
        // Filters need a table's columns: Realtime would check them on every
        // table of the schema; refused here.
        return if matcher.filters.is_empty() { Ok(()) } else { Err(unable(matcher)) };
    };
    let columns: Vec<&str> = matcher.filters.iter().map(|f| f.column.as_str()).collect();
    let ops: Vec<&str> = matcher.filters.iter().map(|f| f.op.as_str()).collect();
    let values: Vec<&str> = matcher.filters.iter().map(|f| f.value.as_str()).collect();
    let negates: Vec<bool> = matcher.filters.iter().map(|f| f.negate).collect();
    let selected: Vec<&str> = matcher.select.iter().flatten().map(String::as_str).collect();
    let result = db
        .as_authenticator(
            "select _gateway.realtime_check_binding(format('%I.%I', p.schemaname, p.tablename)::regclass, \
               $3, $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[]) \
             from pg_catalog.pg_publication_tables p \
             where p.pubname = 'supabase_realtime' and p.schemaname = $1 and p.tablename = $2",
            &[&matcher.schema, table, &claims.role.as_str(), &columns, &ops, &values, &negates, &selected],
        )
        .await;
    match result {
        Ok(rows) if rows.is_empty() => Err(unable(matcher)),
        Ok(_) => Ok(()),
        Err(ApiError::Database(e)) => Err(format!(
            "Unable to subscribe to changes with given parameters. An exception happened so please check your \
             connect parameters: [{}]. Exception: ERROR {} ({}) {}",
            params_to_log(matcher),
            e.code,
            condition(&e.code),
            e.message
        )),
        Err(e) => Err(format!("Realtime was unable to connect to the project database: {e}")),
    }
}

/// PostgreSQL's condition name of the errors a binding check raises, as
/// Postgrex prints them.
fn condition(code: &str) -> &'static str {
    match code {
        "P0001" => "raise_exception",
        "22P02" => "invalid_text_representation",
        "22007" => "invalid_datetime_format",
        "22008" => "datetime_field_overflow",
        "22003" => "numeric_value_out_of_range",
        "2201B" => "invalid_regular_expression",
        "42883" => "undefined_function",
        "42704" => "undefined_object",
        "22023" => "invalid_parameter_value",
        _ => "error",
    }
}

/// The last change published so far: a subscription gets what comes after.
async fn head(db: &Db) -> Result<i64, String> {
    let rows = db
        .as_authenticator("select coalesce(max(id), 0) from _gateway.realtime_changes", &[])
        .await
        .map_err(|e| format!("Realtime could not reach the database: {e}"))?;
    Ok(rows.first().map_or(0, |row| row.get(0)))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Follows `_gateway.realtime_changes` from `after` for as long as the
/// gateway serves, reconnecting after losing the database.
async fn tail(inner: Arc<Inner>, db: Db, mut after: i64) {
    loop {
        if let Err(e) = tail_once(&inner, &db, &mut after).await {
            tracing::warn!(error = %e, "realtime change tail lost the database; retrying");
        }
        tokio::time::sleep(reader::ELECTION_RETRY).await;
    }
}

async fn tail_once(inner: &Inner, db: &Db, after: &mut i64) -> Result<(), String> {
    let (client, mut connection) = db.pg_config().connect(NoTls).await.map_err(|e| e.to_string())?;
    let wake = Arc::new(Notify::new());
    let driver = {
        let wake = wake.clone();
        tokio::spawn(async move {
            let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = messages.next().await {
                match message {
                    Ok(AsyncMessage::Notification(_)) => wake.notify_one(),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
            // The connection is gone: the loop below finds out on its next read.
            wake.notify_one();
        })
    };
    let result = async {
        client.batch_execute("listen gateway_realtime_changes").await.map_err(|e| e.to_string())?;
        let read = client
            .prepare("select id, change from _gateway.realtime_changes where id > $1 order by id limit $2")
            .await
            .map_err(|e| e.to_string())?;
        loop {
            let rows = client.query(&read, &[&*after, &TAIL_BATCH]).await.map_err(|e| e.to_string())?;
            let Some(last) = rows.last().map(|row| row.get::<_, i64>(0)) else {
                let _ = tokio::time::timeout(TAIL_IDLE, wake.notified()).await;
                continue;
            };
            let changes: Vec<(i64, Value)> = rows.iter().map(|row| (row.get(0), row.get(1))).collect();
            deliver(inner, db, &changes).await;
            if let Some(committed) = changes.last().and_then(|(_, change)| committed_at(change)) {
                let lag = (chrono::Utc::now() - committed).num_milliseconds().max(0) as f64 / 1000.0;
                metrics::gauge!("gateway_realtime_changes_lag_seconds").set(lag);
                *inner.lag.lock().unwrap_or_else(|e| e.into_inner()) = Some(lag);
            }
            *after = last;
        }
    }
    .await;
    driver.abort();
    result
}

/// When a change's transaction committed (`commit_timestamp`), for the
/// feed's lag.
fn committed_at(change: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    let text = change["data"]["commit_timestamp"].as_str()?;
    chrono::DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&chrono::Utc))
}

/// What makes two subscriptions' payloads for one change the same: the
/// change, the binding's `select` and the ids of the bindings it matched.
type Written = (usize, Option<Vec<String>>, Vec<u32>);

/// One subscription's interest in one change: the ids of the bindings it
/// matched, grouped by their `select` lists (one message each).
struct Candidate {
    change: usize,
    subscriber: Subscriber,
    groups: Vec<(Option<Vec<String>>, Vec<u32>)>,
    version: u64,
    visible: bool,
}

/// Whether a change is Realtime's "no primary key" error: an insert or an
/// update of a table without one, which every binding of the table gets,
/// whatever its filters, with nothing of the row.
fn keyless(change: &Value) -> bool {
    change["pk"].as_array().is_some_and(Vec::is_empty) && change["data"]["type"] != "DELETE"
}

/// The rows of one batch's filter checks, each (change, filter) once,
/// for `_gateway.realtime_filters_hold`.
#[derive(Default)]
struct FilterRows<'a> {
    index: HashMap<(usize, &'a filter::Filter), Option<usize>>,
    ops: Vec<&'a str>,
    negates: Vec<bool>,
    types: Vec<u32>,
    values: Vec<Option<String>>,
    filters: Vec<&'a str>,
}

impl<'a> FilterRows<'a> {
    /// The rows a binding's filters need on a change; `None` when a filter
    /// names a column the row does not carry, which fails it (Realtime's
    /// `is_visible_through_filters`). A deleted row is judged by its old
    /// record, any other by its new one.
    fn rows(&mut self, index: usize, change: &Value, filters: &'a [filter::Filter]) -> Option<Vec<usize>> {
        let data = &change["data"];
        let record = if data["type"] == "DELETE" { &data["old_record"] } else { &data["record"] };
        let mut rows = Vec::with_capacity(filters.len());
        for filter in filters {
            let key = (index, filter);
            let row = match self.index.get(&key) {
                Some(row) => *row,
                None => {
                    let row = self.push(change, record, filter);
                    self.index.insert(key, row);
                    row
                }
            };
            rows.push(row?);
        }
        Some(rows)
    }

    /// A new row for `filter` on the `row` of `change`: its number, from 1.
    fn push(&mut self, change: &Value, row: &Value, filter: &'a filter::Filter) -> Option<usize> {
        let value = row.get(&filter.column)?;
        let text = match value {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        let type_oid = change["types"][&filter.column].as_u64().and_then(|t| u32::try_from(t).ok());
        self.ops.push(&filter.op);
        self.negates.push(filter.negate);
        // `text` when the reader did not say (a change it stored before it
        // noted types).
        self.types.push(type_oid.unwrap_or(25));
        self.values.push(text);
        self.filters.push(&filter.value);
        Some(self.ops.len())
    }

    /// The rows that hold, asked in one statement; none if it fails.
    async fn held(&self, db: &Db) -> HashSet<usize> {
        if self.ops.is_empty() {
            return HashSet::new();
        }
        let result = db
            .as_authenticator(
                "select n from _gateway.realtime_filters_hold($1::text[], $2::boolean[], $3::oid[], $4::text[], \
                 $5::text[]) as n",
                &[&self.ops, &self.negates, &self.types, &self.values, &self.filters],
            )
            .await;
        match result {
            Ok(rows) => rows.iter().filter_map(|row| usize::try_from(row.get::<_, i32>(0)).ok()).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "realtime could not check changes against filters");
                HashSet::new()
            }
        }
    }
}

/// Matches a batch of changes against every subscription (filters checked
/// by PostgreSQL in one statement for the batch), checks them against RLS
/// and queues them, in order.
async fn deliver(inner: &Inner, db: &Db, changes: &[(i64, Value)]) {
    let subscribers: Vec<Subscriber> = lock(&inner.subscribers).values().cloned().collect();
    if subscribers.is_empty() {
        return;
    }
    // (change, subscriber, matcher, filter rows): bindings whose event and
    // table match; `None` rows: a filter already failed.
    let mut matched: Vec<(usize, usize, usize, Option<Vec<usize>>)> = Vec::new();
    let mut rows = FilterRows::default();
    for (index, (id, change)) in changes.iter().enumerate() {
        let data = &change["data"];
        for (s, subscriber) in subscribers.iter().enumerate() {
            if *id <= subscriber.after {
                continue;
            }
            for (m, matcher) in subscriber.matchers.iter().enumerate() {
                if !matcher.matches(data) {
                    continue;
                }
                let needs = if matcher.filters.is_empty() || keyless(change) {
                    Some(Vec::new())
                } else {
                    rows.rows(index, change, &matcher.filters)
                };
                matched.push((index, s, m, needs));
            }
        }
    }
    let held = rows.held(db).await;
    let mut candidates: Vec<Candidate> = Vec::new();
    // (change, subscriber) -> its candidate.
    let mut by_pair: HashMap<(usize, usize), usize> = HashMap::new();
    // (table, row check?, caller) -> the caller's claims and its candidates.
    let mut groups: BTreeMap<(String, bool, String), (Claims, Vec<usize>)> = BTreeMap::new();
    for (index, s, m, needs) in matched {
        if !needs.is_some_and(|rows| rows.iter().all(|row| held.contains(row))) {
            continue;
        }
        let subscriber = &subscribers[s];
        let matcher = &subscriber.matchers[m];
        let candidate = match by_pair.get(&(index, s)) {
            Some(&candidate) => candidate,
            None => {
                let change = &changes[index].1;
                let data = &change["data"];
                let (claims, version) = {
                    let judged = lock(&subscriber.caller);
                    (judged.claims.clone(), judged.version)
                };
                // A deleted row cannot be checked: the caller's right to the
                // table is (Supabase, "Postgres Changes", Delete events). A
                // keyless change carries nothing of its row.
                let row_check = change["rls"] == json!(true) && data["type"] != "DELETE" && !keyless(change);
                let table = format!(
                    "{}.{}",
                    quote_ident(data["schema"].as_str().unwrap_or_default()),
                    quote_ident(data["table"].as_str().unwrap_or_default())
                );
                let who = format!("{}:{}", claims.role.as_str(), Value::Object(claims.claims.clone()));
                groups
                    .entry((table, row_check, who))
                    .or_insert_with(|| (claims, Vec::new()))
                    .1
                    .push(candidates.len());
                candidates.push(Candidate {
                    change: index,
                    subscriber: subscriber.clone(),
                    groups: Vec::new(),
                    version,
                    visible: false,
                });
                by_pair.insert((index, s), candidates.len() - 1);
                candidates.len() - 1
            }
        };
        let groups = &mut candidates[candidate].groups;
        match groups.iter_mut().find(|(select, _)| *select == matcher.select) {
            Some((_, ids)) => ids.push(matcher.id),
            None => groups.push((matcher.select.clone(), vec![matcher.id])),
        }
    }
    // Each caller's check is a statement of its own; a few at once, so that
    // many distinct callers do not wait for each other's round trips.
    let checked: Vec<(Vec<usize>, HashSet<usize>)> = {
        let candidates = &candidates;
        futures::stream::iter(groups.into_iter().map(
            |((table, row_check, _), (claims, members))| async move {
                let visible = if keyless(&changes[candidates[members[0]].change].1) {
                    members.iter().map(|&m| candidates[m].change).collect()
                } else {
                    check(db, &table, row_check, claims, changes, candidates, &members).await
                };
                (members, visible)
            },
        ))
        .buffer_unordered(CHECKS_AT_ONCE)
        .collect()
        .await
    };
    for (members, visible) in checked {
        for member in members {
            candidates[member].visible = visible.contains(&candidates[member].change);
        }
    }
    let max_record = inner.max_record.get().copied().unwrap_or(u64::MAX);
    // By change: its data cut to size, for the changes over it.
    let mut cut: HashMap<usize, Option<Value>> = HashMap::new();
    // By change, `select` and binding ids: the payload as JSON text, written
    // once for every subscription that gets the same.
    let mut written: HashMap<Written, Arc<str>> = HashMap::new();
    for candidate in candidates {
        let subscriber = &candidate.subscriber;
        if !candidate.visible || subscriber.dropped.load(Ordering::Relaxed) {
            continue;
        }
        // Checked as a caller the subscription no longer has: dropped, so
        // nothing judged by the old claims arrives after `set_claims`.
        if lock(&subscriber.caller).version != candidate.version {
            continue;
        }
        let change = &changes[candidate.change].1;
        let whole = &change["data"];
        let sized = cut.entry(candidate.change).or_insert_with(|| cut_oversized(whole, max_record));
        let sized = sized.as_ref().unwrap_or(whole);
        for (select, ids) in &candidate.groups {
            let payload = written
                .entry((candidate.change, select.clone(), ids.clone()))
                .or_insert_with(|| {
                    let data = match select {
                        Some(columns) => only(sized, columns, &change["pk"]),
                        None => sized.clone(),
                    };
                    json!({"ids": ids, "data": data}).to_string().into()
                })
                .clone();
            match subscriber.sender.try_send((candidate.version, payload)) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::info!("dropping a realtime subscription that fell {QUEUE} changes behind");
                    subscriber.dropped.store(true, Ordering::Relaxed);
                    lock(&inner.subscribers).retain(|_, s| !Arc::ptr_eq(&s.dropped, &subscriber.dropped));
                    break;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    lock(&inner.subscribers).retain(|_, s| !Arc::ptr_eq(&s.dropped, &subscriber.dropped));
                    break;
                }
            }
        }
    }
}

/// Realtime's `apply_rls` for a change larger than `max_record_bytes` (its
/// `data` as JSON here, the WAL record's JSON there): the record and old
/// record keep only the values whose JSON is 64 bytes or less (none left is
/// `null`), and `errors` says `Error 413: Payload Too Large`. `None` for a
/// change within the limit.
fn cut_oversized(data: &Value, max: u64) -> Option<Value> {
    if max == u64::MAX || (data.to_string().len() as u64) <= max {
        return None;
    }
    let mut data = data.clone();
    for key in ["record", "old_record"] {
        if let Some(record) = data.get_mut(key) {
            let kept: serde_json::Map<String, Value> = record
                .as_object()
                .map(|values| {
                    values
                        .iter()
                        .filter(|(_, v)| v.to_string().len() <= 64)
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            *record = if kept.is_empty() { Value::Null } else { Value::Object(kept) };
        }
    }
    data["errors"] = json!(["Error 413: Payload Too Large"]);
    Some(data)
}

/// A change's `data` cut to a binding's `select` list and the primary key:
/// its `columns`, `record` and `old_record`, as Realtime's `apply_rls`
/// sends them for `selected_columns`.
fn only(data: &Value, columns: &[String], pk: &Value) -> Value {
    let keep = |name: &str| {
        columns.iter().any(|c| c == name) || pk.as_array().is_some_and(|pk| pk.iter().any(|k| k == name))
    };
    let mut data = data.clone();
    for key in ["record", "old_record"] {
        if let Some(record) = data.get_mut(key).and_then(Value::as_object_mut) {
            record.retain(|name, _| keep(name));
        }
    }
    if let Some(list) = data.get_mut("columns").and_then(Value::as_array_mut) {
        list.retain(|column| column["name"].as_str().is_some_and(keep));
    }
    data
}

/// Which of the group's changes the caller may see: one statement as that
/// caller. A row check asks whether the caller can select each row by its
/// primary key now, as Realtime's `realtime.apply_rls` does; otherwise the
/// caller needs SELECT on the table. An error (no privilege on the schema)
/// means nothing is visible.
async fn check(
    db: &Db,
    table: &str,
    row_check: bool,
    claims: Claims,
    changes: &[(i64, Value)],
    candidates: &[Candidate],
    members: &[usize],
) -> HashSet<usize> {
    let indices: Vec<usize> = {
        let mut seen: Vec<usize> = members.iter().map(|&m| candidates[m].change).collect();
        seen.sort_unstable();
        seen.dedup();
        seen
    };
    let caller = Caller {
        claims: Arc::new(claims),
        method: "GET".to_owned(),
        path: "/realtime/v1".to_owned(),
        headers: "{}".to_owned(),
    };
    let session = match db.session(&caller, Access::ReadOnly).await {
        Ok(session) => session,
        Err(e) => {
            tracing::warn!(error = %e, "realtime could not check changes against RLS");
            return HashSet::new();
        }
    };
    if !row_check {
        let sql = "select pg_catalog.has_table_privilege($1, 'SELECT')";
        return match session.query_and_end(sql, &[&table], true).await {
            Ok(rows) if rows.first().is_some_and(|row| row.get::<_, bool>(0)) => {
                indices.into_iter().collect()
            }
            Ok(_) => HashSet::new(),
            Err(e) => {
                tracing::debug!(error = %e, "a realtime caller may not read {table}");
                HashSet::new()
            }
        };
    }
    // The keys, as the record carries them: `jsonb_populate_record` gives
    // them the table's column types.
    let pk: Vec<String> = changes[indices[0]].1["pk"]
        .as_array()
        .map(|pk| pk.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if pk.is_empty() {
        return HashSet::new();
    }
    let keys: Vec<Value> = indices
        .iter()
        .map(|&i| {
            let record = &changes[i].1["data"]["record"];
            Value::Object(pk.iter().map(|c| (c.clone(), record[c].clone())).collect())
        })
        .collect();
    let condition: Vec<String> = pk
        .iter()
        .map(|c| {
            let c = quote_ident(c);
            format!("t.{c} = r.{c}")
        })
        .collect();
    let sql = format!(
        "select (k.n - 1)::int from jsonb_array_elements($1::jsonb) with ordinality as k(v, n) \
         where exists (select 1 from {table} t, jsonb_populate_record(null::{table}, k.v) r where {})",
        condition.join(" and ")
    );
    let keys = Value::Array(keys);
    match session.query_and_end(&sql, &[&keys], true).await {
        Ok(rows) => rows
            .iter()
            .filter_map(|row| usize::try_from(row.get::<_, i32>(0)).ok())
            .filter_map(|position| indices.get(position).copied())
            .collect(),
        Err(e) => {
            tracing::debug!(error = %e, "a realtime caller may not read {table}");
            HashSet::new()
        }
    }
}

/// One channel's share of the feed; dropping it unsubscribes.
pub struct Subscription {
    receiver: mpsc::Receiver<(u64, Arc<str>)>,
    caller: Arc<Mutex<Judged>>,
    dropped: Arc<AtomicBool>,
    key: u64,
    inner: Arc<Inner>,
}

impl Subscription {
    /// The next change's payload, as JSON text; `None` once the feed dropped
    /// this subscription (gateway stopping, or the channel fell too far
    /// behind).
    pub async fn recv(&mut self) -> Option<Arc<str>> {
        loop {
            if self.dropped.load(Ordering::Relaxed) {
                return None;
            }
            let (version, payload) = self.receiver.recv().await?;
            // Queued before a `set_claims`: checked as the previous caller.
            if version == lock(&self.caller).version {
                return Some(payload);
            }
        }
    }

    /// From now on, changes are checked as a caller with `claims` (a new
    /// `access_token` on the channel).
    pub fn set_claims(&self, claims: Claims) {
        let mut judged = lock(&self.caller);
        judged.claims = claims;
        judged.version += 1;
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        lock(&self.inner.subscribers).remove(&self.key);
    }
}
