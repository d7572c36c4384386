/*
 * The smallest firmware of a user of emcp: one read-only tool, a tools/call
 * handled as a transport would hand it over, the answer printed on the
 * semihosting console. main()'s return value is QEMU's exit status
 * (emcp::board_mps2_an386's start-up), so scripts/run-firmware --elf is a
 * test: 0 when the answer is the tool's, 1 otherwise. The answer also goes
 * out on the board's UART (QEMU's -serial; nowhere without --uart).
 */
#include <stdio.h>
#include <string.h>

#include "emcp.h"
#include "emcp_board_uart.h"
#include "emcp_clock.h"

static mcp_server_t server;

static int uptime(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    char text[32];
    (void)call;
    (void)user;
    int n = snprintf(text, sizeof text, "up %lu ms", (unsigned long)emcp_monotonic_ms());
    return mcp_result_text(r, text, (size_t)n);
}

static const mcp_tool_t uptime_tool = {
    .name = "uptime",
    .description = "Milliseconds since reset.",
    .annotations = MCP_TOOL_READ_ONLY,
    .input_schema = "{\"type\":\"object\"}",
    .max_result_len = 64,
};

int main(void)
{
    static const char request[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
                                  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                                  "\"io.modelcontextprotocol/clientCapabilities\":{}},"
                                  "\"name\":\"uptime\",\"arguments\":{}}}";
    static uint8_t out[512];
    mcp_server_config_t config;
    memset(&config, 0, sizeof config);
    config.name = "user-fw";
    config.version = "1.0.0";
    if (mcp_server_init(&server, &config) != 0 || mcp_server_add_tool(&server, &uptime_tool, uptime, NULL) != 0) {
        fprintf(stderr, "user-fw: setup failed\n");
        return 1;
    }
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal.ptr = "local";
    ctx.principal.len = 5;
    ctx.now_ms = emcp_monotonic_ms();
    mcp_response_info_t info;
    int n = mcp_server_handle(&server, &ctx, (const uint8_t *)request, sizeof request - 1, out, sizeof out - 1, &info);
    if (n <= 0) {
        fprintf(stderr, "user-fw: no answer (%d)\n", n);
        return 1;
    }
    printf("%.*s\n", n, (const char *)out);
    emcp_board_uart_init();
    emcp_board_uart_write(out, (size_t)n);
    emcp_board_uart_write((const uint8_t *)"\n", 1);
    int ok = strstr((const char *)out, "\"id\":7") != NULL && strstr((const char *)out, "up ") != NULL &&
             strstr((const char *)out, "\"isError\":true") == NULL;
    printf("user-fw: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
