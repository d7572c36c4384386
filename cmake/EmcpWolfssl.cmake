# wolfSSL for EMCP_HTTP_TLS=wolfssl (the post-quantum TLS profile:
# X25519MLKEM768 beside X25519). Not vendored, and not Debian's libwolfssl
# (5.5, no ML-KEM): by default configure runs cargo on cmake/wolfssl, a
# package whose only dependency is the crates.io package wolfssl-sys; that
# crate builds the wolfSSL source it ships (5.9.4) with autotools and ML-KEM
# (needs Debian autoconf, automake, libtool, and libclang-dev for its
# bindgen step). The package's program prints the install prefix
# wolfssl-sys announced (DEP_WOLFSSL_ROOT). The first configure takes a few
# minutes; later ones find cargo's output up to date.
#
# EMCP_WOLFSSL_ROOT names a wolfSSL install prefix instead (include/wolfssl/
# options.h and lib/libwolfssl.a; e.g. a commercially licensed build); it
# needs TLS 1.3, and ML-KEM for the hybrid groups.
#
# Defines the imported target emcp_wolfssl and EMCP_WOLFSSL_ROOT_USED.
set(EMCP_WOLFSSL_ROOT "" CACHE PATH "wolfSSL install prefix for EMCP_HTTP_TLS=wolfssl (empty: build it from the crates.io package wolfssl-sys through cmake/wolfssl)")
set(EMCP_WOLFSSL_CARGO_TARGET_DIR "${CMAKE_BINARY_DIR}/wolfssl-cargo" CACHE PATH "cargo's --target-dir for cmake/wolfssl (build directories may share it)")
set(emcp_wolfssl_manifest "${CMAKE_CURRENT_LIST_DIR}/wolfssl/Cargo.toml")
set(emcp_wolfssl_site "${CMAKE_CURRENT_LIST_DIR}/wolfssl/config.site")

function(emcp_wolfssl_locate)
  if(TARGET emcp_wolfssl)
    return()
  endif()
  set(root "${EMCP_WOLFSSL_ROOT}")
  if(NOT root)
    find_program(EMCP_CARGO cargo HINTS "$ENV{HOME}/.cargo/bin" REQUIRED)
    message(STATUS "emcp: wolfSSL from the crates.io package wolfssl-sys (cargo run on cmake/wolfssl, "
                   "target dir ${EMCP_WOLFSSL_CARGO_TARGET_DIR}); the first build takes minutes")
    # cargo's progress goes to the terminal; stdout is the prefix alone.
    # wolfSSL's configure reads cmake/wolfssl/config.site (pure ML-KEM-768,
    # which no wolfssl-sys feature gives). wolfssl-sys's build script does not
    # watch that variable or file, so a wolfSSL built with another site file
    # (or before there was one) is cleaned first: the stamp holds the hash of
    # the site file the build in this target directory was made with.
    file(SHA256 "${emcp_wolfssl_site}" site_hash)
    set(stamp "${EMCP_WOLFSSL_CARGO_TARGET_DIR}/emcp-config-site.sha256")
    set(built_hash "")
    if(EXISTS "${stamp}")
      file(READ "${stamp}" built_hash)
    endif()
    if(NOT built_hash STREQUAL site_hash)
      message(STATUS "emcp: cmake/wolfssl/config.site changed since wolfSSL was built here: rebuilding it")
      execute_process(COMMAND "${EMCP_CARGO}" clean --release --quiet -p wolfssl-sys
                              --manifest-path "${emcp_wolfssl_manifest}"
                              --target-dir "${EMCP_WOLFSSL_CARGO_TARGET_DIR}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "CONFIG_SITE=${emcp_wolfssl_site}"
                            "${EMCP_CARGO}" run --release --locked
                            --manifest-path "${emcp_wolfssl_manifest}"
                            --target-dir "${EMCP_WOLFSSL_CARGO_TARGET_DIR}"
                    OUTPUT_VARIABLE root RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "emcp: building wolfSSL through cargo failed (${rc}). It needs autoconf, automake, "
                          "libtool and libclang-dev (apt-get install autoconf automake libtool libclang-dev), "
                          "or set EMCP_WOLFSSL_ROOT to an installed wolfSSL")
    endif()
    file(WRITE "${stamp}" "${site_hash}")
  endif()
  if(NOT EXISTS "${root}/include/wolfssl/options.h" OR NOT EXISTS "${root}/lib/libwolfssl.a")
    message(FATAL_ERROR "emcp: no wolfSSL at '${root}' (wants include/wolfssl/options.h and lib/libwolfssl.a)")
  endif()
  file(STRINGS "${root}/include/wolfssl/options.h" mlkem REGEX "^#define WOLFSSL_HAVE_MLKEM")
  if(NOT mlkem)
    message(WARNING "emcp: the wolfSSL at ${root} has no ML-KEM: only classical groups (X25519) will work")
  endif()
  find_package(Threads REQUIRED)
  add_library(emcp_wolfssl STATIC IMPORTED GLOBAL)
  set_target_properties(emcp_wolfssl PROPERTIES IMPORTED_LOCATION "${root}/lib/libwolfssl.a"
                        INTERFACE_INCLUDE_DIRECTORIES "${root}/include"
                        INTERFACE_LINK_LIBRARIES "Threads::Threads;m")
  set(EMCP_WOLFSSL_ROOT_USED "${root}" CACHE INTERNAL "The wolfSSL prefix emcp::http was built with")
endfunction()
