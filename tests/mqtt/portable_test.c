/*
 * Unit test of the MQTT binding's portable part (emcp_mqtt.c) without a
 * broker: topic rules, presence, refusals and the replay cache, including
 * TTL expiry on a fake clock. Built and run by test_mqtt_portable.py.
 * Exit status 0 = all checks passed.
 */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "emcp.h"
#include "emcp_mqtt.h"

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

static mcp_server_t server;
static emcp_mqtt_t binding;
static int executions;
static char last_log[256];
static int log_lines;

static void on_log(void *user, const char *msg)
{
    (void)user;
    snprintf(last_log, sizeof last_log, "%s", msg);
    log_lines++;
}

static int act(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    executions++;
    char text[32];
    int n = snprintf(text, sizeof text, "run %d", executions);
    return mcp_result_text(r, text, (size_t)n);
}

static mcp_str_t span(const char *s)
{
    mcp_str_t v = {s, s != NULL ? strlen(s) : 0};
    return v;
}

static const char call_req[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"act\",\"arguments\":{}}}";

static emcp_mqtt_message_t message(const char *payload, const char *rt, const char *corr, uint64_t now)
{
    emcp_mqtt_message_t m;
    memset(&m, 0, sizeof m);
    m.topic = span("mcp/dev-1/request");
    m.payload = (const uint8_t *)payload;
    m.payload_len = strlen(payload);
    m.response_topic = span(rt);
    m.correlation = span(corr);
    m.content_type = span("application/json");
    m.principal = span("anonymous");
    m.now_ms = now;
    return m;
}

static void test_config(void)
{
    emcp_mqtt_config_t c = {.server_id = "dev-1", .name = "n", .version = "1"};
    CHECK(emcp_mqtt_init(&binding, &server, &c) == 0);
    CHECK(strcmp(emcp_mqtt_request_topic(&binding), "mcp/dev-1/request") == 0);
    CHECK(strcmp(emcp_mqtt_subscription(&binding), "mcp/dev-1/request") == 0);
    CHECK(strcmp(emcp_mqtt_presence_topic(&binding), "mcp/dev-1/presence") == 0);

    emcp_mqtt_config_t s = {.prefix = "site/a", .server_id = "dev-1", .share_group = "g",
                            .instance_id = "i-1", .name = "n", .version = "1"};
    CHECK(emcp_mqtt_init(&binding, &server, &s) == 0);
    CHECK(strcmp(emcp_mqtt_subscription(&binding), "$share/g/site/a/dev-1/request") == 0);
    CHECK(strcmp(emcp_mqtt_presence_topic(&binding), "site/a/dev-1/presence/i-1") == 0);

    const char *bad_ids[] = {"", "a/b", "a+", "#", "a b", "$sys"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        emcp_mqtt_config_t b = {.server_id = bad_ids[i], .name = "n", .version = "1"};
        CHECK(emcp_mqtt_init(&binding, &server, &b) == -MCP_EINVAL);
    }
    const char *bad_prefixes[] = {"", "/a", "a/", "a//b", "a/+", "$share"};
    for (size_t i = 0; i < sizeof bad_prefixes / sizeof bad_prefixes[0]; i++) {
        emcp_mqtt_config_t b = {.prefix = bad_prefixes[i], .server_id = "x", .name = "n", .version = "1"};
        CHECK(emcp_mqtt_init(&binding, &server, &b) == -MCP_EINVAL);
    }
    emcp_mqtt_config_t no_inst = {.server_id = "x", .share_group = "g", .name = "n", .version = "1"};
    CHECK(emcp_mqtt_init(&binding, &server, &no_inst) == -MCP_EINVAL);
    emcp_mqtt_config_t no_name = {.server_id = "x", .version = "1"};
    CHECK(emcp_mqtt_init(&binding, &server, &no_name) == -MCP_EINVAL);
}

static void test_presence(void)
{
    emcp_mqtt_config_t c = {.server_id = "dev-1", .name = "gw \"q\"", .version = "1.0"};
    CHECK(emcp_mqtt_init(&binding, &server, &c) == 0);
    char buf[EMCP_MQTT_PRESENCE_MAX];
    int n = emcp_mqtt_presence(&binding, true, buf, sizeof buf);
    CHECK(n > 0);
    static const char want[] =
        "{\"status\":\"online\",\"serverId\":\"dev-1\",\"name\":\"gw \\\"q\\\"\",\"version\":\"1.0\","
        "\"protocolVersions\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\","
        "\"2024-11-05\"],\"requestTopic\":\"mcp/dev-1/request\"}";
    CHECK(n == (int)sizeof want - 1 && memcmp(buf, want, (size_t)n) == 0);
    n = emcp_mqtt_presence(&binding, false, buf, sizeof buf);
    CHECK(n > 0 && memcmp(buf, "{\"status\":\"offline\",\"serverId\":\"dev-1\"}", (size_t)n) == 0);
    CHECK(emcp_mqtt_presence(&binding, true, buf, 20) == -MCP_ENOBUFS);
}

static void test_refusals(void)
{
    emcp_mqtt_config_t c = {.server_id = "dev-1", .name = "n", .version = "1", .log = on_log};
    CHECK(emcp_mqtt_init(&binding, &server, &c) == 0);
    emcp_mqtt_reply_t r;
    executions = 0;

    emcp_mqtt_message_t m = message(call_req, NULL, "c1", 1000);
    log_lines = 0;
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    CHECK(log_lines == 1 && strstr(last_log, "without Response Topic") != NULL);

    m = message(call_req, "r/1", "c1", 1000);
    m.retained = true;
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    m = message(call_req, "r/+", "c1", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    m = message(call_req, "r/1", "c1", 1000);
    m.topic = span("mcp/other/request");
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    static char long_topic[EMCP_MQTT_TOPIC_MAX + 2];
    memset(long_topic, 'a', sizeof long_topic - 1);
    m = message(call_req, long_topic, "c1", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    CHECK(emcp_mqtt_stats(&binding).dropped == 5);

    static char long_corr[EMCP_MQTT_CORRELATION_MAX + 2];
    memset(long_corr, 'c', sizeof long_corr - 1);
    m = message(call_req, "r/1", long_corr, 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1);
    CHECK(r.source == EMCP_MQTT_REPLY_REFUSED && r.correlation == NULL);
    CHECK(strcmp(r.topic, "r/1") == 0);

    m = message(call_req, "r/1", "c1", 1000);
    m.content_type = span("text/plain");
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1);
    CHECK(r.source == EMCP_MQTT_REPLY_REFUSED && r.correlation_len == 2);
    static const char refused[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                                  "\"message\":\"Content Type must be application/json\"}}";
    CHECK(r.payload_len == sizeof refused - 1 && memcmp(r.payload, refused, r.payload_len) == 0);

    static char big[EMCP_MQTT_PAYLOAD_MAX + 2];
    memset(big, ' ', sizeof big - 1);
    m = message(big, "r/1", "c1", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_REFUSED);
    CHECK(emcp_mqtt_stats(&binding).refused == 3);
    CHECK(executions == 0);

    m = message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}", "r/1", "n", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 0);
    m = message("{\"jsonrpc\":", "r/1", "p", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && strstr((const char *)r.payload, "-32700") != NULL);
    CHECK(emcp_mqtt_handle(NULL, &m, &r) == -MCP_EINVAL);
}

static void test_replay(void)
{
    emcp_mqtt_config_t c = {.server_id = "dev-1", .name = "n", .version = "1", .log = on_log};
    CHECK(emcp_mqtt_init(&binding, &server, &c) == 0);
    emcp_mqtt_reply_t r;
    executions = 0;
    char first[256];
    size_t first_len;

    emcp_mqtt_message_t m = message(call_req, "r/1", "k1", 1000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    first_len = r.payload_len < sizeof first ? r.payload_len : sizeof first;
    memcpy(first, r.payload, first_len);
    CHECK(r.correlation_len == 2 && memcmp(r.correlation, "k1", 2) == 0);

    m = message(call_req, "r/1", "k1", 2000); /* duplicate */
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_REPLAYED);
    CHECK(r.payload_len == first_len && memcmp(r.payload, first, first_len) == 0);
    CHECK(executions == 1);

    m = message(call_req, "r/2", "k1", 2000); /* other response topic: other key */
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(executions == 2);

    m = message(call_req, "r/1", "k1", 2000); /* other principal: not a duplicate */
    m.principal = span("mallory");
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(executions == 3);

    m = message(call_req, "r/3", NULL, 2000); /* no correlation: never cached */
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.correlation == NULL);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(executions == 5);

    m = message(call_req, "r/4", "k4", 10000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && executions == 6);
    m.now_ms = 10000 + EMCP_MQTT_REPLAY_TTL_MS - 1; /* still live */
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_REPLAYED);
    m.now_ms = 10000 + EMCP_MQTT_REPLAY_TTL_MS; /* expired */
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(executions == 7);

    /* LRU: fill every slot, touch the oldest, add one more: the second oldest goes. */
    CHECK(emcp_mqtt_init(&binding, &server, &c) == 0);
    char corr[EMCP_MQTT_REPLAY_SLOTS + 1][16];
    for (int i = 0; i <= EMCP_MQTT_REPLAY_SLOTS; i++) {
        snprintf(corr[i], sizeof corr[i], "lru-%d", i);
    }
    executions = 0;
    for (int i = 0; i < EMCP_MQTT_REPLAY_SLOTS; i++) {
        m = message(call_req, "r/l", corr[i], 5000 + (uint64_t)i);
        CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1);
    }
    m = message(call_req, "r/l", corr[0], 6000);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_REPLAYED);
    m = message(call_req, "r/l", corr[EMCP_MQTT_REPLAY_SLOTS], 6001);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(emcp_mqtt_stats(&binding).evicted == 1);
    m = message(call_req, "r/l", corr[0], 6002);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_REPLAYED);
    m = message(call_req, "r/l", corr[1], 6003);
    CHECK(emcp_mqtt_handle(&binding, &m, &r) == 1 && r.source == EMCP_MQTT_REPLY_EXECUTED);
    CHECK(executions == EMCP_MQTT_REPLAY_SLOTS + 2);
}

