//! The console's API docs and live settings (`/_/api/api-docs`,
//! `/_/api/settings`, docs/console.md): a table's docs name its columns and
//! carry the publishable key; each setting says whether a flag, an
//! environment variable or the default gave it, and no secret is shown.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, Options, TestApp, spawn_app_with, test_config};

const EMAIL: &str = "ops@example.com";
const PASSWORD: &str = "operator-password-1";

/// The variable the environment's test sets for the copy of this binary it
/// runs.
const FROM_ENV: (&str, &str) = ("GATEWAY_CONSOLE_ROW_LIMIT", "321");

async fn app_with(config: gateway::config::Config) -> TestApp {
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    gateway::console::access::add_operator(&app.state.db, EMAIL, PASSWORD).await.expect("operator");
    app
}

/// GET `path` of the console API as a signed-in operator.
async fn get_as_operator(app: &TestApp, path: &str) -> Answer {
    let url = |path: &str| format!("{}/_/api{path}", app.address);
    let signed = Answer::from(
        app.client
            .post(url("/sign-in"))
            .json(&json!({"email": EMAIL, "password": PASSWORD}))
            .send()
            .await
            .expect("sign in"),
    )
    .await;
    assert_eq!(signed.status, 200, "{}", signed.text);
    let cookie =
        signed.headers["set-cookie"].to_str().expect("cookie").split(';').next().expect("pair").to_owned();
    Answer::from(
        app.client
            .request(Method::GET, url(path))
            .header("cookie", cookie)
            .header("sec-fetch-site", "same-origin")
            .send()
            .await
            .expect("send"),
    )
    .await
}

fn named<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .and_then(|items| items.iter().find(|item| item["name"] == name))
        .unwrap_or_else(|| panic!("{name} not in {list}"))
}

fn code_of<'a>(table: &'a Value, kind: &str) -> &'a str {
    table["calls"]
        .as_array()
        .and_then(|calls| calls.iter().find(|c| c["kind"] == kind))
        .and_then(|c| c["code"].as_str())
        .unwrap_or_else(|| panic!("no {kind} call in {table}"))
}

#[tokio::test]
async fn a_tables_api_docs_name_its_columns_and_the_calls_carry_the_url_and_publishable_key() {
    let app = app_with(test_config()).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.books (
               id bigint generated always as identity primary key,
               title text not null,
               \"first published\" date,
               tags text[]
             );
             create view public.titles as select title from public.books;
             create function public.count_books(author text, since date default null) returns bigint
               language sql stable as 'select count(*) from public.books';",
        )
        .await
        .expect("schema");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    assert!(!app.publishable_key.is_empty(), "the test gateway has a publishable key");

    let answer = get_as_operator(&app, "/api-docs").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let docs = answer.json();
    assert_eq!(docs["key"], app.publishable_key.as_str());
    assert_eq!(docs["url"], app.address.as_str());
    let setup = docs["setup"].as_str().expect("setup");
    for expected in
        [app.address.as_str(), app.publishable_key.as_str(), "createClient(supabaseUrl, supabaseKey)"]
    {
        assert!(setup.contains(expected), "{expected} not in {setup}");
    }

    let public =
        docs["schemas"].as_array().and_then(|s| s.iter().find(|s| s["schema"] == "public")).expect("public");
    let books = named(&public["tables"], "books");
    let columns: Vec<(&str, &str, bool)> = books["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["type"].as_str().unwrap(), c["required"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        columns,
        [
            ("id", "bigint", false),
            ("title", "text", true),
            ("first published", "date", false),
            ("tags", "text[]", false)
        ]
    );
    let cases = [
        ("read", ".from('books')\n  .select('*')"),
        ("readColumns", ".select('id,title')"),
        ("readPage", ".range(0, 9)"),
        ("filter", ".eq('id', 0)"),
        ("insert", ".insert([\n    { title: 'someValue', 'first published': 'someValue' },\n  ])"),
        ("update", ".update({ 'first published': 'someValue' })\n  .eq('id', 0)"),
        ("upsert", ".upsert({ title: 'someValue', 'first published': 'someValue' })"),
        ("delete", ".delete()\n  .eq('id', 0)"),
        ("subscribe", "{ event: '*', schema: 'public', table: 'books' }"),
    ];
    for (kind, expected) in cases {
        let code = code_of(books, kind);
        assert!(code.contains(expected), "{kind}: {expected:?} not in\n{code}");
    }

    let titles = named(&public["tables"], "titles");
    assert_eq!(titles["view"], true);
    let kinds: Vec<&str> =
        titles["calls"].as_array().expect("calls").iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["read", "readColumns", "readPage", "filter", "subscribe"], "a view takes no writes");

    let count = named(&public["functions"], "count_books");
    assert_eq!(
        count["arguments"],
        json!([{"name": "author", "type": "text", "required": true}, {"name": "since", "type": "date", "required": false}])
    );
    let call = count["call"].as_str().expect("call");
    assert!(call.contains(".rpc('count_books', { author: 'someValue', since: 'someValue' })"), "{call}");
}

