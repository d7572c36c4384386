//! C API for gateway policy: the principal policy callback and the audit
//! hook (per-tool principal lists and rate limits are in `mcp_tool_t`).

use core::ffi::{c_char, c_int, c_void};

use super::input::server_mut;
use super::{DEDUP_MAGIC, DedupSlot, mcp_dedup_t, mcp_server_t};
use crate::limits::MCP_EINVAL;
use crate::policy::mcp_audit_t;

/// Decides whether `principal` (NULL and 0 when the transport authenticated
/// none) may see and call the tool `tool` (`tool_len` bytes, not
/// NUL-terminated). Runs for every `tools/list` entry and `tools/call`.
pub type mcp_policy_fn = Option<
    extern "C" fn(
        user: *mut c_void,
        principal: *const u8,
        principal_len: usize,
        tool: *const c_char,
        tool_len: usize,
    ) -> bool,
>;

/// Receives one audit record per `tools/call` (valid during the call only).
pub type mcp_audit_fn = Option<extern "C" fn(user: *mut c_void, record: *const mcp_audit_t)>;

/// The firmware's monotonic clock in milliseconds, for call durations.
pub type mcp_clock_fn = Option<extern "C" fn(user: *mut c_void) -> u64>;

/// Sets the policy callback that decides, besides each tool's `principals`
/// list, which principals may see and call which tools. A refused tool is
/// left out of `tools/list` (whose `cacheScope` then becomes private) and a
/// call to it is answered exactly as for an unknown tool (-32602). NULL removes it.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL or uninitialised server.
///
/// @pre As for `mcp_server_add_tool`; `fn` must be callable from every thread that
/// calls `mcp_server_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_policy(
    server: *mut mcp_server_t,
    r#fn: mcp_policy_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("policy");
    // SAFETY: forwarded caller promises.
    let Some(s) = (unsafe { server_mut(server) }) else {
        return -MCP_EINVAL;
    };
    s.hooks.policy = r#fn.map(|f| (f, user));
    0
}

/// Sets the audit hook, called once for every `tools/call` of a registered
/// tool after validation and policy: with the principal, tool, arguments,
/// trace id, outcome (`MCP_AUDIT_*`) and duration measured with `clock`
/// (NULL: durations are 0). NULL `fn` removes it.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL or uninitialised server.
///
/// @pre As for `mcp_server_set_policy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_audit(
    server: *mut mcp_server_t,
    r#fn: mcp_audit_fn,
    clock: mcp_clock_fn,
    user: *mut c_void,
) -> c_int {
    require_feature!("policy");
    // SAFETY: forwarded caller promises.
    let Some(s) = (unsafe { server_mut(server) }) else {
        return -MCP_EINVAL;
    };
    s.hooks.audit = r#fn.map(|f| (f, clock, user));
    0
}

/// Enters the firmware's critical section and returns what
/// `mcp_critical_exit_fn` needs to leave it (e.g. the saved interrupt mask:
/// `__get_PRIMASK()` before `__disable_irq()`, or Zephyr's `irq_lock()`).
pub type mcp_critical_enter_fn = Option<extern "C" fn(user: *mut c_void) -> u32>;

/// Leaves the critical section that `mcp_critical_enter_fn` entered, given
/// its return value.
pub type mcp_critical_exit_fn = Option<extern "C" fn(user: *mut c_void, state: u32)>;

