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

struct Out<'o> {
    buf: &'o mut [u8],
    len: usize,
    /// Set when `buf` (or the 16-bit offsets) ran out.
    full: bool,
}

impl Out<'_> {
    fn put(&mut self, b: &[u8]) {
        let end = self.len + b.len();
        match self.buf.get_mut(self.len..end) {
            Some(dst) if end <= PROGRAM_MAX => {
                dst.copy_from_slice(b);
                self.len = end;
            }
            _ => self.full = true,
        }
    }

    fn put_u16(&mut self, v: usize) {
        match u16::try_from(v) {
            Ok(v) => self.put(&v.to_le_bytes()),
            Err(_) => self.full = true,
        }
    }

    fn patch_u16(&mut self, at: usize, v: u16) {
        if let Some(dst) = self.buf.get_mut(at..at + 2) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }

    fn patch(&mut self, at: usize, v: u8) {
        if let Some(b) = self.buf.get_mut(at) {
            *b = v;
        }
    }
}

/// Checks `text` as [`compile`] does and writes its argument program into
/// `out`: the program's length. [`SchemaErrorKind::Full`] (at the whole
/// text) when `out` is too small or the program would pass
/// [`PROGRAM_MAX`].
pub fn emit(text: &str, out: &mut [u8]) -> Result<usize, SchemaError> {
    let root = compile(text)?;
    let t = Schema::new(text);
    let mut o = Out {
        buf: out,
        len: 0,
        full: false,
    };
    o.put(&[VERSION]);
    node(&t, root, &mut o);
    if o.full {
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
    Ok(o.len)
}

/// Writes the node for the subschema at `i` and those under it: its offset
/// ([`NO_NODE`] for one that constrains nothing).
fn node(t: &Schema<'_>, i: usize, o: &mut Out<'_>) -> u16 {
    if t.doc().kind(i) != Some(Kind::Object) || o.full {
        return NO_NODE;
    }
    let at = o.len;
    o.put(&[0, 0]);
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
        o.put_u16(NO_NODE as usize);
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
            o.put_u16(NO_NODE as usize);
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
