/*
 * The wolfSSL engine of the Streamable HTTP binding (emcp_http_tls.h): the
 * post-quantum profile. TLS 1.3 only, whose key exchange is the group list
 * of emcp_http_config_t.tls_groups: X25519, the hybrid X25519MLKEM768 (or
 * SecP256r1MLKEM768), or pure ML-KEM-768. The certificate, its key and
 * what a client verifies are the same whichever group is chosen.
 *
 * wolfSSL is not part of this repository: EMCP_HTTP_TLS=wolfssl builds it
 * from the crates.io package wolfssl-sys (cmake/EmcpWolfssl.cmake), or takes
 * the one under EMCP_WOLFSSL_ROOT. wolfSSL is GPLv2-or-later or commercial:
 * a firmware that links it is bound by that licence (docs/bindings/http.md).
 *
 * Like the OpenSSL engine: one WOLFSSL object per connection over its
 * non-blocking socket, whose handshake runs inside the first reads.
 */
#if !EMCP_HTTP_WITH_WOLFSSL
#error "emcp_http_wolfssl.c needs EMCP_HTTP_WITH_WOLFSSL=1"
#endif

#include "emcp_http_tls.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* options.h carries the configuration wolfSSL was built with: first. */
#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#if !defined(WOLFSSL_TLS13) || !defined(HAVE_SUPPORTED_CURVES)
#error "emcp_http_wolfssl.c needs wolfSSL with TLS 1.3 and supported curves"
#endif

/* The groups tls_groups may name, by their names in the TLS registry (and
 * "ML-KEM-768" as the issue and most tools spell it). */
static const struct {
    const char *name;
    int group;
} groups[] = {
    {"X25519", WOLFSSL_ECC_X25519},
    {"secp256r1", WOLFSSL_ECC_SECP256R1},
#ifdef WOLFSSL_HAVE_MLKEM
    {"X25519MLKEM768", WOLFSSL_X25519MLKEM768},
    {"SecP256r1MLKEM768", WOLFSSL_SECP256R1MLKEM768},
#ifndef WOLFSSL_TLS_NO_MLKEM_STANDALONE
    /* Pure ML-KEM: wolfSSL's --enable-tls-mlkem-standalone, which the
     * wolfssl-sys build gets from cmake/wolfssl/config.site. */
    {"ML-KEM-768", WOLFSSL_ML_KEM_768},
    {"MLKEM768", WOLFSSL_ML_KEM_768},
#endif
#endif
};

#define MAX_GROUPS 8

static void log_line(const emcp_http_config_t *cfg, const char *line)
{
    if (cfg->log != NULL) {
        cfg->log(cfg->log_user, line);
    }
}

/* Parses "A:B:..." into ids; the count, or -1 (an unknown name, logged). */
static int parse_groups(const emcp_http_config_t *cfg, const char *list, int ids[MAX_GROUPS])
{
    int n = 0;
    const char *p = list;
    while (*p != '\0') {
        size_t len = strcspn(p, ":,");
        int found = -1;
        for (size_t i = 0; i < sizeof groups / sizeof groups[0] && len > 0; i++) {
            if (strlen(groups[i].name) == len && strncmp(groups[i].name, p, len) == 0) {
                found = groups[i].group;
            }
        }
        if (found < 0 || n == MAX_GROUPS) {
            char line[160];
            snprintf(line, sizeof line, "emcp_http: tls_groups: '%.*s' is not a group this wolfSSL build offers (or too many)",
                     (int)(len > 64 ? 64 : len), p);
            log_line(cfg, line);
            return -1;
        }
        ids[n++] = found;
        p += len;
        if (*p != '\0') {
            p++;
        }
    }
    return n;
}

/* PEM (its text starts with "-----BEGIN") or DER. */
static int format_of(const uint8_t *buf, size_t len)
{
    return len >= 10 && memcmp(buf, "-----BEGIN", 10) == 0 ? WOLFSSL_FILETYPE_PEM
                                                           : WOLFSSL_FILETYPE_ASN1;
}

static int load_credentials(WOLFSSL_CTX *ctx, const emcp_http_config_t *cfg)
{
    if (cfg->tls_cert != NULL && cfg->tls_key != NULL && cfg->tls_cert_len <= LONG_MAX &&
        cfg->tls_key_len <= LONG_MAX) {
        return wolfSSL_CTX_use_certificate_chain_buffer_format(
                   ctx, cfg->tls_cert, (long)cfg->tls_cert_len,
                   format_of(cfg->tls_cert, cfg->tls_cert_len)) == WOLFSSL_SUCCESS &&
               wolfSSL_CTX_use_PrivateKey_buffer(ctx, cfg->tls_key, (long)cfg->tls_key_len,
                                                 format_of(cfg->tls_key, cfg->tls_key_len)) ==
                   WOLFSSL_SUCCESS;
    }
    return cfg->tls_cert_file != NULL && cfg->tls_key_file != NULL &&
           wolfSSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert_file) == WOLFSSL_SUCCESS &&
           wolfSSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key_file, WOLFSSL_FILETYPE_PEM) ==
               WOLFSSL_SUCCESS;
}

