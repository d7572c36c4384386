//! The legacy-era (2025-11-25) server-to-client round trip: a tool call that
//! asks for input (`input_required` inside the core) becomes JSON-RPC
//! requests to the client (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`) with ids of ours; the client's responses are matched by id
//! and the call runs again with them under `params.inputResponses` (and the
//! MAC-protected `requestState`); its final response goes to the call's id.
//!
//! Owns: the bounded state of one waiting call, in a caller-owned buffer
//! (the call's id and the keys of its input requests, the call itself with
//! the answers inserted); recognising a client's response; the requests'
//! ids. Must not: know the transport (the caller sends what is written and
//! brings back what the client answers), or allocate.
//!
//! Buffer layout: `[id: MCP_MAX_ID_LEN][keys: MCP_ROUNDTRIP_KEY_SPACE][call]`;
//! while a round starts, the tool's `input_required` result is copied to the
//! buffer's end and read from there.

use crate::call::RequestInfo;
use crate::json::{Doc, Kind, Writer, check};
use crate::limits::*;
use crate::protocol::envelope::{
    MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_ROOTS, MCP_CTX_LEGACY_SAMPLING,
};
use crate::rpc::{self, RpcError};
use crate::server::{Exchange, HandleError, Outcome, Server};

/// The transport flags that let a legacy call ask the client for input.
pub(crate) const INPUT_FLAGS: u32 =
    MCP_CTX_LEGACY_ELICITATION | MCP_CTX_LEGACY_SAMPLING | MCP_CTX_LEGACY_ROOTS;

const KEYS: usize = MCP_MAX_ID_LEN;
const CALL: usize = MCP_MAX_ID_LEN + MCP_ROUNDTRIP_KEY_SPACE;
const _: () = assert!(MCP_ROUNDTRIP_MAX_REQUESTS >= 1 && MCP_ROUNDTRIP_MAX_REQUESTS <= 8);
const _: () = assert!(MCP_ROUNDTRIP_MIN_BUF > CALL + 64);

/// How the core's own legacy-era `input_required` result ends (the
/// dispatcher writes `resultType` last and no `_meta` in that era).
const INPUT_TAIL: &[u8] = br#","resultType":"input_required"}}"#;
const K_INPUTS: &[u8] = br#""inputResponses":{"#;
const K_STATE: &[u8] = br#","requestState":"#;

/// Why a round failed (the -32603 message the call is answered with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    AnswerTooBig,
    ClientError,
    AnswerNotObject,
    AnswersOverflow,
    TooManyRounds,
    RequestsOverflow,
    RequestsTokens,
    Malformed,
    TooManyRequests,
    RequestsOut,
}

impl Why {
    fn text(self) -> &'static str {
        match self {
            Why::AnswerTooBig => "The client's answer is not valid JSON within MCP_MAX_DEPTH",
            Why::ClientError => "The client answered an input request with an error",
            Why::AnswerNotObject => "The client's answer is not an object",
            Why::AnswersOverflow => "Input responses exceed the round-trip buffer",
            Why::TooManyRounds => "More rounds of input than MCP_ROUNDTRIP_MAX_ROUNDS",
            Why::RequestsOverflow => "Input requests exceed the round-trip buffer",
            Why::RequestsTokens => "Malformed input_required result",
            Why::Malformed => "Malformed input_required result",
            Why::TooManyRequests => {
                "Too many input requests (MCP_ROUNDTRIP_MAX_REQUESTS), or keys longer than MCP_ROUNDTRIP_KEY_SPACE"
            }
            Why::RequestsOut => "Input requests exceed the response buffer",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    /// Requests sent; `answered` has a bit per answer received.
    Waiting,
    /// Every answer is in: the call runs again on `resume`.
    Ready,
    /// The round failed: `resume` answers the call with -32603 and this.
    Failed(Why),
}

/// What [`RoundTrip::answer`] made of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The message is not a JSON-RPC response (a request, a notification,
    /// or no JSON-RPC at all): handle it as usual.
    NotResponse,
    /// A response, but to no request this call waits for.
    NotPending,
    /// Stored; more answers are due.
    Stored,
    /// The last answer (or a failure): `resume` now.
    Ready,
    /// The client's `notifications/cancelled` for the waiting call: it is
    /// abandoned (the storage is free) and nothing is sent for it.
    Cancelled,
}

