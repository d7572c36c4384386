//! The compiled form of a schema: an argument program.
//!
//! Owns: the byte layout [`super::emit`] writes and [`super::run`] reads, and
//! the reader of one node. A program keeps of the schema text only what a
//! call needs: the structure resolved to offsets, the constraint keywords in
//! text order with their values as written (a message quotes them, and the
//! decimal comparisons read them as the text validator does), property names
//! as written. Titles, descriptions and every other annotation are dropped.
//! Must not: panic or read out of bounds on any bytes, a corrupted program
//! included (a malformed record reads as "no constraints" or refuses).
//!
//! Layout, integers little-endian:
//!
//! ```text
//! program := VERSION:u8 node                   the root node at offset 1
//! node    := types:u8 flags:u8 kw* 0:u8
//!            [items:u16]                       when flags & HAS_ITEMS
//!            [hlen:u16 header-bytes]           when flags & HAS_HEADER
//!            [count:u16 prop*]                 when flags & HAS_PROPS
//! kw      := kind:u8 (KwKind index + 1) len:u16 value-bytes
//! prop    := nlen:u16 name-bytes pflags:u8 node:u16
//! ```
//!
//! `items` and a property's `node` are offsets of node records in the same
//! program, or [`NO_NODE`] for a schema that constrains nothing (`true`).

use super::{KwKind, Span};

/// The layout version, the program's first byte.
pub(crate) const VERSION: u8 = 1;
/// "No node": a subschema without constraints.
pub(crate) const NO_NODE: u16 = u16::MAX;
/// Node flag: `additionalProperties: false`.
pub(crate) const CLOSED: u8 = 1;
/// Node flag: an `items` offset follows the keywords.
pub(crate) const HAS_ITEMS: u8 = 2;
/// Node flag: an `x-mcp-header` name follows.
pub(crate) const HAS_HEADER: u8 = 4;
/// Node flag: a property table follows.
pub(crate) const HAS_PROPS: u8 = 8;
/// Property flag: named by the node's `required`.
pub(crate) const REQUIRED: u8 = 1;

/// The keywords by their code (code = index + 1).
pub(crate) const KINDS: [KwKind; 12] = [
    KwKind::Minimum,
    KwKind::Maximum,
    KwKind::ExclusiveMinimum,
    KwKind::ExclusiveMaximum,
    KwKind::MultipleOf,
    KwKind::MinLength,
    KwKind::MaxLength,
    KwKind::MinItems,
    KwKind::MaxItems,
    KwKind::Enum,
    KwKind::Const,
    KwKind::Default,
];

/// The code of keyword `k` in a program.
pub(crate) fn code(k: KwKind) -> u8 {
    KINDS
        .iter()
        .position(|&x| x == k)
        .map_or(0, |i| i as u8 + 1)
}

fn u16_at(p: &[u8], at: usize) -> Option<u16> {
    let b = p.get(at..at + 2)?;
    Some(u16::from_le_bytes([*b.first()?, *b.get(1)?]))
}

/// One node record, read from a program.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PNode {
    /// Allowed types ([`super::ty`] bits); 0 allows any.
    pub(crate) types: u8,
    /// [`CLOSED`] and the `HAS_*` flags.
    pub(crate) flags: u8,
    /// Where the keywords start.
    kws: usize,
    /// The `items` node ([`NO_NODE`] when none).
    pub(crate) items: u16,
    /// The `x-mcp-header` name, as written.
    pub(crate) header: Span,
    /// Where the property table's first entry starts, and how many.
    props: usize,
    nprops: u16,
}

/// One keyword of a node: its kind and where its value stands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PKw {
    pub(crate) kind: KwKind,
    pub(crate) value: Span,
}

/// One property of a node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PProp {
    /// The name, as written in the schema (escapes included).
    pub(crate) name: Span,
    pub(crate) required: bool,
    pub(crate) node: u16,
}

fn span(start: usize, len: usize) -> Span {
    Span {
        start: start as u32,
        end: (start + len) as u32,
    }
}

/// The root node's offset, when `p` is a program of this layout.
pub(crate) fn root(p: &[u8]) -> Option<u16> {
    (p.first() == Some(&VERSION) && p.len() > 3).then_some(1)
}

/// The bytes of `s` in `p` (empty when out of range).
pub(crate) fn bytes(p: &[u8], s: Span) -> &[u8] {
    p.get(s.start as usize..s.end as usize).unwrap_or(&[])
}

/// The keywords of the node record at `at`, read without the rest of the
/// record (a filler that needs one keyword of a node).
pub(crate) fn kws_of(p: &[u8], at: u16) -> impl Iterator<Item = PKw> + '_ {
    let start = if at == NO_NODE {
        p.len()
    } else {
        at as usize + 2
    };
    kws_at(p, start)
}

fn kws_at(p: &[u8], mut i: usize) -> impl Iterator<Item = PKw> + '_ {
    core::iter::from_fn(move || {
        let c = *p.get(i)?;
        let kind = *KINDS.get((c as usize).checked_sub(1)?)?;
        let len = u16_at(p, i + 1)? as usize;
        let value = span(i + 3, len);
        i += 3 + len;
        Some(PKw { kind, value })
    })
}

impl PNode {
    /// Reads the node record at `at`; `None` for [`NO_NODE`] or a record
    /// that does not fit the program.
    pub(crate) fn read(p: &[u8], at: u16) -> Option<PNode> {
        if at == NO_NODE {
            return None;
        }
        let at = at as usize;
        let types = *p.get(at)?;
        let flags = *p.get(at + 1)?;
        let kws = at + 2;
        // Past the keywords: each is kind, length, value; 0 ends them.
        let mut i = kws;
        loop {
            if *p.get(i)? == 0 {
                i += 1;
                break;
            }
            i += 3 + u16_at(p, i + 1)? as usize;
        }
        let mut n = PNode {
            types,
            flags,
            kws,
            items: NO_NODE,
            header: Span::default(),
            props: 0,
            nprops: 0,
        };
        if flags & HAS_ITEMS != 0 {
            n.items = u16_at(p, i)?;
            i += 2;
        }
        if flags & HAS_HEADER != 0 {
            let len = u16_at(p, i)? as usize;
            n.header = span(i + 2, len);
            i += 2 + len;
        }
        if flags & HAS_PROPS != 0 {
            n.nprops = u16_at(p, i)?;
            n.props = i + 2;
        }
        Some(n)
    }

    /// The keywords, in the order the schema text has them.
    pub(crate) fn kws<'p>(&self, p: &'p [u8]) -> impl Iterator<Item = PKw> + use<'p> {
        kws_at(p, self.kws)
    }

    /// The declared properties, in the order the schema text has them.
    pub(crate) fn props<'p>(&self, p: &'p [u8]) -> impl Iterator<Item = PProp> + use<'p> {
        let mut i = self.props;
        let mut left = self.nprops;
        core::iter::from_fn(move || {
            left = left.checked_sub(1)?;
            let len = u16_at(p, i)? as usize;
            let name = span(i + 2, len);
            let at = i + 2 + len;
            let flags = *p.get(at)?;
            let node = u16_at(p, at + 1)?;
            i = at + 3;
            Some(PProp {
                name,
                required: flags & REQUIRED != 0,
                node,
            })
        })
    }
}
