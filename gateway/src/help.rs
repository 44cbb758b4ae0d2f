//! Help that fits on a screen. Every command that takes the gateway's
//! settings (`serve`, `migrate`, `keys`, ...) has about a hundred flags, each
//! section under its own heading (clap's `help_heading`: `REST`, `Auth`,
//! `Storage`...). So `--help` on such a command prints the general settings
//! and an index of the sections; `--help <section>` prints one section in
//! full, with each flag's environment variable and default; `--help all`
//! prints every flag, one line each. The book's configuration page is made
//! from the same definitions ([`configuration_page`]).

use std::collections::BTreeSet;
use std::ffi::OsString;

use clap::{Arg, Command};

/// The sections shown in full by a bare `--help`: what a newcomer sets first.
const GENERAL: [&str; 3] = ["Gateway", "Database", "Keys"];

/// What `--help` asked for on a command with sections.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Index,
    All,
    Section(String),
}

/// The help text `args` ask for, or `None` when they ask for none, or ask
/// it of a command without sections (clap answers those).
pub fn intercept(root: &Command, args: &[OsString]) -> Option<Result<String, String>> {
    let mut command = root;
    let mut path = vec![root.get_name().to_owned()];
    let mut tokens = args.iter().skip(1).map(|a| a.to_string_lossy().into_owned()).peekable();
    while let Some(token) = tokens.next() {
        if token == "--" {
            return None;
        }
        if token == "-h" || token == "--help" {
            if !has_sections(command) {
                return None;
            }
            let request = match tokens.next() {
                None => Request::Index,
                Some(word) if word == "all" => Request::All,
                Some(word) => Request::Section(word),
            };
            return Some(render(command, &path.join(" "), &request));
        }
        if let Some(sub) = command.find_subcommand(&token) {
            path.push(sub.get_name().to_owned());
            command = sub;
        }
    }
    None
}

fn has_sections(command: &Command) -> bool {
    command.get_arguments().any(|arg| arg.get_help_heading().is_some())
}

/// A section's name on the command line: `Auth mail` is `auth-mail`.
pub fn key(heading: &str) -> String {
    heading.to_lowercase().replace(' ', "-")
}

/// The sections of `command`, in the order their flags come.
pub fn sections(command: &Command) -> Vec<String> {
    let mut seen = BTreeSet::new();
    command
        .get_arguments()
        .filter_map(Arg::get_help_heading)
        .filter(|heading| seen.insert(heading.to_owned()))
        .map(str::to_owned)
        .collect()
}

/// The help text for `request` on `command` (called `name` on the command line).
pub fn render(command: &Command, name: &str, request: &Request) -> Result<String, String> {
    let sections = sections(command);
    let mut shown = command.clone().bin_name(name).disable_help_flag(true).disable_version_flag(true);
    match request {
        Request::Index => {
            shown = shown.mut_args(|arg| match arg.get_help_heading() {
                Some(heading) if !GENERAL.contains(&heading) => arg.hide(true),
                _ => one_line(arg).hide_env(true),
            });
            let mut index =
                String::from("Sections (`--help <section>` shows one in full, `--help all` every flag):\n");
            for heading in sections.iter().filter(|h| !GENERAL.contains(&h.as_str())) {
                let count = command.get_arguments().filter(|a| a.get_help_heading() == Some(heading)).count();
                index.push_str(&format!("  {:<14}{count} flags\n", key(heading)));
            }
            index.push_str("\nEvery flag and variable: docs/configuration.md");
            Ok(shown.after_help(index).render_help().to_string())
        }
        Request::All => {
            shown = shown.mut_args(|arg| one_line(arg).hide_env(true));
            Ok(shown.render_help().to_string())
        }
        Request::Section(wanted) => {
            let matching: Vec<&String> =
                sections.iter().filter(|h| key(h).starts_with(wanted.as_str())).collect();
            if matching.is_empty() {
                let names: Vec<String> = sections.iter().map(|h| key(h)).collect();
                return Err(format!("no section {wanted:?}; the sections are: all, {}", names.join(", ")));
            }
            shown = shown.mut_args(|arg| match arg.get_help_heading() {
                Some(heading) if matching.iter().any(|m| m.as_str() == heading) => arg,
                _ => arg.hide(true),
            });
            Ok(shown.render_long_help().to_string())
        }
    }
}

