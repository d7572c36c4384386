#![no_main]
//! See `emcp_fuzz::targets::roundtrip`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::roundtrip::run(data));
