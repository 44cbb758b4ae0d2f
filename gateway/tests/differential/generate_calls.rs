//! Function calls and writes over the calls fixture (`tests/fixtures/calls.sql`),
//! generated from a seed as the shop's requests are (`generate.rs`).
//!
//! [`call`] draws a function (overloaded, with defaults, polymorphic,
//! variadic, scalar, composite, `returns table`, `setof` of a table, a view or
//! a scalar, void, volatile) and calls it by GET (arguments in the query) or
//! POST (a JSON body), sometimes with an argument too many or too few, and
//! shapes its rows with `select`, filters, order, limit and offset, `Prefer:
//! count=exact`, `tx=rollback`, `handling=strict, max-affected`, singular and
//! CSV answers. [`write`] inserts and upserts arrays (`missing=default`,
//! `columns=`, `on_conflict` on composite keys, both resolutions), updates,
//! replaces and deletes, with every `return=`, counts, `tx=rollback` and
//! `max-affected`. The writes are committed: each server has a database of
//! its own, and both get the same requests in the same order. [`fixed`] adds
//! the calls every run must make (profiles, refused volatile GETs, variadic
//! and polymorphic forms).

use reqwest::Method;

use super::compare::{Request, Who};
use super::generate::{Query, Rng};

/// An argument's values: `(query string form, JSON form)`.
type Values = &'static [(&'static str, &'static str)];

/// What a function returns, which decides how its result may be shaped.
#[derive(Clone, Copy, PartialEq)]
enum Returns {
    /// One value (a scalar, jsonb, a polymorphic value, void).
    Scalar,
    /// Rows: their key (a total order), their columns, filters and embeds.
    Rows {
        key: &'static str,
        columns: &'static [&'static str],
        filters: &'static [(&'static str, &'static str)],
        embeds: &'static [&'static str],
    },
}

struct Function {
    /// The path below `/rest/v1`, e.g. `/rpc/add`.
    path: &'static str,
    /// `(name, required, values)`.
    args: &'static [(&'static str, bool, Values)],
    returns: Returns,
    volatile: bool,
    /// A schema other than `public` (sent as a profile header).
    schema: Option<&'static str>,
}

const INTS: Values = &[("1", "1"), ("2", "2"), ("40", "40"), ("-3", "-3"), ("0", "0")];
const AUTHORS: Values = &[("1", "1"), ("2", "2"), ("3", "3"), ("6", "6"), ("99", "99")];
const BOOKS: Values = &[("1", "1"), ("7", "7"), ("12", "12"), ("40", "40"), ("999", "999")];
const TEXTS: Values = &[("ana", "\"ana\""), ("Mundo", "\"Mundo\""), ("x%20y", "\"x y\""), ("", "\"\"")];
const COUNTRIES: Values = &[("ES", "\"ES\""), ("PT", "\"PT\""), ("BR", "\"BR\""), ("XX", "\"XX\"")];

const AUTHOR_COLUMNS: &[&str] = &["name", "country", "born", "slug", "who:name", "born::text", "id::text"];
/// Filters on authors' rows; none on `name` or `country`, which are
/// arguments of the functions returning them (a GET's parameter of an
/// argument's name is that argument).
const AUTHOR_FILTERS: &[(&str, &str)] = &[
    ("born", "gt.1960"),
    ("born", "is.null"),
    ("slug", "like.*a*"),
    ("id", "in.(1,2,3,100,101)"),
    ("or", "(born.lt.1950,id.gt.100)"),
];
const BOOK_COLUMNS: &[&str] = &[
    "title",
    "pages",
    "price",
    "code",
    "tags",
    "meta",
    "meta->>lang",
    "ed:meta->ed",
    "author_id",
    "pages::text",
    "t:title",
    "price::int",
];
const BOOK_FILTERS: &[(&str, &str)] = &[
    ("pages", "gt.200"),
    ("pages", "lte.120"),
    ("price", "lt.20"),
    ("title", "like.Libro 1*"),
    ("tags", "cs.{novela}"),
    ("tags", "eq.{}"),
    ("meta->>lang", "eq.es"),
    ("id", "in.(1,2,3,12,24)"),
    ("or", "(pages.gt.300,price.lt.10)"),
];

