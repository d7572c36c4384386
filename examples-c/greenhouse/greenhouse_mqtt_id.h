/*
 * The default MQTT client id of a greenhouse gateway on a POSIX host,
 * shared by greenhouse-mqtt (libmosquitto) and greenhouse-coremqtt.
 *
 * Each instance needs its own client id: a broker disconnects the older of
 * two sessions with the same id, and instances of one shared group would
 * knock each other off in a loop. "<server-id>-<host>-<pid>", with the host
 * name's characters outside [A-Za-z0-9_.-] replaced by '-'.
 */

#ifndef GREENHOUSE_MQTT_ID_H
#define GREENHOUSE_MQTT_ID_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static inline void greenhouse_mqtt_client_id(char *out, size_t cap, const char *server_id)
{
    char host[32] = "host";
    if (gethostname(host, sizeof host) != 0) {
        strcpy(host, "host");
    }
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p != '\0'; p++) {
        bool ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                  *p == '-' || *p == '_' || *p == '.';
        if (!ok) {
            *p = '-';
        }
    }
    snprintf(out, cap, "%.20s-%.20s-%ld", server_id, host, (long)getpid());
}

#endif /* GREENHOUSE_MQTT_ID_H */
