//! Checking an instance (tool arguments, or structuredContent) against
//! compiled tables. The first violation wins and is described as
//! `<path>: <rule>`, e.g. `percent: 120 is above maximum 100`.

use core::cmp::Ordering;

use super::compile::same_text;
use super::{KwKind, MsgBuf, NONE, Span, Tables, ty};
use crate::call::Seg;
use crate::json::doc::exact_int;
use crate::json::num::Dec;
use crate::json::{ConvError, Doc, Kind, Unescape};
use crate::limits::MCP_MAX_DEPTH;

/// Longest request value quoted in a message.
const QUOTE_MAX: usize = 40;

/// A number's text as an exact decimal, when it is within f64's range
/// (beyond it the value is refused as out of range, as the accessors would).
/// Bounds, `enum`/`const` and `multipleOf` compare it exactly.
fn num(raw: &[u8]) -> Option<Dec<'_>> {
    Dec::parse(raw).filter(Dec::is_finite_f64)
}

#[derive(Clone, Copy)]
enum PSeg<'r> {
    Key(&'r [u8]),
    Index(usize),
}

struct Path<'r> {
    segs: [PSeg<'r>; MCP_MAX_DEPTH + 1],
    len: usize,
}

impl<'r> Path<'r> {
    fn push(&mut self, s: PSeg<'r>) {
        if let Some(slot) = self.segs.get_mut(self.len) {
            *slot = s;
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    fn write(&self, m: &mut MsgBuf) {
        if self.len == 0 {
            m.push("arguments");
        }
        for (i, s) in self.segs.iter().take(self.len).enumerate() {
            match *s {
                PSeg::Key(k) => {
                    if i > 0 {
                        m.push(".");
                    }
                    m.push_bytes(k);
                }
                PSeg::Index(n) => {
                    m.push("[");
                    m.push_uint(n as u64);
                    m.push("]");
                }
            }
        }
    }
}

struct V<'a, 'r> {
    t: &'a Tables,
    text: &'a str,
    doc: &'a Doc<'r>,
    msg: &'a mut MsgBuf,
    path: Path<'r>,
}

/// Checks the arguments object at token `args` (or absent arguments) of
/// `doc` against the schema rooted at `root`. On a violation returns false
/// with `msg` describing it.
pub fn validate(
    t: &Tables,
    text: &str,
    root: u16,
    doc: &Doc<'_>,
    args: Option<usize>,
    msg: &mut MsgBuf,
) -> bool {
    let mut v = V {
        t,
        text,
        doc,
        msg,
        path: Path {
            segs: [PSeg::Index(0); MCP_MAX_DEPTH + 1],
            len: 0,
        },
    };
    match args {
        Some(a) => v.check(root, a),
        None => v.required_absent(root),
    }
}

fn kind_name(doc: &Doc<'_>, i: usize) -> &'static str {
    match doc.kind(i) {
        Some(Kind::Object) => "object",
        Some(Kind::Array) => "array",
        Some(Kind::String) => "string",
        Some(Kind::Number) if exact_int(doc.raw(i)).is_ok() => "integer",
        Some(Kind::Number) => "number",
        Some(Kind::True | Kind::False) => "boolean",
        _ => "null",
    }
}

/// Iterates the scalar members of a validated `[ ... ]` text.
fn scalars(raw: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut pos = 1; // past '['
    core::iter::from_fn(move || {
        let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',');
        while raw.get(pos).is_some_and(ws) {
            pos += 1;
        }
        let start = pos;
        match raw.get(pos)? {
            b']' => return None,
            b'"' => {
                pos += 1;
                while let Some(&b) = raw.get(pos) {
                    pos += if b == b'\\' { 2 } else { 1 };
                    if b == b'"' {
                        break;
                    }
                }
            }
            _ => {
                while raw.get(pos).is_some_and(|b| !ws(b) && *b != b']') {
                    pos += 1;
                }
            }
        }
        raw.get(start..pos)
    })
}

fn str_inner(raw: &[u8]) -> &[u8] {
    raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[])
}

impl<'a, 'r> V<'a, 'r> {
    fn fail(&mut self, parts: &[&[u8]]) -> bool {
        self.path.write(self.msg);
        self.msg.push(": ");
        for p in parts {
            self.msg.push_bytes(p);
        }
        false
    }

    fn fail_value(&mut self, inst: usize, rule: &str, bound: &[u8]) -> bool {
        self.path.write(self.msg);
        self.msg.push(": ");
        self.msg.push_value(self.doc.raw(inst), QUOTE_MAX);
        self.msg.push(rule);
        self.msg.push_bytes(bound);
        false
    }

