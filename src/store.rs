//! Durable idempotency records: the storage hooks a firmware supplies under
//! the duplicate table, and the record format written through them.
//!
//! Owns: the four log hooks of `mcp_store_t` (append, sync, read, restart;
//! the struct itself, with the recovery callback, is in [`crate::policy`]),
//! the byte layout of one record and its CRC-32.
//! Must not: allocate, or call a hook except from [`crate::dedup`] with the
//! table's lock held.
//!
//! A record, little-endian, `MCP_STORE_RECORD_MAX` bytes at most:
//!
//! | bytes | field |
//! | --- | --- |
//! | 0 | `RECORD_MAGIC` (0xE5), or `WIDE_MAGIC` (0xE6) for a tag above 0xFF |
//! | 1 | kind: `MCP_STORE_INTENT`, `_RESULT`, `_GONE`, `_RELEASE` |
//! | 2 | tool tag, bits 0..8 (see below) |
//! | 3 | key length k (≤ `MCP_DEDUP_KEY_MAX`) |
//! | 4..8 | FNV-1a of the principal |
//! | 8..10 | result length n (≤ `MCP_DEDUP_RESULT_MAX`; 0 but for RESULT) |
//! | 10..12 | `WIDE_MAGIC` only: tool tag, bits 8..24 |
//! | then k | key |
//! | ..+n | result members as sent |
//! | ..+4 | CRC-32 (IEEE 802.3) of every byte before it |
//!
//! The tool tag ([`crate::protocol::tools`]) is t = tool index × 2 + 1 at
//! 2026-07-28 (+ 0 at 2025-11-25) with its low 7 bits in bits 0..7, the
//! retry-key mark in bit 7 and the rest of t from bit 8: for the first 64
//! tools one byte, as records always had it (a log written before wide tags
//! reads the same); a tool beyond them, in a table given more slots
//! (`mcp_server_set_tool_storage`), is written with `WIDE_MAGIC`.
//!
//! A record whose header, length or CRC does not check ends the log where
//! it starts (a write torn by power loss): it and what follows are ignored,
//! and the log is rewritten without them before the store is used.

use core::ffi::{c_int, c_void};

use crate::limits::{MCP_DEDUP_KEY_MAX, MCP_DEDUP_RESULT_MAX, MCP_STORE_RECORD_MAX};

/// Appends one whole record (`len` bytes) to the log. Durable only after the
/// next `sync`. Returns 0, or a negative value (e.g. -MCP_ENOSPC when the
/// log is full: the core then compacts and tries once more).
pub type mcp_store_append_fn =
    Option<extern "C" fn(user: *mut c_void, record: *const u8, len: usize) -> c_int>;

/// Makes every appended record durable (fsync, a flash write completing),
/// and, after a `restart`, atomically replaces the old log with the new one.
/// Returns 0 or a negative value.
pub type mcp_store_sync_fn = Option<extern "C" fn(user: *mut c_void) -> c_int>;

/// Reads up to `cap` bytes of the log from byte `offset` into `buf`
/// (called only by `mcp_dedup_set_store`). Returns the bytes read (0 at the
/// end of the log) or a negative value.
pub type mcp_store_read_fn =
    Option<extern "C" fn(user: *mut c_void, offset: usize, buf: *mut u8, cap: usize) -> c_int>;

/// Starts a new log: the appends that follow go to it, and the next `sync`
/// makes it replace the old one in one step (until then the old one stays
/// what a restart reads). Returns 0 or a negative value.
pub type mcp_store_restart_fn = Option<extern "C" fn(user: *mut c_void) -> c_int>;

/// What carries a store's log hooks: `mcp_store_t` (in [`crate::policy`],
/// with the recovery callback), or a [`Log`] itself.
pub trait Durable {
    /// The four log hooks, or `None` when one is missing.
    fn log(&self) -> Option<Log>;
}

impl Durable for Log {
    fn log(&self) -> Option<Log> {
        Some(*self)
    }
}

// A compacted log (one record per entry, plus the one being written) fits
// twice over, so compaction is rare; lengths fit the header's fields.
const _: () = assert!(
    crate::limits::MCP_STORE_LOG_MAX
        >= 2 * (crate::limits::MCP_DEDUP_SLOTS + 1) * MCP_STORE_RECORD_MAX
);
const _: () = assert!(MCP_DEDUP_KEY_MAX <= 255 && MCP_DEDUP_RESULT_MAX <= 65535);

