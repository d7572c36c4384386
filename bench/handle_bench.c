/*
 * Host micro-benchmark of mcp_server_handle(), driven by scripts/bench.
 *
 *   handle_bench time [iterations]       ns/request of every request kind
 *   handle_bench one NAME iterations     runs one request kind (for callgrind
 *                                        --toggle-collect=mcp_server_handle)
 *   handle_bench list                    the request kind names
 *
 * The tools are the greenhouse gateway's (same names, schemas and results as
 * examples-c/greenhouse) without its libc work (snprintf, the audit line on
 * stderr), so the figures are the core's: tokenizing, dispatch, argument
 * access, (validation, where the core has it) and writing the response.
 */
#define _POSIX_C_SOURCE 199309L

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_tools.h"
#include "emcp.h"

static mcp_server_t server;
/* set_vent registered from its schema text alone (no program), in a server
 * of its own so that the main server's tools/list stays the greenhouse's:
 * the baseline of call_set_vent, measured in the same run. */
static mcp_server_t server_text;
static uint8_t out[4096];

#define ENV                                                                                     \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                    \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static const struct {
    const char *name;
    const char *request;
    const char *expect; /* a substring of the response */
    int text_server;    /* sent to server_text */
} reqs[] = {
    {"discover", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENV "}}",
     "\"supportedVersions\"", 0},
    {"tools_list", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" ENV "}}",
     "\"name\":\"set_vent\"", 0},
    {"call_read_sensor",
     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"read_sensor\",\"arguments\":{\"sensor_id\":\"t1\"}}}",
     "\"structuredContent\":{\"value\":21.5,\"unit\":\"C\",\"age_s\":0}", 0},
    {"call_set_vent",
     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":40}}}",
     "\"structuredContent\":{\"ok\":true,\"percent\":40}", 0},
    /* set_vent's schema read from its text on every call (no program). */
    {"call_set_vent_text",
     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":40}}}",
     "\"structuredContent\":{\"ok\":true,\"percent\":40}", 1},
    /* The same call to a twin of set_vent whose schema constrains nothing:
     * the difference to call_set_vent is what argument validation costs. */
    {"call_set_vent_unvalidated",
     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent_unvalidated\",\"arguments\":{\"percent\":40}}}",
     "\"structuredContent\":{\"ok\":true,\"percent\":40}", 0},
    {"malformed", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":", "-32700", 0},
};
#define NREQ (sizeof reqs / sizeof reqs[0])

static int refuse(mcp_result_t *r, const char *msg)
{
    int rc = mcp_result_error(r, msg, strlen(msg));
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "ok");
    }
    if (rc == 0) {
        rc = mcp_json_bool(r, false);
    }
    return rc == 0 ? mcp_result_structured_end(r) : rc;
}

/* read_sensor's typed callback (bench_tools.h): the sensor by its enum index. */
int bench_read_sensor(const struct bench_read_sensor_args *args, const mcp_call_t *call,
                      mcp_result_t *r, void *user)
{
    static const struct {
        const char *text, *unit;
        double value;
    } sensors[] = {{"21.5 C, 0s old", "C", 21.5}, {"34.1 C, 0s old", "C", 34.1}, {"62 %, 0s old", "%", 62.0}};
    (void)call;
    (void)user;
    size_t i = (size_t)args->sensor_id;
    if (i >= sizeof sensors / sizeof sensors[0]) {
        return refuse(r, "no reading yet");
    }
    int rc = mcp_result_text(r, sensors[i].text, strlen(sensors[i].text));
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "value");
    }
    if (rc == 0) {
        rc = mcp_json_number(r, sensors[i].value);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "unit");
    }
    if (rc == 0) {
        rc = mcp_json_string(r, sensors[i].unit, 1);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "age_s");
    }
    if (rc == 0) {
        rc = mcp_json_int(r, 0);
    }
    return rc == 0 ? mcp_result_structured_end(r) : rc;
}

static int vent_answer(mcp_result_t *r, int64_t pct)
{
    if (pct < 0 || pct > 100) {
        return refuse(r, "percent must be an integer 0-100");
    }
    char text[24] = "vent set to ";
    size_t n = 12;
    if (pct >= 100) {
        text[n++] = '1';
    }
    if (pct >= 10) {
        text[n++] = (char)('0' + (pct / 10) % 10);
    }
    text[n++] = (char)('0' + pct % 10);
    text[n++] = '%';
    int rc = mcp_result_text(r, text, n);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "ok");
    }
    if (rc == 0) {
        rc = mcp_json_bool(r, true);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "percent");
    }
    if (rc == 0) {
        rc = mcp_json_int(r, pct);
    }
    return rc == 0 ? mcp_result_structured_end(r) : rc;
}

