//! `subscriptions/listen` (2026-07-28): the one long-lived request. The core
//! keeps nothing between requests, so the stream's state lives in a
//! [`Listener`] the transport owns (one per open stream) and attaches to the
//! server; list changes and resource updates are delivered to every attached
//! listener through the emit hook it was opened with.
//!
//! Owns: the acknowledgement (the honoured subset of the filter), the
//! `io.modelcontextprotocol/subscriptionId` tag on every message, which
//! notification a listener gets, and the final result that ends a stream.
//! Must not: keep the list of listeners (the ffi does, in caller storage).

use core::ffi::c_void;

use crate::call::{EmitFn, RequestInfo};
use crate::json::{Kind, WriteError, Writer};
use crate::limits::*;
use crate::rpc::{Request, RpcError};
use crate::state::{Fail, Server};
use crate::uri_template;

/// The state of one open listen stream.
pub struct Listener {
    id: [u8; MCP_MAX_ID_LEN],
    id_len: usize,
    /// `MCP_LIST_*` bits the stream asked for and the server honours.
    pub filter: u32,
    uris: [[u8; MCP_MAX_URI_LEN]; MCP_MAX_LISTEN_URIS],
    uri_lens: [usize; MCP_MAX_LISTEN_URIS],
    n_uris: usize,
    /// Delivers a message on the stream.
    pub emit: Option<EmitFn>,
    /// Passed to `emit`.
    pub transport_context: *mut c_void,
}

impl Default for Listener {
    fn default() -> Self {
        Self::new()
    }
}

const FILTER_KEYS: [(&str, u32); 3] = [
    ("toolsListChanged", MCP_LIST_TOOLS),
    ("promptsListChanged", MCP_LIST_PROMPTS),
    ("resourcesListChanged", MCP_LIST_RESOURCES),
];

impl Listener {
    /// A listener with no stream.
    pub const fn new() -> Self {
        Listener {
            id: [0; MCP_MAX_ID_LEN],
            id_len: 0,
            filter: 0,
            uris: [[0; MCP_MAX_URI_LEN]; MCP_MAX_LISTEN_URIS],
            uri_lens: [0; MCP_MAX_LISTEN_URIS],
            n_uris: 0,
            emit: None,
            transport_context: core::ptr::null_mut(),
        }
    }

    /// The listen request's id as written (the subscription id).
    pub fn id(&self) -> &[u8] {
        self.id.get(..self.id_len).unwrap_or(&[])
    }

    /// The resource URIs this stream is subscribed to.
    pub fn uris(&self) -> impl Iterator<Item = &[u8]> {
        self.uris
            .iter()
            .zip(self.uri_lens)
            .take(self.n_uris)
            .map(|(u, n)| u.get(..n).unwrap_or(&[]))
    }

    /// Writes `notifications/{tools,prompts,resources}/list_changed` for
    /// `kind` into `out` when the stream asked for it.
    pub fn list_changed(&self, kind: u32, out: &mut [u8]) -> Option<usize> {
        if self.filter & kind == 0 {
            return None;
        }
        let method = match kind {
            MCP_LIST_TOOLS => "notifications/tools/list_changed",
            MCP_LIST_PROMPTS => "notifications/prompts/list_changed",
            MCP_LIST_RESOURCES => "notifications/resources/list_changed",
            _ => return None,
        };
        self.notification(method, None, out)
    }

    /// Writes `notifications/resources/updated` for `uri` into `out` when the
    /// stream is subscribed to it.
    pub fn updated(&self, uri: &str, out: &mut [u8]) -> Option<usize> {
        if !self.uris().any(|u| u == uri.as_bytes()) {
            return None;
        }
        self.notification("notifications/resources/updated", Some(uri), out)
    }

    fn notification(&self, method: &str, uri: Option<&str>, out: &mut [u8]) -> Option<usize> {
        let mut w = Writer::new(out);
        let ok = (|| {
            let _ = w.begin_object();
            let _ = w.kv_str("jsonrpc", "2.0");
            let _ = w.kv_str("method", method);
            let _ = w.key("params");
            let _ = w.begin_object();
            self.meta(&mut w)?;
            if let Some(u) = uri {
                let _ = w.kv_str("uri", u);
            }
            let _ = w.end_object();
            w.end_object()
        })();
        ok.ok().map(|()| w.len())
    }

