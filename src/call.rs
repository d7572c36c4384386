//! What a tool callback sees: its arguments (read-only spans) and a result
//! builder that appends straight into the response buffer.
//!
//! Owns: argument paths (`a.b[2]`), typed reads, and the order in which a
//! result is written (content blocks, then structuredContent).
//! Must not: decide protocol-level errors; the dispatcher does that.

use core::ffi::c_void;

use crate::json::{ConvError, Doc, Kind, WriteError, Writer};
use crate::registry::Tool;

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
    /// The tool being called.
    pub tool: &'r Tool<'r>,
    /// The exchange.
    pub info: &'r RequestInfo<'r>,
}

impl Call<'_> {
    /// Token index of the value at `path` ("" is the arguments object itself).
    pub fn lookup(&self, path: &str) -> Result<usize, ArgError> {
        let mut cur = self.args.ok_or(ArgError::Missing)?;
        let mut rest = path.as_bytes();
        let mut first = true;
        while !rest.is_empty() {
            if let Some(tail) = rest.strip_prefix(b"[") {
                let close = tail
                    .iter()
                    .position(|&b| b == b']')
                    .ok_or(ArgError::BadPath)?;
                let digits = tail.get(..close).ok_or(ArgError::BadPath)?;
                let idx = parse_index(digits).ok_or(ArgError::BadPath)?;
                if self.doc.kind(cur) != Some(Kind::Array) {
                    return Err(ArgError::Missing);
                }
                cur = self.doc.elements(cur).nth(idx).ok_or(ArgError::Missing)?;
                rest = tail.get(close + 1..).unwrap_or(&[]);
            } else {
                if !first {
                    rest = rest.strip_prefix(b".").ok_or(ArgError::BadPath)?;
                }
                let end = rest
                    .iter()
                    .position(|&b| b == b'.' || b == b'[')
                    .unwrap_or(rest.len());
                let key = rest
                    .get(..end)
                    .filter(|k| !k.is_empty())
                    .ok_or(ArgError::BadPath)?;
                let key = core::str::from_utf8(key).map_err(|_| ArgError::BadPath)?;
                cur = self.doc.get(cur, key).ok_or(ArgError::Missing)?;
                rest = rest.get(end..).unwrap_or(&[]);
            }
            first = false;
        }
        Ok(cur)
    }

    /// Writes the arguments as compact JSON (`{}` when none were sent).
    pub fn arguments_json(&self, w: &mut Writer<'_>) -> Result<(), WriteError> {
        match self.args {
            Some(a) => w.minified_value(self.doc.raw(a)),
            None => w.raw_value(b"{}"),
        }
    }
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Content,
    Structured,
    Done,
}

/// Why a result call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultError {
    /// The response buffer is full; the request will fail with -32603.
    Overflow,
    /// Out of order (content after structuredContent, unbalanced JSON).
    Order,
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
}

impl<'w, 'b> ToolResult<'w, 'b> {
    /// Wraps a writer positioned inside the `content` array.
    pub fn new(w: &'w mut Writer<'b>) -> Self {
        ToolResult {
            w,
            phase: Phase::Content,
            is_error: false,
            structured_depth: 0,
        }
    }

    /// Appends a text content block.
    pub fn text(&mut self, text: &str) -> Result<(), ResultError> {
        // Once the buffer is full, every call reports that, not a follow-on error.
        self.w.status()?;
        if self.phase != Phase::Content {
            return Err(ResultError::Order);
        }
        self.w.begin_object()?;
        self.w.kv_str("type", "text")?;
        self.w.kv_str("text", text)?;
        self.w.end_object()?;
        Ok(())
    }

    /// Marks the result as a tool execution error and appends `text`.
    pub fn error(&mut self, text: &str) -> Result<(), ResultError> {
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
        if self.phase != Phase::Content {
            return Err(ResultError::Order);
        }
        self.w.end_array()?;
        self.w.key("structuredContent")?;
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
    pub fn finish(self) -> Result<(), ResultError> {
        match self.phase {
            Phase::Content => self.w.end_array()?,
            Phase::Structured => return Err(ResultError::Order),
            Phase::Done => {}
        }
        self.w.key("isError")?;
        self.w.bool(self.is_error)?;
        Ok(())
    }
}
