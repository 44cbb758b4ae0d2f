//! The private PostgreSQL cluster the gateway runs when no database URL is given.
//!
//! - The server binaries are found on `PATH`, through `pg_config --bindir`, or
//!   under `/usr/lib/postgresql/<version>/bin` (Debian's layout), newest first.
//! - The cluster lives in `<data-dir>/postgres`, listens only on a Unix socket in
//!   its own directory (no TCP port), and trusts local connections: only its
//!   owner (and root) can reach a socket inside a 0700 directory.
//! - PostgreSQL refuses to run as root. When the gateway is root, the cluster runs
//!   as the `postgres` system user that Debian's package creates. If that user
//!   cannot reach the data directory (a checkout under `/root`, a `mktemp -d`
//!   folder), the cluster is kept in that user's home instead, at
//!   `~postgres/gateway/<hash of the data directory>`, and `<data-dir>/postgres`
//!   becomes a symbolic link to it: the user's own folders keep their permissions.
//!   Beside it, `<hash>.data-dir` records which data directory it belongs to,
//!   so that one whose data directory was deleted can be found
//!   ([`kept_clusters`]) and removed ([`remove_kept`], `gateway cluster`):
//!   deleting a data directory never silently leaves a database behind.
//! - The server runs in its own process group, so a Ctrl-C meant for the
//!   gateway does not kill the database under in-flight requests; the gateway
//!   stops it after draining them. It stays in the gateway's session, so in the
//!   gateway's scheduling group (see [`Cluster::start`]).
//! - A `postmaster.pid` left by a crash is removed when its process is gone, and
//!   a server left running by a killed gateway is reused.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

/// The superuser `initdb` creates; migrations run as it.
pub const SUPERUSER: &str = "postgres";
/// The database the gateway uses.
pub const DATABASE: &str = "postgres";
/// Names the socket file (`.s.PGSQL.5432`); no TCP port is opened.
const PORT: u16 = 5432;

/// What Realtime's change feed needs of the server (`crate::realtime::changes`):
/// logical decoding, a replication slot per database that uses the feed (each
/// test database has one, hence more than the default 10), and a cap on the
/// WAL a slot may hold while no gateway reads it, after which the server
/// invalidates the slot rather than fill the disk
/// (<https://www.postgresql.org/docs/15/runtime-config-replication.html>).
/// Given on the command line, so that a cluster made when the server ran with
/// `wal_level=replica` gets them at its next start.
pub const LOGICAL_DECODING: [&str; 3] =
    ["wal_level=logical", "max_replication_slots=100", "max_slot_wal_keep_size=1GB"];
/// `sun_path` holds 108 bytes including the terminating NUL.
const MAX_SOCKET_PATH: usize = 107;

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error(
        "PostgreSQL's server programs (initdb, pg_ctl, postgres) were not found on PATH, through \
         pg_config, or under /usr/lib/postgresql/*/bin; install them (Debian: apt-get install postgresql) \
         or pass --database-url"
    )]
    NoBinaries,
    #[error(
        "the gateway runs as root and PostgreSQL refuses to; create the `postgres` system user \
         (Debian's postgresql package does) or run the gateway as a normal user"
    )]
    NoUnprivilegedUser,
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("{command} failed: {output}")]
    Command { command: String, output: String },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> EmbeddedError {
    let what = what.into();
    move |source| EmbeddedError::Io { what, source }
}

/// The unprivileged user that runs the cluster when the gateway is root.
#[derive(Debug, Clone)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
    home: PathBuf,
}

/// A PostgreSQL cluster owned by the gateway.
#[derive(Debug, Clone)]
pub struct Cluster {
    bindir: PathBuf,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    owner: Option<Owner>,
    /// The cluster lives in the owner's home, not in the data directory.
    kept_outside: bool,
    /// Settings the server starts with besides [`LOGICAL_DECODING`] (WAL
    /// archiving, a recovery target: `crate::pitr`).
    settings: Vec<String>,
    /// How long [`Cluster::start`] waits for the server to accept connections.
    start_timeout: std::time::Duration,
}

