//! Reading a plain SQL dump the way `psql` does: statements end at a `;`
//! outside quotes, comments and dollar-quoted bodies; a line beginning with a
//! backslash is a meta-command; `COPY ... FROM stdin;` is followed by its rows
//! up to a line `\.`. Only enough of SQL's lexical rules to find those
//! boundaries and the words that name what a statement does
//! (<https://www.postgresql.org/docs/current/sql-syntax-lexical.html>).

/// One piece of a dump, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A statement, with its `;`.
    Sql { text: String, line: usize },
    /// A psql meta-command line (`\restrict ...`, `\connect ...`).
    Meta { text: String, line: usize },
    /// `COPY ... FROM stdin;` and its rows, without the `\.` line.
    Copy { head: String, rows: String, line: usize },
}

/// Splits a dump into pieces; comments and blank space between them go.
pub fn split(sql: &str) -> Vec<Piece> {
    let bytes = sql.as_bytes();
    let mut pieces = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < bytes.len() {
        // Space and comments between statements.
        match bytes[i] {
            b'\n' => {
                line += 1;
                i += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = end_of_line(bytes, i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = end_of_block_comment(bytes, i);
                line += count_lines(&bytes[i..end]);
                i = end;
                continue;
            }
            b'\\' => {
                let end = end_of_line(bytes, i);
                pieces.push(Piece::Meta { text: sql[i..end].trim_end().to_owned(), line });
                i = end;
                continue;
            }
            _ => {}
        }
        let start = i;
        let start_line = line;
        let end = end_of_statement(bytes, i);
        line += count_lines(&bytes[start..end]);
        let text = sql[start..end].to_owned();
        i = end;
        if is_copy_from_stdin(&text) {
            // The rows begin on the next line.
            let rows_start = match bytes[i..].iter().position(|&b| b == b'\n') {
                Some(n) => i + n + 1,
                None => bytes.len(),
            };
            line += count_lines(&bytes[i..rows_start]);
            let mut j = rows_start;
            let mut rows_end = bytes.len();
            while j < bytes.len() {
                let eol = end_of_line(bytes, j);
                let this = sql[j..eol].trim_end_matches('\r');
                let next = (eol + 1).min(bytes.len());
                line += 1;
                if this == "\\." {
                    rows_end = j;
                    j = next;
                    break;
                }
                j = next;
            }
            pieces.push(Piece::Copy {
                head: text,
                rows: sql[rows_start..rows_end].to_owned(),
                line: start_line,
            });
            i = j;
        } else {
            pieces.push(Piece::Sql { text, line: start_line });
        }
    }
    pieces
}

fn count_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

fn end_of_line(bytes: &[u8], from: usize) -> usize {
    bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| from + n)
}

