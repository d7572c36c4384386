//! The tool table: definitions, callbacks and their order.
//!
//! Owns: checking a definition once at registration (name syntax, schema is a
//! JSON object, UTF-8 everywhere; a built tool's listing and programs) and
//! keeping tools in registration order, which is the `tools/list` order; a
//! tool's own `tools/list` entry ([`listing`], what emcp-gen builds in).
//! Must not: run tools or write responses.

pub use crate::handler::{Handler, mcp_call_t, mcp_result_t, mcp_tool_fn};
use crate::json::{WriteError, Writer};
use crate::limits::{MCP_MAX_TOOL_NAME_LEN, MCP_MAX_TOOLS};
use crate::rate::RateClaim;
use crate::schema::typed::Layout;
use crate::schema::{self, MsgBuf, SchemaError, SchemaErrorKind, Span};
use crate::sync::Critical;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Annotation flags (a tool's behaviour hints), as exported to C.
pub mod hints {
    pub use crate::limits::{
        MCP_TOOL_DESTRUCTIVE as DESTRUCTIVE, MCP_TOOL_IDEMPOTENT as IDEMPOTENT,
        MCP_TOOL_OPEN_WORLD as OPEN_WORLD, MCP_TOOL_READ_ONLY as READ_ONLY,
    };
    /// Every defined flag.
    pub(crate) const ALL: u32 = READ_ONLY | DESTRUCTIVE | IDEMPOTENT | OPEN_WORLD;
}

/// One registered tool, with its text checked and its callback.
#[derive(Clone, Copy)]
pub struct Tool<'a> {
    /// Unique name, 1 to `MCP_MAX_TOOL_NAME_LEN` bytes of `[A-Za-z0-9_.-]`.
    pub name: &'a str,
    /// Human-readable title.
    pub title: Option<&'a str>,
    /// What the tool does, for the model.
    pub description: Option<&'a str>,
    /// JSON Schema of the arguments (a JSON object), written minified in lists.
    pub input_schema: &'a str,
    /// JSON Schema of `structuredContent`, when declared.
    pub output_schema: Option<&'a str>,
    /// The argument program of `input_schema` ([`schema::emit`], as
    /// `emcp-gen` writes it). With `listing`, the tool is registered as
    /// built: calls run the programs and `tools/list` copies the listing.
    pub input_program: Option<&'a [u8]>,
    /// The program of `output_schema` (a built tool with an output schema).
    pub output_program: Option<&'a [u8]>,
    /// The tool's whole `tools/list` entry as `emcp-gen` wrote it (one JSON
    /// object, minified): with it the tool is registered as built.
    pub listing: Option<&'a str>,
    /// A built tool's typed argument struct ([`schema::typed`]), when
    /// `emcp-gen` generated one: `mcp_call_args` fills it.
    pub args: Option<Layout<'a>>,
    /// [`hints`] flags; 0 means no `annotations` object is listed.
    pub annotations: u32,
    /// A JSON array of Icon objects, listed as written.
    pub icons: Option<&'a str>,
    /// Comma-separated principals that may see and call the tool; `None` for all.
    pub principals: Option<&'a str>,
    /// Minimum milliseconds between two runs (0: no limit).
    pub min_interval_ms: u32,
    /// Name of the argument carrying an idempotency key, if the tool has one.
    pub idempotency_key: Option<&'a str>,
    /// Most bytes the callback writes into its result (content blocks and
    /// structuredContent); a call is refused unrun when the response buffer
    /// cannot hold them with the result's envelope. Required (nonzero) for a
    /// tool without the read-only hint: registration refuses it otherwise
    /// ([`RegisterError::ResultLenUndeclared`]). 0 on a read-only tool:
    /// undeclared (only the envelope is checked).
    pub max_result_len: usize,
    /// What runs when the tool is called.
    pub handler: Handler,
}

impl<'a> Tool<'a> {
    /// A tool with only the required parts; set the other fields as needed.
    pub const fn new(name: &'a str, input_schema: &'a str, handler: Handler) -> Self {
        Tool {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            input_program: None,
            output_program: None,
            listing: None,
            args: None,
            annotations: 0,
            icons: None,
            principals: None,
            min_interval_ms: 0,
            idempotency_key: None,
            max_result_len: 0,
            handler,
        }
    }
}

/// A registered tool as the table keeps it: what every call needs, and
/// how the tool describes itself ([`Def`]).
#[derive(Clone, Copy)]
pub struct Entry<'a> {
    /// Unique name.
    pub name: &'a str,
    /// [`hints`] flags.
    pub annotations: u32,
    /// Comma-separated principals that may see and call the tool; `None` for all.
    pub principals: Option<&'a str>,
    /// Minimum milliseconds between two runs (0: no limit).
    pub min_interval_ms: u32,
    /// Name of the argument carrying an idempotency key, if the tool has one.
    pub idempotency_key: Option<&'a str>,
    /// Most bytes the callback writes into its result ([`Tool::max_result_len`]).
    pub max_result_len: usize,
    /// What runs when the tool is called.
    pub handler: Handler,
    /// Its description and schemas.
    pub def: Def<'a>,
}

/// How a registered tool describes itself: from its texts, read on every
/// call, or as `emcp-gen` built it (the listing a copy, the schemas
/// programs). Either takes the same slot.
#[derive(Clone, Copy)]
pub enum Def<'a> {
    /// Registered from texts.
    #[cfg(feature = "text-tools")]
    Text {
        /// Human-readable title.
        title: Option<&'a str>,
        /// What the tool does, for the model.
        description: Option<&'a str>,
        /// JSON Schema of the arguments.
        input_schema: &'a str,
        /// JSON Schema of `structuredContent`, when declared.
        output_schema: Option<&'a str>,
        /// A JSON array of Icon objects.
        icons: Option<&'a str>,
    },
    /// Built at build time.
    Built {
        /// The whole `tools/list` entry, one minified JSON object.
        listing: &'a str,
        /// The argument program.
        input: &'a [u8],
        /// The program of the output schema, when declared.
        output: Option<&'a [u8]>,
        /// Its typed argument struct, when it has one.
        args: Option<Layout<'a>>,
    },
}

