//! Names, quoted values and JSON paths: the pieces every other grammar is made of.
//!
//! Copied from PostgREST's `pFieldName`, `pIdentifier`, `pQuotedValue`, `pJsonPath`, `pField`,
//! `pTreePath` and `pColumns` in <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>,
//! with one restriction of ours: casts (`cast_name`).

use super::parsec::{Expect, Parser, Reply, Seq, Success, choice, labelled, map};
use crate::ast::{EmbedPath, Field, JsonArrow, JsonKey, JsonStep};

impl Parser {
    /// `pQuotedValue`: `"…"` where a backslash takes the next character literally.
    pub(super) fn quoted_value(&mut self) -> Reply<String> {
        let mut seq = Seq::new(self);
        seq.step(self.char('"'))?;
        let text = seq.step(self.many_chars(|p| {
            p.alt(
                |p| p.none_of(&['\\', '"']),
                |p| {
                    let mut seq = Seq::new(p);
                    seq.step(p.char('\\'))?;
                    let c = seq.step(p.any_char())?;
                    seq.done(c)
                },
            )
        }))?;
        seq.step(self.char('"'))?;
        seq.done(text)
    }

    /// `pIdentifierChar = letter <|> digit <|> oneOf "_ $"`.
    fn identifier_char(&mut self) -> Reply<char> {
        choice!(self, Parser::letter, Parser::digit, |p| p.one_of(&['_', ' ', '$']))
    }

    /// `pIdentifier`: identifier characters, trimmed.
    pub(super) fn identifier(&mut self) -> Reply<String> {
        // `letter` is `char::is_alphabetic` and `digit` ASCII, as in `identifier_char`.
        let quick = |c: char| c.is_alphabetic() || c.is_ascii_digit() || matches!(c, '_' | ' ' | '$');
        let reply = match self.many1_quietly(quick) {
            Some(reply) => reply,
            None => self.many1_chars(Parser::identifier_char),
        };
        map(reply, |text| if text.trim().len() == text.len() { text } else { text.trim().to_owned() })
    }

    /// `sepByDash`: parts joined by `-`, where a `-` that starts `->` ends the name instead.
    fn sep_by_dash(&mut self, part: fn(&mut Parser) -> Reply<String>) -> Reply<String> {
        let reply = self.sep_by1(part, |p| {
            p.attempt(|p| {
                let mut seq = Seq::new(p);
                seq.step(p.char('-'))?;
                seq.step(p.not_followed_by(|p| p.char('>')))?;
                seq.done('-')
            })
        });
        map(reply, |mut parts| if parts.len() == 1 { parts.swap_remove(0) } else { parts.join("-") })
    }

    /// `pFieldName`: a quoted name, or identifiers joined by dashes.
    pub(super) fn field_name(&mut self) -> Reply<String> {
        if let Some((start, end, name, consumed)) = &self.last_name
            && *start == self.pos
        {
            let (end, value, consumed) = (*end, name.clone(), *consumed);
            self.pos = end;
            return Ok(Success { value, consumed, error: self.unknown(end) });
        }
        let start = self.pos;
        let reply = self.alt(Parser::quoted_value, |p| p.sep_by_dash(Parser::identifier));
        let reply = labelled(reply, Expect::Label("field name (* or [a..z0..9_$])"));
        if let Ok(success) = &reply
            && !self.keeps_messages()
        {
            self.last_name = Some((start, self.pos, success.value.clone(), success.consumed));
        }
        reply
    }

    /// `pJsonPath = many pJsonOperation` (Applicative `many`).
    pub(super) fn json_path(&mut self) -> Reply<Vec<JsonStep>> {
        self.many_alternative(|p| {
            let mut seq = Seq::new(p);
            let arrow = seq.step(p.alt(
                |p| map(p.attempt(|p| p.string("->>")), |_| JsonArrow::Text),
                |p| map(p.attempt(|p| p.string("->")), |_| JsonArrow::Json),
            ))?;
            let key = seq.step(p.alt(|p| p.attempt(Parser::json_index), |p| p.attempt(Parser::json_key)))?;
            seq.done(JsonStep { arrow, key })
        })
    }

