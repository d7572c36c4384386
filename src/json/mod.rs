//! JSON without a DOM: a strict tokenizer, span navigation and a bounded writer.

pub mod doc;
pub mod num;
pub mod scan;
pub mod tokenizer;
pub mod writer;

pub use doc::{ConvError, Doc, Unescape, name_is};
pub use tokenizer::{Error as TokenizeError, Finder, Kind, Token, check, check_finding, tokenize};
pub(crate) use writer::escaped_len;
pub use writer::{Mark, Piece, WriteError, Writer};

/// True when `text` is one valid JSON value (nested at most `max_depth`)
/// that starts with `open`: `b'{'` for an object, `b'['` for an array.
pub fn is_container(text: &str, open: u8, max_depth: usize) -> bool {
    let first = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    first == Some(open) && check(text.as_bytes(), max_depth).is_ok()
}

/// Scans the bytes of a JSON string from `from` to the first byte that ends a
/// run of plain text: `"`, `\` or a control character below 0x20. Returns its
/// index (`s.len()` when there is none) and whether a byte >= 0x80 may be in
/// the run (true also when one only follows it within the same word step:
/// callers use it to decide whether UTF-8 needs checking, never to refuse).
///
/// One machine word per step (SWAR, see [`WORD`]): per byte lane, the classic "has a byte below
/// n" test flags controls, and the same test on the word XOR-ed with `"` or
/// `\` flags those (`"` and `\` are below 0x80, so the XOR keeps each lane's
/// top bit and `!w` serves all three tests). A borrow can only raise false
/// flags in lanes above a true one, so the lowest flag is always exact.
///
/// That is the hosted form. Bare-metal targets scan a byte at a time
/// ([`string_run_bytes`], a quarter of the code): flash first, one copy.
#[cfg_attr(target_os = "none", inline(never))]
#[cfg_attr(not(target_os = "none"), inline(always))]
pub(crate) fn string_run(s: &[u8], from: usize) -> (usize, bool) {
    if cfg!(target_os = "none") {
        string_run_bytes(s, from)
    } else {
        string_run_words(s, from)
    }
}

/// [`string_run`] one byte at a time (its `high` is exact).
#[inline(always)]
fn string_run_bytes(s: &[u8], from: usize) -> (usize, bool) {
    let mut i = from;
    let mut high = false;
    while let Some(&b) = s.get(i) {
        if b < 0x20 || b == b'"' || b == b'\\' {
            break;
        }
        high |= b >= 0x80;
        i += 1;
    }
    (i, high)
}

/// [`string_run`] one machine word at a time.
#[inline(always)]
fn string_run_words(s: &[u8], from: usize) -> (usize, bool) {
    let mut i = from;
    let mut high: usize = 0;
    while let Some(chunk) = s.get(i..i + WORD) {
        let w = usize::from_le_bytes(chunk.try_into().unwrap_or([0; WORD]));
        high |= w;
        let f = stop_flags(w);
        if f != 0 {
            return (i + (f.trailing_zeros() / 8) as usize, high & HIGH != 0);
        }
        i += WORD;
    }
    // Less than a word left: one more step over it, padded with a byte that
    // never stops the scan.
    let rest = s.get(i..).unwrap_or(&[]);
    let mut lanes = [b'a'; WORD];
    if let Some(dst) = lanes.get_mut(..rest.len()) {
        writer::copy_bytes(dst, rest);
    }
    let w = usize::from_le_bytes(lanes);
    high |= w;
    let f = stop_flags(w);
    let stop = if f != 0 {
        i + (f.trailing_zeros() / 8) as usize
    } else {
        s.len().max(i)
    };
    (stop, high & HIGH != 0)
}

/// Bytes per scan step: the native word (8 on x86_64, 4 on Cortex-M and
/// RV32, where a 64-bit word would spill register pairs to the stack).
pub(crate) const WORD: usize = core::mem::size_of::<usize>();
/// 0x01 in every byte lane of a word.
pub(crate) const ONES: usize = usize::MAX / 0xFF;
/// 0x80 in every byte lane of a word.
pub(crate) const HIGH: usize = ONES * 0x80;

/// The top bit of each byte lane of `w` whose byte is `"`, `\\` or below
/// 0x20 (exact up to the lowest flagged lane; see [`string_run`]).
#[inline(always)]
fn stop_flags(w: usize) -> usize {
    let quote = w ^ (ONES * usize::from(b'"'));
    let backslash = w ^ (ONES * usize::from(b'\\'));
    (w.wrapping_sub(ONES * 0x20) | quote.wrapping_sub(ONES) | backslash.wrapping_sub(ONES))
        & !w
        & HIGH
}

/// Whether `s` holds the byte `b`: core's `contains` (a word-at-a-time
/// `memchr`) on hosted targets, a plain loop on bare-metal ones, where that
/// `memchr` costs more flash than the loop costs time.
#[inline]
#[allow(clippy::manual_contains)] // the loop instead of `contains` is the point
pub(crate) fn has_byte(s: &[u8], b: u8) -> bool {
    if cfg!(target_os = "none") {
        s.iter().any(|&c| c == b)
    } else {
        s.contains(&b)
    }
}

