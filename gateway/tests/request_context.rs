//! Every request runs in its own transaction as the caller's role, with the
//! caller's claims set locally; bad tokens are refused before the pool is touched.

mod common;

use axum::{
    Json, Router,
    extract::{Query, State},
    routing::get,
};
use gateway::AppState;
use gateway::caller::Caller;
use gateway::db::Access;
use gateway::error::ApiError;
use gateway::role::Role;
use serde_json::{Value, json};

use common::{Options, TestApp, spawn_app, spawn_app_with};

/// Routes that show what a request's transaction sees.
fn probes() -> Router<AppState> {
    Router::new()
        .route("/_test/whoami", get(whoami))
        .route("/_test/abandon", get(abandon))
        .route("/_test/sleep", get(sleep))
        .route("/_test/write", get(write))
        .route("/_test/note", get(note))
}

/// How a probe runs its statement: `?one=true` in a session of one statement
/// that commits (as every REST request does: one implicit transaction once
/// the connection has the statement prepared), else as a statement then a
/// commit of their own (BEGIN, settings, statement, then COMMIT).
#[derive(serde::Deserialize)]
struct Way {
    #[serde(default)]
    one: bool,
}

/// The two ways, as query strings.
const WAYS: [&str; 2] = ["", "?one=true"];

async fn query_once_or_not(
    state: &AppState,
    caller: &Caller,
    access: Access,
    way: &Way,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<tokio_postgres::Row>, ApiError> {
    let mut session = state.db.session(caller, access).await?;
    if way.one {
        return session.query_and_end(sql, params, true).await;
    }
    let rows = session.query(sql, params).await?;
    session.commit().await?;
    Ok(rows)
}

async fn whoami(
    State(state): State<AppState>,
    caller: Caller,
    Query(way): Query<Way>,
) -> Result<Json<Value>, ApiError> {
    let sql = "select current_user::text, auth.uid()::text, auth.role(), auth.jwt(), \
               current_setting('request.method', true), current_setting('request.path', true), \
               current_setting('request.headers', true)::jsonb ->> 'x-probe', \
               current_setting('statement_timeout'), current_setting('transaction_read_only'), \
               current_setting('search_path'), current_setting('transaction_isolation')";
    let rows = query_once_or_not(&state, &caller, Access::ReadOnly, &way, sql, &[]).await?;
    let row = &rows[0];
    Ok(Json(json!({
        "current_user": row.get::<_, String>(0),
        "uid": row.get::<_, Option<String>>(1),
        "role": row.get::<_, Option<String>>(2),
        "jwt": row.get::<_, Option<Value>>(3),
        "method": row.get::<_, String>(4),
        "path": row.get::<_, String>(5),
        "probe": row.get::<_, Option<String>>(6),
        "statement_timeout": row.get::<_, String>(7),
        "read_only": row.get::<_, String>(8),
        "search_path": row.get::<_, String>(9),
        "isolation": row.get::<_, String>(10),
    })))
}

/// Opens a transaction and walks away from it, as a handler whose client
/// disconnected would.
async fn abandon(State(state): State<AppState>, caller: Caller) -> Result<Json<Value>, ApiError> {
    let mut session = state.db.session(&caller, Access::ReadWrite).await?;
    session.query("select set_config('request.jwt.claims', '{\"sub\":\"leaked\"}', true)", &[]).await?;
    drop(session);
    Ok(Json(json!({ "abandoned": true })))
}

#[derive(serde::Deserialize)]
struct Seconds {
    seconds: f64,
    #[serde(default)]
    one: bool,
}

async fn sleep(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<Seconds>,
) -> Result<Json<Value>, ApiError> {
    let way = Way { one: q.one };
    query_once_or_not(&state, &caller, Access::ReadOnly, &way, "select pg_sleep($1)", &[&q.seconds]).await?;
    Ok(Json(json!({ "slept": q.seconds })))
}

async fn write(
    State(state): State<AppState>,
    caller: Caller,
    Query(way): Query<Way>,
) -> Result<Json<Value>, ApiError> {
    let sql = "create table public.not_allowed_in_a_read (id int)";
    query_once_or_not(&state, &caller, Access::ReadOnly, &way, sql, &[]).await?;
    Ok(Json(json!({})))
}

#[derive(serde::Deserialize)]
struct Note {
    commit: bool,
}

/// Inserts a row and ends the transaction in the same round trip.
async fn note(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<Note>,
) -> Result<Json<Value>, ApiError> {
    let session = state.db.session(&caller, Access::ReadWrite).await?;
    let rows = session
        .query_and_end("insert into public.notes (body) values ('x') returning id", &[], q.commit)
        .await?;
    Ok(Json(json!({ "id": rows[0].get::<_, i32>(0) })))
}

async fn probe_app(pool_size: usize) -> TestApp {
    let mut config = common::test_config();
    config.pool_size = pool_size;
    spawn_app_with(Options { config, routes: Some(probes()), ..Options::default() }).await
}

async fn whoami_as(app: &TestApp, token: Option<&str>) -> (u16, Value) {
    whoami_in(app, token, "").await
}

/// [`whoami_as`] one of the [`WAYS`].
async fn whoami_in(app: &TestApp, token: Option<&str>, way: &str) -> (u16, Value) {
    let mut request = app.get(&format!("/_test/whoami{way}")).header("x-probe", "hello");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json body"))
}

#[tokio::test]
async fn auth_uid_returns_the_jwt_sub_inside_a_request() {
    let app = probe_app(2).await;
    let sub = "5b0b6a4e-6f3c-4c3e-9d55-1f0d6b3c2a11";
    // Each way three times: the first prepares the statement, the others
    // find it prepared.
    for way in WAYS.repeat(3) {
        let (status, body) = whoami_in(&app, Some(&app.user_token(sub)), way).await;
        assert_eq!(status, 200, "{way}: {body}");
        assert_eq!(body["current_user"], "authenticated", "{way}");
        assert_eq!(body["uid"], sub, "{way}");
        assert_eq!(body["role"], "authenticated", "{way}");
        assert_eq!(body["jwt"]["email"], format!("{sub}@example.com"), "{way}");
        assert_eq!(body["method"], "GET", "{way}");
        assert_eq!(body["path"], "/_test/whoami", "{way}");
        assert_eq!(body["probe"], "hello", "{way}");
        assert_eq!(body["read_only"], "on", "{way}");
        assert_eq!(body["search_path"], "\"public\", \"extensions\"", "{way}");
        assert_eq!(body["isolation"], "read committed", "{way}");
    }
}

/// PostgREST begins every transaction read committed; a request of one
/// statement, which runs in an implicit transaction, gets it from the
/// connection's settings, whatever the database's default.
#[tokio::test]
async fn requests_run_read_committed_whatever_the_database_default() {
    let database = common::fresh_database().await;
    let mut admin = common::cluster().cluster.pg_config(gateway::embedded::SUPERUSER);
    admin.dbname(&database);
    common::connect(&admin)
        .await
        .batch_execute(&format!(
            "alter database {database} set default_transaction_isolation = 'serializable'"
        ))
        .await
        .expect("alter database");
    let mut api = common::cluster().cluster.pg_config("authenticator");
    api.dbname(&database);
    let app = spawn_app_with(Options { api: Some(api), routes: Some(probes()), ..Options::default() }).await;
    for way in WAYS.repeat(2) {
        let (status, body) = whoami_in(&app, Some(&app.anon_key), way).await;
        assert_eq!(status, 200, "{way}: {body}");
        assert_eq!(body["isolation"], "read committed", "{way}");
    }
}

#[tokio::test]
async fn each_role_gets_its_own_statement_timeout() {
    let app = probe_app(1).await;
    let cases = [
        (Role::Anon, "3s"),
        (Role::Authenticated, "8s"),
        // service_role sets none, so the gateway's connection default applies.
        (Role::ServiceRole, "8s"),
    ];
    for (role, timeout) in cases {
        let (status, body) =
            whoami_as(&app, Some(&app.token_for(role, "c0ffee00-0000-4000-8000-000000000001"))).await;
        assert_eq!(status, 200);
        assert_eq!(body["current_user"], role.as_str());
        assert_eq!(body["statement_timeout"], timeout, "{role}");
    }
}

#[tokio::test]
async fn a_statement_over_the_role_timeout_is_cancelled_with_a_500() {
    let app = probe_app(1).await;
    for way in ["?", "?one=true&"] {
        // A short sleep first, so that the statement is prepared.
        let sleep = |seconds| format!("/_test/sleep{way}seconds={seconds}");
        let response = app.get(&sleep(0.01)).bearer_auth(&app.anon_key).send().await.expect("request");
        assert_eq!(response.status().as_u16(), 200, "{way}");
        let response = app.get(&sleep(3.3)).bearer_auth(&app.anon_key).send().await.expect("request");
        assert_eq!(response.status().as_u16(), 500, "{way}");
        assert_eq!(response.headers()["proxy-status"], "PostgREST; error=57014", "{way}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["code"], "57014", "{way}");
        assert_eq!(body["message"], "canceling statement due to statement timeout", "{way}");
        // The connection is healthy afterwards.
        let (status, _) = whoami_as(&app, Some(&app.anon_key)).await;
        assert_eq!(status, 200, "{way}");
    }
}

#[tokio::test]
async fn reads_run_in_read_only_transactions() {
    let app = probe_app(1).await;
    for way in WAYS.repeat(3) {
        let response = app
            .get(&format!("/_test/write{way}"))
            .bearer_auth(&app.service_key)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status().as_u16(), 405, "{way}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["code"], "25006", "{way}");
    }
}

#[tokio::test]
async fn two_thousand_requests_cycling_roles_on_one_connection_leak_nothing() {
    let app = probe_app(1).await;
    let roles = [Role::Anon, Role::Authenticated, Role::ServiceRole];
    for i in 0..2000 {
        let role = roles[i % 3];
        let sub = format!("00000000-0000-4000-8000-{i:012}");
        let token = app.token_for(role, &sub);
        let (status, body) = whoami_in(&app, Some(&token), WAYS[i % 2]).await;
        assert_eq!(status, 200, "request {i}: {body}");
        assert_eq!(body["current_user"], role.as_str(), "request {i}");
        assert_eq!(body["role"], role.as_str(), "request {i}");
        let expected_uid = (role == Role::Authenticated).then_some(sub.as_str());
        assert_eq!(body["uid"].as_str(), expected_uid, "request {i}");
    }
}

#[tokio::test]
async fn an_abandoned_transaction_never_reaches_the_next_request() {
    let app = probe_app(1).await;
    for _ in 0..3 {
        let response = app.get("/_test/abandon").bearer_auth(&app.service_key).send().await.expect("request");
        assert_eq!(response.status().as_u16(), 200);
        let (status, body) = whoami_as(&app, Some(&app.anon_key)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["current_user"], "anon");
        assert_eq!(body["uid"], Value::Null);
        assert_eq!(
            body["jwt"],
            json!({ "role": "anon", "iss": "supabase", "ref": "gateway", "iat": 1_700_000_000u64, "exp": 2_015_360_000u64 })
        );
    }
}

#[tokio::test]
async fn without_a_bearer_the_api_key_decides_the_role() {
    let app = probe_app(1).await;
    let response = app.get("/_test/whoami").header("apikey", &app.service_key).send().await.expect("request");
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["current_user"], "service_role");
    let (_, body) = whoami_as(&app, None).await;
    assert_eq!(body["current_user"], "anon");
}

/// Each bad token must be refused with 401 before a pooled connection is asked
/// for: the pool here points at a closed port, so touching it would give 503.
#[tokio::test]
async fn bad_tokens_are_refused_without_touching_the_pool() {
    let unreachable: tokio_postgres::Config =
        "host=127.0.0.1 port=1 user=authenticator dbname=nowhere".parse().expect("config");
    let app =
        spawn_app_with(Options { api: Some(unreachable), routes: Some(probes()), ..Options::default() })
            .await;
    let now = gateway::jwt::now() as i64;
    let forger = gateway::jwt::JwtKeys::hs256(
        &gateway::config::Secret::new("a-different-secret-of-enough-length!!"),
        None,
    )
    .expect("keys");
    use base64::Engine;
    let b64 = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "forged signature",
            forger.sign(&json!({"role":"service_role"})).expect("sign"),
            "PGRST301",
            "JWT cryptographic operation failed",
        ),
        (
            "expired 31 s ago",
            app.sign(json!({"role":"authenticated","exp": now - 31})),
            "PGRST303",
            "JWT expired",
        ),
        (
            "issued in the future",
            app.sign(json!({"role":"authenticated","iat": now + 60})),
            "PGRST303",
            "JWT issued at future",
        ),
        (
            "not valid yet",
            app.sign(json!({"role":"authenticated","nbf": now + 60})),
            "PGRST303",
            "JWT not yet valid",
        ),
        (
            "alg none",
            format!("{}.{}.", b64(json!({"alg":"none","typ":"JWT"})), b64(json!({"role":"service_role"}))),
            "PGRST301",
            "Wrong or unsupported encoding algorithm",
        ),
        (
            "RS256 header on an HS key",
            format!(
                "{}.{}.c2ln",
                b64(json!({"alg":"RS256","typ":"JWT"})),
                b64(json!({"role":"service_role"}))
            ),
            "PGRST301",
            "Wrong or unsupported encoding algorithm",
        ),
        ("unknown role", app.sign(json!({"role":"postgres"})), "PGRST303", "JWT role is not allowed"),
        (
            "role with SQL in it",
            app.sign(json!({"role":"anon\"; drop schema public; --"})),
            "PGRST303",
            "JWT role is not allowed",
        ),
        ("two parts", "abc.def".to_owned(), "PGRST301", "Expected 3 parts in JWT; got 2"),
    ];
    for (name, token, code, message) in cases {
        let response = app.get("/_test/whoami").bearer_auth(&token).send().await.expect("request");
        assert_eq!(response.status().as_u16(), 401, "{name}");
        let www = response.headers()["www-authenticate"].to_str().expect("header").to_owned();
        assert!(www.starts_with("Bearer error=\"invalid_token\""), "{name}: {www}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body, json!({"code": code, "message": message, "details": null, "hint": null}), "{name}");
    }
    // A good token does reach the pool, which cannot connect: 503, not 401.
    let response = app.get("/_test/whoami").bearer_auth(&app.anon_key).send().await.expect("request");
    assert_eq!(response.status().as_u16(), 503);
    assert!(response.headers().contains_key("retry-after"));
}

