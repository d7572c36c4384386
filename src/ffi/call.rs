//! The C ABI of a call's arguments and context, read by a tool callback
//! (`include/emcp_call.h`).

#[allow(unused_imports)]
use super::*;

/// Reads an integer argument. `path` is `key`, `key.sub` or `key[2]`.
/// Integral numbers written as `1.0` or `1e2` are accepted.
///
/// @retval 0 Success; `*out` holds the value.
/// @retval -MCP_ENOENT No value at `path` (or no arguments were sent).
/// @retval -MCP_EDOM The value is not a number, or not an integer.
/// @retval -MCP_ERANGE The value does not fit `int64_t`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre `call` must be the handle passed to the running callback; `path` a
/// NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_int(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut i64,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe { typed_arg(call, path, out, |d, i| d.as_i64(i)) }
}

/// Reads a number argument.
///
/// The nearest `double`, converted without floating-point arithmetic:
/// correctly rounded for numbers of up to 19 significant digits in plain
/// decimal notation, otherwise at most one unit in the last place off
/// (docs/firmware.md, "Numbers without floating point").
///
/// @retval 0 Success; `*out` holds the value.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EDOM The value is not a number.
/// @retval -MCP_ERANGE The value is beyond the range of `double`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre As for `mcp_arg_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_number(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut f64,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe { typed_arg(call, path, out, |d, i| d.as_f64(i)) }
}

/// Reads a boolean argument.
///
/// @retval 0 Success; `*out` holds the value.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EDOM The value is not `true` or `false`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre As for `mcp_arg_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_bool(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut bool,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe { typed_arg(call, path, out, |d, i| d.as_bool(i)) }
}

/// Copies a string argument, unescaped and NUL-terminated, into `buf`.
///
/// @param len Receives the string's length in bytes (without the NUL), also
///            when `buf` is too small; may be NULL.
/// @retval 0 Success.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EDOM The value is not a string.
/// @retval -MCP_ENOBUFS `cap` is smaller than the length plus one.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre `call` must be the handle passed to the running callback; `path`
/// NUL-terminated; `buf` writable for `cap` bytes; `len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_string(
    call: *const mcp_call_t,
    path: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe { with_arg(call, path, |d, i| copy_string(d, i, buf, cap, len)) }
}

/// Fills a built tool's typed argument struct from the call's arguments,
/// which passed the tool's schema before the callback ran: every member is
/// written, from the argument sent, else its schema's `default`, else zero
/// with its `has_` flag false. `emcp-gen` declares the struct and calls
/// this in the wrapper it writes around the tool's typed callback, so a
/// callback reads `args->percent`, not a name.
///
/// Strings are `mcp_str_t` spans, not NUL-terminated, valid while the
/// callback runs: into the request when the string has no escapes,
/// otherwise decoded into `text`. A string `enum` is the index of its value
/// (the generated C enum); any value without a C type of its own (an object,
/// an array, a string without `maxLength`) is its JSON text as sent.
///
/// @param args     The struct (`struct <prefix>_<tool>_args`).
/// @param size     `sizeof` it: the tool's `args_size`.
/// @param text     Where escaped strings are decoded, or NULL.
/// @param text_cap Bytes at `text` (the generated `<PREFIX>_<TOOL>_TEXT_LEN`:
///                 4 bytes per character of every string member's
///                 `maxLength`, which always suffices).
/// @retval 0 Success.
/// @retval -MCP_ENOTSUP The tool has no typed arguments (a tool from texts,
///         or a built tool registered without `args`).
/// @retval -MCP_EINVAL NULL `call` or `args`, or `size` is not the tool's
///         `args_size`.
/// @retval -MCP_ENOBUFS The escaped strings do not fit `text_cap` bytes.
///
/// @pre `call` must be the handle passed to the running callback; `args`
/// writable for `size` bytes; `text` NULL or writable for `text_cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_args(
    call: *const mcp_call_t,
    args: *mut c_void,
    size: usize,
    text: *mut c_char,
    text_cap: usize,
) -> c_int {
    // SAFETY: see call_ref.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    if args.is_null() || size == 0 {
        return -MCP_EINVAL;
    }
    // SAFETY: the caller promises `size` writable bytes at `args`.
    let out = unsafe { core::slice::from_raw_parts_mut(args.cast::<u8>(), size) };
    // SAFETY: the caller promises `text_cap` writable bytes at a non-NULL `text`.
    let text = unsafe { out_buf(text, text_cap) }.unwrap_or(&mut []);
    match c.fill_args(out, text) {
        None => -MCP_ENOTSUP,
        Some(Ok(())) => 0,
        Some(Err(crate::schema::typed::FillError::Size)) => -MCP_EINVAL,
        Some(Err(crate::schema::typed::FillError::Text)) => -MCP_ENOBUFS,
    }
}

/// The JSON type of the argument at `path`.
///
/// @return One of `MCP_JSON_OBJECT`, `_ARRAY`, `_STRING`, `_NUMBER`, `_BOOL`, `_NULL`.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre `call` must be the handle passed to the running callback; `path` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_type(call: *const mcp_call_t, path: *const c_char) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe {
        with_arg(call, path, |d, i| match d.kind(i) {
            Some(Kind::Object) => MCP_JSON_OBJECT,
            Some(Kind::Array) => MCP_JSON_ARRAY,
            Some(Kind::String) => MCP_JSON_STRING,
            Some(Kind::Number) => MCP_JSON_NUMBER,
            Some(Kind::True | Kind::False) => MCP_JSON_BOOL,
            Some(Kind::Null) => MCP_JSON_NULL,
            None => -MCP_ENOENT,
        })
    }
}

