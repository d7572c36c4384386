//! Reading a tools file: every tool's fields, its schemas checked by the
//! library's own checker, errors that name the file, line, tool and the JSON
//! path of what is wrong.

use emcp::schema::{MsgBuf, compile, emit, seal};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// One tool, as the generated table holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    /// The C identifier its constants are named by.
    pub c_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Schema texts without insignificant whitespace: the exact bytes the
    /// firmware registers and the seal covers.
    pub input_schema: String,
    pub output_schema: Option<String>,
    /// `MCP_TOOL_*` bits.
    pub annotations: u32,
    pub icons: Option<String>,
    pub max_result_len: u64,
    pub principals: Option<String>,
    pub min_interval_ms: u32,
    pub idempotency_key: Option<String>,
    pub seal: u32,
    /// The argument program of `input_schema` (what the firmware runs on
    /// every call instead of reading the text).
    pub input_program: Vec<u8>,
    /// The program of `output_schema`, when the tool has one.
    pub output_program: Option<Vec<u8>>,
    /// The whole `tools/list` entry, as the library writes it for the same
    /// tool registered from its texts.
    pub listing: String,
    /// Its typed argument struct's members.
    pub args: Vec<crate::args::Member>,
    /// The bytes its escaped strings may need.
    pub text_len: usize,
}

/// The whole file.
#[derive(Debug)]
pub struct ToolsFile {
    /// The C prefix of every generated name (`greenhouse` →
    /// `greenhouse_tools`, `GREENHOUSE_TOOL_COUNT`).
    pub prefix: Option<String>,
    pub tools: Vec<Tool>,
}

/// An object's members in file order, duplicates kept (a duplicate is an
/// error here, and must be seen to be reported).
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Members<'de>, A::Error> {
                let mut v = Vec::new();
                while let Some(kv) = m.next_entry::<String, &'de RawValue>()? {
                    v.push(kv);
                }
                Ok(Members(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Where things are, for messages: the file's name and text.
pub struct Source<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// `path:line:col: ` of the byte `at` of `raw` (a part of the file).
    fn at(&self, raw: &str, at: usize) -> String {
        let base = raw.as_ptr() as usize - self.text.as_ptr() as usize;
        let upto = &self.text[..(base + at).min(self.text.len())];
        let line = upto.matches('\n').count() + 1;
        let col = upto.len() - upto.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("{}:{line}:{col}: ", self.path)
    }
}

/// The text of `raw` without whitespace between tokens.
pub fn minify(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_str, mut esc) = (false, false);
    for c in raw.chars() {
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
            in_str = c == '"';
        }
    }
    out
}

fn members<'a>(
    src: &Source<'_>,
    raw: &'a RawValue,
    what: &str,
) -> Result<Vec<(String, &'a RawValue)>, String> {
    let m = serde_json::from_str::<Members<'a>>(raw.get())
        .map_err(|_| format!("{}{what} must be a JSON object", src.at(raw.get(), 0)))?
        .0;
    for (i, (k, v)) in m.iter().enumerate() {
        if m[..i].iter().any(|(o, _)| o == k) {
            return Err(format!(
                "{}{what}: \"{k}\" appears twice",
                src.at(v.get(), 0)
            ));
        }
    }
    Ok(m)
}

fn string(src: &Source<'_>, raw: &RawValue, what: &str) -> Result<String, String> {
    serde_json::from_str::<String>(raw.get())
        .map_err(|_| format!("{}{what} must be a string", src.at(raw.get(), 0)))
}

fn uint(src: &Source<'_>, raw: &RawValue, what: &str, max: u64) -> Result<u64, String> {
    match serde_json::from_str::<u64>(raw.get()) {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!(
            "{}{what} must be an integer from 0 to {max}",
            src.at(raw.get(), 0)
        )),
    }
}

