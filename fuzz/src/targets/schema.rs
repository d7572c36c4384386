//! emcp::schema::compile on arbitrary text and validate on arbitrary
//! arguments. Input: schema text, a NUL byte, argument text (NUL never occurs
//! raw in JSON, so it is a safe separator).
//!
//! Invariants: a schema compiles only if serde_json reads it as an object; a
//! refused schema leaves the tables as they were; validation is
//! deterministic and its message is short UTF-8; and the server path agrees
//! with `validate`: the tool's handler runs exactly when `validate` accepts.
use core::ffi::c_int;
use emcp::call::{Call, RequestInfo, ToolResult};
use emcp::json::{check, Doc};
use emcp::limits::{MCP_MAX_DEPTH, MCP_MAX_JSON_TOKENS};
use emcp::registry::{Handler, Tool};
use emcp::schema::{compile, validate, MsgBuf, Schema};
use emcp::server::{Server, ServerInfo};
use std::cell::Cell;

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

/// One fuzz input.
pub fn run(data: &[u8]) {
    let (schema, args) = match data.iter().position(|&b| b == 0) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(schema) = std::str::from_utf8(schema) else {
        return;
    };

    let root = match compile(schema) {
        Ok(r) => r,
        Err(e) => {
            let s = e.at.start as usize;
            let end = e.at.end as usize;
            assert!(
                s <= end && end <= schema.len(),
                "error span {e:?} outside the text"
            );
            return;
        }
    };
    // Numbers beyond f64 (`"const":1e400`) are valid JSON that serde_json's
    // Value refuses ("number out of range"); the span reader takes them.
    match serde_json::from_str::<serde_json::Value>(schema) {
        Ok(v) => assert!(v.is_object(), "compiled a non-object schema: {schema}"),
        Err(e) if e.to_string().starts_with("number out of range") => {
            let top = crate::tree::top(schema.as_bytes())
                .unwrap_or_else(|| panic!("compiled a schema that is not JSON: {schema}"));
            assert!(
                crate::tree::members(top).is_some(),
                "compiled a non-object schema: {schema}"
            );
        }
        Err(e) => panic!("compiled a schema serde_json refuses ({e}): {schema}"),
    }
    let t = Schema::new(schema);
    assert!(t.node(root).is_some(), "root {root} is not a node");

    // Validate the arguments directly.
    match check(args, MCP_MAX_DEPTH) {
        Ok(n) if n <= MCP_MAX_JSON_TOKENS => {}
        _ => return,
    }
    let doc = Doc::new(args);
    let arg = if doc.kind(doc.root()) == Some(emcp::json::Kind::Object) {
        Some(doc.root())
    } else {
        None
    };
    // The verdict, and the violation's message (empty when none).
    let run = || {
        let mut m = MsgBuf::new();
        let r = validate(&t, root, &doc, arg);
        if let Err(v) = &r {
            v.describe(&t, &doc, &mut m);
        }
        (r.is_ok(), m)
    };
    let (ok, m1) = run();
    let (ok2, m2) = run();
    assert_eq!(ok, ok2, "validate not deterministic");
    assert_eq!(m1.as_str(), m2.as_str());
    if !ok {
        assert!(!m1.as_str().is_empty(), "refused without a message");
    }
    assert!(m1.as_str().len() <= emcp::limits::MCP_MAX_ERROR_MESSAGE);

    // The same schema through the server: the handler runs iff validate accepts.
    if arg.is_none() {
        return;
    }
    let mut server = Box::new(Server::new(ServerInfo {
        name: "s",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: false,
    }));
    if server
        .add_tool(Tool {
            max_result_len: 28, // probe's {"type":"text","text":"ran"}
            ..Tool::new("t", schema, Handler::Rust(probe))
        })
        .is_err()
    {
        // Registration also compiles the schema; it may differ only by the
        // table limits, which start empty here.
        return;
    }
    let mut req =
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":"#
            .to_vec();
    req.extend_from_slice(args);
    req.extend_from_slice(b"}}");
    let before = RAN.with(|r| r.get());
    let mut out = vec![0u8; 8192];
    let o = server
        .handle(&RequestInfo::default(), &req, &mut out)
        .expect("cap ok");
    let ran = RAN.with(|r| r.get()) - before;
    // The request nests two levels deeper and has 9 more tokens: skip it when
    // that pushed it past the request limits.
    if o.rpc_error != emcp::limits::MCP_RPC_INVALID_REQUEST {
        assert_eq!(
            ran == 1,
            ok,
            "validate says {ok}, server ran the handler {ran} times: {}",
            String::from_utf8_lossy(&out[..o.len])
        );
        if !ok {
            // SEP-1303: a tool error (isError) whose text is the message.
            assert_eq!(o.rpc_error, 0);
            let r: serde_json::Value = serde_json::from_slice(&out[..o.len]).expect("json");
            assert_eq!(r["result"]["isError"], true, "{r}");
            let msg = r["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(
                msg.ends_with(m1.as_str()),
                "message {msg:?} vs {:?}",
                m1.as_str()
            );
        }
    }
}
