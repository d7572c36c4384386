#!/usr/bin/env bash
# Installs what the demo or the tests need on a fresh Debian 12 machine with
# Rust (rustup), Python 3 with pip and Node.js. Idempotent: what is already
# there is not installed again.
#   scripts/install-deps.sh demo   build tools and the Python SDK client
#   scripts/install-deps.sh test   everything the test command uses
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}

apt_pkgs=(cmake)
if [ "$mode" = test ]; then
  apt_pkgs+=(libclang-dev)   # bindgen reads include/emcp.h back in tests/abi
fi
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
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
