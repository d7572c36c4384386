# A prebuilt emcp tree (scripts/package, or any cmake --install prefix) for
# build systems that otherwise add emcp's CMake project: Zephyr's module
# (CONFIG_EMCP_PREBUILT_DIR) and the FreeRTOS example (EMCP_PREBUILT_DIR).
#
# emcp_use_prebuilt(<dir> [RUST_TARGET <triple>] [LIMITS <NAME=VALUE>...])
#   find_package(emcp 0.1) from <dir> only, which defines emcp::emcp (and the
#   binding targets the tree has) with no Rust toolchain. A FATAL_ERROR when
#   the tree is missing, is built for another Rust target than <triple>
#   (the board's), or has another value for a listed limit than asked for
#   (limits are compiled into libemcp.a: other limits need a build from
#   source). Sets emcp_PREBUILT_INCLUDE_DIR to the tree's include directory;
#   the package's targets are made global (IMPORTED_GLOBAL).
include_guard(GLOBAL)

function(emcp_use_prebuilt dir)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RUST_TARGET" "LIMITS")
  get_filename_component(dir "${dir}" ABSOLUTE)
  if(NOT EXISTS "${dir}/lib/cmake/emcp/emcpConfig.cmake")
    message(FATAL_ERROR "emcp: the prebuilt directory ${dir} has no lib/cmake/emcp/emcpConfig.cmake "
                        "(unpack an archive of scripts/package there, or give a cmake --install prefix)")
  endif()
  find_package(emcp 0.1 REQUIRED CONFIG PATHS "${dir}" NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(DEFINED A_RUST_TARGET AND NOT emcp_RUST_TARGET STREQUAL A_RUST_TARGET)
    set(built "${emcp_RUST_TARGET}")
    if(built STREQUAL "")
      set(built "the host")
    endif()
    message(FATAL_ERROR "emcp: the prebuilt tree ${dir} is built for ${built}; this board's core "
                        "needs ${A_RUST_TARGET} (take the archive emcp-${emcp_VERSION}-${A_RUST_TARGET}-<profile>)")
  endif()
  # The limits the tree was built with: its emcp_limits.h (the library and
  # the header agree; scripts/package builds the defaults).
  file(STRINGS "${dir}/include/emcp_limits.h" defines REGEX "^#define MCP_[A-Z0-9_]+ [0-9]+$")
  set(wrong "")
  foreach(item IN LISTS A_LIMITS)
    if(NOT item MATCHES "^([A-Z][A-Z0-9_]*)=([0-9]+)$")
      message(FATAL_ERROR "emcp: limit '${item}' is not NAME=INTEGER")
    endif()
    set(name "${CMAKE_MATCH_1}")
    set(want "${CMAKE_MATCH_2}")
    set(have "")
    foreach(d IN LISTS defines)
      if(d MATCHES "^#define MCP_${name} ([0-9]+)$")
        set(have "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT have STREQUAL want)
      list(APPEND wrong "MCP_${name}: ${want} asked, ${have} built")
    endif()
  endforeach()
  if(wrong)
    list(JOIN wrong "; " wrong)
    message(FATAL_ERROR "emcp: the prebuilt tree ${dir} was built with other limits (${wrong}). "
                        "Limits are compiled into libemcp.a: keep the tree's values, or build the core "
                        "from source with these limits (without the prebuilt directory; README.md, \"Without Rust\")")
  endif()
  set(target "${emcp_RUST_TARGET}")
  if(target STREQUAL "")
    set(target "host")
  endif()
  message(STATUS "emcp: prebuilt emcp ${emcp_VERSION} (${target}, ${emcp_PROFILE} profile) from ${dir}: "
                 "no Rust build")
  # Visible to every directory of the build (Zephyr links emcp::emcp into
  # zephyr_interface, defined elsewhere): the package's targets are global.
  set(targets emcp::emcp)
  foreach(b IN LISTS emcp_BINDINGS)
    list(APPEND targets "emcp::${b}")
  endforeach()
  foreach(t IN LISTS targets)
    if(TARGET ${t})
      set_target_properties(${t} PROPERTIES IMPORTED_GLOBAL TRUE)
    endif()
  endforeach()
  set(emcp_PREBUILT_INCLUDE_DIR "${dir}/include" PARENT_SCOPE)
  foreach(v emcp_FOUND emcp_VERSION emcp_DIR emcp_RUST_TARGET emcp_PROFILE emcp_LIMITS emcp_BINDINGS)
    set(${v} "${${v}}" PARENT_SCOPE)
  endforeach()
endfunction()
