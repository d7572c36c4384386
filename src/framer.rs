//! A byte-fed framer for newline-delimited JSON-RPC on a byte stream (UART,
//! USB-CDC, DMA, a pipe): bytes in, whole messages out.
//!
//! Owns: one bounded receive buffer that the caller provides, splitting it at
//! `\n` (a `\r` before it is dropped, so CRLF works), skipping empty lines, and
//! dropping a line that does not fit the buffer: it is reported once, as
//! [`Frame::Oversize`] at its newline, and framing resumes after that newline.
//! The dropped line's request id is kept when the bytes that filled the
//! buffer hold it (found by the core's bounded top-level scan,
//! [`rpc::scan_id_in_prefix`]), so the refusal reaches the request that sent
//! it: the id stays in the buffer itself, in front of the bytes being
//! dropped, and costs no RAM of its own.
//! Must not: allocate, block, or parse JSON beyond that one scan; [`respond`]
//! is the only place that meets the server.
//!
//! Two ways to fill the buffer:
//! - copying: [`Framer::feed`] takes chunks of any size (1 byte from a UART
//!   interrupt, 64 bytes from a USB packet) and calls back per frame;
//! - zero-copy: [`Framer::space`] hands out the free tail of the buffer (for a
//!   DMA transfer or a `read()`), [`Framer::commit`] adds the `n` bytes that
//!   arrived, and [`Framer::next_frame`] takes the complete frames.
//!
//! A line fits when the line and its line ending fit the buffer: with a buffer
//! of `cap` bytes, a message of `cap - 1` bytes ending in `\n` (or `cap - 2`
//! ending in `\r\n`) is the longest accepted.
//!
//! The framer keeps only offsets; every call takes the buffer, which must be
//! the same buffer (same bytes, same length) on every call. Given another one,
//! the framer never panics, but its frames are meaningless.
//!
//! ```
//! use emcp::framer::{Frame, Framer};
//! let mut buf = [0u8; 32];
//! let mut f = Framer::new();
//! let mut lines = Vec::new();
//! f.feed(&mut buf, b"{\"a\":1}\r\n\n{\"b\"", |fr| lines.push(format!("{fr:?}")));
//! f.feed(&mut buf, b":2}\n", |fr| lines.push(format!("{fr:?}")));
//! assert_eq!(lines, ["Line(\"{\\\"a\\\":1}\")", "Line(\"{\\\"b\\\":2}\")"]);
//! ```

use crate::call::RequestInfo;
use crate::json::Writer;
use crate::limits::{MCP_MAX_ID_LEN, MCP_MIN_RESPONSE_CAP, MCP_RPC_INVALID_REQUEST};
use crate::rpc::{self, RpcError};
use crate::server::{HandleError, Outcome, Server};

/// One result of framing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Frame<'b> {
    /// A complete message, without its line ending; never empty. It borrows
    /// the receive buffer and stays valid until the buffer is next written
    /// ([`Framer::space`], [`Framer::feed`]).
    Line(&'b [u8]),
    /// A line longer than the buffer was dropped up to and including its
    /// newline. Reported once per dropped line, when its newline arrives;
    /// answer it with [`oversize_response`] so the client is not left waiting.
    /// Carries the line's id (raw JSON, a string or number of at most
    /// `MCP_MAX_ID_LEN` bytes) when the first bytes of the line held it and
    /// it takes at most half the buffer; it borrows the buffer like a line.
    Oversize(Option<&'b [u8]>),
}

impl core::fmt::Debug for Frame<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Frame::Line(l) => match core::str::from_utf8(l) {
                Ok(s) => f.debug_tuple("Line").field(&s).finish(),
                Err(_) => f.debug_tuple("Line").field(l).finish(),
            },
            Frame::Oversize(None) => f.write_str("Oversize"),
            Frame::Oversize(Some(id)) => match core::str::from_utf8(id) {
                Ok(s) => f.debug_tuple("Oversize").field(&s).finish(),
                Err(_) => f.debug_tuple("Oversize").field(id).finish(),
            },
        }
    }
}

