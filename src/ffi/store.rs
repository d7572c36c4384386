//! C API for durable idempotency records: attaching the firmware's store
//! (`mcp_store_t`, see `crate::store`) to a duplicate table.

use core::ffi::c_int;

use super::{DEDUP_MAGIC, DedupSlot, mcp_dedup_t};
use crate::limits::MCP_EINVAL;
use crate::policy::mcp_store_t;
use crate::store::Durable;

/// Makes the duplicate table `dedup` durable on `store` and replays the
/// store's log into it, at the request clock's `now_ms`: a key whose call
/// finished before the restart is answered from its record (its window
/// starts now); a key with only an intent record (the server stopped while
/// its tool ran) is never run again by itself: a retry is answered with an
/// isError result "earlier outcome unknown: ..." unless `store->recover`
/// settles it. A record torn by power loss (its CRC-32 does not check) ends
/// the log: it is treated as absent, never as a result, and the log is
/// rewritten without it.
///
/// Call once after `mcp_dedup_init`, before the first `mcp_server_handle`
/// with this table. From then on, for every call of a tool with an
/// idempotency key: one append and one sync (the intent) before the callback
/// runs, and one append and one sync (the result) after it; a call that
/// ends without a final result appends a release without a sync. When an
/// append would take the log past `MCP_STORE_LOG_MAX` bytes (or the backend
/// refuses it), the log is compacted: `restart`, one append per live entry
/// (at most `MCP_DEDUP_SLOTS`), and a sync that swaps the new log in. A
/// call whose intent cannot be made durable is answered isError "durable
/// store failed" and its tool does not run. The guarantee covers the last
/// `MCP_DEDUP_SLOTS` keys (interrupted ones are evicted last) within
/// `MCP_DEDUP_WINDOW_MS`.
///
/// @param store The firmware's hooks; kept by pointer: it must outlive the
///              table's use. NULL detaches the store.
/// @return The entries kept from the log (0 or more).
/// @retval -MCP_EINVAL `dedup` NULL or not initialised, or a hook missing.
/// @retval -MCP_EIO    The log was torn and could not be rewritten.
/// @retval <0          The `read` hook's error.
///
/// @pre `dedup` must be an initialised table that no `mcp_server_handle` is using
/// meanwhile; `store` NULL or valid for as long as the table is used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_dedup_set_store(
    dedup: *mut mcp_dedup_t,
    store: *const mcp_store_t,
    now_ms: u64,
) -> c_int {
    require_feature!("policy");
    if dedup.is_null() {
        return -MCP_EINVAL;
    }
    let p = dedup.cast::<DedupSlot>();
    // SAFETY: non-NULL; the magic word is read through a raw pointer before
    // the slot is borrowed (the caller promises no handle call uses it).
    let Some(slot) = (unsafe {
        if core::ptr::addr_of!((*p).magic).read() != DEDUP_MAGIC {
            None
        } else {
            Some(&mut *p)
        }
    }) else {
        return -MCP_EINVAL;
    };
    // SAFETY: NULL or valid, as promised.
    let Some(st) = (unsafe { store.as_ref() }) else {
        slot.store = core::ptr::null();
        slot.write = None;
        return 0;
    };
    let Some(log) = st.log() else {
        return -MCP_EINVAL;
    };
    match slot.table.load(&log, now_ms) {
        Ok(n) => {
            slot.store = store;
            slot.write = Some(crate::dedup::Dedup::WRITER);
            n as c_int
        }
        Err(e) => e,
    }
}

#[cfg(all(test, feature = "policy"))]
mod tests {
    use core::ffi::{c_int, c_void};
    use std::cell::RefCell;

    use crate::call::{Call, RequestInfo, ToolResult};
    use crate::dedup::Dedup;
    use crate::limits::*;
    use crate::policy::mcp_store_t;
    use crate::registry::{Handler, Tool, mcp_call_t, mcp_result_t};
    use crate::server::{Exchange, Server, ServerInfo};
    use crate::store::Durable;

    /// An in-memory log: `durable` is what a power cut keeps; `pending` the
    /// appends since the last sync (a restarted log when `fresh`).
    #[derive(Default, Clone)]
    struct Mem {
        durable: Vec<u8>,
        pending: Vec<u8>,
        fresh: bool,
        syncs: usize,
        appends: usize,
        restarts: usize,
    }

