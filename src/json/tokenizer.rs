//! Strict RFC 8259 tokenizer: one pass, no allocation, tokens are spans.
//!
//! Owns: turning request bytes into a flat array of [`Token`]s in document
//! order (jsmn's shape). Each container token records where its subtree ends
//! (`next`), so skipping a value is O(1) and lookups need no DOM.
//! [`check`] is the same pass storing nothing, and [`check_finding`] that
//! pass noting where named members' values start on the way.
//! Must not: own any storage, copy or unescape text (see [`super::doc`]).

/// The JSON type of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `{ ... }`; children are key, value, key, value ...
    Object,
    /// `[ ... ]`
    Array,
    /// `"..."` (the span includes the quotes)
    String,
    /// A number, exactly as written.
    Number,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

/// One JSON value (or object key), as a span of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Byte offset of the first byte (the opening quote for strings).
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
    /// Index of the first token after this value's subtree.
    pub next: u16,
    /// The JSON type.
    pub kind: Kind,
    /// For strings: true when the text contains a backslash escape.
    pub escaped: bool,
}

impl Token {
    /// A placeholder used to initialise token arrays.
    pub const EMPTY: Token = Token {
        start: 0,
        end: 0,
        next: 0,
        kind: Kind::Null,
        escaped: false,
    };
}

/// Why an input was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not a JSON text (RFC 8259), including invalid UTF-8 and lone surrogates.
    Invalid,
    /// Valid so far, but more tokens than the array holds.
    TooManyTokens,
    /// Nesting deeper than the allowed depth.
    TooDeep,
    /// Input longer than a token offset can address (4 GiB).
    TooLong,
}

/// Hard ceiling for `max_depth` (the size of the on-stack nesting stack).
pub(crate) const DEPTH_CEILING: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value must follow.
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrEnd,
    /// Just after `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// A value ended: `,`, a closing bracket, or the end of input.
    AfterValue,
}

struct Cursor<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        self.pos = super::skip_ws(self.src, self.pos);
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let v = super::hex4(self.src, self.pos).ok_or(Error::Invalid)?;
        self.pos += 4;
        Ok(v)
    }

    /// Scans a string starting at its opening quote; returns whether it had
    /// escapes. Inlined into both callers (values, keys) on hosted targets;
    /// one body on bare-metal ones (flash first).
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn string(&mut self) -> Result<bool, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut escaped = false;
        let mut high = false;
        loop {
            // Skip the plain text up to the next quote, backslash or control.
            let (stop, run_high) = super::string_run(self.src, self.pos);
            self.pos = stop;
            high |= run_high;
            match self.peek() {
                None => return Err(Error::Invalid),
                Some(b'"') => {
                    self.pos += 1;
                    // Only string text can hold bytes >= 0x80 (anything else
                    // outside the ASCII grammar is refused where it stands),
                    // so checking UTF-8 here covers the whole input.
                    if high
                        && self
                            .src
                            .get(start..self.pos)
                            .is_none_or(|s| !super::is_utf8(s))
                    {
                        return Err(Error::Invalid);
                    }
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            let cp = self.hex4()?;
                            if (0xDC00..0xE000).contains(&cp) {
                                return Err(Error::Invalid); // lone low surrogate
                            }
                            if (0xD800..0xDC00).contains(&cp) {
                                if self.peek() != Some(b'\\') {
                                    return Err(Error::Invalid);
                                }
                                self.pos += 1;
                                if self.peek() != Some(b'u') {
                                    return Err(Error::Invalid);
                                }
                                self.pos += 1;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(Error::Invalid);
                                }
                            }
                        }
                        _ => return Err(Error::Invalid),
                    }
                }
                Some(c) if c < 0x20 => return Err(Error::Invalid),
                Some(_) => self.pos += 1,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<(), Error> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Error::Invalid),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(Error::Invalid);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(Error::Invalid);
            }
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Error> {
        let end = self.pos + word.len();
        if self.src.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            Err(Error::Invalid)
        }
    }
}

