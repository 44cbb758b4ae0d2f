//! What a write or a call needs to know of its JSON body before planning: whether it is
//! one object or an array, how many rows it holds, the first row's keys, and
//! whether every row has those keys (PostgREST's "All object keys must
//! match", `PGRST102`). The values themselves are never built: the body goes
//! to PostgreSQL as the text it came as, so reading it into a
//! [`serde_json::Value`] cost a bulk insert of 100 rows more instructions
//! than all the rest of the gateway's work on it (`bench/profile.sh`,
//! `SCENARIO=bulk`). Keys are borrowed from the body where they hold no
//! escapes, and values are skipped.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A write's body, as far as planning it goes.
#[derive(Debug, PartialEq, Eq)]
pub struct JsonRows {
    /// The body is one object, not an array.
    pub object: bool,
    /// How many rows: 1 for an object.
    pub rows: usize,
    /// The first row's keys, each once, in byte order (as
    /// `serde_json::Map` kept them, which the insert's column list follows).
    pub keys: Vec<String>,
    /// Every row is an object with exactly the first row's keys.
    pub uniform: bool,
}

/// Why a body is refused, in PostgREST's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Not JSON, or JSON that is neither an object nor an array.
    Invalid,
    /// An array whose first item is not an object.
    KeysMustMatch,
}

impl BodyError {
    pub fn message(self) -> &'static str {
        match self {
            Self::Invalid => "Empty or invalid json",
            Self::KeysMustMatch => "All object keys must match",
        }
    }
}

/// Reads a write's body. An empty body is the empty object.
pub fn json_rows(body: &[u8]) -> Result<JsonRows, BodyError> {
    if body.is_empty() {
        return Ok(JsonRows { object: true, rows: 1, keys: Vec::new(), uniform: true });
    }
    let text = std::str::from_utf8(body).map_err(|_| BodyError::Invalid)?;
    if let Some(rows) = flat::rows(text) {
        return Ok(rows);
    }
    read_rows(text)
}

/// The members of a body that is one object, or an array of exactly one,
/// read by the flat reader (below): each key with its value as written (a
/// string with its quotes and no escape), in the body's order, repeats
/// kept. `None` for any other body, which serde_json is left to read.
pub fn flat_members(text: &str) -> Option<Vec<(&str, &str)>> {
    flat::members(text)
}

/// [`json_rows`] through serde_json: every body the flat reader leaves.
fn read_rows(text: &str) -> Result<JsonRows, BodyError> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let top = reader.deserialize_any(TopVisitor).map_err(|_| BodyError::Invalid)?;
    reader.end().map_err(|_| BodyError::Invalid)?;
    match top {
        Top::Object(keys) => Ok(JsonRows { object: true, rows: 1, keys: owned(keys), uniform: true }),
        Top::Array { rows, first: Some(keys), uniform } => {
            Ok(JsonRows { object: false, rows, keys: owned(keys), uniform })
        }
        Top::Array { first: None, .. } => Err(BodyError::KeysMustMatch),
        Top::Other => Err(BodyError::Invalid),
    }
}

/// The bodies writes almost always send, read without serde: one object, or
/// an array of objects, whose keys and string values hold no escape and
/// whose values are strings, numbers, `true`, `false` or `null`. serde_json
/// spent about 25 instructions per byte on a bulk insert's 10 KB of short
/// strings and numbers (its per-value machinery, not its byte scanning:
/// `bench/profile.sh`, `SCENARIO=bulk`). Anything else, an error included,
/// is left to serde_json ([`read_rows`]): this reader answers only for a
/// body it has read whole as valid JSON, and then as serde_json would
/// (tested against it on random bodies and their damaged copies).
mod flat {
    use std::borrow::Cow;

    use super::{JsonRows, Seen, owned};

