/*
 * What the post-quantum profile's test programs share (emcp-pqc-relay,
 * emcp-pqc-terminator, emcp-pqc-dtls): the key-exchange groups by name, an
 * ADDR:PORT parser, and for the two TCP relays the counted socket I/O under
 * wolfSSL, the copy loop between a plain and a TLS socket, the listening
 * socket and the stop signals. Header-only (static functions), like
 * emcp_pqc_heap.h: each program is one translation unit.
 */
#ifndef EMCP_PQC_NET_H
#define EMCP_PQC_NET_H

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define EMCP_PQC_MAX_GROUPS 8

/* Names as the TLS registry spells them, and the registry's code points
 * (kept here, not taken from wolfSSL's enum, so a wrong id in either shows). */
static const struct {
    const char *name;
    int id;
    const char *wolfssl_name; /* what wolfSSL_get_curve_name() says */
} emcp_pqc_groups[] = {
    {"X25519", 29, "X25519"},
    {"secp256r1", 23, "SECP256R1"},
    {"X25519MLKEM768", 4588, "X25519MLKEM768"},
    {"SecP256r1MLKEM768", 4587, "SecP256r1MLKEM768"},
    {"ML-KEM-768", 513, "ML_KEM_768"},
};
#define EMCP_PQC_N_GROUPS (sizeof emcp_pqc_groups / sizeof emcp_pqc_groups[0])

/* The code points of a ":"- or ","-separated list of group names into ids
 * (at most `max`): how many, or -1 after naming the unknown one on stderr
 * (prefixed `who`). */
static inline int emcp_pqc_parse_groups(const char *list, int *ids, int max, const char *who)
{
    int n = 0;
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ":,");
        size_t i = 0;
        while (i < EMCP_PQC_N_GROUPS && !(strlen(emcp_pqc_groups[i].name) == len &&
                                          strncmp(emcp_pqc_groups[i].name, p, len) == 0)) {
            i++;
        }
        if (i == EMCP_PQC_N_GROUPS || n == max) {
            fprintf(stderr, "%s: unknown group '%.*s'\n", who, (int)len, p);
            return -1;
        }
        ids[n++] = emcp_pqc_groups[i].id;
        p += len + (p[len] != '\0');
    }
    return n;
}

/* The registry's name of what wolfSSL_get_curve_name() said ("none" for NULL). */
static inline const char *emcp_pqc_group_name(const char *wolfssl_name)
{
    for (size_t i = 0; wolfssl_name != NULL && i < EMCP_PQC_N_GROUPS; i++) {
        if (strcmp(emcp_pqc_groups[i].wolfssl_name, wolfssl_name) == 0) {
            return emcp_pqc_groups[i].name;
        }
    }
    return wolfssl_name != NULL ? wolfssl_name : "none";
}

/* "ADDR:PORT" (IPv4) into *out. */
static inline bool emcp_pqc_parse_addr(const char *s, struct sockaddr_in *out)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (colon == NULL || (size_t)(colon - s) >= sizeof host) {
        return false;
    }
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    char *end = NULL;
    unsigned long port = strtoul(colon + 1, &end, 10);
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    return *end == '\0' && port <= 65535 && inet_pton(AF_INET, host, &out->sin_addr) == 1;
}

/* The TLS side's socket, as wolfSSL's I/O callbacks see it (set it with
 * wolfSSL_SetIOReadCtx/WriteCtx): the bytes received and sent, and the
 * round trips (the times a receive followed a send). */
struct emcp_pqc_tls_io {
    int fd;
    unsigned long in;
    unsigned long out;
    unsigned round_trips;
    bool sent; /* sent since the last receive */
};

static inline int emcp_pqc_io_recv(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    (void)ssl;
    struct emcp_pqc_tls_io *io = ctx;
    ssize_t n = recv(io->fd, buf, (size_t)sz, 0);
    if (n > 0) {
        io->in += (unsigned long)n;
        io->round_trips += io->sent;
        io->sent = false;
        return (int)n;
    }
    if (n == 0) {
        return WOLFSSL_CBIO_ERR_CONN_CLOSE;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return WOLFSSL_CBIO_ERR_WANT_READ;
    }
    return errno == EINTR ? WOLFSSL_CBIO_ERR_ISR : WOLFSSL_CBIO_ERR_GENERAL;
}

