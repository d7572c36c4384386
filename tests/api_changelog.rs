//! A change to the public C headers' declarations needs a CHANGELOG entry.
//!
//! How to run: `cargo test --features std --test api_changelog`.
//!
//! `api.lock` records every public declaration of `include/*.h` as it
//! was at CHANGELOG.md's newest dated section (its `# baseline:` line names
//! it): each function with its signature, each macro with its value, each type
//! and each struct member with its type. The test extracts the same set from
//! the headers as they are now and compares: every declaration added,
//! removed or changed since the baseline must be named in backticks in
//! CHANGELOG.md's `## [Unreleased]` section (`` `mcp_server_handle` ``,
//! `` `mcp_tool_t.max_result_len` ``, `` `MCP_MAX_SCHEMA_*` `` for all names
//! with that prefix; a new or removed struct covers its members). Nothing
//! here reads git history, so a shallow clone checks the same.
//!
//! When a dated section is cut (`## [Unreleased]` renamed to `## [DATE]`, a new
//! empty `## [Unreleased]` above it), rewrite the lock for the new baseline:
//! `EMCP_WRITE_API_LOCK=1 cargo test --features std --test api_changelog`.
//! It refuses while the new section does not name every change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Where the record lives, and the headers it covers.
const LOCK: &str = "api.lock";
const HEADER_DIR: &str = "include";
const CHANGELOG: &str = "CHANGELOG.md";
const UNRELEASED: &str = "## [Unreleased]";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

/// Declarations: name -> the set of their normalised texts (a macro defined
/// in both branches of an `#if` has two).
type Decls = BTreeMap<String, BTreeSet<String>>;

/// Every `include/*.h`: (file name, text), sorted by name.
fn headers() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join(HEADER_DIR))
        .expect("cannot list include/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            (name, text)
        })
        .collect();
    out.sort();
    out
}

/// The text without comments (string and character literals kept).
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                // Keep the line structure for the preprocessor pass.
                out.extend(text[i..end].bytes().filter(|&c| c == b'\n'));
                out.push(b' ');
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                out.push(q);
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        out.push(b[i]);
                        i += 1;
                    }
                    out.push(b[i]);
                    i += 1;
                }
                if i < b.len() {
                    out.push(q);
                    i += 1;
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("headers are UTF-8")
}

/// One line of C with its spacing made canonical.
fn norm(s: &str) -> String {
    let mut t = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
        (" ;", ";"),
    ] {
        while t.contains(from) {
            t = t.replace(from, to);
        }
    }
    t.trim().to_string()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier that ends `s` (after trailing array brackets).
fn last_ident(s: &str) -> String {
    let mut s = s.trim_end();
    while s.ends_with(']') {
        s = s[..s.rfind('[').unwrap_or(0)].trim_end();
    }
    let start = s.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
    s[start..].to_string()
}

/// The name a function-pointer declarator `ret (*name)(args)` declares.
fn pointer_name(s: &str) -> Option<String> {
    let at = s.find("(*")? + 2;
    let end = s[at..].find(')')? + at;
    Some(s[at..end].trim().to_string())
}

