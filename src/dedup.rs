//! Duplicate rejection for tools that declare an idempotency-key argument: a
//! repeated key answers with the original result and never runs the tool twice.
//!
//! Owns: a fixed table of recent (tool, principal, key) → result members,
//! with a time window and oldest-first eviction. The table lives in storage
//! the transport owns (`mcp_dedup_t`) and hands in per request, so the core
//! needs no shared mutable state.
//! Must not: keep input_required or JSON-RPC error results (only final ones).

use crate::limits::{
    MCP_DEDUP_KEY_MAX, MCP_DEDUP_RESULT_MAX, MCP_DEDUP_SLOTS, MCP_DEDUP_WINDOW_MS,
};

#[derive(Clone, Copy)]
struct Slot {
    used: bool,
    /// The result did not fit: a repeat is refused instead of replayed.
    gone: bool,
    tool: u8,
    principal: u32,
    at_ms: u32,
    key_len: u8,
    key: [u8; MCP_DEDUP_KEY_MAX],
    len: u16,
    result: [u8; MCP_DEDUP_RESULT_MAX],
}

const EMPTY: Slot = Slot {
    used: false,
    gone: false,
    tool: 0,
    principal: 0,
    at_ms: 0,
    key_len: 0,
    key: [0; MCP_DEDUP_KEY_MAX],
    len: 0,
    result: [0; MCP_DEDUP_RESULT_MAX],
};

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen<'a> {
    /// Not seen within the window: run the tool.
    New,
    /// Seen: these are the original result's members, to send again.
    Result(&'a [u8]),
    /// Seen, but its result was too large to keep.
    Gone,
}

