//! The generator: requests for `/rest/v1`, `/auth/v1` and `/storage/v1` built
//! from each API's grammar over the names of the shop fixture, then, for a
//! good share of them, mutated (characters and tokens inserted, cut, repeated
//! or swapped) so that invalid input reaches every stage of the path too. One
//! seed and one case number give one request, so a run can be repeated.

use super::{FuzzRequest, sendable};

/// SplitMix64: small, fast, and good enough to pick grammar branches; with
/// how much of the grammar's deliberately wrong branches a request takes.
pub struct Rng {
    state: u64,
    /// Percent of the usual odds of a wrong branch: 0 builds requests the
    /// grammar accepts (the database may still refuse their values), so
    /// that many requests reach past the parser.
    junk: usize,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self { state: seed, junk: 100 }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// True with probability `percent`/100 scaled by the junk level: for
    /// the branches that build what the grammar refuses.
    pub fn junk(&mut self, percent: usize) -> bool {
        self.below(10_000) < percent * self.junk
    }
}

/// The request of case `case` of the run seeded with `seed`.
pub fn request(seed: u64, case: u64) -> FuzzRequest {
    let mut rng = Rng::new(seed ^ case.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    rng.junk = rng.pick(&[0, 0, 0, 50, 100, 150]);
    let mut request = match rng.below(100) {
        0..=64 => rest(&mut rng),
        65..=79 => auth(&mut rng),
        _ => storage(&mut rng),
    };
    if rng.junk(30) {
        mutate(&mut rng, &mut request);
    }
    request
}

// ---------------------------------------------------------------------------
// Names of the shop fixture (tests/fixtures/shop.sql and sql/100_shop.sql).

const TABLES: &[(&str, &[&str])] = &[
    (
        "products",
        &[
            "id",
            "name",
            "description",
            "price",
            "quantity",
            "category",
            "featured",
            "status",
            "tags",
            "specs",
            "brand_id",
            "created_at",
        ],
    ),
    ("brands", &["id", "name", "description", "status"]),
    ("transfers", &["id", "from_brand", "to_brand"]),
    ("notes", &["id", "body"]),
    ("films", &["id", "title", "year"]),
    ("actors", &["id", "first_name", "last_name"]),
    ("films_actors", &["film_id", "actor_id", "role"]),
    ("awards", &["id", "film_id", "actor_id"]),
    ("teams", &["id", "name"]),
    ("members", &["id", "name"]),
    ("team_members", &["team_id", "member_id"]),
    ("team_leads", &["team_id", "member_id"]),
    ("shelves", &["id", "label"]),
    ("editions", &["isbn", "lang", "title"]),
    ("shelf_editions", &["shelf_id", "isbn", "lang"]),
    ("people", &["id", "name"]),
    ("friendships", &["person_id", "friend_id"]),
    (
        "companies",
        &[
            "id",
            "name",
            "email",
            "phone",
            "display_category_stock",
            "display_product_stock",
            "display_users",
            "updated_at",
            "updated_by",
        ],
    ),
    ("profiles", &["user_id", "full_name", "company_id"]),
    ("product_categories", &["category"]),
];

/// Names that are not tables, or are but not of `public`.
const ODD_TABLES: &[&str] = &[
    "nothing",
    "Products",
    "users",
    "buckets",
    "objects",
    "pg_class",
    "products%20",
    "%22products%22",
    "products;drop",
    "a.b",
    "_gateway",
    "rpc",
    "%00",
    "%C3%A9",
    "",
];

/// Computed fields and relationships of the films fixture.
const COMPUTED: &[&str] = &["full_name", "age", "filmography", "latest_film", "lead_actor", "cast_of"];

/// Functions: `(name, arguments)`.
const FUNCTIONS: &[(&str, &[&str])] = &[
    ("add", &["a", "b"]),
    ("products_in", &["category"]),
    ("touch", &["note_id"]),
    ("whoami", &[]),
    ("tagged", &["tags"]),
    ("cast_of", &["film_id"]),
    ("full_name", &["actors"]),
    ("missing", &["x"]),
    ("auth.uid", &[]),
    ("pg_sleep", &["seconds"]),
];

const FOREIGN_KEYS: &[&str] = &[
    "products_brand_id_fkey",
    "transfers_from_brand_fkey",
    "transfers_to_brand_fkey",
    "films_actors_film_id_fkey",
    "brand_id",
    "from_brand",
    "inner",
    "left",
    "nope",
];

/// Values of every kind: numbers at the edges, dates, booleans, text with the
/// grammar's own punctuation, escapes, other scripts and bytes that are not
/// UTF-8 (percent-encoded where they go into a target).
const VALUES: &[&str] = &[
    "1",
    "0",
    "-1",
    "2",
    "7",
    "100",
    "999.00",
    "59.90",
    "1e308",
    "-1e999",
    "NaN",
    "Infinity",
    "-0",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999999",
    "0x10",
    "1_000",
    "1.5",
    ".5",
    "true",
    "false",
    "null",
    "NULL",
    "unknown",
    "t",
    "yes",
    "2024-01-01",
    "2024-13-45",
    "2024-01-01T00:00:00Z",
    "epoch",
    "infinity",
    "allballs",
    "Apple",
    "iPhone 15",
    "Celulares",
    "a b",
    "a,b",
    "(a)",
    "\"q\"",
    "a\"b",
    "a\\b",
    "'",
    "''",
    "%",
    "_",
    "*",
    "a*",
    "*e*",
    ".",
    "..",
    "{}",
    "{a,b}",
    "{1,2}",
    "[1,2]",
    "[1,5)",
    "(,)",
    "{\"ram\":6}",
    "[]",
    "日本語",
    "Ünïcödé",
    "😀",
    "",
    " ",
    "\t",
    "%00",
    "%FF",
    "%C3%28",
    "%25",
    "%2C",
    "%22",
    "%5C",
    "00000000-0000-0000-0000-000000000000",
    "not-a-uuid",
    "$USER_ID",
    "1 day",
    "P1D",
    "0.1.2",
    "999999999999999999999999999999999999999999999999999999999999.5",
];

fn value(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "x".repeat(rng.pick(&[64, 1000, 5000])),
        1 => rng.below(20).to_string(),
        2 => format!("{}.{}", rng.pick(VALUES), rng.pick(VALUES)),
        _ => rng.pick(VALUES).to_owned(),
    }
}

