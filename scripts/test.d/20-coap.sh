#!/usr/bin/env bash
# The CoAP binding (docs/bindings/coap.md): installs libcoap 4.3 (headers and
# Debian's coap-client-notls/-openssl) and aiocoap, rebuilds the tree so that
# greenhouse-coap and the emcp-coap-fixture servers exist (build/ was configured before
# this step, possibly without libcoap), then runs tests/coap against them
# under ASan/UBSan.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/lib/apt.sh
apt_ensure libcoap3-dev libcoap3-bin pkg-config openssl
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/coap/requirements.txt

cmake -S . -B build -DEMCP_SANITIZE=ON
cmake --build build -j"$(nproc)"

bin=build/examples-c/greenhouse/greenhouse-coap
fixture=build/tests/fixtures/emcp-coap-fixture
tiny=build/tests/fixtures/emcp-coap-fixture-tiny
for b in "$bin" "$fixture" "$tiny"; do
  if [ ! -x "$b" ]; then
    echo "20-coap: $b was not built (is libcoap-3-openssl visible to pkg-config?)" >&2
    exit 1
  fi
done

GREENHOUSE_COAP="$PWD/$bin" EMCP_COAP_FIXTURE="$PWD/$fixture" EMCP_COAP_FIXTURE_TINY="$PWD/$tiny" \
  python3 -m pytest -v -p no:cacheprovider tests/coap
