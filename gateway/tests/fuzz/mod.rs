//! Fuzzing the whole request path: requests of every shape, valid and not,
//! driven through the gateway's real router (`gateway::app`) in this process
//! with `tower::ServiceExt::oneshot`, over a real PostgreSQL holding the shop
//! fixture. Every answer must be below 500 and nothing may panic.
//!
//! A request is written in a small text form, which is also the form of the
//! corpus files (`tests/fuzz/corpus/*.http`) and of the failures printed:
//!
//! ```text
//! POST /rest/v1/products?select=id
//! apikey: $ANON
//! authorization: Bearer $USER
//!
//! {"name":"x"}
//! ```
//!
//! The first line is the method and the target; header lines follow up to an
//! empty line; everything after it is the body (one final newline dropped).
//! `$ANON`, `$SERVICE`, `$USER`, `$REFRESH` and `$USER_ID` stand for the keys,
//! a user's access and refresh tokens and its id, filled in when sent.

pub mod generate;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderName, HeaderValue, Method, Request, Uri};
use futures::StreamExt;
use tower::ServiceExt;

/// One request as generated or read from the corpus, before the tokens are
/// filled in.
#[derive(Clone, Debug)]
pub struct FuzzRequest {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl FuzzRequest {
    /// Parses the text form described in the module documentation.
    pub fn parse(text: &[u8]) -> Option<Self> {
        let (head, body) = match find(text, b"\n\n") {
            Some(at) => (&text[..at], &text[at + 2..]),
            None => (text, &b""[..]),
        };
        let body = body.strip_suffix(b"\n").unwrap_or(body).to_vec();
        let head = std::str::from_utf8(head).ok()?;
        let mut lines = head.lines();
        let (method, target) = lines.next()?.split_once(' ')?;
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_owned(), value.trim_start().as_bytes().to_vec()))
            .collect();
        Some(Self { method: method.to_owned(), target: target.to_owned(), headers, body })
    }

    /// The text form; bytes that are not UTF-8 print lossily, so a printed
    /// failure is a readable starting point for a corpus file.
    pub fn print(&self) -> String {
        let mut text = format!("{} {}\n", self.method, self.target);
        for (name, value) in &self.headers {
            text.push_str(&format!("{name}: {}\n", String::from_utf8_lossy(value)));
        }
        text.push('\n');
        let body = String::from_utf8_lossy(&self.body);
        if body.len() > 2_000 {
            text.push_str(&format!(
                "{}... ({} bytes in all)",
                &body[..body.floor_char_boundary(2_000)],
                body.len()
            ));
        } else {
            text.push_str(&body);
        }
        text.push('\n');
        text
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// What the placeholders stand for in this run.
#[derive(Clone)]
pub struct Tokens {
    pub anon: String,
    pub service: String,
    pub user: String,
    pub refresh: String,
    pub user_id: String,
}

impl Tokens {
    fn fill(&self, text: &[u8]) -> Vec<u8> {
        if !text.contains(&b'$') {
            return text.to_vec();
        }
        let mut text = String::from_utf8_lossy(text).into_owned();
        // Longest names first: `$USER_ID` before `$USER`.
        for (name, value) in [
            ("$USER_ID", &self.user_id),
            ("$SERVICE", &self.service),
            ("$REFRESH", &self.refresh),
            ("$ANON", &self.anon),
            ("$USER", &self.user),
        ] {
            text = text.replace(name, value);
        }
        text.into_bytes()
    }
}

/// How one request ended when it broke the rule.
#[derive(Debug)]
pub struct Failure {
    pub request: FuzzRequest,
    pub what: String,
}

/// Counts panics anywhere in the process (handlers, spawned tasks, blocking
/// threads), including ones a task boundary would otherwise turn into an
/// error answer.
pub static PANICS: AtomicUsize = AtomicUsize::new(0);

pub fn count_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
}

/// The request as the router receives it, or `None` when no HTTP server would
/// ever pass it on (a method, header name or header value, such as one with a
/// line break, that hyper itself refuses). The target is percent-encoded
/// where it must be, as a client library would send it.
pub fn build(request: &FuzzRequest, tokens: &Tokens, peer: SocketAddr) -> Option<Request<Body>> {
    let method = Method::from_bytes(request.method.as_bytes()).ok()?;
    let target = String::from_utf8(tokens.fill(request.target.as_bytes())).ok()?;
    let uri: Uri = sendable(&target).parse().ok()?;
    let mut builder = Request::builder().method(method).uri(uri);
    for (name, value) in &request.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        let value = HeaderValue::from_bytes(&tokens.fill(value)).ok()?;
        builder = builder.header(name, value);
    }
    let mut built = builder.body(Body::from(request.body.clone())).ok()?;
    built.extensions_mut().insert(ConnectInfo(peer));
    Some(built)
}

