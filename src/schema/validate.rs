//! Checking an instance (tool arguments, or structuredContent) against
//! compiled tables. The first violation wins and is described as
//! `<path>: <rule>`, e.g. `percent: 120 is above maximum 100`.

use core::cmp::Ordering;

use super::Seg;
use super::compile::same_text;
use super::{KwKind, MsgBuf, NONE, Node, Schema, Span, ty};
use crate::json::doc::{exact_int, plain_int};
use crate::json::num::Dec;
use crate::json::{ConvError, Doc, Kind, Unescape};

/// Longest request value quoted in a message.
const QUOTE_MAX: usize = 40;

/// A number's text as an exact decimal, when it is within f64's range
/// (beyond it the value is refused as out of range, as the accessors would);
/// `None` for any other text, so a string or literal is never a number.
/// Bounds, `enum`/`const` and `multipleOf` compare it exactly, and
/// registration checks bounds with it.
pub(crate) fn num(raw: &[u8]) -> Option<Dec<'_>> {
    Dec::parse(raw).filter(Dec::is_finite_f64)
}

/// A rule's words and the JSON Schema keyword it breaks (a value out of the
/// f64 or 64-bit range is a `type` violation: it is not a usable number).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Text {
    pub(crate) text: &'static str,
    pub(crate) keyword: &'static str,
}

pub(crate) const OUT_OF_RANGE: Text = Text {
    text: " is out of range",
    keyword: "type",
};
pub(crate) const BEYOND_I64: Text = Text {
    text: " is beyond the 64-bit integer range",
    keyword: "type",
};
pub(crate) const BELOW_MIN: Text = Text {
    text: " is below minimum ",
    keyword: "minimum",
};
pub(crate) const ABOVE_MAX: Text = Text {
    text: " is above maximum ",
    keyword: "maximum",
};
pub(crate) const NOT_ABOVE_XMIN: Text = Text {
    text: " is not above exclusiveMinimum ",
    keyword: "exclusiveMinimum",
};
pub(crate) const NOT_BELOW_XMAX: Text = Text {
    text: " is not below exclusiveMaximum ",
    keyword: "exclusiveMaximum",
};
pub(crate) const NOT_MULTIPLE: Text = Text {
    text: " is not a multiple of ",
    keyword: "multipleOf",
};
pub(crate) const SHORTER: Text = Text {
    text: " is shorter than minLength ",
    keyword: "minLength",
};
pub(crate) const LONGER: Text = Text {
    text: " is longer than maxLength ",
    keyword: "maxLength",
};
pub(crate) const FEWER: Text = Text {
    text: " has fewer items than minItems ",
    keyword: "minItems",
};
pub(crate) const MORE: Text = Text {
    text: " has more items than maxItems ",
    keyword: "maxItems",
};
pub(crate) const NOT_CONST: Text = Text {
    text: " must equal ",
    keyword: "const",
};
pub(crate) const NOT_ALLOWED: Text = Text {
    text: " is not allowed (additionalProperties is false)",
    keyword: "additionalProperties",
};

/// How a value breaks its schema, as the validator found it. The message is
/// written once, from this, after the walk (so no path is kept while walking):
/// for a call as `<path>: <rule>`, for a schema's own `default`, `const` or
/// `enum` member as a registration error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `<value><text><bound>`, e.g. `120 is above maximum 100`.
    Value(&'static Text),
    /// `<text><bound>` (the text's leading space dropped after the path),
    /// e.g. `has fewer items than minItems 1`.
    Plain(&'static Text),
    /// Not of the allowed [`ty`] bits.
    Type(u8),
    /// The required property named by the bound is missing.
    Required,
    /// Not a member of the `enum` (the bound).
    Enum,
}

/// The first violation: the instance token, the rule, and the schema text the
/// rule quotes (a bound, an enum array, a property name; may be empty).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fail {
    pub(crate) inst: usize,
    pub(crate) rule: Rule,
    pub(crate) bound: Span,
}

struct V<'a, 'r> {
    t: &'a Schema<'a>,
    text: &'a str,
    doc: &'a Doc<'r>,
    fail: Fail,
}

