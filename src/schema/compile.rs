//! Schema text → constraint tables, once, at registration.
//!
//! Every keyword is either compiled, accepted as an annotation, or refused
//! with the keyword named: nothing is ignored silently.

use super::validate::{Rule, check_value};
use super::{EMPTY_NODE, Kw, KwKind, MsgBuf, NONE, Node, Prop, Span, Tables, ty};
use crate::json::num::Dec;
use crate::json::{Doc, Kind, TokenizeError, Unescape, check};
use crate::limits::{MCP_MAX_DEPTH, MCP_MAX_MULTIPLE_OF_DIGITS, MCP_MAX_SCHEMA_TOKENS};

/// What kind of problem a schema has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaErrorKind {
    /// Not valid JSON, or beyond the token or depth limit.
    Malformed,
    /// A keyword (or keyword form) the validator does not implement.
    Unsupported,
    /// A keyword with a value of the wrong type or range.
    Invalid,
    /// The server's schema tables are full.
    Full,
}

/// Why a schema was refused, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// The kind of problem.
    pub kind: SchemaErrorKind,
    /// What is wrong, in words; with a [`SchemaError::bound`], the rule the
    /// value at `at` breaks, read as `<value><reason><bound>` (e.g.
    /// `" is above maximum "`).
    pub reason: &'static str,
    /// The offending part of the schema text (a keyword or a value).
    pub at: Span,
    /// For a `default`, `const` or `enum` member its own schema refuses, or a
    /// bound contradicting another: the schema text the rule quotes (the
    /// `maximum`'s value, the `enum` array, a missing property's name; may be
    /// empty). `None` for every other error.
    pub bound: Option<Span>,
}

fn err(kind: SchemaErrorKind, reason: &'static str, at: Span) -> SchemaError {
    SchemaError {
        kind,
        reason,
        at,
        bound: None,
    }
}

impl SchemaError {
    /// Writes the error as `<path>: <what>`, the path leading from the root
    /// of `text` (the schema it was found in) to the offending keyword or
    /// value, e.g. `properties.rpm.default: 9 is above maximum 3` or
    /// `properties.p.pattern: unsupported keyword`; errors about the whole
    /// text have no path (`schema is not valid JSON at {...`).
    pub fn describe(&self, text: &str, m: &mut MsgBuf) {
        let key = match self.kind {
            SchemaErrorKind::Malformed => None,
            _ => super::message::push_json_path(m, text.as_bytes(), self.at.start as usize),
        };
        if key.is_some() {
            m.push(": ");
        }
        let value = self.at.of(text);
        match self.bound {
            Some(bound) => {
                m.push_value(value, 60);
                m.push(self.reason);
                m.push_value(bound.of(text), 60);
            }
            None => {
                m.push(self.reason);
                // A keyword or property name is the path's last segment already.
                if key != Some(true) {
                    m.push(" at ");
                    m.push_value(value, 60);
                }
            }
        }
    }
}

fn span(doc: &Doc<'_>, i: usize) -> Span {
    Span {
        start: i as u32,
        end: doc.skip(i) as u32,
    }
}

fn inner(doc: &Doc<'_>, i: usize) -> Span {
    let s = span(doc, i);
    Span {
        start: s.start + 1,
        end: s.end.saturating_sub(1),
    }
}

