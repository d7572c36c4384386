//! The interpreter of argument programs ([`super::program`]): checks tool
//! arguments (or structuredContent) against a compiled schema.
//!
//! Owns: the verdict and the first violation, with the rules, their order and
//! their messages of the text validator ([`super::validate`]): the type
//! first, then the keywords in text order; required members in `properties`
//! order; every member checked, duplicates included. The message of a
//! violation is written by the text validator's own writer.
//! Must not: allocate, read a schema's text, or panic on any program
//! (a corrupted one fails closed, or constrains nothing where its record
//! cannot be read).
//!
//! Until text tools are compiled at registration too, the text validator
//! walks the same rules over the schema text; the `program` fuzz target and
//! the tests below hold the two to the same verdicts and messages.

use core::cmp::Ordering;

use super::compile::same_text;
use super::program::{self, CLOSED, NO_NODE, PNode};
use super::validate::{
    ABOVE_MAX, BELOW_MIN, BEYOND_I64, FEWER, Fail, LONGER, MORE, NOT_ABOVE_XMIN, NOT_ALLOWED,
    NOT_BELOW_XMAX, NOT_CONST, NOT_MULTIPLE, OUT_OF_RANGE, Rule, SHORTER, Violation, num, scalars,
    str_inner,
};
use super::{KwKind, MsgBuf, Schema, Seg, Span, ty};
use crate::json::doc::{exact_int, plain_int};
use crate::json::num::Dec;
use crate::json::{ConvError, Doc, Kind, Unescape};

/// The first violation [`run`] found; [`PViolation::describe`] writes it.
#[derive(Clone, Copy, Debug)]
pub struct PViolation {
    fail: Fail,
    args: Option<usize>,
}

impl PViolation {
    /// Writes the message exactly as the text validator words it, e.g.
    /// `percent: 120 is above maximum 100`; `prog` and `doc` are those
    /// [`run`] was given.
    pub fn describe(&self, prog: &[u8], doc: &Doc<'_>, msg: &mut MsgBuf) {
        // The quoted schema text (a bound, an enum array, a name) is the
        // only text the writer reads of a schema: hand it over as one.
        let quoted = core::str::from_utf8(program::bytes(prog, self.fail.bound)).unwrap_or("");
        let fail = Fail {
            bound: Span {
                start: 0,
                end: quoted.len() as u32,
            },
            ..self.fail
        };
        Violation::new(fail, self.args).describe(&Schema::new(quoted), doc, msg);
    }
}

struct R<'p, 'a, 'r> {
    p: &'p [u8],
    doc: &'a Doc<'r>,
    fail: Fail,
}

/// Checks the arguments object at token `args` of `doc` (or absent
/// arguments) against program `prog`: the first violation, if any. A
/// program that cannot be read at all refuses everything.
#[inline(never)]
pub fn run(prog: &[u8], doc: &Doc<'_>, args: Option<usize>) -> Result<(), PViolation> {
    let mut r = R {
        p: prog,
        doc,
        fail: Fail {
            inst: usize::MAX,
            rule: Rule::Required,
            bound: Span::default(),
        },
    };
    let ok = match (program::root(prog), args) {
        (None, _) => r.fail(
            args.unwrap_or(usize::MAX),
            Rule::Type(ty::OBJECT),
            Span::default(),
        ),
        (Some(root), Some(a)) => r.check(root, a),
        (Some(root), None) => r.required_absent(root),
    };
    if ok {
        Ok(())
    } else {
        Err(PViolation { fail: r.fail, args })
    }
}

