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
