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

# The CTest consumer_find_package: the same project on emcp installed from
# this build (cmake --install into build/tests/consumer-prefix), through
# find_package(emcp 0.1 REQUIRED), configured and built with cargo and rustc
# off PATH (run.cmake). It also builds consumer-greenhouse-stdio on the
# installed emcp::stdio, which consumer_find_package_sdk then serves to the
# Python SDK tests of tests/e2e (the four files that drive the real SDK
# client; the Inspector's file needs npm and runs in the e2e step).
add_test(NAME consumer_find_package
         COMMAND "${CMAKE_COMMAND}" "-DINSTALL_FROM=${CMAKE_BINARY_DIR}"
                 "-DPREFIX=${CMAKE_BINARY_DIR}/tests/consumer-prefix"
                 "-DBUILD_DIR=${CMAKE_BINARY_DIR}/tests/consumer-find-package"
                 "-DC_COMPILER=${CMAKE_C_COMPILER}"
                 -P "${CMAKE_CURRENT_LIST_DIR}/run.cmake")
set_tests_properties(consumer_find_package PROPERTIES LABELS "consumer;cmake" TIMEOUT 300
                     RUN_SERIAL ON FIXTURES_SETUP emcp_installed_greenhouse)
find_program(EMCP_PYTHON3 python3)
if(EMCP_PYTHON3)
  add_test(NAME consumer_find_package_sdk
           COMMAND "${CMAKE_COMMAND}" -E env
                   "GREENHOUSE_STDIO=${CMAKE_BINARY_DIR}/tests/consumer-find-package/consumer-greenhouse-stdio"
                   "${EMCP_PYTHON3}" -m pytest -q -p no:cacheprovider
                   tests/e2e/test_python_sdk.py tests/e2e/test_input_required.py
                   tests/e2e/test_resources_prompts.py tests/e2e/test_schema_validation.py
           WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(consumer_find_package_sdk PROPERTIES LABELS "consumer;e2e" TIMEOUT 300
                       FIXTURES_REQUIRED emcp_installed_greenhouse)
endif()
# The FreeRTOS example on the same installed tree (-DEMCP_PREBUILT_DIR),
# configured with the filtered PATH of consumer_find_package (no cargo, no
# rustc): configure level, as no FreeRTOS-Kernel is in CI (docs/freertos.md).
# The compiler is named as run.cmake links it there (cc, gcc or clang: the
# build's own).
get_filename_component(emcp_consumer_cc "${CMAKE_C_COMPILER}" NAME)
add_test(NAME freertos_prebuilt_configure
         COMMAND "${CMAKE_COMMAND}" -E env "PATH=${CMAKE_BINARY_DIR}/tests/consumer-find-package-path"
                 "${CMAKE_COMMAND}" -S "${PROJECT_SOURCE_DIR}/examples-c/freertos"
                 -B "${CMAKE_BINARY_DIR}/tests/freertos-prebuilt"
                 "-DEMCP_PREBUILT_DIR=${CMAKE_BINARY_DIR}/tests/consumer-prefix"
                 "-DCMAKE_C_COMPILER=${emcp_consumer_cc}")
set_tests_properties(freertos_prebuilt_configure PROPERTIES LABELS "consumer;cmake" TIMEOUT 120
                     FIXTURES_REQUIRED emcp_installed_greenhouse
                     PASS_REGULAR_EXPRESSION "emcp: prebuilt emcp [0-9.]+ \\(host, [a-z]+ profile\\) from [^\n]*: no Rust build")
