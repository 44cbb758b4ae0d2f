//! One Deno process per function, as Edge Runtime gives each function a
//! worker of its own (supabase/edge-runtime, `EdgeRuntime.userWorkers`):
//! started by the first request, reused by the next ones, stopped when it
//! has served nothing for the idle timeout, and stopped when a request
//! overruns the wall clock. Its permissions are narrowed with Deno's flags
//! (<https://docs.deno.com/runtime/fundamentals/security/>): the network
//! and imports from any host, reads of its own folder and `_shared/`, writes in a temporary folder of
//! its own, and only the variables the gateway gives it.
//!
//! The process listens on a Unix socket in that temporary folder (mode
//! 0700), so nothing but the gateway reaches it and nobody skips the JWT
//! check.
//!
//! While a worker runs, the gateway watches it:
//!
//! - its CPU time (`/proc/<pid>/stat`): a process that burns more than the
//!   CPU time limit while requests wait and none is answered is stopped, as
//!   Edge Runtime stops a worker over its CPU budget (546 `WORKER_LIMIT`);
//! - its files (its folder, `_shared/`, its import map): when one changes,
//!   the worker is let go, so the next request starts the new code, as
//!   `supabase functions serve` reloads; requests in flight finish on the old
//!   one;
//! - the operator's secrets: when one is set or unset, every worker is let
//!   go the same way, so the next request reads the new ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio::sync::{oneshot, watch};

use gateway_core::db::Db;

use crate::config::FunctionsConfig;
use crate::layout::{Function, Layout};

const BOOTSTRAP: &str = include_str!("bootstrap.js");
const MAIN: &str = include_str!("main.js.in");

/// Why a function could not be started.
#[derive(Debug)]
pub enum BootError {
    /// No `deno` was found, or it could not be run.
    NoDeno(String),
    /// The function's module failed (a syntax error, a missing import, a
    /// throw at the top level), exited, or never called `Deno.serve`.
    Failed(String),
}

/// The variables a function reads (`Deno.env`): Supabase's names and the
/// operator's secrets.
pub type Env = Vec<(String, String)>;

/// The running functions.
pub struct Workers {
    config: FunctionsConfig,
    pub layout: Layout,
    deno: Option<PathBuf>,
    deno_dir: PathBuf,
    db: Db,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    reaper: AtomicBool,
    /// The secrets' version the running workers were started with.
    secrets_version: Mutex<Option<String>>,
}

/// A function's worker, if it runs; its lock is held while one starts, so
/// the callers of one function wait for one start.
type Slot = tokio::sync::Mutex<Option<Arc<Worker>>>;

/// One function's process.
pub struct Worker {
    pub name: String,
    pub socket: PathBuf,
    function: Function,
    pid: Option<u32>,
    /// The function's files when it started ([`fingerprint`]).
    files: u64,
    /// Requests answered to the end, for the CPU time limit.
    answered: AtomicU64,
    /// Connections to its socket that finished an answer, for the next
    /// requests.
    idle: Mutex<Vec<crate::Connection>>,
    exited: watch::Receiver<bool>,
    /// Set when the gateway stops it, before the process is gone.
    stopped: AtomicBool,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    in_flight: AtomicUsize,
    last_used: Mutex<Instant>,
    /// Holds the socket and the function's writable folder; removed with
    /// the worker.
    _dir: tempfile::TempDir,
}

impl Worker {
    pub fn has_exited(&self) -> bool {
        self.stopped.load(Ordering::SeqCst) || *self.exited.borrow()
    }

    /// Stops the process; its requests in flight fail.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(kill) = self.kill.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = kill.send(());
        }
    }

    /// A kept-alive connection that is still open, if there is one (it may
    /// need a moment to be ready: `SendRequest::ready`).
    pub fn idle_connection(&self) -> Option<crate::Connection> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(connection) = idle.pop() {
            if !connection.is_closed() {
                return Some(connection);
            }
        }
        None
    }

    /// Keeps `connection`, whose answer is whole, for a next request; a
    /// closed one, or one past as many as requests come at once, is dropped.
    pub fn keep_connection(&self, connection: crate::Connection) {
        if self.has_exited() || connection.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < 256 {
            idle.push(connection);
        }
    }

    /// Whether callers must bring a valid JWT (`verify_jwt`).
    pub fn verify_jwt(&self) -> bool {
        self.function.verify_jwt
    }

    /// Counts a request until the returned guard drops (at the end of its
    /// answer's body), so an idle worker is never one still streaming.
    pub fn begin(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(self.clone())
    }
}

