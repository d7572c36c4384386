/*
 * test_protocol: mcp_server_handle as a transport sees it: JSON-RPC framing,
 * ids, errors and HTTP statuses, response buffer limits, notifications, and
 * both protocol eras (2026-07-28 envelope, legacy initialize handshake).
 */
#include <pthread.h>

#include "check.h"

static mcp_server_t server;
static int echo_calls;
static int big_calls;
static size_t big_len;
static int big_text_rc;
static char big_text[8192];

static int echo_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    __atomic_fetch_add(&echo_calls, 1, __ATOMIC_SEQ_CST);
    return mcp_result_text(result, "ok", 2);
}

static int big_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    big_calls++;
    big_text_rc = mcp_result_text(result, big_text, big_len);
    return 0;
}

static void setup(void)
{
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    /* 27: echo_tool's {"type":"text","text":"ok"}. */
    mcp_tool_t echo = {.name = "echo", .input_schema = "{\"type\":\"object\"}", .max_result_len = 27};
    /* Read-only, so it may leave max_result_len undeclared: it writes up to
     * 8 KiB to test results that overflow inside the callback. */
    mcp_tool_t big = {.name = "big", .input_schema = "{\"type\":\"object\"}", .annotations = MCP_TOOL_READ_ONLY};
    mcp_tool_t regional = {
        .name = "regional",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
                        "\"x-mcp-header\":\"Region\"}}}",
        .max_result_len = 27,
    };
    if (mcp_server_add_tool(&server, &echo, echo_tool, NULL) || mcp_server_add_tool(&server, &big, big_tool, NULL) ||
        mcp_server_add_tool(&server, &regional, echo_tool, NULL)) {
        fprintf(stderr, "setup failed\n");
        exit(2);
    }
    memset(big_text, 'x', sizeof big_text);
}

/* The response is an error with exactly this id and code, and no result. */
#define CHECK_ERROR(id, code, http)                                 \
    do {                                                            \
        char code_str_[16];                                         \
        snprintf(code_str_, sizeof code_str_, "%d", (int)(code));   \
        CHECK_AT("id", id);                                         \
        CHECK_AT("error>code", code_str_);                          \
        CHECK_ABSENT("result");                                     \
        CHECK_INT(R.info.rpc_error, code);                          \
        CHECK_INT(R.info.http_status, http);                        \
    } while (0)

static void test_response_cap(void)
{
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}";
    unsigned char buf[MCP_MIN_RESPONSE_CAP + RESP_GUARD];
    mcp_response_info_t info;

    echo_calls = 0;
    for (size_t cap = 0; cap < MCP_MIN_RESPONSE_CAP; cap += (cap < 8 || cap > 180) ? 1 : 16) {
        memset(buf, GUARD_BYTE, sizeof buf);
        int rc = mcp_server_handle(&server, NULL, (const uint8_t *)call, strlen(call), buf, cap, &info);
        if (!check_record(rc == -MCP_ENOBUFS, __FILE__, __LINE__, "response_cap below minimum gives -MCP_ENOBUFS"))
            fprintf(stderr, "    cap %zu: rc %d\n", cap, rc);
        bool untouched = true;
        for (size_t i = 0; i < sizeof buf; i++) {
            untouched = untouched && buf[i] == GUARD_BYTE;
        }
        if (!check_record(untouched, __FILE__, __LINE__, "nothing written when response_cap is too small"))
            fprintf(stderr, "    cap %zu\n", cap);
    }
    CHECK_INT(echo_calls, 0);

    /* Exactly the minimum works. */
    HANDLE_CAP(&server, NULL, call, MCP_MIN_RESPONSE_CAP);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],"
               "\"isError\":false}}",
               0, 200);
    CHECK_INT(echo_calls, 1);
}

