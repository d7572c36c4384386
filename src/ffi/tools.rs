//! The C ABI of tool registration: `mcp_tool_t`, `mcp_server_add_tool`
//! (`include/emcp_tools.h`).

#[allow(unused_imports)]
use super::*;

/// A tool definition for `mcp_server_add_tool`. The struct is copied, but the
/// strings it points to must stay valid (and unchanged) for the server's lifetime.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_tool_t {
    /// Unique name: 1 to `MCP_MAX_TOOL_NAME_LEN` characters of `[A-Za-z0-9_.-]`.
    pub name: *const c_char,
    /// Display title, or NULL.
    pub title: *const c_char,
    /// What the tool does and when to use it, or NULL.
    pub description: *const c_char,
    /// JSON Schema of the arguments: one JSON object (required).
    pub input_schema: *const c_char,
    /// JSON Schema of `structuredContent`, or NULL.
    pub output_schema: *const c_char,
    /// `MCP_TOOL_*` flags; 0 lists no annotations, otherwise all four hints are
    /// listed with the flags' values (and `title`, when set).
    pub annotations: u32,
    /// Icons as a JSON array of Icon objects (`[{"src":"...","mimeType":"image/png"}]`),
    /// listed as written; NULL for none.
    pub icons: *const c_char,
    /// Comma-separated principals that may see and call this tool (e.g.
    /// `"operator,local"`); NULL for every principal. Others get the tool
    /// neither listed nor callable (a call is answered as an unknown tool).
    pub principals: *const c_char,
    /// Minimum milliseconds between two runs of this tool on the request
    /// clock (`now_ms`); a call within it gets an isError result saying when to
    /// retry, and the callback does not run. The run is claimed atomically
    /// before the callback (see `mcp_server_set_critical`), so of two calls
    /// at once on any threads one runs and the other is refused, and while a
    /// callback runs its claim holds the interval. The claim is given back
    /// when the run does not count: an input_required answer (the retry is
    /// checked then), a refused requestState, a missing client capability
    /// (-32021). A `now_ms` up to one interval before the last run is inside
    /// the interval too (a thread that read the clock earlier but claimed
    /// later). The transport must fill `now_ms` from a monotonic clock. 0 for
    /// no limit.
    pub min_interval_ms: u32,
    /// Name of an argument carrying an idempotency key (string or number), or
    /// NULL. A repeated key (same tool and principal, within
    /// `MCP_DEDUP_WINDOW_MS`) is answered with the original result and the
    /// callback does not run again — when the transport passes a duplicate
    /// table (`mcp_request_ctx_t.dedup`). The key is claimed in the table
    /// before the callback runs: a repeat arriving while the first call still
    /// runs gets an isError result saying it is in progress (retry), never a
    /// second run.
    pub idempotency_key: *const c_char,
    /// The most bytes the callback writes into its result: every content
    /// block as written (`{"type":"text","text":"..."}`, escapes included,
    /// with the commas between blocks) plus `,"structuredContent":{...}`.
    /// Before the callback runs (after the argument, policy checks), a call
    /// whose response buffer cannot hold this and the result's envelope
    /// (for the request's id and era) is answered with -32603 and the
    /// callback does NOT run (see `mcp_server_handle`), so a tool never acts
    /// when its answer cannot be delivered. Required for every tool not
    /// annotated `MCP_TOOL_READ_ONLY`: registration refuses 0 there. A
    /// read-only tool may leave it 0 (only the envelope is checked). To find
    /// the number, run the tool's largest answers on a host (its refusals
    /// too) and read `mcp_server_tool_usage`'s `largest_result`. A result
    /// larger than declared is still sent when it fits the buffer, and
    /// audited `MCP_AUDIT_OVER_DECLARED`. A callback can ask
    /// `mcp_result_space` before it acts.
    pub max_result_len: usize,
    /// The seal of `input_schema` and `output_schema` from
    /// `mcp_schema_seal` (or the `emcp-seal` host program), or 0. A library
    /// built with the schema checker (the `full` profile) checks the schemas
    /// here and refuses a nonzero seal that does not match them; one built
    /// without it (the `minimal` profile) does not check them and registers
    /// the tool only with the matching seal, so every schema it serves was
    /// checked, at build time.
    pub schema_seal: u32,
    /// The tool's whole `tools/list` entry, one minified JSON object, as
    /// `emcp-gen` writes it (`emcp_generate_tools`), or NULL. With it the
    /// tool is registered as built: `tools/list` copies this text, and
    /// every call is checked by running `input_program` (the same rules,
    /// order and messages as the schema text, in about a third of the
    /// instructions), its defaults read from it, its `structuredContent`
    /// checked by `output_program`. No seal is needed. A library with the
    /// schema checker refuses programs that are not exactly what
    /// `input_schema` and `output_schema` compile to (-MCP_EINVAL,
    /// `mcp_server_schema_error` says to run emcp-gen again); one without
    /// it, programs it cannot read. Must outlive the server, like the
    /// strings.
    pub listing: *const c_char,
    /// The compiled program of `input_schema` (required with `listing`,
    /// refused without it).
    pub input_program: *const u8,
    /// The length of `input_program` in bytes.
    pub input_program_len: usize,
    /// The compiled program of `output_schema` (with `listing`, exactly
    /// when `output_schema` is set), or NULL.
    pub output_program: *const u8,
    /// The length of `output_program` in bytes.
    pub output_program_len: usize,
    /// A built tool's typed argument struct, as `emcp-gen` writes it: one
    /// slot per top-level property of `input_schema`, in `properties`
    /// order; or NULL. With it the callback reads its arguments from the
    /// struct (`mcp_call_args`). Registration refuses a layout that does not
    /// fit the input program (a member too narrow for its bounds, outside
    /// the struct, or without a presence flag where the argument may be
    /// absent).
    pub args: *const mcp_arg_slot_t,
    /// Slots at `args`.
    pub args_len: usize,
    /// `sizeof` the typed argument struct.
    pub args_size: usize,
}

