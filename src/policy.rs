//! Gateway policy the model cannot change: who may see and call each tool,
//! how often a tool may run, and an audit record of every call.
//!
//! Owns: the allow decision (a tool's principal list and the firmware's
//! policy callback), per-tool minimum intervals on the caller's clock, and
//! the audit record handed to the firmware.
//! Must not: keep request data, or allocate. Rate state is 32-bit atomics
//! (load/store only, so it also builds for Cortex-M0); calls to a
//! rate-limited tool from several threads at once may both pass the check
//! (a run is recorded when its callback returns).

use core::ffi::{c_char, c_void};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::limits::MCP_MAX_TOOLS;
use crate::registry::Tool;

/// Decides whether `principal` (absent: NULL and 0) may see and call the tool
/// named by `tool` and `tool_len` (not NUL-terminated).
pub type PolicyFn = extern "C" fn(
    user: *mut c_void,
    principal: *const u8,
    principal_len: usize,
    tool: *const c_char,
    tool_len: usize,
) -> bool;

/// Receives one audit record per `tools/call`.
pub type AuditFn = extern "C" fn(user: *mut c_void, record: *const mcp_audit_t);

/// The firmware's monotonic clock in milliseconds (for call durations).
pub type ClockFn = extern "C" fn(user: *mut c_void) -> u64;

/// One `tools/call`, for the audit log. Valid only during the audit callback.
#[repr(C)]
pub struct mcp_audit_t {
    /// The principal the transport authenticated (not NUL-terminated), or NULL.
    pub principal: *const c_char,
    /// Its length.
    pub principal_len: usize,
    /// The tool's registered name (not NUL-terminated).
    pub tool: *const c_char,
    /// Its length.
    pub tool_len: usize,
    /// The arguments as received (JSON, not NUL-terminated; "{}" when absent).
    pub arguments: *const c_char,
    /// Their length.
    pub arguments_len: usize,
    /// The 32 hex digits of the request's `traceparent` trace id (not
    /// NUL-terminated), or NULL without a valid one.
    pub trace_id: *const c_char,
    /// `MCP_AUDIT_*`: what happened.
    pub outcome: u32,
    /// The request's `now_ms` (the caller's clock when it arrived).
    pub started_ms: u64,
    /// Milliseconds the call took, by the audit clock (0 without one).
    pub duration_ms: u64,
    /// The transport's context of the exchange.
    pub transport_context: *mut c_void,
}

/// The firmware's policy hooks.
#[derive(Clone, Copy, Default)]
pub struct Hooks {
    /// Who may see and call what (in addition to each tool's principal list).
    pub policy: Option<(PolicyFn, *mut c_void)>,
    /// Where audit records go, and the clock for durations.
    pub audit: Option<(AuditFn, Option<ClockFn>, *mut c_void)>,
}

/// True when `principal` is in the comma-separated `list` (spaces ignored).
fn listed(list: &str, principal: &[u8]) -> bool {
    list.split(',').any(|p| p.trim().as_bytes() == principal)
}

impl Hooks {
    /// Whether `principal` may see and call `tool`.
    pub fn allows(&self, tool: &Tool<'_>, principal: Option<&[u8]>) -> bool {
        if let Some(list) = tool.principals {
            if !principal.is_some_and(|p| listed(list, p)) {
                return false;
            }
        }
        match self.policy {
            None => true,
            Some((f, user)) => {
                let (p, n) = principal.map_or((core::ptr::null(), 0), |p| (p.as_ptr(), p.len()));
                f(
                    user,
                    p,
                    n,
                    tool.name.as_ptr().cast::<c_char>(),
                    tool.name.len(),
                )
            }
        }
    }

    /// True when the tool list depends on who asks (so caches must be private).
    pub fn per_principal<'a>(&self, mut tools: impl Iterator<Item = &'a Tool<'a>>) -> bool {
        self.policy.is_some() || tools.any(|t| t.principals.is_some())
    }
}

/// Per-tool rate state: when each tool last ran.
pub struct Rates {
    pub(crate) last: [AtomicU32; MCP_MAX_TOOLS],
    pub(crate) ran: [AtomicBool; MCP_MAX_TOOLS],
}

impl Default for Rates {
    fn default() -> Self {
        Self::new()
    }
}

impl Rates {
    /// No tool has run.
    pub const fn new() -> Self {
        Rates {
            last: [const { AtomicU32::new(0) }; MCP_MAX_TOOLS],
            ran: [const { AtomicBool::new(false) }; MCP_MAX_TOOLS],
        }
    }

    /// For tool `index` with minimum interval `interval_ms`: `Ok` when it may
    /// run at `now_ms`, or `Err(ms until it may run)`. Nothing is recorded:
    /// the caller calls [`Rates::record`] once the tool has run. The clock is
    /// compared modulo 2^32 ms, so a wrapping 32-bit millisecond counter is
    /// harmless (an interval is at most `u32::MAX` ms).
    pub fn check(&self, index: usize, interval_ms: u32, now_ms: u64) -> Result<(), u32> {
        let (Some(last), Some(ran)) = (self.last.get(index), self.ran.get(index)) else {
            return Ok(());
        };
        if interval_ms == 0 || !ran.load(Ordering::Relaxed) {
            return Ok(());
        }
        let since = (now_ms as u32).wrapping_sub(last.load(Ordering::Relaxed));
        if since < interval_ms {
            return Err(interval_ms - since);
        }
        Ok(())
    }