/// Why [`Framer::commit`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitError {
    /// More bytes than the free tail last handed out by [`Framer::space`].
    TooMany,
}

/// Framing state over a caller-owned receive buffer: four words, no buffer
/// of its own. `Framer::new()` is the empty state; it can live in a `static`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Framer {
    /// First byte not yet handed out as a frame.
    start: usize,
    /// One past the last byte received.
    end: usize,
    /// `start..scan` holds no `\n` (already searched).
    scan: usize,
    /// Inside a line that did not fit: dropping bytes up to its newline.
    discarding: bool,
    /// While discarding: the length of the dropped line's id, kept in the
    /// buffer at `start - id_len..start` (0: no id was found). A byte beside
    /// the flag, in what would be padding.
    id_len: u8,
}

// A kept id's length fits `Framer::id_len`.
const _: () = assert!(MCP_MAX_ID_LEN <= u8::MAX as usize);

impl Framer {
    /// The empty state: no bytes buffered, not discarding.
    pub const fn new() -> Self {
        Framer {
            start: 0,
            end: 0,
            scan: 0,
            discarding: false,
            id_len: 0,
        }
    }

    /// Bytes received and not yet handed out as frames.
    pub fn buffered(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True while a line that did not fit is being dropped.
    pub fn is_discarding(&self) -> bool {
        self.discarding
    }

    /// Forgets everything buffered (e.g. after the link was reset).
    pub fn reset(&mut self) {
        *self = Framer::new();
    }

    /// Drops the bytes of the line being discarded that follow its kept id.
    fn drop_after_id(&mut self) {
        self.end = self.start;
        self.scan = self.start;
    }

    /// The line at `buf[0..]` filled the whole buffer without a line end:
    /// start discarding it, keeping its id (when the bytes hold one and it
    /// takes at most half the buffer) at the front, or at least where it lies
    /// when `buf` cannot be written.
    fn overflow(&mut self, buf: &[u8]) -> core::ops::Range<usize> {
        self.discarding = true;
        let found = rpc::scan_id_in_prefix(buf)
            .filter(|r| r.len() <= MCP_MAX_ID_LEN && r.len() * 2 <= buf.len());
        let at = found.unwrap_or(0..0);
        self.id_len = at.len() as u8;
        self.start = at.end;
        self.drop_after_id();
        at
    }

    /// The id kept for the line being discarded, if any.
    fn kept_id<'b>(&self, buf: &'b [u8]) -> Option<&'b [u8]> {
        let n = usize::from(self.id_len);
        let from = self.start.checked_sub(n)?;
        (n > 0).then(|| buf.get(from..self.start)).flatten()
    }

    /// Moves the unframed bytes to the front of `buf`, and starts discarding
    /// when they fill the whole buffer without a newline.
    fn compact(&mut self, buf: &mut [u8]) {
        if self.end > buf.len() || self.start > self.end {
            // Not the buffer this state was built on: start over.
            self.reset();
            return;
        }
        if self.discarding {
            // Drop what arrived of the line, and bring its id to the front
            // so the whole rest of the buffer is free.
            let n = usize::from(self.id_len);
            let from = self.start.saturating_sub(n);
            buf.copy_within(from..from + n, 0);
            self.start = n;
            self.drop_after_id();
            return;
        }
        if self.start > 0 {
            buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scan -= self.start;
            self.start = 0;
        }
        let unscanned = buf.get(self.scan..self.end).unwrap_or_default();
        if self.end == buf.len() && !crate::json::has_byte(unscanned, b'\n') {
            // Full, and no line end anywhere: the line is too long.
            let id = self.overflow(buf);
            buf.copy_within(id.clone(), 0);
            self.start = id.len();
            self.drop_after_id();
        }
    }

    /// The free tail of `buf`, to receive bytes into without a copy (a DMA
    /// transfer, a `read()`); then call [`Framer::commit`] with the count.
    ///
    /// Moves any partial line to the front first, so the whole free space is
    /// one slice. The slice is empty only when `buf` is full of complete
    /// lines not yet taken with [`Framer::next_frame`]; a partial line that
    /// fills the whole buffer is dropped here (and later reported as
    /// [`Frame::Oversize`]), so the stream can never wedge.
    pub fn space<'b>(&mut self, buf: &'b mut [u8]) -> &'b mut [u8] {
        self.compact(buf);
        buf.get_mut(self.end..).unwrap_or_default()
    }

    /// Adds `n` bytes written at the start of the slice [`Framer::space`]
    /// returned. `buf_len` is the length of the receive buffer.
    pub fn commit(&mut self, buf_len: usize, n: usize) -> Result<(), CommitError> {
        match self.end.checked_add(n) {
            Some(e) if e <= buf_len => {
                self.end = e;
                Ok(())
            }
            _ => Err(CommitError::TooMany),
        }
    }

    /// The next complete frame in `buf`, or `None` until more bytes arrive.
    /// Call it until `None` after every [`Framer::commit`].
    pub fn next_frame<'b>(&mut self, buf: &'b [u8]) -> Option<Frame<'b>> {
        loop {
            let pending = buf.get(self.scan..self.end)?;
            let Some(p) = pending.iter().position(|&b| b == b'\n') else {
                self.scan = self.end;
                if self.discarding {
                    self.drop_after_id();
                } else if self.start == 0 && self.end == buf.len() {
                    // The buffer is full and holds no line end: the line is too long.
                    self.overflow(buf);
                }
                return None;
            };
            let nl = self.scan + p;
            let line = buf.get(self.start..nl)?;
            if self.discarding {
                let id = self.kept_id(buf);
                self.start = nl + 1;
                self.scan = self.start;
                self.discarding = false;
                self.id_len = 0;
                return Some(Frame::Oversize(id));
            }
            self.start = nl + 1;
            self.scan = self.start;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !line.is_empty() {
                return Some(Frame::Line(line));
            }
        }
    }

    /// Copies `input` (a chunk of any size, empty included) into `buf` and
    /// calls `on_frame` for every frame it completes, in order. The frame's
    /// bytes are valid only during the call.
    pub fn feed(&mut self, buf: &mut [u8], mut input: &[u8], mut on_frame: impl FnMut(Frame<'_>)) {
        loop {
            while let Some(f) = self.next_frame(buf) {
                on_frame(f);
            }
            if input.is_empty() {
                return;
            }
            let space = self.space(buf);
            let n = space.len().min(input.len());
            if n == 0 {
                // Only a zero-length buffer gets here; nothing can ever be framed.
                return;
            }
            let (now, rest) = input.split_at(n);
            if let Some(dst) = space.get_mut(..n) {
                crate::json::copy_bytes(dst, now);
            }
            let _ = self.commit(buf.len(), n);
            input = rest;
        }
    }
}

