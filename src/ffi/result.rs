//! The C ABI of a tool's result: text, errors and structured content
//! (`include/emcp_result.h`).

#[allow(unused_imports)]
use super::*;

/// Appends a text content block.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full (the request will fail
///         with -32603 "Response exceeds the response buffer").
/// @retval -MCP_EILSEQ `text` is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback; `text` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_text(
    result: *mut mcp_result_t,
    text: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(text, len) } {
        Ok(t) => unsafe { with_result(result, |res| res.text(t)) },
        Err(e) => e,
    }
}

/// `mcp_result_text` for a NUL-terminated `text`.
///
/// @return As `mcp_result_text`; -MCP_EINVAL also for `text` NULL.
///
/// @pre `result` as for `mcp_result_text`; `text` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_text_cstr(
    result: *mut mcp_result_t,
    text: *const c_char,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { c_len(text) } {
        Some(len) => unsafe { mcp_result_text(result, text, len) },
        None => -MCP_EINVAL,
    }
}

/// Marks the result as a tool execution error (`isError: true`) and appends
/// `text` as a text block. The call still succeeds at the JSON-RPC level.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ `text` is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback; `text` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_error(
    result: *mut mcp_result_t,
    text: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(text, len) } {
        Ok(t) => unsafe { with_result(result, |res| res.error(t)) },
        Err(e) => e,
    }
}

/// `mcp_result_error` for a NUL-terminated `text`.
///
/// @return As `mcp_result_error`; -MCP_EINVAL also for `text` NULL.
///
/// @pre `result` as for `mcp_result_error`; `text` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_error_cstr(
    result: *mut mcp_result_t,
    text: *const c_char,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { c_len(text) } {
        Some(len) => unsafe { mcp_result_error(result, text, len) },
        None => -MCP_EINVAL,
    }
}

/// Sets or clears `isError` without adding content.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_set_error(result: *mut mcp_result_t, is_error: bool) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe {
        with_result(result, |res| {
            res.set_error(is_error);
            Ok(())
        })
    }
}

/// Ends the content blocks and opens the `structuredContent` object; then
/// write its members with `mcp_json_key` and the `mcp_json_*` value calls, and
/// close it with `mcp_result_structured_end`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Already called.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_structured_begin(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.structured_begin()) }
}

/// Closes the `structuredContent` object; every object and array opened inside
/// it must be closed first.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not inside structuredContent, or a container is still open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_structured_end(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.structured_end()) }
}

/// Writes an object key inside structuredContent (NUL-terminated UTF-8);
/// `mcp_json_key_n` takes a key that is not.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not inside structuredContent, or not inside an object,
///         or a key without its value; the request then fails with -32603.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ Not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback; `key` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_key(result: *mut mcp_result_t, key: *const c_char) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { json_key(result, c_text(key).and_then(|k| k.ok_or(-MCP_EINVAL))) }
}

/// `mcp_json_key` for a key of `len` bytes (say one read with
/// `mcp_arg_string`), not NUL-terminated.
///
/// @return As `mcp_json_key`.
///
/// @pre `result` as for `mcp_json_key`; `key` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_key_n(
    result: *mut mcp_result_t,
    key: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { json_key(result, text_n(key, len)) }
}

/// `mcp_json_key` and `mcp_json_key_n` once their key is read.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn json_key(result: *mut mcp_result_t, key: Result<&str, c_int>) -> c_int {
    match key {
        // SAFETY: forwarded caller promises.
        Ok(k) => unsafe { with_json(result, |w| w.key(k)) },
        Err(e) => e,
    }
}

/// Writes a string value inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ Not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback; `s` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_string(
    result: *mut mcp_result_t,
    s: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(s, len) } {
        Ok(t) => unsafe { with_json(result, |w| w.string(t)) },
        Err(e) => e,
    }
}

/// `mcp_json_string` for a NUL-terminated `s`.
///
/// @return As `mcp_json_string`; -MCP_EINVAL also for `s` NULL.
///
/// @pre `result` as for `mcp_json_string`; `s` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_string_cstr(
    result: *mut mcp_result_t,
    s: *const c_char,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { c_len(s) } {
        Some(len) => unsafe { mcp_json_string(result, s, len) },
        None => -MCP_EINVAL,
    }
}

/// Writes an integer value inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_int(result: *mut mcp_result_t, v: i64) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.int(v)) }
}

/// Writes the fixed-point number `v × 10^-places` inside structuredContent,
/// exactly and with `places` digits after the point: `(215, 1)` writes
/// `21.5`, `(620, 1)` `62.0`, `(-5, 3)` `-0.005`, `(42, 0)` `42`.
///
/// For readings a firmware keeps as scaled integers (tenths of a degree,
/// millivolts): it writes them without `double` arithmetic, and a build
/// that never calls `mcp_json_number` links no double-to-text code (about
/// 3 KB on Cortex-M).
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_decimal(result: *mut mcp_result_t, v: i64, places: u32) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.decimal(v, places)) }
}

/// Writes a number value inside structuredContent.
///
/// Integral values are written as `1.0`, others in the shortest of 15, 16
/// or 17 significant digits that reads back to exactly `v` (an exponent
/// below 1e-4 and from 1e16: `1.5e-7`).
///
/// @retval 0 Success.
/// @retval -MCP_EDOM `v` is NaN or infinite (JSON has no such numbers).
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_number(result: *mut mcp_result_t, v: f64) -> c_int {
    if !crate::json::num::is_finite(v) {
        return -MCP_EDOM;
    }
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.number(v)) }
}

/// Writes `true` or `false` inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_bool(result: *mut mcp_result_t, v: bool) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.bool(v)) }
}

/// Writes `null` inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_null(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.null()) }
}

/// Opens a nested object inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_object_begin(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.begin_object()) }
}

/// Closes a nested object opened with `mcp_json_object_begin`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM No nested object is open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_object_end(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.json_close(true)) }
}

/// Opens an array inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_array_begin(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(result, |w| w.begin_array()) }
}

/// Closes an array opened with `mcp_json_array_begin`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM No array is open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `result` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_array_end(result: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.json_close(false)) }
}