/// Tokenizes `src` into `tokens` and returns the number of tokens used.
///
/// With an empty `tokens` slice nothing is stored and the return value is the
/// number of tokens the text needs (a sizing pass, as in jsmn). Nesting deeper
/// than `max_depth` (capped at [`DEPTH_CEILING`]) is refused. The core itself
/// only ever calls [`check`]: this form serves the tests and the fuzzers that
/// compare token spans with another parser.
pub fn tokenize(src: &[u8], tokens: &mut [Token], max_depth: usize) -> Result<usize, Error> {
    if tokens.is_empty() {
        return check(src, max_depth);
    }
    run::<true>(src, tokens, max_depth, find_nothing, &mut [])
}

/// Checks that `src` is one JSON text nested at most `max_depth` deep and
/// returns how many values (object keys included) it holds, storing nothing:
/// the one pass every request, schema and result text goes through before
/// [`super::Doc`] navigates it.
pub fn check(src: &[u8], max_depth: usize) -> Result<usize, Error> {
    run::<false>(src, &mut [], max_depth, find_nothing, &mut [])
}

/// Names the members [`check_finding`] locates: for a member called `name`
/// (a key's inside as written, `escaped` when it holds a backslash: compare
/// it with [`super::name_is`]) of the object at path level `level` (the root
/// object is level 1), the `found` slot its value's offset goes to, and
/// whether its value, when an object, is the path's next level.
pub type Finder = fn(level: usize, name: &[u8], escaped: bool) -> Option<(usize, bool)>;

/// [`check`], locating members on the way. A member is located only in an
/// object on the path (the root object, and each object a located member
/// leading on holds) and only the first time its slot is filled: `found`
/// gets the byte offset of its value (left as it was, 0 = absent, for a
/// member not there).
///
/// The request's envelope is located in the pass that checks it, instead of
/// by scanning its members again afterwards.
pub fn check_finding(
    src: &[u8],
    max_depth: usize,
    find: Finder,
    found: &mut [u32],
) -> Result<usize, Error> {
    run::<false>(src, &mut [], max_depth, find, found)
}

fn find_nothing(_: usize, _: &[u8], _: bool) -> Option<(usize, bool)> {
    None
}

