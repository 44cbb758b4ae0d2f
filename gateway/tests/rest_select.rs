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

#[tokio::test]
async fn aggregates_group_by_the_other_selected_columns_as_postgrest_does() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            ("/films?select=rating.sum()", json!([{"sum": 43.0}])),
            ("/films?select=count()&title=like.*The*", json!([{"count": 2}])),
            (
                "/films?select=language,total:rating.sum(),count()&order=language",
                json!([{"language": "en", "total": 43.0, "count": 5}, {"language": "fr", "total": null, "count": 1}]),
            ),
            // A cast of the result, and the aggregate's name as the key.
            (
                "/films?select=rating.avg()::int,language&order=language",
                json!([{"avg": 9, "language": "en"}, {"avg": null, "language": "fr"}]),
            ),
            ("/films?select=id.count()::text", json!([{"count": "6"}])),
            // Limit and offset cut the groups.
            (
                "/films?select=year,count()&order=year.desc&limit=2&offset=1",
                json!([{"year": 1998, "count": 1}, {"year": 1994, "count": 2}]),
            ),
            // Inside an embed, per parent row.
            (
                "/directors?select=last_name,films(count(),best:rating.max())&order=id",
                json!([
                    {"last_name": "Tarantino", "films": [{"best": 8.9, "count": 2}]},
                    {"last_name": "Darabont", "films": [{"best": 9.3, "count": 1}]},
                    {"last_name": "Nolan", "films": [{"best": 9.0, "count": 2}]}
                ]),
            ),
            // Grouped by an embedded object.
            (
                "/films?select=count(),directors(last_name)&director_id=eq.3",
                json!([{"count": 2, "directors": {"last_name": "Nolan"}}]),
            ),
            ("/films?select=count(),directors(last_name)&director_id=is.null", json!([{"count": 1, "directors": null}])),
        ],
    )
    .await;
}

#[tokio::test]
async fn aggregate_misuse_answers_postgrest_errors() {
    let app = spawn_films().await;
    // (path, status, body)
    let cases = [
        (
            "/films?select=year,count()&order=title",
            400,
            json!({"code": "42803", "details": null, "hint": null,
                   "message": "column \"films.title\" must appear in the GROUP BY clause or be used in an aggregate function"}),
        ),
        (
            "/films?select=title.sum()",
            404,
            json!({"code": "42883", "details": null,
                   "hint": "No function matches the given name and argument types. You might need to add explicit type casts.",
                   "message": "function sum(text) does not exist"}),
        ),
        (
            "/films?select=total:.sum()",
            400,
            json!({"code": "PGRST100", "details": "unexpected \".\" expecting \":\" or field name (* or [a..z0..9_$])",
                   "hint": null, "message": "\"failed to parse select parameter (total:.sum())\" (line 1, column 7)"}),
        ),
        (
            "/films?select=rating.sum::int",
            400,
            json!({"code": "PGRST100", "details": "unexpected \":\" expecting \"()\"", "hint": null,
                   "message": "\"failed to parse select parameter (rating.sum::int)\" (line 1, column 11)"}),
        ),
        // `sum()` with no column is an embed of a relation `sum`.
        (
            "/films?select=sum()",
            400,
            json!({"code": "PGRST200",
                   "details": "Searched for a foreign key relationship between 'films' and 'sum' in the schema 'public', but no matches were found.",
                   "hint": null, "message": "Could not find a relationship between 'films' and 'sum' in the schema cache"}),
        ),
    ];
    for (path, status, body) in cases {
        let answer = get(&app, path).await;
        assert_eq!((answer.status, answer.json()), (status, body), "{path}");
    }
}

#[tokio::test]
async fn aggregates_turned_off_answer_pgrst123_but_rel_count_still_counts() {
    let mut config = common::test_config();
    config.rest.aggregates_enabled = false;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/films.sql")).await.expect("fixture");
    for path in ["/films?select=count()", "/films?select=rating.sum()", "/directors?select=films(id.max())"] {
        let answer = get(&app, path).await;
        assert_eq!(answer.status, 400, "{path}");
        assert_eq!(
            answer.json(),
            json!({"code": "PGRST123", "details": null, "hint": null, "message": "Use of aggregate functions is not allowed"}),
            "{path}"
        );
    }
    answers_as_postgrest(
        &app,
        &[(
            "/directors?select=last_name,films(count)&id=eq.1",
            json!([{"last_name": "Tarantino", "films": [{"count": 2}]}]),
        )],
    )
    .await;
}

