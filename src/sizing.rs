//! Sizing: how much of each fixed table a server uses, and the response
//! buffer its registered tools, resources and prompts need.
//!
//! Owns: measuring the largest answer of each method with the code that
//! writes it (a counting [`Writer`]), for the longest id a request may
//! carry and the era whose answer is longer.
//! Must not: run callbacks or touch a response buffer.

use crate::json::{Doc, WriteError, Writer};
use crate::limits::{MCP_MAX_ID_LEN, MCP_MIN_RESPONSE_CAP};
use crate::protocol::{Era, legacy, modern, paging, prompts, resources, result_complete, tools};
use crate::rpc;
use crate::server::Server;

/// The largest answer of each method, in bytes, for an id of
/// `MCP_MAX_ID_LEN` bytes (0: the method has nothing to size, or is not in
/// this build).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResponseSizes {
    /// `server/discover`.
    pub discover: usize,
    /// A `tools/list` page holding the largest tool alone.
    pub tools_list: usize,
    /// The whole `tools/list` in one page: every registered tool (what a
    /// client that reads only the first page, as the Python SDK's
    /// `list_tools()` does, needs to see them all). Not part of
    /// [`ResponseSizes::min_response_cap`], which pages instead.
    pub tools_list_all: usize,
    /// A `tools/call` result of the tool with the largest declared
    /// `max_result_len` (its envelope alone for undeclared tools).
    pub tools_call: usize,
    /// `initialize` (legacy era).
    pub initialize: usize,
    /// A `resources/list` or `resources/templates/list` page holding the
    /// largest entry alone.
    pub resources_list: usize,
    /// A `prompts/list` page holding the largest prompt alone.
    pub prompts_list: usize,
}

impl ResponseSizes {
    /// The smallest response buffer that answers every method above (and
    /// never less than `MCP_MIN_RESPONSE_CAP`).
    pub fn min_response_cap(&self) -> usize {
        [
            MCP_MIN_RESPONSE_CAP,
            self.discover,
            self.tools_list,
            self.tools_call,
            self.initialize,
            self.resources_list,
            self.prompts_list,
        ]
        .into_iter()
        .max()
        .unwrap_or(MCP_MIN_RESPONSE_CAP)
    }
}

/// The longest id a request may carry (its bytes do not change a length).
const ID: [u8; MCP_MAX_ID_LEN] = [b'1'; MCP_MAX_ID_LEN];