/// The tokenizer: `STORE` false is the counting pass (no token writes are
/// compiled in at all).
fn run<const STORE: bool>(
    src: &[u8],
    tokens: &mut [Token],
    max_depth: usize,
    find: Finder,
    found: &mut [u32],
) -> Result<usize, Error> {
    if src.len() > u32::MAX as usize {
        return Err(Error::TooLong);
    }
    // UTF-8 is checked per string (see `Cursor::string`): outside strings
    // the grammar admits ASCII only.
    let count_only = !STORE;
    if !count_only && tokens.len() > usize::from(u16::MAX) {
        return Err(Error::TooManyTokens);
    }
    let max_depth = max_depth.min(DEPTH_CEILING);
    // Open containers: the token index of each (read only when storing, so
    // the counting pass keeps no array at all) and, per level,
    // whether it is an object.
    let mut stack = [0u16; DEPTH_CEILING];
    // Per open level: bit 0 set for an object, bit 1 for a container on
    // `check_finding`'s path.
    let mut objects = [0u8; DEPTH_CEILING];
    let mut depth = 0usize;
    let mut n = 0usize;
    let mut cur = Cursor { src, pos: 0 };
    let mut state = State::Value;
    // `check_finding`: the next container opened is on the path (the root,
    // then each object a located member leads into).
    let mut onto_path = !found.is_empty();

    loop {
        cur.skip_ws();
        match state {
            State::Value | State::ValueOrEnd => {
                let start = cur.pos;
                let b = cur.peek().ok_or(Error::Invalid)?;
                if b == b']' && state == State::ValueOrEnd {
                    close(&mut cur, tokens, &mut depth, &stack, n, count_only)?;
                    state = State::AfterValue;
                    continue;
                }
                let (kind, escaped) = match b {
                    b'{' | b'[' => {
                        if depth >= max_depth {
                            return Err(Error::TooDeep);
                        }
                        let is_obj = b == b'{';
                        let slot = stack.get_mut(depth).ok_or(Error::TooDeep)?;
                        *slot = n as u16;
                        *objects.get_mut(depth).ok_or(Error::TooDeep)? =
                            u8::from(is_obj) | u8::from(core::mem::take(&mut onto_path)) << 1;
                        depth += 1;
                        cur.pos += 1;
                        push(
                            tokens,
                            &mut n,
                            count_only,
                            start,
                            cur.pos,
                            kind_of(is_obj),
                            false,
                        )?;
                        state = if is_obj {
                            State::KeyOrEnd
                        } else {
                            State::ValueOrEnd
                        };
                        continue;
                    }
                    b'"' => (Kind::String, cur.string()?),
                    b'-' | b'0'..=b'9' => {
                        cur.number()?;
                        (Kind::Number, false)
                    }
                    b't' => {
                        cur.literal(b"true")?;
                        (Kind::True, false)
                    }
                    b'f' => {
                        cur.literal(b"false")?;
                        (Kind::False, false)
                    }
                    b'n' => {
                        cur.literal(b"null")?;
                        (Kind::Null, false)
                    }
                    _ => return Err(Error::Invalid),
                };
                push(tokens, &mut n, count_only, start, cur.pos, kind, escaped)?;
                state = State::AfterValue;
            }
            State::KeyOrEnd | State::Key => {
                let b = cur.peek().ok_or(Error::Invalid)?;
                if b == b'}' && state == State::KeyOrEnd {
                    close(&mut cur, tokens, &mut depth, &stack, n, count_only)?;
                    state = State::AfterValue;
                    continue;
                }
                if b != b'"' {
                    return Err(Error::Invalid);
                }
                let start = cur.pos;
                let escaped = cur.string()?;
                let name = src.get(start + 1..cur.pos - 1).unwrap_or(&[]);
                push(
                    tokens,
                    &mut n,
                    count_only,
                    start,
                    cur.pos,
                    Kind::String,
                    escaped,
                )?;
                cur.skip_ws();
                if cur.peek() != Some(b':') {
                    return Err(Error::Invalid);
                }
                cur.pos += 1;
                let level = depth.checked_sub(1).and_then(|d| objects.get(d));
                if level.is_some_and(|&f| f & 2 != 0) {
                    // A member of an object on the path: its value's offset,
                    // and the path goes on into it when it leads there.
                    let (slot, leads) = find(depth, name, escaped).unwrap_or((usize::MAX, false));
                    if let Some(f) = found.get_mut(slot).filter(|f| **f == 0) {
                        cur.skip_ws();
                        *f = cur.pos as u32;
                        onto_path = leads && cur.peek() == Some(b'{');
                    }
                }
                state = State::Value;
            }
            State::AfterValue => {
                let Some(is_obj) = depth
                    .checked_sub(1)
                    .and_then(|d| objects.get(d))
                    .map(|&f| f & 1 != 0)
                else {
                    // The root value is complete: only whitespace may follow.
                    return if cur.pos == src.len() {
                        Ok(n)
                    } else {
                        Err(Error::Invalid)
                    };
                };
                match cur.peek() {
                    Some(b',') => {
                        cur.pos += 1;
                        state = if is_obj { State::Key } else { State::Value };
                    }
                    Some(b'}') if is_obj => {
                        close(&mut cur, tokens, &mut depth, &stack, n, count_only)?;
                    }
                    Some(b']') if !is_obj => {
                        close(&mut cur, tokens, &mut depth, &stack, n, count_only)?;
                    }
                    _ => return Err(Error::Invalid),
                }
            }
        }
    }
}

fn kind_of(is_obj: bool) -> Kind {
    if is_obj { Kind::Object } else { Kind::Array }
}

