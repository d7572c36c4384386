//! Resources, prompts, completion, live lists and listen streams, through
//! `Server::handle` as a transport drives them.

use core::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::call::{Annotations, Call, Contents, RequestInfo, ToolResult};
use crate::catalog::{Body, Prompt, Resource};
use crate::limits::*;
use crate::protocol::listen::Listener;
use crate::registry::{Handler, Tool};
use crate::server::{Exchange, Server, ServerInfo};

const ENV: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

static READS: AtomicUsize = AtomicUsize::new(0);

fn zone(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    READS.fetch_add(1, Ordering::SeqCst);
    let m = call.uri.unwrap();
    let mut buf = [0u8; 32];
    let Ok(n) = m.var("zone", &mut buf) else {
        return -MCP_ENOENT;
    };
    let z = std::str::from_utf8(&buf[..n]).unwrap().to_string();
    if z == "missing" {
        return -MCP_ENOENT;
    }
    let uri = std::str::from_utf8(m.uri).unwrap().to_string();
    let text = format!("zone {z}");
    r.resource(&uri, Some("text/plain"), Contents::Text(&text), None)
        .map_or(-1, |_| 0)
}

fn dynamic(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    // Text blocks are not resource contents: refused in a read.
    assert!(r.text("no").is_err());
    r.resource("dyn://x", None, Contents::Blob(&[0, 1, 2]), None)
        .map_or(-1, |_| 0)
}

fn greet(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    let who = call
        .with_value("who", |d, i| {
            let mut b = [0u8; 32];
            let n = d.unescape_into(i, &mut b)?;
            Ok(String::from_utf8_lossy(&b[..n]).to_string())
        })
        .unwrap_or_else(|_| "nobody".into());
    assert!(
        r.structured_begin().is_err(),
        "no structuredContent in a prompt"
    );
    assert!(r.error("x").is_err());
    r.text(&format!("Hello {who}")).unwrap();
    r.set_role(true).unwrap();
    r.media(false, &[1, 2, 3], "image/png", None).unwrap();
    r.resource(
        "greenhouse://sensors",
        Some("text/plain"),
        Contents::Text("map"),
        Some(&Annotations {
            audience: MCP_AUDIENCE_USER,
            ..Annotations::default()
        }),
    )
    .unwrap();
    0
}

fn complete(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    let prefix = call
        .with_value("argument.value", |d, i| {
            Ok(String::from_utf8_lossy(d.str_inner(i).unwrap_or(&[])).to_string())
        })
        .unwrap();
    if prefix == "many" {
        for i in 0..150 {
            r.completion_value(&format!("v{i}")).unwrap();
        }
        return 0;
    }
    for v in ["north", "nursery", "south"] {
        if v.starts_with(&prefix) {
            r.completion_value(v).unwrap();
        }
    }
    assert!(r.text("x").is_err());
    0
}

fn nop(_: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    r.text("ok").map_or(-1, |_| 0)
}

fn server(page_size: u32) -> Server<'static> {
    let mut s = Server::new(ServerInfo {
        name: "t",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 7,
        cache_public: false,
    });
    s.tools.page_size = page_size;
    s.add_tool_as_built(Tool {
        max_result_len: 27, // measured
        ..Tool::new("t1", "{\"type\":\"object\"}", Handler::Rust(nop))
    })
    .unwrap();
    let res = |uri, name, body| Resource {
        uri,
        name,
        title: None,
        description: Some("d"),
        mime_type: Some("text/plain"),
        body,
    };
    s.add_resource(res("greenhouse://sensors", "sensors", Body::Text("a,b")))
        .unwrap();
    s.add_resource(res(
        "greenhouse://zone/{zone}",
        "zone",
        Body::Handler(Handler::Rust(zone)),
    ))
    .unwrap();
    s.add_resource(res("bin://logo", "logo", Body::Blob(&[0xff, 0x00, 0x10])))
        .unwrap();
    s.add_resource(res("dyn://x", "dyn", Body::Handler(Handler::Rust(dynamic))))
        .unwrap();
    s.add_prompt(Prompt {
        description: Some("Greets"),
        arguments: Some(r#"[{"name":"who","description":"Name","required":true},{"name":"tone"}]"#),
        ..Prompt::new("greet", Handler::Rust(greet))
    })
    .unwrap();
    s.add_prompt(Prompt::new("plain", Handler::Rust(nop)))
        .unwrap();
    s.catalog.completion = Some(Handler::Rust(complete));
    s
}

