# Registers the CTest consumer_add_subdirectory (included by emcp's
# CMakeLists.txt with EMCP_BUILD_TESTS): run.cmake builds tests/consumer,
# which does add_subdirectory(emcp) as a firmware project would, and fails if
# a binding target whose dependency is installed does not exist. It shares
# this build's cargo target directory, so the core is not built twice.
add_test(NAME consumer_add_subdirectory
         COMMAND "${CMAKE_COMMAND}" "-DEMCP_DIR=${PROJECT_SOURCE_DIR}"
                 "-DBUILD_DIR=${CMAKE_BINARY_DIR}/tests/consumer"
                 "-DCARGO_TARGET_DIR=${EMCP_CARGO_TARGET_DIR}"
                 "-DC_COMPILER=${CMAKE_C_COMPILER}"
                 -P "${CMAKE_CURRENT_LIST_DIR}/run.cmake")
set_tests_properties(consumer_add_subdirectory PROPERTIES LABELS "consumer;cmake" TIMEOUT 900
                     RUN_SERIAL ON)
