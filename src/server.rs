//! The server: identity, tools, and the one entry point that turns a request
//! into zero or one response.
//!
//! Owns: the dispatch order (tokenize → JSON-RPC → era → envelope → method),
//! notifications never executing, and replacing any response that does not fit
//! with an error that does.
//! Must not: keep state between requests; everything a response depends on is
//! in the request, the request info, or the registered tools.

use crate::call::RequestInfo;
use crate::json::{Doc, Kind, Token, TokenizeError, WriteError, Writer, tokenize};
use crate::limits::*;
use crate::protocol::{Era, envelope, legacy, modern, tools};
use crate::registry::{RegisterError, Registry, Tool};
use crate::rpc::{self, Data, RpcError};

/// Identity and list policy, fixed at initialisation.
#[derive(Clone, Copy)]
pub struct ServerInfo<'a> {
    /// `serverInfo.name`.
    pub name: &'a str,
    /// `serverInfo.version` (non-empty).
    pub version: &'a str,
    /// `serverInfo.title`.
    pub title: Option<&'a str>,
    /// `instructions` for the model.
    pub instructions: Option<&'a str>,
    /// `ttlMs` on cacheable results.
    pub list_ttl_ms: u32,
    /// `cacheScope`: public when true, private otherwise.
    pub cache_public: bool,
}

/// A server: its identity and its tools.
pub struct Server<'a> {
    /// Identity and list policy.
    pub info: ServerInfo<'a>,
    /// Registered tools.
    pub tools: Registry<'a>,
}

/// What `handle` produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Bytes written to the response buffer; 0 when no response is due.
    pub len: usize,
    /// 0 for a result, else the JSON-RPC error code sent.
    pub rpc_error: i32,
    /// The HTTP status that goes with the response (202 for none).
    pub http_status: u16,
}

/// Why `handle` wrote nothing at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// The response buffer is smaller than `MCP_MIN_RESPONSE_CAP`.
    BufferTooSmall,
}

/// How a method body failed.
#[derive(Debug)]
pub enum Fail<'r> {
    /// Answer with this JSON-RPC error.
    Rpc(RpcError<'r>),
    /// The writer stopped (overflow or misuse).
    Write(WriteError),
}

impl From<WriteError> for Fail<'_> {
    fn from(e: WriteError) -> Self {
        Fail::Write(e)
    }
}

#[derive(Clone, Copy)]
enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    Initialize,
    Ping,
}

impl<'a> Server<'a> {
    /// A server with no tools.
    pub const fn new(info: ServerInfo<'a>) -> Self {
        Server {
            info,
            tools: Registry::new(),
        }
    }

    /// Registers a tool; its position is its place in `tools/list`.
    pub fn add_tool(&mut self, tool: Tool<'a>) -> Result<(), RegisterError> {
        self.tools.add(tool)
    }

