# Test of the configure-time Rust route check (cmake/EmcpRustRoute.cmake and
# its use in CMakeLists.txt).
#   cmake -P tests/cmake/test_rust_route.cmake
# Prints one line per case and exits non-zero when any case fails. The
# expectations follow this machine's toolchains, probed here independently:
# whether the default rustc (the one next to cargo) has a precompiled core for
# a target, and whether a rustc with the library source (rustup's rust-src,
# or Debian's /usr/bin/rustc with rust-web-src) exists. On Debian 12 with
# rustc-web, cargo-web and rust-web-src and a host-only rustup (the test
# machines) a thumbv7em configure picks build-std with /usr/bin/rustc.
cmake_minimum_required(VERSION 3.20)
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

# Child mode: one call of emcp_rust_route, its results on stdout (a
# FATAL_ERROR is the child's exit status and stderr).
if(DEFINED EMCP_ROUTE_CASE)
  include("${root}/cmake/EmcpRustRoute.cmake")
  string(REPLACE "|" ";" a "${EMCP_ROUTE_CASE}")
  emcp_rust_route(r ${a})
  message(STATUS "ROUTE=${r_ROUTE}")
  message(STATUS "CARGO=${r_CARGO}")
  message(STATUS "RUSTC=${r_RUSTC}")
  message(STATUS "ENV=${r_ENV}")
  message(STATUS "FLAGS=${r_FLAGS}")
  return()
endif()

set(failures 0)
set(passes 0)
macro(pass what)
  message(STATUS "PASS ${what}")
  math(EXPR passes "${passes} + 1")
endmacro()
macro(fail what)
  message(STATUS "FAIL ${what}")
  math(EXPR failures "${failures} + 1")
endmacro()
macro(verdict ok what)
  if(${ok})
    pass("${what}")
  else()
    fail("${what}: rc=${rc}\n${out}${err}")
  endif()
endmacro()
# run_case(<args a|b|c>): rc, out, err of a child emcp_rust_route.
macro(run_case args)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DEMCP_ROUTE_CASE=${args}" -P "${CMAKE_CURRENT_LIST_FILE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# This machine's toolchains.
find_program(cargo cargo HINTS "$ENV{HOME}/.cargo/bin" NO_CACHE REQUIRED)
get_filename_component(cargo_dir "${cargo}" DIRECTORY)
set(rustc "${cargo_dir}/rustc")
function(has_core triple out)
  execute_process(COMMAND "${rustc}" --print target-libdir --target ${triple} WORKING_DIRECTORY "${root}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE dir ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(cores "")
  if(rc EQUAL 0)
    file(GLOB cores "${dir}/libcore-*.rlib")
  endif()
  if(cores)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()
execute_process(COMMAND "${rustc}" --print sysroot OUTPUT_VARIABLE sysroot OUTPUT_STRIP_TRAILING_WHITESPACE
                WORKING_DIRECTORY "${root}")
set(rustup OFF)
if(sysroot MATCHES "/\\.?rustup/toolchains/")
  set(rustup ON)
endif()
set(own_src OFF)
if(EXISTS "${sysroot}/lib/rustlib/src/rust/library/Cargo.lock")
  set(own_src ON)
endif()
set(debian OFF)
if(EXISTS /usr/bin/cargo AND EXISTS /usr/lib/rustlib/src/rust/library/Cargo.lock)
  set(debian ON)
endif()
has_core(thumbv7em-none-eabihf core_v7em)
has_core(thumbv6m-none-eabi core_v6m)
message(STATUS "toolchains: ${rustc} (core for thumbv7em: ${core_v7em}, thumbv6m: ${core_v6m}, "
               "rust-src: ${own_src}); Debian /usr/bin/rustc with rust-web-src: ${debian}")

set(tmp "${CMAKE_CURRENT_BINARY_DIR}/emcp-route-test")
file(REMOVE_RECURSE "${tmp}")

# 1. A configure with a bogus target stops, saying the triple is unknown and
#    how to list the real ones.
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${root}" -B "${tmp}/bogus" -DEMCP_RUST_TARGET=bogus-none-elf
                        -DEMCP_BUILD_EXAMPLES=OFF -DEMCP_BUILD_TESTS=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \n]+" " " flat "${err}")
set(ok OFF)
if(NOT rc EQUAL 0 AND flat MATCHES "knows the target 'bogus-none-elf'" AND flat MATCHES "rustc --print target-list")
  set(ok ON)
endif()
verdict(ok "configure EMCP_RUST_TARGET=bogus-none-elf stops naming the fix")

# 2. The README's cross configure (-DEMCP_RUST_TARGET=thumbv7em-none-eabihf)
#    succeeds and says which route it took.
if(core_v7em)
  set(want "route installed \\(${cargo}, ${rustc}\\)")
elseif(own_src)
  set(want "route build-std \\(${cargo}, ${rustc}\\)")
elseif(debian)
  set(want "route build-std \\(/usr/bin/cargo, /usr/bin/rustc\\)")
else()
  set(want "NONE")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${root}" -B "${tmp}/v7em" -DEMCP_RUST_TARGET=thumbv7em-none-eabihf
                        -DEMCP_BUILD_EXAMPLES=OFF -DEMCP_BUILD_TESTS=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \n]+" " " flat "${out}")
