//! cbindgen input of `include/emcp_call.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/call.rs"]
mod src_abi_call;

#[path = "../src/ffi/call.rs"]
mod src_ffi_call;
