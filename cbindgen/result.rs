//! cbindgen input of `include/emcp_result.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/result.rs"]
mod src_abi_result;

#[path = "../src/ffi/result.rs"]
mod src_ffi_result;

#[path = "../src/ffi/content.rs"]
mod src_ffi_content;
