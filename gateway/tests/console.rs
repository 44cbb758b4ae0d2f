//! The operator console's API (`/_/api/`, docs/console.md): who may reach
//! it, signing in, and what it answers about tables and SQL.

mod common;

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use common::{Answer, Options, TestApp, spawn_app, spawn_app_with, test_config};

const EMAIL: &str = "ops@example.com";
const PASSWORD: &str = "operator-password-1";

async fn with_operator(app: &TestApp) {
    gateway::console::access::add_operator(&app.state.db, EMAIL, PASSWORD).await.expect("operator");
}

/// A gateway with one operator, its settings changed by `change`.
async fn console_app(change: impl FnOnce(&mut gateway::config::Config)) -> TestApp {
    let mut config = test_config();
    change(&mut config);
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    with_operator(&app).await;
    app
}

/// A signed-in operator: the cookie to send and the CSRF token.
struct Signed {
    cookie: String,
    csrf: String,
}

fn console(app: &TestApp, method: Method, path: &str) -> RequestBuilder {
    app.client.request(method, format!("{}/_/api{path}", app.address))
}

async fn sign_in_with(app: &TestApp, email: &str, password: &str) -> Answer {
    Answer::from(
        console(app, Method::POST, "/sign-in")
            .json(&json!({"email": email, "password": password}))
            .send()
            .await
            .expect("send"),
    )
    .await
}

async fn sign_in(app: &TestApp) -> Signed {
    let answer = sign_in_with(app, EMAIL, PASSWORD).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let set_cookie = answer.headers["set-cookie"].to_str().expect("cookie").to_owned();
    let cookie = set_cookie.split(';').next().expect("pair").to_owned();
    Signed { cookie, csrf: answer.json()["csrfToken"].as_str().expect("token").to_owned() }
}

/// A request as the console's own page sends it: the cookie, the CSRF
/// token, and a browser's same-origin headers.
fn as_operator(app: &TestApp, signed: &Signed, method: Method, path: &str) -> RequestBuilder {
    as_operator_but(app, signed, method, path, &[])
}

/// [`as_operator`] with some of those headers replaced.
fn as_operator_but(
    app: &TestApp,
    signed: &Signed,
    method: Method,
    path: &str,
    changed: &[(&'static str, &str)],
) -> RequestBuilder {
    let mut headers = reqwest::header::HeaderMap::new();
    for (name, value) in [
        ("cookie", signed.cookie.as_str()),
        ("x-console-csrf", &signed.csrf),
        ("origin", &app.address),
        ("sec-fetch-site", "same-origin"),
    ]
    .into_iter()
    .chain(changed.iter().copied())
    {
        headers.insert(name, value.parse().expect("header"));
    }
    console(app, method, path).headers(headers)
}

/// Headers a case sets.
type Headers = &'static [(&'static str, &'static str)];

async fn send(request: RequestBuilder) -> Answer {
    Answer::from(request.send().await.expect("send")).await
}

async fn run_sql(app: &TestApp, signed: &Signed, sql: &str) -> Answer {
    send(as_operator(app, signed, Method::POST, "/sql").json(&json!({"sql": sql}))).await
}

#[tokio::test]
async fn signing_in_sets_a_strict_http_only_session_cookie_for_the_console_path_alone() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let answer = sign_in_with(&app, EMAIL, PASSWORD).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json()["email"], EMAIL);
    let cookie = answer.headers["set-cookie"].to_str().expect("cookie");
    for attribute in ["gateway_console=", "Path=/_", "HttpOnly", "SameSite=Strict", "Max-Age=43200"] {
        assert!(cookie.contains(attribute), "{attribute} missing from {cookie}");
    }
    let stored: i64 = app
        .admin()
        .await
        .query_one(
            "select count(*) from _console.sessions where expires_at > now() + interval '11 hours'",
            &[],
        )
        .await
        .expect("sessions")
        .get(0);
    assert_eq!(stored, 1);
    let token = cookie.split(';').next().and_then(|pair| pair.split_once('=')).expect("token").1;
    let plain: i64 = app
        .admin()
        .await
        .query_one("select count(*) from _console.sessions where token_hash = $1", &[&token])
        .await
        .expect("sessions")
        .get(0);
    assert_eq!(plain, 0, "the database keeps a digest of the session, never the cookie");
}

#[tokio::test]
async fn a_wrong_password_or_an_unknown_operator_is_refused_alike() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let cases = [(EMAIL, "not-the-password"), ("nobody@example.com", PASSWORD), ("", "")];
    for (email, password) in cases {
        let answer = sign_in_with(&app, email, password).await;
        assert_eq!(answer.status, 401, "{email}: {}", answer.text);
        assert_eq!(answer.json()["code"], "invalid_credentials", "{email}");
        assert!(!answer.headers.contains_key("set-cookie"), "{email}");
    }
}

#[tokio::test]
async fn a_shop_user_is_no_operator() {
    let app = spawn_app().await;
    let state = <gateway::auth::AuthState as axum::extract::FromRef<_>>::from_ref(&app.state);
    gateway::auth::users::add(&state, "shopper@example.com", PASSWORD, None).await.expect("user");
    let answer = sign_in_with(&app, "shopper@example.com", PASSWORD).await;
    assert_eq!(answer.status, 401, "{}", answer.text);
}

