//! The C ABI's data types: what `include/emcp.h` declares, with the layout C
//! sees (`#[repr(C)]`). Conversion to the core's safe types is in `mod.rs`.

use core::ffi::{c_char, c_int, c_void};

use crate::limits::{MCP_DEDUP_WORDS, MCP_LISTENER_WORDS, MCP_SERVER_WORDS};
/// The `mcp_request_ctx_t.flags` bits, defined with the rules they switch on.
pub use crate::protocol::envelope::{
    MCP_CTX_DUPLICATE_HEADER, MCP_CTX_HTTP, MCP_CTX_LEGACY_ELICITATION, MCP_CTX_LEGACY_LOG,
    MCP_CTX_LEGACY_NO_SESSION, MCP_CTX_LEGACY_ROOTS, MCP_CTX_LEGACY_SAMPLING,
};

/// Caller-owned storage for one server, e.g. `static mcp_server_t server;`.
/// Its contents are private to the library; size and alignment are checked at
/// compile time against the library's own layout.
#[repr(C)]
pub struct mcp_server_t {
    /// Opaque storage; 8-byte aligned through its element type.
    pub opaque: [u64; MCP_SERVER_WORDS],
}

/// A byte span (not NUL-terminated). `ptr == NULL` means absent; a non-NULL
/// `ptr` with `len == 0` is present and empty.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_str_t {
    /// First byte, or NULL when absent.
    pub ptr: *const c_char,
    /// Length in bytes.
    pub len: usize,
}

/// One `Mcp-Param-{name}` HTTP header as received.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_header_param_t {
    /// The part of the header name after `Mcp-Param-`.
    pub name: mcp_str_t,
    /// The header value as received.
    pub value: mcp_str_t,
}

/// Sends one complete JSON-RPC notification on the transport of the current
/// exchange (for example progress). Returns 0 or a negative `MCP_E*` value.
pub type mcp_emit_fn =
    Option<extern "C" fn(transport_context: *mut c_void, message: *const u8, len: usize) -> c_int>;

/// What a transport knows about one exchange. Zero-initialise it and fill what
/// the transport has; every span is absent when its `ptr` is NULL. It is read
/// only during the `mcp_server_handle` call it is passed to.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_request_ctx_t {
    /// The transport's own state for this exchange (a socket, a CoAP session);
    /// opaque to the library and valid only during the exchange.
    pub transport_context: *mut c_void,
    /// The identity the transport authenticated ("local" on stdio).
    pub principal: mcp_str_t,
    /// HTTP `MCP-Protocol-Version` header, as received.
    pub protocol_version: mcp_str_t,
    /// HTTP `Mcp-Method` header, as received.
    pub method: mcp_str_t,
    /// HTTP `Mcp-Name` header, as received.
    pub name: mcp_str_t,
    /// HTTP `Mcp-Param-*` headers, as received (`params_len` entries).
    pub params: *const mcp_header_param_t,
    /// Number of entries in `params`.
    pub params_len: usize,
    /// Sends a notification within this exchange; NULL when the transport cannot.
    pub emit: mcp_emit_fn,
    /// The caller's monotonic clock in milliseconds.
    pub now_ms: u64,
    /// `MCP_CTX_*` flags: what the transport knows about the routing headers
    /// (`MCP_CTX_HTTP`, `MCP_CTX_DUPLICATE_HEADER`), the legacy session
    /// (`MCP_CTX_LEGACY_NO_SESSION`) and what it carries for a legacy client
    /// (`MCP_CTX_LEGACY_LOG`, `MCP_CTX_LEGACY_ELICITATION`, `_SAMPLING`,
    /// `_ROOTS`); 0 for none (stdio, UART).
    pub flags: u32,
    /// The transport's duplicate table (see `mcp_tool_t.idempotency_key`), or
    /// NULL: then repeated idempotency keys are not detected.
    pub dedup: *mut mcp_dedup_t,
    /// Storage for a `subscriptions/listen` stream this exchange may open
    /// (one per stream the transport can hold open), or NULL when the
    /// transport cannot stream: then listen is answered with -32601 and
    /// `server/discover` advertises no list changes. Needs `emit`.
    pub listener: *mut mcp_listener_t,
    /// Storage for a legacy-era call that asks the client for input, or
    /// NULL. With it (and an `MCP_CTX_LEGACY_ELICITATION`, `_SAMPLING` or
    /// `_ROOTS` flag), such a call is answered with the server-to-client
    /// requests (`MCP_RESPONSE_CLIENT_REQUEST`), the client's responses to
    /// them, handed to `mcp_server_handle` like any message, are matched
    /// by id, and the call's final response follows the last of them. See
    /// `mcp_roundtrip_t`.
    pub roundtrip: *mut super::roundtrip::mcp_roundtrip_t,
    /// The transport's identity of this request, or empty: the same bytes
    /// when the request is redelivered or retried (the MQTT binding: a
    /// digest of Response Topic, Correlation Data, principal and payload),
    /// at most `MCP_DEDUP_KEY_MAX` bytes (longer: not used). A call of a
    /// tool that declares `mcp_tool_t.idempotency_key` whose arguments carry
    /// no key is then keyed by it in `dedup` (durable with its store), apart
    /// from argument keys: a retry of it is answered as a repeated key is.
    pub retry_key: mcp_str_t,
}

