//! The gateway serves the shop's built frontend at `/` (gateway/src/frontend.rs):
//! files with their types and cache policy, `index.html` for client-side
//! routes with the configuration inline, 404 for missing files, files
//! compressed at build time in the encoding asked for, `/config.json`, the
//! first page of the catalogue inline for the public routes, and the APIs
//! untouched.

mod common;

use std::path::Path;

use gateway::role::Role;
use serde_json::json;

use common::{Answer, Options, TestApp, spawn_app_with, test_config};

/// The index page as served: the built page with the configuration before
/// `</head>`.
fn index_with(config: &serde_json::Value) -> String {
    format!("{HEAD}<script>window.__SHOP_CONFIG__={config}</script>{BODY}")
}

const DATA_START: &str = "<script type=\"application/json\" id=\"shop-first-screen\">";

/// The first screen's data inline in a page, parsed, if it has any.
fn inline_data(page: &str) -> Option<serde_json::Value> {
    let start = page.find(DATA_START)? + DATA_START.len();
    let end = start + page[start..].find("</script>")?;
    Some(serde_json::from_str(&page[start..end]).expect("inline data is JSON"))
}

/// The page without the first screen's data.
fn without_data(page: &str) -> String {
    match page.find(DATA_START) {
        Some(start) => {
            let end = start + page[start..].find("</script>").expect("closed") + "</script>".len();
            format!("{}{}", &page[..start], &page[end..])
        }
        None => page.to_owned(),
    }
}

fn expected_config(app: &TestApp) -> serde_json::Value {
    json!({
        "supabaseUrl": "",
        "publishableKey": app.publishable_key,
        "anonKey": app.anon_key,
        "whatsappNumber": "573001234567",
        "contactEmail": "ventas@tienda.example",
        "contactPhone": "+57 300 123 4567",
        "socialLinks": {},
    })
}

const HEAD: &str = "<!doctype html><html><head><title>Tienda</title>";
const BODY: &str = "</head><body><div id=\"root\"></div></body></html>";
const BUNDLE: &str = "console.log('shop');";
const IMAGE: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A build as Vite makes it: `index.html`, hashed bundles under `static/`, and
/// the predefined product images under `assets/`.
fn fake_dist(dir: &Path) {
    std::fs::create_dir_all(dir.join("static")).expect("static");
    std::fs::create_dir_all(dir.join("assets/apple/iphone-15")).expect("assets");
    std::fs::write(dir.join("index.html"), format!("{HEAD}{BODY}")).expect("index");
    std::fs::write(dir.join("static/index-3f2a1b.js"), BUNDLE).expect("bundle");
    // What `frontend/scripts/compress.mjs` writes beside a compressible file
    // (marked here rather than compressed, to tell the three apart).
    std::fs::write(dir.join("static/index-3f2a1b.js.br"), "brotli bytes").expect("brotli");
    std::fs::write(dir.join("static/index-3f2a1b.js.gz"), "gzip bytes").expect("gzip");
    std::fs::write(dir.join("static/index-9c8d7e.css"), "body{margin:0}").expect("styles");
    std::fs::write(dir.join("assets/apple/iphone-15/negro.svg"), IMAGE).expect("image");
}

/// A gateway serving a fake build; the folder lives as long as the test.
async fn shop_with(configure: impl FnOnce(&mut gateway::config::Config)) -> (TestApp, tempfile::TempDir) {
    let dist = tempfile::tempdir().expect("tempdir");
    fake_dist(dist.path());
    let mut config = test_config();
    config.frontend.dir = Some(dist.path().to_path_buf());
    configure(&mut config);
    (spawn_app_with(Options { config, ..Options::default() }).await, dist)
}

async fn shop() -> (TestApp, tempfile::TempDir) {
    shop_with(|_| {}).await
}

async fn get(app: &TestApp, path: &str) -> Answer {
    Answer::from(app.get(path).send().await.expect("request")).await
}

