#![no_main]
//! See `emcp_fuzz::targets::handle_structured`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::handle_structured::run(data));
