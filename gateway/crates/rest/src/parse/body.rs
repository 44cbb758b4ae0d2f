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
    let top = reader.deserialize_any(ItemVisitor { top: true }).map_err(|_| BodyError::Invalid)?;
    reader.end().map_err(|_| BodyError::Invalid)?;
    match top {
        Item::Object(keys) => Ok(JsonRows { object: true, rows: 1, keys: owned(keys), uniform: true }),
        Item::Array(items) => {
            let first = match items.first() {
                None => Vec::new(),
                Some(Item::Object(keys)) => keys.clone(),
                Some(_) => return Err(BodyError::KeysMustMatch),
            };
            let uniform = items.iter().all(|item| matches!(item, Item::Object(keys) if *keys == first));
            Ok(JsonRows { object: false, rows: items.len(), keys: owned(first), uniform })
        }
        Item::Other => Err(BodyError::Invalid),
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
    let item = reader.deserialize_any(ItemVisitor { top: false }).map_err(|_| BodyError::Invalid)?;
    reader.end().map_err(|_| BodyError::Invalid)?;
    Ok(match item {
        Item::Object(keys) => owned(keys),
        Item::Array(_) | Item::Other => Vec::new(),
    })
}

fn owned(keys: Vec<Cow<'_, str>>) -> Vec<String> {
    keys.into_iter().map(Cow::into_owned).collect()
}

/// A JSON value as far as [`json_rows`] looks into it: an object's keys
/// (sorted, each once), the items of the top-level array, nothing else.
#[derive(Clone, Debug)]
enum Item<'a> {
    Object(Vec<Cow<'a, str>>),
    Array(Vec<Item<'a>>),
    Other,
}

struct ItemVisitor {
    /// Only the body itself is looked into as an array; an array within
    /// is a value like any other.
    top: bool,
}

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys: Vec<Cow<'de, str>> = Vec::new();
        while let Some(Key(key)) = map.next_key()? {
            map.next_value::<IgnoredAny>()?;
            keys.push(key);
        }
        // A key given twice counts once, as in `serde_json::Map` (the last
        // value wins there; only the keys matter here).
        keys.sort_unstable();
        keys.dedup();
        Ok(Item::Object(keys))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if !self.top {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Item::Other);
        }
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Element(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Item::Array(items))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Item::Other)
    }
}

/// An item of the top-level array.
struct Element<'a>(Item<'a>);

impl<'de> de::Deserialize<'de> for Element<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor { top: false }).map(Element)
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
            ("a first row that is not an object", "[1,{}]", Err(BodyError::KeysMustMatch)),
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
