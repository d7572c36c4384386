/*
 * The MCP stdio binding: newline-delimited JSON-RPC on two FILE streams.
 * Portable C11 plus clock_gettime(CLOCK_MONOTONIC) where POSIX provides it;
 * no allocation.
 */

#include "emcp_stdio.h"

#include "emcp_clock.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

_Static_assert(EMCP_STDIO_LINE_MAX > 0, "EMCP_STDIO_LINE_MAX must be positive");
_Static_assert(EMCP_STDIO_RESPONSE_MAX >= MCP_MIN_RESPONSE_CAP,
               "EMCP_STDIO_RESPONSE_MAX must be at least MCP_MIN_RESPONSE_CAP");

_Static_assert(EMCP_STDIO_OUT_BLOCK >= EMCP_STDIO_RESPONSE_MAX + 1,
               "EMCP_STDIO_OUT_BLOCK must hold one response and its newline");

/* Input goes in blocks: where POSIX provides read(), whatever the input
 * descriptor holds (one request, or a client's whole pipelined burst) is read
 * straight into the framer's free space with one system call and every
 * complete line in it is answered. The answers gather in the output block,
 * which leaves in one write when it is full or when no more input is waiting
 * (poll() with no timeout), so never while the loop waits for input. A
 * stream without a descriptor (fmemopen, a C library without POSIX) is read
 * a byte at a time up to each newline instead, and its answers leave after
 * each line; where POSIX provides them, with the stream locked once and
 * getc_unlocked (plain getc takes and releases the lock for every byte). */
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#define STDIO_BLOCKS 1
#define STDIO_GETC(f) getc_unlocked(f)
#define STDIO_LOCK(f) flockfile(f)
#define STDIO_UNLOCK(f) funlockfile(f)
#elif defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199506L
#define STDIO_BLOCKS 0
#define STDIO_GETC(f) getc_unlocked(f)
#define STDIO_LOCK(f) flockfile(f)
#define STDIO_UNLOCK(f) funlockfile(f)
#else
#define STDIO_BLOCKS 0
#define STDIO_GETC(f) getc(f)
#define STDIO_LOCK(f) ((void)(f))
#define STDIO_UNLOCK(f) ((void)(f))
#endif

/* Static rather than on the stack: a UART task's stack is usually far smaller
 * than these buffers. Hence one serve loop at a time. The receive buffer
 * holds a line of EMCP_STDIO_LINE_MAX bytes and its "\n"; the response
 * buffer a response and its "\n". */
static uint8_t line_buf[EMCP_STDIO_LINE_MAX + 1];
static uint8_t response_buf[EMCP_STDIO_RESPONSE_MAX + 1];
static mcp_framer_t framer;

/* Answers (and notifications) not sent yet, in the order they were made. */
static uint8_t out_block[EMCP_STDIO_OUT_BLOCK];
static size_t out_used;

#if EMCP_STDIO_ROUNDTRIP_MAX > 0
/* A legacy call waiting for the client's answers to our requests. */
static mcp_roundtrip_t roundtrip;
static uint8_t roundtrip_buf[EMCP_STDIO_ROUNDTRIP_MAX];
#endif

static const char principal_local[] = "local";
static const char *principal = principal_local;

void emcp_stdio_set_principal(const char *p)
{
    principal = (p != NULL && p[0] != '\0') ? p : principal_local;
}

/* mcp_request_ctx_t.flags the program adds to every request. */
static uint32_t extra_flags;

void emcp_stdio_set_ctx_flags(uint32_t flags)
{
    extra_flags = flags;
}

/* Repeated idempotency keys of this stream (one loop, so one table). */
static mcp_dedup_t dedup;

/* Open subscriptions/listen streams: on stdio they share the one output, and
 * each is told apart by its subscription id. */
static mcp_listener_t listeners[EMCP_STDIO_MAX_LISTENERS];

/* Storage for a stream the next message may open, or NULL when all are in use
 * (a listen request is then answered with -32601). */
static mcp_listener_t *free_listener(void)
{
    for (size_t i = 0; i < EMCP_STDIO_MAX_LISTENERS; i++) {
        if (!mcp_listener_active(&listeners[i])) {
            return &listeners[i];
        }
    }
    return NULL;
}

/* End of input: every open stream ends with it (nothing more can be sent). */
static void end_listeners(mcp_server_t *server)
{
    for (size_t i = 0; i < EMCP_STDIO_MAX_LISTENERS; i++) {
        (void)mcp_server_listen_end(server, &listeners[i], NULL, 0);
    }
}

