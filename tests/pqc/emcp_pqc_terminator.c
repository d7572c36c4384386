/*
 * emcp-pqc-terminator: test code of the post-quantum TLS profile (issue 39).
 * A TLS 1.3 server on wolfSSL in front of a plain TCP service on loopback,
 * the way a broker is fronted by a TLS terminator in deployments. Debian's
 * mosquitto links OpenSSL 3.0, which has no ML-KEM, so the MQTT tests put
 * this in front of the real broker:
 *
 *   device --TLS 1.3, --groups--> 127.0.0.1:LISTEN terminator --plain--> broker
 *
 * The server accepts only the key-exchange groups of --groups, presents
 * --cert/--key (the same P-256 certificate in every group), and after each
 * handshake writes one line to stdout (and to --report, appended):
 *
 *   terminator: conn=N group=X25519MLKEM768 version=TLSv1.3 cipher=... handshake_us=...
 *               rx=BYTES tx=BYTES heap_peak=BYTES expect=ok
 *   terminator: conn=N handshake=failed rx=BYTES tx=BYTES error=REASON
 *
 * rx/tx are the handshake bytes received from and sent to the client (TCP
 * payload, records included) until the server's handshake completes;
 * heap_peak is the most wolfSSL held for the connection during it
 * (emcp_pqc_heap.h). With --expect-group, a connection that negotiated
 * another group is closed before a byte reaches the broker
 * ("expect=MISMATCH"). On SIGTERM or SIGINT the terminator exits 0 when
 * every connection negotiated the expected group, 3 when one did not, 4
 * when a handshake failed (always 0 without --expect-group).
 */
#include "emcp_pqc_heap.h"
#include "emcp_pqc_net.h"

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct {
    struct sockaddr_in upstream;
    WOLFSSL_CTX *ctx;
    const char *expect;
    FILE *report;
    pthread_mutex_t lock;
    unsigned conns;
    unsigned mismatches;
    unsigned failures;
} term = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: emcp-pqc-terminator --connect ADDR:PORT --cert CERT.pem --key KEY.pem --groups G[:G...]\n"
            "                           [--listen ADDR:PORT] [--expect-group G] [--report FILE]\n"
            "  Test code of the post-quantum TLS profile: a TLS 1.3 server (wolfSSL) on --listen\n"
            "  (default 127.0.0.1:0; the port is printed to stderr as 'listening on ADDR:PORT')\n"
            "  that accepts only the key-exchange groups of --groups (X25519, X25519MLKEM768,\n"
            "  SecP256r1MLKEM768, secp256r1, ML-KEM-768) and relays each connection's plain\n"
            "  bytes to --connect (e.g. a mosquitto broker). One line per handshake on stdout\n"
            "  and in --report: conn, group, version, cipher, handshake_us, rx/tx handshake\n"
            "  bytes, heap_peak (bytes wolfSSL held at most during the handshake).\n"
            "  --expect-group G  close a connection that negotiated another group before it\n"
            "                    reaches --connect; exit 3 then (4 after a failed handshake)\n"
            "                    on SIGTERM, else 0.\n");
}

/* One connection: the client's TLS socket (bytes counted each way) and the
 * plain one to the broker. */
struct conn {
    struct emcp_pqc_tls_io client;
    int broker;
    unsigned id;
};

static void report(const char *line)
{
    emcp_pqc_report(&term.lock, term.report, line);
}

static void count(unsigned *what)
{
    pthread_mutex_lock(&term.lock);
    (*what)++;
    pthread_mutex_unlock(&term.lock);
}

