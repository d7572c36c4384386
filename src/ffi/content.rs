//! C API for rich tool results (image, audio, resource links, embedded
//! resources, block annotations) and for the notifications a tool may send
//! while it runs (progress, log messages).

use core::ffi::{c_char, c_int};

use super::{c_text, call_ref, text_n, with_result};
use crate::call::{Annotations, Contents, NotifyError};
use crate::json::num;
use crate::limits::*;
use crate::registry::{mcp_call_t, mcp_result_t};

/// Optional annotations of one content block.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct mcp_annotations_t {
    /// `MCP_AUDIENCE_USER` and/or `MCP_AUDIENCE_ASSISTANT`; 0 for no audience.
    pub audience: u32,
    /// Importance from 0 (least) to 1 (most); a negative value omits it.
    pub priority: f64,
    /// ISO 8601 time of the last change, or NULL.
    pub last_modified: *const c_char,
}

/// Converts C annotations (NULL for none).
unsafe fn annotations<'a>(a: *const mcp_annotations_t) -> Result<Option<Annotations<'a>>, c_int> {
    // SAFETY: the caller promises NULL or a valid struct.
    let Some(a) = (unsafe { a.as_ref() }) else {
        return Ok(None);
    };
    if a.audience & !(MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT) != 0
        || num::is_above_one(a.priority)
        || num::is_nan(a.priority)
    {
        return Err(-MCP_EINVAL);
    }
    Ok(Some(Annotations {
        audience: a.audience,
        priority: num::is_non_negative(a.priority).then_some(a.priority),
        // SAFETY: NULL or NUL-terminated, as promised.
        last_modified: unsafe { c_text(a.last_modified) }?,
    }))
}

/// A NUL-terminated string that must be present.
unsafe fn required<'a>(p: *const c_char) -> Result<&'a str, c_int> {
    // SAFETY: NULL or NUL-terminated, as promised.
    unsafe { c_text(p) }?.ok_or(-MCP_EINVAL)
}

/// Bytes at `data` (NULL only when `len` is 0).
unsafe fn bytes<'a>(data: *const u8, len: usize) -> Result<&'a [u8], c_int> {
    match (data.is_null(), len) {
        (true, 0) => Ok(&[]),
        (true, _) => Err(-MCP_EINVAL),
        // SAFETY: the caller promises `len` readable bytes.
        (false, _) => Ok(unsafe { core::slice::from_raw_parts(data, len) }),
    }
}

macro_rules! try_c {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return code,
        }
    };
}

/// Appends a text block with annotations (see `mcp_result_text`).
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ Text is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre `result` must be the handle passed to the running callback; `text` readable for
/// `len` bytes; `ann` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_text_annotated(
    result: *mut mcp_result_t,
    text: *const c_char,
    len: usize,
    ann: *const mcp_annotations_t,
) -> c_int {
    require_feature!("rich");
    // SAFETY: forwarded caller promises.
    let (t, a) = unsafe { (try_c!(text_n(text, len)), try_c!(annotations(ann))) };
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.text_annotated(t, a.as_ref())) }
}

unsafe fn media(
    r: *mut mcp_result_t,
    audio: bool,
    data: *const u8,
    len: usize,
    mime_type: *const c_char,
    ann: *const mcp_annotations_t,
) -> c_int {
    // SAFETY: forwarded caller promises.
    let (d, m, a) = unsafe {
        (
            try_c!(bytes(data, len)),
            try_c!(required(mime_type)),
            try_c!(annotations(ann)),
        )
    };
    // SAFETY: forwarded caller promises.
    unsafe { with_result(r, |res| res.media(audio, d, m, a.as_ref())) }
}

/// Appends an image block; `data` (the image file's bytes) is base64-encoded
/// straight into the response.
///
/// @param mime_type e.g. "image/png" (required).
/// @param ann       Block annotations, or NULL.
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full (base64 needs 4/3 of `len`).
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre `result` must be the handle passed to the running callback; `data` readable for
/// `len` bytes; strings NUL-terminated; `ann` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_image(
    result: *mut mcp_result_t,
    data: *const u8,
    len: usize,
    mime_type: *const c_char,
    ann: *const mcp_annotations_t,
) -> c_int {
    require_feature!("rich");
    // SAFETY: forwarded caller promises.
    unsafe { media(result, false, data, len, mime_type, ann) }
}

/// Appends an audio block; `data` is base64-encoded straight into the response.
///
/// @param mime_type e.g. "audio/wav" (required).
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre As for `mcp_result_image`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_audio(
    result: *mut mcp_result_t,
    data: *const u8,
    len: usize,
    mime_type: *const c_char,
    ann: *const mcp_annotations_t,
) -> c_int {
    require_feature!("rich");
    // SAFETY: forwarded caller promises.
    unsafe { media(result, true, data, len, mime_type, ann) }
}

