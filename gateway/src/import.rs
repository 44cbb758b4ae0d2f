//! `gateway import`: moving a hosted Supabase project in from the three files
//! `supabase db dump` writes (`--role-only`, the default schema run, and
//! `--data-only`), and its stored objects.
//!
//! The load is Supabase's own restore
//! (<https://supabase.com/docs/guides/platform/migrating-within-supabase/backup-restore>):
//! `psql --single-transaction -v ON_ERROR_STOP=1` over the roles, the schema,
//! `SET session_replication_role = replica`, then the data, so triggers and
//! foreign keys do not fire on rows restored as they were. Nothing is loaded
//! as it comes, though: first every statement is read ([`plan`]) against what
//! this database has ([`Facts`]), and what the hosted dump carries that this
//! database lacks is skipped or adapted, each with a [`Finding`] saying why,
//! or the import is refused before anything changes.
//!
//! The dump's rows of the tables this gateway keeps in its own `auth` and
//! `storage` schemas (`sql/`) are not loaded into them directly: the hosted
//! tables have columns and tables these lack, and the dump names them all.
//! They go to a staging table of text columns (`_gateway_import."auth.users"`),
//! and one statement per table moves the columns both sides have, cast to
//! this schema's types, in the same transaction. Columns and tables that do
//! not exist here are reported with their row counts.
//!
//! Stored objects are copied afterwards from the project's file-backend folder
//! or S3 bucket ([`copy_objects`]), to this gateway's store at
//! `<bucket>/<name>/<version>`, the path Storage itself uses
//! (supabase/storage `src/storage/backend/file.ts`: `<root>/<tenant>/<bucket>/<name>/<version>`).

pub mod split;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::sql::quote_ident;
use crate::startup::BoxError;
use crate::storage::backend::Backend;
use crate::storage::keys;
use split::{Piece, Token};

/// The staging schema; dropped at the end of the load.
const STAGING: &str = "_gateway_import";
/// Marks the lines of psql's output that report a moved table.
const MARK: &str = "gateway-import";

/// The three files of `supabase db dump`, read.
pub struct Dump {
    pub roles: String,
    pub schema: String,
    pub data: String,
}

impl Dump {
    pub fn read(roles: &Path, schema: &Path, data: &Path) -> Result<Self, BoxError> {
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|e| format!("could not read {}: {e}", path.display()))
        };
        Ok(Dump { roles: read(roles)?, schema: read(schema)?, data: read(data)? })
    }
}

/// What this database has, read before the dump is.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// `server_version_num`, e.g. 150008.
    pub server_version_num: i32,
    /// Every setting `SET` may name (`pg_settings`).
    pub settings: HashSet<String>,
    pub roles: HashSet<String>,
    /// Extensions this PostgreSQL can install, and whether each is installed.
    pub extensions: HashMap<String, bool>,
    pub schemas: HashSet<String>,
    /// Tables, views, sequences...: `(schema, name)`.
    pub relations: HashSet<(String, String)>,
    pub types: HashSet<(String, String)>,
    pub functions: HashSet<(String, String)>,
    pub publications: HashSet<String>,
    /// The columns of the tables rows are moved into.
    pub columns: HashMap<(String, String), Vec<Column>>,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    /// `format_type`: what a staged text value is cast to.
    pub type_sql: String,
    /// Generated or identity-always: never written.
    pub computed: bool,
}

/// Which file of the dump a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum File {
    Roles,
    Schema,
    Data,
}

impl File {
    fn name(self) -> &'static str {
        match self {
            File::Roles => "roles",
            File::Schema => "schema",
            File::Data => "data",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Left out; the import goes on.
    Skipped,
    /// Loaded, changed to fit this database.
    Adapted,
    /// The import cannot go on.
    Refused,
}

/// One thing the hosted dump carries that this database lacks, and what the
/// import does about it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub file: File,
    /// What it is about: `auth.oauth_clients`, `extension pg_graphql`, ...
    pub object: String,
    pub verdict: Verdict,
    pub reason: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = match self.verdict {
            Verdict::Skipped => "skipped",
            Verdict::Adapted => "adapted",
            Verdict::Refused => "REFUSED",
        };
        write!(f, "{:<8} {verdict:<8} {}: {}", self.file.name(), self.object, self.reason)
    }
}

/// What the load runs and what was found on the way.
#[derive(Debug, Default)]
pub struct Plan {
    pub findings: Vec<Finding>,
    pub roles_sql: String,
    pub schema_sql: String,
    pub data_sql: String,
    /// Moves the staged rows into this gateway's tables and reports each.
    pub move_sql: String,
}

impl Plan {
    pub fn refused(&self) -> bool {
        self.findings.iter().any(|f| f.verdict == Verdict::Refused)
    }
}

/// The roles this gateway makes and manages itself (`sql/000_roles.sql`),
/// and Supabase's own, which a hosted dump may name but nothing here needs.
fn reserved_role(name: &str) -> Option<&'static str> {
    const OURS: [&str; 5] = ["anon", "authenticated", "service_role", "authenticator", "postgres"];
    const SUPABASE: [&str; 6] = [
        "dashboard_user",
        "pgbouncer",
        "pgsodium_keyholder",
        "pgsodium_keyiduser",
        "pgsodium_keymaker",
        "pgtle_admin",
    ];
    if OURS.contains(&name) {
        Some("this gateway makes and manages this role itself (sql/000_roles.sql)")
    } else if SUPABASE.contains(&name) || name.starts_with("supabase_") || name.starts_with("cli_login_") {
        Some("a role of Supabase's platform, which nothing here uses")
    } else {
        None
    }
}

/// Schemas Supabase's platform and extensions own; the CLI's schema dump
/// leaves them out (supabase/cli `pkg/migration/dump.go`, `InternalSchemas`)
/// and its data dump keeps the rows of some.
const MANAGED_SCHEMAS: [&str; 20] = [
    "auth",
    "storage",
    "realtime",
    "_realtime",
    "supabase_functions",
    "supabase_migrations",
    "extensions",
    "graphql",
    "graphql_public",
    "vault",
    "pgsodium",
    "pgsodium_masks",
    "net",
    "cron",
    "pgmq",
    "pgbouncer",
    "_analytics",
    "_supavisor",
    "pgtle",
    "etl",
];

fn managed(schema: &str) -> bool {
    MANAGED_SCHEMAS.contains(&schema)
}

/// What becomes of the hosted rows of a table in a managed schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carry {
    /// Moved, column by column, into this gateway's table of the same name.
    Move,
    /// Left out, for this reason.
    Leave(&'static str),
}