pub struct InFlight(Arc<Worker>);

impl InFlight {
    pub fn worker(&self) -> &Worker {
        &self.0
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        *self.0.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.0.answered.fetch_add(1, Ordering::SeqCst);
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Workers {
    pub fn new(config: FunctionsConfig, data_dir: &Path, db: Db) -> Result<Self, String> {
        let layout = Layout::load(crate::layout::find_dir(config.dir.as_deref()))?;
        let deno = crate::layout::find_deno(config.deno.as_deref());
        match (&layout.dir, &deno) {
            (Some(dir), Some(deno)) => {
                tracing::info!(functions = %dir.display(), deno = %deno.display(), "serving Edge Functions");
            }
            (Some(dir), None) => tracing::warn!(
                functions = %dir.display(),
                "no deno found (run scripts/setup.sh or set GATEWAY_FUNCTIONS_DENO): every function will answer BOOT_ERROR"
            ),
            (None, _) => {}
        }
        // Deno's own cache (`npm:` packages) lives with the gateway's data.
        let deno_dir = std::path::absolute(data_dir.join("deno")).map_err(|e| e.to_string())?;
        Ok(Self {
            config,
            layout,
            deno,
            deno_dir,
            db,
            slots: Mutex::new(HashMap::new()),
            reaper: AtomicBool::new(false),
            secrets_version: Mutex::new(None),
        })
    }

    pub fn config(&self) -> &FunctionsConfig {
        &self.config
    }

    /// `DENO_DIR`: Deno's cache of `npm:` packages and remote modules, in the
    /// data directory, which `gateway functions deploy` fills too.
    pub fn deno_dir(&self) -> &Path {
        &self.deno_dir
    }

    pub fn deno(&self) -> Option<&Path> {
        self.deno.as_deref()
    }

    /// The running worker of `function`, started when there is none. Callers
    /// of one function wait for the one start.
    pub async fn worker<F>(self: &Arc<Self>, function: &Function, env: F) -> Result<Arc<Worker>, BootError>
    where
        F: AsyncFnOnce() -> Result<Env, String>,
    {
        self.start_reaper();
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(function.name.clone())
            .or_default()
            .clone();
        let mut slot = slot.lock().await;
        if let Some(worker) = slot.as_ref().filter(|w| !w.has_exited()) {
            *worker.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            return Ok(worker.clone());
        }
        *slot = None;
        let env = env().await.map_err(BootError::Failed)?;
        // After `env`, which may have made the functions' secret key.
        self.note_secrets_version().await;
        let worker = Arc::new(self.boot(function, env).await?);
        self.watch_cpu(&worker);
        *slot = Some(worker.clone());
        Ok(worker)
    }

    /// The running worker of the function called `name`, without looking at
    /// its files: the watcher lets a worker go when they change, so a
    /// request to a warm function costs no file system calls. `None` while
    /// one starts.
    pub fn running(&self, name: &str) -> Option<Arc<Worker>> {
        let slot = self.slots.lock().unwrap_or_else(|e| e.into_inner()).get(name)?.clone();
        let worker = slot.try_lock().ok()?.as_ref().filter(|w| !w.has_exited())?.clone();
        *worker.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Some(worker)
    }

    /// Forgets `worker` (stopped for overrunning), so the next request starts
    /// a new one.
    pub fn retire(&self, worker: &Arc<Worker>) {
        worker.stop();
        self.let_go(worker);
    }

    async fn boot(&self, function: &Function, env: Env) -> Result<Worker, BootError> {
        let deno =
            self.deno.as_ref().ok_or_else(|| BootError::NoDeno("no deno executable was found".to_owned()))?;
        let dir = tempfile::Builder::new()
            .prefix("gateway-function-")
            .tempdir()
            .map_err(|e| BootError::NoDeno(format!("a temporary folder: {e}")))?;
        let socket = dir.path().join("socket");
        let bootstrap = dir.path().join("bootstrap.js");
        let main = dir.path().join("main.js");
        let write = |path: &Path, text: String| {
            std::fs::write(path, text).map_err(|e| BootError::NoDeno(format!("{}: {e}", path.display())))
        };
        write(&bootstrap, BOOTSTRAP.replace("__SOCKET__", &js_string(&socket.to_string_lossy())))?;
        write(
            &main,
            MAIN.replace("__BOOTSTRAP__", &js_string(&file_url(&bootstrap)))
                .replace("__ENTRYPOINT__", &js_string(&file_url(&function.entrypoint))),
        )?;

        let mut command = Command::new(deno);
        command.arg("run").arg("--no-prompt").arg("--no-lock");
        // The request the bootstrap hands on carries the caller's abort
        // signal, which should fire when the caller goes away, not when the
        // answer was delivered (Deno's legacy behaviour, which it warns of).
        command.arg("--unstable-no-legacy-abort");
        // Remote modules `gateway functions deploy` vendored beside the
        // function are read from there, not fetched.
        if function.dir.join("vendor").is_dir() {
            command.arg("--vendor");
        }
        match (&function.import_map, &function.deno_config) {
            (Some(map), _) => command.arg("--no-config").arg(format!("--import-map={}", map.display())),
            (None, Some(config)) => command.arg(format!("--config={}", config.display())),
            (None, None) => command.arg("--no-config"),
        };
        let names: Vec<&str> = env.iter().map(|(name, _)| name.as_str()).collect();
        command
            .arg("--allow-net")
            .arg("--allow-import")
            .arg(format!(
                "--allow-read={},{},{}",
                function.dir.display(),
                function.shared.display(),
                dir.path().display()
            ))
            .arg(format!("--allow-write={}", dir.path().display()))
            .arg(format!("--allow-env={}", names.join(",")))
            .arg(format!("--v8-flags=--max-old-space-size={}", self.config.memory_limit_mb))
            .arg(&main)
            .current_dir(&function.dir)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("DENO_DIR", &self.deno_dir)
            .env("DENO_NO_UPDATE_CHECK", "1")
            .env("NO_COLOR", "1")
            .env("TMPDIR", dir.path())
            // The system's certificates and proxy reach the npm registry as
            // npm itself reaches it; the function cannot read them.
            .env("DENO_TLS_CA_STORE", "system")
            .envs(PASSED_THROUGH.iter().filter_map(|name| Some((*name, std::env::var_os(name)?))))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let files = fingerprint(function);
        let mut child = command.spawn().map_err(|e| BootError::NoDeno(format!("{}: {e}", deno.display())))?;
        let pid = child.id();
        forward_logs(&function.name, child.stdout.take(), child.stderr.take());

        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let (exited_tx, exited) = watch::channel(false);
        let name = function.name.clone();
        tokio::spawn(async move {
            tokio::select! {
                status = child.wait() => {
                    tracing::info!(function = %name, status = ?status.ok(), "the function's process exited");
                }
                _ = kill_rx => {
                    let _ = child.kill().await;
                }
            }
            let _ = exited_tx.send(true);
        });
        let worker = Worker {
            name: function.name.clone(),
            socket,
            function: function.clone(),
            pid,
            files,
            answered: AtomicU64::new(0),
            idle: Mutex::new(Vec::new()),
            exited,
            stopped: AtomicBool::new(false),
            kill: Mutex::new(Some(kill_tx)),
            in_flight: AtomicUsize::new(0),
            last_used: Mutex::new(Instant::now()),
            _dir: dir,
        };
        let deadline = Instant::now() + self.config.boot_timeout.0;
        loop {
            if worker.has_exited() {
                return Err(BootError::Failed("the process exited before it served".to_owned()));
            }
            if tokio::net::UnixStream::connect(&worker.socket).await.is_ok() {
                return Ok(worker);
            }
            if Instant::now() > deadline {
                return Err(BootError::Failed(
                    "it did not call Deno.serve within the boot timeout".to_owned(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Stops `worker` when it burns more CPU time than the limit while its
    /// requests wait and none is answered. Checked every 100 ms; it ends with
    /// the worker.
    fn watch_cpu(&self, worker: &Arc<Worker>) {
        let limit = self.config.cpu_time_limit.0;
        let Some(pid) = worker.pid.filter(|_| !limit.is_zero()) else { return };
        let weak = Arc::downgrade(worker);
        tokio::spawn(async move {
            // The CPU time and the answers counted when the worker last went
            // idle or last answered.
            let mut mark: Option<(u64, Duration)> = None;
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let Some(worker) = weak.upgrade() else { return };
                if worker.has_exited() {
                    return;
                }
                let Some(used) = cpu_time(pid) else { return };
                let answered = worker.answered.load(Ordering::SeqCst);
                let busy = worker.in_flight.load(Ordering::SeqCst) > 0;
                match mark {
                    Some((at, since)) if busy && at == answered => {
                        if used.saturating_sub(since) > limit {
                            tracing::error!(
                                function = %worker.name,
                                limit = ?limit,
                                "the function used more CPU time than its limit without answering; stopping it"
                            );
                            worker.stop();
                            return;
                        }
                    }
                    _ => mark = Some((answered, used)),
                }
            }
        });
    }

    /// Stops the workers idle for longer than the idle timeout, checking a
    /// few times per timeout, and lets go of those whose files or secrets
    /// changed, checking twice a second (secrets every two seconds, one
    /// query); it ends with the gateway's `Workers`.
    fn start_reaper(self: &Arc<Self>) {
        if self.reaper.swap(true, Ordering::SeqCst) {
            return;
        }
        self.start_watcher();
        let idle = self.config.idle_timeout.0;
        let every = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(10));
        let workers: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(workers) = workers.upgrade() else { return };
                let slots: Vec<_> =
                    workers.slots.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
                for slot in slots {
                    let Ok(mut slot) = slot.try_lock() else { continue };
                    let idle_for =
                        |w: &Worker| w.last_used.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
                    if let Some(worker) = slot.as_ref()
                        && (worker.has_exited()
                            || (worker.in_flight.load(Ordering::SeqCst) == 0 && idle_for(worker) >= idle))
                    {
                        tracing::debug!(function = %worker.name, "stopping an idle function");
                        worker.stop();
                        *slot = None;
                    }
                }
            }
        });
    }
}

impl Workers {
    fn start_watcher(self: &Arc<Self>) {
        let workers: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick: u64 = 0;
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                tick += 1;
                let Some(workers) = workers.upgrade() else { return };
                let running: Vec<Arc<Worker>> = {
                    let slots: Vec<_> =
                        workers.slots.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
                    slots.iter().filter_map(|slot| slot.try_lock().ok().and_then(|s| s.clone())).collect()
                };
                if running.is_empty() {
                    // The next worker to start notes the secrets it starts with.
                    *workers.secrets_version.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    continue;
                }
                for worker in &running {
                    let function = worker.function.clone();
                    let now = tokio::task::spawn_blocking(move || fingerprint(&function)).await.unwrap_or(0);
                    if now != worker.files {
                        tracing::info!(function = %worker.name, "the function's files changed; the next request starts it again");
                        workers.let_go(worker);
                    }
                }
                if tick.is_multiple_of(4) {
                    match crate::secrets::version(&workers.db).await {
                        Ok(version) => {
                            let previous = workers
                                .secrets_version
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .replace(version.clone());
                            if previous.is_some_and(|p| p != version) {
                                tracing::info!(
                                    "the functions' secrets changed; the next requests start them again"
                                );
                                for worker in &running {
                                    workers.let_go(worker);
                                }
                            }
                        }
                        Err(e) => {
                            tracing::debug!(error = %e, "could not read the functions' secrets version");
                        }
                    }
                }
            }
        });
    }

