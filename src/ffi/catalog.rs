//! The C ABI of resources, prompts, completion, live lists and listen streams.

use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use super::{c_text, call_ref, out_buf, register_errno, result_mut, slot, slot_mut, text_n};
use crate::catalog::{Body, Prompt, Resource};
use crate::limits::*;
use crate::protocol::listen::Listener;
use crate::registry::{Handler, mcp_call_t, mcp_result_t, mcp_tool_fn};

use super::types::{mcp_listener_t, mcp_server_t};

/// What lives inside `mcp_listener_t`.
#[repr(C)]
pub(crate) struct ListenerSlot {
    magic: u32,
    attached: AtomicBool,
    next: AtomicPtr<ListenerSlot>,
    pub(crate) core: Listener,
}

const LISTENER_MAGIC: u32 = 0x4D43_4C53;

const _: () =
    assert!(core::mem::size_of::<ListenerSlot>() <= core::mem::size_of::<mcp_listener_t>());
const _: () =
    assert!(core::mem::align_of::<ListenerSlot>() <= core::mem::align_of::<mcp_listener_t>());

/// Prepares the caller's listener storage for one exchange: `None` when it is
/// NULL or already holds an open stream (which must never be overwritten).
pub(crate) unsafe fn listener_for_exchange<'a>(l: *mut mcp_listener_t) -> Option<&'a mut Listener> {
    if l.is_null() {
        return None;
    }
    let p = l.cast::<ListenerSlot>();
    // SAFETY: the caller's storage is large and aligned enough for a
    // ListenerSlot (checked above); the magic and the attached flag are read
    // through raw pointers before any reference is formed.
    unsafe {
        if core::ptr::addr_of!((*p).magic).read() == LISTENER_MAGIC
            && (*core::ptr::addr_of!((*p).attached)).load(Ordering::Acquire)
        {
            return None;
        }
        // Filled in place, not built on the stack and copied (a Listener is
        // several hundred bytes): every field of a fresh slot is zero but
        // the magic (`attached` false, `next` null, `Listener::new()`, whose
        // `emit` is `None`, the null function pointer).
        p.write_bytes(0, 1);
        core::ptr::addr_of_mut!((*p).magic).write(LISTENER_MAGIC);
        Some(&mut (*p).core)
    }
}

/// Links a listener that just acknowledged a stream into the server's list.
pub(crate) unsafe fn attach(head: &AtomicPtr<ListenerSlot>, l: *mut mcp_listener_t) {
    let p = l.cast::<ListenerSlot>();
    // SAFETY: `listener_for_exchange` initialised this slot during the same
    // exchange; the transport serves listen requests from one thread.
    unsafe {
        (*p).next
            .store(head.load(Ordering::Acquire), Ordering::Release);
        (*p).attached.store(true, Ordering::Release);
    }
    head.store(p, Ordering::Release);
}

/// Sends `make`'s message to every attached listener it produces one for;
/// returns how many were delivered.
#[inline(always)] // one body per caller, as when each form had its own
unsafe fn deliver(
    server: *const mcp_server_t,
    mut make: impl FnMut(&Listener, &mut [u8]) -> Option<usize>,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word.
    let Some(s) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    let mut buf = [0u8; MCP_MAX_NOTIFICATION + MCP_MAX_URI_LEN];
    let mut sent = 0;
    let mut p = s.listeners.load(Ordering::Acquire);
    while !p.is_null() {
        // SAFETY: only attached, initialised slots are linked; the transport
        // unlinks a slot (mcp_server_listen_end) before reusing its storage.
        let l = unsafe { &*p };
        if let (Some(n), Some(emit)) = (make(&l.core, &mut buf), l.core.emit) {
            if emit(l.core.transport_context, buf.as_ptr(), n) >= 0 {
                sent += 1;
            }
        }
        p = l.next.load(Ordering::Acquire);
    }
    sent
}

