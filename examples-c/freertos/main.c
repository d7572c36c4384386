/*
 * The greenhouse gateway on FreeRTOS (POSIX simulator port): one task serves
 * MCP on stdin/stdout, one JSON-RPC message per line, through the core's
 * framer (mcp_framer_t), the way a UART task on a microcontroller would. The
 * task polls stdin without blocking (select with a zero timeout; the port's
 * tick signal would interrupt a blocking read) and sleeps one tick when idle.
 * End of input ends the program, so an MCP client's shutdown is prompt: the
 * task stops the scheduler (freertos_run.h), never exit() from inside it.
 * Audit lines and diagnostics go to stderr.
 *
 *   greenhouse-freertos                          MCP on stdio
 *   greenhouse-freertos --http ADDR:PORT [--token TOKEN]
 *                                                Streamable HTTP at /mcp
 *
 * With --http (built when http_parser is installed) the task serves the
 * portable HTTP binding (bindings/http) instead: each pass is one
 * emcp_http_poll() with a zero timeout, then a one-tick sleep when nothing
 * happened, so other tasks run and the binding never blocks the scheduler.
 * SIGTERM or SIGINT ends it with status 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "FreeRTOS.h"
#include "task.h"

#include "emcp.h"
#include "freertos_run.h"
#include "greenhouse.h"
#ifdef GREENHOUSE_FREERTOS_HTTP
#include "emcp_http.h"
#endif

#define LINE_MAX_BYTES 4096     /* receive buffer: the longest message + 1 */
#define RESPONSE_MAX_BYTES 8192 /* the mcp_server_handle() response buffer */
#define SERVE_STACK_WORDS 16384 /* the serving task's stack */

static mcp_server_t server;
static mcp_framer_t rx;
static mcp_dedup_t dedup;
static uint8_t rx_buf[LINE_MAX_BYTES];
static uint8_t tx_buf[RESPONSE_MAX_BYTES + 1];
static const char principal_local[] = "local";

void vAssertCalled(const char *file, unsigned long line)
{
    fprintf(stderr, "FreeRTOS assertion failed at %s:%lu\n", file, line);
    abort();
}

/* Set when stdout is gone: the serving task then ends the program. */
static bool out_closed;

static int send_all(const uint8_t *p, size_t n)
{
    while (n > 0 && !out_closed) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            fprintf(stderr, "greenhouse-freertos: stdout closed\n");
            out_closed = true;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    return out_closed ? -1 : 0;
}

static int emit_line(void *transport_context, const uint8_t *message, size_t len)
{
    (void)transport_context;
    return send_all(message, len) == 0 && send_all((const uint8_t *)"\n", 1) == 0 ? 0 : -1;
}

/* Bytes waiting on stdin: >0 read, 0 none yet, -1 end of input. */
static ssize_t read_ready(uint8_t *space, size_t room)
{
    fd_set fds;
    struct timeval now = {0, 0};
    FD_ZERO(&fds);
    FD_SET(STDIN_FILENO, &fds);
    if (select(STDIN_FILENO + 1, &fds, NULL, NULL, &now) <= 0) {
        return 0;
    }
    ssize_t n = read(STDIN_FILENO, space, room);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return 0;
    }
    return n == 0 ? -1 : n;
}

static void serve_task(void *arg)
{
    (void)arg;
    for (;;) {
        uint8_t *space;
        int room = mcp_framer_space(&rx, &space);
        ssize_t got = room > 0 ? read_ready(space, (size_t)room) : 0;
        if (got < 0) {
            fprintf(stderr, "greenhouse-freertos: end of input\n");
            freertos_finish(0);
        }
        (void)mcp_framer_commit(&rx, (size_t)got);

        mcp_request_ctx_t ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.principal.ptr = principal_local;
        ctx.principal.len = sizeof principal_local - 1;
        ctx.now_ms = (uint64_t)xTaskGetTickCount() * 1000u / configTICK_RATE_HZ;
        ctx.emit = emit_line;
        ctx.dedup = &dedup;
        int n;
        while ((n = mcp_framer_poll(&rx, &server, &ctx, tx_buf, sizeof tx_buf, NULL)) != -MCP_EAGAIN) {
            if (n < 0) {
                fprintf(stderr, "greenhouse-freertos: mcp_framer_poll: %d\n", n);
                break;
            }
            (void)send_all(tx_buf, (size_t)n);
        }
        if (out_closed) {
            freertos_finish(1);
        }
        if (got == 0) {
            vTaskDelay(1);
        }
    }
}