    /// Forgets `worker` without stopping it: the next request starts a new
    /// one, the requests in flight finish, and the process stops when the
    /// last of them lets the worker go.
    fn let_go(&self, worker: &Arc<Worker>) {
        let slot = self.slots.lock().unwrap_or_else(|e| e.into_inner()).get(&worker.name).cloned();
        if let Some(slot) = slot
            && let Ok(mut slot) = slot.try_lock()
            && slot.as_ref().is_some_and(|w| Arc::ptr_eq(w, worker))
        {
            *slot = None;
        }
    }

    /// The secrets' version the next workers start with, read when a worker
    /// starts so that the watcher compares against what they were given.
    pub async fn note_secrets_version(&self) {
        if self.secrets_version.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return;
        }
        if let Ok(version) = crate::secrets::version(&self.db).await {
            let mut kept = self.secrets_version.lock().unwrap_or_else(|e| e.into_inner());
            if kept.is_none() {
                *kept = Some(version);
            }
        }
    }
}

/// The CPU time (user and system, every thread) of process `pid` so far.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces; the fields that
    // follow it are fixed: utime and stime are the 12th and 13th after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // In clock ticks of USER_HZ, which Linux fixes at 100 for user space.
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A digest of the names, sizes and modification times of the files a
/// function runs from: its folder (but `node_modules`), `_shared/`, its
/// entry point and import map when they live elsewhere.
pub fn fingerprint(function: &Function) -> u64 {
    use std::hash::{Hash, Hasher};
    fn walk(dir: &Path, hasher: &mut impl Hasher, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if depth < 16 && entry.file_name() != "node_modules" {
                    walk(&entry.path(), hasher, depth + 1);
                }
            } else {
                stamp(&entry.path(), &meta, hasher);
            }
        }
    }
    fn stamp(path: &Path, meta: &std::fs::Metadata, hasher: &mut impl Hasher) {
        path.hash(hasher);
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    walk(&function.dir, &mut hasher, 0);
    walk(&function.shared, &mut hasher, 0);
    for file in [Some(&function.entrypoint), function.import_map.as_ref()].into_iter().flatten() {
        if let Ok(meta) = std::fs::metadata(file) {
            stamp(file, &meta, &mut hasher);
        }
    }
    hasher.finish()
}

