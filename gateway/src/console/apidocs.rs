//! `GET /_/api/api-docs`: per table and per function of the exposed
//! schemas, the supabase-js calls that use it, with the project's URL and
//! publishable key, as Studio's API page shows them
//! (<https://supabase.com/docs/guides/api#api-url-and-keys>, the page under
//! `apps/studio/components/interfaces/Docs`).
//!
//! It is made from what `/rest/v1/` serves: the REST schema cache gives the
//! tables, their columns in order and the functions, and the OpenAPI
//! document (`gateway_rest::openapi`) gives each column's type, whether an
//! insert must name it, and which tables take writes (a view the document
//! gives no `post` takes none). The operator sees every table and function,
//! not only those a role may use.

use axum::{
    Json,
    extract::State,
    http::{HeaderMap, header},
};
use gateway_rest::schema::{SchemaCache, Table};
use serde_json::{Value, json};

use super::{ConsoleError, access::Operator};
use crate::AppState;

/// `{url, key, schemas: [{schema, tables: [...], functions: [...]}]}`:
/// `key` is the publishable key (null when there is none), each table has
/// its `columns` and `calls`, each function its `arguments` and `call`.
pub async fn list(
    State(state): State<AppState>,
    _operator: Operator,
    headers: HeaderMap,
) -> Result<Json<Value>, ConsoleError> {
    let cache = state.schema.get(&state.db).await?;
    let automatic = automatic_columns(&state).await?;
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let url = project_url(state.config.frontend.public_url.as_deref(), host);
    let key = state.credentials.api_keys.publishable();
    let schemas: Vec<Value> = state
        .config
        .rest
        .db_schemas
        .iter()
        .map(|schema| describe(&cache, schema, host, &automatic))
        .collect();
    let setup = client_setup(&url, key.as_deref());
    Ok(Json(json!({ "url": url, "key": key, "setup": setup, "schemas": schemas })))
}

/// Identity and generated columns, by schema, table and column: an insert
/// leaves them out, though they are not null and have no default (which the
/// schema cache does not tell apart).
type Automatic = std::collections::HashSet<(String, String, String)>;

async fn automatic_columns(state: &AppState) -> Result<Automatic, ConsoleError> {
    let owner = state.db.as_schema_owner(std::time::Duration::from_secs(15)).await?;
    let rows = owner
        .client()
        .query(
            "select n.nspname::text, c.relname::text, a.attname::text
             from pg_attribute a
             join pg_class c on c.oid = a.attrelid
             join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = any($1) and a.attnum > 0 and not a.attisdropped
               and (a.attidentity <> '' or a.attgenerated <> '')",
            &[&state.config.rest.db_schemas],
        )
        .await
        .map_err(ConsoleError::internal)?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1), row.get(2))).collect())
}

/// The URL supabase-js is given: `--public-url`, or the address the
/// operator reached the console at (the gateway serves both).
fn project_url(public_url: Option<&str>, host: Option<&str>) -> String {
    match public_url.filter(|url| !url.is_empty()) {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => format!("http://{}", host.unwrap_or("localhost:54321")),
    }
}

/// One schema's tables and functions.
fn describe(cache: &SchemaCache, schema: &str, host: Option<&str>, automatic: &Automatic) -> Value {
    let mut tables: Vec<&Table> = cache.tables.values().filter(|t| t.name.schema == schema).collect();
    tables.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    let mut functions: Vec<&gateway_rest::schema::Function> =
        cache.functions.values().flatten().filter(|f| f.name.schema == schema && f.rpc_callable()).collect();
    functions.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    let visible: Vec<String> = tables
        .iter()
        .map(|t| t.name.name.clone())
        .chain(functions.iter().map(|f| format!("rpc/{}", f.name.name)))
        .collect();
    let document = gateway_rest::openapi::document(cache, schema, &visible, host);
    let client = Client { schema, automatic };
    let tables: Vec<Value> = tables.iter().map(|table| table_docs(&client, &document, table)).collect();
    let mut seen = std::collections::BTreeSet::new();
    let functions: Vec<Value> = functions
        .iter()
        .filter(|f| seen.insert(f.name.name.clone()))
        .map(|function| function_docs(&client, &document, &function.name.name))
        .collect();
    json!({ "schema": schema, "tables": tables, "functions": functions })
}