static inline int emcp_pqc_io_send(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    (void)ssl;
    struct emcp_pqc_tls_io *io = ctx;
    ssize_t n = send(io->fd, buf, (size_t)sz, MSG_NOSIGNAL);
    if (n >= 0) {
        io->out += (unsigned long)n;
        io->sent = io->sent || n > 0;
        return (int)n;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return WOLFSSL_CBIO_ERR_WANT_WRITE;
    }
    return errno == EINTR ? WOLFSSL_CBIO_ERR_ISR : WOLFSSL_CBIO_ERR_CONN_RST;
}

static volatile sig_atomic_t emcp_pqc_stop;

static inline void emcp_pqc_on_signal(int sig)
{
    (void)sig;
    emcp_pqc_stop = 1;
}

/* SIGTERM and SIGINT set emcp_pqc_stop (no SA_RESTART: accept() returns
 * EINTR); SIGPIPE is ignored. */
static inline void emcp_pqc_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = emcp_pqc_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* A listening TCP socket on *addr (port 0: any; *addr then has the port
 * given), or -1. */
static inline int emcp_pqc_listen(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    socklen_t alen = sizeof *addr;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)addr, sizeof *addr) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)addr, &alen) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/* One line on stdout and, when `also` is set, there too (appended), under
 * `lock`. */
static inline void emcp_pqc_report(pthread_mutex_t *lock, FILE *also, const char *line)
{
    pthread_mutex_lock(lock);
    printf("%s\n", line);
    fflush(stdout);
    if (also != NULL) {
        fprintf(also, "%s\n", line);
        fflush(also);
    }
    pthread_mutex_unlock(lock);
}

static inline bool emcp_pqc_send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            return false;
        }
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/* wolfSSL's wait on the non-blocking TLS socket: true to try again. */
static inline bool emcp_pqc_again(WOLFSSL *ssl, int ret, int fd)
{
    int err = wolfSSL_get_error(ssl, ret);
    if (err != WOLFSSL_ERROR_WANT_READ && err != WOLFSSL_ERROR_WANT_WRITE) {
        return false;
    }
    struct pollfd p = {fd, err == WOLFSSL_ERROR_WANT_READ ? POLLIN : POLLOUT, 0};
    return poll(&p, 1, 1000) >= 0 || errno == EINTR;
}

/* Copies both ways between the plain socket and the TLS connection (on
 * socket tls_fd) until either side ends or emcp_pqc_stop is set. The TLS
 * socket is made non-blocking: a read that finds only a record without
 * application data (a NewSessionTicket) returns instead of waiting while
 * the other side has bytes to send. */
static inline void emcp_pqc_pump(int plain, int tls_fd, WOLFSSL *ssl)
{
    char data[1 << 14];
    int flags = fcntl(tls_fd, F_GETFL);
    if (flags < 0 || fcntl(tls_fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        return;
    }
    while (!emcp_pqc_stop) {
        struct pollfd pfd[2] = {{plain, POLLIN, 0}, {tls_fd, POLLIN, 0}};
        if (wolfSSL_pending(ssl) == 0 && poll(pfd, 2, 1000) < 0 && errno != EINTR) {
            return;
        }
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(plain, data, sizeof data, 0);
            if (n <= 0) {
                return;
            }
            for (ssize_t off = 0; off < n && !emcp_pqc_stop;) {
                int w = wolfSSL_write(ssl, data + off, (int)(n - off));
                if (w > 0) {
                    off += w;
                } else if (!emcp_pqc_again(ssl, w, tls_fd)) {
                    return; /* after WANT_*, the same bytes are written again */
                }
            }
        }
        if (wolfSSL_pending(ssl) > 0 || (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            int n = wolfSSL_read(ssl, data, (int)sizeof data);
            if (n > 0) {
                if (!emcp_pqc_send_all(plain, data, (size_t)n)) {
                    return;
                }
            } else if (wolfSSL_get_error(ssl, n) != WOLFSSL_ERROR_WANT_READ) {
                return;
            }
        }
    }
}

#endif /* EMCP_PQC_NET_H */