/// The `default` the program declares for the argument at `path`, as
/// written (a span of `prog`).
pub fn default_for<'p>(prog: &[u8], path: impl Iterator<Item = Seg<'p>>) -> Option<Span> {
    let mut at = program::root(prog)?;
    for seg in path {
        let n = PNode::read(prog, at)?;
        at = match seg {
            Seg::Key(k) => {
                n.props(prog)
                    .find(|pr| Unescape::new(program::bytes(prog, pr.name)).eq(k.bytes()))?
                    .node
            }
            Seg::Index(_) => n.items,
        };
    }
    PNode::read(prog, at)?
        .kws(prog)
        .find(|k| k.kind == KwKind::Default)
        .map(|k| k.value)
}

impl R<'_, '_, '_> {
    fn fail(&mut self, inst: usize, rule: Rule, bound: Span) -> bool {
        self.fail = Fail { inst, rule, bound };
        false
    }

    /// The node at `at`; `Err(true)` for [`NO_NODE`] (no constraints),
    /// `Err(false)` for a record that cannot be read (the instance is
    /// refused: a damaged program never lets a value through).
    fn node(&mut self, at: u16, inst: usize) -> Result<PNode, bool> {
        if at == NO_NODE {
            return Err(true);
        }
        PNode::read(self.p, at).ok_or_else(|| self.fail(inst, Rule::Type(0), Span::default()))
    }

    fn required_absent(&mut self, at: u16) -> bool {
        let n = match self.node(at, usize::MAX) {
            Ok(n) => n,
            Err(ok) => return ok,
        };
        match n.props(self.p).find(|pr| pr.required) {
            Some(pr) => self.fail(usize::MAX, Rule::Required, pr.name),
            None => true,
        }
    }

    fn check(&mut self, at: u16, inst: usize) -> bool {
        let n = match self.node(at, inst) {
            Ok(n) => n,
            Err(ok) => return ok,
        };
        if !self.node_rules(&n, inst) {
            return false;
        }
        match self.doc.kind(inst) {
            Some(Kind::Object) => self.check_object(&n, inst),
            Some(Kind::Array) if n.items != NO_NODE => {
                let doc = self.doc;
                doc.elements(inst).all(|el| self.check(n.items, el))
            }
            _ => true,
        }
    }

    /// The type and the keywords of `n` for `inst` itself, in the text
    /// validator's order: the keywords in text order keep the first that
    /// fails, then a wrong type (known before, checked after) wins over it.
    #[inline(never)]
    fn node_rules(&mut self, n: &PNode, inst: usize) -> bool {
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
            let plain = plain_int(raw);
            let int = plain.map_or_else(|| exact_int(raw), Ok);
            if matches!(int, Ok(_) | Err(ConvError::Range)) {
                bits |= ty::INTEGER;
            }
            beyond_i64 = int == Err(ConvError::Range);
            if plain.is_none() {
                number = num(raw);
                if number.is_none() {
                    return self.fail(inst, Rule::Value(&OUT_OF_RANGE), Span::default());
                }
            }
        }
        let p = self.p;
        let mut kw_ok = true;
        for k in n.kws(p) {
            if !self.check_kw(k.kind, k.value, inst, number.as_ref()) {
                kw_ok = false;
                break;
            }
        }
        let integer_only = n.types & ty::INTEGER != 0 && n.types & ty::NUMBER == 0;
        if integer_only && beyond_i64 {
            return self.fail(inst, Rule::Value(&BEYOND_I64), Span::default());
        }
        if n.types != 0 && bits & n.types == 0 {
            return self.fail(inst, Rule::Type(n.types), Span::default());
        }
        kw_ok
    }

    /// Whether `inst` meets keyword `kind` whose value stands at `value`;
    /// `v` is the instance's decimal unless it is a plain integer.
    fn check_kw(&mut self, kind: KwKind, value: Span, inst: usize, v: Option<&Dec<'_>>) -> bool {
        let bound = program::bytes(self.p, value);
        let doc = self.doc;
        let numeric = kind.is_bound() || kind == KwKind::MultipleOf;
        let plain = match v {
            None if numeric && !cfg!(target_os = "none") => plain_int(doc.raw(inst)),
            _ => None,
        };
        let read;
        let v = match (v, plain) {
            (Some(v), _) => Some(v),
            (None, Some(a)) => {
                if let (true, Some(b)) = (kind.is_bound(), plain_int(bound)) {
                    return self.bound_holds(kind, a.cmp(&b), inst, value);
                }
                read = num(doc.raw(inst));
                read.as_ref()
            }
            (None, _) => None,
        };
        match kind {
            KwKind::Minimum
            | KwKind::Maximum
            | KwKind::ExclusiveMinimum
            | KwKind::ExclusiveMaximum => match (v, num(bound)) {
                (Some(v), Some(b)) => self.bound_holds(kind, v.cmp_value(&b), inst, value),
                _ => true,
            },
            KwKind::MultipleOf => match (v, num(bound)) {
                (Some(v), Some(m)) if v.is_multiple_of(&m) != Some(true) => {
                    self.fail(inst, Rule::Value(&NOT_MULTIPLE), value)
                }
                _ => true,
            },
            KwKind::MinLength | KwKind::MaxLength | KwKind::MinItems | KwKind::MaxItems => {
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
                let limit = exact_int(bound).map_or(0, |n| n.unsigned_abs());
                let (bad, rule) = match kind {
                    KwKind::MinLength => (len < limit, Rule::Value(&SHORTER)),
                    KwKind::MaxLength => (len > limit, Rule::Value(&LONGER)),
                    KwKind::MinItems => (len < limit, Rule::Plain(&FEWER)),
                    _ => (len > limit, Rule::Plain(&MORE)),
                };
                !bad || self.fail(inst, rule, value)
            }
            KwKind::Enum => {
                scalars(bound).any(|e| scalar_eq(doc, inst, e))
                    || self.fail(inst, Rule::Enum, value)
            }
            KwKind::Const => {
                scalar_eq(doc, inst, bound) || self.fail(inst, Rule::Value(&NOT_CONST), value)
            }
            KwKind::Default => true,
        }
    }

    fn bound_holds(&mut self, kind: KwKind, ord: Ordering, inst: usize, value: Span) -> bool {
        let (bad, rule) = match kind {
            KwKind::Minimum => (ord.is_lt(), &BELOW_MIN),
            KwKind::Maximum => (ord.is_gt(), &ABOVE_MAX),
            KwKind::ExclusiveMinimum => (ord.is_le(), &NOT_ABOVE_XMIN),
            _ => (ord.is_ge(), &NOT_BELOW_XMAX),
        };
        !bad || self.fail(inst, Rule::Value(rule), value)
    }

    fn check_object(&mut self, n: &PNode, inst: usize) -> bool {
        let (p, doc) = (self.p, self.doc);
        // Missing required names, in `properties` order.
        let has = |name: &[u8]| doc.entries(inst).any(|e| same_text(e.name, name));
        if let Some(pr) = n
            .props(p)
            .find(|pr| pr.required && !has(program::bytes(p, pr.name)))
        {
            return self.fail(inst, Rule::Required, pr.name);
        }
        // Every member, duplicates included.
        for e in doc.entries(inst) {
            let decl = n
                .props(p)
                .find(|pr| same_text(e.name, program::bytes(p, pr.name)));
            let ok = match decl {
                Some(pr) => self.check(pr.node, e.val),
                None if n.flags & CLOSED != 0 => {
                    self.fail(e.val, Rule::Plain(&NOT_ALLOWED), Span::default())
                }
                None => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// Whether the scalar at `inst` equals the `enum`/`const` member `elem` (as
/// written): strings by their decoded text, numbers as exact decimals, a
/// string never equal to a number.
fn scalar_eq(doc: &Doc<'_>, inst: usize, elem: &[u8]) -> bool {
    match doc.kind(inst) {
        Some(Kind::String) => {
            elem.first() == Some(&b'"')
                && same_text(doc.str_inner(inst).unwrap_or(&[]), str_inner(elem))
        }
        Some(Kind::Number)
            if !elem
                .first()
                .is_some_and(|&b| b == b'-' || b.is_ascii_digit()) =>
        {
            false
        }
        Some(Kind::Number) => match (num(doc.raw(inst)), num(elem)) {
            (Some(a), Some(b)) => a.cmp_value(&b) == Ordering::Equal,
            _ => false,
        },
        Some(Kind::True) => elem == b"true",
        Some(Kind::False) => elem == b"false",
        Some(Kind::Null) => elem == b"null",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{compile, emit, validate};
    use super::*;

    const SCHEMA: &str = r#"{"type":"object","required":["percent","a\u0062"],"additionalProperties":false,
      "title":"dropped from the program","description":"so is this",
      "properties":{
        "percent":{"type":"integer","minimum":0,"maximum":100,"description":"vent"},
        "ab":{"type":"boolean"},
        "sensor_id":{"type":"string","enum":["t1","t2","rh1","soil1"]},
        "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},
        "step":{"type":"integer","multipleOf":5,"maximum":1e2},
        "name":{"type":"string","minLength":2,"maxLength":3,"x-mcp-header":"Name"},
        "mode":{"const":"auto"},
        "n":{"enum":[1,2.5,"3",null,true]},
        "opt":{"type":["string","null"]},
        "any":{},
        "list":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"object","required":["x"],
                "properties":{"x":{"type":"boolean"},"y":{"maximum":3,"minimum":-2}}}},
        "big":{"type":"number"},
        "huge":{"type":"integer","maximum":5},
        "level":{"type":"integer","default":3}}}"#;

    const CASES: &[&str] = &[
        r#"{"percent":50,"ab":true}"#,
        r#"{"percent":100,"ab":true}"#,
        r#"{"percent":0,"ab":true}"#,
        r#"{"percent":100.0,"ab":true,"step":100,"ratio":0.25,"huge":5}"#,
        r#"{"percent":50,"a\u0062":true}"#,
        r#"{"percent":50}"#,
        r#"{"ab":true}"#,
        r#"{}"#,
        r#"{"percent":120,"ab":true}"#,
        r#"{"percent":-1,"ab":true}"#,
        r#"{"percent":"60","ab":true}"#,
        r#"{"percent":50.0,"ab":true}"#,
        r#"{"percent":50.5,"ab":true}"#,
        r#"{"percent":1e400,"ab":true}"#,
        r#"{"percent":99999999999999999999,"ab":true}"#,
        r#"{"percent":50,"ab":true,"sensor_id":"t2"}"#,
        r#"{"percent":50,"ab":true,"sensor_id":"t9"}"#,
        r#"{"percent":50,"ab":true,"sensor_id":"\u0074\u0031"}"#,
        r#"{"percent":50,"ab":true,"ratio":0.5}"#,
        r#"{"percent":50,"ab":true,"ratio":0.3}"#,
        r#"{"percent":50,"ab":true,"ratio":1}"#,
        r#"{"percent":50,"ab":true,"ratio":0}"#,
        r#"{"percent":50,"ab":true,"step":10}"#,
        r#"{"percent":50,"ab":true,"step":11}"#,
        r#"{"percent":50,"ab":true,"step":105}"#,
        r#"{"percent":50,"ab":true,"name":"a"}"#,
        r#"{"percent":50,"ab":true,"name":"abcd"}"#,
        r#"{"percent":50,"ab":true,"name":"\u00e9\u00e9"}"#,
        r#"{"percent":50,"ab":true,"mode":"auto"}"#,
        r#"{"percent":50,"ab":true,"mode":"manual"}"#,
        r#"{"percent":50,"ab":true,"n":2.50}"#,
        r#"{"percent":50,"ab":true,"n":3}"#,
        r#"{"percent":50,"ab":true,"n":"3"}"#,
        r#"{"percent":50,"ab":true,"n":null}"#,
        r#"{"percent":50,"ab":true,"n":false}"#,
        r#"{"percent":50,"ab":true,"opt":null}"#,
        r#"{"percent":50,"ab":true,"opt":1}"#,
        r#"{"percent":50,"ab":true,"any":[1,{"z":2}]}"#,
        r#"{"percent":50,"ab":true,"list":[]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":true},{"x":false}]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":true},{"x":false},{"x":true}]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":true},{"y":1}]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":true,"y":4}]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":true,"y":-2.5}]}"#,
        r#"{"percent":50,"ab":true,"list":[{"x":1}]}"#,
        r#"{"percent":50,"ab":true,"list":{"x":1}}"#,
        r#"{"percent":50,"ab":true,"big":1e308}"#,
        r#"{"percent":50,"ab":true,"big":-1e309}"#,
        r#"{"percent":50,"ab":true,"huge":12345678901234567890123}"#,
        r#"{"percent":50,"ab":true,"huge":6}"#,
        r#"{"percent":50,"ab":true,"level":"x"}"#,
        r#"{"percent":50,"ab":true,"extra":1}"#,
        r#"{"percent":50,"ab":true,"percent":500}"#,
        r#"{"percent":500,"ab":true,"percent":5}"#,
    ];

    /// Both walkers on one schema and arguments: verdict, message, and the
    /// path and keyword the message marks.
    fn both(schema: &str, args: &str) -> ((bool, String, String), (bool, String, String)) {
        let root = compile(schema).unwrap();
        let t = Schema::new(schema);
        let mut prog = [0u8; 2048];
        let len = emit(schema, &mut prog).unwrap();
        let prog = &prog[..len];
        crate::json::check(args.as_bytes(), 16).unwrap();
        let doc = Doc::new(args.as_bytes());
        let a = (doc.kind(0) == Some(Kind::Object)).then_some(0);
        let seen = |m: MsgBuf, ok: bool| {
            let mark = m
                .path_keyword()
                .map(|(p, k)| format!("{}|{k}", String::from_utf8_lossy(p)))
                .unwrap_or_default();
            (ok, m.as_str().to_string(), mark)
        };
        let mut m1 = MsgBuf::new();
        let r1 = validate(&t, root, &doc, a);
        if let Err(v) = &r1 {
            v.describe(&t, &doc, &mut m1);
        }
        let mut m2 = MsgBuf::new();
        let r2 = run(prog, &doc, a);
        if let Err(v) = &r2 {
            v.describe(prog, &doc, &mut m2);
        }
        (seen(m1, r1.is_ok()), seen(m2, r2.is_ok()))
    }

    #[test]
    fn same_verdicts_and_messages_as_the_text_validator() {
        let mut refused = 0;
        for args in CASES.iter().chain(["[]", "null"].iter()) {
            let (text, prog) = both(SCHEMA, args);
            assert_eq!(text, prog, "{args}");
            refused += usize::from(!text.0);
        }
        // The cases reach both verdicts, and most rules.
        assert!(refused > 25 && refused < CASES.len() - 10, "{refused}");
        let (text, _) = both(SCHEMA, r#"{"percent":120,"ab":true}"#);
        assert_eq!(text.1, "percent: 120 is above maximum 100");
    }

    /// `emit::matches` knows a program by its text without storage: its
    /// own program matches, no truncation, extension or changed byte does,
    /// nor another schema's program.
    #[test]
    fn a_program_is_matched_to_its_text() {
        use super::super::emit::matches;
        let mut buf = [0u8; 2048];
        let len = emit(SCHEMA, &mut buf).unwrap();
        let prog = &buf[..len];
        assert_eq!(matches(SCHEMA, prog), Ok(true));
        for n in 0..len {
            assert_eq!(matches(SCHEMA, &prog[..n]), Ok(false), "cut at {n}");
        }
        let mut longer = prog.to_vec();
        longer.push(0);
        assert_eq!(matches(SCHEMA, &longer), Ok(false));
        let mut changed = prog.to_vec();
        for i in 0..len {
            changed[i] ^= 0x20;
            assert_eq!(matches(SCHEMA, &changed), Ok(false), "byte {i}");
            changed[i] ^= 0x20;
        }
        let other = SCHEMA.replace("\"maximum\":100", "\"maximum\":99");
        assert_eq!(matches(&other, prog), Ok(false));
        assert!(matches("{\"type\":\"object\",\"pattern\":1}", prog).is_err());
    }

    #[test]
    fn annotations_are_not_in_the_program() {
        let mut prog = [0u8; 2048];
        let len = emit(SCHEMA, &mut prog).unwrap();
        let p = &prog[..len];
        assert!(len < SCHEMA.len() / 2, "{len} of {}", SCHEMA.len());
        let has = |s: &str| p.windows(s.len()).any(|w| w == s.as_bytes());
        assert!(!has("dropped") && !has("vent\""));
        assert!(has("soil1") && has("Name"));
    }

    #[test]
    fn too_small_storage_is_refused_whole() {
        let mut prog = [0u8; 2048];
        let len = emit(SCHEMA, &mut prog).unwrap();
        for cap in [0, 1, 2, len / 2, len - 1] {
            let e = emit(SCHEMA, &mut prog[..cap]).unwrap_err();
            assert_eq!(e.kind, super::super::SchemaErrorKind::Full, "{cap}");
        }
        assert_eq!(emit(SCHEMA, &mut prog[..len]), Ok(len));
        // A schema the checker refuses gets the checker's error.
        let e = emit(r#"{"type":"object","pattern":"x"}"#, &mut prog).unwrap_err();
        assert_eq!(e.kind, super::super::SchemaErrorKind::Unsupported);
    }

    #[test]
    fn damaged_programs_never_accept_what_the_schema_refuses() {
        let mut buf = [0u8; 2048];
        let len = emit(SCHEMA, &mut buf).unwrap();
        let good = &buf[..len];
        let bad = r#"{"percent":120,"ab":true}"#;
        crate::json::check(bad.as_bytes(), 16).unwrap();
        let doc = Doc::new(bad.as_bytes());
        assert!(run(good, &doc, Some(0)).is_err());
        // Every truncation refuses or reads no further than it has.
        for cut in 0..len {
            let _ = run(&good[..cut], &doc, Some(0));
        }
        assert!(run(&good[..0], &doc, Some(0)).is_err());
        assert!(
            run(&[9, 0, 0, 0], &doc, Some(0)).is_err(),
            "unknown version"
        );
        // Every single-byte change: no panic, whatever the verdict.
        let mut p = good.to_vec();
        for i in 0..len {
            for x in [0u8, 1, 0x7f, 0xff] {
                let old = p[i];
                p[i] = x;
                let _ = run(&p, &doc, Some(0));
                let _ = run(&p, &doc, None);
                p[i] = old;
            }
        }
    }

    #[test]
    fn defaults_are_found_as_the_text_reader_finds_them() {
        let mut buf = [0u8; 2048];
        let len = emit(SCHEMA, &mut buf).unwrap();
        let p = &buf[..len];
        let t = Schema::new(SCHEMA);
        let root = compile(SCHEMA).unwrap();
        for path in [
            &[Seg::Key("level")][..],
            &[Seg::Key("percent")],
            &[Seg::Key("nope")],
        ] {
            let a = super::super::default_for(&t, root, path.iter().copied()).map(|s| s.of(SCHEMA));
            let b = default_for(p, path.iter().copied()).map(|s| program::bytes(p, s));
            assert_eq!(a, b, "{path:?}");
        }
        assert_eq!(
            default_for(p, [Seg::Key("level")].into_iter()).map(|s| program::bytes(p, s)),
            Some(&b"3"[..])
        );
    }
}
