//! The C ABI: the only module with `extern "C"` functions and `unsafe`.
//!
//! Owns: checking every pointer the caller hands in, turning C strings and
//! spans into the core's safe types, and mapping core errors to `-MCP_E*`.
//! Must not: contain protocol logic; each function converts and delegates.
//!
//! Where a C item goes: every exported item lands in the C header of the
//! file that defines it. `cbindgen/<group>.rs` lists the Rust files of
//! `include/emcp_<group>.h` (errors, limits, server, tools, call, result,
//! catalog, policy, store, roundtrip, framer, sizing; `emcp.h` includes them
//! in that order). A new function or type in an existing file needs nothing;
//! a new file with exported items needs one `#[path]` line in the index of
//! its group, and a type no function of its group reaches one `[export]
//! include` entry in `cbindgen/<group>.toml`. Return codes and flags go in
//! `src/abi/<group>.rs`, limits in `src/limits.rs`. `tests/header_drift.rs`
//! fails, naming the item, if one is in no header or in two
//! (cbindgen/README.md).
//!
//! Doc comments here are the C header's documentation: a function's
//! preconditions are an `@pre` paragraph for the C reader, not a Rust
//! `# Safety` heading (hence `missing_safety_doc` is allowed below).

#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

/// Makes the enclosing C function return `-MCP_ENOTSUP` when the library was
/// built without the Cargo feature `$f` (see docs/firmware.md, "Profiles").
/// The function stays in the library, so one header serves every profile and
/// code written for the full profile links and fails soft on a smaller one;
/// the rest of its body, and all it alone reaches, is dropped at link time.
macro_rules! require_feature {
    ($f:literal) => {
        if !cfg!(feature = $f) {
            return -crate::limits::MCP_ENOTSUP;
        }
    };
}

pub mod call;
pub mod catalog;
pub mod content;
pub mod framer;
pub mod input;
pub mod limit;
pub mod policy;
pub mod result;
pub mod roundtrip;
pub mod rpc;
pub mod server;
pub mod sizing;
pub mod store;
pub mod tools;
pub mod types;

use core::ffi::{CStr, c_char, c_int, c_void};

use crate::call::{
    ArgError, Call, HeaderParam, HeaderParams, RequestInfo, ResultError, ToolResult,
};
pub use crate::durable::mcp_store_t;
use crate::json::{ConvError, Kind, WriteError, Writer};
use crate::limits::*;
/// The length of the MAC an `mcp_mac_fn` writes.
pub use crate::mac::MCP_MAC_LEN;
pub use crate::policy::mcp_audit_t;
use crate::registry::{Handler, RegisterError, Tool, mcp_call_t, mcp_result_t, mcp_tool_fn};
use crate::schema::SchemaErrorKind;
use crate::server::{HandleError, Server, ServerInfo};
pub use crate::store::{
    mcp_store_append_fn, mcp_store_read_fn, mcp_store_restart_fn, mcp_store_sync_fn,
};
pub use call::*;
pub use catalog::{mcp_prompt_t, mcp_resource_t};
pub use content::mcp_annotations_t;
pub use framer::*;
pub use input::mcp_mac_fn;
pub use limit::mcp_build_limit;
pub use policy::mcp_dedup_init;
pub use policy::{
    mcp_audit_fn, mcp_clock_fn, mcp_critical_enter_fn, mcp_critical_exit_fn, mcp_policy_fn,
};
pub use result::*;
pub use server::*;
pub use sizing::{mcp_tool_usage_t, mcp_usage_pair_t, mcp_usage_t};
pub use tools::*;
pub use types::*;

/// What lives inside `mcp_server_t`.
#[repr(C)]
struct Slot {
    magic: u32,
    server: Server<'static>,
    /// Open listen streams, linked through the caller's `mcp_listener_t`s.
    listeners: core::sync::atomic::AtomicPtr<catalog::ListenerSlot>,
}

const MAGIC: u32 = 0x4D43_5031;

