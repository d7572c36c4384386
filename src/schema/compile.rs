//! Schema text → constraint tables, once, at registration.
//!
//! Every keyword is either compiled, accepted as an annotation, or refused
//! with the keyword named: nothing is ignored silently.

use super::validate::{Rule, check_value, num};
use super::{Kw, KwKind, MsgBuf, Schema, Span, kw_kind, ty, type_bit};
use crate::json::num::{Dec, ZERO};
use crate::json::{Doc, Kind, Unescape};
use crate::limits::MCP_MAX_MULTIPLE_OF_DIGITS;

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
    /// `schema_seal` does not match the schema texts (see [`super::seal`]).
    Seal,
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

/// Checks `text` (an `inputSchema` or `outputSchema`) and returns the
/// offset of its root schema. Nothing is stored: calls read the text itself
/// ([`Schema`]), so a schema that passes here costs no RAM.
pub fn compile(text: &str) -> Result<usize, SchemaError> {
    let whole = Span {
        start: 0,
        end: text.len() as u32,
    };
    super::seal::well_formed(text)?;
    let schema = Schema::new(text);
    let doc = schema.doc();
    let root = doc.root();
    check_node(doc, root, true)?;
    match schema.node(root) {
        Some(r) if r.types == ty::OBJECT => {}
        _ => {
            return Err(err(
                SchemaErrorKind::Invalid,
                "the root schema must declare \"type\": \"object\"",
                whole,
            ));
        }
    }
    check_consistent(&schema, root)?;
    Ok(root)
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
            if num(doc.raw(v)).is_none() {
                return bad("a numeric bound must be a finite number");
            }
        }
        KwKind::MultipleOf => {
            // Positive also as an f64 (1e-400 is not), as before; compared in
            // decimal, so the checker links no conversion to f64.
            if !num(doc.raw(v)).is_some_and(|d| !d.is_negative() && !d.rounds_to_zero_f64()) {
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

/// Refuses schemas that contradict themselves: bounds no value meets
/// (`minimum` above `maximum`, ...), and a `default`, `const` or `enum`
/// member the schema itself refuses (a call without the argument would read
/// a value no client may send). Visits the (sub)schema at `i`, then those
/// under its `properties` and `items` in text order; runs after
/// [`check_node`] accepted the whole text, so the validator's frames do not
/// stack on the checker's.
fn check_consistent(s: &Schema<'_>, i: usize) -> Result<(), SchemaError> {
    let Some(node) = s.node(i) else {
        return Ok(());
    };
    let doc = s.doc();
    // Numbers it admits are integers only: bounds must admit one.
    let integer = node.types & ty::INTEGER != 0 && node.types & ty::NUMBER == 0;
    for hi in s.kws(&node) {
        for lo in s.kws(&node) {
            check_bounds(s.text, &lo, &hi)?;
            if integer {
                check_integer_bounds(s.text, &lo, &hi)?;
            }
        }
    }
    for kw in s.kws(&node) {
        if !matches!(kw.kind, KwKind::Default | KwKind::Const | KwKind::Enum) {
            continue;
        }
        let v = kw.value.start as usize;
        let one = |inst| {
            check_value(s, i, doc, inst).map_err(|f| SchemaError {
                kind: SchemaErrorKind::Invalid,
                reason: rule_text(f.rule),
                at: span(doc, f.inst),
                bound: Some(f.bound),
            })
        };
        if kw.kind == KwKind::Enum {
            doc.elements(v).try_for_each(one)?;
        } else {
            one(v)?;
        }
    }
    for (k, v) in doc.members(i) {
        if doc.str_eq(k, "properties") {
            for (_, p) in doc.members(v) {
                check_consistent(s, p)?;
            }
        } else if doc.str_eq(k, "items") {
            check_consistent(s, v)?;
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

/// A lower bound `lo` and an upper bound `hi` of an integer that admit no
/// integer, though numbers meet both (`minimum 2.5, maximum 2.9`;
/// `exclusiveMinimum 2, exclusiveMaximum 3`), read exactly.
fn check_integer_bounds(text: &str, lo: &Kw, hi: &Kw) -> Result<(), SchemaError> {
    use KwKind::*;
    let (lo_strict, reason) = match lo.kind {
        Minimum => (false, " leaves no integer at or above minimum "),
        ExclusiveMinimum => (true, " leaves no integer above exclusiveMinimum "),
        _ => return Ok(()),
    };
    let hi_strict = match hi.kind {
        Maximum => false,
        ExclusiveMaximum => true,
        _ => return Ok(()),
    };
    let (Some(l), Some(h)) = (Dec::parse(lo.value.of(text)), Dec::parse(hi.value.of(text))) else {
        return Ok(());
    };
    let (least, most) = (Near::least(l, lo_strict), Near::most(h, hi_strict));
    if most.minus(&least) >= 0 {
        return Ok(());
    }
    Err(SchemaError {
        kind: SchemaErrorKind::Invalid,
        reason,
        at: hi.value,
        bound: Some(lo.value),
    })
}

/// An integer near a bound `x`, as `±trunc(|x|) + off` (`off` in -1..=1),
/// so no integer is built from the bound's text.
struct Near<'a> {
    neg: bool,
    x: Dec<'a>,
    off: i64,
}

impl<'a> Near<'a> {
    /// The least integer at or above `x` (above it when `strict`).
    fn least(x: Dec<'a>, strict: bool) -> Self {
        let neg = x.is_negative();
        // ceil(2.5) = trunc + 1; ceil(-2.5) = -trunc.
        let off = match (x.is_integer(), neg) {
            (true, _) => i64::from(strict),
            (false, true) => 0,
            (false, false) => 1,
        };
        Near { neg, x, off }
    }

    /// The greatest integer at or below `x` (below it when `strict`).
    fn most(x: Dec<'a>, strict: bool) -> Self {
        let neg = x.is_negative();
        // floor(2.5) = trunc; floor(-2.5) = -trunc - 1.
        let off = match (x.is_integer(), neg) {
            (true, _) => -i64::from(strict),
            (false, true) => -1,
            (false, false) => 0,
        };
        Near { neg, x, off }
    }

    /// `self - o`, its sign exact (its magnitude clamped beyond
    /// `INT_DIFF_CLAMP - 2`).
    fn minus(&self, o: &Near<'_>) -> i64 {
        let mag = |d: &Dec<'_>| ZERO.int_part_diff(d);
        let d = match (self.neg, o.neg) {
            (false, false) => o.x.int_part_diff(&self.x),
            (true, true) => self.x.int_part_diff(&o.x),
            (false, true) => mag(&self.x) + mag(&o.x),
            (true, false) => -(mag(&self.x) + mag(&o.x)),
        };
        d + self.off - o.off
    }
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
    // (Hosted speed paths: bare-metal targets decode both, flash first.)
    if !cfg!(target_os = "none") {
        if a == b {
            return true;
        }
        if !crate::json::has_byte(a, b'\\') && !crate::json::has_byte(b, b'\\') {
            return false;
        }
    }
    Unescape::new(a).eq(Unescape::new(b))
}

/// Checks the (sub)schema at `i` and everything under it: every keyword
/// is understood, annotation, or refused by name.
fn check_node(doc: &Doc<'_>, i: usize, is_root: bool) -> Result<(), SchemaError> {
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
    // A `properties` that is not an object is reported before anything else.
    let mut props = None;
    for (k, v) in doc.members(i) {
        if kw_kind(doc, k).is_none() && doc.str_eq(k, "properties") {
            if doc.kind(v) != Some(Kind::Object) {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "properties must be an object",
                    span(doc, v),
                ));
            }
            props = Some(v);
        }
    }
    let mut required = None;
    for (k, v) in doc.members(i) {
        if let Some(kind) = kw_kind(doc, k) {
            check_kw(doc, kind, v)?;
        } else if doc.str_eq(k, "type") {
            type_mask(doc, v)?;
        } else if doc.str_eq(k, "properties") {
            for (j, (pk, pv)) in doc.members(v).enumerate() {
                let name = doc.str_inner(pk).unwrap_or(&[]);
                let dup = doc
                    .members(v)
                    .take(j)
                    .any(|(other, _)| same_text(doc.str_inner(other).unwrap_or(&[]), name));
                if dup {
                    return Err(err(
                        SchemaErrorKind::Invalid,
                        "property declared twice",
                        span(doc, pk),
                    ));
                }
                check_node(doc, pv, false)?;
            }
        } else if doc.str_eq(k, "required") {
            required = Some(v);
        } else if doc.str_eq(k, "additionalProperties") {
            match doc.kind(v) {
                Some(Kind::False | Kind::True) => {}
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
            check_node(doc, v, false)?;
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
        for name in doc.elements(req) {
            let Some(want) = doc.str_inner(name) else {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "required must be an array of names",
                    span(doc, name),
                ));
            };
            let declared = props.is_some_and(|p| {
                doc.members(p)
                    .any(|(k, _)| same_text(doc.str_inner(k).unwrap_or(&[]), want))
            });
            if !declared {
                return Err(err(
                    SchemaErrorKind::Invalid,
                    "required names a property that properties does not declare",
                    span(doc, name),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Result<usize, SchemaError> {
        compile(text)
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
        let root = compile(s).unwrap();
        let t = Schema::new(s);
        let r = t.node(root).unwrap();
        assert!(r.closed);
        let props: Vec<_> = t.props(&r).collect();
        assert_eq!(props.len(), 4);
        assert!(t.is_required(&r, b"a") && !t.is_required(&r, b"b"));
        let a = t.node(props[0].node).unwrap();
        assert_eq!(t.doc().str_inner(a.header), Some(&b"A"[..]));
        assert_eq!(a.types, ty::INTEGER | ty::NULL);
        let kinds: Vec<_> = t.kws(&a).map(|k| k.kind).collect();
        assert_eq!(
            kinds,
            [
                KwKind::Minimum,
                KwKind::Maximum,
                KwKind::ExclusiveMinimum,
                KwKind::ExclusiveMaximum,
                KwKind::MultipleOf,
                KwKind::Default
            ]
        );
        let c = t.node(props[2].node).unwrap();
        let d = t.node(c.items).unwrap();
        assert_eq!(t.props(&d).next().map(|p| p.name.of(s)), Some(&b"d"[..]));
        assert!(t.node(props[3].node).is_some_and(|e| e.types == 0));
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

    /// An integer whose bounds admit no integer (issue 42, item 8), with
    /// the bounds read exactly: inclusive and exclusive forms, negatives,
    /// and integers beyond i64 and f64's exact range.
    #[test]
    fn refuses_integer_bounds_that_admit_no_integer() {
        let int = |bounds: &str| {
            format!(r#"{{"type":"object","properties":{{"n":{{"type":"integer",{bounds}}}}}}}"#)
        };
        for (bounds, want) in [
            (
                r#""minimum":2.5,"maximum":2.9"#,
                "properties.n.maximum: 2.9 leaves no integer at or above minimum 2.5",
            ),
            (
                r#""maximum":2.9,"minimum":2.5"#,
                "properties.n.maximum: 2.9 leaves no integer at or above minimum 2.5",
            ),
            (
                r#""minimum":2.5,"maximum":2.5"#,
                "properties.n.maximum: 2.5 leaves no integer at or above minimum 2.5",
            ),
            (
                r#""exclusiveMinimum":2,"exclusiveMaximum":3"#,
                "properties.n.exclusiveMaximum: 3 leaves no integer above exclusiveMinimum 2",
            ),
            (
                r#""exclusiveMinimum":2,"maximum":2.9"#,
                "properties.n.maximum: 2.9 leaves no integer above exclusiveMinimum 2",
            ),
            (
                r#""minimum":2.1,"exclusiveMaximum":3"#,
                "properties.n.exclusiveMaximum: 3 leaves no integer at or above minimum 2.1",
            ),
            (
                r#""minimum":-2.9,"maximum":-2.5"#,
                "properties.n.maximum: -2.5 leaves no integer at or above minimum -2.9",
            ),
            (
                r#""exclusiveMinimum":-1,"exclusiveMaximum":0"#,
                "properties.n.exclusiveMaximum: 0 leaves no integer above exclusiveMinimum -1",
            ),
            (
                r#""exclusiveMinimum":-0.5,"exclusiveMaximum":0"#,
                "properties.n.exclusiveMaximum: 0 leaves no integer above exclusiveMinimum -0.5",
            ),
            (
                r#""minimum":0.25e1,"maximum":29e-1"#,
                "properties.n.maximum: 29e-1 leaves no integer at or above minimum 0.25e1",
            ),
            (
                r#""exclusiveMinimum":99999999999999999999,"exclusiveMaximum":1e20"#,
                "properties.n.exclusiveMaximum: 1e20 leaves no integer above exclusiveMinimum 99999999999999999999",
            ),
            (
                r#""minimum":12345678901234567890.5,"maximum":12345678901234567890.75"#,
                "properties.n.maximum: 12345678901234567890.75 leaves no integer at or above minimum 12345678901234567890.5",
            ),
            (
                r#""minimum":-0.9,"exclusiveMinimum":-1,"exclusiveMaximum":0"#,
                "properties.n.exclusiveMaximum: 0 leaves no integer at or above minimum -0.9",
            ),
        ] {
            let s = int(bounds);
            let e = c(&s).expect_err(&s);
            assert_eq!(e.kind, SchemaErrorKind::Invalid, "{s}");
            assert_eq!(message(&s), want, "{s}");
        }
        // Bounds that admit an integer, if only one, and the same bounds
        // where a non-integer may meet them.
        for bounds in [
            r#""minimum":2.5,"maximum":3"#,
            r#""minimum":2,"maximum":2.9"#,
            r#""minimum":2,"maximum":2"#,
            r#""minimum":2.000,"maximum":2.0"#,
            r#""exclusiveMinimum":2,"exclusiveMaximum":4"#,
            r#""exclusiveMinimum":1.9,"exclusiveMaximum":2.1"#,
            r#""exclusiveMinimum":2.9,"maximum":3"#,
            r#""minimum":-0.5,"maximum":0.5"#,
            r#""minimum":-0,"maximum":0"#,
            r#""exclusiveMinimum":-1,"exclusiveMaximum":1"#,
            r#""minimum":-3.5,"maximum":-2.9"#,
            r#""exclusiveMinimum":99999999999999999999,"exclusiveMaximum":100000000000000000001"#,
            r#""minimum":12345678901234567890.5,"maximum":12345678901234567891"#,
            r#""minimum":1e300,"maximum":1e300"#,
            r#""minimum":2.5"#,
            r#""exclusiveMaximum":-7.5"#,
        ] {
            let s = int(bounds);
            assert!(c(&s).is_ok(), "{s}: {:?}", c(&s));
            for other in [r#""number""#, r#"["number","integer"]"#] {
                let s = s.replace(r#""integer""#, other);
                assert!(c(&s).is_ok(), "{s}: {:?}", c(&s));
            }
        }
        for t in [r#""number""#, r#"["integer","number"]"#] {
            let s = int(r#""minimum":2.5,"maximum":2.9"#).replace(r#""integer""#, t);
            assert!(c(&s).is_ok(), "{s}: {:?}", c(&s));
        }
        // Without a type any value passes, numbers too.
        let s = r#"{"type":"object","properties":{"n":{"minimum":2.5,"maximum":2.9}}}"#;
        assert!(c(s).is_ok());
        // Nested under items, like every other contradiction.
        let s = r#"{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":1}}}}"#;
        assert_eq!(
            message(s),
            "properties.l.items.exclusiveMaximum: 1 leaves no integer above exclusiveMinimum 0"
        );
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
}
