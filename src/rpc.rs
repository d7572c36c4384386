//! JSON-RPC 2.0: the request object, ids, error objects and their HTTP status.
//!
//! Owns: deciding whether a message is a request, a notification or invalid;
//! echoing ids byte for byte; writing response frames and error objects; the
//! one table that maps error codes to HTTP statuses for every binding.
//! Must not: know MCP methods.

use crate::json::{
    Doc, Kind, TokenizeError, WriteError, Writer, check, check_finding, name_is, scan,
};
use crate::limits::*;

/// A well-formed JSON-RPC request or notification.
#[derive(Clone, Copy)]
pub struct Request<'r> {
    /// The tokenized message.
    pub doc: Doc<'r>,
    /// The id exactly as written, or `None` for a notification.
    pub id: Option<&'r [u8]>,
    /// Token of the method string.
    pub method: usize,
    /// Token of `params`, if present (not yet checked to be an object).
    pub params: Option<usize>,
    /// The params members every MCP request reads, located in one pass when
    /// the request is parsed (see [`Request::meta`] and the methods after it).
    located: Located,
}

/// Params members (and `_meta` members) found by [`read_request`], as byte
/// offsets into the request; 0 (never where a member's value starts) when
/// absent. Four bytes each, not a `usize`: a `Request` is copied into several
/// frames of a request.
#[derive(Clone, Copy, Default)]
struct Located {
    meta: u32,
    name: u32,
    arguments: u32,
    input_responses: u32,
    request_state: u32,
    version: u32,
    caps: u32,
}

fn present(tok: u32) -> Option<usize> {
    (tok != 0).then_some(tok as usize)
}

/// The `_meta` member naming the protocol version of a 2026-07-28 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` member carrying the client capabilities of a 2026-07-28 request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

impl Request<'_> {
    /// True when the method equals `name`.
    pub fn is(&self, name: &str) -> bool {
        self.doc.str_eq(self.method, name)
    }

    /// The params member `key`, if params and the member exist.
    pub fn param(&self, key: &str) -> Option<usize> {
        // `Doc::get` finds nothing in a non-object, so a bad params never matches.
        self.params.and_then(|p| self.doc.get(p, key))
    }

    /// `param("_meta")`, any type.
    pub fn meta(&self) -> Option<usize> {
        present(self.located.meta)
    }

    /// `param("_meta")` when it is an object.
    pub fn meta_object(&self) -> Option<usize> {
        self.meta()
            .filter(|&m| self.doc.kind(m) == Some(Kind::Object))
    }

    /// `param("name")`, any type.
    pub fn name(&self) -> Option<usize> {
        present(self.located.name)
    }

    /// `param("arguments")`, any type.
    pub fn arguments(&self) -> Option<usize> {
        present(self.located.arguments)
    }

    /// `param("inputResponses")`, any type.
    pub fn input_responses(&self) -> Option<usize> {
        present(self.located.input_responses)
    }

    /// `param("requestState")`, any type.
    pub fn request_state(&self) -> Option<usize> {
        present(self.located.request_state)
    }

    /// [`META_PROTOCOL_VERSION`] in an object `_meta`, any type.
    pub fn meta_version(&self) -> Option<usize> {
        present(self.located.version)
    }

    /// [`META_CLIENT_CAPABILITIES`] in an object `_meta`, any type.
    pub fn meta_caps(&self) -> Option<usize> {
        present(self.located.caps)
    }
}

