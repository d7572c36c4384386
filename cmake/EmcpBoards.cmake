# Board targets: the start-up, UART driver and linker script of emcp's QEMU
# firmware (examples-c/firmware) as a target a firmware project links, so
# that its own main() runs on a board QEMU emulates (docs/firmware.md, "Your
# own firmware under QEMU"):
#
#   add_subdirectory(emcp)
#   add_executable(app main.c)
#   target_link_libraries(app PRIVATE emcp::emcp emcp::board_mps2_an386)
#
# and scripts/run-firmware --elf app runs it. Defined when cross-compiling
# with emcp's toolchain files, for the CPU configured:
#
#   emcp::board_mps2_an386   Cortex-M4 (arm-none-eabi.cmake, EMCP_ARM_CPU=cortex-m4):
#                            QEMU -M mps2-an386
#   emcp::board_mps2_an385   Cortex-M0, -M0+ or -M3 (EMCP_ARM_CPU=cortex-m0|m0plus|m3):
#                            QEMU -M mps2-an385 (a Cortex-M3 that runs ARMv6-M code)
#   emcp::board_qemu_virt    RV32 (riscv-none-elf.cmake, EMCP_RISCV_ARCH=rv32...):
#                            QEMU -M virt, machine mode, no OpenSBI
#
# What the target gives the firmware: the vector table and reset handler
# (startup.c: .data copy, FPU on, then the C library's start-up, which calls
# main(); main's return value is QEMU's exit status), fault handlers that
# end the run with status 90, emcp_monotonic_ms() from the core timer (the
# clock binding's emcp_clock.h), the board's UART (emcp_board_uart.h:
# emcp_board_uart_init, _read, _write, _idle; QEMU's -serial), the linker
# script (512 KiB flash, 128 KiB RAM, 16 KiB stack on MPS2) and the C
# library's semihosting system calls (printf and stderr reach QEMU's
# console: newlib's rdimon on Arm, picolibc's semihost on RISC-V), with
# --gc-sections. The sources are compiled as an object library, so the
# vector table is linked although nothing refers to it.
set(emcp_board_dir "${CMAKE_CURRENT_LIST_DIR}/../examples-c/firmware")
get_filename_component(emcp_board_dir "${emcp_board_dir}" ABSOLUTE)

set(emcp_board "")
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "arm" AND DEFINED EMCP_ARM_CPU)
  if(EMCP_ARM_CPU STREQUAL "cortex-m4")
    set(emcp_board mps2_an386)
  elseif(EMCP_ARM_CPU MATCHES "^cortex-m(0|0plus|3)$")
    set(emcp_board mps2_an385)
  endif()
  set(emcp_board_sources startup.c uart-cmsdk.c)
  set(emcp_board_ld "${emcp_board_dir}/mps2.ld")
  set(emcp_board_link --specs=rdimon.specs)
elseif(CMAKE_SYSTEM_PROCESSOR STREQUAL "riscv" AND EMCP_RISCV_ARCH MATCHES "^rv32")
  set(emcp_board qemu_virt)
  set(emcp_board_sources startup-riscv.c uart-ns16550.c)
  set(emcp_board_ld "${emcp_board_dir}/virt.ld")
  # virt.ld keeps code and data in one RAM region: one RWX load segment.
  set(emcp_board_link --oslib=semihost -nostartfiles -Wl,--no-warn-rwx-segments)
endif()

if(emcp_board STREQUAL "")
  if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
    message(STATUS "emcp: no board target for this CPU (emcp::board_mps2_an386: cortex-m4; "
                   "emcp::board_mps2_an385: cortex-m0/m0plus/m3; emcp::board_qemu_virt: rv32)")
  endif()
  return()
endif()

list(TRANSFORM emcp_board_sources PREPEND "${emcp_board_dir}/")
add_library(emcp_board_${emcp_board} OBJECT ${emcp_board_sources})
add_library(emcp::board_${emcp_board} ALIAS emcp_board_${emcp_board})
# Compiled only when a firmware links it.
set_target_properties(emcp_board_${emcp_board} PROPERTIES EXCLUDE_FROM_ALL ON)
target_include_directories(emcp_board_${emcp_board} PUBLIC "${emcp_board_dir}"
                           "${CMAKE_CURRENT_LIST_DIR}/../bindings/clock")
# FW_LIVE_CLOCK: the core timer ticks emcp_monotonic_ms() once a millisecond
# (the self-test image of examples-c/firmware keeps it fixed instead).
target_compile_definitions(emcp_board_${emcp_board} PRIVATE FW_LIVE_CLOCK=1)
target_compile_options(emcp_board_${emcp_board} PRIVATE -std=c11 -Os -g -Wall -Wextra
                       -ffunction-sections -fdata-sections)
target_link_options(emcp_board_${emcp_board} INTERFACE ${emcp_board_link} -T "${emcp_board_ld}"
                    -Wl,--gc-sections)
message(STATUS "emcp: board target emcp::board_${emcp_board} (scripts/run-firmware --elf runs what links it)")
