# The file backend of the durable idempotency records (emcp_store_file.h),
# for build systems that compile the bindings themselves instead of linking
# emcp::store_file. Needs POSIX files (open, pwrite, fsync, rename).
set(EMCP_STORE_FILE_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_store_file.c")
set(EMCP_STORE_FILE_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