fn call(s: &Server<'_>, method: &str, params: &str) -> Value {
    let comma = if params.is_empty() { "" } else { "," };
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{{{ENV}{comma}{params}}}}}"#
    );
    let mut out = vec![0u8; 4096];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .unwrap();
    serde_json::from_slice(&out[..o.len]).unwrap()
}

fn legacy(s: &Server<'_>, method: &str, params: &str) -> Value {
    let req = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{{{params}}}}}"#);
    let mut out = vec![0u8; 4096];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .unwrap();
    serde_json::from_slice(&out[..o.len]).unwrap()
}

#[test]
fn resources_and_templates_are_listed_apart() {
    let s = server(0);
    let r = &call(&s, "resources/list", "")["result"];
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["greenhouse://sensors", "bin://logo", "dyn://x"]);
    assert_eq!(r["resources"][0]["size"], 3);
    assert_eq!(r["resources"][0]["mimeType"], "text/plain");
    assert_eq!(
        (r["ttlMs"].clone(), r["cacheScope"].clone()),
        (json!(7), json!("private"))
    );
    assert_eq!(r["resultType"], "complete");
    let t = &call(&s, "resources/templates/list", "")["result"];
    assert_eq!(
        t["resourceTemplates"],
        json!([{"uriTemplate":"greenhouse://zone/{zone}","name":"zone","description":"d","mimeType":"text/plain"}])
    );
    assert!(t.get("nextCursor").is_none());
}

