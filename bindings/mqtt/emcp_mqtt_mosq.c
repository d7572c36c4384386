/*
 * The libmosquitto MQTT 5 shim: network, session and property decoding
 * around the portable binding (emcp_mqtt.c). One thread, mosquitto_loop().
 */

#include "emcp_mqtt_mosq.h"

#include "emcp_clock.h"

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if LIBMOSQUITTO_MAJOR < 2 && !(LIBMOSQUITTO_MAJOR == 1 && LIBMOSQUITTO_MINOR >= 6)
#error "libmosquitto 1.6 or newer is needed for MQTT 5"
#endif


struct shim {
    emcp_mqtt_t *b;
    const emcp_mqtt_mosq_options_t *opt;
    struct mosquitto *mosq;
    bool connected;      /* CONNACK success seen and not lost since */
    bool was_connected;  /* for "reconnected" log lines */
    emcp_mqtt_backoff_t backoff;
    int offline_mid;     /* mid of the shutdown presence, or -1 */
    bool offline_acked;
    char presence[EMCP_MQTT_PRESENCE_MAX];
};

static void slog(const struct shim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void slog(const struct shim *s, const char *fmt, ...)
{
    if (s->opt->log == NULL) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("emcp_mqtt_mosq: ", s->opt->log);
    vfprintf(s->opt->log, fmt, ap);
    fputc('\n', s->opt->log);
    fflush(s->opt->log);
    va_end(ap);
}

/* Publishes presence (retained, QoS 1, Content Type application/json). */
static int publish_presence(struct shim *s, bool online, int *mid)
{
    int n = emcp_mqtt_presence(s->b, online, s->presence, sizeof s->presence);
    if (n < 0) {
        return n;
    }
    mosquitto_property *props = NULL;
    mosquitto_property_add_string(&props, MQTT_PROP_CONTENT_TYPE, EMCP_MQTT_CONTENT_TYPE);
    mosquitto_property_add_byte(&props, MQTT_PROP_PAYLOAD_FORMAT_INDICATOR, 1);
    int rc = mosquitto_publish_v5(s->mosq, mid, emcp_mqtt_presence_topic(s->b), n, s->presence,
                                  EMCP_MQTT_QOS, true, props);
    mosquitto_property_free_all(&props);
    if (rc != MOSQ_ERR_SUCCESS) {
        slog(s, "cannot publish presence: %s", mosquitto_strerror(rc));
    }
    return rc;
}

/* ---- Callbacks (run inside mosquitto_loop on our thread) --------------- */

static void on_connect(struct mosquitto *mosq, void *obj, int rc, int flags,
                       const mosquitto_property *props)
{
    (void)flags;
    (void)props;
    struct shim *s = obj;
    if (rc != 0) {
        slog(s, "broker refused the connection: %s", mosquitto_reason_string(rc));
        return; /* the loop sees the disconnect and backs off */
    }
    s->connected = true;
    emcp_mqtt_backoff_reset(&s->backoff);
    slog(s, "%s to %s:%d as client id %s", s->was_connected ? "reconnected" : "connected",
         s->opt->host, s->opt->port, s->opt->client_id);
    s->was_connected = true;
    /* Clean start: the broker forgot our subscription, so subscribe again. */
    int src = mosquitto_subscribe_v5(mosq, NULL, emcp_mqtt_subscription(s->b), EMCP_MQTT_QOS, 0, NULL);
    if (src != MOSQ_ERR_SUCCESS) {
        slog(s, "cannot subscribe to %s: %s", emcp_mqtt_subscription(s->b), mosquitto_strerror(src));
    }
    publish_presence(s, true, NULL);
}

static void on_subscribe(struct mosquitto *mosq, void *obj, int mid, int count, const int *granted,
                         const mosquitto_property *props)
{
    (void)mosq;
    (void)mid;
    (void)props;
    struct shim *s = obj;
    if (count < 1 || granted[0] > EMCP_MQTT_QOS) {
        slog(s, "subscription to %s refused (reason %d)", emcp_mqtt_subscription(s->b),
             count < 1 ? -1 : granted[0]);
        return;
    }
    slog(s, "subscribed to %s (QoS %d)", emcp_mqtt_subscription(s->b), granted[0]);
}

static void on_disconnect(struct mosquitto *mosq, void *obj, int rc, const mosquitto_property *props)
{
    (void)mosq;
    (void)props;
    struct shim *s = obj;
    if (s->connected && rc != 0) {
        slog(s, "connection lost (%s); reconnecting", mosquitto_strerror(rc));
    }
    s->connected = false;
}

static void on_publish(struct mosquitto *mosq, void *obj, int mid, int reason,
                       const mosquitto_property *props)
{
    (void)mosq;
    (void)reason;
    (void)props;
    struct shim *s = obj;
    if (mid == s->offline_mid) {
        s->offline_acked = true;
    }
}

static void on_message(struct mosquitto *mosq, void *obj, const struct mosquitto_message *m,
                       const mosquitto_property *props)
{
    struct shim *s = obj;
    char *response_topic = NULL;
    void *corr = NULL;
    uint16_t corr_len = 0;
    char *content_type = NULL;
    /* libmosquitto hands out copies; they are freed below. */
    mosquitto_property_read_string(props, MQTT_PROP_RESPONSE_TOPIC, &response_topic, false);
    bool has_corr =
        mosquitto_property_read_binary(props, MQTT_PROP_CORRELATION_DATA, &corr, &corr_len, false) != NULL;
    mosquitto_property_read_string(props, MQTT_PROP_CONTENT_TYPE, &content_type, false);

    emcp_mqtt_message_t msg;
    memset(&msg, 0, sizeof msg);
    msg.topic.ptr = m->topic;
    msg.topic.len = m->topic != NULL ? strlen(m->topic) : 0;
    msg.payload = m->payload;
    msg.payload_len = m->payloadlen > 0 ? (size_t)m->payloadlen : 0;
    if (response_topic != NULL) {
        msg.response_topic.ptr = response_topic;
        msg.response_topic.len = strlen(response_topic);
    }
    if (has_corr) {
        static const char none[1] = {0};
        msg.correlation.ptr = corr != NULL ? corr : none; /* present but empty */
        msg.correlation.len = corr_len;
    }
    if (content_type != NULL) {
        msg.content_type.ptr = content_type;
        msg.content_type.len = strlen(content_type);
    }
    msg.retained = m->retain;
    msg.principal = emcp_mqtt_principal(s->opt->username);
    msg.now_ms = emcp_monotonic_ms();

    emcp_mqtt_reply_t reply;
    if (emcp_mqtt_handle(s->b, &msg, &reply) == 1) {
        /* One JSON-RPC message per PUBLISH (several for a round of
         * server-to-client requests). */
        const uint8_t *one = NULL;
        size_t one_len = 0;
        size_t at = 0;
        while (emcp_mqtt_reply_next(&reply, &at, &one, &one_len) == 1) {
            mosquitto_property *out = NULL;
            mosquitto_property_add_string(&out, MQTT_PROP_CONTENT_TYPE, EMCP_MQTT_CONTENT_TYPE);
            mosquitto_property_add_byte(&out, MQTT_PROP_PAYLOAD_FORMAT_INDICATOR, 1);
            if (reply.correlation != NULL) {
                mosquitto_property_add_binary(&out, MQTT_PROP_CORRELATION_DATA, reply.correlation,
                                              (uint16_t)reply.correlation_len);
            }
            if (reply.response_topic != NULL) {
                mosquitto_property_add_string(&out, MQTT_PROP_RESPONSE_TOPIC, reply.response_topic);
            }
            int rc = mosquitto_publish_v5(mosq, NULL, reply.topic, (int)one_len, one, EMCP_MQTT_QOS,
                                          false, out);
            mosquitto_property_free_all(&out);
            if (rc != MOSQ_ERR_SUCCESS) {
                slog(s, "cannot publish a reply to %s: %s", reply.topic, mosquitto_strerror(rc));
            }
        }
    }
    free(response_topic);
    free(corr);
    free(content_type);
}

/* ---- Loop --------------------------------------------------------------- */

static bool stopping(const struct shim *s)
{
    return s->opt->stop != NULL && *s->opt->stop != 0;
}

/* Sleeps ms, waking early when asked to stop. */
static void nap(const struct shim *s, unsigned ms)
{
    while (ms > 0 && !stopping(s)) {
        unsigned step = ms < 50 ? ms : 50;
        struct timespec ts = {0, (long)step * 1000000L};
        nanosleep(&ts, NULL);
        ms -= step;
    }
}

/* Splits HOST:PORT at the last colon (so [v6]:port works without brackets). */
static bool split_broker(char *arg, const char **host, int *port)
{
    char *colon = strrchr(arg, ':');
    if (colon == NULL) {
        *host = arg;
        return arg[0] != '\0';
    }
    char *end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || p <= 0 || p > 65535 || colon == arg) {
        return false;
    }
    *colon = '\0';
    *host = arg;
    *port = (int)p;
    return true;
}

