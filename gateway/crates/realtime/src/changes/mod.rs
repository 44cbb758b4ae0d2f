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
//! 3. matches each change against its subscriptions' bindings, asks
//!    PostgreSQL whether their callers may see the rows (one statement per
//!    table and distinct caller in a batch, as that caller, through
//!    `gateway_core::db`'s session, the way Realtime's `realtime.apply_rls` checks
//!    a row by its primary key), and queues the payload to each.
//!
//! The feed starts with the first subscription of the gateway, so a gateway
//! whose apps never subscribe makes no slot and reads nothing.

mod filter;
mod pgoutput;
mod reader;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

use self::filter::Matcher;
use gateway_core::caller::Caller;
use gateway_core::db::{Access, Db};
use gateway_core::jwt::Claims;
use gateway_core::sql::quote_ident;

/// Changes queued per subscription before it counts as too slow and is
/// dropped: a bound on memory per channel.
pub const QUEUE: usize = 1024;
/// Changes read from the feed's table at once.
const TAIL_BATCH: i64 = 1000;
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
    /// `column=op.value`, e.g. `id=eq.3`.
    pub filter: Option<String>,
}

/// The change feed of this gateway.
#[derive(Default)]
pub struct Changes {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    db: OnceLock<Db>,
    /// Whether the database can feed changes, asked once.
    available: tokio::sync::OnceCell<Result<(), String>>,
    /// The replication slot exists.
    slot: tokio::sync::OnceCell<()>,
    subscribers: Mutex<HashMap<u64, Subscriber>>,
    next: AtomicU64,
    /// The reader and the tail, once started.
    tasks: Mutex<Option<Vec<tokio::task::JoinHandle<()>>>>,
}

/// A subscription as the tail sees it.
#[derive(Clone)]
struct Subscriber {
    matchers: Arc<Vec<Matcher>>,
    /// Changes up to this id were published before the subscription.
    after: i64,
    caller: Arc<Mutex<Judged>>,
    /// Each payload goes with the `set_claims` version it was checked as.
    sender: mpsc::Sender<(u64, Value)>,
    dropped: Arc<AtomicBool>,
}

/// Who a subscription's changes are checked as; `version` counts
/// `set_claims` calls.
struct Judged {
    claims: Claims,
    version: u64,
}

impl Changes {
    /// Gives the feed its database; `crate::startup::state` calls it.
    pub fn attach(&self, db: Db) {
        let _ = self.inner.db.set(db);
    }

