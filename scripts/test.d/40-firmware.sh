#!/usr/bin/env bash
# Firmware: cross builds of the no_std core for thumbv6m-none-eabi,
# thumbv7em-none-eabihf and riscv32imac-unknown-none-elf with Debian's
# rustc-web and -Zbuild-std=core, in both profiles (full: the default
# features; minimal: --no-default-features --features minimal), then the QEMU
# firmware tests (examples-c/firmware): Cortex-M4F on mps2-an386, Cortex-M0
# on mps2-an385 and RV32IMAC on QEMU's RISC-V virt machine, each profile, each
# feeding a scripted request stream through the framer in 1-, 7- and 64-byte
# chunks and checking every response.
#
# Outputs under build/firmware (EMCP_FIRMWARE_DIR): cargo-<target>/ (cargo's
# build directory, shared by both profiles so `core` is built once),
# lib/<profile>/<target>/libemcp.a, fw-<core>[-minimal].elf/.map and
# qemu-<core>[-minimal].log (core: m4f, m0, rv32imac). scripts/size-report
# reuses them.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/apt.sh
apt_ensure make rustc-web cargo-web rust-web-src gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm \
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc

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
# -Cpanic=immediate-abort (unstable; rustc >= 1.91) compiles every panic in
# core and emcp to a trap instruction, so no panic message formatting
# (core::fmt) is linked: about 4.5 KB less flash on thumbv7em. The core is
# written not to panic; should one happen, the MCU faults (HardFault) instead
# of calling emcp's panic handler (which calls abort()). docs/firmware.md §2.
FIRMWARE_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort"
profile_flags() { # profile_flags PROFILE
  if [ "$1" = minimal ]; then echo "--no-default-features --features minimal"; fi
}
xbuild() { # xbuild TARGET: both profiles, one after the other in one build directory
  local p
  for p in full minimal; do
    # shellcheck disable=SC2046
    PATH=/usr/bin:/bin RUSTC_BOOTSTRAP=1 RUSTFLAGS="$FIRMWARE_RUSTFLAGS" \
      cargo build --release -Zbuild-std=core \
      --target "$1" --target-dir "$OUT/cargo-$1" $(profile_flags "$p") || return 1
    mkdir -p "$OUT/lib/$p/$1"
    cp "$OUT/cargo-$1/$1/release/libemcp.a" "$OUT/lib/$p/$1/libemcp.a"
  done
}

# The three targets build side by side: each spends most of its time compiling core.
targets=(thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imac-unknown-none-elf)
declare -A pid
for t in "${targets[@]}"; do
  rm -f "$OUT"/lib/*/"$t"/libemcp.a
  xbuild "$t" >"$OUT/build-$t.log" 2>&1 &
  pid[$t]=$!
done
for t in "${targets[@]}"; do
  rc=0; wait "${pid[$t]}" || rc=$?
  for p in full minimal; do
    lib="$OUT/lib/$p/$t/libemcp.a"
    prc=$rc; [ -s "$lib" ] || prc=1
    result "$prc" "cross build of libemcp.a ($p profile) for $t" "$OUT/build-$t.log"
  done
done

# core      rust target                  QEMU machine
boards=("m4f      thumbv7em-none-eabihf        mps2-an386"
        "m0       thumbv6m-none-eabi           mps2-an385"
        "rv32imac riscv32imac-unknown-none-elf virt")
for b in "${boards[@]}"; do
  read -r core target machine <<<"$b"
  if [ "$core" = rv32imac ]; then
    # No OpenSBI: the firmware starts at 0x80000000 in machine mode. RISC-V
    # semihosting (picolibc) writes to the semihosting console, which is
    # QEMU's stderr unless a chardev is named: name one on stdout.
    qemu=(qemu-system-riscv32 -M "$machine" -bios none -nographic -monitor none -serial none
          -chardev stdio,id=semihost -semihosting-config enable=on,target=native,chardev=semihost)
  else
    qemu=(qemu-system-arm -M "$machine" -nographic -monitor none -serial none
          -semihosting-config enable=on,target=native)
  fi
  for p in full minimal; do
    lib="$OUT/lib/$p/$target/libemcp.a"
    name="$core"; [ "$p" = full ] || name="$core-$p"
    rc=0
    make -s -C examples-c/firmware CORE="$core" PROFILE="$p" EMCP_LIB="$lib" BUILD="$OUT" \
      >"$OUT/make-$name.log" 2>&1 || rc=$?
    cpu="Cortex-${core^^}"; [ "$core" != rv32imac ] || cpu=RV32IMAC
    result "$rc" "firmware build for $cpu ($target, $p profile)" "$OUT/make-$name.log"
    [ "$rc" -eq 0 ] || continue
    rc=0
    timeout 120 "${qemu[@]}" -kernel "$OUT/fw-$name.elf" \
      >"$OUT/qemu-$name.log" 2>"$OUT/qemu-$name.stderr" || rc=$?
    grep -E '^(PASS|FAIL|  )' "$OUT/qemu-$name.log" | sed 's/^/    /' || true
    grep -E '^stack\.' "$OUT/qemu-$name.log" | sed 's/^/    /' || true
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
