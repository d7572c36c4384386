//! Structure-aware requests: valid-looking JSON-RPC messages of every method
//! and both eras, built from `arbitrary` choices, with mutated ids,
//! envelopes, params and arguments, escaped and duplicated keys, and a
//! final byte-level mutation or truncation.

use arbitrary::Arbitrary;
use std::fmt::Write;

/// Number texts that sit on the edges of the integer and float rules.
pub const NASTY_NUMBERS: [&str; 24] = [
    "1e400",
    "-1e400",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "9223372036854775807",
    "1.0",
    "1e1",
    "100.0",
    "1e-400",
    "0.1e1",
    "-5",
    "101",
    "-6",
    "1.5",
    "1.5000000000000001",
    "0e0",
    "13",
    "42",
    "2E0",
    "-0.0",
    "100.00000000000000000001",
    "99.999999999999999999999",
    "1E+2",
];

/// A key of an arguments object: the fixture's property names, or any.
#[derive(Arbitrary, Debug, Clone)]
pub enum Key {
    N,
    Mode,
    Pos,
    List,
    X,
    Y,
    S,
    Flag,
    K,
    Other(String),
}

impl Key {
    fn name(&self) -> &str {
        match self {
            Key::N => "n",
            Key::Mode => "mode",
            Key::Pos => "pos",
            Key::List => "list",
            Key::X => "x",
            Key::Y => "y",
            Key::S => "s",
            Key::Flag => "flag",
            Key::K => "k",
            Key::Other(s) => s,
        }
    }
}

/// An argument value.
#[derive(Arbitrary, Debug, Clone)]
pub enum Val {
    Int(i8),
    BigInt(i64),
    Nasty(u8),
    Float(f64),
    Str(String),
    Enum(u8),
    Bool(bool),
    Null,
    Arr(Vec<Val>),
    Obj(Vec<(Key, Val)>),
}

/// How a string or key is spelled.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Spell {
    Plain,
    /// Every character as `\uXXXX` (surrogate pairs above the BMP).
    Escaped,
}

/// Writes `s` as a JSON string.
pub fn jstr(out: &mut String, s: &str, spell: Spell) {
    match spell {
        Spell::Plain => out.push_str(&serde_json::to_string(s).expect("string")),
        Spell::Escaped => {
            out.push('"');
            for u in s.encode_utf16() {
                let _ = write!(out, "\\u{u:04x}");
            }
            out.push('"');
        }
    }
}

fn val(out: &mut String, v: &Val, depth: usize) {
    if depth > 20 {
        out.push_str("null");
        return;
    }
    match v {
        Val::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Val::BigInt(i) => {
            let _ = write!(out, "{i}");
        }
        Val::Nasty(i) => out.push_str(NASTY_NUMBERS[usize::from(*i) % NASTY_NUMBERS.len()]),
        Val::Float(f) => out.push_str(&serde_json::to_string(f).expect("float")),
        Val::Str(s) => jstr(out, s, Spell::Plain),
        Val::Enum(i) => {
            let e = ["a", "bb", "ccc", "\\u0061", "b\\u0062", "A", "", "t1"];
            let _ = write!(out, "\"{}\"", e[usize::from(*i) % e.len()]);
        }
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Null => out.push_str("null"),
        Val::Arr(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                val(out, e, depth + 1);
            }
            out.push(']');
        }
        Val::Obj(m) => {
            out.push('{');
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                jstr(out, k.name(), Spell::Plain);
                out.push(':');
                val(out, e, depth + 1);
            }
            out.push('}');
        }
    }
}

/// The request id.
#[derive(Arbitrary, Debug, Clone)]
pub enum IdSel {
    Absent,
    Int(i64),
    Str(String),
    Null,
    Float(f64),
    Nasty(u8),
    /// A string id of this many bytes.
    Long(u8),
    Obj,
    Arr,
    Bool,
}

/// The method.
#[derive(Arbitrary, Debug, Clone)]
pub enum MethodSel {
    Discover,
    ToolsList,
    ToolsCall,
    Initialize,
    Ping,
    Initialized,
    Cancelled,
    ResourcesList,
    SetLevel,
    ResourcesRead,
    TemplatesList,
    PromptsList,
    PromptsGet,
    Complete,
    Listen,
    Subscribe,
    Other(String),
    NotString,
}