    pub fn rows(text: &str) -> Option<JsonRows> {
        let mut cursor = Cursor { text, bytes: text.as_bytes(), at: 0 };
        cursor.blank();
        let rows = match cursor.peek()? {
            b'{' => {
                let mut keys = Vec::new();
                cursor.object(|key, _| keys.push(Cow::Borrowed(key)))?;
                keys.sort_unstable();
                keys.dedup();
                JsonRows { object: true, rows: 1, keys: owned(keys), uniform: true }
            }
            b'[' => {
                cursor.at += 1;
                cursor.blank();
                // The first row's keys as written, which the next rows
                // almost always repeat in that order: checked byte for byte
                // before any search.
                let mut written = Vec::new();
                cursor.object(|key, _| written.push(key))?;
                let mut first: Vec<Cow<'_, str>> = written.iter().map(|key| Cow::Borrowed(*key)).collect();
                first.sort_unstable();
                first.dedup();
                let (mut rows, mut uniform) = (1, true);
                loop {
                    cursor.blank();
                    match cursor.next()? {
                        b']' => break,
                        b',' => {}
                        _ => return None,
                    }
                    cursor.blank();
                    if cursor.same_keys(&written) {
                        rows += 1;
                        continue;
                    }
                    let mut seen = Seen::new(first.len());
                    let mut known = true;
                    cursor.object(|key, _| match first.binary_search_by(|k| k.as_ref().cmp(key)) {
                        Ok(i) => seen.set(i),
                        Err(_) => known = false,
                    })?;
                    rows += 1;
                    uniform &= known && seen.count() == first.len();
                }
                JsonRows { object: false, rows, keys: owned(first), uniform }
            }
            _ => return None,
        };
        cursor.blank();
        (cursor.at == cursor.bytes.len()).then_some(rows)
    }

    pub fn members(text: &str) -> Option<Vec<(&str, &str)>> {
        let mut cursor = Cursor { text, bytes: text.as_bytes(), at: 0 };
        cursor.blank();
        let array = cursor.peek()? == b'[';
        if array {
            cursor.at += 1;
            cursor.blank();
        }
        let mut members = Vec::with_capacity(8);
        cursor.object(|key, value| members.push((key, value)))?;
        cursor.blank();
        if array {
            if cursor.next()? != b']' {
                return None;
            }
            cursor.blank();
        }
        (cursor.at == cursor.bytes.len()).then_some(members)
    }

