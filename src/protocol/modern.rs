//! 2026-07-28-only result bodies: `server/discover` and the members every
//! modern result carries (`resultType`, cache hints, the serverInfo stamp).

use super::MODERN_VERSION;
use crate::json::{Piece, WriteError, Writer};
use crate::server::ServerInfo;

/// Which server capabilities a response advertises.
#[derive(Clone, Copy, Debug, Default)]
pub struct Capabilities {
    /// Prompts are registered.
    pub prompts: bool,
    /// Resources or templates are registered (with subscriptions).
    pub resources: bool,
    /// A completion callback is set.
    pub completions: bool,
    /// List changes (and resource updates) reach the client: a listen stream
    /// can be opened on this transport.
    pub list_changed: bool,
    /// Log messages reach the client (legacy `initialize` only, see
    /// `MCP_CTX_LEGACY_LOG`).
    pub logging: bool,
}

/// The members of a `server/discover` result.
pub fn discover(
    w: &mut Writer<'_>,
    s: &ServerInfo<'_>,
    caps: Capabilities,
) -> Result<(), WriteError> {
    w.key("supportedVersions")?;
    w.begin_array()?;
    w.string(MODERN_VERSION)?;
    w.end_array()?;
    w.key("capabilities")?;
    capabilities(w, caps)?;
    if let Some(text) = s.instructions {
        w.kv_str("instructions", text)?;
    }
    cache_hints(w, s)
}

/// The server capabilities object, shared by both eras.
pub fn capabilities(w: &mut Writer<'_>, caps: Capabilities) -> Result<(), WriteError> {
    let changed = |w: &mut Writer<'_>, subscribe: bool| -> Result<(), WriteError> {
        w.begin_object()?;
        if subscribe {
            w.key("subscribe")?;
            w.bool(caps.list_changed)?;
        }
        w.key("listChanged")?;
        w.bool(caps.list_changed)?;
        w.end_object()
    };
    w.begin_object()?;
    if caps.completions {
        w.key("completions")?;
        w.begin_object()?;
        w.end_object()?;
    }
    if caps.logging {
        w.key("logging")?;
        w.begin_object()?;
        w.end_object()?;
    }
    if caps.prompts {
        w.key("prompts")?;
        changed(w, false)?;
    }
    if caps.resources {
        w.key("resources")?;
        changed(w, true)?;
    }
    w.key("tools")?;
    changed(w, false)?;
    w.end_object()
}

/// `ttlMs` and `cacheScope` for cacheable results.
pub fn cache_hints(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    cache_hints_scoped(w, s, s.cache_public)
}

/// `ttlMs` and `cacheScope`, with the scope decided by the caller (a list
/// that depends on the principal is never public).
pub fn cache_hints_scoped(
    w: &mut Writer<'_>,
    s: &ServerInfo<'_>,
    public: bool,
) -> Result<(), WriteError> {
    w.key("ttlMs")?;
    w.int(i64::from(s.list_ttl_ms))?;
    w.kv_str("cacheScope", if public { "public" } else { "private" })
}

/// The Implementation object (`name`, `version`, optional `title`).
pub fn implementation(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    w.begin_object()?;
    w.kv_str("name", s.name)?;
    w.kv_str("version", s.version)?;
    if let Some(t) = s.title {
        w.kv_str("title", t)?;
    }
    w.end_object()
}

/// The length of what [`result_meta`] writes.
pub fn result_meta_len(s: &ServerInfo<'_>) -> usize {
    let mut m = Writer::measure();
    let _ = m.begin_object().and_then(|()| result_meta(&mut m, s));
    m.len().saturating_sub(1)
}

/// The result `_meta` stamp that identifies the server.
/// It is on every 2026-07-28 result, so it is written from constant pieces
/// (the same bytes [`implementation`] inside `_meta` would produce).
pub fn result_meta(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    let (title_key, title): (&[u8], &str) = match s.title {
        Some(t) => (br#"","title":""#, t),
        None => (b"", ""),
    };
    w.members_from(&[
        Piece::Json(br#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":""#),
        Piece::Text(s.name),
        Piece::Json(br#"","version":""#),
        Piece::Text(s.version),
        Piece::Json(title_key),
        Piece::Text(title),
        Piece::Json(br#""}}"#),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `result_meta` writes from pieces exactly what the `_meta` key around
    /// `implementation` writes, with and without a title, escapes included.
    #[test]
    fn result_meta_matches_implementation() {
        for title in [None, Some("A \"quoted\"\ttitle"), Some("")] {
            let info = ServerInfo {
                name: "gw\\1",
                version: "0.4.0",
                title,
                instructions: None,
                list_ttl_ms: 0,
                cache_public: false,
            };
            let write = |long: bool| {
                let mut buf = [0u8; 256];
                let mut w = Writer::new(&mut buf);
                w.begin_object().unwrap();
                if long {
                    w.key("_meta").unwrap();
                    w.begin_object().unwrap();
                    w.key("io.modelcontextprotocol/serverInfo").unwrap();
                    implementation(&mut w, &info).unwrap();
                    w.end_object().unwrap();
                } else {
                    result_meta(&mut w, &info).unwrap();
                }
                w.end_object().unwrap();
                assert!(w.is_complete());
                w.as_bytes().to_vec()
            };
            assert_eq!(
                String::from_utf8(write(false)).unwrap(),
                String::from_utf8(write(true)).unwrap()
            );
        }
    }
}
