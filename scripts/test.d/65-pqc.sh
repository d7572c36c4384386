#!/usr/bin/env bash
# The post-quantum TLS profile over HTTP and MQTT (issue 39; docs/pqc.md):
# installs autoconf, automake, libtool and libclang-dev,
# which the crates.io package wolfssl-sys needs to build wolfSSL 5.9.4 with
# ML-KEM (cmake/EmcpWolfssl.cmake; nothing of wolfSSL is in the repository),
# builds greenhouse-http with EMCP_HTTP_TLS=wolfssl, greenhouse-mqtt, the test
# client emcp-pqc-relay and the test server emcp-pqc-terminator in build/pqc
# under ASan/UBSan, then runs
#  - tests/pqc: each group negotiated as configured (X25519, X25519MLKEM768,
#    SecP256r1MLKEM768, pure ML-KEM-768), a hybrid-only client refused by an X25519 server, a
#    silent fallback to X25519 detected, the same certificate check in every
#    group;
#  - tests/pqc/test_pqc_mqtt.py: greenhouse-mqtt through its wolfSSL client
#    and emcp-pqc-terminator to the real mosquitto, a tools/call answered in
#    X25519 and X25519MLKEM768, the group asserted at the terminator, an
#    X25519-only device caught there (mosquitto and paho-mqtt installed here);
#    with COREMQTT_PATH (a coreMQTT v5 checkout) the same tests also with
#    greenhouse-coremqtt-wolfssl, coreMQTT over a wolfSSL transport;
#  - tests/pqc/test_pqc_dtls.py: DTLS 1.3 handshakes between two wolfSSL
#    endpoints (emcp-pqc-dtls) in each group, the hybrid ClientHello
#    fragmented within 1200-byte datagrams;
#  - with LIBCOAP_PATH (a libcoap checkout with the wolfSSL backend, v4.3.5
#    or later; skipped with a line naming it otherwise)
#    tests/pqc/test_pqc_coap.py: greenhouse-coap on that libcoap over DTLS
#    1.3 with a certificate, a tools/call from emcp-pqc-coap-client answered
#    in X25519 and X25519MLKEM768, the group asserted, an X25519-only server
#    caught, the hybrid ClientHello fragmented (scripts/lib/pqc_coap.sh
#    builds it all in build/pqc-coap);
#  - the Python SDK tests of tests/http (test_sdk.py, test_sdk_catalog.py,
#    and test_legacy_input.py on conformance-server: sampling, elicitation and
#    logs) through the relay with X25519MLKEM768 negotiated, then X25519, every
#    handshake's group asserted (EMCP_PQC_GROUP);
#  - the TypeScript SDK's HTTP tests (tests/ts/http.test.mjs; Node 20's
#    OpenSSL 3.0 has no ML-KEM) through the same relay, the same two groups,
#    every handshake's group asserted;
#  - tests/http/test_https.py against the wolfSSL engine (Python's own TLS);
#  - scripts/pqc-report -n 50 --no-size --check-docs (the handshake figures,
#    printed and held to docs/pqc.md's table; the thumbv7em cross build is
#    left out: about a minute).
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
t0=$SECONDS

. scripts/lib/apt.sh
apt_ensure autoconf automake libtool libclang-dev libhttp-parser-dev openssl cmake \
  mosquitto mosquitto-clients libmosquitto-dev pkg-config
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/http/requirements.txt \
  -r tests/mqtt/requirements.txt

# Configuring runs cargo on cmake/wolfssl, which builds wolfSSL the first
# time (minutes; later runs find it built).
echo "65-pqc: configuring build/pqc (EMCP_HTTP_TLS=wolfssl; wolfSSL through cargo and wolfssl-sys)"
nice -n 5 cmake -S . -B build/pqc -DEMCP_SANITIZE=ON -DEMCP_HTTP_TLS=wolfssl >/dev/null
nice -n 5 cmake --build build/pqc -j"$(nproc)" --target greenhouse-http greenhouse-mqtt \
  emcp-pqc-relay emcp-pqc-terminator emcp-pqc-dtls conformance-server
gh="$PWD/build/pqc/examples-c/greenhouse/greenhouse-http"
ghm="$PWD/build/pqc/examples-c/greenhouse/greenhouse-mqtt"
relay="$PWD/build/pqc/tests/pqc/emcp-pqc-relay"
term="$PWD/build/pqc/tests/pqc/emcp-pqc-terminator"
dtls="$PWD/build/pqc/tests/pqc/emcp-pqc-dtls"
conf="$PWD/build/pqc/tests/fixtures/conformance-server"
for b in "$gh" "$ghm" "$relay" "$term" "$dtls" "$conf"; do
  [ -x "$b" ] || { echo "65-pqc: $b was not built" >&2; exit 1; }
done
nm "$gh" | grep ' T wolfSSL_read$' >/dev/null || { echo "65-pqc: $gh is not linked with wolfSSL" >&2; exit 1; }
echo "65-pqc: built in $((SECONDS - t0)) s"

