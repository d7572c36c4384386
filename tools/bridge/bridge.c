/*
 * emcp-bridge: the stdio MCP server a host starts for a board. It forwards
 * newline-delimited JSON-RPC between the host (stdin/stdout) and a device
 * on a serial port or a TCP socket:
 *
 *   emcp-bridge /dev/ttyACM0 [--baud 115200]
 *   emcp-bridge tcp:HOST:PORT
 *
 * The device may reset at any time. The bridge reopens it with a doubling
 * backoff; every request that was in flight when it went away, and every
 * request that arrives while it stays away longer than --hold-ms, is
 * answered with a JSON-RPC error carrying its id (EMCP_BRIDGE_RPC_GONE), and
 * one the device leaves unanswered past --timeout-ms too
 * (EMCP_BRIDGE_RPC_TIMEOUT). From the device only lines that start with '{'
 * and are one JSON object are forwarded: boot noise and the half line of a
 * reset are dropped (and logged). stdout carries only MCP messages, the log
 * goes to stderr, and the bridge exits when stdin closes.
 *
 * One thread, one poll loop; every buffer is static and bounded, lines are
 * framed by the core's mcp_framer (nothing is allocated per message).
 */
#include "bridge.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge_ids.h"
#include "bridge_json.h"
#include "bridge_link.h"
#include "emcp.h"
#include "emcp_clock.h"

_Static_assert(EMCP_BRIDGE_LINE_MAX + 1 >= MCP_MIN_RESPONSE_CAP, "line buffers hold a core error response");

enum link_state { LINK_DOWN, LINK_CONNECTING, LINK_UP };

static struct {
    struct emcp_bridge_link link;
    const char *device; /* as given, for the log */
    enum link_state state;
    uint64_t next_attempt_ms; /* LINK_DOWN: when to try again */
    uint64_t backoff_ms;
    uint64_t down_since_ms;
    uint64_t up_since_ms;
    bool failing; /* an open attempt failed since the link was last up (logged once) */
    uint64_t timeout_ms;
    uint64_t hold_ms;

    mcp_framer_t host_rx;
    uint8_t host_buf[EMCP_BRIDGE_LINE_MAX + 1];
    const uint8_t *held; /* a host line taken from host_rx, not yet delivered */
    size_t held_len;
    bool host_eof;
    uint64_t drain_until_ms;

    mcp_framer_t dev_rx;
    uint8_t dev_buf[EMCP_BRIDGE_LINE_MAX + 1];
    uint8_t dev_tx[EMCP_BRIDGE_LINE_MAX + 1];
    size_t tx_len;

    struct emcp_bridge_ids ids;
    uint8_t out[EMCP_BRIDGE_LINE_MAX + 1]; /* answers the bridge writes itself */
} b;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    fprintf(stderr, "emcp-bridge: %s\n", line);
}

/* Up to `max` bytes of `s` for a log line, non-printable bytes as \xHH. */
static const char *shown(const uint8_t *s, size_t n, size_t max)
{
    static char buf[4 * 80 + 8];
    size_t at = 0;
    max = max > 80 ? 80 : max;
    for (size_t i = 0; i < n && i < max; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            buf[at++] = (char)c;
        } else {
            at += (size_t)snprintf(buf + at, sizeof buf - at, "\\x%02x", c);
        }
    }
    if (n > max) {
        memcpy(buf + at, "...", 4);
    } else {
        buf[at] = '\0';
    }
    return buf;
}

/* One whole message and its newline on stdout; the host gone ends the bridge. */
static void host_write(const uint8_t *msg, size_t len)
{
    static const uint8_t nl = '\n';
    const uint8_t *parts[2] = {msg, &nl};
    size_t lens[2] = {len, 1};
    for (int i = 0; i < 2; i++) {
        size_t done = 0;
        while (done < lens[i]) {
            ssize_t w = write(STDOUT_FILENO, parts[i] + done, lens[i] - done);
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w <= 0) {
                logf_("cannot write to stdout (%s); stopping", strerror(errno));
                exit(1);
            }
            done += (size_t)w;
        }
    }
}

