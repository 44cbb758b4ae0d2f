//! The few Parsec rules PostgREST's query-string grammar runs on, re-created so that our
//! errors carry the same position and the same "unexpected … expecting …" text.
//!
//! PostgREST writes its grammar with Parsec and turns the Parsec error into the PGRST100 body
//! (`mapError` in <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/QueryParams.hs>). Which position is reported
//! and which expectations are listed depends on how Parsec merges the errors of alternatives,
//! so approximating it gives different text; copying the rules gives the same text. The rules
//! below follow parsec 3.1 (<https://github.com/haskell/parsec/blob/master/src/Text/Parsec/Prim.hs>,
//! and `Combinator.hs`, `Char.hs`, `Error.hs` beside it):
//!
//! * every reply says whether it consumed input and carries an error, even a successful one
//!   (the error is what a later failure at the same position gets merged with);
//! * `a <|> b` tries `b` only when `a` failed without consuming, and merges both errors;
//! * in a sequence, a step that consumes nothing merges its error into the previous one;
//! * `try` turns a consuming failure into a non-consuming one, keeping the error's position;
//! * `<?>` replaces the expectations of a reply that consumed nothing;
//! * two errors merge by keeping the one further in the input, or both message lists if at the
//!   same position, and an error without messages ("unknown") loses to any other;
//! * there are two `many`s: Parsec's own (used inside `many1`, `sepBy`) and the `Alternative`
//!   default that PostgREST's `many` calls resolve to, which keep different errors.
//!
//! Every loop here is iterative and every primitive looks at one character, so a parser built
//! from these pieces runs in time linear in the input times the grammar's backtracking factor
//! (a small constant for PostgREST's grammar). Nothing indexes the input without `get`.

use std::cmp::Ordering;
use std::fmt::Write as _;

/// One entry of a Parsec error; the variants are in Parsec's display order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Message {
    /// `SysUnExpect`: the character a primitive parser refused, `None` at end of input.
    SysUnexpect(Option<char>),
    /// `UnExpect`: set by `notFollowedBy`/`eof`, shown with Haskell's `show` for a `Char`.
    Unexpect(char),
    /// `Expect`: what would have been accepted.
    Expect(Expect),
    /// `Message`: a free-form error (only ours: nesting depth, integer range).
    Text(&'static str),
}

impl Message {
    fn kind(&self) -> u8 {
        match self {
            Message::SysUnexpect(_) => 0,
            Message::Unexpect(_) => 1,
            Message::Expect(_) => 2,
            Message::Text(_) => 3,
        }
    }
}

/// How an expectation is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// A literal from `string "…"`, shown quoted: `"->>"`.
    Token(&'static str),
    /// A literal from `char c`, shown quoted: `"("`.
    Char(char),
    /// A `<?>` label, shown as it is: `operator (eq, gt, ...)`.
    Label(&'static str),
}

/// Parsec's `ParseError`: a position (a char index into the input) and its messages.
/// No messages means Parsec's "unknown error".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ParsecError {
    pub(super) pos: usize,
    pub(super) messages: Vec<Message>,
    /// Made by a parser that keeps no messages ([`Parser::without_messages`]): it stays
    /// without any, whatever is merged into it or labels it.
    untracked: bool,
}

impl ParsecError {
    fn unknown(pos: usize) -> Self {
        ParsecError { pos, messages: Vec::new(), untracked: false }
    }

    pub(super) fn new(pos: usize, message: Message) -> Self {
        ParsecError { pos, messages: vec![message], untracked: false }
    }

    fn is_unknown(&self) -> bool {
        self.messages.is_empty()
    }

    /// Equal messages render equally, so keeping only the first keeps the rendering
    /// (Parsec `nub`s at display time) while bounding the list by the grammar's labels.
    fn push(&mut self, message: Message) {
        if !self.messages.contains(&message) {
            self.messages.push(message);
        }
    }

