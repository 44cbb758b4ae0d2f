//! `/functions/v1`: real Edge Functions (`tests/fixtures/functions/supabase`)
//! run by the Deno that `scripts/setup.sh` installs from npm, called as
//! functions-js calls them. Each test has a gateway, and so function
//! processes, of its own.

mod common;

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use common::{Options, TestApp, repo_root, spawn_app_with, test_config};

const ALICE: &str = "11111111-1111-4111-8111-111111111111";

/// A gateway serving the fixture functions, with limits small enough to hit.
async fn spawn_functions() -> TestApp {
    let mut config = test_config();
    config.functions.dir = Some(repo_root().join("gateway/tests/fixtures/functions/supabase/functions"));
    config.functions.deno = Some(repo_root().join("tools/deno/node_modules/@deno/linux-x64-glibc/deno"));
    config.functions.wall_clock_limit = "3s".parse().expect("span");
    config.functions.memory_limit_mb = 64;
    config.functions.cpu_time_limit = "1s".parse().expect("span");
    config.functions.boot_timeout = "120s".parse().expect("span");
    spawn_app_with(Options { config, ..Options::default() }).await
}

impl TestApp {
    /// A call as functions-js makes it: the anon key as `apikey` and the
    /// bearer (`token`, or the anon key).
    fn invoke(&self, method: Method, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}/functions/v1/{path}", self.address))
            .header("apikey", &self.anon_key)
            .bearer_auth(token.unwrap_or(&self.anon_key))
    }
}

async fn json_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let body = response.json().await.expect("a JSON body");
    (status, body)
}

