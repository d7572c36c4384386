//! The C ABI: the only module with `extern "C"` functions and `unsafe`.
//!
//! Owns: checking every pointer the caller hands in, turning C strings and
//! spans into the core's safe types, and mapping core errors to `-MCP_E*`.
//! Must not: contain protocol logic; each function converts and delegates.

#![allow(unsafe_code)]

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

pub mod catalog;
pub mod content;
pub mod framer;
pub mod input;
pub mod limit;
pub mod policy;
pub mod roundtrip;
pub mod rpc;
pub mod sizing;
pub mod store;
pub mod types;

use core::ffi::{CStr, c_char, c_int, c_void};

use crate::call::{ArgError, Call, HeaderParam, RequestInfo, ResultError, ToolResult};
use crate::json::{ConvError, Kind, WriteError, Writer};
use crate::limits::*;
/// The length of the MAC an `mcp_mac_fn` writes.
pub use crate::mac::MCP_MAC_LEN;
pub use crate::policy::mcp_audit_t;
pub use crate::policy::mcp_store_t;
use crate::registry::{Handler, RegisterError, Tool, mcp_call_t, mcp_result_t, mcp_tool_fn};
use crate::schema::SchemaErrorKind;
use crate::server::{HandleError, Server, ServerInfo};
pub use crate::store::{
    mcp_store_append_fn, mcp_store_read_fn, mcp_store_restart_fn, mcp_store_sync_fn,
};
pub use content::mcp_annotations_t;
pub use framer::*;
pub use input::mcp_mac_fn;
pub use limit::mcp_build_limit;
pub use policy::{
    mcp_audit_fn, mcp_clock_fn, mcp_critical_enter_fn, mcp_critical_exit_fn, mcp_policy_fn,
};
pub use roundtrip::mcp_roundtrip_t;
pub use sizing::{mcp_usage_pair_t, mcp_usage_t};
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
    pub(crate) store: *const crate::policy::mcp_store_t,
}

pub(crate) const DEDUP_MAGIC: u32 = 0x4D43_4444;

const _: () = assert!(core::mem::size_of::<DedupSlot>() <= core::mem::size_of::<mcp_dedup_t>());
const _: () = assert!(core::mem::align_of::<DedupSlot>() <= core::mem::align_of::<mcp_dedup_t>());

/// Initialises (or empties) a duplicate table.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL `dedup` is NULL.
///
/// # Safety
/// `dedup` must point to writable `mcp_dedup_t` storage not in use by a
/// running `mcp_server_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_dedup_init(dedup: *mut mcp_dedup_t) -> c_int {
    require_feature!("policy");
    if dedup.is_null() {
        return -MCP_EINVAL;
    }
    let slot = DedupSlot {
        magic: DEDUP_MAGIC,
        table: crate::dedup::Dedup::new(),
        store: core::ptr::null(),
    };
    // SAFETY: non-NULL, writable, large and aligned enough (checked above).
    unsafe { dedup.cast::<DedupSlot>().write(slot) };
    0
}

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
unsafe fn store_ref<'a>(d: *mut mcp_dedup_t) -> Option<&'a crate::policy::mcp_store_t> {
    // SAFETY: forwarded caller promises; the store pointer is NULL or the
    // firmware's store, which outlives the table's use (mcp_dedup_set_store,
    // its only writer, must not run during a handle call).
    unsafe { dedup_slot(d).and_then(|p| (*p).store.as_ref()) }
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
    core::str::from_utf8(bytes)
        .map(Some)
        .map_err(|_| -MCP_EILSEQ)
}

/// A (pointer, length) text as UTF-8.
unsafe fn text_n<'a>(p: *const c_char, len: usize) -> Result<&'a str, c_int> {
    if p.is_null() {
        return if len == 0 { Ok("") } else { Err(-MCP_EINVAL) };
    }
    // SAFETY: the caller promises `len` readable bytes at `p`.
    let bytes = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len) };
    core::str::from_utf8(bytes).map_err(|_| -MCP_EILSEQ)
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
        RegisterError::Full => -MCP_ENOSPC,
        RegisterError::Unsupported => -MCP_ENOTSUP,
    }
}

