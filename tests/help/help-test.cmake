# Registers the CTest help_flags (included at the end of emcp's
# CMakeLists.txt with EMCP_BUILD_TESTS, after every add_subdirectory): every
# script in scripts/ and scripts/test.d and every program this build makes
# answers --help and -h with its usage on stdout, exit status 0, and no side
# effect (check_help.py: no file written in the tree, its working directory,
# HOME or TMPDIR; no process left running).
#
# The programs are found, not listed: every executable target defined in a
# directory of this build, except those under tests/ and fuzz/ (test
# binaries, fixtures and fuzz harnesses) and test_* targets (unit tests kept
# beside their tool, such as tools/bridge's test_bridge). A new program
# without --help fails the test without anyone naming it here.
function(emcp_user_programs dir out)
  set(found "")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE" AND NOT t MATCHES "^test_")
      list(APPEND found ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${sub}")
    if(NOT rel MATCHES "^(tests|fuzz)(/|$)")
      emcp_user_programs("${sub}" more)
      list(APPEND found ${more})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

emcp_user_programs("${PROJECT_SOURCE_DIR}" emcp_programs)
find_program(EMCP_PYTHON3 python3 REQUIRED)
set(emcp_program_files "")
foreach(p IN LISTS emcp_programs)
  list(APPEND emcp_program_files "$<TARGET_FILE:${p}>")
endforeach()
# emcp-gen is built by cargo for the build machine (cmake/EmcpGenerate.cmake),
# not as an executable target.
get_property(emcp_gen_built GLOBAL PROPERTY emcp_gen_built)
if(emcp_gen_built)
  list(APPEND emcp_programs emcp-gen)
  list(APPEND emcp_program_files "${emcp_gen_built}")
endif()
message(STATUS "emcp: help_flags checks the scripts and the programs ${emcp_programs}")
add_test(NAME help_flags
         COMMAND "${EMCP_PYTHON3}" "${CMAKE_CURRENT_LIST_DIR}/check_help.py"
                 --root "${PROJECT_SOURCE_DIR}" --ignore "${CMAKE_BINARY_DIR}/Testing"
                 ${emcp_program_files})
# Serial: the check watches the whole tree (and the build directory in it)
# for writes, so no other test may write there meanwhile.
set_tests_properties(help_flags PROPERTIES LABELS "scripts;tools" TIMEOUT 900 RUN_SERIAL ON)