#[tokio::test]
async fn sign_ins_past_the_limit_are_refused_even_with_the_right_password() {
    let app = console_app(|config| config.console.console_sign_in_limit = 3).await;
    for _ in 0..3 {
        assert_eq!(sign_in_with(&app, EMAIL, "wrong-password").await.status, 401);
    }
    let answer = sign_in_with(&app, EMAIL, PASSWORD).await;
    assert_eq!(answer.status, 429, "{}", answer.text);
    assert_eq!(answer.json()["code"], "over_request_rate_limit");
}

#[tokio::test]
async fn api_keys_and_jwts_are_refused_on_every_console_route_even_beside_a_session() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let user = app.user_token("0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11");
    let credentials: [(&str, &str, &str); 7] = [
        ("anon key as apikey", "apikey", &app.anon_key),
        ("anon key as bearer", "authorization", &format!("Bearer {}", app.anon_key)),
        ("user's JWT", "authorization", &format!("Bearer {user}")),
        ("service_role key", "authorization", &format!("Bearer {}", app.service_key)),
        ("service_role key as apikey", "apikey", &app.service_key),
        ("publishable key", "apikey", &app.publishable_key),
        ("secret key", "apikey", &app.secret_key),
    ];
    let routes = [
        (Method::GET, "/tables"),
        (Method::POST, "/sql"),
        (Method::GET, "/session"),
        (Method::GET, "/snippets"),
        (Method::POST, "/snippets"),
        (Method::POST, "/sign-in"),
        (Method::POST, "/sign-out"),
        (Method::GET, "/users"),
        (Method::POST, "/users"),
        (Method::POST, "/users/invite"),
        (Method::GET, "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11"),
        (Method::DELETE, "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11"),
        (Method::POST, "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11/ban"),
        (Method::POST, "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11/recovery"),
        (
            Method::DELETE,
            "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11/sessions/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d12",
        ),
        // API docs and live settings.
        (Method::GET, "/api-docs"),
        (Method::GET, "/settings"),
        // The table editor.
        (Method::POST, "/tables/preview"),
        (Method::POST, "/tables/apply"),
        (Method::GET, "/tables/public/notes/rows"),
        (Method::POST, "/tables/public/notes/rows"),
        (Method::PATCH, "/tables/public/notes/rows?id=eq.1"),
        (Method::DELETE, "/tables/public/notes/rows?id=eq.1"),
    ];
    for (name, header, value) in credentials {
        for (method, path) in &routes {
            for with_session in [false, true] {
                let mut request = console(&app, method.clone(), path).header(header, value);
                if with_session {
                    request = request.header("cookie", &signed.cookie).header("x-console-csrf", &signed.csrf);
                }
                let answer =
                    send(request.json(&json!({"sql": "select 1", "email": EMAIL, "password": PASSWORD})))
                        .await;
                assert_eq!(
                    answer.status, 401,
                    "{name} on {method} {path} (session: {with_session}): {}",
                    answer.text
                );
                assert_eq!(answer.json()["code"], "api_credentials_refused");
            }
        }
    }
    let in_query = send(console(&app, Method::GET, &format!("/tables?apikey={}", app.anon_key))).await;
    assert_eq!(in_query.status, 401);
}

#[tokio::test]
async fn without_a_session_nothing_but_signing_in_answers() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let cases = [
        ("no cookie", None),
        ("an unknown session", Some("gateway_console=0123456789abcdef")),
        ("an empty cookie", Some("gateway_console=")),
    ];
    for (name, cookie) in cases {
        for (method, path) in [
            (Method::GET, "/tables"),
            (Method::POST, "/sql"),
            (Method::GET, "/session"),
            (Method::GET, "/snippets"),
            (Method::GET, "/users"),
            (Method::POST, "/users"),
            (Method::GET, "/api-docs"),
            (Method::GET, "/settings"),
        ] {
            let mut request = console(&app, method.clone(), path).json(&json!({"sql": "select 1"}));
            if let Some(cookie) = cookie {
                request = request.header("cookie", cookie);
            }
            let answer = send(request).await;
            assert_eq!(answer.status, 401, "{name} on {method} {path}: {}", answer.text);
            assert_eq!(answer.json()["code"], "no_session");
        }
    }
}

