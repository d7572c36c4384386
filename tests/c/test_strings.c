/* The text convention of emcp.h: each pointer + length form (suffix _n) and
 * each NUL-terminated form (suffix _cstr) writes exactly what its other form
 * writes. The same requests run twice, once through the short names
 * (mcp_log, mcp_progress, mcp_json_key, mcp_result_completion,
 * mcp_server_enable, mcp_server_resource_updated, mcp_result_text,
 * mcp_result_error, mcp_json_string) and once through the other forms, given
 * text that goes on past `len`; the two transcripts (every return code,
 * response and emitted notification) must be byte-identical. */
#include "check.h"

#include <stdarg.h>

/* 0: the short names; 1: the _n / _cstr forms. */
static int form;

/* Everything one run produced, in order. */
static char transcript[2][16384];
static size_t used[2];

static void note(const char *fmt, ...)
{
    char *t = transcript[form];
    size_t room = sizeof transcript[0] - used[form];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t + used[form], room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        fprintf(stderr, "transcript full\n");
        exit(2);
    }
    used[form] += (size_t)n;
}

static int emit(void *transport_context, const uint8_t *msg, size_t len)
{
    note("%s emit: %.*s\n", (const char *)transport_context, (int)len, (const char *)msg);
    return 0;
}

static int tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (form == 0) {
        note("progress %d\n", mcp_progress(call, 1, 4, "half"));
        note("progress %d\n", mcp_progress(call, 2, -1, NULL));
        note("progress %d\n", mcp_progress(call, 3, 4, ""));
        note("progress %d\n", mcp_progress(call, 3, 4, "\xff"));
        note("log %d\n", mcp_log(call, MCP_LOG_WARNING, "warm"));
        note("log %d\n", mcp_log(call, MCP_LOG_INFO, "\xc3\xa9t\xc3\xa9"));
        note("log %d\n", mcp_log(call, MCP_LOG_INFO, "\xff"));
        note("log %d\n", mcp_log(call, 99, "x"));
        note("text %d\n", mcp_result_text(r, "hi", 2));
        note("text %d\n", mcp_result_text(r, "\xff", 1));
        note("text %d\n", mcp_result_text(r, NULL, 1));
        note("log %d\n", mcp_log(call, MCP_LOG_INFO, NULL));
        note("error %d\n", mcp_result_error(r, "too hot", 7));
        note("begin %d\n", mcp_result_structured_begin(r));
        note("key %d\n", mcp_json_key(r, "zone"));
        note("string %d\n", mcp_json_string(r, "north", 5));
        note("key %d\n", mcp_json_key(r, "\xff"));
        note("key %d\n", mcp_json_key(r, "empty"));
        note("string %d\n", mcp_json_string(r, "", 0));
        note("end %d\n", mcp_result_structured_end(r));
    } else {
        /* Each text goes on past `len`: only `len` bytes may be read. */
        note("progress %d\n", mcp_progress_n(call, 1, 4, "half time", 4));
        note("progress %d\n", mcp_progress_n(call, 2, -1, NULL, 0));
        note("progress %d\n", mcp_progress_n(call, 3, 4, "zz", 0));
        note("progress %d\n", mcp_progress_n(call, 3, 4, "\xff" "a", 1));
        note("log %d\n", mcp_log_n(call, MCP_LOG_WARNING, "warmer", 4));
        note("log %d\n", mcp_log_n(call, MCP_LOG_INFO, "\xc3\xa9t\xc3\xa9\xc3\xa9", 5));
        note("log %d\n", mcp_log_n(call, MCP_LOG_INFO, "\xff", 1));
        note("log %d\n", mcp_log_n(call, 99, "x", 1));
        note("text %d\n", mcp_result_text_cstr(r, "hi"));
        note("text %d\n", mcp_result_text_cstr(r, "\xff"));
        note("text %d\n", mcp_result_text_cstr(r, NULL));
        note("log %d\n", mcp_log_n(call, MCP_LOG_INFO, NULL, 1));
        note("error %d\n", mcp_result_error_cstr(r, "too hot"));
        note("begin %d\n", mcp_result_structured_begin(r));
        note("key %d\n", mcp_json_key_n(r, "zones", 4));
        note("string %d\n", mcp_json_string_cstr(r, "north"));
        note("key %d\n", mcp_json_key_n(r, "\xff" "a", 1));
        note("key %d\n", mcp_json_key_n(r, "empty!", 5));
        note("string %d\n", mcp_json_string_cstr(r, ""));
        note("end %d\n", mcp_result_structured_end(r));
    }
    return 0;
}

static int complete(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    if (form == 0) {
        note("completion %d\n", mcp_result_completion(r, "alpha"));
        note("completion %d\n", mcp_result_completion(r, "\xff"));
        note("completion %d\n", mcp_result_completion(r, "be"));
        note("completion %d\n", mcp_result_completion(r, NULL));
    } else {
        note("completion %d\n", mcp_result_completion_n(r, "alphabet", 5));
        note("completion %d\n", mcp_result_completion_n(r, "\xff", 1));
        note("completion %d\n", mcp_result_completion_n(r, "beta", 2));
        note("completion %d\n", mcp_result_completion_n(r, NULL, 1));
    }
    return 0;
}

