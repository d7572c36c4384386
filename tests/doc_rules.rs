//! Each rule is written once: the header's Threading paragraph (cbindgen/emcp.toml,
//! copied into include/emcp.h) is the text; the README quotes it word for
//! word, and the other documents point to it instead of restating it.
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