#[tokio::test]
async fn a_change_from_another_origin_or_without_the_csrf_token_is_refused() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    const EVIL: &str = "https://evil.example";
    let cases: [(&str, Headers, u16); 7] = [
        ("same origin with the token", &[], 200),
        ("another Origin", &[("origin", EVIL)], 403),
        ("Origin null", &[("origin", "null")], 403),
        ("Sec-Fetch-Site cross-site", &[("sec-fetch-site", "cross-site")], 403),
        ("Sec-Fetch-Site same-site", &[("sec-fetch-site", "same-site")], 403),
        ("no CSRF token", &[("x-console-csrf", "")], 403),
        ("another session's token", &[("x-console-csrf", "0000")], 403),
    ];
    for (name, headers, status) in cases {
        let request = as_operator_but(&app, &signed, Method::POST, "/sql", headers);
        let answer = send(request.json(&json!({"sql": "select 1"}))).await;
        assert_eq!(answer.status, status, "{name}: {}", answer.text);
        if status == 403 {
            let request = as_operator_but(&app, &signed, Method::POST, "/users", headers);
            let answer =
                send(request.json(&json!({"email": "csrf@example.com", "password": "pass-word-1"}))).await;
            assert_eq!(answer.status, 403, "{name}, making a user: {}", answer.text);
        }
    }
    let made = app.admin().await.query_one("select count(*) from auth.users", &[]).await.expect("count");
    assert_eq!(made.get::<_, i64>(0), 0, "no refused request made a user");
    let cross_sign_in = console(&app, Method::POST, "/sign-in")
        .header("origin", EVIL)
        .json(&json!({"email": EMAIL, "password": PASSWORD}));
    assert_eq!(send(cross_sign_in).await.status, 403, "a sign-in from another origin");
    let form_sign_in = console(&app, Method::POST, "/sign-in")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("email={EMAIL}&password={PASSWORD}"));
    assert_eq!(send(form_sign_in).await.status, 400, "a form, which a page elsewhere could post");
    let read = console(&app, Method::GET, "/tables").header("cookie", &signed.cookie).header("origin", EVIL);
    let answer = send(read).await;
    assert_eq!(answer.status, 200, "a read needs no token");
    assert!(!answer.headers.contains_key("access-control-allow-origin"), "and no other origin may read it");
}

#[tokio::test]
async fn signing_out_ends_the_session() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    assert_eq!(send(as_operator(&app, &signed, Method::GET, "/session")).await.json()["email"], EMAIL);
    let out = send(as_operator(&app, &signed, Method::POST, "/sign-out")).await;
    assert_eq!(out.status, 204);
    assert!(out.headers["set-cookie"].to_str().expect("cookie").contains("Max-Age=0"));
    assert_eq!(send(as_operator(&app, &signed, Method::GET, "/tables")).await.status, 401);
}

#[tokio::test]
async fn a_new_password_ends_the_operators_sessions() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    gateway::console::access::add_operator(&app.state.db, EMAIL, "another-password-2")
        .await
        .expect("new password");
    assert_eq!(send(as_operator(&app, &signed, Method::GET, "/tables")).await.status, 401);
    assert_eq!(sign_in_with(&app, EMAIL, PASSWORD).await.status, 401);
    assert_eq!(sign_in_with(&app, EMAIL, "another-password-2").await.status, 200);
}

#[tokio::test]
async fn tables_list_columns_keys_indexes_and_policies_of_the_exposed_schemas() {
    let app = spawn_app().await;
    with_operator(&app).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.authors (id bigint generated always as identity primary key, name text not null);
             create table public.books (
               id bigint generated always as identity primary key,
               author_id bigint not null references public.authors (id) on delete cascade,
               title text not null default 'untitled' check (title <> ''),
               published date
             );
             create index books_title on public.books (title);
             alter table public.books enable row level security;
             create policy \"anyone reads books\" on public.books for select to anon, authenticated using (true);
             create view public.titles as select title from public.books;
             create table storage.not_exposed (id int);",
        )
        .await
        .expect("schema");
    let signed = sign_in(&app).await;
    let answer = send(as_operator(&app, &signed, Method::GET, "/tables")).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let tables = answer.json();
    let find = |name: &str| tables.as_array().expect("list").iter().find(|t| t["name"] == name).cloned();
    assert!(find("not_exposed").is_none(), "only --db-schemas are listed");
    let books = find("books").expect("books");
    assert_eq!(books["schema"], "public");
    assert_eq!(books["kind"], "table");
    assert_eq!(books["rlsEnabled"], true);
    let columns: Vec<(Value, Value, Value)> = books["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| (c["name"].clone(), c["type"].clone(), c["nullable"].clone()))
        .collect();
    assert_eq!(
        columns,
        [
            (json!("id"), json!("bigint"), json!(false)),
            (json!("author_id"), json!("bigint"), json!(false)),
            (json!("title"), json!("text"), json!(false)),
            (json!("published"), json!("date"), json!(true)),
        ]
    );
    assert_eq!(books["columns"][0]["identity"], "a");
    assert_eq!(books["columns"][2]["default"], "'untitled'::text");
    let kinds: Vec<&str> = books["constraints"]
        .as_array()
        .expect("constraints")
        .iter()
        .filter_map(|c| c["type"].as_str())
        .collect();
    for kind in ["primary key", "foreign key", "check"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    assert_eq!(
        books["foreignKeys"][0],
        json!({
            "name": "books_author_id_fkey", "columns": ["author_id"], "referencedSchema": "public",
            "referencedTable": "authors", "referencedColumns": ["id"],
            "definition": "FOREIGN KEY (author_id) REFERENCES authors(id) ON DELETE CASCADE",
        })
    );
    let indexes: Vec<&str> =
        books["indexes"].as_array().expect("indexes").iter().filter_map(|i| i["name"].as_str()).collect();
    assert_eq!(indexes, ["books_pkey", "books_title"]);
    assert_eq!(
        books["policies"],
        json!([{"name": "anyone reads books", "command": "SELECT", "permissive": true,
                "roles": ["anon", "authenticated"], "using": "true", "check": null}])
    );
    assert_eq!(find("titles").expect("the view")["kind"], "view");
    assert_eq!(find("authors").expect("authors")["rlsEnabled"], false);
}

#[tokio::test]
async fn sql_answers_columns_and_rows_as_text_or_the_databases_error() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let answer = run_sql(&app, &signed, "select 1 as one, 'uno'::text as name, null::int as nothing").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json(),
        json!({"columns": ["one", "name", "nothing"], "rows": [["1", "uno", null]], "rowCount": 1,
               "truncated": false, "statements": 1})
    );
    let answer = run_sql(
        &app,
        &signed,
        "create table public.notes (body text); insert into public.notes values ('a'), ('b')",
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json()["statements"], 2);
    assert_eq!(answer.json()["rowCount"], 2, "the last statement's count");
    assert_eq!(answer.json()["columns"], json!([]));
    let answer = run_sql(&app, &signed, "selec 1").await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["code"], "42601");
    assert_eq!(answer.json()["position"], 1);
    assert!(answer.json()["message"].as_str().expect("message").contains("syntax error"));
    let answer = run_sql(&app, &signed, "select * from public.missing").await;
    assert_eq!((answer.status, answer.json()["code"].clone()), (400, json!("42P01")));
    assert_eq!(
        send(as_operator(&app, &signed, Method::POST, "/sql").json(&json!({"sql": " "}))).await.status,
        400
    );
}

