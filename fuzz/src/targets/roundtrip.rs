//! The legacy server-to-client round trip (src/roundtrip.rs): a sequence of
//! calls, client answers (right, wrong, repeated ids; results, errors,
//! garbage) and raw messages through `RoundTrip::handle`, with guard bytes
//! after the response buffer and the round-trip buffer.
//!
//! Invariants: nothing is written past either buffer; a `client_request`
//! output is one or more JSON-RPC requests, one per line, with numeric ids
//! never sent before; any other output is one JSON-RPC response; no output
//! at all is a notification (202), a stored answer (202) or an unmatched
//! response (400); a call's final answer carries the call's own id.
use arbitrary::Arbitrary;
use emcp::call::RequestInfo;
use emcp::limits::{MCP_MIN_RESPONSE_CAP, MCP_ROUNDTRIP_MIN_BUF};
use emcp::protocol::envelope::{MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_SAMPLING};
use emcp::roundtrip::RoundTrip;
use emcp::server::Exchange;

use crate::fixture;

const GUARD: u8 = 0xA5;
const GUARD_LEN: usize = 16;

#[derive(Arbitrary, Debug)]
enum Op {
    /// tools/call of a fixture tool (index into fixture::TOOLS) with this id.
    Call { tool: u8, id: u16, pad: u8 },
    /// The client's answer to the id last sent plus `delta`.
    Answer { delta: i8, kind: u8 },
    /// Any bytes.
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Round-trip buffer beyond MCP_ROUNDTRIP_MIN_BUF (0..=1023 bytes).
    buf_extra: u16,
    /// Response buffer (MCP_MIN_RESPONSE_CAP - 8 ..= +1015 bytes).
    out_extra: u16,
    /// Transport flags: bit 0 elicitation, bit 1 sampling.
    flags: u8,
    ops: Vec<Op>,
}

/// One fuzz input (decoded with `arbitrary` as cargo-fuzz does).
pub fn run(data: &[u8]) {
    let Ok(inp) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let server = fixture::shared();
    let bcap = MCP_ROUNDTRIP_MIN_BUF + usize::from(inp.buf_extra % 1024);
    let ocap = MCP_MIN_RESPONSE_CAP - 8 + usize::from(inp.out_extra % 1024);
    let mut buf = vec![GUARD; bcap + GUARD_LEN];
    let mut out = vec![GUARD; ocap + GUARD_LEN];
    let mut flags = 0;
    if inp.flags & 1 != 0 {
        flags |= MCP_CTX_LEGACY_ELICITATION;
    }
    if inp.flags & 2 != 0 {
        flags |= MCP_CTX_LEGACY_SAMPLING;
    }
    let info = RequestInfo {
        flags,
        ..RequestInfo::default()
    };
    let mut rt = RoundTrip::new(1);
    let mut last_sent: u64 = 0;
    let mut waiting_call: Option<String> = None;
    for op in inp.ops.iter().take(64) {
        let msg = match op {
            Op::Call { tool, id, pad } => {
                let name = fixture::TOOLS[usize::from(*tool) % fixture::TOOLS.len()];
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{"p":"{}"}}}}}}"#,
                    "x".repeat(usize::from(*pad) * 4)
                )
                .into_bytes()
            }
            Op::Answer { delta, kind } => {
                let id = last_sent.wrapping_add_signed(i64::from(*delta));
                let body = match kind % 5 {
                    0 => r#""result":{"action":"accept","content":{"ok":true}}"#.to_string(),
                    1 => r#""result":{"action":"decline"}"#.to_string(),
                    2 => r#""error":{"code":-1,"message":"no"}"#.to_string(),
                    3 => r#""result":[1,2]"#.to_string(),
                    _ => format!(r#""result":{{"big":"{}"}}"#, "y".repeat(700)),
                };
                format!(r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#).into_bytes()
            }
            Op::Raw(b) => b.clone(),
        };
        let was_waiting = rt.waiting();
        let res = rt.handle(
            &mut buf[..bcap],
            server,
            &info,
            Exchange::default(),
            &msg,
            &mut out[..ocap],
        );
        assert!(
            buf[bcap..].iter().all(|&b| b == GUARD),
            "wrote past the round-trip buffer"
        );
        assert!(
            out[ocap..].iter().all(|&b| b == GUARD),
            "wrote past the response buffer"
        );
        let Ok(o) = res else {
            assert!(ocap < MCP_MIN_RESPONSE_CAP);
            return;
        };
        assert!(o.len <= ocap);
        let text = String::from_utf8_lossy(&out[..o.len]).into_owned();
        if o.len == 0 {
            assert!(
                matches!(o.http_status, 202 | 400),
                "{} {text}",
                o.http_status
            );
            continue;
        }
        if o.client_request() {
            assert!(rt.waiting());
            for line in text.split('\n') {
                let v: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("request line is not JSON ({e}): {line}"));
                assert_eq!(v["jsonrpc"], "2.0", "{line}");
                let id = v["id"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("non-numeric id: {line}"));
                assert!(id > last_sent, "id {id} reused: {line}");
                last_sent = id;
                assert!(v["method"].is_string(), "{line}");
            }
            if !was_waiting {
                let req: serde_json::Value = serde_json::from_slice(&msg).expect("a call");
                waiting_call = Some(req["id"].to_string());
            }
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("response is not one JSON value ({e}): {text}"));
        assert_eq!(v["jsonrpc"], "2.0", "{text}");
        assert!(
            v.get("result").is_some() ^ v.get("error").is_some(),
            "{text}"
        );
        if was_waiting && !rt.waiting() {
            // The waiting call ended: unless this message was a request of its
            // own, the answer is the call's.
            let own: Option<serde_json::Value> = serde_json::from_slice(&msg).ok();
            let is_request = own.as_ref().is_some_and(|m| m.get("method").is_some());
            if !is_request {
                assert_eq!(Some(v["id"].to_string()), waiting_call, "{text}");
            }
        }
    }
}
