//! The server: identity, tools, and the one entry point that turns a request
//! into zero or one response.
//!
//! Owns: the dispatch order (tokenize → JSON-RPC → era → envelope → method),
//! notifications never executing, and replacing any response that does not fit
//! with an error that does.
//! Must not: keep state between requests; everything a response depends on is
//! in the request, the request info, or the registered tools.

use crate::call::RequestInfo;
use crate::dedup::Dedup;
use crate::json::{Kind, TokenizeError, WriteError, Writer};
use crate::limits::*;
use crate::protocol::listen::{self, Listener};
use crate::protocol::{Era, completion, envelope, legacy, modern, prompts, resources, tools};
use crate::rpc::{self, Data, ReadError, RpcError};
use crate::schema::MsgBuf;
pub use crate::state::{Fail, Server, ServerInfo};

/// What `handle` produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Bytes written to the response buffer; 0 when no response is due.
    pub len: usize,
    /// 0 for a result, else the JSON-RPC error code sent.
    pub rpc_error: i32,
    /// The HTTP status that goes with the response (202 for none).
    pub http_status: u16,
    /// The response is a `subscriptions/listen` acknowledgement: the stream
    /// stays open and the exchange's listener is now in use.
    pub listen: bool,
    /// `MCP_RESPONSE_CLIENT_REQUEST` when the bytes are server-to-client
    /// requests of a legacy call waiting in its round-trip storage, one per
    /// line ([`crate::roundtrip`]); on the answer to `initialize`, the
    /// `MCP_RESPONSE_CLIENT_*` capabilities the client declared. One byte, so
    /// the outcome stays three words on a 32-bit target.
    pub client: u8,
}

impl Outcome {
    /// The bytes are server-to-client requests.
    pub fn client_request(&self) -> bool {
        u16::from(self.client) & MCP_RESPONSE_CLIENT_REQUEST != 0
    }

    /// The `MCP_RESPONSE_CLIENT_*` capabilities an `initialize` declared.
    pub fn client_caps(&self) -> u16 {
        u16::from(self.client) & MCP_RESPONSE_CLIENT_CAPS
    }
}

/// Per-transport state one exchange may use (each optional).
#[derive(Default)]
pub struct Exchange<'x> {
    /// Results of tools with an idempotency key, so no key runs twice (the
    /// table may be shared by exchanges running at once).
    pub dedup: Option<&'x Dedup>,
    /// The duplicate table's durable store (`mcp_dedup_set_store`), if any.
    #[cfg(feature = "policy")]
    pub store: Option<crate::dedup::Attached<'x, crate::policy::mcp_store_t>>,
    /// Storage for a stream this exchange may open with `subscriptions/listen`.
    pub listener: Option<&'x mut Listener>,
}

/// Why `handle` wrote nothing at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// The response buffer is smaller than `MCP_MIN_RESPONSE_CAP`.
    BufferTooSmall,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
    PromptsList,
    PromptsGet,
    Complete,
    Listen,
    // Legacy only (removed at 2026-07-28).
    Initialize,
    Ping,
    SetLevel,
    Subscribe,
}

/// Every method's name (those this build serves are copied into [`BUILT`]).
const ALL_METHODS: [(&str, Method); 14] = [
    ("server/discover", Method::Discover),
    ("tools/list", Method::ToolsList),
    ("tools/call", Method::ToolsCall),
    ("resources/list", Method::ResourcesList),
    ("resources/templates/list", Method::TemplatesList),
    ("resources/read", Method::ResourcesRead),
    ("prompts/list", Method::PromptsList),
    ("prompts/get", Method::PromptsGet),
    ("completion/complete", Method::Complete),
    ("subscriptions/listen", Method::Listen),
    ("initialize", Method::Initialize),
    ("ping", Method::Ping),
    ("logging/setLevel", Method::SetLevel),
    ("resources/subscribe", Method::Subscribe),
];

