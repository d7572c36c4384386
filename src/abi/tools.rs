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

/// `mcp_arg_slot_t.present` of a member that is always set: a required
/// argument, or one whose schema declares a `default`.
pub const MCP_ARG_ALWAYS: u16 = 0xFFFF;

/// `mcp_arg_slot_t.kind`: a `bool`.
pub const MCP_ARG_BOOL: u8 = 1;

/// `mcp_arg_slot_t.kind`: a signed or unsigned integer of `size` bytes.
pub const MCP_ARG_INT: u8 = 2;

/// `mcp_arg_slot_t.kind`: an `mcp_decimal_t`.
pub const MCP_ARG_NUMBER: u8 = 3;

/// `mcp_arg_slot_t.kind`: the index of a string `enum`'s value, `size` bytes.
pub const MCP_ARG_ENUM: u8 = 4;

/// `mcp_arg_slot_t.kind`: an `mcp_str_t` of a string's decoded text.
pub const MCP_ARG_STR: u8 = 5;

/// `mcp_arg_slot_t.kind`: an `mcp_str_t` of a value's JSON text as sent.
pub const MCP_ARG_JSON: u8 = 6;

/// A JSON number without floating point: `value × 10^exp10`, exact for up
/// to 18 significant digits (else the nearest such). A typed argument of
/// `"type":"number"` is one; `mcp_json_decimal(r, d.value, -d.exp10)`
/// writes it back when `exp10 <= 0`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mcp_decimal_t {
    /// The significant digits, with the sign.
    pub value: i64,
    /// The power of ten they are scaled by (0 for an integer that fits).
    pub exp10: i32,
}

/// `mcp_arg_slot_t.kind`: an array with `maxItems` of booleans, integers,
/// numbers, string enums or strings with `maxLength`: its elements, then
/// their count (`uint8_t`, or `uint16_t` above 255 items).
pub const MCP_ARG_ARRAY: u8 = 7;

/// Where one top-level argument of a built tool lands in its typed
/// argument struct (`mcp_tool_t.args`, one per property of the input
/// schema, in `properties` order), as `emcp-gen` writes it with `offsetof`
/// and `sizeof`. The member's C type follows from the argument's schema
/// (docs/firmware.md, "Typed arguments"): `bool`; an integer as wide as its
/// bounds need; an `mcp_decimal_t`; a string `enum` as the index of its value; a
/// string with `maxLength` as an `mcp_str_t` of its decoded text; anything
/// else as an `mcp_str_t` of its JSON text.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mcp_arg_slot_t {
    /// `offsetof` the member.
    pub offset: u16,
    /// `sizeof` the member.
    pub size: u16,
    /// `offsetof` a `bool` member set when the argument was sent, or
    /// `MCP_ARG_ALWAYS`.
    pub present: u16,
    /// What the member is (`MCP_ARG_*`): what the schema makes it, which
    /// registration checks.
    pub kind: u8,
}
