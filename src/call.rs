//! What a tool callback sees: its arguments (read-only spans) and a result
//! builder that appends straight into the response buffer.
//!
//! Owns: argument paths (`a.b[2]`), typed reads, and the order in which a
//! result is written (content blocks, then structuredContent).
//! Must not: decide protocol-level errors; the dispatcher does that.

use core::ffi::{c_int, c_void};

use crate::json::{ConvError, Doc, Kind, Mark, Piece, WriteError, Writer};
use crate::limits::{
    MCP_AUDIENCE_ASSISTANT, MCP_AUDIENCE_USER, MCP_MAX_COMPLETIONS, MCP_MAX_DEPTH,
    MCP_MAX_NOTIFICATION, MCP_MAX_REQUEST_STATE, MCP_MAX_TEMPLATE_VARS,
};
use crate::schema;

/// What the transport knows about one exchange, as the core sees it.
#[derive(Clone, Copy)]
pub struct RequestInfo<'a> {
    /// Authenticated identity established by the transport, if any.
    pub principal: Option<&'a [u8]>,
    /// HTTP `MCP-Protocol-Version` header as received.
    pub hdr_protocol_version: Option<&'a [u8]>,
    /// HTTP `Mcp-Method` header as received.
    pub hdr_method: Option<&'a [u8]>,
    /// HTTP `Mcp-Name` header as received.
    pub hdr_name: Option<&'a [u8]>,
    /// The caller's monotonic clock, in milliseconds.
    pub now_ms: u64,
    /// The caller's own context object, handed back to tool callbacks.
    pub origin: *const c_void,
    /// `MCP_CTX_*` flags from the transport (HTTP rules, duplicate routing
    /// headers, legacy session state); 0 for none.
    pub flags: u32,
    /// HTTP `Mcp-Param-*` headers as received (name after the prefix, value).
    pub hdr_params: HeaderParams<'a>,
    /// More `Mcp-Param-*` headers arrived than `MCP_MAX_HEADER_PARAMS`.
    pub hdr_params_dropped: bool,
    /// Sends a notification within this exchange (progress, log messages).
    pub emit: Option<EmitFn>,
    /// Passed to `emit` unchanged.
    pub transport_context: *mut c_void,
    /// The transport's identity of this request, the same bytes when it is
    /// redelivered or retried (MQTT: Response Topic and Correlation Data):
    /// the duplicate table's key for a call of a keyed tool whose arguments
    /// carry no key.
    pub retry_key: Option<&'a [u8]>,
}

/// One `Mcp-Param-{name}` header.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeaderParam<'a> {
    /// The header name after `Mcp-Param-` (compared case-insensitively).
    pub name: &'a [u8],
    /// The value as received.
    pub value: &'a [u8],
}

/// The `Mcp-Param-*` headers of a request: a slice, or the transport's own
/// table read one entry at a time, so a C caller's headers are never copied
/// onto the stack of the call (they would stay there while a tool runs).
#[derive(Clone, Copy)]
pub struct HeaderParams<'a> {
    src: ParamSrc<'a>,
}

#[derive(Clone, Copy)]
enum ParamSrc<'a> {
    Slice(&'a [HeaderParam<'a>]),
    Table {
        at: fn(*const c_void, usize) -> HeaderParam<'a>,
        base: *const c_void,
        len: usize,
    },
}

impl<'a> HeaderParams<'a> {
    /// Headers held in a slice.
    pub const fn slice(s: &'a [HeaderParam<'a>]) -> Self {
        HeaderParams {
            src: ParamSrc::Slice(s),
        }
    }

    /// `len` headers read by `at(base, i)` for `i < len` (how the C ABI
    /// hands over its `mcp_header_param_t` array).
    pub const fn table(
        at: fn(*const c_void, usize) -> HeaderParam<'a>,
        base: *const c_void,
        len: usize,
    ) -> Self {
        HeaderParams {
            src: ParamSrc::Table { at, base, len },
        }
    }

    /// How many headers there are.
    pub fn len(&self) -> usize {
        match self.src {
            ParamSrc::Slice(s) => s.len(),
            ParamSrc::Table { len, .. } => len,
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The headers in order.
    pub fn iter(&self) -> impl Iterator<Item = HeaderParam<'a>> + use<'a> {
        let src = self.src;
        (0..self.len()).map(move |i| match src {
            ParamSrc::Slice(s) => s.get(i).copied().unwrap_or_default(),
            ParamSrc::Table { at, base, .. } => at(base, i),
        })
    }
}

impl core::fmt::Debug for HeaderParams<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Sends one complete JSON-RPC notification within the current exchange;
/// returns 0 or a negative `MCP_E*` value.
pub type EmitFn =
    extern "C" fn(transport_context: *mut c_void, message: *const u8, len: usize) -> c_int;

/// Log levels of `notifications/message`, lowest first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Why a notification could not be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyError {
    /// The notification does not fit `MCP_MAX_NOTIFICATION` bytes.
    TooLarge,
    /// The transport's emit hook failed with this (negative) code.
    Transport(c_int),
}

/// Optional annotations of a content block.
#[derive(Clone, Copy, Debug, Default)]
pub struct Annotations<'a> {
    /// `MCP_AUDIENCE_USER` and/or `MCP_AUDIENCE_ASSISTANT` bits; 0 for none.
    pub audience: u32,
    /// Importance from 0 to 1, if given.
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change, if given.
    pub last_modified: Option<&'a str>,
}

