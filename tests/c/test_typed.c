/*
 * test_typed: typed arguments. emcp-gen turns tests/c/typed_tools.json into
 * a struct per tool (typed_tools.h); the core fills it from the validated
 * arguments through the layout in mcp_tool_t.args before the typed callback
 * runs. Checked here: every kind of member (integers as wide as their bounds,
 * bool, double, a string enum as its index, a decoded string, JSON text),
 * has_ flags, defaults, escaped strings decoded into the wrapper's text
 * area and plain ones left in the request, and the refusals of
 * mcp_call_args and of registration.
 */
#include "check.h"
#include "typed_tools.h"

#include <stddef.h>

static mcp_server_t server;
static int ran;
static struct typed_gauge_args seen;
static char label[32], note[64], where[64];
static bool label_in_request;
static const char *request;
static size_t request_len;

static void copy_span(char *out, size_t cap, const mcp_str_t *s)
{
    size_t n = s->ptr != NULL && s->len < cap ? s->len : 0;
    memcpy(out, s->ptr != NULL ? s->ptr : "", n);
    out[n] = '\0';
}

int typed_gauge(const struct typed_gauge_args *args, const mcp_call_t *call, mcp_result_t *result,
                void *user)
{
    (void)call;
    (void)user;
    ran++;
    seen = *args;
    copy_span(label, sizeof label, &args->label);
    copy_span(note, sizeof note, &args->note);
    copy_span(where, sizeof where, &args->where);
    label_in_request = args->label.ptr >= request && args->label.ptr < request + request_len;
    return mcp_result_text(result, "done", 4);
}

int typed_bare(const struct typed_bare_args *args, const mcp_call_t *call, mcp_result_t *result,
               void *user)
{
    (void)args;
    (void)call;
    (void)user;
    ran++;
    return mcp_result_text(result, "bare", 4);
}

/* A legacy tools/call of gauge with these arguments (a JSON object). */
static void call_gauge(const char *arguments)
{
    static char req[1024];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"gauge\","
             "\"arguments\":%s}}",
             arguments);
    request = req;
    request_len = strlen(req);
    memset(&seen, 0x55, sizeof seen);
    ran = 0;
    HANDLE(&server, NULL, req);
}

/* A name-based callback on the typed tool: mcp_call_args refuses a wrong size. */
static int wrong_size(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)user;
    struct typed_gauge_args a;
    char small[2];
    ran++;
    CHECK_INT(mcp_call_args(call, &a, sizeof a - 1, NULL, 0), -MCP_EINVAL);
    CHECK_INT(mcp_call_args(call, NULL, sizeof a, NULL, 0), -MCP_EINVAL);
    /* An escaped label longer than the text area given. */
    CHECK_INT(mcp_call_args(call, &a, sizeof a, small, sizeof small), -MCP_ENOBUFS);
    return mcp_result_text(result, "done", 4);
}

/* A tool from texts has no struct. */
static int text_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)user;
    struct typed_gauge_args a;
    ran++;
    CHECK_INT(mcp_call_args(call, &a, sizeof a, NULL, 0), -MCP_ENOTSUP);
    return mcp_result_text(result, "done", 4);
}