/// The same attacks against the key set a first start makes (docs/keys.md):
/// an ES256 current key and the JWT secret as a previous HS256 key. A token
/// names its key by `kid` and must carry that key's algorithm.
#[tokio::test]
async fn tokens_are_verified_by_kid_and_algorithm_confusion_is_refused() {
    use base64::Engine;
    use hmac::{KeyInit, Mac};
    use p256::pkcs8::EncodePrivateKey;
    let app = probe_app(1).await;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let json64 = |v: Value| b64(v.to_string().as_bytes());
    let jwks = app.state.credentials.jwt.jwks();
    let es_key = &jwks["keys"][0];
    let es_kid = es_key["kid"].as_str().expect("kid").to_owned();
    let hs_kid: uuid::Uuid = app
        .admin()
        .await
        .query_one("select id from auth.gateway_signing_keys where algorithm = 'HS256'", &[])
        .await
        .expect("the JWT secret's row")
        .get(0);
    let claims = json!({"role": "service_role", "exp": gateway::jwt::now() + 600});
    // An HS256 token whose HMAC key is whatever the attacker has: the public key.
    let hmac_with = |key: &[u8], header: Value| {
        let signing_input = format!("{}.{}", json64(header), json64(claims.clone()));
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("hmac");
        mac.update(signing_input.as_bytes());
        format!("{signing_input}.{}", b64(&mac.finalize().into_bytes()))
    };
    let public_bytes = es_key.to_string();
    let other_p256 = p256::SecretKey::random(&mut rand_core::OsRng).to_pkcs8_der().expect("der");
    let sign_es = |kid: Option<&str>| {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_ec_der(other_p256.as_bytes()))
            .expect("sign")
    };
    let unsigned = |header: Value| format!("{}.{}.", json64(header), json64(claims.clone()));
    let algorithm = ("PGRST301", "Wrong or unsupported encoding algorithm");
    let signature = ("PGRST301", "JWT cryptographic operation failed");
    let cases: Vec<(&str, String, (&str, &str))> = vec![
        ("alg none naming the current key", unsigned(json!({"alg": "none", "kid": es_kid})), algorithm),
        ("alg none without kid", unsigned(json!({"alg": "none"})), algorithm),
        (
            "HS256 keyed with the current key's public JWK",
            hmac_with(public_bytes.as_bytes(), json!({"alg": "HS256", "kid": es_kid})),
            algorithm,
        ),
        (
            "HS256 keyed with the public JWK, no kid",
            hmac_with(public_bytes.as_bytes(), json!({"alg": "HS256"})),
            signature,
        ),
        (
            "HS256 with the JWT secret naming the ES256 key",
            hmac_with(common::SECRET.as_bytes(), json!({"alg": "HS256", "kid": es_kid})),
            algorithm,
        ),
        (
            "RS256 naming the ES256 key",
            format!("{}c2ln", unsigned(json!({"alg": "RS256", "kid": es_kid}))),
            algorithm,
        ),
        ("ES256 naming the JWT secret's key", sign_es(Some(&hs_kid.to_string())), algorithm),
        ("ES256 without kid", sign_es(None), algorithm),
        ("ES256 by another P-256 key under the current kid", sign_es(Some(&es_kid)), signature),
        ("an unknown kid", sign_es(Some(&uuid::Uuid::new_v4().to_string())), signature),
        ("a kid that is not a string", unsigned(json!({"alg": "ES256", "kid": 5})), signature),
    ];
    for (name, token, (code, message)) in cases {
        let response = app.get("/_test/whoami").bearer_auth(&token).send().await.expect("request");
        assert_eq!(response.status().as_u16(), 401, "{name}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body, json!({"code": code, "message": message, "details": null, "hint": null}), "{name}");
    }
    // Both keys in use verify their own tokens: the current one's, and the
    // JWT secret's legacy tokens without kid.
    let current = app.sign(json!({"role": "service_role"}));
    let legacy = app.state.credentials.jwt.sign_legacy(&json!({"role": "service_role"})).expect("sign");
    for token in [current, legacy] {
        let (status, body) = whoami_as(&app, Some(&token)).await;
        assert_eq!((status, &body["current_user"]), (200, &json!("service_role")));
    }
}

