//! Read-only navigation over a checked JSON text, without tokens.
//!
//! Owns: lookups by key and index, string comparison and unescaping, and
//! number conversion, all by scanning the text itself. A value is named by
//! the byte offset of its first byte; nothing about it is stored, so a
//! request costs no stack per JSON value.
//! Must not: modify or copy the input; every result borrows from it; be
//! given a text that [`super::tokenizer::check`] has not accepted (the scans
//! below rely on its grammar and never re-validate).

use super::tokenizer::Kind;

/// A checked JSON text. Indices are byte offsets of values (and object keys).
#[derive(Clone, Copy)]
pub struct Doc<'a> {
    src: &'a [u8],
}

/// Why a value could not be converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvError {
    /// The value has another JSON type.
    Type,
    /// A number that is not an integer where one was asked for.
    NotInteger,
    /// A number outside the target type's range (or beyond f64).
    Range,
    /// The destination buffer is too small.
    NoSpace,
}

/// True for the bytes JSON allows between tokens.
#[inline(always)]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Doc<'a> {
    /// Wraps `src`, a text [`super::tokenizer::check`] accepted.
    pub fn new(src: &'a [u8]) -> Self {
        Doc { src }
    }

    /// The source text.
    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// Index of the root value (the first byte after leading whitespace).
    pub fn root(&self) -> usize {
        self.ws(0)
    }

    /// The first non-whitespace offset at or after `i`.
    #[inline]
    fn ws(&self, i: usize) -> usize {
        super::skip_ws(self.src, i)
    }

    /// The JSON type at `i`.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    pub fn kind(&self, i: usize) -> Option<Kind> {
        Some(match *self.src.get(i)? {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' => Kind::True,
            b'f' => Kind::False,
            b'n' => Kind::Null,
            b'-' | b'0'..=b'9' => Kind::Number,
            _ => return None,
        })
    }

    /// One past the last byte of the string whose opening quote is at `i`.
    #[inline]
    fn string_end(&self, i: usize) -> usize {
        self.string_end_escaped(i).0
    }

    /// [`Doc::string_end`], and whether the string holds a backslash escape.
    ///
    /// A checked string holds no control bytes, so only `"` and `\\` stop
    /// the scan: a word at a time (as [`super::string_run`] does, with two
    /// tests instead of three), then byte by byte for the last few bytes.
    /// Bare-metal targets go byte by byte throughout (flash first).
    /// One copy on bare-metal targets, called from every scan (inlined it
    /// would be repeated in each); inlined into each on hosted ones, where
    /// the call cost more than the scan of a short key.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn string_end_escaped(&self, i: usize) -> (usize, bool) {
        string_end_in::<{ !cfg!(target_os = "none") }>(self.src, i)
    }

    /// One past the last byte of the value at `i` (`i` itself for no value).
    pub fn skip(&self, i: usize) -> usize {
        let s = self.src;
        match s.get(i) {
            Some(b'"') => return self.string_end(i),
            Some(b'{' | b'[') => {}
            Some(_) => {
                // A number or a literal: up to the next delimiter.
                let mut p = i;
                while s
                    .get(p)
                    .is_some_and(|&b| !is_ws(b) && !matches!(b, b',' | b'}' | b']' | b':'))
                {
                    p += 1;
                }
                return p;
            }
            None => return i,
        }
        let mut depth = 0usize;
        let mut p = i;
        while let Some(&b) = s.get(p) {
            match b {
                b'"' => {
                    p = self.string_end(p);
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return p + 1;
                    }
                }
                _ => {}
            }
            p += 1;
        }
        s.len()
    }

    /// The exact bytes of the value at `i` (strings with their quotes).
    pub fn raw(&self, i: usize) -> &'a [u8] {
        self.src.get(i..self.skip(i)).unwrap_or(&[])
    }

    /// The bytes between a string's quotes, still escaped.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    pub fn str_inner(&self, i: usize) -> Option<&'a [u8]> {
        if self.src.get(i) != Some(&b'"') {
            return None;
        }
        self.src.get(i + 1..self.string_end(i).saturating_sub(1))
    }

    /// True when the string at `i` contains a backslash escape.
    pub fn escaped(&self, i: usize) -> bool {
        self.str_inner(i).is_some_and(|s| super::has_byte(s, b'\\'))
    }

    /// The value stored under `key` in the object at `obj` (first match wins).
    pub fn get(&self, obj: usize, key: &str) -> Option<usize> {
        self.get_bytes(obj, key.as_bytes())
    }

    /// The value of member `key` (raw bytes, compared with the unescaped key).
    pub fn get_bytes(&self, obj: usize, key: &[u8]) -> Option<usize> {
        self.entries(obj).find(|e| e.is(key)).map(|e| e.val)
    }

    /// Several lookups in one pass over the object at `obj`: `out[j]` becomes
    /// the value of the first member named `keys[j]` (what `get_bytes` would
    /// return), and stays as it was when there is none.
    pub fn get_many(&self, obj: usize, keys: &[&[u8]], out: &mut [Option<u32>]) {
        for e in self.entries(obj) {
            if let Some((_, slot)) = keys
                .iter()
                .zip(out.iter_mut())
                .find(|(key, slot)| slot.is_none() && e.is(key))
            {
                *slot = u32::try_from(e.val).ok();
            }
            // Later members cannot change a found slot: stop before their
            // values are scanned at all.
            if out.iter().all(Option::is_some) {
                return;
            }
        }
    }

    /// Iterates the members of the object at `obj` with each name read once
    /// (the hot loops of lookups and validation compare names many times).
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn entries(&self, obj: usize) -> Entries<'a> {
        Entries {
            doc: *self,
            at: self.first_inside(obj, b'{'),
            last: usize::MAX,
        }
    }

    /// Iterates the (key, value) indices of the object at `obj`.
    pub fn members(&self, obj: usize) -> Members<'a> {
        Members(self.entries(obj))
    }

    /// Iterates the element indices of the array at `arr`.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn elements(&self, arr: usize) -> Elements<'a> {
        Elements {
            doc: *self,
            at: self.first_inside(arr, b'['),
            last: usize::MAX,
        }
    }

    /// The first member or element of the container at `i` opened by
    /// `open`; `usize::MAX` when it is empty or not such a container.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn first_inside(&self, i: usize, open: u8) -> usize {
        if self.src.get(i) != Some(&open) {
            return usize::MAX;
        }
        let p = self.ws(i + 1);
        match self.src.get(p) {
            Some(b'}' | b']') | None => usize::MAX,
            Some(_) => p,
        }
    }

    /// After the value ending at `end`: the next member or element, or
    /// `usize::MAX` at the container's close.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn after(&self, end: usize) -> usize {
        let p = self.ws(end);
        if self.src.get(p) == Some(&b',') {
            self.ws(p + 1)
        } else {
            usize::MAX
        }
    }

    /// True when `i` is a string whose decoded text equals `lit`.
    pub fn str_eq(&self, i: usize, lit: &str) -> bool {
        self.str_eq_bytes(i, lit.as_bytes())
    }

    /// True when `i` is a string whose decoded bytes equal `lit`.
    pub fn str_eq_bytes(&self, i: usize, lit: &[u8]) -> bool {
        if cfg!(target_os = "none") {
            // Bare-metal targets decode every string (50 B less flash).
            return self.str_inner(i).is_some_and(|s| name_is(s, true, lit));
        }
        if self.src.get(i) != Some(&b'"') {
            return false;
        }
        // The scan for the end notes whether the text holds an escape: an
        // unescaped text is compared as it is, lengths first.
        let (end, escaped) = self.string_end_escaped(i);
        let inner = self.src.get(i + 1..end.saturating_sub(1)).unwrap_or(&[]);
        name_is(inner, escaped, lit)
    }

    /// Decodes the string at `i` into `out`; returns its length in bytes.
    pub fn unescape_into(&self, i: usize, out: &mut [u8]) -> Result<usize, ConvError> {
        let inner = self.str_inner(i).ok_or(ConvError::Type)?;
        let mut n = 0;
        for b in Unescape::new(inner) {
            *out.get_mut(n).ok_or(ConvError::NoSpace)? = b;
            n += 1;
        }
        Ok(n)
    }

    /// Decoded length in bytes of the string at `i`.
    pub fn unescaped_len(&self, i: usize) -> Option<usize> {
        self.str_inner(i).map(|s| Unescape::new(s).count())
    }

    /// The number at `i` as an `i64`; integral forms like `1.0` or `1e2` count.
    pub fn as_i64(&self, i: usize) -> Result<i64, ConvError> {
        exact_int(self.number_raw(i)?)
    }

    /// The number at `i` as an `f64`; values beyond f64's range are refused.
    pub fn as_f64(&self, i: usize) -> Result<f64, ConvError> {
        parse_f64(self.number_raw(i)?)
    }

    /// The boolean at `i`.
    pub fn as_bool(&self, i: usize) -> Result<bool, ConvError> {
        match self.kind(i) {
            Some(Kind::True) => Ok(true),
            Some(Kind::False) => Ok(false),
            _ => Err(ConvError::Type),
        }
    }

    fn number_raw(&self, i: usize) -> Result<&'a [u8], ConvError> {
        if self.kind(i) != Some(Kind::Number) {
            return Err(ConvError::Type);
        }
        Ok(self.raw(i))
    }
}