/// A declaration with the `struct` keyword taken out of the types it names:
/// `struct mcp_server_t *` and `mcp_server_t *` are the same type (every
/// struct is typedef'd to its own name), so respelling one is no change.
fn unstruct(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("struct ") {
        let word_start = rest[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        out.push_str(&rest[..at]);
        if !word_start {
            out.push_str("struct ");
        }
        rest = &rest[at + "struct ".len()..];
    }
    out.push_str(rest);
    out
}

/// The public declarations of one header's text.
fn extract(text: &str) -> Decls {
    let mut decls = Decls::new();
    let mut add = |key: String, text: String| {
        decls.entry(key).or_default().insert(text);
    };
    let text = strip_comments(text);
    let mut lines: Vec<String> = Vec::new();
    // Join continued lines.
    let mut cur = String::new();
    for l in text.lines() {
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
        } else {
            cur.push_str(l);
            lines.push(std::mem::take(&mut cur));
        }
    }
    // The preprocessor pass: conditions in force (None: one that does not
    // qualify a declaration: an include guard, `#ifndef NAME` around a
    // default for NAME), macros, and the C text outside `__cplusplus`.
    let mut conds: Vec<Option<String>> = Vec::new();
    let mut code = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        i += 1;
        let Some(directive) = line.strip_prefix('#') else {
            if !conds.iter().flatten().any(|c| c.contains("__cplusplus")) {
                code.push_str(line);
                code.push('\n');
            }
            continue;
        };
        let directive = norm(directive);
        let (word, rest) = directive.split_once(' ').unwrap_or((&directive, ""));
        match word {
            "if" => conds.push(Some(rest.to_string())),
            "ifdef" => conds.push(Some(format!("defined({rest})"))),
            "ifndef" => {
                // A guard or a default: the next line defines the same name.
                let next = lines.get(i).map(|l| norm(l.trim())).unwrap_or_default();
                let defines_it = next
                    .strip_prefix("#define ")
                    .is_some_and(|d| d.split([' ', '(']).next() == Some(rest));
                conds.push((!defines_it).then(|| format!("!defined({rest})")));
            }
            "else" => {
                if let Some(Some(c)) = conds.pop() {
                    conds.push(Some(format!("!({c})")));
                } else {
                    conds.push(None);
                }
            }
            "elif" => {
                let prev = conds.pop().flatten().unwrap_or_default();
                conds.push(Some(format!("!({prev}) && {rest}")));
            }
            "endif" => {
                conds.pop();
            }
            "define" => {
                let name_end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
                let name = &rest[..name_end];
                if rest[name_end..].trim().is_empty() && name.ends_with("_H") {
                    continue; // the include guard
                }
                let live: Vec<&str> = conds.iter().flatten().map(String::as_str).collect();
                let body = norm(rest);
                let text = if live.is_empty() {
                    format!("#define {body}")
                } else {
                    format!("#if {}: #define {body}", live.join(" && "))
                };
                add(name.to_string(), text);
            }
            _ => {} // include, pragma, error
        }
    }
    // The C pass: statements end at `;` outside braces and parentheses.
    let mut stmts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in code.char_indices() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            ';' if depth == 0 => {
                stmts.push(norm(&code[start..at]));
                start = at + 1;
            }
            _ => {}
        }
    }
    for s in stmts.into_iter().filter(|s| !s.is_empty()) {
        if let (Some(open), Some(close)) = (s.find('{'), s.rfind('}')) {
            // A struct, union or enum with a body, typedef'd or not.
            let head = s[..open].trim();
            let kind = if head.contains("enum") {
                "enum"
            } else if head.contains("union") {
                "union"
            } else {
                "struct"
            };
            let tail = s[close + 1..].trim();
            let name = if tail.is_empty() {
                head.to_string()
            } else {
                last_ident(tail)
            };
            let body = &s[open + 1..close];
            if kind == "enum" {
                add(name.clone(), format!("{kind} {name}"));
                for item in body.split(',').map(norm).filter(|x| !x.is_empty()) {
                    let key = item.split([' ', '=']).next().unwrap().to_string();
                    add(key, format!("{name}: {item}"));
                }
            } else {
                // The type's entry lists its members in order (a reorder is
                // a change); each member is an entry of its own.
                let mut order = Vec::new();
                for member in body.split(';').map(norm).filter(|x| !x.is_empty()) {
                    let field = pointer_name(&member).unwrap_or_else(|| last_ident(&member));
                    add(format!("{name}.{field}"), unstruct(&format!("{member};")));
                    order.push(field);
                }
                add(
                    name.clone(),
                    format!("{kind} {name} {{ {} }}", order.join(", ")),
                );
            }
        } else if let Some(rest) = s.strip_prefix("typedef ") {
            let name = pointer_name(rest).unwrap_or_else(|| last_ident(rest));
            add(name, unstruct(&format!("{s};")));
        } else if let Some(paren) = s.find('(') {
            add(last_ident(&s[..paren]), unstruct(&format!("{s};")));
        } else {
            add(last_ident(&s), unstruct(&format!("{s};")));
        }
    }
    decls
}

/// The declarations of a set of headers.
fn extract_all(headers: &[(String, String)]) -> Decls {
    let mut all = Decls::new();
    for (_, text) in headers {
        for (k, v) in extract(text) {
            all.entry(k).or_default().extend(v);
        }
    }
    all
}

/// The lock file's text for `decls` at `baseline`.
fn lock_text(baseline: &str, decls: &Decls) -> String {
    let mut out = format!(
        "# The public declarations of include/*.h (name, tab, declaration) as of\n\
         # CHANGELOG.md's section [{baseline}]. Checked and written by\n\
         # tests/api_changelog.rs; do not edit by hand.\n\
         # baseline: {baseline}\n"
    );
    for (k, texts) in decls {
        for t in texts {
            out.push_str(&format!("{k}\t{t}\n"));
        }
    }
    out
}

