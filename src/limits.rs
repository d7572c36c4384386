//! Every limit and return code of the library, as named constants.
//!
//! These are exported to `include/emcp.h` by cbindgen; the README's sizing
//! table lists the same values. Change a limit here and regenerate the header.

/// JSON values (object keys included) per request. A count that bounds the
/// work of one request; nothing is stored per value (the request is read in
/// place). A request holding more is answered with -32600.
pub const MCP_MAX_JSON_TOKENS: usize = 128;

/// Deepest JSON nesting accepted in a request; deeper is answered with -32600.
pub const MCP_MAX_DEPTH: usize = 16;

/// Tools a server can hold; registration beyond it returns `-MCP_ENOSPC`.
pub const MCP_MAX_TOOLS: usize = 16;

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
/// (with its rate state), a resource 104 and a prompt 128; on 32-bit targets
/// 96, 56 and 88 (rounded up to 8). Schemas take nothing here: they are read
/// from the registered text.
#[cfg(target_pointer_width = "64")]
pub const MCP_SERVER_SIZE: usize =
    400 + MCP_MAX_TOOLS * 184 + MCP_MAX_RESOURCES * 104 + MCP_MAX_PROMPTS * 128 + 64;
/// Size in bytes of `mcp_server_t` on a 32-bit target (see the 64-bit form).
#[cfg(not(target_pointer_width = "64"))]
pub const MCP_SERVER_SIZE: usize =
    256 + MCP_MAX_TOOLS * 96 + MCP_MAX_RESOURCES * 56 + MCP_MAX_PROMPTS * 88;

/// `MCP_SERVER_SIZE` in 8-byte words (the element count of `mcp_server_t`).
pub const MCP_SERVER_WORDS: usize = MCP_SERVER_SIZE / 8;

/// Success.
pub const MCP_OK: i32 = 0;
/// Operation not allowed in the current state (a result call out of order).
pub const MCP_EPERM: i32 = 1;
/// No such argument, tool or value.
pub const MCP_ENOENT: i32 = 2;
/// The object already exists (a tool name registered twice).
pub const MCP_EEXIST: i32 = 17;
/// An argument is invalid (NULL pointer, uninitialised server, bad name or
/// malformed schema).
pub const MCP_EINVAL: i32 = 22;
/// A fixed table is full (`MCP_MAX_TOOLS`).
pub const MCP_ENOSPC: i32 = 28;
/// The value exists but has another type, or is not an integer.
pub const MCP_EDOM: i32 = 33;
/// The value does not fit the requested C type.
pub const MCP_ERANGE: i32 = 34;
/// Text is not valid UTF-8.
pub const MCP_EILSEQ: i32 = 84;
/// A buffer is too small (response buffer, string destination).
pub const MCP_ENOBUFS: i32 = 105;
/// A transport's I/O failed (a socket, a read or write, the network
/// library), or a durable store (`mcp_store_t`): returned by the bindings,
/// and by the core only from `mcp_dedup_set_store`.
pub const MCP_EIO: i32 = 5;

/// Bytes of the JSON array `mcp_protocol_versions_json` writes: every
/// protocol version the core answers, newest first
/// (`["2026-07-28","2025-11-25",...]`).
pub const MCP_PROTOCOL_VERSIONS_JSON_LEN: usize = 66;

