//! Point-in-time recovery: `gateway serve --wal-archive` archives the
//! embedded cluster's WAL and takes a base backup; rows and objects change
//! after a moment T; `gateway restore --to T` makes a new data directory
//! holding the database exactly as it was at T, with the objects its rows
//! name that are still stored, and the archive's JWT secret.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use tokio_postgres::NoTls;

const BIN: &str = env!("CARGO_BIN_EXE_gateway");

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// A `gateway serve` on the embedded cluster of `data_dir`, its banner read.
struct Served {
    child: Child,
    address: String,
    service_key: String,
    database: String,
}

impl Served {
    fn start(data_dir: &Path, extra: &[&str]) -> Served {
        let mut child = Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .arg("--sql-root")
            .arg(repo_root())
            .args(extra)
            .env_remove("DATABASE_URL")
            .env_remove("JWT_SECRET")
            .env_remove("GATEWAY_WAL_ARCHIVE")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gateway");
        let mut stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            let mut log = String::new();
            let _ = stderr.read_to_string(&mut log);
            eprint!("{log}");
        });
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (mut address, mut service_key, mut database) = (String::new(), String::new(), String::new());
        while service_key.is_empty() {
            let line = lines.next().expect("the banner").expect("a line");
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("API URL:") {
                address = rest.trim().to_owned();
            } else if let Some(rest) = line.strip_prefix("database:") {
                database = rest.trim().to_owned();
            } else if let Some(rest) = line.strip_prefix("service_role key:") {
                service_key = rest.trim().to_owned();
            }
        }
        std::thread::spawn(move || for _ in lines {});
        Served { child, address, service_key, database }
    }

    async fn sql(&self) -> tokio_postgres::Client {
        let (client, connection) = self
            .database
            .parse::<tokio_postgres::Config>()
            .expect("url")
            .connect(NoTls)
            .await
            .expect("connect");
        tokio::spawn(connection);
        client
    }

    fn object(&self, http: &reqwest::Client, method: reqwest::Method, name: &str) -> reqwest::RequestBuilder {
        http.request(method, format!("{}/storage/v1/object/pitr/{name}", self.address))
            .header("apikey", &self.service_key)
            .bearer_auth(&self.service_key)
    }

    async fn upload(&self, http: &reqwest::Client, name: &str, body: &str) {
        let response = self
            .object(http, reqwest::Method::POST, name)
            .header("content-type", "text/plain")
            .header("x-upsert", "true")
            .body(body.to_owned())
            .send()
            .await
            .expect("upload");
        assert_eq!(response.status(), 200, "upload {name}");
    }

    /// Stops it as a service manager would; the cluster stops with it.
    fn stop(mut self) {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGINT,
        )
        .expect("signal");
        assert!(self.child.wait().expect("wait").success());
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn restore(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("restore")
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("JWT_SECRET")
        .env_remove("GATEWAY_WAL_ARCHIVE")
        .output()
        .expect("run restore")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// Waits for the first base backup `serve` takes when the archive has none.
fn wait_for_base_backup(archive: &Path) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let done = std::fs::read_dir(archive.join("base"))
            .map(|entries| {
                entries.filter_map(Result::ok).any(|e| !e.file_name().to_string_lossy().ends_with(".partial"))
            })
            .unwrap_or(false);
        if done {
            return;
        }
        assert!(Instant::now() < deadline, "no base backup in {}", archive.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Switches to a new WAL segment and waits until the old one is archived.
async fn archive_now(client: &tokio_postgres::Client) {
    let segment: String =
        client.query_one("select pg_walfile_name(pg_switch_wal())", &[]).await.expect("switch").get(0);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let row = client
            .query_one("select coalesce(last_archived_wal, ''), failed_count from pg_stat_archiver", &[])
            .await
            .expect("archiver");
        let (archived, failed): (String, i64) = (row.get(0), row.get(1));
        if archived.as_str() >= segment.as_str() {
            return;
        }
        assert!(Instant::now() < deadline, "{segment} not archived (last {archived:?}, {failed} failures)");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restore_to_a_moment_brings_back_the_database_as_it_was_then() {
    let temp = tempfile::tempdir().expect("tempdir");
    // The postgres user (the server's, as root) runs the archive command.
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (source, archive, recovered) =
        (temp.path().join("a"), temp.path().join("wal"), temp.path().join("b"));
    let http = reqwest::Client::new();

    let served = Served::start(&source, &["--wal-archive", archive.to_str().expect("utf-8")]);
    wait_for_base_backup(&archive);
    let sql = served.sql().await;
    sql.batch_execute(
        "create table public.pitr_notes (id int primary key, body text not null);
         insert into public.pitr_notes values (1, 'uno'), (2, 'dos'), (3, 'tres');
         insert into storage.buckets (id, name) values ('pitr', 'pitr');",
    )
    .await
    .expect("rows");
    served.upload(&http, "kept.txt", "kept, as it was").await;
    served.upload(&http, "replaced.txt", "the first version").await;
    let moment: chrono::DateTime<chrono::Utc> =
        sql.query_one("select clock_timestamp()", &[]).await.expect("now").get(0);
    tokio::time::sleep(Duration::from_millis(1100)).await;

    // After the moment: rows change, one object is replaced (its old bytes go).
    sql.batch_execute(
        "insert into public.pitr_notes values (4, 'cuatro');
         delete from public.pitr_notes where id = 1;
         update public.pitr_notes set body = 'DOS' where id = 2;",
    )
    .await
    .expect("later rows");
    served.upload(&http, "replaced.txt", "the second version").await;
    archive_now(&sql).await;
    drop(sql);
    served.stop();

    let target = moment.to_rfc3339();
    let output = restore(&[
        "--to",
        &target,
        "--wal-archive",
        archive.to_str().expect("utf-8"),
        "--data-dir",
        recovered.to_str().expect("utf-8"),
        "--objects-from",
        source.join("storage").to_str().expect("utf-8"),
    ]);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("1 objects copied"), "{said}");
    assert!(
        said.contains("pitr/replaced.txt"),
        "the version replaced after the moment is named as gone: {said}"
    );
    assert_eq!(
        std::fs::read(recovered.join("jwt_secret")).expect("secret"),
        std::fs::read(source.join("jwt_secret")).expect("secret"),
        "the archive's JWT secret comes along"
    );

    let served = Served::start(&recovered, &[]);
    let sql = served.sql().await;
    let rows: Vec<(i32, String)> = sql
        .query("select id, body from public.pitr_notes order by id", &[])
        .await
        .expect("rows")
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let expected: Vec<(i32, String)> = vec![(1, "uno".into()), (2, "dos".into()), (3, "tres".into())];
    assert_eq!(rows, expected, "the rows as of the moment, not after");
    let kept = served.object(&http, reqwest::Method::GET, "kept.txt").send().await.expect("download");
    assert_eq!(kept.status(), 200);
    assert_eq!(kept.text().await.expect("body"), "kept, as it was");
    drop(sql);
    served.stop();

    // What a recovery refuses, each with its reason.
    let archive = archive.to_str().expect("utf-8");
    let fresh = temp.path().join("c");
    let fresh = fresh.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--to", "2000-01-01T00:00:00Z", "--wal-archive", archive, "--data-dir", fresh],
            "before the oldest base backup",
        ),
        (
            &["--to", &target, "--wal-archive", archive, "--data-dir", recovered.to_str().expect("utf-8")],
            "is not empty",
        ),
        (&["--to", &target, "--data-dir", fresh], "--wal-archive"),
        (&["--to", "yesterday", "--wal-archive", archive, "--data-dir", fresh], "invalid --to"),
    ];
    for (args, reason) in cases {
        let output = restore(args);
        let said = text(&output);
        assert!(!output.status.success(), "{args:?} is refused");
        assert!(said.contains(reason), "{args:?}: {said}");
    }
    // A moment past the end of the archive: the replay runs out first.
    let later = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let output = restore(&["--to", &later, "--wal-archive", archive, "--data-dir", fresh]);
    let said = text(&output);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("ends before"), "{said}");
}
