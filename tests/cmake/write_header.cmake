# Helper of test_rust_target.cmake: emcp_limits_write_header for one list.
include("${ROOT}/cmake/EmcpLimits.cmake")
emcp_limits_write_header("${ROOT}/include/emcp_limits.h" "${OUT}" "${BAD}")
