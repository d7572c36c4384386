#!/usr/bin/env bash
# libFuzzer on the Streamable HTTP binding's request handling (fuzz/http,
# docs/fuzzing.md): builds emcp-http-fuzz with clang (-fsanitize=fuzzer,
# address,undefined) in build/fuzz-http, replays every regression input and
# seed, then fuzzes for FUZZ_HTTP_SECONDS (default 45) from the committed
# seeds. A crash or a broken invariant fails the step; libFuzzer's input is
# kept under fuzz/artifacts/http/. Long runs: docs/fuzzing.md.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

. scripts/lib/apt.sh
apt_ensure clang libclang-rt-14-dev libhttp-parser-dev libssl-dev cmake || exit 1

SECONDS_HTTP="${FUZZ_HTTP_SECONDS:-45}"
CC=clang cmake -S . -B build/fuzz-http -DEMCP_FUZZ=ON -DEMCP_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build build/fuzz-http -j"$(nproc)" --target emcp-http-fuzz || exit 1
BIN=build/fuzz-http/fuzz/http/emcp-http-fuzz
[ -x "$BIN" ] || { echo "55-fuzz-http: $BIN was not built" >&2; exit 1; }

failed=0
echo "--- replaying fuzz/http/regressions and fuzz/http/corpus"
shopt -s nullglob
inputs=(fuzz/http/regressions/* fuzz/http/corpus/*)
shopt -u nullglob
if "$BIN" "${inputs[@]}" >"${TMPDIR:-/tmp}/fuzz-http-replay.log" 2>&1; then
  echo "PASS replay of ${#inputs[@]} inputs"
else
  echo "FAIL replay"; grep -E -A3 'invariant|ERROR|SUMMARY' "${TMPDIR:-/tmp}/fuzz-http-replay.log" | head -n 30
  failed=1
fi

echo "--- fuzzing for ${SECONDS_HTTP}s"
scratch="$(mktemp -d)"
mkdir -p fuzz/artifacts/http
log="${FUZZ_LOG_DIR:-$(mktemp -d)}/http.log"
mkdir -p "$(dirname "$log")"
timeout $((SECONDS_HTTP + 120)) "$BIN" -max_total_time="$SECONDS_HTTP" -max_len=16384 -timeout=10 \
  -print_final_stats=1 -artifact_prefix=fuzz/artifacts/http/ "$scratch" fuzz/http/corpus >"$log" 2>&1
rc=$?
rm -rf "$scratch"
execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
echo "    http: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, exit $rc"
if [ "$rc" -ne 0 ]; then
  grep -E -A12 'invariant|ERROR: |SUMMARY' "$log" | head -n 50 | sed 's/^/    /'
  echo "FAIL fuzz http (${SECONDS_HTTP}s)"
  failed=1
else
  echo "PASS fuzz http (${SECONDS_HTTP}s)"
fi
exit "$failed"
