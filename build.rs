//! Build-time limits: lets a firmware build override the limits of
//! `src/limits.rs` without editing it, so the library and the C header it is
//! used with agree.
//!
//! Every `pub const MCP_<NAME>: usize = <integer literal>;` in src/limits.rs
//! (except the few in `FIXED`, which other constants or the protocol depend
//! on) can be overridden by the environment variable `EMCP_<NAME>` (for
//! example `EMCP_MAX_TOOLS=4` for `MCP_MAX_TOOLS`). Derived constants
//! (`MCP_SERVER_SIZE`, `MCP_DEDUP_WORDS`, ...) are expressions over the others
//! and follow.
//!
//! - Without overrides nothing changes: `src/limits.rs` is compiled as
//!   written and is what cbindgen exports to include/emcp.h.
//! - With overrides, this script writes `$OUT_DIR/limits.rs` (src/limits.rs
//!   with the overridden literals replaced) and sets the cfg
//!   `emcp_limits_override`, under which src/lib.rs includes that file as the
//!   `limits` module instead. The C side must then use a header with the same
//!   values: the CMake option `EMCP_LIMITS` writes one (see CMakeLists.txt).
//! - In both cases `$OUT_DIR/limit_table.rs` lists every `usize` limit with its
//!   effective value, for `mcp_build_limit()`, so a program can check that its
//!   header and the linked library agree.
//!
//! An `EMCP_MAX_*` or `EMCP_DEDUP_*` variable that names no overridable limit
//! fails the build, so a typo cannot go unnoticed.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Limits that are not overridable: the protocol fixes them, or another
/// limit's guarantee is computed from them.
const FIXED: &[&str] = &[
    "MCP_MAX_TOOL_NAME_LEN",      // MCP: tool names are 1 to 128 characters
    "MCP_MAX_ID_LEN",             // MCP_MIN_RESPONSE_CAP is sized for it
    "MCP_MIN_RESPONSE_CAP",       // must hold an error with an MCP_MAX_ID_LEN id
    "MCP_FRAMER_WORDS",           // the framer's fixed layout
    "MCP_ROUNDTRIP_WORDS",        // the round trip's fixed layout
    "MCP_TOOL_SLOT_SIZE",         // a tool slot's fixed layout
    "MCP_ROUNDTRIP_MAX_REQUESTS", // the answered mask is one byte
];

/// Largest value accepted for any overridden limit (a sanity bound; the
/// library's compile-time layout checks catch inconsistent combinations).
const MAX_VALUE: usize = 1 << 20;

/// Tables a firmware may leave out entirely (0 entries, no storage in
/// `mcp_server_t`): registering into them then returns `-MCP_ENOSPC`.
const MAY_BE_ZERO: &[&str] = &["MCP_MAX_RESOURCES", "MCP_MAX_PROMPTS"];

struct Limit {
    name: String,
    /// Line index of a literal definition, when overridable.
    literal_line: Option<usize>,
    /// The literal's value, when overridable.
    default: Option<usize>,
}

