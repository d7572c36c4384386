/* Schema seals through the C API: mcp_schema_seal checks a tool's schemas
 * as mcp_server_add_tool does and gives the seal that a library without the
 * schema checker (the minimal profile) needs in mcp_tool_t.schema_seal; this
 * library (the host build: full profile) refuses a nonzero seal that does
 * not match and says which seal the texts have. The minimal side runs in the
 * QEMU firmware (examples-c/firmware/main.c) and tests/schema_seal.rs. */
#include "check.h"

static const char vent[] = "{\"type\":\"object\",\"required\":[\"percent\"],\"properties\":"
                           "{\"percent\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100}}}";
static const char out[] = "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}";

static int nop(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    return mcp_result_text(result, "ok", 2);
}

int main(void)
{
    uint32_t seal = 0, seal_out = 0, again = 0;
    char why[200] = "";
    CHECK_INT(mcp_schema_seal(vent, NULL, &seal, why, sizeof why), 0);
    CHECK(seal != 0);
    CHECK_INT(mcp_schema_seal(vent, NULL, &again, NULL, 0), 0);
    CHECK(again == seal);
    CHECK_INT(mcp_schema_seal(vent, out, &seal_out, NULL, 0), 0);
    CHECK(seal_out != seal && seal_out != 0);

    /* Refused as registration refuses them, with the same words. */
    uint32_t untouched = 7;
    CHECK_INT(mcp_schema_seal("{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\","
                              "\"pattern\":\"^a\"}}}",
                              NULL, &untouched, why, sizeof why),
              -MCP_ENOTSUP);
    CHECK_STR(why, "inputSchema: properties.p.pattern: unsupported keyword");
    CHECK_INT(mcp_schema_seal(vent, "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
                                    "\"maximum\":3,\"default\":9}}}",
                              &untouched, why, sizeof why),
              -MCP_EINVAL);
    CHECK_STR(why, "outputSchema: properties.n.default: 9 is above maximum 3");
    CHECK_INT(mcp_schema_seal("{\"type\":", NULL, &untouched, why, 4), -MCP_EINVAL);
    CHECK_STR(why, "inp"); /* cut to the buffer, terminated */
    CHECK(untouched == 7);
    CHECK_INT(mcp_schema_seal(NULL, NULL, &untouched, NULL, 0), -MCP_EINVAL);
    CHECK_INT(mcp_schema_seal(vent, NULL, NULL, NULL, 0), -MCP_EINVAL);
    CHECK_INT(mcp_schema_seal("{\"type\":\"object\",\"title\":\"\xff\"}", NULL, &untouched, NULL, 0),
              -MCP_EILSEQ);

    static mcp_server_t server;
    static const mcp_server_config_t cfg = {.name = "seal", .version = "1"};
    CHECK_INT(mcp_server_init(&server, &cfg), 0);
    mcp_tool_t def = {.name = "vent", .input_schema = vent, .schema_seal = seal ^ 0x10u, .max_result_len = 27};
    CHECK_INT(mcp_server_add_tool(&server, &def, nop, NULL), -MCP_EINVAL);
    char want[160];
    snprintf(want, sizeof want,
             "schema_seal 0x%08x does not match the schemas, which this build checked (they seal to "
             "0x%08x)",
             (unsigned)(seal ^ 0x10u), (unsigned)seal);
    CHECK(mcp_server_schema_error(&server, why, sizeof why) > 0);
    CHECK_STR(why, want);
    def.output_schema = out; /* the input schema's seal does not cover an output schema */
    def.schema_seal = seal;
    CHECK_INT(mcp_server_add_tool(&server, &def, nop, NULL), -MCP_EINVAL);
    def.schema_seal = seal_out;
    CHECK_INT(mcp_server_add_tool(&server, &def, nop, NULL), 0);
    mcp_tool_t unsealed = {.name = "unsealed", .input_schema = vent, .max_result_len = 27};
    CHECK_INT(mcp_server_add_tool(&server, &unsealed, nop, NULL), 0); /* checked here */
    return check_summary("test_seal");
}