/// The duplicate table.
pub struct Dedup {
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
            slots: [EMPTY; MCP_DEDUP_SLOTS],
        }
    }

    fn find(&self, tool: u8, principal: u32, key: &[u8], now: u32) -> Option<usize> {
        self.slots.iter().position(|s| {
            s.used
                && s.tool == tool
                && s.principal == principal
                && s.key.get(..usize::from(s.key_len)) == Some(key)
                && now.wrapping_sub(s.at_ms) < MCP_DEDUP_WINDOW_MS
        })
    }

    /// Whether `key` was used with `tool` by `principal` within the window.
    pub fn seen(&self, tool: usize, principal: &[u8], key: &[u8], now_ms: u64) -> Seen<'_> {
        let Ok(tool) = u8::try_from(tool) else {
            return Seen::New;
        };
        match self
            .find(tool, fnv(principal), key, now_ms as u32)
            .and_then(|i| self.slots.get(i))
        {
            None => Seen::New,
            Some(s) if s.gone => Seen::Gone,
            Some(s) => Seen::Result(s.result.get(..usize::from(s.len)).unwrap_or(&[])),
        }
    }

    /// Records the result members of a call, evicting the oldest entry (or an
    /// expired one) when the table is full. A key longer than
    /// `MCP_DEDUP_KEY_MAX` is not recorded (the caller refuses such calls).
    pub fn record(
        &mut self,
        tool: usize,
        principal: &[u8],
        key: &[u8],
        now_ms: u64,
        result: &[u8],
    ) {
        let (Ok(tool), Ok(key_len)) = (u8::try_from(tool), u8::try_from(key.len())) else {
            return;
        };
        if key.len() > MCP_DEDUP_KEY_MAX {
            return;
        }
        let now = now_ms as u32;
        let age = |s: &Slot| {
            if s.used {
                now.wrapping_sub(s.at_ms)
            } else {
                u32::MAX
            }
        };
        let victim = (0..self.slots.len())
            .max_by_key(|&i| self.slots.get(i).map_or(0, age))
            .unwrap_or(0);
        let Some(s) = self.slots.get_mut(victim) else {
            return;
        };
        *s = EMPTY;
        s.used = true;
        s.tool = tool;
        s.principal = fnv(principal);
        s.at_ms = now;
        s.key_len = key_len;
        if let Some(dst) = s.key.get_mut(..key.len()) {
            dst.copy_from_slice(key);
        }
        match s.result.get_mut(..result.len()) {
            Some(dst) => {
                dst.copy_from_slice(result);
                s.len = result.len() as u16;
            }
            None => s.gone = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_within_the_window_and_evicts_the_oldest() {
        let mut d = Dedup::new();
        assert_eq!(d.seen(1, b"op", b"k1", 100), Seen::New);
        d.record(1, b"op", b"k1", 100, b"\"content\":[]");
        assert_eq!(
            d.seen(1, b"op", b"k1", 200),
            Seen::Result(b"\"content\":[]")
        );
        assert_eq!(d.seen(2, b"op", b"k1", 200), Seen::New, "another tool");
        assert_eq!(
            d.seen(1, b"viewer", b"k1", 200),
            Seen::New,
            "another principal"
        );
        assert_eq!(
            d.seen(1, b"op", b"k1", 100 + u64::from(MCP_DEDUP_WINDOW_MS)),
            Seen::New,
            "expired"
        );
        d.record(1, b"op", b"big", 300, &[b'x'; MCP_DEDUP_RESULT_MAX + 1]);
        assert_eq!(d.seen(1, b"op", b"big", 300), Seen::Gone);
        for i in 0..MCP_DEDUP_SLOTS as u64 {
            d.record(3, b"op", &[b'a' + i as u8], 1000 + i, b"r");
        }
        assert_eq!(
            d.seen(1, b"op", b"k1", 1000),
            Seen::New,
            "the oldest was evicted"
        );
        assert_eq!(d.seen(3, b"op", b"a", 2000), Seen::Result(b"r"));
        // Across the 32-bit wrap of the millisecond clock.
        let w = u64::from(u32::MAX) - 5;
        d.record(4, b"", b"w", w, b"x");
        assert_eq!(d.seen(4, b"", b"w", w + 10), Seen::Result(b"x"));
        d.record(4, b"", &[b'k'; MCP_DEDUP_KEY_MAX + 1], 5, b"x");
        assert_eq!(
            d.seen(4, b"", &[b'k'; MCP_DEDUP_KEY_MAX + 1], 5),
            Seen::New,
            "overlong keys are never stored"
        );
    }

    #[test]
    fn a_full_table_evicts_the_oldest_across_the_clock_wrap() {
        let mut d = Dedup::new();
        // Half the entries just before a 32-bit millisecond counter wraps,
        // half after it: the numerically largest stamps are the oldest.
        let before = u64::from(u32::MAX) - 1000;
        for i in 0..MCP_DEDUP_SLOTS as u64 {
            let at = if i < MCP_DEDUP_SLOTS as u64 / 2 {
                before + i * 10
            } else {
                i * 10
            };
            d.record(0, b"op", &[b'a' + i as u8], at, &[b'0' + i as u8]);
        }
        let now = MCP_DEDUP_SLOTS as u64 * 10;
        for i in 0..MCP_DEDUP_SLOTS as u8 {
            assert_eq!(
                d.seen(0, b"op", &[b'a' + i], now),
                Seen::Result(&[b'0' + i])
            );
        }
        d.record(0, b"op", b"new", now, b"n");
        assert_eq!(d.seen(0, b"op", b"a", now), Seen::New, "the oldest went");
        assert_eq!(d.seen(0, b"op", b"b", now), Seen::Result(b"1"));
        assert_eq!(d.seen(0, b"op", b"new", now), Seen::Result(b"n"));
        let last = [b'a' + MCP_DEDUP_SLOTS as u8 - 1];
        assert_eq!(
            d.seen(
                0,
                b"op",
                &last,
                now - 10 + u64::from(MCP_DEDUP_WINDOW_MS) - 1
            ),
            Seen::Result(&[b'0' + MCP_DEDUP_SLOTS as u8 - 1]),
            "still inside its window"
        );
        assert_eq!(
            d.seen(0, b"op", b"b", before + 10 + u64::from(MCP_DEDUP_WINDOW_MS)),
            Seen::New,
            "expired one window after it was recorded, across the wrap"
        );
    }
}
