//! The stream framer (src/framer.rs) with arbitrary chunking, through both of
//! its APIs (copying `feed`, zero-copy `space`/`commit`/`next_frame`), against
//! a plain reference splitter; every frame is also answered with `respond`.
use arbitrary::Arbitrary;
use emcp::call::RequestInfo;
use emcp::framer::{respond, Frame, Framer};
use emcp::limits::{MCP_MAX_ID_LEN, MCP_MIN_RESPONSE_CAP};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Receive buffer size (1..=300 bytes).
    cap: u16,
    /// Chunk sizes, cycled (0 = an empty chunk).
    chunks: Vec<u8>,
    /// The byte stream.
    stream: Vec<u8>,
    /// Answer the frames with the server too.
    answer: bool,
}

#[derive(Debug, PartialEq, Eq, Clone)]
enum F {
    Line(Vec<u8>),
    /// A dropped line, with the id kept for its refusal.
    Oversize(Option<Vec<u8>>),
}

/// The id the framer must keep for a dropped line whose first `cap` bytes
/// are `prefix`: the core's prefix scan, when the id takes at most half the
/// buffer. Checked against serde_json: when the whole line is a JSON object,
/// a kept id must be its top-level "id", so a refusal never reaches another
/// request than the one that sent it.
fn kept_id(raw: &[u8], prefix: &[u8]) -> Option<Vec<u8>> {
    let at = emcp::rpc::scan_id_in_prefix(prefix)?;
    if at.len() > MCP_MAX_ID_LEN || at.len() * 2 > prefix.len() {
        return None;
    }
    let id = prefix[at].to_vec();
    let line = raw.strip_suffix(b"\r").unwrap_or(raw);
    if let Ok(serde_json::Value::Object(m)) = serde_json::from_slice::<serde_json::Value>(line) {
        let kept: serde_json::Value = serde_json::from_slice(&id).expect("a kept id is JSON");
        // (serde_json keeps the last of duplicate keys, the scan the first:
        // compare only lines that spell the key once.)
        if line.windows(4).filter(|w| w == b"\"id\"").count() == 1 {
            assert_eq!(Some(&kept), m.get("id"), "kept another member than the id");
        }
    }
    Some(id)
}

/// What the framer must produce: every newline-terminated line of the
/// stream, its trailing CR dropped, empty lines skipped; a line that with
/// its newline does not fit `cap` bytes is reported as Oversize. A last line
/// without a newline is still pending.
fn model(stream: &[u8], cap: usize) -> Vec<F> {
    let mut out = Vec::new();
    let mut rest = stream;
    while let Some(p) = rest.iter().position(|&b| b == b'\n') {
        let raw = &rest[..p];
        rest = &rest[p + 1..];
        if raw.len() + 1 > cap {
            out.push(F::Oversize(kept_id(raw, &raw[..cap])));
            continue;
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if !line.is_empty() {
            out.push(F::Line(line.to_vec()));
        }
    }
    out
}

fn own(f: Frame<'_>) -> F {
    match f {
        Frame::Line(l) => {
            assert!(!l.is_empty(), "empty Line frame");
            F::Line(l.to_vec())
        }
        Frame::Oversize(id) => F::Oversize(id.map(<[u8]>::to_vec)),
    }
}

/// One fuzz input (decoded with `arbitrary` as cargo-fuzz does).
pub fn run(data: &[u8]) {
    let Ok(inp) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let cap = 1 + usize::from(inp.cap % 300);
    let all_zero = inp.chunks.iter().all(|&c| c == 0);
    let chunk = |i: usize| -> usize {
        if inp.chunks.is_empty() {
            7
        } else if all_zero {
            1
        } else {
            usize::from(inp.chunks[i % inp.chunks.len()])
        }
    };
    let want = model(&inp.stream, cap);

    // Copying API.
    let mut buf = vec![0u8; cap];
    let mut f = Framer::new();
    let mut got = Vec::new();
    let mut rest = &inp.stream[..];
    let mut i = 0;
    while !rest.is_empty() {
        let n = chunk(i).min(rest.len());
        i += 1;
        let (now, later) = rest.split_at(n);
        f.feed(&mut buf, now, |fr| got.push(own(fr)));
        assert!(f.buffered() <= cap);
        rest = later;
    }
    assert_eq!(got, want, "feed (cap {cap})");

    // Zero-copy API.
    let mut buf = vec![0u8; cap];
    let mut f = Framer::new();
    let mut got2 = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    let mut stalls = 0;
    while pos < inp.stream.len() && stalls < 4 {
        let space = f.space(&mut buf);
        let room = space.len();
        let n = chunk(i).min(room).min(inp.stream.len() - pos);
        i += 1;
        space[..n].copy_from_slice(&inp.stream[pos..pos + n]);
        f.commit(cap, n).expect("commit within space");
        assert!(
            f.commit(cap, room - n + 1).is_err(),
            "commit beyond space accepted"
        );
        pos += n;
        while let Some(fr) = f.next_frame(&buf) {
            got2.push(own(fr));
        }
        stalls = if n == 0 && room == 0 { stalls + 1 } else { 0 };
    }
    assert!(
        stalls < 4,
        "space stayed empty: the stream wedged (cap {cap})"
    );
    assert_eq!(got2, want, "space/commit/next_frame (cap {cap})");

    // Every frame answered as one line, within the response buffer.
    if inp.answer {
        let server = crate::fixture::shared();
        let info = RequestInfo::default();
        for fr in got.iter().take(8) {
            let frame = match fr {
                F::Line(l) => Frame::Line(l),
                F::Oversize(id) => Frame::Oversize(id.as_deref()),
            };
            let mut out = vec![0xA5u8; MCP_MIN_RESPONSE_CAP + 1 + 64];
            let o = respond(server, &info, frame, &mut out[..MCP_MIN_RESPONSE_CAP + 1])
                .expect("cap ok");
            assert!(
                out[MCP_MIN_RESPONSE_CAP + 1..].iter().all(|&b| b == 0xA5),
                "wrote past out"
            );
            if o.len > 0 {
                assert_eq!(out[o.len - 1], b'\n');
                let body = &out[..o.len - 1];
                assert!(!body.contains(&b'\n'), "newline inside a response");
                serde_json::from_slice::<serde_json::Value>(body).expect("one JSON value");
            } else {
                assert!(matches!(fr, F::Line(_)));
            }
        }
    }
}