/* The serve loop's state across messages. */
struct stdio_session {
    mcp_server_t *server;
    FILE *out;
    FILE *log;
    /* @p out's descriptor, or -1: the output block is then written with
     * fwrite and fflush. */
    int out_fd;
    /* MCP_CTX_LEGACY_* flags of what the client declared at initialize. */
    uint32_t client_caps;
};

/* Writes all of `len` bytes to `fd`. @return 0, or -1 on an error. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
#if STDIO_BLOCKS
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
#else
    (void)fd;
    (void)p;
    (void)len;
    return -1;
#endif
}

/* Sends what was made since the last send: the log first, so a call's audit
 * line is out before its answer, then the output block in one write (after
 * anything the caller left in @p out's own buffer). */
static int send_block(struct stdio_session *s)
{
    if (s->log != NULL) {
        (void)fflush(s->log);
    }
    int rc = fflush(s->out) == 0 ? 0 : -1;
    if (rc == 0 && out_used > 0) {
        if (s->out_fd >= 0) {
            rc = write_all(s->out_fd, out_block, out_used);
        } else if (fwrite(out_block, 1, out_used, s->out) != out_used || fflush(s->out) != 0) {
            rc = -1;
        }
    }
    out_used = 0;
    if (rc != 0) {
        if (s->log != NULL) {
            fprintf(s->log, "emcp_stdio: cannot write a response; stopping\n");
            (void)fflush(s->log);
        }
        return -MCP_EIO;
    }
    return 0;
}

/* Queues bytes that end in their newline(s) (at most EMCP_STDIO_OUT_BLOCK);
 * a full block is sent first. */
static int queue_lines(struct stdio_session *s, const void *msg, size_t len)
{
    if (len > sizeof out_block - out_used) {
        int rc = send_block(s);
        if (rc < 0) {
            return rc;
        }
    }
    memcpy(out_block + out_used, msg, len);
    out_used += len;
    return 0;
}

/* The emit hook: a notification (progress, log) goes out as its own line,
 * after the answers before it and before the response, as MCP's stdio framing
 * says, and at once: a client follows a long call's progress while it runs. */
static int emit_line(void *transport_context, const uint8_t *msg, size_t len)
{
    struct stdio_session *s = (struct stdio_session *)transport_context;
    if (len < sizeof out_block) {
        if (len + 1 > sizeof out_block - out_used && send_block(s) < 0) {
            return -MCP_EIO;
        }
        memcpy(out_block + out_used, msg, len);
        out_block[out_used + len] = '\n';
        out_used += len + 1;
        return send_block(s) < 0 ? -MCP_EIO : 0;
    }
    if (send_block(s) < 0 || fwrite(msg, 1, len, s->out) != len || putc('\n', s->out) == EOF ||
        fflush(s->out) != 0) {
        return -MCP_EIO;
    }
    return 0;
}

/* Whether the input has bytes waiting, so that reading it would not block:
 * the output block then stays to gather more answers. False for a stream
 * without a descriptor, or when poll() cannot tell. */