/// What lives inside `mcp_dedup_t`.
#[repr(C)]
pub(crate) struct DedupSlot {
    pub(crate) magic: u32,
    pub(crate) table: crate::dedup::Dedup,
    /// The firmware's store (`mcp_dedup_set_store`), or NULL. After the
    /// table, which keeps its offset (and the code that reaches it).
    pub(crate) store: *const crate::durable::mcp_store_t,
    /// The record writer, set with the store (`crate::dedup::Dedup::WRITER`):
    /// only `mcp_dedup_set_store` names it, so a firmware that never calls it
    /// links no record code.
    pub(crate) write: Option<crate::dedup::WriteFn>,
}

pub(crate) const DEDUP_MAGIC: u32 = 0x4D43_4444;

const _: () = assert!(core::mem::size_of::<DedupSlot>() <= core::mem::size_of::<mcp_dedup_t>());
const _: () = assert!(core::mem::align_of::<DedupSlot>() <= core::mem::align_of::<mcp_dedup_t>());

/// The table behind an initialised `mcp_dedup_t`, for one handle call.
/// Shared: several handle calls may use one table at once (every field of
/// it is an atomic, see `crate::dedup`).
unsafe fn dedup_ref<'a>(d: *mut mcp_dedup_t) -> Option<&'a crate::dedup::Dedup> {
    // SAFETY: forwarded caller promises (see dedup_slot).
    unsafe { dedup_slot(d) }.map(|p| {
        // SAFETY: the table is only ever shared, never borrowed mutably.
        unsafe { &(*p).table }
    })
}

/// The store of an initialised `mcp_dedup_t` (`mcp_dedup_set_store`), if any.
#[cfg(feature = "policy")]
unsafe fn store_ref<'a>(
    d: *mut mcp_dedup_t,
) -> Option<crate::dedup::Attached<'a, crate::durable::mcp_store_t>> {
    // SAFETY: forwarded caller promises; the store pointer is NULL or the
    // firmware's store, which outlives the table's use (mcp_dedup_set_store,
    // its only writer, must not run during a handle call).
    unsafe {
        dedup_slot(d).and_then(|p| {
            Some(crate::dedup::Attached {
                store: (*p).store.as_ref()?,
                write: (*p).write?,
            })
        })
    }
}

/// The slot behind `d` when it is an initialised table.
unsafe fn dedup_slot(d: *mut mcp_dedup_t) -> Option<*const DedupSlot> {
    if d.is_null() {
        return None;
    }
    let p = d.cast::<DedupSlot>();
    // SAFETY: the caller's storage holds a DedupSlot once initialised; the
    // magic word is read through a raw pointer first (mcp_dedup_init, its
    // only writer, must not run during a handle call).
    let magic = unsafe { core::ptr::addr_of!((*p).magic).read() };
    (magic == DEDUP_MAGIC).then_some(p.cast_const())
}

const _: () = assert!(core::mem::size_of::<Slot>() <= core::mem::size_of::<mcp_server_t>());
const _: () = assert!(core::mem::align_of::<Slot>() <= core::mem::align_of::<mcp_server_t>());

#[cfg(not(any(test, feature = "std")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // No panic may unwind into C. The core is written not to panic; should one
    // happen anyway, stop the firmware the way the C library would.
    unsafe extern "C" {
        fn abort() -> !;
    }
    // SAFETY: abort takes no arguments and never returns.
    unsafe { abort() }
}

/// `rust_eh_personality`: on hosted targets the prebuilt `core` was compiled
/// for unwinding, so its unwind tables name this symbol even though this
/// library aborts on panic and never unwinds. Defining it lets a plain C link
/// succeed without `--gc-sections`; bare-metal targets (`target_os = "none"`)
/// ship a panic=abort `core` and need nothing.
///
/// It is Rust runtime, not the library's API, so it is not in emcp.h, and it
/// is defined WEAK (an empty function): a firmware's own definition, or a
/// second Rust static library's (std's real personality routine), wins at
/// link time instead of clashing. Stable Rust has no weak linkage attribute,
/// hence the assembly, per object format; other hosted targets keep a plain
/// (strong) definition.
///
/// cbindgen:ignore
#[cfg(all(not(any(test, feature = "std")), not(target_os = "none")))]
mod eh_personality {
    #[cfg(target_arch = "arm")]
    macro_rules! ret {
        () => {
            "bx lr"
        };
    }
    #[cfg(not(target_arch = "arm"))]
    macro_rules! ret {
        () => {
            "ret"
        };
    }

