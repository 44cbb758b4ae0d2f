//! The first page of the catalogue, put into the shop's `index.html` for the
//! public routes (`/`, `/store`, `/store?<filters>`), so that a phone shows
//! products without waiting for the app's script and then its first request.
//!
//! - The rows are asked of `/rest/v1` itself, as `anon` with the publishable
//!   key: the same parser, planner and row-level security as the app's own
//!   supabase-js request (`frontend/src/features/*/api/`), which this module
//!   writes as supabase-js would for the same address.
//! - The page's filters are read from its address as the app reads them
//!   (`frontend/src/features/store/storeUrl.ts`); the app uses the data only
//!   for the address it was made for, and never for a signed-in visitor.
//! - Anything that fails or takes too long leaves the page as it was: the app
//!   then asks as it always did.

mod cards;

use std::time::Duration;

use axum::{
    body::{Body, to_bytes},
    extract::FromRef,
    http::{Request, StatusCode, header},
};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::state::AppState;

/// Products per page of the store (`STORE_PAGE_SIZE` in `fetchProducts.ts`).
const STORE_PAGE_SIZE: usize = 20;
/// The landing's featured models (`FEATURED_LIMIT` in `fetchFeaturedProducts.ts`).
const FEATURED_LIMIT: usize = 3;
/// The embed both pages ask for with their products.
const PRODUCT_SELECT: &str = "*,brands(id,name,description)";
/// A slow database must not hold the page back: the app can ask by itself.
const DEADLINE: Duration = Duration::from_millis(800);
/// Where the page's body ends; the data goes just before it.
const BODY_END: &str = "</body>";
/// The id the app looks the data up by (`frontend/src/firstScreen.ts`).
pub const SCRIPT_ID: &str = "shop-first-screen";

/// The store's filters as its address holds them (`filtersFromSearch`): the
/// first value of each parameter; an unknown sort or a brand that is no
/// number is ignored.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StoreFilters {
    pub search: String,
    pub category: String,
    pub brand_id: String,
    pub condition: String,
    pub sort: String,
}

impl StoreFilters {
    pub fn from_query(query: &str) -> Self {
        let first = |name: &str| {
            form_urlencoded::parse(query.as_bytes())
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default()
        };
        let brand_id = first("marca");
        let sort = first("orden");
        StoreFilters {
            search: first("buscar"),
            category: first("categoria"),
            brand_id: if !brand_id.is_empty() && brand_id.bytes().all(|b| b.is_ascii_digit()) {
                brand_id
            } else {
                String::new()
            },
            condition: first("condicion"),
            sort: match sort.as_str() {
                "price-asc" | "price-desc" | "newest" => sort,
                _ => "relevance".to_owned(),
            },
        }
    }

    /// The query string of the store's first page, as `fetchProducts` has
    /// supabase-js write it.
    pub fn products_query(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query
            .append_pair("select", PRODUCT_SELECT)
            .append_pair("status", "eq.true")
            .append_pair("quantity", "gt.0");
        if !self.category.is_empty() {
            query.append_pair("category", &format!("eq.{}", self.category));
        }
        if !self.brand_id.is_empty() {
            query.append_pair("brand_id", &format!("eq.{}", self.brand_id));
        }
        if !self.condition.is_empty() {
            query.append_pair("condition", &format!("eq.{}", self.condition));
        }
        let search = self.search.trim();
        if !search.is_empty() {
            query.append_pair("name", &format!("ilike.%{}%", escape_like(search)));
        }
        let order = match self.sort.as_str() {
            "price-asc" => "price.asc,id.asc",
            "price-desc" => "price.desc,id.asc",
            "newest" => "created_at.desc,id.asc",
            _ => "featured.desc.nullslast,price.desc,id.asc",
        };
        query
            .append_pair("order", order)
            .append_pair("offset", "0")
            .append_pair("limit", &STORE_PAGE_SIZE.to_string());
        query.finish()
    }
}

/// `%` and `_` typed by a visitor match literally (`escapeLike`).
fn escape_like(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// The landing's featured models, as `fetchFeaturedProducts` asks for them.
fn featured_query() -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("select", PRODUCT_SELECT)
        .append_pair("status", "eq.true")
        .append_pair("quantity", "gt.0")
        .append_pair("featured", "eq.true")
        .append_pair("order", "price.desc,id.asc")
        .append_pair("limit", &FEATURED_LIMIT.to_string())
        .finish()
}