/// A name the library takes: 1 to 128 characters of `[A-Za-z0-9_.-]`.
fn check_name(name: &str) -> bool {
    (1..=emcp::limits::MCP_MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn c_ident(s: &str) -> String {
    let mut id: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

/// Checks one schema as registration would: its error with the file
/// position of the offending keyword and its path in the schema.
fn schema(src: &Source<'_>, raw: &RawValue, tool: &str, which: &str) -> Result<String, String> {
    let text = raw.get();
    if let Err(e) = compile(text) {
        let mut m = MsgBuf::new();
        e.describe(text, &mut m);
        let at = if e.kind == emcp::schema::SchemaErrorKind::Malformed {
            0
        } else {
            e.at.start as usize
        };
        return Err(format!(
            "{}tool \"{tool}\": {which}: {}",
            src.at(text, at),
            m.as_str()
        ));
    }
    let min = minify(text);
    // The bytes the firmware registers must pass the same checks.
    compile(&min).map_err(|e| {
        format!(
            "{}tool \"{tool}\": {which}: {e:?} once minified",
            src.at(text, 0)
        )
    })?;
    Ok(min)
}

const ANNOTATIONS: [(&str, u32); 4] = [
    ("readOnlyHint", 1),
    ("destructiveHint", 2),
    ("idempotentHint", 4),
    ("openWorldHint", 8),
];

fn tool(src: &Source<'_>, raw: &RawValue) -> Result<Tool, String> {
    let m = members(src, raw, "a tool")?;
    let name = match m.iter().find(|(k, _)| k == "name") {
        Some((_, v)) => string(src, v, "name")?,
        None => return Err(format!("{}a tool needs a \"name\"", src.at(raw.get(), 0))),
    };
    if !check_name(&name) {
        return Err(format!(
            "{}tool \"{name}\": a name is 1 to {} characters of A-Z a-z 0-9 _ . -",
            src.at(raw.get(), 0),
            emcp::limits::MCP_MAX_TOOL_NAME_LEN
        ));
    }
    let mut t = Tool {
        c_name: c_ident(&name),
        name: name.clone(),
        title: None,
        description: None,
        input_schema: String::new(),
        output_schema: None,
        annotations: 0,
        icons: None,
        max_result_len: 0,
        principals: None,
        min_interval_ms: 0,
        idempotency_key: None,
        seal: 0,
        input_program: Vec::new(),
        output_program: None,
        listing: String::new(),
        args: Vec::new(),
        text_len: 0,
    };
    let mut has_input = false;
    let here = |k: &str| format!("tool \"{name}\": {k}");
    for (k, v) in &m {
        match k.as_str() {
            "name" => {}
            "cName" => {
                t.c_name = string(src, v, &here(k))?;
                if c_ident(&t.c_name) != t.c_name || t.c_name.is_empty() {
                    return Err(format!(
                        "{}{}: not a C identifier",
                        src.at(v.get(), 0),
                        here(k)
                    ));
                }
            }
            "title" => t.title = Some(string(src, v, &here(k))?),
            "description" => t.description = Some(string(src, v, &here(k))?),
            "inputSchema" => {
                t.input_schema = schema(src, v, &name, k)?;
                has_input = true;
            }
            "outputSchema" => t.output_schema = Some(schema(src, v, &name, k)?),
            "annotations" => {
                for (a, av) in members(src, v, &here(k))? {
                    let Some(&(_, bit)) = ANNOTATIONS.iter().find(|(n, _)| *n == a) else {
                        return Err(format!(
                            "{}{}.{a}: unknown annotation (readOnlyHint, destructiveHint, idempotentHint, openWorldHint)",
                            src.at(av.get(), 0),
                            here(k)
                        ));
                    };
                    match av.get() {
                        "true" => t.annotations |= bit,
                        "false" => {}
                        _ => {
                            return Err(format!(
                                "{}{}.{a} must be true or false",
                                src.at(av.get(), 0),
                                here(k)
                            ));
                        }
                    }
                }
            }
            "icons" => {
                if !v.get().trim_start().starts_with('[') {
                    return Err(format!(
                        "{}{} must be an array of Icon objects",
                        src.at(v.get(), 0),
                        here(k)
                    ));
                }
                t.icons = Some(minify(v.get()));
            }
            "maxResultLen" => t.max_result_len = uint(src, v, &here(k), u32::MAX as u64)?,
            "principals" => t.principals = Some(string(src, v, &here(k))?),
            "minIntervalMs" => t.min_interval_ms = uint(src, v, &here(k), u32::MAX as u64)? as u32,
            "idempotencyKey" => t.idempotency_key = Some(string(src, v, &here(k))?),
            _ => {
                return Err(format!(
                    "{}{}: unknown member (name, cName, title, description, inputSchema, outputSchema, annotations, icons, maxResultLen, principals, minIntervalMs, idempotencyKey)",
                    src.at(v.get(), 0),
                    here(k)
                ));
            }
        }
    }
    if !has_input {
        return Err(format!(
            "{}tool \"{name}\": an \"inputSchema\" is required",
            src.at(raw.get(), 0)
        ));
    }
    if t.annotations & 1 == 0 && t.max_result_len == 0 {
        return Err(format!(
            "{}tool \"{name}\": maxResultLen: a tool without readOnlyHint must declare the most bytes its result writes",
            src.at(raw.get(), 0)
        ));
    }
    t.seal = seal(&t.input_schema, t.output_schema.as_deref());
    let program = |text: &str, which: &str| {
        let mut prog = vec![0u8; u16::MAX as usize];
        let n = emit(text, &mut prog).map_err(|e| {
            format!(
                "{}tool \"{name}\": {which}: {}",
                src.at(raw.get(), 0),
                e.reason
            )
        })?;
        prog.truncate(n);
        Ok::<_, String>(prog)
    };
    t.input_program = program(&t.input_schema, "inputSchema")?;
    t.args = crate::args::members(&t.input_program)
        .map_err(|e| format!("{}tool \"{name}\": {e}", src.at(raw.get(), 0)))?;
    t.text_len = emcp::schema::typed::text_len(&t.input_program);
    t.output_program = match &t.output_schema {
        Some(o) => Some(program(o, "outputSchema")?),
        None => None,
    };
    t.listing = listing(&t).map_err(|e| format!("{}tool \"{name}\": {e}", src.at(raw.get(), 0)))?;
    Ok(t)
}

/// The tool's `tools/list` entry, written by the library's own writer for
/// the tool registered from its texts (so a built tool lists byte for byte
/// as that one does).
fn listing(t: &Tool) -> Result<String, String> {
    let def = emcp::registry::Tool {
        title: t.title.as_deref(),
        description: t.description.as_deref(),
        output_schema: t.output_schema.as_deref(),
        annotations: t.annotations,
        icons: t.icons.as_deref(),
        ..emcp::registry::Tool::new(
            &t.name,
            &t.input_schema,
            emcp::handler::Handler::Rust(|_, _| 0),
        )
    };
    let mut buf = vec![0u8; 1 << 20];
    let n = emcp::registry::listing(&def, &mut buf)
        .map_err(|e| format!("its tools/list entry cannot be written: {e:?}"))?;
    buf.truncate(n);
    String::from_utf8(buf).map_err(|e| e.to_string())
}

/// Reads and checks a whole tools file.
pub fn read(src: &Source<'_>) -> Result<ToolsFile, String> {
    let top: &RawValue = serde_json::from_str(src.text)
        .map_err(|e| format!("{}:{}:{}: not JSON: {e}", src.path, e.line(), e.column()))?;
    let mut f = ToolsFile {
        prefix: None,
        tools: Vec::new(),
    };
    for (k, v) in members(src, top, "the tools file")? {
        match k.as_str() {
            "prefix" => {
                let p = string(src, v, "prefix")?;
                if c_ident(&p) != p || p.is_empty() {
                    return Err(format!("{}prefix: not a C identifier", src.at(v.get(), 0)));
                }
                f.prefix = Some(p);
            }
            "tools" => {
                let list: Vec<&RawValue> = serde_json::from_str(v.get())
                    .map_err(|_| format!("{}tools must be an array", src.at(v.get(), 0)))?;
                for raw in list {
                    let t = tool(src, raw)?;
                    if let Some(o) = f.tools.iter().find(|o| o.c_name == t.c_name) {
                        return Err(format!(
                            "{}tool \"{}\": its C name {} is taken by tool \"{}\" (set \"cName\")",
                            src.at(raw.get(), 0),
                            t.name,
                            t.c_name,
                            o.name
                        ));
                    }
                    f.tools.push(t);
                }
            }
            _ => {
                return Err(format!(
                    "{}\"{k}\": unknown member (prefix, tools)",
                    src.at(v.get(), 0)
                ));
            }
        }
    }
    if f.tools.is_empty() {
        return Err(format!("{}: no tools", src.path));
    }
    Ok(f)
}