    // ELF (Linux, Android, the BSDs); build.rs sets the cfg.
    #[cfg(emcp_eh_elf)]
    core::arch::global_asm!(
        ".pushsection .text.rust_eh_personality,\"ax\",%progbits",
        ".weak rust_eh_personality",
        ".type rust_eh_personality,%function",
        "rust_eh_personality:",
        ret!(),
        ".size rust_eh_personality,.-rust_eh_personality",
        ".popsection",
    );

    // Mach-O (macOS, iOS): C names carry a leading underscore, and a weak
    // definition is `.weak_definition`.
    #[cfg(emcp_eh_macho)]
    core::arch::global_asm!(
        ".pushsection __TEXT,__text,regular,pure_instructions",
        ".globl _rust_eh_personality",
        ".weak_definition _rust_eh_personality",
        "_rust_eh_personality:",
        ret!(),
        ".popsection",
    );

    /// Any other hosted target: the plain definition.
    #[cfg(not(any(emcp_eh_elf, emcp_eh_macho)))]
    #[unsafe(no_mangle)]
    extern "C" fn rust_eh_personality() {}
}

/// A NUL-terminated C string as UTF-8: `Ok(None)` for NULL, `Err` for invalid UTF-8.
unsafe fn c_text<'a>(p: *const c_char) -> Result<Option<&'a str>, c_int> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller promises a NUL-terminated string that outlives 'a.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    utf8(bytes).map(Some)
}

/// A (pointer, length) text as UTF-8.
unsafe fn text_n<'a>(p: *const c_char, len: usize) -> Result<&'a str, c_int> {
    if p.is_null() {
        return if len == 0 { Ok("") } else { Err(-MCP_EINVAL) };
    }
    // SAFETY: the caller promises `len` readable bytes at `p`.
    let bytes = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len) };
    utf8(bytes)
}

/// `bytes` as text when they are UTF-8 (the core's own check, not core's
/// table-driven one), else -MCP_EILSEQ.
fn utf8(bytes: &[u8]) -> Result<&str, c_int> {
    if crate::json::is_utf8(bytes) {
        // SAFETY: just checked to be UTF-8.
        Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        Err(-MCP_EILSEQ)
    }
}

/// The length of a NUL-terminated string, or `None` for NULL: the `_cstr`
/// forms and the NUL-terminated short names pass it on to their pointer +
/// length form.
unsafe fn c_len(p: *const c_char) -> Option<usize> {
    // SAFETY: the caller promises NULL or a NUL-terminated string.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes().len())
}

/// A caller's output buffer of `cap` bytes (at most `INT_MAX`, since lengths
/// are returned as int); `None` for NULL or an empty buffer.
unsafe fn out_buf<'a>(buf: *mut c_char, cap: usize) -> Option<&'a mut [u8]> {
    if buf.is_null() || cap == 0 {
        return None;
    }
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    Some(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap.min(c_int::MAX as usize)) })
}

unsafe fn span<'a>(s: &mcp_str_t) -> Option<&'a [u8]> {
    if s.ptr.is_null() {
        None
    } else {
        // SAFETY: the caller promises `len` readable bytes at a non-NULL `ptr`.
        Some(unsafe { core::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) })
    }
}

/// The server for a registration call: `&mut`, so no handle call may run.
unsafe fn slot_mut<'a>(server: *mut mcp_server_t) -> Option<&'a mut Slot> {
    // SAFETY: `slot` checks NULL and the magic word first.
    unsafe { slot(server) }?;
    // SAFETY: checked above; the caller promises no other reference is live.
    Some(unsafe { &mut *server.cast::<Slot>() })
}

unsafe fn slot<'a>(server: *const mcp_server_t) -> Option<&'a Slot> {
    if server.is_null() {
        return None;
    }
    let p = server.cast::<Slot>();
    // SAFETY: `server` points to caller storage of at least MCP_SERVER_SIZE
    // bytes (checked above to hold a Slot); the magic word is read through a
    // raw pointer first, so a zeroed or foreign block is never taken for a Slot.
    unsafe {
        if core::ptr::addr_of!((*p).magic).read() != MAGIC {
            return None;
        }
        Some(&*p)
    }
}