#[tokio::test]
async fn a_spread_puts_a_to_one_embeds_outputs_in_its_parent() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            (
                "/films?select=title,...directors(first_name,last_name)&id=lte.2&order=id",
                json!([
                    {"title": "Pulp Fiction", "first_name": "Quentin", "last_name": "Tarantino"},
                    {"title": "The Shawshank Redemption", "first_name": "Frank", "last_name": "Darabont"}
                ]),
            ),
            (
                "/films?select=title,...directors(*)&id=eq.1",
                json!([{"title": "Pulp Fiction", "id": 1, "first_name": "Quentin", "last_name": "Tarantino"}]),
            ),
            // Two spreads, aliases, and nulls where nothing matches.
            (
                "/films?select=title,...directors(director:last_name),...technical_specs(camera)&id=in.(1,6)&order=id",
                json!([
                    {"title": "Pulp Fiction", "director": "Tarantino", "camera": "Arriflex"},
                    {"title": "Orphan", "director": null, "camera": null}
                ]),
            ),
            // A spread inside a spread.
            (
                "/roles?select=character,...films(title,...directors(last_name))&order=character&limit=2",
                json!([
                    {"character": "Andy", "title": "The Shawshank Redemption", "last_name": "Darabont"},
                    {"character": "Batman", "title": "The Dark Knight", "last_name": "Nolan"}
                ]),
            ),
            // Embedded filters, with and without !inner.
            (
                "/films?select=id,...directors(first_name)&directors.last_name=eq.Nolan&order=id&limit=3",
                json!([{"id": 1, "first_name": null}, {"id": 2, "first_name": null}, {"id": 3, "first_name": "Christopher"}]),
            ),
            (
                "/films?select=id,...directors!inner(first_name)&directors.last_name=eq.Nolan&order=id",
                json!([{"id": 3, "first_name": "Christopher"}, {"id": 5, "first_name": "Christopher"}]),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_spread_s_aggregates_apply_at_its_parent_grouped_by_its_other_columns() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            (
                "/films?select=title,...directors(n:id.count())&order=title&limit=3",
                json!([{"title": "Following", "n": 1}, {"title": "Orphan", "n": 0}, {"title": "Pulp Fiction", "n": 1}]),
            ),
            ("/technical_specs?select=runtime.sum(),...films(language)", json!([{"sum": 448, "language": "en"}])),
            (
                "/films?select=count(),...directors(last_name)&director_id=eq.1&language=eq.en",
                json!([{"count": 2, "last_name": "Tarantino"}]),
            ),
        ],
    )
    .await;
}

/// PostgREST 13 (not 12, which answers 400 PGRST119): a to-many spread
/// gives each of its outputs as an array, in the embed's order.
#[tokio::test]
async fn a_to_many_spread_gives_an_array_per_column() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            (
                "/directors?select=last_name,...films(title,year)&films.order=year&order=id",
                json!([
                    {"last_name": "Tarantino", "title": ["Reservoir Dogs", "Pulp Fiction"], "year": [1992, 1994]},
                    {"last_name": "Darabont", "title": ["The Shawshank Redemption"], "year": [1994]},
                    {"last_name": "Nolan", "title": ["Following", "The Dark Knight"], "year": [1998, 2008]}
                ]),
            ),
            // Many-to-many, and [] when nothing matches.
            (
                "/films?select=title,...actors(first_name)&actors.order=first_name&id=in.(1,4)&order=id",
                json!([
                    {"title": "Pulp Fiction", "first_name": ["John", "Uma"]},
                    {"title": "Reservoir Dogs", "first_name": []}
                ]),
            ),
            (
                "/directors?select=last_name,...films(title)&films.order=year.desc&films.limit=1&order=id",
                json!([
                    {"last_name": "Tarantino", "title": ["Pulp Fiction"]},
                    {"last_name": "Darabont", "title": ["The Shawshank Redemption"]},
                    {"last_name": "Nolan", "title": ["The Dark Knight"]}
                ]),
            ),
        ],
    )
    .await;
}

/// A spread combined with a JSON-path or regex filter once sent more
/// parameters than its statement had placeholders (500).
#[tokio::test]
async fn a_spread_with_json_path_and_regex_filters_reads_its_rows() {
    let app = common::spawn_shop().await;
    let answer = get(
        &app,
        "/products?select=name,...brands(brand:name)&specs->>ram=eq.8&name=match.^Gal&brands.name=imatch.^s",
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json(), json!([{"name": "Galaxy S24", "brand": "Samsung"}]));
}

