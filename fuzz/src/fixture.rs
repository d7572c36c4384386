//! The server the `handle*` targets drive, and handlers that check their own
//! arguments against the schemas below with an independent reader.
//!
//! A handler that runs on a request that was not a tools/call with an id, or
//! on arguments the schema forbids, panics: that is the "no tool runs unless
//! validated" invariant.

use crate::tree::{self, J};
use core::ffi::c_int;
use emcp::call::{Call, InputParams, ToolResult};
use emcp::protocol::mrtr::StateMac;
use emcp::registry::{Handler, Tool};
use emcp::server::{Server, ServerInfo};
use serde_json::value::RawValue;
use std::cell::{Cell, RefCell};

/// `bounded`: integer bounds, an enum string, a nested object, array items,
/// `additionalProperties: false`.
pub const BOUNDED: &str = r#"{"type":"object","required":["n"],"additionalProperties":false,"properties":{"n":{"type":"integer","minimum":-5,"maximum":100},"mode":{"type":"string","enum":["a","bb","ccc"]},"pos":{"type":"object","required":["x"],"additionalProperties":false,"properties":{"x":{"type":"integer","minimum":0,"maximum":9},"y":{"type":"number","maximum":1.5}}},"list":{"type":"array","items":{"type":"integer","minimum":1,"maximum":3},"maxItems":4}}}"#;
/// `text`: string lengths in code points, a boolean, a default.
pub const TEXT: &str = r#"{"type":"object","properties":{"s":{"type":"string","minLength":1,"maxLength":4},"flag":{"type":"boolean"},"k":{"type":"integer","default":3}}}"#;
/// `any` and `ask`: any object.
pub const ANY: &str = r#"{"type":"object"}"#;
/// `typed`: its structuredContent must match this outputSchema.
pub const OUT: &str =
    r#"{"type":"object","required":["n"],"properties":{"n":{"type":"integer","maximum":10}}}"#;

/// Names of the registered tools, in order.
pub const TOOLS: [&str; 5] = ["bounded", "text", "any", "typed", "ask"];