static void test_result_too_big(void)
{
    big_len = 1000;
    big_calls = 0;
    HANDLE_CAP(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}",
               512);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"Response exceeds the response "
               "buffer\"}}",
               MCP_RPC_INTERNAL_ERROR, 200);
    CHECK_INT(big_calls, 1);
    CHECK_INT(big_text_rc, -MCP_ENOBUFS);

    /* Modern era: the same error, same id. */
    HANDLE_CAP(&server, NULL,
               "{\"jsonrpc\":\"2.0\",\"id\":\"s-7\",\"method\":\"tools/call\",\"params\":{" ENVELOPE
               ",\"name\":\"big\"}}",
               512);
    CHECK_ERROR("\"s-7\"", MCP_RPC_INTERNAL_ERROR, 200);
    CHECK_INT(big_text_rc, -MCP_ENOBUFS);

    /* With the largest id at exactly the minimum buffer. */
    char id_str[MCP_MAX_ID_LEN + 1];
    char id_num[MCP_MAX_ID_LEN + 1];
    char id_esc[MCP_MAX_ID_LEN + 1];
    memset(id_str, 'i', MCP_MAX_ID_LEN);
    id_str[0] = id_str[MCP_MAX_ID_LEN - 1] = '"';
    id_str[MCP_MAX_ID_LEN] = '\0';
    memset(id_num, '7', MCP_MAX_ID_LEN);
    id_num[0] = '-';
    id_num[MCP_MAX_ID_LEN] = '\0';
    /* 64 bytes of escapes: "\"\\\u00e9..." */
    snprintf(id_esc, sizeof id_esc, "\"%s\"", "\\\"\\\\\\u00e9\\ud83d\\ude00\\n\\t\\/abcdefghijklmnopqrstuvwxyz01234567");
    CHECK_INT(strlen(id_esc), MCP_MAX_ID_LEN);
    const char *ids[] = {id_str, id_num, id_esc};

    for (size_t k = 0; k < 3; k++) {
        char req[512];
        const char *v;
        size_t vl;
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}",
                 ids[k]);
        big_len = 300;
        HANDLE_CAP(&server, NULL, req, MCP_MIN_RESPONSE_CAP);
        CHECK(R.rc > 0 && R.len <= MCP_MIN_RESPONSE_CAP);
        CHECK(tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == MCP_MAX_ID_LEN && memcmp(v, ids[k], vl) == 0);
        CHECK_AT("error>code", "-32603");
        CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
        CHECK_INT(R.info.http_status, 200);

        /* Any other error with a long message or data also fits: an unknown
         * method of 64 bytes echoed as data, at the minimum buffer. */
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\",\"params\":{" ENVELOPE "}}", ids[k],
                 "abcdefghijklmnopqrstuvwxyz/abcdefghijklmnopqrstuvwxyz/0123456789");
        HANDLE_CAP(&server, NULL, req, MCP_MIN_RESPONSE_CAP);
        CHECK(tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == MCP_MAX_ID_LEN && memcmp(v, ids[k], vl) == 0);
        CHECK_AT("error>code", "-32601");
        CHECK_INT(R.info.http_status, 404);

        /* -32022 carries data; at the minimum buffer it may be shortened but keeps code and id. */
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io."
                 "modelcontextprotocol/protocolVersion\":\"%s\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
                 ids[k], "1999-01-01-a-very-long-version-string-that-does-not-exist-anywhere");
        HANDLE_CAP(&server, NULL, req, MCP_MIN_RESPONSE_CAP);
        CHECK(tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == MCP_MAX_ID_LEN && memcmp(v, ids[k], vl) == 0);
        CHECK_AT("error>code", "-32022");
        CHECK_INT(R.info.http_status, 400);
    }

    /* Sweep: results of every size at two buffer sizes. Each answer is either
     * the complete result or the -32603 error, never anything truncated. */
    int results = 0;
    int errors = 0;
    int bad = 0;
    for (size_t cap = MCP_MIN_RESPONSE_CAP; cap <= 400; cap += 208) {
        for (big_len = 0; big_len <= 420; big_len++) {
            int before = check_failed;
            HANDLE_CAP(&server, NULL,
                       "{\"jsonrpc\":\"2.0\",\"id\":\"sweep\",\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}",
                       cap);
            const char *v;
            size_t vl;
            bool id_ok = tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == 7 && memcmp(v, "\"sweep\"", 7) == 0;
            bool is_result = tj_lookup(R.text, R.len, "result>content>0>text", &v, &vl) == 0 && vl == big_len + 2 &&
                             R.info.rpc_error == 0 && big_text_rc == 0;
            bool is_error = tj_lookup(R.text, R.len, "error>code", &v, &vl) == 0 && vl == 6 &&
                            memcmp(v, "-32603", 6) == 0 && R.info.rpc_error == MCP_RPC_INTERNAL_ERROR &&
                            (big_text_rc == -MCP_ENOBUFS || big_text_rc == 0);
            if (big_len == 0) {
                is_result = is_result || (tj_lookup(R.text, R.len, "result>isError", &v, &vl) == 0);
            }
            results += is_result;
            errors += is_error;
            if (!id_ok || !(is_result || is_error) || check_failed != before) {
                if (bad++ < 3) {
                    fprintf(stderr, "    sweep cap %zu text %zu:\n", cap, big_len);
                    check_print_bytes("response", R.text, R.len);
                }
            }
        }
    }
    CHECK_INT(bad, 0);
    CHECK(results > 0 && errors > 0);
}

