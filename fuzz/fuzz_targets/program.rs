#![no_main]
//! See `emcp_fuzz::targets::program`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::program::run(data));
