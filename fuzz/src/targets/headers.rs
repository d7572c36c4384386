//! The HTTP routing-header comparison through Server::handle: arbitrary
//! MCP-Protocol-Version, Mcp-Method and Mcp-Name spans (plain, padded,
//! =?base64?...?= encoded, malformed, arbitrary bytes) and context flags,
//! on structure-aware requests.
//!
//! Besides the per-exchange invariants: when a tool ran in the 2026-07-28 era,
//! every routing header that was given decodes (by this harness's own
//! decoder) to exactly the body's value; over HTTP (MCP_CTX_HTTP) the three
//! headers were all present; a duplicate-header flag never lets a tool run
//! in that era.
use crate::gen::{b64, decode_header, Req};
use arbitrary::Arbitrary;
use emcp::call::RequestInfo;
use emcp::protocol::envelope::{MCP_CTX_DUPLICATE_HEADER, MCP_CTX_HTTP};

#[derive(Arbitrary, Debug)]
enum Hdr {
    Absent,
    Same,
    SameBase64,
    SameBase64Unpadded,
    Padded(u8),
    Upper,
    Other(String),
    Bytes(Vec<u8>),
    Base64Of(String),
    Encoded(Vec<u8>),
}

fn header(h: &Hdr, right: Option<&str>) -> Option<Vec<u8>> {
    let r = right.unwrap_or("");
    Some(match h {
        Hdr::Absent => return None,
        Hdr::Same => r.as_bytes().to_vec(),
        Hdr::SameBase64 => format!("=?base64?{}?=", b64(r.as_bytes())).into_bytes(),
        Hdr::SameBase64Unpadded => {
            format!("=?base64?{}?=", b64(r.as_bytes()).trim_end_matches('=')).into_bytes()
        }
        Hdr::Padded(p) => {
            let pad = [" ", "\t", "  \t", ""][usize::from(*p) % 4];
            format!("{pad}{r}{pad}").into_bytes()
        }
        Hdr::Upper => r.to_uppercase().into_bytes(),
        Hdr::Other(s) => s.clone().into_bytes(),
        Hdr::Bytes(b) => b.clone(),
        Hdr::Base64Of(s) => format!("=?base64?{}?=", b64(s.as_bytes())).into_bytes(),
        Hdr::Encoded(b) => {
            let mut v = b"=?base64?".to_vec();
            v.extend_from_slice(b);
            v.extend_from_slice(b"?=");
            v
        }
    })
}

#[derive(Arbitrary, Debug)]
struct Input {
    req: Req,
    version: Hdr,
    method: Hdr,
    name: Hdr,
    flags: u8,
}

/// One fuzz input (decoded with `arbitrary` as cargo-fuzz does).
pub fn run(data: &[u8]) {
    let Ok(inp) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let server = crate::fixture::shared();
    let text = inp.req.text();
    let pv = header(&inp.version, inp.req.version().or(Some("2026-07-28")));
    let me = header(&inp.method, inp.req.method.name());
    let tool = inp.req.tool_name();
    let na = header(&inp.name, tool.as_deref());
    let flags = u32::from(inp.flags & 7);
    let info = RequestInfo {
        hdr_protocol_version: pv.as_deref(),
        hdr_method: me.as_deref(),
        hdr_name: na.as_deref(),
        flags,
        ..RequestInfo::default()
    };
    let before = crate::fixture::calls();
    let ex = crate::check::all(server, &info, &text);
    let ran = crate::fixture::calls() > before;
    let modern = ex.response.windows(13).any(|w| w == b"\"resultType\":");
    if ran && modern && ex.outcome.rpc_error == 0 {
        let show = || {
            format!(
                "{info:?} {}",
                String::from_utf8_lossy(&text),
                info = (&pv, &me, &na, flags)
            )
        };
        let called = crate::fixture::last_tool();
        if let Some(h) = &na {
            assert_eq!(
                decode_header(h).as_deref(),
                Some(called.as_bytes()),
                "Mcp-Name: {}",
                show()
            );
        }
        if let Some(h) = &me {
            assert_eq!(
                decode_header(h).as_deref(),
                Some(&b"tools/call"[..]),
                "Mcp-Method: {}",
                show()
            );
        }
        if let Some(h) = &pv {
            assert_eq!(
                decode_header(h).as_deref(),
                Some(&b"2026-07-28"[..]),
                "MCP-Protocol-Version: {}",
                show()
            );
        }
        if flags & MCP_CTX_HTTP != 0 {
            assert!(
                pv.is_some() && me.is_some() && na.is_some(),
                "HTTP without headers: {}",
                show()
            );
        }
        assert_eq!(
            flags & MCP_CTX_DUPLICATE_HEADER,
            0,
            "ran with a duplicate header: {}",
            show()
        );
    }
}
