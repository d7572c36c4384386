//! Bounded JSON writer into a caller-owned buffer.
//!
//! Owns: byte output, comma and nesting bookkeeping, string escaping.
//! Never truncates silently: once something does not fit, the writer stops
//! writing and stays in the overflow state until rewound, so the caller can
//! replace the whole message with a small error that fits.
//! Must not: know anything about JSON-RPC or MCP.

/// Deepest nesting the writer tracks (one bit per level).
pub(crate) const WRITER_MAX_DEPTH: usize = 32;

/// Why the writer stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The buffer is full.
    Overflow,
    /// A call out of order (a value without a key in an object, an unbalanced
    /// close, a second root value, nesting beyond [`WRITER_MAX_DEPTH`]).
    Misuse,
}

/// A position to rewind to, taken with [`Writer::mark`].
#[derive(Clone, Copy)]
pub struct Mark {
    len: usize,
    depth: u8,
    stack: u32,
    need_comma: bool,
    after_key: bool,
    done: bool,
}

/// One piece of [`Writer::members_from`].
#[derive(Clone, Copy, Debug)]
pub enum Piece<'s> {
    /// JSON text, copied as is.
    Json(&'s [u8]),
    /// The text of a string, escaped (its quotes belong to the `Json` pieces
    /// around it).
    Text(&'s str),
}

/// Writes one JSON value into a byte slice.
///
/// Errors are sticky: the first one is kept (until [`Writer::rewind`]) and
/// every later call returns an error without writing, so a straight run of
/// calls may ignore each result and end with [`Writer::status`], which is the
/// first error (the core's fixed writers do, to spare a branch per call).
pub struct Writer<'b> {
    buf: &'b mut [u8],
    len: usize,
    /// Bit `i` set: the container at depth `i + 1` is an object.
    stack: u32,
    depth: u8,
    need_comma: bool,
    after_key: bool,
    done: bool,
    /// Counts bytes instead of storing them (see [`Writer::measure`]).
    measure: bool,
    error: Option<WriteError>,
}

