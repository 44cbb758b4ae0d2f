//! The console's Observe page (Studio's "Logs" and "Reports"): the
//! requests this gateway answered lately, filterable by service, status and
//! request id, and what its metrics say now: requests, errors and latency
//! percentiles over the last minutes, the connection pool, realtime's sockets,
//! channels, presences and the change feed's lag.
//!
//! The requests are a bounded ring in memory ([`Recent`]), fed by
//! `crate::requests::record` beside the metrics and the access log: the newest
//! [`CAPACITY`] of this gateway, lost on restart. Studio reads the same from
//! its log store (Logflare); a single binary keeps what an operator looks at
//! while something happens, and sends the rest to its log (`--access-log`).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::{
    Json,
    extract::{Query, State},
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::access::Operator;
use crate::AppState;

/// Requests kept: enough for the last minutes of a busy gateway, about
/// 200 bytes each.
pub const CAPACITY: usize = 5000;
/// The metrics' window and the width of each of its bars.
const WINDOW: Duration = Duration::from_secs(300);
const BUCKET: Duration = Duration::from_secs(10);
/// Entries an answer holds at most.
const MOST: usize = 500;

/// One answered request. The path has no query string, which can carry an
/// API key.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Milliseconds since the epoch, when the answer's head was ready.
    pub at: u64,
    #[serde(serialize_with = "method_name")]
    pub method: axum::http::Method,
    pub path: String,
    pub service: &'static str,
    pub status: u16,
    pub duration_ms: f64,
    pub request_id: String,
}

/// The newest requests, oldest first, but the console's own.
pub struct Recent {
    entries: Mutex<VecDeque<Entry>>,
    /// Where the console is served (`--console-path`).
    console_path: String,
}

impl Recent {
    pub fn new(console_path: &str) -> Self {
        Recent { entries: Mutex::new(VecDeque::new()), console_path: console_path.to_owned() }
    }

    /// Whether a request for `path` is kept: the console's own are not.
    pub fn keeps(&self, path: &str) -> bool {
        !super::is_console_path_of(&self.console_path, path)
    }

    pub fn push(&self, entry: Entry) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() == CAPACITY {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    fn snapshot(&self) -> Vec<Entry> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }
}

fn method_name<S: serde::Serializer>(method: &axum::http::Method, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(method.as_str())
}

/// Now, in milliseconds since the epoch.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct Filter {
    /// rest, auth, storage, realtime or gateway.
    service: Option<String>,
    /// A status (`404`) or a class (`4xx`).
    status: Option<String>,
    /// Part of a request id, as `x-request-id` carries it.
    request_id: Option<String>,
    limit: Option<usize>,
}

impl Filter {
    fn keeps(&self, entry: &Entry) -> bool {
        let service = self.service.as_deref().filter(|s| !s.is_empty()).is_none_or(|s| s == entry.service);
        let status = self.status.as_deref().map(str::trim).filter(|s| !s.is_empty()).is_none_or(|s| match s
            .strip_suffix("xx")
            .or_else(|| s.strip_suffix("XX"))
        {
            Some(class) => class.parse::<u16>().is_ok_and(|c| entry.status / 100 == c),
            None => s.parse::<u16>().is_ok_and(|code| code == entry.status),
        });
        let id = self
            .request_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .is_none_or(|id| entry.request_id.to_ascii_lowercase().contains(&id.to_ascii_lowercase()));
        service && status && id
    }
}

/// `GET /_/api/logs?service=&status=&requestId=&limit=`: `{entries,
/// capacity}`, newest first.
pub async fn logs(State(state): State<AppState>, _: Operator, Query(filter): Query<Filter>) -> Json<Value> {
    let limit = filter.limit.unwrap_or(100).clamp(1, MOST);
    let entries: Vec<Entry> =
        state.recent.snapshot().into_iter().rev().filter(|e| filter.keeps(e)).take(limit).collect();
    Json(json!({ "entries": entries, "capacity": CAPACITY }))
}

/// One bar of the charts.
#[derive(Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bucket {
    /// Its start, in milliseconds since the epoch.
    pub at: u64,
    pub requests: usize,
    /// Answers of status 500 and above.
    pub errors: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

/// The `q`-quantile of sorted `values` (nearest rank), 0 when empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn bucket(at: u64, mut durations: Vec<f64>, errors: usize) -> Bucket {
    durations.sort_by(f64::total_cmp);
    Bucket {
        at,
        requests: durations.len(),
        errors,
        p50_ms: quantile(&durations, 0.50),
        p95_ms: quantile(&durations, 0.95),
        p99_ms: quantile(&durations, 0.99),
    }
}

