#!/usr/bin/env bash
# ThreadSanitizer: the C tests that call one server from several threads
# (CTest label "threads": test_concurrency, the rate-limit and idempotency-key
# claims under two threads at once; test_protocol's parallel tools/call),
# built with clang -fsanitize=thread (EMCP_TSAN=ON) in build/tsan. No other C
# test or example starts threads (grep pthread tests/ examples-c/), so the
# examples are not built here. Any TSan report fails the test (TSan exits
# non-zero); nothing is suppressed. The Rust core is not instrumented: its
# atomics are real atomics, and TSan still sees the libc calls it makes
# (memcpy, memset, memcmp on shared memory are checked).
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure clang cmake

CC=clang cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMCP_TSAN=ON \
  -DEMCP_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/tsan -j"$(nproc)" --target test_concurrency test_protocol
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --test-dir build/tsan -L threads --output-on-failure