/// The order rows are moved in: a table before those that point at it.
const MOVED: [(&str, &str); 7] = [
    ("auth", "users"),
    ("auth", "identities"),
    ("auth", "sessions"),
    ("auth", "mfa_factors"),
    ("auth", "mfa_amr_claims"),
    ("storage", "buckets"),
    ("storage", "objects"),
];

fn carry(schema: &str, table: &str) -> Carry {
    if MOVED.contains(&(schema, table)) {
        return Carry::Move;
    }
    Carry::Leave(match (schema, table) {
        ("auth", "refresh_tokens") => {
            "refresh tokens are kept here as keyed hashes, so the hosted ones are not accepted: sessions \
             go on until their access token expires, then users sign in again"
        }
        ("auth", "mfa_challenges") => "pending MFA challenges: users ask for a new one",
        ("auth", "one_time_tokens" | "flow_state") => {
            "pending confirmation, recovery and magic links and OAuth flows: users ask for a new one"
        }
        ("auth", "audit_log_entries") => "this gateway keeps no audit log table; its log is the process log",
        ("auth", "instances" | "schema_migrations") | ("storage", "migrations") => {
            "the hosted service's own bookkeeping"
        }
        ("auth", "saml_providers" | "saml_relay_states" | "sso_providers" | "sso_domains") => {
            "SAML identity providers are not carried over: register them again (`supabase sso add`); \
             their users then sign in to new accounts"
        }
        ("auth", t) if t.starts_with("oauth_") => {
            "OAuth clients and their grants are not carried over: register the clients again"
        }
        ("storage", "s3_multipart_uploads" | "s3_multipart_uploads_parts") => {
            "unfinished S3 multipart uploads: clients start them again"
        }
        ("storage", "prefixes") => "Storage's folder index: this gateway lists folders from storage.objects",
        ("storage", t) if t.starts_with("buckets_") || t.starts_with("iceberg_") || t == "vector_indexes" => {
            "analytics and vector buckets are not built here"
        }
        ("supabase_functions", _) => "database webhooks (pg_net) are not built here",
        ("cron", _) => "pg_cron is not part of this gateway's database",
        _ => "this database has no such table",
    })
}

/// Reads the dump against `facts`.
pub fn plan(dump: &Dump, facts: &Facts) -> Plan {
    let mut planner = Planner {
        facts,
        plan: Plan::default(),
        roles: HashSet::new(),
        schemas: HashSet::new(),
        relations: HashSet::new(),
        extensions: HashSet::new(),
        publications: HashSet::new(),
        missing_roles: BTreeMap::new(),
        staged: Vec::new(),
        left: BTreeMap::new(),
    };
    planner.file(File::Roles, &dump.roles);
    planner.file(File::Schema, &dump.schema);
    planner.file(File::Data, &dump.data);
    planner.finish()
}

struct Planner<'a> {
    facts: &'a Facts,
    plan: Plan,
    /// Roles, schemas, relations, extensions and publications the dump makes.
    roles: HashSet<String>,
    schemas: HashSet<String>,
    relations: HashSet<(String, String)>,
    extensions: HashSet<String>,
    publications: HashSet<String>,
    /// Statements skipped for naming a role this database lacks, by role:
    /// how many, and the first.
    missing_roles: BTreeMap<(File, String), (usize, String)>,
    /// The staged tables, in the order first met: their dumped columns.
    staged: Vec<((String, String), Vec<String>)>,
    /// Rows of tables left out, by table.
    left: BTreeMap<(String, String), (u64, &'static str)>,
}