impl<'a> Entry<'a> {
    /// The input schema's text, for a tool registered from texts.
    pub fn input_schema(&self) -> Option<&'a str> {
        match self.def {
            #[cfg(feature = "text-tools")]
            Def::Text { input_schema, .. } => Some(input_schema),
            Def::Built { .. } => None,
        }
    }

    /// The typed argument struct of a built tool that has one.
    pub fn args(&self) -> Option<Layout<'a>> {
        match self.def {
            Def::Built { args, .. } => args,
            #[cfg(feature = "text-tools")]
            Def::Text { .. } => None,
        }
    }

    /// The argument program, for a built tool.
    pub fn input_program(&self) -> Option<&'a [u8]> {
        match self.def {
            Def::Built { input, .. } => Some(input),
            #[cfg(feature = "text-tools")]
            Def::Text { .. } => None,
        }
    }
}

/// Why a tool could not be registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// Name empty, too long or with characters outside `[A-Za-z0-9_.-]`;
    /// unknown annotation bits.
    BadDefinition,
    /// A schema is malformed, uses an unsupported keyword, contradicts
    /// itself, or does not fit the schema tables; [`Registry::last_error`]
    /// says which and where.
    Schema(SchemaErrorKind),
    /// The name is taken.
    Duplicate,
    /// No tool has the name (a replacement).
    Missing,
    /// Every tool slot is taken: the server's own `MCP_MAX_TOOLS` and any
    /// given with [`Registry::set_storage`] ([`Registry::last_error`] says so).
    Full,
    /// The definition uses a part of the core this build left out (a
    /// principal list, rate limit or idempotency key without the `policy`
    /// feature); it would otherwise be ignored silently.
    Unsupported,
    /// A tool without the read-only hint declares no `max_result_len`: it
    /// could act and then find its answer does not fit the response buffer
    /// ([`Registry::last_error`] says so).
    ResultLenUndeclared,
}

/// The last schema refused by registration: what, where, and in which text.
/// A full tool table is reported here too (`text` empty, `seals.0` its
/// size), so that every
/// `-MCP_ENOSPC` says which limit to raise.
#[derive(Clone, Copy, Debug)]
pub struct LastSchemaError<'a> {
    /// The problem.
    pub error: SchemaError,
    /// True for the output schema, false for the input schema.
    pub output: bool,
    /// The schema text `error.at` points into.
    pub text: &'a str,
    /// For a [`SchemaErrorKind::Seal`] error: the seal the tool gave, and
    /// the one its schemas have (0 in a build without `schema-check`, which
    /// never tells: a seal must come from a build that checked the texts).
    pub seals: (u32, u32),
}

/// The reason of a seal that does not match, in a build that checks (the
/// right seal follows).
#[cfg(feature = "text-tools")]
const SEAL_STALE: &str = " does not match the schemas, which this build checked (they seal to ";

/// The reason of a built tool's program that is not its schema's: in a
/// build with the checker, one that differs from what the schema text
/// compiles to; without it, one that cannot be read.
const PROGRAM_STALE: &str = "the program is not its schema's: run emcp-gen again";

/// The reason of a typed argument layout that does not fit the tool's
/// input program.
const ARGS_STALE: &str = "the typed argument layout is not its schema's: run emcp-gen again";

/// The reason of a text tool refused by a build without the `text-tools`
/// feature: what to do instead.
#[cfg(not(feature = "text-tools"))]
const TEXT_TOOLS_OUT: &str = "this build takes built tools only: generate the tool with emcp-gen \
     (emcp_generate_tools), or build the library with the text-tools feature";

/// The reason of a tool from texts that does not fit the program storage
/// (the bytes that were left follow).
#[cfg(feature = "text-tools")]
const STORE_FULL: &str = "program storage full (mcp_server_set_program_storage): the tool's listing and programs need more than the bytes left, ";

/// The reason of the tool-table-full error.
const TOOLS_FULL: &str = "tool table full: raise MCP_MAX_TOOLS";
/// The reason of the tool-table-full error of a server given slots by its
/// caller ([`Registry::set_storage`]).
const SLOTS_FULL: &str = "tool table full: give mcp_server_set_tool_storage more slots";

/// Why [`Registry::set_storage`] refused the slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// Fewer slots than tools are registered.
    TooSmall,
}

/// The reason of the undeclared-result error, whole within
/// `MCP_MAX_ERROR_MESSAGE`: what is missing, why, and where to find the
/// number.
const RESULT_UNDECLARED: &str = "max_result_len 0: a tool without readOnlyHint must declare the most bytes its \
     result writes (mcp_server_tool_usage reports the largest written)";

