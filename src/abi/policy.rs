//! Audit outcomes (`mcp_audit_t.outcome`).
//!
//! Exported to `include/emcp_policy.h` (see `cbindgen/README.md`).

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

/// Audit outcome: the tool ran and its result was delivered, but the
/// callback wrote more than its `mcp_tool_t.max_result_len` declares (so a
/// call with a buffer sized by that declaration may run the tool and then
/// fail to answer). Reported instead of `MCP_AUDIT_OK` or
/// `MCP_AUDIT_IS_ERROR`: raise the declaration (`mcp_server_tool_usage`
/// gives the largest result written).
pub const MCP_AUDIT_OVER_DECLARED: u32 = 9;
