/*
 * emcp-pqc-relay: test code of the post-quantum TLS profile (issue 39). A
 * loopback TLS client on wolfSSL that lets a client without ML-KEM (the MCP
 * Python SDK on this machine's OpenSSL 3.0) reach greenhouse-http over TLS
 * 1.3 with the key-exchange group asked for:
 *
 *   SDK --plain HTTP--> 127.0.0.1:LISTEN  relay  --TLS 1.3, --groups--> server
 *
 * Every accepted connection gets its own TLS connection upstream, which
 * offers exactly the groups of --groups (the first one with a key share),
 * verifies the server's certificate against --ca and its name against
 * --server-name, and after the handshake writes one line to stdout (and to
 * --report, appended):
 *
 *   relay: conn=N group=X25519MLKEM768 version=TLSv1.3 cipher=... handshake_us=...
 *          tx=BYTES rx=BYTES round_trips=N heap_peak=BYTES expect=ok
 *   relay: conn=N handshake=failed tx=BYTES rx=BYTES error=REASON
 *
 * tx/rx are the bytes of the handshake sent to and received from the server
 * (TCP payload, records included) until the client's handshake completes;
 * round_trips counts the times the client waited for the server after
 * sending (1 for a full TLS 1.3 handshake, 2 after a HelloRetryRequest);
 * heap_peak is the most wolfSSL held for the connection during the
 * handshake (emcp_pqc_heap.h).
 * --bench N makes N handshakes and prints their medians (scripts/pqc-report). With --expect-group, a connection that
 * negotiated another group (a server that fell back to X25519) is closed
 * before any request goes through ("expect=MISMATCH"), and a failed
 * handshake is reported as "handshake=failed". On SIGTERM or SIGINT the relay
 * exits 0 when every connection negotiated the expected group, 3 when one
 * did not, 4 when a handshake failed (and 0 with no --expect-group).
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
    int groups[EMCP_PQC_MAX_GROUPS];
    int n_groups;
    const char *expect;
    const char *server_name;
    FILE *report;
    pthread_mutex_t lock;
    unsigned conns;
    unsigned mismatches;
    unsigned failures;
} relay = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: emcp-pqc-relay --connect ADDR:PORT --ca CERT.pem --groups G[:G...]\n"
            "                      [--listen ADDR:PORT] [--expect-group G] [--server-name NAME]\n"
            "                      [--report FILE] [--bench N]\n"
            "  Test code of the post-quantum TLS profile: accepts plain HTTP on --listen\n"
            "  (default 127.0.0.1:0; the port is printed to stderr as 'listening on ADDR:PORT')\n"
            "  and relays each connection over TLS 1.3 (wolfSSL) to --connect, offering only\n"
            "  the key-exchange groups of --groups: X25519, X25519MLKEM768, SecP256r1MLKEM768,\n"
            "  secp256r1, ML-KEM-768. The server certificate must chain to --ca and name\n"
            "  --server-name (default localhost). One line per handshake on stdout and in\n"
            "  --report: conn, group, version, cipher, handshake_us, tx/rx handshake bytes,\n"
            "  round trips, heap_peak (bytes wolfSSL held at most during the handshake).\n"
            "  --expect-group G  close a connection that negotiated another group; exit 3 then\n"
            "                    (4 after a failed handshake) on SIGTERM, else 0.\n"
            "  --bench N         listen to nothing: N handshakes in a row (new TCP connection\n"
            "                    each, no resumption), then one line: group= handshakes=\n"
            "                    handshake_median_us= client_to_server_bytes= server_to_client_bytes=\n"
            "                    round_trips= client_heap_peak_bytes= (medians; exit 3 or 4\n"
            "                    as above)\n");
}

/* One connection: the plain client and the TLS socket to the server (bytes
 * and round trips counted: the times the client waited for the server after
 * sending). */
struct conn {
    int client;
    struct emcp_pqc_tls_io server;
    unsigned id;
};

static void report(const char *line)
{
    emcp_pqc_report(&relay.lock, relay.report, line);
}

/* Connects to the upstream and runs the TLS 1.3 handshake offering the
 * configured groups: the WOLFSSL object (group, tx, rx, round trips, *us
 * set), or NULL with the failure's report line in line. */
