/*
 * emcp-pqc-dtls: test code of the post-quantum profile (issue 39, item 4's
 * measurement, docs/pqc.md): a DTLS 1.3 handshake between two wolfSSL
 * endpoints over UDP on loopback, a client and a server thread in one
 * process, both with the key-exchange groups of --groups and the server's
 * certificate checked by the client, and the datagrams counted. It measures
 * the DTLS 1.3 layer CoAP runs on, without libcoap (CoAP itself:
 * tests/pqc/test_pqc_coap.py, with LIBCOAP_PATH): a hybrid key share makes
 * the ClientHello larger than one datagram of --mtu, and DTLS 1.3 must
 * fragment it (the server allows a fragmented
 * ClientHello). One line per run on stdout:
 *
 *   group=G mtu=M handshakes=N handshake_median_us=... client_datagrams=N
 *   client_datagram_sizes=a+b+... server_datagrams=N server_datagram_sizes=...
 *   client_to_server_bytes=... server_to_client_bytes=... round_trips=...
 *
 * Sizes are UDP payloads (DTLS records) until the client's handshake is done,
 * from the last of the N handshakes (they are the same each time); the time
 * is the median of N. Exit 3 when the group negotiated is not --groups' first,
 * 4 when a handshake failed.
 */
#include "emcp_pqc_net.h"

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 4
#define MAX_DGRAMS 32


/* One endpoint's datagram socket through wolfSSL's callbacks. */
struct side {
    int fd;
    WOLFSSL *ssl;
    unsigned sizes[MAX_DGRAMS]; /* sent datagrams */
    unsigned n;
    unsigned long bytes;
    unsigned round_trips; /* times it waited for the peer after sending */
    bool sent;
};

static int io_recv(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    struct side *s = ctx;
    int timeout_s = wolfSSL_dtls_get_current_timeout(ssl);
    struct pollfd p = {s->fd, POLLIN, 0};
    int r = poll(&p, 1, (timeout_s > 0 ? timeout_s : 1) * 1000);
    if (r == 0) {
        return WOLFSSL_CBIO_ERR_TIMEOUT;
    }
    if (r < 0) {
        return errno == EINTR ? WOLFSSL_CBIO_ERR_ISR : WOLFSSL_CBIO_ERR_GENERAL;
    }
    ssize_t n = recv(s->fd, buf, (size_t)sz, 0);
    if (n < 0) {
        return errno == EINTR ? WOLFSSL_CBIO_ERR_ISR : WOLFSSL_CBIO_ERR_GENERAL;
    }
    s->round_trips += s->sent;
    s->sent = false;
    return (int)n;
}

static int io_send(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    (void)ssl;
    struct side *s = ctx;
    ssize_t n = send(s->fd, buf, (size_t)sz, 0);
    if (n < 0) {
        return errno == EINTR ? WOLFSSL_CBIO_ERR_ISR : WOLFSSL_CBIO_ERR_CONN_RST;
    }
    if (s->n < MAX_DGRAMS) {
        s->sizes[s->n] = (unsigned)n;
    }
    s->n++;
    s->bytes += (unsigned long)n;
    s->sent = true;
    return (int)n;
}

static int groups[MAX_GROUPS], n_groups;
static unsigned short mtu = 1200;
static WOLFSSL_CTX *server_ctx, *client_ctx;

static void *serve(void *arg)
{
    struct side *s = arg;
    /* The first datagram names the client: talk to it alone from now on. */
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    char probe;
    if (recvfrom(s->fd, &probe, 1, MSG_PEEK, (struct sockaddr *)&peer, &len) < 0 ||
        connect(s->fd, (struct sockaddr *)&peer, len) != 0) {
        return NULL;
    }
    if (wolfSSL_accept(s->ssl) != WOLFSSL_SUCCESS) {
        return NULL;
    }
    return s; /* success */
}

static int udp_socket(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    socklen_t len = sizeof *addr;
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof *addr) != 0 ||
        getsockname(fd, (struct sockaddr *)addr, &len) != 0) {
        return -1;
    }
    return fd;
}

