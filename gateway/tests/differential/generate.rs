//! Requests over the shop fixture (`tests/fixtures/shop.sql`), generated from a
//! seed: the same seed gives the same requests, so a difference can be replayed.

use reqwest::Method;

use super::compare::{Request, Who};

/// SplitMix64: small, and good enough to pick grammar branches.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0..n.
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
}

/// The query pairs of a request under construction, form-encoded at the end
/// as supabase-js's `URLSearchParams` does (space as `+`).
#[derive(Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn add(&mut self, key: &str, value: &str) {
        self.0.push((key.to_owned(), value.to_owned()));
    }

    pub fn encode(&self) -> String {
        let mut serializer = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.0 {
            serializer.append_pair(k, v);
        }
        serializer.finish()
    }
}

/// A filter operand on a products column: `(column, operation)`, operation
/// without the optional `not.`.
fn product_filter(rng: &mut Rng) -> (String, String) {
    let int = |rng: &mut Rng| rng.below(9).to_string();
    let cmp = |rng: &mut Rng| rng.pick(&["eq", "neq", "gt", "gte", "lt", "lte"]).to_owned();
    match rng.below(22) {
        0 | 1 => ("id".into(), format!("{}.{}", cmp(rng), int(rng))),
        2 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| int(rng)).collect();
            ("id".into(), format!("in.({})", items.join(",")))
        }
        3 => (
            "price".into(),
            format!("{}.{}", cmp(rng), rng.pick(&["49", "59.90", "199.00", "799", "899.5", "1000"])),
        ),
        4 => ("quantity".into(), format!("{}.{}", cmp(rng), rng.below(13))),
        5 => (
            "name".into(),
            format!(
                "{}.{}",
                rng.pick(&["eq", "neq", "gt", "lt"]),
                rng.pick(&["iPhone 15", "Galaxy S24", "Nokia 3310", "nothing", "\"quoted\""])
            ),
        ),
        6 => (
            "name".into(),
            format!(
                "{}.{}",
                rng.pick(&["like", "ilike"]),
                rng.pick(&["iPhone*", "*GALAXY*", "%phone%", "*a*", "Nokia%", "*1_*", "G*S2*"])
            ),
        ),
        7 => (
            "name".into(),
            format!(
                "{}.{}",
                rng.pick(&["match", "imatch"]),
                rng.pick(&["^Gal", "^gal", "1[45]$", "phone", "^[A-Z]"])
            ),
        ),
        8 => (
            "name".into(),
            format!(
                "in.({})",
                rng.pick(&[
                    "\"iPhone 15\",\"Nokia 3310\"",
                    "\"a,b\",\"Galaxy A15\"",
                    "\"say \\\"hi\\\"\",iPhone 14",
                    "\"(x)\",Generic Phone",
                ])
            ),
        ),
        9 => (
            "featured".into(),
            format!("is.{}", rng.pick(&["null", "true", "false", "not_null", "unknown", "TRUE"])),
        ),
        10 => ("featured".into(), format!("isdistinct.{}", rng.pick(&["true", "false"]))),
        11 => (
            "tags".into(),
            format!(
                "{}.{}",
                rng.pick(&["cs", "cd", "ov"]),
                rng.pick(&["{phone}", "{ios}", "{phone,android,ios}", "{watch,\"feature phone\"}", "{}"])
            ),
        ),
        12 => (
            rng.pick(&["specs->>ram", "specs->ram", "specs->colors->>0", "specs->>colors"]).to_owned(),
            format!("{}.{}", rng.pick(&["eq", "neq", "gt"]), rng.pick(&["6", "8", "black"])),
        ),
        13 => (
            "name".into(),
            format!(
                "{}{}.{}",
                rng.pick(&["fts", "plfts", "phfts", "wfts"]),
                rng.pick(&["", "(english)", "(simple)"]),
                rng.pick(&["Galaxy", "galaxy s24", "galaxy -s24", "iphone | nokia", "phone"])
            ),
        ),
        14 => (
            "category".into(),
            rng.pick(&["eq.Celulares", "eq.Relojes", "in.(Celulares,\"Relojes\")", "neq.Celulares"])
                .to_owned(),
        ),
        15 => ("brand_id".into(), rng.pick(&["is.null", "eq.1", "eq.2", "in.(1,3)", "gt.1"]).to_owned()),
        16 => (
            "created_at".into(),
            rng.pick(&["gt.2023-01-01", "lt.2024-06-01T00:00:00Z", "eq.2024-01-01 00:00:00+00"]).to_owned(),
        ),
        17 => (
            "name".into(),
            format!(
                "{}.{}",
                rng.pick(&["like(any)", "like(all)", "ilike(any)", "ilike(all)"]),
                rng.pick(&["{iPhone*,Nokia*}", "{*Phone*,Gen*}", "{*a*,*e*}", "{x}"])
            ),
        ),
        18 => (
            "id".into(),
            format!(
                "{}.{}",
                rng.pick(&["eq(any)", "gt(all)", "lt(any)", "gte(all)"]),
                rng.pick(&["{1,4}", "{2,3}", "{}", "{7}"])
            ),
        ),
        19 => ("status".into(), rng.pick(&["eq.true", "is.false", "eq.false"]).to_owned()),
        20 => ("description".into(), rng.pick(&["is.null", "eq.x", "not_null"]).to_owned()),
        _ => (
            // Mistakes: each must be the same error from both.
            rng.pick(&["id", "nope", "price", "specs->x"]).to_owned(),
            rng.pick(&["gtx.5", "eq.1", "in.1,2", "noop.0", "is.maybe", "eq.abc", "like(any).x"]).to_owned(),
        ),
    }
}