fn table_docs(client: &Client<'_>, document: &Value, table: &Table) -> Value {
    let automatic = |column: &str| client.is_automatic(table, column);
    let name = &table.name.name;
    let definition = &document["definitions"][name];
    let required: Vec<&str> =
        definition["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let columns: Vec<Value> = table
        .columns
        .iter()
        .map(|column| {
            let property = &definition["properties"][&column.name];
            json!({
                "name": column.name,
                "type": property["format"].as_str().unwrap_or(&column.data_type),
                "jsonType": property["type"],
                "required": required.contains(&column.name.as_str()) && !automatic(&column.name),
                "primaryKey": table.primary_key.contains(&column.name),
                "default": column.default,
            })
        })
        .collect();
    let writable = document["paths"][format!("/{name}")].get("post").is_some();
    json!({
        "name": name,
        "view": table.is_view,
        "writable": writable,
        "columns": columns,
        "calls": client.table_calls(table, writable),
    })
}

fn function_docs(client: &Client<'_>, document: &Value, name: &str) -> Value {
    let body = &document["paths"][format!("/rpc/{name}")]["post"]["parameters"][0]["schema"];
    let required: Vec<&str> =
        body["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let arguments: Vec<(String, String, String)> = body["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(argument, property)| {
            let text = |key: &str| property[key].as_str().unwrap_or_default().to_owned();
            (argument.clone(), text("format"), text("type"))
        })
        .collect();
    json!({
        "name": name,
        "arguments": arguments.iter().map(|(argument, format, _)| json!({
            "name": argument, "type": format, "required": required.contains(&argument.as_str()),
        })).collect::<Vec<_>>(),
        "call": client.rpc(name, &arguments),
    })
}

/// `createClient` with the project's URL and key, as Studio's
/// "Initializing" section shows it.
fn client_setup(url: &str, key: Option<&str>) -> String {
    let key = key.map_or_else(|| "process.env.SUPABASE_KEY".to_owned(), js);
    format!(
        "import {{ createClient }} from '@supabase/supabase-js'\n\n\
         const supabaseUrl = {}\n\
         const supabaseKey = {key}\n\
         const supabase = createClient(supabaseUrl, supabaseKey)\n",
        js(url)
    )
}

/// Writes the calls of one schema: outside `public`, each starts with
/// `.schema(...)`, as supabase-js wants (the schema must be exposed).
struct Client<'a> {
    schema: &'a str,
    automatic: &'a Automatic,
}

impl Client<'_> {
    fn is_automatic(&self, table: &Table, column: &str) -> bool {
        self.automatic.contains(&(table.name.schema.clone(), table.name.name.clone(), column.to_owned()))
    }

    /// `supabase` or `supabase.schema('x')`.
    fn root(&self) -> String {
        if self.schema == "public" {
            "supabase".to_owned()
        } else {
            format!("supabase.schema({})", js(self.schema))
        }
    }

    /// Studio's sections of a table: read (all, some columns, a page,
    /// filtered), insert, update, upsert, delete and subscribe. A view
    /// that takes no writes gets only the reads and the subscription.
    fn table_calls(&self, table: &Table, writable: bool) -> Vec<Value> {
        let name = js(&table.name.name);
        let from = format!("{}\n  .from({name})", self.root());
        let variable = identifier(&table.name.name);
        let key = table.primary_key.first().or_else(|| table.columns.first().map(|c| &c.name));
        let key_name = key.map_or_else(|| js("id"), |k| js(k));
        let key_value = key
            .and_then(|k| table.column(k))
            .map_or_else(|| "'someValue'".to_owned(), |c| example(&c.data_type));
        let some: Vec<&str> = table.columns.iter().take(2).map(|c| c.name.as_str()).collect();
        let fields: Vec<&gateway_rest::schema::Column> = table
            .columns
            .iter()
            .filter(|c| !self.is_automatic(table, &c.name))
            .filter(|c| c.default.is_none() || !table.primary_key.contains(&c.name))
            .take(2)
            .collect();
        let object = |columns: &[&gateway_rest::schema::Column]| {
            let pairs: Vec<String> = columns
                .iter()
                .map(|c| format!("{}: {}", property_name(&c.name), example(&c.data_type)))
                .collect();
            format!("{{ {} }}", pairs.join(", "))
        };
        let mut calls = vec![
            call("read", format!("let {{ data: {variable}, error }} = await {from}\n  .select('*')\n")),
            call(
                "readColumns",
                format!(
                    "let {{ data: {variable}, error }} = await {from}\n  .select({})\n",
                    js(&some.join(","))
                ),
            ),
            call(
                "readPage",
                format!("let {{ data: {variable}, error }} = await {from}\n  .select('*')\n  .range(0, 9)\n"),
            ),
            call(
                "filter",
                format!(
                    "let {{ data: {variable}, error }} = await {from}\n  .select('*')\n  .eq({key_name}, {key_value})\n"
                ),
            ),
        ];
        if writable {
            let row = object(&fields);
            let change = object(&fields[fields.len().saturating_sub(1)..]);
            calls.extend([
                call("insert", format!("const {{ data, error }} = await {from}\n  .insert([\n    {row},\n  ])\n  .select()\n")),
                call(
                    "update",
                    format!(
                        "const {{ data, error }} = await {from}\n  .update({change})\n  .eq({key_name}, {key_value})\n  .select()\n"
                    ),
                ),
                call("upsert", format!("const {{ data, error }} = await {from}\n  .upsert({row})\n  .select()\n")),
                call("delete", format!("const {{ error }} = await {from}\n  .delete()\n  .eq({key_name}, {key_value})\n")),
            ]);
        }
        calls.push(call(
            "subscribe",
            format!(
                "const channel = supabase\n  .channel({})\n  .on(\n    'postgres_changes',\n    \
                 {{ event: '*', schema: {}, table: {name} }},\n    \
                 (payload) => console.log('Change received!', payload),\n  )\n  .subscribe()\n",
                js(&format!("{}-changes", table.name.name)),
                js(self.schema),
            ),
        ));
        calls
    }

    /// `supabase.rpc(name, {args})` with an example value for each
    /// argument.
    fn rpc(&self, name: &str, arguments: &[(String, String, String)]) -> String {
        let named: Vec<&(String, String, String)> =
            arguments.iter().filter(|(a, _, _)| !a.is_empty()).collect();
        let args = if named.is_empty() {
            String::new()
        } else {
            let pairs: Vec<String> = named
                .iter()
                .map(|(a, format, _)| format!("{}: {}", property_name(a), example(format)))
                .collect();
            format!(", {{ {} }}", pairs.join(", "))
        };
        format!(
            "let {{ data, error }} = await {}\n  .rpc({}{args})\nif (error) console.error(error)\nelse console.log(data)\n",
            self.root(),
            js(name)
        )
    }
}