/// Initialises a server in caller-owned storage.
///
/// @param server Storage for the server, e.g. `static mcp_server_t server;`.
/// @param config Identity and list policy; the struct is copied, its strings
///               must outlive the server.
/// @retval 0 Success.
/// @retval -MCP_EINVAL A pointer is NULL, or `name` or `version` is missing or empty.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
///
/// # Safety
/// `server` must point to writable `mcp_server_t` storage and `config` to a
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
    // SAFETY: the caller promises NUL-terminated strings that outlive the server.
    let texts = unsafe {
        (
            c_text(c.name),
            c_text(c.version),
            c_text(c.title),
            c_text(c.instructions),
        )
    };
    let (Ok(Some(name)), Ok(Some(version)), Ok(title), Ok(instructions)) = texts else {
        let utf8 = [texts.0.err(), texts.1.err(), texts.2.err(), texts.3.err()];
        return utf8.into_iter().flatten().next().unwrap_or(-MCP_EINVAL);
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
    use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32};
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
            len: _,
            last_error: _,
            page_size: _,
            rates: _,
            on: _,
        } = &s.tools;
        let crate::policy::Rates { last: _ } = &s.tools.rates;
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
        fill(at!((*r).tools), || None);
        at!((*r).len).write(0);
        at!((*r).last_error).write(None);
        at!((*r).page_size).write(page_size);
        fill(at!((*r).rates.last), || {
            AtomicU32::new(crate::policy::NEVER)
        });
        fill(at!((*r).on.off), || AtomicBool::new(false));
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

