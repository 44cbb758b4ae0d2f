//! Nested embeds over the library fixture (`tests/fixtures/library.sql`),
//! generated from a seed: trees of embeds up to three levels deep through
//! every relationship of the fixture (to-one holding to-many, to-many holding
//! to-one, views that join, filter and aggregate), `!inner` and `!left` on
//! any level, filters, orders and limits on embedded levels, and top levels
//! of up to the 1,000 rows `db-max-rows` lets through, so that a statement
//! that evaluates an inner level once per outer row over the whole inner
//! table runs into anon's `statement_timeout`. Every array of an answer has
//! a total order where the request gives one; the others are compared as
//! multisets. [`shapes`] adds fixed requests of the same kinds.

use reqwest::Method;

use super::compare::{Request, Who};
use super::generate::{Query, Rng, fixed_reads};

/// A relation of the fixture (a table or a view).
struct Relation {
    name: &'static str,
    /// The columns that make an order total.
    key: &'static str,
    columns: &'static [&'static str],
    /// `(column, operation)`, operation without the optional `not.`.
    filters: &'static [(&'static str, &'static str)],
    /// Order terms, not total on their own.
    orders: &'static [&'static str],
    /// What it embeds: `(name in the select, target relation, to-one)`.
    edges: &'static [(&'static str, &'static str, bool)],
}

const BOOK_FILTERS: &[(&str, &str)] = &[
    ("id", "lt.200"),
    ("id", "gt.2500"),
    ("id", "in.(1,7,50,999,2000)"),
    ("published_on", "gt.1955-09-11"),
    ("published_on", "lt.1960-01-01"),
    ("available", "is.true"),
    ("available", "eq.false"),
    ("pages", "gt.600"),
    ("pages", "is.null"),
    ("price", "lt.10"),
    ("title", "like.El*"),
    ("title", "ilike.*RÍO*"),
    ("publisher_id", "eq.7"),
    ("genre_id", "in.(1,9,16)"),
    ("author_id", "is.null"),
];

const RELATIONS: &[Relation] = &[
    Relation {
        name: "books",
        key: "id",
        columns: &[
            "id",
            "title",
            "publisher_id",
            "genre_id",
            "author_id",
            "published_on",
            "available",
            "pages",
            "price",
            "título:title",
            "price::text",
            "published_on::text",
        ],
        filters: BOOK_FILTERS,
        orders: &["published_on.desc", "price.nullsfirst", "pages.desc.nullslast", "title", "genre_id"],
        edges: &[
            ("publishers", "publishers", true),
            ("publishers!books_publisher_id_fkey", "publishers", true),
            ("genres", "genres", true),
            ("authors", "authors", true),
            ("reviews", "reviews", false),
        ],
    },
    Relation {
        name: "publishers",
        key: "id",
        columns: &["id", "name", "website", "country", "founded", "founded::text"],
        filters: &[
            ("id", "gte.9"),
            ("id", "lt.5"),
            ("country", "eq.AR"),
            ("country", "in.(ES,FR)"),
            ("website", "is.null"),
            ("founded", "gt.1950"),
            ("name", "like.*a*"),
        ],
        orders: &["name", "country.desc", "founded.nullsfirst"],
        edges: &[
            ("books", "books", false),
            ("book_catalogue", "book_catalogue", false),
            ("available_books", "available_books", false),
            ("publisher_stats", "publisher_stats", false),
        ],
    },
    Relation {
        name: "genres",
        key: "id",
        columns: &["id", "name", "fiction"],
        filters: &[("id", "gte.9"), ("id", "lt.4"), ("fiction", "is.true"), ("name", "like.*a")],
        orders: &["name", "fiction.desc"],
        edges: &[
            ("books", "books", false),
            ("book_catalogue", "book_catalogue", false),
            ("available_books", "available_books", false),
        ],
    },
    Relation {
        name: "authors",
        key: "id",
        columns: &["id", "name", "born", "country"],
        filters: &[("born", "gt.1950"), ("born", "is.null"), ("country", "eq.AR"), ("name", "ilike.*núñez")],
        orders: &["name", "born.desc.nullslast", "country.nullsfirst"],
        edges: &[("books", "books", false), ("available_books", "available_books", false)],
    },
    Relation {
        name: "reviews",
        key: "id",
        columns: &["id", "book_id", "rating", "reader", "reviewed_on"],
        filters: &[
            ("rating", "gte.4"),
            ("rating", "eq.1"),
            ("reader", "in.(ana,hugo)"),
            ("reviewed_on", "gt.2020-01-01"),
            ("book_id", "lt.100"),
        ],
        orders: &["rating.desc", "reviewed_on", "reader"],
        edges: &[("books", "books", true), ("book_catalogue", "book_catalogue", true)],
    },
    Relation {
        name: "book_catalogue",
        key: "id",
        columns: &[
            "id",
            "title",
            "publisher_name",
            "published_on",
            "genre_name",
            "publisher_id",
            "genre_id",
            "título:genre_name::varchar",
        ],
        filters: &[
            ("genre_id", "lt.1"),
            ("genre_id", "in.(2,3)"),
            ("publisher_name", "like.Anagrama*"),
            ("published_on", "gt.2000-01-01"),
            ("id", "lt.300"),
        ],
        orders: &["title", "published_on.desc", "genre_name"],
        edges: &[
            ("publishers", "publishers", true),
            ("genres", "genres", true),
            ("reviews", "reviews", false),
        ],
    },
    Relation {
        name: "available_books",
        key: "id",
        columns: &["id", "title", "publisher_id", "genre_id", "author_id", "price"],
        filters: &[("price", "gt.40"), ("genre_id", "eq.4"), ("id", "gt.2900"), ("author_id", "is.null")],
        orders: &["title.desc", "price.desc.nullslast"],
        edges: &[
            ("publishers", "publishers", true),
            ("genres", "genres", true),
            ("authors", "authors", true),
            ("reviews", "reviews", false),
        ],
    },
    Relation {
        name: "publisher_stats",
        key: "publisher_id",
        columns: &["publisher_id", "titles", "pages", "latest"],
        filters: &[("titles", "gt.75"), ("latest", "lt.2010-01-01")],
        orders: &["titles.desc", "latest"],
        edges: &[("publishers", "publishers", true)],
    },
];