impl Default for RequestInfo<'_> {
    fn default() -> Self {
        RequestInfo {
            principal: None,
            hdr_protocol_version: None,
            hdr_method: None,
            hdr_name: None,
            now_ms: 0,
            origin: core::ptr::null(),
            flags: 0,
            hdr_params: HeaderParams::slice(&[]),
            hdr_params_dropped: false,
            emit: None,
            transport_context: core::ptr::null_mut(),
            retry_key: None,
        }
    }
}

/// Why an argument could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgError {
    /// No value at that path.
    Missing,
    /// The path is not of the form `key`, `key.sub`, `key[3]`.
    BadPath,
    /// Conversion failed.
    Conv(ConvError),
}

impl From<ConvError> for ArgError {
    fn from(e: ConvError) -> Self {
        ArgError::Conv(e)
    }
}

/// One tools/call as the callback sees it.
pub struct Call<'r> {
    /// The request's tokens.
    pub doc: Doc<'r>,
    /// Token of the `arguments` object, if sent.
    pub args: Option<usize>,
    /// The name of the tool (prompt, resource) being called.
    pub name: &'r str,
    /// Its input schema, for `default` values of absent arguments (`{}`
    /// for prompts, reads and completion).
    pub input_schema: &'r str,
    /// Its argument program, when the tool has one: defaults are read from
    /// it instead of the text.
    pub input_program: Option<&'r [u8]>,
    /// Its typed argument struct, when it has one (`mcp_call_args`).
    pub typed: Option<crate::schema::typed::Layout<'r>>,
    /// Token of the request's `params._meta` object, if sent.
    pub meta: Option<usize>,
    /// Token of `params.inputResponses` (the answers of a retried
    /// input_required call), if sent.
    pub inputs: Option<usize>,
    /// The verified `requestState` this server issued, on a retry.
    pub state: Option<&'r [u8]>,
    /// The exchange.
    pub info: &'r RequestInfo<'r>,
    /// For `resources/read`: the URI asked for and the template it matched.
    pub uri: Option<&'r UriMatch<'r>>,
}

/// A `resources/read` URI (JSON-unescaped) and where the variables of the
/// template it matched lie in it.
#[derive(Clone, Copy, Debug)]
pub struct UriMatch<'r> {
    /// The URI as requested.
    pub uri: &'r [u8],
    /// The template it matched; `None` for a plain resource.
    pub template: Option<&'r str>,
    /// The variables' spans in `uri`, in template order.
    pub spans: [(usize, usize); MCP_MAX_TEMPLATE_VARS],
}

impl UriMatch<'_> {
    /// The percent-decoded value of template variable `name`, written to `out`.
    pub fn var(&self, name: &str, out: &mut [u8]) -> Result<usize, ArgError> {
        let t = self.template.ok_or(ArgError::Missing)?;
        let (a, b) =
            crate::uri_template::var_span(t, &self.spans, name).ok_or(ArgError::Missing)?;
        let raw = self.uri.get(a..b).ok_or(ArgError::Missing)?;
        crate::uri_template::decode_into(raw, out).ok_or(ArgError::Conv(ConvError::NoSpace))
    }
}

impl<'r> Call<'r> {
    /// Token index of the value at `path` ("" is the arguments object itself).
    pub fn lookup(&self, path: &str) -> Result<usize, ArgError> {
        self.lookup_in(self.args, path)
    }

