/*
 * The emcp test firmware: the greenhouse gateway's tools (read_sensor,
 * set_vent from examples-c/greenhouse/greenhouse.c) on a Cortex-M or RISC-V
 * core under QEMU, served through the stream framer exactly as a UART would
 * feed it.
 *
 * It plays a scripted byte stream of requests (both protocol eras, a
 * notification, CRLF and empty lines, a malformed message and one line longer
 * than the receive buffer) into mcp_framer_feed() in chunks of 1, 7 and 64
 * bytes and through the zero-copy calls (mcp_framer_space/commit/poll), and
 * checks every response line. It paints the stack to measure the high-water
 * mark of mcp_server_handle() and of the whole receive path, counts the
 * instructions per request under QEMU -icount (fw_count.h), prints a
 * `key=value` summary and a final `N passed, M failed` line, and returns the
 * number of failures, which QEMU's semihosting turns into its exit status.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emcp.h"
#include "fw_count.h"
#include "fw_stack.h"
#include "emcp_clock.h"
#include "greenhouse.h"
#include "probe_tools.h"

#ifndef FW_RX_MAX
#define FW_RX_MAX 1024 /* the UART receive buffer: longest request + 1 */
#endif
#ifndef FW_TX_MAX
#define FW_TX_MAX 1280 /* the response line buffer: tools/list with both tools in one page */
#endif
#ifndef FW_TARGET
#define FW_TARGET "unknown"
#endif
#ifndef FW_PROFILE
#define FW_PROFILE "full"
#endif
/* FW_MINIMAL: the library was built with the `minimal` profile (no legacy
 * era, no resources or prompts); those requests must be refused as unknown. */
#define FW_UNPAREN(...) __VA_ARGS__
#ifdef FW_MINIMAL
#define FULL_OR_MINIMAL(full, minimal) FW_UNPAREN minimal
#else
#define FULL_OR_MINIMAL(full, minimal) FW_UNPAREN full
#endif

_Static_assert(FW_TX_MAX > MCP_MIN_RESPONSE_CAP, "FW_TX_MAX must exceed MCP_MIN_RESPONSE_CAP");

static mcp_server_t server;
static mcp_framer_t rx;
static uint8_t rx_buf[FW_RX_MAX];
static uint8_t tx_buf[FW_TX_MAX];

static unsigned passed, failed;

static void check(bool ok, const char *what)
{
    if (ok) {
        passed++;
        printf("PASS %s\n", what);
    } else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

/* ---- The scripted stream ------------------------------------------------ */

#define ENV                                                                                     \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                    \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* One request line (with its line ending) and what its response must contain:
 * every listed substring, where "a|b" accepts either; no response if want[0]
 * is NULL. */
struct step {
    const char *line;
    const char *want[4];
};

static const struct step script[] = {
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENV "}}\n",
     {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":", "\"supportedVersions\":[\"2026-07-28\"]"}},
    {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" ENV "}}\r\n",
     {"\"id\":2,\"result\":", "\"name\":\"read_sensor\"", "\"name\":\"set_vent\""}},
    {"\r\n\n", {NULL}},
    {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", {NULL}},
    {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"read_sensor\",\"arguments\":{\"sensor_id\":\"t1\"}}}\n",
     {"\"id\":3,\"result\":", "\"structuredContent\":{\"value\":21.5,\"unit\":\"C\",\"age_s\":0}",
      "\"isError\":false", "21.5 C, 0s old"}},
    {"{\"jsonrpc\":\"2.0\",\"id\":\"s-4\",\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"read_sensor\",\"arguments\":{\"sensor_id\":\"soil1\"}}}\r\n",
     {"\"id\":\"s-4\",\"result\":", "\"isError\":true", "no reading yet"}},
    {"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":40}}}\n",
     {"\"id\":5,\"result\":", "\"structuredContent\":{\"ok\":true,\"percent\":40}",
      "vent set to 40%"}},
    /* Refused by the tool (isError) or by schema validation (-32602). */
    {"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":150}}}\n",
     {"\"id\":6,", "\"isError\":true|\"code\":-32602"}},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\n",
     {"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700"}},
    /* Replaced by a line longer than FW_RX_MAX at startup (see build_stream). */
    {"OVERSIZE", {"{\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32600"}},
    {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/list\",\"params\":{" ENV "}}\n",
     FULL_OR_MINIMAL(({"\"id\":9,\"result\":", "\"uri\":\"greenhouse://sensors\""}),
                     ({"\"id\":9,\"error\":{\"code\":-32601"}))},
    {"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
     "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fw\",\"version\":\"1\"}}}\n",
     FULL_OR_MINIMAL(({"\"id\":10,\"result\":{\"protocolVersion\":\"2025-11-25\"",
                       "\"name\":\"greenhouse-gw\""}),
                     ({"\"id\":10,\"error\":{\"code\":-32601"}))},
    {"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}\r\n",
     FULL_OR_MINIMAL(({"{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{}}\n"}),
                     ({"\"id\":11,\"error\":{\"code\":-32601"}))},
    {"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"open_door\",\"arguments\":{}}}\n",
     {"\"id\":12,\"error\":{\"code\":-32602"}},
    /* Within GREENHOUSE_VENT_INTERVAL_MS of id 5 on the fixed board clock:
     * refused by the core's rate limit, the vent stays at 40 %. The minimal
     * profile has no rate limits (no `policy`): the vent closes. */
    {"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{" ENV
     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":0}}}\n",
     FULL_OR_MINIMAL(({"\"id\":13,\"result\":", "\"isError\":true", "rate limited: retry in 2000 ms"}),
                     ({"\"id\":13,\"result\":", "\"isError\":false", "vent set to 0%"}))},
};

