#!/usr/bin/env bash
# greenhouse-stdio under valgrind memcheck (tests/valgrind): a build without
# sanitizers in build/valgrind (valgrind cannot run ASan binaries), driven
# through a representative session (both eras, errors, notifications, invalid
# input, oversize lines, EOF); any memcheck error or leak fails the step.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure valgrind cmake binutils

cmake -S . -B build/valgrind -DCMAKE_BUILD_TYPE=Debug -DEMCP_SANITIZE=OFF -DEMCP_BUILD_TESTS=OFF >/dev/null
cmake --build build/valgrind -j"$(nproc)" --target greenhouse-stdio
GREENHOUSE_STDIO_PLAIN="$PWD/build/valgrind/examples-c/greenhouse/greenhouse-stdio" \
  python3 -m pytest -v -p no:cacheprovider tests/valgrind
