#!/usr/bin/env bash
# Installs what the demo or the tests need on a fresh Debian 12 machine with
# Rust (rustup), Python 3 with pip and Node.js. Idempotent: what is already
# there is not installed again.
# Usage: scripts/install-deps.sh [demo|test]
#   scripts/install-deps.sh demo   build tools and the Python SDK client
#   scripts/install-deps.sh test   everything the test command uses
. "$(dirname "$0")/lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in
  demo|test) ;;
  *) echo "install-deps: unknown mode '$mode' (Usage: scripts/install-deps.sh [demo|test])" >&2; exit 2 ;;
esac

. scripts/lib/apt.sh
if [ "$mode" = test ]; then
  apt_ensure cmake libclang-dev clang   # libclang: bindgen reads include/emcp.h back in tests/abi; clang: header checks, TSan
else
  apt_ensure cmake
fi

# The Python SDK client and the test runner, pinned (pip skips what is there).
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tests/e2e/requirements.txt

if [ "$mode" = test ]; then
  # The MCP Inspector CLI, pinned by tests/e2e/package-lock.json.
  if [ ! -d tests/e2e/node_modules/@modelcontextprotocol/inspector ]; then
    echo "install-deps: npm ci in tests/e2e"
    (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  fi
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt
fi
