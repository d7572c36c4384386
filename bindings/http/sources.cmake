# The Streamable HTTP binding (emcp_http.h), for build systems that compile
# the bindings themselves instead of linking emcp::http (Zephyr's module,
# examples-c/freertos). It needs BSD sockets, http_parser and
# emcp_monotonic_ms() (EMCP_CLOCK_SOURCES of bindings/clock, or the platform's).
#   EMCP_HTTP_SOURCES           the binding, plus exactly one TLS engine
#                               (emcp_http_tls.h):
#   EMCP_HTTP_TLS_NONE_SOURCES  plain HTTP only
#   EMCP_HTTP_OPENSSL_SOURCES   HTTPS through OpenSSL (EMCP_HTTP_WITH_OPENSSL=1)
#   EMCP_HTTP_MBEDTLS_SOURCES   HTTPS through Mbed TLS (EMCP_HTTP_WITH_MBEDTLS=1,
#                               for every file that includes emcp_http.h)
#   EMCP_HTTP_WOLFSSL_SOURCES   HTTPS through wolfSSL, with ML-KEM groups
#                               (EMCP_HTTP_WITH_WOLFSSL=1; include
#                               wolfssl/options.h's directory)
#   EMCP_HTTP_INCLUDE_DIRS      its headers and emcp_clock.h
set(EMCP_HTTP_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_http.c")
set(EMCP_HTTP_TLS_NONE_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_http_tls_none.c")
set(EMCP_HTTP_OPENSSL_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_http_openssl.c")
set(EMCP_HTTP_MBEDTLS_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_http_mbedtls.c")
set(EMCP_HTTP_WOLFSSL_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_http_wolfssl.c")
get_filename_component(emcp_http_bindings_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(EMCP_HTTP_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}" "${emcp_http_bindings_dir}/clock")
