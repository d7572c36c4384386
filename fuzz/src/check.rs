//! The invariants of one exchange with `Server::handle`.

use crate::fixture;
use crate::tree::{self, J};
use emcp::call::RequestInfo;
use emcp::limits::{MCP_MAX_ID_LEN, MCP_MIN_RESPONSE_CAP};
use emcp::protocol::listen::Listener;
use emcp::rpc::short;
use emcp::server::{HandleError, Outcome, Server};

/// Filled into the response buffer past the capacity handed to `handle`.
pub const GUARD: u8 = 0xA5;
/// Guard bytes after the capacity.
pub const GUARD_LEN: usize = 64;

/// What one exchange produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The response bytes (`out[..len]`).
    pub response: Vec<u8>,
    /// The outcome.
    pub outcome: Outcome,
    /// Handler invocations during this exchange.
    pub calls: usize,
}

/// What the request is, read independently with serde_json.
struct ReqView {
    /// The request parsed as a JSON object.
    object: bool,
    /// The first `id` member's raw text, if any.
    id: Option<String>,
    /// An `id` member exists.
    has_id: bool,
    /// First `jsonrpc` is "2.0" and first `method` is a string.
    envelope_ok: bool,
}

/// True when `id` stands in `req` as the value of an `"id"` member:
/// `"id"`, optional whitespace, `:`, optional whitespace, then `id`'s bytes.
fn is_id_member(req: &[u8], id: &str) -> bool {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    (0..req.len()).any(|at| {
        let Some(rest) = req[at..].strip_prefix(b"\"id\"".as_slice()) else {
            return false;
        };
        let rest = &rest[rest.iter().take_while(|b| ws(b)).count()..];
        let Some(rest) = rest.strip_prefix(b":".as_slice()) else {
            return false;
        };
        let rest = &rest[rest.iter().take_while(|b| ws(b)).count()..];
        rest.starts_with(id.as_bytes())
    })
}

fn view(req: &[u8]) -> ReqView {
    let none = ReqView {
        object: false,
        id: None,
        has_id: false,
        envelope_ok: false,
    };
    let Some(top) = tree::top(req) else {
        return none;
    };
    let Some(m) = tree::members(top) else {
        return none;
    };
    let id = tree::first(&m, "id");
    ReqView {
        object: true,
        id: id.map(|i| tree::text(i).to_string()),
        has_id: id.is_some(),
        envelope_ok: tree::first(&m, "jsonrpc").and_then(tree::string).as_deref() == Some("2.0")
            && tree::first(&m, "method").is_some_and(|v| matches!(tree::open(v), Some(J::Str(_)))),
    }
}