int main(void)
{
    static const mcp_server_config_t cfg = {.name = "typed", .version = "1"};
    CHECK_INT(mcp_server_init(&server, &cfg), 0);
    CHECK_INT(mcp_server_add_tool(&server, &typed_tools[TYPED_TOOL_GAUGE], typed_gauge_call, NULL), 0);
    CHECK_INT(mcp_server_add_tool(&server, &typed_tools[TYPED_TOOL_BARE], typed_bare_call, NULL), 0);

    /* The generated types: as wide as the bounds need. */
    CHECK(sizeof seen.percent == 1 && (uint8_t)-1 > 0);
    CHECK(sizeof seen.offset == 2);
    CHECK(sizeof seen.count == 8);
    CHECK(TYPED_GAUGE_SENSOR_RH_1 == 2);
    CHECK(TYPED_GAUGE_TEXT_LEN == 16);

    /* Everything sent: escaped strings decoded, the object as its text. */
    call_gauge("{\"percent\":100,\"offset\":-300,\"count\":-9007199254740993,\"on\":true,"
               "\"ratio\":-2.5e-1,\"sensor\":\"rh\\u002d1\",\"label\":\"a\\u00e9\\n\","
               "\"note\":\"n\\\"x\",\"where\":{\"a\": [1]},\"default\":false,\"steps\":[3,1],"
               "\"tags\":[\"b\",\"a\"]}");
    CHECK_INT(ran, 1);
    CHECK_AT("result>content>0>text", "\"done\"");
    CHECK_INT(seen.percent, 100);
    CHECK_INT(seen.offset, -300);
    CHECK(seen.count == -9007199254740993LL);
    CHECK(seen.has_on && seen.on);
    CHECK(seen.has_ratio && seen.ratio.value == -25 && seen.ratio.exp10 == -2);
    CHECK_INT(seen.sensor, TYPED_GAUGE_SENSOR_RH_1);
    CHECK_STR(label, "a\xc3\xa9\n");
    CHECK(!label_in_request);
    CHECK(seen.has_note);
    CHECK_STR(note, "\"n\\\"x\"");
    CHECK(seen.has_where);
    CHECK_STR(where, "{\"a\": [1]}");
    CHECK(seen.has_default_ && !seen.default_);
    /* Arrays with maxItems: the elements in place, then their count. */
    CHECK(seen.has_steps && seen.steps.count == 2 && seen.steps.items[0] == 3 && seen.steps.items[1] == 1);
    CHECK(sizeof seen.steps.items[0] == 1);
    CHECK(seen.has_tags && seen.tags.count == 2 && seen.tags.items[0] == TYPED_GAUGE_TAGS_B &&
          seen.tags.items[1] == TYPED_GAUGE_TAGS_A);

    /* The least: has_ flags clear, members zero, defaults filled in. */
    call_gauge("{\"percent\":0}");
    CHECK_INT(ran, 1);
    CHECK_INT(seen.percent, 0);
    CHECK_INT(seen.offset, -7);
    CHECK_INT(seen.sensor, TYPED_GAUGE_SENSOR_T2);
    CHECK_STR(label, "\xc3\xa9t\xc3\xa9");
    CHECK(!label_in_request); /* the default's escapes, decoded */
    CHECK(!seen.has_count && seen.count == 0);
    CHECK(!seen.has_on && !seen.has_ratio && !seen.has_note && !seen.has_where && !seen.has_default_);
    CHECK(!seen.has_steps && seen.steps.count == 0 && !seen.has_tags);
    CHECK(seen.note.ptr == NULL && seen.where.len == 0);

    /* A plain string stays in the request; 1.0 is the integer 1. */
    call_gauge("{\"percent\":1.0,\"label\":\"abcd\"}");
    CHECK_INT(seen.percent, 1);
    CHECK_STR(label, "abcd");
    CHECK(label_in_request);

    /* Arguments the schema refuses never reach the callback. */
    call_gauge("{\"percent\":101}");
    CHECK_INT(ran, 0);
    CHECK_AT("result>isError", "true");
    call_gauge("{\"percent\":5,\"sensor\":\"t9\"}");
    CHECK_INT(ran, 0);

    /* A tool without arguments. */
    ran = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"bare\"}}");
    CHECK_INT(ran, 1);
    CHECK_AT("result>content>0>text", "\"bare\"");

    /* mcp_call_args refuses a struct of another size and a short text area
     * (a second server: a built tool's listing names it). */
    static mcp_server_t other;
    CHECK_INT(mcp_server_init(&other, &cfg), 0);
    mcp_tool_t def = typed_tools[TYPED_TOOL_GAUGE];
    CHECK_INT(mcp_server_add_tool(&other, &def, wrong_size, NULL), 0);
    ran = 0;
    HANDLE(&other, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"gauge\","
           "\"arguments\":{\"percent\":3,\"label\":\"\\u00e9x\"}}}");
    CHECK_INT(ran, 1);

    /* The same tool from its texts: no struct to fill. */
    def = typed_tools[TYPED_TOOL_GAUGE];
    def.name = "gauge_text";
    def.listing = NULL;
    def.input_program = NULL;
    def.input_program_len = 0;
    def.args = NULL;
    def.args_len = 0;
    CHECK_INT(mcp_server_add_tool(&server, &def, text_tool, NULL), 0);
    ran = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"gauge_text\","
           "\"arguments\":{\"percent\":3}}}");
    CHECK_INT(ran, 1);

    /* Registration refuses layouts that do not fit the program, saying so. */
    static mcp_arg_slot_t slots[12];
    char why[200];
    def = typed_tools[TYPED_TOOL_GAUGE];
    def.args = slots;
    memcpy(slots, typed_tools[TYPED_TOOL_GAUGE].args, sizeof slots);
    slots[1].size = 1; /* offset needs two bytes */
    CHECK_INT(mcp_server_init(&other, &cfg), 0);
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    CHECK(mcp_server_schema_error(&other, why, sizeof why) > 0);
    CHECK(strstr(why, "the typed argument layout is not its schema's: run emcp-gen again") != NULL);
    memcpy(slots, typed_tools[TYPED_TOOL_GAUGE].args, sizeof slots);
    slots[2].present = MCP_ARG_ALWAYS; /* count may be absent */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    memcpy(slots, typed_tools[TYPED_TOOL_GAUGE].args, sizeof slots);
    def.args_len = 11; /* one short */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    def.args_len = 12;
    def.args_size = offsetof(struct typed_gauge_args, where); /* members outside */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    def.args_size = sizeof(struct typed_gauge_args);
    def.args = NULL; /* a length without slots */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    def.args = slots;
    def.listing = NULL; /* typed arguments without a listing */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), -MCP_EINVAL);
    def = typed_tools[TYPED_TOOL_GAUGE];
    def.args = slots; /* the same slots, untouched: taken */
    CHECK_INT(mcp_server_add_tool(&other, &def, typed_gauge_call, NULL), 0);
    return check_summary("test_typed");
}