static void test_notifications(void)
{
    const char *notes[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/method\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":[1,2]}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}",
    };
    echo_calls = 0;
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        int rc = HANDLE(&server, NULL, notes[i]);
        if (!check_record(rc == 0 && R.info.rpc_error == 0 && R.info.http_status == 202, __FILE__, __LINE__,
                          "notification: no response, 202"))
            fprintf(stderr, "    %s -> rc %d, rpc_error %d, http %u\n", notes[i], rc, R.info.rpc_error,
                    R.info.http_status);
    }
    CHECK_INT(echo_calls, 0);
}

static void test_ids(void)
{
    const char *ids[] = {
        "\"a\\\"b\\\\c\\u00e9\\n\\/\"", "12345678901234567890", "-42", "1.5e3", "0", "-0.0", "\"\"",
        "\"caf\xc3\xa9\"", "1E+2", "\"\\ud83d\\ude00\"", "-12345678901234567890.5e-300",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char req[256];
        char want[256];
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", ids[i]);
        HANDLE(&server, NULL, req);
        CHECK_RESP(want, 0, 200);
    }
    /* Whitespace around the id and any member order. */
    HANDLE(&server, NULL, " {\"method\" : \"ping\" ,\n\"id\" :\t\"x\" , \"jsonrpc\":\"2.0\"}\r\n");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}", 0, 200);

    /* The longest id is echoed; one byte more is refused with id null. */
    char id64[MCP_MAX_ID_LEN + 2];
    char req[256];
    char want[256];
    memset(id64, '5', MCP_MAX_ID_LEN);
    id64[MCP_MAX_ID_LEN] = '\0';
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", id64);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", id64);
    HANDLE(&server, NULL, req);
    CHECK_RESP(want, 0, 200);

    memset(id64, '5', MCP_MAX_ID_LEN + 1);
    id64[MCP_MAX_ID_LEN + 1] = '\0';
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", id64);
    HANDLE(&server, NULL, req);
    CHECK_ERROR("null", MCP_RPC_INVALID_REQUEST, 400);

    memset(id64, 'q', MCP_MAX_ID_LEN + 1);
    id64[0] = id64[MCP_MAX_ID_LEN] = '"';
    id64[MCP_MAX_ID_LEN + 1] = '\0';
    CHECK_INT(strlen(id64), MCP_MAX_ID_LEN + 1);
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}",
             id64);
    echo_calls = 0;
    HANDLE(&server, NULL, req);
    CHECK_ERROR("null", MCP_RPC_INVALID_REQUEST, 400);
    CHECK_INT(echo_calls, 0);

    /* Ids that are not a string or a number. */
    const char *bad_ids[] = {"{}", "{\"a\":1}", "true", "false", "null", "[1]", "[]"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}", bad_ids[i]);
        HANDLE(&server, NULL, req);
        if (!check_record(R.rc > 0, __FILE__, __LINE__, "bad id answered"))
            fprintf(stderr, "    id %s\n", bad_ids[i]);
        CHECK_ERROR("null", MCP_RPC_INVALID_REQUEST, 400);
    }
    CHECK_INT(echo_calls, 0);
}