/// Sets the critical section (`enter`, then `leave` with what `enter`
/// returned) that makes the server's claims atomic on a target without
/// compare-and-swap (`thumbv6m`: Cortex-M0/M0+). NULL for both removes it.
///
/// What is atomic: before a tool's callback runs, `mcp_server_handle` claims
/// the run against the tool's `min_interval_ms` (one 32-bit word per tool)
/// and claims its idempotency key in the transport's `mcp_dedup_t` (under the
/// table's own lock word), so two calls at once never both run it. On targets
/// with compare-and-swap (`target_has_atomic = "32"`: Cortex-M3/M4/M7/M33,
/// RISC-V with the A extension, every hosted target) those claims use it and
/// this hook is stored but never called. On a target without it, each claim
/// is a load, compare and store between `enter` and `leave` (a few
/// instructions, never nested, on the thread that called
/// `mcp_server_handle`); without this hook there the claims are plain loads
/// and stores, which hold only when one thread at a time calls
/// `mcp_server_handle` on the server (a single main loop). `enter` must
/// exclude every other thread that may call `mcp_server_handle` (masking
/// interrupts does on a single core).
///
/// The hook does not change the Threading rule at the top of this header
/// (interrupt handlers included); it is called from the handling thread only.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL NULL or uninitialised server, or only one of `enter`
///         and `leave` given.
///
/// @pre As for `mcp_server_set_policy`: set it before the first
/// `mcp_server_handle`; `enter` and `leave` must be callable from every thread
/// that calls `mcp_server_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_critical(
    server: *mut mcp_server_t,
    enter: mcp_critical_enter_fn,
    leave: mcp_critical_exit_fn,
    user: *mut c_void,
) -> c_int {
    // SAFETY: forwarded caller promises.
    let Some(s) = (unsafe { server_mut(server) }) else {
        return -MCP_EINVAL;
    };
    s.hooks.critical = match (enter, leave) {
        (Some(enter), Some(exit)) => Some(crate::sync::Critical { enter, exit, user }),
        (None, None) => None,
        _ => return -MCP_EINVAL,
    };
    0
}

/// Initialises (or empties) a duplicate table.
///
/// @retval 0 Success.
/// @retval -MCP_EINVAL `dedup` is NULL.
///
/// @pre `dedup` must point to writable `mcp_dedup_t` storage not in use by a
/// running `mcp_server_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_dedup_init(dedup: *mut mcp_dedup_t) -> c_int {
    require_feature!("policy");
    if dedup.is_null() {
        return -MCP_EINVAL;
    }
    let slot = DedupSlot {
        magic: DEDUP_MAGIC,
        table: crate::dedup::Dedup::new(),
        store: core::ptr::null(),
        write: None,
    };
    // SAFETY: non-NULL, writable, large and aligned enough (checked above).
    unsafe { dedup.cast::<DedupSlot>().write(slot) };
    0
}

#[cfg(test)]
mod tests {
    use core::ffi::{c_char, c_void};
    use std::cell::RefCell;

    use crate::call::{Call, RequestInfo, ToolResult};
    use crate::limits::*;
    use crate::policy::{Hooks, mcp_audit_t};
    use crate::registry::{Handler, Tool};
    use crate::server::{Server, ServerInfo};