impl Planner<'_> {
    fn find(&mut self, file: File, object: impl Into<String>, verdict: Verdict, reason: impl Into<String>) {
        self.plan.findings.push(Finding { file, object: object.into(), verdict, reason: reason.into() });
    }

    fn out(&mut self, file: File) -> &mut String {
        match file {
            File::Roles => &mut self.plan.roles_sql,
            File::Schema => &mut self.plan.schema_sql,
            File::Data => &mut self.plan.data_sql,
        }
    }

    fn keep(&mut self, file: File, text: &str) {
        let out = self.out(file);
        out.push_str(text);
        out.push('\n');
    }

    fn role_exists(&self, name: &str) -> bool {
        self.facts.roles.contains(name) || self.roles.contains(name)
    }

    fn schema_exists(&self, name: &str) -> bool {
        self.facts.schemas.contains(name) || self.schemas.contains(name)
    }

    fn relation_exists(&self, schema: &str, name: &str) -> bool {
        let key = (schema.to_owned(), name.to_owned());
        self.facts.relations.contains(&key) || self.relations.contains(&key)
    }

    fn file(&mut self, file: File, sql: &str) {
        for piece in split::split(sql) {
            match piece {
                Piece::Meta { text, line } => {
                    // pg_dump 17.6 and later fence their output with
                    // `\restrict`, which older psql does not know; it guards
                    // against a server feeding psql commands, not needed for
                    // a file read here.
                    if !(text.starts_with("\\restrict") || text.starts_with("\\unrestrict")) {
                        self.find(
                            file,
                            format!("line {line}"),
                            Verdict::Skipped,
                            format!("psql meta-command `{text}`"),
                        );
                    }
                }
                Piece::Sql { text, .. } => self.statement(file, &text),
                Piece::Copy { head, rows, .. } => self.copy(file, &head, &rows),
            }
        }
    }

    fn statement(&mut self, file: File, text: &str) {
        let tokens = split::tokens(text);
        let Some(first) = tokens.first() else { return };
        // Statements that create or name things.
        match first {
            Token::Word(w) if w == "SET" => return self.set(file, text, &tokens),
            Token::Word(w) if w == "CREATE" && !self.create(file, &tokens) => return,
            Token::Word(w) if w == "ALTER" && !self.alter(file, &tokens) => return,
            // COMMENT ON EXTENSION x: only for an extension this load makes.
            Token::Word(w)
                if w == "COMMENT"
                    && tokens.get(2).is_some_and(|t| t.is("EXTENSION"))
                    && !self
                        .extensions
                        .contains(&tokens.get(3).and_then(Token::ident).unwrap_or_default()) =>
            {
                return;
            }
            Token::Word(w) if w == "INSERT" => return self.insert(file, text, &tokens),
            Token::Word(w) if w == "SELECT" && text.contains("setval(") => return self.setval(file, text),
            _ => {}
        }
        if let Some(role) = role_refs(&tokens).into_iter().find(|r| !self.role_exists(r)) {
            let entry = self.missing_roles.entry((file, role)).or_insert((0, excerpt(text)));
            entry.0 += 1;
            return;
        }
        self.keep(file, text);
    }

    /// `SET name = value`: kept when this PostgreSQL knows the setting.
    fn set(&mut self, file: File, text: &str, tokens: &[Token]) {
        let name = tokens.get(1).and_then(Token::ident).unwrap_or_default();
        // `SET SESSION ...`, `SET LOCAL ...` and custom `a.b` settings pass.
        let known = self.facts.settings.contains(&name)
            || matches!(name.as_str(), "session" | "local")
            || tokens.get(2) == Some(&Token::Punct('.'));
        if known {
            self.keep(file, text);
        } else {
            let major = self.facts.server_version_num / 10000;
            let since = match name.as_str() {
                "transaction_timeout" => " (it came in PostgreSQL 17)",
                _ => "",
            };
            self.find(
                file,
                format!("setting {name}"),
                Verdict::Skipped,
                format!("this PostgreSQL ({major}) has no such setting{since}"),
            );
        }
    }

    /// True when the statement is to be kept (after the role check).
    fn create(&mut self, file: File, tokens: &[Token]) -> bool {
        let mut i = 1;
        if tokens.get(1).is_some_and(|t| t.is("OR")) && tokens.get(2).is_some_and(|t| t.is("REPLACE")) {
            i = 3;
        }
        while tokens
            .get(i)
            .is_some_and(|t| t.is("UNLOGGED") || t.is("TEMPORARY") || t.is("TEMP") || t.is("TRUSTED"))
        {
            i += 1;
        }
        let kind = match tokens.get(i) {
            Some(Token::Word(w)) if w == "MATERIALIZED" => {
                i += 1;
                "VIEW".to_owned()
            }
            Some(Token::Word(w)) => w.clone(),
            _ => return true,
        };
        i += 1;
        if tokens.get(i).is_some_and(|t| t.is("IF")) {
            i += 3;
        }
        match kind.as_str() {
            "ROLE" | "USER" => {
                let name = tokens.get(i).and_then(Token::ident).unwrap_or_default();
                if let Some(reason) = reserved_role(&name) {
                    if self.facts.roles.contains(&name) {
                        self.find(
                            file,
                            format!("role {name}"),
                            Verdict::Skipped,
                            format!("it exists here: {reason}"),
                        );
                    } else {
                        self.find(file, format!("role {name}"), Verdict::Skipped, reason);
                    }
                    return false;
                }
                if self.facts.roles.contains(&name) {
                    self.find(
                        file,
                        format!("role {name}"),
                        Verdict::Skipped,
                        "it exists here already; kept as it is",
                    );
                    return false;
                }
                self.roles.insert(name);
                true
            }
            "SCHEMA" => {
                let name = tokens.get(i).and_then(Token::ident).unwrap_or_default();
                if self.facts.schemas.contains(&name) {
                    // Not a finding: `public` and friends exist everywhere.
                    return false;
                }
                self.schemas.insert(name);
                true
            }
            "EXTENSION" => self.extension(file, tokens, i),
            "PUBLICATION" => {
                let name = tokens.get(i).and_then(Token::ident).unwrap_or_default();
                if self.facts.publications.contains(&name) {
                    return false;
                }
                self.publications.insert(name);
                true
            }
            "EVENT" => {
                let name = tokens.get(i + 1).and_then(Token::ident).unwrap_or_default();
                self.find(
                    file,
                    format!("event trigger {name}"),
                    Verdict::Skipped,
                    "event triggers belong to Supabase's platform (the CLI's own dump comments them out)",
                );
                false
            }
            "TABLE" | "VIEW" | "SEQUENCE" | "TYPE" | "DOMAIN" | "FUNCTION" | "PROCEDURE" => {
                let Some((schema, name, _)) = qualified(tokens, i) else { return true };
                let key = (schema.clone(), name.clone());
                let exists = match kind.as_str() {
                    "TYPE" | "DOMAIN" => self.facts.types.contains(&key),
                    "FUNCTION" | "PROCEDURE" => self.facts.functions.contains(&key),
                    _ => self.facts.relations.contains(&key),
                };
                let object = format!("{} {schema}.{name}", kind.to_lowercase());
                if exists && managed(&schema) {
                    self.find(file, object, Verdict::Skipped, "this gateway defines its own (sql/)");
                    return false;
                }
                if exists {
                    self.find(
                        file,
                        object,
                        Verdict::Refused,
                        "this database has one already; import into a database that does not (a new --data-dir)",
                    );
                    return false;
                }
                if matches!(kind.as_str(), "TABLE" | "VIEW" | "SEQUENCE") {
                    self.relations.insert(key);
                }
                true
            }
            _ => true,
        }
    }

    fn extension(&mut self, file: File, tokens: &[Token], at: usize) -> bool {
        let name = tokens.get(at).and_then(Token::ident).unwrap_or_default();
        match self.facts.extensions.get(&name) {
            None => {
                self.find(
                    file,
                    format!("extension {name}"),
                    Verdict::Skipped,
                    "not available on this PostgreSQL (pg_available_extensions); objects that need it will fail to load",
                );
                false
            }
            Some(true) => false,
            Some(false) => {
                let schema = tokens
                    .iter()
                    .position(|t| t.is("SCHEMA"))
                    .and_then(|p| tokens.get(p + 1))
                    .and_then(Token::ident);
                if let Some(schema) = schema.filter(|s| !self.schema_exists(s)) {
                    self.find(
                        file,
                        format!("extension {name}"),
                        Verdict::Adapted,
                        format!("its schema {schema} is made first"),
                    );
                    let create = format!("CREATE SCHEMA IF NOT EXISTS {};", quote_ident(&schema));
                    self.keep(file, &create);
                    self.schemas.insert(schema);
                }
                self.extensions.insert(name);
                true
            }
        }
    }

    /// ALTER ROLE of a reserved role, ALTER PUBLICATION of one that is not
    /// here: left out. True when kept.
    fn alter(&mut self, file: File, tokens: &[Token]) -> bool {
        match tokens.get(1) {
            Some(t) if t.is("ROLE") || t.is("USER") => {
                let name = tokens.get(2).and_then(Token::ident).unwrap_or_default();
                if let Some(reason) = reserved_role(&name) {
                    self.find(
                        file,
                        format!("role {name}"),
                        Verdict::Skipped,
                        format!("its settings are not changed: {reason}"),
                    );
                    return false;
                }
                true
            }
            Some(t) if t.is("PUBLICATION") => {
                let name = tokens.get(2).and_then(Token::ident).unwrap_or_default();
                if !self.facts.publications.contains(&name) && !self.publications.contains(&name) {
                    self.find(
                        file,
                        format!("publication {name}"),
                        Verdict::Skipped,
                        "this database has no such publication",
                    );
                    return false;
                }
                true
            }
            _ => true,
        }
    }

    /// `COPY table (columns) FROM stdin;` and its rows.
    fn copy(&mut self, file: File, head: &str, rows: &str) {
        let tokens = split::tokens(head);
        let count = rows.lines().count() as u64;
        let Some((schema, table, after)) = qualified(&tokens, 1) else {
            self.find(file, excerpt(head), Verdict::Refused, "a COPY this import cannot read");
            return;
        };
        let columns = column_list(&tokens, after);
        match self.rows_target(file, &schema, &table, columns.as_deref(), count) {
            Target::Keep => {
                self.keep(file, head);
                let out = self.out(file);
                out.push_str(rows);
                out.push_str("\\.\n");
            }
            Target::Stage(staged) => {
                let columns =
                    columns.unwrap_or_default().iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(", ");
                let copy = format!("COPY {staged} ({columns}) FROM stdin;");
                self.keep(file, &copy);
                let out = self.out(file);
                out.push_str(rows);
                out.push_str("\\.\n");
            }
            Target::Drop => {}
        }
    }

    /// `INSERT INTO table (columns) VALUES (...), ...;` (the CLI's default
    /// data dump, `--column-inserts`).
    fn insert(&mut self, file: File, text: &str, tokens: &[Token]) {
        let Some((schema, table, after)) = qualified(tokens, 2) else {
            self.find(file, excerpt(text), Verdict::Refused, "an INSERT this import cannot read");
            return;
        };
        let columns = column_list(tokens, after);
        let count = count_rows(tokens);
        match self.rows_target(file, &schema, &table, columns.as_deref(), count) {
            Target::Keep => self.keep(file, text),
            Target::Stage(staged) => {
                // The same statement into the staging table: everything from
                // the column list on is kept as written.
                let rest = &text[top_level_paren(text).unwrap_or(text.len())..];
                let insert = format!("INSERT INTO {staged} {rest}");
                self.keep(file, &insert);
            }
            Target::Drop => {}
        }
    }

    fn rows_target(
        &mut self,
        file: File,
        schema: &str,
        table: &str,
        columns: Option<&[String]>,
        count: u64,
    ) -> Target {
        let name = format!("{schema}.{table}");
        if !managed(schema) {
            if self.relation_exists(schema, table) {
                return Target::Keep;
            }
            self.find(
                file,
                name,
                Verdict::Refused,
                format!(
                    "{} for a table that neither this database nor the schema file has",
                    counted(count, "row")
                ),
            );
            return Target::Drop;
        }
        let carried = match carry(schema, table) {
            Carry::Move if self.facts.columns.contains_key(&(schema.to_owned(), table.to_owned())) => {
                Carry::Move
            }
            Carry::Move => Carry::Leave("this database has no such table"),
            leave @ Carry::Leave(_) => leave,
        };
        match carried {
            Carry::Leave(reason) => {
                let entry = self.left.entry((schema.to_owned(), table.to_owned())).or_insert((0, reason));
                entry.0 += count;
                Target::Drop
            }
            Carry::Move => {
                let Some(columns) = columns else {
                    self.find(
                        file,
                        name,
                        Verdict::Refused,
                        "rows without column names (dump with `supabase db dump --data-only`, which names them)",
                    );
                    return Target::Drop;
                };
                let key = (schema.to_owned(), table.to_owned());
                let staged = quote_ident(&name);
                match self.staged.iter().find(|(k, _)| *k == key) {
                    Some((_, known)) if known.as_slice() != columns => {
                        self.find(file, name, Verdict::Refused, "its rows come with different column lists");
                        return Target::Drop;
                    }
                    Some(_) => {}
                    None => {
                        // The staging table, just before its first rows.
                        let mut create = String::new();
                        if self.staged.is_empty() {
                            let _ = writeln!(create, "CREATE SCHEMA {};", quote_ident(STAGING));
                        }
                        let defs =
                            columns.iter().map(|c| format!("{} text", quote_ident(c))).collect::<Vec<_>>();
                        let _ = write!(
                            create,
                            "CREATE UNLOGGED TABLE {}.{staged} ({});",
                            quote_ident(STAGING),
                            defs.join(", ")
                        );
                        self.keep(file, &create);
                        self.staged.push((key, columns.to_vec()));
                    }
                }
                Target::Stage(format!("{}.{staged}", quote_ident(STAGING)))
            }
        }
    }

    /// `SELECT pg_catalog.setval('"s"."seq"', n, true);`. A managed
    /// schema's sequences (auth.refresh_tokens_id_seq) are this gateway's:
    /// left as they are. Others belong to the dump's tables and are kept (an
    /// identity column's sequence is made by ALTER TABLE, so it is not looked
    /// for: a missing one fails the load).
    fn setval(&mut self, file: File, text: &str) {
        let name = text.split('\'').nth(1).unwrap_or_default();
        let schema = match name.split_once('.') {
            Some((schema, _)) => schema.trim_matches('"'),
            None => "public",
        };
        if !managed(schema) {
            self.keep(file, text);
        }
    }

    fn finish(mut self) -> Plan {
        for ((file, role), (count, first)) in std::mem::take(&mut self.missing_roles) {
            self.find(
                file,
                format!("role {role}"),
                Verdict::Skipped,
                format!(
                    "this database has no such role: {} naming it left out (owners stay the importing role, grants \
                     to it are dropped), the first: {first}",
                    counted(count as u64, "statement")
                ),
            );
        }
        for ((schema, table), (rows, reason)) in std::mem::take(&mut self.left) {
            self.find(
                File::Data,
                format!("{schema}.{table}"),
                Verdict::Skipped,
                format!("{} left out: {reason}", counted(rows, "row")),
            );
        }
        // Moves in dependency order, then the staging schema goes.
        let mut sql = String::from("SET session_replication_role = replica;\n");
        let mut staged = std::mem::take(&mut self.staged);
        staged.sort_by_key(|(key, _)| {
            MOVED.iter().position(|(s, t)| (*s, *t) == (key.0.as_str(), key.1.as_str()))
        });
        for ((schema, table), dumped) in &staged {
            let ours = &self.facts.columns[&(schema.clone(), table.clone())];
            let writable: Vec<&Column> =
                ours.iter().filter(|c| !c.computed && dumped.contains(&c.name)).collect();
            let lacking: Vec<&String> =
                dumped.iter().filter(|d| !ours.iter().any(|c| &c.name == *d)).collect();
            let computed: Vec<&String> =
                dumped.iter().filter(|d| ours.iter().any(|c| &c.name == *d && c.computed)).collect();
            let name = format!("{schema}.{table}");
            if !lacking.is_empty() {
                let list = lacking.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
                self.find(
                    File::Data,
                    name.clone(),
                    Verdict::Adapted,
                    format!("columns this database lacks, left out: {list}"),
                );
            }
            if !computed.is_empty() {
                let list = computed.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
                self.find(
                    File::Data,
                    name.clone(),
                    Verdict::Adapted,
                    format!("computed here, not copied: {list}"),
                );
            }
            let target = format!("{}.{}", quote_ident(schema), quote_ident(table));
            let columns = writable.iter().map(|c| quote_ident(&c.name)).collect::<Vec<_>>().join(", ");
            let values = writable
                .iter()
                .map(|c| format!("{}::{}", quote_ident(&c.name), c.type_sql))
                .collect::<Vec<_>>()
                .join(", ");
            let source = format!("{}.{}", quote_ident(STAGING), quote_ident(&name));
            // Storage with object versioning (supabase/storage
            // `0063-object-versioning-schema.sql`) keeps noncurrent versions
            // and delete markers as rows; this gateway keeps one row per
            // name, the current one.
            let mut current = Vec::new();
            if name == "storage.objects" {
                if dumped.iter().any(|c| c == "archived_at") {
                    current.push("\"archived_at\" IS NULL".to_owned());
                }
                if dumped.iter().any(|c| c == "is_delete_marker") {
                    current.push("NOT coalesce(\"is_delete_marker\"::boolean, false)".to_owned());
                }
                if !current.is_empty() {
                    self.find(
                        File::Data,
                        name.clone(),
                        Verdict::Adapted,
                        "only current versions are kept: noncurrent versions and delete markers are left out",
                    );
                }
            }
            let filter =
                if current.is_empty() { String::new() } else { format!(" WHERE {}", current.join(" AND ")) };
            let _ = writeln!(
                sql,
                "WITH moved AS (INSERT INTO {target} ({columns}) SELECT {values} FROM {source}{filter} \
                 ON CONFLICT DO NOTHING RETURNING 1) \
                 SELECT '{MARK}', '{name}', (SELECT count(*) FROM {source}{filter}), (SELECT count(*) FROM moved);"
            );
        }
        // Objects stored before Storage kept versions have none; here every
        // object's bytes live under a version.
        if staged.iter().any(|((s, t), _)| s == "storage" && t == "objects") {
            let _ = writeln!(
                sql,
                "WITH versioned AS (UPDATE storage.objects SET version = gen_random_uuid()::text \
                 WHERE version IS NULL RETURNING 1) \
                 SELECT '{MARK}', 'storage.objects without a version', 0, (SELECT count(*) FROM versioned);"
            );
        }
        if !staged.is_empty() {
            let _ = writeln!(sql, "DROP SCHEMA {} CASCADE;", quote_ident(STAGING));
        }
        sql.push_str("RESET session_replication_role;\n");
        self.plan.move_sql = sql;
        self.plan.findings.sort_by_key(|f| f.file);
        self.plan
    }
}

