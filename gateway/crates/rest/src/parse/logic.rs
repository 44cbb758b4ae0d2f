//! `or=(…)`, `and=(…)` and their `not.` and embedded forms.
//!
//! Copied from PostgREST's `pLogicTree` and `pLogicPath` in
//! <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>. PostgREST parses the key's operator
//! glued to the value (`or` + `(a.eq.1)` → `or(a.eq.1)`), so error columns count from the
//! start of that glued text; we do the same. Groups nest at most [`super::parsec::MAX_DEPTH`] deep.

use super::filter::ValueContext;
use super::parsec::{Expect, Parser, Reply, Seq, labelled, map};
use crate::ast::{EmbedPath, Filter, LogicOp, LogicTree};

impl Parser {
    /// `pLogicTree`: a filter, or `[not.]and|or(` trees separated by commas `)`.
    pub(super) fn logic_tree(&mut self) -> Reply<LogicTree> {
        self.alt(
            |p| map(p.attempt(Parser::logic_filter), LogicTree::Filter),
            |p| {
                let mut seq = Seq::new(p);
                let negated = seq.step(p.logic_not())?;
                let op = seq.step(p.logic_op())?;
                seq.step(p.lexeme(|p| p.char('(')))?;
                let children =
                    seq.step(p.nested(|p| p.sep_by1(Parser::logic_tree, |p| p.lexeme(|p| p.char(',')))))?;
                seq.step(p.lexeme(|p| p.char(')')))?;
                seq.done(LogicTree::Group { negated, op, children })
            },
        )
    }

    /// `pLogicFilter`: `field.[not.]op.value`.
    fn logic_filter(&mut self) -> Reply<Filter> {
        let mut seq = Seq::new(self);
        let field = seq.step(self.field())?;
        seq.step(self.delimiter())?;
        let (negated, operation) = seq.step(self.op_expr(ValueContext::LogicTree))?;
        seq.done(Filter { field, negated, operation })
    }

    /// `pNot`.
    fn logic_not(&mut self) -> Reply<bool> {
        let reply = self.alt(
            |p| {
                p.attempt(|p| {
                    let mut seq = Seq::new(p);
                    seq.step(p.string("not"))?;
                    seq.step(p.delimiter())?;
                    seq.done(true)
                })
            },
            |p| p.ok(false),
        );
        labelled(reply, Expect::Label("negation operator (not)"))
    }

    /// `pLogicOp`.
    fn logic_op(&mut self) -> Reply<LogicOp> {
        let reply = self.alt(
            |p| p.attempt(|p| map(p.string("and"), |_| LogicOp::And)),
            |p| map(p.string("or"), |_| LogicOp::Or),
        );
        labelled(reply, Expect::Label("logic operator (and, or)"))
    }