/// The window ending at `now`, bar by bar, and the whole window as one.
fn buckets(entries: &[Entry], now: u64) -> (Vec<Bucket>, Bucket) {
    let width = BUCKET.as_millis() as u64;
    let count = (WINDOW.as_millis() as u64 / width) as usize;
    let end = now - now % width + width;
    let start = end - width * count as u64;
    let mut bars: Vec<(Vec<f64>, usize)> = vec![(Vec::new(), 0); count];
    let (mut all, mut all_errors) = (Vec::new(), 0);
    for entry in entries.iter().filter(|e| e.at >= start && e.at < end) {
        let bar = &mut bars[((entry.at - start) / width) as usize];
        bar.0.push(entry.duration_ms);
        all.push(entry.duration_ms);
        if entry.status >= 500 {
            bar.1 += 1;
            all_errors += 1;
        }
    }
    let bars =
        bars.into_iter().enumerate().map(|(i, (d, e))| bucket(start + width * i as u64, d, e)).collect();
    (bars, bucket(start, all, all_errors))
}

/// `GET /_/api/metrics`: `{window, buckets, total, pool, realtime}`: the
/// requests of the last five minutes in ten-second bars, the pool now, and
/// realtime's sockets, topics (channels and presences each) and change lag.
pub async fn metrics(State(state): State<AppState>, _: Operator) -> Json<Value> {
    let (bars, total) = buckets(&state.recent.snapshot(), now_ms());
    let pool = state.db.pool_status();
    let realtime = &state.realtime;
    let topics: Vec<Value> = realtime
        .hub
        .topics_summary()
        .into_iter()
        .map(|(topic, private, channels, presences)| {
            json!({ "topic": topic, "private": private, "channels": channels, "presences": presences })
        })
        .collect();
    Json(json!({
        "windowSeconds": WINDOW.as_secs(),
        "bucketSeconds": BUCKET.as_secs(),
        "buckets": bars,
        "total": total,
        "pool": {
            "max": pool.max, "open": pool.open, "inUse": pool.open.saturating_sub(pool.available),
            "waiting": pool.waiting,
        },
        "realtime": {
            "sockets": realtime.open_sockets(),
            "channels": realtime.hub.channels(),
            "topics": topics,
            "changesLagSeconds": realtime.changes.lag(),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: u64, service: &'static str, status: u16, duration_ms: f64, id: &str) -> Entry {
        Entry {
            at,
            method: axum::http::Method::GET,
            path: "/x".to_owned(),
            service,
            status,
            duration_ms,
            request_id: id.to_owned(),
        }
    }

    #[test]
    fn filters_keep_a_service_a_status_or_its_class_and_part_of_an_id() {
        let e = entry(0, "rest", 404, 1.0, "Abc-123");
        // (service, status, part of the id, kept)
        type Case = (Option<&'static str>, Option<&'static str>, Option<&'static str>, bool);
        let cases: [Case; 9] = [
            (None, None, None, true),
            (Some("rest"), None, None, true),
            (Some("auth"), None, None, false),
            (None, Some("404"), None, true),
            (None, Some("4xx"), None, true),
            (None, Some("5xx"), None, false),
            (None, Some("nonsense"), None, false),
            (None, None, Some("abc"), true),
            (Some("rest"), Some("2xx"), Some("abc"), false),
        ];
        for (service, status, id, kept) in cases {
            let filter = Filter {
                service: service.map(str::to_owned),
                status: status.map(str::to_owned),
                request_id: id.map(str::to_owned),
                limit: None,
            };
            assert_eq!(filter.keeps(&e), kept, "{service:?} {status:?} {id:?}");
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_requests_only() {
        let recent = Recent::new("/_");
        assert!(
            !recent.keeps("/_/api/logs") && recent.keeps("/rest/v1/products"),
            "the console's own are not kept"
        );
        for i in 0..CAPACITY + 3 {
            recent.push(entry(i as u64, "rest", 200, 1.0, &i.to_string()));
        }
        let kept = recent.snapshot();
        assert_eq!(kept.len(), CAPACITY);
        assert_eq!(kept[0].request_id, "3");
    }

    #[test]
    fn bars_count_requests_and_errors_with_nearest_rank_percentiles() {
        let now = 1_000_005_000;
        let mut entries: Vec<Entry> = (1..=100).map(|i| entry(now - 1, "rest", 200, i as f64, "")).collect();
        entries.push(entry(now - 1, "auth", 503, 1000.0, ""));
        entries.push(entry(now - WINDOW.as_millis() as u64 - 20_000, "rest", 500, 1.0, "too old"));
        let (bars, total) = buckets(&entries, now);
        assert_eq!(bars.len(), 30);
        let last = bars.last().expect("bar");
        assert_eq!((last.requests, last.errors), (101, 1));
        assert_eq!((total.requests, total.errors), (101, 1));
        assert_eq!((total.p50_ms, total.p95_ms, total.p99_ms), (51.0, 96.0, 100.0));
        assert!(bars[..29].iter().all(|b| b.requests == 0));
    }
}
