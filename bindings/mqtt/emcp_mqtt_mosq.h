/**
 * @file emcp_mqtt_mosq.h
 * @brief The libmosquitto (MQTT 5) shim of the emcp MQTT binding, for Linux.
 *
 * Connects with MQTT 5 and its own client id, subscribes to the binding's
 * request filter with QoS 1, publishes retained presence and leaves a
 * retained "offline" Last Will, hands every PUBLISH to emcp_mqtt_handle() and
 * publishes the replies. When the connection drops (a broker restart), it
 * reconnects with exponential backoff and jitter, subscribes again and
 * republishes presence. TLS (the broker's CA, optional client certificate)
 * and username/password come from the options.
 *
 * libmosquitto allocates (packets, property copies); the portable part does
 * not. Everything runs on the calling thread, in emcp_mqtt_mosq_run().
 */

#ifndef EMCP_MQTT_MOSQ_H
#define EMCP_MQTT_MOSQ_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include <mosquitto.h>

#include "emcp_mqtt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default keep-alive in seconds. */
#define EMCP_MQTT_KEEPALIVE_S 30

/** Maximum Packet Size sent in CONNECT: the broker drops (never delivers)
 *  larger PUBLISHes to us. Payloads between EMCP_MQTT_PAYLOAD_MAX and this
 *  are delivered and refused with a -32600 reply. */
#define EMCP_MQTT_PACKET_MAX (2u * 1024u * 1024u)

/** How long shutdown waits for the offline presence to be acknowledged, ms. */
#define EMCP_MQTT_SHUTDOWN_MS 2000

/** Options for emcp_mqtt_mosq_run(); the strings must outlive the call. */
typedef struct emcp_mqtt_mosq_options_t {
    const char *host;      /**< Broker host name or address (required). */
    int port;              /**< Broker port (1883, or 8883 for TLS). */
    const char *client_id; /**< MQTT client id, unique per instance (required). */
    int keepalive_s;       /**< Keep-alive, 5 to 65535 s; 0 → EMCP_MQTT_KEEPALIVE_S. */
    const char *username;  /**< Or NULL (the principal is then "anonymous": emcp_mqtt_principal()). */
    const char *password;  /**< Or NULL. */
    const char *cafile;    /**< TLS: CA certificate file; TLS is on when this or capath is set. */
    const char *capath;    /**< TLS: CA directory, or NULL. */
    const char *certfile;  /**< TLS: client certificate (PEM), or NULL. */
    const char *keyfile;   /**< TLS: client key (PEM), or NULL. */
    const char *tls_version; /**< "tlsv1.3", "tlsv1.2" or NULL for the library default. */
    bool tls_insecure;     /**< Skip the host-name check (tests only). */
    unsigned backoff_min_ms; /**< 0 → EMCP_MQTT_BACKOFF_MIN_MS. */
    unsigned backoff_max_ms; /**< 0 → EMCP_MQTT_BACKOFF_MAX_MS. */
    volatile sig_atomic_t *stop; /**< Set non-zero (e.g. from a signal handler) to stop. */
    FILE *log;             /**< Diagnostics, or NULL. */
} emcp_mqtt_mosq_options_t;

/** The --help lines of the options emcp_mqtt_mosq_parse_option() takes
 *  (without --client-id, whose default each program says itself), for a
 *  program's usage text: one string literal. */
#define EMCP_MQTT_MOSQ_USAGE                                                           \
    "  --broker HOST:PORT   broker address (default 127.0.0.1:1883)\n"                  \
    "  --keepalive S        MQTT keep-alive in seconds, 5-65535 (default 30)\n"         \
    "  --username U         MQTT username\n"                                            \
    "  --password-env VAR   read the MQTT password from environment variable VAR\n"     \
    "  --cafile F | --capath D   TLS: trust this CA (turns TLS on)\n"                   \
    "  --cert F --key F     TLS: client certificate and key\n"                          \
    "  --tls-version V      TLS: tlsv1.2 or tlsv1.3\n"                                  \
    "  --tls-insecure       TLS: do not check the broker's host name (tests only)\n"

/**
 * Consumes one broker option of a command line into @p opt, so every
 * program on the shim takes the same options with the same checks:
 * --broker HOST:PORT (the last colon splits, so an IPv6 address needs no
 * brackets; HOST alone keeps the port), --client-id ID, --keepalive S (5 to
 * 65535), --username U, --password-env VAR (the password is read from the
 * environment, never from the command line), --cafile F, --capath D,
 * --cert F, --key F, --tls-version V and --tls-insecure.
 *
 * @param opt  Options to fill; the strings point into @p argv (and the
 *             environment), so they live as long as the process. --broker
 *             writes a NUL over its colon.
 * @param argc The argument count.
 * @param argv The arguments.
 * @param i    Index of the argument to look at; advanced past the value of
 *             a consumed option that takes one.
 * @param err  Where a bad value is explained (one line), or NULL.
 * @retval 1 argv[*i] was a broker option and is consumed.
 * @retval 0 argv[*i] is not a broker option (nothing changed).
 * @retval -1 It was one, with a missing or bad value (said on @p err).
 */
int emcp_mqtt_mosq_parse_option(emcp_mqtt_mosq_options_t *opt, int argc, char **argv, int *i,
                                FILE *err);


/**
 * Applies @p opt's session options to a libmosquitto client, as
 * emcp_mqtt_mosq_run() does for its own: MQTT 5, TCP_NODELAY, username and
 * password, and TLS (CA, client certificate, version, host-name check) when
 * cafile or capath is set. For other programs on libmosquitto (emcp-gateway)
 * that connect as the devices do. Host, port, keep-alive and the callbacks
 * stay the caller's.
 *
 * @retval 0 Applied.
 * @retval -MCP_EINVAL NULL argument, or libmosquitto refused an option (a
 *         TLS file that does not exist, an unknown TLS version).
 */
int emcp_mqtt_mosq_configure(struct mosquitto *mosq, const emcp_mqtt_mosq_options_t *opt);

/**
 * Serves @p binding through a broker until *opt->stop becomes non-zero.
 * Connection failures are retried forever with backoff; on stop, presence is
 * set to offline (retained) and the session is closed cleanly.
 *
 * @retval 0 Stopped on request.
 * @retval -MCP_EINVAL A required option is missing or libmosquitto refused
 *         an option (bad TLS files, bad client id, keep-alive below 5 s).
 */
int emcp_mqtt_mosq_run(emcp_mqtt_t *binding, const emcp_mqtt_mosq_options_t *opt);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_MQTT_MOSQ_H */
