//! Return codes of every C function (`-MCP_E*`, errno numbers) and the
//! JSON-RPC error codes the server answers with (`MCP_RPC_*`).
//!
//! Exported to `include/emcp_errors.h` (see `cbindgen/README.md`).

/// Success.
pub const MCP_OK: i32 = 0;

/// Operation not allowed in the current state (a result call out of order).
pub const MCP_EPERM: i32 = 1;

/// No such argument, tool or value.
pub const MCP_ENOENT: i32 = 2;

/// A transport's I/O failed (a socket, a read or write, the network
/// library), or a durable store (`mcp_store_t`): returned by the bindings,
/// and by the core only from `mcp_dedup_set_store`.
pub const MCP_EIO: i32 = 5;

/// Try again later: `mcp_framer_poll` found no complete message buffered.
pub const MCP_EAGAIN: i32 = 11;

/// The client did not declare the capability an input request needs (the
/// request is answered with -32021 and `data.requiredCapabilities`).
pub const MCP_EACCES: i32 = 13;

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

/// A schema uses a keyword (or keyword form) the validator does not implement;
/// also what every function of a Cargo feature left out of the library's
/// build returns (profiles: docs/firmware.md).
pub const MCP_ENOTSUP: i32 = 95;

/// A buffer is too small (response buffer, string destination).
pub const MCP_ENOBUFS: i32 = 105;

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