impl Cluster {
    /// Prepares (but neither initialises nor starts) the cluster for `data_dir`.
    pub fn new(data_dir: &Path) -> Result<Self, EmbeddedError> {
        let bindir = find_bindir().ok_or(EmbeddedError::NoBinaries)?;
        let data_dir = std::path::absolute(data_dir).map_err(io("resolving the data directory"))?;
        let owner = if nix::unistd::geteuid().is_root() {
            let user = nix::unistd::User::from_name("postgres")
                .ok()
                .flatten()
                .ok_or(EmbeddedError::NoUnprivilegedUser)?;
            Some(Owner { uid: user.uid.as_raw(), gid: user.gid.as_raw(), home: user.dir })
        } else {
            None
        };
        create_dir(&data_dir, 0o711)?;
        let preferred = data_dir.join("postgres");
        let pgdata = match (&owner, fs::read_link(&preferred)) {
            (_, Ok(target)) => target,
            (Some(owner), Err(_)) if !reachable(&data_dir, owner) => {
                let canonical = fs::canonicalize(&data_dir).map_err(io("resolving the data directory"))?;
                let target = owner.home.join("gateway").join(short_hash(&canonical));
                if target.join("PG_VERSION").exists() {
                    // Same path, no link: this data directory was deleted and
                    // made again, and its old database is about to come back.
                    tracing::warn!(
                        cluster = %target.display(),
                        "reusing the PostgreSQL cluster a deleted data directory at this path left behind; \
                         for an empty database instead, stop the gateway, run `gateway cluster remove \
                         --data-dir {}` and start again",
                        canonical.display()
                    );
                }
                std::os::unix::fs::symlink(&target, &preferred).map_err(io(format!(
                    "linking {} to {}",
                    preferred.display(),
                    target.display()
                )))?;
                target
            }
            (_, Err(_)) => preferred,
        };
        let socket_dir = if pgdata.join(".s.PGSQL.5432").as_os_str().len() <= MAX_SOCKET_PATH {
            pgdata.clone()
        } else {
            std::env::temp_dir().join(format!("gateway-{}", short_hash(&pgdata)))
        };
        let kept_outside = owner.as_ref().is_some_and(|o| pgdata.starts_with(o.home.join("gateway")));
        let cluster = Self {
            bindir,
            pgdata,
            socket_dir,
            owner,
            kept_outside,
            settings: Vec::new(),
            start_timeout: std::time::Duration::from_secs(120),
        };
        for dir in [&cluster.pgdata, &cluster.socket_dir] {
            if let Some(parent) = dir.parent() {
                cluster.create_owned_dir(parent, 0o755)?;
            }
            cluster.create_owned_dir(dir, 0o700)?;
        }
        if kept_outside {
            let canonical = fs::canonicalize(&data_dir).map_err(io("resolving the data directory"))?;
            let record = origin_file(&cluster.pgdata);
            if fs::read_to_string(&record).ok().as_deref() != Some(&*canonical.to_string_lossy()) {
                fs::write(&record, canonical.as_os_str().as_encoded_bytes())
                    .map_err(io(format!("writing {}", record.display())))?;
            }
        }
        Ok(cluster)
    }

    /// The server starts with `settings` (`name=value`, as `postgres -c` takes
    /// them) besides the ones it always has; they are not written to its
    /// configuration files.
    pub fn with_settings(mut self, settings: Vec<String>) -> Self {
        self.settings = settings;
        self
    }

    /// [`Cluster::start`] waits this long for the server (a recovery replays
    /// WAL before it accepts connections).
    pub fn with_start_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// Whether the cluster lives in the `postgres` user's home rather than in
    /// the data directory (see the module's documentation).
    pub fn kept_outside(&self) -> bool {
        self.kept_outside
    }

    pub fn pgdata(&self) -> &Path {
        &self.pgdata
    }

    /// The folder of the server's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// The socket's port number (it names the socket file; no TCP port opens).
    pub fn port(&self) -> u16 {
        PORT
    }

    pub fn bindir(&self) -> &Path {
        &self.bindir
    }

    pub fn owner(&self) -> Option<&Owner> {
        self.owner.as_ref()
    }

    pub fn is_initialized(&self) -> bool {
        self.pgdata.join("PG_VERSION").exists()
    }

    /// Runs `initdb` if the cluster does not exist yet; true when it did.
    pub fn init(&self) -> Result<bool, EmbeddedError> {
        if self.is_initialized() {
            return Ok(false);
        }
        self.run(
            "initdb",
            [
                "--pgdata".as_ref(),
                self.pgdata.as_os_str(),
                "--username".as_ref(),
                SUPERUSER.as_ref(),
                "--auth=trust".as_ref(),
                "--encoding=UTF8".as_ref(),
                // C.UTF-8 sorts bytewise yet folds case beyond ASCII (ilike 'á').
                "--locale=C.UTF-8".as_ref(),
                "--no-instructions".as_ref(),
            ],
        )?;
        Ok(true)
    }

