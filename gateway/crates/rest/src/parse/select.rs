//! `select=`: columns, casts, aggregates, embeds and spreads.
//!
//! Copied from PostgREST's `pFieldForest`, `pRelationSelect`, `pSpreadRelationSelect`,
//! `pEmbedParams` and `pFieldSelect` in <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>,
//! keeping the order in which alternatives are tried, since that decides the error text.

use super::parsec::{Parser, Reply, Seq, choice, map};
use crate::ast::{Aggregate, ColumnSelect, Embed, JoinType, SelectItem};

/// What precedes the parenthesis of an embed.
struct EmbedHead {
    relation: String,
    alias: Option<String>,
    hint: Option<String>,
    join: Option<JoinType>,
    spread: bool,
}

enum EmbedParam {
    Join(JoinType),
    Hint(String),
}

impl Parser {
    /// `pFieldForest`: items separated by commas; may be empty.
    pub(super) fn select_items(&mut self) -> Reply<Vec<SelectItem>> {
        self.sep_by(Parser::select_item, |p| p.lexeme(|p| p.char(',')))
    }

    /// `pFieldTree`: a spread, else an embed, else a plain field.
    fn select_item(&mut self) -> Reply<SelectItem> {
        choice!(
            self,
            |p| p.embed_with_children(Parser::spread_head),
            |p| p.embed_with_children(Parser::relation_head),
            Parser::field_select,
        )
    }

    /// `Node <$> try head <*> between (char '(') (char ')') pFieldForest`.
    fn embed_with_children(&mut self, head: fn(&mut Parser) -> Reply<EmbedHead>) -> Reply<SelectItem> {
        let mut seq = Seq::new(self);
        let head = seq.step(self.attempt(head))?;
        let children =
            seq.step(self.between(|p| p.char('('), |p| p.char(')'), |p| p.nested(Parser::select_items)))?;
        seq.done(SelectItem::Embed(Embed {
            relation: head.relation,
            alias: head.alias,
            hint: head.hint,
            join: head.join,
            spread: head.spread,
            children,
        }))
    }

    /// `pSpreadRelationSelect`: `...rel!hint!inner` followed by `(`.
    fn spread_head(&mut self) -> Reply<EmbedHead> {
        self.lexeme(|p| {
            let mut seq = Seq::new(p);
            seq.step(p.string("..."))?;
            let relation = seq.step(p.field_name())?;
            let (hint, join) = seq.step(p.embed_params())?;
            seq.step(p.attempt(|p| p.look_ahead(|p| p.string("("))))?;
            seq.done(EmbedHead { relation, alias: None, hint, join, spread: true })
        })
    }

    /// `pRelationSelect`: `alias:rel!hint!inner` followed by `(`; `count` is not a relation
    /// so that `count()` stays an aggregate.
    fn relation_head(&mut self) -> Reply<EmbedHead> {
        self.lexeme(|p| {
            let mut seq = Seq::new(p);
            let alias = seq.step(p.alias())?;
            let relation = seq.step(p.field_name())?;
            if relation == "count" {
                let failure = p.zero::<()>();
                seq.step(failure)?;
            }
            let (hint, join) = seq.step(p.embed_params())?;
            seq.step(p.attempt(|p| p.look_ahead(|p| p.string("("))))?;
            seq.done(EmbedHead { relation, alias, hint, join, spread: false })
        })
    }

    /// `pEmbedParams`: up to two `!` parameters; the first hint and the first join type win.
    fn embed_params(&mut self) -> Reply<(Option<String>, Option<JoinType>)> {
        let mut seq = Seq::new(self);
        let first = seq.step(self.option_maybe(Parser::embed_param))?;
        let second = seq.step(self.option_maybe(Parser::embed_param))?;
        let mut hint = None;
        let mut join = None;
        for param in [first, second].into_iter().flatten() {
            match param {
                EmbedParam::Hint(name) => {
                    hint.get_or_insert(name);
                }
                EmbedParam::Join(kind) => {
                    join.get_or_insert(kind);
                }
            }
        }
        seq.done((hint, join))
    }