static void *serve(void *arg)
{
    struct conn *c = arg;
    char line[512];
    int one = 1;
    (void)setsockopt(c->client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    emcp_pqc_heap_mark();
    WOLFSSL *ssl = wolfSSL_new(term.ctx);
    if (ssl == NULL) {
        snprintf(line, sizeof line, "terminator: conn=%u handshake=failed rx=0 tx=0 error=setup", c->id);
        report(line);
        count(&term.failures);
        goto out;
    }
    wolfSSL_SetIOReadCtx(ssl, &c->client);
    wolfSSL_SetIOWriteCtx(ssl, &c->client);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ret = wolfSSL_accept(ssl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
    long heap = emcp_pqc_heap_peak();
    if (ret != WOLFSSL_SUCCESS) {
        char err[WOLFSSL_MAX_ERROR_SZ];
        wolfSSL_ERR_error_string_n((unsigned long)wolfSSL_get_error(ssl, ret), err, sizeof err);
        snprintf(line, sizeof line, "terminator: conn=%u handshake=failed rx=%lu tx=%lu error=%s", c->id,
                 c->client.in, c->client.out, err);
        report(line);
        count(&term.failures);
        goto out;
    }
    const char *group = emcp_pqc_group_name(wolfSSL_get_curve_name(ssl));
    bool ok = term.expect == NULL || strcmp(group, term.expect) == 0;
    snprintf(line, sizeof line,
             "terminator: conn=%u group=%s version=%s cipher=%s handshake_us=%ld rx=%lu tx=%lu heap_peak=%ld "
             "expect=%s",
             c->id, group, wolfSSL_get_version(ssl), wolfSSL_get_cipher_name(ssl), us, c->client.in,
             c->client.out, heap, term.expect == NULL ? "-" : ok ? "ok" : "MISMATCH");
    report(line);
    if (!ok) {
        count(&term.mismatches);
        goto out;
    }
    c->broker = socket(AF_INET, SOCK_STREAM, 0);
    if (c->broker < 0 || connect(c->broker, (struct sockaddr *)&term.upstream, sizeof term.upstream) != 0) {
        fprintf(stderr, "emcp-pqc-terminator: conn=%u: connect to the upstream: %s\n", c->id, strerror(errno));
        goto out;
    }
    (void)setsockopt(c->broker, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    emcp_pqc_pump(c->broker, c->client.fd, ssl);
    (void)wolfSSL_shutdown(ssl);
out:
    wolfSSL_free(ssl);
    if (c->broker >= 0) {
        close(c->broker);
    }
    close(c->client.fd);
    free(c);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *listen_at = "127.0.0.1:0", *connect_to = NULL, *cert = NULL, *key = NULL, *groups = NULL,
               *report_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            usage(stderr);
            return 2;
        } else if (strcmp(a, "--listen") == 0) {
            listen_at = v;
        } else if (strcmp(a, "--connect") == 0) {
            connect_to = v;
        } else if (strcmp(a, "--cert") == 0) {
            cert = v;
        } else if (strcmp(a, "--key") == 0) {
            key = v;
        } else if (strcmp(a, "--groups") == 0) {
            groups = v;
        } else if (strcmp(a, "--expect-group") == 0) {
            term.expect = v;
        } else if (strcmp(a, "--report") == 0) {
            report_path = v;
        } else {
            usage(stderr);
            return 2;
        }
    }
    struct sockaddr_in listen_addr;
    int ids[EMCP_PQC_MAX_GROUPS];
    int n_ids =
        groups != NULL ? emcp_pqc_parse_groups(groups, ids, EMCP_PQC_MAX_GROUPS, "emcp-pqc-terminator") : -1;
    if (connect_to == NULL || cert == NULL || key == NULL || n_ids <= 0 ||
        !emcp_pqc_parse_addr(connect_to, &term.upstream) || !emcp_pqc_parse_addr(listen_at, &listen_addr)) {
        usage(stderr);
        return 2;
    }
    if (report_path != NULL && (term.report = fopen(report_path, "a")) == NULL) {
        perror(report_path);
        return 1;
    }
    if (emcp_pqc_heap_install() != 0) {
        fprintf(stderr, "emcp-pqc-terminator: wolfSSL_SetAllocators failed\n");
        return 1;
    }
    wolfSSL_Init();
    term.ctx = wolfSSL_CTX_new(wolfTLSv1_3_server_method());
    if (term.ctx == NULL || wolfSSL_CTX_use_certificate_chain_file(term.ctx, cert) != WOLFSSL_SUCCESS ||
        wolfSSL_CTX_use_PrivateKey_file(term.ctx, key, WOLFSSL_FILETYPE_PEM) != WOLFSSL_SUCCESS ||
        wolfSSL_CTX_check_private_key(term.ctx) != WOLFSSL_SUCCESS) {
        fprintf(stderr, "emcp-pqc-terminator: cannot load %s and %s\n", cert, key);
        return 1;
    }
    if (wolfSSL_CTX_set_groups(term.ctx, ids, n_ids) != WOLFSSL_SUCCESS) {
        fprintf(stderr, "emcp-pqc-terminator: this wolfSSL does not support %s\n", groups);
        return 1;
    }
    wolfSSL_SetIORecv(term.ctx, emcp_pqc_io_recv);
    wolfSSL_SetIOSend(term.ctx, emcp_pqc_io_send);

    int lfd = emcp_pqc_listen(&listen_addr);
    if (lfd < 0) {
        perror("emcp-pqc-terminator: listen");
        return 1;
    }
    emcp_pqc_signals();
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &listen_addr.sin_addr, host, sizeof host);
    fprintf(stderr, "emcp-pqc-terminator: listening on %s:%u, TLS 1.3 with %s, plain to %s\n", host,
            ntohs(listen_addr.sin_port), groups, connect_to);
    fflush(stderr);

    while (!emcp_pqc_stop) {
        int cfd = accept(lfd, NULL, NULL);
        if (cfd < 0) {
            continue;
        }
        struct conn *c = calloc(1, sizeof *c);
        pthread_t t;
        if (c == NULL) {
            close(cfd);
            continue;
        }
        c->client.fd = cfd;
        c->broker = -1;
        pthread_mutex_lock(&term.lock);
        c->id = ++term.conns;
        pthread_mutex_unlock(&term.lock);
        if (pthread_create(&t, NULL, serve, c) != 0) {
            close(cfd);
            free(c);
            continue;
        }
        pthread_detach(t);
    }
    close(lfd);
    pthread_mutex_lock(&term.lock);
    int rc = term.expect == NULL ? 0 : term.mismatches > 0 ? 3 : term.failures > 0 ? 4 : 0;
    fprintf(stderr, "emcp-pqc-terminator: %u connections, %u of another group, %u failed handshakes\n",
            term.conns, term.mismatches, term.failures);
    pthread_mutex_unlock(&term.lock);
    /* Connection threads still running end with the process (test code). */
    return rc;
}