    /// Runs `f` on the value at `path` in `inputResponses`, e.g.
    /// `confirm.action` or `confirm.content.ok` (no defaults apply).
    pub fn with_input<T>(
        &self,
        path: &str,
        f: impl FnOnce(&Doc<'_>, usize) -> Result<T, ArgError>,
    ) -> Result<T, ArgError> {
        f(&self.doc, self.lookup_in(self.inputs, path)?)
    }

    fn lookup_in(&self, root: Option<usize>, path: &str) -> Result<usize, ArgError> {
        self.locate(root, path).map_err(|(e, _)| e)
    }

    /// Like `lookup_in`; a `Missing` error also says whether the first absent
    /// step was an object member (true) or an array element (false). The
    /// whole path is checked for syntax first.
    fn locate(&self, root: Option<usize>, path: &str) -> Result<usize, (ArgError, bool)> {
        // The common case, one plain member name: what the segment loop
        // does for it, without parsing the path twice. A hosted speed path:
        // bare-metal targets take the loop alone (80 B less flash).
        if !cfg!(target_os = "none")
            && !path.is_empty()
            && !path.bytes().any(|b| b == b'.' || b == b'[')
        {
            let root = root.ok_or((ArgError::Missing, true))?;
            return self.doc.get(root, path).ok_or((ArgError::Missing, true));
        }
        self.locate_segments(root, path)
    }

    /// [`Call::locate`] through the parsed path.
    fn locate_segments(&self, root: Option<usize>, path: &str) -> Result<usize, (ArgError, bool)> {
        if segments(path).any(|s| s.is_err()) {
            return Err((ArgError::BadPath, false));
        }
        let mut cur = root.ok_or((ArgError::Missing, true))?;
        for seg in segments(path).flatten() {
            cur = match seg {
                Seg::Key(key) => self.doc.get(cur, key).ok_or((ArgError::Missing, true))?,
                Seg::Index(i) => {
                    let miss = (ArgError::Missing, false);
                    if self.doc.kind(cur) != Some(Kind::Array) {
                        return Err(miss);
                    }
                    self.doc.elements(cur).nth(i).ok_or(miss)?
                }
            };
        }
        Ok(cur)
    }

    /// Runs `f` on the value at `path`: the argument sent, or, when it is
    /// absent, the `default` its schema declares (arguments were validated
    /// before the callback runs, so either is schema-conforming).
    pub fn with_value<T>(
        &self,
        path: &str,
        f: impl FnOnce(&Doc<'_>, usize) -> Result<T, ArgError>,
    ) -> Result<T, ArgError> {
        match self.locate(self.args, path) {
            Ok(i) => f(&self.doc, i),
            // A default stands in for an absent member, never for an element
            // past the end of an array.
            Err((ArgError::Missing, true)) => f(&Doc::new(self.default_of(path)?), 0),
            Err((e, _)) => Err(e),
        }
    }

    /// The schema's `default` text for the absent argument at `path`.
    // Out of line: the schema walk's frame is not on the path of a present
    // argument (a tool callback's stack).
    #[inline(never)]
    fn default_of(&self, path: &str) -> Result<&'r [u8], ArgError> {
        let segs = segments(path).flatten();
        let raw = match self.input_program {
            Some(prog) => {
                let span = schema::program_default_for(prog, segs).ok_or(ArgError::Missing)?;
                schema::program::bytes(prog, span)
            }
            #[cfg(feature = "text-tools")]
            None => {
                let text = self.input_schema;
                let input = schema::Schema::new(text);
                let span =
                    schema::default_for(&input, input.root(), segs).ok_or(ArgError::Missing)?;
                span.of(text)
            }
            // No text tools in this build: a call without a program is a
            // prompt, a read or a completion, whose schema is `{}`.
            #[cfg(not(feature = "text-tools"))]
            None => return Err(ArgError::Missing),
        };
        crate::json::check(raw, MCP_MAX_DEPTH).map_err(|_| ArgError::Missing)?;
        Ok(raw)
    }

    /// Fills the tool's typed argument struct (`out`, its size) from the
    /// validated arguments; escaped strings are decoded into `text`.
    /// `None` for a tool without one.
    pub fn fill_args(
        &self,
        out: &mut [u8],
        text: &mut [u8],
    ) -> Option<Result<(), schema::typed::FillError>> {
        let (layout, prog) = (self.typed?, self.input_program?);
        Some(schema::typed::fill(
            prog, &layout, &self.doc, self.args, out, text,
        ))
    }

    /// Token of the string `params._meta[key]` (e.g. `traceparent`), if sent.
    pub fn meta_string(&self, key: &str) -> Option<usize> {
        self.meta
            .and_then(|m| self.doc.get(m, key))
            .filter(|&v| self.doc.kind(v) == Some(Kind::String))
    }

    /// True when this request's `_meta` client capabilities declare `name`
    /// (e.g. `sampling`, `elicitation`, `roots`) as an object, or, in the
    /// legacy era, when the transport says the client declared it at
    /// initialize (`MCP_CTX_LEGACY_ELICITATION`, `_SAMPLING`, `_ROOTS`).
    pub fn client_capability(&self, name: &str) -> bool {
        let legacy = legacy_caps(self.info);
        let bit = match name {
            "elicitation" => caps::ELICITATION,
            "sampling" => caps::SAMPLING,
            "roots" => caps::ROOTS,
            _ => 0,
        };
        legacy & bit != 0
            || self
                .meta
                .and_then(|m| {
                    self.doc
                        .get(m, "io.modelcontextprotocol/clientCapabilities")
                })
                .and_then(|c| self.doc.get(c, name))
                .is_some_and(|v| self.doc.kind(v) == Some(Kind::Object))
    }

    /// The 32 lowercase hex digits of the trace id in a valid W3C
    /// `traceparent` (`00-<trace id>-<parent id>-<flags>`), if sent.
    pub fn trace_id(&self) -> Option<&'r [u8]> {
        trace_id_of(&self.doc, self.meta)
    }

    /// Sends `notifications/progress` when the request asked for it with
    /// `_meta.progressToken`; `Ok(false)` when it did not (nothing is sent).
    pub fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, NotifyError> {
        let Some(token) = self.meta.and_then(|m| self.doc.get(m, "progressToken")) else {
            return Ok(false);
        };
        if !matches!(self.doc.kind(token), Some(Kind::String | Kind::Number)) {
            return Ok(false);
        }
        self.notify("notifications/progress", |w| {
            w.key("progressToken")?;
            w.raw_value(self.doc.raw(token))?;
            w.key("progress")?;
            w.number(progress)?;
            if let Some(t) = total {
                w.key("total")?;
                w.number(t)?;
            }
            if let Some(m) = message {
                w.kv_str("message", m)?;
            }
            Ok(())
        })
    }

    /// Sends `notifications/message` when the request set
    /// `_meta["io.modelcontextprotocol/logLevel"]` at or below `level` (an
    /// index into [`LOG_LEVELS`]), or set none in a legacy exchange whose
    /// transport delivers log messages (`MCP_CTX_LEGACY_LOG`); `Ok(false)`
    /// otherwise (nothing is sent).
    pub fn log(&self, level: usize, text: &str) -> Result<bool, NotifyError> {
        let Some(name) = LOG_LEVELS.get(level) else {
            return Ok(false);
        };
        let legacy = self.info.flags & MCP_CTX_LEGACY_LOG != 0;
        let wanted = self
            .meta_string("io.modelcontextprotocol/logLevel")
            .and_then(|v| LOG_LEVELS.iter().position(|l| self.doc.str_eq(v, l)))
            .or(legacy.then_some(0));
        if wanted.is_none_or(|w| level < w) {
            return Ok(false);
        }
        self.notify("notifications/message", |w| {
            w.kv_str("level", name)?;
            w.kv_str("data", text)
        })
    }