    /// `pLogicPath`: the key, `[rel.][not.]or`; returns the embed path and the operator text
    /// to glue before the value (`or`, `not.and`). Every `not` segment is dropped from the path.
    pub(super) fn logic_path(&mut self) -> Reply<(EmbedPath, String)> {
        let reply = self.sep_by1(Parser::field_name, Parser::delimiter);
        map(reply, |mut names| {
            let op = names.pop().unwrap_or_default();
            let negated = op == "not" || names.iter().any(|name| name == "not");
            names.retain(|name| name != "not");
            (names, if negated { format!("not.{op}") } else { op })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_errors, compare, field, json, query, strings};
    use crate::ast::{
        ArrayRangeOp, CompareOp, Filter, FtsOp, IsValue, LogicOp, LogicTree, Operation, Quantifier,
    };

    fn leaf(name: &str, operation: Operation) -> LogicTree {
        LogicTree::Filter(Filter { field: field(name), negated: false, operation })
    }

    fn eq(name: &str, value: &str) -> LogicTree {
        leaf(name, compare(CompareOp::Eq, value))
    }

    fn group(op: LogicOp, children: Vec<LogicTree>) -> LogicTree {
        LogicTree::Group { negated: false, op, children }
    }

    /// The trees `key=value` parses into, with their embed path.
    fn trees(key: &str, value: &str) -> Vec<(Vec<String>, LogicTree)> {
        let parsed = match query(&[(key, value)]) {
            Ok(parsed) => parsed,
            Err(e) => panic!("{key}={value}: {e}"),
        };
        let mut out: Vec<_> = parsed.root.logic.into_iter().map(|t| (Vec::new(), t)).collect();
        for (path, node) in parsed.embedded {
            out.extend(node.logic.into_iter().map(|t| (path.clone(), t)));
        }
        out
    }

    #[test]
    fn or_and_and_groups_nest_and_negate() {
        let cases = vec![
            ("or", "(a.eq.1,b.eq.2)", group(LogicOp::Or, vec![eq("a", "1"), eq("b", "2")])),
            ("and", "(a.eq.1)", group(LogicOp::And, vec![eq("a", "1")])),
            (
                "not.or",
                "(a.eq.1,b.eq.2)",
                LogicTree::Group {
                    negated: true,
                    op: LogicOp::Or,
                    children: vec![eq("a", "1"), eq("b", "2")],
                },
            ),
            (
                "or",
                "(a.eq.1,and(b.eq.2,or(c.eq.3,not.and(d.eq.4,e.eq.5))))",
                group(
                    LogicOp::Or,
                    vec![
                        eq("a", "1"),
                        group(
                            LogicOp::And,
                            vec![
                                eq("b", "2"),
                                group(
                                    LogicOp::Or,
                                    vec![
                                        eq("c", "3"),
                                        LogicTree::Group {
                                            negated: true,
                                            op: LogicOp::And,
                                            children: vec![eq("d", "4"), eq("e", "5")],
                                        },
                                    ],
                                ),
                            ],
                        ),
                    ],
                ),
            ),
            ("or", "( a.eq.1 , b.eq.2 )", group(LogicOp::Or, vec![eq("a", "1 "), eq("b", "2 ")])),
        ];
        for (key, value, expected) in cases {
            assert_eq!(trees(key, value), vec![(Vec::new(), expected)], "{key}={value}");
        }
    }

    #[test]
    fn filters_inside_a_tree_end_at_commas_unless_quoted_braced_or_listed() {
        let cases = vec![
            ("name.eq.\"a,b\"", eq("name", "a,b")),
            ("name.eq.\"a\\\"b\"", eq("name", "a\"b")),
            (
                "tags.cs.{a,b}",
                leaf("tags", Operation::ArrayRange { op: ArrayRangeOp::Contains, value: "{a,b}".into() }),
            ),
            ("id.in.(1,2)", leaf("id", Operation::In(strings(&["1", "2"])))),
            ("id.in.(\"a,b\",c)", leaf("id", Operation::In(strings(&["a,b", "c"])))),
            ("id.is.null", leaf("id", Operation::Is(IsValue::Null))),
            (
                "body.fts(english).cat",
                leaf(
                    "body",
                    Operation::FullText {
                        op: FtsOp::Fts,
                        language: Some("english".into()),
                        query: "cat".into(),
                    },
                ),
            ),
            ("name.ilike.*x*", leaf("name", compare(CompareOp::ILike, "%x%"))),
            (
                "name.like(any).{a*,b*}",
                leaf(
                    "name",
                    Operation::Quantified {
                        op: CompareOp::Like,
                        quantifier: Quantifier::Any,
                        values: strings(&["a%", "b%"]),
                    },
                ),
            ),
            (
                "id.eq(all).(1,2)",
                leaf(
                    "id",
                    Operation::Quantified {
                        op: CompareOp::Eq,
                        quantifier: Quantifier::All,
                        values: strings(&["1", "2"]),
                    },
                ),
            ),
            (
                "data->a->>b.eq.1",
                LogicTree::Filter(Filter {
                    field: json("data", "->a->>b"),
                    negated: false,
                    operation: compare(CompareOp::Eq, "1"),
                }),
            ),
            (
                "id.not.eq.1",
                LogicTree::Filter(Filter {
                    field: field("id"),
                    negated: true,
                    operation: compare(CompareOp::Eq, "1"),
                }),
            ),
            (
                "brands.not.is.null",
                LogicTree::Filter(Filter {
                    field: field("brands"),
                    negated: true,
                    operation: Operation::Is(IsValue::Null),
                }),
            ),
            ("name.eq.", eq("name", "")),
        ];
        for (filter, expected) in cases {
            let value = format!("({filter},z.eq.0)");
            assert_eq!(
                trees("or", &value),
                vec![(Vec::new(), group(LogicOp::Or, vec![expected, eq("z", "0")]))],
                "or={value}"
            );
        }
    }

    #[test]
    fn logic_keys_may_name_an_embed_and_drop_every_not_from_the_path() {
        assert_eq!(
            trees("brands.or", "(id.eq.1)"),
            vec![(strings(&["brands"]), group(LogicOp::Or, vec![eq("id", "1")]))]
        );
        assert_eq!(
            trees("a.b.not.and", "(id.eq.1)"),
            vec![(
                strings(&["a", "b"]),
                LogicTree::Group { negated: true, op: LogicOp::And, children: vec![eq("id", "1")] }
            )]
        );
        assert_eq!(
            trees("not.a.or", "(id.eq.1)"),
            vec![(
                strings(&["a"]),
                LogicTree::Group { negated: true, op: LogicOp::Or, children: vec![eq("id", "1")] }
            )]
        );
    }

    #[test]
    fn several_logic_parameters_are_all_kept() {
        let parsed = query(&[("or", "(a.eq.1,b.eq.2)"), ("or", "(c.eq.3,d.eq.4)"), ("and", "(e.eq.5)")])
            .map(|q| q.root.logic.len());
        assert_eq!(parsed, Ok(3));
    }

    #[test]
    fn logic_errors_match_postgrest_12() {
        let t = |key: &'static str, value: &'static str, column: usize, details: &'static str| {
            (
                key,
                value,
                format!("\"failed to parse logic tree ({value})\" (line 1, column {column})"),
                details,
            )
        };
        let cases = [
            t(
                "or",
                "()",
                4,
                "unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)",
            ),
            t("or", "(id.in.1,2,id.eq.3)", 10, "unexpected \"1\" expecting \"(\""),
            t("or", ")(", 3, "unexpected \")\" expecting \"(\""),
            t("and", "(ord(id.eq.1,id.eq.1),id.eq.2)", 7, "unexpected \"d\" expecting \"(\""),
            t(
                "or",
                "(id.eq.1,not.xor(id.eq.2,id.eq.3))",
                16,
                "unexpected \"x\" expecting logic operator (and, or)",
            ),
            t("or", "", 3, "unexpected end of input expecting \"(\""),
            t("or", "(id.eq.1", 11, "unexpected end of input expecting \",\" or \")\""),
            t(
                "or",
                "(id.eq.1,)",
                12,
                "unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)",
            ),
            t(
                "or",
                "(tags.cs.{a,b)",
                16,
                "unexpected \")\" expecting letter, digit, \"-\", \"->>\", \"->\" or delimiter (.)",
            ),
            t("or", "(id.in.(1,2)x,id.eq.1)", 15, "unexpected \"x\" expecting \",\" or \")\""),
            t("or", "(id.gtx.1)", 9, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            t(
                "or",
                "(id)",
                6,
                "unexpected \")\" expecting letter, digit, \"-\", \"->>\", \"->\" or delimiter (.)",
            ),
            t("or", "(nott.and(id.eq.1))", 9, "unexpected \"a\" expecting \"not\" or operator (eq, gt, ...)"),
        ];
        for (key, value, message, details) in &cases {
            assert_errors(&[(key, value, message, details)]);
        }
        assert_errors(&[(
            "a..or",
            "(id.eq.1)",
            "\"failed to parse logic path (a..or)\" (line 1, column 3)",
            "unexpected \".\" expecting field name (* or [a..z0..9_$])",
        )]);
    }

    #[test]
    fn text_after_the_closing_parenthesis_is_ignored_as_postgrest_does() {
        for value in ["(id.eq.1)xyz", "(id.eq.1))", "(id.eq.1) and more"] {
            let parsed = query(&[("or", value)]).unwrap_or_else(|e| panic!("{value}: {e}"));
            let expected = query(&[("or", "(id.eq.1)")]).expect("or").root.logic;
            assert_eq!(parsed.root.logic, expected, "{value}");
        }
    }
}
