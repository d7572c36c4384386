//! The protocol rules a transport binding needs outside `mcp_server_handle`,
//! so no binding restates them: which protocol versions the core answers, and
//! how a JSON-RPC error response is written (a binding refusing a request
//! before the core sees it: a wrong content type, an oversized payload).

use core::ffi::{c_char, c_int};

use super::{c_text, out_buf};
use crate::json::Writer;
use crate::limits::*;
use crate::protocol;
use crate::rpc::{self, Message, RpcError};

/// Whether a protocol version (e.g. an `MCP-Protocol-Version` header value;
/// spaces and tabs around it are ignored) is one the core serves through the
/// legacy `initialize` handshake (2025-11-25 and earlier). A transport that
/// sees a version for which this is 0 treats the exchange as 2026-07-28.
///
/// @param version The version text (need not be NUL-terminated), or NULL.
/// @param len     Its length in bytes.
/// @return 1 for a legacy version, 0 otherwise (NULL included).
///
/// @pre `version` must be NULL or point to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_protocol_version_is_legacy(
    version: *const c_char,
    len: usize,
) -> c_int {
    if version.is_null() {
        return 0;
    }
    // SAFETY: the caller promises `len` readable bytes at `version`.
    let v = unsafe { core::slice::from_raw_parts(version.cast::<u8>(), len) };
    c_int::from(protocol::is_legacy_version(v))
}

/// Writes the JSON array of every protocol version the core answers, newest
/// first (`["2026-07-28","2025-11-25",...]`, `MCP_PROTOCOL_VERSIONS_JSON_LEN`
/// bytes), for a transport that advertises them (MQTT presence). No NUL is
/// written.
///
/// @param buf Destination.
/// @param cap Its size in bytes.
/// @return The array's length (`MCP_PROTOCOL_VERSIONS_JSON_LEN`).
/// @retval -MCP_EINVAL `buf` is NULL or `cap` is 0.
/// @retval -MCP_ENOBUFS `cap` is below `MCP_PROTOCOL_VERSIONS_JSON_LEN`;
///                      nothing is written.
///
/// @pre `buf` must be NULL or point to `cap` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_protocol_versions_json(buf: *mut c_char, cap: usize) -> c_int {
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let Some(out) = (unsafe { out_buf(buf, cap) }) else {
        return -MCP_EINVAL;
    };
    if out.len() < MCP_PROTOCOL_VERSIONS_JSON_LEN {
        return -MCP_ENOBUFS;
    }
    let mut w = Writer::new(out);
    let _ = w.begin_array();
    for v in protocol::versions() {
        let _ = w.string(v);
    }
    let _ = w.end_array();
    match w.status() {
        Ok(()) => w.len() as c_int,
        Err(_) => -MCP_ENOBUFS,
    }
}

