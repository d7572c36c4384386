/* consumer-mqtt_mosquitto: emcp::mqtt_mosquitto links (no broker is contacted). */
#include <stdio.h>

#include "emcp_mqtt_mosq.h"

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 99) { /* never: only so that the shim is linked */
        return emcp_mqtt_mosq_run(NULL, NULL);
    }
    printf("consumer-mqtt_mosquitto: linked\n");
    return 0;
}
