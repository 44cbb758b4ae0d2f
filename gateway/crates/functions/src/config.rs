//! Edge Functions' section of the gateway's configuration. The limits are
//! Supabase's (<https://supabase.com/docs/guides/functions/limits>): 256 MB
//! of memory and 150 s of wall clock per request on the free plan.

use std::path::PathBuf;

use gateway_core::config::Span;

#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Functions")]
pub struct FunctionsConfig {
    /// The folder of the functions, laid out as the Supabase CLI has it:
    /// `<name>/index.ts`, `_shared/`, and `../config.toml` with a
    /// `[functions.<name>]` table per function. Defaults to
    /// `supabase/functions` under the working directory, when there is one.
    #[arg(long = "functions-dir", id = "functions_dir", env = "GATEWAY_FUNCTIONS_DIR")]
    pub dir: Option<PathBuf>,

    /// The `deno` executable that runs the functions. Defaults to the one
    /// `scripts/setup.sh` installs from npm (`tools/deno/node_modules`, found
    /// from the working directory or the gateway's executable), then `deno`
    /// on the `PATH`.
    #[arg(long = "functions-deno", id = "functions_deno", env = "GATEWAY_FUNCTIONS_DENO")]
    pub deno: Option<PathBuf>,

    /// The URL functions reach the gateway at (their `SUPABASE_URL`).
    /// Defaults to `http://` and the `--listen` address (127.0.0.1 when it
    /// listens on every interface).
    #[arg(
        long = "functions-supabase-url",
        id = "functions_supabase_url",
        env = "GATEWAY_FUNCTIONS_SUPABASE_URL"
    )]
    pub supabase_url: Option<String>,

    /// Longest a request to a function may last. Without its status and
    /// headers by then the answer is 504 and the function's process is
    /// stopped; an answer still streaming then is cut off (the function sees
    /// its request aborted). Supabase's wall clock limit is 150 s.
    #[arg(
        long = "functions-wall-clock-limit",
        id = "functions_wall_clock_limit",
        env = "GATEWAY_FUNCTIONS_WALL_CLOCK_LIMIT",
        default_value = "150s"
    )]
    pub wall_clock_limit: Span,

    /// Heap of one function's process, in megabytes (V8's
    /// `--max-old-space-size`); a function that needs more is stopped and its
    /// requests answered 546 `WORKER_LIMIT`. Supabase's limit is 256 MB.
    #[arg(
        long = "functions-memory-limit-mb",
        id = "functions_memory_limit_mb",
        env = "GATEWAY_FUNCTIONS_MEMORY_LIMIT_MB",
        default_value_t = 256
    )]
    pub memory_limit_mb: u32,

    /// CPU time a function's process may burn while its requests wait and
    /// none is answered (read from `/proc`, so on Linux); over it the process
    /// is stopped and its requests answered 546 `WORKER_LIMIT`, as Edge
    /// Runtime stops a worker over its CPU budget (Supabase: 2 s). `0` turns
    /// the limit off.
    #[arg(
        long = "functions-cpu-time-limit",
        id = "functions_cpu_time_limit",
        env = "GATEWAY_FUNCTIONS_CPU_TIME_LIMIT",
        default_value = "2s"
    )]
    pub cpu_time_limit: Span,

    /// Longest a function's process may take to start serving (including
    /// fetching its `npm:` packages on a first start) before 503 `BOOT_ERROR`.
    #[arg(
        long = "functions-boot-timeout",
        id = "functions_boot_timeout",
        env = "GATEWAY_FUNCTIONS_BOOT_TIMEOUT",
        default_value = "60s"
    )]
    pub boot_timeout: Span,

    /// A function's process that served nothing for this long is stopped;
    /// the next request starts it again.
    #[arg(
        long = "functions-idle-timeout",
        id = "functions_idle_timeout",
        env = "GATEWAY_FUNCTIONS_IDLE_TIMEOUT",
        default_value = "5min"
    )]
    pub idle_timeout: Span,
}
