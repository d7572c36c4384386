/*
 * coreMQTT's transport interface over TLS 1.3 on wolfSSL. recv waits at
 * most EMCP_CORE_POSIX_RECV_WAIT_MS for the socket and returns 0 when no
 * application byte came (MQTT_ProcessLoop's contract); the socket is
 * non-blocking after the handshake, so a record that carries no application
 * data (the broker side's NewSessionTicket) gives 0, not a wait. A send that
 * would block returns 0 and coreMQTT offers the same bytes again, which is
 * what wolfSSL_write wants after WANT_WRITE.
 */
#include "transport_wolfssl.h"

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/* The groups by their names in the TLS registry (what --tls-groups takes and
 * the log line says), wolfSSL's ids, and what wolfSSL_get_curve_name() says. */
static const struct {
    const char *name;
    int id;
    const char *wolfssl_name;
} group_names[] = {
    {"X25519", WOLFSSL_ECC_X25519, "X25519"},
    {"secp256r1", WOLFSSL_ECC_SECP256R1, "SECP256R1"},
#ifdef WOLFSSL_HAVE_MLKEM
    {"X25519MLKEM768", WOLFSSL_X25519MLKEM768, "X25519MLKEM768"},
    {"SecP256r1MLKEM768", WOLFSSL_SECP256R1MLKEM768, "SecP256r1MLKEM768"},
#ifndef WOLFSSL_TLS_NO_MLKEM_STANDALONE
    /* pure ML-KEM (cmake/wolfssl/config.site) */
    {"ML-KEM-768", WOLFSSL_ML_KEM_768, "ML_KEM_768"},
#endif
#endif
};

/* The registry's name of the group wolfSSL negotiated ("none" without one). */
static const char *group_name(WOLFSSL *ssl)
{
    const char *w = wolfSSL_get_curve_name(ssl);
    for (size_t i = 0; w != NULL && i < sizeof group_names / sizeof group_names[0]; i++) {
        if (strcmp(group_names[i].wolfssl_name, w) == 0) {
            return group_names[i].name;
        }
    }
    return w != NULL ? w : "none";
}

static emcp_core_wolfssl_t *of(NetworkContext_t *nc)
{
    return (emcp_core_wolfssl_t *)(void *)nc; /* net is the first member */
}

static int32_t tls_recv(NetworkContext_t *nc, void *buf, size_t len)
{
    WOLFSSL *ssl = of(nc)->ssl;
    if (wolfSSL_pending(ssl) == 0) {
        struct pollfd p = {.fd = nc->fd, .events = POLLIN};
        int r = poll(&p, 1, EMCP_CORE_POSIX_RECV_WAIT_MS);
        if (r == 0 || (r < 0 && errno == EINTR)) {
            return 0;
        }
        if (r < 0) {
            return -1;
        }
    }
    int n = wolfSSL_read(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) {
        return n;
    }
    int err = wolfSSL_get_error(ssl, n);
    return (err == WOLFSSL_ERROR_WANT_READ || err == WOLFSSL_ERROR_WANT_WRITE) ? 0 : -1;
}

static int32_t tls_send(NetworkContext_t *nc, const void *buf, size_t len)
{
    WOLFSSL *ssl = of(nc)->ssl;
    int n = wolfSSL_write(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) {
        return n;
    }
    int err = wolfSSL_get_error(ssl, n);
    if (err == WOLFSSL_ERROR_WANT_WRITE || err == WOLFSSL_ERROR_WANT_READ) {
        struct pollfd p = {.fd = nc->fd, .events = POLLOUT};
        (void)poll(&p, 1, EMCP_CORE_POSIX_RECV_WAIT_MS);
        return 0;
    }
    return -1;
}