export GREENHOUSE_HTTP="$gh" GREENHOUSE_MQTT="$ghm" EMCP_PQC_RELAY="$relay" EMCP_PQC_TERMINATOR="$term" EMCP_PQC_DTLS="$dtls" \
  CONFORMANCE_SERVER="$conf"

# The firmware pairing, coreMQTT over a wolfSSL transport, needs a coreMQTT v5
# checkout (no registry has coreMQTT): greenhouse-coremqtt-wolfssl
# (examples-c/coremqtt) joins tests/pqc/test_pqc_mqtt.py as a second device.
if [ -n "${COREMQTT_PATH:-}" ]; then
  echo "65-pqc: building greenhouse-coremqtt-wolfssl (coreMQTT at $COREMQTT_PATH over wolfSSL)"
  nice -n 5 cmake -S examples-c/coremqtt -B build/pqc-coremqtt -DCOREMQTT_PATH="$COREMQTT_PATH" \
    -DEMCP_SANITIZE=ON -DEMCP_HTTP_TLS=wolfssl -DEMCP_WOLFSSL_CARGO_TARGET_DIR="$PWD/build/pqc/wolfssl-cargo" >/dev/null
  nice -n 5 cmake --build build/pqc-coremqtt -j"$(nproc)" --target greenhouse-coremqtt-wolfssl
  export EMCP_PQC_COREMQTT="$PWD/build/pqc-coremqtt/greenhouse-coremqtt-wolfssl"
else
  echo "65-pqc: skipped: coreMQTT over wolfSSL (greenhouse-coremqtt-wolfssl): COREMQTT_PATH is not set" \
       "(a coreMQTT v5 checkout, FreeRTOS/coreMQTT); MQTT is tested with greenhouse-mqtt and its wolfSSL client"
fi
# CoAP over DTLS 1.3 needs a libcoap checkout with the wolfSSL backend
# (LIBCOAP_PATH, v4.3.5 or later; no registry has libcoap with it, Debian's
# 4.3.1 has none): scripts/lib/pqc_coap.sh builds wolfSSL with libcoap's
# options, libcoap, greenhouse-coap and emcp-pqc-coap-client in
# build/pqc-coap, and tests/pqc/test_pqc_coap.py runs on them.
if [ -n "${LIBCOAP_PATH:-}" ]; then
  echo "65-pqc: building CoAP over DTLS 1.3 on libcoap's wolfSSL backend (LIBCOAP_PATH=$LIBCOAP_PATH)"
  . scripts/lib/pqc_coap.sh
  pqc_coap_build
  echo "65-pqc: CoAP built in $((SECONDS - t0)) s since the start"
else
  echo "65-pqc: skipped: CoAP over DTLS 1.3 (greenhouse-coap on libcoap's wolfSSL backend, tests/pqc/test_pqc_coap.py):" \
       "LIBCOAP_PATH is not set (a libcoap checkout with the wolfSSL backend, v4.3.5 or later)"
fi
# The profile's programs are only in this build: --help and -h here (tests/help).
echo "65-pqc: --help and -h of the profile's programs"
python3 tests/help/check_help.py --root "$PWD" --programs-only "$relay" "$term" "$dtls" \
  ${EMCP_PQC_COREMQTT:+"$EMCP_PQC_COREMQTT"} ${EMCP_PQC_COAP_CLIENT:+"$EMCP_PQC_COAP_CLIENT"} \
  ${GREENHOUSE_COAP_WOLFSSL:+"$GREENHOUSE_COAP_WOLFSSL"} | tail -n 1

echo "65-pqc: tests/pqc (HTTP, MQTT, DTLS, CoAP with LIBCOAP_PATH: groups negotiated, refused, fallback detected)"
(cd tests/pqc && timeout 300 python3 -m pytest -v -p no:cacheprovider .)

for group in X25519MLKEM768 X25519; do
  echo "65-pqc: Python SDK tests through emcp-pqc-relay, $group negotiated and asserted"
  (cd tests/http && EMCP_PQC_GROUP="$group" timeout 300 python3 -m pytest -v -p no:cacheprovider \
     test_sdk.py test_sdk_catalog.py test_legacy_input.py)
done

[ -d tests/ts/node_modules ] || (cd tests/ts && timeout 300 npm ci --no-audit --no-fund --loglevel=error)
for group in X25519MLKEM768 X25519; do
  echo "65-pqc: TypeScript SDK HTTP tests through emcp-pqc-relay, $group negotiated and asserted"
  (cd tests/ts && EMCP_PQC_GROUP="$group" timeout 300 node --test --test-concurrency=1 --test-timeout=60000 \
     --test-reporter=spec http.test.mjs)
done

echo "65-pqc: tests/http/test_https.py on the wolfSSL engine"
(cd tests/http && timeout 300 python3 -m pytest -v -p no:cacheprovider test_https.py)
echo "65-pqc: scripts/pqc-report -n 50 --no-size --check-docs (a group not negotiated, or bytes unlike the docs' table)"
scripts/pqc-report -n 50 --no-size --check-docs
echo "65-pqc: done in $((SECONDS - t0)) s"