/// Caller-owned storage for one open `subscriptions/listen` stream. When
/// `mcp_server_handle` reports `MCP_RESPONSE_LISTEN`, the listener is attached
/// to the server: list changes and resource updates go to it through the
/// `emit` of the exchange that opened it, until `mcp_server_listen_end`.
#[repr(C)]
pub struct mcp_listener_t {
    /// Opaque storage; 8-byte aligned through its element type.
    pub opaque: [u64; MCP_LISTENER_WORDS],
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

/// Details of a handled request, for the transport.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct mcp_response_info_t {
    /// 0 when the response is a result; otherwise the JSON-RPC error code sent.
    pub rpc_error: i32,
    /// The HTTP status to send: 200, 202 (notification: no body), 400 or 404.
    pub http_status: u16,
    /// `MCP_RESPONSE_*` flags: `MCP_RESPONSE_LISTEN` when the response is the
    /// acknowledgement of a listen stream to keep open.
    pub flags: u16,
}

/// Server identity and list policy for `mcp_server_init`.
/// The strings must stay valid (and unchanged) for the server's lifetime.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_server_config_t {
    /// `serverInfo.name` (required, UTF-8).
    pub name: *const c_char,
    /// `serverInfo.version` (required, non-empty, UTF-8).
    pub version: *const c_char,
    /// `serverInfo.title`, or NULL.
    pub title: *const c_char,
    /// Guidance for the model (`instructions`), or NULL.
    pub instructions: *const c_char,
    /// `ttlMs` on `server/discover` and `tools/list` results (0 = always refetch).
    pub list_ttl_ms: u32,
    /// `MCP_CACHE_PRIVATE` or `MCP_CACHE_PUBLIC`.
    pub cache_scope: u32,
    /// Most tools per `tools/list` page (0: as many as fit the response
    /// buffer). Further tools are reached with the `nextCursor` returned.
    pub list_page_size: u32,
}

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
    /// callback does NOT run (see `mcp_server_handle`). The envelope is
    /// checked for every tool; 0 declares nothing more. A callback can ask
    /// `mcp_result_space` before it acts.
    pub max_result_len: usize,
}

/// Caller-owned duplicate table for tools with an idempotency key,
/// initialised with `mcp_dedup_init`. Several `mcp_server_handle` calls may
/// use one table at once (e.g. one table for every transport of a server, so
/// a key repeated over another transport runs once too): lookups and claims
/// take the table's lock word for a scan of `MCP_DEDUP_SLOTS` entries, never
/// while a tool runs; a call that cannot get it within a bounded number of
/// tries, or that finds every entry running, is answered busy (isError,
/// retry) and its tool does not run.
#[repr(C)]
pub struct mcp_dedup_t {
    /// Opaque storage; 8-byte aligned through its element type.
    pub opaque: [u64; MCP_DEDUP_WORDS],
}