    /// Starts delivering the changes `bindings` match to a caller with
    /// `claims`; the error is the reason the client is told.
    pub async fn subscribe(&self, bindings: Vec<Binding>, claims: Claims) -> Result<Subscription, String> {
        let inner = &self.inner;
        let db = inner.db.get().ok_or("postgres_changes are not available: no database")?;
        inner.available(db).await?;
        let mut matchers = Vec::with_capacity(bindings.len());
        for binding in &bindings {
            let matcher = Matcher::parse(binding).map_err(|()| unable(binding))?;
            check_table(db, &matcher).await.map_err(|()| unable(binding))?;
            matchers.push(matcher);
        }
        // The slot must exist before the join is answered: what commits
        // after that is then decoded, whenever a reader gets to it.
        inner
            .slot
            .get_or_try_init(|| async {
                db.as_authenticator("select _gateway.realtime_ensure_slot()", &[])
                    .await
                    .map(drop)
                    .map_err(|e| format!("Realtime could not prepare the database's change feed: {e}"))
            })
            .await?;
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
            tokio::spawn(reader::run(db.clone())),
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

/// Realtime's words for a binding it cannot serve (a table that is not in
/// the publication or does not exist, a malformed filter), as supabase-js
/// users know them (supabase/realtime `postgres_cdc_rls`).
fn unable(binding: &Binding) -> String {
    let filters = match binding.filter.as_deref().and_then(|f| f.split_once('=')) {
        Some((column, rest)) => {
            let (op, value) = rest.split_once('.').unwrap_or((rest, ""));
            format!("{{\"{column}\", \"{op}\", \"{value}\"}}")
        }
        None => String::new(),
    };
    format!(
        "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the \
         given connect parameters: [event: {}, schema: {}, table: {}, filters: [{filters}]]",
        binding.event,
        binding.schema,
        binding.table.as_deref().unwrap_or("*"),
    )
}

/// A named table must be in the publication, and a filter's column in what
/// the publication carries of it.
async fn check_table(db: &Db, matcher: &Matcher) -> Result<(), ()> {
    let Some(table) = &matcher.table else { return Ok(()) };
    let rows = db
        .as_authenticator(
            "select attnames::text[] from pg_catalog.pg_publication_tables \
             where pubname = 'supabase_realtime' and schemaname = $1 and tablename = $2",
            &[&matcher.schema, table],
        )
        .await
        .map_err(|_| ())?;
    let columns: Vec<String> = rows.first().ok_or(())?.get(0);
    match &matcher.filter {
        Some(filter) if !columns.contains(&filter.column) => Err(()),
        _ => Ok(()),
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

/// One subscription's interest in one change.
struct Candidate {
    change: usize,
    subscriber: Subscriber,
    ids: Vec<u32>,
    version: u64,
    visible: bool,
}

/// Matches a batch of changes against every subscription, checks them
/// against RLS and queues them, in order.
async fn deliver(inner: &Inner, db: &Db, changes: &[(i64, Value)]) {
    let subscribers: Vec<Subscriber> = lock(&inner.subscribers).values().cloned().collect();
    if subscribers.is_empty() {
        return;
    }
    let mut candidates = Vec::new();
    // (table, row check?, caller) -> the caller's claims and its candidates.
    let mut groups: BTreeMap<(String, bool, String), (Claims, Vec<usize>)> = BTreeMap::new();
    for (index, (id, change)) in changes.iter().enumerate() {
        let data = &change["data"];
        for subscriber in &subscribers {
            if *id <= subscriber.after {
                continue;
            }
            let ids: Vec<u32> =
                subscriber.matchers.iter().filter(|m| m.matches(data)).map(|m| m.id).collect();
            if ids.is_empty() {
                continue;
            }
            let (claims, version) = {
                let judged = lock(&subscriber.caller);
                (judged.claims.clone(), judged.version)
            };
            // A deleted row cannot be checked: the caller's right to the
            // table is (Supabase, "Postgres Changes", Delete events).
            let row_check = change["rls"] == json!(true) && data["type"] != "DELETE";
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
                ids,
                version,
                visible: false,
            });
        }
    }
    for ((table, row_check, _), (claims, members)) in groups {
        let visible = check(db, &table, row_check, claims, changes, &candidates, &members).await;
        for member in members {
            candidates[member].visible = visible.contains(&candidates[member].change);
        }
    }
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
        let payload = json!({"ids": candidate.ids, "data": changes[candidate.change].1["data"]});
        match subscriber.sender.try_send((candidate.version, payload)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::info!("dropping a realtime subscription that fell {QUEUE} changes behind");
                subscriber.dropped.store(true, Ordering::Relaxed);
                lock(&inner.subscribers).retain(|_, s| !Arc::ptr_eq(&s.dropped, &subscriber.dropped));
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                lock(&inner.subscribers).retain(|_, s| !Arc::ptr_eq(&s.dropped, &subscriber.dropped));
            }
        }
    }
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
        claims,
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
    receiver: mpsc::Receiver<(u64, Value)>,
    caller: Arc<Mutex<Judged>>,
    dropped: Arc<AtomicBool>,
    key: u64,
    inner: Arc<Inner>,
}

impl Subscription {
    /// The next change's payload; `None` once the feed dropped this
    /// subscription (gateway stopping, or the channel fell too far behind).
    pub async fn recv(&mut self) -> Option<Value> {
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
