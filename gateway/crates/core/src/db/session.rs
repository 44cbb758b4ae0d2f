//! The one place where API requests get a database connection.
//!
//! A [`Session`] is one transaction run as the caller: PostgREST's recipe
//! (`docs/references/transactions.rst`, `Query/PreQuery.hs`) of
//!
//! 1. `BEGIN` (read only for GET/HEAD),
//! 2. one statement of transaction-local `set_config(name, value, true)` calls
//!    whose names and values are bound parameters: `search_path`, the role's own
//!    `ALTER ROLE ... SET` settings (which `SET ROLE` does not apply), `role`,
//!    `request.jwt.claims`, `request.method`, `request.path`, `request.headers`,
//!    and `timezone` when the request asks for one,
//! 3. the request's own statements (a write with bounds on the rows it touches
//!    is followed by the statement that checks them, see [`Check`]),
//! 4. `COMMIT` or `ROLLBACK`.
//!
//! Steps 1-3 are pipelined: tokio-postgres sends the messages of futures polled
//! together back to back, so they cost one round trip (performance.md §4.6).
//!
//! A session of one statement that commits ([`Session::query_and_end`], every
//! REST request) goes further once its connection has prepared the statement:
//! the settings, the statement and its check go out as one pipeline with a
//! single `Sync` (`Client::query_pipeline`, patched into tokio-postgres, see
//! `vendor/README.md`), which PostgreSQL runs as one implicit transaction,
//! committed at the `Sync` or rolled back after an error
//! (<https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-PIPELINING>).
//! There is no `BEGIN` or `COMMIT` to run, and the server answers and flushes
//! once instead of once per statement. GET and HEAD get read only through the
//! setting `transaction_read_only`, and the isolation level is read committed
//! because every pooled connection logs in with
//! `default_transaction_isolation` set so ([`super::Db::new`]). A statement
//! the connection has not prepared yet takes steps 1-4 instead, so that it is
//! parsed inside the transaction, as the caller's role (name lookups check
//! schema privileges, and `search_path` is set by then).
//!
//! Everything is transaction-local, so nothing outlives the request on a pooled
//! connection; a session dropped mid-transaction (a client that went away)
//! discards its connection rather than return it to the pool dirty.
//!
//! Bypassing row-level security takes the named call [`Db::as_service_role`].
//! The operator console alone works as the role that owns the schemas, on a
//! connection of its own, through the named call [`Db::as_schema_owner`].

use std::borrow::Cow;
use std::sync::OnceLock;

use deadpool_postgres::Object;
use tokio_postgres::{Row, Statement, types::ToSql};

use super::Db;
use crate::caller::Caller;
use crate::error::ApiError;
use crate::role::Role;

/// Whether the transaction may write. PostgREST runs GET and HEAD read only, so a
/// write hidden in them fails with 25006 (405).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

impl Access {
    fn begin(self) -> &'static str {
        match self {
            Access::ReadOnly => "begin isolation level read committed read only",
            Access::ReadWrite => "begin isolation level read committed read write",
        }
    }
}

/// PostgREST's `db-extra-search-path` as Supabase sets it. A request's
/// `search_path` is its schema followed by these, duplicates kept, as
/// PostgREST 12-14 write it (`txVarQuery`, `iSchema : configDbExtraSearchPath`):
/// `"public", "public", "extensions"` for the default schema, which shows in
/// `explain({ settings: true })`.
const EXTRA_SEARCH_PATH: [&str; 2] = ["public", "extensions"];

/// The `search_path` of a REST transaction in `schema` ([`Session::in_schema`]),
/// or, for the other services, of the extra schemas alone. The usual two
/// are written once: a transaction's settings are sent with every request.
fn search_path(schema: Option<&str>) -> Cow<'static, str> {
    static EXTRA: OnceLock<String> = OnceLock::new();
    static PUBLIC: OnceLock<String> = OnceLock::new();
    match schema {
        None => Cow::Borrowed(EXTRA.get_or_init(|| write_search_path(None))),
        Some("public") => Cow::Borrowed(PUBLIC.get_or_init(|| write_search_path(Some("public")))),
        Some(schema) => Cow::Owned(write_search_path(Some(schema))),
    }
}

