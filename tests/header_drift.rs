//! The committed C headers must be exactly what cbindgen generates from src/.
//!
//! How to run (from the repository root):
//! - header drift (include/emcp*.h vs cbindgen 0.29.4 output): `cargo test --features std --test header_drift`
//!
//! Each header `include/emcp_<group>.h` (and the umbrella `include/emcp.h`)
//! has a config `cbindgen/<group>.toml` and an input `cbindgen/<group>.rs`
//! that lists the Rust files whose items it declares (cbindgen/README.md).
//! On failure, regenerate with the cbindgen CLI of the same version:
//! `cbindgen --config cbindgen/<group>.toml --output include/emcp_<group>.h cbindgen/<group>.rs`,
//! or all of them with `EMCP_WRITE_HEADERS=1 cargo test --features std --test header_drift`
//! (which writes the same bytes through the cbindgen crate).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every header cbindgen writes: (group, config, input, header path).
fn groups() -> Vec<(String, PathBuf, PathBuf, PathBuf)> {
    let dir = root().join("cbindgen");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list cbindgen/: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|config| {
            let group = config.file_stem().unwrap().to_str().unwrap().to_string();
            let input = config.with_extension("rs");
            assert!(
                input.exists(),
                "{} has no input file {}",
                config.display(),
                input.display()
            );
            let header = if group == "emcp" {
                "include/emcp.h".to_string()
            } else {
                format!("include/emcp_{group}.h")
            };
            (group, config, input, root().join(header))
        })
        .collect();
    out.sort();
    assert!(out.len() > 1, "cbindgen/ holds no group configs");
    out
}

fn config(path: &Path) -> cbindgen::Config {
    cbindgen::Config::from_file(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn generate(config_path: &Path, input: &Path) -> Vec<u8> {
    let bindings = cbindgen::Builder::new()
        .with_config(config(config_path))
        .with_src(input)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen failed on {}: {e}", input.display()));
    let mut out = Vec::new();
    bindings.write(&mut out);
    out
}

fn regenerate(group: &str) -> String {
    let header = if group == "emcp" {
        "include/emcp.h".into()
    } else {
        format!("include/emcp_{group}.h")
    };
    format!(
        "regenerate with: cbindgen --config cbindgen/{group}.toml --output {header} cbindgen/{group}.rs"
    )
}

fn first_difference(committed: &[u8], generated: &[u8]) -> String {
    let (c, g) = (
        String::from_utf8_lossy(committed),
        String::from_utf8_lossy(generated),
    );
    c.lines().zip(g.lines()).position(|(a, b)| a != b).map_or_else(
        || format!("the files agree line by line but differ in length or line ends ({} vs {} bytes)", committed.len(), generated.len()),
        |i| {
            format!(
                "first difference at line {}:\n  committed: {}\n  generated: {}",
                i + 1,
                c.lines().nth(i).unwrap_or(""),
                g.lines().nth(i).unwrap_or("")
            )
        },
    )
}

#[test]
fn every_committed_header_matches_cbindgen_output() {
    let write = std::env::var_os("EMCP_WRITE_HEADERS").is_some();
    let mut stale = Vec::new();
    for (group, config, input, header) in groups() {
        let generated = generate(&config, &input);
        if write {
            std::fs::write(&header, &generated).unwrap();
            println!("wrote {}", header.display());
            continue;
        }
        match std::fs::read(&header) {
            Err(e) => stale.push(format!(
                "{} is missing ({e}): {}",
                header.display(),
                regenerate(&group)
            )),
            Ok(committed) if committed != generated => stale.push(format!(
                "{} is stale: {}\n{}",
                header.display(),
                regenerate(&group),
                first_difference(&committed, &generated)
            )),
            Ok(_) => println!(
                "{} matches cbindgen 0.29.4 output ({} bytes)",
                header.display(),
                generated.len()
            ),
        }
    }
    assert!(stale.is_empty(), "\n{}", stale.join("\n\n"));
}

/// No header in include/ that cbindgen does not write (a stale one left behind).
#[test]
fn include_holds_only_generated_headers() {
    let known: BTreeSet<PathBuf> = groups().into_iter().map(|g| g.3).collect();
    for entry in std::fs::read_dir(root().join("include")).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            known.contains(&path),
            "{} has no cbindgen/<group>.toml: add one (cbindgen/README.md) or remove the file",
            path.display()
        );
    }
}