fn measure(f: impl FnOnce(&mut Writer<'_>) -> Result<(), WriteError>) -> usize {
    let mut w = Writer::measure();
    let _ = f(&mut w);
    w.len()
}

/// A result frame opened as the dispatcher opens it.
fn open(w: &mut Writer<'_>, modern: bool) -> Result<(), WriteError> {
    rpc::begin_result(w, &ID)?;
    if modern {
        result_complete(w)?;
    }
    Ok(())
}

impl Server<'_> {
    /// The largest answer of each method this server's registrations allow.
    pub fn response_sizes(&self) -> ResponseSizes {
        let c = &self.catalog;
        let catalog = cfg!(feature = "catalog");
        // The longest: list changes advertised (a transport with listen streams).
        let caps = modern::Capabilities {
            prompts: catalog && c.prompt_count() > 0,
            resources: catalog && c.resource_count() > 0,
            completions: catalog && c.completion.is_some(),
            list_changed: catalog,
            subscribe: catalog,
            logging: false,
        };
        let info = &self.info;
        // A list page holds at least its first entry and leaves the paging
        // reserve free after it (`paging::write`).
        let reserve = paging::tail_reserve(self);
        let page = |key: &str, entry: &dyn Fn(&mut Writer<'_>) -> Result<(), WriteError>| {
            reserve
                + measure(|w| {
                    open(w, true)?;
                    w.key(key)?;
                    w.begin_array()?;
                    entry(w)
                })
        };
        let tools_list = self
            .tools
            .iter()
            .map(|t| page("tools", &|w| tools::tool_entry(w, t)))
            .max()
            .unwrap_or_else(|| page("tools", &|_| Ok(())));
        let tools_list_all = page("tools", &|w| {
            self.tools.iter().try_for_each(|t| tools::tool_entry(w, t))
        });
        let call_frame =
            measure(|w| rpc::begin_result(w, &ID)) + tools::call_tail(self, Era::Modern);
        let tools_call = self
            .tools
            .iter()
            .map(|t| call_frame + t.max_result_len)
            .max()
            .unwrap_or(0);
        let discover = measure(|w| {
            modern::discover_answer(w, &ID, info, caps).map_err(|_| WriteError::Overflow)
        });
        let initialize = if cfg!(feature = "legacy") {
            measure(|w| {
                open(w, false)?;
                let doc = Doc::new(b"");
                // `false` is the longer: legacy never advertises subscribe.
                let caps = modern::Capabilities {
                    list_changed: false,
                    subscribe: false,
                    logging: true,
                    ..caps
                };
                legacy::initialize(w, info, &doc, None, caps)?;
                rpc::end_result(w)
            })
        } else {
            0
        };
        // None registered: nothing to size (0), as the fields say; the
        // empty list's answer is shorter than `server/discover`.
        let (resources_list, prompts_list) = if catalog {
            let resources_list = c
                .resources()
                .map(|(_, r)| {
                    let t = r.is_template();
                    let key = if t { "resourceTemplates" } else { "resources" };
                    page(key, &|w| resources::entry(w, r, t))
                })
                .max()
                .unwrap_or(0);
            let prompts_list = c
                .prompts()
                .map(|(_, p)| page("prompts", &|w| prompts::entry(w, p)))
                .max()
                .unwrap_or(0);
            (resources_list, prompts_list)
        } else {
            (0, 0)
        };
        ResponseSizes {
            discover,
            tools_list,
            tools_list_all,
            tools_call,
            initialize,
            resources_list,
            prompts_list,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Call, RequestInfo, ToolResult};
    use crate::limits::MCP_RPC_INTERNAL_ERROR;
    use crate::registry::{Handler, Tool};
    use crate::server::ServerInfo;
    use core::ffi::c_int;
    use std::cell::Cell;

    thread_local! {
        static RUNS: Cell<usize> = const { Cell::new(0) };
        static SPACE: Cell<usize> = const { Cell::new(0) };
    }

    /// Writes one text block of exactly 200 bytes (`{"type":"text","text":"…"}`).
    fn block200(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
        RUNS.with(|c| c.set(c.get() + 1));
        SPACE.with(|c| c.set(r.space()));
        let text = "x".repeat(200 - r#"{"type":"text","text":""}"#.len());
        if r.text(&text).is_ok() { 0 } else { -105 }
    }

    const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn server() -> Server<'static> {
        let mut s = Server::new(ServerInfo {
            name: "sizing \"test\"",
            version: "1.0",
            title: Some("T"),
            instructions: None,
            list_ttl_ms: 0,
            cache_public: false,
        });
        s.add_tool_as_built(Tool {
            max_result_len: 200,
            ..Tool::new("t", r#"{"type":"object"}"#, Handler::Rust(block200))
        })
        .unwrap();
        s
    }

    fn call(s: &Server<'_>, req: &str, cap: usize) -> (String, i32) {
        let mut out = vec![0u8; cap];
        let o = s
            .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
            .unwrap();
        (
            String::from_utf8(out[..o.len].to_vec()).unwrap(),
            o.rpc_error,
        )
    }

    /// The check is exact: a result of exactly the declared size fits a
    /// buffer of the needed size; one byte less and the tool does not run.
    #[test]
    fn call_needs_envelope_and_declared_bytes_exactly() {
        let s = server();
        let id = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN - 2));
        let mut reqs = vec![format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{ENV},"name":"t"}}}}"#
        )];
        if cfg!(feature = "legacy") {
            reqs.push(
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#
                    .to_string(),
            );
        }
        for req in reqs {
            let (full, e) = call(&s, &req, 4096);
            assert_eq!(e, 0, "{full}");
            let n = full.len();
            RUNS.with(|c| c.set(0));
            let (r, e) = call(&s, &req, n);
            assert_eq!((e, r.len()), (0, n), "{r}");
            assert_eq!(SPACE.with(Cell::get), 200);
            let (r, e) = call(&s, &req, n - 1);
            assert_eq!(e, MCP_RPC_INTERNAL_ERROR, "{r}");
            assert_eq!(RUNS.with(Cell::get), 1, "the refused call did not run");
            if req.contains("\"id\":7") {
                assert_eq!(
                    r,
                    format!(
                        r#"{{"jsonrpc":"2.0","id":7,"error":{{"code":-32603,"message":"Response buffer of {} bytes cannot hold this tool's result (needs {n}): the tool did not run"}}}}"#,
                        n - 1
                    )
                );
            }
        }
        // The long-id modern call is the largest answer of the server.
        let sizes = s.response_sizes();
        let (full, _) = call(
            &s,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{ENV},"name":"t"}}}}"#
            ),
            4096,
        );
        assert_eq!(sizes.tools_call, full.len());
        // The callback's 200 bytes are what the tool's high-water mark holds.
        assert_eq!(s.tools.largest_result(0), 200);
    }

    /// The whole tools/list in one page: with the largest id, exactly the
    /// buffer that lists every tool without a cursor; one byte less pages.
    #[test]
    fn whole_tool_list_in_one_page() {
        let mut s = server();
        for name in ["second", "third"] {
            s.add_tool_as_built(Tool {
                description: Some("A read-only tool with a longer description than the first."),
                annotations: crate::limits::MCP_TOOL_READ_ONLY,
                ..Tool::new(name, r#"{"type":"object"}"#, Handler::Rust(block200))
            })
            .unwrap();
        }
        let sizes = s.response_sizes();
        assert!(sizes.tools_list_all > sizes.tools_list);
        assert!(sizes.min_response_cap() < sizes.tools_list_all);
        let id = "1".repeat(MCP_MAX_ID_LEN);
        let req =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{ENV}}}}}"#);
        let listed = |cap: usize| {
            let (r, e) = call(&s, &req, cap);
            assert_eq!(e, 0, "{r}");
            let v: serde_json::Value = serde_json::from_str(&r).unwrap();
            (
                v["result"]["tools"].as_array().unwrap().len(),
                v["result"].get("nextCursor").is_some(),
            )
        };
        assert_eq!(listed(sizes.tools_list_all), (3, false));
        assert!(listed(sizes.tools_list_all - 1).1, "one byte less pages");
        assert_eq!(listed(sizes.tools_list).0, 1);
    }

    /// With the longest id at the smallest buffer the full refusal does not
    /// fit; its short form still says the tool did not run (issue 42,
    /// item 9), so neither a client nor the fuzz invariant has to guess.
    #[test]
    fn refusal_for_space_says_so_at_the_minimum_buffer() {
        let s = server();
        let id = format!("\"{}\"", "i".repeat(MCP_MAX_ID_LEN - 2));
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{ENV},"name":"t"}}}}"#
        );
        RUNS.with(|c| c.set(0));
        let (r, e) = call(&s, &req, MCP_MIN_RESPONSE_CAP);
        assert_eq!(RUNS.with(Cell::get), 0, "{r}");
        assert_eq!(e, MCP_RPC_INTERNAL_ERROR, "{r}");
        assert_eq!(
            r,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"Response buffer too small for the result: the tool did not run"}}}}"#
            )
        );
    }

    /// Discover and initialize are measured exactly (the longest id; the
    /// list-changed capability a listen transport adds is counted).
    #[test]
    fn measured_sizes_match_answers() {
        let s = server();
        let sizes = s.response_sizes();
        let id = "1".repeat(MCP_MAX_ID_LEN);
        let (r, _) = call(
            &s,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{{ENV}}}}}"#
            ),
            4096,
        );
        // Without a listen transport `"listChanged":false` replaces `true`
        // (a build without `catalog` advertises no list changes at all).
        let no_listen = usize::from(cfg!(feature = "catalog"));
        assert_eq!(sizes.discover, r.len() - no_listen);
        if cfg!(feature = "legacy") {
            let (r, _) = call(
                &s,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
                ),
                4096,
            );
            assert!(
                sizes.initialize >= r.len() && sizes.initialize <= r.len() + 32,
                "{r}"
            );
        }
        assert!(sizes.min_response_cap() >= sizes.tools_list);
        assert_eq!(Server::new(s.info).response_sizes().tools_call, 0);
    }

    /// With no prompt (or resource) registered there is no entry to size:
    /// the report says 0, as for every method with nothing to size, and the
    /// empty list is still answered within `min_response_cap`.
    #[test]
    fn nothing_registered_is_sized_zero() {
        let s = server();
        let sizes = s.response_sizes();
        assert_eq!(
            (sizes.prompts_list, sizes.resources_list),
            (0, 0),
            "{sizes:?}"
        );
        if cfg!(feature = "catalog") {
            let id = "1".repeat(MCP_MAX_ID_LEN);
            for method in ["prompts/list", "resources/list", "resources/templates/list"] {
                let (r, e) = call(
                    &s,
                    &format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{ENV}}}}}"#
                    ),
                    sizes.min_response_cap(),
                );
                assert_eq!(e, 0, "{method}: {r}");
            }
        }
    }
}
