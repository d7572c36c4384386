#!/usr/bin/env bash
# Firmware: the QEMU firmware (examples-c/firmware) built through CMake with
# the toolchain files cmake/toolchain/arm-none-eabi.cmake and
# riscv-none-elf.cmake, exactly as README.md and docs/firmware.md §2-3 show:
# Cortex-M4F (thumbv7em-none-eabihf) for mps2-an386, Cortex-M0
# (thumbv6m-none-eabi) for mps2-an385 and RV32IMAC
# (riscv32imac-unknown-none-elf) for QEMU's RISC-V virt machine, each in both
# profiles (full: the default features; minimal: -DEMCP_PROFILE=minimal, i.e.
# --no-default-features --features minimal). The core is built by the
# build-std route of the CMake build (EMCP_RUST_ROUTE=build-std: Debian's
# rustc-web with rust-web-src, -Zbuild-std=core, RUSTC=/usr/bin/rustc and
# -Cpanic=immediate-abort). Then each firmware runs under QEMU, feeding a
# scripted request stream through the framer in 1-, 7- and 64-byte chunks and
# checking every response. First, the configure-time route check itself
# (tests/cmake/test_rust_route.cmake).
#
# Outputs under build/firmware (EMCP_FIRMWARE_DIR): <name>/ (the CMake build
# directory: fw-<name>.elf and .map, emcp/libemcp.a), cargo-<core>/ (cargo's
# build directory, shared by both profiles of a core so `core` is built once),
# build-<core>.log and qemu-<name>.log (name: m4f, m0, rv32imac, and each with
# -minimal). scripts/size-report reuses them.
. "$(dirname "$0")/../lib/help.sh" "$@"
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/apt.sh
apt_ensure cmake make rustc-web cargo-web rust-web-src gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm \
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc

OUT="${EMCP_FIRMWARE_DIR:-build/firmware}"
mkdir -p "$OUT"
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

rc=0; cmake -P tests/cmake/test_rust_route.cmake >"$OUT/cmake-route.log" 2>&1 || rc=$?
grep -c '^-- PASS' "$OUT/cmake-route.log" | sed 's/^/    cases passed: /'
result "$rc" "configure-time Rust route check (cmake -P tests/cmake/test_rust_route.cmake)" "$OUT/cmake-route.log"

# core     toolchain file  CPU                        rust target                  QEMU machine
boards=("m4f      arm-none-eabi  -DEMCP_ARM_CPU=cortex-m4    thumbv7em-none-eabihf        mps2-an386"
        "m0       arm-none-eabi  -DEMCP_ARM_CPU=cortex-m0    thumbv6m-none-eabi           mps2-an385"
        "rv32imac riscv-none-elf -DEMCP_RISCV_ARCH=rv32imac  riscv32imac-unknown-none-elf virt")

# The -Cpanic=immediate-abort of the build-std route (EMCP_RUST_PANIC_IMMEDIATE_ABORT,
# default ON; unstable, rustc >= 1.91) compiles every panic in core and emcp
# to a trap instruction, so no panic message formatting (core::fmt) is linked:
# about 4.5 KB less flash on thumbv7em. The core is written not to panic;
# should one happen, the MCU faults (HardFault) instead of calling emcp's panic
# handler (which calls abort()). docs/firmware.md §2.
run() { echo "+ $*"; "$@"; }
fwbuild() { # fwbuild CORE TOOLCHAIN CPU-OPTION: both profiles, one after the other, one cargo directory
  local p dir prof rc=0
  for p in full minimal; do
    dir="$OUT/$1"; prof=()
    if [ "$p" = minimal ]; then dir="$OUT/$1-minimal"; prof=(-DEMCP_PROFILE=minimal); fi
    rm -f "$dir/emcp/libemcp.a" "$dir"/fw-*.elf
    run cmake -S examples-c/firmware -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain/$2.cmake" "$3" \
      "${prof[@]}" -DEMCP_RUST_ROUTE=build-std -DEMCP_CARGO_TARGET_DIR="$OUT/cargo-$1" &&
      run cmake --build "$dir" || rc=1
  done
  return $rc
}

# The three cores build side by side: each spends most of its time compiling core.
declare -A pid
for b in "${boards[@]}"; do
  read -r core toolchain cpu target machine <<<"$b"
  fwbuild "$core" "$toolchain" "$cpu" >"$OUT/build-$core.log" 2>&1 &
  pid[$core]=$!
done
for b in "${boards[@]}"; do
  read -r core toolchain cpu target machine <<<"$b"
  wait "${pid[$core]}" || true
  grep -m1 -o 'emcp: Rust target .*: route [a-z-]* ([^)]*)' "$OUT/build-$core.log" | sed 's/^/    /' || true
  for p in full minimal; do
    name="$core"; [ "$p" = full ] || name="$core-$p"
    rc=0; [ -s "$OUT/$name/emcp/libemcp.a" ] || rc=1
    result "$rc" "cross build of libemcp.a ($p profile) for $target" "$OUT/build-$core.log"
    rc=0; [ -s "$OUT/$name/fw-$name.elf" ] || rc=1
    cpuname="Cortex-${core^^}"; [ "$core" != rv32imac ] || cpuname=RV32IMAC
    result "$rc" "firmware build for $cpuname ($target, $p profile): $OUT/$name/fw-$name.elf" "$OUT/build-$core.log"
  done
done