/// Writes the answer to a dropped oversize line into `out`: a JSON-RPC error
/// -32600 with the line's `id` ([`Frame::Oversize`]'s, or null when it was
/// not found), without a line ending. Returns its length, or 0 when `out` is
/// below `MCP_MIN_RESPONSE_CAP` bytes. An `id` that is not one the core
/// echoes ([`rpc::is_id`]) is answered as null.
pub fn oversize_response(id: Option<&[u8]>, out: &mut [u8]) -> usize {
    if out.len() < MCP_MIN_RESPONSE_CAP {
        return 0;
    }
    let mut w = Writer::new(out);
    let e = RpcError::new(
        MCP_RPC_INVALID_REQUEST,
        "Request exceeds the receive buffer",
    );
    rpc::write_error(&mut w, id.filter(|i| rpc::is_id(i)), &e);
    w.len()
}

/// Answers one frame into `out` as a line: the response followed by `\n`.
/// The outcome's `len` counts the newline and is 0 when no response is due
/// (a notification); an oversize frame is answered with [`oversize_response`]
/// (`rpc_error` -32600, `http_status` 400).
///
/// `out` must hold at least `MCP_MIN_RESPONSE_CAP + 1` bytes (the response
/// and its newline), else [`HandleError::BufferTooSmall`] and nothing runs.
pub fn respond(
    server: &Server<'_>,
    info: &RequestInfo<'_>,
    frame: Frame<'_>,
    out: &mut [u8],
) -> Result<Outcome, HandleError> {
    let body_cap = out.len().saturating_sub(1);
    if body_cap < MCP_MIN_RESPONSE_CAP {
        return Err(HandleError::BufferTooSmall);
    }
    let body = out.get_mut(..body_cap).unwrap_or_default();
    let mut o = match frame {
        Frame::Line(line) => server.handle(info, line, body)?,
        Frame::Oversize(id) => Outcome {
            len: oversize_response(id, body),
            rpc_error: MCP_RPC_INVALID_REQUEST,
            http_status: rpc::http_status(MCP_RPC_INVALID_REQUEST, false),
            ..Outcome::default()
        },
    };
    if o.len > 0 {
        match out.get_mut(o.len) {
            Some(b) => *b = b'\n',
            None => return Err(HandleError::BufferTooSmall),
        }
        o.len += 1;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ServerInfo;

    /// What a stream produces, framed with `cap` bytes in chunks of `chunk`.
    fn frames(stream: &[u8], cap: usize, chunks: &mut dyn Iterator<Item = usize>) -> Vec<String> {
        let mut buf = vec![0u8; cap];
        let mut f = Framer::new();
        let mut got = Vec::new();
        let mut rest = stream;
        while !rest.is_empty() {
            let n = chunks.next().unwrap_or(1).clamp(1, rest.len());
            let (now, later) = rest.split_at(n);
            f.feed(&mut buf, now, |fr| got.push(format!("{fr:?}")));
            rest = later;
        }
        got
    }

    /// Same, through the zero-copy calls (`space`, `commit`, `next_frame`).
    fn frames_zero_copy(
        stream: &[u8],
        cap: usize,
        chunks: &mut dyn Iterator<Item = usize>,
    ) -> Vec<String> {
        let mut buf = vec![0u8; cap];
        let mut f = Framer::new();
        let mut got = Vec::new();
        let mut rest = stream;
        while !rest.is_empty() {
            let space = f.space(&mut buf);
            assert!(!space.is_empty(), "the framer wedged");
            let n = chunks
                .next()
                .unwrap_or(1)
                .clamp(1, rest.len())
                .min(space.len());
            space[..n].copy_from_slice(&rest[..n]);
            f.commit(cap, n).unwrap();
            rest = &rest[n..];
            while let Some(fr) = f.next_frame(&buf) {
                got.push(format!("{fr:?}"));
            }
        }
        got
    }

    /// The id the framer keeps for a line whose first bytes are `prefix`:
    /// the rule stated on its own, without the buffer.
    fn kept_id(prefix: &[u8]) -> Option<&[u8]> {
        let at = rpc::scan_id_in_prefix(prefix)?;
        (at.len() <= MCP_MAX_ID_LEN && at.len() * 2 <= prefix.len()).then(|| &prefix[at])
    }

    /// The expected frames, computed line by line without any buffer.
    fn reference(stream: &[u8], cap: usize) -> Vec<String> {
        let mut got = Vec::new();
        let mut parts: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
        parts.pop(); // the unterminated tail is not a frame yet
        for p in parts {
            if p.len() + 1 > cap {
                got.push(format!("{:?}", Frame::Oversize(kept_id(&p[..cap]))));
                continue;
            }
            let l = p.strip_suffix(b"\r").unwrap_or(p);
            if !l.is_empty() {
                got.push(format!("{:?}", Frame::Line(l)));
            }
        }
        got
    }

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }
    }

    fn sample_stream(rng: &mut Rng, lines: usize, max_len: usize) -> Vec<u8> {
        let mut s = Vec::new();
        for i in 0..lines {
            let len = rng.below(max_len as u64 + 1);
            for j in 0..len {
                s.push(b"abc{}\",:\r xyz"[(i + j + rng.below(3)) % 13]);
            }
            match rng.below(4) {
                0 => s.extend_from_slice(b"\r\n"),
                1 if len > 0 => s.push(b'\r'), // a CR in the middle of a line
                _ => s.push(b'\n'),
            }
        }
        s
    }

    #[test]
    fn fixed_chunkings_match_the_reference() {
        let stream = b"{\"a\":1}\n\r\n\n{\"b\":2}\r\nxx\rx\n0123456789ABCDEF\n{\"c\":3}\n\
                       0123456789ABCDE\n0123456789ABCD\r\n0123456789ABCDEF0123456789\n\n.\n"
            .to_vec();
        let want = reference(&stream, 16);
        assert_eq!(
            want,
            [
                "Line(\"{\\\"a\\\":1}\")",
                "Line(\"{\\\"b\\\":2}\")",
                "Line(\"xx\\rx\")",
                "Oversize",
                "Line(\"{\\\"c\\\":3}\")",
                "Line(\"0123456789ABCDE\")",
                "Line(\"0123456789ABCD\")",
                "Oversize",
                "Line(\".\")",
            ]
        );
        for chunk in [1, 2, 3, 7, 15, 16, 17, 64, 1000] {
            assert_eq!(
                frames(&stream, 16, &mut core::iter::repeat(chunk)),
                want,
                "chunk {chunk}"
            );
            assert_eq!(
                frames_zero_copy(&stream, 16, &mut core::iter::repeat(chunk)),
                want,
                "zero-copy chunk {chunk}"
            );
        }
    }

    #[test]
    fn arbitrary_chunkings_match_the_reference() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..400 {
            let cap = 2 + rng.below(40);
            let lines = 1 + rng.below(30);
            let stream = sample_stream(&mut rng, lines, cap + 10);
            let want = reference(&stream, cap);
            let seed = rng.next();
            let mut r1 = Rng(seed | 1);
            let mut chunks = core::iter::from_fn(move || Some(1 + r1.below(2 * cap as u64)));
            assert_eq!(
                frames(&stream, cap, &mut chunks),
                want,
                "round {round} cap {cap}"
            );
            let mut r2 = Rng(seed | 1);
            let mut chunks = core::iter::from_fn(move || Some(1 + r2.below(2 * cap as u64)));
            assert_eq!(
                frames_zero_copy(&stream, cap, &mut chunks),
                want,
                "zero-copy round {round} cap {cap}"
            );
        }
    }

    #[test]
    fn oversize_is_reported_once_and_framing_resumes() {
        let mut buf = [0u8; 8];
        let mut f = Framer::new();
        let mut got = Vec::new();
        // 100 bytes without a newline in many chunks: nothing yet.
        for _ in 0..10 {
            f.feed(&mut buf, b"0123456789", |fr| got.push(format!("{fr:?}")));
        }
        assert!(got.is_empty());
        assert!(f.is_discarding());
        f.feed(&mut buf, b"tail\nok\n", |fr| got.push(format!("{fr:?}")));
        assert_eq!(got, ["Oversize", "Line(\"ok\")"]);
        assert!(!f.is_discarding());
        assert_eq!(f.buffered(), 0);
    }

    /// A request line of `len` bytes whose id is `id` (raw JSON) and whose
    /// arguments fill the rest: a long call, as a model writes one.
    fn long_call(id: &str, len: usize) -> Vec<u8> {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{{"s":""#
        );
        let mut l = head.into_bytes();
        l.resize(len - 4, b'x');
        l.extend_from_slice(b"\"}}}");
        l
    }

    #[test]
    fn an_oversize_line_keeps_its_id() {
        // A 17 KB line into a 1 KiB buffer, in every chunking, through both
        // APIs: the refusal carries the request's id.
        for (id, want) in [
            ("\"req-7\"", "Oversize(\"\\\"req-7\\\"\")"),
            ("42", "Oversize(\"42\")"),
            ("null", "Oversize"),
            ("{\"a\":1}", "Oversize"),
        ] {
            let mut stream = long_call(id, 17 * 1024);
            stream.extend_from_slice(b"\n{\"b\":2}\n");
            for chunk in [1, 63, 1024, 4096] {
                let got = frames(&stream, 1024, &mut core::iter::repeat(chunk));
                assert_eq!(got, [want, "Line(\"{\\\"b\\\":2}\")"], "chunk {chunk}");
                let got = frames_zero_copy(&stream, 1024, &mut core::iter::repeat(chunk));
                assert_eq!(got, [want, "Line(\"{\\\"b\\\":2}\")"], "zero-copy {chunk}");
            }
        }
        // An id found only past the first buffer-full of bytes, an id cut by
        // the end of the buffer, and an id longer than half the buffer are
        // not kept: the refusal then says null.
        let late = format!(r#"{{"params":{{"s":"{}"}},"id":9}}"#, "x".repeat(100));
        assert_eq!(
            frames(
                format!("{late}\n").as_bytes(),
                64,
                &mut core::iter::repeat(5)
            ),
            ["Oversize"]
        );
        assert_eq!(
            frames(b"{\"id\":123456789\n", 13, &mut core::iter::repeat(3)),
            ["Oversize"]
        );
        let wide = long_call(&format!("\"{}\"", "w".repeat(40)), 200);
        let mut wide_line = wide.clone();
        wide_line.push(b'\n');
        assert_eq!(
            frames(&wide_line, 64, &mut core::iter::repeat(7)),
            ["Oversize"]
        );
        assert_eq!(frames(&wide_line, 128, &mut core::iter::repeat(7)).len(), 1);
        assert_ne!(
            frames(&wide_line, 128, &mut core::iter::repeat(7)),
            ["Oversize"]
        );
    }

    #[test]
    fn oversize_calls_in_a_stream_match_the_reference() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for round in 0..300 {
            let cap = 8 + rng.below(120);
            let mut stream = Vec::new();
            for i in 0..1 + rng.below(12) {
                let id = match rng.below(5) {
                    0 => format!("{i}"),
                    1 => format!("\"{}\"", "k".repeat(rng.below(70))),
                    2 => "-1.5e3".to_string(),
                    3 => "\"a\\\"b\"".to_string(),
                    _ => "true".to_string(),
                };
                let len = 40 + id.len() + rng.below(3 * cap as u64);
                stream.extend_from_slice(&long_call(&id, len));
                stream.extend_from_slice(if rng.below(2) == 0 { b"\n" } else { b"\r\n" });
            }
            let want = reference(&stream, cap);
            let c = 1 + rng.below(2 * cap as u64);
            assert_eq!(
                frames(&stream, cap, &mut core::iter::repeat(c)),
                want,
                "round {round}"
            );
            assert_eq!(
                frames_zero_copy(&stream, cap, &mut core::iter::repeat(c)),
                want,
                "zero-copy round {round}"
            );
        }
    }

    #[test]
    fn space_never_wedges_and_commit_is_bounded() {
        let mut buf = [0u8; 4];
        let mut f = Framer::new();
        assert_eq!(f.space(&mut buf).len(), 4);
        assert_eq!(f.commit(4, 5), Err(CommitError::TooMany));
        buf.copy_from_slice(b"a\nb\n");
        f.commit(4, 4).unwrap();
        // Full of complete lines: no space until they are taken.
        assert_eq!(f.space(&mut buf).len(), 0);
        assert_eq!(f.next_frame(&buf), Some(Frame::Line(b"a")));
        assert_eq!(f.space(&mut buf).len(), 2);
        assert_eq!(f.next_frame(&buf), Some(Frame::Line(b"b")));
        assert_eq!(f.next_frame(&buf), None);
        // A partial line filling the buffer is dropped by `space` itself.
        let s = f.space(&mut buf);
        s.copy_from_slice(b"wxyz");
        f.commit(4, 4).unwrap();
        assert_eq!(f.space(&mut buf).len(), 4);
        assert!(f.is_discarding());
        // A zero-length buffer frames nothing and never loops.
        let mut none: [u8; 0] = [];
        let mut g = Framer::new();
        g.feed(&mut none, b"abc\n", |_| panic!("no frame expected"));
        // Another buffer than the state was built on: no panic.
        let mut big = [0u8; 64];
        let mut h = Framer::new();
        h.feed(&mut big, b"0123456789", |_| {});
        h.feed(&mut buf, b"x\n", |_| {});
        let _ = h.next_frame(&buf);
    }

    fn greenhouse() -> Server<'static> {
        Server::new(ServerInfo {
            name: "g",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: false,
        })
    }

    const NOPE_7: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"Method not found\",\"data\":\"nope\"}}\n";

    #[test]
    fn respond_writes_lines() {
        let s = greenhouse();
        let mut out = [0u8; MCP_MIN_RESPONSE_CAP + 1];
        let n = respond(
            &s,
            &RequestInfo::default(),
            Frame::Line(br#"{"jsonrpc":"2.0","id":7,"method":"nope"}"#),
            &mut out,
        )
        .unwrap()
        .len;
        // (An answer every profile and era gives alike.)
        assert_eq!(&out[..n], NOPE_7);
        let o = respond(&s, &RequestInfo::default(), Frame::Oversize(None), &mut out).unwrap();
        assert_eq!((o.rpc_error, o.http_status), (-32600, 400));
        let n = o.len;
        assert_eq!(
            &out[..n],
            &b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Request exceeds the receive buffer\"}}\n"[..]
        );
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(
            respond(&s, &RequestInfo::default(), Frame::Line(note), &mut out).map(|o| o.len),
            Ok(0)
        );
        let mut small = [0u8; MCP_MIN_RESPONSE_CAP];
        assert_eq!(
            respond(
                &s,
                &RequestInfo::default(),
                Frame::Oversize(None),
                &mut small
            ),
            Err(HandleError::BufferTooSmall)
        );
        assert_eq!(oversize_response(None, &mut small[..10]), 0);
    }

    #[test]
    fn a_stream_of_requests_through_the_server() {
        let s = greenhouse();
        let mut stream = Vec::new();
        for i in 0..50 {
            stream.extend_from_slice(
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"nope\"}}\r\n").as_bytes(),
            );
            if i % 10 == 3 {
                stream.extend_from_slice(&[b'x'; 300]);
                stream.push(b'\n');
            }
        }
        for chunk in [1, 7, 64] {
            let mut buf = [0u8; 128];
            let mut f = Framer::new();
            let mut out = [0u8; 256];
            let mut text = String::new();
            for c in stream.chunks(chunk) {
                f.feed(&mut buf, c, |fr| {
                    let n = respond(&s, &RequestInfo::default(), fr, &mut out)
                        .unwrap()
                        .len;
                    text.push_str(core::str::from_utf8(&out[..n]).unwrap());
                });
            }
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 55, "chunk {chunk}");
            let nope = |id| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found","data":"nope"}}}}"#
                )
            };
            assert_eq!(lines[0], nope(0));
            assert!(lines[4].contains("-32600") && lines[4].contains(r#""id":null"#));
            // A dropped request whose id was in its first bytes is answered with it.
            let mut buf = [0u8; 128];
            let mut f = Framer::new();
            let mut out = [0u8; 256];
            let mut text = String::new();
            let mut line = long_call("\"call-1\"", 5000);
            line.push(b'\n');
            for c in line.chunks(61) {
                f.feed(&mut buf, c, |fr| {
                    let n = respond(&s, &RequestInfo::default(), fr, &mut out)
                        .unwrap()
                        .len;
                    text.push_str(core::str::from_utf8(&out[..n]).unwrap());
                });
            }
            assert_eq!(
                text,
                "{\"jsonrpc\":\"2.0\",\"id\":\"call-1\",\"error\":{\"code\":-32600,\"message\":\"Request exceeds the receive buffer\"}}\n"
            );
            assert_eq!(lines[54], nope(49));
        }
    }
}
