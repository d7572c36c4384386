//! cbindgen input of `include/emcp_store.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/store.rs"]
mod src_abi_store;

#[path = "../src/store.rs"]
mod src_store;

#[path = "../src/durable.rs"]
mod src_durable;

#[path = "../src/ffi/store.rs"]
mod src_ffi_store;