/// [`Doc::string_end_escaped`] over `s`, the word-at-a-time steps compiled
/// in only when `WORDS` (both forms are tested against each other).
#[inline(always)]
fn string_end_in<const WORDS: bool>(s: &[u8], i: usize) -> (usize, bool) {
    use super::{HIGH, ONES, WORD};
    let mut p = i + 1;
    let mut escaped = false;
    loop {
        while let Some(chunk) = s.get(p..p + WORD).filter(|_| WORDS) {
            let w = usize::from_le_bytes(chunk.try_into().unwrap_or([0; WORD]));
            let q = w ^ (ONES * usize::from(b'"'));
            let b = w ^ (ONES * usize::from(b'\\'));
            let f = ((q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b)) & HIGH;
            if f != 0 {
                // The lowest flagged lane is exact.
                p += (f.trailing_zeros() / 8) as usize;
                break;
            }
            p += WORD;
        }
        match s.get(p) {
            Some(b'"') => return (p + 1, escaped),
            Some(b'\\') => {
                escaped = true;
                p += 2;
            }
            Some(_) => p += 1,
            None => return (s.len(), escaped),
        }
    }
}

/// The exact integer value of a (validated) JSON number, computed in decimal
/// so `1e18` and `100e-2` convert and nothing is ever rounded or wrapped.
pub(crate) fn exact_int(raw: &[u8]) -> Result<i64, ConvError> {
    if let Some(v) = plain_int(raw) {
        return Ok(v);
    }
    match super::num::Dec::parse(raw).map(|d| d.to_i64()) {
        None => Err(ConvError::Type),
        Some(Ok(v)) => Ok(v),
        Some(Err(true)) => Err(ConvError::NotInteger),
        Some(Err(false)) => Err(ConvError::Range),
    }
}

