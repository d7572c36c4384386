/*
 * The Mbed TLS engine of the Streamable HTTP binding (emcp_http_tls.h): the
 * TLS library of most microcontroller firmware (Zephyr's module, lwIP and
 * FreeRTOS ports), and Debian's libmbedtls for the host build that the
 * HTTPS tests run against. Works with Mbed TLS 2.28 and 3.x.
 *
 * Memory: every connection slot gets its TLS context and record buffers
 * (about 2 x MBEDTLS_SSL_MAX_CONTENT_LEN) from Mbed TLS's allocator once,
 * at emcp_http_open(); a new connection only resets its slot, and the
 * handshake's temporary use comes and goes inside Mbed TLS. Size the TLS
 * heap for EMCP_HTTP_MAX_CONNS slots plus one handshake (docs/zephyr.md).
 */
#if !EMCP_HTTP_WITH_MBEDTLS
#error "emcp_http_mbedtls.c needs EMCP_HTTP_WITH_MBEDTLS=1 (emcp_http_t's layout depends on it)"
#endif

#include "emcp_http_tls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mbedtls/net_sockets.h>
#include <mbedtls/version.h>

#if !defined(__ZEPHYR__)
#include <sys/socket.h> /* Zephyr's sockets come with emcp_http.h */
#endif

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* the application ignores SIGPIPE instead */
#endif

/* Entropy for the DRBG: the platform's CSPRNG (emcp_http.c). */
static int entropy(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    return emcp_http_random(out, len) == 0 ? 0 : MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED;
}

/* The socket under a TLS context: non-blocking, so "would block" becomes
 * Mbed TLS's WANT_READ / WANT_WRITE and the poll loop resumes later. */
static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
    ssize_t n = send(*(const int *)ctx, buf, len, MSG_NOSIGNAL);
    if (n >= 0) {
        return (int)n;
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? MBEDTLS_ERR_SSL_WANT_WRITE
                                                                       : MBEDTLS_ERR_NET_SEND_FAILED;
}

static int bio_recv(void *ctx, unsigned char *buf, size_t len)
{
    ssize_t n = recv(*(const int *)ctx, buf, len, 0);
    if (n >= 0) {
        return (int)n; /* 0: the peer closed */
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? MBEDTLS_ERR_SSL_WANT_READ
                                                                       : MBEDTLS_ERR_NET_RECV_FAILED;
}

static void logf_tls(void (*log)(void *, const char *), void *log_user, const char *what, int err)
{
    if (log != NULL) {
        char line[128];
        snprintf(line, sizeof line, "emcp_http: Mbed TLS: %s (-0x%04x)", what, (unsigned)-err);
        log(log_user, line);
    }
}

static int parse_credentials(struct emcp_http_mbedtls *m, const emcp_http_config_t *cfg)
{
    int rc;
    if (cfg->tls_cert != NULL) {
        rc = mbedtls_x509_crt_parse(&m->cert, cfg->tls_cert, cfg->tls_cert_len);
    } else {
#if defined(MBEDTLS_FS_IO)
        rc = mbedtls_x509_crt_parse_file(&m->cert, cfg->tls_cert_file);
#else
        rc = MBEDTLS_ERR_X509_FILE_IO_ERROR; /* no file system: pass tls_cert */
#endif
    }
    if (rc != 0) {
        return rc;
    }
#if MBEDTLS_VERSION_MAJOR >= 3
    if (cfg->tls_key != NULL) {
        return mbedtls_pk_parse_key(&m->key, cfg->tls_key, cfg->tls_key_len, NULL, 0,
                                    mbedtls_ctr_drbg_random, &m->drbg);
    }
#if defined(MBEDTLS_FS_IO)
    return mbedtls_pk_parse_keyfile(&m->key, cfg->tls_key_file, NULL, mbedtls_ctr_drbg_random, &m->drbg);
#endif
#else
    if (cfg->tls_key != NULL) {
        return mbedtls_pk_parse_key(&m->key, cfg->tls_key, cfg->tls_key_len, NULL, 0);
    }
#if defined(MBEDTLS_FS_IO)
    return mbedtls_pk_parse_keyfile(&m->key, cfg->tls_key_file, NULL);
#endif
#endif
    return MBEDTLS_ERR_PK_FILE_IO_ERROR;
}

static int engine_open(struct emcp_http_mbedtls *m, const emcp_http_config_t *cfg,
                       void (*log)(void *, const char *), void *log_user)
{
    mbedtls_ssl_config_init(&m->conf);
    mbedtls_ctr_drbg_init(&m->drbg);
    mbedtls_x509_crt_init(&m->cert);
    mbedtls_pk_init(&m->key);
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        mbedtls_ssl_init(&m->ssl[i]);
    }
    m->ready = true; /* from here on, close frees whatever was set up */

    static const unsigned char personalization[] = "emcp_http";
    int rc = mbedtls_ctr_drbg_seed(&m->drbg, entropy, NULL, personalization, sizeof personalization - 1);
    if (rc != 0) {
        logf_tls(log, log_user, "cannot seed the DRBG", rc);
        return -MCP_ENOTSUP;
    }
    bool have_cert = cfg->tls_cert != NULL || cfg->tls_cert_file != NULL;
    bool have_key = cfg->tls_key != NULL || cfg->tls_key_file != NULL;
    rc = have_cert && have_key ? parse_credentials(m, cfg) : MBEDTLS_ERR_SSL_BAD_INPUT_DATA;
    if (rc != 0) {
        logf_tls(log, log_user, "cannot load the TLS certificate or key", rc);
        return -MCP_ENOTSUP;
    }
    rc = mbedtls_ssl_config_defaults(&m->conf, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
                                     MBEDTLS_SSL_PRESET_DEFAULT);
    if (rc == 0) {
        mbedtls_ssl_conf_rng(&m->conf, mbedtls_ctr_drbg_random, &m->drbg);
#if MBEDTLS_VERSION_MAJOR < 3
        /* TLS 1.2 at least (3.x has nothing older). */
        mbedtls_ssl_conf_min_version(&m->conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
#endif
        rc = mbedtls_ssl_conf_own_cert(&m->conf, &m->cert, &m->key);
    }
    if (rc != 0) {
        logf_tls(log, log_user, "the certificate and key do not make a server configuration", rc);
        return -MCP_ENOTSUP;
    }
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        rc = mbedtls_ssl_setup(&m->ssl[i], &m->conf);
        if (rc != 0) {
            logf_tls(log, log_user, "no memory for the connection slots' TLS contexts", rc);
            return -MCP_ENOTSUP;
        }
    }
    return 0;
}