    fn notify(
        &self,
        method: &str,
        params: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>,
    ) -> Result<bool, NotifyError> {
        let Some(emit) = self.info.emit else {
            return Ok(false);
        };
        let mut buf = [0u8; MCP_MAX_NOTIFICATION];
        let mut w = Writer::new(&mut buf);
        let written = (|| {
            w.begin_object()?;
            w.kv_str("jsonrpc", "2.0")?;
            w.kv_str("method", method)?;
            w.key("params")?;
            w.begin_object()?;
            params(&mut w)?;
            w.end_object()?;
            w.end_object()
        })();
        if written.is_err() {
            return Err(NotifyError::TooLarge);
        }
        let msg = w.as_bytes();
        match emit(self.info.transport_context, msg.as_ptr(), msg.len()) {
            rc if rc < 0 => Err(NotifyError::Transport(rc)),
            _ => Ok(true),
        }
    }

    /// Writes the arguments as compact JSON (`{}` when none were sent).
    pub fn arguments_json(&self, w: &mut Writer<'_>) -> Result<(), WriteError> {
        match self.args {
            Some(a) => w.minified_value(self.doc.raw(a)),
            None => w.raw_value(b"{}"),
        }
    }
}

/// The 32 hex digits of the trace id of a valid W3C `traceparent` string in
/// the `_meta` object at token `meta`, if any.
pub fn trace_id_of<'r>(doc: &Doc<'r>, meta: Option<usize>) -> Option<&'r [u8]> {
    let tp = meta
        .and_then(|m| doc.get(m, "traceparent"))
        .and_then(|t| doc.str_inner(t))?;
    let hex = |s: &[u8]| {
        s.iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    };
    let ok = tp.len() == 55
        && tp.get(2) == Some(&b'-')
        && tp.get(35) == Some(&b'-')
        && tp.get(52) == Some(&b'-')
        && [0..2, 3..35, 36..52, 53..55]
            .iter()
            .all(|r| tp.get(r.clone()).is_some_and(hex))
        && tp.get(0..2) != Some(b"ff")
        && tp
            .get(3..35)
            .is_some_and(|id| id.iter().any(|&b| b != b'0'));
    if ok { tp.get(3..35) } else { None }
}

pub use crate::schema::Seg;

/// The `mcp_request_ctx_t.flags` bits (defined in `crate::abi::server`, the
/// source of `include/emcp_server.h`).
pub use crate::abi::server::{
    MCP_CTX_DUPLICATE_HEADER, MCP_CTX_HTTP, MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_LOG,
    MCP_CTX_LEGACY_NO_SESSION, MCP_CTX_LEGACY_ROOTS, MCP_CTX_LEGACY_SAMPLING,
};

/// The flags that describe a legacy-era exchange, cleared for a 2026-07-28 one.
pub(crate) const LEGACY_FLAGS: u32 = MCP_CTX_LEGACY_LOG
    | MCP_CTX_LEGACY_ELICITATION
    | MCP_CTX_LEGACY_SAMPLING
    | MCP_CTX_LEGACY_ROOTS;

/// The client capabilities a legacy-era request may ask for, as [`caps`]
/// bits: what the transport vouches for with `MCP_CTX_LEGACY_*` flags (the
/// dispatcher clears them for a 2026-07-28 request).
pub fn legacy_caps(info: &RequestInfo<'_>) -> u8 {
    let mut bits = 0;
    if info.flags & MCP_CTX_LEGACY_ELICITATION != 0 {
        bits |= caps::ELICITATION;
    }
    if info.flags & MCP_CTX_LEGACY_SAMPLING != 0 {
        bits |= caps::SAMPLING;
    }
    if info.flags & MCP_CTX_LEGACY_ROOTS != 0 {
        bits |= caps::ROOTS;
    }
    bits
}

/// Parses `a.b[2].c` into segments; a malformed path yields `Err(BadPath)`.
pub fn segments(path: &str) -> impl Iterator<Item = Result<Seg<'_>, ArgError>> {
    let mut rest = path;
    let mut first = true;
    let mut failed = false;
    core::iter::from_fn(move || {
        if rest.is_empty() || failed {
            return None;
        }
        let r = next_segment(&mut rest, first);
        first = false;
        failed = r.is_err();
        Some(r)
    })
}

fn next_segment<'p>(rest: &mut &'p str, first: bool) -> Result<Seg<'p>, ArgError> {
    // Bytes, not chars (`strip_prefix(char)` and `find(char)` link core's
    // char searcher): every delimiter is ASCII, so each cut is a char boundary.
    if let Some(tail) = rest.strip_prefix("[") {
        let close = tail
            .bytes()
            .position(|b| b == b']')
            .ok_or(ArgError::BadPath)?;
        let idx =
            parse_index(tail.get(..close).unwrap_or("").as_bytes()).ok_or(ArgError::BadPath)?;
        *rest = tail.get(close + 1..).unwrap_or("");
        return Ok(Seg::Index(idx));
    }
    let body = if first {
        *rest
    } else {
        rest.strip_prefix(".").ok_or(ArgError::BadPath)?
    };
    let end = body
        .bytes()
        .position(|b| b == b'.' || b == b'[')
        .unwrap_or(body.len());
    let key = body
        .get(..end)
        .filter(|k| !k.is_empty())
        .ok_or(ArgError::BadPath)?;
    *rest = body.get(end..).unwrap_or("");
    Ok(Seg::Key(key))
}