    /// Parsec `mergeError`.
    fn merge(mut self, other: ParsecError) -> ParsecError {
        if self.untracked {
            return self;
        }
        if other.untracked {
            return other;
        }
        if other.is_unknown() && !self.is_unknown() {
            return self;
        }
        if self.is_unknown() && !other.is_unknown() {
            return other;
        }
        match self.pos.cmp(&other.pos) {
            Ordering::Equal => {
                for message in other.messages {
                    self.push(message);
                }
                self
            }
            Ordering::Greater => self,
            Ordering::Less => other,
        }
    }

    /// Parsec `setExpectErrors err [label]`: drop every expectation, then add the label first.
    fn set_expect(mut self, expect: Expect) -> ParsecError {
        if self.untracked {
            return self;
        }
        self.messages.retain(|m| !matches!(m, Message::Expect(_)));
        self.messages.insert(0, Message::Expect(expect));
        self
    }

    /// Parsec `showErrorMessages "or" "unknown parse error" "expecting" "unexpected" "end of input"`,
    /// with the line breaks turned into spaces as PostgREST's `mapError` does.
    pub(super) fn render_messages(&self) -> String {
        if self.messages.is_empty() {
            return "unknown parse error".to_owned();
        }
        let mut sorted: Vec<&Message> = self.messages.iter().collect();
        sorted.sort_by_key(|m| m.kind());
        let group = |kind: u8| sorted.iter().filter(move |m| m.kind() == kind).copied();

        let unexpected: Vec<String> = group(1).map(show_message).collect();
        let system = match group(0).next() {
            _ if !unexpected.is_empty() => String::new(),
            None => String::new(),
            Some(Message::SysUnexpect(None)) => "unexpected end of input".to_owned(),
            Some(first) => format!("unexpected {}", show_message(first)),
        };
        let parts = [
            system,
            show_many("unexpected", unexpected),
            show_many("expecting", group(2).map(show_message).collect()),
            show_many("", group(3).map(show_message).collect()),
        ];
        let mut out: Vec<String> = Vec::new();
        for part in parts {
            if !part.is_empty() && !out.contains(&part) {
                out.push(part);
            }
        }
        out.join(" ").trim().to_owned()
    }
}

fn show_message(message: &Message) -> String {
    match message {
        Message::SysUnexpect(None) => String::new(),
        Message::SysUnexpect(Some(c)) => show_string_of_char(*c),
        Message::Unexpect(c) => show_char(*c),
        Message::Expect(Expect::Token(text)) => show_string(text),
        Message::Expect(Expect::Char(c)) => show_string_of_char(*c),
        Message::Expect(Expect::Label(text)) | Message::Text(text) => (*text).to_owned(),
    }
}

/// Parsec `showMany`: drop empty and repeated strings, then "a, b or c" after the prefix.
fn show_many(prefix: &str, items: Vec<String>) -> String {
    let mut clean: Vec<String> = Vec::new();
    for item in items {
        if !item.is_empty() && !clean.contains(&item) {
            clean.push(item);
        }
    }
    let listed = match clean.split_last() {
        None => return String::new(),
        Some((only, [])) => only.clone(),
        Some((last, init)) => format!("{} or {last}", init.join(", ")),
    };
    if prefix.is_empty() { listed } else { format!("{prefix} {listed}") }
}

/// Haskell `show` of a `String`.
fn show_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        show_lit_char(c, '"', &mut out);
    }
    out.push('"');
    out
}

fn show_string_of_char(c: char) -> String {
    let mut out = String::from('"');
    show_lit_char(c, '"', &mut out);
    out.push('"');
    out
}

/// Haskell `show` of a `Char`.
fn show_char(c: char) -> String {
    let mut out = String::from('\'');
    show_lit_char(c, '\'', &mut out);
    out.push('\'');
    out
}