/// Registers a tool. Tools are listed in registration order.
///
/// @param server An initialised server. Not while any `mcp_server_handle`
///               call on it is running.
/// @param tool   The definition; copied, but its strings must outlive the server.
/// @param fn     The callback run for a valid `tools/call` of this tool.
/// @param user   Passed back to `fn` unchanged.
/// @retval 0 Success.
/// The input schema (and output schema, if any) is checked here and then
/// read in place from its text (nothing is copied into the server, so the
/// text must stay where it is); every `tools/call` is validated against it
/// before `fn` runs. Invalid arguments are a tool execution error (SEP-1303),
/// not a JSON-RPC error, so the host shows it to the model, which can correct
/// the call: `fn` does not run, the result (HTTP 200, in both eras) has
/// `isError: true` and one text block naming the argument and the rule, whose
/// own `_meta` carries them machine-readably:
/// `{"content":[{"type":"text","text":"percent: 120 is above maximum 100",
/// "_meta":{"emcp/invalidArgument":{"path":"percent","keyword":"maximum"}}}],
/// "isError":true}` (2026-07-28 adds `"resultType":"complete"`; out-of-range
/// numbers are keyword `type`). An idempotency key longer than
/// `MCP_DEDUP_KEY_MAX` is answered the same way (keyword `maxLength`). The
/// audit outcome is `MCP_AUDIT_INVALID_ARGUMENTS`. An unknown tool and
/// malformed params (`name` not a string, `arguments` not an object) stay
/// -32602, and an `Mcp-Param-*` header that does not match its argument
/// stays -32020. On a schema error, `mcp_server_schema_error` says
/// which keyword or value was refused, by its path in the schema.
///
/// A schema must agree with itself: every `default`, `const` and `enum`
/// member is validated against its own (sub)schema (`default: 9` with
/// `maximum: 3` is refused, as a call without the argument would read 9), and
/// bounds no value meets are refused (`minimum` > `maximum`, `minLength` >
/// `maxLength`, `minItems` > `maxItems`, `exclusiveMinimum` >=
/// `exclusiveMaximum` or `maximum`, `minimum` >= `exclusiveMaximum`).
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer, uninitialised server, bad name, unknown
///         annotation bits, or a malformed schema (not JSON, root not
///         `"type":"object"`, a keyword with a wrong value, an empty `enum`, a
///         `required` name missing from `properties`), or one that contradicts
///         itself (above).
/// @retval -MCP_ENOTSUP The schema uses a keyword the validator does not
///         implement (it is never ignored silently), or the tool sets
///         `principals`, `min_interval_ms` or `idempotency_key` and the
///         library was built without the `policy` feature.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EEXIST A tool with this name is registered.
/// @retval -MCP_ENOSPC `MCP_MAX_TOOLS` tools are registered;
///         `mcp_server_schema_error` names the limit to raise. Schemas take
///         no server storage (they are read from the text on each call), so
///         no schema table can fill.
///
/// # Safety
/// `server` must have been initialised with `mcp_server_init`; `tool` must
/// point to a valid definition whose strings outlive the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_tool(
    server: *mut mcp_server_t,
    tool: *const mcp_tool_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    if tool.is_null() || unsafe { slot(server) }.is_none() {
        return -MCP_EINVAL;
    }
    if r#fn.is_none() {
        return -MCP_EINVAL;
    }
    // SAFETY: checked non-NULL; the caller promises a valid definition.
    let t = unsafe { &*tool };
    // SAFETY: the caller promises NUL-terminated strings that outlive the server.
    let texts = unsafe {
        (
            c_text(t.name),
            c_text(t.title),
            c_text(t.description),
            c_text(t.input_schema),
            c_text(t.output_schema),
        )
    };
    let (Ok(Some(name)), Ok(title), Ok(description), Ok(Some(input_schema)), Ok(output_schema)) =
        texts
    else {
        let utf8 = [
            texts.0.err(),
            texts.1.err(),
            texts.2.err(),
            texts.3.err(),
            texts.4.err(),
        ];
        return utf8.into_iter().flatten().next().unwrap_or(-MCP_EINVAL);
    };
    // SAFETY: the caller promises NUL-terminated strings (or NULL).
    let (icons, principals, idempotency_key) = match unsafe {
        (
            c_text(t.icons),
            c_text(t.principals),
            c_text(t.idempotency_key),
        )
    } {
        (Ok(i), Ok(p), Ok(k)) => (i, p, k),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
    };
    let entry = Tool {
        title,
        description,
        output_schema,
        annotations: t.annotations,
        icons,
        principals,
        min_interval_ms: t.min_interval_ms,
        idempotency_key,
        max_result_len: t.max_result_len,
        ..Tool::new(name, input_schema, Handler::C(r#fn, user))
    };
    // SAFETY: the magic word was checked above; the caller promises no other
    // reference to the server is live (no concurrent handle call).
    let s = unsafe { &mut (*server.cast::<Slot>()).server };
    match s.add_tool(entry) {
        Ok(()) => {
            // SAFETY: the server is initialised; open streams learn of the new tool.
            unsafe { catalog::mcp_server_notify_list_changed(server, MCP_LIST_TOOLS) };
            0
        }
        Err(e) => register_errno(e),
    }
}

/// Describes the last schema that `mcp_server_add_tool` refused, as
/// NUL-terminated text: which schema, the path of the offending keyword or
/// value in it, and what is wrong, e.g.
/// `inputSchema: properties.p.pattern: unsupported keyword`,
/// `inputSchema: properties.steps.items.properties.rpm.default: 9 is above maximum 3`,
/// `outputSchema: properties.lo.maximum: 3 is below minimum 5`,
/// `inputSchema: properties.a.type[1]: unknown type name at "int"`.
/// A full tool table is described too: `tool table full: raise MCP_MAX_TOOLS (16)`.
///
/// @return The length written (without the NUL); 0 when no schema was refused.
/// @retval -MCP_EINVAL NULL pointer, `cap` 0, or uninitialised server.
/// @retval -MCP_ENOBUFS `cap` is too small (the text is cut and terminated).
///
/// # Safety
/// `server` must have been initialised; `buf` writable for `cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_schema_error(
    server: *const mcp_server_t,
    buf: *mut c_char,
    cap: usize,
) -> c_int {
    // SAFETY: `slot` checks NULL and the magic word before forming a reference.
    let Some(slot) = (unsafe { slot(server) }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let Some(out) = (unsafe { out_buf(buf, cap) }) else {
        return -MCP_EINVAL;
    };
    let cap = out.len();
    let mut m = crate::schema::MsgBuf::new();
    if let Some(e) = slot.server.tools.last_error {
        e.describe(&mut m);
    }
    let text = m.as_str().as_bytes();
    let n = text.len().min(cap - 1);
    if let (Some(dst), Some(src)) = (out.get_mut(..n), text.get(..n)) {
        dst.copy_from_slice(src);
    }
    if let Some(nul) = out.get_mut(n) {
        *nul = 0;
    }
    if n < text.len() {
        -MCP_ENOBUFS
    } else {
        n as c_int
    }
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
/// the short form `Internal error`), audited as `MCP_AUDIT_NO_SPACE`. That is
/// a firmware configuration fault, not one to retry: size the buffer with
/// `mcp_server_min_response_cap` (or `mcp_server_usage`) after the last
/// registration. A callback learns its remaining room from
/// `mcp_result_space`.
///
/// # Safety
/// Pointers must be valid for the given lengths; `ctx` and the spans in it
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

/// What [`exchange`] runs.
pub(crate) enum Run<'a> {
    /// One message, through the context's round-trip storage if it has one.
    Handle(&'a [u8]),
    /// The waiting call of this round-trip storage, resumed.
    Resume(*mut roundtrip::mcp_roundtrip_t),
}

/// The body of `mcp_server_handle` and `mcp_roundtrip_resume`: the request
/// context turned into the core's, the run, and `info`.
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
    // The Mcp-Param-* headers, copied into a bounded table on this stack.
    let mut params = [HeaderParam::default(); MCP_MAX_HEADER_PARAMS];
    let mut n_params = 0;
    let mut dropped = false;
    // SAFETY: ctx is NULL or valid; its params array holds params_len entries.
    if let Some(c) = unsafe { ctx.as_ref() } {
        if !c.params.is_null() {
            dropped = c.params_len > MCP_MAX_HEADER_PARAMS;
            for (i, slot) in params.iter_mut().enumerate().take(c.params_len) {
                // SAFETY: i < params_len, as promised by the caller.
                let p = unsafe { &*c.params.add(i) };
                // SAFETY: the spans are valid for the call, as promised.
                *slot = unsafe {
                    HeaderParam {
                        name: span(&p.name).unwrap_or(&[]),
                        value: span(&p.value).unwrap_or(&[]),
                    }
                };
                n_params = i + 1;
            }
        }
    }
    // SAFETY: ctx is either NULL or valid for the call, with valid spans.
    let ri = match unsafe { ctx.as_ref() } {
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
                hdr_params: params.get(..n_params).unwrap_or(&[]),
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
    // SAFETY: NULL or the caller's listener storage, used by this call only.
    let listener = unsafe { catalog::listener_for_exchange(listener_ptr) };
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
            (None, Some(req)) => server.handle_with(&ri, ex, req, out),
            (None, None) => return -MCP_EINVAL,
        }
    } else {
        // Without the legacy era there is no round trip: the plain path.
        match run {
            Run::Handle(req) => server.handle_with(&ri, ex, req, out),
            Run::Resume(_) => return -MCP_ENOTSUP,
        }
    };
    match result {
        Ok(o) => {
            if o.listen {
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

/// Reads an integer argument. `path` is `key`, `key.sub` or `key[2]`.
/// Integral numbers written as `1.0` or `1e2` are accepted.
///
/// @retval 0 Success; `*out` holds the value.
/// @retval -MCP_ENOENT No value at `path` (or no arguments were sent).
/// @retval -MCP_EDOM The value is not a number, or not an integer.
/// @retval -MCP_ERANGE The value does not fit `int64_t`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// # Safety
/// `call` must be the handle passed to the running callback; `path` a
/// NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_int(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut i64,
) -> c_int {
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
/// # Safety
/// As for `mcp_arg_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_number(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut f64,
) -> c_int {
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
/// # Safety
/// As for `mcp_arg_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_bool(
    call: *const mcp_call_t,
    path: *const c_char,
    out: *mut bool,
) -> c_int {
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
/// # Safety
/// `call` must be the handle passed to the running callback; `path`
/// NUL-terminated; `buf` writable for `cap` bytes; `len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_string(
    call: *const mcp_call_t,
    path: *const c_char,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_arg(call, path, |d, i| copy_string(d, i, buf, cap, len)) }
}

/// The JSON type of the argument at `path`.
///
/// @return One of `MCP_JSON_OBJECT`, `_ARRAY`, `_STRING`, `_NUMBER`, `_BOOL`, `_NULL`.
/// @retval -MCP_ENOENT No value at `path`.
/// @retval -MCP_EINVAL NULL pointer or malformed path.
///
/// # Safety
/// `call` must be the handle passed to the running callback; `path` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_type(call: *const mcp_call_t, path: *const c_char) -> c_int {
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
/// # Safety
/// `call` must be the handle passed to the running callback; `path` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_arg_count(call: *const mcp_call_t, path: *const c_char) -> c_int {
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
/// # Safety
/// `call` must be the handle passed to the running callback; `buf` writable
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
/// # Safety
/// `call` must be the handle passed to the running callback.
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
/// # Safety
/// `call` must be the handle passed to the running callback; `key`
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
/// # Safety
/// `call` must be the handle passed to the running callback; `buf` writable
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
        dst.copy_from_slice(id);
    }
    if let Some(nul) = out.get_mut(id.len()) {
        *nul = 0;
    }
    0
}