/// Compiles `text` (an `inputSchema` or `outputSchema`) into `t` and returns
/// its root node. On error `t` is left as it was.
pub fn compile(text: &str, t: &mut Tables) -> Result<u16, SchemaError> {
    let whole = Span {
        start: 0,
        end: text.len() as u32,
    };
    let counted = check(text.as_bytes(), MCP_MAX_DEPTH).and_then(|n| {
        if n > MCP_MAX_SCHEMA_TOKENS {
            Err(TokenizeError::TooManyTokens)
        } else {
            Ok(n)
        }
    });
    counted.map_err(|e| {
        let reason = match e {
            TokenizeError::TooManyTokens => {
                "schema has more JSON tokens than MCP_MAX_SCHEMA_TOKENS"
            }
            TokenizeError::TooDeep => "schema nests deeper than MCP_MAX_DEPTH",
            _ => "schema is not valid JSON",
        };
        err(SchemaErrorKind::Malformed, reason, whole)
    })?;
    let doc = Doc::new(text.as_bytes());
    let mark = t.mark();
    let result = compile_node(&doc, doc.root(), t, true)
        .and_then(|(root, _)| match t.node(root) {
            Some(r) if r.types == ty::OBJECT => Ok(root),
            _ => Err(err(
                SchemaErrorKind::Invalid,
                "the root schema must declare \"type\": \"object\"",
                whole,
            )),
        })
        .and_then(|root| check_consistent(text, &doc, t, mark.0).map(|()| root));
    if result.is_err() {
        t.rollback(mark);
    }
    result
}

fn kw_kind(doc: &Doc<'_>, key: usize) -> Option<KwKind> {
    const KWS: [(&str, KwKind); 12] = [
        ("minimum", KwKind::Minimum),
        ("maximum", KwKind::Maximum),
        ("exclusiveMinimum", KwKind::ExclusiveMinimum),
        ("exclusiveMaximum", KwKind::ExclusiveMaximum),
        ("multipleOf", KwKind::MultipleOf),
        ("minLength", KwKind::MinLength),
        ("maxLength", KwKind::MaxLength),
        ("minItems", KwKind::MinItems),
        ("maxItems", KwKind::MaxItems),
        ("enum", KwKind::Enum),
        ("const", KwKind::Const),
        ("default", KwKind::Default),
    ];
    KWS.iter()
        .find(|(name, _)| doc.str_eq(key, name))
        .map(|&(_, k)| k)
}

fn is_scalar(k: Option<Kind>) -> bool {
    matches!(
        k,
        Some(Kind::String | Kind::Number | Kind::True | Kind::False | Kind::Null)
    )
}

fn check_kw(doc: &Doc<'_>, kind: KwKind, v: usize) -> Result<(), SchemaError> {
    let bad = |reason| Err(err(SchemaErrorKind::Invalid, reason, span(doc, v)));
    match kind {
        KwKind::Minimum | KwKind::Maximum | KwKind::ExclusiveMinimum | KwKind::ExclusiveMaximum => {
            if doc.as_f64(v).is_err() {
                return bad("a numeric bound must be a finite number");
            }
        }
        KwKind::MultipleOf => {
            // Positive also as an f64 (1e-400 is not), as before.
            if !doc
                .as_f64(v)
                .is_ok_and(|f| f.is_sign_positive() && f.to_bits() != 0)
            {
                return bad("multipleOf must be a number greater than 0");
            }
            let digits = Dec::parse(doc.raw(v)).map_or(usize::MAX, |d| d.significant_digits());
            if digits > MCP_MAX_MULTIPLE_OF_DIGITS as usize {
                return bad(
                    "multipleOf has more significant digits than MCP_MAX_MULTIPLE_OF_DIGITS",
                );
            }
        }
        KwKind::MinLength | KwKind::MaxLength | KwKind::MinItems | KwKind::MaxItems => {
            if !doc
                .as_i64(v)
                .is_ok_and(|n| (0..=i64::from(u32::MAX)).contains(&n))
            {
                return bad("a length or count bound must be a non-negative integer");
            }
        }
        KwKind::Enum => {
            if doc.kind(v) != Some(Kind::Array) || doc.elements(v).next().is_none() {
                return bad("enum must be a non-empty array");
            }
            if doc.elements(v).any(|e| !is_scalar(doc.kind(e))) {
                return Err(err(
                    SchemaErrorKind::Unsupported,
                    "enum members must be strings, numbers, booleans or null",
                    span(doc, v),
                ));
            }
        }
        KwKind::Const => {
            if !is_scalar(doc.kind(v)) {
                return Err(err(
                    SchemaErrorKind::Unsupported,
                    "const must be a string, number, boolean or null",
                    span(doc, v),
                ));
            }
        }
        KwKind::Default => {}
    }
    Ok(())
}

