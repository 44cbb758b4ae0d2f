//! The Go structs `supabase gen types go` prints, as postgres-meta's Go
//! template does (supabase/postgres-meta `src/server/templates/go.ts`): for
//! each table a `Select`, `Insert` and `Update` struct, for each view and
//! materialized view a `Select` struct, and a struct per composite type,
//! fields aligned as gofmt aligns them. Its quirks are kept: a composite
//! type's fields are mapped from `format_type`'s spelling (so `integer` falls
//! back to `interface{}`), and an array's type carries a trailing space.

use super::catalog::{Catalog, Column, PgType, Relation, RelationKind};
use super::collate::compare;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operation {
    Select,
    Insert,
    Update,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Select => "Select",
            Operation::Insert => "Insert",
            Operation::Update => "Update",
        }
    }
}

/// Prints the Go file of `catalog`.
pub fn render(catalog: &Catalog) -> String {
    let in_schemas = |schema: &str| catalog.schemas.iter().any(|s| s == schema);
    let mut columns: Vec<&Column> = catalog.columns.iter().collect();
    columns.sort_by(|a, b| compare(&a.name, &b.name));
    let columns = &columns;
    let structs = |kind: RelationKind, operations: &[Operation]| -> String {
        let mut relations: Vec<&Relation> =
            catalog.relations.iter().filter(|r| r.kind == kind && in_schemas(&r.schema)).collect();
        // postgres-meta's queries do not order relations; they come out by
        // schema and name, which is made the rule here.
        relations.sort_by(|a, b| compare(&a.schema, &b.schema).then_with(|| compare(&a.name, &b.name)));
        relations
            .into_iter()
            .flat_map(|r| operations.iter().map(move |op| table_struct(r, columns, &catalog.types, *op)))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let composites = catalog
        .types
        .iter()
        .filter(|t| !t.attributes.is_empty() && in_schemas(&t.schema))
        .map(|t| composite_struct(t, &catalog.types))
        .collect::<Vec<_>>()
        .join("\n\n");
    let output = format!(
        "\npackage database\n\n{}\n\n{}\n\n{}\n\n{}\n",
        structs(RelationKind::Table, &[Operation::Select, Operation::Insert, Operation::Update]),
        structs(RelationKind::View, &[Operation::Select]),
        structs(RelationKind::MaterializedView, &[Operation::Select]),
        composites
    );
    output.trim().to_owned()
}

fn table_struct(relation: &Relation, columns: &[&Column], types: &[PgType], operation: Operation) -> String {
    let fields = columns
        .iter()
        .filter(|c| c.table_id == relation.id)
        .map(|c| {
            let nullable = match operation {
                Operation::Insert => c.is_nullable || c.is_identity || c.has_default,
                Operation::Update => true,
                Operation::Select => c.is_nullable,
            };
            (type_name(&c.name), go_type(&c.format, nullable, types), c.name.clone())
        })
        .collect::<Vec<_>>();
    let name = format!("{}{}{}", type_name(&relation.schema), type_name(&relation.name), operation.name());
    struct_text(&name, &fields)
}

fn composite_struct(composite: &PgType, types: &[PgType]) -> String {
    let fields = composite
        .attributes
        .iter()
        .map(|a| {
            let format = types.iter().find(|t| t.id == a.type_id).map_or("", |t| t.format.as_str());
            (type_name(&a.name), go_type(format, false, &[]), a.name.clone())
        })
        .collect::<Vec<_>>();
    struct_text(&format!("{}{}", type_name(&composite.schema), type_name(&composite.name)), &fields)
}

/// `type Name struct { ... }` with names and types padded into columns.
fn struct_text(name: &str, fields: &[(String, String, String)]) -> String {
    let width = |s: &String| s.chars().count();
    let name_width = fields.iter().map(|f| width(&f.0)).max().unwrap_or(0);
    let type_width = fields.iter().map(|f| width(&f.1)).max().unwrap_or(0);
    let lines: Vec<String> = fields
        .iter()
        .map(|(field, ty, column)| format!("  {field:<name_width$} {ty:<type_width$} `json:\"{column}\"`"))
        .collect();
    format!("type {name} struct {{\n{}\n}}", lines.join("\n"))
}

/// PascalCase of the words of a PostgreSQL name: `pokemon_center` is
/// `PokemonCenter`.
fn type_name(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// postgres-meta's `pgTypeToGoType`.
fn go_type(pg_type: &str, nullable: bool, types: &[PgType]) -> String {
    let mapped = match pg_type {
        "bool" => Some("bool"),
        "int2" => Some("int16"),
        "int4" => Some("int32"),
        "int8" => Some("int64"),
        "float4" => Some("float32"),
        "float8" | "numeric" => Some("float64"),
        "bytea" => Some("[]byte"),
        "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz" | "timestamp"
        | "timestamptz" | "interval" | "uuid" | "vector" | "int4range" | "int4multirange" | "int8range"
        | "int8multirange" | "numrange" | "nummultirange" | "tsrange" | "tsmultirange" | "tstzrange"
        | "tstzmultirange" | "daterange" | "datemultirange" => Some("string"),
        "json" | "jsonb" | "void" => Some("interface{}"),
        "record" => Some("map[string]interface{}"),
        _ => None,
    };
    let is_enum = types.iter().any(|t| t.name == pg_type && !t.enums.is_empty());
    if let Some(go) = if is_enum { Some("string") } else { mapped } {
        return match (nullable, go) {
            (true, "string" | "bool" | "int16" | "int32" | "int64" | "float32" | "float64") => {
                format!("*{go}")
            }
            _ => go.to_owned(),
        };
    }
    if types.iter().any(|t| t.name == pg_type && !t.attributes.is_empty()) {
        return "map[string]interface{}".to_owned();
    }
    if let Some(element) = pg_type.strip_prefix('_') {
        return format!("[]{} ", go_type(element, nullable, types));
    }
    "interface{}".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_pascal_case_words() {
        for (name, expected) in [
            ("pokedex", "Pokedex"),
            ("pokemon_center", "PokemonCenter"),
            ("victory-road", "VictoryRoad"),
            ("a b", "AB"),
        ] {
            assert_eq!(type_name(name), expected);
        }
    }

    #[test]
    fn fields_line_up_in_columns() {
        let fields = [
            ("Id".to_owned(), "int64".to_owned(), "id".to_owned()),
            ("Username".to_owned(), "*string".to_owned(), "username".to_owned()),
        ];
        assert_eq!(
            struct_text("PublicUsersSelect", &fields),
            "type PublicUsersSelect struct {\n  Id       int64   `json:\"id\"`\n  Username *string `json:\"username\"`\n}"
        );
    }
}