impl LastSchemaError<'_> {
    /// The error as text: `inputSchema: properties.rpm.default: 9 is above
    /// maximum 3`, `outputSchema: properties.p.pattern: unsupported keyword`,
    /// `tool table full: raise MCP_MAX_TOOLS (16)`, `tool table full: give
    /// mcp_server_set_tool_storage more slots (300)`.
    pub fn describe(&self, m: &mut MsgBuf) {
        if self.error.reason == RESULT_UNDECLARED {
            m.push(RESULT_UNDECLARED);
            return;
        }
        #[cfg(not(feature = "text-tools"))]
        if self.error.reason == TEXT_TOOLS_OUT {
            m.push(TEXT_TOOLS_OUT);
            return;
        }
        #[cfg(feature = "text-tools")]
        if self.error.reason == STORE_FULL {
            m.push(STORE_FULL);
            m.push_uint(u64::from(self.seals.0));
            return;
        }
        if self.error.reason == TOOLS_FULL || self.error.reason == SLOTS_FULL {
            // With the table's size, which `seals.0` carries.
            m.push(self.error.reason);
            m.push(" (");
            m.push_uint(u64::from(self.seals.0));
            m.push(")");
            return;
        }
        if self.error.kind == SchemaErrorKind::Seal {
            m.push("schema_seal ");
            m.push_hex32(self.seals.0);
            m.push(self.error.reason);
            if self.seals.1 != 0 {
                m.push_hex32(self.seals.1);
                m.push(")");
            }
            return;
        }
        m.push(if self.output {
            "outputSchema: "
        } else {
            "inputSchema: "
        });
        if cfg!(feature = "schema-check") {
            self.error.describe(self.text, m);
        } else {
            // Without the checker the only schema error left is a malformed
            // text, which has no path: the checker's words for it, without
            // linking the path writer.
            m.push(self.error.reason);
            m.push(" at ");
            m.push_value(self.error.at.of(self.text), 60);
        }
    }
}

/// One tool slot: the tool and the state every call of it shares (its rate
/// word, its largest result, its enabled switch). The server holds
/// `MCP_MAX_TOOLS` of them; a program that needs another number gives the
/// server slots of its own instead ([`Registry::set_storage`],
/// `mcp_server_set_tool_storage`, `MCP_TOOL_SLOT_SIZE` bytes each). The
/// enabled switch is kept apart, one byte per slot ([`Switches`]), so that
/// a slot has no padding (96 bytes on a 32-bit target).
///
/// [`Switches`]: crate::sync::Switches
pub struct ToolSlot<'a> {
    /// The registered tool, or `None`.
    pub(crate) entry: Option<Entry<'a>>,
    /// The clock (mod 2^32) of the tool's last run, or
    /// [`crate::rate::NEVER`]: its rate limit ([`crate::rate`]).
    pub(crate) last: AtomicU32,
    /// The largest result its callback has written, in bytes (what
    /// `max_result_len` counts): a high-water mark raised atomically by
    /// every call ([`crate::sync::raise`]).
    pub(crate) largest: AtomicU32,
}

impl ToolSlot<'_> {
    /// An empty slot.
    pub const fn new() -> Self {
        ToolSlot {
            entry: None,
            last: AtomicU32::new(crate::rate::NEVER),
            largest: AtomicU32::new(0),
        }
    }
}

impl Default for ToolSlot<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// The tool table: `MCP_MAX_TOOLS` slots of its own, or the slots the
/// caller gives instead ([`Registry::set_storage`]); schemas stay in their
/// text (see [`schema::Schema`]).
pub struct Registry<'a> {
    /// The server's own slots.
    pub(crate) tools: [ToolSlot<'a>; MCP_MAX_TOOLS],
    /// Which of them are disabled (not listed, not callable): plain atomic
    /// loads and stores, safe to flip while requests are served (Cortex-M0
    /// has them).
    pub(crate) on: crate::sync::Switches<MCP_MAX_TOOLS>,
    /// The caller's slots and their disabled flags, used instead of the
    /// server's own when given.
    pub(crate) more: Option<(&'a mut [ToolSlot<'a>], &'a [AtomicBool])>,
    pub(crate) len: usize,
    /// The last schema registration refused, for diagnostics.
    pub last_error: Option<LastSchemaError<'a>>,
    /// Most tools per `tools/list` page; 0 for as many as fit the buffer.
    pub page_size: u32,
    /// Caller storage that tools from texts are compiled into (their
    /// listing and programs), what is left of it, and how much is used.
    #[cfg(feature = "text-tools")]
    pub(crate) store: Option<&'a mut [u8]>,
    /// Bytes of [`Registry::store`] the compiled tools use.
    #[cfg(feature = "text-tools")]
    pub(crate) store_used: usize,
}

impl<'a> Registry<'a> {
    /// An empty table.
    pub const fn new() -> Self {
        Registry {
            tools: [const { ToolSlot::new() }; MCP_MAX_TOOLS],
            on: crate::sync::Switches::new(),
            more: None,
            len: 0,
            last_error: None,
            page_size: 0,
            #[cfg(feature = "text-tools")]
            store: None,
            #[cfg(feature = "text-tools")]
            store_used: 0,
        }
    }

    /// Gives the storage that tools from texts registered from now on are
    /// compiled into (see [`Registry::compile_into_store`]). Given once.
    #[cfg(feature = "text-tools")]
    pub fn set_store(&mut self, store: &'a mut [u8]) -> Result<(), RegisterError> {
        if self.store.is_some() || self.store_used != 0 {
            return Err(RegisterError::Duplicate);
        }
        self.store = Some(store);
        Ok(())
    }

    /// Bytes of program storage the compiled tools use, and the storage's
    /// size (0, 0 without storage).
    pub fn store_usage(&self) -> (usize, usize) {
        #[cfg(feature = "text-tools")]
        {
            let left = self.store.as_ref().map_or(0, |b| b.len());
            (self.store_used, self.store_used + left)
        }
        #[cfg(not(feature = "text-tools"))]
        (0, 0)
    }

