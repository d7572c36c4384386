/*
 * test_server: mcp_server_init, mcp_server_add_tool and what they make
 * tools/list, server/discover and initialize say.
 */
#include "check.h"

static int nop_calls;

static int nop_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)result;
    (void)user;
    nop_calls++;
    return 0;
}

/* The smallest input schema the core accepts: the root must declare "type":"object". */
#define OBJ "{\"type\":\"object\"}"

static mcp_tool_t tool_def(const char *name, const char *schema)
{
    mcp_tool_t t = {
        .name = name,
        .title = NULL,
        .description = NULL,
        .input_schema = schema,
        .output_schema = NULL,
        .annotations = 0,
        /* nop_tool writes nothing; 1 is the least a tool that is not
         * read-only can declare. */
        .max_result_len = 1,
    };
    return t;
}

static void test_init_arguments(void)
{
    static mcp_server_t s;
    mcp_server_config_t ok = {.name = "n", .version = "1", .cache_scope = MCP_CACHE_PRIVATE};
    mcp_server_config_t c;

    CHECK_INT(mcp_server_init(NULL, &ok), -MCP_EINVAL);
    CHECK_INT(mcp_server_init(&s, NULL), -MCP_EINVAL);

    c = ok;
    c.name = NULL;
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);
    c = ok;
    c.name = "";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);
    c = ok;
    c.version = NULL;
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);
    c = ok;
    c.version = "";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);

    /* Invalid UTF-8 in each string: a stray continuation byte, a truncated
     * sequence, an encoded surrogate, an overlong NUL. */
    c = ok;
    c.name = "bad\xff";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EILSEQ);
    c = ok;
    c.version = "1\xc3";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EILSEQ);
    c = ok;
    c.title = "\xed\xa0\x80";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EILSEQ);
    c = ok;
    c.instructions = "x\xc0\x80y";
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EILSEQ);

    c = ok;
    c.cache_scope = 2;
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);
    c = ok;
    c.cache_scope = 0xFFFFFFFFu;
    CHECK_INT(mcp_server_init(&s, &c), -MCP_EINVAL);

    c = ok;
    c.name = "caf\xc3\xa9";
    c.cache_scope = MCP_CACHE_PUBLIC;
    CHECK_INT(mcp_server_init(&s, &c), 0);
    CHECK_INT(mcp_server_init(&s, &ok), 0);
}