static int bad_value(FILE *err, const char *prog, const char *what)
{
    if (err != NULL) {
        fprintf(err, "%s: %s\n", prog, what);
    }
    return -1;
}

int emcp_mqtt_mosq_parse_option(emcp_mqtt_mosq_options_t *opt, int argc, char **argv, int *i,
                                FILE *err)
{
    if (opt == NULL || argv == NULL || i == NULL || *i < 0 || *i >= argc || argv[*i] == NULL) {
        return 0;
    }
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "emcp_mqtt_mosq";
    const char *a = argv[*i];
    if (strcmp(a, "--tls-insecure") == 0) {
        opt->tls_insecure = true;
        return 1;
    }
    static const char *const valued[] = {"--broker",   "--client-id", "--keepalive", "--username",
                                         "--password-env", "--cafile", "--capath",  "--cert",
                                         "--key",      "--tls-version"};
    size_t k = 0;
    while (k < sizeof valued / sizeof valued[0] && strcmp(a, valued[k]) != 0) {
        k++;
    }
    if (k == sizeof valued / sizeof valued[0]) {
        return 0;
    }
    if (*i + 1 >= argc || argv[*i + 1] == NULL) {
        if (err != NULL) {
            fprintf(err, "%s: %s needs a value\n", prog, a);
        }
        return -1;
    }
    char *v = argv[++*i];
    if (strcmp(a, "--broker") == 0) {
        if (!split_broker(v, &opt->host, &opt->port)) {
            return bad_value(err, prog, "--broker wants HOST:PORT");
        }
    } else if (strcmp(a, "--client-id") == 0) {
        opt->client_id = v;
    } else if (strcmp(a, "--keepalive") == 0) {
        char *end = NULL;
        long ka = strtol(v, &end, 10);
        if (end == v || *end != '\0' || ka < 5 || ka > 65535) {
            return bad_value(err, prog, "--keepalive wants 5 to 65535 seconds");
        }
        opt->keepalive_s = (int)ka;
    } else if (strcmp(a, "--username") == 0) {
        opt->username = v;
    } else if (strcmp(a, "--password-env") == 0) {
        opt->password = getenv(v);
        if (opt->password == NULL) {
            if (err != NULL) {
                fprintf(err, "%s: environment variable %s is not set\n", prog, v);
            }
            return -1;
        }
    } else if (strcmp(a, "--cafile") == 0) {
        opt->cafile = v;
    } else if (strcmp(a, "--capath") == 0) {
        opt->capath = v;
    } else if (strcmp(a, "--cert") == 0) {
        opt->certfile = v;
    } else if (strcmp(a, "--key") == 0) {
        opt->keyfile = v;
    } else {
        opt->tls_version = v;
    }
    return 1;
}

