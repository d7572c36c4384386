//! Shared pieces of the emcp fuzz targets.
//!
//! - [`tree`]: an independent JSON reader (serde_json) that keeps duplicate
//!   keys in order and numbers as written, to check what the core did.
//! - [`fixture`]: the server every `handle*` target drives: tools with
//!   schemas (integer bounds, an enum string, a nested object, array items,
//!   string lengths, an outputSchema, input_required) whose Rust handlers
//!   count their invocations and re-validate their own arguments.
//! - [`check`]: the invariants asserted on every exchange.
//! - [`reference`]: a JSON Schema validator for emcp's keyword subset,
//!   written apart from emcp, that the `program` target checks verdicts with.
//!
//! Every violation is a panic, which libFuzzer reports as a crash.

pub mod check;
pub mod fixture;
pub mod gen;
pub mod reference;
pub mod targets;
pub mod tree;