/// One condition of a logic tree, as `column.op.value` (`or=(...)` syntax).
fn logic_leaf(rng: &mut Rng) -> String {
    let (column, operation) = loop {
        let (c, o) = product_filter(rng);
        // Values with commas or parentheses need quoting inside trees; keep those few.
        if !o.starts_with("in.") && !o.contains(['(', ')', ',']) || o.starts_with("in.(") && !o.contains('"')
        {
            break (c, o);
        }
    };
    let not = if rng.chance(15) { "not." } else { "" };
    format!("{column}.{not}{operation}")
}

fn logic_tree(rng: &mut Rng, depth: usize) -> String {
    let n = 1 + rng.below(3);
    let items: Vec<String> = (0..n)
        .map(|_| {
            if depth < 2 && rng.chance(25) {
                let not = if rng.chance(20) { "not." } else { "" };
                format!("{not}{}({})", rng.pick(&["and", "or"]), logic_tree(rng, depth + 1))
            } else {
                logic_leaf(rng)
            }
        })
        .collect();
    items.join(",")
}

/// The select of a products read; also says whether it holds a to-many embed
/// (none here: products only embeds to-one) and which embeds may be filtered.
fn product_select(rng: &mut Rng, q: &mut Query) -> Vec<&'static str> {
    let mut items: Vec<String> = Vec::new();
    let mut embeds = Vec::new();
    match rng.below(6) {
        0 => items.push("*".into()),
        1 => items.push("id".into()),
        _ => {
            items.push("id".into());
            for _ in 0..1 + rng.below(3) {
                items.push(
                    rng.pick(&[
                        "name",
                        "label:name",
                        "price",
                        "price::text",
                        "quantity::float8",
                        "tags",
                        "specs",
                        "specs->ram",
                        "specs->>ram",
                        "ram:specs->>ram",
                        "specs->colors->0",
                        "specs->colors->>-1",
                        "featured",
                        "created_at",
                        "brand_id",
                        "status",
                        "description",
                        "id::text",
                    ])
                    .to_owned(),
                );
            }
        }
    }
    if rng.chance(55) {
        let (embed, name) = rng.pick(&[
            ("brands(*)", "brands"),
            ("brands(id,name)", "brands"),
            ("brand:brands(name)", "brand"),
            ("brands!inner(name,status)", "brands"),
            ("brands!left(name)", "brands"),
            ("brands!products_brand_id_fkey(name)", "brands"),
            ("brands!brand_id(id)", "brands"),
            ("brand_id(name)", "brand_id"),
            ("...brands(brand_name:name)", ""),
            ("brands()", "brands"),
            ("brands(name,products(id))", "brands"),
            ("b:brands!inner(description)", "b"),
        ]);
        items.push(embed.to_owned());
        if !name.is_empty() {
            embeds.push(name);
        }
    }
    q.add("select", &items.join(","));
    embeds
}

