//! The C ABI of the stream framer ([`crate::framer`]): newline-delimited
//! JSON-RPC over a byte stream (UART, USB-CDC, DMA), in caller-owned storage.
//!
//! Owns: checking the framer handle and pointers, and wiring frames to
//! `mcp_server_handle`'s core. Must not: frame bytes itself.

use core::ffi::{c_int, c_void};

use super::{mcp_server_handle, slot};
use crate::framer::{Frame, Framer, oversize_response};
use crate::limits::*;

use super::types::{mcp_emit_fn, mcp_request_ctx_t, mcp_response_info_t, mcp_server_t};

/// Caller-owned storage for one stream framer, e.g. `static mcp_framer_t rx;`
/// (`MCP_FRAMER_WORDS` words: 32 bytes on a 32-bit MCU). Its contents are
/// private to the library. The receive buffer is separate: you pass it to
/// `mcp_framer_init`.
///
/// A framer turns a byte stream into messages: one JSON-RPC message per line,
/// `\n`-terminated (`\r\n` accepted; empty lines skipped). A line longer than
/// the receive buffer is dropped up to its newline and reported once, when the
/// newline arrives (`MCP_FRAME_OVERSIZE`; `mcp_framer_feed` and
/// `mcp_framer_poll` answer it with -32600 and the request's id when the
/// bytes that filled the buffer held it, else id null), and framing resumes
/// after it. The id is kept inside the receive buffer, not beside it. With a buffer of `cap` bytes the longest accepted message is
/// `cap - 1` bytes plus `\n`.
///
/// Two ways to receive:
/// - copying, any chunk size: `mcp_framer_feed` (e.g. from a UART RX loop);
/// - zero-copy: `mcp_framer_space` hands out the free tail of the buffer (for
///   a DMA transfer or a driver's read), `mcp_framer_commit` adds the bytes
///   that arrived, then `mcp_framer_poll` (or `mcp_framer_next`) takes the
///   complete messages.
///
/// A framer is not locked: use it from one context at a time. An interrupt
/// handler may call only `mcp_framer_space` and `mcp_framer_commit`, while
/// the thread that polls masks that interrupt around its own framer calls
/// (the Threading rule at the top of this header); or let the ISR only
/// signal the thread.
#[repr(C)]
pub struct mcp_framer_t {
    /// Opaque storage; pointer-aligned through its element type.
    pub opaque: [usize; MCP_FRAMER_WORDS],
}

/// What lives inside `mcp_framer_t`.
#[repr(C)]
struct FramerSlot {
    magic: usize,
    buf: *mut u8,
    cap: usize,
    state: Framer,
}

const FRAMER_MAGIC: usize = 0x4D43_5046;

const _: () = assert!(core::mem::size_of::<FramerSlot>() <= core::mem::size_of::<mcp_framer_t>());
const _: () = assert!(core::mem::align_of::<FramerSlot>() <= core::mem::align_of::<mcp_framer_t>());

/// The framer behind `f`, with its receive buffer, or None for NULL or an
/// uninitialised handle.
unsafe fn framer<'a>(f: *mut mcp_framer_t) -> Option<(&'a mut Framer, &'a mut [u8])> {
    if f.is_null() {
        return None;
    }
    let p = f.cast::<FramerSlot>();
    // SAFETY: `f` points to caller storage of at least MCP_FRAMER_WORDS words
    // (checked above to hold a FramerSlot); the magic word is read through a
    // raw pointer first, so a zeroed block is never taken for a framer. The
    // buffer was checked non-NULL by mcp_framer_init and the caller promises
    // it stays valid and is used by nothing else while the framer lives.
    unsafe {
        if core::ptr::addr_of!((*p).magic).read() != FRAMER_MAGIC {
            return None;
        }
        let s = &mut *p;
        let buf = core::slice::from_raw_parts_mut(s.buf, s.cap);
        Some((&mut s.state, buf))
    }
}

/// Initialises a framer over a receive buffer the caller owns.
///
/// @param f   Storage for the framer, e.g. `static mcp_framer_t rx;`.
/// @param buf The receive buffer, e.g. `static uint8_t rx_buf[1024];`; it
///            must stay valid, and be written only through the framer, for
///            as long as the framer is used.
/// @param cap Its size in bytes: the longest message accepted is `cap - 1`
///            bytes plus its `\n`.
/// @retval 0 Success; nothing is buffered.
/// @retval -MCP_EINVAL `f` or `buf` is NULL, or `cap` is below 2.
///
/// @pre `f` must point to writable `mcp_framer_t` storage and `buf` to `cap`
/// writable bytes that outlive every use of the framer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_init(f: *mut mcp_framer_t, buf: *mut u8, cap: usize) -> c_int {
    require_feature!("framer");
    if f.is_null() || buf.is_null() || cap < 2 {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises writable framer storage,
    // large and aligned enough for a FramerSlot (asserted at compile time).
    unsafe {
        f.cast::<FramerSlot>().write(FramerSlot {
            magic: FRAMER_MAGIC,
            buf,
            cap,
            state: Framer::new(),
        });
    }
    0
}