/// Appends a `resource_link` block pointing the client at a resource.
///
/// @param uri         The resource URI (required).
/// @param name        Its name (required).
/// @param mime_type   Its MIME type, or NULL.
/// @param description What it is, or NULL.
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre `result` must be the handle passed to the running callback; strings
/// NUL-terminated; `ann` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_resource_link(
    result: *mut mcp_result_t,
    uri: *const c_char,
    name: *const c_char,
    mime_type: *const c_char,
    description: *const c_char,
    ann: *const mcp_annotations_t,
) -> c_int {
    require_feature!("rich");
    // SAFETY: forwarded caller promises.
    let (u, n, m, d, a) = unsafe {
        (
            try_c!(required(uri)),
            try_c!(required(name)),
            try_c!(c_text(mime_type)),
            try_c!(c_text(description)),
            try_c!(annotations(ann)),
        )
    };
    // SAFETY: forwarded caller promises.
    unsafe { with_result(result, |res| res.resource_link(u, n, m, d, a.as_ref())) }
}

/// Appends an embedded text resource (`{"type":"resource","resource":{"uri",…,"text"}}`).
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre `result` must be the handle passed to the running callback; `uri` and
/// `mime_type` NUL-terminated (mime_type may be NULL); `text` readable for
/// `len` bytes; `ann` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_resource_text(
    result: *mut mcp_result_t,
    uri: *const c_char,
    mime_type: *const c_char,
    text: *const c_char,
    len: usize,
    ann: *const mcp_annotations_t,
) -> c_int {
    if !cfg!(any(feature = "rich", feature = "catalog")) {
        return -MCP_ENOTSUP;
    }
    // SAFETY: forwarded caller promises.
    let (u, m, t, a) = unsafe {
        (
            try_c!(required(uri)),
            try_c!(c_text(mime_type)),
            try_c!(text_n(text, len)),
            try_c!(annotations(ann)),
        )
    };
    // SAFETY: forwarded caller promises.
    unsafe {
        with_result(result, |res| {
            res.resource(u, m, Contents::Text(t), a.as_ref())
        })
    }
}

/// Appends an embedded binary resource; `data` is sent base64-encoded as `blob`.
///
/// @retval 0 Success.
/// @retval -MCP_EPERM Called after `mcp_result_structured_begin`.
/// @retval -MCP_ENOBUFS The response buffer is full.
/// @retval -MCP_EILSEQ A string is not valid UTF-8.
/// @retval -MCP_EINVAL NULL pointer or invalid annotations.
///
/// @pre As for `mcp_result_resource_text`, with `data` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_result_resource_blob(
    result: *mut mcp_result_t,
    uri: *const c_char,
    mime_type: *const c_char,
    data: *const u8,
    len: usize,
    ann: *const mcp_annotations_t,
) -> c_int {
    if !cfg!(any(feature = "rich", feature = "catalog")) {
        return -MCP_ENOTSUP;
    }
    // SAFETY: forwarded caller promises.
    let (u, m, d, a) = unsafe {
        (
            try_c!(required(uri)),
            try_c!(c_text(mime_type)),
            try_c!(bytes(data, len)),
            try_c!(annotations(ann)),
        )
    };
    // SAFETY: forwarded caller promises.
    unsafe {
        with_result(result, |res| {
            res.resource(u, m, Contents::Blob(d), a.as_ref())
        })
    }
}

fn notify_result(r: Result<bool, NotifyError>) -> c_int {
    match r {
        Ok(sent) => c_int::from(sent),
        Err(NotifyError::TooLarge) => -MCP_ENOBUFS,
        Err(NotifyError::Transport(rc)) => rc,
    }
}

/// Reports progress of the running tool. When the request carried
/// `_meta.progressToken` and the transport set `emit`, a
/// `notifications/progress` is sent before the result; otherwise nothing is.
/// `mcp_progress_n` takes a message that is not NUL-terminated.
///
/// @param total   The total, or a negative value when unknown.
/// @param message A short status text, or NULL.
/// @return 1 when a notification was sent, 0 when none was requested.
/// @retval -MCP_ENOBUFS The notification exceeds `MCP_MAX_NOTIFICATION`.
/// @retval -MCP_EINVAL NULL call, or `progress` not finite.
/// @retval -MCP_EILSEQ `message` is not valid UTF-8.
/// @return Any negative value `emit` returned.
///
/// @pre `call` must be the handle passed to the running callback; `message` NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_progress(
    call: *const mcp_call_t,
    progress: f64,
    total: f64,
    message: *const c_char,
) -> c_int {
    // SAFETY: message is NULL or NUL-terminated; the rest is forwarded.
    unsafe { progress_text(call, progress, total, c_text(message)) }
}

