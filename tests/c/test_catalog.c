/* Resources, prompts, completion, live lists and listen streams through the
 * public header: mcp_server_add_resource / _add_prompt / _set_completion,
 * mcp_call_uri(_var), mcp_result_role / _completion, mcp_server_enable,
 * mcp_listener_t with mcp_server_notify_list_changed, _resource_updated,
 * mcp_server_listen_end and mcp_listener_active. */
#include "check.h"

static mcp_server_t server;

/* What each stream's emit hook received. */
typedef struct {
    char msgs[8][512];
    int n;
    int fail; /* return this from emit when non-zero */
} stream_t;

static int stream_emit(void *transport_context, const uint8_t *msg, size_t len)
{
    stream_t *s = transport_context;
    if (s->fail) {
        return s->fail;
    }
    if (s->n < 8 && len < sizeof s->msgs[0]) {
        memcpy(s->msgs[s->n], msg, len);
        s->msgs[s->n][len] = '\0';
    }
    s->n++;
    return 0;
}

static int reads;

static int read_item(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    reads++;
    char id[8];
    int n = mcp_call_uri_var(call, "id", id, sizeof id);
    if (n == -MCP_ENOBUFS) {
        return -MCP_ENOENT;
    }
    CHECK(n > 0);
    CHECK_INT(mcp_call_uri_var(call, "nope", id, sizeof id), -MCP_ENOENT);
    size_t len = 0;
    const char *uri = mcp_call_uri(call, &len);
    char uri_z[MCP_MAX_URI_LEN + 1];
    snprintf(uri_z, sizeof uri_z, "%.*s", (int)len, uri);
    /* Only contents belong in a read. */
    CHECK_INT(mcp_result_text(r, "x", 1), -MCP_EPERM);
    CHECK_INT(mcp_result_completion(r, "x"), -MCP_EPERM);
    return mcp_result_resource_text(r, uri_z, "text/plain", id, (size_t)n, NULL);
}

static int prompt(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char who[16];
    CHECK_INT(mcp_arg_string(call, "who", who, sizeof who, NULL), 0);
    CHECK_INT(mcp_result_structured_begin(r), -MCP_EPERM);
    int rc = mcp_result_text(r, who, strlen(who));
    rc |= mcp_result_role(r, MCP_ROLE_ASSISTANT);
    rc |= mcp_result_text(r, "ok", 2);
    CHECK_INT(mcp_result_role(r, 7), -MCP_EINVAL);
    return rc;
}

static int complete(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char v[8];
    CHECK_INT(mcp_arg_string(call, "argument.value", v, sizeof v, NULL), 0);
    CHECK_INT(mcp_result_role(r, MCP_ROLE_USER), -MCP_EPERM);
    return mcp_result_completion(r, "alpha") | mcp_result_completion(r, "beta");
}

static int tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    /* A tool that changes the tool list: allowed inside a callback. */
    CHECK_INT(mcp_server_enable(&server, MCP_LIST_TOOLS, "extra", true), 1);
    CHECK_INT(mcp_call_uri(call, NULL) == NULL, 1);
    return mcp_result_text(r, "done", 4);
}

static const char text_png[] = {(char)0x89, 'P', 'N', 'G'};

