# CMake toolchain file for Arm Cortex-M with the GNU Arm Embedded toolchain
# (arm-none-eabi-gcc; Debian: gcc-arm-none-eabi libnewlib-arm-none-eabi).
#
#   cmake -S <project> -B <build> -DCMAKE_TOOLCHAIN_FILE=<emcp>/cmake/toolchain/arm-none-eabi.cmake \
#         -DEMCP_ARM_CPU=cortex-m4
#
# EMCP_ARM_CPU        cortex-m0, cortex-m0plus, cortex-m1, cortex-m3, cortex-m4 (default),
#                     cortex-m7, cortex-m23, cortex-m33, cortex-m35p, cortex-m55
# EMCP_ARM_FLOAT_ABI  hard (default on a CPU with an FPU), softfp, soft (default otherwise)
# EMCP_ARM_FPU        -mfpu= value (default per CPU: fpv4-sp-d16 on the M4, fpv5-d16 on
#                     the M7, fpv5-sp-d16 on the M33/M35P, auto on the M55)
# EMCP_ARM_TOOLCHAIN_PREFIX  the tools' prefix (default arm-none-eabi-)
#
# Sets CMAKE_C_FLAGS to -mcpu/-mthumb/-mfloat-abi/-mfpu (they reach the link
# too, so GCC picks the matching newlib multilib) and, unless given,
# EMCP_RUST_TARGET to the Rust triple of that CPU and ABI (emcp_rust_target_for,
# cmake/EmcpRustTarget.cmake): cortex-m4 + hard is thumbv7em-none-eabihf,
# cortex-m0 is thumbv6m-none-eabi. The C library and its system calls
# (--specs=nano.specs, rdimon.specs, nosys.specs) are the firmware's choice:
# add them to its link options. Try-compiles build static libraries (a
# bare-metal program does not link without a start-up and a linker script).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(EMCP_ARM_CPU cortex-m4 CACHE STRING "Cortex-M CPU (-mcpu)")
set(EMCP_ARM_TOOLCHAIN_PREFIX arm-none-eabi- CACHE STRING "Prefix of the GNU tools")
if(EMCP_ARM_CPU MATCHES "^cortex-m(4|7|33|35p|55)$")
  set(emcp_arm_has_fpu ON)
else()
  set(emcp_arm_has_fpu OFF)
endif()
if(emcp_arm_has_fpu)
  set(EMCP_ARM_FLOAT_ABI hard CACHE STRING "Float ABI: hard, softfp or soft")
else()
  set(EMCP_ARM_FLOAT_ABI soft CACHE STRING "Float ABI: hard, softfp or soft")
endif()
if(EMCP_ARM_CPU STREQUAL "cortex-m4")
  set(emcp_arm_fpu fpv4-sp-d16)
elseif(EMCP_ARM_CPU STREQUAL "cortex-m7")
  set(emcp_arm_fpu fpv5-d16)
elseif(EMCP_ARM_CPU MATCHES "^cortex-m(33|35p)$")
  set(emcp_arm_fpu fpv5-sp-d16)
elseif(EMCP_ARM_CPU STREQUAL "cortex-m55")
  set(emcp_arm_fpu auto)
else()
  set(emcp_arm_fpu "")
endif()
set(EMCP_ARM_FPU "${emcp_arm_fpu}" CACHE STRING "FPU (-mfpu; empty: none)")
if(NOT EMCP_ARM_FLOAT_ABI MATCHES "^(hard|softfp|soft)$")
  message(FATAL_ERROR "EMCP_ARM_FLOAT_ABI is '${EMCP_ARM_FLOAT_ABI}'; it must be hard, softfp or soft")
endif()
if(NOT EMCP_ARM_FLOAT_ABI STREQUAL "soft" AND NOT EMCP_ARM_FPU)
  message(FATAL_ERROR "EMCP_ARM_FLOAT_ABI=${EMCP_ARM_FLOAT_ABI} needs an FPU: ${EMCP_ARM_CPU} has none "
                      "here (set EMCP_ARM_FPU, or EMCP_ARM_FLOAT_ABI=soft)")
