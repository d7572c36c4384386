//! Schema seals: a tool's schemas checked at build time instead of at
//! registration.
//!
//! Owns: the seal of a tool's schema texts (a 32-bit FNV-1a hash of the
//! texts under a salt naming the checker's version and the limits it
//! applied) and the light registration check of a build without the
//! `schema-check` feature (well-formed JSON within `MCP_MAX_DEPTH` and
//! `MCP_MAX_SCHEMA_TOKENS`, and a seal that matches).
//! Must not: allocate, or tell a build without the checker which seal a
//! text would need (a seal must only ever come from a build that checked
//! the text).
//!
//! A seal says "a library with the full checker accepted exactly these
//! texts". The firmware's build takes it from `mcp_schema_seal` (or the
//! `emcp-seal` host program) and writes it into `mcp_tool_t.schema_seal`;
//! a library built without `schema-check` then registers the tool only when
//! the seal matches the texts it is given, so an edited schema that nobody
//! re-checked is refused, never served half-checked. The hash guards
//! against edits, not against an attacker: whoever writes the seal also
//! writes the firmware.

use super::Span;
use super::compile::{SchemaError, SchemaErrorKind};
use crate::json::{TokenizeError, check};
use crate::limits::{MCP_MAX_DEPTH, MCP_MAX_MULTIPLE_OF_DIGITS, MCP_MAX_SCHEMA_TOKENS};

/// The checker's version: raised whenever the set of schemas the checker
/// accepts, or what the validator makes of them, changes, so that seals
/// from an older library stop matching.
const SEAL_VERSION: u8 = 2;

/// The seal of a tool's input schema and (optional) output schema. Never 0
/// (`schema_seal = 0` means "not sealed").
pub fn seal(input: &str, output: Option<&str>) -> u32 {
    let mut h = fnv1a(SALTED, input.as_bytes());
    if let Some(out) = output {
        // A schema text holds no NUL byte (C strings), so the separator
        // keeps (input, output) pairs apart.
        h = fnv1a(h, &[0]);
        h = fnv1a(h, out.as_bytes());
    }
    if h == 0 { 1 } else { h }
}

/// The hash state after the salt: the checker's version and the one limit
/// the checker applies that registration here does not check again.
const SALTED: u32 = fnv1a(
    0x811c_9dc5,
    &[
        b'e',
        b'm',
        b'c',
        b'p',
        SEAL_VERSION,
        MCP_MAX_MULTIPLE_OF_DIGITS as u8,
    ],
);

const fn fnv1a(mut h: u32, bytes: &[u8]) -> u32 {
    let mut i = 0;
    while i < bytes.len() {
        #[allow(clippy::indexing_slicing)] // i < len, checked by the loop
        let b = bytes[i];
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

/// The registration check of a build without the checker: `text` is one
/// JSON value within `MCP_MAX_DEPTH` and `MCP_MAX_SCHEMA_TOKENS` (the limits
/// of this build, which may differ from the sealing build's), with the same
/// errors the checker gives.
pub fn well_formed(text: &str) -> Result<(), SchemaError> {
    let counted = check(text.as_bytes(), MCP_MAX_DEPTH).and_then(|n| {
        if n > MCP_MAX_SCHEMA_TOKENS {
            Err(TokenizeError::TooManyTokens)
        } else {
            Ok(n)
        }
    });
    counted.map(|_| ()).map_err(|e| SchemaError {
        kind: SchemaErrorKind::Malformed,
        reason: match e {
            TokenizeError::TooManyTokens => {
                "schema has more JSON tokens than MCP_MAX_SCHEMA_TOKENS"
            }
            TokenizeError::TooDeep => "schema nests deeper than MCP_MAX_DEPTH",
            _ => "schema is not valid JSON",
        },
        at: Span {
            start: 0,
            end: text.len() as u32,
        },
        bound: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_binds_both_texts() {
        let a = seal("{\"type\":\"object\"}", None);
        assert_ne!(a, 0);
        assert_eq!(a, seal("{\"type\":\"object\"}", None));
        // One byte more, a different output schema, or none: another seal.
        assert_ne!(a, seal("{\"type\":\"object\"} ", None));
        assert_ne!(
            a,
            seal("{\"type\":\"object\"}", Some("{\"type\":\"object\"}"))
        );
        assert_ne!(
            seal("{\"type\":\"object\"}", Some("{}")),
            seal("{\"type\":\"object\"}", Some("{ }"))
        );
    }

    #[test]
    fn well_formed_gives_the_checker_s_errors() {
        assert!(well_formed("{\"type\":\"object\"}").is_ok());
        let e = well_formed("{\"type\":").unwrap_err();
        assert_eq!(e.kind, SchemaErrorKind::Malformed);
        assert_eq!(e.reason, "schema is not valid JSON");
        let deep = "[".repeat(MCP_MAX_DEPTH + 1) + &"]".repeat(MCP_MAX_DEPTH + 1);
        assert_eq!(
            well_formed(&deep).unwrap_err().reason,
            "schema nests deeper than MCP_MAX_DEPTH"
        );
    }
}
