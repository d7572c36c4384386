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

/* Input goes in blocks: where POSIX provides read(), whatever the input
 * descriptor holds (one request, or a client's whole pipelined burst) is read
 * straight into the framer's free space with one system call, every complete
 * line in it is answered, and the answers leave in one write before the loop
 * waits for more. A stream without a descriptor (fmemopen, a C library
 * without POSIX) is read a byte at a time up to each newline instead; where
 * POSIX provides them, with the stream locked once and getc_unlocked (plain
 * getc takes and releases the lock for every byte). */
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
#include <errno.h>
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

/* Writes bytes that end in their newline(s); they leave with the next
 * flush_out(), before the loop waits for input. */
static int write_lines(FILE *out, FILE *log, const void *msg, size_t len)
{
    if (fwrite(msg, 1, len, out) != len) {
        if (log != NULL) {
            fprintf(log, "emcp_stdio: cannot write a response; stopping\n");
        }
        return -MCP_EIO;
    }
    return 0;
}

/* The emit hook: a notification (progress, log) goes out as its own line
 * before the response, as MCP's stdio framing says. */
static int emit_line(void *transport_context, const uint8_t *msg, size_t len)
{
    FILE *out = (FILE *)transport_context;
    if (fwrite(msg, 1, len, out) != len || putc('\n', out) == EOF || fflush(out) != 0) {
        return -MCP_EIO;
    }
    return 0;
}

/* The serve loop's state across messages. */
struct stdio_session {
    mcp_server_t *server;
    FILE *out;
    FILE *log;
    /* MCP_CTX_LEGACY_* flags of what the client declared at initialize. */
    uint32_t client_caps;
};

/* Sends what was written since the loop last waited: the log first, so a
 * call's audit line is out before its answer, then the answers, one write
 * for a whole block of pipelined requests. */
static int flush_out(const struct stdio_session *s)
{
    if (s->log != NULL) {
        (void)fflush(s->log);
    }
    if (fflush(s->out) != 0) {
        if (s->log != NULL) {
            fprintf(s->log, "emcp_stdio: cannot write a response; stopping\n");
        }
        return -MCP_EIO;
    }
    return 0;
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
        ctx.transport_context = s->out;
        ctx.listener = free_listener();
        ctx.flags = s->client_caps;
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
        int rc = write_lines(s->out, s->log, response_buf, (size_t)n);
        if (rc < 0) {
            return rc;
        }
    }
}

/* The serve loop proper; the caller holds the input stream's lock. Bytes go
 * straight into the framer's free space, and every complete line is answered
 * (and the answers sent) before the loop waits for more input. */
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
        int rc = flush_out(s);
        if (rc < 0) {
            return rc;
        }
        bool eof = false;
        int n = read_some(in, fd, space, room, &eof);
        if (n < 0) {
            if (s->log != NULL) {
                fprintf(s->log, "emcp_stdio: read error on input; stopping\n");
            }
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
            int frc = flush_out(s);
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
    struct stdio_session s = {server, out, log, 0};
    STDIO_LOCK(in);
    rc = serve_locked(&s, in);
    STDIO_UNLOCK(in);
    end_listeners(server);
    return rc;
}
