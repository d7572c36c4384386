//! cbindgen input of `include/emcp_catalog.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/catalog.rs"]
mod src_abi_catalog;

#[path = "../src/ffi/catalog.rs"]
mod src_ffi_catalog;
