/*
 * The "no TLS" engine of the Streamable HTTP binding (emcp_http_tls.h):
 * plain HTTP only; a certificate in the configuration makes emcp_http_open()
 * fail with -MCP_ENOTSUP. No connection ever has TLS state, so the
 * I/O calls are never reached.
 */
#include "emcp_http_tls.h"

int emcp_http_tls_open(emcp_http_t *h, const emcp_http_config_t *cfg)
{
    (void)h;
    if (cfg->log != NULL) {
        cfg->log(cfg->log_user, "emcp_http: built without TLS (EMCP_HTTP_WITH_OPENSSL or EMCP_HTTP_WITH_MBEDTLS)");
    }
    return -MCP_ENOTSUP;
}

void emcp_http_tls_close(emcp_http_t *h)
{
    (void)h;
}

void *emcp_http_tls_attach(emcp_http_t *h, size_t slot, const int *fd)
{
    (void)h;
    (void)slot;
    (void)fd;
    return NULL;
}

ssize_t emcp_http_tls_recv(void *tls, void *buf, size_t len, bool *want_write)
{
    (void)tls;
    (void)buf;
    (void)len;
    *want_write = false;
    return EMCP_HTTP_TLS_ERROR;
}

ssize_t emcp_http_tls_send(void *tls, const void *buf, size_t len)
{
    (void)tls;
    (void)buf;
    (void)len;
    return EMCP_HTTP_TLS_ERROR;
}

bool emcp_http_tls_pending(const void *tls)
{
    (void)tls;
    return false;
}

void emcp_http_tls_detach(void *tls, bool notify)
{
    (void)tls;
    (void)notify;
}