/// Tells every open listen stream that asked for it that a list changed.
///
/// @param server An initialised server.
/// @param kinds  `MCP_LIST_TOOLS`, `MCP_LIST_PROMPTS` and/or `MCP_LIST_RESOURCES`.
/// @return The number of notifications delivered (emit returned >= 0).
/// @retval -MCP_EINVAL Uninitialised server.
///
/// Registration and `mcp_server_enable` call this themselves. Safe to call
/// from a callback; not concurrently with `mcp_server_listen_end`.
///
/// @pre `server` must have been initialised with `mcp_server_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_notify_list_changed(
    server: *mut mcp_server_t,
    kinds: u32,
) -> c_int {
    require_feature!("catalog");
    let mut total = 0;
    for kind in [MCP_LIST_TOOLS, MCP_LIST_PROMPTS, MCP_LIST_RESOURCES] {
        if kinds & kind != 0 {
            // SAFETY: forwarded; the caller's promise holds.
            let n = unsafe { deliver(server, |l, out| l.list_changed(kind, out)) };
            if n < 0 {
                return n;
            }
            total += n;
        }
    }
    total
}

/// Tells the listen streams subscribed to `uri` that the resource changed
/// (`notifications/resources/updated`). `mcp_server_resource_updated_n` takes
/// a URI that is not NUL-terminated.
///
/// @return The number of notifications delivered.
/// @retval -MCP_EINVAL NULL pointer or uninitialised server.
/// @retval -MCP_EILSEQ `uri` is not valid UTF-8.
///
/// @pre `server` must have been initialised; `uri` must be NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_resource_updated(
    server: *mut mcp_server_t,
    uri: *const c_char,
) -> c_int {
    // SAFETY: the caller promises a NUL-terminated string; the rest is forwarded.
    unsafe { resource_updated(server, c_text(uri).and_then(|u| u.ok_or(-MCP_EINVAL))) }
}

/// `mcp_server_resource_updated` for a URI of `len` bytes, not NUL-terminated.
///
/// @return As `mcp_server_resource_updated`.
///
/// @pre `server` must have been initialised; `uri` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_resource_updated_n(
    server: *mut mcp_server_t,
    uri: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: the caller promises `len` readable bytes; the rest is forwarded.
    unsafe { resource_updated(server, text_n(uri, len)) }
}

/// `mcp_server_resource_updated` and its `_n` form once the URI is read.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn resource_updated(server: *mut mcp_server_t, uri: Result<&str, c_int>) -> c_int {
    require_feature!("catalog");
    let uri = match uri {
        Ok(u) => u,
        Err(e) => return e,
    };
    // SAFETY: forwarded; the caller's promise holds.
    unsafe { deliver(server, |l, out| l.updated(uri, out)) }
}

/// Ends a listen stream: detaches the listener from the server and, when
/// `response` is given, writes the JSON-RPC response that closes the stream
/// gracefully (`{"jsonrpc":"2.0","id":<listen id>,"result":{...}}`). Call it
/// with `response` NULL when the client went away (nothing is to be sent).
///
/// @return The response length; 0 when `response` is NULL or the listener
///         holds no open stream.
/// @retval -MCP_EINVAL NULL listener or uninitialised server.
/// @retval -MCP_ENOBUFS The response does not fit (the stream is ended anyway).
///
/// @pre `server` initialised; `listener` storage passed to `mcp_server_handle`;
/// `response` writable for `cap` bytes or NULL. Not concurrently with any
/// other call on the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_listen_end(
    server: *mut mcp_server_t,
    listener: *mut mcp_listener_t,
    response: *mut c_char,
    cap: usize,
) -> c_int {
    require_feature!("catalog");
    // SAFETY: `slot` checks NULL and the magic word.
    let Some(s) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    if listener.is_null() {
        return -MCP_EINVAL;
    }
    let target = listener.cast::<ListenerSlot>();
    // SAFETY: the storage is at least a ListenerSlot; magic first, raw reads.
    let open = unsafe {
        core::ptr::addr_of!((*target).magic).read() == LISTENER_MAGIC
            && (*core::ptr::addr_of!((*target).attached)).load(Ordering::Acquire)
    };
    if !open {
        return 0;
    }
    // Unlink: the head, or the `next` of the slot before it.
    let mut link: &AtomicPtr<ListenerSlot> = &s.listeners;
    loop {
        let p = link.load(Ordering::Acquire);
        if p.is_null() {
            break;
        }
        // SAFETY: linked slots are attached and initialised.
        let l = unsafe { &*p };
        if p == target {
            link.store(l.next.load(Ordering::Acquire), Ordering::Release);
            break;
        }
        link = &l.next;
    }
    // SAFETY: checked to be an attached slot above.
    let l = unsafe { &*target };
    l.attached.store(false, Ordering::Release);
    // SAFETY: the caller promises `cap` writable bytes, or NULL.
    match unsafe { out_buf(response, cap) } {
        None => 0,
        Some(out) => l.core.close(out).map_or(-MCP_ENOBUFS, |n| n as c_int),
    }
}

