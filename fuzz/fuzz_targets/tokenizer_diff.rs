#![no_main]
//! See `emcp_fuzz::targets::tokenizer_diff`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| emcp_fuzz::targets::tokenizer_diff::run(data));