fn register_errno(e: RegisterError) -> c_int {
    match e {
        RegisterError::BadDefinition => -MCP_EINVAL,
        RegisterError::Schema(SchemaErrorKind::Unsupported) => -MCP_ENOTSUP,
        RegisterError::Schema(SchemaErrorKind::Full) => -MCP_ENOSPC,
        RegisterError::Schema(_) => -MCP_EINVAL,
        RegisterError::Duplicate => -MCP_EEXIST,
        RegisterError::Missing => -MCP_ENOENT,
        RegisterError::Full => -MCP_ENOSPC,
        RegisterError::Unsupported => -MCP_ENOTSUP,
        RegisterError::ResultLenUndeclared => -MCP_EINVAL,
    }
}

/// Writes `n` values made by `f` into the array at `a`, one element at a time.
///
/// # Safety
/// `a` must be valid for writes and aligned.
unsafe fn fill<T, const N: usize>(a: *mut [T; N], mut f: impl FnMut() -> T) {
    let first = a.cast::<T>();
    for i in 0..N {
        // SAFETY: `i < N`, inside the array the caller vouches for.
        unsafe { first.add(i).write(f()) };
    }
}

/// Writes an empty server (what `Server::new(info)` returns) into `p` field by
/// field, so that no server-sized value is ever built on the stack: building
/// the `Slot` first and moving it gave `mcp_server_init` a stack frame of
/// about 10 KB, more than a small MCU's whole main stack.
///
/// # Safety
/// `p` must be valid for writes of a `Slot` and aligned; no reference to it
/// may be live. The magic word is written last.
unsafe fn init_slot(p: *mut Slot, info: ServerInfo<'static>, page_size: u32) {
    use core::ptr::addr_of_mut as at;
    use core::sync::atomic::{AtomicBool, AtomicPtr};
    // Every field of the server's parts must be written below: these
    // patterns stop compiling when a field is added, so one cannot be missed.
    let _ = |s: &Server<'static>| {
        let Server {
            info: _,
            tools: _,
            catalog: _,
            state_mac: _,
            hooks: _,
        } = s;
        let crate::registry::Registry {
            tools: _,
            on: _,
            more: _,
            len: _,
            last_error: _,
            page_size: _,
            #[cfg(feature = "text-tools")]
                store: _,
            #[cfg(feature = "text-tools")]
                store_used: _,
        } = &s.tools;
        let crate::registry::ToolSlot {
            entry: _,
            last: _,
            largest: _,
        } = &s.tools.tools[0];
        let crate::catalog::Catalog {
            resources: _,
            n_resources: _,
            prompts: _,
            n_prompts: _,
            resources_on: _,
            prompts_on: _,
            completion: _,
        } = &s.catalog;
    };
    // SAFETY: every pointer below is a field of the Slot the caller vouches
    // for; each is written once with a valid value, arrays element by element.
    unsafe {
        at!((*p).magic).write(0);
        let s = at!((*p).server);
        at!((*s).info).write(info);
        let r = at!((*s).tools);
        fill(at!((*r).tools), crate::registry::ToolSlot::new);
        fill(at!((*r).on.off), || AtomicBool::new(false));
        at!((*r).more).write(None);
        at!((*r).len).write(0);
        at!((*r).last_error).write(None);
        at!((*r).page_size).write(page_size);
        #[cfg(feature = "text-tools")]
        at!((*r).store).write(None);
        #[cfg(feature = "text-tools")]
        at!((*r).store_used).write(0);
        let c = at!((*s).catalog);
        fill(at!((*c).resources), || None);
        at!((*c).n_resources).write(0);
        fill(at!((*c).prompts), || None);
        at!((*c).n_prompts).write(0);
        fill(at!((*c).resources_on.off), || AtomicBool::new(false));
        fill(at!((*c).prompts_on.off), || AtomicBool::new(false));
        at!((*c).completion).write(None);
        at!((*s).state_mac).write(crate::protocol::mrtr::StateMac::None);
        at!((*s).hooks).write(crate::policy::Hooks {
            policy: None,
            audit: None,
            critical: None,
        });
        at!((*p).listeners).write(AtomicPtr::new(core::ptr::null_mut()));
        at!((*p).magic).write(MAGIC);
    }
}

