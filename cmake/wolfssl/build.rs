//! Hands the wolfSSL install prefix that wolfssl-sys printed (`cargo:root`,
//! seen here as DEP_WOLFSSL_ROOT) to the program, which prints it.
fn main() {
    let root = std::env::var("DEP_WOLFSSL_ROOT").expect("wolfssl-sys sets DEP_WOLFSSL_ROOT");
    println!("cargo:rustc-env=EMCP_WOLFSSL_ROOT={root}");
    println!("cargo:rerun-if-env-changed=DEP_WOLFSSL_ROOT");
}
