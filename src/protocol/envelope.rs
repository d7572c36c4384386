//! The 2026-07-28 request envelope (`params._meta`) and the routing headers
//! a transport passes in, checked in the order the reference SDK uses:
//! envelope present (-32602), headers match body (-32020), version is a
//! string (-32602), version supported (-32022).

use super::{Era, MODERN_VERSION};
use crate::call::RequestInfo;
use crate::json::doc::exact_int;
use crate::json::{Doc, Kind};
use crate::limits::*;
use crate::registry::Def;
use crate::rpc::{Data, Message, Request, RpcError};
#[cfg(feature = "text-tools")]
use crate::schema::Schema;
use crate::schema::compile::same_text;
use crate::schema::program::{self, HAS_HEADER, PNode};

// The `mcp_request_ctx_t.flags` bits describe the exchange a callback sees,
// so they live with `RequestInfo` in `call`; the envelope checks read them.
pub(crate) use crate::call::LEGACY_FLAGS;
pub use crate::call::{
    MCP_CTX_DUPLICATE_HEADER, MCP_CTX_HTTP, MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_LOG,
    MCP_CTX_LEGACY_NO_SESSION, MCP_CTX_LEGACY_ROOTS, MCP_CTX_LEGACY_SAMPLING,
};

/// Longest routing header value after `=?base64?...?=` decoding, in bytes
/// (decoded on the stack of `mcp_server_handle`); a longer one is answered
/// with -32020.
pub(crate) const MAX_DECODED_HEADER: usize = 512;

/// The era of one request: modern when its `_meta` carries an envelope key, or
/// when the transport saw a non-legacy `MCP-Protocol-Version` header.
pub fn era_of(req: &Request<'_>, info: &RequestInfo<'_>) -> Era {
    // Both are found only in an object `_meta` (see `Request::meta_version`).
    let keyed = req.meta_version().is_some() || req.meta_caps().is_some();
    let header_modern = info
        .hdr_protocol_version
        .is_some_and(|h| !super::is_legacy_version(h));
    // Without a legacy session only the handshake is legacy; everything else
    // goes through `check`, which refuses it.
    let sessionless =
        info.flags & MCP_CTX_LEGACY_NO_SESSION != 0 && !req.is("initialize") && !req.is("ping");
    if keyed || header_modern || sessionless {
        Era::Modern
    } else {
        Era::Legacy
    }
}

/// Validates a modern request's envelope and the transport's routing headers.
pub fn check<'r>(req: &Request<'r>, info: &RequestInfo<'_>) -> Result<(), RpcError<'r>> {
    let doc = &req.doc;
    let missing = RpcError::long(
        MCP_RPC_INVALID_PARAMS,
        "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' envelope keys",
        crate::rpc::short::NO_ENVELOPE,
    );
    // Both are found only in an object `_meta` (see `Request::meta_version`).
    let keyed = req.meta_version().is_some() || req.meta_caps().is_some();
    // Sessions are the legacy era's: without it a request lacking the
    // envelope gets the envelope's own error below.
    if cfg!(feature = "legacy") && !keyed && info.flags & MCP_CTX_LEGACY_NO_SESSION != 0 {
        return Err(RpcError::new(
            MCP_RPC_INVALID_REQUEST,
            "Bad Request: Missing session ID",
        ));
    }
    let version = req.meta_version().ok_or(missing)?;
    let caps = req.meta_caps().ok_or(missing)?;
    if doc.kind(caps) != Some(Kind::Object) {
        return Err(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "clientCapabilities must be an object",
        ));
    }
    if cfg!(feature = "http") {
        check_headers(req, info, version)?;
    }
    if doc.kind(version) != Some(Kind::String) {
        return Err(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "protocolVersion must be a string",
        ));
    }
    if !doc.str_eq(version, MODERN_VERSION) {
        return Err(RpcError {
            code: MCP_RPC_UNSUPPORTED_VERSION,
            message: Message::Static("Unsupported protocol version"),
            data: Data::Unsupported {
                supported: &[MODERN_VERSION],
                requested: doc.raw(version),
            },
        });
    }
    Ok(())
}

/// True when the transport passed anything a build without the `http`
/// feature cannot check: the HTTP flag or any routing header.
pub fn carries_headers(info: &RequestInfo<'_>) -> bool {
    info.flags & (MCP_CTX_HTTP | MCP_CTX_DUPLICATE_HEADER) != 0
        || info.hdr_protocol_version.is_some()
        || info.hdr_method.is_some()
        || info.hdr_name.is_some()
        || !info.hdr_params.is_empty()
        || info.hdr_params_dropped
}

