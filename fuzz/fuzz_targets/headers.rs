#![no_main]
//! See `emcp_fuzz::targets::headers`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::headers::run(data));