#[tokio::test]
async fn a_function_receives_the_method_url_headers_and_json_body_it_was_sent() {
    let app = spawn_functions().await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let (status, body) = json_of(
        app.invoke(Method::POST, "hello", None)
            .header("x-custom", "yes")
            .json(&json!({"name": "Functions"}))
            .send()
            .await
            .expect("invoke"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["method"], "POST");
    assert_eq!(body["url"], format!("http://{host}/hello"));
    assert_eq!(body["custom"], "yes");
    assert_eq!(body["body"], json!({"name": "Functions"}));

    let (status, body) = json_of(app.invoke(Method::GET, "hello", None).send().await.expect("invoke")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["method"], "GET");
    assert_eq!(body["body"], Value::Null);
}

#[tokio::test]
async fn every_method_and_subpath_with_its_query_reaches_the_function() {
    let app = spawn_functions().await;
    for method in [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
        let (status, body) =
            json_of(app.invoke(method.clone(), "hello/a/b?x=1&y=two", None).send().await.expect("invoke"))
                .await;
        assert_eq!(status, StatusCode::OK, "{method}");
        assert_eq!(body["method"], method.as_str());
        assert_eq!(body["pathname"], "/hello/a/b");
        assert_eq!(body["search"], "?x=1&y=two");
    }
    let response = app.invoke(Method::HEAD, "hello", None).send().await.expect("head");
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn the_answer_is_the_functions_own_with_no_cors_or_compression_added() {
    let app = spawn_functions().await;
    let preflight = app
        .client
        .request(Method::OPTIONS, format!("{}/functions/v1/open", app.address))
        .header("origin", "https://shop.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .expect("preflight");
    assert_eq!(preflight.status(), StatusCode::OK);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    assert!(preflight.headers().get("access-control-max-age").is_none(), "the gateway's CORS answered");
    assert_eq!(preflight.text().await.expect("body"), "ok");

    let response = app
        .invoke(Method::GET, "hello", None)
        .header("origin", "https://shop.example")
        .header("accept-encoding", "gzip")
        .send()
        .await
        .expect("invoke");
    assert!(response.headers().get("access-control-allow-origin").is_none());
    assert!(response.headers().get("content-encoding").is_none());
}

#[tokio::test]
async fn answers_stream_as_the_function_writes_them_and_uploads_as_they_arrive() {
    let app = spawn_functions().await;
    let mut events = app.invoke(Method::GET, "stream", None).send().await.expect("invoke");
    assert_eq!(events.headers()["content-type"], "text/event-stream");
    let first = tokio::time::timeout(Duration::from_secs(10), events.chunk())
        .await
        .expect("the first event arrives before the function ends its answer")
        .expect("chunk")
        .expect("some bytes");
    assert_eq!(&first[..], b"data: first\n\n");
    app.invoke(Method::POST, "stream/release", None).send().await.expect("release");
    let mut rest = Vec::new();
    while let Some(chunk) = events.chunk().await.expect("chunk") {
        rest.extend_from_slice(&chunk);
    }
    assert_eq!(rest, b"data: last\n\n");

    // 20 MB in 64 KiB pieces, never held whole by the gateway.
    let pieces = futures::stream::iter((0..320).map(|_| Ok::<_, std::io::Error>(vec![7u8; 65_536])));
    let (status, body) = json_of(
        app.invoke(Method::POST, "stream/count", None)
            .body(reqwest::Body::wrap_stream(pieces))
            .send()
            .await
            .expect("upload"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"bytes": 320 * 65_536}));
}

#[tokio::test]
async fn with_verify_jwt_only_a_valid_token_reaches_the_function() {
    let app = spawn_functions().await;
    let user = app.user_token(ALICE);
    let legacy = app
        .state
        .credentials
        .jwt
        .sign_legacy(&json!({"role": "authenticated", "sub": ALICE, "exp": gateway::jwt::now() + 60}))
        .expect("legacy");
    let forged = format!("{user}x");
    let cases: [(&str, Option<&str>, StatusCode, Value); 6] = [
        ("the anon key", Some(&app.anon_key), StatusCode::OK, Value::Null),
        ("a user's ES256 token", Some(&user), StatusCode::OK, Value::Null),
        ("a legacy HS256 token", Some(&legacy), StatusCode::OK, Value::Null),
        (
            "no header",
            None,
            StatusCode::UNAUTHORIZED,
            json!({"code": 401, "message": "Missing authorization header"}),
        ),
        (
            "a forged token",
            Some(&forged),
            StatusCode::UNAUTHORIZED,
            json!({"code": 401, "message": "Invalid JWT"}),
        ),
        (
            "a publishable key, which is no JWT",
            Some(&app.publishable_key),
            StatusCode::UNAUTHORIZED,
            json!({"code": 401, "message": "Invalid JWT"}),
        ),
    ];
    for (case, token, status, refusal) in cases {
        let mut request =
            app.client.post(format!("{}/functions/v1/hello", app.address)).header("apikey", &app.anon_key);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("invoke");
        assert_eq!(response.status(), status, "{case}");
        if status != StatusCode::OK {
            assert_eq!(response.json::<Value>().await.expect("json"), refusal, "{case}");
        }
    }
}

#[tokio::test]
async fn without_verify_jwt_anyone_reaches_the_function_even_with_a_publishable_key() {
    let app = spawn_functions().await;
    let (status, body) = json_of(
        app.client
            .get(format!("{}/functions/v1/open", app.address))
            .header("apikey", &app.publishable_key)
            .send()
            .await
            .expect("invoke"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["open"], true);
}

#[tokio::test]
async fn what_is_no_function_answers_not_found() {
    let app = spawn_functions().await;
    let not_found = json!({"code": "NOT_FOUND", "message": "Requested function was not found"});
    for path in ["absent", "_shared", "_shared/reply.ts", "", "..%2Fhello"] {
        let (status, body) =
            json_of(app.invoke(Method::POST, path, None).send().await.expect("invoke")).await;
        assert_eq!((status, body), (StatusCode::NOT_FOUND, not_found.clone()), "{path:?}");
    }
}

#[tokio::test]
async fn a_function_that_cannot_start_answers_boot_error_and_one_that_throws_worker_error() {
    let app = spawn_functions().await;
    let (status, body) =
        json_of(app.invoke(Method::POST, "broken", None).send().await.expect("invoke")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body, json!({"code": "BOOT_ERROR", "message": "Worker failed to boot (please check logs)"}));

    let (status, body) =
        json_of(app.invoke(Method::POST, "throws", None).send().await.expect("invoke")).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["code"], "WORKER_ERROR");
}

#[tokio::test]
async fn a_function_that_never_answers_is_stopped_at_the_wall_clock_limit_and_others_go_on() {
    let app = spawn_functions().await;
    let started = std::time::Instant::now();
    let (status, body) =
        json_of(app.invoke(Method::GET, "spin?sleep", None).send().await.expect("invoke")).await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(body["code"], "WORKER_TIMEOUT");
    assert!(started.elapsed() >= Duration::from_secs(3) && started.elapsed() < Duration::from_secs(20));
    // A new process serves the next call, and another function never noticed.
    let response = app.invoke(Method::GET, "spin", None).send().await.expect("invoke");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.text().await.expect("text"), "done");
    let response = app.invoke(Method::GET, "hello", None).send().await.expect("invoke");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_runaway_loop_is_stopped_at_the_cpu_time_limit_before_the_wall_clock() {
    // A wall clock the CPU time limit comes well before, even on a busy
    // machine, where the loop gets a second of CPU in more than a second.
    let mut config = test_config();
    config.functions.dir = Some(repo_root().join("gateway/tests/fixtures/functions/supabase/functions"));
    config.functions.deno = Some(repo_root().join("tools/deno/node_modules/@deno/linux-x64-glibc/deno"));
    config.functions.cpu_time_limit = "1s".parse().expect("span");
    config.functions.wall_clock_limit = "60s".parse().expect("span");
    config.functions.boot_timeout = "120s".parse().expect("span");
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    // Started first, so that the loop's CPU time is the function's own.
    let response = app.invoke(Method::GET, "spin", None).send().await.expect("warm");
    assert_eq!(response.status(), StatusCode::OK);
    let started = std::time::Instant::now();
    let (status, body) =
        json_of(app.invoke(Method::GET, "spin?forever", None).send().await.expect("invoke")).await;
    assert_eq!(status.as_u16(), 546);
    assert_eq!(body["code"], "WORKER_LIMIT");
    assert!(started.elapsed() < Duration::from_secs(30), "before the wall clock: {:?}", started.elapsed());
    let response = app.invoke(Method::GET, "spin", None).send().await.expect("invoke");
    assert_eq!(response.text().await.expect("text"), "done");
}

#[tokio::test]
async fn an_answer_still_streaming_at_the_wall_clock_limit_is_cut_off() {
    let app = spawn_functions().await;
    let started = std::time::Instant::now();
    let mut events = app.invoke(Method::GET, "stream", None).send().await.expect("invoke");
    assert_eq!(events.status(), StatusCode::OK);
    let first = events.chunk().await.expect("chunk").expect("bytes");
    assert_eq!(&first[..], b"data: first\n\n");
    let rest = tokio::time::timeout(Duration::from_secs(20), events.chunk()).await.expect("ended in time");
    assert!(rest.is_err(), "the answer ends in an error, not as if whole: {rest:?}");
    assert!(started.elapsed() >= Duration::from_secs(3));
}

#[tokio::test]
async fn a_function_over_its_memory_limit_answers_worker_limit() {
    let app = spawn_functions().await;
    let (status, body) = json_of(app.invoke(Method::GET, "hog", None).send().await.expect("invoke")).await;
    assert_eq!(status.as_u16(), 546);
    assert_eq!(
        body,
        json!({"code": "WORKER_LIMIT", "message": "Worker failed to respond due to a resource limit (please check logs)"})
    );
}

#[tokio::test]
async fn a_function_reads_its_variables_its_folders_and_nothing_else() {
    let app = spawn_functions().await;
    let (status, body) =
        json_of(app.invoke(Method::GET, "sandbox", None).send().await.expect("invoke")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({
            "supabaseUrl": true,
            "anonKey": true,
            "serviceRoleKey": true,
            "dbUrl": true,
            "publishableKeys": ["default"],
            "path": null,
            "readOwn": "allowed",
            "readShared": "allowed",
            "readOther": "NotCapable",
            "readEtc": "NotCapable",
            "writeTmp": "allowed",
            "writeOwn": "NotCapable",
        })
    );
}

#[tokio::test]
async fn a_function_using_supabase_js_reads_rows_as_its_caller_or_as_the_service_role() {
    let app = spawn_functions().await;
    app.admin()
        .await
        .batch_execute(&format!(
            "create table public.notes (owner uuid not null, body text not null);
             grant select on public.notes to anon, authenticated, service_role;
             alter table public.notes enable row level security;
             create policy \"owners read their notes\" on public.notes for select to authenticated
               using (owner = auth.uid());
             insert into public.notes values ('{ALICE}', 'alice''s'), (gen_random_uuid(), 'someone else''s');
             notify pgrst, 'reload schema';"
        ))
        .await
        .expect("fixture");
    let user = app.user_token(ALICE);
    let cases = [
        ("the user", "rls", user.as_str(), json!(["alice's"])),
        ("anon", "rls", app.anon_key.as_str(), json!([])),
        ("the service role", "rls?as=service", app.anon_key.as_str(), json!(["alice's", "someone else's"])),
    ];
    for (case, path, token, rows) in cases {
        let (status, body) =
            json_of(app.invoke(Method::GET, path, Some(token)).send().await.expect("invoke")).await;
        assert_eq!(status, StatusCode::OK, "{case}: {body}");
        assert_eq!(body, rows, "{case}");
    }
}
