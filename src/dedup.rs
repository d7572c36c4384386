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
//!
//! With a store (`mcp_store_t`, [`crate::store`]) the table is also kept on
//! flash: before a claimed key's tool runs, an intent record is made durable
//! ([`Dedup::persist_intent`]); when it ends, its result (or a release) is
//! appended ([`Dedup::finish`]). [`Dedup::load`] replays the log at start-up:
//! a key with a result answers from it, a key with only an intent is
//! `UNKNOWN` (interrupted) and never runs again by itself. Store hooks run
//! with the lock held (a call meanwhile tries its bounded number of times,
//! then is answered busy). Compaction: when an append would take the log past
//! `MCP_STORE_LOG_MAX` (or the backend refuses it), the log is restarted with
//! one record per live entry, and the next sync swaps it in.
//! Must not: keep input_required or JSON-RPC error results (only final ones).

use core::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};

use crate::limits::{
    MCP_DEDUP_KEY_MAX, MCP_DEDUP_RESULT_MAX, MCP_DEDUP_SLOTS, MCP_DEDUP_WINDOW_MS, MCP_STORE_GONE,
    MCP_STORE_INTENT, MCP_STORE_LOG_MAX, MCP_STORE_RECORD_MAX, MCP_STORE_RELEASE, MCP_STORE_RESULT,
};
use crate::store::{Durable, HEADER_LEN, Head, Log, Record, TAG_MAX, decode, encode, record_len};
use crate::sync::{Critical, cas};

/// Slot states.
const FREE: u8 = 0;
/// Claimed: its tool is running; nobody else may run this key.
const RUNNING: u8 = 1;
/// Its result is kept, to replay.
const DONE: u8 = 2;
/// Its result did not fit: a repeat is refused instead of replayed.
const GONE: u8 = 3;
/// Appends entry `i`'s record of a kind to the log, with a sync when asked
/// ([`Dedup::WRITER`]). Rust only, not part of the C ABI.
///
/// cbindgen:ignore
pub type WriteFn = fn(&Dedup, &Log, usize, u8, bool) -> bool;

/// A store attached to a table: its hooks, and the record writer handed
/// over by whoever attached it (so the record code is reached through
/// this pointer only).
pub struct Attached<'s, S> {
    /// The store's hooks.
    pub store: &'s S,
    /// [`Dedup::WRITER`].
    pub write: WriteFn,
}

impl<S> Clone for Attached<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Attached<'_, S> {}

/// Read back from a store as an intent without a result: the run was
/// interrupted, its outcome is unknown; it never runs again by itself.
const UNKNOWN: u8 = 4;
/// Running, and its intent record is durable.
const STARTED: u8 = 5;

/// How often a call tries to take the table's lock before it is answered
/// busy (the lock is held for a look-up of `MCP_DEDUP_SLOTS` entries).
const LOCK_TRIES: u32 = 1000;

/// One entry. Every field is an atomic so several handle calls may share the
/// table without `unsafe`; the fields other than `state` are written only by
/// the lock holder (a new entry) or by the entry's own running call (its
/// result, published by `state`).
struct Slot {
    state: AtomicU8,
    /// The tool's tag (`crate::protocol::tools`: tool index, era, retry
    /// mark), below 2^24.
    tool: AtomicU32,
    key_len: AtomicU8,
    len: AtomicU16,
    principal: AtomicU32,
    at_ms: AtomicU32,
    /// The table's claim count when this entry was filled: orders entries
    /// claimed within the same millisecond.
    seq: AtomicU32,
    key: [AtomicU8; MCP_DEDUP_KEY_MAX],
    result: [AtomicU8; MCP_DEDUP_RESULT_MAX],
}