#define STEPS (sizeof script / sizeof script[0])

static uint8_t stream[6144];
static size_t stream_len;

/* Concatenates the script into one byte stream. */
static bool build_stream(void)
{
    stream_len = 0;
    for (size_t i = 0; i < STEPS; i++) {
        if (strcmp(script[i].line, "OVERSIZE") == 0) {
            /* A well-formed request with id 8 that does not fit the buffer:
             * it is refused under its own id (the framer keeps the id it
             * saw before the buffer filled), never executed. */
            static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{\"pad\":\"";
            static const char tail[] = "\"}}\n";
            size_t pad = FW_RX_MAX + 200;
            if (stream_len + sizeof head + pad + sizeof tail > sizeof stream) {
                return false;
            }
            memcpy(stream + stream_len, head, sizeof head - 1);
            stream_len += sizeof head - 1;
            memset(stream + stream_len, 'x', pad);
            stream_len += pad;
            memcpy(stream + stream_len, tail, sizeof tail - 1);
            stream_len += sizeof tail - 1;
            continue;
        }
        size_t n = strlen(script[i].line);
        if (stream_len + n > sizeof stream) {
            return false;
        }
        memcpy(stream + stream_len, script[i].line, n);
        stream_len += n;
    }
    return true;
}

/* ---- Checking responses ------------------------------------------------- */

static bool contains(const char *hay, size_t n, const char *needle, size_t k)
{
    if (k == 0) {
        return true;
    }
    for (size_t i = 0; i + k <= n; i++) {
        if (memcmp(hay + i, needle, k) == 0) {
            return true;
        }
    }
    return false;
}

/* True when the response has `want` (alternatives separated by '|'). */
static bool has(const char *resp, size_t n, const char *want)
{
    for (;;) {
        const char *bar = strchr(want, '|');
        size_t k = bar ? (size_t)(bar - want) : strlen(want);
        if (contains(resp, n, want, k)) {
            return true;
        }
        if (bar == NULL) {
            return false;
        }
        want = bar + 1;
    }
}

struct pass {
    size_t next_step; /* script index the next response should answer */
    unsigned responses;
    unsigned bad;
};

static struct pass cur;

/* Advances to the next step that expects a response. */
static const struct step *expected_step(void)
{
    while (cur.next_step < STEPS && script[cur.next_step].want[0] == NULL) {
        cur.next_step++;
    }
    return cur.next_step < STEPS ? &script[cur.next_step] : NULL;
}

static void check_response(const uint8_t *msg, size_t len)
{
    const char *r = (const char *)msg;
    cur.responses++;
    const struct step *s = expected_step();
    bool ok = s != NULL && len > 1 && r[len - 1] == '\n' && memchr(r, '\n', len - 1) == NULL;
    for (size_t i = 0; ok && i < 4 && s->want[i] != NULL; i++) {
        ok = has(r, len, s->want[i]);
    }
    if (!ok) {
        cur.bad++;
        printf("  unexpected response #%u (step %u): %.*s\n", cur.responses,
               (unsigned)cur.next_step, (int)len, r);
    }
    cur.next_step++;
}

static int on_response(void *transport_context, const uint8_t *msg, size_t len)
{
    (void)transport_context;
    /* A UART driver would start the transmission of msg[0..len) here. */
    check_response(msg, len);
    return 0;
}

static unsigned expected_responses(void)
{
    unsigned n = 0;
    for (size_t i = 0; i < STEPS; i++) {
        n += script[i].want[0] != NULL;
    }
    return n;
}

static bool fresh_ok = true;

/* Every pass starts from a fresh gateway: vent closed, set_vent not yet run
 * (its rate limit would otherwise refuse id 5 on the fixed clock). Called
 * before the stack is painted: registration is not the receive path. */
static void fresh_gateway(void)
{
    fresh_ok = greenhouse_register(&server, false) == 0;
}

static void begin_pass(void)
{
    memset(&cur, 0, sizeof cur);
    (void)mcp_framer_reset(&rx);
    if (!fresh_ok) {
        cur.bad++;
    }
}

/* Id 5 opened the vent to 40 %; the rate-limited id 13 did not close it
 * (without rate limits, in the minimal profile, it did). */
static bool end_pass(void)
{
    return cur.bad == 0 && cur.responses == expected_responses() && expected_step() == NULL &&
           greenhouse_vent_percent() == FULL_OR_MINIMAL((40), (0));
}

/* ---- Stack painting ---------------------------------------------------- */

static mcp_request_ctx_t uart_ctx(void)
{
    static const char principal[] = "uart0";
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal.ptr = principal;
    ctx.principal.len = sizeof principal - 1;
    ctx.now_ms = emcp_monotonic_ms(); /* the rate limit and audit durations use it */
    return ctx;
}

/* ---- The passes -------------------------------------------------------- */

static size_t peak_feed; /* deepest stack below the caller of the framer */

/* Copying framer: the whole stream in chunks of `chunk` bytes. */
__attribute__((noinline)) static bool feed_pass(size_t chunk)
{
    fresh_gateway();
    mcp_request_ctx_t ctx = uart_ctx();
    uintptr_t sp0 = fw_sp_now();
    uintptr_t limit = (sp0 - FW_PAINT_BYTES) & ~(uintptr_t)3u;
    fw_paint_stack(limit, 16u);
    begin_pass();
    bool ok = true;
    for (size_t at = 0; at < stream_len; at += chunk) {
        size_t n = stream_len - at < chunk ? stream_len - at : chunk;
        int rc = mcp_framer_feed(&rx, &server, &ctx, stream + at, n, tx_buf, sizeof tx_buf,
                                 on_response, NULL);
        ok = ok && rc >= 0;
    }
    size_t used = fw_stack_used(limit, sp0);
    peak_feed = used > peak_feed ? used : peak_feed;
    return ok && end_pass();
}

/* Zero-copy framer: "DMA" writes up to `chunk` bytes into the free tail. */
__attribute__((noinline)) static bool zero_copy_pass(size_t chunk)
{
    fresh_gateway();
    mcp_request_ctx_t ctx = uart_ctx();
    begin_pass();
    bool ok = true;
    size_t at = 0;
    while (ok && at < stream_len) {
        uint8_t *space = NULL;
        int room = mcp_framer_space(&rx, &space);
        if (room <= 0) {
            ok = false;
            break;
        }
        size_t n = stream_len - at;
        n = n < chunk ? n : chunk;
        n = n < (size_t)room ? n : (size_t)room;
        memcpy(space, stream + at, n); /* the DMA transfer */
        at += n;
        ok = mcp_framer_commit(&rx, n) == 0;
        int r;
        while (ok && (r = mcp_framer_poll(&rx, &server, &ctx, tx_buf, sizeof tx_buf, NULL)) !=
                         -MCP_EAGAIN) {
            if (r > 0) {
                check_response(tx_buf, (size_t)r);
            } else if (r < 0) {
                ok = false;
            }
        }
    }
    return ok && end_pass();
}

/* ---- The core alone: a tool without libc calls -------------------------- */

static mcp_server_t probe_server;

/* Writes a small structured result through the core's writers, like
 * set_vent but without snprintf/fprintf, so the measured stack is the
 * core's own. */
static int probe_answer(mcp_result_t *r, int64_t pct)
{
    int rc = mcp_result_text(r, "ok", 2);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "percent");
    }
    if (rc == 0) {
        rc = mcp_json_int(r, pct);
    }
    if (rc == 0) {
        rc = mcp_result_structured_end(r);
    }
    return rc;
}

