//! JSON Schema for tool arguments: checked once at registration, read in
//! place on every call before the callback runs.
//!
//! Owns: the supported keyword set (anything else fails registration, naming
//! the keyword), reading a (sub)schema's constraints straight from the schema
//! text, validation with messages that name the argument path and the rule,
//! and `default` lookup for absent arguments.
//! Must not: allocate, keep anything from a request, or copy a schema: the
//! text the caller registered (kept alive for the server's lifetime, usually
//! in flash) is the only representation, so a schema costs no RAM.

pub(crate) mod compile;
pub(crate) mod emit;
mod message;
pub(crate) mod program;
mod run;
pub(crate) mod seal;
pub mod typed;
mod validate;

pub use compile::{SchemaError, SchemaErrorKind, compile};
pub use emit::{emit, matches};
pub use message::MsgBuf;
pub use run::{PViolation, default_for as program_default_for, run};
pub use seal::seal;
pub use validate::{Violation, default_for, validate};

use crate::json::{Doc, Kind};

/// One step of an argument path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg<'p> {
    /// An object member.
    Key(&'p str),
    /// An array element.
    Index(usize),
}

/// "No node" in `Node::items` and `Prop::node`.
pub(crate) const NONE: usize = usize::MAX;

/// A byte range of the schema text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The bytes of `text` this span covers.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn of<'t>(&self, text: &'t str) -> &'t [u8] {
        text.as_bytes()
            .get(self.start as usize..self.end as usize)
            .unwrap_or(&[])
    }

    /// True for the empty span.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// JSON Schema `type` bits.
pub mod ty {
    /// `object`
    pub(crate) const OBJECT: u8 = 1;
    /// `array`
    pub(crate) const ARRAY: u8 = 2;
    /// `string`
    pub(crate) const STRING: u8 = 4;
    /// `integer`
    pub(crate) const INTEGER: u8 = 8;
    /// `number`
    pub(crate) const NUMBER: u8 = 16;
    /// `boolean`
    pub(crate) const BOOLEAN: u8 = 32;
    /// `null`
    pub(crate) const NULL: u8 = 64;
}

/// A keyword whose value is read when validating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KwKind {
    /// `minimum`
    Minimum,
    /// `maximum`
    Maximum,
    /// `exclusiveMinimum`
    ExclusiveMinimum,
    /// `exclusiveMaximum`
    ExclusiveMaximum,
    /// `multipleOf`
    MultipleOf,
    /// `minLength` (code points)
    MinLength,
    /// `maxLength` (code points)
    MaxLength,
    /// `minItems`
    MinItems,
    /// `maxItems`
    MaxItems,
    /// `enum` (scalar members)
    Enum,
    /// `const` (a scalar)
    Const,
    /// `default` (reported to callbacks when the argument is absent)
    Default,
}

impl KwKind {
    /// `minimum`, `maximum` or their exclusive forms.
    pub fn is_bound(self) -> bool {
        matches!(
            self,
            KwKind::Minimum | KwKind::Maximum | KwKind::ExclusiveMinimum | KwKind::ExclusiveMaximum
        )
    }
}

/// The constraint keyword called `name` (a key's inside, as written).
pub(crate) fn kw_named(name: &[u8], escaped: bool) -> Option<KwKind> {
    if cfg!(target_os = "none") {
        return kw_decoding(name);
    }
    if escaped {
        // A keyword spelled with escapes: decode it (registration only
        // meets these; a schema without them never takes this path).
        let mut buf = [0u8; 16];
        let mut n = 0;
        for b in crate::json::Unescape::new(name) {
            *buf.get_mut(n)? = b;
            n += 1;
        }
        return kw_named(buf.get(..n)?, false);
    }
    KWS.iter().find(|(n, _)| *n == name).map(|&(_, k)| k)
}

/// [`kw_named`] on bare-metal targets: one decoding compare per keyword
/// instead of a decode into a buffer and a raw compare (flash first).
fn kw_decoding(name: &[u8]) -> Option<KwKind> {
    KWS.iter()
        .find(|(n, _)| crate::json::Unescape::new(name).eq(n.iter().copied()))
        .map(|&(_, k)| k)
}

