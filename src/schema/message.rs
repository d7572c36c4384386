//! Validation messages: built on the stack, bounded, always valid UTF-8.

use crate::limits::MCP_MAX_ERROR_MESSAGE;

/// A bounded message buffer. Text past the end is cut at a character
/// boundary and the cut is marked with "...", so nothing is lost silently.
#[derive(Clone, Copy)]
pub struct MsgBuf {
    buf: [u8; MCP_MAX_ERROR_MESSAGE],
    len: usize,
    cut: bool,
    /// Where the path of a `<path>: <rule>` argument message ends (0: none).
    path_end: u16,
    /// The JSON Schema keyword the argument broke ("" when not one).
    keyword: &'static str,
}

impl core::fmt::Debug for MsgBuf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Default for MsgBuf {
    fn default() -> Self {
        Self::new()
    }
}

impl MsgBuf {
    /// An empty message.
    #[cfg_attr(target_os = "none", inline(never))]
    pub const fn new() -> Self {
        MsgBuf {
            buf: [0; MCP_MAX_ERROR_MESSAGE],
            len: 0,
            cut: false,
            path_end: 0,
            keyword: "",
        }
    }

    /// Appends text (valid UTF-8 in, valid UTF-8 kept).
    pub fn push(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    /// Appends bytes taken from a validated JSON text (so valid UTF-8).
    pub fn push_bytes(&mut self, b: &[u8]) {
        if self.cut {
            return;
        }
        let room = MCP_MAX_ERROR_MESSAGE.saturating_sub(self.len + 3);
        let mut n = b.len().min(room);
        if n < b.len() {
            // Back off to a character boundary, then mark the cut.
            while n > 0 && b.get(n).is_some_and(|&c| c & 0xC0 == 0x80) {
                n -= 1;
            }
            self.cut = true;
        }
        if let (Some(dst), Some(src)) = (self.buf.get_mut(self.len..self.len + n), b.get(..n)) {
            crate::json::copy_bytes(dst, src);
            self.len += n;
        }
        if self.cut {
            if let Some(dst) = self.buf.get_mut(self.len..self.len + 3) {
                crate::json::copy_bytes(dst, b"...");
                self.len += 3;
            }
        }
    }

    /// Appends a value from the request, shortened to `max` bytes with "...".
    pub fn push_value(&mut self, raw: &[u8], max: usize) {
        if raw.len() <= max {
            self.push_bytes(raw);
            return;
        }
        let mut n = max;
        while n > 0 && raw.get(n).is_some_and(|&c| c & 0xC0 == 0x80) {
            n -= 1;
        }
        self.push_bytes(raw.get(..n).unwrap_or(&[]));
        self.push("...");
    }

    /// Appends a decimal number.
    pub fn push_uint(&mut self, v: u64) {
        let mut tmp = [0u8; 20];
        self.push_bytes(crate::json::decimal_digits(v, &mut tmp));
    }

    /// Appends `0x` and eight hex digits (a schema seal).
    pub fn push_hex32(&mut self, v: u32) {
        self.push("0x");
        for k in (0..8).rev() {
            let d = ((v >> (4 * k)) & 0xF) as usize;
            self.push_bytes(b"0123456789abcdef".get(d..=d).unwrap_or(&[]));
        }
    }

    /// Marks the end of the argument path written so far and names the
    /// keyword broken, for the machine-readable detail of a tool error.
    pub(crate) fn mark_path(&mut self, keyword: &'static str) {
        self.path_end = u16::try_from(self.len).unwrap_or(u16::MAX);
        self.keyword = keyword;
    }

    /// The argument path marked by [`MsgBuf::mark_path`] (may be cut short)
    /// and the keyword; `None` when no path was marked.
    pub fn path_keyword(&self) -> Option<(&[u8], &'static str)> {
        let end = usize::from(self.path_end).min(self.len);
        // `path_end` was the length once, so it ends on a character boundary.
        let path = self.buf.get(..end).unwrap_or(&[]);
        (!self.keyword.is_empty()).then_some((path, self.keyword))
    }

    /// The message so far, as UTF-8 bytes (everything pushed is `str`s and
    /// validated text cut at character boundaries). The core writes these
    /// ([`crate::json::Writer::string_bytes`]), so no firmware links core's
    /// UTF-8 check for its own messages.
    // Out of line, as `as_str` was: inlined into `handle_in` it took 16
    // bytes more of the request's stack.
    #[inline(never)]
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// The message so far.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

/// Past the JSON string whose opening quote is at `i`.
fn skip_string(src: &[u8], mut i: usize) -> usize {
    i += 1;
    while let Some(&b) = src.get(i) {
        i += if b == b'\\' { 2 } else { 1 };
        if b == b'"' {
            return i;
        }
    }
    src.len()
}

/// Past the JSON value starting at `i` (which must be the start of a value).
fn skip_value(src: &[u8], mut i: usize) -> usize {
    let start = i;
    let mut depth = 0usize;
    while let Some(&b) = src.get(i) {
        match b {
            b'"' => {
                i = skip_string(src, i);
                if depth == 0 {
                    return i;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth <= 1 {
                    return if depth == 1 { i + 1 } else { i.max(start) };
                }
                depth -= 1;
            }
            b',' | b' ' | b'\t' | b'\n' | b'\r' | b':' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    src.len()
}

fn skip_ws(src: &[u8], mut i: usize) -> usize {
    while src
        .get(i)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// Appends the path from the root of the JSON text `src` (valid JSON) to the
/// key or value starting at byte `at`: keys joined by `.`, array indices in
/// brackets (`properties.a.type[1]`), keys as written. Returns `None` when
/// `at` is the root (nothing written), else whether `at` is a key. Reads the
/// text again rather than keeping a path, so a registration error costs no
/// storage beyond its span.
pub(crate) fn push_json_path(m: &mut MsgBuf, src: &[u8], at: usize) -> Option<bool> {
    let mut pos = skip_ws(src, 0);
    let mut written = false;
    let done = |w: bool| w.then_some(false);
    while pos < at {
        match src.get(pos) {
            Some(b'{') => {
                pos += 1;
                loop {
                    pos = skip_ws(src, pos);
                    if src.get(pos) != Some(&b'"') {
                        return done(written);
                    }
                    let k = pos;
                    let k_end = skip_string(src, k);
                    pos = skip_ws(src, skip_ws(src, k_end) + 1);
                    let v_end = skip_value(src, pos);
                    if at == k || (pos..v_end).contains(&at) {
                        if written {
                            m.push(".");
                        }
                        m.push_bytes(src.get(k + 1..k_end.saturating_sub(1)).unwrap_or(&[]));
                        written = true;
                        if at == k {
                            return Some(true);
                        }
                        break;
                    }
                    pos = skip_ws(src, v_end);
                    if src.get(pos) != Some(&b',') {
                        return done(written);
                    }
                    pos += 1;
                }
            }
            Some(b'[') => {
                pos += 1;
                let mut index = 0u64;
                loop {
                    pos = skip_ws(src, pos);
                    let e_end = skip_value(src, pos);
                    if e_end <= pos {
                        return done(written);
                    }
                    if (pos..e_end).contains(&at) {
                        m.push("[");
                        m.push_uint(index);
                        m.push("]");
                        written = true;
                        break;
                    }
                    pos = skip_ws(src, e_end);
                    if src.get(pos) != Some(&b',') {
                        return done(written);
                    }
                    pos += 1;
                    index += 1;
                }
            }
            _ => return done(written),
        }
    }
    done(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_marked() {
        let mut m = MsgBuf::new();
        m.push("a: ");
        m.push_uint(120);
        assert_eq!(m.as_str(), "a: 120");
        let long = "é".repeat(MCP_MAX_ERROR_MESSAGE);
        m.push(&long);
        assert!(m.as_str().ends_with("...") && m.as_str().len() <= MCP_MAX_ERROR_MESSAGE);
        let mut v = MsgBuf::new();
        v.push_value(b"\"abcdef\"", 4);
        assert_eq!(v.as_str(), "\"abc...");
    }
}