    fn scalar_eq(&self, inst: usize, elem: &[u8]) -> bool {
        match self.doc.kind(inst) {
            Some(Kind::String) => {
                elem.first() == Some(&b'"')
                    && same_text(self.doc.str_inner(inst).unwrap_or(&[]), str_inner(elem))
            }
            // A number equals only number members (never a string's text).
            Some(Kind::Number)
                if !elem
                    .first()
                    .is_some_and(|&b| b == b'-' || b.is_ascii_digit()) =>
            {
                false
            }
            Some(Kind::Number) => match (num(self.doc.raw(inst)), num(elem)) {
                (Some(a), Some(b)) => a.cmp_value(&b) == Ordering::Equal,
                _ => false,
            },
            Some(Kind::True) => elem == b"true",
            Some(Kind::False) => elem == b"false",
            Some(Kind::Null) => elem == b"null",
            _ => false,
        }
    }

    /// A required property missing from absent arguments.
    fn required_absent(&mut self, node: u16) -> bool {
        let Some(n) = self.t.node(node) else {
            return true;
        };
        if let Some(p) = self.t.props(n).iter().find(|p| p.required) {
            self.msg.push_bytes(p.name.of(self.text));
            self.msg.push(": required");
            return false;
        }
        true
    }

    fn check(&mut self, node: u16, inst: usize) -> bool {
        let Some(n) = self.t.node(node).copied() else {
            return true; // no constraints
        };
        let doc = self.doc;
        let kind = doc.kind(inst);
        let mut bits = match kind {
            Some(Kind::Object) => ty::OBJECT,
            Some(Kind::Array) => ty::ARRAY,
            Some(Kind::String) => ty::STRING,
            Some(Kind::True | Kind::False) => ty::BOOLEAN,
            Some(Kind::Null) => ty::NULL,
            Some(Kind::Number) => ty::NUMBER,
            None => 0,
        };
        let mut number = None;
        if kind == Some(Kind::Number) {
            let raw = doc.raw(inst);
            let int = exact_int(raw);
            // Integral, or too large for i64 (and then beyond any integer bound).
            if matches!(int, Ok(_) | Err(ConvError::Range)) {
                bits |= ty::INTEGER;
            }
            number = num(raw);
            if number.is_none() {
                return self.fail_value(inst, " is out of range", b"");
            }
            let integer_only = n.types & ty::INTEGER != 0 && n.types & ty::NUMBER == 0;
            if integer_only && int == Err(ConvError::Range) {
                return self.fail_value(inst, " is beyond the 64-bit integer range", b"");
            }
        }
        if n.types != 0 && bits & n.types == 0 {
            self.path.write(self.msg);
            self.msg.push(": expected ");
            let names = [
                "object", "array", "string", "integer", "number", "boolean", "null",
            ];
            let mut first = true;
            for (i, name) in names.iter().enumerate() {
                if n.types & (1 << i) != 0 {
                    self.msg.push(if first { "" } else { " or " });
                    self.msg.push(name);
                    first = false;
                }
            }
            self.msg.push(", got ");
            self.msg.push(kind_name(doc, inst));
            return false;
        }
        for kw in self.t.kws(&n) {
            if !self.check_kw(kw.kind, kw.value, inst, number) {
                return false;
            }
        }
        match kind {
            Some(Kind::Object) => self.check_object(&n, inst),
            Some(Kind::Array) if n.items != NONE => {
                for (i, el) in doc.elements(inst).enumerate() {
                    self.path.push(PSeg::Index(i));
                    if !self.check(n.items, el) {
                        return false;
                    }
                    self.path.pop();
                }
                true
            }
            _ => true,
        }
    }

