//! Supabase's current keys (docs/keys.md): publishable and secret API keys on
//! every service, the browser refusal, revocation seen by every gateway on one
//! database, signing-key rotation, the JWKS, the operator's own JWK set, and
//! the legacy keys turned off.

mod common;

use std::time::{Duration, Instant};

use gateway::keys::{self, KeyKind, SigningAlgorithm};
use reqwest::Method;
use serde_json::{Value, json};

use common::{Options, TestApp, cluster, spawn_app_with, spawn_shop, test_config};

const BROWSER: &str =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

/// `POST /rest/v1/rpc/whoami` (the fixture's `select current_user`) with
/// `apikey` and, when given, a bearer.
async fn rest_role(app: &TestApp, apikey: &str, bearer: Option<&str>, agent: Option<&str>) -> (u16, Value) {
    let mut request = app
        .client
        .post(format!("{}/rest/v1/rpc/whoami", app.address))
        .header("apikey", apikey)
        .json(&json!({}));
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    if let Some(agent) = agent {
        request = request.header("user-agent", agent);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A request to `path` as supabase-js sends it with a key and no session:
/// the key as `apikey` and as the bearer.
fn as_key(app: &TestApp, method: Method, path: &str, key: &str) -> reqwest::RequestBuilder {
    app.client.request(method, format!("{}{path}", app.address)).header("apikey", key).bearer_auth(key)
}

async fn status_of(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A second gateway on the first one's database.
async fn second_gateway(first: &TestApp) -> TestApp {
    let mut api = cluster().cluster.pg_config("authenticator");
    api.dbname(&first.database);
    let mut other = spawn_app_with(Options { api: Some(api), ..Options::default() }).await;
    other.database = first.database.clone();
    other
}

/// Waits up to `within` for `check` to hold.
async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while start.elapsed() < within {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

async fn keys_client(app: &TestApp) -> tokio_postgres::Client {
    let mut api = cluster().cluster.pg_config("authenticator");
    api.dbname(&app.database);
    keys::connect(&api).await.expect("keys connection")
}

#[tokio::test]
async fn a_publishable_key_acts_as_anon_and_a_secret_key_as_service_role_on_every_service() {
    let app = spawn_shop().await;
    assert!(app.publishable_key.starts_with("sb_publishable_"), "{}", app.publishable_key);
    assert!(app.secret_key.starts_with("sb_secret_"), "{}", app.secret_key);
    let user = app.user_token("00000000-0000-4000-8000-000000000001");
    let cases: [(&str, &str, Option<&str>, &str); 6] = [
        ("publishable key alone", &app.publishable_key, None, "anon"),
        ("publishable key as apikey and bearer", &app.publishable_key, Some(&app.publishable_key), "anon"),
        ("secret key alone", &app.secret_key, None, "service_role"),
        ("secret key as apikey and bearer", &app.secret_key, Some(&app.secret_key), "service_role"),
        (
            "a user's token decides over the publishable key",
            &app.publishable_key,
            Some(&user),
            "authenticated",
        ),
        ("a user's token decides over the secret key", &app.secret_key, Some(&user), "authenticated"),
    ];
    for (name, key, bearer, role) in cases {
        assert_eq!(rest_role(&app, key, bearer, None).await, (200, json!(role)), "{name}");
    }

    // Auth: the admin API is the secret key's, as it is service_role's.
    let admin = |key: &str| as_key(&app, Method::GET, "/auth/v1/admin/users", key);
    assert_eq!(status_of(admin(&app.secret_key)).await.0, 200);
    let (status, body) = status_of(admin(&app.publishable_key)).await;
    assert_eq!((status, &body["error_code"]), (403, &json!("not_admin")), "{body}");
    assert_eq!(status_of(as_key(&app, Method::GET, "/auth/v1/settings", &app.publishable_key)).await.0, 200);

    // Storage: only service_role may make buckets.
    let bucket = |key: &str, name: &str| {
        as_key(&app, Method::POST, "/storage/v1/bucket", key).json(&json!({"name": name, "public": false}))
    };
    assert_eq!(status_of(bucket(&app.secret_key, "made-with-the-secret-key")).await.0, 200);
    let (status, _) = status_of(bucket(&app.publishable_key, "made-with-the-publishable-key")).await;
    assert!(status >= 400, "anon may not make buckets: {status}");
}

#[tokio::test]
async fn bad_keys_get_each_services_invalid_key_answer_before_any_database_work() {
    let app = spawn_shop().await;
    let client = keys_client(&app).await;
    let revoked = keys::create_api_key(&client, "soon revoked", KeyKind::Secret).await.expect("create");
    keys::revoke_api_key(&client, KeyKind::Secret, "soon revoked").await.expect("revoke");
    let mut seen = None;
    keys::load(&client, &app.state.credentials, &mut seen).await.expect("load");
    let unknown = keys::generate(KeyKind::Secret).expect("key");
    let swapped = format!("sb_publishable_{}", &app.secret_key["sb_secret_".len()..]);
    let invalid = json!({"message":"Invalid API key","hint":"Double check your Supabase `anon` or `service_role` API key."});
    let cases: [(&str, &str); 5] = [
        ("an unknown secret key", &unknown),
        ("a revoked key", &revoked),
        ("a secret key's random part as a publishable key", &swapped),
        ("a malformed key", "sb_secret_tooshort"),
        ("an empty secret key", "sb_secret_"),
    ];
    for (name, key) in cases {
        for path in ["/rest/v1/products", "/auth/v1/settings", "/storage/v1/bucket"] {
            let before = app.state.db.round_trips();
            let (status, body) = status_of(as_key(&app, Method::GET, path, key)).await;
            assert_eq!((status, &body), (401, &invalid), "{name} on {path}");
            assert_eq!(app.state.db.round_trips(), before, "{name} on {path}: no database work");
        }
    }
    // An opaque key as the bearer must be the apikey itself, else it is no JWT.
    let (status, body) = rest_role(&app, &app.publishable_key, Some(&app.secret_key), None).await;
    assert_eq!((status, &body["code"]), (401, &json!("PGRST301")), "{body}");
}

#[tokio::test]
async fn a_secret_key_from_a_browser_is_refused_and_a_publishable_key_is_not() {
    let app = spawn_shop().await;
    let refused = json!({
        "message": "Forbidden use of secret API key in browser",
        "hint": "Secret API keys can only be used in a protected environment and should never be used in a browser. Use a publishable key instead."
    });
    let cases: [(&str, &str, Option<&str>, u16); 6] = [
        ("secret key, browser", &app.secret_key, Some(BROWSER), 401),
        (
            "secret key, Firefox",
            &app.secret_key,
            Some("Mozilla/5.0 (Windows NT 10.0; rv:133.0) Gecko/20100101 Firefox/133.0"),
            401,
        ),
        ("secret key, node", &app.secret_key, Some("node"), 200),
        ("secret key, curl", &app.secret_key, Some("curl/8.5.0"), 200),
        ("secret key, no User-Agent", &app.secret_key, None, 200),
        ("publishable key, browser", &app.publishable_key, Some(BROWSER), 200),
    ];
    for (name, key, agent, status) in cases {
        let (got, body) = rest_role(&app, key, Some(key), agent).await;
        assert_eq!(got, status, "{name}: {body}");
        if status == 401 {
            assert_eq!(body, refused, "{name}");
        }
    }
    for path in ["/auth/v1/admin/users", "/storage/v1/bucket"] {
        let request = as_key(&app, Method::GET, path, &app.secret_key).header("user-agent", BROWSER);
        assert_eq!(status_of(request).await, (401, refused.clone()), "{path}");
    }
}

#[tokio::test]
async fn a_key_made_or_revoked_on_one_gateway_is_seen_by_every_gateway_on_its_database_within_seconds() {
    let first = spawn_shop().await;
    let second = second_gateway(&first).await;
    assert_eq!(second.publishable_key, first.publishable_key, "the first start made the keys once");
    let every = Duration::from_millis(200);
    let refreshers = [
        keys::spawn_refresher(first.state.db.clone(), first.state.credentials.clone(), every),
        keys::spawn_refresher(second.state.db.clone(), second.state.credentials.clone(), every),
    ];
    let client = keys_client(&first).await;
    let key = keys::create_api_key(&client, "backend", KeyKind::Secret).await.expect("create");
    for app in [&first, &second] {
        let accepted = eventually(Duration::from_secs(3), || async {
            rest_role(app, &key, None, None).await == (200, json!("service_role"))
        })
        .await;
        assert!(accepted, "a new key is accepted by {}", app.address);
    }
    keys::revoke_api_key(&client, KeyKind::Secret, "backend").await.expect("revoke");
    let revoked_at = Instant::now();
    for app in [&first, &second] {
        let refused =
            eventually(Duration::from_secs(3), || async { rest_role(app, &key, None, None).await.0 == 401 })
                .await;
        assert!(refused, "a revoked key is refused by {}", app.address);
    }
    assert!(revoked_at.elapsed() < Duration::from_secs(3));
    let listed = keys::list_api_keys(&client).await.expect("list");
    let backend = listed.iter().find(|k| k.name == "backend").expect("listed");
    assert!(backend.revoked_at.is_some() && key.starts_with(&backend.start));
    for refresher in refreshers {
        refresher.abort();
    }
}

/// The `kid` and `alg` of a token's header.
fn header(token: &str) -> Value {
    use base64::Engine;
    let part = token.split('.').next().expect("header");
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).expect("base64"))
        .expect("json")
}

#[tokio::test]
async fn rotation_keeps_tokens_of_both_keys_valid_until_the_old_key_is_revoked() {
    let app = spawn_shop().await;
    let reload = || async {
        let client = keys_client(&app).await;
        keys::load(&client, &app.state.credentials, &mut None).await.expect("reload");
    };
    let sub = "00000000-0000-4000-8000-000000000001";
    let old = app.user_token(sub);
    let old_kid = header(&old)["kid"].as_str().expect("kid").to_owned();
    assert_eq!(header(&old)["alg"], "ES256");
    let jwks = |app: &TestApp| {
        let request = app.client.get(format!("{}/auth/v1/.well-known/jwks.json", app.address));
        async move { request.send().await.expect("jwks").json::<Value>().await.expect("json") }
    };
    let kids = |set: &Value| -> Vec<String> {
        set["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .map(|k| k["kid"].as_str().expect("kid").to_owned())
            .collect()
    };

    let mut client = keys_client(&app).await;
    let standby =
        keys::create_standby(&mut client, app.state.credentials.jwt.secret(), SigningAlgorithm::Rs256)
            .await
            .expect("standby");
    reload().await;
    assert_eq!(
        kids(&jwks(&app).await),
        [old_kid.clone(), standby.to_string()],
        "a standby key is published first"
    );
    assert_eq!(header(&app.user_token(sub))["kid"], old_kid.as_str(), "but signs nothing yet");

    let (previous, current) = keys::rotate(&mut client).await.expect("rotate");
    assert_eq!((previous.map(|k| k.to_string()), current), (Some(old_kid.clone()), standby));
    reload().await;
    let new = app.user_token(sub);
    assert_eq!(header(&new)["alg"], "RS256");
    assert_eq!(header(&new)["kid"], standby.to_string().as_str());
    for (name, token) in [("old key", &old), ("new key", &new)] {
        assert_eq!(
            rest_role(&app, &app.publishable_key, Some(token), None).await,
            (200, json!("authenticated")),
            "{name}"
        );
    }

    keys::revoke_signing_key(&client, old_kid.parse().expect("uuid")).await.expect("revoke");
    assert!(keys::revoke_signing_key(&client, standby).await.is_err(), "the current key cannot be revoked");
    reload().await;
    assert_eq!(kids(&jwks(&app).await), [standby.to_string()]);
    let (status, body) = rest_role(&app, &app.publishable_key, Some(&old), None).await;
    assert_eq!((status, &body["code"]), (401, &json!("PGRST301")), "a revoked key's token: {body}");
    assert_eq!(rest_role(&app, &app.publishable_key, Some(&new), None).await, (200, json!("authenticated")));
    let listed = keys::list_signing_keys(&client).await.expect("list");
    // The first start makes two keys in one transaction: same time, any order.
    let mut statuses: Vec<(&str, &str)> =
        listed.iter().map(|k| (k.algorithm.as_str(), k.status.as_str())).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [("ES256", "revoked"), ("HS256", "previous"), ("RS256", "current")]);
}

#[tokio::test]
async fn the_first_start_signs_with_the_configured_algorithm_and_names_the_key_in_kid() {
    let cases = [
        (SigningAlgorithm::Es256, "ES256", 1),
        (SigningAlgorithm::Rs256, "RS256", 1),
        (SigningAlgorithm::Hs256, "HS256", 0),
    ];
    for (algorithm, alg, published) in cases {
        let mut config = test_config();
        config.jwt_signing_algorithm = algorithm;
        let app = spawn_app_with(Options { config, ..Options::default() }).await;
        let token = app.user_token("00000000-0000-4000-8000-000000000001");
        assert_eq!(header(&token)["alg"], alg);
        let kid = header(&token)["kid"].as_str().expect("a kid in every token").to_owned();
        let listed = keys::list_signing_keys(&keys_client(&app).await).await.expect("list");
        let current = listed.iter().find(|k| k.status == "current").expect("a current key");
        assert_eq!((current.kid.to_string(), current.algorithm.as_str()), (kid, alg));
        assert!(listed.iter().any(|k| k.algorithm == "HS256"), "the JWT secret is kept as a key");
        assert_eq!(
            app.state.credentials.jwt.jwks()["keys"].as_array().expect("keys").len(),
            published,
            "{alg}"
        );
        assert!(app.state.credentials.jwt.verify(&token).is_ok(), "{alg}");
        assert!(
            app.state.credentials.jwt.verify(&app.anon_key).is_ok(),
            "{alg}: the legacy key still verifies"
        );
    }
}

#[tokio::test]
async fn revoking_the_jwt_secrets_key_ends_legacy_tokens_and_importing_it_brings_them_back() {
    let app = spawn_shop().await;
    let client = keys_client(&app).await;
    let legacy_user =
        app.state.credentials.jwt.sign_legacy(&json!({"role": "authenticated", "sub": "x"})).expect("sign");
    let hs256 = keys::list_signing_keys(&client)
        .await
        .expect("list")
        .into_iter()
        .find(|k| k.algorithm == "HS256")
        .expect("the JWT secret's key");
    assert_eq!(hs256.status, "previous");
    let accepted = |key: &str, bearer: &str| {
        let (key, bearer) = (key.to_owned(), bearer.to_owned());
        let app = &app;
        async move { rest_role(app, &key, Some(&bearer), None).await.0 == 200 }
    };
    assert!(accepted(&app.anon_key, &app.anon_key).await);
    assert!(accepted(&app.publishable_key, &legacy_user).await);

    keys::revoke_signing_key(&client, hs256.kid).await.expect("revoke");
    keys::load(&client, &app.state.credentials, &mut None).await.expect("reload");
    assert!(!accepted(&app.anon_key, &app.anon_key).await, "the legacy API keys end with the secret's key");
    assert!(!accepted(&app.publishable_key, &legacy_user).await, "and so do tokens it signed");
    assert!(accepted(&app.publishable_key, &app.publishable_key).await, "the publishable key does not");

    assert_eq!(keys::import_legacy(&client).await.expect("import"), hs256.kid);
    keys::load(&client, &app.state.credentials, &mut None).await.expect("reload");
    assert!(accepted(&app.anon_key, &app.anon_key).await);
    assert!(accepted(&app.publishable_key, &legacy_user).await);
}

#[tokio::test]
async fn the_jwks_publishes_public_halves_only_with_cache_headers() {
    let app = spawn_shop().await;
    let response =
        app.client.get(format!("{}/auth/v1/.well-known/jwks.json", app.address)).send().await.expect("jwks");
    assert_eq!(response.headers()["cache-control"], "public, max-age=600");
    let set: Value = response.json().await.expect("json");
    let keys = set["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 1, "the ES256 key; the JWT secret (HS256) has no public half: {set}");
    let key = &keys[0];
    let mut members: Vec<&str> = key.as_object().expect("object").keys().map(String::as_str).collect();
    members.sort_unstable();
    assert_eq!(members, ["alg", "crv", "ext", "key_ops", "kid", "kty", "use", "x", "y"]);
    assert_eq!((&key["kty"], &key["crv"], &key["alg"]), (&json!("EC"), &json!("P-256"), &json!("ES256")));
    assert!(!set.to_string().contains(common::SECRET));
}

/// An RSA key pair of the operator's, as a private JWK.
fn operator_rsa_jwk(kid: &str) -> (Value, jsonwebtoken::EncodingKey) {
    use base64::Engine;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    let b64 = |bytes: Vec<u8>| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048).expect("rsa key");
    let jwk = json!({
        "kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "key_ops": ["sign", "verify"],
        "n": b64(key.n().to_bytes_be()), "e": b64(key.e().to_bytes_be()), "d": b64(key.d().to_bytes_be()),
    });
    let der = key.to_pkcs1_der().expect("der");
    (jwk, jsonwebtoken::EncodingKey::from_rsa_der(der.as_bytes()))
}

#[tokio::test]
async fn tokens_and_api_keys_signed_by_the_operators_own_jwk_verify_on_every_service() {
    let (jwk, private) = operator_rsa_jwk("operator-rsa");
    let mut config = test_config();
    config.jwt_keys = Some(gateway::config::Secret::new(json!({"keys": [jwk]}).to_string()));
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    let sign = |role: &str| {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.kid = Some("operator-rsa".to_owned());
        jsonwebtoken::encode(
            &header,
            &json!({"role": role, "iss": "supabase", "exp": 4_000_000_000u64}),
            &private,
        )
        .expect("sign")
    };
    let (anon, service) = (sign("anon"), sign("service_role"));
    assert_eq!(rest_role(&app, &anon, Some(&anon), None).await, (200, json!("anon")));
    assert_eq!(rest_role(&app, &service, Some(&service), None).await, (200, json!("service_role")));
    assert_eq!(status_of(as_key(&app, Method::GET, "/auth/v1/admin/users", &service)).await.0, 200);
    assert_eq!(status_of(as_key(&app, Method::GET, "/storage/v1/bucket", &service)).await.0, 200);
    let set: Value = app
        .client
        .get(format!("{}/auth/v1/.well-known/jwks.json", app.address))
        .send()
        .await
        .expect("jwks")
        .json()
        .await
        .expect("json");
    let published =
        set["keys"].as_array().expect("keys").iter().find(|k| k["kid"] == "operator-rsa").expect("published");
    assert!(published.get("d").is_none(), "never the private exponent: {published}");
}

#[tokio::test]
async fn turning_the_legacy_keys_off_leaves_only_the_publishable_and_secret_keys() {
    let mut config = test_config();
    config.legacy_api_keys = false;
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    for key in [&app.anon_key, &app.service_key] {
        let (status, body) = rest_role(&app, key, Some(key), None).await;
        assert_eq!((status, &body["message"]), (401, &json!("Invalid API key")), "{body}");
    }
    assert_eq!(rest_role(&app, &app.publishable_key, None, None).await, (200, json!("anon")));
    let user = app.user_token("00000000-0000-4000-8000-000000000001");
    assert_eq!(rest_role(&app, &app.publishable_key, Some(&user), None).await, (200, json!("authenticated")));
    let config: Value = app.get("/config.json").send().await.expect("config").json().await.expect("json");
    assert_eq!((&config["publishableKey"], &config["anonKey"]), (&json!(app.publishable_key), &Value::Null));
}
