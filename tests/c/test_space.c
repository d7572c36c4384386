/*
 * test_space.c: a tool is never run when its answer cannot be delivered
 * (mcp_tool_t.max_result_len against the response buffer), what a callback
 * learns from mcp_result_space, the smallest response buffer a server needs
 * (mcp_server_min_response_cap) and the table usage (mcp_server_usage);
 * that a tool which may act must declare max_result_len, the largest result
 * each tool wrote (mcp_server_tool_usage), the audit of a result larger than
 * declared, and by how much a buffer is too small for server/discover or a
 * list page.
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

/* A tool that is not readOnlyHint must declare the most bytes its result
 * writes: registration refuses it otherwise, and says so. A read-only tool
 * may leave it 0. */
static void test_undeclared_actuator_refused(void)
{
    static mcp_server_t other;
    init_server(&other, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t actuator = {
        .name = "valve",
        .description = "Opens the valve.",
        .input_schema = MOTOR_SCHEMA,
    };
    CHECK_INT(mcp_server_add_tool(&other, &actuator, motor, NULL), -MCP_EINVAL);
    char why[MCP_MAX_ERROR_MESSAGE + 1];
    CHECK(mcp_server_schema_error(&other, why, sizeof why) > 0);
    CHECK(strstr(why, "max_result_len") != NULL);
    CHECK(strstr(why, "readOnlyHint") != NULL);
    if (check_failed) {
        printf("schema_error: %s\n", why);
    }
    /* Destructive or idempotent hints do not excuse it either. */
    actuator.annotations = MCP_TOOL_DESTRUCTIVE | MCP_TOOL_IDEMPOTENT;
    CHECK_INT(mcp_server_add_tool(&other, &actuator, motor, NULL), -MCP_EINVAL);
    actuator.max_result_len = 64;
    CHECK_INT(mcp_server_add_tool(&other, &actuator, motor, NULL), 0);
    mcp_tool_t sensor = {
        .name = "probe",
        .input_schema = MOTOR_SCHEMA,
        .annotations = MCP_TOOL_READ_ONLY,
    };
    CHECK_INT(mcp_server_add_tool(&other, &sensor, motor, NULL), 0);
}

static uint32_t last_outcome;

static void record_outcome(void *user, const mcp_audit_t *record)
{
    (void)user;
    last_outcome = record->outcome;
}

/* A result larger than the tool declares still reaches the client (it fit
 * the buffer) and is audited as over-declared; one within it as ok. */
static void test_over_declared_is_audited(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    /* motor writes {"type":"text","text":"moved"}: 30 bytes. */
    mcp_tool_t low = {.name = "low", .input_schema = MOTOR_SCHEMA, .max_result_len = 29};
    mcp_tool_t exact = {.name = "exact", .input_schema = MOTOR_SCHEMA, .max_result_len = 30};
    CHECK_INT(mcp_server_add_tool(&s, &low, motor, NULL), 0);
    CHECK_INT(mcp_server_add_tool(&s, &exact, motor, NULL), 0);
    CHECK_INT(mcp_server_set_audit(&s, record_outcome, NULL, NULL), 0);
    last_outcome = 0xFFFF;
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"low\"}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>content>0>text", "\"moved\"");
    CHECK_INT(last_outcome, MCP_AUDIT_OVER_DECLARED);
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"exact\"}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(last_outcome, MCP_AUDIT_OK);
    mcp_tool_usage_t t;
    CHECK_INT(mcp_server_tool_usage(&s, 0, &t), 0);
    CHECK_INT(t.largest_result, 30);
    CHECK_INT(t.max_result_len, 29);
}

/* The number in a list or discover refusal: the exact buffer it needs. */
static size_t needs_of(void)
{
    const char *m = strstr(R.text, "(needs ");
    return m != NULL ? (size_t)strtoul(m + 7, NULL, 10) : 0;
}

/* A buffer too small for server/discover or one tools/list entry is answered
 * with the request's id and by how much, as a tools/call refusal is. */
