//! Replays every input under fuzz/regressions/<target>/ through that
//! target's harness (all its invariants), and states each finding as a
//! plain test of the core.
//!
//! Run: `cargo test --manifest-path fuzz/Cargo.toml` (debug: overflow checks
//! on) and with `--release` (overflow checks off, as firmware ships).

use core::ffi::c_int;
use emcp::call::{Call, RequestInfo, ToolResult};
use emcp::registry::{Handler, Tool};
use emcp::server::{Server, ServerInfo};
use std::cell::Cell;
use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        let data = std::fs::read(&f).expect("read regression input");
        eprintln!("replaying {}", f.display());
        run(&data);
    }
}

#[test]
fn regressions_roundtrip() {
    replay("roundtrip", emcp_fuzz::targets::roundtrip::run);
}
#[test]
fn regressions_handle() {
    replay("handle", emcp_fuzz::targets::handle::run);
}
#[test]
fn regressions_handle_structured() {
    replay(
        "handle_structured",
        emcp_fuzz::targets::handle_structured::run,
    );
}
#[test]
fn regressions_tokenizer_diff() {
    replay("tokenizer_diff", emcp_fuzz::targets::tokenizer_diff::run);
}
#[test]
fn regressions_program() {
    replay("program", emcp_fuzz::targets::program::run);
}
#[test]
fn regressions_schema() {
    replay("schema", emcp_fuzz::targets::schema::run);
}
#[test]
fn regressions_framer() {
    replay("framer", emcp_fuzz::targets::framer::run);
}
#[test]
fn regressions_headers() {
    replay("headers", emcp_fuzz::targets::headers::run);
}

thread_local! {
    static RAN: Cell<usize> = const { Cell::new(0) };
}

fn probe(_: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    RAN.with(|r| r.set(r.get() + 1));
    if res.text("ran").is_ok() {
        0
    } else {
        -105
    }
}

/// A server with no tools yet, as these regression tests build it.
fn bare_server<'a>() -> Server<'a> {
    Server::new(ServerInfo {
        name: "r",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: false,
    })
}

fn call_with(schema: &str, args: &str) -> (String, usize) {
    let mut s = bare_server();
    s.add_tool(Tool {
        max_result_len: 28, // probe's {"type":"text","text":"ran"}
        ..Tool::new("t", schema, Handler::Rust(probe))
    })
    .expect("schema compiles");
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{args}}}}}"#
    );
    let before = RAN.with(|r| r.get());
    let mut out = [0u8; 1024];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .expect("cap");
    (
        String::from_utf8(out[..o.len].to_vec()).expect("utf-8"),
        RAN.with(|r| r.get()) - before,
    )
}

/// Finding 1 (schema target): a number instance checked against a string
/// element of `enum` (or a string `const`) runs the decimal integer
/// conversion (json::doc::exact_int) on the string's bytes: `d - b'0'`
/// underflows. With overflow checks (debug, tests) that is a panic, which
/// is an abort across the C ABI; without them (release) the string gets a
/// garbage value and a number equal to it passes the enum: for `"a"` the
/// value is ((242*10)+49)*10+242 = 24932.
#[test]
fn enum_string_element_against_a_number_instance() {
    // Must be refused, and must not panic.
    let (r, ran) = call_with(
        r#"{"type":"object","properties":{"n":{"enum":["a","bb"]}}}"#,
        r#"{"n":10}"#,
    );
    assert_eq!(ran, 0, "{r}");
    assert!(r.contains(r#""isError":true"#), "{r}");
    // Must not be accepted as equal to "a".
    let (r, ran) = call_with(
        r#"{"type":"object","properties":{"n":{"enum":["a"]}}}"#,
        r#"{"n":24932}"#,
    );
    assert_eq!(ran, 0, "24932 passed enum [\"a\"]: {r}");
    let (r, ran) = call_with(
        r#"{"type":"object","properties":{"n":{"const":"a"}}}"#,
        r#"{"n":24932}"#,
    );
    assert_eq!(ran, 0, "24932 passed const \"a\": {r}");
}

fn breaks_output(_: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    RAN.with(|r| r.set(r.get() + 1));
    let ok = res.structured_begin().is_ok()
        && res
            .json()
            .is_ok_and(|w| w.key("n").and_then(|_| w.int(63)).is_ok())
        && res.structured_end().is_ok();
    if ok {
        0
    } else {
        -105
    }
}

/// Finding 2 (handle_structured target, output-schema-break-*): a tool whose
/// structuredContent breaks its outputSchema, called with a long id at the
/// smallest buffer, was answered -32603 "Internal error" (the code's
/// generic short form: the real message did not fit), which reads like the
/// refusal for space that guarantees the tool did not run, though it ran.
/// Each degraded error now has a short form that names its cause.
#[test]
fn output_schema_break_at_the_smallest_buffer_says_so() {
    let mut s = bare_server();
    s.add_tool(Tool {
        output_schema: Some(r#"{"type":"object","properties":{"n":{"maximum":10}}}"#),
        annotations: emcp::limits::MCP_TOOL_READ_ONLY,
        ..Tool::new(
            "typed",
            r#"{"type":"object"}"#,
            Handler::Rust(breaks_output),
        )
    })
    .expect("schema compiles");
    let id = format!("\"{}\"", "i".repeat(59));
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"typed","arguments":{{}}}}}}"#
    );
    let before = RAN.with(|r| r.get());
    let mut out = [0u8; emcp::limits::MCP_MIN_RESPONSE_CAP];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .expect("cap");
    let r = String::from_utf8(out[..o.len].to_vec()).expect("utf-8");
    assert_eq!(RAN.with(|r| r.get()) - before, 1, "{r}");
    assert_eq!(
        r,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"Result breaks outputSchema"}}}}"#
        )
    );
}
