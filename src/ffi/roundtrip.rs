//! The C ABI of the legacy-era server-to-client round trip
//! ([`crate::roundtrip`]): caller-owned storage for one waiting call.
//!
//! Owns: checking the handle and pointers. Must not: hold protocol logic.

use core::ffi::{CStr, c_char, c_int};

use super::types::{mcp_request_ctx_t, mcp_response_info_t, mcp_roundtrip_t, mcp_server_t};
use super::{Run, exchange};
use crate::call::RequestInfo;
use crate::limits::*;
use crate::roundtrip::{Answer, RoundTrip};
use crate::server::{Exchange, HandleError, Outcome, Server};

/// Runs one exchange through the storage: a message (`Some`) or the resume
/// of the waiting call (`None`).
pub(crate) type RunFn = fn(
    &mut RoundTrip,
    &mut [u8],
    &Server<'_>,
    &RequestInfo<'_>,
    Exchange<'_>,
    Option<&[u8]>,
    &mut [u8],
) -> Result<Outcome, HandleError>;

fn run(
    rt: &mut RoundTrip,
    buf: &mut [u8],
    s: &Server<'_>,
    info: &RequestInfo<'_>,
    ex: Exchange<'_>,
    msg: Option<&[u8]>,
    out: &mut [u8],
) -> Result<Outcome, HandleError> {
    match msg {
        Some(m) => rt.handle(buf, s, info, ex, m, out),
        None => rt.resume(buf, s, info, ex, out),
    }
}

#[repr(C)]
struct RtSlot {
    magic: usize,
    buf: *mut u8,
    cap: usize,
    run: RunFn,
    state: RoundTrip,
}

const RT_MAGIC: usize = 0x4D43_5254;

const _: () = assert!(core::mem::size_of::<RtSlot>() <= core::mem::size_of::<mcp_roundtrip_t>());
const _: () = assert!(core::mem::align_of::<RtSlot>() <= core::mem::align_of::<mcp_roundtrip_t>());

/// The state behind `rt` with its buffer, or None for NULL or an
/// uninitialised handle.
pub(crate) unsafe fn state<'a>(
    rt: *mut mcp_roundtrip_t,
) -> Option<(&'a mut RoundTrip, &'a mut [u8], RunFn)> {
    if rt.is_null() {
        return None;
    }
    let p = rt.cast::<RtSlot>();
    // SAFETY: `rt` points to caller storage of MCP_ROUNDTRIP_WORDS words
    // (asserted above to hold an RtSlot); the magic word is read through a
    // raw pointer first, so a zeroed block is never taken for a state. The
    // buffer was checked by mcp_roundtrip_init and the caller promises it
    // outlives the storage and is used by nothing else.
    unsafe {
        if core::ptr::addr_of!((*p).magic).read() != RT_MAGIC {
            return None;
        }
        let s = &mut *p;
        let buf = core::slice::from_raw_parts_mut(s.buf, s.cap);
        Some((&mut s.state, buf, s.run))
    }
}

/// Initialises round-trip storage over a buffer the caller owns; nothing
/// waits afterwards (a call that was waiting is forgotten).
///
/// @param rt       Storage, e.g. `static mcp_roundtrip_t rt;`.
/// @param buf      Its buffer, e.g. `static uint8_t rt_buf[2048];`: it holds
///                 the waiting call with the answers (see
///                 `MCP_ROUNDTRIP_MIN_BUF`); valid and used by nothing else
///                 while the storage is.
/// @param cap      Its size: at least `MCP_ROUNDTRIP_MIN_BUF`; a call longer
///                 than `cap - MCP_MAX_ID_LEN - MCP_ROUNDTRIP_KEY_SPACE - 64`
///                 bytes is served as if the client could not be asked.
/// @param first_id The id of the first server-to-client request (then
///                 counting up, below 2^63). Storages that serve one client
///                 at once (an HTTP session's several calls) need ranges
///                 that do not meet, e.g. `slot << 40`.
/// @retval 0 Success.
/// @retval -MCP_EINVAL `rt` or `buf` is NULL, or `cap` is below
///         `MCP_ROUNDTRIP_MIN_BUF`.
/// @retval -MCP_ENOTSUP Built without the `legacy` and `mrtr` features.
///
/// @pre `rt` must point to writable `mcp_roundtrip_t` storage and `buf` to `cap`
/// writable bytes that outlive every use of the storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_roundtrip_init(
    rt: *mut mcp_roundtrip_t,
    buf: *mut u8,
    cap: usize,
    first_id: u64,
) -> c_int {
    require_feature!("legacy");
    require_feature!("mrtr");
    if rt.is_null() || buf.is_null() || cap < MCP_ROUNDTRIP_MIN_BUF {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises writable storage, large
    // and aligned enough for an RtSlot (asserted at compile time).
    unsafe {
        rt.cast::<RtSlot>().write(RtSlot {
            magic: RT_MAGIC,
            buf,
            cap: cap.min(u32::MAX as usize),
            run,
            state: RoundTrip::new(first_id & (i64::MAX as u64)),
        });
    }
    0
}

/// Whether a call waits in the storage.
///
/// @retval 1 A call waits for the client's answers (or to be resumed).
/// @retval 0 The storage is free.
/// @retval -MCP_EINVAL `rt` is NULL or not initialised.
/// @retval -MCP_ENOTSUP Built without the `legacy` and `mrtr` features.
///
/// @pre `rt` must be NULL or point to `mcp_roundtrip_t` storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_roundtrip_waiting(rt: *mut mcp_roundtrip_t) -> c_int {
    require_feature!("legacy");
    require_feature!("mrtr");
    // SAFETY: see state().
    match unsafe { state(rt) } {
        Some((s, _, _)) => c_int::from(s.waiting()),
        None => -MCP_EINVAL,
    }
}