/* set_vent's typed callback: its argument filled in by the core. */
int bench_set_vent(const struct bench_set_vent_args *args, const mcp_call_t *call, mcp_result_t *r,
                   void *user)
{
    (void)call;
    (void)user;
    return vent_answer(r, args->percent);
}

/* set_vent read by name: the text twin and the unvalidated twin. */
static int set_vent(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    int64_t pct = -1;
    if (mcp_arg_int(call, "percent", &pct) != 0) {
        return refuse(r, "percent must be an integer 0-100");
    }
    return vent_answer(r, pct);
}

/* The tools come from bench/handle_bench_tools.json through emcp-gen, as a
 * firmware's do (each with its argument program). */
static mcp_tool_t set_vent_text;

static int handle(size_t i)
{
    return mcp_server_handle(reqs[i].text_server ? &server_text : &server, NULL, (const uint8_t *)reqs[i].request,
                             strlen(reqs[i].request), out, sizeof out, NULL);
}

static bool check(size_t i)
{
    int n = handle(i);
    const char *want = reqs[i].expect;
    size_t k = strlen(want);
    for (int j = 0; n > 0 && (size_t)j + k <= (size_t)n; j++) {
        if (memcmp(out + j, want, k) == 0) {
            return true;
        }
    }
    fprintf(stderr, "handle_bench: %s: unexpected response (%d): %.*s\n", reqs[i].name, n,
            n > 0 ? n : 0, (const char *)out);
    return false;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    static const mcp_server_config_t cfg = {.name = "greenhouse-gw",
                                            .version = "0.4.0",
                                            .title = "Greenhouse gateway",
                                            .list_ttl_ms = 3600000u,
                                            .cache_scope = MCP_CACHE_PUBLIC};
    set_vent_text = bench_tools[BENCH_TOOL_SET_VENT];
    set_vent_text.listing = NULL;
    set_vent_text.input_program = NULL;
    set_vent_text.input_program_len = 0;
    set_vent_text.args = NULL;
    set_vent_text.args_len = 0;
    if (mcp_server_init(&server, &cfg) != 0 ||
        mcp_server_add_tool(&server, &bench_tools[BENCH_TOOL_READ_SENSOR], bench_read_sensor_call, NULL) != 0 ||
        mcp_server_add_tool(&server, &bench_tools[BENCH_TOOL_SET_VENT], bench_set_vent_call, NULL) != 0 ||
        mcp_server_init(&server_text, &cfg) != 0 ||
        mcp_server_add_tool(&server_text, &set_vent_text, set_vent, NULL) != 0 ||
        mcp_server_add_tool(&server, &bench_tools[BENCH_TOOL_SET_VENT_UNVALIDATED], set_vent, NULL) != 0) {
        fprintf(stderr, "handle_bench: server setup failed\n");
        return 2;
    }
    for (size_t i = 0; i < NREQ; i++) {
        if (!check(i)) {
            return 1;
        }
    }
    const char *mode = argc > 1 ? argv[1] : "time";
    if (strcmp(mode, "list") == 0) {
        for (size_t i = 0; i < NREQ; i++) {
            printf("%s\n", reqs[i].name);
        }
        return 0;
    }
    if (strcmp(mode, "one") == 0 && argc == 4) {
        long iters = atol(argv[3]);
        for (size_t i = 0; i < NREQ; i++) {
            if (strcmp(reqs[i].name, argv[2]) == 0) {
                for (long k = 0; k < iters; k++) {
                    (void)handle(i);
                }
                return 0;
            }
        }
        fprintf(stderr, "handle_bench: no request kind %s\n", argv[2]);
        return 2;
    }
    long iters = argc > 2 ? atol(argv[2]) : 200000;
    for (size_t i = 0; i < NREQ; i++) {
        double best = 1e300;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now_ns();
            for (long k = 0; k < iters; k++) {
                (void)handle(i);
            }
            double ns = (now_ns() - t0) / (double)iters;
            best = ns < best ? ns : best;
        }
        printf("ns.%s=%.0f\n", reqs[i].name, best);
    }
    return 0;
}