/// True when `listener` holds a stream attached to a server.
///
/// @pre `listener` must be NULL or point to `mcp_listener_t` storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_listener_active(listener: *const mcp_listener_t) -> bool {
    if !cfg!(feature = "catalog") {
        return false;
    }
    if listener.is_null() {
        return false;
    }
    let p = listener.cast::<ListenerSlot>();
    // SAFETY: raw reads of caller storage, magic first.
    unsafe {
        core::ptr::addr_of!((*p).magic).read() == LISTENER_MAGIC
            && (*core::ptr::addr_of!((*p).attached)).load(Ordering::Acquire)
    }
}

/// Registers a resource or a resource template (a `uri` containing `{`).
/// Resources are listed in registration order; a request's URI is matched
/// against plain resources first, then templates.
///
/// @param fn   Writes the contents when read (`mcp_result_resource_text` /
///             `_blob`; return -MCP_ENOENT for "no such resource"); required
///             for a template, NULL for fixed `text` or `blob` contents.
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer, uninitialised server, empty URI or name,
///         a URI over `MCP_MAX_URI_LEN`, a malformed template, or no contents.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EEXIST The URI is registered.
/// @retval -MCP_ENOSPC `MCP_MAX_RESOURCES` are registered.
///
/// @pre `server` initialised; `resource` valid with strings (and blob) that
/// outlive the server. Not while a `mcp_server_handle` call is running.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_resource(
    server: *mut mcp_server_t,
    resource: *const mcp_resource_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("catalog");
    if resource.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises a valid definition.
    let r = unsafe { &*resource };
    // Every text is read first (any invalid UTF-8 is -MCP_EILSEQ), then the
    // required ones are checked (-MCP_EINVAL): one early return each.
    // SAFETY: NUL-terminated strings or NULL, as promised.
    let texts = || unsafe {
        Ok((
            c_text(r.uri)?,
            c_text(r.name)?,
            c_text(r.title)?,
            c_text(r.description)?,
            c_text(r.mime_type)?,
            c_text(r.text)?,
        ))
    };
    let (uri, name, title, description, mime_type, text) = match texts() {
        Ok((Some(u), Some(n), title, d, m, t)) => (u, n, title, d, m, t),
        Ok(_) => return -MCP_EINVAL,
        Err(e) => return e,
    };
    let body = match (r#fn, text, r.blob.is_null()) {
        (Some(_), None, true) => Body::Handler(Handler::C(r#fn, user)),
        (None, Some(t), true) => Body::Text(t),
        // SAFETY: the caller promises `blob_len` readable bytes at `blob`.
        (None, None, false) => {
            Body::Blob(unsafe { core::slice::from_raw_parts(r.blob, r.blob_len) })
        }
        _ => return -MCP_EINVAL,
    };
    // SAFETY: `slot_mut` checks NULL and the magic word; no handle call runs.
    let Some(s) = (unsafe { slot_mut(server) }) else {
        return -MCP_EINVAL;
    };
    let entry = Resource {
        uri,
        name,
        title,
        description,
        mime_type,
        body,
    };
    match s.server.add_resource(entry) {
        Ok(()) => {
            // SAFETY: the server is initialised.
            unsafe { mcp_server_notify_list_changed(server, MCP_LIST_RESOURCES) };
            0
        }
        Err(e) => register_errno(e),
    }
}

/// Registers a prompt; `fn` writes its messages with `mcp_result_text`,
/// `mcp_result_image`, `mcp_result_resource_text` … (each block is one
/// message; `mcp_result_role` sets the role) and reads its arguments with
/// `mcp_arg_string`. Declared required arguments are checked before it runs.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer or callback, bad name, malformed `arguments`.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EEXIST The name is registered.
/// @retval -MCP_ENOSPC `MCP_MAX_PROMPTS` are registered.
///
/// @pre As `mcp_server_add_resource`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_prompt(
    server: *mut mcp_server_t,
    prompt: *const mcp_prompt_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("catalog");
    if prompt.is_null() || r#fn.is_none() {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises a valid definition.
    let p = unsafe { &*prompt };
    // As in mcp_server_add_resource: every text first, then the name.
    // SAFETY: NUL-terminated strings or NULL, as promised.
    let texts = || unsafe {
        Ok((
            c_text(p.name)?,
            c_text(p.title)?,
            c_text(p.description)?,
            c_text(p.arguments)?,
        ))
    };
    let (name, title, description, arguments) = match texts() {
        Ok((Some(n), title, d, a)) => (n, title, d, a),
        Ok(_) => return -MCP_EINVAL,
        Err(e) => return e,
    };
    // SAFETY: `slot_mut` checks NULL and the magic word; no handle call runs.
    let Some(s) = (unsafe { slot_mut(server) }) else {
        return -MCP_EINVAL;
    };
    let entry = Prompt {
        title,
        description,
        arguments,
        ..Prompt::new(name, Handler::C(r#fn, user))
    };
    match s.server.add_prompt(entry) {
        Ok(()) => {
            // SAFETY: the server is initialised.
            unsafe { mcp_server_notify_list_changed(server, MCP_LIST_PROMPTS) };
            0
        }
        Err(e) => register_errno(e),
    }
}

/// Sets the callback that answers `completion/complete` (and advertises the
/// `completions` capability). It reads the request with `mcp_arg_*` paths
/// `ref.type`, `ref.name` / `ref.uri`, `argument.name`, `argument.value` and
/// `context.arguments.<name>`, and offers values with `mcp_result_completion`.
///
/// @retval 0 Success (NULL `fn` removes the callback).
/// @retval -MCP_EINVAL Uninitialised server.
///
/// @pre `server` initialised; not while a `mcp_server_handle` call is running.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_completion(
    server: *mut mcp_server_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("catalog");
    // SAFETY: `slot_mut` checks NULL and the magic word.
    let Some(s) = (unsafe { slot_mut(server) }) else {
        return -MCP_EINVAL;
    };
    s.server.catalog.completion = r#fn.map(|_| Handler::C(r#fn, user));
    0
}

/// Takes a registered tool, prompt or resource out of its list (disabled:
/// not listed, not callable, as if it did not exist) or puts it back, and
/// notifies open listen streams when that changed the list. The entry keeps
/// its slot, so enabling it again needs no registration. `mcp_server_enable_n`
/// takes a name that is not NUL-terminated.
///
/// @param kind `MCP_LIST_TOOLS`, `MCP_LIST_PROMPTS` or `MCP_LIST_RESOURCES`.
/// @param name The tool or prompt name, or the resource URI or template.
/// @return 1 when the state changed, 0 when it already was so.
/// @retval -MCP_EINVAL NULL pointer, uninitialised server or unknown kind.
/// @retval -MCP_ENOENT No such entry.
///
/// Safe to call from a callback (the flag is one atomic store).
///
/// @pre `server` initialised; `name` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_enable(
    server: *mut mcp_server_t,
    kind: u32,
    name: *const c_char,
    enabled: bool,
) -> c_int {
    // SAFETY: the caller promises a NUL-terminated string; the rest is forwarded.
    unsafe { enable(server, kind, || c_text(name).ok().flatten(), enabled) }
}