/// Orders of products; true when the order is total (ends with the key).
fn product_order(rng: &mut Rng, q: &mut Query, embeds: &[&str]) -> bool {
    if rng.chance(8) {
        return false;
    }
    let mut keys: Vec<String> = Vec::new();
    for _ in 0..rng.below(3) {
        keys.push(
            rng.pick(&[
                "price.desc",
                "featured.desc.nullslast",
                "featured.nullsfirst",
                "featured.asc.nullslast",
                "quantity",
                "name.desc",
                "category",
                "specs->>ram.desc",
                "brand_id.desc.nullsfirst",
            ])
            .to_owned(),
        );
    }
    if embeds.contains(&"brands") && rng.chance(30) {
        keys.push("brands(name).desc".into());
    }
    keys.push(rng.pick(&["id", "id.asc", "id.desc"]).to_owned());
    q.add("order", &keys.join(","));
    true
}

fn range(rng: &mut Rng, q: &mut Query) {
    if rng.chance(35) {
        q.add("limit", rng.pick(&["0", "1", "2", "3", "5", "10", "-1"]));
    }
    if rng.chance(25) {
        q.add("offset", rng.pick(&["0", "1", "2", "4", "6", "9", "-1"]));
    }
}

fn who(rng: &mut Rng) -> Who {
    match rng.below(100) {
        0..70 => Who::Anon,
        70..88 => Who::User,
        88..97 => Who::Service,
        97 => Who::Expired,
        _ => Who::Forged,
    }
}

fn read_headers(rng: &mut Rng, ordered: bool) -> Vec<(&'static str, String)> {
    // supabase-js always names the schema.
    let mut headers = vec![("accept-profile", if rng.chance(2) { "private" } else { "public" }.to_owned())];
    if rng.chance(35) {
        headers.push(("prefer", "count=exact".to_owned()));
    }
    match rng.below(20) {
        0..=2 => headers.push(("accept", "application/vnd.pgrst.object+json".to_owned())),
        3 if ordered => headers.push(("accept", "text/csv".to_owned())),
        4 => headers.push(("accept", "application/json".to_owned())),
        5 => headers.push(("accept", "*/*".to_owned())),
        6 => headers.push(("accept", "application/vnd.pgrst.array+json;nulls=stripped".to_owned())),
        7 if rng.chance(20) => headers.push(("accept", "application/xml".to_owned())),
        _ => {}
    }
    headers
}

fn products_read(rng: &mut Rng) -> Request {
    let mut q = Query::default();
    let embeds = product_select(rng, &mut q);
    for _ in 0..rng.below(3) {
        let (column, operation) = product_filter(rng);
        let not = if rng.chance(15) { "not." } else { "" };
        q.add(&column, &format!("{not}{operation}"));
    }
    if rng.chance(20) {
        let key = rng.pick(&["or", "and", "not.or", "not.and"]);
        q.add(key, &format!("({})", logic_tree(rng, 0)));
    }
    if let Some(embed) = embeds.first().copied().filter(|_| rng.chance(40)) {
        match rng.below(4) {
            0 => q.add(
                &format!("{embed}.name"),
                rng.pick(&["eq.Apple", "neq.Samsung", "like.*a*", "in.(Nokia,Apple)"]),
            ),
            1 => q.add(&format!("{embed}.status"), "eq.true"),
            2 => q.add(embed, rng.pick(&["is.null", "not.is.null"])),
            _ => q.add(&format!("{embed}.or"), "(name.eq.Apple,name.eq.Nokia)"),
        }
    }
    let ordered = product_order(rng, &mut q, &embeds);
    if ordered {
        range(rng, &mut q);
    }
    let headers = read_headers(rng, ordered);
    let method = if rng.chance(8) { Method::HEAD } else { Method::GET };
    Request { method, path: format!("/products?{}", q.encode()), headers, body: None, who: who(rng), ordered }
}

