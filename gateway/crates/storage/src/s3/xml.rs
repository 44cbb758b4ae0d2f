//! The little XML S3 speaks: text escaped into answers, and the few request
//! bodies (`Delete`) read back. Those bodies are flat lists of simple
//! elements, so reading them needs no general parser: [`elements`] finds each
//! `<name>...</name>` in order and unescapes its text.

/// Text made safe for an element's content.
pub fn escape(text: &str) -> String {
    gateway_core::markup::escape(text, "&apos;")
}

fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';')? + at;
        let entity = &rest[at + 1..end];
        match entity {
            "amp" => out.push('&'),
            "lt" => out.push('<'),
            "gt" => out.push('>'),
            "quot" => out.push('"'),
            "apos" => out.push('\''),
            _ => {
                let code = entity
                    .strip_prefix("#x")
                    .map(|h| u32::from_str_radix(h, 16))
                    .or_else(|| entity.strip_prefix('#').map(str::parse::<u32>))?;
                out.push(char::from_u32(code.ok()?)?);
            }
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// The raw inner text of each `<name>...</name>` (or `<name attr="...">`), in order.
fn inner<'a>(body: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name}");
    let close = format!("</{name}>");
    let mut found = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        // `<Key>` but not `<KeyMarker>`.
        if !after.starts_with('>') && !after.starts_with(' ') {
            rest = after;
            continue;
        }
        let Some(start) = after.find('>') else { break };
        let content = &after[start + 1..];
        let Some(end) = content.find(&close) else { break };
        found.push(&content[..end]);
        rest = &content[end + close.len()..];
    }
    found
}

/// The unescaped text of each `<child>` inside each `<parent>`, per parent;
/// `None` when an entity is not understood.
pub fn elements(body: &str, parent: &str, child: &str) -> Option<Vec<Option<String>>> {
    inner(body, parent)
        .into_iter()
        .map(|block| match inner(block, child).first() {
            Some(text) => unescape(text).map(Some),
            None => Some(None),
        })
        .collect()
}

/// Whether `<name>true</name>` is in the body.
pub fn is_true(body: &str, name: &str) -> bool {
    inner(body, name).first().is_some_and(|text| text.trim().eq_ignore_ascii_case("true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_bodies_are_read_key_by_key() {
        let body = r#"<?xml version="1.0" encoding="UTF-8"?>
            <Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>
            <Object><Key>a &amp; b.txt</Key></Object><Object><Key>c&#x2F;d</Key><VersionId>1</VersionId></Object>
            </Delete>"#;
        assert_eq!(
            elements(body, "Object", "Key"),
            Some(vec![Some("a & b.txt".to_owned()), Some("c/d".to_owned())])
        );
        assert!(is_true(body, "Quiet"));
        assert_eq!(elements("<Object><Key>&bogus;</Key></Object>", "Object", "Key"), None);
        assert_eq!(escape("<a & 'b'>"), "&lt;a &amp; &apos;b&apos;&gt;");
    }
}
