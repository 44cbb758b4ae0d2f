//! Operator expressions: the `not.op.value` part of a filter.
//!
//! Copied from PostgREST's `pOpExpr`, `pListVal`, `pListElement` and `pLogicSingleVal` in
//! <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>. Differences, all additions:
//!
//! * `neq` takes `(any)`/`(all)` like `eq` does (PostgREST only allows it on `eq`, `gt`, `gte`,
//!   `lt`, `lte`, `like`, `ilike`, `match`, `imatch`);
//! * a quantified operator's operand is parsed as a list here, `{a,b}` or `(a,b)`, where
//!   PostgREST hands the raw text to Postgres as an array literal;
//! * in `like`/`ilike` operands `*` becomes `%` here (PostgREST does it when writing SQL, in
//!   `pgFmtFilter`, <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/Query/SqlFragment.hs>).

use super::parsec::{Expect, Parser, Reply, Seq, choice, labelled, map};
use crate::ast::{ArrayRangeOp, CompareOp, FtsOp, IsValue, Operation, Quantifier};

/// Where an operator expression stands, which decides where its value ends.
#[derive(Clone, Copy)]
pub(super) enum ValueContext {
    /// The whole value of a query parameter: everything up to the end (`pSingleVal`).
    Parameter,
    /// A filter inside `or=(…)`: up to the next `,` or `)` (`pLogicSingleVal`).
    LogicTree,
}

impl Parser {
    /// `pOpExpr`: `[not.]operator`, returning whether it was negated.
    pub(super) fn op_expr(&mut self, context: ValueContext) -> Reply<(bool, Operation)> {
        let mut seq = Seq::new(self);
        let negated = seq.step(self.alt(
            |p| {
                p.attempt(|p| {
                    let mut seq = Seq::new(p);
                    seq.step(p.string("not"))?;
                    seq.step(p.delimiter())?;
                    seq.done(true)
                })
            },
            |p| p.ok(false),
        ))?;
        let operation = seq.step(self.operation(context))?;
        seq.done((negated, operation))
    }

    /// `pOperation`.
    fn operation(&mut self, context: ValueContext) -> Reply<Operation> {
        let reply = choice!(
            self,
            |p| p.operator_then("in", |p| map(p.list_value(), Operation::In)),
            |p| p.operator_then("is", |p| map(p.is_value(), Operation::Is)),
            |p| p.operator_then("isdistinct", |p| map(p.single_value(context), Operation::IsDistinct)),
            |p| p.attempt(|p| p.full_text(context)),
            |p| p.attempt(|p| p.array_range(context)),
            |p| p.compare(context),
        );
        labelled(reply, Expect::Label("operator (eq, gt, ...)"))
    }

    /// `try (string name *> pDelimiter) *> operand`.
    fn operator_then(
        &mut self,
        name: &'static str,
        operand: impl FnOnce(&mut Parser) -> Reply<Operation>,
    ) -> Reply<Operation> {
        let mut seq = Seq::new(self);
        seq.step(self.attempt(|p| {
            let mut seq = Seq::new(p);
            seq.step(p.string(name))?;
            seq.step(p.delimiter())?;
            seq.done(())
        }))?;
        let operation = seq.step(operand(self))?;
        seq.done(operation)
    }

    /// `pSimpleOp` without `neq`: array and range operators, whose value is kept raw.
    fn array_range(&mut self, context: ValueContext) -> Reply<Operation> {
        let mut seq = Seq::new(self);
        let op = seq.step(labelled(
            choice!(
                self,
                |p| p.keyword("cs", ArrayRangeOp::Contains),
                |p| p.keyword("cd", ArrayRangeOp::ContainedIn),
                |p| p.keyword("ov", ArrayRangeOp::Overlaps),
                |p| p.keyword("sl", ArrayRangeOp::StrictlyLeft),
                |p| p.keyword("sr", ArrayRangeOp::StrictlyRight),
                |p| p.keyword("nxr", ArrayRangeOp::NotExtendsRight),
                |p| p.keyword("nxl", ArrayRangeOp::NotExtendsLeft),
                |p| p.keyword("adj", ArrayRangeOp::Adjacent),
            ),
            Expect::Label("unknown single value operator"),
        ))?;
        seq.step(self.delimiter())?;
        let value = seq.step(self.single_value(context))?;
        seq.done(Operation::ArrayRange { op, value })
    }