/* The built probe's typed callback (probe_tools.h declares it; its wrapper
 * probe_probe_call fills args from the validated arguments). */
int probe_probe(const struct probe_probe_args *args, const mcp_call_t *call, mcp_result_t *r,
                void *user)
{
    (void)call;
    (void)user;
    return probe_answer(r, args->percent);
}

/* The probe registered from its text reads its argument by name. */
static int probe_tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    int64_t pct = -1;
    if (mcp_arg_int(call, "percent", &pct) != 0) {
        return mcp_result_error(r, "percent", 7);
    }
    return probe_answer(r, pct);
}

/* The probe as the firmware registers it: built by emcp-gen from
 * probe_tools.json (its listing and argument program). */
#define probe_def (probe_tools[PROBE_TOOL_PROBE])

/* The same tool from its schema text alone, as a library with the text-tools
 * feature (full) also takes it; a library without it (minimal) refuses it. */
static const mcp_tool_t probe_text_def = {
    .name = "probe_text",
    .description = "Stack probe.",
    .input_schema = "{\"type\":\"object\",\"required\":[\"percent\"],\"properties\":{\"percent\":"
                    "{\"type\":\"integer\",\"minimum\":0,\"maximum\":100}}}",
    .annotations = MCP_TOOL_IDEMPOTENT,
    /* Its longest result: {"type":"text","text":"ok"} and
     * ,"structuredContent":{"percent":100}. */
    .max_result_len = 63,
    .schema_seal = 0x67662573u, /* emcp-seal of the schema above */
};

