# Sourced by scripts/test.d/65-pqc.sh and scripts/pqc-report: builds CoAP
# over DTLS 1.3 on libcoap's wolfSSL backend (issue 39, docs/pqc.md) from the
# libcoap checkout LIBCOAP_PATH names (nothing of libcoap is in the
# repository, and nothing here fetches it), all under build/pqc-coap:
#  - wolfSSL from the crates.io package wolfssl-sys with the options libcoap's
#    backend needs (cmake/wolfssl --features coap: OPENSSL_EXTRA, OPENSSL_ALL,
#    HAVE_EX_DATA, PSK, AES-CCM; DTLS 1.3 and ML-KEM as for the rest of the
#    profile), cargo's target directory build/pqc-coap/wolfssl-cargo;
#  - libcoap, static, with that wolfSSL and bindings/coap/libcoap_wolfssl_groups.h
#    forced in (the groups from the program's configuration), installed in
#    build/pqc-coap/libcoap-install;
#  - greenhouse-coap (with --dtls-groups) and emcp-pqc-coap-client, under
#    ASan/UBSan, in build/pqc-coap/emcp (EMCP_COAP_LIBCOAP_WOLFSSL).
# pqc_coap_build exports GREENHOUSE_COAP_WOLFSSL and EMCP_PQC_COAP_CLIENT
# (tests/pqc/pqc_coap.py). Progress goes to stderr.
pqc_coap_build() {
  local out="$PWD/build/pqc-coap" wolfssl
  [ -f "$LIBCOAP_PATH/src/coap_wolfssl.c" ] && [ -f "$LIBCOAP_PATH/CMakeLists.txt" ] || {
    echo "pqc_coap: LIBCOAP_PATH=$LIBCOAP_PATH is not a libcoap checkout with the wolfSSL backend" \
         "(src/coap_wolfssl.c; v4.3.5 or later)" >&2
    return 1
  }
  echo "pqc_coap: wolfSSL with libcoap's options (cargo, cmake/wolfssl --features coap; minutes the first time)" >&2
  wolfssl=$(nice -n 5 cargo run --release --locked --features coap --manifest-path cmake/wolfssl/Cargo.toml \
              --target-dir "$out/wolfssl-cargo")
  echo "pqc_coap: libcoap from $LIBCOAP_PATH ($(git -C "$LIBCOAP_PATH" describe --tags --always 2>/dev/null ||
        echo 'no git revision')) on $wolfssl" >&2
  nice -n 5 cmake -S "$LIBCOAP_PATH" -B "$out/libcoap" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DENABLE_DTLS=ON -DDTLS_BACKEND=wolfssl -DWOLFSSL_ROOT_DIR="$wolfssl" \
    -DWOLFSSL_INCLUDE_DIR="$wolfssl/include" -DWOLFSSL_LIBRARY="$wolfssl/lib/libwolfssl.a" \
    -DENABLE_DOCS=OFF -DENABLE_TESTS=OFF -DENABLE_EXAMPLES=OFF -DENABLE_TCP=OFF -DENABLE_WS=OFF \
    -DENABLE_OSCORE=OFF -DCMAKE_INSTALL_PREFIX="$out/libcoap-install" \
    "-DCMAKE_C_FLAGS=-include $PWD/bindings/coap/libcoap_wolfssl_groups.h" >/dev/null
  # libcoap's own warnings go to the log, not the step's output.
  nice -n 5 cmake --build "$out/libcoap" -j2 >"$out/libcoap-build.log" 2>&1 ||
    { tail -n 30 "$out/libcoap-build.log" >&2; return 1; }
  cmake --install "$out/libcoap" >/dev/null
  nice -n 5 cmake -S . -B "$out/emcp" -DEMCP_SANITIZE=ON -DEMCP_HTTP_TLS=wolfssl -DEMCP_WOLFSSL_ROOT="$wolfssl" \
    -DEMCP_COAP_LIBCOAP_WOLFSSL="$out/libcoap-install" >/dev/null
  nice -n 5 cmake --build "$out/emcp" -j2 --target greenhouse-coap emcp-pqc-coap-client >/dev/null
  export GREENHOUSE_COAP_WOLFSSL="$out/emcp/examples-c/greenhouse/greenhouse-coap"
  export EMCP_PQC_COAP_CLIENT="$out/emcp/tests/pqc/emcp-pqc-coap-client"
  local b
  for b in "$GREENHOUSE_COAP_WOLFSSL" "$EMCP_PQC_COAP_CLIENT"; do
    [ -x "$b" ] || { echo "pqc_coap: $b was not built" >&2; return 1; }
  done
}
