//! The `Database` type and its helpers, as postgres-meta's TypeScript
//! template prints them (supabase/postgres-meta
//! `src/server/templates/typescript.ts`), then Prettier with `semi: false`:
//! the same members in the same order, the same PostgreSQL-to-TypeScript
//! mapping, the same quirks. Types are built as a small tree ([`Ty`]) and laid
//! out by [`super::doc`] as Prettier lays out TypeScript.

use std::collections::HashMap;

use super::catalog::{
    ArgMode, Argument, Catalog, Column, ForeignKey, Function, PgType, Relation, RelationKind,
};
use super::collate::compare;
use super::doc::{Doc, align, broken_group, concat, group, if_break, indent, join, print, text};

/// The PostgREST version the file declares (`__InternalSupabase`), which
/// supabase-js reads to type the select language: this gateway speaks 13's.
const POSTGREST_VERSION: &str = "13";

/// postgres-meta's default schema, which the helper types index.
const DEFAULT_SCHEMA: &str = "public";

/// The helper types after `Database`, which depend on nothing but the
/// default schema.
const HELPER_TYPES: &str = include_str!("helper_types.txt");

const JSON_TYPE: &str = "export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]
";

/// json, jsonb and text: the one unnamed argument PostgREST can pass a body to.
const UNNAMED_ARGUMENT_TYPES: [i64; 3] = [114, 3802, 25];

/// A TypeScript type.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    /// A keyword or a reference, printed as it is.
    Raw(String),
    /// A string literal type.
    Str(String),
    Union(Vec<Ty>),
    Intersection(Vec<Ty>),
    Array(Box<Ty>),
    /// A type literal; `expanded` when the template opens it on its own
    /// line, which Prettier keeps.
    Object(Vec<Member>, bool),
    Tuple(Vec<Ty>),
    /// `{ [_ in never]: never }`, on three lines.
    Nothing,
}

#[derive(Clone, Debug, PartialEq)]
struct Member {
    key: String,
    optional: bool,
    ty: Ty,
}

fn raw(s: &str) -> Ty {
    Ty::Raw(s.to_owned())
}

fn member(key: &str, optional: bool, ty: Ty) -> Member {
    Member { key: key.to_owned(), optional, ty }
}