/* The reconnect backoff every shim uses: doubling from min to max, 0-25 %
 * jitter on top, back to min after a success, seeds giving other delays. */
static void test_backoff(void)
{
    emcp_mqtt_backoff_t a, b;
    emcp_mqtt_backoff_init(&a, 0, 0, 1);
    emcp_mqtt_backoff_init(&b, 0, 0, 2);
    unsigned base = EMCP_MQTT_BACKOFF_MIN_MS;
    bool differ = false;
    for (int i = 0; i < 8; i++) {
        unsigned da = emcp_mqtt_backoff_next(&a), db = emcp_mqtt_backoff_next(&b);
        CHECK(da >= base && da <= base + base / 4);
        CHECK(db >= base && db <= base + base / 4);
        differ = differ || da != db;
        base = base * 2 > EMCP_MQTT_BACKOFF_MAX_MS ? EMCP_MQTT_BACKOFF_MAX_MS : base * 2;
    }
    CHECK(differ);
    CHECK(a.attempts == 8);
    emcp_mqtt_backoff_reset(&a);
    unsigned d = emcp_mqtt_backoff_next(&a);
    CHECK(d >= EMCP_MQTT_BACKOFF_MIN_MS && d <= EMCP_MQTT_BACKOFF_MIN_MS * 5 / 4);
    emcp_mqtt_backoff_t c;
    emcp_mqtt_backoff_init(&c, 40, 50, 0); /* seed 0 still jitters */
    CHECK(emcp_mqtt_backoff_next(&c) <= 50);
    CHECK(emcp_mqtt_backoff_next(&c) <= 62);
    CHECK(emcp_mqtt_backoff_next(&c) >= 50);
}

static void test_principal(void)
{
    mcp_str_t p = emcp_mqtt_principal("operator");
    CHECK(p.len == 8 && memcmp(p.ptr, "operator", 8) == 0);
    p = emcp_mqtt_principal(NULL);
    CHECK(p.len == 9 && memcmp(p.ptr, "anonymous", 9) == 0);
    p = emcp_mqtt_principal("");
    CHECK(p.len == 9 && memcmp(p.ptr, "anonymous", 9) == 0);
}

int main(void)
{
    mcp_server_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = "portable-test";
    cfg.version = "1";
    /* 40: act's {"type":"text","text":"run N"} for any int N. */
    static const mcp_tool_t tool = {.name = "act", .input_schema = "{\"type\":\"object\"}", .max_result_len = 40};
    if (mcp_server_init(&server, &cfg) != 0 || mcp_server_add_tool(&server, &tool, act, NULL) != 0) {
        fprintf(stderr, "cannot set up the server\n");
        return 2;
    }
    test_config();
    test_presence();
    test_refusals();
    test_replay();
    test_backoff();
    test_principal();
    if (failures != 0) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("portable part: all checks passed\n");
    return 0;
}
