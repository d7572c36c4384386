# The backends of the durable idempotency records, for build systems that
# compile the bindings themselves instead of linking emcp::store_file:
# the file backend (emcp_store_file.h; POSIX files: open, pwrite, fsync,
# rename) and the Zephyr NVS backend (emcp_store_nvs.h; compiled by the
# Zephyr module with CONFIG_EMCP_STORE_NVS).
set(EMCP_STORE_FILE_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_store_file.c")
set(EMCP_STORE_FILE_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
set(EMCP_STORE_NVS_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_store_nvs.c")
set(EMCP_STORE_NVS_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