    /// A tool from texts compiled into the program storage, when the
    /// caller gave some: its listing (what `tools/list` would write from
    /// the texts) and its programs, so it is served as a built tool (one
    /// interpreter, one listing path). `Ok(None)` without storage.
    // Out of line: the listing writer's and the compiler's frames are on
    // the stack of a registration only when there is storage to compile into.
    #[cfg(feature = "text-tools")]
    #[inline(never)]
    fn compile_into_store(&mut self, tool: &Tool<'a>) -> Result<Option<Def<'a>>, RegisterError> {
        let Some(buf) = self.store.take() else {
            return Ok(None);
        };
        // Written where they go, then split off once all three fit.
        let nl = listing(tool, buf).ok();
        let ni = nl.and_then(|nl| schema::emit(tool.input_schema, buf.get_mut(nl..)?).ok());
        let no = match (nl, ni, tool.output_schema) {
            (Some(nl), Some(ni), Some(o)) => buf
                .get_mut(nl + ni..)
                .and_then(|rest| schema::emit(o, rest).ok())
                .map(Some),
            (_, _, None) => Some(None),
            _ => None,
        };
        let (Some(nl), Some(ni), Some(no)) = (nl, ni, no) else {
            let left = buf.len();
            self.store = Some(buf);
            self.last_error = Some(LastSchemaError {
                error: SchemaError {
                    kind: SchemaErrorKind::Full,
                    reason: STORE_FULL,
                    at: Span::default(),
                    bound: None,
                },
                output: false,
                text: "",
                seals: (u32::try_from(left).unwrap_or(u32::MAX), 0),
            });
            return Err(RegisterError::Full);
        };
        let (l, rest) = buf.split_at_mut(nl);
        let (i, rest) = rest.split_at_mut(ni);
        let (o, rest) = rest.split_at_mut(no.unwrap_or(0));
        self.store = Some(rest);
        self.store_used += nl + ni + no.unwrap_or(0);
        let (l, i, o): (&'a [u8], &'a [u8], &'a [u8]) = (l, i, o);
        let listing = core::str::from_utf8(l).map_err(|_| RegisterError::BadDefinition)?;
        Ok(Some(Def::Built {
            listing,
            input: i,
            output: no.map(|_| o),
            args: None,
        }))
    }

    /// Uses `slots`, with their disabled flags `off` (one each), instead of
    /// the table's own `MCP_MAX_TOOLS` (or of slots given before): the
    /// table then holds `slots.len()` tools. The tools registered so far
    /// move into them, with their switches, rate words and largest results;
    /// the rest are emptied. Refused when fewer slots than tools are
    /// registered, or fewer flags than slots ([`StorageError::TooSmall`]).
    pub fn set_storage(
        &mut self,
        slots: &'a mut [ToolSlot<'a>],
        off: &'a [AtomicBool],
    ) -> Result<(), StorageError> {
        if slots.len() < self.len || off.len() < slots.len() {
            return Err(StorageError::TooSmall);
        }
        let (old, old_off) = self.slots();
        for (i, (s, f)) in slots.iter_mut().zip(off).enumerate() {
            *s = ToolSlot::new();
            f.store(false, Ordering::Relaxed);
            if let Some(o) = old.get(i).filter(|_| i < self.len) {
                s.entry = o.entry;
                let word = |w: &AtomicU32| AtomicU32::new(w.load(Ordering::Relaxed));
                s.last = word(&o.last);
                s.largest = word(&o.largest);
                f.store(
                    old_off.get(i).is_some_and(|b| b.load(Ordering::Relaxed)),
                    Ordering::Relaxed,
                );
            }
        }
        self.more = Some((slots, off));
        Ok(())
    }

    /// The slots in use and their disabled flags: the caller's when given,
    /// else the table's own.
    fn slots(&self) -> (&[ToolSlot<'a>], &[AtomicBool]) {
        match &self.more {
            Some((m, off)) => (m, off),
            None => (&self.tools, &self.on.off),
        }
    }

    /// Tools the table can hold: `MCP_MAX_TOOLS`, or the slots given.
    pub fn capacity(&self) -> usize {
        self.slots().0.len()
    }

    /// Slot `index`.
    fn slot(&self, index: usize) -> Option<&ToolSlot<'a>> {
        self.slots().0.get(index)
    }

    /// Slot `index`, to register into.
    pub(crate) fn slot_mut(&mut self, index: usize) -> Option<&mut ToolSlot<'a>> {
        match &mut self.more {
            Some((m, _)) => m.get_mut(index),
            None => self.tools.get_mut(index),
        }
    }

    /// Whether tool `index` is listed and callable.
    pub fn enabled(&self, index: usize) -> bool {
        self.slots()
            .1
            .get(index)
            .is_some_and(|f| !f.load(Ordering::Relaxed))
    }

    /// Enables or disables tool `index`; returns whether the state changed.
    /// Single atomic loads and stores: safe while requests are served.
    pub fn set_enabled(&self, index: usize, on: bool) -> bool {
        let Some(f) = self.slots().1.get(index) else {
            return false;
        };
        let was_on = !f.load(Ordering::Relaxed);
        f.store(!on, Ordering::Relaxed);
        was_on != on
    }

    /// For tool `index` with minimum interval `interval_ms`: `Ok` when it may
    /// run at `now_ms`, or `Err(ms until it may run)`. A query only: nothing
    /// is claimed (see [`Registry::rate_claim`]).
    pub fn rate_check(&self, index: usize, interval_ms: u32, now_ms: u64) -> Result<(), u32> {
        crate::rate::check(self.slot(index).map(|s| &s.last), interval_ms, now_ms)
    }

