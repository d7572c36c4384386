#!/usr/bin/env bash
# Prebuilt archives (scripts/package): the thumbv7em-none-eabihf minimal
# archive is built twice, each time from scratch in its own directory (own
# cargo target directory, own CMake build), and the two .tar.gz must be the
# same bytes; its BUILDINFO's SHA-256 list must match the tree. Only this one
# archive is built here; scripts/package builds the other cores and profiles.
# `scripts/package --help` must print the usage, exit 0 and create nothing.
#
# Then a consumer without Rust: the archive is unpacked into a directory of
# its own, and tests/consumer/firmware (the QEMU greenhouse firmware of
# examples-c/firmware on find_package(emcp) from that directory) is
# configured and built with a PATH that holds only the Arm GNU tools, make
# and cmake: no cargo, no rustc. The image runs under qemu-system-arm
# (mps2-an386, as scripts/test.d/40-firmware.sh runs it) and must exit 0 with
# its "N passed, 0 failed" line.
#
# Last, Zephyr's module with CONFIG_EMCP_PREBUILT_DIR on that tree, at
# configure level (tests/zephyr/check_prebuilt.cmake).
#
# Outputs under build/package-test (EMCP_PACKAGE_TEST_DIR): a/ and b/ (the
# two runs: tree, archive, build log), prebuilt/ (the unpacked archive),
# firmware/ (the consumer's build, fw-prebuilt.elf) and qemu-prebuilt.log.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/apt.sh
apt_ensure cmake make rustc-web cargo-web rust-web-src gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm

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
grep -q '^Usage: scripts/package \[--core TRIPLE\]' "$OUT/help.txt" || rc=1
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

# The consumer without Rust, from the unpacked archive.
start=$SECONDS
rc=0
mkdir -p "$OUT/prebuilt" "$OUT/no-rust-bin"
tar -xzf "$OUT/a/$name.tar.gz" -C "$OUT/prebuilt"
for tool in /usr/bin/arm-none-eabi-* "$(command -v make)" "$(command -v cmake)"; do
  ln -sf "$tool" "$OUT/no-rust-bin/"
done
norust=(env -u CARGO -u RUSTC -u CARGO_HOME -u RUSTUP_HOME "PATH=$OUT/no-rust-bin")
# That environment works (it finds make) and finds neither cargo nor rustc.
"${norust[@]}" /bin/sh -c 'command -v make' >"$OUT/firmware.log" 2>&1 || rc=1
for rust in cargo rustc; do
  if [ -n "$("${norust[@]}" /bin/sh -c "command -v $rust" 2>/dev/null)" ]; then
    echo "$rust is on the consumer's PATH" >>"$OUT/firmware.log"; rc=1
  fi
done
[ "$rc" -ne 0 ] || {
  "${norust[@]}" cmake -S tests/consumer/firmware -B "$OUT/firmware" \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain/arm-none-eabi.cmake" -DEMCP_ARM_CPU=cortex-m4 \
    -DEMCP_PREBUILT_DIR="$OUT/prebuilt/$name" &&
  "${norust[@]}" cmake --build "$OUT/firmware" -j2
} >>"$OUT/firmware.log" 2>&1 || rc=1
[ -s "$OUT/firmware/fw-prebuilt.elf" ] || rc=1
grep -m1 -o 'consumer firmware: emcp .*' "$OUT/firmware.log" | sed 's/^/    /' || true
result "$rc" "firmware from the prebuilt $core tree with find_package(emcp), no cargo or rustc on PATH" "$OUT/firmware.log"

rc=0
timeout 120 qemu-system-arm -M mps2-an386 -icount shift=0 -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native -kernel "$OUT/firmware/fw-prebuilt.elf" \
  >"$OUT/qemu-prebuilt.log" 2>&1 || rc=$?
grep -E '^(PASS|FAIL|  )' "$OUT/qemu-prebuilt.log" | sed 's/^/    /' || true
status="exit status $rc"
if [ "$rc" -eq 0 ] && ! grep -qE '^[0-9]+ passed, 0 failed$' "$OUT/qemu-prebuilt.log"; then
  rc=1; status="exit status 0 but no '0 failed' summary line"
fi
if [ "$rc" -eq 0 ] && ! grep -q "^emcp firmware test ($profile profile) on $core:" "$OUT/qemu-prebuilt.log"; then
  rc=1; status="the firmware does not report the $profile profile on $core"
fi
result "$rc" "QEMU mps2-an386 runs the firmware on the prebuilt archive ($status; $((SECONDS - start)) s with its build)" "$OUT/qemu-prebuilt.log"

# Zephyr's module with CONFIG_EMCP_PREBUILT_DIR on the same tree, at
# configure level (no Zephyr tree in CI): tests/zephyr/check_prebuilt.cmake.
rc=0
cmake -DTREE="$OUT/prebuilt/$name" -DBUILD_DIR="$OUT/zephyr-prebuilt" -P tests/zephyr/check_prebuilt.cmake \
  >"$OUT/zephyr-prebuilt.log" 2>&1 || rc=$?
grep -E '^-- (PASS|FAIL)' "$OUT/zephyr-prebuilt.log" | sed 's/^-- /    /' || true
result "$rc" "Zephyr module with CONFIG_EMCP_PREBUILT_DIR (configure level: core and limits checked)" "$OUT/zephyr-prebuilt.log"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
