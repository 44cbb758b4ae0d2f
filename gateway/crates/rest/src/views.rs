//! Where a view's columns come from, so that views take part in embedding as
//! PostgREST lets them: a view that shows all the columns of a table's
//! foreign key (or of the key it references, or of its primary key) has that
//! relationship too (<https://docs.postgrest.org/en/v12/references/api/resource_embedding.html#embedding-views>).
//!
//! PostgreSQL keeps no table of "view column comes from table column". It
//! keeps the view's query tree (`pg_rewrite.ev_action`, printed by
//! `nodeToString`), whose top-level target entries carry `resorigtbl` and
//! `resorigcol` for every output column that is a plain column of a relation,
//! and `pg_depend`, which names each column the view reads. The catalog query
//! sends both; this module reads the tree and follows views over views down
//! to their tables. Pure: no I/O.

use std::collections::HashMap;

use super::schema::QualifiedName;

/// One view as the catalog lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawView {
    pub name: QualifiedName,
    /// `pg_rewrite.ev_action` as text.
    pub definition: String,
    /// The view's own columns: `(attnum, name)`.
    pub columns: Vec<(i32, String)>,
    /// The relation columns the view reads (`pg_depend`):
    /// `(relation oid, attnum)` → (relation, column).
    pub sources: Vec<Source>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub oid: i64,
    pub attnum: i32,
    pub relation: QualifiedName,
    pub column: String,
}

/// A view column that shows a table's column unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewColumn {
    pub view: QualifiedName,
    pub column: String,
    pub table: QualifiedName,
    pub table_column: String,
}

/// The columns of `views` traced to the tables they show, through views
/// over views (a cycle, which PostgreSQL forbids anyway, ends the trace).
/// A column computed from an expression traces to nothing.
pub fn trace(views: &[RawView]) -> Vec<ViewColumn> {
    let by_name: HashMap<&QualifiedName, &RawView> = views.iter().map(|v| (&v.name, v)).collect();
    // Each view's column → the relation column it shows directly.
    let direct: HashMap<&QualifiedName, HashMap<&str, (&QualifiedName, &str)>> = views
        .iter()
        .map(|view| {
            let columns: HashMap<i32, &str> = view.columns.iter().map(|(n, c)| (*n, c.as_str())).collect();
            let origins = target_origins(&view.definition)
                .into_iter()
                .filter_map(|o| {
                    let column = *columns.get(&o.resno)?;
                    let source = view.sources.iter().find(|s| s.oid == o.table && s.attnum == o.column)?;
                    Some((column, (&source.relation, source.column.as_str())))
                })
                .collect();
            (&view.name, origins)
        })
        .collect();
    let mut out = Vec::new();
    for view in views {
        for (_, column) in &view.columns {
            let Some(mut at) = direct[&view.name].get(column.as_str()).copied() else { continue };
            let mut hops = 0;
            while let Some(inner) = by_name.get(at.0).and_then(|v| direct[&v.name].get(at.1)) {
                hops += 1;
                if hops > views.len() {
                    break;
                }
                at = *inner;
            }
            if by_name.contains_key(at.0) {
                continue;
            }
            out.push(ViewColumn {
                view: view.name.clone(),
                column: column.clone(),
                table: at.0.clone(),
                table_column: at.1.to_owned(),
            });
        }
    }
    out
}

/// A top-level output column of a view that is a relation's column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub resno: i32,
    pub table: i64,
    pub column: i32,
}

