/* consumer-mqtt: emcp::mqtt, the portable MQTT 5 part, links and runs. */
#include <stdio.h>

#include "emcp.h"
#include "emcp_mqtt.h"

static mcp_server_t server;
static emcp_mqtt_t mqtt;

int main(void)
{
    static const mcp_server_config_t config = {.name = "emcp-consumer", .version = "1"};
    static const emcp_mqtt_config_t cfg = {.server_id = "consumer-1", .name = "emcp-consumer", .version = "1"};
    if (mcp_server_init(&server, &config) != 0 || emcp_mqtt_init(&mqtt, &server, &cfg) != 0) {
        fprintf(stderr, "consumer-mqtt: cannot set up the binding\n");
        return 1;
    }
    printf("consumer-mqtt: subscribes to %s\n", emcp_mqtt_subscription(&mqtt));
    return 0;
}