int emcp_mqtt_mosq_configure(struct mosquitto *mosq, const emcp_mqtt_mosq_options_t *o)
{
    if (mosq == NULL || o == NULL) {
        return -MCP_EINVAL;
    }
    int rc = mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    /* A reply and the PUBACK of its request are two small writes; with
     * Nagle the second waits for the broker's delayed ACK (~40 ms). */
    if (rc == MOSQ_ERR_SUCCESS) {
        rc = mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1);
    }
    if (rc == MOSQ_ERR_SUCCESS && (o->username != NULL || o->password != NULL)) {
        rc = mosquitto_username_pw_set(mosq, o->username, o->password);
    }
    if (rc == MOSQ_ERR_SUCCESS && (o->cafile != NULL || o->capath != NULL)) {
        rc = mosquitto_tls_set(mosq, o->cafile, o->capath, o->certfile, o->keyfile, NULL);
        if (rc == MOSQ_ERR_SUCCESS && o->tls_version != NULL) {
            rc = mosquitto_tls_opts_set(mosq, 1, o->tls_version, NULL);
        }
        if (rc == MOSQ_ERR_SUCCESS && o->tls_insecure) {
            rc = mosquitto_tls_insecure_set(mosq, true);
        }
    }
    if (rc != MOSQ_ERR_SUCCESS) {
        if (o->log != NULL) {
            fprintf(o->log, "emcp_mqtt_mosq: bad connection options: %s\n", mosquitto_strerror(rc));
        }
        return -MCP_EINVAL;
    }
    return 0;
}