int main(void)
{
    init_server(&server, 5, MCP_CACHE_PUBLIC);
    const mcp_resource_t fixed = {.uri = "a://text", .name = "text", .mime_type = "text/plain", .text = "hello"};
    const mcp_resource_t blob = {.uri = "a://blob", .name = "blob", .blob = (const uint8_t *)text_png, .blob_len = 4};
    const mcp_resource_t tmpl = {.uri = "a://item/{id}", .name = "item"};
    const mcp_resource_t both = {.uri = "a://both", .name = "b", .text = "x", .blob = (const uint8_t *)"y", .blob_len = 1};
    const mcp_resource_t bad_tmpl = {.uri = "a://{id", .name = "x"};
    CHECK_INT(mcp_server_add_resource(&server, &fixed, NULL, NULL), 0);
    CHECK_INT(mcp_server_add_resource(&server, &blob, NULL, NULL), 0);
    CHECK_INT(mcp_server_add_resource(&server, &tmpl, read_item, NULL), 0);
    CHECK_INT(mcp_server_add_resource(&server, &fixed, NULL, NULL), -MCP_EEXIST);
    CHECK_INT(mcp_server_add_resource(&server, &both, NULL, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_add_resource(&server, &tmpl, NULL, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_add_resource(&server, &bad_tmpl, read_item, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_add_resource(&server, NULL, NULL, NULL), -MCP_EINVAL);
    const mcp_prompt_t p = {.name = "hello", .description = "Says hello",
                            .arguments = "[{\"name\":\"who\",\"required\":true}]"};
    const mcp_prompt_t bad_p = {.name = "bad", .arguments = "{\"name\":\"who\"}"};
    CHECK_INT(mcp_server_add_prompt(&server, &p, prompt, NULL), 0);
    CHECK_INT(mcp_server_add_prompt(&server, &bad_p, prompt, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_add_prompt(&server, &p, NULL, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_completion(&server, complete, NULL), 0);
    /* 29: tool's {"type":"text","text":"done"}. */
    const mcp_tool_t t = {.name = "change", .input_schema = "{\"type\":\"object\"}", .max_result_len = 29};
    const mcp_tool_t extra = {.name = "extra", .input_schema = "{\"type\":\"object\"}", .max_result_len = 29};
    CHECK_INT(mcp_server_add_tool(&server, &t, tool, NULL), 0);
    CHECK_INT(mcp_server_add_tool(&server, &extra, tool, NULL), 0);
    CHECK_INT(mcp_server_enable(&server, MCP_LIST_TOOLS, "extra", false), 1);
    CHECK_INT(mcp_server_enable(&server, MCP_LIST_TOOLS, "nope", false), -MCP_ENOENT);
    CHECK_INT(mcp_server_enable(&server, 99, "extra", false), -MCP_EINVAL);

    /* Reads. */
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{" ENVELOPE ",\"uri\":\"a://item/42\"}}");
    CHECK_AT("result>contents", "[{\"uri\":\"a://item/42\",\"mimeType\":\"text/plain\",\"text\":\"42\"}]");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{" ENVELOPE ",\"uri\":\"a://blob\"}}");
    CHECK_AT("result>contents>0>blob", "\"iVBORw==\"");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{" ENVELOPE ",\"uri\":\"a://item/123456789\"}}");
    CHECK_AT("error>code", "-32602");
    CHECK_AT("error>data>uri", "\"a://item/123456789\"");
    CHECK_INT(R.info.http_status, 400);
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\",\"params\":{" ENVELOPE "}}");
    CHECK_INT(resp_count("result>resources"), 2);
    CHECK_AT("result>resources>0", "{\"uri\":\"a://text\",\"name\":\"text\",\"mimeType\":\"text/plain\",\"size\":5}");

    /* Prompts and completion. */
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{" ENVELOPE ",\"name\":\"hello\",\"arguments\":{\"who\":\"Ada\"}}}");
    CHECK_AT("result>messages", "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Ada\"}},{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"ok\"}}]");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/get\",\"params\":{" ENVELOPE ",\"name\":\"hello\"}}");
    CHECK_AT("error>message", "\"Missing required argument: who\"");
    HANDLE(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\",\"params\":{" ENVELOPE ",\"ref\":{\"type\":\"ref/prompt\",\"name\":\"hello\"},\"argument\":{\"name\":\"who\",\"value\":\"a\"}}}");
    CHECK_AT("result>completion", "{\"values\":[\"alpha\",\"beta\"],\"hasMore\":false}");

    /* Listen: two streams with different filters. */
    static mcp_listener_t l1, l2, l3;
    stream_t s1 = {0}, s2 = {0};
    mcp_request_ctx_t c1 = {.emit = stream_emit, .transport_context = &s1, .listener = &l1};
    mcp_request_ctx_t c2 = {.emit = stream_emit, .transport_context = &s2, .listener = &l2};
    CHECK(!mcp_listener_active(&l1));
    HANDLE(&server, &c1, "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE ",\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"a://text\"]}}}");
    CHECK_INT(R.info.flags, MCP_RESPONSE_LISTEN);
    CHECK_AT("method", "\"notifications/subscriptions/acknowledged\"");
    CHECK_AT("params>_meta>io.modelcontextprotocol/subscriptionId", "\"s1\"");
    CHECK(mcp_listener_active(&l1));
    HANDLE(&server, &c2, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE ",\"notifications\":{\"promptsListChanged\":true}}}");
    CHECK_INT(R.info.flags, MCP_RESPONSE_LISTEN);
    /* Storage holding an open stream is never reused: the request gets -32601. */
    HANDLE(&server, &c1, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE ",\"notifications\":{}}}");
    CHECK_AT("error>code", "-32601");
    CHECK(mcp_listener_active(&l1));
    /* A tool that enables another tool from its callback: s1 hears of it, s2 did not ask. */
    mcp_request_ctx_t plain = {.emit = stream_emit, .transport_context = &s2};
    HANDLE(&server, &plain, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"change\"}}");
    CHECK_AT("result>content>0>text", "\"done\"");
    CHECK_INT(s1.n, 1);
    CHECK_STR(s1.msgs[0], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"s1\"}}}");
    CHECK_INT(s2.n, 0);
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_PROMPTS | MCP_LIST_TOOLS), 2);
    CHECK_INT(s2.n, 1);
    CHECK_STR(s2.msgs[0], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":7}}}");
    CHECK_INT(mcp_server_resource_updated(&server, "a://text"), 1);
    CHECK_STR(s1.msgs[2], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"s1\"},\"uri\":\"a://text\"}}");
    CHECK_INT(mcp_server_resource_updated(&server, "a://blob"), 0);
    /* A failing transport is counted, not fatal. */
    s2.fail = -MCP_ENOBUFS;
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_PROMPTS), 0);
    s2.fail = 0;
    /* Ending: the graceful response, then nothing more reaches the stream. */
    char end[256];
    int n = mcp_server_listen_end(&server, &l1, end, sizeof end);
    CHECK(n > 0);
    CHECK_MEM(end, (size_t)(n > 0 ? n : 0), "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"s1\"}}}");
    CHECK(!mcp_listener_active(&l1));
    CHECK_INT(mcp_server_listen_end(&server, &l1, end, sizeof end), 0);
    int before = s1.n;
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_TOOLS), 0);
    CHECK_INT(s1.n, before);
    /* The freed storage opens a new stream; the other stream is unaffected. */
    HANDLE(&server, &c1, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE ",\"notifications\":{\"toolsListChanged\":true}}}");
    CHECK_INT(R.info.flags, MCP_RESPONSE_LISTEN);
    mcp_request_ctx_t c3 = {.emit = stream_emit, .transport_context = &s2, .listener = &l3};
    HANDLE(&server, &c3, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE ",\"notifications\":{\"toolsListChanged\":true}}}");
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_TOOLS), 2);
    CHECK_INT(mcp_server_listen_end(&server, &l2, NULL, 0), 0); /* client gone: nothing to send */
    CHECK_INT(mcp_server_listen_end(&server, &l1, NULL, 0), 0);
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_TOOLS | MCP_LIST_PROMPTS), 1);
    CHECK_INT(mcp_server_listen_end(&server, &l3, end, 10), -MCP_ENOBUFS);
    CHECK_INT(mcp_server_notify_list_changed(&server, MCP_LIST_TOOLS), 0);
    CHECK_INT(mcp_server_listen_end(&server, NULL, NULL, 0), -MCP_EINVAL);

    /* Without listener storage, listen is not offered. */
    HANDLE(&server, &plain, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}");
    CHECK_AT("result>capabilities>tools", "{\"listChanged\":false}");
    CHECK_AT("result>capabilities>completions", "{}");
    return check_summary("test_catalog");
}