fn header<'a>(answer: &'a Answer, name: &str) -> &'a str {
    answer.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

#[tokio::test]
async fn the_root_answers_the_index_page_revalidated_on_every_use() {
    let (app, _dist) = shop().await;
    let root = get(&app, "/").await;
    assert_eq!(root.status, 200);
    assert_eq!(without_data(&root.text), index_with(&expected_config(&app)));
    assert!(header(&root, "content-type").starts_with("text/html"), "{:?}", root.content_type);
    assert_eq!(header(&root, "cache-control"), "no-cache");
}

#[tokio::test]
async fn client_side_routes_answer_the_index_page_so_a_reload_works() {
    let (app, _dist) = shop().await;
    for path in ["/store", "/admin/products", "/admin/products/42", "/store/"] {
        let page = get(&app, path).await;
        assert_eq!(
            (page.status, without_data(&page.text)),
            (200, index_with(&expected_config(&app))),
            "{path}"
        );
        assert!(header(&page, "content-type").starts_with("text/html"), "{path}");
        assert_eq!(header(&page, "cache-control"), "no-cache", "{path}");
    }
}

#[tokio::test]
async fn hashed_bundles_are_kept_by_browsers_for_a_year() {
    let (app, _dist) = shop().await;
    let script = get(&app, "/static/index-3f2a1b.js").await;
    assert_eq!((script.status, script.text.as_str()), (200, BUNDLE));
    assert_eq!(header(&script, "content-type"), "text/javascript");
    assert_eq!(header(&script, "cache-control"), IMMUTABLE);
    let styles = get(&app, "/static/index-9c8d7e.css").await;
    assert_eq!(header(&styles, "content-type"), "text/css");
    assert_eq!(header(&styles, "cache-control"), IMMUTABLE);
}

#[tokio::test]
async fn product_images_are_plain_svg_files_revalidated_on_every_use() {
    let (app, _dist) = shop().await;
    let image = get(&app, "/assets/apple/iphone-15/negro.svg").await;
    assert_eq!((image.status, image.text.as_str()), (200, IMAGE));
    assert_eq!(header(&image, "content-type"), "image/svg+xml");
    assert_eq!(header(&image, "cache-control"), "no-cache");
}

#[tokio::test]
async fn a_missing_file_is_404_and_never_the_index_page() {
    let (app, _dist) = shop().await;
    for path in
        ["/static/a.js", "/assets/none.svg", "/assets/apple/iphone-15", "/favicon.ico", "/store/logo.png"]
    {
        let missing = get(&app, path).await;
        assert_eq!(missing.status, 404, "{path}");
        assert!(!missing.text.contains("Tienda"), "{path} answered the index page");
        assert_eq!(header(&missing, "cache-control"), "no-cache", "{path}: a 404 must not be kept");
    }
}

#[tokio::test]
async fn only_gets_and_heads_reach_the_frontend() {
    let (app, _dist) = shop().await;
    let post = app.client.post(format!("{}/store", app.address)).send().await.expect("post");
    assert_eq!(post.status(), 404);
    let head = app.client.head(format!("{}/store", app.address)).send().await.expect("head");
    assert_eq!(head.status(), 200);
    assert_eq!(head.text().await.expect("body"), "");
}

#[tokio::test]
async fn a_revalidated_page_that_did_not_change_is_304() {
    let (app, _dist) = shop().await;
    // A first page of a fresh gateway on a busy machine may miss the
    // catalogue's deadline and be served plain: the page is revalidated once
    // warm.
    get(&app, "/store").await;
    let first = get(&app, "/store").await;
    let etag = header(&first, "etag").to_owned();
    assert!(!etag.is_empty(), "the index page carries an ETag");
    let again = app.get("/store").header("if-none-match", &etag).send().await.expect("request");
    assert_eq!(again.status(), 304);
}

