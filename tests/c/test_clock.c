/* emcp_clock.c built as plain C11 (no _POSIX_C_SOURCE from the build flags)
 * must still read CLOCK_MONOTONIC: rate limits and duplicate windows depend
 * on it. A wall-clock fallback would be ~1.7e12 ms away from the monotonic
 * reading taken here. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "check.h"
#include "emcp_clock.h"

int main(void)
{
    struct timespec ts;
    CHECK_INT(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
    uint64_t mono = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
    uint64_t got = emcp_monotonic_ms();
    uint64_t diff = got > mono ? got - mono : mono - got;
    if (!CHECK(diff < 1000)) {
        printf("  emcp_monotonic_ms() = %llu, CLOCK_MONOTONIC = %llu ms\n", (unsigned long long)got,
               (unsigned long long)mono);
    }
    return check_summary("test_clock");
}