# QEMU runs. `-icount shift=0`: each guest instruction takes 1 ns of virtual
# time, so the firmware's clock counts instructions (fw_count.h: the
# instructions per request that size-report's speed block gives).
for b in "${boards[@]}"; do
  read -r core toolchain cpu target machine <<<"$b"
  if [ "$core" = rv32imac ]; then
    # No OpenSBI: the firmware starts at 0x80000000 in machine mode. RISC-V
    # semihosting (picolibc) writes to the semihosting console, which is
    # QEMU's stderr unless a chardev is named: name one on stdout.
    qemu=(qemu-system-riscv32 -M "$machine" -icount shift=0 -bios none -nographic -monitor none -serial none
          -chardev stdio,id=semihost -semihosting-config enable=on,target=native,chardev=semihost)
  else
    qemu=(qemu-system-arm -M "$machine" -icount shift=0 -nographic -monitor none -serial none
          -semihosting-config enable=on,target=native)
  fi
  for p in full minimal; do
    name="$core"; [ "$p" = full ] || name="$core-$p"
    [ -s "$OUT/$name/fw-$name.elf" ] || continue
    rc=0
    timeout 120 "${qemu[@]}" -kernel "$OUT/$name/fw-$name.elf" \
      >"$OUT/qemu-$name.log" 2>"$OUT/qemu-$name.stderr" || rc=$?
    grep -E '^(PASS|FAIL|  )' "$OUT/qemu-$name.log" | sed 's/^/    /' || true
    grep -E '^(stack|instr)\.' "$OUT/qemu-$name.log" | sed 's/^/    /' || true
    errlog="$OUT/qemu-$name.stderr"
    status="exit status $rc"
    if [ "$core" = rv32imac ]; then
      # The console is the log here (a fault report too), and it goes through
      # a chardev of its own: a run whose output went missing must not pass,
      # so the summary line must be there and say 0 failed.
      errlog="$OUT/qemu-$name.log"
      if [ "$rc" -eq 0 ] && ! grep -qE '^[0-9]+ passed, 0 failed$' "$errlog"; then
        rc=1; status="exit status 0 but no '0 failed' summary line"
      fi
    fi
    result "$rc" "QEMU $machine firmware test, $p profile ($status)" "$errlog"
  done
done

# Your own firmware (docs/firmware.md, "Your own firmware under QEMU"):
# tests/firmware_user links emcp::emcp and the board target
# emcp::board_mps2_an386 and nothing else of examples-c/firmware. Its link
# prints no warning (the toolchain file silences newlib's missing
# .note.GNU-stack), scripts/run-firmware --elf runs it on the board it reads
# from the ELF (main's 0 is the exit status), and scripts/size-report --map
# gives emcp's share of it, which check_size_map.py counts again from
# libemcp.a's section tables and the linker's --print-gc-sections list.
user="$OUT/user-m4f"
rc=0
rm -rf "$user"
{ run cmake -S tests/firmware_user -B "$user" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain/arm-none-eabi.cmake" \
    -DEMCP_ARM_CPU=cortex-m4 -DEMCP_RUST_ROUTE=build-std -DEMCP_CARGO_TARGET_DIR="$OUT/cargo-m4f" &&
  run cmake --build "$user"; } >"$OUT/build-user.log" 2>&1 || rc=$?
result "$rc" "a user's firmware built with the board target emcp::board_mps2_an386 (tests/firmware_user)" "$OUT/build-user.log"
rc=0
if grep -v 'removing unused section' "$OUT/build-user.log" |
   grep -iE 'warning|GNU-stack|executable stack' >"$OUT/build-user.warnings"; then rc=1; fi
sed 's/^/    /' "$OUT/build-user.warnings"
result "$rc" "the firmware's link prints no warning (no missing .note.GNU-stack)" "$OUT/build-user.warnings"
rc=0
timeout 120 scripts/run-firmware --elf "$user/user_fw.elf" >"$OUT/qemu-user.log" 2>"$OUT/qemu-user.stderr" || rc=$?
[ "$rc" -ne 0 ] || grep -q '^user-fw: ok$' "$OUT/qemu-user.log" || rc=1
grep -E '^run-firmware:' "$OUT/qemu-user.stderr" | sed 's/^/    /' || true
result "$rc" "scripts/run-firmware --elf user_fw.elf (board read from the ELF; exit status $rc)" "$OUT/qemu-user.stderr"
rc=0
{ python3 scripts/size-report --map "$user/user_fw.map" >"$OUT/size-user.txt" &&
  python3 tests/firmware_user/check_size_map.py "$OUT/size-user.txt" "$user/emcp/libemcp.a" "$OUT/build-user.log"; } \
  >"$OUT/size-user-check.log" 2>&1 || rc=$?
grep -E '^emcp: ' "$OUT/size-user.txt" | sed 's/^/    /' || true
sed 's/^/    /' "$OUT/size-user-check.log"
result "$rc" "scripts/size-report --map user_fw.map agrees with the members' section tables" "$OUT/size-user-check.log"

# The footprint the documents quote is this build's: README.md and
# docs/firmware.md carry scripts/size-report's footprint block, docs/freertos.md
# and docs/zephyr.md its task stack block, docs/firmware.md its block of
# instructions per request, and a stale one fails here
# (regenerate with scripts/size-report --no-build --write-docs).
rc=0
EMCP_FIRMWARE_DIR="$OUT" python3 scripts/size-report --no-build --check-docs >"$OUT/size-report.txt" 2>"$OUT/size-report.err" || rc=$?
grep -E '^(flash\.(full|minimal)\.|ram\.server(_8_tools)?\.|stack\.(handle|add_tool)\.)[a-z0-9]+=' "$OUT/size-report.txt" | sed 's/^/    /' || true
result "$rc" "the documents' footprint, stack and speed blocks are this build's (scripts/size-report --check-docs)" "$OUT/size-report.err"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