    /// Handles one complete JSON-RPC message and writes at most one response
    /// into `out`. Nothing is allocated; the tokens live on this stack frame.
    pub fn handle(&self, info: &RequestInfo<'_>, request: &[u8], out: &mut [u8]) -> Result<Outcome, HandleError> {
        if out.len() < MCP_MIN_RESPONSE_CAP {
            return Err(HandleError::BufferTooSmall);
        }
        let mut toks = [Token::EMPTY; MCP_MAX_JSON_TOKENS];
        let mut w = Writer::new(out);
        let n = match tokenize(request, &mut toks, MCP_MAX_DEPTH) {
            Ok(n) => n,
            Err(e) => {
                let err = match e {
                    TokenizeError::Invalid => RpcError::new(MCP_RPC_PARSE_ERROR, "Parse error"),
                    TokenizeError::TooManyTokens => RpcError::new(
                        MCP_RPC_INVALID_REQUEST,
                        "Request has more JSON tokens than MCP_MAX_JSON_TOKENS",
                    ),
                    TokenizeError::TooDeep => {
                        RpcError::new(MCP_RPC_INVALID_REQUEST, "Request nests deeper than MCP_MAX_DEPTH")
                    }
                    TokenizeError::TooLong => RpcError::new(MCP_RPC_INVALID_REQUEST, "Request too long"),
                };
                return Ok(error_outcome(&mut w, None, &err));
            }
        };
        let doc = Doc::new(request, toks.get(..n).unwrap_or(&[]));
        let req = match rpc::parse_request(doc) {
            Ok(r) => r,
            Err((e, id)) => return Ok(error_outcome(&mut w, id, &e)),
        };
        // A notification is never executed and never answered, whatever its method.
        let Some(id) = req.id else {
            return Ok(Outcome {
                len: 0,
                rpc_error: 0,
                http_status: rpc::http_status(0, true),
            });
        };
        match self.dispatch(&req, id, info, &mut w) {
            Ok(()) if w.is_complete() => Ok(Outcome {
                len: w.len(),
                rpc_error: 0,
                http_status: 200,
            }),
            Ok(()) | Err(Fail::Write(WriteError::Misuse)) => {
                w.reset();
                Ok(error_outcome(&mut w, Some(id), &RpcError::new(MCP_RPC_INTERNAL_ERROR, "Internal error")))
            }
            Err(Fail::Write(WriteError::Overflow)) => {
                w.reset();
                let e = RpcError::new(MCP_RPC_INTERNAL_ERROR, "Response exceeds the response buffer");
                Ok(error_outcome(&mut w, Some(id), &e))
            }
            Err(Fail::Rpc(e)) => {
                w.reset();
                Ok(error_outcome(&mut w, Some(id), &e))
            }
        }
    }

    fn dispatch<'r>(
        &self,
        req: &rpc::Request<'r>,
        id: &[u8],
        info: &RequestInfo<'_>,
        w: &mut Writer<'_>,
    ) -> Result<(), Fail<'r>> {
        if req.params.is_some_and(|p| req.doc.kind(p) != Some(Kind::Object)) {
            return Err(Fail::Rpc(RpcError::new(MCP_RPC_INVALID_PARAMS, "params must be an object")));
        }
        let method = if req.is("server/discover") {
            Method::Discover
        } else if req.is("tools/list") {
            Method::ToolsList
        } else if req.is("tools/call") {
            Method::ToolsCall
        } else if req.is("initialize") {
            Method::Initialize
        } else if req.is("ping") {
            Method::Ping
        } else {
            return Err(not_found(req));
        };
        let era = match (method, envelope::era_of(req, info)) {
            // Removed at 2026-07-28: inside the modern envelope they do not exist.
            (Method::Initialize | Method::Ping, Era::Modern) => return Err(not_found(req)),
            (Method::Initialize | Method::Ping, Era::Legacy) => Era::Legacy,
            (Method::Discover, _) | (_, Era::Modern) => {
                envelope::check(req, info).map_err(Fail::Rpc)?;
                Era::Modern
            }
            (_, Era::Legacy) => Era::Legacy,
        };
        rpc::begin_result(w, id)?;
        if era == Era::Modern {
            w.kv_str("resultType", "complete")?;
        }
        match method {
            Method::Discover => modern::discover(w, &self.info)?,
            Method::ToolsList => tools::list(w, self, req, era)?,
            Method::ToolsCall => tools::call(w, self, req, info)?,
            Method::Initialize => legacy::initialize(w, &self.info, &req.doc, req.param("protocolVersion"))?,
            Method::Ping => {}
        }
        if era == Era::Modern {
            modern::result_meta(w, &self.info)?;
        }
        rpc::end_result(w)?;
        Ok(())
    }
}

fn not_found<'r>(req: &rpc::Request<'r>) -> Fail<'r> {
    let raw = req.doc.raw(req.method);
    let e = RpcError::new(MCP_RPC_METHOD_NOT_FOUND, "Method not found");
    // The method name is echoed as data when it is short; the short form of
    // the error drops it anyway if the buffer is tight.
    Fail::Rpc(if raw.len() <= 64 && req.doc.kind(req.method) == Some(Kind::String) {
        e.with_data(Data::Raw(raw))
    } else {
        e
    })
}

fn error_outcome(w: &mut Writer<'_>, id: Option<&[u8]>, e: &RpcError<'_>) -> Outcome {
    rpc::write_error(w, id, e);
    Outcome {
        len: w.len(),
        rpc_error: e.code,
        http_status: rpc::http_status(e.code, false),
    }
}