    /// Claims a run of tool `index` at `now_ms`, atomically
    /// ([`crate::rate::claim`]): `Err(ms until it may run)` when the
    /// interval has not passed, else `Ok` with the claim (`None` without a
    /// limit, or beyond the table).
    pub fn rate_claim(
        &self,
        index: usize,
        interval_ms: u32,
        now_ms: u64,
        crit: Option<Critical>,
    ) -> Result<Option<RateClaim<'_>>, u32> {
        crate::rate::claim(self.slot(index).map(|s| &s.last), interval_ms, now_ms, crit)
    }

    /// Records that tool `index` wrote a result of `len` bytes, keeping the
    /// largest; safe from any number of concurrent calls (`crit` is used
    /// only on a target without compare-and-swap).
    pub(crate) fn record_result(&self, index: usize, len: usize, crit: Option<&Critical>) {
        if let Some(word) = self.slot(index).map(|s| &s.largest) {
            let len = u32::try_from(len).unwrap_or(u32::MAX);
            crate::sync::raise(word, len, crit);
        }
    }

    /// The largest result tool `index` has written so far, in bytes (0: none
    /// yet, or no such tool).
    pub fn largest_result(&self, index: usize) -> usize {
        self.slot(index)
            .map_or(0, |s| s.largest.load(Ordering::Relaxed) as usize)
    }

    /// Adds `tool` at the end of the list. `seal` is its schemas' seal
    /// ([`schema::seal`]), or 0: a build with the `schema-check` feature
    /// checks the schemas and refuses a nonzero seal that does not match; a
    /// build without it registers the tool only with the matching seal. The
    /// seal is not kept (a tool slot costs no RAM for it).
    pub fn add(&mut self, tool: Tool<'a>, seal: u32) -> Result<(), RegisterError> {
        self.put(tool, seal, None)
    }

    /// Replaces the registered tool of `tool`'s name with `tool`, checked as
    /// [`Registry::add`] checks it: its place in the list, its switch and
    /// its rate word stay, its largest result starts again. (A tool from
    /// texts compiled into program storage takes new storage; the old is
    /// not reclaimed.) [`RegisterError::Missing`] when no tool has the name.
    #[cfg(feature = "text-tools")]
    pub fn replace(&mut self, tool: Tool<'a>, seal: u32) -> Result<(), RegisterError> {
        let Some((index, _)) = self.position_by(|n| n == tool.name) else {
            return Err(RegisterError::Missing);
        };
        self.put(tool, seal, Some(index))
    }

    /// [`Registry::add`] (`at` None) or [`Registry::replace`] of the tool at `at`.
    fn put(&mut self, tool: Tool<'a>, seal: u32, at: Option<usize>) -> Result<(), RegisterError> {
        if !valid_name(tool.name)
            || tool.annotations & !hints::ALL != 0
            || matches!(tool.handler, Handler::C(None, _))
        {
            return Err(RegisterError::BadDefinition);
        }
        if tool.icons.is_some_and(|i| !is_json_array(i)) {
            return Err(RegisterError::BadDefinition);
        }
        // Programs and typed arguments belong to a built tool (with its
        // listing): never ignored.
        if tool.listing.is_none()
            && (tool.input_program.is_some()
                || tool.output_program.is_some()
                || tool.args.is_some())
        {
            return Err(RegisterError::BadDefinition);
        }
        if !cfg!(feature = "policy")
            && (tool.principals.is_some()
                || tool.min_interval_ms != 0
                || tool.idempotency_key.is_some())
        {
            return Err(RegisterError::Unsupported);
        }
        if at.is_none() && self.find_by(|n| n == tool.name).is_some() {
            return Err(RegisterError::Duplicate);
        }
        // A tool that may act must say how much it answers, so that a call
        // whose answer cannot be delivered never runs it.
        if tool.annotations & hints::READ_ONLY == 0 && tool.max_result_len == 0 {
            self.last_error = Some(LastSchemaError {
                error: SchemaError {
                    kind: SchemaErrorKind::Invalid,
                    reason: RESULT_UNDECLARED,
                    at: Span::default(),
                    bound: None,
                },
                output: false,
                text: "",
                seals: (0, 0),
            });
            return Err(RegisterError::ResultLenUndeclared);
        }
        if at.is_none() && self.len >= self.capacity() {
            let size = self.capacity();
            self.last_error = Some(LastSchemaError {
                error: SchemaError {
                    kind: SchemaErrorKind::Full,
                    reason: if self.more.is_some() {
                        SLOTS_FULL
                    } else {
                        TOOLS_FULL
                    },
                    at: Span::default(),
                    bound: None,
                },
                output: false,
                text: "",
                seals: (u32::try_from(size).unwrap_or(u32::MAX), 0),
            });
            return Err(RegisterError::Full);
        }
        let def = match tool.listing {
            Some(listing) => self.check_built(&tool, listing)?,
            #[cfg(feature = "text-tools")]
            None => {
                self.check_schemas(&tool, seal)?;
                match self.compile_into_store(&tool)? {
                    Some(built) => built,
                    None => Def::Text {
                        title: tool.title,
                        description: tool.description,
                        input_schema: tool.input_schema,
                        output_schema: tool.output_schema,
                        icons: tool.icons,
                    },
                }
            }
            #[cfg(not(feature = "text-tools"))]
            None => {
                let _ = seal;
                self.last_error = Some(LastSchemaError {
                    error: SchemaError {
                        kind: SchemaErrorKind::Unsupported,
                        reason: TEXT_TOOLS_OUT,
                        at: Span::default(),
                        bound: None,
                    },
                    output: false,
                    text: "",
                    seals: (0, 0),
                });
                return Err(RegisterError::Unsupported);
            }
        };
        let entry = Entry {
            name: tool.name,
            annotations: tool.annotations,
            principals: tool.principals,
            min_interval_ms: tool.min_interval_ms,
            idempotency_key: tool.idempotency_key,
            max_result_len: tool.max_result_len,
            handler: tool.handler,
            def,
        };
        let Some(index) = at else {
            let slot = self.slot_mut(self.len).ok_or(RegisterError::Full)?;
            slot.entry = Some(entry);
            self.len += 1;
            return Ok(());
        };
        let slot = self.slot_mut(index).ok_or(RegisterError::Missing)?;
        slot.entry = Some(entry);
        slot.largest.store(0, Ordering::Relaxed);
        Ok(())
    }

    /// Checks a text tool's schemas with the checker; a seal, if given
    /// ([`schema::seal`]), must be theirs.
    #[cfg(feature = "text-tools")]
    fn check_schemas(&mut self, tool: &Tool<'a>, given: u32) -> Result<(), RegisterError> {
        // A text tool is taken only by a library with the checker
        // (`text-tools` brings `schema-check`): the texts are checked here,
        // and a seal, if given, must be theirs.
        let verdict = check_texts(tool.input_schema, tool.output_schema).and_then(|()| {
            let want = schema::seal(tool.input_schema, tool.output_schema);
            if given == want || given == 0 {
                return Ok(());
            }
            Err(LastSchemaError {
                error: SchemaError {
                    kind: SchemaErrorKind::Seal,
                    reason: SEAL_STALE,
                    at: Span::default(),
                    bound: None,
                },
                output: false,
                text: tool.input_schema,
                seals: (given, want),
            })
        });
        verdict.map_err(|e| {
            self.last_error = Some(e);
            RegisterError::Schema(e.error.kind)
        })
    }

    /// Checks a built tool: its listing is one JSON object naming the tool,
    /// and it has the programs its schemas need. With the checker, each program must be
    /// exactly what its schema text compiles to (the texts are checked on the
    /// way); without it, each must be one it can read. No seal: the programs
    /// are what the generator's checker accepted.
    fn check_built(&mut self, tool: &Tool<'a>, listing: &'a str) -> Result<Def<'a>, RegisterError> {
        let Some(input) = tool.input_program else {
            return Err(RegisterError::BadDefinition);
        };
        // One JSON object whose first member is the tool's own name (so the
        // list never shows a name other than the one calls find).
        let named = crate::json::scan::top_level_member(listing.as_bytes(), b"name")
            .and_then(|v| v.strip_prefix(b"\""))
            .and_then(|v| v.strip_suffix(b"\""))
            == Some(tool.name.as_bytes());
        if tool.output_program.is_some() != tool.output_schema.is_some()
            || !listing.starts_with('{')
            || !named
            || crate::json::check(listing.as_bytes(), crate::limits::MCP_MAX_DEPTH).is_err()
        {
            return Err(RegisterError::BadDefinition);
        }
        let pairs = [
            (Some(tool.input_schema), Some(input), false),
            (tool.output_schema, tool.output_program, true),
        ];
        for (text, prog, output) in pairs {
            let (Some(text), Some(prog)) = (text, prog) else {
                continue;
            };
            let verdict = if cfg!(feature = "schema-check") {
                schema::emit::matches(text, prog)
            } else {
                Ok(schema::program::root(prog).is_some())
            };
            let error = match verdict {
                Ok(true) => continue,
                Ok(false) => SchemaError {
                    kind: SchemaErrorKind::Invalid,
                    reason: PROGRAM_STALE,
                    at: Span::default(),
                    bound: None,
                },
                Err(e) => e,
            };
            let e = LastSchemaError {
                error,
                output,
                text,
                seals: (0, 0),
            };
            self.last_error = Some(e);
            return Err(RegisterError::Schema(e.error.kind));
        }
        if tool.args.is_some_and(|a| !schema::typed::check(input, &a)) {
            let e = LastSchemaError {
                error: SchemaError {
                    kind: SchemaErrorKind::Invalid,
                    reason: ARGS_STALE,
                    at: Span::default(),
                    bound: None,
                },
                output: false,
                text: tool.input_schema,
                seals: (0, 0),
            };
            self.last_error = Some(e);
            return Err(RegisterError::Schema(e.error.kind));
        }
        Ok(Def::Built {
            listing,
            input,
            output: tool.output_program,
            args: tool.args,
        })
    }

    /// Tools in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry<'a>> {
        self.slots()
            .0
            .iter()
            .take(self.len)
            .filter_map(|s| s.entry.as_ref())
    }

    /// Number of registered tools.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first tool whose name satisfies `pred`, with its index.
    pub fn position_by(&self, mut pred: impl FnMut(&str) -> bool) -> Option<(usize, &Entry<'a>)> {
        self.iter().enumerate().find(|(_, t)| pred(t.name))
    }

    /// The first tool whose name satisfies `pred`.
    pub fn find_by(&self, mut pred: impl FnMut(&str) -> bool) -> Option<&Entry<'a>> {
        self.iter().find(|t| pred(t.name))
    }
}

