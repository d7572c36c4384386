//! cbindgen input of `include/emcp_framer.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/abi/framer.rs"]
mod src_abi_framer;

#[path = "../src/ffi/framer.rs"]
mod src_ffi_framer;

#[path = "../src/ffi/rpc.rs"]
mod src_ffi_rpc;
