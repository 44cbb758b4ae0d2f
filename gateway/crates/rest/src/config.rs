//! Settings of the REST API.

/// PostgREST's settings that the REST API honours.
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "REST")]
pub struct RestConfig {
    /// Schemas the REST API exposes, comma-separated; the first is the default
    /// (PostgREST's `db-schemas`). Others are chosen with `Accept-Profile` /
    /// `Content-Profile`.
    #[arg(long, env = "GATEWAY_DB_SCHEMAS", default_value = "public", value_delimiter = ',')]
    pub db_schemas: Vec<String>,

    /// The most rows a read returns, whatever `limit` asks for (PostgREST's
    /// `db-max-rows`; Supabase's default is 1000).
    #[arg(long, env = "GATEWAY_MAX_ROWS", default_value_t = 1000)]
    pub max_rows: i64,

    /// Whether `select` may use aggregate functions (`count()`, `price.sum()`,
    /// ...; PostgREST's `db-aggregates-enabled`). PostgREST turns them off by
    /// default; hosted Supabase, which this gateway stands in for, has them
    /// on. Off, they answer 400 PGRST123 (`rel(count)` still works).
    #[arg(long, env = "GATEWAY_DB_AGGREGATES_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub aggregates_enabled: bool,

    /// Whether `Accept: application/vnd.pgrst.plan` answers with PostgreSQL's
    /// `EXPLAIN` of a read (PostgREST's `db-plan-enabled`, off by default
    /// there and on hosted Supabase, since a plan tells about the data).
    #[arg(long, env = "GATEWAY_DB_PLAN_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub plan_enabled: bool,
}