    // Per thread: tests run in parallel, each with its own log.
    thread_local! {
        static MEM: RefCell<Mem> = RefCell::new(Mem::default());
        static RUNS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
        /// The durable log as it was while the tool ran (a kill there).
        static AT_RUN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    extern "C" fn append(_: *mut c_void, rec: *const u8, len: usize) -> c_int {
        // SAFETY: the core passes `len` readable bytes.
        let rec = unsafe { core::slice::from_raw_parts(rec, len) };
        MEM.with(|m| {
            let mut m = m.borrow_mut();
            m.pending.extend_from_slice(rec);
            m.appends += 1;
        });
        0
    }
    extern "C" fn sync(_: *mut c_void) -> c_int {
        MEM.with(|m| {
            let mut m = m.borrow_mut();
            let p = core::mem::take(&mut m.pending);
            if core::mem::take(&mut m.fresh) {
                m.durable.clear();
            }
            m.durable.extend_from_slice(&p);
            m.syncs += 1;
        });
        0
    }
    extern "C" fn read(_: *mut c_void, off: usize, buf: *mut u8, cap: usize) -> c_int {
        MEM.with(|m| {
            let m = m.borrow();
            let src = m.durable.get(off..).unwrap_or(&[]);
            let n = src.len().min(cap);
            // SAFETY: the core passes `cap` writable bytes.
            unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), buf, n) };
            n as c_int
        })
    }
    extern "C" fn restart(_: *mut c_void) -> c_int {
        MEM.with(|m| {
            let mut m = m.borrow_mut();
            m.pending.clear();
            m.fresh = true;
            m.restarts += 1;
        });
        0
    }

    /// Settles an interrupted call when the arguments say "moved".
    extern "C" fn recover(call: *const mcp_call_t, r: *mut mcp_result_t, _: *mut c_void) -> c_int {
        // SAFETY: the core passes live handles.
        let (call, r) = unsafe {
            (
                &*call.cast::<Call<'_>>(),
                &mut *r.cast::<ToolResult<'_, '_>>(),
            )
        };
        if call.lookup("moved").is_ok() {
            return r.text("recovered").map_or(-1, |_| 0);
        }
        -MCP_ENOENT
    }

    fn act(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> i32 {
        let key = call
            .lookup("k")
            .map_or(b"-".to_vec(), |v| call.doc.raw(v).to_vec());
        RUNS.with(|x| x.borrow_mut().push(String::from_utf8(key).unwrap()));
        AT_RUN.with(|a| *a.borrow_mut() = MEM.with(|m| m.borrow().durable.clone()));
        r.text("moved").map_or(-1, |_| 0)
    }

    fn bare() -> Server<'static> {
        Server::new(ServerInfo {
            name: "s",
            version: "1",
            title: None,
            instructions: None,
            list_ttl_ms: 0,
            cache_public: true,
        })
    }

    fn server() -> Server<'static> {
        let mut s = bare();
        s.add_tool_as_built(Tool {
            idempotency_key: Some("k"),
            max_result_len: 34, // measured
            ..Tool::new("act", r#"{"type":"object"}"#, Handler::Rust(act))
        })
        .unwrap();
        s
    }

    fn store(with_recover: bool) -> mcp_store_t {
        mcp_store_t {
            append: Some(append),
            sync: Some(sync),
            read: Some(read),
            restart: Some(restart),
            user: core::ptr::null_mut(),
            recover: if with_recover { Some(recover) } else { None },
            recover_user: core::ptr::null_mut(),
        }
    }

    fn call(s: &Server<'_>, d: &Dedup, st: &mcp_store_t, args: &str) -> serde_json::Value {
        call_full(s, d, st, args, None, 0)
    }

    fn call_with(
        s: &Server<'_>,
        d: &Dedup,
        st: &mcp_store_t,
        args: &str,
        retry_key: Option<&[u8]>,
    ) -> serde_json::Value {
        call_full(s, d, st, args, retry_key, 0)
    }

    fn call_at(
        s: &Server<'_>,
        d: &Dedup,
        st: &mcp_store_t,
        args: &str,
        now_ms: u64,
    ) -> serde_json::Value {
        call_full(s, d, st, args, None, now_ms)
    }

    fn call_full(
        s: &Server<'_>,
        d: &Dedup,
        st: &mcp_store_t,
        args: &str,
        retry_key: Option<&[u8]>,
        now_ms: u64,
    ) -> serde_json::Value {
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"name":"act","arguments":{args}}}}}"#
        );
        let mut out = [0u8; 2048];
        let ex = Exchange {
            dedup: Some(d),
            store: Some(crate::dedup::Attached {
                store: st,
                write: Dedup::WRITER,
            }),
            ..Exchange::default()
        };
        let info = RequestInfo {
            retry_key,
            now_ms,
            ..RequestInfo::default()
        };
        let o = s.handle_with(&info, ex, req.as_bytes(), &mut out).unwrap();
        serde_json::from_slice(&out[..o.len]).unwrap()
    }

    /// A table restarted on `log` (as the durable bytes of a power cut).
    fn restarted(log: Vec<u8>, st: &mcp_store_t) -> (Dedup, Result<usize, i32>) {
        MEM.with(|m| {
            *m.borrow_mut() = Mem {
                durable: log,
                ..Mem::default()
            }
        });
        let d = Dedup::new();
        let n = d.load(&st.log().unwrap(), 0);
        (d, n)
    }

    fn text(v: &serde_json::Value) -> String {
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    fn runs() -> Vec<String> {
        RUNS.with(|r| r.borrow().clone())
    }

    #[test]
    fn results_survive_a_restart_and_interrupted_calls_never_rerun() {
        let s = server();
        let st = store(false);
        let (d, n) = restarted(Vec::new(), &st);
        assert_eq!(n, Ok(0));
        let first = call(&s, &d, &st, r#"{"k":"a"}"#);
        assert_eq!(text(&first), "moved");
        let (appends, syncs) = MEM.with(|m| (m.borrow().appends, m.borrow().syncs));
        assert_eq!((appends, syncs), (2, 2), "intent and result, each synced");
        // Restart with everything durable: answered from the record.
        let log = MEM.with(|m| m.borrow().durable.clone());
        let (d, n) = restarted(log.clone(), &st);
        assert_eq!(n, Ok(1));
        assert_eq!(call(&s, &d, &st, r#"{"k":"a"}"#), first);
        assert_eq!(runs(), ["\"a\""]);
        // Killed while the tool ran (intent durable, no result): unknown.
        call(&s, &d, &st, r#"{"k":"b"}"#);
        let at_run = AT_RUN.with(|a| a.borrow().clone());
        let (d, _) = restarted(at_run.clone(), &st);
        let retry = call(&s, &d, &st, r#"{"k":"b"}"#);
        assert_eq!(retry["result"]["isError"], true, "{retry}");
        assert!(
            text(&retry).starts_with("earlier outcome unknown"),
            "{retry}"
        );
        assert_eq!(runs(), ["\"a\"", "\"b\""], "b never ran twice");
        // A new key runs.
        assert_eq!(text(&call(&s, &d, &st, r#"{"k":"c"}"#)), "moved");
        // The log torn at every byte of its last record (b's result): no
        // crash, b is unknown (or, torn at its very start, unknown too:
        // its intent is whole), a's result still answers, never a false one.
        let (d, _) = restarted(log.clone(), &st);
        call(&s, &d, &st, r#"{"k":"b2"}"#);
        let full = MEM.with(|m| m.borrow().durable.clone());
        let runs_before = runs().len();
        let last = last_record_start(&full);
        for cut in last..full.len() {
            let (d, n) = restarted(full[..cut].to_vec(), &st);
            assert!(n.is_ok(), "cut {cut}: {n:?}");
            let r = call(&s, &d, &st, r#"{"k":"b2"}"#);
            assert!(
                text(&r).starts_with("earlier outcome unknown"),
                "cut {cut}: {r}"
            );
            assert_eq!(call(&s, &d, &st, r#"{"k":"a"}"#), first, "cut {cut}");
            // The torn tail was rewritten away: the log decodes whole.
            let (d, _) = restarted(MEM.with(|m| m.borrow().durable.clone()), &st);
            let r = call(&s, &d, &st, r#"{"k":"b2"}"#);
            assert!(
                text(&r).starts_with("earlier outcome unknown"),
                "cut {cut}: {r}"
            );
        }
        assert_eq!(runs().len(), runs_before, "no call ran again");
    }

    #[test]
    fn a_retry_key_keys_a_keyless_call_durably_apart_from_argument_keys() {
        let s = server();
        let st = store(false);
        let (d, _) = restarted(Vec::new(), &st);
        let rk: Option<&[u8]> = Some(b"r");
        let first = call_with(&s, &d, &st, "{}", rk);
        assert_eq!(text(&first), "moved");
        let before = runs().len();
        // Killed after its result: a restart answers from the record.
        let (d, n) = restarted(MEM.with(|m| m.borrow().durable.clone()), &st);
        assert_eq!(n, Ok(1));
        assert_eq!(call_with(&s, &d, &st, "{}", rk), first);
        assert_eq!(runs().len(), before, "not run again");
        // Killed while it ran: unknown after a restart, never run again.
        call_with(&s, &d, &st, "{}", Some(b"r2"));
        let (d, _) = restarted(AT_RUN.with(|a| a.borrow().clone()), &st);
        let r = call_with(&s, &d, &st, "{}", Some(b"r2"));
        assert!(text(&r).starts_with("earlier outcome unknown"), "{r}");
        // An argument key with the same bytes is another key; a call with
        // neither key is not tracked; an argument key wins over a retry key.
        let runs_now = runs().len();
        assert_eq!(text(&call_with(&s, &d, &st, r#"{"k":"r"}"#, rk)), "moved");
        assert_eq!(text(&call(&s, &d, &st, "{}")), "moved");
        assert_eq!(text(&call(&s, &d, &st, "{}")), "moved");
        assert_eq!(runs().len(), runs_now + 3);
        let overlong = [b'x'; MCP_DEDUP_KEY_MAX + 1];
        assert_eq!(
            text(&call_with(&s, &d, &st, "{}", Some(&overlong))),
            "moved"
        );
        assert_eq!(
            text(&call_with(&s, &d, &st, "{}", Some(&overlong))),
            "moved"
        );
    }

    /// `server()` with its keyed tool at index `at`, after `at` read-only
    /// tools, in a table of slots the caller gives.
    fn server_with_act_at(at: usize) -> Server<'static> {
        let mut s = bare();
        let given: &'static mut [crate::registry::ToolSlot<'static>] = std::vec::Vec::leak(
            (0..at + 1)
                .map(|_| crate::registry::ToolSlot::new())
                .collect(),
        );
        let off: &'static [core::sync::atomic::AtomicBool] = std::vec::Vec::leak(
            (0..at + 1)
                .map(|_| core::sync::atomic::AtomicBool::new(false))
                .collect(),
        );
        s.tools.set_storage(given, off).unwrap();
        for i in 0..at {
            s.add_tool_as_built(Tool {
                annotations: crate::limits::MCP_TOOL_READ_ONLY,
                ..Tool::new(
                    std::format!("t{i}").leak(),
                    r#"{"type":"object"}"#,
                    Handler::Rust(act),
                )
            })
            .unwrap();
        }
        s.add_tool_as_built(Tool {
            idempotency_key: Some("k"),
            max_result_len: 34,
            ..Tool::new("act", r#"{"type":"object"}"#, Handler::Rust(act))
        })
        .unwrap();
        s
    }

    /// A keyed tool far past a byte's worth of tags (index 200: tag
    /// 200 × 2 + 1 = 401) is deduplicated by argument key and by retry key,
    /// apart, before and after a restart, as the first tools are; its
    /// records are wide, and the retry tag of tool 200 is not the plain tag
    /// of any other tool.
    #[test]
    fn a_tool_beyond_index_128_dedups_and_retries_durably() {
        let s = server_with_act_at(200);
        assert_eq!(
            s.tools.position_by(|n| n == "act").map(|(i, _)| i),
            Some(200)
        );
        let st = store(false);
        let (d, _) = restarted(Vec::new(), &st);
        let rk: Option<&[u8]> = Some(b"a");
        let before = runs().len();
        let by_arg = call(&s, &d, &st, r#"{"k":"a"}"#);
        let by_retry = call_with(&s, &d, &st, "{}", rk);
        assert_eq!(
            (text(&by_arg), text(&by_retry)),
            ("moved".into(), "moved".into())
        );
        assert_eq!(runs().len(), before + 2, "two keys: each ran once");
        assert_eq!(call(&s, &d, &st, r#"{"k":"a"}"#), by_arg);
        assert_eq!(call_with(&s, &d, &st, "{}", rk), by_retry);
        assert_eq!(runs().len(), before + 2, "repeats were answered, not run");
        let log = MEM.with(|m| m.borrow().durable.clone());
        assert_eq!(log.first(), Some(&crate::store::WIDE_MAGIC));
        // After a restart, both keys are answered from their records.
        let (d, n) = restarted(log, &st);
        assert_eq!(n, Ok(2));
        assert_eq!(call(&s, &d, &st, r#"{"k":"a"}"#), by_arg);
        assert_eq!(call_with(&s, &d, &st, "{}", rk), by_retry);
        assert_eq!(runs().len(), before + 2, "not run again after the restart");
        // Killed while it ran: unknown after a restart, never run again.
        call_with(&s, &d, &st, "{}", Some(b"r2"));
        let (d, _) = restarted(AT_RUN.with(|a| a.borrow().clone()), &st);
        let r = call_with(&s, &d, &st, "{}", Some(b"r2"));
        assert!(text(&r).starts_with("earlier outcome unknown"), "{r}");
    }

    /// Where the last record of `log` starts.
    fn last_record_start(log: &[u8]) -> usize {
        let mut off = 0;
        let mut last = 0;
        while off < log.len() {
            last = off;
            off += crate::store::record_len(&log[off..]).unwrap();
        }
        last
    }

    #[test]
    fn recovery_settles_and_compaction_keeps_the_live_keys() {
        let s = server();
        let st = store(true);
        let (d, _) = restarted(Vec::new(), &st);
        call(&s, &d, &st, r#"{"k":"x"}"#);
        let at_run = AT_RUN.with(|a| a.borrow().clone());
        let (d, _) = restarted(at_run.clone(), &st);
        let unsure = call(&s, &d, &st, r#"{"k":"x"}"#);
        assert!(
            text(&unsure).starts_with("earlier outcome unknown"),
            "{unsure}"
        );
        let settled = call(&s, &d, &st, r#"{"k":"x","moved":1}"#);
        assert_eq!(text(&settled), "recovered");
        // Settled for good: answered from its record, also after a restart.
        assert_eq!(call(&s, &d, &st, r#"{"k":"x"}"#), settled);
        let (d, _) = restarted(MEM.with(|m| m.borrow().durable.clone()), &st);
        assert_eq!(call(&s, &d, &st, r#"{"k":"x"}"#), settled);
        // Enough calls to compact several times: the log stays bounded and
        // the newest MCP_DEDUP_SLOTS keys still answer after a restart.
        let before = runs().len();
        for i in 0..400 {
            call(&s, &d, &st, &format!(r#"{{"k":"n{i}"}}"#));
        }
        let m = MEM.with(|m| m.borrow().clone());
        assert!(m.restarts >= 2, "{}", m.restarts);
        assert!(m.durable.len() <= MCP_STORE_LOG_MAX);
        let (d, n) = restarted(m.durable, &st);
        assert_eq!(n, Ok(MCP_DEDUP_SLOTS));
        for i in 400 - MCP_DEDUP_SLOTS..400 {
            assert_eq!(
                text(&call(&s, &d, &st, &format!(r#"{{"k":"n{i}"}}"#))),
                "moved"
            );
        }
        assert_eq!(
            runs().len(),
            before + 400,
            "none of the last keys ran again"
        );
    }

    #[test]
    fn after_a_compaction_and_a_restart_the_newest_keys_are_kept() {
        // A clock that moves: the table evicts its oldest entry. The
        // compacted log must list the live entries oldest first, since a
        // restart ages them by their place in the log: in any other order
        // the records appended after the compaction evict newer keys than
        // the table did (found on Zephyr's NVS backend, tests/zephyr).
        let s = server();
        let st = store(false);
        let (d, _) = restarted(Vec::new(), &st);
        let before = runs().len();
        let mut now = 1000;
        let mut checked = 0;
        for i in 0..700 {
            now += 1;
            call_at(&s, &d, &st, &format!(r#"{{"k":"t{i}"}}"#), now);
            if MEM.with(|m| m.borrow().restarts) == 0 {
                continue;
            }
            // Restarted on the durable log after this call: the newest
            // MCP_DEDUP_SLOTS keys answer from it, none runs again.
            let d2 = Dedup::new();
            d2.load(&st.log().unwrap(), now).unwrap();
            for j in i + 1 - MCP_DEDUP_SLOTS..=i {
                let r = call_at(&s, &d2, &st, &format!(r#"{{"k":"t{j}"}}"#), now);
                assert_eq!(text(&r), "moved", "t{j} after a restart at t{i}");
            }
            assert_eq!(runs().len(), before + i + 1, "a key ran again after t{i}");
            checked += 1;
        }
        assert!(MEM.with(|m| m.borrow().restarts) >= 2 && checked > 0);
    }
}