static void test_invalid_messages(void)
{
    static const char parse_error[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse "
                                      "error\"}}";
    const char *not_json[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,",
        "",
        " ",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",}",
        "{\"jsonrpc\":\"2.0\",\"id\":01,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":'ping'}",
        "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":tru}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\tng\"}",
    };
    for (size_t i = 0; i < sizeof not_json / sizeof not_json[0]; i++) {
        HANDLE(&server, NULL, not_json[i]);
        if (!check_record(R.rc == (int)strlen(parse_error) && memcmp(R.text, parse_error, R.len) == 0 &&
                              R.info.rpc_error == MCP_RPC_PARSE_ERROR && R.info.http_status == 400,
                          __FILE__, __LINE__, "not JSON: -32700, id null, 400")) {
            check_print_bytes("request ", not_json[i], strlen(not_json[i]));
            check_print_bytes("response", R.text, R.len);
        }
    }
    /* A NUL byte inside the message (explicit length). */
    static const char with_nul[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0";
    run_request_at(__FILE__, __LINE__, &server, NULL, with_nul, sizeof with_nul - 1, RESP_DEFAULT_CAP);
    CHECK_RESP(parse_error, MCP_RPC_PARSE_ERROR, 400);
    /* A request pointer with length 0 is the empty text. */
    run_request_at(__FILE__, __LINE__, &server, NULL, "x", 0, RESP_DEFAULT_CAP);
    CHECK_RESP(parse_error, MCP_RPC_PARSE_ERROR, 400);

    /* Batches and other non-objects. */
    const char *not_object[] = {
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "[]", "42", "\"ping\"", "null", "true",
    };
    for (size_t i = 0; i < sizeof not_object / sizeof not_object[0]; i++) {
        HANDLE(&server, NULL, not_object[i]);
        CHECK_ERROR("null", MCP_RPC_INVALID_REQUEST, 400);
    }

    /* Well-formed JSON but not a JSON-RPC 2.0 request: the id is kept. */
    const char *invalid[] = {
        "{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}",
        "{\"id\":5,\"method\":\"ping\"}",
        "{\"jsonrpc\":2.0,\"id\":5,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":5}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":7}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":null}",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        HANDLE(&server, NULL, invalid[i]);
        CHECK_ERROR("5", MCP_RPC_INVALID_REQUEST, 400);
    }

    /* params that is not an object (requests of the 2025-11-25 era, whose
     * JSON-RPC errors travel with HTTP 200). */
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":[1]}");
    CHECK_ERROR("6", MCP_RPC_INVALID_PARAMS, 200);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":\"x\"}");
    CHECK_ERROR("6", MCP_RPC_INVALID_PARAMS, 200);
}

/* A ping whose params.x holds `n` numbers, or `depth` nested arrays. */
static int ping_with_array(char *buf, size_t cap, int n, int depth)
{
    size_t at = (size_t)snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"x\":");
    for (int i = 0; i < depth; i++) {
        at += (size_t)snprintf(buf + at, cap - at, "[");
    }
    for (int i = 0; i < n; i++) {
        at += (size_t)snprintf(buf + at, cap - at, i ? ",%d" : "%d", i);
    }
    for (int i = 0; i < depth; i++) {
        at += (size_t)snprintf(buf + at, cap - at, "]");
    }
    at += (size_t)snprintf(buf + at, cap - at, "}}");
    return (int)at;
}

static void test_limits(void)
{
    static char req[8192];
    /* Tokens: root, 3 key/value pairs, "params", its object, "x", the array = 11. */
    ping_with_array(req, sizeof req, MCP_MAX_JSON_TOKENS - 11, 1);
    HANDLE(&server, NULL, req);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", 0, 200);
    ping_with_array(req, sizeof req, MCP_MAX_JSON_TOKENS - 10, 1);
    HANDLE(&server, NULL, req);
    CHECK_AT("error>code", "-32600");
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_REQUEST);
    CHECK_INT(R.info.http_status, 400);
    ping_with_array(req, sizeof req, 1000, 1);
    HANDLE(&server, NULL, req);
    CHECK_AT("error>code", "-32600");

    /* Depth: root object 1, params 2, then nested arrays. */
    ping_with_array(req, sizeof req, 1, MCP_MAX_DEPTH - 2);
    HANDLE(&server, NULL, req);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", 0, 200);
    ping_with_array(req, sizeof req, 1, MCP_MAX_DEPTH - 1);
    HANDLE(&server, NULL, req);
    CHECK_AT("error>code", "-32600");
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_REQUEST);
    CHECK_INT(R.info.http_status, 400);
    ping_with_array(req, sizeof req, 1, 1000);
    HANDLE(&server, NULL, req);
    CHECK_AT("error>code", "-32600");
}

