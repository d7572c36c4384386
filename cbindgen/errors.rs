//! cbindgen input of `include/emcp_errors.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/errors.rs"]
mod src_abi_errors;