/// The constraint keywords, by name (a table: smaller code than a match).
const KWS: [(&[u8], KwKind); 12] = [
    (b"minimum", KwKind::Minimum),
    (b"maximum", KwKind::Maximum),
    (b"exclusiveMinimum", KwKind::ExclusiveMinimum),
    (b"exclusiveMaximum", KwKind::ExclusiveMaximum),
    (b"multipleOf", KwKind::MultipleOf),
    (b"minLength", KwKind::MinLength),
    (b"maxLength", KwKind::MaxLength),
    (b"minItems", KwKind::MinItems),
    (b"maxItems", KwKind::MaxItems),
    (b"enum", KwKind::Enum),
    (b"const", KwKind::Const),
    (b"default", KwKind::Default),
];

/// The constraint keyword named by the key string at `key`.
pub(crate) fn kw_kind(doc: &Doc<'_>, key: usize) -> Option<KwKind> {
    let name = doc.str_inner(key)?;
    kw_named(name, crate::json::has_byte(name, b'\\'))
}

/// The [`ty`] bit of the type-name string at `v`.
pub(crate) fn type_bit(doc: &Doc<'_>, v: usize) -> Option<u8> {
    if cfg!(target_os = "none") {
        return type_decoding(doc.str_inner(v)?);
    }
    // A plain type name, read where it stands: its first letter picks the
    // one name it can be (`n`: number or null), and the closing quote must
    // follow it.
    let text = doc.src().get(v..)?;
    let at = match text.get(1..3)? {
        [b'o', _] => Some(0),
        [b'a', _] => Some(1),
        [b's', _] => Some(2),
        [b'i', _] => Some(3),
        [b'n', b'u'] => text.get(3).map(|&c| if c == b'm' { 4 } else { 6 }),
        [b'b', _] => Some(5),
        _ => None,
    };
    if let Some(i) = at {
        let name = TYPES.get(i)?;
        if text.first() == Some(&b'"')
            && text.get(1..=name.len()) == Some(name)
            && text.get(name.len() + 1) == Some(&b'"')
        {
            return Some(1 << i);
        }
    }
    let name = doc.str_inner(v)?;
    if !crate::json::has_byte(name, b'\\') {
        return type_named(name);
    }
    // A type name spelled with escapes (rare; registration accepted it).
    let mut buf = [0u8; 8];
    let mut n = 0;
    for b in crate::json::Unescape::new(name) {
        *buf.get_mut(n)? = b;
        n += 1;
    }
    type_named(buf.get(..n)?)
}

/// The type names, in [`ty`] bit order.
pub(crate) const TYPES: [&[u8]; 7] = [
    b"object", b"array", b"string", b"integer", b"number", b"boolean", b"null",
];

/// [`type_bit`] on bare-metal targets: one decoding compare per type name.
fn type_decoding(name: &[u8]) -> Option<u8> {
    TYPES
        .iter()
        .position(|n| crate::json::Unescape::new(name).eq(n.iter().copied()))
        .map(|i| 1u8 << i)
}

/// The [`ty`] bit of a decoded type name.
fn type_named(lit: &[u8]) -> Option<u8> {
    TYPES.iter().position(|n| *n == lit).map(|i| 1u8 << i)
}

/// The members that shape a node rather than constrain a value, in the
/// order [`Schema::node_with`] numbers them.
const STRUCTURE: [&[u8]; 6] = [
    b"type",
    b"additionalProperties",
    b"items",
    b"properties",
    b"required",
    b"x-mcp-header",
];

/// What a member of a schema node is, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// [`STRUCTURE`]'s entry at this index.
    Structure(usize),
    /// A constraint keyword.
    Keyword(KwKind),
    /// Neither (an annotation such as `description`).
    Other,
}

