//! `tools/list` and `tools/call`, shared by both eras (the era only adds the
//! 2026 members, which the dispatcher writes).

use super::Era;
use super::modern::cache_hints;
use crate::call::{Call, RequestInfo, ToolResult};
use crate::json::{Kind, WriteError, Writer};
use crate::limits::*;
use crate::registry::{Handler, Tool, hints, mcp_call_t, mcp_result_t};
use crate::rpc::{Message, Request, RpcError};
use crate::server::{Fail, Server};

/// The members of a `tools/list` result: every tool, in registration order.
pub fn list<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    era: Era,
) -> Result<(), Fail<'r>> {
    if req.param("cursor").is_some() {
        // One page holds every tool, so no cursor was ever handed out.
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "Invalid cursor",
        )));
    }
    w.key("tools")?;
    w.begin_array()?;
    for t in s.tools.iter() {
        tool_entry(w, t)?;
    }
    w.end_array()?;
    if era == Era::Modern {
        cache_hints(w, &s.info)?;
    }
    Ok(())
}

fn tool_entry(w: &mut Writer<'_>, t: &Tool<'_>) -> Result<(), WriteError> {
    w.begin_object()?;
    w.kv_str("name", t.name)?;
    if let Some(v) = t.title {
        w.kv_str("title", v)?;
    }
    if let Some(v) = t.description {
        w.kv_str("description", v)?;
    }
    w.key("inputSchema")?;
    w.minified_value(t.input_schema.as_bytes())?;
    if let Some(v) = t.output_schema {
        w.key("outputSchema")?;
        w.minified_value(v.as_bytes())?;
    }
    if t.annotations != 0 {
        // With any hint given, all four are stated, so none falls back to the
        // protocol defaults (destructive and open-world) by omission.
        w.key("annotations")?;
        w.begin_object()?;
        for (key, bit) in [
            ("readOnlyHint", hints::READ_ONLY),
            ("destructiveHint", hints::DESTRUCTIVE),
            ("idempotentHint", hints::IDEMPOTENT),
            ("openWorldHint", hints::OPEN_WORLD),
        ] {
            w.key(key)?;
            w.bool(t.annotations & bit != 0)?;
        }
        w.end_object()?;
    }
    w.end_object()
}

/// Runs a tool and writes its CallToolResult members.
pub fn call<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let name = req
        .param("name")
        .filter(|&n| doc.kind(n) == Some(Kind::String))
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "params.name must be a string",
        )))?;
    let args = match req.param("arguments") {
        Some(a) if doc.kind(a) != Some(Kind::Object) => {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "params.arguments must be an object",
            )));
        }
        a => a,
    };
    let Some(tool) = s.tools.find_by(|n| doc.str_eq(name, n)) else {
        return Err(Fail::Rpc(RpcError {
            code: MCP_RPC_INVALID_PARAMS,
            message: Message::WithRaw("Unknown tool: ", doc.str_inner(name).unwrap_or(&[])),
            data: crate::rpc::Data::None,
        }));
    };
    w.key("content")?;
    w.begin_array()?;
    let call = Call {
        doc,
        args,
        tool,
        info,
    };
    let mut result = ToolResult::new(w);
    let rc = match tool.handler {
        // The C side gets opaque handles; the ffi accessors turn them back.
        Handler::C(Some(f), user) => f(
            &call as *const Call<'_> as *const mcp_call_t,
            &mut result as *mut ToolResult<'_, '_> as *mut mcp_result_t,
            user,
        ),
        Handler::C(None, _) => -MCP_EINVAL,
        Handler::Rust(f) => f(&call, &mut result),
    };
    let finished = result.finish();
    w.status()?;
    if rc < 0 {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Tool callback failed",
        )));
    }
    if finished.is_err() {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Tool result left structuredContent open",
        )));
    }
    Ok(())
}