thread_local! {
    static CALLS: Cell<usize> = const { Cell::new(0) };
    static LAST: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Tool handler invocations so far on this thread.
pub fn calls() -> usize {
    CALLS.with(|c| c.get())
}

/// The tool the last handler invocation was for.
pub fn last_tool() -> String {
    LAST.with(|l| l.borrow().clone())
}

/// `t` as emcp-gen builds it: its listing (the library's own writer) and
/// its schemas' programs, in storage that outlives the server.
fn as_built(t: Tool<'static>) -> Tool<'static> {
    let leak = |mut b: Vec<u8>, n: usize| -> &'static [u8] {
        b.truncate(n);
        Box::leak(b.into_boxed_slice())
    };
    let program = |text: &str| {
        let mut b = vec![0u8; 1 << 16];
        let n = emcp::schema::emit(text, &mut b).expect("a fixture schema compiles");
        leak(b, n)
    };
    let mut b = vec![0u8; 1 << 16];
    let n = emcp::registry::listing(&t, &mut b).expect("a fixture tool lists");
    let listing = std::str::from_utf8(leak(b, n)).expect("UTF-8");
    let input = program(t.input_schema);
    Tool {
        listing: Some(listing),
        input_program: Some(input),
        output_program: t.output_schema.map(program),
        args: Some(layout(input)),
        ..t
    }
}

/// A typed argument struct for `prog` as emcp-gen would declare it: each
/// member as wide as its kind, aligned to 8, a presence flag after the
/// members for each argument that may be absent.
fn layout(prog: &'static [u8]) -> emcp::schema::typed::Layout<'static> {
    use emcp::limits::*;
    use emcp::schema::typed::{int_type, members, ArgKind, STR_SIZE};
    let mut slots = Vec::new();
    let mut at = 0usize;
    for m in members(prog) {
        let (size, kind) = match m.kind {
            ArgKind::Bool => (1, MCP_ARG_BOOL),
            ArgKind::Int { min, max } => (int_type(min, max).0, MCP_ARG_INT),
            ArgKind::Number => (core::mem::size_of::<mcp_decimal_t>(), MCP_ARG_NUMBER),
            ArgKind::Enum { .. } => (4, MCP_ARG_ENUM),
            ArgKind::Str { .. } => (STR_SIZE, MCP_ARG_STR),
            ArgKind::Array { max_items, item } => {
                let elem =
                    emcp::schema::typed::item_size(emcp::schema::typed::item_kind(prog, item))
                        .expect("an array kind holds its elements in place");
                (
                    max_items as usize * elem + emcp::schema::typed::count_size(max_items),
                    MCP_ARG_ARRAY,
                )
            }
            ArgKind::Json => (STR_SIZE, MCP_ARG_JSON),
        };
        slots.push(mcp_arg_slot_t {
            offset: at as u16,
            size: size as u16,
            present: if m.always { MCP_ARG_ALWAYS } else { 0 },
            kind,
        });
        at += size.div_ceil(8) * 8;
    }
    for s in slots.iter_mut().filter(|s| s.present != MCP_ARG_ALWAYS) {
        s.present = at as u16;
        at += 1;
    }
    emcp::schema::typed::Layout {
        slots: Box::leak(slots.into_boxed_slice()),
        size: at.max(1),
    }
}

/// A built tool's typed struct, filled as `mcp_call_args` fills it: always
/// possible for arguments the program accepted (the text area emcp-gen
/// sizes suffices), and every integer member what the accessor reads.
fn check_typed(call: &Call<'_>) {
    let (Some(layout), Some(prog)) = (call.typed, call.input_program) else {
        return;
    };
    let mut out = vec![0u8; layout.size];
    let mut text = vec![0u8; emcp::schema::typed::text_len(prog)];
    let filled = call.fill_args(&mut out, &mut text);
    assert_eq!(filled, Some(Ok(())), "typed arguments not filled");
    let members = emcp::schema::typed::members(prog);
    for (m, s) in members.zip(layout.slots) {
        let present = s.present == emcp::limits::MCP_ARG_ALWAYS || out[s.present as usize] == 1;
        let name = std::str::from_utf8(m.name).unwrap_or("");
        if name.contains(['\\', '.', '[']) {
            continue; // the accessor's path syntax reads these otherwise
        }
        let sent_or_default = call.with_value(name, |_, _| Ok(())).is_ok();
        assert_eq!(present, sent_or_default, "presence of {name}");
        if let (emcp::schema::typed::ArgKind::Array { max_items, item }, true) = (m.kind, present) {
            // An array of integers: its count and elements are what the
            // accessor reads at name[i].
            if let emcp::schema::typed::ArgKind::Int { .. } =
                emcp::schema::typed::item_kind(prog, item)
            {
                let elem =
                    emcp::schema::typed::item_size(emcp::schema::typed::item_kind(prog, item))
                        .unwrap();
                let at = s.offset as usize;
                let count = out[at + max_items as usize * elem] as usize;
                for i in 0..max_items as usize {
                    let read = call.with_value(&format!("{name}[{i}]"), |d, t| {
                        d.as_i64(t).map_err(emcp::call::ArgError::Conv)
                    });
                    if i < count {
                        let mut b = [0u8; 8];
                        b[..elem].copy_from_slice(&out[at + i * elem..at + (i + 1) * elem]);
                        assert_eq!(read.ok(), Some(i64::from_le_bytes(b)), "{name}[{i}]");
                    } else {
                        assert!(
                            read.is_err() || i >= max_items as usize,
                            "{name}[{i}] past the count"
                        );
                    }
                }
            }
        }
        if let (emcp::schema::typed::ArgKind::Int { min, max }, true) = (m.kind, present) {
            let read =
                call.with_value(name, |d, i| d.as_i64(i).map_err(emcp::call::ArgError::Conv));
            let (at, n) = (s.offset as usize, s.size as usize);
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&out[at..at + n]);
            let mut v = i64::from_le_bytes(b);
            if emcp::schema::typed::int_type(min, max).1 && n < 8 && b[n - 1] & 0x80 != 0 {
                v -= 1i64 << (8 * n);
            }
            assert_eq!(
                Ok(v),
                read.map_err(|_| ()),
                "typed {name} is not what the accessor reads"
            );
        }
    }
}

/// The fixed server.
pub fn server() -> Server<'static> {
    server_with(false)
}

/// The fixed server, its tools built as emcp-gen builds them (`built`) or
/// registered from their texts.
pub fn server_with(built: bool) -> Server<'static> {
    tools_into(new_server(), built)
}

