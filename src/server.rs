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
    pub fn handle(
        &self,
        info: &RequestInfo<'_>,
        request: &[u8],
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
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
                    TokenizeError::TooDeep => RpcError::new(
                        MCP_RPC_INVALID_REQUEST,
                        "Request nests deeper than MCP_MAX_DEPTH",
                    ),
                    TokenizeError::TooLong => {
                        RpcError::new(MCP_RPC_INVALID_REQUEST, "Request too long")
                    }
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
                Ok(error_outcome(
                    &mut w,
                    Some(id),
                    &RpcError::new(MCP_RPC_INTERNAL_ERROR, "Internal error"),
                ))
            }
            Err(Fail::Write(WriteError::Overflow)) => {
                w.reset();
                let e = RpcError::new(
                    MCP_RPC_INTERNAL_ERROR,
                    "Response exceeds the response buffer",
                );
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
        if req
            .params
            .is_some_and(|p| req.doc.kind(p) != Some(Kind::Object))
        {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "params must be an object",
            )));
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
            Method::Initialize => {
                legacy::initialize(w, &self.info, &req.doc, req.param("protocolVersion"))?
            }
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
    Fail::Rpc(
        if raw.len() <= 64 && req.doc.kind(req.method) == Some(Kind::String) {
            e.with_data(Data::Raw(raw))
        } else {
            e
        },
    )
}

