/*
 * Start-up and board support of the emcp test firmware on QEMU's RISC-V
 * `virt` machine (rv32imac, machine mode, run with -bios none): the entry
 * point, a trap handler that ends the QEMU run with a failure, the firmware's
 * millisecond clock and the 64-bit atomic helpers GCC calls on RV32.
 *
 * _start sets the global pointer, the stack pointer and the thread pointer
 * (picolibc keeps errno in thread-local storage; the one thread uses the
 * .tdata image in place, see virt.ld), parks any hart but hart 0, and calls
 * fw_riscv_start, which installs the trap vector, zeroes .bss and .tbss and
 * calls main(). There is no .data copy: QEMU loads the ELF into RAM, where
 * .data is linked. main's return value goes to exit(), and picolibc's
 * semihosting _exit passes it to QEMU as its exit status (SYS_EXIT_EXTENDED,
 * which QEMU supports; a trap exits with 90).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emcp_clock.h"

int main(void);
void fw_riscv_start(void) __attribute__((noreturn, used));
void fw_riscv_trap(void) __attribute__((noreturn, used, aligned(4)));

extern uint8_t __bss_start[], __bss_end[];
extern uint8_t __tls_bss_start[], __tls_end[];

/* The entry point, first in .text (0x80000000). gp must be set with
 * relaxation off, or the assembler would address __global_pointer$ through
 * gp itself. */
__asm__(".section .text.start, \"ax\", @progbits\n"
        ".globl _start\n"
        ".type _start, @function\n"
        "_start:\n"
        "  .option push\n"
        "  .option norelax\n"
        "  la gp, __global_pointer$\n"
        "  .option pop\n"
        "  la sp, __stack_top\n"
        "  la tp, __tls_base\n"
        "  csrr t0, mhartid\n"
        "  bnez t0, 1f\n"
        "  j fw_riscv_start\n"
        "1:\n"
        "  wfi\n"
        "  j 1b\n"
        ".size _start, . - _start\n"
        ".text\n");

void fw_riscv_start(void)
{
    /* Direct mode: every exception and interrupt enters fw_riscv_trap. */
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)fw_riscv_trap));
    memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
    memset(__tls_bss_start, 0, (size_t)(__tls_end - __tls_bss_start));
    exit(main());
}

/* A trap is a failed test: say which on the semihosting console and exit.
 * Nothing enables interrupts, so any entry here is an exception. */
void fw_riscv_trap(void)
{
    uintptr_t cause, epc, tval;
    __asm__ volatile("csrr %0, mcause" : "=r"(cause));
    __asm__ volatile("csrr %0, mepc" : "=r"(epc));
    __asm__ volatile("csrr %0, mtval" : "=r"(tval));
    printf("firmware: FAULT (trap: mcause=0x%lx mepc=0x%lx mtval=0x%lx)\n", (unsigned long)cause,
           (unsigned long)epc, (unsigned long)tval);
    _exit(90);
}

/* ---- Board support ---------------------------------------------------- */

/* The firmware's clock. The self-test image (main.c) keeps time fixed so
 * that every response is reproducible; the UART image (serve.c, built with
 * FW_LIVE_CLOCK) reads the CLINT's mtime (10 MHz on QEMU's virt machine). */
#ifdef FW_LIVE_CLOCK
#define MTIME_LO (*(volatile uint32_t *)0x0200BFF8u)
#define MTIME_HI (*(volatile uint32_t *)0x0200BFFCu)
#define MTIME_HZ 10000000u

uint64_t emcp_monotonic_ms(void)
{
    uint32_t hi, lo;
    do { /* the high word must not change between the two reads */
        hi = MTIME_HI;
        lo = MTIME_LO;
    } while (hi != MTIME_HI);
    return 1000u + (((uint64_t)hi << 32) | lo) / (MTIME_HZ / 1000u); /* never 0 */
}
#else
static volatile uint64_t board_ms = 5000u;

uint64_t emcp_monotonic_ms(void)
{
    return board_ms;
}
#endif

/* 64-bit atomics. RV32A has 32-bit LR/SC and AMOs only, so GCC calls these
 * for _Atomic uint64_t; on one hart, clearing mstatus.MIE around the access
 * makes it atomic. */
static uintptr_t irq_save(void)
{
    uintptr_t mstatus;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus)::"memory");
    return mstatus;
}

static void irq_restore(uintptr_t mstatus)
{
    __asm__ volatile("csrs mstatus, %0" ::"r"(mstatus & 8u) : "memory");
}

uint64_t __atomic_load_8(const volatile void *mem, int model);
void __atomic_store_8(volatile void *mem, uint64_t val, int model);

uint64_t __atomic_load_8(const volatile void *mem, int model)
{
    (void)model;
    uintptr_t s = irq_save();
    uint64_t v = *(const volatile uint64_t *)mem;
    irq_restore(s);
    return v;
}

void __atomic_store_8(volatile void *mem, uint64_t val, int model)
{
    (void)model;
    uintptr_t s = irq_save();
    *(volatile uint64_t *)mem = val;
    irq_restore(s);
}