/// Byte 0 of a record whose tool tag fits a byte.
pub(crate) const RECORD_MAGIC: u8 = 0xE5;
/// Byte 0 of a record whose tool tag does not: two more tag bytes follow
/// the fixed header, before the key.
pub(crate) const WIDE_MAGIC: u8 = 0xE6;
/// The fixed header: what [`record_len`] needs to know the whole length.
pub(crate) const HEADER_LEN: usize = 10;
/// Bytes of a wide record's tag after the fixed header.
const WIDE_LEN: usize = 2;
/// The largest tool tag a record holds.
pub(crate) const TAG_MAX: u32 = 0xFF_FFFF;
/// Bytes of the CRC at the end.
const CRC_LEN: usize = 4;

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: no
/// table in flash, and the records are short.
pub fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |mut c, &b| {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
        c
    })
}

/// One decoded record, borrowing its key and result.
#[derive(Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// Kind, tool and principal.
    pub head: Head,
    /// Key bytes.
    pub key: &'a [u8],
    /// Result members (RESULT only).
    pub result: &'a [u8],
}

/// What a record says of its key, besides the key and result bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// `MCP_STORE_*` kind.
    pub kind: u8,
    /// Tool tag, at most [`TAG_MAX`].
    pub tag: u32,
    /// Principal hash.
    pub principal: u32,
}

/// Writes a record of `head`, `key` and `result` into `buf`; returns its
/// length, or `None` when a field is over its limit.
pub fn encode(
    head: Head,
    key: impl ExactSizeIterator<Item = u8>,
    result: impl ExactSizeIterator<Item = u8>,
    buf: &mut [u8; MCP_STORE_RECORD_MAX],
) -> Option<usize> {
    let (k, n) = (key.len(), result.len());
    if k > MCP_DEDUP_KEY_MAX || n > MCP_DEDUP_RESULT_MAX || head.tag > TAG_MAX {
        return None;
    }
    let t = head.tag.to_le_bytes();
    let wide = usize::from(head.tag > 0xFF) * WIDE_LEN;
    let body = HEADER_LEN + wide + k + n;
    let p = head.principal.to_le_bytes();
    let fixed = [
        if wide == 0 { RECORD_MAGIC } else { WIDE_MAGIC },
        head.kind,
        t[0],
        k as u8,
        p[0],
        p[1],
        p[2],
        p[3],
        n as u8,
        (n >> 8) as u8,
    ];
    let tag_hi = [t[1], t[2]].into_iter().take(wide);
    for (d, s) in buf
        .iter_mut()
        .zip(fixed.into_iter().chain(tag_hi).chain(key).chain(result))
    {
        *d = s;
    }
    let crc = crc32(buf.get(..body)?);
    for (d, s) in buf.get_mut(body..)?.iter_mut().zip(crc.to_le_bytes()) {
        *d = s;
    }
    Some(body + CRC_LEN)
}

/// The whole length of the record whose first `HEADER_LEN` bytes are
/// `head`, or `None` when the header cannot be one.
pub fn record_len(head: &[u8]) -> Option<usize> {
    let (&[magic, kind, _, key_len], rest) = head.split_first_chunk::<4>()?;
    let n = usize::from(*rest.get(4)?) | usize::from(*rest.get(5)?) << 8;
    let key_len = usize::from(key_len);
    let kind_ok = matches!(
        kind,
        crate::limits::MCP_STORE_INTENT
            | crate::limits::MCP_STORE_RESULT
            | crate::limits::MCP_STORE_GONE
            | crate::limits::MCP_STORE_RELEASE
    );
    let sizes_ok = key_len <= MCP_DEDUP_KEY_MAX
        && n <= MCP_DEDUP_RESULT_MAX
        && (n == 0 || kind == crate::limits::MCP_STORE_RESULT);
    let wide = match magic {
        RECORD_MAGIC => 0,
        WIDE_MAGIC => WIDE_LEN,
        _ => return None,
    };
    (kind_ok && sizes_ok).then_some(HEADER_LEN + wide + key_len + n + CRC_LEN)
}