impl MethodSel {
    /// The method name, or None when it is not a string.
    pub fn name(&self) -> Option<&str> {
        Some(match self {
            MethodSel::Discover => "server/discover",
            MethodSel::ToolsList => "tools/list",
            MethodSel::ToolsCall => "tools/call",
            MethodSel::Initialize => "initialize",
            MethodSel::Ping => "ping",
            MethodSel::Initialized => "notifications/initialized",
            MethodSel::Cancelled => "notifications/cancelled",
            MethodSel::ResourcesList => "resources/list",
            MethodSel::SetLevel => "logging/setLevel",
            MethodSel::ResourcesRead => "resources/read",
            MethodSel::TemplatesList => "resources/templates/list",
            MethodSel::PromptsList => "prompts/list",
            MethodSel::PromptsGet => "prompts/get",
            MethodSel::Complete => "completion/complete",
            MethodSel::Listen => "subscriptions/listen",
            MethodSel::Subscribe => "resources/subscribe",
            MethodSel::Other(s) => s,
            MethodSel::NotString => return None,
        })
    }
}

/// The envelope, i.e. the era.
#[derive(Arbitrary, Debug, Clone)]
pub enum EraSel {
    Legacy,
    Modern,
    /// Modern envelope with another version string.
    ModernVersion(u8),
    ModernNoCaps,
    ModernCapsNotObject,
    ModernVersionNotString,
    ModernOnlyCaps,
    MetaNotObject,
}

/// Tool name in tools/call.
#[derive(Arbitrary, Debug, Clone)]
pub enum ToolSel {
    Known(u8),
    Other(String),
    NotString,
    Absent,
}

/// What `params` is.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum ParamsSel {
    Object,
    Absent,
    Array,
    Str,
    Null,
}

/// A structure-aware request.
#[derive(Arbitrary, Debug, Clone)]
pub struct Req {
    pub id: IdSel,
    pub method: MethodSel,
    pub era: EraSel,
    pub params: ParamsSel,
    pub tool: ToolSel,
    pub args: Option<Val>,
    pub cursor: Option<String>,
    /// Bit i: spell key i of [jsonrpc, id, method, params, name, arguments, _meta] escaped.
    pub escape: u8,
    /// Duplicate a member: 0 id, 1 method, 2 params.name, 3 params.arguments, 4 jsonrpc.
    pub dup: Option<(u8, Val)>,
    /// jsonrpc: 0 right, 1 missing, 2 "1.0", 3 number.
    pub jsonrpc: u8,
    /// Capabilities: bit 0 elicitation, 1 sampling, 2 roots.
    pub caps: u8,
    /// Extra `_meta` members (progressToken, logLevel, traceparent, deep nesting).
    pub meta: Vec<(u8, Val)>,
    /// requestState / inputResponses of a retried call.
    pub retry: Option<(String, Val)>,
    /// initialize's protocolVersion.
    pub init_version: u8,
    /// Overwrite one byte: (position, byte).
    pub mutate: Option<(u16, u8)>,
    /// Cut the text at this length.
    pub truncate: Option<u16>,
    /// Spaces and newlines between tokens.
    pub spaced: bool,
    /// `uri` of resources/read and resources/subscribe.
    pub uri: UriSel,
    /// completion/complete: (ref to a prompt (else a template), argument name, value).
    pub complete: Option<(bool, String, Val)>,
    /// subscriptions/listen: filter flags (bits 0-2), URIs, or a raw value.
    pub listen: (u8, Vec<UriSel>, Option<Val>),
}

/// A resource URI.
#[derive(Arbitrary, Debug, Clone)]
pub enum UriSel {
    /// One of the fixture's URIs; a template gets `{id}` replaced by the string.
    Known(u8, String),
    Other(String),
    NotString,
}

