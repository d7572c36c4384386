/*
 * UART0 of the Arm MPS2 boards (mps2-an385, mps2-an386): a CMSDK APB UART at
 * 0x40004000 with one byte of receive and one of transmit buffer; polled,
 * with the receive interrupt only to wake the core from WFI.
 * The APB clock of both FPGA images is 25 MHz.
 */
#include "emcp_board_uart.h"


#define UART0_BASE 0x40004000u
#define UART_DATA (*(volatile uint32_t *)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(UART0_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t *)(UART0_BASE + 0x08u))
#define UART_INTSTATUS (*(volatile uint32_t *)(UART0_BASE + 0x0Cu)) /* write 1 to clear */
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0_BASE + 0x10u))
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)

#define STATE_TX_FULL 0x1u
#define STATE_RX_FULL 0x2u
#define CTRL_TX_EN 0x1u
#define CTRL_RX_EN 0x2u
#define CTRL_RX_INTEN 0x8u
#define INT_RX 0x2u
#define UART0_RX_IRQ 0u

#define APB_CLOCK_HZ 25000000u

void emcp_board_uart_init(void)
{
    UART_BAUDDIV = APB_CLOCK_HZ / EMCP_BOARD_UART_BAUD; /* at least 16, as the UART requires */
    UART_CTRL = CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INTEN;
    NVIC_ISER0 = 1u << UART0_RX_IRQ;
}

/* Its only job is to wake the core: the serve loop reads the byte. */
void UART0RX_Handler(void)
{
    UART_INTSTATUS = INT_RX;
}

void emcp_board_uart_idle(void)
{
    /* Masked, so a byte arriving between the check and the WFI still wakes
     * it (a pending interrupt ends WFI even under PRIMASK); the handlers run
     * once unmasked. */
    __asm__ volatile("cpsid i" ::: "memory");
    if ((UART_STATE & STATE_RX_FULL) == 0) {
        __asm__ volatile("wfi" ::: "memory");
    }
    __asm__ volatile("cpsie i" ::: "memory");
}

size_t emcp_board_uart_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && (UART_STATE & STATE_RX_FULL) != 0) {
        buf[n++] = (uint8_t)UART_DATA;
    }
    return n;
}

void emcp_board_uart_write(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((UART_STATE & STATE_TX_FULL) != 0) {
        }
        UART_DATA = buf[i];
    }
}