/// What the process needs from the gateway's environment to fetch `npm:`
/// packages the way npm does on this machine.
const PASSED_THROUGH: &[&str] = &[
    "HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "DENO_CERT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "NPM_CONFIG_REGISTRY",
];

/// The function's `console` calls, in the gateway's log under the
/// function's name and the id of the request they were made for: the
/// bootstrap writes each call as one line, a record separator (0x1E) then
/// `{"level", "request_id", "message"}`. Anything else the process prints
/// (Deno's own messages, an uncaught error) is logged as it is, at `warn`
/// from stderr.
fn forward_logs(
    name: &str,
    stdout: Option<tokio::process::ChildStdout>,
    stderr: Option<tokio::process::ChildStderr>,
) {
    if let Some(stdout) = stdout {
        let name = name.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                log_line(&name, &line);
            }
        });
    }
    if let Some(stderr) = stderr {
        let name = name.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::warn!(function = %name, "{line}");
            }
        });
    }
}

#[derive(serde::Deserialize)]
struct LogLine {
    level: String,
    request_id: Option<String>,
    message: String,
}

fn log_line(name: &str, line: &str) {
    let Some(call) = line.strip_prefix('\u{1e}').and_then(|json| serde_json::from_str::<LogLine>(json).ok())
    else {
        tracing::info!(function = %name, "{line}");
        return;
    };
    let id = call.request_id.as_deref().unwrap_or("-");
    let message = call.message;
    match call.level.as_str() {
        "debug" => tracing::debug!(function = %name, request_id = %id, "{message}"),
        "warn" => tracing::warn!(function = %name, request_id = %id, "{message}"),
        "error" => tracing::error!(function = %name, request_id = %id, "{message}"),
        _ => tracing::info!(function = %name, request_id = %id, "{message}"),
    }
}

/// `text` as a JavaScript string literal (JSON's are).
fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// A `file:` URL of an absolute path, its bytes percent-encoded outside the
/// characters a path segment keeps.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            url.push(byte as char);
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_is_read_past_a_command_name_with_spaces() {
        let pid = std::process::id();
        assert!(cpu_time(pid).is_some(), "this process's own time");
        assert!(cpu_time(u32::MAX).is_none());
    }

    #[test]
    fn file_urls_escape_what_a_path_segment_cannot_hold() {
        assert_eq!(file_url(Path::new("/srv/my fn/index.ts")), "file:///srv/my%20fn/index.ts");
        assert_eq!(file_url(Path::new("/a/%b#?.ts")), "file:///a/%25b%23%3F.ts");
    }
}
