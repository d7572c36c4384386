//! Running a resource, prompt or completion callback: the same handles and
//! accessors as a tool callback (`mcp_call_t`, `mcp_result_t`), with the
//! result builder in the method's mode.

use core::ffi::c_int;

use crate::call::{Call, Mode, RequestInfo, ResultOpts, ToolResult, UriMatch};
use crate::json::{Kind, Writer};
use crate::limits::MCP_RPC_INTERNAL_ERROR;
use crate::registry::{Handler, Tool};
use crate::rpc::{Request, RpcError};
use crate::server::{Fail, Server};

/// What a callback did.
pub struct Ran {
    /// Its return value (0 or a negative `MCP_E*`).
    pub rc: c_int,
    /// Messages, contents or values it wrote.
    pub blocks: usize,
}

/// Runs `handler` for the entry called `name` with `args` (the token the
/// callback's `mcp_arg_*` paths start from) and writes its result members.
#[allow(clippy::too_many_arguments)]
pub fn run<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    handler: Handler,
    name: &str,
    args: Option<usize>,
    uri: Option<UriMatch<'_>>,
    mode: Mode,
) -> Result<Ran, Fail<'r>> {
    let doc = req.doc;
    // A stand-in tool: no schema, so argument reads see exactly what was sent.
    let tool = Tool::new(name, "{}", handler);
    let opts = ResultOpts {
        start: w.mark(),
        modern: false,
        caps: 0,
        state_enabled: false,
        mode,
    };
    let call = Call {
        doc,
        args,
        tool: &tool,
        tables: &s.tools.tables,
        meta: req
            .param("_meta")
            .filter(|&m| doc.kind(m) == Some(Kind::Object)),
        inputs: None,
        state: None,
        info,
        uri,
    };
    let mut result = ToolResult::new(w, opts);
    let rc = handler.run(&call, &mut result);
    let blocks = result.blocks();
    let finished = result.finish();
    w.status()?;
    if rc >= 0 && finished.is_err() {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Callback left its result unfinished",
        )));
    }
    Ok(Ran { rc, blocks })
}