    /// The first `"`, `\\` or control character of `bytes`, eight bytes at
    /// a time: a byte is flagged where `x - 0x01` (or `- 0x20`) borrows and
    /// `x` had no high bit, which is exact for the lowest flagged byte
    /// (<https://graphics.stanford.edu/~seander/bithacks.html#ZeroInWord>).
    pub(super) fn special(bytes: &[u8]) -> Option<usize> {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
        let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
        let mut at = 0;
        while let Some(chunk) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().ok()?);
            let flags = below(word ^ (ONES * u64::from(b'"')), 1)
                | below(word ^ (ONES * u64::from(b'\\')), 1)
                | below(word, 0x20);
            if flags != 0 {
                return Some(at + (flags.trailing_zeros() / 8) as usize);
            }
            at += 8;
        }
        bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|i| at + i)
    }

    struct Cursor<'a> {
        text: &'a str,
        bytes: &'a [u8],
        at: usize,
    }

    impl<'a> Cursor<'a> {
        fn peek(&self) -> Option<u8> {
            self.bytes.get(self.at).copied()
        }

        fn next(&mut self) -> Option<u8> {
            let byte = self.peek()?;
            self.at += 1;
            Some(byte)
        }

        /// JSON's white space (RFC 8259, section 2).
        fn blank(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
                self.at += 1;
            }
        }

        /// `{` then members whose values are scalars, each key given to
        /// `member` with its value as written, then `}`.
        fn object(&mut self, mut member: impl FnMut(&'a str, &'a str)) -> Option<()> {
            if self.next()? != b'{' {
                return None;
            }
            self.blank();
            if self.peek()? == b'}' {
                self.at += 1;
                return Some(());
            }
            loop {
                let key = self.string()?;
                self.blank();
                if self.next()? != b':' {
                    return None;
                }
                self.blank();
                member(key, self.scalar()?);
                self.blank();
                match self.next()? {
                    b'}' => return Some(()),
                    b',' => self.blank(),
                    _ => return None,
                }
            }
        }

        /// An object whose keys are `keys`, in that order, with scalar
        /// values; else the cursor stays where it was.
        fn same_keys(&mut self, keys: &[&str]) -> bool {
            let start = self.at;
            let read = self.keys_in_order(keys).is_some();
            if !read {
                self.at = start;
            }
            read
        }

        fn keys_in_order(&mut self, keys: &[&str]) -> Option<()> {
            if self.next()? != b'{' {
                return None;
            }
            self.blank();
            if keys.is_empty() {
                return (self.next()? == b'}').then_some(());
            }
            for (i, key) in keys.iter().enumerate() {
                // `"key"`: the key holds no quote, so this is the whole key.
                let end = self.at + key.len() + 2;
                let quoted = self.bytes.get(self.at..end)?;
                if quoted[0] != b'"'
                    || &quoted[1..quoted.len() - 1] != key.as_bytes()
                    || quoted[quoted.len() - 1] != b'"'
                {
                    return None;
                }
                self.at = end;
                self.blank();
                if self.next()? != b':' {
                    return None;
                }
                self.blank();
                self.scalar()?;
                self.blank();
                let close = if i + 1 == keys.len() { b'}' } else { b',' };
                if self.next()? != close {
                    return None;
                }
                self.blank();
            }
            Some(())
        }

        /// A string without escapes or control characters, which JSON
        /// refuses unescaped. The body is already known to be UTF-8 and the
        /// quotes are ASCII, so the string is a slice of the text.
        fn string(&mut self) -> Option<&'a str> {
            if self.next()? != b'"' {
                return None;
            }
            let start = self.at;
            let end = start + special(&self.bytes[start..])?;
            if self.bytes[end] != b'"' {
                return None;
            }
            self.at = end + 1;
            self.text.get(start..end)
        }

        /// A scalar, as written (a string with its quotes).
        fn scalar(&mut self) -> Option<&'a str> {
            let start = self.at;
            match self.peek()? {
                b'"' => self.string().map(drop),
                b'-' | b'0'..=b'9' => self.number(),
                b't' => self.word(b"true"),
                b'f' => self.word(b"false"),
                b'n' => self.word(b"null"),
                _ => None,
            }?;
            self.text.get(start..self.at)
        }

        fn word(&mut self, word: &[u8]) -> Option<()> {
            let end = self.at + word.len();
            (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
        }

        /// RFC 8259's number: `-`, an integer without leading zeros, a
        /// fraction, an exponent.
        fn number(&mut self) -> Option<()> {
            if self.peek()? == b'-' {
                self.at += 1;
            }
            match self.next()? {
                b'0' => {}
                b'1'..=b'9' => self.digits(),
                _ => return None,
            }
            if self.peek() == Some(b'.') {
                self.at += 1;
                self.some_digits()?;
            }
            if let Some(b'e' | b'E') = self.peek() {
                self.at += 1;
                if let Some(b'+' | b'-') = self.peek() {
                    self.at += 1;
                }
                self.some_digits()?;
            }
            Some(())
        }

        fn digits(&mut self) {
            while let Some(b'0'..=b'9') = self.peek() {
                self.at += 1;
            }
        }

        fn some_digits(&mut self) -> Option<()> {
            let start = self.at;
            self.digits();
            (self.at > start).then_some(())
        }
    }
}

/// A call's argument names: the keys of a body that is an object (sorted,
/// each once); none for any other JSON (a function that takes the body
/// whole). An empty body is the empty object.
pub fn object_keys(body: &[u8]) -> Result<Vec<String>, BodyError> {
    if body.is_empty() {
        return Ok(Vec::new());
    }
    let text = std::str::from_utf8(body).map_err(|_| BodyError::Invalid)?;
    let mut reader = serde_json::Deserializer::from_str(text);
    let row = reader.deserialize_any(RowVisitor { first: None }).map_err(|_| BodyError::Invalid)?;
    reader.end().map_err(|_| BodyError::Invalid)?;
    Ok(match row {
        Row::Keys(keys) => owned(keys),
        Row::Matches(_) | Row::NotObject => Vec::new(),
    })
}

fn owned(keys: Vec<Cow<'_, str>>) -> Vec<String> {
    keys.into_iter().map(Cow::into_owned).collect()
}

/// The body as [`json_rows`] sees it.
enum Top<'a> {
    Object(Vec<Cow<'a, str>>),
    Array {
        rows: usize,
        /// The first row's keys; `None` when it is not an object (an empty
        /// array has no keys).
        first: Option<Vec<Cow<'a, str>>>,
        uniform: bool,
    },
    Other,
}