/// Forgets every buffered byte and any line being dropped, e.g. after the
/// link was reset or the peer reconnected.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL `f` is NULL or not initialised.
///
/// @pre `f` must be NULL or point to `mcp_framer_t` storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_reset(f: *mut mcp_framer_t) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer().
    match unsafe { framer(f) } {
        Some((st, _)) => {
            st.reset();
            0
        }
        None => -MCP_EINVAL,
    }
}

/// Zero-copy receive, step 1: the free tail of the receive buffer. Write up
/// to the returned number of bytes at `*space` (a DMA transfer, a driver's
/// read), then call `mcp_framer_commit` with the count.
///
/// Moves an incomplete message to the front of the buffer first, so the free
/// space is one contiguous block; a pointer from `mcp_framer_next` is invalid
/// afterwards. A partial line that fills the whole buffer is dropped here
/// (and reported later as `MCP_FRAME_OVERSIZE`), so the stream never wedges.
///
/// @param f     An initialised framer.
/// @param space Receives the start of the free tail.
/// @return The free bytes at `*space` (at most INT_MAX). 0 only when the
///         buffer is full of complete messages: take them with
///         `mcp_framer_poll` or `mcp_framer_next` first.
/// @retval -MCP_EINVAL `f` or `space` is NULL, or `f` is not initialised.
///
/// @pre `f` must be NULL or point to `mcp_framer_t` storage; `space` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_space(f: *mut mcp_framer_t, space: *mut *mut u8) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer().
    let Some((st, buf)) = (unsafe { framer(f) }) else {
        return -MCP_EINVAL;
    };
    if space.is_null() {
        return -MCP_EINVAL;
    }
    let tail = st.space(buf);
    // SAFETY: checked non-NULL; the caller promises it is writable.
    unsafe { space.write(tail.as_mut_ptr()) };
    tail.len().min(c_int::MAX as usize) as c_int
}

/// Zero-copy receive, step 2: adds `n` bytes written at the pointer the last
/// `mcp_framer_space` returned. Then take the complete messages with
/// `mcp_framer_poll` (or `mcp_framer_next`) until it reports none.
///
/// @param f An initialised framer.
/// @param n Bytes written; 0 is allowed.
/// @retval 0 Success.
/// @retval -MCP_ERANGE `n` is larger than the space `mcp_framer_space` returned;
///         nothing was added.
/// @retval -MCP_EINVAL `f` is NULL or not initialised.
///
/// @pre `f` must be NULL or point to `mcp_framer_t` storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_commit(f: *mut mcp_framer_t, n: usize) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer().
    let Some((st, buf)) = (unsafe { framer(f) }) else {
        return -MCP_EINVAL;
    };
    match st.commit(buf.len(), n) {
        Ok(()) => 0,
        Err(_) => -MCP_ERANGE,
    }
}

/// Takes the next complete message from the receive buffer, without handling
/// it (for a caller that routes messages itself; `mcp_framer_poll` also
/// answers them).
///
/// @param f    An initialised framer.
/// @param line Receives the message's first byte (for `MCP_FRAME_LINE`); it
///             stays valid until the next `mcp_framer_space`,
///             `mcp_framer_feed` or `mcp_framer_reset` on this framer.
/// @param len  Receives its length, without the line ending (never 0).
/// @retval MCP_FRAME_LINE A message was taken.
/// @retval MCP_FRAME_OVERSIZE A line longer than the buffer was dropped;
///         answer with `mcp_framer_oversize_response(*line, *len, ...)`.
///         `*line` is the dropped line's id (raw JSON: a string with its
///         quotes, or a number; valid like a line) when the first bytes of
///         the line held it, else NULL with `*len` 0.
/// @retval 0 No complete message is buffered yet.
/// @retval -MCP_EINVAL A NULL pointer, or `f` is not initialised.
///
/// @pre `f` must be NULL or point to `mcp_framer_t` storage; `line` and `len` NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_next(
    f: *mut mcp_framer_t,
    line: *mut *const u8,
    len: *mut usize,
) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer().
    let Some((st, buf)) = (unsafe { framer(f) }) else {
        return -MCP_EINVAL;
    };
    if line.is_null() || len.is_null() {
        return -MCP_EINVAL;
    }
    let (p, n, rc) = match st.next_frame(buf) {
        Some(Frame::Line(l)) => (l.as_ptr(), l.len(), MCP_FRAME_LINE),
        Some(Frame::Oversize(Some(id))) => (id.as_ptr(), id.len(), MCP_FRAME_OVERSIZE),
        Some(Frame::Oversize(None)) => (core::ptr::null(), 0, MCP_FRAME_OVERSIZE),
        None => (core::ptr::null(), 0, 0),
    };
    // SAFETY: checked non-NULL; the caller promises they are writable.
    unsafe {
        line.write(p);
        len.write(n);
    }
    rc
}

