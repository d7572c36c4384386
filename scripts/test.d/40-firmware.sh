#!/usr/bin/env bash
# Firmware: cross builds of the no_std core for thumbv6m-none-eabi,
# thumbv7em-none-eabihf and riscv32imac-unknown-none-elf with Debian's
# rustc-web and -Zbuild-std=core, then the QEMU firmware tests
# (examples-c/firmware): Cortex-M4F on mps2-an386 and Cortex-M0 on
# mps2-an385, each feeding a scripted request stream through the framer in
# 1-, 7- and 64-byte chunks and checking every response.
#
# Outputs under build/firmware (EMCP_FIRMWARE_DIR): cargo-<target>/ (the
# static libraries), fw-<core>.elf/.map and qemu-<core>.log. scripts/size-report
# reuses them.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/apt.sh
apt_ensure make rustc-web cargo-web rust-web-src gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm

OUT="${EMCP_FIRMWARE_DIR:-build/firmware}"
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

# Debian's toolchain (not rustup's): its std source is where -Zbuild-std looks.
xbuild() { # xbuild TARGET
  PATH=/usr/bin:/bin RUSTC_BOOTSTRAP=1 cargo build --release -Zbuild-std=core \
    --target "$1" --target-dir "$OUT/cargo-$1"
}

# The three builds run side by side: each spends most of its time compiling core.
targets=(thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imac-unknown-none-elf)
declare -A pid
for t in "${targets[@]}"; do
  xbuild "$t" >"$OUT/build-$t.log" 2>&1 &
  pid[$t]=$!
done
for t in "${targets[@]}"; do
  rc=0; wait "${pid[$t]}" || rc=$?
  lib="$OUT/cargo-$t/$t/release/libemcp.a"
  [ "$rc" -eq 0 ] && [ -s "$lib" ] || rc=1
  result "$rc" "cross build of libemcp.a for $t" "$OUT/build-$t.log"
done

# core  rust target           QEMU machine
boards=("m4f thumbv7em-none-eabihf mps2-an386" "m0 thumbv6m-none-eabi mps2-an385")
for b in "${boards[@]}"; do
  read -r core target machine <<<"$b"
  lib="$OUT/cargo-$target/$target/release/libemcp.a"
  rc=0
  make -s -C examples-c/firmware CORE="$core" EMCP_LIB="$lib" BUILD="$OUT" \
    >"$OUT/make-$core.log" 2>&1 || rc=$?
  result "$rc" "firmware build for Cortex-${core^^} ($target)" "$OUT/make-$core.log"
  [ "$rc" -eq 0 ] || continue
  rc=0
  timeout 120 qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$OUT/fw-$core.elf" \
    >"$OUT/qemu-$core.log" 2>"$OUT/qemu-$core.stderr" || rc=$?
  grep -E '^(PASS|FAIL|  )' "$OUT/qemu-$core.log" | sed 's/^/    /' || true
  grep -E '^stack\.' "$OUT/qemu-$core.log" | sed 's/^/    /' || true
  result "$rc" "QEMU $machine firmware test (exit status $rc)" "$OUT/qemu-$core.stderr"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