/// The fixed server, its tools from texts compiled into program storage at
/// registration (`mcp_server_set_program_storage`).
pub fn server_stored() -> Server<'static> {
    let mut s = new_server();
    let store = Box::leak(vec![0u8; 1 << 16].into_boxed_slice());
    s.tools.set_store(store).expect("program storage");
    tools_into(s, false)
}

fn new_server() -> Server<'static> {
    let mut s = Server::new(ServerInfo {
        name: "fuzz",
        version: "1",
        title: Some("Fuzz"),
        instructions: Some("Only for fuzzing."),
        list_ttl_ms: 7,
        cache_public: false,
    });
    s.state_mac = StateMac::Key([0x5a; 64], 32);
    s
}

fn tools_into(mut s: Server<'static>, built: bool) -> Server<'static> {
    let add =
        |s: &mut Server<'static>, t: Tool<'static>| s.add_tool(if built { as_built(t) } else { t });
    // Each tool that is not read-only declares the most its callback
    // writes; `text` and `any` write as much as their arguments ask (past
    // small buffers on purpose), so they are read-only and leave it
    // undeclared, and the callback's own overflow is exercised through them.
    add(
        &mut s,
        Tool {
            description: Some("Bounded arguments"),
            annotations: emcp::limits::MCP_TOOL_IDEMPOTENT,
            // {"type":"text","text":"ok"},{"type":"text","text":"refused"}
            max_result_len: 60,
            ..Tool::new("bounded", BOUNDED, Handler::Rust(bounded))
        },
    )
    .expect("bounded");
    add(
        &mut s,
        Tool {
            annotations: emcp::limits::MCP_TOOL_READ_ONLY,
            ..Tool::new("text", TEXT, Handler::Rust(text))
        },
    )
    .expect("text");
    add(
        &mut s,
        Tool {
            title: Some("Echo"),
            annotations: emcp::limits::MCP_TOOL_READ_ONLY,
            ..Tool::new("any", ANY, Handler::Rust(any))
        },
    )
    .expect("any");
    add(
        &mut s,
        Tool {
            output_schema: Some(OUT),
            // ,"structuredContent":{"n":N} for any i64 N
            max_result_len: 48,
            ..Tool::new("typed", ANY, Handler::Rust(typed))
        },
    )
    .expect("typed");
    add(
        &mut s,
        Tool {
            // {"type":"text","text":"needs confirmation"}
            max_result_len: 43,
            ..Tool::new("ask", ANY, Handler::Rust(ask))
        },
    )
    .expect("ask");
    s
}

/// Common entry check of every handler: the request is a tools/call with an
/// id naming this tool, and its first `arguments` member is what the
/// callback sees. Returns the arguments span (None when absent).
fn enter<'a>(call: &Call<'a>) -> Option<&'a RawValue> {
    CALLS.with(|c| c.set(c.get() + 1));
    check_typed(call);
    LAST.with(|l| *l.borrow_mut() = call.name.to_string());
    let src = call.doc.src();
    let show = || String::from_utf8_lossy(src).into_owned();
    let top = tree::top(src).unwrap_or_else(|| panic!("handler ran on non-JSON: {}", show()));
    let m = tree::members(top).unwrap_or_else(|| panic!("handler ran on a non-object: {}", show()));
    let id = tree::first(&m, "id")
        .unwrap_or_else(|| panic!("handler ran for a notification: {}", show()));
    assert!(
        matches!(tree::open(id), Some(J::Str(_) | J::Num(_))),
        "handler ran with id {}: {}",
        id.get(),
        show()
    );
    let jsonrpc = tree::first(&m, "jsonrpc").and_then(tree::string);
    assert_eq!(
        jsonrpc.as_deref(),
        Some("2.0"),
        "handler ran without jsonrpc 2.0: {}",
        show()
    );
    let method = tree::first(&m, "method").and_then(tree::string);
    assert_eq!(
        method.as_deref(),
        Some("tools/call"),
        "handler ran for another method: {}",
        show()
    );
    let params = tree::first(&m, "params")
        .and_then(tree::members)
        .unwrap_or_else(|| panic!("handler ran without params object: {}", show()));
    let name = tree::first(&params, "name").and_then(tree::string);
    assert_eq!(
        name.as_deref(),
        Some(call.name),
        "handler for the wrong tool: {}",
        show()
    );
    let args = tree::first(&params, "arguments");
    match (args, call.args) {
        (None, None) => None,
        (Some(a), Some(t)) => {
            let seen = std::str::from_utf8(call.doc.raw(t)).expect("utf-8 arguments");
            assert_eq!(
                tree::text(a),
                seen,
                "callback sees other arguments than the first: {}",
                show()
            );
            assert!(
                tree::members(a).is_some(),
                "arguments not an object: {}",
                show()
            );
            Some(a)
        }
        (a, t) => panic!("arguments {a:?} but callback sees token {t:?}: {}", show()),
    }
}

