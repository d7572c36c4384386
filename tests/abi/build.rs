//! Generates the ABI checks of include/emcp.h against the emcp crate.
//!
//! How to run: `cd tests/abi && cargo test -- --nocapture` (the checks are
//! generated here and run, or fail to compile, in src/lib.rs's tests).
//!
//! 1. ctest: expands the emcp crate (feature `std`, as it is linked), then for
//!    every `MCP_*` constant, every `mcp_*` struct (size, alignment, each
//!    field's offset and size, a by-value round trip) and every `mcp_*`
//!    typedef (size, alignment) writes a C file that includes emcp.h and is
//!    compiled here by the C compiler, plus the Rust side that compares them.
//! 2. bindgen reads emcp.h back through libclang twice: once with every
//!    `mcp_*` type blocklisted so the header's function declarations use emcp's
//!    own Rust types, once for the header's own structs, typedefs and
//!    constants. From that, `abi_checks.rs` asserts at compile time that each
//!    header function has exactly the Rust export's signature and that each
//!    struct field and function-pointer typedef has the Rust type, and lists
//!    what exists on one side only (the test fails on those).

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quote::ToTokens;

/// A `#[no_mangle] extern "C"` function of the emcp crate.
struct RustFn {
    /// Rust path, e.g. `emcp::ffi::mcp_server_init`.
    path: String,
    params: usize,
}

/// A public `mcp_*` struct of the emcp crate.
struct RustStruct {
    path: String,
    /// Names of its public fields; none means opaque to C.
    pub_fields: Vec<String>,
    /// Has `#[repr(C)]` or `#[repr(transparent)]`.
    repr_c: bool,
}

/// The C-facing items of the emcp crate, from its macro-expanded source.
#[derive(Default)]
struct RustItems {
    fns: BTreeMap<String, RustFn>,
    structs: BTreeMap<String, RustStruct>,
    aliases: BTreeMap<String, String>,
    consts: BTreeMap<String, String>,
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The exported symbol name of a function, if it has `no_mangle` or `export_name`.
fn export_name(f: &syn::ItemFn) -> Option<String> {
    for attr in &f.attrs {
        let text = attr.meta.to_token_stream().to_string().replace(' ', "");
        if text == "no_mangle" || text == "unsafe(no_mangle)" {
            return Some(f.sig.ident.to_string());
        }
        if let Some(rest) = text
            .strip_prefix("export_name=")
            .or_else(|| text.strip_prefix("unsafe(export_name="))
        {
            return Some(rest.trim_end_matches(')').trim_matches('"').to_string());
        }
    }
    None
}

impl RustItems {
    fn walk(&mut self, items: &[syn::Item], path: &mut Vec<String>) {
        let here = path.join("::");
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        path.push(m.ident.to_string());
                        self.walk(inner, path);
                        path.pop();
                    }
                }
                syn::Item::Fn(f) => {
                    let c_abi = f
                        .sig
                        .abi
                        .as_ref()
                        .is_some_and(|abi| abi.name.as_ref().is_none_or(|n| n.value() == "C"));
                    if let Some(name) = export_name(f)
                        && c_abi
                    {
                        let path = format!("{here}::{}", f.sig.ident);
                        self.fns.insert(
                            name,
                            RustFn {
                                path,
                                params: f.sig.inputs.len(),
                            },
                        );
                    }
                }
                syn::Item::Struct(s)
                    if is_pub(&s.vis) && s.ident.to_string().starts_with("mcp_") =>
                {
                    let pub_fields = s
                        .fields
                        .iter()
                        .filter(|f| is_pub(&f.vis))
                        .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                        .collect();
                    let repr_c = s.attrs.iter().any(|a| {
                        let t = a.meta.to_token_stream().to_string().replace(' ', "");
                        t.starts_with("repr(") && (t.contains("C") || t.contains("transparent"))
                    });
                    let path = format!("{here}::{}", s.ident);
                    self.structs.insert(
                        s.ident.to_string(),
                        RustStruct {
                            path,
                            pub_fields,
                            repr_c,
                        },
                    );
                }
                syn::Item::Type(t) if is_pub(&t.vis) && t.ident.to_string().starts_with("mcp_") => {
                    self.aliases
                        .insert(t.ident.to_string(), format!("{here}::{}", t.ident));
                }
                syn::Item::Const(c)
                    if is_pub(&c.vis) && c.ident.to_string().starts_with("MCP_") =>
                {
                    self.consts
                        .insert(c.ident.to_string(), format!("{here}::{}", c.ident));
                }
                _ => {}
            }
        }
    }
}

