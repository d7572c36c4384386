/**
 * @file emcp_mqtt_core.h
 * @brief The coreMQTT v5 shim of the emcp MQTT binding, for firmware
 *        (FreeRTOS or bare metal) and hosts.
 *
 * Same behaviour as the libmosquitto shim (emcp_mqtt_mosq.h): MQTT 5 with
 * clean start and its own client id, QoS 1 subscription to the binding's
 * request filter, retained presence and a retained "offline" Last Will,
 * every PUBLISH handed to emcp_mqtt_handle() and its reply published with
 * Response Topic as topic, Correlation Data echoed and Content Type
 * application/json (MQTTPropertyBuilder / MQTTPropAdd_*), reconnect with
 * exponential backoff and jitter, offline presence and DISCONNECT on stop.
 *
 * Nothing is allocated: coreMQTT's network buffer, its QoS 1 records and the
 * property buffers live in the caller's emcp_mqtt_core_t. The transport is
 * the caller's: a coreMQTT TransportInterface_t (POSIX sockets in
 * examples-c/coremqtt, FreeRTOS+TCP, lwIP or a TLS stack on firmware) opened
 * by emcp_mqtt_core_net_t.connect. Everything runs on the calling task, in
 * emcp_mqtt_core_run(). TLS belongs to the transport.
 */

#ifndef EMCP_MQTT_CORE_H
#define EMCP_MQTT_CORE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core_mqtt.h"
#include "emcp_mqtt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default keep-alive in seconds (as EMCP_MQTT_KEEPALIVE_S of the libmosquitto shim). */
#define EMCP_MQTT_CORE_KEEPALIVE_S 30

/** How long shutdown waits for the offline presence's PUBACK, ms. */
#define EMCP_MQTT_CORE_SHUTDOWN_MS 2000

/** How long MQTT_Connect waits for CONNACK, ms. */
#define EMCP_MQTT_CORE_CONNACK_MS 5000

/** coreMQTT's network buffer, and the Maximum Packet Size sent in CONNECT:
 *  the broker never delivers a larger PUBLISH (no reply). Payloads between
 *  EMCP_MQTT_PAYLOAD_MAX and this (minus the packet's headers) are delivered
 *  and refused with a -32600 reply. */
#ifndef EMCP_MQTT_CORE_PACKET_MAX
#define EMCP_MQTT_CORE_PACKET_MAX (EMCP_MQTT_PAYLOAD_MAX + 8192)
#endif

/** QoS 1 publishes of ours awaiting PUBACK (replies, presence); a reply
 *  beyond this is not sent (logged) until PUBACKs free a record. */
#ifndef EMCP_MQTT_CORE_INFLIGHT
#define EMCP_MQTT_CORE_INFLIGHT 16
#endif

/** Incoming QoS 1 publishes tracked by coreMQTT (duplicate detection). */
#ifndef EMCP_MQTT_CORE_INCOMING
#define EMCP_MQTT_CORE_INCOMING 16
#endif

/** Property buffer of one outgoing packet (CONNECT, Will, reply, presence):
 *  Content Type, Payload Format Indicator, Correlation Data and (a
 *  server-to-client request's) Response Topic. */
#define EMCP_MQTT_CORE_PROPS_MAX (64 + EMCP_MQTT_CORRELATION_MAX + 3 + EMCP_MQTT_TOPIC_MAX)

/** The network: opens and closes the connection to the broker. */
typedef struct emcp_mqtt_core_net_t {
    /** Connects to the broker and fills @p transport (recv, send,
     *  pNetworkContext; writev may be NULL). recv must return 0 when no byte
     *  arrives within a short wait (a few ms) and a negative value when the
     *  connection is closed or failed. Returns 0 or a negative value. */
    int (*connect)(void *user, TransportInterface_t *transport);
    /** Closes the connection (after a failure or a DISCONNECT). */
    void (*disconnect)(void *user);
    void *user; /**< Passed to both. */
} emcp_mqtt_core_net_t;

/** Options for emcp_mqtt_core_run(); the strings must outlive the call. */
typedef struct emcp_mqtt_core_options_t {
    const char *broker;    /**< For log lines only, e.g. "127.0.0.1:1883". */
    const char *client_id; /**< MQTT client id, unique per instance (required). */
    unsigned keepalive_s;  /**< Keep-alive, 1 to 65535 s; 0 → EMCP_MQTT_CORE_KEEPALIVE_S. */
    const char *username;  /**< Or NULL (the principal is then "anonymous": emcp_mqtt_principal()). */
    const char *password;  /**< Or NULL. */
    unsigned backoff_min_ms; /**< 0 → EMCP_MQTT_BACKOFF_MIN_MS (emcp_mqtt.h). */
    unsigned backoff_max_ms; /**< 0 → EMCP_MQTT_BACKOFF_MAX_MS (emcp_mqtt.h). */
    volatile sig_atomic_t *stop; /**< Set non-zero (a signal handler, another task) to stop. */
    uint32_t (*now_ms)(void);    /**< Monotonic ms (wraps), also coreMQTT's clock (required). */
    void (*sleep_ms)(unsigned ms); /**< Sleeps (vTaskDelay on FreeRTOS) (required). */
    emcp_mqtt_log_fn log;  /**< Diagnostics, or NULL. */
    void *log_user;        /**< Passed to @c log. */
} emcp_mqtt_core_options_t;

/** The shim's state; caller-owned, e.g. `static emcp_mqtt_core_t shim;`. */
typedef struct emcp_mqtt_core_t {
    MQTTContext_t ctx; /* first: the event callback gets back here from it */
    emcp_mqtt_t *b;
    const emcp_mqtt_core_options_t *opt;
    uint64_t clock_hi;    /* now_ms widened to 64 bits */
    uint32_t clock_last;
    emcp_mqtt_backoff_t backoff;
    bool connected;
    bool was_connected;
    uint16_t sub_id;      /* packet id of our SUBSCRIBE */
    uint16_t offline_id;  /* packet id of the shutdown presence, 0 = none */
    bool offline_acked;
    MQTTPubAckInfo_t outgoing[EMCP_MQTT_CORE_INFLIGHT];
    MQTTPubAckInfo_t incoming[EMCP_MQTT_CORE_INCOMING];
    uint8_t ack_props[16];
    uint8_t props[EMCP_MQTT_CORE_PROPS_MAX];
    uint8_t will_props[EMCP_MQTT_CORE_PROPS_MAX];
    uint8_t connect_props[16];
    char presence[EMCP_MQTT_PRESENCE_MAX];
    char will[EMCP_MQTT_PRESENCE_MAX];
    uint8_t netbuf[EMCP_MQTT_CORE_PACKET_MAX];
} emcp_mqtt_core_t;

/**
 * Serves @p binding through a broker until *opt->stop becomes non-zero.
 * Connection failures (and refused CONNECTs) are retried forever with
 * backoff; on stop, presence is set to offline (retained) and the session is
 * closed with DISCONNECT, which discards the Will.
 *
 * @retval 0 Stopped on request.
 * @retval -MCP_EINVAL A required option is missing or out of range.
 */
int emcp_mqtt_core_run(emcp_mqtt_core_t *shim, emcp_mqtt_t *binding, const emcp_mqtt_core_options_t *opt,
                       const emcp_mqtt_core_net_t *net);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_MQTT_CORE_H */