/// (baseline, declarations) of a lock file's text.
fn parse_lock(text: &str) -> (String, Decls) {
    let baseline = text
        .lines()
        .find_map(|l| l.strip_prefix("# baseline: "))
        .unwrap_or_else(|| panic!("{LOCK}: no '# baseline: ' line"))
        .trim()
        .to_string();
    let mut decls = Decls::new();
    for l in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (k, t) = l
            .split_once('\t')
            .unwrap_or_else(|| panic!("{LOCK}: not 'name<TAB>declaration': {l}"));
        decls
            .entry(k.to_string())
            .or_default()
            .insert(t.to_string());
    }
    (baseline, decls)
}

/// The text of the changelog section whose heading starts with `heading`.
fn section<'a>(changelog: &'a str, heading: &str) -> Option<&'a str> {
    let at = changelog.find(&format!("\n{heading}"))? + 1;
    let body = &changelog[at + heading.len()..];
    let end = body.find("\n## ").map_or(body.len(), |e| e + 1);
    Some(&body[..end])
}

/// The name in brackets of the newest dated section (the first `## [` that
/// is not `[Unreleased]`).
fn newest_dated(changelog: &str) -> Option<String> {
    changelog
        .lines()
        .filter_map(|l| l.strip_prefix("## ["))
        .find(|l| !l.starts_with("Unreleased]"))
        .and_then(|l| l.split_once(']'))
        .map(|(name, _)| name.to_string())
}

/// The names a section mentions as code spans (`name`, `name()`,
/// `name(args)`, ``PREFIX_*``), read as Markdown reads them: a span opens
/// with a run of backticks and closes at the next run of the same length.
fn mentioned(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let run = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let fence = &rest[open..open + run];
        let body = &rest[open + run..];
        // The closing run: the same number of backticks, not part of a longer run.
        let mut from = 0;
        let close = loop {
            let Some(at) = body[from..].find(fence).map(|i| i + from) else {
                break None;
            };
            let after = &body[at + run..];
            if !after.starts_with('`') {
                break Some(at);
            }
            from = at + run + (after.len() - after.trim_start_matches('`').len());
        };
        let Some(close) = close else {
            break;
        };
        let span = body[..close].trim().trim_matches('`');
        let name = span.split('(').next().unwrap_or("").trim();
        if !name.is_empty() && !name.contains(char::is_whitespace) {
            out.insert(name.to_string());
        }
        rest = &body[close + run..];
    }
    out
}

/// Whether the mentions name `key`: exactly, or by a family prefix that
/// ends at a word boundary (`MCP_MAX_SCHEMA_*`, `mcp_tool_t.*`).
fn names(key: &str, said: &BTreeSet<String>) -> bool {
    said.contains(key)
        || said.iter().any(|m| {
            m.strip_suffix('*').is_some_and(|prefix| {
                (prefix.ends_with('_') || prefix.ends_with('.'))
                    && prefix.len() > 4
                    && key.starts_with(prefix)
            })
        })
}

/// A declaration that differs between `old` and `new`.
#[derive(Debug, PartialEq, Eq)]
enum Change {
    Added(String),
    Removed(String),
    Changed(String),
}

/// What differs, leaving out the members of a type that is itself new or
/// gone (the type's entry covers them).
fn diff(old: &Decls, new: &Decls) -> Vec<Change> {
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let owner_is = |key: &str, map: &Decls, present: bool| {
        key.split_once('.')
            .is_some_and(|(t, _)| map.contains_key(t) == present)
    };
    keys.into_iter()
        .filter_map(|k| match (old.get(k), new.get(k)) {
            (None, Some(_)) if !owner_is(k, old, false) => Some(Change::Added(k.clone())),
            (Some(_), None) if !owner_is(k, new, false) => Some(Change::Removed(k.clone())),
            (Some(a), Some(b)) if a != b => Some(Change::Changed(k.clone())),
            _ => None,
        })
        .collect()
}

