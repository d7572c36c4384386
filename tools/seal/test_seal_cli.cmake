# emcp-seal on a file and on the same text given with -t: one seal, printed
# as a C constant; a schema the checker refuses: exit 1 and the reason.
file(READ "${DIR}/vent.json" text)
execute_process(COMMAND "${SEAL}" "${DIR}/vent.json" OUTPUT_VARIABLE from_file RESULT_VARIABLE rc1)
execute_process(COMMAND "${SEAL}" -t "${text}" OUTPUT_VARIABLE from_text RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT from_file MATCHES "^0x[0-9a-f]+u\n$" OR NOT from_file STREQUAL from_text)
  message(FATAL_ERROR "emcp-seal: ${rc1} '${from_file}' vs ${rc2} '${from_text}'")
endif()
execute_process(COMMAND "${SEAL}" "${DIR}/vent.json" "${DIR}/vent.json" OUTPUT_VARIABLE with_out RESULT_VARIABLE rc3)
if(NOT rc3 EQUAL 0 OR with_out STREQUAL from_file)
  message(FATAL_ERROR "emcp-seal with an output schema: ${rc3} '${with_out}'")
endif()
execute_process(COMMAND "${SEAL}" "${DIR}/bad.json" ERROR_VARIABLE why RESULT_VARIABLE rc4)
if(NOT rc4 EQUAL 1 OR NOT why MATCHES "inputSchema: properties.p.pattern: unsupported keyword")
  message(FATAL_ERROR "emcp-seal on a bad schema: ${rc4} '${why}'")
endif()
# An integer whose bounds admit no integer: refused like every contradiction.
execute_process(COMMAND "${SEAL}" -t "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":2.5,\"maximum\":2.9}}}"
  ERROR_VARIABLE why RESULT_VARIABLE rc5)
if(NOT rc5 EQUAL 1 OR NOT why MATCHES "inputSchema: properties.n.maximum: 2.9 leaves no integer at or above minimum 2.5")
  message(FATAL_ERROR "emcp-seal on an integer without integers: ${rc5} '${why}'")
endif()
message(STATUS "PASS emcp-seal: ${from_file}")