/// What [`exchange`] runs.
pub(crate) enum Run<'a> {
    /// One message, through the context's round-trip storage if it has one.
    Handle(&'a [u8]),
    /// The waiting call of this round-trip storage, resumed.
    Resume(*mut mcp_roundtrip_t),
}

/// The body of `mcp_server_handle` and `mcp_roundtrip_resume`: the request
/// context turned into the core's, the run, and `info`.
/// Entry `i` of the `mcp_header_param_t` array at `base`, for
/// [`HeaderParams::table`]: only [`exchange`] makes such a table, with the
/// caller's array and a length within it.
fn header_param_at<'a>(base: *const c_void, i: usize) -> HeaderParam<'a> {
    // SAFETY: `exchange` passes the caller's `params` and `i` below its
    // `params_len`; the spans are valid for the call, as the caller promises.
    unsafe {
        let p = &*base.cast::<mcp_header_param_t>().add(i);
        HeaderParam {
            name: span(&p.name).unwrap_or(&[]),
            value: span(&p.value).unwrap_or(&[]),
        }
    }
}

pub(crate) unsafe fn exchange(
    server: *mut mcp_server_t,
    ctx: *const mcp_request_ctx_t,
    run: Run<'_>,
    response: *mut u8,
    response_cap: usize,
    info: *mut mcp_response_info_t,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    let Some(slot) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    if response.is_null() {
        return -MCP_EINVAL;
    }
    // Lengths are returned as int: never use more of the buffer than that can count.
    let cap = response_cap.min(c_int::MAX as usize);
    // SAFETY: the caller promises `response_cap` writable bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(response, cap) };
    // The Mcp-Param-* headers stay in the caller's array, read one by one
    // (at most MCP_MAX_HEADER_PARAMS of them; more is reported as dropped).
    let (params, dropped) = match unsafe { ctx.as_ref() } {
        Some(c) if !c.params.is_null() => (
            HeaderParams::table(
                header_param_at,
                c.params.cast::<c_void>(),
                c.params_len.min(MCP_MAX_HEADER_PARAMS),
            ),
            c.params_len > MCP_MAX_HEADER_PARAMS,
        ),
        _ => (HeaderParams::slice(&[]), false),
    };
    // SAFETY: ctx is either NULL or valid for the call, with valid spans.
    let mut ri = match unsafe { ctx.as_ref() } {
        None => RequestInfo::default(),
        Some(c) => unsafe {
            RequestInfo {
                principal: span(&c.principal),
                hdr_protocol_version: span(&c.protocol_version),
                hdr_method: span(&c.method),
                hdr_name: span(&c.name),
                now_ms: c.now_ms,
                origin: ctx.cast::<c_void>(),
                flags: c.flags,
                hdr_params: params,
                hdr_params_dropped: dropped,
                emit: c.emit,
                transport_context: c.transport_context,
                retry_key: span(&c.retry_key),
            }
        },
    };
    // SAFETY: ctx is NULL or valid; its dedup is NULL or an initialised
    // table (shared with any other handle call using it).
    let dedup = match unsafe { ctx.as_ref() } {
        Some(c) => unsafe { dedup_ref(c.dedup) },
        None => None,
    };
    // SAFETY: as for dedup: its store is NULL or the firmware's.
    #[cfg(feature = "policy")]
    let store = match unsafe { ctx.as_ref() } {
        Some(c) => unsafe { store_ref(c.dedup) },
        None => None,
    };
    let (listener_ptr, rt_ptr) = match unsafe { ctx.as_ref() } {
        Some(c) => (c.listener, c.roundtrip),
        None => (core::ptr::null_mut(), core::ptr::null_mut()),
    };
    // (Listen streams are the catalog's: without it no exchange holds one.)
    let listener = if cfg!(feature = "catalog") {
        // SAFETY: NULL or the caller's listener storage, used by this call only.
        unsafe { catalog::listener_for_exchange(listener_ptr) }
    } else {
        None
    };
    let ex = crate::server::Exchange {
        dedup,
        #[cfg(feature = "policy")]
        store,
        listener,
    };
    let server = &slot.server;
    // The round trip is reached only through the function its storage holds
    // (set by mcp_roundtrip_init), so a firmware that never initialises one
    // does not link its code.
    let result = if cfg!(all(feature = "legacy", feature = "mrtr")) {
        let (req, rt_ptr) = match run {
            Run::Handle(req) => (Some(req), rt_ptr),
            Run::Resume(p) => (None, p),
        };
        // SAFETY: NULL or the caller's round-trip storage, used by this call only.
        match (unsafe { roundtrip::state(rt_ptr) }, req) {
            (Some((rt, buf, run_rt)), msg) => run_rt(rt, buf, server, &ri, ex, msg, out),
            (None, Some(req)) => server.handle_in(&mut ri, ex, req, out),
            (None, None) => return -MCP_EINVAL,
        }
    } else {
        // Without the legacy era there is no round trip: the plain path.
        match run {
            Run::Handle(req) => server.handle_in(&mut ri, ex, req, out),
            Run::Resume(_) => return -MCP_ENOTSUP,
        }
    };
    match result {
        Ok(o) => {
            if cfg!(feature = "catalog") && o.listen {
                // SAFETY: the listener was initialised for this exchange and
                // acknowledged a stream; the transport keeps it until
                // mcp_server_listen_end.
                unsafe { catalog::attach(&slot.listeners, listener_ptr) };
            }
            // SAFETY: info is NULL or points to writable storage.
            if let Some(i) = unsafe { info.as_mut() } {
                let mut flags = if cfg!(feature = "legacy") {
                    u16::from(o.client)
                } else {
                    0
                };
                if o.listen {
                    flags |= MCP_RESPONSE_LISTEN;
                }
                *i = mcp_response_info_t {
                    rpc_error: o.rpc_error,
                    http_status: o.http_status,
                    flags,
                };
            }
            o.len as c_int
        }
        Err(HandleError::BufferTooSmall) => -MCP_ENOBUFS,
    }
}