/// A number written as plain digits (an optional minus and 1 to 18 digits,
/// which always fit an i64), converted directly: the common case, on hosted
/// targets. `None` for any other text, and always on bare-metal targets,
/// which take the decimal path alone (flash first).
#[inline(always)]
pub(crate) fn plain_int(raw: &[u8]) -> Option<i64> {
    if cfg!(target_os = "none") {
        return None;
    }
    let (neg, digits) = match raw.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, raw),
    };
    if !(1..=18).contains(&digits.len()) || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
    Some(if neg { -v } else { v })
}

fn parse_f64(raw: &[u8]) -> Result<f64, ConvError> {
    let f = super::num::Dec::parse(raw).ok_or(ConvError::Type)?.to_f64();
    if super::num::is_finite(f) {
        Ok(f)
    } else {
        Err(ConvError::Range)
    }
}

/// One object member, its name read once.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    /// Index of the key string.
    pub key: usize,
    /// The bytes between the key's quotes, still escaped.
    pub name: &'a [u8],
    /// The name contains a backslash escape.
    pub escaped: bool,
    /// Index of the value.
    pub val: usize,
}

impl Entry<'_> {
    /// True when the (decoded) name is `lit`.
    #[inline]
    pub fn is(&self, lit: &[u8]) -> bool {
        name_is(self.name, self.escaped, lit)
    }
}

