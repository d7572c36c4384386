/* Rich results, notifications and multi-round-trip calls through the public
 * header: mcp_result_image/_audio/_resource_*, annotations, mcp_progress and
 * mcp_log through the emit hook, the state key and MAC hook, elicit / sample /
 * roots, request state, mcp_input_*, mcp_call_trace_id, mcp_call_meta_string. */
#include "check.h"

static mcp_server_t server;

/* What the emit hook received during the last request. */
static char emitted[4][512];
static int n_emitted;

static int record(void *transport_context, const uint8_t *msg, size_t len)
{
    (void)transport_context;
    if (n_emitted < 4 && len < sizeof emitted[0]) {
        memcpy(emitted[n_emitted], msg, len);
        emitted[n_emitted][len] = '\0';
    }
    n_emitted++;
    return 0;
}

static int calls;
static int last_rc[8];

static int rich(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    calls++;
    const mcp_annotations_t ann = {.audience = MCP_AUDIENCE_USER, .priority = 0.25, .last_modified = "2026-11-29T00:00:00Z"};
    const mcp_annotations_t none = {.priority = -1};
    const mcp_annotations_t bad = {.audience = 8, .priority = -1};
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    last_rc[0] = mcp_progress(call, 1, 4, "one of four");
    last_rc[1] = mcp_log(call, MCP_LOG_WARNING, "warm");
    last_rc[2] = mcp_result_text_annotated(r, "hi", 2, &ann);
    last_rc[3] = mcp_result_image(r, png, sizeof png, "image/png", &none);
    last_rc[4] = mcp_result_audio(r, png, 1, "audio/wav", NULL);
    last_rc[5] = mcp_result_resource_link(r, "file:///log", "log", NULL, "Event log", NULL);
    last_rc[6] = mcp_result_resource_text(r, "mem://t", "text/plain", "abc", 3, NULL) |
                 mcp_result_resource_blob(r, "mem://b", NULL, png, 2, NULL);
    last_rc[7] = mcp_result_image(r, png, 1, "image/png", &bad);
    return 0;
}

/* Asks for confirmation unless the retry carries it; exercises every input API. */
static int ask(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    calls++;
    uint8_t state[16];
    int n = mcp_call_request_state(call, state, sizeof state);
    bool yes = false;
    char action[16];
    size_t len = 0;
    if (n == 3 && memcmp(state, "v90", 3) == 0 &&
        mcp_input_string(call, "ok.action", action, sizeof action, &len) == 0 &&
        mcp_input_bool(call, "ok.content.yes", &yes) == 0 && yes) {
        int64_t level = 0;
        last_rc[0] = mcp_input_int(call, "ok.content.level", &level);
        char text[32];
        snprintf(text, sizeof text, "done %s %lld", action, (long long)level);
        return mcp_result_text(r, text, strlen(text));
    }
    last_rc[0] = mcp_result_elicit(r, "ok", "Sure?", "{\"type\":\"object\",\"properties\":{\"yes\":{\"type\":\"boolean\"}}}");
    if (last_rc[0] != 0) {
        return mcp_result_error(r, "no", 2);
    }
    last_rc[1] = mcp_result_elicit(r, "bad", "x", "[1]");
    last_rc[2] = mcp_result_request_state(r, (const uint8_t *)"v90", 3);
    uint8_t big[MCP_MAX_REQUEST_STATE + 1] = {0};
    last_rc[3] = mcp_result_request_state(r, big, sizeof big);
    return 0;
}

static int trace(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char id[33];
    char small[8];
    char ts[64];
    size_t len = 0;
    last_rc[0] = mcp_call_trace_id(call, id, sizeof id);
    last_rc[1] = mcp_call_trace_id(call, small, sizeof small);
    last_rc[2] = mcp_call_meta_string(call, "tracestate", ts, sizeof ts, &len);
    last_rc[3] = mcp_call_meta_string(call, "absent", ts, sizeof ts, NULL);
    last_rc[4] = mcp_call_client_capability(call, "sampling");
    last_rc[5] = mcp_call_client_capability(call, "roots");
    const char *text = last_rc[0] == 0 ? id : "-";
    return mcp_result_text(r, text, strlen(text));
}