/// The origins of the first query's target list in a printed rule action.
/// Junk entries and computed columns (`resorigtbl 0`) are left out; text
/// that does not read as a query tree gives no origins.
pub fn target_origins(definition: &str) -> Vec<Origin> {
    let mut tokens = Tokens { rest: definition };
    let Some(Tree::List(queries)) = read(&mut tokens) else { return Vec::new() };
    let Some(query) = queries.iter().find(|q| matches!(q, Tree::Node(kind, _) if kind == "QUERY")) else {
        return Vec::new();
    };
    let Some([Tree::List(entries)]) = query.field("targetList") else { return Vec::new() };
    entries
        .iter()
        .filter_map(|entry| {
            let number = |name| match entry.field(name)? {
                [Tree::Atom(text)] => text.parse::<i64>().ok(),
                _ => None,
            };
            let junk = matches!(entry.field("resjunk"), Some([Tree::Atom(t)]) if t == "true");
            let table = number("resorigtbl")?;
            (!junk && table != 0).then_some(Origin {
                resno: i32::try_from(number("resno")?).ok()?,
                table,
                column: i32::try_from(number("resorigcol")?).ok()?,
            })
        })
        .collect()
}

/// A printed node tree (`src/backend/nodes/outfuncs.c`, read back by
/// `read.c`): `{TYPE :field value ...}` nodes, `( ... )` lists and atoms.
#[derive(Debug, PartialEq)]
enum Tree {
    Node(String, Vec<(String, Vec<Tree>)>),
    List(Vec<Tree>),
    Atom(String),
}

impl Tree {
    fn field(&self, name: &str) -> Option<&[Tree]> {
        match self {
            Tree::Node(_, fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_slice()),
            _ => None,
        }
    }
}

/// `pg_strtok`'s tokens: `(`, `)`, `{` and `}` alone, else a run up to
/// whitespace or one of those, in which a backslash keeps the next
/// character as it is.
struct Tokens<'a> {
    rest: &'a str,
}

impl Tokens<'_> {
    fn peek(&self) -> Option<char> {
        self.rest.trim_start().chars().next()
    }

    fn next(&mut self) -> Option<String> {
        self.rest = self.rest.trim_start();
        let mut chars = self.rest.char_indices();
        let (_, first) = chars.next()?;
        if matches!(first, '(' | ')' | '{' | '}') {
            self.rest = &self.rest[1..];
            return Some(first.to_string());
        }
        let mut token = String::new();
        let mut end = self.rest.len();
        let mut escaped = false;
        for (i, c) in self.rest.char_indices() {
            if escaped {
                token.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c.is_whitespace() || matches!(c, '(' | ')' | '{' | '}') {
                end = i;
                break;
            } else {
                token.push(c);
            }
        }
        self.rest = &self.rest[end..];
        Some(token)
    }
}

