//! 2026-07-28-only result bodies: `server/discover` and the members every
//! modern result carries (`resultType`, cache hints, the serverInfo stamp).

use super::MODERN_VERSION;
use crate::json::{Piece, WriteError, Writer, escaped_len};
use crate::state::ServerInfo;

/// Which server capabilities a response advertises.
#[derive(Clone, Copy, Debug, Default)]
pub struct Capabilities {
    /// Prompts are registered.
    pub prompts: bool,
    /// Resources or templates are registered (with subscriptions).
    pub resources: bool,
    /// A completion callback is set.
    pub completions: bool,
    /// List changes reach the client: a listen stream can be opened on this
    /// transport (or, legacy, `MCP_CTX_LEGACY_LIST_CHANGED`).
    pub list_changed: bool,
    /// Resource updates reach a subscriber (a listen stream).
    pub subscribe: bool,
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
    let _ = w.key("supportedVersions");
    let _ = w.begin_array();
    let _ = w.string(MODERN_VERSION);
    let _ = w.end_array();
    let _ = w.key("capabilities");
    capabilities(w, caps)?;
    if let Some(text) = s.instructions {
        let _ = w.kv_str("instructions", text);
    }
    cache_hints(w, s)
}

/// The whole `server/discover` response for request `id`: the result frame,
/// its members and the serverInfo stamp. When it does not fit, the answer
/// says how big a buffer would hold it (measured by this same code).
pub fn discover_answer<'r>(
    w: &mut Writer<'_>,
    id: &[u8],
    s: &ServerInfo<'_>,
    caps: Capabilities,
) -> Result<(), crate::state::Fail<'r>> {
    let whole = |w: &mut Writer<'_>| {
        crate::rpc::begin_result(w, id)?;
        super::result_complete(w)?;
        discover(w, s, caps)?;
        result_meta(w, s)?;
        crate::rpc::end_result(w)
    };
    match whole(w) {
        Err(WriteError::Overflow) => {
            let mut m = Writer::measure();
            let _ = whole(&mut m);
            Err(super::too_small(
                w,
                Some(id),
                "the server/discover result",
                m.len(),
                "",
                crate::rpc::short::DISCOVER_NO_SPACE,
            ))
        }
        r => Ok(r?),
    }
}

/// The server capabilities object, shared by both eras.
pub fn capabilities(w: &mut Writer<'_>, caps: Capabilities) -> Result<(), WriteError> {
    let changed = |w: &mut Writer<'_>, subscribe: bool| -> Result<(), WriteError> {
        let _ = w.begin_object();
        if subscribe {
            let _ = w.key("subscribe");
            let _ = w.bool(caps.subscribe);
        }
        let _ = w.key("listChanged");
        let _ = w.bool(caps.list_changed);
        w.end_object()
    };
    let _ = w.begin_object();
    // A build without `catalog` never sets these: none of their code is linked.
    if cfg!(feature = "catalog") && caps.completions {
        let _ = w.key("completions");
        let _ = w.begin_object();
        let _ = w.end_object();
    }
    if caps.logging {
        let _ = w.key("logging");
        let _ = w.begin_object();
        let _ = w.end_object();
    }
    if cfg!(feature = "catalog") && caps.prompts {
        let _ = w.key("prompts");
        changed(w, false)?;
    }
    if cfg!(feature = "catalog") && caps.resources {
        let _ = w.key("resources");
        changed(w, true)?;
    }
    let _ = w.key("tools");
    changed(w, false)?;
    let _ = w.end_object();
    w.status()
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
    let _ = w.key("ttlMs");
    let _ = w.int(i64::from(s.list_ttl_ms));
    let _ = w.kv_str("cacheScope", if public { "public" } else { "private" });
    w.status()
}

/// The Implementation object (`name`, `version`, optional `title`).
pub fn implementation(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    let _ = w.begin_object();
    let _ = w.kv_str("name", s.name);
    let _ = w.kv_str("version", s.version);
    if let Some(t) = s.title {
        let _ = w.kv_str("title", t);
    }
    let _ = w.end_object();
    w.status()
}

/// The length of what [`result_meta`] writes.
pub fn result_meta_len(s: &ServerInfo<'_>) -> usize {
    if !cfg!(target_os = "none") {
        // Counted from the pieces (bare-metal targets measure a write
        // instead: no second form to keep in flash).
        let title = s
            .title
            .map_or(0, |t| TITLE_KEY.len() + escaped_len(t.as_bytes()));
        return META_HEAD.len()
            + escaped_len(s.name.as_bytes())
            + META_VERSION.len()
            + escaped_len(s.version.as_bytes())
            + title
            + META_TAIL.len();
    }
    let mut m = Writer::measure();
    let _ = m.begin_object().and_then(|()| result_meta(&mut m, s));
    m.len().saturating_sub(1)
}

const META_HEAD: &[u8] = br#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":""#;
const META_VERSION: &[u8] = br#"","version":""#;
const META_TAIL: &[u8] = br#""}}"#;
const TITLE_KEY: &[u8] = br#"","title":""#;

/// The result `_meta` stamp that identifies the server.
/// It is on every 2026-07-28 result, so it is written from constant pieces
/// (the same bytes [`implementation`] inside `_meta` would produce).
pub fn result_meta(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    if cfg!(target_os = "none") {
        return result_meta_keys(w, s);
    }
    let (title_key, title): (&[u8], &str) = match s.title {
        Some(t) => (TITLE_KEY, t),
        None => (b"", ""),
    };
    w.members_from(&[
        Piece::Json(META_HEAD),
        Piece::Text(s.name),
        Piece::Json(META_VERSION),
        Piece::Text(s.version),
        Piece::Json(title_key),
        Piece::Text(title),
        Piece::Json(META_TAIL),
    ])
}

/// [`result_meta`] key by key: the form bare-metal targets compile, where
/// it takes 175 B less flash than the constant pieces (thumbv7em minimal).
fn result_meta_keys(w: &mut Writer<'_>, s: &ServerInfo<'_>) -> Result<(), WriteError> {
    let _ = w.key("_meta");
    let _ = w.begin_object();
    let _ = w.key("io.modelcontextprotocol/serverInfo");
    let _ = implementation(w, s);
    w.end_object()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `result_meta` writes from pieces exactly what the `_meta` key around
    /// `implementation` writes (the bare-metal form), with and without a
    /// title, escapes included.
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
                    result_meta_keys(&mut w, &info).unwrap();
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
            // The counted length is the written one ("{" and "}" aside).
            assert_eq!(result_meta_len(&info), write(false).len() - 2, "{title:?}");
        }
        for name in ["plain", "ctl\u{1}\u{7f}", "é \"q\"\r\n\u{8}\u{c}"] {
            let info = ServerInfo {
                name,
                version: "1",
                title: None,
                instructions: None,
                list_ttl_ms: 0,
                cache_public: false,
            };
            let mut m = Writer::measure();
            m.begin_object().unwrap();
            result_meta(&mut m, &info).unwrap();
            assert_eq!(result_meta_len(&info), m.len() - 1, "{name:?}");
        }
    }
}