/// The answer of a build without the `http` feature to a request that
/// [`carries_headers`]: the headers would otherwise go unchecked.
pub fn headers_unchecked() -> RpcError<'static> {
    mismatch("This server does not check HTTP routing headers (built without the http feature)")
}

/// The routing headers against the body (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`); the `http` feature.
fn check_headers<'r>(
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    version: usize,
) -> Result<(), RpcError<'r>> {
    let doc = &req.doc;
    let http = info.flags & MCP_CTX_HTTP != 0;
    if info.flags & MCP_CTX_DUPLICATE_HEADER != 0 {
        return Err(mismatch("A routing header was sent more than once"));
    }
    compare(
        info.hdr_protocol_version,
        http,
        doc,
        version,
        "MCP-Protocol-Version header is required",
        "MCP-Protocol-Version header does not match the request body's protocol version",
    )?;
    compare(
        info.hdr_method,
        http,
        doc,
        req.method,
        "Mcp-Method header is required",
        "Mcp-Method header does not match the request body's method",
    )?;
    // Mcp-Name mirrors the body for the methods that name a target.
    let target = if req.is("tools/call") || req.is("prompts/get") {
        req.name()
    } else if req.is("resources/read") {
        req.param("uri")
    } else {
        None
    };
    if let Some(t) = target {
        compare(
            info.hdr_name,
            http,
            doc,
            t,
            "Mcp-Name header is required for this method",
            "Mcp-Name header does not match the request body",
        )?;
    }
    Ok(())
}

/// Compares one routing header with the body's string at token `tok`. An
/// absent header is an error only over HTTP (`MCP_CTX_HTTP`).
fn compare(
    header: Option<&[u8]>,
    http: bool,
    doc: &Doc<'_>,
    tok: usize,
    missing: &'static str,
    differs: &'static str,
) -> Result<(), RpcError<'static>> {
    match header {
        Some(h) => {
            let mut buf = [0u8; MAX_DECODED_HEADER];
            if doc.str_eq_bytes(tok, decode_header(h, &mut buf)?) {
                Ok(())
            } else {
                Err(mismatch(differs))
            }
        }
        None if http => Err(mismatch(missing)),
        None => Ok(()),
    }
}

/// Compares the `Mcp-Param-*` headers with the arguments they mirror: each
/// property of the tool's input schema that declares `x-mcp-header` must
/// arrive in a header equal to the argument (strings exactly after base64
/// decoding, integers numerically, booleans as `true`/`false`). Over HTTP a
/// missing header is an error too; a header for an absent argument always is.
// Out of line: what it reads must not stay in the frame of `tools::call`
// while the tool's callback runs.
#[inline(never)]
pub fn check_params<'r>(
    tool: &crate::registry::Entry<'_>,
    doc: &Doc<'_>,
    args: Option<usize>,
    info: &RequestInfo<'_>,
) -> Result<(), RpcError<'r>> {
    if !cfg!(feature = "http") {
        // Nothing to compare: the dispatcher refused any request that
        // carries routing headers (`carries_headers`) before it got here.
        return Ok(());
    }
    if info.hdr_params_dropped {
        return Err(mismatch(
            "More Mcp-Param-* headers than MCP_MAX_HEADER_PARAMS",
        ));
    }
    let http = info.flags & MCP_CTX_HTTP != 0;
    // Every mismatch needs a header or HTTP (where a missing one is an
    // error): without either there is nothing to compare, and the schema
    // text need not be read.
    if !http && info.hdr_params.is_empty() {
        return Ok(());
    }
    let each = |name: &[u8], header: &[u8]| -> Result<(), RpcError<'r>> {
        let arg = args.and_then(|a| {
            doc.members(a)
                .find(|&(k, _)| same_text(doc.str_inner(k).unwrap_or(&[]), name))
                .map(|(_, v)| v)
        });
        let hdr = info
            .hdr_params
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(header));
        match (arg, hdr.as_ref()) {
            (None, None) => Ok(()),
            (Some(_), None) if !http => Ok(()),
            (Some(_), None) => Err(mismatch(
                "An Mcp-Param header that the tool's inputSchema requires is missing",
            )),
            (None, Some(_)) => Err(mismatch(
                "An Mcp-Param header names an argument the request does not send",
            )),
            (Some(a), Some(h)) => {
                if param_matches(doc, a, h.value)? {
                    Ok(())
                } else {
                    Err(mismatch(
                        "An Mcp-Param header does not match the request body's argument",
                    ))
                }
            }
        }
    };
    // The root's properties that declare `x-mcp-header`, from the schema's
    // text or from its program.
    match tool.def {
        #[cfg(feature = "text-tools")]
        Def::Text { input_schema, .. } => {
            let t = Schema::new(input_schema);
            let Some(root) = t.node(t.root()) else {
                return Ok(());
            };
            let sd = t.doc();
            for p in t.props(&root) {
                if let Some(h) = t.node(p.node).and_then(|n| sd.str_inner(n.header)) {
                    each(p.name.of(input_schema), h)?;
                }
            }
        }
        Def::Built { input: p, .. } => {
            let Some(root) = program::root(p).and_then(|r| PNode::read(p, r)) else {
                return Ok(());
            };
            for pr in root.props(p) {
                if let Some(n) = PNode::read(p, pr.node).filter(|n| n.flags & HAS_HEADER != 0) {
                    each(program::bytes(p, pr.name), program::bytes(p, n.header))?;
                }
            }
        }
    }
    Ok(())
}