impl UriSel {
    fn json(&self, out: &mut String) {
        match self {
            UriSel::Known(i, v) => {
                let u = crate::fixture::URIS[usize::from(*i) % crate::fixture::URIS.len()];
                jstr(out, &u.replace("{id}", v), Spell::Plain);
            }
            UriSel::Other(s) => jstr(out, s, Spell::Plain),
            UriSel::NotString => out.push_str("[1]"),
        }
    }
}

const KEYS: [&str; 7] = [
    "jsonrpc",
    "id",
    "method",
    "params",
    "name",
    "arguments",
    "_meta",
];
/// Protocol versions, modern and legacy, and some that are not.
pub const VERSIONS: [&str; 8] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2099-01-01",
    "",
    "2026-07-28 ",
];

impl Req {
    fn key(&self, out: &mut String, k: usize) {
        let spell = if self.escape & (1 << k) != 0 {
            Spell::Escaped
        } else {
            Spell::Plain
        };
        jstr(out, KEYS[k], spell);
        out.push(':');
        if self.spaced {
            out.push(' ');
        }
    }

    fn sep(&self, out: &mut String) {
        out.push(',');
        if self.spaced {
            out.push_str("\n ");
        }
    }

    /// The tool name this request calls, if any.
    pub fn tool_name(&self) -> Option<String> {
        match &self.tool {
            ToolSel::Known(i) => Some(crate::fixture::TOOLS[usize::from(*i) % 5].to_string()),
            ToolSel::Other(s) => Some(s.clone()),
            _ => None,
        }
    }