/// The text of an error's `message`. Each form says what replaces it when
/// the whole response does not fit the buffer ([`RpcError::short`]).
#[derive(Clone, Copy, Debug)]
pub enum Message<'r> {
    /// A fixed text, which is also its short form.
    Static(&'static str),
    /// A fixed prefix followed by the escaped inside of a request string;
    /// then the short form (one of [`short`]).
    WithRaw(&'static str, &'r [u8], &'static str),
    /// A fixed prefix followed by the text the request built in its message
    /// buffer (a validation message; see [`write_error_with`]); then the
    /// short form (one of [`short`], or "" for the code's standard message).
    Built(&'static str, &'static str),
}

/// What an error says in place of a message that does not fit, so a client
/// (and the fuzz invariants) can still tell what happened: a short form is
/// sent with the same code and no data. Each fits a response of
/// `MCP_MIN_RESPONSE_CAP` bytes with an id of `MCP_MAX_ID_LEN` bytes
/// ([`SHORT_MESSAGE_MAX`]). A [`Message::Static`] text is its own short form.
pub mod short {
    /// structuredContent that does not match the tool's outputSchema (the
    /// tool ran).
    pub const OUTPUT_SCHEMA: &str = "Result breaks outputSchema";
    /// A call refused because the buffer cannot hold its result.
    pub const NO_SPACE: &str = "Response buffer too small for the result: the tool did not run";
    /// A server/discover answer that cannot fit the response buffer.
    pub const DISCOVER_NO_SPACE: &str = "Response buffer too small for the discover result";
    /// A list page that cannot hold even one entry.
    pub const LIST_NO_SPACE: &str = "Response buffer too small for one list entry";
    /// A tools/call naming no registered tool.
    pub const UNKNOWN_TOOL: &str = "Unknown tool";
    /// A prompts/get naming no registered prompt.
    pub const UNKNOWN_PROMPT: &str = "Unknown prompt";
    /// A prompts/get without one of the prompt's required arguments.
    pub const MISSING_ARGUMENT: &str = "Missing required prompt argument";
    /// A 2026-07-28 request whose `_meta` lacks the envelope keys.
    pub const NO_ENVELOPE: &str = "params._meta lacks the MCP envelope keys";

    /// Every short form (each is tested to fit).
    pub(crate) const ALL: [&str; 8] = [
        OUTPUT_SCHEMA,
        NO_SPACE,
        DISCOVER_NO_SPACE,
        LIST_NO_SPACE,
        UNKNOWN_TOOL,
        UNKNOWN_PROMPT,
        MISSING_ARGUMENT,
        NO_ENVELOPE,
    ];
}

/// The error response around a message, with the longest code the core
/// sends (`-32603`, like every `-32xxx`) and an empty id.
const ERROR_FRAME: &str = r#"{"jsonrpc":"2.0","id":,"error":{"code":-32603,"message":""}}"#;

/// The longest message (plain text, nothing to escape) that always fits: a
/// response of `MCP_MIN_RESPONSE_CAP` bytes holds it with an id of
/// `MCP_MAX_ID_LEN` bytes.
pub const SHORT_MESSAGE_MAX: usize = MCP_MIN_RESPONSE_CAP - MCP_MAX_ID_LEN - ERROR_FRAME.len();

const _: () = {
    let mut rest: &[&str] = &short::ALL;
    while let [first, tail @ ..] = rest {
        assert!(first.len() <= SHORT_MESSAGE_MAX);
        rest = tail;
    }
};

/// The `data` member of an error.
#[derive(Clone, Copy, Debug)]
pub enum Data<'r> {
    /// No data.
    None,
    /// A JSON value copied from the request (a method name string).
    Raw(&'r [u8]),
    /// `{"<key>":<raw>}` with a JSON value copied from the request
    /// (`{"uri":"..."}` for a resource that does not exist).
    Member(&'static str, &'r [u8]),
    /// -32021: `{"requiredCapabilities":{"<name>":{}}}`.
    Capability(&'static str),
    /// -32022: `{"supported":[...],"requested":<raw>}`.
    Unsupported {
        /// The protocol versions served in the modern envelope.
        supported: &'static [&'static str],
        /// The requested version as written (a JSON string).
        requested: &'r [u8],
    },
}

/// A JSON-RPC error to send instead of a result.
#[derive(Clone, Copy, Debug)]
pub struct RpcError<'r> {
    /// The error code.
    pub code: i32,
    /// The message.
    pub message: Message<'r>,
    /// Optional data.
    pub data: Data<'r>,
}

impl<'r> RpcError<'r> {
    /// An error with a fixed message and no data.
    pub const fn new(code: i32, message: &'static str) -> Self {
        RpcError {
            code,
            message: Message::Static(message),
            data: Data::None,
        }
    }

    /// An error with a fixed message too long to fit every buffer, and its
    /// short form (one of [`short`]).
    pub const fn long(code: i32, message: &'static str, short: &'static str) -> Self {
        RpcError {
            code,
            message: Message::Built(message, short),
            data: Data::None,
        }
    }

    /// The same error with `data`.
    pub const fn with_data(mut self, data: Data<'r>) -> Self {
        self.data = data;
        self
    }

