//! The core's atomics: the one read-modify-write it needs (compare-and-swap
//! of a 32-bit word, for the rate-limit claim and the duplicate table's
//! lock), and the enabled flags of its fixed tables ([`Switches`], plain
//! atomic loads and stores).
//!
//! Owns: that compare-and-swap on every target. Where the target has it
//! (`target_has_atomic = "32"`: Cortex-M3 and up, RISC-V with the A
//! extension, every hosted target) it is the hardware's; where it has only
//! atomic loads and stores (`thumbv6m`, Cortex-M0/M0+) it is a load, compare
//! and store inside the firmware's critical section
//! (`mcp_server_set_critical`), or without one a plain load and store, which
//! is atomic only when one thread at a time calls `mcp_server_handle`.
//! Must not: wait. A caller that loses a swap decides what to do (retry
//! against the new value, or answer busy); nothing here spins.

use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Enters the firmware's critical section; returns what `exit` restores
/// (e.g. the interrupt mask).
pub type EnterFn = extern "C" fn(user: *mut c_void) -> u32;

/// Leaves the critical section `enter` opened, with its return value.
pub type ExitFn = extern "C" fn(user: *mut c_void, state: u32);

/// The firmware's critical section, for targets without compare-and-swap.
#[derive(Clone, Copy)]
pub struct Critical {
    /// Opens it.
    pub enter: EnterFn,
    /// Closes it.
    pub exit: ExitFn,
    /// Passed to both.
    pub user: *mut c_void,
}

/// Replaces `word` with `new` if it holds `old`, atomically with respect to
/// every other [`cas`] and store on it; true when it did. `crit` is used only
/// on a target without compare-and-swap.
pub fn cas(word: &AtomicU32, old: u32, new: u32, crit: Option<&Critical>) -> bool {
    #[cfg(target_has_atomic = "32")]
    {
        let _ = crit;
        word.compare_exchange(old, new, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
    #[cfg(not(target_has_atomic = "32"))]
    {
        cas_by_load_store(word, old, new, crit)
    }
}

/// Raises `word` to `value` if it holds less, atomically with respect to
/// every other [`raise`], [`cas`] and store on it (a high-water mark that
/// calls on any threads update at once). A lost swap is retried against the
/// value that won, which is larger: the loop ends once the word holds
/// `value` or more, after at most one retry per concurrent raise.
pub fn raise(word: &AtomicU32, value: u32, crit: Option<&Critical>) {
    loop {
        let seen = word.load(Ordering::Acquire);
        if seen >= value || cas(word, seen, value, crit) {
            return;
        }
    }
}

/// [`cas`] on a target with only atomic loads and stores: inside the
/// critical section when there is one.
#[cfg_attr(target_has_atomic = "32", allow(dead_code))]
fn cas_by_load_store(word: &AtomicU32, old: u32, new: u32, crit: Option<&Critical>) -> bool {
    let state = crit.map(|c| (c.enter)(c.user));
    let swapped = word.load(Ordering::Acquire) == old;
    if swapped {
        word.store(new, Ordering::Release);
    }
    if let (Some(c), Some(s)) = (crit, state) {
        (c.exit)(c.user, s);
    }
    swapped
}

/// Enabled flags for a fixed table. Reads and writes are single atomic
/// loads and stores (no read-modify-write, so Cortex-M0 has them), which makes
/// a switch safe to flip from a tool callback while requests are served.
pub struct Switches<const N: usize> {
    pub(crate) off: [AtomicBool; N],
}

impl<const N: usize> Switches<N> {
    /// Every entry enabled.
    pub const fn new() -> Self {
        Switches {
            off: [const { AtomicBool::new(false) }; N],
        }
    }

    /// Whether entry `i` is listed and callable.
    pub fn enabled(&self, i: usize) -> bool {
        self.off.get(i).is_some_and(|f| !f.load(Ordering::Relaxed))
    }

    /// Enables or disables entry `i`; returns whether the state changed.
    pub fn set(&self, i: usize, on: bool) -> bool {
        let Some(f) = self.off.get(i) else {
            return false;
        };
        let was_on = !f.load(Ordering::Relaxed);
        f.store(!on, Ordering::Relaxed);
        was_on != on
    }
}

impl<const N: usize> Default for Switches<N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_only_from_the_expected_value() {
        let w = AtomicU32::new(5);
        assert!(!cas(&w, 4, 9, None));
        assert_eq!(w.load(Ordering::Relaxed), 5);
        assert!(cas(&w, 5, 9, None));
        assert_eq!(w.load(Ordering::Relaxed), 9);
    }

    #[test]
    fn raise_keeps_the_largest_across_threads() {
        let w = AtomicU32::new(0);
        raise(&w, 7, None);
        raise(&w, 3, None);
        assert_eq!(w.load(Ordering::Relaxed), 7);
        let w = std::sync::Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                let w = w.clone();
                std::thread::spawn(move || {
                    for v in 0..5_000u32 {
                        raise(&w, v * 4 + t, None);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(w.load(Ordering::Relaxed), 4_999 * 4 + 3);
    }

    static DEPTH: AtomicU32 = AtomicU32::new(0);

    extern "C" fn enter(user: *mut c_void) -> u32 {
        assert_eq!(DEPTH.fetch_add(1, Ordering::SeqCst), 0, "never nested");
        user as usize as u32
    }

    extern "C" fn exit(user: *mut c_void, state: u32) {
        assert_eq!(state, user as usize as u32, "exit gets what enter returned");
        DEPTH.fetch_sub(1, Ordering::SeqCst);
    }

    #[test]
    fn without_cas_the_swap_is_inside_the_critical_section() {
        let c = Critical {
            enter,
            exit,
            user: 0x5a as *mut c_void,
        };
        let w = AtomicU32::new(1);
        assert!(!cas_by_load_store(&w, 2, 3, Some(&c)));
        assert!(cas_by_load_store(&w, 1, 3, Some(&c)));
        assert_eq!(w.load(Ordering::Relaxed), 3);
        assert_eq!(DEPTH.load(Ordering::SeqCst), 0);
        assert!(
            cas_by_load_store(&w, 3, 4, None),
            "no hook: plain load and store"
        );
    }
}