/// The `tools/list` entry of a tool defined by its texts: what the list
/// writes for a text tool, and what `emcp-gen` writes as a built tool's
/// listing ([`listing`]).
pub(crate) fn text_entry(w: &mut Writer<'_>, t: &Tool<'_>) -> Result<(), WriteError> {
    let _ = w.begin_object();
    let _ = w.kv_str("name", t.name);
    if let Some(v) = t.title {
        let _ = w.kv_str("title", v);
    }
    if let Some(v) = t.description {
        let _ = w.kv_str("description", v);
    }
    let _ = w.key("inputSchema");
    let _ = w.minified_value(t.input_schema.as_bytes());
    if let Some(v) = t.output_schema {
        let _ = w.key("outputSchema");
        let _ = w.minified_value(v.as_bytes());
    }
    if let Some(v) = t.icons {
        let _ = w.key("icons");
        let _ = w.minified_value(v.as_bytes());
    }
    if t.annotations != 0 {
        // With any hint given, all four are stated, so none falls back to the
        // protocol defaults (destructive and open-world) by omission.
        let _ = w.key("annotations");
        let _ = w.begin_object();
        if let Some(v) = t.title {
            let _ = w.kv_str("title", v);
        }
        // A constant table (a local array would be built on the stack).
        const HINTS: [(&str, u32); 4] = [
            ("readOnlyHint", hints::READ_ONLY),
            ("destructiveHint", hints::DESTRUCTIVE),
            ("idempotentHint", hints::IDEMPOTENT),
            ("openWorldHint", hints::OPEN_WORLD),
        ];
        for &(key, bit) in &HINTS {
            let _ = w.key(key);
            let _ = w.bool(t.annotations & bit != 0);
        }
        let _ = w.end_object();
    }
    let _ = w.end_object();
    w.status()
}

