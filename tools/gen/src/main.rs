//! emcp-gen: a firmware's tools file → its tool table in C.
//!
//! Runs at build time on the build machine (CMake's `emcp_generate_tools`).
//! Every schema is checked by the library's own checker here, and each tool
//! is written built: its `tools/list` entry (the library's own writer) and
//! its schemas compiled to argument programs, so a firmware (the minimal
//! profile has no checker and no text reader) registers exactly what was
//! checked and runs it without reading schema text.

mod args;
mod c;
mod file;

use std::process::ExitCode;

const USAGE: &str = "\
Usage: emcp-gen TOOLS.json OUT_DIR [--prefix NAME]

Reads a tools file and writes OUT_DIR/NAME_tools.h and OUT_DIR/NAME_tools.c:
the tool table as constants (const mcp_tool_t NAME_tools[], indexed by
NAME_TOOL_<TOOL>), for mcp_server_add_tool. Each tool is built: its
tools/list entry as finished text (listing), its schemas compiled to
argument programs (input_program, output_program) that every call runs,
and its schema texts without whitespace (a library with the checker
compares the programs with them) and their seal.

Every schema passes the library's schema checker first (unsupported
keywords, contradictory bounds, defaults their own schema refuses); a
refusal names the file, line and column, the tool and the keyword's path
in its schema, and nothing is written. Files whose contents would not
change are left as they are (no rebuild).

