//! List kinds of `mcp_server_notify_list_changed` and prompt roles.
//!
//! Exported to `include/emcp_catalog.h` (see `cbindgen/README.md`).

/// List kind: tools (`notifications/tools/list_changed`).
pub const MCP_LIST_TOOLS: u32 = 1;

/// List kind: prompts (`notifications/prompts/list_changed`).
pub const MCP_LIST_PROMPTS: u32 = 2;

/// List kind: resources and templates (`notifications/resources/list_changed`).
pub const MCP_LIST_RESOURCES: u32 = 4;

/// `mcp_result_role`: later prompt messages are the user's.
pub const MCP_ROLE_USER: i32 = 0;

/// `mcp_result_role`: later prompt messages are the assistant's.
pub const MCP_ROLE_ASSISTANT: i32 = 1;