static int read_fixed(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return mcp_result_resource_text(r, "a://t", "text/plain", "t", 1, NULL);
}

static int enable(mcp_server_t *s, const char *name, bool on)
{
    if (form == 0) {
        return mcp_server_enable(s, MCP_LIST_TOOLS, name, on);
    }
    char padded[32];
    snprintf(padded, sizeof padded, "%s tool", name);
    return mcp_server_enable_n(s, MCP_LIST_TOOLS, padded, strlen(name), on);
}

static int updated(mcp_server_t *s, const char *uri)
{
    if (form == 0) {
        return mcp_server_resource_updated(s, uri);
    }
    char padded[32];
    snprintf(padded, sizeof padded, "%s/more", uri);
    return mcp_server_resource_updated_n(s, padded, strlen(uri));
}

static void request(mcp_server_t *s, const mcp_request_ctx_t *ctx, const char *req)
{
    HANDLE(s, ctx, req);
    note("response %d: %s\n", R.rc, R.text);
}

#define CALL_TOOL                                                                           \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"       \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                             \
    "\"io.modelcontextprotocol/clientCapabilities\":{},\"progressToken\":\"p\","             \
    "\"io.modelcontextprotocol/logLevel\":\"debug\"},\"name\":\"both\"}}"

static void run(void)
{
    static mcp_server_t servers[2];
    static mcp_listener_t listeners[2];
    mcp_server_t *s = &servers[form];
    init_server(s, 5, MCP_CACHE_PUBLIC);
    /* 108: the largest result tool writes here (measured). */
    const mcp_tool_t both = {.name = "both", .input_schema = "{\"type\":\"object\"}", .max_result_len = 108};
    const mcp_tool_t extra = {.name = "extra", .input_schema = "{\"type\":\"object\"}", .max_result_len = 108};
    const mcp_resource_t fixed = {.uri = "a://t", .name = "t", .mime_type = "text/plain"};
    CHECK_INT(mcp_server_add_tool(s, &both, tool, NULL), 0);
    CHECK_INT(mcp_server_add_tool(s, &extra, tool, NULL), 0);
    CHECK_INT(mcp_server_add_resource(s, &fixed, read_fixed, NULL), 0);
    CHECK_INT(mcp_server_set_completion(s, complete, NULL), 0);

    mcp_request_ctx_t call_ctx = {.emit = emit, .transport_context = "call"};
    request(s, &call_ctx, CALL_TOOL);
    request(s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\",\"params\":{" ENVELOPE
                     ",\"ref\":{\"type\":\"ref/resource\",\"uri\":\"a://t\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}}");

    mcp_request_ctx_t listen_ctx = {.emit = emit, .transport_context = "stream", .listener = &listeners[form]};
    request(s, &listen_ctx, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"subscriptions/listen\",\"params\":{" ENVELOPE
                            ",\"notifications\":{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"a://t\"]}}}");
    note("enable %d\n", enable(s, "extra", false));
    note("enable %d\n", enable(s, "extra", false));
    note("enable %d\n", enable(s, "extr", false));
    request(s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}");
    note("enable %d\n", enable(s, "extra", true));
    note("updated %d\n", updated(s, "a://t"));
    note("updated %d\n", updated(s, "a://"));
    CHECK_INT(mcp_server_listen_end(s, &listeners[form], NULL, 0), 0);
}

int main(void)
{
    for (form = 0; form < 2; form++) {
        run();
    }
    /* The short names' run did what the convention's forms are compared with. */
    CHECK(strstr(transcript[0], "\"message\":\"half\"") != NULL);
    CHECK(strstr(transcript[0], "\"data\":\"warm\"") != NULL);
    CHECK(strstr(transcript[0], "\"structuredContent\":{\"zone\":\"north\",\"empty\":\"\"}") != NULL);
    CHECK(strstr(transcript[0], "\"values\":[\"alpha\",\"be\"]") != NULL);
    CHECK(strstr(transcript[0], "enable 1\nenable 0\nenable -2\n") != NULL);
    CHECK(strstr(transcript[0], "updated 1\nupdated 0\n") != NULL);
    CHECK(strstr(transcript[0], "log -84\n") != NULL);
    /* The two runs wrote the same bytes. */
    if (!CHECK(used[0] == used[1] && memcmp(transcript[0], transcript[1], used[0]) == 0)) {
        fprintf(stderr, "--- short names:\n%s--- _n / _cstr forms:\n%s", transcript[0], transcript[1]);
    }

    /* NULL: a _cstr form refuses it; a _n form takes it only with len 0. */
    CHECK_INT(mcp_result_text_cstr(NULL, "x"), -MCP_EINVAL);
    CHECK_INT(mcp_log_n(NULL, MCP_LOG_INFO, NULL, 1), -MCP_EINVAL);
    CHECK_INT(mcp_server_enable_n(NULL, MCP_LIST_TOOLS, "x", 1, true), -MCP_EINVAL);
    CHECK_INT(mcp_server_enable(NULL, MCP_LIST_TOOLS, NULL, true), -MCP_EINVAL);
    CHECK_INT(mcp_server_resource_updated_n(NULL, NULL, 1), -MCP_EINVAL);
    CHECK_INT(mcp_server_resource_updated(NULL, NULL), -MCP_EINVAL);
    return check_summary("test_strings");
}