/// JSON-RPC: the request is not valid JSON.
pub const MCP_RPC_PARSE_ERROR: i32 = -32700;
/// JSON-RPC: not a valid request object (batch, wrong `jsonrpc`, bad id).
pub const MCP_RPC_INVALID_REQUEST: i32 = -32600;
/// JSON-RPC: unknown method, or one removed in the request's protocol era.
pub const MCP_RPC_METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC: invalid parameters (missing `_meta` envelope, unknown tool,
/// malformed params; in 2026-07-28 also an unknown resource).
pub const MCP_RPC_INVALID_PARAMS: i32 = -32602;
/// JSON-RPC: internal error (a tool failed, or its result did not fit).
pub const MCP_RPC_INTERNAL_ERROR: i32 = -32603;
/// MCP 2026-07-28: an HTTP routing header disagrees with the body.
pub const MCP_RPC_HEADER_MISMATCH: i32 = -32020;
/// MCP 2026-07-28: the request needs a client capability it did not declare.
pub const MCP_RPC_MISSING_CAPABILITY: i32 = -32021;
/// MCP 2026-07-28: the requested protocol version is not served.
pub const MCP_RPC_UNSUPPORTED_VERSION: i32 = -32022;
/// MCP 2025-11-25: `resources/read` of an unknown URI (2026-07-28 answers
/// `MCP_RPC_INVALID_PARAMS` instead, SEP-2164).
pub const MCP_RPC_RESOURCE_NOT_FOUND: i32 = -32002;

/// Tool annotation flag: `readOnlyHint` (the tool does not change its environment).
pub const MCP_TOOL_READ_ONLY: u32 = 1;
/// Tool annotation flag: `destructiveHint` (the tool may destroy or overwrite state).
pub const MCP_TOOL_DESTRUCTIVE: u32 = 2;
/// Tool annotation flag: `idempotentHint` (repeating a call has no further effect).
pub const MCP_TOOL_IDEMPOTENT: u32 = 4;
/// Tool annotation flag: `openWorldHint` (the tool reaches beyond a closed domain).
pub const MCP_TOOL_OPEN_WORLD: u32 = 8;

/// `cacheScope: "private"`: list results may be cached only per authorization context.
pub const MCP_CACHE_PRIVATE: u32 = 0;
/// `cacheScope: "public"`: list results may be shared across clients.
pub const MCP_CACHE_PUBLIC: u32 = 1;

/// `mcp_arg_type`: a JSON object.
pub const MCP_JSON_OBJECT: i32 = 1;
/// `mcp_arg_type`: a JSON array.
pub const MCP_JSON_ARRAY: i32 = 2;
/// `mcp_arg_type`: a JSON string.
pub const MCP_JSON_STRING: i32 = 3;
/// `mcp_arg_type`: a JSON number.
pub const MCP_JSON_NUMBER: i32 = 4;
/// `mcp_arg_type`: `true` or `false`.
pub const MCP_JSON_BOOL: i32 = 5;
/// `mcp_arg_type`: `null`.
pub const MCP_JSON_NULL: i32 = 6;

/// Try again later: `mcp_framer_poll` found no complete message buffered.
pub const MCP_EAGAIN: i32 = 11;

/// Size of `mcp_framer_t` in pointer-sized words (32 bytes on a 32-bit MCU).
pub const MCP_FRAMER_WORDS: usize = 8;

/// `mcp_framer_next`: a complete message was taken from the receive buffer.
pub const MCP_FRAME_LINE: i32 = 1;
/// `mcp_framer_next`: a line longer than the receive buffer was dropped up to
/// its newline (reported once per dropped line); answer it with
/// `mcp_framer_oversize_response`.
pub const MCP_FRAME_OVERSIZE: i32 = 2;

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

/// A schema uses a keyword (or keyword form) the validator does not implement;
/// also what every function of a Cargo feature left out of the library's
/// build returns (profiles: docs/firmware.md).
pub const MCP_ENOTSUP: i32 = 95;

/// Longest notification (progress, log message) a tool can send, in bytes;
/// built on the callback's stack.
pub const MCP_MAX_NOTIFICATION: usize = 256;

/// Content annotation `audience`: the user.
pub const MCP_AUDIENCE_USER: u32 = 1;
/// Content annotation `audience`: the assistant (the model).
pub const MCP_AUDIENCE_ASSISTANT: u32 = 2;

/// `mcp_log` levels (`notifications/message`), lowest first.
pub const MCP_LOG_DEBUG: i32 = 0;
/// `info`
pub const MCP_LOG_INFO: i32 = 1;
/// `notice`
pub const MCP_LOG_NOTICE: i32 = 2;
/// `warning`
pub const MCP_LOG_WARNING: i32 = 3;
/// `error`
pub const MCP_LOG_ERROR: i32 = 4;
/// `critical`
pub const MCP_LOG_CRITICAL: i32 = 5;
/// `alert`
pub const MCP_LOG_ALERT: i32 = 6;
/// `emergency`
pub const MCP_LOG_EMERGENCY: i32 = 7;

/// Longest `requestState` payload a tool can set for a multi-round-trip
/// call, in bytes (sent base64url-encoded with a 32-byte MAC).
pub const MCP_MAX_REQUEST_STATE: usize = 64;

/// The client did not declare the capability an input request needs (the
/// request is answered with -32021 and `data.requiredCapabilities`).
pub const MCP_EACCES: i32 = 13;

/// Audit outcome: the tool ran and returned a result.
pub const MCP_AUDIT_OK: u32 = 0;
/// Audit outcome: the tool ran and reported an execution error (`isError`).
pub const MCP_AUDIT_IS_ERROR: u32 = 1;
/// Audit outcome: the principal may not call the tool (answered as unknown).
pub const MCP_AUDIT_REFUSED: u32 = 2;
/// Audit outcome: refused by the tool's rate limit; the tool did not run.
pub const MCP_AUDIT_RATE_LIMITED: u32 = 3;
/// Audit outcome: a repeated request answered without running the tool.
pub const MCP_AUDIT_DUPLICATE: u32 = 4;
/// Audit outcome: arguments (or request state) failed validation; the tool did not run.
pub const MCP_AUDIT_INVALID_ARGUMENTS: u32 = 5;
/// Audit outcome: the tool asked the client for input (`input_required`).
pub const MCP_AUDIT_INPUT_REQUIRED: u32 = 6;
/// Audit outcome: the tool ran but the call failed (callback error, result
/// too large, outputSchema mismatch, missing client capability).
pub const MCP_AUDIT_FAILED: u32 = 7;
/// Audit outcome: the response buffer cannot hold the tool's result
/// (`mcp_tool_t.max_result_len` and the envelope); the tool did not run.
pub const MCP_AUDIT_NO_SPACE: u32 = 8;

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

/// Largest durable record (`mcp_store_t`): a 10-byte header, the key, the
/// result (at most `MCP_DEDUP_RESULT_MAX` bytes) and a 4-byte CRC-32.
pub const MCP_STORE_RECORD_MAX: usize = 14 + MCP_DEDUP_KEY_MAX + MCP_DEDUP_RESULT_MAX;
/// Bytes a store's log may reach before the core compacts it (rewrites it
/// with one record per live entry of the table, at most `MCP_DEDUP_SLOTS`
/// records of `MCP_STORE_RECORD_MAX` bytes). A backend must hold this much.
pub const MCP_STORE_LOG_MAX: usize = 16384;
/// Record kind (byte 1): a call with this key is about to run its tool.
pub const MCP_STORE_INTENT: u8 = 1;
/// Record kind: the call finished; the record holds its result.
pub const MCP_STORE_RESULT: u8 = 2;
/// Record kind: the call finished; its result was larger than
/// `MCP_DEDUP_RESULT_MAX` and is not kept.
pub const MCP_STORE_GONE: u8 = 3;
/// Record kind: the call ended without a final result (input_required, a
/// JSON-RPC error, a refusal before the callback); the key may run again.
pub const MCP_STORE_RELEASE: u8 = 4;

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

/// List kind: tools (`notifications/tools/list_changed`).
pub const MCP_LIST_TOOLS: u32 = 1;
/// List kind: prompts (`notifications/prompts/list_changed`).
pub const MCP_LIST_PROMPTS: u32 = 2;
/// List kind: resources and templates (`notifications/resources/list_changed`).
pub const MCP_LIST_RESOURCES: u32 = 4;

/// `mcp_response_info_t.flags`: the response is the acknowledgement of a
/// `subscriptions/listen` stream; keep the stream open (the listener is attached).
pub const MCP_RESPONSE_LISTEN: u16 = 1;

/// `mcp_response_info_t.flags`: the response is not the answer to the
/// request but one or more server-to-client requests of a legacy-era call
/// waiting in its `mcp_roundtrip_t` (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`), one JSON-RPC request per line
/// (separated by `\n`). Send them and keep reading: the answer follows once
/// the client has answered them all.
pub const MCP_RESPONSE_CLIENT_REQUEST: u16 = 2;
/// `mcp_response_info_t.flags` on the answer to `initialize`: the client
/// declared `elicitation`. Same value as `MCP_CTX_LEGACY_ELICITATION`, so a
/// transport keeps `info.flags & MCP_RESPONSE_CLIENT_CAPS` and ORs it into
/// the `flags` of the session's later requests.
pub const MCP_RESPONSE_CLIENT_ELICITATION: u16 = 16;
/// As `MCP_RESPONSE_CLIENT_ELICITATION`, for `sampling` (`MCP_CTX_LEGACY_SAMPLING`).
pub const MCP_RESPONSE_CLIENT_SAMPLING: u16 = 32;
/// As `MCP_RESPONSE_CLIENT_ELICITATION`, for `roots` (`MCP_CTX_LEGACY_ROOTS`).
pub const MCP_RESPONSE_CLIENT_ROOTS: u16 = 64;
/// Every `MCP_RESPONSE_CLIENT_*` capability bit.
pub const MCP_RESPONSE_CLIENT_CAPS: u16 = 16 | 32 | 64;

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

/// `mcp_result_role`: later prompt messages are the user's.
pub const MCP_ROLE_USER: i32 = 0;
/// `mcp_result_role`: later prompt messages are the assistant's.
pub const MCP_ROLE_ASSISTANT: i32 = 1;
