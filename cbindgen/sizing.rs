//! cbindgen input of `include/emcp_sizing.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/ffi/sizing.rs"]
mod src_ffi_sizing;
