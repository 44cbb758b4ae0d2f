//! The `gateway` command: see `gateway --help`.

/// mimalloc instead of glibc's allocator: a request allocates and frees many
/// small buffers across two worker threads, and glibc's malloc and free took
/// about a tenth of the gateway's CPU time under load (perf, S2 of bench/run.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    gateway::cli::run().await
}