fn brands_read(rng: &mut Rng) -> Request {
    let mut q = Query::default();
    let mut ordered = true;
    let (select, embed) = rng.pick(&[
        ("*", None),
        ("id,name", None),
        ("name,products(id,name)", Some("products")),
        ("name,products!inner(id)", Some("products")),
        ("id,items:products(id,price)", Some("items")),
        ("name,products(id,brands(name))", Some("products")),
        ("id,products(count)", Some("products")),
        ("name,products(id,...brands(b:name))", Some("products")),
        ("id,products()", Some("products")),
        ("id,transfers!from_brand(id)", Some("transfers")),
        ("id,transfers!transfers_to_brand_fkey(id)", Some("transfers")),
        ("id,transfers(id)", Some("transfers")),
    ]);
    q.add("select", select);
    if let Some(embed) = embed {
        match rng.below(6) {
            0 => q.add(&format!("{embed}.order"), rng.pick(&["id.desc", "price.desc,id", "id"])),
            1 => {
                q.add(&format!("{embed}.order"), "id");
                q.add(&format!("{embed}.limit"), rng.pick(&["1", "2", "0"]));
                if rng.chance(50) {
                    q.add(&format!("{embed}.offset"), "1");
                }
            }
            2 => {
                q.add(&format!("{embed}.id"), rng.pick(&["gt.2", "in.(1,3,7)", "eq.4"]));
                ordered = false;
            }
            3 => {
                q.add(&format!("{embed}.or"), "(id.eq.3,id.eq.7)");
                q.add(embed, rng.pick(&["not.is.null", "is.null"]));
                ordered = false;
            }
            4 => {
                q.add(embed, rng.pick(&["not.is.null", "is.null"]));
                ordered = false;
            }
            _ => ordered = false,
        }
    }
    if rng.chance(30) {
        q.add(
            "name",
            rng.pick(&["eq.Apple", "neq.Nokia", "ilike.*s*", "in.(Apple,\"Siemens\")", "not.is.null"]),
        );
    }
    if rng.chance(85) {
        q.add("order", rng.pick(&["id", "name.desc", "status,id.desc", "description.nullsfirst,id"]));
        range(rng, &mut q);
    } else {
        // A range over unordered rows may pick different ones.
        ordered = false;
    }
    let headers = read_headers(rng, ordered);
    let method = if rng.chance(8) { Method::HEAD } else { Method::GET };
    Request { method, path: format!("/brands?{}", q.encode()), headers, body: None, who: who(rng), ordered }
}

/// The other tables, functions and mistakes at the edges.
fn other_read(rng: &mut Rng) -> Request {
    let path = rng
        .pick(&[
            "/notes?select=*&order=id",
            "/notes?body=eq.\"a, \\\"quoted\\\" note\"",
            "/notes?body=in.(\"a, \\\"quoted\\\" note\",plain)&order=id",
            "/transfers?select=id,from:brands!from_brand(name),to:brands!to_brand(name)",
            "/transfers?select=*,brands(*)",
            "/products?select=id,stores(*)",
            "/products?select=id,nope",
            "/products?select=id&nope=eq.1",
            "/products?select=id&order=nope",
            "/nope",
            "/nope?select=id",
            "/rpc/add?a=1&b=2",
            "/rpc/whoami",
            "/rpc/products_in?category=Relojes&select=id,name",
            "/rpc/products_in?category=Celulares&select=id&order=id.desc&limit=2",
            "/rpc/tagged?tags={a,b,c}",
            "/rpc/nope",
            "/rpc/add?a=1",
            "/products?select=id,&order=id",
            "/products?select=id)",
            "/products?order=id.ac",
            "/products?select=id,brands(name)&brands.order=name",
            "/products?limit=abc",
            "/products?select=count()",
            "/products?id=neq(any).{1,2}&select=id&order=id",
            "/products?select=id&or=(id.eq.1,id.eq.2)x",
        ])
        .to_owned();
    let headers = read_headers(rng, true);
    let path = path.replace(' ', "%20");
    Request { method: Method::GET, path, headers, body: None, who: who(rng), ordered: true }
}

