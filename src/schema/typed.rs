//! Typed arguments: a built tool's validated arguments written into the C
//! struct `emcp-gen` generated for it, so that a callback reads members,
//! not names.
//!
//! Owns: the C type of each top-level argument, derived from its program
//! node ([`kind`]: the one rule by which the generator declares a member and
//! the core fills it); checking a tool's layout at registration
//! ([`check`]); filling a struct from arguments that passed their program,
//! defaults included ([`fill`]).
//! Must not: allocate, write outside the struct or the text area it is
//! given, or run on arguments their program has not accepted (a value of
//! another type than its member's is left zero, never reinterpreted).

use super::KwKind;
use super::compile::same_text;
use super::program::{self, PNode, PProp};
use super::ty;
use super::validate::str_inner;
use crate::abi::{
    MCP_ARG_ALWAYS, MCP_ARG_ARRAY, MCP_ARG_BOOL, MCP_ARG_ENUM, MCP_ARG_INT, MCP_ARG_JSON,
    MCP_ARG_NUMBER, MCP_ARG_STR, mcp_arg_slot_t, mcp_decimal_t,
};
use crate::json::doc::{exact_int, plain_int};
use crate::json::{Doc, Unescape};

/// The C type of one top-level argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `"type":"boolean"`: a `bool`.
    Bool,
    /// `"type":"integer"`: an integer type as wide as these bounds (as
    /// [`int_type`] picks it; `i64` limits where a bound is absent).
    Int {
        /// The least value the schema admits.
        min: i64,
        /// The greatest.
        max: i64,
    },
    /// `"type":"number"`: an `mcp_decimal_t` (no floating point).
    Number,
    /// `"type":"string"` with an `enum` of strings: the index of the value
    /// in the `enum`.
    Enum {
        /// How many values.
        count: u32,
    },
    /// `"type":"string"` with `maxLength`: an `mcp_str_t` of the decoded
    /// text (into the request when it has no escapes, else into the text
    /// area, which needs up to 4 bytes per character).
    Str {
        /// The `maxLength`.
        max_len: u32,
    },
    /// `"type":"array"` with `maxItems` (1 to 65,535) whose `items` are of
    /// one of the kinds above but `Json` and arrays: the elements in place
    /// ([`item_size`] bytes each; an enum as its index, `uint8_t` or
    /// `uint16_t`), then their count (`uint8_t`, `uint16_t` above 255).
    Array {
        /// The `maxItems`.
        max_items: u32,
        /// The program offset of the `items` node.
        item: u16,
    },
    /// Anything else: an `mcp_str_t` of the value's JSON text as sent.
    Json,
}

impl ArgKind {
    /// Its `mcp_arg_slot_t.kind` code.
    pub fn code(&self) -> u8 {
        match self {
            ArgKind::Bool => MCP_ARG_BOOL,
            ArgKind::Int { .. } => MCP_ARG_INT,
            ArgKind::Number => MCP_ARG_NUMBER,
            ArgKind::Enum { .. } => MCP_ARG_ENUM,
            ArgKind::Str { .. } => MCP_ARG_STR,
            ArgKind::Array { .. } => MCP_ARG_ARRAY,
            ArgKind::Json => MCP_ARG_JSON,
        }
    }
}

/// The bytes of one array element of kind `k`; `None` for a kind no array
/// holds in place.
pub fn item_size(k: ArgKind) -> Option<usize> {
    match k {
        ArgKind::Bool => Some(1),
        ArgKind::Int { min, max } => Some(int_type(min, max).0),
        ArgKind::Number => Some(core::mem::size_of::<mcp_decimal_t>()),
        ArgKind::Enum { count } => Some(if count <= 256 { 1 } else { 2 }),
        ArgKind::Str { .. } => Some(STR_SIZE),
        ArgKind::Array { .. } | ArgKind::Json => None,
    }
}

/// The bytes of an array's count: 1 up to 255 items, else 2.
pub fn count_size(max_items: u32) -> usize {
    if max_items <= 255 { 1 } else { 2 }
}

/// `sizeof(mcp_str_t)` on this target.
pub const STR_SIZE: usize = 2 * core::mem::size_of::<usize>();

/// The integer type of [`ArgKind::Int`]: (bytes, signed). Unsigned when
/// the bounds admit no negative value.
pub fn int_type(min: i64, max: i64) -> (usize, bool) {
    let fits = |lo: i64, hi: i64| min >= lo && max <= hi;
    if min >= 0 {
        match () {
            _ if fits(0, 0xFF) => (1, false),
            _ if fits(0, 0xFFFF) => (2, false),
            _ if fits(0, 0xFFFF_FFFF) => (4, false),
            _ => (8, true),
        }
    } else {
        match () {
            _ if fits(-0x80, 0x7F) => (1, true),
            _ if fits(-0x8000, 0x7FFF) => (2, true),
            _ if fits(-0x8000_0000, 0x7FFF_FFFF) => (4, true),
            _ => (8, true),
        }
    }
}

