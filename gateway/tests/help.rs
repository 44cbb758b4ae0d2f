//! `--help` fits on a screen, sections come in full on request, and the
//! book's configuration page and `.env.example` are exactly what the flags'
//! definitions make, so that neither can drift from the code.

use std::path::PathBuf;
use std::process::{Command, Output};

fn gateway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gateway")).args(args).output().expect("gateway runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root").to_path_buf()
}

#[test]
fn serve_help_is_short_and_lists_the_sections() {
    let output = gateway(&["serve", "--help"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.lines().count() <= 80, "{} lines:\n{text}", text.lines().count());
    for expected in ["Gateway:", "Database:", "Keys:", "--listen", "--database-url", "--jwt-secret"] {
        assert!(text.contains(expected), "{expected} missing:\n{text}");
    }
    for section in ["limits", "rest", "auth", "auth-mail", "storage", "realtime", "frontend", "compression"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(section)),
            "section {section} missing:\n{text}"
        );
    }
    assert!(!text.contains("--file-size-limit"), "a section's flag in the short help:\n{text}");
    assert_eq!(stdout(&gateway(&["serve", "-h"])), text, "-h and --help agree");
}

#[test]
fn a_section_shows_its_flags_in_full() {
    // (section, a flag it has, its variable, a flag of another section)
    let cases = [
        ("storage", "--file-size-limit", "STORAGE_FILE_SIZE_LIMIT", "--listen"),
        ("rest", "--db-schemas", "GATEWAY_DB_SCHEMAS", "--storage-root"),
        ("limits", "--body-limit", "GATEWAY_BODY_LIMIT", "--db-schemas"),
        ("realtime", "--realtime-max-frame-size", "REALTIME_MAX_FRAME_SIZE", "--body-limit"),
    ];
    for (section, flag, variable, other) in cases {
        let output = gateway(&["serve", "--help", section]);
        assert!(output.status.success(), "{section}");
        let text = stdout(&output);
        assert!(text.contains(flag) && text.contains(variable), "{section} lacks {flag}:\n{text}");
        assert!(!text.contains(other), "{section} shows {other}:\n{text}");
    }
    let auth = stdout(&gateway(&["serve", "--help", "auth"]));
    assert!(auth.contains("--auth-smtp-host"), "`auth` takes in `auth-mail` too:\n{auth}");
}

#[test]
fn help_all_lists_every_flag_once_per_line() {
    let text = stdout(&gateway(&["serve", "--help", "all"]));
    for flag in
        ["--listen", "--db-schemas", "--storage-root", "--auth-smtp-host", "--realtime-max-frame-size"]
    {
        assert!(text.contains(flag), "{flag} missing");
    }
}

#[test]
fn an_unknown_section_is_refused_with_the_list() {
    let output = gateway(&["serve", "--help", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("storage") && error.contains("rest"), "{error}");
}

#[test]
fn every_command_with_settings_answers_help_alike() {
    let commands = [
        &["migrate", "--help"][..],
        &["keys", "--help"],
        &["users", "add", "--help"],
        &["backup", "--help"],
        &["restore", "--help"],
        &["import", "--help"],
    ];
    for command in commands {
        let output = gateway(command);
        assert!(output.status.success(), "{command:?}");
        assert!(stdout(&output).lines().count() <= 80, "{command:?}");
    }
}

#[test]
fn the_configuration_page_is_made_from_the_flags() {
    let page = std::fs::read_to_string(repo_root().join("docs/configuration.md")).expect("page");
    let marker = "<!-- generated below by gateway docs configuration -->\n";
    let (_, generated) = page.split_once(marker).expect("the page has the marker");
    let expected = stdout(&gateway(&["docs", "configuration"]));
    assert!(
        generated == expected,
        "docs/configuration.md is out of date: replace what follows its marker with the output of \
         `target/debug/gateway docs configuration`"
    );
}

#[test]
fn env_example_is_made_from_the_flags() {
    let file = std::fs::read_to_string(repo_root().join(".env.example")).expect(".env.example");
    let expected = stdout(&gateway(&["docs", "env"]));
    assert!(file == expected, ".env.example is out of date: `target/debug/gateway docs env > .env.example`");
}