static char deep_req[512];
static char wide_req[1024];

/* Worst cases for the tokenizer: the deepest nesting and the most tokens accepted. */
static void build_limit_requests(void)
{
    size_t n = 0;
    n += (size_t)snprintf(deep_req, sizeof deep_req,
                          "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"ping\",\"params\":{\"a\":");
    for (unsigned i = 0; i + 3 < MCP_MAX_DEPTH && n + 2 < sizeof deep_req; i++) {
        deep_req[n++] = '[';
    }
    for (unsigned i = 0; i + 3 < MCP_MAX_DEPTH && n + 4 < sizeof deep_req; i++) {
        deep_req[n++] = ']';
    }
    memcpy(deep_req + n, "}}", 3);

    n = (size_t)snprintf(wide_req, sizeof wide_req,
                         "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\",\"params\":{\"a\":[0");
    for (unsigned i = 0; i + 12 < MCP_MAX_JSON_TOKENS && n + 8 < sizeof wide_req; i++) {
        n += (size_t)snprintf(wide_req + n, sizeof wide_req - n, ",%u", i % 10);
    }
    memcpy(wide_req + n, "]}}", 4);
}

static const char *const probe_reqs[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENV "}}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" ENV "}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENV
    ",\"name\":\"probe\",\"arguments\":{\"percent\":42}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENV
    ",\"name\":\"probe\",\"arguments\":{\"percent\":420}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fw\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"nope\",\"params\":{" ENV "}}",
    deep_req,
    wide_req,
};