/// `a | b` as the template writes it, text after text: unions flatten.
fn union(types: Vec<Ty>) -> Ty {
    let mut flat = Vec::new();
    for ty in types {
        match ty {
            Ty::Union(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1 { flat.remove(0) } else { Ty::Union(flat) }
}

/// The template's `generateNullableUnionTsType`: `unknown` already holds null.
fn nullable(ty: Ty, is_nullable: bool) -> Ty {
    match ty {
        Ty::Raw(ref s) if s == "unknown" || s == "any" || !is_nullable => ty,
        _ if !is_nullable => ty,
        other => union(vec![other, raw("null")]),
    }
}

/// `${type}[]` appended to the text: it binds to the last member of a union
/// or intersection, as it does in the template's output.
fn suffix_array(ty: Ty) -> Ty {
    match ty {
        Ty::Union(mut types) => {
            let last = types.pop().map_or(Ty::Nothing, suffix_array);
            types.push(last);
            Ty::Union(types)
        }
        Ty::Intersection(mut types) => {
            let last = types.pop().map_or(Ty::Nothing, suffix_array);
            types.push(last);
            Ty::Intersection(types)
        }
        other => Ty::Array(Box::new(other)),
    }
}

/// A JavaScript string literal as Prettier prints it: double quotes unless
/// the text holds more double quotes than single ones.
fn quote(s: &str) -> String {
    let doubles = s.matches('"').count();
    let singles = s.matches('\'').count();
    let preferred = if doubles > singles { '\'' } else { '"' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(preferred);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c == preferred => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(preferred);
    out
}

/// A property name: bare when it is an identifier name, else quoted
/// (Prettier's `quoteProps: "as-needed"`; numbers stay quoted in TypeScript).
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let is_identifier = chars.next().is_some_and(|c| c == '$' || c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '$' || c == '_' || c.is_alphanumeric());
    if is_identifier { name.to_owned() } else { quote(name) }
}

/// `Database["schema"]["Tables"]["name"]` and the like.
fn index(path: &[&str]) -> Ty {
    let mut s = "Database".to_owned();
    for part in path {
        s.push('[');
        s.push_str(&quote(part));
        s.push(']');
    }
    Ty::Raw(s)
}

fn is_object(ty: &Ty) -> bool {
    matches!(ty, Ty::Object(..) | Ty::Nothing)
}

/// How Prettier prints a type (its `printUnionType`, `printIntersectionType`,
/// type literals and tuples).
fn ty_doc(ty: &Ty) -> Doc {
    match ty {
        Ty::Raw(s) => text(s.clone()),
        Ty::Str(s) => text(quote(s)),
        Ty::Union(types) => {
            let hug = types.iter().filter(|t| is_object(t)).count() == 1
                && types.iter().all(|t| is_object(t) || *t == raw("null"));
            if hug {
                return join(&text(" | "), types.iter().map(ty_doc).collect());
            }
            group(indent(union_lines(types)))
        }
        Ty::Intersection(types) => {
            let mut parts = Vec::new();
            for (i, ty) in types.iter().enumerate() {
                if i == 0 {
                    parts.push(ty_doc(ty));
                } else if !is_object(&types[i - 1]) && !is_object(ty) {
                    parts.push(indent(concat(vec![text(" &"), Doc::Line, ty_doc(ty)])));
                } else {
                    parts.push(text(" & "));
                    parts.push(if i > 1 { indent(ty_doc(ty)) } else { ty_doc(ty) });
                }
            }
            group(concat(parts))
        }
        Ty::Array(inner) => match inner.as_ref() {
            Ty::Union(types) => concat(vec![
                text("("),
                group(concat(vec![indent(union_lines(types)), Doc::Softline])),
                text(")[]"),
            ]),
            Ty::Intersection(_) => concat(vec![text("("), ty_doc(inner), text(")[]")]),
            other => concat(vec![ty_doc(other), text("[]")]),
        },
        Ty::Object(members, expanded) => {
            if members.is_empty() {
                return text("{}");
            }
            let members = members.iter().map(member_doc).collect();
            let separator = concat(vec![if_break(text(""), text(";")), Doc::Line]);
            let body = concat(vec![
                text("{"),
                indent(concat(vec![Doc::Line, join(&separator, members)])),
                Doc::Line,
                text("}"),
            ]);
            if *expanded { broken_group(body) } else { group(body) }
        }
        Ty::Nothing => broken_group(concat(vec![
            text("{"),
            indent(concat(vec![Doc::Line, text("[_ in never]: never")])),
            Doc::Line,
            text("}"),
        ])),
        Ty::Tuple(types) => {
            if types.is_empty() {
                return text("[]");
            }
            group(concat(vec![
                text("["),
                indent(concat(vec![
                    Doc::Softline,
                    join(&concat(vec![text(","), Doc::Line]), types.iter().map(ty_doc).collect()),
                ])),
                if_break(text(","), text("")),
                Doc::Softline,
                text("]"),
            ]))
        }
    }
}

/// `| a | b`, each member aligned under its bar when the union breaks.
fn union_lines(types: &[Ty]) -> Doc {
    let printed = types.iter().map(|t| align(2, ty_doc(t))).collect();
    concat(vec![
        if_break(concat(vec![Doc::Line, text("| ")]), text("")),
        join(&concat(vec![Doc::Line, text("| ")]), printed),
    ])
}

fn member_doc(m: &Member) -> Doc {
    concat(vec![text(key(&m.key)), text(if m.optional { "?: " } else { ": " }), ty_doc(&m.ty)])
}

/// What the template knows while it prints.
struct Template<'a> {
    catalog: &'a Catalog,
    schemas: Vec<&'a str>,
    types_by_id: HashMap<i64, &'a PgType>,
    /// Row types (of tables, views and composite types), by type id.
    row_types: HashMap<i64, &'a PgType>,
    relation_names: HashMap<i64, &'a str>,
    columns: HashMap<i64, Vec<&'a Column>>,
}

/// The functions of one schema the template keeps, with their input arguments.
struct Kept {
    function: Function,
    inputs: Vec<Argument>,
}

/// Prints the `database.types.ts` of `catalog`.
pub fn render(catalog: &Catalog) -> String {
    let mut schemas: Vec<&str> = catalog.schemas.iter().map(String::as_str).collect();
    schemas.sort_by(|a, b| compare(a, b));
    let mut columns: HashMap<i64, Vec<&Column>> =
        catalog.relations.iter().map(|r| (r.id, Vec::new())).collect();
    for column in &catalog.columns {
        if let Some(list) = columns.get_mut(&column.table_id) {
            list.push(column);
        }
    }
    for list in columns.values_mut() {
        list.sort_by(|a, b| compare(&a.name, &b.name));
    }
    let template = Template {
        catalog,
        schemas,
        types_by_id: catalog.types.iter().map(|t| (t.id, t)).collect(),
        row_types: catalog.types.iter().filter(|t| t.type_relation_id.is_some()).map(|t| (t.id, t)).collect(),
        relation_names: catalog.relations.iter().map(|r| (r.id, r.name.as_str())).collect(),
        columns,
    };
    template.render()
}

impl<'a> Template<'a> {
    fn render(&self) -> String {
        let mut relationships: Vec<&ForeignKey> = self.catalog.foreign_keys.iter().collect();
        relationships.sort_by(|a, b| {
            compare(&a.foreign_key_name, &b.foreign_key_name)
                .then_with(|| compare(&a.referenced_relation, &b.referenced_relation))
                .then_with(|| compare(&json_list(&a.referenced_columns), &json_list(&b.referenced_columns)))
        });
        let mut members = vec![
            text("// Allows to automatically instantiate createClient with right options"),
            Doc::Hardline,
            text("// instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)"),
            Doc::Hardline,
            member_doc(&member(
                "__InternalSupabase",
                false,
                Ty::Object(
                    vec![member("PostgrestVersion", false, Ty::Str(POSTGREST_VERSION.to_owned()))],
                    true,
                ),
            )),
        ];
        for schema in &self.schemas {
            members.push(Doc::Hardline);
            members.push(member_doc(&member(schema, false, self.schema_type(schema, &relationships))));
        }
        let database = concat(vec![
            text("export type Database = {"),
            indent(concat(vec![Doc::Hardline, concat(members)])),
            Doc::Hardline,
            text("}"),
        ]);
        let constants = concat(vec![text("export const Constants = "), self.constants(), text(" as const")]);
        let mut out = String::from(JSON_TYPE);
        out.push('\n');
        out.push_str(&print(database, 80));
        out.push_str("\n\n");
        out.push_str(HELPER_TYPES.replace("\"public\"", &quote(DEFAULT_SCHEMA)).trim_end());
        out.push_str("\n\n");
        out.push_str(&print(constants, 80));
        out.push('\n');
        out
    }

    fn relations(&self, schema: &str, kinds: &[RelationKind]) -> Vec<&'a Relation> {
        let mut found: Vec<&Relation> =
            self.catalog.relations.iter().filter(|r| r.schema == schema && kinds.contains(&r.kind)).collect();
        found.sort_by(|a, b| compare(&a.name, &b.name));
        found
    }

    /// The functions of `schema` PostgREST can call, or that the template
    /// reports as uncallable, sorted by name.
    fn functions(&self, schema: &str) -> Vec<Kept> {
        let mut kept: Vec<Kept> = Vec::new();
        for function in self.catalog.functions.iter().filter(|f| f.schema == schema) {
            let mut function = function.clone();
            function.args.sort_by(|a, b| compare(&a.name, &b.name));
            let inputs: Vec<Argument> = function
                .args
                .iter()
                .filter(|a| matches!(a.mode, ArgMode::In | ArgMode::Inout | ArgMode::Variadic))
                .cloned()
                .collect();
            let unnamed_is_callable = |a: &Argument| {
                UNNAMED_ARGUMENT_TYPES.contains(&a.type_id) || self.row_types.contains_key(&a.type_id)
            };
            let keep = inputs.is_empty()
                || !inputs.iter().any(|a| a.name.is_empty())
                || inputs.iter().all(|a| {
                    !a.name.is_empty() || (a.has_default && UNNAMED_ARGUMENT_TYPES.contains(&a.type_id))
                })
                || (inputs.len() == 1 && inputs[0].name.is_empty() && unnamed_is_callable(&inputs[0]));
            if keep {
                kept.push(Kept { function, inputs });
            }
        }
        kept.sort_by(|a, b| compare(&a.function.name, &b.function.name));
        kept
    }

    fn schema_type(&self, schema: &str, relationships: &[&ForeignKey]) -> Ty {
        let functions = self.functions(schema);
        let relationships_of = |relation: &Relation| -> Ty {
            Ty::Tuple(
                relationships
                    .iter()
                    .filter(|k| {
                        k.schema == relation.schema
                            && k.relation == relation.name
                            && k.referenced_schema == relation.schema
                    })
                    .map(|k| relationship(k))
                    .collect(),
            )
        };
        let computed = |relation: &Relation| -> Vec<Member> {
            functions
                .iter()
                .filter(|k| k.function.argument_types == relation.name)
                .map(|k| {
                    member(&k.function.name, false, nullable(self.return_type(schema, &k.function), true))
                })
                .collect()
        };
        let tables: Vec<Member> = self
            .relations(schema, &[RelationKind::Table, RelationKind::ForeignTable])
            .into_iter()
            .map(|table| {
                let columns = &self.columns[&table.id];
                let mut row: Vec<Member> =
                    columns.iter().map(|c| self.column(schema, c, false, c.is_nullable)).collect();
                row.extend(computed(table));
                let insert = columns
                    .iter()
                    .map(|c| match c.identity_always {
                        true => member(&c.name, true, raw("never")),
                        false => self.column(
                            schema,
                            c,
                            c.is_nullable || c.is_identity || c.has_default,
                            c.is_nullable,
                        ),
                    })
                    .collect();
                let update = columns
                    .iter()
                    .map(|c| match c.identity_always {
                        true => member(&c.name, true, raw("never")),
                        false => self.column(schema, c, true, c.is_nullable),
                    })
                    .collect();
                member(
                    &table.name,
                    false,
                    Ty::Object(
                        vec![
                            member("Row", false, Ty::Object(row, true)),
                            member("Insert", false, Ty::Object(insert, true)),
                            member("Update", false, Ty::Object(update, true)),
                            member("Relationships", false, relationships_of(table)),
                        ],
                        true,
                    ),
                )
            })
            .collect();
        let views: Vec<Member> = self
            .relations(schema, &[RelationKind::View, RelationKind::MaterializedView])
            .into_iter()
            .map(|view| {
                let columns = &self.columns[&view.id];
                let mut row: Vec<Member> =
                    columns.iter().map(|c| self.column(schema, c, false, c.is_nullable)).collect();
                row.extend(computed(view));
                let mut shape = vec![member("Row", false, Ty::Object(row, true))];
                if view.kind == RelationKind::View && view.is_updatable {
                    let writes = || -> Ty {
                        Ty::Object(
                            columns
                                .iter()
                                .map(|c| match c.is_updatable {
                                    false => member(&c.name, true, raw("never")),
                                    true => self.column(schema, c, true, true),
                                })
                                .collect(),
                            true,
                        )
                    };
                    shape.push(member("Insert", false, writes()));
                    shape.push(member("Update", false, writes()));
                }
                shape.push(member("Relationships", false, relationships_of(view)));
                member(&view.name, false, Ty::Object(shape, true))
            })
            .collect();
        let mut by_name: Vec<(&str, Vec<&Kept>)> = Vec::new();
        for kept in &functions {
            match by_name.iter_mut().find(|(name, _)| *name == kept.function.name) {
                Some((_, group)) => group.push(kept),
                None => by_name.push((&kept.function.name, vec![kept])),
            }
        }
        let functions_type: Vec<Member> = by_name
            .into_iter()
            .map(|(name, mut overloads)| {
                overloads.sort_by(|a, b| {
                    compare(&a.function.argument_types, &b.function.argument_types)
                        .then_with(|| compare(&a.function.return_type, &b.function.return_type))
                });
                let signatures: Vec<Ty> = overloads
                    .iter()
                    .enumerate()
                    .map(|(i, _)| self.signature(schema, &overloads, i))
                    .collect();
                member(name, false, union(signatures))
            })
            .collect();
        let mut enums = Vec::new();
        let mut composites = Vec::new();
        for ty in self.catalog.types.iter().filter(|t| t.schema == schema) {
            if !ty.enums.is_empty() {
                enums.push(ty);
            }
            if !ty.attributes.is_empty() {
                composites.push(ty);
            }
        }
        enums.sort_by(|a, b| compare(&a.name, &b.name));
        composites.sort_by(|a, b| compare(&a.name, &b.name));
        let enums: Vec<Member> = enums
            .into_iter()
            .map(|e| member(&e.name, false, union(e.enums.iter().map(|v| Ty::Str(v.clone())).collect())))
            .collect();
        let composites: Vec<Member> = composites
            .into_iter()
            .map(|c| {
                let attributes = c
                    .attributes
                    .iter()
                    .map(|a| {
                        let ty = match self.types_by_id.get(&a.type_id) {
                            Some(t) => nullable(self.ts_type(schema, &t.name), true),
                            None => raw("unknown"),
                        };
                        member(&a.name, false, ty)
                    })
                    .collect();
                member(&c.name, false, Ty::Object(attributes, true))
            })
            .collect();
        let section =
            |members: Vec<Member>| if members.is_empty() { Ty::Nothing } else { Ty::Object(members, true) };
        Ty::Object(
            vec![
                member("Tables", false, section(tables)),
                member("Views", false, section(views)),
                member("Functions", false, section(functions_type)),
                member("Enums", false, section(enums)),
                member("CompositeTypes", false, section(composites)),
            ],
            true,
        )
    }

    fn column(&self, schema: &str, column: &Column, optional: bool, is_nullable: bool) -> Member {
        member(&column.name, optional, nullable(self.ts_type(schema, &column.format), is_nullable))
    }

    /// `getTableNameFromRelationId`: a relation's name, or a composite type's.
    fn returned_relation(&self, function: &Function) -> Option<&'a str> {
        let id = function.return_type_relation_id?;
        if let Some(name) = self.relation_names.get(&id) {
            return Some(name);
        }
        self.row_types.get(&function.return_type_id).map(|t| t.name.as_str())
    }

    /// `getFunctionReturnType`: a `returns table` object, a relation's row,
    /// or the returned type.
    fn return_type(&self, schema: &str, function: &Function) -> Ty {
        let table_columns: Vec<&Argument> =
            function.args.iter().filter(|a| a.mode == ArgMode::Table).collect();
        if !table_columns.is_empty() {
            let members = table_columns
                .into_iter()
                .map(|a| {
                    let ty = match self.types_by_id.get(&a.type_id) {
                        Some(t) => self.ts_type(schema, &t.name),
                        None => raw("unknown"),
                    };
                    member(&a.name, false, ty)
                })
                .collect();
            return Ty::Object(members, true);
        }
        let relation = function
            .return_type_relation_id
            .and_then(|id| self.catalog.relations.iter().find(|r| r.id == id && r.schema == schema));
        if let Some(relation) = relation {
            let members = self.columns[&relation.id]
                .iter()
                .map(|c| self.column(schema, c, false, c.is_nullable))
                .collect();
            return Ty::Object(members, true);
        }
        match self.types_by_id.get(&function.return_type_id) {
            Some(t) => self.ts_type(schema, &t.name),
            None => raw("unknown"),
        }
    }

    /// `getFunctionTsReturnType`: the return type, an array for a set, and
    /// the `SetofOptions` postgrest-js reads to type a call's `select`.
    fn returns(&self, function: &Function, returns: Ty) -> Vec<Member> {
        let table = self.returned_relation(function);
        let set_of_table = function.is_set_returning_function && function.return_type_relation_id.is_some();
        let many = function.prorows.is_some_and(|rows| rows > 1.0);
        let mut options: Option<(String, String, bool, bool)> =
            table.map(|to| ("*".to_owned(), to.to_owned(), !many, function.is_set_returning_function));
        if function.args.len() == 1
            && let Some(source) = self.row_types.get(&function.args[0].type_id)
            && let Some(to) = table
        {
            options = Some(match set_of_table {
                true => (source.format.clone(), to.to_owned(), !many, true),
                false => (source.format.clone(), to.to_owned(), true, false),
            });
        }
        let collapses = !many && table.is_some();
        let returns = match function.is_set_returning_function && !collapses {
            true => suffix_array(returns),
            false => returns,
        };
        let mut members = vec![member("Returns", false, returns)];
        if let Some((from, to, one, set)) = options {
            members.push(member(
                "SetofOptions",
                false,
                Ty::Object(
                    vec![
                        member("from", false, Ty::Str(from)),
                        member("to", false, Ty::Str(to)),
                        member("isOneToOne", false, raw(if one { "true" } else { "false" })),
                        member("isSetofReturn", false, raw(if set { "true" } else { "false" })),
                    ],
                    true,
                ),
            ));
        }
        members
    }

    fn arguments(&self, schema: &str, inputs: &[Argument]) -> Ty {
        Ty::Object(
            inputs
                .iter()
                .map(|a| {
                    let ty = match self.types_by_id.get(&a.type_id) {
                        Some(t) => self.ts_type(schema, &t.name),
                        None => raw("unknown"),
                    };
                    member(&a.name, a.has_default, ty)
                })
                .collect(),
            false,
        )
    }

    /// One overload: `{ Args: ...; Returns: ... }`, or the error the
    /// template prints for overloads PostgREST cannot tell apart and for a
    /// row argument that is neither a computed field nor a computed
    /// relationship.
    fn signature(&self, schema: &str, overloads: &[&Kept], at: usize) -> Ty {
        let Kept { function, inputs, .. } = overloads[at];
        let error = |message: String| {
            Ty::Intersection(vec![
                Ty::Object(vec![member("error", false, raw("true"))], false),
                Ty::Str(message),
            ])
        };
        let mut args = raw("never");
        let returns;
        if let Some(conflict) = self.conflict(schema, overloads, at) {
            if !inputs.is_empty() {
                args = self.arguments(schema, inputs);
            }
            returns = error(conflict);
        } else if inputs.len() == 1
            && inputs[0].name.is_empty()
            && self.row_types.contains_key(&inputs[0].type_id)
            && self.returned_relation(function).is_none()
        {
            args = self.arguments(schema, inputs);
            returns = error(format!(
                "the function {schema}.{} with parameter or with a single unnamed json/jsonb parameter, but no \
                 matches were found in the schema cache",
                function.name
            ));
        } else {
            if !inputs.is_empty() {
                args = self.arguments(schema, inputs);
            }
            returns = self.return_type(schema, function);
        }
        let mut members = vec![member("Args", false, args)];
        members.extend(self.returns(function, returns));
        Ty::Object(members, false)
    }

    /// The overloads PostgREST cannot choose between, as the template
    /// detects them: no arguments beside one unnamed argument with a
    /// default, or one argument of the same name and different types.
    fn conflict(&self, schema: &str, overloads: &[&Kept], at: usize) -> Option<String> {
        if overloads.len() <= 1 {
            return None;
        }
        let Kept { function, inputs, .. } = overloads[at];
        let name = &function.name;
        let type_name = |id: i64| self.types_by_id.get(&id).map_or("unknown", |t| t.name.as_str());
        let others = || overloads.iter().enumerate().filter(move |(i, _)| *i != at).map(|(_, k)| *k);
        let hint = "Try renaming the parameters or the function itself in the database so function overloading \
                    can be resolved";
        if inputs.is_empty()
            && let Some(other) = others()
                .find(|k| k.inputs.len() == 1 && k.inputs[0].name.is_empty() && k.inputs[0].has_default)
        {
            let returns = type_name(other.function.return_type_id);
            return Some(format!(
                "Could not choose the best candidate function between: {schema}.{name}(), {schema}.{name}( => \
                 {returns}). {hint}"
            ));
        }
        if inputs.len() == 1 && !inputs[0].name.is_empty() {
            let mut all: Vec<&Kept> = vec![overloads[at]];
            all.extend(others().filter(|k| {
                k.inputs.len() == 1
                    && k.inputs[0].name == inputs[0].name
                    && k.inputs[0].type_id != inputs[0].type_id
            }));
            if all.len() > 1 {
                all.sort_by_key(|k| k.inputs.first().map_or(0, |a| a.type_id));
                let list: Vec<String> = all
                    .iter()
                    .map(|k| {
                        let args: Vec<String> = k
                            .inputs
                            .iter()
                            .map(|a| format!("{} => {}", a.name, type_name(a.type_id)))
                            .collect();
                        format!("{schema}.{name}({})", args.join(", "))
                    })
                    .collect();
                return Some(format!(
                    "Could not choose the best candidate function between: {}. {hint}",
                    list.join(", ")
                ));
            }
        }
        None
    }

    /// `pgTypeToTsType`: a PostgreSQL type name (`_` first for an array) as
    /// TypeScript.
    fn ts_type(&self, schema: &str, name: &str) -> Ty {
        match name {
            "bool" => return raw("boolean"),
            "int2" | "int4" | "int8" | "float4" | "float8" | "numeric" => return raw("number"),
            "bytea" | "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz" | "timestamp"
            | "timestamptz" | "uuid" | "vector" | "interval" => return raw("string"),
            "json" | "jsonb" => return raw("Json"),
            "void" => return raw("undefined"),
            "record" => return raw("Record<string, unknown>"),
            _ => {}
        }
        if let Some(element) = name.strip_prefix('_') {
            return Ty::Array(Box::new(self.ts_type(schema, element)));
        }
        let pick = |found: Vec<&'a PgType>| -> Option<&'a PgType> {
            found.iter().find(|t| t.schema == schema).or(found.first()).copied()
        };
        let types = &self.catalog.types;
        if let Some(e) = pick(types.iter().filter(|t| t.name == name && !t.enums.is_empty()).collect()) {
            if self.schemas.contains(&e.schema.as_str()) {
                return index(&[&e.schema, "Enums", &e.name]);
            }
            return union(e.enums.iter().map(|v| Ty::Str(v.clone())).collect());
        }
        if let Some(c) = pick(types.iter().filter(|t| t.name == name && !t.attributes.is_empty()).collect()) {
            if self.schemas.contains(&c.schema.as_str()) {
                return index(&[&c.schema, "CompositeTypes", &c.name]);
            }
            return raw("unknown");
        }
        for (kinds, section) in [(RelationKind::Table, "Tables"), (RelationKind::View, "Views")] {
            let found: Vec<&Relation> =
                self.catalog.relations.iter().filter(|r| r.kind == kinds && r.name == name).collect();
            if let Some(r) = found.iter().find(|r| r.schema == schema).or(found.first()) {
                if self.schemas.contains(&r.schema.as_str()) {
                    return index(&[&r.schema, section, &r.name, "Row"]);
                }
                return raw("unknown");
            }
        }
        raw("unknown")
    }

    /// `Constants`: each schema's enums' values, for runtime use.
    fn constants(&self) -> Doc {
        let schemas = self
            .schemas
            .iter()
            .map(|schema| {
                let mut enums: Vec<&PgType> = self
                    .catalog
                    .types
                    .iter()
                    .filter(|t| t.schema == *schema && !t.enums.is_empty())
                    .collect();
                enums.sort_by(|a, b| compare(&a.name, &b.name));
                let enums = enums
                    .into_iter()
                    .map(|e| {
                        let values = e.enums.iter().map(|v| text(quote(v))).collect();
                        concat(vec![
                            text(key(&e.name)),
                            text(": "),
                            group(concat(vec![
                                text("["),
                                indent(concat(vec![
                                    Doc::Softline,
                                    join(&concat(vec![text(","), Doc::Line]), values),
                                ])),
                                if_break(text(","), text("")),
                                Doc::Softline,
                                text("]"),
                            ])),
                        ])
                    })
                    .collect();
                concat(vec![
                    text(key(schema)),
                    text(": "),
                    object_literal(vec![concat(vec![text("Enums: "), object_literal(enums)])]),
                ])
            })
            .collect();
        object_literal(schemas)
    }
}