enum Target {
    /// Loaded as written.
    Keep,
    /// Loaded into this staging table.
    Stage(String),
    /// Not loaded.
    Drop,
}

/// `1 row`, `2 rows`, `0 rows`.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The first 80 characters of a statement, on one line.
fn excerpt(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    }
}

/// `schema.name` (or `name`, in `public`) at `at`, and where it ends.
fn qualified(tokens: &[Token], at: usize) -> Option<(String, String, usize)> {
    let mut at = at;
    if tokens.get(at).is_some_and(|t| t.is("ONLY")) {
        at += 1;
    }
    let first = tokens.get(at).and_then(Token::ident)?;
    if tokens.get(at + 1) == Some(&Token::Punct('.')) {
        let second = tokens.get(at + 2).and_then(Token::ident)?;
        Some((first, second, at + 3))
    } else {
        Some(("public".to_owned(), first, at + 1))
    }
}

/// `(a, b, c)` at `at`: the column names.
fn column_list(tokens: &[Token], at: usize) -> Option<Vec<String>> {
    if tokens.get(at) != Some(&Token::Punct('(')) {
        return None;
    }
    let mut columns = Vec::new();
    for token in &tokens[at + 1..] {
        match token {
            Token::Punct(')') => return Some(columns),
            Token::Punct(',') => {}
            other => columns.push(other.ident()?),
        }
    }
    None
}

