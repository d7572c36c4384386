# Configure-level checks of CONFIG_EMCP_PREBUILT_DIR in Zephyr's module
# (zephyr/CMakeLists.txt, cmake/EmcpPrebuilt.cmake) without a Zephyr tree,
# through the stub project tests/zephyr/prebuilt, with a PATH that holds
# make alone (no cargo, no rustc, no compiler):
#
#   cmake -DTREE=<a thumbv7em-none-eabihf tree of scripts/package> -DBUILD_DIR=<dir>
#         -P tests/zephyr/check_prebuilt.cmake
#
# - a Cortex-M4F board (thumbv7em-none-eabihf) links emcp::emcp from the
#   tree, visible outside the module's directory, and no cargo target exists;
# - a Cortex-M0 board is refused, naming the tree's target and the board's;
# - CONFIG_EMCP_MAX_TOOLS=8 is refused, naming the limit (the tree has 16).
foreach(v TREE BUILD_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_prebuilt.cmake: -D${v}= is required")
  endif()
endforeach()
set(failures 0)
set(empty "${BUILD_DIR}/make-only-path")
file(REMOVE_RECURSE "${empty}")
file(MAKE_DIRECTORY "${empty}")
find_program(make_program make REQUIRED)
file(CREATE_LINK "${make_program}" "${empty}/make" SYMBOLIC)
set(m4f -DCONFIG_ARM=y -DCONFIG_CPU_CORTEX_M=y -DCONFIG_CPU_CORTEX_M4=y -DCONFIG_FPU=y -DCONFIG_FP_HARDABI=y)
set(m0 -DCONFIG_ARM=y -DCONFIG_CPU_CORTEX_M=y -DCONFIG_CPU_CORTEX_M0=y)

function(configure_case name out_rc out_text)
  set(dir "${BUILD_DIR}/${name}")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PATH=${empty}"
                          "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/prebuilt" -B "${dir}"
                          "-DCONFIG_EMCP_PREBUILT_DIR=${TREE}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE "${BUILD_DIR}/${name}.log" "${out}${err}")
  set(${out_rc} "${rc}" PARENT_SCOPE)
  string(REGEX REPLACE "[ \n]+" " " text "${out}${err}")
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()
macro(check ok what)
  if(${ok})
    message(STATUS "PASS ${what}")
  else()
    message(STATUS "FAIL ${what} (log: ${BUILD_DIR})")
    math(EXPR failures "${failures} + 1")
  endif()
endmacro()

configure_case(m4f rc text ${m4f})
set(ok OFF)
if(rc EQUAL 0 AND EXISTS "${BUILD_DIR}/m4f/linked.txt")
  file(READ "${BUILD_DIR}/m4f/linked.txt" linked)
  string(REGEX MATCH "archive=([^\n]*)" _ "${linked}")
  set(archive "${CMAKE_MATCH_1}")
  if(linked MATCHES "linked=[^\n]*emcp::emcp" AND linked MATCHES "cargo=no emcp_cargo"
     AND archive MATCHES "^${TREE}/lib/libemcp.a$" AND EXISTS "${archive}"
     AND text MATCHES "prebuilt emcp [0-9.]+ \\(thumbv7em-none-eabihf, [a-z]+ profile\\)")
    set(ok ON)
  endif()
endif()
check(ok "Cortex-M4F board: emcp::emcp from the prebuilt tree, no cargo (${archive})")

configure_case(m0 rc text ${m0})
set(ok OFF)
if(NOT rc EQUAL 0 AND text MATCHES "is built for thumbv7em-none-eabihf; this board's core needs thumbv6m-none-eabi")
  set(ok ON)
endif()
check(ok "Cortex-M0 board: the thumbv7em-none-eabihf tree is refused, naming both targets")

configure_case(limits rc text ${m4f} -DCONFIG_EMCP_MAX_TOOLS=8)
set(ok OFF)
if(NOT rc EQUAL 0 AND text MATCHES "MCP_MAX_TOOLS: 8 asked, 16 built")
  set(ok ON)
endif()
check(ok "CONFIG_EMCP_MAX_TOOLS=8: the tree (16) is refused, naming the limit")

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} Zephyr prebuilt check(s) failed")
endif()
