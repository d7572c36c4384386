# The CTest consumer_add_subdirectory (registered by consumer-test.cmake):
# configures tests/consumer, a separate firmware-style project that does
# add_subdirectory(<emcp> emcp), builds every binding program, runs each,
# and checks that consumer-stdio answers a ping on a pipe.
#
#   cmake -DEMCP_DIR=<emcp tree> -DBUILD_DIR=<dir> [-DCARGO_TARGET_DIR=<dir>]
#         [-DC_COMPILER=<cc>] -P tests/consumer/run.cmake
foreach(v EMCP_DIR BUILD_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}= is required")
  endif()
endforeach()
set(args -S "${CMAKE_CURRENT_LIST_DIR}" -B "${BUILD_DIR}" "-DEMCP_DIR=${EMCP_DIR}")
if(CARGO_TARGET_DIR)
  list(APPEND args "-DEMCP_CARGO_TARGET_DIR=${CARGO_TARGET_DIR}")
endif()
if(C_COMPILER)
  list(APPEND args "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()

message(STATUS "consumer: configuring ${CMAKE_CURRENT_LIST_DIR} with add_subdirectory(${EMCP_DIR})")
execute_process(COMMAND "${CMAKE_COMMAND}" ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer: configure failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" -j2 RESULT_VARIABLE rc)
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