/// The request context the transport passed to `mcp_server_handle` (NULL if it
/// passed none), e.g. for the principal or `now_ms`.
///
/// # Safety
/// `call` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_call_ctx(call: *const mcp_call_t) -> *const mcp_request_ctx_t {
    // SAFETY: see call_ref.
    match unsafe { call_ref(call) } {
        Some(c) => c.info.origin.cast::<mcp_request_ctx_t>(),
        None => core::ptr::null(),
    }
}

/// Runs `f` on the result behind `r`, mapping errors to `-MCP_E*`.
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

/// Appends a text content block.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full (the request will fail
///         with -32603 "Response exceeds the response buffer").
/// @retval -MCP_EILSEQ `text` is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback; `text` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_text(
    r: *mut mcp_result_t,
    text: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(text, len) } {
        Ok(t) => unsafe { with_result(r, |res| res.text(t)) },
        Err(e) => e,
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
/// # Safety
/// `r` must be the handle passed to the running callback; `text` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_error(
    r: *mut mcp_result_t,
    text: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(text, len) } {
        Ok(t) => unsafe { with_result(r, |res| res.error(t)) },
        Err(e) => e,
    }
}

/// Sets or clears `isError` without adding content.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_set_error(r: *mut mcp_result_t, is_error: bool) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe {
        with_result(r, |res| {
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
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_structured_begin(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.structured_begin()) }
}

