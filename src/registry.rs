//! The tool table: definitions, callbacks and their order.
//!
//! Owns: checking a definition once at registration (name syntax, schema is a
//! JSON object, UTF-8 everywhere) and keeping tools in registration order,
//! which is the `tools/list` order.
//! Must not: run tools or write responses.

use core::ffi::{c_int, c_void};

use crate::call::{Call, ToolResult};
#[cfg(test)]
use crate::json::Kind;
use crate::json::{self, Token};
use crate::limits::{MCP_MAX_DEPTH, MCP_MAX_TOOL_NAME_LEN, MCP_MAX_TOOLS};

/// Opaque handle a tool callback receives for reading its arguments.
pub struct mcp_call_t {
    _opaque: [u8; 0],
}

/// Opaque handle a tool callback receives for writing its result.
pub struct mcp_result_t {
    _opaque: [u8; 0],
}

/// A tool callback. It runs only for a well-formed `tools/call` request (never
/// for a notification), reads its arguments with the `mcp_arg_*` functions and
/// writes its result with the `mcp_result_*` and `mcp_json_*` functions.
/// Returns 0 on success or a negative `MCP_E*` value; a negative return makes
/// the request fail with -32603 (internal error). Report a failure the model
/// should see (a refused actuation) with `mcp_result_error` and return 0.
pub type mcp_tool_fn = Option<
    extern "C" fn(call: *const mcp_call_t, result: *mut mcp_result_t, user: *mut c_void) -> c_int,
>;

/// Annotation flags (a tool's behaviour hints), as exported to C.
pub mod hints {
    pub use crate::limits::{
        MCP_TOOL_DESTRUCTIVE as DESTRUCTIVE, MCP_TOOL_IDEMPOTENT as IDEMPOTENT,
        MCP_TOOL_OPEN_WORLD as OPEN_WORLD, MCP_TOOL_READ_ONLY as READ_ONLY,
    };
    /// Every defined flag.
    pub(crate) const ALL: u32 = READ_ONLY | DESTRUCTIVE | IDEMPOTENT | OPEN_WORLD;
}

/// What runs for a `tools/call`: a C callback with its user pointer, or a
/// plain Rust function for firmware written in Rust.
#[derive(Clone, Copy)]
pub enum Handler {
    /// A C callback (registration refuses NULL) and the pointer passed back to it.
    C(mcp_tool_fn, *mut c_void),
    /// A Rust function: reads the call, writes the result, returns 0 or a
    /// negative `MCP_E*` value.
    Rust(fn(&Call<'_>, &mut ToolResult<'_, '_>) -> c_int),
}

/// One registered tool, with its text checked and its callback.
#[derive(Clone, Copy)]
pub struct Tool<'a> {
    /// Unique name, 1 to `MCP_MAX_TOOL_NAME_LEN` bytes of `[A-Za-z0-9_.-]`.
    pub name: &'a str,
    /// Human-readable title.
    pub title: Option<&'a str>,
    /// What the tool does, for the model.
    pub description: Option<&'a str>,
    /// JSON Schema of the arguments (a JSON object), written minified in lists.
    pub input_schema: &'a str,
    /// JSON Schema of `structuredContent`, when declared.
    pub output_schema: Option<&'a str>,
    /// [`hints`] flags; 0 means no `annotations` object is listed.
    pub annotations: u32,
    /// What runs when the tool is called.
    pub handler: Handler,
}

/// Why a tool could not be registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// Name empty, too long or with characters outside `[A-Za-z0-9_.-]`;
    /// unknown annotation bits.
    BadDefinition,
    /// A schema is not one JSON object.
    BadSchema,
    /// The name is taken.
    Duplicate,
    /// `MCP_MAX_TOOLS` tools are registered.
    Full,
}

/// The fixed-capacity table.
pub struct Registry<'a> {
    tools: [Option<Tool<'a>>; MCP_MAX_TOOLS],
    len: usize,
}

