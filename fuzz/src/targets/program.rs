//! Argument programs (emcp::schema::emit, emcp::schema::run) against the
//! text validator and an independent reference.
//!
//! Input, first byte:
//! - even: raw mode, `schema \0 arguments` as the `schema` target takes them
//!   (its corpus seeds this one). A schema the checker accepts must compile
//!   to a program; on every argument text the program's verdict, message and
//!   marked path and keyword equal the text validator's. A smaller storage
//!   either holds the same program or is refused whole.
//! - odd: the greenhouse tools and the fixture's tools, with argument objects
//!   built from `arbitrary` choices (property names plain, escaped, unknown
//!   or repeated; values on the edges of every rule). Besides agreeing with
//!   the text validator, the verdict must equal `reference::valid`'s, an
//!   implementation of the same JSON Schema rules written apart from emcp:
//!   a wrong accept is a safety bug, a wrong refusal a broken tool.
use crate::gen::{jstr, Spell, NASTY_NUMBERS};
use crate::reference;
use arbitrary::{Arbitrary, Unstructured};
use emcp::json::{check, Doc, Kind};
use emcp::limits::{MCP_MAX_DEPTH, MCP_MAX_JSON_TOKENS};
use emcp::schema::{
    compile, emit, matches, run as run_program, validate, MsgBuf, Schema, SchemaErrorKind,
};
use std::fmt::Write;

/// The most bytes a program takes (its offsets are 16-bit: emcp's `PROGRAM_MAX`).
const PROGRAM_MAX: usize = u16::MAX as usize;

/// The greenhouse example's input and output schemas (examples-c/greenhouse/greenhouse.c).
pub const GREENHOUSE: [&str; 5] = [
    r#"{"type":"object","required":["sensor_id"],"additionalProperties":false,"properties":{"sensor_id":{"type":"string","enum":["t1","t2","rh1","soil1"]}}}"#,
    r#"{"type":"object","required":["value","unit","age_s"],"properties":{"value":{"type":"number"},"unit":{"type":"string"},"age_s":{"type":"integer"}}}"#,
    r#"{"type":"object","required":["percent"],"additionalProperties":false,"properties":{"percent":{"type":"integer","minimum":0,"maximum":100},"idempotency_key":{"type":"string","minLength":1,"maxLength":64}}}"#,
    r#"{"type":"object","required":["percent","idempotency_key"],"additionalProperties":false,"properties":{"percent":{"type":"integer","minimum":0,"maximum":100},"idempotency_key":{"type":"string","minLength":1,"maxLength":64}}}"#,
    r#"{"type":"object","required":["confirm"],"properties":{"confirm":{"type":"boolean","title":"Open the vent that far"}}}"#,
];

/// Schemas that reach the rules the greenhouse does not use.
pub const MORE: [&str; 4] = [
    crate::fixture::BOUNDED,
    crate::fixture::TEXT,
    crate::fixture::OUT,
    r#"{"type":"object","properties":{"r":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},"m":{"type":"integer","multipleOf":5},"c":{"const":"auto"},"e":{"enum":[1,2.5,"x",null,true]},"o":{"type":["string","null"]},"a":{"type":"array","minItems":1,"items":{"type":"object","required":["x"],"properties":{"x":{"type":"boolean"},"d":{"type":"number","minimum":-2.5,"maximum":1e2}}}}}}"#,
];

/// Property names the schemas above use, and strings their enums hold.
const NAMES: [&str; 22] = [
    "sensor_id",
    "value",
    "unit",
    "age_s",
    "percent",
    "idempotency_key",
    "confirm",
    "n",
    "mode",
    "pos",
    "list",
    "x",
    "y",
    "s",
    "flag",
    "k",
    "r",
    "m",
    "c",
    "e",
    "o",
    "a",
];
const STRINGS: [&str; 12] = [
    "t1", "t2", "rh1", "soil1", "a", "bb", "ccc", "auto", "x", "", "ü", "😀",
];

#[derive(Arbitrary, Debug)]
enum V {
    Int(i8),
    Wide(i64),
    Nasty(u8),
    Dec(i16, i8),
    Str(u8, Spell),
    Any(String),
    Bool(bool),
    Null,
    Arr(Vec<V>),
    Obj(Vec<(u8, Spell, V)>),
}

fn write(out: &mut String, v: &V, depth: usize) {
    if depth > 6 {
        out.push_str("null");
        return;
    }
    match v {
        V::Int(i) => {
            let _ = write!(out, "{i}");
        }
        V::Wide(i) => {
            let _ = write!(out, "{i}");
        }
        V::Nasty(i) => out.push_str(NASTY_NUMBERS[usize::from(*i) % NASTY_NUMBERS.len()]),
        V::Dec(m, e) => {
            let _ = write!(out, "{m}e{}", e % 24);
        }
        V::Str(i, sp) => jstr(out, STRINGS[usize::from(*i) % STRINGS.len()], *sp),
        V::Any(s) => jstr(out, s, Spell::Plain),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Null => out.push_str("null"),
        V::Arr(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, e, depth + 1);
            }
            out.push(']');
        }
        V::Obj(m) => {
            out.push('{');
            for (i, (k, sp, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let name = NAMES.get(usize::from(*k)).copied().unwrap_or("zz");
                jstr(out, name, *sp);
                out.push(':');
                write(out, e, depth + 1);
            }
            out.push('}');
        }
    }
}