/// The [`Role`] of a member called `name` (a key's inside, `escaped` when it
/// holds a backslash).
fn member_role(name: &[u8], escaped: bool) -> Role {
    if cfg!(target_os = "none") || escaped {
        return role_by_tables(name, escaped);
    }
    // Hosted targets: one match (a length switch, then one compare) instead
    // of comparing with each name of the two tables in turn; bare-metal
    // targets keep the tables (less code).
    match name {
        b"type" => Role::Structure(0),
        b"additionalProperties" => Role::Structure(1),
        b"items" => Role::Structure(2),
        b"properties" => Role::Structure(3),
        b"required" => Role::Structure(4),
        b"x-mcp-header" => Role::Structure(5),
        b"minimum" => Role::Keyword(KwKind::Minimum),
        b"maximum" => Role::Keyword(KwKind::Maximum),
        b"exclusiveMinimum" => Role::Keyword(KwKind::ExclusiveMinimum),
        b"exclusiveMaximum" => Role::Keyword(KwKind::ExclusiveMaximum),
        b"multipleOf" => Role::Keyword(KwKind::MultipleOf),
        b"minLength" => Role::Keyword(KwKind::MinLength),
        b"maxLength" => Role::Keyword(KwKind::MaxLength),
        b"minItems" => Role::Keyword(KwKind::MinItems),
        b"maxItems" => Role::Keyword(KwKind::MaxItems),
        b"enum" => Role::Keyword(KwKind::Enum),
        b"const" => Role::Keyword(KwKind::Const),
        b"default" => Role::Keyword(KwKind::Default),
        _ => Role::Other,
    }
}

/// [`member_role`] by [`STRUCTURE`] and [`KWS`] (every target; the one form
/// on bare metal).
fn role_by_tables(name: &[u8], escaped: bool) -> Role {
    if let Some(j) = STRUCTURE
        .iter()
        .position(|k| crate::json::name_is(name, escaped, k))
    {
        return Role::Structure(j);
    }
    kw_named(name, escaped).map_or(Role::Other, Role::Keyword)
}

/// One keyword and its value in the schema text.
#[derive(Clone, Copy, Debug)]
pub struct Kw {
    /// Which keyword.
    pub kind: KwKind,
    /// Its value, as written.
    pub value: Span,
}

/// One declared property of an object schema.
#[derive(Clone, Copy, Debug)]
pub struct Prop {
    /// The property name: the inside of the key string, as written.
    pub name: Span,
    /// Its schema.
    pub node: usize,
}

/// One (sub)schema, as read from the text.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Where its object starts in the schema text.
    pub at: usize,
    /// Allowed types ([`ty`] bits); 0 allows any.
    pub types: u8,
    /// `additionalProperties: false`.
    pub closed: bool,
    /// The `items` schema, or [`NONE`].
    pub items: usize,
    /// The `properties` object, or [`NONE`].
    pub props: usize,
    /// The `required` array, or [`NONE`].
    pub required: usize,
    /// The `x-mcp-header` string, or [`NONE`].
    pub header: usize,
}

/// A registered schema text, read in place. [`compile`] accepted it, so the
/// readers below trust its shape and never report errors.
#[derive(Clone, Copy)]
pub struct Schema<'t> {
    /// The schema text.
    pub text: &'t str,
    doc: Doc<'t>,
}

fn span(doc: &Doc<'_>, i: usize) -> Span {
    Span {
        start: i as u32,
        end: doc.skip(i) as u32,
    }
}

impl<'t> Schema<'t> {
    /// Reads `text`, a schema [`compile`] accepted.
    pub fn new(text: &'t str) -> Self {
        Schema {
            text,
            doc: Doc::new(text.as_bytes()),
        }
    }

