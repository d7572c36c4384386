//! The core's modules are layered one way: each may use its own layer and
//! the ones below, never one above. The layers are the numbered list under
//! "Layers" in `src/lib.rs` (the crate documentation); this test reads that
//! list, then every source file under `src/`, and fails on any `crate::<m>`
//! path to a module of a higher layer (test modules at the end of a file and
//! `*_tests.rs` files are left out: tests may use anything), and on a module
//! that the list does not place.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Module name → layer number, from the crate documentation.
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut map = BTreeMap::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            continue;
        };
        let doc = doc.trim();
        if doc == "## Layers" {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if doc.starts_with("## ") {
            break;
        }
        // "3. `call`: ..." names the modules of layer 3 before the colon.
        let Some((num, rest)) = doc.split_once(". ") else {
            continue;
        };
        let Ok(n) = num.parse::<usize>() else {
            continue;
        };
        let names = rest.split(':').next().unwrap_or("");
        for part in names.split(',') {
            let m = part.trim().trim_matches('`');
            if !m.is_empty() {
                assert!(map.insert(m.to_string(), n).is_none(), "{m} listed twice");
            }
        }
    }
    map
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file under `src/` belongs to (`lib` for lib.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The file's text before its `#[cfg(test)]` test module, comments removed.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod "))
        {
            // A test module at the end of the file, or a test-only file declared here.
            if lines.peek().is_some_and(|n| n.trim_end().ends_with('{')) {
                break;
            }
            lines.next();
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" //").next().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// Every module named by a `crate::<m>` path, or by `use crate::{<m>, ...}`.
fn uses(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(at) = code[i..].find("crate::") {
        let start = i + at + "crate::".len();
        let end = start
            + code[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(code.len() - start);
        if end > start {
            found.push(code[start..end].to_string());
        } else if bytes.get(start) == Some(&b'{') {
            let close = code[start..].find('}').map_or(code.len(), |c| start + c);
            for part in code[start + 1..close].split(',') {
                let m = part.trim().split("::").next().unwrap_or("").trim();
                if !m.is_empty() {
                    found.push(m.to_string());
                }
            }
        }
        i = end.max(start);
    }
    found
}

#[test]
fn no_module_uses_a_higher_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let layer = layers(&lib);
    assert!(
        layer.len() > 10,
        "the Layers list in src/lib.rs was not found"
    );
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if name.ends_with("_tests.rs") {
            continue;
        }
        let m = module_of(&src, f);
        if m == "lib" {
            continue;
        }
        let Some(&own) = layer.get(&m) else {
            wrong.push(format!(
                "{}: module `{m}` is not in the Layers list",
                f.display()
            ));
            continue;
        };
        let text = fs::read_to_string(f).unwrap();
        for used in uses(&code(&text)) {
            match layer.get(&used) {
                Some(&l) if l > own => wrong.push(format!(
                    "{}: `{m}` (layer {own}) uses `crate::{used}` (layer {l})",
                    f.strip_prefix(root).unwrap().display()
                )),
                Some(_) => {}
                None => wrong.push(format!(
                    "{}: uses `crate::{used}`, which the Layers list does not place",
                    f.strip_prefix(root).unwrap().display()
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

/// The checker itself: an upward path is found, in both spellings.
#[test]
fn an_upward_path_is_found() {
    let found = uses(
        "use crate::server::Server;\nlet x = crate::ffi::f();\nuse crate::{json, state::Server};\n",
    );
    assert_eq!(found, ["server", "ffi", "json", "state"]);
    let cut = code(
        "use crate::json;\n// crate::ffi in a comment\n#[cfg(test)]\nmod tests {\n    use crate::ffi;\n}\n",
    );
    assert_eq!(uses(&cut), ["json"]);
}
