/*
 * coreMQTT's transport interface over TLS 1.3 on wolfSSL (transport_wolfssl.c),
 * the usual FreeRTOS pairing, for the post-quantum profile (docs/pqc.md): the
 * key-exchange groups are configured (X25519, X25519MLKEM768, ...), the
 * broker's certificate is verified against a CA and a name. It wraps the
 * POSIX socket of transport_posix.c; on a device the socket would be
 * FreeRTOS+TCP's or lwIP's and the rest the same.
 */
#ifndef EMCP_CORE_TRANSPORT_WOLFSSL_H
#define EMCP_CORE_TRANSPORT_WOLFSSL_H

#include "transport_posix.h"

#define EMCP_CORE_WOLFSSL_MAX_GROUPS 8

/** The transport's state; @c net first: coreMQTT's NetworkContext_t pointer
 *  is this struct's address. */
typedef struct emcp_core_wolfssl_t {
    NetworkContext_t net;    /**< host, port and the socket (transport_posix.h). */
    const char *ca_file;     /**< PEM CA the broker's certificate must chain to (required). */
    const char *server_name; /**< Name the certificate must carry, also sent as SNI (required). */
    const char *groups;      /**< "X25519MLKEM768", "X25519:X25519MLKEM768", ...; the first gets a key share. */
    void (*log)(void *user, const char *line); /**< One line per handshake, or NULL. */
    void *log_user;
    /* Set by emcp_core_wolfssl_init / connect: */
    void *ctx;              /**< WOLFSSL_CTX */
    void *ssl;              /**< WOLFSSL of the current connection, or NULL */
    int group_ids[EMCP_CORE_WOLFSSL_MAX_GROUPS];
    int n_groups;
} emcp_core_wolfssl_t;

/** Loads the CA and parses the groups: 0, or -1 with *why set. */
int emcp_core_wolfssl_init(emcp_core_wolfssl_t *t, const char **why);

/** emcp_mqtt_core_net_t.connect: @p user is an emcp_core_wolfssl_t. TCP,
 *  then the TLS 1.3 handshake offering t->groups; logs the group negotiated. */
int emcp_core_wolfssl_connect(void *user, TransportInterface_t *transport);

/** emcp_mqtt_core_net_t.disconnect: close_notify, then the socket. */
void emcp_core_wolfssl_disconnect(void *user);

#endif
