//! Where functions live, as the Supabase CLI lays them out
//! (<https://supabase.com/docs/guides/functions/development-tips>):
//! `supabase/functions/<name>/index.ts`, code shared between functions in
//! `supabase/functions/_shared/`, and per-function settings in
//! `supabase/config.toml`:
//!
//! ```toml
//! [functions.stripe-webhook]
//! verify_jwt = false
//! import_map = "./functions/stripe-webhook/deno.json"
//! entrypoint = "./functions/stripe-webhook/index.ts"
//! ```
//!
//! Paths in `config.toml` are relative to the folder that holds it, as the
//! CLI reads them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The functions folder and the settings of `config.toml`, read once.
#[derive(Debug, Default)]
pub struct Layout {
    /// `supabase/functions`, or nothing when there is none.
    pub dir: Option<PathBuf>,
    settings: HashMap<String, Settings>,
}

/// One `[functions.<name>]` table.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub enabled: bool,
    pub verify_jwt: bool,
    pub import_map: Option<PathBuf>,
    pub entrypoint: Option<PathBuf>,
}

impl Default for Settings {
    /// The CLI's defaults: every function enabled, its JWT verified.
    fn default() -> Self {
        Self { enabled: true, verify_jwt: true, import_map: None, entrypoint: None }
    }
}

#[derive(Deserialize, Default)]
struct ConfigToml {
    #[serde(default)]
    functions: HashMap<String, Settings>,
}

/// A function found on disk, with what its process needs.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Its own folder, which it may read.
    pub dir: PathBuf,
    /// `_shared/`, which it may read too.
    pub shared: PathBuf,
    pub entrypoint: PathBuf,
    /// `--import-map`, from `config.toml`.
    pub import_map: Option<PathBuf>,
    /// Its own `deno.json` or `deno.jsonc`, when it has one.
    pub deno_config: Option<PathBuf>,
    pub verify_jwt: bool,
}

impl Layout {
    /// Reads `config.toml` beside `dir` (an unreadable one is an error: a
    /// function would otherwise run with settings its author did not mean).
    pub fn load(dir: Option<PathBuf>) -> Result<Self, String> {
        let Some(dir) = dir else { return Ok(Self::default()) };
        let dir =
            std::fs::canonicalize(&dir).map_err(|e| format!("functions folder {}: {e}", dir.display()))?;
        let mut settings = HashMap::new();
        if let Some(supabase) = dir.parent() {
            let path = supabase.join("config.toml");
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let parsed: ConfigToml =
                    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                settings = parsed
                    .functions
                    .into_iter()
                    .map(|(name, mut s)| {
                        s.import_map = s.import_map.map(|p| supabase.join(p));
                        s.entrypoint = s.entrypoint.map(|p| supabase.join(p));
                        (name, s)
                    })
                    .collect();
            }
        }
        Ok(Self { dir: Some(dir), settings })
    }

    /// Every function of the folder, by name.
    pub fn functions(&self) -> Vec<Function> {
        let Some(dir) = &self.dir else { return Vec::new() };
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        names.sort();
        names.iter().filter_map(|name| self.function(name)).collect()
    }

    /// The settings of `name` in `config.toml`, or the defaults.
    pub fn settings(&self, name: &str) -> Settings {
        self.settings.get(name).cloned().unwrap_or_default()
    }

    /// The function called `name`, if it exists and is enabled. Names are
    /// the CLI's (a letter, then letters, digits, `-` and `_`), so `_shared`
    /// and dot folders are never functions and no name climbs out of the
    /// folder.
    pub fn function(&self, name: &str) -> Option<Function> {
        let dir = self.dir.as_ref()?;
        if !valid_name(name) {
            return None;
        }
        let settings = self.settings.get(name).cloned().unwrap_or_default();
        if !settings.enabled {
            return None;
        }
        let own = dir.join(name);
        let entrypoint = settings.entrypoint.unwrap_or_else(|| own.join("index.ts"));
        if !entrypoint.is_file() {
            return None;
        }
        let deno_config = ["deno.json", "deno.jsonc"].iter().map(|f| own.join(f)).find(|p| p.is_file());
        Some(Function {
            name: name.to_owned(),
            shared: dir.join("_shared"),
            dir: own,
            entrypoint,
            import_map: settings.import_map,
            deno_config,
            verify_jwt: settings.verify_jwt,
        })
    }
}

