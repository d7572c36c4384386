//! C API for multi-round-trip tool calls (2026-07-28 `input_required`): the
//! server's state key, asking the client for input, and reading the answers
//! and the verified state on the retried call.

use core::ffi::{c_char, c_int, c_void};

use super::{c_text, call_ref, copy_string, mcp_server_t, slot, with_result, with_value_in};
use crate::call::{InputParams, caps};
use crate::limits::*;
use crate::protocol::mrtr::StateMac;
use crate::registry::{mcp_call_t, mcp_result_t};

/// A MAC over `data[..len]` written to `out` (`MCP_MAC_LEN` bytes); 0 on success or a
/// negative `MCP_E*` value. Lets a device use its own crypto for `requestState`.
pub type mcp_mac_fn =
    Option<extern "C" fn(user: *mut c_void, data: *const u8, len: usize, out: *mut u8) -> c_int>;

pub(super) unsafe fn server_mut<'a>(
    server: *mut mcp_server_t,
) -> Option<&'a mut crate::server::Server<'static>> {
    // SAFETY: `slot` checks NULL and the magic word; the caller promises no
    // other reference to the server is live (no concurrent handle call).
    unsafe {
        slot(server)?;
    }
    Some(unsafe { &mut (*server.cast::<super::Slot>()).server })
}

/// Sets the key of the built-in HMAC-SHA256 that protects `requestState`
/// (copied). Without a key (or a MAC hook), tools cannot set a request state.
/// Use a random per-device secret from the firmware's TRNG.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer, uninitialised server, or a key shorter
///         than 16 or longer than 64 bytes.
///
/// @pre As for `mcp_server_add_tool`; `key` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_state_key(
    server: *mut mcp_server_t,
    key: *const u8,
    len: usize,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises.
    let Some(s) = (unsafe { server_mut(server) }) else {
        return -MCP_EINVAL;
    };
    if key.is_null() || !matches!(len, 16..=64) {
        return -MCP_EINVAL;
    }
    let mut k = [0u8; 64];
    // SAFETY: the caller promises `len` readable bytes.
    crate::json::copy_bytes(k.get_mut(..len).unwrap_or(&mut []), unsafe {
        core::slice::from_raw_parts(key, len)
    });
    s.state_mac = StateMac::Key(k, len as u8);
    0
}

/// Replaces the built-in MAC of `requestState` with the firmware's own (for
/// example a hardware HMAC engine); NULL `fn` removes it.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer or uninitialised server.
///
/// @pre As for `mcp_server_add_tool`; `fn` must be callable from any thread that
/// calls `mcp_server_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_state_mac(
    server: *mut mcp_server_t,
    r#fn: mcp_mac_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises.
    let Some(s) = (unsafe { server_mut(server) }) else {
        return -MCP_EINVAL;
    };
    s.state_mac = match r#fn {
        Some(f) => StateMac::Hook(f, user),
        None => StateMac::None,
    };
    0
}

fn is_object(text: &str) -> bool {
    crate::json::is_container(text, b'{', MCP_MAX_DEPTH)
}

unsafe fn request(
    r: *mut mcp_result_t,
    key: *const c_char,
    method: &str,
    cap: u8,
    params: impl FnOnce() -> Result<InputParams<'static>, c_int>,
) -> c_int {
    // SAFETY: NUL-terminated, as promised.
    let k = match unsafe { c_text(key) } {
        Ok(Some(k)) if !k.is_empty() => k,
        Ok(_) => return -MCP_EINVAL,
        Err(e) => return e,
    };
    let p = match params() {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.input_request(k, method, cap, p)) }
}