impl<'a> Registry<'a> {
    /// An empty table.
    pub const fn new() -> Self {
        Registry {
            tools: [None; MCP_MAX_TOOLS],
            len: 0,
        }
    }

    /// Adds `tool` at the end of the list.
    pub fn add(&mut self, tool: Tool<'a>) -> Result<(), RegisterError> {
        if !valid_name(tool.name)
            || tool.annotations & !hints::ALL != 0
            || matches!(tool.handler, Handler::C(None, _))
        {
            return Err(RegisterError::BadDefinition);
        }
        if !is_json_object(tool.input_schema)
            || tool.output_schema.is_some_and(|s| !is_json_object(s))
        {
            return Err(RegisterError::BadSchema);
        }
        if self.find_by(|n| n == tool.name).is_some() {
            return Err(RegisterError::Duplicate);
        }
        let slot = self.tools.get_mut(self.len).ok_or(RegisterError::Full)?;
        *slot = Some(tool);
        self.len += 1;
        Ok(())
    }

    /// Tools in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool<'a>> {
        self.tools.iter().take(self.len).flatten()
    }

    /// Number of registered tools.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first tool whose name satisfies `pred`.
    pub fn find_by(&self, mut pred: impl FnMut(&str) -> bool) -> Option<&Tool<'a>> {
        self.iter().find(|t| pred(t.name))
    }
}

impl Default for Registry<'_> {
    fn default() -> Self {
        Self::new()
    }
}

fn valid_name(name: &str) -> bool {
    (1..=MCP_MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// True when `text` is exactly one JSON object (any size, bounded depth).
fn is_json_object(text: &str) -> bool {
    let first = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    let mut none: [Token; 0] = [];
    first == Some(b'{') && json::tokenize(text.as_bytes(), &mut none, MCP_MAX_DEPTH).is_ok()
}

/// The kind of the root of a schema, for tests and diagnostics.
#[cfg(test)]
fn root_kind(text: &str) -> Option<Kind> {
    let mut t = [Token::EMPTY; 1];
    json::tokenize(text.as_bytes(), &mut t, MCP_MAX_DEPTH)
        .ok()
        .map(|_| t[0].kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn nop(_: *const mcp_call_t, _: *mut mcp_result_t, _: *mut c_void) -> i32 {
        0
    }

    fn tool(name: &'static str, schema: &'static str) -> Tool<'static> {
        Tool {
            name,
            title: None,
            description: None,
            input_schema: schema,
            output_schema: None,
            annotations: 0,
            handler: Handler::C(Some(nop), core::ptr::null_mut()),
        }
    }

    #[test]
    fn registers_in_order_and_checks() {
        let mut r = Registry::new();
        r.add(tool("b.tool-1", "{\"type\":\"object\"}")).unwrap();
        r.add(tool("a", " {} ")).unwrap();
        assert_eq!(
            r.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["b.tool-1", "a"]
        );
        assert_eq!(r.add(tool("a", "{}")), Err(RegisterError::Duplicate));
        assert_eq!(r.add(tool("", "{}")), Err(RegisterError::BadDefinition));
        assert_eq!(
            r.add(tool("sp ace", "{}")),
            Err(RegisterError::BadDefinition)
        );
        assert_eq!(r.add(tool("x", "[]")), Err(RegisterError::BadSchema));
        assert_eq!(r.add(tool("x", "{\"a\":}")), Err(RegisterError::BadSchema));
        assert_eq!(root_kind("{}"), Some(Kind::Object));
        let names: Vec<String> = (0..MCP_MAX_TOOLS).map(|i| format!("t{i}")).collect();
        let leaked: Vec<&'static str> = names.into_iter().map(|s| &*s.leak()).collect();
        for n in &leaked[2..] {
            r.add(tool(n, "{}")).unwrap();
        }
        assert_eq!(r.add(tool("one_more", "{}")), Err(RegisterError::Full));
    }
}
