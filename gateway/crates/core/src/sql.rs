//! The one way an identifier enters SQL text. Values are always bound
//! parameters; names (tables, columns, schemas, functions) come from the
//! schema cache or the catalog and are quoted here, by every service.

/// Quotes an identifier: double quotes around it, inner quotes doubled, and
/// anything from a NUL on dropped (PostgREST `escapeIdent`/`trimNullChars`).
pub fn quote_ident(name: &str) -> String {
    let mut quoted = String::with_capacity(name.len() + 2);
    push_ident(&mut quoted, name);
    quoted
}

/// [`quote_ident`], appended to `sql`: the statement is written into one
/// buffer, not assembled from a string per name (a read names every column
/// twice).
pub fn push_ident(sql: &mut String, name: &str) {
    // Bytes, not chars: a statement renders dozens of names, and NUL and `"`
    // are ASCII, so cutting at either byte keeps the text valid UTF-8.
    let bytes = name.as_bytes();
    let name = &name[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())];
    sql.reserve(name.len() + 2);
    sql.push('"');
    let mut rest = name;
    while let Some(quote) = rest.as_bytes().iter().position(|&b| b == b'"') {
        sql.push_str(&rest[..=quote]);
        sql.push('"');
        rest = &rest[quote + 1..];
    }
    sql.push_str(rest);
    sql.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_and_cut_at_a_nul() {
        let cases = [
            ("products", "\"products\""),
            ("Mixed Case", "\"Mixed Case\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("cut\0after", "\"cut\""),
            ("", "\"\""),
        ];
        for (name, quoted) in cases {
            assert_eq!(quote_ident(name), quoted, "{name:?}");
        }
    }
}
