#![no_main]
//! See `emcp_fuzz::targets::handle`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::handle::run(data));