#[test]
fn resource_pages_follow_cursors() {
    let s = server(1);
    let mut cursor = String::new();
    let mut seen = vec![];
    loop {
        let r = call(&s, "resources/list", &cursor)["result"].clone();
        for e in r["resources"].as_array().unwrap() {
            seen.push(e["uri"].as_str().unwrap().to_string());
        }
        match r.get("nextCursor") {
            Some(c) => cursor = format!(r#""cursor":{c}"#),
            None => break,
        }
    }
    assert_eq!(seen, ["greenhouse://sensors", "bin://logo", "dyn://x"]);
    let bad = call(&s, "resources/list", r#""cursor":"99""#);
    assert_eq!(bad["error"]["code"], -32602);
}

#[test]
fn reads_text_blob_and_templates() {
    let s = server(0);
    let r = call(&s, "resources/read", r#""uri":"greenhouse://sensors""#);
    assert_eq!(
        r["result"]["contents"],
        json!([{"uri":"greenhouse://sensors","mimeType":"text/plain","text":"a,b"}])
    );
    assert_eq!(r["result"]["cacheScope"], "private");
    let b = call(&s, "resources/read", r#""uri":"bin://logo""#);
    assert_eq!(b["result"]["contents"][0]["blob"], "/wAQ");
    // Escapes in the request are decoded before matching.
    let z = call(
        &s,
        "resources/read",
        r#""uri":"greenhouse:\/\/zone\/n%6Frth""#,
    );
    assert_eq!(
        z["result"]["contents"],
        json!([{"uri":"greenhouse://zone/n%6Frth","mimeType":"text/plain","text":"zone north"}])
    );
    let d = call(&s, "resources/read", r#""uri":"dyn://x""#);
    assert_eq!(d["result"]["contents"][0]["blob"], "AAEC");
}

/// 2025-11-25 answers an unknown resource with its own code, -32002.
#[test]
#[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
fn unknown_resources_in_the_legacy_era_are_32002() {
    let s = server(0);
    let r = legacy(&s, "resources/read", r#""uri":"nope://x""#);
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(r["error"]["message"], "Resource not found");
    assert_eq!(r["error"]["data"]["uri"], "nope://x");
}

#[test]
fn unknown_resources_are_invalid_params_with_the_uri() {
    let s = server(0);
    for uri in [
        "nope://x",
        "greenhouse://zone/",
        "greenhouse://zone/a/b",
        "greenhouse://zone/missing",
    ] {
        let r = call(&s, "resources/read", &format!(r#""uri":"{uri}""#));
        assert_eq!(r["error"]["code"], -32602, "{uri}: {r}");
        assert_eq!(r["error"]["message"], "Resource not found");
        assert_eq!(r["error"]["data"]["uri"], uri);
    }
    let long = "x".repeat(MCP_MAX_URI_LEN + 1);
    let r = call(&s, "resources/read", &format!(r#""uri":"{long}""#));
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"].get("data").is_none(), "a long URI is not echoed");
    let r = call(&s, "resources/read", r#""uri":5"#);
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn prompts_list_and_get() {
    let s = server(0);
    let l = &call(&s, "prompts/list", "")["result"];
    assert_eq!(l["prompts"][0]["name"], "greet");
    assert_eq!(l["prompts"][0]["arguments"][0]["required"], true);
    assert_eq!(l["prompts"][1], json!({"name":"plain"}));
    assert_eq!(l["ttlMs"], 7);
    let g = &call(
        &s,
        "prompts/get",
        r#""name":"greet","arguments":{"who":"Ada"}"#,
    )["result"];
    assert_eq!(g["description"], "Greets");
    assert_eq!(
        g["messages"],
        json!([
            {"role":"user","content":{"type":"text","text":"Hello Ada"}},
            {"role":"assistant","content":{"type":"image","data":"AQID","mimeType":"image/png"}},
            {"role":"assistant","content":{"type":"resource","resource":{"uri":"greenhouse://sensors","mimeType":"text/plain","text":"map"},"annotations":{"audience":["user"]}}}
        ])
    );
    assert_eq!(g["resultType"], "complete");
    assert!(g.get("ttlMs").is_none(), "prompts/get is not cacheable");
    for (params, msg) in [
        (r#""name":"greet""#, "Missing required argument: who"),
        (
            r#""name":"greet","arguments":{"tone":"x"}"#,
            "Missing required argument: who",
        ),
        (
            r#""name":"greet","arguments":{"who":1}"#,
            "params.arguments must be an object of strings",
        ),
        (r#""name":"nope""#, "Unknown prompt: nope"),
        (r#""name":7"#, "params.name must be a string"),
    ] {
        let e = call(&s, "prompts/get", params);
        assert_eq!(e["error"]["code"], -32602, "{params}");
        assert_eq!(e["error"]["message"], msg, "{params}");
    }
}

#[test]
fn completion_is_bounded() {
    let s = server(0);
    let c = call(
        &s,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"n"}"#,
    );
    assert_eq!(
        c["result"]["completion"],
        json!({"values":["north","nursery"],"hasMore":false})
    );
    let many = call(
        &s,
        "completion/complete",
        r#""ref":{"type":"ref/resource","uri":"greenhouse://zone/{zone}"},"argument":{"name":"zone","value":"many"}"#,
    );
    let comp = &many["result"]["completion"];
    assert_eq!(
        comp["values"].as_array().unwrap().len(),
        MCP_MAX_COMPLETIONS
    );
    assert_eq!(
        (comp["total"].clone(), comp["hasMore"].clone()),
        (json!(150), json!(true))
    );
    for bad in [
        r#""ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}"#,
        r#""ref":{"type":"ref/tool","name":"t1"},"argument":{"name":"a","value":""}"#,
        r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a"}"#,
        r#""argument":{"name":"a","value":""}"#,
    ] {
        assert_eq!(
            call(&s, "completion/complete", bad)["error"]["code"],
            -32602,
            "{bad}"
        );
    }
    let mut s = server(0);
    s.catalog.completion = None;
    let none = call(
        &s,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":""}"#,
    );
    assert_eq!(none["error"]["code"], -32601);
}

#[test]
fn capabilities_follow_what_is_registered() {
    let bare = Server::new(ServerInfo {
        name: "b",
        version: "1",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: true,
    });
    let caps = |s: &Server<'_>, listen: bool| {
        let req =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{ENV}}}}}"#);
        let mut l = Listener::new();
        let info = RequestInfo {
            emit: Some(sink),
            ..RequestInfo::default()
        };
        let ex = Exchange {
            listener: listen.then_some(&mut l),
            ..Exchange::default()
        };
        let mut out = vec![0u8; 2048];
        let o = s.handle_with(&info, ex, req.as_bytes(), &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out[..o.len]).unwrap();
        v["result"]["capabilities"].clone()
    };
    assert_eq!(caps(&bare, false), json!({"tools":{"listChanged":false}}));
    assert_eq!(
        caps(&server(0), true),
        json!({"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}})
    );
    if cfg!(feature = "legacy") {
        let init = legacy(
            &server(0),
            "initialize",
            r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        );
        assert_eq!(
            init["result"]["capabilities"]["resources"],
            json!({"subscribe":false,"listChanged":false})
        );
        assert_eq!(
            init["result"]["capabilities"]["tools"],
            json!({"listChanged":false})
        );
        // A transport that delivers list changes to this legacy client says so.
        let info = RequestInfo {
            flags: crate::limits::MCP_CTX_LEGACY_LIST_CHANGED,
            ..RequestInfo::default()
        };
        let req = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let mut out = vec![0u8; 2048];
        let o = server(0)
            .handle_with(&info, Exchange::default(), req.as_bytes(), &mut out)
            .unwrap();
        let v: Value = serde_json::from_slice(&out[..o.len]).unwrap();
        assert_eq!(
            v["result"]["capabilities"]["tools"],
            json!({"listChanged":true})
        );
        assert_eq!(
            v["result"]["capabilities"]["resources"],
            json!({"subscribe":false,"listChanged":true})
        );
    }
}

#[test]
#[cfg_attr(not(feature = "legacy"), ignore = "needs the legacy feature")]
fn legacy_only_methods() {
    let s = server(0);
    for m in [
        "resources/subscribe",
        "resources/unsubscribe",
        "logging/setLevel",
        "ping",
    ] {
        assert_eq!(
            legacy(&s, m, r#""uri":"greenhouse://sensors""#)["result"],
            json!({}),
            "{m}"
        );
        assert_eq!(call(&s, m, "")["error"]["code"], -32601, "{m}");
    }
    // The same methods answer in the legacy era, without the 2026 members.
    let r = legacy(&s, "resources/read", r#""uri":"greenhouse://sensors""#);
    assert!(r["result"].get("resultType").is_none() && r["result"].get("ttlMs").is_none());
    assert_eq!(r["result"]["contents"][0]["text"], "a,b");
    let p = legacy(&s, "prompts/get", r#""name":"plain""#);
    assert_eq!(p["result"]["messages"][0]["content"]["text"], "ok");
    assert_eq!(
        legacy(&s, "subscriptions/listen", r#""notifications":{}"#)["error"]["code"],
        -32601
    );
}

#[test]
fn disabled_entries_do_not_exist() {
    let s = server(0);
    assert_eq!(s.set_enabled(MCP_LIST_TOOLS, "t1", false), Some(true));
    assert_eq!(s.set_enabled(MCP_LIST_TOOLS, "t1", false), Some(false));
    assert_eq!(s.set_enabled(MCP_LIST_TOOLS, "zz", false), None);
    assert_eq!(call(&s, "tools/list", "")["result"]["tools"], json!([]));
    let c = call(&s, "tools/call", r#""name":"t1""#);
    assert_eq!(c["error"]["message"], "Unknown tool: t1");
    s.set_enabled(MCP_LIST_PROMPTS, "plain", false);
    assert_eq!(
        call(&s, "prompts/list", "")["result"]["prompts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        call(&s, "prompts/get", r#""name":"plain""#)["error"]["code"],
        -32602
    );
    s.set_enabled(MCP_LIST_RESOURCES, "greenhouse://zone/{zone}", false);
    let r = call(&s, "resources/read", r#""uri":"greenhouse://zone/north""#);
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(
        call(&s, "resources/templates/list", "")["result"]["resourceTemplates"],
        json!([])
    );
    s.set_enabled(MCP_LIST_TOOLS, "t1", true);
    assert_eq!(
        call(&s, "tools/call", r#""name":"t1""#)["result"]["content"][0]["text"],
        "ok"
    );
}

/// An emit hook that accepts everything (delivery is tested in C, tests/c).
extern "C" fn sink(_: *mut c_void, _: *const u8, _: usize) -> c_int {
    0
}

fn open(
    s: &Server<'_>,
    l: &mut Listener,
    id: &str,
    filter: &str,
) -> (Value, crate::server::Outcome) {
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{{ENV},"notifications":{filter}}}}}"#
    );
    let info = RequestInfo {
        emit: Some(sink),
        ..RequestInfo::default()
    };
    let mut out = vec![0u8; 2048];
    let ex = Exchange {
        listener: Some(l),
        ..Exchange::default()
    };
    let o = s.handle_with(&info, ex, req.as_bytes(), &mut out).unwrap();
    (serde_json::from_slice(&out[..o.len]).unwrap(), o)
}

#[test]
fn listen_acknowledges_what_it_honours() {
    let s = server(0);
    let mut l = Listener::new();
    let (ack, o) = open(
        &s,
        &mut l,
        r#""sub-1""#,
        r#"{"toolsListChanged":true,"promptsListChanged":false,"resourcesListChanged":true,"resourceSubscriptions":["greenhouse://sensors","nope://x","greenhouse://zone/west"],"other":true}"#,
    );
    assert!(o.listen && o.rpc_error == 0);
    assert_eq!(
        ack,
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},
            "notifications":{"toolsListChanged":true,"resourcesListChanged":true,
                "resourceSubscriptions":["greenhouse://sensors","greenhouse://zone/west"]}}})
    );
    let mut buf = [0u8; 512];
    let n = l.list_changed(MCP_LIST_TOOLS, &mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf[..n]).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}})
    );
    assert!(
        l.list_changed(MCP_LIST_PROMPTS, &mut buf).is_none(),
        "not asked for"
    );
    let n = l.updated("greenhouse://zone/west", &mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf[..n]).unwrap();
    assert_eq!(v["params"]["uri"], "greenhouse://zone/west");
    assert!(l.updated("greenhouse://zone/east", &mut buf).is_none());
    let n = l.close(&mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf[..n]).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":"sub-1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}})
    );
    // Without storage or an emit hook, the transport cannot stream.
    let req = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{{{ENV},"notifications":{{}}}}}}"#
    );
    let mut out = vec![0u8; 512];
    let o = s
        .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
        .unwrap();
    assert_eq!((o.rpc_error, o.listen), (-32601, false));
    let (bad, o) = open(&s, &mut l, "3", "[]");
    assert_eq!(
        (bad["error"]["code"].clone(), o.listen),
        (json!(-32602), false)
    );
    let mut l = Listener::new();
    let (ack, _) = open(
        &s,
        &mut l,
        "4",
        r#"{"resourceSubscriptions":["a://1","a://2","a://3","a://4","greenhouse://sensors"]}"#,
    );
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(["greenhouse://sensors"])
    );
}

