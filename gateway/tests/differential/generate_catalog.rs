//! Reads over the catalog fixture (`tests/fixtures/catalog.sql`), generated
//! from a seed as the shop's are (`generate.rs`). Each endpoint is described
//! once (its columns, filters, orders and embeds); a read draws a select (with
//! aliases, casts, JSON paths and computed fields), embeds through every
//! relationship kind the fixture has (many-to-one, one-to-many, one-to-one,
//! many-to-many, self-references, composite keys, views, views of views, a
//! partitioned table, computed relationships), spreads, filters and logic
//! trees on both levels, an order that is total, ranges, counts and `HEAD`.
//! [`shapes`] adds every relationship kind as fixed paths, and [`failures`]
//! the requests that must fail alike (ambiguous and missing embeds, unknown
//! columns).

use reqwest::Method;

use super::compare::{Request, Who};
use super::generate::{Query, Rng, fixed_reads};

/// An embed (or a spread) that a read of a table may select.
#[derive(Clone, Copy)]
struct Embed {
    /// The select item, e.g. `lead:employees!lead_id(id,name)`.
    item: &'static str,
    /// The name its filters and order go under; empty for a spread.
    name: &'static str,
    /// For an embed that is an array: a total order of its rows; empty for an
    /// object. Without `name.order`, the rows of an array come in any order.
    order: &'static str,
    /// Filters on its rows, as `(column, operation)`.
    filters: &'static [(&'static str, &'static str)],
    /// For an object: an order of the top level by one of its selected
    /// columns (`rel(col)`), or empty.
    sort: &'static str,
}

const fn one(
    item: &'static str,
    name: &'static str,
    filters: &'static [(&'static str, &'static str)],
) -> Embed {
    Embed { item, name, order: "", filters, sort: "" }
}

const fn many(
    item: &'static str,
    name: &'static str,
    order: &'static str,
    filters: &'static [(&'static str, &'static str)],
) -> Embed {
    Embed { item, name, order, filters, sort: "" }
}

const fn spread(item: &'static str) -> Embed {
    Embed { item, name: "", order: "", filters: &[], sort: "" }
}

impl Embed {
    const fn by(self, sort: &'static str) -> Self {
        Self { sort, ..self }
    }

    /// What PostgREST names its subquery after: the alias, else the
    /// relationship (`...employees!lead_id(x)`: `employees`). Two embeds of
    /// one select with the same one fail there (42712, "table name specified
    /// more than once"), which [`failures`] asks once; the generated reads
    /// keep them apart.
    fn subquery(&self) -> &'static str {
        if !self.name.is_empty() {
            return self.name;
        }
        let item = self.item.trim_start_matches("...");
        let end = item.find(['!', '(']).unwrap_or(item.len());
        &item[..end]
    }
}

/// An endpoint of the catalog.
struct Table {
    /// The path, percent-encoded (`/cat%C3%A1logo`).
    path: &'static str,
    /// How often it is drawn, relative to the others.
    weight: usize,
    /// The columns that end every order, making it total.
    key: &'static str,
    /// Select items besides the key.
    columns: &'static [&'static str],
    /// `(column, operations)`; an operation without the optional `not.`.
    filters: &'static [(&'static str, &'static [&'static str])],
    /// Order terms, never total on their own.
    orders: &'static [&'static str],
    embeds: &'static [Embed],
}

const EMPLOYEE_FILTERS: &[(&str, &str)] = &[
    ("name", "like.*ez"),
    ("name", "ilike.*A*"),
    ("active", "is.true"),
    ("salary", "gt.50000"),
    ("level", "is.null"),
    ("id", "in.(1,2,3,8,13)"),
    ("skills", "cs.{sql}"),
];

const PROJECT_FILTERS: &[(&str, &str)] = &[
    ("status", "eq.active"),
    ("status", "in.(planned,done)"),
    ("budget", "gt.50000"),
    ("title", "like.*I"),
    ("weeks", "ov.[3,8)"),
    ("tags", "cs.{client}"),
];