static WOLFSSL *handshake(struct conn *c, long *us, long *heap, char *line, size_t cap)
{
    int one = 1;
    c->server.fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->server.fd < 0 || connect(c->server.fd, (struct sockaddr *)&relay.upstream, sizeof relay.upstream) != 0) {
        snprintf(line, cap, "relay: conn=%u handshake=failed tx=0 rx=0 error=connect:%s", c->id, strerror(errno));
        return NULL;
    }
    (void)setsockopt(c->server.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    emcp_pqc_heap_mark();
    WOLFSSL *ssl = wolfSSL_new(relay.ctx);
    if (ssl == NULL || wolfSSL_set_groups(ssl, relay.groups, relay.n_groups) != WOLFSSL_SUCCESS ||
        wolfSSL_UseSNI(ssl, WOLFSSL_SNI_HOST_NAME, relay.server_name,
                       (unsigned short)strlen(relay.server_name)) != WOLFSSL_SUCCESS ||
        wolfSSL_check_domain_name(ssl, relay.server_name) != WOLFSSL_SUCCESS) {
        snprintf(line, cap, "relay: conn=%u handshake=failed tx=0 rx=0 error=setup", c->id);
        wolfSSL_free(ssl);
        return NULL;
    }
    wolfSSL_SetIOReadCtx(ssl, &c->server);
    wolfSSL_SetIOWriteCtx(ssl, &c->server);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ret = wolfSSL_connect(ssl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
    *heap = emcp_pqc_heap_peak();
    if (ret != WOLFSSL_SUCCESS) {
        char err[WOLFSSL_MAX_ERROR_SZ];
        wolfSSL_ERR_error_string_n((unsigned long)wolfSSL_get_error(ssl, ret), err, sizeof err);
        snprintf(line, cap, "relay: conn=%u handshake=failed tx=%lu rx=%lu error=%s", c->id, c->server.out,
                 c->server.in, err);
        wolfSSL_free(ssl);
        return NULL;
    }
    return ssl;
}

static void count_failure(void)
{
    pthread_mutex_lock(&relay.lock);
    relay.failures++;
    pthread_mutex_unlock(&relay.lock);
}

static void *serve(void *arg)
{
    struct conn *c = arg;
    char line[512];
    long us = 0, heap = 0;
    int one = 1;
    (void)setsockopt(c->client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    WOLFSSL *ssl = handshake(c, &us, &heap, line, sizeof line);
    if (ssl == NULL) {
        report(line);
        count_failure();
    } else {
        const char *group = emcp_pqc_group_name(wolfSSL_get_curve_name(ssl));
        bool ok = relay.expect == NULL || strcmp(group, relay.expect) == 0;
        snprintf(line, sizeof line,
                 "relay: conn=%u group=%s version=%s cipher=%s handshake_us=%ld tx=%lu rx=%lu round_trips=%u "
                 "heap_peak=%ld expect=%s",
                 c->id, group, wolfSSL_get_version(ssl), wolfSSL_get_cipher_name(ssl), us, c->server.out, c->server.in,
                 c->server.round_trips, heap, relay.expect == NULL ? "-" : ok ? "ok" : "MISMATCH");
        report(line);
        if (ok) {
            emcp_pqc_pump(c->client, c->server.fd, ssl);
            (void)wolfSSL_shutdown(ssl);
        } else {
            pthread_mutex_lock(&relay.lock);
            relay.mismatches++;
            pthread_mutex_unlock(&relay.lock);
        }
        wolfSSL_free(ssl);
    }
    if (c->server.fd >= 0) {
        close(c->server.fd);
    }
    close(c->client);
    free(c);
    return NULL;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static long median(long *v, unsigned n)
{
    qsort(v, n, sizeof v[0], cmp_long);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --bench N: N handshakes one after another (a new TCP connection each, no
 * session resumption), then one key=value line of medians. */
static int bench(unsigned n)
{
    long *us = calloc(n, sizeof *us), *tx = calloc(n, sizeof *tx), *rx = calloc(n, sizeof *rx),
         *rt = calloc(n, sizeof *rt), *heap = calloc(n, sizeof *heap);
    const char *group = "none";
    unsigned done = 0;
    int rc = 0;
    if (us == NULL || tx == NULL || rx == NULL || rt == NULL || heap == NULL) {
        rc = 1;
        goto out;
    }
    for (unsigned i = 0; i < n && !emcp_pqc_stop; i++) {
        struct conn c = {.client = -1, .server = {.fd = -1}, .id = i + 1};
        char line[512];
        WOLFSSL *ssl = handshake(&c, &us[done], &heap[done], line, sizeof line);
        if (ssl == NULL) {
            fprintf(stderr, "%s\n", line);
            rc = 4;
        } else {
            group = emcp_pqc_group_name(wolfSSL_get_curve_name(ssl));
            if (relay.expect != NULL && strcmp(group, relay.expect) != 0) {
                fprintf(stderr, "emcp-pqc-relay: negotiated %s, not %s\n", group, relay.expect);
                rc = 3;
            }
            tx[done] = (long)c.server.out;
            rx[done] = (long)c.server.in;
            rt[done] = c.server.round_trips;
            done++;
            (void)wolfSSL_shutdown(ssl);
            wolfSSL_free(ssl);
        }
        if (c.server.fd >= 0) {
            close(c.server.fd);
        }
        if (rc != 0) {
            break;
        }
    }
    if (done > 0) {
        printf("group=%s handshakes=%u handshake_median_us=%ld client_to_server_bytes=%ld "
               "server_to_client_bytes=%ld round_trips=%ld client_heap_peak_bytes=%ld\n",
               group, done, median(us, done), median(tx, done), median(rx, done), median(rt, done),
               median(heap, done));
    }
out:
    free(us);
    free(tx);
    free(rx);
    free(rt);
    free(heap);
    return rc;
}

int main(int argc, char **argv)
{
    const char *listen_at = "127.0.0.1:0", *connect_to = NULL, *ca = NULL, *groups = NULL,
               *report_path = NULL;
    unsigned long bench_n = 0;
    relay.server_name = "localhost";
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
        } else if (strcmp(a, "--ca") == 0) {
            ca = v;
        } else if (strcmp(a, "--groups") == 0) {
            groups = v;
        } else if (strcmp(a, "--expect-group") == 0) {
            relay.expect = v;
        } else if (strcmp(a, "--server-name") == 0) {
            relay.server_name = v;
        } else if (strcmp(a, "--report") == 0) {
            report_path = v;
        } else if (strcmp(a, "--bench") == 0) {
            char *end = NULL;
            bench_n = strtoul(v, &end, 10);
            if (*end != '\0' || bench_n == 0 || bench_n > 100000) {
                usage(stderr);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    struct sockaddr_in listen_addr;
    if (connect_to == NULL || ca == NULL || groups == NULL || !emcp_pqc_parse_addr(connect_to, &relay.upstream) ||
        !emcp_pqc_parse_addr(listen_at, &listen_addr) ||
        (relay.n_groups = emcp_pqc_parse_groups(groups, relay.groups, EMCP_PQC_MAX_GROUPS, "emcp-pqc-relay")) <= 0) {
        usage(stderr);
        return 2;
    }
    if (report_path != NULL && (relay.report = fopen(report_path, "a")) == NULL) {
        perror(report_path);
        return 1;
    }
    if (emcp_pqc_heap_install() != 0) {
        fprintf(stderr, "emcp-pqc-relay: wolfSSL_SetAllocators failed\n");
        return 1;
    }
    wolfSSL_Init();
    relay.ctx = wolfSSL_CTX_new(wolfTLSv1_3_client_method());
    if (relay.ctx == NULL || wolfSSL_CTX_load_verify_locations(relay.ctx, ca, NULL) != WOLFSSL_SUCCESS) {
        fprintf(stderr, "emcp-pqc-relay: cannot load %s\n", ca);
        return 1;
    }
    wolfSSL_CTX_set_verify(relay.ctx, WOLFSSL_VERIFY_PEER, NULL);
    wolfSSL_SetIORecv(relay.ctx, emcp_pqc_io_recv);
    wolfSSL_SetIOSend(relay.ctx, emcp_pqc_io_send);
    if (bench_n > 0) {
        int rc = bench((unsigned)bench_n);
        wolfSSL_CTX_free(relay.ctx);
        wolfSSL_Cleanup();
        return rc;
    }

    int lfd = emcp_pqc_listen(&listen_addr);
    if (lfd < 0) {
        perror("emcp-pqc-relay: listen");
        return 1;
    }
    emcp_pqc_signals();
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &listen_addr.sin_addr, host, sizeof host);
    fprintf(stderr, "emcp-pqc-relay: listening on %s:%u, TLS 1.3 to %s offering %s\n", host,
            ntohs(listen_addr.sin_port), connect_to, groups);
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
        c->client = cfd;
        c->server.fd = -1;
        pthread_mutex_lock(&relay.lock);
        c->id = ++relay.conns;
        pthread_mutex_unlock(&relay.lock);
        if (pthread_create(&t, NULL, serve, c) != 0) {
            close(cfd);
            free(c);
            continue;
        }
        pthread_detach(t);
    }
    close(lfd);
    pthread_mutex_lock(&relay.lock);
    int rc = relay.expect == NULL ? 0 : relay.mismatches > 0 ? 3 : relay.failures > 0 ? 4 : 0;
    fprintf(stderr, "emcp-pqc-relay: %u connections, %u of another group, %u failed handshakes\n",
            relay.conns, relay.mismatches, relay.failures);
    pthread_mutex_unlock(&relay.lock);
    /* Connection threads still running end with the process (test code). */
    return rc;
}