    /// The message sent when the whole error does not fit: the cause's short
    /// form, or the code's standard message ([`short_message`]) when it has
    /// none.
    pub fn short(&self) -> &'static str {
        match self.message {
            Message::Static(s) | Message::WithRaw(_, _, s) | Message::Built(_, s)
                if !s.is_empty() =>
            {
                s
            }
            _ => short_message(self.code),
        }
    }
}

/// The message used when an error must be shrunk to fit the buffer.
pub fn short_message(code: i32) -> &'static str {
    match code {
        MCP_RPC_PARSE_ERROR => "Parse error",
        MCP_RPC_INVALID_REQUEST => "Invalid Request",
        MCP_RPC_METHOD_NOT_FOUND => "Method not found",
        MCP_RPC_INVALID_PARAMS => "Invalid params",
        MCP_RPC_HEADER_MISMATCH => "Header mismatch",
        // Only input requests (`mrtr`) answer this code.
        MCP_RPC_MISSING_CAPABILITY if cfg!(feature = "mrtr") => {
            "Missing required client capability"
        }
        MCP_RPC_UNSUPPORTED_VERSION => "Unsupported protocol version",
        _ => "Internal error",
    }
}

/// The HTTP status a binding should send with a response carrying `rpc_error`
/// (0 = a result); `no_response` is a notification (202, empty body). This is
/// 2026-07-28's table; a legacy-era request is answered by
/// [`http_status_legacy`].
pub fn http_status(rpc_error: i32, no_response: bool) -> u16 {
    if no_response {
        return 202;
    }
    match rpc_error {
        MCP_RPC_PARSE_ERROR
        | MCP_RPC_INVALID_REQUEST
        | MCP_RPC_INVALID_PARAMS
        | MCP_RPC_HEADER_MISMATCH
        | MCP_RPC_MISSING_CAPABILITY
        | MCP_RPC_UNSUPPORTED_VERSION => 400,
        MCP_RPC_METHOD_NOT_FOUND => 404,
        _ => 200,
    }
}

/// The HTTP status for the answer to a request of the 2025-11-25 era: a
/// JSON-RPC error to a request that was read travels with 200, as that
/// revision's clients expect (the TypeScript SDK treats any other status as a
/// transport failure and never reads the body; a 404 to a request with a
/// session id means "session ended, initialize again"). Only an unparsable
/// body keeps its 400; the missing or unknown session is judged by the
/// transport and the envelope check (`Bad Request: Missing session ID`),
/// which answer by the 2026-07-28 table.
pub fn http_status_legacy(rpc_error: i32, no_response: bool) -> u16 {
    match rpc_error {
        _ if no_response => 202,
        MCP_RPC_PARSE_ERROR => 400,
        _ => 200,
    }
}

/// The members every request is read by, located while the request is
/// checked ([`check_finding`]): the slot of each in the offsets
/// [`read_request`] keeps, by level (the top level, `params`,
/// `params._meta`); `params` and `_meta` lead to the next level.
fn envelope_slot(level: usize, name: &[u8], escaped: bool) -> Option<(usize, bool)> {
    if cfg!(target_os = "none") || escaped {
        return envelope_slot_by_table(level, name, escaped);
    }
    // Hosted targets: a match (a length switch, then one compare) instead of
    // comparing with each name of the level in turn; it is over 1 KB of
    // Thumb code, so bare-metal targets keep the table.
    const VERSION: &[u8] = META_PROTOCOL_VERSION.as_bytes();
    const CAPS: &[u8] = META_CLIENT_CAPABILITIES.as_bytes();
    let slot = match (level, name) {
        (1, b"id") => 0,
        (1, b"jsonrpc") => 1,
        (1, b"method") => 2,
        (1, b"params") => PARAMS,
        (2, b"name") => 4,
        (2, b"arguments") => 5,
        (2, b"inputResponses") => 6,
        (2, b"requestState") => 7,
        (2, b"_meta") => META,
        (3, VERSION) => 9,
        (3, CAPS) => 10,
        _ => return None,
    };
    Some((slot, slot == PARAMS || slot == META))
}

/// [`envelope_slot`] by its table (every target; the one form on bare metal).
fn envelope_slot_by_table(level: usize, name: &[u8], escaped: bool) -> Option<(usize, bool)> {
    let (from, to) = match level {
        1 => (0, PARAMS + 1),
        2 => (PARAMS + 1, META + 1),
        3 => (META + 1, ENVELOPE.len()),
        _ => return None,
    };
    let slot = from
        + ENVELOPE
            .get(from..to)?
            .iter()
            .position(|n| name_is(name, escaped, n))?;
    Some((slot, slot == PARAMS || slot == META))
}