impl Slot {
    const fn new() -> Self {
        Slot {
            state: AtomicU8::new(FREE),
            tool: AtomicU32::new(0),
            key_len: AtomicU8::new(0),
            len: AtomicU16::new(0),
            principal: AtomicU32::new(0),
            at_ms: AtomicU32::new(0),
            seq: AtomicU32::new(0),
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
    /// Seen before a restart, interrupted: its outcome is unknown.
    Unknown,
    /// As `Unknown`, claimed for the store's recovery callback: run it
    /// instead of the tool, then finish the ticket with its result (or with
    /// [`End::Unknown`]).
    Recover(Ticket),
}

/// A claimed entry, to finish once the call has answered.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct Ticket(usize);

/// How a claimed call ended.
#[derive(Clone, Copy, Debug)]
pub enum End<'a> {
    /// Without a final result: the key may run again.
    Release,
    /// With these result members, to replay.
    Keep(&'a [u8]),
    /// Still unknown (a recovery that could not tell).
    Unknown,
}

/// The duplicate table.
pub struct Dedup {
    /// 1 while a call looks up or claims (see the module doc).
    lock: AtomicU32,
    /// Bytes in the store's log (written with the lock held).
    log_len: AtomicU32,
    /// Entries filled so far (wrapping; written with the lock held).
    next_seq: AtomicU32,
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
            log_len: AtomicU32::new(0),
            next_seq: AtomicU32::new(0),
            slots: [const { Slot::new() }; MCP_DEDUP_SLOTS],
        }
    }

    /// The live entry for a key, with its index and state as read once (a
    /// running entry may finish meanwhile; only its own call changes it).
    fn find(&self, tool: u32, principal: u32, key: &[u8], now: u32) -> Option<(usize, u8)> {
        self.slots.iter().enumerate().find_map(|(i, s)| {
            let state = s.state.load(Ordering::Acquire);
            let live = state != FREE
                && s.tool.load(Ordering::Relaxed) == tool
                && s.principal.load(Ordering::Relaxed) == principal
                && s.key_is(key)
                // A running or interrupted call's key is taken however long.
                && (matches!(state, RUNNING | STARTED | UNKNOWN)
                    || now.wrapping_sub(s.at_ms.load(Ordering::Relaxed)) < MCP_DEDUP_WINDOW_MS);
            live.then_some((i, state))
        })
    }

    /// The entry a new key takes: a free one, else the oldest finished one
    /// (expired or not), else the oldest interrupted one; never a running one.
    /// Among entries of one age the earliest claimed goes first.
    fn victim(&self, now: u32) -> Option<usize> {
        let next = self.next_seq.load(Ordering::Relaxed);
        let rank = |s: &Slot| match s.state.load(Ordering::Acquire) {
            FREE => Some((2, u32::MAX, u32::MAX)),
            RUNNING | STARTED => None,
            st => Some((
                u8::from(st != UNKNOWN),
                now.wrapping_sub(s.at_ms.load(Ordering::Relaxed)),
                next.wrapping_sub(s.seq.load(Ordering::Relaxed)),
            )),
        };
        (0..self.slots.len())
            .filter_map(|i| Some((i, self.slots.get(i).and_then(rank)?)))
            .max_by_key(|&(_, r)| r)
            .map(|(i, _)| i)
    }

    /// Writes an entry's identity (its result length 0) and its place in
    /// the order of claims. Lock held (or the table not yet in use).
    fn fill(&self, s: &Slot, tool: u32, principal: u32, key: &[u8], now: u32) {
        let seq = self.next_seq.load(Ordering::Relaxed);
        self.next_seq.store(seq.wrapping_add(1), Ordering::Relaxed);
        s.seq.store(seq, Ordering::Relaxed);
        s.tool.store(tool, Ordering::Relaxed);
        s.principal.store(principal, Ordering::Relaxed);
        s.at_ms.store(now, Ordering::Relaxed);
        s.key_len.store(key.len() as u8, Ordering::Relaxed);
        for (d, &b) in s.key.iter().zip(key) {
            d.store(b, Ordering::Relaxed);
        }
        s.len.store(0, Ordering::Relaxed);
    }

    /// Copies a result into an entry.
    fn keep(s: &Slot, r: &[u8]) {
        for (d, &b) in s.result.iter().zip(r) {
            d.store(b, Ordering::Relaxed);
        }
        s.len.store(r.len() as u16, Ordering::Relaxed);
    }

    /// Takes the table's lock within the bounded number of tries.
    fn lock(&self, crit: Option<&Critical>) -> bool {
        (0..LOCK_TRIES).any(|_| {
            let taken = cas(&self.lock, 0, 1, crit);
            if !taken {
                core::hint::spin_loop();
            }
            taken
        })
    }

