//! `prompts/list` and `prompts/get`.
//!
//! Owns: the argument check before a prompt callback runs (every declared
//! required argument present, every argument a string).

use super::callback::{self, Ran};
use super::modern::cache_hints;
use super::{Era, paging};
use crate::call::{Mode, RequestInfo};
use crate::catalog::Prompt;
use crate::json::{Kind, WriteError, Writer};
use crate::limits::*;
use crate::rpc::{Data, Message, Request, RpcError};
use crate::schema::MsgBuf;
use crate::state::{Fail, Server};

/// The members of `prompts/list`.
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn list<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    era: Era,
) -> Result<(), Fail<'r>> {
    let c = &s.catalog;
    let first = paging::start(req, c.prompt_count())?;
    let entries = c
        .prompts()
        .skip(first)
        .filter(|(i, _)| c.prompts_on.enabled(*i));
    paging::write(w, s, req.id, "prompts", entries, entry)?;
    if era == Era::Modern {
        cache_hints(w, &s.info)?;
    }
    Ok(())
}

pub(crate) fn entry(w: &mut Writer<'_>, p: &Prompt<'_>) -> Result<(), WriteError> {
    let _ = w.begin_object();
    let _ = w.kv_str("name", p.name);
    if let Some(v) = p.title {
        let _ = w.kv_str("title", v);
    }
    if let Some(v) = p.description {
        let _ = w.kv_str("description", v);
    }
    if let Some(v) = p.arguments {
        let _ = w.key("arguments");
        let _ = w.minified_value(v.as_bytes());
    }
    let _ = w.end_object();
    w.status()
}

/// The members of `prompts/get`.
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn get<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let name = req
        .name()
        .filter(|&n| doc.kind(n) == Some(Kind::String))
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "params.name must be a string",
        )))?;
    let Some(p) = s.catalog.prompt(|n| doc.str_eq(name, n)) else {
        return Err(Fail::Rpc(RpcError {
            code: MCP_RPC_INVALID_PARAMS,
            message: Message::WithRaw(
                "Unknown prompt: ",
                doc.str_inner(name).unwrap_or(&[]),
                crate::rpc::short::UNKNOWN_PROMPT,
            ),
            data: Data::None,
        }));
    };
    let args = req.arguments();
    if let Some(a) = args {
        let strings = doc.kind(a) == Some(Kind::Object)
            && doc
                .members(a)
                .all(|(_, v)| doc.kind(v) == Some(Kind::String));
        if !strings {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "params.arguments must be an object of strings",
            )));
        }
    }
    if let Some(missing) = p
        .required_names()
        .find(|n| args.and_then(|a| doc.get_bytes(a, n)).is_none())
    {
        return Err(missing_argument(w, req.id, missing));
    }
    let start = w.mark();
    if let Some(d) = p.description {
        w.kv_str("description", d)?;
    }
    w.key("messages")?;
    w.begin_array()?;
    let place = callback::Place {
        start,
        mode: Mode::Prompt,
        era,
        binding: ("prompt:", p.name.as_bytes()),
    };
    let Ran { rc, input, .. } =
        callback::run(w, s, req, info, p.handler, p.name, args, None, place)?;
    if rc < 0 {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Prompt callback failed",
        )));
    }
    if era == Era::Modern && !input {
        w.kv_str("resultType", "complete")?;
    }
    Ok(())
}

/// The -32602 answer naming a required prompt argument the request lacks
/// (its message buffer is on the stack only on this path).
#[inline(never)]
fn missing_argument<'r>(w: &mut Writer<'_>, id: Option<&[u8]>, name: &[u8]) -> Fail<'r> {
    let mut msg = MsgBuf::new();
    msg.push_bytes(name);
    super::sent(
        w,
        id,
        MCP_RPC_INVALID_PARAMS,
        (
            "Missing required argument: ",
            crate::rpc::short::MISSING_ARGUMENT,
        ),
        &msg,
    )
}