async fn get_as(app: &TestApp, path: &str, accept: &str) -> Answer {
    let request = app.rest(Method::GET, path, None).header("accept", accept);
    Answer::from(request.send().await.expect("request")).await
}

#[tokio::test]
async fn a_plan_is_postgresql_s_explain_of_a_read_a_write_or_a_call_when_plans_are_enabled() {
    let mut config = common::test_config();
    config.rest.plan_enabled = true;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/films.sql")).await.expect("fixture");
    let path = "/films?select=title,directors(last_name)&id=eq.1";

    let text = get_as(&app, path, "application/vnd.pgrst.plan").await;
    assert_eq!(text.status, 200);
    assert_eq!(
        text.content_type.as_deref(),
        Some("application/vnd.pgrst.plan+text; for=\"application/json\"; charset=utf-8")
    );
    assert!(text.text.contains("Index Cond: (id = 1)") && text.text.ends_with('\n'), "{}", text.text);
    assert!(!text.text.contains("actual time"), "{}", text.text);

    let json = get_as(
        &app,
        path,
        "application/vnd.pgrst.plan+json; for=\"text/csv\"; options=analyze|verbose|buffers",
    )
    .await;
    assert_eq!(json.status, 200);
    assert_eq!(
        json.content_type.as_deref(),
        Some(
            "application/vnd.pgrst.plan+json; for=\"text/csv\"; options=analyze|verbose|buffers; charset=utf-8"
        )
    );
    let plan = json.json();
    let top = &plan[0]["Plan"];
    assert_eq!(top["Node Type"], "Aggregate", "{plan}");
    assert!(
        top["Actual Rows"].is_number() && top["Output"].is_array() && top["Shared Hit Blocks"].is_number(),
        "{plan}"
    );
    // CSV's statement is the one explained.
    assert!(top["Output"].to_string().contains("string_agg"), "{plan}");

    // Not of a media type that cannot be produced.
    let other = get_as(&app, path, "application/vnd.pgrst.plan; for=\"text/xml\"").await;
    assert_eq!((other.status, other.json()["code"].clone()), (406, json!("PGRST107")));

    // A write's plan: without analyze nothing is written; with analyze it
    // runs, and tx=rollback undoes it. Films are readable, not writable, by
    // anon: the service role writes.
    let service = app.service_key.clone();
    let explain_write = |accept: &'static str, prefer: &'static str| {
        app.rest(Method::POST, "/films", Some(&service))
            .header("accept", accept)
            .header("prefer", prefer)
            .json(&json!({"id": 99, "title": "Planned"}))
    };
    let films = || async {
        app.admin()
            .await
            .query_one("select count(*) from public.films where id = 99", &[])
            .await
            .expect("count")
            .get::<_, i64>(0)
    };
    let planned = Answer::from(
        explain_write("application/vnd.pgrst.plan", "return=minimal").send().await.expect("request"),
    )
    .await;
    assert_eq!(planned.status, 200, "{}", planned.text);
    assert!(planned.text.contains("Insert on films"), "{}", planned.text);
    assert_eq!(films().await, 0);
    let analyzed = explain_write("application/vnd.pgrst.plan; options=analyze", "tx=rollback")
        .send()
        .await
        .expect("request");
    assert_eq!(analyzed.status(), 200);
    assert!(analyzed.text().await.expect("body").contains("actual time"));
    assert_eq!(films().await, 0, "rolled back");
    let kept = explain_write("application/vnd.pgrst.plan; options=analyze", "return=minimal")
        .send()
        .await
        .expect("request");
    assert_eq!(kept.status(), 200);
    assert_eq!(films().await, 1, "an analyzed write is kept, as PostgREST keeps it");

    // A call's plan.
    let call = app
        .rest(Method::GET, "/rpc/initial?e=(1,Ada,,)", None)
        .header("accept", "application/vnd.pgrst.plan+json")
        .send()
        .await
        .expect("request");
    assert_eq!(call.status(), 200);
    assert!(call.text().await.expect("body").starts_with('['));
}

#[tokio::test]
async fn plans_are_unavailable_by_default_and_geojson_without_postgis() {
    let app = spawn_films().await;
    for accept in ["application/vnd.pgrst.plan", "application/geo+json"] {
        let answer = get_as(&app, "/films?select=title", accept).await;
        assert_eq!(answer.status, 406, "{accept}");
        assert_eq!(
            answer.json(),
            json!({"code": "PGRST107", "details": null, "hint": null,
                   "message": format!("None of these media types are available: {accept}")}),
        );
    }
}

