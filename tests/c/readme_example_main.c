/*
 * CTest readme_example: the README's "Using it from C" example as a user
 * copies it. Its tools file went through emcp_generate_tools (tests/c/
 * CMakeLists.txt extracts both blocks from README.md at configure time);
 * this file supplies the actuator the snippet calls and a main that
 * registers the generated definition and sends it calls.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int vent = -1;
static void vent_set(int percent)
{
    vent = percent;
}

#include "readme_app.c" /* the README's block, verbatim */

#include "check.h"

static size_t call(const char *args, char *out, size_t cap)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"set_vent\","
             "\"arguments\":%s}}",
             args);
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    mcp_response_info_t info;
    int n = mcp_server_handle(&server, &ctx, (const uint8_t *)line, strlen(line), (uint8_t *)out, cap - 1, &info);
    CHECK(n > 0);
    out[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}

int main(void)
{
    CHECK_INT(mcp_server_init(&server, &(mcp_server_config_t){.name = "greenhouse-gw", .version = "0.4.0"}), 0);
    CHECK_INT(mcp_server_add_tool(&server, &app_tools[APP_TOOL_SET_VENT], app_set_vent_call, NULL), 0);
    CHECK_INT(APP_TOOL_COUNT, 1);
    char out[1024];
    call("{\"percent\":40}", out, sizeof out);
    CHECK(strstr(out, "\"structuredContent\":{\"ok\":true,\"percent\":40}") != NULL);
    CHECK_INT(vent, 40);
    call("{\"percent\":120}", out, sizeof out);
    CHECK(strstr(out, "percent: 120 is above maximum 100") != NULL);
    CHECK_INT(vent, 40);
    wind_lock = true;
    call("{\"percent\":10}", out, sizeof out);
    CHECK(strstr(out, "refused: wind lock active") != NULL);
    CHECK_INT(vent, 40);
    return check_summary("readme_example");
}