    /// Starts the server and waits until it accepts connections. A server already
    /// running on this cluster is reused; the result says whether this call
    /// started it.
    ///
    /// The gateway runs `postgres` itself rather than through `pg_ctl start`,
    /// which calls `setsid()`: a session of its own is an autogroup of its own
    /// to Linux's scheduler, which then shares the CPU between the gateway and
    /// PostgreSQL half and half, whatever each needs, and on the store's page
    /// made the gateway's p99 10 to 70 times its median (docs/benchmarks.md).
    /// The server keeps the gateway's session but gets a process group of its
    /// own, so a Ctrl-C meant for the gateway still does not reach it.
    pub fn start(&self) -> Result<bool, EmbeddedError> {
        if self.is_running() {
            tracing::info!(pgdata = %self.pgdata.display(), "reusing the PostgreSQL server already running");
            return Ok(false);
        }
        self.remove_stale_pid_file()?;
        let log_path = self.pgdata.join("server.log");
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io("opening the server's log"))?;
        if let Some(owner) = &self.owner {
            std::os::unix::fs::fchown(&log, Some(owner.uid), Some(owner.gid))
                .map_err(io("giving the server's log to its owner"))?;
        }
        let mut command = Command::new(self.bindir.join("postgres"));
        command
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-k")
            .arg(&self.socket_dir)
            .args(["-c", "listen_addresses=", "-c", "unix_socket_permissions=0700"])
            .args(LOGICAL_DECODING.iter().flat_map(|setting| ["-c", setting]))
            .args(self.settings.iter().flat_map(|setting| ["-c", setting.as_str()]))
            .arg("-p")
            .arg(PORT.to_string())
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(io("opening the server's log"))?)
            .stderr(log)
            .process_group(0);
        if let Some(owner) = &self.owner {
            command.uid(owner.uid).gid(owner.gid).env("HOME", &owner.home);
        }
        let mut server = command.spawn().map_err(io("starting postgres"))?;
        // As `pg_ctl start --wait`: ready when the postmaster writes "ready" as
        // the status line of its pid file (PostgreSQL's `PM_STATUS_READY`).
        let deadline = std::time::Instant::now() + self.start_timeout;
        loop {
            if let Ok(Some(status)) = server.try_wait() {
                return Err(self.start_failed(format!("postgres exited with {status}")));
            }
            if self.is_ready() {
                break;
            }
            if std::time::Instant::now() > deadline {
                return Err(self.start_failed(format!(
                    "postgres was not ready within {} s",
                    self.start_timeout.as_secs()
                )));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The server is the gateway's child: reap it when it exits, so that a
        // dead postmaster does not linger as a zombie that `is_running` sees.
        std::thread::Builder::new()
            .name("postgres-reaper".to_owned())
            .spawn(move || {
                let _ = server.wait();
            })
            .map_err(io("watching postgres"))?;
        Ok(true)
    }

    /// The pid file's status line says the server accepts connections.
    fn is_ready(&self) -> bool {
        fs::read_to_string(self.pgdata.join("postmaster.pid"))
            .is_ok_and(|text| text.lines().nth(7).is_some_and(|status| status.trim() == "ready"))
    }

    fn start_failed(&self, what: String) -> EmbeddedError {
        let mut output = what;
        if let Ok(log) = fs::read_to_string(self.pgdata.join("server.log")) {
            let tail: Vec<&str> = log.lines().rev().take(10).collect();
            output.push_str("\nserver.log:\n");
            output.push_str(&tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        }
        EmbeddedError::Command { command: "postgres".to_owned(), output }
    }

    /// Stops the server (`fast`: roll back open transactions, then exit), if it runs.
    pub fn stop(&self) -> Result<(), EmbeddedError> {
        self.stop_with("fast")
    }

    /// Stops the server with a `pg_ctl` shutdown mode (`smart`, `fast`, `immediate`).
    pub fn stop_with(&self, mode: &str) -> Result<(), EmbeddedError> {
        if !self.is_running() {
            return Ok(());
        }
        self.run(
            "pg_ctl",
            [
                "stop".as_ref(),
                "--wait".as_ref(),
                "--timeout=120".as_ref(),
                "--pgdata".as_ref(),
                self.pgdata.as_os_str(),
                "--mode".as_ref(),
                mode.as_ref(),
            ],
        )
        .map(|_| ())
    }

    /// A live postmaster owns this cluster's `postmaster.pid`.
    pub fn is_running(&self) -> bool {
        postmaster_running(&self.pgdata)
    }

    /// After a crash the pid file remains; if its process is gone (or is not a
    /// postgres any more), PostgreSQL could refuse to start, so remove it.
    fn remove_stale_pid_file(&self) -> Result<(), EmbeddedError> {
        let pid_file = self.pgdata.join("postmaster.pid");
        if pid_file.exists() && !self.is_running() {
            tracing::warn!(file = %pid_file.display(), "removing a stale postmaster.pid");
            fs::remove_file(&pid_file).map_err(io("removing a stale postmaster.pid"))?;
        }
        Ok(())
    }

    /// A libpq URL for the superuser on this cluster's socket, for `psql` and
    /// test tools. It carries no secret: only the cluster's owner and root may
    /// enter the socket's folder.
    pub fn superuser_url(&self) -> String {
        // libpq decodes `%XX` in URLs but not `+`, so anything but plain path
        // characters is percent-encoded.
        let host: String = self
            .socket_dir
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .map(|&b| {
                if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        format!("postgresql:///{DATABASE}?host={host}&port={PORT}&user={SUPERUSER}")
    }

    /// Connection settings for `user` on this cluster's socket.
    pub fn pg_config(&self, user: &str) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config.host_path(&self.socket_dir).port(PORT).user(user).dbname(DATABASE);
        config
    }

    /// A command that runs as the cluster's owner (`program` is looked up on
    /// `PATH` unless it is a path).
    pub fn command_as_owner(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir("/").stdin(Stdio::null()).process_group(0);
        if let Some(owner) = &self.owner {
            command.uid(owner.uid).gid(owner.gid).env("HOME", &owner.home);
        }
        command
    }

    /// Runs one of the server programs as the cluster's owner.
    pub fn run<I, S>(&self, program: &str, args: I) -> Result<Output, EmbeddedError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command_as_owner(self.bindir.join(program));
        command.args(args);
        let output = command.output().map_err(io(format!("running {program}")))?;
        if output.status.success() {
            return Ok(output);
        }
        let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stdout));
        if program == "pg_ctl"
            && let Ok(log) = fs::read_to_string(self.pgdata.join("server.log"))
        {
            let tail: Vec<&str> = log.lines().rev().take(10).collect();
            text.push_str("\nserver.log:\n");
            text.push_str(&tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        }
        Err(EmbeddedError::Command { command: program.to_owned(), output: text.trim().to_owned() })
    }

    /// Creates `dir` if missing, owned by the cluster's owner.
    pub fn create_owned_dir(&self, dir: &Path, mode: u32) -> Result<(), EmbeddedError> {
        let existed = dir.exists();
        create_dir(dir, mode)?;
        if let (Some(owner), false) = (&self.owner, existed) {
            std::os::unix::fs::chown(dir, Some(owner.uid), Some(owner.gid))
                .map_err(io(format!("giving {} to the postgres user", dir.display())))?;
        }
        Ok(())
    }
}

