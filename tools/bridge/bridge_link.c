/* emcp-bridge's link to the device (bridge_link.h). */
#define _DEFAULT_SOURCE /* cfmakeraw, CRTSCTS, the Bnnn speeds above 38400 */

#include "bridge_link.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

static const struct {
    long baud;
    speed_t code;
} speeds[] = {
    {1200, B1200},       {2400, B2400},       {4800, B4800},       {9600, B9600},
    {19200, B19200},     {38400, B38400},     {57600, B57600},     {115200, B115200},
    {230400, B230400},   {460800, B460800},   {500000, B500000},   {576000, B576000},
    {921600, B921600},   {1000000, B1000000}, {1500000, B1500000}, {2000000, B2000000},
    {3000000, B3000000}, {4000000, B4000000},
};

static bool speed_code(long baud, speed_t *code)
{
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        if (speeds[i].baud == baud) {
            *code = speeds[i].code;
            return true;
        }
    }
    return false;
}

bool emcp_bridge_baud_ok(long baud)
{
    speed_t code;
    return speed_code(baud, &code);
}

int emcp_bridge_link_parse(struct emcp_bridge_link *l, const char *spec, long baud, const char **why)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->baud = baud;
    if (strncmp(spec, "tcp:", 4) == 0) {
        const char *host = spec + 4;
        const char *colon = strrchr(host, ':');
        if (colon == NULL || colon == host || colon[1] == '\0') {
            *why = "expected tcp:HOST:PORT";
            return -1;
        }
        size_t hl = (size_t)(colon - host);
        size_t pl = strlen(colon + 1);
        if (hl >= sizeof l->path || pl >= sizeof l->port || strspn(colon + 1, "0123456789") != pl) {
            *why = "host name too long or port not a number";
            return -1;
        }
        /* [::1]:PORT for IPv6 literals */
        if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
            host++;
            hl -= 2;
        }
        memcpy(l->path, host, hl);
        memcpy(l->port, colon + 1, pl);
        l->kind = EMCP_BRIDGE_TCP;
        return 0;
    }
    if (spec[0] == '\0' || strlen(spec) >= sizeof l->path) {
        *why = "serial device path empty or too long";
        return -1;
    }
    if (!emcp_bridge_baud_ok(baud)) {
        *why = "unsupported baud rate";
        return -1;
    }
    memcpy(l->path, spec, strlen(spec));
    l->kind = EMCP_BRIDGE_SERIAL;
    return 0;
}

/* Raw 8N1: bytes pass unchanged both ways (no echo, no CR/LF mapping, no
 * signals, no software or hardware flow control), reads never wait. */
static int serial_open(struct emcp_bridge_link *l)
{
    errno = 0;
    int fd = open(l->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    struct termios t;
    speed_t code = B115200;
    if (!speed_code(l->baud, &code) || tcgetattr(fd, &t) != 0) {
        int e = errno != 0 ? errno : EINVAL; /* the speed was checked by emcp_bridge_link_parse */
        close(fd);
        return -e;
    }
    /* Bytes the port received before this open (a previous session's
     * answers still in the driver's buffer) belong to nobody now: dropped
     * before the new settings, so nothing sent after them is lost. */
    (void)tcflush(fd, TCIFLUSH);
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, code) != 0 || cfsetospeed(&t, code) != 0 || tcsetattr(fd, TCSANOW, &t) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    l->fd = fd;
    return 0;
}

static int tcp_open(struct emcp_bridge_link *l)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(l->path, l->port, &hints, &res);
    if (g != 0 || res == NULL) {
        return -EHOSTUNREACH;
    }
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) {
        int e = errno;
        freeaddrinfo(res);
        return -e;
    }
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = connect(fd, res->ai_addr, res->ai_addrlen);
    int e = errno;
    freeaddrinfo(res);
    l->fd = fd;
    if (rc == 0) {
        return 0;
    }
    if (e == EINPROGRESS) {
        return 1;
    }
    emcp_bridge_link_close(l);
    return -e;
}

int emcp_bridge_link_open(struct emcp_bridge_link *l)
{
    emcp_bridge_link_close(l);
    return l->kind == EMCP_BRIDGE_TCP ? tcp_open(l) : serial_open(l);
}

int emcp_bridge_link_finish(struct emcp_bridge_link *l)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
    }
    if (err != 0) {
        emcp_bridge_link_close(l);
        return -err;
    }
    return 0;
}

void emcp_bridge_link_close(struct emcp_bridge_link *l)
{
    if (l->fd >= 0) {
        close(l->fd);
        l->fd = -1;
    }
}
