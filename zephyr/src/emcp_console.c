/*
 * MCP over a UART with the core's line framer (CONFIG_EMCP_CONSOLE): a
 * thread polls the UART, writes the bytes into the framer's receive buffer
 * (zero-copy: mcp_framer_space/commit), answers every complete line with
 * mcp_framer_poll and writes each response line back. Polling keeps the glue
 * independent of the driver's interrupt and async APIs; an idle UART costs
 * one poll every CONFIG_EMCP_CONSOLE_POLL_MS.
 */
#include "emcp_zephyr.h"

#include <zephyr/device.h>
#include <zephyr/drivers/uart.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

LOG_MODULE_DECLARE(emcp, CONFIG_EMCP_LOG_LEVEL);

#if DT_HAS_CHOSEN(emcp_uart)
#define EMCP_UART_NODE DT_CHOSEN(emcp_uart)
#else
#define EMCP_UART_NODE DT_CHOSEN(zephyr_console)
#endif

static const struct device *const uart = DEVICE_DT_GET(EMCP_UART_NODE);
static mcp_framer_t rx;
static uint8_t rx_buf[CONFIG_EMCP_CONSOLE_LINE_MAX];
static uint8_t tx_buf[CONFIG_EMCP_RESPONSE_MAX + 1];
static mcp_server_t *served;
static mcp_dedup_t dedup; /* repeated idempotency keys are answered, not re-run */
static const char principal_local[] = "local";

K_THREAD_STACK_DEFINE(console_stack, CONFIG_EMCP_THREAD_STACK_SIZE);
static struct k_thread console_thread;

static void send(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uart_poll_out(uart, p[i]);
    }
}

/* Notifications (progress, log) of a running tool: one line each. */
static int emit_line(void *transport_context, const uint8_t *message, size_t len)
{
    ARG_UNUSED(transport_context);
    send(message, len);
    uart_poll_out(uart, '\n');
    return 0;
}

static void serve(void *a, void *b, void *c)
{
    ARG_UNUSED(a);
    ARG_UNUSED(b);
    ARG_UNUSED(c);
    for (;;) {
        uint8_t *space;
        int room = mcp_framer_space(&rx, &space);
        size_t got = 0;
        while (room > 0 && got < (size_t)room && uart_poll_in(uart, &space[got]) == 0) {
            got++;
        }
        (void)mcp_framer_commit(&rx, got);

        mcp_request_ctx_t ctx = {
            .principal = {.ptr = principal_local, .len = sizeof principal_local - 1},
            .now_ms = emcp_zephyr_now_ms(),
            .emit = emit_line,
            .dedup = &dedup,
        };
        int n;
        while ((n = mcp_framer_poll(&rx, served, &ctx, tx_buf, sizeof tx_buf, NULL)) !=
               -MCP_EAGAIN) {
            if (n > 0) {
                send(tx_buf, (size_t)n);
            } else if (n < 0) {
                LOG_ERR("mcp_framer_poll: %d", n);
                break;
            }
        }
        if (got == 0) {
            k_msleep(CONFIG_EMCP_CONSOLE_POLL_MS);
        }
    }
}

int emcp_console_start(mcp_server_t *server)
{
    if (server == NULL || served != NULL || !device_is_ready(uart)) {
        return -MCP_EINVAL;
    }
    int rc = mcp_framer_init(&rx, rx_buf, sizeof rx_buf);
    if (rc == 0) {
        rc = mcp_dedup_init(&dedup);
    }
    if (rc != 0) {
        return rc;
    }
    served = server;
    k_thread_create(&console_thread, console_stack, K_THREAD_STACK_SIZEOF(console_stack), serve,
                    NULL, NULL, NULL, CONFIG_EMCP_THREAD_PRIORITY, 0, K_NO_WAIT);
    k_thread_name_set(&console_thread, "emcp_console");
    return 0;
}