/// The data of the first screen of `path?query`, or `None` for a route that
/// has none or when a request fails: `{"path", "search", "catalogue",
/// "company"}`, `search` being the query string it was made for.
pub async fn data(state: &AppState, path: &str, query: &str) -> Option<Value> {
    let (products, count) = match path {
        "/" => (featured_query(), false),
        "/store" => (StoreFilters::from_query(query).products_query(), true),
        _ => return None,
    };
    // The shop's settings (which cards show their stock) come with it, asked
    // at the same time; the app reads them from the same view (`fetchShopCompany.ts`).
    let both = async {
        tokio::join!(
            rest_get(state, "products", &products, count),
            rest_get(state, "shop_company", "select=*", false)
        )
    };
    let (catalogue, company) = tokio::time::timeout(DEADLINE, both).await.ok()?;
    let ((rows, total), (company, _)) = (catalogue?, company?);
    let catalogue = match count {
        true => json!({ "products": rows, "total": total.unwrap_or(0) }),
        false => rows,
    };
    let company = company.as_array().and_then(|rows| rows.first()).cloned().unwrap_or(Value::Null);
    Some(json!({ "path": path, "search": query, "catalogue": catalogue, "company": company }))
}

/// `GET /rest/v1/{table}?{query}` as `anon`, through the REST service's own
/// router: the body and, when counted, the total of `Content-Range`.
async fn rest_get(state: &AppState, table: &str, query: &str, count: bool) -> Option<(Value, Option<u64>)> {
    // The key the browser would send: the publishable key, else the legacy anon JWT.
    let key = match state.credentials.api_keys.publishable() {
        Some(key) => key,
        None => crate::jwt::api_key(&state.credentials.jwt, crate::role::Role::Anon).ok()?,
    };
    let mut request = Request::get(format!("/{table}?{query}"))
        .header("apikey", key)
        .header(header::ACCEPT, "application/json");
    if count {
        request = request.header("prefer", "count=exact");
    }
    let request = request.body(Body::empty()).ok()?;
    let response = gateway_rest::router(FromRef::from_ref(state)).oneshot(request).await.ok()?;
    if !matches!(response.status(), StatusCode::OK | StatusCode::PARTIAL_CONTENT) {
        tracing::debug!(table, status = %response.status(), "no first-screen data inline");
        return None;
    }
    let total = response
        .headers()
        .get(header::CONTENT_RANGE)
        .and_then(|value| value.to_str().ok())
        .and_then(|range| range.rsplit('/').next())
        .and_then(|total| total.parse().ok());
    let body = to_bytes(response.into_body(), usize::MAX).await.ok()?;
    Some((serde_json::from_slice(&body).ok()?, total))
}

/// The page with `<script type="application/json" id="shop-first-screen">`
/// before `</body>`. `<` is escaped in the JSON so that no product's text can
/// end the element (https://html.spec.whatwg.org/multipage/scripting.html#restrictions-for-contents-of-script-elements);
/// `JSON.parse` reads `\u003c` back as `<`. A page without a body is left as it is.
pub fn with_inline_data(html: &str, data: &Value) -> String {
    let Some(at) = html.rfind(BODY_END) else { return html.to_owned() };
    let json = data.to_string().replace('<', "\\u003c");
    format!(
        "{}<script type=\"application/json\" id=\"{SCRIPT_ID}\">{json}</script>{}",
        &html[..at],
        &html[at..]
    )
}

/// The pages the frontend's build pre-rendered (`frontend/scripts/prerender.mjs`),
/// by the route they serve: the landing at any address, the store only
/// without filters (the pre-rendered filter bar shows none).
pub fn prerendered_page(path: &str, query: &str) -> Option<&'static str> {
    match path {
        "/" => Some("prerendered/landing.html"),
        "/store" if query.is_empty() => Some("prerendered/store.html"),
        _ => None,
    }
}

/// Text of the pre-rendered pages that stands for the deployment's own
/// (`PRERENDER_PLACEHOLDERS` in `frontend/src/lib/prerender.tsx`).
const SHOP_NAME_PLACEHOLDER: &str = "__first_screen_shop_name__";
const WHATSAPP_PLACEHOLDER: &str = "https://wa.me/1000000000001?";

