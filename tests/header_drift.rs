//! The committed C header must be exactly what cbindgen generates from src/.
//!
//! How to run (from the repository root):
//! - header drift (include/emcp.h vs cbindgen 0.29.4 output): `cargo test --features std --test header_drift`
//!
//! On failure, regenerate the header with the cbindgen CLI of the same version:
//! `cbindgen --config cbindgen.toml --crate emcp --output include/emcp.h`

use std::path::Path;

const REGENERATE: &str =
    "regenerate with: cbindgen --config cbindgen.toml --crate emcp --output include/emcp.h";

#[test]
fn committed_header_matches_cbindgen_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| panic!("cannot read cbindgen.toml: {e}"));
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen failed on the crate: {e}"));
    let mut generated = Vec::new();
    bindings.write(&mut generated);

    let header_path = dir.join("include/emcp.h");
    let committed = std::fs::read(&header_path)
        .unwrap_or_else(|e| panic!("include/emcp.h is missing ({e}): {REGENERATE}"));

    if committed != generated {
        let (committed_text, generated_text) = (
            String::from_utf8_lossy(&committed),
            String::from_utf8_lossy(&generated),
        );
        let first = committed_text
            .lines()
            .zip(generated_text.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || {
                    format!(
                        "the files agree line by line but differ in length or line ends ({} vs {} bytes)",
                        committed.len(),
                        generated.len()
                    )
                },
                |i| {
                    format!(
                        "first difference at line {}:\n  committed: {}\n  generated: {}",
                        i + 1,
                        committed_text.lines().nth(i).unwrap_or(""),
                        generated_text.lines().nth(i).unwrap_or("")
                    )
                },
            );
        panic!("include/emcp.h is stale: {REGENERATE}\n{first}");
    }
    println!(
        "include/emcp.h matches cbindgen 0.29.4 output ({} bytes)",
        generated.len()
    );
}
