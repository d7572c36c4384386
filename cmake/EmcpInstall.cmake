# cmake --install for emcp (included by CMakeLists.txt when EMCP_INSTALL is
# ON, the default for the top-level project). Installs, under the prefix:
#
#   include/            emcp.h, its group headers and the emcp_limits.h of this
#                       build (the configured copy when EMCP_LIMITS is set),
#                       and the headers of every binding built here
#   lib/libemcp.a       the Rust core, as cargo built it for EMCP_RUST_TARGET
#   lib/libemcp_*.a     the binding libraries built here
#   lib/cmake/emcp/     emcpConfig.cmake, emcpConfigVersion.cmake, emcpTargets*.cmake
#   lib/pkgconfig/emcp.pc
#   bin/                emcp-bridge, emcp-seal and emcp-gen (with EMCP_BUILD_TOOLS),
#                       emcp-gateway and emcp-fleet-sim (when libmosquitto is found)
#
# A project then says find_package(emcp 0.1 REQUIRED) and links the same
# targets add_subdirectory(emcp) gives: emcp::emcp, emcp::stdio, emcp::http,
# ... (emcpConfig.cmake, from cmake/package/emcpConfig.cmake.in). The tree is
# relocatable: every path in the package is relative to its own location, and
# the bindings' system libraries (http_parser, OpenSSL, Mbed TLS or wolfSSL, libcoap,
# libmosquitto) are looked up again on the machine that uses it.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EMCP_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/emcp" CACHE STRING
    "Where cmake --install puts emcp's CMake package, relative to the prefix")

# The headers: the include directory emcp::emcp uses in this build.
file(GLOB emcp_install_headers "${emcp_include_dir}/emcp*.h")
install(FILES ${emcp_install_headers} DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT emcp)
# Headers a firmware uses without a library: the clock (it supplies
# emcp_monotonic_ms() from its tick) and the NVS store's interface.
install(FILES "${PROJECT_SOURCE_DIR}/bindings/clock/emcp_clock.h" "${PROJECT_SOURCE_DIR}/bindings/store/emcp_store_nvs.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT emcp)
install(FILES "${emcp_lib}" DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT emcp)

get_property(emcp_exported_targets GLOBAL PROPERTY EMCP_EXPORTED_TARGETS)
get_property(emcp_exported_headers GLOBAL PROPERTY EMCP_EXPORTED_HEADERS)
set(emcp_installed_bindings "")
foreach(t IN LISTS emcp_exported_targets)
  get_target_property(n ${t} EXPORT_NAME)
  list(APPEND emcp_installed_bindings ${n})
endforeach()
install(TARGETS emcp_export EXPORT emcpTargets)
if(emcp_exported_targets)
  install(TARGETS ${emcp_exported_targets} EXPORT emcpTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT emcp)
  list(REMOVE_DUPLICATES emcp_exported_headers)
  install(FILES ${emcp_exported_headers} DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT emcp)
endif()
install(EXPORT emcpTargets NAMESPACE emcp:: DESTINATION "${EMCP_INSTALL_CMAKEDIR}" COMPONENT emcp)

if(EMCP_BUILD_TOOLS AND TARGET emcp-bridge)
  install(TARGETS emcp-bridge emcp-seal RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT emcp)
endif()
# emcp-gateway and its fleet simulator (tools/gateway), when libmosquitto and
# the HTTP binding were found: host programs linked to the system's
# libmosquitto (and libhttp_parser), so they run where those are installed.
if(EMCP_BUILD_TOOLS AND TARGET emcp-gateway)
  install(TARGETS emcp-gateway emcp-fleet-sim RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT emcp)
endif()
get_property(emcp_gen_built GLOBAL PROPERTY emcp_gen_built)
if(EMCP_BUILD_TOOLS AND emcp_gen_built)
  install(PROGRAMS "${emcp_gen_built}" DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT emcp)
endif()
# emcp_generate_tools for projects that use the package (emcpConfig.cmake
# includes it, with the package's bin/emcp-gen when it has one).
install(FILES "${PROJECT_SOURCE_DIR}/cmake/EmcpGenerate.cmake" DESTINATION "${EMCP_INSTALL_CMAKEDIR}" COMPONENT emcp)

# What emcpConfig.cmake reports and checks: the core's target and profile,
# the limits, and which system libraries the bindings need.
set(EMCP_PACKAGE_RUST_TARGET "${EMCP_RUST_TARGET}")
set(EMCP_PACKAGE_PROFILE "${EMCP_PROFILE}")
set(EMCP_PACKAGE_LIMITS "${EMCP_LIMITS}")
set(EMCP_PACKAGE_BINDINGS "${emcp_installed_bindings}")
set(EMCP_PACKAGE_HTTP_TLS "")
if(TARGET emcp_http)
  set(EMCP_PACKAGE_HTTP_TLS "${EMCP_HTTP_TLS_BUILT}")
endif()
# With EMCP_HTTP_TLS=wolfssl: the wolfSSL prefix the build used, where the
# package looks first (wolfSSL itself is not installed with emcp).
set(EMCP_PACKAGE_WOLFSSL_ROOT "${EMCP_WOLFSSL_ROOT_USED}")
set(EMCP_PACKAGE_SANITIZER "${emcp_sanitizer_link_options}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/package/emcpConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/emcpConfig.cmake"
  INSTALL_DESTINATION "${EMCP_INSTALL_CMAKEDIR}")
# 0.x: a minor version may break the ABI, so 0.1 takes 0.1.* only. The
# pointer size is checked too: a thumbv7em tree is refused by a host project.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/emcpConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/package/emcpConfig.cmake" "${PROJECT_BINARY_DIR}/package/emcpConfigVersion.cmake"
        DESTINATION "${EMCP_INSTALL_CMAKEDIR}" COMPONENT emcp)

# emcp.pc for pkg-config on hosts: the core (pkg-config --cflags --libs emcp).
# prefix is computed from the .pc file's own place, so the tree may move.
file(RELATIVE_PATH emcp_pc_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" emcp_pc_up "${emcp_pc_up}")
set(EMCP_PC_PREFIX "\${pcfiledir}/${emcp_pc_up}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/package/emcp.pc.in" "${PROJECT_BINARY_DIR}/package/emcp.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/emcp.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT emcp)