/// How many methods this build serves.
#[allow(clippy::indexing_slicing)] // constant evaluation: checked at compile time
const BUILT_LEN: usize = {
    let (mut i, mut n) = (0, 0);
    while i < ALL_METHODS.len() {
        if ALL_METHODS[i].1.built() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The methods this build serves, and no more slots (the names of the
/// others are not linked at all; a minimal build keeps 3 of 14 entries).
#[allow(clippy::indexing_slicing)] // constant evaluation: checked at compile time
const BUILT: [(&str, Method); BUILT_LEN] = {
    let mut out = [("", Method::Discover); BUILT_LEN];
    let (mut i, mut n) = (0, 0);
    while i < ALL_METHODS.len() {
        if ALL_METHODS[i].1.built() {
            out[n] = ALL_METHODS[i];
            n += 1;
        }
        i += 1;
    }
    out
};

impl Method {
    /// Whether this build serves the method (Cargo features `catalog`, `legacy`).
    const fn built(self) -> bool {
        match self {
            Method::Discover | Method::ToolsList | Method::ToolsCall => true,
            Method::Initialize | Method::Ping | Method::SetLevel => cfg!(feature = "legacy"),
            Method::Subscribe => cfg!(all(feature = "legacy", feature = "catalog")),
            _ => cfg!(feature = "catalog"),
        }
    }

    fn legacy_only(self) -> bool {
        matches!(
            self,
            Method::Initialize | Method::Ping | Method::SetLevel | Method::Subscribe
        )
    }
}

impl<'a> Server<'a> {
    /// Handles one complete JSON-RPC message and writes at most one response
    /// into `out`. Nothing is allocated; the tokens live on this stack frame.
    pub fn handle(
        &self,
        info: &RequestInfo<'_>,
        request: &[u8],
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
        self.handle_with(info, Exchange::default(), request, out)
    }

    /// [`Server::handle`] with the transport's state: its duplicate table, so
    /// tools that declare an idempotency key are never run twice for one key,
    /// and storage for a `subscriptions/listen` stream.
    pub fn handle_with(
        &self,
        info: &RequestInfo<'_>,
        ex: Exchange<'_>,
        request: &[u8],
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
        let mut own = *info;
        self.handle_in(&mut own, ex, request, out)
    }

    /// [`Server::handle_with`] on the caller's own copy of the request's
    /// information, which it changes: a 2026-07-28 request drops the flags of
    /// legacy-era exchanges. The C ABI's path, without a second copy on the
    /// stack.
    pub(crate) fn handle_in(
        &self,
        info: &mut RequestInfo<'_>,
        ex: Exchange<'_>,
        request: &[u8],
        out: &mut [u8],
    ) -> Result<Outcome, HandleError> {
        if out.len() < MCP_MIN_RESPONSE_CAP {
            return Err(HandleError::BufferTooSmall);
        }
        let mut w = Writer::new(out);
        let req = match rpc::read_request(request) {
            Ok(r) => r,
            Err(ReadError::Json(e)) => return Ok(refuse_early(&mut w, request, e)),
            Err(ReadError::Rpc(e, id)) => return Ok(error_outcome(&mut w, id, &e, b"")),
        };
        // A notification is never executed and never answered, whatever its method.
        let Some(id) = req.id else {
            return Ok(Outcome {
                len: 0,
                rpc_error: 0,
                http_status: rpc::http_status(0, true),
                ..Outcome::default()
            });
        };
        // The era the answer is judged by (its HTTP status): the request's,
        // until dispatch decides otherwise (server/discover is always modern).
        let mut era = if cfg!(feature = "legacy") {
            envelope::era_of(&req, info)
        } else {
            Era::Modern
        };
        let status = |era: Era, code: i32| {
            if era.is_modern() {
                rpc::http_status(code, false)
            } else {
                rpc::http_status_legacy(code, false)
            }
        };
        match self.dispatch(&req, id, info, &mut w, ex, &mut era) {
            Ok(listen) if w.is_complete() => Ok(Outcome {
                len: w.len(),
                rpc_error: 0,
                http_status: 200,
                listen,
                client: if cfg!(feature = "legacy") && req.is("initialize") {
                    crate::protocol::mrtr::initialize_caps(&req)
                } else {
                    0
                },
            }),
            Ok(_) | Err(Fail::Write(WriteError::Misuse)) => {
                w.reset();
                Ok(error_outcome(
                    &mut w,
                    Some(id),
                    &RpcError::new(MCP_RPC_INTERNAL_ERROR, "Internal error"),
                    b"",
                ))
            }
            Err(Fail::Write(WriteError::Overflow)) => {
                w.reset();
                let e = RpcError::new(
                    MCP_RPC_INTERNAL_ERROR,
                    "Response exceeds the response buffer",
                );
                Ok(error_outcome(&mut w, Some(id), &e, b""))
            }
            Err(Fail::Rpc(e)) => {
                w.reset();
                let mut o = error_outcome(&mut w, Some(id), &e, b"");
                o.http_status = status(era, e.code);
                Ok(o)
            }
            // Written where it was found, its message built there.
            Err(Fail::Sent(code)) => Ok(Outcome {
                len: w.len(),
                rpc_error: code,
                http_status: status(era, code),
                ..Outcome::default()
            }),
        }
    }

    // `era_out` reports the era the answer is judged by (its HTTP status),
    // which is known only once the method is routed.
    #[allow(clippy::too_many_arguments)]
    fn dispatch<'r>(
        &self,
        req: &rpc::Request<'r>,
        id: &[u8],
        info: &mut RequestInfo<'_>,
        w: &mut Writer<'_>,
        ex: Exchange<'_>,
        era_out: &mut Era,
    ) -> Result<bool, Fail<'r>> {
        if req
            .params
            .is_some_and(|p| req.doc.kind(p) != Some(Kind::Object))
        {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "params must be an object",
            )));
        }
        // The method's text is read once for all the names it is compared
        // with (on hosted targets; bare-metal ones compare in place, with
        // the one string compare they keep: flash first).
        let (text, escaped) = if cfg!(target_os = "none") {
            (&[][..], false)
        } else {
            let t = req.doc.str_inner(req.method).unwrap_or(&[]);
            (t, crate::json::has_byte(t, b'\\'))
        };
        let is = |name: &str| {
            if cfg!(target_os = "none") {
                req.is(name)
            } else {
                crate::json::name_is(text, escaped, name.as_bytes())
            }
        };
        let method = BUILT
            .iter()
            .find(|(name, _)| is(name))
            .map(|&(_, m)| m)
            .or_else(|| {
                (Method::Subscribe.built() && is("resources/unsubscribe"))
                    .then_some(Method::Subscribe)
            })
            .ok_or_else(|| not_found(req))?;
        // Without the `http` feature nothing checks the routing headers: a
        // request that carries them is refused, never served unchecked.
        if !cfg!(feature = "http") && envelope::carries_headers(info) {
            return Err(Fail::Rpc(envelope::headers_unchecked()));
        }
        // Without the `legacy` feature every request is judged by 2026-07-28:
        // no `initialize`, and the `_meta` envelope is required.
        let era = if cfg!(feature = "legacy") {
            envelope::era_of(req, info)
        } else {
            Era::Modern
        };
        let era = match (method, era) {
            // Removed at 2026-07-28: inside the modern envelope they do not exist.
            (m, Era::Modern) if m.legacy_only() => return Err(not_found(req)),
            (m, Era::Legacy) if m.legacy_only() => Era::Legacy,
            // Only 2026-07-28 has listen streams.
            (Method::Listen, Era::Legacy) => return Err(not_found(req)),
            (Method::Discover, _) | (_, Era::Modern) => {
                *era_out = Era::Modern;
                envelope::check(req, info).map_err(Fail::Rpc)?;
                Era::Modern
            }
            (_, Era::Legacy) => Era::Legacy,
        };
        *era_out = era;
        // What a transport says about a legacy exchange (log delivery, the
        // server-to-client requests it can carry) never applies to a
        // 2026-07-28 request, wherever the callee reads it.
        if era.is_modern() {
            info.flags &= !envelope::LEGACY_FLAGS;
        }
        let info = &*info;
        if cfg!(feature = "catalog") && method == Method::Listen {
            // The answer is the acknowledgement notification; the result
            // comes only when the stream ends (`Listener::close`).
            let (Some(l), Some(_)) = (ex.listener, info.emit) else {
                return Err(not_found(req));
            };
            listen::start(w, self, req, id, info, l)?;
            return Ok(true);
        }
        let caps = self.capabilities(info, ex.listener.is_some());
        if method == Method::Discover {
            modern::discover_answer(w, id, &self.info, caps)?;
            return Ok(false);
        }
        rpc::begin_result(w, id)?;
        // Methods that can ask for input decide between "complete" and
        // "input_required" themselves.
        let asks = matches!(
            method,
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead
        );
        if era.is_modern() && !asks {
            crate::protocol::result_complete(w)?;
        }
        match method {
            Method::ToolsList => tools::list(w, self, req, info, era)?,
            // (The store only with `policy`: no extra argument without it.)
            #[cfg(feature = "policy")]
            Method::ToolsCall => tools::call(w, self, req, info, era, ex.dedup, ex.store)?,
            #[cfg(not(feature = "policy"))]
            Method::ToolsCall => tools::call(w, self, req, info, era, ex.dedup)?,
            // `built()` let these through only with their feature; the guards
            // keep their code out of the builds without it.
            Method::ResourcesList if cfg!(feature = "catalog") => {
                resources::list(w, self, req, era, false)?
            }
            Method::TemplatesList if cfg!(feature = "catalog") => {
                resources::list(w, self, req, era, true)?
            }
            Method::ResourcesRead if cfg!(feature = "catalog") => {
                resources::read(w, self, req, info, era)?
            }
            Method::PromptsList if cfg!(feature = "catalog") => prompts::list(w, self, req, era)?,
            Method::PromptsGet if cfg!(feature = "catalog") => {
                prompts::get(w, self, req, info, era)?
            }
            Method::Complete if cfg!(feature = "catalog") => {
                completion::complete(w, self, req, info)?
            }
            Method::Initialize if cfg!(feature = "legacy") => legacy::initialize(
                w,
                &self.info,
                &req.doc,
                req.param("protocolVersion"),
                modern::Capabilities {
                    list_changed: info.flags & crate::limits::MCP_CTX_LEGACY_LIST_CHANGED != 0,
                    subscribe: false,
                    logging: info.flags & envelope::MCP_CTX_LEGACY_LOG != 0,
                    ..caps
                },
            )?,
            // Answered with an empty result (no legacy stream carries updates);
            // the rest were refused by `built()` in builds without them.
            _ => {}
        }
        if era.is_modern() {
            modern::result_meta(w, &self.info)?;
        }
        rpc::end_result(w)?;
        Ok(false)
    }

    /// What `server/discover` and `initialize` advertise: resources, prompts
    /// and completions only when registered, list changes only when this
    /// transport can hold a listen stream.
    fn capabilities(&self, info: &RequestInfo<'_>, can_listen: bool) -> modern::Capabilities {
        let c = &self.catalog;
        let catalog = cfg!(feature = "catalog");
        modern::Capabilities {
            prompts: catalog && c.prompt_count() > 0,
            resources: catalog && c.resource_count() > 0,
            completions: catalog && c.completion.is_some(),
            list_changed: catalog && can_listen && info.emit.is_some(),
            subscribe: catalog && can_listen && info.emit.is_some(),
            logging: false,
        }
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

/// The answer to a message the tokenizer refused. A parse error carries a
/// null id (JSON-RPC 2.0: the id cannot be trusted); a message refused for a
/// limit carries its own top-level id when a bounded scan finds a valid one
/// ([`rpc::scan_id`]), so the client can match the answer instead of
/// waiting, and the message names the limit and its value.
// Not inlined: its message buffer would otherwise sit in the frame of
// `mcp_server_handle` for the whole request.
#[inline(never)]
fn refuse_early(w: &mut Writer<'_>, request: &[u8], e: TokenizeError) -> Outcome {
    let (prefix, limit) = match e {
        TokenizeError::Invalid => {
            let err = RpcError::new(MCP_RPC_PARSE_ERROR, "Parse error");
            return error_outcome(w, None, &err, b"");
        }
        TokenizeError::TooManyTokens => (
            "Request has more JSON tokens than MCP_MAX_JSON_TOKENS (",
            MCP_MAX_JSON_TOKENS,
        ),
        TokenizeError::TooDeep => ("Request nests deeper than MCP_MAX_DEPTH (", MCP_MAX_DEPTH),
        TokenizeError::TooLong => (
            "Request is longer than the tokenizer's limit (",
            u32::MAX as usize,
        ),
    };
    let mut msg = MsgBuf::new();
    msg.push_uint(limit as u64);
    msg.push(")");
    // No short form: the longest of these messages (66 bytes with a
    // ten-digit limit) fits in full (`rpc::SHORT_MESSAGE_MAX`).
    let err = RpcError {
        code: MCP_RPC_INVALID_REQUEST,
        message: rpc::Message::Built(prefix, ""),
        data: rpc::Data::None,
    };
    error_outcome(w, rpc::scan_id(request), &err, msg.as_bytes())
}

fn error_outcome(w: &mut Writer<'_>, id: Option<&[u8]>, e: &RpcError<'_>, built: &[u8]) -> Outcome {
    rpc::write_error_with(w, id, e, built);
    Outcome {
        len: w.len(),
        rpc_error: e.code,
        http_status: rpc::http_status(e.code, false),
        ..Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Call, ToolResult};
    use crate::protocol::mrtr::StateMac;
    use crate::registry::{Handler, Tool};
    use core::ffi::c_int;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // Per thread: the test harness runs tests in parallel and each test
    // counts only the calls its own server made.
    thread_local! { static CALLS: AtomicUsize = const { AtomicUsize::new(0) }; }

    fn echo(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
        CALLS.with(|c| c.fetch_add(1, Ordering::SeqCst));
        let n = call
            .with_value("n", |d, i| d.as_i64(i).map_err(crate::call::ArgError::Conv))
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

    const VENT_SCHEMA: &str = r#"{"type":"object","required":["percent"],"properties":{"percent":{"type":"integer","minimum":0,"maximum":100},"n":{"type":"integer","default":9}}}"#;
    const OUT_SCHEMA: &str =
        r#"{"type":"object","required":["n"],"properties":{"n":{"type":"integer","maximum":10}}}"#;

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
        s.add_tool_as_built(Tool {
            description: Some("Echo n"),
            annotations: crate::limits::MCP_TOOL_READ_ONLY,
            ..Tool::new("echo", "{ \"type\": \"object\" }", Handler::Rust(echo))
        })
        .unwrap();
        // Measured: the largest result each writes in these tests
        // (`mcp_server_tool_usage`'s high-water mark).
        s.add_tool_as_built(Tool {
            max_result_len: 55,
            ..Tool::new("vent", VENT_SCHEMA, Handler::Rust(echo))
        })
        .unwrap();
        s.add_tool_as_built(Tool {
            output_schema: Some(OUT_SCHEMA),
            max_result_len: 56,
            ..Tool::new("typed", "{\"type\":\"object\"}", Handler::Rust(echo))
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
        let tools = concat!(
            r#"{"name":"echo","description":"Echo n","inputSchema":{"type":"object"},"#,
            r#""annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},"#,
            r#"{"name":"vent","inputSchema":{"type":"object","required":["percent"],"properties":{"percent":"#,
            r#"{"type":"integer","minimum":0,"maximum":100},"n":{"type":"integer","default":9}}}},"#,
            r#"{"name":"typed","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["n"],"#,
            r#""properties":{"n":{"type":"integer","maximum":10}}}}"#
        );
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":"a","result":{{"resultType":"complete","tools":[{tools}],"ttlMs":5,"cacheScope":"public",{STAMP}}}}}"#
            )
        );
    }

    #[test]
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
    fn call_modern_and_legacy() {
        let (r, _) = run(&modern(
            "12345678901234567890",
            "tools/call",
            r#","name":"echo","arguments":{"n":3}"#,
        ));
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":12345678901234567890,"result":{{"content":[{{"type":"text","text":"hi"}}],"structuredContent":{{"n":3}},"isError":false,"resultType":"complete",{STAMP}}}}}"#
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
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
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
    fn arguments_are_validated_before_the_callback() {
        let before = CALLS.with(|c| c.load(Ordering::SeqCst));
        // SEP-1303: a tool execution error (isError) whose text the model
        // reads, the path and keyword in the block's `_meta`; HTTP 200.
        for (args, msg, kw) in [
            (
                r#"{"percent":120}"#,
                "percent: 120 is above maximum 100",
                "maximum",
            ),
            (
                r#"{"percent":"60"}"#,
                "percent: expected integer, got string",
                "type",
            ),
            (
                r#"{"percent":60.5}"#,
                "percent: expected integer, got number",
                "type",
            ),
            (r#"{}"#, "percent: required", "required"),
            (
                r#"{"percent":1e400}"#,
                "percent: 1e400 is out of range",
                "type",
            ),
        ] {
            let (r, o) = run(&modern(
                "1",
                "tools/call",
                &format!(r#","name":"vent","arguments":{args}"#),
            ));
            assert_eq!((o.rpc_error, o.http_status), (0, 200), "{args}");
            let block = format!(
                r#""content":[{{"type":"text","text":"{msg}","_meta":{{"emcp/invalidArgument":{{"path":"percent","keyword":"{kw}"}}}}}}],"isError":true,"resultType":"complete""#
            );
            assert!(r.contains(&block), "{r}");
            assert_eq!(r.matches(r#""_meta":{"#).count(), 2, "one stamp: {r}");
        }
        // Absent arguments: the required one is reported, in both eras.
        let (r, o) = run(&modern("1", "tools/call", r#","name":"vent""#));
        assert_eq!((o.rpc_error, o.http_status), (0, 200), "{r}");
        assert!(
            r.contains(r#""result":{"content":[{"type":"text","text":"percent: required","_meta":{"emcp/invalidArgument":{"path":"percent","keyword":"required"}}}],"isError":true,"resultType":"complete""#),
            "{r}"
        );
        if cfg!(feature = "legacy") {
            let (r, o) =
                run(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vent"}}"#);
            assert_eq!((o.rpc_error, o.http_status), (0, 200), "{r}");
            assert!(
                r.contains(r#""result":{"content":[{"type":"text","text":"percent: required","_meta":{"emcp/invalidArgument":{"path":"percent","keyword":"required"}}}],"isError":true}"#),
                "{r}"
            );
        }
        assert_eq!(
            CALLS.with(|c| c.load(Ordering::SeqCst)),
            before,
            "a callback ran on invalid arguments"
        );
        // A valid call runs, and an absent argument reads its schema default.
        let (r, _) = run(&modern(
            "2",
            "tools/call",
            r#","name":"vent","arguments":{"percent":50}"#,
        ));
        assert!(r.contains(r#""structuredContent":{"n":9}"#), "{r}");
    }

    #[test]
    fn structured_content_is_checked_against_the_output_schema() {
        let (r, o) = run(&modern(
            "1",
            "tools/call",
            r#","name":"typed","arguments":{"n":4}"#,
        ));
        assert_eq!(o.rpc_error, 0, "{r}");
        let (r, o) = run(&modern(
            "1",
            "tools/call",
            r#","name":"typed","arguments":{"n":11}"#,
        ));
        assert_eq!(o.rpc_error, -32603);
        assert!(
            r.contains(r#""message":"structuredContent does not match outputSchema: n: 11 is above maximum 10""#),
            "{r}"
        );
    }

    fn traced(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
        let id = call
            .trace_id()
            .map(|b| String::from_utf8(b.to_vec()).unwrap());
        res.text(id.as_deref().unwrap_or("-")).map_or(-1, |_| 0)
    }

    fn paged(page_size: u32) -> Server<'static> {
        let mut s = server();
        s.tools.page_size = page_size;
        s.add_tool_as_built(Tool {
            title: Some("Trace"),
            icons: Some(r#"[ {"src":"data:image/png;base64,AA==","mimeType":"image/png"} ]"#),
            annotations: crate::limits::MCP_TOOL_IDEMPOTENT,
            max_result_len: 57, // measured
            ..Tool::new("trace", "{\"type\":\"object\"}", Handler::Rust(traced))
        })
        .unwrap();
        s
    }

    fn list_page(s: &Server<'_>, cursor: Option<&str>, cap: usize) -> serde_json::Value {
        let c = cursor.map_or(String::new(), |c| format!(r#","cursor":"{c}""#));
        let mut out = vec![0u8; cap];
        let o = s
            .handle(
                &RequestInfo::default(),
                modern("1", "tools/list", &c).as_bytes(),
                &mut out,
            )
            .unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    #[test]
    fn tools_list_pages() {
        let s = paged(3);
        let p1 = list_page(&s, None, 4096);
        let names: Vec<_> = p1["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect();
        assert_eq!(names, ["echo", "vent", "typed"]);
        assert_eq!(p1["result"]["nextCursor"], "3");
        let p2 = list_page(&s, Some("3"), 4096);
        let t = &p2["result"]["tools"][0];
        assert_eq!(t["name"], "trace");
        assert_eq!(t["icons"][0]["mimeType"], "image/png");
        assert_eq!(t["annotations"]["title"], "Trace");
        assert!(p2["result"].get("nextCursor").is_none());
        assert_eq!(p2["result"]["cacheScope"], p1["result"]["cacheScope"]);
        for bad in ["0", "4", "x", "", "99999999999"] {
            assert_eq!(
                list_page(&s, Some(bad), 4096)["error"]["code"],
                -32602,
                "{bad}"
            );
        }
        // Every buffer size gives a valid response; following nextCursor visits
        // each tool once, in order, whenever one tool fits.
        let all = paged(0);
        for cap in MCP_MIN_RESPONSE_CAP..1400 {
            let mut seen = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let page = list_page(&all, cursor.as_deref(), cap);
                let Some(r) = page.get("result") else {
                    assert_eq!(page["error"]["code"], -32603, "cap {cap}");
                    break;
                };
                seen.extend(
                    r["tools"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t["name"].as_str().unwrap().to_string()),
                );
                match r.get("nextCursor") {
                    Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
                    None => {
                        assert_eq!(seen, ["echo", "vent", "typed", "trace"], "cap {cap}");
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn trace_context_reaches_the_callback() {
        let s = paged(0);
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        for (trace, want) in [
            (
                format!(r#","traceparent":"{tp}""#),
                "4bf92f3577b34da6a3ce929d0e0e4736",
            ),
            (
                r#","traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01""#
                    .into(),
                "-",
            ),
            (r#","traceparent":"junk""#.into(), "-"),
            (String::new(), "-"),
        ] {
            // In the envelope's `_meta`, and (with `legacy`) in a 2025-11-25
            // request's own or none.
            let keys = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
            let mut reqs = vec![format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"trace","_meta":{{{keys}{trace}}}}}}}"#
            )];
            if cfg!(feature = "legacy") {
                let meta = match trace.strip_prefix(',') {
                    Some(t) => format!(r#","_meta":{{{t}}}"#),
                    None => String::new(),
                };
                reqs.push(format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"trace"{meta}}}}}"#
                ));
            }
            for req in reqs {
                let mut out = [0u8; 1024];
                let o = s
                    .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
                    .unwrap();
                let v: serde_json::Value = serde_json::from_slice(&out[..o.len]).unwrap();
                assert_eq!(v["result"]["content"][0]["text"], want, "{req}");
            }
        }
    }

    fn ask(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
        CALLS.with(|c| c.fetch_add(1, Ordering::SeqCst));
        let ok = call.with_input("confirm.content.ok", |d, i| {
            d.as_bool(i).map_err(crate::call::ArgError::Conv)
        });
        if call.state == Some(&b"v=90"[..]) && ok == Ok(true) {
            return r.text("done").map_or(-1, |_| 0);
        }
        let schema =
            r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;
        let asked = r.input_request(
            "confirm",
            "elicitation/create",
            crate::call::caps::ELICITATION,
            crate::call::InputParams::Elicit {
                message: "Open to 90%?",
                schema,
            },
        );
        match asked {
            Ok(()) => r.set_request_state(b"v=90").map_or(-1, |_| 0),
            Err(crate::call::ResultError::Unsupported) => {
                r.error("needs confirmation").map_or(-1, |_| 0)
            }
            Err(_) => 0,
        }
    }

    fn mrtr_server() -> Server<'static> {
        let mut s = server();
        s.state_mac = StateMac::Key([7; 64], 32);
        // 43: the largest result `ask` writes here (measured).
        s.add_tool_as_built(Tool {
            max_result_len: 43,
            ..Tool::new("ask", "{\"type\":\"object\"}", Handler::Rust(ask))
        })
        .unwrap();
        s.add_tool_as_built(Tool {
            max_result_len: 43,
            ..Tool::new("ask2", "{\"type\":\"object\"}", Handler::Rust(ask))
        })
        .unwrap();
        s
    }

    fn mrtr_call(s: &Server<'_>, tool: &str, caps: &str, extra: &str) -> serde_json::Value {
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}},"name":"{tool}"{extra}}}}}"#
        );
        let mut out = [0u8; 2048];
        let o = s
            .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
            .unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    #[test]
    #[cfg_attr(not(feature = "mrtr"), ignore = "needs the mrtr feature")]
    fn input_required_round_trip() {
        let s = mrtr_server();
        let caps = r#"{"elicitation":{}}"#;
        let first = mrtr_call(&s, "ask", caps, "");
        let r = &first["result"];
        assert_eq!(r["resultType"], "input_required", "{first}");
        assert_eq!(
            r["inputRequests"]["confirm"]["method"],
            "elicitation/create"
        );
        assert_eq!(r["inputRequests"]["confirm"]["params"]["mode"], "form");
        assert_eq!(
            r["inputRequests"]["confirm"]["params"]["requestedSchema"]["required"][0],
            "ok"
        );
        assert!(
            r.get("content").is_none() && r.get("isError").is_none(),
            "{first}"
        );
        let state = r["requestState"].as_str().unwrap().to_string();
        let answer = r#","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}"#;
        let retry = mrtr_call(
            &s,
            "ask",
            caps,
            &format!(r#"{answer},"requestState":"{state}""#),
        );
        assert_eq!(retry["result"]["resultType"], "complete", "{retry}");
        assert_eq!(retry["result"]["content"][0]["text"], "done");
        // Tampered, or replayed against another tool: refused before the callback.
        let before = CALLS.with(|c| c.load(Ordering::SeqCst));
        let mut bad = state.clone().into_bytes();
        bad[4] = if bad[4] == b'A' { b'B' } else { b'A' };
        let bad = String::from_utf8(bad).unwrap();
        for (tool, st) in [
            ("ask", bad.as_str()),
            ("ask2", state.as_str()),
            ("ask", "bm90IGEgc3RhdGU="),
        ] {
            let v = mrtr_call(
                &s,
                tool,
                caps,
                &format!(r#"{answer},"requestState":"{st}""#),
            );
            assert_eq!(v["error"]["code"], -32602, "{tool} {st}: {v}");
            assert_eq!(v["error"]["message"], "Invalid requestState");
        }
        assert_eq!(CALLS.with(|c| c.load(Ordering::SeqCst)), before);
    }

    #[test]
    #[cfg_attr(not(feature = "mrtr"), ignore = "needs the mrtr feature")]
    fn input_requests_need_the_declared_capability() {
        let s = mrtr_server();
        let v = mrtr_call(&s, "ask", "{}", "");
        assert_eq!(v["error"]["code"], -32021, "{v}");
        assert_eq!(
            v["error"]["data"],
            serde_json::json!({"requiredCapabilities":{"elicitation":{}}})
        );
        // Legacy era: no input_required; the tool decides what to answer.
        if cfg!(feature = "legacy") {
            let mut out = [0u8; 1024];
            let req = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}"#;
            let o = s.handle(&RequestInfo::default(), req, &mut out).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out[..o.len]).unwrap();
            assert_eq!(v["result"]["isError"], true, "{v}");
            assert!(v["result"].get("resultType").is_none());
        }
    }

    fn legacy_call(s: &Server<'_>, flags: u32, meta: &str, extra: &str) -> serde_json::Value {
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{{meta}"name":"ask"{extra}}}}}"#
        );
        let info = RequestInfo {
            flags,
            ..RequestInfo::default()
        };
        let mut out = [0u8; 2048];
        let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    /// The legacy round trip in the core ([`crate::roundtrip`]): the call
    /// becomes an elicitation/create request with an id of ours, the
    /// client's response is matched by id, the call runs again with it and
    /// its final response goes to the call's own id.
    #[test]
    #[cfg_attr(
        not(all(feature = "legacy", feature = "mrtr")),
        ignore = "needs the legacy and mrtr features"
    )]
    fn legacy_round_trip_in_core() {
        use crate::protocol::envelope::*;
        use crate::roundtrip::RoundTrip;
        let s = mrtr_server();
        let mut buf = [0u8; 2048];
        let mut rt = RoundTrip::new(1);
        let flags = MCP_CTX_LEGACY_ELICITATION;
        let info = RequestInfo {
            flags,
            ..RequestInfo::default()
        };
        let mut out = [0u8; 2048];
        let mut run = |rt: &mut RoundTrip, buf: &mut [u8], info: &RequestInfo<'_>, msg: &str| {
            let o = rt
                .handle(buf, &s, info, Exchange::default(), msg.as_bytes(), &mut out)
                .unwrap();
            (o, String::from_utf8(out[..o.len].to_vec()).unwrap())
        };
        // initialize reports what the client declared.
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}"#;
        let (o, _) = run(&mut rt, &mut buf, &RequestInfo::default(), init);
        assert_eq!(
            o.client_caps(),
            (MCP_CTX_LEGACY_ELICITATION | MCP_CTX_LEGACY_ROOTS) as u16
        );
        let call = r#"{"jsonrpc":"2.0","id":"c-9","method":"tools/call","params":{"name":"ask","arguments":{}}}"#;
        let (o, text) = run(&mut rt, &mut buf, &info, call);
        assert!(o.client_request(), "{text}");
        let req: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(req["id"], 1, "{text}");
        assert_eq!(req["method"], "elicitation/create", "{text}");
        assert_eq!(req["params"]["message"], "Open to 90%?", "{text}");
        assert!(rt.waiting());
        // While it waits: another call asking for input sees no capability,
        // a ping is answered, a stray response is not.
        let (o, text) = run(&mut rt, &mut buf, &info, &call.replace("c-9", "10"));
        assert!(!o.client_request());
        assert!(text.contains("needs confirmation"), "{text}");
        let (_, text) = run(
            &mut rt,
            &mut buf,
            &info,
            r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#,
        );
        assert_eq!(text, r#"{"jsonrpc":"2.0","id":11,"result":{}}"#);
        let (o, text) = run(
            &mut rt,
            &mut buf,
            &info,
            r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        );
        assert_eq!(
            (o.len, o.rpc_error, o.http_status),
            (0, MCP_RPC_INVALID_REQUEST, 400),
            "{text}"
        );
        // The answer: the call's own id gets the final result.
        let answer =
            r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"ok":true}}}"#;
        let (o, text) = run(&mut rt, &mut buf, &info, answer);
        assert!(!o.client_request());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["id"], "c-9", "{text}");
        assert_eq!(v["result"]["content"][0]["text"], "done", "{text}");
        assert!(!rt.waiting());
        // The same answer again matches nothing.
        let (o, _) = run(&mut rt, &mut buf, &info, answer);
        assert_eq!((o.len, o.rpc_error), (0, MCP_RPC_INVALID_REQUEST));

        // Declined every time: a new round each time (new ids), until the
        // rounds run out.
        let (_, text) = run(&mut rt, &mut buf, &info, call);
        let mut id: u64 = serde_json::from_str::<serde_json::Value>(&text).unwrap()["id"]
            .as_u64()
            .unwrap();
        assert_eq!(id, 2);
        for round in 2..=MCP_ROUNDTRIP_MAX_ROUNDS + 1 {
            let no = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"action":"decline"}}}}"#);
            let (o, text) = run(&mut rt, &mut buf, &info, &no);
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            if round <= MCP_ROUNDTRIP_MAX_ROUNDS {
                assert!(o.client_request(), "{text}");
                assert_eq!(v["id"].as_u64(), Some(id + 1), "{text}");
                id += 1;
            } else {
                assert_eq!(v["id"], "c-9", "{text}");
                assert_eq!(v["error"]["code"], MCP_RPC_INTERNAL_ERROR, "{text}");
                assert!(
                    v["error"]["message"].as_str().unwrap().contains("ROUNDS"),
                    "{text}"
                );
            }
        }
        assert!(!rt.waiting());

        // An error from the client ends the call with -32603.
        let (_, text) = run(&mut rt, &mut buf, &info, call);
        let id = serde_json::from_str::<serde_json::Value>(&text).unwrap()["id"].clone();
        let err = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-1,"message":"no"}}}}"#);
        let (o, text) = run(&mut rt, &mut buf, &info, &err);
        assert_eq!(o.rpc_error, MCP_RPC_INTERNAL_ERROR, "{text}");
        assert!(
            text.contains(r#""id":"c-9""#) && text.contains("with an error"),
            "{text}"
        );

        // A cancelled call answers its own id.
        let (_, _) = run(&mut rt, &mut buf, &info, call);
        let mut e = [0u8; 256];
        let n = rt.cancel(&buf, Some(&mut e), -32001, "Timed out");
        assert_eq!(
            core::str::from_utf8(&e[..n]).unwrap(),
            r#"{"jsonrpc":"2.0","id":"c-9","error":{"code":-32001,"message":"Timed out"}}"#
        );
        assert!(!rt.waiting());

        // Without the flag, or with a buffer too small for the call, the
        // tool sees a client that cannot be asked.
        let (o, text) = run(&mut rt, &mut buf, &RequestInfo::default(), call);
        assert!(
            !o.client_request() && text.contains("needs confirmation"),
            "{text}"
        );
        let mut tiny = [0u8; MCP_ROUNDTRIP_MIN_BUF];
        let long = call.replace("{}}}", &format!(r#"{{"pad":"{}"}}}}}}"#, "x".repeat(400)));
        let (o, text) = run(&mut rt, &mut tiny, &info, &long);
        assert!(
            !o.client_request() && text.contains("needs confirmation"),
            "{text}"
        );

        // A 2026-07-28 call's input_required result passes unchanged.
        let modern = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},"name":"ask"}}"#;
        let (o, text) = run(&mut rt, &mut buf, &info, modern);
        assert!(
            !o.client_request() && text.contains(r#""resultType":"input_required""#),
            "{text}"
        );
        assert!(!rt.waiting());
    }

    /// A legacy-era transport that carries server-to-client requests
    /// (MCP_CTX_LEGACY_*) gets the 2026-07-28 round trip internally: the
    /// input_required result to turn into requests, then the re-run with the
    /// answers and the state.
    #[test]
    #[cfg_attr(
        not(all(feature = "legacy", feature = "mrtr")),
        ignore = "needs the legacy and mrtr features"
    )]
    fn legacy_input_through_transport_flags() {
        use crate::protocol::envelope::*;
        let s = mrtr_server();
        // Without a flag: exactly as before (the tool sees Unsupported).
        let v = legacy_call(&s, MCP_CTX_HTTP, "", "");
        assert_eq!(v["result"]["isError"], true, "{v}");
        assert!(v["result"].get("resultType").is_none(), "{v}");
        let first = legacy_call(&s, MCP_CTX_HTTP | MCP_CTX_LEGACY_ELICITATION, "", "");
        let r = &first["result"];
        assert_eq!(r["resultType"], "input_required", "{first}");
        assert_eq!(
            r["inputRequests"]["confirm"]["method"],
            "elicitation/create"
        );
        assert!(r.get("content").is_none(), "{first}");
        let state = r["requestState"].as_str().unwrap().to_string();
        let retry = legacy_call(
            &s,
            MCP_CTX_HTTP | MCP_CTX_LEGACY_ELICITATION,
            "",
            &format!(
                r#","inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{state}""#
            ),
        );
        assert_eq!(retry["result"]["content"][0]["text"], "done", "{retry}");
        // A legacy result: no resultType on the final answer.
        assert!(retry["result"].get("resultType").is_none(), "{retry}");
        // The client declared another capability only: -32021 as at 2026-07-28.
        let v = legacy_call(&s, MCP_CTX_LEGACY_SAMPLING | MCP_CTX_LEGACY_ROOTS, "", "");
        assert_eq!(v["error"]["code"], -32021, "{v}");
        assert_eq!(
            v["error"]["data"],
            serde_json::json!({"requiredCapabilities":{"elicitation":{}}})
        );
        // A 2026-07-28 request ignores the legacy flags: its own envelope decides.
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"#;
        let v = legacy_call(&s, MCP_CTX_LEGACY_ELICITATION, meta, "");
        assert_eq!(v["error"]["code"], -32021, "{v}");
    }

    fn caps_seen(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
        let seen: Vec<&str> = ["elicitation", "sampling", "roots", "other"]
            .into_iter()
            .filter(|n| call.client_capability(n))
            .collect();
        r.text(&seen.join(",")).map_or(-1, |_| 0)
    }

    /// mcp_call_client_capability sees what a legacy transport vouches for,
    /// and at 2026-07-28 only the request's own declaration.
    #[test]
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
    fn client_capability_in_both_eras() {
        use crate::protocol::envelope::*;
        let mut s = server();
        s.add_tool_as_built(Tool {
            max_result_len: 39, // measured
            ..Tool::new("caps", "{\"type\":\"object\"}", Handler::Rust(caps_seen))
        })
        .unwrap();
        let run = |flags: u32, meta: &str| {
            let req = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{meta}"name":"caps"}}}}"#
            );
            let info = RequestInfo {
                flags,
                ..RequestInfo::default()
            };
            let mut out = [0u8; 1024];
            let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out[..o.len]).unwrap();
            v["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(run(0, ""), "");
        assert_eq!(
            run(MCP_CTX_LEGACY_SAMPLING | MCP_CTX_LEGACY_ROOTS, ""),
            "sampling,roots"
        );
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},"#;
        assert_eq!(run(MCP_CTX_LEGACY_SAMPLING, meta), "elicitation");
    }

    #[test]
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
    fn legacy_initialize_advertises_logging_only_when_delivered() {
        use crate::protocol::envelope::MCP_CTX_LEGACY_LOG;
        let s = server();
        let req = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        for (flags, want) in [(0, false), (MCP_CTX_LEGACY_LOG, true)] {
            let info = RequestInfo {
                flags,
                ..RequestInfo::default()
            };
            let mut out = [0u8; 1024];
            let o = s.handle(&info, req, &mut out).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out[..o.len]).unwrap();
            let caps = &v["result"]["capabilities"];
            assert_eq!(caps.get("logging").is_some(), want, "{v}");
        }
    }

    // Per thread: the test harness runs tests in parallel and each test
    // counts only the calls its own server made.
    thread_local! { static ONCE_RUNS: AtomicUsize = const { AtomicUsize::new(0) }; }

    fn once(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
        let n = ONCE_RUNS.with(|c| c.fetch_add(1, Ordering::SeqCst));
        let big = call.lookup("big").is_ok();
        let text = if big {
            "x".repeat(600)
        } else {
            format!("run {n}")
        };
        r.text(&text).map_or(-1, |_| 0)
    }

    #[test]
    #[cfg_attr(not(feature = "policy"), ignore = "needs the policy feature")]
    fn idempotency_keys_never_run_a_tool_twice() {
        let mut s = server();
        s.add_tool_as_built(Tool {
            idempotency_key: Some("req"),
            max_result_len: 625, // measured
            ..Tool::new("once", "{\"type\":\"object\"}", Handler::Rust(once))
        })
        .unwrap();
        let d = crate::dedup::Dedup::new();
        let go = |id: &str, args: &str| {
            let req = modern(
                id,
                "tools/call",
                &format!(r#","name":"once","arguments":{args}"#),
            );
            let mut out = vec![0u8; 2048];
            let o = s
                .handle_with(
                    &RequestInfo::default(),
                    Exchange {
                        dedup: Some(&d),
                        ..Exchange::default()
                    },
                    req.as_bytes(),
                    &mut out,
                )
                .unwrap();
            String::from_utf8(out[..o.len].to_vec()).unwrap()
        };
        let runs = ONCE_RUNS.with(|c| c.load(Ordering::SeqCst));
        let first = go("1", r#"{"req":"a"}"#);
        let again = go("2", r#"{"req":"a"}"#);
        assert_eq!(
            again,
            first.replacen(r#""id":1"#, r#""id":2"#, 1),
            "the original result, under the new id"
        );
        assert_eq!(ONCE_RUNS.with(|c| c.load(Ordering::SeqCst)), runs + 1);
        let other = go("3", r#"{"req":"b"}"#);
        assert!(other.contains(&format!("run {}", runs + 1)), "{other}");
        let no_key = go("4", "{}");
        assert!(no_key.contains("run"), "{no_key}");
        go("5", r#"{"req":"big","big":1}"#);
        let gone = go("6", r#"{"req":"big","big":1}"#);
        assert!(
            gone.contains("the original result was too large to keep")
                && gone.contains(r#""isError":true"#),
            "{gone}"
        );
        assert_eq!(ONCE_RUNS.with(|c| c.load(Ordering::SeqCst)), runs + 4);
        let long = go("7", &format!(r#"{{"req":"{}"}}"#, "k".repeat(65)));
        assert!(
            long.contains(r#""text":"req: idempotency key is longer than MCP_DEDUP_KEY_MAX 64","_meta":{"emcp/invalidArgument":{"path":"req","keyword":"maxLength"}}"#)
                && long.contains(r#""isError":true"#),
            "{long}"
        );
        assert_eq!(ONCE_RUNS.with(|c| c.load(Ordering::SeqCst)), runs + 4);
    }

    #[test]
    #[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
    fn mcp_param_headers_mirror_their_arguments() {
        use crate::call::HeaderParam;
        use crate::protocol::envelope::MCP_CTX_HTTP;
        let mut s = server();
        let schema = r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}"#;
        s.add_tool_as_built(Tool {
            max_result_len: 56, // measured
            ..Tool::new("regional", schema, Handler::Rust(echo))
        })
        .unwrap();
        let req = modern(
            "1",
            "tools/call",
            r#","name":"regional","arguments":{"region":"eu","n":42}"#,
        );
        let code = |flags: u32, params: &[(&'static [u8], &'static [u8])]| {
            let hp: Vec<HeaderParam<'static>> = params
                .iter()
                .map(|&(name, value)| HeaderParam { name, value })
                .collect();
            let info = RequestInfo {
                hdr_protocol_version: Some(b"2026-07-28"),
                hdr_method: Some(b"tools/call"),
                hdr_name: Some(b"regional"),
                flags,
                hdr_params: crate::call::HeaderParams::slice(&hp),
                ..RequestInfo::default()
            };
            let mut out = vec![0u8; 2048];
            s.handle(&info, req.as_bytes(), &mut out).unwrap().rpc_error
        };
        assert_eq!(code(0, &[]), 0, "no headers off HTTP: nothing to compare");
        assert_eq!(code(MCP_CTX_HTTP, &[(b"Region", b"eu"), (b"N", b"42")]), 0);
        assert_eq!(
            code(
                MCP_CTX_HTTP,
                &[(b"region", b" =?base64?ZXU=?= "), (b"n", b"42")]
            ),
            0
        );
        assert_eq!(
            code(MCP_CTX_HTTP, &[(b"Region", b"us"), (b"N", b"42")]),
            -32020
        );
        assert_eq!(
            code(MCP_CTX_HTTP, &[(b"Region", b"eu"), (b"N", b"4.2e1")]),
            -32020
        );
        assert_eq!(
            code(MCP_CTX_HTTP, &[(b"Region", b"eu")]),
            -32020,
            "missing over HTTP"
        );
        assert_eq!(
            code(0, &[(b"Region", b"EU")]),
            -32020,
            "values are case-sensitive"
        );
        let no_args = modern("2", "tools/call", r#","name":"regional","arguments":{}"#);
        let hp = [HeaderParam {
            name: b"Region",
            value: b"eu",
        }];
        let info = RequestInfo {
            hdr_params: crate::call::HeaderParams::slice(&hp),
            ..RequestInfo::default()
        };
        let mut out = vec![0u8; 1024];
        assert_eq!(
            s.handle(&info, no_args.as_bytes(), &mut out)
                .unwrap()
                .rpc_error,
            -32020,
            "header without argument"
        );
    }

    #[test]
    fn notifications_never_run() {
        let before = CALLS.with(|c| c.load(Ordering::SeqCst));
        let (r, o) = run(&format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{{ENV},"name":"echo","arguments":{{"n":1}}}}}}"#
        ));
        assert_eq!((r.as_str(), o.http_status), ("", 202));
        let (r, _) = run(r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#);
        assert_eq!(r, "");
        assert_eq!(CALLS.with(|c| c.load(Ordering::SeqCst)), before);
    }

    #[test]
    #[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
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

    /// At the smallest buffer with the longest id, an error whose full
    /// message does not fit is sent in a short form that still names its
    /// cause (issue 42, item 9), not the code's generic message: a result
    /// that breaks its outputSchema (the tool ran) must not read like a call
    /// refused for space (the tool did not run).
    #[test]
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
    fn degraded_errors_still_name_their_cause() {
        let long_id = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN - 2));
        // A legacy call: with the longest id, a modern result's envelope
        // alone does not fit the smallest buffer, so no tool would run.
        let message = |method: &str, params: &str| {
            let req = format!(
                r#"{{"jsonrpc":"2.0","id":{long_id},"method":"{method}","params":{{{params}}}}}"#
            );
            let (r, o) = run_with(&RequestInfo::default(), &req, MCP_MIN_RESPONSE_CAP);
            let v: serde_json::Value = serde_json::from_str(&r).unwrap();
            assert_eq!(
                v["id"].as_str().map(str::len),
                Some(MCP_MAX_ID_LEN - 2),
                "{r}"
            );
            (
                o.rpc_error,
                v["error"]["message"].as_str().unwrap().to_string(),
            )
        };
        let before = CALLS.with(|c| c.load(Ordering::SeqCst));
        assert_eq!(
            message("tools/call", r#""name":"typed","arguments":{"n":11}"#),
            (-32603, "Result breaks outputSchema".to_string())
        );
        assert_eq!(CALLS.with(|c| c.load(Ordering::SeqCst)), before + 1);
        let unknown = format!(r#""name":"{}""#, "u".repeat(120));
        assert_eq!(
            message("tools/call", &unknown),
            (-32602, "Unknown tool".to_string())
        );
        // A callback's overflow keeps its own message, which always fits.
        assert_eq!(
            message("tools/call", r#""name":"echo","arguments":{"n":5000}"#),
            (-32603, "Response exceeds the response buffer".to_string())
        );
        // A modern request without its envelope keys.
        assert_eq!(
            message(
                "tools/list",
                r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#
            ),
            (
                -32602,
                "params._meta lacks the MCP envelope keys".to_string()
            )
        );
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

    /// 2025-11-25 clients (the TypeScript SDK) read a JSON-RPC error only when
    /// it travels with HTTP 200; 2026-07-28 keeps its status table.
    #[test]
    #[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
    fn http_status_follows_the_era() {
        let legacy = |m: &str, p: &str| {
            run(&format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"{m}","params":{{{p}}}}}"#
            ))
            .1
        };
        let cases = [
            ("tools/call", r#""name":"nope""#, -32602, 400),
            // Bad arguments are a tool error (SEP-1303), 200 in both eras.
            (
                "tools/call",
                r#""name":"vent","arguments":{"percent":"x"}"#,
                0,
                200,
            ),
            ("tools/call", r#""name":"vent","arguments":[]"#, -32602, 400),
            ("no/such/method", "", -32601, 404),
            ("resources/read", r#""uri":"a://b""#, -32602, 400),
        ];
        // (Without `catalog` there is no resources/read to ask.)
        let cases = cases
            .into_iter()
            .filter(|c| cfg!(feature = "catalog") || c.0 != "resources/read");
        for (m, p, code, modern_status) in cases {
            let o = legacy(m, p);
            let legacy_code = if m == "resources/read" { -32002 } else { code };
            assert_eq!((o.rpc_error, o.http_status), (legacy_code, 200), "{m} {p}");
            let extra = if p.is_empty() {
                String::new()
            } else {
                format!(",{p}")
            };
            let (r, o) = run(&modern("4", m, &extra));
            assert_eq!(
                (o.rpc_error, o.http_status),
                (code, modern_status),
                "{m} {p}: {r}"
            );
        }
        // Unparsable stays 400 whatever the era; a discover without its
        // envelope is judged as 2026-07-28.
        assert_eq!(run("{\"id\":1,").1.http_status, 400);
        let o = legacy("server/discover", "");
        assert_eq!((o.rpc_error, o.http_status), (-32602, 400));
        // A legacy request without a session (the HTTP binding's flag) is
        // refused by the envelope check with 400, as 2025-11-25 asks.
        let info = RequestInfo {
            flags: crate::ffi::MCP_CTX_LEGACY_NO_SESSION,
            ..RequestInfo::default()
        };
        let (r, o) = run_with(
            &info,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            4096,
        );
        assert_eq!((o.rpc_error, o.http_status), (-32600, 400), "{r}");
    }

    /// A request refused for a limit is answered with its own id wherever
    /// the id stands among the top-level members, and the message names the
    /// limit and its value; null only when there is no usable id.
    #[test]
    fn limit_refusals_carry_the_request_id() {
        let steps = vec![r#"{"rpm":1}"#; MCP_MAX_JSON_TOKENS / 2].join(",");
        let args = format!(r#"{{"name":"run","arguments":{{"steps":[{steps}]}}}}"#);
        let first =
            format!(r#"{{"id":"req-7","jsonrpc":"2.0","method":"tools/call","params":{args}}}"#);
        let last =
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{args}, "id" : 42 }}"#);
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"x":{}{}}}}}"#,
            "[".repeat(MCP_MAX_DEPTH),
            "]".repeat(MCP_MAX_DEPTH)
        );
        for (req, id) in [
            (&first, r#""id":"req-7""#),
            (&last, r#""id":42"#),
            (&deep, r#""id":3"#),
        ] {
            let (r, o) = run(req);
            assert_eq!(o.rpc_error, -32600, "{r}");
            assert!(r.contains(id), "{r}");
        }
        let (r, _) = run(&first);
        let want = format!("MCP_MAX_JSON_TOKENS ({MCP_MAX_JSON_TOKENS})");
        assert!(r.contains(&want), "{r}");
        let (r, _) = run(&deep);
        assert!(
            r.contains(&format!("MCP_MAX_DEPTH ({MCP_MAX_DEPTH})")),
            "{r}"
        );
        // No id, an id that is not a string or number, one that is too long,
        // one nested deeper than the top level: null.
        let too_long = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN));
        for id in [
            "",
            r#""id":{"a":1},"#,
            r#""id":true,"#,
            &format!(r#""id":{too_long},"#),
        ] {
            let req = format!(r#"{{{id}"jsonrpc":"2.0","method":"tools/call","params":{args}}}"#);
            let (r, o) = run(&req);
            assert_eq!(o.rpc_error, -32600, "{r}");
            assert!(r.contains(r#""id":null"#), "{id}: {r}");
        }
        // A parse error keeps a null id even when an id precedes the fault.
        let (r, o) = run(r#"{"id":5,"jsonrpc":"2.0","method":"ping",}"#);
        assert_eq!(o.rpc_error, -32700);
        assert!(r.contains(r#""id":null"#), "{r}");
    }

    /// Compiles `text` into leaked storage (a program outlives the server).
    fn program_of(text: &str) -> &'static [u8] {
        let mut buf = vec![0u8; 4096];
        let n = crate::schema::emit(text, &mut buf).unwrap();
        buf.truncate(n);
        Box::leak(buf.into_boxed_slice())
    }

    /// `tool` as emcp-gen builds it: its listing and its programs.
    fn built(tool: Tool<'static>) -> Tool<'static> {
        let mut buf = vec![0u8; 4096];
        let n = crate::registry::listing(&tool, &mut buf).unwrap();
        buf.truncate(n);
        let listing: &'static [u8] = Box::leak(buf.into_boxed_slice());
        Tool {
            listing: Some(core::str::from_utf8(listing).unwrap()),
            input_program: Some(program_of(tool.input_schema)),
            output_program: tool.output_schema.map(program_of),
            ..tool
        }
    }

    const RICH: &str = r#"{"type":"object","required":["percent"],"additionalProperties":false,"properties":{"percent":{"type":"integer","minimum":0,"maximum":100},"n":{"type":"integer","default":9},"id":{"type":"string","enum":["t1","t2"],"x-mcp-header":"Sensor"},"r":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},"l":{"type":"array","maxItems":2,"items":{"type":"string","minLength":2}}}}"#;
    const RICH_OUT: &str =
        r#"{"type":"object","required":["n"],"properties":{"n":{"type":"integer","maximum":10}}}"#;

    /// A built tool (listing and programs) answers every request exactly as
    /// the same tool registered from its texts: its tools/list entry, and
    /// every call's verdict, SEP-1303 message with path and keyword, the
    /// defaults its callback reads, its output schema's verdict.
    #[test]
    fn a_built_tool_answers_as_its_texts_do() {
        let texts = |name| Tool {
            title: Some("Rich"),
            description: Some("All the kinds of rule"),
            output_schema: Some(RICH_OUT),
            annotations: crate::limits::MCP_TOOL_IDEMPOTENT,
            icons: Some(r#"[{"src":"data:,x"}]"#),
            max_result_len: 55,
            ..Tool::new(name, RICH, Handler::Rust(echo))
        };
        let mut plain = server();
        plain.add_tool_as_built(texts("rich")).unwrap();
        let mut made = server();
        made.add_tool_as_built(built(texts("rich"))).unwrap();
        assert!(matches!(
            made.tools.find_by(|n| n == "rich").unwrap().def,
            crate::registry::Def::Built { .. }
        ));
        let ask = answer;
        // A tool from texts compiled into program storage at registration
        // (mcp_server_set_program_storage): built, answering as its texts do.
        #[cfg(feature = "text-tools")]
        let stored = {
            let mut s = server();
            let store = std::boxed::Box::leak(std::vec![0u8; 4096].into_boxed_slice());
            s.tools.set_store(store).unwrap();
            s.add_tool(texts("rich")).unwrap();
            assert!(matches!(
                s.tools.find_by(|n| n == "rich").unwrap().def,
                crate::registry::Def::Built { .. }
            ));
            let (used, cap) = s.tools.store_usage();
            assert!(used > RICH.len() && cap == 4096, "{used} of {cap}");
            s
        };
        #[cfg(not(feature = "text-tools"))]
        let stored = server();
        let stored_ok = cfg!(feature = "text-tools");
        let list = modern("1", "tools/list", "");
        assert_eq!(ask(&plain, &list), ask(&made, &list));
        if stored_ok {
            assert_eq!(ask(&plain, &list), ask(&stored, &list));
        }
        let cases = [
            r#"{"percent":5}"#,
            r#"{"percent":5,"n":3}"#,
            r#"{"percent":5,"n":11}"#,
            r#"{"percent":101}"#,
            r#"{"percent":-1}"#,
            r#"{"percent":5.5}"#,
            r#"{}"#,
            r#"{"percent":5,"x":1}"#,
            r#"{"percent":5,"id":"t3"}"#,
            r#"{"percent":5,"id":"t2"}"#,
            r#"{"percent":5,"r":0}"#,
            r#"{"percent":5,"r":1.25}"#,
            r#"{"percent":5,"r":2.5}"#,
            r#"{"percent":5,"l":["ab","c"]}"#,
            r#"{"percent":5,"l":["ab","cd","ef"]}"#,
            r#"{"percent":"5"}"#,
        ];
        let (mut refused, mut faults) = (0, 0);
        for args in cases {
            let req = modern(
                "1",
                "tools/call",
                &format!(r#","name":"rich","arguments":{args}"#),
            );
            let (a, b) = (ask(&plain, &req), ask(&made, &req));
            assert_eq!(a, b, "{args}");
            if stored_ok {
                assert_eq!(a, ask(&stored, &req), "stored: {args}");
            }
            refused += usize::from(a.contains(r#""isError":true"#));
            faults += usize::from(a.contains("does not match outputSchema"));
        }
        assert_eq!(
            (refused, faults),
            (11, 1),
            "the cases mix accepted, refused and faulty calls"
        );
        // The Mcp-Param header declared by `id` is read from the program too.
        let req = modern(
            "1",
            "tools/call",
            r#","name":"rich","arguments":{"percent":5,"id":"t1"}"#,
        );
        let params = [crate::call::HeaderParam {
            name: b"sensor",
            value: b"t2",
        }];
        let info = RequestInfo {
            hdr_params: crate::call::HeaderParams::slice(&params),
            ..RequestInfo::default()
        };
        let ask_hdr = |s: &Server<'_>| {
            let mut out = vec![0u8; 4096];
            let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
            (
                String::from_utf8(out[..o.len].to_vec()).unwrap(),
                o.rpc_error,
            )
        };
        let (a, b) = (ask_hdr(&plain), ask_hdr(&made));
        assert_eq!(a, b);
        if stored_ok {
            assert_eq!(a, ask_hdr(&stored));
        }
        if cfg!(feature = "http") {
            assert_eq!(a.1, crate::limits::MCP_RPC_HEADER_MISMATCH, "{}", a.0);
        }
    }

    /// The answer of `s` to `req` (a fresh exchange, 4 KiB response buffer).
    fn answer(s: &Server<'_>, req: &str) -> String {
        let mut out = vec![0u8; 4096];
        let o = s
            .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
            .unwrap();
        String::from_utf8(out[..o.len].to_vec()).unwrap()
    }

    /// Program storage: a tool that does not fit is refused whole, saying
    /// how much was left, and the next that fits is taken; storage is given
    /// once.
    #[cfg(feature = "text-tools")]
    #[test]
    fn program_storage_fills_and_says_so() {
        let vent = |name| Tool {
            max_result_len: 9,
            ..Tool::new(name, VENT_SCHEMA, Handler::Rust(echo))
        };
        let small = |name| Tool {
            annotations: crate::limits::MCP_TOOL_READ_ONLY,
            ..Tool::new(name, "{\"type\":\"object\"}", Handler::Rust(echo))
        };
        // What each takes, measured in ample storage.
        let need = |t: Tool<'static>| {
            let mut s = server();
            s.tools
                .set_store(std::boxed::Box::leak(
                    std::vec![0u8; 4096].into_boxed_slice(),
                ))
                .unwrap();
            s.add_tool(t).unwrap();
            s.tools.store_usage().0
        };
        let (big, little) = (need(vent("a")), need(small("c")));
        assert!(big > little && little > 0, "{big} {little}");
        let size = big + little;
        let mut s = server();
        let store = std::boxed::Box::leak(std::vec![0u8; size].into_boxed_slice());
        s.tools.set_store(store).unwrap();
        let other = std::boxed::Box::leak(std::vec![0u8; 8].into_boxed_slice());
        assert_eq!(
            s.tools.set_store(other),
            Err(crate::registry::RegisterError::Duplicate)
        );
        let before = s.tools.len();
        s.add_tool(vent("a")).unwrap();
        assert_eq!(s.tools.store_usage(), (big, size));
        assert_eq!(
            s.add_tool(vent("b")),
            Err(crate::registry::RegisterError::Full)
        );
        let mut m = crate::schema::MsgBuf::new();
        s.tools.last_error.unwrap().describe(&mut m);
        assert_eq!(
            m.as_str(),
            format!(
                "program storage full (mcp_server_set_program_storage): the tool's listing and \
                 programs need more than the bytes left, {}",
                size - big
            )
        );
        assert_eq!(s.tools.store_usage(), (big, size), "nothing taken");
        assert_eq!(s.tools.len(), before + 1);
        // A smaller tool still fits what is left.
        s.add_tool(small("c")).unwrap();
        assert_eq!(s.tools.store_usage(), (big + little, size));
    }

    /// A tool replaced under its name: the new schema lists and decides,
    /// its place stays, an unknown name is refused; in program storage too.
    #[cfg(feature = "text-tools")]
    #[test]
    fn a_replaced_tool_answers_by_its_new_schema() {
        let stricter: &'static str = std::boxed::Box::leak(
            VENT_SCHEMA
                .replace(r#""maximum":100"#, r#""maximum":50"#)
                .into_boxed_str(),
        );
        for stored in [false, true] {
            if stored && !cfg!(feature = "text-tools") {
                continue;
            }
            let mut s = server();
            #[cfg(feature = "text-tools")]
            if stored {
                let store = std::boxed::Box::leak(std::vec![0u8; 4096].into_boxed_slice());
                s.tools.set_store(store).unwrap();
            }
            let vent = |schema| Tool {
                max_result_len: 55,
                ..Tool::new("v", schema, Handler::Rust(echo))
            };
            s.add_tool_as_built(vent(VENT_SCHEMA)).unwrap();
            let before = s.tools.len();
            let ask = answer;
            let call = modern(
                "1",
                "tools/call",
                r#","name":"v","arguments":{"percent":70}"#,
            );
            assert!(!ask(&s, &call).contains(r#""isError":true"#));
            let new = if cfg!(feature = "text-tools") {
                vent(stricter)
            } else {
                built(vent(stricter))
            };
            s.tools.replace(new, 0).unwrap();
            assert_eq!(s.tools.len(), before);
            assert!(ask(&s, &call).contains("percent: 70 is above maximum 50"));
            let list = ask(&s, &modern("1", "tools/list", ""));
            let at = list.find(r#"{"name":"v""#).expect("v is listed");
            let entry = &list[at..];
            let entry = &entry[..entry[1..]
                .find(r#"{"name":"#)
                .map_or(entry.len(), |e| e + 1)];
            assert!(entry.contains(r#""maximum":50"#) && !entry.contains(r#""maximum":100"#));
            assert_eq!(
                s.tools.replace(
                    Tool {
                        max_result_len: 1,
                        ..Tool::new("nope", VENT_SCHEMA, Handler::Rust(echo))
                    },
                    0
                ),
                Err(crate::registry::RegisterError::Missing)
            );
        }
    }

    /// The program, not the text, decides a call to a built tool: a program
    /// swapped behind registration's back (here: one that caps `percent`
    /// at 50) is what the call obeys.
    #[test]
    fn the_program_is_what_a_call_runs() {
        let mut s = server();
        s.add_tool_as_built(built(Tool {
            max_result_len: 55,
            ..Tool::new("p", VENT_SCHEMA, Handler::Rust(echo))
        }))
        .unwrap();
        let stricter = VENT_SCHEMA.replace(r#""maximum":100"#, r#""maximum":50"#);
        let i = s.tools.len() - 1;
        if let Some(crate::registry::Def::Built { input, .. }) = s
            .tools
            .slot_mut(i)
            .and_then(|t| t.entry.as_mut())
            .map(|t| &mut t.def)
        {
            *input = program_of(&stricter);
        }
        let req = modern(
            "1",
            "tools/call",
            r#","name":"p","arguments":{"percent":70}"#,
        );
        let mut out = vec![0u8; 4096];
        let o = s
            .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
            .unwrap();
        let r = String::from_utf8(out[..o.len].to_vec()).unwrap();
        assert!(r.contains("percent: 70 is above maximum 50"), "{r}");
    }

    /// Registration takes a built tool only with the programs of its own
    /// schemas (with the checker; without it, programs it can read), a
    /// listing that is one JSON object, and never a program without a
    /// listing (it would be ignored).
    #[test]
    fn registration_refuses_a_program_that_is_not_its_schemas() {
        let mut s = server();
        let tool = || Tool {
            max_result_len: 55,
            ..Tool::new("t", VENT_SCHEMA, Handler::Rust(echo))
        };
        let other: &'static [u8] = if cfg!(feature = "schema-check") {
            program_of(&VENT_SCHEMA.replace("100", "50"))
        } else {
            &[9, 9, 9, 9]
        };
        let r = s.add_tool_as_built(Tool {
            input_program: Some(other),
            ..built(tool())
        });
        assert_eq!(
            r,
            Err(crate::registry::RegisterError::Schema(
                crate::schema::SchemaErrorKind::Invalid
            ))
        );
        let mut m = crate::schema::MsgBuf::new();
        s.tools.last_error.unwrap().describe(&mut m);
        assert!(
            m.as_str()
                .contains("the program is not its schema's: run emcp-gen again"),
            "{}",
            m.as_str()
        );
        let bad = crate::registry::RegisterError::BadDefinition;
        assert_eq!(
            s.tools.add(
                Tool {
                    listing: Some("[1]"),
                    ..built(tool())
                },
                0
            ),
            Err(bad)
        );
        let other_name = built(Tool {
            max_result_len: 55,
            ..Tool::new("other", VENT_SCHEMA, Handler::Rust(echo))
        })
        .listing;
        assert_eq!(
            s.tools.add(
                Tool {
                    listing: other_name,
                    ..built(tool())
                },
                0
            ),
            Err(bad),
            "a listing naming another tool"
        );
        assert_eq!(
            s.tools.add(
                Tool {
                    listing: Some("{\"a\":"),
                    ..built(tool())
                },
                0
            ),
            Err(bad)
        );
        assert_eq!(
            s.tools.add(
                Tool {
                    listing: None,
                    ..built(tool())
                },
                0
            ),
            Err(bad)
        );
        assert_eq!(
            s.tools.add(
                Tool {
                    input_program: None,
                    ..built(tool())
                },
                0
            ),
            Err(bad)
        );
        assert_eq!(s.add_tool_as_built(built(tool())), Ok(()));
    }

    /// A build without the text-tools feature takes built tools only: a
    /// tool from texts is refused with what to do instead.
    #[test]
    #[cfg(not(feature = "text-tools"))]
    fn a_text_tool_is_refused_without_text_tools() {
        let mut s = server();
        let r = s.tools.add(
            Tool {
                max_result_len: 55,
                ..Tool::new("t", VENT_SCHEMA, Handler::Rust(echo))
            },
            crate::schema::seal(VENT_SCHEMA, None),
        );
        assert_eq!(r, Err(crate::registry::RegisterError::Unsupported));
        let mut m = crate::schema::MsgBuf::new();
        s.tools.last_error.unwrap().describe(&mut m);
        assert!(
            m.as_str().starts_with("this build takes built tools only"),
            "{}",
            m.as_str()
        );
    }
}
