/*
 * The UART of QEMU's RISC-V virt machine: an NS16550A at 0x10000000 (clock
 * 3.6864 MHz), polled, FIFOs on.
 */
#include "fw_uart.h"

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

void fw_uart_init(void)
{
    unsigned div = UART_CLOCK_HZ / (16u * FW_UART_BAUD);
    IER = 0;            /* polled */
    LCR = 0x80u;        /* DLAB: the divisor latch */
    DLL = (uint8_t)div;
    DLM = (uint8_t)(div >> 8);
    LCR = 0x03u;        /* 8N1 */
    FCR = 0x07u;        /* FIFOs on and cleared */
}

size_t fw_uart_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && (LSR & LSR_DATA_READY) != 0) {
        buf[n++] = RBR;
    }
    return n;
}

void fw_uart_write(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((LSR & LSR_THR_EMPTY) == 0) {
        }
        THR = buf[i];
    }
}
