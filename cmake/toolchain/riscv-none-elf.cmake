# CMake toolchain file for bare-metal RISC-V with GCC and picolibc (Debian:
# gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf; the xPack
# riscv-none-elf- and riscv32-unknown-elf- tools are found as well).
#
#   cmake -S <project> -B <build> -DCMAKE_TOOLCHAIN_FILE=<emcp>/cmake/toolchain/riscv-none-elf.cmake \
#         -DEMCP_RISCV_ARCH=rv32imac
#
# EMCP_RISCV_ARCH     the ISA, e.g. rv32imac (default), rv32imc, rv32imafc, rv64imac
# EMCP_RISCV_ABI      ilp32 (default for rv32), ilp32f, lp64, ...
# EMCP_RISCV_CMODEL   medany (default) or medlow
# EMCP_RISCV_TOOLCHAIN_PREFIX  the tools' prefix (default: the first of
#                     riscv64-unknown-elf-, riscv-none-elf-, riscv32-unknown-elf- found)
# EMCP_RISCV_PICOLIBC ON (default): --specs=picolibc.specs when compiling and linking
#
# Compiles with -march=<arch>_zicsr (GCC 12 follows the 20191213 ISA spec, in
# which CSR instructions are the Zicsr extension a start-up needs) and links
# with -march=<arch> (the later option wins, and GCC then picks picolibc's
# <arch>/<abi> multilib). Sets EMCP_RUST_TARGET, unless given, to the Rust
# triple of that ISA (emcp_rust_target_for): rv32imac is
# riscv32imac-unknown-none-elf. The system-call layer (--oslib=semihost, your
# own) and start-up (-nostartfiles) are the firmware's choice. Try-compiles
# build static libraries.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv)

set(EMCP_RISCV_ARCH rv32imac CACHE STRING "RISC-V ISA (-march at link; compiled with _zicsr)")
if(NOT EMCP_RISCV_ARCH MATCHES "^rv(32|64)(i|g)([a-z]*)(_.*)?$")
  message(FATAL_ERROR "EMCP_RISCV_ARCH is '${EMCP_RISCV_ARCH}'; expected e.g. rv32imac")
endif()
set(emcp_rv_bits "${CMAKE_MATCH_1}")
set(emcp_rv_isa "${CMAKE_MATCH_3}")
if(CMAKE_MATCH_2 STREQUAL "g")
  set(emcp_rv_isa "mafd${emcp_rv_isa}")
endif()
if(emcp_rv_bits STREQUAL "32")
  set(EMCP_RISCV_ABI ilp32 CACHE STRING "RISC-V ABI (-mabi)")
else()
  set(EMCP_RISCV_ABI lp64 CACHE STRING "RISC-V ABI (-mabi)")
endif()
set(EMCP_RISCV_CMODEL medany CACHE STRING "RISC-V code model (-mcmodel)")
option(EMCP_RISCV_PICOLIBC "Compile and link with --specs=picolibc.specs" ON)
if(NOT EMCP_RISCV_TOOLCHAIN_PREFIX)
  foreach(prefix riscv64-unknown-elf- riscv-none-elf- riscv32-unknown-elf-)
    find_program(emcp_rv_gcc "${prefix}gcc" NO_CACHE)
    if(emcp_rv_gcc)
      set(EMCP_RISCV_TOOLCHAIN_PREFIX "${prefix}" CACHE STRING "Prefix of the GNU tools")
      break()
    endif()
  endforeach()
  if(NOT EMCP_RISCV_TOOLCHAIN_PREFIX)
    message(FATAL_ERROR "no riscv64-unknown-elf-gcc, riscv-none-elf-gcc or riscv32-unknown-elf-gcc on PATH "
                        "(Debian: apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf)")
  endif()
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EMCP_RISCV_ARCH EMCP_RISCV_ABI EMCP_RISCV_CMODEL
     EMCP_RISCV_PICOLIBC EMCP_RISCV_TOOLCHAIN_PREFIX)

set(CMAKE_C_COMPILER "${EMCP_RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_ASM_COMPILER "${EMCP_RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${EMCP_RISCV_TOOLCHAIN_PREFIX}g++")
set(CMAKE_AR "${EMCP_RISCV_TOOLCHAIN_PREFIX}ar" CACHE FILEPATH "")
set(CMAKE_OBJCOPY "${EMCP_RISCV_TOOLCHAIN_PREFIX}objcopy" CACHE FILEPATH "")
set(CMAKE_SIZE "${EMCP_RISCV_TOOLCHAIN_PREFIX}size" CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(emcp_rv_compile_arch "${EMCP_RISCV_ARCH}")
if(NOT emcp_rv_compile_arch MATCHES "zicsr")
  string(APPEND emcp_rv_compile_arch "_zicsr")
endif()
set(emcp_rv_flags "-march=${emcp_rv_compile_arch} -mabi=${EMCP_RISCV_ABI} -mcmodel=${EMCP_RISCV_CMODEL}")
# The link's -march comes after CMAKE_C_FLAGS' and wins: picolibc's multilib.
set(emcp_rv_link "-march=${EMCP_RISCV_ARCH}")
if(EMCP_RISCV_PICOLIBC)
  # CMAKE_C_FLAGS reach the link line too: the specs once (twice is an error).
  string(APPEND emcp_rv_flags " --specs=picolibc.specs")
endif()
set(CMAKE_C_FLAGS_INIT "${emcp_rv_flags}")
set(CMAKE_CXX_FLAGS_INIT "${emcp_rv_flags}")
set(CMAKE_ASM_FLAGS_INIT "${emcp_rv_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${emcp_rv_link}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

include("${CMAKE_CURRENT_LIST_DIR}/../EmcpRustTarget.cmake")
if(EMCP_RISCV_ABI MATCHES "[fd]$")
  set(emcp_rv_fpu hard)
else()
  set(emcp_rv_fpu none)
endif()
string(REGEX REPLACE "_.*" "" emcp_rv_isa "${emcp_rv_isa}")
emcp_rust_target_for(emcp_rv_triple ARCH riscv FPU "${emcp_rv_fpu}" BITS "${emcp_rv_bits}" ISA "${emcp_rv_isa}")
if(NOT DEFINED EMCP_RUST_TARGET OR EMCP_RUST_TARGET STREQUAL "" OR EMCP_RUST_TARGET STREQUAL "${EMCP_RUST_TARGET_FROM_TOOLCHAIN}")
  if(NOT emcp_rv_triple)
    message(FATAL_ERROR "emcp: ${emcp_rv_triple_ERROR}; set EMCP_RUST_TARGET yourself")
  endif()
  set(EMCP_RUST_TARGET "${emcp_rv_triple}" CACHE STRING "Rust target triple for the core (empty: host)" FORCE)
  set(EMCP_RUST_TARGET_FROM_TOOLCHAIN "${emcp_rv_triple}" CACHE INTERNAL "")
endif()
