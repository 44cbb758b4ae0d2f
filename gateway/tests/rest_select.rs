//! PostgREST 13/14's select language beyond the shop's calls: embedding
//! through views, aggregates and spreads. Expected bodies are PostgREST's
//! own answers on the same fixture (`fixtures/films.sql`).

mod common;

use reqwest::Method;
use serde_json::{Value, json};

use common::{Answer, TestApp, spawn_films};

async fn get(app: &TestApp, path: &str) -> Answer {
    Answer::from(app.rest(Method::GET, path, None).send().await.expect("request")).await
}

/// Each case: a path and the body PostgREST answers with 200.
async fn answers_as_postgrest(app: &TestApp, cases: &[(&str, Value)]) {
    for (path, expected) in cases {
        let answer = get(app, path).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        assert_eq!(&answer.json(), expected, "{path}");
    }
}

#[tokio::test]
async fn a_view_embeds_through_the_foreign_keys_of_the_tables_it_shows() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            // A view showing a foreign key's columns, to its table.
            (
                "/film_list?select=title,directors(last_name)&id=lte.2&order=id",
                json!([
                    {"title": "Pulp Fiction", "directors": {"last_name": "Tarantino"}},
                    {"title": "The Shawshank Redemption", "directors": {"last_name": "Darabont"}}
                ]),
            ),
            // The table to the view, one-to-many.
            (
                "/directors?select=last_name,film_list(title)&id=eq.1",
                json!([{"last_name": "Tarantino", "film_list": [{"title": "Pulp Fiction"}, {"title": "Reservoir Dogs"}]}]),
            ),
            // A view over a view, with a renamed key.
            (
                "/directors?select=last_name,recent_films(film_key,title)&id=eq.3",
                json!([{"last_name": "Nolan", "recent_films": [
                    {"film_key": 3, "title": "The Dark Knight"}, {"film_key": 5, "title": "Following"}
                ]}]),
            ),
            // A view over a table of a schema that is not exposed.
            (
                "/films?select=title,reviews(stars)&id=in.(1,4)&order=id",
                json!([
                    {"title": "Pulp Fiction", "reviews": [{"stars": 5}, {"stars": 4}]},
                    {"title": "Reservoir Dogs", "reviews": []}
                ]),
            ),
            // A materialized view.
            (
                "/film_stats?select=reviews,films(title)&film_id=eq.1",
                json!([{"reviews": 2, "films": {"title": "Pulp Fiction"}}]),
            ),
            // A view showing the referenced key: one-to-one stays one-to-one.
            (
                "/technical_specs?select=camera,film_list(title)&film_id=eq.2",
                json!([{"camera": "Panavision", "film_list": {"title": "The Shawshank Redemption"}}]),
            ),
            (
                "/film_list?select=title,technical_specs(camera)&id=in.(3,4)&order=id",
                json!([
                    {"title": "The Dark Knight", "technical_specs": {"camera": "IMAX"}},
                    {"title": "Reservoir Dogs", "technical_specs": null}
                ]),
            ),
            // Many-to-many from a view (its key is the films' key) through the junction.
            (
                "/film_list?select=title,actors(first_name)&id=eq.2",
                json!([{"title": "The Shawshank Redemption", "actors": [{"first_name": "Tim"}, {"first_name": "Morgan"}]}]),
            ),
            // !inner through a view.
            (
                "/film_list?select=title,directors!inner(last_name)&directors.last_name=eq.Nolan&order=id",
                json!([
                    {"title": "The Dark Knight", "directors": {"last_name": "Nolan"}},
                    {"title": "Following", "directors": {"last_name": "Nolan"}}
                ]),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_view_without_a_key_column_of_the_relationship_does_not_embed() {
    let app = spawn_films().await;
    // film_directors shows directors.id, not films.director_id: no way to directors.
    let answer = get(&app, "/film_directors?select=title,directors(first_name)").await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["code"], "PGRST200");
    assert_eq!(
        answer.json()["details"],
        "Searched for a foreign key relationship between 'film_directors' and 'directors' in the schema 'public', but no matches were found."
    );
}
