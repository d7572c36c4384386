/*
 * The UART of the emcp firmware's boards, polled (the receive interrupt only
 * wakes the core from WFI): the MPS2
 * boards' CMSDK APB UART0 (uart-cmsdk.c) and the RISC-V virt machine's
 * NS16550A (uart-ns16550.c). QEMU connects it to -serial (a TCP socket, a
 * pty). Used by serve.c, the firmware that serves MCP over the UART, and by
 * any firmware that links a board target (emcp::board_mps2_an386, ...;
 * cmake/EmcpBoards.cmake).
 */
#ifndef EMCP_BOARD_UART_H
#define EMCP_BOARD_UART_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The line speed the UART is programmed for (QEMU ignores it; a board would not). */
#define EMCP_BOARD_UART_BAUD 115200u

/** Enables the receiver and the transmitter at EMCP_BOARD_UART_BAUD, 8N1. */
void emcp_board_uart_init(void);

/** Copies up to @p cap received bytes to @p buf without waiting; returns the count. */
size_t emcp_board_uart_read(uint8_t *buf, size_t cap);

/**
 * Sleeps (WFI) until the next interrupt unless a byte is already waiting:
 * the receiver's interrupt, or the clock's tick. Keeps QEMU from spinning
 * on an idle UART.
 */
void emcp_board_uart_idle(void);

/** Sends @p len bytes, waiting for room in the transmitter. */
void emcp_board_uart_write(const uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_BOARD_UART_H */