static void test_uninitialised_server(void)
{
    static mcp_server_t zero; /* static storage: all zero, never initialised */
    mcp_server_t junk;
    mcp_tool_t t = tool_def("t", OBJ);
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    unsigned char out[MCP_MIN_RESPONSE_CAP];
    mcp_response_info_t info;

    CHECK_INT(sizeof(mcp_server_t), MCP_SERVER_SIZE);
    CHECK(_Alignof(mcp_server_t) >= 8);

    CHECK_INT(mcp_server_add_tool(&zero, &t, nop_tool, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_handle(&zero, NULL, (const uint8_t *)ping, strlen(ping), out, sizeof out, &info),
              -MCP_EINVAL);

    memset(&junk, 0xFF, sizeof junk);
    CHECK_INT(mcp_server_add_tool(&junk, &t, nop_tool, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_handle(&junk, NULL, (const uint8_t *)ping, strlen(ping), out, sizeof out, &info),
              -MCP_EINVAL);

    /* NULL arguments on an initialised server. */
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_add_tool(NULL, &t, nop_tool, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_add_tool(&s, NULL, nop_tool, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_handle(NULL, NULL, (const uint8_t *)ping, strlen(ping), out, sizeof out, &info),
              -MCP_EINVAL);
    CHECK_INT(mcp_server_handle(&s, NULL, (const uint8_t *)ping, strlen(ping), NULL, sizeof out, &info),
              -MCP_EINVAL);
    CHECK_INT(mcp_server_handle(&s, NULL, NULL, 5, out, sizeof out, &info), -MCP_EINVAL);

    /* info and ctx may be NULL. */
    int rc = mcp_server_handle(&s, NULL, (const uint8_t *)ping, strlen(ping), out, sizeof out, NULL);
    CHECK_MEM(out, rc > 0 ? (size_t)rc : 0, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
}

static void test_add_tool_validation(void)
{
    static mcp_server_t s;
    mcp_tool_t t;
    char name128[MCP_MAX_TOOL_NAME_LEN + 1];
    char name129[MCP_MAX_TOOL_NAME_LEN + 2];

    init_server(&s, 0, MCP_CACHE_PRIVATE);

    t = tool_def("ok", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, NULL, NULL), -MCP_EINVAL);

    /* Names: 1..128 characters of [A-Za-z0-9_.-]. */
    t = tool_def(NULL, OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("has space", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("slash/name", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("caf\xc3\xa9", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("quote\"", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t = tool_def("bad\xff", OBJ);
    int rc = mcp_server_add_tool(&s, &t, nop_tool, NULL);
    CHECK(rc == -MCP_EILSEQ || rc == -MCP_EINVAL);

    memset(name129, 'a', sizeof name129 - 1);
    name129[sizeof name129 - 1] = '\0';
    CHECK_INT(strlen(name129), 129);
    t = tool_def(name129, OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);

    /* Schemas: exactly one JSON object whose root declares "type":"object"
     * (test_schema covers every keyword; these are the malformed texts). */
    t = tool_def("schema", NULL);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    const char *bad_schemas[] = {
        "",         "   ",        "[]",         "\"object\"", "42",          "null",
        "{",        "{\"a\":}",   "{} {}",      "{}x",        "{\"a\":1,}",  "{'a':1}",
        "{\"a\":01}", "{\"a\":\"\x01\"}",
        /* Well-formed JSON, but the root does not declare "type":"object". */
        "{}", " { } ", "{\"type\":\"string\"}", "{\"type\":[\"object\",\"null\"]}",
        "{\"type\":\"object\"} {}", "{\"type\":\"object\"}x",
    };
    for (size_t i = 0; i < sizeof bad_schemas / sizeof bad_schemas[0]; i++) {
        char why[200];
        t = tool_def("schema", bad_schemas[i]);
        rc = mcp_server_add_tool(&s, &t, nop_tool, NULL);
        if (!check_record(rc == -MCP_EINVAL, __FILE__, __LINE__, "bad input_schema refused with -MCP_EINVAL")) {
            mcp_server_schema_error(&s, why, sizeof why);
            fprintf(stderr, "    schema: %s\n    rc %d, schema error: %s\n", bad_schemas[i], rc, why);
        }
        t = tool_def("schema", OBJ);
        t.output_schema = bad_schemas[i];
        rc = mcp_server_add_tool(&s, &t, nop_tool, NULL);
        if (!check_record(rc == -MCP_EINVAL, __FILE__, __LINE__, "bad output_schema refused with -MCP_EINVAL")) {
            mcp_server_schema_error(&s, why, sizeof why);
            fprintf(stderr, "    schema: %s\n    rc %d, schema error: %s\n", bad_schemas[i], rc, why);
        }
    }

    /* Unknown annotation bits. */
    t = tool_def("ann", OBJ);
    t.annotations = 16;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t.annotations = 0x80000000u;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    t.annotations = MCP_TOOL_READ_ONLY | 0x100;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);

    /* Invalid UTF-8 in an optional string. */
    t = tool_def("utf", OBJ);
    t.description = "d\xe2\x82";
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EILSEQ);
    t = tool_def("utf", OBJ);
    t.title = "\x80";
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EILSEQ);
    t = tool_def("utf", "{\"type\":\"object\",\"description\":\"\xff\"}");
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EILSEQ);

    /* None of the refused definitions was registered. */
    CHECK(HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}") > 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}", 0, 200);

    /* Boundaries that are valid. */
    memset(name128, 'b', sizeof name128 - 1);
    name128[sizeof name128 - 1] = '\0';
    t = tool_def(name128, OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
    t = tool_def("A-z_0.9", " \n{ \"type\" :\t\"object\" }\t");
    t.annotations = MCP_TOOL_READ_ONLY | MCP_TOOL_DESTRUCTIVE | MCP_TOOL_IDEMPOTENT | MCP_TOOL_OPEN_WORLD;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    /* Duplicate name, also with another definition. */
    t = tool_def("A-z_0.9", "{\"type\":\"object\"}");
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EEXIST);
    t = tool_def(name128, OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EEXIST);
    /* Names are case-sensitive. */
    t = tool_def("a-Z_0.9", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    CHECK(HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}") > 0);
    CHECK_INT(resp_count("result>tools"), 3);
    CHECK_AT("result>tools>1>name", "\"A-z_0.9\"");
    CHECK_AT("result>tools>1>inputSchema", "{\"type\":\"object\"}");
    CHECK_AT("result>tools>2>name", "\"a-Z_0.9\"");
}

static void test_capacity(void)
{
    static mcp_server_t s;
    static char names[MCP_MAX_TOOLS + 1][16];
    mcp_tool_t t;

    init_server(&s, 0, MCP_CACHE_PRIVATE);
    for (int i = 0; i < MCP_MAX_TOOLS; i++) {
        snprintf(names[i], sizeof names[i], "t%02d", MCP_MAX_TOOLS - i);
        t = tool_def(names[i], OBJ);
        CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
        /* A refused registration in between takes no slot. */
        t = tool_def("bad name", OBJ);
        CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_EINVAL);
    }
    snprintf(names[MCP_MAX_TOOLS], sizeof names[MCP_MAX_TOOLS], "one_more");
    t = tool_def(names[MCP_MAX_TOOLS], OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_ENOSPC);

    CHECK(HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}") > 0);
    CHECK_INT(resp_count("result>tools"), MCP_MAX_TOOLS);
    /* Registration order, which here is reverse alphabetical. */
    for (int i = 0; i < MCP_MAX_TOOLS; i++) {
        char path[32];
        char want[32];
        const char *v;
        size_t vl;
        snprintf(path, sizeof path, "result>tools>%d>name", i);
        snprintf(want, sizeof want, "\"%.15s\"", names[i]);
        bool ok = tj_lookup(R.text, R.len, path, &v, &vl) == 0 && vl == strlen(want) && memcmp(v, want, vl) == 0;
        if (!check_record(ok, __FILE__, __LINE__, "tools/list keeps registration order"))
            fprintf(stderr, "    position %d: expected %s\n", i, want);
    }

    /* The last registered tool can be called. */
    nop_calls = 0;
    CHECK(HANDLE(&s, NULL,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t01\"}}") > 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[],\"isError\":false}}", 0, 200);
    CHECK_INT(nop_calls, 1);
}

static void test_list_contents(void)
{
    static mcp_server_t s;
    mcp_tool_t t;

    init_server(&s, 60000, MCP_CACHE_PUBLIC);

    t = tool_def("zeta", "{ \"type\" : \"object\",\n  \"properties\" : {\r\n\t\"a b\" : { \"type\" : \"string\", "
                         "\"default\" : \"x  y\" } },\n  \"required\" : [ \"a b\" ] }\n");
    t.title = "Zeta tool";
    t.description = "Does \"z\"\nand\\more";
    t.output_schema = "{\n  \"type\": \"object\",\n  \"properties\": { \"q\": { \"const\": \"a\\\" b\" } }\n}";
    t.annotations = MCP_TOOL_READ_ONLY | MCP_TOOL_IDEMPOTENT;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    t = tool_def("alpha", OBJ);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    t = tool_def("mid", "{\"type\" : \"object\" , \"description\" : \"\\\\\" , \"examples\" : [ 1 , 2.5e3 , true , null ] }");
    t.annotations = MCP_TOOL_DESTRUCTIVE | MCP_TOOL_OPEN_WORLD;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    t = tool_def("all", OBJ);
    t.annotations = MCP_TOOL_READ_ONLY | MCP_TOOL_DESTRUCTIVE | MCP_TOOL_IDEMPOTENT | MCP_TOOL_OPEN_WORLD;
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    /* Legacy: the tools only. */
    CHECK(HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}") > 0);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(R.info.http_status, 200);
    CHECK_INT(resp_count("result"), 1);
    CHECK_INT(resp_count("result>tools"), 4);

    CHECK_AT("result>tools>0>name", "\"zeta\"");
    CHECK_AT("result>tools>0>title", "\"Zeta tool\"");
    CHECK_AT("result>tools>0>description", "\"Does \\\"z\\\"\\nand\\\\more\"");
    CHECK_AT("result>tools>0>inputSchema",
             "{\"type\":\"object\",\"properties\":{\"a b\":{\"type\":\"string\",\"default\":\"x  y\"}},"
             "\"required\":[\"a b\"]}");
    CHECK_AT("result>tools>0>outputSchema", "{\"type\":\"object\",\"properties\":{\"q\":{\"const\":\"a\\\" b\"}}}");
    /* The tool's title is repeated in annotations (issue 3: annotations carry title). */
    CHECK_AT("result>tools>0>annotations",
             "{\"title\":\"Zeta tool\",\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,"
             "\"openWorldHint\":false}");
    CHECK_INT(resp_count("result>tools>0"), 6);

    CHECK_AT("result>tools>1>name", "\"alpha\"");
    CHECK_AT("result>tools>1>inputSchema", "{\"type\":\"object\"}");
    CHECK_ABSENT("result>tools>1>annotations");
    CHECK_ABSENT("result>tools>1>title");
    CHECK_ABSENT("result>tools>1>description");
    CHECK_ABSENT("result>tools>1>outputSchema");
    CHECK_INT(resp_count("result>tools>1"), 2);

    CHECK_AT("result>tools>2>name", "\"mid\"");
    CHECK_AT("result>tools>2>inputSchema", "{\"type\":\"object\",\"description\":\"\\\\\",\"examples\":[1,2.5e3,true,null]}");
    CHECK_AT("result>tools>2>annotations",
             "{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}");

    CHECK_AT("result>tools>3>annotations",
             "{\"readOnlyHint\":true,\"destructiveHint\":true,\"idempotentHint\":true,\"openWorldHint\":true}");

    /* Modern: the same tools plus resultType, cache hints and the serverInfo stamp. */
    CHECK(HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}") > 0);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(R.info.http_status, 200);
    CHECK_AT("result>resultType", "\"complete\"");
    CHECK_INT(resp_count("result>tools"), 4);
    CHECK_AT("result>tools>0>name", "\"zeta\"");
    CHECK_AT("result>tools>3>name", "\"all\"");
    CHECK_AT("result>ttlMs", "60000");
    CHECK_AT("result>cacheScope", "\"public\"");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo",
             "{\"name\":\"" SERVER_NAME "\",\"version\":\"" SERVER_VERSION "\"}");
    CHECK_ABSENT("result>nextCursor");

    /* A cursor was never handed out, so any cursor is invalid. */
    CHECK(HANDLE(&s, NULL,
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"abc\"}}") > 0);
    CHECK_AT("id", "3");
    CHECK_AT("error>code", "-32602");
    CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_PARAMS);
    CHECK_INT(R.info.http_status, 200); /* a 2025-11-25 request: its errors travel with 200 */
}

static void test_list_exact(void)
{
    static mcp_server_t s;
    mcp_tool_t t = tool_def("only", "{\"type\": \"object\"}");

    init_server(&s, 0, MCP_CACHE_PRIVATE);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"only\",\"inputSchema\":{\"type\":"
               "\"object\"}}]}}",
               0, 200);

    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"tools\":[{\"name\":\"only\","
               "\"inputSchema\":{\"type\":\"object\"}}],\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io."
               "modelcontextprotocol/serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"}}}}",
               0, 200);
}