unsafe fn call_ref<'a>(call: *const mcp_call_t) -> Option<&'a Call<'a>> {
    // SAFETY: a non-NULL mcp_call_t pointer is only ever handed out by the
    // dispatcher, pointing to a live Call for the callback's duration.
    unsafe { call.cast::<Call<'a>>().as_ref() }
}

unsafe fn result_mut<'a>(r: *mut mcp_result_t) -> Option<&'a mut ToolResult<'a, 'a>> {
    // SAFETY: a non-NULL mcp_result_t pointer is only ever handed out by the
    // dispatcher, pointing to a live ToolResult for the callback's duration.
    unsafe { r.cast::<ToolResult<'a, 'a>>().as_mut() }
}

fn conv_errno(e: ConvError) -> c_int {
    match e {
        ConvError::Type | ConvError::NotInteger => -MCP_EDOM,
        ConvError::Range => -MCP_ERANGE,
        ConvError::NoSpace => -MCP_ENOBUFS,
    }
}

fn arg_errno(e: ArgError) -> c_int {
    match e {
        ArgError::Missing => -MCP_ENOENT,
        ArgError::BadPath => -MCP_EINVAL,
        ArgError::Conv(c) => conv_errno(c),
    }
}

fn result_errno(e: ResultError) -> c_int {
    match e {
        ResultError::Overflow => -MCP_ENOBUFS,
        ResultError::Order => -MCP_EPERM,
        ResultError::Unsupported => -MCP_ENOTSUP,
        ResultError::Capability => -MCP_EACCES,
    }
}

fn write_errno(e: WriteError) -> c_int {
    result_errno(e.into())
}

