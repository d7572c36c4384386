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

/* What the last relay reported as not passed on exactly. */
static struct emcp_gw_relay_report last_report;

/* The tool relays the device result in `user` (a JSON text). */
static int relay_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    struct emcp_gw_json j;
    const char *text = user;
    if (emcp_gw_json_parse(&j, text, strlen(text)) != 0) {
        return -MCP_EINVAL;
    }
    int rc = emcp_gw_relay_result(result, "dev-1", &j, 0, &last_report);
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

    /* Integers and decimals whose digits fit an int64 keep their text. */
    r = relay("{\"content\":[],\"structuredContent\":{\"max\":9223372036854775807,"
              "\"min\":-9223372036854775808,\"d\":-922337203685477.5807,\"mz\":-0.0}}");
    CHECK(strstr(r, "{\"max\":9223372036854775807,\"min\":-9223372036854775808,"
                    "\"d\":-922337203685477.5807,\"mz\":-0.0}") != NULL);
    CHECK(last_report.lost[0] == '\0');
    if (check_failed) {
        fprintf(stderr, "response: %s\nlost: %s\n", r, last_report.lost);
    }

    /* isError passes; a block of a type the API has no call for becomes a note
     * naming it, and the report says so. */
    r = relay("{\"content\":[{\"type\":\"video\",\"data\":\"AAAA\",\"mimeType\":\"video/mp4\"},"
              "{\"type\":\"text\",\"text\":\"wind lock on\"}],\"isError\":true}");
    CHECK(strstr(r, "device dev-1 sent a video block that emcp-gateway cannot write through the result API") !=
          NULL);
    CHECK(strstr(r, "{\"type\":\"text\",\"text\":\"wind lock on\"}") != NULL);
    CHECK(strstr(r, "\"isError\":true") != NULL);
    CHECK(strstr(last_report.lost, "content[0] (video) replaced by a note") != NULL);

    /* Members the API cannot write are named in the report (and the rest passes). */
    r = relay("{\"content\":[{\"type\":\"text\",\"text\":\"a\",\"_meta\":{\"k\":1}},"
              "{\"type\":\"resource_link\",\"uri\":\"x:/1\",\"name\":\"n\",\"title\":\"T\",\"size\":3},"
              "{\"type\":\"image\",\"data\":\"AAA\",\"mimeType\":\"image/png\"}],\"extra\":1,"
              "\"structuredContent\":{\"z\":-0,\"long\":123456789012345678901}}");
    CHECK(strstr(r, "{\"type\":\"text\",\"text\":\"a\"}") != NULL);
    CHECK(strstr(r, "{\"type\":\"resource_link\",\"uri\":\"x:/1\",\"name\":\"n\"}") != NULL);
    CHECK(strstr(last_report.lost, "result.extra dropped") != NULL);
    CHECK(strstr(last_report.lost, "content[0]._meta dropped") != NULL);
    CHECK(strstr(last_report.lost, "content[1].title dropped; content[1].size dropped") != NULL);
    CHECK(strstr(last_report.lost, "content[2] (image) replaced by a note") != NULL); /* not base64 */
    CHECK(strstr(last_report.lost, "number -0 written without its sign") != NULL);
    CHECK(strstr(last_report.lost, "number 123456789012345678901 (more digits than an int64)") != NULL);
    if (check_failed) {
        fprintf(stderr, "response: %s\nlost: %s\n", r, last_report.lost);
    }
}

/* A device's tool, written with every kind of block the result API has, and
 * structuredContent with nested arrays, edge numbers and escapes. */