static void engine_close(struct emcp_http_mbedtls *m)
{
    if (!m->ready) {
        return;
    }
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        mbedtls_ssl_free(&m->ssl[i]);
    }
    mbedtls_ssl_config_free(&m->conf);
    mbedtls_pk_free(&m->key);
    mbedtls_x509_crt_free(&m->cert);
    mbedtls_ctr_drbg_free(&m->drbg);
    m->ready = false;
}

int emcp_http_tls_open(emcp_http_t *h, const emcp_http_config_t *cfg)
{
    if (cfg->tls_groups != NULL) {
        if (cfg->log != NULL) {
            cfg->log(cfg->log_user, "emcp_http: tls_groups needs the OpenSSL or wolfSSL engine");
        }
        return -MCP_ENOTSUP;
    }
    int rc = engine_open(&h->mbedtls, cfg, cfg->log, cfg->log_user);
    if (rc != 0) {
        engine_close(&h->mbedtls);
        return rc;
    }
    h->tls_ctx = &h->mbedtls;
    return 0;
}

void emcp_http_tls_close(emcp_http_t *h)
{
    engine_close(&h->mbedtls);
}

void *emcp_http_tls_attach(emcp_http_t *h, size_t slot, const int *fd)
{
    struct emcp_http_mbedtls *m = &h->mbedtls;
    if (!m->ready || slot >= EMCP_HTTP_MAX_CONNS || mbedtls_ssl_session_reset(&m->ssl[slot]) != 0) {
        return NULL;
    }
    mbedtls_ssl_set_bio(&m->ssl[slot], (void *)fd, bio_send, bio_recv, NULL);
    return &m->ssl[slot];
}

ssize_t emcp_http_tls_recv(void *tls, void *buf, size_t len, bool *want_write)
{
    int n = mbedtls_ssl_read(tls, buf, len > INT32_MAX ? INT32_MAX : len);
    *want_write = n == MBEDTLS_ERR_SSL_WANT_WRITE;
    if (n > 0) {
        return n;
    }
    switch (n) {
    case MBEDTLS_ERR_SSL_WANT_READ:
    case MBEDTLS_ERR_SSL_WANT_WRITE:
        return EMCP_HTTP_TLS_AGAIN;
    case 0:
    case MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY:
        return 0;
    default:
        return EMCP_HTTP_TLS_ERROR;
    }
}

ssize_t emcp_http_tls_send(void *tls, const void *buf, size_t len)
{
    int n = mbedtls_ssl_write(tls, buf, len > INT32_MAX ? INT32_MAX : len);
    if (n > 0) {
        return n;
    }
    return (n == MBEDTLS_ERR_SSL_WANT_READ || n == MBEDTLS_ERR_SSL_WANT_WRITE) ? EMCP_HTTP_TLS_AGAIN
                                                                               : EMCP_HTTP_TLS_ERROR;
}

bool emcp_http_tls_pending(const void *tls)
{
    return mbedtls_ssl_get_bytes_avail(tls) > 0;
}

void emcp_http_tls_detach(void *tls, bool notify)
{
    if (notify) {
        (void)mbedtls_ssl_close_notify(tls); /* best effort: the socket closes next */
    }
    /* The slot keeps its buffers; attach resets it for the next connection. */
}
