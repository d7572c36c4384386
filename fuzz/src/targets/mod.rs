//! The body of every fuzz target, callable from tests (regression replay).

pub mod framer;
pub mod handle;
pub mod handle_structured;
pub mod headers;
pub mod program;
pub mod roundtrip;
pub mod schema;
pub mod tokenizer_diff;
