//! The shop's tables and policies (sql/100_shop.sql, sql/101_shop_company_public.sql,
//! policies/shop.sql, policies/storage.sql): what visitors and staff may read
//! and write.

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_app};

const STAFF: &str = "5f0c1b2a-0000-4000-8000-000000000001";
const LONER: &str = "5f0c1b2a-0000-4000-8000-000000000002";

/// Two staff users: one with a profile in company 1, one with no profile.
async fn shop() -> TestApp {
    let app = spawn_app().await;
    app.admin()
        .await
        .batch_execute(&format!(
            "insert into auth.users (id, email) values ('{STAFF}', 'staff@example.com'), ('{LONER}', 'loner@example.com');
             insert into public.companies (name) values ('Tienda'), ('Otra');
             insert into public.profiles (user_id, full_name, company_id) values ('{STAFF}', 'Ana Staff', 1);
             insert into public.brands (name, status) values ('Apple', true), ('Retired', false);
             insert into public.products (name, price, quantity, category, brand_id, status) values
               ('iPhone 15', 4500000, 3, 'celulares', 1, true),
               ('Old phone', 100000, 1, 'celulares', 2, false),
               ('Case', 30000, 0, 'cases', null, null);"
        ))
        .await
        .expect("shop rows");
    app
}

async fn call(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: Option<Value>) -> Answer {
    let mut request = app.rest(method, path, token).header("content-type", "application/json");
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    Answer::from(request.send().await.expect("request")).await
}

