#!/usr/bin/env bash
# Prebuilt archives (scripts/package): the thumbv7em-none-eabihf minimal
# archive is built twice, each time from scratch in its own directory (own
# cargo target directory, own CMake build), and the two .tar.gz must be the
# same bytes; its BUILDINFO's SHA-256 list must match the tree. Only this one
# archive is built here; scripts/package builds the other cores and profiles.
# `scripts/package --help` must print the usage, exit 0 and create nothing.
#
# Outputs under build/package-test (EMCP_PACKAGE_TEST_DIR): a/ and b/ (the
# two runs: tree, archive, build log).
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT="${EMCP_PACKAGE_TEST_DIR:-build/package-test}"
rm -rf "$OUT"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
passed=0
failed=0
result() { # result STATUS NAME [LOG]
  if [ "$1" -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS $2"
  else
    failed=$((failed + 1)); echo "FAIL $2"
    [ -n "${3:-}" ] && tail -n 40 "$3" | sed 's/^/    /'
  fi
}

rc=0
scripts/package --help --out "$OUT/help" >"$OUT/help.txt" 2>&1 || rc=$?
grep -q '^  scripts/package \[--core TRIPLE\]' "$OUT/help.txt" || rc=1
[ ! -e "$OUT/help" ] || rc=1
result "$rc" "scripts/package --help: usage, exit 0, nothing created" "$OUT/help.txt"

core=thumbv7em-none-eabihf profile=minimal
name="emcp-$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' Cargo.toml | head -n1)-$core-$profile"
for run in a b; do
  start=$SECONDS
  rc=0
  scripts/package --core "$core" --profile "$profile" --out "$OUT/$run" >"$OUT/package-$run.log" 2>&1 || rc=$?
  [ -s "$OUT/$run/$name.tar.gz" ] || rc=1
  result "$rc" "scripts/package --core $core --profile $profile, run $run ($((SECONDS - start)) s)" "$OUT/package-$run.log"
done

rc=0
if cmp "$OUT/a/$name.tar.gz" "$OUT/b/$name.tar.gz" >"$OUT/cmp.txt" 2>&1; then
  sha256sum "$OUT/a/$name.tar.gz" | sed "s|$OUT/||; s/^/    /"
else
  rc=1
  # Which files differ, for the log.
  diff -r "$OUT/a/$name" "$OUT/b/$name" >>"$OUT/cmp.txt" 2>&1 || true
fi
result "$rc" "two builds of $name.tar.gz are byte-identical" "$OUT/cmp.txt"

rc=0
(cd "$OUT/a/$name" && sed -n 's/^  \([0-9a-f]\{64\}  \)/\1/p' BUILDINFO | sha256sum --check --quiet) >"$OUT/buildinfo.txt" 2>&1 || rc=$?
n="$(grep -c '^  [0-9a-f]\{64\}  ' "$OUT/a/$name/BUILDINFO" || true)"
m="$(cd "$OUT/a/$name" && find . -type f ! -name BUILDINFO | wc -l)"
[ "$n" -gt 0 ] && [ "$n" -eq "$m" ] || { rc=1; echo "BUILDINFO lists $n files, the tree has $m" >>"$OUT/buildinfo.txt"; }
grep -E '^(commit|rustc|profile|features|rust_target): ' "$OUT/a/$name/BUILDINFO" | sed 's/^/    /'
result "$rc" "BUILDINFO names commit, rustc, profile, features; its SHA-256 list matches the tree ($n files)" "$OUT/buildinfo.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