const FUNCTIONS: &[Function] = &[
    Function {
        path: "/rpc/add",
        args: &[("a", true, INTS), ("b", true, INTS), ("c", false, INTS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/label",
        args: &[("x", true, INTS), ("suffix", false, TEXTS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/concat_two",
        args: &[("a", true, TEXTS), ("b", false, TEXTS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/greet",
        args: &[("name", true, TEXTS), ("greeting", false, TEXTS), ("punct", false, TEXTS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/vsum",
        args: &[(
            "nums",
            true,
            &[("{1,2,3}", "[1,2,3]"), ("{}", "[]"), ("{5}", "[5]"), ("{4,-4,10}", "[4,-4,10]")],
        )],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/vjoin",
        args: &[
            ("sep", true, &[("-", "\"-\""), ("%2C", "\",\"")]),
            ("parts", true, &[("{a,b}", "[\"a\",\"b\"]"), ("{x}", "[\"x\"]"), ("{}", "[]")]),
        ],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/books_by",
        args: &[("author", true, AUTHORS)],
        returns: Returns::Rows {
            key: "id",
            columns: &["title", "pages", "t:title", "pages::text", "id::text"],
            filters: &[("pages", "gt.200"), ("title", "like.*1*"), ("id", "lt.20")],
            embeds: &[],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/list_books",
        args: &[("min_pages", false, &[("100", "100"), ("300", "300"), ("0", "0"), ("1000", "1000")])],
        returns: Returns::Rows {
            key: "id",
            columns: &["title", "pages", "price", "author", "country", "who:author", "price::text"],
            filters: &[
                ("country", "eq.ES"),
                ("author", "like.*a*"),
                ("pages", "lt.250"),
                ("price", "gte.20"),
                ("or", "(country.eq.PT,pages.gt.400)"),
            ],
            embeds: &[],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/books_of",
        args: &[("author_id", true, AUTHORS)],
        returns: Returns::Rows {
            key: "id",
            columns: BOOK_COLUMNS,
            filters: BOOK_FILTERS,
            embeds: &["authors(name,country)", "writer:authors(name)", "authors!inner(name)"],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/tagged_books",
        args: &[(
            "tags",
            true,
            &[("{novela}", "[\"novela\"]"), ("{poesía,x}", "[\"poesía\",\"x\"]"), ("{}", "[]")],
        )],
        returns: Returns::Rows {
            key: "id",
            columns: BOOK_COLUMNS,
            filters: BOOK_FILTERS,
            embeds: &["authors(name)"],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/numbers",
        args: &[("n", true, &[("3", "3"), ("0", "0"), ("10", "10")])],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/author_of",
        args: &[("book", true, BOOKS)],
        returns: Returns::Rows {
            key: "id",
            columns: AUTHOR_COLUMNS,
            filters: AUTHOR_FILTERS,
            embeds: &["books(id)", "books(title,pages)"],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/shelf_stats",
        args: &[],
        returns: Returns::Rows {
            key: "n",
            columns: &["total_pages", "top_price", "top_price::text", "pages:total_pages"],
            filters: &[("n", "gt.10"), ("total_pages", "lt.10")],
            embeds: &[],
        },
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/book_meta",
        args: &[("book", true, BOOKS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: None,
    },
    Function {
        path: "/rpc/bump_pages",
        args: &[("book", true, BOOKS), ("by", false, INTS)],
        returns: Returns::Scalar,
        volatile: true,
        schema: None,
    },
    Function {
        path: "/rpc/add_author",
        args: &[("name", true, TEXTS), ("country", false, COUNTRIES)],
        returns: Returns::Rows {
            key: "id",
            columns: AUTHOR_COLUMNS,
            filters: AUTHOR_FILTERS,
            embeds: &["books(id)"],
        },
        volatile: true,
        schema: None,
    },
    Function {
        path: "/rpc/restock",
        args: &[
            ("shop", true, &[("madrid", "\"madrid\""), ("lisboa", "\"lisboa\""), ("oslo", "\"oslo\"")]),
            ("qty", true, INTS),
        ],
        returns: Returns::Rows {
            key: "shop,sku",
            columns: &["qty", "note", "sku", "serial", "qty::text"],
            filters: &[("qty", "gt.5"), ("note", "is.null"), ("sku", "in.(SKU-1,SKU-2)")],
            embeds: &[],
        },
        volatile: true,
        schema: None,
    },
    Function {
        path: "/rpc/add",
        args: &[("a", true, INTS), ("b", true, INTS)],
        returns: Returns::Scalar,
        volatile: false,
        schema: Some("api"),
    },
    Function {
        path: "/rpc/version",
        args: &[],
        returns: Returns::Scalar,
        volatile: false,
        schema: Some("api"),
    },
    Function {
        path: "/rpc/authors_in",
        args: &[("country", true, COUNTRIES)],
        returns: Returns::Rows { key: "id", columns: AUTHOR_COLUMNS, filters: AUTHOR_FILTERS, embeds: &[] },
        volatile: false,
        schema: Some("api"),
    },
];

fn who(rng: &mut Rng) -> Who {
    match rng.below(10) {
        0..=5 => Who::Anon,
        6..=7 => Who::User,
        _ => Who::Service,
    }
}

/// `select`, filters, order and a range on rows; says whether the order is total.
///
/// PostgREST 12.0.2 cannot filter or order a function's rows by a column the
/// select leaves out (#3965, fixed in 13.0.0; allow-listed); a volatile
/// function is called either narrowed or filtered, never both, so that the
/// call fails on neither server and both databases keep its writes.
fn shape_rows(
    rng: &mut Rng,
    q: &mut Query,
    key: &str,
    columns: &[&str],
    filters: &[(&str, &str)],
    embeds: &[&str],
    volatile: bool,
) -> bool {
    let narrow = rng.chance(70);
    let mut unordered = false;
    if narrow {
        let mut items = vec![key.to_owned()];
        for _ in 0..rng.below(3) {
            items.push(rng.pick(columns).to_owned());
        }
        if !embeds.is_empty() && rng.chance(30) {
            items.push(rng.pick(embeds).to_owned());
            // An embed's rows come in no defined order.
            unordered = true;
        }
        if rng.chance(5) {
            items = vec!["count()".to_owned()];
        }
        items.dedup();
        q.add("select", &items.join(","));
    }
    for _ in 0..if volatile && narrow { 0 } else { rng.below(3) } {
        let (column, operation) = rng.pick(filters);
        let not = if rng.chance(10) { "not." } else { "" };
        q.add(column, &format!("{not}{operation}"));
    }
    if rng.chance(4) {
        q.add("nope", "eq.1");
    }
    if rng.chance(75) {
        let first = rng.pick(columns);
        let lead = if rng.chance(40) && !first.contains([':', '-']) && !(volatile && narrow) {
            format!("{}.desc,", first.split("::").next().unwrap_or(first))
        } else {
            String::new()
        };
        let tail: Vec<String> = key.split(',').map(str::to_owned).collect();
        q.add("order", &format!("{lead}{}", tail.join(",")));
        // PostgREST 12.0.2 refuses some ranges before it calls the function
        // (allow-listed), which must not part the databases.
        if rng.chance(40) && !volatile {
            q.add("limit", rng.pick(&["0", "1", "2", "5"]));
        }
        if rng.chance(25) && !volatile {
            q.add("offset", rng.pick(&["0", "1", "3"]));
        }
        !unordered
    } else {
        false
    }
}

/// A call of one of [`FUNCTIONS`].
pub fn call(rng: &mut Rng) -> Request {
    let function = &FUNCTIONS[rng.below(FUNCTIONS.len())];
    let get = if function.volatile { rng.chance(15) } else { rng.chance(50) };
    let mut q = Query::default();
    let mut body: Vec<String> = Vec::new();
    for (name, required, values) in function.args {
        let send = if *required { rng.chance(96) } else { rng.chance(50) };
        if !send {
            continue;
        }
        let (text, json) = rng.pick(values);
        if get {
            // Repeated parameters are a variadic argument's items.
            if *name == "nums" || *name == "parts" {
                let items = text.trim_start_matches('{').trim_end_matches('}');
                if rng.chance(50) && !items.is_empty() {
                    for item in items.split(',') {
                        q.add(name, item);
                    }
                    continue;
                }
            }
            q.add(name, &text.replace("%20", " ").replace("%2C", ","));
        } else {
            body.push(format!("\"{name}\":{json}"));
        }
    }
    if rng.chance(3) {
        if get {
            q.add("extra", "1");
        } else {
            body.push("\"extra\":1".to_owned());
        }
    }
    let mut ordered = true;
    let mut headers: Vec<(&'static str, String)> = Vec::new();
    let mut prefer: Vec<&str> = Vec::new();
    match function.returns {
        Returns::Rows { key, columns, filters, embeds } => {
            ordered = shape_rows(rng, &mut q, key, columns, filters, embeds, function.volatile);
            if rng.chance(30) {
                prefer.push("count=exact");
            }
        }
        Returns::Scalar => {
            if rng.chance(10) {
                prefer.push("count=exact");
            }
            if function.path == "/rpc/numbers" && rng.chance(50) {
                q.add("limit", rng.pick(&["1", "2"]));
            }
        }
    }
    let bound = rng.chance(12).then(|| {
        rng.pick(&[
            "handling=strict, max-affected=1",
            "handling=strict, max-affected=3",
            "max-affected=1",
            "handling=lenient, max-affected=0",
        ])
    });
    // PostgREST 12.0.2 refuses `max-affected` under `handling=strict` (it
    // came in 12.2.0) before it calls the function: such a call is rolled
    // back, and a volatile function (whose inserts would advance a sequence
    // on one side only) is not called so.
    let strict = bound.is_some_and(|b| b.contains("strict"));
    let bound = bound.filter(|_| !(strict && function.volatile));
    if !get && (rng.chance(20) || strict) {
        prefer.push("tx=rollback");
    }
    prefer.extend(bound);
    if rng.chance(4) {
        prefer.push(rng.pick(&["return=minimal", "return=representation", "missing=default"]));
    }
    if !prefer.is_empty() {
        headers.push(("prefer", prefer.join(", ")));
    }
    match rng.below(20) {
        0 | 1 => headers.push(("accept", "application/vnd.pgrst.object+json".to_owned())),
        2 if ordered => headers.push(("accept", "text/csv".to_owned())),
        3 => headers.push(("accept", "application/json".to_owned())),
        _ => {}
    }
    if let Some(schema) = function.schema {
        headers.push((if get { "accept-profile" } else { "content-profile" }, schema.to_owned()));
    } else if rng.chance(10) {
        headers.push((if get { "accept-profile" } else { "content-profile" }, "public".to_owned()));
    }
    let query = q.encode();
    let path = if query.is_empty() { function.path.to_owned() } else { format!("{}?{query}", function.path) };
    let (method, body) = if get {
        (if rng.chance(5) { Method::HEAD } else { Method::GET }, None)
    } else {
        headers.push(("content-type", "application/json".to_owned()));
        (Method::POST, Some(format!("{{{}}}", body.join(","))))
    };
    Request { method, path, headers, body, who: who(rng), ordered }
}

/// One row for `table`, numbered `n`, with some keys left out (which
/// `missing=default` fills with the column's default): those of `mask`'s
/// clear bits, or at random without one.
fn row(rng: &mut Rng, table: &str, n: usize, keys: bool, mask: Option<usize>) -> String {
    // `(always sent, sent two times in three)`.
    let (mut fields, optional): (Vec<String>, Vec<String>) = match table {
        "authors" => (
            [
                keys.then(|| format!("\"id\":{}", rng.pick(&[1, 2, 3, 6, 100, 101, 102, 500 + n]))),
                Some(format!("\"name\":\"Autor {n}\"")),
            ]
            .into_iter()
            .flatten()
            .collect(),
            vec![
                format!("\"country\":\"{}\"", rng.pick(&["ES", "PT", "AR"])),
                format!("\"born\":{}", rng.pick(&["1970", "null", "2001"])),
                "\"slug\":\"s\"".to_owned(),
            ],
        ),
        "books" => (
            [
                keys.then(|| format!("\"id\":{}", rng.pick(&[1, 2, 5, 1000, 1001, 5000 + n]))),
                Some(format!("\"title\":\"Nuevo {n}\"")),
            ]
            .into_iter()
            .flatten()
            .collect(),
            vec![
                format!("\"author_id\":{}", rng.pick(&["1", "2", "5", "null", "77"])),
                format!("\"pages\":{}", rng.pick(&["10", "320", "null"])),
                format!("\"price\":{}", rng.pick(&["1.5", "20", "null"])),
                "\"tags\":[\"nuevo\"]".to_owned(),
                "\"meta\":{\"ed\":2}".to_owned(),
            ],
        ),
        "stock" => {
            let mut fields = vec![
                format!("\"shop\":\"{}\"", rng.pick(&["madrid", "lisboa", "oslo"])),
                format!("\"sku\":\"SKU-{}\"", rng.pick(&[1, 2, 3, 6, 7])),
            ];
            if rng.chance(3) {
                fields.push("\"serial\":5".to_owned());
            }
            (
                fields,
                vec![
                    format!("\"qty\":{}", rng.pick(&["1", "8", "null"])),
                    format!("\"note\":{}", rng.pick(&["\"fresh\"", "null"])),
                ],
            )
        }
        "prices" => (
            vec![
                format!("\"region\":\"{}\"", rng.pick(&["eu", "us", "asia"])),
                format!("\"sku\":\"SKU-{}\"", rng.pick(&[1, 2, 4, 5])),
            ],
            vec![
                format!("\"amount\":{}", rng.pick(&["3.25", "10", "null"])),
                format!("\"active\":{}", rng.pick(&["false", "true"])),
            ],
        ),
        _ => (
            Vec::new(),
            vec![
                format!("\"kind\":\"{}\"", rng.pick(&["start", "stop", "tick"])),
                format!("\"payload\":{}", rng.pick(&["{\"n\":1}", "null", "[true]"])),
                "\"day\":\"2025-02-03\"".to_owned(),
            ],
        ),
    };
    for (i, field) in optional.into_iter().enumerate() {
        if mask.map_or_else(|| rng.chance(65), |mask| mask & (1 << i) != 0) {
            fields.push(field);
        }
    }
    format!("{{{}}}", fields.join(","))
}

/// What a table's writes may select in their representation.
fn representation(rng: &mut Rng, table: &str) -> &'static str {
    let options: &[&str] = match table {
        "authors" => &["", "select=id,name", "select=name,books(id)", "select=*"],
        "books" => &["", "select=id,title,pages,code", "select=title,authors(name)", "select=id,price::text"],
        "stock" => &["", "select=shop,sku,qty,note", "select=*"],
        "prices" => &["", "select=region,sku,amount", "select=*"],
        _ => &["", "select=kind,day"],
    };
    rng.pick(options)
}

/// A write, committed unless it asks for `tx=rollback`.
pub fn write(rng: &mut Rng, n: usize) -> Request {
    let table = rng.pick(&["authors", "books", "books", "stock", "stock", "prices", "events"]);
    let mut prefer: Vec<String> = Vec::new();
    let mut q = Query::default();
    let select = representation(rng, table);
    if let Some((key, value)) = select.split_once('=') {
        q.add(key, value);
    }
    prefer.push(
        rng.pick(&[
            "return=representation",
            "return=representation",
            "return=minimal",
            "return=headers-only",
            "",
        ])
        .to_owned(),
    );
    if rng.chance(30) {
        prefer.push("count=exact".to_owned());
    }
    if rng.chance(12) {
        prefer.push("tx=rollback".to_owned());
    }
    let (method, body) = match rng.below(10) {
        0..=5 => {
            // Inserts and upserts.
            let upsert = rng.chance(45);
            let keys = upsert || rng.chance(20);
            // Without `columns=`, PostgREST wants every object of an array
            // to have the same keys (PGRST102 otherwise): most arrays do.
            let mask = rng.chance(70).then(|| rng.below(32));
            let rows: Vec<String> =
                (0..1 + rng.below(3)).map(|i| row(rng, table, n * 4 + i, keys, mask)).collect();
            if rng.chance(60) {
                prefer.push("missing=default".to_owned());
            }
            if rng.chance(20) {
                q.add(
                    "columns",
                    match table {
                        "authors" => "id,name,country",
                        "books" => "id,title,pages,author_id",
                        "stock" => "shop,sku,qty",
                        "prices" => "region,sku,amount",
                        _ => "kind,payload",
                    },
                );
            }
            if upsert {
                prefer.push(
                    rng.pick(&["resolution=merge-duplicates", "resolution=ignore-duplicates"]).to_owned(),
                );
                let conflict = match table {
                    "stock" => rng.pick(&["shop,sku", "shop,sku", "sku,shop", ""]),
                    "prices" => rng.pick(&["region,sku", "region,sku", "id", "sku"]),
                    _ => rng.pick(&["id", "id", ""]),
                };
                if !conflict.is_empty() {
                    q.add("on_conflict", conflict);
                }
            }
            let body = if rows.len() == 1 && rng.chance(50) {
                rows[0].clone()
            } else {
                format!("[{}]", rows.join(","))
            };
            (Method::POST, Some(body))
        }
        6 | 7 => {
            let (filter, value, patch) = match table {
                "authors" => ("country", rng.pick(&["eq.ES", "eq.PT", "eq.none"]), "{\"born\":1999}"),
                "books" => {
                    ("author_id", rng.pick(&["eq.1", "eq.2", "in.(3,4)", "is.null"]), "{\"pages\":123}")
                }
                "stock" => ("shop", rng.pick(&["eq.madrid", "eq.oslo"]), "{\"qty\":2}"),
                "prices" => ("sku", rng.pick(&["eq.SKU-1", "eq.SKU-3", "like.SKU-*"]), "{\"amount\":4.5}"),
                _ => ("kind", rng.pick(&["eq.note", "eq.tick", "neq.start"]), "{\"payload\":{\"p\":1}}"),
            };
            q.add(filter, value);
            if rng.chance(30) {
                prefer.push(
                    rng.pick(&[
                        "handling=strict, max-affected=1",
                        "handling=strict, max-affected=5",
                        "max-affected=0",
                    ])
                    .to_owned(),
                );
            }
            (Method::PATCH, Some(patch.to_owned()))
        }
        8 => {
            let (filter, value) = match table {
                "authors" => ("id", rng.pick(&["gte.100", "eq.3", "eq.5"])),
                "books" => ("id", rng.pick(&["gte.1000", "eq.40", "in.(38,39)"])),
                "stock" => ("sku", rng.pick(&["eq.SKU-7", "eq.SKU-6"])),
                "prices" => ("region", rng.pick(&["eq.asia", "eq.us"])),
                _ => ("kind", rng.pick(&["eq.tick", "eq.stop"])),
            };
            q.add(filter, value);
            if rng.chance(30) {
                prefer.push(
                    rng.pick(&["handling=strict, max-affected=1", "handling=strict, max-affected=10"])
                        .to_owned(),
                );
            }
            (Method::DELETE, None)
        }
        _ => {
            // PUT: one row named by its whole key.
            let (filters, body): (&[(&str, &str)], String) = match table {
                "stock" => (
                    &[("shop", "eq.madrid"), ("sku", "eq.SKU-9")],
                    "{\"shop\":\"madrid\",\"sku\":\"SKU-9\",\"qty\":4,\"note\":\"put\"}".to_owned(),
                ),
                "authors" => (
                    &[("id", "eq.300")],
                    "{\"id\":300,\"name\":\"Puesto\",\"country\":\"ES\",\"born\":null,\"slug\":\"p\"}"
                        .to_owned(),
                ),
                "books" => (
                    &[("id", "eq.40")],
                    format!(
                        "{{\"id\":40,\"author_id\":2,\"title\":\"Cuarenta {n}\",\"pages\":400,\"price\":1,\"code\":\"c\",\"tags\":[],\"meta\":{{}}}}"
                    ),
                ),
                "prices" => (
                    &[("id", "eq.1")],
                    "{\"id\":1,\"region\":\"eu\",\"sku\":\"SKU-1\",\"amount\":2,\"active\":true}".to_owned(),
                ),
                _ => (
                    &[("id", "eq.2")],
                    "{\"id\":2,\"kind\":\"put\",\"payload\":null,\"day\":\"2024-05-05\"}".to_owned(),
                ),
            };
            for (column, value) in filters {
                q.add(column, value);
            }
            (Method::PUT, Some(body))
        }
    };
    prefer.retain(|p| !p.is_empty());
    // PostgREST 12.0.2 refuses `max-affected` under `handling=strict` (it
    // came in 12.2.0): such a write is rolled back, or both databases would
    // part.
    if prefer.iter().any(|p| p.starts_with("handling=strict")) && !prefer.iter().any(|p| p == "tx=rollback") {
        prefer.push("tx=rollback".to_owned());
    }
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if !prefer.is_empty() {
        headers.push(("prefer", prefer.join(", ")));
    }
    if rng.chance(8) {
        headers.push(("accept", "application/vnd.pgrst.object+json".to_owned()));
    }
    let query = q.encode();
    let path = if query.is_empty() { format!("/{table}") } else { format!("/{table}?{query}") };
    let who = rng.pick(&[Who::Anon, Who::User, Who::Service]);
    Request { method, path, headers, body, who, ordered: false }
}

/// The calls every run makes: a volatile function by GET (refused in a
/// read-only transaction), variadic arguments by repeated query parameters
/// and by a JSON array, polymorphic arguments, profiles, ambiguous overloads.
pub fn fixed() -> Vec<Request> {
    let get = |path: &str, headers: &[(&'static str, &str)]| Request {
        method: Method::GET,
        path: path.to_owned(),
        headers: headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect(),
        body: None,
        who: Who::Anon,
        ordered: true,
    };
    let post = |path: &str, body: &str, headers: &[(&'static str, &str)]| {
        let mut headers: Vec<(&'static str, String)> =
            headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect();
        headers.push(("content-type", "application/json".to_owned()));
        Request {
            method: Method::POST,
            path: path.to_owned(),
            headers,
            body: Some(body.to_owned()),
            who: Who::Anon,
            ordered: true,
        }
    };
    vec![
        // CSV of calls that return no rows: a set of scalars, of rows, of a
        // table, filtered to nothing, a composite filtered out, and cut by
        // a range past the rows.
        get("/rpc/numbers?n=0", &[("accept", "text/csv")]),
        get("/rpc/books_of?author_id=999", &[("accept", "text/csv")]),
        get("/rpc/books_of?author_id=1&id=lt.0", &[("accept", "text/csv")]),
        get("/rpc/books_by?author=999", &[("accept", "text/csv")]),
        get("/rpc/list_books?min_pages=100000", &[("accept", "text/csv")]),
        get("/rpc/author_of?book=1&id=lt.0", &[("accept", "text/csv")]),
        get("/rpc/numbers?n=3&offset=5", &[("accept", "text/csv")]),
        get("/rpc/books_of?author_id=1&offset=50", &[("accept", "text/csv")]),
        get("/rpc/add_author?name=Nadie", &[]),
        get("/rpc/bump_pages?book=1", &[]),
        get("/rpc/restock?shop=madrid&qty=1", &[]),
        get("/rpc/add_author?name=Nadie&select=id", &[("prefer", "count=exact")]),
        get("/rpc/vsum?nums=1&nums=2&nums=3", &[]),
        get("/rpc/vsum?nums=7", &[]),
        get("/rpc/vsum?nums={1,2}", &[]),
        get("/rpc/vsum", &[]),
        get("/rpc/vjoin?sep=-&parts=a&parts=b&parts=c", &[]),
        get("/rpc/vjoin?sep=-&parts={a,b}", &[]),
        post("/rpc/vsum", "{\"nums\":[1,2,3]}", &[]),
        post("/rpc/vsum", "{\"nums\":5}", &[]),
        post("/rpc/vsum", "{}", &[]),
        post("/rpc/vjoin", "{\"sep\":\"+\",\"parts\":[\"x\",\"y\"]}", &[]),
        get("/rpc/echo?v=1", &[]),
        get("/rpc/echo?v=hola", &[]),
        post("/rpc/echo", "{\"v\":1}", &[]),
        post("/rpc/echo", "{\"v\":\"hola\"}", &[]),
        post("/rpc/echo", "{\"v\":[1,2]}", &[]),
        post("/rpc/echo", "{}", &[]),
        get("/rpc/first_of?items={3,4}", &[]),
        post("/rpc/first_of", "{\"items\":[3,4]}", &[]),
        get("/rpc/add?a=2&b=3", &[("accept-profile", "api")]),
        get("/rpc/add?a=2&b=3", &[("accept-profile", "public")]),
        post("/rpc/add", "{\"a\":2,\"b\":3}", &[("content-profile", "api")]),
        post("/rpc/add", "{\"a\":2,\"b\":3}", &[("content-profile", "nope")]),
        get("/rpc/version", &[]),
        get("/rpc/version", &[("accept-profile", "api")]),
        post("/rpc/version", "{}", &[("content-profile", "api")]),
        get("/rpc/authors_in?country=ES&select=id,name&order=id", &[("accept-profile", "api")]),
        get("/rpc/authors_in?country=ES&select=id,books(id)&order=id", &[("accept-profile", "api")]),
        get("/rpc/concat_two?a=x", &[]),
        get("/rpc/concat_two?a=x&b=y", &[]),
        get("/rpc/label?x=1", &[]),
        get("/rpc/label?x=1&suffix=s", &[]),
        get("/rpc/add?a=1", &[]),
        get("/rpc/greet?name=Ana&punct=?", &[]),
        get("/rpc/greet", &[]),
        get("/rpc/shelf_stats", &[("accept", "application/vnd.pgrst.object+json")]),
        get("/rpc/numbers?n=4&limit=2&offset=1", &[("prefer", "count=exact")]),
        get("/rpc/list_books?select=author,pages.sum()&order=author", &[]),
    ]
}