/// Runs `handle` with a response capacity of `cap` inside a larger buffer of
/// guard bytes, and asserts every per-exchange invariant.
pub fn exchange(server: &Server<'_>, info: &RequestInfo<'_>, req: &[u8], cap: usize) -> Exchange {
    let mut buf = vec![GUARD; cap + GUARD_LEN];
    let before = fixture::calls();
    let others_before = fixture::other_calls();
    // A transport that can stream (an emit hook) offers listener storage.
    let mut listener = Listener::new();
    let ex = emcp::server::Exchange {
        listener: info.emit.is_some().then_some(&mut listener),
        ..Default::default()
    };
    let res = server.handle_with(info, ex, req, &mut buf[..cap]);
    let calls = fixture::calls() - before;
    let others = fixture::other_calls() - others_before;
    let show = || String::from_utf8_lossy(req).into_owned();
    assert!(
        buf[cap..].iter().all(|&b| b == GUARD),
        "wrote past the response capacity {cap}: {}",
        show()
    );
    let outcome = match res {
        Ok(o) => o,
        Err(HandleError::BufferTooSmall) => {
            assert!(cap < MCP_MIN_RESPONSE_CAP, "BufferTooSmall with cap {cap}");
            assert!(
                buf.iter().all(|&b| b == GUARD),
                "BufferTooSmall but the buffer was written"
            );
            assert_eq!(
                calls + others,
                0,
                "a handler ran although the buffer was too small"
            );
            return Exchange {
                response: Vec::new(),
                outcome: Outcome::default(),
                calls,
            };
        }
    };
    assert!(cap >= MCP_MIN_RESPONSE_CAP, "handled with cap {cap}");
    // Server-to-client requests come only through round-trip storage
    // (fuzz target roundtrip), never from handle_with.
    assert!(
        !outcome.client_request(),
        "client requests without storage: {}",
        show()
    );
    // Client capabilities are reported only on a successful initialize.
    if outcome.client_caps() != 0 {
        let method = tree::top(req)
            .and_then(tree::members)
            .and_then(|m| tree::first(&m, "method").and_then(tree::string));
        assert_eq!(method.as_deref(), Some("initialize"), "{}", show());
        assert_eq!(outcome.rpc_error, 0, "{}", show());
    }
    assert!(outcome.len <= cap, "len {} > cap {cap}", outcome.len);
    assert!(
        calls + others <= 1,
        "{calls} tool and {others} other callback runs for one request: {}",
        show()
    );
    let resp = buf[..outcome.len].to_vec();
    let rv = view(req);
    if resp.is_empty() {
        // Nothing is sent only for a notification: an object with a valid
        // envelope and no id. It never runs a tool.
        assert!(
            rv.object && !rv.has_id && rv.envelope_ok,
            "no response to a message that is not a notification: {}",
            show()
        );
        assert_eq!(
            calls + others,
            0,
            "a notification ran a callback: {}",
            show()
        );
        assert!(!outcome.listen);
        assert_eq!(outcome.http_status, 202);
        assert_eq!(outcome.rpc_error, 0);
        return Exchange {
            response: resp,
            outcome,
            calls,
        };
    }
    let text = String::from_utf8_lossy(&resp).into_owned();
    // Exactly one JSON value (serde_json), and an object with jsonrpc, id,
    // result|error. An id like 1e400 is echoed as written: valid JSON that
    // serde_json's Value cannot hold, so "number out of range" is accepted
    // when the span reader (which does not convert numbers) reads it.
    if let Err(e) = serde_json::from_slice::<serde_json::Value>(&resp) {
        assert!(
            e.to_string().starts_with("number out of range"),
            "response is not one JSON value ({e}): {text}\nrequest: {}",
            show()
        );
    }
    let top = tree::top(&resp).unwrap_or_else(|| panic!("response is not one JSON value: {text}"));
    assert!(
        tree::tokens_and_depth(top).is_some(),
        "response does not parse at every level: {text}"
    );
    let m = tree::members(top).unwrap_or_else(|| panic!("response not an object: {text}"));
    let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
    if outcome.listen {
        // The acknowledgement of a listen stream: a notification tagged with
        // the request's id, and no callback ran.
        assert_eq!(keys, ["jsonrpc", "method", "params"], "{text}");
        assert_eq!(
            tree::first(&m, "method").and_then(tree::string).as_deref(),
            Some("notifications/subscriptions/acknowledged"),
            "{text}"
        );
        let params =
            tree::members(tree::first(&m, "params").expect("params")).expect("params object");
        let meta =
            tree::members(tree::first(&params, "_meta").expect("_meta")).expect("_meta object");
        let sub =
            tree::text(tree::first(&meta, "io.modelcontextprotocol/subscriptionId").expect("tag"));
        assert_eq!(
            Some(sub),
            rv.id.as_deref(),
            "subscriptionId is not the request id: {text}"
        );
        assert_eq!(calls + others, 0, "{text}");
        assert_eq!((outcome.rpc_error, outcome.http_status), (0, 200));
        return Exchange {
            response: resp,
            outcome,
            calls,
        };
    }
    let kind = match keys.as_slice() {
        ["jsonrpc", "id", k @ ("result" | "error")] => *k,
        _ => panic!("response members {keys:?}: {text}"),
    };
    assert_eq!(
        tree::first(&m, "jsonrpc").and_then(tree::string).as_deref(),
        Some("2.0"),
        "{text}"
    );
    let id = tree::text(tree::first(&m, "id").expect("id"));
    if id != "null" {
        match rv.id.as_deref() {
            Some(want) => assert_eq!(
                id,
                want,
                "response id is not the request's id byte for byte: {text}\nrequest: {}",
                show()
            ),
            // The oracle could not read the request either (a limit
            // refusal found its id by the core's bounded scan): the id must
            // still be the request's own bytes after an "id" member key.
            None => assert!(
                is_id_member(req, id),
                "response id is not an id member of the request: {text}\nrequest: {}",
                show()
            ),
        }
        assert!(id.len() <= MCP_MAX_ID_LEN);
    }
    if calls > 0 {
        assert_ne!(
            id, "null",
            "a tool ran but the response has id null: {text}"
        );
    }
    let body = tree::members(tree::first(&m, kind).expect("body"))
        .unwrap_or_else(|| panic!("{kind} is not an object: {text}"));
    match kind {
        "result" => {
            assert_eq!(outcome.rpc_error, 0, "{text}");
            assert_ne!(id, "null", "a result with id null: {text}");
        }
        _ => {
            let code = tree::first(&body, "code").map(tree::text);
            assert_eq!(code, Some(outcome.rpc_error.to_string().as_str()), "{text}");
            assert_ne!(outcome.rpc_error, 0, "{text}");
            assert!(
                tree::first(&body, "message")
                    .and_then(tree::string)
                    .is_some(),
                "{text}"
            );
        }
    }
    assert_ne!(
        outcome.http_status, 202,
        "a response with status 202: {text}"
    );
    Exchange {
        response: resp,
        outcome,
        calls,
    }
}