/// Haskell `showLitChar` (GHC.Show), where `quote` is the delimiter that needs a backslash.
/// A lone character never needs the `\&` separator, so it is not produced.
fn show_lit_char(c: char, quote: char, out: &mut String) {
    const ASCII_NAMES: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI",
        "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS",
        "US",
    ];
    let code = u32::from(c);
    if code > 0x7f {
        let _ = write!(out, "\\{code}");
    } else if code == 0x7f {
        out.push_str("\\DEL");
    } else if c == '\\' || c == quote {
        out.push('\\');
        out.push(c);
    } else if c >= ' ' {
        out.push(c);
    } else {
        out.push('\\');
        out.push_str(ASCII_NAMES.get(code as usize).copied().unwrap_or("?"));
    }
}

/// A reply that succeeded: the value, whether input was consumed, and the error to merge
/// with if the next step fails at the same position.
pub(super) struct Success<T> {
    pub(super) value: T,
    pub(super) consumed: bool,
    pub(super) error: ParsecError,
}

/// A reply that failed, and whether it consumed input first (then `<|>` does not backtrack).
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) consumed: bool,
    pub(super) error: ParsecError,
}

pub(super) type Reply<T> = Result<Success<T>, Failure>;

/// Changes the value of a reply (Parsec `fmap`).
pub(super) fn map<T, U>(reply: Reply<T>, f: impl FnOnce(T) -> U) -> Reply<U> {
    reply.map(|s| Success { value: f(s.value), consumed: s.consumed, error: s.error })
}

/// Parsec `<?>`.
pub(super) fn labelled<T>(reply: Reply<T>, label: Expect) -> Reply<T> {
    match reply {
        Ok(s) if !s.consumed && !s.error.is_unknown() => {
            Ok(Success { value: s.value, consumed: false, error: s.error.set_expect(label) })
        }
        Err(f) if !f.consumed => Err(Failure { consumed: false, error: f.error.set_expect(label) }),
        other => other,
    }
}

/// Parsec's `>>=` for a chain of steps written one after the other:
/// `let x = seq.step(p.thing())?;` … `seq.done(value)`.
pub(super) struct Seq {
    consumed: bool,
    error: ParsecError,
}

impl Seq {
    pub(super) fn new(parser: &Parser) -> Self {
        Seq { consumed: false, error: parser.unknown(parser.pos) }
    }

    pub(super) fn step<T>(&mut self, reply: Reply<T>) -> Result<T, Failure> {
        match reply {
            Ok(s) => {
                if s.consumed {
                    self.consumed = true;
                    self.error = s.error;
                } else {
                    self.error = merge_after(std::mem::take(&mut self.error), s.error);
                }
                Ok(s.value)
            }
            Err(f) if f.consumed => Err(f),
            Err(f) => Err(Failure {
                consumed: self.consumed,
                error: merge_after(std::mem::take(&mut self.error), f.error),
            }),
        }
    }

    pub(super) fn done<T>(self, value: T) -> Reply<T> {
        Ok(Success { value, consumed: self.consumed, error: self.error })
    }

    /// A failure that belongs to this sequence (for checks made between steps).
    pub(super) fn fail(self, error: ParsecError) -> Failure {
        Failure { consumed: self.consumed, error: merge_after(self.error, error) }
    }
}

/// A failure of our own that ends the parse as it is: marked as consuming so that no
/// alternative is tried, and carrying only its message, which no later merge can join
/// (consuming failures pass through sequences and `<|>` untouched).
pub(super) fn fatal(pos: usize, message: &'static str) -> Failure {
    Failure { consumed: true, error: ParsecError::new(pos, Message::Text(message)) }
}

/// `parserBind` skips the merge when the first error is unknown.
fn merge_after(before: ParsecError, after: ParsecError) -> ParsecError {
    if before.is_unknown() { after } else { before.merge(after) }
}