#[tokio::test]
async fn sql_keeps_at_most_the_row_limit_and_stops_at_the_statement_timeout() {
    let app = console_app(|config| {
        config.console.console_row_limit = 5;
        config.console.console_statement_timeout = "300ms".parse().expect("span");
    })
    .await;
    let signed = sign_in(&app).await;
    let answer = run_sql(&app, &signed, "select n from generate_series(1, 12) n").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let body = answer.json();
    assert_eq!(body["rows"].as_array().expect("rows").len(), 5);
    assert_eq!((body["truncated"].clone(), body["rowCount"].clone()), (json!(true), json!(12)));
    let answer = run_sql(&app, &signed, "select pg_sleep(3)").await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(answer.json()["code"], "57014", "canceled by statement_timeout");
}

#[tokio::test]
async fn sql_runs_as_the_schema_owner_past_row_level_security() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let answer = run_sql(&app, &signed, "select count(*) from _console.operators").await;
    assert_eq!(answer.json()["rows"], json!([["1"]]), "{}", answer.text);
    let answer = run_sql(&app, &signed, "select current_user = (select nspowner::regrole::text from pg_namespace where nspname = 'public') or (select rolsuper from pg_roles where rolname = current_user)").await;
    assert_eq!(answer.json()["rows"], json!([["t"]]), "{}", answer.text);
}

#[tokio::test]
async fn snippets_are_saved_listed_and_deleted() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let saved = send(
        as_operator(&app, &signed, Method::POST, "/snippets")
            .json(&json!({"name": "Orders today", "sql": "select 1"})),
    )
    .await;
    assert_eq!(saved.status, 201, "{}", saved.text);
    let id = saved.json()["id"].as_str().expect("id").to_owned();
    let listed = send(as_operator(&app, &signed, Method::GET, "/snippets")).await.json();
    assert_eq!(listed[0]["name"], "Orders today");
    assert_eq!(listed[0]["createdBy"], EMAIL);
    let path = format!("/snippets/{id}");
    assert_eq!(send(as_operator(&app, &signed, Method::DELETE, &path)).await.status, 204);
    assert_eq!(send(as_operator(&app, &signed, Method::DELETE, &path)).await.status, 404);
    assert_eq!(send(as_operator(&app, &signed, Method::GET, "/snippets")).await.json(), json!([]));
    let unnamed =
        send(as_operator(&app, &signed, Method::POST, "/snippets").json(&json!({"sql": "select 1"}))).await;
    assert_eq!(unnamed.status, 400);
}