fn type_bit(doc: &Doc<'_>, v: usize) -> Option<u8> {
    const TYPES: [(&str, u8); 7] = [
        ("object", ty::OBJECT),
        ("array", ty::ARRAY),
        ("string", ty::STRING),
        ("integer", ty::INTEGER),
        ("number", ty::NUMBER),
        ("boolean", ty::BOOLEAN),
        ("null", ty::NULL),
    ];
    TYPES
        .iter()
        .find(|(n, _)| doc.str_eq(v, n))
        .map(|&(_, b)| b)
}

fn type_mask(doc: &Doc<'_>, v: usize) -> Result<u8, SchemaError> {
    let unknown = |i| err(SchemaErrorKind::Invalid, "unknown type name", span(doc, i));
    match doc.kind(v) {
        Some(Kind::String) => type_bit(doc, v).ok_or(unknown(v)),
        Some(Kind::Array) if doc.elements(v).next().is_some() => doc
            .elements(v)
            .try_fold(0u8, |m, e| Ok(m | type_bit(doc, e).ok_or(unknown(e))?)),
        _ => Err(err(
            SchemaErrorKind::Invalid,
            "type must be a type name or a non-empty array of them",
            span(doc, v),
        )),
    }
}

fn reserve(
    count: usize,
    used: &mut u16,
    cap: usize,
    what: &'static str,
    at: Span,
) -> Result<u16, SchemaError> {
    let start = *used;
    let end = usize::from(start) + count;
    if end > cap || end >= usize::from(NONE) {
        return Err(err(SchemaErrorKind::Full, what, at));
    }
    *used = end as u16;
    Ok(start)
}

/// Refuses nodes `first..` (just compiled) that contradict themselves: bounds
/// no value meets (`minimum` above `maximum`, ...), and a `default`, `const`
/// or `enum` member the node itself refuses (a call without the argument
/// would read a value no client may send). Runs after the recursive compile,
/// so the validator's frames do not stack on the compiler's.
fn check_consistent(text: &str, doc: &Doc<'_>, t: &Tables, first: u16) -> Result<(), SchemaError> {
    for idx in first..t.n_nodes {
        let Some(node) = t.node(idx) else { continue };
        let kws = t.kws(node);
        for hi in kws {
            for lo in kws {
                check_bounds(text, lo, hi)?;
            }
        }
        for kw in kws {
            if !matches!(kw.kind, KwKind::Default | KwKind::Const | KwKind::Enum) {
                continue;
            }
            let v = kw.value.start as usize;
            let mut one = |inst| {
                check_value(t, text, idx, doc, inst).map_err(|f| SchemaError {
                    kind: SchemaErrorKind::Invalid,
                    reason: rule_text(f.rule),
                    at: span(doc, f.inst),
                    bound: Some(f.bound),
                })
            };
            if kw.kind == KwKind::Enum {
                doc.elements(v).try_for_each(&mut one)?;
            } else {
                one(v)?;
            }
        }
    }
    Ok(())
}

/// A lower bound `lo` and an upper bound `hi` that no value meets.
fn check_bounds(text: &str, lo: &Kw, hi: &Kw) -> Result<(), SchemaError> {
    use KwKind::*;
    let (strict, reason) = match (lo.kind, hi.kind) {
        (Minimum, Maximum) => (false, " is below minimum "),
        (ExclusiveMinimum, Maximum | ExclusiveMaximum) => (true, " is not above exclusiveMinimum "),
        (Minimum, ExclusiveMaximum) => (true, " is not above minimum "),
        (MinLength, MaxLength) => (false, " is below minLength "),
        (MinItems, MaxItems) => (false, " is below minItems "),
        _ => return Ok(()),
    };
    // Registration checked both: numbers, or integers for lengths and counts.
    let (Some(l), Some(h)) = (Dec::parse(lo.value.of(text)), Dec::parse(hi.value.of(text))) else {
        return Ok(());
    };
    let ord = h.cmp_value(&l);
    if ord.is_lt() || (strict && ord.is_eq()) {
        return Err(SchemaError {
            kind: SchemaErrorKind::Invalid,
            reason,
            at: hi.value,
            bound: Some(lo.value),
        });
    }
    Ok(())
}