/// The input and the cursor. Positions are char indices; they become Parsec's
/// line and column only when an error is rendered.
pub(super) struct Parser {
    input: Vec<char>,
    pub(super) pos: usize,
    /// Current nesting of embeds or logic groups, checked against [`MAX_DEPTH`].
    pub(super) depth: usize,
    /// Whether errors keep their messages (see [`Parser::without_messages`]).
    messages: bool,
    /// The last name read without messages (`field_name`): where it started and ended, the
    /// name, and whether reading it consumed input. `select` reads each name up to five times
    /// while it backtracks between its alternatives; a parser that keeps no messages replies
    /// the same every time, so the repeats are answered from here.
    pub(super) last_name: Option<(usize, usize, String, bool)>,
}

/// Deepest nesting accepted in `select` and in logic trees. Real requests nest a few
/// levels; the cap keeps recursion bounded whatever the input.
pub const MAX_DEPTH: usize = 64;

impl Parser {
    pub(super) fn new(input: &str) -> Self {
        Parser { input: input.chars().collect(), pos: 0, depth: 0, messages: true, last_name: None }
    }

    /// A parser whose errors keep no messages. What a parse accepts, the values it builds and
    /// where it fails never depend on the messages, only on what failed and whether it had
    /// consumed input, so this parser succeeds and fails exactly as [`Parser::new`]'s does.
    /// Merging the messages of every failed alternative is most of the work of parsing valid
    /// input, so input is parsed this way first, and again with messages only to explain a
    /// failure.
    /// Whether the input left goes on with what a name or a cast may hold in PostgREST's
    /// grammar: a letter or digit of any script, `_` or `$`.
    pub(super) fn continues_a_name(&self) -> bool {
        self.input.get(self.pos).is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
    }

    pub(super) fn without_messages(input: &str) -> Self {
        Parser { messages: false, ..Parser::new(input) }
    }

    /// Whether errors keep their messages.
    pub(super) fn keeps_messages(&self) -> bool {
        self.messages
    }

    /// An error with `message`, or with none if this parser keeps none.
    fn error(&self, pos: usize, message: Message) -> ParsecError {
        if self.messages { ParsecError::new(pos, message) } else { self.unknown(pos) }
    }

    /// An error without messages that, for a parser that keeps none, also takes none later.
    pub(super) fn unknown(&self, pos: usize) -> ParsecError {
        ParsecError { untracked: !self.messages, ..ParsecError::unknown(pos) }
    }

    /// Parsec's `SourcePos` for a char index: tabs advance to the next multiple of 8 plus 1.
    pub(super) fn line_column(&self, pos: usize) -> (usize, usize) {
        let (mut line, mut column) = (1, 1);
        for c in self.input.iter().take(pos) {
            match c {
                '\n' => {
                    line += 1;
                    column = 1;
                }
                '\t' => column = column + 8 - ((column - 1) % 8),
                _ => column += 1,
            }
        }
        (line, column)
    }

    /// Parsec `return`.
    pub(super) fn ok<T>(&self, value: T) -> Reply<T> {
        Ok(Success { value, consumed: false, error: self.unknown(self.pos) })
    }

    /// Parsec `mzero` (what `guard False` fails with).
    pub(super) fn zero<T>(&self) -> Reply<T> {
        Err(Failure { consumed: false, error: self.unknown(self.pos) })
    }

