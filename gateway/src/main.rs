//! The `gateway` command: see `gateway --help`.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    gateway::cli::run().await
}
