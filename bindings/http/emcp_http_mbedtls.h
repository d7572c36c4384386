/*
 * The Streamable HTTP binding's Mbed TLS engine (EMCP_HTTP_WITH_MBEDTLS),
 * private to emcp_http.c: non-blocking TLS over the connection's socket, so
 * the handshake, like every read and write, advances a step per poll and a
 * stalled client never holds the loop.
 */
#ifndef EMCP_HTTP_MBEDTLS_H
#define EMCP_HTTP_MBEDTLS_H

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

/* Loads the credentials of cfg (files or memory), seeds the DRBG and sets up
 * one TLS context per connection slot. 0, or -EMCP_HTTP_ENOTSUP after
 * logging the reason through log(log_user, line). */
int emcp_http_mbedtls_open(struct emcp_http_mbedtls *m, const emcp_http_config_t *cfg,
                           void (*log)(void *, const char *), void *log_user);
/* Frees everything open set up (also after a failed open). */
void emcp_http_mbedtls_close(struct emcp_http_mbedtls *m);
/* The TLS context of connection slot `slot` for a new connection on *fd
 * (read when the engine does I/O, so the caller may set it afterwards). */
void *emcp_http_mbedtls_attach(struct emcp_http_mbedtls *m, size_t slot, const int *fd);
/* Bytes read, 0 at the end of the stream, EMCP_HTTP_TLS_AGAIN (with
 * *want_write telling whether to wait for writability) or
 * EMCP_HTTP_TLS_ERROR. The handshake runs inside the first reads. */
ssize_t emcp_http_mbedtls_recv(void *tls, void *buf, size_t len, bool *want_write);
/* Bytes written (> 0), EMCP_HTTP_TLS_AGAIN or EMCP_HTTP_TLS_ERROR. */
ssize_t emcp_http_mbedtls_send(void *tls, const void *buf, size_t len);
/* Decrypted bytes held that poll() cannot see. */
bool emcp_http_mbedtls_pending(const void *tls);
/* Ends the connection's TLS (close_notify first, best effort, if notify). */
void emcp_http_mbedtls_detach(void *tls, bool notify);

#ifdef __cplusplus
}
#endif

#endif