/// The rows of an `INSERT ... VALUES (...), (...)`: parentheses opened at
/// depth zero after `VALUES`.
fn count_rows(tokens: &[Token]) -> u64 {
    let Some(values) = tokens.iter().position(|t| t.is("VALUES")) else { return 0 };
    let mut depth = 0i32;
    let mut rows = 0;
    for token in &tokens[values + 1..] {
        match token {
            Token::Punct('(') => {
                if depth == 0 {
                    rows += 1;
                }
                depth += 1;
            }
            Token::Punct(')') => depth -= 1,
            _ => {}
        }
    }
    rows
}

/// The byte offset of the first `(` outside quotes.
fn top_level_paren(text: &str) -> Option<usize> {
    let mut quoted = false;
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// The roles a statement names: owners, grantees, `FOR ROLE`, `GRANTED BY`,
/// `AUTHORIZATION`, and the roles granted in `GRANT role TO role`.
fn role_refs(tokens: &[Token]) -> Vec<String> {
    const PRIVILEGES: [&str; 16] = [
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "REFERENCES",
        "TRIGGER",
        "CREATE",
        "CONNECT",
        "TEMPORARY",
        "TEMP",
        "EXECUTE",
        "USAGE",
        "SET",
        "ALTER",
        "ALL",
    ];
    const NOT_ROLES: [&str; 5] = ["PUBLIC", "CURRENT_USER", "SESSION_USER", "CURRENT_ROLE", "GROUP"];
    let mut roles = Vec::new();
    let list = |from: usize, roles: &mut Vec<String>| {
        let mut i = from;
        while let Some(token) = tokens.get(i) {
            match token {
                Token::Word(w) if NOT_ROLES.contains(&w.as_str()) => {}
                Token::Word(w)
                    if matches!(w.as_str(), "WITH" | "GRANTED" | "CASCADE" | "RESTRICT" | "USING" | "IN") =>
                {
                    break;
                }
                Token::Word(_) | Token::Quoted(_) => roles.push(token.ident().unwrap_or_default()),
                _ => break,
            }
            if tokens.get(i + 1) != Some(&Token::Punct(',')) {
                break;
            }
            i += 2;
        }
    };
    let head = |k: &str| tokens.first().is_some_and(|t| t.is(k));
    let sets = |upto: usize| tokens[..upto].iter().any(|t| t.is("SET") || t.is("RENAME"));
    for (i, token) in tokens.iter().enumerate() {
        let previous = |k: &str| i.checked_sub(1).and_then(|p| tokens.get(p)).is_some_and(|p| p.is(k));
        // `SET x TO y` and `RENAME TO` name no role.
        let names_roles = (token.is("TO") && (head("GRANT") || !sets(i)))
            || (token.is("FROM") && head("REVOKE"))
            || (token.is("ROLE") && previous("FOR"))
            || (token.is("BY") && previous("GRANTED"))
            || token.is("AUTHORIZATION");
        if names_roles {
            list(i + 1, &mut roles);
        }
    }
    if head("GRANT")
        && tokens.get(1).is_some_and(|t| !matches!(t, Token::Word(w) if PRIVILEGES.contains(&w.as_str())))
    {
        list(1, &mut roles);
    }
    roles.sort();
    roles.dedup();
    roles
}

/// Reads what [`plan`] needs from the database.
pub async fn facts(client: &tokio_postgres::Client) -> Result<Facts, BoxError> {
    let strings =
        |rows: Vec<tokio_postgres::Row>| rows.iter().map(|r| r.get::<_, String>(0)).collect::<HashSet<_>>();
    let pairs = |rows: Vec<tokio_postgres::Row>| {
        rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, String>(1))).collect::<HashSet<_>>()
    };
    const SYSTEM: &str = "n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')";
    let version = client.query_one("select current_setting('server_version_num')::int", &[]).await?.get(0);
    let settings = strings(client.query("select name from pg_settings", &[]).await?);
    let roles = strings(client.query("select rolname::text from pg_roles", &[]).await?);
    let extensions = client
        .query("select name::text, installed_version is not null from pg_available_extensions", &[])
        .await?
        .iter()
        .map(|r| (r.get::<_, String>(0), r.get::<_, bool>(1)))
        .collect();
    let schemas = strings(client.query("select nspname::text from pg_namespace", &[]).await?);
    let relations = pairs(
        client
            .query(
                &format!(
                    "select n.nspname::text, c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                     where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and {SYSTEM}"
                ),
                &[],
            )
            .await?,
    );
    let types = pairs(
        client
            .query(
                &format!(
                    "select n.nspname::text, t.typname::text from pg_type t join pg_namespace n on n.oid = t.typnamespace \
                     where {SYSTEM} and t.typtype in ('e', 'd', 'r', 'm', 'c') \
                     and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')"
                ),
                &[],
            )
            .await?,
    );
    let functions = pairs(
        client
            .query(
                &format!(
                    "select n.nspname::text, p.proname::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace \
                     where {SYSTEM}"
                ),
                &[],
            )
            .await?,
    );
    let publications = strings(client.query("select pubname::text from pg_publication", &[]).await?);
    let mut columns: HashMap<(String, String), Vec<Column>> = HashMap::new();
    for (schema, table) in MOVED {
        let rows = client
            .query(
                "select a.attname::text, format_type(a.atttypid, a.atttypmod), \
                 a.attgenerated <> '' or a.attidentity = 'a' \
                 from pg_attribute a where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped \
                 order by a.attnum",
                &[&format!("{}.{}", quote_ident(schema), quote_ident(table))],
            )
            .await?;
        if rows.is_empty() {
            continue;
        }
        let list =
            rows.iter().map(|r| Column { name: r.get(0), type_sql: r.get(1), computed: r.get(2) }).collect();
        columns.insert((schema.to_owned(), table.to_owned()), list);
    }
    Ok(Facts {
        server_version_num: version,
        settings,
        roles,
        extensions,
        schemas,
        relations,
        types,
        functions,
        publications,
        columns,
    })
}