    /// `pJIdx`: an optional `-`, digits, then something that may follow a path step.
    /// An index too large for `i64` cannot address an array element, so it fails here and
    /// the same digits are read as an object key, which is what they can still mean.
    fn json_index(&mut self) -> Reply<JsonKey> {
        let mut seq = Seq::new(self);
        let minus = seq.step(self.option(None, |p| map(p.char('-'), Some)))?;
        let digits = seq.step(self.many1_chars(Parser::digit))?;
        seq.step(choice!(
            self,
            |p| p.attempt(|p| p.look_ahead(|p| p.string("->"))),
            |p| p.attempt(|p| p.look_ahead(|p| p.string("::"))),
            |p| p.attempt(|p| p.look_ahead(|p| p.string("."))),
            |p| p.attempt(|p| p.look_ahead(|p| p.string(","))),
            |p| p.attempt(|p| map(p.eof(), |()| "")),
        ))?;
        let text = if minus.is_some() { format!("-{digits}") } else { digits };
        match text.parse::<i64>() {
            Ok(index) => seq.done(JsonKey::Index(index)),
            Err(_) => Err(seq.fail(super::parsec::ParsecError::default())),
        }
    }

    /// `pJsonKeyName`: a quoted key, or characters other than `(-:.,>)` joined by dashes.
    fn json_key(&mut self) -> Reply<JsonKey> {
        let reply = self.alt(Parser::quoted_value, |p| {
            p.sep_by_dash(|p| {
                let reply = p.many1_chars(|p| p.none_of(&['(', '-', ':', '.', ',', '>', ')']));
                map(reply, |text| text.trim().to_owned())
            })
        });
        map(labelled(reply, Expect::Label("any non reserved character different from: .,>()")), JsonKey::Key)
    }

    /// `pField`: a name and its JSON path, spaces around.
    pub(super) fn field(&mut self) -> Reply<Field> {
        self.lexeme(|p| {
            let mut seq = Seq::new(p);
            let name = seq.step(p.field_name())?;
            let json_path = seq.step(p.option(Vec::new(), Parser::json_path))?;
            seq.done(Field { name, json_path })
        })
    }

    /// `pDelimiter`.
    pub(super) fn delimiter(&mut self) -> Reply<char> {
        let reply = self.char('.');
        labelled(reply, Expect::Label("delimiter (.)"))
    }

    /// `aliasSeparator`: a `:` that does not start `::`.
    fn alias_separator(&mut self) -> Reply<()> {
        let mut seq = Seq::new(self);
        seq.step(self.char(':'))?;
        seq.step(self.not_followed_by(|p| p.char(':')))?;
        seq.done(())
    }

    /// `optionMaybe (try (pFieldName <* aliasSeparator))`.
    pub(super) fn alias(&mut self) -> Reply<Option<String>> {
        self.option_maybe(|p| {
            p.attempt(|p| {
                let mut seq = Seq::new(p);
                let name = seq.step(p.field_name())?;
                seq.step(p.alias_separator())?;
                seq.done(name)
            })
        })
    }

    /// `pTreePath`: the key of a filter or embedded parameter, `rel.col->json`.
    pub(super) fn tree_path(&mut self) -> Reply<(EmbedPath, Field)> {
        let mut seq = Seq::new(self);
        let mut names = seq.step(self.sep_by1(Parser::field_name, Parser::delimiter))?;
        let json_path = seq.step(self.option(Vec::new(), Parser::json_path))?;
        let name = names.pop().unwrap_or_default();
        seq.done((names, Field { name, json_path }))
    }

    /// `pColumns`: names separated by commas, for `columns=` and `on_conflict=`.
    pub(super) fn columns(&mut self) -> Reply<Vec<String>> {
        self.sep_by1(Parser::field_name, |p| p.lexeme(|p| p.char(',')))
    }

    /// The type of a cast. PostgREST uses `pIdentifier` and pastes the result into SQL
    /// unquoted (quoting would break `int`, `bigint`; see `pgFmtApplyCast` in
    /// `Query/SqlFragment.hs`), so we accept less: ASCII letters, digits, `_` and spaces
    /// (`double precision`), then any number of `[]`.
    pub(super) fn cast_name(&mut self) -> Reply<String> {
        let mut seq = Seq::new(self);
        let base = seq.step(self.many1_chars(|p| {
            choice!(
                p,
                |p| labelled(p.satisfy(|c| c.is_ascii_alphabetic()), Expect::Label("letter")),
                |p| p.digit(),
                |p| p.one_of(&['_', ' ']),
            )
        }))?;
        // `<?> ""` hides the `[]` alternative from "expecting …", so the messages stay
        // those of PostgREST, which has no array casts.
        let arrays = seq.step(self.many(|p| labelled(p.attempt(|p| p.string("[]")), Expect::Label(""))))?;
        let mut name = base.trim().to_owned();
        for pair in arrays {
            name.push_str(pair);
        }
        seq.done(name)
    }
}