#[tokio::test]
async fn each_setting_says_whether_a_flag_the_environment_or_the_default_gave_it_and_no_secret_shows() {
    const SMTP_PASSWORD: &str = "smtp-password-never-shown";
    const CLIENT_SECRET: &str = "oidc-client-secret-never-shown";
    let argv = [
        "gateway",
        "--auth-signup-enabled",
        "false",
        "--auth-smtp-host",
        "smtp.example.test",
        "--auth-smtp-pass",
        SMTP_PASSWORD,
        "--auth-oidc-providers",
        &format!("acme|https://id.acme.test|shop-client|{CLIENT_SECRET}"),
    ];
    let command = gateway::cli::serve_command();
    let matches = command.clone().try_get_matches_from(argv).expect("flags");
    let settings = gateway::console::settings::Settings::read(&command, &matches);
    let mut config = test_config();
    config.console.settings = settings;
    let app = app_with(config).await;

    let answer = get_as_operator(&app, "/settings").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    for secret in [SMTP_PASSWORD, CLIENT_SECRET, common::SECRET] {
        assert!(!answer.text.contains(secret), "a secret is shown: {}", answer.text);
    }
    let settings = answer.json()["settings"].clone();
    let setting = |flag: &str| {
        settings
            .as_array()
            .and_then(|all| all.iter().find(|s| s["flag"] == flag))
            .unwrap_or_else(|| panic!("{flag} not listed"))
            .clone()
    };
    let cases = [
        ("--auth-signup-enabled", "false", "flag", false, "Auth"),
        ("--auth-smtp-host", "smtp.example.test", "flag", false, "Auth mail"),
        ("--auth-smtp-pass", "set", "flag", true, "Auth mail"),
        ("--auth-oidc-providers", "acme (https://id.acme.test, client shop-client)", "flag", false, "Auth"),
        ("--console-row-limit", "1000", "default", false, "Console"),
        ("--auth-jwt-expiry", "3600", "default", false, "Auth"),
        ("--database-url", "not set", "unset", true, "Database"),
        ("--auth-mfa-encryption-key", "not set", "unset", true, "Auth"),
        ("--auth-trusted-proxies", "", "unset", false, "Auth"),
    ];
    for (flag, value, source, secret, section) in cases {
        let shown = setting(flag);
        assert_eq!(
            (
                shown["value"].as_str(),
                shown["source"].as_str(),
                shown["secret"].as_bool(),
                shown["section"].as_str()
            ),
            (Some(value), Some(source), Some(secret), Some(section)),
            "{flag}: {shown}"
        );
    }
    assert_eq!(setting("--console-row-limit")["env"], "GATEWAY_CONSOLE_ROW_LIMIT");
}

/// A value from the environment says `env`. The variable is set for a copy
/// of this test binary running this test alone, as the tests cannot change
/// their own environment safely.
#[test]
fn a_setting_from_the_environment_says_env() {
    use gateway::console::settings::{Settings, Source};
    let name = "a_setting_from_the_environment_says_env";
    if std::env::var(FROM_ENV.0).as_deref() == Ok(FROM_ENV.1) {
        let command = gateway::cli::serve_command();
        let matches = command.clone().try_get_matches_from(["gateway"]).expect("flags");
        let settings = Settings::read(&command, &matches);
        let shown = settings.all().iter().find(|s| s.flag == "--console-row-limit").expect("listed");
        assert_eq!((shown.value.as_str(), shown.source), (FROM_ENV.1, Source::Env));
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().expect("this binary"))
        .args(["--exact", name, "--test-threads=1"])
        .env(FROM_ENV.0, FROM_ENV.1)
        .status()
        .expect("run");
    assert!(status.success(), "the copy with {}={} failed", FROM_ENV.0, FROM_ENV.1);
}
