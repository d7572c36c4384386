//! A token-free look at the top level of a JSON object, for messages the
//! tokenizer refused for a limit (too many tokens, too deep): the refusal can
//! still carry the request's own `id`, so the client can match it.
//!
//! One forward pass over the bytes, no recursion and no stack beyond a depth
//! counter: it costs nothing the tokenizer's limits were protecting. It does
//! not validate the document (the tokenizer already said it cannot take it);
//! the caller validates whatever it takes from it.

use super::{skip_ws, string_run};

/// The end (one past the closing quote) of the string that opens at `i`.
fn string_end(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        j = string_run(s, j).0;
        match s.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => return None, // a raw control character: not JSON
        }
    }
}

/// The end of the value that starts at `i` (a container is skipped by
/// counting brackets outside strings).
fn value_end(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'"' => string_end(s, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match s.get(j)? {
                    b'"' => {
                        j = string_end(s, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while s
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// The raw bytes of the first member of the top-level object whose key is
/// written exactly `"<key>"`, or `None` when the text is not an object, has
/// no such member before the first syntax it cannot follow or the first key
/// written with an escape (which might be the same key), or ends early.
pub fn top_level_member<'s>(s: &'s [u8], key: &[u8]) -> Option<&'s [u8]> {
    s.get(top_level_member_at(s, key)?)
}

/// Where [`top_level_member`]'s value lies in `s`.
pub fn top_level_member_at(s: &[u8], key: &[u8]) -> Option<core::ops::Range<usize>> {
    let mut i = skip_ws(s, 0);
    if s.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(s, i);
        let k_end = string_end(s, i)?;
        let k = s.get(i + 1..k_end - 1)?;
        // A key written with escapes might decode to `key`: the member the
        // tokenizer would take first cannot be told without decoding, so give up.
        if super::has_byte(k, b'\\') {
            return None;
        }
        i = skip_ws(s, k_end);
        if s.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(s, i + 1);
        let v_end = value_end(s, i)?;
        if k == key {
            return Some(i..v_end);
        }
        i = skip_ws(s, v_end);
        if s.get(i) != Some(&b',') {
            return None;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_members_only() {
        let m = |s: &str| top_level_member(s.as_bytes(), b"id").map(|v| v.to_vec());
        assert_eq!(m(r#"{"id":7,"x":1}"#), Some(b"7".to_vec()));
        assert_eq!(
            m(r#" { "a" : [1,{"id":2}] , "id" : "q\"}" }"#),
            Some(br#""q\"}""#.to_vec())
        );
        assert_eq!(
            m(r#"{"params":{"id":3},"id":-4.5e1}"#),
            Some(b"-4.5e1".to_vec())
        );
        assert_eq!(m(r#"{"a":"]}","id":[1]}"#), Some(b"[1]".to_vec()));
        // Not found, not an object, cut short, escaped key.
        assert_eq!(m(r#"{"params":{"id":3}}"#), None);
        assert_eq!(m(r#"[{"id":1}]"#), None);
        assert_eq!(m(r#"{"a":[[[[["#), None);
        assert_eq!(m(r#"{"i\u0064":1}"#), None);
        assert_eq!(m(r#"{"i\u0064":1,"id":2}"#), None);
        assert_eq!(m(r#"{"a\n":1,"id":2}"#), None);
        assert_eq!(m(r#"{"id""#), None);
        assert_eq!(m(""), None);
    }

    #[test]
    fn never_panics_on_prefixes() {
        let s = br#"{"a":{"b":["c\"",1,{"d":null}]},"id":"x\\y","z":[]}"#;
        for n in 0..=s.len() {
            let _ = top_level_member(&s[..n], b"id");
            let _ = top_level_member(&s[n..], b"id");
        }
        assert_eq!(top_level_member(s, b"id"), Some(&br#""x\\y""#[..]));
    }
}
