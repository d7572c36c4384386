//! Per-tool minimum intervals: one 32-bit word per tool, claimed with a
//! compare-and-swap ([`crate::sync::cas`]) before the callback runs, so two
//! threads calling a rate-limited tool at once never both run it inside its
//! interval.
//!
//! Owns: the rate words and their claims, on the caller's clock.
//! Must not: know tools or principals (the registry keeps one word per tool
//! slot and passes it in;
//! [`crate::policy`] decides who may call).

use core::sync::atomic::{AtomicU32, Ordering};

use crate::sync::{Critical, cas};

/// A tool's rate word before its first run. A run at a clock reading of
/// `NEVER` (mod 2^32) is recorded 1 ms later, so it cannot read as no run
/// (the limit then holds 1 ms longer, never shorter).
pub(crate) const NEVER: u32 = u32::MAX;

/// A run claimed with [`claim`]: it holds the tool's interval until
/// [`RateClaim::keep`] makes it count. Dropped without `keep`, it gives the
/// interval back — the tool's word returns to what it was before, unless
/// another call has claimed it since (then that claim stands).
#[must_use]
pub struct RateClaim<'a> {
    word: &'a AtomicU32,
    prev: u32,
    mine: u32,
    crit: Option<Critical>,
}

impl RateClaim<'_> {
    /// The run counts: the interval runs from its clock.
    pub fn keep(self) {
        core::mem::forget(self);
    }
}

impl Drop for RateClaim<'_> {
    fn drop(&mut self) {
        let _ = cas(self.word, self.mine, self.prev, self.crit.as_ref());
    }
}

/// Milliseconds until a tool last run at `last` may run again at `now`,
/// with minimum interval `interval`, or `None` when it may run now. Compared
/// modulo 2^32, so a wrapping 32-bit millisecond counter is harmless (an
/// interval is at most `u32::MAX` ms). A clock reading up to one interval
/// *before* the last run is inside the interval too: a thread that read the
/// clock before another thread's call but claims after it must not run.
#[cfg_attr(target_os = "none", inline(never))]
fn wait_ms(last: u32, interval: u32, now: u64) -> Option<u32> {
    if interval == 0 || last == NEVER {
        return None;
    }
    let since = (now as u32).wrapping_sub(last);
    if since < interval {
        return Some(interval - since);
    }
    let before = last.wrapping_sub(now as u32);
    if before < interval.min(u32::MAX - interval) {
        return Some(interval.saturating_add(before));
    }
    None
}

/// For the tool whose rate word is `word` (`None`: no such tool) with
/// minimum interval `interval_ms`: `Ok` when it may run at `now_ms`, or
/// `Err(ms until it may run)`. A query only: nothing is claimed (see
/// [`claim`]).
pub fn check(word: Option<&AtomicU32>, interval_ms: u32, now_ms: u64) -> Result<(), u32> {
    let Some(last) = word else {
        return Ok(());
    };
    match wait_ms(last.load(Ordering::Acquire), interval_ms, now_ms) {
        Some(ms) => Err(ms),
        None => Ok(()),
    }
}

/// Claims a run at `now_ms` of the tool whose rate word is `word`,
/// atomically: `Err(ms until it may run)` when the interval has not passed,
/// else `Ok` with the claim (`None` without a limit, or without a word). Of
/// two calls claiming at once, one gets the claim and the other sees it and
/// is refused. The caller keeps the claim once the run counts, or drops it
/// to give the interval back.
pub fn claim(
    word: Option<&AtomicU32>,
    interval_ms: u32,
    now_ms: u64,
    crit: Option<Critical>,
) -> Result<Option<RateClaim<'_>>, u32> {
    let Some(word) = word.filter(|_| interval_ms != 0) else {
        return Ok(None);
    };
    let mine = match now_ms as u32 {
        NEVER => NEVER.wrapping_add(1),
        t => t,
    };
    loop {
        let prev = word.load(Ordering::Acquire);
        if let Some(ms) = wait_ms(prev, interval_ms, now_ms) {
            return Err(ms);
        }
        // Lost to another claim: look again (it is now most likely
        // inside the interval).
        if cas(word, prev, mine, crit.as_ref()) {
            return Ok(Some(RateClaim {
                word,
                prev,
                mine,
                crit,
            }));
        }
    }
}
