#!/usr/bin/env bash
# The main job: builds emcp and the greenhouse example, then runs
# greenhouse-stdio under the official MCP Python SDK client, which negotiates
# MCP 2026-07-28 through server/discover and prints the exchange.
. "$(dirname "$0")/lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/install-deps.sh demo
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)"
python3 scripts/greenhouse_demo.py build/examples-c/greenhouse/greenhouse-stdio
