//! cbindgen input of `include/emcp_limits.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/limits.rs"]
mod src_limits;

#[path = "../src/ffi/limit.rs"]
mod src_ffi_limit;