static void test_identity(void)
{
    static mcp_server_t s;
    mcp_server_config_t c = {
        .name = "id-server",
        .version = "0.9.1-rc1",
        .title = "Greenhouse \"GH-1\"",
        .instructions = "Use read_sensors first.\nNever \\ twice.",
        .list_ttl_ms = 4294967295u,
        .cache_scope = MCP_CACHE_PUBLIC,
    };
    CHECK_INT(mcp_server_init(&s, &c), 0);

    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>instructions", "\"Use read_sensors first.\\nNever \\\\ twice.\"");
    CHECK_AT("result>ttlMs", "4294967295");
    CHECK_AT("result>cacheScope", "\"public\"");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo>name", "\"id-server\"");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo>version", "\"0.9.1-rc1\"");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo>title", "\"Greenhouse \\\"GH-1\\\"\"");

    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
           "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>protocolVersion", "\"2025-11-25\"");
    CHECK_AT("result>serverInfo>name", "\"id-server\"");
    CHECK_AT("result>serverInfo>version", "\"0.9.1-rc1\"");
    CHECK_AT("result>serverInfo>title", "\"Greenhouse \\\"GH-1\\\"\"");
    CHECK_AT("result>instructions", "\"Use read_sensors first.\\nNever \\\\ twice.\"");
    CHECK_AT("result>capabilities>tools", "{\"listChanged\":false}");

    /* Without title and instructions neither is listed. */
    static mcp_server_t plain;
    init_server(&plain, 0, MCP_CACHE_PRIVATE);
    HANDLE(&plain, NULL, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}");
    CHECK_ABSENT("result>instructions");
    CHECK_ABSENT("result>_meta>io.modelcontextprotocol/serverInfo>title");
    HANDLE(&plain, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{}}");
    CHECK_ABSENT("result>instructions");
    CHECK_ABSENT("result>serverInfo>title");
}

/* The functions that write the server take a non-const pointer (rate-limit
 * claims, listen-stream links, enable flags), so the signatures say what
 * the calls do. With -Werror these initialisations fail to compile if any
 * of them goes back to `const mcp_server_t *`; the read-only queries keep
 * their const pointer. */
static int (*const writes_handle)(mcp_server_t *, const mcp_request_ctx_t *, const uint8_t *, size_t, uint8_t *,
                                  size_t, mcp_response_info_t *) = mcp_server_handle;
static int (*const writes_enable)(mcp_server_t *, uint32_t, const char *, bool) = mcp_server_enable;
static int (*const writes_notify)(mcp_server_t *, uint32_t) = mcp_server_notify_list_changed;
static int (*const writes_updated)(mcp_server_t *, const char *) = mcp_server_resource_updated;
static int (*const reads_error)(const mcp_server_t *, char *, size_t) = mcp_server_schema_error;

int main(void)
{
    CHECK(writes_handle && writes_enable && writes_notify && writes_updated && reads_error);
    test_init_arguments();
    test_uninitialised_server();
    test_add_tool_validation();
    test_capacity();
    test_list_contents();
    test_list_exact();
    test_identity();
    return check_summary("test_server");
}
