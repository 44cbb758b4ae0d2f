//! Nested embeds over thousands of rows answer within anon's 3 s
//! `statement_timeout` (`sql/000_roles.sql`), as PostgREST answers them: a
//! to-one embed holding to-many ones is read once per distinct parent key,
//! not once per row (`rest::sql`, `lateral_embed_sql`). The fixture is the
//! differential test's library (`fixtures/library.sql`: 3,000 books of 40
//! publishers and 16 genres, `books.publisher_id` without an index), where
//! each of these once took longer than the timeout.

mod common;

use reqwest::Method;
use serde_json::Value;

use common::{Answer, TestApp, spawn_library};

async fn get(app: &TestApp, path: &str) -> Answer {
    Answer::from(app.rest(Method::GET, path, None).send().await.expect("request")).await
}

fn rows(answer: &Answer) -> Vec<Value> {
    answer.json().as_array().expect("an array").clone()
}

#[tokio::test]
async fn a_to_one_embed_holding_to_many_embeds_answers_in_time_over_every_book() {
    let app = spawn_library().await;
    let answer = get(
        &app,
        "/books?select=available,pub_a:publishers!books_publisher_id_fkey(website,id,name,books!inner(*),\
         book_catalogue(*)),genres(*,book_catalogue(title,publisher_name,published_on,\
         t%C3%ADtulo:genre_name::varchar,publisher_id))&published_on=gt.1955-09-11&pub_a.books.order=id.asc\
         &genres.id=gte.9&genres.book_catalogue.genre_id=lt.1&order=id.asc",
    )
    .await;
    assert_eq!(answer.status, 200, "{}", &answer.text[..answer.text.len().min(300)]);
    let rows = rows(&answer);
    // db-max-rows cuts the 2,284 books after 1955 to 1,000.
    assert_eq!(rows.len(), 1000);
    for row in &rows {
        // Each publisher's books are its own, in order, and include this one's
        // kind; a book without a publisher has none.
        if let Some(publisher) = row["pub_a"].as_object() {
            let books = publisher["books"].as_array().expect("books");
            assert!(!books.is_empty());
            assert!(books.iter().all(|b| b["publisher_id"] == publisher["id"]));
            let ids: Vec<i64> = books.iter().map(|b| b["id"].as_i64().expect("id")).collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "ordered by id");
            assert_eq!(publisher["book_catalogue"].as_array().expect("catalogue").len(), books.len());
        } else {
            assert!(row["pub_a"].is_null());
        }
        // Genres below 9 are filtered out (null); the others hold no
        // catalogue rows, filtered to genre ids below 1.
        if let Some(genre) = row["genres"].as_object() {
            assert!(genre["id"].as_i64().expect("id") >= 9);
            assert_eq!(genre["book_catalogue"], Value::Array(Vec::new()));
        }
    }
}

#[tokio::test]
async fn nested_embeds_through_to_one_levels_answer_in_time() {
    let app = spawn_library().await;
    // Each over a thousand rows, through a to-one level holding a to-many
    // one that scans a table without an index on its key.
    let cases = [
        ("/books?select=id,publishers(id,books!inner(id))&publishers.books.id=lt.100&order=id", 1000),
        ("/books?select=id,publishers(id,book_catalogue(id,reviews(id)))&order=id", 1000),
        ("/books?select=id,publishers(id,publisher_stats(titles)),genres(books(id))&order=id", 1000),
        ("/reviews?select=id,books(id,publishers(id,books(id)))&order=id", 1000),
        ("/reviews?select=id,book_catalogue(id,genres(id,books!inner(id)))&order=id", 1000),
        (
            "/books?select=id,publishers!inner(id,available_books!inner(id))&publishers.available_books.price=gt.50",
            1000,
        ),
    ];
    for (path, expected) in cases {
        let answer = get(&app, path).await;
        assert_eq!(answer.status, 200, "{path}: {}", &answer.text[..answer.text.len().min(300)]);
        assert_eq!(rows(&answer).len(), expected, "{path}");
    }
}
