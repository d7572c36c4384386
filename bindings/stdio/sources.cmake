# The stdio/UART line binding (emcp_stdio_serve(), emcp_stdio.h), for build
# systems that compile the bindings themselves instead of linking emcp::stdio.
# It calls emcp_monotonic_ms(): add EMCP_CLOCK_SOURCES (bindings/clock) or
# the platform's own implementation.
set(EMCP_STDIO_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_stdio.c")
get_filename_component(emcp_stdio_bindings_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(EMCP_STDIO_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}" "${emcp_stdio_bindings_dir}/clock")
