//! Every limit of the library, as named constants.
//!
//! These are exported to `include/emcp_limits.h` by cbindgen; the README's
//! sizing table lists the same values. Change a limit here and regenerate the
//! headers (`cbindgen/README.md`).

/// JSON values (object keys included) per request. A count that bounds the
/// work of one request; nothing is stored per value (the request is read in
/// place). A request holding more is answered with -32600.
pub const MCP_MAX_JSON_TOKENS: usize = 128;

/// Deepest JSON nesting accepted in a request; deeper is answered with -32600.
pub const MCP_MAX_DEPTH: usize = 16;

/// Tools a server holds in its own storage (`mcp_server_t`); registration
/// beyond it returns `-MCP_ENOSPC`. A program that sizes its tool table at
/// run time gives the server slots of its own instead
/// (`mcp_server_set_tool_storage`, `MCP_TOOL_SLOT_SIZE` bytes each).
pub const MCP_MAX_TOOLS: usize = 16;

/// Size in bytes of one tool slot (`mcp_tool_slot_t`): a registered tool
/// with its rate state, largest-result counter and enabled switch. The
/// server holds `MCP_MAX_TOOLS` tools inside `MCP_SERVER_SIZE`; a program
/// that sizes its table at run time gives it an array of slots of its own
/// instead (`mcp_server_set_tool_storage`). For the pointer width of the target, as
/// `MCP_SERVER_SIZE` (checked at compile time against the library's layout).
#[cfg(target_pointer_width = "64")]
pub const MCP_TOOL_SLOT_SIZE: usize = 184;
/// Size in bytes of one tool slot on a 32-bit target (see the 64-bit form):
/// the 96 bytes `MCP_SERVER_SIZE` counts per tool and the tool's one-byte
/// enabled switch, rounded up to 8 bytes.
#[cfg(not(target_pointer_width = "64"))]
pub const MCP_TOOL_SLOT_SIZE: usize = 104;

/// `MCP_TOOL_SLOT_SIZE` in 8-byte words (the element count of
/// `mcp_tool_slot_t`).
pub const MCP_TOOL_SLOT_WORDS: usize = MCP_TOOL_SLOT_SIZE / 8;

/// Longest tool name in bytes (the MCP recommendation: 1 to 128 characters of
/// `[A-Za-z0-9_.-]`).
pub const MCP_MAX_TOOL_NAME_LEN: usize = 128;

/// Longest JSON-RPC id, in bytes as written (quotes included for strings).
/// A longer id is answered with -32600 and id null.
pub const MCP_MAX_ID_LEN: usize = 64;

/// Smallest response buffer `mcp_server_handle` accepts. A buffer this large
/// always holds an error response with an id of `MCP_MAX_ID_LEN` bytes, so a
/// response that does not fit can always be replaced by an error that does.
pub const MCP_MIN_RESPONSE_CAP: usize = 192;

/// Size in bytes of `mcp_server_t`, the caller's static storage for a server,
/// for the pointer width of the target (the header picks the formula by
/// `UINTPTR_MAX`, the library by its target; each is checked at compile time
/// against the library's real layout). On 64-bit hosts a tool takes 184 bytes
/// (with its rate state, its largest-result counter and its enabled switch),
/// a resource 104 and a prompt 128; on 32-bit targets 96, 56 and 88 (rounded
/// up to 8; what the server's layout does not use of them is shared).
/// Schemas take nothing here: they are read from the registered text. A
/// tool slot the caller gives (`mcp_server_set_tool_storage`) takes
/// `MCP_TOOL_SLOT_SIZE`.
#[cfg(target_pointer_width = "64")]
pub const MCP_SERVER_SIZE: usize =
    400 + MCP_MAX_TOOLS * 184 + MCP_MAX_RESOURCES * 104 + MCP_MAX_PROMPTS * 128 + 64;
/// Size in bytes of `mcp_server_t` on a 32-bit target (see the 64-bit form).
#[cfg(not(target_pointer_width = "64"))]
pub const MCP_SERVER_SIZE: usize =
    256 + MCP_MAX_TOOLS * 96 + MCP_MAX_RESOURCES * 56 + MCP_MAX_PROMPTS * 88;

/// `MCP_SERVER_SIZE` in 8-byte words (the element count of `mcp_server_t`).
pub const MCP_SERVER_WORDS: usize = MCP_SERVER_SIZE / 8;

/// Bytes of the JSON array `mcp_protocol_versions_json` writes: every
/// protocol version the core answers, newest first
/// (`["2026-07-28","2025-11-25",...]`).
pub const MCP_PROTOCOL_VERSIONS_JSON_LEN: usize = 66;

/// Size of `mcp_framer_t` in pointer-sized words (32 bytes on a 32-bit MCU).
pub const MCP_FRAMER_WORDS: usize = 8;

/// JSON values (object keys included) of one schema text. Schemas are not
/// copied or compiled into the server: calls read the registered text in
/// place, so this bounds the work of registration and validation, not memory.
pub const MCP_MAX_SCHEMA_TOKENS: usize = 256;
/// JSON values (object keys included) of a tool's structuredContent when it
/// is checked against an outputSchema (a count; nothing is stored per value).
pub const MCP_MAX_OUTPUT_TOKENS: usize = 64;
/// Significant digits of a schema's `multipleOf` (`0.05` has 1,
/// `1.23456789` has 9): the divisor must fit in 64 bits for the exact check.
/// A schema with more fails registration with `-MCP_EINVAL`. Fixed (not
/// overridable at build time).
pub const MCP_MAX_MULTIPLE_OF_DIGITS: u32 = 19;
/// Longest validation error message, in bytes; longer ones end in "...".
pub const MCP_MAX_ERROR_MESSAGE: usize = 160;