fn push(
    tokens: &mut [Token],
    n: &mut usize,
    count_only: bool,
    start: usize,
    end: usize,
    kind: Kind,
    escaped: bool,
) -> Result<(), Error> {
    if !count_only {
        let slot = tokens.get_mut(*n).ok_or(Error::TooManyTokens)?;
        *slot = Token {
            start: start as u32,
            end: end as u32,
            next: (*n + 1) as u16,
            kind,
            escaped,
        };
    }
    *n += 1;
    Ok(())
}

fn close(
    cur: &mut Cursor<'_>,
    tokens: &mut [Token],
    depth: &mut usize,
    stack: &[u16],
    n: usize,
    count_only: bool,
) -> Result<(), Error> {
    cur.pos += 1;
    *depth = depth.checked_sub(1).ok_or(Error::Invalid)?;
    if !count_only {
        let idx = *stack.get(*depth).ok_or(Error::Invalid)?;
        let tok = tokens.get_mut(usize::from(idx)).ok_or(Error::Invalid)?;
        tok.end = cur.pos as u32;
        tok.next = n as u16;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(s: &str) -> Result<usize, Error> {
        let mut t = [Token::EMPTY; 64];
        tokenize(s.as_bytes(), &mut t, 16)
    }

    #[test]
    fn accepts_values() {
        assert_eq!(tok("{}"), Ok(1));
        assert_eq!(tok(" [1, -0.5e+3, \"a\", true, false, null] "), Ok(7));
        assert_eq!(tok("{\"a\":{\"b\":[]}}"), Ok(5));
        assert_eq!(tok("\"\\ud83d\\ude00\""), Ok(1));
    }

    #[test]
    fn rejects_bad_text() {
        for s in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "tru",
            "nul",
            "\"\\x\"",
            "\"\u{1}\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "{1:2}",
            "[1 2]",
            "{} {}",
            "\u{feff}{}",
            "\"\\ud800\\u0041\"",
        ] {
            assert_eq!(tok(s), Err(Error::Invalid), "{s:?}");
        }
        assert_eq!(
            tokenize(b"\"\xff\"", &mut [Token::EMPTY; 4], 4),
            Err(Error::Invalid)
        );
    }

    /// UTF-8 is checked per string now, not over the whole input first:
    /// bad bytes anywhere (short and long strings, keys, outside strings,
    /// a sequence cut by the closing quote) are still refused.
    #[test]
    fn utf8_checked_everywhere() {
        let t = |src: &[u8]| tokenize(src, &mut [Token::EMPTY; 8], 4);
        assert_eq!(t("[\"é\",\"0123456789é€😀\"]".as_bytes()), Ok(3));
        assert_eq!(t("{\"ké\":\"v\"}".as_bytes()), Ok(3));
        for bad in [
            &b"\"\xff\""[..],
            b"\"0123456789abcdef\xc3\"",
            b"\"0123456789\xe2\x82\"",
            b"{\"k\xc0\xaf\":1}",
            b"[\"\xed\xa0\x80\"]",
            b"[1,\xc3\xa9]",
            b"[1] \xc3\xa9",
            b"\xef\xbb\xbf[1]",
        ] {
            assert_eq!(t(bad), Err(Error::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn spans_and_skips() {
        let src = b"{\"a\":[1,2],\"b\":\"x\"}";
        let mut t = [Token::EMPTY; 16];
        let n = tokenize(src, &mut t, 8).unwrap();
        assert_eq!(n, 7);
        assert_eq!(t[0].next, 7);
        assert_eq!(t[2].kind, Kind::Array);
        assert_eq!(t[2].next, 5);
        assert_eq!(&src[t[6].start as usize..t[6].end as usize], b"\"x\"");
    }

    #[test]
    fn limits() {
        let mut t = [Token::EMPTY; 3];
        assert_eq!(tokenize(b"[1,2,3]", &mut t, 8), Err(Error::TooManyTokens));
        assert_eq!(tokenize(b"[1,2,3]", &mut [], 8), Ok(4));
        assert_eq!(
            tok("[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]"),
            Err(Error::TooDeep)
        );
        assert_eq!(tok("[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]"), Ok(17));
    }
}