static int rich_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    static const uint8_t bytes[] = {0x89, 'P', 'N', 'G', 0, 1, 2, 0xfe, 0xff, 0x7f, 0x80, 0x3f, 0x40};
    const mcp_annotations_t ann = {MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT, 0.25, "2026-07-28T10:00:00Z"};
    const mcp_annotations_t empty = {0, -1.0, NULL};
    const mcp_annotations_t user_only = {MCP_AUDIENCE_USER, 1.0, NULL};
    static const char text[] = "caf\xc3\xa9 \xf0\x9f\x8c\xb1 \"q\" \\ \x01\x1f tab\t \xe2\x80\xa8 </script>";
    int rc = mcp_result_text_annotated(result, text, sizeof text - 1, &ann);
    rc = rc ? rc : mcp_result_text_cstr(result, "plain");
    rc = rc ? rc : mcp_result_image(result, bytes, sizeof bytes, "image/png", NULL);
    rc = rc ? rc : mcp_result_image(result, bytes, 1, "image/gif", &user_only);
    rc = rc ? rc : mcp_result_audio(result, bytes, 2, "audio/wav", &empty);
    rc = rc ? rc : mcp_result_resource_link(result, "file:///log/1.txt", "log 1", "text/plain", "the log", &ann);
    rc = rc ? rc : mcp_result_resource_link(result, "greenhouse://a", "a", NULL, NULL, NULL);
    rc = rc ? rc : mcp_result_resource_text(result, "greenhouse://zone/a", "application/json", "{\"a\":1}", 7, NULL);
    rc = rc ? rc : mcp_result_resource_blob(result, "greenhouse://blob", NULL, bytes, 3, &user_only);
    rc = rc ? rc : mcp_result_structured_begin(result);
    rc = rc ? rc : mcp_json_key(result, "nested");
    rc = rc ? rc : mcp_json_array_begin(result);
    rc = rc ? rc : mcp_json_array_begin(result);
    rc = rc ? rc : mcp_json_int(result, INT64_MAX);
    rc = rc ? rc : mcp_json_int(result, INT64_MIN);
    rc = rc ? rc : mcp_json_array_begin(result);
    rc = rc ? rc : mcp_json_decimal(result, -12345678901234567, 3);
    rc = rc ? rc : mcp_json_number(result, 0.1 + 0.2);
    rc = rc ? rc : mcp_json_number(result, 1.5e-7);
    rc = rc ? rc : mcp_json_number(result, -1e300);
    rc = rc ? rc : mcp_json_number(result, -0.0);
    rc = rc ? rc : mcp_json_number(result, 62.0);
    rc = rc ? rc : mcp_json_array_end(result);
    rc = rc ? rc : mcp_json_array_end(result);
    rc = rc ? rc : mcp_json_object_begin(result);
    rc = rc ? rc : mcp_json_key(result, "s");
    rc = rc ? rc : mcp_json_string(result, text, sizeof text - 1);
    rc = rc ? rc : mcp_json_key(result, "e");
    rc = rc ? rc : mcp_json_array_begin(result);
    rc = rc ? rc : mcp_json_array_end(result);
    rc = rc ? rc : mcp_json_key(result, "n");
    rc = rc ? rc : mcp_json_null(result);
    rc = rc ? rc : mcp_json_key(result, "b");
    rc = rc ? rc : mcp_json_bool(result, false);
    rc = rc ? rc : mcp_json_object_end(result);
    rc = rc ? rc : mcp_json_array_end(result);
    rc = rc ? rc : mcp_result_structured_end(result);
    return rc;
}

/* The raw text of member @p key of the result in response @p resp (malloc'd). */
static char *result_member(const char *resp, const char *key)
{
    struct emcp_gw_json j;
    char *raw = NULL;
    if (parse(&j, resp) == 0) {
        raw = emcp_gw_json_raw(&j, emcp_gw_json_get(&j, emcp_gw_json_get(&j, 0, "result"), key));
    }
    emcp_gw_json_free(&j);
    return raw;
}

/* A real core's result (the device's) relayed through a second core (the
 * gateway's): content, isError and structuredContent come out as the
 * device's core wrote them, byte for byte, and nothing is reported lost. */
static void test_relay_rich_device(void)
{
    static mcp_server_t device;
    static const mcp_server_config_t cfg = {.name = "device", .version = "1"};
    static const mcp_tool_t tool = {
        .name = "rich", .input_schema = "{\"type\":\"object\"}", .annotations = MCP_TOOL_READ_ONLY};
    static char device_response[16384];
    CHECK(mcp_server_init(&device, &cfg) == 0 && mcp_server_add_tool(&device, &tool, rich_tool, NULL) == 0);
    static const char req[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
        "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"rich\",\"arguments\":{}}}";
    int n = mcp_server_handle(&device, NULL, (const uint8_t *)req, sizeof req - 1, (uint8_t *)device_response,
                              sizeof device_response - 1, NULL);
    CHECK(n > 0);
    device_response[n > 0 ? n : 0] = '\0';
    /* relay() parses the text: the device's result object itself. */
    struct emcp_gw_json dj;
    CHECK(parse(&dj, device_response) == 0);
    char *res_text = emcp_gw_json_raw(&dj, emcp_gw_json_get(&dj, 0, "result"));
    emcp_gw_json_free(&dj);
    CHECK(res_text != NULL && strstr(res_text, "\"type\":\"resource\"") != NULL);
    const char *r = relay(res_text ? res_text : "{}");
    static const char *const parts[] = {"content", "structuredContent", "isError"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *a = result_member(device_response, parts[i]);
        char *b = result_member(r, parts[i]);
        CHECK((a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0));
        if (a == NULL || b == NULL || strcmp(a, b) != 0) {
            fprintf(stderr, "%s: device %s\n       gateway %s\n", parts[i], a ? a : "-", b ? b : "-");
        }
        free(a);
        free(b);
    }
    CHECK(last_report.lost[0] == '\0');
    if (last_report.lost[0] != '\0') {
        fprintf(stderr, "lost: %s\n", last_report.lost);
    }
    free(res_text);
}

int main(void)
{
    test_json();
    test_relay();
    test_relay_rich_device();
    return check_summary("test_gateway_units");
}