/// Whether `name` may name a function: a letter, then letters, digits, `-`
/// and `_`, as the Supabase CLI checks.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The functions folder: the configured one, or `supabase/functions` under
/// the working directory.
pub fn find_dir(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = configured {
        return Some(dir.to_owned());
    }
    let default = std::env::current_dir().ok()?.join("supabase").join("functions");
    default.is_dir().then_some(default)
}

/// The `deno` to run: the configured one, the one `scripts/setup.sh`
/// installs from npm under `tools/deno` (looked for from the working
/// directory and the executable upwards), or `deno` on the `PATH`.
pub fn find_deno(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(deno) = configured {
        // A relative path is the caller's, as in a shell: the process starts
        // in the function's own folder. A bare name is looked up in `PATH`.
        let relative_path = deno.is_relative() && deno.components().count() > 1;
        return Some(if relative_path {
            std::path::absolute(deno).unwrap_or_else(|_| deno.to_owned())
        } else {
            deno.to_owned()
        });
    }
    let installed = Path::new("tools/deno/node_modules/@deno/linux-x64-glibc/deno");
    let starts = [std::env::current_dir().ok(), std::env::current_exe().ok()];
    for start in starts.iter().flatten() {
        for dir in start.ancestors() {
            let candidate = dir.join(installed);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("deno")).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_deno_is_found_from_where_the_gateway_was_started() {
        let cwd = std::env::current_dir().expect("cwd");
        let cases = [
            ("tools/deno/deno", Some(cwd.join("tools/deno/deno"))),
            ("./deno", Some(cwd.join("deno"))),
            ("/usr/bin/deno", Some(PathBuf::from("/usr/bin/deno"))),
            ("deno", Some(PathBuf::from("deno"))),
        ];
        for (configured, expected) in cases {
            assert_eq!(find_deno(Some(Path::new(configured))), expected, "{configured}");
        }
    }

    #[test]
    fn names_are_the_clis() {
        for (name, valid) in [
            ("hello", true),
            ("hello-world_2", true),
            ("_shared", false),
            (".git", false),
            ("..", false),
            ("a/b", false),
            ("", false),
            ("9lives", false),
        ] {
            assert_eq!(valid_name(name), valid, "{name}");
        }
    }

    #[test]
    fn config_toml_sets_each_function_relative_to_its_folder() {
        let root = tempfile::tempdir().expect("temp");
        let functions = root.path().join("functions");
        std::fs::create_dir_all(functions.join("open")).expect("dir");
        std::fs::create_dir_all(functions.join("moved/src")).expect("dir");
        std::fs::create_dir_all(functions.join("off")).expect("dir");
        std::fs::write(functions.join("open/index.ts"), "").expect("file");
        std::fs::write(functions.join("moved/src/main.ts"), "").expect("file");
        std::fs::write(functions.join("off/index.ts"), "").expect("file");
        std::fs::write(
            root.path().join("config.toml"),
            "[functions.open]\nverify_jwt = false\n\
             [functions.moved]\nentrypoint = \"./functions/moved/src/main.ts\"\n\
             [functions.off]\nenabled = false\n",
        )
        .expect("config");
        let layout = Layout::load(Some(functions)).expect("layout");
        let open = layout.function("open").expect("open");
        assert!(!open.verify_jwt);
        let moved = layout.function("moved").expect("moved");
        assert!(moved.verify_jwt);
        assert!(moved.entrypoint.ends_with("functions/moved/src/main.ts"));
        assert!(layout.function("off").is_none());
        assert!(layout.function("absent").is_none());
    }
}