/* The bridge's own answer to a request the device cannot answer. */
static void answer_error(const uint8_t *id, size_t id_len, int code, const char *message)
{
    int n = snprintf((char *)b.out, sizeof b.out,
                     "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":%d,\"message\":\"%s\"}}",
                     (int)id_len, (const char *)id, code, message);
    if (n > 0 && (size_t)n < sizeof b.out) {
        host_write(b.out, (size_t)n);
    }
}

static void link_up(uint64_t now)
{
    b.state = LINK_UP;
    b.up_since_ms = now;
    b.failing = false;
    (void)mcp_framer_reset(&b.dev_rx);
    /* A newline first: it ends whatever half line the device still holds
     * from before (its framer skips the empty line). */
    b.dev_tx[0] = '\n';
    b.tx_len = 1;
    logf_("connected to %s", b.device);
}

static void link_failed(uint64_t now, int err)
{
    if (!b.failing) {
        logf_("cannot open %s (%s); retrying with backoff up to %d ms", b.device, strerror(-err),
              EMCP_BRIDGE_BACKOFF_MAX_MS);
        b.failing = true;
    }
    b.state = LINK_DOWN;
    b.next_attempt_ms = now + b.backoff_ms;
    b.backoff_ms = b.backoff_ms * 2 > EMCP_BRIDGE_BACKOFF_MAX_MS ? EMCP_BRIDGE_BACKOFF_MAX_MS : b.backoff_ms * 2;
}

/* The device went away: every request it had not answered gets an error now. */
static void link_lost(uint64_t now, const char *why)
{
    emcp_bridge_link_close(&b.link);
    size_t lost = b.ids.count;
    logf_("device link lost (%s); %zu request(s) in flight answered with error %d", why, lost,
          EMCP_BRIDGE_RPC_GONE);
    struct emcp_bridge_id e;
    while (emcp_bridge_ids_pop_due(&b.ids, now, true, &e)) {
        answer_error(e.bytes, e.len, EMCP_BRIDGE_RPC_GONE,
                     "emcp-bridge: the device went away (reset or disconnected) before answering; "
                     "the request may or may not have run");
    }
    (void)mcp_framer_reset(&b.dev_rx);
    b.tx_len = 0;
    b.state = LINK_DOWN;
    b.down_since_ms = now;
    if (now - b.up_since_ms >= EMCP_BRIDGE_BACKOFF_MAX_MS) {
        b.backoff_ms = EMCP_BRIDGE_BACKOFF_MIN_MS; /* it was up a while: a fresh reset */
    }
    b.next_attempt_ms = now + b.backoff_ms;
}

static void try_open(uint64_t now)
{
    int rc = emcp_bridge_link_open(&b.link);
    if (rc == 0) {
        link_up(now);
    } else if (rc == 1) {
        b.state = LINK_CONNECTING;
    } else {
        link_failed(now, rc);
    }
}

/* What a host line is, for the request table. */
enum host_line {
    HOST_REQUEST,   /* answered with its id: tracked */
    HOST_ANONYMOUS, /* no usable id, yet the device answers it (with id null) */
    HOST_SILENT,    /* a notification, or a response to the device: no answer */
};

static enum host_line host_request(const uint8_t *line, size_t len, struct emcp_bridge_msg *m)
{
    int valid = emcp_bridge_json_scan(line, len, m);
    bool no_id = m->id == NULL || emcp_bridge_id_is_null(m->id, m->id_len);
    if (valid == 0) {
        /* One JSON object: with "method" a request (or, without an id, a
         * notification); without, a response to the device, or, with no id
         * at all, an invalid request the device refuses with id null. */
        if (m->has_method) {
            return m->id == NULL ? HOST_SILENT : no_id ? HOST_ANONYMOUS : HOST_REQUEST;
        }
        return m->id == NULL ? HOST_ANONYMOUS : HOST_SILENT;
    }
    /* Not one JSON object: the device answers it, with the id it can find
     * or with null. */
    return no_id ? HOST_ANONYMOUS : HOST_REQUEST;
}

/* Writes a device answer that says id null under the request's own id. */
static void host_write_as(const uint8_t *line, size_t len, const struct emcp_bridge_msg *m,
                          const struct emcp_bridge_id *to)
{
    size_t at = (size_t)(m->id - line);
    size_t rest = len - at - m->id_len;
    if (at + to->len + rest > sizeof b.out) {
        host_write(line, len);
        return;
    }
    memcpy(b.out, line, at);
    memcpy(b.out + at, to->bytes, to->len);
    memcpy(b.out + at + to->len, m->id + m->id_len, rest);
    host_write(b.out, at + to->len + rest);
}