/// An item of the body's array: the first is read for its keys, every other
/// only matched against them, so a row costs no allocation.
enum Row<'a> {
    Keys(Vec<Cow<'a, str>>),
    Matches(bool),
    NotObject,
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object or array")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        collect_keys(map).map(Top::Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let first = match seq.next_element_seed(RowVisitor { first: None })? {
            None => return Ok(Top::Array { rows: 0, first: Some(Vec::new()), uniform: true }),
            Some(Row::Keys(keys)) => keys,
            Some(_) => {
                // Still read to the end: a body that is not JSON is that
                // error first.
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                return Ok(Top::Array { rows: 1, first: None, uniform: false });
            }
        };
        let (mut rows, mut uniform) = (1, true);
        while let Some(row) = seq.next_element_seed(RowVisitor { first: Some(&first) })? {
            rows += 1;
            uniform &= matches!(row, Row::Matches(true));
        }
        Ok(Top::Array { rows, first: Some(first), uniform })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Top::Other)
    }
}

/// Reads a row: its keys when `first` is `None`, else whether it has
/// exactly `first`'s keys.
#[derive(Clone, Copy)]
struct RowVisitor<'f, 'de> {
    first: Option<&'f [Cow<'de, str>]>,
}

impl<'de> de::DeserializeSeed<'de> for RowVisitor<'_, 'de> {
    type Value = Row<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowVisitor<'_, 'de> {
    type Value = Row<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        match self.first {
            None => collect_keys(map).map(Row::Keys),
            Some(first) => match_keys(map, first).map(Row::Matches),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Row::NotObject)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Row::NotObject)
    }
}

/// An object's keys, sorted, each once: a key given twice counts once, as
/// in `serde_json::Map` (the last value wins there; only keys matter here).
fn collect_keys<'de, A: MapAccess<'de>>(mut map: A) -> Result<Vec<Cow<'de, str>>, A::Error> {
    let mut keys: Vec<Cow<'de, str>> = Vec::with_capacity(map.size_hint().unwrap_or(8));
    while let Some(Key(key)) = map.next_key()? {
        map.next_value::<IgnoredAny>()?;
        keys.push(key);
    }
    keys.sort_unstable();
    keys.dedup();
    Ok(keys)
}

