//! The process's log: one subscriber, and repeated failures folded into
//! summaries.
//!
//! - Lines go to stderr, with terminal colours only when stderr is a terminal:
//!   a file, a pipe, journald or `docker logs` get plain text.
//! - During a database outage every request fails for the same few causes, and
//!   a line per request filled 81 MB in 70 s. [`first_in_a_while`]
//!   lets the first occurrence of a cause through, in full; after it the
//!   occurrences are counted, and at most one `… (N more like this in the last
//!   Xs)` line per cause and interval reports them. A cause quiet for a whole
//!   interval is forgotten: its next occurrence is logged in full again.
//! - Counts still pending when the gateway exits are reported by [`flush`].

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, Once};
use std::time::{Duration, Instant};

use tracing::Level;
use tracing_subscriber::EnvFilter;

/// The default of `--log-repeat-interval`.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(10);

/// Distinct causes remembered at once; beyond them, new causes share one count
/// (an error text carrying a value that changes on every request must not grow
/// the table without end).
const MAX_CAUSES: usize = 256;
const OTHER_CAUSES: &str = "(other causes)";

/// The driver's debug line for each statement prints its parameters, and a
/// request's settings are parameters: `request.headers` holds the API key and
/// the bearer token. So that `RUST_LOG=debug` never logs them, this target
/// stays at info whatever `RUST_LOG` says (the SQL text, in
/// `tokio_postgres::prepare`, has no values and stays available).
const NEVER_BELOW_INFO: &str = "tokio_postgres::query=info";

/// How log lines are written (`--log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text per event, the request's span fields in front.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `fields`, `target`,
    /// and `span`/`spans` with the request's fields), for log collectors.
    Json,
}

/// Installs the process-wide subscriber: `RUST_LOG`, or info with the HTTP and
/// database libraries at warn, on stderr, in `format`.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn,tokio_postgres=warn"))
        .add_directive(NEVER_BELOW_INFO.parse().unwrap_or_else(|_| tracing::Level::INFO.into()));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_ansi(false).init(),
    }
}

static INTERVAL_MS: AtomicU64 = AtomicU64::new(DEFAULT_INTERVAL.as_millis() as u64);

/// Sets how often a repeated cause is summarised (`--log-repeat-interval`).
pub fn set_repeat_interval(interval: Duration) {
    let ms = u64::try_from(interval.as_millis()).unwrap_or(u64::MAX).max(1);
    INTERVAL_MS.store(ms, Ordering::Relaxed);
}

fn interval() -> Duration {
    Duration::from_millis(INTERVAL_MS.load(Ordering::Relaxed))
}

static REPEATS: LazyLock<Mutex<Repeats>> = LazyLock::new(|| Mutex::new(Repeats::default()));

/// Whether this occurrence of `cause` is to be logged now. When it is not, it
/// was counted, and a summary line at `level` saying `message` reports it
/// within an interval.
pub fn first_in_a_while(level: Level, message: &'static str, cause: &str) -> bool {
    let mut repeats = REPEATS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let first = repeats.occur(level, message, cause, Instant::now());
    if !first {
        start_reporter();
    }
    first
}

/// Reports every pending count at once (at exit).
pub fn flush() {
    let summaries = REPEATS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).drain(Instant::now());
    summaries.iter().for_each(Summary::emit);
}

/// A thread that wakes a few times per interval and reports the causes whose
/// interval is over. It is a thread, not a task, so that it serves every
/// runtime of the process and keeps none of them alive.
fn start_reporter() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("log-repeats".into()).spawn(|| {
            loop {
                std::thread::sleep((interval() / 4).clamp(Duration::from_millis(50), Duration::from_secs(1)));
                let now = Instant::now();
                let due =
                    REPEATS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).due(now, interval());
                due.iter().for_each(Summary::emit);
            }
        });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the thread that summarises repeated log lines");
        }
    });
}

/// The counts of repeated causes.
#[derive(Default)]
pub struct Repeats {
    causes: HashMap<String, Cause>,
}

struct Cause {
    level: Level,
    message: &'static str,
    since: Instant,
    more: u64,
}

/// One summary line.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub level: Level,
    pub message: &'static str,
    pub cause: String,
    pub more: u64,
    pub over: Duration,
}

