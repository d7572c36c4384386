//! cbindgen input of `include/emcp_roundtrip.h`: the Rust files whose exported items it
//! declares, in this order. Read by cbindgen only (not compiled). A file
//! belongs to one header; see cbindgen/README.md.

#[path = "../src/mac.rs"]
mod src_mac;

#[path = "../src/ffi/input.rs"]
mod src_ffi_input;

#[path = "../src/ffi/roundtrip.rs"]
mod src_ffi_roundtrip;
