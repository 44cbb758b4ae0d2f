//! `gateway serve` with no database URL runs its own PostgreSQL: as root (also
//! from a folder other users cannot enter) and as a normal user; Ctrl-C leaves
//! no PostgreSQL behind; the next start reuses the data. A cluster kept outside
//! its data directory is named and can be removed, also once that directory is
//! gone; the staff password file holds exactly the printed password.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Running {
    child: Child,
    banner: Vec<String>,
    address: String,
    anon_key: String,
    service_key: String,
    log: PathBuf,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// Starts `binary serve` and waits for the banner with the URL and keys.
fn serve(binary: &Path, workdir: &Path, sql_root: &Path, user: Option<(u32, u32)>) -> Running {
    serve_with(binary, workdir, sql_root, user, &[])
}

/// The banner's extra lines (`staff e-mail:` ...), by label.
fn banner_value(lines: &[String], label: &str) -> Option<String> {
    lines.iter().find_map(|line| line.trim().strip_prefix(label).map(|rest| rest.trim().to_owned()))
}

fn serve_with(
    binary: &Path,
    workdir: &Path,
    sql_root: &Path,
    user: Option<(u32, u32)>,
    extra: &[String],
) -> Running {
    let log = workdir.join(format!("gateway-{}.log", Instant::now().elapsed().as_nanos()));
    let stderr = std::fs::File::create(&log).expect("log file");
    let mut command = Command::new(binary);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(workdir.join(".data"))
        .arg("--sql-root")
        .arg(sql_root)
        .args(extra)
        .current_dir(workdir)
        .env_remove("DATABASE_URL")
        .env_remove("JWT_SECRET")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid);
    }
    let mut child = command.spawn().expect("spawn gateway");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let (mut address, mut anon_key, mut service_key) = (String::new(), String::new(), String::new());
    let mut banner = Vec::new();
    let seeding = extra.iter().any(|a| a == "--seed");
    while service_key.is_empty() || (seeding && banner_value(&banner, "staff password:").is_none()) {
        let Some(Ok(line)) = lines.next() else {
            panic!("gateway exited early:\n{}", std::fs::read_to_string(&log).unwrap_or_default());
        };
        banner.push(line.clone());
        if let Some(rest) = line.trim().strip_prefix("API URL:") {
            address = rest.trim().to_owned();
        } else if let Some(rest) = line.trim().strip_prefix("anon key:") {
            anon_key = rest.trim().to_owned();
        } else if let Some(rest) = line.trim().strip_prefix("service_role key:") {
            service_key = rest.trim().to_owned();
        }
    }
    Running { child, banner, address, anon_key, service_key, log }
}

impl Running {
    fn ready_status(&self) -> u16 {
        let url = format!("{}/ready", self.address);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async { reqwest::get(url).await.map(|r| r.status().as_u16()).unwrap_or(0) })
    }

    /// Ctrl-C, then wait for a clean exit.
    fn interrupt(mut self) -> String {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGINT,
        )
        .expect("signal");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "gateway exited with {status}");
                break;
            }
            assert!(Instant::now() < deadline, "gateway did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Processes whose command line names `pgdata` (the postmaster does, with -D).
fn postgres_processes(pgdata: &Path) -> Vec<String> {
    let needle = pgdata.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cmdline.contains("postgres") && cmdline.contains(&needle)).then_some(cmdline)
        })
        .collect()
}

