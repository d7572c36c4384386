//! Streamable HTTP's routing headers and the `http` feature: with it, the
//! headers are checked against the body (-32020 on a mismatch); without it
//! (the minimal profile) a request that carries any, or the HTTP flag, is
//! answered -32020 saying the build does not check them, never served with
//! its headers unchecked, while a request without them is served.
//!
//! Runs in both builds: `cargo test --features std --test routing_headers`
//! and `cargo test --no-default-features --features minimal,std --test
//! routing_headers` (both in scripts/test.sh).

use core::ffi::c_int;

use emcp::call::{Call, HeaderParam, HeaderParams, RequestInfo, ToolResult};
use emcp::handler::Handler;
use emcp::protocol::envelope::{MCP_CTX_DUPLICATE_HEADER, MCP_CTX_HTTP};
use emcp::registry::Tool;
use emcp::schema::seal;
use emcp::server::{Server, ServerInfo};

const SCHEMA: &str =
    r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#;
const UNCHECKED: &str =
    "This server does not check HTTP routing headers (built without the http feature)";

fn run(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    r.text("ran").map_or(-1, |_| 0)
}

fn server() -> Server<'static> {
    let mut s = Server::new(ServerInfo {
        name: "headers",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: false,
    });
    // As emcp-gen builds it (listing and program): every build takes that.
    let tool = Tool {
        max_result_len: 56, // measured
        ..Tool::new("regional", SCHEMA, Handler::Rust(run))
    };
    let mut listing = vec![0u8; 1024];
    let n = emcp::registry::listing(&tool, &mut listing).unwrap();
    listing.truncate(n);
    let mut program = vec![0u8; 1024];
    let n = emcp::schema::emit(SCHEMA, &mut program).unwrap();
    program.truncate(n);
    s.add_tool_sealed(
        Tool {
            listing: Some(String::leak(String::from_utf8(listing).unwrap())),
            input_program: Some(Vec::leak(program)),
            ..tool
        },
        seal(SCHEMA, None),
    )
    .unwrap();
    s
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"regional","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn answer(info: &RequestInfo<'_>) -> (i32, String) {
    let s = server();
    let mut out = vec![0u8; 2048];
    let o = s.handle(info, CALL.as_bytes(), &mut out).unwrap();
    (
        o.rpc_error,
        String::from_utf8(out[..o.len].to_vec()).unwrap(),
    )
}

#[test]
fn without_headers_the_call_runs_in_every_build() {
    let (code, body) = answer(&RequestInfo::default());
    assert_eq!(code, 0, "{body}");
    assert!(body.contains("ran"), "{body}");
}

#[test]
fn headers_are_checked_or_the_request_is_refused() {
    let region = [HeaderParam {
        name: b"Region",
        value: b"eu",
    }];
    let wrong = [HeaderParam {
        name: b"Region",
        value: b"us",
    }];
    let http = |params: &'static [HeaderParam<'static>], flags: u32| RequestInfo {
        hdr_protocol_version: Some(b"2026-07-28"),
        hdr_method: Some(b"tools/call"),
        hdr_name: Some(b"regional"),
        flags,
        hdr_params: HeaderParams::slice(params),
        ..RequestInfo::default()
    };
    let region: &'static [HeaderParam<'static>] = Box::leak(Box::new(region));
    let wrong: &'static [HeaderParam<'static>] = Box::leak(Box::new(wrong));
    let cases = [
        (http(region, MCP_CTX_HTTP), true),
        (http(wrong, MCP_CTX_HTTP), false),
        (http(region, MCP_CTX_HTTP | MCP_CTX_DUPLICATE_HEADER), false),
        (
            RequestInfo {
                hdr_method: Some(b"tools/list"),
                ..RequestInfo::default()
            },
            false,
        ),
        (
            RequestInfo {
                flags: MCP_CTX_HTTP,
                ..RequestInfo::default()
            },
            false,
        ),
    ];
    for (i, (info, matches)) in cases.iter().enumerate() {
        let (code, body) = answer(info);
        assert!(body.contains(r#""id":7"#), "case {i}: {body}");
        if cfg!(feature = "http") {
            assert_eq!(code, if *matches { 0 } else { -32020 }, "case {i}: {body}");
            assert!(!body.contains(UNCHECKED), "case {i}: {body}");
        } else {
            assert_eq!(code, -32020, "case {i}: {body}");
            assert!(body.contains(UNCHECKED), "case {i}: {body}");
            assert!(!body.contains("ran"), "case {i}: {body}");
        }
    }
}
