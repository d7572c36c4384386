/*
 * The Streamable HTTP binding's TLS engine interface, private to
 * emcp_http.c. One implementation per file; a build links exactly one:
 *
 *   emcp_http_tls_none.c   plain HTTP only (a certificate in the
 *                          configuration: -MCP_ENOTSUP)
 *   emcp_http_openssl.c    OpenSSL (host builds; EMCP_HTTP_WITH_OPENSSL=1)
 *   emcp_http_mbedtls.c    Mbed TLS (firmware, and the host's libmbedtls;
 *                          EMCP_HTTP_WITH_MBEDTLS=1, which emcp_http.h needs
 *                          for emcp_http_t's layout)
 *   emcp_http_wolfssl.c    wolfSSL, with ML-KEM key exchange (the
 *                          post-quantum profile; EMCP_HTTP_WITH_WOLFSSL=1)
 *
 * Every engine is non-blocking TLS over the connection's socket, so the
 * handshake, like every read and write, advances a step per poll and a
 * stalled client never holds the loop. bindings/http/sources.cmake lists
 * the files (EMCP_HTTP_TLS_NONE_SOURCES, _OPENSSL_SOURCES, _MBEDTLS_SOURCES,
 * _WOLFSSL_SOURCES).
 */
#ifndef EMCP_HTTP_TLS_H
#define EMCP_HTTP_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "emcp_http.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results of the I/O calls besides a byte count (emcp_http.c's IO_*). */
#define EMCP_HTTP_TLS_AGAIN (-1)
#define EMCP_HTTP_TLS_ERROR (-2)

/* Called by emcp_http_open() when cfg names a certificate: loads the
 * credentials of cfg and sets h->tls_ctx. 0, or -MCP_ENOTSUP after
 * logging the reason through cfg->log (everything set up is freed again). */
int emcp_http_tls_open(emcp_http_t *h, const emcp_http_config_t *cfg);
/* Frees what open set up; called by emcp_http_close() in any case. */
void emcp_http_tls_close(emcp_http_t *h);
/* The TLS state of connection slot `slot` for a new connection on *fd
 * (which stays valid while the connection lives), or NULL. The handshake
 * runs inside the first reads. */
void *emcp_http_tls_attach(emcp_http_t *h, size_t slot, const int *fd);
/* Bytes read, 0 at the end of the stream, EMCP_HTTP_TLS_AGAIN (with
 * *want_write telling whether to wait for writability) or
 * EMCP_HTTP_TLS_ERROR. */
ssize_t emcp_http_tls_recv(void *tls, void *buf, size_t len, bool *want_write);
/* Bytes written (> 0), EMCP_HTTP_TLS_AGAIN or EMCP_HTTP_TLS_ERROR. */
ssize_t emcp_http_tls_send(void *tls, const void *buf, size_t len);
/* Decrypted bytes held that poll() cannot see. */
bool emcp_http_tls_pending(const void *tls);
/* Ends the connection's TLS (close_notify first, best effort, if notify). */
void emcp_http_tls_detach(void *tls, bool notify);

#ifdef __cplusplus
}
#endif

#endif