/// One legacy-era call waiting for the client's answers.
#[derive(Clone, Copy, Debug)]
pub struct RoundTrip {
    next_id: u64,
    first_id: u64,
    /// Bytes of the call in the buffer (from `CALL`), insertion included.
    len: u32,
    /// Offset in the call of the insertion (just after `"params":{`).
    head: u32,
    /// Length of the insertion.
    ins: u32,
    /// Offset in the call where the next answer goes.
    at: u32,
    id_len: u8,
    key_len: [u8; MCP_ROUNDTRIP_MAX_REQUESTS],
    /// Requests of this round.
    n: u8,
    answered: u8,
    rounds: u8,
    params_empty: bool,
    phase: Phase,
}

impl RoundTrip {
    /// Idle state whose first request id is `first_id`.
    pub const fn new(first_id: u64) -> Self {
        RoundTrip {
            next_id: first_id,
            first_id,
            len: 0,
            head: 0,
            ins: 0,
            at: 0,
            id_len: 0,
            key_len: [0; MCP_ROUNDTRIP_MAX_REQUESTS],
            n: 0,
            answered: 0,
            rounds: 0,
            params_empty: false,
            phase: Phase::Idle,
        }
    }

    /// True while a call waits (for answers, or to be resumed).
    pub fn waiting(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// True when every answer is in (or the round failed): resume now.
    pub fn ready(&self) -> bool {
        matches!(self.phase, Phase::Ready | Phase::Failed(_))
    }

    /// One exchange on a transport with round-trip storage: a client's
    /// response to one of our requests is stored (and the call resumed
    /// once all are in); a request is handled, and when it is a legacy-era
    /// call asking for input while this storage is free, the answer is the
    /// round's requests (`client_request`). While the storage is busy, or
    /// the call does not fit, a legacy call is handled as if the client had
    /// declared no input capability.
    #[inline(never)]
    pub fn handle(
        &mut self,
        buf: &mut [u8],
        s: &Server<'_>,
        info: &RequestInfo<'_>,
        ex: Exchange<'_>,
        req: &[u8],
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
        if out.len() < MCP_MIN_RESPONSE_CAP {
            return Err(HandleError::BufferTooSmall);
        }
        match self.answer(buf, req) {
            Answer::Ready => return self.resume(buf, s, info, ex, out),
            Answer::Stored | Answer::Cancelled => return Ok(no_body(0, 202)),
            // JSON-RPC: a response is never answered.
            Answer::NotPending => return Ok(no_body(MCP_RPC_INVALID_REQUEST, 400)),
            Answer::NotResponse => {}
        }
        let asks = info.flags & INPUT_FLAGS != 0;
        let take = asks && !self.waiting() && CALL + req.len() + 64 <= buf.len();
        // The server's own copy of the request's information; one it cannot
        // hold open is run without the transport's input flags.
        let mut own = *info;
        if asks && !take {
            own.flags &= !INPUT_FLAGS;
        }
        let o = s.handle_in(&mut own, ex, req, out)?;
        if !take || !asks_input(&o, out) {
            return Ok(o);
        }
        if !self.start(buf, req) {
            return Ok(o); // cannot happen: the dispatcher just parsed it
        }
        Ok(self.round(buf, out, o.len))
    }

    /// Takes the client's message if it is a response to one of our
    /// requests, or its cancellation of the waiting call.
    #[inline(never)]
    pub fn answer(&mut self, buf: &mut [u8], msg: &[u8]) -> Answer {
        // A request or notification names its method: a cheap look first.
        let top = |k| crate::json::scan::top_level_member(msg, k);
        if let Some(method) = top(b"method") {
            return self.cancelled(buf, method, msg);
        }
        if top(b"result").is_none() && top(b"error").is_none() {
            return Answer::NotResponse;
        }
        let doc = check(msg, MCP_MAX_DEPTH).ok().map(|_| Doc::new(msg));
        let id = match &doc {
            Some(d) if d.kind(d.root()) == Some(Kind::Object) => {
                d.get(d.root(), "id").map(|t| d.raw(t))
            }
            Some(_) => return Answer::NotResponse,
            None => rpc::scan_id(msg),
        };
        let Some(k) = id.and_then(|raw| self.pending(raw)) else {
            return Answer::NotPending;
        };
        let Some(doc) = doc else {
            return self.fail(Why::AnswerTooBig);
        };
        let Some(result) = doc.get(doc.root(), "result") else {
            return self.fail(Why::ClientError);
        };
        if doc.kind(result) != Some(Kind::Object) {
            return self.fail(Why::AnswerNotObject);
        }
        let raw = doc.raw(result);
        let mut kb = [0u8; MCP_ROUNDTRIP_KEY_SPACE];
        let kn = self.key_into(buf, k, &mut kb);
        let comma = usize::from(self.answered != 0);
        let add = comma + kn + 1 + raw.len();
        if CALL + self.len as usize + add > buf.len() {
            return self.fail(Why::AnswersOverflow);
        }
        let at = CALL + self.at as usize;
        let end = CALL + self.len as usize;
        buf.copy_within(at..end, at + add);
        let mut w = at;
        let mut put = |b: &mut [u8], bytes: &[u8]| {
            if let Some(d) = b.get_mut(w..w + bytes.len()) {
                crate::json::copy_bytes(d, bytes);
            }
            w += bytes.len();
        };
        if comma == 1 {
            put(buf, b",");
        }
        put(buf, kb.get(..kn).unwrap_or(&[]));
        put(buf, b":");
        put(buf, raw);
        self.len += add as u32;
        self.ins += add as u32;
        self.at += add as u32;
        self.answered |= 1 << k;
        if u32::from(self.answered) == (1u32 << self.n) - 1 {
            self.phase = Phase::Ready;
            Answer::Ready
        } else {
            Answer::Stored
        }
    }

    /// Runs the waiting call again with every answer (or answers it with
    /// the failure): the final response, or the next round's requests.
    /// `None` when no call is ready.
    #[inline(never)]
    pub fn resume(
        &mut self,
        buf: &mut [u8],
        s: &Server<'_>,
        info: &RequestInfo<'_>,
        ex: Exchange<'_>,
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
        if out.len() < MCP_MIN_RESPONSE_CAP {
            return Err(HandleError::BufferTooSmall);
        }
        match self.phase {
            Phase::Ready => {}
            Phase::Failed(m) => return Ok(self.finish(buf, out, m)),
            Phase::Idle | Phase::Waiting => return Ok(no_body(0, 202)),
        }
        let end = CALL + self.len as usize;
        let o = s.handle_with(info, ex, buf.get(CALL..end).unwrap_or(&[]), out)?;
        if info.flags & INPUT_FLAGS != 0 && asks_input(&o, out) {
            return Ok(self.round(buf, out, o.len));
        }
        self.phase = Phase::Idle;
        Ok(o)
    }

    /// Ends the waiting call: writes its error `code` with `message` into
    /// `out` when given; returns the length (0 when nothing waited).
    pub fn cancel(
        &mut self,
        buf: &[u8],
        out: Option<&mut [u8]>,
        code: i32,
        message: &str,
    ) -> usize {
        if !self.waiting() {
            return 0;
        }
        self.phase = Phase::Idle;
        match out {
            Some(out) if out.len() >= MCP_MIN_RESPONSE_CAP => {
                let mut w = Writer::new(out);
                let id = buf.get(..usize::from(self.id_len)).unwrap_or(b"null");
                let e = RpcError {
                    code,
                    message: rpc::Message::Built("", ""),
                    data: rpc::Data::None,
                };
                rpc::write_error_with(&mut w, Some(id), &e, message.as_bytes());
                w.len()
            }
            _ => 0,
        }
    }

    /// A notification `notifications/cancelled` whose `requestId` is the
    /// waiting call's id (as written) abandons the call: the client gave up
    /// on it, so no response is sent (MCP cancellation) and the callback
    /// does not run again.
    fn cancelled(&mut self, buf: &[u8], method: &[u8], msg: &[u8]) -> Answer {
        let id = buf.get(..usize::from(self.id_len)).unwrap_or(&[]);
        let mine = self.waiting()
            && !id.is_empty()
            && method == br#""notifications/cancelled""#
            && check(msg, MCP_MAX_DEPTH).is_ok()
            && {
                let d = Doc::new(msg);
                d.get(d.root(), "params")
                    .and_then(|p| d.get(p, "requestId"))
                    .is_some_and(|r| d.raw(r) == id)
            };
        if !mine {
            return Answer::NotResponse;
        }
        self.phase = Phase::Idle;
        Answer::Cancelled
    }

    /// The index of the request of this round that `id` (raw JSON) answers.
    fn pending(&self, id: &[u8]) -> Option<usize> {
        if self.phase != Phase::Waiting || id.is_empty() || id.len() > 19 {
            return None;
        }
        let mut v: u64 = 0;
        for &b in id {
            if !b.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        }
        let k = usize::try_from(v.checked_sub(self.first_id)?).ok()?;
        (k < usize::from(self.n) && self.answered & (1 << k) == 0).then_some(k)
    }

    /// Copies the key of request `k` into `kb`; returns its length.
    fn key_into(&self, buf: &[u8], k: usize, kb: &mut [u8; MCP_ROUNDTRIP_KEY_SPACE]) -> usize {
        let off: usize = self.key_len.iter().take(k).map(|&l| usize::from(l)).sum();
        let n = usize::from(self.key_len.get(k).copied().unwrap_or(0));
        if let (Some(d), Some(src)) = (kb.get_mut(..n), buf.get(KEYS + off..KEYS + off + n)) {
            crate::json::copy_bytes(d, src);
        }
        n
    }

    fn fail(&mut self, m: Why) -> Answer {
        self.phase = Phase::Failed(m);
        Answer::Ready
    }

    /// The call's -32603 answer; the storage is free again.
    fn finish(&mut self, buf: &[u8], out: &mut [u8], m: Why) -> Outcome {
        let len = self.cancel(buf, Some(out), MCP_RPC_INTERNAL_ERROR, m.text());
        Outcome {
            len,
            rpc_error: MCP_RPC_INTERNAL_ERROR,
            http_status: rpc::http_status_legacy(MCP_RPC_INTERNAL_ERROR, false),
            ..Outcome::default()
        }
    }

    /// Keeps the call (its id and where its params open) for the rounds.
    #[inline(never)]
    fn start(&mut self, buf: &mut [u8], req: &[u8]) -> bool {
        if check(req, MCP_MAX_DEPTH).is_err() {
            return false;
        }
        let doc = Doc::new(req);
        let (Some(id), Some(p)) = (doc.get(doc.root(), "id"), doc.get(doc.root(), "params")) else {
            return false;
        };
        let id = doc.raw(id);
        if id.len() > MCP_MAX_ID_LEN || doc.kind(p) != Some(Kind::Object) {
            return false;
        }
        let Some(d) = buf.get_mut(..id.len()) else {
            return false;
        };
        crate::json::copy_bytes(d, id);
        let Some(dst) = buf.get_mut(CALL..CALL + req.len()) else {
            return false;
        };
        crate::json::copy_bytes(dst, req);
        self.id_len = id.len() as u8;
        self.len = req.len() as u32;
        self.head = (p + 1) as u32;
        self.ins = 0;
        self.params_empty = doc.members(p).next().is_none();
        self.rounds = 0;
        self.phase = Phase::Waiting;
        true
    }

    /// Turns the `input_required` result in `out[..n]` into this round's
    /// requests, written over it; keeps the keys and the state.
    #[inline(never)]
    fn round(&mut self, buf: &mut [u8], out: &mut [u8], n: usize) -> Outcome {
        self.rounds += 1;
        if usize::from(self.rounds) > MCP_ROUNDTRIP_MAX_ROUNDS {
            return self.finish(buf, out, Why::TooManyRounds);
        }
        // The previous round's answers and state leave the call.
        let (head, ins, end) = (
            CALL + self.head as usize,
            self.ins as usize,
            CALL + self.len as usize,
        );
        buf.copy_within(head + ins..end, head);
        self.len -= self.ins;
        self.ins = 0;
        let Some(split) = buf.len().checked_sub(n) else {
            return self.finish(buf, out, Why::RequestsOverflow);
        };
        if CALL + self.len as usize > split {
            return self.finish(buf, out, Why::RequestsOverflow);
        }
        let (work, copy) = buf.split_at_mut(split);
        crate::json::copy_bytes(copy, out.get(..n).unwrap_or(&[]));
        if check(copy, MCP_MAX_DEPTH).is_err() {
            return self.finish(work, out, Why::RequestsTokens);
        }
        let doc = Doc::new(copy);
        let result = doc.get(doc.root(), "result");
        let requests = result
            .and_then(|r| doc.get(r, "inputRequests"))
            .filter(|&q| doc.kind(q) == Some(Kind::Object));
        let state = result.and_then(|r| doc.get(r, "requestState"));
        let Some(requests) = requests else {
            return self.finish(work, out, Why::Malformed);
        };
        // Keys first: a round with too many, or too long, fails whole.
        let mut count = 0usize;
        let mut koff = 0usize;
        for (k, v) in doc.members(requests) {
            let key = doc.raw(k);
            if count == MCP_ROUNDTRIP_MAX_REQUESTS || koff + key.len() > MCP_ROUNDTRIP_KEY_SPACE {
                return self.finish(work, out, Why::TooManyRequests);
            }
            if doc.kind(v) != Some(Kind::Object) || doc.members(v).next().is_none() {
                return self.finish(work, out, Why::Malformed);
            }
            if let Some(d) = work.get_mut(KEYS + koff..KEYS + koff + key.len()) {
                crate::json::copy_bytes(d, key);
            }
            if let Some(l) = self.key_len.get_mut(count) {
                *l = key.len() as u8;
            }
            koff += key.len();
            count += 1;
        }
        if count == 0 {
            return self.finish(work, out, Why::Malformed);
        }
        // The insertion: "inputResponses":{}[,"requestState":S][,]
        let s = state.map_or(&[][..], |t| doc.raw(t));
        let ins = K_INPUTS.len()
            + 1
            + if s.is_empty() {
                0
            } else {
                K_STATE.len() + s.len()
            }
            + usize::from(!self.params_empty);
        let (head, end) = (CALL + self.head as usize, CALL + self.len as usize);
        if end + ins > split {
            return self.finish(work, out, Why::RequestsOverflow);
        }
        work.copy_within(head..end, head + ins);
        let mut w = head;
        for part in [K_INPUTS, b"}", if s.is_empty() { b"" } else { K_STATE }, s] {
            if let Some(d) = work.get_mut(w..w + part.len()) {
                crate::json::copy_bytes(d, part);
            }
            w += part.len();
        }
        if !self.params_empty {
            if let Some(b) = work.get_mut(w) {
                *b = b',';
            }
        }
        self.ins = ins as u32;
        self.len += ins as u32;
        self.at = self.head + K_INPUTS.len() as u32;
        // The requests, one per line, over the result in `out`.
        self.first_id = self.next_id;
        let mut pos = 0usize;
        for (i, (_, v)) in doc.members(requests).enumerate() {
            let raw = doc.raw(v);
            let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
            if i > 0 {
                match out.get_mut(pos) {
                    Some(b) => *b = b'\n',
                    None => return self.finish(work, out, Why::RequestsOut),
                }
                pos += 1;
            }
            let mut wr = Writer::new(out.get_mut(pos..).unwrap_or_default());
            let ok = wr.begin_object().is_ok()
                && wr.raw_members(br#""jsonrpc":"2.0""#).is_ok()
                && wr.key("id").is_ok()
                && wr.int(self.first_id.wrapping_add(i as u64) as i64).is_ok()
                && wr.raw_members(inner).is_ok()
                && wr.end_object().is_ok();
            if !ok {
                return self.finish(work, out, Why::RequestsOut);
            }
            pos += wr.len();
        }
        self.next_id = self.first_id.wrapping_add(count as u64) & (i64::MAX as u64);
        self.n = count as u8;
        self.answered = 0;
        self.phase = Phase::Waiting;
        Outcome {
            len: pos,
            rpc_error: 0,
            http_status: 200,
            client: MCP_RESPONSE_CLIENT_REQUEST as u8,
            ..Outcome::default()
        }
    }
}

fn no_body(rpc_error: i32, http_status: u16) -> Outcome {
    Outcome {
        len: 0,
        rpc_error,
        http_status,
        ..Outcome::default()
    }
}

/// True when the core answered a legacy-era call with `input_required`.
fn asks_input(o: &Outcome, out: &[u8]) -> bool {
    o.rpc_error == 0 && out.get(..o.len).is_some_and(|r| r.ends_with(INPUT_TAIL))
}