/// The kind of the node `n`, integers without their bounds (which only
/// [`kind`] reads).
fn shape(prog: &[u8], n: &PNode) -> ArgKind {
    let (mut values, mut max_len) = (None, None);
    for k in n.kws(prog) {
        let v = program::bytes(prog, k.value);
        match k.kind {
            KwKind::Enum => values = Some(v),
            KwKind::MaxLength => max_len = Some(v),
            _ => {}
        }
    }
    match n.types {
        ty::BOOLEAN => ArgKind::Bool,
        ty::INTEGER => ArgKind::Int {
            min: i64::MIN,
            max: i64::MAX,
        },
        t if t == ty::NUMBER || t == ty::NUMBER | ty::INTEGER => ArgKind::Number,
        ty::STRING => match (values.map(strings), max_len) {
            (Some(Some(vals)), _) => ArgKind::Enum {
                count: vals.count() as u32,
            },
            (None, Some(m)) => ArgKind::Str {
                max_len: exact_int(m)
                    .ok()
                    .and_then(|m| u32::try_from(m).ok())
                    .unwrap_or(u32::MAX),
            },
            _ => ArgKind::Json,
        },
        _ => ArgKind::Json,
    }
}

/// The kind of the argument whose node is at `at` in `prog`.
pub fn kind(prog: &[u8], at: u16) -> ArgKind {
    let Some(n) = PNode::read(prog, at) else {
        return ArgKind::Json;
    };
    if n.types != ty::ARRAY {
        return scalar_kind(prog, &n);
    }
    let max = n
        .kws(prog)
        .find(|x| x.kind == KwKind::MaxItems)
        .and_then(|x| exact_int(program::bytes(prog, x.value)).ok());
    let fits = |m: i64| (1..=0xFFFF).contains(&m) && item_size(item_kind(prog, n.items)).is_some();
    match max {
        Some(m) if n.items != program::NO_NODE && fits(m) => ArgKind::Array {
            max_items: m as u32,
            item: n.items,
        },
        _ => ArgKind::Json,
    }
}

/// The `enum` values (as written) of an array's elements, whose node is at
/// `item`, if they have one.
pub fn item_enum(prog: &[u8], item: u16) -> Option<&[u8]> {
    program::kws_of(prog, item)
        .find(|x| x.kind == KwKind::Enum)
        .map(|x| program::bytes(prog, x.value))
}

/// The kind of an array's elements, whose node is at `item`: never an
/// array's (so a program cannot lead the reader round in circles).
pub fn item_kind(prog: &[u8], item: u16) -> ArgKind {
    PNode::read(prog, item).map_or(ArgKind::Json, |i| scalar_kind(prog, &i))
}

/// The kind of a node that is not an array's (an array is `Json` here).
fn scalar_kind(prog: &[u8], n: &PNode) -> ArgKind {
    match shape(prog, n) {
        ArgKind::Int { .. } => {
            let int = |k: KwKind| {
                n.kws(prog)
                    .find(|x| x.kind == k)
                    .and_then(|x| exact_int(program::bytes(prog, x.value)).ok())
            };
            ArgKind::Int {
                min: int(KwKind::Minimum)
                    .or_else(|| int(KwKind::ExclusiveMinimum).and_then(|v| v.checked_add(1)))
                    .unwrap_or(i64::MIN),
                max: int(KwKind::Maximum)
                    .or_else(|| int(KwKind::ExclusiveMaximum).and_then(|v| v.checked_sub(1)))
                    .unwrap_or(i64::MAX),
            }
        }
        k => k,
    }
}

/// The inner texts (still escaped) of a JSON array of strings as a
/// program keeps an `enum`; `None` when any element is not a string. A
/// scan, not a parse: the program's values are JSON its schema's checker
/// accepted.
fn strings(arr: &[u8]) -> Option<impl Iterator<Item = &[u8]>> {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let trimmed = arr.strip_prefix(b"[")?;
    // Every element a string: each starts with a quote after `[` or `,`.
    let mut i = 0;
    let mut ok = true;
    let mut first = true;
    while let Some(b) = trimmed.get(i) {
        if ws(b) {
            i += 1;
            continue;
        }
        if *b == b']' && first {
            break;
        }
        if *b != b'"' {
            ok = false;
            break;
        }
        i = string_end(trimmed, i)?;
        while trimmed.get(i).is_some_and(ws) {
            i += 1;
        }
        match trimmed.get(i) {
            Some(b',') => i += 1,
            Some(b']') => break,
            _ => return None,
        }
        first = false;
    }
    ok.then(|| elements(trimmed))
}

