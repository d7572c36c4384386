# How cargo gets Rust's `core` for the target the emcp core is built for,
# decided at configure time so that a build never stops half-way with
# "can't find crate for `core`" or "rust-src ... Cargo.lock does not exist".
#
# emcp_rust_route(<prefix> TARGET <triple> ROUTE <auto|installed|build-std>
#                 CARGO <cargo> [RUSTC <rustc>] [PANIC_IMMEDIATE_ABORT <ON|OFF>]
#                 [BUILD_STD_IN_FLAGS <ON|OFF>])
#   Routes:
#   - installed: the toolchain has a precompiled `core` for the target
#     (`rustup target add <triple>`): a plain `cargo build --target`.
#   - build-std: a toolchain whose sysroot has the standard library's source
#     (rustup's rust-src component, or Debian 12's rustc-web + rust-web-src)
#     builds `core` itself: `-Zbuild-std=core` with RUSTC_BOOTSTRAP=1 and, with
#     PANIC_IMMEDIATE_ABORT (rustc >= 1.91), RUSTFLAGS="-Zunstable-options
#     -Cpanic=immediate-abort" (every panic is a trap: no panic formatting
#     linked, about 4.5 KB less flash; docs/firmware.md section 2).
#   - auto: installed when the core is there, else build-std with the first
#     toolchain that has the source: the one of CARGO/RUSTC, then Debian's
#     /usr/bin/cargo + /usr/bin/rustc (not when RUSTC was given: then only it).
#   RUSTC empty: the rustc next to CARGO (rustup's proxy next to rustup's
#   cargo), else `rustc` on PATH. Cargo always gets RUSTC=<the rustc checked>:
#   Debian's cargo started with rustup's rustc first on PATH would otherwise
#   look for the source in rustup's sysroot. BUILD_STD_IN_FLAGS: the caller's
#   cargo flags already have -Zbuild-std (auto then means build-std, and the
#   flag is not added twice).
#
#   Sets <prefix>_ROUTE (installed or build-std), <prefix>_CARGO,
#   <prefix>_RUSTC, <prefix>_ENV (VAR=VALUE list for cargo's environment),
#   <prefix>_FLAGS (cargo flags to add) and <prefix>_WHY (one sentence for the
#   configure log). When no route works: FATAL_ERROR naming the command that
#   fixes it. Runs in script mode too (tests/cmake/test_rust_route.cmake).
include_guard(GLOBAL)
get_filename_component(_emcp_route_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# _emcp_rustc_probe(<p> <rustc> <triple>): <p>_VERSION, <p>_KNOWN (the rustc
# has a specification for the triple), <p>_LIBDIR, <p>_CORE (a precompiled
# libcore there), <p>_SYSROOT, <p>_SRC (the library source -Zbuild-std needs),
# <p>_ERROR (rustc's complaint about the triple).
function(_emcp_rustc_probe p rustc triple)
  set(version "")
  set(known OFF)
  set(libdir "")
  set(core OFF)
  set(sysroot "")
  set(src OFF)
  set(error "")
  if(rustc AND EXISTS "${rustc}")
    execute_process(COMMAND "${rustc}" --version WORKING_DIRECTORY "${_emcp_route_root}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0 AND out MATCHES "^rustc ([0-9]+\\.[0-9]+\\.[0-9]+)")
      set(version "${CMAKE_MATCH_1}")
      execute_process(COMMAND "${rustc}" --print sysroot WORKING_DIRECTORY "${_emcp_route_root}"
                      RESULT_VARIABLE rc OUTPUT_VARIABLE sysroot ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(EXISTS "${sysroot}/lib/rustlib/src/rust/library/Cargo.lock")
        set(src ON)
      endif()
      execute_process(COMMAND "${rustc}" --print target-libdir --target "${triple}"
                      WORKING_DIRECTORY "${_emcp_route_root}"
                      RESULT_VARIABLE rc OUTPUT_VARIABLE libdir ERROR_VARIABLE err
                      OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(rc EQUAL 0)
        set(known ON)
        file(GLOB cores "${libdir}/libcore-*.rlib")
        if(cores)
          set(core ON)
        endif()
      else()
        set(libdir "")
        string(REGEX MATCH "error[^\n]*" error "${err}")
      endif()
    else()
      set(error "`${rustc} --version` failed: ${err}")
    endif()
  else()
    set(error "no rustc at '${rustc}'")
  endif()
  foreach(v version known libdir core sysroot src error)
    string(TOUPPER "${v}" V)
    set(${p}_${V} "${${v}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(emcp_rust_route prefix)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "TARGET;ROUTE;CARGO;RUSTC;PANIC_IMMEDIATE_ABORT;BUILD_STD_IN_FLAGS" "")
  set(t "${A_TARGET}")
  if(NOT A_ROUTE)
    set(A_ROUTE auto)
  endif()
  if(NOT A_ROUTE MATCHES "^(auto|installed|build-std)$")
    message(FATAL_ERROR "emcp: EMCP_RUST_ROUTE is '${A_ROUTE}'; it must be auto, installed or build-std")
  endif()
  if(A_ROUTE STREQUAL "auto" AND A_BUILD_STD_IN_FLAGS)
    set(A_ROUTE build-std)
    set(implied " (EMCP_CARGO_FLAGS has -Zbuild-std)")
  else()
    set(implied "")
  endif()

  # Candidate toolchains: the configured one, then Debian's rustc-web.
  set(cargo0 "${A_CARGO}")
  if(A_RUSTC)
    set(rustc0 "${A_RUSTC}")
  else()
    get_filename_component(dir "${cargo0}" DIRECTORY)
    if(dir AND EXISTS "${dir}/rustc")
      set(rustc0 "${dir}/rustc")
    else()
      find_program(rustc0 rustc NO_CACHE)
    endif()
  endif()
  set(cands 0)
  if(NOT A_RUSTC AND EXISTS /usr/bin/rustc AND EXISTS /usr/bin/cargo)
    get_filename_component(r0 "${rustc0}" REALPATH)
    get_filename_component(r1 /usr/bin/rustc REALPATH)
    if(NOT r0 STREQUAL r1)
      set(cargo1 /usr/bin/cargo)
      set(rustc1 /usr/bin/rustc)
      list(APPEND cands 1)
    endif()
  endif()
  foreach(i IN LISTS cands)
    _emcp_rustc_probe(p${i} "${rustc${i}}" "${t}")
  endforeach()

  set(route "")
  set(why "")
  if(A_ROUTE MATCHES "^(auto|installed)$" AND p0_CORE)
    set(route installed)
    set(pick 0)
    set(why "the precompiled core for ${t} is installed (${p0_LIBDIR})")
  elseif(A_ROUTE MATCHES "^(auto|build-std)$")
    foreach(i IN LISTS cands)
      if(NOT route AND p${i}_KNOWN AND p${i}_SRC AND EXISTS "${cargo${i}}")
        set(route build-std)
        set(pick ${i})
      endif()
    endforeach()
    if(route)
      if(A_ROUTE STREQUAL "auto")
        if(p0_KNOWN)
          set(why "${rustc0} ${p0_VERSION} has no precompiled core for ${t} (no libcore-*.rlib in ${p0_LIBDIR}); ")
        else()
          set(why "${rustc0} ${p0_VERSION} does not know ${t}; ")
        endif()
      else()
        set(why "EMCP_RUST_ROUTE=build-std${implied}; ")
      endif()
      string(APPEND why "${rustc${pick}} ${p${pick}_VERSION} has the library source "
             "(${p${pick}_SYSROOT}/lib/rustlib/src/rust/library), so cargo builds core itself")
    endif()
  endif()

  if(NOT route)
    # Say exactly what fixes it.
    set(known OFF)
    foreach(i IN LISTS cands)
      if(p${i}_KNOWN)
        set(known ON)
      endif()
    endforeach()
    if(NOT known)
      string(CONCAT msg "emcp: no Rust toolchain here knows the target '${t}' (EMCP_RUST_TARGET): ${rustc0} says: ${p0_ERROR}\n"
              "Check the triple (`rustc --print target-list`); for a CPU, emcp_rust_target_for() of "
              "cmake/EmcpRustTarget.cmake or the toolchain files cmake/toolchain/*.cmake pick it.")
      message(FATAL_ERROR "${msg}")
    endif()
    set(rustup OFF)
    if(p0_SYSROOT MATCHES "/\\.?rustup/toolchains/")
      set(rustup ON)
    endif()
    set(fix "")
    if(A_ROUTE MATCHES "^(auto|installed)$" AND rustup)
      string(APPEND fix "  rustup target add ${t}\n")
    endif()
    if(A_ROUTE MATCHES "^(auto|build-std)$")
      if(rustup)
        string(APPEND fix "  rustup component add rust-src   (then the build-std route, with RUSTC_BOOTSTRAP=1)\n")
      endif()
      if(NOT A_RUSTC)
        string(APPEND fix "  apt-get install rustc-web cargo-web rust-web-src   (Debian 12: the build-std route "
               "then uses /usr/bin/cargo with RUSTC=/usr/bin/rustc)\n")
      endif()
    endif()
    if(A_ROUTE STREQUAL "installed")
      foreach(i IN LISTS cands)
        if(p${i}_KNOWN AND p${i}_SRC AND NOT fix MATCHES "EMCP_RUST_ROUTE=auto")
          string(APPEND fix "  -DEMCP_RUST_ROUTE=auto   (${rustc${i}} has the library source: the build-std route)\n")
        endif()
      endforeach()
    endif()
    if(A_ROUTE STREQUAL "installed" AND NOT rustup)
      string(APPEND fix "  install a toolchain with the ${t} standard library, or -DEMCP_RUST_ROUTE=build-std\n")
    endif()
    if(A_RUSTC)
      string(APPEND fix "  -DEMCP_RUSTC=   (empty: Debian's /usr/bin/rustc with rust-web-src may then be used)\n")
    endif()
    if(A_ROUTE STREQUAL "installed")
      string(CONCAT what "EMCP_RUST_ROUTE=installed, but ${rustc0} ${p0_VERSION} has no precompiled core for ${t} "
               "(no libcore-*.rlib in ${p0_LIBDIR})")
    elseif(A_ROUTE STREQUAL "build-std")
      string(CONCAT what "EMCP_RUST_ROUTE=build-std${implied}, but no rustc with the library source was found "
               "(${rustc0}: no ${p0_SYSROOT}/lib/rustlib/src/rust/library/Cargo.lock")
      if(1 IN_LIST cands)
        string(APPEND what "; ${rustc1}: no ${p1_SYSROOT}/lib/rustlib/src/rust/library/Cargo.lock")
      endif()
      string(APPEND what ")")
    else()
      string(CONCAT what "${rustc0} ${p0_VERSION} has no precompiled core for ${t} (no libcore-*.rlib in ${p0_LIBDIR}) "
               "and no rustc with the library source (for -Zbuild-std=core) was found")
    endif()
    message(FATAL_ERROR "emcp: cannot build the Rust core for ${t}: ${what}. Fix it with one of:\n${fix}"
                        "(or choose the toolchain with -DEMCP_CARGO=... -DEMCP_RUSTC=...)")
  endif()

  set(env "RUSTC=${rustc${pick}}")
  set(flags "")
  if(route STREQUAL "build-std")
    list(APPEND env RUSTC_BOOTSTRAP=1)
    if(NOT A_BUILD_STD_IN_FLAGS)
      list(APPEND flags -Zbuild-std=core)
    endif()
    if(A_PANIC_IMMEDIATE_ABORT)
      if(p${pick}_VERSION VERSION_GREATER_EQUAL 1.91)
        list(APPEND env "RUSTFLAGS=-Zunstable-options -Cpanic=immediate-abort")
        string(APPEND why "; panics compile to traps (-Cpanic=immediate-abort)")
      else()
        string(APPEND why "; no -Cpanic=immediate-abort (needs rustc >= 1.91)")
      endif()
    endif()
  endif()
  set(${prefix}_ROUTE "${route}" PARENT_SCOPE)
  set(${prefix}_CARGO "${cargo${pick}}" PARENT_SCOPE)
  set(${prefix}_RUSTC "${rustc${pick}}" PARENT_SCOPE)
  set(${prefix}_ENV "${env}" PARENT_SCOPE)
  set(${prefix}_FLAGS "${flags}" PARENT_SCOPE)
  set(${prefix}_WHY "${why}" PARENT_SCOPE)
endfunction()