endif()
# Try-compiles (and the toolchain file they read again) see the same CPU.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EMCP_ARM_CPU EMCP_ARM_FLOAT_ABI EMCP_ARM_FPU EMCP_ARM_TOOLCHAIN_PREFIX)

set(CMAKE_C_COMPILER "${EMCP_ARM_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_ASM_COMPILER "${EMCP_ARM_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${EMCP_ARM_TOOLCHAIN_PREFIX}g++")
set(CMAKE_AR "${EMCP_ARM_TOOLCHAIN_PREFIX}ar" CACHE FILEPATH "")
set(CMAKE_OBJCOPY "${EMCP_ARM_TOOLCHAIN_PREFIX}objcopy" CACHE FILEPATH "")
set(CMAKE_SIZE "${EMCP_ARM_TOOLCHAIN_PREFIX}size" CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(emcp_arm_flags "-mcpu=${EMCP_ARM_CPU} -mthumb -mfloat-abi=${EMCP_ARM_FLOAT_ABI}")
if(NOT EMCP_ARM_FLOAT_ABI STREQUAL "soft")
  string(APPEND emcp_arm_flags " -mfpu=${EMCP_ARM_FPU}")
endif()
set(CMAKE_C_FLAGS_INIT "${emcp_arm_flags}")
# newlib's start-up objects (crti.o, crtn.o, Debian's libnewlib-arm-none-eabi)
# carry no .note.GNU-stack section, and binutils 2.39 and later warn about it
# on every link ("missing .note.GNU-stack section implies executable
# stack"). A Cortex-M has no loader that reads that note, so the warning says
# nothing about the firmware: off, where the linker has the option.
execute_process(COMMAND "${EMCP_ARM_TOOLCHAIN_PREFIX}ld" --help OUTPUT_VARIABLE emcp_arm_ld_help
                ERROR_QUIET RESULT_VARIABLE emcp_arm_ld_rc)
if(emcp_arm_ld_rc EQUAL 0 AND emcp_arm_ld_help MATCHES "--no-warn-execstack")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--no-warn-execstack")
endif()
set(CMAKE_CXX_FLAGS_INIT "${emcp_arm_flags}")
set(CMAKE_ASM_FLAGS_INIT "${emcp_arm_flags}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The Rust triple of this CPU, unless EMCP_RUST_TARGET was given. A value this
# file set follows a later change of EMCP_ARM_CPU or EMCP_ARM_FLOAT_ABI.
include("${CMAKE_CURRENT_LIST_DIR}/../EmcpRustTarget.cmake")
if(EMCP_ARM_FLOAT_ABI STREQUAL "hard")
  set(emcp_arm_rust_fpu hard)
elseif(EMCP_ARM_FLOAT_ABI STREQUAL "softfp")
  set(emcp_arm_rust_fpu soft)
else()
  set(emcp_arm_rust_fpu none)
endif()
emcp_rust_target_for(emcp_arm_triple ARCH arm CPU "${EMCP_ARM_CPU}" FPU "${emcp_arm_rust_fpu}" BITS 32)
if(NOT DEFINED EMCP_RUST_TARGET OR EMCP_RUST_TARGET STREQUAL "" OR EMCP_RUST_TARGET STREQUAL "${EMCP_RUST_TARGET_FROM_TOOLCHAIN}")
  if(NOT emcp_arm_triple)
    message(FATAL_ERROR "emcp: ${emcp_arm_triple_ERROR}; set EMCP_RUST_TARGET yourself")
  endif()
  set(EMCP_RUST_TARGET "${emcp_arm_triple}" CACHE STRING "Rust target triple for the core (empty: host)" FORCE)
  set(EMCP_RUST_TARGET_FROM_TOOLCHAIN "${emcp_arm_triple}" CACHE INTERNAL "")
endif()