/// An object literal the template opens on its own line: one property a
/// line, with trailing commas.
fn object_literal(properties: Vec<Doc>) -> Doc {
    if properties.is_empty() {
        return text("{}");
    }
    broken_group(concat(vec![
        text("{"),
        indent(concat(vec![Doc::Line, join(&concat(vec![text(","), Doc::Line]), properties)])),
        if_break(text(","), text("")),
        Doc::Line,
        text("}"),
    ]))
}

fn relationship(key: &ForeignKey) -> Ty {
    let names = |list: &[String]| Ty::Tuple(list.iter().map(|c| Ty::Str(c.clone())).collect());
    Ty::Object(
        vec![
            member("foreignKeyName", false, Ty::Str(key.foreign_key_name.clone())),
            member("columns", false, names(&key.columns)),
            member("isOneToOne", false, raw(if key.is_one_to_one { "true" } else { "false" })),
            member("referencedRelation", false, Ty::Str(key.referenced_relation.clone())),
            member("referencedColumns", false, names(&key.referenced_columns)),
        ],
        true,
    )
}

/// `JSON.stringify` of a list of names, which the template sorts by.
fn json_list(names: &[String]) -> String {
    serde_json::to_string(names).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bare_when_they_are_identifiers_and_quoted_otherwise() {
        let cases = [
            ("id", "id"),
            ("created_at", "created_at"),
            ("$ref", "$ref"),
            ("column whitespace", "\"column whitespace\""),
            ("", "\"\""),
            ("1st", "\"1st\""),
            ("it's", "\"it's\""),
            ("say \"hi\"", "'say \"hi\"'"),
        ];
        for (name, expected) in cases {
            assert_eq!(key(name), expected, "{name}");
        }
    }

    #[test]
    fn a_nullable_enum_column_breaks_over_lines_when_it_is_too_long() {
        let ty = nullable(index(&["public", "Enums", "a_rather_long_enum_name_for_a_status"]), true);
        let mut doc = concat(vec![Doc::Hardline, member_doc(&member("status", true, ty))]);
        for _ in 0..5 {
            doc = indent(doc);
        }
        assert_eq!(
            print(doc, 80),
            "\n          status?:\n            | Database[\"public\"][\"Enums\"][\"a_rather_long_enum_name_for_a_status\"]\n            | null"
        );
    }

    #[test]
    fn an_array_of_a_union_keeps_its_parentheses_and_a_set_binds_to_the_last_member() {
        let enum_values = union(vec![Ty::Str("a".to_owned()), Ty::Str("b".to_owned())]);
        assert_eq!(print(ty_doc(&Ty::Array(Box::new(enum_values.clone()))), 80), "(\"a\" | \"b\")[]");
        assert_eq!(print(ty_doc(&suffix_array(enum_values)), 80), "\"a\" | \"b\"[]");
        assert_eq!(print(ty_doc(&Ty::Array(Box::new(raw("string")))), 80), "string[]");
    }
}