fn write_search_path(schema: Option<&str>) -> String {
    let mut path = String::new();
    for name in schema.into_iter().chain(EXTRA_SEARCH_PATH) {
        if !path.is_empty() {
            path.push_str(", ");
        }
        crate::sql::push_ident(&mut path, name);
    }
    path
}

/// The names and values given to `set_config`.
type Settings = (Vec<Cow<'static, str>>, Vec<Cow<'static, str>>);

/// Prepared statements kept per connection. Statements are cached by their
/// text (their plans are what make repeated shapes fast), and the REST API
/// writes limits and offsets as literals, so the set of texts is open-ended:
/// past this many the cache starts over rather than grow without bound.
const MAX_PREPARED: usize = 256;

/// Answers one row, not every value echoed back (the claims and headers are
/// the longest).
const SET_CONFIG: &str = "select pg_catalog.count(pg_catalog.set_config(k, v, true)) from unnest($1::text[], $2::text[]) as s(k, v)";

/// A statement, with its parameters, that checks what the statement before it
/// did and fails the transaction if it disagrees. It runs after that
/// statement has completed, end-of-statement checks (foreign keys, AFTER
/// triggers) included, so their errors come first.
pub type Check<'a> = (&'a str, &'a [&'a (dyn ToSql + Sync)]);

/// What a request's transaction is run as; the texts are the settings' values.
struct Context {
    role: Role,
    /// `request.jwt.claims`, JSON.
    claims: String,
    method: String,
    path: String,
    /// `request.headers`, JSON.
    headers: String,
    /// `timezone`, from `Prefer: timezone=`.
    timezone: Option<String>,
    /// The schema put first in `search_path`: a REST request's.
    schema: Option<String>,
    /// `realtime.topic`, the channel a Realtime authorization check is for.
    realtime_topic: Option<String>,
}

pub struct Session {
    db: Db,
    conn: Option<Object>,
    /// Set until the first statement, which carries `BEGIN` and the settings.
    pending: Option<(Access, Context)>,
    role: Role,
    /// A transaction is open on `conn`.
    open: bool,
}

impl Db {
    /// A transaction run as the caller, under row-level security.
    pub async fn session(&self, caller: &Caller, access: Access) -> Result<Session, ApiError> {
        let context = Context {
            role: caller.role(),
            claims: caller.claims.setting().to_owned(),
            method: caller.method.clone(),
            path: caller.path.clone(),
            headers: caller.headers.clone(),
            timezone: None,
            schema: None,
            realtime_topic: None,
        };
        self.open_session(access, context).await
    }

    /// A transaction as `service_role`, which bypasses row-level security. For the
    /// gateway's own bookkeeping (auth tables, storage metadata), never for work
    /// done on a caller's behalf that RLS should judge.
    pub async fn as_service_role(&self, access: Access) -> Result<Session, ApiError> {
        let context = Context {
            role: Role::ServiceRole,
            claims: r#"{"role":"service_role"}"#.to_owned(),
            method: String::new(),
            path: String::new(),
            headers: "{}".to_owned(),
            timezone: None,
            schema: None,
            realtime_topic: None,
        };
        self.open_session(access, context).await
    }

