/*
 * The emcp greenhouse firmware served over its UART (fw-<core>-uart.elf):
 * the greenhouse gateway's tools, resources and prompt, the same schemas,
 * validation, rate limit, idempotency keys, policy and audit as the host
 * greenhouse-stdio, on a Cortex-M or RISC-V core under QEMU. Bytes received
 * on the UART go through the core's framer (mcp_framer_space/commit/poll,
 * the zero-copy receive path a DMA driver would use) into
 * mcp_server_handle(), and every response line goes back out on the UART.
 * An MCP host reaches it through emcp-bridge (tools/bridge):
 *
 *   scripts/run-firmware --target m4f --uart tcp:46001
 *   emcp-bridge tcp:127.0.0.1:46001
 *
 * Like a real board it prints a boot banner on the UART first (not JSON:
 * the bridge drops it). The log goes to the semihosting console: audit lines
 * (greenhouse.c's audit hook writes them to stderr) and the stack high-water
 * mark of the serve loop each time it grows (`stack.serve_peak=N`, measured
 * by painting the unused stack at boot).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "fw_stack.h"
#include "emcp_board_uart.h"
#include "greenhouse.h"

#ifndef FW_RX_MAX
#define FW_RX_MAX 4096 /* the UART receive buffer: longest request + 1 */
#endif
#ifndef FW_TX_MAX
#define FW_TX_MAX 4096 /* the response line buffer */
#endif
#ifndef FW_TARGET
#define FW_TARGET "unknown"
#endif
#ifndef FW_PROFILE
#define FW_PROFILE "full"
#endif
/* Who the UART's peer is to the policy and in the audit lines. */
#define FW_PRINCIPAL "uart0"
/* The policy: the UART's peer may call both tools; any other principal none. */
#ifndef FW_POLICY
#define FW_POLICY FW_PRINCIPAL "=read_sensor,set_vent"
#endif

_Static_assert(FW_TX_MAX > MCP_MIN_RESPONSE_CAP, "FW_TX_MAX must exceed MCP_MIN_RESPONSE_CAP");

static mcp_server_t server;
static mcp_framer_t rx;
static uint8_t rx_buf[FW_RX_MAX];
static uint8_t tx_buf[FW_TX_MAX];
static mcp_dedup_t dedup; /* repeated idempotency keys of set_vent */

/* ---- The stack high-water mark ----------------------------------------- */

static uintptr_t stack_top; /* sp at the start of the serve loop's caller */
static uintptr_t stack_limit;
static size_t stack_peak;

/* Reports the deepest stack use below main's frame when it grew. */
static void check_stack(void)
{
    size_t used = fw_stack_used(stack_limit, stack_top);
    if (used > stack_peak) {
        stack_peak = used;
        printf("stack.serve_peak=%u\n", (unsigned)used);
    }
}

/* ---- Serving ----------------------------------------------------------- */

/* The emit hook: a notification (progress, log) goes out before the response. */
static int uart_emit(void *transport_context, const uint8_t *msg, size_t len)
{
    (void)transport_context;
    static const uint8_t nl = '\n';
    emcp_board_uart_write(msg, len);
    emcp_board_uart_write(&nl, 1);
    return 0;
}

static mcp_request_ctx_t uart_ctx(void)
{
    static const char principal[] = FW_PRINCIPAL;
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal.ptr = principal;
    ctx.principal.len = sizeof principal - 1;
    ctx.now_ms = emcp_monotonic_ms();
    ctx.emit = uart_emit;
    ctx.dedup = &dedup;
    /* No listener: a listen stream would hold the one UART line open for
     * the whole session, and the bridge answers each request once. */
    return ctx;
}

__attribute__((noinline)) static void serve(void)
{
    for (;;) {
        uint8_t *space = NULL;
        int room = mcp_framer_space(&rx, &space);
        if (room <= 0) {
            /* Only full of complete messages: take them below. */
            room = 0;
        }
        size_t n = room > 0 ? emcp_board_uart_read(space, (size_t)room) : 0;
        if (n == 0 && room > 0) {
            emcp_board_uart_idle(); /* nothing received: sleep until the receiver's interrupt or the tick */
            continue;
        }
        (void)mcp_framer_commit(&rx, n);
        mcp_request_ctx_t ctx = uart_ctx();
        int r;
        while ((r = mcp_framer_poll(&rx, &server, &ctx, tx_buf, sizeof tx_buf, NULL)) != -MCP_EAGAIN) {
            if (r > 0) {
                emcp_board_uart_write(tx_buf, (size_t)r);
            } else if (r < 0) {
                printf("firmware: mcp_framer_poll failed (%d)\n", r);
                break;
            }
            check_stack();
        }
    }
}

int main(void)
{
    /* Registration first: it is not the serve loop, and needs more stack. */
#ifndef FW_MINIMAL
    const char *why = NULL;
    if (greenhouse_add_policy(FW_POLICY, &why) != 0) {
        printf("firmware: policy %s refused: %s\n", FW_POLICY, why);
        return 1;
    }
#endif
    (void)mcp_dedup_init(&dedup); /* -MCP_ENOTSUP without `policy`: no idempotency keys then */
    int rc = greenhouse_register(&server, false);
    if (rc != 0 || mcp_framer_init(&rx, rx_buf, sizeof rx_buf) != 0) {
        printf("firmware: cannot set up the server (%d)\n", rc);
        return 1;
    }
    emcp_board_uart_init();
    static const char banner[] = "\r\nemcp greenhouse firmware (" FW_PROFILE " profile) on " FW_TARGET
                                 "\r\nUART0: newline-delimited JSON-RPC (MCP), principal " FW_PRINCIPAL "\r\n";
    emcp_board_uart_write((const uint8_t *)banner, sizeof banner - 1);
    printf("emcp greenhouse firmware (%s profile) on %s: serving MCP on the UART, policy %s\n", FW_PROFILE,
           FW_TARGET,
#ifndef FW_MINIMAL
           FW_POLICY
#else
           "none (minimal profile)"
#endif
    );
    stack_top = fw_sp_now();
    stack_limit = (stack_top - FW_PAINT_BYTES) & ~(uintptr_t)3u;
    fw_paint_stack(stack_limit, 64u);
    serve();
    return 0;
}