/// The strings of an array whose elements are all strings (as [`strings`]
/// found at registration), without checking it again.
fn elements(arr: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    core::iter::from_fn(move || {
        while arr.get(at).is_some_and(|b| *b != b'"' && *b != b']') {
            at += 1;
        }
        if arr.get(at) != Some(&b'"') {
            return None;
        }
        let end = string_end(arr, at)?;
        let inner = arr.get(at + 1..end - 1);
        at = end;
        inner
    })
}

/// One past the closing quote of the string whose opening quote is at `i`.
fn string_end(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match s.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// One top-level argument as the generator declares it.
#[derive(Clone, Copy, Debug)]
pub struct Member<'p> {
    /// The property name as the schema writes it (escapes included).
    pub name: &'p [u8],
    /// Its C type.
    pub kind: ArgKind,
    /// Required, or with a `default`: its member is always set (no
    /// presence flag).
    pub always: bool,
    /// The `enum` values, as written (for [`ArgKind::Enum`]).
    pub values: &'p [u8],
}

fn member<'p>(prog: &'p [u8], pr: &PProp) -> Member<'p> {
    let kws = PNode::read(prog, pr.node);
    let find = |k: KwKind| {
        kws.and_then(|n| n.kws(prog).find(|x| x.kind == k))
            .map(|x| program::bytes(prog, x.value))
    };
    Member {
        name: program::bytes(prog, pr.name),
        kind: kind(prog, pr.node),
        always: pr.required || find(KwKind::Default).is_some(),
        values: find(KwKind::Enum).unwrap_or(&[]),
    }
}

/// The top-level arguments of the tool whose argument program is `prog`,
/// in `properties` order: one struct member each.
pub fn members(prog: &[u8]) -> impl Iterator<Item = Member<'_>> {
    let root = program::root(prog).and_then(|r| PNode::read(prog, r));
    root.into_iter()
        .flat_map(move |n| n.props(prog))
        .map(move |pr| member(prog, &pr))
}

/// The values of an `enum` as [`Member::values`] holds it, each as written
/// (without its quotes).
pub fn enum_values(values: &[u8]) -> impl Iterator<Item = &[u8]> {
    strings(values).into_iter().flatten()
}

/// The text area a call of this tool may need: 4 bytes per character of
/// every [`ArgKind::Str`] argument (escaped strings are decoded there).
pub fn text_len(prog: &[u8]) -> usize {
    members(prog)
        .map(|m| match m.kind {
            ArgKind::Str { max_len } => 4 * max_len as usize,
            ArgKind::Array { max_items, item } => match item_kind(prog, item) {
                ArgKind::Str { max_len } => max_items as usize * 4 * max_len as usize,
                _ => 0,
            },
            _ => 0,
        })
        .sum()
}

/// A built tool's typed argument struct: where each argument lands.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    /// One slot per top-level property, in `properties` order.
    pub slots: &'a [mcp_arg_slot_t],
    /// `sizeof` the struct.
    pub size: usize,
}

/// Whether `layout` fits the arguments of `prog`: a slot per property,
/// each inside the struct and of a size its kind can take, and a presence
/// flag for every argument that may be absent.
pub fn check(prog: &[u8], layout: &Layout<'_>) -> bool {
    let Some(root) = program::root(prog).and_then(|r| PNode::read(prog, r)) else {
        return false;
    };
    let mut slots = layout.slots.iter();
    for pr in root.props(prog) {
        let Some(s) = slots.next() else {
            return false;
        };
        let size = s.size as usize;
        let inside = s.offset as usize + size <= layout.size
            && (s.present == MCP_ARG_ALWAYS || (s.present as usize) < layout.size);
        let size_ok = match s.kind {
            MCP_ARG_BOOL => size == 1,
            MCP_ARG_INT | MCP_ARG_ENUM => matches!(size, 1 | 2 | 4 | 8),
            MCP_ARG_NUMBER => size == core::mem::size_of::<mcp_decimal_t>(),
            MCP_ARG_STR | MCP_ARG_JSON => size == STR_SIZE,
            MCP_ARG_ARRAY => true, // its elements' size is the program's (`fits`, `fill`)
            _ => false,
        };
        if !(inside && size_ok) {
            return false;
        }
        // With the checker, the kinds and widths are the schema's too (as
        // the programs are its texts'); without it the layout is taken as
        // emcp-gen wrote it: the filler never writes outside the struct.
        if cfg!(feature = "schema-check") && !fits(prog, &pr, s) {
            return false;
        }
    }
    slots.next().is_none()
}

