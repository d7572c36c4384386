#!/usr/bin/env bash
# Adversarial inputs against greenhouse-stdio (tests/adversarial, pytest):
# 100,000-deep nesting, 1 MB strings, invalid UTF-8, surrogate escapes, NUL
# bytes, 1e400 / -0 / 2^64 integer arguments, duplicate and escaped keys, long
# ids, nested _meta, truncated messages, tools/call as a notification, and an
# endless line. Uses the binary scripts/test.sh built (ASan/UBSan) unless
# GREENHOUSE_STDIO names another; builds it if it is missing.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export GREENHOUSE_STDIO="${GREENHOUSE_STDIO:-$PWD/build/examples-c/greenhouse/greenhouse-stdio}"
if [ ! -x "$GREENHOUSE_STDIO" ]; then
  cmake -S . -B build -DEMCP_SANITIZE=ON
  cmake --build build -j"$(nproc)" --target greenhouse-stdio
fi
python3 -m pytest -q -p no:cacheprovider tests/adversarial
