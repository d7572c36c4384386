#![no_main]
//! See `emcp_fuzz::targets::framer`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::framer::run(data));