/// The verdict, message and marked path/keyword of both walkers; asserts
/// they agree, and returns the verdict.
fn agree(schema: &str, args: &[u8]) -> Option<bool> {
    match check(args, MCP_MAX_DEPTH) {
        Ok(n) if n <= MCP_MAX_JSON_TOKENS => {}
        _ => return None,
    }
    let root = compile(schema).ok()?;
    let mut buf = vec![0u8; PROGRAM_MAX];
    let len = match emit(schema, &mut buf) {
        Ok(len) => len,
        Err(e) => panic!("a schema the checker accepts has no program ({e:?}): {schema}"),
    };
    let prog = &buf[..len];
    let t = Schema::new(schema);
    let doc = Doc::new(args);
    let arg = (doc.kind(doc.root()) == Some(Kind::Object)).then(|| doc.root());
    let mut m1 = MsgBuf::new();
    let r1 = validate(&t, root, &doc, arg);
    if let Err(v) = &r1 {
        v.describe(&t, &doc, &mut m1);
    }
    let mut m2 = MsgBuf::new();
    let r2 = run_program(prog, &doc, arg);
    if let Err(v) = &r2 {
        v.describe(prog, &doc, &mut m2);
    }
    let args_text = String::from_utf8_lossy(args);
    assert_eq!(
        r1.is_ok(),
        r2.is_ok(),
        "verdicts differ on {args_text} for {schema}"
    );
    assert_eq!(
        m1.as_str(),
        m2.as_str(),
        "messages differ on {args_text} for {schema}"
    );
    assert_eq!(
        m1.path_keyword(),
        m2.path_keyword(),
        "marks differ on {args_text}"
    );
    Some(r1.is_ok())
}

/// One fuzz input.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        raw(rest);
    } else {
        tools(rest);
    }
}

fn raw(data: &[u8]) {
    let (schema, args) = match data.iter().position(|&b| b == 0) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(schema) = std::str::from_utf8(schema) else {
        return;
    };
    if compile(schema).is_err() {
        return;
    }
    agree(schema, args);
    // Smaller storage: the same program, or refused whole.
    let mut full = vec![0u8; PROGRAM_MAX];
    let len = emit(schema, &mut full).expect("compiled above");
    let cap = args.len() % (len + 1);
    let mut small = vec![0xA5u8; cap + 8];
    match emit(schema, &mut small[..cap]) {
        Ok(n) => assert_eq!(
            &small[..n],
            &full[..len],
            "a different program in {cap} bytes"
        ),
        Err(e) => assert_eq!(e.kind, SchemaErrorKind::Full, "{e:?}"),
    }
    assert!(
        small[cap..].iter().all(|&b| b == 0xA5),
        "wrote past {cap} bytes"
    );
    // Registration's check of a built tool: the program matches its text,
    // and a program with one byte changed (picked by the input) does not.
    assert_eq!(
        matches(schema, &full[..len]),
        Ok(true),
        "own program refused"
    );
    let mut changed = full[..len].to_vec();
    let at = args.first().map_or(0, |&b| usize::from(b)) % len;
    changed[at] ^= 1 | args.get(1).copied().unwrap_or(0x20);
    assert_eq!(
        matches(schema, &changed),
        Ok(false),
        "a program with byte {at} changed passes for {schema}"
    );
}

fn tools(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(pick) = u8::arbitrary(&mut u) else {
        return;
    };
    let schemas: Vec<&str> = GREENHOUSE.iter().chain(MORE.iter()).copied().collect();
    let schema = schemas[usize::from(pick) % schemas.len()];
    let Ok(v) = V::arbitrary(&mut u) else {
        return;
    };
    // Mostly objects: the arguments a client sends.
    let v = match v {
        V::Obj(_) => v,
        other if pick & 0x80 == 0 => V::Obj(vec![(pick % 22, Spell::Plain, other)]),
        other => other,
    };
    let mut args = String::new();
    write(&mut args, &v, 0);
    let Some(ok) = agree(schema, args.as_bytes()) else {
        return;
    };
    let s: &serde_json::value::RawValue = serde_json::from_str(schema).expect("schema");
    let a: &serde_json::value::RawValue = match serde_json::from_str(&args) {
        Ok(a) => a,
        Err(_) => return, // a number serde_json's reader refuses
    };
    // The server validates only an arguments object (any other params shape
    // is refused before validation).
    if crate::tree::members(a).is_none() {
        return;
    }
    let want = reference::valid(s, a);
    assert_eq!(
        ok, want,
        "emcp says {ok}, the reference {want}, on {args} for {schema}"
    );
}
