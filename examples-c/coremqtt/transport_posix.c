/*
 * coreMQTT's transport interface over POSIX TCP sockets (plain TCP; TLS
 * would wrap these two functions). recv waits at most
 * EMCP_CORE_POSIX_RECV_WAIT_MS for a byte and returns 0 when none came, which
 * is what MQTT_ProcessLoop() expects; a closed or failed connection is -1.
 */
#include "transport_posix.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int32_t posix_recv(NetworkContext_t *nc, void *buf, size_t len)
{
    struct pollfd p = {.fd = nc->fd, .events = POLLIN};
    int r = poll(&p, 1, EMCP_CORE_POSIX_RECV_WAIT_MS);
    if (r == 0 || (r < 0 && errno == EINTR)) {
        return 0;
    }
    if (r < 0) {
        return -1;
    }
    if (len > INT32_MAX) {
        len = INT32_MAX;
    }
    ssize_t n = recv(nc->fd, buf, len, MSG_DONTWAIT);
    if (n > 0) {
        return (int32_t)n;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return 0;
    }
    return -1; /* 0: the broker closed the connection */
}

static int32_t posix_send(NetworkContext_t *nc, const void *buf, size_t len)
{
    struct pollfd p = {.fd = nc->fd, .events = POLLOUT};
    int r = poll(&p, 1, EMCP_CORE_POSIX_RECV_WAIT_MS);
    if (r == 0 || (r < 0 && errno == EINTR)) {
        return 0;
    }
    if (r < 0) {
        return -1;
    }
    if (len > INT32_MAX) {
        len = INT32_MAX;
    }
    ssize_t n = send(nc->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
        return (int32_t)n;
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
}

int emcp_core_posix_connect(void *user, TransportInterface_t *transport)
{
    NetworkContext_t *nc = user;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char port[8];
    snprintf(port, sizeof port, "%d", nc->port);
    if (getaddrinfo(nc->host, port, &hints, &res) != 0) {
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        return -1;
    }
    /* A reply and the PUBACK of its request are two small writes; with Nagle
     * the second waits for the broker's delayed ACK (~40 ms). */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    nc->fd = fd;
    transport->pNetworkContext = nc;
    transport->recv = posix_recv;
    transport->send = posix_send;
    transport->writev = NULL;
    return 0;
}

void emcp_core_posix_disconnect(void *user)
{
    NetworkContext_t *nc = user;
    if (nc->fd >= 0) {
        close(nc->fd);
        nc->fd = -1;
    }
}