/// An argument with only the first sentence of its help.
fn one_line(arg: Arg) -> Arg {
    let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
    arg.help(first_sentence(&help)).long_help(None::<&str>)
}

fn first_sentence(text: &str) -> String {
    let end = text.match_indices(". ").map(|(i, _)| i).find(|&i| !text[..i].ends_with("e.g"));
    match end {
        Some(i) => text[..i].to_owned(),
        None => text.trim_end_matches('.').to_owned(),
    }
}

/// The book's reference of every flag and variable of `command`, section by
/// section: what `gateway docs configuration` prints below the page's
/// introduction.
pub fn configuration_page(command: &Command) -> String {
    let mut page = String::new();
    for heading in sections(command) {
        page.push_str(&format!("\n## {heading}\n\n`gateway serve --help {}`\n\n", key(&heading)));
        page.push_str("| Flag | Variable | Default | What it does |\n|---|---|---|---|\n");
        for arg in command.get_arguments().filter(|a| a.get_help_heading() == Some(heading.as_str())) {
            let flag = arg.get_long().map(|l| format!("`--{l}`")).unwrap_or_default();
            let env = arg.get_env().map(|e| format!("`{}`", e.to_string_lossy())).unwrap_or_default();
            let default: Vec<String> =
                arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
            let default = if default.is_empty() { String::new() } else { format!("`{}`", default.join(",")) };
            let help = arg.get_long_help().or(arg.get_help()).map(ToString::to_string).unwrap_or_default();
            let help = help.replace('\n', " ").replace('|', "\\|");
            // The book is Vue: `{{` would be read as an expression.
            let (default, help) = (vue_literal(&default), vue_literal(&help));
            page.push_str(&format!("| {flag} | {env} | {default} | {help} |\n"));
        }
    }
    page
}

/// A table cell whose code spans VitePress must not read as Vue
/// interpolation (`{{ .Code }}` of a template): such spans are written
/// `<code v-pre>`.
fn vue_literal(cell: &str) -> String {
    if !cell.contains("{{") {
        return cell.to_owned();
    }
    let mut out = String::new();
    for (i, part) in cell.split('`').enumerate() {
        match i % 2 {
            1 => out.push_str(&format!("<code v-pre>{part}</code>")),
            _ => out.push_str(part),
        }
    }
    out
}

/// `.env.example`: every variable, commented out at its default, section by
/// section as `--help` groups them.
pub fn env_example(command: &Command) -> String {
    let mut text = String::from(
        "# Every setting of `gateway serve`, as an environment variable; each is also a\n\
         # flag (`gateway serve --help <section>`), and the flag wins. All are optional:\n\
         # with none set, the gateway runs its own PostgreSQL under ./.data and listens\n\
         # on 127.0.0.1:54321. Each line below is commented out at its default. The\n\
         # gateway reads no file itself: export these (or use your service manager's\n\
         # environment file). Made by `gateway docs env` from the flags' definitions.\n",
    );
    for heading in sections(command) {
        text.push_str(&format!("\n# --- {heading} ---\n"));
        for arg in command.get_arguments().filter(|a| a.get_help_heading() == Some(heading.as_str())) {
            let Some(env) = arg.get_env() else { continue };
            let help = arg.get_long_help().or(arg.get_help()).map(ToString::to_string).unwrap_or_default();
            let default: Vec<String> =
                arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
            text.push('\n');
            for line in wrap(&help.replace('\n', " "), 76) {
                text.push_str(&format!("# {line}\n"));
            }
            text.push_str(&format!("# {}={}\n", env.to_string_lossy(), default.join(",")));
        }
    }
    text
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_sentence_ends_at_the_first_full_stop() {
        let cases = [
            ("Address the HTTP server listens on. 54321 is the port", "Address the HTTP server listens on"),
            (
                "S3 endpoint, e.g. `http://127.0.0.1:9000`. Unset: AWS's",
                "S3 endpoint, e.g. `http://127.0.0.1:9000`",
            ),
            ("S3 region.", "S3 region"),
            ("No stop at all", "No stop at all"),
        ];
        for (text, first) in cases {
            assert_eq!(first_sentence(text), first, "{text}");
        }
    }

    #[test]
    fn long_lines_wrap_between_words() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("", 9), Vec::<String>::new());
    }

    #[test]
    fn sections_are_named_on_the_command_line_in_lower_case() {
        assert_eq!(key("Auth mail"), "auth-mail");
        assert_eq!(key("REST"), "rest");
    }
}
