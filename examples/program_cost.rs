//! Validates `set_vent`'s arguments N times, by the text validator or by
//! its argument program: `scripts/bench` runs it under callgrind with N and
//! 0 to count the instructions of one validation.
//!
//! Usage: program_cost text|program N

use emcp::json::{Doc, check};
use emcp::schema::{Schema, compile, emit, run, validate};
use std::hint::black_box;

/// set_vent's input schema, as examples-c/greenhouse/greenhouse.c registers it.
const SET_VENT: &str = concat!(
    r#"{"type":"object","required":["percent"],"additionalProperties":false,"properties":{"percent":"#,
    r#"{"type":"integer","minimum":0,"maximum":100},"idempotency_key":{"type":"string","minLength":1,"#,
    r#""maxLength":64}}}"#
);
const ARGS: &[u8] = br#"{"percent":42}"#;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 3 || a[1] == "--help" || a[1] == "-h" {
        println!("Usage: program_cost text|program N");
        return;
    }
    let n: usize = a[2].parse().expect("N");
    check(ARGS, 8).expect("arguments");
    let doc = Doc::new(ARGS);
    let root = compile(SET_VENT).expect("schema");
    let t = Schema::new(SET_VENT);
    let mut buf = [0u8; 256];
    let len = emit(SET_VENT, &mut buf).expect("program");
    let prog = &buf[..len];
    let mut ok = 0;
    for _ in 0..n {
        let r = match a[1].as_str() {
            "text" => validate(black_box(&t), root, black_box(&doc), Some(0)).is_ok(),
            _ => run(black_box(prog), black_box(&doc), Some(0)).is_ok(),
        };
        ok += usize::from(r);
    }
    assert_eq!(ok, n);
    eprintln!("program {len} B, schema text {} B", SET_VENT.len());
}