/* Delivers host lines to the device while it can take them. */
static void pump_host(uint64_t now)
{
    for (;;) {
        if (b.held == NULL) {
            const uint8_t *line;
            size_t len;
            int r = mcp_framer_next(&b.host_rx, &line, &len);
            if (r == MCP_FRAME_OVERSIZE) {
                /* `line` is the dropped line's id when its first bytes held one. */
                int n = mcp_framer_oversize_response(line, len, b.out, sizeof b.out);
                if (n > 0) {
                    host_write(b.out, (size_t)n);
                }
                logf_("host line longer than %d bytes answered with -32600 (id %s)", EMCP_BRIDGE_LINE_MAX,
                      line != NULL ? shown(line, len, 40) : "null");
                continue;
            }
            if (r != MCP_FRAME_LINE) {
                return;
            }
            b.held = line;
            b.held_len = len;
        }
        struct emcp_bridge_msg m;
        enum host_line kind = host_request(b.held, b.held_len, &m);
        bool request = kind == HOST_REQUEST;
        if (b.state == LINK_UP) {
            if ((kind != HOST_SILENT && emcp_bridge_ids_full(&b.ids)) || b.tx_len + b.held_len + 1 > sizeof b.dev_tx) {
                return; /* wait for answers or for the device to take the bytes */
            }
            if (request && emcp_bridge_ids_add(&b.ids, m.id, m.id_len, now + b.timeout_ms) != 0) {
                /* The device refuses an id that long, with id null. */
                logf_("id %s longer than %d bytes: not tracked", shown(m.id, m.id_len, 40), EMCP_BRIDGE_ID_MAX);
                kind = HOST_ANONYMOUS;
            }
            if (kind == HOST_ANONYMOUS) {
                (void)emcp_bridge_ids_add_anonymous(&b.ids, now + b.timeout_ms);
            }
            memcpy(b.dev_tx + b.tx_len, b.held, b.held_len);
            b.tx_len += b.held_len;
            b.dev_tx[b.tx_len++] = '\n';
            b.held = NULL;
            continue;
        }
        if (now < b.down_since_ms + b.hold_ms) {
            return; /* the device may come back in time */
        }
        if (request) {
            answer_error(m.id, m.id_len, EMCP_BRIDGE_RPC_GONE,
                         "emcp-bridge: the device is not connected (reset, unplugged or not started)");
        } else {
            logf_("device not connected: dropped %s", shown(b.held, b.held_len, 60));
        }
        b.held = NULL;
    }
}

/* Routes the complete device lines to the host. */
static void pump_device(void)
{
    for (;;) {
        const uint8_t *line;
        size_t len;
        int r = mcp_framer_next(&b.dev_rx, &line, &len);
        if (r == MCP_FRAME_OVERSIZE) {
            logf_("dropped a device line longer than %d bytes", EMCP_BRIDGE_LINE_MAX);
            continue;
        }
        if (r != MCP_FRAME_LINE) {
            return;
        }
        struct emcp_bridge_msg m;
        if (line[0] != '{' || emcp_bridge_json_scan(line, len, &m) != 0) {
            /* A reset mid-line glues the half line to the next message: keep
             * the message if the line ends with one whole. */
            size_t at = emcp_bridge_last_message_start(line, len);
            if (at == 0 || emcp_bridge_json_scan(line + at, len - at, &m) != 0) {
                logf_("not JSON-RPC, dropped: %s", shown(line, len, 80));
                continue;
            }
            logf_("not JSON-RPC, dropped: %s (a message follows it on the line)", shown(line, at, 80));
            line += at;
            len -= at;
        }
        if (!m.has_method && m.id != NULL && emcp_bridge_id_is_null(m.id, m.id_len)) {
            /* The device answers in order: an answer it could not give an id
             * (a request longer than its receive buffer, a line it could not
             * parse) belongs to the oldest line still waiting. */
            struct emcp_bridge_id oldest;
            if (emcp_bridge_ids_take_oldest(&b.ids, &oldest) && oldest.len > 0) {
                logf_("answer with id null given to id %s, the oldest request in flight",
                      shown(oldest.bytes, oldest.len, 40));
                host_write_as(line, len, &m, &oldest);
                continue;
            }
        } else if (!m.has_method && m.id != NULL && !emcp_bridge_ids_take(&b.ids, m.id, m.id_len)) {
            if (emcp_bridge_ids_was_answered(&b.ids, m.id, m.id_len)) {
                logf_("late answer to id %s dropped (already answered by the bridge)", shown(m.id, m.id_len, 40));
                continue;
            }
            logf_("answer to id %s, which is not in flight", shown(m.id, m.id_len, 40));
        }
        host_write(line, len);
    }
}

