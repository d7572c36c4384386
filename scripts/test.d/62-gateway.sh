#!/usr/bin/env bash
# emcp-gateway (tools/gateway, docs/gateway.md): one MCP server on stdio,
# Streamable HTTP or both for the devices behind an MQTT 5 broker. tests/gateway starts a real mosquitto
# on a free loopback port, three real greenhouse-mqtt devices and the
# gateway, and drives it with the official Python SDK client in both eras:
# the list shows DEVICE.read_sensor and DEVICE.set_vent of all three, calls
# reach the right device, invalid arguments are refused by the gateway's core
# before forwarding, a SIGKILLed device (its Will fires) leaves the list and
# a call to it answers "offline" as isError, a restarted one returns; raw
# lines check number text against a direct call and a hung device's timeout;
# over HTTP (--http) the same client in both eras, the binding's Origin and
# bearer checks; principals from tokens or the stdio host's --principal, and
# --allow rules under which two tenants see disjoint devices;
# notifications/tools/list_changed in both eras on stdio and over HTTP (the
# HTTP binding's legacy GET stream: a legacy client's Will-to-notification);
# stdio and HTTP from one process (--http --stdio, README's entry, a
# principal per transport); a real device core's results with every content
# block kind, annotations and edge numbers (emcp-fleet-sim --rich) byte for
# byte as a direct MQTT call gets them.
# Then tests/ts/fleet-gateway.mjs: the official TypeScript SDK client through
# the gateway with README's host entry (2025-11-25 era), the same session,
# then over HTTP with a bearer token; list_changed on both transports.
# Then scripts/fleet-bench at reduced size (20 devices in emcp-fleet-sim, two
# gateways): it fails if any call is unanswered or answered wrongly, or a
# device never leaves or appears; its figures are printed, not asserted.
# Last, cmake --install of the build puts bin/emcp-gateway and
# bin/emcp-fleet-sim in place.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure_retry 62-gateway mosquitto mosquitto-clients libmosquitto-dev libhttp-parser-dev pkg-config
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/gateway/requirements.txt
[ -d tests/ts/node_modules ] || (cd tests/ts && timeout 300 npm ci --no-audit --no-fund --loglevel=error)

# The same flags as scripts/test.sh, so the shared build dir is not
# reconfigured; configured again because a fresh machine's first configure
# ran before libmosquitto-dev and libhttp-parser-dev were installed (no gateway,
# no greenhouse-mqtt).
cmake -S . -B build -DEMCP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)" --target emcp-gateway emcp-fleet-sim greenhouse-mqtt
for bin in build/tools/gateway/emcp-gateway build/tools/gateway/emcp-fleet-sim \
           build/examples-c/greenhouse/greenhouse-mqtt; do
  [ -x "$bin" ] || { echo "62-gateway: $bin was not built (is libmosquitto found by pkg-config?)" >&2; exit 1; }
done

echo "62-gateway: Python SDK $(python3 -c 'import importlib.metadata as m; print(m.version("mcp"))') through emcp-gateway"
# Its own base temp dir: the default one is shared with (and pruned by) other pytest runs.
t0=$SECONDS
EMCP_GATEWAY="$PWD/build/tools/gateway/emcp-gateway" \
GREENHOUSE_MQTT="$PWD/build/examples-c/greenhouse/greenhouse-mqtt" \
  python3 -m pytest -v --basetemp="$PWD/build/pytest-gateway" tests/gateway
echo "62-gateway: Python tests took $((SECONDS - t0))s"

echo "62-gateway: TypeScript SDK $(node -p 'require("./tests/ts/node_modules/@modelcontextprotocol/sdk/package.json").version') through emcp-gateway"
t0=$SECONDS
(cd tests/ts && GREENHOUSE_MQTT="$PWD/../../build/examples-c/greenhouse/greenhouse-mqtt" \
  timeout 300 node --test --test-concurrency=1 --test-timeout=60000 --test-reporter=spec fleet-gateway.mjs)
echo "62-gateway: TypeScript tests took $((SECONDS - t0))s"

echo "62-gateway: scripts/fleet-bench at reduced size (20 devices, two gateways)"
t0=$SECONDS
timeout 300 scripts/fleet-bench --devices 20 --calls 200 --build build
echo "62-gateway: fleet bench took $((SECONDS - t0))s"

echo "62-gateway: cmake --install puts the gateway and the simulator in bin/"
cmake --build build -j"$(nproc)" >/dev/null
rm -rf build/gateway-install
cmake --install build --prefix build/gateway-install >/dev/null
for p in emcp-gateway emcp-fleet-sim; do
  build/gateway-install/bin/$p --help | grep -q Usage ||
    { echo "62-gateway: bin/$p is not installed or answers no --help" >&2; exit 1; }
done
rm -rf build/gateway-install
