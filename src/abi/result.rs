//! Content annotation audiences and `mcp_log` levels.
//!
//! Exported to `include/emcp_result.h` (see `cbindgen/README.md`).

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