static void test_list_and_discover_say_how_much(void)
{
    static mcp_server_t big;
    static char description[600];
    memset(description, 'd', sizeof description - 1);
    init_server(&big, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = {
        .name = "wordy",
        .description = description,
        .input_schema = MOTOR_SCHEMA,
        .annotations = MCP_TOOL_READ_ONLY,
    };
    CHECK_INT(mcp_server_add_tool(&big, &t, motor, NULL), 0);
    const char *list = "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}";
    HANDLE_CAP(&big, NULL, list, 400);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    CHECK_AT("id", "41");
    CHECK(strstr(R.text, "Response buffer of 400 bytes") != NULL);
    size_t need = needs_of();
    CHECK(need > 600 && need < 1200);
    if (check_failed) {
        check_print_bytes("list refusal", R.text, R.len);
    }
    if (need > 0) {
        HANDLE_CAP(&big, NULL, list, need);
        CHECK_INT(R.info.rpc_error, 0);
        CHECK_INT(resp_count("result>tools"), 1);
        HANDLE_CAP(&big, NULL, list, need - 1);
        CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    }

    static mcp_server_t chatty;
    static char instructions[400];
    memset(instructions, 'i', sizeof instructions - 1);
    mcp_server_config_t info = {.name = "chatty", .version = "1", .instructions = instructions};
    CHECK_INT(mcp_server_init(&chatty, &info), 0);
    const char *discover =
        "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}";
    HANDLE_CAP(&chatty, NULL, discover, 300);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    CHECK_AT("id", "\"d\"");
    CHECK(strstr(R.text, "Response buffer of 300 bytes") != NULL);
    need = needs_of();
    CHECK(need > 400 && need < 1000);
    if (check_failed) {
        check_print_bytes("discover refusal", R.text, R.len);
    }
    if (need > 0) {
        HANDLE_CAP(&chatty, NULL, discover, need);
        CHECK_INT(R.info.rpc_error, 0);
        HANDLE_CAP(&chatty, NULL, discover, need - 1);
        CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    }
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

    /* One tool: the whole list is one page of it. */
    CHECK_INT(u.tools_list_all, u.tools_list);

    /* No program storage was given. */
    CHECK_INT(u.programs.used, 0);
    CHECK_INT(u.programs.capacity, 0);

    CHECK_INT(mcp_server_usage(NULL, &u), -MCP_EINVAL);
    CHECK_INT(mcp_server_usage(&server, NULL), -MCP_EINVAL);
}

/* Program storage: tools from texts are compiled into it at registration;
 * the usage says how much they take, a tool that does not fit is refused
 * whole and says so, and the compiled tool answers as the text one does. */
static void test_program_storage(void)
{
    static mcp_server_t s, probe;
    static uint8_t store[1024], scratch[1024];
    mcp_tool_t t = {
        .name = "motor",
        .description = "Drives the motor by a number of steps.",
        .input_schema = MOTOR_SCHEMA,
        .max_result_len = 400,
    };
    mcp_usage_t u;
    /* What one motor takes, measured in ample storage. */
    init_server(&probe, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_set_program_storage(&probe, scratch, sizeof scratch), 0);
    CHECK_INT(mcp_server_add_tool(&probe, &t, motor, NULL), 0);
    CHECK_INT(mcp_server_usage(&probe, &u), 0);
    size_t first = u.programs.used;
    /* Its tools/list entry (about 200 bytes) and its program. */
    CHECK(first > sizeof MOTOR_SCHEMA && first < sizeof scratch);
    CHECK_INT(u.programs.capacity, sizeof scratch);

    /* Room for two and a half. */
    size_t room = 2 * first + first / 2;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_set_program_storage(&s, NULL, 8), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_program_storage(&s, store, 0), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_program_storage(&s, store, room), 0);
    CHECK_INT(mcp_server_set_program_storage(&s, store, room), -MCP_EEXIST);
    CHECK_INT(mcp_server_add_tool(&s, &t, motor, NULL), 0);
    /* The same tool twice more: the second fits, the third does not. */
    t.name = "motor2";
    CHECK_INT(mcp_server_add_tool(&s, &t, motor, NULL), 0);
    t.name = "motor3";
    CHECK_INT(mcp_server_add_tool(&s, &t, motor, NULL), -MCP_ENOSPC);
    char why[200];
    CHECK(mcp_server_schema_error(&s, why, sizeof why) > 0);
    CHECK(strncmp(why, "program storage full (mcp_server_set_program_storage)", 53) == 0);
    CHECK_INT(mcp_server_usage(&s, &u), 0);
    CHECK_INT(u.programs.used, 2 * first + 1); /* "motor2" is a byte longer */
    /* The compiled tool lists as the text one does (the same entry). */
    static char text_entry[1024];
    const char *v = NULL;
    size_t vl = 0;
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK(tj_lookup(R.text, R.len, "result>tools>0", &v, &vl) == 0 && vl < sizeof text_entry);
    memcpy(text_entry, v, vl);
    size_t text_len = vl;
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK(tj_lookup(R.text, R.len, "result>tools>0", &v, &vl) == 0);
    CHECK(vl == text_len && memcmp(v, text_entry, vl) == 0);
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"motor\","
           "\"arguments\":{\"steps\":\"x\"}}}");
    CHECK_AT("result>isError", "true");
    CHECK_TEXT_AT("result>content>0>text", "steps: expected integer, got string", 35);
}

/* What each tool declares and the largest result it has written: motor has
 * run (above) and wrote {"type":"text","text":"moved"}, 30 bytes. */
static void test_tool_usage(void)
{
    mcp_tool_usage_t t;
    memset(&t, 0xEE, sizeof t);
    CHECK_INT(mcp_server_tool_usage(&server, 0, &t), 0);
    CHECK_STR(t.name, "motor");
    CHECK_INT(t.max_result_len, 400);
    CHECK_INT(t.largest_result, 30);
    /* A refused call (the tool did not run) writes nothing. */
    call_motor("19", MCP_MIN_RESPONSE_CAP);
    CHECK_INT(mcp_server_tool_usage(&server, 0, &t), 0);
    CHECK_INT(t.largest_result, 30);
    CHECK_INT(mcp_server_tool_usage(&server, 1, &t), -MCP_ENOENT);
    CHECK_INT(mcp_server_tool_usage(NULL, 0, &t), -MCP_EINVAL);
    CHECK_INT(mcp_server_tool_usage(&server, 0, NULL), -MCP_EINVAL);
}

int main(void)
{
    setup();
    test_refused_before_running();
    test_min_response_cap();
    test_usage();
    test_tool_usage();
    test_program_storage();
    test_undeclared_actuator_refused();
    test_list_and_discover_say_how_much();
    test_over_declared_is_audited();
    return check_summary("test_space");
}
