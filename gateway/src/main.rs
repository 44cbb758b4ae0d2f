//! The `gateway` command: see `gateway --help`.

/// mimalloc instead of glibc's allocator: a request allocates and frees many
/// small buffers across two worker threads, and glibc's malloc and free took
/// about a tenth of the gateway's CPU time under load (perf, S2 of bench/run.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = match gateway::cli::parse() {
        Ok(cli) => cli,
        Err(exit) => return exit,
    };
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    if let Some(workers) = cli.workers() {
        runtime.worker_threads(workers);
    }
    match runtime.build() {
        Ok(runtime) => runtime.block_on(gateway::cli::run(cli)),
        Err(error) => {
            eprintln!("error: starting the runtime: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