#[tokio::test]
async fn the_console_turned_off_answers_404_and_another_path_moves_it() {
    let off = console_app(|config| config.console.enabled = false).await;
    for (method, path) in [(Method::POST, "/sign-in"), (Method::GET, "/tables"), (Method::POST, "/sql")] {
        let answer = sign_in_with(&off, EMAIL, PASSWORD).await;
        assert_eq!(answer.status, 404, "{method} {path}");
        assert_eq!(send(console(&off, method.clone(), path)).await.status, 404, "{method} {path}");
    }
    let moved = console_app(|config| config.console.console_path = "/ops".to_owned()).await;
    let answer = send(
        moved
            .client
            .post(format!("{}/ops/api/sign-in", moved.address))
            .json(&json!({"email": EMAIL, "password": PASSWORD})),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(answer.headers["set-cookie"].to_str().expect("cookie").contains("Path=/ops;"));
    assert_eq!(sign_in_with(&moved, EMAIL, PASSWORD).await.status, 404, "/_/api is no console's");
}

/// The real binary: `gateway operators add` makes an operator who signs in
/// at the console of `gateway serve`, and neither process logs the password,
/// at any level, while the sign-ins are logged.
#[tokio::test]
async fn operators_added_on_the_command_line_sign_in_and_no_password_is_ever_logged() {
    use tokio_postgres::config::Host;
    let gateway = common::binary::Gateway::start("console-cli", &[], &[], "trace");
    let superuser = gateway.private.cluster.pg_config("postgres");
    let Host::Unix(socket_dir) = &superuser.get_hosts()[0] else { panic!("a Unix socket") };
    let url = |user: &str| format!("host={} port=5432 dbname=postgres user={user}", socket_dir.display());
    let added = std::process::Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["operators", "add", "--email", EMAIL, "--data-dir"])
        .arg(gateway.private.dir.join("gateway-data"))
        .arg("--sql-root")
        .arg(common::repo_root())
        .env("GATEWAY_OPERATOR_PASSWORD", PASSWORD)
        .env("DATABASE_URL", url("authenticator"))
        .env("DATABASE_ADMIN_URL", url("postgres"))
        .env("JWT_SECRET", common::SECRET)
        .env("RUST_LOG", "trace")
        .output()
        .expect("gateway operators add");
    let cli_log =
        format!("{}{}", String::from_utf8_lossy(&added.stdout), String::from_utf8_lossy(&added.stderr));
    assert!(added.status.success(), "{cli_log}");
    assert!(cli_log.contains("operator ops@example.com can sign in at /_/"), "{cli_log}");

    let client = reqwest::Client::new();
    let sign_in = |password: &'static str| {
        client
            .post(format!("{}/_/api/sign-in", gateway.address))
            .json(&json!({"email": EMAIL, "password": password}))
            .send()
    };
    assert_eq!(sign_in("wrong-password-value").await.expect("send").status(), 401);
    assert_eq!(sign_in(PASSWORD).await.expect("send").status(), 200);

    let log = gateway.stop();
    assert!(log.contains("operator signed in"), "{log}");
    assert!(log.contains("operator sign-in refused"), "{log}");
    for (name, text) in [("gateway serve", &log), ("gateway operators add", &cli_log)] {
        for secret in [PASSWORD, "wrong-password-value"] {
            assert!(!text.contains(secret), "{name} logged a password");
        }
    }
}

#[tokio::test]
async fn the_page_is_the_builds_console_html_with_the_consoles_path_inline() {
    let build = tempfile::tempdir().expect("build folder");
    std::fs::write(build.path().join("index.html"), "<html><head></head><body>shop</body></html>")
        .expect("index");
    std::fs::write(
        build.path().join("console.html"),
        "<html><head><title>c</title></head><body>console</body></html>",
    )
    .expect("console");
    let dir = build.path().to_owned();
    let app = console_app(move |config| config.frontend.dir = Some(dir)).await;
    let no_redirects =
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let bare = no_redirects.get(format!("{}/_", app.address)).send().await.expect("send");
    assert_eq!(bare.status(), 308);
    assert_eq!(bare.headers()["location"], "/_/");
    for path in ["/_/", "/_/tables", "/_/sql"] {
        let page = send(app.get(path)).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(
            page.text.contains(r#"<script>window.__CONSOLE__={"path":"/_"}</script></head>"#),
            "{}",
            page.text
        );
        assert!(page.text.contains("console</body>"), "{path}");
        assert_eq!(page.headers["x-frame-options"], "DENY");
    }
    assert!(send(app.get("/store")).await.text.contains("shop"), "the shop's page is the shop's");
}

#[tokio::test]
async fn users_are_listed_searched_and_shown_with_their_sessions() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let ana = app.confirmed_user("ana@example.com", "password-of-ana-1").await;
    app.confirmed_user("bruno@example.com", "password-of-bruno-1").await;
    app.sign_in("ana@example.com", "password-of-ana-1").await;

    let cases = [
        ("/users", 2, 2, Some("bruno@example.com")),
        ("/users?search=ANA", 1, 1, Some("ana@example.com")),
        ("/users?search=nobody", 0, 0, None),
        ("/users?perPage=1&page=2", 2, 1, Some("ana@example.com")),
    ];
    for (path, total, listed, first) in cases {
        let answer = send(as_operator(&app, &signed, Method::GET, path)).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        let body = answer.json();
        assert_eq!(body["total"], total, "{path}");
        assert_eq!(body["users"].as_array().expect("users").len(), listed, "{path}");
        assert_eq!(body["users"][0]["email"].as_str(), first, "{path}: newest first");
    }

    let answer = send(as_operator(&app, &signed, Method::GET, &format!("/users/{ana}"))).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let detail = answer.json();
    assert_eq!(detail["user"]["email"], "ana@example.com");
    assert_eq!(detail["user"]["identities"][0]["provider"], "email");
    assert_eq!(detail["sessions"].as_array().expect("sessions").len(), 1);
    assert_eq!(detail["sessions"][0]["aal"], "aal1");

    for path in ["/users/not-a-uuid", "/users/0b9f5d3e-8a41-4c27-9a0e-4e1f1c9b7d11"] {
        assert_eq!(send(as_operator(&app, &signed, Method::GET, path)).await.status, 404, "{path}");
    }
}