const TABLES: &[Table] = &[
    Table {
        path: "/employees",
        weight: 22,
        key: "id",
        columns: &[
            "name",
            "who:name",
            "email",
            "department_id",
            "manager_id",
            "desk_id",
            "hired",
            "hired::text",
            "salary",
            "pay:salary",
            "salary::text",
            "salary::int",
            "active",
            "level",
            "level::float8",
            "skills",
            "profile",
            "profile->level",
            "profile->>level",
            "profile->langs->0",
            "profile->langs->>-1",
            "city:profile->address->>city",
            "profile->address->zip",
            "profile->remote",
            "display_name",
            "tenure",
            "is_senior",
            "label:display_name",
            "tenure::text",
            "id::text",
        ],
        filters: &[
            (
                "id",
                &[
                    "eq.1",
                    "neq.2",
                    "gt.30",
                    "gte.40",
                    "lt.5",
                    "lte.3",
                    "in.(1,2,3)",
                    "in.()",
                    "eq(any).{4,5,6}",
                ],
            ),
            (
                "name",
                &[
                    "like.*ez",
                    "like.A*",
                    "ilike.*ÍA*",
                    "ilike.*o'b*",
                    "eq.Ana Núñez",
                    "match.^[A-D]",
                    "imatch.NÚÑEZ$",
                    "in.(\"Ana Núñez\",\"Carla O'Brien\")",
                    "like(any).{A*,B*}",
                    "fts(simple).ana",
                    "gt.M",
                ],
            ),
            ("email", &["is.null", "like.e1*", "eq.e2@corp.example"]),
            ("department_id", &["eq.1", "in.(2,3)", "is.null", "neq.5"]),
            ("manager_id", &["is.null", "eq.2", "in.(1,3)", "gt.4"]),
            ("desk_id", &["is.null", "lt.10", "eq.30"]),
            ("hired", &["gt.2018-01-01", "lt.2015-06-30", "gte.2020-01-01", "eq.2013-09-28"]),
            ("salary", &["gt.50000", "lte.40000.5", "eq.28000", "gt(all).{40000,50000}", "lt.1e5"]),
            ("active", &["is.true", "is.false", "eq.true", "isdistinct.true"]),
            ("level", &["is.null", "gt.2", "in.(1,5)", "isdistinct.3", "eq.4"]),
            (
                "skills",
                &["cs.{rust}", "cd.{rust,sql,go}", "ov.{excel,design}", "eq.{}", "cs.{\"public speaking\"}"],
            ),
            ("profile->>level", &["eq.2", "gt.2", "in.(1,3)"]),
            ("profile->address->>city", &["eq.Madrid", "eq.Córdoba", "like.*a*"]),
            ("profile->langs", &["cs.[\"en\"]", "cs.[\"pt\"]"]),
            ("profile->remote", &["eq.true", "eq.false"]),
            ("profile", &["is.null", "cs.{\"level\":2}"]),
            ("tenure", &["gt.8", "lte.5", "eq.10"]),
            ("display_name", &["like.*corp*", "ilike.*ÑEZ*", "like.*<->"]),
            ("is_senior", &["is.true", "is.false"]),
        ],
        orders: &[
            "name",
            "name.desc",
            "salary.desc",
            "hired",
            "level.nullsfirst",
            "level.desc.nullslast",
            "department_id.desc",
            "manager_id.nullsfirst",
            "profile->>level",
            "profile->address->>city.desc",
            "tenure.desc",
            "display_name",
            "is_senior.desc",
            "email.nullslast",
            "active",
        ],
        embeds: &[
            one(
                "departments(name,code)",
                "departments",
                &[("name", "eq.Engineering"), ("code", "in.(ENG,DSG)")],
            )
            .by("departments(name)"),
            one("dept:departments(*)", "dept", &[("floor", "gt.2")]),
            one(
                "departments!inner(name)",
                "departments",
                &[("name", "in.(Design,Sales)"), ("budget", "is.null")],
            )
            .by("departments(name)"),
            one("departments!left(code)", "departments", &[("code", "eq.RND")]),
            one("departments!employees_department_id_fkey(name)", "departments", &[("name", "like.*e*")]),
            one("department_id(name)", "department_id", &[("name", "eq.Legal")]),
            one("manager_id(id,name)", "manager_id", &[("name", "like.A*")]).by("manager_id(name)"),
            one("boss:manager_id(name)", "boss", &[("id", "eq.2")]),
            many("employees(id,name)", "employees", "id", &[("active", "is.true"), ("salary", "gt.50000")]),
            many("reports:employees!manager_id(id,name)", "reports", "id", &[("name", "like.*a*")]),
            many("employees!manager_id!inner(id)", "employees", "id", &[("level", "gt.2")]),
            one("desks(label,standing)", "desks", &[("standing", "is.true")]).by("desks(label)"),
            one("desks!inner(label)", "desks", &[("label", "like.D-1*")]),
            one("desks(label,offices(name,country))", "desks", &[("country", "eq.AR")]),
            one("desk_id(label)", "desk_id", &[]),
            many("assigned:projects!assignments(id,title)", "assigned", "id", PROJECT_FILTERS),
            many("projects!assignments(id,status)", "projects", "id", PROJECT_FILTERS),
            many("projects!lead_id(id,title)", "projects", "id", PROJECT_FILTERS),
            many("led:projects!projects_lead_id_fkey(id,title)", "led", "id", PROJECT_FILTERS),
            many("reviewing:projects!reviewer_id(id)", "reviewing", "id", PROJECT_FILTERS),
            many(
                "assignments(project_id,hours)",
                "assignments",
                "project_id",
                &[("hours", "gt.20"), ("role", "eq.dev")],
            ),
            many("assignments(hours,projects(title))", "assignments", "project_id", &[("role", "is.null")]),
            many("events(id,kind)", "events", "id", &[("kind", "eq.commit"), ("occurred", "gt.2024-01-01")]),
            many("salaries(year,amount)", "salaries", "id", &[("year", "eq.2021"), ("amount", "gt.50000")]),
            many("event_reviews(id,verdict)", "event_reviews", "id", &[("verdict", "is.null")]),
            one("boss(id,name)", "boss", &[("name", "like.*a*")]),
            many("direct_reports(id,name)", "direct_reports", "id", &[("active", "is.true")]),
            many("led_projects(id,title)", "led_projects", "id", PROJECT_FILTERS),
            spread("...departments(dept_name:name)"),
            spread("...boss(boss_name:name)"),
            spread("...desks(desk:label)"),
            spread("...manager_id(manager:name,manager_salary:salary)"),
            one("departments(name,top_earner(name))", "departments", &[("floor", "lte.3")]),
        ],
    },
    Table {
        path: "/departments",
        weight: 9,
        key: "id",
        columns: &[
            "name",
            "code",
            "c:code",
            "budget",
            "budget::text",
            "floor",
            "floor::text",
            "name::varchar",
        ],
        filters: &[
            ("id", &["eq.1", "in.(1,3,5)", "gt.3"]),
            ("name", &["eq.Engineering", "in.(Design,Sales)", "like.*e*", "ilike.*ENG*", "eq.Empty Dept"]),
            ("budget", &["gt.300000", "is.null", "lt.300000.5", "eq.0"]),
            ("floor", &["gte.3", "is.null", "in.(1,2)"]),
            ("code", &["match.^[A-F]", "neq.LEG"]),
        ],
        orders: &["name", "budget.desc.nullslast", "floor.nullsfirst", "code.desc", "floor.desc"],
        embeds: &[
            many("employees(id,name)", "employees", "id", EMPLOYEE_FILTERS),
            many("people:employees(id,salary)", "people", "id", EMPLOYEE_FILTERS),
            many("employees!inner(id)", "employees", "id", EMPLOYEE_FILTERS),
            many("projects(id,title,status)", "projects", "id", PROJECT_FILTERS),
            many("projects!inner(id)", "projects", "id", PROJECT_FILTERS),
            many(
                "staff(staff_id,name)",
                "staff",
                "staff_id",
                &[("salary", "gt.50000"), ("active", "is.false")],
            ),
            many("senior_staff(staff_id,name)", "senior_staff", "staff_id", &[("hired", "lt.2015-01-01")]),
            one("top_earner(id,name,salary)", "top_earner", &[("salary", "gt.70000")]),
            many("department_projects(id,title)", "department_projects", "id", PROJECT_FILTERS),
            spread("...top_earner(top_name:name)"),
            many("employees(id,desks(label))", "employees", "id", &[("desk_id", "not.is.null")]),
            many("projects(id,assignments(hours))", "projects", "id", &[("status", "neq.done")]),
            many("employees(count)", "employees", "", &[]),
        ],
    },
    Table {
        path: "/offices",
        weight: 4,
        key: "country,city",
        columns: &["name", "opened", "opened::text", "place:city"],
        filters: &[
            ("country", &["eq.AR", "in.(AR,ES)", "neq.US"]),
            ("city", &["like.*a*", "eq.Córdoba", "ilike.*RID", "in.(Madrid,Córdoba)"]),
            ("opened", &["gt.2015", "is.null", "lte.2012"]),
        ],
        orders: &["name", "opened.desc.nullslast", "opened.nullsfirst", "city.desc"],
        embeds: &[
            many("desks(id,label)", "desks", "id", &[("standing", "is.true"), ("label", "like.D-1*")]),
            many("desks!inner(id,standing)", "desks", "id", &[("standing", "is.true")]),
            many("desks(id,employees(name))", "desks", "id", &[("id", "lt.10")]),
            many("seats:desks(label)", "seats", "id", &[("id", "gt.20")]),
        ],
    },
    Table {
        path: "/desks",
        weight: 5,
        key: "id",
        columns: &["label", "country", "city", "standing", "spot:label", "standing::text"],
        filters: &[
            ("id", &["lt.10", "in.(1,5,30,33)", "gte.30"]),
            ("country", &["eq.ES", "in.(AR,US)"]),
            ("city", &["eq.Sevilla", "like.*o*"]),
            ("standing", &["is.true", "eq.false"]),
            ("label", &["like.D-0*", "eq.D-12"]),
        ],
        orders: &["label.desc", "city", "country.desc", "standing"],
        embeds: &[
            one("offices(name,opened)", "offices", &[("opened", "gt.2015")]).by("offices(name)"),
            one("offices!inner(name)", "offices", &[("country", "eq.ES")]),
            one("office:offices!desks_country_city_fkey(name)", "office", &[("name", "like.Sede*")]),
            one("employees(id,name)", "employees", EMPLOYEE_FILTERS).by("employees(name)"),
            one("employees!inner(name)", "employees", EMPLOYEE_FILTERS),
            one("occupant:employees!desk_id(name)", "occupant", &[("active", "is.true")]),
            spread("...offices(office:name)"),
            spread("...employees(occupant:name,occupant_id:id)"),
            one("employees(name,departments(name))", "employees", &[("department_id", "eq.1")]),
        ],
    },
    Table {
        path: "/projects",
        weight: 13,
        key: "id",
        columns: &[
            "title",
            "name:title",
            "department_id",
            "lead_id",
            "reviewer_id",
            "status",
            "status::text",
            "weeks",
            "weeks::text",
            "budget",
            "budget::float8",
            "tags",
            "span",
            "length:span",
        ],
        filters: &[
            ("id", &["lt.10", "in.(1,2,8,16)", "gt.25"]),
            ("status", &["eq.active", "in.(active,paused)", "neq.done", "gt.active", "lte.paused"]),
            (
                "weeks",
                &[
                    "ov.[3,5)",
                    "cs.[4,5)",
                    "cd.[0,30)",
                    "sl.[10,20)",
                    "sr.[0,3)",
                    "nxl.[5,10)",
                    "nxr.[5,10)",
                    "adj.[12,15)",
                    "eq.[3,6)",
                    "is.null",
                ],
            ),
            ("tags", &["cs.{client}", "ov.{urgent,research}", "is.null", "eq.{}", "cd.{client,urgent}"]),
            ("budget", &["gt.50000", "lt.30000", "is.null", "gte.10000"]),
            (
                "title",
                &["like.*I", "ilike.*atlas*", "in.(\"Atlas I\",\"Lyra II\")", "fts.lyra", "match.II+$"],
            ),
            ("span", &["gt.5", "lte.3", "is.null"]),
            ("lead_id", &["is.null", "eq.8", "in.(8,15)"]),
            ("reviewer_id", &["eq.12", "is.null"]),
            ("department_id", &["eq.1", "neq.1"]),
        ],
        orders: &[
            "status",
            "status.desc",
            "budget.desc.nullslast",
            "span.desc.nullsfirst",
            "weeks",
            "title.desc",
            "department_id",
            "lead_id.nullsfirst",
        ],
        embeds: &[
            one("departments(name)", "departments", &[("name", "eq.Engineering")]).by("departments(name)"),
            one("departments!inner(code)", "departments", &[("code", "eq.ENG"), ("floor", "gt.2")]),
            one("lead:employees!lead_id(id,name)", "lead", EMPLOYEE_FILTERS).by("lead(name)"),
            one("reviewer:employees!reviewer_id(id,name)", "reviewer", EMPLOYEE_FILTERS),
            one("employees!projects_lead_id_fkey(name)", "employees", EMPLOYEE_FILTERS),
            one("employees!projects_reviewer_id_fkey(name)", "employees", EMPLOYEE_FILTERS),
            one("employees!lead_id!inner(name)", "employees", EMPLOYEE_FILTERS),
            many("employees!assignments(id,name)", "employees", "id", EMPLOYEE_FILTERS),
            many("team:employees!assignments(id,name)", "team", "id", EMPLOYEE_FILTERS),
            many("assignments(employee_id,hours,role)", "assignments", "employee_id", &[("hours", "gt.20")]),
            many("events(id,kind)", "events", "id", &[("kind", "in.(login,deploy)")]),
            one("lead_id(name)", "lead_id", &[("active", "is.true")]),
            spread("...departments(dept:name)"),
            spread("...employees!lead_id(lead_name:name)"),
            one("lead:employees!lead_id(name,departments(name))", "lead", &[("department_id", "eq.1")]),
            one("reviewer:employees!reviewer_id(name,boss(name))", "reviewer", &[]),
        ],
    },
    Table {
        path: "/assignments",
        weight: 5,
        key: "employee_id,project_id",
        columns: &["hours", "role", "hours::float8", "job:role"],
        filters: &[
            ("hours", &["gt.20", "lte.10", "eq.5"]),
            ("role", &["eq.dev", "is.null", "in.(dev,qa)", "neq.pm"]),
            ("employee_id", &["eq.3", "lt.5", "in.(1,2,3)"]),
            ("project_id", &["lt.5", "eq.8"]),
        ],
        orders: &["hours.desc", "role.nullsfirst", "project_id.desc"],
        embeds: &[
            one("employees(name)", "employees", EMPLOYEE_FILTERS).by("employees(name)"),
            one("projects(title,status)", "projects", PROJECT_FILTERS).by("projects(title)"),
            one("projects!inner(title)", "projects", PROJECT_FILTERS),
            spread("...employees(employee:name)"),
            spread("...projects(project:title)"),
            one("employees(name,departments(code))", "employees", &[]),
        ],
    },
    Table {
        path: "/events",
        weight: 6,
        key: "id",
        columns: &[
            "occurred",
            "employee_id",
            "project_id",
            "kind",
            "detail",
            "detail->ok",
            "detail->>n",
            "detail->tags->>0",
            "occurred::text",
            "what:kind",
        ],
        filters: &[
            ("occurred", &["gt.2024-01-01", "lt.2023-06-01", "eq.2023-01-22"]),
            ("kind", &["eq.login", "in.(commit,deploy)", "neq.review"]),
            ("detail->>ok", &["eq.true", "eq.false"]),
            ("detail->n", &["gt.5", "eq.3"]),
            ("detail", &["is.null", "cs.{\"ok\":true}"]),
            ("employee_id", &["is.null", "eq.4"]),
            ("project_id", &["eq.3", "lt.10"]),
        ],
        orders: &["occurred.desc", "kind", "detail->>n.desc.nullslast", "employee_id.nullsfirst"],
        embeds: &[
            one("employees(name)", "employees", EMPLOYEE_FILTERS).by("employees(name)"),
            one("employees!inner(name)", "employees", EMPLOYEE_FILTERS),
            one("projects(title)", "projects", PROJECT_FILTERS),
            many("event_reviews(id,verdict)", "event_reviews", "id", &[("verdict", "eq.good")]),
            many("event_reviews!inner(verdict)", "event_reviews", "id", &[("verdict", "is.null")]),
            spread("...employees(who:name)"),
            one("projects(title,departments(name))", "projects", &[]),
        ],
    },
    Table {
        path: "/event_reviews",
        weight: 4,
        key: "id",
        columns: &["event_id", "event_occurred", "reviewer_id", "verdict", "v:verdict"],
        filters: &[
            ("verdict", &["eq.good", "is.null", "neq.bad"]),
            ("event_occurred", &["gt.2024-01-01"]),
            ("reviewer_id", &["lt.20", "eq.10"]),
        ],
        orders: &["verdict.nullsfirst", "event_occurred.desc", "reviewer_id"],
        embeds: &[
            one("events(kind,occurred)", "events", &[("kind", "eq.review")]).by("events(kind)"),
            one("events!inner(kind)", "events", &[("kind", "eq.review"), ("occurred", "lt.2024-01-01")]),
            one("employees(name)", "employees", EMPLOYEE_FILTERS),
            one("reviewer:employees!reviewer_id(name)", "reviewer", EMPLOYEE_FILTERS),
            spread("...events(kind)"),
            one("events(kind,employees(name))", "events", &[]),
        ],
    },
    Table {
        path: "/events_2024",
        weight: 1,
        key: "id",
        columns: &["occurred", "kind", "employee_id"],
        filters: &[("kind", &["eq.login", "neq.commit"]), ("occurred", &["lt.2024-06-01"])],
        orders: &["occurred", "kind.desc"],
        embeds: &[],
    },
    Table {
        path: "/cat%C3%A1logo",
        weight: 10,
        key: "id",
        columns: &[
            "título",
            "año",
            "categoría",
            "\"Precio Unitario\"",
            "SKU",
            "editorial_id",
            "datos",
            "precio:\"Precio Unitario\"",
            "año::text",
            "\"Precio Unitario\"::text",
            "datos->>páginas",
            "género:datos->>género",
            "datos->premios->0",
            "antigüedad",
            "edad:antigüedad",
            "title:título",
        ],
        filters: &[
            (
                "título",
                &["like.*a*", "ilike.*SOLEDAD*", "eq.Rayuela", "in.(Rayuela,\"El Aleph\")", "match.^[A-L]"],
            ),
            ("año", &["gt.1980", "is.null", "gte.1990", "lt.1950", "in.(1953,1966)"]),
            ("categoría", &["eq.novela", "eq.poesía", "in.(poesía,ensayo)", "is.null", "neq.cuentos"]),
            ("\"Precio Unitario\"", &["gt.20", "lte.15", "is.null"]),
            ("Precio Unitario", &["gt.30"]),
            ("SKU", &["like.SKU-0*", "eq.SKU-037", "gt.SKU-5"]),
            ("editorial_id", &["eq.2", "is.null", "in.(1,3)"]),
            ("datos->>género", &["eq.ficción", "eq.realismo"]),
            ("datos->páginas", &["gt.300", "lt.200"]),
            ("datos->premios", &["cs.[\"Cervantes\"]", "eq.[]"]),
            ("antigüedad", &["gt.50", "lte.30"]),
        ],
        orders: &[
            "año.desc.nullslast",
            "\"Precio Unitario\".desc",
            "título",
            "categoría.nullsfirst",
            "SKU.desc",
            "datos->>género",
            "antigüedad.desc.nullslast",
            "editorial_id.nullsfirst",
        ],
        embeds: &[
            one("editoriales(nombre,país)", "editoriales", &[("país", "eq.España")])
                .by("editoriales(nombre)"),
            one("editoriales!inner(nombre)", "editoriales", &[("país", "eq.España"), ("nombre", "like.A*")]),
            many(
                "autores(id,nombre)",
                "autores",
                "id",
                &[("añoNacimiento", "gt.1930"), ("nombre", "ilike.*mario*")],
            ),
            many("autores!autoría(nombre)", "autores", "id", &[("nombre", "like.J*")]),
            many("escritores:autores(id,añoNacimiento)", "escritores", "id", &[("añoNacimiento", "is.null")]),
            many("autoría(autor_id,orden)", "autoría", "autor_id", &[("orden", "eq.1")]),
            spread("...editoriales(editorial:nombre)"),
            one("editorial_id(nombre)", "editorial_id", &[]),
            many("autores!inner(nombre)", "autores", "id", &[("nombre", "like.*o*")]),
        ],
    },
    Table {
        path: "/editoriales",
        weight: 3,
        key: "id",
        columns: &["nombre", "país", "country:país"],
        filters: &[
            ("país", &["eq.España", "is.null", "neq.México"]),
            ("nombre", &["like.A*", "ilike.*GUA*"]),
        ],
        orders: &["nombre", "país.nullsfirst", "país.desc"],
        embeds: &[
            many("catálogo(id,título)", "catálogo", "id", &[("año", "gt.1980"), ("categoría", "eq.novela")]),
            many("catálogo!inner(id)", "catálogo", "id", &[("año", "gt.1980")]),
            many("libros:catálogo(id,año)", "libros", "id", &[("\"Precio Unitario\"", "gt.20")]),
        ],
    },
    Table {
        path: "/autores",
        weight: 3,
        key: "id",
        columns: &["nombre", "añoNacimiento", "born:añoNacimiento", "añoNacimiento::text"],
        filters: &[
            ("añoNacimiento", &["gt.1930", "is.null", "lt.1910"]),
            ("nombre", &["ilike.*mario*", "like.* García *", "eq.Anónimo"]),
        ],
        orders: &["nombre", "añoNacimiento.desc.nullslast"],
        embeds: &[
            many("catálogo(id,título)", "catálogo", "id", &[("categoría", "eq.novela"), ("año", "lt.1970")]),
            many("autoría(catálogo_id,orden)", "autoría", "catálogo_id", &[("orden", "gt.1")]),
            many("obras:catálogo!autoría(id,año)", "obras", "id", &[("año", "is.null")]),
            many("catálogo!inner(id)", "catálogo", "id", &[("año", "gt.1990")]),
        ],
    },
    Table {
        path: "/autor%C3%ADa",
        weight: 3,
        key: "autor_id,catálogo_id",
        columns: &["catálogo_id", "orden", "orden::text"],
        filters: &[
            ("orden", &["eq.1", "gt.1"]),
            ("autor_id", &["eq.2", "in.(1,5)"]),
            ("catálogo_id", &["lt.10"]),
        ],
        orders: &["orden.desc", "catálogo_id.desc"],
        embeds: &[
            one("autores(nombre)", "autores", &[("nombre", "like.J*")]).by("autores(nombre)"),
            one("catálogo(título,año)", "catálogo", &[("año", "gt.1980")]),
            one("catálogo!inner(título)", "catálogo", &[("categoría", "eq.novela")]),
            spread("...autores(autor:nombre)"),
        ],
    },
    Table {
        path: "/staff",
        weight: 6,
        key: "staff_id",
        columns: &["name", "department_id", "manager_id", "salary", "active", "hired", "initials", "n:name"],
        filters: &[
            ("staff_id", &["lt.10", "in.(1,2,3)", "gt.35"]),
            ("name", &["like.*ez", "ilike.*a*"]),
            ("salary", &["gt.50000", "lt.35000"]),
            ("active", &["is.false"]),
            ("initials", &["eq.AN", "like.A*"]),
            ("department_id", &["eq.2", "is.null"]),
        ],
        orders: &["name", "salary.desc", "initials", "hired.desc", "manager_id.nullsfirst"],
        embeds: &[
            one("departments(name)", "departments", &[("name", "eq.Engineering")]).by("departments(name)"),
            one("departments!inner(name)", "departments", &[("code", "in.(ENG,SAL)")]),
            many("staff(staff_id,name)", "staff", "staff_id", &[("salary", "gt.50000")]),
            many("reports:staff!manager_id(staff_id,name)", "reports", "staff_id", &[("active", "is.true")]),
            many("assignments(project_id,hours)", "assignments", "project_id", &[("hours", "gt.20")]),
            many("salaries(year,amount)", "salaries", "id", &[("year", "eq.2022")]),
            many("events(id,kind)", "events", "id", &[("kind", "eq.login")]),
            spread("...departments(dept:name)"),
            many("projects!lead_id(id,title)", "projects", "id", PROJECT_FILTERS),
            many("projects!assignments(id)", "projects", "id", PROJECT_FILTERS),
        ],
    },
    Table {
        path: "/senior_staff",
        weight: 3,
        key: "staff_id",
        columns: &["name", "department_id", "manager_id", "hired"],
        filters: &[("hired", &["lt.2014-01-01", "gt.2016-01-01"]), ("department_id", &["eq.1", "is.null"])],
        orders: &["name.desc", "hired"],
        embeds: &[
            one("departments(name)", "departments", &[("name", "like.*e*")]).by("departments(name)"),
            many("assignments(project_id)", "assignments", "project_id", &[("role", "eq.qa")]),
            many("senior_staff!manager_id(staff_id)", "senior_staff", "staff_id", &[]),
            many("senior_staff(staff_id)", "senior_staff", "staff_id", &[]),
            spread("...departments(dept:name)"),
        ],
    },
    Table {
        path: "/project_overview",
        weight: 4,
        key: "id",
        columns: &["title", "status", "lead_id", "dept_id", "dept_name", "floor", "d:dept_name"],
        filters: &[
            ("dept_name", &["eq.Engineering", "like.*e*"]),
            ("status", &["eq.active", "in.(planned,paused)"]),
            ("floor", &["gt.2", "is.null"]),
            ("lead_id", &["is.null", "lt.10"]),
        ],
        orders: &["dept_name", "status.desc", "floor.nullsfirst"],
        embeds: &[
            one("lead:employees!lead_id(name)", "lead", EMPLOYEE_FILTERS).by("lead(name)"),
            one("employees!projects_lead_id_fkey(name)", "employees", EMPLOYEE_FILTERS),
            many("assignments(employee_id,hours)", "assignments", "employee_id", &[("hours", "gt.20")]),
            many("events(id)", "events", "id", &[]),
            many("employees!employees_department_id_fkey(id)", "employees", "id", &[("active", "is.false")]),
            many("employees!assignments(id,name)", "employees", "id", EMPLOYEE_FILTERS),
            spread("...employees!lead_id(lead_name:name)"),
        ],
    },
    Table {
        path: "/project_leads",
        weight: 4,
        key: "id",
        columns: &["title", "lead_id", "lead_ref", "r:lead_ref"],
        filters: &[("lead_id", &["is.null", "lt.10"]), ("lead_ref", &["eq.8", "gt.30"])],
        orders: &["lead_ref.nullsfirst", "title"],
        embeds: &[
            one("employees!lead_ref(name)", "employees", EMPLOYEE_FILTERS).by("employees(name)"),
            one("employees!lead_id(name)", "employees", EMPLOYEE_FILTERS),
            one("lead:employees!lead_id(name)", "lead", EMPLOYEE_FILTERS),
            one("ref:employees!lead_ref(id,name)", "ref", EMPLOYEE_FILTERS),
            many("assignments(employee_id,hours)", "assignments", "employee_id", &[]),
            spread("...employees!lead_ref(ref_name:name)"),
        ],
    },
    Table {
        path: "/salaries",
        weight: 4,
        key: "id",
        columns: &["employee_id", "year", "amount", "amount::text", "y:year"],
        filters: &[
            ("year", &["eq.2021", "in.(2020,2022)", "gt.2021"]),
            ("amount", &["gt.50000", "lt.30000"]),
            ("employee_id", &["eq.3", "lt.5"]),
        ],
        orders: &["amount.desc", "year", "employee_id.desc"],
        embeds: &[
            one("employees(name)", "employees", EMPLOYEE_FILTERS).by("employees(name)"),
            one("employees!inner(name)", "employees", EMPLOYEE_FILTERS),
            spread("...employees(who:name)"),
            one("employees(name,departments(name))", "employees", &[]),
        ],
    },
    Table {
        path: "/department_stats",
        weight: 2,
        key: "department_id",
        columns: &["name", "headcount", "payroll", "payroll::text"],
        filters: &[("headcount", &["gt.5", "eq.0"]), ("payroll", &["gt.300000", "eq.0"])],
        orders: &["headcount.desc", "payroll", "name"],
        embeds: &[
            many("projects(id,title)", "projects", "id", PROJECT_FILTERS),
            many("employees(id,name)", "employees", "id", EMPLOYEE_FILTERS),
            many("staff(staff_id)", "staff", "staff_id", &[("active", "is.false")]),
            many("projects!inner(id)", "projects", "id", PROJECT_FILTERS),
        ],
    },
];