static int setup(struct shim *s)
{
    int rc = emcp_mqtt_mosq_configure(s->mosq, s->opt);
    if (rc != 0) {
        return rc;
    }
    /* The Will: retained offline presence, published by the broker when we
     * vanish without a DISCONNECT (crash, power loss, network cut). */
    int n = emcp_mqtt_presence(s->b, false, s->presence, sizeof s->presence);
    if (n < 0) {
        return n;
    }
    mosquitto_property *wp = NULL;
    mosquitto_property_add_string(&wp, MQTT_PROP_CONTENT_TYPE, EMCP_MQTT_CONTENT_TYPE);
    rc = mosquitto_will_set_v5(s->mosq, emcp_mqtt_presence_topic(s->b), n, s->presence,
                               EMCP_MQTT_QOS, true, wp);
    if (rc != MOSQ_ERR_SUCCESS) {
        mosquitto_property_free_all(&wp); /* ours to free on error only */
        slog(s, "cannot set the Will: %s", mosquitto_strerror(rc));
        return -MCP_EINVAL;
    }
    mosquitto_connect_v5_callback_set(s->mosq, on_connect);
    mosquitto_disconnect_v5_callback_set(s->mosq, on_disconnect);
    mosquitto_message_v5_callback_set(s->mosq, on_message);
    mosquitto_subscribe_v5_callback_set(s->mosq, on_subscribe);
    mosquitto_publish_v5_callback_set(s->mosq, on_publish);
    return 0;
}

/* Publishes offline presence, waits for its PUBACK, then DISCONNECTs (which
 * discards the Will: we said goodbye ourselves). */
static void shutdown_session(struct shim *s)
{
    if (!s->connected) {
        return;
    }
    s->offline_mid = -1;
    s->offline_acked = false;
    if (publish_presence(s, false, &s->offline_mid) == MOSQ_ERR_SUCCESS) {
        uint64_t deadline = emcp_monotonic_ms() + EMCP_MQTT_SHUTDOWN_MS;
        while (!s->offline_acked && s->connected && emcp_monotonic_ms() < deadline) {
            if (mosquitto_loop(s->mosq, 50, 1) != MOSQ_ERR_SUCCESS) {
                break;
            }
        }
    }
    mosquitto_disconnect_v5(s->mosq, MQTT_RC_NORMAL_DISCONNECTION, NULL);
    mosquitto_loop(s->mosq, 50, 1);
}

