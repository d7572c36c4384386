/* Stack high-water marks by painting, for the QEMU firmware images (main.c
 * measures the core's peak stack per entry point, serve.c the serve loop's). */
#ifndef FW_STACK_H
#define FW_STACK_H

#include <stddef.h>
#include <stdint.h>

#define FW_PAINT_WORD 0xC5C5C5C5u
/* Bytes painted below the measuring frame. Not the linker's stack limit:
 * newlib's rdimon start-up moves the stack to where the semihosting host says. */
#define FW_PAINT_BYTES (12u * 1024u)

static inline uintptr_t fw_sp_now(void)
{
    uintptr_t sp;
#if defined(__riscv)
    __asm__ volatile("mv %0, sp" : "=r"(sp));
#else
    __asm__ volatile("mov %0, sp" : "=r"(sp));
#endif
    return sp;
}

/* Fills the unused stack from `limit` up to `gap` bytes below this frame. */
__attribute__((noinline, unused)) static void fw_paint_stack(uintptr_t limit, uintptr_t gap)
{
    volatile uint32_t *p = (volatile uint32_t *)limit;
    uintptr_t top = fw_sp_now() - gap;
    while ((uintptr_t)p < top) {
        *p++ = FW_PAINT_WORD;
    }
}

/* Bytes below `sp0` written since fw_paint_stack(limit, ...). */
__attribute__((unused)) static size_t fw_stack_used(uintptr_t limit, uintptr_t sp0)
{
    const volatile uint32_t *p = (const volatile uint32_t *)limit;
    while ((uintptr_t)p < sp0 && *p == FW_PAINT_WORD) {
        p++;
    }
    return sp0 - (uintptr_t)p;
}

#endif
