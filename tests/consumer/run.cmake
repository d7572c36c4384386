# The CTests consumer_add_subdirectory and consumer_find_package (registered
# by consumer-test.cmake): configure tests/consumer, a separate
# firmware-style project, build every binding program, run each, and check
# that consumer-stdio answers a ping on a pipe.
#
#   cmake -DEMCP_DIR=<emcp tree> -DBUILD_DIR=<dir> [-DCARGO_TARGET_DIR=<dir>]
#         [-DC_COMPILER=<cc>] -P tests/consumer/run.cmake
#
# With -DINSTALL_FROM=<an emcp build directory> -DPREFIX=<dir>, emcp is first
# installed there (cmake --install) and the project takes it through
# find_package(emcp 0.1 REQUIRED) (-DEMCP_FIND_PACKAGE=ON), configured and
# built with a PATH that holds only the C compiler, cmake, make, binutils (ar,
# ranlib, as, ld) and pkg-config: no cargo, no rustc.
foreach(v BUILD_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}= is required")
  endif()
endforeach()
set(env "")
if(INSTALL_FROM)
  if(NOT PREFIX)
    message(FATAL_ERROR "run.cmake: -DINSTALL_FROM= needs -DPREFIX=")
  endif()
  file(REMOVE_RECURSE "${PREFIX}" "${BUILD_DIR}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${INSTALL_FROM}" --prefix "${PREFIX}"
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: cmake --install ${INSTALL_FROM} --prefix ${PREFIX} failed (${rc})")
  endif()
  # A bin directory of symbolic links to the few programs the build needs.
  set(bin "${BUILD_DIR}-path")
  file(REMOVE_RECURSE "${bin}")
  file(MAKE_DIRECTORY "${bin}")
  if(NOT C_COMPILER)
    set(C_COMPILER cc)
  endif()
  foreach(tool "${C_COMPILER}" make ar ranlib as ld pkg-config)
    find_program(path_${tool} "${tool}" NO_CACHE)
    if(NOT path_${tool})
      message(FATAL_ERROR "consumer: ${tool} is not on PATH")
    endif()
    get_filename_component(name "${tool}" NAME)
    file(CREATE_LINK "${path_${tool}}" "${bin}/${name}" SYMBOLIC)
  endforeach()
  file(CREATE_LINK "${CMAKE_COMMAND}" "${bin}/cmake" SYMBOLIC)
  set(env "${CMAKE_COMMAND}" -E env "PATH=${bin}" --unset=CARGO --unset=RUSTC --unset=CARGO_HOME --unset=RUSTUP_HOME)
  # The check that the step really has no Rust: neither is found on that PATH.
  foreach(rust cargo rustc)
    execute_process(COMMAND ${env} /bin/sh -c "command -v ${rust}" RESULT_VARIABLE rc OUTPUT_VARIABLE where)
    if(rc EQUAL 0)
      message(FATAL_ERROR "consumer: ${rust} is still on the filtered PATH (${where})")
    endif()
  endforeach()
  set(args -S "${CMAKE_CURRENT_LIST_DIR}" -B "${BUILD_DIR}" -DEMCP_FIND_PACKAGE=ON "-DCMAKE_PREFIX_PATH=${PREFIX}")
  get_filename_component(cc_name "${C_COMPILER}" NAME)
  list(APPEND args "-DCMAKE_C_COMPILER=${cc_name}")
  message(STATUS "consumer: configuring ${CMAKE_CURRENT_LIST_DIR} with find_package(emcp) from ${PREFIX}, PATH=${bin} (no cargo, no rustc)")
else()
  if(NOT DEFINED EMCP_DIR)
    message(FATAL_ERROR "run.cmake: -DEMCP_DIR= is required")
  endif()
  set(args -S "${CMAKE_CURRENT_LIST_DIR}" -B "${BUILD_DIR}" "-DEMCP_DIR=${EMCP_DIR}")
  if(CARGO_TARGET_DIR)
    list(APPEND args "-DEMCP_CARGO_TARGET_DIR=${CARGO_TARGET_DIR}")
  endif()
  if(C_COMPILER)
    list(APPEND args "-DCMAKE_C_COMPILER=${C_COMPILER}")
  endif()
  message(STATUS "consumer: configuring ${CMAKE_CURRENT_LIST_DIR} with add_subdirectory(${EMCP_DIR})")
endif()

execute_process(COMMAND ${env} "${CMAKE_COMMAND}" ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer: configure failed (${rc})")
endif()
execute_process(COMMAND ${env} "${CMAKE_COMMAND}" --build "${BUILD_DIR}" -j2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer: build failed (${rc})")
endif()

file(READ "${BUILD_DIR}/consumer-programs.txt" programs)
foreach(b IN LISTS programs)
  set(exe "${BUILD_DIR}/consumer-${b}")
  if(b STREQUAL "stdio")
    # A real pipe: cmake -E echo | consumer-stdio.
    execute_process(COMMAND "${CMAKE_COMMAND}" -E echo [[{"jsonrpc":"2.0","id":7,"method":"ping"}]]
                    COMMAND "${exe}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(STRIP "${out}" out)
    if(NOT rc EQUAL 0 OR NOT out MATCHES [[^\{"jsonrpc":"2.0","id":7,"result":\{\}\}$]])
      message(FATAL_ERROR "consumer: consumer-stdio did not answer the ping (exit ${rc}):\n"
                          "stdout: ${out}\nstderr: ${err}")
    endif()
    message(STATUS "consumer: consumer-stdio answered the ping: ${out}")
  else()
    execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(STRIP "${out}" out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer: consumer-${b} failed (exit ${rc}):\n${out}\n${err}")
    endif()
    message(STATUS "consumer: ${out}")
  endif()
endforeach()
list(JOIN programs ", " programs)
message(STATUS "consumer: PASS (${programs})")