/// Longest notification (progress, log message) a tool can send, in bytes;
/// built on the callback's stack.
pub const MCP_MAX_NOTIFICATION: usize = 256;

/// Longest `requestState` payload a tool can set for a multi-round-trip
/// call, in bytes (sent base64url-encoded with a 32-byte MAC).
pub const MCP_MAX_REQUEST_STATE: usize = 64;

/// Entries of a duplicate table (`mcp_dedup_t`); the oldest is evicted first.
pub const MCP_DEDUP_SLOTS: usize = 8;
/// Longest idempotency key, in bytes; a call with a longer one is refused as
/// invalid arguments (an isError result, keyword `maxLength`; SEP-1303).
pub const MCP_DEDUP_KEY_MAX: usize = 64;
/// Largest result kept for replay, in bytes; a repeat of a call whose result
/// was larger gets an isError refusal instead (the tool still never runs twice).
pub const MCP_DEDUP_RESULT_MAX: usize = 512;
/// How long a key is remembered, in milliseconds of the request clock.
pub const MCP_DEDUP_WINDOW_MS: u32 = 600_000;
/// Size of `mcp_dedup_t` in 8-byte words (its header holds the lock, the
/// store pointer and the log length).
pub const MCP_DEDUP_WORDS: usize =
    (32 + MCP_DEDUP_SLOTS * (24 + MCP_DEDUP_KEY_MAX + MCP_DEDUP_RESULT_MAX)) / 8;

/// Largest durable record (`mcp_store_t`): a 10-byte header (12 bytes for a
/// tool beyond the 64th, in a table of more slots), the key, the result (at most
/// `MCP_DEDUP_RESULT_MAX` bytes) and a 4-byte CRC-32.
pub const MCP_STORE_RECORD_MAX: usize = 16 + MCP_DEDUP_KEY_MAX + MCP_DEDUP_RESULT_MAX;
/// Bytes a store's log may reach before the core compacts it (rewrites it
/// with one record per live entry of the table, at most `MCP_DEDUP_SLOTS`
/// records of `MCP_STORE_RECORD_MAX` bytes). A backend must hold this much.
pub const MCP_STORE_LOG_MAX: usize = 16384;

/// `Mcp-Param-*` headers compared per request (on the stack of
/// `mcp_server_handle`, 32 bytes each); more are answered with -32020.
pub const MCP_MAX_HEADER_PARAMS: usize = 8;

/// Resources and resource templates a server can hold together; registration
/// beyond it returns `-MCP_ENOSPC`.
pub const MCP_MAX_RESOURCES: usize = 8;

/// Prompts a server can hold; registration beyond it returns `-MCP_ENOSPC`.
pub const MCP_MAX_PROMPTS: usize = 6;

/// Required arguments a prompt may declare.
pub const MCP_MAX_PROMPT_ARGS: usize = 8;

/// Variables a resource template may hold (`{name}` expressions).
pub const MCP_MAX_TEMPLATE_VARS: usize = 4;

/// Longest resource URI in bytes (after JSON unescaping) that `resources/read`
/// matches against templates and a listen stream subscribes to.
pub const MCP_MAX_URI_LEN: usize = 128;

/// Resource URIs one `subscriptions/listen` stream can subscribe to; more are
/// left out of the acknowledgement (not honoured).
pub const MCP_MAX_LISTEN_URIS: usize = 4;

/// Most values in one `completion/complete` result (the protocol's cap); a
/// callback offering more gets `hasMore: true` and the count in `total`.
pub const MCP_MAX_COMPLETIONS: usize = 100;

/// Size of `mcp_listener_t` in 8-byte words: one listen stream's id, filter
/// and subscribed URIs.
pub const MCP_LISTENER_WORDS: usize =
    (96 + MCP_MAX_ID_LEN + MCP_MAX_LISTEN_URIS * (MCP_MAX_URI_LEN + 8)) / 8;

/// Size of `mcp_roundtrip_t` in 8-byte words: the bookkeeping of one
/// legacy-era call waiting for the client's answers (its buffer is separate).
pub const MCP_ROUNDTRIP_WORDS: usize = 10;

/// Server-to-client requests one round of a legacy-era call may send (more:
/// the call is answered with -32603).
pub const MCP_ROUNDTRIP_MAX_REQUESTS: usize = 4;

/// Rounds of server-to-client requests one legacy-era call may ask for
/// (more: the call is answered with -32603).
pub const MCP_ROUNDTRIP_MAX_ROUNDS: usize = 4;

/// Bytes of a round-trip buffer that hold the keys of one round's input
/// requests, as JSON strings with their quotes.
pub const MCP_ROUNDTRIP_KEY_SPACE: usize = 128;

/// Smallest buffer `mcp_roundtrip_init` accepts. The buffer holds the
/// call's id and input-request keys (`MCP_MAX_ID_LEN +
/// MCP_ROUNDTRIP_KEY_SPACE` bytes), the call itself with the client's
/// answers and the `requestState` inserted, and, while a round starts, a
/// copy of the tool's input requests; 2048 bytes suit a greenhouse-sized
/// elicitation.
pub const MCP_ROUNDTRIP_MIN_BUF: usize = 512;

/// The return codes, flags and kinds (`crate::abi`), so the core reaches every
/// constant of the C ABI as `crate::limits::MCP_*`.
pub use crate::abi::*;
