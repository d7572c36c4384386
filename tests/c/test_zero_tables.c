/*
 * test_zero_tables: a firmware with no resources and no prompts pays nothing
 * for them. Built only with EMCP_LIMITS="MAX_RESOURCES=0;MAX_PROMPTS=0"
 * (scripts/test.d/35-buildtypes.sh): mcp_server_t shrinks by both tables,
 * registering into them says the table is full, and tools, discovery and the
 * (empty) lists still answer.
 */
#include "check.h"

static mcp_server_t server;

static int noop(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    return mcp_result_text(result, "ok", 2);
}

int main(void)
{
    CHECK_INT(MCP_MAX_RESOURCES, 0);
    CHECK_INT(MCP_MAX_PROMPTS, 0);
    /* The same formula with the default 8 resources and 6 prompts. */
#if defined(EMCP_PTR64)
    size_t with_defaults = MCP_SERVER_SIZE + 8 * 104 + 6 * 128;
#else
    size_t with_defaults = MCP_SERVER_SIZE + 8 * 56 + 6 * 88;
#endif
    printf("test_zero_tables: sizeof(mcp_server_t) = %zu bytes (%zu with the default tables)\n",
           sizeof(mcp_server_t), with_defaults);
    CHECK(sizeof(mcp_server_t) + 1000 < with_defaults);
    CHECK_INT(mcp_build_limit("MCP_SERVER_SIZE"), MCP_SERVER_SIZE);

    init_server(&server, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = {.name = "ping_tool", .input_schema = "{\"type\":\"object\"}", .max_result_len = 27};
    CHECK_INT(mcp_server_add_tool(&server, &t, noop, NULL), 0);
    mcp_resource_t r = {.uri = "demo://x", .name = "x", .text = "x"};
    CHECK_INT(mcp_server_add_resource(&server, &r, NULL, NULL), -MCP_ENOSPC);
    mcp_prompt_t p = {.name = "p"};
    CHECK_INT(mcp_server_add_prompt(&server, &p, noop, NULL), -MCP_ENOSPC);
    mcp_usage_t u;
    CHECK_INT(mcp_server_usage(&server, &u), 0);
    CHECK_INT(u.resources.capacity, 0);
    CHECK_INT(u.prompts.capacity, 0);

    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}");
    CHECK_AT("id", "1");
    CHECK_ABSENT("error");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" ENVELOPE
                          ",\"name\":\"ping_tool\",\"arguments\":{}}}");
    CHECK_AT("result>content>0>text", "\"ok\"");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\",\"params\":{" ENVELOPE "}}");
    CHECK_INT(resp_count("result>resources"), 0);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/list\",\"params\":{" ENVELOPE "}}");
    CHECK_INT(resp_count("result>prompts"), 0);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{" ENVELOPE
                          ",\"name\":\"p\"}}");
    CHECK_AT("error>code", "-32602");
    return check_summary("test_zero_tables");
}
