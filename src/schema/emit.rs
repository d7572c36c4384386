//! Schema text → argument program ([`super::program`]): the one compiler.
//!
//! Owns: writing a checked schema's program into storage the caller gives.
//! The checker ([`super::compile`]) runs first, so a program exists only for
//! a schema that is supported and agrees with itself; the walk below reads
//! the text with the same readers the text validator uses ([`Schema`]), so
//! the program holds exactly the structure and keywords it would have read.
//! Must not: allocate, or write past `out`.

use super::program::{CLOSED, HAS_HEADER, HAS_ITEMS, HAS_PROPS, NO_NODE, REQUIRED, VERSION, code};
use super::{Schema, SchemaError, SchemaErrorKind, Span, compile};
use crate::json::Kind;

/// The bytes an argument program may take: its offsets are 16-bit. (Not yet
/// a C-facing limit: no C function takes a program so far.)
pub(crate) const PROGRAM_MAX: usize = u16::MAX as usize;

/// Where the program goes: into storage, or compared with a given program
/// byte by byte (nothing stored: see [`matches`]).
enum Dst<'o> {
    Write(&'o mut [u8]),
    Check(&'o [u8]),
}

struct Out<'o> {
    buf: Dst<'o>,
    len: usize,
    /// Set when `buf` (or the 16-bit offsets) ran out, or, when checking,
    /// at the first byte that differs.
    full: bool,
}

impl Out<'_> {
    /// `b` at the end; checking, `b` must be what the given program has there.
    fn put(&mut self, b: &[u8]) {
        let end = self.len + b.len();
        let fits = end <= PROGRAM_MAX;
        match &mut self.buf {
            Dst::Write(buf) => match buf.get_mut(self.len..end) {
                Some(dst) if fits => dst.copy_from_slice(b),
                _ => self.full = true,
            },
            Dst::Check(given) => {
                if !fits || given.get(self.len..end) != Some(b) {
                    self.full = true;
                }
            }
        }
        self.len = end;
    }

    /// `n` bytes at the end that [`Out::patch`] fills in later (a record's
    /// types and flags, a child's offset); checking, they are compared then.
    fn reserve(&mut self, n: usize, placeholder: u8) {
        match self.buf {
            Dst::Write(_) => {
                for _ in 0..n {
                    self.put(&[placeholder]);
                }
            }
            Dst::Check(_) => self.len += n,
        }
    }

    fn put_u16(&mut self, v: usize) {
        match u16::try_from(v) {
            Ok(v) => self.put(&v.to_le_bytes()),
            Err(_) => self.full = true,
        }
    }

    fn patch_u16(&mut self, at: usize, v: u16) {
        self.patch_bytes(at, &v.to_le_bytes());
    }

    fn patch(&mut self, at: usize, v: u8) {
        self.patch_bytes(at, &[v]);
    }

    fn patch_bytes(&mut self, at: usize, b: &[u8]) {
        let end = at + b.len();
        match &mut self.buf {
            Dst::Write(buf) => {
                if let Some(dst) = buf.get_mut(at..end) {
                    dst.copy_from_slice(b);
                }
            }
            Dst::Check(given) => {
                if given.get(at..end) != Some(b) {
                    self.full = true;
                }
            }
        }
    }
}

/// Checks `text` as [`compile`] does and writes its argument program into
/// `out`: the program's length. [`SchemaErrorKind::Full`] (at the whole
/// text) when `out` is too small or the program would pass
/// [`PROGRAM_MAX`].
pub fn emit(text: &str, out: &mut [u8]) -> Result<usize, SchemaError> {
    let (len, full) = walk(text, Dst::Write(out))?;
    if full {
        return Err(SchemaError {
            kind: SchemaErrorKind::Full,
            reason: "the argument program does not fit its storage",
            at: Span {
                start: 0,
                end: text.len() as u32,
            },
            bound: None,
        });
    }
    Ok(len)
}

/// Checks `text` as [`emit`] does and tells whether `prog` is exactly the
/// program [`emit`] writes for it, without storage: how a build with the
/// checker knows a generated program belongs to its schema text.
pub fn matches(text: &str, prog: &[u8]) -> Result<bool, SchemaError> {
    let (len, differs) = walk(text, Dst::Check(prog))?;
    Ok(!differs && len == prog.len())
}

/// The checker, then the program written to (or compared with) `dst`: its
/// length, and whether storage ran out (or a byte differed).
fn walk(text: &str, dst: Dst<'_>) -> Result<(usize, bool), SchemaError> {
    let root = compile(text)?;
    let t = Schema::new(text);
    let mut o = Out {
        buf: dst,
        len: 0,
        full: false,
    };
    o.put(&[VERSION]);
    node(&t, root, &mut o);
    Ok((o.len, o.full))
}

/// Writes the node for the subschema at `i` and those under it: its offset
/// ([`NO_NODE`] for one that constrains nothing).
fn node(t: &Schema<'_>, i: usize, o: &mut Out<'_>) -> u16 {
    if t.doc().kind(i) != Some(Kind::Object) || o.full {
        return NO_NODE;
    }
    let at = o.len;
    o.reserve(2, 0);
    let Some(n) = t.node_with(i, &mut |kind, value| {
        let v = value.of(t.text);
        o.put(&[code(kind)]);
        o.put_u16(v.len());
        o.put(v);
    }) else {
        return NO_NODE;
    };
    o.put(&[0]);
    let d = t.doc();
    let mut flags = if n.closed { CLOSED } else { 0 };
    let items_at = o.len;
    if n.items != super::NONE {
        flags |= HAS_ITEMS;
        o.reserve(2, 0xFF);
    }
    if n.header != super::NONE {
        flags |= HAS_HEADER;
        let h = d.str_inner(n.header).unwrap_or(&[]);
        o.put_u16(h.len());
        o.put(h);
    }
    let props_at = o.len + 2;
    if n.props != super::NONE {
        flags |= HAS_PROPS;
        o.put_u16(t.props(&n).count());
        for p in t.props(&n) {
            let name = p.name.of(t.text);
            o.put_u16(name.len());
            o.put(name);
            let req = if t.is_required(&n, name) { REQUIRED } else { 0 };
            o.put(&[req]);
            o.reserve(2, 0xFF);
        }
    }
    o.patch(at, n.types);
    o.patch(at + 1, flags);
    // The children follow the record; their offsets go into the slots
    // left for them above.
    if n.items != super::NONE {
        let c = node(t, n.items, o);
        o.patch_u16(items_at, c);
    }
    if n.props != super::NONE {
        let mut slot = props_at;
        for p in t.props(&n) {
            let c = node(t, p.node, o);
            slot += 2 + (p.name.end - p.name.start) as usize + 1;
            o.patch_u16(slot, c);
            slot += 2;
        }
    }
    if o.full { NO_NODE } else { at as u16 }
}