static void test_modern(void)
{
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
           "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io."
           "modelcontextprotocol/clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(R.info.http_status, 200);
    CHECK_AT("id", "1");
    CHECK_AT("result>resultType", "\"complete\"");
    CHECK_AT("result>supportedVersions", "[\"2026-07-28\"]");
    CHECK_AT("result>capabilities>tools>listChanged", "false");
    CHECK_AT("result>ttlMs", "0");
    CHECK_AT("result>cacheScope", "\"private\"");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo",
             "{\"name\":\"" SERVER_NAME "\",\"version\":\"" SERVER_VERSION "\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-"
               "28\"],\"capabilities\":{\"tools\":{\"listChanged\":false}},\"ttlMs\":0,\"cacheScope\":\"private\",\"_"
               "meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"}}}}",
               0, 200);

    /* tools/call: resultType and the stamp, but no cache hints. */
    echo_calls = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENVELOPE
           ",\"name\":\"echo\",\"arguments\":{}}}");
    /* resultType follows the content: it is known only once the callback returned. */
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"ok\"}],\"isError\":false,\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/"
               "serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"}}}}",
               0, 200);
    CHECK_INT(echo_calls, 1);

    /* A missing or malformed envelope: -32602. */
    const char *missing[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{\"_meta\":{}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{\"_meta\":[]}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io."
        "modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io."
        "modelcontextprotocol/clientCapabilities\":{}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io."
        "modelcontextprotocol/clientCapabilities\":{}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"io."
        "modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io."
        "modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":[]}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io."
        "modelcontextprotocol/protocolVersion\":20260728,\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
    };
    echo_calls = 0;
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        HANDLE(&server, NULL, missing[i]);
        if (!check_record(R.info.rpc_error == MCP_RPC_INVALID_PARAMS && R.info.http_status == 400, __FILE__, __LINE__,
                          "bad envelope: -32602, 400")) {
            check_print_bytes("request ", missing[i], strlen(missing[i]));
            check_print_bytes("response", R.text, R.len);
        }
        CHECK_AT("id", "2");
        CHECK_AT("error>code", "-32602");
    }
    CHECK_INT(echo_calls, 0);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"server/discover\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32602,\"message\":\"params._meta must be an object "
               "carrying the required 'io.modelcontextprotocol/protocolVersion' and "
               "'io.modelcontextprotocol/clientCapabilities' envelope keys\"}}",
               MCP_RPC_INVALID_PARAMS, 400);

    /* Unsupported versions: -32022 with data.supported and data.requested. */
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io."
           "modelcontextprotocol/protocolVersion\":\"2099-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol "
               "version\",\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2099-01-01\"}}}",
               MCP_RPC_UNSUPPORTED_VERSION, 400);
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":\"v\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"io."
           "modelcontextprotocol/protocolVersion\":\"2025-11-25\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    CHECK_ERROR("\"v\"", MCP_RPC_UNSUPPORTED_VERSION, 400);
    CHECK_AT("error>data>supported", "[\"2026-07-28\"]");
    CHECK_AT("error>data>requested", "\"2025-11-25\"");
    CHECK_INT(echo_calls, 0);

    /* Removed and unknown methods inside the envelope: -32601, 404. */
    const char *gone[] = {"initialize",          "ping",          "logging/setLevel", "resources/subscribe",
                          "resources/unsubscribe", "no/such/method", "Tools/List",       "sampling/createMessage"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        char req[512];
        char data[64];
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"%s\",\"params\":{" ENVELOPE "}}",
                 gone[i]);
        HANDLE(&server, NULL, req);
        if (!check_record(R.info.rpc_error == MCP_RPC_METHOD_NOT_FOUND && R.info.http_status == 404, __FILE__,
                          __LINE__, "removed/unknown method in envelope: -32601, 404"))
            fprintf(stderr, "    method %s\n", gone[i]);
        CHECK_ERROR("11", MCP_RPC_METHOD_NOT_FOUND, 404);
        snprintf(data, sizeof data, "\"%s\"", gone[i]);
        CHECK_AT("error>data", data);
    }
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"params\":{" ENVELOPE "}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":11,\"error\":{\"code\":-32601,\"message\":\"Method not found\",\"data\":"
               "\"ping\"}}",
               MCP_RPC_METHOD_NOT_FOUND, 404);

    /* Unknown tool: -32602 (spec tools.mdx), and bad tools/call params. */
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"nope\"}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Unknown tool: nope\"}}",
               MCP_RPC_INVALID_PARAMS, 400);
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE
           ",\"name\":\"ec\\\"ho\\u0000\"}}");
    CHECK_ERROR("4", MCP_RPC_INVALID_PARAMS, 400);
    const char *bad_call[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE "}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":7}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE
        ",\"name\":\"echo\",\"arguments\":[1]}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE
        ",\"name\":\"echo\",\"arguments\":\"a=1\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":null}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"ECHO\"}}",
    };
    for (size_t i = 0; i < sizeof bad_call / sizeof bad_call[0]; i++) {
        HANDLE(&server, NULL, bad_call[i]);
        /* 400 in 2026-07-28; 200 for a 2025-11-25 request (no envelope). */
        CHECK_ERROR("4", MCP_RPC_INVALID_PARAMS, strstr(bad_call[i], "_meta") ? 400 : 200);
    }
    CHECK_INT(echo_calls, 0);
}