    fn unlock(&self) {
        self.lock.store(0, Ordering::Release);
    }

    /// Looks `key` up for `tool` and `principal` at `now_ms` and, when it is
    /// new, claims it: from then on the same key is answered in progress
    /// until [`Dedup::finish`]. A new entry takes a free slot or else the
    /// oldest finished one (expired or not); a running one is never evicted.
    /// A replayed result is copied into `out` while the table is locked.
    /// `crit` is the firmware's critical section, used only on targets
    /// without compare-and-swap.
    /// An interrupted key is [`Seen::Recover`] when `recoverable` (the store
    /// has a recovery callback), else [`Seen::Unknown`].
    #[allow(clippy::too_many_arguments)]
    pub fn claim(
        &self,
        tool: usize,
        principal: &[u8],
        key: &[u8],
        now_ms: u64,
        crit: Option<&Critical>,
        recoverable: bool,
        out: &mut [u8; MCP_DEDUP_RESULT_MAX],
    ) -> Seen {
        // A key the table cannot hold is not tracked (the caller refuses
        // overlong keys; a tool's tag is below 2^24 for every tool a
        // server can hold: mcp_server_set_tool_storage takes at most 2^22).
        let Some(tool) = u32::try_from(tool).ok().filter(|&t| t <= TAG_MAX) else {
            return Seen::New(Ticket(usize::MAX));
        };
        if key.len() > MCP_DEDUP_KEY_MAX {
            return Seen::New(Ticket(usize::MAX));
        }
        if !self.lock(crit) {
            return Seen::Busy;
        }
        let now = now_ms as u32;
        let seen = self.claim_locked(tool, fnv(principal), key, now, recoverable, out);
        self.unlock();
        seen
    }

    fn claim_locked(
        &self,
        tool: u32,
        principal: u32,
        key: &[u8],
        now: u32,
        recoverable: bool,
        out: &mut [u8; MCP_DEDUP_RESULT_MAX],
    ) -> Seen {
        if let Some((i, state)) = self.find(tool, principal, key, now) {
            let Some(s) = self.slots.get(i) else {
                return Seen::Busy;
            };
            return match state {
                RUNNING | STARTED => Seen::InProgress,
                GONE => Seen::Gone,
                UNKNOWN if recoverable => {
                    // Its intent is in the log already.
                    s.state.store(STARTED, Ordering::Release);
                    Seen::Recover(Ticket(i))
                }
                UNKNOWN => Seen::Unknown,
                _ => {
                    let len = usize::from(s.len.load(Ordering::Relaxed)).min(out.len());
                    for (d, b) in out.iter_mut().zip(&s.result).take(len) {
                        *d = b.load(Ordering::Relaxed);
                    }
                    Seen::Result(len)
                }
            };
        }
        let Some((victim, s)) = self.victim(now).and_then(|i| Some((i, self.slots.get(i)?))) else {
            return Seen::Busy;
        };
        self.fill(s, tool, principal, key, now);
        s.state.store(RUNNING, Ordering::Release);
        Seen::New(Ticket(victim))
    }

    /// The writer of records into an attached store, for [`Attached`]:
    /// named only where a store is attached (`mcp_dedup_set_store`), so a
    /// firmware that never attaches one links none of the record code.
    ///
    /// cbindgen:ignore
    pub const WRITER: WriteFn = Dedup::write;

    /// Makes the claimed call's intent durable in `log` before its tool
    /// runs: one append and one sync (or a compaction). False when the
    /// store failed or the lock stayed taken: the tool must not run (finish
    /// the ticket with [`End::Release`]).
    pub fn persist_intent<S: Durable>(
        &self,
        ticket: &Ticket,
        store: Attached<'_, S>,
        crit: Option<&Critical>,
    ) -> bool {
        let (Some(s), Some(log)) = (self.slots.get(ticket.0), store.store.log()) else {
            return false;
        };
        let log = &log;
        if !self.lock(crit) {
            return false;
        }
        s.state.store(STARTED, Ordering::Release);
        let ok = (store.write)(self, log, ticket.0, MCP_STORE_INTENT, true);
        if !ok {
            s.state.store(RUNNING, Ordering::Release);
        }
        self.unlock();
        ok
    }

