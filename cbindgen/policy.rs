//! cbindgen input of `include/emcp_policy.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/policy.rs"]
mod src_abi_policy;

#[path = "../src/policy.rs"]
mod src_policy;

#[path = "../src/ffi/policy.rs"]
mod src_ffi_policy;
