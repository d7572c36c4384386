# The host monotonic clock (emcp_monotonic_ms(), emcp_clock.h), for build
# systems that compile the bindings themselves instead of linking emcp::clock.
# On firmware, implement emcp_monotonic_ms() from the RTOS tick and use only
# EMCP_CLOCK_INCLUDE_DIRS (the header).
set(EMCP_CLOCK_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_clock.c")
set(EMCP_CLOCK_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