#[tokio::test]
async fn a_singular_object_may_strip_its_nulls() {
    let app = spawn_films().await;
    let answer = get_as(
        &app,
        "/films?select=title,rating,directors(last_name)&id=eq.6",
        "application/vnd.pgrst.object+json;nulls=stripped",
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.content_type.as_deref(),
        Some("application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8")
    );
    assert_eq!(answer.json(), json!({"title": "Orphan"}));
    let many =
        get_as(&app, "/films?select=title&id=gt.4", "application/vnd.pgrst.object+json;nulls=stripped").await;
    assert_eq!((many.status, many.json()["code"].clone()), (406, json!("PGRST116")));
}

#[tokio::test]
async fn a_missing_relationship_or_table_hints_at_the_closest_name() {
    let app = spawn_films().await;
    // (path, PostgREST's hint): PGRST200's are PostgREST 12's answers,
    // PGRST205's PostgREST 13's wording.
    let cases = [
        (
            "/films?select=title,director(*)",
            "PGRST200",
            Some("Perhaps you meant 'directors' instead of 'director'."),
        ),
        ("/films?select=title,rol(*)", "PGRST200", Some("Perhaps you meant 'roles' instead of 'rol'.")),
        (
            "/films?select=title,film_list(*)",
            "PGRST200",
            Some("Perhaps you meant 'film_stats' instead of 'film_list'."),
        ),
        ("/reviews?select=*,film(*)", "PGRST200", Some("Perhaps you meant 'films' instead of 'film'.")),
        (
            "/film_directors?select=title,directors(*)",
            "PGRST200",
            Some("Perhaps you meant 'actors' instead of 'directors'."),
        ),
        ("/films?select=title,xyzzy(*)", "PGRST200", None),
        ("/flms", "PGRST205", Some("Perhaps you meant the table 'public.films'")),
        ("/technical_spec", "PGRST205", Some("Perhaps you meant the table 'public.technical_specs'")),
        ("/xyz", "PGRST205", None),
    ];
    for (path, code, hint) in cases {
        let answer = get(&app, path).await;
        assert_eq!(answer.json()["code"], code, "{path}");
        assert_eq!(answer.json()["hint"], json!(hint), "{path}");
    }
}

#[tokio::test]
async fn self_references_and_twin_foreign_keys_embed_by_hint_as_postgrest_does() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            // The table's name with a column hint: the one-to-many side.
            (
                "/employees?select=name,reports:employees!manager_id(name)&order=id",
                json!([
                    {"name": "Ada", "reports": [{"name": "Bob"}, {"name": "Cy"}]},
                    {"name": "Bob", "reports": [{"name": "Di"}]},
                    {"name": "Cy", "reports": []},
                    {"name": "Di", "reports": []}
                ]),
            ),
            // The foreign-key column: the many-to-one side, twice.
            (
                "/employees?select=name,mentor:mentor_id(name),manager:manager_id(name)&order=id",
                json!([
                    {"name": "Ada", "mentor": null, "manager": null},
                    {"name": "Bob", "mentor": null, "manager": {"name": "Ada"}},
                    {"name": "Cy", "mentor": {"name": "Bob"}, "manager": {"name": "Ada"}},
                    {"name": "Di", "mentor": {"name": "Cy"}, "manager": {"name": "Bob"}}
                ]),
            ),
            (
                "/employees?select=name,manager:manager_id!inner(name)&manager.name=eq.Ada&order=id",
                json!([{"name": "Bob", "manager": {"name": "Ada"}}, {"name": "Cy", "manager": {"name": "Ada"}}]),
            ),
            (
                "/directors?select=last_name,home_games:matches!home(id),away_games:matches!away(id)&order=id",
                json!([
                    {"last_name": "Tarantino", "home_games": [{"id": 1}], "away_games": []},
                    {"last_name": "Darabont", "home_games": [{"id": 2}], "away_games": [{"id": 1}]},
                    {"last_name": "Nolan", "home_games": [], "away_games": [{"id": 2}]}
                ]),
            ),
        ],
    )
    .await;
    // (path, status, body) of PostgREST's refusals.
    let cases = [
        // A constraint hint does not pick a side of a self-reference.
        (
            "/employees?select=name,manager:employees!employees_manager_id_fkey(name)",
            400,
            json!({"code": "PGRST200",
                   "details": "Searched for a foreign key relationship between 'employees' and 'employees' using the hint 'employees_manager_id_fkey' in the schema 'public', but no matches were found.",
                   "hint": null,
                   "message": "Could not find a relationship between 'employees' and 'employees' in the schema cache"}),
        ),
        (
            "/matches?select=id,directors(last_name)",
            300,
            json!({"code": "PGRST201",
                   "details": [
                       {"cardinality": "many-to-one", "embedding": "matches with directors", "relationship": "matches_away_fkey using matches(away) and directors(id)"},
                       {"cardinality": "many-to-one", "embedding": "matches with directors", "relationship": "matches_home_fkey using matches(home) and directors(id)"}
                   ],
                   "hint": "Try changing 'directors' to one of the following: 'directors!matches_away_fkey', 'directors!matches_home_fkey'. Find the desired relationship in the 'details' key.",
                   "message": "Could not embed because more than one relationship was found for 'matches' and 'directors'"}),
        ),
        // The same name twice in one object: PostgreSQL refuses PostgREST's two joins of one name.
        (
            "/matches?select=id,directors!home(last_name),directors!away(last_name)",
            400,
            json!({"code": "42712", "details": null, "hint": null,
                   "message": "table name \"matches_directors_1\" specified more than once"}),
        ),
        (
            "/directors?select=id,matches!home(id,...directors!home(a:id),...directors!away(b:id))",
            400,
            json!({"code": "42712", "details": null, "hint": null,
                   "message": "table name \"matches_directors_2\" specified more than once"}),
        ),
    ];
    for (path, status, body) in cases {
        let answer = get(&app, path).await;
        assert_eq!((answer.status, answer.json()), (status, body), "{path}");
    }
}

