/* consumer-http: emcp::http links (its helpers run; no socket is opened). */
#include <stdio.h>

#include "emcp_http.h"

int main(void)
{
    int same = emcp_http_ct_compare("token", 5, "token", 5);
    int other = emcp_http_ct_compare("token", 5, "tokem", 5);
    printf("consumer-http: compare %d %d\n", same, other);
    return same != other ? 0 : 1;
}
