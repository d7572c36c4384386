//! Flags a transport passes in `mcp_request_ctx_t.flags` (`MCP_CTX_*`) and
//! finds in `mcp_response_info_t.flags` (`MCP_RESPONSE_*`).
//!
//! Exported to `include/emcp_server.h` (see `cbindgen/README.md`).

/// `mcp_request_ctx_t.flags`: the request came over HTTP, so a routing header
/// absent from the context was absent on the wire. A modern request then
/// needs `MCP-Protocol-Version` and `Mcp-Method`, and `tools/call`,
/// `prompts/get` and `resources/read` also `Mcp-Name`; a missing one is
/// answered with -32020 (HTTP 400).
pub const MCP_CTX_HTTP: u32 = 1;

/// `mcp_request_ctx_t.flags`: the transport saw `MCP-Protocol-Version`,
/// `Mcp-Method` or `Mcp-Name` more than once; a modern request is answered
/// with -32020 (HTTP 400).
pub const MCP_CTX_DUPLICATE_HEADER: u32 = 2;

/// `mcp_request_ctx_t.flags`: a legacy-era HTTP request without
/// `Mcp-Session-Id`. Only `initialize` and `ping` are then answered in the
/// legacy era; any other request without the 2026-07-28 envelope gets -32600
/// "Bad Request: Missing session ID" (HTTP 400), and is never executed.
pub const MCP_CTX_LEGACY_NO_SESSION: u32 = 4;

/// `mcp_request_ctx_t.flags`: the transport delivers the notifications of
/// this legacy-era request to the client before its response (the HTTP
/// binding's SSE stream). A 2025-11-25 client sets its log level with
/// `logging/setLevel`, which the stateless core does not keep; with no level
/// known, `mcp_log` then sends every message (at 2026-07-28 only the request's
/// `_meta` `logLevel` decides), and `initialize` advertises `logging`.
/// Ignored for a 2026-07-28 request.
pub const MCP_CTX_LEGACY_LOG: u32 = 8;

/// `mcp_request_ctx_t.flags`: the client of this legacy-era request declared
/// `elicitation` at `initialize`, and the transport can send it the
/// server-to-client `elicitation/create` request and then re-run this request
/// with the answer under `params.inputResponses` (and the `requestState`).
/// A tool may then call `mcp_result_elicit` as at 2026-07-28. With
/// `mcp_request_ctx_t.roundtrip` the core sends those requests itself
/// (`mcp_roundtrip_t`); without it the response is the `input_required`
/// result, for the transport to turn into those requests. Without any `MCP_CTX_LEGACY_{ELICITATION,SAMPLING,ROOTS}` flag a
/// legacy-era input request fails with `-MCP_ENOTSUP`; with another one only,
/// the request is answered with -32021. Ignored for a 2026-07-28 request.
pub const MCP_CTX_LEGACY_ELICITATION: u32 = 16;

/// `mcp_request_ctx_t.flags`: as `MCP_CTX_LEGACY_ELICITATION`, for
/// `sampling/createMessage` (`mcp_result_sample`).
pub const MCP_CTX_LEGACY_SAMPLING: u32 = 32;

/// `mcp_request_ctx_t.flags`: as `MCP_CTX_LEGACY_ELICITATION`, for
/// `roots/list` (`mcp_result_list_roots`).
pub const MCP_CTX_LEGACY_ROOTS: u32 = 64;

/// `mcp_request_ctx_t.flags`: the transport delivers
/// `notifications/tools/list_changed` (and the catalog's) to this
/// legacy-era client: a stdio session, or an HTTP session with its GET
/// stream. `initialize` then advertises `listChanged: true`; without it
/// `false`, as no legacy stream carries them. Ignored for a 2026-07-28
/// request (its `subscriptions/listen` stream says so itself).
pub const MCP_CTX_LEGACY_LIST_CHANGED: u32 = 128;

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