/// Writes the `tools/list` entry of `tool` (its texts) into `out`, as a
/// server lists it: its length. What `emcp-gen` puts in a built tool's
/// `listing`, so that a built tool is listed byte for byte as the same
/// tool registered from its texts.
pub fn listing(tool: &Tool<'_>, out: &mut [u8]) -> Result<usize, WriteError> {
    let mut w = Writer::new(out);
    text_entry(&mut w, tool)?;
    Ok(w.len())
}

impl Default for Registry<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks a tool's schema texts with the checker (only a build with
/// `schema-check` calls it: registration of a text tool, `mcp_schema_seal`).
fn check_texts<'a>(input: &'a str, output: Option<&'a str>) -> Result<(), LastSchemaError<'a>> {
    for (text, output) in [(Some(input), false), (output, true)] {
        let Some(text) = text else { continue };
        schema::compile(text)
            .map(|_| ())
            .map_err(|error| LastSchemaError {
                error,
                output,
                text,
                seals: (0, 0),
            })?;
    }
    Ok(())
}

/// What `mcp_schema_seal` does: checks the texts as registration does and
/// returns their seal; `Err(None)` in a build without `schema-check`, which
/// cannot vouch for a text.
pub fn seal_checked<'a>(
    input: &'a str,
    output: Option<&'a str>,
) -> Result<u32, Option<LastSchemaError<'a>>> {
    if !cfg!(feature = "schema-check") {
        return Err(None);
    }
    check_texts(input, output).map_err(Some)?;
    Ok(schema::seal(input, output))
}

/// True when `text` is one JSON array (any size, bounded depth).
fn is_json_array(text: &str) -> bool {
    crate::json::is_container(text, b'[', crate::limits::MCP_MAX_DEPTH)
}