/// Whether slot `s` is what the schema of property `pr` makes it: its
/// kind, an integer or enum wide enough, a presence flag where the
/// argument may be absent.
fn fits(prog: &[u8], pr: &PProp, s: &mcp_arg_slot_t) -> bool {
    let m = member(prog, pr);
    let size = s.size as usize;
    let wide = match m.kind {
        ArgKind::Int { min, max } => size >= int_type(min, max).0,
        ArgKind::Enum { count } => size >= 4 || count as usize <= 1 << (8 * size),
        ArgKind::Array { max_items, item } => item_size(item_kind(prog, item))
            .is_some_and(|e| size >= max_items as usize * e + count_size(max_items)),
        _ => true,
    };
    wide && s.kind == m.kind.code() && (s.present != MCP_ARG_ALWAYS || m.always)
}

/// Why [`fill`] could not fill a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillError {
    /// `out` is not the layout's size.
    Size,
    /// The escaped strings do not fit the text area.
    Text,
}

/// Fills `out` (the struct, `layout.size` bytes) from the arguments object
/// at token `args` of `doc`, which passed `prog`: every member written (a
/// sent value, else the schema's `default`, else zero with its presence
/// flag clear). Escaped strings are decoded into `text`; every other string
/// and JSON value is a span of the request (or of the program, for a
/// default), valid while the callback runs.
pub fn fill(
    prog: &[u8],
    layout: &Layout<'_>,
    doc: &Doc<'_>,
    args: Option<usize>,
    out: &mut [u8],
    text: &mut [u8],
) -> Result<(), FillError> {
    if out.len() != layout.size {
        return Err(FillError::Size);
    }
    out.fill(0);
    let Some(root) = program::root(prog).and_then(|r| PNode::read(prog, r)) else {
        return Ok(());
    };
    let mut used = 0;
    for (pr, s) in root.props(prog).zip(layout.slots) {
        let name = program::bytes(prog, pr.name);
        let sent = args.and_then(|a| doc.entries(a).find(|e| same_text(e.name, name)));
        // A keyword is read only where the value needs it: a default, an
        // enum's values (`check` matched `s.kind` to the node).
        let kw = |k: KwKind| {
            program::kws_of(prog, pr.node)
                .find(|x| x.kind == k)
                .map(|x| program::bytes(prog, x.value))
        };
        let raw = match sent {
            Some(e) => doc.raw(e.val),
            None => match kw(KwKind::Default) {
                Some(d) => d,
                None => continue,
            },
        };
        if let Some(p) = out.get_mut(s.present as usize) {
            *p = 1;
        }
        let at = s.offset as usize;
        let Some(dst) = out.get_mut(at..at + s.size as usize) else {
            continue;
        };
        if s.kind == MCP_ARG_ARRAY {
            fill_array(prog, pr.node, dst, raw, text, &mut used)?;
            continue;
        }
        let values = if s.kind == MCP_ARG_ENUM {
            kw(KwKind::Enum)
        } else {
            None
        };
        put(s.kind, dst, raw, values, text, &mut used)?;
    }
    Ok(())
}

/// An array member: its elements in place, then their count; the
/// element's kind and width are the program's `items`. Out of line, so its
/// frame is on the stack only for an array.
#[inline(never)]
fn fill_array(
    prog: &[u8],
    node: u16,
    dst: &mut [u8],
    raw: &[u8],
    text: &mut [u8],
    used: &mut usize,
) -> Result<(), FillError> {
    let Some(n) = PNode::read(prog, node) else {
        return Ok(());
    };
    let max = program::kws_of(prog, node)
        .find(|x| x.kind == KwKind::MaxItems)
        .and_then(|x| exact_int(program::bytes(prog, x.value)).ok())
        .unwrap_or(0);
    let ik = item_kind(prog, n.items);
    let (Some(elem), Ok(max)) = (item_size(ik), usize::try_from(max)) else {
        return Ok(());
    };
    let values = item_enum(prog, n.items);
    let d = Doc::new(raw);
    let mut count = 0;
    for el in d.elements(d.root()).take(max) {
        let Some(e) = dst.get_mut(count * elem..(count + 1) * elem) else {
            break;
        };
        put(ik.code(), e, d.raw(el), values, text, used)?;
        count += 1;
    }
    let c = max * elem;
    let width = count_size(max as u32);
    put_int(dst.get_mut(c..c + width).unwrap_or(&mut []), count as i64);
    Ok(())
}