#[tokio::test]
async fn api_keys_are_demanded_where_the_hosted_gateway_demands_them() {
    let app = spawn_app().await;
    let cases: Vec<(&str, Option<String>, u16, Value)> = vec![
        (
            "/rest/v1/products",
            None,
            401,
            json!({"message":"No API key found in request","hint":"No `apikey` request header or url param was found."}),
        ),
        (
            "/auth/v1/user",
            None,
            401,
            json!({"message":"No API key found in request","hint":"No `apikey` request header or url param was found."}),
        ),
        (
            "/rest/v1/products",
            Some("not-a-key".to_owned()),
            401,
            json!({"message":"Invalid API key","hint":"Double check your Supabase `anon` or `service_role` API key."}),
        ),
        (
            "/rest/v1/products",
            Some(app.user_token("00000000-0000-4000-8000-000000000001")),
            401,
            json!({"message":"Invalid API key","hint":"Double check your Supabase `anon` or `service_role` API key."}),
        ),
    ];
    for (path, key, status, body) in cases {
        let mut request = app.get(path);
        if let Some(key) = &key {
            request = request.header("apikey", key);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status().as_u16(), status, "{path} {key:?}");
        assert_eq!(response.json::<Value>().await.expect("json"), body, "{path} {key:?}");
    }
    // The key may also come as a query parameter; storage asks for none.
    let response =
        app.get(&format!("/rest/v1/products?apikey={}", app.anon_key)).send().await.expect("request");
    assert_ne!(response.status().as_u16(), 401);
    let response = app.get("/storage/v1/object/public/bucket/file.png").send().await.expect("request");
    assert_ne!(response.status().as_u16(), 401);
}