/// [`envelope_slot`]'s names, level after level (a table: smaller code than
/// a match); each level's last leads to the next.
const ENVELOPE: [&[u8]; 11] = [
    b"id",
    b"jsonrpc",
    b"method",
    b"params",
    b"name",
    b"arguments",
    b"inputResponses",
    b"requestState",
    b"_meta",
    META_PROTOCOL_VERSION.as_bytes(),
    META_CLIENT_CAPABILITIES.as_bytes(),
];
const PARAMS: usize = 3;
const META: usize = 8;

/// Why a message is not a request to dispatch.
pub enum ReadError<'r> {
    /// Not one JSON text within the limits (answered from a scan of the text).
    Json(TokenizeError),
    /// Not a JSON-RPC request: the error to send and the id to send it with
    /// (`None` = null).
    Rpc(RpcError<'r>, Option<&'r [u8]>),
}

/// Checks `src` and reads its envelope, in one pass over the text.
// Not inlined: the located offsets would otherwise sit in the frame of
// `mcp_server_handle` for the whole request.
#[inline(never)]
pub fn read_request(src: &[u8]) -> Result<Request<'_>, ReadError<'_>> {
    let mut at = [0u32; 11];
    match check_finding(src, MCP_MAX_DEPTH, envelope_slot, &mut at) {
        Ok(n) if n <= MCP_MAX_JSON_TOKENS => {}
        Ok(_) => return Err(ReadError::Json(TokenizeError::TooManyTokens)),
        Err(e) => return Err(ReadError::Json(e)),
    }
    let doc = Doc::new(src);
    let root = doc.root();
    if doc.kind(root) != Some(Kind::Object) {
        return Err(ReadError::Rpc(
            RpcError::new(
                MCP_RPC_INVALID_REQUEST,
                "Body must be a single JSON-RPC request or notification object",
            ),
            None,
        ));
    }
    let [
        id_at,
        jsonrpc,
        method,
        params,
        name,
        arguments,
        input_responses,
        request_state,
        meta,
        version,
        caps,
    ] = at;
    let id = match present(id_at) {
        None => None,
        Some(i) => match doc.kind(i) {
            Some(Kind::String | Kind::Number) if doc.raw(i).len() <= MCP_MAX_ID_LEN => {
                Some(doc.raw(i))
            }
            Some(Kind::String | Kind::Number) => {
                return Err(ReadError::Rpc(
                    RpcError::new(MCP_RPC_INVALID_REQUEST, "id is longer than MCP_MAX_ID_LEN"),
                    None,
                ));
            }
            _ => {
                return Err(ReadError::Rpc(
                    RpcError::new(MCP_RPC_INVALID_REQUEST, "id must be a string or a number"),
                    None,
                ));
            }
        },
    };
    let invalid = |msg| {
        Err(ReadError::Rpc(
            RpcError::new(MCP_RPC_INVALID_REQUEST, msg),
            id,
        ))
    };
    if !present(jsonrpc).is_some_and(|v| doc.str_eq(v, "2.0")) {
        return invalid("jsonrpc must be \"2.0\"");
    }
    let Some(method) = present(method).filter(|&m| doc.kind(m) == Some(Kind::String)) else {
        return invalid("method must be a string");
    };
    // A params value that is not an object is refused by the dispatcher, so
    // that a malformed notification still gets no response. (Its members and
    // `_meta`'s were located only when they are objects.)
    Ok(Request {
        doc,
        id,
        method,
        params: present(params),
        located: Located {
            meta,
            name,
            arguments,
            input_responses,
            request_state,
            version,
            caps,
        },
    })
}

/// The id of a message the tokenizer refused for a limit (too many tokens,
/// too deep), found by a bounded scan of its top level: `Some` only when the
/// top-level `"id"` member is a string or number of at most
/// `MCP_MAX_ID_LEN` bytes that is valid JSON on its own, so the refusal can
/// be matched by the client; `None` (answered with a null id) otherwise.
pub fn scan_id(request: &[u8]) -> Option<&[u8]> {
    let raw = scan::top_level_member(request, b"id")?;
    is_id(raw).then_some(raw)
}