fn asks(call: &Call<'_>, r: &mut ToolResult<'_, '_>) -> c_int {
    let answered = call.with_input("ctx.content.context", |d, i| {
        Ok(String::from_utf8_lossy(d.str_inner(i).unwrap_or(&[])).to_string())
    });
    match (call.state, answered) {
        (Some(b"round1"), Ok(ctx)) => r.text(&format!("context: {ctx}")).map_or(-1, |_| 0),
        _ => {
            let schema = r#"{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}"#;
            match r.input_request(
                "ctx",
                "elicitation/create",
                crate::call::caps::ELICITATION,
                crate::call::InputParams::Elicit {
                    message: "What context?",
                    schema,
                },
            ) {
                Ok(()) => r.set_request_state(b"round1").map_or(-1, |_| 0),
                Err(_) => r.text("no context").map_or(-1, |_| 0),
            }
        }
    }
}

#[test]
#[cfg_attr(not(feature = "mrtr"), ignore = "needs the mrtr feature")]
fn prompts_and_reads_can_ask_for_input() {
    let mut s = server(0);
    s.state_mac = crate::protocol::mrtr::StateMac::Key([3; 64], 32);
    s.add_prompt(Prompt::new("ask", Handler::Rust(asks)))
        .unwrap();
    s.add_tool_as_built(Tool {
        max_result_len: 43, // measured
        ..Tool::new("ask", "{\"type\":\"object\"}", Handler::Rust(asks))
    })
    .unwrap();
    const CAPS: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
    let go = |method: &str, params: &str| {
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{CAPS},{params}}}}}"#
        );
        let mut out = vec![0u8; 4096];
        let o = s
            .handle(&RequestInfo::default(), req.as_bytes(), &mut out)
            .unwrap();
        serde_json::from_slice::<Value>(&out[..o.len]).unwrap()
    };
    let first = &go("prompts/get", r#""name":"ask""#)["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(
        first["inputRequests"]["ctx"]["method"],
        "elicitation/create"
    );
    assert!(first.get("messages").is_none() && first.get("description").is_none());
    let state = first["requestState"].as_str().unwrap().to_string();
    let answer = r#""inputResponses":{"ctx":{"action":"accept","content":{"context":"bench"}}}"#;
    let done = &go(
        "prompts/get",
        &format!(r#""name":"ask",{answer},"requestState":"{state}""#),
    )["result"];
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["messages"][0]["content"]["text"], "context: bench");
    // The prompt's state is bound to the prompt: a tool of the same name refuses it.
    let replay = go(
        "tools/call",
        &format!(r#""name":"ask",{answer},"requestState":"{state}""#),
    );
    assert_eq!(
        replay["error"]["message"], "Invalid requestState",
        "{replay}"
    );
    // Without the capability: -32021, as for tools.
    let no_cap = call(&s, "prompts/get", r#""name":"ask""#);
    assert_eq!(no_cap["error"]["code"], -32021);
    // Legacy era: no input requests; the callback answers without.
    let old = legacy(&s, "prompts/get", r#""name":"ask""#);
    assert_eq!(
        old["result"]["messages"][0]["content"]["text"],
        "no context"
    );
}