/// What the load did to the tables this gateway keeps: per table, rows in
/// the dump and rows moved (the others were here already and are kept).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub tables: Vec<(String, u64, u64)>,
}

/// Runs the plan with `psql` in one transaction: all or nothing.
pub async fn load(
    bindir: &Path,
    admin: &tokio_postgres::Config,
    plan: &Plan,
    work: &Path,
) -> Result<Loaded, BoxError> {
    let files = [
        ("roles.sql", &plan.roles_sql),
        ("schema.sql", &plan.schema_sql),
        ("data.sql", &plan.data_sql),
        ("move.sql", &plan.move_sql),
    ];
    let mut psql = crate::backup::pg_command(bindir, "psql", admin);
    psql.env("PGAPPNAME", "gateway import").args([
        "-X",
        "-q",
        "-A",
        "-t",
        "--no-password",
        "--single-transaction",
        "-v",
        "ON_ERROR_STOP=1",
    ]);
    for (n, (name, text)) in files.iter().enumerate() {
        let path = work.join(name);
        let mut file = crate::backup::private_file(&path)?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        psql.arg("-f").arg(&path);
        // Supabase's restore sets this between the schema and the data.
        if n == 1 {
            psql.args(["-c", "SET session_replication_role = replica"]);
        }
    }
    let output = tokio::task::spawn_blocking(move || psql.output()).await??;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("ERROR") || l.contains("FATAL") || l.contains("DETAIL"))
            .collect();
        let shown = if errors.is_empty() { stderr.trim().to_owned() } else { errors.join("\n") };
        return Err(format!("the load failed and was rolled back, nothing changed:\n{shown}").into());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut loaded = Loaded::default();
    for line in stdout.lines() {
        let parts: Vec<&str> = line.split('|').collect();
        if let [MARK, table, staged, moved] = parts[..] {
            loaded.tables.push((table.to_owned(), staged.parse().unwrap_or(0), moved.parse().unwrap_or(0)));
        }
    }
    Ok(loaded)
}

/// Where the project's stored objects are: a folder in Storage's file-backend
/// layout, or an S3 bucket and prefix.
pub enum ObjectSource {
    Folder(PathBuf),
    S3 { bucket: String, prefix: String },
}

