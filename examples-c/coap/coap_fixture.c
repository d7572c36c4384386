/*
 * emcp-coap-fixture: a test server for the CoAP binding whose one tool can
 * answer with a large result, since the greenhouse's largest response
 * (tools/list) is under 1 KB.
 *
 *   emcp-coap-fixture PORT      serves coap://127.0.0.1:PORT/mcp
 *
 * Built twice: emcp-coap-fixture with the binding's default limits, and
 * emcp-coap-fixture-tiny with them shrunk (see CMakeLists.txt).
 *
 * Tool `blob {bytes}`: a text block of `bytes` characters (0..65536) cycling
 * through "0123456789", so a reassembled response can be checked byte for
 * byte. Results larger than EMCP_COAP_RESPONSE_MAX become the core's -32603
 * error. SIGINT/SIGTERM stops it (exit 0).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emcp.h"
#include "emcp_coap.h"

/** Largest blob the tool writes (bytes); beyond it the call is refused. */
#define FIXTURE_BLOB_MAX 65536

static mcp_server_t server;
static emcp_coap_t coap;
static volatile sig_atomic_t stop_requested;
static char blob[FIXTURE_BLOB_MAX];

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void log_stderr(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static int blob_tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    int64_t n = 0;
    if (mcp_arg_int(call, "bytes", &n) != 0 || n < 0 || n > FIXTURE_BLOB_MAX) {
        static const char msg[] = "bytes must be an integer 0-65536";
        return mcp_result_error(r, msg, sizeof msg - 1);
    }
    return mcp_result_text(r, blob, (size_t)n);
}

static const mcp_tool_t blob_def = {
    .name = "blob",
    .description = "A text block of the given length (digits 0-9 repeated).",
    .input_schema = "{\"type\":\"object\",\"required\":[\"bytes\"],\"properties\":{\"bytes\":"
                    "{\"type\":\"integer\",\"minimum\":0,\"maximum\":65536}}}",
    .annotations = MCP_TOOL_READ_ONLY,
};

int main(int argc, char **argv)
{
    char *end = NULL;
    unsigned long port = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
    if (argc != 2 || end == NULL || *end != '\0' || port == 0 || port > 65535) {
        fprintf(stderr, "usage: %s PORT\n", argc > 0 ? argv[0] : "emcp-coap-fixture");
        return 2;
    }
    for (size_t i = 0; i < sizeof blob; i++) {
        blob[i] = (char)('0' + (char)(i % 10));
    }
    static const mcp_server_config_t config = {.name = "emcp-coap-fixture", .version = "1"};
    if (mcp_server_init(&server, &config) != 0 ||
        mcp_server_add_tool(&server, &blob_def, blob_tool, NULL) != 0) {
        fprintf(stderr, "fixture: cannot set up the server\n");
        return 1;
    }

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    coap_startup();
    coap_set_log_level(LOG_ERR);

    coap_address_t addr;
    coap_address_init(&addr);
    addr.addr.sin.sin_family = AF_INET;
    addr.addr.sin.sin_port = htons((uint16_t)port);
    addr.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.size = sizeof addr.addr.sin;

    emcp_coap_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listen = &addr;
    cfg.log = log_stderr;
    cfg.log_requests = true;
    int rc = emcp_coap_open(&coap, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr, "fixture: cannot serve CoAP on port %lu (%d)\n", port, rc);
        coap_cleanup();
        return 1;
    }
    fprintf(stderr,
            "fixture: serving MCP on coap://127.0.0.1:%lu/mcp (request max %d, response max %d, "
            "%d response buffers)\n",
            port, EMCP_COAP_REQUEST_MAX, EMCP_COAP_RESPONSE_MAX, EMCP_COAP_RESPONSE_SLOTS);
    fflush(stderr);
    while (!stop_requested) {
        if (emcp_coap_poll(&coap, 200) < 0) {
            break;
        }
    }
    emcp_coap_close(&coap);
    coap_cleanup();
    return 0;
}
