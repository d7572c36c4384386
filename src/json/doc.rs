//! Read-only navigation over a tokenized JSON text.
//!
//! Owns: lookups by key and index, string comparison and unescaping, and
//! number conversion, all over the spans the tokenizer produced.
//! Must not: modify or copy the input; every result borrows from it.

use super::tokenizer::{Kind, Token};

/// A tokenized JSON text: the source bytes and their tokens.
#[derive(Clone, Copy)]
pub struct Doc<'a> {
    src: &'a [u8],
    toks: &'a [Token],
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

impl<'a> Doc<'a> {
    /// Wraps tokens produced by [`super::tokenize`] over `src`.
    pub fn new(src: &'a [u8], toks: &'a [Token]) -> Self {
        Doc { src, toks }
    }

    /// The source text.
    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// The token at `i`, if any.
    pub fn token(&self, i: usize) -> Option<&'a Token> {
        self.toks.get(i)
    }

    /// The JSON type at `i`.
    pub fn kind(&self, i: usize) -> Option<Kind> {
        self.token(i).map(|t| t.kind)
    }

    /// The exact bytes of the value at `i` (strings with their quotes).
    pub fn raw(&self, i: usize) -> &'a [u8] {
        self.token(i)
            .and_then(|t| self.src.get(t.start as usize..t.end as usize))
            .unwrap_or(&[])
    }

    /// The bytes between a string's quotes, still escaped.
    pub fn str_inner(&self, i: usize) -> Option<&'a [u8]> {
        let t = self.token(i).filter(|t| t.kind == Kind::String)?;
        self.src
            .get(t.start as usize + 1..(t.end as usize).saturating_sub(1))
    }

    /// The value stored under `key` in the object at `obj` (first match wins).
    pub fn get(&self, obj: usize, key: &str) -> Option<usize> {
        self.get_bytes(obj, key.as_bytes())
    }

    /// The value of member `key` (raw bytes, compared with the unescaped key).
    pub fn get_bytes(&self, obj: usize, key: &[u8]) -> Option<usize> {
        let mut out = [None];
        self.get_many(obj, &[key], &mut out);
        let [v] = out;
        v.map(usize::from)
    }

    /// Several lookups in one pass over the object at `obj`: `out[j]` becomes
    /// the value of the first member named `keys[j]` (what `get_bytes` would
    /// return), and stays as it was when there is none.
    /// Token indices are `u16` here (the tokenizer never makes more), which
    /// halves what callers keep of them on a 32-bit stack.
    pub fn get_many(&self, obj: usize, keys: &[&[u8]], out: &mut [Option<u16>]) {
        // The hottest lookup of a request: `members` spelled out, and each
        // member name sliced once and compared by length before any byte.
        let Some(t) = self.toks.get(obj).filter(|t| t.kind == Kind::Object) else {
            return;
        };
        let end = usize::from(t.next);
        let mut k = obj + 1;
        while k < end {
            let v = k + 1;
            if let Some(kt) = self.toks.get(k) {
                let inner = self
                    .src
                    .get(kt.start as usize + 1..(kt.end as usize).saturating_sub(1))
                    .unwrap_or(&[]);
                for (key, slot) in keys.iter().zip(out.iter_mut()) {
                    let hit = slot.is_none()
                        && if kt.escaped {
                            // Only a name with a backslash is decoded.
                            self.str_eq_bytes(k, key)
                        } else {
                            inner.len() == key.len() && inner == *key
                        };
                    if hit {
                        *slot = u16::try_from(v).ok();
                        break;
                    }
                }
            }
            k = self.skip(v);
        }
    }

    /// Iterates the (key, value) token indices of the object at `obj`.
    pub fn members(&self, obj: usize) -> Members<'a> {
        let end = match self.token(obj) {
            Some(t) if t.kind == Kind::Object => usize::from(t.next),
            _ => 0,
        };
        Members {
            doc: *self,
            at: obj + 1,
            end,
        }
    }

    /// Iterates the element indices of the array at `arr`.
    pub fn elements(&self, arr: usize) -> Elements<'a> {
        let end = match self.token(arr) {
            Some(t) if t.kind == Kind::Array => usize::from(t.next),
            _ => 0,
        };
        Elements {
            doc: *self,
            at: arr + 1,
            end,
        }
    }

    /// Index of the token after the value at `i`.
    pub fn skip(&self, i: usize) -> usize {
        self.token(i).map_or(i + 1, |t| usize::from(t.next))
    }

    /// True when `i` is a string whose decoded text equals `lit`.
    pub fn str_eq(&self, i: usize, lit: &str) -> bool {
        self.str_eq_bytes(i, lit.as_bytes())
    }

    /// True when `i` is a string whose decoded bytes equal `lit`.
    pub fn str_eq_bytes(&self, i: usize, lit: &[u8]) -> bool {
        let Some(t) = self.toks.get(i).filter(|t| t.kind == Kind::String) else {
            return false;
        };
        let (start, end) = (t.start as usize + 1, (t.end as usize).saturating_sub(1));
        if !t.escaped {
            // Raw bytes are the text: compare lengths before any byte.
            return end.checked_sub(start) == Some(lit.len())
                && self.src.get(start..end) == Some(lit);
        }
        // Only a key that contains a backslash is decoded.
        self.src
            .get(start..end)
            .is_some_and(|inner| Unescape::new(inner).eq(lit.iter().copied()))
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
        exact_int(self.number_raw(i)?.as_bytes())
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

    fn number_raw(&self, i: usize) -> Result<&'a str, ConvError> {
        if self.kind(i) != Some(Kind::Number) {
            return Err(ConvError::Type);
        }
        core::str::from_utf8(self.raw(i)).map_err(|_| ConvError::Type)
    }
}

