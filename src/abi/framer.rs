//! What `mcp_framer_next` reports.
//!
//! Exported to `include/emcp_framer.h` (see `cbindgen/README.md`).

/// `mcp_framer_next`: a complete message was taken from the receive buffer.
pub const MCP_FRAME_LINE: i32 = 1;

/// `mcp_framer_next`: a line longer than the receive buffer was dropped up to
/// its newline (reported once per dropped line); answer it with
/// `mcp_framer_oversize_response`.
pub const MCP_FRAME_OVERSIZE: i32 = 2;
