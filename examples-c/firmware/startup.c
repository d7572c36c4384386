/*
 * Startup and board support of the emcp test firmware (Cortex-M0/M3/M4F on
 * QEMU's MPS2 boards): the vector table, the reset handler, fault handlers
 * that end the QEMU run with a failure, the firmware's millisecond clock, and
 * the 64-bit atomic helpers GCC calls on cores without LDREXD.
 *
 * The reset handler copies .data from flash, enables the FPU when the code
 * is built for one, and enters newlib's _start (rdimon semihosting crt0),
 * which zeroes .bss, runs constructors and calls main(); main's return value
 * becomes QEMU's exit status.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emcp_clock.h"

extern uint32_t __StackTop;
extern uint32_t __data_load__;
extern uint32_t __data_start__;
extern uint32_t __data_end__;

extern void _start(void) __attribute__((noreturn));

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));
void Default_Handler(void) __attribute__((noreturn));
void UART0RX_Handler(void);
#ifdef FW_LIVE_CLOCK
static void clock_start(void);
void SysTick_Handler(void);
#define FW_SYSTICK SysTick_Handler
#else
#define FW_SYSTICK Default_Handler
#endif

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* CPACR: full access to CP10 and CP11 (the FPU) before any FP instruction. */
    volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    /* .data is loaded into flash; copy it to RAM word by word. */
    const uint32_t *src = &__data_load__;
    for (uint32_t *dst = &__data_start__; dst < &__data_end__;) {
        *dst++ = *src++;
    }
#ifdef FW_LIVE_CLOCK
    clock_start();
#endif
    _start();
}

/* A fault is a failed test: say so on the semihosting console and exit. */
void Fault_Handler(void)
{
    static const char msg[] = "firmware: FAULT (HardFault/MemManage/BusFault/UsageFault)\n";
    (void)write(2, msg, sizeof msg - 1);
    _exit(90);
}

void Default_Handler(void)
{
    static const char msg[] = "firmware: unexpected interrupt\n";
    (void)write(2, msg, sizeof msg - 1);
    _exit(91);
}

/* The first external interrupt of the MPS2 boards: UART0's receiver. The
 * UART image's driver (uart-cmsdk.c) replaces this weak one; in the
 * self-test image nothing enables it, so taking it is a failure. */
__attribute__((weak)) void UART0RX_Handler(void)
{
    Default_Handler();
}

typedef void (*vector_t)(void);

/* Initial SP, reset, the ten system exception vectors of ARMv6-M/v7-M,
 * then external interrupt 0 (UART0 RX). */
__attribute__((section(".isr_vector"), used)) static const vector_t vectors[17] = {
    (vector_t)(uintptr_t)&__StackTop,
    Reset_Handler,
    Default_Handler, /* NMI */
    Fault_Handler,   /* HardFault */
    Fault_Handler,   /* MemManage */
    Fault_Handler,   /* BusFault */
    Fault_Handler,   /* UsageFault */
    0,
    0,
    0,
    0,
    Default_Handler, /* SVCall */
    Default_Handler, /* DebugMon */
    0,
    Default_Handler, /* PendSV */
    FW_SYSTICK,      /* SysTick: the live clock's tick, or unexpected */
    UART0RX_Handler, /* IRQ 0 */
};

/* ---- Board support ---------------------------------------------------- */

/* 64-bit atomics. ARMv6-M has no exclusive loads at all and ARMv7-M none of
 * 64 bits, so GCC calls these for _Atomic uint64_t; with one core and no
 * preemption by other users of the value, masking interrupts is atomic. */
static uint32_t irq_save(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}

static void irq_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint64_t __atomic_load_8(const volatile void *mem, int model);
void __atomic_store_8(volatile void *mem, uint64_t val, int model);

uint64_t __atomic_load_8(const volatile void *mem, int model)
{
    (void)model;
    uint32_t s = irq_save();
    uint64_t v = *(const volatile uint64_t *)mem;
    irq_restore(s);
    return v;
}

void __atomic_store_8(volatile void *mem, uint64_t val, int model)
{
    (void)model;
    uint32_t s = irq_save();
    *(volatile uint64_t *)mem = val;
    irq_restore(s);
}

/* The firmware's clock. The self-test image (main.c) keeps time fixed so
 * that every response is reproducible; the UART image (serve.c, built with
 * FW_LIVE_CLOCK) counts SysTick interrupts, one per millisecond of the core
 * clock, as a product reads its RTOS tick (rate limits and audit durations
 * need time to pass). */
#ifdef FW_LIVE_CLOCK
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define FW_CORE_CLOCK_HZ 25000000u /* both MPS2 FPGA images */

static volatile uint64_t board_ms = 1000u; /* never 0: 0 means "no clock" to the core */

void SysTick_Handler(void)
{
    board_ms = board_ms + 1u;
}

static void clock_start(void)
{
    SYST_RVR = FW_CORE_CLOCK_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* processor clock, interrupt, enable */
}

uint64_t emcp_monotonic_ms(void)
{
    uint32_t s = irq_save(); /* a 64-bit read is two loads */
    uint64_t v = board_ms;
    irq_restore(s);
    return v;
}
#else
static volatile uint64_t board_ms = 5000u;

uint64_t emcp_monotonic_ms(void)
{
    return board_ms;
}
#endif