/* Peak stack of mcp_server_handle() over requests of every kind. */
__attribute__((noinline)) static size_t measure_handle(bool *ok)
{
    mcp_request_ctx_t ctx = uart_ctx();
    uintptr_t sp0 = fw_sp_now();
    uintptr_t limit = (sp0 - FW_PAINT_BYTES) & ~(uintptr_t)3u;
    size_t peak = 0;
    *ok = true;
    for (size_t i = 0; i < sizeof probe_reqs / sizeof probe_reqs[0]; i++) {
        const char *q = probe_reqs[i];
        fw_paint_stack(limit, 16u);
        int n = mcp_server_handle(&probe_server, &ctx, (const uint8_t *)q, strlen(q), tx_buf,
                                  sizeof tx_buf, NULL);
        size_t used = fw_stack_used(limit, sp0);
        /* Which request kind sets the peak: one line each, for the reader. */
        printf("stack.handle.request%u=%u\n", (unsigned)i + 1, (unsigned)used);
        peak = used > peak ? used : peak;
        char id[16];
        int k = snprintf(id, sizeof id, "\"id\":%u", (unsigned)i + 1);
        bool good = n > 0 && (i == 5 ? contains((const char *)tx_buf, (size_t)n, "\"id\":null", 9)
                                     : i >= 7 || contains((const char *)tx_buf, (size_t)n, id,
                                                          (size_t)k));
        if (!good) {
            printf("  probe request %u: rc %d: %.*s\n", (unsigned)i, n, n > 0 ? n : 0,
                   (const char *)tx_buf);
            *ok = false;
        }
    }
    return peak;
}

/* Instructions per request (QEMU -icount: see fw_count.h). First a loop of
 * a known length, two instructions a turn: the count must match it, or the
 * clock does not count instructions and no figure is printed. Then each
 * request kind of the stack probe, FW_SPEED_REPEAT times in a row; false
 * when a call did not answer. */
#define FW_SPEED_REPEAT 32u

__attribute__((noinline)) static uint32_t counted_loop(uint32_t turns)
{
    uint32_t t0 = fw_count_now();
#if defined(__riscv)
    __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(turns));
#elif defined(__ARM_ARCH_6M__)
    /* GCC assembles Thumb-1 inline assembly in divided syntax: there `sub`
     * sets the flags. */
    __asm__ volatile("1: sub %0, #1\n bne 1b" : "+l"(turns) : : "cc");
#else
    __asm__ volatile("1: subs %0, #1\n bne 1b" : "+l"(turns) : : "cc");
#endif
    return fw_count_since(t0, fw_count_now()) * FW_COUNT_UNIT;
}

static bool measure_speed(void)
{
    static const struct {
        size_t req;
        const char *name;
    } kinds[] = {{0, "discover"}, {1, "tools_list"}, {2, "call_probe"},
                 {3, "call_probe_refused"}, {5, "malformed"}};
    fw_count_start();
    printf("instr.repeat=%u\n", FW_SPEED_REPEAT);
    uint32_t loop = counted_loop(100000u);
    printf("instr.calibration=%u\n", (unsigned)loop);
    /* 200,000 and the few around the loop; a count is 40 on Cortex-M. */
    if (loop < 200000u || loop > 200000u + 2u * FW_COUNT_UNIT + 16u) {
        printf("instr: the clock does not count instructions (not QEMU -icount shift=0?)\n");
        return true;
    }
    bool answered = true;
    mcp_request_ctx_t ctx = uart_ctx();
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *q = probe_reqs[kinds[k].req];
        size_t len = strlen(q);
        uint32_t t0 = fw_count_now();
        for (unsigned i = 0; i < FW_SPEED_REPEAT; i++) {
            answered &= mcp_server_handle(&probe_server, &ctx, (const uint8_t *)q, len, tx_buf,
                                          sizeof tx_buf, NULL) > 0;
        }
        uint32_t n = fw_count_since(t0, fw_count_now()) * FW_COUNT_UNIT;
        unsigned per = (unsigned)((n + FW_SPEED_REPEAT / 2u) / FW_SPEED_REPEAT);
        printf("instr.handle.%s=%u\n", kinds[k].name, per);
    }
    return answered;
}