/// What bindgen read from the header.
#[derive(Default)]
struct HeaderItems {
    /// Function name → parameter names.
    fns: BTreeMap<String, Vec<String>>,
    /// Struct name → field names (empty for an opaque struct).
    structs: BTreeMap<String, Vec<String>>,
    /// `mcp_*` typedefs that are not struct typedefs.
    aliases: BTreeSet<String>,
    /// `MCP_*` constants bindgen could evaluate.
    consts: BTreeSet<String>,
}

impl HeaderItems {
    fn read(&mut self, file: &syn::File) {
        for item in &file.items {
            match item {
                syn::Item::ForeignMod(m) => {
                    for f in &m.items {
                        if let syn::ForeignItem::Fn(f) = f {
                            assert!(
                                f.sig.variadic.is_none(),
                                "variadic {} is not supported",
                                f.sig.ident
                            );
                            let params = f
                                .sig
                                .inputs
                                .iter()
                                .map(|a| match a {
                                    syn::FnArg::Typed(p) => p.pat.to_token_stream().to_string(),
                                    syn::FnArg::Receiver(_) => {
                                        unreachable!("a C function has no self")
                                    }
                                })
                                .collect();
                            self.fns.insert(f.sig.ident.to_string(), params);
                        }
                    }
                }
                syn::Item::Struct(s) if s.ident.to_string().starts_with("mcp_") => {
                    let fields = s
                        .fields
                        .iter()
                        .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                        .filter(|f| f != "_unused")
                        .collect();
                    self.structs.insert(s.ident.to_string(), fields);
                }
                syn::Item::Type(t) if t.ident.to_string().starts_with("mcp_") => {
                    self.aliases.insert(t.ident.to_string());
                }
                syn::Item::Const(c) if c.ident.to_string().starts_with("MCP_") => {
                    self.consts.insert(c.ident.to_string());
                }
                _ => {}
            }
        }
    }
}

/// Names of every `#define MCP_*` in the header text (bindgen may not evaluate all).
fn header_defines(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("#define "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|name| name.starts_with("MCP_"))
        .map(str::to_string)
        .collect()
}

fn bindgen_base(header: &Path) -> bindgen::Builder {
    bindgen::Builder::default()
        .header(header.to_string_lossy())
        .rust_target(bindgen::RustTarget::stable(85, 0).expect("a supported Rust target"))
        .rust_edition(bindgen::RustEdition::Edition2024)
        .use_core()
        .ctypes_prefix("::core::ffi")
        .layout_tests(false)
        .generate_comments(false)
        .derive_debug(false)
        .derive_copy(false)
}

fn list(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let items: Vec<String> = names
        .into_iter()
        .map(|n| format!("{:?}", n.as_ref()))
        .collect();
    format!("&[{}]", items.join(", "))
}