/// The statement reads each table by PostgREST's name for it (so that
/// PostgreSQL's errors read as PostgREST's); a row passed to a computed
/// field is `alias.*`, never the bare name, which an output may share.
#[tokio::test]
async fn a_computed_field_reads_its_row_even_beside_an_output_named_as_the_table() {
    let app = spawn_films().await;
    let request = app
        .rest(Method::GET, "/employees?select=id,employees!manager_id(id)&initial=eq.B&order=id", None)
        .header("prefer", "count=exact");
    let answer = Answer::from(request.send().await.expect("request")).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.content_range.as_deref(), Some("0-0/1"));
    assert_eq!(answer.json(), json!([{"id": 2, "employees": [{"id": 4}]}]));
}

#[tokio::test]
async fn computed_fields_and_relationships_work_on_partitioned_tables_and_views() {
    let app = spawn_films().await;
    answers_as_postgrest(
        &app,
        &[
            ("/events?select=id,shout&shout=neq.PREMIERE&order=shout", json!([{"id": 3, "shout": "FESTIVAL"}, {"id": 2, "shout": "RERUN"}])),
            (
                "/film_list?select=headline,all_events(label)&id=lte.2&order=id&all_events.order=id",
                json!([
                    {"headline": "Pulp Fiction (1994)", "all_events": [{"label": "premiere"}, {"label": "rerun"}]},
                    {"headline": "The Shawshank Redemption (1994)", "all_events": [{"label": "festival"}]}
                ]),
            ),
            // The partitioned table relates through its own foreign key; a partition does not.
            ("/events?select=label,films(title)&id=eq.3", json!([{"label": "festival", "films": {"title": "The Shawshank Redemption"}}])),
        ],
    )
    .await;
    let partition = get(&app, "/events_2025?select=id,films(title)").await;
    assert_eq!((partition.status, partition.json()["code"].clone()), (400, json!("PGRST200")));
    assert_eq!(partition.json()["hint"], "Perhaps you meant 'events' instead of 'events_2025'.");
}

/// PostgREST sets `search_path` to the request's schema followed by
/// `db-extra-search-path` (Supabase's `public, extensions`), keeping the
/// duplicate, which `explain({ settings: true })` shows.
#[tokio::test]
async fn the_search_path_is_the_request_schema_then_the_extra_schemas_duplicates_kept() {
    let mut config = common::test_config();
    config.rest.plan_enabled = true;
    let app = common::spawn_app_with(common::Options { config, ..Default::default() }).await;
    app.admin().await.batch_execute(include_str!("fixtures/shop.sql")).await.expect("fixture");
    let answer =
        get_as(&app, "/products?select=id", "application/vnd.pgrst.plan+json; options=settings").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json()[0]["Settings"]["search_path"], "\"public\", \"public\", \"extensions\"");
}