/// Writes a complete JSON-RPC error response,
/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":"<message>"}}`,
/// with `message` escaped as JSON, exactly as the core writes its own errors:
/// when the whole response does not fit, the code's standard message
/// ("Invalid Request", "Internal error", ...) replaces `message`, and that
/// form always fits `MCP_MIN_RESPONSE_CAP` bytes. No NUL is written.
///
/// @param buf     Destination.
/// @param cap     Its size in bytes.
/// @param id      The request's id as it was written in the request (a JSON
///                string with its quotes, or a number; at most
///                `MCP_MAX_ID_LEN` bytes), or NULL (or `id_len` 0) for `null`.
/// @param id_len  The id's length in bytes.
/// @param code    The JSON-RPC error code (`MCP_RPC_*`, or a binding's own).
/// @param message The message, NUL-terminated UTF-8, or NULL for the code's
///                standard message.
/// @return The response's length in bytes.
/// @retval -MCP_EINVAL `buf` is NULL, `cap` is 0, or `id` is not one JSON
///                     string or number of at most `MCP_MAX_ID_LEN` bytes.
/// @retval -MCP_EILSEQ `message` is not valid UTF-8.
/// @retval -MCP_ENOBUFS Not even the short form fits `cap`.
///
/// @pre `buf` must be NULL or point to `cap` writable bytes; `id` NULL or `id_len`
/// readable bytes; `message` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_write_error(
    buf: *mut c_char,
    cap: usize,
    id: *const c_char,
    id_len: usize,
    code: c_int,
    message: *const c_char,
) -> c_int {
    // SAFETY: the caller promises `cap` writable bytes at `buf`.
    let Some(out) = (unsafe { out_buf(buf, cap) }) else {
        return -MCP_EINVAL;
    };
    let id = if id.is_null() || id_len == 0 {
        None
    } else {
        // SAFETY: the caller promises `id_len` readable bytes at `id`.
        let raw = unsafe { core::slice::from_raw_parts(id.cast::<u8>(), id_len) };
        if !rpc::is_id(raw) {
            return -MCP_EINVAL;
        }
        Some(raw)
    };
    // SAFETY: the caller promises NULL or a NUL-terminated string.
    let text = match unsafe { c_text(message) } {
        Ok(t) => t.unwrap_or_else(|| rpc::short_message(code)),
        Err(e) => return e,
    };
    let e = RpcError {
        code,
        message: Message::Built("", ""),
        data: rpc::Data::None,
    };
    let mut w = Writer::new(out);
    rpc::write_error_with(&mut w, id, &e, text.as_bytes());
    if w.is_complete() {
        w.len() as c_int
    } else {
        -MCP_ENOBUFS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(
        cap: usize,
        id: &[u8],
        code: c_int,
        msg: Option<&core::ffi::CStr>,
    ) -> Result<String, c_int> {
        let mut buf = vec![0u8; cap];
        let idp = if id.is_empty() {
            core::ptr::null()
        } else {
            id.as_ptr().cast()
        };
        let m = msg.map_or(core::ptr::null(), |m| m.as_ptr());
        let n = unsafe { mcp_write_error(buf.as_mut_ptr().cast(), cap, idp, id.len(), code, m) };
        if n < 0 {
            return Err(n);
        }
        Ok(String::from_utf8(buf[..n as usize].to_vec()).unwrap())
    }

    #[test]
    fn error_is_valid_json_with_the_id_and_escaped_message() {
        let s = write(256, br#""a\"b""#, -32600, Some(c"bad \"payload\"\n\x01")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["jsonrpc"], "2.0");
        assert_eq!(v["id"], "a\"b");
        assert_eq!(v["error"]["code"], -32600);
        assert_eq!(v["error"]["message"], "bad \"payload\"\n\u{1}");
        let s = write(256, b"", -32600, Some(c"x")).unwrap();
        assert_eq!(
            s,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#
        );
        let s = write(256, b"17", -32603, None).unwrap();
        assert_eq!(
            s,
            r#"{"jsonrpc":"2.0","id":17,"error":{"code":-32603,"message":"Internal error"}}"#
        );
    }

    #[test]
    fn error_refuses_bad_input_and_never_truncates() {
        assert_eq!(write(256, b"{}", -32600, None), Err(-MCP_EINVAL));
        assert_eq!(write(256, b"1 2", -32600, None), Err(-MCP_EINVAL));
        assert_eq!(
            write(256, &[b'1'; MCP_MAX_ID_LEN + 1], -32600, None),
            Err(-MCP_EINVAL)
        );
        assert_eq!(write(256, b"1", -32600, Some(c"\xff")), Err(-MCP_EILSEQ));
        assert_eq!(
            unsafe {
                mcp_write_error(
                    core::ptr::null_mut(),
                    9,
                    core::ptr::null(),
                    0,
                    1,
                    core::ptr::null(),
                )
            },
            -MCP_EINVAL
        );
        // A long message that does not fit: the standard message, whole.
        let long = std::ffi::CString::new("m".repeat(400)).unwrap();
        let id = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN - 2));
        let s = write(MCP_MIN_RESPONSE_CAP, id.as_bytes(), -32600, Some(&long)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["error"]["message"], "Invalid Request");
        assert_eq!(write(20, b"", -32600, None), Err(-MCP_ENOBUFS));
    }

    #[test]
    fn versions_are_the_cores() {
        let mut buf = [0u8; MCP_PROTOCOL_VERSIONS_JSON_LEN];
        let n = unsafe { mcp_protocol_versions_json(buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(n as usize, MCP_PROTOCOL_VERSIONS_JSON_LEN);
        let v: Vec<String> = serde_json::from_slice(&buf).unwrap();
        assert_eq!(v[0], protocol::MODERN_VERSION);
        assert_eq!(v[1..], protocol::LEGACY_VERSIONS);
        let short = unsafe { mcp_protocol_versions_json(buf.as_mut_ptr().cast(), buf.len() - 1) };
        assert_eq!(short, -MCP_ENOBUFS);
        let legacy =
            |s: &str| unsafe { mcp_protocol_version_is_legacy(s.as_ptr().cast(), s.len()) };
        assert_eq!(legacy(" 2025-06-18\t"), 1);
        assert_eq!(legacy("2026-07-28"), 0);
        assert_eq!(legacy("2025-06-1"), 0);
        assert_eq!(
            unsafe { mcp_protocol_version_is_legacy(core::ptr::null(), 3) },
            0
        );
    }
}
