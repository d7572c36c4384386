/* Instruction counts for the QEMU firmware images. scripts/test.d/40-firmware.sh
 * runs QEMU with `-icount shift=0`: every guest instruction then takes exactly
 * 1 ns of virtual time, so a clock counts instructions. Cortex-M: SysTick on
 * the processor clock (25 MHz on the MPS2 boards: one tick per 40
 * instructions; averaged over many requests). RISC-V: minstret. On a real
 * board the same code counts processor clock cycles instead. */
#ifndef FW_COUNT_H
#define FW_COUNT_H

#include <stdint.h>

#if defined(__riscv)
/* Instructions per count. */
#define FW_COUNT_UNIT 1u

__attribute__((unused)) static void fw_count_start(void) {}

static inline uint32_t fw_count_now(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}

/* Counts from `from` to `to`. */
static inline uint32_t fw_count_since(uint32_t from, uint32_t to)
{
    return to - from;
}
#else
/* SysTick at the MPS2 boards' 25 MHz processor clock: 40 ns per count. */
#define FW_COUNT_UNIT 40u
#define FW_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define FW_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define FW_SYST_CVR (*(volatile uint32_t *)0xE000E018u)

/* Free-running, no interrupt: enable, processor clock. */
__attribute__((unused)) static void fw_count_start(void)
{
    FW_SYST_RVR = 0xFFFFFFu;
    FW_SYST_CVR = 0u;
    FW_SYST_CSR = 5u;
}

static inline uint32_t fw_count_now(void)
{
    return FW_SYST_CVR;
}

/* SysTick counts down through 24 bits (one wrap at most between reads). */
static inline uint32_t fw_count_since(uint32_t from, uint32_t to)
{
    return (from - to) & 0xFFFFFFu;
}
#endif

#endif
