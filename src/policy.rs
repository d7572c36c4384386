//! Gateway policy the model cannot change: who may see and call each tool,
//! how often a tool may run, and an audit record of every call.
//!
//! Owns: the allow decision (a tool's principal list and the firmware's
//! policy callback), per-tool minimum intervals on the caller's clock, and
//! the audit record handed to the firmware.
//! Must not: keep request data, or allocate. The rate words themselves are
//! [`crate::rate`]'s.
use core::ffi::{c_char, c_void};

/// The durable store's callbacks (`crate::durable`).
pub use crate::durable::mcp_store_t;
pub use crate::rate::RateClaim;

use crate::sync::Critical;

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
    /// The firmware's critical section, for the claims on a target without
    /// compare-and-swap ([`crate::sync`]).
    pub critical: Option<Critical>,
}

/// True when `principal` is in the comma-separated `list` (ASCII spaces and
/// tabs around a name ignored; no Unicode tables are linked for this).
fn listed(list: &str, principal: &[u8]) -> bool {
    list.split(',')
        .any(|p| p.as_bytes().trim_ascii() == principal)
}

impl Hooks {
    /// Whether `principal` may see and call `tool`.
    pub fn allows(&self, tool: &crate::registry::Entry<'_>, principal: Option<&[u8]>) -> bool {
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
    pub fn per_principal<'r, 'a: 'r>(
        &self,
        mut tools: impl Iterator<Item = &'r crate::registry::Entry<'a>>,
    ) -> bool {
        self.policy.is_some() || tools.any(|t| t.principals.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::Handler;
    use crate::limits::MCP_MAX_TOOLS;
    use crate::rate::NEVER;
    use crate::registry::{Def, Entry, Registry};

    /// A claim kept, as the server does for a run that counts.
    fn admit(r: &Registry<'_>, index: usize, interval_ms: u32, now_ms: u64) -> Result<(), u32> {
        let checked = r.rate_check(index, interval_ms, now_ms);
        let claimed = r
            .rate_claim(index, interval_ms, now_ms, None)
            .map(|c| c.map_or((), RateClaim::keep));
        assert_eq!(checked, claimed, "a check says what a claim would do");
        claimed
    }

    #[test]
    fn a_claim_given_back_restores_the_word_unless_claimed_since() {
        let r = Registry::new();
        // The first run given back: no run recorded.
        drop(r.rate_claim(0, 1000, 5000, None).unwrap().unwrap());
        assert_eq!(r.rate_check(0, 1000, 5000), Ok(()));
        // While a claim is held, a second call at the same clock is refused.
        let held = r.rate_claim(0, 1000, 5000, None).unwrap().unwrap();
        assert_eq!(r.rate_claim(0, 1000, 5000, None).err(), Some(1000));
        drop(held);
        admit(&r, 0, 1000, 5000).unwrap();
        // A held claim outlived by a later one: giving it back changes nothing.
        let slow = r.rate_claim(0, 1000, 6000, None).unwrap().unwrap();
        let next = r.rate_claim(0, 1000, 7000, None).unwrap().unwrap();
        drop(slow);
        assert_eq!(
            r.rate_check(0, 1000, 7500),
            Err(500),
            "the later claim stands"
        );
        drop(next);
        assert_eq!(
            r.rate_check(0, 1000, 6500),
            Err(500),
            "the later claim gives back to the earlier one, whose own give-back \
             found the word taken: the limit holds longer, never shorter"
        );
    }

    #[test]
    fn a_clock_read_before_the_last_run_is_inside_the_interval() {
        let r = Registry::new();
        admit(&r, 0, 1000, 5000).unwrap();
        assert_eq!(r.rate_check(0, 1000, 4990), Err(1010));
        assert_eq!(r.rate_check(0, 1000, 4001), Err(1999));
        assert_eq!(r.rate_check(0, 1000, 4000), Ok(()), "one interval before");
        // At the reserved clock value the run is recorded 1 ms later.
        admit(&r, 1, 1000, u64::from(NEVER)).unwrap();
        assert_eq!(r.rate_check(1, 1000, u64::from(NEVER) + 1000), Err(1));
        assert_eq!(r.rate_check(1, 1000, u64::from(NEVER) + 1001), Ok(()));
        // The longest interval still lets a later call through.
        admit(&r, 2, u32::MAX, 0).unwrap();
        assert_eq!(r.rate_check(2, u32::MAX, 1), Err(u32::MAX - 1));
        assert_eq!(r.rate_check(2, u32::MAX, u64::from(u32::MAX)), Ok(()));
    }

    #[test]
    fn rate_limits_survive_clock_wrap() {
        let r = Registry::new();
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
        let r = Registry::new();
        assert_eq!(r.rate_check(0, 2000, 100), Ok(()));
        assert_eq!(r.rate_check(0, 2000, 100), Ok(()), "a check is not a run");
        // A full table: every tool slot ran at a different time.
        for i in 0..MCP_MAX_TOOLS {
            r.rate_claim(i, 5000, 10_000 + i as u64 * 100, None)
                .unwrap()
                .unwrap()
                .keep();
        }
        for i in 0..MCP_MAX_TOOLS {
            let since = 10_000 + MCP_MAX_TOOLS as u64 * 100 - (10_000 + i as u64 * 100);
            assert_eq!(
                r.rate_check(i, 5000, 10_000 + MCP_MAX_TOOLS as u64 * 100),
                Err(5000 - since as u32),
                "slot {i}"
            );
        }
        let last = 10_000 + (MCP_MAX_TOOLS as u64 - 1) * 100;
        assert_eq!(r.rate_check(MCP_MAX_TOOLS - 1, 5000, last + 4999), Err(1));
        assert_eq!(r.rate_check(MCP_MAX_TOOLS - 1, 5000, last + 5000), Ok(()));
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
        let entry = |name, principals| Entry {
            name,
            annotations: 0,
            principals,
            min_interval_ms: 0,
            idempotency_key: None,
            max_result_len: 0,
            handler: Handler::Rust(|_, _| 0),
            def: Def::Built {
                listing: "{}",
                input: &[],
                output: None,
                args: None,
            },
        };
        let t = entry("set_vent", Some("operator, local"));
        let h = Hooks::default();
        assert!(h.allows(&t, Some(b"operator")));
        assert!(h.allows(&t, Some(b"local")));
        assert!(!h.allows(&t, Some(b"viewer")));
        assert!(!h.allows(&t, None));
        let open = entry("read", None);
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