/// Closes the `structuredContent` object; every object and array opened inside
/// it must be closed first.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not inside structuredContent, or a container is still open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_structured_end(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.structured_end()) }
}

/// Runs a writer call inside structuredContent.
unsafe fn with_json(
    r: *mut mcp_result_t,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| Ok(f(res.json()?)?)) }
}

/// Writes an object key inside structuredContent (NUL-terminated UTF-8).
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Not inside structuredContent, or not inside an object,
///         or a key without its value; the request then fails with -32603.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ Not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback; `key` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_key(r: *mut mcp_result_t, key: *const c_char) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { c_text(key) } {
        Ok(Some(k)) => unsafe { with_json(r, |w| w.key(k)) },
        Ok(None) => -MCP_EINVAL,
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
/// # Safety
/// `r` must be the handle passed to the running callback; `s` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_string(
    r: *mut mcp_result_t,
    s: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: forwarded caller promises.
    match unsafe { text_n(s, len) } {
        Ok(t) => unsafe { with_json(r, |w| w.string(t)) },
        Err(e) => e,
    }
}

/// Writes an integer value inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_int(r: *mut mcp_result_t, v: i64) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.int(v)) }
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
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_number(r: *mut mcp_result_t, v: f64) -> c_int {
    if !crate::json::num::is_finite(v) {
        return -MCP_EDOM;
    }
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.number(v)) }
}

/// Writes `true` or `false` inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_bool(r: *mut mcp_result_t, v: bool) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.bool(v)) }
}

/// Writes `null` inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_null(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.null()) }
}

/// Opens a nested object inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_object_begin(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.begin_object()) }
}

/// Closes a nested object opened with `mcp_json_object_begin`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM No nested object is open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_object_end(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.json_close(true)) }
}

/// Opens an array inside structuredContent.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Out of order (see `mcp_json_key`).
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_array_begin(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_json(r, |w| w.begin_array()) }
}

/// Closes an array opened with `mcp_json_array_begin`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM No array is open.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EINVAL NULL pointer.
///
/// # Safety
/// `r` must be the handle passed to the running callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_json_array_end(r: *mut mcp_result_t) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.json_close(false)) }
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
        assert!((0..MCP_MAX_TOOLS).all(|i| s.tools.on.enabled(i)));
        assert!(s.tools.rates.check(0, 1000, 0).is_ok());
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