if(want STREQUAL "NONE")
  string(REGEX REPLACE "[ \n]+" " " flat "${err}")
  set(ok OFF)
  if(NOT rc EQUAL 0 AND flat MATCHES "Fix it with one of")
    set(ok ON)
  endif()
  verdict(ok "configure thumbv7em without any route stops naming the fix")
else()
  set(ok OFF)
  if(rc EQUAL 0 AND flat MATCHES "${want}")
    set(ok ON)
  endif()
  verdict(ok "configure EMCP_RUST_TARGET=thumbv7em-none-eabihf: ${want}")
endif()
file(REMOVE_RECURSE "${tmp}")

# 3. An explicit build-std route: RUSTC pinned, RUSTC_BOOTSTRAP, -Zbuild-std=core,
#    -Cpanic=immediate-abort unless turned off.
if(own_src OR debian)
  if(own_src)
    set(std_rustc "${rustc}")
  else()
    set(std_rustc /usr/bin/rustc)
  endif()
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|build-std|CARGO|${cargo}|PANIC_IMMEDIATE_ABORT|ON")
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "ROUTE=build-std\n" AND out MATCHES "RUSTC=${std_rustc}\n" AND out MATCHES "ENV=RUSTC=${std_rustc};RUSTC_BOOTSTRAP=1;RUSTFLAGS=-Zunstable-options -Cpanic=immediate-abort\n" AND out MATCHES "FLAGS=-Zbuild-std=core\n")
    set(ok ON)
  endif()
  verdict(ok "build-std for thumbv6m: ${std_rustc}, -Zbuild-std=core, RUSTC_BOOTSTRAP=1, immediate-abort")
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|build-std|CARGO|${cargo}|PANIC_IMMEDIATE_ABORT|OFF")
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "ENV=RUSTC=${std_rustc};RUSTC_BOOTSTRAP=1\n")
    set(ok ON)
  endif()
  verdict(ok "build-std with EMCP_RUST_PANIC_IMMEDIATE_ABORT=OFF: no RUSTFLAGS")
  # EMCP_CARGO_FLAGS already has -Zbuild-std (the Zephyr module's
  # CONFIG_EMCP_CARGO_BUILD_STD): auto means build-std, the flag is not doubled.
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|auto|CARGO|${cargo}|BUILD_STD_IN_FLAGS|ON")
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "ROUTE=build-std\n" AND out MATCHES "FLAGS=\n")
    set(ok ON)
  endif()
  verdict(ok "auto with -Zbuild-std in EMCP_CARGO_FLAGS: build-std, flag not added again")
else()
  message(STATUS "SKIP build-std cases: no rustc with the library source here")
endif()

# 4. An explicit installed route for a target without a precompiled core stops
#    with `rustup target add`.
if(core_v6m)
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|installed|CARGO|${cargo}")
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "ROUTE=installed\n")
    set(ok ON)
  endif()
  verdict(ok "installed for thumbv6m (core installed)")
elseif(rustup)
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|installed|CARGO|${cargo}")
  set(ok OFF)
  if(NOT rc EQUAL 0 AND err MATCHES "\n +rustup target add thumbv6m-none-eabi\n")
    set(ok ON)
  endif()
  verdict(ok "installed for thumbv6m without its core stops naming `rustup target add thumbv6m-none-eabi`")
endif()

# 5. EMCP_RUSTC given: only that rustc is considered; without core and source
#    the message names both rustup fixes.
if(rustup AND NOT core_v6m AND NOT own_src)
  run_case("TARGET|thumbv6m-none-eabi|ROUTE|auto|CARGO|${cargo}|RUSTC|${rustc}")
  set(ok OFF)
  if(NOT rc EQUAL 0 AND err MATCHES "\n +rustup target add thumbv6m-none-eabi\n" AND err MATCHES "\n +rustup component add rust-src")
    set(ok ON)
  endif()
  verdict(ok "auto with EMCP_RUSTC=${rustc} (no core, no rust-src) stops naming rustup target add and rust-src")
endif()

# 6. A route that does not exist.
run_case("TARGET|thumbv6m-none-eabi|ROUTE|nightly|CARGO|${cargo}")
set(ok OFF)
if(NOT rc EQUAL 0 AND err MATCHES "must be auto, installed or build-std")
  set(ok ON)
endif()
verdict(ok "EMCP_RUST_ROUTE=nightly refused")

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()
message(STATUS "all ${passes} cases passed")
