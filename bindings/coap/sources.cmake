# The CoAP binding on libcoap 4.3 (emcp_coap.h), for build systems that
# compile the bindings themselves instead of linking emcp::coap (Zephyr's
# module with libcoap's Zephyr module, lwIP ports). Needs libcoap's headers.
set(EMCP_COAP_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_coap.c")
set(EMCP_COAP_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