static void device_read(uint64_t now)
{
    for (;;) {
        uint8_t *space;
        int room = mcp_framer_space(&b.dev_rx, &space);
        if (room <= 0) {
            pump_device();
            continue;
        }
        ssize_t n = read(b.link.fd, space, (size_t)room);
        if (n > 0) {
            (void)mcp_framer_commit(&b.dev_rx, (size_t)n);
            pump_device();
            if (n < room) {
                return;
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return;
        }
        link_lost(now, n == 0 ? "end of stream" : strerror(errno));
        return;
    }
}

static void device_write(uint64_t now)
{
    ssize_t w = write(b.link.fd, b.dev_tx, b.tx_len);
    if (w < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            link_lost(now, strerror(errno));
        }
        return;
    }
    memmove(b.dev_tx, b.dev_tx + w, b.tx_len - (size_t)w);
    b.tx_len -= (size_t)w;
}

static void host_read(uint64_t now)
{
    uint8_t *space;
    int room = mcp_framer_space(&b.host_rx, &space);
    if (room <= 0) {
        return;
    }
    ssize_t n = read(STDIN_FILENO, space, (size_t)room);
    if (n > 0) {
        (void)mcp_framer_commit(&b.host_rx, (size_t)n);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        b.host_eof = true;
        b.drain_until_ms = now + EMCP_BRIDGE_DRAIN_MS;
    }
}

static void expire(uint64_t now)
{
    struct emcp_bridge_id e;
    while (emcp_bridge_ids_pop_due(&b.ids, now, false, &e)) {
        logf_("id %s: no answer within %llu ms", shown(e.bytes, e.len, 40), (unsigned long long)b.timeout_ms);
        answer_error(e.bytes, e.len, EMCP_BRIDGE_RPC_TIMEOUT, "emcp-bridge: the device did not answer in time");
    }
}

static uint64_t min_u64(uint64_t a, uint64_t c)
{
    return a < c ? a : c;
}