    /// Ends a claim: keeps the call's final result members for repeats of
    /// its key (refusing repeats when they do not fit), or with
    /// [`End::Release`] frees the entry so the key may run again (an
    /// input_required answer or a JSON-RPC error is not final). The entry
    /// the claim evicted, if any, stays evicted. With a `log` and a durable
    /// intent, the end is appended too: a result with a sync, a release
    /// without one (lost, it only leaves the key unknown).
    pub fn finish<S: Durable>(
        &self,
        ticket: Ticket,
        end: End<'_>,
        store: Option<Attached<'_, S>>,
        crit: Option<&Critical>,
    ) {
        // Only this call writes a running entry, so without a store no lock
        // is needed: the state store publishes the result.
        let Some(s) = self.slots.get(ticket.0) else {
            return;
        };
        let state = match end {
            End::Release => FREE,
            End::Unknown => UNKNOWN,
            End::Keep(r) if r.len() > s.result.len() => GONE,
            End::Keep(r) => {
                Self::keep(s, r);
                DONE
            }
        };
        let durable = s.state.load(Ordering::Acquire) == STARTED;
        let kind = match state {
            FREE => MCP_STORE_RELEASE,
            DONE => MCP_STORE_RESULT,
            _ => MCP_STORE_GONE,
        };
        let log = store
            .filter(|_| durable && state != UNKNOWN)
            .and_then(|st| Some((st.store.log()?, st.write)));
        match log {
            // Not written when the lock stays taken: a restart then reads
            // the key as unknown, never as a result.
            Some((log, write)) if self.lock(crit) => {
                s.state.store(state, Ordering::Release);
                let _ = write(self, &log, ticket.0, kind, kind != MCP_STORE_RELEASE);
                self.unlock();
            }
            _ => s.state.store(state, Ordering::Release),
        }
    }

    /// Encodes entry `i` as a record of `kind` into `buf`.
    fn encode_slot(
        &self,
        i: usize,
        kind: u8,
        buf: &mut [u8; MCP_STORE_RECORD_MAX],
    ) -> Option<usize> {
        let s = self.slots.get(i)?;
        let k = usize::from(s.key_len.load(Ordering::Relaxed)).min(MCP_DEDUP_KEY_MAX);
        let n = if kind == MCP_STORE_RESULT {
            usize::from(s.len.load(Ordering::Relaxed)).min(MCP_DEDUP_RESULT_MAX)
        } else {
            0
        };
        let head = Head {
            kind,
            tag: s.tool.load(Ordering::Relaxed),
            principal: s.principal.load(Ordering::Relaxed),
        };
        encode(head, bytes(&s.key, k), bytes(&s.result, n), buf)
    }

    /// Appends entry `i`'s record (the entry already in its new state) and
    /// syncs when `sync`; compacts instead when the log is full. Lock held.
    fn write(&self, log: &Log, i: usize, kind: u8, sync: bool) -> bool {
        let mut buf = [0u8; MCP_STORE_RECORD_MAX];
        let Some(n) = self.encode_slot(i, kind, &mut buf) else {
            return false;
        };
        let len = self.log_len.load(Ordering::Relaxed) as usize;
        let appended = len + n <= MCP_STORE_LOG_MAX && log.append(buf.get(..n).unwrap_or(&[]));
        if appended {
            self.log_len.store((len + n) as u32, Ordering::Relaxed);
            return !sync || log.sync();
        }
        // The new log holds this entry's record too (a released one is
        // left out, which is what its release says).
        let at = self
            .slots
            .get(i)
            .map_or(0, |s| s.at_ms.load(Ordering::Relaxed));
        self.compact(log, &mut buf, at) && log.sync()
    }

