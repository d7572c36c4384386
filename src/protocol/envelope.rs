//! The 2026-07-28 request envelope (`params._meta`) and the routing headers
//! a transport passes in, checked in the order the reference SDK uses:
//! envelope present (-32602), headers match body (-32020), version is a
//! string (-32602), version supported (-32022).

use super::{Era, LEGACY_VERSIONS, MODERN_VERSION};
use crate::call::RequestInfo;
use crate::json::Kind;
use crate::limits::*;
use crate::rpc::{Data, Message, Request, RpcError};

const KEY_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const KEY_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

/// The era of one request: modern when its `_meta` carries an envelope key, or
/// when the transport saw a non-legacy `MCP-Protocol-Version` header.
pub fn era_of(req: &Request<'_>, info: &RequestInfo<'_>) -> Era {
    let doc = &req.doc;
    let meta = req
        .param("_meta")
        .filter(|&m| doc.kind(m) == Some(Kind::Object));
    let keyed =
        meta.is_some_and(|m| doc.get(m, KEY_VERSION).is_some() || doc.get(m, KEY_CAPS).is_some());
    let header_modern = info
        .hdr_protocol_version
        .is_some_and(|h| !LEGACY_VERSIONS.iter().any(|v| trim_ows(h) == v.as_bytes()));
    if keyed || header_modern {
        Era::Modern
    } else {
        Era::Legacy
    }
}

/// Validates a modern request's envelope and the transport's routing headers.
pub fn check<'r>(req: &Request<'r>, info: &RequestInfo<'_>) -> Result<(), RpcError<'r>> {
    let doc = &req.doc;
    let missing = RpcError::new(
        MCP_RPC_INVALID_PARAMS,
        "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' envelope keys",
    );
    let meta = req
        .param("_meta")
        .filter(|&m| doc.kind(m) == Some(Kind::Object))
        .ok_or(missing)?;
    let version = doc.get(meta, KEY_VERSION).ok_or(missing)?;
    let caps = doc.get(meta, KEY_CAPS).ok_or(missing)?;
    if doc.kind(caps) != Some(Kind::Object) {
        return Err(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "clientCapabilities must be an object",
        ));
    }
    if let Some(h) = info.hdr_protocol_version {
        if !doc.str_eq_bytes(version, trim_ows(h)) {
            return Err(RpcError::new(
                MCP_RPC_HEADER_MISMATCH,
                "MCP-Protocol-Version header does not match the request body's protocol version",
            ));
        }
    }
    if let Some(h) = info.hdr_method {
        if !doc.str_eq_bytes(req.method, trim_ows(h)) {
            return Err(RpcError::new(
                MCP_RPC_HEADER_MISMATCH,
                "Mcp-Method header does not match the request body's method",
            ));
        }
    }
    if let Some(h) = info.hdr_name {
        // Mcp-Name mirrors the body for the methods that name a target.
        let target = if req.is("tools/call") || req.is("prompts/get") {
            req.param("name")
        } else if req.is("resources/read") {
            req.param("uri")
        } else {
            None
        };
        if target.is_some_and(|t| !doc.str_eq_bytes(t, trim_ows(h))) {
            return Err(RpcError::new(
                MCP_RPC_HEADER_MISMATCH,
                "Mcp-Name header does not match the request body",
            ));
        }
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