int emcp_http_tls_open(emcp_http_t *h, const emcp_http_config_t *cfg)
{
    int ids[MAX_GROUPS];
    int n_ids = 0;
    if (cfg->tls_groups != NULL) {
        n_ids = parse_groups(cfg, cfg->tls_groups, ids);
        if (n_ids <= 0) {
            if (n_ids == 0) {
                log_line(cfg, "emcp_http: tls_groups is empty");
            }
            return -MCP_ENOTSUP;
        }
    }
    if (wolfSSL_Init() != WOLFSSL_SUCCESS) {
        log_line(cfg, "emcp_http: wolfSSL_Init failed");
        return -MCP_ENOTSUP;
    }
    WOLFSSL_CTX *ctx = wolfSSL_CTX_new(wolfTLSv1_3_server_method());
    if (ctx == NULL || !load_credentials(ctx, cfg) ||
        wolfSSL_CTX_check_private_key(ctx) != WOLFSSL_SUCCESS) {
        wolfSSL_CTX_free(ctx);
        wolfSSL_Cleanup();
        log_line(cfg, "emcp_http: cannot load the TLS certificate or key");
        return -MCP_ENOTSUP;
    }
    if (n_ids > 0 && wolfSSL_CTX_set_groups(ctx, ids, n_ids) != WOLFSSL_SUCCESS) {
        wolfSSL_CTX_free(ctx);
        wolfSSL_Cleanup();
        log_line(cfg, "emcp_http: this wolfSSL does not support the tls_groups given");
        return -MCP_ENOTSUP;
    }
    h->tls_ctx = ctx;
    return 0;
}

void emcp_http_tls_close(emcp_http_t *h)
{
    if (h->tls_ctx != NULL) {
        wolfSSL_CTX_free((WOLFSSL_CTX *)h->tls_ctx);
        h->tls_ctx = NULL;
        wolfSSL_Cleanup(); /* balances open's wolfSSL_Init */
    }
}

void *emcp_http_tls_attach(emcp_http_t *h, size_t slot, const int *fd)
{
    (void)slot;
    WOLFSSL *ssl = wolfSSL_new((WOLFSSL_CTX *)h->tls_ctx);
    if (ssl == NULL || wolfSSL_set_fd(ssl, *fd) != WOLFSSL_SUCCESS) {
        wolfSSL_free(ssl);
        return NULL;
    }
    return ssl; /* a server object: wolfSSL_read accepts first */
}

ssize_t emcp_http_tls_recv(void *tls, void *buf, size_t len, bool *want_write)
{
    WOLFSSL *ssl = (WOLFSSL *)tls;
    int n = wolfSSL_read(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    *want_write = false;
    if (n > 0) {
        return n;
    }
    switch (wolfSSL_get_error(ssl, n)) {
    case WOLFSSL_ERROR_WANT_READ:
        return EMCP_HTTP_TLS_AGAIN;
    case WOLFSSL_ERROR_WANT_WRITE:
        *want_write = true;
        return EMCP_HTTP_TLS_AGAIN;
    case WOLFSSL_ERROR_ZERO_RETURN:
        return 0;
    default:
        return EMCP_HTTP_TLS_ERROR;
    }
}

/* After WANT_WRITE wolfSSL expects the same bytes again, which emcp_http.c
 * gives it: its unsent output stays where it was until it is taken. */
ssize_t emcp_http_tls_send(void *tls, const void *buf, size_t len)
{
    WOLFSSL *ssl = (WOLFSSL *)tls;
    int n = wolfSSL_write(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) {
        return n;
    }
    switch (wolfSSL_get_error(ssl, n)) {
    case WOLFSSL_ERROR_WANT_READ:
    case WOLFSSL_ERROR_WANT_WRITE:
        return EMCP_HTTP_TLS_AGAIN;
    default:
        return EMCP_HTTP_TLS_ERROR;
    }
}

bool emcp_http_tls_pending(const void *tls)
{
    return wolfSSL_pending((WOLFSSL *)(uintptr_t)tls) > 0;
}

void emcp_http_tls_detach(void *tls, bool notify)
{
    if (notify) {
        (void)wolfSSL_shutdown((WOLFSSL *)tls); /* close_notify, best effort */
    }
    wolfSSL_free((WOLFSSL *)tls);
}