fn fail(tool: &str, args: &RawValue, why: &str) -> ! {
    panic!(
        "tool {tool} ran on arguments that break its schema ({why}): {}",
        args.get()
    )
}

/// An exact-enough integer check: any value the core accepts as an integer
/// in [lo, hi] is a small exact integer, so f64 parsing decides it exactly.
fn int_in(v: &RawValue, lo: f64, hi: f64) -> bool {
    match tree::open(v) {
        Some(J::Num(t)) => t
            .parse::<f64>()
            .is_ok_and(|f| f.is_finite() && f.fract() == 0.0 && f >= lo && f <= hi),
        _ => false,
    }
}

fn num_max(v: &RawValue, hi: f64) -> bool {
    match tree::open(v) {
        Some(J::Num(t)) => t.parse::<f64>().is_ok_and(|f| f.is_finite() && f <= hi),
        _ => false,
    }
}

fn check_bounded(args: &RawValue) {
    let m = tree::members(args).unwrap_or_else(|| fail("bounded", args, "not an object"));
    if tree::first(&m, "n").is_none() {
        fail("bounded", args, "n required");
    }
    for (k, v) in &m {
        let ok = match k.as_str() {
            "n" => int_in(v, -5.0, 100.0),
            "mode" => matches!(tree::string(v).as_deref(), Some("a" | "bb" | "ccc")),
            "pos" => tree::members(v).is_some_and(|p| {
                tree::first(&p, "x").is_some()
                    && p.iter().all(|(k, v)| match k.as_str() {
                        "x" => int_in(v, 0.0, 9.0),
                        "y" => num_max(v, 1.5),
                        _ => false,
                    })
            }),
            "list" => matches!(tree::open(v), Some(J::Arr(a))
                if a.len() <= 4 && a.iter().all(|e| int_in(e, 1.0, 3.0))),
            _ => false,
        };
        if !ok {
            fail("bounded", args, k);
        }
    }
}

fn check_text(args: &RawValue) {
    let m = tree::members(args).unwrap_or_else(|| fail("text", args, "not an object"));
    for (k, v) in &m {
        let ok = match k.as_str() {
            "s" => tree::string(v).is_some_and(|s| (1..=4).contains(&s.chars().count())),
            "flag" => matches!(tree::open(v), Some(J::Bool(_))),
            "k" => int_in(v, -9.3e18, 9.3e18), // any i64 (its f64 rounds to ±2^63)
            _ => true,
        };
        if !ok {
            fail("text", args, k);
        }
    }
}

fn bounded(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    let Some(args) = enter(call) else {
        panic!("bounded ran without arguments (n is required)");
    };
    check_bounded(args);
    // What the accessor reads must be inside the bounds too.
    let n = call
        .with_value("n", |d, i| d.as_i64(i).map_err(emcp::call::ArgError::Conv))
        .expect("n readable");
    assert!((-5..=100).contains(&n), "accessor read n = {n}");
    if let Ok(x) = call.with_value("pos.x", |d, i| {
        d.as_i64(i).map_err(emcp::call::ArgError::Conv)
    }) {
        assert!((0..=9).contains(&x), "accessor read pos.x = {x}");
    }
    for i in 0..4 {
        let p = format!("list[{i}]");
        if let Ok(e) = call.with_value(&p, |d, i| d.as_i64(i).map_err(emcp::call::ArgError::Conv)) {
            assert!((1..=3).contains(&e), "accessor read {p} = {e}");
        }
    }
    if res.text("ok").is_err() {
        return -105;
    }
    if n == 13 {
        return -5; // a failing callback: -32603
    }
    if n == 42 {
        return if res.error("refused").is_ok() {
            0
        } else {
            -105
        };
    }
    0
}