impl<'b> Writer<'b> {
    /// A writer that fills `buf` from the start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Writer {
            buf,
            len: 0,
            stack: 0,
            depth: 0,
            need_comma: false,
            after_key: false,
            done: false,
            measure: false,
            error: None,
        }
    }

    /// A writer that stores nothing and only counts: [`Writer::len`] is the
    /// length the same calls would write into a buffer large enough. For
    /// sizing responses (nothing that reads the capacity may run on it).
    pub fn measure() -> Writer<'static> {
        Writer {
            measure: true,
            ..Writer::new(&mut [])
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Open containers (0 at the root).
    pub fn depth(&self) -> usize {
        usize::from(self.depth)
    }

    /// Capacity of the buffer.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The first error, if any.
    pub fn error(&self) -> Option<WriteError> {
        self.error
    }

    /// `Ok` when every call so far succeeded.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn status(&self) -> Result<(), WriteError> {
        self.error.map_or(Ok(()), Err)
    }

    /// True when one complete root value has been written without error.
    pub fn is_complete(&self) -> bool {
        self.error.is_none() && self.done && self.depth == 0
    }

    /// The bytes written.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Current position and state.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn mark(&self) -> Mark {
        Mark {
            len: self.len,
            depth: self.depth,
            stack: self.stack,
            need_comma: self.need_comma,
            after_key: self.after_key,
            done: self.done,
        }
    }

    /// Empties the buffer and forgets every error, as if newly created.
    pub fn reset(&mut self) {
        self.rewind(Mark {
            len: 0,
            depth: 0,
            stack: 0,
            need_comma: false,
            after_key: false,
            done: false,
        });
    }

    /// Returns to `m`, forgetting everything written after it and any error.
    pub fn rewind(&mut self, m: Mark) {
        self.len = m.len.min(self.len);
        self.depth = m.depth;
        self.stack = m.stack;
        self.need_comma = m.need_comma;
        self.after_key = m.after_key;
        self.done = m.done;
        self.error = None;
    }

    fn fail(&mut self, e: WriteError) -> Result<(), WriteError> {
        if self.error.is_none() {
            self.error = Some(e);
        }
        Err(e)
    }

    /// A write that ends at `end` does not fit: an overflow, or only counted
    /// by a measuring writer.
    #[cold]
    fn overflow(&mut self, end: usize) -> Result<(), WriteError> {
        if self.measure {
            self.len = end;
            return Ok(());
        }
        self.fail(WriteError::Overflow)
    }

    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn put(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.status()?;
        let end = self.len + bytes.len();
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                copy_bytes(dst, bytes);
                self.len = end;
                Ok(())
            }
            None => self.overflow(end),
        }
    }

    fn in_object(&self) -> bool {
        self.depth > 0 && (self.stack >> (self.depth - 1)) & 1 == 1
    }

    /// Separator and checks before any value.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn before_value(&mut self) -> Result<(), WriteError> {
        self.status()?;
        if self.depth == 0 {
            if self.done {
                return self.fail(WriteError::Misuse);
            }
        } else if self.in_object() {
            if !self.after_key {
                return self.fail(WriteError::Misuse);
            }
        } else if self.need_comma {
            self.put(b",")?;
        }
        Ok(())
    }

    #[cfg_attr(target_os = "none", inline(never))]
    fn after_value(&mut self) {
        self.after_key = false;
        self.need_comma = true;
        if self.depth == 0 {
            self.done = true;
        }
    }

    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn open(&mut self, object: bool, byte: u8) -> Result<(), WriteError> {
        self.before_value()?;
        if usize::from(self.depth) >= WRITER_MAX_DEPTH {
            return self.fail(WriteError::Misuse);
        }
        self.put(&[byte])?;
        if object {
            self.stack |= 1 << self.depth;
        } else {
            self.stack &= !(1 << self.depth);
        }
        self.depth += 1;
        self.need_comma = false;
        self.after_key = false;
        Ok(())
    }

    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn close(&mut self, object: bool, byte: u8) -> Result<(), WriteError> {
        self.status()?;
        if self.depth == 0 || self.in_object() != object || self.after_key {
            return self.fail(WriteError::Misuse);
        }
        self.put(&[byte])?;
        self.depth -= 1;
        self.after_value();
        Ok(())
    }

    /// `{`
    pub fn begin_object(&mut self) -> Result<(), WriteError> {
        self.open(true, b'{')
    }

    /// `}`
    pub fn end_object(&mut self) -> Result<(), WriteError> {
        self.close(true, b'}')
    }

    /// `[`
    pub fn begin_array(&mut self) -> Result<(), WriteError> {
        self.open(false, b'[')
    }

    /// `]`
    pub fn end_array(&mut self) -> Result<(), WriteError> {
        self.close(false, b']')
    }

    /// An object key (escaped as needed) and its colon.
    pub fn key(&mut self, k: &str) -> Result<(), WriteError> {
        self.status()?;
        if !self.in_object() || self.after_key {
            return self.fail(WriteError::Misuse);
        }
        let bytes = k.as_bytes();
        // Bare-metal targets take the general path alone (flash first).
        if !cfg!(target_os = "none") && plain_prefix(bytes, 0) == bytes.len() {
            // Nothing to escape (every key the core writes): one copy.
            let open: &[u8] = if self.need_comma { b",\"" } else { b"\"" };
            self.put3(open, bytes, b"\":")?;
        } else {
            if self.need_comma {
                self.put(b",")?;
            }
            self.quoted_escaped(bytes)?;
            self.put(b":")?;
        }
        self.after_key = true;
        Ok(())
    }

    /// A string value, escaped.
    pub fn string(&mut self, s: &str) -> Result<(), WriteError> {
        self.string_bytes(s.as_bytes())
    }

    /// A string value from UTF-8 bytes (text the core built from `str`s and
    /// validated input, such as a [`crate::schema::MsgBuf`]), escaped.
    pub fn string_bytes(&mut self, s: &[u8]) -> Result<(), WriteError> {
        self.before_value()?;
        self.quoted(s)?;
        self.after_value();
        Ok(())
    }

    /// A string value made of several UTF-8 texts, each escaped.
    pub fn string_parts(&mut self, parts: &[&[u8]]) -> Result<(), WriteError> {
        self.before_value()?;
        self.put(b"\"")?;
        for p in parts {
            self.escaped(p)?;
        }
        self.put(b"\"")?;
        self.after_value();
        Ok(())
    }

    /// A string value made of `prefix` (escaped here) followed by `raw_inner`,
    /// the already-escaped inside of a validated JSON string.
    pub fn string_with_raw_tail(
        &mut self,
        prefix: &str,
        raw_inner: &[u8],
    ) -> Result<(), WriteError> {
        self.before_value()?;
        self.put(b"\"")?;
        self.escaped(prefix.as_bytes())?;
        self.put(raw_inner)?;
        self.put(b"\"")?;
        self.after_value();
        Ok(())
    }

    /// Starts the document with `parts`, copied one after the other: text
    /// that opens `levels` nested objects, each but the innermost holding
    /// members before the next, the innermost none yet (`{"a":1,"b":{`).
    /// The caller guarantees that shape. One state update for what would
    /// take a call per member and per level: a response's frame.
    pub fn open_raw(&mut self, parts: &[&[u8]], levels: u8) -> Result<(), WriteError> {
        self.status()?;
        if self.depth != 0 || self.done || usize::from(levels) >= WRITER_MAX_DEPTH {
            return self.fail(WriteError::Misuse);
        }
        for p in parts {
            self.put(p)?;
        }
        self.stack = (1u32 << levels) - 1;
        self.depth = levels;
        self.need_comma = false;
        self.after_key = false;
        Ok(())
    }

    /// A value copied verbatim; the caller guarantees it is one valid JSON value.
    pub fn raw_value(&mut self, json: &[u8]) -> Result<(), WriteError> {
        self.before_value()?;
        self.put(json)?;
        self.after_value();
        Ok(())
    }

    /// Object members copied verbatim (`"a":1,"b":2`, as an earlier writer
    /// produced them) into the object being written.
    pub fn raw_members(&mut self, members: &[u8]) -> Result<(), WriteError> {
        self.status()?;
        if !self.in_object() || self.after_key {
            return self.fail(WriteError::Misuse);
        }
        if members.is_empty() {
            return Ok(());
        }
        if self.need_comma {
            self.put(b",")?;
        }
        self.put(members)?;
        self.need_comma = true;
        Ok(())
    }

    /// Object members assembled from `pieces` (constant JSON text around
    /// escaped texts) into the object being written, each piece one copy:
    /// no per-key state checks and no escape scan of the constant parts.
    /// The caller guarantees the result is members, as for
    /// [`Writer::raw_members`] (`"a":{"b":"` text `"}`).
    pub fn members_from(&mut self, pieces: &[Piece<'_>]) -> Result<(), WriteError> {
        self.status()?;
        if !self.in_object() || self.after_key {
            return self.fail(WriteError::Misuse);
        }
        if pieces.is_empty() {
            return Ok(());
        }
        if self.need_comma {
            self.put(b",")?;
        }
        for p in pieces {
            match *p {
                Piece::Json(b) => self.put(b)?,
                Piece::Text(t) => self.escaped(t.as_bytes())?,
            }
        }
        self.need_comma = true;
        Ok(())
    }

    /// A valid JSON value copied without the whitespace between its tokens.
    pub fn minified_value(&mut self, json: &[u8]) -> Result<(), WriteError> {
        self.before_value()?;
        if cfg!(target_os = "none") {
            self.minified_bytewise(json)?;
        } else {
            self.minified_runs(json)?;
        }
        self.after_value();
        Ok(())
    }

    /// [`Writer::minified_value`]'s text on bare-metal targets: a byte at a
    /// time (76 B less flash on thumbv7em than the runs of the hosted form).
    fn minified_bytewise(&mut self, json: &[u8]) -> Result<(), WriteError> {
        let (mut in_string, mut escape) = (false, false);
        for b in json {
            if in_string {
                in_string = escape || *b != b'"';
                escape = !escape && *b == b'\\';
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                continue;
            } else {
                in_string = *b == b'"';
            }
            self.put(core::slice::from_ref(b))?;
        }
        Ok(())
    }

    /// [`Writer::minified_value`]'s text on hosted targets: each run between
    /// dropped whitespace in one copy.
    fn minified_runs(&mut self, json: &[u8]) -> Result<(), WriteError> {
        let mut in_string = false;
        let mut escape = false;
        let mut run_start = 0;
        for (i, &b) in json.iter().enumerate() {
            let drop = if in_string {
                if escape {
                    escape = false;
                } else if b == b'\\' {
                    escape = true;
                } else if b == b'"' {
                    in_string = false;
                }
                false
            } else {
                if b == b'"' {
                    in_string = true;
                }
                matches!(b, b' ' | b'\t' | b'\n' | b'\r')
            };
            if drop {
                self.put(json.get(run_start..i).unwrap_or(&[]))?;
                run_start = i + 1;
            }
        }
        self.put(json.get(run_start..).unwrap_or(&[]))
    }

    /// A string value holding `data` in standard base64 (with padding).
    pub fn base64(&mut self, data: &[u8]) -> Result<(), WriteError> {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let sym = |v: u32| ALPHABET.get((v & 63) as usize).copied().unwrap_or(b'=');
        self.before_value()?;
        self.put(b"\"")?;
        for chunk in data.chunks(3) {
            let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
            let v = (b(0) << 16) | (b(1) << 8) | b(2);
            let mut out = [sym(v >> 18), sym(v >> 12), sym(v >> 6), sym(v)];
            if chunk.len() < 3 {
                out[3] = b'=';
            }
            if chunk.len() < 2 {
                out[2] = b'=';
            }
            self.put(&out)?;
        }
        self.put(b"\"")?;
        self.after_value();
        Ok(())
    }

    /// An integer.
    pub fn int(&mut self, v: i64) -> Result<(), WriteError> {
        self.decimal(v, 0)
    }

    /// The fixed-point number `v × 10^-places`, exactly, with `places`
    /// digits after the point: `(215, 1)` is `21.5`, `(620, 1)` `62.0`,
    /// `(-5, 3)` `-0.005`, `(42, 0)` `42`. Integers only: a firmware without
    /// a double-precision FPU writes its readings without `f64` formatting.
    pub fn decimal(&mut self, v: i64, places: u32) -> Result<(), WriteError> {
        let mut tmp = [0u8; 20];
        let digits = super::decimal_digits(v.unsigned_abs(), &mut tmp);
        self.before_value()?;
        if v < 0 {
            self.put(b"-")?;
        }
        let places = places as usize;
        let (int, frac) = digits.split_at(digits.len().saturating_sub(places));
        self.put(if int.is_empty() { b"0" } else { int })?;
        if places > 0 {
            self.put(b".")?;
            // Zeros after the point (at most until the buffer is full).
            for _ in frac.len()..places {
                self.put(b"0")?;
            }
            self.put(frac)?;
        }
        self.after_value();
        Ok(())
    }

    /// A finite number in a form that reads back to exactly `v`: the shortest
    /// of 15, 16 or 17 significant digits (see `num::format_f64`).
    pub fn number(&mut self, v: f64) -> Result<(), WriteError> {
        if !super::num::is_finite(v) {
            return self.fail(WriteError::Misuse);
        }
        self.before_value()?;
        // The form of core's Debug for f64 (`1.0`, `0.1`, an exponent for
        // very large or small magnitudes), written without core's float
        // formatting.
        let mut tmp = [0; super::num::F64_TEXT_MAX];
        let n = super::num::format_f64(v, &mut tmp);
        self.put(tmp.get(..n).unwrap_or(&[]))?;
        self.after_value();
        Ok(())
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> Result<(), WriteError> {
        self.raw_value(if v { b"true" } else { b"false" })
    }

    /// `null`.
    pub fn null(&mut self) -> Result<(), WriteError> {
        self.raw_value(b"null")
    }

    /// Shorthand: a key and a string value.
    pub fn kv_str(&mut self, k: &str, v: &str) -> Result<(), WriteError> {
        self.key(k)?;
        self.string(v)
    }

    fn quoted(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        if !cfg!(target_os = "none") && plain_prefix(bytes, 0) == bytes.len() {
            // Nothing to escape (the common case): one copy with its quotes.
            return self.put3(b"\"", bytes, b"\"");
        }
        self.quoted_escaped(bytes)
    }

    /// `bytes` quoted through the escaping path: the only form bare-metal
    /// targets compile (the same text as the one-copy form for plain bytes).
    fn quoted_escaped(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.put(b"\"")?;
        self.escaped(bytes)?;
        self.put(b"\"")
    }

    /// `a`, `b` and `c` one after the other, with one bounds check, inlined
    /// so the lengths of the constant `a` and `c` fold into their copies.
    /// The hosted fast path of `key` and `quoted` only: bare-metal targets
    /// write a key or string as quote, escaped text, quote (230 B less
    /// flash on thumbv7em).
    #[inline(always)]
    fn put3(&mut self, a: &[u8], b: &[u8], c: &[u8]) -> Result<(), WriteError> {
        self.status()?;
        let end = self.len + a.len() + b.len() + c.len();
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                let (da, rest) = dst.split_at_mut(a.len());
                let (db, dc) = rest.split_at_mut(b.len());
                copy_bytes(da, a);
                copy_bytes(db, b);
                copy_bytes(dc, c);
                self.len = end;
                Ok(())
            }
            None => self.overflow(end),
        }
    }

    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn escaped(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        let mut run_start = 0;
        loop {
            // Copy the run of bytes that need no escaping in one go.
            let i = plain_prefix(bytes, run_start);
            let Some(&b) = bytes.get(i) else {
                return self.put(bytes.get(run_start..).unwrap_or(&[]));
            };
            self.put(bytes.get(run_start..i).unwrap_or(&[]))?;
            let esc: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0C => b"\\f",
                _ => &[],
            };
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
                self.put(&[b'\\', b'u', b'0', b'0', hi, lo])?;
            } else {
                self.put(esc)?;
            }
            run_start = i + 1;
        }
    }
}