impl<'a, 'r> V<'a, 'r> {
    fn new(t: &'a Schema<'a>, doc: &'a Doc<'r>) -> Self {
        V {
            t,
            text: t.text,
            doc,
            fail: Fail {
                inst: usize::MAX,
                rule: Rule::Required,
                bound: Span::default(),
            },
        }
    }
}

/// The first violation [`validate`] found, to be described once the walk is
/// over ([`Violation::describe`]): no message buffer is on the stack while
/// the arguments are walked, the deepest part of a request. Plain data (no
/// borrow), so the answer's writer is free again while it is kept.
#[derive(Clone, Copy, Debug)]
pub struct Violation {
    fail: Fail,
    args: Option<usize>,
}

impl Violation {
    /// A violation as found by another walker of the same rules (the
    /// program interpreter), for [`Violation::describe`] to word.
    pub(crate) fn new(fail: Fail, args: Option<usize>) -> Self {
        Violation { fail, args }
    }

    /// Writes the message, e.g. `percent: 120 is above maximum 100`, with
    /// the argument's path and the keyword marked ([`MsgBuf::path_keyword`]);
    /// `t` and `doc` are the schema and the document [`validate`] was given.
    pub fn describe(&self, t: &Schema<'_>, doc: &Doc<'_>, msg: &mut MsgBuf) {
        let v = V {
            t,
            text: t.text,
            doc,
            fail: self.fail,
        };
        v.write(self.args, msg);
    }
}

/// Checks the arguments object at token `args` (or absent arguments) of
/// `doc` against the schema rooted at `root`: the first violation, if any.
pub fn validate(
    t: &Schema<'_>,
    root: usize,
    doc: &Doc<'_>,
    args: Option<usize>,
) -> Result<(), Violation> {
    let mut v = V::new(t, doc);
    let ok = match args {
        Some(a) => v.check(root, a),
        None => v.required_absent(root),
    };
    if ok {
        Ok(())
    } else {
        Err(Violation { fail: v.fail, args })
    }
}

/// Checks the value at token `inst` of `doc` (a schema's own `default`,
/// `const` or `enum` member, `doc` being the schema) against node `node`.
pub(crate) fn check_value(
    t: &Schema<'_>,
    node: usize,
    doc: &Doc<'_>,
    inst: usize,
) -> Result<(), Fail> {
    let mut v = V::new(t, doc);
    if v.check(node, inst) {
        Ok(())
    } else {
        Err(v.fail)
    }
}

/// Writes the path from the value at `from` to the one at `to` (which it
/// contains), e.g. `list[0].x`; `arguments` when they are the same.
fn write_path(doc: &Doc<'_>, from: usize, to: usize, m: &mut MsgBuf) {
    if from == to {
        m.push("arguments");
        return;
    }
    let inside = |v: usize| v <= to && to < doc.skip(v);
    let mut cur = from;
    let mut first = true;
    while cur != to {
        let next = match doc.kind(cur) {
            Some(Kind::Object) => doc.members(cur).find(|&(_, v)| inside(v)).map(|(k, v)| {
                if !first {
                    m.push(".");
                }
                m.push_bytes(doc.str_inner(k).unwrap_or(&[]));
                v
            }),
            Some(Kind::Array) => {
                doc.elements(cur)
                    .enumerate()
                    .find(|&(_, e)| inside(e))
                    .map(|(i, e)| {
                        m.push("[");
                        m.push_uint(i as u64);
                        m.push("]");
                        e
                    })
            }
            _ => None,
        };
        let Some(n) = next else { break };
        cur = n;
        first = false;
    }
}

/// Appends the type names of `bits`, joined by " or ".
fn push_types(m: &mut MsgBuf, bits: u8) {
    let mut first = true;
    // The names in a constant table (as a local array they were built on
    // the stack at every call: 64 B of code).
    for (i, name) in super::TYPES.iter().enumerate() {
        if bits & (1 << i) != 0 {
            m.push(if first { "" } else { " or " });
            m.push_bytes(name);
            first = false;
        }
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

/// Iterates the members of a validated `[ ... ]` text (an `enum`, whose
/// members registration checked are scalars), as written: read by the
/// document reader every request already links.
pub(crate) fn scalars(raw: &[u8]) -> impl Iterator<Item = &[u8]> {
    let d = Doc::new(raw);
    d.elements(d.root()).map(move |e| d.raw(e))
}

pub(crate) fn str_inner(raw: &[u8]) -> &[u8] {
    raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[])
}

/// The JSON Schema keyword a violation breaks.
fn keyword(rule: Rule) -> &'static str {
    match rule {
        Rule::Value(t) | Rule::Plain(t) => t.keyword,
        Rule::Type(_) => "type",
        Rule::Required => "required",
        Rule::Enum => "enum",
    }
}