/// A program given as pointer and length: `None` for NULL with 0, `Err` for
/// NULL with a length or a pointer with 0.
///
/// # Safety
/// A non-NULL `p` must have `len` readable bytes that outlive the server.
unsafe fn program<'a>(p: *const u8, len: usize) -> Result<Option<&'a [u8]>, ()> {
    match (p.is_null(), len) {
        (true, 0) => Ok(None),
        (true, _) | (false, 0) => Err(()),
        // SAFETY: non-NULL; the caller promises `len` bytes.
        (false, n) => Ok(Some(unsafe { core::slice::from_raw_parts(p, n) })),
    }
}

/// Registers a tool. Tools are listed in registration order.
///
/// @param server An initialised server. Not while any `mcp_server_handle`
///               call on it is running.
/// @param tool   The definition; copied, but its strings must outlive the server.
/// @param fn     The callback run for a valid `tools/call` of this tool.
/// @param user   Passed back to `fn` unchanged.
///
/// A built tool (`listing` set, as `emcp-gen` writes it) brings its schemas
/// compiled: every `tools/call` runs its argument program before `fn` runs,
/// and `tools/list` copies its listing. A tool from texts (no `listing`; a
/// library with the `text-tools` feature) has its input schema (and output
/// schema, if any) checked here and then read in place from its text
/// (nothing is copied into the server, so the text must stay where it is);
/// every `tools/call` is validated against it before `fn` runs. Either way,
/// the same rules and messages. Invalid arguments are a tool execution error (SEP-1303),
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
/// `exclusiveMaximum` or `maximum`, `minimum` >= `exclusiveMaximum`; for an
/// `integer` that admits no other number, bounds no integer meets:
/// `minimum: 2.5` with `maximum: 2.9`, `exclusiveMinimum: 2` with
/// `exclusiveMaximum: 3`).
///
/// A library built without the `text-tools` feature (the `minimal`
/// profile) takes built tools only: their schemas were checked by
/// `emcp-gen` at build time, with the same checker.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer, uninitialised server, bad name, unknown
///         annotation bits, a tool without `MCP_TOOL_READ_ONLY` whose
///         `max_result_len` is 0 (`mcp_server_schema_error` says so), or a
///         malformed schema (not JSON, root not
///         `"type":"object"`, a keyword with a wrong value, an empty `enum`, a
///         `required` name missing from `properties`), or one that contradicts
///         itself (above); or a nonzero `schema_seal` that does not match the
///         schemas (`mcp_server_schema_error` gives the seal they have); or a
///         built tool whose listing is not one JSON object naming it, without its
///         programs, or whose programs are not its schemas' (with the
///         checker) or cannot be read (without); or a program without a
///         listing. `mcp_server_schema_error` says which.
/// @retval -MCP_ENOTSUP The schema uses a keyword the validator does not
///         implement (it is never ignored silently), or the tool sets
///         `principals`, `min_interval_ms` or `idempotency_key` and the
///         library was built without the `policy` feature, or it is a tool
///         from texts and the library was built without `text-tools`
///         (`mcp_server_schema_error` names emcp-gen).
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EEXIST A tool with this name is registered.
/// @retval -MCP_ENOSPC Every tool slot is taken (`MCP_MAX_TOOLS`, or the
///         slots given with `mcp_server_set_tool_storage`);
///         `mcp_server_schema_error` names the limit to raise. Schemas take
///         no server storage (they are read from the text on each call), so
///         no schema table can fill.
///
/// @pre `server` must have been initialised with `mcp_server_init`; `tool` must
/// point to a valid definition whose strings outlive the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_tool(
    server: *mut mcp_server_t,
    tool: *const mcp_tool_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    // SAFETY: forwarded caller promises.
    unsafe { register(server, tool, r#fn, user, false) }
}

/// Replaces the registered tool of the same name with `tool`, checked and
/// compiled as `mcp_server_add_tool` does: a gateway's device that comes
/// back with a changed schema. The tool keeps its place in `tools/list`, its
/// enabled switch and its rate limit's last run; its largest result starts
/// again. Open listen streams are told the list changed. A tool from texts
/// compiled into program storage takes new storage (the old is not
/// reclaimed: size the storage for the replacements a program expects).
///
/// @retval 0 Success.
/// @retval -MCP_ENOENT No tool has `tool->name`.
/// @retval -MCP_EINVAL, -MCP_ENOTSUP, -MCP_EILSEQ, -MCP_ENOSPC As for
///         `mcp_server_add_tool`; the registered tool is then unchanged.
///         -MCP_ENOTSUP also from a library without `text-tools` (the
///         minimal profile, whose generated tools do not change).
///
/// @pre As for `mcp_server_add_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_replace_tool(
    server: *mut mcp_server_t,
    tool: *const mcp_tool_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: forwarded caller promises.
    unsafe { register(server, tool, r#fn, user, true) }
}

/// `mcp_server_add_tool`, or with `replace` `mcp_server_replace_tool`.
///
/// # Safety
/// As for `mcp_server_add_tool`.
unsafe fn register(
    server: *mut mcp_server_t,
    tool: *const mcp_tool_t,
    r#fn: mcp_tool_fn,
    user: *mut c_void,
    replace: bool,
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
    // Every text is read first (any invalid UTF-8 is -MCP_EILSEQ), then the
    // required ones are checked (-MCP_EINVAL).
    // SAFETY: the caller promises NUL-terminated strings (or NULL) that
    // outlive the server.
    let texts = || unsafe {
        Ok((
            c_text(t.name)?,
            c_text(t.title)?,
            c_text(t.description)?,
            c_text(t.input_schema)?,
            c_text(t.output_schema)?,
            c_text(t.icons)?,
            c_text(t.principals)?,
            c_text(t.idempotency_key)?,
        ))
    };
    let (name, title, description, input_schema, output_schema, icons, principals, idempotency_key) =
        match texts() {
            Ok((Some(n), title, d, Some(i), o, icons, p, k)) => (n, title, d, i, o, icons, p, k),
            Ok(_) => return -MCP_EINVAL,
            Err(e) => return e,
        };
    // SAFETY: the caller promises `*_len` readable bytes at each non-NULL
    // program, and a NUL-terminated listing, all outliving the server.
    let (input_program, output_program, listing) = unsafe {
        match (
            program(t.input_program, t.input_program_len),
            program(t.output_program, t.output_program_len),
            c_text(t.listing),
        ) {
            (Ok(i), Ok(o), Ok(l)) => (i, o, l),
            (_, _, Err(e)) => return e,
            _ => return -MCP_EINVAL,
        }
    };
    let args = match (t.args.is_null(), t.args_len) {
        (true, 0) => None,
        (true, _) => return -MCP_EINVAL,
        // SAFETY: the caller promises `args_len` slots at a non-NULL `args`,
        // outliving the server.
        (false, n) => Some(crate::schema::typed::Layout {
            slots: unsafe { core::slice::from_raw_parts(t.args, n) },
            size: t.args_size,
        }),
    };
    let entry = Tool {
        args,
        input_program,
        output_program,
        listing,
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
    let done = match replace {
        #[cfg(feature = "text-tools")]
        true => s.tools.replace(entry, t.schema_seal),
        _ => s.add_tool_sealed(entry, t.schema_seal),
    };
    match done {
        Ok(()) => {
            // SAFETY: the server is initialised; open streams learn of the new tool.
            unsafe { catalog::mcp_server_notify_list_changed(server, MCP_LIST_TOOLS) };
            0
        }
        Err(e) => register_errno(e),
    }
}

/// Gives the server storage that tools from texts are compiled into. Each
/// tool from texts registered afterwards (`mcp_server_add_tool` without a
/// `listing`) is checked as always, then compiled here as `emcp-gen`
/// builds a tool: its `tools/list` entry and its schemas' argument
/// programs. Its calls then run the one interpreter of programs and
/// `tools/list` copies its entry, as for a built tool; nothing is read from
/// its texts again. A tool takes its entry's length plus its programs'
/// (about the length of its schemas and description); `mcp_server_usage`
/// reports the bytes used (`programs`). A tool that no longer fits is
/// refused with -MCP_ENOSPC (`mcp_server_schema_error` says how much was
/// left). Without storage, a tool from texts is validated from its text on
/// every call, as before.
///
/// @param server An initialised server, before the tools it is for are registered.
/// @param mem    The storage (any alignment); the server writes it, so the
///               program must not touch it, and it must outlive the server.
/// @param len    Bytes at `mem`.
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL `server` or `mem`, or `len` 0.
/// @retval -MCP_EEXIST Storage was given already.
/// @retval -MCP_ENOTSUP The library was built without `text-tools`
///         (built tools carry their programs).
///
/// @pre `server` initialised; no `mcp_server_handle` call on it running.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_program_storage(
    server: *mut mcp_server_t,
    mem: *mut c_void,
    len: usize,
) -> c_int {
    require_feature!("text-tools");
    // SAFETY: `slot_mut` checks NULL and the magic word first.
    let Some(slot) = (unsafe { slot_mut(server) }) else {
        return -MCP_EINVAL;
    };
    if mem.is_null() || len == 0 {
        return -MCP_EINVAL;
    }
    // SAFETY: the caller promises `len` writable bytes that outlive the
    // server and that it does not touch.
    let store = unsafe { core::slice::from_raw_parts_mut(mem.cast::<u8>(), len) };
    #[cfg(feature = "text-tools")]
    if slot.server.tools.set_store(store).is_err() {
        return -MCP_EEXIST;
    }
    #[cfg(not(feature = "text-tools"))]
    let _ = (slot, store);
    0
}

/// Caller-owned storage for one tool slot, e.g.
/// `static mcp_tool_slot_t slots[300];` (see `mcp_server_set_tool_storage`).
/// Its contents are private to the library; size and alignment are checked
/// at compile time against the library's own layout.
#[repr(C)]
pub struct mcp_tool_slot_t {
    /// Opaque storage; 8-byte aligned through its element type.
    pub opaque: [u64; MCP_TOOL_SLOT_WORDS],
}

// `count` slots hold `count` ToolSlots, then their `count` disabled flags.
const _: () = assert!(
    core::mem::size_of::<crate::registry::ToolSlot<'static>>()
        + core::mem::size_of::<core::sync::atomic::AtomicBool>()
        <= core::mem::size_of::<mcp_tool_slot_t>()
);
const _: () = assert!(
    core::mem::align_of::<crate::registry::ToolSlot<'static>>()
        <= core::mem::align_of::<mcp_tool_slot_t>()
);

/// The most slots `mcp_server_set_tool_storage` takes: a tool's index must
/// fit the duplicate table's tag (`crate::dedup`).
const MAX_SLOTS: usize = 1 << 22;

/// Gives the server a tool table of `count` slots that the program owns,
/// used instead of the `MCP_MAX_TOOLS` slots inside `mcp_server_t`: the
/// server then holds `count` tools, each with everything a tool has per slot
/// (its enable switch, rate limit, largest result, duplicate-table tag), as
/// safe to use from several threads as before. Nothing is allocated: e.g.
/// `static mcp_tool_slot_t slots[300];` (`MCP_TOOL_SLOT_SIZE` bytes each),
/// or an array sized at start-up from a count the program reads. Tools
/// registered before move into the new slots, with their state; a server
/// may be given slots again (more, say), as long as no call runs. A
/// firmware that needs a fixed number sets `MCP_MAX_TOOLS` instead
/// (`EMCP_LIMITS`); one that never calls this links none of it.
/// `mcp_server_usage` reports the capacity.
///
/// @param server The server (`mcp_server_init`).
/// @param slots  `count` slots, aligned as `mcp_tool_slot_t` (8 bytes),
///               used by nothing else and valid while the server is.
/// @param count  How many: at least the tools registered so far, at most
///               4,194,304.
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL pointer or uninitialised server.
/// @retval -MCP_EDOM `slots` is not aligned to 8 bytes (`_Alignof(mcp_tool_slot_t)`:
///         a byte buffer cast to it, say).
/// @retval -MCP_ENOBUFS `count` is 0 or below the number of tools registered.
/// @retval -MCP_ERANGE `count` is above 4,194,304.
///
/// @pre `server` must have been initialised with `mcp_server_init`, with no
/// other call on it running; `slots` must point to `count` writable
/// `mcp_tool_slot_t` that outlive the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_tool_storage(
    server: *mut mcp_server_t,
    slots: *mut mcp_tool_slot_t,
    count: usize,
) -> c_int {
    // SAFETY: `slot_mut` checks NULL and the magic word first; the caller
    // promises no other call on the server runs.
    let Some(s) = (unsafe { slot_mut(server) }) else {
        return -MCP_EINVAL;
    };
    if slots.is_null() {
        return -MCP_EINVAL;
    }
    if slots as usize % core::mem::align_of::<mcp_tool_slot_t>() != 0 {
        return -MCP_EDOM;
    }
    if count == 0 || count < s.server.tools.len() {
        return -MCP_ENOBUFS;
    }
    if count > MAX_SLOTS {
        return -MCP_ERANGE;
    }
    let first = slots.cast::<crate::registry::ToolSlot<'static>>();
    // SAFETY: the caller promises `count` writable mcp_tool_slot_t, aligned
    // (checked above) and outliving the server. They hold `count` ToolSlots
    // (aligned like the array) followed by `count` one-byte flags: a
    // ToolSlot and a flag fit one mcp_tool_slot_t (asserted at compile
    // time). Every element is written before the slices are formed, so they
    // hold only valid values, and the two do not overlap.
    let (given, off) = unsafe {
        let flags = first.add(count).cast::<core::sync::atomic::AtomicBool>();
        for i in 0..count {
            first.add(i).write(crate::registry::ToolSlot::new());
            flags
                .add(i)
                .write(core::sync::atomic::AtomicBool::new(false));
        }
        (
            core::slice::from_raw_parts_mut(first, count),
            core::slice::from_raw_parts(flags, count),
        )
    };
    match s.server.tools.set_storage(given, off) {
        Ok(()) => 0,
        Err(crate::registry::StorageError::TooSmall) => -MCP_ENOBUFS,
    }
}

/// Describes the last schema that `mcp_server_add_tool` refused, as
/// NUL-terminated text: which schema, the path of the offending keyword or
/// value in it, and what is wrong, e.g.
/// `inputSchema: properties.p.pattern: unsupported keyword`,
/// `inputSchema: properties.steps.items.properties.rpm.default: 9 is above maximum 3`,
/// `outputSchema: properties.lo.maximum: 3 is below minimum 5`,
/// `inputSchema: properties.a.type[1]: unknown type name at "int"`.
/// A full tool table is described too: `tool table full: raise MCP_MAX_TOOLS (16)`,
/// or, with slots given: `tool table full: give mcp_server_set_tool_storage
/// more slots (300)`,
/// and an undeclared result size: `max_result_len 0: a tool without
/// readOnlyHint must declare the most bytes its result writes
/// (mcp_server_tool_usage reports the largest written)`.
///
/// @return The length written (without the NUL); 0 when no schema was refused.
/// @retval -MCP_EINVAL NULL pointer, `cap` 0, or uninitialised server.
/// @retval -MCP_ENOBUFS `cap` is too small (the text is cut and terminated).
///
/// @pre `server` must have been initialised; `buf` writable for `cap` bytes.
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
    let mut m = crate::schema::MsgBuf::new();
    if let Some(e) = slot.server.tools.last_error {
        e.describe(&mut m);
    }
    copy_message(&m, out)
}