fn relation(name: &str) -> &'static Relation {
    RELATIONS.iter().find(|r| r.name == name).expect("a relation of the fixture")
}

/// A request under construction.
struct Build {
    /// Filters, orders and limits of the embedded levels.
    pairs: Vec<(String, String)>,
    /// Every array of the answer has a total order.
    ordered: bool,
    /// Whether the top level is cut to a few rows: without, it has up to
    /// 1,000, and the levels below are kept small so that the answer is.
    small: bool,
}

/// The select of `rel` at `depth` below the top, reached through `path`
/// (`pub_a.books`), whose filters, orders and limits go to `build`.
fn node(rng: &mut Rng, build: &mut Build, rel: &Relation, depth: usize, path: &str) -> String {
    let mut items: Vec<String> = Vec::new();
    if rng.chance(if depth == 0 { 10 } else { 20 }) && (build.small || depth == 0) {
        items.push("*".to_owned());
    } else {
        for _ in 0..1 + rng.below(3) {
            let column = rng.pick(rel.columns).to_owned();
            if !items.contains(&column) {
                items.push(column);
            }
        }
    }
    // Embeds: more at the top, none below the third level.
    let embeds = match depth {
        0 => 1 + rng.below(3),
        1 => rng.below(3),
        2 => usize::from(rng.chance(40)),
        _ => 0,
    };
    let mut names: Vec<String> = Vec::new();
    // The relations embedded at this level, each once: a parameter's path
    // names the first embed whose relation or alias it is, and the
    // parameters applied before it move embeds to the front, which the
    // catalog's generator covers (`generate_catalog.rs`).
    let mut bases: Vec<&str> = Vec::new();
    for _ in 0..embeds {
        let (item, target, to_one) = rng.pick(rel.edges);
        let target = relation(target);
        // An alias now and then, always when the name is taken at this level.
        let base = item.split('!').next().unwrap_or(item);
        if bases.contains(&base) {
            continue;
        }
        let alias = if rng.chance(20) { Some(format!("{}_{}", &base[..3], names.len())) } else { None };
        let name = alias.clone().unwrap_or_else(|| base.to_owned());
        if names.contains(&name) {
            continue;
        }
        let child_path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
        names.push(name);
        bases.push(base);
        let join = match rng.below(10) {
            0..=2 => "!inner",
            3 => "!left",
            _ => "",
        };
        let children = node(rng, build, target, depth + 1, &child_path);
        let head = match &alias {
            Some(alias) => format!("{alias}:{item}{join}"),
            None => format!("{item}{join}"),
        };
        items.push(format!("{head}({children})"));
        // Filters on the embedded level.
        if rng.chance(45) {
            let (column, operation) = rng.pick(target.filters);
            let not = if rng.chance(15) { "not." } else { "" };
            build.pairs.push((format!("{child_path}.{column}"), format!("{not}{operation}")));
        }
        // A to-one embed filtered to nothing shows as null; `!inner` drops the row.
        if !to_one {
            // Only an ordered embed is cut: which rows an unordered limit
            // keeps is the plan's choice.
            let ordered = !build.small || rng.chance(70);
            if ordered {
                let mut order = Vec::new();
                if rng.chance(50) {
                    order.push(rng.pick(target.orders).to_owned());
                }
                order.push(format!("{}.{}", target.key, rng.pick(&["asc", "desc"])));
                build.pairs.push((format!("{child_path}.order"), order.join(",")));
            } else {
                build.ordered = false;
            }
            if ordered && (!build.small || rng.chance(25)) {
                build.pairs.push((format!("{child_path}.limit"), (1 + rng.below(4)).to_string()));
                if rng.chance(20) {
                    build.pairs.push((format!("{child_path}.offset"), rng.below(3).to_string()));
                }
            }
        }
    }
    items.join(",")
}