fn create_dir(dir: &Path, mode: u32) -> Result<(), EmbeddedError> {
    if dir.exists() {
        return Ok(());
    }
    fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(mode))
        .map_err(io(format!("setting the mode of {}", dir.display())))
}

/// `owner` may enter `dir`: every ancestor grants it search permission.
pub fn reachable(dir: &Path, owner: &Owner) -> bool {
    dir.ancestors().all(|ancestor| match fs::metadata(ancestor) {
        Ok(meta) => {
            let mode = meta.mode();
            if meta.uid() == owner.uid {
                mode & 0o100 != 0
            } else if meta.gid() == owner.gid {
                mode & 0o010 != 0
            } else {
                mode & 0o001 != 0
            }
        }
        Err(_) => false,
    })
}

/// Where a cluster kept in the `postgres` user's home records its data directory.
fn origin_file(pgdata: &Path) -> PathBuf {
    let mut name = pgdata.file_name().unwrap_or_default().to_owned();
    name.push(".data-dir");
    pgdata.with_file_name(name)
}

/// A cluster kept in `~postgres/gateway/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptCluster {
    pub path: PathBuf,
    /// The data directory it belongs to; `None` for clusters made before the
    /// gateway recorded it and not started since.
    pub data_dir: Option<PathBuf>,
    pub running: bool,
}