/// `mcp_server_enable` for a name of `len` bytes, not NUL-terminated.
///
/// @return As `mcp_server_enable`.
///
/// @pre `server` initialised; `name` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_enable_n(
    server: *mut mcp_server_t,
    kind: u32,
    name: *const c_char,
    len: usize,
    enabled: bool,
) -> c_int {
    // SAFETY: the caller promises `len` readable bytes; the rest is forwarded.
    unsafe { enable(server, kind, || text_n(name, len).ok(), enabled) }
}

/// `mcp_server_enable` and `mcp_server_enable_n`; `name` reads the name
/// (`None`: NULL or not UTF-8) once the server is checked.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn enable<'a>(
    server: *mut mcp_server_t,
    kind: u32,
    name: impl FnOnce() -> Option<&'a str>,
    enabled: bool,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word.
    let Some(s) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    let Some(name) = name() else {
        return -MCP_EINVAL;
    };
    if !matches!(kind, MCP_LIST_TOOLS | MCP_LIST_PROMPTS | MCP_LIST_RESOURCES) {
        return -MCP_EINVAL;
    }
    match s.server.set_enabled(kind, name, enabled) {
        None => -MCP_ENOENT,
        Some(false) => 0,
        Some(true) => {
            // SAFETY: the server is initialised.
            unsafe { mcp_server_notify_list_changed(server, kind) };
            1
        }
    }
}