    /// Records that tool `index` ran at `now_ms`.
    pub fn record(&self, index: usize, now_ms: u64) {
        if let (Some(last), Some(ran)) = (self.last.get(index), self.ran.get(index)) {
            last.store(now_ms as u32, Ordering::Relaxed);
            ran.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Handler;

    /// `check` then, as the server does after a run, `record`.
    fn admit(r: &Rates, index: usize, interval_ms: u32, now_ms: u64) -> Result<(), u32> {
        r.check(index, interval_ms, now_ms)?;
        r.record(index, now_ms);
        Ok(())
    }

    #[test]
    fn rate_limits_survive_clock_wrap() {
        let r = Rates::new();
        assert_eq!(admit(&r, 0, 2000, 1000), Ok(()));
        assert_eq!(admit(&r, 0, 2000, 2500), Err(500));
        assert_eq!(
            admit(&r, 1, 2000, 2500),
            Ok(()),
            "tools are limited independently"
        );
        assert_eq!(admit(&r, 0, 2000, 2999), Err(1));
        assert_eq!(admit(&r, 0, 2000, 3000), Ok(()));
        // Near the 32-bit wrap of the millisecond clock, fed as u64 ...
        let w = u64::from(u32::MAX) - 100;
        assert_eq!(admit(&r, 2, 2000, w), Ok(()));
        assert_eq!(admit(&r, 2, 2000, w + 1000), Err(1000));
        assert_eq!(admit(&r, 2, 2000, w + 2000), Ok(()));
        // ... and as a 32-bit tick counter that wraps to 0.
        assert_eq!(admit(&r, 4, 2000, u64::from(u32::MAX) - 499), Ok(()));
        assert_eq!(
            admit(&r, 4, 2000, 500),
            Err(1000),
            "1,000 ms after the wrap"
        );
        assert_eq!(admit(&r, 4, 2000, 1500), Ok(()));
        assert_eq!(admit(&r, 3, 0, 5), Ok(()));
        assert_eq!(admit(&r, 3, 0, 5), Ok(()), "no interval, no limit");
        assert_eq!(admit(&r, MCP_MAX_TOOLS, 10, 5), Ok(()));
        assert_eq!(
            admit(&r, MCP_MAX_TOOLS, 10, 5),
            Ok(()),
            "beyond the table: no state"
        );
    }

    #[test]
    fn check_alone_records_nothing_and_every_slot_is_independent() {
        let r = Rates::new();
        assert_eq!(r.check(0, 2000, 100), Ok(()));
        assert_eq!(r.check(0, 2000, 100), Ok(()), "a check is not a run");
        // A full table: every tool slot ran at a different time.
        for i in 0..MCP_MAX_TOOLS {
            r.record(i, 10_000 + i as u64 * 100);
        }
        for i in 0..MCP_MAX_TOOLS {
            let since = 10_000 + MCP_MAX_TOOLS as u64 * 100 - (10_000 + i as u64 * 100);
            assert_eq!(
                r.check(i, 5000, 10_000 + MCP_MAX_TOOLS as u64 * 100),
                Err(5000 - since as u32),
                "slot {i}"
            );
        }
        let last = 10_000 + (MCP_MAX_TOOLS as u64 - 1) * 100;
        assert_eq!(r.check(MCP_MAX_TOOLS - 1, 5000, last + 4999), Err(1));
        assert_eq!(r.check(MCP_MAX_TOOLS - 1, 5000, last + 5000), Ok(()));
    }

    extern "C" fn only_ops(
        _: *mut c_void,
        p: *const u8,
        n: usize,
        _: *const c_char,
        t: usize,
    ) -> bool {
        n == 8 && !p.is_null() && t > 0
    }

    #[test]
    fn allow_lists_and_policy() {
        let t = Tool {
            principals: Some("operator, local"),
            ..Tool::new("set_vent", "{}", Handler::Rust(|_, _| 0))
        };
        let h = Hooks::default();
        assert!(h.allows(&t, Some(b"operator")));
        assert!(h.allows(&t, Some(b"local")));
        assert!(!h.allows(&t, Some(b"viewer")));
        assert!(!h.allows(&t, None));
        let open = Tool::new("read", "{}", Handler::Rust(|_, _| 0));
        assert!(h.allows(&open, None));
        let p = Hooks {
            policy: Some((only_ops, core::ptr::null_mut())),
            ..Hooks::default()
        };
        assert!(p.allows(&open, Some(b"operator")));
        assert!(!p.allows(&open, Some(b"viewer")));
        assert!(
            !p.allows(&t, Some(b"local")),
            "both the list and the callback must allow"
        );
        assert!(p.per_principal([&open].into_iter()) && h.per_principal([&t].into_iter()));
        assert!(!h.per_principal([&open].into_iter()));
    }
}
