//! `GET /rest/v1/`: a Swagger 2.0 description of what the caller may use, as
//! PostgREST serves it (`src/library/PostgREST/Response/OpenAPI.hs`).

use serde_json::{Map, Value, json};

use super::schema::{Column, Function, SchemaCache, Table};

/// JSON Schema type of a PostgreSQL type, as PostgREST maps them.
fn json_type(data_type: &str) -> &'static str {
    if data_type.ends_with("[]") {
        return "array";
    }
    let base = data_type.split('(').next().unwrap_or(data_type).trim();
    match base {
        "smallint" | "integer" | "bigint" => "integer",
        "numeric" | "real" | "double precision" => "number",
        "boolean" => "boolean",
        "json" | "jsonb" => "object",
        _ => "string",
    }
}

fn property(column: &Column, primary_key: bool) -> Value {
    let mut property = Map::new();
    property.insert("format".to_owned(), json!(column.data_type));
    property.insert("type".to_owned(), json!(json_type(&column.data_type)));
    if column.data_type.ends_with("[]") {
        let item = column.data_type.trim_end_matches("[]");
        property.insert("items".to_owned(), json!({ "type": json_type(item) }));
    }
    if let Some(default) = &column.default {
        property.insert("default".to_owned(), json!(default));
    }
    if primary_key {
        property.insert("description".to_owned(), json!("Note:\nThis is a Primary Key.<pk/>"));
    }
    Value::Object(property)
}

fn definition(table: &Table) -> Value {
    let properties: Map<String, Value> = table
        .columns
        .iter()
        .map(|c| (c.name.clone(), property(c, table.primary_key.contains(&c.name))))
        .collect();
    let required: Vec<&str> = table
        .columns
        .iter()
        .filter(|c| !c.nullable && c.default.is_none())
        .map(|c| c.name.as_str())
        .collect();
    json!({ "type": "object", "required": required, "properties": properties })
}

fn table_paths(table: &Table) -> Value {
    let name = &table.name.name;
    let reference = json!({ "$ref": format!("#/definitions/{name}") });
    let ok = json!({ "200": { "description": "OK", "schema": { "type": "array", "items": reference } } });
    let tags = json!([name]);
    let mut operations = json!({
        "get": { "tags": tags, "parameters": [
            { "$ref": "#/parameters/select" }, { "$ref": "#/parameters/order" },
            { "$ref": "#/parameters/limit" }, { "$ref": "#/parameters/offset" },
            { "$ref": "#/parameters/preferCount" } ], "responses": ok },
    });
    if !table.is_view {
        operations["post"] = json!({ "tags": tags, "parameters": [
            { "in": "body", "name": name, "required": false, "schema": reference },
            { "$ref": "#/parameters/preferPost" } ],
            "responses": { "201": { "description": "Created" } } });
        operations["patch"] = json!({ "tags": tags, "parameters": [
            { "in": "body", "name": name, "required": false, "schema": reference },
            { "$ref": "#/parameters/preferReturn" } ],
            "responses": { "204": { "description": "No Content" } } });
        operations["delete"] = json!({ "tags": tags, "parameters": [ { "$ref": "#/parameters/preferReturn" } ],
            "responses": { "204": { "description": "No Content" } } });
    }
    operations
}

fn function_paths(function: &Function) -> Value {
    let properties: Map<String, Value> = function
        .arguments
        .iter()
        .map(|a| (a.name.clone(), json!({ "format": a.data_type, "type": json_type(&a.data_type) })))
        .collect();
    let required: Vec<&str> =
        function.arguments.iter().filter(|a| !a.has_default).map(|a| a.name.as_str()).collect();
    let tags = json!(["(rpc) ".to_owned() + &function.name.name]);
    json!({
        "post": { "tags": tags, "parameters": [ { "in": "body", "name": "args", "required": true,
            "schema": { "type": "object", "required": required, "properties": properties } } ],
            "responses": { "200": { "description": "OK" } } },
        "get": { "tags": tags, "responses": { "200": { "description": "OK" } } },
    })
}

/// The document for `schema`, listing only the tables and functions named in
/// `visible` (those the caller has privileges on).
pub fn document(cache: &SchemaCache, schema: &str, visible: &[String], host: Option<&str>) -> Value {
    let mut tables: Vec<&Table> =
        cache.tables.values().filter(|t| t.name.schema == schema && visible.contains(&t.name.name)).collect();
    tables.sort_by(|a, b| a.name.cmp(&b.name));
    let mut functions: Vec<&Function> = cache
        .functions
        .values()
        .flatten()
        .filter(|f| f.name.schema == schema && visible.contains(&format!("rpc/{}", f.name.name)))
        .collect();
    functions.sort_by(|a, b| a.name.cmp(&b.name));
    let mut paths = Map::new();
    paths.insert(
        "/".to_owned(),
        json!({ "get": { "tags": ["Introspection"], "summary": "OpenAPI description (this document)",
                         "produces": ["application/openapi+json", "application/json"],
                         "responses": { "200": { "description": "OK" } } } }),
    );
    for table in &tables {
        paths.insert(format!("/{}", table.name.name), table_paths(table));
    }
    for function in &functions {
        paths.insert(format!("/rpc/{}", function.name.name), function_paths(function));
    }
    let definitions: Map<String, Value> =
        tables.iter().map(|t| (t.name.name.clone(), definition(t))).collect();
    let media = ["application/json", "application/vnd.pgrst.object+json", "text/csv"];
    json!({
        "swagger": "2.0",
        "info": { "title": format!("standard {schema} schema"), "description": "", "version": env!("CARGO_PKG_VERSION") },
        "host": host.unwrap_or(""),
        "basePath": "/rest/v1",
        "schemes": ["http", "https"],
        "consumes": media,
        "produces": media,
        "paths": paths,
        "definitions": definitions,
        "parameters": {
            "select": { "name": "select", "description": "Filtering Columns", "required": false, "in": "query", "type": "string" },
            "order": { "name": "order", "description": "Ordering", "required": false, "in": "query", "type": "string" },
            "limit": { "name": "limit", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string" },
            "offset": { "name": "offset", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string" },
            "preferCount": { "name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["count=none"] },
            "preferReturn": { "name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none"] },
            "preferPost": { "name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"] },
        },
    })
}

/// Lists the tables (by name) and functions (as `rpc/<name>`) of `$1` that the
/// current role may select from or execute.
pub const VISIBLE: &str = "
    select c.relname::text as name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = $1 and c.relkind in ('r', 'v', 'm', 'f', 'p')
      and pg_catalog.has_table_privilege(c.oid, 'select')
    union all
    select 'rpc/' || p.proname::text
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    where n.nspname = $1 and p.prokind = 'f' and pg_catalog.has_function_privilege(p.oid, 'execute')";