    /// `pQuantOp`: a comparison, optionally `(any)`/`(all)` over a list. Only the operator is
    /// under `try`, as for `in`: the single value cannot fail, and a bad list should be reported
    /// as such, not as an unknown operator.
    fn compare(&mut self, context: ValueContext) -> Reply<Operation> {
        let mut seq = Seq::new(self);
        let (op, quantifier) = seq.step(self.attempt(Parser::compare_operator))?;
        let like = matches!(op, CompareOp::Like | CompareOp::ILike);
        let operation = match quantifier {
            None => {
                let value = seq.step(self.single_value(context))?;
                Operation::Compare { op, value: if like { stars_to_percent(value) } else { value } }
            }
            Some(quantifier) => {
                let mut values = seq.step(self.quantified_list())?;
                if like {
                    values = values.into_iter().map(stars_to_percent).collect();
                }
                Operation::Quantified { op, quantifier, values }
            }
        };
        seq.done(operation)
    }

    /// `op[(any)|(all)].`
    fn compare_operator(&mut self) -> Reply<(CompareOp, Option<Quantifier>)> {
        let mut seq = Seq::new(self);
        let op = seq.step(labelled(
            choice!(
                self,
                |p| p.keyword("neq", CompareOp::Neq),
                |p| p.keyword("eq", CompareOp::Eq),
                |p| p.keyword("gte", CompareOp::Gte),
                |p| p.keyword("gt", CompareOp::Gt),
                |p| p.keyword("lte", CompareOp::Lte),
                |p| p.keyword("lt", CompareOp::Lt),
                |p| p.keyword("like", CompareOp::Like),
                |p| p.keyword("ilike", CompareOp::ILike),
                |p| p.keyword("match", CompareOp::Match),
                |p| p.keyword("imatch", CompareOp::IMatch),
            ),
            Expect::Label("unknown single value operator"),
        ))?;
        let quantifier = seq.step(self.option_maybe(|p| {
            p.attempt(|p| {
                p.between(
                    |p| p.char('('),
                    |p| p.char(')'),
                    |p| {
                        p.alt(
                            |p| p.keyword("any", Quantifier::Any),
                            |p| map(p.string("all"), |_| Quantifier::All),
                        )
                    },
                )
            })
        }))?;
        seq.step(self.delimiter())?;
        seq.done((op, quantifier))
    }

    /// `pFts`: `fts`, `plfts`, `phfts` or `wfts`, with an optional `(language)`.
    fn full_text(&mut self, context: ValueContext) -> Reply<Operation> {
        let mut seq = Seq::new(self);
        let op = seq.step(choice!(
            self,
            |p| p.keyword("fts", FtsOp::Fts),
            |p| p.keyword("plfts", FtsOp::Plain),
            |p| p.keyword("phfts", FtsOp::Phrase),
            |p| p.keyword("wfts", FtsOp::Websearch),
        ))?;
        let language = seq.step(self.option_maybe(|p| {
            p.attempt(|p| p.between(|p| p.char('('), |p| p.char(')'), Parser::identifier))
        }))?;
        seq.step(self.delimiter())?;
        let query = seq.step(self.single_value(context))?;
        seq.done(Operation::FullText { op, language, query })
    }

    /// `try (string word $> value)`.
    fn keyword<T>(&mut self, word: &'static str, value: T) -> Reply<T> {
        self.attempt(|p| map(p.string(word), |_| value))
    }

