//! Each rule is written once: the header's Threading paragraph (cbindgen/emcp.toml,
//! copied into include/emcp.h) is the text; the README quotes it word for
//! word, and the other documents point to it instead of restating it.
//!
//! Facts and figures the documents quote are read from where they are
//! decided: `mcp_dedup_t`'s size from the header's `MCP_DEDUP_WORDS` (and the
//! library's type), `MCP_SERVER_SIZE` from the header's formula for each
//! pointer width, the core's atomics from src/sync.rs, and the stream of the
//! firmware's audit lines (scripts/run-firmware's help) from greenhouse.c.
//!
//! How to run: `cargo test --features std --test doc_rules`.

use std::path::Path;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

/// Words of a text with C comment stars, Markdown emphasis and code marks
/// taken out, so the same sentence compares equal in both.
fn words(text: &str) -> String {
    text.lines()
        .map(|l| l.trim_start().trim_start_matches('*').trim_start())
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['`'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The header's rule: from "Threading:" to the end of the header comment.
fn header_rule() -> String {
    let toml = read("cbindgen/emcp.toml");
    let start = toml
        .find(" * Threading: ")
        .expect("cbindgen/emcp.toml: no ' * Threading: ' paragraph in the header comment");
    let end = start
        + toml[start..]
            .find("*/")
            .expect("unterminated header comment");
    words(&toml[start + " * Threading: ".len()..end])
}

/// The README's paragraph that starts with **Threading**, after its lead-in.
fn readme_rule() -> String {
    let readme = read("README.md");
    let lead = "**Threading** (the header's words): ";
    let start = readme
        .find(lead)
        .unwrap_or_else(|| panic!("README.md: no paragraph starting '{lead}'"));
    let rest = &readme[start + lead.len()..];
    words(&rest[..rest.find("\n\n").unwrap_or(rest.len())])
}

#[test]
fn readme_states_the_threading_rule_in_the_headers_words() {
    let (header, readme) = (header_rule(), readme_rule());
    assert_eq!(
        readme, header,
        "\nREADME.md's **Threading** paragraph must be the header's Threading text (cbindgen/emcp.toml) word for word"
    );
}

#[test]
fn the_generated_header_carries_the_rule() {
    assert!(
        words(&read("include/emcp.h")).contains(&header_rule()),
        "include/emcp.h lacks cbindgen/emcp.toml's Threading text: regenerate it with cbindgen"
    );
}

/// Other documents must not restate the rule in their own words: the
/// phrases below are the old paraphrases that disagreed with the header.
#[test]
fn no_document_paraphrases_the_rule() {
    for doc in [
        "README.md",
        "docs/firmware.md",
        "docs/freertos.md",
        "docs/zephyr.md",
    ] {
        let text = words(&read(doc));
        for phrase in [
            "No emcp function is for interrupt handlers",
            "the framers aside",
            "framers aside",
            "(or its ISR/DMA callback)",
        ] {
            assert!(
                !text.contains(phrase),
                "{doc} restates the Threading rule: '{phrase}'"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Figures and facts the documents quote, read from where they are decided.

/// Every document a user reads: the README and all of docs/ (recursively).
fn documents() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec!["README.md".to_string()];
    walk(&root.join("docs"), root, &mut docs);
    docs
}

/// The `#define NAME value` lines of the public headers (the last one wins
/// for a name defined in both branches of an `#if`, so callers that need a
/// particular branch use [`define_in_branch`]).
fn header_defines() -> std::collections::BTreeMap<String, String> {
    let mut map = std::collections::BTreeMap::new();
    for h in ["include/emcp_limits.h", "include/emcp_errors.h"] {
        for line in read(h).lines() {
            if let Some(rest) = line.strip_prefix("#define ") {
                if let Some((name, value)) = rest.split_once(' ') {
                    map.insert(name.to_string(), value.trim().to_string());
                }
            }
        }
    }
    map
}

/// The value of `#define NAME` inside an `#if COND` block of `header`.
fn define_in_branch(header: &str, cond: &str, name: &str) -> String {
    let text = read(header);
    let open = format!("#if {cond}\n");
    assert!(text.contains(&open), "{header}: no '#if {cond}' block");
    let prefix = format!("#define {name} ");
    text.match_indices(&open)
        .find_map(|(at, _)| {
            let block = &text[at..at + text[at..].find("#endif").expect("unterminated #if")];
            block.lines().find_map(|l| l.strip_prefix(&prefix))
        })
        .unwrap_or_else(|| panic!("{header}: no #define {name} under #if {cond}"))
        .trim()
        .to_string()
}

/// Evaluates a header's integer expression (`+ - * /`, parentheses, numbers
/// and the names of other `#define`s), as the C preprocessor would.
fn eval(expr: &str, defs: &std::collections::BTreeMap<String, String>) -> i64 {
    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for ch in s.chars() {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                cur.push(ch);
            } else {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                if !ch.is_whitespace() {
                    out.push(ch.to_string());
                }
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }
    struct P<'a> {
        t: Vec<String>,
        i: usize,
        defs: &'a std::collections::BTreeMap<String, String>,
    }
    impl P<'_> {
        fn peek(&self) -> Option<&str> {
            self.t.get(self.i).map(String::as_str)
        }
        fn sum(&mut self) -> i64 {
            let mut v = self.product();
            while let Some(op @ ("+" | "-")) = self.peek() {
                let plus = op == "+";
                self.i += 1;
                let r = self.product();
                v = if plus { v + r } else { v - r };
            }
            v
        }
        fn product(&mut self) -> i64 {
            let mut v = self.atom();
            while let Some(op @ ("*" | "/")) = self.peek() {
                let times = op == "*";
                self.i += 1;
                let r = self.atom();
                v = if times { v * r } else { v / r };
            }
            v
        }
        fn atom(&mut self) -> i64 {
            let t = self.t[self.i].clone();
            self.i += 1;
            if t == "(" {
                let v = self.sum();
                assert_eq!(self.peek(), Some(")"), "unbalanced expression");
                self.i += 1;
                v
            } else if let Ok(n) = t.trim_end_matches(['u', 'U']).parse() {
                n
            } else {
                let def = self
                    .defs
                    .get(&t)
                    .unwrap_or_else(|| panic!("no #define {t} in the headers"));
                eval(def, self.defs)
            }
        }
    }
    let mut p = P {
        t: tokens(expr),
        i: 0,
        defs,
    };
    let v = p.sum();
    assert_eq!(p.i, p.t.len(), "cannot evaluate '{expr}'");
    v
}

/// A figure as documents write it ("4,832" or "4832").
fn figure(text: &str) -> i64 {
    text.replace(',', "")
        .parse()
        .unwrap_or_else(|e| panic!("'{text}' is not a figure: {e}"))
}

/// Every figure ("4,832") that `unit` follows at most `span` bytes after an
/// `anchor` in `text`, with the text from the anchor to the unit. A figure
/// that is a factor ("× 8 bytes") is not one.
fn figures_after(text: &str, anchor: &str, span: usize, unit: &str) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(anchor) {
        let start = from + at + anchor.len();
        from = start;
        let mut i = start;
        while i < text.len() && i < start + span {
            let rest = &text[i..];
            let len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == ','))
                .unwrap_or(rest.len());
            let prev = text[..i].chars().next_back();
            if len > 0
                && rest.as_bytes()[0].is_ascii_digit()
                && !prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !text[..i].ends_with("× ")
            {
                if rest[len..].starts_with(unit) {
                    out.push((
                        figure(&rest[..len]),
                        text[start - anchor.len()..i + len + unit.len()].to_string(),
                    ));
                }
                i += len;
            } else {
                i += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    out
}

/// `mcp_dedup_t`'s size, wherever a document quotes it, is the header's
/// `MCP_DEDUP_WORDS` × 8, which is also the Rust type's `size_of`.
#[test]
fn documented_dedup_table_size_is_the_headers() {
    let defs = header_defines();
    let dedup_words = eval(&defs["MCP_DEDUP_WORDS"], &defs);
    let size = usize::try_from(dedup_words * 8).unwrap();
    assert_eq!(
        size,
        core::mem::size_of::<emcp::ffi::types::mcp_dedup_t>(),
        "include/emcp_limits.h's MCP_DEDUP_WORDS disagrees with the library's mcp_dedup_t"
    );
    let mut quoted = 0;
    for doc in documents() {
        let text = words(&read(&doc));
        for (n, at) in figures_after(&text, "mcp_dedup_t", 24, " bytes") {
            quoted += 1;
            assert_eq!(
                n, size as i64,
                "{doc}: '{at}' but sizeof(mcp_dedup_t) is {size} bytes (MCP_DEDUP_WORDS × 8 in include/emcp_limits.h)"
            );
        }
    }
    assert!(
        quoted > 0,
        "no document quotes mcp_dedup_t's size any more: drop or retarget this test"
    );
}

/// `MCP_SERVER_SIZE` depends on the target's pointer width (the header picks
/// the formula by `UINTPTR_MAX`): the documents say so, and the figures they
/// quote are the header's formulas at the default limits.
#[test]
fn documented_server_size_follows_the_target() {
    let limits = "include/emcp_limits.h";
    let defs = header_defines();
    let text = read(limits);
    assert!(
        text.contains("#if UINTPTR_MAX > 0xFFFFFFFFu\n#define EMCP_PTR64 1"),
        "{limits} no longer picks the layout by UINTPTR_MAX: revisit the documents and this test"
    );
    let size32 = eval(
        &define_in_branch(limits, "!defined(EMCP_PTR64)", "MCP_SERVER_SIZE"),
        &defs,
    );
    let size64 = eval(
        &define_in_branch(limits, "defined(EMCP_PTR64)", "MCP_SERVER_SIZE"),
        &defs,
    );
    assert!(size32 < size64);
    if cfg!(target_pointer_width = "64") {
        assert_eq!(size64, emcp::limits::MCP_SERVER_SIZE as i64);
    }
    let mut quoted = 0;
    for doc in documents() {
        let text = words(&read(&doc));
        for phrase in ["sized for 64-bit hosts", "sized for 64-bit targets"] {
            assert!(
                !text.contains(phrase),
                "{doc} says mcp_server_t is '{phrase}': the header picks the 32- or 64-bit layout by UINTPTR_MAX"
            );
        }
        for (anchor, span, unit, want) in [
            ("MCP_SERVER_SIZE", 8, " on 32-bit targets", size32),
            (
                "MCP_SERVER_SIZE",
                8,
                " bytes on these 32-bit targets",
                size32,
            ),
            ("MCP_SERVER_SIZE", 160, " on 64-bit hosts", size64),
        ] {
            for (n, at) in figures_after(&text, anchor, span, unit) {
                quoted += 1;
                assert_eq!(
                    n, want,
                    "{doc}: '{at}' but include/emcp_limits.h's formula gives {want} at the default limits"
                );
            }
        }
    }
    assert!(
        quoted >= 3,
        "the documents' MCP_SERVER_SIZE figures were not found ({quoted})"
    );
}

/// The core does use atomics (src/sync.rs: one 32-bit compare-and-swap and
/// atomic flags); on thumbv6m its claims need `mcp_server_set_critical`. No
/// document may say otherwise.
#[test]
fn documents_describe_the_cores_atomics_as_the_code_does() {
    let sync = read("src/sync.rs");
    assert!(
        sync.contains("compare_exchange(") && sync.contains("AtomicU32"),
        "src/sync.rs no longer uses compare-and-swap: revisit the documents and this test"
    );
    assert!(
        read("include/emcp_policy.h").contains("int mcp_server_set_critical("),
        "include/emcp_policy.h no longer declares mcp_server_set_critical"
    );
    for doc in documents() {
        let text = words(&read(&doc));
        for phrase in ["no atomics", "uses no atomic", "without atomics"] {
            assert!(
                !text.contains(phrase),
                "{doc} says '{phrase}', but src/sync.rs claims runs and keys by compare-and-swap"
            );
        }
    }
    // Where firmware.md explains thumbv6m's missing compare-and-swap, it
    // names what stands in for it.
    let fw = words(&read("docs/firmware.md"));
    let at = fw
        .find("but no compare-and-swap")
        .or_else(|| fw.find("has no compare-and-swap"))
        .expect("docs/firmware.md no longer explains thumbv6m's missing compare-and-swap");
    let sentence_end = at + fw[at..].find(". ").unwrap_or(fw.len() - at);
    assert!(
        fw[at..sentence_end].contains("mcp_server_set_critical"),
        "docs/firmware.md: thumbv6m's missing compare-and-swap must name mcp_server_set_critical: '{}'",
        &fw[at..sentence_end]
    );
}

/// `scripts/run-firmware`'s help says where the firmware's audit lines go:
/// the stream greenhouse.c's audit hook writes them to (newlib's rdimon maps
/// the firmware's stderr to QEMU's). tests/bridge checks the same on a
/// running firmware.
#[test]
fn run_firmware_help_names_the_audit_lines_stream() {
    let gh = read("examples-c/greenhouse/greenhouse.c");
    let at = gh
        .find("static void greenhouse_audit(")
        .expect("greenhouse.c has no greenhouse_audit");
    let body = &gh[at..at + gh[at..].find("\n}\n").expect("unterminated function")];
    let stream = ["stderr", "stdout"]
        .into_iter()
        .find(|s| {
            body.contains(&format!(
                "fwrite(line, 1, at < sizeof line ? at : sizeof line - 1, {s})"
            ))
        })
        .expect("greenhouse_audit no longer writes its line with fwrite: update this test");
    let help: String = read("scripts/run-firmware")
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let help = words(&help.replace('#', " "));
    let at = help
        .find("audit lines")
        .expect("scripts/run-firmware's help no longer mentions the audit lines");
    let rest = &help[at..];
    let claimed = ["stdout", "stderr"]
        .into_iter()
        .filter_map(|s| rest.find(s).map(|i| (i, s)))
        .min()
        .map(|(_, s)| s);
    assert_eq!(
        claimed,
        Some(stream),
        "scripts/run-firmware's help puts the audit lines on {claimed:?}, but greenhouse.c writes them to {stream}: '{}'",
        &rest[..rest.len().min(160)]
    );
}