#[tokio::test]
async fn a_revoked_session_and_a_banned_user_can_no_longer_refresh() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let id = app.confirmed_user("ana@example.com", "password-of-ana-1").await;

    let first = app.sign_in("ana@example.com", "password-of-ana-1").await;
    let detail = send(as_operator(&app, &signed, Method::GET, &format!("/users/{id}"))).await.json();
    let listed = detail["sessions"][0]["id"].as_str().expect("a session").to_owned();
    let revoke = as_operator(&app, &signed, Method::DELETE, &format!("/users/{id}/sessions/{listed}"));
    assert_eq!(send(revoke).await.status, 204);
    let refused = app.refresh(common::auth::refresh_token(&first)).await;
    assert_eq!(refused.status, 400, "a revoked session's refresh: {:?}", refused.body);

    let second = app.sign_in("ana@example.com", "password-of-ana-1").await;
    let cases = [("24h", 400, Some("user_banned")), ("none", 200, None)];
    for (duration, status, code) in cases {
        let ban = as_operator(&app, &signed, Method::POST, &format!("/users/{id}/ban"));
        let answer = send(ban.json(&json!({"duration": duration}))).await;
        assert_eq!(answer.status, 200, "ban {duration}: {}", answer.text);
        let refreshed = app.refresh(common::auth::refresh_token(&second)).await;
        assert_eq!(refreshed.status, status, "refresh after ban {duration}: {:?}", refreshed.body);
        if let Some(code) = code {
            assert_eq!(refreshed.body["error_code"], code);
        }
    }
    let bad = as_operator(&app, &signed, Method::POST, &format!("/users/{id}/ban"));
    let answer = send(bad.json(&json!({"duration": "forever"}))).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(answer.json()["code"], "validation_failed");
}

#[tokio::test]
async fn an_operator_creates_and_deletes_users_as_the_admin_api_does() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let create = |email: &str, password: &str| {
        as_operator(&app, &signed, Method::POST, "/users")
            .json(&json!({"email": email, "password": password, "confirm": true}))
    };
    let answer = send(create("carla@example.com", "password-of-carla-1")).await;
    assert_eq!(answer.status, 201, "{}", answer.text);
    let id = answer.json()["id"].as_str().expect("id").to_owned();
    assert_eq!(app.password_grant("carla@example.com", "password-of-carla-1").await.status, 200);

    let again = send(create("carla@example.com", "password-of-carla-2")).await;
    assert_eq!((again.status, again.json()["code"].clone()), (422, json!("email_exists")), "{}", again.text);

    assert_eq!(send(as_operator(&app, &signed, Method::DELETE, &format!("/users/{id}"))).await.status, 204);
    assert_eq!(send(as_operator(&app, &signed, Method::DELETE, &format!("/users/{id}"))).await.status, 404);
    assert_eq!(app.password_grant("carla@example.com", "password-of-carla-1").await.status, 400);
}

// The table editor (gateway/src/console/tables.rs).

/// `changes` previewed, then applied with the text the preview showed.
async fn preview_and_apply(app: &TestApp, signed: &Signed, changes: Value) -> String {
    let preview =
        send(as_operator(app, signed, Method::POST, "/tables/preview").json(&json!({"changes": changes})))
            .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    let sql = preview.json()["sql"].as_str().expect("sql").to_owned();
    let applied = send(
        as_operator(app, signed, Method::POST, "/tables/apply")
            .json(&json!({"changes": changes, "sql": sql})),
    )
    .await;
    assert_eq!(applied.status, 200, "{}", applied.text);
    assert_eq!(applied.json()["sql"], sql.as_str(), "apply ran the previewed text");
    sql
}

fn rows(app: &TestApp, signed: &Signed, method: Method, query: &str) -> RequestBuilder {
    as_operator(app, signed, method, &format!("/tables/public/notes/rows{query}"))
}