/// A pre-rendered page with its slots filled from `data` (what [`data`]
/// returned for its address) and the deployment's values in place of the
/// placeholders; marked `data-first-screen="filled"`, which tells the app
/// to hydrate it. `None` when the data is not what the page can show as
/// the app would (no shop name, an empty store, a row it cannot render):
/// the plain page is served then.
pub fn fill_prerendered(page: &str, data: &Value, whatsapp_number: &str, origin: &str) -> Option<String> {
    let company = data.get("company")?;
    let name = company.get("name").and_then(Value::as_str).filter(|name| !name.is_empty())?;
    let deployment = cards::Deployment { origin, whatsapp_number };
    let catalogue = data.get("catalogue")?;
    let slot = |name: &str| format!("<template data-first-screen-slot=\"{name}\"></template>");
    let mut page = match data.get("path")?.as_str()? {
        "/" => {
            let (title, list) = cards::featured(catalogue.as_array()?, &deployment)?;
            fill_slot(&fill_slot(page, &slot("featured-title"), &title)?, &slot("featured-products"), &list)?
        }
        "/store" => {
            let products = catalogue.get("products")?.as_array()?;
            let total = catalogue.get("total")?.as_u64()?;
            let show_stock = company.get("display_product_stock").and_then(Value::as_bool).unwrap_or(true);
            let results = cards::store_results(products, total, show_stock, &deployment)?;
            fill_slot(page, &slot("store-results"), &results)?
        }
        _ => return None,
    };
    let digits: String = whatsapp_number.chars().filter(char::is_ascii_digit).collect();
    page = page
        .replace(SHOP_NAME_PLACEHOLDER, &cards::escape(name))
        .replace(WHATSAPP_PLACEHOLDER, &format!("https://wa.me/{digits}?"));
    let root = page.find("<div id=\"root\" data-prerendered=")? + "<div id=\"root\"".len();
    page.insert_str(root, " data-first-screen=\"filled\"");
    Some(page)
}

/// `page` with its one `slot` replaced by `html`.
fn fill_slot(page: &str, slot: &str, html: &str) -> Option<String> {
    let at = page.find(slot)?;
    Some(format!("{}{html}{}", &page[..at], &page[at + slot.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_reads_its_filters_from_the_address_as_the_app_does() {
        let cases = [
            ("", StoreFilters { sort: "relevance".into(), ..Default::default() }),
            (
                "buscar=galaxy+s24&categoria=celulares&marca=2&condicion=nuevo&orden=price-asc&producto=17",
                StoreFilters {
                    search: "galaxy s24".into(),
                    category: "celulares".into(),
                    brand_id: "2".into(),
                    condition: "nuevo".into(),
                    sort: "price-asc".into(),
                },
            ),
            ("marca=dos&orden=cheapest", StoreFilters { sort: "relevance".into(), ..Default::default() }),
            (
                "categoria=a&categoria=b",
                StoreFilters { category: "a".into(), sort: "relevance".into(), ..Default::default() },
            ),
        ];
        for (query, filters) in cases {
            assert_eq!(StoreFilters::from_query(query), filters, "{query}");
        }
    }

    #[test]
    fn the_store_asks_for_its_first_page_as_supabase_js_writes_it() {
        let parse = |query: &str| form_urlencoded::parse(query.as_bytes()).into_owned().collect::<Vec<_>>();
        let pairs = |list: &[(&str, &str)]| {
            list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<Vec<_>>()
        };
        assert_eq!(
            parse(&StoreFilters::from_query("").products_query()),
            pairs(&[
                ("select", "*,brands(id,name,description)"),
                ("status", "eq.true"),
                ("quantity", "gt.0"),
                ("order", "featured.desc.nullslast,price.desc,id.asc"),
                ("offset", "0"),
                ("limit", "20"),
            ])
        );
        assert_eq!(
            parse(&StoreFilters::from_query("buscar=%2050%25_off%20&marca=3&orden=newest").products_query()),
            pairs(&[
                ("select", "*,brands(id,name,description)"),
                ("status", "eq.true"),
                ("quantity", "gt.0"),
                ("brand_id", "eq.3"),
                ("name", "ilike.%50\\%\\_off%"),
                ("order", "created_at.desc,id.asc"),
                ("offset", "0"),
                ("limit", "20"),
            ])
        );
    }

    #[test]
    fn the_data_goes_before_the_end_of_the_body_and_cannot_close_its_script() {
        let data = json!({"catalogue": [{"name": "</script><script>alert(1)</script>"}]});
        assert_eq!(
            with_inline_data("<html><head></head><body><div id=root></div></body></html>", &data),
            "<html><head></head><body><div id=root></div><script type=\"application/json\" \
             id=\"shop-first-screen\">{\"catalogue\":[{\"name\":\"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>\"}]}\
             </script></body></html>"
        );
        assert_eq!(with_inline_data("<div id=root></div>", &data), "<div id=root></div>", "no body, no data");
    }
}