fn end_of_block_comment(bytes: &[u8], from: usize) -> usize {
    // Block comments nest in PostgreSQL.
    let mut depth = 0;
    let mut i = from;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The end of a quoted run beginning at `from` (on the opening quote), with
/// doubled quotes inside; backslashes escape when `escapes` (an `E''` string).
fn end_of_quoted(bytes: &[u8], from: usize, quote: u8, escapes: bool) -> usize {
    let mut i = from + 1;
    while i < bytes.len() {
        if escapes && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// `$tag$` at `from`, if one begins there.
fn dollar_tag(bytes: &[u8], from: usize) -> Option<&[u8]> {
    if from > 0 && (bytes[from - 1].is_ascii_alphanumeric() || bytes[from - 1] == b'_') {
        return None;
    }
    let mut i = from + 1;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80) {
        i += 1;
    }
    let tag = &bytes[from..=i.min(bytes.len() - 1)];
    let first_ok = i == from + 1 || !bytes[from + 1].is_ascii_digit();
    (i < bytes.len() && bytes[i] == b'$' && first_ok).then_some(tag)
}

fn end_of_statement(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b';' => return i + 1,
            b'\'' => {
                let escapes = i > 0 && matches!(bytes[i - 1], b'E' | b'e') && !is_word(bytes, i - 1);
                i = end_of_quoted(bytes, i, b'\'', escapes);
            }
            b'"' => i = end_of_quoted(bytes, i, b'"', false),
            b'-' if bytes.get(i + 1) == Some(&b'-') => i = end_of_line(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = end_of_block_comment(bytes, i),
            b'$' => match dollar_tag(bytes, i) {
                Some(tag) => {
                    let body = i + tag.len();
                    i = bytes[body..]
                        .windows(tag.len())
                        .position(|w| w == tag)
                        .map_or(bytes.len(), |n| body + n + tag.len());
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether the letter at `at` continues a word (so `E` of `TABLE'` is not a
/// string prefix).
fn is_word(bytes: &[u8], at: usize) -> bool {
    at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
}

fn is_copy_from_stdin(text: &str) -> bool {
    // Most statements are not COPY: they are not read twice.
    if !text.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("COPY")) {
        return false;
    }
    let words = tokens(text);
    matches!(words.first(), Some(Token::Word(w)) if w == "COPY")
        && words.windows(2).any(|w| {
            matches!(&w[0], Token::Word(a) if a == "FROM") && matches!(&w[1], Token::Word(b) if b == "STDIN")
        })
}

/// A lexical token of a statement, enough to read what it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// An unquoted word, upper-cased (a keyword or a bare identifier).
    Word(String),
    /// A quoted identifier, as written between the quotes.
    Quoted(String),
    /// A string or dollar-quoted literal.
    Literal,
    /// A number.
    Number,
    /// Any other character.
    Punct(char),
}

impl Token {
    /// The identifier this token names: a quoted one as it is, a bare one
    /// folded to lower case as PostgreSQL folds it.
    pub fn ident(&self) -> Option<String> {
        match self {
            Token::Quoted(name) => Some(name.clone()),
            Token::Word(word) => Some(word.to_lowercase()),
            _ => None,
        }
    }

    pub fn is(&self, keyword: &str) -> bool {
        matches!(self, Token::Word(w) if w == keyword)
    }
}

/// The tokens of one statement, comments left out.
pub fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            _ if c.is_ascii_whitespace() => i += 1,
            b'-' if bytes.get(i + 1) == Some(&b'-') => i = end_of_line(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = end_of_block_comment(bytes, i),
            b'\'' => {
                i = end_of_quoted(bytes, i, b'\'', false);
                out.push(Token::Literal);
            }
            b'"' => {
                let end = end_of_quoted(bytes, i, b'"', false);
                let inner = &text[i + 1..end.saturating_sub(1).max(i + 1)];
                out.push(Token::Quoted(inner.replace("\"\"", "\"")));
                i = end;
            }
            b'$' if dollar_tag(bytes, i).is_some() => {
                let tag = dollar_tag(bytes, i).unwrap_or_default();
                let body = i + tag.len();
                i = bytes[body..]
                    .windows(tag.len())
                    .position(|w| w == tag)
                    .map_or(bytes.len(), |n| body + n + tag.len());
                out.push(Token::Literal);
            }
            _ if c.is_ascii_digit() => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                out.push(Token::Number);
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'_'
                        || bytes[i] == b'$'
                        || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                // E'...' is a string with escapes.
                if i - start == 1 && matches!(c, b'E' | b'e') && bytes.get(i) == Some(&b'\'') {
                    i = end_of_quoted(bytes, i, b'\'', true);
                    out.push(Token::Literal);
                } else {
                    out.push(Token::Word(text[start..i].to_uppercase()));
                }
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                out.push(Token::Punct(ch));
                i += ch.len_utf8();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(sql: &str) -> Vec<String> {
        split(sql)
            .into_iter()
            .map(|piece| match piece {
                Piece::Sql { text, .. } => text,
                Piece::Meta { text, .. } => format!("meta {text}"),
                Piece::Copy { head, rows, .. } => format!("{head} rows {rows:?}"),
            })
            .collect()
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_comments_and_bodies() {
        let cases: &[(&str, &[&str])] = &[
            ("select 1; select 2;", &["select 1;", "select 2;"]),
            ("select 'a;b';", &["select 'a;b';"]),
            ("select 'it''s;';", &["select 'it''s;';"]),
            ("select E'a\\';b';", &["select E'a\\';b';"]),
            ("select \"a;\"\"b\";", &["select \"a;\"\"b\";"]),
            ("-- x;\nselect 1; -- y;\n", &["select 1;"]),
            ("select /* a; /* b; */ c; */ 1;", &["select /* a; /* b; */ c; */ 1;"]),
            (
                "create function f() returns int as $$ select 1; $$ language sql;",
                &["create function f() returns int as $$ select 1; $$ language sql;"],
            ),
            ("do $x$ begin perform 1; end $x$;", &["do $x$ begin perform 1; end $x$;"]),
            ("select $1::int;", &["select $1::int;"]),
            (
                "\\restrict abc\nselect 1;\n\\unrestrict abc\n",
                &["meta \\restrict abc", "select 1;", "meta \\unrestrict abc"],
            ),
        ];
        for (sql, expected) in cases {
            assert_eq!(texts(sql), *expected, "{sql}");
        }
    }

    #[test]
    fn copy_rows_run_to_the_terminator_line() {
        let sql =
            "COPY \"auth\".\"users\" (\"id\", \"email\") FROM stdin;\n1\ta;b\n2\t\\N\n\\.\n\nselect 3;\n";
        assert_eq!(
            split(sql),
            [
                Piece::Copy {
                    head: "COPY \"auth\".\"users\" (\"id\", \"email\") FROM stdin;".into(),
                    rows: "1\ta;b\n2\t\\N\n".into(),
                    line: 1,
                },
                Piece::Sql { text: "select 3;".into(), line: 6 },
            ]
        );
    }

    #[test]
    fn tokens_name_what_a_statement_touches() {
        assert_eq!(
            tokens("ALTER TABLE ONLY \"public\".\"Notes\" OWNER TO postgres; -- x"),
            [
                Token::Word("ALTER".into()),
                Token::Word("TABLE".into()),
                Token::Word("ONLY".into()),
                Token::Quoted("public".into()),
                Token::Punct('.'),
                Token::Quoted("Notes".into()),
                Token::Word("OWNER".into()),
                Token::Word("TO".into()),
                Token::Word("POSTGRES".into()),
                Token::Punct(';'),
            ]
        );
        assert_eq!(
            tokens("values (E'a\\'b', $q$x$q$, 12.5)")[2..5],
            [Token::Literal, Token::Punct(','), Token::Literal]
        );
    }
}