    /// Restarts the log with one record per live entry, oldest first by
    /// their times relative to `reference` (ms): a restart ages loaded
    /// entries by their place in the log, so it then evicts in the order
    /// this table would. Lock held; the caller's sync swaps the new log in.
    fn compact(&self, log: &Log, buf: &mut [u8; MCP_STORE_RECORD_MAX], reference: u32) -> bool {
        if !log.restart() {
            return false;
        }
        let kind_of = |s: &Slot| match s.state.load(Ordering::Acquire) {
            STARTED | UNKNOWN => Some(MCP_STORE_INTENT),
            DONE => Some(MCP_STORE_RESULT),
            GONE => Some(MCP_STORE_GONE),
            _ => None,
        };
        // Signed: an entry claimed after `reference` sorts after it.
        let when = |s: &Slot| s.at_ms.load(Ordering::Relaxed).wrapping_sub(reference) as i32;
        // Ties on the clock in the order of claims (earliest first).
        let next = self.next_seq.load(Ordering::Relaxed);
        let order = |s: &Slot| s.seq.load(Ordering::Relaxed).wrapping_sub(next);
        let mut written = [false; MCP_DEDUP_SLOTS];
        let mut len = 0;
        loop {
            let next = self
                .slots
                .iter()
                .enumerate()
                .filter(|&(i, _)| written.get(i) == Some(&false))
                .filter_map(|(i, s)| Some((when(s), order(s), i, kind_of(s)?)))
                .min();
            let Some((_, _, i, kind)) = next else {
                break;
            };
            if let Some(w) = written.get_mut(i) {
                *w = true;
            }
            let Some(n) = self.encode_slot(i, kind, buf) else {
                return false;
            };
            if !log.append(buf.get(..n).unwrap_or(&[])) {
                return false;
            }
            len += n;
        }
        self.log_len.store(len as u32, Ordering::Relaxed);
        true
    }

    /// Replays `log` into this (empty) table at start-up, at `now_ms`:
    /// results are kept for a window from now, intents without a result
    /// become interrupted keys. A record that does not check (torn by power
    /// loss) ends the log; the log is then rewritten without it. Returns
    /// the entries kept, or the read hook's error, or -MCP_EIO when the
    /// rewrite failed. Must not run while the table is in use.
    pub fn load(&self, log: &Log, now_ms: u64) -> Result<usize, i32> {
        let mut buf = [0u8; MCP_STORE_RECORD_MAX];
        let mut off = 0;
        let mut torn = false;
        let mut seq = 0u32;
        loop {
            let got = log.read(off, buf.get_mut(..HEADER_LEN).unwrap_or(&mut []))?;
            if got == 0 {
                break;
            }
            let n = match record_len(buf.get(..got).unwrap_or(&[])) {
                Some(n) if got == HEADER_LEN => n,
                _ => {
                    torn = true;
                    break;
                }
            };
            let rest = log.read(
                off + HEADER_LEN,
                buf.get_mut(HEADER_LEN..n).unwrap_or(&mut []),
            )?;
            let Some(r) = decode(buf.get(..HEADER_LEN + rest).unwrap_or(&[])) else {
                torn = true;
                break;
            };
            // Later records are younger, so eviction keeps the newest; a
            // loaded result's window starts (about) now.
            let at = (now_ms as u32).wrapping_sub(LOAD_SPREAD - seq.min(LOAD_SPREAD - 1));
            self.apply(&r, at);
            seq = seq.saturating_add(1);
            off += n;
        }
        self.log_len.store(off as u32, Ordering::Relaxed);
        if torn && !(self.compact(log, &mut buf, now_ms as u32) && log.sync()) {
            return Err(-crate::limits::MCP_EIO);
        }
        Ok(self
            .slots
            .iter()
            .filter(|s| s.state.load(Ordering::Relaxed) != FREE)
            .count())
    }

    /// Applies one record read back from the log.
    fn apply(&self, r: &Record<'_>, at: u32) {
        let Head {
            kind,
            tag,
            principal,
        } = r.head;
        let found = self.slots.iter().position(|s| {
            s.state.load(Ordering::Relaxed) != FREE
                && s.tool.load(Ordering::Relaxed) == tag
                && s.principal.load(Ordering::Relaxed) == principal
                && s.key_is(r.key)
        });
        if kind == MCP_STORE_RELEASE {
            if let Some(s) = found.and_then(|i| self.slots.get(i)) {
                s.state.store(FREE, Ordering::Relaxed);
            }
            return;
        }
        let Some(s) = found
            .or_else(|| self.victim(at))
            .and_then(|i| self.slots.get(i))
        else {
            return;
        };
        self.fill(s, tag, principal, r.key, at);
        let state = match kind {
            MCP_STORE_RESULT => {
                Self::keep(s, r.result);
                DONE
            }
            MCP_STORE_GONE => GONE,
            _ => UNKNOWN,
        };
        s.state.store(state, Ordering::Release);
    }
}