impl KeptCluster {
    /// Its data directory is gone, or no longer links to it: nothing uses it.
    pub fn orphaned(&self) -> bool {
        self.data_dir.as_ref().is_some_and(|dir| {
            let link = fs::read_link(dir.join("postgres")).ok();
            link.as_deref() != Some(self.path.as_path())
        })
    }
}

/// The clusters kept in the `postgres` user's home (only a gateway running as
/// root puts them there); none when there is no such user.
pub fn kept_clusters() -> Result<Vec<KeptCluster>, EmbeddedError> {
    let Some(user) = nix::unistd::User::from_name("postgres").ok().flatten() else {
        return Ok(Vec::new());
    };
    let folder = user.dir.join("gateway");
    let entries = match fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(format!("listing {}", folder.display()))(e)),
    };
    let mut clusters: Vec<KeptCluster> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir() && !path.is_symlink())
        .map(|path| {
            let data_dir = fs::read_to_string(origin_file(&path)).ok().map(PathBuf::from);
            let running = postmaster_running(&path);
            KeptCluster { path, data_dir, running }
        })
        .collect();
    clusters.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(clusters)
}

/// Deletes a kept cluster (its folder, its record and the data directory's
/// link to it). A running one is refused: a gateway may be serving from it.
pub fn remove_kept(cluster: &KeptCluster) -> Result<(), EmbeddedError> {
    if postmaster_running(&cluster.path) {
        return Err(EmbeddedError::Command {
            command: "gateway cluster remove".into(),
            output: format!(
                "PostgreSQL is running on {}; stop the gateway serving from it first",
                cluster.path.display()
            ),
        });
    }
    fs::remove_dir_all(&cluster.path).map_err(io(format!("removing {}", cluster.path.display())))?;
    let record = origin_file(&cluster.path);
    if record.exists() {
        fs::remove_file(&record).map_err(io(format!("removing {}", record.display())))?;
    }
    if let Some(link) = cluster.data_dir.as_ref().map(|dir| dir.join("postgres"))
        && fs::read_link(&link).ok().as_deref() == Some(cluster.path.as_path())
    {
        fs::remove_file(&link).map_err(io(format!("removing {}", link.display())))?;
    }
    Ok(())
}

/// The kept cluster of `data_dir`: the one its `postgres` link points at, or
/// the one that recorded it as its data directory (the directory may be gone).
pub fn kept_cluster_of(data_dir: &Path) -> Result<Option<KeptCluster>, EmbeddedError> {
    let absolute = std::path::absolute(data_dir).map_err(io("resolving the data directory"))?;
    let canonical = fs::canonicalize(&absolute).unwrap_or_else(|_| absolute.clone());
    let link = fs::read_link(absolute.join("postgres")).ok();
    Ok(kept_clusters()?.into_iter().find(|cluster| {
        link.as_deref() == Some(cluster.path.as_path())
            || cluster.data_dir.as_deref().is_some_and(|d| d == canonical || d == absolute)
    }))
}

/// A live postmaster owns the `postmaster.pid` in `pgdata`.
fn postmaster_running(pgdata: &Path) -> bool {
    let pid = fs::read_to_string(pgdata.join("postmaster.pid"))
        .ok()
        .and_then(|text| text.lines().next().and_then(|line| line.trim().parse::<u32>().ok()));
    pid.is_some_and(|pid| {
        fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim() == "postgres")
    })
}

fn short_hash(path: &Path) -> String {
    hex::encode(&Sha256::digest(path.as_os_str().as_encoded_bytes())[..8])
}

/// The directory holding `initdb`, `pg_ctl` and `postgres`.
pub fn find_bindir() -> Option<PathBuf> {
    let complete = |dir: &Path| ["initdb", "pg_ctl", "postgres"].iter().all(|p| dir.join(p).is_file());
    let from_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("initdb"))
            .find(|initdb| initdb.is_file())
            .and_then(|initdb| fs::canonicalize(initdb).ok())
            .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
    });
    let from_pg_config = || {
        Command::new("pg_config")
            .arg("--bindir")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
    };
    let from_debian = || {
        let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let version = entry.file_name().to_str()?.parse().ok()?;
                Some((version, entry.path().join("bin")))
            })
            .collect();
        versions.sort();
        versions.into_iter().rev().map(|(_, dir)| dir).find(|dir| complete(dir))
    };
    from_path
        .filter(|dir| complete(dir))
        .or_else(|| from_pg_config().filter(|dir| complete(dir)))
        .or_else(from_debian)
}

