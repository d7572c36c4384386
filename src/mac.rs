//! HMAC-SHA256 (FIPS 180-4, RFC 2104), for integrity-protecting the
//! `requestState` of multi-round-trip tool calls.
//!
//! Owns: a small, allocation-free SHA-256 and HMAC, and the server's choice
//! of MAC for `requestState` ([`StateMac`]: none, a key, or a firmware hook). A firmware with a crypto
//! accelerator can replace it with its own MAC through `mcp_server_set_state_mac`.
//! Must not: be used for anything but authenticating state the server itself
//! issued (it is not constant-time against cache attacks on every CPU).

/// Length of a SHA-256 digest and of the MAC, in bytes: the size of the
/// `out` buffer an `mcp_mac_fn` fills.
pub const MCP_MAC_LEN: usize = 32;

use core::ffi::{c_int, c_void};

use crate::limits::{MCP_MAX_REQUEST_STATE, MCP_MAX_TOOL_NAME_LEN};

/// A MAC supplied by the firmware: writes `MCP_MAC_LEN` bytes of a MAC of
/// `data[..len]` to `out`; returns 0 or a negative `MCP_E*` value.
pub type MacFn =
    extern "C" fn(user: *mut c_void, data: *const u8, len: usize, out: *mut u8) -> c_int;

/// How the server protects `requestState`.
#[derive(Clone, Copy)]
pub enum StateMac {
    /// Not configured: tools cannot set a request state.
    None,
    /// The built-in HMAC-SHA256 under this key (its first `len` bytes).
    Key([u8; 64], u8),
    /// The firmware's own MAC.
    Hook(MacFn, *mut c_void),
}

const LABEL: &[u8] = b"emcp/requestState/1\0";

impl StateMac {
    /// True when a state can be protected.
    pub fn enabled(&self) -> bool {
        !matches!(self, StateMac::None)
    }

    /// The MAC of `state` bound to `tool`, `None` when none is configured
    /// (or the hook failed).
    pub(crate) fn mac(&self, tool: &[u8], state: &[u8]) -> Option<[u8; MCP_MAC_LEN]> {
        match *self {
            StateMac::None => None,
            StateMac::Key(k, n) => {
                let key = k.get(..usize::from(n))?;
                Some(hmac_sha256(key, &[LABEL, tool, b"\0", state]))
            }
            StateMac::Hook(f, user) => {
                let mut buf =
                    [0u8; LABEL.len() + MCP_MAX_TOOL_NAME_LEN + 1 + MCP_MAX_REQUEST_STATE];
                let mut n = 0;
                for part in [LABEL, tool, b"\0", state] {
                    crate::json::copy_bytes(buf.get_mut(n..n + part.len())?, part);
                    n += part.len();
                }
                let mut out = [0u8; MCP_MAC_LEN];
                (f(user, buf.as_ptr(), n, out.as_mut_ptr()) == 0).then_some(out)
            }
        }
    }
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// Streaming SHA-256.
#[derive(Clone)]
pub struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    fill: usize,
    total: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha256 {
    /// A fresh hash.
    pub const fn new() -> Self {
        Sha256 {
            state: [
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19,
            ],
            block: [0; 64],
            fill: 0,
            total: 0,
        }
    }

    fn compress(&mut self) {
        // The message schedule as a rolling window of 16 words (64 bytes on
        // the stack instead of 256): word i lives in w[i % 16].
        let mut w = [0u32; 16];
        for (slot, chunk) in w.iter_mut().zip(self.block.chunks_exact(4)) {
            if let Ok(b) = <[u8; 4]>::try_from(chunk) {
                *slot = u32::from_be_bytes(b);
            }
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.state;
        for (i, &k) in K.iter().enumerate() {
            let at = |j: usize| w.get(j & 15).copied().unwrap_or(0);
            let wi = if i < 16 {
                at(i)
            } else {
                let (w2, w7, w15, w16) = (at(i + 14), at(i + 9), at(i + 1), at(i));
                let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
                let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
                let v = w16.wrapping_add(s0).wrapping_add(w7).wrapping_add(s1);
                if let Some(slot) = w.get_mut(i & 15) {
                    *slot = v;
                }
                v
            };
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = h
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(k)
                .wrapping_add(wi);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            h = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }

    /// Hashes more bytes.
    pub fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        while !data.is_empty() {
            let n = (64 - self.fill).min(data.len());
            let (head, tail) = data.split_at(n);
            if let Some(dst) = self.block.get_mut(self.fill..self.fill + n) {
                crate::json::copy_bytes(dst, head);
            }
            self.fill += n;
            data = tail;
            if self.fill == 64 {
                self.compress();
                self.fill = 0;
            }
        }
    }

    /// The digest.
    pub fn finish(mut self) -> [u8; MCP_MAC_LEN] {
        let bits = self.total.wrapping_mul(8);
        self.update(&[0x80]);
        while self.fill != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0u8; MCP_MAC_LEN];
        for (o, s) in out.chunks_exact_mut(4).zip(self.state) {
            crate::json::copy_bytes(o, &s.to_be_bytes());
        }
        out
    }
}

/// HMAC-SHA256 of the concatenation of `parts` under `key`.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; MCP_MAC_LEN] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        let mut h = Sha256::new();
        h.update(key);
        if let Some(dst) = k.get_mut(..MCP_MAC_LEN) {
            crate::json::copy_bytes(dst, &h.finish());
        }
    } else if let Some(dst) = k.get_mut(..key.len()) {
        crate::json::copy_bytes(dst, key);
    }
    let mut inner = Sha256::new();
    inner.update(&k.map(|b| b ^ 0x36));
    for p in parts {
        inner.update(p);
    }
    let mut outer = Sha256::new();
    outer.update(&k.map(|b| b ^ 0x5c));
    outer.update(&inner.finish());
    outer.finish()
}

/// Compares two MACs without an early exit.
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha256_vectors() {
        let h = |d: &[u8]| {
            let mut s = Sha256::new();
            s.update(d);
            hex(&s.finish())
        };
        assert_eq!(
            h(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            h(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            h(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        let mut s = Sha256::new();
        for _ in 0..1000 {
            s.update(&[b'a'; 1000]);
        }
        assert_eq!(
            hex(&s.finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn hmac_rfc4231() {
        assert_eq!(
            hex(&hmac_sha256(&[0x0b; 20], &[b"Hi There"])),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac_sha256(
                b"Jefe",
                &[b"what do ya want ", b"for nothing?"]
            )),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                &[b"Test Using Larger Than Block-Size Key - Hash Key First"]
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert!(equal(b"abc", b"abc") && !equal(b"abc", b"abd") && !equal(b"ab", b"abc"));
    }
}