pub(crate) fn valid_name(name: &str) -> bool {
    matches!(name.len(), 1..=MCP_MAX_TOOL_NAME_LEN)
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::c_void;

    extern "C" fn nop(_: *const mcp_call_t, _: *mut mcp_result_t, _: *mut c_void) -> i32 {
        0
    }

    /// A read-only tool (`nop` writes nothing, so it has no result size to
    /// declare).
    fn tool(name: &'static str, schema: &'static str) -> Tool<'static> {
        Tool {
            annotations: hints::READ_ONLY,
            ..Tool::new(name, schema, Handler::C(Some(nop), core::ptr::null_mut()))
        }
    }

    /// A tool that may act must declare the most its result writes, or it
    /// could run and then find its answer does not fit; a read-only one may
    /// leave it undeclared.
    #[test]
    #[cfg_attr(not(feature = "text-tools"), ignore = "needs the text-tools feature")]
    fn refuses_an_actuator_that_declares_no_result_len() {
        let schema = r#"{"type":"object"}"#;
        let seal = crate::schema::seal(schema, None);
        let mut r = Registry::new();
        for annotations in [
            0,
            hints::DESTRUCTIVE | hints::IDEMPOTENT | hints::OPEN_WORLD,
        ] {
            let actuator = Tool {
                annotations,
                ..tool("valve", schema)
            };
            assert_eq!(
                r.add(actuator, seal),
                Err(RegisterError::ResultLenUndeclared)
            );
            assert_eq!(r.len(), 0, "a refused tool takes no slot");
            let mut m = MsgBuf::new();
            r.last_error.unwrap().describe(&mut m);
            // Whole: the fix it names is not cut off.
            assert_eq!(
                m.as_str(),
                "max_result_len 0: a tool without readOnlyHint must declare the most bytes its \
                 result writes (mcp_server_tool_usage reports the largest written)"
            );
        }
        let declared = Tool {
            annotations: 0,
            max_result_len: 30,
            ..tool("valve", schema)
        };
        assert_eq!(r.add(declared, seal), Ok(()));
        assert_eq!(r.add(tool("probe", schema), seal), Ok(()));
        assert_eq!(r.len(), 2);
    }

    /// A text tool: the schemas' own seal registers them and any other is
    /// refused; seal 0 means "check them here".
    #[test]
    #[cfg_attr(not(feature = "text-tools"), ignore = "needs the text-tools feature")]
    fn seals_are_checked() {
        let schema = r#"{"type":"object","properties":{"p":{"type":"integer"}}}"#;
        let seal = crate::schema::seal(schema, None);
        let mut r = Registry::new();
        assert_eq!(
            r.add(tool("wrong", schema), seal ^ 1),
            Err(RegisterError::Schema(SchemaErrorKind::Seal))
        );
        assert_eq!(r.len(), 0, "a refused tool takes no slot");
        assert_eq!(r.add(tool("sealed", schema), seal), Ok(()));
        // Seal 0: "check them here", which a build taking text tools does.
        assert_eq!(r.add(tool("unsealed", schema), 0), Ok(()));
        // Malformed text is refused before any seal is looked at.
        let bad = "{\"type\":";
        assert_eq!(
            r.add(tool("bad", bad), crate::schema::seal(bad, None)),
            Err(RegisterError::Schema(SchemaErrorKind::Malformed))
        );
    }

    #[test]
    #[cfg_attr(not(feature = "text-tools"), ignore = "needs the text-tools feature")]
    fn registers_in_order_and_checks() {
        let mut r = Registry::new();
        r.add(tool("b.tool-1", "{\"type\":\"object\"}"), 0).unwrap();
        r.add(tool("a", " {\"type\":\"object\"} "), 0).unwrap();
        assert_eq!(
            r.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["b.tool-1", "a"]
        );
        assert_eq!(r.add(tool("a", "{}"), 0), Err(RegisterError::Duplicate));
        assert_eq!(r.add(tool("", "{}"), 0), Err(RegisterError::BadDefinition));
        assert_eq!(
            r.add(tool("sp ace", "{}"), 0),
            Err(RegisterError::BadDefinition)
        );
        assert_eq!(
            r.add(tool("x", "[]"), 0),
            Err(RegisterError::Schema(SchemaErrorKind::Invalid))
        );
        assert_eq!(
            r.add(tool("x", "{\"a\":}"), 0),
            Err(RegisterError::Schema(SchemaErrorKind::Malformed))
        );
        let bad = r#"{"type":"object","properties":{"p":{"pattern":"x"}}}"#;
        assert_eq!(
            r.add(tool("x", bad), 0),
            Err(RegisterError::Schema(SchemaErrorKind::Unsupported))
        );
        let last = r.last_error.unwrap();
        assert_eq!(last.error.at.of(last.text), b"\"pattern\"");
        let mut m = MsgBuf::new();
        last.describe(&mut m);
        assert_eq!(
            m.as_str(),
            "inputSchema: properties.p.pattern: unsupported keyword"
        );
        assert_eq!(r.len(), 2);
        let names: Vec<String> = (0..MCP_MAX_TOOLS).map(|i| format!("t{i}")).collect();
        let leaked: Vec<&'static str> = names.into_iter().map(|s| &*s.leak()).collect();
        for n in &leaked[2..] {
            r.add(tool(n, "{\"type\":\"object\"}"), 0).unwrap();
        }
        assert_eq!(r.add(tool("one_more", "{}"), 0), Err(RegisterError::Full));
        let mut m = MsgBuf::new();
        r.last_error.unwrap().describe(&mut m);
        assert_eq!(
            m.as_str(),
            format!("tool table full: raise MCP_MAX_TOOLS ({MCP_MAX_TOOLS})")
        );
    }

    /// Slots given by the caller replace the table's own: the tools
    /// registered so far move into them with their state, every tool in
    /// them is listed in order, has its own switch, rate word and largest
    /// result, and a full table names the limit to raise.
    #[test]
    #[cfg_attr(not(feature = "text-tools"), ignore = "needs the text-tools feature")]
    fn caller_slots_replace_the_table() {
        let slots = |n: usize| -> (&'static mut [ToolSlot<'static>], &'static [AtomicBool]) {
            (
                std::vec::Vec::leak((0..n).map(|_| ToolSlot::new()).collect()),
                std::vec::Vec::leak((0..n).map(|_| AtomicBool::new(true)).collect()),
            )
        };
        let mut r = Registry::new();
        assert_eq!(r.capacity(), MCP_MAX_TOOLS);
        let schema = "{\"type\":\"object\"}";
        r.add(tool("t0", schema), 0).unwrap();
        r.add(tool("t1", schema), 0).unwrap();
        assert!(r.set_enabled(1, false));
        r.record_result(0, 12, None);
        r.rate_claim(0, 1000, 5000, None).unwrap().unwrap().keep();
        let (one, flags) = slots(1);
        assert_eq!(r.set_storage(one, flags), Err(StorageError::TooSmall));
        let (s300, _) = slots(300);
        let (_, f299) = slots(299);
        assert_eq!(
            r.set_storage(s300, f299),
            Err(StorageError::TooSmall),
            "a flag for every slot"
        );
        let (s300, f300) = slots(300);
        r.set_storage(s300, f300).unwrap();
        assert_eq!(r.capacity(), 300);
        // What the two tools had moved with them.
        assert_eq!(r.iter().map(|t| t.name).collect::<Vec<_>>(), ["t0", "t1"]);
        assert!(r.enabled(0) && !r.enabled(1));
        assert!(r.enabled(2), "the given flags start enabled");
        assert_eq!(r.largest_result(0), 12);
        assert_eq!(r.rate_check(0, 1000, 5500), Err(500));
        let names: Vec<String> = (2..300).map(|i| format!("t{i}")).collect();
        for n in names {
            r.add(tool(n.leak(), schema), 0).unwrap();
        }
        assert_eq!(r.len(), 300);
        assert_eq!(r.iter().nth(299).map(|t| t.name), Some("t299"));
        assert_eq!(r.position_by(|n| n == "t200").map(|(i, _)| i), Some(200));
        assert_eq!(r.add(tool("one_more", schema), 0), Err(RegisterError::Full));
        let mut m = MsgBuf::new();
        r.last_error.unwrap().describe(&mut m);
        assert_eq!(
            m.as_str(),
            "tool table full: give mcp_server_set_tool_storage more slots (300)"
        );
        // Per-slot state far past the table's own slots, slot by slot.
        assert!(r.set_enabled(250, false));
        assert!(!r.enabled(250) && r.enabled(249) && r.enabled(251));
        assert!(!r.enabled(300), "no such slot");
        r.record_result(299, 77, None);
        assert_eq!((r.largest_result(299), r.largest_result(298)), (77, 0));
        r.rate_claim(260, 1000, 5000, None).unwrap().unwrap().keep();
        assert_eq!(r.rate_check(260, 1000, 5500), Err(500));
        assert_eq!(r.rate_check(261, 1000, 5500), Ok(()));
        // Moved again, into more slots: everything stays.
        let (s400, f400) = slots(400);
        r.set_storage(s400, f400).unwrap();
        assert_eq!((r.capacity(), r.len()), (400, 300));
        assert!(!r.enabled(250) && !r.enabled(1));
        assert_eq!(r.largest_result(299), 77);
        assert_eq!(r.rate_check(260, 1000, 5500), Err(500));
        r.add(tool("one_more", schema), 0).unwrap();
        assert_eq!(r.iter().nth(300).map(|t| t.name), Some("one_more"));
    }
}
