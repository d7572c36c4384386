//! A JSON reader independent of emcp: serde_json spans (`RawValue`), objects
//! as ordered member lists (duplicates kept), numbers as their text.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// One JSON value, one level deep; children stay raw spans of the source.
#[derive(Debug)]
pub enum J<'a> {
    /// Members in document order, duplicates included, keys unescaped.
    Obj(Vec<(String, &'a RawValue)>),
    /// Elements.
    Arr(Vec<&'a RawValue>),
    /// An unescaped string.
    Str(String),
    /// A number exactly as written.
    Num(&'a str),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}

struct Pairs<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Pairs<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Pairs<'de>, A::Error> {
                let mut v = Vec::new();
                while let Some(kv) = m.next_entry::<String, &'de RawValue>()? {
                    v.push(kv);
                }
                Ok(Pairs(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// The whole text as one JSON value (surrounding whitespace allowed), or
/// `None` when serde_json refuses it.
pub fn top(src: &[u8]) -> Option<&RawValue> {
    let s = std::str::from_utf8(src).ok()?;
    serde_json::from_str::<&RawValue>(s).ok()
}

/// Opens one level of `raw`.
pub fn open(raw: &RawValue) -> Option<J<'_>> {
    let t = raw
        .get()
        .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    Some(match t.as_bytes().first()? {
        b'{' => J::Obj(serde_json::from_str::<Pairs<'_>>(t).ok()?.0),
        b'[' => J::Arr(serde_json::from_str::<Vec<&RawValue>>(t).ok()?),
        b'"' => J::Str(serde_json::from_str::<String>(t).ok()?),
        b't' => J::Bool(true),
        b'f' => J::Bool(false),
        b'n' => J::Null,
        _ => J::Num(t),
    })
}

/// The members of an object, or `None` when `raw` is not one.
pub fn members(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    match open(raw)? {
        J::Obj(m) => Some(m),
        _ => None,
    }
}

/// The first member named `key` (the core's rule for what a reader sees).
pub fn first<'a>(m: &[(String, &'a RawValue)], key: &str) -> Option<&'a RawValue> {
    m.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// The string value of `raw`, unescaped.
pub fn string(raw: &RawValue) -> Option<String> {
    match open(raw)? {
        J::Str(s) => Some(s),
        _ => None,
    }
}

/// The raw text of `raw` without surrounding whitespace.
pub fn text(raw: &RawValue) -> &str {
    raw.get()
        .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// Tokens in emcp's sense (every value and every object key is one), and the
/// deepest nesting of containers; `None` if any level fails to parse.
pub fn tokens_and_depth(raw: &RawValue) -> Option<(usize, usize)> {
    Some(match open(raw)? {
        J::Obj(m) => {
            let (mut n, mut d) = (1, 1);
            for (_, v) in m {
                let (cn, cd) = tokens_and_depth(v)?;
                n += 1 + cn;
                d = d.max(cd + 1);
            }
            (n, d)
        }
        J::Arr(a) => {
            let (mut n, mut d) = (1, 1);
            for v in a {
                let (cn, cd) = tokens_and_depth(v)?;
                n += cn;
                d = d.max(cd + 1);
            }
            (n, d)
        }
        _ => (1, 0),
    })
}