/// One generated read.
pub fn read(rng: &mut Rng) -> Request {
    let top = rng.pick(&[
        "books",
        "books",
        "books",
        "publishers",
        "genres",
        "authors",
        "reviews",
        "book_catalogue",
    ]);
    let rel = relation(top);
    let mut build = Build { pairs: Vec::new(), ordered: true, small: rng.chance(85) };
    let select = node(rng, &mut build, rel, 0, "");
    let mut query = Query::default();
    query.add("select", &select);
    for _ in 0..rng.below(3) {
        let (column, operation) = rng.pick(rel.filters);
        query.add(column, operation);
    }
    let mut order = Vec::new();
    if rng.chance(40) {
        order.push(rng.pick(rel.orders).to_owned());
    }
    order.push(format!("{}.{}", rel.key, rng.pick(&["asc", "desc"])));
    query.add("order", &order.join(","));
    if build.small {
        query.add("limit", &(1 + rng.below(25)).to_string());
        if rng.chance(20) {
            query.add("offset", &rng.below(40).to_string());
        }
    }
    for (key, value) in &build.pairs {
        query.add(key, value);
    }
    let (who, count) = match rng.below(10) {
        0 => (Who::User, true),
        1 => (Who::Service, false),
        _ => (Who::Anon, false),
    };
    let mut headers = Vec::new();
    if count {
        headers.push(("prefer", "count=exact".to_owned()));
    }
    Request {
        method: Method::GET,
        path: format!("/{top}?{}", query.encode()),
        headers,
        body: None,
        who,
        ordered: build.ordered,
    }
}

/// Fixed nested shapes, read by anon and by a signed-in user with
/// `count=exact`: the to-one embed holding a to-many `!inner` embed and
/// views, over every book, that once ran past anon's timeout, and its
/// relatives.
pub fn shapes() -> Vec<Request> {
    let paths = [
        "/books?select=available,pub_a:publishers!books_publisher_id_fkey(website,id,name,books!inner(*),book_catalogue(*)),genres(*,book_catalogue(title,publisher_name,published_on,título:genre_name::varchar,publisher_id))&published_on=gt.1955-09-11&pub_a.books.order=id.asc&genres.id=gte.9&genres.book_catalogue.genre_id=lt.1&order=id.asc",
        "/books?select=id,publishers(id,books!inner(id))&publishers.books.order=id&publishers.books.limit=2&order=id",
        "/books?select=id,publishers!inner(id,books!inner(id))&publishers.books.id=lt.100&publishers.books.order=id&order=id",
        "/books?select=id,publishers(id,book_catalogue(id))&publishers.book_catalogue.order=id&publishers.book_catalogue.limit=1&order=id",
        "/books?select=id,genres(id,book_catalogue(id))&genres.book_catalogue.genre_id=lt.1&order=id",
        "/books?select=id,genres!inner(id,book_catalogue!inner(id))&genres.book_catalogue.genre_id=lt.1&order=id",
        "/books?select=id,publishers(id,publisher_stats(titles))&order=id",
        "/books?select=id,publishers(id,available_books!inner(id))&publishers.available_books.price=gt.50&publishers.available_books.order=id&order=id",
        "/books?select=id,publishers(id,books(id,reviews(rating)))&publishers.books.order=id&publishers.books.limit=2&publishers.books.reviews.order=id&order=id",
        "/books?select=id,authors(id,books!inner(id,genres(name)))&authors.books.order=id&authors.books.limit=3&order=id",
        "/reviews?select=id,books(id,publishers(id,books(id)))&books.publishers.books.order=id&books.publishers.books.limit=1&order=id",
        "/reviews?select=id,book_catalogue(id,genres(id,books!inner(id)))&book_catalogue.genres.books.id=lt.50&book_catalogue.genres.books.order=id&order=id",
        "/publishers?select=id,books(id,genres(id,book_catalogue(id)))&books.order=id&books.genres.book_catalogue.order=id&books.genres.book_catalogue.limit=1&order=id",
        "/genres?select=id,books!inner(id,publishers!inner(id,publisher_stats(titles)))&books.publishers.country=eq.AR&books.order=id&books.limit=5&order=id",
        "/books?select=id,publishers(id,books!inner(id)),genres(id,books!inner(id))&publishers.books.id=lt.10&genres.books.id=lt.10&order=id",
        "/books?select=id,publishers(name,books(id))&publishers.books.order=published_on.desc,id&publishers.books.limit=1&order=publishers(name).nullsfirst,id",
    ];
    fixed_reads(&paths, &[(Who::Anon, false), (Who::User, true)])
}