static int serve(void)
{
    (void)mcp_framer_init(&b.host_rx, b.host_buf, sizeof b.host_buf);
    (void)mcp_framer_init(&b.dev_rx, b.dev_buf, sizeof b.dev_buf);
    uint64_t now = emcp_monotonic_ms();
    b.backoff_ms = EMCP_BRIDGE_BACKOFF_MIN_MS;
    b.down_since_ms = now;
    try_open(now);
    for (;;) {
        now = emcp_monotonic_ms();
        expire(now);
        if (b.state == LINK_DOWN && now >= b.next_attempt_ms) {
            try_open(now);
        }
        pump_host(now);
        if (b.host_eof && b.held == NULL && (b.ids.count == 0 || now >= b.drain_until_ms)) {
            struct emcp_bridge_id e;
            while (emcp_bridge_ids_pop_due(&b.ids, now, true, &e)) {
                answer_error(e.bytes, e.len, EMCP_BRIDGE_RPC_GONE, "emcp-bridge: stopped before the device answered");
            }
            logf_("stdin closed; exiting");
            return 0;
        }

        struct pollfd fds[2];
        nfds_t nfds = 0;
        int host_at = -1, dev_at = -1;
        if (!b.host_eof && b.held == NULL) {
            fds[nfds] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
            host_at = (int)nfds++;
        }
        if (b.state != LINK_DOWN) {
            short ev = b.state == LINK_CONNECTING ? POLLOUT : (short)(POLLIN | (b.tx_len > 0 ? POLLOUT : 0));
            fds[nfds] = (struct pollfd){.fd = b.link.fd, .events = ev};
            dev_at = (int)nfds++;
        }
        uint64_t wake = min_u64(now + 1000, emcp_bridge_ids_next_deadline(&b.ids));
        if (b.state == LINK_DOWN) {
            wake = min_u64(wake, b.next_attempt_ms);
        }
        if (b.held != NULL && b.state != LINK_UP) {
            wake = min_u64(wake, b.down_since_ms + b.hold_ms);
        }
        if (b.host_eof) {
            wake = min_u64(wake, b.drain_until_ms);
        }
        int timeout = wake > now ? (int)(wake - now) : 0;
        int rc = poll(fds, nfds, timeout);
        if (rc < 0 && errno != EINTR) {
            logf_("poll: %s", strerror(errno));
            return 1;
        }
        now = emcp_monotonic_ms();
        if (rc <= 0) {
            continue;
        }
        if (dev_at >= 0 && fds[dev_at].revents != 0) {
            short re = fds[dev_at].revents;
            if (b.state == LINK_CONNECTING) {
                int fin = emcp_bridge_link_finish(&b.link);
                if (fin == 0) {
                    link_up(now);
                } else {
                    link_failed(now, fin);
                }
            } else {
                if (re & (POLLIN | POLLHUP | POLLERR)) {
                    device_read(now);
                }
                if (b.state == LINK_UP && (re & POLLNVAL)) {
                    link_lost(now, "descriptor invalid");
                }
                if (b.state == LINK_UP && (re & POLLOUT) && b.tx_len > 0) {
                    device_write(now);
                }
            }
        }
        if (host_at >= 0 && fds[host_at].revents != 0) {
            host_read(now);
        }
        if (b.state == LINK_UP && b.tx_len > 0) {
            device_write(now); /* most writes complete at once */
        }
    }
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s DEVICE [--baud N] [--timeout-ms N] [--hold-ms N]\n"
            "  A stdio MCP server for an MCP host that forwards newline-delimited JSON-RPC\n"
            "  to a device running emcp, and reconnects when the device resets.\n"
            "  DEVICE           a serial port (/dev/ttyACM0, /dev/ttyUSB0) or tcp:HOST:PORT\n"
            "  --baud N         serial speed in bits per second (default %d)\n"
            "  --timeout-ms N   answer a request the device leaves unanswered with error %d\n"
            "                   after N ms (default %d)\n"
            "  --hold-ms N      a request that arrives while the device is away waits up to\n"
            "                   N ms for it to come back, then gets error %d (default %d)\n",
            prog, EMCP_BRIDGE_DEFAULT_BAUD, EMCP_BRIDGE_RPC_TIMEOUT, EMCP_BRIDGE_TIMEOUT_MS,
            EMCP_BRIDGE_RPC_GONE, EMCP_BRIDGE_HOLD_MS);
}

static bool number_arg(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    const char *prog = argc > 0 && argv[0] != NULL ? argv[0] : "emcp-bridge";
    const char *device = NULL;
    long baud = EMCP_BRIDGE_DEFAULT_BAUD, timeout = EMCP_BRIDGE_TIMEOUT_MS, hold = EMCP_BRIDGE_HOLD_MS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long *dst = strcmp(a, "--baud") == 0         ? &baud
                    : strcmp(a, "--timeout-ms") == 0 ? &timeout
                    : strcmp(a, "--hold-ms") == 0    ? &hold
                                                     : NULL;
        if (dst != NULL) {
            if (i + 1 >= argc || !number_arg(argv[i + 1], dst == &baud ? 1 : 0, 86400000L, dst)) {
                fprintf(stderr, "%s: %s needs a number\n", prog, a);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
        } else if (a[0] != '-' && device == NULL) {
            device = a;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s'\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
    }
    if (device == NULL) {
        usage(stderr, prog);
        return 2;
    }
    const char *why = NULL;
    if (emcp_bridge_link_parse(&b.link, device, baud, &why) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, device, why);
        return 2;
    }
    b.device = device;
    b.timeout_ms = (uint64_t)timeout;
    b.hold_ms = (uint64_t)hold;
    signal(SIGPIPE, SIG_IGN);
    logf_("bridging stdio to %s", device);
    if (b.link.kind == EMCP_BRIDGE_SERIAL) {
        logf_("serial speed %ld baud, raw 8N1", baud);
    }
    return serve();
}