/* Built and text tools: every library takes the built probe, and refuses
 * one whose program is damaged. A library with the text-tools feature (full)
 * also takes the probe from its text, vouches for its schema with
 * mcp_schema_seal and refuses a seal that does not match; one without it
 * (minimal) refuses a text tool with -MCP_ENOTSUP and says what to do. */
static void check_seals(void)
{
    static const mcp_server_config_t cfg = {.name = "seals", .version = "1"};
    static uint8_t damaged[64];
    uint32_t seal = 0;
    char why[200] = "";
    check(mcp_server_init(&probe_server, &cfg) == 0, "seal server");
    check(mcp_server_add_tool(&probe_server, &probe_def, probe_probe_call, NULL) == 0,
          "the built probe is taken");
    mcp_tool_t def = probe_def;
    def.name = "probe_narrow";
    def.args_size = 0;
    check(mcp_server_add_tool(&probe_server, &def, probe_probe_call, NULL) == -MCP_EINVAL,
          "a typed argument layout that does not fit is refused");
    def = probe_def;
    def.name = "probe_damaged";
    check(def.input_program_len <= sizeof damaged, "the probe's program fits the copy");
    memcpy(damaged, def.input_program, def.input_program_len);
    damaged[0] ^= 0xffu; /* the layout's version */
    def.input_program = damaged;
    check(mcp_server_add_tool(&probe_server, &def, probe_tool, NULL) == -MCP_EINVAL,
          "a built tool with a damaged program is refused");
    int rc = mcp_schema_seal(probe_text_def.input_schema, NULL, &seal, why, sizeof why);
    bool text_tools = rc == 0;
    if (!text_tools) {
        check(rc == -MCP_ENOTSUP && why[0] == '\0', "mcp_schema_seal: -MCP_ENOTSUP without the checker");
        rc = mcp_server_add_tool(&probe_server, &probe_text_def, probe_tool, NULL);
        int n = mcp_server_schema_error(&probe_server, why, sizeof why);
        check(rc == -MCP_ENOTSUP && n > 0 && strncmp(why, "this build takes built tools only", 33) == 0,
              "a text tool is refused, naming emcp-gen");
        return;
    }
    check(seal == probe_text_def.schema_seal, "mcp_schema_seal gives the probe's seal");
    def = probe_text_def;
    def.schema_seal ^= 1u;
    rc = mcp_server_add_tool(&probe_server, &def, probe_tool, NULL);
    int n = mcp_server_schema_error(&probe_server, why, sizeof why);
    check(rc == -MCP_EINVAL && n > 0 && strncmp(why, "schema_seal 0x", 14) == 0,
          "a stale seal is refused");
    def = probe_text_def;
    def.input_schema = "{\"type\":\"object\",\"properties\":{\"percent\":{\"type\":\"integer\"}}}";
    check(mcp_server_add_tool(&probe_server, &def, probe_tool, NULL) == -MCP_EINVAL,
          "an edited schema under the old seal is refused");
    def.schema_seal = 0;
    def.name = "probe_unsealed";
    check(mcp_server_add_tool(&probe_server, &def, probe_tool, NULL) == 0,
          "an unsealed schema is checked and taken");
    check(mcp_server_add_tool(&probe_server, &probe_text_def, probe_tool, NULL) == 0,
          "the sealed schema is taken");
}

/* Peak stack of mcp_server_init() on the probe server (0 if it fails), and
 * of mcp_server_add_tool() registering the probe tool in *add_tool. */
__attribute__((noinline)) static size_t measure_init(size_t *add_tool)
{
    static const mcp_server_config_t probe_cfg = {
        .name = "probe", .version = "1", .cache_scope = MCP_CACHE_PUBLIC};
    uintptr_t sp0 = fw_sp_now();
    uintptr_t limit = (sp0 - FW_PAINT_BYTES) & ~(uintptr_t)3u;
    fw_paint_stack(limit, 16u);
    int rc = mcp_server_init(&probe_server, &probe_cfg);
    size_t init = fw_stack_used(limit, sp0);
    fw_paint_stack(limit, 16u);
    rc = rc == 0 ? mcp_server_add_tool(&probe_server, &probe_def, probe_probe_call, NULL) : rc;
    *add_tool = rc == 0 ? fw_stack_used(limit, sp0) : 0;
    return rc == 0 ? init : 0;
}