impl ObjectSource {
    /// `s3://bucket/prefix` or a folder.
    pub fn parse(text: &str) -> Result<Self, BoxError> {
        match text.strip_prefix("s3://") {
            Some(rest) => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    return Err(format!("--objects {text}: no bucket named").into());
                }
                Ok(ObjectSource::S3 {
                    bucket: bucket.to_owned(),
                    prefix: prefix.trim_matches('/').to_owned(),
                })
            }
            None => Ok(ObjectSource::Folder(PathBuf::from(text))),
        }
    }

    /// The store and the prefix under which one folder per bucket is. A
    /// folder may be given at Storage's `FILE_STORAGE_BACKEND_PATH`, which
    /// holds `<GLOBAL_S3_BUCKET>/<TENANT_ID>/<bucket>`: the first folder at
    /// most two levels down that holds one of `buckets` is taken.
    fn open(&self, buckets: &[String]) -> Result<(Arc<dyn ObjectStore>, String), BoxError> {
        match self {
            ObjectSource::S3 { bucket, prefix } => {
                // Credentials and endpoint from AWS_* variables, as the AWS
                // tools read them.
                let store = object_store::aws::AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .build()
                    .map_err(|e| format!("the S3 source s3://{bucket}: {e}"))?;
                let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
                Ok((Arc::new(store), prefix))
            }
            ObjectSource::Folder(folder) => {
                let holds = |dir: &Path| buckets.iter().any(|b| dir.join(b).is_dir());
                let mut candidates = vec![folder.clone()];
                for _ in 0..2 {
                    let mut next = Vec::new();
                    for dir in &candidates {
                        if holds(dir) {
                            let store = object_store::local::LocalFileSystem::new_with_prefix(dir)?;
                            return Ok((Arc::new(store), String::new()));
                        }
                        if let Ok(entries) = std::fs::read_dir(dir) {
                            next.extend(
                                entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()),
                            );
                        }
                    }
                    candidates = next;
                }
                if let Some(dir) = candidates.iter().find(|d| holds(d)) {
                    let store = object_store::local::LocalFileSystem::new_with_prefix(dir)?;
                    return Ok((Arc::new(store), String::new()));
                }
                Err(format!(
                    "{} holds no folder named after a bucket ({}), nor does any folder two levels down; give the \
                     folder holding one folder per bucket (Storage's <FILE_STORAGE_BACKEND_PATH>/<GLOBAL_S3_BUCKET>/<TENANT_ID>)",
                    folder.display(),
                    buckets.join(", ")
                )
                .into())
            }
        }
    }
}

/// What the copy of the objects did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Copied {
    pub copied: u64,
    pub bytes: u64,
    /// Already in this gateway's store (an import run again).
    pub present: u64,
    /// Rows whose bytes the source does not have: `bucket/name`.
    pub missing: Vec<String>,
}