impl<'a, 'r> V<'a, 'r> {
    fn fail(&mut self, inst: usize, rule: Rule, bound: Span) -> bool {
        self.fail = Fail { inst, rule, bound };
        false
    }

    /// The message for the recorded violation; `args` as given to [`validate`].
    // Cold, and out of line: its locals would sit under the whole walk.
    #[inline(never)]
    fn write(&self, args: Option<usize>, m: &mut MsgBuf) {
        let Fail { inst, rule, bound } = self.fail;
        let doc = self.doc;
        let bound = bound.of(self.text);
        if rule == Rule::Required {
            // The object's path and the name; at the root the name alone.
            if let Some(a) = args.filter(|&a| a != inst) {
                write_path(doc, a, inst, m);
                m.push(".");
            }
            m.push_bytes(bound);
            m.mark_path("required");
            m.push(": required");
            return;
        }
        write_path(doc, args.unwrap_or(inst), inst, m);
        m.mark_path(keyword(rule));
        m.push(": ");
        match rule {
            Rule::Value(t) => {
                m.push_value(doc.raw(inst), QUOTE_MAX);
                m.push(t.text);
                m.push_bytes(bound);
            }
            Rule::Plain(t) => {
                m.push(t.text.strip_prefix(" ").unwrap_or(t.text));
                m.push_bytes(bound);
            }
            Rule::Type(bits) => {
                m.push("expected ");
                push_types(m, bits);
                m.push(", got ");
                m.push(kind_name(doc, inst));
            }
            Rule::Enum => {
                m.push_value(doc.raw(inst), QUOTE_MAX);
                m.push(" is not one of ");
                for (i, e) in scalars(bound).enumerate() {
                    if i > 0 {
                        m.push(", ");
                    }
                    m.push_bytes(if e.first() == Some(&b'"') {
                        str_inner(e)
                    } else {
                        e
                    });
                }
            }
            Rule::Required => {}
        }
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
    fn required_absent(&mut self, node: usize) -> bool {
        let Some(n) = self.t.node(node) else {
            return true;
        };
        let text = self.text;
        if let Some(p) = self
            .t
            .props(&n)
            .find(|p| self.t.is_required(&n, p.name.of(text)))
        {
            let name = p.name;
            return self.fail(usize::MAX, Rule::Required, name);
        }
        true
    }

    fn check(&mut self, node: usize, inst: usize) -> bool {
        let Some(n) = self.node_rules(node, inst) else {
            return false;
        };
        let Some(n) = n else {
            return true; // no constraints
        };
        match self.doc.kind(inst) {
            Some(Kind::Object) => self.check_object(&n, inst),
            Some(Kind::Array) if n.items != NONE => {
                let doc = self.doc;
                doc.elements(inst).all(|el| self.check(n.items, el))
            }
            _ => true,
        }
    }

    /// The node at `node` (`Some(None)`: no constraints), once its type and
    /// constraint keywords hold for `inst` itself (its members and elements
    /// are checked by the caller); `None` when one does not.
    ///
    /// One pass over the node's members: each keyword is checked as the pass
    /// meets it, and the first that fails is kept; the type, known only at
    /// the end of the pass, is checked then and wins over it. That is the
    /// order of a type check followed by the keywords in text order.
    // Out of line: its number and keyword state would otherwise sit in the
    // frame of every nesting level of the recursion in `check`.
    #[inline(never)]
    fn node_rules(&mut self, node: usize, inst: usize) -> Option<Option<Node>> {
        let t = self.t;
        if t.doc().kind(node) != Some(Kind::Object) {
            return Some(None);
        }
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
        let mut beyond_i64 = false;
        if kind == Some(Kind::Number) {
            let raw = doc.raw(inst);
            // A plain integer (hosted targets) is an i64 within f64's range:
            // its decimal is read only if a keyword needs it (`check_kw`).
            let plain = plain_int(raw);
            let int = plain.map_or_else(|| exact_int(raw), Ok);
            // Integral, or too large for i64 (and then beyond any integer bound).
            if matches!(int, Ok(_) | Err(ConvError::Range)) {
                bits |= ty::INTEGER;
            }
            beyond_i64 = int == Err(ConvError::Range);
            if plain.is_none() {
                number = num(raw);
                if number.is_none() {
                    self.fail(inst, Rule::Value(&OUT_OF_RANGE), Span::default());
                    return None;
                }
            }
        }
        let mut kw_ok = true;
        let n = t.node_with(node, &mut |k, value| {
            if kw_ok {
                kw_ok = self.check_kw(k, value, inst, number.as_ref());
            }
        })?;
        let integer_only = n.types & ty::INTEGER != 0 && n.types & ty::NUMBER == 0;
        if integer_only && beyond_i64 {
            self.fail(inst, Rule::Value(&BEYOND_I64), Span::default());
            return None;
        }
        if n.types != 0 && bits & n.types == 0 {
            self.fail(inst, Rule::Type(n.types), Span::default());
            return None;
        }
        kw_ok.then_some(Some(n))
    }

    /// Whether `inst` meets keyword `kind` with its value at `value`; `v` is
    /// the instance's decimal, read by the caller unless the instance is a
    /// plain integer (hosted targets: the decimal is then read here, and only
    /// when a keyword needs it).
    fn check_kw(&mut self, kind: KwKind, value: Span, inst: usize, v: Option<&Dec<'_>>) -> bool {
        let bound = value.of(self.text);
        let doc = self.doc;
        // Only the bounds and multipleOf read the decimal (enum and const
        // compare the instance's own text).
        let numeric = kind.is_bound() || kind == KwKind::MultipleOf;
        let plain = match v {
            None if numeric && !cfg!(target_os = "none") => plain_int(doc.raw(inst)),
            _ => None,
        };
        let read;
        let v = match (v, plain) {
            (Some(v), _) => Some(v),
            (None, Some(a)) => {
                // A plain integer bound compares as an integer.
                if let (true, Some(b)) = (kind.is_bound(), plain_int(bound)) {
                    return self.bound_holds(kind, a.cmp(&b), inst, value);
                }
                read = num(doc.raw(inst));
                read.as_ref()
            }
            (None, _) => None,
        };
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
                self.bound_holds(kind, v.cmp_value(&b), inst, value)
            }
            // Registration refused a zero, negative or too precise divisor;
            // anything else unexpected fails closed.
            KwKind::MultipleOf => match (v, num(bound)) {
                (Some(v), Some(m)) if v.is_multiple_of(&m) != Some(true) => {
                    self.fail(inst, Rule::Value(&NOT_MULTIPLE), value)
                }
                _ => true,
            },
            KwKind::MinLength | KwKind::MaxLength | KwKind::MinItems | KwKind::MaxItems => {
                // Code points of a string, elements of an array; other
                // types are not constrained.
                let len = if matches!(kind, KwKind::MinLength | KwKind::MaxLength) {
                    let Some(s) = doc.str_inner(inst) else {
                        return true;
                    };
                    Unescape::new(s).filter(|b| b & 0xC0 != 0x80).count()
                } else {
                    if doc.kind(inst) != Some(Kind::Array) {
                        return true;
                    }
                    doc.elements(inst).count()
                } as u64;
                let limit = count(bound);
                let (bad, rule) = match kind {
                    KwKind::MinLength => (len < limit, Rule::Value(&SHORTER)),
                    KwKind::MaxLength => (len > limit, Rule::Value(&LONGER)),
                    KwKind::MinItems => (len < limit, Rule::Plain(&FEWER)),
                    _ => (len > limit, Rule::Plain(&MORE)),
                };
                !bad || self.fail(inst, rule, value)
            }
            KwKind::Enum => {
                if scalars(bound).any(|e| self.scalar_eq(inst, e)) {
                    return true;
                }
                self.fail(inst, Rule::Enum, value)
            }
            KwKind::Const => {
                self.scalar_eq(inst, bound) || self.fail(inst, Rule::Value(&NOT_CONST), value)
            }
            KwKind::Default => true,
        }
    }

    /// Whether a value ordered `ord` against the bound at `value` meets
    /// bound keyword `kind`.
    fn bound_holds(&mut self, kind: KwKind, ord: Ordering, inst: usize, value: Span) -> bool {
        let (bad, rule) = match kind {
            KwKind::Minimum => (ord.is_lt(), &BELOW_MIN),
            KwKind::Maximum => (ord.is_gt(), &ABOVE_MAX),
            KwKind::ExclusiveMinimum => (ord.is_le(), &NOT_ABOVE_XMIN),
            _ => (ord.is_ge(), &NOT_BELOW_XMAX),
        };
        !bad || self.fail(inst, Rule::Value(rule), value)
    }

    fn check_object(&mut self, n: &Node, inst: usize) -> bool {
        let doc = self.doc;
        // Missing required names, reported in `properties` order (looked
        // for in that order only when one is missing).
        let has = |name: &[u8]| doc.entries(inst).any(|e| same_text(e.name, name));
        let sd = self.t.doc();
        if n.required != super::NONE
            && !sd
                .elements(n.required)
                .all(|r| has(sd.str_inner(r).unwrap_or(&[])))
        {
            for p in self.t.props(n) {
                let name = p.name.of(self.text);
                if !self.t.is_required(n, name) {
                    continue;
                }
                if has(name) {
                    continue;
                }
                let name = p.name;
                return self.fail(inst, Rule::Required, name);
            }
        }
        // Every member is checked, duplicates included, so whichever one a
        // callback reads has passed validation.
        for e in doc.entries(inst) {
            let decl = self
                .t
                .props(n)
                .find(|p| same_text(e.name, p.name.of(self.text)));
            let v = e.val;
            let ok = match decl {
                Some(p) => self.check(p.node, v),
                None if n.closed => self.fail(v, Rule::Plain(&NOT_ALLOWED), Span::default()),
                None => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// The `default` declared for the argument at `path` (parsed segments), if
/// the schema declares one.
pub fn default_for<'p>(
    t: &Schema<'_>,
    root: usize,
    path: impl Iterator<Item = Seg<'p>>,
) -> Option<Span> {
    let mut node = root;
    for seg in path {
        let n = t.node(node)?;
        node = match seg {
            Seg::Key(k) => {
                t.props(&n)
                    .find(|p| Unescape::new(p.name.of(t.text)).eq(k.bytes()))?
                    .node
            }
            Seg::Index(_) => n.items,
        };
    }
    let n = t.node(node)?;
    t.kws(&n)
        .find(|k| k.kind == KwKind::Default)
        .map(|k| k.value)
}

#[cfg(test)]
mod tests {
    use super::super::compile;
    use super::*;

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

    /// [`validate`], and the message of its violation (empty when none).
    fn verdict(t: &Schema<'_>, root: usize, doc: &Doc<'_>, args: Option<usize>) -> (bool, MsgBuf) {
        let mut m = MsgBuf::new();
        let r = validate(t, root, doc, args);
        if let Err(v) = &r {
            v.describe(t, doc, &mut m);
        }
        (r.is_ok(), m)
    }

    /// Validates `args` against SCHEMA: whether they pass, and the message.
    fn run(args: &str) -> (bool, MsgBuf) {
        let root = compile(SCHEMA).unwrap();
        let t = Schema::new(SCHEMA);
        crate::json::check(args.as_bytes(), 16).unwrap();
        let doc = Doc::new(args.as_bytes());
        verdict(&t, root, &doc, Some(0))
    }

    fn check(args: &str) -> Result<(), String> {
        match run(args) {
            (true, _) => Ok(()),
            (false, m) => Err(m.as_str().to_string()),
        }
    }

    /// The path and keyword a violation marks (for a tool error's `_meta`).
    fn detail(args: &str) -> (String, &'static str) {
        let (ok, m) = run(args);
        assert!(!ok, "{args}");
        let (path, kw) = m.path_keyword().unwrap();
        (String::from_utf8(path.to_vec()).unwrap(), kw)
    }

    #[test]
    fn marks_the_path_and_the_keyword() {
        for (args, path, kw) in [
            (r#"{"percent":120}"#, "percent", "maximum"),
            (r#"{"percent":-1}"#, "percent", "minimum"),
            (r#"{"percent":"60"}"#, "percent", "type"),
            (r#"{}"#, "percent", "required"),
            (r#"{"percent":1,"sensor_id":"t9"}"#, "sensor_id", "enum"),
            (r#"{"percent":18446744073709551616}"#, "percent", "type"),
            (r#"{"percent":1,"big":1e400}"#, "big", "type"),
            (r#"{"percent":1,"ratio":0}"#, "ratio", "exclusiveMinimum"),
            (r#"{"percent":1,"ratio":1}"#, "ratio", "exclusiveMaximum"),
            (r#"{"percent":1,"step":7}"#, "step", "multipleOf"),
            (r#"{"percent":1,"name":"é"}"#, "name", "minLength"),
            (r#"{"percent":1,"name":"abcd"}"#, "name", "maxLength"),
            (r#"{"percent":1,"mode":"manual"}"#, "mode", "const"),
            (r#"{"percent":1,"list":[]}"#, "list", "minItems"),
            (
                r#"{"percent":1,"list":[{"x":true},{"x":true},{"x":true}]}"#,
                "list",
                "maxItems",
            ),
            (r#"{"percent":1,"list":[{"x":1}]}"#, "list[0].x", "type"),
            (r#"{"percent":1,"list":[{}]}"#, "list[0].x", "required"),
            (
                r#"{"percent":1,"extra":1}"#,
                "extra",
                "additionalProperties",
            ),
        ] {
            assert_eq!(detail(args), (path.to_string(), kw), "{args}");
        }
        assert_eq!(MsgBuf::new().path_keyword(), None);
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
            let root = compile(S).unwrap();
            let t = Schema::new(S);
            crate::json::check(args.as_bytes(), 16).unwrap();
            let doc = Doc::new(args.as_bytes());
            match verdict(&t, root, &doc, Some(0)) {
                (true, _) => Ok(()),
                (false, m) => Err(m.as_str().to_string()),
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
        verdicts(
            s,
            &[
                (r#"{"e":24932}"#, false),
                (r#"{"e":7}"#, false),
                (r#"{"e":"7"}"#, true),
                (r#"{"c":24932}"#, false),
                (r#"{"c":"a"}"#, true),
            ],
        );
        assert_eq!(exact_int(b"\"a\""), Err(ConvError::Type));
        assert_eq!(exact_int(b"1-2"), Err(ConvError::Type));
    }

    /// Enum members written with whitespace, escapes, a comma or bracket
    /// inside a string, and of every scalar kind are each read whole.
    #[test]
    fn enum_members_are_read_whole() {
        let s = r#"{"type":"object","properties":{"e":{"enum":[ "a,\"]b" ,
            -1.50e1 , true,null,"\u00e9" , "" ]}}}"#;
        let msgs = verdicts(
            s,
            &[
                (r#"{"e":"a,\"]b"}"#, true),
                (r#"{"e":"a,"}"#, false),
                (r#"{"e":-15}"#, true),
                (r#"{"e":-1.5}"#, false),
                (r#"{"e":true}"#, true),
                (r#"{"e":false}"#, false),
                (r#"{"e":null}"#, true),
                (r#"{"e":"é"}"#, true),
                (r#"{"e":""}"#, true),
                (r#"{"e":"b"}"#, false),
            ],
        );
        assert_eq!(
            msgs.last().unwrap(),
            r#"e: "b" is not one of a,\"]b, -1.50e1, true, null, \u00e9, "#
        );
    }

    /// Validates each of `cases` (arguments, whether they pass) against
    /// `schema`, asserting the verdicts; returns the messages in order.
    fn verdicts(schema: &str, cases: &[(&str, bool)]) -> Vec<String> {
        let root = compile(schema).unwrap();
        let t = Schema::new(schema);
        let mut msgs = Vec::new();
        for &(args, ok) in cases {
            crate::json::check(args.as_bytes(), 16).unwrap();
            let (got, m) = verdict(&t, root, &Doc::new(args.as_bytes()), Some(0));
            assert_eq!(got, ok, "{args}: {}", m.as_str());
            msgs.push(m.as_str().to_string());
        }
        msgs
    }

    /// The type is checked before any keyword, wherever `type` stands in
    /// the node, and the keywords in text order: the first to fail is the
    /// one reported (the keywords are checked in the same pass that reads
    /// the node, the type at its end).
    #[test]
    fn type_first_then_keywords_in_text_order() {
        let schema = r#"{"type":"object","properties":{
            "a":{"maxLength":1,"enum":["x","y"],"type":"string"},
            "b":{"maximum":10,"minimum":5,"type":"integer"},
            "c":{"minimum":5,"type":["integer","null"],"maximum":10},
            "d":{"type":"integer","multipleOf":2,"maximum":3},
            "e":{"minItems":2,"items":{"type":"string"},"type":"array"}}}"#;
        let msgs = verdicts(
            schema,
            &[
                (r#"{"a":5}"#, false),
                (r#"{"a":"z"}"#, false),
                (r#"{"a":"zz"}"#, false),
                (r#"{"b":3}"#, false),
                (r#"{"b":11}"#, false),
                (r#"{"b":"3"}"#, false),
                (r#"{"b":1e400}"#, false),
                (r#"{"b":123456789012345678901234567890}"#, false),
                (r#"{"c":3}"#, false),
                (r#"{"c":"3"}"#, false),
                (r#"{"c":null}"#, true),
                (r#"{"d":5}"#, false),
                (r#"{"d":4}"#, false),
                (r#"{"e":[1]}"#, false),
                (r#"{"e":[1,2]}"#, false),
                (r#"{"e":"x"}"#, false),
            ],
        );
        assert_eq!(
            msgs,
            [
                "a: expected string, got integer",
                r#"a: "z" is not one of x, y"#,
                r#"a: "zz" is longer than maxLength 1"#,
                "b: 3 is below minimum 5",
                "b: 11 is above maximum 10",
                "b: expected integer, got string",
                "b: 1e400 is out of range",
                "b: 123456789012345678901234567890 is beyond the 64-bit integer range",
                "c: 3 is below minimum 5",
                "c: expected integer or null, got string",
                "",
                "d: 5 is not a multiple of 2",
                "d: 4 is above maximum 3",
                "e: has fewer items than minItems 2",
                "e[0]: expected string, got integer",
                "e: expected array, got string",
            ]
        );
    }

    /// Plain integers (compared as integers on hosted targets) meet decimal
    /// and exponent bounds and divisors as their decimals would.
    #[test]
    fn plain_integers_against_decimal_bounds() {
        let schema = r#"{"type":"object","properties":{
            "x":{"minimum":0.5,"maximum":1e2,"multipleOf":0.25},
            "y":{"exclusiveMinimum":-3,"exclusiveMaximum":100000000000000000}}}"#;
        let msgs = verdicts(
            schema,
            &[
                (r#"{"x":0}"#, false),
                (r#"{"x":-0}"#, false),
                (r#"{"x":101}"#, false),
                (r#"{"x":3}"#, true),
                (r#"{"x":100}"#, true),
                (r#"{"x":1e1}"#, true),
                (r#"{"y":-3}"#, false),
                (r#"{"y":-2}"#, true),
                (r#"{"y":99999999999999999}"#, true),
                (r#"{"y":100000000000000000}"#, false),
                (r#"{"y":1000000000000000000}"#, false),
            ],
        );
        assert_eq!(
            msgs,
            [
                "x: 0 is below minimum 0.5",
                "x: -0 is below minimum 0.5",
                "x: 101 is above maximum 1e2",
                "",
                "",
                "",
                "y: -3 is not above exclusiveMinimum -3",
                "",
                "",
                "y: 100000000000000000 is not below exclusiveMaximum 100000000000000000",
                "y: 1000000000000000000 is not below exclusiveMaximum 100000000000000000",
            ]
        );
    }

    #[test]
    fn absent_arguments_and_defaults() {
        let root = compile(SCHEMA).unwrap();
        let t = Schema::new(SCHEMA);
        let (ok, m) = verdict(&t, root, &Doc::new(b""), None);
        assert!(!ok);
        assert_eq!(m.as_str(), "percent: required");
        let d = default_for(&t, root, [Seg::Key("level")].into_iter()).unwrap();
        assert_eq!(d.of(SCHEMA), b"3");
        assert!(default_for(&t, root, [Seg::Key("percent")].into_iter()).is_none());
    }
}