    fn meta(&self, w: &mut Writer<'_>) -> Result<(), WriteError> {
        let _ = w.key("_meta");
        let _ = w.begin_object();
        let _ = w.key("io.modelcontextprotocol/subscriptionId");
        let _ = w.raw_value(self.id());
        w.end_object()
    }

    /// Writes the response that ends the stream gracefully.
    pub fn close(&self, out: &mut [u8]) -> Option<usize> {
        let mut w = Writer::new(out);
        let ok = (|| {
            let _ = w.begin_object();
            let _ = w.kv_str("jsonrpc", "2.0");
            let _ = w.key("id");
            let _ = w.raw_value(self.id());
            let _ = w.key("result");
            let _ = w.begin_object();
            let _ = w.kv_str("resultType", "complete");
            self.meta(&mut w)?;
            let _ = w.end_object();
            w.end_object()
        })();
        ok.ok().map(|()| w.len())
    }
}

/// Opens a stream: fills `listener` from the request and writes the
/// acknowledgement notification (not a result) into `w`.
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn start<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    id: &[u8],
    info: &RequestInfo<'_>,
    listener: &mut Listener,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let filter = req
        .param("notifications")
        .filter(|&n| doc.kind(n) == Some(Kind::Object))
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "params.notifications must be an object",
        )))?;
    let slot = listener
        .id
        .get_mut(..id.len())
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_REQUEST,
            "id too long",
        )))?;
    crate::json::copy_bytes(slot, id);
    listener.id_len = id.len();
    listener.emit = info.emit;
    listener.transport_context = info.transport_context;
    let c = &s.catalog;
    let offered = MCP_LIST_TOOLS
        | if c.prompt_count() > 0 {
            MCP_LIST_PROMPTS
        } else {
            0
        }
        | if c.resource_count() > 0 {
            MCP_LIST_RESOURCES
        } else {
            0
        };
    listener.filter = FILTER_KEYS
        .iter()
        .filter(|(key, _)| doc.get(filter, key).is_some_and(|v| doc.raw(v) == b"true"))
        .fold(0, |acc, &(_, bit)| acc | bit)
        & offered;
    listener.n_uris = 0;
    if let Some(list) = doc
        .get(filter, "resourceSubscriptions")
        .filter(|&l| doc.kind(l) == Some(Kind::Array))
    {
        for u in doc.elements(list) {
            let Some(dst) = listener.uris.get_mut(listener.n_uris) else {
                break;
            };
            let Ok(n) = doc.unescape_into(u, dst) else {
                continue;
            };
            let uri = dst.get(..n).unwrap_or(&[]);
            if resource_exists(s, uri) {
                if let Some(len) = listener.uri_lens.get_mut(listener.n_uris) {
                    *len = n;
                }
                listener.n_uris += 1;
            }
        }
    }
    // The acknowledgement: what this stream will get, nothing more.
    let _ = w.begin_object();
    let _ = w.kv_str("jsonrpc", "2.0");
    let _ = w.kv_str("method", "notifications/subscriptions/acknowledged");
    let _ = w.key("params");
    let _ = w.begin_object();
    listener.meta(w)?;
    let _ = w.key("notifications");
    let _ = w.begin_object();
    for (key, bit) in FILTER_KEYS {
        if listener.filter & bit != 0 {
            let _ = w.key(key);
            let _ = w.bool(true);
        }
    }
    if listener.n_uris > 0 {
        let _ = w.key("resourceSubscriptions");
        let _ = w.begin_array();
        for u in listener.uris() {
            // Stored from checked request strings: UTF-8 (else written empty).
            let _ = if crate::json::is_utf8(u) {
                w.string_bytes(u)
            } else {
                w.string("")
            };
        }
        let _ = w.end_array();
    }
    let _ = w.end_object();
    let _ = w.end_object();
    let _ = w.end_object();
    Ok(w.status()?)
}

/// Whether `uri` names an enabled resource or matches an enabled template.
fn resource_exists(s: &Server<'_>, uri: &[u8]) -> bool {
    let c = &s.catalog;
    c.resources().any(|(i, r)| {
        c.resources_on.enabled(i)
            && if r.is_template() {
                uri_template::matches(r.uri, uri).is_some()
            } else {
                r.uri.as_bytes() == uri
            }
    })
}
