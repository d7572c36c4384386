//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable, from the firmware's completion callback.

use super::callback::{self, Ran};
use crate::call::{Mode, RequestInfo};
use crate::json::{Kind, Writer};
use crate::limits::*;
use crate::rpc::{Request, RpcError};
use crate::state::{Fail, Server};

/// The members of a `completion/complete` result. The callback reads the
/// request with `mcp_arg_*` from the params object (`ref.type`, `ref.name`,
/// `ref.uri`, `argument.name`, `argument.value`, `context.arguments.<name>`).
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn complete<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let bad = |m: &'static str| Fail::Rpc(RpcError::new(MCP_RPC_INVALID_PARAMS, m));
    let Some(handler) = s.catalog.completion else {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_METHOD_NOT_FOUND,
            "Method not found",
        )));
    };
    let params = req.params.ok_or(bad("params are required"))?;
    let string = |obj: Option<usize>, key: &str| {
        obj.and_then(|o| doc.get(o, key))
            .filter(|&v| doc.kind(v) == Some(Kind::String))
    };
    let r = doc
        .get(params, "ref")
        .filter(|&r| doc.kind(r) == Some(Kind::Object));
    let argument = doc
        .get(params, "argument")
        .filter(|&a| doc.kind(a) == Some(Kind::Object));
    if string(argument, "name").is_none() || string(argument, "value").is_none() {
        return Err(bad("params.argument needs string name and value"));
    }
    let ty = string(r, "type").ok_or(bad("params.ref.type must be a string"))?;
    let c = &s.catalog;
    let known = if doc.str_eq(ty, "ref/prompt") {
        let name = string(r, "name").ok_or(bad("params.ref.name must be a string"))?;
        c.prompt(|n| doc.str_eq(name, n)).is_some()
    } else if doc.str_eq(ty, "ref/resource") {
        let uri = string(r, "uri").ok_or(bad("params.ref.uri must be a string"))?;
        c.resources()
            .any(|(i, e)| c.resources_on.enabled(i) && doc.str_eq(uri, e.uri))
    } else {
        return Err(bad("params.ref.type must be ref/prompt or ref/resource"));
    };
    if !known {
        return Err(bad("params.ref names no prompt or resource template"));
    }
    let start = w.mark();
    w.key("completion")?;
    w.begin_object()?;
    w.key("values")?;
    w.begin_array()?;
    let Ran { rc, .. } = callback::run(
        w,
        s,
        req,
        info,
        handler,
        "completion",
        Some(params),
        None,
        callback::Place {
            start,
            mode: Mode::Complete,
            era: super::Era::Legacy,
            binding: ("", b""),
        },
    )?;
    if rc < 0 {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Completion callback failed",
        )));
    }
    w.end_object()?;
    Ok(())
}