/// Reads the JWT secret kept in `path`, or makes a new random one and keeps it
/// there, readable by the owner only. True when it was made now.
pub fn load_or_create_secret(path: &Path) -> Result<(String, bool), EmbeddedError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Ok(text) = fs::read_to_string(path) {
        return Ok((text.trim().to_owned(), false));
    }
    if let Some(parent) = path.parent() {
        create_dir(parent, 0o711)?;
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| EmbeddedError::Io { what: "generating a secret".into(), source: e.into() })?;
    let secret = hex::encode(bytes);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io(format!("creating {}", path.display())))?;
    file.write_all(secret.as_bytes()).map_err(io(format!("writing {}", path.display())))?;
    Ok((secret, true))
}

/// Characters of a generated password (80 random bits as hex).
const PASSWORD_CHARS: usize = 20;

/// Reads the password kept in `path`, or makes a new one and keeps it there,
/// readable by the owner only. The file holds exactly the password. One from
/// before that rule (64 hex characters, of which the first 20 were the
/// password) is rewritten to hold just those 20. True when it was made now.
pub fn load_or_create_password(path: &Path) -> Result<(String, bool), EmbeddedError> {
    if let Ok(text) = fs::read_to_string(path) {
        let text = text.trim();
        if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            let password = text[..PASSWORD_CHARS].to_owned();
            write_private(path, &password, true)?;
            return Ok((password, false));
        }
        return Ok((text.to_owned(), false));
    }
    let mut bytes = [0u8; PASSWORD_CHARS / 2];
    getrandom::fill(&mut bytes)
        .map_err(|e| EmbeddedError::Io { what: "generating a password".into(), source: e.into() })?;
    let password = hex::encode(bytes);
    write_private(path, &password, false)?;
    Ok((password, true))
}

/// Writes `text` to `path` with mode 0600: a new file, or (`replace`) one put
/// in place of the old in one rename.
fn write_private(path: &Path, text: &str, replace: bool) -> Result<(), EmbeddedError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent() {
        create_dir(parent, 0o711)?;
    }
    let target = if replace { path.with_extension("new") } else { path.to_path_buf() };
    if replace {
        let _ = fs::remove_file(&target);
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&target)
        .map_err(io(format!("creating {}", target.display())))?;
    file.write_all(text.as_bytes()).map_err(io(format!("writing {}", target.display())))?;
    if replace {
        fs::rename(&target, path).map_err(io(format!("replacing {}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_superuser_url_encodes_the_socket_folder() {
        let cluster = Cluster {
            bindir: PathBuf::from("/usr/bin"),
            pgdata: PathBuf::from("/tmp/a b+c/postgres"),
            socket_dir: PathBuf::from("/tmp/a b+c/postgres"),
            owner: None,
            kept_outside: false,
            settings: Vec::new(),
            start_timeout: std::time::Duration::from_secs(120),
        };
        assert_eq!(
            cluster.superuser_url(),
            "postgresql:///postgres?host=/tmp/a%20b%2Bc/postgres&port=5432&user=postgres"
        );
    }

    #[test]
    fn a_password_file_holds_exactly_the_password_and_old_ones_are_cut_to_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("staff_password");
        let (password, created) = load_or_create_password(&path).expect("create");
        assert!(created);
        assert_eq!(password.len(), 20);
        assert_eq!(fs::read_to_string(&path).expect("file"), password);
        assert_eq!(fs::metadata(&path).expect("metadata").mode() & 0o777, 0o600);
        assert_eq!(load_or_create_password(&path).expect("load"), (password, false));

        // Written by an earlier gateway: 64 characters, the password first.
        let old = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        fs::write(&path, old).expect("old file");
        assert_eq!(load_or_create_password(&path).expect("load"), (old[..20].to_owned(), false));
        assert_eq!(fs::read_to_string(&path).expect("file"), &old[..20]);
        assert_eq!(fs::metadata(&path).expect("metadata").mode() & 0o777, 0o600);
    }

    #[test]
    fn secrets_are_made_once_and_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("jwt_secret");
        let (first, created) = load_or_create_secret(&path).expect("create");
        assert!(created);
        assert_eq!(first.len(), 64);
        let (second, created) = load_or_create_secret(&path).expect("load");
        assert!(!created);
        assert_eq!(first, second);
        let mode = fs::metadata(&path).expect("metadata").mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