/// The check: every change from the lock to `headers` is named in
/// `section_text`; otherwise a message that says what to add.
fn unlogged(
    lock: &Decls,
    now: &Decls,
    section_name: &str,
    section_text: &str,
) -> Result<(), String> {
    let said = mentioned(section_text);
    let missing: Vec<Change> = diff(lock, now)
        .into_iter()
        .filter(|c| match c {
            // A struct whose members changed is named by naming them.
            Change::Changed(k) if !k.contains('.') => {
                let member = format!("{k}.");
                !names(k, &said) && !said.iter().any(|m| m.starts_with(&member))
            }
            Change::Added(k) | Change::Removed(k) | Change::Changed(k) => !names(k, &said),
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let show = |set: Option<&BTreeSet<String>>| {
        set.map_or_else(
            || "(none)".to_string(),
            |s| s.iter().cloned().collect::<Vec<_>>().join("\n            "),
        )
    };
    let mut msg = format!(
        "the public headers' declarations changed, and CHANGELOG.md's {section_name} section does not name:\n"
    );
    for c in &missing {
        match c {
            Change::Added(k) => msg.push_str(&format!("  added    `{k}`: {}\n", show(now.get(k)))),
            Change::Removed(k) => {
                msg.push_str(&format!("  removed  `{k}`: was {}\n", show(lock.get(k))))
            }
            Change::Changed(k) => msg.push_str(&format!(
                "  changed  `{k}`:\n      was {}\n      now {}\n",
                show(lock.get(k)),
                show(now.get(k))
            )),
        }
    }
    // A starting point to paste and complete.
    msg.push_str(&format!(
        "Add to CHANGELOG.md under {section_name} an entry that names each in backticks and says what a \
         user must change, e.g.:\n"
    ));
    for (title, pick) in [("### Added", 0), ("### Changed", 1), ("### Removed", 2)] {
        let keys: Vec<&String> = missing
            .iter()
            .filter_map(|c| match (c, pick) {
                (Change::Added(k), 0) | (Change::Changed(k), 1) | (Change::Removed(k), 2) => {
                    Some(k)
                }
                _ => None,
            })
            .collect();
        if !keys.is_empty() {
            msg.push_str(&format!("\n{title}\n\n"));
            for k in keys {
                msg.push_str(&format!("- `{k}`: ...\n"));
            }
        }
    }
    Err(msg)
}

#[test]
fn header_changes_since_the_lock_are_in_the_changelog() {
    let changelog = read(CHANGELOG);
    let now = extract_all(&headers());
    let newest = newest_dated(&changelog).expect("CHANGELOG.md has no dated section");
    let write = std::env::var_os("EMCP_WRITE_API_LOCK").is_some();
    if write && !root().join(LOCK).exists() {
        // The first record: nothing to compare with.
        std::fs::write(root().join(LOCK), lock_text(&newest, &now)).unwrap();
        return;
    }
    let (baseline, lock) = parse_lock(&read(LOCK));
    if write {
        // The section being dated must name what changed since the old baseline.
        let text = section(&changelog, &format!("## [{newest}]")).unwrap();
        if let Err(e) = unlogged(&lock, &now, &format!("[{newest}]"), text) {
            panic!("not writing {LOCK}: {e}");
        }
        std::fs::write(root().join(LOCK), lock_text(&newest, &now)).unwrap();
        return;
    }
    assert_eq!(
        baseline, newest,
        "{LOCK} was written for CHANGELOG.md's section [{baseline}], but the newest dated section is \
         [{newest}]: after dating a section, run EMCP_WRITE_API_LOCK=1 cargo test --features std --test api_changelog"
    );
    let unreleased = section(&changelog, UNRELEASED)
        .unwrap_or_else(|| panic!("CHANGELOG.md has no '{UNRELEASED}' section"));
    if let Err(e) = unlogged(&lock, &now, UNRELEASED, unreleased) {
        panic!("\n{e}\n");
    }
}

/// The extraction sees every kind of declaration the headers hold.
#[test]
fn extraction_covers_functions_macros_types_and_members() {
    let now = extract_all(&headers());
    let one = |k: &str| {
        now.get(k)
            .unwrap_or_else(|| panic!("`{k}` not extracted"))
            .iter()
            .next()
            .unwrap()
            .clone()
    };
    assert!(one("mcp_server_handle").starts_with("int mcp_server_handle(mcp_server_t *server,"));
    assert_eq!(one("MCP_MAX_TOOLS"), "#define MCP_MAX_TOOLS 16");
    assert_eq!(now["MCP_SERVER_SIZE"].len(), 2, "one per pointer width");
    assert!(now["MCP_SERVER_SIZE"].iter().all(|t| t.starts_with("#if ")));
    assert!(one("mcp_tool_t").starts_with("struct mcp_tool_t { name, title, "));
    assert_eq!(one("mcp_tool_t.name"), "const char *name;");
    assert!(one("mcp_policy_fn").starts_with("typedef bool (*mcp_policy_fn)(void *user,"));
    assert!(
        !now.contains_key("EMCP_LIMITS_H"),
        "include guards are not declarations"
    );
    assert!(
        !now.keys().any(|k| k.is_empty() || k.contains(' ')),
        "{:?}",
        now.keys()
    );
}

/// A header copy with changed, added and removed declarations fails the
/// check with each named, and passes once the Unreleased section names them
/// (a struct's new member also changes the struct's member list: naming the
/// member covers both).
#[test]
fn an_unlogged_header_change_fails_and_names_it() {
    // The baseline is today's headers, not the lock: changes already named
    // under [Unreleased] are not this test's business.
    let lock = extract_all(&headers());
    let mut copy = headers();
    let server = copy.iter_mut().find(|(n, _)| n == "emcp_server.h").unwrap();
    assert!(
        server
            .1
            .contains("int mcp_server_handle(struct mcp_server_t *server,")
    );
    server.1 = server.1.replace(
        "int mcp_server_handle(struct mcp_server_t *server,",
        "int mcp_server_handle(const struct mcp_server_t *server,",
    );
    let limits = copy.iter_mut().find(|(n, _)| n == "emcp_limits.h").unwrap();
    limits.1 =
        limits.1.replace("#define MCP_MAX_DEPTH 16\n", "") + "\n#define MCP_MAX_SCHEMA_NODES 64\n";
    let tools = copy.iter_mut().find(|(n, _)| n == "emcp_tools.h").unwrap();
    assert!(tools.1.contains("  const char *title;\n"));
    tools.1 = tools.1.replace(
        "  const char *title;\n",
        "  const char *title;\n  uint32_t flags;\n",
    );

    let now = extract_all(&copy);
    let err = unlogged(&lock, &now, UNRELEASED, "### Changed\n- nothing about it\n").unwrap_err();
    for want in [
        "changed  `mcp_server_handle`",
        "now int mcp_server_handle(const mcp_server_t *server,",
        "removed  `MCP_MAX_DEPTH`: was #define MCP_MAX_DEPTH 16",
        "added    `MCP_MAX_SCHEMA_NODES`: #define MCP_MAX_SCHEMA_NODES 64",
        "added    `mcp_tool_t.flags`: uint32_t flags;",
        "changed  `mcp_tool_t`:",
    ] {
        assert!(err.contains(want), "missing '{want}' in:\n{err}");
    }
    let listed = err
        .lines()
        .filter(|l| {
            ["  added ", "  removed ", "  changed "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .count();
    assert_eq!(listed, 5, "exactly the five changes:\n{err}");
    // Named (a prefix with `*` covers a family), it passes.
    let entry = "### Changed\n- `mcp_server_handle()` takes ...\n- `mcp_tool_t.flags`: new.\n\
                 ### Removed\n- `MCP_MAX_DEPTH`\n- `MCP_MAX_SCHEMA_*` added\n";
    assert_eq!(unlogged(&lock, &now, UNRELEASED, entry), Ok(()));
    let spans = mentioned("a `x` b ``y`` c `` `z()` `` d ```w```");
    assert_eq!(spans.into_iter().collect::<Vec<_>>(), ["w", "x", "y", "z"]);
    // Only code spans count, a bare word or a family without a boundary does not.
    let loose =
        "mcp_server_handle, `mcp_tool_t`.flags, `MCP_MAX_DEPT*`, `MCP_MAX_SCHEMA_NODES is new`";
    let err = unlogged(&lock, &now, UNRELEASED, loose).unwrap_err();
    let asked: Vec<&str> = err.lines().filter(|l| l.starts_with("- `")).collect();
    assert_eq!(
        asked,
        [
            "- `MCP_MAX_SCHEMA_NODES`: ...",
            "- `mcp_tool_t.flags`: ...",
            "- `mcp_server_handle`: ...",
            "- `MCP_MAX_DEPTH`: ..."
        ],
        "{err}"
    );
    // The unchanged headers need nothing.
    assert_eq!(unlogged(&lock, &lock, UNRELEASED, ""), Ok(()));
}

/// The lock is what the extraction writes (no hand edits), and the
/// baseline check sees a section the lock was not written for.
#[test]
fn the_lock_is_written_by_this_test() {
    let text = read(LOCK);
    let (baseline, lock) = parse_lock(&text);
    assert_eq!(
        text,
        lock_text(&baseline, &lock),
        "{LOCK} is not in the written form"
    );
    let changelog = format!("# Changelog\n\n{UNRELEASED}\n\n## [2099-01-01]\n\n## [{baseline}]\n");
    assert_eq!(newest_dated(&changelog).as_deref(), Some("2099-01-01"));
    assert!(section(&changelog, UNRELEASED).unwrap().trim().is_empty());
}