/// A target as a client could send it: what `http::Uri` refuses is
/// percent-encoded, byte by byte.
pub fn sendable(target: &str) -> String {
    if target.parse::<axum::http::Uri>().is_ok() {
        return target.to_owned();
    }
    let mut out = String::new();
    for byte in target.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Longest any one answer may take: far above the slowest legitimate one, so
/// only a hang trips it.
const ANSWER_DEADLINE: Duration = Duration::from_secs(30);

/// Sends one request through a clone of the router and reads its whole body.
/// `Ok((status, error code))` or a failure's description.
pub async fn send(router: axum::Router, request: Request<Body>) -> Result<(u16, Option<String>), String> {
    let task = tokio::spawn(async move {
        let response = router.oneshot(request).await.expect("the router's error type is Infallible");
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await;
        (status, body)
    });
    match tokio::time::timeout(ANSWER_DEADLINE, task).await {
        Err(_) => Err(format!("no answer within {ANSWER_DEADLINE:?}")),
        Ok(Err(join)) if join.is_panic() => Err("the handler panicked".to_owned()),
        Ok(Err(join)) => Err(format!("the request's task ended: {join}")),
        Ok(Ok((_, Err(e)))) => Err(format!("the body broke off: {e}")),
        Ok(Ok((status, Ok(body)))) if status >= 500 => {
            let text = String::from_utf8_lossy(&body);
            Err(format!("{status}: {}", &text[..text.floor_char_boundary(400)]))
        }
        Ok(Ok((status, Ok(body)))) => Ok((status, error_code(&body))),
    }
}

/// The `code` of an error body in any of the three shapes.
fn error_code(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let code = value.get("code").or_else(|| value.get("error_code"))?;
    Some(code.as_str().map_or_else(|| code.to_string(), str::to_owned))
}

/// What a run saw.
#[derive(Default, Debug)]
pub struct Tally {
    pub sent: usize,
    /// Requests no HTTP server would pass on (see [`build`]).
    pub unsendable: usize,
    /// Answers by hundreds: `by_class[2]` counts the 2xx, and so on (1xx..4xx).
    pub by_class: [usize; 5],
    /// Every failure, kept or not.
    pub failed: usize,
    /// How often each status and error code came back by service, e.g.
    /// `400 PGRST100 rest`.
    pub answers: std::collections::HashMap<String, usize>,
    pub failures: Vec<Failure>,
}

/// Sends every request, `concurrency` at a time, and tallies the answers.
/// Failures beyond the first `keep` are counted but not kept.
pub async fn run<I>(
    router: &axum::Router,
    tokens: &Tokens,
    requests: I,
    concurrency: usize,
    keep: usize,
    mut progress: impl FnMut(&Tally),
) -> Tally
where
    I: Iterator<Item = FuzzRequest>,
{
    let mut tally = Tally::default();
    let mut peers = 0u16;
    let answers = futures::stream::iter(requests)
        .map(|request| {
            // A few client addresses, so the auth rate limits let some
            // sign-ins through in every five minutes.
            peers = peers.wrapping_add(1);
            let peer = SocketAddr::from(([127, 0, 0, 1 + (peers % 4) as u8], 40_000 + peers % 1000));
            let built = build(&request, tokens, peer);
            let router = router.clone();
            async move {
                let outcome = match built {
                    Some(built) => Some(send(router, built).await),
                    None => None,
                };
                (request, outcome)
            }
        })
        .buffer_unordered(concurrency);
    futures::pin_mut!(answers);
    while let Some((request, outcome)) = answers.next().await {
        tally.sent += 1;
        match outcome {
            None => tally.unsendable += 1,
            Some(Ok((status, code))) => {
                tally.by_class[(status / 100).clamp(1, 4) as usize] += 1;
                let service = request.target.split('/').nth(1).unwrap_or_default();
                let answer = format!("{status} {} {service}", code.unwrap_or_else(|| "-".to_owned()));
                let seen = tally.answers.entry(answer.clone()).or_default();
                *seen += 1;
                // `FUZZ_SHOW="400 - rest"` prints the first requests given an answer.
                if *seen <= 5 && std::env::var("FUZZ_SHOW").is_ok_and(|show| show == answer) {
                    eprintln!("== {answer}\n{}", request.print());
                }
            }
            Some(Err(what)) => {
                tally.failed += 1;
                if tally.failures.len() < keep {
                    tally.failures.push(Failure { request, what });
                }
            }
        }
        progress(&tally);
    }
    tally
}

impl Tally {
    /// The `n` most frequent answers, most frequent first.
    pub fn top_answers(&self, n: usize) -> String {
        let mut answers: Vec<_> = self.answers.iter().collect();
        answers.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        answers
            .iter()
            .take(n)
            .map(|(answer, count)| format!("{answer}: {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The corpus: every `*.http` file of `tests/fuzz/corpus`, by name.
pub fn corpus() -> Vec<(String, FuzzRequest)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "http"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let request = FuzzRequest::parse(&text).unwrap_or_else(|| panic!("{name}: not a request"));
            (name, request)
        })
        .collect()
}
