/*
 * The legacy-era server-to-client round trip through the C API:
 * mcp_roundtrip_t in ctx.roundtrip (one stream, as the stdio binding uses
 * it) and mcp_roundtrip_answer / _resume / _cancel (answers that arrive
 * apart, as over Streamable HTTP).
 */
#include "check.h"

static mcp_server_t server;
static int calls;

/* Asks for a confirmation unless the retry carries it. */
static int ask(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    calls++;
    uint8_t state[8];
    bool yes = false;
    if (mcp_call_request_state(call, state, sizeof state) == 3 && memcmp(state, "v90", 3) == 0 &&
        mcp_input_bool(call, "ok.content.yes", &yes) == 0) {
        return yes ? mcp_result_text(r, "done", 4) : mcp_result_error(r, "refused", 7);
    }
    if (mcp_result_elicit(r, "ok", "Sure?",
                          "{\"type\":\"object\",\"properties\":{\"yes\":{\"type\":\"boolean\"}}}") != 0) {
        return mcp_result_error(r, "cannot ask", 10);
    }
    return mcp_result_request_state(r, (const uint8_t *)"v90", 3);
}

#define INIT_CAPS                                                                               \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"  \
    "\"2025-11-25\",\"capabilities\":{\"elicitation\":{},\"sampling\":{}},\"clientInfo\":{"     \
    "\"name\":\"c\",\"version\":\"1\"}}}"
#define CALL "{\"jsonrpc\":\"2.0\",\"id\":\"call-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}"
#define ANSWER(id, yes)                                                                         \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":{\"action\":\"accept\",\"content\":{\"yes\":" \
    yes "}}}"

static void test_init_and_classify(void)
{
    static mcp_roundtrip_t rt;
    static uint8_t buf[MCP_ROUNDTRIP_MIN_BUF];
    CHECK_INT(mcp_roundtrip_init(NULL, buf, sizeof buf, 1), -MCP_EINVAL);
    CHECK_INT(mcp_roundtrip_init(&rt, NULL, sizeof buf, 1), -MCP_EINVAL);
    CHECK_INT(mcp_roundtrip_init(&rt, buf, sizeof buf - 1, 1), -MCP_EINVAL);
    CHECK_INT(mcp_roundtrip_waiting(&rt), -MCP_EINVAL); /* never initialised */
    CHECK_INT(mcp_roundtrip_init(&rt, buf, sizeof buf, 1), 0);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    const char *resp = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
    CHECK_INT(mcp_roundtrip_answer(NULL, (const uint8_t *)req, strlen(req)), -MCP_EDOM);
    CHECK_INT(mcp_roundtrip_answer(NULL, (const uint8_t *)resp, strlen(resp)), -MCP_ENOENT);
    CHECK_INT(mcp_roundtrip_answer(&rt, (const uint8_t *)resp, strlen(resp)), -MCP_ENOENT);
    CHECK_INT(mcp_roundtrip_answer(&rt, NULL, 0), -MCP_EINVAL);
    CHECK_INT(mcp_roundtrip_cancel(&rt, -32603, NULL, NULL, 0), 0); /* nothing waits */
}

static void test_one_stream(void)
{
    static mcp_roundtrip_t rt;
    static uint8_t buf[2048];
    CHECK_INT(mcp_roundtrip_init(&rt, buf, sizeof buf, 100), 0);
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.roundtrip = &rt;

    /* initialize reports the capabilities the client declared. */
    HANDLE(&server, &ctx, INIT_CAPS);
    CHECK_INT(R.info.flags & MCP_RESPONSE_CLIENT_CAPS,
              MCP_RESPONSE_CLIENT_ELICITATION | MCP_RESPONSE_CLIENT_SAMPLING);
    ctx.flags = R.info.flags & MCP_RESPONSE_CLIENT_CAPS;

    /* The call: our elicitation/create request, id 100. */
    calls = 0;
    HANDLE(&server, &ctx, CALL);
    CHECK_INT(R.info.flags & MCP_RESPONSE_CLIENT_REQUEST, MCP_RESPONSE_CLIENT_REQUEST);
    CHECK_AT("id", "100");
    CHECK_AT("method", "\"elicitation/create\"");
    CHECK_AT("params>message", "\"Sure?\"");
    CHECK_INT(mcp_roundtrip_waiting(&rt), 1);

    /* A stray response: no answer, 400; the call still waits. */
    HANDLE(&server, &ctx, ANSWER("7", "true"));
    CHECK_INT(R.rc, 0);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_REQUEST);
    CHECK_INT(R.info.http_status, 400);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 1);

    /* The answer: the final result goes to the call's own id. */
    HANDLE(&server, &ctx, ANSWER("100", "true"));
    CHECK_INT(R.info.flags & MCP_RESPONSE_CLIENT_REQUEST, 0);
    CHECK_AT("id", "\"call-1\"");
    CHECK_AT("result>content>0>text", "\"done\"");
    CHECK_INT(calls, 2);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);

    /* Without the flags the tool sees a client that cannot be asked. */
    ctx.flags = 0;
    HANDLE(&server, &ctx, CALL);
    CHECK_AT("result>content>0>text", "\"cannot ask\"");
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);
}