/// A process's group and session, from `/proc/<pid>/stat` (the fields after
/// the command's closing parenthesis: state, ppid, pgrp, session).
fn group_and_session(pid: u32) -> (i64, i64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let fields: Vec<&str> = stat.rsplit_once(')').expect("comm").1.split_whitespace().collect();
    (fields[2].parse().expect("pgrp"), fields[3].parse().expect("session"))
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The cluster's real directory (`.data/postgres` may be a link to it).
fn pgdata(workdir: &Path) -> PathBuf {
    std::fs::canonicalize(workdir.join(".data/postgres")).expect("pgdata")
}

fn run_twice_and_check(binary: &Path, workdir: &Path, sql_root: &Path, user: Option<(u32, u32)>) {
    let first = serve(binary, workdir, sql_root, user);
    assert_eq!(first.ready_status(), 200);
    let pgdata = pgdata(workdir);
    assert!(!postgres_processes(&pgdata).is_empty(), "postgres runs while serving");
    let postmaster: u32 = std::fs::read_to_string(pgdata.join("postmaster.pid"))
        .expect("postmaster.pid")
        .lines()
        .next()
        .and_then(|line| line.trim().parse().ok())
        .expect("the postmaster's pid");
    let (gateway_group, gateway_session) = group_and_session(first.child.id());
    let (server_group, server_session) = group_and_session(postmaster);
    assert_eq!(server_session, gateway_session, "PostgreSQL shares the gateway's scheduling group (session)");
    assert_ne!(
        server_group, gateway_group,
        "a Ctrl-C for the gateway's process group does not reach PostgreSQL"
    );
    let (anon, service) = (first.anon_key.clone(), first.service_key.clone());
    let log = first.interrupt();
    assert!(log.contains("initialised a new PostgreSQL cluster"), "{log}");
    assert!(log.contains("PostgreSQL stopped"), "{log}");
    assert!(postgres_processes(&pgdata).is_empty(), "Ctrl-C left PostgreSQL running");
    assert!(!pgdata.join("postmaster.pid").exists());

    let second = serve(binary, workdir, sql_root, user);
    assert_eq!(second.ready_status(), 200);
    assert_eq!((second.anon_key.clone(), second.service_key.clone()), (anon.clone(), service));
    let log = second.interrupt();
    assert!(!log.contains("initialised a new PostgreSQL cluster"), "the data was reused: {log}");
    assert!(!log.contains("applied migration"), "nothing to migrate twice: {log}");
    assert!(postgres_processes(&pgdata).is_empty());

    let mut keys = Command::new(binary);
    keys.args(["keys", "--data-dir"]).arg(workdir.join(".data")).env_remove("JWT_SECRET");
    if let Some((uid, gid)) = user {
        keys.uid(uid).gid(gid);
    }
    let output = keys.output().expect("gateway keys");
    assert!(String::from_utf8_lossy(&output.stdout).contains(&anon), "`gateway keys` prints the same keys");
}

#[test]
fn serve_runs_its_own_postgres_from_a_private_folder_and_stops_it_on_ctrl_c() {
    // A 0700 folder: other users, postgres among them, cannot enter it (like a
    // clone under /root or a `mktemp -d` folder).
    let workdir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(workdir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gateway"));
    run_twice_and_check(&binary, workdir.path(), &repo_root(), None);
    let secret = workdir.path().join(".data/jwt_secret");
    assert_eq!(std::fs::metadata(&secret).expect("secret").mode() & 0o777, 0o600);
    if is_root() {
        // The cluster went to the postgres user's home; the folder kept its mode.
        assert_eq!(std::fs::metadata(workdir.path()).expect("meta").mode() & 0o777, 0o700);
        let link = std::fs::read_link(workdir.path().join(".data/postgres")).expect("a link");
        assert!(link.to_string_lossy().contains("/gateway/"), "{}", link.display());
        let _ = std::fs::remove_dir_all(&link);
    }
}

/// Root runs the test above; here the gateway runs as an unprivileged user (as
/// a developer would), from a folder of that user's. Without root, the test
/// above already is the normal-user case.
#[test]
fn serve_runs_as_a_normal_user_too() {
    if !is_root() {
        eprintln!("not root: the other test already runs the gateway as a normal user");
        return;
    }
    let user = nix::unistd::User::from_name("nobody").expect("lookup").expect("the nobody user");
    let (uid, gid) = (user.uid.as_raw(), user.gid.as_raw());
    let base = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let workdir = base.path().join("home");
    std::fs::create_dir(&workdir).expect("mkdir");
    // The user's own copy of the program and the SQL, wherever the checkout is.
    let binary = workdir.join("gateway");
    std::fs::copy(env!("CARGO_BIN_EXE_gateway"), &binary).expect("copy binary");
    for dir in ["sql", "policies"] {
        let from = repo_root().join(dir);
        let to = workdir.join(dir);
        std::fs::create_dir(&to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
    let status =
        Command::new("chown").arg("-R").arg(format!("{uid}:{gid}")).arg(&workdir).status().expect("chown");
    assert!(status.success());
    std::fs::set_permissions(&workdir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    run_twice_and_check(&binary, &workdir, &workdir, Some((uid, gid)));
    let pgdata = workdir.join(".data/postgres");
    assert!(
        !std::fs::symlink_metadata(&pgdata).expect("meta").is_symlink(),
        "a normal user keeps the cluster in place"
    );
    assert_eq!(std::fs::metadata(&pgdata).expect("meta").uid(), uid);
}

/// `make run` serves the shop with `config/shop.args`: the demo catalogue, a
/// staff user who can sign in with the printed credentials, and no public
/// sign-up (any signed-in user is staff). A second start adds nothing twice.
#[test]
fn the_shops_configuration_seeds_the_demo_and_refuses_sign_ups() {
    let workdir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(workdir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let args: Vec<String> = std::fs::read_to_string(repo_root().join("config/shop.args"))
        .expect("config/shop.args")
        .lines()
        .map(str::to_owned)
        .filter(|l| !l.is_empty())
        .collect();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gateway"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let mut counts = Vec::new();
    let password_file = workdir.path().join(".data/staff_password");
    let mut passwords: Vec<String> = Vec::new();
    for start in 0..3 {
        match start {
            // An earlier gateway kept 64 characters, of which the first 20
            // were the password.
            1 => std::fs::write(&password_file, format!("{}{}", passwords[0], "ab".repeat(22)))
                .expect("old file"),
            // A deleted file: a new password, given to the staff user.
            2 => std::fs::remove_file(&password_file).expect("delete the password file"),
            _ => {}
        }
        let running = serve_with(&binary, workdir.path(), &repo_root(), None, &args);
        let email = banner_value(&running.banner, "staff e-mail:").expect("staff e-mail printed");
        let password = banner_value(&running.banner, "staff password:").expect("staff password printed");
        assert_eq!(
            std::fs::read_to_string(&password_file).expect("password file"),
            password,
            "start {start}"
        );
        assert_eq!(password.len(), 20);
        passwords.push(password.clone());
        let (address, anon) = (running.address.clone(), running.anon_key.clone());
        let (signed_in, signup, products) = runtime.block_on(async {
            let client = reqwest::Client::new();
            let signed_in = client
                .post(format!("{address}/auth/v1/token?grant_type=password"))
                .header("apikey", &anon)
                .json(&serde_json::json!({"email": email, "password": password}))
                .send()
                .await
                .expect("sign in");
            let status = signed_in.status().as_u16();
            let session: serde_json::Value = signed_in.json().await.expect("session");
            let signup = client
                .post(format!("{address}/auth/v1/signup"))
                .header("apikey", &anon)
                .json(&serde_json::json!({"email": "intruder@example.com", "password": "secret-password"}))
                .send()
                .await
                .expect("signup");
            let signup = (signup.status().as_u16(), signup.json::<serde_json::Value>().await.expect("json"));
            let products = client
                .head(format!("{address}/rest/v1/products?select=*"))
                .header("apikey", &anon)
                .bearer_auth(session["access_token"].as_str().unwrap_or(""))
                .header("prefer", "count=exact")
                .send()
                .await
                .expect("count");
            let range = products.headers()["content-range"].to_str().expect("range").to_owned();
            (status, signup, range)
        });
        assert_eq!(signed_in, 200, "the staff user signs in");
        assert_eq!(signup.0, 422, "{}", signup.1);
        assert_eq!(signup.1["code"], "signup_disabled");
        counts.push(products);
        running.interrupt();
    }
    let total: i64 = counts[0].split('/').nth(1).and_then(|t| t.parse().ok()).expect("a count");
    assert!(total >= 45, "{total} products seeded");
    assert!(counts.iter().all(|c| *c == counts[0]), "later starts seeded nothing more: {counts:?}");
    assert_eq!(passwords[1], passwords[0], "the old file's password is kept");
    assert_ne!(passwords[2], passwords[0], "a deleted file gets a new password");
    if nix::unistd::geteuid().is_root()
        && let Ok(link) = std::fs::read_link(workdir.path().join(".data/postgres"))
    {
        let _ = std::fs::remove_dir_all(link);
    }
}

/// Runs `gateway cluster <args>` and returns whether it succeeded, and its output.
fn cluster_command(args: &[&str], data_dir: Option<&Path>) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gateway"));
    command.arg("cluster").args(args);
    if let Some(dir) = data_dir {
        command.arg("--data-dir").arg(dir);
    }
    let output = command.output().expect("gateway cluster");
    let text =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

/// The line of `gateway cluster list` about `folder`.
fn listed(folder: &Path) -> String {
    let (ok, text) = cluster_command(&["list"], None);
    assert!(ok, "{text}");
    let name = folder.to_string_lossy().into_owned();
    text.lines().find(|line| line.starts_with(&*name)).unwrap_or("").to_owned()
}

#[test]
fn a_cluster_kept_outside_is_named_and_removable_even_after_its_data_directory_is_deleted() {
    if !is_root() {
        eprintln!("not root: clusters are only kept outside their data directories for root");
        return;
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gateway"));
    let workdir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(workdir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let data_dir = workdir.path().join(".data");
    let running = serve(&binary, workdir.path(), &repo_root(), None);
    let folder = std::fs::read_link(data_dir.join("postgres")).expect("a link to the kept cluster");
    let named = banner_value(&running.banner, "cluster folder:").expect("the banner names the folder");
    assert!(named.starts_with(&*folder.to_string_lossy()), "{named}");
    let (removed, text) = cluster_command(&["remove"], Some(&data_dir));
    assert!(!removed && text.contains("running"), "a running cluster stays: {text}");
    let log = running.interrupt();
    assert!(
        log.contains("kept outside the data directory") && log.contains("gateway cluster remove"),
        "{log}"
    );
    assert!(listed(&folder).ends_with("in use"), "{}", listed(&folder));

    std::fs::remove_dir_all(&data_dir).expect("delete the data directory");
    let line = listed(&folder);
    assert!(line.ends_with("orphaned") && line.contains(&*data_dir.to_string_lossy()), "{line}");

    // Any later start names it.
    let other = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(other.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let second = serve(&binary, other.path(), &repo_root(), None);
    assert_eq!(second.ready_status(), 200);
    let log = second.interrupt();
    assert!(log.contains("left behind") && log.contains(&*folder.to_string_lossy()), "{log}");
    let other_data = other.path().join(".data");
    let other_folder = std::fs::read_link(other_data.join("postgres")).expect("link");
    assert!(cluster_command(&["remove"], Some(&other_data)).0);
    assert!(!other_folder.exists() && !other_data.join("postgres").exists());

    let (removed, text) = cluster_command(&["remove"], Some(&data_dir));
    assert!(removed, "{text}");
    assert!(!folder.exists(), "the cluster's folder is gone");
    assert_eq!(listed(&folder), "", "and no longer listed");
    let (again, text) = cluster_command(&["remove"], Some(&data_dir));
    assert!(!again && text.contains("no cluster"), "{text}");
}
