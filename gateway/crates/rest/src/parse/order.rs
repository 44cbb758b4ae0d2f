//! `order=`: terms separated by commas.
//!
//! Copied from PostgREST's `pOrder` in
//! <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>.

use super::parsec::{Parser, Reply, Seq, map};
use crate::ast::{Field, NullsOrder, OrderDirection, OrderTerm};

impl Parser {
    /// `pOrder`: at least one term, `rel(col)` terms tried first.
    pub(super) fn order_terms(&mut self) -> Reply<Vec<OrderTerm>> {
        self.sep_by1(
            |p| p.lexeme(|p| p.alt(|p| p.attempt(Parser::order_relation_term), Parser::order_term)),
            |p| p.char(','),
        )
    }

    /// `pOrderTerm`: `field[.asc|.desc][.nullsfirst|.nullslast]`.
    fn order_term(&mut self) -> Reply<OrderTerm> {
        let mut seq = Seq::new(self);
        let field = seq.step(self.field())?;
        let (direction, nulls) = seq.step(self.order_modifiers())?;
        seq.done(OrderTerm { relation: None, field, direction, nulls })
    }

    /// `pOrderRelationTerm`: `rel(field)` and the same modifiers.
    fn order_relation_term(&mut self) -> Reply<OrderTerm> {
        let mut seq = Seq::new(self);
        let relation = seq.step(self.field_name())?;
        let field: Field = seq.step(self.between(|p| p.char('('), |p| p.char(')'), Parser::field))?;
        let (direction, nulls) = seq.step(self.order_modifiers())?;
        seq.done(OrderTerm { relation: Some(relation), field, direction, nulls })
    }

    /// `dir <- optionMaybe pOrdDir; nls <- optionMaybe pNulls <* pEnd <|> pEnd $> Nothing`.
    fn order_modifiers(&mut self) -> Reply<(Option<OrderDirection>, Option<NullsOrder>)> {
        let mut seq = Seq::new(self);
        let direction = seq.step(self.option_maybe(|p| {
            p.alt(
                |p| p.attempt(|p| p.dotted("asc", OrderDirection::Asc)),
                |p| p.attempt(|p| p.dotted("desc", OrderDirection::Desc)),
            )
        }))?;
        let nulls = seq.step(self.alt(
            |p| {
                let mut seq = Seq::new(p);
                let nulls = seq.step(p.option_maybe(|p| {
                    p.alt(
                        |p| p.attempt(|p| p.dotted("nullsfirst", NullsOrder::First)),
                        |p| p.attempt(|p| p.dotted("nullslast", NullsOrder::Last)),
                    )
                }))?;
                seq.step(p.order_term_end())?;
                seq.done(nulls)
            },
            |p| map(p.order_term_end(), |()| None),
        ))?;
        seq.done((direction, nulls))
    }

    /// `pDelimiter *> string word $> value`.
    fn dotted<T>(&mut self, word: &'static str, value: T) -> Reply<T> {
        let mut seq = Seq::new(self);
        seq.step(self.delimiter())?;
        seq.step(self.string(word))?;
        seq.done(value)
    }

    /// `pEnd`: a `,` follows or the input ends.
    fn order_term_end(&mut self) -> Reply<()> {
        self.alt(|p| map(p.attempt(|p| p.look_ahead(|p| p.char(','))), |_| ()), |p| p.attempt(Parser::eof))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_errors, field, json, query, strings};
    use crate::ast::{NullsOrder, OrderDirection, OrderTerm};

    fn term(name: &str, direction: Option<OrderDirection>, nulls: Option<NullsOrder>) -> OrderTerm {
        OrderTerm { relation: None, field: field(name), direction, nulls }
    }

    fn order(value: &str) -> Vec<OrderTerm> {
        match query(&[("order", value)]) {
            Ok(parsed) => parsed.root.order,
            Err(e) => panic!("order={value}: {e}"),
        }
    }

