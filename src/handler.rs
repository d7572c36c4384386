//! What runs for a call: the C callback type with its opaque handles, or a
//! Rust function, over the callback's view ([`crate::call`]).
//!
//! Owns: the callback ABI (`mcp_tool_fn`, `mcp_call_t`, `mcp_result_t`) and
//! running one callback.
//! Must not: know which table (tools, prompts, resources) a handler sits in.

use core::ffi::{c_int, c_void};

use crate::call::{Call, ToolResult};

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

impl Handler {
    /// Runs the callback for one call; C gets opaque handles that the ffi
    /// accessors turn back into `call` and `result`.
    pub fn run(&self, call: &Call<'_>, result: &mut ToolResult<'_, '_>) -> c_int {
        match *self {
            Handler::C(Some(f), user) => f(
                call as *const Call<'_> as *const mcp_call_t,
                result as *mut ToolResult<'_, '_> as *mut mcp_result_t,
                user,
            ),
            Handler::C(None, _) => -crate::limits::MCP_EINVAL,
            Handler::Rust(f) => f(call, result),
        }
    }
}