/// Whether an object has exactly the keys of `first` (sorted, each once),
/// each given any number of times.
fn match_keys<'de, A: MapAccess<'de>>(mut map: A, first: &[Cow<'de, str>]) -> Result<bool, A::Error> {
    let mut seen = Seen::new(first.len());
    let mut known = true;
    while let Some(Key(key)) = map.next_key()? {
        map.next_value::<IgnoredAny>()?;
        match first.binary_search_by(|k| k.as_ref().cmp(key.as_ref())) {
            Ok(i) => seen.set(i),
            Err(_) => known = false,
        }
    }
    Ok(known && seen.count() == first.len())
}

/// Which of the first row's keys a row has given.
enum Seen {
    Bits(u64),
    Flags(Vec<bool>),
}

impl Seen {
    fn new(len: usize) -> Self {
        if len <= 64 { Self::Bits(0) } else { Self::Flags(vec![false; len]) }
    }

    fn set(&mut self, i: usize) {
        match self {
            Self::Bits(bits) => *bits |= 1 << i,
            Self::Flags(flags) => flags[i] = true,
        }
    }

    fn count(&self) -> usize {
        match self {
            Self::Bits(bits) => bits.count_ones() as usize,
            Self::Flags(flags) => flags.iter().filter(|f| **f).count(),
        }
    }
}

/// An object's key, borrowed from the body when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }

            fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(object: bool, rows: usize, keys: &[&str], uniform: bool) -> Result<JsonRows, BodyError> {
        Ok(JsonRows { object, rows, keys: keys.iter().map(|k| (*k).to_owned()).collect(), uniform })
    }

    #[test]
    fn a_body_is_read_for_its_shape_and_keys_only() {
        let cases: &[(&str, &str, Result<JsonRows, BodyError>)] = &[
            ("an empty body is the empty object", "", rows(true, 1, &[], true)),
            ("an object's keys come sorted", r#"{"b":1,"a":[1,{"x":2}]}"#, rows(true, 1, &["a", "b"], true)),
            ("a key given twice counts once", r#"{"a":1,"a":2}"#, rows(true, 1, &["a"], true)),
            ("an escaped key is read unescaped", r#"{"\u0061b":1}"#, rows(true, 1, &["ab"], true)),
            ("an empty array has no keys", "[]", rows(false, 0, &[], true)),
            (
                "rows with the same keys in any order are uniform",
                r#"[{"a":1,"b":"x"},{"b":null,"a":{"c":[]}}]"#,
                rows(false, 2, &["a", "b"], true),
            ),
            (
                "a row with a key more is not uniform",
                r#"[{"a":1},{"a":1,"b":2}]"#,
                rows(false, 2, &["a"], false),
            ),
            (
                "a row with a key less is not uniform",
                r#"[{"a":1,"b":2},{"a":1}]"#,
                rows(false, 2, &["a", "b"], false),
            ),
            ("a row that is not an object is not uniform", r#"[{"a":1},[1]]"#, rows(false, 2, &["a"], false)),
            (
                "a later row giving a key twice",
                r#"[{"a":1,"b":2},{"a":1,"a":2,"b":3}]"#,
                rows(false, 2, &["a", "b"], true),
            ),
            (
                "a later row giving one key twice for two",
                r#"[{"a":1,"b":2},{"a":1,"a":2}]"#,
                rows(false, 2, &["a", "b"], false),
            ),
            ("a first row that is not an object", "[1,{}]", Err(BodyError::KeysMustMatch)),
            ("a first row that is not an object, then no JSON", "[1,{]", Err(BodyError::Invalid)),
            ("a later row that is no JSON", r#"[{"a":1},{"a":]"#, Err(BodyError::Invalid)),
            ("a nested array as the first row", "[[{}]]", Err(BodyError::KeysMustMatch)),
            ("a scalar", "1", Err(BodyError::Invalid)),
            ("a string", r#""a""#, Err(BodyError::Invalid)),
            ("not JSON", "{", Err(BodyError::Invalid)),
            ("text after the value", "{} x", Err(BodyError::Invalid)),
            ("white space around the value", " [ {} ] \n", rows(false, 1, &[], true)),
        ];
        for (what, body, expected) in cases {
            assert_eq!(&json_rows(body.as_bytes()), expected, "{what}");
        }
        assert_eq!(json_rows(b"{\"a\":\"\xff\"}"), Err(BodyError::Invalid), "a body that is not UTF-8");
        // More keys than a word has bits.
        let row = |n: usize| (0..n).map(|i| format!("\"k{i:03}\":{i}")).collect::<Vec<_>>().join(",");
        for (first, second, uniform) in
            [(63, 63, true), (64, 64, true), (65, 65, true), (130, 130, true), (70, 69, false)]
        {
            let body = format!("[{{{}}},{{{}}}]", row(first), row(second));
            let read = json_rows(body.as_bytes()).expect("reads");
            assert_eq!(
                (read.rows, read.keys.len(), read.uniform),
                (2, first, uniform),
                "{first} then {second} keys"
            );
        }
    }

    #[test]
    fn the_first_quote_backslash_or_control_character_is_found_at_any_offset() {
        for at in 0..20 {
            for special in [b'"', b'\\', 0x00, 0x1f, b'\t'] {
                // Bytes JSON leaves as they are before it: ASCII, DEL, UTF-8's high bytes.
                let mut bytes: Vec<u8> =
                    (0..24).map(|i| [b'a', 0x7f, 0xc3, 0xa9, b' ', b'~'][i % 6]).collect();
                bytes[at] = special;
                bytes[at + 2] = b'"';
                assert_eq!(flat::special(&bytes), Some(at), "{special:#x} at {at}");
            }
        }
        assert_eq!(flat::special(b"no special byte at all here"), None);
    }

    /// Random bodies, each also damaged byte by byte: wherever the flat
    /// reader answers, serde_json answers the same; and it answers for the
    /// bodies bulk inserts send.
    #[test]
    fn the_flat_reader_answers_as_serde_json_wherever_it_answers() {
        // xorshift64*: the same bodies on every run.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        };
        const KEYS: [&str; 6] = ["a", "b", "name", "price", "\\u0061", "ñ"];
        const VALUES: [&str; 24] = [
            "1",
            "1e400",
            "123456789012345678901234567890",
            "-0",
            "0.5",
            "1e3",
            "-2.5E-7",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "true",
            "false",
            "null",
            "nul",
            "\"x\"",
            "\"\"",
            "\"a\\\"b\"",
            "\"tab\there\"",
            "\"ü €\"",
            "[1]",
            "{\"c\":1}",
            "\"\\u00e9\"",
        ];
        const NOISE: &[u8] = b"{}[]\",:\\ \t\n0123456789.eE+-tfnalu\x01\x7f";
        let (mut answered, mut members_answered) = (0, 0);
        for _ in 0..4000 {
            let row = |next: &mut dyn FnMut(usize) -> usize| {
                let members: Vec<String> = (0..next(5))
                    .map(|_| {
                        let blank = [" ", "", "\n\t", ""][next(4)];
                        format!("\"{}\"{blank}:{blank}{}", KEYS[next(KEYS.len())], VALUES[next(VALUES.len())])
                    })
                    .collect();
                format!("{{{}}}", members.join(","))
            };
            let body = if next(4) == 0 {
                row(&mut next)
            } else {
                let rows: Vec<String> = (0..1 + next(4)).map(|_| row(&mut next)).collect();
                format!("{}[{}]{}", [" ", ""][next(2)], rows.join(", "), ["", "\n"][next(2)])
            };
            let mut bodies = vec![body.clone()];
            for _ in 0..3 {
                let mut damaged = body.clone().into_bytes();
                let at = next(damaged.len());
                match next(3) {
                    0 => damaged[at] = NOISE[next(NOISE.len())],
                    1 => drop(damaged.remove(at)),
                    _ => damaged.insert(at, NOISE[next(NOISE.len())]),
                }
                bodies.extend(String::from_utf8(damaged).ok());
            }
            for body in bodies {
                if let Some(flat) = flat::rows(&body) {
                    answered += 1;
                    assert_eq!(Ok(flat), read_rows(&body), "{body}");
                }
                if let Some(members) = flat::members(&body) {
                    members_answered += 1;
                    let members: Vec<(String, String)> =
                        members.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
                    assert_eq!(Some(members), serde_members(&body), "{body}");
                }
            }
        }
        assert!(answered > 1000, "the flat reader answered {answered} bodies");
        assert!(members_answered > 500, "the flat reader read the members of {members_answered} bodies");
        // A bulk insert's body, as bench/wrk/scenario.lua sends it.
        let bulk = (0..100)
            .map(|i| format!(r#"{{"name":"Bulk","slug":"wrk-{i}","price":9.99,"brand_id":{}}}"#, i % 50 + 1))
            .collect::<Vec<_>>()
            .join(",");
        let bulk = format!("[{bulk}]");
        assert_eq!(flat::rows(&bulk), read_rows(&bulk).ok());
        assert!(flat::rows(&bulk).is_some());
    }

    /// The members of one object, or of an array of exactly one, as
    /// serde_json reads them: keys decoded, values as written.
    fn serde_members(body: &str) -> Option<Vec<(String, String)>> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &serde_json::value::RawValue>()? {
                    members.push((key, value.get().to_owned()));
                }
                Ok(members)
            }
        }
        struct Row(Vec<(String, String)>);
        impl<'de> serde::Deserialize<'de> for Row {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_map(Members).map(Row)
            }
        }
        if body.trim_start().starts_with('[') {
            let mut rows: Vec<Row> = serde_json::from_str(body).ok()?;
            (rows.len() == 1).then(|| rows.pop().map(|row| row.0)).flatten()
        } else {
            serde_json::from_str::<Row>(body).ok().map(|row| row.0)
        }
    }

    #[test]
    fn a_calls_argument_names_are_its_objects_keys() {
        type Keys = Result<Vec<String>, BodyError>;
        let keys = |list: &[&str]| Ok(list.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>());
        let cases: &[(&str, &str, Keys)] = &[
            ("an empty body", "", keys(&[])),
            ("an object", r#"{"low":1,"high":{"a":2}}"#, keys(&["high", "low"])),
            ("a key given twice", r#"{"a":1,"a":2}"#, keys(&["a"])),
            ("an array, taken whole", r#"[{"a":1}]"#, keys(&[])),
            ("a scalar, taken whole", "12", keys(&[])),
            ("not JSON", "{\"a\":", Err(BodyError::Invalid)),
            ("text after the value", "{}{}", Err(BodyError::Invalid)),
        ];
        for (what, body, expected) in cases {
            assert_eq!(&object_keys(body.as_bytes()), expected, "{what}");
        }
    }
}