/// Reads with the `Range` header, every combination, and with
/// `Prefer: timezone=`: too few shapes to draw at random. (A scalar function
/// is left out of the ranges: PostgREST 12 applies an offset to its one value,
/// whether from `offset=` or `Range`, and the gateway does not.)
pub fn headers() -> Vec<Request> {
    let read = |method: Method, path: &str, headers: &[(&'static str, &str)]| Request {
        method,
        path: path.to_owned(),
        headers: headers.iter().map(|(name, value)| (*name, (*value).to_owned())).collect(),
        body: None,
        who: Who::Anon,
        ordered: true,
    };
    let mut requests = Vec::new();
    let queries =
        ["", "&limit=2", "&limit=3", "&offset=2", "&offset=7", "&offset=2&limit=2", "&limit=0", "&limit=-1"];
    let ranges =
        ["0-1", "1-5", "2-", "0-0", "5-2", "6-", "7-", "100-200", "abc", "items=0-1", "-3", "0-1,3-4"];
    for query in queries {
        for range in ranges {
            for prefer in ["", "count=exact"] {
                let path = format!("/products?select=id&order=id{query}");
                let mut headers = vec![("range", range), ("range-unit", "items")];
                if !prefer.is_empty() {
                    headers.push(("prefer", prefer));
                }
                requests.push(read(Method::GET, &path, &headers));
            }
        }
    }
    for (method, path) in [
        (Method::HEAD, "/products?select=id&order=id"),
        (Method::GET, "/rpc/products_in?category=Celulares&select=id&order=id"),
        (Method::GET, "/brands?select=id,products(id)&order=id&products.order=id&products.limit=1"),
    ] {
        for range in ["1-2", "5-2", "3-"] {
            requests.push(read(method.clone(), path, &[("range", range), ("prefer", "count=exact")]));
        }
    }
    for zone in
        ["America/Los_Angeles", "Asia/Kolkata", "EST5EDT", "UTC", "asia/tokyo", "+05", "Nowhere/Land", ""]
    {
        for handling in ["", ", handling=strict"] {
            let prefer = format!("timezone={zone}{handling}");
            for path in [
                "/products?select=id,created_at&order=id",
                "/products?select=id,created_at&created_at=lt.2024-01-01T06:00:00&order=id",
                "/brands?select=id,products(created_at)&order=id&products.order=id",
                "/rpc/products_in?category=Celulares&select=id,created_at&order=id",
            ] {
                requests.push(read(Method::GET, path, &[("prefer", &prefer)]));
            }
            requests.push(read(
                Method::GET,
                "/products?select=id,created_at&order=id",
                &[("prefer", &prefer), ("accept", "text/csv")],
            ));
        }
    }
    requests
}

pub fn read(rng: &mut Rng) -> Request {
    match rng.below(20) {
        0..=12 => products_read(rng),
        13..=17 => brands_read(rng),
        _ => other_read(rng),
    }
}

/// A write that both servers roll back (`Prefer: tx=rollback`). Rows get
/// explicit keys: a sequence advances even in a rolled-back transaction.
pub fn write(rng: &mut Rng, n: usize) -> Request {
    let id = 200 + n;
    let mut prefer = vec!["tx=rollback".to_owned()];
    if rng.chance(80) {
        prefer.push("return=representation".to_owned());
    }
    if rng.chance(25) {
        prefer.push("count=exact".to_owned());
    }
    let select = rng.pick(&[
        "",
        "select=*",
        "select=id,name,price",
        "select=id,brands(name)",
        "select=id,b:brands!inner(name)",
    ]);
    let mut headers = vec![("content-type", "application/json".to_owned())];
    let (method, path, body) = match rng.below(10) {
        0 | 1 => (
            Method::POST,
            format!("/products?{select}"),
            Some(format!(
                r#"{{"id":{id},"name":"Pixel {n}","price":{}.5,"brand_id":{},"featured":{}}}"#,
                n % 900,
                rng.pick(&["1", "2", "null", "99"]),
                rng.pick(&["true", "null"])
            )),
        ),
        2 => (
            Method::POST,
            format!("/products?columns=id,name,quantity&{select}"),
            Some(format!(
                r#"[{{"id":{id},"name":"A","quantity":1,"ignored":3}},{{"id":{},"name":"B"}}]"#,
                id + 5000
            )),
        ),
        3 => {
            prefer
                .push(rng.pick(&["resolution=merge-duplicates", "resolution=ignore-duplicates"]).to_owned());
            let other = rng.below(8) + 1;
            (
                Method::POST,
                format!("/products?on_conflict=id&{select}"),
                Some(if rng.chance(50) {
                    format!(r#"{{"id":{other},"name":"Upserted","price":1}}"#)
                } else {
                    format!(
                        r#"[{{"id":{other},"name":"Upserted","price":1}},{{"id":{id},"name":"New","price":2}}]"#
                    )
                }),
            )
        }
        4 | 5 => (
            Method::PATCH,
            format!("/products?id={}&{select}", rng.pick(&["eq.1", "eq.6", "in.(2,3)", "gt.100", "lt.4"])),
            Some(format!(r#"{{"price":{}.25,"quantity":{}}}"#, n % 500, rng.pick(&["3", "-1"]))),
        ),
        6 | 7 => (
            Method::DELETE,
            format!(
                "/products?{}&{select}",
                rng.pick(&["id=eq.4", "id=in.(5,7)", "name=like.Galaxy*", "id=eq.999"])
            ),
            None,
        ),
        8 => (
            Method::POST,
            "/brands".to_owned(),
            Some(
                rng.pick(&[r#"{"id":50,"name":"Apple"}"#, r#"{"id":51,"name":"Xiaomi"}"#, r#"{"name":"#])
                    .to_owned(),
            ),
        ),
        _ => (Method::DELETE, format!("/brands?id=eq.{}", rng.pick(&["1", "4"])), None),
    };
    headers.push(("prefer", prefer.join(", ")));
    if rng.chance(15) {
        headers.push(("accept", "application/vnd.pgrst.object+json".to_owned()));
    }
    let who = match rng.below(10) {
        0..=5 => Who::User,
        6..=7 => Who::Service,
        _ => Who::Anon,
    };
    let path = path.replace("?&", "?").trim_end_matches(['&', '?']).to_owned();
    Request { method, path, headers, body, who, ordered: false }
}

/// Many-to-many embeds, computed fields and computed relationships: fixed
/// paths (each asked as every caller and with and without `count=exact`),
/// kept apart from the seeded stream so that adding them leaves the
/// generated requests as they were.
pub fn junctions_and_computed() -> Vec<Request> {
    let paths = [
        // Many-to-many through films_actors; awards is no junction.
        "/films?select=title,actors(first_name)&order=id",
        "/films?select=id,actors(*)&order=id",
        "/actors?select=last_name,films(title,year)&order=id",
        "/films?select=title,actors!films_actors(last_name)&order=id",
        "/films?select=title,actors!awards(last_name)&order=id",
        "/films?select=title,actors!films_actors_actor_id_fkey(last_name)&order=id",
        "/films?select=title,cast:actors(id,last_name)&cast.order=id.desc&order=id",
        "/films?select=title,actors(id)&actors.order=last_name&actors.limit=1&actors.offset=1&order=id",
        "/films?select=title,actors(last_name)&actors.last_name=like.*e*&order=id",
        "/films?select=title,actors!inner(last_name)&actors.last_name=eq.Reno&order=id",
        "/films?select=title,actors!inner(last_name)&order=id",
        "/films?select=title,actors(last_name)&actors=is.null&order=id",
        "/films?select=title,actors(last_name)&actors=not.is.null&actors.id=gt.2&order=id",
        "/films?select=title,actors(count)&order=id",
        "/films?select=title,actors()&actors.id=eq.3&actors=not.is.null&order=id",
        "/films?select=title,actors(last_name,films(title))&order=id",
        "/films?select=title,...actors(last_name)&order=id",
        "/films?select=title,actors(last_name)&order=actors(last_name)",
        "/films?select=id,films_actors(role,actors(last_name))&order=id",
        "/films?select=id,awards(actors(last_name))&order=id",
        "/teams?select=name,members(name)&order=id",
        "/teams?select=name,members!team_members(name)&order=id",
        "/teams?select=name,members!team_leads(name)&order=id",
        "/teams?select=name,members!nope(name)&order=id",
        "/members?select=name,teams!team_leads(name)&order=id",
        "/shelves?select=label,editions(title,lang)&order=id",
        "/editions?select=title,shelves(label)&order=isbn,lang",
        "/people?select=name,people(name)&order=id",
        "/people?select=name,people!friendships(name)&order=id",
        "/people?select=name,friendships(friend_id)&order=id",
        "/people?select=name,friendships!person_id(friend_id)&order=id",
        // Computed fields.
        "/actors?select=id,full_name&order=id",
        "/actors?select=id,name:full_name,full_name::text&order=id",
        "/actors?select=id&full_name=eq.Al%20Pacino",
        "/actors?select=id,full_name&full_name=like.*o*&order=full_name.desc",
        "/actors?select=id&or=(full_name.eq.Jean%20Reno,id.eq.1)&order=id",
        "/films?select=title,age&order=age.desc.nullslast,id",
        "/films?select=title,age&age=gt.26&order=id",
        "/films?select=title,actors(full_name)&actors.full_name=ilike.*r*&actors.order=full_name&order=id",
        "/films?select=title,lead_actor(full_name)&order=id",
        "/actors?select=id,nope&order=id",
        "/actors?select=id&order=full_nam",
        // Computed relationships.
        "/actors?select=last_name,filmography(title)&order=id",
        "/actors?select=last_name,filmography(title,year)&filmography.order=year.desc&filmography.limit=1&order=id",
        "/actors?select=last_name,filmography!inner(title)&filmography.year=lt.1990&order=id",
        "/actors?select=last_name,latest_film(title)&order=id",
        "/actors?select=last_name,...latest_film(title)&order=id",
        "/actors?select=last_name,latest_film(title)&order=latest_film(title).desc.nullslast,id",
        "/actors?select=last_name,latest_film!inner(title)&latest_film.title=neq.Heat&order=id",
        "/films?select=title,lead_actor(last_name,filmography(title))&order=id",
        "/films?select=title,lead_actor!nope(last_name)&order=id",
        "/films?select=title,lead_actor(last_name)&lead_actor=is.null&order=id",
        "/actors?select=last_name,films:filmography(title)&order=id",
        "/rpc/cast_of?film_id=2&select=id,full_name,films(title),latest_film(title)&order=id",
        "/rpc/cast_of?film_id=3&full_name=like.J*&select=id",
    ];
    fixed_reads(&paths, &[(Who::Anon, false), (Who::User, true), (Who::Service, false)])
}

/// Writes (rolled back) whose representation selects computed fields,
/// many-to-many embeds and computed relationships.
pub fn junction_writes() -> Vec<Request> {
    let writes = [
        (
            Method::POST,
            "/actors?select=id,full_name,films(title),latest_film(title)",
            Some(r#"{"id":90,"first_name":"New","last_name":"Face"}"#),
        ),
        (
            Method::POST,
            "/films_actors?select=role,films(title,actors(full_name))",
            Some(r#"{"film_id":4,"actor_id":5,"role":"Extra"}"#),
        ),
        (
            Method::POST,
            "/actors?on_conflict=id&select=full_name",
            Some(
                r#"[{"id":2,"first_name":"Alfredo","last_name":"Pacino"},{"id":91,"first_name":"Zed","last_name":"Z"}]"#,
            ),
        ),
        (
            Method::PATCH,
            "/films?id=eq.2&select=title,age,actors(full_name),lead_actor(last_name)",
            Some(r#"{"year":2000}"#),
        ),
        (
            Method::PATCH,
            "/actors?full_name=eq.Jean%20Reno&select=id,full_name",
            Some(r#"{"last_name":"Renault"}"#),
        ),
        (Method::PATCH, "/films?select=id,actors!inner(id)&actors.id=eq.3", Some(r#"{"title":"Same"}"#)),
        (
            Method::DELETE,
            "/films_actors?film_id=eq.3&select=films(title),actors(full_name,filmography(title))",
            None,
        ),
        (Method::DELETE, "/awards?id=eq.1&select=id,films(actors(last_name))", None),
    ];
    writes
        .into_iter()
        .map(|(method, path, body)| Request {
            method,
            path: path.to_owned(),
            headers: vec![
                ("content-type", "application/json".to_owned()),
                ("prefer", "tx=rollback, return=representation, count=exact".to_owned()),
            ],
            body: body.map(str::to_owned),
            who: Who::Service,
            ordered: false,
        })
        .collect()
}

/// Each of `paths` read by each caller, with `Prefer: count=exact` where
/// its flag says so.
pub fn fixed_reads(paths: &[&str], callers: &[(Who, bool)]) -> Vec<Request> {
    let mut requests = Vec::new();
    for path in paths {
        for &(who, count) in callers {
            let mut headers = vec![("accept-profile", "public".to_owned())];
            if count {
                headers.push(("prefer", "count=exact".to_owned()));
            }
            requests.push(Request {
                method: Method::GET,
                path: path.replace(' ', "%20"),
                headers,
                body: None,
                who,
                ordered: true,
            });
        }
    }
    requests
}