#[tokio::test]
async fn a_table_made_in_the_editor_is_shown_as_sql_first_and_served_by_rest_at_once() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let sql = preview_and_apply(
        &app,
        &signed,
        json!([
            {"change": "createTable", "schema": "public", "table": "notes", "columns": [
                {"name": "id", "type": "int8", "primaryKey": true},
                {"name": "body", "type": "text", "nullable": false},
                {"name": "public", "type": "boolean", "nullable": false, "default": {"value": "false"}}
            ]},
            {"change": "enableRls", "schema": "public", "table": "notes"},
            {"change": "createPolicy", "schema": "public", "table": "notes", "name": "authenticated read",
             "policy": {"template": "authenticatedRead"}}
        ]),
    )
    .await;
    assert!(sql.starts_with("create table \"public\".\"notes\" (\n  \"id\" int8 primary key,"), "{sql}");
    assert!(sql.contains("alter table \"public\".\"notes\" enable row level security;"), "{sql}");
    app.admin()
        .await
        .batch_execute(
            "grant select on public.notes to anon;
             create policy \"public ones\" on public.notes for select to anon using (public);",
        )
        .await
        .expect("policy");
    let inserted = send(
        rows(&app, &signed, Method::POST, "")
            .header("prefer", "return=representation")
            .json(&json!([{"id": 1, "body": "shown", "public": true}, {"id": 2, "body": "hidden", "public": false}])),
    )
    .await;
    assert_eq!(inserted.status, 201, "{}", inserted.text);
    assert_eq!(inserted.json()[1], json!({"id": 2, "body": "hidden", "public": false}));
    let as_anon = app.rest(Method::GET, "/notes?select=id", None).send().await.expect("send");
    let as_anon: Value = as_anon.json().await.expect("json");
    assert_eq!(as_anon, json!([{"id": 1}]), "anon sees what the policy lets it, through the reloaded cache");
    let policies = run_sql(
        &app,
        &signed,
        "select policyname, roles::text from pg_policies where tablename = 'notes' order by 1",
    )
    .await;
    assert_eq!(
        policies.json()["rows"],
        json!([["authenticated read", "{authenticated}"], ["public ones", "{anon}"]])
    );
    let all = send(rows(&app, &signed, Method::GET, "?select=id&order=id.desc")).await;
    assert_eq!(all.json(), json!([{"id": 2}, {"id": 1}]), "the operator sees every row: {}", all.text);
}

#[tokio::test]
async fn rows_are_paged_sorted_filtered_and_changed_by_primary_key_through_the_rest_planner() {
    let app = spawn_app().await;
    with_operator(&app).await;
    app.admin()
        .await
        .batch_execute(
            "create table public.notes (id int primary key, body text);
             insert into public.notes select n, 'note ' || n from generate_series(1, 30) n;
             alter table public.notes enable row level security;
             notify pgrst, 'reload schema';",
        )
        .await
        .expect("schema");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    let signed = sign_in(&app).await;
    let cases: [(&str, Headers, Value, Option<&str>); 4] = [
        ("?select=id&order=id.asc&limit=2&offset=10", &[], json!([{"id": 11}, {"id": 12}]), None),
        ("?select=id&order=id.desc&limit=1", &[], json!([{"id": 30}]), None),
        ("?select=id,body&body=like.*29", &[], json!([{"id": 29, "body": "note 29"}]), None),
        (
            "?select=id&id=lt.3&order=id",
            &[("prefer", "count=exact")],
            json!([{"id": 1}, {"id": 2}]),
            Some("0-1/2"),
        ),
    ];
    for (query, headers, expected, range) in cases {
        let mut request = rows(&app, &signed, Method::GET, query);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let answer = send(request).await;
        assert_eq!((answer.status, answer.json()), (200, expected), "{query}: {}", answer.text);
        if let Some(range) = range {
            assert_eq!(answer.content_range.as_deref(), Some(range), "{query}");
        }
    }
    let edited = send(
        rows(&app, &signed, Method::PATCH, "?id=eq.5")
            .header("prefer", "return=representation")
            .json(&json!({"body": "edited"})),
    )
    .await;
    assert_eq!(edited.json(), json!([{"id": 5, "body": "edited"}]), "{}", edited.text);
    let deleted = send(rows(&app, &signed, Method::DELETE, "?id=eq.6")).await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
    let left = send(rows(&app, &signed, Method::GET, "?select=id&id=in.(5,6)")).await;
    assert_eq!(left.json(), json!([{"id": 5}]));
    let bad = send(rows(&app, &signed, Method::GET, "?select=nope")).await;
    assert_eq!(bad.status, 400, "PostgREST's own error: {}", bad.text);
    let hidden = send(as_operator(&app, &signed, Method::GET, "/tables/auth/users/rows")).await;
    assert_eq!(
        hidden.status, 406,
        "a schema --db-schemas does not expose, as /rest/v1 answers it: {}",
        hidden.text
    );
    assert!(
        bad.json()["hint"].is_string()
            || bad.json()["details"].is_string()
            || bad.json()["message"].is_string()
    );
}