fn text(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    if let Some(a) = enter(call) {
        check_text(a);
    }
    let k = call
        .with_value("k", |d, i| d.as_i64(i).map_err(emcp::call::ArgError::Conv))
        .expect("k has a default");
    let s = call
        .with_value("s", |d, i| {
            let mut b = [0u8; 64];
            let n = d
                .unescape_into(i, &mut b)
                .map_err(emcp::call::ArgError::Conv)?;
            Ok(String::from_utf8(b[..n].to_vec()).expect("unescaped utf-8"))
        })
        .unwrap_or_default();
    assert!(s.chars().count() <= 4, "accessor read s = {s:?}");
    // Long results (k large) overflow small buffers on purpose.
    let reps = usize::try_from(k.clamp(0, 2000)).unwrap_or(0);
    if res.text(&s.repeat(reps)).is_err() {
        return -105;
    }
    0
}

fn any(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    let a = enter(call);
    // Echo the arguments as text: escapes and long values reach the writer.
    let t = a.map_or("{}", tree::text);
    if res.text(t).is_err() {
        return -105;
    }
    if res.structured_begin().is_err() {
        return -105;
    }
    let Ok(w) = res.json() else { return -105 };
    if w.key("len").and_then(|_| w.int(t.len() as i64)).is_err() {
        return -105;
    }
    if res.structured_end().is_err() {
        return -105;
    }
    0
}

fn typed(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    enter(call);
    // structuredContent {"n": <arguments.n or 0>}; above 10 breaks the outputSchema.
    let n = call
        .with_value("n", |d, i| d.as_i64(i).map_err(emcp::call::ArgError::Conv))
        .unwrap_or(0);
    if res.structured_begin().is_err() {
        return -105;
    }
    let Ok(w) = res.json() else { return -105 };
    if w.key("n").and_then(|_| w.int(n)).is_err() {
        return -105;
    }
    if res.structured_end().is_err() {
        return -105;
    }
    0
}

fn ask(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    enter(call);
    let ok = call.with_input("confirm.content.ok", |d, i| {
        d.as_bool(i).map_err(emcp::call::ArgError::Conv)
    });
    if call.state.is_some() && ok == Ok(true) {
        return if res.text("done").is_ok() { 0 } else { -105 };
    }
    let asked = res.input_request(
        "confirm",
        "elicitation/create",
        emcp::call::caps::ELICITATION,
        InputParams::Elicit {
            message: "Sure?",
            schema: r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#,
        },
    );
    match asked {
        Ok(()) => {
            if res.set_request_state(b"step=1").is_ok() {
                0
            } else {
                -105
            }
        }
        Err(emcp::call::ResultError::Unsupported) => {
            if res.error("needs confirmation").is_ok() {
                0
            } else {
                -105
            }
        }
        Err(_) => 0,
    }
}

/// Resource URIs and templates of the fixture.
pub const URIS: [&str; 4] = ["fz://text", "fz://blob", "fz://item/{id}", "fz://dyn"];

thread_local! {
    static OTHER: Cell<usize> = const { Cell::new(0) };
}

/// Resource, prompt and completion callback runs so far on this thread.
pub fn other_calls() -> usize {
    OTHER.with(|c| c.get())
}

/// Entry check of a non-tool callback: a request with an id, jsonrpc 2.0 and
/// this method, with an object `params`; returns the params members.
fn enter_other<'a>(call: &Call<'a>, method: &str) -> Vec<(String, &'a RawValue)> {
    OTHER.with(|c| c.set(c.get() + 1));
    let src = call.doc.src();
    let show = || String::from_utf8_lossy(src).into_owned();
    let top = tree::top(src).unwrap_or_else(|| panic!("callback ran on non-JSON: {}", show()));
    let m =
        tree::members(top).unwrap_or_else(|| panic!("callback ran on a non-object: {}", show()));
    let id = tree::first(&m, "id")
        .unwrap_or_else(|| panic!("callback ran for a notification: {}", show()));
    assert!(
        matches!(tree::open(id), Some(J::Str(_) | J::Num(_))),
        "callback ran with id {}",
        id.get()
    );
    assert_eq!(
        tree::first(&m, "method").and_then(tree::string).as_deref(),
        Some(method),
        "{}",
        show()
    );
    tree::first(&m, "params")
        .and_then(tree::members)
        .unwrap_or_else(|| panic!("callback ran without params object: {}", show()))
}