/// Writes the value `raw` as a member of kind `code` into `dst`: escaped
/// strings decoded into `text` from `used` on, an enum's index among
/// `values`.
fn put(
    code: u8,
    dst: &mut [u8],
    raw: &[u8],
    values: Option<&[u8]>,
    text: &mut [u8],
    used: &mut usize,
) -> Result<(), FillError> {
    match code {
        MCP_ARG_BOOL => put_int(dst, i64::from(raw == b"true")),
        MCP_ARG_INT => put_int(
            dst,
            plain_int(raw).or_else(|| exact_int(raw).ok()).unwrap_or(0),
        ),
        MCP_ARG_NUMBER => {
            let (v, e) = crate::json::num::Dec::parse(raw).map_or((0, 0), |d| d.to_decimal());
            let (value, exp10) = dst.split_at_mut(8.min(dst.len()));
            copy(value, &v.to_ne_bytes());
            let pad = core::mem::offset_of!(mcp_decimal_t, exp10) - 8;
            copy(exp10.get_mut(pad..).unwrap_or(&mut []), &e.to_ne_bytes());
        }
        MCP_ARG_ENUM => {
            let inner = str_inner(raw);
            let index = values.and_then(|e| elements(e).position(|v| same_text(v, inner)));
            put_int(dst, index.unwrap_or(0) as i64);
        }
        MCP_ARG_STR => {
            let inner = str_inner(raw);
            let span = if crate::json::has_byte(inner, b'\\') {
                let free = text.get_mut(*used..).unwrap_or(&mut []);
                let mut n = 0;
                for b in Unescape::new(inner) {
                    *free.get_mut(n).ok_or(FillError::Text)? = b;
                    n += 1;
                }
                *used += n;
                free.get(..n).unwrap_or(&[])
            } else {
                inner
            };
            put_span(dst, span);
        }
        _ => put_span(dst, raw),
    }
    Ok(())
}

/// `v` as an integer of `dst.len()` bytes, in the target's byte order
/// (the value fits: [`check`] made the member wide enough for its bounds,
/// which the arguments passed).
fn put_int(dst: &mut [u8], v: i64) {
    let le = v.to_le_bytes();
    let n = dst.len().min(8);
    let low = le.get(..n).unwrap_or(&[]);
    if cfg!(target_endian = "little") {
        copy(dst, low);
    } else {
        for (d, b) in dst.iter_mut().zip(low.iter().rev()) {
            *d = *b;
        }
    }
}

/// An `mcp_str_t` of `s`: its address, then its length.
fn put_span(dst: &mut [u8], s: &[u8]) {
    const W: usize = core::mem::size_of::<usize>();
    let (addr, len) = dst.split_at_mut(W.min(dst.len()));
    copy(addr, &s.as_ptr().expose_provenance().to_ne_bytes());
    copy(len, &s.len().to_ne_bytes());
}

fn copy(dst: &mut [u8], src: &[u8]) {
    for (d, b) in dst.iter_mut().zip(src) {
        *d = *b;
    }
}

#[cfg(test)]
mod tests {
    use super::super::emit;
    use super::*;
    use core::mem::offset_of;

