//! The physical limit of S5 (performance.md §5): how many bcrypt cost-10
//! verifications per second this machine does on all its cores, with nothing
//! else in the way. `bench/auth.sh` runs it next to the login benchmark.
//!
//! Usage: `bcrypt_ceiling [seconds]` (default 5); prints `<verifications/s>`.

use std::time::{Duration, Instant};

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let hash = bcrypt::hash("bench-password", 10).expect("hash");
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..cores)
        .map(|_| {
            let hash = hash.clone();
            std::thread::spawn(move || {
                let mut done = 0u64;
                while Instant::now() < deadline {
                    assert!(!bcrypt::verify("wrong-password", &hash).expect("verify"));
                    done += 1;
                }
                done
            })
        })
        .collect();
    let total: u64 = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    println!("{:.1}", total as f64 / start.elapsed().as_secs_f64());
}
