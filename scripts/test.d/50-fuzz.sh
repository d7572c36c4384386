#!/usr/bin/env bash
# Fuzzing, bounded: the regression inputs of every fuzz target (fuzz/regressions,
# replayed by `cargo test` in fuzz/), then each cargo-fuzz target for
# FUZZ_SECONDS (default 25) from the committed seed corpus. Any crash or
# invariant violation fails the step; libFuzzer's crash input is kept under
# fuzz/artifacts/<target>/ and its log under $FUZZ_LOG_DIR. Long runs:
# scripts/fuzz-long and docs/fuzzing.md.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

SECONDS_PER_TARGET="${FUZZ_SECONDS:-25}"
TARGETS=(handle handle_structured tokenizer_diff schema program framer headers roundtrip)

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

passed=0
failed=0
result() { # result RC NAME
  if [ "$1" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $2"; else failed=$((failed + 1)); echo "FAIL $2"; fi
}

echo "--- regression inputs (cargo test in fuzz/)"
(cd fuzz && cargo test --release --quiet 2>&1 | tail -n 30)
result "${PIPESTATUS[0]}" "fuzz regressions"

echo "--- building the fuzz targets (cargo fuzz build -s none)"
(cd fuzz && cargo +nightly fuzz build -s none) || { echo "FAIL cargo fuzz build"; echo "fuzz: $passed passed, $((failed + 1)) failed"; exit 1; }
BIN="fuzz/target/x86_64-unknown-linux-gnu/release"
LOGS="${FUZZ_LOG_DIR:-$(mktemp -d)}"
mkdir -p "$LOGS"
for t in "${TARGETS[@]}"; do
  scratch="$(mktemp -d)"
  mkdir -p "fuzz/artifacts/$t"
  # New inputs go to the scratch folder; the committed seeds are only read.
  timeout $((SECONDS_PER_TARGET + 60)) "$BIN/$t" -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" "$scratch" "fuzz/corpus/$t" \
    >"$LOGS/$t.log" 2>&1
  rc=$?
  rm -rf "$scratch"
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$LOGS/$t.log" | grep -Eo '[0-9]+$' | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+' "$LOGS/$t.log" | tail -1 | grep -Eo '[0-9]+')
  echo "    $t: ${execs:-?} executions, cov ${cov:-?}, exit $rc"
  if [ "$rc" -ne 0 ]; then
    grep -E -A12 'panicked|ERROR: libFuzzer|SUMMARY' "$LOGS/$t.log" | head -n 40 | sed 's/^/    /'
  fi
  result "$rc" "fuzz $t (${SECONDS_PER_TARGET}s)"
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