/// `mcp_progress` with a message of `len` bytes, not NUL-terminated; `message`
/// NULL (with `len` 0) sends none.
///
/// @return As `mcp_progress`; -MCP_EINVAL also for `message` NULL with `len` > 0.
///
/// @pre `call` as for `mcp_progress`; `message` NULL or readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_progress_n(
    call: *const mcp_call_t,
    progress: f64,
    total: f64,
    message: *const c_char,
    len: usize,
) -> c_int {
    let m = if message.is_null() && len == 0 {
        Ok(None)
    } else {
        // SAFETY: `len` readable bytes at a non-NULL message, as promised.
        unsafe { text_n(message, len) }.map(Some)
    };
    // SAFETY: forwarded caller promises.
    unsafe { progress_text(call, progress, total, m) }
}

/// `mcp_progress` and `mcp_progress_n` once their message is read.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn progress_text(
    call: *const mcp_call_t,
    progress: f64,
    total: f64,
    m: Result<Option<&str>, c_int>,
) -> c_int {
    // SAFETY: see call_ref.
    let (Some(c), m) = (unsafe { call_ref(call) }, m) else {
        return -MCP_EINVAL;
    };
    let m = try_c!(m);
    // Float tests on the bit pattern: no soft-double code on an MCU.
    if !num::is_finite(progress) || !num::is_finite(total) {
        return -MCP_EINVAL;
    }
    notify_result(c.progress(progress, num::is_non_negative(total).then_some(total), m))
}

/// Sends a log message (`notifications/message`) within the running call, only
/// when the request set `_meta["io.modelcontextprotocol/logLevel"]` to `level`
/// or lower (the revision forbids log messages otherwise), or, in the legacy
/// era, when the transport set `MCP_CTX_LEGACY_LOG` and the request names no
/// level (a 2025-11-25 client's `logging/setLevel` is not kept).
/// `mcp_log_n` takes a text that is not NUL-terminated.
///
/// @param level `MCP_LOG_DEBUG` … `MCP_LOG_EMERGENCY`.
/// @return 1 when a notification was sent, 0 when none was requested.
/// @retval -MCP_ENOBUFS The notification exceeds `MCP_MAX_NOTIFICATION`.
/// @retval -MCP_EINVAL NULL pointer or unknown level.
/// @retval -MCP_EILSEQ `text` is not valid UTF-8.
/// @return Any negative value `emit` returned.
///
/// @pre `call` must be the handle passed to the running callback; `text` NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_log(
    call: *const mcp_call_t,
    level: c_int,
    text: *const c_char,
) -> c_int {
    // SAFETY: text is NUL-terminated; the rest is forwarded.
    unsafe { log_text(call, level, required(text)) }
}

/// `mcp_log` with a text of `len` bytes, not NUL-terminated.
///
/// @return As `mcp_log`.
///
/// @pre `call` as for `mcp_log`; `text` readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_log_n(
    call: *const mcp_call_t,
    level: c_int,
    text: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: text is readable for `len` bytes; the rest is forwarded.
    unsafe { log_text(call, level, text_n(text, len)) }
}

/// `mcp_log` and `mcp_log_n` once their text is read.
#[inline(always)] // each exported form keeps the whole body: no call added
unsafe fn log_text(call: *const mcp_call_t, level: c_int, t: Result<&str, c_int>) -> c_int {
    // SAFETY: see call_ref.
    let (Some(c), t) = (unsafe { call_ref(call) }, t) else {
        return -MCP_EINVAL;
    };
    let t = try_c!(t);
    let Ok(level) = usize::try_from(level) else {
        return -MCP_EINVAL;
    };
    if level > MCP_LOG_EMERGENCY as usize {
        return -MCP_EINVAL;
    }
    notify_result(c.log(level, t))
}

#[cfg(test)]
mod tests {
    use core::ffi::c_void;
    use std::cell::RefCell;

    use crate::call::{Annotations, Call, Contents, RequestInfo, ToolResult};
    use crate::registry::{Handler, Tool};
    use crate::server::{Server, ServerInfo};