    #[test]
    fn order_terms_take_a_direction_and_a_nulls_position() {
        use NullsOrder::{First, Last};
        use OrderDirection::{Asc, Desc};
        let cases = vec![
            ("id", vec![term("id", None, None)]),
            ("id.asc", vec![term("id", Some(Asc), None)]),
            ("id.desc", vec![term("id", Some(Desc), None)]),
            ("id.nullsfirst", vec![term("id", None, Some(First))]),
            ("id.asc.nullslast", vec![term("id", Some(Asc), Some(Last))]),
            (
                "featured.desc.nullslast,price.desc",
                vec![term("featured", Some(Desc), Some(Last)), term("price", Some(Desc), None)],
            ),
            ("id ,name", vec![term("id", None, None), term("name", None, None)]),
            (
                "data->a->>b.desc",
                vec![OrderTerm {
                    relation: None,
                    field: json("data", "->a->>b"),
                    direction: Some(Desc),
                    nulls: None,
                }],
            ),
            (
                "data->0",
                vec![OrderTerm { relation: None, field: json("data", "->0"), direction: None, nulls: None }],
            ),
            (
                "brands(name).desc.nullsfirst,id",
                vec![
                    OrderTerm {
                        relation: Some("brands".into()),
                        field: field("name"),
                        direction: Some(Desc),
                        nulls: Some(First),
                    },
                    term("id", None, None),
                ],
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(order(value), expected, "order={value}");
        }
    }

    #[test]
    fn embedded_order_applies_to_its_path_and_the_first_order_parameter_wins() {
        let parsed = query(&[("order", "id.desc"), ("order", "id.asc"), ("brands.order", "name")]);
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(parsed.root.order, vec![term("id", Some(OrderDirection::Desc), None)]);
        assert_eq!(
            parsed.node(&strings(&["brands"])).map(|n| n.order.clone()),
            Some(vec![term("name", None, None)])
        );
    }

    #[test]
    fn order_errors_match_postgrest_12() {
        let o = |value: &'static str, column: usize, details: &'static str| {
            (
                "order",
                value,
                format!("\"failed to parse order ({value})\" (line 1, column {column})"),
                details,
            )
        };
        let cases = [
            o("id.ac", 4, "unexpected \"c\" expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\""),
            o("id.descc", 8, "unexpected 'c' expecting delimiter (.), \",\" or end of input"),
            o(
                "id.nulsfist",
                4,
                "unexpected \"n\" expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"",
            ),
            o("id.nullslasttt", 13, "unexpected 't' expecting \",\" or end of input"),
            o("id.asc.nlsfst", 8, "unexpected \"l\" expecting \"nullsfirst\" or \"nullslast\""),
            o("id.asc.nullslasttt", 17, "unexpected 't' expecting \",\" or end of input"),
            o(
                "clients(name,id)",
                8,
                "unexpected '(' expecting letter, digit, \"-\", \"->>\", \"->\", delimiter (.), \",\" or end of input",
            ),
            o("id.desc,", 9, "unexpected end of input expecting field name (* or [a..z0..9_$])"),
            o("", 1, "unexpected end of input expecting field name (* or [a..z0..9_$])"),
            o("id,,x", 4, "unexpected \",\" expecting field name (* or [a..z0..9_$])"),
            o("id.desc.nullsfirst.x", 19, "unexpected '.' expecting \",\" or end of input"),
            o(
                "id.",
                4,
                "unexpected end of input expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"",
            ),
            o("(id)", 1, "unexpected \"(\" expecting field name (* or [a..z0..9_$])"),
            o("id.desc ,name", 8, "unexpected ' ' expecting delimiter (.), \",\" or end of input"),
            o(
                "a->x(id)",
                5,
                "unexpected '(' expecting \"-\", \"->>\", \"->\", delimiter (.), \",\" or end of input",
            ),
        ];
        for (key, value, message, details) in &cases {
            assert_errors(&[(key, value, message, details)]);
        }
    }
}
