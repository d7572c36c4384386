#!/usr/bin/env bash
# Runs every test of the project: formatting and lints, Rust unit and
# integration tests (tokenizer, JSONTestSuite, both protocol eras, header
# drift), ABI checks (ctest + bindgen), C tests under ASan/UBSan (CTest), and
# end-to-end tests against greenhouse-stdio with the real Python SDK client,
# the MCP Inspector CLI and raw protocol lines.
. "$(dirname "$0")/lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n==> %s\n' "$*"; }

step "installing dependencies"
scripts/install-deps.sh test

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (library as shipped, and with tests)"
cargo clippy --quiet -- -D warnings
cargo clippy --quiet --features std --all-targets -- -D warnings
cargo clippy --quiet --no-default-features --features minimal,std --lib --tests -- -D warnings

step "Rust tests (cargo test --features std)"
cargo test --features std
# The same tests in the minimal profile (a test that needs a feature the
# profile leaves out is listed as ignored, with the feature it needs):
# among them what it does without the schema checker (schema seals) and
# without the http feature (routing headers refused).
cargo test --no-default-features --features minimal,std
# Each feature alone on top of the minimal profile: its code builds and
# passes by itself, and a test that leans on another feature says so.
for feature in legacy catalog mrtr policy rich schema-check http; do
  echo "--- unit tests, minimal + $feature"
  cargo test --quiet --no-default-features --features "minimal,$feature,std" --lib
done

step "emcp-gen (tools/gen: fmt, clippy, tests)"
(cd tools/gen && cargo fmt -- --check && cargo clippy --quiet --locked --all-targets -- -D warnings &&
  cargo test --quiet --locked)

step "ABI checks (tests/abi: ctest + bindgen)"
(cd tests/abi && cargo test)

step "C build with -Wall -Wextra -Werror and ASan/UBSan"
cmake -S . -B build -DEMCP_SANITIZE=ON
cmake --build build -j"$(nproc)"

step "C tests (CTest)"
ctest --test-dir build --output-on-failure

step "end-to-end tests (Python SDK, Inspector CLI, raw lines)"
GREENHOUSE_STDIO="$PWD/build/examples-c/greenhouse/greenhouse-stdio" \
  python3 -m pytest -v tests/e2e

# Each area (transports, firmware, fuzzing) adds its own step as
# scripts/test.d/NN-name.sh; each installs what it needs and fails on error.
for t in scripts/test.d/*.sh; do
  [ -e "$t" ] || continue
  step "$(basename "$t" .sh)"
  bash "$t"
done

echo
echo "all tests passed"