#[tokio::test]
async fn preflights_are_answered_and_headers_exposed() {
    let app = spawn_app().await;
    for prefix in ["/rest/v1/products", "/auth/v1/token", "/storage/v1/object/b/x"] {
        let response = app
            .client
            .request(reqwest::Method::OPTIONS, format!("{}{prefix}", app.address))
            .header("origin", "http://localhost:5173")
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "apikey,authorization,x-client-info,content-type,prefer,x-upsert",
            )
            .send()
            .await
            .expect("preflight");
        assert_eq!(response.status().as_u16(), 200, "{prefix}");
        let headers = response.headers();
        assert_eq!(headers["access-control-allow-origin"], "*");
        assert_eq!(
            headers["access-control-allow-headers"],
            "apikey,authorization,x-client-info,content-type,prefer,x-upsert"
        );
    }
    let response = app
        .get("/rest/v1/products")
        .header("origin", "http://localhost:5173")
        .header("apikey", &app.anon_key)
        .send()
        .await
        .expect("request");
    let exposed = response.headers()["access-control-expose-headers"].to_str().expect("header").to_owned();
    for header in ["content-range", "content-profile", "location", "x-supabase-api-version", "range-unit"] {
        assert!(exposed.contains(header), "{header} in {exposed}");
    }
}

