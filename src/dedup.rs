//! Duplicate rejection for tools that declare an idempotency-key argument: a
//! repeated key answers with the original result and never runs the tool twice.
//!
//! Owns: a fixed table of recent (tool, principal, key) → result members,
//! with a time window and oldest-first eviction. The table lives in storage
//! the transport owns (`mcp_dedup_t`) and hands in per request; several
//! `mcp_server_handle` calls may share it at once. A key is claimed (its
//! entry made, marked running) before the tool runs: under the table's lock,
//! a word taken with [`crate::sync::cas`] and held only to look up and claim
//! (or to copy a result out), never while a tool runs. A call that finds the
//! lock taken tries a bounded number of times, then is answered busy; it
//! never waits for a tool.
//! Must not: keep input_required or JSON-RPC error results (only final ones).

use core::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};

use crate::limits::{
    MCP_DEDUP_KEY_MAX, MCP_DEDUP_RESULT_MAX, MCP_DEDUP_SLOTS, MCP_DEDUP_WINDOW_MS,
};
use crate::sync::{Critical, cas};

/// Slot states.
const FREE: u8 = 0;
/// Claimed: its tool is running; nobody else may run this key.
const RUNNING: u8 = 1;
/// Its result is kept, to replay.
const DONE: u8 = 2;
/// Its result did not fit: a repeat is refused instead of replayed.
const GONE: u8 = 3;

/// How often a call tries to take the table's lock before it is answered
/// busy (the lock is held for a look-up of `MCP_DEDUP_SLOTS` entries).
const LOCK_TRIES: u32 = 1000;

/// One entry. Every field is an atomic so several handle calls may share the
/// table without `unsafe`; the fields other than `state` are written only by
/// the lock holder (a new entry) or by the entry's own running call (its
/// result, published by `state`).
struct Slot {
    state: AtomicU8,
    tool: AtomicU8,
    key_len: AtomicU8,
    len: AtomicU16,
    principal: AtomicU32,
    at_ms: AtomicU32,
    key: [AtomicU8; MCP_DEDUP_KEY_MAX],
    result: [AtomicU8; MCP_DEDUP_RESULT_MAX],
}

impl Slot {
    const fn new() -> Self {
        Slot {
            state: AtomicU8::new(FREE),
            tool: AtomicU8::new(0),
            key_len: AtomicU8::new(0),
            len: AtomicU16::new(0),
            principal: AtomicU32::new(0),
            at_ms: AtomicU32::new(0),
            key: [const { AtomicU8::new(0) }; MCP_DEDUP_KEY_MAX],
            result: [const { AtomicU8::new(0) }; MCP_DEDUP_RESULT_MAX],
        }
    }

    fn key_is(&self, key: &[u8]) -> bool {
        usize::from(self.key_len.load(Ordering::Relaxed)) == key.len()
            && self
                .key
                .iter()
                .zip(key)
                .all(|(a, &b)| a.load(Ordering::Relaxed) == b)
    }
}

/// What a claim found.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    /// Not seen within the window: run the tool, then [`Dedup::finish`]
    /// this ticket (with the result members, or `None` when the call did not
    /// produce a final result and may run again).
    New(Ticket),
    /// Seen: the original result's members, this many bytes, were copied
    /// into the caller's buffer, to send again.
    Result(usize),
    /// Seen, but its result was too large to keep.
    Gone,
    /// Seen: the first call with this key is still running.
    InProgress,
    /// Not checked: the table's lock stayed taken, or every entry belongs to
    /// a running call. The tool must not run; the caller may retry.
    Busy,
}

/// A claimed entry, to finish once the call has answered.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct Ticket(usize);

/// The duplicate table.
pub struct Dedup {
    /// 1 while a call looks up or claims (see the module doc).
    lock: AtomicU32,
    slots: [Slot; MCP_DEDUP_SLOTS],
}

impl Default for Dedup {
    fn default() -> Self {
        Self::new()
    }
}