fn parse_index(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0usize, |v, &d| v * 10 + usize::from(d - b'0')),
    )
}

/// The contents of an embedded resource.
#[derive(Clone, Copy, Debug)]
pub enum Contents<'a> {
    /// UTF-8 text.
    Text(&'a str),
    /// Binary data, sent base64-encoded.
    Blob(&'a [u8]),
}

fn write_annotations(w: &mut Writer<'_>, a: &Annotations<'_>) -> Result<(), WriteError> {
    let _ = w.key("annotations");
    let _ = w.begin_object();
    if a.audience != 0 {
        let _ = w.key("audience");
        let _ = w.begin_array();
        if a.audience & MCP_AUDIENCE_USER != 0 {
            let _ = w.string("user");
        }
        if a.audience & MCP_AUDIENCE_ASSISTANT != 0 {
            let _ = w.string("assistant");
        }
        let _ = w.end_array();
    }
    if let Some(p) = a.priority {
        let _ = w.key("priority");
        let _ = w.number(p);
    }
    if let Some(t) = a.last_modified {
        let _ = w.kv_str("lastModified", t);
    }
    let _ = w.end_object();
    w.status()
}

/// The `params` of one input request.
#[derive(Clone, Copy, Debug)]
pub enum InputParams<'a> {
    /// `elicitation/create` in form mode: a message and the requested schema
    /// (one JSON object, written minified).
    Elicit {
        /// What the user is asked.
        message: &'a str,
        /// JSON Schema of the answer.
        schema: &'a str,
    },
    /// Params given as one JSON object (sampling, roots), written minified.
    Raw(&'a str),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Content,
    Structured,
    Done,
    Input,
}

/// Why a result call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultError {
    /// The response buffer is full; the request will fail with -32603.
    Overflow,
    /// Out of order (content after structuredContent, unbalanced JSON, an
    /// input request after content).
    Order,
    /// Not possible for this request: input requests outside the 2026-07-28
    /// era, or a request state without a state key.
    Unsupported,
    /// The client did not declare the capability an input request needs; the
    /// request will be answered with -32021.
    Capability,
}

impl From<WriteError> for ResultError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Overflow => ResultError::Overflow,
            WriteError::Misuse => ResultError::Order,
        }
    }
}

/// A CallToolResult being written. The dispatcher has already written
/// `"content":[`; blocks are appended, then optionally structuredContent.
pub struct ToolResult<'w, 'b> {
    w: &'w mut Writer<'b>,
    phase: Phase,
    is_error: bool,
    /// Writer depth inside the structuredContent object.
    structured_depth: usize,
    /// Where structuredContent starts and ends in the buffer.
    structured: (usize, usize),
    opts: ResultOpts,
    /// Content blocks written so far.
    blocks: usize,
    /// The first capability an input request needed but the client lacks.
    missing: u8,
    /// State to send back as `requestState` with an input_required result
    /// (the caller's buffer, so [`Finished`] need not carry a copy).
    state: &'w mut [u8; MCP_MAX_REQUEST_STATE],
    state_len: Option<usize>,
    /// Prompt messages: the role of the next message.
    assistant: bool,
    /// Completion values offered (more than `MCP_MAX_COMPLETIONS` are counted, not written).
    values: usize,
}

/// Which result a [`ToolResult`] writes: the blocks and values it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A CallToolResult: content blocks, structuredContent, isError, input requests.
    Tool,
    /// A GetPromptResult: each content block becomes a message with a role.
    Prompt,
    /// A ReadResourceResult: embedded-resource contents only.
    Read,
    /// A CompleteResult: completion values only.
    Complete,
}

/// What the dispatcher tells a result about the request it answers.
#[derive(Clone, Copy)]
pub struct ResultOpts {
    /// Where the result's members start (before `"content"`), so an
    /// input_required result can replace them.
    pub start: Mark,
    /// The request is in the 2026-07-28 era (input_required exists there only).
    pub modern: bool,
    /// The client capabilities this request declared ([`caps`] bits).
    pub caps: u8,
    /// The server can protect a `requestState` (a state key or MAC hook is set).
    pub state_enabled: bool,
    /// The kind of result.
    pub mode: Mode,
    /// Bytes the core writes after the callback's (closing brackets,
    /// `isError`, the serverInfo stamp), kept out of [`ToolResult::space`].
    pub reserve: usize,
}

/// For tests: writes the `{"content":[` a tool result starts inside and
/// returns the options of a plain modern tool result there.
#[cfg(test)]
pub(crate) fn test_result_opts(w: &mut Writer<'_>) -> ResultOpts {
    w.begin_object().unwrap();
    w.key("content").unwrap();
    w.begin_array().unwrap();
    ResultOpts {
        start: w.mark(),
        modern: true,
        caps: 0,
        state_enabled: false,
        mode: Mode::Tool,
        reserve: 0,
    }
}