    /// Runs a parser given as a closure; the last arm of [`choice!`].
    pub(super) fn apply<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        parser(self)
    }

    /// Parsec `satisfy`.
    pub(super) fn satisfy(&mut self, accept: impl Fn(char) -> bool) -> Reply<char> {
        match self.input.get(self.pos).copied() {
            None => Err(Failure { consumed: false, error: self.error(self.pos, Message::SysUnexpect(None)) }),
            Some(c) if accept(c) => {
                self.pos += 1;
                Ok(Success { value: c, consumed: true, error: self.unknown(self.pos) })
            }
            Some(c) => {
                Err(Failure { consumed: false, error: self.error(self.pos, Message::SysUnexpect(Some(c))) })
            }
        }
    }

    /// Parsec `char`.
    pub(super) fn char(&mut self, expected: char) -> Reply<char> {
        let reply = self.satisfy(|c| c == expected);
        labelled(reply, Expect::Char(expected))
    }

    /// Parsec `anyChar`.
    pub(super) fn any_char(&mut self) -> Reply<char> {
        self.satisfy(|_| true)
    }

    /// Parsec `oneOf`.
    pub(super) fn one_of(&mut self, set: &'static [char]) -> Reply<char> {
        self.satisfy(|c| set.contains(&c))
    }

    /// Parsec `noneOf`.
    pub(super) fn none_of(&mut self, set: &'static [char]) -> Reply<char> {
        self.satisfy(|c| !set.contains(&c))
    }

    /// Parsec `letter` (Haskell `isAlpha`, approximated by Unicode `Alphabetic`).
    pub(super) fn letter(&mut self) -> Reply<char> {
        let reply = self.satisfy(char::is_alphabetic);
        labelled(reply, Expect::Label("letter"))
    }

    /// Parsec `digit` (ASCII only, like Haskell `isDigit`).
    pub(super) fn digit(&mut self) -> Reply<char> {
        let reply = self.satisfy(|c| c.is_ascii_digit());
        labelled(reply, Expect::Label("digit"))
    }

    /// Parsec `string`: on a mismatch the error sits at the start of the literal and names the
    /// first differing character; it counts as consuming if any character matched.
    pub(super) fn string(&mut self, literal: &'static str) -> Reply<&'static str> {
        let start = self.pos;
        for (offset, expected) in literal.chars().enumerate() {
            match self.input.get(start + offset) {
                Some(&c) if c == expected => {}
                found => {
                    let mut error = self.error(start, Message::SysUnexpect(found.copied()));
                    error = error.set_expect(Expect::Token(literal));
                    return Err(Failure { consumed: offset > 0, error });
                }
            }
        }
        let length = literal.chars().count();
        self.pos = start + length;
        Ok(Success { value: literal, consumed: length > 0, error: self.unknown(self.pos) })
    }

    /// Parsec `try`.
    pub(super) fn attempt<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        let start = self.pos;
        match parser(self) {
            Err(f) => {
                self.pos = start;
                Err(Failure { consumed: false, error: f.error })
            }
            ok => ok,
        }
    }

    /// Parsec `lookAhead`.
    pub(super) fn look_ahead<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        let start = self.pos;
        match parser(self) {
            Ok(s) => {
                self.pos = start;
                Ok(Success { value: s.value, consumed: false, error: self.unknown(start) })
            }
            err => err,
        }
    }

    /// Parsec `<|>`.
    pub(super) fn alt<T>(
        &mut self,
        first: impl FnOnce(&mut Self) -> Reply<T>,
        second: impl FnOnce(&mut Self) -> Reply<T>,
    ) -> Reply<T> {
        let start = self.pos;
        match first(self) {
            Err(f) if !f.consumed => {
                self.pos = start;
                match second(self) {
                    Ok(s) if !s.consumed => {
                        Ok(Success { value: s.value, consumed: false, error: f.error.merge(s.error) })
                    }
                    Err(g) if !g.consumed => Err(Failure { consumed: false, error: f.error.merge(g.error) }),
                    other => other,
                }
            }
            other => other,
        }
    }

    /// Parsec `many`, collecting the values.
    pub(super) fn many<T>(&mut self, mut parser: impl FnMut(&mut Self) -> Reply<T>) -> Reply<Vec<T>> {
        let mut values = Vec::new();
        let mut consumed = false;
        loop {
            match parser(self) {
                // Parsec aborts when the parser succeeds without consuming; no parser here can,
                // but stopping keeps the loop finite regardless.
                Ok(s) if !s.consumed => return Ok(Success { value: values, consumed, error: s.error }),
                Ok(s) => {
                    values.push(s.value);
                    consumed = true;
                }
                Err(f) if f.consumed => return Err(f),
                Err(f) => return Ok(Success { value: values, consumed, error: f.error }),
            }
        }
    }

    /// `Control.Applicative.many`, which is what PostgREST's own `many` calls resolve to (it
    /// imports `many` from Protolude, not from Parsec, and Parsec's `Alternative` instance keeps
    /// the default `many v = some v <|> pure []`). Unlike Parsec's `many`, the error of the last
    /// successful round is merged into the final one, which shows in the expectations listed
    /// after a JSON path (`"-"` in `a->x(`).
    pub(super) fn many_alternative<T>(
        &mut self,
        mut parser: impl FnMut(&mut Self) -> Reply<T>,
    ) -> Reply<Vec<T>> {
        let mut values = Vec::new();
        let mut last_error: Option<ParsecError> = None;
        loop {
            match parser(self) {
                // As in `many`, a round that consumes nothing ends the loop.
                Ok(s) if !s.consumed => {
                    let consumed = !values.is_empty();
                    let error = match last_error {
                        Some(last) => merge_after(last, s.error),
                        None => s.error,
                    };
                    return Ok(Success { value: values, consumed, error });
                }
                Ok(s) => {
                    values.push(s.value);
                    last_error = Some(s.error);
                }
                Err(f) if f.consumed => return Err(f),
                Err(f) => {
                    return Ok(match last_error {
                        Some(last) => {
                            Success { value: values, consumed: true, error: merge_after(last, f.error) }
                        }
                        None => Success { value: values, consumed: false, error: f.error },
                    });
                }
            }
        }
    }

    /// Parsec `many` over characters, collected into a string ([`Parser::many`] without the
    /// vector of chars in between).
    pub(super) fn many_chars(&mut self, mut parser: impl FnMut(&mut Self) -> Reply<char>) -> Reply<String> {
        let mut text = String::new();
        let mut consumed = false;
        loop {
            match parser(self) {
                Ok(s) if !s.consumed => return Ok(Success { value: text, consumed, error: s.error }),
                Ok(s) => {
                    text.push(s.value);
                    consumed = true;
                }
                Err(f) if f.consumed => return Err(f),
                Err(f) => return Ok(Success { value: text, consumed, error: f.error }),
            }
        }
    }

    /// Parsec `many1 (satisfy accept)`, in one loop, for a parser that keeps no messages
    /// (`None` for one that does). It accepts, consumes and builds what the rule does; only
    /// its errors lack the expectations that the rule's own parser merges in at every
    /// character, which messages would show. Names are read several times over while `select`
    /// backtracks between its alternatives, so reading them in one loop matters.
    pub(super) fn many1_quietly(&mut self, accept: impl Fn(char) -> bool) -> Option<Reply<String>> {
        if self.messages {
            return None;
        }
        let start = self.pos;
        let mut text = String::new();
        while let Some(&c) = self.input.get(self.pos).filter(|c| accept(**c)) {
            text.push(c);
            self.pos += 1;
        }
        Some(if self.pos == start {
            Err(Failure { consumed: false, error: self.unknown(start) })
        } else {
            Ok(Success { value: text, consumed: true, error: self.unknown(self.pos) })
        })
    }

    /// Parsec `many1` over characters.
    pub(super) fn many1_chars(&mut self, mut parser: impl FnMut(&mut Self) -> Reply<char>) -> Reply<String> {
        let mut seq = Seq::new(self);
        let first = seq.step(parser(self))?;
        let rest = seq.step(self.many_chars(parser))?;
        let mut text = String::with_capacity(rest.len() + 1);
        text.push(first);
        text.push_str(&rest);
        seq.done(text)
    }

    /// Parsec `sepBy1`.
    pub(super) fn sep_by1<T, S>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Reply<T>,
        mut separator: impl FnMut(&mut Self) -> Reply<S>,
    ) -> Reply<Vec<T>> {
        let mut seq = Seq::new(self);
        let first = seq.step(item(self))?;
        let rest = seq.step(self.many(|p| {
            let mut seq = Seq::new(p);
            seq.step(separator(p))?;
            let value = seq.step(item(p))?;
            seq.done(value)
        }))?;
        let mut values = Vec::with_capacity(rest.len() + 1);
        values.push(first);
        values.extend(rest);
        seq.done(values)
    }

    /// Parsec `sepBy`.
    pub(super) fn sep_by<T, S>(
        &mut self,
        item: impl FnMut(&mut Self) -> Reply<T>,
        separator: impl FnMut(&mut Self) -> Reply<S>,
    ) -> Reply<Vec<T>> {
        self.alt(|p| p.sep_by1(item, separator), |p| p.ok(Vec::new()))
    }

    /// Parsec `optionMaybe`.
    pub(super) fn option_maybe<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<Option<T>> {
        self.alt(|p| map(parser(p), Some), |p| p.ok(None))
    }

    /// Parsec `option`.
    pub(super) fn option<T>(&mut self, default: T, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        self.alt(parser, |p| p.ok(default))
    }

    /// Parsec `between`.
    pub(super) fn between<T, O, C>(
        &mut self,
        open: impl FnOnce(&mut Self) -> Reply<O>,
        close: impl FnOnce(&mut Self) -> Reply<C>,
        parser: impl FnOnce(&mut Self) -> Reply<T>,
    ) -> Reply<T> {
        let mut seq = Seq::new(self);
        seq.step(open(self))?;
        let value = seq.step(parser(self))?;
        seq.step(close(self))?;
        seq.done(value)
    }

    /// Parsec `notFollowedBy`: the failure names the character that was found and sits after it.
    pub(super) fn not_followed_by(&mut self, parser: impl FnOnce(&mut Self) -> Reply<char>) -> Reply<()> {
        let start = self.pos;
        match self.attempt(parser) {
            Ok(s) => {
                let after = self.pos;
                self.pos = start;
                Err(Failure { consumed: false, error: self.error(after, Message::Unexpect(s.value)) })
            }
            Err(f) => Ok(Success { value: (), consumed: false, error: f.error.merge(self.unknown(start)) }),
        }
    }

    /// Parsec `eof` (`notFollowedBy anyToken <?> "end of input"`).
    pub(super) fn eof(&mut self) -> Reply<()> {
        let reply = match self.input.get(self.pos).copied() {
            Some(c) => Err(Failure { consumed: false, error: self.error(self.pos, Message::Unexpect(c)) }),
            None => Ok(Success {
                value: (),
                consumed: false,
                error: self.error(self.pos, Message::SysUnexpect(None)),
            }),
        };
        labelled(reply, Expect::Label("end of input"))
    }

    /// PostgREST `lexeme`: the parser with spaces and tabs skipped on both sides.
    pub(super) fn lexeme<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        let mut seq = Seq::new(self);
        seq.step(self.ws())?;
        let value = seq.step(parser(self))?;
        seq.step(self.ws())?;
        seq.done(value)
    }

    /// PostgREST `ws = many (oneOf " \t")`.
    pub(super) fn ws(&mut self) -> Reply<()> {
        let reply = self.many(|p| p.one_of(&[' ', '\t']));
        map(reply, |_| ())
    }

    /// Runs `parser` one level deeper, failing once [`MAX_DEPTH`] is passed.
    pub(super) fn nested<T>(&mut self, parser: impl FnOnce(&mut Self) -> Reply<T>) -> Reply<T> {
        if self.depth >= MAX_DEPTH {
            return Err(fatal(self.pos, "nesting deeper than 64 levels is not supported"));
        }
        self.depth += 1;
        let reply = parser(self);
        self.depth -= 1;
        reply
    }
}