    /// `pIsVal`: one of five keywords, any letter case.
    fn is_value(&mut self) -> Reply<IsValue> {
        let reply = choice!(
            self,
            |p| p.attempt(|p| map(p.case_insensitive("null"), |()| IsValue::Null)),
            |p| p.attempt(|p| map(p.case_insensitive("not_null"), |()| IsValue::NotNull)),
            |p| p.attempt(|p| map(p.case_insensitive("true"), |()| IsValue::True)),
            |p| p.attempt(|p| map(p.case_insensitive("false"), |()| IsValue::False)),
            |p| p.attempt(|p| map(p.case_insensitive("unknown"), |()| IsValue::Unknown)),
        );
        labelled(reply, Expect::Label("isVal: (null, not_null, true, false, unknown)"))
    }

    /// `ciString`: each character as itself or upper-cased (`ciChar c = char c <|> char (toUpper c)`).
    fn case_insensitive(&mut self, word: &'static str) -> Reply<()> {
        let mut seq = Seq::new(self);
        for c in word.chars() {
            let upper = c.to_ascii_uppercase();
            seq.step(self.alt(|p| p.char(c), |p| p.char(upper)))?;
        }
        seq.done(())
    }

    /// The operand of a single-value operator.
    fn single_value(&mut self, context: ValueContext) -> Reply<String> {
        match context {
            ValueContext::Parameter => self.many_chars(Parser::any_char),
            ValueContext::LogicTree => choice!(
                self,
                |p| p.attempt(|p| p.quoted_then_not(&[',', ')'])),
                |p| p.attempt(Parser::pg_array),
                |p| p.many_chars(|p| p.none_of(&[',', ')'])),
            ),
        }
    }

    /// `pPgArray`: `{…}` without nested braces, kept with its braces.
    fn pg_array(&mut self) -> Reply<String> {
        let mut seq = Seq::new(self);
        seq.step(self.string("{"))?;
        let inner = seq.step(self.many_chars(|p| p.none_of(&['{', '}'])))?;
        seq.step(self.string("}"))?;
        seq.done(format!("{{{inner}}}"))
    }

    /// `pQuotedValue <* notFollowedBy (noneOf ends)`: a quoted value that ends where the element does.
    fn quoted_then_not(&mut self, ends: &'static [char]) -> Reply<String> {
        let mut seq = Seq::new(self);
        let value = seq.step(self.quoted_value())?;
        seq.step(self.not_followed_by(|p| p.none_of(ends)))?;
        seq.done(value)
    }

    /// `pListVal`: `(a,"b,c",d)`. PostgREST's SQL writer (`pgFmtFilter`) treats the single
    /// empty element that `()` parses into as the empty list; here the tree says so directly.
    fn list_value(&mut self) -> Reply<Vec<String>> {
        let mut seq = Seq::new(self);
        seq.step(self.lexeme(|p| p.char('(')))?;
        let values = seq.step(self.sep_by1(|p| p.list_element(&[',', ')']), |p| p.char(',')))?;
        seq.step(self.lexeme(|p| p.char(')')))?;
        seq.done(empty_list_if_blank(values))
    }

    /// `pListElement`, ended by one of `ends`.
    fn list_element(&mut self, ends: &'static [char]) -> Reply<String> {
        self.alt(|p| p.attempt(|p| p.quoted_then_not(ends)), |p| p.many_chars(|p| p.none_of(ends)))
    }

    /// The operand of `op(any)`/`op(all)`: `{a,b}` with the element rules of a Postgres array
    /// literal as far as quoting and surrounding spaces go, or `(a,b)` with the rules of `in`.
    fn quantified_list(&mut self) -> Reply<Vec<String>> {
        let reply = self.alt(
            |p| {
                p.between(
                    |p| p.char('{'),
                    |p| p.char('}'),
                    |p| p.sep_by1(Parser::brace_element, |p| p.char(',')),
                )
            },
            |p| {
                p.between(
                    |p| p.char('('),
                    |p| p.char(')'),
                    |p| p.sep_by1(|p| p.list_element(&[',', ')']), |p| p.char(',')),
                )
            },
        );
        map(reply, empty_list_if_blank)
    }