/// True when a member name (a key's inside, `escaped` when it holds a
/// backslash) decodes to `lit`.
#[inline]
pub fn name_is(name: &[u8], escaped: bool, lit: &[u8]) -> bool {
    if escaped || cfg!(target_os = "none") {
        // Only a name with a backslash is decoded (on hosted targets:
        // bare-metal ones decode every name, one compare for both).
        Unescape::new(name).eq(lit.iter().copied())
    } else {
        name == lit
    }
}

/// Iterator over an object's members as [`Entry`]s. A value is skipped
/// only when the next member is asked for, so a search that stops at a
/// member never scans that member's value.
pub struct Entries<'a> {
    doc: Doc<'a>,
    at: usize,
    last: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;
    fn next(&mut self) -> Option<Entry<'a>> {
        let d = self.doc;
        if self.last != usize::MAX {
            self.at = d.after(d.skip(self.last));
            self.last = usize::MAX;
        }
        let key = self.at;
        if key == usize::MAX {
            return None;
        }
        let (end, escaped) = d.string_end_escaped(key);
        let name = d.src.get(key + 1..end.saturating_sub(1)).unwrap_or(&[]);
        let val = d.ws(d.ws(end) + 1);
        self.last = val;
        Some(Entry {
            key,
            name,
            escaped,
            val,
        })
    }
}

/// Iterator over an object's (key, value) indices.
pub struct Members<'a>(Entries<'a>);

impl Iterator for Members<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        self.0.next().map(|e| (e.key, e.val))
    }
}

/// Iterator over an array's element indices (each skipped lazily, as
/// [`Entries`] does).
pub struct Elements<'a> {
    doc: Doc<'a>,
    at: usize,
    last: usize,
}

impl Iterator for Elements<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.last != usize::MAX {
            self.at = self.doc.after(self.doc.skip(self.last));
            self.last = usize::MAX;
        }
        let el = self.at;
        if el == usize::MAX {
            return None;
        }
        self.last = el;
        Some(el)
    }
}

/// Decodes the inside of a JSON string (already validated) into UTF-8 bytes.
pub struct Unescape<'a> {
    src: &'a [u8],
    pos: usize,
    pending: [u8; 4],
    pending_len: u8,
    pending_at: u8,
}

impl<'a> Unescape<'a> {
    /// Starts decoding `inner`, the bytes between a string's quotes.
    pub fn new(inner: &'a [u8]) -> Self {
        Unescape {
            src: inner,
            pos: 0,
            pending: [0; 4],
            pending_len: 0,
            pending_at: 0,
        }
    }

    fn hex4(&mut self) -> u32 {
        let v = super::hex4(self.src, self.pos).unwrap_or(0);
        self.pos += 4;
        v
    }
}