/// Copies the bytes of every row of `storage.objects` that this gateway's
/// store lacks from `source`, where Storage keeps them at
/// `<bucket>/<name>/<version>` (or, for objects from before versions and
/// copies made through Storage's S3 protocol, `<bucket>/<name>`).
pub async fn copy_objects(
    client: &tokio_postgres::Client,
    source: &ObjectSource,
    target: &Backend,
) -> Result<Copied, BoxError> {
    let rows = client
        .query(
            "select bucket_id, name, version from storage.objects where version is not null order by bucket_id, name",
            &[],
        )
        .await?;
    let mut copied = Copied::default();
    if rows.is_empty() {
        return Ok(copied);
    }
    let mut buckets: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
    buckets.dedup();
    let (store, prefix) = source.open(&buckets)?;
    for row in &rows {
        let (bucket, name, version): (String, String, String) = (row.get(0), row.get(1), row.get(2));
        let object = format!("{bucket}/{name}");
        let Ok(path) = keys::version_path(&bucket, &name, &version) else {
            copied.missing.push(format!("{object} (a name this store cannot hold)"));
            continue;
        };
        if target.store.head(&path).await.is_ok() {
            copied.present += 1;
            continue;
        }
        let mut found = None;
        for candidate in [format!("{prefix}{bucket}/{name}/{version}"), format!("{prefix}{bucket}/{name}")] {
            let Ok(candidate) = object_store::path::Path::parse(&candidate) else { continue };
            if let Ok(got) = store.get(&candidate).await {
                found = Some(got);
                break;
            }
        }
        let Some(got) = found else {
            copied.missing.push(object);
            continue;
        };
        let size = got.meta.size;
        let written = target
            .write(&path, got.into_stream().map(|chunk| chunk.map_err(|e| e.to_string())), u64::MAX)
            .await
            .map_err(|e| format!("could not write {path}: {e:?}"))?;
        if written.size != size {
            return Err(format!("{object}: copied {} of {size} bytes", written.size).into());
        }
        copied.copied += 1;
        copied.bytes += size;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let pairs =
            |items: &[(&str, &str)]| items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        let column = |name: &str, type_sql: &str, computed: bool| Column {
            name: name.into(),
            type_sql: type_sql.into(),
            computed,
        };
        Facts {
            server_version_num: 150008,
            settings: set(&[
                "statement_timeout",
                "client_encoding",
                "session_replication_role",
                "search_path",
            ]),
            roles: set(&["postgres", "anon", "authenticated", "service_role", "authenticator"]),
            extensions: [("pgcrypto".to_owned(), true), ("pg_trgm".to_owned(), false)].into_iter().collect(),
            schemas: set(&["public", "auth", "storage", "extensions"]),
            relations: pairs(&[("auth", "users"), ("storage", "objects"), ("public", "products")]),
            types: HashSet::new(),
            functions: pairs(&[("auth", "uid")]),
            publications: set(&["supabase_realtime"]),
            columns: [(
                ("auth".to_owned(), "users".to_owned()),
                vec![
                    column("id", "uuid", false),
                    column("email", "character varying(255)", false),
                    column("confirmed_at", "timestamp with time zone", true),
                ],
            )]
            .into_iter()
            .collect(),
        }
    }

    fn planned(roles: &str, schema: &str, data: &str) -> Plan {
        plan(&Dump { roles: roles.into(), schema: schema.into(), data: data.into() }, &facts())
    }

    fn said(plan: &Plan) -> Vec<String> {
        plan.findings.iter().map(|f| format!("{:?} {}", f.verdict, f.object)).collect()
    }

    #[test]
    fn what_this_database_lacks_is_named_and_left_out() {
        // (file, statement, finding, kept)
        let cases: &[(File, &str, &str, bool)] = &[
            (File::Schema, "SET transaction_timeout = 0;", "Skipped setting transaction_timeout", false),
            (File::Schema, "SET statement_timeout = 0;", "", true),
            (
                File::Schema,
                "CREATE EXTENSION IF NOT EXISTS \"pg_graphql\" WITH SCHEMA \"graphql\";",
                "Skipped extension pg_graphql",
                false,
            ),
            (
                File::Schema,
                "CREATE EXTENSION IF NOT EXISTS \"pgcrypto\" WITH SCHEMA \"extensions\";",
                "",
                false,
            ),
            (
                File::Schema,
                "CREATE EXTENSION IF NOT EXISTS \"pg_trgm\" WITH SCHEMA \"extensions\";",
                "",
                true,
            ),
            (
                File::Schema,
                "CREATE TABLE IF NOT EXISTS \"public\".\"products\" (\"id\" bigint);",
                "Refused table public.products",
                false,
            ),
            (File::Schema, "CREATE TABLE IF NOT EXISTS \"public\".\"notes\" (\"id\" bigint);", "", true),
            (
                File::Schema,
                "CREATE OR REPLACE FUNCTION \"auth\".\"uid\"() RETURNS uuid AS $$ select 1 $$;",
                "Skipped function auth.uid",
                false,
            ),
            (
                File::Schema,
                "ALTER TABLE \"public\".\"notes\" OWNER TO \"supabase_admin\";",
                "Skipped role supabase_admin",
                false,
            ),
            (File::Schema, "ALTER TABLE \"public\".\"notes\" OWNER TO \"postgres\";", "", true),
            (
                File::Schema,
                "GRANT ALL ON TABLE \"public\".\"notes\" TO \"dashboard_user\";",
                "Skipped role dashboard_user",
                false,
            ),
            (File::Schema, "CREATE PUBLICATION \"supabase_realtime\";", "", false),
            (
                File::Schema,
                "ALTER PUBLICATION \"supabase_realtime\" ADD TABLE ONLY \"public\".\"notes\";",
                "",
                true,
            ),
            (
                File::Schema,
                "ALTER PUBLICATION \"other\" ADD TABLE ONLY \"public\".\"notes\";",
                "Skipped publication other",
                false,
            ),
            (File::Roles, "CREATE ROLE \"anon\";", "Skipped role anon", false),
            (File::Roles, "CREATE ROLE \"supabase_admin\";", "Skipped role supabase_admin", false),
            (
                File::Roles,
                "ALTER ROLE \"authenticator\" SET \"statement_timeout\" TO '8s';",
                "Skipped role authenticator",
                false,
            ),
            (File::Roles, "CREATE ROLE \"reporting\";", "", true),
            (
                File::Data,
                "INSERT INTO \"auth\".\"oauth_clients\" (\"id\") VALUES ('a'), ('b');",
                "Skipped auth.oauth_clients",
                false,
            ),
            (
                File::Data,
                "INSERT INTO \"public\".\"gone\" (\"id\") VALUES (1);",
                "Refused public.gone",
                false,
            ),
            (File::Data, "INSERT INTO \"public\".\"products\" (\"id\") VALUES (1);", "", true),
            (
                File::Data,
                "SELECT pg_catalog.setval('\"auth\".\"refresh_tokens_id_seq\"', 1, true);",
                "",
                false,
            ),
            (File::Data, "SELECT pg_catalog.setval('\"public\".\"notes_id_seq\"', 4, true);", "", true),
        ];
        for (file, statement, finding, kept) in cases {
            let (roles, schema, data) = match file {
                File::Roles => (*statement, "", ""),
                File::Schema => ("", *statement, ""),
                File::Data => ("", "", *statement),
            };
            let plan = planned(roles, schema, data);
            let expected: Vec<String> = if finding.is_empty() { vec![] } else { vec![finding.to_string()] };
            assert_eq!(said(&plan), expected, "{statement}");
            let out = format!("{}{}{}", plan.roles_sql, plan.schema_sql, plan.data_sql);
            assert_eq!(out.contains(statement), *kept, "{statement}: {out}");
        }
    }

    #[test]
    fn roles_the_dump_makes_may_be_named_after() {
        let plan = planned(
            "CREATE ROLE \"reporting\";",
            "GRANT SELECT ON TABLE \"public\".\"notes\" TO \"reporting\";",
            "",
        );
        assert!(plan.findings.is_empty(), "{:?}", plan.findings);
        assert!(plan.schema_sql.contains("TO \"reporting\""));
    }

    #[test]
    fn rows_of_the_gateways_tables_are_staged_and_moved_column_by_column() {
        let data = "COPY \"auth\".\"users\" (\"id\", \"email\", \"is_sso_user\", \"oauth_thing\") FROM stdin;\n\
                    0b5e\ta@b.c\tf\tx\n\\.\n";
        let plan = planned("", "", data);
        assert_eq!(said(&plan), ["Adapted auth.users"]);
        assert!(plan.findings[0].reason.contains("oauth_thing"), "{}", plan.findings[0].reason);
        assert!(
            plan.data_sql.contains("CREATE UNLOGGED TABLE \"_gateway_import\".\"auth.users\""),
            "{}",
            plan.data_sql
        );
        assert!(plan.data_sql.contains("COPY \"_gateway_import\".\"auth.users\" (\"id\", \"email\", \"is_sso_user\", \"oauth_thing\") FROM stdin;\n0b5e\ta@b.c\tf\tx\n\\.\n"));
        assert!(
            plan.move_sql.contains("INSERT INTO \"auth\".\"users\" (\"id\", \"email\") SELECT \"id\"::uuid, \"email\"::character varying(255)"),
            "{}",
            plan.move_sql
        );
    }

    #[test]
    fn inserts_are_counted_by_rows() {
        let tokens = split::tokens("INSERT INTO t (a, b) VALUES (1, '(x'), (2, f(3)), (3, 'y');");
        assert_eq!(count_rows(&tokens), 3);
    }

    #[test]
    fn role_references_are_found_where_roles_are_named() {
        let cases: &[(&str, &[&str])] = &[
            ("GRANT ALL ON TABLE \"t\" TO \"anon\", \"authenticated\";", &["anon", "authenticated"]),
            ("GRANT \"a\" TO \"b\" GRANTED BY \"c\";", &["a", "b", "c"]),
            ("REVOKE ALL ON SCHEMA \"s\" FROM PUBLIC;", &[]),
            (
                "ALTER DEFAULT PRIVILEGES FOR ROLE \"postgres\" IN SCHEMA \"public\" GRANT ALL ON TABLES TO \"anon\";",
                &["anon", "postgres"],
            ),
            ("ALTER ROLE \"x\" SET \"search_path\" TO \"$user\", \"public\";", &[]),
            ("ALTER TABLE \"t\" RENAME TO \"u\";", &[]),
            (
                "CREATE POLICY \"p\" ON \"t\" FOR SELECT TO \"authenticated\" USING (true);",
                &["authenticated"],
            ),
            ("CREATE SCHEMA \"s\" AUTHORIZATION \"owner\";", &["owner"]),
        ];
        for (sql, expected) in cases {
            assert_eq!(role_refs(&split::tokens(sql)), *expected, "{sql}");
        }
    }
}