/// Client capabilities an input request can need.
///
/// Bits internal to the Rust core, not part of the C ABI: C code names these
/// capabilities with the `MCP_CTX_LEGACY_*` flags, so the module is kept out
/// of `emcp.h` (unprefixed `ELICITATION`, `SAMPLING`, `ROOTS` there would
/// clash with firmware names).
///
/// cbindgen:ignore
pub mod caps {
    /// `elicitation` (form mode).
    pub const ELICITATION: u8 = 1;
    /// `sampling`.
    pub const SAMPLING: u8 = 2;
    /// `roots`.
    pub const ROOTS: u8 = 4;
    /// The capability's name in `clientCapabilities`.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn name(bit: u8) -> &'static str {
        match bit {
            ELICITATION => "elicitation",
            SAMPLING => "sampling",
            _ => "roots",
        }
    }
}

/// What a finished result contains, for the checks after the callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The callback asked the client for input: an input_required result
    /// whose `inputRequests` object is still open.
    pub input: bool,
    /// The length of the `requestState` to send with it (in the state
    /// buffer given to [`ToolResult::new`]), if the callback set one.
    pub state: Option<usize>,
    /// A capability an input request needed that the client did not declare.
    pub missing: u8,
    /// `isError` was set.
    pub is_error: bool,
    /// Byte range of the structuredContent value in the response, if written.
    pub structured: Option<(usize, usize)>,
}

impl<'w, 'b> ToolResult<'w, 'b> {
    /// Wraps a writer positioned inside the `content` array; a state the
    /// callback sets is kept in `state`.
    pub fn new(
        w: &'w mut Writer<'b>,
        opts: ResultOpts,
        state: &'w mut [u8; MCP_MAX_REQUEST_STATE],
    ) -> Self {
        ToolResult {
            w,
            phase: Phase::Content,
            is_error: false,
            structured_depth: 0,
            structured: (0, 0),
            opts,
            blocks: 0,
            missing: 0,
            state,
            state_len: None,
            assistant: false,
            values: 0,
        }
    }

    /// Bytes still free for the callback's result content: the buffer less
    /// what is written and what the core writes after the callback.
    pub fn space(&self) -> usize {
        // Inside structuredContent, one closing byte per container opened
        // there (the content array's `]`, already written, pays for the
        // structuredContent object's own).
        let open = match self.phase {
            Phase::Structured => self.w.depth().saturating_sub(self.structured_depth),
            _ => 0,
        };
        self.w
            .capacity()
            .saturating_sub(self.w.len() + self.opts.reserve + open)
    }

    /// The writer's position: where the callback's writes end so far.
    pub fn end(&self) -> usize {
        self.w.len()
    }

    /// The kind of result being written. Always [`Mode::Tool`] without the
    /// `catalog` feature (prompts, reads and completion are its methods), so
    /// a tools-only build compiles the other kinds' branches out.
    pub fn mode(&self) -> Mode {
        if cfg!(feature = "catalog") {
            self.opts.mode
        } else {
            Mode::Tool
        }
    }

    /// Sets the role of the prompt messages that follow (user by default).
    pub fn set_role(&mut self, assistant: bool) -> Result<(), ResultError> {
        if self.mode() != Mode::Prompt {
            return Err(ResultError::Order);
        }
        self.assistant = assistant;
        Ok(())
    }

    /// Offers one completion value. Values beyond `MCP_MAX_COMPLETIONS` are
    /// counted for `total` and `hasMore` but not written.
    pub fn completion_value(&mut self, value: &str) -> Result<(), ResultError> {
        self.w.status()?;
        if self.mode() != Mode::Complete {
            return Err(ResultError::Order);
        }
        if self.values < MCP_MAX_COMPLETIONS {
            self.w.string(value)?;
        }
        self.values += 1;
        Ok(())
    }

    /// Content blocks (messages, contents) written so far.
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Asks the client for input (`resultType: "input_required"`): the result
    /// then carries `inputRequests` instead of content. Allowed only before
    /// any content block, in the 2026-07-28 era, and for a capability the
    /// client declared in this request.
    pub fn input_request(
        &mut self,
        key: &str,
        method: &str,
        cap: u8,
        params: InputParams<'_>,
    ) -> Result<(), ResultError> {
        self.w.status()?;
        if !self.opts.modern || self.mode() == Mode::Complete {
            return Err(ResultError::Unsupported);
        }
        if self.opts.caps & cap == 0 {
            if self.missing == 0 {
                self.missing = cap;
            }
            return Err(ResultError::Capability);
        }
        match self.phase {
            Phase::Content if self.blocks == 0 => {
                self.w.rewind(self.opts.start);
                self.w.key("inputRequests")?;
                self.w.begin_object()?;
                self.phase = Phase::Input;
            }
            Phase::Input => {}
            _ => return Err(ResultError::Order),
        }
        // Straight through the writer's sticky error, checked once.
        let _ = self.w.key(key);
        let _ = self.w.begin_object();
        let _ = self.w.kv_str("method", method);
        let _ = self.w.key("params");
        let _ = match params {
            InputParams::Elicit { message, schema } => {
                let _ = self.w.begin_object();
                let _ = self.w.kv_str("mode", "form");
                let _ = self.w.kv_str("message", message);
                let _ = self.w.key("requestedSchema");
                let _ = self.w.minified_value(schema.as_bytes());
                self.w.end_object()
            }
            InputParams::Raw(json) => self.w.minified_value(json.as_bytes()),
        };
        let _ = self.w.end_object();
        Ok(self.w.status()?)
    }