int emcp_core_wolfssl_init(emcp_core_wolfssl_t *t, const char **why)
{
    t->n_groups = 0;
    for (const char *p = t->groups; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ":,");
        size_t i = 0;
        while (i < sizeof group_names / sizeof group_names[0] &&
               !(strlen(group_names[i].name) == len && strncmp(group_names[i].name, p, len) == 0)) {
            i++;
        }
        if (i == sizeof group_names / sizeof group_names[0] || t->n_groups == EMCP_CORE_WOLFSSL_MAX_GROUPS) {
            *why = "a group this wolfSSL build does not offer (X25519, secp256r1, X25519MLKEM768, "
                   "SecP256r1MLKEM768, ML-KEM-768)";
            return -1;
        }
        t->group_ids[t->n_groups++] = group_names[i].id;
        p += len + (p[len] != '\0');
    }
    if (t->n_groups == 0 || t->ca_file == NULL || t->server_name == NULL) {
        *why = "needs a CA file, a server name and at least one group";
        return -1;
    }
    if (wolfSSL_Init() != WOLFSSL_SUCCESS) {
        *why = "wolfSSL_Init failed";
        return -1;
    }
    WOLFSSL_CTX *ctx = wolfSSL_CTX_new(wolfTLSv1_3_client_method());
    if (ctx == NULL || wolfSSL_CTX_load_verify_locations(ctx, t->ca_file, NULL) != WOLFSSL_SUCCESS) {
        wolfSSL_CTX_free(ctx);
        *why = "cannot load the CA file";
        return -1;
    }
    wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER, NULL);
    t->ctx = ctx;
    t->ssl = NULL;
    return 0;
}

static void log_line(emcp_core_wolfssl_t *t, const char *line)
{
    if (t->log != NULL) {
        t->log(t->log_user, line);
    }
}

int emcp_core_wolfssl_connect(void *user, TransportInterface_t *transport)
{
    emcp_core_wolfssl_t *t = user;
    char line[256];
    if (emcp_core_posix_connect(&t->net, transport) != 0) {
        return -1;
    }
    WOLFSSL *ssl = wolfSSL_new((WOLFSSL_CTX *)t->ctx);
    if (ssl == NULL || wolfSSL_set_groups(ssl, t->group_ids, t->n_groups) != WOLFSSL_SUCCESS ||
        wolfSSL_UseSNI(ssl, WOLFSSL_SNI_HOST_NAME, t->server_name, (unsigned short)strlen(t->server_name)) !=
            WOLFSSL_SUCCESS ||
        wolfSSL_check_domain_name(ssl, t->server_name) != WOLFSSL_SUCCESS ||
        wolfSSL_set_fd(ssl, t->net.fd) != WOLFSSL_SUCCESS) {
        log_line(t, "transport_wolfssl: TLS set-up failed");
        wolfSSL_free(ssl);
        emcp_core_posix_disconnect(&t->net);
        return -1;
    }
    int ret = wolfSSL_connect(ssl); /* blocking socket until here */
    int flags = fcntl(t->net.fd, F_GETFL);
    if (ret != WOLFSSL_SUCCESS || flags < 0 || fcntl(t->net.fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        char err[WOLFSSL_MAX_ERROR_SZ];
        wolfSSL_ERR_error_string_n((unsigned long)wolfSSL_get_error(ssl, ret), err, sizeof err);
        snprintf(line, sizeof line, "transport_wolfssl: TLS handshake with %s:%d failed: %s", t->net.host,
                 t->net.port, err);
        log_line(t, line);
        wolfSSL_free(ssl);
        emcp_core_posix_disconnect(&t->net);
        return -1;
    }
    snprintf(line, sizeof line, "transport_wolfssl: %s with %s:%d, group %s, cipher %s", wolfSSL_get_version(ssl),
             t->net.host, t->net.port, group_name(ssl), wolfSSL_get_cipher_name(ssl));
    log_line(t, line);
    t->ssl = ssl;
    transport->pNetworkContext = &t->net;
    transport->recv = tls_recv;
    transport->send = tls_send;
    transport->writev = NULL;
    return 0;
}

void emcp_core_wolfssl_disconnect(void *user)
{
    emcp_core_wolfssl_t *t = user;
    if (t->ssl != NULL) {
        (void)wolfSSL_shutdown((WOLFSSL *)t->ssl); /* close_notify, best effort */
        wolfSSL_free((WOLFSSL *)t->ssl);
        t->ssl = NULL;
    }
    emcp_core_posix_disconnect(&t->net);
}
