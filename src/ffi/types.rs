//! The C ABI's data types: what `include/emcp.h` declares, with the layout C
//! sees (`#[repr(C)]`). Conversion to the core's safe types is in `mod.rs`.

use core::ffi::{c_char, c_int, c_void};

use crate::limits::{MCP_DEDUP_WORDS, MCP_LISTENER_WORDS, MCP_ROUNDTRIP_WORDS, MCP_SERVER_WORDS};
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
    pub roundtrip: *mut mcp_roundtrip_t,
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

/// Caller-owned storage for one legacy-era (2025-11-25) tool call, prompt or
/// resource read waiting for the client's answers to server-to-client
/// requests, e.g. `static mcp_roundtrip_t rt;` (`MCP_ROUNDTRIP_WORDS` words)
/// with a buffer passed to `mcp_roundtrip_init`. Its contents are private.
///
/// At 2026-07-28 a tool that asks for input (`mcp_result_elicit`,
/// `mcp_result_sample`, `mcp_result_list_roots`) answers `input_required`
/// and the client retries; a 2025-11-25 client instead expects the server
/// to send it `elicitation/create` (`sampling/createMessage`, `roots/list`)
/// while the call is open. With `mcp_request_ctx_t.roundtrip` pointing to
/// free storage and the `MCP_CTX_LEGACY_*` flags of what the client declared
/// at `initialize` (reported on the answer to `initialize` as
/// `MCP_RESPONSE_CLIENT_*` bits of `mcp_response_info_t.flags`), the library
/// does that exchange:
///
/// 1. `mcp_server_handle` answers such a call with the round's requests, one
///    JSON-RPC request per line with ids of ours (counting up from
///    `first_id`), and sets `MCP_RESPONSE_CLIENT_REQUEST`: send them, keep
///    reading.
/// 2. Each client response, handed to `mcp_server_handle` with the same
///    context (or to `mcp_roundtrip_answer`), is matched by id and kept;
///    until the last one nothing is to be sent (0, HTTP status 202). A
///    response that matches nothing gets no answer either (0, `rpc_error`
///    -32600, HTTP status 400). The client's `notifications/cancelled` for
///    the waiting call abandons it: nothing is sent for it, ever (0, 202).
/// 3. With the last one the call runs again with the answers under
///    `params.inputResponses` and its MAC-protected `requestState`, and its
///    final response (to the call's own id) is the output, or the next
///    round's requests.
///
/// While the storage is busy (or the call does not fit its buffer), other
/// requests are served as usual and a second call asking for input sees a
/// client without the capability. A client's error response, more than
/// `MCP_ROUNDTRIP_MAX_ROUNDS` rounds or `MCP_ROUNDTRIP_MAX_REQUESTS`
/// requests, or answers that overflow the buffer end the call with -32603.
/// The state lives in the storage and its buffer only: nothing is added to
/// `mcp_server_t`, and storage is needed only where a client can be asked.
/// Not locked: use one storage from one exchange at a time.
#[repr(C)]
pub struct mcp_roundtrip_t {
    /// Opaque storage; 8-byte aligned through its element type.
    pub opaque: [u64; MCP_ROUNDTRIP_WORDS],
}
