/*
 * test_space.c: a tool is never run when its answer cannot be delivered
 * (mcp_tool_t.max_result_len against the response buffer), what a callback
 * learns from mcp_result_space, the smallest response buffer a server needs
 * (mcp_server_min_response_cap) and the table usage (mcp_server_usage).
 */
#include "check.h"

static mcp_server_t server;
static int motor_runs;
static size_t motor_space;

/* An actuator: it moves, then writes a result of up to 400 bytes. */
static int motor(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    motor_runs++;
    motor_space = mcp_result_space(result);
    return mcp_result_text(result, "moved", 5);
}

#define MOTOR_SCHEMA "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}}}"

/* An id of MCP_MAX_ID_LEN bytes (quotes included): the largest a request may carry. */
static char long_id[MCP_MAX_ID_LEN + 1];

static void setup(void)
{
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = {
        .name = "motor",
        .description = "Drives the motor by a number of steps.",
        .input_schema = MOTOR_SCHEMA,
        .max_result_len = 400,
    };
    CHECK_INT(mcp_server_add_tool(&server, &t, motor, NULL), 0);
    memset(long_id, 'i', MCP_MAX_ID_LEN);
    long_id[0] = '"';
    long_id[MCP_MAX_ID_LEN - 1] = '"';
    long_id[MCP_MAX_ID_LEN] = '\0';
}

static void call_motor(const char *id, size_t cap)
{
    char req[512];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{" ENVELOPE
             ",\"name\":\"motor\",\"arguments\":{\"steps\":3}}}",
             id);
    HANDLE_CAP(&server, NULL, req, cap);
}

static void test_refused_before_running(void)
{
    motor_runs = 0;
    call_motor("17", MCP_MIN_RESPONSE_CAP);
    CHECK_INT(motor_runs, 0);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    CHECK_AT("id", "17");
    CHECK_AT("error>code", "-32603");
    const char *v;
    size_t vl;
    CHECK(tj_lookup(R.text, R.len, "error>message", &v, &vl) == 0);
    /* The message says what happened and that nothing ran. */
    CHECK(vl > 0 && strstr(R.text, "Response buffer of 192 bytes") != NULL);
    CHECK(strstr(R.text, "the tool did not run") != NULL);
    if (check_failed) {
        check_print_bytes("refusal", R.text, R.len);
    }

    /* A long id still gets its own id back. */
    call_motor(long_id, MCP_MIN_RESPONSE_CAP);
    CHECK_INT(motor_runs, 0);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    CHECK(tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == MCP_MAX_ID_LEN);

    /* With room for the declared result it runs, once per call. */
    call_motor("18", 1024);
    CHECK_INT(motor_runs, 1);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("id", "18");
    CHECK_AT("result>content>0>text", "\"moved\"");
    CHECK_AT("result>isError", "false");
    /* What is left for content: at least the declared 400, less than the buffer. */
    CHECK(motor_space >= 400 && motor_space < 1024);
}

static void request(const char *method, const char *params, size_t cap)
{
    char req[512];
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\",\"params\":{%s}}", long_id,
             method, params);
    HANDLE_CAP(&server, NULL, req, cap);
}

/* Every sized method answered at `cap` with the largest id: how many overflowed. */
static int overflows_at(size_t cap)
{
    int bad = 0;
    request("server/discover", ENVELOPE, cap);
    bad += R.info.rpc_error != 0 || resp_count("result>supportedVersions") < 1;
    request("tools/list", ENVELOPE, cap);
    bad += R.info.rpc_error != 0 || resp_count("result>tools") != 1;
    request("initialize",
            "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}",
            cap);
    bad += R.info.rpc_error != 0;
    int before = motor_runs;
    request("tools/call", ENVELOPE ",\"name\":\"motor\"", cap);
    bad += R.info.rpc_error != 0 || motor_runs != before + 1;
    return bad;
}

static void test_min_response_cap(void)
{
    size_t cap = mcp_server_min_response_cap(&server);
    CHECK(cap >= MCP_MIN_RESPONSE_CAP);
    CHECK_INT(overflows_at(cap), 0);
    CHECK(overflows_at(cap - 1) > 0);
    CHECK_INT(mcp_server_min_response_cap(NULL), 0);
}

static void test_usage(void)
{
    mcp_usage_t u;
    memset(&u, 0xEE, sizeof u);
    CHECK_INT(mcp_server_usage(&server, &u), 0);
    CHECK_INT(u.tools.used, 1);
    CHECK_INT(u.tools.capacity, MCP_MAX_TOOLS);
    CHECK_INT(u.resources.used, 0);
    CHECK_INT(u.resources.capacity, MCP_MAX_RESOURCES);
    CHECK_INT(u.prompts.used, 0);
    CHECK_INT(u.prompts.capacity, MCP_MAX_PROMPTS);
    CHECK_INT(u.min_response_cap, mcp_server_min_response_cap(&server));
    CHECK(u.tools_call <= u.min_response_cap && u.tools_list <= u.min_response_cap &&
          u.discover <= u.min_response_cap && u.initialize <= u.min_response_cap);
    /* The call needs its envelope and the declared 400 bytes. */
    CHECK(u.tools_call > 400 + MCP_MAX_ID_LEN);

    CHECK_INT(mcp_server_usage(NULL, &u), -MCP_EINVAL);
    CHECK_INT(mcp_server_usage(&server, NULL), -MCP_EINVAL);
}

int main(void)
{
    setup();
    test_refused_before_running();
    test_min_response_cap();
    test_usage();
    return check_summary("test_space");
}