/// Asks the user for input through the client (`elicitation/create`, form
/// mode) instead of returning a result: the response becomes
/// `resultType: "input_required"` and the client retries the call with the
/// answer under `inputResponses[key]`, read with `mcp_input_*`. Call it before
/// any content block; several requests (distinct keys) may be made.
///
/// @param key              Names this request in `inputRequests`.
/// @param message          What the user is asked.
/// @param requested_schema JSON Schema of the answer: one JSON object.
/// @retval 0 Success.
/// @retval -MCP_EACCES The client did not declare `elicitation` in this
///         request (legacy era: the transport did not set
///         `MCP_CTX_LEGACY_ELICITATION`); the request will be answered with -32021.
/// @retval -MCP_ENOTSUP A legacy-era request whose transport set none of
///         `MCP_CTX_LEGACY_ELICITATION`, `_SAMPLING`, `_ROOTS` (then it carries
///         the input requests as server-to-client requests and re-runs the
///         call with the answers, as at 2026-07-28).
/// @retval -MCP_EPERM Called after a content block or structuredContent.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer, empty key, or a schema that is not a JSON object.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
///
/// @pre `result` must be the handle passed to the running callback; strings
/// NUL-terminated and valid until the callback returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_elicit(
    result: *mut mcp_result_t,
    key: *const c_char,
    message: *const c_char,
    requested_schema: *const c_char,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises (the strings outlive the call).
    unsafe {
        request(result, key, "elicitation/create", caps::ELICITATION, || {
            let (Some(message), Some(schema)) = (c_text(message)?, c_text(requested_schema)?)
            else {
                return Err(-MCP_EINVAL);
            };
            if !is_object(schema) {
                return Err(-MCP_EINVAL);
            }
            Ok(InputParams::Elicit { message, schema })
        })
    }
}

/// Asks the client's model for a completion (`sampling/createMessage`); see
/// `mcp_result_elicit` for the flow.
///
/// @param params_json The request params (`messages`, `maxTokens`, …): one JSON object.
/// @retval 0 Success.
/// @retval -MCP_EACCES The client did not declare `sampling` (answered with -32021).
/// @retval -MCP_ENOTSUP A legacy-era request.
/// @retval -MCP_EPERM Called after a content block.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer, empty key, or params not a JSON object.
///
/// @pre As for `mcp_result_elicit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_sample(
    result: *mut mcp_result_t,
    key: *const c_char,
    params_json: *const c_char,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises.
    unsafe {
        request(
            result,
            key,
            "sampling/createMessage",
            caps::SAMPLING,
            || match c_text(params_json)? {
                Some(p) if is_object(p) => Ok(InputParams::Raw(p)),
                _ => Err(-MCP_EINVAL),
            },
        )
    }
}

/// Asks the client for its roots (`roots/list`); see `mcp_result_elicit`.
///
/// @retval 0 Success.
/// @retval -MCP_EACCES The client did not declare `roots` (answered with -32021).
/// @retval -MCP_ENOTSUP A legacy-era request.
/// @retval -MCP_EPERM Called after a content block.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer or empty key.
///
/// @pre As for `mcp_result_elicit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_list_roots(
    result: *mut mcp_result_t,
    key: *const c_char,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises.
    unsafe {
        request(result, key, "roots/list", caps::ROOTS, || {
            Ok(InputParams::Raw("{}"))
        })
    }
}

/// Sets the state the client must send back as `requestState` with its retry
/// of an input_required call (for example what was asked about). The core
/// protects it with a MAC bound to this tool; on the retry the callback reads
/// it with `mcp_call_request_state`, and a tampered or foreign state is
/// refused with -32602 before any callback runs.
///
/// @retval 0 Success.
/// @retval -MCP_ENOTSUP No state key or MAC hook is set on the server.
/// @retval -MCP_ENOBUFS `len` exceeds `MCP_MAX_REQUEST_STATE`.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback; `state` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_request_state(
    result: *mut mcp_result_t,
    state: *const u8,
    len: usize,
) -> c_int {
    require_feature!("mrtr");
    if state.is_null() && len != 0 {
        return -MCP_EINVAL;
    }
    let data: &[u8] = if state.is_null() {
        &[]
    } else {
        // SAFETY: the caller promises `len` readable bytes.
        unsafe { core::slice::from_raw_parts(state, len) }
    };
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.set_request_state(data)) }
}