    /// One statement as the pool's login role (`authenticator`) itself, outside
    /// any request transaction: one round trip with no `BEGIN`, settings or
    /// `COMMIT`. The authenticator can read no table of its own, so this is for
    /// the gateway's views in `_gateway` granted to it alone, which answer
    /// reads that have no caller to judge (a public object's row,
    /// `sql/021_storage_public_reads.sql`). Reads only: the statement runs
    /// in an implicit transaction of its own, and a connection found closed is
    /// retried once on a new one.
    pub async fn as_authenticator(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, ApiError> {
        let pg = |e| ApiError::from_pg(e, Role::ServiceRole);
        for attempt in 0..2 {
            let conn = self.checkout().await?;
            self.count_round_trip();
            let result = match conn.prepare_cached(sql).await {
                Ok(statement) => conn.query(&statement, params).await,
                Err(e) => Err(e),
            };
            match result {
                Err(e) if attempt == 0 && e.is_closed() => {
                    closed_connection_retried();
                    drop(Object::take(conn));
                }
                other => return other.map_err(pg),
            }
        }
        Err(ApiError::Unavailable("connection closed".to_owned()))
    }

    /// A connection of its own, outside the pool, logged in as the role that
    /// owns the schemas (`--database-admin-url`, else `--database-url`), with
    /// `statement_timeout` set at login. For the operator console alone, whose
    /// operator may do what the owner may (Supabase Studio works through
    /// postgres-meta as `supabase_admin` the same way); never for API callers.
    pub async fn as_schema_owner(
        &self,
        statement_timeout: std::time::Duration,
    ) -> Result<OwnerSession, ApiError> {
        let mut pg = self.owner.as_deref().unwrap_or(&self.pg).clone();
        let options = pg.get_options().unwrap_or_default().to_owned();
        pg.options(format!("{options} -c statement_timeout={}", statement_timeout.as_millis()).trim_start());
        let (client, connection) = pg.connect(tokio_postgres::NoTls).await.map_err(|e| {
            tracing::warn!(error = %e, "the console could not log in as the schema owner");
            ApiError::Unavailable("could not connect as the schema owner".to_owned())
        })?;
        let connection = tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "the console's connection ended");
            }
        });
        Ok(OwnerSession { client, connection })
    }

    async fn open_session(&self, access: Access, context: Context) -> Result<Session, ApiError> {
        let conn = self.checkout().await?;
        Ok(Session {
            db: self.clone(),
            conn: Some(conn),
            role: context.role,
            pending: Some((access, context)),
            open: false,
        })
    }
}

/// A connection as the schema owner ([`Db::as_schema_owner`]); closed when
/// dropped. Its statements run as they come, each in its own transaction
/// unless it opens one, as in `psql`.
pub struct OwnerSession {
    client: tokio_postgres::Client,
    connection: tokio::task::JoinHandle<()>,
}

impl OwnerSession {
    /// The connection, whose errors (the operator's own SQL) are the
    /// console's to show.
    pub fn client(&self) -> &tokio_postgres::Client {
        &self.client
    }
}

impl Drop for OwnerSession {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl Session {
    /// Sets the transaction's `timezone` too, so that `timestamptz` values
    /// read and write in that zone (PostgREST's `Prefer: timezone=`). The
    /// zone is one of `pg_timezone_names`, bound like every other setting.
    pub fn in_timezone(mut self, zone: Option<&str>) -> Self {
        if let (Some((_, context)), Some(zone)) = (self.pending.as_mut(), zone) {
            context.timezone = Some(zone.to_owned());
        }
        self
    }

    /// Puts `schema` first in the transaction's `search_path`, as PostgREST
    /// does for the schema a request reads (its profile).
    pub fn in_schema(mut self, schema: &str) -> Self {
        if let Some((_, context)) = self.pending.as_mut() {
            context.schema = Some(schema.to_owned());
        }
        self
    }

    /// Sets `realtime.topic` too: Realtime Authorization's policies on
    /// `realtime.messages` read the channel's topic with `realtime.topic()`
    /// (<https://supabase.com/docs/guides/realtime/authorization>).
    pub fn on_realtime_topic(mut self, topic: &str) -> Self {
        if let Some((_, context)) = self.pending.as_mut() {
            context.realtime_topic = Some(topic.to_owned());
        }
        self
    }

