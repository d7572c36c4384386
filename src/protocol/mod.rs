//! MCP on top of JSON-RPC: which era a request belongs to, the 2026-07-28
//! `_meta` envelope, and the methods of each era.
//!
//! Owns: the era decision (per request, never remembered), envelope and
//! routing-header checks, and the result bodies of each method.
//! Must not: parse JSON-RPC framing (see `rpc`) or touch transports.

pub mod callback;
pub mod completion;
pub mod envelope;
pub mod legacy;
pub mod listen;
pub mod modern;
pub mod mrtr;
pub mod paging;
pub mod prompts;
pub mod resources;
pub mod tools;

/// The protocol revision served with the per-request `_meta` envelope.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Versions served through the legacy `initialize` handshake, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The `resultType` member of a complete 2026-07-28 result, written as one
/// copy ([`crate::json::Writer::raw_members`]) on every such response.
pub(crate) const RESULT_COMPLETE: &[u8] = br#""resultType":"complete""#;

/// Which rules a request is answered under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: stateless, `_meta` envelope, `resultType`, cache hints.
    Modern,
    /// 2025-11-25 and earlier: `initialize` handshake, plain results.
    Legacy,
}

#[cfg(test)]
mod catalog_tests;