static uint8_t hook_calls;

static int my_mac(void *user, const uint8_t *data, size_t len, uint8_t *out)
{
    (void)user;
    hook_calls++;
    memset(out, 0, 32);
    for (size_t i = 0; i < len; i++) {
        out[i % 32] ^= data[i];
    }
    return 0;
}

#define CALL(tool, caps, extra)                                                             \
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"_meta\":{"       \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                             \
    "\"io.modelcontextprotocol/clientCapabilities\":" caps extra "},\"name\":\"" tool "\"}}"

static void test_rich_content_and_notifications(void)
{
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.emit = record;

    n_emitted = 0;
    HANDLE(&server, &ctx, CALL("rich", "{}", ""));
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(n_emitted, 0); /* not asked for: nothing sent */
    CHECK_INT(last_rc[0], 0);
    CHECK_INT(last_rc[1], 0);
    CHECK_INT(last_rc[2], 0);
    CHECK_INT(last_rc[3], 0);
    CHECK_INT(last_rc[7], -MCP_EINVAL);
    CHECK_AT("result>content>0", "{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"user\"],"
                                 "\"priority\":0.25,\"lastModified\":\"2026-11-29T00:00:00Z\"}}");
    CHECK_AT("result>content>1", "{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\",\"annotations\":{}}");
    CHECK_AT("result>content>2", "{\"type\":\"audio\",\"data\":\"iQ==\",\"mimeType\":\"audio/wav\"}");
    CHECK_AT("result>content>3",
             "{\"type\":\"resource_link\",\"uri\":\"file:///log\",\"name\":\"log\",\"description\":\"Event log\"}");
    CHECK_AT("result>content>4>resource", "{\"uri\":\"mem://t\",\"mimeType\":\"text/plain\",\"text\":\"abc\"}");
    CHECK_AT("result>content>5>resource", "{\"uri\":\"mem://b\",\"blob\":\"iVA=\"}");
    CHECK_INT(resp_count("result>content"), 6);

    n_emitted = 0;
    HANDLE(&server, &ctx, CALL("rich", "{}", ",\"progressToken\":\"p\",\"io.modelcontextprotocol/logLevel\":\"info\""));
    CHECK_INT(last_rc[0], 1);
    CHECK_INT(last_rc[1], 1);
    CHECK_INT(n_emitted, 2);
    CHECK_STR(emitted[0], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
                          "{\"progressToken\":\"p\",\"progress\":1.0,\"total\":4.0,\"message\":\"one of four\"}}");
    CHECK_STR(emitted[1], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
                          "{\"level\":\"warning\",\"data\":\"warm\"}}");

    /* No emit hook: asked for, but nothing can be sent. */
    HANDLE(&server, NULL, CALL("rich", "{}", ",\"progressToken\":3"));
    CHECK_INT(last_rc[0], 0);
}

static void test_input_required(void)
{
    calls = 0;
    HANDLE(&server, NULL, CALL("ask", "{\"elicitation\":{}}", ""));
    CHECK_INT(last_rc[0], 0);
    CHECK_INT(last_rc[1], -MCP_EINVAL);
    CHECK_INT(last_rc[2], 0);
    CHECK_INT(last_rc[3], -MCP_ENOBUFS);
    CHECK_AT("result>resultType", "\"input_required\"");
    CHECK_AT("result>inputRequests>ok>method", "\"elicitation/create\"");
    CHECK_AT("result>inputRequests>ok>params>message", "\"Sure?\"");
    CHECK_ABSENT("result>content");
    const char *v;
    size_t vl;
    char state[160];
    CHECK(tj_lookup(R.text, R.len, "result>requestState", &v, &vl) == 0 && vl < sizeof state);
    memcpy(state, v, vl);
    state[vl] = '\0';

    char req[600];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}},\"name\":\"%s\","
             "\"inputResponses\":{\"ok\":{\"action\":\"accept\",\"content\":{\"yes\":true,\"level\":3}}},"
             "\"requestState\":%s}}",
             "ask", state);
    HANDLE(&server, NULL, req);
    CHECK_AT("result>content>0>text", "\"done accept 3\"");
    CHECK_AT("result>resultType", "\"complete\"");
    CHECK_INT(last_rc[0], 0);

    /* The same state presented to another tool is refused before it runs. */
    int before = calls;
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}},\"name\":\"ask2\","
             "\"requestState\":%s}}",
             state);
    HANDLE(&server, NULL, req);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_PARAMS);
    CHECK_AT("error>message", "\"Invalid requestState\"");
    CHECK_INT(calls, before);

    /* Without the capability: -32021 naming it. */
    HANDLE(&server, NULL, CALL("ask", "{}", ""));
    CHECK_INT(R.info.rpc_error, MCP_RPC_MISSING_CAPABILITY);
    CHECK_INT(R.info.http_status, 400);
    CHECK_AT("error>data", "{\"requiredCapabilities\":{\"elicitation\":{}}}");

    /* Legacy era: the tool is told input_required does not exist there. */
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}");
    CHECK_INT(last_rc[0], -MCP_ENOTSUP);
    CHECK_AT("result>isError", "true");
}

