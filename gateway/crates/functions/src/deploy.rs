//! The operator's commands for the functions folder, as the Supabase CLI
//! has them (<https://supabase.com/docs/reference/cli/supabase-functions-new>):
//!
//! - `new <name>`: a function from a template that calls `Deno.serve`;
//! - `list`: the functions the gateway serves, with their settings;
//! - `deploy [<name>...] [--from <folder>]`: each function's dependencies
//!   fetched into the gateway's Deno cache (`npm:` packages) or vendored
//!   beside it (`jsr:` and `https:` modules, `vendor/`), its types checked,
//!   and only then, when every one passed, its files put in place of the
//!   served ones. A running gateway sees the new files and starts the new
//!   code on the next request.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::layout::{Function, Layout, valid_name};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Makes `<dir>/<name>/index.ts` and its `deno.json`.
pub fn new_function(dir: &Path, name: &str) -> Result<PathBuf, BoxError> {
    if !valid_name(name) {
        return Err(
            format!("{name:?} cannot name a function: a letter, then letters, digits, - and _").into()
        );
    }
    let folder = dir.join(name);
    if folder.exists() {
        return Err(format!("{} already exists", folder.display()).into());
    }
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join("index.ts"), TEMPLATE.replace("__NAME__", name))?;
    std::fs::write(folder.join("deno.json"), "{\n  \"imports\": {}\n}\n")?;
    Ok(folder.join("index.ts"))
}

const TEMPLATE: &str = r#"// The Edge Function "__NAME__". `gateway serve` runs it at
// /functions/v1/__NAME__; call it with
//   supabase.functions.invoke("__NAME__", { body: { name: "Functions" } })
// Its variables: SUPABASE_URL, SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY,
// SUPABASE_PUBLISHABLE_KEYS, SUPABASE_SECRET_KEYS, SUPABASE_DB_URL and the
// secrets set with `gateway functions secrets set`.

Deno.serve(async (req) => {
  const { name } = req.body ? await req.json() : { name: "world" };
  console.log("greeting", name);
  return Response.json({ message: `Hello ${name}!` });
});
"#;

/// One line per function: name, `verify_jwt`, entry point, import map or
/// `deno.json`, and whether remote modules are vendored.
pub fn list(layout: &Layout) -> Vec<String> {
    layout
        .functions()
        .iter()
        .map(|f| {
            let imports = f
                .import_map
                .as_ref()
                .or(f.deno_config.as_ref())
                .map_or("-".to_owned(), |p| p.display().to_string());
            let vendored = if f.dir.join("vendor").is_dir() { "vendored" } else { "-" };
            format!(
                "{}\tverify_jwt={}\t{}\t{imports}\t{vendored}",
                f.name,
                f.verify_jwt,
                f.entrypoint.display()
            )
        })
        .collect()
}

/// What `deploy` needs.
pub struct Deploy<'a> {
    pub deno: &'a Path,
    /// `DENO_DIR`, the cache the gateway's functions run from.
    pub deno_dir: &'a Path,
    /// The folder the gateway serves.
    pub target: &'a Path,
    /// The folder the new code comes from (the served one: check and cache
    /// in place).
    pub source: &'a Path,
    /// The functions to deploy (none: every one of the source).
    pub names: &'a [String],
}

/// Deploys as the module says, printing each step; an error names what
/// failed, and nothing was switched then.
pub async fn deploy(deploy: Deploy<'_>, say: &mut impl FnMut(&str)) -> Result<(), BoxError> {
    let source = std::fs::canonicalize(deploy.source)
        .map_err(|e| format!("functions folder {}: {e}", deploy.source.display()))?;
    std::fs::create_dir_all(deploy.target)?;
    let target = std::fs::canonicalize(deploy.target)?;
    let in_place = source == target;
    let layout = Layout::load(Some(source.clone()))?;
    let chosen: Vec<Function> = if deploy.names.is_empty() {
        layout.functions()
    } else {
        deploy
            .names
            .iter()
            .map(|name| {
                layout.function(name).ok_or_else(|| format!("no function {name:?} in {}", source.display()))
            })
            .collect::<Result<_, _>>()?
    };
    if chosen.is_empty() {
        return Err(format!("no functions in {}", source.display()).into());
    }

    // Outside the served folder, the new code is checked in a copy beside
    // it, on the same file system, so that putting it in place is a rename.
    let staging = if in_place {
        None
    } else {
        let parent = target.parent().ok_or("the functions folder has no parent")?;
        let staging = tempfile::Builder::new().prefix(".functions-deploy-").tempdir_in(parent)?;
        for function in &chosen {
            copy_tree(&function.dir, &staging.path().join(&function.name))?;
        }
        if layout.dir.as_ref().is_some_and(|d| d.join("_shared").is_dir()) {
            copy_tree(&source.join("_shared"), &staging.path().join("_shared"))?;
        }
        Some(staging)
    };
    let mut failures = Vec::new();
    for function in &chosen {
        let checked = match &staging {
            Some(staging) => staged(function, &source, staging.path()),
            None => function.clone(),
        };
        say(&format!("{}: fetching its dependencies", function.name));
        if let Err(e) = run_deno(&deploy, &checked, "install").await {
            failures.push(format!("{}: {e}", function.name));
            continue;
        }
        say(&format!("{}: checking its types", function.name));
        if let Err(e) = run_deno(&deploy, &checked, "check").await {
            failures.push(format!("{}: {e}", function.name));
            continue;
        }
        say(&format!("{}: ready", function.name));
    }
    if !failures.is_empty() {
        return Err(format!("nothing was deployed:\n{}", failures.join("\n")).into());
    }
    if let Some(staging) = &staging {
        let mut moved: Vec<String> = chosen.iter().map(|f| f.name.clone()).collect();
        if staging.path().join("_shared").is_dir() {
            moved.push("_shared".to_owned());
        }
        for name in &moved {
            swap(&staging.path().join(name), &target.join(name))?;
            say(&format!("{name}: in place"));
        }
    }
    Ok(())
}