impl Summary {
    fn emit(&self) {
        let line = format!(
            "{} ({} more like this in the last {:.0}s)",
            self.message,
            self.more,
            self.over.as_secs_f64()
        );
        let cause = &self.cause;
        match self.level {
            Level::ERROR => tracing::error!(cause = %cause, "{line}"),
            Level::WARN => tracing::warn!(cause = %cause, "{line}"),
            _ => tracing::info!(cause = %cause, "{line}"),
        }
    }
}

impl Repeats {
    /// Records an occurrence; true when it is the first in a while.
    pub fn occur(&mut self, level: Level, message: &'static str, cause: &str, now: Instant) -> bool {
        if let Some(known) = self.causes.get_mut(cause) {
            known.more += 1;
            return false;
        }
        if self.causes.len() >= MAX_CAUSES && cause != OTHER_CAUSES {
            return self.occur(level, message, OTHER_CAUSES, now);
        }
        self.causes.insert(cause.to_owned(), Cause { level, message, since: now, more: 0 });
        true
    }

    /// The summaries of causes whose interval is over; the causes stay counted
    /// for another interval, or are forgotten when nothing repeated.
    pub fn due(&mut self, now: Instant, interval: Duration) -> Vec<Summary> {
        let mut summaries = Vec::new();
        self.causes.retain(|cause, known| {
            let over = now.saturating_duration_since(known.since);
            if over < interval {
                return true;
            }
            if known.more == 0 {
                return false;
            }
            summaries.push(Summary {
                level: known.level,
                message: known.message,
                cause: cause.clone(),
                more: known.more,
                over,
            });
            known.since = now;
            known.more = 0;
            true
        });
        summaries.sort_by(|a, b| a.cause.cmp(&b.cause));
        summaries
    }

    /// Every pending count, whatever its age; the table is emptied.
    pub fn drain(&mut self, now: Instant) -> Vec<Summary> {
        let mut summaries: Vec<Summary> = self
            .causes
            .drain()
            .filter(|(_, known)| known.more > 0)
            .map(|(cause, known)| Summary {
                level: known.level,
                message: known.message,
                cause,
                more: known.more,
                over: now.saturating_duration_since(known.since),
            })
            .collect();
        summaries.sort_by(|a, b| a.cause.cmp(&b.cause));
        summaries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAILED: &str = "request failed";

    #[test]
    fn a_cause_is_logged_once_then_summarised_once_per_interval() {
        let mut repeats = Repeats::default();
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let second = Duration::from_secs(1);
        assert!(repeats.occur(Level::ERROR, FAILED, "database unavailable", at(0)));
        for n in 1..=500 {
            assert!(!repeats.occur(Level::ERROR, FAILED, "database unavailable", at(n)));
        }
        assert_eq!(repeats.due(at(900), second), []);
        let summaries = repeats.due(at(1_000), second);
        assert_eq!(summaries.len(), 1);
        assert_eq!((summaries[0].more, summaries[0].over), (500, second));
        assert_eq!(repeats.due(at(1_500), second), [], "one summary per interval");
        assert!(!repeats.occur(Level::ERROR, FAILED, "database unavailable", at(1_600)));
        assert_eq!(repeats.due(at(2_000), second)[0].more, 1);
        // A whole quiet interval: forgotten, and logged in full next time.
        assert_eq!(repeats.due(at(3_000), second), []);
        assert!(repeats.occur(Level::ERROR, FAILED, "database unavailable", at(3_100)));
    }

    #[test]
    fn causes_are_counted_apart_and_their_number_is_bounded() {
        let mut repeats = Repeats::default();
        let now = Instant::now();
        assert!(repeats.occur(Level::ERROR, FAILED, "a", now));
        assert!(repeats.occur(Level::WARN, "not ready", "b", now));
        assert!(!repeats.occur(Level::ERROR, FAILED, "a", now));
        for n in 0..MAX_CAUSES * 2 {
            repeats.occur(Level::ERROR, FAILED, &format!("unique {n}"), now);
        }
        assert!(repeats.causes.len() <= MAX_CAUSES + 1);
        let drained = repeats.drain(now);
        let counts: Vec<(&str, u64)> = drained.iter().map(|s| (s.cause.as_str(), s.more)).collect();
        assert!(counts.contains(&("a", 1)), "{counts:?}");
        assert!(counts.iter().any(|(cause, more)| *cause == OTHER_CAUSES && *more > 0), "{counts:?}");
        assert!(repeats.causes.is_empty());
    }
}
