# Build-time limits for emcp (see build.rs and docs/zephyr.md).
#
# emcp_limits_parse(<list> <out_env> <out_stamp>)
#   <list> is a CMake list of NAME=VALUE items naming limits of src/limits.rs
#   without the MCP_ prefix, e.g. "MAX_TOOLS=4;MAX_JSON_TOKENS=64". Sets
#   <out_env> to the environment assignments for cargo (EMCP_MAX_TOOLS=4 ...)
#   and <out_stamp> to a canonical text of the list (for a dependency stamp).
#
# emcp_limits_write_header(<in> <out> <list>)
#   Writes <out>: the header <in> (include/emcp_limits.h, as cbindgen
#   generated it) with the #define of each listed limit replaced by its value,
#   and copies the other emcp*.h headers of <in>'s directory (emcp.h and its
#   group headers) next to <out>, so that directory is a complete include
#   directory. Derived constants (MCP_SERVER_SIZE, MCP_DEDUP_WORDS, ...) are
#   expressions over the base ones in the header and follow. A name without
#   exactly one "#define MCP_<NAME> <integer>" line is a fatal error.
include_guard(GLOBAL)

function(emcp_limits_parse list out_env out_stamp)
  set(env "")
  set(stamp "")
  foreach(item IN LISTS list)
    if(NOT item MATCHES "^([A-Z][A-Z0-9_]*)=([0-9]+)$")
      message(FATAL_ERROR "emcp: EMCP_LIMITS item '${item}' is not NAME=INTEGER (e.g. MAX_TOOLS=4)")
    endif()
    list(APPEND env "EMCP_${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
    string(APPEND stamp "MCP_${CMAKE_MATCH_1}=${CMAKE_MATCH_2}\n")
  endforeach()
  set(${out_env} "${env}" PARENT_SCOPE)
  set(${out_stamp} "${stamp}" PARENT_SCOPE)
endfunction()

function(emcp_limits_write_header in out list)
  file(READ "${in}" text)
  foreach(item IN LISTS list)
    if(NOT item MATCHES "^([A-Z][A-Z0-9_]*)=([0-9]+)$")
      message(FATAL_ERROR "emcp: EMCP_LIMITS item '${item}' is not NAME=INTEGER")
    endif()
    set(name "MCP_${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    string(REGEX MATCHALL "\n#define ${name} [0-9]+\n" hits "${text}")
    list(LENGTH hits n)
    if(NOT n EQUAL 1)
      message(FATAL_ERROR "emcp: ${name} is not a plain integer #define of ${in} (found ${n}); "
                          "it cannot be set through EMCP_LIMITS")
    endif()
    string(REGEX REPLACE "\n#define ${name} [0-9]+\n" "\n#define ${name} ${value}\n" text "${text}")
  endforeach()
  string(REPLACE "#define EMCP_LIMITS_H\n"
         "#define EMCP_LIMITS_H\n\n/* Configured copy of include/emcp_limits.h with build-time limits: ${list} */\n"
         text "${text}")
  file(WRITE "${out}.tmp" "${text}")
  file(COPY_FILE "${out}.tmp" "${out}" ONLY_IF_DIFFERENT)
  file(REMOVE "${out}.tmp")
  get_filename_component(in_dir "${in}" DIRECTORY)
  get_filename_component(out_dir "${out}" DIRECTORY)
  file(GLOB headers "${in_dir}/emcp*.h")
  foreach(header IN LISTS headers)
    if(NOT header STREQUAL in)
      get_filename_component(name "${header}" NAME)
      file(COPY_FILE "${header}" "${out_dir}/${name}" ONLY_IF_DIFFERENT)
    endif()
  endforeach()
endfunction()