/// The first `n` bytes of an entry's field.
fn bytes(a: &[AtomicU8], n: usize) -> impl ExactSizeIterator<Item = u8> + '_ {
    a.iter().take(n).map(|b| b.load(Ordering::Relaxed))
}

/// Milliseconds before now that the first loaded record is stamped; each
/// later one is 1 ms younger (at most this many records are told apart).
const LOAD_SPREAD: u32 = 2048;

#[cfg(test)]
mod tests {
    use super::*;

    /// No store (the RAM-only table).
    const NO_STORE: Option<Attached<'_, Log>> = None;

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
        match d.claim(tool, p, key, now, None, false, &mut out) {
            Seen::New(t) => {
                d.finish(t, End::Release, NO_STORE, None);
                Found::New
            }
            Seen::Result(n) => Found::Result(out[..n].to_vec()),
            Seen::Gone => Found::Gone,
            Seen::InProgress => Found::InProgress,
            Seen::Busy => Found::Busy,
            other => panic!("{other:?}"),
        }
    }

    fn record(d: &Dedup, tool: usize, p: &[u8], key: &[u8], now: u64, result: &[u8]) {
        let mut out = [0u8; MCP_DEDUP_RESULT_MAX];
        match d.claim(tool, p, key, now, None, false, &mut out) {
            Seen::New(t) => d.finish(t, End::Keep(result), NO_STORE, None),
            other => panic!("{other:?}"),
        }
    }

    /// Keys claimed within one millisecond are evicted oldest first too:
    /// the last MCP_DEDUP_SLOTS keys are always remembered, however fast
    /// they come (a tie on the clock is broken by the order of claims).
    #[test]
    fn a_burst_in_one_millisecond_keeps_the_newest_keys() {
        let d = Dedup::new();
        let n = MCP_DEDUP_SLOTS * 3;
        for k in 0..n {
            record(&d, 1, b"op", format!("k{k}").as_bytes(), 500, b"r");
            for back in 0..MCP_DEDUP_SLOTS.min(k + 1) {
                let key = format!("k{}", k - back);
                assert_eq!(
                    seen(&d, 1, b"op", key.as_bytes(), 500),
                    res(b"r"),
                    "{key} forgotten after k{k}"
                );
            }
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
        let Seen::New(first) = d.claim(0, b"op", b"k", 10, None, false, &mut out) else {
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
        d.finish(first, End::Keep(b"\"done\":1"), NO_STORE, None);
        assert_eq!(seen(&d, 0, b"op", b"k", 40), res(b"\"done\":1"));
        // A call that gives its key back lets the key run again.
        let Seen::New(t) = d.claim(0, b"op", b"again", 50, None, false, &mut out) else {
            panic!("new key");
        };
        d.finish(t, End::Release, NO_STORE, None);
        assert_eq!(seen(&d, 0, b"op", b"again", 60), Found::New);
        // Every entry running: nothing is evicted, the next key is busy.
        let d = Dedup::new();
        let held: Vec<Ticket> = (0..MCP_DEDUP_SLOTS as u8)
            .map(|i| match d.claim(0, b"", &[i], 1, None, false, &mut out) {
                Seen::New(t) => t,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(seen(&d, 0, b"", b"x", 1), Found::Busy);
        for t in held {
            d.finish(t, End::Release, NO_STORE, None);
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
                        if let Seen::New(t) = d.claim(0, b"op", &[round], 1, None, false, &mut out)
                        {
                            runs.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            d.finish(t, End::Keep(b"r"), NO_STORE, None);
                        }
                    });
                }
            });
        }
        assert_eq!(runs.load(Ordering::SeqCst), 200);
    }
}