/// Whether the request declared the client capability `name` (e.g.
/// `"sampling"`, `"elicitation"`, `"roots"`) in its `_meta` (legacy era: the
/// transport's `MCP_CTX_LEGACY_*` flags, what the client declared at
/// initialize), so a tool can choose a path the client supports before
/// asking for input.
///
/// @return 1 when declared, 0 when not.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `call` must be the handle passed to the running callback; `name` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_client_capability(
    call: *const mcp_call_t,
    name: *const c_char,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: see call_ref; name is NUL-terminated.
    match (unsafe { call_ref(call) }, unsafe { c_text(name) }) {
        (Some(c), Ok(Some(n))) => c_int::from(c.client_capability(n)),
        _ => -MCP_EINVAL,
    }
}

/// Copies the verified `requestState` of a retried call into `buf`.
///
/// @return Its length in bytes.
/// @retval -MCP_ENOENT The request carried no `requestState`.
/// @retval -MCP_ENOBUFS `cap` is too small.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `call` must be the handle passed to the running callback; `buf` writable for `cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_request_state(
    call: *const mcp_call_t,
    buf: *mut u8,
    cap: usize,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: see call_ref.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    let Some(state) = c.state else {
        return -MCP_ENOENT;
    };
    if buf.is_null() || cap < state.len() {
        return -MCP_ENOBUFS;
    }
    // SAFETY: the caller promises `cap` writable bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(buf, cap) };
    if let Some(dst) = out.get_mut(..state.len()) {
        crate::json::copy_bytes(dst, state);
    }
    state.len() as c_int
}

/// Reads a string from the answers of a retried input_required call;
/// `path` is rooted at `inputResponses`, e.g. `"confirm.action"` (`accept`,
/// `decline` or `cancel`) or `"confirm.content.reason"`.
///
/// @retval 0 Success.
/// @retval -MCP_ENOENT No answer at `path` (or no answers were sent).
/// @retval -MCP_EDOM The value is not a string.
/// @retval -MCP_ENOBUFS `cap` is smaller than the length plus one.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @pre As for `mcp_arg_string`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_input_string(
    call: *const mcp_call_t,
    path: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    require_feature!("mrtr");
    // SAFETY: forwarded caller promises.
    unsafe { with_value_in(call, path, true, |d, i| copy_string(d, i, buf, cap, len)) }
}

/// Reads a boolean from the answers of a retried input_required call, e.g.
/// `"confirm.content.ok"`. The answers come from the client: check them as you
/// would any input.
///
/// @retval 0 Success.
/// @retval -MCP_ENOENT No answer at `path`.
/// @retval -MCP_EDOM The value is not a boolean.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @pre As for `mcp_arg_bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_input_bool(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut bool,
) -> c_int {
    require_feature!("mrtr");
    if out.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: forwarded caller promises; out checked non-NULL.
    unsafe {
        with_value_in(call, path, true, |d, i| match d.as_bool(i) {
            Ok(v) => {
                out.write(v);
                0
            }
            Err(_) => -MCP_EDOM,
        })
    }
}

/// Reads an integer from the answers of a retried input_required call.
///
/// @retval 0 Success.
/// @retval -MCP_ENOENT No answer at `path`.
/// @retval -MCP_EDOM Not an integer.
/// @retval -MCP_ERANGE Does not fit `int64_t`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @pre As for `mcp_arg_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_input_int(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut i64,
) -> c_int {
    require_feature!("mrtr");
    if out.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: forwarded caller promises; out checked non-NULL.
    unsafe {
        with_value_in(call, path, true, |d, i| match d.as_i64(i) {
            Ok(v) => {
                out.write(v);
                0
            }
            Err(e) => super::conv_errno(e),
        })
    }
}
