/*
 * The UART of QEMU's RISC-V virt machine: an NS16550A at 0x10000000 (clock
 * 3.6864 MHz), FIFOs on; polled, with the receive interrupt (through the
 * PLIC) only to wake the hart from WFI.
 */
#include "emcp_board_uart.h"

#define UART_BASE 0x10000000u
#define REG(off) (*(volatile uint8_t *)(UART_BASE + (off)))
#define RBR REG(0u) /* receive buffer (read), transmit holding (write), DLL with DLAB */
#define THR REG(0u)
#define DLL REG(0u)
#define DLM REG(1u)
#define IER REG(1u)
#define FCR REG(2u)
#define LCR REG(3u)
#define LSR REG(5u)

#define LSR_DATA_READY 0x01u
#define LSR_THR_EMPTY 0x20u
#define UART_CLOCK_HZ 3686400u

/* The virt machine's PLIC: the UART is source 10; context 0 is hart 0 in
 * machine mode. Only used to wake WFI: mstatus.MIE stays 0, nothing traps. */
#define PLIC_BASE 0x0C000000u
#define UART_IRQ 10u
#define PLIC_PRIORITY(src) (*(volatile uint32_t *)(PLIC_BASE + 4u * (src)))
#define PLIC_ENABLE0 (*(volatile uint32_t *)(PLIC_BASE + 0x2000u))
#define PLIC_THRESHOLD0 (*(volatile uint32_t *)(PLIC_BASE + 0x200000u))
#define PLIC_CLAIM0 (*(volatile uint32_t *)(PLIC_BASE + 0x200004u))
#define MIE_MEIE (1u << 11)

void emcp_board_uart_init(void)
{
    unsigned div = UART_CLOCK_HZ / (16u * EMCP_BOARD_UART_BAUD);
    IER = 0;
    LCR = 0x80u;        /* DLAB: the divisor latch */
    DLL = (uint8_t)div;
    DLM = (uint8_t)(div >> 8);
    LCR = 0x03u;        /* 8N1 */
    FCR = 0x07u;        /* FIFOs on and cleared */
    IER = 0x01u;        /* received data available: raises the PLIC source */
    PLIC_PRIORITY(UART_IRQ) = 1;
    PLIC_THRESHOLD0 = 0;
    PLIC_ENABLE0 = 1u << UART_IRQ;
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MEIE));
}

void emcp_board_uart_idle(void)
{
    /* WFI ends when mip & mie is non-zero, whatever mstatus.MIE says. */
    if ((LSR & LSR_DATA_READY) == 0) {
        __asm__ volatile("wfi" ::: "memory");
    }
    uint32_t src;
    while ((src = PLIC_CLAIM0) != 0) { /* claim and complete: MEIP falls */
        PLIC_CLAIM0 = src;
    }
}

size_t emcp_board_uart_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && (LSR & LSR_DATA_READY) != 0) {
        buf[n++] = RBR;
    }
    return n;
}

void emcp_board_uart_write(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((LSR & LSR_THR_EMPTY) == 0) {
        }
        THR = buf[i];
    }
}