    /// Runs one statement in the transaction. The first call also opens the
    /// transaction and applies the settings, in the same round trip. On error the
    /// transaction is rolled back and the session is finished.
    pub async fn query(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, ApiError> {
        let result = self.run(sql, params, None, None).await;
        if result.is_err() {
            Box::pin(self.abort()).await;
        }
        result
    }

    /// Runs one statement and ends the transaction (`commit` true: COMMIT, else
    /// ROLLBACK), which goes out right behind the statement, in the same round
    /// trip. As the session's first statement, `BEGIN` and the settings go with
    /// them: a read costs one round trip.
    pub async fn query_and_end(
        self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        commit: bool,
    ) -> Result<Vec<Row>, ApiError> {
        self.query_checked_and_end(sql, params, None, commit).await
    }

    /// [`Session::query_and_end`] with `check` sent between the statement and
    /// the end of the transaction, in the same round trip. The first error is
    /// the answer: after a failed statement the check fails only because the
    /// transaction is aborted (25P02), and after a failed check the server
    /// answers COMMIT with ROLLBACK.
    pub async fn query_checked_and_end(
        mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        check: Option<Check<'_>>,
        commit: bool,
    ) -> Result<Vec<Row>, ApiError> {
        let verb = if commit { "commit" } else { "rollback" };
        match self.run(sql, params, check, Some(verb)).await {
            Ok(rows) => {
                self.open = false;
                Ok(rows)
            }
            Err(e) => {
                Box::pin(self.abort()).await;
                Err(e)
            }
        }
    }

    async fn run(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        check: Option<Check<'_>>,
        end: Option<&'static str>,
    ) -> Result<Vec<Row>, ApiError> {
        let role = self.role;
        let pg = |e| ApiError::from_pg(e, role);
        // What is not the common path (a later statement of the session, a
        // statement the connection has not prepared, a retry, an abort) is
        // awaited boxed: an async fn's future is as large as its largest
        // path, and every layer of the router moves the request's future,
        // so a 6 KB cold path cost every request its copies (`bench/profile.sh`).
        let Some((access, context)) = self.pending.take() else {
            let conn = self.conn.as_ref().ok_or_else(finished)?;
            let end = match end {
                Some(verb) => Some(conn.prepare_cached(verb).await.map_err(pg)?),
                None => None,
            };
            self.db.count_round_trip();
            let (result, ended) = Box::pin(statement_check_end(conn, sql, params, check, end.as_ref())).await;
            if ended {
                self.open = false;
            }
            return result.map_err(pg);
        };
        let settings = self.settings(context, access).await?;
        // A pooled connection may have died since it was last used (the database
        // restarted). Nothing was sent yet, so one retry on a fresh connection
        // cannot run anything twice.
        for attempt in 0..2 {
            let conn = self.conn.as_ref().ok_or_else(finished)?;
            if conn.statement_cache.size() > MAX_PREPARED {
                conn.statement_cache.clear();
            }
            // From here a transaction may be open: failures roll it back.
            self.open = true;
            self.db.count_round_trip();
            let prepared = match end {
                Some("commit") => prepared(conn, sql, check),
                _ => None,
            };
            let (result, ended) = match prepared {
                Some(prepared) => implicit(conn, &settings, &prepared, params).await,
                None => Box::pin(pipeline(conn, access, &settings, sql, params, check, end)).await,
            };
            if ended {
                self.open = false;
            }
            match result {
                Err(e) if attempt == 0 && e.is_closed() => {
                    closed_connection_retried();
                    self.discard();
                    self.conn = Some(Box::pin(self.db.checkout()).await?);
                }
                other => return other.map_err(pg),
            }
        }
        Err(ApiError::Unavailable("connection closed".to_owned()))
    }

    /// The names and values for `set_config`, in PostgREST's order, and
    /// `transaction_read_only` for a read: a transaction without `BEGIN`
    /// becomes read only this way (allowed at any point of a transaction,
    /// unlike the isolation level: PostgreSQL's `check_transaction_read_only`);
    /// after `BEGIN ... READ ONLY` it changes nothing.
    async fn settings(&self, context: Context, access: Access) -> Result<Settings, ApiError> {
        let conn = self.conn.as_ref().ok_or_else(finished)?;
        let role_settings = self.db.role_settings(conn).await?;
        let own = role_settings.get(&context.role).map_or(&[][..], Vec::as_slice);
        let mut names = Vec::with_capacity(own.len() + 8);
        let mut values = Vec::with_capacity(own.len() + 8);
        names.push(Cow::Borrowed("search_path"));
        values.push(search_path(context.schema.as_deref()));
        for (name, value) in own {
            names.push(Cow::Owned(name.clone()));
            values.push(Cow::Owned(value.clone()));
        }
        for (name, value) in [
            ("role", Cow::Borrowed(context.role.as_str())),
            ("request.jwt.claims", Cow::Owned(context.claims)),
            ("request.method", Cow::Owned(context.method)),
            ("request.path", Cow::Owned(context.path)),
            ("request.headers", Cow::Owned(context.headers)),
        ] {
            names.push(Cow::Borrowed(name));
            values.push(value);
        }
        if let Some(zone) = context.timezone {
            names.push(Cow::Borrowed("timezone"));
            values.push(Cow::Owned(zone));
        }
        if let Some(topic) = context.realtime_topic {
            names.push(Cow::Borrowed("realtime.topic"));
            values.push(Cow::Owned(topic));
        }
        if access == Access::ReadOnly {
            names.push(Cow::Borrowed("transaction_read_only"));
            values.push(Cow::Borrowed("on"));
        }
        Ok((names, values))
    }

    /// Commits and returns the connection to the pool.
    pub async fn commit(mut self) -> Result<(), ApiError> {
        self.finish("commit").await
    }

    /// Rolls back and returns the connection to the pool.
    pub async fn rollback(mut self) -> Result<(), ApiError> {
        self.finish("rollback").await
    }

    async fn finish(&mut self, verb: &'static str) -> Result<(), ApiError> {
        let role = self.role;
        if !self.open {
            return Ok(());
        }
        let conn = self.conn.as_ref().ok_or_else(finished)?;
        self.db.count_round_trip();
        let result = match conn.prepare_cached(verb).await {
            Ok(statement) => conn.execute(&statement, &[]).await.map(|_| ()),
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => {
                self.open = false;
                Ok(())
            }
            Err(e) => {
                self.discard();
                Err(ApiError::from_pg(e, role))
            }
        }
    }

    /// After a failed statement: roll back, or give the connection up if even
    /// that fails.
    async fn abort(&mut self) {
        if self.open && self.finish("rollback").await.is_err() {
            self.discard();
        }
        self.pending = None;
        self.conn.take();
    }

    /// Closes the connection instead of returning it to the pool.
    fn discard(&mut self) {
        if let Some(conn) = self.conn.take() {
            drop(Object::take(conn));
        }
        self.open = false;
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.open {
            tracing::debug!("session dropped inside a transaction; discarding its connection");
            self.discard();
        }
    }
}

/// `BEGIN`, the settings, the first statement, its check and `end`, sent back
/// to back. Also says whether the transaction ended: `end` went through, which
/// it does even after a failed statement (the server answers COMMIT with
/// ROLLBACK), so a refused write needs no further round trip to roll back.
///
/// tokio-postgres sends a request when its future is first polled, and `join!`
/// polls its futures in order, so the requests go out in that order before any
/// answer is awaited. All of them keep being polled until all are done: the
/// connection hands each answer to its request through a channel of one
/// message, and an answer nobody reads (an error arrives in two parts) would
/// stall the connection for the answers behind it. A statement this connection
/// has not prepared yet is parsed after `BEGIN` and the settings, inside the
/// transaction and as the caller's role (name lookups check schema privileges,
/// and `search_path` is set by then); a cached one costs no extra round trip.
async fn pipeline(
    conn: &Object,
    access: Access,
    (names, values): &Settings,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    check: Option<Check<'_>>,
    end: Option<&'static str>,
) -> (Result<Vec<Row>, tokio_postgres::Error>, bool) {
    let prepared =
        futures::try_join!(conn.prepare_cached(access.begin()), conn.prepare_cached(SET_CONFIG), async {
            match end {
                Some(verb) => conn.prepare_cached(verb).await.map(Some),
                None => Ok(None),
            }
        },);
    let (begin, set_config, end) = match prepared {
        Ok(prepared) => prepared,
        Err(e) => return (Err(e), false),
    };
    let settings: [&(dyn ToSql + Sync); 2] = [names, values];
    let (begun, configured, (rows, ended)) = futures::join!(
        conn.execute(&begin, &[]),
        conn.execute(&set_config, &settings),
        statement_check_end(conn, sql, params, check, end.as_ref())
    );
    // The first failure explains the rest (an aborted transaction refuses all).
    (begun.and(configured).and(rows), ended)
}

/// A statement to run with its parameters.
type Bound<'a> = (&'a Statement, &'a [&'a (dyn ToSql + Sync)]);