fn table(rng: &mut Rng) -> (&'static str, &'static [&'static str]) {
    rng.pick(TABLES)
}

fn column(rng: &mut Rng, columns: &[&'static str]) -> String {
    if rng.junk(7) {
        rng.pick(&["nope", "Id", "\"id\"", "id,", "i d", "*", "", "a->b", "id::", "%22id"]).to_owned()
    } else if rng.junk(7) {
        rng.pick(COMPUTED).to_owned()
    } else {
        rng.pick(columns).to_owned()
    }
}

/// `->` and `->>` paths, as on `specs`.
fn json_path(rng: &mut Rng) -> String {
    let mut path = String::new();
    for _ in 0..=rng.below(3) {
        path.push_str(if rng.junk(10) { rng.pick(&["-", ">", "->>>"]) } else { rng.pick(&["->", "->>"]) });
        path.push_str(rng.pick(&["ram", "colors", "0", "1", "-1", "'x'", "\"a b\"", "", "99999999999"]));
    }
    path
}

fn cast(rng: &mut Rng) -> &'static str {
    if !rng.junk(40) {
        return rng.pick(&["::text", "::int", "::bigint", "::numeric", "::json", "::jsonb", "::text[]"]);
    }
    rng.pick(&[
        "::text",
        "::int",
        "::bigint",
        "::numeric",
        "::json",
        "::jsonb",
        "::bool",
        "::date",
        "::text[]",
        "::nope",
        "::",
        "::int4 ",
        "::\"text\"",
        "::character varying",
        "::double precision",
        "::regclass",
    ])
}

// ---------------------------------------------------------------------------
// /rest/v1

/// One item of a select list, with embeds up to `depth` levels down.
fn select_item(rng: &mut Rng, columns: &[&'static str], depth: usize) -> String {
    let mut item = String::new();
    if rng.chance(15) {
        item.push_str(if rng.junk(40) { rng.pick(&["a b:", "\"q\":", ":", "x:y:"]) } else { "alias:" });
    }
    match rng.below(if depth == 0 { 7 } else { 10 }) {
        0 => item.push('*'),
        1 => item.push_str(rng.pick(&["count()", "count()::text", "count( )", "sum()", "avg(price)"])),
        2 => {
            item.push_str(&column(rng, columns));
            item.push_str(&json_path(rng));
        }
        3 => {
            item.push_str(&column(rng, columns));
            item.push_str(rng.pick(&[".sum()", ".avg()", ".max()", ".min()", ".count()"]));
            if rng.junk(10) {
                item.push_str(rng.pick(&[".nope()", "()", "("]));
            }
            if rng.chance(40) {
                item.push_str(cast(rng));
            }
        }
        4 => {
            item.push_str(&column(rng, columns));
            item.push_str(cast(rng));
        }
        7..=9 => {
            let (relation, inner) = table(rng);
            if rng.chance(20) {
                item.push_str("...");
            }
            item.push_str(if rng.junk(10) { rng.pick(COMPUTED) } else { relation });
            if rng.junk(25) {
                item.push('!');
                item.push_str(rng.pick(FOREIGN_KEYS));
            }
            if rng.chance(15) {
                item.push_str(if rng.junk(20) { "!" } else { rng.pick(&["!inner", "!left"]) });
            }
            item.push('(');
            item.push_str(&select_list(rng, inner, depth - 1));
            if !rng.junk(5) {
                item.push(')');
            }
        }
        _ => item.push_str(&column(rng, columns)),
    }
    item
}

fn select_list(rng: &mut Rng, columns: &[&'static str], depth: usize) -> String {
    let n = rng.pick(&[0, 1, 1, 2, 2, 3, 4]);
    let items: Vec<String> = (0..n).map(|_| select_item(rng, columns, depth)).collect();
    items.join(",")
}

const OPERATORS: &[&str] = &[
    "eq",
    "neq",
    "gt",
    "gte",
    "lt",
    "lte",
    "like",
    "ilike",
    "match",
    "imatch",
    "in",
    "is",
    "isdistinct",
    "fts",
    "plfts",
    "phfts",
    "wfts",
    "cs",
    "cd",
    "ov",
    "sl",
    "sr",
    "nxr",
    "nxl",
    "adj",
    "eq",
    "eq",
    "in",
    "is",
    "lt",
];

/// The operation of a filter: `[not.]op[(modifier)].value`.
fn operation(rng: &mut Rng) -> String {
    let mut op = String::new();
    if rng.chance(15) {
        op.push_str("not.");
    }
    let name = if rng.junk(5) { rng.pick(&["not", "all", "any", "nope", ""]) } else { rng.pick(OPERATORS) };
    op.push_str(name);
    if rng.chance(12) {
        op.push_str(match name {
            "fts" | "plfts" | "phfts" | "wfts" if !rng.junk(30) => rng.pick(&["(english)", "(simple)"]),
            "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "like" | "ilike" | "match" | "imatch"
                if !rng.junk(30) =>
            {
                rng.pick(&["(any)", "(all)"])
            }
            _ => rng.pick(&["(any)", "(all)", "(english)", "(nope)", "()", "(any"]),
        });
    }
    if !rng.junk(3) {
        op.push('.');
    }
    match name {
        "in" => {
            let n = rng.below(5);
            let items: Vec<String> = (0..n).map(|_| value(rng)).collect();
            let open = if rng.junk(10) { "" } else { "(" };
            let close = if rng.junk(10) { "" } else { ")" };
            op.push_str(&format!("{open}{}{close}", items.join(",")));
        }
        "is" if rng.junk(20) => op.push_str(rng.pick(&["NULL", "nope", "", "1"])),
        "is" => op.push_str(rng.pick(&["null", "not_null", "true", "false", "unknown"])),
        "cs" | "cd" | "ov" => {
            op.push_str(rng.pick(&["{phone}", "{phone,ios}", "{}", "[1,2]", "{\"ram\":6}", "{", "x"]));
        }
        _ if op.contains("(any)") || op.contains("(all)") => {
            op.push_str(&format!("{{{},{}}}", value(rng), value(rng)));
        }
        _ => op.push_str(&value(rng)),
    }
    op
}

/// What kind of values a column of the fixture holds, by its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Number,
    Bool,
    Text,
    Tags,
    Json,
    Time,
    Uuid,
}

fn kind(column: &str) -> Kind {
    match column {
        "price" => Kind::Number,
        "status" | "featured" => Kind::Bool,
        _ if column.starts_with("display_") => Kind::Bool,
        "tags" => Kind::Tags,
        "specs" => Kind::Json,
        "created_at" | "updated_at" => Kind::Time,
        "updated_by" | "user_id" => Kind::Uuid,
        "id" | "quantity" | "year" | "a" | "b" | "note_id" => Kind::Int,
        _ if column.ends_with("_id") || column.ends_with("_brand") => Kind::Int,
        _ => Kind::Text,
    }
}

/// A value of the column's kind, as a filter writes it.
fn typed_value(rng: &mut Rng, kind: Kind) -> String {
    match kind {
        Kind::Int => rng.below(10).to_string(),
        Kind::Number => rng.pick(&["49", "59.90", "199.00", "799", "999.5"]).to_owned(),
        Kind::Bool => rng.pick(&["true", "false"]).to_owned(),
        Kind::Text => rng
            .pick(&["Apple", "iPhone 15", "Celulares", "Heat", "Ana", "a b", "Nokia 3310", "en", "111"])
            .to_owned(),
        Kind::Tags => rng.pick(&["{phone}", "{phone,ios}", "{watch}", "{}"]).to_owned(),
        Kind::Json => rng.pick(&["{\"ram\":6}", "{\"colors\":[\"black\"]}", "{}"]).to_owned(),
        Kind::Time => rng.pick(&["2024-01-01", "2024-01-01T00:00:00+00:00", "2023-06-30 12:00"]).to_owned(),
        Kind::Uuid => rng.pick(&["$USER_ID", "00000000-0000-0000-0000-000000000000"]).to_owned(),
    }
}

/// The same as a JSON value, for a body.
fn typed_json(rng: &mut Rng, column: &str) -> String {
    let kind = kind(column);
    if rng.chance(5) {
        return "null".to_owned();
    }
    match kind {
        Kind::Int | Kind::Number | Kind::Bool | Kind::Json => typed_value(rng, kind),
        Kind::Tags => rng.pick(&["[\"phone\"]", "[\"a\",\"b\"]", "[]"]).to_owned(),
        _ => serde_json::to_string(&typed_value(rng, kind)).expect("string"),
    }
}

/// An operation for `column`: at junk level 0 one its kind of value takes
/// (so that the database runs it rather than refusing its types), else any.
fn operation_on(rng: &mut Rng, column: &str, json_path: bool) -> String {
    if rng.junk(100) || json_path {
        return operation(rng);
    }
    let kind = kind(column);
    let not = if rng.chance(10) { "not." } else { "" };
    let op = match kind {
        Kind::Int | Kind::Number | Kind::Time => {
            let op = rng.pick(&["eq", "neq", "gt", "gte", "lt", "lte", "in", "is", "isdistinct"]);
            match op {
                "in" => format!("in.({},{})", typed_value(rng, kind), typed_value(rng, kind)),
                "is" => format!("is.{}", rng.pick(&["null", "not_null"])),
                _ if rng.chance(10) => {
                    format!("{op}(any).{{{},{}}}", typed_value(rng, kind), typed_value(rng, kind))
                }
                _ => format!("{op}.{}", typed_value(rng, kind)),
            }
        }
        Kind::Bool => rng.pick(&["is.true", "is.false", "is.null", "eq.true", "neq.false"]).to_owned(),
        Kind::Text | Kind::Uuid => {
            let op = rng.pick(&[
                "eq", "neq", "like", "ilike", "in", "fts", "plfts", "phfts", "wfts", "match", "imatch", "is",
                "gt",
            ]);
            let value = typed_value(rng, kind);
            match op {
                "like" | "ilike" => format!("{op}.*{}*", value.get(..2).unwrap_or("a")),
                "match" | "imatch" => format!("{op}.^{}", value.get(..1).unwrap_or("a")),
                "in" => format!("in.(\"{value}\",{})", typed_value(rng, kind)),
                "is" => "is.null".to_owned(),
                "fts" | "plfts" | "phfts" | "wfts" if rng.chance(30) => format!("{op}(english).{value}"),
                _ => format!("{op}.{value}"),
            }
        }
        Kind::Tags => format!("{}.{}", rng.pick(&["cs", "cd", "ov", "eq"]), typed_value(rng, kind)),
        Kind::Json => format!(
            "{}.{}",
            rng.pick(&["cs", "cd", "is"]),
            match rng.below(3) {
                0 => "null".to_owned(),
                _ => typed_value(rng, kind),
            }
        ),
    };
    format!("{not}{op}")
}

/// A logic tree's body: `(col.op.value,and(...),...)`.
fn logic_tree(rng: &mut Rng, columns: &[&'static str], depth: usize) -> String {
    let n = rng.below(4);
    let items: Vec<String> = (0..n)
        .map(|_| {
            if depth > 0 && rng.chance(25) {
                let not = if rng.chance(20) { "not." } else { "" };
                let name = if rng.junk(10) { "nand" } else { rng.pick(&["and", "or"]) };
                format!("{not}{name}{}", logic_tree(rng, columns, depth - 1))
            } else {
                let name = column(rng, columns);
                let path = if rng.chance(10) { json_path(rng) } else { String::new() };
                let operation = operation_on(rng, &name, !path.is_empty());
                format!("{name}{path}.{operation}")
            }
        })
        .collect();
    format!("({})", items.join(","))
}

fn order(rng: &mut Rng, columns: &[&'static str]) -> String {
    let n = 1 + rng.below(3);
    let terms: Vec<String> = (0..n)
        .map(|_| {
            let mut term = column(rng, columns);
            if rng.chance(10) {
                term.push_str(&json_path(rng));
            }
            if rng.junk(10) {
                term = format!("{}({term})", rng.pick(&["brands", "films", "nope"]));
            }
            if rng.chance(60) {
                term.push_str(if rng.junk(10) {
                    rng.pick(&[".nope", "."])
                } else {
                    rng.pick(&[".asc", ".desc"])
                });
            }
            if rng.chance(30) {
                term.push_str(if rng.junk(10) { ".nulls" } else { rng.pick(&[".nullsfirst", ".nullslast"]) });
            }
            term
        })
        .collect();
    terms.join(",")
}

/// Query pairs for a read of `columns`.
fn read_query(rng: &mut Rng, columns: &[&'static str], pairs: &mut Vec<(String, String)>) {
    if rng.chance(70) {
        pairs.push(("select".into(), select_list(rng, columns, 2)));
    }
    for _ in 0..rng.pick(&[0, 0, 1, 1, 2, 3]) {
        let name = column(rng, columns);
        let path = if rng.chance(8) { json_path(rng) } else { String::new() };
        let operation = operation_on(rng, &name, !path.is_empty());
        let key =
            if rng.junk(10) { format!("{}.{name}{path}", table(rng).0) } else { format!("{name}{path}") };
        pairs.push((key, operation));
    }
    if rng.chance(15) {
        let key = if rng.junk(20) {
            rng.pick(&["brands.or", "nope.and", "or.", "not"])
        } else {
            rng.pick(&["or", "and", "not.or", "not.and"])
        };
        pairs.push((key.into(), logic_tree(rng, columns, 3)));
    }
    if rng.chance(30) {
        let key = if rng.junk(20) { format!("{}.order", table(rng).0) } else { "order".into() };
        pairs.push((key, order(rng, columns)));
    }
    for key in ["limit", "offset"] {
        if rng.chance(20) {
            let key = if rng.junk(15) { format!("{}.{key}", table(rng).0) } else { key.into() };
            let number = if rng.junk(30) {
                rng.pick(&["-1", "1e3", "abc", "", "99999999999999999999", "0x1"])
            } else {
                rng.pick(&["0", "1", "2", "10", "1000"])
            };
            pairs.push((key, number.into()));
        }
    }
}

fn prefer(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    let tokens: Vec<&str> = (0..n)
        .map(|_| {
            rng.pick(&[
                "return=representation",
                "return=minimal",
                "return=headers-only",
                "count=exact",
                "count=planned",
                "count=estimated",
                "tx=rollback",
                "tx=commit",
                "resolution=merge-duplicates",
                "resolution=ignore-duplicates",
                "missing=default",
                "missing=null",
                "handling=strict",
                "handling=lenient",
                "max-affected=1",
                "max-affected=0",
                "max-affected=-5",
                "max-affected=x",
                "timezone=America/Sao_Paulo",
                "timezone=Nowhere/Land",
                "timezone=",
                "params=single-object",
                "return=",
                "nope",
                "",
            ])
        })
        .collect();
    tokens.join(if rng.chance(80) { ", " } else { "," })
}

fn accept(rng: &mut Rng) -> String {
    rng.pick(&[
        "application/json",
        "application/vnd.pgrst.object+json",
        "application/vnd.pgrst.object",
        "application/vnd.pgrst.array+json;nulls=stripped",
        "application/vnd.pgrst.object+json;nulls=stripped",
        "text/csv",
        "application/openapi+json",
        "application/vnd.pgrst.plan",
        "application/vnd.pgrst.plan+json; for=\"application/json\"",
        "application/vnd.pgrst.plan+text; options=analyze|verbose|buffers",
        "application/vnd.pgrst.plan; for=\"text/csv\"; options=nope",
        "application/geo+json",
        "text/plain",
        "application/octet-stream",
        "*/*",
        "application/*",
        "text/csv, application/json;q=0.5",
        "nope",
        ";;;",
        "",
    ])
    .to_owned()
}

fn range_header(rng: &mut Rng) -> String {
    rng.pick(&["0-0", "0-9", "1-", "5-2", "-1", "0-99999999999999999999", "items=0-1", "", "a-b", "0-1,2-3"])
        .to_owned()
}

/// A bearer and key for REST and storage: mostly real ones, sometimes not.
fn credentials(rng: &mut Rng, headers: &mut Vec<(String, Vec<u8>)>) {
    let key = if rng.junk(3) {
        rng.pick(&[None, Some("not-a-key")])
    } else {
        Some(rng.pick(&["$ANON", "$ANON", "$ANON", "$SERVICE"]))
    };
    if let Some(key) = key {
        headers.push(("apikey".into(), key.as_bytes().to_vec()));
    }
    let bearer = match rng.below(20) {
        0..=5 => Some("Bearer $ANON"),
        6..=10 => Some("Bearer $USER"),
        11..=15 => Some("Bearer $SERVICE"),
        16 if rng.junk(100) => Some("Bearer eyJhbGciOiJub25lIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0."),
        17 if rng.junk(100) => Some(rng.pick(&[
            "Bearer",
            "Basic YTpi",
            "Bearer  $USER",
            "bearer $USER",
            "Bearer $USERx",
            "Bearer a.b.c",
        ])),
        _ => None,
    };
    if let Some(bearer) = bearer {
        headers.push(("authorization".into(), bearer.as_bytes().to_vec()));
    }
}

/// A JSON value of a random shape, `depth` levels deep at most.
fn json_value(rng: &mut Rng, columns: &[&'static str], depth: usize) -> String {
    match rng.below(if depth == 0 { 6 } else { 9 }) {
        0 => rng
            .pick(&["null", "true", "false", "0", "-1", "1.5", "1e400", "-0", "12345678901234567890123"])
            .into(),
        1 | 2 => serde_json::to_string(&value(rng)).expect("string"),
        3 => rng.below(10).to_string(),
        4 => rng.pick(&["\"\\u0000\"", "\"\\ud800\"", "\"a\\nb\"", "\"\\\"\"", "\"%00\""]).into(),
        5 => "[]".into(),
        6 | 7 => json_object(rng, columns, depth - 1),
        _ => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| json_value(rng, columns, depth - 1)).collect();
            format!("[{}]", items.join(","))
        }
    }
}

fn json_object(rng: &mut Rng, columns: &[&'static str], depth: usize) -> String {
    let n = rng.pick(&[0, 1, 2, 2, 3, 4]);
    let members: Vec<String> = (0..n)
        .map(|_| {
            let key = if rng.chance(85) { rng.pick(columns).to_owned() } else { value(rng) };
            let value = if rng.junk(100) { json_value(rng, columns, depth) } else { typed_json(rng, &key) };
            format!("{}:{value}", serde_json::to_string(&key).expect("key"))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

/// A body for a write or a call: rows, arrays of rows, scalars, broken JSON,
/// deep nesting, CSV, form data.
fn write_body(rng: &mut Rng, columns: &[&'static str], headers: &mut Vec<(String, Vec<u8>)>) -> Vec<u8> {
    let mut content_type = "application/json";
    let body = match rng.below(20) {
        0..=7 => json_object(rng, columns, 2),
        8..=11 => {
            let n = rng.below(4);
            let rows: Vec<String> = (0..n).map(|_| json_object(rng, columns, 1)).collect();
            format!("[{}]", rows.join(","))
        }
        12 => json_value(rng, columns, 3),
        13 => {
            let depth = rng.pick(&[50, 500, 5000]);
            format!("{}{}", "[".repeat(depth), "]".repeat(depth))
        }
        14 => rng.pick(&["", "{", "[{]", "{\"a\":}", "nul", "{\"a\":1}}", "\u{feff}{}", "{'a':1}"]).into(),
        15 | 16 => {
            content_type = "text/csv";
            let n = 1 + rng.below(3);
            let header: Vec<&str> = (0..n).map(|_| rng.pick(columns)).collect();
            let mut csv = header.join(",");
            for _ in 0..rng.below(4) {
                csv.push('\n');
                let cells: Vec<String> = (0..n).map(|_| value(rng)).collect();
                csv.push_str(&cells.join(","));
            }
            csv
        }
        17 => {
            content_type = "application/x-www-form-urlencoded";
            format!("{}={}&{}={}", rng.pick(columns), value(rng), rng.pick(columns), value(rng))
        }
        18 => {
            content_type =
                rng.pick(&["text/plain", "application/octet-stream", "text/xml", "application/xml"]);
            value(rng)
        }
        _ => {
            content_type = rng.pick(&[
                "application/json; charset=utf-8",
                "nope",
                "application/json;",
                "",
                "multipart/form-data",
            ]);
            json_object(rng, columns, 1)
        }
    };
    if rng.chance(95) {
        headers.push(("content-type".into(), content_type.as_bytes().to_vec()));
    }
    body.into_bytes()
}

fn encode_query(pairs: &[(String, String)], rng: &mut Rng) -> String {
    if rng.chance(85) {
        // As supabase-js's URLSearchParams sends them.
        let mut serializer = form_urlencoded::Serializer::new(String::new());
        for (k, v) in pairs {
            serializer.append_pair(k, v);
        }
        serializer.finish()
    } else {
        // Raw, as a hand-written URL would carry them (made sendable by `sendable`).
        let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join("&")
    }
}

fn rest(rng: &mut Rng) -> FuzzRequest {
    let mut headers = Vec::new();
    credentials(rng, &mut headers);
    let mut pairs = Vec::new();
    let (path, method, columns): (String, &str, &[&'static str]) = match rng.below(20) {
        // Reads.
        0..=9 => {
            let (name, columns) = table(rng);
            let name = if rng.junk(5) { rng.pick(ODD_TABLES) } else { name };
            read_query(rng, columns, &mut pairs);
            (format!("/rest/v1/{name}"), rng.pick(&["GET", "GET", "GET", "HEAD"]), columns)
        }
        // Writes.
        10..=14 => {
            let (name, columns) = table(rng);
            let method = rng.pick(&["POST", "POST", "PATCH", "PUT", "DELETE"]);
            if method != "POST" || rng.chance(20) {
                for _ in 0..rng.pick(&[0, 1, 1, 2]) {
                    let name = column(rng, columns);
                    let operation = operation_on(rng, &name, false);
                    pairs.push((name, operation));
                }
            }
            if rng.chance(25) {
                pairs.push(("select".into(), select_list(rng, columns, 1)));
            }
            if rng.chance(15) {
                pairs.push(("columns".into(), select_list(rng, columns, 0)));
            }
            if rng.chance(15) {
                pairs.push(("on_conflict".into(), column(rng, columns)));
            }
            if rng.chance(10) {
                pairs.push(("order".into(), order(rng, columns)));
                pairs.push(("limit".into(), rng.below(3).to_string()));
            }
            (format!("/rest/v1/{name}"), method, columns)
        }
        // Function calls.
        15..=18 => {
            let (name, arguments) = rng.pick(FUNCTIONS);
            let method = rng.pick(&["GET", "POST", "POST", "HEAD", "PATCH"]);
            if method != "POST" {
                for _ in 0..rng.below(arguments.len() + 2) {
                    let key = if rng.chance(85) && !arguments.is_empty() {
                        rng.pick(arguments).to_owned()
                    } else {
                        value(rng)
                    };
                    pairs.push((key, value(rng)));
                }
            }
            if rng.chance(25) {
                read_query(rng, TABLES[0].1, &mut pairs);
            }
            let columns: &[&'static str] = if arguments.is_empty() { &["x"] } else { arguments };
            (format!("/rest/v1/rpc/{name}"), method, columns)
        }
        // The description, and paths that are not routes.
        _ => {
            let path = rng.pick(&[
                "/rest/v1/",
                "/rest/v1",
                "/rest/v1/rpc",
                "/rest/v1/rpc/",
                "/rest/v1/products/1",
                "/rest/v1//products",
                "/rest/v1/products/",
            ]);
            (path.to_owned(), rng.pick(&["GET", "OPTIONS", "POST", "TRACE", "FOO"]), TABLES[0].1)
        }
    };
    if rng.chance(3) {
        pairs.push(("apikey".into(), "$ANON".into()));
    }
    if rng.chance(35) {
        headers.push(("prefer".into(), prefer(rng).into_bytes()));
    }
    if rng.chance(25) {
        headers.push(("accept".into(), accept(rng).into_bytes()));
    }
    if rng.chance(8) {
        headers.push(("range".into(), range_header(rng).into_bytes()));
        if rng.chance(50) {
            headers.push(("range-unit".into(), rng.pick(&["items", "bytes", "nope"]).as_bytes().to_vec()));
        }
    }
    if rng.chance(5) {
        let name = rng.pick(&["accept-profile", "content-profile"]);
        headers.push((
            name.into(),
            rng.pick(&["public", "storage", "auth", "nope", "pg_catalog", ""]).as_bytes().to_vec(),
        ));
    }
    let body = if matches!(method, "POST" | "PATCH" | "PUT") || rng.chance(3) {
        write_body(rng, columns, &mut headers)
    } else {
        Vec::new()
    };
    let query = encode_query(&pairs, rng);
    let target = if query.is_empty() { path } else { format!("{path}?{query}") };
    FuzzRequest { method: method.into(), target: sendable(&target), headers, body }
}

// ---------------------------------------------------------------------------
// /auth/v1

const AUTH_FIELDS: &[&str] = &[
    "email",
    "password",
    "phone",
    "refresh_token",
    "data",
    "user_metadata",
    "app_metadata",
    "email_confirm",
    "phone_confirm",
    "ban_duration",
    "role",
    "nonce",
    "gotrue_meta_security",
    "code_challenge",
    "code_challenge_method",
    "options",
    "id",
    "aud",
];

fn auth_value(rng: &mut Rng, field: &str) -> String {
    if rng.chance(25) {
        return json_value(rng, AUTH_FIELDS, 2);
    }
    let text = match field {
        "email" => rng.pick(&[
            "fuzz@example.com",
            "FUZZ@Example.com",
            "user@example.com",
            "not-an-email",
            "@",
            "a@b",
            "a@b.c",
            " fuzz@example.com ",
            "ü@example.com",
            "",
        ]),
        "password" => rng.pick(&["password123", "short", "", "a", "secret-password", "ünïcødé-pässwörd"]),
        "refresh_token" => {
            rng.pick(&["$REFRESH", "nope", "", "$REFRESHx", "00000000000000000000000000000000"])
        }
        "ban_duration" => rng.pick(&["none", "1h", "24h", "-1h", "forever", "100000000h", "1.5h", ""]),
        "role" => rng.pick(&["authenticated", "service_role", "anon", "postgres", "nope"]),
        "phone" => rng.pick(&["+15555550100", "123", "", "phone"]),
        _ => return json_value(rng, AUTH_FIELDS, 2),
    };
    serde_json::to_string(text).expect("string")
}

fn auth(rng: &mut Rng) -> FuzzRequest {
    let mut headers = Vec::new();
    if rng.chance(96) {
        headers
            .push(("apikey".into(), rng.pick(&["$ANON", "$ANON", "$SERVICE", "nope"]).as_bytes().to_vec()));
    }
    if rng.chance(70) {
        headers.push((
            "x-supabase-api-version".into(),
            rng.pick(&["2024-01-01", "2020-01-01", "nope"]).as_bytes().to_vec(),
        ));
    }
    let (method, path, admin_path) = match rng.below(22) {
        0..=4 => {
            let grant = rng.pick(&[
                "password",
                "password",
                "refresh_token",
                "refresh_token",
                "pkce",
                "id_token",
                "",
                "nope",
            ]);
            ("POST", format!("/auth/v1/token?grant_type={grant}"), false)
        }
        5 | 6 => ("POST", "/auth/v1/signup".to_owned(), false),
        7 | 8 => (rng.pick(&["GET", "PUT", "PATCH"]), "/auth/v1/user".to_owned(), false),
        9 => {
            let scope = rng.pick(&["", "?scope=global", "?scope=local", "?scope=others", "?scope=nope"]);
            ("POST", format!("/auth/v1/logout{scope}"), false)
        }
        10 => (
            "GET",
            rng.pick(&["/auth/v1/settings", "/auth/v1/health", "/auth/v1/.well-known/jwks.json"]).to_owned(),
            false,
        ),
        11..=13 => {
            let query = rng.pick(&[
                "",
                "?page=1",
                "?page=2&per_page=1",
                "?per_page=0",
                "?page=-1",
                "?per_page=x",
                "?page=99999999999",
            ]);
            (rng.pick(&["GET", "POST"]), format!("/auth/v1/admin/users{query}"), true)
        }
        14..=16 => {
            let id = rng.pick(&[
                "$USER_ID",
                "$USER_ID",
                "00000000-0000-0000-0000-000000000000",
                "nope",
                "%00",
                "",
            ]);
            (rng.pick(&["GET", "PUT", "DELETE", "PATCH"]), format!("/auth/v1/admin/users/{id}"), true)
        }
        _ => (
            rng.pick(&["GET", "POST", "DELETE"]),
            rng.pick(&[
                "/auth/v1/nope",
                "/auth/v1/",
                "/auth/v1/otp",
                "/auth/v1/recover",
                "/auth/v1/factors",
                "/auth/v1/admin",
            ])
            .to_owned(),
            false,
        ),
    };
    let bearer = match rng.below(10) {
        0..=2 => Some("$USER"),
        3 if !admin_path => Some("$SERVICE"),
        3..=6 if admin_path => Some("$SERVICE"),
        4 | 5 => Some("$ANON"),
        6 => Some(rng.pick(&["nope", "a.b.c", "$REFRESH", ""])),
        _ => None,
    };
    if let Some(bearer) = bearer {
        headers.push(("authorization".into(), format!("Bearer {bearer}").into_bytes()));
    }
    let body = if method == "GET" && rng.chance(95) {
        Vec::new()
    } else if rng.chance(85) {
        let n = rng.below(5);
        let members: Vec<String> = (0..n)
            .map(|_| {
                let field = rng.pick(AUTH_FIELDS);
                format!("{}:{}", serde_json::to_string(field).expect("key"), auth_value(rng, field))
            })
            .collect();
        headers.push(("content-type".into(), b"application/json".to_vec()));
        format!("{{{}}}", members.join(",")).into_bytes()
    } else {
        write_body(rng, AUTH_FIELDS, &mut headers)
    };
    FuzzRequest { method: method.into(), target: sendable(&path), headers, body }
}

// ---------------------------------------------------------------------------
// /storage/v1

const BUCKETS: &[&str] = &[
    "public-bucket",
    "private-bucket",
    "public-bucket",
    "private-bucket",
    "nope",
    "",
    "..",
    "a%2Fb",
    "%00",
    "fuzz-new",
];

const OBJECTS: &[&str] = &[
    "a.txt",
    "folder/b.png",
    "folder/sub/c.json",
    "a.txt",
    "new.bin",
    "../a.txt",
    "%2e%2e/a.txt",
    "a//b",
    "/a",
    "folder/",
    "%00",
    "ü.txt",
    "a%20b.txt",
    "it's (1).png",
    ".",
    "..",
    "a?b",
    "a%3Fb",
];

fn object(rng: &mut Rng) -> String {
    if rng.chance(3) {
        return "o".repeat(rng.pick(&[300, 1100]));
    }
    rng.pick(OBJECTS).to_owned()
}

fn storage_json(rng: &mut Rng, fields: &[&'static str]) -> String {
    let n = rng.below(fields.len() + 1);
    let members: Vec<String> = (0..n)
        .map(|_| {
            let field = rng.pick(fields);
            let value = match field {
                "prefix" | "sourceKey" | "destinationKey" | "search" => {
                    serde_json::to_string(&object(rng)).expect("s")
                }
                "bucketId" | "destinationBucket" | "id" | "name" => {
                    serde_json::to_string(rng.pick(BUCKETS)).expect("s")
                }
                "paths" | "prefixes" => {
                    let items: Vec<String> =
                        (0..rng.below(3)).map(|_| serde_json::to_string(&object(rng)).expect("s")).collect();
                    format!("[{}]", items.join(","))
                }
                "expiresIn" | "limit" | "offset" => {
                    rng.pick(&["60", "0", "-1", "1e20", "\"60\"", "null", "3.5", "100000000000"]).to_owned()
                }
                "public" => rng.pick(&["true", "false", "null", "\"yes\""]).to_owned(),
                "file_size_limit" => rng
                    .pick(&["100", "0", "-1", "\"1MB\"", "\"1 GB\"", "\"nope\"", "null", "1e30"])
                    .to_owned(),
                "allowed_mime_types" => rng
                    .pick(&["[\"image/png\"]", "[\"image/*\"]", "[]", "null", "[1]", "\"text/plain\""])
                    .to_owned(),
                "sortBy" => rng
                    .pick(&[
                        "{\"column\":\"name\",\"order\":\"asc\"}",
                        "{\"column\":\"nope\",\"order\":\"desc\"}",
                        "{\"column\":\"created_at\",\"order\":\"x\"}",
                        "{}",
                        "1",
                    ])
                    .to_owned(),
                _ => json_value(rng, fields, 1),
            };
            format!("{}:{value}", serde_json::to_string(field).expect("key"))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

fn upload_body(rng: &mut Rng, headers: &mut Vec<(String, Vec<u8>)>) -> Vec<u8> {
    let size = rng.pick(&[0usize, 1, 10, 1000, 70_000]);
    let bytes: Vec<u8> = (0..size).map(|i| (i * 7 + rng.below(3)) as u8).collect();
    if rng.chance(30) {
        let boundary = "----fuzz-boundary";
        let mut body = Vec::new();
        if rng.chance(50) {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n{}\r\n",
                    rng.pick(&["3600", "0", "-1", "x"])
                )
                .as_bytes(),
            );
        }
        if rng.chance(30) {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{}\r\n",
                    rng.pick(&["{\"k\":\"v\"}", "[]", "{", "null"])
                )
                .as_bytes(),
            );
        }
        if rng.chance(90) {
            let mime = rng.pick(&["image/png", "text/plain", "application/json", "", "nope"]);
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"\"; filename=\"f.png\"\r\nContent-Type: {mime}\r\n\r\n").as_bytes());
            body.extend_from_slice(&bytes);
            body.extend_from_slice(b"\r\n");
        }
        if rng.chance(90) {
            body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        }
        let content_type = if rng.chance(90) {
            format!("multipart/form-data; boundary={boundary}")
        } else {
            "multipart/form-data".into()
        };
        headers.push(("content-type".into(), content_type.into_bytes()));
        body
    } else {
        if rng.chance(90) {
            let mime = rng.pick(&[
                "text/plain",
                "image/png",
                "application/octet-stream",
                "application/json",
                "image/*",
                "",
                "nope/",
                "text/plain; charset=utf-8",
            ]);
            headers.push(("content-type".into(), mime.as_bytes().to_vec()));
        }
        bytes
    }
}

fn storage(rng: &mut Rng) -> FuzzRequest {
    let mut headers = Vec::new();
    credentials(rng, &mut headers);
    let bucket = rng.pick(BUCKETS);
    let mut query = String::new();
    let (method, path, body): (&str, String, Vec<u8>) = match rng.below(24) {
        0 | 1 => (rng.pick(&["GET", "POST"]), "/storage/v1/bucket".into(), Vec::new()),
        2 | 3 => {
            let body = storage_json(rng, &["id", "name", "public", "file_size_limit", "allowed_mime_types"]);
            (
                rng.pick(&["POST", "PUT"]),
                if rng.chance(50) {
                    "/storage/v1/bucket".into()
                } else {
                    format!("/storage/v1/bucket/{bucket}")
                },
                body.into_bytes(),
            )
        }
        4 => (rng.pick(&["GET", "DELETE"]), format!("/storage/v1/bucket/{bucket}"), Vec::new()),
        5 => ("POST", format!("/storage/v1/bucket/{bucket}/empty"), Vec::new()),
        6..=9 => {
            let method = rng.pick(&["POST", "PUT", "POST"]);
            if rng.chance(50) {
                headers.push(("x-upsert".into(), rng.pick(&["true", "false", "nope"]).as_bytes().to_vec()));
            }
            if rng.chance(20) {
                headers.push((
                    "cache-control".into(),
                    rng.pick(&["max-age=60", "no-cache", "nope"]).as_bytes().to_vec(),
                ));
            }
            let body = upload_body(rng, &mut headers);
            (method, format!("/storage/v1/object/{bucket}/{}", object(rng)), body)
        }
        10..=13 => {
            let prefix =
                rng.pick(&["", "authenticated/", "public/", "info/", "info/public/", "info/authenticated/"]);
            if rng.chance(20) {
                query = rng
                    .pick(&["download", "download=x.txt", "download=%00", "width=10", "token=nope"])
                    .into();
            }
            if rng.chance(15) {
                headers.push((
                    "range".into(),
                    rng.pick(&[
                        "bytes=0-1",
                        "bytes=5-",
                        "bytes=-3",
                        "bytes=9-1",
                        "bytes=0-99999999999999999999",
                        "nope",
                    ])
                    .as_bytes()
                    .to_vec(),
                ));
            }
            if rng.chance(10) {
                headers.push((
                    rng.pick(&["if-none-match", "if-modified-since"]).into(),
                    rng.pick(&["\"x\"", "*", "Wed, 21 Oct 2015 07:28:00 GMT", "nope"]).as_bytes().to_vec(),
                ));
            }
            (
                rng.pick(&["GET", "GET", "HEAD"]),
                format!("/storage/v1/object/{prefix}{bucket}/{}", object(rng)),
                Vec::new(),
            )
        }
        14 => ("DELETE", format!("/storage/v1/object/{bucket}/{}", object(rng)), Vec::new()),
        15 => {
            ("DELETE", format!("/storage/v1/object/{bucket}"), storage_json(rng, &["prefixes"]).into_bytes())
        }
        16 => (
            "POST",
            format!("/storage/v1/object/sign/{bucket}/{}", object(rng)),
            storage_json(rng, &["expiresIn", "transform"]).into_bytes(),
        ),
        17 => (
            "POST",
            format!("/storage/v1/object/sign/{bucket}"),
            storage_json(rng, &["expiresIn", "paths"]).into_bytes(),
        ),
        18 => {
            query = rng.pick(&["token=nope", "token=a.b.c", "token=", "", "token=$USER"]).into();
            ("GET", format!("/storage/v1/object/sign/{bucket}/{}", object(rng)), Vec::new())
        }
        19 => {
            let method = rng.pick(&["POST", "PUT"]);
            if method == "PUT" {
                query = rng.pick(&["token=nope", "token=a.b.c", "", "token=$SERVICE"]).into();
            }
            let body = if method == "PUT" { upload_body(rng, &mut headers) } else { Vec::new() };
            (method, format!("/storage/v1/object/upload/sign/{bucket}/{}", object(rng)), body)
        }
        20 => (
            "POST",
            format!("/storage/v1/object/list/{bucket}"),
            storage_json(rng, &["prefix", "limit", "offset", "sortBy", "search"]).into_bytes(),
        ),
        21 | 22 => (
            "POST",
            format!("/storage/v1/object/{}", rng.pick(&["move", "copy"])),
            storage_json(rng, &["bucketId", "sourceKey", "destinationKey", "destinationBucket"]).into_bytes(),
        ),
        _ => (
            rng.pick(&["GET", "POST", "PATCH"]),
            rng.pick(&[
                "/storage/v1/",
                "/storage/v1/nope",
                "/storage/v1/object",
                "/storage/v1/object/",
                "/storage/v1/s3",
            ])
            .into(),
            Vec::new(),
        ),
    };
    if !body.is_empty() && !headers.iter().any(|(name, _)| name == "content-type") && rng.chance(90) {
        headers.push(("content-type".into(), b"application/json".to_vec()));
    }
    if rng.chance(90) && !body.is_empty() {
        // What hyper would have read off the wire; never a lie about the body.
        headers.push(("content-length".into(), body.len().to_string().into_bytes()));
    }
    let target = if query.is_empty() { path } else { format!("{path}?{query}") };
    FuzzRequest { method: method.into(), target: sendable(&target), headers, body }
}

// ---------------------------------------------------------------------------
// Mutation

/// Tokens spliced into targets, headers and bodies.
const DICTIONARY: &[&str] = &[
    "(",
    ")",
    ",",
    ".",
    "\"",
    "\\",
    "*",
    "!",
    "->",
    "->>",
    "::",
    "...",
    "%00",
    "%22",
    "%",
    "&",
    "=",
    "not.",
    "or=(",
    "and=(",
    "!inner",
    "count()",
    "{",
    "}",
    "[",
    "]",
    ":",
    "$",
    "'",
    " ",
    "%FF",
    "%C3%28",
    "\u{0}",
    "\u{7f}",
    "é",
    "select=",
    "&select=*",
    "&order=id",
    "&limit=1",
    ".eq.",
    ".in.(",
    ".is.null",
    "?",
    "#",
    "/",
    "//",
    "%2F",
    "..",
    "null",
    "1e999",
    "-",
    "\r\n",
    "\t",
    ";",
    "Bearer ",
];

fn mutate(rng: &mut Rng, request: &mut FuzzRequest) {
    for _ in 0..=rng.below(3) {
        match rng.below(10) {
            0..=4 => {
                let mut target = request.target.clone().into_bytes();
                // Mostly past the service's prefix, where the routes and
                // the query are.
                let keep = if rng.chance(90) {
                    target.iter().position(|b| *b == b'?').unwrap_or(12).min(target.len())
                } else {
                    0
                };
                let mut tail = target.split_off(keep);
                mutate_bytes(rng, &mut tail);
                target.extend(tail);
                request.target = sendable(&String::from_utf8_lossy(&target));
                if !request.target.starts_with('/') {
                    request.target.insert(0, '/');
                }
            }
            5 | 6 if !request.headers.is_empty() => {
                let mut at = rng.below(request.headers.len());
                if request.headers[at].0 == "apikey" && rng.chance(80) {
                    at = rng.below(request.headers.len());
                }
                if rng.chance(15) {
                    request.headers.remove(at);
                } else if rng.chance(15) {
                    let copy = request.headers[at].clone();
                    request.headers.push(copy);
                } else {
                    mutate_bytes(rng, &mut request.headers[at].1);
                }
            }
            7 => {
                let name = rng.pick(&[
                    "prefer",
                    "accept",
                    "range",
                    "content-type",
                    "authorization",
                    "apikey",
                    "accept-profile",
                    "x-upsert",
                    "content-length",
                ]);
                let value = value(rng).into_bytes();
                request.headers.push((name.into(), value));
            }
            _ => mutate_bytes(rng, &mut request.body),
        }
    }
}

fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = if bytes.is_empty() { 0 } else { rng.below(bytes.len() + 1) };
    match rng.below(6) {
        0 | 1 => {
            let token = rng.pick(DICTIONARY).as_bytes();
            bytes.splice(at..at, token.iter().copied());
        }
        2 if at < bytes.len() => {
            let end = (at + 1 + rng.below(8)).min(bytes.len());
            bytes.drain(at..end);
        }
        3 if at < bytes.len() => {
            let end = (at + 1 + rng.below(16)).min(bytes.len());
            let copy = bytes[at..end].to_vec();
            bytes.splice(at..at, copy.iter().copied().cycle().take(copy.len() * (1 + rng.below(3))));
        }
        4 if at < bytes.len() => bytes[at] = rng.below(256) as u8,
        _ => bytes.truncate(at),
    }
}
