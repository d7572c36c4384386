//! Schema text → constraint tables, once, at registration.
//!
//! Every keyword is either compiled, accepted as an annotation, or refused
//! with the keyword named: nothing is ignored silently.

use super::{EMPTY_NODE, Kw, KwKind, NONE, Node, Prop, Span, Tables, ty};
use crate::json::num::Dec;
use crate::json::{Doc, Kind, Token, TokenizeError, Unescape, tokenize};
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
    /// What is wrong, in words.
    pub reason: &'static str,
    /// The offending part of the schema text (a keyword or a value).
    pub at: Span,
}

fn err(kind: SchemaErrorKind, reason: &'static str, at: Span) -> SchemaError {
    SchemaError { kind, reason, at }
}

fn span(doc: &Doc<'_>, i: usize) -> Span {
    doc.token(i).map_or(Span::default(), |t| Span {
        start: t.start,
        end: t.end,
    })
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
    let mut toks = [Token::EMPTY; MCP_MAX_SCHEMA_TOKENS];
    let whole = Span {
        start: 0,
        end: text.len() as u32,
    };
    let n = tokenize(text.as_bytes(), &mut toks, MCP_MAX_DEPTH).map_err(|e| {
        let reason = match e {
            TokenizeError::TooManyTokens => {
                "schema has more JSON tokens than MCP_MAX_SCHEMA_TOKENS"
            }
            TokenizeError::TooDeep => "schema nests deeper than MCP_MAX_DEPTH",
            _ => "schema is not valid JSON",
        };
        err(SchemaErrorKind::Malformed, reason, whole)
    })?;
    let doc = Doc::new(text.as_bytes(), toks.get(..n).unwrap_or(&[]));
    let mark = t.mark();
    let result = compile_node(&doc, 0, t, true).and_then(|(root, _)| match t.node(root) {
        Some(r) if r.types == ty::OBJECT => Ok(root),
        _ => Err(err(
            SchemaErrorKind::Invalid,
            "the root schema must declare \"type\": \"object\"",
            whole,
        )),
    });
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