#[tokio::test]
async fn schema_changes_refuse_unknown_types_expressions_and_text_that_was_not_previewed() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let column =
        |column: Value| json!([{"change": "addColumn", "schema": "public", "table": "t", "column": column}]);
    let refused = [
        ("a type not in the list", column(json!({"name": "c", "type": "text; drop table x"}))),
        (
            "an expression not in the list",
            column(json!({"name": "c", "type": "int4", "default": {"expression": "pg_sleep(5)"}})),
        ),
        ("an empty name", column(json!({"name": "", "type": "text"}))),
        ("a field the editor does not know", column(json!({"name": "c", "type": "text", "check": "true"}))),
        ("no change", json!([])),
    ];
    for (name, changes) in refused {
        let answer = send(
            as_operator(&app, &signed, Method::POST, "/tables/preview").json(&json!({"changes": changes})),
        )
        .await;
        assert!(matches!(answer.status, 400 | 422), "{name}: {} {}", answer.status, answer.text);
    }
    let changes = json!([{"change": "createTable", "schema": "public", "table": "t",
                          "columns": [{"name": "id", "type": "int4"}]}]);
    for sql in [json!(null), json!("create table public.t (id int4); drop table _console.operators;")] {
        let answer = send(
            as_operator(&app, &signed, Method::POST, "/tables/apply")
                .json(&json!({"changes": changes, "sql": sql})),
        )
        .await;
        assert_eq!(answer.status, 400, "{sql}: {}", answer.text);
    }
    let failing = json!([
        {"change": "createTable", "schema": "public", "table": "t", "columns": [{"name": "id", "type": "int4"}]},
        {"change": "dropColumn", "schema": "public", "table": "t", "column": "missing"}
    ]);
    let preview =
        send(as_operator(&app, &signed, Method::POST, "/tables/preview").json(&json!({"changes": failing})))
            .await;
    let applied = send(
        as_operator(&app, &signed, Method::POST, "/tables/apply")
            .json(&json!({"changes": failing, "sql": preview.json()["sql"]})),
    )
    .await;
    assert_eq!((applied.status, applied.json()["code"].clone()), (400, json!("42703")), "{}", applied.text);
    let exists = run_sql(&app, &signed, "select to_regclass('public.t') is null").await;
    assert_eq!(exists.json()["rows"], json!([["t"]]), "the whole change was rolled back");
}

#[tokio::test]
async fn columns_are_added_renamed_altered_and_dropped() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let change = |change: Value| {
        let mut change = change;
        change["schema"] = json!("public");
        change["table"] = json!("notes");
        change
    };
    preview_and_apply(
        &app,
        &signed,
        json!([
            change(json!({"change": "createTable", "columns": [{"name": "id", "type": "int4", "primaryKey": true}]})),
            change(json!({"change": "addColumn", "column": {"name": "n", "type": "text", "default": {"value": "7"}}})),
            change(json!({"change": "renameColumn", "column": "n", "to": "count"})),
            change(json!({"change": "alterColumn", "column": "count", "type": "int8",
                          "default": {"value": "0"}, "nullable": false})),
            change(json!({"change": "addColumn", "column": {"name": "gone", "type": "jsonb"}})),
            change(json!({"change": "dropColumn", "column": "gone"})),
        ]),
    )
    .await;
    let answer = send(as_operator(&app, &signed, Method::GET, "/tables")).await;
    let notes = answer
        .json()
        .as_array()
        .expect("tables")
        .iter()
        .find(|t| t["name"] == "notes")
        .cloned()
        .expect("notes");
    let columns: Vec<Value> = notes["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| json!([c["name"], c["type"], c["nullable"], c["default"]]))
        .collect();
    assert_eq!(
        columns,
        [json!(["id", "integer", false, null]), json!(["count", "bigint", false, "'0'::bigint"])]
    );
}

#[tokio::test]
async fn explain_analyze_answers_a_plan_tree_as_json_within_the_sql_limits() {
    let app = spawn_app().await;
    with_operator(&app).await;
    let signed = sign_in(&app).await;
    let answer = run_sql(
        &app,
        &signed,
        "explain (analyze, format json) select n from generate_series(1, 10) n order by n desc",
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let plan: Value =
        serde_json::from_str(answer.json()["rows"][0][0].as_str().expect("text")).expect("json");
    let root = &plan[0]["Plan"];
    assert_eq!(root["Node Type"], "Sort");
    assert_eq!(root["Actual Rows"], 10);
    assert_eq!(root["Plans"][0]["Node Type"], "Function Scan");
}

#[tokio::test]
async fn a_schema_or_row_change_from_another_origin_or_without_the_token_changes_nothing() {
    let app = spawn_app().await;
    with_operator(&app).await;
    app.admin().await.batch_execute("create table public.notes (id int primary key)").await.expect("table");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    let signed = sign_in(&app).await;
    let changes = json!([{"change": "addColumn", "schema": "public", "table": "notes",
                          "column": {"name": "body", "type": "text"}}]);
    let sql = r#"alter table "public"."notes" add column "body" text;"#;
    let cases: [(&str, Headers); 3] = [
        ("another Origin", &[("origin", "https://evil.example")]),
        ("Sec-Fetch-Site cross-site", &[("sec-fetch-site", "cross-site")]),
        ("no CSRF token", &[("x-console-csrf", "")]),
    ];
    for (name, headers) in cases {
        let apply = as_operator_but(&app, &signed, Method::POST, "/tables/apply", headers)
            .json(&json!({"changes": changes, "sql": sql}));
        assert_eq!(send(apply).await.status, 403, "{name}: apply");
        let insert = as_operator_but(&app, &signed, Method::POST, "/tables/public/notes/rows", headers)
            .json(&json!({"id": 1}));
        assert_eq!(send(insert).await.status, 403, "{name}: insert");
    }
    let left = run_sql(&app, &signed, "select count(*), (select count(*) from information_schema.columns where table_name = 'notes') from public.notes").await;
    assert_eq!(left.json()["rows"], json!([["0", "1"]]), "{}", left.text);
}