/// The value of the four hex digits at `at` (a `\\u` escape's), or `None`
/// when one is missing or not a hex digit. One copy for the tokenizer, which
/// refuses on `None`, and the unescaper, which meets only checked text.
#[inline(never)]
pub(crate) fn hex4(s: &[u8], at: usize) -> Option<u32> {
    let mut v = 0;
    for &c in s.get(at..at + 4)? {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u32::from(d);
    }
    Some(v)
}

/// True when `b` is UTF-8 (RFC 3629: shortest forms only, no surrogates,
/// nothing above U+10FFFF): the check `core::str::from_utf8` makes, without
/// its 256-byte table. Strings are checked only when they hold a byte above
/// 0x7F, so this is not a hot loop; the C API's texts (keys, result text)
/// are checked whole, so hosted targets first test for ASCII a word at a
/// time (core's `is_ascii`; bare-metal ones go byte by byte, flash first).
pub(crate) fn is_utf8(b: &[u8]) -> bool {
    if !cfg!(target_os = "none") && b.is_ascii() {
        return true;
    }
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        i += 1;
        if c < 0x80 {
            continue;
        }
        let (n, min) = match c {
            0xC2..=0xDF => (1, 0x80),
            0xE0..=0xEF => (2, 0x800),
            0xF0..=0xF4 => (3, 0x1_0000),
            _ => return false,
        };
        let mut cp = u32::from(c) & (0x3F >> n);
        for _ in 0..n {
            match b.get(i) {
                Some(&t) if t & 0xC0 == 0x80 => cp = cp << 6 | u32::from(t & 0x3F),
                _ => return false,
            }
            i += 1;
        }
        if cp < min || cp > 0x10_FFFF || (0xD800..=0xDFFF).contains(&cp) {
            return false;
        }
    }
    true
}

/// The first index at or after `i` that is not JSON whitespace (`s.len()`
/// or beyond when none is): one loop for the tokenizer, the document reader
/// and the refusal scan.
pub(crate) fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The decimal digits of `u`, written at the end of `buf`: one formatter
/// for the writer's numbers, validation messages and list cursors.
#[inline(never)]
pub(crate) fn decimal_digits(mut u: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (u % 10) as u8;
        }
        u /= 10;
        if u == 0 {
            break;
        }
    }
    buf.get(i..).unwrap_or(b"0")
}

/// `dst.copy_from_slice(src)` without its length-mismatch panic: copies
/// `min(dst.len(), src.len())` bytes (callers pass equal lengths). Each
/// `copy_from_slice` keeps a panic location record, and with it the file
/// names, in every firmware.
/// One out-of-line copy (a `memcpy` call) serves every caller.
#[inline(never)]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len().min(dst.len());
    if let (Some((d, _)), Some((s, _))) = (dst.split_at_mut_checked(n), src.split_at_checked(n)) {
        d.copy_from_slice(s);
    }
}

#[cfg(test)]
mod tests {
    use super::{is_utf8, string_run_bytes, string_run_words};

    fn stops(b: u8) -> bool {
        b < 0x20 || b == b'"' || b == b'\\'
    }

    /// Every byte value at every lane position, behind every kind of byte:
    /// the SWAR scan stops exactly where a byte-by-byte scan does.
    #[test]
    fn is_utf8_agrees_with_core() {
        // Every sequence of up to two bytes, and every three- and four-byte
        // sequence built from the bytes where the rules change.
        for a in 0..=255u8 {
            assert_eq!(is_utf8(&[a]), core::str::from_utf8(&[a]).is_ok(), "{a:#x}");
            for b in 0..=255u8 {
                let s = [a, b];
                assert_eq!(is_utf8(&s), core::str::from_utf8(&s).is_ok(), "{s:x?}");
            }
        }
        let edges = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    let s = [a, b, c];
                    assert_eq!(is_utf8(&s), core::str::from_utf8(&s).is_ok(), "{s:x?}");
                    for &d in &edges {
                        let s = [a, b, c, d];
                        assert_eq!(is_utf8(&s), core::str::from_utf8(&s).is_ok(), "{s:x?}");
                    }
                }
            }
        }
        assert!(is_utf8("a é € 𝄞".as_bytes()));
    }

    #[test]
    fn string_run_matches_bytewise_scan() {
        for len in 0..20usize {
            for at in 0..len {
                for stop in 0..=255u8 {
                    for fill in [b'a', 0x80, 0xff, 0x21, 0x5d, 0x1f + 1] {
                        let mut s = [fill; 20];
                        s[at] = stop;
                        let s = &s[..len];
                        for from in [0, 1, 3] {
                            let want = (from..len).find(|&i| stops(s[i])).unwrap_or(len.max(from));
                            // Both forms: the bare-metal one must agree exactly.
                            let (bytes, exact) = string_run_bytes(s, from);
                            let (got, high) = string_run_words(s, from);
                            assert_eq!(bytes, want, "{s:?} from {from} (bytes)");
                            assert_eq!(got, want, "{s:?} from {from}");
                            let in_run = s.get(from..got).unwrap_or(&[]);
                            assert_eq!(exact, in_run.iter().any(|&b| b >= 0x80), "{s:?}");
                            let has_high = s
                                .get(from..got)
                                .is_some_and(|r| r.iter().any(|&b| b >= 0x80));
                            assert!(high || !has_high, "{s:?} from {from}: high byte missed");
                        }
                    }
                }
            }
        }
    }
}