impl Iterator for Unescape<'_> {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        if self.pending_at < self.pending_len {
            let b = self.pending.get(usize::from(self.pending_at)).copied();
            self.pending_at += 1;
            return b;
        }
        let b = *self.src.get(self.pos)?;
        self.pos += 1;
        if b != b'\\' {
            return Some(b);
        }
        let e = *self.src.get(self.pos)?;
        self.pos += 1;
        let out = match e {
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut cp = self.hex4();
                if (0xD800..0xDC00).contains(&cp) {
                    self.pos += 2; // the tokenizer guaranteed "\u" follows
                    let lo = self.hex4();
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                }
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let s = ch.encode_utf8(&mut self.pending);
                self.pending_len = s.len() as u8;
                self.pending_at = 1;
                return self.pending.first().copied();
            }
            other => other, // '"', '\\', '/'
        };
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_doc(src: &str, f: impl FnOnce(Doc<'_>)) {
        super::super::tokenizer::check(src.as_bytes(), 16).unwrap();
        f(Doc::new(src.as_bytes()))
    }

    /// The hosted shortcut for plain digits converts as the decimal path
    /// does, and takes nothing else (the decimal path keeps those).
    #[test]
    fn plain_integers_convert_as_decimals() {
        let eighteen = "9".repeat(18);
        let plain = [
            "0",
            "-0",
            "7",
            "-7",
            "100",
            "-123456",
            &eighteen,
            &format!("-{eighteen}"),
        ];
        for raw in plain {
            let by_decimal = super::super::num::Dec::parse(raw.as_bytes())
                .unwrap()
                .to_i64()
                .unwrap();
            assert_eq!(plain_int(raw.as_bytes()), Some(by_decimal), "{raw}");
            assert_eq!(exact_int(raw.as_bytes()), Ok(by_decimal), "{raw}");
        }
        let nineteen = "9".repeat(19);
        for raw in [
            "", "-", "1.0", "1e2", "-1E2", "0.5", "\"1\"", "true", &nineteen,
        ] {
            assert_eq!(plain_int(raw.as_bytes()), None, "{raw}");
        }
        assert_eq!(exact_int(b"1e2"), Ok(100));
        assert_eq!(exact_int(nineteen.as_bytes()), Err(ConvError::Range));
    }

    /// The offset of the value right after the `n`th occurrence of `pat`.
    fn after(src: &str, pat: &str, n: usize) -> usize {
        src.match_indices(pat).nth(n).unwrap().0 + pat.len()
    }

    /// Names without a backslash compare the same through the decoding
    /// compare (the only one bare-metal targets keep) as byte for byte.
    #[test]
    fn plain_compare_forms_agree() {
        let names: [&[u8]; 6] = [b"", b"a", b"id", b"ids", b"\xc3\xa9t\xc3\xa9", b"jsonrpc"];
        for a in names {
            for b in names {
                assert_eq!(Unescape::new(a).eq(b.iter().copied()), a == b);
            }
        }
        let text = br#"{"id":1,"i\u0064":2}"#;
        let d = Doc::new(text);
        let names: Vec<_> = d.entries(0).map(|e| (e.is(b"id"), e.escaped)).collect();
        assert_eq!(names, [(true, false), (true, true)]);
        assert!(d.str_eq(1, "id") && !d.str_eq(1, "i"));
    }

    /// The byte-at-a-time string scan (bare-metal targets) and the
    /// word-at-a-time one (hosted) end every string at the same byte and
    /// agree on whether it holds an escape: every length around the word
    /// size, with a quote, an escaped quote or a backslash pair at every
    /// position.
    #[test]
    fn string_end_forms_agree() {
        for len in 0..24usize {
            for at in 0..len {
                for ins in [&b"\\\""[..], b"\\\\", b"\"", b"\\n"] {
                    let mut s = vec![b'"'];
                    s.extend(core::iter::repeat_n(b'x', at));
                    s.extend_from_slice(ins);
                    s.extend(core::iter::repeat_n(b'y', len - at));
                    s.push(b'"');
                    let words = string_end_in::<true>(&s, 0);
                    let bytes = string_end_in::<false>(&s, 0);
                    assert_eq!(words, bytes, "{:?}", core::str::from_utf8(&s));
                    assert!(words.0 <= s.len());
                }
            }
        }
        assert_eq!(string_end_in::<false>(b"\"ab\\\"c\"d", 0), (7, true));
        assert_eq!(string_end_in::<true>(b"\"ab\\\"c\"d", 0), (7, true));
        assert_eq!(string_end_in::<false>(b"\"abc", 0), (4, false));
    }

    /// One pass, several keys: the first member of each name wins, escaped
    /// names are decoded, and a key equal in length but not in bytes misses.
    #[test]
    fn get_many_finds_first_members() {
        let src = r#"{"method":1,"params":2,"\u0069d":3,"params":4,"x":{"id":5}}"#;
        with_doc(src, |d| {
            let mut out = [None; 4];
            d.get_many(0, &[b"id", b"params", b"method", b"nope"], &mut out);
            let at = |pat, n| Some(after(src, pat, n) as u32);
            assert_eq!(
                out,
                [
                    at("0069d\":", 0),
                    at("params\":", 0),
                    at("method\":", 0),
                    None
                ]
            );
            assert_eq!(d.get(0, "params"), Some(after(src, "params\":", 0)));
            let x = after(src, "x\":", 0);
            assert_eq!(d.get(0, "x"), Some(x));
            assert_eq!(d.get(x, "id"), Some(after(src, "id\":", 0)));
            assert_eq!(d.get(0, "paramz"), None);
            let mut none = [None; 1];
            d.get_many(after(src, "params\":", 0), &[b"id"], &mut none);
            assert_eq!(none, [None]);
        });
    }

    /// Whitespace anywhere between tokens, empty containers and nested
    /// strings with brackets and escaped quotes: members, elements and skip
    /// land on the same values a tokenizer would.
    #[test]
    fn navigation_over_whitespace_and_strings() {
        let src = " { \"a\" : [ ] , \"b\":{ }, \"c\" :[ \"]}\\\"\" , {\"d\":[1, 2 ]} ,-1.5e3,true ], \"e\" : null } ";
        with_doc(src, |d| {
            let root = d.root();
            assert_eq!(root, 1);
            let keys: Vec<_> = d
                .members(root)
                .map(|(k, _)| core::str::from_utf8(d.str_inner(k).unwrap()).unwrap())
                .collect();
            assert_eq!(keys, ["a", "b", "c", "e"]);
            let a = d.get(root, "a").unwrap();
            assert_eq!(d.elements(a).count(), 0);
            assert_eq!(d.raw(a), b"[ ]");
            let b = d.get(root, "b").unwrap();
            assert_eq!(d.members(b).count(), 0);
            let c = d.get(root, "c").unwrap();
            let raws: Vec<_> = d.elements(c).map(|e| d.raw(e)).collect();
            assert_eq!(
                raws,
                [&b"\"]}\\\"\""[..], b"{\"d\":[1, 2 ]}", b"-1.5e3", b"true"]
            );
            assert_eq!(d.kind(d.get(root, "e").unwrap()), Some(Kind::Null));
            assert_eq!(d.skip(root), src.len() - 1);
            assert!(d.escaped(d.elements(c).next().unwrap()));
        });
    }

    /// `str_eq_bytes` (the hosted form compares unescaped text as it is)
    /// agrees with decoding each string and comparing (the bare-metal form),
    /// for plain and escaped strings of every length around a word, against
    /// equal, shorter, longer and different texts; non-strings never equal.
    #[test]
    fn str_eq_agrees_with_decoding() {
        for len in 0..20usize {
            let plain: String = (0..len).map(|k| (b'a' + (k % 26) as u8) as char).collect();
            for form in [
                plain.clone(),
                format!("\\u0041{plain}"),
                format!("{plain}\\n"),
            ] {
                let text = format!(r#"["{form}",12,null,{{"k":"{form}"}}]"#);
                let d = Doc::new(text.as_bytes());
                let els: Vec<usize> = d.elements(0).collect();
                let mut decoded = vec![0u8; 64];
                let n = d.unescape_into(els[0], &mut decoded).unwrap();
                decoded.truncate(n);
                let mut longer = decoded.clone();
                longer.push(b'z');
                let mut other = decoded.clone();
                if let Some(b) = other.last_mut() {
                    *b ^= 1;
                }
                for lit in [
                    &decoded[..],
                    &decoded[..n.saturating_sub(1)],
                    &longer,
                    &other,
                ] {
                    let want = lit == &decoded[..];
                    assert_eq!(d.str_eq_bytes(els[0], lit), want, "{form} vs {lit:?}");
                    assert!(!d.str_eq_bytes(els[1], lit) && !d.str_eq_bytes(els[3], lit));
                }
            }
        }
    }

    #[test]
    fn lookup_and_compare() {
        with_doc(
            r#"{"a":{"x":[1,2]},"b\u0065":"caf\u00e9 \ud83d\ude00","n":12}"#,
            |d| {
                let a = d.get(0, "a").unwrap();
                assert_eq!(d.kind(a), Some(Kind::Object));
                let be = d.get(0, "be").unwrap();
                assert!(d.str_eq(be, "café 😀"));
                let mut buf = [0u8; 16];
                let n = d.unescape_into(be, &mut buf).unwrap();
                assert_eq!(&buf[..n], "café 😀".as_bytes());
                assert_eq!(d.unescaped_len(be), Some(n));
                assert_eq!(d.unescape_into(be, &mut [0u8; 3]), Err(ConvError::NoSpace));
                assert_eq!(d.as_i64(d.get(0, "n").unwrap()), Ok(12));
                assert!(d.get(0, "zz").is_none());
                let x = d.get(a, "x").unwrap();
                assert_eq!(d.elements(x).count(), 2);
            },
        );
    }

    #[test]
    fn numbers() {
        with_doc(
            "[9223372036854775807,-9223372036854775808,9223372036854775808,1.0,1e2,1.5,1e400,\"1\"]",
            |d| {
                let all: Vec<usize> = d.elements(0).collect();
                let e: [usize; 8] = core::array::from_fn(|i| all[i]);
                assert_eq!(d.as_i64(e[0]), Ok(i64::MAX));
                assert_eq!(d.as_i64(e[1]), Ok(i64::MIN));
                assert_eq!(d.as_i64(e[2]), Err(ConvError::Range));
                assert_eq!(d.as_i64(e[3]), Ok(1));
                assert_eq!(d.as_i64(e[4]), Ok(100));
                assert_eq!(d.as_i64(e[5]), Err(ConvError::NotInteger));
                assert_eq!(d.as_i64(e[6]), Err(ConvError::Range));
                assert_eq!(d.as_f64(e[6]), Err(ConvError::Range));
                assert_eq!(d.as_f64(e[5]), Ok(1.5));
                assert_eq!(d.as_i64(e[7]), Err(ConvError::Type));
            },
        );
        with_doc(
            "[1e18,9007199254740993.0,100e-2,-0.0e5,0e400,1e19,12.30e1,1.5e1,123e-1,0.1e1,-9223372036854775808e0,1e-99999999999999999999]",
            |d| {
                let v: Vec<_> = d.elements(0).map(|i| d.as_i64(i)).collect();
                assert_eq!(
                    v,
                    [
                        Ok(1_000_000_000_000_000_000),
                        Ok(9_007_199_254_740_993),
                        Ok(1),
                        Ok(0),
                        Ok(0),
                        Err(ConvError::Range),
                        Ok(123),
                        Ok(15),
                        Err(ConvError::NotInteger),
                        Ok(1),
                        Ok(i64::MIN),
                        Err(ConvError::NotInteger),
                    ]
                );
            },
        );
    }
}
