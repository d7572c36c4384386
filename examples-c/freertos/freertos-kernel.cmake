# FreeRTOS-Kernel (FREERTOS_KERNEL_PATH) on its POSIX simulator port with this
# directory's config/FreeRTOSConfig.h, for the examples that run on it
# (examples-c/freertos, examples-c/coremqtt): include() it, then link
# freertos_kernel and Threads::Threads.
# FreeRTOS-Kernel's CMake wants the config header as a target and the port.
add_library(freertos_config INTERFACE)
target_include_directories(freertos_config SYSTEM INTERFACE "${CMAKE_CURRENT_LIST_DIR}/config")
set(FREERTOS_PORT GCC_POSIX CACHE STRING "FreeRTOS port" FORCE)
set(FREERTOS_HEAP 3 CACHE STRING "FreeRTOS heap (3: the C library's malloc, only for the kernel's tasks)" FORCE)
add_subdirectory("${FREERTOS_KERNEL_PATH}" freertos-kernel)
find_package(Threads REQUIRED)
