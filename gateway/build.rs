//! Embeds the schema level: the last migration of the repository's `sql/`
//! (by path, as `gateway_core::db::migrate::load` orders them), for
//! `gateway --version`.
//!
//! The level is fixed when the binary is built rather than read from the
//! `sql/` found at run time (`--sql-root`, or the nearest folder holding
//! `sql/` and `policies/`): the version names the binary, and must not
//! change with the working directory it is asked from. The files a start
//! applies are still those found at run time; a database that recorded
//! migrations those files lack is refused (`migrate::MigrateError::Newer`).

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path);
        }
    }
}

fn main() {
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql");
    println!("cargo:rerun-if-changed={}", sql.display());
    let mut files = Vec::new();
    collect(&sql, &mut files);
    files.sort();
    let level = files
        .last()
        .and_then(|path| path.file_stem())
        .map_or_else(|| "none".to_owned(), |stem| stem.to_string_lossy().into_owned());
    println!("cargo:rustc-env=GATEWAY_SCHEMA_LEVEL={level}");
}