/// Runs `f` on the argument at `path` (or the schema's `default` for it when
/// absent) and returns its result, or the lookup's error code.
unsafe fn with_arg(
    call: *const mcp_call_t,
    path: *const c_char,
    f: impl FnOnce(&crate::json::Doc<'_>, usize) -> c_int,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_value_in(call, path, false, f) }
}

/// Runs `f` on the value at `path` of the arguments (with schema defaults) or,
/// with `input`, of `inputResponses`.
unsafe fn with_value_in(
    call: *const mcp_call_t,
    path: *const c_char,
    input: bool,
    f: impl FnOnce(&crate::json::Doc<'_>, usize) -> c_int,
) -> c_int {
    // SAFETY: see call_ref; path is NULL or NUL-terminated.
    let Some(c) = (unsafe { call_ref(call) }) else {
        return -MCP_EINVAL;
    };
    let Ok(Some(p)) = (unsafe { c_text(path) }) else {
        return -MCP_EINVAL;
    };
    let r = if input {
        c.with_input(p, |d, i| Ok(f(d, i)))
    } else {
        c.with_value(p, |d, i| Ok(f(d, i)))
    };
    r.unwrap_or_else(arg_errno)
}

/// Copies the string at token `i`, unescaped and NUL-terminated, into `buf`;
/// stores its length in `*len` (if not NULL) even when `buf` is too small.
unsafe fn copy_string(
    d: &crate::json::Doc<'_>,
    i: usize,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    let Some(need) = d.unescaped_len(i) else {
        return -MCP_EDOM;
    };
    // SAFETY: len is NULL or writable.
    if let Some(l) = unsafe { len.as_mut() } {
        *l = need;
    }
    if buf.is_null() || cap <= need {
        return -MCP_ENOBUFS;
    }
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap) };
    match d.unescape_into(i, out) {
        Ok(n) => match out.get_mut(n) {
            Some(nul) => {
                *nul = 0;
                0
            }
            None => -MCP_ENOBUFS,
        },
        Err(e) => conv_errno(e),
    }
}

/// Reads the argument at `path` with `conv` and stores it in `out`.
unsafe fn typed_arg<T>(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut T,
    conv: impl FnOnce(&crate::json::Doc<'_>, usize) -> Result<T, ConvError>,
) -> c_int {
    if out.is_null() {
        return -MCP_EINVAL;
    }
    // SAFETY: forwarded caller promises.
    unsafe {
        with_arg(call, path, |d, i| match conv(d, i) {
            Ok(v) => {
                // SAFETY: checked non-NULL; the caller promises it is writable.
                out.write(v);
                0
            }
            Err(e) => conv_errno(e),
        })
    }
}

/// Runs `f` on the result behind `r`, mapping errors to `-MCP_E*`.
#[inline(always)] // one body per caller, as when each form had its own
unsafe fn with_result(
    r: *mut mcp_result_t,
    f: impl FnOnce(&mut ToolResult<'_, '_>) -> Result<(), ResultError>,
) -> c_int {
    // SAFETY: see result_mut.
    match unsafe { result_mut(r) } {
        Some(res) => f(res).map_or_else(result_errno, |()| 0),
        None => -MCP_EINVAL,
    }
}

/// Runs a writer call inside structuredContent.
#[inline(always)] // one body per caller, as when each form had its own
unsafe fn with_json(
    r: *mut mcp_result_t,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json_form::<{ cfg!(target_os = "none") }>(r, f) }
}

/// [`with_json`] in one of two forms with the same results
/// (`json_forms_agree`): `SHARED` (bare metal) finds the writer through one
/// out-of-line lookup that every `mcp_json_*` function calls, keeping only
/// its own writer call; otherwise (hosted) all of it is inlined.
#[inline(always)]
unsafe fn with_json_form<const SHARED: bool>(
    r: *mut mcp_result_t,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>,
) -> c_int {
    if SHARED {
        // SAFETY: forwarded caller promises.
        match unsafe { json_of(r) } {
            Ok(w) => f(w).map_or_else(write_errno, |()| 0),
            Err(e) => e,
        }
    } else {
        // SAFETY: forwarded caller promises.
        unsafe { with_result(r, |res| Ok(f(res.json()?)?)) }
    }
}

/// The structuredContent writer behind `r`, or the error code.
#[inline(never)]
unsafe fn json_of<'a>(r: *mut mcp_result_t) -> Result<&'a mut Writer<'a>, c_int> {
    // SAFETY: see result_mut.
    match unsafe { result_mut(r) } {
        Some(res) => res.json().map_err(result_errno),
        None => Err(-MCP_EINVAL),
    }
}

#[cfg(test)]
mod json_form_tests {
    use super::*;
    use crate::limits::MCP_MAX_REQUEST_STATE;

