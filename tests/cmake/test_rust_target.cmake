# Unit test of cmake/EmcpRustTarget.cmake and cmake/EmcpLimits.cmake.
#   cmake -P tests/cmake/test_rust_target.cmake
# Prints one line per case and exits non-zero when any case fails.
cmake_minimum_required(VERSION 3.20)
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

# Mode used by the FATAL_ERROR case below: a Zephyr-like configuration with an
# unsupported CPU, evaluated in a child cmake.
if(EMCP_TEST_ZEPHYR_CASE)
  include("${root}/cmake/EmcpRustTarget.cmake")
  set(BOARD "fake_board")
  if(EMCP_TEST_ZEPHYR_CASE STREQUAL "cortex-a53")
    set(CONFIG_ARM y)
    set(CONFIG_SOC "cortex_a53_soc")
  elseif(EMCP_TEST_ZEPHYR_CASE STREQUAL "m4f")
    set(CONFIG_ARM y)
    set(CONFIG_CPU_CORTEX_M y)
    set(CONFIG_CPU_CORTEX_M4 y)
    set(CONFIG_FPU y)
    set(CONFIG_FP_HARDABI y)
  elseif(EMCP_TEST_ZEPHYR_CASE STREQUAL "rv32imac")
    set(CONFIG_RISCV y)
    set(CONFIG_RISCV_ISA_EXT_M y)
    set(CONFIG_RISCV_ISA_EXT_A y)
    set(CONFIG_RISCV_ISA_EXT_C y)
  elseif(EMCP_TEST_ZEPHYR_CASE STREQUAL "native_sim_64")
    set(CONFIG_ARCH_POSIX y)
    set(CONFIG_64BIT y)
  elseif(EMCP_TEST_ZEPHYR_CASE STREQUAL "xtensa")
    set(ARCH "xtensa")
  endif()
  emcp_rust_target_zephyr(t)
  message(STATUS "TRIPLE=${t}")
  return()
endif()

include("${root}/cmake/EmcpRustTarget.cmake")
include("${root}/cmake/EmcpLimits.cmake")
set(failures 0)
macro(expect what got want)
  if("${got}" STREQUAL "${want}")
    message(STATUS "PASS ${what} -> ${got}")
  else()
    message(STATUS "FAIL ${what}: got '${got}', want '${want}'")
    math(EXPR failures "${failures} + 1")
  endif()
endmacro()

# ARCH CPU FPU BITS ISA HOST -> triple ("" = unsupported)
set(cases
  "arm|cortex-m0|none|32||x86_64|thumbv6m-none-eabi"
  "arm|cortex-m0plus|none|32||x86_64|thumbv6m-none-eabi"
  "arm|cortex-m3|none|32||x86_64|thumbv7m-none-eabi"
  "arm|cortex-m4|hard|32||x86_64|thumbv7em-none-eabihf"
  "arm|cortex-m4|soft|32||x86_64|thumbv7em-none-eabi"
  "arm|cortex-m4|none|32||x86_64|thumbv7em-none-eabi"
  "arm|cortex-m7|hard|32||x86_64|thumbv7em-none-eabihf"
  "arm|cortex-m7|none|32||x86_64|thumbv7em-none-eabi"
  "arm|cortex-m23|none|32||x86_64|thumbv8m.base-none-eabi"
  "arm|cortex-m33|hard|32||x86_64|thumbv8m.main-none-eabihf"
  "arm|cortex-m33|none|32||x86_64|thumbv8m.main-none-eabi"
  "arm|cortex-m55|hard|32||x86_64|thumbv8m.main-none-eabihf"
  "arm|cortex-a53|hard|64||x86_64|"
  "arm||none|32||x86_64|"
  "riscv||none|32|mac|x86_64|riscv32imac-unknown-none-elf"
  "riscv||none|32|mc|x86_64|riscv32imc-unknown-none-elf"
  "riscv||none|32|m|x86_64|riscv32im-unknown-none-elf"
  "riscv||none|32||x86_64|riscv32i-unknown-none-elf"
  "riscv||hard|32|mafc|x86_64|riscv32imafc-unknown-none-elf"
  "riscv||hard|32|mafdc|x86_64|"
  "riscv||hard|64|mafdc|x86_64|riscv64gc-unknown-none-elf"
  "riscv||none|64|mac|x86_64|riscv64imac-unknown-none-elf"
  "riscv||none|64||x86_64|"
  "posix||none|64||x86_64|x86_64-unknown-linux-gnu"
  "posix||none|32||x86_64|i686-unknown-linux-gnu"
  "posix||none|64||aarch64|aarch64-unknown-linux-gnu"
  "posix||none|32||aarch64|"
  "xtensa||none|32||x86_64|"
  "arc||none|32||x86_64|"
)
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" f "${c}")
  list(GET f 0 arch)
  list(GET f 1 cpu)
  list(GET f 2 fpu)
  list(GET f 3 bits)
  list(GET f 4 isa)
  list(GET f 5 host)
  list(GET f 6 want)
  emcp_rust_target_for(got ARCH "${arch}" CPU "${cpu}" FPU "${fpu}" BITS "${bits}" ISA "${isa}" HOST "${host}")
  expect("${arch} ${cpu} fpu=${fpu} ${bits}-bit isa=${isa} host=${host}" "${got}" "${want}")
  if(want STREQUAL "" AND got_ERROR STREQUAL "")
    message(STATUS "FAIL ${c}: unsupported but no reason given")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