/// The URI a resource callback is reading (JSON-unescaped, not
/// NUL-terminated), with its length in `*len`; NULL outside a resource read.
///
/// @pre `call` as handed to the callback; `len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_uri(call: *const mcp_call_t, len: *mut usize) -> *const c_char {
    // SAFETY: only the dispatcher hands out call pointers.
    let Some(m) = (unsafe { call_ref(call) }).and_then(|c| c.uri) else {
        return core::ptr::null();
    };
    // SAFETY: len is NULL or writable.
    if let Some(l) = unsafe { len.as_mut() } {
        *l = m.uri.len();
    }
    m.uri.as_ptr().cast()
}

/// Copies the percent-decoded value of template variable `name` of the URI
/// being read, NUL-terminated, into `buf`.
///
/// @return The value's length (without the NUL).
/// @retval -MCP_ENOENT No such variable (or not a template read).
/// @retval -MCP_ENOBUFS `cap` is too small (nothing useful is written).
/// @retval -MCP_EINVAL NULL pointer or `cap` 0.
///
/// @pre `call` as handed to the callback; `name` NUL-terminated; `buf` writable for `cap`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_uri_var(
    call: *const mcp_call_t,
    name: *const c_char,
    buf: *mut c_char,
    cap: usize,
) -> c_int {
    require_feature!("catalog");
    // SAFETY: only the dispatcher hands out call pointers.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: NUL-terminated as promised.
    let Ok(Some(name)) = (unsafe { c_text(name) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: writable for `cap` as promised.
    let Some(out) = (unsafe { out_buf(buf, cap) }) else {
        return -MCP_EINVAL;
    };
    let Some(m) = c.uri else {
        return -MCP_ENOENT;
    };
    let room = out.len() - 1;
    match m.var(name, out.get_mut(..room).unwrap_or(&mut [])) {
        Ok(n) => {
            if let Some(nul) = out.get_mut(n) {
                *nul = 0;
            }
            n as c_int
        }
        Err(crate::call::ArgError::Missing) => -MCP_ENOENT,
        Err(_) => {
            if let Some(first) = out.first_mut() {
                *first = 0;
            }
            -MCP_ENOBUFS
        }
    }
}

/// Sets the role (`MCP_ROLE_USER` or `MCP_ROLE_ASSISTANT`) of the prompt
/// messages written after it.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not a prompt callback.
/// @retval -MCP_EINVAL NULL result or unknown role.
///
/// @pre `result` as handed to the callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_role(result: *mut mcp_result_t, role: c_int) -> c_int {
    require_feature!("catalog");
    // SAFETY: only the dispatcher hands out result pointers.
    let Some(r) = (unsafe { result_mut(result) }) else {
        return -MCP_EINVAL;
    };
    if role != MCP_ROLE_USER && role != MCP_ROLE_ASSISTANT {
        return -MCP_EINVAL;
    }
    match r.set_role(role == MCP_ROLE_ASSISTANT) {
        Ok(()) => 0,
        Err(_) => -MCP_EPERM,
    }
}

/// Offers one completion value (in the completion callback). The first
/// `MCP_MAX_COMPLETIONS` are sent; more are counted in `total` with
/// `hasMore: true`. `mcp_result_completion_n` takes a value that is not
/// NUL-terminated.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not a completion callback.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
/// @retval -MCP_EILSEQ `value` is not valid UTF-8.
///
/// @pre `result` as handed to the callback; `value` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_completion(
    result: *mut mcp_result_t,
    value: *const c_char,
) -> c_int {
    // SAFETY: NUL-terminated as promised; the rest is forwarded.
    unsafe { completion(result, || c_text(value).and_then(|v| v.ok_or(-MCP_EINVAL))) }
}

