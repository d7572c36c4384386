/* coreMQTT's transport interface over POSIX TCP sockets (transport_posix.c). */
#ifndef EMCP_CORE_TRANSPORT_POSIX_H
#define EMCP_CORE_TRANSPORT_POSIX_H

#include "transport_interface.h"

/** Longest wait of one recv/send call for the socket to become ready, ms. */
#define EMCP_CORE_POSIX_RECV_WAIT_MS 10

struct NetworkContext {
    const char *host; /**< Broker host name or address. */
    int port;         /**< Broker TCP port. */
    int fd;           /**< The socket, or -1. */
};

/** emcp_mqtt_core_net_t.connect: @p user is a NetworkContext_t. */
int emcp_core_posix_connect(void *user, TransportInterface_t *transport);

/** emcp_mqtt_core_net_t.disconnect. */
void emcp_core_posix_disconnect(void *user);

#endif
