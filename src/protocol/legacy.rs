//! The 2025-11-25 handshake (and 2025-06-18, 2025-03-26, 2024-11-05
//! negotiation) for clients that open with `initialize`.

use super::LEGACY_VERSIONS;
use super::modern::{capabilities, implementation};
use crate::json::{Doc, WriteError, Writer};
use crate::state::ServerInfo;

/// The members of an `initialize` result. A requested version we serve is
/// echoed; any other gets the newest legacy version, as the revision says.
pub fn initialize(
    w: &mut Writer<'_>,
    s: &ServerInfo<'_>,
    doc: &Doc<'_>,
    requested: Option<usize>,
    caps: super::modern::Capabilities,
) -> Result<(), WriteError> {
    let newest = LEGACY_VERSIONS.first().copied().unwrap_or("2025-11-25");
    let version = requested
        .and_then(|r| LEGACY_VERSIONS.iter().copied().find(|v| doc.str_eq(r, v)))
        .unwrap_or(newest);
    let _ = w.kv_str("protocolVersion", version);
    let _ = w.key("capabilities");
    capabilities(w, caps)?;
    let _ = w.key("serverInfo");
    implementation(w, s)?;
    if let Some(text) = s.instructions {
        let _ = w.kv_str("instructions", text);
    }
    w.status()
}