/// Offers a client message to the waiting call, for a transport where the
/// answers arrive apart from the call (Streamable HTTP: on other POSTs).
/// A transport with one stream simply hands every message to
/// `mcp_server_handle` with `ctx.roundtrip` set.
///
/// @param rt  Initialised storage, or NULL to only tell whether `msg` is a
///            JSON-RPC response.
/// @param msg The message (one JSON text).
/// @param len Its length.
/// @retval 2 The client's `notifications/cancelled` for the waiting call
///         (its `requestId` is the call's id): the call is abandoned, the
///         storage is free, and nothing is to be sent for the call (MCP
///         cancellation; end its stream without a response).
/// @retval 1 The last answer of the round is in (or the call failed): call
///         `mcp_roundtrip_resume` to get the call's output.
/// @retval 0 Kept; more answers are due.
/// @retval -MCP_ENOENT A JSON-RPC response, but to no request this storage
///         waits for.
/// @retval -MCP_EDOM Not a JSON-RPC response (a request, another
///         notification, or not JSON-RPC): handle it as usual.
/// @retval -MCP_EINVAL `msg` is NULL, or `rt` is not initialised.
/// @retval -MCP_ENOTSUP Built without the `legacy` and `mrtr` features.
///
/// @pre `rt` must be NULL or point to `mcp_roundtrip_t` storage; `msg` readable
/// for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_roundtrip_answer(
    rt: *mut mcp_roundtrip_t,
    msg: *const u8,
    len: usize,
) -> c_int {
    require_feature!("legacy");
    require_feature!("mrtr");
    if msg.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: the caller promises `len` readable bytes.
    let msg = unsafe { core::slice::from_raw_parts(msg, len) };
    let mut idle = RoundTrip::new(0);
    let mut none: [u8; 0] = [];
    let (s, buf): (&mut RoundTrip, &mut [u8]) = if rt.is_null() {
        (&mut idle, &mut none)
    } else {
        // SAFETY: see state().
        match unsafe { state(rt) } {
            Some((s, b, _)) => (s, b),
            None => return -MCP_EINVAL,
        }
    };
    match s.answer(buf, msg) {
        Answer::Cancelled => 2,
        Answer::Ready => 1,
        Answer::Stored => 0,
        Answer::NotPending => -MCP_ENOENT,
        Answer::NotResponse => -MCP_EDOM,
    }
}

/// Runs the waiting call again once `mcp_roundtrip_answer` returned 1, and
/// writes its output: the call's final response, its -32603 error, or the
/// next round's requests (`MCP_RESPONSE_CLIENT_REQUEST`). Use the context
/// of the call (its principal, flags), not of the message that answered.
///
/// @return The output length; 0 when no call was ready.
/// @retval -MCP_EINVAL A NULL pointer, or `server` or `rt` is not initialised.
/// @retval -MCP_ENOBUFS `out_cap` is below `MCP_MIN_RESPONSE_CAP`.
/// @retval -MCP_ENOTSUP Built without the `legacy` and `mrtr` features.
///
/// @pre As `mcp_server_handle`; `rt` must be NULL or point to `mcp_roundtrip_t`
/// storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_roundtrip_resume(
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    rt: *mut mcp_roundtrip_t,
    out: *mut u8,
    out_cap: usize,
    info: *mut mcp_response_info_t,
) -> c_int {
    require_feature!("legacy");
    require_feature!("mrtr");
    // SAFETY: see state().
    if unsafe { state(rt) }.is_none() {
        return -MCP_EINVAL;
    }
    // SAFETY: forwarded caller promises.
    unsafe { exchange(server, ctx, Run::Resume(rt), out, out_cap, info) }
}

/// Ends the waiting call (the client went away, or did not answer in time):
/// writes its JSON-RPC error `code` (e.g. -32603, or -32001 for a timeout)
/// with `message` (NUL-terminated, or NULL for "Cancelled") to the call's id
/// into `out`, if `out` is not NULL; the storage is free again.
///
/// @return The error's length; 0 when nothing waited or `out` is NULL.
/// @retval -MCP_ENOBUFS `out` is not NULL and `out_cap` is below
///         `MCP_MIN_RESPONSE_CAP` (the call is still ended).
/// @retval -MCP_EINVAL `rt` is NULL or not initialised.
/// @retval -MCP_ENOTSUP Built without the `legacy` and `mrtr` features.
///
/// @pre `rt` must be NULL or point to `mcp_roundtrip_t` storage; `message` NULL or
/// NUL-terminated; `out` NULL or writable for `out_cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_roundtrip_cancel(
    rt: *mut mcp_roundtrip_t,
    code: i32,
    message: *const c_char,
    out: *mut u8,
    out_cap: usize,
) -> c_int {
    require_feature!("legacy");
    require_feature!("mrtr");
    // SAFETY: see state().
    let Some((s, buf, _)) = (unsafe { state(rt) }) else {
        return -MCP_EINVAL;
    };
    let text = if message.is_null() {
        "Cancelled"
    } else {
        // SAFETY: the caller promises a NUL-terminated string.
        unsafe { CStr::from_ptr(message) }
            .to_str()
            .unwrap_or("Cancelled")
    };
    if out.is_null() {
        s.cancel(buf, None, code, text);
        return 0;
    }
    if out_cap < MCP_MIN_RESPONSE_CAP {
        s.cancel(buf, None, code, text);
        return -MCP_ENOBUFS;
    }
    // SAFETY: the caller promises `out_cap` writable bytes.
    let o = unsafe { core::slice::from_raw_parts_mut(out, out_cap.min(c_int::MAX as usize)) };
    s.cancel(buf, Some(o), code, text) as c_int
}