static void usage(FILE *to)
{
    fprintf(to, "usage: greenhouse-freertos [--http ADDR:PORT [--token TOKEN]]\n"
                "  Serves the greenhouse gateway from a FreeRTOS task (POSIX simulator port): MCP on\n"
                "  stdin/stdout through the core's line framer, or with --http over Streamable HTTP\n"
                "  at http://ADDR:PORT/mcp (builds with http_parser), --token requiring that bearer\n"
                "  token.\n");
}

#ifdef GREENHOUSE_FREERTOS_HTTP
static emcp_http_t http;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static emcp_http_bearer_t bearer;

static void log_line(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "%s\n", line);
}

static void http_task(void *arg)
{
    (void)arg;
    while (!stop) {
        uint64_t before = http.stats.requests + http.stats.timeouts + http.stats.rejected;
        if (emcp_http_poll(&http, 0) != 0) {
            fprintf(stderr, "greenhouse-freertos: emcp_http_poll failed\n");
            emcp_http_close(&http);
            freertos_finish(1);
        }
        if (http.stats.requests + http.stats.timeouts + http.stats.rejected == before) {
            vTaskDelay(1);
        }
    }
    emcp_http_close(&http);
    fprintf(stderr, "greenhouse-freertos: stopped (%llu HTTP requests)\n",
            (unsigned long long)http.stats.requests);
    freertos_finish(0);
}

/* --http ADDR:PORT [--token TOKEN]: opens the listening socket. */
static int http_setup(int argc, char **argv)
{
    static char addr[64];
    emcp_http_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--http") == 0) {
            const char *colon = strrchr(argv[i + 1], ':');
            char *end = NULL;
            unsigned long port = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
            if (colon == NULL || (size_t)(colon - argv[i + 1]) >= sizeof addr || end == colon + 1 ||
                *end != '\0' || port > 65535) {
                fprintf(stderr, "greenhouse-freertos: --http wants ADDR:PORT\n");
                return -1;
            }
            memcpy(addr, argv[i + 1], (size_t)(colon - argv[i + 1]));
            cfg.port = (uint16_t)port;
        } else if (strcmp(argv[i], "--token") == 0) {
            bearer.token = argv[i + 1];
            bearer.principal = "bearer-client";
            cfg.auth = emcp_http_bearer_auth;
            cfg.auth_user = &bearer;
        } else {
            fprintf(stderr, "greenhouse-freertos: unknown option '%s'\n", argv[i]);
            return -1;
        }
    }
    if (argc % 2 == 0 || addr[0] == '\0') {
        usage(stderr);
        return -1;
    }
    cfg.bind_addr = addr;
    cfg.log = log_line;
    int rc = emcp_http_open(&http, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr, "greenhouse-freertos: cannot listen on %s:%u (%d)\n", addr, cfg.port, rc);
        return -1;
    }
    fprintf(stderr, "greenhouse-freertos: listening on http://%s:%u/mcp from a FreeRTOS task%s\n", addr,
            emcp_http_port(&http), cfg.auth != NULL ? " (bearer token)" : "");
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    int rc = greenhouse_register(&server, false);
    if (rc == 0) {
        rc = mcp_framer_init(&rx, rx_buf, sizeof rx_buf);
    }
    if (rc == 0) {
        rc = mcp_dedup_init(&dedup);
    }
    if (rc != 0) {
        fprintf(stderr, "greenhouse-freertos: cannot set up the server (%d)\n", rc);
        return 1;
    }
    TaskFunction_t task = serve_task;
    if (argc > 1) {
#ifdef GREENHOUSE_FREERTOS_HTTP
        if (http_setup(argc, argv) != 0) {
            return 2;
        }
        signal(SIGPIPE, SIG_IGN);
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        task = http_task;
#else
        (void)argv;
        fprintf(stderr, "greenhouse-freertos: built without the HTTP binding (no http_parser)\n");
        return 2;
#endif
    } else {
        fprintf(stderr, "greenhouse-freertos: serving MCP on stdio from a FreeRTOS task\n");
    }
    fflush(stderr);
    return freertos_run(task, "mcp", SERVE_STACK_WORDS);
}
