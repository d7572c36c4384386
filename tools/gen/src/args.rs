//! A tool's typed argument struct in C: one member per top-level argument,
//! typed by the library's own rule (`emcp::schema::typed::kind`), a `has_`
//! flag before each argument that may be absent, a C enum per string
//! `enum`, the layout table the core fills the struct by, and the wrapper
//! that fills it before the tool's typed callback runs.

use emcp::schema::typed::{self, ArgKind};
use std::fmt::Write;

/// C keywords (C11 and C23) a member may not be named.
const KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "true",
    "typedef",
    "typeof",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "nullptr",
    "alignas",
    "alignof",
    "constexpr",
    "static_assert",
    "thread_local",
];

/// `s` as a C identifier: other characters than A-Z a-z 0-9 as `_`, a
/// leading digit or a keyword with `_` added.
pub fn ident(s: &str) -> String {
    let mut id: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    if KEYWORDS.contains(&id.as_str()) {
        id.push('_');
    }
    id
}

/// A JSON string's inner text (as a schema writes it) decoded.
fn decoded(escaped: &[u8]) -> String {
    let quoted = format!("\"{}\"", String::from_utf8_lossy(escaped));
    serde_json::from_str(&quoted).unwrap_or_else(|_| String::from_utf8_lossy(escaped).into())
}

/// One member of the struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The argument's name, decoded.
    pub name: String,
    /// Its C member name.
    pub c: String,
    pub kind: ArgKind,
    pub always: bool,
    /// The enum's values, decoded (for `ArgKind::Enum`, or an array of them).
    pub values: Vec<String>,
    /// An array's element kind (for `ArgKind::Array`).
    pub item: Option<ArgKind>,
}

/// The members of the tool whose argument program is `prog`; an error
/// when two arguments would get one C name.
pub fn members(prog: &[u8]) -> Result<Vec<Member>, String> {
    let mut out: Vec<Member> = Vec::new();
    for m in typed::members(prog) {
        let name = decoded(m.name);
        let c = ident(&name);
        let taken = |n: &str| out.iter().any(|o| o.c == n || format!("has_{}", o.c) == n);
        if taken(&c) || taken(&format!("has_{c}")) {
            return Err(format!(
                "inputSchema: properties.{name}: its C member name {c} is taken by another argument"
            ));
        }
        let (item, values) = match m.kind {
            ArgKind::Array { item, .. } => {
                let k = typed::item_kind(prog, item);
                (
                    Some(k),
                    typed::item_enum(prog, item)
                        .map(|v| typed::enum_values(v).map(decoded).collect()),
                )
            }
            _ => (None, None),
        };
        out.push(Member {
            values: values.unwrap_or_else(|| typed::enum_values(m.values).map(decoded).collect()),
            name,
            c,
            kind: m.kind,
            always: m.always,
            item,
        });
    }
    Ok(out)
}

fn int_c(min: i64, max: i64) -> &'static str {
    match typed::int_type(min, max) {
        (1, false) => "uint8_t",
        (2, false) => "uint16_t",
        (4, false) => "uint32_t",
        (1, true) => "int8_t",
        (2, true) => "int16_t",
        (4, true) => "int32_t",
        _ => "int64_t",
    }
}

/// The declarations of one tool in the header: its enums, its struct, the
/// text area's size, the typed callback the firmware writes and the
/// wrapper to register.
pub fn declare(
    h: &mut String,
    prefix: &str,
    tool: &str,
    c_name: &str,
    members: &[Member],
    text_len: usize,
) {
    let up = format!("{prefix}_{c_name}").to_ascii_uppercase();
    let st = format!("{prefix}_{c_name}_args");
    for m in members {
        if matches!(m.kind, ArgKind::Enum { .. }) || matches!(m.item, Some(ArgKind::Enum { .. })) {
            let _ = writeln!(h, "/** The values of {tool}'s argument \"{}\". */", m.name);
            let _ = writeln!(h, "enum {prefix}_{c_name}_{} {{", m.c);
            let mut used: Vec<String> = Vec::new();
            for (i, v) in m.values.iter().enumerate() {
                let mut n = ident(v).trim_matches('_').to_ascii_uppercase();
                if n.is_empty() || used.contains(&n) {
                    n = format!("VALUE_{i}");
                }
                used.push(n.clone());
                let _ = writeln!(
                    h,
                    "    {up}_{}_{n} = {i}, /* \"{}\" */",
                    m.c.to_ascii_uppercase(),
                    v.escape_default()
                );
            }
            let _ = writeln!(h, "}};\n");
        }
    }
    let _ = writeln!(
        h,
        "/** {tool}'s arguments, filled from the call after they passed the\n * schema (mcp_call_args): a member per argument, its has_ flag false when\n * it was not sent and has no default. */\nstruct {st} {{"
    );
    if members.is_empty() {
        let _ = writeln!(h, "    uint8_t none_; /* no arguments */");
    }
    for m in members {
        if !m.always {
            let _ = writeln!(h, "    bool has_{};", m.c);
        }
        let (ty, note) = match (m.kind, m.item) {
            (ArgKind::Array { max_items, .. }, Some(item)) => {
                let (ity, inote) = c_type(prefix, c_name, m, item, true);
                let count = if typed::count_size(max_items) == 1 {
                    "uint8_t"
                } else {
                    "uint16_t"
                };
                (
                    format!(
                        "struct {{\n        {ity} items[{max_items}];{inote}\n        {count} count;\n    }}"
                    ),
                    format!(" /* at most {max_items} */"),
                )
            }
            (k, _) => c_type(prefix, c_name, m, k, false),
        };
        let _ = writeln!(h, "    {ty} {};{note}", m.c);
    }
    let _ = writeln!(h, "}};\n");
    declare_callback(h, prefix, tool, c_name, members.is_empty(), text_len);
}