/// Writes the answer to a dropped oversize line (`MCP_FRAME_OVERSIZE`): a
/// JSON-RPC error -32600 "Request exceeds the receive buffer" with the
/// line's id, without a line ending.
///
/// @param id     The id `mcp_framer_next` gave for the line, or NULL (and
///               `id_len` 0) for id null. An id that is not a JSON string or
///               number of at most `MCP_MAX_ID_LEN` bytes is answered as null.
/// @param id_len Its length in bytes.
/// @param out    Where to write it; must not overlap `id`.
/// @param cap    At least `MCP_MIN_RESPONSE_CAP` bytes.
/// @return Its length in bytes.
/// @retval -MCP_ENOBUFS `cap` is below `MCP_MIN_RESPONSE_CAP`.
/// @retval -MCP_EINVAL `out` is NULL.
///
/// @pre `out` must be writable for `cap` bytes; `id` NULL or readable for
/// `id_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_oversize_response(
    id: *const u8,
    id_len: usize,
    out: *mut u8,
    cap: usize,
) -> c_int {
    require_feature!("framer");
    if out.is_null() {
        return -MCP_EINVAL;
    }
    if cap < MCP_MIN_RESPONSE_CAP {
        return -MCP_ENOBUFS;
    }
    // SAFETY: the caller promises `id_len` readable bytes at a non-NULL `id`.
    let id = (!id.is_null() && id_len > 0)
        .then(|| unsafe { core::slice::from_raw_parts(id, id_len.min(MCP_MAX_ID_LEN + 1)) });
    // SAFETY: the caller promises `cap` writable bytes (capped to what an int counts).
    let out = unsafe { core::slice::from_raw_parts_mut(out, cap.min(c_int::MAX as usize)) };
    oversize_response(id, out) as c_int
}

/// Answers one frame into `out` (at least `MCP_MIN_RESPONSE_CAP + 1` bytes,
/// checked by the callers) as a line: the response and `\n`. A message goes
/// through `mcp_server_handle` itself, so both paths see the same request
/// context. Returns the line's length (0: no response), or `-MCP_E*`.
unsafe fn answer(
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    frame: Frame<'_>,
    out: *mut u8,
    out_cap: usize,
    info: *mut mcp_response_info_t,
) -> c_int {
    let body_cap = out_cap.min(c_int::MAX as usize) - 1;
    let n = match frame {
        // SAFETY: forwarded caller promises; `line` is readable for its length.
        Frame::Line(line) => unsafe {
            mcp_server_handle(server, ctx, line.as_ptr(), line.len(), out, body_cap, info)
        },
        Frame::Oversize(id) => {
            // SAFETY: the caller promises `out_cap` writable bytes.
            let body = unsafe { core::slice::from_raw_parts_mut(out, body_cap) };
            // SAFETY: info is NULL or writable (caller's promise).
            if let Some(i) = unsafe { info.as_mut() } {
                *i = mcp_response_info_t {
                    rpc_error: MCP_RPC_INVALID_REQUEST,
                    http_status: 400,
                    flags: 0,
                };
            }
            oversize_response(id, body) as c_int
        }
    };
    if n <= 0 {
        return n;
    }
    // SAFETY: n <= body_cap < out_cap, so the newline is inside `out`.
    unsafe { out.add(n as usize).write(b'\n') };
    n + 1
}