static mcp_str_t span(const char *s)
{
    mcp_str_t v = {s, s ? strlen(s) : 0};
    return v;
}

static void test_headers(void)
{
    mcp_request_ctx_t ctx;
    const char *list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}";

    memset(&ctx, 0, sizeof ctx);
    ctx.protocol_version = span("2026-07-28");
    ctx.method = span("tools/list");
    HANDLE(&server, &ctx, list);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>resultType", "\"complete\"");

    /* The body's strings are compared decoded: "tools\/list" is tools/list. */
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools\\/list\",\"params\":{\"_meta\":{\"io."
           "modelcontextprotocol/protocolVersion\":\"2026-07-2\\u0038\",\"io.modelcontextprotocol/"
           "clientCapabilities\":{}}}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>resultType", "\"complete\"");
    echo_calls = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools\\/call\",\"params\":{" ENVELOPE
           ",\"name\":\"ech\\u006f\"}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(echo_calls, 1);

    /* Optional whitespace around header values is not part of the value. */
    ctx.protocol_version = span(" 2026-07-28\t");
    ctx.method = span("tools/list ");
    HANDLE(&server, &ctx, list);
    CHECK_INT(R.info.rpc_error, 0);

    /* MCP-Protocol-Version header differs from the body. */
    memset(&ctx, 0, sizeof ctx);
    ctx.protocol_version = span("2025-11-25");
    HANDLE(&server, &ctx, list);
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    ctx.protocol_version.len = 0; /* present but empty */
    HANDLE(&server, &ctx, list);
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);

    /* Mcp-Method header differs from the body. */
    memset(&ctx, 0, sizeof ctx);
    ctx.method = span("tools/call");
    HANDLE(&server, &ctx, list);
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    ctx.method = span("Tools/list");
    HANDLE(&server, &ctx, list);
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);

    /* Check order: headers before the version, so disagreement wins over -32022. */
    memset(&ctx, 0, sizeof ctx);
    ctx.protocol_version = span("2026-07-28");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
           "protocolVersion\":\"2099-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    /* Header and body agree on an unsupported version: -32022. */
    ctx.protocol_version = span("2099-01-01");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
           "protocolVersion\":\"2099-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    CHECK_ERROR("1", MCP_RPC_UNSUPPORTED_VERSION, 400);

    /* A modern header makes the request modern: no envelope is -32602, ping is gone. */
    ctx.protocol_version = span("2026-07-28");
    HANDLE(&server, &ctx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_ERROR("1", MCP_RPC_INVALID_PARAMS, 400);
    HANDLE(&server, &ctx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    CHECK_ERROR("1", MCP_RPC_METHOD_NOT_FOUND, 404);

    /* A legacy header with a legacy body stays legacy. */
    ctx.protocol_version = span("2025-11-25");
    HANDLE(&server, &ctx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_ABSENT("result>resultType");
    CHECK_ABSENT("result>_meta");

    /* A tools/call rejected for its headers never runs the tool. */
    echo_calls = 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.method = span("tools/list");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}");
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    CHECK_INT(echo_calls, 0);
    ctx.method = span("tools/call");
    ctx.name = span("echo");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(echo_calls, 1);

    /* Mcp-Name must equal params.name for tools/call (surrounding OWS allowed). */
    echo_calls = 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.protocol_version = span("2026-07-28");
    ctx.method = span("tools/call");
    ctx.name = span(" echo\t");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(echo_calls, 1);
    ctx.name = span("big");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}");
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    CHECK_INT(echo_calls, 1);
    ctx.name = span("ECHO");
    HANDLE(&server, &ctx,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"echo\"}}");
    CHECK_ERROR("1", MCP_RPC_HEADER_MISMATCH, 400);
    CHECK_INT(echo_calls, 1);
}