    /// Sets the state the client must echo as `requestState` on its retry;
    /// the core protects it with a MAC bound to this tool.
    pub fn set_request_state(&mut self, state: &[u8]) -> Result<(), ResultError> {
        if !self.opts.state_enabled {
            return Err(ResultError::Unsupported);
        }
        let dst = self
            .state
            .get_mut(..state.len())
            .ok_or(ResultError::Overflow)?;
        crate::json::copy_bytes(dst, state);
        self.state_len = Some(state.len());
        Ok(())
    }

    fn block(
        &mut self,
        ty: &str,
        ann: Option<&Annotations<'_>>,
        body: impl FnOnce(&mut Writer<'b>) -> Result<(), WriteError>,
    ) -> Result<(), ResultError> {
        self.w.status()?;
        let prompt = match self.mode() {
            Mode::Tool => false,
            Mode::Prompt => true,
            Mode::Read | Mode::Complete => return Err(ResultError::Order),
        };
        if self.phase != Phase::Content {
            return Err(ResultError::Order);
        }
        // Straight through the writer's sticky error, checked once.
        if prompt {
            let _ = self.w.begin_object();
            let _ = self
                .w
                .kv_str("role", if self.assistant { "assistant" } else { "user" });
            let _ = self.w.key("content");
        }
        let _ = self.w.begin_object();
        let _ = self.w.kv_str("type", ty);
        let _ = body(self.w);
        if let Some(a) = ann {
            let _ = write_annotations(self.w, a);
        }
        let _ = self.w.end_object();
        if prompt {
            let _ = self.w.end_object();
        }
        self.w.status()?;
        self.blocks += 1;
        Ok(())
    }

    /// Appends a text block with annotations.
    pub fn text_annotated(
        &mut self,
        text: &str,
        ann: Option<&Annotations<'_>>,
    ) -> Result<(), ResultError> {
        self.block("text", ann, |w| w.kv_str("text", text))
    }

    /// Appends an `image` or `audio` block: `data` is base64-encoded here.
    pub fn media(
        &mut self,
        audio: bool,
        data: &[u8],
        mime: &str,
        ann: Option<&Annotations<'_>>,
    ) -> Result<(), ResultError> {
        self.block(if audio { "audio" } else { "image" }, ann, |w| {
            w.key("data")?;
            w.base64(data)?;
            w.kv_str("mimeType", mime)
        })
    }

    /// Appends a `resource_link` block.
    pub fn resource_link(
        &mut self,
        uri: &str,
        name: &str,
        mime: Option<&str>,
        description: Option<&str>,
        ann: Option<&Annotations<'_>>,
    ) -> Result<(), ResultError> {
        self.block("resource_link", ann, |w| {
            w.kv_str("uri", uri)?;
            w.kv_str("name", name)?;
            if let Some(m) = mime {
                w.kv_str("mimeType", m)?;
            }
            if let Some(d) = description {
                w.kv_str("description", d)?;
            }
            Ok(())
        })
    }

    /// Appends an embedded `resource` block with text or (base64) binary contents.
    pub fn resource(
        &mut self,
        uri: &str,
        mime: Option<&str>,
        contents: Contents<'_>,
        ann: Option<&Annotations<'_>>,
    ) -> Result<(), ResultError> {
        let body = |w: &mut Writer<'_>| -> Result<(), WriteError> {
            w.begin_object()?;
            w.kv_str("uri", uri)?;
            if let Some(m) = mime {
                w.kv_str("mimeType", m)?;
            }
            match contents {
                Contents::Text(t) => w.kv_str("text", t)?,
                Contents::Blob(b) => {
                    w.key("blob")?;
                    w.base64(b)?;
                }
            }
            w.end_object()
        };
        if self.mode() == Mode::Read {
            // resources/read: the contents themselves, one entry each.
            self.w.status()?;
            body(self.w)?;
            self.blocks += 1;
            return Ok(());
        }
        self.block("resource", ann, |w| {
            w.key("resource")?;
            body(w)
        })
    }

    /// Appends a text content block.
    pub fn text(&mut self, text: &str) -> Result<(), ResultError> {
        // Bare-metal targets keep the general path alone (flash first).
        if cfg!(target_os = "none") || self.mode() != Mode::Tool || self.phase != Phase::Content {
            return self.block("text", None, |w| w.kv_str("text", text));
        }
        // The common block of a tool result, written from constant pieces:
        // the same bytes as `block`'s key-by-key path.
        let _ = self.w.begin_object();
        let _ = self.w.members_from(&[
            Piece::Json(br#""type":"text","text":""#),
            Piece::Text(text),
            Piece::Json(b"\""),
        ]);
        let _ = self.w.end_object();
        self.w.status()?;
        self.blocks += 1;
        Ok(())
    }

    /// Marks the result as a tool execution error and appends `text`.
    pub fn error(&mut self, text: &str) -> Result<(), ResultError> {
        if self.mode() != Mode::Tool {
            return Err(ResultError::Order);
        }
        self.text(text)?;
        self.is_error = true;
        Ok(())
    }

    /// Marks the result as an error (or not) without adding content.
    pub fn set_error(&mut self, is_error: bool) {
        self.is_error = is_error;
    }

    /// Closes the content blocks and opens the structuredContent object.
    pub fn structured_begin(&mut self) -> Result<(), ResultError> {
        // Once the buffer is full, every call reports that, not a follow-on error.
        self.w.status()?;
        if self.phase != Phase::Content || self.mode() != Mode::Tool {
            return Err(ResultError::Order);
        }
        self.w.end_array()?;
        self.w.key("structuredContent")?;
        self.structured.0 = self.w.len();
        self.w.begin_object()?;
        self.phase = Phase::Structured;
        self.structured_depth = self.w_depth();
        Ok(())
    }

    /// Closes the structuredContent object; everything opened inside it must be closed.
    pub fn structured_end(&mut self) -> Result<(), ResultError> {
        // Once the buffer is full, every call reports that, not a follow-on error.
        self.w.status()?;
        if self.phase != Phase::Structured || self.w_depth() != self.structured_depth {
            return Err(ResultError::Order);
        }
        self.w.end_object()?;
        self.structured.1 = self.w.len();
        self.phase = Phase::Done;
        Ok(())
    }

    /// The writer for JSON inside structuredContent; `Err` outside it.
    pub fn json(&mut self) -> Result<&mut Writer<'b>, ResultError> {
        // Once the buffer is full, every call reports that, not a follow-on error.
        self.w.status()?;
        if self.phase != Phase::Structured {
            return Err(ResultError::Order);
        }
        Ok(self.w)
    }

