//! JSON Schema for tool arguments: compiled once at registration into bounded
//! tables, checked on every call before the callback runs.
//!
//! Owns: the supported keyword set (anything else fails registration, naming
//! the keyword), the constraint tables, validation with messages that name the
//! argument path and the rule, and `default` lookup for absent arguments.
//! Must not: allocate, or keep anything from a request.
//!
//! Tables hold spans into the schema text (which the caller keeps alive for
//! the server's lifetime), so a number bound or an enum list costs 8 bytes.

pub(crate) mod compile;
mod message;
mod validate;

pub use compile::{SchemaError, SchemaErrorKind, compile};
pub use message::MsgBuf;
pub use validate::{default_for, validate};

use crate::limits::{MCP_MAX_SCHEMA_KEYWORDS, MCP_MAX_SCHEMA_NODES, MCP_MAX_SCHEMA_PROPS};

/// "No node" in `Node::items` and `Prop::node`.
pub(crate) const NONE: u16 = u16::MAX;

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

/// A keyword whose value is kept as a span and read when validating.
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
    pub node: u16,
    /// Listed in `required`.
    pub required: bool,
    /// Its `x-mcp-header` name (inside of the string), empty when none.
    pub header: Span,
}

/// One (sub)schema.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Allowed types ([`ty`] bits); 0 allows any.
    pub types: u8,
    /// `additionalProperties: false`.
    pub closed: bool,
    /// The `items` schema, or [`NONE`].
    pub items: u16,
    /// First entry of this node's properties in [`Tables::props`].
    pub props_start: u16,
    /// Number of properties.
    pub props_len: u16,
    /// First entry of this node's keywords in [`Tables::kws`].
    pub kws_start: u16,
    /// Number of keywords.
    pub kws_len: u16,
}

pub(crate) const EMPTY_NODE: Node = Node {
    types: 0,
    closed: false,
    items: NONE,
    props_start: 0,
    props_len: 0,
    kws_start: 0,
    kws_len: 0,
};
pub(crate) const EMPTY_PROP: Prop = Prop {
    name: Span { start: 0, end: 0 },
    node: NONE,
    required: false,
    header: Span { start: 0, end: 0 },
};
pub(crate) const EMPTY_KW: Kw = Kw {
    kind: KwKind::Default,
    value: Span { start: 0, end: 0 },
};

/// The constraint tables of every registered schema, in the server's storage.
pub struct Tables {
    pub(crate) nodes: [Node; MCP_MAX_SCHEMA_NODES],
    pub(crate) props: [Prop; MCP_MAX_SCHEMA_PROPS],
    pub(crate) kws: [Kw; MCP_MAX_SCHEMA_KEYWORDS],
    pub(crate) n_nodes: u16,
    pub(crate) n_props: u16,
    pub(crate) n_kws: u16,
}

impl Tables {
    /// Empty tables.
    pub const fn new() -> Self {
        Tables {
            nodes: [EMPTY_NODE; MCP_MAX_SCHEMA_NODES],
            props: [EMPTY_PROP; MCP_MAX_SCHEMA_PROPS],
            kws: [EMPTY_KW; MCP_MAX_SCHEMA_KEYWORDS],
            n_nodes: 0,
            n_props: 0,
            n_kws: 0,
        }
    }

    /// The node at `i`.
    pub fn node(&self, i: u16) -> Option<&Node> {
        self.nodes.get(usize::from(i)).filter(|_| i < self.n_nodes)
    }

    /// The properties of `n`.
    pub fn props(&self, n: &Node) -> &[Prop] {
        let s = usize::from(n.props_start);
        self.props
            .get(s..s + usize::from(n.props_len))
            .unwrap_or(&[])
    }

    /// The keywords of `n`.
    pub fn kws(&self, n: &Node) -> &[Kw] {
        let s = usize::from(n.kws_start);
        self.kws.get(s..s + usize::from(n.kws_len)).unwrap_or(&[])
    }

    /// Entries used so far: (nodes, properties, keywords).
    pub fn usage(&self) -> (usize, usize, usize) {
        (
            usize::from(self.n_nodes),
            usize::from(self.n_props),
            usize::from(self.n_kws),
        )
    }

    /// A position to roll back to when a registration fails half-way.
    fn mark(&self) -> (u16, u16, u16) {
        (self.n_nodes, self.n_props, self.n_kws)
    }

    fn rollback(&mut self, m: (u16, u16, u16)) {
        (self.n_nodes, self.n_props, self.n_kws) = m;
    }

    /// Forgets everything compiled after `usage` was taken with [`Tables::usage`].
    pub fn truncate(&mut self, usage: (usize, usize, usize)) {
        self.rollback((usage.0 as u16, usage.1 as u16, usage.2 as u16));
    }
}

impl Default for Tables {
    fn default() -> Self {
        Self::new()
    }
}