/// What a session of one statement that commits runs in one pipeline.
struct Prepared<'a> {
    set_config: Statement,
    statement: Statement,
    check: Option<(Statement, &'a [&'a (dyn ToSql + Sync)])>,
}

/// The statements of a session of one statement that commits, if the
/// connection has all of them prepared already: the settings, the statement
/// and its check.
fn prepared<'a>(conn: &Object, sql: &str, check: Option<Check<'a>>) -> Option<Prepared<'a>> {
    let cached = |sql: &str| conn.statement_cache.get(sql, &[]);
    let check = match check {
        Some((sql, params)) => Some((cached(sql)?, params)),
        None => None,
    };
    Some(Prepared { set_config: cached(SET_CONFIG)?, statement: cached(sql)?, check })
}

/// The settings, the statement and its check as one pipeline with one `Sync`:
/// one implicit transaction, committed by the server at the `Sync` (see the
/// module's documentation). Also says whether the transaction ended, which it
/// did unless the connection broke.
async fn implicit(
    conn: &Object,
    (names, values): &Settings,
    prepared: &Prepared<'_>,
    params: &[&(dyn ToSql + Sync)],
) -> (Result<Vec<Row>, tokio_postgres::Error>, bool) {
    let settings: [&(dyn ToSql + Sync); 2] = [names, values];
    let mut statements: Vec<Bound<'_>> =
        vec![(&prepared.set_config, &settings), (&prepared.statement, params)];
    if let Some((check, params)) = &prepared.check {
        statements.push((check, params));
    }
    match conn.query_pipeline(&statements).await {
        Ok(results) => (Ok(results.into_iter().nth(1).unwrap_or_default()), true),
        Err(e) => {
            let ended = e.as_db_error().is_some();
            (Err(e), ended)
        }
    }
}