static void test_legacy(void)
{
    const char *versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25"};
    for (size_t i = 0; i < 4; i++) {
        char req[256];
        char want[64];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
                 "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
                 versions[i]);
        snprintf(want, sizeof want, "\"%s\"", versions[i]);
        HANDLE(&server, NULL, req);
        CHECK_INT(R.info.rpc_error, 0);
        CHECK_INT(R.info.http_status, 200);
        CHECK_AT("result>protocolVersion", want);
        CHECK_AT("result>capabilities>tools", "{\"listChanged\":false}");
        CHECK_AT("result>serverInfo", "{\"name\":\"" SERVER_NAME "\",\"version\":\"" SERVER_VERSION "\"}");
        CHECK_ABSENT("result>resultType");
        CHECK_ABSENT("result>_meta");
    }
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
           "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{"
               "\"tools\":{\"listChanged\":false}},\"serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"}}}",
               0, 200);

    /* Versions not served in the handshake get the newest legacy one. */
    const char *other[] = {"\"2024-01-01\"", "\"2026-07-28\"", "\"\"", "20251125", "null"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        char req[256];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":%s,"
                 "\"capabilities\":{}}}",
                 other[i]);
        HANDLE(&server, NULL, req);
        CHECK_AT("result>protocolVersion", "\"2025-11-25\"");
    }

    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", 0, 200);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\",\"params\":{}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}", 0, 200);

    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(resp_count("result"), 1);
    CHECK_INT(resp_count("result>tools"), 3);
    CHECK_ABSENT("result>resultType");
    CHECK_ABSENT("result>ttlMs");
    CHECK_ABSENT("result>cacheScope");
    CHECK_ABSENT("result>_meta");

    echo_calls = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],"
               "\"isError\":false}}",
               0, 200);
    CHECK_INT(echo_calls, 1);

    /* Unknown methods and tools in the legacy era: HTTP 200, the status its
     * clients read an error with (a 404 would mean "session ended"). */
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such\"}");
    CHECK_ERROR("4", MCP_RPC_METHOD_NOT_FOUND, 200);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Unknown tool: nope\"}}",
               MCP_RPC_INVALID_PARAMS, 200);
}

/* mcp_server_handle on several threads at once (the echo tool allows it). */
#define THREADS 4
#define PER_THREAD 200

static void *worker(void *arg)
{
    long idx = (long)(intptr_t)arg;
    long bad = 0;
    char req[256];
    char want[256];
    unsigned char out[512];
    for (int i = 0; i < PER_THREAD; i++) {
        mcp_response_info_t info;
        bool modern = (i & 1) != 0;
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":\"t%ld-%d\",\"method\":\"tools/call\",\"params\":{%s\"name\":\"echo\"}}",
                 idx, i, modern ? ENVELOPE "," : "");
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":\"t%ld-%d\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
                 "\"ok\"}],\"isError\":false%s}}",
                 idx, i,
                 modern ? ",\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":"
                          "\"test-server\",\"version\":\"1.2.3\"}}"
                        : "");
        int rc = mcp_server_handle(&server, NULL, (const uint8_t *)req, strlen(req), out, sizeof out, &info);
        if (rc != (int)strlen(want) || memcmp(out, want, strlen(want)) != 0 || info.rpc_error != 0) {
            bad++;
        }
    }
    return (void *)(intptr_t)bad;
}

static void test_threads(void)
{
    pthread_t th[THREADS];
    echo_calls = 0;
    for (long i = 0; i < THREADS; i++) {
        CHECK_INT(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i), 0);
    }
    long bad = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r = NULL;
        CHECK_INT(pthread_join(th[i], &r), 0);
        bad += (long)(intptr_t)r;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(__atomic_load_n(&echo_calls, __ATOMIC_SEQ_CST), THREADS * PER_THREAD);
}

int main(void)
{
    setup();
    test_response_cap();
    test_result_too_big();
    test_notifications();
    test_ids();
    test_invalid_messages();
    test_limits();
    test_modern();
    test_headers();
    test_legacy();
    test_threads();
    return check_summary("test_protocol");
}