/// FNV-1a, to tell principals apart without storing them.
fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl Dedup {
    /// An empty table.
    pub const fn new() -> Self {
        Dedup {
            lock: AtomicU32::new(0),
            slots: [const { Slot::new() }; MCP_DEDUP_SLOTS],
        }
    }

    /// The live entry for a key, with its state as read once (a running
    /// entry may finish meanwhile; only its own call changes it).
    fn find(&self, tool: u8, principal: u32, key: &[u8], now: u32) -> Option<(&Slot, u8)> {
        self.slots.iter().find_map(|s| {
            let state = s.state.load(Ordering::Acquire);
            let live = state != FREE
                && s.tool.load(Ordering::Relaxed) == tool
                && s.principal.load(Ordering::Relaxed) == principal
                && s.key_is(key)
                // A running call's key is taken however long it runs.
                && (state == RUNNING
                    || now.wrapping_sub(s.at_ms.load(Ordering::Relaxed)) < MCP_DEDUP_WINDOW_MS);
            live.then_some((s, state))
        })
    }

    /// Looks `key` up for `tool` and `principal` at `now_ms` and, when it is
    /// new, claims it: from then on the same key is answered in progress
    /// until [`Dedup::finish`]. A new entry takes a free slot or else the
    /// oldest finished one (expired or not); a running one is never evicted.
    /// A replayed result is copied into `out` while the table is locked.
    /// `crit` is the firmware's critical section, used only on targets
    /// without compare-and-swap.
    pub fn claim(
        &self,
        tool: usize,
        principal: &[u8],
        key: &[u8],
        now_ms: u64,
        crit: Option<&Critical>,
        out: &mut [u8; MCP_DEDUP_RESULT_MAX],
    ) -> Seen {
        // A key the table cannot hold is not tracked (the caller refuses
        // overlong keys; tool indexes fit in a byte).
        let (Ok(tool), Ok(key_len)) = (u8::try_from(tool), u8::try_from(key.len())) else {
            return Seen::New(Ticket(usize::MAX));
        };
        if key.len() > MCP_DEDUP_KEY_MAX {
            return Seen::New(Ticket(usize::MAX));
        }
        if !(0..LOCK_TRIES).any(|_| {
            let taken = cas(&self.lock, 0, 1, crit);
            if !taken {
                core::hint::spin_loop();
            }
            taken
        }) {
            return Seen::Busy;
        }
        let seen = self.claim_locked(tool, fnv(principal), key, key_len, now_ms as u32, out);
        self.lock.store(0, Ordering::Release);
        seen
    }

    fn claim_locked(
        &self,
        tool: u8,
        principal: u32,
        key: &[u8],
        key_len: u8,
        now: u32,
        out: &mut [u8; MCP_DEDUP_RESULT_MAX],
    ) -> Seen {
        if let Some((s, state)) = self.find(tool, principal, key, now) {
            return match state {
                RUNNING => Seen::InProgress,
                GONE => Seen::Gone,
                _ => {
                    let len = usize::from(s.len.load(Ordering::Relaxed)).min(out.len());
                    for (d, b) in out.iter_mut().zip(&s.result).take(len) {
                        *d = b.load(Ordering::Relaxed);
                    }
                    Seen::Result(len)
                }
            };
        }
        let age = |s: &Slot| match s.state.load(Ordering::Acquire) {
            FREE => Some(u32::MAX),
            RUNNING => None,
            _ => Some(now.wrapping_sub(s.at_ms.load(Ordering::Relaxed))),
        };
        let Some(victim) = (0..self.slots.len())
            .filter_map(|i| Some((i, self.slots.get(i).and_then(age)?)))
            .max_by_key(|&(_, a)| a)
            .map(|(i, _)| i)
        else {
            return Seen::Busy;
        };
        let Some(s) = self.slots.get(victim) else {
            return Seen::Busy;
        };
        s.tool.store(tool, Ordering::Relaxed);
        s.principal.store(principal, Ordering::Relaxed);
        s.at_ms.store(now, Ordering::Relaxed);
        s.key_len.store(key_len, Ordering::Relaxed);
        for (d, &b) in s.key.iter().zip(key) {
            d.store(b, Ordering::Relaxed);
        }
        s.len.store(0, Ordering::Relaxed);
        s.state.store(RUNNING, Ordering::Release);
        Seen::New(Ticket(victim))
    }

    /// Ends a claim: keeps the call's final result members for repeats of
    /// its key (refusing repeats when they do not fit), or with `None` frees
    /// the entry so the key may run again (an input_required answer or a
    /// JSON-RPC error is not final). The entry the claim evicted, if any,
    /// stays evicted.
    pub fn finish(&self, ticket: Ticket, result: Option<&[u8]>) {
        // Only this call writes a running entry, so no lock is needed: the
        // state store publishes the result.
        let Some(s) = self.slots.get(ticket.0) else {
            return;
        };
        let state = match result {
            None => FREE,
            Some(r) if r.len() > s.result.len() => GONE,
            Some(r) => {
                for (d, &b) in s.result.iter().zip(r) {
                    d.store(b, Ordering::Relaxed);
                }
                s.len.store(r.len() as u16, Ordering::Relaxed);
                DONE
            }
        };
        s.state.store(state, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a look-up finds, as bytes for a replay; a new key is given back.
    #[derive(Debug, PartialEq, Eq)]
    enum Found {
        New,
        Result(Vec<u8>),
        Gone,
        InProgress,
        Busy,
    }

    fn seen(d: &Dedup, tool: usize, p: &[u8], key: &[u8], now: u64) -> Found {
        let mut out = [0u8; MCP_DEDUP_RESULT_MAX];
        match d.claim(tool, p, key, now, None, &mut out) {
            Seen::New(t) => {
                d.finish(t, None);
                Found::New
            }
            Seen::Result(n) => Found::Result(out[..n].to_vec()),
            Seen::Gone => Found::Gone,
            Seen::InProgress => Found::InProgress,
            Seen::Busy => Found::Busy,
        }
    }

    fn record(d: &Dedup, tool: usize, p: &[u8], key: &[u8], now: u64, result: &[u8]) {
        let mut out = [0u8; MCP_DEDUP_RESULT_MAX];
        match d.claim(tool, p, key, now, None, &mut out) {
            Seen::New(t) => d.finish(t, Some(result)),
            other => panic!("{other:?}"),
        }
    }

    fn res(b: &[u8]) -> Found {
        Found::Result(b.to_vec())
    }

    #[test]
    fn replays_within_the_window_and_evicts_the_oldest() {
        let d = Dedup::new();
        assert_eq!(seen(&d, 1, b"op", b"k1", 100), Found::New);
        record(&d, 1, b"op", b"k1", 100, b"\"content\":[]");
        assert_eq!(seen(&d, 1, b"op", b"k1", 200), res(b"\"content\":[]"));
        assert_eq!(seen(&d, 2, b"op", b"k1", 200), Found::New, "another tool");
        assert_eq!(
            seen(&d, 1, b"viewer", b"k1", 200),
            Found::New,
            "another principal"
        );
        assert_eq!(
            seen(&d, 1, b"op", b"k1", 100 + u64::from(MCP_DEDUP_WINDOW_MS)),
            Found::New,
            "expired"
        );
        record(&d, 1, b"op", b"big", 300, &[b'x'; MCP_DEDUP_RESULT_MAX + 1]);
        assert_eq!(seen(&d, 1, b"op", b"big", 300), Found::Gone);
        for i in 0..MCP_DEDUP_SLOTS as u64 {
            record(&d, 3, b"op", &[b'a' + i as u8], 1000 + i, b"r");
        }
        assert_eq!(
            seen(&d, 1, b"op", b"k1", 1000),
            Found::New,
            "the oldest was evicted"
        );
        assert_eq!(seen(&d, 3, b"op", b"a", 2000), res(b"r"));
        // Across the 32-bit wrap of the millisecond clock.
        let w = u64::from(u32::MAX) - 5;
        record(&d, 4, b"", b"w", w, b"x");
        assert_eq!(seen(&d, 4, b"", b"w", w + 10), res(b"x"));
        record(&d, 4, b"", &[b'k'; MCP_DEDUP_KEY_MAX + 1], 5, b"x");
        assert_eq!(
            seen(&d, 4, b"", &[b'k'; MCP_DEDUP_KEY_MAX + 1], 5),
            Found::New,
            "overlong keys are never stored"
        );
    }

    #[test]
    fn a_full_table_evicts_the_oldest_across_the_clock_wrap() {
        let d = Dedup::new();
        // Half the entries just before a 32-bit millisecond counter wraps,
        // half after it: the numerically largest stamps are the oldest.
        let before = u64::from(u32::MAX) - 1000;
        for i in 0..MCP_DEDUP_SLOTS as u64 {
            let at = if i < MCP_DEDUP_SLOTS as u64 / 2 {
                before + i * 10
            } else {
                i * 10
            };
            record(&d, 0, b"op", &[b'a' + i as u8], at, &[b'0' + i as u8]);
        }
        let now = MCP_DEDUP_SLOTS as u64 * 10;
        for i in 0..MCP_DEDUP_SLOTS as u8 {
            assert_eq!(seen(&d, 0, b"op", &[b'a' + i], now), res(&[b'0' + i]));
        }
        record(&d, 0, b"op", b"new", now, b"n");
        assert_eq!(seen(&d, 0, b"op", b"b", now), res(b"1"));
        assert_eq!(seen(&d, 0, b"op", b"new", now), res(b"n"));
        let last = [b'a' + MCP_DEDUP_SLOTS as u8 - 1];
        assert_eq!(
            seen(
                &d,
                0,
                b"op",
                &last,
                now - 10 + u64::from(MCP_DEDUP_WINDOW_MS) - 1
            ),
            res(&[b'0' + MCP_DEDUP_SLOTS as u8 - 1]),
            "still inside its window"
        );
        assert_eq!(
            seen(
                &d,
                0,
                b"op",
                b"b",
                before + 10 + u64::from(MCP_DEDUP_WINDOW_MS)
            ),
            Found::New,
            "expired one window after it was recorded, across the wrap"
        );
        // (Looked up last: a new key's claim takes the oldest entry at once.)
        assert_eq!(seen(&d, 0, b"op", b"a", now), Found::New, "the oldest went");
    }

    #[test]
    fn a_running_key_is_in_progress_and_never_evicted() {
        let d = Dedup::new();
        let mut out = [0u8; MCP_DEDUP_RESULT_MAX];
        let Seen::New(first) = d.claim(0, b"op", b"k", 10, None, &mut out) else {
            panic!("new key");
        };
        assert_eq!(seen(&d, 0, b"op", b"k", 10), Found::InProgress);
        assert_eq!(
            seen(&d, 0, b"op", b"k", 10 + u64::from(MCP_DEDUP_WINDOW_MS)),
            Found::InProgress,
            "however long it runs"
        );
        // Filling the rest of the table (and more) never takes its entry.
        for i in 0..2 * MCP_DEDUP_SLOTS as u8 {
            record(&d, 1, b"op", &[i], 20 + u64::from(i), b"r");
        }
        assert_eq!(seen(&d, 0, b"op", b"k", 30), Found::InProgress);
        d.finish(first, Some(b"\"done\":1"));
        assert_eq!(seen(&d, 0, b"op", b"k", 40), res(b"\"done\":1"));
        // A call that gives its key back lets the key run again.
        let Seen::New(t) = d.claim(0, b"op", b"again", 50, None, &mut out) else {
            panic!("new key");
        };
        d.finish(t, None);
        assert_eq!(seen(&d, 0, b"op", b"again", 60), Found::New);
        // Every entry running: nothing is evicted, the next key is busy.
        let d = Dedup::new();
        let held: Vec<Ticket> = (0..MCP_DEDUP_SLOTS as u8)
            .map(|i| match d.claim(0, b"", &[i], 1, None, &mut out) {
                Seen::New(t) => t,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(seen(&d, 0, b"", b"x", 1), Found::Busy);
        for t in held {
            d.finish(t, None);
        }
        assert_eq!(seen(&d, 0, b"", b"x", 1), Found::New);
        // A taken lock (another call looking up) is busy after bounded tries.
        d.lock.store(1, Ordering::Relaxed);
        assert_eq!(seen(&d, 0, b"", b"x", 1), Found::Busy);
    }

    #[test]
    fn two_threads_with_one_key_run_it_once() {
        use std::sync::atomic::AtomicUsize;
        let d = Dedup::new();
        let runs = AtomicUsize::new(0);
        for round in 0..200u8 {
            let barrier = std::sync::Barrier::new(2);
            std::thread::scope(|sc| {
                for _ in 0..2 {
                    sc.spawn(|| {
                        let mut out = [0u8; MCP_DEDUP_RESULT_MAX];
                        barrier.wait();
                        if let Seen::New(t) = d.claim(0, b"op", &[round], 1, None, &mut out) {
                            runs.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            d.finish(t, Some(b"r"));
                        }
                    });
                }
            });
        }
        assert_eq!(runs.load(Ordering::SeqCst), 200);
    }
}