fn read(tokens: &mut Tokens<'_>) -> Option<Tree> {
    match tokens.next()?.as_str() {
        "(" => {
            let mut items = Vec::new();
            while tokens.peek()? != ')' {
                items.push(read(tokens)?);
            }
            tokens.next();
            Some(Tree::List(items))
        }
        "{" => {
            let kind = tokens.next()?;
            let mut fields: Vec<(String, Vec<Tree>)> = Vec::new();
            loop {
                if tokens.peek()? == '}' {
                    tokens.next();
                    return Some(Tree::Node(kind, fields));
                }
                let token = read(tokens)?;
                match token {
                    Tree::Atom(key) if key.starts_with(':') => fields.push((key[1..].to_owned(), Vec::new())),
                    value => fields.last_mut()?.1.push(value),
                }
            }
        }
        ")" | "}" => None,
        atom => Some(Tree::Atom(atom.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shortened from PostgreSQL 15's `ev_action` for
    /// `create view v as select id, name as label, id + 1 as next from t`:
    /// a subquery's target list in `rtable` must not be mistaken for the view's.
    const ACTION: &str = r#"({QUERY :commandType 1 :querySource 0 :canSetTag true :utilityStmt <> :resultRelation 0 :hasAggs false :cteList <> :rtable ({RTE :alias {ALIAS :aliasname old :colnames <>} :rtekind 1 :subquery {QUERY :commandType 1 :targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 1} :resno 1 :resname x :ressortgroupref 0 :resorigtbl 99 :resorigcol 7 :resjunk false})} :relid 16390} {RTE :alias <> :eref {ALIAS :aliasname t :colnames ("id" "name")} :rtekind 0 :relid 16390 :relkind r}) :jointree {FROMEXPR :fromlist ({RANGETBLREF :rtindex 3}) :quals <>} :targetList ({TARGETENTRY :expr {VAR :varno 3 :varattno 1 :vartype 23} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 16390 :resorigcol 1 :resjunk false} {TARGETENTRY :expr {VAR :varno 3 :varattno 2} :resno 2 :resname label\ with\ \{braces\} :ressortgroupref 0 :resorigtbl 16390 :resorigcol 2 :resjunk false} {TARGETENTRY :expr {OPEXPR :opno 551 :args ({VAR :varno 3 :varattno 1} {CONST :consttype 23 :constlen 4 :constbyval true :constisnull false :location 48 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]})} :resno 3 :resname next :ressortgroupref 0 :resorigtbl 0 :resorigcol 0 :resjunk false} {TARGETENTRY :expr {VAR :varno 3 :varattno 2} :resno 4 :resname junk :resorigtbl 16390 :resorigcol 2 :resjunk true}) :override 0 :onConflict <> :returningList <>})"#;

    #[test]
    fn the_top_query_target_list_gives_the_origins_of_plain_columns_only() {
        assert_eq!(
            target_origins(ACTION),
            vec![Origin { resno: 1, table: 16390, column: 1 }, Origin { resno: 2, table: 16390, column: 2 },]
        );
    }

    #[test]
    fn text_that_is_not_a_query_tree_gives_nothing() {
        for text in ["", "(", "({QUERY :targetList (", "{QUERY}", "({RTE :x 1})", "))"] {
            assert!(target_origins(text).is_empty(), "{text}");
        }
    }

    fn name(n: &str) -> QualifiedName {
        QualifiedName::new("public", n)
    }

    fn view(view: &str, oid_of_source: i64, source: &str, columns: &[(&str, i32, &str)]) -> RawView {
        let entries: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, (_, attnum, _))| {
                format!(
                    "{{TARGETENTRY :resno {} :resorigtbl {} :resorigcol {attnum} :resjunk false}}",
                    i + 1,
                    if *attnum == 0 { 0 } else { oid_of_source }
                )
            })
            .collect();
        RawView {
            name: name(view),
            definition: format!("({{QUERY :targetList ({})}})", entries.join(" ")),
            columns: columns
                .iter()
                .enumerate()
                .map(|(i, (c, _, _))| (i as i32 + 1, (*c).to_owned()))
                .collect(),
            sources: columns
                .iter()
                .filter(|(_, attnum, _)| *attnum != 0)
                .map(|(_, attnum, column)| Source {
                    oid: oid_of_source,
                    attnum: *attnum,
                    relation: name(source),
                    column: (*column).to_owned(),
                })
                .collect(),
        }
    }

    #[test]
    fn views_over_views_trace_down_to_the_table() {
        // films(id 1, title 2); v1 shows id as film_id and a computed column;
        // v2, over v1, shows film_id as key.
        let v1 = view("v1", 100, "films", &[("film_id", 1, "id"), ("shout", 0, ""), ("title", 2, "title")]);
        let v2 = view("v2", 200, "v1", &[("key", 1, "film_id"), ("shout", 2, "shout")]);
        let traced = trace(&[v2, v1]);
        let shown = |v: &str| -> Vec<(String, String)> {
            traced
                .iter()
                .filter(|c| c.view == name(v))
                .map(|c| (c.column.clone(), format!("{}.{}", c.table.name, c.table_column)))
                .collect()
        };
        assert_eq!(
            shown("v1"),
            vec![("film_id".into(), "films.id".into()), ("title".into(), "films.title".into())]
        );
        assert_eq!(shown("v2"), vec![("key".into(), "films.id".into())]);
    }

    #[test]
    fn a_cycle_ends_the_trace_without_a_column() {
        let a = view("a", 2, "b", &[("x", 1, "x")]);
        let b = view("b", 1, "a", &[("x", 1, "x")]);
        assert!(trace(&[a, b]).is_empty());
    }
}
