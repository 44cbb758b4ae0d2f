//! The file-write limit of S7 (performance.md §4.3 and §5): how many 200 KB
//! files per second this machine writes on all its cores, each written as the
//! local store writes an upload (a staged file renamed into place, no fsync,
//! as `object_store`'s `LocalFileSystem` does by default). Each thread renames
//! over a ring of 64 names, so the disk holds at most 64 files per thread and
//! every rename also frees the file it replaces. `bench/storage.sh` runs it.
//!
//! Usage: `file_ceiling <dir> [seconds]` (default 3); prints `<files/s>`.

use std::io::Write;
use std::time::{Duration, Instant};

fn main() -> std::io::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".to_owned()));
    let seconds: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let body = vec![7u8; 200 * 1024];
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..cores)
        .map(|t| {
            let dir = dir.join(format!("t{t}"));
            let body = body.clone();
            std::thread::spawn(move || -> std::io::Result<u64> {
                std::fs::create_dir_all(&dir)?;
                let mut done = 0u64;
                while Instant::now() < deadline {
                    let staged = dir.join(format!("{}#1", done % 64));
                    let mut file = std::fs::File::create(&staged)?;
                    file.write_all(&body)?;
                    drop(file);
                    std::fs::rename(&staged, dir.join(format!("{}", done % 64)))?;
                    done += 1;
                }
                Ok(done)
            })
        })
        .collect();
    let mut total = 0;
    for worker in workers {
        total += worker.join().expect("worker")?;
    }
    println!("{:.1}", total as f64 / start.elapsed().as_secs_f64());
    Ok(())
}
