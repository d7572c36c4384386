//! Prints the install prefix of the wolfSSL that wolfssl-sys built
//! (include/ and lib/libwolfssl.a under it), for cmake/wolfssl.cmake.
//! `--help`/`-h`: the usage text.
fn main() {
    if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("Usage: emcp-wolfssl-locate");
        println!("Prints the install prefix of the wolfSSL (with ML-KEM) that the crates.io");
        println!("package wolfssl-sys built: include/ and lib/libwolfssl.a are under it.");
        return;
    }
    println!("{}", env!("EMCP_WOLFSSL_ROOT"));
}