    fn check_kw(&mut self, kind: KwKind, value: Span, inst: usize, v: Option<Dec<'_>>) -> bool {
        let bound = value.of(self.text);
        let doc = self.doc;
        // Registration checked these bounds: integers in 0..=u32::MAX.
        let count = |b: &[u8]| exact_int(b).map_or(0, |n| n.unsigned_abs());
        match kind {
            KwKind::Minimum
            | KwKind::Maximum
            | KwKind::ExclusiveMinimum
            | KwKind::ExclusiveMaximum => {
                let (Some(v), Some(b)) = (v, num(bound)) else {
                    return true;
                };
                let ord = v.cmp_value(&b);
                let (bad, rule) = match kind {
                    KwKind::Minimum => (ord.is_lt(), " is below minimum "),
                    KwKind::Maximum => (ord.is_gt(), " is above maximum "),
                    KwKind::ExclusiveMinimum => (ord.is_le(), " is not above exclusiveMinimum "),
                    _ => (ord.is_ge(), " is not below exclusiveMaximum "),
                };
                !bad || self.fail_value(inst, rule, bound)
            }
            // Registration refused a zero, negative or too precise divisor;
            // anything else unexpected fails closed.
            KwKind::MultipleOf => match (v, num(bound)) {
                (Some(v), Some(m)) if v.is_multiple_of(&m) != Some(true) => {
                    self.fail_value(inst, " is not a multiple of ", bound)
                }
                _ => true,
            },
            KwKind::MinLength | KwKind::MaxLength => {
                let Some(s) = doc.str_inner(inst) else {
                    return true;
                };
                let len = Unescape::new(s).filter(|b| b & 0xC0 != 0x80).count() as u64;
                let limit = count(bound);
                if kind == KwKind::MinLength && len < limit {
                    self.fail_value(inst, " is shorter than minLength ", bound)
                } else if kind == KwKind::MaxLength && len > limit {
                    self.fail_value(inst, " is longer than maxLength ", bound)
                } else {
                    true
                }
            }
            KwKind::MinItems | KwKind::MaxItems => {
                if doc.kind(inst) != Some(Kind::Array) {
                    return true;
                }
                let len = doc.elements(inst).count() as u64;
                let limit = count(bound);
                if kind == KwKind::MinItems && len < limit {
                    self.fail(&[b"has fewer items than minItems ", bound])
                } else if kind == KwKind::MaxItems && len > limit {
                    self.fail(&[b"has more items than maxItems ", bound])
                } else {
                    true
                }
            }
            KwKind::Enum => {
                if scalars(bound).any(|e| self.scalar_eq(inst, e)) {
                    return true;
                }
                self.fail_value(inst, " is not one of ", b"");
                for (i, e) in scalars(bound).enumerate() {
                    if i > 0 {
                        self.msg.push(", ");
                    }
                    self.msg.push_bytes(if e.first() == Some(&b'"') {
                        str_inner(e)
                    } else {
                        e
                    });
                }
                false
            }
            KwKind::Const => {
                self.scalar_eq(inst, bound) || self.fail_value(inst, " must equal ", bound)
            }
            KwKind::Default => true,
        }
    }

    fn check_object(&mut self, n: &super::Node, inst: usize) -> bool {
        let doc = self.doc;
        let props = self.t.props(n);
        for p in props.iter().filter(|p| p.required) {
            let name = p.name.of(self.text);
            let present = doc
                .members(inst)
                .any(|(k, _)| same_text(doc.str_inner(k).unwrap_or(&[]), name));
            if !present {
                self.path.write(self.msg);
                if self.path.len > 0 {
                    self.msg.push(".");
                } else {
                    // At the root the property name alone is the path.
                    *self.msg = MsgBuf::new();
                }
                self.msg.push_bytes(name);
                self.msg.push(": required");
                return false;
            }
        }
        // Every member is checked, duplicates included, so whichever one a
        // callback reads has passed validation.
        for (k, v) in doc.members(inst) {
            let key = doc.str_inner(k).unwrap_or(&[]);
            let decl = props.iter().find(|p| same_text(key, p.name.of(self.text)));
            self.path.push(PSeg::Key(key));
            let ok = match decl {
                Some(p) => self.check(p.node, v),
                None if n.closed => self.fail(&[b"is not allowed (additionalProperties is false)"]),
                None => true,
            };
            if !ok {
                return false;
            }
            self.path.pop();
        }
        true
    }
}

/// The `default` declared for the argument at `path` (parsed segments), if
/// the schema declares one.
pub fn default_for<'p>(
    t: &Tables,
    text: &str,
    root: u16,
    path: impl Iterator<Item = Seg<'p>>,
) -> Option<Span> {
    let mut node = root;
    for seg in path {
        let n = t.node(node)?;
        node = match seg {
            Seg::Key(k) => {
                t.props(n)
                    .iter()
                    .find(|p| Unescape::new(p.name.of(text)).eq(k.bytes()))?
                    .node
            }
            Seg::Index(_) => n.items,
        };
    }
    let n = t.node(node)?;
    t.kws(n)
        .iter()
        .find(|k| k.kind == KwKind::Default)
        .map(|k| k.value)
}