/// `function` as its staged copy: the same files, under `staging`.
fn staged(function: &Function, source: &Path, staging: &Path) -> Function {
    let moved = |path: &Path| match path.strip_prefix(source) {
        Ok(inner) => staging.join(inner),
        Err(_) => path.to_owned(),
    };
    Function {
        name: function.name.clone(),
        dir: staging.join(&function.name),
        shared: staging.join("_shared"),
        entrypoint: moved(&function.entrypoint),
        import_map: function.import_map.as_deref().map(moved),
        deno_config: function.deno_config.as_deref().map(moved),
        verify_jwt: function.verify_jwt,
    }
}

/// `deno install --entrypoint` (fetch `npm:` packages into the cache and
/// vendor remote modules into `vendor/`) or `deno check`, with the settings
/// the function runs with.
async fn run_deno(deploy: &Deploy<'_>, function: &Function, step: &str) -> Result<(), String> {
    let mut command = tokio::process::Command::new(deploy.deno);
    command.arg(step);
    if step == "install" {
        command.arg("--entrypoint").arg("--vendor");
    } else if function.dir.join("vendor").is_dir() {
        command.arg("--vendor");
    }
    // Imports from any host, as Edge Runtime allows them.
    command.arg("--no-lock").arg("--allow-import");
    match (&function.import_map, &function.deno_config) {
        (Some(map), _) => command.arg("--no-config").arg(format!("--import-map={}", map.display())),
        (None, Some(config)) => command.arg(format!("--config={}", config.display())),
        (None, None) => command.arg("--no-config"),
    };
    let output = command
        .arg(&function.entrypoint)
        .current_dir(&function.dir)
        .env("DENO_DIR", deploy.deno_dir)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("NO_COLOR", "1")
        .env("DENO_TLS_CA_STORE", "system")
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| format!("{}: {e}", deploy.deno.display()))?;
    if output.status.success() {
        // A vendor folder with nothing in it would only make Deno look there.
        let vendor = function.dir.join("vendor");
        if std::fs::read_dir(&vendor).is_ok_and(|mut d| d.next().is_none()) {
            let _ = std::fs::remove_dir(&vendor);
        }
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let what =
        if step == "install" { "its dependencies could not be fetched" } else { "its types do not check" };
    let mut message = format!("{what}:\n{}", stderr.trim_end());
    if step == "install" && unreachable_remote(&stderr) {
        message.push_str(
            "\nThis is a jsr: or https: import, and this machine does not reach its host (jsr.io, deno.land, \
             esm.sh...). Import the package as npm: instead, or run `gateway functions deploy` where that \
             network is and copy the function's vendor/ folder with it.",
        );
    }
    Err(message)
}

/// Whether Deno's complaint is a remote module it could not fetch.
fn unreachable_remote(stderr: &str) -> bool {
    (stderr.contains("jsr:") || stderr.contains("https://") || stderr.contains("http://"))
        && [
            "error sending request",
            "dns error",
            "Import ",
            "failed to lookup",
            "Connection refused",
            "timed out",
        ]
        .iter()
        .any(|needle| stderr.contains(needle))
}

/// Copies a folder, but its `node_modules`.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let destination = to.join(entry.file_name());
        if kind.is_dir() {
            if entry.file_name() != "node_modules" {
                copy_tree(&entry.path(), &destination)?;
            }
        } else if kind.is_file() || kind.is_symlink() {
            std::fs::copy(entry.path(), destination)?;
        }
    }
    Ok(())
}

/// Puts `staged` at `served` with two renames, the old folder aside and the
/// new one in (a request between the two answers 404), and removes the old.
fn swap(staged: &Path, served: &Path) -> std::io::Result<()> {
    let old = served.with_extension(format!("old-{}", std::process::id()));
    let had = served.exists();
    if had {
        std::fs::rename(served, &old)?;
    }
    if let Err(e) = std::fs::rename(staged, served) {
        if had {
            let _ = std::fs::rename(&old, served);
        }
        return Err(e);
    }
    if had {
        std::fs::remove_dir_all(&old)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_function_is_a_served_one_and_a_name_is_taken_once() {
        let root = tempfile::tempdir().expect("temp");
        let index = new_function(root.path(), "greet").expect("new");
        assert!(std::fs::read_to_string(index).expect("index").contains("Deno.serve("));
        let layout = Layout::load(Some(root.path().to_owned())).expect("layout");
        let listed = list(&layout);
        assert_eq!(listed.len(), 1);
        assert!(listed[0].starts_with("greet\tverify_jwt=true\t"), "{}", listed[0]);
        assert!(new_function(root.path(), "greet").is_err(), "twice");
        assert!(new_function(root.path(), "_shared").is_err(), "not a name");
    }

    #[test]
    fn fetch_failures_of_remote_modules_are_told_apart() {
        let cases = [
            ("error: Import 'https://deno.land/std/http/server.ts' failed.\n  error sending request", true),
            (
                "error: JSR package manifest for '@std/path' failed to load. error sending request for url (https://jsr.io/@std/path/meta.json)",
                true,
            ),
            ("error: TS2322 [ERROR]: Type 'string' is not assignable to type 'number'.", false),
        ];
        for (stderr, remote) in cases {
            assert_eq!(unreachable_remote(stderr), remote, "{stderr}");
        }
    }
}
