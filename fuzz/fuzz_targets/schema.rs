#![no_main]
//! See `emcp_fuzz::targets::schema`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::schema::run(data));
