//! cbindgen input of `include/emcp_server.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/server.rs"]
mod src_abi_server;

#[path = "../src/ffi/types.rs"]
mod src_ffi_types;

#[path = "../src/ffi/server.rs"]
mod src_ffi_server;
