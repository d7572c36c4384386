/**
 * @file emcp_zephyr.h
 * @brief emcp's Zephyr glue: a start-up check of the build-time limits and
 *        the transport bindings enabled in Kconfig (CONFIG_EMCP_*).
 *
 * The application owns the server (`static mcp_server_t server;`),
 * initialises it and registers its tools, then starts the bindings it
 * enabled. Each binding serves from its own thread of
 * CONFIG_EMCP_THREAD_STACK_SIZE bytes at CONFIG_EMCP_THREAD_PRIORITY.
 */
#ifndef EMCP_ZEPHYR_H
#define EMCP_ZEPHYR_H

#include <stdint.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Checks that the linked core was built with the limits of the emcp.h this
 * file was compiled with (the module builds both from the same Kconfig
 * values; this catches a stale or foreign libemcp.a).
 * @retval 0 They agree.
 * @retval -MCP_EINVAL A limit differs (logged with both values).
 */
int emcp_zephyr_check_limits(void);

/** Milliseconds since boot, for mcp_request_ctx_t.now_ms. */
uint64_t emcp_zephyr_now_ms(void);

/** The bindings' log callback (their `cfg.log`): each line through Zephyr's
 * logging at INFO level, in the `emcp` log module. */
void emcp_zephyr_log_line(void *user, const char *line);

/**
 * Serves @p server over the UART chosen as "emcp,uart" (else
 * "zephyr,console"): one JSON-RPC message per line, framed by mcp_framer_t,
 * each response written as one line. Requests carry the principal "local".
 * Needs CONFIG_EMCP_CONSOLE.
 * @retval 0 The serving thread was started.
 * @retval -MCP_EINVAL @p server is NULL, the UART is not ready, or the
 *         binding is already running.
 */
int emcp_console_start(mcp_server_t *server);

/**
 * Serves @p server over MCP Streamable HTTP on Zephyr's BSD sockets: the
 * portable binding (bindings/http/emcp_http.c) on
 * CONFIG_EMCP_HTTP_BIND_ADDR:CONFIG_EMCP_HTTP_PORT at path "/mcp", polled by
 * its own thread. With CONFIG_EMCP_HTTP_TOKEN set, requests need
 * "Authorization: Bearer <token>" and carry the principal "http"; without,
 * they are not authenticated (principal "anonymous"). With
 * CONFIG_EMCP_HTTP_TLS it serves HTTPS through Mbed TLS inside the binding
 * (non-blocking handshakes in the same poll loop), with the credentials given
 * to emcp_http_set_credentials() first. Needs CONFIG_EMCP_HTTP.
 * @retval 0 The serving thread was started.
 * @retval -MCP_EINVAL @p server is NULL or the binding is already running.
 * @retval <0 emcp_http_open() failed (bad address, no socket, TLS: no or
 *         unloadable credentials, too little Mbed TLS heap).
 */
int emcp_http_start(mcp_server_t *server);

/**
 * The server certificate (chain) and private key for CONFIG_EMCP_HTTP_TLS,
 * DER, or PEM with the terminating NUL counted in the length. The buffers
 * must stay valid until emcp_http_start() has returned (Mbed TLS parses
 * them there). Call before emcp_http_start().
 * @retval 0 Stored.
 * @retval -MCP_EINVAL A NULL buffer or zero length.
 */
int emcp_http_set_credentials(const uint8_t *cert, size_t cert_len, const uint8_t *key, size_t key_len);

/**
 * Serves @p server over CoAP: the portable libcoap binding
 * (bindings/coap/emcp_coap.c, docs/bindings/coap.md) on libcoap's Zephyr
 * module, POSTs to coap://CONFIG_EMCP_COAP_BIND_ADDR:CONFIG_EMCP_COAP_PORT/mcp,
 * polled by its own thread. Plain CoAP (requests carry no principal), or
 * coaps:// with the pre-shared key CONFIG_EMCP_COAP_PSK_IDENTITY / _KEY
 * (libcoap built with Mbed TLS; the identity is the principal).
 * Needs CONFIG_EMCP_COAP (and CONFIG_LIBCOAP).
 * @retval 0 The serving thread was started.
 * @retval -MCP_EINVAL @p server is NULL, a bad bind address, already running,
 *         or a PSK identity without a key or without DTLS in libcoap.
 * @retval <0 emcp_coap_open() failed (libcoap could not listen).
 */
int emcp_coap_start(mcp_server_t *server);

/**
 * Serves @p server through an MQTT 5 broker with Zephyr's MQTT library
 * (CONFIG_EMCP_MQTT_BROKER_ADDR:PORT, server id CONFIG_EMCP_MQTT_SERVER_ID),
 * the topic scheme and rules of docs/bindings/mqtt.md, from its own thread.
 * Needs CONFIG_EMCP_MQTT, which needs CONFIG_MQTT_VERSION_5_0: written
 * against upstream Zephyr headers, not built with Zephyr 3.4.99.
 * @retval 0 The serving thread was started.
 * @retval -MCP_EINVAL @p server is NULL, a bad topic setting, or already running.
 */
int emcp_mqtt_start(mcp_server_t *server);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_ZEPHYR_H */
