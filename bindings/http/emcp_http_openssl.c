/*
 * The OpenSSL engine of the Streamable HTTP binding (emcp_http_tls.h), for
 * host builds (Debian libssl-dev): certificate chain and key from PEM files
 * (in-memory credentials need the Mbed TLS engine), TLS 1.2 at least, and
 * non-blocking SSL objects whose handshake runs inside the first reads.
 */
#include "emcp_http_tls.h"

#include <stdint.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static void log_line(const emcp_http_config_t *cfg, const char *line)
{
    if (cfg->log != NULL) {
        cfg->log(cfg->log_user, line);
    }
}

int emcp_http_tls_open(emcp_http_t *h, const emcp_http_config_t *cfg)
{
    if (cfg->tls_cert != NULL || cfg->tls_key != NULL) {
        log_line(cfg, "emcp_http: in-memory certificates need Mbed TLS (EMCP_HTTP_WITH_MBEDTLS)");
        return -MCP_ENOTSUP;
    }
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL || cfg->tls_cert_file == NULL || cfg->tls_key_file == NULL ||
        SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert_file) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key_file, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1 ||
        (cfg->tls_groups != NULL && SSL_CTX_set1_groups_list(ctx, cfg->tls_groups) != 1)) {
        SSL_CTX_free(ctx);
        ERR_clear_error();
        log_line(cfg, "emcp_http: cannot load the TLS certificate or key, or set tls_groups");
        return -MCP_ENOTSUP;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    h->tls_ctx = ctx;
    return 0;
}

void emcp_http_tls_close(emcp_http_t *h)
{
    SSL_CTX_free((SSL_CTX *)h->tls_ctx); /* NULL: nothing */
}

void *emcp_http_tls_attach(emcp_http_t *h, size_t slot, const int *fd)
{
    (void)slot;
    SSL *ssl = SSL_new((SSL_CTX *)h->tls_ctx);
    if (ssl == NULL || SSL_set_fd(ssl, *fd) != 1) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(ssl); /* the handshake runs inside SSL_read */
    return ssl;
}

ssize_t emcp_http_tls_recv(void *tls, void *buf, size_t len, bool *want_write)
{
    int n = SSL_read((SSL *)tls, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0) {
        *want_write = false;
        return n;
    }
    switch (SSL_get_error((SSL *)tls, n)) {
    case SSL_ERROR_WANT_READ:
        *want_write = false;
        return EMCP_HTTP_TLS_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        *want_write = true;
        return EMCP_HTTP_TLS_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    default:
        ERR_clear_error();
        return EMCP_HTTP_TLS_ERROR;
    }
}

ssize_t emcp_http_tls_send(void *tls, const void *buf, size_t len)
{
    int n = SSL_write((SSL *)tls, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0) {
        return n;
    }
    switch (SSL_get_error((SSL *)tls, n)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return EMCP_HTTP_TLS_AGAIN;
    default:
        ERR_clear_error();
        return EMCP_HTTP_TLS_ERROR;
    }
}

bool emcp_http_tls_pending(const void *tls)
{
    return SSL_pending((const SSL *)tls) > 0;
}

void emcp_http_tls_detach(void *tls, bool notify)
{
    if (notify) {
        (void)SSL_shutdown((SSL *)tls); /* close_notify, best effort */
    }
    SSL_free((SSL *)tls);
    ERR_clear_error();
}