fn main() {
    println!("cargo::rerun-if-changed=src/limits.rs");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(emcp_limits_override)");
    eh_personality_cfg();

    let src = fs::read_to_string("src/limits.rs").expect("build.rs: cannot read src/limits.rs");
    let mut lines: Vec<String> = src.lines().map(str::to_owned).collect();
    let limits = scan(&lines);

    let mut overridden = Vec::new();
    for l in &limits {
        let var = env_name(&l.name);
        println!("cargo::rerun-if-env-changed={var}");
        let Ok(text) = env::var(&var) else { continue };
        let Some(idx) = l.literal_line else {
            fail(&format!(
                "{var} is set, but {} is derived or fixed and cannot be overridden",
                l.name
            ));
        };
        let value: usize = text.trim().parse().unwrap_or_else(|_| {
            fail(&format!("{var}={text:?} is not a non-negative integer"));
        });
        let min = usize::from(!MAY_BE_ZERO.contains(&l.name.as_str()));
        if value < min || value > MAX_VALUE {
            fail(&format!("{var}={value} is outside {min}..={MAX_VALUE}"));
        }
        if l.default == Some(value) {
            continue; // the value src/limits.rs already has
        }
        lines[idx] = format!("pub const {}: usize = {value};", l.name);
        overridden.push((l.name.clone(), value));
    }
    for (var, _) in env::vars() {
        let limit_like = var.starts_with("EMCP_MAX_") || var.starts_with("EMCP_DEDUP_");
        if limit_like && !limits.iter().any(|l| env_name(&l.name) == var) {
            fail(&format!("{var} names no limit of src/limits.rs"));
        }
    }

    let out = env::var("OUT_DIR").expect("build.rs: OUT_DIR is not set");
    let out = Path::new(&out);
    if !overridden.is_empty() {
        // Inner doc comments cannot appear in an include!d file.
        let body: String = lines
            .iter()
            .filter(|l| !l.trim_start().starts_with("//!"))
            .fold(String::new(), |mut s, l| {
                s.push_str(l);
                s.push('\n');
                s
            });
        fs::write(out.join("limits.rs"), body).expect("build.rs: cannot write limits.rs");
        println!("cargo::rustc-cfg=emcp_limits_override");
        for (name, value) in &overridden {
            println!("cargo::warning=emcp: {name} = {value} (build-time override)");
        }
    }

    let mut table = String::from(
        "/// Every `usize` limit of `crate::limits` and its effective value.\n\
         pub(crate) const LIMITS: &[(&str, usize)] = &[\n",
    );
    for l in &limits {
        let _ = writeln!(table, "    (\"{0}\", crate::limits::{0}),", l.name);
    }
    table.push_str("];\n");
    fs::write(out.join("limit_table.rs"), table).expect("build.rs: cannot write limit_table.rs");
}

/// `MCP_MAX_TOOLS` → `EMCP_MAX_TOOLS`.
fn env_name(limit: &str) -> String {
    format!("E{limit}")
}

/// Every `pub const MCP_*: usize` of limits.rs, and whether it is a literal.
fn scan(lines: &[String]) -> Vec<Limit> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("pub const MCP_") else {
            continue;
        };
        let Some((name, rhs)) = rest.split_once(": usize =") else {
            continue;
        };
        let name = format!("MCP_{name}");
        let rhs = rhs.trim();
        let literal = rhs
            .strip_suffix(';')
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'_'))
            .and_then(|v| v.replace('_', "").parse::<usize>().ok());
        let default = literal.filter(|_| !FIXED.contains(&name.as_str()));
        found.push(Limit {
            name,
            literal_line: default.map(|_| i),
            default,
        });
    }
    found
}

fn fail(msg: &str) -> ! {
    eprintln!("error: emcp build-time limits: {msg}");
    std::process::exit(1);
}

/// Which weak-definition form of `rust_eh_personality` the target's object
/// format takes (src/ffi/mod.rs): `emcp_eh_elf` (Linux, Android, the BSDs on
/// the architectures whose return instruction it knows), `emcp_eh_macho`
/// (Apple), neither elsewhere (a plain strong definition).
fn eh_personality_cfg() {
    println!("cargo::rustc-check-cfg=cfg(emcp_eh_elf)");
    println!("cargo::rustc-check-cfg=cfg(emcp_eh_macho)");
    let var = |k: &str| env::var(k).unwrap_or_default();
    let (arch, vendor, os) = (
        var("CARGO_CFG_TARGET_ARCH"),
        var("CARGO_CFG_TARGET_VENDOR"),
        var("CARGO_CFG_TARGET_OS"),
    );
    let elf_arch = matches!(
        arch.as_str(),
        "x86_64" | "x86" | "aarch64" | "arm" | "riscv64" | "riscv32"
    );
    if vendor == "apple" && matches!(arch.as_str(), "x86_64" | "aarch64") {
        println!("cargo::rustc-cfg=emcp_eh_macho");
    } else if vendor != "apple" && elf_arch && !matches!(os.as_str(), "windows" | "uefi") {
        println!("cargo::rustc-cfg=emcp_eh_elf");
    }
}
