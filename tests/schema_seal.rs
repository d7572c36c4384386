//! Schema seals (`src/schema/seal.rs`): a library that takes tools from
//! texts checks every schema at registration and refuses a nonzero seal that
//! does not match.
//!
//! Seals belong to tools registered from texts: a build without the
//! `text-tools` feature (the minimal profile) takes built tools only, which
//! need no seal (`src/server.rs`'s tests cover them in every build), so these
//! run with it: `cargo test --features std --test schema_seal`.
#![cfg(feature = "text-tools")]

use core::ffi::c_int;

use emcp::call::{Call, RequestInfo, ToolResult};
use emcp::handler::Handler;
use emcp::registry::{RegisterError, Tool, seal_checked};
use emcp::schema::{SchemaErrorKind, seal};
use emcp::server::{Server, ServerInfo};

const VENT: &str = r#"{"type":"object","required":["percent"],"additionalProperties":false,
"properties":{"percent":{"type":"integer","minimum":0,"maximum":100}}}"#;
/// Unsupported (`pattern`) and self-contradicting (`default` above
/// `maximum`): the checker refuses both.
const PATTERN: &str = r#"{"type":"object","properties":{"p":{"type":"string","pattern":"^a"}}}"#;
const BAD_DEFAULT: &str =
    r#"{"type":"object","properties":{"rpm":{"type":"integer","maximum":3,"default":9}}}"#;

fn run(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    r.text("moved").map_or(-1, |_| 0)
}

fn server() -> Server<'static> {
    Server::new(ServerInfo {
        name: "seal",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: false,
    })
}

fn tool(name: &'static str, schema: &'static str) -> Tool<'static> {
    Tool {
        max_result_len: 30, // `{"type":"text","text":"moved"}`, what `run` writes
        ..Tool::new(name, schema, Handler::Rust(run))
    }
}

fn why(s: &Server<'_>) -> String {
    let mut m = emcp::schema::MsgBuf::new();
    if let Some(e) = s.tools.last_error {
        e.describe(&mut m);
    }
    m.as_str().to_owned()
}

fn call(s: &Server<'_>, args: &str) -> String {
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"vent","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let mut out = vec![0u8; 2048];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .unwrap();
    String::from_utf8(out[..o.len].to_vec()).unwrap()
}

#[test]
fn the_sealed_tool_registers_and_is_validated() {
    let mut s = server();
    s.add_tool_sealed(tool("vent", VENT), seal(VENT, None))
        .unwrap();
    assert!(call(&s, r#"{"percent":40}"#).contains("moved"));
    let refused = call(&s, r#"{"percent":140}"#);
    assert!(
        refused.contains("percent: 140 is above maximum 100"),
        "{refused}"
    );
    assert!(refused.contains(r#""isError":true"#), "{refused}");
}

#[test]
fn a_stale_seal_is_refused() {
    let mut s = server();
    let stale = seal(VENT, None) ^ 1;
    assert_eq!(
        s.add_tool_sealed(tool("vent", VENT), stale),
        Err(RegisterError::Schema(SchemaErrorKind::Seal))
    );
    let text = why(&s);
    assert!(text.starts_with("schema_seal 0x"), "{text}");
    // The checker tells the seal the texts have; a build without it never does.
    let told = format!("{:#010x}", seal(VENT, None));
    assert_eq!(
        text.contains(&told),
        cfg!(feature = "schema-check"),
        "{text}"
    );
    // An output schema is sealed too.
    assert_eq!(
        s.add_tool_sealed(
            Tool {
                output_schema: Some(VENT),
                ..tool("vent", VENT)
            },
            seal(VENT, None)
        ),
        Err(RegisterError::Schema(SchemaErrorKind::Seal))
    );
}

#[cfg(feature = "schema-check")]
#[test]
fn the_checker_vouches_and_refuses() {
    let mut s = server();
    // Unsealed: checked here, and taken.
    s.add_tool_sealed(tool("vent", VENT), 0).unwrap();
    assert_eq!(
        s.add_tool_sealed(tool("p", PATTERN), 0),
        Err(RegisterError::Schema(SchemaErrorKind::Unsupported))
    );
    assert_eq!(
        s.add_tool_sealed(tool("d", BAD_DEFAULT), 0),
        Err(RegisterError::Schema(SchemaErrorKind::Invalid))
    );
    assert_eq!(seal_checked(VENT, None).ok(), Some(seal(VENT, None)));
    // An integer whose bounds admit no integer gets no seal either, and is
    // named by its path, as registration words it (issue 42, item 8).
    let gap =
        r#"{"type":"object","properties":{"n":{"type":"integer","minimum":2.5,"maximum":2.9}}}"#;
    let e = seal_checked(gap, None).expect_err("sealed a contradiction");
    let e = e.expect("the checker refuses");
    assert_eq!((e.output, e.error.kind), (false, SchemaErrorKind::Invalid));
    let mut m = emcp::schema::MsgBuf::new();
    e.describe(&mut m);
    assert!(
        m.as_str()
            .contains("properties.n.maximum: 2.9 leaves no integer at or above minimum 2.5"),
        "{}",
        m.as_str()
    );
    assert_eq!(
        seal_checked(VENT, Some(PATTERN)).map_err(|e| e.map(|e| (e.output, e.error.kind))),
        Err(Some((true, SchemaErrorKind::Unsupported)))
    );
}

#[test]
fn a_malformed_schema_is_described_alike_in_both_builds() {
    let mut s = server();
    let text = "{\"type\":";
    assert_eq!(
        s.add_tool_sealed(tool("j", text), seal(text, None)),
        Err(RegisterError::Schema(SchemaErrorKind::Malformed))
    );
    assert_eq!(
        why(&s),
        "inputSchema: schema is not valid JSON at {\"type\":"
    );
}