/// A statement, its check and the end of the transaction if given, sent back
/// to back and all read to the end (see [`pipeline`]). The first failure is
/// the answer. Also says whether the transaction ended.
async fn statement_check_end(
    conn: &Object,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    check: Option<Check<'_>>,
    end: Option<&Statement>,
) -> (Result<Vec<Row>, tokio_postgres::Error>, bool) {
    let prepared = futures::try_join!(conn.prepare_cached(sql), async {
        match check {
            Some((sql, params)) => conn.prepare_cached(sql).await.map(|statement| Some((statement, params))),
            None => Ok(None),
        }
    });
    let (statement, check) = match prepared {
        Ok(prepared) => prepared,
        Err(e) => return (Err(e), false),
    };
    let check = async {
        match &check {
            Some((check, params)) => Some(conn.execute(check, params).await),
            None => None,
        }
    };
    let end = async {
        match end {
            Some(end) => Some(conn.execute(end, &[]).await),
            None => None,
        }
    };
    let (rows, checked, end) = futures::join!(conn.query(&statement, params), check, end);
    // A COMMIT that fails (a deferred constraint) ends the transaction too;
    // only a broken connection leaves it open.
    let ended = end.as_ref().is_some_and(|r| r.as_ref().err().is_none_or(|e| e.as_db_error().is_some()));
    let result = rows.and_then(|rows| checked.transpose().and_then(|_| end.transpose()).map(|_| rows));
    (result, ended)
}

fn finished() -> ApiError {
    ApiError::internal("the session has already finished")
}

/// A pooled connection the database closed (a restart, an outage): the
/// statement is retried once on a new one. Every pooled connection hits this
/// once after a restart, so it is logged once in a while.
fn closed_connection_retried() {
    const RETRIED: &str = "pooled connection was closed; retrying on a new one";
    if crate::logs::first_in_a_while(tracing::Level::WARN, RETRIED, "closed") {
        tracing::warn!("{RETRIED}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_path_is_the_schema_then_the_extra_schemas_duplicates_kept() {
        for (schema, path) in [
            (Some("public"), r#""public", "public", "extensions""#),
            (None, r#""public", "extensions""#),
            (Some("api"), r#""api", "public", "extensions""#),
            (Some("my\"schema"), r#""my""schema", "public", "extensions""#),
        ] {
            assert_eq!(search_path(schema), path, "{schema:?}");
            // The kept ones read the same the second time.
            assert_eq!(search_path(schema), path, "{schema:?}");
        }
    }
}
