#!/usr/bin/env bash
# Optimised build types (issue 16): the main build has no CMAKE_BUILD_TYPE
# (no -O), but gcc's and clang's flow-based warnings (-Wmaybe-uninitialized
# and friends) only fire once the optimiser runs, and Release/MinSizeRel is
# what an embedded engineer builds first. Configures and builds the whole
# project, examples and tests, with -Wall -Wextra -Werror as Release with gcc
# and as MinSizeRel with clang, checks that every conditionally built example
# was compiled (the optional libraries are installed here, as 10-http, 20-coap
# and 30-mqtt do), and runs the C tests (CTest) on the Release build.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure_retry 35-buildtypes cmake clang pkg-config libhttp-parser-dev libssl-dev libcoap3-dev libmosquitto-dev

# What each build must contain: the tests and every example whose optional
# library is installed above (paths under the build directory).
expected=(
  examples-c/greenhouse/greenhouse-stdio examples-c/greenhouse/greenhouse-http
  examples-c/greenhouse/greenhouse-coap examples-c/greenhouse/greenhouse-mqtt
  tests/fixtures/emcp-http-selftest tests/fixtures/conformance-server
  tests/fixtures/emcp-coap-fixture tests/fixtures/emcp-coap-fixture-tiny
  tests/c/test_server tests/c/test_schema tests/c/test_limits
)

build() { # build CC BUILD_TYPE DIR
  local cc=$1 type=$2 dir=$3 t0=$SECONDS b
  echo "35-buildtypes: $type with $cc ($("$cc" --version | head -n 1)) in $dir"
  CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DEMCP_SANITIZE=OFF >/dev/null
  cmake --build "$dir" -j"$(nproc)"
  for b in "${expected[@]}"; do
    [ -x "$dir/$b" ] || { echo "35-buildtypes: $dir/$b was not built" >&2; exit 1; }
  done
  echo "35-buildtypes: $type/$cc built in $((SECONDS - t0))s:"
  (cd "$dir" && find examples-c tests -type f -executable -not -path '*/CMakeFiles/*' -printf '  %p\n' | sort)
}

build gcc Release build/release-gcc
build clang MinSizeRel build/minsizerel-clang

echo "35-buildtypes: C tests (CTest) on the Release build"
ctest --test-dir build/release-gcc --output-on-failure

# A firmware without resources and prompts (issue 19): EMCP_LIMITS may set
# MAX_RESOURCES and MAX_PROMPTS to 0, and mcp_server_t then holds no storage
# for them. Only the library and the two tests that build is for.
echo "35-buildtypes: EMCP_LIMITS=\"MAX_RESOURCES=0;MAX_PROMPTS=0\" (test_limits, test_zero_tables)"
cmake -S . -B build/zero-tables -DEMCP_SANITIZE=ON -DEMCP_BUILD_EXAMPLES=OFF \
  -DEMCP_LIMITS="MAX_RESOURCES=0;MAX_PROMPTS=0" >/dev/null
cmake --build build/zero-tables -j"$(nproc)" --target test_limits test_zero_tables
ctest --test-dir build/zero-tables --output-on-failure -R 'c_test_(limits|zero_tables)$'