/// Parsec `a <|> b <|> c`, written `choice!(parser, a, b, c)` with closures taking the parser.
macro_rules! choice {
    ($parser:expr, $last:expr $(,)?) => {
        $parser.apply($last)
    };
    ($parser:expr, $first:expr, $($rest:expr),+ $(,)?) => {
        $parser.alt($first, |p| choice!(p, $($rest),+))
    };
}
pub(super) use choice;

#[cfg(test)]
mod tests {
    use super::*;

    fn render(input: &str, run: impl FnOnce(&mut Parser) -> Reply<()>) -> (usize, String) {
        let mut parser = Parser::new(input);
        match run(&mut parser) {
            Ok(_) => (0, "ok".to_owned()),
            Err(f) => (f.error.pos, f.error.render_messages()),
        }
    }

    #[test]
    fn string_fails_at_its_start_naming_the_first_differing_character() {
        let (pos, text) = render("noop", |p| map(p.string("not"), |_| ()));
        assert_eq!((pos, text.as_str()), (0, "unexpected \"o\" expecting \"not\""));
    }

    #[test]
    fn alternatives_failing_at_the_same_place_list_both_expectations() {
        let (_, text) = render("x", |p| map(p.alt(|p| p.char('a'), |p| p.char('b')), |_| ()));
        assert_eq!(text, "unexpected \"x\" expecting \"a\" or \"b\"");
    }

