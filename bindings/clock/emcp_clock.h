/**
 * @file emcp_clock.h
 * @brief The host examples' monotonic clock, for mcp_request_ctx_t.now_ms and
 *        for tools that measure ages. Firmware uses its RTOS tick instead.
 */
#ifndef EMCP_CLOCK_H
#define EMCP_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Milliseconds of a monotonic clock with an arbitrary origin; 0 if unavailable. */
uint64_t emcp_monotonic_ms(void);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_CLOCK_H */
