//! Sizing from C: the room a callback has left, the response buffer a
//! server's registrations need, and how full its fixed tables are.

use core::ffi::{c_char, c_int};

use super::{slot, types::mcp_server_t};
use crate::call::ToolResult;
use crate::limits::*;
use crate::registry::mcp_result_t;

/// Bytes still free for result content in the response buffer: what the
/// callback may still write (content blocks, structuredContent) with room
/// kept for what the core writes after it (`isError`, the serverInfo stamp,
/// closing brackets). Check it before acting when the result's size is not
/// known in advance; a write that does not fit fails with `-MCP_ENOBUFS`
/// and the call is then answered with -32603. In prompt, resource and
/// completion callbacks: the bytes left in the buffer.
///
/// @return The free bytes; 0 for NULL.
///
/// @pre `result` must be NULL or the result handle of the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_space(result: *const mcp_result_t) -> usize {
    // SAFETY: a non-NULL mcp_result_t pointer is only ever handed out by the
    // dispatcher, pointing to a live ToolResult for the callback's duration.
    unsafe { result.cast::<ToolResult<'_, '_>>().as_ref() }.map_or(0, ToolResult::space)
}

/// The smallest `response_cap` that answers `server/discover`, `tools/list`
/// (a page holding the largest tool), `initialize`, `resources/list`,
/// `prompts/list` and `tools/call` of every tool (its envelope and declared
/// `max_result_len`) for every request id (up to `MCP_MAX_ID_LEN` bytes) in
/// either era; at least `MCP_MIN_RESPONSE_CAP`. Measured from what is
/// registered now, by the code that writes the answers: call it after the
/// last registration (on a host, to size the firmware's buffer).
///
/// @return The size in bytes; 0 for NULL or an uninitialised server.
///
/// @pre `server` must be NULL or point to an `mcp_server_t`; no registration may
/// run at the same time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_min_response_cap(server: *const mcp_server_t) -> usize {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    unsafe { slot(server) }.map_or(0, |s| s.server.response_sizes().min_response_cap())
}

/// How much of one fixed table is used.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mcp_usage_pair_t {
    /// Entries registered.
    pub used: usize,
    /// The table's size (its `MCP_MAX_*` limit; for tools, the slots given
    /// with `mcp_server_set_tool_storage` when they were).
    pub capacity: usize,
}

/// What one tool declares and has written, from `mcp_server_tool_usage`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mcp_tool_usage_t {
    /// The tool's name (the registered text, NUL-terminated).
    pub name: *const c_char,
    /// Its `mcp_tool_t.max_result_len` (0: a read-only tool that declares
    /// none).
    pub max_result_len: usize,
    /// The largest result its callback has written since the server was
    /// initialised, in the bytes `max_result_len` counts (0: none yet).
    /// Results asking for input are not counted.
    pub largest_result: usize,
}

/// Reports what tool `index` (registration order, from 0) declares and the
/// largest result it has written so far: run the firmware's tools on a host
/// (its tests, with the largest answers they can give) and declare at least
/// `largest_result` as `max_result_len`. Each tool slot keeps this in one
/// 32-bit counter, raised atomically by every call, on any thread.
///
/// @retval 0 `*out` is filled.
/// @retval -MCP_EINVAL NULL pointer or uninitialised server.
/// @retval -MCP_ENOENT No tool has this index (iterate from 0 until this).
///
/// @pre `server` must be NULL or point to an `mcp_server_t`; `out` NULL or
/// writable; no registration may run at the same time (calls may).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_tool_usage(
    server: *const mcp_server_t,
    index: usize,
    out: *mut mcp_tool_usage_t,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    let Some(slot) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: NULL or writable, as the caller promises.
    let Some(out) = (unsafe { out.as_mut() }) else {
        return -MCP_EINVAL;
    };
    let tools = &slot.server.tools;
    let Some(t) = tools.iter().nth(index) else {
        return -MCP_ENOENT;
    };
    *out = mcp_tool_usage_t {
        // Registered from a NUL-terminated C string (mcp_server_add_tool),
        // whose terminator follows the name's bytes.
        name: t.name.as_ptr().cast(),
        max_result_len: t.max_result_len,
        largest_result: tools.largest_result(index),
    };
    0
}

/// What a server's registrations use, from `mcp_server_usage`: the fixed
/// tables (to set `EMCP_LIMITS`) and the largest answer of each method in
/// bytes, for an id of `MCP_MAX_ID_LEN` bytes (0: nothing registered to
/// size, or not in this build).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mcp_usage_t {
    /// Tools (`MCP_MAX_TOOLS`, or the slots given with
    /// `mcp_server_set_tool_storage`).
    pub tools: mcp_usage_pair_t,
    /// Resources and templates (`MCP_MAX_RESOURCES`).
    pub resources: mcp_usage_pair_t,
    /// Prompts (`MCP_MAX_PROMPTS`).
    pub prompts: mcp_usage_pair_t,
    /// `server/discover`.
    pub discover: usize,
    /// A `tools/list` page holding the largest tool: the least that lists
    /// every tool, one page at a time.
    pub tools_list: usize,
    /// The whole `tools/list` in one page (every registered tool): what a
    /// client that reads only the first page, as the Python SDK's
    /// `list_tools()` does, needs to see every tool. Not part of
    /// `min_response_cap`.
    pub tools_list_all: usize,
    /// The largest `tools/call` result (envelope and `max_result_len`).
    pub tools_call: usize,
    /// `initialize`.
    pub initialize: usize,
    /// A `resources/list` (or templates) page holding the largest entry.
    pub resources_list: usize,
    /// A `prompts/list` page holding the largest prompt.
    pub prompts_list: usize,
    /// `mcp_server_min_response_cap`: the largest of these, at least
    /// `MCP_MIN_RESPONSE_CAP`.
    pub min_response_cap: usize,
    /// Bytes of program storage (`mcp_server_set_program_storage`) the tools
    /// compiled from texts use, and its size.
    pub programs: mcp_usage_pair_t,
}

/// Reports what the registrations use (see `mcp_usage_t`). Run it once on a
/// host after the firmware's registrations to learn the `EMCP_LIMITS` and
/// response buffer the firmware needs.
///
/// @retval 0 `*out` is filled.
/// @retval -MCP_EINVAL NULL pointer or uninitialised server.
///
/// @pre `server` must be NULL or point to an `mcp_server_t`; `out` NULL or
/// writable; no registration may run at the same time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_usage(
    server: *const mcp_server_t,
    out: *mut mcp_usage_t,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    let Some(slot) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: NULL or writable, as the caller promises.
    let Some(out) = (unsafe { out.as_mut() }) else {
        return -MCP_EINVAL;
    };
    let s = &slot.server;
    let pair = |used: usize, capacity: usize| mcp_usage_pair_t { used, capacity };
    let sizes = s.response_sizes();
    *out = mcp_usage_t {
        tools: pair(s.tools.len(), s.tools.capacity()),
        resources: pair(s.catalog.resource_count(), MCP_MAX_RESOURCES),
        prompts: pair(s.catalog.prompt_count(), MCP_MAX_PROMPTS),
        discover: sizes.discover,
        tools_list: sizes.tools_list,
        tools_list_all: sizes.tools_list_all,
        tools_call: sizes.tools_call,
        initialize: sizes.initialize,
        resources_list: sizes.resources_list,
        prompts_list: sizes.prompts_list,
        min_response_cap: sizes.min_response_cap(),
        programs: {
            let (used, capacity) = s.tools.store_usage();
            pair(used, capacity)
        },
    };
    0
}