fn call(kind: &str, code: String) -> Value {
    json!({ "kind": kind, "code": code })
}

/// A JavaScript string literal in single quotes.
fn js(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('\'');
    for c in text.chars() {
        match c {
            '\\' => literal.push_str("\\\\"),
            '\'' => literal.push_str("\\'"),
            '\n' => literal.push_str("\\n"),
            '\r' => literal.push_str("\\r"),
            c if c.is_control() => literal.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => literal.push(c),
        }
    }
    literal.push('\'');
    literal
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A key of an object literal: bare when it can be, quoted otherwise.
fn property_name(name: &str) -> String {
    if is_identifier(name) { name.to_owned() } else { js(name) }
}

/// A variable named after a table, as Studio names its `data`.
fn identifier(name: &str) -> String {
    let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if is_identifier(&cleaned) { cleaned } else { format!("_{cleaned}") }
}

/// A value of a column's type to show in a call.
fn example(data_type: &str) -> String {
    if data_type.ends_with("[]") {
        return "[]".to_owned();
    }
    let base = data_type.split('(').next().unwrap_or(data_type).trim();
    match base {
        "smallint" | "integer" | "bigint" | "numeric" | "real" | "double precision" => "0".to_owned(),
        "boolean" => "true".to_owned(),
        "json" | "jsonb" => "{}".to_owned(),
        "uuid" => "'00000000-0000-0000-0000-000000000000'".to_owned(),
        _ => "'someValue'".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_become_javascript_literals() {
        let cases = [
            ("plain", "'plain'"),
            ("it's", "'it\\'s'"),
            ("a\\b", "'a\\\\b'"),
            ("two\nlines", "'two\\nlines'"),
        ];
        for (text, literal) in cases {
            assert_eq!(js(text), literal, "{text}");
        }
    }

    #[test]
    fn keys_are_bare_when_they_can_be() {
        let cases = [
            ("name", "name"),
            ("created_at", "created_at"),
            ("first name", "'first name'"),
            ("1st", "'1st'"),
        ];
        for (name, key) in cases {
            assert_eq!(property_name(name), key, "{name}");
        }
    }

    #[test]
    fn the_project_url_is_the_public_url_or_the_host_reached() {
        let cases = [
            (Some("https://api.shop.test/"), Some("console.test"), "https://api.shop.test"),
            (None, Some("127.0.0.1:54321"), "http://127.0.0.1:54321"),
            (Some(""), Some("a.test"), "http://a.test"),
        ];
        for (public_url, host, expected) in cases {
            assert_eq!(project_url(public_url, host), expected);
        }
    }
}