/// Whether the argument at `a` equals the `Mcp-Param-*` header value
/// `value`. Out of line, so its decode buffer is on the stack only while a
/// header is compared.
#[inline(never)]
fn param_matches(doc: &Doc<'_>, a: usize, value: &[u8]) -> Result<bool, RpcError<'static>> {
    let mut buf = [0u8; MAX_DECODED_HEADER];
    let v = decode_header(value, &mut buf)?;
    let plain_int = {
        let digits = v.strip_prefix(b"-").unwrap_or(v);
        !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
    };
    Ok(match doc.kind(a) {
        Some(Kind::String) => doc.str_eq_bytes(a, v),
        Some(Kind::True) => v == b"true",
        Some(Kind::False) => v == b"false",
        Some(Kind::Number) if plain_int => doc.as_i64(a).ok() == exact_int(v).ok(),
        _ => false,
    })
}

fn mismatch(message: &'static str) -> RpcError<'static> {
    RpcError::new(MCP_RPC_HEADER_MISMATCH, message)
}

/// A routing header's value for comparison: optional whitespace trimmed and
/// the `=?base64?<base64 of UTF-8>?=` form decoded into `buf`. A malformed or
/// over-long encoded value is -32020.
pub(crate) fn decode_header<'b>(
    raw: &'b [u8],
    buf: &'b mut [u8],
) -> Result<&'b [u8], RpcError<'static>> {
    let v = trim_ows(raw);
    let Some(body) = v
        .strip_prefix(b"=?base64?")
        .and_then(|rest| rest.strip_suffix(b"?="))
    else {
        return Ok(v);
    };
    let bad = || mismatch("Malformed =?base64?...?= routing header value");
    let n = base64_decode(body, buf).ok_or_else(bad)?;
    buf.get(..n).ok_or_else(bad)
}

/// Decodes standard base64 (RFC 4648 section 4, with its padding) into
/// `out`. `None` for a character outside the alphabet, missing or bad
/// padding (SEP-2243 requires it in `=?base64?...?=` values), or no room.
pub fn base64_decode(input: &[u8], out: &mut [u8]) -> Option<usize> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let data = match input {
        [rest @ .., b'=', b'='] => rest,
        [rest @ .., b'='] => rest,
        _ => input,
    };
    if input.len() % 4 != 0 {
        return None;
    }
    if data.len() % 4 == 1 {
        return None;
    }
    let mut n = 0;
    for chunk in data.chunks(4) {
        let mut acc = 0u32;
        for &c in chunk {
            acc = (acc << 6) | value(c)?;
        }
        acc <<= 6 * (4 - chunk.len() as u32);
        let bytes = acc.to_be_bytes();
        for &b in bytes.get(1..chunk.len())? {
            *out.get_mut(n)? = b;
            n += 1;
        }
    }
    Some(n)
}

