/* consumer-clock: emcp::clock links and its clock runs. */
#include <stdio.h>

#include "emcp_clock.h"

int main(void)
{
    uint64_t t = emcp_monotonic_ms();
    printf("consumer-clock: %llu ms\n", (unsigned long long)t);
    return t > 0 ? 0 : 1;
}