/// Copies `m` into `out` NUL-terminated: its length, or -MCP_ENOBUFS when cut.
fn copy_message(m: &crate::schema::MsgBuf, out: &mut [u8]) -> c_int {
    let text = m.as_bytes();
    let n = text.len().min(out.len().saturating_sub(1));
    if let (Some(dst), Some(src)) = (out.get_mut(..n), text.get(..n)) {
        crate::json::copy_bytes(dst, src);
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

/// Checks a tool's schemas as `mcp_server_add_tool` does in a library with
/// the schema checker, and writes their seal for `mcp_tool_t.schema_seal`.
/// A firmware built without the checker (the `minimal` profile) registers a
/// tool only with the seal of its exact schema texts, so the checking moves
/// to the build: a host program (`emcp-seal`, or the firmware's own host
/// test) calls this on the same texts and the firmware carries the result.
///
/// @param input_schema  The tool's `input_schema` (required).
/// @param output_schema Its `output_schema`, or NULL.
/// @param seal          Receives the seal (never 0) on success.
/// @param why           Receives why a schema was refused, as
///                      `mcp_server_schema_error` words it; or NULL.
/// @param why_cap       Bytes at `why`.
///
/// @retval 0 Success: `*seal` is set.
/// @retval -MCP_EINVAL NULL `input_schema` or `seal`, or a schema
///         `mcp_server_add_tool` refuses with -MCP_EINVAL.
/// @retval -MCP_ENOTSUP A schema uses a keyword the validator does not
///         implement, or this library was built without the schema checker
///         (it cannot vouch for a text; `*seal` is not set).
/// @retval -MCP_EILSEQ A schema is not valid UTF-8.
///
/// @pre The schemas are NUL-terminated; `seal` is writable; `why` is NULL or
/// writable for `why_cap` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_schema_seal(
    input_schema: *const c_char,
    output_schema: *const c_char,
    seal: *mut u32,
    why: *mut c_char,
    why_cap: usize,
) -> c_int {
    // SAFETY: the caller promises NUL-terminated strings (or NULL).
    let texts = unsafe { (c_text(input_schema), c_text(output_schema)) };
    let (input, output) = match texts {
        (Ok(Some(i)), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => return e,
        (Ok(None), _) => return -MCP_EINVAL,
    };
    if seal.is_null() {
        return -MCP_EINVAL;
    }
    match crate::registry::seal_checked(input, output) {
        Ok(v) => {
            // SAFETY: checked non-NULL; the caller promises it is writable.
            unsafe { seal.write(v) };
            0
        }
        Err(None) => -MCP_ENOTSUP,
        Err(Some(e)) => {
            // SAFETY: the caller promises `why_cap` writable bytes at `why`.
            if let Some(out) = unsafe { out_buf(why, why_cap) } {
                let mut m = crate::schema::MsgBuf::new();
                e.describe(&mut m);
                copy_message(&m, out);
            }
            register_errno(RegisterError::Schema(e.error.kind))
        }
    }
}
