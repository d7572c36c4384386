#!/usr/bin/env bash
# The official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned by
# tests/ts/package-lock.json) against greenhouse-stdio (StdioClientTransport)
# and greenhouse-http (StreamableHTTPClientTransport, without and with a bearer
# token), 2025-11-25 era; and the host configuration entries of README.md,
# connected exactly as written. Node's built-in test runner (node --test).
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure libhttp-parser-dev libssl-dev libmbedtls-dev openssl cmake

echo "12-ts-sdk: npm ci in tests/ts"
(cd tests/ts && timeout 300 npm ci --no-audit --no-fund --loglevel=error)

# The same flags as scripts/test.sh, so the shared build dir is not reconfigured.
cmake -S . -B build -DEMCP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)" --target greenhouse-stdio greenhouse-http
for b in build/examples-c/greenhouse/greenhouse-stdio build/examples-c/greenhouse/greenhouse-http; do
  [ -x "$b" ] || { echo "12-ts-sdk: $b was not built" >&2; exit 1; }
done

echo "12-ts-sdk: node --test tests/ts (TypeScript SDK $(node -p 'require("./tests/ts/node_modules/@modelcontextprotocol/sdk/package.json").version'))"
(cd tests/ts &&
  GREENHOUSE_STDIO="$PWD/../../build/examples-c/greenhouse/greenhouse-stdio" \
  GREENHOUSE_HTTP="$PWD/../../build/examples-c/greenhouse/greenhouse-http" \
  timeout 300 node --test --test-concurrency=1 --test-timeout=60000 --test-reporter=spec)