#[cfg(test)]
mod tests {
    use super::super::compile;
    use super::*;
    use crate::json::{Token, tokenize};

    const SCHEMA: &str = r#"{"type":"object","required":["percent"],"additionalProperties":false,
      "properties":{
        "percent":{"type":"integer","minimum":0,"maximum":100},
        "sensor_id":{"type":"string","enum":["t1","t2","rh1","soil1"]},
        "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},
        "step":{"type":"integer","multipleOf":5},
        "name":{"type":"string","minLength":2,"maxLength":3},
        "mode":{"const":"auto"},
        "opt":{"type":["string","null"]},
        "list":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"object","required":["x"],
                "properties":{"x":{"type":"boolean"}}}},
        "big":{"type":"number"},
        "level":{"type":"integer","default":3}}}"#;

    fn check(args: &str) -> Result<(), String> {
        let mut t = Tables::new();
        let root = compile(SCHEMA, &mut t).unwrap();
        let mut toks = [Token::EMPTY; 64];
        let n = tokenize(args.as_bytes(), &mut toks, 16).unwrap();
        let doc = Doc::new(args.as_bytes(), &toks[..n]);
        let mut m = MsgBuf::new();
        if validate(&t, SCHEMA, root, &doc, Some(0), &mut m) {
            Ok(())
        } else {
            Err(m.as_str().to_string())
        }
    }

    #[test]
    fn accepts_valid_arguments() {
        for ok in [
            r#"{"percent":0}"#,
            r#"{"percent":100.0,"sensor_id":"t\u0031"}"#,
            r#"{"percent":1e1,"ratio":0.75,"step":-15,"name":"éé","mode":"auto","opt":null}"#,
            r#"{"percent":5,"list":[{"x":true},{"x":false}],"big":1e300,"level":4}"#,
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn names_the_path_and_the_rule() {
        let cases = [
            (r#"{"percent":120}"#, "percent: 120 is above maximum 100"),
            (r#"{"percent":-1}"#, "percent: -1 is below minimum 0"),
            (
                r#"{"percent":"60"}"#,
                "percent: expected integer, got string",
            ),
            (
                r#"{"percent":60.5}"#,
                "percent: expected integer, got number",
            ),
            (r#"{}"#, "percent: required"),
            (
                r#"{"percent":1,"sensor_id":"t9"}"#,
                r#"sensor_id: "t9" is not one of t1, t2, rh1, soil1"#,
            ),
            (
                r#"{"percent":18446744073709551616}"#,
                "percent: 18446744073709551616 is beyond the 64-bit integer range",
            ),
            (r#"{"percent":1,"big":1e400}"#, "big: 1e400 is out of range"),
            (
                r#"{"percent":1,"ratio":0}"#,
                "ratio: 0 is not above exclusiveMinimum 0",
            ),
            (
                r#"{"percent":1,"ratio":1}"#,
                "ratio: 1 is not below exclusiveMaximum 1",
            ),
            (
                r#"{"percent":1,"ratio":0.3}"#,
                "ratio: 0.3 is not a multiple of 0.25",
            ),
            (
                r#"{"percent":1,"step":7}"#,
                "step: 7 is not a multiple of 5",
            ),
            (
                r#"{"percent":1,"name":"é"}"#,
                r#"name: "é" is shorter than minLength 2"#,
            ),
            (
                r#"{"percent":1,"name":"abcd"}"#,
                r#"name: "abcd" is longer than maxLength 3"#,
            ),
            (
                r#"{"percent":1,"mode":"manual"}"#,
                r#"mode: "manual" must equal "auto""#,
            ),
            (
                r#"{"percent":1,"opt":3}"#,
                "opt: expected string or null, got integer",
            ),
            (
                r#"{"percent":1,"list":[]}"#,
                "list: has fewer items than minItems 1",
            ),
            (
                r#"{"percent":1,"list":[{"x":true},{"x":true},{"x":true}]}"#,
                "list: has more items than maxItems 2",
            ),
            (
                r#"{"percent":1,"list":[{"x":1}]}"#,
                "list[0].x: expected boolean, got integer",
            ),
            (r#"{"percent":1,"list":[{}]}"#, "list[0].x: required"),
            (
                r#"{"percent":1,"extra":1}"#,
                "extra: is not allowed (additionalProperties is false)",
            ),
            (
                r#"{"percent":1,"percent":200}"#,
                "percent: 200 is above maximum 100",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(check(args), Err(want.to_string()), "{args}");
        }
    }

    #[test]
    fn numbers_compare_as_exact_decimals() {
        // Each case went the other way when both sides were rounded to f64.
        const S: &str = r#"{"type":"object","properties":{
          "cents":{"type":"number","multipleOf":0.01},
          "third":{"type":"number","multipleOf":0.1},
          "max":{"type":"number","maximum":0.3},
          "imin":{"type":"integer","exclusiveMinimum":9007199254740992},
          "tiny":{"type":"number","exclusiveMinimum":0},
          "pick":{"enum":[9007199254740993]},
          "fine":{"multipleOf":1234567890123456789e-30}}}"#;
        let run = |args: &str| {
            let mut t = Tables::new();
            let root = compile(S, &mut t).unwrap();
            let mut toks = [Token::EMPTY; 64];
            let n = tokenize(args.as_bytes(), &mut toks, 16).unwrap();
            let doc = Doc::new(args.as_bytes(), &toks[..n]);
            let mut m = MsgBuf::new();
            if validate(&t, S, root, &doc, Some(0), &mut m) {
                Ok(())
            } else {
                Err(m.as_str().to_string())
            }
        };
        // 0.07 / 0.01 and 0.3 / 0.1 are not integers in f64.
        for ok in [
            r#"{"cents":0.07}"#,
            r#"{"cents":1234567.89}"#,
            r#"{"third":0.3}"#,
            r#"{"imin":9007199254740993}"#,
            r#"{"tiny":1e-400}"#,
            r#"{"pick":9007199254740993}"#,
            r#"{"max":0.3}"#,
            r#"{"max":3e-1}"#,
            r#"{"fine":2469135780246913578e-30}"#,
        ] {
            assert_eq!(run(ok), Ok(()), "{ok}");
        }
        for (bad, want) in [
            (
                r#"{"cents":0.071}"#,
                "cents: 0.071 is not a multiple of 0.01",
            ),
            (
                r#"{"max":0.30000000000000001}"#,
                "max: 0.30000000000000001 is above maximum 0.3",
            ),
            (
                r#"{"imin":9007199254740992}"#,
                "imin: 9007199254740992 is not above exclusiveMinimum 9007199254740992",
            ),
            (
                r#"{"tiny":-1e-400}"#,
                "tiny: -1e-400 is not above exclusiveMinimum 0",
            ),
            (
                r#"{"pick":9007199254740992}"#,
                "pick: 9007199254740992 is not one of 9007199254740993",
            ),
        ] {
            assert_eq!(run(bad), Err(want.to_string()), "{bad}");
        }
    }

    #[test]
    fn string_members_never_equal_numbers() {
        // Found by the schema fuzz target: a number was parsed against a
        // string member's text (an overflow in debug, a false match in release).
        let s = r#"{"type":"object","properties":{"e":{"enum":["a","7"]},"c":{"const":"a"}}}"#;
        let mut t = Tables::new();
        let root = compile(s, &mut t).unwrap();
        for (args, ok) in [
            (r#"{"e":24932}"#, false),
            (r#"{"e":7}"#, false),
            (r#"{"e":"7"}"#, true),
            (r#"{"c":24932}"#, false),
            (r#"{"c":"a"}"#, true),
        ] {
            let mut toks = [Token::EMPTY; 16];
            let n = tokenize(args.as_bytes(), &mut toks, 8).unwrap();
            let mut m = MsgBuf::new();
            assert_eq!(
                validate(
                    &t,
                    s,
                    root,
                    &Doc::new(args.as_bytes(), &toks[..n]),
                    Some(0),
                    &mut m
                ),
                ok,
                "{args}: {}",
                m.as_str()
            );
        }
        assert_eq!(exact_int(b"\"a\""), Err(ConvError::Type));
        assert_eq!(exact_int(b"1-2"), Err(ConvError::Type));
    }

    #[test]
    fn absent_arguments_and_defaults() {
        let mut t = Tables::new();
        let root = compile(SCHEMA, &mut t).unwrap();
        let mut m = MsgBuf::new();
        assert!(!validate(
            &t,
            SCHEMA,
            root,
            &Doc::new(b"", &[]),
            None,
            &mut m
        ));
        assert_eq!(m.as_str(), "percent: required");
        let d = default_for(&t, SCHEMA, root, [Seg::Key("level")].into_iter()).unwrap();
        assert_eq!(d.of(SCHEMA), b"3");
        assert!(default_for(&t, SCHEMA, root, [Seg::Key("percent")].into_iter()).is_none());
    }
}