static void test_state_keys(void)
{
    static mcp_server_t s;
    static const uint8_t key[16] = "0123456789abcdef";
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_set_state_key(&s, key, 15), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_state_key(&s, key, 65), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_state_key(NULL, key, 16), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_state_key(&s, NULL, 16), -MCP_EINVAL);
    static const mcp_tool_t t = {.name = "ask", .input_schema = "{\"type\":\"object\"}", .max_result_len = 38};
    CHECK_INT(mcp_server_add_tool(&s, &t, ask, NULL), 0);
    /* No key yet: the tool cannot set a state. */
    HANDLE(&s, NULL, CALL("ask", "{\"elicitation\":{}}", ""));
    CHECK_INT(last_rc[2], -MCP_ENOTSUP);
    CHECK_ABSENT("result>requestState");
    /* The firmware's own MAC. */
    CHECK_INT(mcp_server_set_state_mac(&s, my_mac, NULL), 0);
    hook_calls = 0;
    HANDLE(&s, NULL, CALL("ask", "{\"elicitation\":{}}", ""));
    CHECK_INT(last_rc[2], 0);
    CHECK(hook_calls == 1);
    const char *v;
    size_t vl;
    CHECK(tj_lookup(R.text, R.len, "result>requestState", &v, &vl) == 0);
}

static void test_trace(void)
{
    HANDLE(&server, NULL,
           CALL("trace", "{\"sampling\":{},\"roots\":true}", ",\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\","
                               "\"tracestate\":\"vendor=a\\u003db\""));
    CHECK_INT(last_rc[0], 0);
    CHECK_INT(last_rc[1], -MCP_ENOBUFS);
    CHECK_INT(last_rc[2], 0);
    CHECK_INT(last_rc[3], -MCP_ENOENT);
    CHECK_INT(last_rc[4], 1);
    CHECK_INT(last_rc[5], 0); /* declared, but not as an object */
    CHECK_AT("result>content>0>text", "\"4bf92f3577b34da6a3ce929d0e0e4736\"");
    HANDLE(&server, NULL, CALL("trace", "{}", ",\"traceparent\":\"01-xyz\""));
    CHECK_INT(last_rc[0], -MCP_ENOENT);
}

int main(void)
{
    static const uint8_t key[32] = "an example key for the c tests!";
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_set_state_key(&server, key, sizeof key), 0);
    /* Each declares the largest result its callback writes here (measured). */
    static const mcp_tool_t tools[] = {
        {.name = "rich", .input_schema = "{\"type\":\"object\"}", .max_result_len = 479},
        {.name = "ask", .input_schema = "{\"type\":\"object\"}", .max_result_len = 38},
        {.name = "ask2", .input_schema = "{\"type\":\"object\"}", .max_result_len = 38},
        {.name = "trace", .input_schema = "{\"type\":\"object\"}", .max_result_len = 57},
    };
    mcp_tool_fn fns[] = {rich, ask, ask, trace};
    for (size_t i = 0; i < 4; i++) {
        CHECK_INT(mcp_server_add_tool(&server, &tools[i], fns[i], NULL), 0);
    }
    test_rich_content_and_notifications();
    test_input_required();
    test_state_keys();
    test_trace();
    return check_summary("test_rich");
}