static WOLFSSL *endpoint(WOLFSSL_CTX *ctx, struct side *s, bool server)
{
    WOLFSSL *ssl = wolfSSL_new(ctx);
    if (ssl == NULL || wolfSSL_set_groups(ssl, groups, n_groups) != WOLFSSL_SUCCESS ||
        wolfSSL_dtls_set_mtu(ssl, mtu) != WOLFSSL_SUCCESS) {
        wolfSSL_free(ssl);
        return NULL;
    }
    if (server) {
        (void)wolfSSL_dtls13_allow_ch_frag(ssl, 1);
    } else if (wolfSSL_UseSNI(ssl, WOLFSSL_SNI_HOST_NAME, "localhost", 9) != WOLFSSL_SUCCESS ||
               wolfSSL_check_domain_name(ssl, "localhost") != WOLFSSL_SUCCESS) {
        wolfSSL_free(ssl);
        return NULL;
    }
    wolfSSL_SetIOReadCtx(ssl, s);
    wolfSSL_SetIOWriteCtx(ssl, s);
    s->ssl = ssl;
    return ssl;
}

/* One handshake: 0, 3 (another group) or 4 (failed); fills c and s. */
static int handshake(struct side *c, struct side *s, long *us, const char **group)
{
    struct sockaddr_in saddr, caddr;
    int rc = 4;
    memset(c, 0, sizeof *c);
    memset(s, 0, sizeof *s);
    s->fd = udp_socket(&saddr);
    c->fd = udp_socket(&caddr);
    pthread_t t;
    bool started = false;
    if (s->fd < 0 || c->fd < 0 || connect(c->fd, (struct sockaddr *)&saddr, sizeof saddr) != 0 ||
        endpoint(server_ctx, s, true) == NULL || endpoint(client_ctx, c, false) == NULL ||
        pthread_create(&t, NULL, serve, s) != 0) {
        goto out;
    }
    started = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ret = wolfSSL_connect(c->ssl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
    if (ret != WOLFSSL_SUCCESS) {
        char err[WOLFSSL_MAX_ERROR_SZ];
        wolfSSL_ERR_error_string_n((unsigned long)wolfSSL_get_error(c->ssl, ret), err, sizeof err);
        fprintf(stderr, "emcp-pqc-dtls: handshake failed: %s\n", err);
        shutdown(s->fd, SHUT_RDWR);
        goto out;
    }
    *group = emcp_pqc_group_name(wolfSSL_get_curve_name(c->ssl));
    rc = 3; /* unless it is the first of --groups */
    for (size_t i = 0; i < EMCP_PQC_N_GROUPS; i++) {
        if (emcp_pqc_groups[i].id == groups[0] && strcmp(*group, emcp_pqc_groups[i].name) == 0) {
            rc = 0;
        }
    }
out:
    if (started) {
        void *ok = NULL;
        pthread_join(t, &ok);
        if (ok == NULL && rc == 0) {
            rc = 4;
        }
    }
    for (struct side *x = c; x != NULL; x = x == c ? s : NULL) {
        wolfSSL_free(x->ssl);
        x->ssl = NULL;
        if (x->fd >= 0) {
            close(x->fd);
        }
    }
    return rc;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void print_sizes(const char *key, const struct side *x)
{
    printf(" %s=", key);
    for (unsigned i = 0; i < x->n && i < MAX_DGRAMS; i++) {
        printf("%s%u", i ? "+" : "", x->sizes[i]);
    }
}

int main(int argc, char **argv)
{
    const char *cert = NULL, *key = NULL, *list = NULL;
    unsigned long n = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Usage: emcp-pqc-dtls --cert CERT.pem --key KEY.pem --groups G[:G...] [--mtu BYTES] [--bench N]\n"
                   "  Test code of the post-quantum profile: N DTLS 1.3 handshakes (wolfSSL at both ends, UDP on\n"
                   "  loopback) with the key-exchange groups of --groups (X25519, X25519MLKEM768,\n"
                   "  SecP256r1MLKEM768, ML-KEM-768), datagrams of at most --mtu bytes (default 1200), the server's\n"
                   "  certificate (--cert, --key) checked against itself and the name localhost. Prints one\n"
                   "  line: group, mtu, median handshake time, the datagrams each side sent and their sizes,\n"
                   "  bytes each way, round trips. Exit 3 when the group negotiated is not the first of\n"
                   "  --groups, 4 when a handshake failed.\n");
            return 0;
        }
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (strcmp(a, "--cert") == 0) {
            cert = v;
        } else if (strcmp(a, "--key") == 0) {
            key = v;
        } else if (strcmp(a, "--groups") == 0) {
            list = v;
        } else if (strcmp(a, "--mtu") == 0) {
            mtu = (unsigned short)strtoul(v, NULL, 10);
        } else if (strcmp(a, "--bench") == 0) {
            n = strtoul(v, NULL, 10);
        } else {
            fprintf(stderr, "emcp-pqc-dtls: unknown argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (list != NULL && (n_groups = emcp_pqc_parse_groups(list, groups, MAX_GROUPS, "emcp-pqc-dtls")) < 0) {
        return 2;
    }
    if (cert == NULL || key == NULL || n_groups == 0 || n == 0 || n > 10000 || mtu < 200) {
        fprintf(stderr, "emcp-pqc-dtls: --cert, --key and --groups are required (see --help)\n");
        return 2;
    }
    wolfSSL_Init();
    server_ctx = wolfSSL_CTX_new(wolfDTLSv1_3_server_method());
    client_ctx = wolfSSL_CTX_new(wolfDTLSv1_3_client_method());
    if (server_ctx == NULL || client_ctx == NULL ||
        wolfSSL_CTX_use_certificate_chain_file(server_ctx, cert) != WOLFSSL_SUCCESS ||
        wolfSSL_CTX_use_PrivateKey_file(server_ctx, key, WOLFSSL_FILETYPE_PEM) != WOLFSSL_SUCCESS ||
        wolfSSL_CTX_load_verify_locations(client_ctx, cert, NULL) != WOLFSSL_SUCCESS) {
        fprintf(stderr, "emcp-pqc-dtls: cannot load %s and %s\n", cert, key);
        return 1;
    }
    wolfSSL_CTX_set_verify(client_ctx, WOLFSSL_VERIFY_PEER, NULL);
    for (WOLFSSL_CTX *ctx = server_ctx; ctx != NULL; ctx = ctx == server_ctx ? client_ctx : NULL) {
        wolfSSL_SetIORecv(ctx, io_recv);
        wolfSSL_SetIOSend(ctx, io_send);
    }
    long *us = calloc(n, sizeof *us);
    struct side c, s;
    const char *group = "none";
    int rc = us == NULL ? 1 : 0;
    for (unsigned long i = 0; i < n && rc == 0; i++) {
        rc = handshake(&c, &s, &us[i], &group);
    }
    if (rc == 0) {
        qsort(us, n, sizeof *us, cmp_long);
        printf("group=%s mtu=%u handshakes=%lu handshake_median_us=%ld client_datagrams=%u", group, mtu, n,
               n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2, c.n);
        print_sizes("client_datagram_sizes", &c);
        printf(" server_datagrams=%u", s.n);
        print_sizes("server_datagram_sizes", &s);
        printf(" client_to_server_bytes=%lu server_to_client_bytes=%lu round_trips=%u\n", c.bytes, s.bytes,
               c.round_trips);
    } else if (rc == 3) {
        fprintf(stderr, "emcp-pqc-dtls: negotiated %s, not the first of %s\n", group, list);
    }
    free(us);
    wolfSSL_CTX_free(server_ctx);
    wolfSSL_CTX_free(client_ctx);
    wolfSSL_Cleanup();
    return rc;
}
