/*
 * Unit tests of emcp-gateway's JSON reader (gw_json.c) and of the result
 * pass-through (gw_relay.c) through a real emcp core: a device's result
 * object is relayed inside a tool callback and the core's response is
 * compared with the text the device wrote (docs/gateway.md, "Results").
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emcp.h"
#include "gw_json.h"
#include "gw_relay.h"

static int parse(struct emcp_gw_json *j, const char *s)
{
    return emcp_gw_json_parse(j, s, strlen(s));
}

static bool decodes_to(const char *json, const char *want, size_t want_len)
{
    struct emcp_gw_json j;
    bool ok = false;
    if (parse(&j, json) == 0) {
        size_t len = 0;
        char *s = emcp_gw_json_str(&j, 0, &len);
        ok = s != NULL && len == want_len && memcmp(s, want, len) == 0;
        free(s);
    }
    emcp_gw_json_free(&j);
    return ok;
}

static void test_json(void)
{
    struct emcp_gw_json j;
    CHECK(parse(&j, " {\"a\":[1,{\"b\":\"x\"},true],\"c\":null,\"d\":-1.5e+3} ") == 0);
    int a = emcp_gw_json_get(&j, 0, "a");
    CHECK(a > 0 && j.nodes[a].type == EMCP_GW_J_ARRAY);
    int d = emcp_gw_json_get(&j, 0, "d");
    char *raw = emcp_gw_json_raw(&j, d);
    CHECK(raw != NULL && strcmp(raw, "-1.5e+3") == 0);
    free(raw);
    CHECK(emcp_gw_json_get(&j, 0, "missing") == -1);
    CHECK(emcp_gw_json_get(&j, a, "b") == -1); /* not an object */
    int c = emcp_gw_json_get(&j, 0, "c");
    CHECK(c > 0 && j.nodes[c].type == EMCP_GW_J_NULL && j.nodes[0].next == j.len);
    emcp_gw_json_free(&j);

    CHECK(decodes_to("\"a\\\"b\\\\c\\/\\n\"", "a\"b\\c/\n", 7));
    CHECK(decodes_to("\"\\u00e9\"", "\xc3\xa9", 2));
    CHECK(decodes_to("\"\\ud83c\\udf31\"", "\xf0\x9f\x8c\xb1", 4)); /* a surrogate pair */
    CHECK(decodes_to("\"\\ud83c.\"", "\xef\xbf\xbd.", 4));          /* a lone surrogate */

    static const char *const bad[] = {
        "", "{", "{\"a\"}", "{\"a\":1,}", "[1,]", "01", "1.", "-", "1e", "\"\\x\"", "\"\\u12\"", "\"a",
        "tru", "{} {}", "\"\x01\"", "[1 2]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(parse(&j, bad[i]) == -1);
        emcp_gw_json_free(&j);
    }
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    CHECK(emcp_gw_json_parse(&j, deep, sizeof deep) == -1); /* deeper than EMCP_GW_JSON_MAX_DEPTH */
    emcp_gw_json_free(&j);
}

/* The tool relays the device result in `user` (a JSON text). */
static int relay_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    struct emcp_gw_json j;
    const char *text = user;
    if (emcp_gw_json_parse(&j, text, strlen(text)) != 0) {
        return -MCP_EINVAL;
    }
    int rc = emcp_gw_relay_result(result, "dev-1", &j, 0);
    emcp_gw_json_free(&j);
    return rc;
}

static char response[16384];

/* Calls the relaying tool with @p device_result; the response, NUL-terminated. */
static const char *relay(const char *device_result)
{
    static mcp_server_t server;
    static const mcp_server_config_t cfg = {.name = "relay-test", .version = "1"};
    static const mcp_tool_t tool = {
        .name = "relay",
        .input_schema = "{\"type\":\"object\"}",
        .annotations = MCP_TOOL_READ_ONLY,
    };
    memset(response, 0, sizeof response);
    if (mcp_server_init(&server, &cfg) != 0 ||
        mcp_server_add_tool(&server, &tool, relay_tool, (void *)device_result) != 0) {
        return "";
    }
    static const char req[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
        "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"relay\",\"arguments\":{}}}";
    int n = mcp_server_handle(&server, NULL, (const uint8_t *)req, sizeof req - 1, (uint8_t *)response,
                              sizeof response - 1, NULL);
    return n > 0 ? response : "";
}

/* The number text the response has for "key": inside structuredContent. */
static double number_of(const char *resp, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = strstr(resp, pat);
    return at ? strtod(at + strlen(pat), NULL) : -1.0;
}

static void test_relay(void)
{
    /* Exact: text with escapes, integers, decimals (trailing zeros kept), strings, nesting, order. */
    const char *r = relay("{\"content\":[{\"type\":\"text\",\"text\":\"vent \\\"a\\\" \\u00e9 set\"}],"
                          "\"structuredContent\":{\"ok\":true,\"percent\":30,\"neg\":-7,\"t\":21.50,"
                          "\"small\":-0.005,\"big\":123456789012345678,\"s\":\"x\\ny\",\"n\":null,"
                          "\"arr\":[1,2.5,{\"k\":[]}],\"z\":{}},\"isError\":false}");
    CHECK(strstr(r, "{\"type\":\"text\",\"text\":\"vent \\\"a\\\" \xc3\xa9 set\"}") != NULL);
    CHECK(strstr(r, "\"structuredContent\":{\"ok\":true,\"percent\":30,\"neg\":-7,\"t\":21.50,"
                    "\"small\":-0.005,\"big\":123456789012345678,\"s\":\"x\\ny\",\"n\":null,"
                    "\"arr\":[1,2.5,{\"k\":[]}],\"z\":{}}") != NULL);
    CHECK(strstr(r, "\"isError\":false") != NULL);
    if (check_failed) {
        fprintf(stderr, "response: %s\n", r);
    }

    /* Through a double: exponents and mantissas over 18 digits keep their value, not their text. */
    r = relay("{\"content\":[],\"structuredContent\":{\"e\":1.5e300,\"long\":12345678901234567890,"
              "\"tiny\":2.5E-7}}");
    CHECK(number_of(r, "e") == 1.5e300);
    CHECK(number_of(r, "long") == 12345678901234567890.0);
    CHECK(number_of(r, "tiny") == 2.5e-7);

    /* isError passes; a block the gateway cannot write yet becomes a note naming it. */
    r = relay("{\"content\":[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"},"
              "{\"type\":\"text\",\"text\":\"wind lock on\"}],\"isError\":true}");
    CHECK(strstr(r, "device dev-1 sent a image block, which emcp-gateway does not pass on yet") != NULL);
    CHECK(strstr(r, "{\"type\":\"text\",\"text\":\"wind lock on\"}") != NULL);
    CHECK(strstr(r, "\"isError\":true") != NULL);
}

int main(void)
{
    test_json();
    test_relay();
    return check_summary("test_gateway_units");
}
