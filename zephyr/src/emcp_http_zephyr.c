/*
 * MCP Streamable HTTP on Zephyr: the portable BSD-sockets binding
 * (bindings/http/emcp_http.c, compiled here against Zephyr's socket API
 * and http_parser) polled by one thread. See emcp_zephyr.h and docs/zephyr.md.
 */
#include "emcp_zephyr.h"

#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

#include "emcp_http.h"

LOG_MODULE_DECLARE(emcp, CONFIG_EMCP_LOG_LEVEL);

/* One poll() waits at most this long, ms (deadlines and SSE keep-alives are
 * checked between polls). */
#define EMCP_HTTP_ZEPHYR_POLL_MS 200

static emcp_http_t http;
static bool running;
static const uint8_t *tls_cert, *tls_key;
static size_t tls_cert_len, tls_key_len;
static emcp_http_bearer_t bearer = {.token = CONFIG_EMCP_HTTP_TOKEN, .principal = "http"};

K_THREAD_STACK_DEFINE(http_stack, CONFIG_EMCP_THREAD_STACK_SIZE);
static struct k_thread http_thread;

static void serve(void *a, void *b, void *c)
{
    ARG_UNUSED(a);
    ARG_UNUSED(b);
    ARG_UNUSED(c);
    for (;;) {
        if (emcp_http_poll(&http, EMCP_HTTP_ZEPHYR_POLL_MS) != 0) {
            LOG_ERR("emcp_http_poll failed (errno %d)", errno);
            k_msleep(EMCP_HTTP_ZEPHYR_POLL_MS);
        }
    }
}

int emcp_http_set_credentials(const uint8_t *cert, size_t cert_len, const uint8_t *key, size_t key_len)
{
    if (cert == NULL || cert_len == 0 || key == NULL || key_len == 0) {
        return -MCP_EINVAL;
    }
    tls_cert = cert;
    tls_cert_len = cert_len;
    tls_key = key;
    tls_key_len = key_len;
    return 0;
}

int emcp_http_start(mcp_server_t *server)
{
    if (server == NULL || running) {
        return -MCP_EINVAL;
    }
    emcp_http_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.bind_addr = CONFIG_EMCP_HTTP_BIND_ADDR;
    cfg.port = CONFIG_EMCP_HTTP_PORT;
    cfg.log = emcp_zephyr_log_line;
    if (bearer.token[0] != '\0') {
        cfg.auth = emcp_http_bearer_auth;
        cfg.auth_user = &bearer;
    }
#ifdef CONFIG_EMCP_HTTP_TLS
    if (tls_cert == NULL) {
        LOG_ERR("CONFIG_EMCP_HTTP_TLS: call emcp_http_set_credentials() before emcp_http_start()");
        return -MCP_EINVAL;
    }
    cfg.tls_cert = tls_cert;
    cfg.tls_cert_len = tls_cert_len;
    cfg.tls_key = tls_key;
    cfg.tls_key_len = tls_key_len;
#endif
    /* session_key stays zero: emcp_http_open() draws it with sys_csrand_get(). */
    int rc = emcp_http_open(&http, server, &cfg);
    if (rc != 0) {
        LOG_ERR("emcp_http_open(%s:%d): %d", CONFIG_EMCP_HTTP_BIND_ADDR, CONFIG_EMCP_HTTP_PORT, rc);
        return rc;
    }
    running = true;
    LOG_INF("MCP Streamable HTTP on %s:%u/mcp%s%s", CONFIG_EMCP_HTTP_BIND_ADDR, emcp_http_port(&http),
            IS_ENABLED(CONFIG_EMCP_HTTP_TLS) ? " (TLS)" : "", cfg.auth ? ", bearer token" : "");
    k_thread_create(&http_thread, http_stack, K_THREAD_STACK_SIZEOF(http_stack), serve, NULL, NULL,
                    NULL, CONFIG_EMCP_THREAD_PRIORITY, 0, K_NO_WAIT);
    k_thread_name_set(&http_thread, "emcp_http");
    return 0;
}