/// The names a generated header declares: macros, typedefs and functions.
fn names(text: &str) -> BTreeSet<String> {
    let mut code = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        code.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find("*/").map_or(rest.len() - i, |e| e + 2)..];
    }
    code.push_str(rest);
    let ident = |s: &str| {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap();
        let name = if let Some(r) = line.strip_prefix("#define ") {
            ident(r)
        } else if let Some(r) = line.strip_prefix("typedef struct ") {
            ident(r)
        } else if line.starts_with("typedef ") && line.contains("(*") {
            ident(&line[line.find("(*").unwrap() + 2..])
        } else if !line.starts_with([' ', '#', '}', '\t'])
            && !line.starts_with("typedef")
            && line.contains('(')
        {
            let head = &line[..line.find('(').unwrap()];
            head.rsplit([' ', '*']).next().unwrap_or("").to_string()
        } else {
            continue;
        };
        let guard = name == "EMCP_PTR64" || (name.starts_with("EMCP_") && name.ends_with("_H"));
        if !name.is_empty() && !guard && name != "extern" {
            out.insert(name);
        }
    }
    out
}

/// The group headers together declare exactly what cbindgen finds in the whole
/// crate, each name once: an exported item in a file no cbindgen/<group>.rs
/// lists (or a type no group's functions reach) fails here instead of
/// silently missing from the C API.
#[test]
fn groups_cover_the_crate_once() {
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut twice = Vec::new();
    let mut includes = Vec::new();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for (group, config_path, input, _) in groups() {
        includes.extend(config(&config_path).export.include);
        let index = std::fs::read_to_string(&input).unwrap();
        for line in index.lines().filter_map(|l| l.strip_prefix("#[path = \"")) {
            let file = line.split('"').next().unwrap().to_string();
            if let Some(other) = files.insert(file.clone(), group.clone()) {
                twice.push(format!(
                    "{file} is listed by cbindgen/{other}.rs and cbindgen/{group}.rs"
                ));
            }
        }
        for name in names(&String::from_utf8(generate(&config_path, &input)).unwrap()) {
            if let Some(other) = owner.insert(name.clone(), group.clone()) {
                twice.push(format!(
                    "{name} is declared by both emcp_{other}.h and emcp_{group}.h"
                ));
            }
        }
    }
    assert!(twice.is_empty(), "\n{}", twice.join("\n"));

    let mut whole = config(&root().join("cbindgen/server.toml"));
    whole.header = None;
    whole.trailer = None;
    whole.after_includes = None;
    whole.includes.clear();
    whole.export.include = includes;
    let bindings = cbindgen::Builder::new()
        .with_crate(root())
        .with_config(whole)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen failed on the crate: {e}"));
    let mut text = Vec::new();
    bindings.write(&mut text);
    let crate_names = names(&String::from_utf8(text).unwrap());
    let grouped: BTreeSet<String> = owner.keys().cloned().collect();
    let missing: Vec<_> = crate_names.difference(&grouped).collect();
    let extra: Vec<_> = grouped.difference(&crate_names).collect();
    assert!(
        missing.is_empty(),
        "exported by the crate but in no group header (add the defining file to a cbindgen/<group>.rs, \
         or the type to that group's [export] include): {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "in a group header but not exported by the crate: {extra:?}"
    );
    println!(
        "{} names in {} group headers, each once",
        grouped.len(),
        groups().len() - 1
    );
}