/// `mcp_result_completion` for a value of `len` bytes, not NUL-terminated.
///
/// @return As `mcp_result_completion`.
///
/// @pre `result` as handed to the callback; `value` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_completion_n(
    result: *mut mcp_result_t,
    value: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: `len` readable bytes as promised; the rest is forwarded.
    unsafe { completion(result, || text_n(value, len)) }
}

/// `mcp_result_completion` and its `_n` form; `value` reads the value once
/// the result is checked.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn completion<'a>(
    result: *mut mcp_result_t,
    value: impl FnOnce() -> Result<&'a str, c_int>,
) -> c_int {
    require_feature!("catalog");
    // SAFETY: only the dispatcher hands out result pointers.
    let Some(r) = (unsafe { result_mut(result) }) else {
        return -MCP_EINVAL;
    };
    let v = match value() {
        Ok(v) => v,
        Err(e) => return e,
    };
    match r.completion_value(v) {
        Ok(()) => 0,
        Err(crate::call::ResultError::Overflow) => -MCP_ENOBUFS,
        Err(_) => -MCP_EPERM,
    }
}

/// A resource (or, when `uri` contains `{`, an RFC 6570 level-1 resource
/// template) for `mcp_server_add_resource`. The strings must outlive the server.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_resource_t {
    /// The URI (at most `MCP_MAX_URI_LEN` bytes), or a template such as
    /// `greenhouse://zone/{zone}`.
    pub uri: *const c_char,
    /// Programmatic name (required).
    pub name: *const c_char,
    /// Display title, or NULL.
    pub title: *const c_char,
    /// What the resource holds, or NULL.
    pub description: *const c_char,
    /// MIME type of its contents, or NULL.
    pub mime_type: *const c_char,
    /// Fixed text contents (NUL-terminated), or NULL.
    pub text: *const c_char,
    /// Fixed binary contents (sent base64-encoded), or NULL.
    pub blob: *const u8,
    /// Length of `blob` in bytes.
    pub blob_len: usize,
}

/// A prompt for `mcp_server_add_prompt`. The strings must outlive the server.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_prompt_t {
    /// Unique name: 1 to `MCP_MAX_TOOL_NAME_LEN` characters of `[A-Za-z0-9_.-]`.
    pub name: *const c_char,
    /// Display title, or NULL.
    pub title: *const c_char,
    /// What the prompt is for, or NULL.
    pub description: *const c_char,
    /// Its arguments as a JSON array of PromptArgument objects, e.g.
    /// `[{"name":"zone","description":"Greenhouse zone","required":true}]`
    /// (at most `MCP_MAX_PROMPT_ARGS` required), or NULL for none.
    pub arguments: *const c_char,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot prepared in place over dirty storage holds exactly a fresh
    /// `Listener::new()`, no stream and the magic.
    #[test]
    fn listener_prepared_in_place_is_fresh() {
        let mut storage = Box::new(mcp_listener_t {
            opaque: [u64::MAX; MCP_LISTENER_WORDS],
        });
        let p: *mut mcp_listener_t = &mut *storage;
        // SAFETY: valid storage; the first exchange of this slot.
        let l = unsafe { listener_for_exchange(p) }.unwrap();
        let fresh = Listener::new();
        assert_eq!(l.id(), fresh.id());
        assert_eq!(l.filter, fresh.filter);
        assert_eq!(l.uris().count(), 0);
        assert!(l.emit.is_none() && l.transport_context.is_null());
        let mut out = [0u8; 256];
        assert_eq!(
            l.list_changed(MCP_LIST_TOOLS, &mut out),
            fresh.list_changed(MCP_LIST_TOOLS, &mut out)
        );
        let slot = p.cast::<ListenerSlot>();
        // SAFETY: initialised just above.
        unsafe {
            assert_eq!((*slot).magic, LISTENER_MAGIC);
            assert!(!(*slot).attached.load(Ordering::Relaxed));
            assert!((*slot).next.load(Ordering::Relaxed).is_null());
        }
    }
}