fn names(answer: &Answer) -> Vec<String> {
    let mut names: Vec<String> = answer
        .json()
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["name"].as_str().unwrap_or("").to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn visitors_read_the_active_catalogue_and_write_nothing() {
    let app = shop().await;
    let products = call(&app, Method::GET, "/products?select=name", None, None).await;
    assert_eq!(names(&products), ["Case", "iPhone 15"], "null status counts as active");
    let brands = call(&app, Method::GET, "/brands?select=name", None, None).await;
    assert_eq!(names(&brands), ["Apple"]);
    let categories = call(&app, Method::GET, "/product_categories?select=category", None, None).await;
    assert_eq!(categories.json().as_array().map(Vec::len), Some(12));
    for path in ["/profiles", "/companies"] {
        let hidden = call(&app, Method::GET, path, None, None).await;
        assert_eq!(hidden.json(), json!([]), "{path}");
    }
    let insert = call(&app, Method::POST, "/brands", None, Some(json!({"name": "Nope"}))).await;
    assert_eq!((insert.status, insert.json()["code"].clone()), (401, json!("42501")));
    let update =
        call(&app, Method::PATCH, "/products?name=eq.iPhone 15", None, Some(json!({"price": 1}))).await;
    assert_eq!(update.status, 204);
    let price: String = app
        .admin()
        .await
        .query_one("select price::text from products where name = 'iPhone 15'", &[])
        .await
        .expect("price")
        .get(0);
    assert_eq!(price, "4500000.00", "the anonymous update changed nothing");
}

#[tokio::test]
async fn staff_reads_everything_and_manages_products_and_brands() {
    let app = shop().await;
    let token = app.user_token(STAFF);
    let products = call(&app, Method::GET, "/products?select=name", Some(&token), None).await;
    assert_eq!(names(&products), ["Case", "Old phone", "iPhone 15"]);
    let brand = call(
        &app,
        Method::POST,
        "/brands?select=name,status,created_by",
        Some(&token),
        Some(json!({"name": "Samsung", "description": "Suwon", "created_by": STAFF})),
    )
    .await;
    assert_eq!(brand.status, 201, "{}", brand.text);
    let product = call(
        &app,
        Method::POST,
        "/products?select=name,condition,upload_file,featured,status",
        Some(&token),
        Some(json!({"name": "Galaxy A16", "description": "d", "price": 700000, "quantity": 2, "category": "celulares", "created_by": STAFF})),
    )
    .await;
    assert_eq!(
        (product.status, product.text.as_str()),
        (201, ""),
        "no representation without return=representation"
    );
    let toggled =
        call(&app, Method::PATCH, "/products?name=eq.Old phone", Some(&token), Some(json!({"status": true})))
            .await;
    assert_eq!(toggled.status, 204);
    let profiles = call(&app, Method::GET, "/profiles?select=full_name", Some(&token), None).await;
    assert_eq!(profiles.json(), json!([{"full_name": "Ana Staff"}]));
}

#[tokio::test]
async fn users_reach_only_the_company_of_their_own_profile() {
    let app = shop().await;
    let staff = app.user_token(STAFF);
    let mine = call(&app, Method::GET, "/companies?select=id,name", Some(&staff), None).await;
    assert_eq!(mine.json(), json!([{"id": 1, "name": "Tienda"}]));
    let other =
        call(&app, Method::PATCH, "/companies?id=eq.2", Some(&staff), Some(json!({"name": "Hacked"}))).await;
    assert_eq!(other.status, 204);
    let name: String =
        app.admin().await.query_one("select name from companies where id = 2", &[]).await.expect("q").get(0);
    assert_eq!(name, "Otra");
    let loner = app.user_token(LONER);
    let none = call(&app, Method::GET, "/companies", Some(&loner), None).await;
    assert_eq!(none.json(), json!([]), "no profile, no company");
}

#[tokio::test]
async fn visitors_read_the_shops_public_fields_through_its_view_and_nothing_more() {
    let app = shop().await;
    app.admin()
        .await
        .batch_execute(
            "update public.companies set email = 'hola@tienda.example', phone = '+57 310', \
             display_product_stock = false where id = 1",
        )
        .await
        .expect("company");
    let public = call(&app, Method::GET, "/shop_company", None, None).await;
    assert_eq!(
        (public.status, public.json()),
        (
            200,
            json!([{"name": "Tienda", "email": "hola@tienda.example", "phone": "+57 310",
                    "display_category_stock": true, "display_product_stock": false, "display_users": true}])
        ),
        "the first company's public fields only"
    );
    let table = call(&app, Method::GET, "/companies", None, None).await;
    assert_eq!(table.json(), json!([]), "the table stays closed to visitors");
    // (request, who) that must change nothing: the view is read-only for everyone.
    let staff = app.user_token(STAFF);
    for (method, token) in
        [(Method::PATCH, None), (Method::PATCH, Some(staff.as_str())), (Method::POST, None)]
    {
        let write = call(&app, method.clone(), "/shop_company", token, Some(json!({"name": "Hacked"}))).await;
        assert!(write.status >= 400, "{method} {:?}: {} {}", token.is_some(), write.status, write.text);
    }
    let name: String =
        app.admin().await.query_one("select name from companies where id = 1", &[]).await.expect("q").get(0);
    assert_eq!(name, "Tienda");
}

#[tokio::test]
async fn product_images_are_public_and_only_staff_uploads_them_under_products() {
    let app = shop().await;
    let staff = app.user_token(STAFF);
    let upload = |path: &str, token: Option<String>| {
        let mut request = app
            .client
            .post(format!("{}/storage/v1/object/store-products/{path}", app.address))
            .header("content-type", "image/png")
            .body(vec![0x89, b'P', b'N', b'G']);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let anonymous = Answer::from(upload("products/a.png", None).await.expect("upload")).await;
    assert_eq!(anonymous.status, 400);
    assert_eq!(anonymous.json()["statusCode"], "403");
    let outside = Answer::from(upload("other/a.png", Some(staff.clone())).await.expect("upload")).await;
    assert_eq!(outside.json()["statusCode"], "403");
    let staffed = Answer::from(upload("products/a.png", Some(staff)).await.expect("upload")).await;
    assert_eq!(staffed.status, 200, "{}", staffed.text);
    let public = app
        .client
        .get(format!("{}/storage/v1/object/public/store-products/products/a.png", app.address))
        .send()
        .await
        .expect("download");
    assert_eq!(public.status().as_u16(), 200);
    assert_eq!(public.bytes().await.expect("bytes").as_ref(), [0x89, b'P', b'N', b'G']);
}