#[tokio::test]
async fn health_and_readiness_answer() {
    let app = spawn_app().await;
    let response = app.get("/health").send().await.expect("request");
    assert_eq!(response.status().as_u16(), 200);
    let response = app.get("/ready").send().await.expect("request");
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn a_statement_and_its_commit_or_rollback_share_one_round_trip_and_end_the_transaction() {
    let app = probe_app(1).await;
    app.admin()
        .await
        .batch_execute("create table public.notes (id serial primary key, body text); grant all on public.notes, public.notes_id_seq to service_role;")
        .await
        .expect("table");
    for (commit, expected) in [(false, 0), (true, 1), (false, 1), (true, 2)] {
        let response = app
            .get(&format!("/_test/note?commit={commit}"))
            .bearer_auth(&app.service_key)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status().as_u16(), 200);
        let count: i64 = app
            .admin()
            .await
            .query_one("select count(*) from public.notes", &[])
            .await
            .expect("count")
            .get(0);
        assert_eq!(count, expected, "after commit={commit}");
        // The pooled connection is not left inside a transaction.
        let (status, body) = whoami_as(&app, Some(&app.anon_key)).await;
        assert_eq!((status, body["read_only"].clone()), (200, json!("on")));
    }
}

/// The settings' answer echoes every value, so a request with large claims
/// and headers gets an answer in several parts while the statement behind it
/// is awaited: the pipeline must keep reading it, or the connection stalls.
#[tokio::test]
async fn a_request_with_large_claims_and_headers_is_served() {
    // About 150 KB of headers: above the default limit of 64 KiB (431), so
    // the limit is raised for this test of the pipeline.
    let mut config = common::test_config();
    config.pool_size = 1;
    config.server.max_header_size = 256 * 1024;
    let app = spawn_app_with(Options { config, routes: Some(probes()), ..Options::default() }).await;
    let probe = "x".repeat(64 * 1024);
    let token = app.sign(json!({"role": "anon", "note": "y".repeat(64 * 1024)}));
    for _ in 0..3 {
        let response = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            app.get("/_test/whoami").header("x-probe", &probe).bearer_auth(&token).send(),
        )
        .await
        .expect("answered in time")
        .expect("request");
        assert_eq!(response.status().as_u16(), 200);
        let body: Value = response.json().await.expect("json body");
        assert_eq!(body["probe"].as_str().map(str::len), Some(probe.len()));
    }
}
