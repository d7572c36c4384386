/*
 * greenhouse-stdio: the greenhouse gateway as an MCP server on stdin/stdout.
 *
 *   greenhouse-stdio [--wind-lock] [--policy PRINCIPAL=TOOL[,TOOL...]]...
 *                    [--state-dir DIR] [--actuator-log FILE] [--recover]
 *   greenhouse-stdio --print-usage
 *
 * stdout carries only MCP messages; logs and audit lines go to stderr. The
 * server exits 0 when the client closes stdin, or after SIGTERM, SIGINT or
 * SIGHUP, which end the input the same way.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
#include <fcntl.h>
#include <unistd.h>
#endif

#include "emcp.h"
#include "emcp_stdio.h"
#include "greenhouse.h"

static mcp_server_t server;

/* What each tool declares as max_result_len and the largest result it has
 * written since start (mcp_server_tool_usage): printed at exit, after a
 * session, it gives the value to declare. */
static void print_tool_usage(const mcp_server_t *s)
{
    mcp_tool_usage_t t;
    fprintf(stderr, "tool result (max_result_len)            declared / largest written\n");
    for (size_t i = 0; mcp_server_tool_usage(s, i, &t) == 0; i++) {
        fprintf(stderr, "%-42s %8zu / %zu\n", t.name, t.max_result_len, t.largest_result);
    }
}

/* The fixed tables and response sizes the greenhouse needs (README, "Sizing"). */
static void print_usage(const mcp_server_t *s)
{
    mcp_usage_t u;
    if (mcp_server_usage(s, &u) != 0) {
        return;
    }
    const struct {
        const char *name;
        mcp_usage_pair_t p;
    } tables[] = {
        {"tools (MCP_MAX_TOOLS)", u.tools},
        {"resources (MCP_MAX_RESOURCES)", u.resources},
        {"prompts (MCP_MAX_PROMPTS)", u.prompts},
    };
    const struct {
        const char *name;
        size_t n;
    } sizes[] = {
        {"server/discover", u.discover},
        {"tools/list", u.tools_list},
        {"tools/call", u.tools_call},
        {"initialize", u.initialize},
        {"resources/list", u.resources_list},
        {"prompts/list", u.prompts_list},
    };
    fprintf(stderr, "table                                      used / capacity\n");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        fprintf(stderr, "%-42s %4zu / %zu\n", tables[i].name, tables[i].p.used, tables[i].p.capacity);
    }
    fprintf(stderr, "largest answer (id of MCP_MAX_ID_LEN bytes)     bytes\n");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fprintf(stderr, "%-42s %10zu\n", sizes[i].name, sizes[i].n);
    }
    fprintf(stderr, "%-42s %10zu\n", "mcp_server_min_response_cap", u.min_response_cap);
    fprintf(stderr, "%-42s %10zu\n", "tools/list, every tool in one page", u.tools_list_all);
    print_tool_usage(s);
}

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
/* SIGTERM, SIGINT, SIGHUP: the end of the input, not of the process. The
 * answers and the audit lines of the calls already read wait in buffers
 * (the binding's output block, stderr's buffer) until the serve loop sends
 * them; dying here would lose the record of calls that ran. Instead stdin
 * becomes /dev/null (open, dup2 and close are async-signal-safe), so the
 * loop finishes the requests it holds, sends everything and reads end of
 * input (a read the signal interrupted restarts on the new descriptor),
 * and the program exits 0 as when the client closes stdin. The MCP client's
 * SIGTERM after it closed stdin (MCP stdio shutdown) thus loses nothing. */
static void end_input(int sig)
{
    (void)sig;
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0) {
        (void)dup2(fd, STDIN_FILENO);
        (void)close(fd);
    }
}

static void end_input_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = end_input;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* a write the signal interrupts goes on */
    (void)sigaction(SIGTERM, &sa, NULL);
    (void)sigaction(SIGINT, &sa, NULL);
    (void)sigaction(SIGHUP, &sa, NULL);
}
#else
static void end_input_on_signals(void)
{
}
#endif

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s [--wind-lock] [--policy PRINCIPAL=TOOL[,TOOL...]]...\n"
            "          [--state-dir DIR] [--actuator-log FILE] [--recover]\n"
            "  Serves the greenhouse gateway over MCP stdio (one JSON-RPC message per line);\n"
            "  the principal of every request is \"local\".\n"
            "  --wind-lock          start with the wind lock on (set_vent above 0 is refused)\n"
            "  --print-usage        print what the registrations use (mcp_server_usage) to stderr and exit\n"
            "  Exits 0 at the end of input; SIGTERM, SIGINT and SIGHUP end the input.\n"
            GREENHOUSE_POLICY_USAGE GREENHOUSE_DURABLE_USAGE,
            prog);
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "greenhouse-stdio";
    bool wind_lock = false;
    bool print = false;
    if (greenhouse_durable_options(prog, &argc, argv) < 0) {
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--wind-lock") == 0) {
            wind_lock = true;
        } else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            const char *why = NULL;
            if (greenhouse_add_policy(argv[++i], &why) != 0) {
                fprintf(stderr, "%s: --policy %s: %s\n", prog, argv[i], why);
                return 2;
            }
        } else if (strcmp(argv[i], "--print-usage") == 0) {
            print = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, prog);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, argv[i]);
            usage(stderr, prog);
            return 2;
        }
    }

#ifdef SIGPIPE
    /* A client that goes away makes the next write fail with EPIPE, which
     * emcp_stdio_serve reports, instead of killing the process. */
    signal(SIGPIPE, SIG_IGN);
#endif

    const mcp_store_t *store = NULL;
    int rc = greenhouse_setup(prog, &server, wind_lock, &store);
    if (rc != 0) {
        return 1;
    }
    if (print) {
        print_usage(&server);
        return 0;
    }
    /* The log (audit and actuator lines) is fully buffered, like the
     * answers in the binding's output block: emcp_stdio_serve flushes it
     * just before each block of answers leaves (so an audit line is out
     * before its answer) and before every wait for input, one write per
     * block of pipelined requests instead of one per line. Buffered even
     * when stderr is a terminal: a client that waits for each answer sees
     * the audit line with it, so line buffering would only add writes. The
     * buffer is static, so exit() still writes the last lines out; a
     * termination signal ends the input instead of the process (below). */
    static char log_buf[2 * EMCP_STDIO_LINE_MAX];
    (void)setvbuf(stderr, log_buf, _IOFBF, sizeof log_buf);
    end_input_on_signals();
    fprintf(stderr, "%s: serving MCP on stdio (wind lock %s)\n", prog, wind_lock ? "on" : "off");

    rc = emcp_stdio_serve_store(&server, stdin, stdout, stderr, store);
    print_tool_usage(&server);
    if (rc != 0) {
        fprintf(stderr, "%s: stopped (%d)\n", prog, rc);
        return 1;
    }
    return 0;
}