/// The registration reason for a validator rule (read after the value).
fn rule_text(r: Rule) -> &'static str {
    match r {
        Rule::Value(t) | Rule::Plain(t) => t.text,
        Rule::Type(ty::OBJECT) => " is not an object",
        Rule::Type(ty::ARRAY) => " is not an array",
        Rule::Type(ty::STRING) => " is not a string",
        Rule::Type(ty::INTEGER) => " is not an integer",
        Rule::Type(ty::NUMBER) => " is not a number",
        Rule::Type(ty::BOOLEAN) => " is not a boolean",
        Rule::Type(ty::NULL) => " is not null",
        Rule::Type(_) => " is none of the declared types",
        Rule::Required => " is missing required property ",
        Rule::Enum => " is not one of ",
    }
}

/// True when two escaped JSON string insides decode to the same text.
pub(crate) fn same_text(a: &[u8], b: &[u8]) -> bool {
    // Equal escaped texts decode equally; without a backslash on either side
    // the raw bytes are the texts. Only escapes need decoding.
    if a == b {
        return true;
    }
    if !a.contains(&b'\\') && !b.contains(&b'\\') {
        return false;
    }
    Unescape::new(a).eq(Unescape::new(b))
}

/// Compiles the schema object at token `i`; returns its node and its
/// `x-mcp-header` name (empty when none).
fn compile_node(
    doc: &Doc<'_>,
    i: usize,
    t: &mut Tables,
    is_root: bool,
) -> Result<(u16, Span), SchemaError> {
    let here = span(doc, i);
    match doc.kind(i) {
        Some(Kind::Object) => {}
        Some(Kind::True | Kind::False) if !is_root => {
            return Err(err(
                SchemaErrorKind::Unsupported,
                "boolean schemas are not supported",
                here,
            ));
        }
        _ => {
            return Err(err(
                SchemaErrorKind::Invalid,
                "a schema must be a JSON object",
                here,
            ));
        }
    }
    let mut n_kws = 0;
    let mut n_props = 0;
    for (k, v) in doc.members(i) {
        if kw_kind(doc, k).is_some() {
            n_kws += 1;
        } else if doc.str_eq(k, "properties") {
            if doc.kind(v) != Some(Kind::Object) {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "properties must be an object",
                    span(doc, v),
                ));
            }
            n_props = doc.members(v).count();
        }
    }
    let idx = reserve(
        1,
        &mut t.n_nodes,
        t.nodes.len(),
        "schema tables full: raise MCP_MAX_SCHEMA_NODES",
        here,
    )?;
    let kws_start = reserve(
        n_kws,
        &mut t.n_kws,
        t.kws.len(),
        "schema tables full: raise MCP_MAX_SCHEMA_KEYWORDS",
        here,
    )?;
    let props_start = reserve(
        n_props,
        &mut t.n_props,
        t.props.len(),
        "schema tables full: raise MCP_MAX_SCHEMA_PROPS",
        here,
    )?;
    let mut node = Node {
        kws_start,
        kws_len: n_kws as u16,
        props_start,
        props_len: n_props as u16,
        ..EMPTY_NODE
    };
    let mut header = Span::default();
    let mut kw_at = usize::from(kws_start);
    let mut required = None;
    for (k, v) in doc.members(i) {
        if let Some(kind) = kw_kind(doc, k) {
            check_kw(doc, kind, v)?;
            if let Some(slot) = t.kws.get_mut(kw_at) {
                *slot = Kw {
                    kind,
                    value: span(doc, v),
                };
            }
            kw_at += 1;
        } else if doc.str_eq(k, "type") {
            node.types = type_mask(doc, v)?;
        } else if doc.str_eq(k, "properties") {
            for (j, (pk, pv)) in doc.members(v).enumerate() {
                let name = inner(doc, pk);
                let start = usize::from(props_start);
                let dup = t
                    .props
                    .get(start..start + j)
                    .unwrap_or(&[])
                    .iter()
                    .any(|p| same_text(p.name.of_bytes(doc), name.of_bytes(doc)));
                if dup {
                    return Err(err(
                        SchemaErrorKind::Invalid,
                        "property declared twice",
                        span(doc, pk),
                    ));
                }
                let (child, hdr) = compile_node(doc, pv, t, false)?;
                if let Some(slot) = t.props.get_mut(start + j) {
                    *slot = Prop {
                        name,
                        node: child,
                        required: false,
                        header: hdr,
                    };
                }
            }
        } else if doc.str_eq(k, "required") {
            required = Some(v);
        } else if doc.str_eq(k, "additionalProperties") {
            match doc.kind(v) {
                Some(Kind::False) => node.closed = true,
                Some(Kind::True) => {}
                Some(Kind::Object) => {
                    return Err(err(
                        SchemaErrorKind::Unsupported,
                        "additionalProperties must be true or false (a schema there is not supported)",
                        span(doc, k),
                    ));
                }
                _ => {
                    return Err(err(
                        SchemaErrorKind::Invalid,
                        "additionalProperties must be true or false",
                        span(doc, v),
                    ));
                }
            }
        } else if doc.str_eq(k, "items") {
            if doc.kind(v) == Some(Kind::Array) {
                return Err(err(
                    SchemaErrorKind::Unsupported,
                    "items must be a single schema object (an array of schemas is not supported)",
                    span(doc, k),
                ));
            }
            node.items = compile_node(doc, v, t, false)?.0;
        } else if doc.str_eq(k, "x-mcp-header") {
            let ok = !is_root
                && doc.kind(v) == Some(Kind::String)
                && doc.str_inner(v).is_some_and(|s| !s.is_empty());
            if !ok {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "x-mcp-header must be a non-empty string on a property",
                    span(doc, v),
                ));
            }
            header = inner(doc, v);
        } else if ["description", "title", "examples", "$schema"]
            .iter()
            .any(|a| doc.str_eq(k, a))
        {
            // Annotations: listed to the client as written, never enforced.
        } else {
            return Err(err(
                SchemaErrorKind::Unsupported,
                "unsupported keyword",
                span(doc, k),
            ));
        }
    }
    if let Some(req) = required {
        if doc.kind(req) != Some(Kind::Array) {
            return Err(err(
                SchemaErrorKind::Invalid,
                "required must be an array of names",
                span(doc, req),
            ));
        }
        let start = usize::from(props_start);
        for name in doc.elements(req) {
            let Some(want) = doc.str_inner(name) else {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "required must be an array of names",
                    span(doc, name),
                ));
            };
            let props = t.props.get_mut(start..start + n_props).unwrap_or(&mut []);
            match props
                .iter_mut()
                .find(|p| same_text(p.name.of_bytes(doc), want))
            {
                Some(p) => p.required = true,
                None => {
                    return Err(err(
                        SchemaErrorKind::Invalid,
                        "required names a property that properties does not declare",
                        span(doc, name),
                    ));
                }
            }
        }
    }
    if let Some(slot) = t.nodes.get_mut(usize::from(idx)) {
        *slot = node;
    }
    Ok((idx, header))
}