/// The full set of checks for one request: twice at a roomy capacity (same
/// output both times), at the smallest capacity, at one derived from the
/// input, and once below the minimum (refused, buffer untouched).
pub fn all(server: &Server<'_>, info: &RequestInfo<'_>, req: &[u8]) -> Exchange {
    let a = exchange(server, info, req, 4096);
    let b = exchange(server, info, req, 4096);
    assert_eq!(
        a,
        b,
        "same input, different output: {}",
        String::from_utf8_lossy(req)
    );
    let small = exchange(server, info, req, MCP_MIN_RESPONSE_CAP);
    let mid = MCP_MIN_RESPONSE_CAP + (req.len().wrapping_mul(31) % 600);
    let m = exchange(server, info, req, mid);
    // A response that fits a smaller buffer is the same response there (no
    // hidden dependency on the capacity). Not for tools/list, whose page size
    // follows the buffer.
    // One intended dependency: a tool whose result might not fit the
    // buffer is refused before its callback runs (the core cannot know the
    // callback would have answered with something small), and then it ran
    // nowhere at that capacity.
    for (e, cap) in [(&small, MCP_MIN_RESPONSE_CAP), (&m, mid)] {
        if is_space_refusal(&e.response) {
            assert_eq!(
                e.calls,
                0,
                "refused for space but ran: {}",
                String::from_utf8_lossy(req)
            );
            continue;
        }
        if a.response.len() <= cap && !is_list(&a.response) {
            assert_eq!(
                String::from_utf8_lossy(&e.response),
                String::from_utf8_lossy(&a.response),
                "cap {cap} changed a response that fits; request: {}",
                String::from_utf8_lossy(req)
            );
        }
    }
    let _ = exchange(server, info, req, MCP_MIN_RESPONSE_CAP - 1);
    a
}

/// The answer to a tools/call refused because the buffer cannot hold the
/// tool's result, read from its message: the full form (`Response buffer of
/// N bytes cannot hold this tool's result (needs M): the tool did not run`)
/// or its short form ([`short::NO_SPACE`]). Any other error, degraded or not,
/// names a different cause and says nothing about whether the tool ran.
fn is_space_refusal(resp: &[u8]) -> bool {
    let Some(m) = tree::top(resp).and_then(tree::members) else {
        return false;
    };
    let Some(err) = tree::first(&m, "error").and_then(tree::members) else {
        return false;
    };
    let code = tree::first(&err, "code").map(tree::text);
    let message = tree::first(&err, "message").and_then(tree::string);
    code == Some("-32603")
        && message.is_some_and(|t| {
            t == short::NO_SPACE
                || (t.starts_with("Response buffer of ")
                    && t.contains(" bytes cannot hold this tool's result (needs ")
                    && t.ends_with("): the tool did not run"))
        })
}

fn is_list(resp: &[u8]) -> bool {
    [
        &b"\"tools\":"[..],
        b"\"resources\":",
        b"\"resourceTemplates\":",
        b"\"prompts\":",
    ]
    .iter()
    .any(|k| resp.windows(k.len()).any(|w| w == *k))
}