int emcp_mqtt_mosq_run(emcp_mqtt_t *binding, const emcp_mqtt_mosq_options_t *opt)
{
    if (binding == NULL || opt == NULL || opt->host == NULL || opt->client_id == NULL ||
        opt->port <= 0 || opt->port > 65535) {
        return -MCP_EINVAL;
    }
    struct shim s;
    memset(&s, 0, sizeof s);
    s.b = binding;
    s.opt = opt;
    s.offline_mid = -1;
    emcp_mqtt_backoff_init(&s.backoff, opt->backoff_min_ms, opt->backoff_max_ms,
                           (uint32_t)(emcp_monotonic_ms() ^ (uint64_t)(uintptr_t)&s));

    mosquitto_lib_init();
    s.mosq = mosquitto_new(opt->client_id, true, &s);
    if (s.mosq == NULL) {
        mosquitto_lib_cleanup();
        return -MCP_EINVAL;
    }
    int rc = setup(&s);
    if (rc != 0) {
        mosquitto_destroy(s.mosq);
        mosquitto_lib_cleanup();
        return rc;
    }

    mosquitto_property *cp = NULL;
    mosquitto_property_add_int32(&cp, MQTT_PROP_MAXIMUM_PACKET_SIZE, EMCP_MQTT_PACKET_MAX);
    int keepalive = opt->keepalive_s > 0 ? opt->keepalive_s : EMCP_MQTT_KEEPALIVE_S;
    bool socket_up = false;
    bool reported_down = false;

    while (!stopping(&s)) {
        if (!socket_up) {
            /* A fresh CONNECT every attempt: clean start, the Will, our limits. */
            int crc = mosquitto_connect_bind_v5(s.mosq, opt->host, opt->port, keepalive, NULL, cp);
            if (crc == MOSQ_ERR_INVAL) {
                /* Bad options (e.g. keep-alive below 5 s): retrying cannot help. */
                slog(&s, "connection options refused by libmosquitto: %s", mosquitto_strerror(crc));
                mosquitto_property_free_all(&cp);
                mosquitto_destroy(s.mosq);
                mosquitto_lib_cleanup();
                return -MCP_EINVAL;
            }
            if (crc != MOSQ_ERR_SUCCESS) {
                if (!reported_down) {
                    slog(&s, "cannot reach %s:%d (%s); retrying with backoff", opt->host, opt->port,
                         crc == MOSQ_ERR_ERRNO ? "connection failed" : mosquitto_strerror(crc));
                    reported_down = true;
                }
                nap(&s, emcp_mqtt_backoff_next(&s.backoff));
                continue;
            }
            socket_up = true;
            reported_down = false;
        }
        int lrc = mosquitto_loop(s.mosq, 100, 1);
        if (lrc != MOSQ_ERR_SUCCESS) {
            /* Connection lost or refused at CONNACK: back off, then reconnect. */
            if (s.connected) {
                slog(&s, "connection lost (%s); reconnecting", mosquitto_strerror(lrc));
            }
            s.connected = false;
            socket_up = false;
            nap(&s, emcp_mqtt_backoff_next(&s.backoff));
        }
    }

    shutdown_session(&s);
    mosquitto_property_free_all(&cp);
    emcp_mqtt_stats_t st = emcp_mqtt_stats(binding);
    slog(&s, "stopped: %lu executed, %lu replayed, %lu refused, %lu dropped, %lu evicted",
         (unsigned long)st.executed, (unsigned long)st.replayed, (unsigned long)st.refused,
         (unsigned long)st.dropped, (unsigned long)st.evicted);
    mosquitto_destroy(s.mosq);
    mosquitto_lib_cleanup();
    return 0;
}