static bool input_waiting(int fd)
{
#if STDIO_BLOCKS
    if (fd < 0) {
        return false;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    int r;
    do {
        r = poll(&p, 1, 0);
    } while (r < 0 && errno == EINTR);
    return r == 1 && (p.revents & (POLLIN | POLLHUP)) != 0 && (p.revents & (POLLERR | POLLNVAL)) == 0;
#else
    (void)fd;
    return false;
#endif
}

/* Reads what the input has, at most `room` bytes, into `space`: a block
 * from the descriptor `fd` when there is one, else bytes up to a newline.
 * Sets *eof at end of input. @return the count, or -MCP_EIO. */
static int read_some(FILE *in, int fd, uint8_t *space, int room, bool *eof)
{
    *eof = false;
#if STDIO_BLOCKS
    if (fd >= 0) {
        ssize_t r;
        do {
            r = read(fd, space, (size_t)room);
        } while (r < 0 && errno == EINTR);
        if (r < 0) {
            return -MCP_EIO;
        }
        *eof = r == 0;
        return (int)r;
    }
#else
    (void)fd;
#endif
    int n = 0;
    while (n < room) {
        int c = STDIO_GETC(in);
        if (c == EOF) {
            *eof = true;
            return ferror(in) ? -MCP_EIO : n;
        }
        space[n++] = (uint8_t)c;
        if (c == '\n') {
            break;
        }
    }
    return n;
}

/* Answers every complete message in the receive buffer. */
static int drain(struct stdio_session *s)
{
    for (;;) {
        mcp_request_ctx_t ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.principal.ptr = principal;
        ctx.principal.len = strlen(principal);
        ctx.now_ms = emcp_monotonic_ms();
        ctx.dedup = &dedup;
        ctx.emit = emit_line;
        ctx.transport_context = s;
        ctx.listener = free_listener();
        ctx.flags = s->client_caps | extra_flags;
#if EMCP_STDIO_ROUNDTRIP_MAX > 0
        if (mcp_roundtrip_waiting(&roundtrip) >= 0) {
            ctx.roundtrip = &roundtrip;
        }
#endif
        mcp_response_info_t info;
        memset(&info, 0, sizeof info);
        /* A listen acknowledgement is written like a response; its stream
         * then stays open on this output (list changes arrive through
         * emit_line). A legacy call asking for input is answered with our
         * requests to the client; its answer follows theirs. */
        int n = mcp_framer_poll(&framer, s->server, &ctx, response_buf, sizeof response_buf,
                                &info);
        if (n == -MCP_EAGAIN) {
            return 0;
        }
        if (n < 0) {
            if (s->log != NULL) {
                fprintf(s->log, "emcp_stdio: mcp_framer_poll failed (%d); message dropped\n", n);
            }
            continue;
        }
        if (info.rpc_error == 0 && (info.flags & MCP_RESPONSE_CLIENT_CAPS) != 0) {
            s->client_caps = info.flags & MCP_RESPONSE_CLIENT_CAPS; /* initialize */
        }
        if (n == 0) {
            continue; /* a notification, or a client's answer: no response */
        }
        int rc = queue_lines(s, response_buf, (size_t)n);
        if (rc < 0) {
            return rc;
        }
    }
}

/* The serve loop proper; the caller holds the input stream's lock. Bytes go
 * straight into the framer's free space, every complete line is answered,
 * and the answers are sent before the loop waits for more input. */
static int serve_locked(struct stdio_session *s, FILE *in)
{
#if STDIO_BLOCKS
    int fd = fileno(in);
#else
    int fd = -1;
#endif
    for (;;) {
        uint8_t *space = NULL;
        int room = mcp_framer_space(&framer, &space);
        if (room <= 0) {
            return -MCP_EIO; /* cannot happen: drain() took every message */
        }
        int rc = 0;
        if (!input_waiting(fd)) {
            rc = send_block(s);
            if (rc < 0) {
                return rc;
            }
        }
        bool eof = false;
        int n = read_some(in, fd, space, room, &eof);
        if (n < 0) {
            if (s->log != NULL) {
                fprintf(s->log, "emcp_stdio: read error on input; stopping\n");
            }
            (void)send_block(s); /* the answers to what was read before */
            return n;
        }
        (void)mcp_framer_commit(&framer, (size_t)n);
        if (eof) {
            /* A last line without its newline is still a message. */
            if (mcp_framer_space(&framer, &space) > 0) {
                space[0] = '\n';
                (void)mcp_framer_commit(&framer, 1);
            }
            rc = drain(s);
            int frc = send_block(s);
            return rc < 0 ? rc : frc;
        }
        rc = drain(s);
        if (rc < 0) {
            return rc;
        }
    }
}

int emcp_stdio_serve(mcp_server_t *server, FILE *in, FILE *out, FILE *log)
{
    return emcp_stdio_serve_store(server, in, out, log, NULL);
}

int emcp_stdio_serve_store(mcp_server_t *server, FILE *in, FILE *out, FILE *log,
                           const mcp_store_t *store)
{
    if (server == NULL || in == NULL || out == NULL) {
        return -MCP_EINVAL;
    }

    int rc = mcp_framer_init(&framer, line_buf, sizeof line_buf);
    if (rc < 0) {
        return rc;
    }
    mcp_dedup_init(&dedup);
    if (store != NULL) {
        int kept = mcp_dedup_set_store(&dedup, store, emcp_monotonic_ms());
        if (kept < 0) {
            if (log != NULL) {
                fprintf(log, "emcp_stdio: cannot read the durable store (%d)\n", kept);
            }
            return kept;
        }
        if (log != NULL) {
            fprintf(log, "emcp_stdio: %d idempotency records restored\n", kept);
        }
    }
#if EMCP_STDIO_ROUNDTRIP_MAX > 0
    /* Fails soft in a build without the legacy era: no round trips then. */
    (void)mcp_roundtrip_init(&roundtrip, roundtrip_buf, sizeof roundtrip_buf, 1);
#endif
    out_used = 0;
#if STDIO_BLOCKS
    int out_fd = fileno(out);
#else
    int out_fd = -1;
#endif
    struct stdio_session s = {server, out, log, out_fd, 0};
    STDIO_LOCK(in);
    rc = serve_locked(&s, in);
    STDIO_UNLOCK(in);
    end_listeners(server);
    return rc;
}