The tools file:
  {\"prefix\": \"greenhouse\",
   \"tools\": [{\"name\": \"set_vent\", \"description\": \"...\",
              \"inputSchema\": {\"type\": \"object\", ...},
              \"outputSchema\": {...}, \"annotations\": {\"idempotentHint\": true},
              \"icons\": [...], \"maxResultLen\": 129,
              \"principals\": \"operator\", \"minIntervalMs\": 2000,
              \"idempotencyKey\": \"key\", \"cName\": \"set_vent\"}]}
Members are those of an MCP Tool plus the mcp_tool_t settings: maxResultLen
(required without readOnlyHint), principals, minIntervalMs, idempotencyKey
(left out when NAME_NO_POLICY is defined), cName (the C name, by default
the tool's name with other characters than A-Z a-z 0-9 as _; two entries
may share a name with different cNames). Unknown members are refused.

Options:
  --prefix NAME   the C prefix (default: the file's \"prefix\", else its name)
  -h, --help      this text

Exit status: 0 written (or unchanged), 1 the tools file is refused, 2 usage
or I/O error.
";

fn write_if_changed(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let mut pos = Vec::new();
    let mut prefix = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--prefix" => prefix = it.next().cloned(),
            _ if a.starts_with('-') => {
                eprintln!("emcp-gen: unknown option {a}\n\n{USAGE}");
                return ExitCode::from(2);
            }
            _ => pos.push(a.clone()),
        }
    }
    let [tools_path, out_dir] = pos.as_slice() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(tools_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("emcp-gen: {tools_path}: {e}");
            return ExitCode::from(2);
        }
    };
    let src = file::Source {
        path: tools_path,
        text: &text,
    };
    let f = match file::read(&src) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let stem = std::path::Path::new(tools_path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("app")
        .trim_end_matches("_tools")
        .to_string();
    let prefix = prefix.or(f.prefix.clone()).unwrap_or(stem);
    if prefix.is_empty()
        || !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        || prefix.starts_with(|c: char| c.is_ascii_digit())
    {
        eprintln!("emcp-gen: prefix {prefix:?} is not a C identifier");
        return ExitCode::from(2);
    }
    let from = std::path::Path::new(tools_path)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(tools_path);
    let (h, c) = c::write(&f, &prefix, from);
    let dir = std::path::Path::new(out_dir);
    let done = std::fs::create_dir_all(dir)
        .and_then(|_| write_if_changed(&dir.join(format!("{prefix}_tools.h")), &h))
        .and_then(|_| write_if_changed(&dir.join(format!("{prefix}_tools.c")), &c));
    if let Err(e) = done {
        eprintln!("emcp-gen: {out_dir}: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<file::ToolsFile, String> {
        file::read(&file::Source {
            path: "t.json",
            text,
        })
    }

    #[test]
    fn a_refused_schema_names_file_line_tool_and_keyword() {
        let e = read("{\"tools\": [\n {\"name\": \"a\", \"annotations\": {\"readOnlyHint\": true},\n  \"inputSchema\": {\"type\": \"object\",\n    \"properties\": {\"p\": {\"pattern\": \"x\"}}}}]}").unwrap_err();
        assert_eq!(
            e,
            "t.json:4:26: tool \"a\": inputSchema: properties.p.pattern: unsupported keyword"
        );
        let e = read("{\"tools\": [{\"name\": \"b\", \"maxResultLen\": 9, \"inputSchema\":\n{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"integer\",\"maximum\":3,\"default\":9}}}}]}").unwrap_err();
        assert!(
            e.starts_with("t.json:2:")
                && e.contains(
                    "tool \"b\": inputSchema: properties.r.default: 9 is above maximum 3"
                ),
            "{e}"
        );
    }

    #[test]
    fn registration_rules_hold_before_the_build() {
        let e = read(r#"{"tools":[{"name":"m","inputSchema":{"type":"object"}}]}"#).unwrap_err();
        assert!(e.contains("maxResultLen"), "{e}");
        let e = read(
            r#"{"tools":[{"name":"bad name","maxResultLen":1,"inputSchema":{"type":"object"}}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("a name is 1 to 128"), "{e}");
        let e = read(r#"{"tools":[{"name":"x","maxResultLen":1,"inputSchema":{"type":"object"},"colour":1}]}"#).unwrap_err();
        assert!(
            e.contains("\"colour\"") || e.contains("colour: unknown member"),
            "{e}"
        );
        let e = read(r#"{"tools":[{"name":"x","maxResultLen":1,"inputSchema":{"type":"object"}},{"name":"x","maxResultLen":1,"inputSchema":{"type":"object"}}]}"#).unwrap_err();
        assert!(e.contains("C name x is taken"), "{e}");
        assert!(read(r#"{"tools":[{"name":"x","maxResultLen":1,"inputSchema":{"type":"object"}},{"name":"x","cName":"x2","maxResultLen":1,"inputSchema":{"type":"object"}}]}"#).is_ok());
    }

    #[test]
    fn texts_are_minified_and_sealed_as_the_library_seals_them() {
        let f = read(r#"{"tools":[{"name":"v","maxResultLen":5,"inputSchema":{ "type" : "object", "properties": {"s": {"const": "a b\" c"}}}}]}"#).unwrap();
        let t = &f.tools[0];
        assert_eq!(
            t.input_schema,
            r#"{"type":"object","properties":{"s":{"const":"a b\" c"}}}"#
        );
        assert_eq!(t.seal, emcp::schema::seal(&t.input_schema, None));
    }

    /// Each tool is written built: its listing is the library's own entry
    /// for the same tool from its texts, its programs are exactly what the
    /// library compiles the texts to (what registration with the checker
    /// compares), and the C names them.
    #[test]
    fn tools_are_written_built() {
        let f = read(r#"{"prefix":"p","tools":[{"name":"v","title":"V","maxResultLen":5,"annotations":{"idempotentHint":true},"inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":3}}},"outputSchema":{"type":"object"}}]}"#).unwrap();
        let t = &f.tools[0];
        assert_eq!(
            t.listing,
            r#"{"name":"v","title":"V","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":3}}},"outputSchema":{"type":"object"},"annotations":{"title":"V","readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#
        );
        assert_eq!(
            emcp::schema::matches(&t.input_schema, &t.input_program),
            Ok(true)
        );
        let out = t.output_program.as_deref().expect("an output program");
        assert_eq!(
            emcp::schema::matches("{\"type\":\"object\"}", out),
            Ok(true)
        );
        let (_, c) = c::write(&f, "p", "t.json");
        for want in [
            ".listing = v_listing,",
            ".input_program = v_input_program,",
            ".input_program_len = sizeof v_input_program,",
            ".output_program = v_output_program,",
        ] {
            assert!(c.contains(want), "{want} missing from:\n{c}");
        }
    }

    /// Each tool gets a struct typed by the library's rule, a has_ flag
    /// where an argument may be absent, a C enum per string enum, its
    /// layout by offsetof/sizeof, and the wrapper to register.
    #[test]
    fn typed_arguments_are_declared() {
        let f = read(r#"{"tools":[{"name":"v","maxResultLen":5,"inputSchema":{"type":"object","required":["p"],"properties":{"p":{"type":"integer","minimum":-5,"maximum":5},"int":{"type":"boolean"},"s":{"enum":["a-b","a_b",""],"type":"string"},"k":{"type":"string","maxLength":3},"o":{"type":"array"}}}}]}"#).unwrap();
        let (h, c) = c::write(&f, "p", "t.json");
        for want in [
            "struct p_v_args {\n    int8_t p; /* -5..5 */\n    bool has_int_;\n    bool int_;\n",
            "    P_V_S_A_B = 0, /* \"a-b\" */\n    P_V_S_VALUE_1 = 1,",
            "    P_V_S_VALUE_2 = 2,",
            "    bool has_k;\n    mcp_str_t k; /* decoded, at most 3 characters */",
            "    mcp_str_t o; /* its JSON text as sent */",
            "#define P_V_TEXT_LEN 12",
            "int p_v(const struct p_v_args *args, const mcp_call_t *call, mcp_result_t *result, void *user);",
            "static inline int p_v_call(",
        ] {
            assert!(h.contains(want), "{want} missing from:\n{h}");
        }
        for want in [
            "{offsetof(struct p_v_args, p), sizeof((struct p_v_args *)0)->p, MCP_ARG_ALWAYS, MCP_ARG_INT},",
            "offsetof(struct p_v_args, has_k), MCP_ARG_STR}",
            ".args = v_args,\n            .args_len = 5,\n            .args_size = sizeof(struct p_v_args),",
        ] {
            assert!(c.contains(want), "{want} missing from:\n{c}");
        }
        let e = read(r#"{"tools":[{"name":"v","maxResultLen":5,"inputSchema":{"type":"object","properties":{"a-b":{},"a_b":{}}}}]}"#).unwrap_err();
        assert!(
            e.contains("properties.a_b: its C member name a_b is taken"),
            "{e}"
        );
    }

    #[test]
    fn c_literals_escape_what_c_would_read_otherwise() {
        assert_eq!(c::literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(c::literal("é1"), r#""\303\2511""#);
        assert_eq!(c::literal("??="), r#""\?\?=""#);
        assert_eq!(c::literal("\n"), r#""\012""#);
    }
}