    const SCHEMA: &str = r#"{"type":"object","required":["percent"],"properties":{
        "percent":{"type":"integer","minimum":0,"maximum":100},
        "key":{"type":"string","minLength":1,"maxLength":8},
        "sensor":{"type":"string","enum":["t1","t2","rh1"]},
        "ratio":{"type":"number"},
        "on":{"type":"boolean"},
        "level":{"type":"integer","minimum":-300,"maximum":300,"default":3},
        "extra":{"type":"object"},
        "name":{"type":"string"},
        "big":{"type":"integer"}}}"#;

    /// The struct emcp-gen declares for SCHEMA (the layout's offsets come
    /// from it, as the generated C takes them with `offsetof`).
    #[allow(dead_code)]
    #[repr(C)]
    struct Args {
        percent: u8,
        has_key: bool,
        key: [usize; 2],
        has_sensor: bool,
        sensor: u32,
        ratio: mcp_decimal_t,
        has_ratio: bool,
        on: bool,
        has_on: bool,
        level: i16,
        extra: [usize; 2],
        has_extra: bool,
        name: [usize; 2],
        has_name: bool,
        big: i64,
        has_big: bool,
    }

    fn slot(offset: usize, size: usize, present: Option<usize>, kind: u8) -> mcp_arg_slot_t {
        mcp_arg_slot_t {
            offset: offset as u16,
            size: size as u16,
            present: present.map_or(MCP_ARG_ALWAYS, |p| p as u16),
            kind,
        }
    }

    fn slots() -> [mcp_arg_slot_t; 9] {
        let str_size = STR_SIZE;
        [
            slot(offset_of!(Args, percent), 1, None, MCP_ARG_INT),
            slot(
                offset_of!(Args, key),
                str_size,
                Some(offset_of!(Args, has_key)),
                MCP_ARG_STR,
            ),
            slot(
                offset_of!(Args, sensor),
                4,
                Some(offset_of!(Args, has_sensor)),
                MCP_ARG_ENUM,
            ),
            slot(
                offset_of!(Args, ratio),
                core::mem::size_of::<mcp_decimal_t>(),
                Some(offset_of!(Args, has_ratio)),
                MCP_ARG_NUMBER,
            ),
            slot(
                offset_of!(Args, on),
                1,
                Some(offset_of!(Args, has_on)),
                MCP_ARG_BOOL,
            ),
            slot(offset_of!(Args, level), 2, None, MCP_ARG_INT),
            slot(
                offset_of!(Args, extra),
                str_size,
                Some(offset_of!(Args, has_extra)),
                MCP_ARG_JSON,
            ),
            slot(
                offset_of!(Args, name),
                str_size,
                Some(offset_of!(Args, has_name)),
                MCP_ARG_JSON,
            ),
            slot(
                offset_of!(Args, big),
                8,
                Some(offset_of!(Args, has_big)),
                MCP_ARG_INT,
            ),
        ]
    }

    fn program() -> std::vec::Vec<u8> {
        let mut buf = [0u8; 1024];
        let n = emit(SCHEMA, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn word(out: &[u8], at: usize, n: usize) -> i64 {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&out[at..at + n]);
        let v = i64::from_ne_bytes(b);
        if n < 8 && out[at + n - 1] & 0x80 != 0 {
            v - (1i64 << (8 * n))
        } else {
            v
        }
    }

    /// The bytes an `mcp_str_t` at `at` points to.
    fn span<'a>(out: &[u8], at: usize, within: &'a [u8], text: &'a [u8]) -> &'a [u8] {
        let w = core::mem::size_of::<usize>();
        let addr = usize::from_ne_bytes(out[at..at + w].try_into().unwrap());
        let len = usize::from_ne_bytes(out[at + w..at + 2 * w].try_into().unwrap());
        for whole in [within, text] {
            let start = whole.as_ptr() as usize;
            if addr >= start && addr + len <= start + whole.len() {
                return &whole[addr - start..addr - start + len];
            }
        }
        panic!("the span points outside the request and the text area");
    }

    #[test]
    fn kinds_follow_the_schema() {
        let p = program();
        let kinds: std::vec::Vec<ArgKind> = members(&p).map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                ArgKind::Int { min: 0, max: 100 },
                ArgKind::Str { max_len: 8 },
                ArgKind::Enum { count: 3 },
                ArgKind::Number,
                ArgKind::Bool,
                ArgKind::Int {
                    min: -300,
                    max: 300
                },
                ArgKind::Json,
                ArgKind::Json,
                ArgKind::Int {
                    min: i64::MIN,
                    max: i64::MAX
                },
            ]
        );
        assert_eq!(int_type(0, 100), (1, false));
        assert_eq!(int_type(-300, 300), (2, true));
        assert_eq!(int_type(0, 70_000), (4, false));
        assert_eq!(int_type(-1, 1 << 40), (8, true));
        assert_eq!(text_len(&p), 32);
        let always: std::vec::Vec<bool> = members(&p).map(|m| m.always).collect();
        assert_eq!(
            always,
            [true, false, false, false, false, true, false, false, false]
        );
    }

    fn filled(args: &str, text: &mut [u8]) -> (std::vec::Vec<u8>, Result<(), FillError>) {
        let p = program();
        let s = slots();
        let layout = Layout {
            slots: &s,
            size: core::mem::size_of::<Args>(),
        };
        assert!(check(&p, &layout));
        crate::json::check(args.as_bytes(), 16).unwrap();
        let doc = Doc::new(args.as_bytes());
        assert!(super::super::run(&p, &doc, Some(0)).is_ok(), "{args}");
        let mut out = std::vec![0xAAu8; layout.size];
        let r = fill(&p, &layout, &doc, Some(0), &mut out, text);
        (out, r)
    }

    #[test]
    fn every_member_is_filled() {
        let args = r#"{"percent":100,"key":"k\u0041\n","sensor":"r\u00681","ratio":-2.5,
            "on":true,"level":-299,"extra":{"a":[1]},"name":"n\"x","big":-9007199254740993}"#;
        let mut text = [0u8; 32];
        let (out, r) = filled(args, &mut text);
        assert_eq!(r, Ok(()));
        let req = args.as_bytes();
        assert_eq!(word(&out, offset_of!(Args, percent), 1) & 0xFF, 100);
        assert_eq!(out[offset_of!(Args, has_key)], 1);
        assert_eq!(span(&out, offset_of!(Args, key), req, &text), b"kA\n");
        assert_eq!(word(&out, offset_of!(Args, sensor), 4), 2);
        let at = offset_of!(Args, ratio);
        assert_eq!(word(&out, at, 8), -25);
        assert_eq!(word(&out, at + offset_of!(mcp_decimal_t, exp10), 4), -1);
        assert_eq!(out[offset_of!(Args, on)], 1);
        assert_eq!(word(&out, offset_of!(Args, level), 2), -299);
        assert_eq!(
            span(&out, offset_of!(Args, extra), req, &text),
            br#"{"a":[1]}"#
        );
        assert_eq!(span(&out, offset_of!(Args, name), req, &text), br#""n\"x""#);
        assert_eq!(word(&out, offset_of!(Args, big), 8), -9007199254740993);
        assert_eq!(out[offset_of!(Args, has_big)], 1);
    }

    #[test]
    fn absent_members_are_zero_or_their_default() {
        let mut text = [0u8; 32];
        let (out, r) = filled(r#"{"percent":7,"key":"plain"}"#, &mut text);
        assert_eq!(r, Ok(()));
        let req = br#"{"percent":7,"key":"plain"}"#;
        assert_eq!(out[offset_of!(Args, percent)], 7);
        // No escape: the span is into the request, the text area unused.
        assert_eq!(span(&out, offset_of!(Args, key), req, &[]), b"plain");
        assert_eq!(word(&out, offset_of!(Args, level), 2), 3, "the default");
        for has in [
            offset_of!(Args, has_sensor),
            offset_of!(Args, has_ratio),
            offset_of!(Args, has_on),
            offset_of!(Args, has_extra),
            offset_of!(Args, has_big),
        ] {
            assert_eq!(out[has], 0);
        }
        assert_eq!(word(&out, offset_of!(Args, big), 8), 0);
        assert_eq!(word(&out, offset_of!(Args, sensor), 4), 0);
    }

    #[test]
    fn a_text_area_too_small_is_refused() {
        let mut text = [0u8; 2];
        let (_, r) = filled(r#"{"percent":7,"key":"\u0041bc"}"#, &mut text);
        assert_eq!(r, Err(FillError::Text));
        let mut text = [0u8; 3];
        assert_eq!(
            filled(r#"{"percent":7,"key":"\u0041bc"}"#, &mut text).1,
            Ok(())
        );
        // The longest string maxLength admits fits the area text_len gives.
        let mut text = [0u8; 32];
        let longest = r#"{"percent":7,"key":"\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00"}"#;
        assert_eq!(filled(longest, &mut text).1, Ok(()));
    }

    #[test]
    fn layouts_that_do_not_fit_are_refused() {
        let p = program();
        let size = core::mem::size_of::<Args>();
        let ok = slots();
        assert!(check(&p, &Layout { slots: &ok, size }));
        let bad = |i: usize, f: &dyn Fn(&mut mcp_arg_slot_t)| {
            let mut s = slots();
            f(&mut s[i]);
            !check(&p, &Layout { slots: &s, size })
        };
        // What the schema decides, with the checker.
        let schema = cfg!(feature = "schema-check");
        assert_eq!(bad(5, &|s| s.size = 1), schema, "level needs two bytes");
        assert_eq!(
            bad(1, &|s| s.present = MCP_ARG_ALWAYS),
            schema,
            "key may be absent"
        );
        assert_eq!(
            bad(6, &|s| s.kind = MCP_ARG_STR),
            schema,
            "extra is JSON text"
        );
        // What keeps the filler inside the struct, always.
        assert!(bad(0, &|s| s.size = 3), "no three-byte integer");
        assert!(bad(0, &|s| s.kind = 9), "no such kind");
        assert!(
            bad(8, &|s| s.offset = size as u16 - 4),
            "outside the struct"
        );
        assert!(bad(4, &|s| s.size = 4), "bool is one byte");
        assert!(bad(7, &|s| s.size = 8), "a span is two words");
        assert!(bad(3, &|s| s.present = size as u16), "flag outside");
        assert!(
            !check(
                &p,
                &Layout {
                    slots: &ok[..8],
                    size
                }
            ),
            "one short"
        );
        let mut more = ok.to_vec();
        more.push(ok[0]);
        assert!(!check(&p, &Layout { slots: &more, size }), "one too many");
        let cut = offset_of!(Args, big) + 4;
        assert!(
            !check(
                &p,
                &Layout {
                    slots: &ok,
                    size: cut
                }
            ),
            "struct too small"
        );
        let out_len = {
            let mut out = std::vec![0u8; size - 1];
            let doc = Doc::new(b"{}");
            fill(
                &p,
                &Layout { slots: &ok, size },
                &doc,
                Some(0),
                &mut out,
                &mut [],
            )
        };
        assert_eq!(out_len, Err(FillError::Size));
    }

    #[test]
    fn enums_are_scanned_as_strings() {
        fn all(a: &str) -> Option<std::vec::Vec<&[u8]>> {
            strings(a.as_bytes()).map(|v| v.collect())
        }
        assert_eq!(
            all(r#"["a","b\"c"]"#),
            Some(std::vec![&b"a"[..], br#"b\"c"#])
        );
        assert_eq!(all(r#"[ "a" , "b" ]"#), Some(std::vec![&b"a"[..], b"b"]));
        assert_eq!(all("[]"), Some(std::vec![]));
        assert_eq!(all(r#"["a",1]"#), None);
        assert_eq!(all(r#"[1,"a"]"#), None);
        assert_eq!(all(r#"["a"#), None);
        assert_eq!(all("{}"), None);
    }

    /// A damaged program or layout never makes the filler panic or write
    /// outside the struct (every single-byte change of the program).
    #[test]
    fn damaged_programs_never_panic() {
        let good = program();
        let s = slots();
        let layout = Layout {
            slots: &s,
            size: core::mem::size_of::<Args>(),
        };
        let args = br#"{"percent":7,"key":"\u0041","sensor":"t1","level":3,"extra":[1]}"#;
        let doc = Doc::new(args);
        let mut p = good.clone();
        for i in 0..p.len() {
            for x in [0u8, 1, 0x22, 0x5c, 0x7f, 0xff] {
                let old = p[i];
                p[i] = x;
                let _ = check(&p, &layout);
                let mut out = std::vec![0u8; layout.size];
                let mut text = [0u8; 8];
                let _ = fill(&p, &layout, &doc, Some(0), &mut out, &mut text);
                let _ = members(&p).count();
                p[i] = old;
            }
        }
    }

    #[test]
    fn arrays_with_max_items_are_filled_in_place() {
        let schema = r#"{"type":"object","properties":{
            "l":{"type":"array","maxItems":3,"items":{"type":"integer","minimum":0,"maximum":9}},
            "s":{"type":"array","maxItems":2,"items":{"type":"string","maxLength":2}},
            "e":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]}},
            "j":{"type":"array","items":{"type":"integer"}},
            "n":{"type":"array","maxItems":2,"items":{"type":"array"}}}}"#;
        let mut buf = [0u8; 1024];
        let n = emit(schema, &mut buf).unwrap();
        let p = &buf[..n];
        let kinds: std::vec::Vec<ArgKind> = members(p).map(|m| m.kind).collect();
        assert!(matches!(kinds[0], ArgKind::Array { max_items: 3, .. }));
        assert!(matches!(kinds[1], ArgKind::Array { max_items: 2, .. }));
        assert!(matches!(kinds[2], ArgKind::Array { max_items: 2, .. }));
        assert_eq!(kinds[3], ArgKind::Json, "no maxItems");
        assert_eq!(kinds[4], ArgKind::Json, "arrays of arrays");
        assert_eq!(text_len(p), 2 * 4 * 2);
        // l: 3 bytes and a count; s: two spans and a count; e: 2 and a count.
        let (l, sz, e) = (0, 8, 8 + 2 * STR_SIZE + 8);
        let j = e + 8;
        let nn = j + STR_SIZE;
        let size = nn + STR_SIZE + 8;
        let slot = |offset: usize, size: usize, kind: u8| mcp_arg_slot_t {
            offset: offset as u16,
            size: size as u16,
            present: (nn + STR_SIZE + (offset % 7)) as u16,
            kind,
        };
        let slots = [
            slot(l, 4, MCP_ARG_ARRAY),
            slot(sz, 2 * STR_SIZE + 1, MCP_ARG_ARRAY),
            slot(e, 3, MCP_ARG_ARRAY),
            slot(j, STR_SIZE, MCP_ARG_JSON),
            slot(nn, STR_SIZE, MCP_ARG_JSON),
        ];
        let layout = Layout {
            slots: &slots,
            size,
        };
        assert!(check(p, &layout));
        let mut narrow = slots;
        narrow[1].size = 2 * STR_SIZE as u16; // no room for the count
        assert_eq!(
            check(
                p,
                &Layout {
                    slots: &narrow,
                    size
                }
            ),
            !cfg!(feature = "schema-check")
        );
        let args = br#"{"l":[1,2],"s":["a","\u0062c"],"e":["y"]}"#;
        let doc = Doc::new(args);
        let mut out = std::vec![0xAAu8; size];
        let mut text = [0u8; 16];
        assert_eq!(fill(p, &layout, &doc, Some(0), &mut out, &mut text), Ok(()));
        assert_eq!(&out[l..l + 4], &[1, 2, 0, 2]);
        assert_eq!(span(&out, sz, args, &text), b"a");
        assert_eq!(span(&out, sz + STR_SIZE, args, &text), b"bc");
        assert_eq!(out[sz + 2 * STR_SIZE], 2);
        assert_eq!(&out[e..e + 3], &[1, 0, 1]);
    }
}