/// Handles the next complete message in the receive buffer and writes its
/// response line into `out`: the response followed by `\n`, ready to send.
/// Call it until it returns `-MCP_EAGAIN` after every `mcp_framer_commit`.
///
/// @param f       An initialised framer.
/// @param server  An initialised server.
/// @param ctx     The request context for the message, or NULL.
/// @param out     The response buffer (not NUL-terminated); must not overlap
///                the receive buffer.
/// @param out_cap At least `MCP_MIN_RESPONSE_CAP + 1` bytes.
/// @param info    Receives the error code and HTTP status, or NULL.
/// @return The bytes to send, the `\n` included; 0 when the message needs no
///         response (a notification).
/// @retval -MCP_EAGAIN No complete message is buffered.
/// @retval -MCP_ENOBUFS `out_cap` is below `MCP_MIN_RESPONSE_CAP + 1`; no
///         message was taken.
/// @retval -MCP_EINVAL A NULL pointer, or `f` or `server` is not initialised.
///
/// @pre `f` and `server` must be NULL or point to their storage; `ctx` NULL or
/// valid for the call; `out` writable for `out_cap` bytes; `info` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_poll(
    f: *mut mcp_framer_t,
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    out: *mut u8,
    out_cap: usize,
    info: *mut mcp_response_info_t,
) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer() and slot().
    let (Some((st, buf)), Some(_)) = (unsafe { framer(f) }, unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    if out.is_null() {
        return -MCP_EINVAL;
    }
    if out_cap <= MCP_MIN_RESPONSE_CAP {
        return -MCP_ENOBUFS;
    }
    let Some(frame) = st.next_frame(buf) else {
        return -MCP_EAGAIN;
    };
    // SAFETY: forwarded caller promises; `out_cap` was checked above.
    unsafe { answer(server, ctx, frame, out, out_cap, info) }
}

/// Copies a received chunk of any size (1 byte from a UART interrupt, 64 from
/// a USB packet) into the receive buffer, handles every message it completes
/// in order, and sends each response line (the response followed by `\n`)
/// through `emit`.
///
/// @param f        An initialised framer.
/// @param server   An initialised server.
/// @param ctx      The request context for every message of the chunk, or NULL.
/// @param bytes    The chunk; may be NULL when `n` is 0. Must not point into
///                 the receive buffer.
/// @param n        Its length.
/// @param out      The response buffer; must not overlap the receive buffer.
/// @param out_cap  At least `MCP_MIN_RESPONSE_CAP + 1` bytes.
/// @param emit     Called once per response with (`transport_context`, the
///                 line, its length including the `\n`); the line is valid
///                 only during the call. Return 0, or a negative value to
///                 report a send failure.
/// @param transport_context Passed to `emit` unchanged.
/// @return The number of responses emitted (notifications have none).
/// @retval <0 The first negative value `emit` returned; every message of the
///         chunk was still handled.
/// @retval -MCP_ENOBUFS `out_cap` is below `MCP_MIN_RESPONSE_CAP + 1`; nothing
///         was consumed.
/// @retval -MCP_EINVAL A NULL pointer (`emit` included), or `f` or `server`
///         is not initialised; nothing was consumed.
///
/// @pre `f` and `server` must be NULL or point to their storage; `ctx` NULL or
/// valid for the call; `bytes` readable for `n` bytes; `out` writable for
/// `out_cap` bytes; neither inside the receive buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_framer_feed(
    f: *mut mcp_framer_t,
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    bytes: *const u8,
    n: usize,
    out: *mut u8,
    out_cap: usize,
    emit: mcp_emit_fn,
    transport_context: *mut c_void,
) -> c_int {
    require_feature!("framer");
    // SAFETY: see framer() and slot().
    let (Some((st, buf)), Some(_)) = (unsafe { framer(f) }, unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    let Some(emit) = emit else {
        return -MCP_EINVAL;
    };
    if out.is_null() || (bytes.is_null() && n != 0) {
        return -MCP_EINVAL;
    }
    if out_cap <= MCP_MIN_RESPONSE_CAP {
        return -MCP_ENOBUFS;
    }
    let input: &[u8] = if bytes.is_null() {
        &[]
    } else {
        // SAFETY: the caller promises `n` readable bytes outside the buffer.
        unsafe { core::slice::from_raw_parts(bytes, n) }
    };
    let mut emitted: c_int = 0;
    let mut first_err: c_int = 0;
    st.feed(buf, input, |frame| {
        // SAFETY: forwarded caller promises; `out_cap` was checked above.
        let len = unsafe { answer(server, ctx, frame, out, out_cap, core::ptr::null_mut()) };
        if len > 0 {
            emitted = emitted.saturating_add(1);
            let rc = emit(transport_context, out, len as usize);
            if rc < 0 && first_err == 0 {
                first_err = rc;
            }
        }
    });
    if first_err < 0 { first_err } else { emitted }
}
