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

/// True when `version` (an `MCP-Protocol-Version` header value; spaces and
/// tabs around it ignored) names a version served through the legacy
/// `initialize` handshake.
pub fn is_legacy_version(version: &[u8]) -> bool {
    let v = envelope::trim_ows(version);
    LEGACY_VERSIONS.iter().any(|l| v == l.as_bytes())
}

/// Every version the core answers, newest first: [`MODERN_VERSION`], then
/// [`LEGACY_VERSIONS`].
pub fn versions() -> impl Iterator<Item = &'static str> {
    core::iter::once(MODERN_VERSION).chain(LEGACY_VERSIONS)
}

/// The length of the JSON array of [`versions`], as written by
/// `mcp_protocol_versions_json`.
const fn versions_json_len() -> usize {
    // `[`, `]`, and each version quoted, the legacy ones after a comma.
    let mut n = 2 + MODERN_VERSION.len() + 2;
    let mut rest: &[&str] = &LEGACY_VERSIONS;
    while let [v, tail @ ..] = rest {
        n += 1 + v.len() + 2;
        rest = tail;
    }
    n
}
const _: () = assert!(versions_json_len() == crate::limits::MCP_PROTOCOL_VERSIONS_JSON_LEN);

/// The `resultType` member of a complete 2026-07-28 result, as
/// [`result_complete`] writes it on every such response.
pub(crate) const RESULT_COMPLETE: &[u8] = br#""resultType":"complete""#;

/// Writes [`RESULT_COMPLETE`] into the result object: one copy on hosted
/// targets, key and string on bare-metal ones (whose writer calls are
/// already linked; the constant's copy path costs more flash there).
pub(crate) fn result_complete(
    w: &mut crate::json::Writer<'_>,
) -> Result<(), crate::json::WriteError> {
    if cfg!(target_os = "none") {
        w.kv_str("resultType", "complete")
    } else {
        w.raw_members(RESULT_COMPLETE)
    }
}

/// Rewrites the answer, from the start of the buffer, as the JSON-RPC error
/// `code` whose message is `prefix` and then `built` (`short` when that does
/// not fit, one of [`crate::rpc::short`]): for a failure whose
/// message is built where it was found (the caller's buffer is in a frame
/// that ends here, not under the whole request). The dispatcher sends what
/// is written ([`crate::state::Fail::Sent`]).
#[inline(never)]
pub(crate) fn sent<'r>(
    w: &mut crate::json::Writer<'_>,
    id: Option<&[u8]>,
    code: i32,
    (prefix, short): (&'static str, &'static str),
    built: &crate::schema::MsgBuf,
) -> crate::state::Fail<'r> {
    w.reset();
    let e = crate::rpc::RpcError {
        code,
        message: crate::rpc::Message::Built(prefix, short),
        data: crate::rpc::Data::None,
    };
    crate::rpc::write_error_with(w, id, &e, built.as_bytes());
    crate::state::Fail::Sent(code)
}

/// The -32603 answer to a request whose answer cannot fit the response
/// buffer, saying by how much: `Response buffer of N bytes cannot hold
/// <what> (needs M)<after>`, M being the least `response_cap` that holds it;
/// `short` ([`crate::rpc::short`]) when that does not fit the buffer.
#[inline(never)]
pub(crate) fn too_small<'r>(
    w: &mut crate::json::Writer<'_>,
    id: Option<&[u8]>,
    what: &str,
    needed: usize,
    after: &str,
    short: &'static str,
) -> crate::state::Fail<'r> {
    let mut msg = crate::schema::MsgBuf::new();
    msg.push_uint(w.capacity() as u64);
    msg.push(" bytes cannot hold ");
    msg.push(what);
    msg.push(" (needs ");
    msg.push_uint(needed as u64);
    msg.push(")");
    msg.push(after);
    sent(
        w,
        id,
        crate::limits::MCP_RPC_INTERNAL_ERROR,
        ("Response buffer of ", short),
        &msg,
    )
}

/// Which rules a request is answered under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: stateless, `_meta` envelope, `resultType`, cache hints.
    Modern,
    /// 2025-11-25 and earlier: `initialize` handshake, plain results.
    Legacy,
}

impl Era {
    /// True for [`Era::Modern`], and always in a build without the `legacy`
    /// feature, where no request is answered by the old rules: each legacy
    /// branch behind this test then compiles away.
    pub const fn is_modern(self) -> bool {
        !cfg!(feature = "legacy") || matches!(self, Era::Modern)
    }
}

// Resources, prompts, completion and listen: the `catalog` feature's.
#[cfg(all(test, feature = "catalog"))]
mod catalog_tests;

#[cfg(test)]
mod constant_member_tests {
    use crate::json::Writer;

    /// The constant members the hosted writer copies in one piece are the
    /// bytes the key-and-value calls of bare-metal targets write.
    #[test]
    fn constant_members_match_key_and_value() {
        let pairs: [(&[u8], &str, Option<&str>, bool); 3] = [
            (
                super::RESULT_COMPLETE,
                "resultType",
                Some("complete"),
                false,
            ),
            (br#""isError":true"#, "isError", None, true),
            (br#""isError":false"#, "isError", None, false),
        ];
        for (raw, key, text, flag) in pairs {
            let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
            let mut wa = Writer::new(&mut a);
            let mut wb = Writer::new(&mut b);
            wa.begin_object().unwrap();
            wa.raw_members(raw).unwrap();
            wa.end_object().unwrap();
            wb.begin_object().unwrap();
            match text {
                Some(t) => wb.kv_str(key, t).unwrap(),
                None => {
                    wb.key(key).unwrap();
                    wb.bool(flag).unwrap();
                }
            }
            wb.end_object().unwrap();
            assert_eq!(wa.as_bytes(), wb.as_bytes());
        }
        let mut c = [0u8; 64];
        let mut wc = Writer::new(&mut c);
        wc.begin_object().unwrap();
        super::result_complete(&mut wc).unwrap();
        wc.end_object().unwrap();
        assert_eq!(wc.as_bytes(), br#"{"resultType":"complete"}"#);
    }
}