/// Decodes a whole record (`bytes` of [`record_len`]); `None` when its CRC
/// or header does not check.
pub fn decode(bytes: &[u8]) -> Option<Record<'_>> {
    let len = record_len(bytes)?;
    if bytes.len() != len {
        return None;
    }
    let (body, crc) = bytes.split_at_checked(len.checked_sub(CRC_LEN)?)?;
    if crc32(body).to_le_bytes() != *crc {
        return None;
    }
    let key_len = usize::from(*body.get(3)?);
    let p = body.get(4..8)?;
    let (tag, key_at) = if *body.first()? == WIDE_MAGIC {
        let hi = body.get(HEADER_LEN..HEADER_LEN + WIDE_LEN)?;
        let tag = u32::from_le_bytes([*body.get(2)?, *hi.first()?, *hi.get(1)?, 0]);
        // One tag, one spelling: a tag that fits a byte is never wide.
        (tag > 0xFF).then_some((tag, HEADER_LEN + WIDE_LEN))?
    } else {
        (u32::from(*body.get(2)?), HEADER_LEN)
    };
    Some(Record {
        head: Head {
            kind: *body.get(1)?,
            tag,
            principal: u32::from_le_bytes([*p.first()?, *p.get(1)?, *p.get(2)?, *p.get(3)?]),
        },
        key: body.get(key_at..key_at + key_len)?,
        result: body.get(key_at + key_len..)?,
    })
}

/// The four log hooks of a store, checked present.
#[derive(Clone, Copy)]
pub struct Log {
    append: extern "C" fn(*mut c_void, *const u8, usize) -> c_int,
    sync: extern "C" fn(*mut c_void) -> c_int,
    read: extern "C" fn(*mut c_void, usize, *mut u8, usize) -> c_int,
    restart: extern "C" fn(*mut c_void) -> c_int,
    user: *mut c_void,
}

impl Log {
    /// These hooks, or `None` when one is missing.
    pub fn of(
        append: mcp_store_append_fn,
        sync: mcp_store_sync_fn,
        read: mcp_store_read_fn,
        restart: mcp_store_restart_fn,
        user: *mut c_void,
    ) -> Option<Log> {
        Some(Log {
            append: append?,
            sync: sync?,
            read: read?,
            restart: restart?,
            user,
        })
    }

    /// Appends one record; true on success.
    pub fn append(&self, rec: &[u8]) -> bool {
        (self.append)(self.user, rec.as_ptr(), rec.len()) == 0
    }

    /// Makes the log durable; true on success.
    pub fn sync(&self) -> bool {
        (self.sync)(self.user) == 0
    }

    /// Starts a new log; true on success.
    pub fn restart(&self) -> bool {
        (self.restart)(self.user) == 0
    }

    /// Reads into all of `buf` from `offset`: the bytes read (fewer at the
    /// end of the log), or `Err` with the hook's error.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<usize, c_int> {
        let mut got = 0;
        while got < buf.len() {
            let Some(rest) = buf.get_mut(got..) else {
                break;
            };
            let n = (self.read)(self.user, offset + got, rest.as_mut_ptr(), rest.len());
            match usize::try_from(n) {
                Err(_) => return Err(n),
                Ok(0) => break,
                Ok(n) => got += n.min(rest.len()),
            }
        }
        Ok(got)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::*;

    #[test]
    fn crc32_check_value() {
        // The CRC-32/ISO-HDLC check value.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn records_round_trip_and_every_torn_prefix_or_flipped_bit_is_refused() {
        let head = Head {
            kind: MCP_STORE_RESULT,
            tag: 3,
            principal: 0xDEAD_BEEF,
        };
        let r = Record {
            head,
            key: b"k-1",
            result: br#""content":[]"#,
        };
        let mut buf = [0u8; MCP_STORE_RECORD_MAX];
        let it = |b: &'static [u8]| b.iter().copied();
        let n = encode(head, it(r.key), it(r.result), &mut buf).unwrap();
        assert_eq!(record_len(&buf[..HEADER_LEN]), Some(n));
        assert_eq!(decode(&buf[..n]), Some(r));
        for cut in 0..n {
            assert_eq!(decode(&buf[..cut]), None, "torn at {cut}");
        }
        for bit in 0..n * 8 {
            let mut b = buf;
            b[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(decode(&b[..n]), None, "bit {bit}");
        }
        let big = [b'x'; MCP_DEDUP_RESULT_MAX + 1];
        assert_eq!(encode(head, it(b"k"), big.iter().copied(), &mut buf), None);
    }
}