static void test_answers_apart(void)
{
    static mcp_roundtrip_t rt;
    static uint8_t buf[2048];
    CHECK_INT(mcp_roundtrip_init(&rt, buf, sizeof buf, 1), 0);
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.roundtrip = &rt;
    ctx.flags = MCP_CTX_LEGACY_ELICITATION;
    HANDLE(&server, &ctx, CALL);
    CHECK_AT("id", "1");

    const char *no = ANSWER("1", "false");
    CHECK_INT(mcp_roundtrip_answer(&rt, (const uint8_t *)no, strlen(no)), 1);
    CHECK_INT(mcp_roundtrip_answer(&rt, (const uint8_t *)no, strlen(no)), -MCP_ENOENT);
    uint8_t out[1024];
    mcp_response_info_t info;
    CHECK_INT(mcp_roundtrip_resume(&server, &ctx, NULL, out, sizeof out, &info), -MCP_EINVAL);
    int n = mcp_roundtrip_resume(&server, &ctx, &rt, out, sizeof out, &info);
    CHECK(n > 0);
    CHECK(n > 0 && tj_valid((const char *)out, (size_t)n));
    const char *v = NULL;
    size_t vl = 0;
    CHECK(n > 0 && tj_lookup((const char *)out, (size_t)n, "result>isError", &v, &vl) == 0 &&
          vl == 4 && memcmp(v, "true", 4) == 0);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);

    /* A call that waits too long ends with the transport's error. */
    HANDLE(&server, &ctx, CALL);
    CHECK_AT("id", "2");
    CHECK_INT(mcp_roundtrip_cancel(&rt, -32001, "Timed out", out, 16), -MCP_ENOBUFS);
    HANDLE(&server, &ctx, CALL);
    n = mcp_roundtrip_cancel(&rt, -32001, "Timed out", out, sizeof out);
    const char *want = "{\"jsonrpc\":\"2.0\",\"id\":\"call-1\",\"error\":{\"code\":-32001,\"message\":\"Timed out\"}}";
    CHECK_MEM(out, (size_t)(n > 0 ? n : 0), want);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);
}

#define CANCEL(id)                                                                              \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" id \
    ",\"reason\":\"user aborted\"}}"

/* The client's notifications/cancelled for the waiting call abandons it:
 * nothing is sent, the callback does not run again, the storage is free. */
static void test_cancelled(void)
{
    static mcp_roundtrip_t rt;
    static uint8_t buf[2048];
    CHECK_INT(mcp_roundtrip_init(&rt, buf, sizeof buf, 1), 0);
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.roundtrip = &rt;
    ctx.flags = MCP_CTX_LEGACY_ELICITATION;

    /* One stream: the notification through mcp_server_handle. */
    calls = 0;
    HANDLE(&server, &ctx, CALL);
    CHECK_AT("id", "1");
    HANDLE(&server, &ctx, CANCEL("\"call-2\"")); /* another id: ignored */
    CHECK_INT(R.rc, 0);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 1);
    HANDLE(&server, &ctx, CANCEL("1")); /* our request's id, not the call's */
    CHECK_INT(mcp_roundtrip_waiting(&rt), 1);
    HANDLE(&server, &ctx, CANCEL("\"call-1\""));
    CHECK_INT(R.rc, 0);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);
    HANDLE(&server, &ctx, ANSWER("1", "true")); /* a late answer matches nothing */
    CHECK_INT(R.rc, 0);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_REQUEST);
    CHECK_INT(calls, 1);

    /* Apart (HTTP): mcp_roundtrip_answer says 2; nothing to resume. */
    HANDLE(&server, &ctx, CALL);
    const char *c = CANCEL("\"call-1\"");
    CHECK_INT(mcp_roundtrip_answer(NULL, (const uint8_t *)c, strlen(c)), -MCP_EDOM);
    CHECK_INT(mcp_roundtrip_answer(&rt, (const uint8_t *)c, strlen(c)), 2);
    CHECK_INT(mcp_roundtrip_waiting(&rt), 0);
    CHECK_INT(mcp_roundtrip_answer(&rt, (const uint8_t *)c, strlen(c)), -MCP_EDOM);
    CHECK_INT(calls, 2);
}

int main(void)
{
    static const uint8_t key[32] = "an example key for the c tests!";
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_set_state_key(&server, key, sizeof key), 0);
    /* 35: ask's longest result, {"type":"text","text":"cannot ask"}. */
    static const mcp_tool_t tool = {.name = "ask", .input_schema = "{\"type\":\"object\"}", .max_result_len = 35};
    CHECK_INT(mcp_server_add_tool(&server, &tool, ask, NULL), 0);
    test_init_and_classify();
    test_one_stream();
    test_answers_apart();
    test_cancelled();
    return check_summary("test_roundtrip");
}