/// `dst.copy_from_slice(src)` for slices of equal length, with the short
/// copies most writes are (keys, punctuation, small values) done by one or two
/// possibly overlapping word moves instead of a call to `memcpy`.
///
/// Inlined on hosted targets, where it is the writer's hot path. Bare-metal
/// targets call the one shared copy ([`super::copy_bytes`], a `memcpy`):
/// the word moves cost 204 B of flash there (thumbv7em, both profiles).
#[inline(always)]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    if cfg!(target_os = "none") {
        return super::copy_bytes(dst, src);
    }
    fn words<const N: usize>(dst: &mut [u8], src: &[u8]) {
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<N>(), src.last_chunk::<N>()) {
            *d = *s;
        }
    }
    match src.len() {
        0 => {}
        1..=3 => {
            if let (Some(d), Some(s)) = (dst.first_mut(), src.first()) {
                *d = *s;
            }
            if let (Some(d), Some(s)) = (dst.get_mut(1), src.get(1)) {
                *d = *s;
            }
            if let (Some(d), Some(s)) = (dst.last_mut(), src.last()) {
                *d = *s;
            }
        }
        4..=7 => words::<4>(dst, src),
        8..=16 => words::<8>(dst, src),
        17..=32 => words::<16>(dst, src),
        _ => super::copy_bytes(dst, src),
    }
}