    /// Closes a container inside structuredContent (never the root object).
    pub fn json_close(&mut self, object: bool) -> Result<(), ResultError> {
        // Once the buffer is full, every call reports that, not a follow-on error.
        self.w.status()?;
        if self.phase != Phase::Structured || self.w_depth() <= self.structured_depth {
            return Err(ResultError::Order);
        }
        if object {
            self.w.end_object()?;
        } else {
            self.w.end_array()?;
        }
        Ok(())
    }

    fn w_depth(&self) -> usize {
        self.w.depth()
    }

    /// Completes the result members after the callback returned.
    pub fn finish(self) -> Result<Finished, ResultError> {
        // Without `mrtr` no input is ever asked for (its C functions return
        // -MCP_ENOTSUP): the input branches here and in the callers fold away.
        let mrtr = cfg!(feature = "mrtr");
        let mut done = Finished {
            input: false,
            state: if mrtr { self.state_len } else { None },
            missing: if mrtr { self.missing } else { 0 },
            is_error: self.is_error,
            structured: None,
        };
        if mrtr && self.phase == Phase::Input {
            done.input = true;
            return Ok(done);
        }
        match self.mode() {
            Mode::Tool => {}
            Mode::Prompt | Mode::Read => {
                self.w.end_array()?;
                return Ok(done);
            }
            Mode::Complete => {
                self.w.end_array()?;
                if self.values > MCP_MAX_COMPLETIONS {
                    self.w.key("total")?;
                    self.w.int(self.values as i64)?;
                }
                self.w.key("hasMore")?;
                self.w.bool(self.values > MCP_MAX_COMPLETIONS)?;
                return Ok(done);
            }
        }
        match self.phase {
            Phase::Input if mrtr => {
                done.input = true;
                return Ok(done);
            }
            Phase::Input | Phase::Content => self.w.end_array()?,
            Phase::Structured => return Err(ResultError::Order),
            Phase::Done => done.structured = Some(self.structured),
        }
        // Constant members: copied, not built key by key.
        if cfg!(target_os = "none") {
            // Key and value on bare-metal targets (flash first).
            self.w.key("isError")?;
            self.w.bool(self.is_error)?;
            return Ok(done);
        }
        self.w.raw_members(if self.is_error {
            br#""isError":true"#
        } else {
            br#""isError":false"#
        })?;
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain member name is found (or missed) the same way by the hosted
    /// one-lookup form of `locate` and by the segment loop that bare-metal
    /// targets run alone.
    #[test]
    fn plain_names_locate_as_segments() {
        let text = br#"{"a":1,"b\u0063":{"x":2},"":3,"d]":4,"d":[5]}"#;
        crate::json::check(text, 8).unwrap();
        let info = RequestInfo::default();
        let call = Call {
            doc: Doc::new(text),
            args: Some(0),
            name: "t",
            input_schema: "{}",
            input_program: None,
            typed: None,
            meta: None,
            inputs: None,
            state: None,
            info: &info,
            uri: None,
        };
        for path in ["a", "bc", "x", "d]", "d", "missing", "é"] {
            for root in [Some(0), None] {
                assert_eq!(
                    call.locate(root, path),
                    call.locate_segments(root, path),
                    "{path} at {root:?}"
                );
            }
        }
        assert_eq!(
            call.locate(Some(0), "d]").map(|i| &text[i..=i]),
            Ok(&b"4"[..])
        );
    }

    /// The text block written from pieces is byte for byte what the general
    /// block path writes, escapes and control characters included.
    #[test]
    fn text_block_matches_the_general_path() {
        for text in ["ok", "", "a \"q\" \\ b\n\t\u{1}é", "x".repeat(40).as_str()] {
            let run = |fast: bool| {
                let mut buf = [0u8; 256];
                let mut w = Writer::new(&mut buf);
                let opts = test_result_opts(&mut w);
                let mut state = [0u8; MCP_MAX_REQUEST_STATE];
                let mut r = ToolResult::new(&mut w, opts, &mut state);
                if fast {
                    r.text(text).unwrap();
                    r.text(text).unwrap();
                } else {
                    r.block("text", None, |w| w.kv_str("text", text)).unwrap();
                    r.block("text", None, |w| w.kv_str("text", text)).unwrap();
                }
                assert_eq!(r.blocks(), 2);
                w.as_bytes().to_vec()
            };
            assert_eq!(
                String::from_utf8(run(true)).unwrap(),
                String::from_utf8(run(false)).unwrap()
            );
        }
    }
}