#[tokio::test]
async fn the_runtime_config_gives_the_api_the_publishable_key_and_the_shop_contacts() {
    let (app, _dist) = shop().await;
    let config = get(&app, "/config.json").await;
    assert_eq!(config.status, 200);
    assert!(header(&config, "content-type").starts_with("application/json"));
    assert_eq!(header(&config, "cache-control"), "no-cache");
    assert_eq!(config.json(), expected_config(&app));
    let key = config.json()["publishableKey"].as_str().expect("key").to_owned();
    assert_eq!(app.state.credentials.api_keys.lookup(&key), Some(gateway::keys::KeyKind::Publishable));
    let legacy = config.json()["anonKey"].as_str().expect("key").to_owned();
    assert_eq!(app.state.credentials.jwt.verify(&legacy).map(|claims| claims.role), Ok(Role::Anon));
}

#[tokio::test]
async fn the_runtime_config_follows_the_configured_public_url_and_contacts() {
    let (app, _dist) = shop_with(|config| {
        config.frontend.public_url = Some("https://api.tienda.example/".to_owned());
        config.frontend.whatsapp_number = "573109876543".to_owned();
        config.frontend.contact_email = "hola@tienda.example".to_owned();
        config.frontend.contact_phone = "+57 310 987 6543".to_owned();
        config.frontend.instagram_url = Some("https://www.instagram.com/tienda".to_owned());
    })
    .await;
    let config = get(&app, "/config.json").await.json();
    assert_eq!(config["supabaseUrl"], "https://api.tienda.example");
    assert_eq!(config["whatsappNumber"], "573109876543");
    assert_eq!(config["contactEmail"], "hola@tienda.example");
    assert_eq!(config["contactPhone"], "+57 310 987 6543");
    assert_eq!(
        config["socialLinks"],
        json!({"instagram": "https://www.instagram.com/tienda"}),
        "only the networks set"
    );
}