    /// `pEmbedParam`: `!left`, `!inner` or `!hint`. A hint that starts with "left" or
    /// "inner" is read as the join type followed by garbage, as in PostgREST.
    fn embed_param(&mut self) -> Reply<EmbedParam> {
        let mut seq = Seq::new(self);
        seq.step(self.char('!'))?;
        let param = seq.step(choice!(
            self,
            |p| p.attempt(|p| map(p.string("left"), |_| EmbedParam::Join(JoinType::Left))),
            |p| p.attempt(|p| map(p.string("inner"), |_| EmbedParam::Join(JoinType::Inner))),
            |p| p.attempt(|p| map(p.field_name(), EmbedParam::Hint)),
        ))?;
        seq.done(param)
    }

    /// `pFieldSelect`: `*`, `count()`, or a field with alias, cast and aggregate.
    fn field_select(&mut self) -> Reply<SelectItem> {
        self.lexeme(|p| {
            choice!(
                p,
                |p| {
                    p.attempt(|p| {
                        let mut seq = Seq::new(p);
                        seq.step(p.string("*"))?;
                        seq.step(p.select_item_end())?;
                        seq.done(SelectItem::Star)
                    })
                },
                |p| {
                    p.attempt(|p| {
                        let mut seq = Seq::new(p);
                        let alias = seq.step(p.alias())?;
                        seq.step(p.string("count()"))?;
                        let cast = seq.step(p.option_maybe(Parser::cast_suffix))?;
                        seq.step(p.select_item_end())?;
                        seq.done(SelectItem::Count { alias, cast })
                    })
                },
                |p| {
                    let mut seq = Seq::new(p);
                    let alias = seq.step(p.alias())?;
                    let field = seq.step(p.field())?;
                    let cast = seq.step(p.option_maybe(Parser::cast_suffix))?;
                    let aggregate = seq.step(p.option_maybe(|p| {
                        p.attempt(|p| {
                            let mut seq = Seq::new(p);
                            seq.step(p.char('.'))?;
                            let aggregate = seq.step(p.aggregate())?;
                            seq.step(p.string("()"))?;
                            seq.done(aggregate)
                        })
                    }))?;
                    let aggregate_cast = seq.step(p.option_maybe(Parser::cast_suffix))?;
                    seq.step(p.select_item_end())?;
                    seq.done(SelectItem::Column(ColumnSelect {
                        field,
                        alias,
                        cast,
                        aggregate,
                        aggregate_cast,
                    }))
                },
            )
        })
    }

    /// `string "::" *> pIdentifier`, with our stricter cast names.
    fn cast_suffix(&mut self) -> Reply<String> {
        let mut seq = Seq::new(self);
        seq.step(self.string("::"))?;
        let name = seq.step(self.cast_name())?;
        seq.done(name)
    }

    /// `pAggregation`.
    fn aggregate(&mut self) -> Reply<Aggregate> {
        choice!(
            self,
            |p| map(p.string("sum"), |_| Aggregate::Sum),
            |p| map(p.string("avg"), |_| Aggregate::Avg),
            |p| map(p.string("count"), |_| Aggregate::Count),
            |p| p.attempt(|p| map(p.string("max"), |_| Aggregate::Max)),
            |p| p.attempt(|p| map(p.string("min"), |_| Aggregate::Min)),
        )
    }