    /// The protocol version in the envelope, if a string one is sent.
    pub fn version(&self) -> Option<&'static str> {
        match self.era {
            EraSel::Modern | EraSel::ModernNoCaps | EraSel::ModernCapsNotObject => {
                Some(VERSIONS[0])
            }
            EraSel::ModernVersion(v) => Some(VERSIONS[usize::from(v) % VERSIONS.len()]),
            _ => None,
        }
    }

    fn meta(&self, out: &mut String) {
        let caps = |out: &mut String| {
            out.push('{');
            let mut first = true;
            for (bit, name) in [(1, "elicitation"), (2, "sampling"), (4, "roots")] {
                if self.caps & bit != 0 {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    let _ = write!(out, "\"{name}\":{{}}");
                }
            }
            out.push('}');
        };
        let v = "\"io.modelcontextprotocol/protocolVersion\":";
        let c = "\"io.modelcontextprotocol/clientCapabilities\":";
        self.key(out, 6);
        if matches!(self.era, EraSel::MetaNotObject) {
            out.push_str("[1]");
            return;
        }
        out.push('{');
        let mut parts: Vec<String> = Vec::new();
        match &self.era {
            EraSel::Legacy | EraSel::MetaNotObject => {}
            EraSel::Modern | EraSel::ModernVersion(_) => {
                let mut s = String::new();
                caps(&mut s);
                parts.push(format!("{v}\"{}\"", self.version().unwrap_or_default()));
                parts.push(format!("{c}{s}"));
            }
            EraSel::ModernNoCaps => parts.push(format!("{v}\"{}\"", VERSIONS[0])),
            EraSel::ModernCapsNotObject => {
                parts.push(format!("{v}\"{}\"", VERSIONS[0]));
                parts.push(format!("{c}true"));
            }
            EraSel::ModernVersionNotString => {
                parts.push(format!("{v}20260728"));
                parts.push(format!("{c}{{}}"));
            }
            EraSel::ModernOnlyCaps => parts.push(format!("{c}{{}}")),
        }
        for (k, x) in &self.meta {
            let key = [
                "progressToken",
                "io.modelcontextprotocol/logLevel",
                "traceparent",
                "x",
                "io.modelcontextprotocol/protocolVersion",
            ][usize::from(*k) % 5];
            let mut s = String::new();
            jstr(&mut s, key, Spell::Plain);
            s.push(':');
            match k / 5 % 4 {
                0 => val(&mut s, x, 0),
                1 => s.push_str("\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\""),
                2 => s.push_str("\"debug\""),
                _ => {
                    // Deep nesting inside _meta.
                    let d = usize::from(*k % 24);
                    s.push_str(&"[".repeat(d));
                    s.push_str(&"]".repeat(d));
                    if d == 0 {
                        s.push_str("{}");
                    }
                }
            }
            parts.push(s);
        }
        out.push_str(&parts.join(","));
        out.push('}');
    }

    /// The request text.
    pub fn text(&self) -> Vec<u8> {
        let mut o = String::new();
        o.push('{');
        if self.spaced {
            o.push(' ');
        }
        // jsonrpc
        match self.jsonrpc % 4 {
            1 => {}
            r => {
                self.key(&mut o, 0);
                o.push_str(match r {
                    0 => "\"2.0\"",
                    2 => "\"1.0\"",
                    _ => "2.0",
                });
                self.sep(&mut o);
            }
        }
        // id
        let id = match &self.id {
            IdSel::Absent => None,
            IdSel::Int(i) => Some(i.to_string()),
            IdSel::Str(s) => Some(serde_json::to_string(s).expect("s")),
            IdSel::Null => Some("null".into()),
            IdSel::Float(f) => Some(serde_json::to_string(f).expect("f")),
            IdSel::Nasty(i) => Some(NASTY_NUMBERS[usize::from(*i) % NASTY_NUMBERS.len()].into()),
            IdSel::Long(n) => Some(format!("\"{}\"", "i".repeat(usize::from(*n) % 80))),
            IdSel::Obj => Some("{}".into()),
            IdSel::Arr => Some("[1]".into()),
            IdSel::Bool => Some("true".into()),
        };
        if let Some(id) = &id {
            self.key(&mut o, 1);
            o.push_str(id);
            self.sep(&mut o);
        }
        // method
        self.key(&mut o, 2);
        match self.method.name() {
            Some(m) => jstr(&mut o, m, Spell::Plain),
            None => o.push('7'),
        }
        // params
        match self.params {
            ParamsSel::Absent => {}
            ParamsSel::Array => {
                self.sep(&mut o);
                self.key(&mut o, 3);
                o.push_str("[]");
            }
            ParamsSel::Str => {
                self.sep(&mut o);
                self.key(&mut o, 3);
                o.push_str("\"p\"");
            }
            ParamsSel::Null => {
                self.sep(&mut o);
                self.key(&mut o, 3);
                o.push_str("null");
            }
            ParamsSel::Object => {
                self.sep(&mut o);
                self.key(&mut o, 3);
                o.push('{');
                let mut p: Vec<String> = Vec::new();
                if !matches!(self.era, EraSel::Legacy) || !self.meta.is_empty() {
                    let mut s = String::new();
                    self.meta(&mut s);
                    p.push(s);
                }
                match self.tool_name() {
                    Some(n) => {
                        let mut s = String::new();
                        self.key(&mut s, 4);
                        jstr(&mut s, &n, Spell::Plain);
                        p.push(s);
                    }
                    None if matches!(self.tool, ToolSel::NotString) => {
                        let mut s = String::new();
                        self.key(&mut s, 4);
                        s.push_str("[\"bounded\"]");
                        p.push(s);
                    }
                    None => {}
                }
                if let Some(a) = &self.args {
                    let mut s = String::new();
                    self.key(&mut s, 5);
                    val(&mut s, a, 0);
                    p.push(s);
                }
                if let Some(c) = &self.cursor {
                    let mut s = String::from("\"cursor\":");
                    jstr(&mut s, c, Spell::Plain);
                    p.push(s);
                }
                if matches!(self.method, MethodSel::ResourcesRead | MethodSel::Subscribe) {
                    let mut s = String::from("\"uri\":");
                    self.uri.json(&mut s);
                    p.push(s);
                }
                if let (MethodSel::Complete, Some((prompt, arg, value))) =
                    (&self.method, &self.complete)
                {
                    let mut s = String::from("\"ref\":");
                    if *prompt {
                        s.push_str("{\"type\":\"ref/prompt\",\"name\":");
                        jstr(&mut s, &self.tool_name().unwrap_or_default(), Spell::Plain);
                    } else {
                        s.push_str("{\"type\":\"ref/resource\",\"uri\":");
                        self.uri.json(&mut s);
                    }
                    s.push_str("},\"argument\":{\"name\":");
                    jstr(&mut s, arg, Spell::Plain);
                    s.push_str(",\"value\":");
                    val(&mut s, value, 0);
                    s.push('}');
                    p.push(s);
                }
                if matches!(self.method, MethodSel::Listen) {
                    let (flags, uris, raw) = &self.listen;
                    let mut s = String::from("\"notifications\":");
                    match raw {
                        Some(v) => val(&mut s, v, 0),
                        None => {
                            s.push('{');
                            let mut parts = Vec::new();
                            for (bit, key) in [
                                "toolsListChanged",
                                "promptsListChanged",
                                "resourcesListChanged",
                            ]
                            .iter()
                            .enumerate()
                            {
                                if flags & (1 << bit) != 0 {
                                    parts.push(format!("\"{key}\":{}", flags & 8 == 0));
                                }
                            }
                            if !uris.is_empty() {
                                let mut l = String::from("\"resourceSubscriptions\":[");
                                for (i, u) in uris.iter().enumerate() {
                                    if i > 0 {
                                        l.push(',');
                                    }
                                    u.json(&mut l);
                                }
                                l.push(']');
                                parts.push(l);
                            }
                            s.push_str(&parts.join(","));
                            s.push('}');
                        }
                    }
                    p.push(s);
                }
                if matches!(self.method, MethodSel::Initialize) {
                    let v = VERSIONS[usize::from(self.init_version) % VERSIONS.len()];
                    p.push(format!(
                        "\"protocolVersion\":\"{v}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"f\",\"version\":\"1\"}}"
                    ));
                }
                if let Some((state, answer)) = &self.retry {
                    let mut s = String::from("\"requestState\":");
                    jstr(&mut s, state, Spell::Plain);
                    s.push_str(",\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":{\"ok\":");
                    val(&mut s, answer, 0);
                    s.push_str("}}}");
                    p.push(s);
                }
                if let Some((which, v)) = &self.dup {
                    let mut s = String::new();
                    match which % 5 {
                        2 => {
                            self.key(&mut s, 4);
                            val(&mut s, v, 0);
                            p.push(s);
                        }
                        3 => {
                            self.key(&mut s, 5);
                            val(&mut s, v, 0);
                            p.push(s);
                        }
                        _ => {}
                    }
                }
                o.push_str(&p.join(","));
                o.push('}');
            }
        }
        if let Some((which, v)) = &self.dup {
            let k = match which % 5 {
                0 => Some(1),
                1 => Some(2),
                4 => Some(0),
                _ => None,
            };
            if let Some(k) = k {
                self.sep(&mut o);
                self.key(&mut o, k);
                val(&mut o, v, 0);
            }
        }
        if self.spaced {
            o.push_str(" \n");
        }
        o.push('}');
        let mut b = o.into_bytes();
        if let Some((pos, byte)) = self.mutate {
            if !b.is_empty() {
                let i = usize::from(pos) % b.len();
                b[i] = byte;
            }
        }
        if let Some(t) = self.truncate {
            b.truncate(usize::from(t));
        }
        b
    }
}

/// Decodes a routing header the way the spec says (trim spaces and tabs;
/// `=?base64?...?=` is base64 of the UTF-8 value), written here from the
/// spec, independently of the core. `None` for a malformed encoded value.
pub fn decode_header(raw: &[u8]) -> Option<Vec<u8>> {
    let mut v = raw;
    while let [b' ' | b'\t', r @ ..] = v {
        v = r;
    }
    while let [r @ .., b' ' | b'\t'] = v {
        v = r;
    }
    let Some(body) = v
        .strip_prefix(b"=?base64?")
        .and_then(|r| r.strip_suffix(b"?="))
    else {
        return Some(v.to_vec());
    };
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    let trimmed: &[u8] = {
        let mut t = body;
        let mut pads = 0;
        while let [r @ .., b'='] = t {
            t = r;
            pads += 1;
        }
        if pads > 2 || (pads > 0 && body.len() % 4 != 0) {
            return None;
        }
        t
    };
    if trimmed.len() % 4 == 1 {
        return None;
    }
    for &c in trimmed {
        let x = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(x);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
        }
    }
    Some(out)
}

/// Base64 (standard alphabet, padded) of `data`.
pub fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}