/// Strips HTTP optional whitespace (spaces and tabs) from both ends.
pub fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Server, ServerInfo};

    #[test]
    fn base64_decodes_padded_text_only() {
        let mut out = [0u8; 16];
        for (enc, dec) in [
            (&b""[..], &b""[..]),
            (b"Zg==", b"f"),
            (b"Zm8=", b"fo"),
            (b"Zm9v", b"foo"),
            (b"Zm9vYmFy", b"foobar"),
            (b"w6k=", "é".as_bytes()),
        ] {
            let n = base64_decode(enc, &mut out).unwrap();
            assert_eq!(&out[..n], dec, "{enc:?}");
        }
        for bad in [
            &b"Z"[..],
            b"Zg",
            b"Zm8",
            b"Zm9v!",
            b"Zg=",
            b"Z===",
            b"Zm9vYmFyYmF6cXV4cXV1eHg=",
        ] {
            assert_eq!(base64_decode(bad, &mut out), None, "{bad:?}");
        }
    }

    #[test]
    fn header_values_are_trimmed_and_decoded() {
        let mut buf = [0u8; MAX_DECODED_HEADER];
        assert_eq!(
            decode_header(b" tools/call\t", &mut buf).unwrap(),
            b"tools/call"
        );
        assert_eq!(
            decode_header(b" =?base64?dG9vbHMvY2FsbA==?= ", &mut buf).unwrap(),
            b"tools/call"
        );
        let e = decode_header(b"=?base64?***?=", &mut buf).unwrap_err();
        assert_eq!(e.code, MCP_RPC_HEADER_MISMATCH);
        // Not the sentinel form: compared as sent.
        assert_eq!(
            decode_header(b"=?base64?x", &mut buf).unwrap(),
            b"=?base64?x"
        );
    }

    const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn server() -> Server<'static> {
        Server::new(ServerInfo {
            name: "t",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: false,
        })
    }

    fn code(info: &RequestInfo<'_>, req: &str) -> (i32, u16) {
        let mut out = [0u8; 2048];
        let o = server().handle(info, req.as_bytes(), &mut out).unwrap();
        (o.rpc_error, o.http_status)
    }

    fn http(
        version: Option<&'static [u8]>,
        method: Option<&'static [u8]>,
        name: Option<&'static [u8]>,
    ) -> RequestInfo<'static> {
        RequestInfo {
            hdr_protocol_version: version,
            hdr_method: method,
            hdr_name: name,
            flags: MCP_CTX_HTTP,
            ..RequestInfo::default()
        }
    }

    #[test]
    #[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
    fn http_requires_the_routing_headers() {
        let list =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{ENV}}}}}"#);
        let v = Some(&b"2026-07-28"[..]);
        assert_eq!(code(&http(v, Some(b"tools/list"), None), &list), (0, 200));
        assert_eq!(
            code(&http(None, Some(b"tools/list"), None), &list),
            (-32020, 400)
        );
        assert_eq!(code(&http(v, None, None), &list), (-32020, 400));
        let dup = RequestInfo {
            flags: MCP_CTX_HTTP | MCP_CTX_DUPLICATE_HEADER,
            ..http(v, Some(b"tools/list"), None)
        };
        assert_eq!(code(&dup, &list), (-32020, 400));
        // Without MCP_CTX_HTTP absent headers are fine (stdio).
        assert_eq!(code(&RequestInfo::default(), &list), (0, 200));
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{ENV},"name":"nope"}}}}"#
        );
        let m = Some(&b"tools/call"[..]);
        assert_eq!(code(&http(v, m, None), &call), (-32020, 400));
        assert_eq!(code(&http(v, m, Some(b"other")), &call), (-32020, 400));
        // The name matches (base64 form too); the unknown tool is then -32602.
        assert_eq!(code(&http(v, m, Some(b" nope ")), &call), (-32602, 400));
        assert_eq!(
            code(&http(v, m, Some(b"=?base64?bm9wZQ==?=")), &call),
            (-32602, 400)
        );
        assert_eq!(
            code(
                &http(v, Some(b"=?base64?dG9vbHMvY2FsbA==?="), Some(b"nope")),
                &call
            ),
            (-32602, 400)
        );
        assert_eq!(
            code(&http(v, m, Some(b"=?base64?bm9wZQ?=x")), &call),
            (-32020, 400)
        );
    }

    #[test]
    #[cfg_attr(
        not(all(feature = "legacy", feature = "http")),
        ignore = "needs the legacy and http features"
    )]
    fn legacy_requests_without_a_session_only_handshake() {
        let no_session = RequestInfo {
            flags: MCP_CTX_HTTP | MCP_CTX_LEGACY_NO_SESSION,
            ..RequestInfo::default()
        };
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(code(&no_session, init), (0, 200));
        assert_eq!(
            code(&no_session, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (0, 200)
        );
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(code(&no_session, list), (-32600, 400));
        let mut out = [0u8; 512];
        let o = server()
            .handle(&no_session, list.as_bytes(), &mut out)
            .unwrap();
        let text = core::str::from_utf8(&out[..o.len]).unwrap();
        assert!(
            text.contains("Missing session ID") && text.contains(r#""id":1"#),
            "{text}"
        );
        // With a session (flag clear) the legacy request is served.
        let with_session = RequestInfo {
            flags: MCP_CTX_HTTP,
            ..RequestInfo::default()
        };
        assert_eq!(code(&with_session, list), (0, 200));
        // A modern body without the version header is a header error, not a session error.
        let modern =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{ENV}}}}}"#);
        assert_eq!(code(&no_session, &modern), (-32020, 400));
    }
}