    #[test]
    fn the_error_further_in_the_input_wins() {
        let (pos, text) = render("abx", |p| {
            let abc = |p: &mut Parser| {
                let mut seq = Seq::new(p);
                seq.step(p.char('a'))?;
                seq.step(p.char('b'))?;
                seq.step(p.char('c'))?;
                seq.done(())
            };
            p.alt(|p| p.attempt(abc), |p| map(p.char('z'), |_| ()))
        });
        assert_eq!((pos, text.as_str()), (2, "unexpected \"x\" expecting \"c\""));
    }

    #[test]
    fn a_string_literal_reports_at_its_start_even_after_matching_part_of_it() {
        let (pos, text) = render("abx", |p| {
            p.alt(|p| p.attempt(|p| map(p.string("abc"), |_| ())), |p| map(p.char('z'), |_| ()))
        });
        assert_eq!((pos, text.as_str()), (0, "unexpected \"x\" expecting \"abc\" or \"z\""));
    }

    #[test]
    fn a_label_replaces_the_expectations_of_a_reply_that_consumed_nothing() {
        let (_, text) = render("x", |p| {
            let reply = p.alt(|p| p.char('a'), |p| p.char('b'));
            map(labelled(reply, Expect::Label("a or b letter")), |_| ())
        });
        assert_eq!(text, "unexpected \"x\" expecting a or b letter");
    }

