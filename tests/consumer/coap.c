/* consumer-coap: emcp::coap links (nothing is opened). */
#include <stdio.h>

#include "emcp_coap.h"

static emcp_coap_t coap;

int main(void)
{
    printf("consumer-coap: %llu requests\n", (unsigned long long)emcp_coap_requests(&coap));
    return 0;
}