    /// `pEnd` of `pFieldSelect`: a `)` or `,` follows, or the input ends.
    fn select_item_end(&mut self) -> Reply<()> {
        choice!(
            self,
            |p| map(p.attempt(|p| p.look_ahead(|p| p.string(")"))), |_| ()),
            |p| map(p.attempt(|p| p.look_ahead(|p| p.string(","))), |_| ()),
            |p| p.attempt(Parser::eof),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_errors, col, column, embed, field, json, query};
    use crate::ast::{Aggregate, ColumnSelect, Embed, JoinType, SelectItem};

    fn select(text: &str) -> Vec<SelectItem> {
        match query(&[("select", text)]) {
            Ok(parsed) => parsed.select,
            Err(e) => panic!("select={text}: {e}"),
        }
    }

    fn with(item: ColumnSelect) -> SelectItem {
        SelectItem::Column(item)
    }

    #[test]
    fn columns_aliases_casts_and_json_paths_parse_into_column_items() {
        let cases: Vec<(&str, Vec<SelectItem>)> = vec![
            ("", vec![]),
            ("*", vec![SelectItem::Star]),
            ("id,name", vec![col("id"), col("name")]),
            ("id , name", vec![col("id"), col("name")]),
            ("first name", vec![col("first name")]),
            ("a-b", vec![col("a-b")]),
            ("ñame", vec![col("ñame")]),
            ("$1", vec![col("$1")]),
            ("\"a,b\"", vec![col("a,b")]),
            ("\"say \\\"hi\\\"\"", vec![col("say \"hi\"")]),
            ("label:name", vec![with(ColumnSelect { alias: Some("label".into()), ..column(field("name")) })]),
            (
                "\"my label\":name",
                vec![with(ColumnSelect { alias: Some("my label".into()), ..column(field("name")) })],
            ),
            ("price::text", vec![with(ColumnSelect { cast: Some("text".into()), ..column(field("price")) })]),
            (
                "price::double precision",
                vec![with(ColumnSelect { cast: Some("double precision".into()), ..column(field("price")) })],
            ),
            (
                "tags::text[]",
                vec![with(ColumnSelect { cast: Some("text[]".into()), ..column(field("tags")) })],
            ),
            (
                "grid::int[][]",
                vec![with(ColumnSelect { cast: Some("int[][]".into()), ..column(field("grid")) })],
            ),
            ("data->a->>b", vec![with(column(json("data", "->a->>b")))]),
            ("data->0->>-1", vec![with(column(json("data", "->0->>-1")))]),
            ("data->a-b", vec![with(column(json("data", "->a-b")))]),
            ("data->!@#$%^&*_a", vec![with(column(json("data", "->!@#$%^&*_a")))]),
            ("data->\"a.b\"", vec![with(column(json("data", "->a.b")))]),
            ("data->1a", vec![with(column(json("data", "->1a")))]),
            ("data->99999999999999999999", vec![with(column(json("data", "->99999999999999999999")))]),
            (
                "x:data->>name::int",
                vec![with(ColumnSelect {
                    alias: Some("x".into()),
                    cast: Some("int".into()),
                    ..column(json("data", "->>name"))
                })],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(select(text), expected, "select={text}");
        }
    }

    #[test]
    fn count_and_aggregates_parse_with_their_casts() {
        let cases: Vec<(&str, Vec<SelectItem>)> = vec![
            ("count()", vec![SelectItem::Count { alias: None, cast: None }]),
            (
                "total:count()::int",
                vec![SelectItem::Count { alias: Some("total".into()), cast: Some("int".into()) }],
            ),
            (
                "price.sum()",
                vec![with(ColumnSelect { aggregate: Some(Aggregate::Sum), ..column(field("price")) })],
            ),
            (
                "price.avg()",
                vec![with(ColumnSelect { aggregate: Some(Aggregate::Avg), ..column(field("price")) })],
            ),
            (
                "id.count()",
                vec![with(ColumnSelect { aggregate: Some(Aggregate::Count), ..column(field("id")) })],
            ),
            (
                "price.max()",
                vec![with(ColumnSelect { aggregate: Some(Aggregate::Max), ..column(field("price")) })],
            ),
            (
                "price.min()",
                vec![with(ColumnSelect { aggregate: Some(Aggregate::Min), ..column(field("price")) })],
            ),
            (
                "p:price::numeric.sum()::int",
                vec![with(ColumnSelect {
                    alias: Some("p".into()),
                    cast: Some("numeric".into()),
                    aggregate: Some(Aggregate::Sum),
                    aggregate_cast: Some("int".into()),
                    ..column(field("price"))
                })],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(select(text), expected, "select={text}");
        }
    }

    #[test]
    fn embeds_take_aliases_hints_join_types_and_spreads() {
        let e = |embed: Embed| SelectItem::Embed(embed);
        let cases: Vec<(&str, Vec<SelectItem>)> = vec![
            ("brands(*)", vec![e(embed("brands", vec![SelectItem::Star]))]),
            ("brands()", vec![e(embed("brands", vec![]))]),
            ("title,actors()", vec![col("title"), e(embed("actors", vec![]))]),
            (
                "brand:brands(name)",
                vec![e(Embed { alias: Some("brand".into()), ..embed("brands", vec![col("name")]) })],
            ),
            (
                "brands!inner(name)",
                vec![e(Embed { join: Some(JoinType::Inner), ..embed("brands", vec![col("name")]) })],
            ),
            (
                "brands!left(name)",
                vec![e(Embed { join: Some(JoinType::Left), ..embed("brands", vec![col("name")]) })],
            ),
            (
                "brands!products_brand_id_fkey(name)",
                vec![e(Embed {
                    hint: Some("products_brand_id_fkey".into()),
                    ..embed("brands", vec![col("name")])
                })],
            ),
            (
                "b:brands!fk!inner(name)",
                vec![e(Embed {
                    alias: Some("b".into()),
                    hint: Some("fk".into()),
                    join: Some(JoinType::Inner),
                    ..embed("brands", vec![col("name")])
                })],
            ),
            (
                "brands!inner!fk(name)",
                vec![e(Embed {
                    hint: Some("fk".into()),
                    join: Some(JoinType::Inner),
                    ..embed("brands", vec![col("name")])
                })],
            ),
            ("...brands(name)", vec![e(Embed { spread: true, ..embed("brands", vec![col("name")]) })]),
            (
                "...brands!fk!left(name)",
                vec![e(Embed {
                    spread: true,
                    hint: Some("fk".into()),
                    join: Some(JoinType::Left),
                    ..embed("brands", vec![col("name")])
                })],
            ),
            (
                "*,brands(*,countries(name)),products(id)",
                vec![
                    SelectItem::Star,
                    e(embed("brands", vec![SelectItem::Star, e(embed("countries", vec![col("name")]))])),
                    e(embed("products", vec![col("id")])),
                ],
            ),
            (" brands ( id , name )", vec![e(embed("brands", vec![col("id"), col("name")]))]),
        ];
        for (text, expected) in cases {
            assert_eq!(select(text), expected, "select={text}");
        }
    }

    #[test]
    fn select_errors_match_postgrest_12() {
        // Every row was compared with PostgREST 12.0.2's answer to the same request.
        assert_errors(&[
            (
                "select",
                "id,",
                "\"failed to parse select parameter (id,)\" (line 1, column 4)",
                "unexpected end of input expecting \"...\", field name (* or [a..z0..9_$]), \"*\" or \"count()\"",
            ),
            (
                "select",
                "id,,name",
                "\"failed to parse select parameter (id,,name)\" (line 1, column 4)",
                "unexpected \",\" expecting \"...\", field name (* or [a..z0..9_$]), \"*\" or \"count()\"",
            ),
            (
                "select",
                "id,clients(name[])",
                "\"failed to parse select parameter (id,clients(name[]))\" (line 1, column 16)",
                "unexpected '[' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "data->>-78xy",
                "\"failed to parse select parameter (data->>-78xy)\" (line 1, column 11)",
                "unexpected 'x' expecting digit, \"->\", \"::\", \".\", \",\" or end of input",
            ),
            (
                "select",
                "name!hint",
                "\"failed to parse select parameter (name!hint)\" (line 1, column 5)",
                "unexpected '!' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "name::",
                "\"failed to parse select parameter (name::)\" (line 1, column 7)",
                "unexpected end of input expecting letter or digit",
            ),
            (
                "select",
                "a:b:c",
                "\"failed to parse select parameter (a:b:c)\" (line 1, column 4)",
                "unexpected \"c\" expecting \"::\"",
            ),
            (
                "select",
                "price.mux()",
                "\"failed to parse select parameter (price.mux())\" (line 1, column 7)",
                "unexpected \"m\" expecting \"sum\", \"avg\", \"count\", \"max\" or \"min\"",
            ),
            (
                "select",
                "price.sum(",
                "\"failed to parse select parameter (price.sum()\" (line 1, column 10)",
                "unexpected end of input expecting \"()\"",
            ),
            (
                "select",
                "count(*)",
                "\"failed to parse select parameter (count(*))\" (line 1, column 6)",
                "unexpected '(' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "brands(id",
                "\"failed to parse select parameter (brands(id)\" (line 1, column 10)",
                "unexpected end of input expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "brands!a!b!c(id)",
                "\"failed to parse select parameter (brands!a!b!c(id))\" (line 1, column 7)",
                "unexpected '!' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "brands!leftover(id)",
                "\"failed to parse select parameter (brands!leftover(id))\" (line 1, column 7)",
                "unexpected '!' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "alias:...brands(name)",
                "\"failed to parse select parameter (alias:...brands(name))\" (line 1, column 7)",
                "unexpected \".\" expecting \":\" or field name (* or [a..z0..9_$])",
            ),
            (
                "select",
                "brands->x(id)",
                "\"failed to parse select parameter (brands->x(id))\" (line 1, column 10)",
                "unexpected '(' expecting \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "\"unterminated",
                "\"failed to parse select parameter (\"unterminated)\" (line 1, column 14)",
                "unexpected end of input expecting \"\\\\\" or \"\\\"\"",
            ),
            (
                "select",
                "brands(id),",
                "\"failed to parse select parameter (brands(id),)\" (line 1, column 12)",
                "unexpected end of input expecting \"...\", field name (* or [a..z0..9_$]), \"*\" or \"count()\"",
            ),
            // Spaces after an embed's `)` are not skipped, as in PostgREST.
            (
                "select",
                "brands(id) ",
                "\"failed to parse select parameter (brands(id) )\" (line 1, column 12)",
                "unexpected end of input expecting \",\"",
            ),
            (
                "select",
                "a\0b",
                "\"failed to parse select parameter (a\0b)\" (line 1, column 2)",
                "unexpected '\\NUL' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input",
            ),
        ]);
    }

    #[test]
    fn text_after_a_complete_select_is_ignored_as_postgrest_does() {
        let cases: Vec<(&str, Vec<SelectItem>)> = vec![
            ("id)", query(&[("select", "id")]).expect("id").select),
            ("id,name))", query(&[("select", "id,name")]).expect("id,name").select),
            // Nothing parses: no item, which selects every column, as `select=` does.
            ("->x", query(&[("select", "")]).expect("empty").select),
        ];
        for (value, expected) in cases {
            let parsed = query(&[("select", value)]).unwrap_or_else(|e| panic!("{value}: {e}"));
            assert_eq!(parsed.select, expected, "{value}");
        }
    }

    #[test]
    fn select_errors_of_our_own_stricter_rules() {
        assert_errors(&[
            // PostgREST would paste `tex$t` into SQL unquoted; cut at `$`, the cast would
            // name another type.
            (
                "select",
                "price::tex$t",
                "\"failed to parse select parameter (price::tex$t)\" (line 1, column 11)",
                "unexpected '$' expecting letter, digit, \".\", \"::\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "price::tēxt",
                "\"failed to parse select parameter (price::tēxt)\" (line 1, column 9)",
                "unexpected '\\275' expecting letter, digit, \".\", \"::\", \")\", \",\" or end of input",
            ),
            (
                "select",
                "price::text[",
                "\"failed to parse select parameter (price::text[)\" (line 1, column 12)",
                "unexpected '[' expecting letter, digit, \".\", \"::\", \")\", \",\" or end of input",
            ),
        ]);
    }
}