    /// Both forms of `with_json` return the same code and write the same
    /// bytes: NULL, outside structuredContent, a good write, a misused
    /// writer, and a full buffer.
    #[test]
    fn json_forms_agree() {
        type Step = fn(&mut Writer<'_>) -> Result<(), WriteError>;
        let key: Step = |w| w.key("n");
        let int: Step = |w| w.int(7);
        let close: Step = |w| w.end_array();
        let cases: [(bool, usize, &[Step]); 5] = [
            (false, 256, &[key, int]),
            (true, 256, &[key, int]),
            (true, 256, &[key, key]),
            (true, 256, &[close]),
            (true, 48, &[key, int, key, int, key, int, key, int]),
        ];
        let run = |shared: bool, open: bool, cap: usize, steps: &[Step]| {
            let mut buf = vec![0u8; cap];
            let mut w = Writer::new(&mut buf);
            let opts = crate::call::test_result_opts(&mut w);
            let mut state = [0u8; MCP_MAX_REQUEST_STATE];
            let mut codes = vec![];
            let mut res = ToolResult::new(&mut w, opts, &mut state);
            if open {
                res.structured_begin().unwrap();
            }
            let r = (&mut res as *mut ToolResult<'_, '_>).cast::<mcp_result_t>();
            for &step in steps {
                // SAFETY: `r` points to the live result above.
                codes.push(unsafe {
                    if shared {
                        with_json_form::<true>(r, step)
                    } else {
                        with_json_form::<false>(r, step)
                    }
                });
            }
            // SAFETY: NULL is refused before it is read.
            codes.push(unsafe {
                if shared {
                    with_json_form::<true>(core::ptr::null_mut(), key)
                } else {
                    with_json_form::<false>(core::ptr::null_mut(), key)
                }
            });
            // `res` (and `r`) end here: the writer is read again.
            (codes, w.as_bytes().to_vec())
        };
        let mut seen = std::collections::BTreeSet::new();
        for (open, cap, steps) in cases {
            let a = run(true, open, cap, steps);
            assert_eq!(a, run(false, open, cap, steps));
            seen.extend(a.0);
        }
        // The cases reach every outcome: success and each error code.
        for code in [0, -MCP_EINVAL, -MCP_EPERM, -MCP_ENOBUFS] {
            assert!(seen.contains(&code), "{code} not reached: {seen:?}");
        }
    }
}

#[cfg(test)]
mod init_tests {
    use super::*;

    /// `mcp_server_init` over storage full of garbage (a re-used buffer, or
    /// a server that was in use) leaves exactly what `Server::new` gives.
    #[test]
    fn init_in_place_over_dirty_storage() {
        let mut storage = Box::new(mcp_server_t {
            opaque: [u64::MAX; MCP_SERVER_WORDS],
        });
        let cfg = mcp_server_config_t {
            name: c"n".as_ptr(),
            version: c"1".as_ptr(),
            title: core::ptr::null(),
            instructions: core::ptr::null(),
            list_ttl_ms: 5,
            cache_scope: MCP_CACHE_PUBLIC,
            list_page_size: 3,
        };
        // SAFETY: valid storage and config, strings are 'static.
        assert_eq!(unsafe { mcp_server_init(&mut *storage, &cfg) }, 0);
        // SAFETY: initialised just above.
        let slot = unsafe { slot(&*storage) }.unwrap();
        let s = &slot.server;
        assert_eq!(
            (s.info.name, s.info.version, s.info.list_ttl_ms),
            ("n", "1", 5)
        );
        assert!(s.info.cache_public && s.info.title.is_none());
        assert_eq!((s.tools.len(), s.tools.page_size), (0, 3));
        assert!(s.tools.iter().next().is_none() && s.tools.last_error.is_none());
        assert!((0..MCP_MAX_TOOLS).all(|i| s.tools.enabled(i)));
        assert!(s.tools.rate_check(0, 1000, 0).is_ok());
        assert!(s.catalog.resources().next().is_none() && s.catalog.prompts().next().is_none());
        assert!((0..MCP_MAX_RESOURCES).all(|i| s.catalog.resources_on.enabled(i)));
        assert!((0..MCP_MAX_PROMPTS).all(|i| s.catalog.prompts_on.enabled(i)));
        assert!(s.catalog.completion.is_none() && !s.state_mac.enabled());
        assert!(s.hooks.policy.is_none() && s.hooks.audit.is_none());
        assert!(
            slot.listeners
                .load(core::sync::atomic::Ordering::Relaxed)
                .is_null()
        );
    }
}