    /// An element of `{…}`: spaces around it are dropped, quoted or not.
    fn brace_element(&mut self) -> Reply<String> {
        let mut seq = Seq::new(self);
        seq.step(self.ws())?;
        let value = seq.step(self.alt(
            |p| {
                p.attempt(|p| {
                    let mut seq = Seq::new(p);
                    let value = seq.step(p.quoted_value())?;
                    seq.step(p.ws())?;
                    seq.step(p.not_followed_by(|p| p.none_of(&[',', '}'])))?;
                    seq.done(value)
                })
            },
            |p| {
                map(p.many_chars(|p| p.none_of(&[',', '}'])), |text| {
                    text.trim_end_matches([' ', '\t']).to_owned()
                })
            },
        ))?;
        seq.done(value)
    }
}

fn empty_list_if_blank(values: Vec<String>) -> Vec<String> {
    if values.len() == 1 && values.first().is_some_and(String::is_empty) { Vec::new() } else { values }
}

/// PostgREST accepts `*` as the wildcard of `like` patterns (`star` in `pgFmtFilter`), since
/// `%` needs escaping in URLs.
fn stars_to_percent(value: String) -> String {
    if value.contains('*') { value.replace('*', "%") } else { value }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_errors, compare, field, json, query, strings};
    use crate::ast::{ArrayRangeOp, CompareOp, Filter, FtsOp, IsValue, Operation, Quantifier};

    /// The single filter `key=value` parses into.
    fn filter(key: &str, value: &str) -> Filter {
        match query(&[(key, value)]) {
            Ok(mut parsed) if parsed.root.filters.len() == 1 => parsed.root.filters.remove(0),
            other => panic!("{key}={value}: {other:?}"),
        }
    }

    fn operation(value: &str) -> (bool, Operation) {
        let parsed = filter("col", value);
        (parsed.negated, parsed.operation)
    }

    #[test]
    fn every_comparison_operator_takes_the_rest_of_the_value_raw() {
        let cases = [
            ("eq.1", CompareOp::Eq, "1"),
            ("neq.1", CompareOp::Neq, "1"),
            ("gt.1", CompareOp::Gt, "1"),
            ("gte.1", CompareOp::Gte, "1"),
            ("lt.1", CompareOp::Lt, "1"),
            ("lte.1", CompareOp::Lte, "1"),
            ("like.a*b", CompareOp::Like, "a%b"),
            ("ilike.*phone 15*", CompareOp::ILike, "%phone 15%"),
            ("ilike.%phone%", CompareOp::ILike, "%phone%"),
            ("match.^a.*b$", CompareOp::Match, "^a.*b$"),
            ("imatch.^A", CompareOp::IMatch, "^A"),
            ("eq.", CompareOp::Eq, ""),
            ("eq.a.b.c", CompareOp::Eq, "a.b.c"),
            ("eq.with,commas(and)parens \"quotes\"", CompareOp::Eq, "with,commas(and)parens \"quotes\""),
            ("eq.*", CompareOp::Eq, "*"),
            ("eq.\0", CompareOp::Eq, "\0"),
            ("gt.2024-01-01T00:00:00+00:00", CompareOp::Gt, "2024-01-01T00:00:00+00:00"),
        ];
        for (value, op, operand) in cases {
            assert_eq!(operation(value), (false, compare(op, operand)), "{value}");
        }
    }

    #[test]
    fn not_negates_any_operator() {
        let cases = [
            ("not.eq.1", compare(CompareOp::Eq, "1")),
            ("not.like.*x*", compare(CompareOp::Like, "%x%")),
            ("not.in.(1,2)", Operation::In(strings(&["1", "2"]))),
            ("not.is.null", Operation::Is(IsValue::Null)),
            ("not.cs.{a}", Operation::ArrayRange { op: ArrayRangeOp::Contains, value: "{a}".into() }),
            ("not.fts.cat", Operation::FullText { op: FtsOp::Fts, language: None, query: "cat".into() }),
            ("not.isdistinct.1", Operation::IsDistinct("1".into())),
            (
                "not.eq(any).{1,2}",
                Operation::Quantified {
                    op: CompareOp::Eq,
                    quantifier: Quantifier::Any,
                    values: strings(&["1", "2"]),
                },
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(operation(value), (true, expected), "{value}");
        }
    }

    #[test]
    fn in_lists_take_quoted_values_with_commas_parentheses_and_escapes() {
        let cases: &[(&str, &[&str])] = &[
            ("in.(1,2,3)", &["1", "2", "3"]),
            ("in.(a)", &["a"]),
            ("in.()", &[]),
            ("in.(\"\")", &[]),
            ("in.(a,,b)", &["a", "", "b"]),
            (
                "in.(\"a,b\",\"c)d\",\"say \\\"hi\\\"\",\"back\\\\slash\")",
                &["a,b", "c)d", "say \"hi\"", "back\\slash"],
            ),
            ("in.( 1 , 2 )", &["1 ", " 2 "]),
            ("in.(\"a\"x,b)", &["\"a\"x", "b"]),
            ("in.(Pixel 8,Galaxy S24)", &["Pixel 8", "Galaxy S24"]),
            ("in.(\0,é)", &["\0", "é"]),
        ];
        for (value, expected) in cases {
            assert_eq!(operation(value), (false, Operation::In(strings(expected))), "{value}");
        }
    }

    #[test]
    fn is_accepts_five_keywords_in_any_letter_case() {
        let cases = [
            ("is.null", IsValue::Null),
            ("is.NULL", IsValue::Null),
            ("is.NuLl", IsValue::Null),
            ("is.not_null", IsValue::NotNull),
            ("is.NOT_NULL", IsValue::NotNull),
            ("is.true", IsValue::True),
            ("is.TRUE", IsValue::True),
            ("is.false", IsValue::False),
            ("is.unknown", IsValue::Unknown),
        ];
        for (value, expected) in cases {
            assert_eq!(operation(value), (false, Operation::Is(expected)), "{value}");
        }
    }

    #[test]
    fn full_text_operators_take_an_optional_language() {
        let cases = [
            ("fts.cat", FtsOp::Fts, None, "cat"),
            ("fts(english).cat & dog", FtsOp::Fts, Some("english"), "cat & dog"),
            ("plfts.fat cats", FtsOp::Plain, None, "fat cats"),
            ("phfts(simple).the cat", FtsOp::Phrase, Some("simple"), "the cat"),
            ("wfts(english).\"fat cat\" -rat", FtsOp::Websearch, Some("english"), "\"fat cat\" -rat"),
            ("fts( english ).x", FtsOp::Fts, Some("english"), "x"),
        ];
        for (value, op, language, text) in cases {
            let expected =
                Operation::FullText { op, language: language.map(str::to_owned), query: text.to_owned() };
            assert_eq!(operation(value), (false, expected), "{value}");
        }
    }

    #[test]
    fn array_and_range_operators_keep_their_literal_raw() {
        let cases = [
            ("cs.{a,b}", ArrayRangeOp::Contains, "{a,b}"),
            ("cs.{\"k\":1}", ArrayRangeOp::Contains, "{\"k\":1}"),
            ("cd.{1}", ArrayRangeOp::ContainedIn, "{1}"),
            ("ov.[1,5)", ArrayRangeOp::Overlaps, "[1,5)"),
            ("sl.(1,10)", ArrayRangeOp::StrictlyLeft, "(1,10)"),
            ("sr.(1,10)", ArrayRangeOp::StrictlyRight, "(1,10)"),
            ("nxr.(1,10)", ArrayRangeOp::NotExtendsRight, "(1,10)"),
            ("nxl.(1,10)", ArrayRangeOp::NotExtendsLeft, "(1,10)"),
            ("adj.(1,10)", ArrayRangeOp::Adjacent, "(1,10)"),
        ];
        for (value, op, literal) in cases {
            assert_eq!(
                operation(value),
                (false, Operation::ArrayRange { op, value: literal.to_owned() }),
                "{value}"
            );
        }
        assert_eq!(operation("isdistinct.5"), (false, Operation::IsDistinct("5".into())));
    }

    #[test]
    fn any_and_all_apply_a_comparison_to_a_braced_or_parenthesised_list() {
        let q = |op, quantifier, values: &[&str]| Operation::Quantified {
            op,
            quantifier,
            values: strings(values),
        };
        let cases = [
            ("eq(any).{1,2}", q(CompareOp::Eq, Quantifier::Any, &["1", "2"])),
            ("eq(all).(1,2)", q(CompareOp::Eq, Quantifier::All, &["1", "2"])),
            ("neq(any).{a,b}", q(CompareOp::Neq, Quantifier::Any, &["a", "b"])),
            ("gt(any).{1}", q(CompareOp::Gt, Quantifier::Any, &["1"])),
            ("gte(all).{1}", q(CompareOp::Gte, Quantifier::All, &["1"])),
            ("lt(any).{1}", q(CompareOp::Lt, Quantifier::Any, &["1"])),
            ("lte(all).{1}", q(CompareOp::Lte, Quantifier::All, &["1"])),
            ("like(any).{a*,*b}", q(CompareOp::Like, Quantifier::Any, &["a%", "%b"])),
            ("ilike(all).(*x*,\"y*\")", q(CompareOp::ILike, Quantifier::All, &["%x%", "y%"])),
            ("match(any).{^a,b$}", q(CompareOp::Match, Quantifier::Any, &["^a", "b$"])),
            ("imatch(all).{^a}", q(CompareOp::IMatch, Quantifier::All, &["^a"])),
            ("eq(any).{ a , \" b,c \" }", q(CompareOp::Eq, Quantifier::Any, &["a", " b,c "])),
            ("eq(any).( a , b )", q(CompareOp::Eq, Quantifier::Any, &[" a ", " b "])),
            ("eq(any).{}", q(CompareOp::Eq, Quantifier::Any, &[])),
            ("eq(any).()", q(CompareOp::Eq, Quantifier::Any, &[])),
        ];
        for (value, expected) in cases {
            assert_eq!(operation(value), (false, expected), "{value}");
        }
    }

    #[test]
    fn filter_keys_name_a_column_a_json_path_or_an_embedded_column() {
        let parsed = query(&[("data->a->>b", "eq.1"), ("brands.name", "eq.Apple"), ("a.b.c", "is.null")]);
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            parsed.root.filters,
            vec![Filter {
                field: json("data", "->a->>b"),
                negated: false,
                operation: compare(CompareOp::Eq, "1")
            }]
        );
        let brands = parsed.node(&strings(&["brands"])).map(|n| n.filters.clone());
        assert_eq!(
            brands,
            Some(vec![Filter {
                field: field("name"),
                negated: false,
                operation: compare(CompareOp::Eq, "Apple")
            }])
        );
        let deep = parsed.node(&strings(&["a", "b"])).map(|n| n.filters.clone());
        assert_eq!(
            deep,
            Some(vec![Filter { field: field("c"), negated: false, operation: Operation::Is(IsValue::Null) }])
        );
    }

    #[test]
    fn an_embed_null_test_is_a_filter_the_planner_can_recognise() {
        assert_eq!(filter("brands", "is.null").null_test(), Some(true));
        assert_eq!(filter("brands", "not.is.null").null_test(), Some(false));
        assert_eq!(filter("brands", "is.not_null").null_test(), Some(false));
        assert_eq!(filter("brands", "not.is.not_null").null_test(), Some(true));
        assert_eq!(filter("brands", "is.true").null_test(), None);
        assert_eq!(filter("data->a", "is.null").null_test(), None);
    }

    #[test]
    fn filter_errors_match_postgrest_12() {
        let f = |value: &'static str, column: usize, details: &'static str| {
            (value, format!("\"failed to parse filter ({value})\" (line 1, column {column})"), details)
        };
        let cases = [
            f("gtx.5", 3, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            f("noop.0", 1, "unexpected \"o\" expecting \"not\" or operator (eq, gt, ...)"),
            f("val", 1, "unexpected \"v\" expecting \"not\" or operator (eq, gt, ...)"),
            f("", 1, "unexpected end of input expecting \"not\" or operator (eq, gt, ...)"),
            f("eq", 3, "unexpected end of input expecting operator (eq, gt, ...)"),
            f("not.xyz", 5, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            f("not.", 5, "unexpected end of input expecting operator (eq, gt, ...)"),
            f("nott.eq.1", 4, "unexpected \"t\" expecting delimiter (.)"),
            f("not.not.eq.1", 5, "unexpected \"n\" expecting operator (eq, gt, ...)"),
            f("in.(1,2", 8, "unexpected end of input expecting \",\" or \")\""),
            f("in.1,2", 4, "unexpected \"1\" expecting \"(\""),
            f("in.(\"unterminated", 18, "unexpected end of input expecting \",\" or \")\""),
            f("isdistinct", 11, "unexpected end of input expecting operator (eq, gt, ...)"),
            f("fts().cat", 5, "unexpected \")\" expecting operator (eq, gt, ...)"),
            f("fts(eng-lish).cat", 8, "unexpected \"-\" expecting operator (eq, gt, ...)"),
            f("ftsx.a", 4, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            f("adjx", 4, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            f("eq(none).{1}", 4, "unexpected \"n\" expecting operator (eq, gt, ...)"),
            f("eq().1", 4, "unexpected \")\" expecting operator (eq, gt, ...)"),
            f("eq(any.1", 7, "unexpected \".\" expecting operator (eq, gt, ...)"),
            f("likex.a", 5, "unexpected \"x\" expecting operator (eq, gt, ...)"),
            f("%00", 1, "unexpected \"%\" expecting \"not\" or operator (eq, gt, ...)"),
            f("\0", 1, "unexpected \"\\NUL\" expecting \"not\" or operator (eq, gt, ...)"),
            f("é", 1, "unexpected \"\\233\" expecting \"not\" or operator (eq, gt, ...)"),
            f("\t", 1, "unexpected \"\\t\" expecting \"not\" or operator (eq, gt, ...)"),
            f("eq\t.1", 3, "unexpected \"\\t\" expecting operator (eq, gt, ...)"),
        ];
        for (value, message, details) in cases {
            assert_errors(&[("price", value, &message, details)]);
        }
    }

    #[test]
    fn filter_errors_of_our_own_rules() {
        assert_errors(&[
            // PostgREST 14 words the `is` expectation like this; 12.0.2 said
            // "null or trilean value (unknown, true, false)".
            (
                "col",
                "is.nul",
                "\"failed to parse filter (is.nul)\" (line 1, column 7)",
                "unexpected end of input expecting isVal: (null, not_null, true, false, unknown)",
            ),
            // PostgREST accepts `is.null` and ignores what follows.
            (
                "col",
                "is.nullx",
                "\"failed to parse filter (is.nullx)\" (line 1, column 8)",
                "unexpected 'x' expecting end of input",
            ),
            (
                "col",
                "in.(1)x",
                "\"failed to parse filter (in.(1)x)\" (line 1, column 7)",
                "unexpected 'x' expecting end of input",
            ),
            // PostgREST passes `1` on to Postgres as an array literal, which rejects it.
            (
                "col",
                "eq(any).1",
                "\"failed to parse filter (eq(any).1)\" (line 1, column 9)",
                "unexpected \"1\" expecting \"{\" or \"(\"",
            ),
            (
                "col",
                "eq(any).{1,2",
                "\"failed to parse filter (eq(any).{1,2)\" (line 1, column 13)",
                "unexpected end of input expecting \",\" or \"}\"",
            ),
            (
                "col",
                "eq(any).{1}x",
                "\"failed to parse filter (eq(any).{1}x)\" (line 1, column 12)",
                "unexpected 'x' expecting end of input",
            ),
        ]);
    }
}
