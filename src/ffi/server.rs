//! The C ABI of the server: `mcp_server_init` and `mcp_server_handle`
//! (`include/emcp_server.h`). Conversion helpers are in `mod.rs`.

#[allow(unused_imports)]
use super::*;

/// Initialises a server in caller-owned storage.
///
/// @param server Storage for the server, e.g. `static mcp_server_t server;`.
/// @param config Identity and list policy; the struct is copied, its strings
///               must outlive the server.
/// @retval 0 Success.
/// @retval -MCP_EINVAL A pointer is NULL, or `name` or `version` is missing or empty.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
///
/// @pre `server` must point to writable `mcp_server_t` storage and `config` to a
/// valid config whose strings are NUL-terminated and outlive the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_init(
    server: *mut mcp_server_t,
    config: *const mcp_server_config_t,
) -> c_int {
    if server.is_null() || config.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises a valid config.
    let c = unsafe { &*config };
    // Every text is read first (any invalid UTF-8 is -MCP_EILSEQ), then the
    // required ones are checked (-MCP_EINVAL).
    // SAFETY: the caller promises NUL-terminated strings (or NULL) that
    // outlive the server.
    let texts = || unsafe {
        Ok((
            c_text(c.name)?,
            c_text(c.version)?,
            c_text(c.title)?,
            c_text(c.instructions)?,
        ))
    };
    let (name, version, title, instructions) = match texts() {
        Ok((Some(n), Some(v), title, i)) => (n, v, title, i),
        Ok(_) => return -MCP_EINVAL,
        Err(e) => return e,
    };
    if name.is_empty() || version.is_empty() || c.cache_scope > MCP_CACHE_PUBLIC {
        return -MCP_EINVAL;
    }
    let info = ServerInfo {
        name,
        version,
        title,
        instructions,
        list_ttl_ms: c.list_ttl_ms,
        cache_public: c.cache_scope == MCP_CACHE_PUBLIC,
    };
    // SAFETY: `server` is non-NULL, writable, large and aligned enough for a
    // Slot (compile-time checks above); any previous content is overwritten.
    unsafe { init_slot(server.cast::<Slot>(), info, c.list_page_size) };
    0
}

/// Handles one complete JSON-RPC message and writes at most one response.
///
/// Nothing is allocated: the request is tokenized on this call's stack
/// (`MCP_MAX_JSON_TOKENS` tokens) and the response is written straight into
/// `response`. A response that does not fit is replaced by a JSON-RPC error
/// that does (never a truncated message). Safe to call from several threads
/// at once if the tool callbacks are.
///
/// @param server       An initialised server. Not const: a call writes the
///                     server's rate-limit claims and listen-stream links
///                     (through atomics, so calls on several threads at
///                     once are safe; see the Threading note above).
/// @param ctx          What the transport knows about this exchange, or NULL.
/// @param request      The message bytes (one JSON text, no framing).
/// @param request_len  Its length.
/// @param response     Where the response is written (not NUL-terminated).
/// @param response_cap At least `MCP_MIN_RESPONSE_CAP` bytes; at least
///                     `mcp_server_min_response_cap(server)` to answer
///                     every registered tool, resource and prompt.
/// @param info         Receives the error code and HTTP status, or NULL.
/// @return The response length in bytes; 0 when no response is due (a
///         notification).
/// @retval -MCP_EINVAL   NULL pointer or uninitialised server.
/// @retval -MCP_ENOBUFS  `response_cap` is below `MCP_MIN_RESPONSE_CAP`;
///                       nothing was run.
///
/// A tool never runs when its answer cannot be delivered: once the call has
/// passed its argument and policy checks, and before any rate-limit or
/// idempotency claim, a `response_cap` smaller than the result's envelope
/// (for this request's id and era) plus the tool's `max_result_len` is
/// answered with -32603 `Response buffer of N bytes cannot hold this tool's
/// result (needs M): the tool did not run` (with a long id at a small buffer
/// its short form `Response buffer too small for the result: the tool did
/// not run`), audited as `MCP_AUDIT_NO_SPACE`. That is
/// a firmware configuration fault, not one to retry: size the buffer with
/// `mcp_server_min_response_cap` (or `mcp_server_usage`) after the last
/// registration. A callback learns its remaining room from
/// `mcp_result_space`.
///
/// @pre Pointers must be valid for the given lengths; `ctx` and the spans in it
/// must be valid for the duration of the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_handle(
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    request: *const u8,
    request_len: usize,
    response: *mut u8,
    response_cap: usize,
    info: *mut mcp_response_info_t,
) -> c_int {
    if request.is_null() && request_len != 0 {
        return -MCP_EINVAL;
    }
    let req: &[u8] = if request.is_null() {
        &[]
    } else {
        // SAFETY: the caller promises `request_len` readable bytes.
        unsafe { core::slice::from_raw_parts(request, request_len) }
    };
    // SAFETY: forwarded caller promises.
    unsafe { exchange(server, ctx, Run::Handle(req), response, response_cap, info) }
}