    /// The text as a document.
    pub fn doc(&self) -> &Doc<'t> {
        &self.doc
    }

    /// The root schema.
    pub fn root(&self) -> usize {
        self.doc.root()
    }

    /// The schema object at `i`; `None` for [`NONE`] (no constraints).
    pub fn node(&self, i: usize) -> Option<Node> {
        self.node_with(i, &mut |_, _| {})
    }

    /// [`Schema::node`], handing each constraint keyword and its value to
    /// `kw` in text order as the one pass over the members meets it (what
    /// [`Schema::kws`] would yield, without a second pass).
    pub fn node_with(&self, i: usize, kw: &mut dyn FnMut(KwKind, Span)) -> Option<Node> {
        let d = &self.doc;
        if d.kind(i) != Some(Kind::Object) {
            return None;
        }
        let mut n = Node {
            at: i,
            types: 0,
            closed: false,
            items: NONE,
            props: NONE,
            required: NONE,
            header: NONE,
        };
        // The first member of each structural name counts (as a lookup
        // would find it); a later one is neither structure nor a keyword.
        let mut seen = 0u8;
        for e in d.entries(i) {
            let v = e.val;
            let j = match member_role(e.name, e.escaped) {
                Role::Structure(j) => j,
                Role::Keyword(kind) => {
                    kw(kind, span(d, v));
                    continue;
                }
                Role::Other => continue,
            };
            if seen & (1 << j) != 0 {
                continue;
            }
            seen |= 1 << j;
            match j {
                0 => {
                    n.types = match d.kind(v) {
                        Some(Kind::Array) => d
                            .elements(v)
                            .fold(0, |m, e| m | type_bit(d, e).unwrap_or(0)),
                        _ => type_bit(d, v).unwrap_or(0),
                    }
                }
                1 => n.closed = d.kind(v) == Some(Kind::False),
                2 => n.items = v,
                3 => n.props = v,
                4 => n.required = v,
                _ => n.header = v,
            }
        }
        Some(n)
    }

    /// The declared properties of `n`, in text order.
    pub fn props(&self, n: &Node) -> impl Iterator<Item = Prop> + use<'t> {
        self.doc.entries(n.props).map(|e| Prop {
            name: Span {
                start: e.key as u32 + 1,
                end: (e.key + 1 + e.name.len()) as u32,
            },
            node: e.val,
        })
    }

    /// True when `n`'s `required` lists `name` (a key's inside, as written).
    pub fn is_required(&self, n: &Node, name: &[u8]) -> bool {
        let d = &self.doc;
        d.elements(n.required)
            .any(|r| compile::same_text(d.str_inner(r).unwrap_or(&[]), name))
    }

    /// The constraint keywords of `n`, in text order.
    pub fn kws(&self, n: &Node) -> impl Iterator<Item = Kw> + use<'t> {
        let d = self.doc;
        d.entries(n.at).filter_map(move |e| {
            kw_named(e.name, e.escaped).map(|kind| Kw {
                kind,
                value: span(&d, e.val),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Unescape;

    /// The decoding lookups bare-metal targets run name the same keyword,
    /// type and equality as the hosted forms, for plain and escaped names.
    #[test]
    fn decoding_lookups_agree() {
        let mut names: Vec<Vec<u8>> = [
            &b""[..],
            b"min",
            b"minimumx",
            b"n",
            b"nu",
            b"num",
            b"nul",
            b"numbers",
            b"nulll",
            b"nuLl",
            b"objects",
            b"i",
            b"integ",
        ]
        .iter()
        .map(|n| n.to_vec())
        .collect();
        for (n, _) in KWS.iter() {
            names.push(n.to_vec());
            // The first letter as a \u escape, and a lone escaped quote.
            let mut e = format!("\\u{:04x}", n[0]).into_bytes();
            e.extend_from_slice(&n[1..]);
            names.push(e);
        }
        for t in TYPES {
            names.push(t.to_vec());
            let mut e = t[..t.len() - 1].to_vec();
            e.extend_from_slice(format!("\\u{:04X}", t[t.len() - 1]).as_bytes());
            names.push(e);
        }
        names.push(br#"\"string"#.to_vec());
        for n in &names {
            let escaped = n.contains(&b'\\');
            assert_eq!(kw_named(n, escaped), kw_decoding(n), "{n:?}");
            let quoted = [b"\"", n.as_slice(), b"\""].concat();
            crate::json::check(&quoted, 2).unwrap();
            let doc = Doc::new(&quoted);
            assert_eq!(type_bit(&doc, 0), type_decoding(n), "{n:?}");
            for m in &names {
                let decoded = Unescape::new(n).eq(Unescape::new(m));
                assert_eq!(compile::same_text(n, m), decoded, "{n:?} {m:?}");
            }
        }
        assert_eq!(kw_decoding(br"\u006dinimum"), Some(KwKind::Minimum));
        // The hosted match names the same roles as the tables.
        let mut all = names.clone();
        all.extend(STRUCTURE.iter().map(|n| n.to_vec()));
        all.extend([b"typ".to_vec(), b"itemss".to_vec(), b"description".to_vec()]);
        for n in &all {
            let escaped = n.contains(&b'\\');
            assert_eq!(member_role(n, escaped), role_by_tables(n, escaped), "{n:?}");
        }
        assert_eq!(member_role(br"\u0074ype", true), Role::Structure(0));
        assert_eq!(type_decoding(br"nul\u006C"), Some(ty::NULL));
    }
}