/// The number of elements of an array argument, or of members of an object
/// argument (`""` is the arguments object itself).
///
/// @return The count.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EDOM The value is neither an array nor an object.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// @retval -MCP_ENOTSUP The library was built without `text-tools` (the
///         `minimal` profile): a built tool reads its typed struct
///         (`mcp_call_args`).
///
/// @pre `call` must be the handle passed to the running callback; `path` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_count(call: *const mcp_call_t, path: *const c_char) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe {
        with_arg(call, path, |d, i| match d.kind(i) {
            Some(Kind::Array) => d.elements(i).count() as c_int,
            Some(Kind::Object) => d.members(i).count() as c_int,
            _ => -MCP_EDOM,
        })
    }
}

/// Writes the call's arguments as compact JSON (`{}` when none were sent),
/// NUL-terminated, e.g. for an audit log.
///
/// @return The length written, without the NUL.
/// @retval -MCP_ENOBUFS `cap` is too small.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `call` must be the handle passed to the running callback; `buf` writable
/// for `cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_arguments(
    call: *const mcp_call_t,
    buf: *mut c_char,
    cap: usize,
) -> c_int {
    // SAFETY: see call_ref.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let Some(out) = (unsafe { out_buf(buf, cap) }) else {
        return -MCP_EINVAL;
    };
    let cap = out.len();
    let (body, nul) = out.split_at_mut(cap - 1);
    let mut w = Writer::new(body);
    if let Err(e) = c.arguments_json(&mut w) {
        return write_errno(e);
    }
    let n = w.len();
    // `nul` is the last byte; when the JSON is shorter, terminate right after it.
    match body.get_mut(n) {
        Some(b) => *b = 0,
        None => {
            if let Some(b) = nul.first_mut() {
                *b = 0;
            }
        }
    }
    n as c_int
}

/// The name of the tool being called (the registered, NUL-terminated string).
///
/// @pre `call` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_tool_name(call: *const mcp_call_t) -> *const c_char {
    // SAFETY: see call_ref. The name came from a NUL-terminated C string.
    match unsafe { call_ref(call) } {
        Some(c) => c.name.as_ptr().cast::<c_char>(),
        None => core::ptr::null(),
    }
}

/// Copies the string `params._meta[key]` of the request (e.g. `"traceparent"`,
/// `"tracestate"`, `"progressToken"` when it is a string), unescaped and
/// NUL-terminated, into `buf`.
///
/// @param len Receives the length in bytes (without the NUL), also when `buf`
///            is too small; may be NULL.
/// @retval 0 Success.
/// @retval -MCP_ENOENT The request's `_meta` has no string under `key`.
/// @retval -MCP_ENOBUFS `cap` is smaller than the length plus one.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `call` must be the handle passed to the running callback; `key`
/// NUL-terminated; `buf` writable for `cap` bytes; `len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_meta_string(
    call: *const mcp_call_t,
    key: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    // SAFETY: see call_ref; key is NULL or NUL-terminated.
    let (Some(c), Ok(Some(k))) = (unsafe { call_ref(call) }, unsafe { c_text(key) }) else {
        return -MCP_EINVAL;
    };
    let Some(v) = c.meta_string(k) else {
        return -MCP_ENOENT;
    };
    // SAFETY: forwarded caller promises.
    unsafe { copy_string(&c.doc, v, buf, cap, len) }
}

/// Copies the 32-hex-digit trace id of the request's W3C `traceparent`
/// (`params._meta.traceparent`), NUL-terminated, into `buf` (at least 33
/// bytes), e.g. for an audit log.
///
/// @retval 0 Success.
/// @retval -MCP_ENOENT No `traceparent`, or one that is not a valid W3C value.
/// @retval -MCP_ENOBUFS `cap` is below 33.
/// @retval -MCP_EINVAL NULL pointer.
///
/// @pre `call` must be the handle passed to the running callback; `buf` writable
/// for `cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_trace_id(
    call: *const mcp_call_t,
    buf: *mut c_char,
    cap: usize,
) -> c_int {
    // SAFETY: see call_ref.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    if buf.is_null() {
        return -MCP_EINVAL;
    }
    let Some(id) = c.trace_id() else {
        return -MCP_ENOENT;
    };
    if cap <= id.len() {
        return -MCP_ENOBUFS;
    }
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap) };
    if let Some(dst) = out.get_mut(..id.len()) {
        crate::json::copy_bytes(dst, id);
    }
    if let Some(nul) = out.get_mut(id.len()) {
        *nul = 0;
    }
    0
}

/// The request context the transport passed to `mcp_server_handle` (NULL if it
/// passed none), e.g. for the principal or `now_ms`.
///
/// @pre `call` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_ctx(call: *const mcp_call_t) -> *const mcp_request_ctx_t {
    // SAFETY: see call_ref.
    match unsafe { call_ref(call) } {
        Some(c) => c.info.origin.cast::<mcp_request_ctx_t>(),
        None => core::ptr::null(),
    }
}
