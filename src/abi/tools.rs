//! Tool annotation flags (`mcp_tool_t.annotations`) and cache scopes.
//!
//! Exported to `include/emcp_tools.h` (see `cbindgen/README.md`).

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
