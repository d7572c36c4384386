//! JSON types `mcp_arg_type` reports.
//!
//! Exported to `include/emcp_call.h` (see `cbindgen/README.md`).

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
