//! Record kinds of the durable store's log (`mcp_store_t`).
//!
//! Exported to `include/emcp_store.h` (see `cbindgen/README.md`).

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
