/* The host examples' monotonic clock (see emcp_clock.h).
 *
 * Rate limits (mcp_tool_t.min_interval_ms) and duplicate windows are measured
 * on this clock, so it must be monotonic: a wall clock stepped by NTP or by
 * hand would open a rate limit early or keep it shut. There is no fallback:
 * without CLOCK_MONOTONIC the build fails. The POSIX feature macro is set here,
 * not left to the build flags, so a plain -std=c11 build gets the same clock. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "emcp_clock.h"

#include <time.h>

#if !defined(CLOCK_MONOTONIC)
#error "emcp_clock.c needs clock_gettime(CLOCK_MONOTONIC); supply now_ms from the platform's monotonic tick instead"
#endif

uint64_t emcp_monotonic_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
