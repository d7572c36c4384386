# The MQTT 5 binding, for build systems that compile the bindings themselves
# instead of linking emcp::mqtt / emcp::mqtt_mosquitto / emcp::mqtt_coremqtt
# (Zephyr's module, FreeRTOS projects).
#   EMCP_MQTT_SOURCES            the portable part (emcp_mqtt.h): no MQTT library
#   EMCP_MQTT_MOSQUITTO_SOURCES  the libmosquitto shim (emcp_mqtt_mosq.h; also
#                                needs emcp_monotonic_ms(), bindings/clock)
#   EMCP_MQTT_COREMQTT_SOURCES   the coreMQTT v5 shim (emcp_mqtt_core.h; needs
#                                coreMQTT's sources and include directories)
#   EMCP_MQTT_INCLUDE_DIRS       the headers of all three and emcp_clock.h
set(EMCP_MQTT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_mqtt.c")
set(EMCP_MQTT_MOSQUITTO_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_mqtt_mosq.c")
set(EMCP_MQTT_COREMQTT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/emcp_mqtt_core.c")
get_filename_component(emcp_mqtt_bindings_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(EMCP_MQTT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}" "${emcp_mqtt_bindings_dir}/clock")