fn error_outcome(w: &mut Writer<'_>, id: Option<&[u8]>, e: &RpcError<'_>) -> Outcome {
    rpc::write_error(w, id, e);
    Outcome {
        len: w.len(),
        rpc_error: e.code,
        http_status: rpc::http_status(e.code, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Call, ToolResult};
    use crate::registry::Handler;
    use core::ffi::c_int;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn echo(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
        CALLS.fetch_add(1, Ordering::SeqCst);
        let n = call
            .lookup("n")
            .ok()
            .and_then(|i| call.doc.as_i64(i).ok())
            .unwrap_or(-1);
        if n == 7 {
            return -5;
        }
        if n > 1000 {
            let big = "x".repeat(n as usize);
            return if res.text(&big).is_ok() { 0 } else { -105 };
        }
        res.text("hi").unwrap();
        res.structured_begin().unwrap();
        let w = res.json().unwrap();
        w.key("n").unwrap();
        w.int(n).unwrap();
        res.structured_end().unwrap();
        0
    }

    const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    const STAMP: &str =
        r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

    fn server() -> Server<'static> {
        let mut s = Server::new(ServerInfo {
            name: "t",
            version: "1",
            title: None,
            instructions: Some("Be careful."),
            list_ttl_ms: 5,
            cache_public: true,
        });
        s.add_tool(Tool {
            name: "echo",
            title: None,
            description: Some("Echo n"),
            input_schema: "{ \"type\": \"object\" }",
            output_schema: None,
            annotations: crate::limits::MCP_TOOL_READ_ONLY,
            handler: Handler::Rust(echo),
        })
        .unwrap();
        s
    }

    fn run_with(info: &RequestInfo<'_>, req: &str, cap: usize) -> (String, Outcome) {
        let s = server();
        let mut out = vec![0u8; cap];
        let o = s.handle(info, req.as_bytes(), &mut out).unwrap();
        (String::from_utf8(out[..o.len].to_vec()).unwrap(), o)
    }

    fn run(req: &str) -> (String, Outcome) {
        run_with(&RequestInfo::default(), req, 4096)
    }

    fn modern(id: &str, method: &str, extra: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{ENV}{extra}}}}}"#)
    }

    #[test]
    fn discover_and_list_modern() {
        let (r, o) = run(&modern("1", "server/discover", ""));
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{"listChanged":false}}}},"instructions":"Be careful.","ttlMs":5,"cacheScope":"public",{STAMP}}}}}"#
            )
        );
        assert_eq!((o.rpc_error, o.http_status), (0, 200));
        let (r, _) = run(&modern("\"a\"", "tools/list", ""));
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":"a","result":{{"resultType":"complete","tools":[{{"name":"echo","description":"Echo n","inputSchema":{{"type":"object"}},"annotations":{{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}}}}],"ttlMs":5,"cacheScope":"public",{STAMP}}}}}"#
            )
        );
    }

    #[test]
    fn call_modern_and_legacy() {
        let (r, _) = run(&modern(
            "12345678901234567890",
            "tools/call",
            r#","name":"echo","arguments":{"n":3}"#,
        ));
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":12345678901234567890,"result":{{"resultType":"complete","content":[{{"type":"text","text":"hi"}}],"structuredContent":{{"n":3}},"isError":false,{STAMP}}}}}"#
            )
        );
        let (r, _) = run(
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"n":4}}}"#,
        );
        assert_eq!(
            r,
            r#"{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":4},"isError":false}}"#
        );
    }

    #[test]
    fn legacy_handshake() {
        let init = |v: &str| {
            run(&format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
            ))
            .0
        };
        let expect = |v: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{v}","capabilities":{{"tools":{{"listChanged":false}}}},"serverInfo":{{"name":"t","version":"1"}},"instructions":"Be careful."}}}}"#
            )
        };
        for v in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
            assert_eq!(init(v), expect(v));
        }
        assert_eq!(init("2024-01-01"), expect("2025-11-25"));
        assert_eq!(
            run(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).0,
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#
        );
        let (r, _) = run(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#);
        assert!(
            r.starts_with(r#"{"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"echo""#),
            "{r}"
        );
        assert!(!r.contains("resultType") && !r.contains("ttlMs"), "{r}");
    }

    fn err(req: &str) -> (String, i32, u16) {
        let (r, o) = run(req);
        (r, o.rpc_error, o.http_status)
    }

    #[test]
    fn errors() {
        let e = err("{nope");
        assert_eq!(
            e,
            (
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
                    .into(),
                -32700,
                400
            )
        );
        for batch in [
            "[]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "3",
            "\"s\"",
        ] {
            let (r, c, _) = err(batch);
            assert_eq!(c, -32600);
            assert!(r.contains(r#""id":null"#), "{r}");
        }
        assert_eq!(err(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#).1, -32600);
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).1,
            -32600
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).1,
            -32600
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#).1,
            -32602
        );
        let (r, c, s) = err(&modern("2", "ping", ""));
        assert_eq!((c, s), (-32601, 404));
        assert!(r.contains(r#""data":"ping""#), "{r}");
        for m in [
            "initialize",
            "logging/setLevel",
            "resources/subscribe",
            "nope/x",
        ] {
            assert_eq!(err(&modern("3", m, "")).1, -32601, "{m}");
        }
        let missing = r#"{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(err(missing).1, -32602);
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":4,"method":"server/discover"}"#).1,
            -32602
        );
        let v = r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let (r, c, s) = err(v);
        assert_eq!((c, s), (-32022, 400));
        assert!(
            r.contains(r#""data":{"supported":["2026-07-28"],"requested":"2099-01-01"}"#),
            "{r}"
        );
        let (r, c, _) = err(&modern("5", "tools/call", r#","name":"n\u006fpe""#));
        assert_eq!(c, -32602);
        assert!(r.contains(r#""message":"Unknown tool: n\u006fpe""#), "{r}");
        assert_eq!(
            err(&modern(
                "5",
                "tools/call",
                r#","name":"echo","arguments":[]"#
            ))
            .1,
            -32602
        );
        assert_eq!(
            err(&modern("5", "tools/list", r#","cursor":"abc""#)).1,
            -32602
        );
        assert_eq!(
            err(&modern(
                "6",
                "tools/call",
                r#","name":"echo","arguments":{"n":7}"#
            ))
            .1,
            -32603
        );
    }

    #[test]
    fn notifications_never_run() {
        let before = CALLS.load(Ordering::SeqCst);
        let (r, o) = run(&format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{{ENV},"name":"echo","arguments":{{"n":1}}}}}}"#
        ));
        assert_eq!((r.as_str(), o.http_status), ("", 202));
        let (r, _) = run(r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#);
        assert_eq!(r, "");
        assert_eq!(CALLS.load(Ordering::SeqCst), before);
    }

    #[test]
    fn headers_are_checked_against_the_body() {
        let req = modern("1", "tools/list", "");
        let info = RequestInfo {
            hdr_protocol_version: Some(b"2026-07-28"),
            hdr_method: Some(b" tools/list "),
            ..RequestInfo::default()
        };
        assert_eq!(run_with(&info, &req, 4096).1.rpc_error, 0);
        let wrong_method = RequestInfo {
            hdr_method: Some(b"TOOLS/LIST"),
            ..info
        };
        assert_eq!(run_with(&wrong_method, &req, 4096).1.rpc_error, -32020);
        let wrong_version = RequestInfo {
            hdr_protocol_version: Some(b"2099-01-01"),
            ..info
        };
        assert_eq!(run_with(&wrong_version, &req, 4096).1.rpc_error, -32020);
        let call = modern("2", "tools/call", r#","name":"echo","arguments":{"n":1}"#);
        let named = |n: &'static [u8]| RequestInfo {
            hdr_name: Some(n),
            ..RequestInfo::default()
        };
        assert_eq!(run_with(&named(b"echo"), &call, 4096).1.rpc_error, 0);
        assert_eq!(run_with(&named(b"ECHO"), &call, 4096).1.rpc_error, -32020);
        // A modern header makes a request without envelope modern: -32602, not legacy.
        let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(run_with(&info, bare, 4096).1.rpc_error, -32602);
    }

    #[test]
    fn oversize_results_become_errors_that_fit() {
        let long_id = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN - 2));
        let req = modern(
            &long_id,
            "tools/call",
            r#","name":"echo","arguments":{"n":5000}"#,
        );
        let (r, o) = run_with(&RequestInfo::default(), &req, MCP_MIN_RESPONSE_CAP);
        assert_eq!(o.rpc_error, -32603);
        assert!(
            r.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{long_id},"error""#)),
            "{r}"
        );
        let s = server();
        let mut small = [0u8; MCP_MIN_RESPONSE_CAP - 1];
        assert_eq!(
            s.handle(&RequestInfo::default(), b"{}", &mut small),
            Err(HandleError::BufferTooSmall)
        );
        let too_long = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN));
        let (r, o) = run(&modern(&too_long, "tools/list", ""));
        assert_eq!(o.rpc_error, -32600);
        assert!(r.contains(r#""id":null"#));
    }

    #[test]
    fn limits_are_reported() {
        let deep = format!(
            "{}{}",
            "[".repeat(MCP_MAX_DEPTH + 1),
            "]".repeat(MCP_MAX_DEPTH + 1)
        );
        assert_eq!(run(&deep).1.rpc_error, -32600);
        let many = format!("[{}]", vec!["1"; MCP_MAX_JSON_TOKENS].join(","));
        assert_eq!(run(&many).1.rpc_error, -32600);
    }
}
