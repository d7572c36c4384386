//! `resources/list`, `resources/templates/list` and `resources/read`.
//!
//! Owns: which entry a URI names (plain resources first, then templates, in
//! registration order) and the not-found answer (-32602 with `data.uri`).

use super::callback::{self, Ran};
use super::modern::cache_hints;
use super::{Era, paging};
use crate::call::{Mode, RequestInfo, UriMatch};
use crate::catalog::{Body, Resource};
use crate::json::{Kind, WriteError, Writer};
use crate::limits::*;
use crate::rpc::{Data, Message, Request, RpcError};
use crate::state::{Fail, Server};
use crate::uri_template;

/// The members of `resources/list` (`templates` false) or
/// `resources/templates/list` (`templates` true).
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn list<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    era: Era,
    templates: bool,
) -> Result<(), Fail<'r>> {
    let c = &s.catalog;
    let first = paging::start(req, c.resource_count())?;
    let entries = c
        .resources()
        .skip(first)
        .filter(|(i, r)| c.resources_on.enabled(*i) && r.is_template() == templates);
    let key = if templates {
        "resourceTemplates"
    } else {
        "resources"
    };
    paging::write(w, s, req.id, key, entries, |w, r| entry(w, r, templates))?;
    if era == Era::Modern {
        cache_hints(w, &s.info)?;
    }
    Ok(())
}

pub(crate) fn entry(
    w: &mut Writer<'_>,
    r: &Resource<'_>,
    template: bool,
) -> Result<(), WriteError> {
    let _ = w.begin_object();
    let _ = w.kv_str(if template { "uriTemplate" } else { "uri" }, r.uri);
    let _ = w.kv_str("name", r.name);
    if let Some(v) = r.title {
        let _ = w.kv_str("title", v);
    }
    if let Some(v) = r.description {
        let _ = w.kv_str("description", v);
    }
    if let Some(v) = r.mime_type {
        let _ = w.kv_str("mimeType", v);
    }
    match r.body {
        Body::Text(t) => size(w, t.len())?,
        Body::Blob(b) => size(w, b.len())?,
        Body::Handler(_) => {}
    }
    let _ = w.end_object();
    w.status()
}

fn size(w: &mut Writer<'_>, n: usize) -> Result<(), WriteError> {
    let _ = w.key("size");
    let _ = w.int(i64::try_from(n).unwrap_or(i64::MAX));
    w.status()
}

/// The members of `resources/read`.
// Out of line: inlined into the dispatcher, its locals would sit under
// every other method's call, tools/call's validation included.
#[inline(never)]
pub fn read<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let tok = req
        .param("uri")
        .filter(|&u| doc.kind(u) == Some(Kind::String))
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "params.uri must be a string",
        )))?;
    let not_found = || {
        let raw = doc.raw(tok);
        // 2025-11-25 has its own code; 2026-07-28 (SEP-2164) made it -32602.
        let code = match era {
            Era::Legacy => MCP_RPC_RESOURCE_NOT_FOUND,
            Era::Modern => MCP_RPC_INVALID_PARAMS,
        };
        let e = RpcError {
            code,
            message: Message::Static("Resource not found"),
            data: Data::None,
        };
        // The URI is echoed when it is short enough to keep the error small.
        Fail::Rpc(if raw.len() <= MCP_MAX_URI_LEN {
            e.with_data(Data::Member("uri", raw))
        } else {
            e
        })
    };
    let mut buf = [0u8; MCP_MAX_URI_LEN];
    let n = doc.unescape_into(tok, &mut buf).map_err(|_| not_found())?;
    let uri = buf.get(..n).unwrap_or(&[]);
    let c = &s.catalog;
    let enabled = |(i, _): &(usize, &Resource<'_>)| c.resources_on.enabled(*i);
    let plain = c
        .resources()
        .filter(enabled)
        .find(|(_, r)| !r.is_template() && r.uri.as_bytes() == uri)
        .map(|(_, r)| (r, None));
    let found = plain.or_else(|| {
        c.resources()
            .filter(enabled)
            .filter(|(_, r)| r.is_template())
            .find_map(|(_, r)| uri_template::matches(r.uri, uri).map(|sp| (r, Some(sp))))
    });
    let Some((r, spans)) = found else {
        return Err(not_found());
    };
    let start = w.mark();
    w.key("contents")?;
    w.begin_array()?;
    match r.body {
        Body::Text(t) => {
            w.begin_object()?;
            w.kv_str("uri", r.uri)?;
            if let Some(m) = r.mime_type {
                w.kv_str("mimeType", m)?;
            }
            w.kv_str("text", t)?;
            w.end_object()?;
            w.end_array()?;
        }
        Body::Blob(b) => {
            w.begin_object()?;
            w.kv_str("uri", r.uri)?;
            if let Some(m) = r.mime_type {
                w.kv_str("mimeType", m)?;
            }
            w.key("blob")?;
            w.base64(b)?;
            w.end_object()?;
            w.end_array()?;
        }
        Body::Handler(h) => {
            let m = UriMatch {
                uri,
                template: spans.is_some().then_some(r.uri),
                spans: spans.unwrap_or_default(),
            };
            let place = callback::Place {
                start,
                mode: Mode::Read,
                era,
                // The request's URI, decoded from a checked JSON string: UTF-8.
                binding: ("resource:", uri),
            };
            let Ran { rc, blocks, input } =
                callback::run(w, s, req, info, h, r.uri, None, Some(&m), place)?;
            if input {
                return Ok(());
            }
            if rc == -MCP_ENOENT {
                return Err(not_found());
            }
            if rc < 0 || blocks == 0 {
                return Err(Fail::Rpc(RpcError::new(
                    MCP_RPC_INTERNAL_ERROR,
                    if rc < 0 {
                        "Resource callback failed"
                    } else {
                        "Resource callback wrote no contents"
                    },
                )));
            }
        }
    }
    if era == Era::Modern {
        w.kv_str("resultType", "complete")?;
        cache_hints(w, &s.info)?;
    }
    Ok(())
}