    // Per thread: tests run in parallel and each reads only what its
    // own request emitted (the core calls back on the caller's thread).
    thread_local! { static EMITTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) }; }

    extern "C" fn record(_: *mut c_void, msg: *const u8, len: usize) -> i32 {
        // SAFETY: the core passes a live buffer of `len` bytes.
        let bytes = unsafe { core::slice::from_raw_parts(msg, len) };
        let line = String::from_utf8(bytes.to_vec()).unwrap();
        EMITTED.with(|l| l.borrow_mut().push(line));
        0
    }

    fn rich(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> i32 {
        let ann = Annotations {
            audience: 3,
            priority: Some(0.5),
            last_modified: Some("2026-01-01T00:00:00Z"),
        };
        call.progress(1.0, Some(2.0), Some("half")).unwrap();
        call.log(3, "vent motor warm").unwrap();
        r.text_annotated("t", Some(&ann)).unwrap();
        r.media(false, b"\x89PNG", "image/png", None).unwrap();
        r.media(true, b"RIFF", "audio/wav", None).unwrap();
        r.resource_link("file:///log", "log", Some("text/plain"), None, None)
            .unwrap();
        r.resource("mem://a", Some("text/plain"), Contents::Text("hello"), None)
            .unwrap();
        r.resource("mem://b", None, Contents::Blob(b"\x00\x01"), None)
            .unwrap();
        0
    }

    fn call(meta: &str) -> (serde_json::Value, Vec<String>) {
        call_with(meta, 0)
    }

    fn call_with(meta: &str, flags: u32) -> (serde_json::Value, Vec<String>) {
        let mut s = Server::new(ServerInfo {
            name: "t",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: false,
        });
        s.add_tool_as_built(Tool {
            max_result_len: 476, // measured
            ..Tool::new("rich", r#"{"type":"object"}"#, Handler::Rust(rich))
        })
        .unwrap();
        let info = RequestInfo {
            emit: Some(record),
            flags,
            ..RequestInfo::default()
        };
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"rich","_meta":{meta}}}}}"#
        );
        let mut out = [0u8; 2048];
        EMITTED.with(|l| l.borrow_mut().clear());
        let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
        let v = serde_json::from_slice(&out[..o.len]).unwrap();
        (v, EMITTED.with(|l| l.borrow().clone()))
    }

    #[test]
    #[cfg_attr(
        not(all(feature = "rich", feature = "legacy")),
        ignore = "needs the rich and legacy features"
    )]
    fn rich_content_blocks() {
        let (v, _) = call("{}");
        let c = &v["result"]["content"];
        assert_eq!(
            c[0]["annotations"]["audience"],
            serde_json::json!(["user", "assistant"])
        );
        assert_eq!(c[0]["annotations"]["priority"], 0.5);
        assert_eq!(
            c[1],
            serde_json::json!({"type":"image","data":"iVBORw==","mimeType":"image/png"})
        );
        assert_eq!(c[2]["type"], "audio");
        assert_eq!(
            c[3],
            serde_json::json!({"type":"resource_link","uri":"file:///log","name":"log","mimeType":"text/plain"})
        );
        assert_eq!(
            c[4]["resource"],
            serde_json::json!({"uri":"mem://a","mimeType":"text/plain","text":"hello"})
        );
        assert_eq!(
            c[5]["resource"],
            serde_json::json!({"uri":"mem://b","blob":"AAE="})
        );
    }

    #[test]
    #[cfg_attr(
        not(all(feature = "rich", feature = "legacy")),
        ignore = "needs the rich and legacy features"
    )]
    fn notifications_only_when_asked() {
        let (_, sent) = call("{}");
        assert!(sent.is_empty(), "{sent:?}");
        let (_, sent) =
            call(r#"{"progressToken":"p1","io.modelcontextprotocol/logLevel":"warning"}"#);
        assert_eq!(
            sent,
            [
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1.0,"total":2.0,"message":"half"}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"vent motor warm"}}"#,
            ]
        );
        let (_, sent) = call(r#"{"progressToken":7,"io.modelcontextprotocol/logLevel":"error"}"#);
        assert_eq!(
            sent.len(),
            1,
            "a warning is below the requested error level: {sent:?}"
        );
        assert!(sent[0].contains(r#""progressToken":7"#));
        // A legacy exchange whose transport delivers log messages
        // (MCP_CTX_LEGACY_LOG): sent without a logLevel; never for a
        // 2026-07-28 request, whose envelope asked for none.
        use crate::protocol::envelope::MCP_CTX_LEGACY_LOG;
        let (_, sent) = call_with("{}", MCP_CTX_LEGACY_LOG);
        assert_eq!(
            sent,
            [
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"vent motor warm"}}"#
            ]
        );
        let modern = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let (v, sent) = call_with(modern, MCP_CTX_LEGACY_LOG);
        assert!(sent.is_empty(), "{sent:?} {v}");
        assert_eq!(v["result"]["resultType"], "complete", "{v}");
    }
}
