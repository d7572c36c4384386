/* The host examples' monotonic clock (see emcp_clock.h). */
#include "emcp_clock.h"

#include <time.h>

uint64_t emcp_monotonic_ms(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0;
    }
#else
    /* Not monotonic, but the best plain C11 offers. */
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) {
        return 0;
    }
#endif
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
