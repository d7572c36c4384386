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

/* Bytes are read one at a time (the line ending decides everything). Where
 * POSIX provides them, the serve loop locks the input stream once and reads
 * with getc_unlocked: plain getc takes and releases the stream's lock for
 * every byte, which cost about as much as a third of the core's work on a
 * request line. */
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199506L
#define STDIO_GETC(f) getc_unlocked(f)
#define STDIO_LOCK(f) flockfile(f)
#define STDIO_UNLOCK(f) funlockfile(f)
#else
#define STDIO_GETC(f) getc(f)
#define STDIO_LOCK(f) ((void)(f))
#define STDIO_UNLOCK(f) ((void)(f))
#endif

/* Static rather than on the stack: a UART task's stack is usually far smaller
 * than these buffers. Hence one serve loop at a time. */
static uint8_t line_buf[EMCP_STDIO_LINE_MAX];
static uint8_t response_buf[EMCP_STDIO_RESPONSE_MAX];

/* The answer to a line that did not fit: its id is unknown, hence null. */
static const char overlong_response[] =
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
    "\"message\":\"Request exceeds EMCP_STDIO_LINE_MAX\"}}";

static const char principal_local[] = "local";

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

/* Writes one message and its newline, and flushes. */
static int write_message(FILE *out, FILE *log, const void *msg, size_t len)
{
    if (fwrite(msg, 1, len, out) != len || putc('\n', out) == EOF || fflush(out) != 0) {
        if (log != NULL) {
            fprintf(log, "emcp_stdio: cannot write a response; stopping\n");
        }
        return -EMCP_STDIO_EIO;
    }
    return 0;
}

/* The emit hook: a notification (progress, log) goes out as its own line
 * before the response, as MCP's stdio framing says. */
static int emit_line(void *transport_context, const uint8_t *msg, size_t len)
{
    return write_message((FILE *)transport_context, NULL, msg, len);
}

/* Handles one complete line (line ending already removed). */
static int handle_line(mcp_server_t *server, FILE *out, FILE *log, size_t len)
{
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal.ptr = principal_local;
    ctx.principal.len = sizeof principal_local - 1;
    ctx.now_ms = emcp_monotonic_ms();
    ctx.dedup = &dedup;
    ctx.emit = emit_line;
    ctx.transport_context = out;
    ctx.listener = free_listener();

    /* A listen acknowledgement is written like a response; its stream then
     * stays open on this output (list changes arrive through emit_line). */
    int n = mcp_server_handle(server, &ctx, line_buf, len, response_buf, sizeof response_buf,
                              NULL);
    if (n < 0) {
        if (log != NULL) {
            fprintf(log, "emcp_stdio: mcp_server_handle failed (%d); message dropped\n", n);
        }
        return 0;
    }
    if (n == 0) {
        return 0; /* a notification: no response */
    }
    return write_message(out, log, response_buf, (size_t)n);
}

/* The line being read. */
struct line_state {
    size_t len;      /* bytes stored in line_buf */
    bool pending_cr; /* a "\r" was read but not stored yet: it may end the line */
    bool overlong;   /* the line did not fit; discarding up to its newline */
};

/* Appends one byte to the current line, or starts discarding it. */
static void line_append(struct line_state *st, FILE *log, uint8_t byte)
{
    if (st->overlong) {
        return;
    }
    if (st->len < sizeof line_buf) {
        line_buf[st->len++] = byte;
        return;
    }
    st->overlong = true;
    if (log != NULL) {
        fprintf(log, "emcp_stdio: discarding a message longer than EMCP_STDIO_LINE_MAX (%lu bytes)\n",
                (unsigned long)sizeof line_buf);
    }
}

/* The serve loop proper; the caller holds the input stream's lock. */
static int serve_locked(mcp_server_t *server, FILE *in, FILE *out, FILE *log)
{
    struct line_state st = {0, false, false};
    for (;;) {
        int c = STDIO_GETC(in);
        if (c == '\r') {
            /* Held back until the next byte shows whether it ends the line. */
            if (st.pending_cr) {
                line_append(&st, log, '\r');
            }
            st.pending_cr = true;
            continue;
        }
        if (c != EOF && c != '\n') {
            if (st.pending_cr) {
                line_append(&st, log, '\r');
                st.pending_cr = false;
            }
            line_append(&st, log, (uint8_t)c);
            continue;
        }

        if (c == EOF && ferror(in)) {
            if (log != NULL) {
                fprintf(log, "emcp_stdio: read error on input; stopping\n");
            }
            end_listeners(server);
            return -EMCP_STDIO_EIO;
        }
        /* End of line. A pending "\r" is its trailing CR and is dropped. At
         * EOF, a last line without its newline is still a message. */
        int rc = 0;
        if (st.overlong) {
            rc = write_message(out, log, overlong_response, sizeof overlong_response - 1);
        } else if (st.len > 0) {
            rc = handle_line(server, out, log, st.len);
        }
        if (rc < 0) {
            end_listeners(server);
            return rc;
        }
        if (c == EOF) {
            end_listeners(server);
            return 0;
        }
        st = (struct line_state){0, false, false};
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
    STDIO_LOCK(in);
    int rc = serve_locked(server, in, out, log);
    STDIO_UNLOCK(in);
    return rc;
}