/// One condition of a logic tree (`column.op.value`), from `filters`; values
/// with commas or parentheses would need quoting there and are left out.
fn logic_leaf(rng: &mut Rng, filters: &[(&'static str, &'static [&'static str])], key: &str) -> String {
    for _ in 0..20 {
        let (column, operations) = rng.pick(filters);
        let operation = rng.pick(operations);
        if !operation.contains(['(', ')', ',', '[', '{', '"'])
            || operation.starts_with("in.(") && !operation.contains('"')
        {
            let not = if rng.chance(15) { "not." } else { "" };
            return format!("{column}.{not}{operation}");
        }
    }
    format!("{key}.gte.0")
}

fn logic_tree(rng: &mut Rng, table: &Table, depth: usize) -> String {
    let key = table.key.split(',').next().unwrap_or("id");
    let n = 1 + rng.below(3);
    let items: Vec<String> = (0..n)
        .map(|_| {
            if depth < 2 && rng.chance(25) {
                let not = if rng.chance(20) { "not." } else { "" };
                format!("{not}{}({})", rng.pick(&["and", "or"]), logic_tree(rng, table, depth + 1))
            } else {
                logic_leaf(rng, table.filters, key)
            }
        })
        .collect();
    items.join(",")
}

/// `a,b` as `a.desc,b.desc`.
fn descending(order: &str) -> String {
    order.split(',').map(|k| format!("{k}.desc")).collect::<Vec<_>>().join(",")
}

fn range(rng: &mut Rng, q: &mut Query) {
    if rng.chance(35) {
        q.add("limit", rng.pick(&["0", "1", "2", "3", "5", "10", "25"]));
    }
    if rng.chance(25) {
        q.add("offset", rng.pick(&["0", "1", "2", "4", "9", "30"]));
    }
}

fn who(rng: &mut Rng) -> Who {
    match rng.below(100) {
        0..80 => Who::Anon,
        80..92 => Who::User,
        _ => Who::Service,
    }
}

fn read_headers(rng: &mut Rng, ordered: bool) -> Vec<(&'static str, String)> {
    let mut headers = vec![("accept-profile", "public".to_owned())];
    if rng.chance(30) {
        headers.push(("prefer", "count=exact".to_owned()));
    }
    match rng.below(50) {
        0 | 1 => headers.push(("accept", "application/vnd.pgrst.object+json".to_owned())),
        2 if ordered => headers.push(("accept", "text/csv".to_owned())),
        3 => headers.push(("accept", "application/vnd.pgrst.array+json;nulls=stripped".to_owned())),
        4 => headers.push(("accept", "application/json".to_owned())),
        _ => {}
    }
    headers
}

fn table_read(rng: &mut Rng, table: &Table) -> Request {
    let mut q = Query::default();
    let mut ordered = true;
    let first_key = table.key.split(',').next().unwrap_or("id");

    let mut items: Vec<String> = Vec::new();
    match rng.below(10) {
        0 => items.push("*".into()),
        1 => {} // no select: every column
        _ => {
            items.push(first_key.to_owned());
            for _ in 0..1 + rng.below(4) {
                let column = rng.pick(table.columns);
                if !items.iter().any(|i| i == column) {
                    items.push(column.to_owned());
                }
            }
        }
    }
    let mut embeds: Vec<Embed> = Vec::new();
    if !table.embeds.is_empty() && rng.chance(65) {
        for _ in 0..1 + usize::from(rng.chance(30)) {
            let embed = rng.pick(table.embeds);
            if !embeds.iter().any(|e| e.subquery() == embed.subquery()) {
                embeds.push(embed);
            }
        }
    }
    if items.is_empty() && !embeds.is_empty() {
        items.push("*".into());
    }
    items.extend(embeds.iter().map(|e| e.item.to_owned()));
    if !items.is_empty() {
        q.add("select", &items.join(","));
    }

    for _ in 0..rng.below(3) {
        let (column, operations) = rng.pick(table.filters);
        let not = if rng.chance(12) { "not." } else { "" };
        q.add(column, &format!("{not}{}", rng.pick(operations)));
    }
    if rng.chance(15) {
        let key = rng.pick(&["or", "and", "not.or", "not.and"]);
        q.add(key, &format!("({})", logic_tree(rng, table, 0)));
    }

    for embed in embeds.iter().filter(|e| !e.name.is_empty()) {
        if !embed.filters.is_empty() && rng.chance(35) {
            let (column, operation) = rng.pick(embed.filters);
            let not = if rng.chance(10) { "not." } else { "" };
            q.add(&format!("{}.{column}", embed.name), &format!("{not}{operation}"));
        }
        if embed.filters.len() >= 2 && rng.chance(6) {
            let (a, x) = embed.filters[0];
            let (b, y) = embed.filters[1];
            q.add(&format!("{}.or", embed.name), &format!("({a}.{x},{b}.{y})"));
        }
        if rng.chance(8) {
            q.add(embed.name, rng.pick(&["is.null", "not.is.null"]));
        }
        if !embed.order.is_empty() {
            if rng.chance(75) {
                let order = if rng.chance(50) { embed.order.to_owned() } else { descending(embed.order) };
                q.add(&format!("{}.order", embed.name), &order);
                if rng.chance(25) {
                    q.add(&format!("{}.limit", embed.name), rng.pick(&["1", "2", "3"]));
                    if rng.chance(40) {
                        q.add(&format!("{}.offset", embed.name), rng.pick(&["1", "2"]));
                    }
                }
            } else {
                ordered = false;
            }
        }
    }

    if rng.chance(92) {
        let mut keys: Vec<String> = Vec::new();
        for _ in 0..rng.below(3) {
            keys.push(rng.pick(table.orders).to_owned());
        }
        if let Some(embed) = embeds.iter().find(|e| !e.sort.is_empty())
            && rng.chance(35)
        {
            keys.push(if rng.chance(50) { embed.sort.to_owned() } else { format!("{}.desc", embed.sort) });
        }
        keys.push(if rng.chance(30) { descending(table.key) } else { table.key.to_owned() });
        q.add("order", &keys.join(","));
        range(rng, &mut q);
    } else {
        ordered = false;
    }

    let headers = read_headers(rng, ordered);
    let method = if rng.chance(6) { Method::HEAD } else { Method::GET };
    let query = q.encode();
    let path = if query.is_empty() { table.path.to_owned() } else { format!("{}?{query}", table.path) };
    Request { method, path, headers, body: None, who: who(rng), ordered }
}

/// One generated read of the catalog.
pub fn read(rng: &mut Rng) -> Request {
    let total: usize = TABLES.iter().map(|t| t.weight).sum();
    let mut n = rng.below(total);
    for table in TABLES {
        if n < table.weight {
            return table_read(rng, table);
        }
        n -= table.weight;
    }
    unreachable!("weights add up")
}

/// Every relationship kind of the fixture, as fixed paths (each asked by anon,
/// and by a signed-in user with `count=exact`), kept apart from the seeded
/// stream so that adding some leaves the generated requests as they were.
pub fn shapes() -> Vec<Request> {
    let paths = [
        // Self-reference: the column names the parent, the table the children.
        "/employees?select=id,manager_id(id,name)&order=id",
        "/employees?select=id,employees(id)&employees.order=id&order=id",
        "/employees?select=id,reports:employees!manager_id(id)&reports.order=id&order=id",
        "/employees?select=id,manager_id(name,manager_id(name,manager_id(name)))&order=id",
        "/employees?select=id,employees!inner(id)&employees.order=id&order=id",
        "/employees?select=id,employees(id,employees(id))&employees.order=id&employees.employees.order=id&order=id",
        "/employees?select=id,...manager_id(boss:name)&order=id",
        "/employees?select=id,manager_id!inner(name)&manager_id.name=like.A*&order=id",
        "/employees?select=id,manager_id(name)&order=manager_id(name).desc.nullslast,id",
        "/employees?select=id,employees()&employees=not.is.null&order=id",
        "/employees?select=id,employees(count)&order=id",
        // Two foreign keys to one table: the same table twice, under two aliases.
        "/projects?select=id,lead:employees!lead_id(name),reviewer:employees!reviewer_id(name)&order=id",
        "/projects?select=id,lead:employees!projects_lead_id_fkey(name),reviewer:employees!projects_reviewer_id_fkey(name)&order=id",
        "/projects?select=id,lead:employees!lead_id!inner(name),reviewer:employees!reviewer_id!left(name)&order=id",
        "/projects?select=id,lead:employees!lead_id(name)&lead.active=is.true&lead=not.is.null&order=id",
        "/projects?select=id,lead_id(name),reviewer_id(name)&order=id",
        "/projects?select=id,...employees!lead_id(lead:name),...employees!reviewer_id(reviewer:name)&order=id",
        "/employees?select=id,led:projects!lead_id(id),reviewing:projects!reviewer_id(id)&led.order=id&reviewing.order=id&order=id",
        "/employees?select=id,projects!projects_reviewer_id_fkey(id)&projects.order=id&order=id",
        // One-to-one.
        "/employees?select=id,desks(label)&order=id",
        "/desks?select=id,employees(name)&order=id",
        "/desks?select=id,employees!inner(name)&order=id",
        "/desks?select=id,...employees(name)&order=id",
        "/employees?select=id,desks!inner(label)&desks.standing=is.true&order=id",
        // Composite keys.
        "/desks?select=id,offices(name)&order=id",
        "/offices?select=country,city,desks(id)&desks.order=id&order=country,city",
        "/offices?select=country,city,desks!inner(id)&desks.id=gt.30&order=country,city",
        "/employees?select=id,desks(label,offices(name,opened))&order=id",
        "/offices?select=*,desks(id,employees(name,departments(name)))&desks.order=id&order=country.desc,city",
        "/desks?select=id,...offices(office:name,opened)&order=id",
        "/desks?select=id,offices(name)&order=offices(name),id",
        // Many-to-many.
        "/employees?select=id,projects!assignments(id)&projects.order=id&order=id",
        "/projects?select=id,employees!assignments(id)&employees.order=id&order=id",
        "/projects?select=id,team:employees!assignments(id)&team.order=id.desc&team.limit=2&order=id",
        "/projects?select=id,employees!assignments!inner(id)&employees.id=lt.5&employees.order=id&order=id",
        "/projects?select=id,employees!assignments(count)&order=id",
        "/cat%C3%A1logo?select=id,autores(id,nombre)&autores.order=id&order=id",
        "/cat%C3%A1logo?select=id,autores!autor%C3%ADa(id)&autores.order=id&order=id",
        "/autores?select=id,cat%C3%A1logo(id,t%C3%ADtulo)&cat%C3%A1logo.order=id&order=id",
        "/autores?select=id,cat%C3%A1logo!inner(id)&cat%C3%A1logo.a%C3%B1o=gt.1990&cat%C3%A1logo.order=id&order=id",
        "/autores?select=id,cat%C3%A1logo()&cat%C3%A1logo.categor%C3%ADa=eq.novela&cat%C3%A1logo=not.is.null&order=id",
        "/employees?select=id,assignments(hours,projects(title))&assignments.order=project_id&order=id",
        // Views: renamed key, join, view of a view, a column twice, the private table.
        "/staff?select=staff_id,departments(name)&order=staff_id",
        "/staff?select=staff_id,manager_id(name)&order=staff_id",
        "/staff?select=staff_id,staff(staff_id)&staff.order=staff_id&order=staff_id",
        "/staff?select=staff_id,assignments(project_id)&assignments.order=project_id&order=staff_id",
        "/staff?select=staff_id,salaries(year)&salaries.order=id&order=staff_id",
        "/departments?select=id,staff(staff_id,name)&staff.order=staff_id&order=id",
        "/departments?select=id,senior_staff(staff_id)&senior_staff.order=staff_id&order=id",
        "/departments?select=id,staff!inner(staff_id)&staff.salary=gt.60000&staff.order=staff_id&order=id",
        "/senior_staff?select=staff_id,departments(name)&order=staff_id",
        "/senior_staff?select=staff_id,manager_id(name)&order=staff_id",
        "/senior_staff?select=staff_id,senior_staff(staff_id)&senior_staff.order=staff_id&order=staff_id",
        "/project_overview?select=id,lead:employees!lead_id(name)&order=id",
        "/project_overview?select=id,assignments(employee_id)&assignments.order=employee_id&order=id",
        "/project_overview?select=id,employees!employees_department_id_fkey(id)&employees.order=id&order=id",
        "/project_leads?select=id,employees!lead_ref(name)&order=id",
        "/project_leads?select=id,a:employees!lead_id(name),b:employees!lead_ref(name)&order=id",
        "/employees?select=id,project_leads!lead_id(id)&project_leads.order=id&order=id",
        "/employees?select=id,project_leads!lead_ref(id)&project_leads.order=id&order=id",
        "/salaries?select=id,employees(name)&order=id",
        "/employees?select=id,salaries(year,amount)&salaries.order=id&order=id",
        "/employees?select=id,salaries!inner(year)&salaries.amount=gt.80000&salaries.order=id&order=id",
        "/salaries?select=id,...employees(name)&order=id",
        "/department_stats?select=*&order=department_id",
        "/department_stats?select=department_id,headcount&headcount=gt.5&order=headcount.desc,department_id",
        "/department_stats?select=department_id,projects(id)&projects.order=id&order=department_id",
        "/department_stats?select=department_id,employees(id),staff(staff_id)&employees.order=id&staff.order=staff_id&order=department_id",
        // A partitioned table: foreign keys from it and to it.
        "/events?select=id,employees(name),projects(title)&order=id",
        "/employees?select=id,events(id,kind)&events.order=id&order=id",
        "/events?select=id,event_reviews(id)&event_reviews.order=id&order=id",
        "/event_reviews?select=id,events(id,occurred,kind)&order=id",
        "/event_reviews?select=id,events!inner(kind)&events.kind=eq.review&order=id",
        "/events?select=id,event_reviews!inner(verdict)&event_reviews.order=id&order=id",
        "/events_2023?select=id,kind&order=id",
        "/events_2024?select=*&order=id",
        "/events_2023?select=id,employees(name)&order=id",
        "/projects?select=id,events(id)&events.order=id&order=id",
        // Computed fields and relationships.
        "/employees?select=id,display_name,tenure,is_senior&order=id",
        "/employees?select=id&tenure=gt.10&is_senior=is.true&order=tenure.desc,id",
        "/employees?select=id,display_name&display_name=like.*Núñez*&order=display_name",
        "/employees?select=id,boss(name),direct_reports(id)&direct_reports.order=id&order=id",
        "/employees?select=id,boss!inner(name)&boss.name=like.A*&order=id",
        "/employees?select=id,...boss(boss:name)&order=id",
        "/employees?select=id,led_projects(id,span)&led_projects.order=id&order=id",
        "/employees?select=id,led_projects!inner(id)&led_projects.status=eq.active&led_projects.order=id&order=id",
        "/departments?select=id,top_earner(name,tenure)&order=id",
        "/departments?select=id,...top_earner(top:name)&order=id",
        "/departments?select=id,department_projects(id)&department_projects.order=id&order=id",
        "/departments?select=id,top_earner(name)&order=top_earner(name).desc.nullslast,id",
        "/staff?select=staff_id,initials&initials=like.A*&order=initials,staff_id",
        "/projects?select=id,span&span=gt.5&order=span.desc,id",
        "/projects?select=id,span,lead:employees!lead_id(display_name,tenure)&order=id",
        "/employees?select=id,boss(name,boss(name,boss(name)))&order=id",
        "/cat%C3%A1logo?select=id,antig%C3%BCedad&order=antig%C3%BCedad.desc.nullslast,id",
        "/cat%C3%A1logo?select=id&antig%C3%BCedad=gt.50&order=id",
        // Accented and quoted identifiers.
        "/cat%C3%A1logo?select=id,t%C3%ADtulo,a%C3%B1o,categor%C3%ADa,%22Precio%20Unitario%22,SKU&order=id",
        "/cat%C3%A1logo?select=*&order=id",
        "/cat%C3%A1logo?select=id,precio:%22Precio%20Unitario%22&%22Precio%20Unitario%22=gt.20&order=%22Precio%20Unitario%22.desc,id",
        "/cat%C3%A1logo?select=id,SKU&SKU=like.SKU-0*&order=SKU",
        "/cat%C3%A1logo?select=id,categor%C3%ADa&categor%C3%ADa=eq.poes%C3%ADa&order=id",
        "/cat%C3%A1logo?select=id,g:datos->>g%C3%A9nero,datos->p%C3%A1ginas&datos->>g%C3%A9nero=eq.ficci%C3%B3n&order=id",
        "/cat%C3%A1logo?select=id,editoriales(nombre,pa%C3%ADs)&editoriales.pa%C3%ADs=eq.Espa%C3%B1a&order=id",
        "/cat%C3%A1logo?select=id,autor%C3%ADa(autor_id)&autor%C3%ADa.order=autor_id&order=id",
        "/autor%C3%ADa?select=*&order=autor_id,cat%C3%A1logo_id",
        "/autor%C3%ADa?select=autor_id,cat%C3%A1logo_id,cat%C3%A1logo(t%C3%ADtulo)&order=autor_id,cat%C3%A1logo_id",
        "/autores?select=id,a%C3%B1oNacimiento&a%C3%B1oNacimiento=gt.1930&order=a%C3%B1oNacimiento.desc,id",
        "/cat%C3%A1logo?select=id&or=(a%C3%B1o.gt.2000,categor%C3%ADa.eq.poes%C3%ADa)&order=id",
        "/cat%C3%A1logo?select=id&or=(%22Precio%20Unitario%22.gt.40,a%C3%B1o.is.null)&order=id",
        "/cat%C3%A1logo?select=id,\"Precio Unitario\"&order=id",
        "/cat%C3%A1logo?select=id,t%C3%ADtulo&t%C3%ADtulo=fts(simple).a%C3%B1os&order=id",
        // Enums, ranges, arrays, jsonb.
        "/projects?select=id,status&status=gt.active&order=status,id",
        "/projects?select=id,weeks&weeks=adj.[12,15)&order=id",
        "/projects?select=id,weeks&weeks=not.sl.[10,20)&order=id",
        "/projects?select=id,tags&tags=ov.{urgent,research}&order=id",
        "/employees?select=id,profile->address&profile->address->>city=eq.C%C3%B3rdoba&order=id",
        "/employees?select=id,skills&skills=cs.{%22public%20speaking%22}&order=id",
        "/events?select=id,detail->tags&detail->tags->>0=eq.t1&order=id",
        // One table embedded twice, once under an alias: whose are `desks.x`?
        "/offices?select=country,city,seats:desks(id),desks(id)&desks.order=id.desc&order=country,city",
        "/offices?select=country,city,seats:desks(id),desks(id)&desks.id=gt.20&desks.order=id&seats.order=id&order=country,city",
        "/offices?select=country,city,desks(id),seats:desks(id)&desks.order=id.desc&seats.order=id&order=country,city",
    ];
    let mut requests = fixed_reads(&paths, &[(Who::Anon, false), (Who::User, true)]);
    // CSV, whose columns come in an order, with embeds of both kinds.
    let csv = [
        "/employees?select=id,desks(label),assignments(hours)&assignments.order=project_id&id=lt.4&order=id",
        "/employees?select=id,assignments(hours),desks(label)&desks.label=like.D-2*&assignments.order=project_id&id=lt.4&order=id",
        "/employees?select=id,desks(label),departments(name),name&departments.name=eq.Legal&id=lt.4&order=id",
        "/cat%C3%A1logo?select=id,t%C3%ADtulo,%22Precio%20Unitario%22,editoriales(nombre)&id=lt.4&order=id",
    ];
    for mut request in fixed_reads(&csv, &[(Who::Anon, false)]) {
        request.headers.push(("accept", "text/csv".to_owned()));
        requests.push(request);
    }
    requests
}

/// Requests that must fail, and fail alike: ambiguous embeds (PGRST201),
/// missing relationships (PGRST200), unknown columns and functions.
pub fn failures() -> Vec<Request> {
    let paths = [
        // Ambiguous.
        "/projects?select=id,employees(name)",
        "/employees?select=id,projects(title)",
        "/project_leads?select=id,employees(name)",
        "/project_leads?select=id,employees!projects_lead_id_fkey(name)",
        "/staff?select=staff_id,employees(name)",
        "/employees?select=id,staff(name)",
        "/employees?select=id,project_overview(title)",
        "/project_overview?select=id,employees(name)",
        "/employees?select=id,employees!employees_manager_id_fkey(name)",
        "/staff?select=staff_id,employees!manager_id(name)",
        "/staff?select=staff_id,staff!employees_manager_id_fkey(name)",
        "/senior_staff?select=staff_id,manager_id(name)",
        // Missing.
        "/departments?select=id,offices(name)",
        "/department_stats?select=*,departments(code)",
        "/departments?select=id,department_stats(headcount)",
        "/departments?select=id,project_overview(title)",
        "/employees?select=id,nope(name)",
        "/employees?select=id,departments!nope(name)",
        "/employees?select=id,employees!id(name)",
        "/editoriales?select=id,autores(nombre)",
        "/autores?select=id,cat%C3%A1logo!nope(t%C3%ADtulo)",
        "/salaries?select=id,departments(name)",
        "/employees?select=id,salary_history(amount)",
        "/private.salary_history",
        "/salary_history",
        "/events_2024?select=id,event_reviews(id)",
        // Unknown columns, computed fields and the like.
        "/employees?select=id,nope",
        "/employees?select=id&nope=eq.1",
        "/employees?select=id&order=nope",
        "/staff?select=id",
        "/staff?select=staff_id&id=eq.1",
        "/cat%C3%A1logo?select=titulo",
        "/cat%C3%A1logo?select=Precio%20Unitario",
        "/cat%C3%A1logo?select=id&sku=eq.x",
        "/cat%C3%A1logo?select=id,antig%C3%BCedad(a)",
        "/employees?select=id,display_name(name)",
        "/employees?select=id,departments(nope)",
        "/employees?select=id,departments(name)&departments.nope=eq.1",
        "/employees?select=id,...employees(name)",
        "/employees?select=id,...projects!assignments(title)",
        "/employees?select=id,...direct_reports(name)",
        "/employees?select=id&salary=gt.abc",
        "/employees?select=id&hired=gt.yesterday",
        "/projects?select=id&status=eq.cancelled",
        "/projects?select=id&weeks=ov.3",
        "/employees?select=id,tenure&tenure=eq.x",
        "/employees?select=id&profile->level=gt.x",
        "/employees?select=id,employees(id)&order=employees(id)",
        "/projects?select=id,lead:employees!lead_id(name),lead:employees!reviewer_id(name)&order=id",
        "/salaries?select=id,...employees(who:name),employees(name)&order=id",
        "/assignments?select=employee_id,project_id,projects(title),...projects(project:title)&order=employee_id,project_id",
        "/departments?select=id,name::varchar(3)&order=id",
    ];
    fixed_reads(&paths, &[(Who::Anon, false)])
}