/// True when `raw` is exactly one JSON number (RFC 8259 grammar).
fn is_json_number(raw: &[u8]) -> bool {
    let mut i = usize::from(raw.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while raw.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    match raw.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if raw.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if let Some(b'e' | b'E') = raw.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = raw.get(i) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == raw.len()
}

/// The exact integer value of a (validated) JSON number, computed in decimal
/// so `1e18` and `100e-2` convert and nothing is ever rounded or wrapped.
pub(crate) fn exact_int(raw: &[u8]) -> Result<i64, ConvError> {
    // Callers pass validated JSON numbers; refuse anything else outright so
    // no other text can reach the digit arithmetic below.
    if !is_json_number(raw) {
        return Err(ConvError::Type);
    }
    let (neg, rest) = match raw.split_first() {
        Some((b'-', r)) => (true, r),
        _ => (false, raw),
    };
    let mant_end = rest
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .unwrap_or(rest.len());
    let (mant, exp) = rest.split_at(mant_end);
    let exp: i64 = match exp.get(1..) {
        None => 0,
        Some(e) => {
            let (sign, digits) = match e.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, e),
            };
            // Saturate: an exponent this large is out of range or all zeros anyway.
            let mag = digits.iter().fold(0i64, |v, &d| {
                v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
            });
            sign * mag
        }
    };
    let (int_part, frac) = match mant.iter().position(|&b| b == b'.') {
        Some(d) => (
            mant.get(..d).unwrap_or(&[]),
            mant.get(d + 1..).unwrap_or(&[]),
        ),
        None => (mant, &[][..]),
    };
    // The value is digits(int_part ++ frac) * 10^scale.
    let scale = exp.saturating_sub(frac.len() as i64);
    let total = int_part.len() + frac.len();
    // Digits that a negative scale pushes behind the decimal point must be zero.
    let dropped = usize::try_from(scale.min(0).unsigned_abs()).unwrap_or(usize::MAX);
    let kept = total.saturating_sub(dropped);
    let mut v: i64 = 0;
    for (n, d) in int_part.iter().chain(frac.iter()).enumerate() {
        let d = i64::from(d - b'0');
        if n >= kept {
            if d != 0 {
                return Err(ConvError::NotInteger);
            }
            continue;
        }
        v = v.checked_mul(10).ok_or(ConvError::Range)?;
        v = if neg {
            v.checked_sub(d)
        } else {
            v.checked_add(d)
        }
        .ok_or(ConvError::Range)?;
    }
    if v != 0 {
        for _ in 0..scale.max(0) {
            v = v.checked_mul(10).ok_or(ConvError::Range)?;
        }
    }
    Ok(v)
}

fn parse_f64(raw: &str) -> Result<f64, ConvError> {
    let f = super::num::Dec::parse(raw.as_bytes())
        .ok_or(ConvError::Type)?
        .to_f64();
    if super::num::is_finite(f) {
        Ok(f)
    } else {
        Err(ConvError::Range)
    }
}

/// Iterator over an object's (key, value) token indices.
pub struct Members<'a> {
    doc: Doc<'a>,
    at: usize,
    end: usize,
}

impl Iterator for Members<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.at >= self.end {
            return None;
        }
        let key = self.at;
        let val = key + 1;
        self.at = self.doc.skip(val);
        Some((key, val))
    }
}

/// Iterator over an array's element token indices.
pub struct Elements<'a> {
    doc: Doc<'a>,
    at: usize,
    end: usize,
}

impl Iterator for Elements<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.at >= self.end {
            return None;
        }
        let el = self.at;
        self.at = self.doc.skip(el);
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
        let mut v = 0;
        for _ in 0..4 {
            let d = match self.src.get(self.pos) {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => 0,
            };
            v = (v << 4) | u32::from(d);
            self.pos += 1;
        }
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
    use super::super::tokenizer::tokenize;
    use super::*;

    fn with_doc(src: &str, f: impl FnOnce(Doc<'_>)) {
        let mut t = [Token::EMPTY; 64];
        let n = tokenize(src.as_bytes(), &mut t, 16).unwrap();
        f(Doc::new(src.as_bytes(), &t[..n]))
    }

    /// One pass, several keys: the first member of each name wins, escaped
    /// names are decoded, and a key equal in length but not in bytes misses.
    #[test]
    fn get_many_finds_first_members() {
        with_doc(
            r#"{"method":1,"params":2,"\u0069d":3,"params":4,"x":{"id":5}}"#,
            |d| {
                let mut out = [None; 4];
                d.get_many(0, &[b"id", b"params", b"method", b"nope"], &mut out);
                assert_eq!(out, [Some(6), Some(4), Some(2), None]);
                assert_eq!(d.get(0, "params"), Some(4));
                assert_eq!(d.get(0, "x"), Some(10));
                assert_eq!(d.get(10, "id"), Some(12));
                assert_eq!(d.get(0, "paramz"), None);
                let mut none = [None; 1];
                d.get_many(2, &[b"id"], &mut none);
                assert_eq!(none, [None]);
            },
        );
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
                let e: [usize; 8] = core::array::from_fn(|i| i + 1);
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