    // Per thread: tests run in parallel and each reads only what its
    // own request emitted (the core calls back on the caller's thread).
    thread_local! { static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) }; }

    fn span(p: *const c_char, n: usize) -> String {
        if p.is_null() {
            return "-".into();
        }
        // SAFETY: the core passes spans valid during the callback.
        String::from_utf8(unsafe { core::slice::from_raw_parts(p.cast::<u8>(), n) }.to_vec())
            .unwrap()
    }

    extern "C" fn record(_: *mut c_void, r: *const mcp_audit_t) {
        // SAFETY: the core passes a live record.
        let r = unsafe { &*r };
        let line = format!(
            "{} {} {} {} trace={} dur={}",
            span(r.principal, r.principal_len),
            span(r.tool, r.tool_len),
            span(r.arguments, r.arguments_len),
            r.outcome,
            span(r.trace_id, if r.trace_id.is_null() { 0 } else { 32 }),
            r.duration_ms
        );
        LOG.with(|l| l.borrow_mut().push(line));
    }

    extern "C" fn clock(_: *mut c_void) -> u64 {
        1_000_007
    }

    fn ok(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> i32 {
        r.text("done").map_or(-1, |_| 0)
    }

    fn gateway() -> Server<'static> {
        let mut s = Server::new(ServerInfo {
            name: "g",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: true,
        });
        // 29: `{"type":"text","text":"done"}`, what `ok` writes.
        s.add_tool_as_built(Tool {
            max_result_len: 29,
            ..Tool::new("read", r#"{"type":"object"}"#, Handler::Rust(ok))
        })
        .unwrap();
        let schema = r#"{"type":"object","properties":{"p":{"type":"integer","maximum":10}}}"#;
        s.add_tool_as_built(Tool {
            principals: Some("operator"),
            min_interval_ms: 2000,
            max_result_len: 29,
            ..Tool::new("set", schema, Handler::Rust(ok))
        })
        .unwrap();
        s.hooks = Hooks {
            audit: Some((record, Some(clock), core::ptr::null_mut())),
            ..Hooks::default()
        };
        s
    }

    fn handle(s: &Server<'_>, who: &'static [u8], now_ms: u64, body: &str) -> serde_json::Value {
        let info = RequestInfo {
            principal: Some(who),
            now_ms,
            ..RequestInfo::default()
        };
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}{}}}}}"#,
            if body.is_empty() {
                "tools/list"
            } else {
                "tools/call"
            },
            body
        );
        let mut out = [0u8; 2048];
        let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    #[test]
    #[cfg_attr(not(feature = "policy"), ignore = "needs the policy feature")]
    fn principals_rate_limits_and_audit() {
        let s = gateway();
        LOG.with(|l| l.borrow_mut().clear());
        let viewer = handle(&s, b"viewer", 1_000_000, "");
        let names: Vec<_> = viewer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect();
        assert_eq!(names, ["read"]);
        assert_eq!(
            viewer["result"]["cacheScope"], "private",
            "the list depends on the principal"
        );
        let op = handle(&s, b"operator", 1_000_000, "");
        assert_eq!(op["result"]["tools"].as_array().unwrap().len(), 2);

        let refused = handle(
            &s,
            b"viewer",
            1_000_000,
            r#","name":"set","arguments":{"p":1}"#,
        );
        assert_eq!(refused["error"]["message"], "Unknown tool: set");
        let first = handle(
            &s,
            b"operator",
            1_000_000,
            r#","name":"set","arguments":{"p":1}"#,
        );
        assert_eq!(first["result"]["content"][0]["text"], "done");
        let again = handle(
            &s,
            b"operator",
            1_001_500,
            r#","name":"set","arguments":{"p":2}"#,
        );
        assert_eq!(again["result"]["isError"], true);
        assert_eq!(
            again["result"]["content"][0]["text"],
            "rate limited: retry in 500 ms"
        );
        let bad = handle(
            &s,
            b"operator",
            1_002_000,
            r#","name":"set","arguments":{"p":11}"#,
        );
        // SEP-1303: a tool error the model reads, still audited as such.
        assert_eq!(bad["result"]["isError"], true);
        assert_eq!(
            bad["result"]["content"][0]["text"],
            "p: 11 is above maximum 10"
        );
        let later = handle(
            &s,
            b"operator",
            1_002_000,
            r#","name":"set","arguments":{"p":3}"#,
        );
        assert_eq!(later["result"]["content"][0]["text"], "done");
        let t = "trace=0af7651916cd43dd8448eb211c80319c";
        assert_eq!(
            LOG.with(|l| l.borrow().clone()),
            [
                format!(r#"viewer set {{"p":1}} {MCP_AUDIT_REFUSED} {t} dur=7"#),
                format!(r#"operator set {{"p":1}} {MCP_AUDIT_OK} {t} dur=7"#),
                format!(r#"operator set {{"p":2}} {MCP_AUDIT_RATE_LIMITED} {t} dur=0"#),
                format!(r#"operator set {{"p":11}} {MCP_AUDIT_INVALID_ARGUMENTS} {t} dur=0"#),
                format!(r#"operator set {{"p":3}} {MCP_AUDIT_OK} {t} dur=0"#),
            ]
        );
    }

    /// A result larger than the tool declares is delivered (it fit this
    /// buffer) but audited as such, and each tool's largest result is kept
    /// for `mcp_server_tool_usage`.
    #[test]
    #[cfg_attr(not(feature = "policy"), ignore = "needs the policy feature")]
    fn results_larger_than_declared_are_audited() {
        let mut s = gateway();
        s.add_tool_as_built(Tool {
            max_result_len: 28, // one byte short of what `ok` writes
            ..Tool::new("short", r#"{"type":"object"}"#, Handler::Rust(ok))
        })
        .unwrap();
        LOG.with(|l| l.borrow_mut().clear());
        assert_eq!(s.tools.largest_result(2), 0, "nothing written yet");
        let over = handle(&s, b"local", 5, r#","name":"short""#);
        assert_eq!(over["result"]["content"][0]["text"], "done", "{over}");
        assert_eq!(over["result"]["isError"], false);
        let exact = handle(&s, b"local", 5, r#","name":"read""#);
        assert_eq!(exact["result"]["content"][0]["text"], "done");
        let t = "trace=0af7651916cd43dd8448eb211c80319c";
        assert_eq!(
            LOG.with(|l| l.borrow().clone()),
            [
                format!(r#"local short {{}} {MCP_AUDIT_OVER_DECLARED} {t} dur=1000002"#),
                format!(r#"local read {{}} {MCP_AUDIT_OK} {t} dur=1000002"#),
            ]
        );
        assert_eq!(s.tools.largest_result(0), 29);
        assert_eq!(s.tools.largest_result(1), 0, "`set` did not run");
        assert_eq!(s.tools.largest_result(2), 29);
    }

    // Per thread: the test harness runs tests in parallel and each test
    // counts only the calls its own server made.
    thread_local! { static ASKS: std::sync::atomic::AtomicUsize = const { std::sync::atomic::AtomicUsize::new(0) }; }

    /// Asks for a confirmation first; runs on the retry that carries it.
    fn confirm(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> i32 {
        ASKS.with(|c| c.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        if call.state == Some(&b"go"[..]) {
            return r.text("moved").map_or(-1, |_| 0);
        }
        let asked = r.input_request(
            "confirm",
            "elicitation/create",
            crate::call::caps::ELICITATION,
            crate::call::InputParams::Elicit {
                message: "Move?",
                schema: r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#,
            },
        );
        match asked {
            Ok(()) => r.set_request_state(b"go").map_or(-1, |_| 0),
            Err(_) => -1,
        }
    }

    fn call_at(s: &Server<'_>, now_ms: u64, extra: &str) -> serde_json::Value {
        call_with(s, now_ms, r#"{"elicitation":{}}"#, extra)
    }

    fn call_with(s: &Server<'_>, now_ms: u64, caps: &str, extra: &str) -> serde_json::Value {
        let info = RequestInfo {
            principal: Some(b"operator"),
            now_ms,
            ..RequestInfo::default()
        };
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}},"name":"move"{extra}}}}}"#
        );
        let mut out = [0u8; 2048];
        let o = s.handle(&info, req.as_bytes(), &mut out).unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    #[test]
    #[cfg_attr(
        not(all(feature = "policy", feature = "mrtr")),
        ignore = "needs the policy and mrtr features"
    )]
    fn only_finished_runs_count_against_the_rate_limit() {
        let mut s = Server::new(ServerInfo {
            name: "g",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: true,
        });
        s.state_mac = crate::protocol::mrtr::StateMac::Key([3; 64], 32);
        s.add_tool_as_built(Tool {
            min_interval_ms: 2000,
            max_result_len: 30, // `{"type":"text","text":"moved"}`
            ..Tool::new("move", r#"{"type":"object"}"#, Handler::Rust(confirm))
        })
        .unwrap();
        // A client that cannot answer the question: -32021, and no run counted.
        let cannot = call_with(&s, 9_900, "{}", "");
        assert_eq!(cannot["error"]["code"], -32021, "{cannot}");
        let asked = call_at(&s, 10_000, "");
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        let state = asked["result"]["requestState"]
            .as_str()
            .unwrap()
            .to_string();
        let before = ASKS.with(|c| c.load(std::sync::atomic::Ordering::SeqCst));
        // A forged state is refused before the callback and costs nothing either.
        let forged = call_at(&s, 10_100, r#","requestState":"Zm9yZ2Vk""#);
        assert_eq!(forged["error"]["code"], -32602, "{forged}");
        assert_eq!(
            ASKS.with(|c| c.load(std::sync::atomic::Ordering::SeqCst)),
            before
        );
        // The confirmed retry is the same call: not rate limited by its question.
        let done = call_at(&s, 10_200, &format!(r#","requestState":"{state}""#));
        assert_eq!(done["result"]["content"][0]["text"], "moved", "{done}");
        // That run counts: the next call within 2 s is refused, the callback not run.
        let again = call_at(&s, 11_000, "");
        assert_eq!(again["result"]["isError"], true, "{again}");
        assert_eq!(
            again["result"]["content"][0]["text"],
            "rate limited: retry in 1200 ms"
        );
        assert_eq!(
            ASKS.with(|c| c.load(std::sync::atomic::Ordering::SeqCst)),
            before + 1
        );
        let later = call_at(&s, 12_200, "");
        assert_eq!(later["result"]["resultType"], "input_required", "{later}");
    }
}
