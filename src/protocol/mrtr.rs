//! Multi-round-trip requests (2026-07-28 `input_required`): which client
//! capabilities a request declared, and the integrity-protected
//! `requestState` a tool hands to the client and gets back on the retry.
//!
//! A state token is base64 of `[1][state bytes][MAC]`, where the MAC covers a
//! domain label, the tool name and the state, so a token cannot be altered or
//! replayed against another tool. The key (or a MAC hook using the device's
//! own crypto) comes from the firmware.

use crate::call::{Finished, caps};
use crate::json::{Doc, Kind, WriteError, Writer};
use crate::limits::{MCP_MAX_REQUEST_STATE, MCP_RPC_INVALID_PARAMS, MCP_RPC_MISSING_CAPABILITY};
use crate::mac::{self, MCP_MAC_LEN};
use crate::rpc::{Data, Request, RpcError};
use crate::state::Fail;

pub use crate::mac::{MacFn, StateMac};

/// The client capabilities the request declared, as [`caps`] bits.
pub fn declared_caps(req: &Request<'_>) -> u8 {
    let doc = &req.doc;
    let Some(c) = req
        .meta_caps()
        .filter(|&c| doc.kind(c) == Some(Kind::Object))
    else {
        return 0;
    };
    // One pass over the members; the first member of a name decides.
    let (mut seen, mut bits) = (0u8, 0u8);
    for e in doc.entries(c) {
        let bit = if e.is(b"elicitation") {
            caps::ELICITATION
        } else if e.is(b"sampling") {
            caps::SAMPLING
        } else if e.is(b"roots") {
            caps::ROOTS
        } else {
            continue;
        };
        if seen & bit == 0 && doc.kind(e.val) == Some(Kind::Object) {
            bits |= bit;
        }
        seen |= bit;
    }
    bits
}

/// The input capabilities a legacy `initialize` request declares (objects
/// under `params.capabilities`), as `MCP_CTX_LEGACY_*` bits (the same
/// values as `MCP_RESPONSE_CLIENT_*`).
pub fn initialize_caps(req: &Request<'_>) -> u8 {
    use crate::call::{MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_ROOTS, MCP_CTX_LEGACY_SAMPLING};
    let doc = &req.doc;
    let Some(c) = req
        .param("capabilities")
        .filter(|&c| doc.kind(c) == Some(Kind::Object))
    else {
        return 0;
    };
    let mut bits = 0u32;
    for (name, bit) in [
        ("elicitation", MCP_CTX_LEGACY_ELICITATION),
        ("sampling", MCP_CTX_LEGACY_SAMPLING),
        ("roots", MCP_CTX_LEGACY_ROOTS),
    ] {
        if doc
            .get(c, name)
            .is_some_and(|v| doc.kind(v) == Some(Kind::Object))
        {
            bits |= bit;
        }
    }
    bits as u8
}

pub use crate::call::legacy_caps;

/// Writes the `requestState` string for `state`.
pub fn write_state(
    w: &mut Writer<'_>,
    m: &StateMac,
    tool: &[u8],
    state: &[u8],
) -> Result<(), WriteError> {
    let Some(tag) = m.mac(tool, state) else {
        return Err(WriteError::Misuse);
    };
    let mut token = [0u8; 1 + MCP_MAX_REQUEST_STATE + MCP_MAC_LEN];
    let n = 1 + state.len() + MCP_MAC_LEN;
    let dst = token.get_mut(..n).ok_or(WriteError::Misuse)?;
    if let Some((version, rest)) = dst.split_first_mut() {
        *version = 1;
        let (s, t) = rest.split_at_mut(state.len());
        crate::json::copy_bytes(s, state);
        crate::json::copy_bytes(t, &tag);
    }
    w.base64(token.get(..n).unwrap_or(&[]))
}

/// Checks the `requestState` string at token `t` for `tool`; returns the
/// state length in `out`, or `None` for a malformed or tampered token.
#[inline(never)]
pub fn verify_state(
    m: &StateMac,
    tool: &[u8],
    doc: &Doc<'_>,
    t: usize,
    out: &mut [u8; MCP_MAX_REQUEST_STATE],
) -> Option<usize> {
    let text = doc.str_inner(t).filter(|_| !doc.escaped(t))?;
    let mut raw = [0u8; 1 + MCP_MAX_REQUEST_STATE + MCP_MAC_LEN];
    let n = super::envelope::base64_decode(text, &mut raw)?;
    let token = raw.get(..n)?;
    let (&version, rest) = token.split_first()?;
    let state_len = rest.len().checked_sub(MCP_MAC_LEN)?;
    let (state, tag) = rest.split_at(state_len);
    if version != 1 || !mac::equal(&m.mac(tool, state)?, tag) {
        return None;
    }
    crate::json::copy_bytes(out.get_mut(..state_len)?, state);
    Some(state_len)
}