# The Zephyr wrapper: CONFIG_* in, triple out; an unsupported CPU stops the
# configuration with a FATAL_ERROR that names the fix.
foreach(z "m4f|thumbv7em-none-eabihf" "rv32imac|riscv32imac-unknown-none-elf"
          "native_sim_64|x86_64-unknown-linux-gnu" "cortex-a53|" "xtensa|")
  string(REPLACE "|" ";" f "${z}")
  list(GET f 0 zcase)
  list(LENGTH f n)
  set(want "")
  if(n GREATER 1)
    list(GET f 1 want)
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -DEMCP_TEST_ZEPHYR_CASE=${zcase}
                          -DCMAKE_HOST_SYSTEM_PROCESSOR=x86_64 -P "${CMAKE_CURRENT_LIST_FILE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(want)
    string(REGEX MATCH "TRIPLE=([^\n]*)" _ "${out}")
    expect("zephyr ${zcase}" "${rc}|${CMAKE_MATCH_1}" "0|${want}")
  else()
    string(FIND "${err}" "CONFIG_EMCP_RUST_TARGET" hint)
    if(NOT rc EQUAL 0 AND err MATCHES "no Rust target" AND hint GREATER -1)
      message(STATUS "PASS zephyr ${zcase} -> FATAL_ERROR naming CONFIG_EMCP_RUST_TARGET")
    else()
      message(STATUS "FAIL zephyr ${zcase}: rc=${rc}, stderr: ${err}")
      math(EXPR failures "${failures} + 1")
    endif()
  endif()
endforeach()

# EmcpLimits: env list, configured header, refusals.
emcp_limits_parse("MAX_TOOLS=4;MAX_JSON_TOKENS=64" env stamp)
expect("limits env" "${env}" "EMCP_MAX_TOOLS=4;EMCP_MAX_JSON_TOKENS=64")
set(tmp "${CMAKE_CURRENT_BINARY_DIR}/emcp-limits-test")
file(MAKE_DIRECTORY "${tmp}")
emcp_limits_write_header("${root}/include/emcp_limits.h" "${tmp}/emcp_limits.h" "MAX_TOOLS=4;MAX_JSON_TOKENS=64")
if(NOT EXISTS "${tmp}/emcp.h" OR NOT EXISTS "${tmp}/emcp_server.h")
  message(STATUS "FAIL configured headers: emcp.h and its group headers not copied to ${tmp}")
  math(EXPR failures "${failures} + 1")
endif()
file(STRINGS "${tmp}/emcp_limits.h" d REGEX "^#define MCP_(MAX_TOOLS|MAX_JSON_TOKENS|MAX_DEPTH) ")
expect("configured header" "${d}" "#define MCP_MAX_JSON_TOKENS 64;#define MCP_MAX_DEPTH 16;#define MCP_MAX_TOOLS 4")
foreach(bad "MCP_SERVER_SIZE=1" "NO_SUCH=3" "MAX_TOOLS=four")
  execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -DBAD=${bad} -DOUT=${tmp}/bad.h
                          -P "${CMAKE_CURRENT_LIST_DIR}/write_header.cmake"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(STATUS "FAIL limits '${bad}' was accepted")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "PASS limits '${bad}' refused")
  endif()
endforeach()
file(REMOVE_RECURSE "${tmp}")

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()
message(STATUS "all cases passed")