fn read_item(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    let params = enter_other(call, "resources/read");
    let uri = tree::first(&params, "uri")
        .and_then(tree::string)
        .expect("uri is a string");
    let m = call.uri.expect("a read has its URI");
    assert_eq!(m.uri, uri.as_bytes(), "callback sees another URI");
    let mut v = [0u8; 8];
    match m.var("id", &mut v) {
        Ok(n) => {
            let text = String::from_utf8_lossy(&v[..n]).into_owned();
            if text == "none" {
                return -2; // -MCP_ENOENT: not found
            }
            res.resource(
                &uri,
                Some("text/plain"),
                emcp::call::Contents::Text(&text),
                None,
            )
            .map_or(-105, |_| 0)
        }
        Err(_) => -2,
    }
}

fn read_dyn(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    enter_other(call, "resources/read");
    assert!(res.text("x").is_err(), "a read accepted a content block");
    res.resource(
        "fz://dyn",
        None,
        emcp::call::Contents::Blob(&[1, 2, 3]),
        None,
    )
    .map_or(-105, |_| 0)
}

fn prompt(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    let params = enter_other(call, "prompts/get");
    // The required argument of "text" was checked before the callback.
    if call.name == "text" {
        let args = tree::first(&params, "arguments")
            .and_then(tree::members)
            .expect("arguments");
        assert!(
            tree::first(&args, "s").and_then(tree::string).is_some(),
            "prompt ran without its required argument"
        );
    }
    let s = call.with_value("s", |d, i| {
        let mut b = [0u8; 64];
        let n = d.unescape_into(i, &mut b)?;
        Ok(String::from_utf8_lossy(&b[..n]).into_owned())
    });
    let _ = res.set_role(s.is_err());
    res.text(&s.unwrap_or_default()).map_or(-105, |_| 0)
}

fn complete(call: &Call<'_>, res: &mut ToolResult<'_, '_>) -> c_int {
    enter_other(call, "completion/complete");
    let n = call
        .with_value("argument.value", |d, i| {
            Ok(d.str_inner(i).map_or(0, <[u8]>::len))
        })
        .unwrap_or(0);
    for i in 0..(n * 13) {
        if res.completion_value(&format!("v{i}")).is_err() {
            return -105;
        }
    }
    0
}

fn add_catalog(s: &mut Server<'static>) {
    use emcp::catalog::{Body, Prompt, Resource};
    let r = |uri, body| Resource {
        uri,
        name: "r",
        title: None,
        description: None,
        mime_type: Some("text/plain"),
        body,
    };
    s.add_resource(r(URIS[0], Body::Text("hello")))
        .expect("text");
    s.add_resource(r(URIS[1], Body::Blob(&[0, 0xff])))
        .expect("blob");
    s.add_resource(r(URIS[2], Body::Handler(Handler::Rust(read_item))))
        .expect("item");
    s.add_resource(r(URIS[3], Body::Handler(Handler::Rust(read_dyn))))
        .expect("dyn");
    s.add_prompt(Prompt {
        arguments: Some(r#"[{"name":"s","required":true},{"name":"k"}]"#),
        ..Prompt::new("text", Handler::Rust(prompt))
    })
    .expect("prompt text");
    s.add_prompt(Prompt::new("any", Handler::Rust(prompt)))
        .expect("prompt any");
    s.catalog.completion = Some(Handler::Rust(complete));
}

thread_local! {
    static SHARED: &'static Server<'static> = Box::leak(Box::new({
        let mut s = server();
        add_catalog(&mut s);
        s
    }));
    static SHARED_BUILT: &'static Server<'static> = Box::leak(Box::new({
        let mut s = server_with(true);
        add_catalog(&mut s);
        s
    }));
    static SHARED_STORED: &'static Server<'static> = Box::leak(Box::new({
        let mut s = server_stored();
        add_catalog(&mut s);
        s
    }));
}

/// [`shared`] with its tools from texts compiled into program storage at
/// registration: every request must be answered exactly as [`shared`]
/// answers it.
pub fn shared_stored() -> &'static Server<'static> {
    SHARED_STORED.with(|s| *s)
}

/// [`shared`] with its tools built (listing and programs): every request
/// must be answered exactly as [`shared`] answers it.
pub fn shared_built() -> &'static Server<'static> {
    SHARED_BUILT.with(|s| *s)
}

/// The fixture server, built once per thread (the server is not `Sync`:
/// C handlers carry raw pointers).
pub fn shared() -> &'static Server<'static> {
    SHARED.with(|s| *s)
}