/// Index of the first byte at or after `from` that a JSON string must escape
/// (`"`, `\`, a control character below 0x20), or `s.len()` when none does.
#[inline]
pub(crate) fn plain_prefix(s: &[u8], from: usize) -> usize {
    super::string_run(s, from).0
}

/// Length of `s` as the inside of a JSON string ([`Writer::string`]'s
/// escapes: two bytes for `"`, `\\` and the named controls, six for the
/// other controls).
pub(crate) fn escaped_len(s: &[u8]) -> usize {
    let mut n = s.len();
    let mut i = plain_prefix(s, 0);
    while let Some(&b) = s.get(i) {
        n += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0C => 1,
            0..0x20 => 5,
            _ => 0,
        };
        i = plain_prefix(s, i + 1);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `escaped_len` is the length [`Writer::string`] writes, quotes aside.
    #[test]
    fn escaped_len_is_the_written_length() {
        for s in [
            "",
            "plain",
            "q\"\\",
            "\n\r\t\u{8}\u{c}",
            "\u{1}\u{1f}x",
            "é \"é\"",
            "\u{7f}",
        ] {
            let mut m = Writer::measure();
            m.string(s).unwrap();
            assert_eq!(escaped_len(s.as_bytes()), m.len() - 2, "{s:?}");
        }
    }

    fn out(
        f: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>,
    ) -> Result<String, WriteError> {
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        f(&mut w)?;
        assert!(w.is_complete());
        Ok(String::from_utf8(w.as_bytes().to_vec()).unwrap())
    }

    /// Keys and strings of every length around the 8-byte scan steps, with
    /// an escape at every position: the same bytes as escaping one by one.
    #[test]
    fn escapes_at_every_position() {
        for len in 0..20 {
            for at in 0..=len {
                for c in ["\"", "\\", "\n", "\u{1f}", "é", "a"] {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, c);
                    let want = format!("{{{}:{}}}", expected_quote(&text), expected_quote(&text));
                    let got = out(|w| {
                        w.begin_object()?;
                        w.kv_str(&text, &text)?;
                        w.end_object()
                    })
                    .unwrap();
                    assert_eq!(got, want);
                }
            }
        }
    }

    /// The escaping the writer must produce, spelled out byte by byte.
    fn expected_quote(s: &str) -> String {
        let mut o = String::from("\"");
        for ch in s.chars() {
            match ch {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                '\n' => o.push_str("\\n"),
                '\r' => o.push_str("\\r"),
                '\t' => o.push_str("\\t"),
                '\u{8}' => o.push_str("\\b"),
                '\u{c}' => o.push_str("\\f"),
                c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
                c => o.push(c),
            }
        }
        o.push('"');
        o
    }

    /// The one-copy form of a plain string or key (hosted targets) and the
    /// escaping form (the only one on bare-metal targets) write the same text.
    #[test]
    fn quoted_forms_agree() {
        for t in [
            "",
            "a",
            "percent",
            "io.modelcontextprotocol/serverInfo",
            "é ü",
            "a\"b\\c\n\u{1}",
        ] {
            let mut a = [0u8; 128];
            let mut b = [0u8; 128];
            let mut wa = Writer::new(&mut a);
            let mut wb = Writer::new(&mut b);
            wa.quoted(t.as_bytes()).unwrap();
            wb.quoted_escaped(t.as_bytes()).unwrap();
            assert_eq!(wa.as_bytes(), wb.as_bytes(), "{t}");
            assert_eq!(serde_json::to_string(t).unwrap().as_bytes(), wa.as_bytes());
        }
    }

    /// Both minifying forms give the same text (the byte form is the one
    /// bare-metal targets run), for strings with escapes and whitespace.
    #[test]
    fn minified_forms_agree() {
        let texts: [&[u8]; 6] = [
            br#" { "a" : [ 1 , 2 ] , "b\\" : " x\" y " } "#,
            b"\t[\n\"\\\\\" , \" \\r\"\r\n]",
            br#"{"k":"\\\\","l":" "}"#,
            br#"  "only a string with \" quote "  "#,
            b"  7  ",
            br#"{"e":{ },"f":[ ]}"#,
        ];
        for t in texts {
            let mut a = [0u8; 128];
            let mut b = [0u8; 128];
            let mut wa = Writer::new(&mut a);
            let mut wb = Writer::new(&mut b);
            wa.minified_bytewise(t).unwrap();
            wb.minified_runs(t).unwrap();
            assert_eq!(
                wa.as_bytes(),
                wb.as_bytes(),
                "{}",
                String::from_utf8_lossy(t)
            );
            let text = String::from_utf8(wa.as_bytes().to_vec()).unwrap();
            let orig: serde_json::Value = serde_json::from_slice(t).unwrap();
            let min: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(orig, min);
            assert!(!text.contains("  "));
        }
    }

    #[test]
    fn members_from_pieces() {
        let s = out(|w| {
            w.begin_object()?;
            w.kv_str("a", "1")?;
            w.members_from(&[
                Piece::Json(br#""m":{"n":""#),
                Piece::Text("q\"\\"),
                Piece::Json(br#""}"#),
            ])?;
            w.members_from(&[])?;
            w.key("z")?;
            w.null()?;
            w.end_object()
        })
        .unwrap();
        assert_eq!(s, r#"{"a":"1","m":{"n":"q\"\\"},"z":null}"#);
        let mut buf = [0u8; 32];
        let mut w = Writer::new(&mut buf);
        w.begin_array().unwrap();
        assert_eq!(
            w.members_from(&[Piece::Json(b"1")]),
            Err(WriteError::Misuse)
        );
    }

    /// `open_raw` leaves the writer in the state the member-by-member
    /// calls would: the next member needs no comma, each close closes an
    /// object, and the document is then complete. Only a fresh document
    /// may be opened so.
    #[test]
    fn open_raw_matches_member_by_member() {
        let rest = |w: &mut Writer<'_>| -> Result<(), WriteError> {
            w.kv_str("k", "v")?;
            w.key("n")?;
            w.begin_array()?;
            w.end_array()?;
            w.end_object()?;
            w.end_object()
        };
        let raw = out(|w| {
            w.open_raw(&[br#"{"jsonrpc":"2.0","id":"#, b"7", br#","result":{"#], 2)?;
            rest(w)
        })
        .unwrap();
        let keyed = out(|w| {
            w.begin_object()?;
            w.kv_str("jsonrpc", "2.0")?;
            w.key("id")?;
            w.raw_value(b"7")?;
            w.key("result")?;
            w.begin_object()?;
            rest(w)
        })
        .unwrap();
        assert_eq!(raw, keyed);
        assert_eq!(raw, r#"{"jsonrpc":"2.0","id":7,"result":{"k":"v","n":[]}}"#);
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        w.begin_object().unwrap();
        assert_eq!(w.open_raw(&[b"{"], 1), Err(WriteError::Misuse));
        let mut w = Writer::new(&mut buf);
        assert_eq!(w.open_raw(&[b"{"], 32), Err(WriteError::Misuse));
        let mut buf = [0u8; 4];
        let mut w = Writer::new(&mut buf);
        assert_eq!(
            w.open_raw(&[b"{\"id\":", b"1"], 1),
            Err(WriteError::Overflow)
        );
    }

    #[test]
    fn builds_nested_values() {
        let s = out(|w| {
            w.begin_object()?;
            w.kv_str("a", "q\"\\\n\u{1}é")?;
            w.key("b")?;
            w.begin_array()?;
            w.int(-42)?;
            w.int(i64::MIN)?;
            w.number(21.5)?;
            w.number(1e300)?;
            w.bool(true)?;
            w.null()?;
            w.begin_object()?;
            w.end_object()?;
            w.end_array()?;
            w.key("m")?;
            w.minified_value(b"{ \"x y\" : [1, 2] }")?;
            w.key("s")?;
            w.string_with_raw_tail("Unknown tool: ", b"a\\u0041")?;
            w.key("b")?;
            w.begin_array()?;
            for d in [&b""[..], b"f", b"fo", b"foo", b"foob", b"\xff\x00\xfe"] {
                w.base64(d)?;
            }
            w.end_array()?;
            w.end_object()
        })
        .unwrap();
        assert_eq!(
            s,
            r#"{"a":"q\"\\\n\u0001é","b":[-42,-9223372036854775808,21.5,1e300,true,null,{}],"m":{"x y":[1,2]},"s":"Unknown tool: a\u0041","b":["","Zg==","Zm8=","Zm9v","Zm9vYg==","/wD+"]}"#
        );
    }

    #[test]
    fn decimals_are_exact_fixed_point() {
        let one = |v: i64, places: u32| out(|w| w.decimal(v, places)).unwrap();
        for (v, places, want) in [
            (215, 1, "21.5"),
            (620, 1, "62.0"),
            (0, 0, "0"),
            (0, 2, "0.00"),
            (-5, 3, "-0.005"),
            (5, 1, "0.5"),
            (-12, 2, "-0.12"),
            (1000, 3, "1.000"),
            (42, 0, "42"),
            (i64::MIN, 0, "-9223372036854775808"),
            (i64::MIN, 19, "-0.9223372036854775808"),
            (i64::MAX, 20, "0.09223372036854775807"),
            (7, 18, "0.000000000000000007"),
            (3, 40, "0.0000000000000000000000000000000000000003"),
        ] {
            assert_eq!(one(v, places), want, "({v}, {places})");
        }
        // Every text reads back as the same exact decimal, v × 10^-places.
        for v in [-1001i64, -1, 0, 1, 9, 10, 99, 12345, i64::MAX] {
            for places in 0..24u32 {
                let text = one(v, places);
                let d = super::super::num::Dec::parse(text.as_bytes()).unwrap();
                let e = format!("{v}e-{places}");
                let want = super::super::num::Dec::parse(e.as_bytes()).unwrap();
                assert_eq!(
                    d.cmp_value(&want),
                    core::cmp::Ordering::Equal,
                    "{text} vs {e}"
                );
            }
        }
        // No room: refused, never cut short.
        let mut buf = [0u8; 8];
        assert_eq!(
            Writer::new(&mut buf).decimal(1, 30),
            Err(WriteError::Overflow)
        );
    }

    #[test]
    fn refuses_misuse() {
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        w.begin_object().unwrap();
        assert_eq!(w.int(1), Err(WriteError::Misuse));
        let mut w = Writer::new(&mut buf);
        w.int(1).unwrap();
        assert_eq!(w.int(2), Err(WriteError::Misuse));
        let mut w = Writer::new(&mut buf);
        w.begin_array().unwrap();
        assert_eq!(w.end_object(), Err(WriteError::Misuse));
        assert_eq!(
            Writer::new(&mut buf).number(f64::NAN),
            Err(WriteError::Misuse)
        );
    }

    #[test]
    fn overflow_is_sticky_and_rewindable() {
        let mut buf = [0u8; 8];
        let mut w = Writer::new(&mut buf);
        let m = w.mark();
        w.begin_array().unwrap();
        assert_eq!(w.string("too long for this"), Err(WriteError::Overflow));
        assert_eq!(w.int(1), Err(WriteError::Overflow));
        assert!(w.as_bytes().starts_with(b"[") && w.len() <= 8);
        w.rewind(m);
        w.string("fits").unwrap();
        assert_eq!(w.as_bytes(), b"\"fits\"");
    }
}
