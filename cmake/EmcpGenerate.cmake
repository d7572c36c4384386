# Tools generated at build time (tools/gen, docs/firmware.md "Generated tools").
#
# emcp_generate_tools(<target> <tools.json> [PREFIX <name>] [OUTPUT_DIR <dir>])
#   Runs emcp-gen on the tools file at build time and adds the files it
#   writes, <name>_tools.c and <name>_tools.h (in <dir>, default
#   <binary dir>/emcp-gen/<target>), to <target>, with <dir> on its include
#   path. <name> defaults to the file's "prefix" member, else its name
#   without "_tools.json". A tools file the schema checker refuses fails the
#   build, naming the file, line, tool and keyword.
#
# emcp-gen is a program for the build machine, never for the firmware's
# target, so a cross build works:
#   - EMCP_GEN_EXECUTABLE, when set, names it; an installed or prebuilt
#     package (find_package(emcp), emcp_use_prebuilt) gives its bin/emcp-gen
#     the same way: no Rust toolchain needed;
#   - otherwise it is built here once per build tree, with cargo for the
#     host (EMCP_CARGO, or cargo on the PATH), from tools/gen.
include_guard(GLOBAL)

# The source checkout whose tools/gen the fallback builds: the first copy of
# this file included from a checkout names it. An installed copy
# (lib/cmake/emcp/, no tools/gen beside it) never replaces it: in Zephyr's
# module with CONFIG_EMCP_PREBUILT_DIR, find_package includes the tree's copy
# after the module's, and a tree without bin/emcp-gen (cmake --install of a
# cross build) then still has the module's tools/gen to build it from.
get_filename_component(_emcp_gen_here "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
get_property(_emcp_gen_root_set GLOBAL PROPERTY emcp_gen_root SET)
if(NOT _emcp_gen_root_set AND EXISTS "${_emcp_gen_here}/tools/gen/Cargo.toml")
  set_property(GLOBAL PROPERTY emcp_gen_root "${_emcp_gen_here}")
endif()
unset(_emcp_gen_here)
unset(_emcp_gen_root_set)

# The host build of emcp-gen (one per build tree): the path of the program.
function(emcp_gen_program out)
  get_property(packaged GLOBAL PROPERTY emcp_gen_packaged)
  if(EMCP_GEN_EXECUTABLE)
    set(${out} "${EMCP_GEN_EXECUTABLE}" PARENT_SCOPE)
    return()
  elseif(packaged)
    set(${out} "${packaged}" PARENT_SCOPE)
    return()
  endif()
  get_property(root GLOBAL PROPERTY emcp_gen_root)
  if("${root}" STREQUAL "")
    message(FATAL_ERROR "emcp_generate_tools: no emcp-gen: this emcp package has no bin/emcp-gen (the trees "
                        "of scripts/package have one; cmake --install adds it with EMCP_BUILD_TOOLS=ON), no "
                        "emcp source checkout is known to build it from, and EMCP_GEN_EXECUTABLE is not set")
  endif()
  set(dir "${CMAKE_BINARY_DIR}/emcp-gen-host")
  set(exe "${dir}/emcp-gen")
  # cargo's build directory: shared by every build tree of this checkout
  # (cargo locks it), so each does not compile the generator again.
  set(EMCP_GEN_CARGO_TARGET_DIR "${root}/target/emcp-gen-host" CACHE PATH
      "cargo --target-dir for emcp-gen (a host program; shared by the build trees of one checkout)")
  if(NOT TARGET emcp_gen_host)
    if(EMCP_CARGO)
      set(cargo "${EMCP_CARGO}")
    else()
      find_program(cargo_found cargo HINTS "$ENV{HOME}/.cargo/bin" REQUIRED)
      set(cargo "${cargo_found}")
    endif()
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${root}/tools/gen/src/*.rs" "${root}/src/*.rs")
    # The firmware's settings are for its target: none of them may reach the
    # host build (a target, flags, a profile's opt-level, the limits).
    file(STRINGS "${root}/src/limits.rs" names REGEX "^pub const MCP_[A-Z0-9_]+: usize")
    set(unset --unset=CARGO_BUILD_TARGET --unset=RUSTFLAGS --unset=CARGO_ENCODED_RUSTFLAGS
              --unset=CARGO_PROFILE_RELEASE_OPT_LEVEL --unset=CARGO_TARGET_DIR --unset=RUSTC_BOOTSTRAP)
    foreach(line IN LISTS names)
      string(REGEX MATCH "^pub const MCP_([A-Z0-9_]+)" _ "${line}")
      list(APPEND unset "--unset=EMCP_${CMAKE_MATCH_1}")
    endforeach()
    add_custom_command(
      OUTPUT "${exe}"
      COMMAND "${CMAKE_COMMAND}" -E env ${unset}
              "${cargo}" build --release --locked --manifest-path "${root}/tools/gen/Cargo.toml"
              --target-dir "${EMCP_GEN_CARGO_TARGET_DIR}"
      COMMAND "${CMAKE_COMMAND}" -E copy "${EMCP_GEN_CARGO_TARGET_DIR}/release/emcp-gen" "${exe}"
      DEPENDS ${sources} "${root}/tools/gen/Cargo.toml" "${root}/tools/gen/Cargo.lock" "${root}/Cargo.toml"
      COMMENT "Building emcp-gen for the build machine"
      USES_TERMINAL
      VERBATIM)
    add_custom_target(emcp_gen_host DEPENDS "${exe}")
    set_property(GLOBAL PROPERTY emcp_gen_built "${exe}")
  endif()
  set(${out} "${exe}" PARENT_SCOPE)
endfunction()

function(emcp_generate_tools target tools)
  cmake_parse_arguments(PARSE_ARGV 2 A "" "PREFIX;OUTPUT_DIR" "")
  get_filename_component(tools "${tools}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${tools}")
    message(FATAL_ERROR "emcp_generate_tools: ${tools} does not exist")
  endif()
  set(prefix "${A_PREFIX}")
  if(prefix STREQUAL "")
    # As emcp-gen chooses it: the file's "prefix", else its name.
    file(READ "${tools}" text)
    string(JSON prefix ERROR_VARIABLE no_prefix GET "${text}" prefix)
    if(no_prefix)
      get_filename_component(prefix "${tools}" NAME_WE)
      string(REGEX REPLACE "_tools$" "" prefix "${prefix}")
    endif()
  endif()
  set(out "${A_OUTPUT_DIR}")
  if(out STREQUAL "")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/emcp-gen/${target}")
  endif()
  emcp_gen_program(gen)
  set(files "${out}/${prefix}_tools.c" "${out}/${prefix}_tools.h")
  set(deps "${tools}" "${gen}")
  if(TARGET emcp_gen_host)
    list(APPEND deps emcp_gen_host)
  endif()
  add_custom_command(
    OUTPUT ${files}
    COMMAND "${gen}" "${tools}" "${out}" --prefix "${prefix}"
    # emcp-gen leaves unchanged files alone: the outputs are touched so the
    # rule is not run again on every build.
    COMMAND "${CMAKE_COMMAND}" -E touch ${files}
    DEPENDS ${deps}
    COMMENT "emcp-gen: ${prefix}_tools.c and .h from ${tools}"
    VERBATIM)
  target_sources(${target} PRIVATE ${files})
  target_include_directories(${target} PRIVATE "${out}")
endfunction()
