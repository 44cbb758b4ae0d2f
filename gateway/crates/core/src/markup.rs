//! Text made safe inside HTML and XML: element content and quoted attribute
//! values alike.

/// `text` with `&`, `<`, `>`, `"` escaped, and `'` written as `apostrophe`:
/// XML has `&apos;`, while React's server renderer writes `&#x27;`, and a
/// page React hydrates must carry React's own bytes.
pub fn escape(text: &str, apostrophe: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str(apostrophe),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped_and_the_apostrophe_as_asked() {
        assert_eq!(escape("a & <b> \"c\" 'd'", "&apos;"), "a &amp; &lt;b&gt; &quot;c&quot; &apos;d&apos;");
        assert_eq!(escape("'", "&#x27;"), "&#x27;");
        assert_eq!(escape("ñ plain", "&apos;"), "ñ plain");
    }
}