#[tokio::test]
async fn the_index_page_carries_the_configured_public_url_and_contacts_inline() {
    let (app, _dist) = shop_with(|config| {
        config.frontend.public_url = Some("https://api.tienda.example/".to_owned());
        config.frontend.contact_email = "</script>@tienda.example".to_owned();
    })
    .await;
    let page = get(&app, "/store").await.text;
    assert!(page.contains(r#""supabaseUrl":"https://api.tienda.example""#), "{page}");
    assert!(page.contains(r#""contactEmail":"\u003c/script>@tienda.example""#), "{page}");
    assert_eq!(without_data(&page).matches("</script>").count(), 1, "no value closes the script: {page}");
}

#[tokio::test]
async fn files_compressed_at_build_time_are_sent_in_the_encoding_the_client_accepts() {
    let (app, _dist) = shop().await;
    // (Accept-Encoding, Content-Encoding sent, body)
    let cases = [
        (None, "", BUNDLE),
        (Some("gzip"), "gzip", "gzip bytes"),
        (Some("br"), "br", "brotli bytes"),
        (Some("gzip, deflate, br"), "br", "brotli bytes"),
        (Some("gzip;q=1, br;q=0.1"), "gzip", "gzip bytes"),
        (Some("deflate"), "", BUNDLE),
    ];
    for (accept, encoding, body) in cases {
        let mut request = app.get("/static/index-3f2a1b.js");
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        let script = Answer::from(request.send().await.expect("request")).await;
        assert_eq!((script.status, script.text.as_str()), (200, body), "{accept:?}");
        assert_eq!(header(&script, "content-encoding"), encoding, "{accept:?}");
        assert_eq!(header(&script, "content-type"), "text/javascript", "{accept:?}");
        assert_eq!(header(&script, "vary"), "accept-encoding", "{accept:?}");
        assert_eq!(header(&script, "cache-control"), IMMUTABLE, "{accept:?}");
    }
}

#[tokio::test]
async fn the_index_page_is_compressed_on_the_fly_and_images_are_sent_as_they_are() {
    let (app, dist) = shop().await;
    // A page above the threshold, as a real build's is.
    let padding = "<meta name=\"x\" content=\"padding\">".repeat(64);
    std::fs::write(dist.path().join("index.html"), format!("{HEAD}{padding}{BODY}")).expect("index");
    let page = app.get("/store").header("accept-encoding", "gzip").send().await.expect("page");
    assert_eq!(page.headers().get("content-encoding").map(|v| v.to_str().unwrap_or("")), Some("gzip"));
    let image = app.get("/assets/apple/iphone-15/negro.svg").header("accept-encoding", "gzip").send().await;
    let image = image.expect("image");
    assert_eq!(
        image.headers().get("content-encoding"),
        None,
        "a stored file without its .gz is sent as stored"
    );
}

#[tokio::test]
async fn the_apis_answer_their_own_paths_in_their_own_shapes() {
    let (app, _dist) = shop().await;
    let unknown =
        Answer::from(app.rest(reqwest::Method::GET, "/products/deeper", None).send().await.expect("rest"))
            .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["code"], "PGRST125");
    let keyless = get(&app, "/rest/v1/products").await;
    assert_eq!(
        (keyless.status, keyless.json()["message"].clone()),
        (401, json!("No API key found in request"))
    );
    let products = Answer::from(
        app.rest(reqwest::Method::GET, "/products?select=id", None).send().await.expect("products"),
    )
    .await;
    assert_eq!((products.status, products.json()), (200, json!([])));
    let storage = get(&app, "/storage/v1/nothing/here").await;
    assert_eq!(storage.json()["statusCode"], "404");
    let auth = app.get("/auth/v1/nothing").header("apikey", &app.anon_key).send().await.expect("auth");
    assert_eq!(auth.status(), 404);
    assert_eq!(get(&app, "/health").await.json(), json!({"status": "ok"}));
    assert_eq!(get(&app, "/health/deeper").await.status, 404);
}

#[tokio::test]
async fn without_a_built_frontend_the_root_is_404_and_the_apis_work() {
    let empty = tempfile::tempdir().expect("tempdir");
    let mut config = test_config();
    config.frontend.dir = Some(empty.path().to_path_buf());
    let app = spawn_app_with(Options { config, ..Options::default() }).await;
    assert_eq!(get(&app, "/").await.status, 404);
    assert_eq!(get(&app, "/store").await.status, 404);
    assert_eq!(get(&app, "/health").await.status, 200);
    let products = Answer::from(
        app.rest(reqwest::Method::GET, "/products?select=id", None).send().await.expect("products"),
    )
    .await;
    assert_eq!(products.status, 200);
    assert_eq!(get(&app, "/config.json").await.json()["anonKey"], app.anon_key.as_str());
}

/// Products the store shows and hides: inactive and sold-out ones are not
/// public; one name tries to end the inline script.
async fn with_products(app: &TestApp) {
    app.admin()
        .await
        .batch_execute(
            "insert into public.companies (name, display_product_stock) values ('Tienda', false);
             insert into public.brands (name, status) values ('Apple', true), ('Samsung', true);
             insert into public.products (name, price, quantity, category, brand_id, status, featured) values
               ('iPhone 15', 4500000, 3, 'celulares', 1, true, true),
               ('Galaxy S24 </script><script>alert(1)</script>', 3900000, 2, 'celulares', 2, true, false),
               ('Funda', 30000, 9, 'cases', null, true, true),
               ('Retirado', 100000, 1, 'celulares', 1, false, true),
               ('Agotado', 200000, 0, 'celulares', 1, true, true);",
        )
        .await
        .expect("products");
}

/// What the app's own request for the same page answers, through `/rest/v1` as `anon`.
async fn rest_rows(app: &TestApp, query: &str) -> Answer {
    let request =
        app.rest(reqwest::Method::GET, &format!("/products?{query}"), None).header("prefer", "count=exact");
    Answer::from(request.send().await.expect("request")).await
}

#[tokio::test]
async fn the_store_page_carries_its_first_page_of_products_as_the_rest_api_answers_it_for_its_filters() {
    let (app, _dist) = shop().await;
    with_products(&app).await;
    let select = "select=*,brands(id,name,description)&status=eq.true&quantity=gt.0";
    let cases = [
        ("", format!("{select}&order=featured.desc.nullslast,price.desc,id.asc&offset=0&limit=20"), 3),
        (
            "categoria=celulares&orden=price-asc",
            format!("{select}&category=eq.celulares&order=price.asc,id.asc&offset=0&limit=20"),
            2,
        ),
        (
            "buscar=galaxy&marca=2",
            format!(
                "{select}&brand_id=eq.2&name=ilike.%25galaxy%25&order=featured.desc.nullslast,price.desc,id.asc&offset=0&limit=20"
            ),
            1,
        ),
        (
            "buscar=50%25",
            format!(
                "{select}&name=ilike.%2550%5C%25%25&order=featured.desc.nullslast,price.desc,id.asc&offset=0&limit=20"
            ),
            0,
        ),
    ];
    for (search, rest_query, total) in cases {
        let page = get(&app, &format!("/store?{search}")).await;
        let data = inline_data(&page.text).unwrap_or_else(|| panic!("no data for {search:?}"));
        let rows = rest_rows(&app, &rest_query).await;
        assert_eq!(data["path"], "/store", "{search}");
        assert_eq!(data["search"], search, "the data names the address it was made for");
        assert_eq!(data["catalogue"]["products"], rows.json(), "{search}");
        assert_eq!(data["catalogue"]["total"], total, "{search}");
        assert_eq!(data["company"]["display_product_stock"], false, "the shop's settings come along");
        assert_eq!(header(&page, "cache-control"), "no-cache", "revalidated on every use, per address");
    }
}

#[tokio::test]
async fn the_landing_carries_its_featured_models_and_other_routes_carry_nothing() {
    let (app, _dist) = shop().await;
    with_products(&app).await;
    let root = get(&app, "/").await;
    let data = inline_data(&root.text).expect("landing data");
    let names: Vec<&str> =
        data["catalogue"].as_array().expect("rows").iter().filter_map(|row| row["name"].as_str()).collect();
    assert_eq!(names, ["iPhone 15", "Funda"], "featured, active, in stock, dearest first");
    for path in ["/admin/products", "/auth", "/store/", "/other"] {
        assert_eq!(inline_data(&get(&app, path).await.text), None, "{path}");
    }
}

#[tokio::test]
async fn no_product_text_can_end_the_inline_script() {
    let (app, _dist) = shop().await;
    with_products(&app).await;
    let page = get(&app, "/store?buscar=galaxy").await;
    assert!(!page.text.contains("Galaxy S24 </script>"), "{}", page.text);
    assert!(
        page.text.contains("Galaxy S24 \\u003c/script>\\u003cscript>alert(1)\\u003c/script>"),
        "{}",
        page.text
    );
    let data = inline_data(&page.text).expect("data");
    assert_eq!(data["catalogue"]["products"][0]["name"], "Galaxy S24 </script><script>alert(1)</script>");
}

#[tokio::test]
async fn each_filter_has_its_own_page_and_etag() {
    let (app, _dist) = shop().await;
    with_products(&app).await;
    let all = get(&app, "/store").await;
    let phones = get(&app, "/store?categoria=celulares").await;
    assert_ne!(header(&all, "etag"), header(&phones, "etag"));
    let again = Answer::from(
        app.get("/store?categoria=celulares")
            .header("if-none-match", header(&phones, "etag"))
            .send()
            .await
            .expect("request"),
    )
    .await;
    assert_eq!(again.status, 304, "an unchanged page revalidates");
    app.admin()
        .await
        .batch_execute("update public.products set price = 1 where name = 'iPhone 15'")
        .await
        .expect("price");
    let changed = Answer::from(
        app.get("/store?categoria=celulares")
            .header("if-none-match", header(&phones, "etag"))
            .send()
            .await
            .expect("request"),
    )
    .await;
    assert_eq!(changed.status, 200, "a changed catalogue is a new page");
}

#[tokio::test]
async fn when_the_catalogue_cannot_be_read_the_page_is_served_plain() {
    let (app, _dist) = shop().await;
    with_products(&app).await;
    app.admin().await.batch_execute("revoke select on public.products from anon").await.expect("revoke");
    let page = get(&app, "/store").await;
    assert_eq!((page.status, page.text.clone()), (200, index_with(&expected_config(&app))));
}

/// A pre-rendered page as `frontend/scripts/prerender.mjs` writes it: the
/// app's markup in `#root` with its slot and placeholders.
fn prerendered(slots: &[&str]) -> String {
    let slots: String =
        slots.iter().map(|slot| format!("<template data-first-screen-slot=\"{slot}\"></template>")).collect();
    format!(
        "{HEAD}</head><body><div id=\"root\" data-prerendered=\"page\"><header>__first_screen_shop_name__</header>{slots}\
         <a href=\"https://wa.me/1000000000001?text=Hola\">chat</a></div></body></html>"
    )
}

async fn prerendered_shop() -> (TestApp, tempfile::TempDir) {
    let (app, dist) = shop().await;
    std::fs::create_dir_all(dist.path().join("prerendered")).expect("folder");
    std::fs::write(dist.path().join("prerendered/store.html"), prerendered(&["store-results"]))
        .expect("store");
    std::fs::write(
        dist.path().join("prerendered/landing.html"),
        prerendered(&["featured-title", "featured-products"]),
    )
    .expect("landing");
    (app, dist)
}

#[tokio::test]
async fn the_store_and_the_landing_are_served_pre_rendered_with_their_first_cards_filled_in() {
    let (app, _dist) = prerendered_shop().await;
    with_products(&app).await;
    let store = get(&app, "/store").await;
    assert!(
        store.text.contains("<div id=\"root\" data-first-screen=\"filled\" data-prerendered="),
        "{}",
        store.text
    );
    assert_eq!(store.text.matches("data-product-card").count(), 3, "one card per product of the first page");
    assert!(store.text.contains("<header>Tienda</header>"), "the shop's name replaces its placeholder");
    assert!(store.text.contains("https://wa.me/573001234567?text=Hola"), "and the chat number its own");
    assert!(store.text.contains("3 productos</p>"));
    assert!(
        store.text.contains("Galaxy S24 &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "names are escaped"
    );
    assert!(!store.text.contains("data-stock"), "the shop's settings hide the stock");
    assert!(inline_data(&store.text).is_some(), "the data the app hydrates from comes along");

    let landing = get(&app, "/?utm_source=correo").await;
    assert!(landing.text.contains("data-first-screen=\"filled\""));
    assert_eq!(landing.text.matches("data-product-card").count(), 2, "the featured models");
}

#[tokio::test]
async fn pages_the_build_did_not_pre_render_or_data_cannot_fill_are_served_plain() {
    let (app, _dist) = prerendered_shop().await;
    with_products(&app).await;
    for path in ["/store?categoria=celulares", "/store?buscar=nada", "/auth"] {
        let page = get(&app, path).await;
        assert!(!page.text.contains("data-prerendered"), "{path}: {}", page.text);
    }
    // Without the shop's name the header could not say it: the plain page.
    app.admin().await.batch_execute("delete from public.companies").await.expect("no company");
    assert!(!get(&app, "/store").await.text.contains("data-prerendered"));
    // Nor without products to show.
    let (empty, _dist) = prerendered_shop().await;
    empty
        .admin()
        .await
        .batch_execute("insert into public.companies (name) values ('Tienda')")
        .await
        .expect("company");
    assert!(!get(&empty, "/store").await.text.contains("data-prerendered"));
}