impl Span {
    fn of_bytes<'t>(&self, doc: &Doc<'t>) -> &'t [u8] {
        doc.src()
            .get(self.start as usize..self.end as usize)
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Result<u16, SchemaError> {
        let mut t = Tables::new();
        compile(text, &mut t)
    }

    fn refused(text: &str) -> (SchemaErrorKind, String) {
        let e = c(text).unwrap_err();
        (
            e.kind,
            String::from_utf8(text.as_bytes()[e.at.start as usize..e.at.end as usize].to_vec())
                .unwrap(),
        )
    }

    #[test]
    fn accepts_the_supported_keywords() {
        let s = r#"{"type":"object","$schema":"x","title":"t","description":"d","examples":[{}],
            "required":["a"],"additionalProperties":false,
            "properties":{
              "a":{"type":["integer","null"],"minimum":0,"maximum":10,"exclusiveMinimum":-1,
                   "exclusiveMaximum":11,"multipleOf":2,"default":4,"x-mcp-header":"A"},
              "b":{"type":"string","enum":["x","y"],"minLength":1,"maxLength":3},
              "c":{"type":"array","items":{"type":"object","properties":{"d":{"const":true}}},
                   "minItems":0,"maxItems":2},
              "e":{}}}"#;
        let mut t = Tables::new();
        let root = compile(s, &mut t).unwrap();
        let r = *t.node(root).unwrap();
        assert!(r.closed);
        assert_eq!(t.props(&r).len(), 4);
        assert!(t.props(&r)[0].required && !t.props(&r)[1].required);
        assert_eq!(t.props(&r)[0].header.of(s), b"A");
        assert_eq!(t.usage(), (7, 5, 12));
    }

    #[test]
    fn refuses_what_it_does_not_implement() {
        assert_eq!(
            refused(r#"{"type":"object","properties":{"x":{"type":"string","pattern":"^a"}}}"#),
            (SchemaErrorKind::Unsupported, "\"pattern\"".into())
        );
        assert_eq!(refused(r#"{"type":"object","oneOf":[]}"#).1, "\"oneOf\"");
        assert_eq!(
            refused(r#"{"type":"object","additionalProperties":{}}"#).0,
            SchemaErrorKind::Unsupported
        );
        assert_eq!(
            refused(r#"{"type":"object","properties":{"l":{"items":[{}]}}}"#).0,
            SchemaErrorKind::Unsupported
        );
        assert_eq!(
            refused(r#"{"type":"object","properties":{"l":{"enum":[[1]]}}}"#).0,
            SchemaErrorKind::Unsupported
        );
        assert_eq!(
            refused(r#"{"type":"object","properties":{"l":true}}"#).0,
            SchemaErrorKind::Unsupported
        );
    }

    #[test]
    fn refuses_malformed_schemas() {
        for s in [
            "{",
            "[]",
            r#"{"type":"string"}"#,
            r#"{}"#,
            r#"{"type":"object","required":["nope"]}"#,
            r#"{"type":"object","properties":{"a":{"minimum":"1"}}}"#,
            r#"{"type":"object","properties":{"a":{"maximum":-1e309}}}"#,
            r#"{"type":"object","properties":{"a":{"minLength":-1}}}"#,
            r#"{"type":"object","properties":{"a":{"multipleOf":0}}}"#,
            r#"{"type":"object","properties":{"a":{"multipleOf":-2}}}"#,
            r#"{"type":"object","properties":{"a":{"multipleOf":1e-400}}}"#,
            r#"{"type":"object","properties":{"a":{"multipleOf":1e400}}}"#,
            // 20 significant digits: more than MCP_MAX_MULTIPLE_OF_DIGITS.
            r#"{"type":"object","properties":{"a":{"multipleOf":1.2345678901234567891}}}"#,
            r#"{"type":"object","properties":{"a":{"type":"int"}}}"#,
            r#"{"type":"object","properties":{"a":{"enum":[]}}}"#,
            r#"{"type":"object","properties":{"a":{},"a":{}}}"#,
            r#"{"type":"object","x-mcp-header":"H"}"#,
        ] {
            assert!(c(s).is_err(), "{s}");
        }
    }

    const REFUSED_DEFAULTS: [&str; 10] = [
        // A default its own schema refuses: 9 above maximum 3, a string for an integer.
        r#"{"type":"object","properties":{"rpm":{"type":"integer","maximum":3,"default":9}}}"#,
        r#"{"type":"object","properties":{"speed":{"type":"integer","default":"fast"}}}"#,
        // Nested, in an items schema.
        r#"{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object",
            "properties":{"rpm":{"type":"integer","minimum":1,"default":0}}}}}}"#,
        // Outside an enum, not the const, an object default missing a required property.
        r#"{"type":"object","properties":{"m":{"enum":["eco","boost"],"default":"turbo"}}}"#,
        r#"{"type":"object","properties":{"m":{"const":"eco","default":"boost"}}}"#,
        r#"{"type":"object","properties":{"o":{"type":"object","properties":{"x":{}},
            "required":["x"],"default":{}}}}"#,
        // An enum member of the wrong type, or outside the bounds.
        r#"{"type":"object","properties":{"mode":{"type":"string","enum":["eco",3]}}}"#,
        r#"{"type":"object","properties":{"n":{"type":"integer","maximum":5,"enum":[1,7]}}}"#,
        // A const below the minimum, a const of the wrong type.
        r#"{"type":"object","properties":{"t":{"type":"number","minimum":5,"const":4}}}"#,
        r#"{"type":"object","properties":{"t":{"type":"boolean","const":"yes"}}}"#,
    ];

    const CONTRADICTIONS: [&str; 8] = [
        r#"{"type":"object","properties":{"a":{"minimum":5,"maximum":3}}}"#,
        r#"{"type":"object","properties":{"a":{"maximum":3,"minimum":5}}}"#,
        r#"{"type":"object","properties":{"s":{"minLength":4,"maxLength":2}}}"#,
        r#"{"type":"object","properties":{"l":{"minItems":3,"maxItems":1}}}"#,
        r#"{"type":"object","properties":{"x":{"exclusiveMinimum":1,"exclusiveMaximum":1}}}"#,
        r#"{"type":"object","properties":{"x":{"exclusiveMinimum":2,"maximum":2}}}"#,
        r#"{"type":"object","properties":{"x":{"minimum":2,"exclusiveMaximum":2}}}"#,
        r#"{"type":"object","properties":{"x":{"minimum":0.30000000000000001,"maximum":0.3}}}"#,
    ];

    #[test]
    fn refuses_defaults_and_members_their_own_schema_refuses() {
        for s in REFUSED_DEFAULTS {
            let e = c(s).expect_err(s);
            assert_eq!(e.kind, SchemaErrorKind::Invalid, "{s}");
        }
    }

    #[test]
    fn refuses_contradictory_bounds() {
        for s in CONTRADICTIONS {
            let e = c(s).expect_err(s);
            assert_eq!(e.kind, SchemaErrorKind::Invalid, "{s}");
        }
    }

    fn message(text: &str) -> String {
        let mut m = MsgBuf::new();
        c(text).expect_err(text).describe(text, &mut m);
        m.as_str().to_string()
    }

    #[test]
    fn messages_name_the_path_of_the_offending_keyword() {
        let want = [
            "properties.rpm.default: 9 is above maximum 3",
            "properties.speed.default: \"fast\" is not an integer",
            "properties.steps.items.properties.rpm.default: 0 is below minimum 1",
            "properties.m.default: \"turbo\" is not one of [\"eco\",\"boost\"]",
            "properties.m.default: \"boost\" must equal \"eco\"",
            "properties.o.default: {} is missing required property x",
            "properties.mode.enum[1]: 3 is not a string",
            "properties.n.enum[1]: 7 is above maximum 5",
            "properties.t.const: 4 is below minimum 5",
            "properties.t.const: \"yes\" is not a boolean",
        ];
        for (s, w) in REFUSED_DEFAULTS.iter().zip(want) {
            assert_eq!(message(s), w, "{s}");
        }
        let want = [
            "properties.a.maximum: 3 is below minimum 5",
            "properties.a.maximum: 3 is below minimum 5",
            "properties.s.maxLength: 2 is below minLength 4",
            "properties.l.maxItems: 1 is below minItems 3",
            "properties.x.exclusiveMaximum: 1 is not above exclusiveMinimum 1",
            "properties.x.maximum: 2 is not above exclusiveMinimum 2",
            "properties.x.exclusiveMaximum: 2 is not above minimum 2",
            "properties.x.maximum: 0.3 is below minimum 0.30000000000000001",
        ];
        for (s, w) in CONTRADICTIONS.iter().zip(want) {
            assert_eq!(message(s), w, "{s}");
        }
        for (s, w) in [
            (
                r#"{"type":"object","properties":{"a":{"type":"object","properties":{"l":{
                   "type":"array","items":{"type":"string","pattern":"^a"}}}}}}"#,
                "properties.a.properties.l.items.pattern: unsupported keyword",
            ),
            (
                r#"{"type":"object","properties":{"o":{"type":"object","additionalProperties":false,
                   "default":{"x":[1,{"y":2}]}}}}"#,
                "properties.o.default.x: [1,{\"y\":2}] is not allowed (additionalProperties is false)",
            ),
            (
                r#"{"type":"object","properties":{"a":{"type":["string","int"]}}}"#,
                "properties.a.type[1]: unknown type name at \"int\"",
            ),
            (
                r#"{ "type" : "object", "required" : [ "a", "nope" ], "properties" : { "a" : { } } }"#,
                "required[1]: required names a property that properties does not declare at \"nope\"",
            ),
            (
                r#"{"type":"object","properties":{"a":{},"a\u0062":{"enum":[]}}}"#,
                "properties.a\\u0062.enum: enum must be a non-empty array at []",
            ),
            (r#"{"type":"object","a":1}"#, "a: unsupported keyword"),
            ("{", "schema is not valid JSON at {"),
            (
                r#"{"type":"string"}"#,
                "the root schema must declare \"type\": \"object\" at {\"type\":\"string\"}",
            ),
        ] {
            assert_eq!(message(s), w, "{s}");
        }
    }

    #[test]
    fn accepts_consistent_defaults_members_and_bounds() {
        for s in [
            r#"{"type":"object","properties":{"rpm":{"type":"integer","maximum":3,"default":3}}}"#,
            r#"{"type":"object","properties":{"a":{"minimum":3,"maximum":3,"const":3}}}"#,
            r#"{"type":"object","properties":{"a":{"exclusiveMinimum":1,"maximum":1.5}}}"#,
            r#"{"type":"object","properties":{"a":{"minimum":1,"exclusiveMaximum":1.5}}}"#,
            r#"{"type":"object","properties":{"a":{"exclusiveMinimum":1,"exclusiveMaximum":1.0001}}}"#,
            r#"{"type":"object","properties":{"s":{"minLength":2,"maxLength":2,"default":"\u00e9\u00e9"}}}"#,
            r#"{"type":"object","properties":{"l":{"minItems":1,"maxItems":1,"default":[0]}}}"#,
            r#"{"type":"object","properties":{"z":{"type":["integer","null"],"default":null}}}"#,
            r#"{"type":"object","properties":{"m":{"type":"string","enum":["eco","boost"],"default":"eco"}}}"#,
            r#"{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},
                "required":["x"],"default":{"x":1}}}}"#,
            // A default on the root is checked like any other.
            r#"{"type":"object","default":{}}"#,
        ] {
            assert!(c(s).is_ok(), "{s}: {:?}", c(s));
        }
    }

    #[test]
    fn a_failed_compile_leaves_the_tables_unchanged() {
        let mut t = Tables::new();
        compile(
            r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#,
            &mut t,
        )
        .unwrap();
        let before = t.usage();
        assert!(
            compile(
                r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"pattern":""}}}"#,
                &mut t
            )
            .is_err()
        );
        assert_eq!(t.usage(), before);
    }
}
