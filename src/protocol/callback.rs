//! Running a resource, prompt or completion callback: the same handles and
//! accessors as a tool callback (`mcp_call_t`, `mcp_result_t`), with the
//! result builder in the method's mode. Prompts and resource reads may ask
//! the client for input (SEP-2322) exactly as tools do.

use core::ffi::c_int;

use super::{Era, mrtr};
use crate::call::{Call, Finished, Mode, RequestInfo, ResultOpts, ToolResult, UriMatch};
use crate::handler::Handler;
use crate::json::{Kind, Mark, Writer};
use crate::limits::*;
use crate::rpc::{Request, RpcError};
use crate::state::{Fail, Server};

/// What a callback did.
pub struct Ran {
    /// Its return value (0 or a negative `MCP_E*`).
    pub rc: c_int,
    /// Messages, contents or values it wrote.
    pub blocks: usize,
    /// It asked for input: the result is complete (`input_required`).
    pub input: bool,
}

/// Where the callback's result starts and what it is.
pub struct Place<'n> {
    /// Before the result's first member, so input requests can replace them.
    pub start: Mark,
    /// The kind of result.
    pub mode: Mode,
    /// The request's era (input requests exist at 2026-07-28 only).
    pub era: Era,
    /// What a `requestState` is bound to: `prompt:<name>` or `resource:<uri>`
    /// (tool names cannot contain `:`, so no state crosses kinds).
    pub binding: (&'n str, &'n [u8]),
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
    uri: Option<&UriMatch<'_>>,
    place: Place<'_>,
) -> Result<Ran, Fail<'r>> {
    let doc = req.doc;
    let mut bound = [0u8; 16 + MCP_MAX_URI_LEN + MCP_MAX_TOOL_NAME_LEN];
    let binding = join(&mut bound, place.binding);
    let asks = place.mode != Mode::Complete && place.era.is_modern();
    let mut state_buf = [0u8; MCP_MAX_REQUEST_STATE];
    let state_len = if asks {
        mrtr::request_state(req, &s.state_mac, binding, &mut state_buf)?
    } else {
        None
    };
    let opts = ResultOpts {
        start: place.start,
        modern: asks,
        caps: if asks { mrtr::declared_caps(req) } else { 0 },
        state_enabled: asks && s.state_mac.enabled(),
        mode: place.mode,
        reserve: 0,
    };
    let object = |key| {
        req.param(key)
            .filter(|&m| doc.kind(m) == Some(Kind::Object))
    };
    let call = Call {
        doc,
        args,
        name,
        // No schema, so argument reads see exactly what was sent.
        input_schema: "{}",
        input_program: None,
        typed: None,
        meta: object("_meta"),
        inputs: if asks { object("inputResponses") } else { None },
        state: state_len.and_then(|n| state_buf.get(..n)),
        info,
        uri,
    };
    let mut state_out = [0u8; MCP_MAX_REQUEST_STATE];
    let mut result = ToolResult::new(w, opts, &mut state_out);
    let rc = handler.run(&call, &mut result);
    let blocks = result.blocks();
    let finished = result.finish();
    w.status()?;
    if let Ok(Finished {
        missing: bit @ 1.., ..
    }) = finished
    {
        return Err(mrtr::missing_capability(bit));
    }
    if rc < 0 {
        return Ok(Ran {
            rc,
            blocks,
            input: false,
        });
    }
    let Ok(finished) = finished else {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Callback left its result unfinished",
        )));
    };
    if finished.input {
        mrtr::close_input_required(w, &s.state_mac, binding, &finished, &state_out)?;
    }
    Ok(Ran {
        rc,
        blocks,
        input: finished.input,
    })
}

/// `a` followed by `b` in `buf` (the bytes the requestState MAC binds).
fn join<'b>(buf: &'b mut [u8], (a, b): (&str, &[u8])) -> &'b [u8] {
    let mut n = 0;
    for part in [a.as_bytes(), b] {
        let end = (n + part.len()).min(buf.len());
        let take = end - n;
        if let (Some(dst), Some(src)) = (buf.get_mut(n..end), part.get(..take)) {
            crate::json::copy_bytes(dst, src);
        }
        n = end;
    }
    // Both inputs fit by construction (names and URIs are bounded at registration).
    buf.get(..n).unwrap_or(&[])
}
