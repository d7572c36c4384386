//! cbindgen input of `include/emcp_tools.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/tools.rs"]
mod src_abi_tools;

#[path = "../src/handler.rs"]
mod src_handler;

#[path = "../src/ffi/tools.rs"]
mod src_ffi_tools;
