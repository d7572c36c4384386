#!/usr/bin/env bash
# A board on the desk: emcp-bridge (tools/bridge) between real MCP clients
# and the greenhouse firmware serving MCP on its UART under QEMU
# (examples-c/firmware/serve.c, fw-<core>-uart.elf, started by
# scripts/run-firmware), on a Cortex-M4F (mps2-an386) and a Cortex-M0
# (mps2-an385). Each client starts the bridge with the command line of
# README.md's host entries:
#   - tests/bridge (pytest): the official Python SDK client, mode auto and
#     legacy: discover/initialize, tools/list, both tools with good and bad
#     arguments, the rate limit, a resource, the firmware's audit lines; the
#     firmware killed mid-request and restarted (the request in flight gets
#     -32000 with its id, the next call succeeds); raw requests with number
#     and string ids in flight; the serial path on a pty (the bridge's raw
#     mode and --baud checked with termios, a burst of boot noise dropped;
#     the port vanishing with a request in flight and coming back under the
#     same path); the bridge's own answers (hold, timeout and a late answer,
#     an oversize host line).
#   - tests/ts/firmware-bridge.mjs: the official TypeScript SDK client, the
#     same session and reset on both cores.
# The firmware is built in build/firmware/<core> like 40-firmware.sh does
# (after it, only the UART image is new); the bridge with ASan/UBSan in build/.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
. scripts/lib/apt.sh
apt_ensure cmake make rustc-web cargo-web rust-web-src gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/e2e/requirements.txt
[ -d tests/ts/node_modules ] || (cd tests/ts && timeout 300 npm ci --no-audit --no-fund --loglevel=error)

# The same flags as scripts/test.sh, so the shared build dir is not reconfigured.
cmake -S . -B build -DEMCP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)" --target emcp-bridge
for t in m4f m0; do
  echo "42-bridge: $(scripts/run-firmware --target "$t" --build-only 2>build/run-firmware-$t.log)" ||
    { tail -n 40 "build/run-firmware-$t.log"; exit 1; }
done

echo "42-bridge: Python SDK $(python3 -c 'import importlib.metadata as m; print(m.version("mcp"))') through emcp-bridge"
# Its own base temp dir: the default one is shared with (and pruned by) other pytest runs.
(cd tests/bridge && timeout 600 python3 -m pytest -v --basetemp="$PWD/../../build/pytest-bridge")
echo "42-bridge: TypeScript SDK $(node -p 'require("./tests/ts/node_modules/@modelcontextprotocol/sdk/package.json").version') through emcp-bridge"
(cd tests/ts && timeout 300 node --test --test-concurrency=1 --test-timeout=60000 --test-reporter=spec firmware-bridge.mjs)