fn diff<'a>(a: impl IntoIterator<Item = &'a String>, b: &BTreeSet<&'a String>) -> Vec<&'a String> {
    a.into_iter().filter(|x| !b.contains(x)).collect()
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest
        .join("../..")
        .canonicalize()
        .expect("the emcp repository root");
    let include_dir = root.join("include");
    let header = include_dir.join("emcp.h");
    let lib_rs = root.join("src/lib.rs");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let target = env::var("TARGET").expect("TARGET");
    println!("cargo:rerun-if-changed={}", root.join("src").display());
    println!("cargo:rerun-if-changed={}", header.display());
    println!("cargo:rerun-if-changed=build.rs");

    // The expansion runs rustc on src/lib.rs with this build script's OUT_DIR,
    // where emcp's own build.rs never wrote its generated limit table
    // (src/ffi/limit.rs includes it). Only the shape of that table matters
    // to the checks below, so an empty one stands in.
    fs::write(
        out.join("limit_table.rs"),
        "pub(crate) const LIMITS: &[(&str, usize)] = &[];\n",
    )
    .expect("writing the stand-in limit_table.rs");
    // The Rust side exactly as the test links it: macro-expanded with feature "std".
    let cfg = [("feature".to_string(), Some("std".to_string()))];
    let expanded = ctest::expand(&lib_rs, &cfg, target.clone())
        .unwrap_or_else(|e| panic!("expanding emcp: {e}"));
    let file = syn::parse_file(&expanded).unwrap_or_else(|e| panic!("parsing expanded emcp: {e}"));
    let mut rust = RustItems::default();
    rust.walk(&file.items, &mut vec!["emcp".to_string()]);

    // ---- bindgen pass 1: the header's functions, written with emcp's types.
    let fns_rs = bindgen_base(&header)
        .allowlist_function("mcp_.*")
        .blocklist_type("mcp_.*")
        .generate()
        .unwrap_or_else(|e| panic!("bindgen (functions) on {}: {e}", header.display()))
        .to_string();
    // ---- bindgen pass 2: the header's own types and constants.
    let types_rs = bindgen_base(&header)
        .allowlist_type("mcp_.*")
        .allowlist_var("MCP_.*")
        .generate()
        .unwrap_or_else(|e| panic!("bindgen (types) on {}: {e}", header.display()))
        .to_string();
    fs::write(out.join("header_fns.rs"), &fns_rs).expect("write header_fns.rs");
    fs::write(out.join("header_types.rs"), &types_rs).expect("write header_types.rs");
    let mut hdr = HeaderItems::default();
    hdr.read(&syn::parse_file(&fns_rs).expect("bindgen output parses"));
    hdr.read(&syn::parse_file(&types_rs).expect("bindgen output parses"));
    // emcp.h includes the group headers (include/emcp_<group>.h): read them all.
    let mut header_text = String::new();
    let mut headers: Vec<PathBuf> = fs::read_dir(&include_dir)
        .expect("list include/")
        .map(|e| e.expect("include/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    headers.sort();
    for h in &headers {
        println!("cargo:rerun-if-changed={}", h.display());
        header_text.push_str(&fs::read_to_string(h).expect("read a header of include/"));
    }
    let defines = header_defines(&header_text);

    // ---- ctest: constants, struct layouts, typedef sizes through the C compiler.
    let opaque: BTreeSet<String> = rust
        .structs
        .iter()
        .filter(|(_, s)| s.pub_fields.is_empty())
        .map(|(n, _)| n.clone())
        .collect();
    let mut ctest_cfg = ctest::TestGenerator::new();
    let opaque_for_skip = opaque.clone();
    let c_defines = defines.clone();
    let c_structs: BTreeSet<String> = hdr.structs.keys().cloned().collect();
    let c_aliases = hdr.aliases.clone();
    ctest_cfg
        .header("emcp.h")
        .include(&include_dir)
        .edition(2024)
        .cfg("feature", Some("std"))
        .skip_private(true)
        // Only the C ABI: MCP_* constants and mcp_* types; opaque handles have
        // no size in C. The crate's own Rust-only items are not in the header.
        // Items missing from the header are left to the presence checks in
        // the test, which name them, instead of failing the C compile here.
        .skip_const(move |c| !c.ident().starts_with("MCP_") || !c_defines.contains(c.ident()))
        .skip_struct(move |s| {
            !s.ident().starts_with("mcp_")
                || opaque_for_skip.contains(s.ident())
                || !c_structs.contains(s.ident())
        })
        .skip_alias(move |a| !a.ident().starts_with("mcp_") || !c_aliases.contains(a.ident()))
        .skip_union(|_| true)
        .skip_fn(|_| true)
        .skip_static(|_| true)
        // Use the typedef names C code uses (cbindgen style "both").
        .rename_struct_ty(|ty| ty.starts_with("mcp_").then(|| ty.to_string()));
    let ctest_rs = ctest::generate_test(&mut ctest_cfg, &lib_rs, "ctest_emcp.rs")
        .unwrap_or_else(|e| panic!("ctest: {e}"));
    let generated = fs::read_to_string(&ctest_rs).expect("ctest's Rust file");
    let ctest_checks: Vec<&str> = generated
        .split("fn run_all() {")
        .nth(1)
        .expect("ctest's run_all")
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_suffix("();"))
        .collect();

    // ---- Presence on each side.
    let rust_fn_names: BTreeSet<&String> = rust.fns.keys().collect();
    let hdr_fn_names: BTreeSet<&String> = hdr.fns.keys().collect();
    let rust_types: BTreeSet<&String> = rust.structs.keys().chain(rust.aliases.keys()).collect();
    let hdr_types: BTreeSet<&String> = hdr.structs.keys().chain(hdr.aliases.iter()).collect();
    let rust_consts: BTreeSet<&String> = rust.consts.keys().collect();
    let hdr_consts: BTreeSet<&String> = defines.iter().collect();

    let mut s = String::new();
    let w = &mut s;
    writeln!(
        w,
        "// @generated by tests/abi/build.rs from include/emcp.h and the emcp crate; do not edit.\n"
    )
    .unwrap();

    // Modules holding bindgen's view of the header.
    writeln!(
        w,
        "/// The header's functions as bindgen reads them, written with emcp's own types."
    )
    .unwrap();
    writeln!(
        w,
        "// improper_ctypes: emcp's opaque handles need not be #[repr(C)] behind a pointer;"
    )
    .unwrap();
    writeln!(
        w,
        "// the test lists any mcp_* struct without it (NOT_REPR_C)."
    )
    .unwrap();
    writeln!(w, "#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, unused_imports, improper_ctypes, clippy::all)]").unwrap();
    writeln!(w, "pub mod header_fns {{").unwrap();
    for (name, st) in &rust.structs {
        writeln!(w, "    use {} as {name};", st.path).unwrap();
    }
    for (name, path) in &rust.aliases {
        writeln!(w, "    use {path} as {name};").unwrap();
    }
    writeln!(
        w,
        "    include!(concat!(env!(\"OUT_DIR\"), \"/header_fns.rs\"));\n}}\n"
    )
    .unwrap();
    writeln!(
        w,
        "/// The header's own structs, typedefs and constants as bindgen reads them."
    )
    .unwrap();
    writeln!(w, "#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]").unwrap();
    writeln!(w, "pub mod header_types {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/header_types.rs\"));\n}}\n").unwrap();

    // Canon: header struct → emcp struct, every fn pointer → `unsafe extern "C" fn`.
    writeln!(w, "impl_canon_structs! {{").unwrap();
    for (name, st) in &rust.structs {
        if hdr.structs.contains_key(name) {
            writeln!(w, "    header_types::{name} => {},", st.path).unwrap();
        }
    }
    writeln!(w, "}}\n").unwrap();

    // Function signatures.
    let common_fns: Vec<&String> = hdr
        .fns
        .keys()
        .filter(|n| rust.fns.contains_key(*n))
        .collect();
    writeln!(
        w,
        "/// Compiles only if every header function has the Rust export's signature."
    )
    .unwrap();
    writeln!(w, "pub fn check_signatures() -> usize {{").unwrap();
    for name in &common_fns {
        let params = &hdr.fns[*name];
        let rf = &rust.fns[*name];
        let header_ptr = format!(
            "unsafe extern \"C\" fn({}) -> _",
            vec!["_"; params.len()].join(", ")
        );
        let rust_ptr = format!(
            "unsafe extern \"C\" fn({}) -> _",
            vec!["_"; rf.params].join(", ")
        );
        writeln!(
            w,
            "    // {name}({}): header vs {}",
            params.join(", "),
            rf.path
        )
        .unwrap();
        writeln!(
            w,
            "    same(header_fns::{name} as {header_ptr}, {} as {rust_ptr});",
            rf.path
        )
        .unwrap();
    }
    writeln!(w, "    {}\n}}\n", common_fns.len()).unwrap();

    // Field types and function-pointer typedefs.
    let mut field_checks = Vec::new();
    writeln!(
        w,
        "/// Compiles only if every header struct field and typedef has the Rust type."
    )
    .unwrap();
    writeln!(w, "pub fn check_field_and_typedef_types() -> usize {{").unwrap();
    for (name, fields) in &hdr.structs {
        let Some(st) = rust.structs.get(name) else {
            continue;
        };
        for f in fields {
            writeln!(w, "    // {name}.{f}").unwrap();
            writeln!(
                w,
                "    same_canon(field(|s: &header_types::{name}| &s.{f}), field(|s: &{}| &s.{f}));",
                st.path
            )
            .unwrap();
            field_checks.push(format!("{name}.{f}"));
        }
    }
    for name in &hdr.aliases {
        if let Some(path) = rust.aliases.get(name) {
            writeln!(w, "    // typedef {name}").unwrap();
            writeln!(
                w,
                "    same_canon(ty::<header_types::{name}>(), ty::<{path}>());"
            )
            .unwrap();
            field_checks.push(format!("typedef {name}"));
        }
    }
    writeln!(w, "    {}\n}}\n", field_checks.len()).unwrap();

    // Constant values as bindgen evaluated them (ctest checks them through the C compiler too).
    writeln!(w, "/// (name, value in the header per bindgen, value in Rust) for each constant bindgen evaluated.").unwrap();
    writeln!(
        w,
        "pub fn constant_values() -> Vec<(&'static str, i128, i128)> {{\n    vec!["
    )
    .unwrap();
    for name in hdr.consts.iter().filter(|n| rust.consts.contains_key(*n)) {
        writeln!(
            w,
            "        ({name:?}, header_types::{name} as i128, {} as i128),",
            rust.consts[name]
        )
        .unwrap();
    }
    writeln!(w, "    ]\n}}\n").unwrap();

    let sig_names: Vec<String> = common_fns
        .iter()
        .map(|n| format!("{n}({})", hdr.fns[*n].join(", ")))
        .collect();
    let not_evaluated: Vec<&String> = defines
        .iter()
        .filter(|d| !hdr.consts.contains(*d))
        .collect();
    let not_repr_c: Vec<String> = rust
        .structs
        .iter()
        .filter(|(_, st)| !st.repr_c)
        .map(|(n, st)| {
            format!(
                "{n}{}",
                if st.pub_fields.is_empty() {
                    " (opaque)"
                } else {
                    ""
                }
            )
        })
        .collect();
    let items = [
        ("NOT_REPR_C", list(&not_repr_c)),
        ("CTEST_CHECKS", list(&ctest_checks)),
        ("SIGNATURES_CHECKED", list(&sig_names)),
        ("FIELD_TYPES_CHECKED", list(&field_checks)),
        ("OPAQUE_TYPES", list(&opaque)),
        (
            "HEADER_ONLY_FUNCTIONS",
            list(diff(hdr_fn_names.iter().copied(), &rust_fn_names)),
        ),
        (
            "RUST_ONLY_FUNCTIONS",
            list(diff(rust_fn_names.iter().copied(), &hdr_fn_names)),
        ),
        (
            "HEADER_ONLY_TYPES",
            list(diff(hdr_types.iter().copied(), &rust_types)),
        ),
        (
            "RUST_ONLY_TYPES",
            list(diff(rust_types.iter().copied(), &hdr_types)),
        ),
        (
            "HEADER_ONLY_CONSTANTS",
            list(diff(hdr_consts.iter().copied(), &rust_consts)),
        ),
        (
            "RUST_ONLY_CONSTANTS",
            list(diff(rust_consts.iter().copied(), &hdr_consts)),
        ),
        ("CONSTANTS_NOT_EVALUATED_BY_BINDGEN", list(not_evaluated)),
    ];
    for (name, value) in items {
        writeln!(w, "pub const {name}: &[&str] = {value};").unwrap();
    }
    fs::write(out.join("abi_checks.rs"), s).expect("write abi_checks.rs");
}