/* Peak stack of mcp_server_handle() running the greenhouse tools (libc's
 * snprintf and fprintf included). */
__attribute__((noinline)) static size_t measure_greenhouse(void)
{
    /* A fresh gateway, so set_vent runs (not refused by its rate limit). */
    check(greenhouse_register(&server, false) == 0, "greenhouse_register for the stack probe");
    mcp_request_ctx_t ctx = uart_ctx();
    uintptr_t sp0 = fw_sp_now();
    uintptr_t limit = (sp0 - FW_PAINT_BYTES) & ~(uintptr_t)3u;
    fw_paint_stack(limit, 16u);
    size_t lines[] = {4, 5, 6, 7};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *q = script[lines[i]].line;
        (void)mcp_server_handle(&server, &ctx, (const uint8_t *)q, strlen(q) - 1, tx_buf,
                                sizeof tx_buf, NULL);
    }
    return fw_stack_used(limit, sp0);
}

int main(void)
{
    printf("emcp firmware test (%s profile) on %s: sizeof(mcp_server_t)=%u sizeof(mcp_framer_t)=%u\n",
           FW_PROFILE, FW_TARGET, (unsigned)sizeof(mcp_server_t), (unsigned)sizeof(mcp_framer_t));

    check(greenhouse_register(&server, false) == 0, "greenhouse_register");
    check(mcp_framer_init(&rx, rx_buf, sizeof rx_buf) == 0, "mcp_framer_init");
    check(build_stream(), "scripted stream fits");

    static const size_t chunks[] = {1, 7, 64};
    char what[64];
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        bool ok = feed_pass(chunks[i]);
        snprintf(what, sizeof what, "mcp_framer_feed, %u-byte chunks: %u responses",
                 (unsigned)chunks[i], cur.responses);
        check(ok, what);
    }
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        bool ok = zero_copy_pass(chunks[i]);
        snprintf(what, sizeof what, "zero-copy space/commit/poll, %u-byte DMA: %u responses",
                 (unsigned)chunks[i], cur.responses);
        check(ok, what);
    }

    check_seals();
    size_t stack_add_tool = 0;
    size_t stack_init = measure_init(&stack_add_tool);
    check(stack_init > 0 && stack_add_tool > 0, "probe server");
    build_limit_requests();
    bool probe_ok = false;
    size_t stack_handle = measure_handle(&probe_ok);
    check(probe_ok, "mcp_server_handle on every request kind (stack probe)");
    check(measure_speed(), "every request of the instruction count answered");
    size_t stack_tools = measure_greenhouse();
    check(stack_handle < FW_PAINT_BYTES && stack_tools < FW_PAINT_BYTES && peak_feed < FW_PAINT_BYTES,
          "stack high-water marks inside the painted area");

    printf("target=%s\n", FW_TARGET);
    printf("profile=%s\n", FW_PROFILE);
    printf("ram.server=%u\n", (unsigned)sizeof(mcp_server_t));
    printf("ram.framer=%u\n", (unsigned)sizeof(mcp_framer_t));
    printf("ram.max_tools=%u\n", (unsigned)MCP_MAX_TOOLS);
    printf("ram.max_resources=%u\n", (unsigned)MCP_MAX_RESOURCES);
    printf("ram.max_prompts=%u\n", (unsigned)MCP_MAX_PROMPTS);
    printf("stack.handle=%u\n", (unsigned)stack_handle);
    printf("stack.init=%u\n", (unsigned)stack_init);
    printf("stack.add_tool=%u\n", (unsigned)stack_add_tool);
    printf("stack.handle_greenhouse=%u\n", (unsigned)stack_tools);
    printf("stack.feed_greenhouse=%u\n", (unsigned)peak_feed);
    printf("%u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