/// The C type of a member (or, `in_array`, of an array's element) of kind
/// `k`, with a comment.
fn c_type(prefix: &str, c_name: &str, m: &Member, k: ArgKind, in_array: bool) -> (String, String) {
    {
        match k {
            ArgKind::Bool => ("bool".to_string(), String::new()),
            ArgKind::Int { min, max } => {
                let lo = if min == i64::MIN {
                    "".into()
                } else {
                    format!("{min}")
                };
                let hi = if max == i64::MAX {
                    "".into()
                } else {
                    format!("{max}")
                };
                (int_c(min, max).to_string(), format!(" /* {lo}..{hi} */"))
            }
            ArgKind::Number => (
                "mcp_decimal_t".to_string(),
                " /* value x 10^exp10 */".to_string(),
            ),
            ArgKind::Enum { count } if in_array => (
                if count <= 256 { "uint8_t" } else { "uint16_t" }.to_string(),
                format!(" /* enum {prefix}_{c_name}_{} */", m.c),
            ),
            ArgKind::Enum { .. } => (format!("enum {prefix}_{c_name}_{}", m.c), String::new()),
            ArgKind::Str { max_len } => (
                "mcp_str_t".to_string(),
                format!(" /* decoded, at most {max_len} characters */"),
            ),
            ArgKind::Array { .. } | ArgKind::Json => (
                "mcp_str_t".to_string(),
                " /* its JSON text as sent */".to_string(),
            ),
        }
    }
}

/// The text area's size, the typed callback's prototype and the wrapper.
fn declare_callback(
    h: &mut String,
    prefix: &str,
    tool: &str,
    c_name: &str,
    no_members: bool,
    text_len: usize,
) {
    let up = format!("{prefix}_{c_name}").to_ascii_uppercase();
    let st = format!("{prefix}_{c_name}_args");
    let _ = writeln!(
        h,
        "/** Bytes where {tool}'s escaped strings are decoded (4 per character of maxLength). */\n#define {up}_TEXT_LEN {text_len}\n"
    );
    let _ = writeln!(
        h,
        "/** {tool}'s typed callback: the firmware defines it. */\nint {prefix}_{c_name}(const struct {st} *args, const mcp_call_t *call, mcp_result_t *result, void *user);\n"
    );
    let fill = if no_members {
        "    int rc = 0;\n".to_string()
    } else if text_len == 0 {
        "    int rc = mcp_call_args(call, &args, sizeof args, NULL, 0);\n".to_string()
    } else {
        format!(
            "    char text[{up}_TEXT_LEN];\n    int rc = mcp_call_args(call, &args, sizeof args, text, sizeof text);\n"
        )
    };
    let init = if no_members { " = {0}" } else { "" };
    let _ = writeln!(
        h,
        "/** The mcp_tool_fn to register {tool} with: fills its arguments and runs\n * {prefix}_{c_name}. */\nstatic inline int {prefix}_{c_name}_call(const mcp_call_t *call, mcp_result_t *result, void *user)\n{{\n    struct {st} args{init};\n{fill}    return rc != 0 ? rc : {prefix}_{c_name}(&args, call, result, user);\n}}\n"
    );
}

/// The layout table in the source, and the `mcp_tool_t` fields naming it.
pub fn define(c: &mut String, prefix: &str, c_name: &str, members: &[Member]) -> String {
    let st = format!("struct {prefix}_{c_name}_args");
    if members.is_empty() {
        return String::new();
    }
    let _ = writeln!(c, "static const mcp_arg_slot_t {c_name}_args[] = {{");
    for m in members {
        let present = if m.always {
            "MCP_ARG_ALWAYS".to_string()
        } else {
            format!("offsetof({st}, has_{})", m.c)
        };
        let kind = match m.kind {
            ArgKind::Bool => "MCP_ARG_BOOL",
            ArgKind::Int { .. } => "MCP_ARG_INT",
            ArgKind::Number => "MCP_ARG_NUMBER",
            ArgKind::Enum { .. } => "MCP_ARG_ENUM",
            ArgKind::Str { .. } => "MCP_ARG_STR",
            ArgKind::Array { .. } => "MCP_ARG_ARRAY",
            ArgKind::Json => "MCP_ARG_JSON",
        };
        let _ = writeln!(
            c,
            "    {{offsetof({st}, {0}), sizeof(({st} *)0)->{0}, {present}, {kind}}},",
            m.c
        );
    }
    let _ = writeln!(c, "}};");
    format!(
        "            .args = {c_name}_args,\n            .args_len = {},\n            .args_size = sizeof({st}),\n",
        members.len()
    )
}