/// The verified `requestState` of a retried request, bound to `binding`
/// (a tool name, `prompt:<name>` or `resource:<uri>`): its length in `out`,
/// `None` without one, -32602 for a tampered or foreign one.
pub fn request_state<'r>(
    req: &Request<'r>,
    m: &StateMac,
    binding: &[u8],
    out: &mut [u8; MCP_MAX_REQUEST_STATE],
) -> Result<Option<usize>, Fail<'r>> {
    let Some(t) = req.request_state() else {
        return Ok(None);
    };
    // Without the `mrtr` feature no state was ever issued: every one is refused.
    let verified = if cfg!(feature = "mrtr") {
        verify_state(m, binding, &req.doc, t, out)
    } else {
        None
    };
    verified.map(Some).ok_or(Fail::Rpc(RpcError::new(
        MCP_RPC_INVALID_PARAMS,
        "Invalid requestState",
    )))
}

/// -32021 naming the capability an input request needed.
pub fn missing_capability<'r>(bit: u8) -> Fail<'r> {
    Fail::Rpc(
        RpcError::new(
            MCP_RPC_MISSING_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(Data::Capability(caps::name(bit))),
    )
}

/// Closes an input_required result: the `inputRequests` object, the
/// protected `requestState` when the callback set one, and `resultType`.
#[inline(never)]
pub fn close_input_required(
    w: &mut Writer<'_>,
    m: &StateMac,
    binding: &[u8],
    finished: &Finished,
    state: &[u8],
) -> Result<(), WriteError> {
    w.end_object()?; // inputRequests
    if let Some(n) = finished.state.filter(|_| cfg!(feature = "mrtr")) {
        w.key("requestState")?;
        write_state(w, m, binding, state.get(..n).unwrap_or(&[]))?;
    }
    w.kv_str("resultType", "input_required")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::check;

    fn roundtrip(
        m: &StateMac,
        tool: &str,
        verify_as: &str,
        tamper: Option<usize>,
    ) -> Option<Vec<u8>> {
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        write_state(&mut w, m, tool.as_bytes(), b"percent=90").unwrap();
        let mut text = w.as_bytes().to_vec();
        if let Some(i) = tamper {
            text[i] = if text[i] == b'A' { b'B' } else { b'A' };
        }
        check(&text, 2).unwrap();
        let doc = Doc::new(&text);
        let mut out = [0u8; MCP_MAX_REQUEST_STATE];
        verify_state(m, verify_as.as_bytes(), &doc, 0, &mut out).map(|n| out[..n].to_vec())
    }

    /// The capabilities a request declares: objects only, the first member
    /// of a name decides (as a lookup would), escaped names decoded.
    #[test]
    fn declared_caps_reads_the_first_member_of_each_name() {
        let caps_of = |c: &str| {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{c}}}}}}}"#
            );
            let Ok(req) = crate::rpc::read_request(text.as_bytes()) else {
                panic!("{text}")
            };
            declared_caps(&req)
        };
        use caps::{ELICITATION as E, ROOTS as R, SAMPLING as S};
        for (c, want) in [
            ("{}", 0),
            ("[]", 0),
            (r#"{"elicitation":{}}"#, E),
            (
                r#"{"sampling":{},"roots":{"listChanged":true},"x":{}}"#,
                S | R,
            ),
            (r#"{"elicitation":true,"sampling":null,"roots":[]}"#, 0),
            (r#"{"elicitation":1,"elicitation":{}}"#, 0),
            (r#"{"roots":{},"roots":1}"#, R),
            (r#"{"s\u0061mpling":{},"el":{}}"#, S),
        ] {
            assert_eq!(caps_of(c), want, "{c}");
        }
    }

    #[test]
    fn state_is_bound_to_key_tool_and_content() {
        let mut key = [0u8; 64];
        key[..16].copy_from_slice(b"0123456789abcdef");
        let m = StateMac::Key(key, 16);
        assert_eq!(
            roundtrip(&m, "set_vent", "set_vent", None).as_deref(),
            Some(&b"percent=90"[..])
        );
        assert_eq!(roundtrip(&m, "set_vent", "read_sensor", None), None);
        for i in [1, 5, 20, 40] {
            assert_eq!(
                roundtrip(&m, "set_vent", "set_vent", Some(i)),
                None,
                "byte {i}"
            );
        }
        let mut other = key;
        other[0] = b'X';
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        write_state(
            &mut w,
            &StateMac::Key(other, 16),
            b"set_vent",
            b"percent=90",
        )
        .unwrap();
        let text = w.as_bytes().to_vec();
        check(&text, 2).unwrap();
        let mut out = [0u8; MCP_MAX_REQUEST_STATE];
        assert_eq!(
            verify_state(&m, b"set_vent", &Doc::new(&text), 0, &mut out),
            None
        );
        assert!(!StateMac::None.enabled());
    }
}