    #[test]
    fn eof_reports_the_character_it_found_with_single_quotes() {
        let (_, text) = render("[", |p| p.eof());
        assert_eq!(text, "unexpected '[' expecting end of input");
    }

    #[test]
    fn characters_are_shown_as_haskell_shows_them() {
        let cases = [
            ('a', "\"a\"", "'a'"),
            ('\0', "\"\\NUL\"", "'\\NUL'"),
            ('é', "\"\\233\"", "'\\233'"),
            ('"', "\"\\\"\"", "'\"'"),
            ('\'', "\"'\"", "'\\''"),
            ('\\', "\"\\\\\"", "'\\\\'"),
            ('\n', "\"\\n\"", "'\\n'"),
            ('\x7f', "\"\\DEL\"", "'\\DEL'"),
            ('\x1b', "\"\\ESC\"", "'\\ESC'"),
        ];
        for (c, as_string, as_char) in cases {
            assert_eq!(show_string_of_char(c), as_string, "{c:?}");
            assert_eq!(show_char(c), as_char, "{c:?}");
        }
    }

    #[test]
    fn tabs_and_newlines_move_the_column_like_parsec() {
        let parser = Parser::new("a\tb\nc");
        assert_eq!(parser.line_column(1), (1, 2));
        assert_eq!(parser.line_column(2), (1, 9));
        assert_eq!(parser.line_column(4), (2, 1));
    }

    #[test]
    fn an_error_without_messages_renders_as_unknown() {
        assert_eq!(ParsecError::unknown(0).render_messages(), "unknown parse error");
    }
}