/// Where the id lies in the first bytes of a message too long to hold
/// whole (a line longer than a stream's receive buffer): as [`scan_id`], and
/// only when at least one byte follows the id within `prefix`, since a
/// number cut at the end of the bytes might go on.
pub fn scan_id_in_prefix(prefix: &[u8]) -> Option<core::ops::Range<usize>> {
    let at = scan::top_level_member_at(prefix, b"id")?;
    let raw = prefix.get(at.clone())?;
    (at.end < prefix.len() && is_id(raw)).then_some(at)
}

/// True when `raw` is an id the core writes back as it is: one JSON string or
/// number of at most `MCP_MAX_ID_LEN` bytes, valid JSON on its own.
pub fn is_id(raw: &[u8]) -> bool {
    if raw.len() > MCP_MAX_ID_LEN {
        return false;
    }
    let ok = check(raw, 1) == Ok(1);
    let kind = Doc::new(raw).kind(0);
    ok && matches!(kind, Some(Kind::String | Kind::Number))
}

/// Writes `{"jsonrpc":"2.0","id":<id>,` and the opening of `"result":{`.
pub fn begin_result(w: &mut Writer<'_>, id: &[u8]) -> Result<(), WriteError> {
    frame_open(w, Some(id), br#","result":{"#)
}

/// Closes what [`begin_result`] opened.
pub fn end_result(w: &mut Writer<'_>) -> Result<(), WriteError> {
    let _ = w.end_object();
    let _ = w.end_object();
    w.status()
}

/// The response's frame up to its `result` or `error` object, opened by
/// `member` (`,"result":{`): constant text around the id in one write.
fn frame_open(w: &mut Writer<'_>, id: Option<&[u8]>, member: &[u8]) -> Result<(), WriteError> {
    w.open_raw(
        &[br#"{"jsonrpc":"2.0","id":"#, id.unwrap_or(b"null"), member],
        2,
    )
}

/// Writes a whole error response; when it does not fit, writes the short form
/// (same code, [`RpcError::short`], no data), which names the cause and
/// always fits a buffer of `MCP_MIN_RESPONSE_CAP` bytes; a fixed message too
/// long for that gives way to the code's standard message.
pub fn write_error(w: &mut Writer<'_>, id: Option<&[u8]>, e: &RpcError<'_>) {
    write_error_with(w, id, e, b"");
}

/// [`write_error`] where a [`Message::Built`] message ends with `built`
/// (UTF-8).
pub fn write_error_with(w: &mut Writer<'_>, id: Option<&[u8]>, e: &RpcError<'_>, built: &[u8]) {
    let start = w.mark();
    if write_error_full(w, id, e, built).is_ok() {
        return;
    }
    for text in [e.short(), short_message(e.code)] {
        w.rewind(start);
        if write_error_full(w, id, &RpcError::new(e.code, text), b"").is_ok() {
            return;
        }
    }
}

fn write_error_full(
    w: &mut Writer<'_>,
    id: Option<&[u8]>,
    e: &RpcError<'_>,
    built: &[u8],
) -> Result<(), WriteError> {
    frame_open(w, id, br#","error":{"#)?;
    let _ = w.key("code");
    let _ = w.int(i64::from(e.code));
    let _ = w.key("message");
    match e.message {
        Message::Static(s) => w.string(s)?,
        Message::WithRaw(prefix, raw, _) => w.string_with_raw_tail(prefix, raw)?,
        Message::Built(prefix, _) => w.string_parts(&[prefix.as_bytes(), built])?,
    }
    // The arms of data only a feature's methods send compile out without it.
    match e.data {
        Data::Raw(raw) => {
            let _ = w.key("data");
            let _ = w.raw_value(raw);
        }
        Data::Member(key, raw) if cfg!(feature = "catalog") => {
            let _ = w.key("data");
            let _ = w.begin_object();
            let _ = w.key(key);
            let _ = w.raw_value(raw);
            let _ = w.end_object();
        }
        Data::Capability(name) if cfg!(feature = "mrtr") => {
            let _ = w.key("data");
            let _ = w.begin_object();
            let _ = w.key("requiredCapabilities");
            let _ = w.begin_object();
            let _ = w.key(name);
            let _ = w.begin_object();
            let _ = w.end_object();
            let _ = w.end_object();
            let _ = w.end_object();
        }
        Data::Unsupported {
            supported,
            requested,
        } => {
            let _ = w.key("data");
            let _ = w.begin_object();
            let _ = w.key("supported");
            let _ = w.begin_array();
            for v in supported {
                let _ = w.string(v);
            }
            let _ = w.end_array();
            let _ = w.key("requested");
            let _ = w.raw_value(requested);
            let _ = w.end_object();
        }
        Data::None | Data::Member(..) | Data::Capability(_) => {}
    }
    let _ = w.end_object();
    let _ = w.end_object();
    w.status()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Token, tokenize};

    #[test]
    fn short_errors_fit_the_minimum_buffer() {
        let id = [b'9'; MCP_MAX_ID_LEN];
        for code in [
            MCP_RPC_PARSE_ERROR,
            MCP_RPC_INVALID_REQUEST,
            MCP_RPC_METHOD_NOT_FOUND,
            MCP_RPC_INVALID_PARAMS,
            MCP_RPC_INTERNAL_ERROR,
            MCP_RPC_HEADER_MISMATCH,
            MCP_RPC_MISSING_CAPABILITY,
            MCP_RPC_UNSUPPORTED_VERSION,
        ] {
            let mut buf = [0u8; MCP_MIN_RESPONSE_CAP];
            let mut w = Writer::new(&mut buf);
            let long = [b'x'; 400];
            let e = RpcError {
                code,
                message: Message::WithRaw("prefix ", &long, ""),
                data: Data::Raw(b"\"data\""),
            };
            write_error(&mut w, Some(&id), &e);
            assert!(w.is_complete(), "code {code}");
            let mut t = [Token::EMPTY; 16];
            assert!(tokenize(w.as_bytes(), &mut t, 4).is_ok());
        }
    }

    /// Every short form, and any plain text of `SHORT_MESSAGE_MAX` bytes, is
    /// sent as itself at `MCP_MIN_RESPONSE_CAP` with an id of
    /// `MCP_MAX_ID_LEN` bytes, in place of a full message that does not fit.
    #[test]
    fn every_short_form_fits_the_minimum_buffer_with_the_longest_id() {
        let id = [b'9'; MCP_MAX_ID_LEN];
        let long = [b'x'; MCP_MIN_RESPONSE_CAP];
        let widest: &'static str = Box::leak("m".repeat(SHORT_MESSAGE_MAX).into_boxed_str());
        let mut forms: Vec<&'static str> = short::ALL.to_vec();
        forms.push(widest);
        for code in [
            MCP_RPC_PARSE_ERROR,
            MCP_RPC_INVALID_REQUEST,
            MCP_RPC_INVALID_PARAMS,
            MCP_RPC_INTERNAL_ERROR,
            MCP_RPC_UNSUPPORTED_VERSION,
        ] {
            for &form in &forms {
                for e in [
                    RpcError {
                        code,
                        message: Message::Built("built ", form),
                        data: Data::None,
                    },
                    RpcError {
                        code,
                        message: Message::WithRaw("raw ", &long, form),
                        data: Data::Raw(b"\"data\""),
                    },
                ] {
                    let mut buf = [0u8; MCP_MIN_RESPONSE_CAP];
                    let mut w = Writer::new(&mut buf);
                    write_error_with(&mut w, Some(&id), &e, &long);
                    assert!(w.is_complete(), "{code} {form}");
                    let want = format!(
                        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":"{form}"}}}}"#,
                        "9".repeat(MCP_MAX_ID_LEN)
                    );
                    assert_eq!(w.as_bytes(), want.as_bytes());
                }
            }
        }
        // One byte more than the bound does not fit: the bound is exact, and
        // such a text gives way to the code's standard message.
        let wider = "m".repeat(SHORT_MESSAGE_MAX + 1);
        let leaked: &'static str = Box::leak(wider.into_boxed_str());
        let mut buf = [0u8; MCP_MIN_RESPONSE_CAP];
        let mut w = Writer::new(&mut buf);
        write_error(
            &mut w,
            Some(&id),
            &RpcError::new(MCP_RPC_INTERNAL_ERROR, leaked),
        );
        assert!(w.is_complete());
        assert!(w.as_bytes().ends_with(br#""message":"Internal error"}}"#));
    }

    /// The hosted match names the same slots as the table, for every name
    /// of the table and some that are not there.
    #[test]
    fn envelope_match_agrees_with_table() {
        let mut names: Vec<&[u8]> = ENVELOPE.to_vec();
        names.extend([
            &b""[..],
            b"i",
            b"ids",
            b"param",
            b"paramsx",
            b"_met",
            b"io.model",
        ]);
        for level in 0..5 {
            for &n in &names {
                assert_eq!(
                    envelope_slot(level, n, false),
                    envelope_slot_by_table(level, n, false),
                    "{level} {}",
                    String::from_utf8_lossy(n)
                );
            }
        }
        assert_eq!(envelope_slot(1, br"\u0069d", true), Some((0, false)));
        assert_eq!(envelope_slot(2, br"\u005fmeta", true), Some((META, true)));
    }

    /// The envelope located in the checking pass is what member lookups on
    /// the checked text find (first member of a name, escaped names decoded,
    /// only inside an object `params` and an object `_meta`), member by member.
    #[test]
    fn envelope_located_while_checking_matches_lookups() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":1}}"#;
        let cases = [
            format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{meta},"name":"set_vent","arguments":{{"percent":40}}}}}}"#
            ),
            // Escaped names, whitespace, members in any order.
            format!(
                r#" {{ "p\u0061rams" : {{ "n\u0061me":"a" , {meta} }} , "\u0069d":"x", "method" :"m","jsonrpc":"2.0" }} "#
            ),
            // The first member of a name wins; a later object params is not read.
            r#"{"id":1,"id":2,"jsonrpc":"2.0","method":"a","method":"b","params":{"name":"x","name":"y"},"params":{"arguments":{}}}"#.to_string(),
            // A params that is not an object, then one that is: neither is entered.
            r#"{"id":1,"jsonrpc":"2.0","method":"a","params":[{"name":"x"}],"params":{"name":"y"}}"#.to_string(),
            // Envelope names deeper down are not envelope members.
            r#"{"id":1,"jsonrpc":"2.0","method":"a","params":{"arguments":{"name":"n","_meta":{},"params":{"name":"q"}},"x":{"name":"z"},"_meta":[{"io.modelcontextprotocol/protocolVersion":"v"}],"name":"t"}}"#.to_string(),
            r#"{"x":{"id":1,"params":{"name":"n"}},"jsonrpc":"2.0","method":"a","id":"i","inputResponses":{},"params":{"inputResponses":{"a":1},"requestState":"s","_meta":{"_meta":{},"io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_string(),
            r#"{"method":"a","jsonrpc":"2.0"}"#.to_string(),
            r#"{"params":{},"id":null,"method":"a","jsonrpc":"2.0"}"#.to_string(),
        ];
        // Members found per case (so the comparison is never of two empties).
        let counts = [9, 8, 5, 4, 7, 8, 2, 4];
        for (src, count) in cases.iter().zip(counts) {
            let src = src.as_bytes();
            let mut at = [0u32; ENVELOPE.len()];
            check_finding(src, MCP_MAX_DEPTH, envelope_slot, &mut at).unwrap();
            // The same members by lookups after the check.
            let doc = Doc::new(src);
            let mut want = [None; ENVELOPE.len()];
            let obj = |o: Option<u32>| {
                o.map(|v| v as usize)
                    .filter(|&v| doc.kind(v) == Some(Kind::Object))
            };
            let (one, rest) = want.split_at_mut(PARAMS + 1);
            let (two, three) = rest.split_at_mut(META - PARAMS);
            doc.get_many(doc.root(), &ENVELOPE[..=PARAMS], one);
            if let Some(p) = obj(one[PARAMS]) {
                doc.get_many(p, &ENVELOPE[PARAMS + 1..=META], two);
            }
            if let Some(m) = obj(two[META - PARAMS - 1]) {
                doc.get_many(m, &ENVELOPE[META + 1..], three);
            }
            assert_eq!(
                at,
                want.map(|w| w.unwrap_or(0)),
                "{}",
                String::from_utf8_lossy(src)
            );
            assert_eq!(at.iter().filter(|&&v| v != 0).count(), count);
        }
    }

    #[test]
    fn status_table() {
        assert_eq!(http_status(0, true), 202);
        assert_eq!(http_status(0, false), 200);
        assert_eq!(http_status(MCP_RPC_METHOD_NOT_FOUND, false), 404);
        assert_eq!(http_status(MCP_RPC_UNSUPPORTED_VERSION, false), 400);
        assert_eq!(http_status(MCP_RPC_INTERNAL_ERROR, false), 200);
    }
}
